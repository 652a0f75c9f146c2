"""Taylor lanes: the adaptive Taylor method (:mod:`.taylor`) on ``LANES`` trajectories of Eqs (31)-(32) at once.

Layout (structure of arrays)
----------------------------
The coefficient table of a lane group is ``X[order, column, lane]`` (C order; ``LANES`` = 8 lanes, one AVX-512
register of float64, where the CPU has AVX-512, else 4, one AVX2 register), so that one coefficient of one series
of all the lanes' trajectories is one contiguous vector.  Columns: Gamma 0-2, omega 3-5 (principal axes).  The
sums of one order are the cross product written out and the products of omega's components::

    Gamma_i^(n+1) = sum_l (Gamma_j,l omega_k,n-l - Gamma_k,l omega_j,n-l) / (n + 1)
    omega_i^(n+1) = (c_i sum_l omega_j,l omega_k,n-l + u_ij Gamma_k,n - u_ik Gamma_j,n) / (n + 1)

((i, j, k) cyclic; the scalar kernel of :mod:`.taylor` uses the three-product form of the cross product with
work series, which here cost loads: the lane loop is bound by them).

What runs in the lanes
----------------------
The jet (:func:`jet`) is written in LLVM IR on ``<LANES x double>`` vectors (numba has no vector types and its
SLP vectoriser is off): for each order the loop over ``l`` takes the terms ``l`` and ``n - l`` together, 18 fused
multiply-adds on whole lane vectors from 12 vector loads, no branch (one term at a time with the work series
took 15 loads for 9).  The step update (Estrin's split, :func:`.cauchy._estrin_ir`) and ``c^T Gamma'`` at the
step end are vector code, each lane at its own step ``h``; so is the step-size rule (:func:`step_sizes`: the norms
of rows 0, order - 1 and order, and the roots by a vector exp/log).  Per lane and scalar: the loop guards, the
crossings' roots, and refilling a finished lane with the next trajectory; a lane with nothing left steps with
``h = 0`` and is ignored.

Results
-------
The step-size rule is that of :func:`.taylor.step_size` (to 1e-14 relative) and the order that of
:func:`.taylor.order_for`, so each lane takes the steps of the scalar kernel; the sums are added in another order
and form (fused), so a lane is not bit-identical to :func:`.taylor.integrate_uniform_taylor`: the contract is
agreement to 1e-12 relative on regular trajectories (tests/test_taylor_lanes.py).  A lane's bits do not depend on
its neighbours or on ``LANES``.
"""
import numpy as np

from .._jit import JIT_DISABLED, njit  # noqa: F401 - JIT_DISABLED: the tests read it here
from .lane_ir import _OK, DIM, LANES, NCL, g_end, horner_update, jet, norms, step_sizes  # noqa: F401
from .lane_ir import _g_end_py, _horner_py, _jet_py, _norms_py, _step_sizes_py  # noqa: F401 - references
from .status import MAX_STEPS, MAX_TIME, NO_CROSSING, NON_FINITE, OK, STEP_TOO_SMALL
from .taylor import G_ZERO, SAFETY_EXP, STEP_FACTOR, polynomial_root



@njit(inner=True)
def _step_factor(order):
    """The factor of :func:`.taylor.jz_step` for ``order``."""
    return STEP_FACTOR[order] if order < STEP_FACTOR.shape[0] else np.exp(-2.0 + SAFETY_EXP / (order - 1))


@njit(inner=True)
def _lane_step(Hs, j, t_j):
    """Lane ``j``'s step (from :func:`step_sizes`, the Jorba-Zou rule of :func:`.taylor.step_size` on the lane's
    column) and its status."""
    h = Hs[j]
    if not (h > 1e-14 * max(1.0, t_j)):
        return h, (NON_FINITE if h != h else STEP_TOO_SMALL)
    return h, OK


@njit(inner=True)
def _lane_value(X, order, i, j, tau):
    """Column ``i`` of lane ``j`` at ``t + tau`` (Horner's rule): a sample between steps."""
    v = X[order, i, j]
    for r in range(order - 1, -1, -1):
        v = v * tau + X[r, i, j]
    return v


