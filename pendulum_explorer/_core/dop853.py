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
from .fields import LR, LR_REC, _rhs, project, rhs  # noqa: F401  (rhs re-exported for callers)

SAFETY = 0.9
MIN_FACTOR = 0.2
MAX_FACTOR = 10.0
ERR_EXP = -1.0 / 8.0

# status codes returned by the integration kernels
OK = 0
MAX_STEPS = 1
STEP_TOO_SMALL = 2
NON_FINITE = 3


# The tableau entries as module-level float constants (numba freezes global scalars into the machine code),
# named _A{s}_{j}, _B{j}, _E5_{j}, _E3_{j}, _D{r}_{j}; only the nonzero ones are used below.  The stage sums
# are unrolled with the tableau's sparsity and keep the summation order of the plain loop
# ``acc = 0; for j: acc += A[s, j] * K[j, i]``, so results are bit-for-bit those of the loop version.
def _define_constants():
    g = globals()
    for s in range(N_STAGES_EXTENDED):
        for j in range(s):
            g[f"_A{s}_{j}"] = float(A[s, j])
    for j in range(N_STAGES):
        g[f"_B{j}"] = float(B[j])
    for j in range(N_STAGES + 1):
        g[f"_E5_{j}"] = float(E5[j])
        g[f"_E3_{j}"] = float(E3[j])
    for r in range(4):
        for j in range(N_STAGES_EXTENDED):
            g[f"_D{r}_{j}"] = float(D[r, j])


_define_constants()


@njit(inline="always")
def _stages(model, t, y, h, p, K, s0, s1, ytmp, y_new):
    """Fill K[s0:s1] with the Runge-Kutta stages (K[0:s0] already known), 1 <= s0 < s1 <= 16.

    Stage 12 is the first-same-as-last stage: its argument is the 8th-order solution, which is also
    written to ``y_new`` (A[12] is the B row), and ``K[12] = f(t + h, y_new)``.

    Inlined into its callers, together with the right-hand side, so that the step loop makes no calls.
    """
    n = y.shape[0]
    for s in range(s0, s1):
        if s == 1:
            for i in range(n):
                ytmp[i] = y[i] + h * (_A1_0 * K[0, i])
        elif s == 2:
            for i in range(n):
                ytmp[i] = y[i] + h * (_A2_0 * K[0, i] + _A2_1 * K[1, i])
        elif s == 3:
            for i in range(n):
                ytmp[i] = y[i] + h * (_A3_0 * K[0, i] + _A3_2 * K[2, i])
        elif s == 4:
            for i in range(n):
                ytmp[i] = y[i] + h * (_A4_0 * K[0, i] + _A4_2 * K[2, i] + _A4_3 * K[3, i])
        elif s == 5:
            for i in range(n):
                ytmp[i] = y[i] + h * (_A5_0 * K[0, i] + _A5_3 * K[3, i] + _A5_4 * K[4, i])
        elif s == 6:
            for i in range(n):
                ytmp[i] = y[i] + h * (_A6_0 * K[0, i] + _A6_3 * K[3, i] + _A6_4 * K[4, i] + _A6_5 * K[5, i])
        elif s == 7:
            for i in range(n):
                ytmp[i] = y[i] + h * (_A7_0 * K[0, i] + _A7_3 * K[3, i] + _A7_4 * K[4, i] + _A7_5 * K[5, i] + _A7_6 * K[6, i])
        elif s == 8:
            for i in range(n):
                ytmp[i] = y[i] + h * (_A8_0 * K[0, i] + _A8_3 * K[3, i] + _A8_4 * K[4, i] + _A8_5 * K[5, i] + _A8_6 * K[6, i] + _A8_7 * K[7, i])
        elif s == 9:
            for i in range(n):
                ytmp[i] = y[i] + h * (_A9_0 * K[0, i] + _A9_3 * K[3, i] + _A9_4 * K[4, i] + _A9_5 * K[5, i] + _A9_6 * K[6, i] + _A9_7 * K[7, i] + _A9_8 * K[8, i])
        elif s == 10:
            for i in range(n):
                ytmp[i] = y[i] + h * (_A10_0 * K[0, i] + _A10_3 * K[3, i] + _A10_4 * K[4, i] + _A10_5 * K[5, i] + _A10_6 * K[6, i] + _A10_7 * K[7, i] + _A10_8 * K[8, i] + _A10_9 * K[9, i])
        elif s == 11:
            for i in range(n):
                ytmp[i] = y[i] + h * (_A11_0 * K[0, i] + _A11_3 * K[3, i] + _A11_4 * K[4, i] + _A11_5 * K[5, i] + _A11_6 * K[6, i] + _A11_7 * K[7, i] + _A11_8 * K[8, i] + _A11_9 * K[9, i] + _A11_10 * K[10, i])
        elif s == 12:
            for i in range(n):
                yn = y[i] + h * (_B0 * K[0, i] + _B5 * K[5, i] + _B6 * K[6, i] + _B7 * K[7, i] + _B8 * K[8, i] + _B9 * K[9, i] + _B10 * K[10, i] + _B11 * K[11, i])
                ytmp[i] = yn
                y_new[i] = yn
        elif s == 13:  # the dense-output stages 13-15 (K[12] is the FSAL stage f(t + h, y_new))
            for i in range(n):
                ytmp[i] = y[i] + h * (_A13_0 * K[0, i] + _A13_6 * K[6, i] + _A13_7 * K[7, i] + _A13_8 * K[8, i] + _A13_9 * K[9, i] + _A13_10 * K[10, i] + _A13_11 * K[11, i] + _A13_12 * K[12, i])
        elif s == 14:
            for i in range(n):
                ytmp[i] = y[i] + h * (_A14_0 * K[0, i] + _A14_5 * K[5, i] + _A14_6 * K[6, i] + _A14_7 * K[7, i] + _A14_10 * K[10, i] + _A14_11 * K[11, i] + _A14_12 * K[12, i] + _A14_13 * K[13, i])
        elif s == 15:
            for i in range(n):
                ytmp[i] = y[i] + h * (_A15_0 * K[0, i] + _A15_5 * K[5, i] + _A15_6 * K[6, i] + _A15_7 * K[7, i] + _A15_8 * K[8, i] + _A15_12 * K[12, i] + _A15_13 * K[13, i] + _A15_14 * K[14, i])
        _rhs(model, t + C[s] * h, ytmp, p, K[s])
    # (unconditional last use of the arrays: lets numba prune the refcounts of the inlined arguments)
    return y.shape[0] + K.shape[0] + ytmp.shape[0] + y_new.shape[0] + p.shape[0]


