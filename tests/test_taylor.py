"""The Taylor integrator: coefficients against exact derivatives of Eqs (31)-(32) + (2), round-off
invariants, agreement with DOP853, the planar-pendulum period from the elliptic integral."""
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.special import ellipk
from scipy.spatial.transform import Rotation

from pendulum_explorer import Pendulum, simulate
from pendulum_explorer._core import taylor as T
from pendulum_explorer.errors import InvalidIntegrationError
from pendulum_explorer.trajectory import taylor_frame

from pe_strategies import lp_states, valid_bodies


def _field_parts(P):
    """Eqs (31)-(32) + (2) in the body frame of ``P`` (full J), written with np.cross, as L x + B(x, x) on
    x = (Gamma, omega, r): the linear part and the symmetric bilinear part."""
    J = np.asarray(P.J)
    Ji = np.linalg.inv(J)
    mgrho = P.mgrho

    def lin(x):
        out = np.zeros(9)
        out[3:6] = Ji @ np.cross(mgrho, x[0:3])
        return out

    def bil(x, y):
        out = np.empty(9)
        out[0:3] = 0.5 * (np.cross(x[0:3], y[3:6]) + np.cross(y[0:3], x[3:6]))
        out[3:6] = 0.5 * Ji @ (np.cross(J @ x[3:6], y[3:6]) + np.cross(J @ y[3:6], x[3:6]))
        out[6:9] = 0.5 * (np.cross(x[6:9], y[3:6]) + np.cross(y[6:9], x[3:6]))
        return out

    return lin, bil


def _derivatives(P, x0, n):
    """x^(k), k = 0..n, by differentiating the quadratic field: x^(k+1) = L x^(k) + sum_j C(k, j) B(x^(j), x^(k-j))."""
    lin, bil = _field_parts(P)
    d = [np.asarray(x0, dtype=float)]
    for k in range(n):
        acc = lin(d[k])
        for j in range(k + 1):
            acc = acc + math.comb(k, j) * bil(d[j], d[k - j])
        d.append(acc)
    return d


def _coefficients(P, x0, order):
    """The kernel's Taylor coefficients, mapped back from the principal frame."""
    q, Q = taylor_frame(P)
    X = np.zeros((order + 1, T.NCOL))
    X[0, 0:3] = Q.T @ x0[0:3]
    X[0, 3:6] = Q.T @ x0[3:6]
    X[0, 6:9] = Q.T @ x0[6:9]
    T.coefficients(X, order, q, True)
    return np.concatenate([X[:, 0:3] @ Q.T, X[:, 3:6] @ Q.T, X[:, 6:9] @ Q.T], axis=1)


def _body_and_state(seed):
    rng = np.random.default_rng(seed)
    Q = Rotation.from_rotvec(rng.normal(size=3)).as_matrix()
    P = Pendulum(Q @ np.diag([0.5, 0.42, 0.3]) @ Q.T, rng.normal(size=3) * 0.3, m=1.7)
    R0 = Rotation.from_rotvec(rng.normal(size=3)).as_matrix()
    return P, R0, rng.normal(size=3) * 2.0


@pytest.mark.parametrize("seed", [0, 1])
def test_coefficients_equal_the_derivatives_of_the_field(seed):
    P, R0, w0 = _body_and_state(seed)
    x0 = np.concatenate([R0[2], w0, R0[0]])
    order = 20
    C = _coefficients(P, x0, order)
    D = _derivatives(P, x0, order)
    for k in range(order + 1):
        exact = D[k] / math.factorial(k)
        scale = np.abs(exact).max()
        # the first coefficients to round-off; the later ones accumulate ~k roundings of both recursions
        tol = 1e-15 if k <= 5 else 1e-13
        np.testing.assert_allclose(C[k], exact, rtol=0, atol=tol * max(scale, 1e-300), err_msg=f"order {k}")
    # the series converges geometrically: the step of the kernel puts the last terms at round-off
    h = T.step_size(np.concatenate([C, np.zeros((order + 1, T.NCOL - 9))], axis=1), order)
    terms = np.abs(C[:, :6]).max(axis=1) * h ** np.arange(order + 1)
    assert terms[-1] < 1e-15 * max(1.0, np.abs(x0[:6]).max()) and terms[-2] < 1e-15 * max(1.0, np.abs(x0[:6]).max())


