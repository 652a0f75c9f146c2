"""The three models agree; invariants; special cases of Props 5-7 and Eqs (21)-(24)."""
import numpy as np
import pytest
from hypothesis import given
from scipy.optimize import brentq
from scipy.special import ellipk

from pendulum_explorer import attitude_from_gamma, lp_from_lr, lr_from_lp, presets, simulate, simulate_lr
from pendulum_explorer._core import dop853 as D
from pendulum_explorer._core import fields as F
from pendulum_explorer.errors import IntegrationFailedError, InvalidIntegrationError, InvalidStateError

from pe_strategies import c_for_energy, lp_states, valid_bodies

FIG2_ENERGIES = [-2.65, 0.0, 2.03, 8.83, 11.95]


def _energy_lr(Gamma, Gammadot, p):
    """Total energy of the Lagrange-Routh model, Eq (71) (= Eq 34 at the omega of Eq 69)."""
    w = np.empty(3)
    F.lr_omega(Gamma, Gammadot, p, w)
    return F.energy_lp(Gamma, w, p)


@given(valid_bodies(), lp_states(), lp_states())
def test_routh_equation_62_matches_lagrange_poincare(P, s, s2):
    """Eq (62)-(64) evaluated at (Gamma, Gamma x omega, mu) equals d/dt (Gamma x omega) from Eqs (31)-(32)."""
    G, w = s
    mu = w @ P.J @ G
    p = P.params(mu)
    wd = np.array(F.lp_field(*G, *w, p)[3:6])  # Eq (31), as the integrators evaluate it
    truth = np.cross(np.cross(G, w), w) + np.cross(G, wd)
    acc = np.empty(3)
    F.lr_accel(G, np.cross(G, w), p, acc)
    np.testing.assert_allclose(acc, truth, atol=1e-10 * (1 + np.abs(truth).max()))
    # omega is recovered from (Gamma, Gammadot, mu): Eqs (66), (69)
    np.testing.assert_allclose(lp_from_lr(P, G, np.cross(G, w), mu), w, atol=1e-12 * (1 + np.abs(w).max()))


@given(valid_bodies(), lp_states())
def test_invariants_conserved_random_bodies(P, s):
    G, w = s
    R0 = attitude_from_gamma(G)
    tr = simulate(P, R0, w, 2.0, rtol=1e-12, atol=1e-14, n_out=21)
    scale = abs(tr.energy[0]) + P.m * P.g * np.linalg.norm(P.rho) + 1.0
    assert tr.energy_error <= 1e-9 * scale
    assert tr.mu_error <= 1e-9 * (abs(tr.mu[0]) + np.abs(P.J).max())
    np.testing.assert_allclose(tr.R[:, 2, :], tr.Gamma, atol=1e-9)


@pytest.mark.parametrize("E", FIG2_ENERGIES)
def test_three_models_agree_fig2(fig2, E):
    """Full (R, omega) vs Lagrange-Poincaré (+attitude) vs Lagrange-Routh with reconstruction, 5 s."""
    P = fig2.pendulum
    c = c_for_energy(P, E)
    w0 = np.array([c, c, c])
    n = 51
    # full model, Eqs (1)-(2)
    Yf = np.empty((n, 12))
    st = D.integrate_uniform(F.FULL, np.concatenate([np.eye(3).ravel(), w0]), 5.0, n, P.params(), 1e-12, 1e-14,
                             10**7, Yf)
    assert st[3] == D.OK
    # Lagrange-Poincaré + attitude
    lp = simulate(P, np.eye(3), w0, 5.0, rtol=1e-12, atol=1e-14, n_out=n)
    assert lp.energy[0] == pytest.approx(E, abs=1e-12)
    # Lagrange-Routh at mu with reconstruction (Prop 17)
    G, Gd, mu = lr_from_lp(P, [0, 0, 1.0], w0)
    lr = simulate_lr(P, G, Gd, mu, 5.0, R0=np.eye(3), rtol=1e-12, atol=1e-14, n_out=n)
    Rf = Yf[:, :9].reshape(n, 3, 3)
    assert np.abs(Rf - lp.R).max() <= 1e-8
    assert np.abs(Yf[:, 9:] - lp.omega).max() <= 1e-8
    assert np.abs(lr.R - lp.R).max() <= 1e-8
    assert np.abs(lr.omega - lp.omega).max() <= 1e-8
    assert np.abs(lr.Gamma - lp.Gamma).max() <= 1e-8
    assert lr.mu_error <= 1e-10 and lr.energy_error <= 1e-9 * max(1, abs(E))


