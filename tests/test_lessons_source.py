"""The lessons' jupytext sources (notebooks/lessons/source/*.md) and what tools/make_lessons.py makes of them:
exercise/solution pairs, one set-up cell for every lesson, links into the dashboard that work where the notebook
runs, and the statements issue 25 corrected.  No notebook is executed here (tests/test_notebooks.py does that)."""
import importlib.util
import inspect
import json
import re
from pathlib import Path

import nbformat
import pytest

import pendulum_explorer as pe
from pendulum_explorer.app.links import parse_query

ROOT = Path(__file__).resolve().parent.parent
SOURCES = sorted((ROOT / "notebooks" / "lessons" / "source").glob("*.md"))


def _make_lessons():
    spec = importlib.util.spec_from_file_location("make_lessons", ROOT / "tools" / "make_lessons.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _lesson(name):
    return nbformat.read(ROOT / "notebooks" / "lessons" / f"{name}.ipynb", as_version=4)


def test_every_lesson_has_a_source_and_every_exercise_a_solution():
    mod = _make_lessons()
    assert [s.stem for s in SOURCES] == sorted(p.stem for p in (ROOT / "notebooks" / "lessons").glob("*.ipynb"))
    for source in SOURCES:
        lesson, solution = mod.split(source)
        ex_l = [c for c in lesson.cells if "exercise" in c.metadata.get("tags", [])]
        ex_s = [c for c in solution.cells if "exercise" in c.metadata.get("tags", [])]
        assert len(ex_l) == len(ex_s) >= 2
        assert all("None" in c.source for c in ex_l), source.name            # the placeholder
        assert all("None" not in c.source for c in ex_s), source.name        # the answer
        # apart from the exercises and the solution notebook's first cell, the two notebooks are the same
        assert [c.source for c in lesson.cells if c not in ex_l] == \
            [c.source for c in solution.cells[1:] if "exercise" not in c.metadata.get("tags", [])]


def test_an_exercise_without_its_solution_is_refused(tmp_path):
    mod = _make_lessons()
    src = tmp_path / "99_x.md"
    src.write_text("---\njupytext:\n  formats: md:myst\nkernelspec:\n  name: python3\n  display_name: Python 3\n---\n\n"
                   "# X\n\n```{code-cell}\n:tags: [exercise]\n\nx = None\n```\n\n```{code-cell}\nprint(x)\n```\n")
    with pytest.raises(ValueError, match="no 'solution' cell"):
        mod.split(src)


def test_every_lesson_starts_with_the_same_set_up_cell():
    firsts = {s.stem: next(c.source for c in _lesson(s.stem).cells if c.cell_type == "code") for s in SOURCES}
    assert len(set(firsts.values())) == 1, "the set-up cell (check, dashboard_link) differs between lessons"
    assert "def check(" in next(iter(firsts.values())) and "def dashboard_link(" in next(iter(firsts.values()))


def _setup_namespace():
    ns = {}
    exec(next(c.source for c in _lesson(SOURCES[0].stem).cells if c.cell_type == "code"), ns)
    return ns


@pytest.mark.parametrize("root, base_url, cwd, href", [
    # Binder / JupyterHub: the server's root is the repository, its base URL the user's prefix
    ("", "/user/abc-xyz/", "notebooks/lessons", "/user/abc-xyz/voila/render/notebooks/dashboard.ipynb?"),
    # python3 tools/dev.py lab: JupyterLab on notebooks/, any host and port; from the solutions folder too
    ("notebooks", "/", "notebooks/lessons/solutions", "/voila/render/dashboard.ipynb?"),
    # no Jupyter server serves this folder (a plain kernel, the docs build): the stand-alone dashboard
    (None, "/", "notebooks/lessons", "http://127.0.0.1:8866/?"),
])
def test_dashboard_link_points_at_the_server_the_notebook_runs_on(tmp_path, monkeypatch, root, base_url, cwd, href):
    """The lessons' links were http://127.0.0.1:8866/?... in markdown: wrong on Binder, a hub or another port."""
    runtime = tmp_path / "runtime"
    runtime.mkdir()
    (runtime / "jpserver-1.json").write_text(json.dumps({"root_dir": str(tmp_path / "elsewhere"), "base_url": "/x/"}))
    if root is not None:
        (runtime / "jpserver-2.json").write_text(json.dumps({"root_dir": str(ROOT / root), "base_url": base_url,
                                                             "url": "http://localhost:8888/"}))
    monkeypatch.setenv("JUPYTER_RUNTIME_DIR", str(runtime))
    monkeypatch.chdir(ROOT / cwd)
    html = _setup_namespace()["dashboard_link"]("preset=paper_fig1&tab=equilibria", "Fig. 1").data
    link = re.search(r'href="([^"]+)"', html).group(1)
    assert link == href + "preset=paper_fig1&tab=equilibria"
    assert parse_query(link.split("?", 1)[1]).preset == "paper_fig1"


def test_lesson_1_names_the_default_integrator_the_library_has():
    """Lesson 1 said the default integrator for long runs was the LGVI; simulate defaults to DOP853."""
    default = inspect.signature(pe.simulate).parameters["method"].default
    assert default == "dop853"
    text = "\n".join(c.source for c in _lesson("01_from_planar_to_rigid_body").cells if c.cell_type == "markdown")
    assert not re.search(r"default integrator[^.]*LGVI", text)
    assert 'by default (`method="dop853"`)' in text
    code = "\n".join(c.source for c in _lesson("01_from_planar_to_rigid_body").cells if c.cell_type == "code")
    assert "N_PERIODS = 10_000" in code


def test_lesson_4_states_the_misprint_the_right_way_round():
    """Lesson 4 said the printed -sgn(alpha) 'is wrong for alpha > 0'; it is wrong for alpha < 0 (Eq 42's
    residual 10.0 at alpha = -1.1 and -3, 1e-16 for alpha > 0: tests/test_equilibria.py checks the library)."""
    nb = _lesson("04_equilibria")
    text = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
    assert "wrong for $\\alpha > 0$" not in text and "wrong for $\\alpha < 0$" in text
    code = "\n".join(c.source for c in nb.cells if c.cell_type == "code")
    alpha = float(re.search(r"^alpha = (\S+)$", code, re.M).group(1))
    assert alpha < 0, "the exercise must use an alpha where the printed sign fails"
