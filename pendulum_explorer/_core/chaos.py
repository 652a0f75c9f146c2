"""Chaos indicators: MEGNO and the largest Lyapunov exponent from the tangent dynamics (model ``LP_TAN``),
and Benettin's two-trajectory estimate."""
import numpy as np

from .._jit import njit
from .dop853 import (N_STAGES, N_STAGES_EXTENDED, N_START_RHS, OK, advance, attempt, dense_eval, dense_prepare,
                     end_of_step, initial_step, integrate_uniform, step_generic)
from .fields import LP_TAN, _mv, rhs
from .section import C_NEW, C_PAUSED, N_CTL, PAUSED, pause_load, pause_save  # a paused loop and its saved state


@njit
def lyapunov_benettin(model, ya, yb, d0, p, tau, k0, k1, rtol, atol, max_steps, acc, out):
    """Segments ``k0 .. k1 - 1`` of the largest Lyapunov exponent of ``y' = f(y)`` (Benettin).

    A shadow trajectory ``yb`` accompanies ``ya`` at distance ``d0`` (it starts at ``y0 + dy0``,
    ``|dy0| = d0``); every ``tau`` the separation ``d`` is measured, ``log(d / d0)`` accumulated in ``acc[0]``
    and the shadow pulled back to distance ``d0`` along the same direction.  ``out[k]`` receives the running
    estimate after ``k + 1`` segments.  ``ya``, ``yb`` and ``acc`` are updated in place, so consecutive calls
    over ``0 .. k1``, ``k1 .. k2``, ... give the bits of one call over all segments (the model layer calls it in
    pieces: Ctrl-C).  Returns a status: 0 = ok, otherwise the integrator's status code (see :mod:`.dop853`).
    """
    n = ya.shape[0]
    Y = np.empty((2, n))  # (Y.shape[0] below, not a literal 2: a literal would compile a second copy)
    a = acc[0]
    for k in range(k0, k1):
        for j in range(2):  # ya, then yb: one call site (each call site links the kernel's code once more)
            st = integrate_uniform(model, ya if j == 0 else yb, tau, Y.shape[0], p, rtol, atol, max_steps, Y)
            if st[3] != 0:
                return st[3]
            if j == 0:
                for i in range(n):
                    ya[i] = Y[1, i]
        d = 0.0
        for i in range(n):
            d += (Y[1, i] - ya[i]) ** 2
        d = np.sqrt(d)
        a += np.log(d / d0)
        acc[0] = a
        for i in range(n):
            yb[i] = ya[i] + (Y[1, i] - ya[i]) * (d0 / d)
        out[k] = a / ((k + 1) * tau)
    return 0


# ------------------------------------------------------------------------------------------------
# tangent dynamics: MEGNO and the largest Lyapunov exponent from one deviation vector
# ------------------------------------------------------------------------------------------------
RENORM = 1e4  # the deviation is rescaled to norm 1 when its norm leaves [1 / RENORM, RENORM]
N_TAN_INFO = 4  # status, n_accepted, n_rejected, n_rhs
# the model id read from an array: a global integer constant in a call would compile a second, literal copy of
# every DOP853 kernel (see tests/test_jit.py)
_TAN_MODEL = np.array([LP_TAN], dtype=np.int64)


