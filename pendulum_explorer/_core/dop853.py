"""Adaptive Dormand-Prince 8(5,3) integrator with 7th-order dense output, as numba kernels.

The stepper follows Hairer & Wanner's DOP853 (error estimate combining the 5th and 3rd order embedded
formulas; step-size control with safety 0.9, factors in [0.2, 10]).  All work arrays are allocated once per
integration, outside the step loop.

Kernels
-------
``step(model, t, y, h, p, K, y_new, rtol, atol)``
    one trial step; returns the scaled error norm (accept if <= 1).
``dense_prepare(model, t, y, y_new, h, p, K, F)``
    the extra three stages and the interpolation coefficients of the step just accepted.
``dense_eval(F, y_old, x, out)``
    the interpolant at ``t_old + x h``, 0 <= x <= 1.
``integrate_uniform(...)``
    integrate and sample on ``n_out`` evenly spaced times.
``integrate_fixed(...)``
    fixed step, no error control (for convergence-order tests).
"""
import numpy as np

from .._jit import njit
from .dop853_tableau import A, B, C, D, E3, E5, N_STAGES, N_STAGES_EXTENDED
from .dop853_lp import step_lp, step_lp_row
from .fields import LP, LP_ROW, LR, LR_REC, project, rhs  # noqa: F401  (rhs re-exported for callers)

SAFETY = 0.9
MIN_FACTOR = 0.2
MAX_FACTOR = 10.0
ERR_EXP = -1.0 / 8.0

# status codes returned by the integration kernels (declared once, in status.py)
from .status import MAX_STEPS, NON_FINITE, OK, STEP_TOO_SMALL  # noqa: E402,F401


# The tableau as padded sparse rows (numba freezes global arrays into the compiled code): row r holds its
# nonzero coefficients VAL[r, :] in the columns IDX[r, :], in increasing column order, padded with zeros
# (column 0) to a fixed width, so that LLVM unrolls the sums completely.  Each sum
# ``sum_j A[s, j] K[j, i]`` is therefore summed in the order of the plain dense loop; dropping or adding exact
# zeros changes no bit.  Rows 0..15: the stages (row 12 is B), 9 nonzeros at most; then E5, E3 and the
# dense-output rows D[0..3], 12 at most.  Loops over these tables keep the kernels small: numba compiles them
# in a fraction of the time of fully unrolled sums (4.5 s instead of 21 s for ``integrate_uniform``).
def _padded_rows(rows, width):
    idx = np.zeros((len(rows), width), dtype=np.uint64)
    val = np.zeros((len(rows), width))
    for r, row in enumerate(rows):
        nz = [j for j, v in enumerate(row) if v != 0.0]
        assert len(nz) <= width
        idx[r, :len(nz)] = nz
        val[r, :len(nz)] = [row[j] for j in nz]
    return idx, val


STAGE_IDX, STAGE_VAL = _padded_rows([A[s, :s] for s in range(N_STAGES_EXTENDED)], 9)
STAGE_WIDTH = STAGE_IDX.shape[1]
# rows of the extra table, read from an array (run-time integers: no specialisation per row)
EXTRA_ROWS = np.array([0, 1, 2], dtype=np.int64)  # E5, E3, first dense-output row
EXTRA_IDX, EXTRA_VAL = _padded_rows([E5[:N_STAGES], E3[:N_STAGES], *D[:, :N_STAGES_EXTENDED]], 12)
EXTRA_WIDTH = EXTRA_IDX.shape[1]
C_STAGE = C.copy()
# the stage ranges of a step (1..12) and of the dense-output extension (13..15), read from an array so that
# numba sees run-time integers: integer constants in a call would compile one specialisation per value
STAGE_RANGES = np.array([[1, N_STAGES + 1], [N_STAGES + 1, N_STAGES_EXTENDED]], dtype=np.int64)


@njit(inner=True)
def _combine(row, K, i):
    """``sum_j T[row, j] K[j, i]`` for row ``row`` of the extra table (error estimates, dense output)."""
    acc = 0.0
    for q in range(EXTRA_WIDTH):
        acc += EXTRA_VAL[row, q] * K[EXTRA_IDX[row, q], i]
    return acc


