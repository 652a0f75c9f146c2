"""Lanes: DOP853 on ``LANES`` trajectories of Eqs (31)-(32) at once, one trajectory per SIMD lane.

Layout (structure of arrays)
----------------------------
A lane group holds ``LANES`` (8: one AVX-512 register of float64, two AVX2 registers) trajectories of the same body (one ``p``).
Every state array is flat, component-major: component ``i`` of lane ``l`` is ``Y[i * LANES + l]``, so that a
component of all lanes is one contiguous vector.  The Runge-Kutta stages are ``K[s, i * LANES + l]``.  Two
models: ``LP`` (dim 6, Gamma and omega) and ``LP_TAN`` with one deviation vector (dim 14, see
:func:`.fields.tangent_lp`).

What runs in the lanes
----------------------
The trial step (the 12 stages: stage sums over the flat ``dim * LANES`` vector, the right-hand side in a loop
over the lanes, the error norm) is written without branches in its loops, so LLVM compiles it to packed
instructions (checked in tests/test_lanes.py on the assembly).  Each lane has its own step size ``h``; a lane
whose trial step is rejected keeps its state (a select, not a branch), a finished lane is refilled with the
next seed of the batch; an idle lane (no seed left) steps with ``h = 0`` and is ignored.

What stays scalar
-----------------
Per lane, after each step: Hairer's step-size control (one ``pow``), the loop guards, and the rare events --
a Poincaré crossing (dense output, Illinois root finding and polishing: the code of
:func:`.section.crossings_one`), an output time of the tangent run, the renormalisation of the deviation
(:func:`.chaos.tangent_run`).  They run on the lane's copy in the scalar layout with the scalar kernels.

Results
-------
Per lane the arithmetic is that of the scalar kernels, operation for operation and in the same order (no
fastmath: no fused multiply-add, no reassociation), so each trajectory gives the bits of
:func:`.section.crossings_one` / :func:`.chaos.tangent_run` on this build; the documented contract is only
agreement to 1e-12 relative on regular trajectories (tests/test_lanes.py checks it), since another LLVM may
contract differently.

Speed (measured, benchmarks/bench_lanes.py, CPU time on this 2-core AVX-512 machine)
------------------------------------------------------------------------------------
The tangent model (dim 14): a trial step of 8 lanes costs ~1.6 us against ~1.5 us for one step of the scalar
generic step, so a chaos map runs ~4x the cells per CPU second of ``megno()`` cell by cell.  LP (dim 6): 8 lanes
cost ~1.2 us against ~0.2-0.3 us for one step of the generated register-resident scalar step (:mod:`.dop853_lp`),
and the crossing location (~3.6 us a crossing, ~45 % of a scalar crossings run) stays scalar, so crossings
gain only ~1.1x; vectorising the dense output, root finding and polishing across lanes is what is left.
Measured again in benchmarks/bench_taylor_heyoka.py (block C, 56 seeds x 1000 crossings at E = 0, rtol 1e-11,
load ~12 on 2 cores): 538 ns a step one by one and 496 ns a lane-step, location included, 20.3 steps a crossing,
the location 14 % of the right-hand-side evaluations: 1.08x.  Even a free location leaves the lane step itself
at ~1.2-1.3x the register-resident scalar step, so 4x is out of reach for DOP853 lanes on the 6-dim LP field;
the Taylor method one by one already does 1.36x (11.8 steps a crossing at tol eps, the crossing a root of the
step's polynomial, no extra right-hand sides); a Taylor lane group (the jets of 8 trajectories on the lane
layout, 9 products x 2 four-lane blocks per order with :func:`.cauchy.make_sums`) was prototyped: its order-20
jet costs 1.6x less per trajectory than the scalar jet (228 vs 374 ns), so such a fill would reach ~2.2x, not 4x.

Entry points: :func:`crossings_lanes` (benchmarks only: at ~1.1x it is not worth a second code path for a
DOP853 ``batch``; a Taylor section's ``batch`` runs on :func:`.taylor_lanes.crossings_lanes`) and
:func:`.lanes_tangent.tangent_lanes` (the chaos map), both resumable in pieces of steps (the state lives in the
caller's arrays, see :func:`lane_state`).
"""
import numpy as np

from .._jit import njit
from .dop853 import (ERR_EXP, MAX_FACTOR, MIN_FACTOR, N_START_RHS, SAFETY, dense_eval, dense_prepare, initial_step,
                     step)
