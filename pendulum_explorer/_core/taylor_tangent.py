"""Tangent dynamics in Taylor form: MEGNO and the Lyapunov estimate with the Taylor method (issue 22, item 2).

In principal axes (see :mod:`.taylor`) Eqs (31)-(32) are quadratic, and so are their variational equations
(the deviation ``delta = (dGamma, domega)`` enters linearly, multiplied by the state)::

    dGamma'  = dGamma x omega + Gamma x domega
    domega_i' = c_i (domega_j omega_k + omega_j domega_k) + u_ij dGamma_k - u_ik dGamma_j     ((i, j, k) cyclic)

The MEGNO integrals of :func:`.fields.tangent_lp` are rational: ``I1' = t a / v`` with ``a = delta' . delta`` and
``v = delta . delta``, ``I2' = 2 I1 / t``.  Their Taylor coefficients follow from those of delta by the series
product (``a``, ``v``), the series quotient ``r = a / v`` (``r_n = (a_n - sum_{m=1}^n v_m r_{n-m}) / v_0``), the
product with ``t = t0 + tau`` and the quotient by it (``s = I1 / t``: ``s_n = (I1_n - s_{n-1}) / t0``, or
``s_n = I1_{n+1}`` at ``t0 = 0`` where ``I1(0) = 0``).  All 14 series (state layout LP_TAN with one deviation)
are computed to the order ``p`` of :func:`.taylor.order_for`; the step is Jorba and Zou's (as
:func:`.taylor.step_size`) taken as the smallest of three blocks -- the state, the deviation and the two
integrals -- so that each is resolved to the tolerance relative to its own size.  The deviation is renormalised
as in :func:`.chaos.tangent_run` (its norm kept in [1/RENORM, RENORM], the logarithm accumulated) and projected
onto the level set of the first integrals when ``keep_tangent``.

The Cauchy sums of one order run in one loop with independent accumulators (:func:`_sums`); the output times are
evaluated on the step's polynomial (Horner), so the step never shortens for an output.
"""
import numpy as np

from .._jit import njit
from .chaos import N_TAN_INFO, RENORM, _dev_norm, initial_deviation, project_to_level
from .fields import pack_params
from .section import C_PAUSED, N_CTL, pause_load, pause_save
from .status import MAX_STEPS, NON_FINITE, OK, PAUSED, STEP_TOO_SMALL
from .taylor import SAFETY_EXP

N_TT = 14  # columns: Gamma 0-2, omega 3-5, dGamma 6-8, domega 9-11, I1 12, I2 13
#: the column blocks that steer the step: state, deviation, MEGNO integrals (run-time values, see taylor.py)
BLOCKS = np.array([0, 6, 12, 14], dtype=np.int64)


@njit(inner=True)
def _sums(X, n):
    """The order-n Cauchy sums the field needs, all in one loop over m (independent accumulators: the additions
    of different sums overlap instead of waiting on one chain): ``(Gamma x omega)``, ``(dGamma x omega +
    Gamma x domega)``, ``omega_j omega_k`` and ``domega_j omega_k + omega_j domega_k`` ((i, j, k) cyclic)."""
    p0 = p1 = p2 = d0 = d1 = d2 = e0 = e1 = e2 = f0 = f1 = f2 = 0.0
    for m in range(n + 1):
        r = n - m
        G0, G1, G2, w0, w1, w2 = X[m, 0], X[m, 1], X[m, 2], X[m, 3], X[m, 4], X[m, 5]
        x0, x1, x2, v0, v1, v2 = X[m, 6], X[m, 7], X[m, 8], X[m, 9], X[m, 10], X[m, 11]
        W0, W1, W2 = X[r, 3], X[r, 4], X[r, 5]
        V0, V1, V2 = X[r, 9], X[r, 10], X[r, 11]
        p0 += G1 * W2 - G2 * W1
        p1 += G2 * W0 - G0 * W2
        p2 += G0 * W1 - G1 * W0
        d0 += x1 * W2 - x2 * W1 + G1 * V2 - G2 * V1
        d1 += x2 * W0 - x0 * W2 + G2 * V0 - G0 * V2
        d2 += x0 * W1 - x1 * W0 + G0 * V1 - G1 * V0
        e0 += w1 * W2
        e1 += w2 * W0
        e2 += w0 * W1
        f0 += v1 * W2 + w1 * V2
        f1 += v2 * W0 + w2 * V0
        f2 += v0 * W1 + w0 * V1
    return p0, p1, p2, d0, d1, d2, e0, e1, e2, f0, f1, f2


