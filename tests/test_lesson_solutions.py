"""The lessons' self-checks accept the right answer and reject a wrong one.

Each solution notebook (notebooks/lessons/solutions/) runs from a clean kernel and every check says "correct";
then, in the same kernel, every exercise is answered again with a plausible wrong answer (a sign slip, the paper's
misprinted sign, a missing factor, the other choice) and its check cell run again: each must say "not quite".

A file of its own so that ``pytest -n 2 --dist loadfile`` runs it beside tests/test_notebooks.py."""
import copy

import nbformat
import pytest
from nbclient import NotebookClient

from test_notebooks import CHECK_LINE, ROOT, SOLUTIONS

#: a wrong answer for every exercise, in the order of the exercises in the lesson
WRONG = {
    "01_from_planar_to_rigid_body": [
        "E_predicted = m * g * l * np.cos(theta0)",          # e3 points down: the sign of the potential
        "mu_predicted = 0.13",                               # J_11 instead of J_33
        'drifts = "lgvi"',
    ],
    "02_reduction": [
        "Gammadot0 = np.cross(omega0, Gamma0)",             # the order of the cross product
        "mu_predicted = omega0 @ Gamma0",                    # J left out
        'agree = "no"',
    ],
    "03_analytic_anchors": [
        "ratio_predicted = 1.0",                             # the period taken as independent of the amplitude
        "freqs_predicted = sorted([np.sqrt(mgl / P.J[0, 0]), np.sqrt(mgl / P.J[2, 2])], reverse=True)",
        "T_nut_predicted = 2 * np.pi * I1 / (I3 * w3)",       # the fast-top estimate, 60% off at this spin
    ],
    "04_equilibria": [
        "s_predicted = -np.sign(alpha)",                     # the paper's printed sign -sgn(alpha)
        'inverted_class = "focus-focus"',
    ],
    "05_poincare_sections": [
        "c = np.sqrt(2 * (0.0 + P.m * P.g * P.rho[2]) / P.J.sum())\nmu_predicted = c * P.J.sum()",
        "regular_energies = [0.0, 8.83]",
    ],
}


def _with_wrong_answers(nb, wrong):
    """The notebook followed by, for every exercise, its wrong answer and a copy of the check cell after it."""
    cells = nb.cells
    exercises = [i for i, c in enumerate(cells) if "exercise" in c.metadata.get("tags", [])]
    assert len(exercises) == len(wrong), (len(exercises), len(wrong))
    extra = []
    for i, answer in zip(exercises, wrong):
        check_cell = next(c for c in cells[i + 1:] if c.cell_type == "code" and "check(" in c.source)
        extra += [nbformat.v4.new_code_cell(answer), copy.deepcopy(check_cell)]
    out = copy.deepcopy(nb)
    out.cells = cells + extra
    return out, len(cells)


@pytest.mark.parametrize("path", SOLUTIONS, ids=[p.name for p in SOLUTIONS])
def test_solution_passes_every_check_and_a_wrong_answer_fails(path):
    nb, n_original = _with_wrong_answers(nbformat.read(path, as_version=4), WRONG[path.stem])
    NotebookClient(nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}}).execute()
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", []) if o.output_type == "error"]
    assert not errors, [(e.ename, e.evalue) for e in errors]

    def verdicts(cells):
        text = "\n".join(o.get("text", "") for c in cells if c.cell_type == "code" for o in c.get("outputs", [])
                         if o.output_type == "stream")
        return CHECK_LINE.findall(text)

    right, wrong = verdicts(nb.cells[:n_original]), verdicts(nb.cells[n_original:])
    n_ex = len(WRONG[path.stem])
    assert len(right) == n_ex and {v for _, v in right} == {"correct"}, right
    assert len(wrong) == n_ex and {v for _, v in wrong} == {"not quite"}, wrong
    assert [name for name, _ in wrong] == [name for name, _ in right]
    assert (ROOT / "notebooks" / "lessons" / path.name).exists()
