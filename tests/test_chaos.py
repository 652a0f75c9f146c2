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
