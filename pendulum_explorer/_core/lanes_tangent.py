"""Tangent dynamics in lanes: MEGNO and the Lyapunov estimate of ``LANES`` trajectories of Eqs (31)-(32) at once.

The loop of :func:`.chaos.tangent_run` (model LP_TAN, one deviation vector: dim 14) on the lane layout and the
vectorised trial step of :mod:`.lanes`; per lane the operations of the scalar kernel in the same order.
"""
import numpy as np

from .._jit import njit
from .chaos import N_TAN_INFO, RENORM, _dev_norm, initial_deviation, project_to_level
from .dop853 import N_START_RHS, dense_eval, dense_prepare, end_of_step, initial_step
from .dop853_tableau import N_STAGES, N_STAGES_EXTENDED
from .fields import rhs
from .status import MAX_STEPS, NON_FINITE, OK, STEP_TOO_SMALL
from .lanes import (DIM_TAN, F_ACC, F_H, F_T, I_KOUT, I_NACC, I_NFEV, I_NREJ, I_SEED, LANES, Q_DONE, Q_NEXT, _MODELS,
                    accept_lanes, control_lane, gather, gather_stages, lane_state, scatter, step_lanes)


@njit(inline="always")
def _tan_finish(l, status, ybar, lyap, info, TI, Q):
    """Lane ``l``'s tangent run stops: ``info`` row ``[status, n_accepted, n_rejected, n_rhs]``; outputs not
    reached are NaN."""
    k = TI[I_SEED, l]
    info[k, 0], info[k, 1], info[k, 2], info[k, 3] = status, TI[I_NACC, l], TI[I_NREJ, l], TI[I_NFEV, l]
    for j in range(TI[I_KOUT, l], ybar.shape[1]):
        ybar[k, j] = np.nan
        lyap[k, j] = np.nan
    TI[I_SEED, l] = -1
    Q[Q_DONE] += 1


@njit(inline="always")
def _tan_ready(model, l, Y0, p, t_total, rtol, atol, max_steps, keep_tangent, ybar, lyap, info, Y, K, TF, TI, Q,
               H, Ks, w, U):
    """Before a step (as :func:`_cross_ready`): a seed (:func:`.chaos.initial_deviation`; rows of ``Y0`` whose
    first entry is not finite are skipped: NaN outputs, info 0, as in :func:`.chaos.tangent_many`), the
    guards of :func:`.chaos.tangent_run` and the clipped step.  Returns 1 when the lane steps."""
    n_out = ybar.shape[1]
    while True:
        if TI[I_SEED, l] < 0:
            k = Q[Q_NEXT]
            if k >= Y0.shape[0]:
                H[l] = 0.0
                return 0
            Q[Q_NEXT] = k + 1
            if not np.isfinite(Y0[k, 0]):
                for j in range(n_out):
                    ybar[k, j] = np.nan
                    lyap[k, j] = np.nan
                for j in range(info.shape[1]):
                    info[k, j] = 0
                Q[Q_DONE] += 1
                continue
            y = w[0]
            for i in range(6):
                y[i] = Y0[k, i]
            initial_deviation(y, p, keep_tangent, U)
            h0 = initial_step(model, 0.0, y, Ks[0], p, rtol, atol, t_total, w[1], w[2])
            scatter(y, l, Y)
            scatter(Ks[0], l, K[0])
            TF[F_T, l], TF[F_H, l], TF[F_ACC, l] = 0.0, h0, 0.0
            TI[I_SEED, l], TI[I_NACC, l], TI[I_NREJ, l], TI[I_NFEV, l], TI[I_KOUT, l] = k, 0, 0, N_START_RHS, 0
        t = TF[F_T, l]
        if TI[I_KOUT, l] >= n_out:
            status = OK
        elif TI[I_NACC, l] + TI[I_NREJ, l] >= max_steps:
            status = MAX_STEPS
        else:
            h = min(TF[F_H, l], t_total - t)
            if h < 1e-14 * max(1.0, abs(t)):
                status = STEP_TOO_SMALL
            else:
                H[l] = h
                return 1
        _tan_finish(l, status, ybar, lyap, info, TI, Q)


@njit(inline="always")
def _tan_after(model, l, p, t_total, keep_tangent, ybar, lyap, info, Y, K, TF, TI, Q, H, ERR, Ynew, ACC, Ks, F, w,
               U):
    """After a step: lane ``l``'s control; on an accepted step its outputs (dense output inside the step), the
    check and renormalisation of the deviation (on ``Ynew``, with ``K[12]`` re-evaluated: the accepted state)."""
    h = H[l]
    t = TF[F_T, l]
    accepted, h_next, status = control_lane(ERR[l], h, t)
    if not accepted:
        TI[I_NREJ, l] += 1
    TI[I_NFEV, l] += N_STAGES
    ACC[l] = accepted and status == OK
    if status != OK:
        _tan_finish(l, status, ybar, lyap, info, TI, Q)
        return
    TF[F_H, l] = h_next
    if not accepted:
        return
    n_out = ybar.shape[1]
    dt_out = t_total / n_out
    t_new = end_of_step(t, h, t_total)
    TF[F_T, l] = t_new
    TI[I_NACC, l] += 1
    k_out = TI[I_KOUT, l]
    if k_out < n_out and (k_out + 1) * dt_out <= t_new * (1.0 + 1e-15):
        _tan_output(model, l, p, t, h, t_new, t_total, ybar, lyap, Y, K, TF, TI, Ynew, Ks, F, w)
    d = 0.0  # _dev_norm of the lane, read in place (no copy on the common path)
    for i in range(6, 12):
        d += Ynew[i * LANES + l] * Ynew[i * LANES + l]
    d = np.sqrt(d)
    if not np.isfinite(d) or not np.isfinite(Ynew[13 * LANES + l]):
        ACC[l] = False
        _tan_finish(l, NON_FINITE, ybar, lyap, info, TI, Q)
        return
    if d > RENORM or d < 1.0 / RENORM:
        yn = w[1]
        gather(Ynew, l, yn)
        if keep_tangent:
            project_to_level(yn, 6, p, U)
            d = _dev_norm(yn)
        TF[F_ACC, l] += np.log(d)
        for i in range(6, 12):
            yn[i] /= d
        rhs(model, t_new, yn, p, Ks[N_STAGES])
        TI[I_NFEV, l] += 1
        scatter(yn, l, Ynew)
        scatter(Ks[N_STAGES], l, K[N_STAGES])