@njit
def tangent_coefficients(X, order, q, t0, W):
    """Taylor coefficients ``X[1..order]`` of the LP_TAN solution (principal frame) through ``X[0]`` at time
    ``t0``, in place.  ``q`` from :func:`.taylor.principal_params`; ``W`` (3, order + 1) work: the series of
    ``v = delta . delta``, ``r = delta' . delta / v`` and ``s = I1 / t``."""
    for n in range(order):
        inv = 1.0 / (n + 1)
        p0, p1, p2, d0, d1, d2, e0, e1, e2, f0, f1, f2 = _sums(X, n)
        X[n + 1, 0] = p0 * inv  # Eq (32)
        X[n + 1, 1] = p1 * inv
        X[n + 1, 2] = p2 * inv
        X[n + 1, 3] = (q[0] * e0 + q[3] * X[n, 2] - q[4] * X[n, 1]) * inv  # Eq (31)
        X[n + 1, 4] = (q[1] * e1 + q[5] * X[n, 0] - q[6] * X[n, 2]) * inv
        X[n + 1, 5] = (q[2] * e2 + q[7] * X[n, 1] - q[8] * X[n, 0]) * inv
        X[n + 1, 6] = d0 * inv  # the variational equations
        X[n + 1, 7] = d1 * inv
        X[n + 1, 8] = d2 * inv
        X[n + 1, 9] = (q[0] * f0 + q[3] * X[n, 8] - q[4] * X[n, 7]) * inv
        X[n + 1, 10] = (q[1] * f1 + q[5] * X[n, 6] - q[6] * X[n, 8]) * inv
        X[n + 1, 11] = (q[2] * f2 + q[7] * X[n, 7] - q[8] * X[n, 6]) * inv
        # the MEGNO integrals: delta' has coefficients (m + 1) delta_{m+1}, known to order n now
        a = 0.0
        v = 0.0
        for m in range(n + 1):
            am = 0.0
            vm = 0.0
            for c in range(6, 12):
                am += X[m + 1, c] * X[n - m, c]
                vm += X[m, c] * X[n - m, c]
            a += (m + 1) * am
            v += vm
        W[0, n] = v
        for m in range(1, n + 1):
            a -= W[0, m] * W[1, n - m]
        W[1, n] = a / W[0, 0]
        X[n + 1, 12] = (t0 * W[1, n] + (W[1, n - 1] if n > 0 else 0.0)) * inv
        if t0 > 0.0:
            W[2, n] = (X[n, 12] - (W[2, n - 1] if n > 0 else 0.0)) / t0
        else:
            W[2, n] = X[n + 1, 12]
        X[n + 1, 13] = 2.0 * W[2, n] * inv
    return 0


@njit(inner=True)
def _block_radius(X, order, lo, hi):
    """Jorba-Zou radius estimate of the columns lo..hi-1 (as :func:`.taylor.step_size`)."""
    n0 = 0.0
    na = 0.0
    nb = 0.0
    for i in range(lo, hi):
        n0 = max(n0, abs(X[0, i]))
        na = max(na, abs(X[order - 1, i]))
        nb = max(nb, abs(X[order, i]))
    scale = max(1.0, n0)
    r = np.inf
    if na > 0.0:
        r = (scale / na) ** (1.0 / (order - 1))
    if nb > 0.0:
        r = min(r, (scale / nb) ** (1.0 / order))
    return r


@njit(inner=True)
def _horner(X, order, tau, out):
    for i in range(N_TT):
        v = X[order, i]
        for j in range(order - 1, -1, -1):
            v = v * tau + X[j, i]
        out[i] = v


