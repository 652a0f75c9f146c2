"""The Lyapunov spectrum (issue 21, item 3): at E = 0 on the paper's Fig. 2 orbit the pairing lambda_1 = -lambda_6
and four near-zero exponents; on the hyperbolic k = 1 periodic orbit at E = 11.95 the exponents are
log|multiplier| / period (an independent computation: the return map's variational Jacobian); near zero on the
island centre."""
import math

import numpy as np
import pytest

import pendulum_explorer as pe
from pendulum_explorer import orbit_families as of
from pendulum_explorer.errors import InvalidIntegrationError, InvalidStateError
from pendulum_explorer.poincare import PoincareSection


@pytest.fixture(scope="module")
def P():
    return pe.presets.paper_fig2().pendulum


def test_spectrum_at_E0_pairs_and_has_four_zeros(P):
    """Measured at T = 1000 s: (0.3883, 0.0081, -0.0008, -0.0012, -0.0069, -0.3876): pairing 7e-4."""
    _sec, (G, w) = PoincareSection.from_paper_ic(P, 0.0)
    r = pe.lyapunov_spectrum(P, G, w, 1000.0)
    lam = r.exponents
    # the separated exponents in descending order; the four near-zero ones of a finite run in any order (on an
    # AMD EPYC with AVX2: (0.4630, 0.0085, -0.0008, -0.0008, -0.0070, -0.4628), the middle pair 4e-5 apart)
    assert lam.shape == (6,) and lam[0] > lam[1:5].max() and lam[5] < lam[1:5].min()
    assert lam[0] > 0.3
    assert abs(r.pairing) < 0.01 * lam[0]
    assert np.all(np.abs(lam[1:5]) < 0.03 * lam[0])
    assert r.running.shape == (1000, 6) and r.t[-1] == 1000.0
    # the zeros decay like 1/T: the middle four at T = 1000 are below their values at T = 100
    assert np.max(np.abs(lam[1:5])) < np.max(np.abs(r.running[99, 1:5]))


def test_spectrum_of_a_hyperbolic_periodic_orbit(P):
    """lambda_1 = log(1.88466) / 1.23635 s = 0.51285 / s from the return map; Benettin's slope over periods 22-27."""
    sec = PoincareSection.from_paper_ic(P, 11.95)[0]
    po = of.find_periodic_orbit(sec, (math.pi / 2, 0.5118), tol=1e-12)
    lam_ref = math.log(float(np.max(np.abs(po.multipliers)))) / po.period
    # whole periods (the deviations' norm oscillates within one); the multiplier-1 Jordan block of the flow
    # (period varying with E) makes the first vector align only algebraically: per-period growth measured
    # 0.6411, 0.6351, 0.6338 (x 1 / period) after 15, 20, 25 periods; the orbit is left after ~30
    r = pe.lyapunov_spectrum(P, po.Gamma, po.omega, 27 * po.period, tau=po.period, rtol=1e-12, atol=1e-13)
    sl = r.slope(22 * po.period - 1e-9)
    assert sl[0] == pytest.approx(lam_ref, rel=1e-3)
    assert sl[-1] == pytest.approx(-lam_ref, rel=1e-3)
    assert np.all(np.abs(sl[1:5]) < 0.05)


def test_spectrum_on_the_island_centre_is_near_zero(P):
    sec = PoincareSection.from_paper_ic(P, 11.95)[0]
    po = of.find_periodic_orbit(sec, (math.pi / 2, 0.961))
    r = pe.lyapunov_spectrum(P, po.Gamma, po.omega, 300.0, k=2)
    assert r.exponents.shape == (2,) and np.all(np.abs(r.exponents) < 0.02)


def test_spectrum_with_the_taylor_method(P):
    """The spectrum on the Taylor tangent lanes: over 20 s of the chaotic E = 0 orbit the DOP853 spectrum to 1e-6
    (measured 3e-8: both resolve the same deviations), the hyperbolic orbit's lambda_1 = log(1.88466) / 1.23635 s
    to 1e-3 as the DOP853 path, k < 6 works, and the Taylor arguments are checked."""
    _sec, (G, w) = PoincareSection.from_paper_ic(P, 0.0)
    a = pe.lyapunov_spectrum(P, G, w, 20.0)
    b = pe.lyapunov_spectrum(P, G, w, 20.0, method="taylor")
    assert b.running.shape == (20, 6) and b.n_rhs > 0
    np.testing.assert_allclose(b.running, a.running, rtol=0, atol=1e-6)
    sec = PoincareSection.from_paper_ic(P, 11.95)[0]
    po = of.find_periodic_orbit(sec, (math.pi / 2, 0.5118), tol=1e-12)
    lam_ref = math.log(float(np.max(np.abs(po.multipliers)))) / po.period
    r = pe.lyapunov_spectrum(P, po.Gamma, po.omega, 27 * po.period, tau=po.period, method="taylor", tol=1e-14)
    sl = r.slope(22 * po.period - 1e-9)
    assert sl[0] == pytest.approx(lam_ref, rel=1e-3) and sl[-1] == pytest.approx(-lam_ref, rel=1e-3)
    two = pe.lyapunov_spectrum(P, G, w, 5.0, k=2, method="taylor")
    np.testing.assert_allclose(two.exponents, pe.lyapunov_spectrum(P, G, w, 5.0, k=2).exponents, atol=1e-6)
    with pytest.raises(InvalidIntegrationError, match="tol"):
        pe.lyapunov_spectrum(P, G, w, 5.0, tol=1e-12)
    with pytest.raises(InvalidIntegrationError, match="tol"):
        pe.lyapunov_spectrum(P, G, w, 5.0, method="taylor", tol=1.0)
    with pytest.raises(InvalidIntegrationError, match="method"):
        pe.lyapunov_spectrum(P, G, w, 5.0, method="rk4")


def test_spectrum_errors(P):
    with pytest.raises(InvalidStateError, match="Gamma0"):
        pe.lyapunov_spectrum(P, [0, 0, 2.0], [0, 0, 1.0], 10.0)
    with pytest.raises(InvalidIntegrationError, match="k must"):
        pe.lyapunov_spectrum(P, [0, 0, 1.0], [1.0, 0, 0], 10.0, k=7)
    with pytest.raises(InvalidIntegrationError, match="tau"):
        pe.lyapunov_spectrum(P, [0, 0, 1.0], [1.0, 0, 0], 10.0, tau=20.0)


def test_chaos_map_convergence_marks_the_cells_that_change(P):
    sec = PoincareSection.from_paper_ic(P, 8.83)[0]
    c = pe.chaos_map_convergence(sec, (8, 6), 60.0)
    a, b = c.fractions
    assert c.half.t_total == 30.0 and c.full.t_total == 60.0
    ref = sec.chaos_map((8, 6), 30.0)
    np.testing.assert_array_equal(ref.values, c.half.values)  # the same cells, an independent run
    acc = c.full.accessible
    expect = acc & ((ref.values > 4.0) != (c.full.values > 4.0))
    np.testing.assert_array_equal(c.changed, expect)
    assert 0.0 <= c.changed_fraction <= 1.0 and abs(b - a) <= c.changed_fraction + 1e-12
