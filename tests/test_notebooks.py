"""Every notebook in notebooks/ executes from top to bottom without an error (nbclient)."""
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

NOTEBOOKS = sorted((Path(__file__).resolve().parent.parent / "notebooks").glob("*.ipynb"))


def test_there_are_teaching_notebooks():
    names = {p.name for p in NOTEBOOKS}
    assert {"dashboard.ipynb", "equilibria.ipynb", "poincare_fig2.ipynb"} <= names


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_runs(path, tmp_path):
    nb = nbformat.read(path, as_version=4)
    NotebookClient(nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}}).execute()
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", []) if o.output_type == "error"]
    assert not errors
    # every code cell produced its outputs (the notebooks are meant to show figures / numbers)
    assert sum(len(c.get("outputs", [])) for c in nb.cells if c.cell_type == "code") > 0
