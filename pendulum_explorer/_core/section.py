"""Poincaré-section kernels (Sec. 5.6): crossings of the section

    P = {(Gamma, Gammadot) : e3^T Gammadot = 0,  e3^T (Gamma x Gammadot) > 0,  E = const}

located with DOP853 dense output and polished by exact steps.

Model
-----
The kernels take a model id: ``LP`` (state ``[Gamma, omega]``, Eqs 31-32, with ``Gammadot = Gamma x omega``)
or ``LR`` (state ``[Gamma, Gammadot]``, Eq 62, mu = p[21] a parameter).  The model layer uses **LP**:
the constraints of the LR equations (|Gamma| = 1, Gamma . Gammadot = 0) are invariant but not attracting,
and in the chaotic regime their round-off drift grows exponentially (measured for Fig. 2 at E = 0,
rtol = 1e-12: | |Gamma| - 1 | reached 0.6 within 1000 crossings, the energy was lost), whereas in LP
|Gamma| is a first integral of Gamma' = Gamma x omega and drifts only linearly (2e-10 over the same
1000 crossings, with E and mu conserved to ~1e-10).  LP is also cheaper per right-hand side.

In both models the section function and its orientation are

    g(y) = e3^T Gammadot,     s(y) = e3^T (Gamma x Gammadot)  (> 0 on P),

i.e. ``g = y[5]`` (LR) or ``g = (Gamma x omega)_3`` (LP).

Event location
--------------
After every accepted step ``t -> t + h`` the sign of ``g`` at both ends is compared.  On a sign change the
7th-order interpolant of the step is searched for the root of ``g`` by the Illinois variant of regula
falsi (to ~1 ulp in the step fraction); if ``s > 0`` there, the point is *polished*: an exact DOP853 step
of size ``x* h`` from the start of the step, followed by up to three Newton corrections of the step size
with ``g' = d/dt g`` from the FSAL stage.  The polished state is returned when ``|g| <= G_POLISH``
(1e-12), otherwise the interpolated state (``|g|`` ~ 1 ulp).  The main integration always continues
from the end of the accepted step, so locating a crossing never perturbs the trajectory.

All work arrays are allocated once per trajectory, outside the step loop.

The loop (:func:`crossings_one`) is the compiled kernel; the entry points that run it for a list of seeds
(:func:`crossings_serial`) or on the tangent model (:func:`crossings_tangent`) are plain Python around it.

Status codes (per trajectory): ``OK`` (all n crossings found), ``MAX_STEPS``, ``STEP_TOO_SMALL``,
``NON_FINITE`` (as in :mod:`dop853`), ``MAX_TIME`` (``t_max`` reached) and ``NO_CROSSING`` (no crossing
for longer than ``max_gap``: trapped near a pole, on a relative equilibrium or at rest).
"""
import numpy as np

from .._jit import njit
from .dop853 import (MAX_STEPS, N_START_RHS, NON_FINITE, OK, STEP_TOO_SMALL, advance, attempt,  # noqa: F401
                     dense_eval, dense_eval_range, dense_prepare, initial_step, step)
from .dop853_tableau import N_STAGES, N_STAGES_EXTENDED
from .fields import LP, LP_TAN, LR, P_MU, _energy, _mv, lr_omega, rhs

from .status import MAX_TIME, N_INFO, NO_CROSSING, PAUSED  # noqa: E402,F401  (declared once)

G_POLISH = 1e-12
#: the state a paused crossing loop keeps between calls (``ctl``): phase, t, h, t_last, g_old, n_accepted,
#: n_rejected, n_rhs, n_found, then the state y and (DOP853) its derivative K[0]
N_CTL = 9
C_NEW = 0.0
C_PAUSED = 1.0
C_DONE = 2.0


@njit(inner=True)
def pause_save(ctl, status, t, h, a3, a4, n_acc, n_rej, nfev, found, y, K0, n):
    """At the end of a call of a pausable loop: keep its state in ``ctl`` (layout :data:`N_CTL`: the phase,
    t, h, two loop-specific values, the counters, then y[:n] and K0) if it paused, else mark it done."""
    if status != PAUSED:
        ctl[0] = C_DONE
        return
    ctl[0], ctl[1], ctl[2], ctl[3], ctl[4], ctl[5], ctl[6], ctl[7], ctl[8] = (C_PAUSED, t, h, a3, a4, n_acc, n_rej,
                                                                              nfev, found)
    for i in range(n):
        ctl[N_CTL + i] = y[i]
    for i in range(K0.shape[0]):
        ctl[N_CTL + n + i] = K0[i]


