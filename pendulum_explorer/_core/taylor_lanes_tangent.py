"""Taylor tangent lanes: MEGNO and the Lyapunov estimate with the Taylor method (:mod:`.taylor_tangent`) on
``LANES`` cells at once (the lanes of :mod:`.taylor_lanes`; a Taylor chaos map's kernel).

Layout
------
The table is ``X[order, column, lane]`` with 12 columns: Gamma 0-2, omega 3-5, the deviation dGamma 6-8,
domega 9-11 (principal axes).

The jet
-------
In LLVM IR on lane vectors (as :func:`.taylor_lanes.jet`), one loop over ``l`` per order for the 12 sums of
:data:`TERMS`: the cross products written out (no work series: the loop is bound by loads, 18 for 27 fused
multiply-adds), so that with (i, j, k) cyclic::

    dGamma_i^(n+1) = sum_l (dGamma x omega + Gamma x domega)_i / (n + 1)
    domega_i^(n+1) = (c_i sum_l (domega_j omega_k + omega_j domega_k) + u_ij dGamma_k - u_ik dGamma_j) / (n + 1)

The step is :func:`.taylor_tangent._radius`'s (the smaller of the state's and the deviation's) in vector code
(:func:`.lane_ir._jz_ir` on two column blocks), and the MEGNO integrals are integrated over each step by the
Gauss-Legendre rule of :func:`.taylor_tangent.megno_quadrature` with the lanes side by side (the 12 series at the
nodes by Estrin's split, the integrand, the sums).  Per lane and scalar: the guards, the renormalisation of the
deviation (and its projection onto the level with ``keep_tangent``), the result at ``t_total``, and refilling a
finished lane with the next cell.

Results
-------
Per cell those of :func:`.taylor_tangent.tangent_many_taylor` (the same rule and steps; sums in another order,
the step size and the rule's roots by a vector exp/log): not bit-identical, agreement to 1e-9 relative on regular
cells (tests/test_taylor_lanes_tangent.py).  A cell's bits do not depend on its neighbours or its lane.
"""
import numpy as np

from .._jit import JIT_DISABLED, njit
from .chaos import _dev_norm, initial_deviation
from .status import MAX_STEPS, NON_FINITE, OK, STEP_TOO_SMALL
from .taylor import SAFETY_EXP
from .lane_ir import LANES
from .taylor_lanes import idle
from .taylor_tangent import GM, GW, GX, N_GAUSS, _radius, _renormalise, megno_quadrature

#: the statuses a lane ends with, read from an array: a literal constant in a call compiles another copy of the
#: callee (test_jit.py)
_ENDS = np.array([OK, NON_FINITE], dtype=np.int64)
NCT = 12  # columns of the table
DIM_T = 12  # the series that step: Gamma, omega, dGamma, domega
#: rows of the lanes' float state ``F`` and int state ``I`` (kept by the caller, :func:`lane_state`)
F_T, F_H, F_I1, F_I2, F_ACC, F_I1N, F_I2N = 0, 1, 2, 3, 4, 5, 6
I_WHO, I_STEPS, I_FRESH, I_LAST = 0, 1, 2, 3
N_F, N_I = 7, 4
NODES_PER_PASS = 2

def _cross(acc, a, b, sign=1.0):
    """The terms of ``acc_i += sign (a x b)_i`` (a at row l, b at row n - l): (sum, left, right, sign)."""
    return tuple(t for i in range(3) for t in ((acc + i, a + (i + 1) % 3, b + (i + 2) % 3, sign),
                                               (acc + i, a + (i + 2) % 3, b + (i + 1) % 3, -sign)))


def _omega_pairs(acc, a, b):
    """The terms of ``acc_i += a_j b_k``, (i, j, k) cyclic."""
    return tuple((acc + i, a + (i + 1) % 3, b + (i + 2) % 3, 1.0) for i in range(3))


