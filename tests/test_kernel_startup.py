"""What the dashboard kernel loads when the section tab first opens (after the panels' warm-up): no module at all
(the relative equilibria's duplicate check imported scipy.spatial there: +11 MB of kernel memory and ~0.08 s of
CPU), the lane kernels only when a chaos map is asked for, and the duplicate check without the k-d tree drops exactly the points the k-d tree drops."""
from types import SimpleNamespace

import numpy as np
import pytest
from app_helpers import _fresh_process_lines

from pendulum_explorer.equilibria import at_mu


def _kd_tree_unique(points, tol=1e-9):
    """The k-d tree rule: a point within ``tol`` of an earlier one is dropped."""
    from scipy.spatial import cKDTree

    G = np.array([q.Gamma for q in points])
    drop = {max(i, j) for i, j in cKDTree(G).query_pairs(tol)}
    return [k for k in range(len(points)) if k not in drop]


@pytest.mark.parametrize("n", [2, 7, 120, at_mu.PAIRWISE_MAX, at_mu.PAIRWISE_MAX + 40])
def test_unique_drops_what_the_kd_tree_drops(n):
    rng = np.random.default_rng(n)
    G = rng.normal(size=(n, 3))
    G /= np.linalg.norm(G, axis=1, keepdims=True)
    k = rng.choice(n, size=max(1, n // 3), replace=False)
    src = rng.integers(0, n, size=k.size)
    step = rng.choice([3e-10, 5e-10, 3e-9], size=k.size)  # within tol (dropped) or just beyond it (kept)
    step[0] = 3e-10
    src[0] = (k[0] + 1) % n
    G[k] = G[src] + step[:, None] * np.array([1.0, 0.0, 0.0])
    G[k[: len(k) // 2]] = G[src[: len(k) // 2]]  # exact copies too
    pts = [SimpleNamespace(Gamma=g, i=i) for i, g in enumerate(G)]
    got = [q.i for q in at_mu._unique(pts)]
    assert got == _kd_tree_unique(pts)
    assert len(got) < n  # some were dropped


def test_section_tab_opening_imports_no_module_after_the_warm_up():
    """Failed before: the tab's opening imported scipy.spatial, scipy.special, scipy.constants (+71 modules)
    through the relative equilibria's duplicate check (equilibria_at_mu, for the level's critical energies)."""
    lines = _fresh_process_lines(
        "import sys\nfrom pendulum_explorer.app import build_app\nd = build_app(prewarm=False, query='')\n"
        "d._prewarm()\nbefore = set(sys.modules)\nd.show('section')\n"
        "print(d.panels['section'].section is not None)\n"
        "print(sorted(set(sys.modules) - before))\n"
        "print(sorted(m for m in sys.modules if m.startswith('pendulum_explorer._core.lanes')))")
    assert lines[-3] == "True"
    assert lines[-2] == "[]", f"imported when the section tab opened: {lines[-2]}"
    # nor the lane kernels (chaos maps only): their modules took 33 ms of the warm-up's CPU (failed before)
    assert lines[-1] == "[]", lines[-1]
