"""The damped pendulum: Eqs (31)-(32) + (2) with a viscous torque ``-c omega`` at the pivot, integrated by DOP853.

OUTSIDE THE PAPER'S MODEL: the paper's pendulum is conservative.  With the damping torque the equations are::

    J omega' = J omega x omega + m g rho x Gamma - c omega,   Gamma' = Gamma x omega,   r' = r x omega

(``r = R^T e1``, the first row of R, as the LP_ROW model carries it), and the energy (Eq 34) decreases at the
rate ``dE/dt = -c omega^T omega``.  The state carries that dissipated work as a tenth component
``W' = c omega^T omega``, so that ``E + W`` is an invariant of the damped motion (the model layer checks its drift
as it checks E for the conservative runs).

State (10,): Gamma, omega, r, W.  Parameters: the vector ``p`` of :func:`.fields.pack_params` with ``c`` appended
(``p[N_PARAMS]``, :func:`damped_params`).

The stepper is the DOP853 of :mod:`.dop853` (its tableau tables, error-norm pieces, step-size control, dense
output evaluation and the attempt / advance helpers are reused); only the stage loop, the dense-output extension
and the starting step, which call the right-hand side, are written here (the shared ``rhs`` dispatches on the
model ids of :mod:`.fields`, which this module leaves alone).  The error norm is over (Gamma, omega) only, as for
LP_ROW: with ``c = 0`` the damped kernel takes the steps of the undamped one and returns its bits.
"""
import numpy as np

from .._jit import njit
from .dop853 import (C_STAGE, EXTRA_ROWS, N_START_RHS, STAGE_IDX, STAGE_RANGES, STAGE_VAL, STAGE_WIDTH, OK,
                     _combine, _rms, advance, attempt, dense_eval, end_of_step)
from .dop853_tableau import N_STAGES, N_STAGES_EXTENDED
from .fields import N_PARAMS, P_J, P_JINV, P_MGRHO, _cr, _mv

#: size of the damped state: Gamma, omega, r = R^T e1, dissipated work W
STATE_SIZE = 10
#: components that steer the step (Gamma, omega)
ERROR_SIZE = 6
#: index of the damping coefficient c in the parameter vector
P_DAMPING = N_PARAMS
#: the model id passed to the shared helpers (``advance``): none of the ids of :mod:`.fields`
DAMPED = np.int64(100)


def damped_params(p, c):
    """The damped kernel's parameters: ``p`` (:func:`.fields.pack_params`) with ``c`` appended."""
    out = np.empty(N_PARAMS + 1)
    out[:N_PARAMS] = p[:N_PARAMS]
    out[P_DAMPING] = c
    out.setflags(write=False)  # read-only like pendulum.params(): the shared helpers compile once
    return out


@njit(inner=True)
def rhs_damped(y, p, dy):
    """The damped equations (module docstring) at the state ``y`` (10,) into ``dy``."""
    G0, G1, G2 = y[0], y[1], y[2]
    w0, w1, w2 = y[3], y[4], y[5]
    c = p[P_DAMPING]
    dy[0], dy[1], dy[2] = _cr(G0, G1, G2, w0, w1, w2)  # Eq (32)
    Jw0, Jw1, Jw2 = _mv(p, P_J, w0, w1, w2)
    t0, t1, t2 = _cr(Jw0, Jw1, Jw2, w0, w1, w2)
    s0, s1, s2 = _cr(p[P_MGRHO], p[P_MGRHO + 1], p[P_MGRHO + 2], G0, G1, G2)
    # Eq (31) with the torque -c omega (c = 0: (t + s) - 0 is t + s to the bit)
    dy[3], dy[4], dy[5] = _mv(p, P_JINV, (t0 + s0) - c * w0, (t1 + s1) - c * w1, (t2 + s2) - c * w2)
    dy[6], dy[7], dy[8] = _cr(y[6], y[7], y[8], w0, w1, w2)  # r' = r x omega (Eq 2)
    dy[9] = c * (w0 * w0 + w1 * w1 + w2 * w2)  # the work of the damping torque, dissipated
    return 0