from .dop853_tableau import A, C, E3, E5, N_STAGES, N_STAGES_EXTENDED
from .fields import LP, LP_TAN, _cr, _mv, lp_field
from .section import G_POLISH, _g, _gdot, _illinois, _side
from .status import MAX_STEPS, MAX_TIME, NO_CROSSING, NON_FINITE, OK, STEP_TOO_SMALL

LANES = 8
DIM_LP = 6
DIM_TAN = 14  # LP_TAN with one deviation vector


def _rows(rows, width):
    """Nonzero coefficients of each row in increasing column order, padded to ``width`` with 0 * K[0].

    Adding a padded ``0 * k`` to a nonzero partial sum changes no bit, so the padded sum is the scalar kernels'
    left-to-right sum of the nonzero terms."""
    idx = np.zeros((len(rows), width), dtype=np.int64)
    val = np.zeros((len(rows), width))
    for r, row in enumerate(rows):
        nz = [j for j, v in enumerate(row) if v != 0.0]
        assert len(nz) <= width
        idx[r, :len(nz)] = nz
        val[r, :len(nz)] = [row[j] for j in nz]
    return idx, val


# stages 1..5 have at most 3 nonzeros, 6..8 at most 6, 9..12 at most 9 (row 12 is B): three fixed widths, so that
# the sums unroll with few padded terms
W_LO, W_MID, W_HI = 3, 6, 9
S_MID, S_HI = 6, 9  # first stages of the wider tables
LO_IDX, LO_VAL = _rows([A[s, :s] for s in range(S_MID)], W_LO)
MID_IDX, MID_VAL = _rows([A[s, :s] for s in range(S_HI)], W_MID)
HI_IDX, HI_VAL = _rows([A[s, :s] for s in range(N_STAGES + 1)], W_HI)
ERR_IDX, ERR_VAL = _rows([E5[:N_STAGES], E3[:N_STAGES]], 8)
C_ST = C.copy()
# the first stage and the count as arrays: integer constants in calls would compile specialisations
STAGE_SPAN = np.array([1, S_MID, S_HI, N_STAGES + 1], dtype=np.int64)
# the model ids read from an array (a global integer constant in a call compiles a literal copy of the callee)
_MODELS = np.array([LP, LP_TAN], dtype=np.int64)

# lane-state rows: floats TF[row, lane], integers TI[row, lane]
F_T, F_H, F_TLAST, F_GOLD, F_ACC = 0, 1, 2, 3, 4
N_TF = 5
I_SEED, I_NACC, I_NREJ, I_NFEV, I_FOUND, I_KOUT = 0, 1, 2, 3, 4, 5
N_TI = 6
# queue row Q: next seed to load, seeds finished
Q_NEXT, Q_DONE = 0, 1


def lane_state(dim):
    """The arrays a lane group keeps between calls: ``(Y, K, TF, TI, Q)``, every lane idle.

    ``Y`` (dim * LANES) the states, ``K`` (13, dim * LANES) the stages (K[0] = f(t, y) between steps), ``TF``
    (N_TF, LANES) t, h, t_last, g_old (crossings) / log-norm sum (tangent), ``TI`` (N_TI, LANES) seed (-1: idle),
    counters, crossings found / outputs written, ``Q`` (2,) the next seed to load and the number finished."""
    n = dim * LANES
    TI = np.zeros((N_TI, LANES), dtype=np.int64)
    TI[I_SEED] = -1
    return np.zeros(n), np.zeros((N_STAGES + 1, n)), np.zeros((N_TF, LANES)), TI, np.zeros(2, dtype=np.int64)


# ------------------------------------------------------------------------------------------------
# the vector part: one trial step of every lane
# ------------------------------------------------------------------------------------------------
@njit(inner=True)
def _sum_lo(s, Y, HB, K, out):
    """``out = Y + h (sum_j A[s, j] K[j])`` over the flat lane vector, stages s < S_MID."""
    for x in range(Y.shape[0]):
        acc = LO_VAL[s, 0] * K[LO_IDX[s, 0], x]
        for q in range(1, W_LO):
            acc += LO_VAL[s, q] * K[LO_IDX[s, q], x]
        out[x] = Y[x] + HB[x] * acc


@njit(inner=True)
def _sum_mid(s, Y, HB, K, out):
    """:func:`_sum_lo` for the stages S_MID .. S_HI - 1."""
    for x in range(Y.shape[0]):
        acc = MID_VAL[s, 0] * K[MID_IDX[s, 0], x]
        for q in range(1, W_MID):
            acc += MID_VAL[s, q] * K[MID_IDX[s, q], x]
        out[x] = Y[x] + HB[x] * acc