@njit(inner=True)
def _stages(model, t, y, h, p, K, s0, s1, ytmp, y_new):
    """Fill K[s0:s1] with the Runge-Kutta stages (K[0:s0] already known), 1 <= s0 < s1 <= 16.

    Stage 12 is the first-same-as-last stage: its argument is the 8th-order solution, which is also
    written to ``y_new`` (A[12] is the B row), and ``K[12] = f(t + h, y_new)``.
    """
    n = y.shape[0]
    for s in range(s0, s1):
        for i in range(n):
            acc = 0.0
            for q in range(STAGE_WIDTH):
                acc += STAGE_VAL[s, q] * K[STAGE_IDX[s, q], i]
            ytmp[i] = y[i] + h * acc
        if s == N_STAGES:
            for i in range(n):
                y_new[i] = ytmp[i]
        rhs(model, t + C_STAGE[s] * h, ytmp, p, K[s])
    return 0


@njit(inline="always")
def step(model, t, y, h, p, K, y_new, ytmp, rtol, atol):
    """One DOP853 trial step of size ``h`` from ``(t, y)``; ``K[0]`` must hold ``f(t, y)``.

    On return ``y_new`` is the 8th-order solution, ``K[1:13]`` the stages, ``K[12] = f(t + h, y_new)``
    (first-same-as-last), and the returned value is the scaled error norm of Hairer's estimator.  The LP model
    takes the generated scalar step (:mod:`.dop853_lp`, same bits, half the time); the others
    :func:`step_generic`.  This dispatch is the one function inlined at numba's IR level (two calls, nothing
    to copy): the step loops then make one call per step, not two (5 % of an LP integration).
    """
    if model == LP:
        return step_lp(y, h, p, K, y_new, rtol, atol)
    return step_generic(model, t, y, h, p, K, y_new, ytmp, rtol, atol)


@njit
def step_generic(model, t, y, h, p, K, y_new, ytmp, rtol, atol):
    """:func:`step` for a state of any size: stage sums as loops over the padded tableau rows.  The error norm
    is over every component, except for LP_ROW: over (Gamma, omega) only (the attitude row does not steer)."""
    n = y.shape[0]
    _stages(model, t, y, h, p, K, STAGE_RANGES[0, 0], STAGE_RANGES[0, 1], ytmp, y_new)
    n = error_size(model, n)
    err5 = 0.0
    err3 = 0.0
    for i in range(n):
        sc = atol + rtol * max(abs(y[i]), abs(y_new[i]))
        e5 = _combine(EXTRA_ROWS[0], K, i) / sc
        e3 = _combine(EXTRA_ROWS[1], K, i) / sc
        err5 += e5 * e5
        err3 += e3 * e3
    if err5 == 0.0 and err3 == 0.0:
        return 0.0
    denom = err5 + 0.01 * err3
    return abs(h) * err5 / np.sqrt(denom * n)


@njit(inner=True)
def dense_prepare(model, t, y, y_new, h, p, K, F, ytmp):
    """Interpolation coefficients ``F`` (7 x n) of the accepted step ``t -> t + h``."""
    n = y.shape[0]
    _stages(model, t, y, h, p, K, STAGE_RANGES[1, 0], STAGE_RANGES[1, 1], ytmp, ytmp)
    for i in range(n):
        dlt = y_new[i] - y[i]
        F[0, i] = dlt
        F[1, i] = h * K[0, i] - dlt
        F[2, i] = 2.0 * dlt - h * (K[N_STAGES, i] + K[0, i])
    for r in range(4):
        for i in range(n):
            F[3 + r, i] = h * _combine(EXTRA_ROWS[2] + r, K, i)


@njit(inner=True)
def dense_eval(F, y_old, x, out):
    """Evaluate the 7th-order interpolant at ``t_old + x h`` (Hairer's CONTD8 nesting)."""
    dense_eval_range(F, y_old, x, out, np.int64(0), y_old.shape[0])  # (a literal 0 would compile a second version)


@njit(inner=True)
def dense_eval_range(F, y_old, x, out, lo, hi):
    """:func:`dense_eval` for the components ``lo <= i < hi`` only."""
    x1 = 1.0 - x
    for i in range(lo, hi):
        v = F[6, i] * x + F[5, i]
        v = v * x1 + F[4, i]
        v = v * x + F[3, i]
        v = v * x1 + F[2, i]
        v = v * x + F[1, i]
        v = v * x1 + F[0, i]
        out[i] = y_old[i] + v * x


@njit(inner=True)
def _rms(v, y, rtol, atol, n):
    s = 0.0
    for i in range(n):
        q = v[i] / (atol + rtol * abs(y[i]))
        s += q * q
    return np.sqrt(s / n)