def test_vector_sums_and_horner_equal_the_scalar_loops():
    """The SIMD kernels of _core.cauchy (LLVM IR) against their plain-Python definitions on a random table:
    the Cauchy sums to the rounding of their fused multiply-adds, the end terms and Horner to the bit."""
    from pendulum_explorer._core import cauchy
    from pendulum_explorer._jit import njit

    sums_all = njit(lambda X, n: T._sums_all(X, n))
    sums_lp = njit(lambda X, n: T._sums_lp(X, n))
    finish_all = njit(lambda X, k, Tn: T._finish_all(X, k, Tn))
    horner_all = njit(lambda X, p, tau: T._horner_all(X, p, tau))
    rng = np.random.default_rng(7)
    order = 20
    X = rng.standard_normal((order + 1, T.NCOL)) * 0.5 ** np.arange(order + 1)[:, None]
    blocks = T.LP_BLOCKS + T.ATT_BLOCKS
    used = np.array([4 * v + i for v in range(len(blocks)) for i in range(3)])
    for n in (0, 1, 2, 9, 18, 19):
        S, Tn = sums_all(X, n)
        for got, want in zip((S, Tn), cauchy._sums_py(blocks, T.N_SUMS, X, n)):
            np.testing.assert_allclose(np.array(got)[used], np.array(want)[used], rtol=0,
                                       atol=1e-15 * (n + 1) * 0.5 ** n, err_msg=f"order {n}")
        S_lp, T_lp = sums_lp(X, n)
        np.testing.assert_array_equal(np.array(S_lp)[:12], np.array(S)[:12])  # the LP lanes: same bits
        np.testing.assert_array_equal(np.array(T_lp)[:12], np.array(Tn)[:12])
        np.testing.assert_array_equal(np.array(finish_all(X, n + 1, Tn)),
                                      np.array(cauchy._finish_py(blocks, T.N_SUMS, X, n + 1, Tn)))
    for tau in (0.0, 0.07, -0.3):
        np.testing.assert_array_equal(np.array(horner_all(X, order, tau))[:12],
                                      np.array(cauchy._horner_py(12, X, order, tau)))


def test_polynomial_of_a_step_equals_a_tight_dop853_step():
    P, R0, w0 = _body_and_state(3)
    x0 = np.concatenate([R0[2], w0, R0[0]])
    C = _coefficients(P, x0, 20)
    tr = simulate(P, R0, w0, 0.05, method="dop853", rtol=1e-14, atol=1e-16, n_out=2)
    tau = 0.05
    poly = sum(C[k] * tau ** k for k in range(21))
    np.testing.assert_allclose(poly[0:3], tr.Gamma[-1], atol=1e-14)
    np.testing.assert_allclose(poly[3:6], tr.omega[-1], atol=1e-13)
    np.testing.assert_allclose(poly[6:9], tr.R[-1, 0], atol=1e-14)


def _scales(P, Gamma, omega):
    E0 = 0.5 * omega @ P.J @ omega - P.mgrho @ Gamma
    e_scale = max(abs(E0), float(np.linalg.norm(P.mgrho)), 0.5 * omega @ P.J @ omega)
    mu_scale = max(1.0, float(np.linalg.norm(P.J @ omega)))
    return e_scale, mu_scale


@settings(max_examples=8)
@given(valid_bodies(), lp_states(), st.tuples(*[st.floats(-np.pi, np.pi)] * 3))
def test_invariants_at_round_off_over_long_runs(P, state, angles):
    """E, mu, |Gamma| = 1 and R^T R = I stay at round-off level over 200 s (thousands of steps)."""
    _G, w = state
    R0 = Rotation.from_euler("xyz", angles).as_matrix()
    tr = simulate(P, R0, w, 200.0, method="taylor", n_out=401)
    e_scale, mu_scale = _scales(P, R0[2], w)
    n = tr.stats["n_steps"]  # 1 at an equilibrium (every derivative 0: the series is exact for any step)
    assert tr.energy_error <= 1e-13 * e_scale, (tr.energy_error, e_scale, n)
    # mu's round-off walks with the number of steps: over 150 random bodies mu_error / (eps sqrt(n) mu_scale)
    # reached 10 (2.7e-13 after 14 845 steps, the same bits before and after the vector sums), so 1e-13 flat was
    # exceeded now and then by a random body; the bound allows 4x that walk
    assert tr.mu_error <= max(1e-13, 40 * np.finfo(float).eps * np.sqrt(n)) * mu_scale, (tr.mu_error, mu_scale, n)
    assert np.abs(np.linalg.norm(tr.Gamma, axis=1) - 1.0).max() <= 1e-13
    assert tr.orthogonality_error <= 1e-13
    np.testing.assert_array_equal(tr.R[:, 2, :], tr.Gamma)  # the third row of R is Gamma