#: the 27 products of one order as (sum, left column at row l, right column at row n - l, sign): the state's
#: ``C = Gamma x omega`` (sums 0-2), ``E_i = omega_j omega_k`` (3-5); the deviation's
#: ``dC = dGamma x omega + Gamma x domega`` (6-8) and ``F_i = domega_j omega_k + omega_j domega_k`` (9-11)
TERMS = (_cross(0, 0, 3) + _omega_pairs(3, 3, 3) + _cross(6, 6, 3) + _cross(6, 0, 9) + _omega_pairs(9, 9, 3)
         + _omega_pairs(9, 3, 9))


def lane_state(order):
    """Zeroed arrays for :func:`tangent_lanes_taylor`: the table ``X``, ``F`` (N_F x LANES), ``I`` (N_I x
    LANES), the work arrays ``Hs`` (LANES), ``y`` (12), ``U`` (3 x 6), and ``nx`` = [next cell, started, lane
    steps]."""
    I = np.zeros((N_I, LANES), dtype=np.int64)
    I[I_WHO] = -1
    return (np.zeros((order + 1, NCT, LANES)), np.zeros((N_F, LANES)), I, np.zeros(LANES), np.zeros(DIM_T),
            np.zeros((3, 6)), np.zeros(3, dtype=np.int64))


# ------------------------------------------------------------------------------------------------ references
def _next_rows(Xn, Xn1, Z, q, inv):
    """Row n + 1 of Gamma, omega and the deviation from the sums ``Z`` (12, per lane) and row n (Eqs 31-32)."""
    for base in (0, 6):
        Xn1[base:base + 3] = Z[base:base + 3] * inv
        G = Xn[base:base + 3]
        Xn1[base + 3] = (q[0] * Z[base + 3] + q[3] * G[2] - q[4] * G[1]) * inv
        Xn1[base + 4] = (q[1] * Z[base + 4] + q[5] * G[0] - q[6] * G[2]) * inv
        Xn1[base + 5] = (q[2] * Z[base + 5] + q[7] * G[1] - q[8] * G[0]) * inv


def _tjet_py(X, order, q):
    """Reference of :func:`tjet` (numpy over the lanes; the ``NO_JIT`` path)."""
    for n in range(order):
        Z = np.zeros((12, X.shape[2]))
        for l in range(n + 1):
            for s, a, b, sign in TERMS:
                Z[s] += sign * X[l, a] * X[n - l, b]
        _next_rows(X[n], X[n + 1], Z, q, 1.0 / (n + 1))
    return 0


def _lane_table(X, j):
    """Lane j's columns 0-11 as a table of :mod:`.taylor_tangent` (its 34 columns, the rest zero)."""
    Xs = np.zeros((X.shape[0], 34))
    Xs[:, :DIM_T] = X[:, :DIM_T, j]
    return Xs


def _tstep_py(X, order, factor, Hs):
    """Reference of :func:`tstep_sizes`: :func:`.taylor_tangent._radius` of each lane times ``factor``."""
    for j in range(X.shape[2]):
        Hs[j] = _radius(_lane_table(X, j), order) * factor
    return 0


def _quad_py(X, order, q, F):
    """Reference of :func:`quadrature`: :func:`.taylor_tangent.megno_quadrature` per lane."""
    g = np.empty((2, N_GAUSS))
    V = np.empty((N_GAUSS, 12))
    for j in range(X.shape[2]):
        F[F_I1N, j], F[F_I2N, j] = megno_quadrature(_lane_table(X, j), order, q, F[F_T, j], F[F_H, j], F[F_I1, j],
                                                    F[F_I2, j], g, V)
    return 0


def _update_py(X, order, H):
    """Reference of :func:`update`: ``X[0, i] <- sum_j X[j, i] H^j`` (i < 12) per lane."""
    v = X[order, :DIM_T].copy()
    for r in range(order - 1, -1, -1):
        v = v * H + X[r, :DIM_T]
    X[0, :DIM_T] = v
    return 0


