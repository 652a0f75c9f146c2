"""The typed public API: mypy is clean on the package, and every public function and class of the model, analysis
and plotting layers is annotated (parameters and return), so that a new public function cannot arrive untyped.

The mypy run uses the project's configuration (``[tool.mypy]`` in pyproject.toml) and its cache
(``.mypy_cache`` in the repository): about 1-2 s with a warm cache, ~10 s cold.
"""
from __future__ import annotations

import importlib
import inspect
import pkgutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

import pendulum_explorer
import pendulum_explorer.plotting

ROOT = Path(__file__).resolve().parent.parent

#: the public packages of layers 2 (model / analysis) and 3 (plotting): the package and each of its public modules
TYPED_PACKAGES = [m.name for m in pkgutil.iter_modules(pendulum_explorer.__path__)
                  if m.ispkg and not m.name.startswith("_") and m.name != "app"]


def _package_modules(name):
    pkg = importlib.import_module(f"pendulum_explorer.{name}")
    return [f"pendulum_explorer.{name}"] + [f"pendulum_explorer.{name}.{m.name}"
                                            for m in pkgutil.iter_modules(pkg.__path__) if not m.name.startswith("_")]


#: the modules of layers 2 (model / analysis) and 3 (plotting): every public definition in them is annotated
TYPED_MODULES = sorted(
    [f"pendulum_explorer.{m.name}" for m in pkgutil.iter_modules(pendulum_explorer.__path__)
     if not m.ispkg and not m.name.startswith("_")]
    + [m for name in TYPED_PACKAGES for m in _package_modules(name)])


def _missing_in_function(qualname, func, skip_first=False):
    """``qualname(param)`` / ``qualname -> return`` for every parameter or return without an annotation."""
    sig = inspect.signature(func)
    params = list(sig.parameters.values())
    if skip_first and params:  # self / cls
        params = params[1:]
    out = [f"{qualname}({p.name})" for p in params if p.annotation is inspect.Parameter.empty]
    if sig.return_annotation is inspect.Signature.empty:
        out.append(f"{qualname} -> return")
    return out


def _missing_in_class(qualname, cls):
    """Unannotated parts of ``cls``: ``__init__``, ``__call__`` and every public method / property it defines
    (inherited and generated dunders such as a dataclass's ``__eq__`` are not its own API)."""
    out = []
    for name, attr in vars(cls).items():
        if name.startswith("_") and name not in ("__init__", "__call__"):
            continue
        if getattr(attr, "__module__", cls.__module__) not in (cls.__module__, None):
            continue  # put there by a library (typing.Protocol's __init__)
        where = f"{qualname}.{name}"
        if isinstance(attr, property):
            if attr.fget is not None:
                out += _missing_in_function(where, attr.fget, skip_first=True)
        elif isinstance(attr, (classmethod, staticmethod)):
            out += _missing_in_function(where, attr.__func__, skip_first=isinstance(attr, classmethod))
        elif inspect.isfunction(attr):  # a dataclass's generated __init__ carries its fields' annotations
            out += _missing_in_function(where, attr, skip_first=True)
    return out


def _missing(qualname, obj):
    if inspect.isclass(obj):
        return _missing_in_class(qualname, obj)
    if inspect.isfunction(obj):
        return _missing_in_function(qualname, obj)
    if inspect.ismodule(obj):
        return _missing_in_module(obj)
    return []  # constants


def _missing_in_module(module):
    """Every public function / class *defined* in ``module`` (re-exports are checked where they live)."""
    out = []
    for name, obj in vars(module).items():
        if name.startswith("_") or getattr(obj, "__module__", None) != module.__name__:
            continue
        if inspect.isclass(obj) or inspect.isfunction(obj):
            out += _missing(f"{module.__name__}.{name}", obj)
    return out


def test_the_checker_finds_what_is_not_annotated():
    def f(a, b: int, *args, c=1, **kw) -> int:
        return 0

    def g(x: int):
        return x

    class C:
        def __init__(self, a):
            self.a = a

        @property
        def p(self):
            return 1

        @classmethod
        def make(cls, a: int) -> C:
            return cls(a)

        @staticmethod
        def s(a: int, b):
            return a

        def _private(self, x):
            return x

    assert _missing("f", f) == ["f(a)", "f(args)", "f(c)", "f(kw)"]
    assert _missing("g", g) == ["g -> return"]
    assert sorted(_missing("C", C)) == ["C.__init__ -> return", "C.__init__(a)", "C.p -> return", "C.s -> return",
                                        "C.s(b)"]


def test_every_name_in_the_package_all_is_annotated():
    missing = []
    for name in pendulum_explorer.__all__:
        missing += _missing(f"pendulum_explorer.{name}", getattr(pendulum_explorer, name))
    assert not missing, "unannotated public API (parameters / return):\n  " + "\n  ".join(missing)


@pytest.mark.parametrize("module", TYPED_MODULES)
def test_every_public_definition_of_layers_2_and_3_is_annotated(module):
    missing = _missing_in_module(importlib.import_module(module))
    assert not missing, f"unannotated public functions / methods in {module}:\n  " + "\n  ".join(missing)


def test_layers_2_and_3_are_all_listed():
    """The module list above is not silently empty or partial (a new module is picked up by iter_modules)."""
    for m in ("bodies", "chaos", "equilibria", "poincare", "presets", "reduction", "trajectory",
              "equilibria.families", "equilibria.stability", "equilibria.at_mu", "equilibria.energy_momentum",
              "plotting.body", "plotting.section", "plotting.sphere", "plotting.diagrams"):
        assert f"pendulum_explorer.{m}" in TYPED_MODULES


def test_py_typed_marker_is_package_data():
    """PEP 561: the marker exists and setuptools ships it in the wheel."""
    assert (Path(pendulum_explorer.__file__).parent / "py.typed").is_file()
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert "py.typed" in config["tool"]["setuptools"]["package-data"]["pendulum_explorer"]


def test_mypy_is_clean_on_the_package():
    try:
        import mypy  # noqa: F401
    except ImportError:
        pytest.fail("mypy is not installed; it is part of the test extra: pip install -e '.[test]'")
    r = subprocess.run([sys.executable, "-m", "mypy"], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, f"mypy found errors (config: [tool.mypy] in pyproject.toml):\n{r.stdout}{r.stderr}"
    assert "Success: no issues found" in r.stdout