@njit(inner=True)
def _stages(y, h, p, K, s0, s1, ytmp, y_new):
    """:func:`.dop853._stages` with the damped right-hand side."""
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
        rhs_damped(ytmp, p, K[s])
    return 0


@njit
def step_damped(model, t, y, h, p, K, y_new, ytmp, rtol, atol):
    """One DOP853 trial step (the contract of :func:`.dop853.step`); error norm over (Gamma, omega)."""
    _stages(y, h, p, K, STAGE_RANGES[0, 0], STAGE_RANGES[0, 1], ytmp, y_new)
    n = ERROR_SIZE
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
def _dense_prepare(y, y_new, h, p, K, F, ytmp):
    """:func:`.dop853.dense_prepare` with the damped right-hand side."""
    n = y.shape[0]
    _stages(y, h, p, K, STAGE_RANGES[1, 0], STAGE_RANGES[1, 1], ytmp, ytmp)
    for i in range(n):
        dlt = y_new[i] - y[i]
        F[0, i] = dlt
        F[1, i] = h * K[0, i] - dlt
        F[2, i] = 2.0 * dlt - h * (K[N_STAGES, i] + K[0, i])
    for r in range(4):
        for i in range(n):
            F[3 + r, i] = h * _combine(EXTRA_ROWS[2] + r, K, i)


@njit(inner=True)
def _initial_step(y, f0, p, rtol, atol, h_max, ytmp, f1):
    """:func:`.dop853.initial_step` with the damped right-hand side."""
    rhs_damped(y, p, f0)
    n = min(ERROR_SIZE, y.shape[0])  # not a literal: _rms keeps the one signature the undamped kernels use
    d0 = _rms(y, y, rtol, atol, n)
    d1 = _rms(f0, y, rtol, atol, n)
    h0 = 1e-6 if (d0 < 1e-5 or d1 < 1e-5) else 0.01 * d0 / d1
    h0 = min(h0, h_max)
    for i in range(y.shape[0]):
        ytmp[i] = y[i] + h0 * f0[i]
    rhs_damped(ytmp, p, f1)
    for i in range(y.shape[0]):
        f1[i] = f1[i] - f0[i]
    d2 = _rms(f1, y, rtol, atol, n) / h0
    if d1 <= 1e-15 and d2 <= 1e-15:
        h1 = max(1e-6, h0 * 1e-3)
    else:
        h1 = (0.01 / max(d1, d2)) ** (1.0 / 8.0)
    return min(100.0 * h0, h1, h_max)


@njit
def integrate_uniform_damped(y0, t_final, n_out, p, rtol, atol, max_steps, Y):
    """:func:`.dop853.integrate_uniform` of the damped model: ``n_out`` evenly spaced samples of the state (10,)
    into ``Y``; returns ``[n_accepted, n_rejected, n_rhs_evaluations, status, n_rows_written]``."""
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
    h = _initial_step(y, K[0], p, rtol, atol, t_final, ytmp, f1)
    nfev = N_START_RHS
    n_acc = 0
    n_rej = 0
    status = OK
    while t < t_final and k_out < n_out:
        status, accepted, h, h_next, n_rej, nfev = attempt(step_damped, DAMPED, t, t_final, y, h, p, K, y_new, ytmp,
                                                           rtol, atol, n_acc, n_rej, max_steps, nfev)
        if status != OK:
            break
        if accepted:
            t_new = end_of_step(t, h, t_final)
            need_dense = False
            while k_out < n_out and k_out * dt_out <= t_new * (1.0 + 1e-15):
                if not need_dense:
                    _dense_prepare(y, y_new, h, p, K, F, ytmp)
                    nfev += N_STAGES_EXTENDED - N_STAGES - 1
                    need_dense = True
                if k_out == n_out - 1 and t_new == t_final:
                    for i in range(n):
                        Y[k_out, i] = y_new[i]
                else:
                    dense_eval(F, y, (k_out * dt_out - t) / h, Y[k_out])
                k_out += 1
            t = t_new
            advance(DAMPED, y, y_new, K)
            n_acc += 1
        h = h_next
    stats[0], stats[1], stats[2], stats[3], stats[4] = n_acc, n_rej, nfev, status, k_out
    return stats
