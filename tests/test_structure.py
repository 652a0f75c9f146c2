"""The package's shape (DESIGN.md): no import circle between its modules, no import back up a layer, and no class
over 350 lines, function over 100 or module over 600 (the generated ``_core/dop853_lp.py`` aside).

The import graph is read from the source (``ast``: module-level and function-level imports alike, as a reader
sees them).  ``section/`` once held a circle (``parallel`` -> ``cluster`` -> ``facade`` -> ``parallel``, through
``warm_workers``), which no test caught.
"""
from __future__ import annotations

import ast
from pathlib import Path

PKG = Path(__file__).resolve().parent.parent / "pendulum_explorer"
GENERATED = {"_core/dop853_lp.py"}


def _modules() -> dict[str, Path]:
    out = {}
    for path in PKG.rglob("*.py"):
        rel = path.relative_to(PKG).with_suffix("")
        parts = list(rel.parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(["pendulum_explorer", *parts])] = path
    return out


MODULES = _modules()


def _package_of(name: str, path: Path) -> str:
    return name if path.name == "__init__.py" else name.rpartition(".")[0]


def _resolve(target: str) -> str | None:
    """The package module a dotted name imports (the longest known prefix)."""
    while target:
        if target in MODULES:
            return target
        target = target.rpartition(".")[0]
    return None


def _imports(name: str, path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), str(path))
    pkg = _package_of(name, path)
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = pkg.split(".")
                base = base[:len(base) - node.level + 1]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            # "from . import x" imports the submodule x when there is one, else the package itself
            targets = [f"{mod}.{a.name}" if f"{mod}.{a.name}" in MODULES else mod for a in node.names]
        else:
            continue
        for t in targets:
            r = _resolve(t)
            if r and r != name:
                found.add(r)
    return found


GRAPH = {name: _imports(name, path) for name, path in MODULES.items()}


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def _layer(name: str) -> int:
    parts = name.split(".")[1:]
    head = parts[0] if parts else ""
    if head in ("_core", "_jit"):
        return 1
    if head == "plotting":
        return 3
    if head in ("app", "cli", "server", "_page_kernels") or not parts:
        return 4   # the top package re-exports everything; the app, the server and the command line use all layers
    return 2


def test_the_graph_is_read():
    """The reader sees known imports (a test that cannot fail would pass on an empty graph)."""
    assert len(MODULES) > 80
    assert "pendulum_explorer._core.fields" in GRAPH["pendulum_explorer._core.dop853"]
    assert "pendulum_explorer.section.map" in GRAPH["pendulum_explorer.section.facade"]
    assert "pendulum_explorer._validate" in GRAPH["pendulum_explorer.section.level"]
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_no_import_circle():
    assert _cycles(GRAPH) == []


def test_no_import_back_up_a_layer():
    up = sorted((a, b) for a, deps in GRAPH.items() for b in deps if _layer(b) > _layer(a))
    assert up == [], up
    # and no module below the top imports the top package itself (it imports everything)
    top = sorted(a for a, deps in GRAPH.items() if "pendulum_explorer" in deps and _layer(a) < 4)
    assert top == [], top


def _spans(path: Path):
    tree = ast.parse(path.read_text(), str(path))
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            start = min([node.lineno] + [d.lineno for d in node.decorator_list])
            yield node, node.end_lineno - start + 1


def test_no_class_function_or_module_over_its_size():
    big = []
    for name, path in MODULES.items():
        rel = path.relative_to(PKG).as_posix()
        if rel in GENERATED:
            continue
        n = len(path.read_text().splitlines())
        if n > 600:
            big.append((rel, "module", n))
        for node, lines in _spans(path):
            limit = 350 if isinstance(node, ast.ClassDef) else 100
            if lines > limit:
                big.append((rel, node.name, lines))
    assert big == [], big