@njit(inner=True)
def _take(X, Y0, Y, info, who, t, steps, k_out, j, nx, status):
    """Retire lane ``j``'s trajectory (its steps and ``status``; a stopped one's later samples hold the state
    where it stopped) and load trajectory ``nx[0]`` into the lane (zeros when none is left; ``nx[0]`` advanced).
    Returns 1 if the lane took a trajectory, else 0."""
    k = who[j]
    for s in range(k_out[j], Y.shape[1]):
        for i in range(DIM):
            Y[k, s, i] = X[0, i, j]
    info[k, 0] = steps[j]
    info[k, 1] = status
    info[k, 2] = k_out[j]
    t[j] = 0.0
    steps[j] = 0
    k_out[j] = 1
    nxt = nx[0]
    if nxt < Y0.shape[0]:
        for i in range(DIM):
            X[0, i, j] = Y0[nxt, i]
            Y[nxt, 0, i] = Y0[nxt, i]
        who[j] = nxt
        nx[0] = nxt + 1
        return 1
    for i in range(DIM):
        X[0, i, j] = 0.0
    who[j] = -1
    return 0


@njit(nogil=True)
def ensemble_taylor(Y0, t_final, q, order, max_steps, Y, info):
    """Integrate every LP state ``Y0[k]`` (principal frame, n x 6) to ``t_final``, ``LANES`` trajectories at a
    time; ``Y`` (n x n_out x 6, n_out >= 2) receives each trajectory at ``n_out`` evenly spaced times from 0 to
    ``t_final`` (the Taylor polynomial of the step that covers each time, as
    :func:`.taylor.integrate_uniform_taylor`).

    A finished lane takes the next trajectory.  ``info`` (n x 3, int64) receives per trajectory its steps, its
    status (:mod:`.status`: ``OK``; ``MAX_STEPS`` after ``max_steps`` steps, ``NON_FINITE``, ``STEP_TOO_SMALL``)
    and the samples computed (``n_out`` when OK; the samples after a stop hold the state where it stopped).
    Returns the number of lane steps taken.  ``order >= 2``.
    """
    n = Y0.shape[0]
    n_out = Y.shape[1]
    dt_out = t_final / (n_out - 1)
    X = np.zeros((order + 1, NCL, LANES))
    H = np.zeros(LANES)
    t = np.zeros(LANES)
    steps = np.zeros(LANES, dtype=np.int64)
    k_out = np.ones(LANES, dtype=np.int64)
    who = np.full(LANES, -1, dtype=np.int64)  # the trajectory in each lane (-1: idle)
    fresh = np.zeros(LANES, dtype=np.bool_)  # a lane refilled before this step's update (it does not step)
    Hs = np.zeros(LANES)  # the lanes' step sizes (work)
    factor = _step_factor(order)
    nx = np.zeros(1, dtype=np.int64)  # the next trajectory to load
    active = 0
    for j in range(LANES):
        if nx[0] < n:
            for i in range(DIM):
                X[0, i, j] = Y0[nx[0], i]
                Y[nx[0], 0, i] = Y0[nx[0], i]
            who[j] = nx[0]
            nx[0] += 1
            active += 1
    lane_steps = 0
    while active > 0:
        jet(X, order, q)
        step_sizes(X, order, factor, Hs)
        for j in range(LANES):
            H[j] = 0.0
            if who[j] < 0:
                continue
            h, status = _lane_step(Hs, j, t[j])
            if status == OK and steps[j] >= max_steps:
                status = MAX_STEPS
            if status != OK:  # the lane stops where it is and takes the next trajectory
                got = _take(X, Y0, Y, info, who, t, steps, k_out, j, nx, status)
                active += got - 1
                fresh[j] = got == 1
                continue
            last = t[j] + h >= t_final
            hj = t_final - t[j] if last else h
            t_new = t_final if last else t[j] + hj
            k = who[j]
            while k_out[j] < n_out and (k_out[j] * dt_out <= t_new or (last and k_out[j] == n_out - 1)):
                tau = (t_final if k_out[j] == n_out - 1 else k_out[j] * dt_out) - t[j]
                for i in range(DIM):
                    Y[k, k_out[j], i] = _lane_value(X, order, i, j, tau)
                k_out[j] += 1
            H[j] = hj
            t[j] = t_new
        horner_update(X, order, H)
        lane_steps += 1
        for j in range(LANES):
            if who[j] < 0 or fresh[j]:
                fresh[j] = False
                continue
            steps[j] += 1
            if k_out[j] >= n_out:  # the lane reached t_final: retire it, take the next trajectory
                got = _take(X, Y0, Y, info, who, t, steps, k_out, j, nx, _OK[0])
                active += got - 1
    return lane_steps