@njit(inner=True)
def error_size(model, n):
    """How many leading components of a state of size ``n`` enter the error norms: all of them, except for
    LP_ROW, whose attitude row does not steer the step (so its (Gamma, omega) are those of LP to the bit)."""
    return 6 if model == LP_ROW else n


N_START_RHS = 2  # right-hand sides evaluated by initial_step


@njit(inner=True)
def initial_step(model, t, y, f0, p, rtol, atol, h_max, ytmp, f1):
    """The start of every adaptive loop: ``f0 = f(t, y)`` (the first stage, ``K[0]``), then Hairer's starting
    step-size heuristic for an 8th-order method (``N_START_RHS`` right-hand sides in all)."""
    rhs(model, t, y, p, f0)
    n = error_size(model, y.shape[0])
    d0 = _rms(y, y, rtol, atol, n)
    d1 = _rms(f0, y, rtol, atol, n)
    if d0 < 1e-5 or d1 < 1e-5:
        h0 = 1e-6
    else:
        h0 = 0.01 * d0 / d1
    h0 = min(h0, h_max)
    for i in range(y.shape[0]):
        ytmp[i] = y[i] + h0 * f0[i]
    rhs(model, t + h0, ytmp, p, f1)
    for i in range(y.shape[0]):
        f1[i] = f1[i] - f0[i]
    d2 = _rms(f1, y, rtol, atol, n) / h0
    if d1 <= 1e-15 and d2 <= 1e-15:
        h1 = max(1e-6, h0 * 1e-3)
    else:
        h1 = (0.01 / max(d1, d2)) ** (1.0 / 8.0)
    return min(100.0 * h0, h1, h_max)


@njit
def _all_finite(y):
    for i in range(y.shape[0]):
        if not np.isfinite(y[i]):
            return False
    return True


@njit(inner=True)
def clip_step(t, t_end, h, n_attempts, max_steps):
    """The checks every adaptive loop makes before an attempt: ``(h, status)`` with ``h`` clipped to end at
    ``t_end``; status ``MAX_STEPS`` or ``STEP_TOO_SMALL`` stops the loop.  Scalars only (free to inline)."""
    if n_attempts >= max_steps:
        return h, MAX_STEPS
    h = min(h, t_end - t)
    if h < 1e-14 * max(1.0, abs(t)):
        return h, STEP_TOO_SMALL
    return h, OK


@njit(inner=True)
def end_of_step(t, h, t_end):
    """``t + h``, made exactly ``t_end`` when within 1e-12 (relative) of it: the time after an accepted step of the
    loops that sample up to ``t_end``.  Scalars only."""
    t_new = t + h
    if t_end - t_new < 1e-12 * max(1.0, t_end):
        t_new = t_end
    return t_new


@njit(inner=True)
def control(err, h, t):
    """Hairer's step-size control from the error norm ``err`` of a trial step of size ``h`` at ``t``; shared by
    every adaptive loop.

    Returns ``(accepted, h_next, status)``: ``h_next`` is the proposed next step (after an accepted step) or
    the retry step (after a rejection); ``status`` is ``NON_FINITE`` when non-finite errors have shrunk the
    step below round-off, else ``OK``.  Scalars only, so inlining it costs nothing.
    """
    if not np.isfinite(err):
        h_next = h * MIN_FACTOR
        return False, h_next, NON_FINITE if h_next < 1e-14 * max(1.0, abs(t)) else OK
    if err <= 1.0:
        return True, h * (MAX_FACTOR if err == 0.0 else min(MAX_FACTOR, SAFETY * err ** ERR_EXP)), OK
    return False, h * max(MIN_FACTOR, SAFETY * err ** ERR_EXP), OK


@njit(inline="always")
def attempt(step_fn, model, t, t_end, y, h, p, K, y_new, ytmp, rtol, atol, n_acc, n_rej, max_steps, nfev):
    """One attempt of an adaptive step loop (every DOP853 loop: :func:`integrate_uniform`,
    ``section.crossings_one``, ``chaos.tangent_run``): ``h`` clipped to end at ``t_end`` (:func:`clip_step`), the
    trial step ``step_fn(model, t, y, h, p, K, y_new, ytmp, rtol, atol)`` (:func:`step` or one of its
    branches) and Hairer's control (:func:`control`).

    Returns ``(status, accepted, h, h_next, n_rej, nfev)``: a status other than ``OK`` stops the loop; ``h`` is the
    step tried (clipped), ``h_next`` the next one to try; a rejected or failed attempt counts in ``n_rej``, every
    trial step in ``nfev``.  Inlined at numba's IR level (like :func:`step`, whose call it holds): each loop
    compiles only the step it passes, so the tangent loop does not link the generated LP step.
    """
    h, status = clip_step(t, t_end, h, n_acc + n_rej, max_steps)
    if status != OK:
        return status, False, h, h, n_rej, nfev
    err = step_fn(model, t, y, h, p, K, y_new, ytmp, rtol, atol)
    accepted, h_next, status = control(err, h, t)
    if not accepted:
        n_rej += 1
    return status, accepted, h, h_next, n_rej, nfev + N_STAGES