def test_long_run_invariants_all_models(fig2):
    P = fig2.pendulum
    c = c_for_energy(P, 2.03)
    tr = simulate(P, np.eye(3), [c, c, c], 200.0, rtol=1e-12, atol=1e-14, n_out=2001)
    assert tr.energy_error < 1e-9 * 3 and tr.mu_error < 1e-10
    G, Gd, mu = lr_from_lp(P, [0, 0, 1.0], [c, c, c])
    lr = simulate_lr(P, G, Gd, mu, 200.0, R0=np.eye(3), rtol=1e-12, atol=1e-14, n_out=2001)
    # Eq (71), evaluated by the LR kernel itself
    p = P.params(mu)
    E71 = np.array([_energy_lr(lr.Gamma[k], np.cross(lr.Gamma[k], lr.omega[k]), p) for k in range(0, 2001, 100)])
    assert np.abs(E71 - 2.03).max() < 3e-9
    assert np.abs(np.linalg.norm(lr.Gamma, axis=1) - 1).max() < 1e-9


def test_axisymmetric_spin_constant():
    """Props 5-6: omega_z is constant for J = diag(Jt, Jt, Ja), rho on the symmetry axis."""
    P = presets.lagrange_top().pendulum
    R0 = attitude_from_gamma(np.array([0.3, -0.2, 0.9]) / np.linalg.norm([0.3, -0.2, 0.9]))
    tr = simulate(P, R0, [1.5, -0.7, 12.0], 10.0, rtol=1e-12, atol=1e-14, n_out=401)
    assert np.abs(tr.omega[:, 2] - 12.0).max() < 1e-10
    assert np.ptp(tr.omega[:, 0]) > 0.1  # while the rest moves


@pytest.mark.parametrize("theta0_deg", [10.0, 60.0, 150.0])
def test_planar_pendulum_period_elliptic_integral(theta0_deg):
    """Prop 7: released from rest in a principal plane the period is 4 sqrt(J_t/(m g |rho|)) K(sin(theta0/2))."""
    P = presets.planar().pendulum
    th0 = np.radians(theta0_deg)
    Jt = P.J[1, 1]  # rotation about the body y axis
    T_exact = 4 * np.sqrt(Jt / (P.m * P.g * np.linalg.norm(P.rho))) * ellipk(np.sin(th0 / 2) ** 2)
    # Gamma0 = [-sin th, 0, cos th] (Prop 7): R0 = rotation about y by th
    R0 = np.array([[np.cos(th0), 0, np.sin(th0)], [0, 1, 0], [-np.sin(th0), 0, np.cos(th0)]])
    np.testing.assert_allclose(R0[2], [-np.sin(th0), 0, np.cos(th0)])

    def omega_y(t):
        return simulate(P, R0, [0, 0, 0], t, rtol=1e-13, atol=1e-15, n_out=2).omega[-1, 1]

    # the swing reverses at T/2: omega_y changes sign there
    t_half = brentq(omega_y, 0.4 * T_exact, 0.6 * T_exact, xtol=1e-14, rtol=1e-15)
    assert 2 * t_half == pytest.approx(T_exact, rel=1e-8)
    tr = simulate(P, R0, [0, 0, 0], T_exact, rtol=1e-12, atol=1e-14, n_out=101)
    assert np.abs(tr.omega[:, [0, 2]]).max() < 1e-9  # the motion stays planar
    np.testing.assert_allclose(tr.Gamma[-1], tr.Gamma[0], atol=1e-8)


