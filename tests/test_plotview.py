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


def test_widget_javascript_is_a_packaged_file():
    js = plotview.ESM_PATH
    assert js.parent == APP and js.suffix == ".js"
    text = js.read_text()
    assert "export default { render }" in text and "Plotly.react" in text
    # anywidget reads the file (no JavaScript left in a Python string)
    assert "export default" not in Path(plotview.__file__).read_text()
    # the wheel carries it: pyproject's package data for pendulum_explorer.app matches the file name
    cfg = tomllib.loads((ROOT / "pyproject.toml").read_text())
    patterns = cfg["tool"]["setuptools"]["package-data"]["pendulum_explorer.app"]
    assert any(fnmatch.fnmatch(js.name, p) for p in patterns)


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
