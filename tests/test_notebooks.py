"""Every notebook in notebooks/ executes from top to bottom without an error (nbclient), and the lessons'
check cells work: with the exercise placeholders they say "not yet", with the solutions every check passes."""
import importlib.util
import re
import time
from pathlib import Path

import nbformat
import numpy as np
import pytest
from nbclient import NotebookClient

from pendulum_explorer.app.links import parse_query

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
LESSONS = sorted((ROOT / "notebooks" / "lessons").glob("*.ipynb"))
SOLUTIONS = sorted((ROOT / "notebooks" / "lessons" / "solutions").glob("*.ipynb"))
CHECK_LINE = re.compile(r"^\[(?P<name>[^\]]+)\] (?P<verdict>not yet|correct|not quite)", re.M)
#: the lessons' links into the dashboard: ``dashboard_link("QUERY", "text")`` cells (the set-up cell defines it)
LINK_CALL = re.compile(r'^dashboard_link\("([^"]+)"', re.M)


def run(path):
    nb = nbformat.read(path, as_version=4)
    t0 = time.perf_counter()
    NotebookClient(nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}}).execute()
    print(f"{path.relative_to(ROOT)}: {time.perf_counter() - t0:.1f} s")
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", []) if o.output_type == "error"]
    assert not errors, [(e.ename, e.evalue) for e in errors]
    text = "\n".join(o.get("text", "") for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])
                     if o.output_type == "stream")
    return nb, text


def test_there_are_teaching_notebooks():
    assert {"dashboard.ipynb", "geometric_phase.ipynb"} <= {p.name for p in NOTEBOOKS}
    assert len(LESSONS) >= 5
    assert [p.name for p in SOLUTIONS] == [p.name for p in LESSONS]


def test_lessons_are_generated_from_one_source():
    """The committed lessons and solutions are what tools/make_lessons.py writes (one source for both)."""
    spec = importlib.util.spec_from_file_location("make_lessons", ROOT / "tools" / "make_lessons.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    files = mod.build()
    assert set(files) == set(LESSONS) | set(SOLUTIONS)
    for path, text in files.items():
        assert path.read_text(encoding="utf-8") == text, f"{path.name}: run python tools/make_lessons.py"


@pytest.mark.parametrize("path", LESSONS + SOLUTIONS,
                         ids=[p.name for p in LESSONS] + [f"solution-{p.name}" for p in SOLUTIONS])
def test_lessons_use_only_the_public_api_and_valid_links(path):
    nb = nbformat.read(path, as_version=4)
    code = "\n".join(c.source for c in nb.cells if c.cell_type == "code")
    # (jupyter_core, which dashboard_link reads the Jupyter runtime folder with, is not the package's _core)
    assert not re.search(r"(?<![A-Za-z])_core\b|\bpe\._|\bimport _|from \S*\._", code)
    queries = LINK_CALL.findall("\n".join(c.source for c in nb.cells if c.cell_type == "code"))
    assert queries, "every lesson links to a dashboard view"
    assert "8866" not in "\n".join(c.source for c in nb.cells[1:] if c.cell_type == "markdown"), \
        "links into the dashboard go through dashboard_link (a hard-coded port fails on Binder)"
    for q in queries:
        parse_query(q)      # raises LinkError on a bad link


# the notebooks the docs build executes (myst-nb, nb_execution_raise_on_error: a failing cell fails test_docs)
DOCS_CONF = (ROOT / "docs" / "conf.py").read_text()
IN_DOCS = set(re.findall(r'"([\w/]+\.ipynb)"', DOCS_CONF.split("NOTEBOOKS = ", 1)[1].split("]", 1)[0]))
RUN_HERE = [p for p in NOTEBOOKS if p.name not in IN_DOCS]


def test_docs_build_runs_the_other_notebooks_and_fails_on_an_error():
    assert re.search(r"^nb_execution_raise_on_error = True$", DOCS_CONF, re.M)
    assert {p.name for p in NOTEBOOKS} - {p.name for p in RUN_HERE} <= IN_DOCS
    assert {"geometric_phase.ipynb", "skeleton_of_chaos.ipynb"} <= IN_DOCS and RUN_HERE


@pytest.mark.parametrize("path", RUN_HERE, ids=[p.name for p in RUN_HERE])
def test_notebook_runs(path):
    nb, _ = run(path)
    # every notebook produces outputs (figures / numbers)
    assert sum(len(c.get("outputs", [])) for c in nb.cells if c.cell_type == "code") > 0


@pytest.mark.parametrize("path", LESSONS, ids=[p.name for p in LESSONS])
def test_lesson_runs_and_says_not_yet(path):
    """Handed out as is: runs without an error, and every check cell answers "not yet"."""
    nb, text = run(path)
    verdicts = CHECK_LINE.findall(text)
    n_ex = sum("exercise" in c.metadata.get("tags", []) for c in nb.cells)
    assert n_ex >= 2 and len(verdicts) == n_ex, (n_ex, verdicts)
    assert {v for _, v in verdicts} == {"not yet"}, verdicts
    if path.name.startswith("01_"):
        # Exercise 1.3 ("which method drifts?") comes before the cell that prints the methods' energy errors (the
        # cell before it printed 'RK2 : |E(T) - E(0)| = 1.48e-01 J ... LGVI: ...', the answer, until issue 25)
        k = next(i for i, c in enumerate(nb.cells) if "exercise" in c.metadata.get("tags", []) and "drifts" in c.source)
        before = "\n".join(o.get("text", "") for c in nb.cells[:k] if c.cell_type == "code"
                           for o in c.get("outputs", []))
        assert not re.search(r"RK2|LGVI|DOP853", before), before[-300:]


def test_lesson_links_open_the_motion_they_talk_about():
    """Lesson 3's links to the planar rod and the Lagrange top opened the Motion tab with its default motion
    (omega0 = (1, 1, 1) from hanging: the rod tumbling in 3D, the top wobbling without its fast spin); they now give
    omega0 and T: the rod's ~90 degree swing and the top spinning at 20 rad/s about its axis."""
    nb = nbformat.read(ROOT / "notebooks" / "lessons" / "03_analytic_anchors.ipynb", as_version=4)
    queries = LINK_CALL.findall("\n".join(c.source for c in nb.cells if c.cell_type == "code"))
    links = {parse_query(q).preset: parse_query(q) for q in queries}
    assert links["planar"].omega0 == (5.42, 0.0, 0.0) and links["lagrange_top"].omega0 == (0.0, 0.5, 20.0)
    # the rod's swing: 5.42 rad/s at the bottom is the swing of amplitude ~90 degrees the lesson simulates
    from pendulum_explorer import presets

    P = presets.planar().pendulum
    amplitude = np.degrees(np.arccos(1 - 0.5 * P.J[0, 0] * 5.42 ** 2 / (P.m * P.g * np.linalg.norm(P.rho))))
    assert 89.0 < amplitude < 90.0