@pytest.mark.parametrize("preset", ["paper_fig1", "paper_fig2"])
def test_small_oscillation_frequencies(preset):
    """Eqs (21)-(24): a tiny motion in mode i oscillates at sqrt(m g l_i)."""
    P = presets.get(preset).pendulum
    so = P.small_oscillations()
    r = P.rho
    rh = np.array([[0, -r[2], r[1]], [r[2], 0, -r[0]], [-r[1], r[0], 0]])
    K = -(P.m * P.g / np.linalg.norm(r)) * rh @ rh
    lam, V = np.linalg.eig(np.linalg.solve(P.J, K))
    order = np.argsort(-lam.real)
    R0 = attitude_from_gamma(r / np.linalg.norm(r))  # hanging equilibrium manifold, Eq (10)
    for i in range(2):
        v = V[:, order[i]].real
        Om = so["frequencies"][i]
        Tp = 2 * np.pi / Om
        tr = simulate(P, R0, 1e-5 * v, 3 * Tp, rtol=1e-12, atol=1e-16, n_out=3001)
        q = tr.omega @ (P.J @ v)
        # zero crossings of q(t) ~ cos(Om t): spacing pi / Om
        idx = np.where(np.sign(q[:-1]) != np.sign(q[1:]))[0]
        tz = tr.t[idx] - q[idx] * (tr.t[idx + 1] - tr.t[idx]) / (q[idx + 1] - q[idx])
        Om_meas = np.pi / np.mean(np.diff(tz))
        assert Om_meas == pytest.approx(Om, rel=1e-4), (preset, i)
        assert so["l"][i] == pytest.approx(Om ** 2 / (P.m * P.g), rel=1e-12)


def test_simulate_bad_input(fig2):
    P = fig2.pendulum
    with pytest.raises(InvalidStateError, match="rotation matrix"):
        simulate(P, np.diag([1, 1, 2.0]), [0, 0, 0], 1.0)
    with pytest.raises(InvalidStateError, match="rotation matrix"):
        simulate(P, np.diag([1, 1, -1.0]), [0, 0, 0], 1.0)  # orthogonal but det = -1
    with pytest.raises(InvalidStateError, match="finite"):
        simulate(P, np.eye(3), [0, np.nan, 0], 1.0)
    with pytest.raises(InvalidIntegrationError, match="t_final must be finite and > 0"):
        simulate(P, np.eye(3), [0, 0, 0], 0.0)
    with pytest.raises(InvalidIntegrationError, match="t_final must be finite and > 0"):
        simulate(P, np.eye(3), [0, 0, 0], np.inf)
    with pytest.raises(InvalidIntegrationError, match="memory guard"):
        simulate(P, np.eye(3), [0, 0, 0], 1.0, n_out=10**9)
    with pytest.raises(InvalidIntegrationError, match="exceeds the limit"):
        simulate(P, np.eye(3), [0, 0, 0], 1e9, method="lgvi", dt=1e-6, n_out=2)
    with pytest.raises(InvalidIntegrationError, match="dt must be finite and > 0"):
        simulate(P, np.eye(3), [0, 0, 0], 1.0, method="lgvi", dt=-1)
    with pytest.raises(InvalidIntegrationError, match="method must be"):
        simulate(P, np.eye(3), [0, 0, 0], 1.0, method="euler")
    with pytest.raises(InvalidIntegrationError, match="rtol"):
        simulate(P, np.eye(3), [0, 0, 0], 1.0, rtol=0.5)
    with pytest.raises(IntegrationFailedError, match="step limit"):
        simulate(P, np.eye(3), [1, 1, 1], 100.0, max_steps=10)
    with pytest.raises(IntegrationFailedError, match="reduce dt"):
        simulate(P, np.eye(3), [30, 30, 30], 1.0, method="lgvi", dt=0.5, n_out=3)
    with pytest.raises(InvalidStateError, match="unit vector"):
        simulate_lr(P, [0, 0, 2.0], [0, 0, 0], 0.0, 1.0)
    with pytest.raises(InvalidStateError, match="tangent"):
        simulate_lr(P, [0, 0, 1.0], [0, 0, 1.0], 0.0, 1.0)
    with pytest.raises(TypeError, match="must be a Pendulum"):
        simulate("pendulum", np.eye(3), [0, 0, 0], 1.0)
