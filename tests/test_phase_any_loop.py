"""geometric_phase (Prop 18) for simple closed loops in no open hemisphere (issue 21, item 5): loops crossing the
equator, against an independent quadrature of the phase density over the smaller region they bound (in the
equal-area chart (phi, Gamma_3), or in polar coordinates about the region's centre); before issue 21 these loops
were refused ("must lie in an open hemisphere")."""
import numpy as np
import pytest

import pendulum_explorer as pe
from pendulum_explorer.reduction import _phase_density


@pytest.fixture(scope="module")
def P():
    return pe.presets.paper_fig2().pendulum


def _star_loop(n=3000):
    s = np.linspace(0, 2 * np.pi, n, endpoint=False)
    z = 0.3 + 0.5 * np.sin(2 * s)  # crosses the equator twice: Gamma_3 in [-0.2, 0.8]
    r = np.sqrt(1 - z * z)
    return np.stack([r * np.cos(s), r * np.sin(s), z], 1)


def _chart_reference(J, n_phi=3000, n_z=120):
    """int_0^2pi int_{z(phi)}^1 f dz dphi (dA = dphi dz in the Lambert chart): the region above the loop."""
    xg, wg = np.polynomial.legendre.leggauss(n_z)
    ph = (np.arange(n_phi) + 0.5) * 2 * np.pi / n_phi
    z0 = 0.3 + 0.5 * np.sin(2 * ph)
    zq = z0[:, None] + (1 - z0[:, None]) * (xg + 1) / 2
    rq = np.sqrt(1 - zq * zq)
    G = np.stack([rq * np.cos(ph)[:, None], rq * np.sin(ph)[:, None], zq], -1)
    return float(np.sum(wg * (1 - z0[:, None]) / 2 * _phase_density(J, G)) * 2 * np.pi / n_phi)


def test_loop_crossing_the_equator(P):
    """The loop Gamma_3 = 0.3 + 0.5 sin 2phi, counter-clockwise seen from above: the region above it (area
    2 pi 0.7 < 2 pi) counts positive.  Measured -4.484822 (reference) against -4.484822 (3000 points)."""
    L = _star_loop()
    assert np.min(L @ (L.mean(0) / np.linalg.norm(L.mean(0)))) < 0  # in no open hemisphere about its mean
    ref = _chart_reference(np.asarray(P.J))
    assert pe.geometric_phase(P, L) == pytest.approx(ref, abs=2e-6)
    assert pe.geometric_phase(P, L[::-1]) == pytest.approx(-ref, abs=2e-6)  # orientation of Prop 18


@pytest.mark.parametrize("tilt", [0.4, 1.2])
def test_big_circle_spans_its_smaller_side(P, tilt):
    """A circle of angular radius 100 deg about an axis n tilted by ``tilt`` from e3 (counter-clockwise about n):
    the smaller region is the 80 deg cap about -n, on the loop's right, so the phase is minus the density's
    integral over that cap (polar quadrature about -n); with J = I (density -1) it is +2 pi (1 - cos 80 deg)."""
    n = np.array([np.sin(tilt), 0.0, np.cos(tilt)])
    e1 = np.array([np.cos(tilt), 0.0, -np.sin(tilt)])
    e2 = np.cross(n, e1)
    a = np.deg2rad(100.0)
    s = np.linspace(0, 2 * np.pi, 3000, endpoint=False)
    L = np.cos(a) * n + np.sin(a) * (np.cos(s)[:, None] * e1 + np.sin(s)[:, None] * e2)
    xg, wg = np.polynomial.legendre.leggauss(120)
    th = (xg + 1) / 2 * np.deg2rad(80.0)
    ps = (np.arange(720) + 0.5) * 2 * np.pi / 720
    G = -np.cos(th)[:, None, None] * n + np.sin(th)[:, None, None] * (np.cos(ps)[None, :, None] * e1
                                                                     + np.sin(ps)[None, :, None] * e2)
    cap = float(np.sum((wg * np.sin(th) * np.deg2rad(80.0) / 2)[:, None] * _phase_density(np.asarray(P.J), G))
                * 2 * np.pi / 720)
    assert pe.geometric_phase(P, L) == pytest.approx(-cap, abs=5e-6)
    sphere = pe.Pendulum(np.eye(3) * 0.2, [0.0, 0.0, 0.3], 1.0)
    assert pe.geometric_phase(sphere, L) == pytest.approx(2 * np.pi * (1 - np.cos(np.deg2rad(80.0))), abs=1e-6)