@njit(inline="always")
def _step(model, t, y, h, p, K, y_new, ytmp, rtol, atol):
    n = y.shape[0]
    _stages(model, t, y, h, p, K, 1, N_STAGES + 1, ytmp, y_new)
    err5 = 0.0
    err3 = 0.0
    for i in range(n):
        sc = atol + rtol * max(abs(y[i]), abs(y_new[i]))
        e5 = (_E5_0 * K[0, i] + _E5_5 * K[5, i] + _E5_6 * K[6, i] + _E5_7 * K[7, i] + _E5_8 * K[8, i] + _E5_9 * K[9, i] + _E5_10 * K[10, i] + _E5_11 * K[11, i]) / sc
        e3 = (_E3_0 * K[0, i] + _E3_5 * K[5, i] + _E3_6 * K[6, i] + _E3_7 * K[7, i] + _E3_8 * K[8, i] + _E3_9 * K[9, i] + _E3_10 * K[10, i] + _E3_11 * K[11, i]) / sc
        err5 += e5 * e5
        err3 += e3 * e3
    if err5 == 0.0 and err3 == 0.0:
        return 0.0
    denom = err5 + 0.01 * err3
    return abs(h) * err5 / np.sqrt(denom * n)


@njit
def step(model, t, y, h, p, K, y_new, ytmp, rtol, atol):
    """One DOP853 trial step of size ``h`` from ``(t, y)``; ``K[0]`` must hold ``f(t, y)``.

    On return ``y_new`` is the 8th-order solution, ``K[12] = f(t + h, y_new)`` (first-same-as-last), and
    the returned value is the scaled error norm of Hairer's estimator.
    """
    return _step(model, t, y, h, p, K, y_new, ytmp, rtol, atol)


