"""Tangent dynamics in Taylor form: MEGNO and the Lyapunov estimate with the Taylor method (issue 22, item 2).

In principal axes (see :mod:`.taylor`) Eqs (31)-(32) are quadratic, and so are their variational equations
(the deviation ``delta = (dGamma, domega)`` enters linearly, multiplied by the state)::

    dGamma'  = dGamma x omega + Gamma x domega
    domega_i' = c_i (domega_j omega_k + omega_j domega_k) + u_ij dGamma_k - u_ik dGamma_j     ((i, j, k) cyclic)

Jets
----
The 12 series (Gamma, omega, delta) are computed to the order ``p`` of :func:`.taylor.order_for` with the vector
Cauchy sums of :mod:`.cauchy`: the variational products reuse the state's work series (the sums
``A_i = Gamma_j + Gamma_k`` and differences ``B_i = omega_k - omega_j`` of :mod:`.taylor`, and the copies of
omega), so each cross product is the three-product form of :mod:`.taylor`::

    (a x b)_i = (a_j + a_k)(b_k - b_j) + a_j b_j - a_k b_k

and the 27 products of one order are nine 4-lane multiply-add chains (:data:`TAN_BLOCKS`), two orders per loop.

MEGNO by quadrature
-------------------
The MEGNO integrals of :func:`.fields.tangent_lp`, ``I1' = t a / v`` with ``a = delta' . delta``,
``v = delta . delta``, and ``I2' = 2 I1 / t``, are rational: their series converge only out to the complex zeros
of ``v`` (about a third of the state's radius), so carrying them as series (as a first version did) cut the step
by 1.5 and cost a series quotient per order.  They are integrated instead over each step of the state, on the
step's own polynomial: with ``g(tau) = (t + tau) a/v`` at the ``N_GAUSS`` Gauss-Legendre nodes of [0, h]
(delta from the Taylor polynomial, delta' from the variational field at the node)::

    I1(t + h) = I1(t) + h sum_k w_k g_k
    I2(t + h) = I2(t) + h sum_k w_k 2 I1(t + tau_k) / (t + tau_k),   I1(t + tau_k) = I1(t) + h sum_j M_kj g_j

with ``M`` the integration matrix of the nodes' Lagrange basis (``M_kj = int_0^{x_k} l_j``): spectral accuracy,
the error set by the distance of the zeros of ``v`` from [0, h] (about 8 half-steps: ``8^-16`` with 8 nodes).
The step is Jorba and Zou's (as :func:`.taylor.step_size`) taken as the smaller of the state's and the
deviation's, so that each is resolved to the tolerance relative to its own size; with and without the MEGNO
integrals the steps are the same.  The deviation is renormalised as in :func:`.chaos.tangent_run` (its norm kept
in [1/RENORM, RENORM], the logarithm accumulated) and projected onto the level set of the first integrals when
``keep_tangent``.  The output times are evaluated on the step's polynomial (Horner, and the quadrature on
[0, tau]), so the step never shortens for an output.
"""
import numpy as np

from .._jit import njit
from .cauchy import make_horner, make_horner_nodes, make_sums
from .chaos import N_TAN_INFO, RENORM, _dev_norm, initial_deviation, project_to_level
from .fields import pack_params
from .section import C_PAUSED, N_CTL, pause_load, pause_save
from .status import MAX_STEPS, NON_FINITE, OK, PAUSED, STEP_TOO_SMALL
from .taylor import SAFETY_EXP

N_TT = 14  # the LP_TAN state: Gamma 0-2, omega 3-5, dGamma 6-8, domega 9-11, I1 12, I2 13
NCOL_T = 34  # columns of the jet table (see :func:`tangent_jet`)
#: the column blocks that steer the step: state, deviation (run-time values, see taylor.py)
BLOCKS = np.array([0, 6, 12], dtype=np.int64)
#: The 27 products of one order as (left, right) 4-column blocks of the jet table (lanes 0-2 used):
#: ``P = Gamma_i omega_i``, ``K = A_i B_i``, ``E = omega_j omega_k``, ``Px = dGamma_i omega_i``,
#: ``Kx = Ax_i B_i``, ``Pv = Gamma_i domega_i``, ``Kv = A_i Bv_i``, ``F1 = domega_j omega_k``, ``F2 = omega_j domega_k``
#: (columns: A 12-14, B 15-17, Ax = dGamma_j + dGamma_k 18-20, Bv = domega_k - domega_j 21-23, copies of omega
#: 24-28 and of domega 29-33, in the order 1, 2, 0, 1, 2).
TAN_BLOCKS = ((0, 3), (12, 15), (24, 25), (6, 3), (18, 15), (0, 9), (12, 21), (29, 25), (24, 30))
N_SUMS_T = 4 * len(TAN_BLOCKS)
_sums_t, _finish_t = make_sums(TAN_BLOCKS, N_SUMS_T)
_horner_t = make_horner(3, 12)  # columns 0-11