@njit(inner=True)
def pause_load(ctl, y, K0, n):
    """The state :func:`pause_save` kept: y[:n] and K0 filled in place; returns
    ``(t, h, a3, a4, n_acc, n_rej, nfev, found)``."""
    for i in range(n):
        y[i] = ctl[N_CTL + i]
    for i in range(K0.shape[0]):
        K0[i] = ctl[N_CTL + n + i]
    return ctl[1], ctl[2], ctl[3], ctl[4], int(ctl[5]), int(ctl[6]), int(ctl[7]), int(ctl[8])


@njit(inner=True)
def loop_guard(n_done, stop, t, t_max, t_last, max_gap):
    """Why a crossing loop (this module's and ``taylor.crossings_one_taylor``) stops before its next step:
    ``PAUSED`` (``stop`` steps done in this call), ``MAX_TIME``, ``NO_CROSSING`` (``max_gap`` without a
    crossing), or ``OK`` to go on.  Scalars only."""
    if n_done >= stop:
        return PAUSED
    if t >= t_max:
        return MAX_TIME
    if t - t_last > max_gap:
        return NO_CROSSING
    return OK


# ------------------------------------------------------------------------------------------------
# section function and its orientation
# ------------------------------------------------------------------------------------------------
@njit(inner=True)
def _g(model, y):
    """e3^T Gammadot."""
    if model == LR:
        return y[5]
    return y[0] * y[4] - y[1] * y[3]  # (Gamma x omega)_3


@njit(inner=True)
def _gdot(model, y, f):
    """d/dt e3^T Gammadot from the state and its derivative ``f``."""
    if model == LR:
        return f[5]
    return f[0] * y[4] + y[0] * f[4] - f[1] * y[3] - y[1] * f[3]


@njit(inner=True)
def _side(model, y):
    """e3^T (Gamma x Gammadot)."""
    if model == LR:
        return y[0] * y[4] - y[1] * y[3]
    # Gamma x (Gamma x omega) = Gamma (Gamma.omega) - omega |Gamma|^2
    gw = y[0] * y[3] + y[1] * y[4] + y[2] * y[5]
    gg = y[0] * y[0] + y[1] * y[1] + y[2] * y[2]
    return y[2] * gw - y[5] * gg


@njit(inner=True)
def _dense_g(model, F, y_old, x, out):
    """g of the interpolant at fraction x (evaluates only the components g needs)."""
    if model == LR:
        lo = 5
        hi = 6
    else:
        lo = 0
        hi = 5
    dense_eval_range(F, y_old, x, out, lo, hi)
    return _g(model, out)


@njit(inner=True)
def _illinois(model, F, y_old, g0, g1, yc):
    """Root in (0, 1] of g on the interpolant, g0 = g(0), g1 = g(1) of opposite signs (or g1 == 0)."""
    if g1 == 0.0:
        return 1.0
    a = 0.0
    b = 1.0
    fa = g0
    fb = g1
    side = 0
    x = 1.0
    for _ in range(60):
        x = (a * fb - b * fa) / (fb - fa)
        if not (x > a and x < b):
            x = 0.5 * (a + b)
        fx = _dense_g(model, F, y_old, x, yc)
        if fx == 0.0:
            return x
        if (fx > 0.0) == (fb > 0.0):
            b = x
            fb = fx
            if side == 1:
                fa *= 0.5
            side = 1
        else:
            a = x
            fa = fx
            if side == -1:
                fb *= 0.5
            side = -1
        if b - a <= 4e-16 * b:
            break
    # return the end with the smaller residual
    return a if abs(fa) < abs(fb) and a > 0.0 else b


