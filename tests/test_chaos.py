"""Largest Lyapunov exponent: an analytic case (the inverted equilibrium) and the paper's Fig. 2 energies."""
import numpy as np
import pytest

from pendulum_explorer.chaos import lyapunov_exponent
from pendulum_explorer.errors import InvalidIntegrationError, InvalidStateError

from pe_strategies import c_for_energy


@pytest.mark.parametrize("preset", ["paper_fig1", "paper_fig2"])
def test_inverted_equilibrium_rate_is_largest_unstable_eigenvalue(preset):
    """Near the inverted equilibrium perturbations grow like exp(sqrt(m g l1) t) (Eqs 26-28, 53-55)."""
    from pendulum_explorer import presets

    P = presets.get(preset).pendulum
    lam = P.small_oscillations()["frequencies"][0]  # sqrt(m g l1)
    G = -P.rho / np.linalg.norm(P.rho)
    res = lyapunov_exponent(P, G, [0, 0, 0], t_total=6.0, tau=0.05, d0=1e-10, rtol=1e-12, atol=1e-16)
    assert res.slope(2.0) == pytest.approx(lam, rel=2e-3)


def test_hanging_equilibrium_is_not_chaotic(fig2):
    P = fig2.pendulum
    res = lyapunov_exponent(P, [0, 0, 1.0], [0, 0, 0], t_total=100.0, tau=0.5)
    assert abs(res.exponent) < 0.05


def test_fig2_regular_versus_chaotic(fig2):
    """The paper's regular energies have a vanishing exponent, the scattered ones a positive one."""
    P = fig2.pendulum
    lam = {}
    for E in (-2.65, 0.0, 2.03, 11.95):
        c = c_for_energy(P, E)
        lam[E] = lyapunov_exponent(P, [0, 0, 1.0], [c, c, c], t_total=400.0).exponent
    assert lam[-2.65] < 0.03 and lam[11.95] < 0.03
    assert lam[0.0] > 0.2 and lam[2.03] > 0.2


def test_bad_input(fig2):
    P = fig2.pendulum
    with pytest.raises(InvalidStateError, match="unit vector"):
        lyapunov_exponent(P, [0, 0, 2.0], [0, 0, 0])
    with pytest.raises(InvalidIntegrationError, match="tau"):
        lyapunov_exponent(P, [0, 0, 1.0], [0, 0, 0], t_total=1.0, tau=2.0)
    with pytest.raises(InvalidIntegrationError, match="d0"):
        lyapunov_exponent(P, [0, 0, 1.0], [0, 0, 0], d0=0.1)
    with pytest.raises(InvalidIntegrationError, match="t_total"):
        lyapunov_exponent(P, [0, 0, 1.0], [0, 0, 0], t_total=-1)


def test_megno_slope_refuses_t_from_outside_the_samples(fig2):
    """``megno(...).slope(1e9)`` raised numpy's raw TypeError (no sample left), ``slope("x")`` a UFuncTypeError,
    and ``slope(t_last)`` fitted one point (a RankWarning and garbage) (issue 26 item 8)."""
    import warnings

    from pendulum_explorer.chaos import megno

    r = megno(fig2.pendulum, [0.0, 0.0, 1.0], [0.5, 0.2, 0.1], 10.0, n_samples=20)
    for bad in (1e9, 10.0, -1.0, float("nan"), "x", None):
        with pytest.raises(InvalidIntegrationError, match=r"t_from must be .*in \[0, 9\.5\]"):
            r.slope(bad)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        s = r.slope(9.5)  # the last two samples: their slope exactly
    assert s == pytest.approx((r.running[-1] - r.running[-2]) / (r.t[-1] - r.t[-2]), rel=1e-9)
    full = np.polyfit(r.t, r.running, 1)[0]
    assert r.slope(0.0) == pytest.approx(full, rel=1e-12)
    one = megno(fig2.pendulum, [0.0, 0.0, 1.0], [0.5, 0.2, 0.1], 1.0, n_samples=1)
    with pytest.raises(InvalidIntegrationError, match="at least 2 samples"):
        one.slope(0.0)