@njit(inner=True)
def project_to_level(y, o, p, U):
    """Remove from the deviation ``y[o:o+6]`` its components across the level set of the first integrals of
    Eqs (31)-(32): |Gamma|^2, E (Eq 34) and mu (Eq 56).  It is projected orthogonally (in R^6) onto the common
    kernel of their gradients ``(Gamma, 0)``, ``(-m g rho, J omega)`` and ``(J omega, J Gamma)``, orthonormalised
    by Gram-Schmidt in ``U`` (3 x 6 work array).  Dependent gradients (at equilibria) are skipped.

    The linearised flow keeps ``grad I . delta`` constant for each first integral I, so a deviation that starts
    tangent to the level stays tangent; the projection removes the round-off that would seed a shear across
    neighbouring levels.
    """
    G0, G1, G2 = y[0], y[1], y[2]
    JG0, JG1, JG2 = _mv(p, 0, G0, G1, G2)
    Jw0, Jw1, Jw2 = _mv(p, 0, y[3], y[4], y[5])
    U[0, 0] = G0
    U[0, 1] = G1
    U[0, 2] = G2
    U[0, 3] = 0.0
    U[0, 4] = 0.0
    U[0, 5] = 0.0
    U[1, 0] = -p[18]
    U[1, 1] = -p[19]
    U[1, 2] = -p[20]
    U[1, 3] = Jw0
    U[1, 4] = Jw1
    U[1, 5] = Jw2
    U[2, 0] = Jw0
    U[2, 1] = Jw1
    U[2, 2] = Jw2
    U[2, 3] = JG0
    U[2, 4] = JG1
    U[2, 5] = JG2
    for a in range(3):
        n0 = 0.0
        for i in range(6):
            n0 += U[a, i] * U[a, i]
        for b in range(a):
            c = 0.0
            for i in range(6):
                c += U[a, i] * U[b, i]
            for i in range(6):
                U[a, i] -= c * U[b, i]
        n1 = 0.0
        for i in range(6):
            n1 += U[a, i] * U[a, i]
        if n1 <= 1e-20 * n0 or n1 == 0.0:
            for i in range(6):
                U[a, i] = 0.0
            continue
        n1 = np.sqrt(n1)
        for i in range(6):
            U[a, i] /= n1
    for a in range(3):
        c = 0.0
        for i in range(6):
            c += U[a, i] * y[o + i]
        for i in range(6):
            y[o + i] -= c * U[a, i]


@njit(inner=True)
def _dev_norm(y):
    s = 0.0
    for i in range(6, 12):
        s += y[i] * y[i]
    return np.sqrt(s)


@njit
def initial_deviation(y, p, keep_tangent, U):
    """The first deviation ``y[6:12]``: tangent to the sphere in Gamma (``Gamma x a``), generic in omega, projected
    onto the level (:func:`project_to_level`) when ``keep_tangent``, normalised to 1.  MEGNO integrals zeroed."""
    G0, G1, G2 = y[0], y[1], y[2]
    t0 = G1 * 0.5 + G2 * 0.7
    t1 = G2 * 0.3 - G0 * 0.5
    t2 = -G0 * 0.7 - G1 * 0.3  # Gamma x (0.3, -0.7, 0.5)
    tn = np.sqrt(t0 * t0 + t1 * t1 + t2 * t2)
    if tn < 1e-6:
        t0, t1, t2 = 0.0, G2, -G1  # Gamma x e1
        tn = np.sqrt(t1 * t1 + t2 * t2)
    y[6] = t0 / tn
    y[7] = t1 / tn
    y[8] = t2 / tn
    y[9] = 0.6
    y[10] = -0.3
    y[11] = 0.7
    if keep_tangent:
        project_to_level(y, 6, p, U)
    d = _dev_norm(y)
    for i in range(6, 12):
        y[i] /= d
    n = y.shape[0]
    y[n - 2] = 0.0
    y[n - 1] = 0.0