@njit(nogil=True)
def tangent_run_taylor(y0, q, pp, t_total, n_out, order, max_steps, keep_tangent, with_megno, ybar, lyap, info, ctl,
                       pause_steps):
    """Integrate the LP_TAN state ``y0`` (14, principal frame: Gamma, omega, one deviation of norm 1, I1 = I2 = 0)
    from 0 to ``t_total`` with the Taylor method of order ``order``.

    Writes, at ``t_j = (j + 1) t_total / n_out``, the mean MEGNO ``ybar[j] = I2(t_j) / t_j`` and the Lyapunov
    estimate ``lyap[j] = log |delta(t_j)| / t_j`` (the contract of :func:`.chaos.tangent_run`).  ``pp`` is the
    parameter vector of :mod:`.fields` in the principal frame (for the projection when ``keep_tangent``).
    ``with_megno`` False: the Lyapunov estimate only (``ybar`` NaN): the integrals do not steer the step, whose
    radius of convergence (the complex zeros of ``delta . delta``) is about a third of the state's.
    ``info = [status, n_steps, 0, n_series_orders]`` (statuses of :mod:`.taylor`); outputs not reached are NaN.
    Allocates once.

    Resumable like :func:`.chaos.tangent_run`: after ``pause_steps`` more steps it returns ``PAUSED`` with its state
    in ``ctl`` (``section.N_CTL + 14`` floats, zero before the first call); called again with the same ``ctl`` it
    continues bit for bit."""
    X = np.zeros((order + 1, N_TT))
    W = np.zeros((3, order + 1))
    y = np.empty(N_TT)
    U = np.empty((3, 6))
    dt_out = t_total / n_out
    if ctl[0] == C_PAUSED:
        t, _h, acc, k_out_f, n_steps, _r, _f, _n = pause_load(ctl, X[0], X[0, :0], N_TT)
        k_out = int(k_out_f)
    else:
        for i in range(N_TT):
            X[0, i] = y0[i]
        t = 0.0
        acc = 0.0
        k_out = 0
        n_steps = 0
    status = OK
    stop = n_steps + pause_steps
    while k_out < n_out:
        if n_steps >= stop:
            status = PAUSED
            break
        if n_steps >= max_steps:
            status = MAX_STEPS
            break
        tangent_coefficients(X, order, q, t, W)
        r = np.inf
        for b in range(BLOCKS.shape[0] - (1 if with_megno else 2)):
            r = min(r, _block_radius(X, order, BLOCKS[b], BLOCKS[b + 1]))
        h = r * np.exp(-2.0 + SAFETY_EXP / (order - 1))
        if not (h > 1e-14 * max(1.0, t)):
            status = NON_FINITE if h != h else STEP_TOO_SMALL
            break
        last = t + h >= t_total
        if last:
            h = t_total - t
        t_new = t_total if last else t + h
        while k_out < n_out and ((k_out + 1) * dt_out <= t_new or (last and k_out == n_out - 1)):
            ts = t_total if k_out == n_out - 1 else (k_out + 1) * dt_out
            _horner(X, order, ts - t, y)
            ybar[k_out] = y[13] / ts if with_megno else np.nan
            lyap[k_out] = (acc + np.log(_dev_norm(y))) / ts
            k_out += 1
        _horner(X, order, h, y)
        t = t_new
        n_steps += 1
        d = _dev_norm(y)
        if not np.isfinite(d) or not np.isfinite(y[13]):
            status = NON_FINITE
            break
        if d > RENORM or d < 1.0 / RENORM:
            if keep_tangent:
                project_to_level(y, 6, pp, U)
                d = _dev_norm(y)
            acc += np.log(d)
            for i in range(6, 12):
                y[i] /= d
        for i in range(N_TT):
            X[0, i] = y[i]
    if status != PAUSED:
        for j in range(k_out, n_out):  # not reached (the run stopped)
            ybar[j] = np.nan
            lyap[j] = np.nan
    info[0], info[1], info[2], info[3] = status, n_steps, 0, n_steps * order
    pause_save(ctl, status, t, 0.0, acc, float(k_out), n_steps, np.int64(0), np.int64(0), np.int64(0), X[0], X[0, :0],
               N_TT)
    return status


def principal_tangent_params(p, Q):
    """The parameter vector of :mod:`.fields` in the principal frame ``Q`` (columns: principal axes)."""
    J = np.asarray(p[0:9]).reshape(3, 3)
    return pack_params(Q.T @ J @ Q, Q.T @ np.asarray(p[18:21]), p[21])


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


__all__ = ["N_CTL", "N_TAN_INFO", "tangent_coefficients", "tangent_run_taylor", "tangent_many_taylor",
           "principal_tangent_params"]