def _gauss_rule(n):
    """Gauss-Legendre nodes ``x`` and weights ``w`` on [0, 1] and the integration matrix ``M`` of the nodes'
    Lagrange basis (``M[k, j] = int_0^{x_k} l_j(s) ds``)."""
    from numpy.polynomial import legendre as L
    x, w = L.leggauss(n)
    V = L.legvander(x, n - 1)  # V[k, i] = P_i(x_k), on [-1, 1]
    Vi = np.empty_like(V)
    for i in range(n):
        c = np.zeros(n)
        c[i] = 1.0
        ci = L.legint(c, lbnd=-1.0)
        Vi[:, i] = L.legval(x, ci)
    M = np.linalg.solve(V.T, Vi.T).T  # int_{-1}^{x_k} l_j on [-1, 1]
    return 0.5 * (x + 1.0), 0.5 * w, 0.5 * M


N_GAUSS = 8
GX, GW, GM = _gauss_rule(N_GAUSS)
_horner_nodes_t = make_horner_nodes(3, N_GAUSS)  # columns 0-11 at the nodes


@njit(inner=True)
def _operands_t(X, n):
    """The sums, differences and copies of order n that the products use (columns 12-33)."""
    w0, w1, w2 = X[n, 3], X[n, 4], X[n, 5]
    v0, v1, v2 = X[n, 9], X[n, 10], X[n, 11]
    X[n, 12] = X[n, 1] + X[n, 2]
    X[n, 13] = X[n, 2] + X[n, 0]
    X[n, 14] = X[n, 0] + X[n, 1]
    X[n, 15] = w2 - w1
    X[n, 16] = w0 - w2
    X[n, 17] = w1 - w0
    X[n, 18] = X[n, 7] + X[n, 8]
    X[n, 19] = X[n, 8] + X[n, 6]
    X[n, 20] = X[n, 6] + X[n, 7]
    X[n, 21] = v2 - v1
    X[n, 22] = v0 - v2
    X[n, 23] = v1 - v0
    X[n, 24] = w1
    X[n, 25] = w2
    X[n, 26] = w0
    X[n, 27] = w1
    X[n, 28] = w2
    X[n, 29] = v1
    X[n, 30] = v2
    X[n, 31] = v0
    X[n, 32] = v1
    X[n, 33] = v2


@njit(inner=True)
def _next_t(X, n, q, S):
    """Order n + 1 of Gamma, omega (Eqs 31-32) and the deviation from the order-n sums ``S`` (lanes 4v..4v+2 of
    block v of :data:`TAN_BLOCKS`)."""
    inv = 1.0 / (n + 1)
    X[n + 1, 0] = (S[4] + S[1] - S[2]) * inv  # K_0 + P_1 - P_2
    X[n + 1, 1] = (S[5] + S[2] - S[0]) * inv
    X[n + 1, 2] = (S[6] + S[0] - S[1]) * inv
    X[n + 1, 3] = (q[0] * S[8] + q[3] * X[n, 2] - q[4] * X[n, 1]) * inv
    X[n + 1, 4] = (q[1] * S[9] + q[5] * X[n, 0] - q[6] * X[n, 2]) * inv
    X[n + 1, 5] = (q[2] * S[10] + q[7] * X[n, 1] - q[8] * X[n, 0]) * inv
    X[n + 1, 6] = (S[16] + S[13] - S[14] + S[24] + S[21] - S[22]) * inv  # (dGamma x omega + Gamma x domega)_0
    X[n + 1, 7] = (S[17] + S[14] - S[12] + S[25] + S[22] - S[20]) * inv
    X[n + 1, 8] = (S[18] + S[12] - S[13] + S[26] + S[20] - S[21]) * inv
    X[n + 1, 9] = (q[0] * (S[28] + S[32]) + q[3] * X[n, 8] - q[4] * X[n, 7]) * inv
    X[n + 1, 10] = (q[1] * (S[29] + S[33]) + q[5] * X[n, 6] - q[6] * X[n, 8]) * inv
    X[n + 1, 11] = (q[2] * (S[30] + S[34]) + q[7] * X[n, 7] - q[8] * X[n, 6]) * inv


