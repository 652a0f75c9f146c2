"""The section's invariant measure (issue 21, item 4): |det DP(x)| = rho(x) / rho(P(x)) at random points (DP from
the variational equations, independently of rho, which comes from the Lie-Poisson volume and the first
integrals), and chaotic fractions by chart area and by invariant measure."""
import numpy as np
import pytest

import pendulum_explorer as pe
from pendulum_explorer import invariant_measure as im
from pendulum_explorer.poincare import PoincareSection


@pytest.fixture(scope="module")
def P():
    return pe.presets.paper_fig2().pendulum


@pytest.mark.parametrize("E", [2.03, 11.95])
def test_jacobian_determinant_is_the_density_ratio(P, E):
    """Measured at E = 11.95: det DP = 2.756, 0.833, -0.669, -0.772, -1.668, ... (|det| = rho ratio to 1e-10);
    both signs occur (the section counts crossings in both directions of d/dt e3 . Gammadot)."""
    sec = PoincareSection.from_paper_ic(P, E)[0]
    rng = np.random.default_rng(7)
    dets, n = [], 0
    while n < 10:
        x = (rng.uniform(-np.pi, np.pi), rng.uniform(-0.98, 0.98))
        if sec.slack(pe.sphere_from_chart(*x)) <= 0:
            continue
        try:
            ph1, z1, _T, M = sec.return_map(*x)
        except pe.PendulumError:
            continue
        n += 1
        d = float(np.linalg.det(M))
        dets.append(d)
        assert abs(d) == pytest.approx(im.section_density(sec, *x) / im.section_density(sec, ph1, z1), rel=1e-7)
    assert np.max(np.abs(np.log(np.abs(dets)))) > 0.05  # not area preserving in the chart
    if E == 11.95:
        assert min(dets) < 0 < max(dets)


def test_chaotic_fraction_by_measure(P):
    sec = PoincareSection.from_paper_ic(P, 11.95)[0]
    cm = sec.chaos_map((10, 8), 50.0)
    a = im.chaotic_fraction(cm, sec, measure="area")
    b = im.chaotic_fraction(cm, sec)
    assert a == cm.chaotic_fraction() and 0.0 < a < 1.0 and 0.0 < b < 1.0
    # the invariant fraction is the rho-weighted mean of the chaotic indicator over the accessible cells
    acc = cm.accessible
    W = np.array([[im.section_density(sec, cm.phi[i], cm.z[j]) if acc[j, i] else 0.0
                   for i in range(len(cm.phi))] for j in range(len(cm.z))])
    assert b == pytest.approx(float((W * (cm.values > cm.threshold)).sum() / W.sum()), rel=1e-12)
    with pytest.raises(ValueError, match="measure"):
        im.chaotic_fraction(cm, sec, measure="volume")