@njit
def dense_prepare(model, t, y, y_new, h, p, K, F, ytmp):
    """Interpolation coefficients ``F`` (7 x n) of the accepted step ``t -> t + h``."""
    n = y.shape[0]
    _stages(model, t, y, h, p, K, N_STAGES + 1, N_STAGES_EXTENDED, ytmp, ytmp)
    for i in range(n):
        dlt = y_new[i] - y[i]
        F[0, i] = dlt
        F[1, i] = h * K[0, i] - dlt
        F[2, i] = 2.0 * dlt - h * (K[N_STAGES, i] + K[0, i])
    for i in range(n):
        F[3, i] = h * (_D0_0 * K[0, i] + _D0_5 * K[5, i] + _D0_6 * K[6, i] + _D0_7 * K[7, i] + _D0_8 * K[8, i] + _D0_9 * K[9, i] + _D0_10 * K[10, i] + _D0_11 * K[11, i] + _D0_12 * K[12, i] + _D0_13 * K[13, i] + _D0_14 * K[14, i] + _D0_15 * K[15, i])
        F[4, i] = h * (_D1_0 * K[0, i] + _D1_5 * K[5, i] + _D1_6 * K[6, i] + _D1_7 * K[7, i] + _D1_8 * K[8, i] + _D1_9 * K[9, i] + _D1_10 * K[10, i] + _D1_11 * K[11, i] + _D1_12 * K[12, i] + _D1_13 * K[13, i] + _D1_14 * K[14, i] + _D1_15 * K[15, i])
        F[5, i] = h * (_D2_0 * K[0, i] + _D2_5 * K[5, i] + _D2_6 * K[6, i] + _D2_7 * K[7, i] + _D2_8 * K[8, i] + _D2_9 * K[9, i] + _D2_10 * K[10, i] + _D2_11 * K[11, i] + _D2_12 * K[12, i] + _D2_13 * K[13, i] + _D2_14 * K[14, i] + _D2_15 * K[15, i])
        F[6, i] = h * (_D3_0 * K[0, i] + _D3_5 * K[5, i] + _D3_6 * K[6, i] + _D3_7 * K[7, i] + _D3_8 * K[8, i] + _D3_9 * K[9, i] + _D3_10 * K[10, i] + _D3_11 * K[11, i] + _D3_12 * K[12, i] + _D3_13 * K[13, i] + _D3_14 * K[14, i] + _D3_15 * K[15, i])


@njit
def dense_eval(F, y_old, x, out):
    """Evaluate the 7th-order interpolant at ``t_old + x h`` (Hairer's CONTD8 nesting)."""
    n = y_old.shape[0]
    x1 = 1.0 - x
    for i in range(n):
        v = F[6, i] * x + F[5, i]
        v = v * x1 + F[4, i]
        v = v * x + F[3, i]
        v = v * x1 + F[2, i]
        v = v * x + F[1, i]
        v = v * x1 + F[0, i]
        out[i] = y_old[i] + v * x


@njit
def _rms(v, y, rtol, atol):
    s = 0.0
    for i in range(v.shape[0]):
        q = v[i] / (atol + rtol * abs(y[i]))
        s += q * q
    return np.sqrt(s / v.shape[0])


@njit
def initial_step(model, t, y, f0, p, rtol, atol, h_max, ytmp, f1):
    """Hairer's starting step-size heuristic for an 8th-order method."""
    d0 = _rms(y, y, rtol, atol)
    d1 = _rms(f0, y, rtol, atol)
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
    d2 = _rms(f1, y, rtol, atol) / h0
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


@njit(inline="always")
def clip_step(t, t_end, h, n_attempts, max_steps):
    """The checks every adaptive loop makes before an attempt: ``(h, status)`` with ``h`` clipped to end at
    ``t_end``; status ``MAX_STEPS`` or ``STEP_TOO_SMALL`` stops the loop.  Scalars only (free to inline)."""
    if n_attempts >= max_steps:
        return h, MAX_STEPS
    h = min(h, t_end - t)
    if h < 1e-14 * max(1.0, abs(t)):
        return h, STEP_TOO_SMALL
    return h, OK


@njit(inline="always")
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
    Y[0, :] = y0
    k_out = 1
    dt_out = t_final / (n_out - 1) if n_out > 1 else t_final
    rhs(model, t, y, p, K[0])
    nfev = 1
    h = initial_step(model, t, y, K[0], p, rtol, atol, t_final, ytmp, f1)
    nfev += 1
    n_acc = 0
    n_rej = 0
    status = OK
    while t < t_final and k_out < n_out:
        h, status = clip_step(t, t_final, h, n_acc + n_rej, max_steps)
        if status != OK:
            break
        err = step(model, t, y, h, p, K, y_new, ytmp, rtol, atol)
        accepted, h_next, st = control(err, h, t)
        nfev += N_STAGES
        if st != OK:
            n_rej += 1
            status = st
            break
        if accepted:
            t_new = t + h
            if t_final - t_new < 1e-12 * max(1.0, t_final):
                t_new = t_final
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
        else:
            n_rej += 1
        h = h_next
    stats[0] = n_acc
    stats[1] = n_rej
    stats[2] = nfev
    stats[3] = status
    stats[4] = k_out
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