@njit(nogil=True)
def crossings_one(model, y0, p, n, t_max, max_gap, max_steps, rtol, atol,
                  Yc, Tc, K, Kp, F, y, y_new, ytmp, yp, yc, f1, info, ctl, pause_steps):
    """Integrate from ``y0`` and store the next ``n`` section crossings in ``Yc`` (n x dim) and ``Tc``.

    Work arrays (allocated by the caller, reused): ``K, Kp`` (16 x dim), ``F`` (7 x dim), the vectors
    ``y, y_new, ytmp, yp, yc, f1`` (dim).  ``info`` (N_INFO int64) receives
    ``[n_found, status, n_accepted, n_rejected, n_rhs, 0]``.

    Resumable: after ``pause_steps`` more steps (accepted + rejected) the loop stops with status ``PAUSED`` and
    keeps its state in ``ctl`` (N_CTL + 2 dim floats, zero before the first call; ``ctl[0]`` is ``C_NEW``,
    ``C_PAUSED`` or ``C_DONE``); a later call with the same ``ctl`` (and ``Yc``, ``Tc``) continues exactly
    where it stopped, so a run in pieces returns the bits of one call (the model layer returns to Python
    between pieces: Ctrl-C).
    """
    dim = y0.shape[0]
    if ctl[0] == C_PAUSED:
        t, h, t_last, g_old, n_acc, n_rej, nfev, found = pause_load(ctl, y, K[0], dim)
    else:
        for i in range(dim):
            y[i] = y0[i]
        t = 0.0
        h = initial_step(model, t, y, K[0], p, rtol, atol, min(t_max, max_gap), ytmp, f1)
        nfev = N_START_RHS
        n_acc = 0
        n_rej = 0
        found = 0
        t_last = 0.0
        g_old = _g(model, y)
        if abs(g_old) <= G_POLISH:
            # a seed on the section (g = 0 up to rounding): its own root at t = 0 is not a crossing
            g_old = 0.0
    status = OK
    stop = n_acc + n_rej + pause_steps
    while found < n:
        status = loop_guard(n_acc + n_rej, stop, t, t_max, t_last, max_gap)
        if status != OK:
            break
        status, accepted, h, h_next, n_rej, nfev = attempt(step, model, t, t_max, y, h, p, K, y_new, ytmp, rtol, atol,
                                                           n_acc, n_rej, max_steps, nfev)
        if status != OK:
            break
        if not accepted:
            h = h_next
            continue
        # ---- accepted step t -> t + h --------------------------------------------------------
        g_new = _g(model, y_new)
        if (g_old < 0.0 and g_new >= 0.0) or (g_old > 0.0 and g_new <= 0.0):
            dense_prepare(model, t, y, y_new, h, p, K, F, ytmp)
            nfev += N_STAGES_EXTENDED - N_STAGES - 1
            x = _illinois(model, F, y, g_old, g_new, yc)
            dense_eval(F, y, x, yc)
            if _side(model, yc) > 0.0:
                # polish: exact steps from (t, y) of size hs, Newton on hs; keep the best (in f1)
                hs = x * h
                for i in range(dim):
                    Kp[0, i] = K[0, i]
                best = np.inf
                hb = hs
                for _it in range(3):
                    step(model, t, y, hs, p, Kp, yp, ytmp, rtol, atol)
                    nfev += N_STAGES
                    gp = _g(model, yp)
                    if not np.isfinite(gp):
                        break
                    if abs(gp) < best:
                        best = abs(gp)
                        hb = hs
                        for i in range(dim):
                            f1[i] = yp[i]
                    if gp == 0.0:
                        break
                    gd = _gdot(model, yp, Kp[N_STAGES])
                    if gd == 0.0 or not np.isfinite(gd):
                        break
                    dh = -gp / gd
                    if abs(dh) > 0.5 * abs(h) or abs(dh) <= 2e-16 * abs(hs):
                        break
                    hs = hs + dh
                if best <= G_POLISH and _side(model, f1) > 0.0:
                    for i in range(dim):
                        Yc[found, i] = f1[i]
                    Tc[found] = t + hb
                else:
                    for i in range(dim):
                        Yc[found, i] = yc[i]
                    Tc[found] = t + x * h
                t_last = Tc[found]
                found += 1
        t = t + h
        advance(model, y, y_new, K)
        g_old = g_new
        n_acc += 1
        h = h_next
    info[0], info[1], info[2], info[3], info[4], info[5] = found, status, n_acc, n_rej, nfev, 0
    pause_save(ctl, status, t, h, t_last, g_old, n_acc, n_rej, nfev, found, y, K[0], dim)
    return found