@njit(nogil=True)
def tangent_run(y0, p, t_total, n_out, rtol, atol, max_steps, keep_tangent, ybar, lyap, info, ctl, pause_steps):
    """Integrate the LP_TAN state ``y0`` (one deviation vector, already set) from 0 to ``t_total``.

    At the times ``t_j = (j + 1) t_total / n_out`` it writes the mean MEGNO ``ybar[j] = I2(t_j) / t_j`` and the
    largest-Lyapunov estimate ``lyap[j] = log |delta(t_j)| / t_j`` (|delta(0)| = 1).  After an accepted step the
    deviation is rescaled to norm 1 when its norm leaves [1/RENORM, RENORM] (the logarithm is accumulated), and
    projected onto the level first when ``keep_tangent``; FSAL's derivative is then re-evaluated.
    ``info = [status, n_accepted, n_rejected, n_rhs]``; status as in :mod:`.dop853`.  Allocates once.

    Resumable like :func:`.section.crossings_one`: after ``pause_steps`` more steps it returns ``PAUSED`` with its
    state in ``ctl`` (``N_CTL`` + 2 dim floats, zero before the first call); called again with the same ``ctl``
    it continues bit for bit.
    """
    model = _TAN_MODEL[0]
    n = y0.shape[0]
    K = np.empty((N_STAGES_EXTENDED, n))
    F = np.empty((7, n))
    y = np.empty(n)
    y_new = np.empty(n)
    ytmp = np.empty(n)
    yd = np.empty(n)
    f1 = np.empty(n)
    U = np.empty((3, 6))
    dt_out = t_total / n_out
    if ctl[0] == C_PAUSED:
        t, h, acc, k_out_f, n_acc, n_rej, nfev, _ = pause_load(ctl, y, K[0], n)
        k_out = int(k_out_f)
    else:
        for i in range(n):
            y[i] = y0[i]
        t = 0.0
        acc = 0.0
        k_out = 0
        h = initial_step(model, t, y, K[0], p, rtol, atol, t_total, ytmp, f1)
        nfev = N_START_RHS
        n_acc = 0
        n_rej = 0
    status = OK
    stop = n_acc + n_rej + pause_steps
    while k_out < n_out:
        if n_acc + n_rej >= stop:
            status = PAUSED
            break
        status, accepted, h, h_next, n_rej, nfev = attempt(step_generic, model, t, t_total, y, h, p, K, y_new, ytmp,
                                                           rtol, atol, n_acc, n_rej, max_steps, nfev)  # no LP step
        if status != OK:
            break
        if accepted:
            t_new = end_of_step(t, h, t_total)
            need_dense = False
            while k_out < n_out and (k_out + 1) * dt_out <= t_new * (1.0 + 1e-15):
                ts = (k_out + 1) * dt_out
                if k_out == n_out - 1 and t_new == t_total:
                    for i in range(n):
                        yd[i] = y_new[i]
                    ts = t_total
                else:
                    if not need_dense:
                        dense_prepare(model, t, y, y_new, h, p, K, F, ytmp)
                        nfev += N_STAGES_EXTENDED - N_STAGES - 1
                        need_dense = True
                    dense_eval(F, y, (ts - t) / h, yd)
                ybar[k_out] = yd[n - 1] / ts
                lyap[k_out] = (acc + np.log(_dev_norm(yd))) / ts
                k_out += 1
            t = t_new
            advance(model, y, y_new, K)
            n_acc += 1
            d = _dev_norm(y)
            if not np.isfinite(d) or not np.isfinite(y[n - 1]):
                status = 3  # NON_FINITE
                break
            if d > RENORM or d < 1.0 / RENORM:
                if keep_tangent:
                    project_to_level(y, 6, p, U)
                    d = _dev_norm(y)
                acc += np.log(d)
                for i in range(6, 12):
                    y[i] /= d
                rhs(model, t, y, p, K[0])
                nfev += 1
        h = h_next
    info[0], info[1], info[2], info[3] = status, n_acc, n_rej, nfev
    pause_save(ctl, status, t, h, acc, float(k_out), n_acc, n_rej, nfev, np.int64(0), y, K[0], n)
    return status


def tangent_many(Y0, p, t_total, rtol, atol, max_steps, keep_tangent, ybar, lyap, info):
    """MEGNO and Lyapunov estimate at ``t_total`` for each LP state (Gamma, omega) in the rows of ``Y0`` (m x 6),
    one after the other.  Rows whose first entry is NaN are skipped (their outputs NaN, status 0).  ``info`` is
    (m x N_TAN_INFO).  Plain Python around the compiled :func:`tangent_run`, which releases the GIL (the model
    layer runs chunks in threads); a compiled loop here would compile the whole tangent integration again."""
    y = np.empty(14)
    U = np.empty((3, 6))
    yb = np.empty(1)
    ly = np.empty(1)
    ctl = np.zeros(N_CTL + 2 * y.shape[0])
    for k in range(Y0.shape[0]):
        if not np.isfinite(Y0[k, 0]):
            ybar[k] = np.nan
            lyap[k] = np.nan
            info[k] = 0
            continue
        y[:6] = Y0[k]
        initial_deviation(y, p, keep_tangent, U)
        ctl[0] = C_NEW
        tangent_run(y, p, t_total, yb.shape[0], rtol, atol, max_steps, keep_tangent, yb, ly, info[k], ctl,
                    max_steps + 1)
        ybar[k] = yb[0]
        lyap[k] = ly[0]