@njit(inline="always")
def step_uniform(model, t, y, h, p, K, y_new, ytmp, rtol, atol):
    """:func:`step` of :func:`integrate_uniform`, which also takes the LP_ROW model (``simulate``) to its generated
    step (only there: the other step loops never carry the attitude row)."""
    if model == LP_ROW:
        return step_lp_row(y, h, p, K, y_new, rtol, atol)
    return step(model, t, y, h, p, K, y_new, ytmp, rtol, atol)


@njit(inner=True)
def advance(model, y, y_new, K):
    """Accept a step: ``y <- y_new`` and ``K[0] <- K[12]`` (first-same-as-last); a Lagrange-Routh state is
    put back on TS^2 (:func:`fields.project`)."""
    for i in range(y.shape[0]):
        y[i] = y_new[i]
        K[0, i] = K[N_STAGES, i]
    if model == LR or model == LR_REC:  # (guarded here: a call per step costs ~50 ns)
        project(model, y)
    return y.shape[0] + K.shape[0]  # reading the sizes lets numba drop the arrays' reference counting


@njit
def integrate_uniform(model, y0, t_final, n_out, p, rtol, atol, max_steps, Y):
    """Integrate ``y' = f(t, y)`` from 0 to ``t_final`` and write ``n_out`` evenly spaced samples into ``Y``.

    Returns ``stats = [n_accepted, n_rejected, n_rhs_evaluations, status, n_rows_written]``.
    """
    n = y0.shape[0]
    K = np.empty((N_STAGES_EXTENDED, n))
    F = np.empty((7, n))
    y = y0.copy()
    y_new = np.empty(n)
    ytmp = np.empty(n)
    f1 = np.empty(n)
    stats = np.zeros(5, dtype=np.int64)
    t = 0.0
    for i in range(n):
        Y[0, i] = y0[i]
    k_out = 1
    dt_out = t_final / (n_out - 1) if n_out > 1 else t_final
    h = initial_step(model, t, y, K[0], p, rtol, atol, t_final, ytmp, f1)
    nfev = N_START_RHS
    n_acc = 0
    n_rej = 0
    status = OK
    while t < t_final and k_out < n_out:
        status, accepted, h, h_next, n_rej, nfev = attempt(step_uniform, model, t, t_final, y, h, p, K, y_new, ytmp,
                                                           rtol, atol, n_acc, n_rej, max_steps, nfev)
        if status != OK:
            break
        if accepted:
            t_new = end_of_step(t, h, t_final)
            # samples inside (t, t_new]
            need_dense = False
            while k_out < n_out and k_out * dt_out <= t_new * (1.0 + 1e-15):
                if not need_dense:
                    dense_prepare(model, t, y, y_new, h, p, K, F, ytmp)
                    nfev += N_STAGES_EXTENDED - N_STAGES - 1
                    need_dense = True
                if k_out == n_out - 1 and t_new == t_final:
                    for i in range(n):
                        Y[k_out, i] = y_new[i]
                else:
                    dense_eval(F, y, (k_out * dt_out - t) / h, Y[k_out])
                k_out += 1
            t = t_new
            advance(model, y, y_new, K)
            n_acc += 1
        h = h_next
    stats[0], stats[1], stats[2], stats[3], stats[4] = n_acc, n_rej, nfev, status, k_out
    return stats


@njit
def integrate_fixed(model, y0, h, n_steps, p):
    """``n_steps`` DOP853 steps of fixed size ``h`` (no error control); returns the final state."""
    n = y0.shape[0]
    K = np.empty((N_STAGES_EXTENDED, n))
    y = y0.copy()
    y_new = np.empty(n)
    ytmp = np.empty(n)
    t = 0.0
    rhs(model, t, y, p, K[0])
    for _ in range(n_steps):
        step(model, t, y, h, p, K, y_new, ytmp, 1.0, 1.0)
        t += h
        for i in range(n):
            y[i] = y_new[i]
            K[0, i] = K[N_STAGES, i]
    return y
