"""Tangent dynamics in Taylor form (issue 22, item 2): the series against the LP_TAN right-hand side, MEGNO and the
Lyapunov estimate against the DOP853 tangent path (chaos.tangent_run) on regular cells."""
import numpy as np
import pytest

from pendulum_explorer._core import chaos as kc
from pendulum_explorer._core import fields as kf
from pendulum_explorer._core import status as kst
from pendulum_explorer._core import taylor as kt
from pendulum_explorer._core import taylor_tangent as tt
from pendulum_explorer.poincare import PoincareSection
from pendulum_explorer.integrators import taylor_frame

from test_lanes import _cells, _scalar_megno


@pytest.fixture(scope="module")
def level(fig2):
    """Fig. 2 body, E = -1 J (mostly regular), its principal frame and 10 section states."""
    P = fig2.pendulum
    sec, _ = PoincareSection.from_paper_ic(P, -1.0)
    q, Q = taylor_frame(P)
    return sec, q, Q, _cells(sec, 10, rng_seed=7)


def _principal_state(y, Q):
    yp = np.zeros(14)
    for b in range(4):
        yp[3 * b:3 * b + 3] = Q.T @ y[3 * b:3 * b + 3]
    yp[12:] = y[12:]
    return yp


def _naive_jet(x0, q, order):
    """The Taylor recurrences of the 12 LP_TAN series written out with plain Cauchy products (no shared operands,
    no vector lanes): the reference for tangent_jet."""
    X = np.zeros((order + 1, 12))
    X[0] = x0
    G, w, x, v = (0, 1, 2), (3, 4, 5), (6, 7, 8), (9, 10, 11)
    for n in range(order):
        def cp(a, b):
            return sum(X[m, a] * X[n - m, b] for m in range(n + 1))
        for i in range(3):
            j, k = (i + 1) % 3, (i + 2) % 3
            X[n + 1, i] = (cp(G[j], w[k]) - cp(G[k], w[j])) / (n + 1)
            X[n + 1, 3 + i] = (q[i] * cp(w[j], w[k]) + q[3 + 2 * i] * X[n, k] - q[4 + 2 * i] * X[n, j]) / (n + 1)
            X[n + 1, 6 + i] = (cp(x[j], w[k]) - cp(x[k], w[j]) + cp(G[j], v[k]) - cp(G[k], v[j])) / (n + 1)
            X[n + 1, 9 + i] = (q[i] * (cp(v[j], w[k]) + cp(w[j], v[k])) + q[3 + 2 * i] * X[n, 6 + k]
                               - q[4 + 2 * i] * X[n, 6 + j]) / (n + 1)
    return X


def test_jet_is_the_plain_recurrence_and_order_one_is_the_field(level):
    """tangent_jet (vector Cauchy sums, shared operands, orders in pairs) equals the plain recurrences to 1e-13
    relative in every order 0..15 (odd and even orders); X[1] is the LP_TAN field of fields.tangent_lp in the
    principal frame, and 2 X[2] its derivative along the flow (central difference, h = 1e-5)."""
    sec, q, Q, Y0 = level
    pp = tt.principal_tangent_params(sec.level.p, Q)
    y = np.zeros(14)
    y[:6] = Y0[0]
    kc.initial_deviation(y, sec.level.p, False, np.empty((3, 6)))
    yp = _principal_state(y, Q)
    for order in (15, 16):
        X = np.zeros((order + 1, tt.NCOL_T))
        X[0, :12] = yp[:12]
        tt.tangent_jet(X, order, q)
        ref = _naive_jet(yp[:12], q, order)
        scale = np.abs(ref).max(axis=1, keepdims=True)
        assert np.all(np.abs(X[:, :12] - ref) <= 1e-13 * scale)
        assert np.all(scale[1:] > 0.0)

    def f(z):
        d = np.empty(14)
        kf.rhs(kf.LP_TAN, 0.7, np.r_[z, 0.3, 0.8], pp, d)
        return d[:12]

    np.testing.assert_allclose(X[1, :12], f(X[0, :12]), rtol=1e-13, atol=1e-13)
    h = 1e-5
    fd = (f(X[0, :12] + h * X[1, :12] + h * h * X[2, :12]) - f(X[0, :12] - h * X[1, :12] + h * h * X[2, :12])) / (2 * h)
    np.testing.assert_allclose(2 * X[2, :12], fd, rtol=1e-7, atol=1e-7)


def test_gauss_rule_integrates_polynomials_exactly():
    """The MEGNO quadrature's rule (N_GAUSS nodes on [0, 1]): the weights integrate x^d for d < 2 N exactly and
    the integration matrix gives int_0^{x_k} s^d ds = x_k^(d+1) / (d + 1) for d < N (to 1e-14), not for d = N."""
    x, w, M = tt.GX, tt.GW, tt.GM
    n = tt.N_GAUSS
    for d in range(2 * n):
        assert abs(w @ x**d - 1.0 / (d + 1)) < 1e-14
    for d in range(n):
        np.testing.assert_allclose(M @ x**d, x**(d + 1) / (d + 1), rtol=0, atol=1e-14)
    assert np.max(np.abs(M @ x**n - x**(n + 1) / (n + 1))) > 1e-8