# ------------------------------------------------------------------------------------------------ the IR
def _tjet_ir(k, b, T, p, qs):
    """The IR of :func:`_tjet_py`: per order the 12 sums of :data:`TERMS` in one loop over l (rows l and n - l
    loaded once: 18 vector loads for 27 fused multiply-adds), then row n + 1 of the 12 series."""
    ir, cgutils, vt, dbl = k.ir, k.cgutils, k.vt, k.dbl
    fma_fn = cgutils.get_or_insert_function(b.module, ir.FunctionType(vt, [vt, vt, vt]), f"llvm.fma.v{k.L}f64")
    acc = [cgutils.alloca_once(b, vt) for _ in range(12)]
    with cgutils.for_range(b, p) as outer:
        n = outer.index
        for x in acc:
            b.store(ir.Constant(vt, [0.0] * k.L), x)
        with cgutils.for_range(b, b.add(n, T.c(1))) as loop:
            l = loop.index
            m = b.sub(n, l)
            L = {c: T.load(l, c) for c in sorted({a for _, a, _, _ in TERMS})}
            R = {c: T.load(m, c) for c in sorted({c for _, _, c, _ in TERMS})}
            S = [b.load(x) for x in acc]
            for s_, a, c, sign in TERMS:
                S[s_] = b.call(fma_fn, [L[a] if sign > 0 else b.fneg(L[a]), R[c], S[s_]])
            for v, x in zip(S, acc):
                b.store(v, x)
        Z = [b.load(x) for x in acc]
        Xn = [T.load(n, c) for c in range(DIM_T)]
        n1 = b.add(n, T.c(1))
        inv = k.splat(b, b.fdiv(ir.Constant(dbl, 1.0), b.sitofp(n1, dbl)))
        for base in (0, 6):
            for i in range(3):
                T.store(b.fmul(Z[base + i], inv), n1, base + i)
            for i, (cq, ua, ga, ub, gb) in enumerate(((0, 3, 2, 4, 1), (1, 5, 0, 6, 2), (2, 7, 1, 8, 0))):
                v = b.fadd(b.fmul(qs[cq], Z[base + 3 + i]), b.fmul(qs[ua], Xn[base + ga]))
                v = b.fsub(v, b.fmul(qs[ub], Xn[base + gb]))
                T.store(b.fmul(v, inv), n1, base + 3 + i)


def _quad_ir(k, b, T, p, qs, F):
    """The IR of :func:`_quad_py`: the rows of ``F`` (``F.row(r)`` loads, ``F.put(r, v)`` stores a lane vector)."""
    from .cauchy import _estrin_ir

    t, h, I1, I2 = F.row(F_T), F.row(F_H), F.row(F_I1), F.row(F_I2)
    taus = [b.fmul(h, k.const(x)) for x in GX]
    g = []
    for a in range(0, N_GAUSS, NODES_PER_PASS):  # the table read once per NODES_PER_PASS nodes
        for tau, y in zip(taus[a:a + NODES_PER_PASS], _horner_fma_ir(k, b, T, p, taus[a:a + NODES_PER_PASS])):
            g.append(b.fmul(b.fadd(t, tau), _rate_ir(k, b, y, qs)))
    s1 = k.const(0.0)
    for w, gk in zip(GW, g):
        s1 = b.fadd(s1, b.fmul(k.const(w), gk))
    s2 = k.const(0.0)
    for kk in range(N_GAUSS):
        i1 = k.const(0.0)
        for jj in range(N_GAUSS):
            i1 = b.fadd(i1, b.fmul(k.const(GM[kk, jj]), g[jj]))
        s2 = b.fadd(s2, b.fmul(k.const(GW[kk]), b.fdiv(b.fadd(I1, b.fmul(h, i1)), b.fadd(t, taus[kk]))))
    F.put(F_I1N, b.fadd(I1, b.fmul(h, s1)))
    F.put(F_I2N, b.fadd(I2, b.fmul(b.fmul(k.const(2.0), h), s2)))


def _horner_fma_ir(k, b, T, p, taus):
    """The 12 series at each of the lane vectors ``taus``: Horner's rule with fused multiply-adds from row ``p``
    down (one pass over the table for all ``taus``)."""
    ir, cgutils, vt = k.ir, k.cgutils, k.vt
    fma_fn = cgutils.get_or_insert_function(b.module, ir.FunctionType(vt, [vt, vt, vt]), f"llvm.fma.v{k.L}f64")
    acc = [[cgutils.alloca_once(b, vt) for _ in range(DIM_T)] for _ in taus]
    for i in range(DIM_T):
        top = T.load(p, i)
        for a in acc:
            b.store(top, a[i])
    with cgutils.for_range(b, p) as loop:
        r = b.sub(b.sub(p, T.c(1)), loop.index)
        for i in range(DIM_T):
            x = T.load(r, i)
            for tau, a in zip(taus, acc):
                b.store(b.call(fma_fn, [b.load(a[i]), tau, x]), a[i])
    return [[b.load(a[i]) for i in range(DIM_T)] for a in acc]