@njit
def _to_gamma_omega(model, Yc, p, start, count, G, W, D):
    """Split the crossing states ``start .. count - 1`` into Gamma, omega (Eq 69 for LR) and Gammadot."""
    for k in range(start, count):
        for i in range(3):
            G[k, i] = Yc[k, i]
        if model == LR:
            for i in range(3):
                D[k, i] = Yc[k, 3 + i]
            lr_omega(Yc[k, 0:3], Yc[k, 3:6], p, W[k])
        else:
            for i in range(3):
                W[k, i] = Yc[k, 3 + i]
            g0, g1, g2 = Yc[k, 0], Yc[k, 1], Yc[k, 2]
            w0, w1, w2 = Yc[k, 3], Yc[k, 4], Yc[k, 5]
            D[k, 0] = g1 * w2 - g2 * w1
            D[k, 1] = g2 * w0 - g0 * w2
            D[k, 2] = g0 * w1 - g1 * w0


# ------------------------------------------------------------------------------------------------
# the entry points: plain Python around the compiled loop
# ------------------------------------------------------------------------------------------------
# A compiled wrapper around crossings_one would link the whole crossing loop (DOP853 steps, every model's
# right-hand side, dense output) into its own module and compile it again: ~1 s of the cold start per wrapper.
# These loops over seeds cost a few microseconds per trajectory in Python.

def _work(dim):
    """The work arrays of :func:`crossings_one` for a state of size ``dim``: K, Kp, F and six vectors."""
    work = np.empty((6, dim))
    return (np.empty((N_STAGES_EXTENDED, dim)), np.empty((N_STAGES_EXTENDED, dim)), np.empty((7, dim)),
            work[0], work[1], work[2], work[3], work[4], work[5])


def run_serial(one, ctl, info, pause_steps):
    """Run the resumable crossing loop ``one(k, left)`` (trajectory k, at most ``left`` steps) for each trajectory
    not yet done (``ctl[k, 0]``), one after the other, for at most about ``pause_steps`` steps in all.  ``info``
    (m x N_INFO) counts the steps of each (accepted in column 2, rejected in 3, over all calls).  Returns 1 when
    the allowance ran out before every trajectory was done (call again with the same arrays: the result is that
    of one call), else 0.  Shared by :func:`crossings_serial` and :func:`.taylor.crossings_serial_taylor`."""
    left = pause_steps
    for k in range(ctl.shape[0]):
        if ctl[k, 0] == C_DONE:
            continue
        if left <= 0:
            return 1
        used = int(ctl[k, 5] + ctl[k, 6]) if ctl[k, 0] == C_PAUSED else 0
        one(k, left)
        left -= int(info[k, 2] + info[k, 3]) - used
        if ctl[k, 0] != C_DONE:
            return 1
    return 0


def crossings_serial(model, Y0, p, n, t_max, max_gap, max_steps, rtol, atol, G, W, D, T, info, ctl, pause_steps,
                     Yc):
    """The next ``n`` crossings of each trajectory starting at a row of ``Y0``, one after the other, for at most
    about ``pause_steps`` steps in this call.

    Outputs have a leading seed axis: Gamma ``G``, omega ``W``, Gammadot ``D`` (m x n x 3), times ``T``
    (m x n), ``info`` (m x N_INFO).  ``ctl`` (m x (N_CTL + 2 dim), zeros before the first call) keeps each
    trajectory's loop state and ``Yc`` (n x dim) is a work array, both kept by the caller between calls.
    Returns 1 when the step allowance ran out before every trajectory was done (call again with the same
    arrays: the result is that of one call), else 0.  The compiled loop releases the GIL, so the model layer
    runs chunks of seeds in threads.
    """
    work = _work(Y0.shape[1])

    def one(k, left):
        start = int(ctl[k, 8]) if ctl[k, 0] == C_PAUSED else 0
        found = crossings_one(model, Y0[k], p, n, t_max, max_gap, max_steps, rtol, atol, Yc, T[k], *work, info[k],
                              ctl[k], left)
        _to_gamma_omega(model, Yc, p, start, found, G[k], W[k], D[k])

    return run_serial(one, ctl, info, pause_steps)


def crossings_tangent(y0, p, n, t_max, max_gap, max_steps, rtol, atol, Yc, Tc, info):
    """:func:`crossings_one` for the tangent model LP_TAN: ``y0`` carries (Gamma, omega), k deviation vectors
    and the MEGNO integrals (size 8 + 6k); the rows of ``Yc`` (n x size) receive the whole state at each
    crossing, so the deviations there are the flow's Jacobian applied to the initial ones (no projection onto
    the section: the caller adds the return-time correction).  Returns the number of crossings found."""
    ctl = np.zeros(N_CTL + 2 * y0.shape[0])
    return crossings_one(LP_TAN, y0, p, n, t_max, max_gap, max_steps, rtol, atol, Yc, Tc, *_work(y0.shape[0]),
                         info, ctl, max_steps + 1)