@njit
def tangent_jet(X, order, q):
    """Taylor coefficients ``X[1..order, 0:12]`` of Gamma, omega and the deviation (principal frame) through
    ``X[0, 0:12]``, in place.  ``X`` has shape (>= order + 1, NCOL_T); columns 12-33 are work series
    (:data:`TAN_BLOCKS`).  ``q`` from :func:`.taylor.principal_params`.  Orders are computed in pairs as in
    :func:`.taylor.coefficients`."""
    for n in range(0, order, 2):
        _operands_t(X, n)
        S, T = _sums_t(X, n)
        _next_t(X, n, q, S)
        k = n + 1
        if k >= order:
            break
        _operands_t(X, k)
        S = _finish_t(X, k, T)
        _next_t(X, k, q, S)
    return 0


@njit(inner=True)
def _radius(X, order):
    """Jorba-Zou radius estimate (as :func:`.taylor.step_size`), the smaller of the state's (columns 0-5) and the
    deviation's (6-11): ``min_j min_b (max(1, |x_0|_b) / |x_j|_b)^(1/j)`` over the blocks b and j = p-1, p, with
    the minimum over the blocks taken before the root (the root is monotone: two powers, not four)."""
    ra = np.inf
    rb = np.inf
    for b in range(BLOCKS.shape[0] - 1):
        n0 = 0.0
        na = 0.0
        nb = 0.0
        for i in range(BLOCKS[b], BLOCKS[b + 1]):
            n0 = max(n0, abs(X[0, i]))
            na = max(na, abs(X[order - 1, i]))
            nb = max(nb, abs(X[order, i]))
        scale = max(1.0, n0)
        if na > 0.0:
            ra = min(ra, scale / na)
        if nb > 0.0:
            rb = min(rb, scale / nb)
    return min(ra ** (1.0 / (order - 1)), rb ** (1.0 / order))


@njit(inner=True)
def _horner(X, order, tau, out):
    """``out[0:12]`` = the 12 series at ``tau`` (4-lane Horner, :func:`.cauchy.make_horner`)."""
    v = _horner_t(X, order, tau)
    for i in range(12):
        out[i] = v[i]


@njit(inner=True)
def _log_rate(y, q):
    """``a / v = (delta' . delta) / (delta . delta)`` at the state ``y`` (12), delta' from the variational field."""
    G0, G1, G2, w0, w1, w2 = y[0], y[1], y[2], y[3], y[4], y[5]
    x0, x1, x2, v0, v1, v2 = y[6], y[7], y[8], y[9], y[10], y[11]
    dx0 = x1 * w2 - x2 * w1 + G1 * v2 - G2 * v1
    dx1 = x2 * w0 - x0 * w2 + G2 * v0 - G0 * v2
    dx2 = x0 * w1 - x1 * w0 + G0 * v1 - G1 * v0
    dv0 = q[0] * (v1 * w2 + w1 * v2) + q[3] * x2 - q[4] * x1
    dv1 = q[1] * (v2 * w0 + w2 * v0) + q[5] * x0 - q[6] * x2
    dv2 = q[2] * (v0 * w1 + w0 * v1) + q[7] * x1 - q[8] * x0
    a = dx0 * x0 + dx1 * x1 + dx2 * x2 + dv0 * v0 + dv1 * v1 + dv2 * v2
    v = x0 * x0 + x1 * x1 + x2 * x2 + v0 * v0 + v1 * v1 + v2 * v2
    return a / v