def test_taylor_megno_and_lyapunov_match_the_dop853_tangent_path(level):
    """T = 20 s on 10 cells: Ybar and the Lyapunov estimate of the Taylor method at tol 1e-15 agree with
    tangent_run at rtol 1e-13 to 1e-9 relative on the regular cells (Ybar < 3; measured ~1e-11), with the
    order of order_for; the Lyapunov-only run (no MEGNO quadrature) takes the same steps and gives the same
    estimate to the bit, with NaN Ybar."""
    sec, q, Q, Y0 = level
    m = Y0.shape[0]
    ys, ls, _ = _scalar_megno(Y0, sec.level.p, 20.0, 1, 1e-13, 1e-13, False)
    reg = ys[:, 0] < 3.0
    assert reg.sum() >= 8
    yb, ly, info = np.empty(m), np.empty(m), np.zeros((m, kc.N_TAN_INFO), dtype=np.int64)
    tt.tangent_many_taylor(Y0, sec.level.p, q, Q, 20.0, kt.order_for(1e-15), 10**7, False, yb, ly, info)
    assert (info[:, 0] == kst.OK).all()
    np.testing.assert_allclose(yb[reg], ys[reg, 0], rtol=1e-9)
    np.testing.assert_allclose(ly[reg], ls[reg, 0], rtol=1e-9)
    yb2, ly2, info2 = np.empty(m), np.empty(m), np.zeros((m, kc.N_TAN_INFO), dtype=np.int64)
    tt.tangent_many_taylor(Y0, sec.level.p, q, Q, 20.0, kt.order_for(1e-15), 10**7, False, yb2, ly2, info2,
                           with_megno=False)
    assert np.isnan(yb2).all()
    np.testing.assert_array_equal(info2, info)
    np.testing.assert_array_equal(ly2, ly)


def test_taylor_megno_keeps_the_deviation_on_the_level_and_skips_nan_rows(level):
    """tangent_to_level (projection at each renormalisation) over T = 60 s, where the deviations grow past
    RENORM on the chaotic cell: as tangent_run with the projection, to 1e-8 relative on the regular cells; a NaN
    row gives NaN and info 0; a step budget of 50 stops every cell with MAX_STEPS and NaN outputs."""
    sec, q, Q, Y0 = level
    Y = np.vstack([Y0, np.full((1, 6), np.nan)])
    m = Y.shape[0]
    ys, ls, _ = _scalar_megno(Y0, sec.level.p, 60.0, 1, 1e-13, 1e-13, True)
    reg = ys[:, 0] < 3.0
    yb, ly, info = np.empty(m), np.empty(m), np.zeros((m, kc.N_TAN_INFO), dtype=np.int64)
    tt.tangent_many_taylor(Y, sec.level.p, q, Q, 60.0, kt.order_for(1e-15), 10**7, True, yb, ly, info)
    np.testing.assert_allclose(yb[:-1][reg], ys[reg, 0], rtol=1e-8)
    np.testing.assert_allclose(ly[:-1][reg], ls[reg, 0], rtol=1e-8)
    assert np.isnan(yb[-1]) and np.isnan(ly[-1]) and (info[-1] == 0).all()
    tt.tangent_many_taylor(Y0, sec.level.p, q, Q, 60.0, kt.order_for(1e-12), 50, False, yb[:-1], ly[:-1], info[:-1])
    assert (info[:-1, 0] == kst.MAX_STEPS).all() and (info[:-1, 1] == 50).all() and np.isnan(yb[:-1]).all()


def test_taylor_tangent_run_in_pieces_gives_the_bits_of_one_call(level):
    """Pauses every 37 steps (the model layer returns to Python between pieces: Ctrl-C) and resumes from ``ctl``:
    the outputs at 5 times, the step count and the status of one uninterrupted call."""
    sec, q, Q, Y0 = level
    pp = tt.principal_tangent_params(sec.level.p, Q)
    y = np.zeros(14)
    y[:6] = Y0[3]
    kc.initial_deviation(y, sec.level.p, False, np.empty((3, 6)))
    yp = _principal_state(y, Q)
    order = kt.order_for(1e-12)
    outs = []
    for piece in (10**6, 37):
        yb, ly, info = np.empty(5), np.empty(5), np.zeros(kc.N_TAN_INFO, dtype=np.int64)
        ctl = np.zeros(tt.N_CTL + 2 * tt.N_TT)
        calls = 1
        while tt.tangent_run_taylor(yp, q, pp, 30.0, 5, order, 10**6, False, True, yb, ly, info, ctl, piece) \
                == kst.PAUSED:
            calls += 1
        outs.append((yb, ly, info, calls))
    assert outs[0][3] == 1 and outs[1][3] > 10
    np.testing.assert_array_equal(outs[0][0], outs[1][0])
    np.testing.assert_array_equal(outs[0][1], outs[1][1])
    np.testing.assert_array_equal(outs[0][2], outs[1][2])
    assert outs[0][2][0] == kst.OK and np.isfinite(outs[0][0]).all()