# ------------------------------------------------------------------------------------------------
# Poincaré crossings in the lanes (a Taylor map's batch): the rule of taylor.crossings_one_taylor per lane
# ------------------------------------------------------------------------------------------------
#: rows of the lanes' float state ``F`` and int state ``I`` of :func:`crossings_lanes` (kept by the caller)
F_T, F_LAST, F_GOLD, F_H, F_GNEW = 0, 1, 2, 3, 4
I_WHO, I_STEPS, I_FOUND, I_FRESH = 0, 1, 2, 3
N_F, N_I = 5, 4


def lane_state(order):
    """Zeroed arrays for :func:`crossings_lanes`: the table ``X``, ``F`` (N_F x LANES), ``I`` (N_I x LANES), the
    work arrays ``gc`` (order) and ``tmp`` (DIM), and ``nx`` = [next seed, started, lane steps]."""
    I = np.zeros((N_I, LANES), dtype=np.int64)
    I[I_WHO] = -1
    return (np.zeros((order + 1, NCL, LANES)), np.zeros((N_F, LANES)), I, np.zeros(order), np.zeros(DIM),
            np.zeros(3, dtype=np.int64))


@njit(inner=True)
def idle(who):
    """True when no lane holds a trajectory (``who``: the trajectory in each lane, -1 for none)."""
    for j in range(who.shape[0]):
        if who[j] >= 0:
            return False
    return True


@njit(inner=True)
def _g0(y, c):
    """``c^T Gamma'`` at the state y (0 within G_ZERO: a seed on the section is not its own crossing)."""
    g = c[0] * (y[1] * y[5] - y[2] * y[4]) + c[1] * (y[2] * y[3] - y[0] * y[5]) + c[2] * (y[0] * y[4] - y[1] * y[3])
    return 0.0 if abs(g) <= G_ZERO else g


@njit(inner=True)
def _seat(X, F, I, Y0, k, j, c):
    """Load seed ``k`` into lane ``j``."""
    for i in range(DIM):
        X[0, i, j] = Y0[k, i]
    F[F_T, j] = 0.0
    F[F_LAST, j] = 0.0
    F[F_GOLD, j] = _g0(Y0[k], c)
    I[I_WHO, j] = k
    I[I_STEPS, j] = 0
    I[I_FOUND, j] = 0


@njit(inner=True)
def _retire(X, F, I, Y0, info, nx, j, status, order, c):
    """Lane ``j``'s trajectory ends with ``status`` (its info row written); the lane takes the next seed (its jet
    next step) or goes idle."""
    k = I[I_WHO, j]
    info[k, 0] = I[I_FOUND, j]
    info[k, 1] = status
    info[k, 2] = I[I_STEPS, j]
    info[k, 3] = 0
    info[k, 4] = I[I_STEPS, j] * order
    info[k, 5] = 0
    if nx[0] < Y0.shape[0]:
        _seat(X, F, I, Y0, nx[0], j, c)
        nx[0] += 1
        I[I_FRESH, j] = 1
    else:
        I[I_WHO, j] = -1
        for i in range(DIM):
            X[0, i, j] = 0.0