@njit(inner=True)
def megno_quadrature(X, order, q, t, h, I1, I2, g, V):
    """``(I1, I2)`` at ``t + h`` from their values at ``t`` by Gauss-Legendre quadrature on the step's polynomial
    (module docstring); ``g`` (2, N_GAUSS) and ``V`` (N_GAUSS, 12) work arrays (the nodes and the integrand; the
    series at the nodes, from one interleaved Horner loop: :func:`.cauchy.make_horner_nodes`)."""
    for k in range(N_GAUSS):
        g[0, k] = h * GX[k]
    _horner_nodes_t(X, order, g[0], V)
    s1 = 0.0
    for k in range(N_GAUSS):
        g[1, k] = (t + g[0, k]) * _log_rate(V[k], q)
        s1 += GW[k] * g[1, k]
    s2 = 0.0
    for k in range(N_GAUSS):
        i1 = 0.0
        for j in range(N_GAUSS):
            i1 += GM[k, j] * g[1, j]
        s2 += GW[k] * (I1 + h * i1) / (t + g[0, k])
    return I1 + h * s1, I2 + 2.0 * h * s2

@njit(inner=True)
def _step(X, order, q, t, steps_left, safety):
    """The jet at ``X[0]`` (time ``t``) and its Jorba-Zou step ``radius * safety``: ``(h, status)``."""
    if steps_left <= 0:
        return 0.0, MAX_STEPS
    tangent_jet(X, order, q)
    h = _radius(X, order) * safety
    if not (h > 1e-14 * max(1.0, t)):
        return h, (NON_FINITE if h != h else STEP_TOO_SMALL)
    return h, OK


@njit(inner=True)
def _renormalise(y, keep_tangent, pp, U):
    """The new state ``y`` (12) after a step: the deviation rescaled to norm 1 (projected onto the level first when
    ``keep_tangent``) when its norm leaves [1/RENORM, RENORM]; returns the logarithm of the factor (0 if kept),
    NaN when the deviation is not finite."""
    d = _dev_norm(y)
    if not np.isfinite(d):
        return np.nan
    if d > RENORM or d < 1.0 / RENORM:
        if keep_tangent:
            project_to_level(y, 6, pp, U)
            d = _dev_norm(y)
        for i in range(6, 12):
            y[i] /= d
        return np.log(d)
    return 0.0


@njit(nogil=True)
def tangent_run_taylor(y0, q, pp, t_total, n_out, order, max_steps, keep_tangent, with_megno, ybar, lyap, info, ctl,
                       pause_steps):
    """Integrate the LP_TAN state ``y0`` (14, principal frame: Gamma, omega, one deviation of norm 1, I1 = I2 = 0)
    from 0 to ``t_total`` with the Taylor method of order ``order``.

    Writes, at ``t_j = (j + 1) t_total / n_out``, the mean MEGNO ``ybar[j] = I2(t_j) / t_j`` and the Lyapunov
    estimate ``lyap[j] = log |delta(t_j)| / t_j`` (the contract of :func:`.chaos.tangent_run`).  ``pp`` is the
    parameter vector of :mod:`.fields` in the principal frame (for the projection when ``keep_tangent``).
    ``with_megno`` False: the Lyapunov estimate only (``ybar`` NaN, no quadrature; the same steps).
    ``info = [status, n_steps, 0, n_series_orders]`` (statuses of :mod:`.taylor`); outputs not reached are NaN.
    Allocates once.

    Resumable like :func:`.chaos.tangent_run`: after ``pause_steps`` more steps it returns ``PAUSED`` with its state
    in ``ctl`` (``section.N_CTL + 14`` floats, zero before the first call); called again with the same ``ctl`` it
    continues bit for bit."""
    X = np.zeros((order + 1, NCOL_T))
    y = np.empty(N_TT)
    g = np.empty((2, N_GAUSS))
    V = np.empty((N_GAUSS, 12))
    U = np.empty((3, 6))
    dt_out = t_total / n_out
    safety = np.exp(-2.0 + SAFETY_EXP / (order - 1))
    if ctl[0] == C_PAUSED:
        t, _h, acc, k_out_f, n_steps, _r, _f, _n = pause_load(ctl, y, y[:0], N_TT)
        k_out = int(k_out_f)
    else:
        for i in range(N_TT):
            y[i] = y0[i]
        t = 0.0
        acc = 0.0
        k_out = 0
        n_steps = 0
    for i in range(12):
        X[0, i] = y[i]
    I1, I2 = y[12], y[13]
    status = OK
    stop = n_steps + pause_steps
    while k_out < n_out:
        if n_steps >= stop:
            status = PAUSED
            break
        h, status = _step(X, order, q, t, max_steps - n_steps, safety)
        if status != OK:
            break
        last = t + h >= t_total
        if last:
            h = t_total - t
        t_new = t_total if last else t + h
        I1n, I2n = megno_quadrature(X, order, q, t, h, I1, I2, g, V) if with_megno else (I1, I2)
        while k_out < n_out and ((k_out + 1) * dt_out <= t_new or (last and k_out == n_out - 1)):
            ts = t_total if k_out == n_out - 1 else (k_out + 1) * dt_out
            _horner(X, order, ts - t, y)
            if with_megno:
                i2 = I2n if ts == t_new else megno_quadrature(X, order, q, t, ts - t, I1, I2, g, V)[1]
                ybar[k_out] = i2 / ts
            else:
                ybar[k_out] = np.nan
            lyap[k_out] = (acc + np.log(_dev_norm(y))) / ts
            k_out += 1
        _horner(X, order, h, y)
        t = t_new
        n_steps += 1
        I1, I2 = I1n, I2n
        la = _renormalise(y, keep_tangent, pp, U)
        if not (np.isfinite(la) and np.isfinite(I2)):
            status = NON_FINITE
            break
        acc += la
        for i in range(12):
            X[0, i] = y[i]
    if status != PAUSED:
        for j in range(k_out, n_out):  # not reached (the run stopped)
            ybar[j] = np.nan
            lyap[j] = np.nan
    info[0], info[1], info[2], info[3] = status, n_steps, 0, n_steps * order
    for i in range(12):
        y[i] = X[0, i]
    y[12], y[13] = I1, I2
    pause_save(ctl, status, t, 0.0, acc, float(k_out), n_steps, np.int64(0), np.int64(0), np.int64(0), y, y[:0], N_TT)
    return status