def _rate_ir(k, b, y, qs):
    """:func:`.taylor_tangent._log_rate` on lane vectors (``y``: the 12 series' values)."""
    G0, G1, G2, w0, w1, w2, x0, x1, x2, v0, v1, v2 = y
    mul, add, sub = b.fmul, b.fadd, b.fsub
    dx0 = add(sub(mul(x1, w2), mul(x2, w1)), sub(mul(G1, v2), mul(G2, v1)))
    dx1 = add(sub(mul(x2, w0), mul(x0, w2)), sub(mul(G2, v0), mul(G0, v2)))
    dx2 = add(sub(mul(x0, w1), mul(x1, w0)), sub(mul(G0, v1), mul(G1, v0)))
    dv0 = sub(add(mul(qs[0], add(mul(v1, w2), mul(w1, v2))), mul(qs[3], x2)), mul(qs[4], x1))
    dv1 = sub(add(mul(qs[1], add(mul(v2, w0), mul(w2, v0))), mul(qs[5], x0)), mul(qs[6], x2))
    dv2 = sub(add(mul(qs[2], add(mul(v0, w1), mul(w0, v1))), mul(qs[7], x1)), mul(qs[8], x0))
    a = k.const(0.0)
    v = k.const(0.0)
    for d, x in ((dx0, x0), (dx1, x1), (dx2, x2), (dv0, v0), (dv1, v1), (dv2, v2)):
        a = add(a, mul(d, x))
        v = add(v, mul(x, x))
    return b.fdiv(a, v)


def _intrinsics():
    from numba.extending import intrinsic

    from .cauchy import _estrin_ir
    from .lane_ir import _ir_kit, _jz_ir, _norms_ir

    k = _ir_kit()
    types = k.types

    def params(context, builder, aty, a, T):
        qa = context.make_array(aty)(context, builder, a)
        return [k.splat(builder, builder.load(builder.gep(qa.data, [T.c(i)]))) for i in range(9)]

    class _Rows:
        """Lane-vector rows of a (rows, LANES) float64 array."""

        def __init__(self, context, builder, aty, a, T):
            self.b, self.T = builder, T
            self.data = builder.bitcast(context.make_array(aty)(context, builder, a).data, k.vt.as_pointer())

        def row(self, r):
            return self.b.load(self.b.gep(self.data, [self.T.c(r)]), align=8)

        def put(self, r, v):
            self.b.store(v, self.b.gep(self.data, [self.T.c(r)]), align=8)

    @intrinsic
    def tjet(typingctx, X, order, q):
        sig = types.intp(X, order, q)

        def codegen(context, builder, signature, args):
            T = k.Table(context, builder, signature.args[0], args[0])
            p = context.cast(builder, args[1], signature.args[1], types.intp)
            _tjet_ir(k, builder, T, p, params(context, builder, signature.args[2], args[2], T))
            return T.c(0)

        return sig, codegen

    @intrinsic
    def tstep_sizes(typingctx, X, order, factor, Hs):
        sig = types.intp(X, order, factor, Hs)

        def codegen(context, builder, signature, args):
            T = k.Table(context, builder, signature.args[0], args[0])
            p = context.cast(builder, args[1], signature.args[1], types.intp)
            blocks = [_norms_ir(k, builder, T, p, range(0, 6)), _norms_ir(k, builder, T, p, range(6, 12))]
            out = _Rows(context, builder, signature.args[3], args[3], T)
            out.put(0, _jz_ir(k, builder, p, blocks, args[2]))
            return T.c(0)

        return sig, codegen

    @intrinsic
    def quadrature(typingctx, X, order, q, F):
        sig = types.intp(X, order, q, F)

        def codegen(context, builder, signature, args):
            T = k.Table(context, builder, signature.args[0], args[0])
            p = context.cast(builder, args[1], signature.args[1], types.intp)
            _quad_ir(k, builder, T, p, params(context, builder, signature.args[2], args[2], T),
                     _Rows(context, builder, signature.args[3], args[3], T))
            return T.c(0)

        return sig, codegen

    @intrinsic
    def update(typingctx, X, order, H):
        sig = types.intp(X, order, H)

        def codegen(context, builder, signature, args):
            T = k.Table(context, builder, signature.args[0], args[0])
            p = context.cast(builder, args[1], signature.args[1], types.intp)
            h = _Rows(context, builder, signature.args[2], args[2], T).row(0)
            for i, v in enumerate(_estrin_ir(k.ir, builder, k.cgutils, T.intp, T.load, p, [h], DIM_T)[0]):
                T.store(v, T.c(0), i)
            return T.c(0)

        return sig, codegen

    return tjet, tstep_sizes, quadrature, update