@njit(inner=True)
def _sum_hi(s, Y, HB, K, out):
    """:func:`_sum_lo` for the stages S_HI .. 12 (row 12: B, the 8th-order solution)."""
    for x in range(Y.shape[0]):
        acc = HI_VAL[s, 0] * K[HI_IDX[s, 0], x]
        for q in range(1, W_HI):
            acc += HI_VAL[s, q] * K[HI_IDX[s, q], x]
        out[x] = Y[x] + HB[x] * acc


@njit(inner=True)
def _rhs_lp(T, Y, p, K, s):
    """Eqs (31)-(32) of every lane into K[s] (the LP components, rows 0..5); ``T`` (LANES) only gives the lane
    count, a run-time value: LLVM vectorises a loop of a known tiny trip count only without run-time alias checks,
    which these loops need (K, Y and p are distinct arrays as far as it knows)."""
    for l in range(T.shape[0]):
        d0, d1, d2, a0, a1, a2 = lp_field(Y[l], Y[LANES + l], Y[2 * LANES + l], Y[3 * LANES + l],
                                          Y[4 * LANES + l], Y[5 * LANES + l], p)
        K[s, l] = d0
        K[s, LANES + l] = d1
        K[s, 2 * LANES + l] = d2
        K[s, 3 * LANES + l] = a0
        K[s, 4 * LANES + l] = a1
        K[s, 5 * LANES + l] = a2


@njit(inner=True)
def _rhs_tan(T, Y, p, K, s):
    """The variational part of :func:`.fields.tangent_lp` (one deviation, rows 6..13) of every lane into K[s],
    at the stage times ``T``; the same operations in the same order."""
    for l in range(T.shape[0]):
        G0, G1, G2 = Y[l], Y[LANES + l], Y[2 * LANES + l]
        w0, w1, w2 = Y[3 * LANES + l], Y[4 * LANES + l], Y[5 * LANES + l]
        x0, x1, x2 = Y[6 * LANES + l], Y[7 * LANES + l], Y[8 * LANES + l]
        v0, v1, v2 = Y[9 * LANES + l], Y[10 * LANES + l], Y[11 * LANES + l]
        Jw0, Jw1, Jw2 = _mv(p, 0, w0, w1, w2)
        e0, e1, e2 = _cr(x0, x1, x2, w0, w1, w2)
        f0, f1, f2 = _cr(G0, G1, G2, v0, v1, v2)
        Jv0, Jv1, Jv2 = _mv(p, 0, v0, v1, v2)
        b0, b1, b2 = _cr(Jv0, Jv1, Jv2, w0, w1, w2)
        c0, c1, c2 = _cr(Jw0, Jw1, Jw2, v0, v1, v2)
        s0, s1, s2 = _cr(p[18], p[19], p[20], x0, x1, x2)
        q0, q1, q2 = _mv(p, 9, b0 + c0 + s0, b1 + c1 + s1, b2 + c2 + s2)
        dG0 = e0 + f0
        dG1 = e1 + f1
        dG2 = e2 + f2
        K[s, 6 * LANES + l] = dG0
        K[s, 7 * LANES + l] = dG1
        K[s, 8 * LANES + l] = dG2
        K[s, 9 * LANES + l] = q0
        K[s, 10 * LANES + l] = q1
        K[s, 11 * LANES + l] = q2
        num = x0 * dG0 + x1 * dG1 + x2 * dG2 + v0 * q0 + v1 * q1 + v2 * q2
        den = x0 * x0 + x1 * x1 + x2 * x2 + v0 * v0 + v1 * v1 + v2 * v2
        t = T[l]
        K[s, 12 * LANES + l] = t * num / den if den > 0.0 else 0.0
        K[s, 13 * LANES + l] = 2.0 * Y[12 * LANES + l] / t if t > 0.0 else 0.0