def test_horner_at_the_nodes_equals_horner_at_each_point():
    """cauchy.make_horner_nodes (the N_GAUSS interleaved Horner chains of the MEGNO quadrature, LLVM IR) gives at
    every node the bits of the plain-Python Horner loop (the scalar expression, no contraction)."""
    from pendulum_explorer._core import cauchy
    from pendulum_explorer._jit import njit

    run = njit(lambda X, p, taus, out: tt._horner_nodes_t(X, p, taus, out))
    rng = np.random.default_rng(11)
    order = 15
    X = rng.standard_normal((order + 1, tt.NCOL_T)) * 0.5 ** np.arange(order + 1)[:, None]
    taus = 0.13 * tt.GX - 0.02
    out = np.full((tt.N_GAUSS, 12), np.nan)
    assert run(X, order, taus, out) == 0
    for k in range(tt.N_GAUSS):
        np.testing.assert_array_equal(out[k], np.array(cauchy._horner_py(12, X, order, taus[k])))


# ------------------------------------------------------------------------------------------------
# the public API: megno, lyapunov_exponent and chaos_map with method="taylor"
# ------------------------------------------------------------------------------------------------
def test_public_megno_and_lyapunov_with_the_taylor_method(level, fig2):
    """``megno(method="taylor")`` and ``lyapunov_exponent(method="taylor")`` give the DOP853 tangent path's values
    at tight tolerances (regular cells, 1e-8 relative over the running estimate), and the same values as the
    kernel called directly (principal frame, initial deviation: the public path adds nothing)."""
    import pendulum_explorer as pe

    sec, q, Q, Y0 = level
    P = fig2.pendulum
    done = 0
    for y in Y0[:6]:
        ref = pe.megno(P, y[:3], y[3:], 20.0, rtol=1e-13, atol=1e-13, n_samples=20)
        if ref.value >= 3.0:
            continue
        done += 1
        got = pe.megno(P, y[:3], y[3:], 20.0, method="taylor", tol=1e-15, n_samples=20)
        np.testing.assert_allclose(got.running, ref.running, rtol=1e-8)
        np.testing.assert_allclose(got.lyapunov, ref.lyapunov, rtol=1e-8)
        yb, ly, info = np.empty(1), np.empty(1), np.zeros((1, kc.N_TAN_INFO), dtype=np.int64)
        tt.tangent_many_taylor(y[None, :], sec.level.p, q, Q, 20.0, kt.order_for(1e-15), 10**7, False, yb, ly, info)
        assert got.value == yb[0] and got.lyapunov == ly[0]
        lt = pe.lyapunov_exponent(P, y[:3], y[3:], 20.0, tau=1.0, method="taylor", tol=1e-15)
        lr = pe.lyapunov_exponent(P, y[:3], y[3:], 20.0, tau=1.0, rtol=1e-13, atol=1e-13)
        np.testing.assert_allclose(lt.running, lr.running, rtol=1e-8)
    assert done >= 4


def test_taylor_chaos_map_equals_the_dop853_map_on_regular_cells(fig2):
    from pendulum_explorer.errors import InvalidIntegrationError

    sec, _ = PoincareSection.from_paper_ic(fig2.pendulum, -1.0)
    a = sec.chaos_map((6, 24), 20.0, rtol=1e-12, atol=1e-12)
    b = sec.chaos_map((6, 24), 20.0, method="taylor", tol=1e-14)
    ok = np.isfinite(a.megno)
    assert np.array_equal(ok, np.isfinite(b.megno)) and ok.sum() >= 30
    reg = ok & (a.megno < 3.0)
    assert reg.sum() >= 30
    np.testing.assert_allclose(b.megno[reg], a.megno[reg], rtol=1e-7)
    with pytest.raises(InvalidIntegrationError, match="tol"):
        sec.chaos_map((2, 2), 1.0, tol=1e-12)
    with pytest.raises(InvalidIntegrationError, match="tol"):
        sec.chaos_map((2, 2), 1.0, method="taylor", tol=1.0)
    import pendulum_explorer as pe
    with pytest.raises(InvalidIntegrationError, match="method"):
        pe.megno(fig2.pendulum, [0, 0, 1.0], [0.1, 0, 0], 1.0, method="rk4")
    with pytest.raises(InvalidIntegrationError, match="tol"):
        pe.lyapunov_exponent(fig2.pendulum, [0, 0, 1.0], [0.1, 0, 0], 1.0, tol=1e-12)