if JIT_DISABLED:
    tjet, tstep_sizes, quadrature, update = _tjet_py, _tstep_py, _quad_py, _update_py
else:
    tjet, tstep_sizes, quadrature, update = _intrinsics()


# ------------------------------------------------------------------------------------------------ the kernel
@njit(nogil=True)
def tangent_seeds(Y0, p, Q, keep_tangent, out):
    """The LP states ``Y0`` (m x 6, body frame) with the first deviation of :func:`.chaos.initial_deviation`,
    rotated into the principal frame ``Q`` (``out``: m x 12; a NaN row stays NaN: a cell outside the region)."""
    y = np.zeros(14)
    U = np.empty((3, 6))
    for k in range(Y0.shape[0]):
        if not np.isfinite(Y0[k, 0]):
            for i in range(out.shape[1]):
                out[k, i] = np.nan
            continue
        for i in range(6):  # (element by element: a slice assignment compiles numba's shape-error message, ~1.5 s)
            y[i] = Y0[k, i]
        initial_deviation(y, p, keep_tangent, U)
        for blk in range(4):
            for i in range(3):
                out[k, 3 * blk + i] = Q[0, i] * y[3 * blk] + Q[1, i] * y[3 * blk + 1] + Q[2, i] * y[3 * blk + 2]


@njit(inner=True)
def _retire(F, I, Y0, ybar, lyap, info, nx, X, j, status, order):
    """Lane ``j``'s cell ends with ``status`` (its info row written; NaN results unless OK); the lane takes the
    next cell (NaN rows skipped) or goes idle."""
    k = I[I_WHO, j]
    info[k, 0] = status
    info[k, 1] = I[I_STEPS, j]
    info[k, 2] = 0
    info[k, 3] = I[I_STEPS, j] * order
    if status != OK:
        ybar[k] = np.nan
        lyap[k] = np.nan
    I[I_WHO, j] = -1
    _seat_next(F, I, Y0, ybar, lyap, info, nx, X, j)


@njit(inner=True)
def _seat_next(F, I, Y0, ybar, lyap, info, nx, X, j):
    """Load the next cell into lane ``j`` (its results NaN and info zero for the NaN rows passed over)."""
    while nx[0] < Y0.shape[0] and not np.isfinite(Y0[nx[0], 0]):
        ybar[nx[0]] = np.nan
        lyap[nx[0]] = np.nan
        info[nx[0]] = 0
        nx[0] += 1
    if nx[0] >= Y0.shape[0]:
        for i in range(DIM_T):
            X[0, i, j] = 0.0
        return
    for i in range(DIM_T):
        X[0, i, j] = Y0[nx[0], i]
    for r in range(1, X.shape[0]):  # the old cell's series (NaN after a failure) would spoil the h = 0 update
        for i in range(NCT):
            X[r, i, j] = 0.0
    for r in range(N_F):
        F[r, j] = 0.0
    I[I_WHO, j] = nx[0]
    I[I_STEPS, j] = 0
    I[I_FRESH, j] = 1
    I[I_LAST, j] = 0
    nx[0] += 1