@njit(inner=True)
def step_lanes(model, T, H, Y, p, K, Ynew, HB, TS, E, rtol, atol, ERR):
    """One DOP853 trial step of every lane: lane l from ``(T[l], Y[:, l])`` with step ``H[l]`` (``K[0]`` must
    hold f there).  On return ``Ynew`` is the 8th-order solution, ``K[1:13]`` the stages (K[12] = f at the end)
    and ``ERR[l]`` the scaled error norm (the contract of :func:`.dop853.step`, lane by lane).  Work arrays:
    ``HB`` (dim * LANES, receives h broadcast), ``TS`` (LANES), ``E`` (2, dim * LANES)."""
    n = Y.shape[0]
    dim = n // LANES
    nlanes = H.shape[0]  # LANES, as a run-time value (see _rhs_lp)
    for i in range(dim):
        for l in range(nlanes):
            HB[i * LANES + l] = H[l]
    for s in range(STAGE_SPAN[0], STAGE_SPAN[3]):
        if s < STAGE_SPAN[1]:
            _sum_lo(s, Y, HB, K, Ynew)
        elif s < STAGE_SPAN[2]:
            _sum_mid(s, Y, HB, K, Ynew)
        else:
            _sum_hi(s, Y, HB, K, Ynew)
        _rhs_lp(TS, Ynew, p, K, s)
        if model == LP_TAN:
            for l in range(nlanes):
                TS[l] = T[l] + C_ST[s] * H[l]
            _rhs_tan(TS, Ynew, p, K, s)
    # error estimates (E5, E3) divided by the scale, over the flat vector
    for x in range(n):
        sc = atol + rtol * max(abs(Y[x]), abs(Ynew[x]))
        for r in range(2):
            acc = ERR_VAL[r, 0] * K[ERR_IDX[r, 0], x]
            for q in range(1, ERR_VAL.shape[1]):
                acc += ERR_VAL[r, q] * K[ERR_IDX[r, q], x]
            E[r, x] = acc / sc
    for l in range(nlanes):
        TS[l] = 0.0
        ERR[l] = 0.0
    for i in range(dim):  # per lane summed over i in order, as the scalar step
        for l in range(nlanes):
            e5 = E[0, i * LANES + l]
            e3 = E[1, i * LANES + l]
            ERR[l] += e5 * e5
            TS[l] += e3 * e3
    for l in range(nlanes):
        err5 = ERR[l]
        err3 = TS[l]
        denom = err5 + 0.01 * err3
        ERR[l] = 0.0 if (err5 == 0.0 and err3 == 0.0) else abs(H[l]) * err5 / np.sqrt(denom * dim)