@njit(nogil=True)
def crossings_lanes(Y0, q, c, order, n, t_max, max_gap, max_steps, Yc, Tc, info, X, F, I, gc, tmp, nx, pause_steps):
    """The next ``n`` crossings of ``{c^T Gamma' = 0, c^T (Gamma x Gamma') > 0}`` of each LP seed ``Y0[k]``
    (principal frame, m x 6), ``LANES`` seeds at a time: ``Yc`` (m x n x 6), ``Tc`` (m x n), ``info``
    (m x N_INFO, the layout of :func:`.taylor.crossings_one_taylor`: found, status, steps, 0, series orders).

    Per lane the loop of :func:`.taylor.crossings_one_taylor`: its guards (``MAX_TIME``, ``NO_CROSSING``,
    ``MAX_STEPS``), its step (clipped at ``t_max``), the root of the step's polynomial of ``c^T Gamma'`` and the
    orientation test.  Resumable: at most ``pause_steps`` lane steps per call, the state in the caller's arrays
    (:func:`lane_state`); returns 1 when called again is needed, else 0 (the result is that of one call).
    """
    m = Y0.shape[0]
    if nx[1] == 0:
        nx[1] = 1
        for j in range(LANES):
            if nx[0] < m:
                _seat(X, F, I, Y0, nx[0], j, c)
                nx[0] += 1
    done_steps = 0
    Hs = np.zeros(LANES)  # the lanes' step sizes (work)
    factor = _step_factor(order)
    while True:
        if idle(I[I_WHO]):
            return 0
        if done_steps >= pause_steps:
            return 1
        jet(X, order, q)
        step_sizes(X, order, factor, Hs)
        for j in range(LANES):
            F[F_H, j] = 0.0
            I[I_FRESH, j] = 0
            k = I[I_WHO, j]
            if k < 0:
                continue
            t = F[F_T, j]
            status = OK
            if t >= t_max:
                status = MAX_TIME
            elif t - F[F_LAST, j] > max_gap:
                status = NO_CROSSING
            elif I[I_STEPS, j] >= max_steps:
                status = MAX_STEPS
            else:
                h, status = _lane_step(Hs, j, t)
            if status != OK:
                _retire(X, F, I, Y0, info, nx, j, status, order, c)
                continue
            F[F_H, j] = min(h, t_max - t)
        g_end(X, order, F[F_H], c, F[F_GNEW])  # c^T Gamma' at each lane's step end, the lanes side by side
        for j in range(LANES):
            k = I[I_WHO, j]
            if k < 0 or I[I_FRESH, j] == 1:
                continue
            t = F[F_T, j]
            h = F[F_H, j]
            g_old = F[F_GOLD, j]
            g_new = F[F_GNEW, j]
            if (g_old < 0.0 and g_new >= 0.0) or (g_old > 0.0 and g_new <= 0.0):
                for r in range(order):
                    gc[r] = (r + 1) * (c[0] * X[r + 1, 0, j] + c[1] * X[r + 1, 1, j] + c[2] * X[r + 1, 2, j])
                x = polynomial_root(gc, order, h, g_old, g_new)
                for i in range(DIM):
                    tmp[i] = _lane_value(X, order, i, j, x)
                G0, G1, G2, w0, w1, w2 = tmp[0], tmp[1], tmp[2], tmp[3], tmp[4], tmp[5]
                gw = G0 * w0 + G1 * w1 + G2 * w2
                gg = G0 * G0 + G1 * G1 + G2 * G2
                side = c[0] * (G0 * gw - w0 * gg) + c[1] * (G1 * gw - w1 * gg) + c[2] * (G2 * gw - w2 * gg)
                if side > 0.0:
                    f = I[I_FOUND, j]
                    for i in range(DIM):
                        Yc[k, f, i] = tmp[i]
                    Tc[k, f] = t + x
                    F[F_LAST, j] = t + x
                    I[I_FOUND, j] = f + 1
        horner_update(X, order, F[F_H])
        done_steps += 1
        nx[2] += 1
        for j in range(LANES):
            if I[I_WHO, j] < 0 or I[I_FRESH, j] == 1:
                continue
            F[F_T, j] += F[F_H, j]
            F[F_GOLD, j] = F[F_GNEW, j]
            I[I_STEPS, j] += 1
            if I[I_FOUND, j] >= n:
                _retire(X, F, I, Y0, info, nx, j, _OK[0], order, c)
                I[I_FRESH, j] = 0