# ------------------------------------------------------------------------------------------------
# amended potential and section states
# ------------------------------------------------------------------------------------------------
@njit(inner=True)
def _v_mu(G0, G1, G2, p):
    """Amended potential V_mu(Gamma) = mu^2 / (2 Gamma^T J Gamma) - m g rho^T Gamma, evaluated as the energy
    (Eq 34) of the state whose angular velocity is the locked rotation omega = nu Gamma, nu = mu / Gamma^T J Gamma."""
    JG0, JG1, JG2 = _mv(p, 0, G0, G1, G2)
    nu = p[P_MU] / (G0 * JG0 + G1 * JG1 + G2 * JG2)
    return _energy(G0, G1, G2, nu * G0, nu * G1, nu * G2, p)


@njit
def amended_potential_many(Gs, p, out):
    """V_mu at each row of ``Gs`` (k x 3)."""
    for k in range(Gs.shape[0]):
        out[k] = _v_mu(Gs[k, 0], Gs[k, 1], Gs[k, 2], p)


@njit
def section_states(Gs, E, p, p0, Y, slack):
    """The section state [Gamma, Gammadot] (LR) at each unit Gamma of ``Gs`` (rows not within 1e-9 of +-e3).

    ``slack[k] = E - V_mu(Gamma_k)``; where it is <= 0 the row of ``Y`` is NaN (inaccessible).
    Gammadot = s d with d = e3 x Gamma / |e3 x Gamma| (so e3^T Gammadot = 0 and e3^T (Gamma x d) > 0) and
    s = sqrt(2 (E - V_mu) / k), where k/2 = E(Gamma, w1) - E(Gamma, 0) is the kinetic energy of
    w1 = lr_omega(Gamma, d) at mu = 0 (the kinetic energy splits as s^2 k / 2 + mu^2 / (2 Gamma^T J Gamma));
    ``p0`` is ``p`` at mu = 0.
    """
    w = np.empty(3)
    d = np.empty(3)
    G = np.empty(3)
    z = np.zeros(3)
    for k in range(Gs.shape[0]):
        G0, G1, G2 = Gs[k, 0], Gs[k, 1], Gs[k, 2]
        sl = E - _v_mu(G0, G1, G2, p)
        slack[k] = sl
        r = np.sqrt(G0 * G0 + G1 * G1)
        if not (sl > 0.0) or r == 0.0:
            for i in range(6):
                Y[k, i] = np.nan
            continue
        G[0] = G0
        G[1] = G1
        G[2] = G2
        d[0] = -G1 / r
        d[1] = G0 / r
        d[2] = 0.0
        lr_omega(G, d, p0, w)
        kin = 2.0 * (_energy(G0, G1, G2, w[0], w[1], w[2], p0) - _energy(G0, G1, G2, z[0], z[1], z[2], p0))
        s = np.sqrt(2.0 * sl / kin)
        Y[k, 0] = G0
        Y[k, 1] = G1
        Y[k, 2] = G2
        Y[k, 3] = s * d[0]
        Y[k, 4] = s * d[1]
        Y[k, 5] = 0.0


@njit
def normalise_crossings(G, W, D, n):
    """Normalise the first ``n`` crossings' Gamma (rows of ``G``) to |Gamma| = 1 and set ``D = Gamma x omega``
    (``W`` holds omega), in place; returns the largest ``| |Gamma| - 1 |`` found before."""
    drift = 0.0
    for k in range(n):
        nr = np.sqrt(G[k, 0] * G[k, 0] + G[k, 1] * G[k, 1] + G[k, 2] * G[k, 2])
        if abs(nr - 1.0) > drift:
            drift = abs(nr - 1.0)
        for i in range(3):
            G[k, i] = G[k, i] / nr
        D[k, 0] = G[k, 1] * W[k, 2] - G[k, 2] * W[k, 1]
        D[k, 1] = G[k, 2] * W[k, 0] - G[k, 0] * W[k, 2]
        D[k, 2] = G[k, 0] * W[k, 1] - G[k, 1] * W[k, 0]
    return drift