@njit(nogil=True)
def tangent_lanes_taylor(Y0, q, pp, t_total, order, max_steps, keep_tangent, ybar, lyap, info, Yend, X, F, I, Hs, y,
                         U, nx, pause_steps):
    """MEGNO ``ybar[k] = I2(t_total) / t_total`` and the Lyapunov estimate ``lyap[k] = log|delta| / t_total`` of
    each cell ``Y0[k]`` (m x 12 from :func:`tangent_seeds`; NaN rows skipped), ``LANES`` cells at a time: per
    cell the loop of :func:`.taylor_tangent.tangent_run_taylor` with one output at ``t_total``; ``info`` (m x 4)
    ``[status, n_steps, 0, n_series_orders]``, a stopped cell's results NaN; ``Yend`` (m x 12) the state and
    deviation at ``t_total`` (the deviation scaled by ``exp(-(lyap t_total - log|delta|))`` from the
    renormalisations; a stopped cell's row not written).  ``pp``: the parameters of :mod:`.fields` in the principal
    frame (the projection with ``keep_tangent``).

    Resumable: at most ``pause_steps`` lane steps per call, the state in the caller's arrays (:func:`lane_state`);
    returns 1 when it must be called again, else 0 (the result is that of one call)."""
    if nx[1] == 0:
        nx[1] = 1
        for j in range(LANES):
            _seat_next(F, I, Y0, ybar, lyap, info, nx, X, j)
    factor = np.exp(-2.0 + SAFETY_EXP / (order - 1))
    done = 0
    while True:
        if idle(I[I_WHO]):
            return 0
        if done >= pause_steps:
            return 1
        tjet(X, order, q)
        tstep_sizes(X, order, factor, Hs)
        for j in range(LANES):
            F[F_H, j] = 0.0
            I[I_FRESH, j] = 0
            if I[I_WHO, j] < 0:
                continue
            t = F[F_T, j]
            h = Hs[j]
            status = OK
            if I[I_STEPS, j] >= max_steps:
                status = MAX_STEPS
            elif not (h > 1e-14 * max(1.0, t)):
                status = NON_FINITE if h != h else STEP_TOO_SMALL
            if status != OK:
                _retire(F, I, Y0, ybar, lyap, info, nx, X, j, status, order)
                continue
            last = t + h >= t_total
            I[I_LAST, j] = 1 if last else 0
            F[F_H, j] = t_total - t if last else h
        quadrature(X, order, q, F)
        update(X, order, F[F_H])
        done += 1
        nx[2] += 1
        for j in range(LANES):
            k = I[I_WHO, j]
            if k < 0 or I[I_FRESH, j] == 1:
                continue
            I[I_STEPS, j] += 1
            F[F_T, j] = t_total if I[I_LAST, j] == 1 else F[F_T, j] + F[F_H, j]
            F[F_I1, j] = F[F_I1N, j]
            F[F_I2, j] = F[F_I2N, j]
            for i in range(DIM_T):
                y[i] = X[0, i, j]
            if I[I_LAST, j] == 1:
                d = _dev_norm(y)
                if not (np.isfinite(d) and np.isfinite(F[F_I2, j])):
                    _retire(F, I, Y0, ybar, lyap, info, nx, X, j, _ENDS[1], order)
                    continue
                ybar[k] = F[F_I2, j] / t_total
                lyap[k] = (F[F_ACC, j] + np.log(d)) / t_total
                for i in range(DIM_T):
                    Yend[k, i] = y[i]
                _retire(F, I, Y0, ybar, lyap, info, nx, X, j, _ENDS[0], order)
                continue
            la = _renormalise(y, keep_tangent, pp, U)
            if not (np.isfinite(la) and np.isfinite(F[F_I2, j])):
                _retire(F, I, Y0, ybar, lyap, info, nx, X, j, _ENDS[1], order)
                continue
            if la != 0.0:
                F[F_ACC, j] += la
                for i in range(6, DIM_T):
                    X[0, i, j] = y[i]


__all__ = ["lane_state", "tangent_seeds", "tangent_lanes_taylor", "tjet", "tstep_sizes", "quadrature", "update"]