@njit(inner=True)
def _tan_output(model, l, p, t, h, t_new, t_total, ybar, lyap, Y, K, TF, TI, Ynew, Ks, F, w):
    """The outputs of lane ``l`` inside its accepted step ``t -> t_new`` (the loop of :func:`.chaos.tangent_run`:
    the end state at ``t_total``, else the dense output)."""
    k = TI[I_SEED, l]
    n_out = ybar.shape[1]
    dt_out = t_total / n_out
    y, yn, yd = w[0], w[1], w[3]
    n = y.shape[0]
    gather(Ynew, l, yn)
    acc = TF[F_ACC, l]
    k_out = TI[I_KOUT, l]
    need_dense = False
    while k_out < n_out and (k_out + 1) * dt_out <= t_new * (1.0 + 1e-15):
        ts = (k_out + 1) * dt_out
        if k_out == n_out - 1 and t_new == t_total:
            for i in range(n):
                yd[i] = yn[i]
            ts = t_total
        else:
            if not need_dense:
                gather(Y, l, y)
                gather_stages(K, l, Ks)
                dense_prepare(model, t, y, yn, h, p, Ks, F, w[2])
                TI[I_NFEV, l] += N_STAGES_EXTENDED - N_STAGES - 1
                need_dense = True
            dense_eval(F, y, (ts - t) / h, yd)
        ybar[k, k_out] = yd[n - 1] / ts
        lyap[k, k_out] = (acc + np.log(_dev_norm(yd))) / ts
        k_out += 1
    TI[I_KOUT, l] = k_out


@njit(nogil=True)
def tangent_lanes(Y0, p, t_total, rtol, atol, max_steps, keep_tangent, ybar, lyap, info, Y, K, TF, TI, Q,
                  pause_steps):
    """MEGNO and the Lyapunov estimate of the LP trajectory from each row of ``Y0`` (m x 6, Gamma and omega),
    ``LANES`` at a time; per row the contract of :func:`.chaos.tangent_run` after
    :func:`.chaos.initial_deviation` (one deviation vector, LP_TAN of size 14), as :func:`.chaos.tangent_many`.

    Outputs (m x n_out): ``ybar[k, j]`` the mean MEGNO and ``lyap[k, j]`` the Lyapunov estimate at
    ``t_j = (j + 1) t_total / n_out``; ``info`` (m x N_TAN_INFO int64) ``[status, n_accepted, n_rejected, n_rhs]``
    (a failed row: its outputs from the failure on are NaN).  Rows whose first entry is not finite are skipped.
    ``(Y, K, TF, TI, Q)`` from :func:`lane_state` (14).  Resumable like :func:`crossings_lanes` (returns 1 after
    ``pause_steps`` lane steps, 0 when done).  Releases the GIL.
    """
    model = _MODELS[1]
    dim = DIM_TAN
    nl = dim * LANES
    Ynew = np.empty(nl)
    HB = np.empty(nl)
    E = np.empty((2, nl))
    TS = np.empty(LANES)
    H = np.empty(LANES)
    ERR = np.empty(LANES)
    ACC = np.zeros(LANES, dtype=np.bool_)
    Ks = np.empty((N_STAGES_EXTENDED, dim))
    F = np.empty((7, dim))
    w = np.empty((4, dim))
    U = np.empty((3, 6))
    T = TF[F_T]
    for it in range(pause_steps + 1):
        busy = 0
        for l in range(LANES):
            busy += _tan_ready(model, l, Y0, p, t_total, rtol, atol, max_steps, keep_tangent, ybar, lyap, info, Y, K,
                               TF, TI, Q, H, Ks, w, U)
        if busy == 0:
            return 0
        if it == pause_steps:
            break
        step_lanes(model, T, H, Y, p, K, Ynew, HB, TS, E, rtol, atol, ERR)
        for l in range(LANES):
            ACC[l] = False
            if TI[I_SEED, l] >= 0:
                _tan_after(model, l, p, t_total, keep_tangent, ybar, lyap, info, Y, K, TF, TI, Q, H, ERR, Ynew, ACC,
                           Ks, F, w, U)
        accept_lanes(ACC, Y, Ynew, K)
    return 1


def tangent_all(Y0, p, t_total, rtol, atol, max_steps, keep_tangent, n_out=1, pause_steps=100_000):
    """:func:`tangent_lanes` on every row of ``Y0`` in one lane group, to the end: ``(ybar, lyap, info)``."""
    Y0 = np.ascontiguousarray(Y0, dtype=np.float64)
    m = Y0.shape[0]
    ybar = np.empty((m, n_out))
    lyap = np.empty((m, n_out))
    info = np.zeros((m, N_TAN_INFO), dtype=np.int64)
    state = lane_state(DIM_TAN)
    while tangent_lanes(Y0, p, t_total, rtol, atol, max_steps, bool(keep_tangent), ybar, lyap, info, *state,
                        pause_steps):
        pass
    return ybar, lyap, info