@njit(inner=True)
def accept_lanes(ACC, Y, Ynew, K):
    """``Y <- Ynew`` and ``K[0] <- K[12]`` in the lanes with ``ACC[l]`` (a select per component)."""
    for i in range(Y.shape[0] // LANES):
        for l in range(ACC.shape[0]):
            x = i * LANES + l
            a = ACC[l]
            Y[x] = Ynew[x] if a else Y[x]
            K[0, x] = K[N_STAGES, x] if a else K[0, x]


@njit(inline="always")
def control_lane(err, h, t):
    """:func:`.dop853.control` (the same formulas): ``(accepted, h_next, status)``."""
    if not np.isfinite(err):
        h_next = h * MIN_FACTOR
        return False, h_next, NON_FINITE if h_next < 1e-14 * max(1.0, abs(t)) else OK
    if err <= 1.0:
        return True, h * (MAX_FACTOR if err == 0.0 else min(MAX_FACTOR, SAFETY * err ** ERR_EXP)), OK
    return False, h * max(MIN_FACTOR, SAFETY * err ** ERR_EXP), OK


# ------------------------------------------------------------------------------------------------
# lane <-> scalar layout
# ------------------------------------------------------------------------------------------------
@njit(inline="always")
def gather(V, l, out):
    """Lane ``l`` of the flat lane vector ``V`` into ``out`` (dim)."""
    for i in range(out.shape[0]):
        out[i] = V[i * LANES + l]


@njit(inline="always")
def scatter(v, l, V):
    """``v`` (dim) into lane ``l`` of ``V``."""
    for i in range(v.shape[0]):
        V[i * LANES + l] = v[i]


@njit(inner=True)
def gather_stages(K, l, Ks):
    """The 13 stages of lane ``l`` into the scalar stage array ``Ks`` (16 x dim)."""
    for s in range(K.shape[0]):
        gather(K[s], l, Ks[s])


# ------------------------------------------------------------------------------------------------
# Poincaré crossings in lanes (the loop of section.crossings_one, lane by lane)
# ------------------------------------------------------------------------------------------------
@njit(inner=True)
def locate_crossing(model, t, h, y, y_new, g_old, g_new, p, Ks, Kp, F, ytmp, yp, yc, f1, rtol, atol, out):
    """The crossing in the accepted step ``t -> t + h`` (``g`` changes sign): dense output, Illinois root and
    polishing by exact steps, the code of :func:`.section.crossings_one` on the scalar arrays (``Ks``: the
    step's stages).  Returns ``(found, t_crossing, n_rhs)``; the state goes to ``out`` when found."""
    dim = y.shape[0]
    dense_prepare(model, t, y, y_new, h, p, Ks, F, ytmp)
    nfev = N_STAGES_EXTENDED - N_STAGES - 1
    x = _illinois(model, F, y, g_old, g_new, yc)
    dense_eval(F, y, x, yc)
    if not (_side(model, yc) > 0.0):
        return False, 0.0, nfev
    hs = x * h
    for i in range(dim):
        Kp[0, i] = Ks[0, i]
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
            out[i] = f1[i]
        return True, t + hb, nfev
    for i in range(dim):
        out[i] = yc[i]
    return True, t + x * h, nfev


@njit(inline="always")
def _finish(l, status, info, TI, Q):
    """Lane ``l``'s trajectory stops with ``status``: its counters into ``info`` (section.N_INFO layout)."""
    k = TI[I_SEED, l]
    info[k, 0], info[k, 1], info[k, 2], info[k, 3], info[k, 4], info[k, 5] = (
        TI[I_FOUND, l], status, TI[I_NACC, l], TI[I_NREJ, l], TI[I_NFEV, l], 0)
    TI[I_SEED, l] = -1
    Q[Q_DONE] += 1


@njit(inline="always")
def _cross_ready(model, l, Y0, p, n, t_max, max_gap, max_steps, rtol, atol, info, Y, K, TF, TI, Q, H, Ks, w):
    """Before a step: lane ``l`` gets a seed if idle (the next in ``Y0``), stops its trajectory when a guard of
    :func:`.section.crossings_one` says so (and takes the next), and receives its clipped step in ``H[l]``.
    Returns 1 when the lane steps, 0 when it idles (``H[l] = 0``)."""
    while True:
        if TI[I_SEED, l] < 0:
            k = Q[Q_NEXT]
            if k >= Y0.shape[0]:
                H[l] = 0.0
                return 0
            Q[Q_NEXT] = k + 1
            y = w[0]
            for i in range(y.shape[0]):
                y[i] = Y0[k, i]
            h0 = initial_step(model, 0.0, y, Ks[0], p, rtol, atol, min(t_max, max_gap), w[1], w[2])
            scatter(y, l, Y)
            scatter(Ks[0], l, K[0])
            g = _g(model, y)
            TF[F_T, l], TF[F_H, l], TF[F_TLAST, l], TF[F_GOLD, l] = 0.0, h0, 0.0, 0.0 if abs(g) <= G_POLISH else g
            TI[I_SEED, l], TI[I_NACC, l], TI[I_NREJ, l], TI[I_NFEV, l], TI[I_FOUND, l] = k, 0, 0, N_START_RHS, 0
        t = TF[F_T, l]
        status = OK
        if TI[I_FOUND, l] >= n:
            status = OK
        elif t >= t_max:
            status = MAX_TIME
        elif t - TF[F_TLAST, l] > max_gap:
            status = NO_CROSSING
        elif TI[I_NACC, l] + TI[I_NREJ, l] >= max_steps:
            status = MAX_STEPS
        else:
            h = min(TF[F_H, l], t_max - t)
            if h < 1e-14 * max(1.0, abs(t)):
                status = STEP_TOO_SMALL
            else:
                H[l] = h
                return 1
        _finish(l, status, info, TI, Q)


@njit(inline="always")
def _cross_after(model, l, p, rtol, atol, Yc, Tc, info, Y, K, TF, TI, Q, H, ERR, Ynew, ACC, Ks, Kp, F, w):
    """After a step: lane ``l``'s step-size control and, on an accepted step, its crossing (if any) and clock."""
    h = H[l]
    t = TF[F_T, l]
    accepted, h_next, status = control_lane(ERR[l], h, t)
    if not accepted:
        TI[I_NREJ, l] += 1
    TI[I_NFEV, l] += N_STAGES
    ACC[l] = accepted and status == OK
    if status != OK:
        _finish(l, status, info, TI, Q)
        return
    TF[F_H, l] = h_next
    if not accepted:
        return
    g_old = TF[F_GOLD, l]
    g_new = Ynew[l] * Ynew[4 * LANES + l] - Ynew[LANES + l] * Ynew[3 * LANES + l]  # _g of LP: (Gamma x omega)_3
    if (g_old < 0.0 and g_new >= 0.0) or (g_old > 0.0 and g_new <= 0.0):
        k = TI[I_SEED, l]
        found = TI[I_FOUND, l]
        y = w[0]
        yn = w[1]
        gather(Y, l, y)
        gather(Ynew, l, yn)
        gather_stages(K, l, Ks)
        ok, tc, nf = locate_crossing(model, t, h, y, yn, g_old, g_new, p, Ks, Kp, F, w[2], w[3], w[4], w[5],
                                     rtol, atol, Yc[k, found])
        TI[I_NFEV, l] += nf
        if ok:
            Tc[k, found] = tc
            TF[F_TLAST, l] = tc
            TI[I_FOUND, l] = found + 1
    TF[F_T, l] = t + h
    TF[F_GOLD, l] = g_new
    TI[I_NACC, l] += 1


@njit(nogil=True)
def crossings_lanes(Y0, p, n, t_max, max_gap, max_steps, rtol, atol, Yc, Tc, info, Y, K, TF, TI, Q, pause_steps):
    """The next ``n`` Poincaré crossings of the LP trajectory from each row of ``Y0`` (m x 6, Gamma and omega),
    ``LANES`` trajectories at a time; per trajectory the contract of :func:`.section.crossings_one` (model LP).

    Outputs: ``Yc`` (m x n x 6) the crossing states, ``Tc`` (m x n) their times, ``info`` (m x N_INFO int64)
    ``[n_found, status, n_accepted, n_rejected, n_rhs, 0]`` (statuses of :mod:`.section`).  ``(Y, K, TF, TI, Q)``
    from :func:`lane_state` (6) hold the lane group between calls.  Runs at most ``pause_steps`` lane steps,
    then returns 1 (call again with the same arrays: the result is that of one call); 0 when every seed is
    done (``Q[Q_DONE]`` counts the finished seeds: progress).  Releases the GIL: one lane group per thread,
    each on its own rows of ``Y0``.
    """
    model = _MODELS[0]
    dim = Y0.shape[1]
    nl = dim * LANES
    Ynew = np.empty(nl)
    HB = np.empty(nl)
    E = np.empty((2, nl))
    TS = np.empty(LANES)
    H = np.empty(LANES)
    ERR = np.empty(LANES)
    ACC = np.zeros(LANES, dtype=np.bool_)
    Ks = np.empty((N_STAGES_EXTENDED, dim))
    Kp = np.empty((N_STAGES_EXTENDED, dim))
    F = np.empty((7, dim))
    w = np.empty((6, dim))
    T = TF[F_T]
    for it in range(pause_steps + 1):
        busy = 0
        for l in range(LANES):
            busy += _cross_ready(model, l, Y0, p, n, t_max, max_gap, max_steps, rtol, atol, info, Y, K, TF, TI, Q,
                                 H, Ks, w)
        if busy == 0:
            return 0
        if it == pause_steps:
            break
        step_lanes(model, T, H, Y, p, K, Ynew, HB, TS, E, rtol, atol, ERR)
        for l in range(LANES):
            ACC[l] = False
            if TI[I_SEED, l] >= 0:
                _cross_after(model, l, p, rtol, atol, Yc, Tc, info, Y, K, TF, TI, Q, H, ERR, Ynew, ACC, Ks, Kp, F,
                             w)
        accept_lanes(ACC, Y, Ynew, K)
    return 1


# ------------------------------------------------------------------------------------------------
# plain Python around the kernels
# ------------------------------------------------------------------------------------------------
def crossings_all(Y0, p, n, t_max, max_gap, max_steps, rtol, atol, pause_steps=100_000):
    """:func:`crossings_lanes` on every row of ``Y0`` in one lane group, to the end: ``(Yc, Tc, info)``."""
    Y0 = np.ascontiguousarray(Y0, dtype=np.float64)
    m = Y0.shape[0]
    Yc = np.full((m, n, DIM_LP), np.nan)
    Tc = np.full((m, n), np.nan)
    info = np.zeros((m, 6), dtype=np.int64)
    state = lane_state(DIM_LP)
    while crossings_lanes(Y0, p, n, t_max, max_gap, max_steps, rtol, atol, Yc, Tc, info, *state, pause_steps):
        pass
    return Yc, Tc, info