def test_agrees_with_dop853_at_rtol_1e_12():
    for seed in (4, 5):
        P, R0, w0 = _body_and_state(seed)
        ta = simulate(P, R0, w0, 3.0, method="taylor", n_out=61)
        dp = simulate(P, R0, w0, 3.0, method="dop853", rtol=1e-14, atol=1e-16, n_out=61)
        np.testing.assert_allclose(ta.R, dp.R, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(ta.omega, dp.omega, rtol=1e-12, atol=1e-12)
        # and the DOP853 run at rtol 1e-12 is within its own tolerance of the Taylor run
        d12 = simulate(P, R0, w0, 3.0, method="dop853", rtol=1e-12, atol=1e-14, n_out=61)
        assert np.abs(d12.R - ta.R).max() < 1e-10


def test_same_steps_and_bits_with_and_without_attitude(fig2):
    P = fig2.pendulum
    q, _Q = taylor_frame(P)
    y0 = np.array([0.0, 0.0, 1.0, 1.0, 2.0, 0.5])
    Y6 = np.empty((51, 6))
    Y15 = np.empty((51, 15))
    info = np.empty(2)
    s6 = T.integrate_uniform_taylor(y0, 20.0, 51, q, 20, 10**6, Y6, info)
    s15 = T.integrate_uniform_taylor(np.concatenate([y0, np.eye(3).ravel()]), 20.0, 51, q, 20, 10**6, Y15, info)
    assert s6[0] == s15[0] and s6[3] == T.OK
    np.testing.assert_array_equal(Y6, Y15[:, :6])


def test_planar_pendulum_period_from_the_elliptic_integral():
    """A body turning about its principal axis e1 with rho along e3 is a planar pendulum:
    T = 4 K(k) / omega_n with k^2 = J1 omega0^2 / (4 m g l), omega_n^2 = m g l / J1 (released at the bottom)."""
    J1, l, m, g = 0.3, 0.4, 1.3, 9.81
    P = Pendulum(np.diag([J1, 0.25, 0.1]), [0.0, 0.0, l], m=m, g=g)
    wn = math.sqrt(m * g * l / J1)
    for k2 in (0.3, 0.9):
        w0 = math.sqrt(4.0 * m * g * l * k2 / J1)
        period = 4.0 * ellipk(k2) / wn
        tr = simulate(P, np.eye(3), [w0, 0.0, 0.0], 3.0 * period, method="taylor", n_out=7)
        # at multiples of T/2 the pendulum is at the bottom (Gamma = e3); Gamma_2 moves at speed omega0 there,
        # so a relative period error delta would show as |Gamma_2| ~ omega0 T delta
        for j in range(1, 7):
            assert abs(tr.Gamma[j, 1]) <= 1e-13 * w0 * tr.t[j], (k2, j, tr.Gamma[j, 1])
            assert tr.omega[j, 0] == pytest.approx((-1) ** j * w0, rel=1e-13)
        # and the test can fail: a time 1e-12 T off gives a visible Gamma_2
        off = simulate(P, np.eye(3), [w0, 0.0, 0.0], period * (1 + 1e-11), method="taylor", n_out=2)
        assert abs(off.Gamma[-1, 1]) > 1e-13 * w0 * period


def test_tolerance_sets_the_order_and_is_validated(fig2):
    P = fig2.pendulum
    lo = simulate(P, np.eye(3), [1.0, 2.0, 0.5], 10.0, method="taylor", tol=1e-8, n_out=11)
    hi = simulate(P, np.eye(3), [1.0, 2.0, 0.5], 10.0, method="taylor", n_out=11)
    assert lo.stats["order"] == 11 and hi.stats["order"] == 20
    assert np.abs(lo.R - hi.R).max() < 1e-6
    for bad in (0.0, -1.0, 1e-2, float("nan"), "x"):
        with pytest.raises(InvalidIntegrationError, match="tol"):
            simulate(P, np.eye(3), [1.0, 2.0, 0.5], 1.0, method="taylor", tol=bad)


def test_section_crossings_equal_dop853_crossings(fig2):
    from pendulum_explorer.poincare import PoincareSection

    P = fig2.pendulum
    ref, seed = PoincareSection.from_paper_ic(P, energy=0.0, rtol=1e-13, atol=1e-13)
    ts = PoincareSection.from_paper_ic(P, energy=0.0, method="taylor")[0]
    a = ref.crossings(seed, 10)
    b = ts.crossings(seed, 10)
    assert a.status == b.status == "ok"
    np.testing.assert_allclose(b.Gamma, a.Gamma, rtol=0, atol=1e-10)
    np.testing.assert_allclose(b.omega, a.omega, rtol=0, atol=1e-10)
    np.testing.assert_allclose(b.t, a.t, rtol=1e-12)
    # each crossing is on the section (root of the polynomial of e3^T Gammadot) and on the level
    long = ts.crossings(seed, 300)
    dE, dmu, g, s = ts.level_errors(long.Gamma, long.omega)
    assert np.abs(g).max() < 1e-14 and (s > 0).all()
    assert dE.max() < 1e-13 and dmu.max() < 1e-13
    # a non-diagonal J (the kernel works in principal axes, the section normal is e3 of the body frame)
    Q = Rotation.from_rotvec([0.3, -0.4, 0.2]).as_matrix()
    Pr = P.rotated(Q)
    seed_r = (Q.T @ seed[0], Q.T @ seed[1])
    ra = PoincareSection.from_state(Pr, *seed_r, rtol=1e-13, atol=1e-13).crossings(seed_r, 8)
    rb = PoincareSection.from_state(Pr, *seed_r, method="taylor").crossings(seed_r, 8)
    np.testing.assert_allclose(rb.Gamma, ra.Gamma, rtol=0, atol=1e-10)
    with pytest.raises(InvalidIntegrationError, match="method"):
        PoincareSection(P, 0.0, 0.1, method="rk4")