def principal_tangent_params(p, Q):
    """The parameter vector of :mod:`.fields` in the principal frame ``Q`` (columns: principal axes)."""
    J = np.asarray(p[0:9]).reshape(3, 3)
    pp = pack_params(Q.T @ J @ Q, Q.T @ np.asarray(p[18:21]), p[21])
    pp.flags.writeable = False  # read-only as a level's p: the kernels they share compile for one signature
    return pp


def tangent_many_taylor(Y0, p, q, Q, t_total, order, max_steps, keep_tangent, ybar, lyap, info, with_megno=True):
    """MEGNO and Lyapunov estimate at ``t_total`` for each LP state in the rows of ``Y0`` (m x 6, body frame), one
    after the other, with the Taylor method: the interface of :func:`.chaos.tangent_many` (NaN rows skipped) plus
    the principal frame ``(q, Q)`` of ``trajectory.taylor_frame`` and the ``order`` (:func:`.taylor.order_for`).
    The first deviation is that of :func:`.chaos.initial_deviation` (body frame), rotated into the principal
    frame (MEGNO and the norms are invariant); ``with_megno``: see :func:`tangent_run_taylor`.  ``info``
    (m x N_TAN_INFO): ``[status, n_steps, 0, n_orders]``."""
    pp = principal_tangent_params(p, Q)
    y = np.zeros(N_TT)
    yp = np.zeros(N_TT)
    U = np.empty((3, 6))
    yb = np.empty(1)
    ly = np.empty(1)
    ctl = np.zeros(N_CTL + 2 * N_TT)
    for k in range(Y0.shape[0]):
        if not np.isfinite(Y0[k, 0]):
            ybar[k] = np.nan
            lyap[k] = np.nan
            info[k] = 0
            continue
        y[:6] = Y0[k]
        initial_deviation(y, p, keep_tangent, U)
        for b in range(4):
            yp[3 * b:3 * b + 3] = Q.T @ y[3 * b:3 * b + 3]
        yp[12:] = 0.0
        ctl[0] = 0.0
        tangent_run_taylor(yp, q, pp, t_total, 1, order, max_steps, keep_tangent, with_megno, yb, ly, info[k], ctl,
                           max_steps + 1)
        ybar[k] = yb[0]
        lyap[k] = ly[0]


__all__ = ["N_CTL", "N_TAN_INFO", "tangent_jet", "megno_quadrature", "tangent_run_taylor", "tangent_many_taylor",
           "principal_tangent_params"]
