"""The lessons' solution notebooks (notebooks/lessons/solutions/) pass every check cell, from a clean kernel.

A file of its own so that ``pytest -n 2 --dist loadfile`` runs it beside tests/test_notebooks.py."""
import pytest

from test_notebooks import CHECK_LINE, SOLUTIONS, run


@pytest.mark.parametrize("path", SOLUTIONS, ids=[p.name for p in SOLUTIONS])
def test_solution_passes_every_check(path):
    nb, text = run(path)
    verdicts = CHECK_LINE.findall(text)
    n_ex = sum("exercise" in c.metadata.get("tags", []) for c in nb.cells)
    assert len(verdicts) == n_ex and {v for _, v in verdicts} == {"correct"}, verdicts
