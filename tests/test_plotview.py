"""The figure widget's module layout: its JavaScript is a file shipped as package data, and the app modules import
each other without a circle (issue 9, items 3 and 7)."""
from __future__ import annotations

import ast
import fnmatch
import tomllib
from pathlib import Path

import pendulum_explorer.app as app_pkg
from pendulum_explorer.app import plotview

ROOT = Path(__file__).resolve().parent.parent
APP = Path(app_pkg.__file__).resolve().parent


def test_widget_javascript_is_packaged_modules_joined_into_one():
    """The widget's JavaScript is ES modules by job in app/js (none over 600 lines), joined into the one module
    anywidget loads: each module's imports are of its own siblings, every top-level name is declared once."""
    import re
    files = sorted(p.name for p in plotview.JS_DIR.glob("*.js"))
    assert set(plotview.JS_MODULES) == set(files) and plotview.JS_DIR.parent == APP
    for name in files:
        text = (plotview.JS_DIR / name).read_text()
        assert len(text.splitlines()) <= 600, name
        for imp in re.findall(r'^import .* from "(.*)";', text, re.M):
            assert imp.startswith("./") and imp[2:] in files, (name, imp)
        if name != "index.js":
            assert "export default" not in text
    text = plotview.ESM
    assert text.count("export default { render }") == 1 and "Plotly.react" in text and "\nimport " not in text
    assert not re.search(r"^export (const|let|function|class)", text, re.M)
    names = re.findall(r"^(?:const|let|function|async function|class) ([A-Za-z_$][\w$]*)", text, re.M)
    assert len(names) == len(set(names)), sorted(n for n in names if names.count(n) > 1)
    assert plotview.PlotlyView._esm == text
    # the wheel carries the modules: pyproject's package data for pendulum_explorer.app matches their paths
    cfg = tomllib.loads((ROOT / "pyproject.toml").read_text())
    patterns = cfg["tool"]["setuptools"]["package-data"]["pendulum_explorer.app"]
    assert all(any(fnmatch.fnmatch(f"js/{n}", p) for p in patterns) for n in files)


def _app_imports(path: Path) -> set[str]:
    """The sibling app modules that ``path`` imports (``from .x import`` / ``from . import x``), anywhere in it."""
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            if node.module:
                out.add(node.module.split(".")[0])
            else:
                out.update(a.name for a in node.names)
    return out


def test_no_import_circle_between_app_modules():
    graph = {p.stem: _app_imports(p) for p in APP.glob("*.py") if p.stem != "__init__"}
    assert "common" not in graph["plotview"]  # the circle of issue 9, item 3
    # depth-first search for any cycle
    state = {}

    def visit(n, stack):
        state[n] = 1
        for m in graph.get(n, ()):
            if m not in graph:
                continue
            assert state.get(m) != 1, f"import circle: {' -> '.join(stack + [n, m])}"
            if m not in state:
                visit(m, stack + [n])
        state[n] = 2

    for n in graph:
        if n not in state:
            visit(n, [])
