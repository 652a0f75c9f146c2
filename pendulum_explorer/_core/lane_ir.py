"""The lanes' vector code: the Taylor lanes' table constants, the LLVM-IR intrinsics on ``<LANES x double>``
(the jet of Eqs (31)-(32), Estrin's step update, ``c^T Gamma'`` at the step end, the step-size rule with a vector
exp/log) and their numpy references (the ``NO_JIT`` path).  The kernels that use them are in :mod:`.taylor_lanes`
and :mod:`.taylor_lanes_tangent`; the layout and the formulas are described in :mod:`.taylor_lanes`."""
import numpy as np

from .._jit import JIT_DISABLED
from .status import OK
from .taylor import jz_step

def _lane_count():
    """8 lanes where the CPU numba compiles for has AVX-512 (one zmm register of float64), else 4 (one AVX2 ymm
    register; ``<8 x double>`` split in two ymm was slower there: 195 vs 161 ns per trajectory-step of the jet)."""
    if JIT_DISABLED:
        return 4
    try:
        from llvmlite import binding as llvm
        from numba.core import config

        features = config.CPU_FEATURES if config.CPU_FEATURES is not None else llvm.get_host_cpu_features().flatten()
    except Exception:  # noqa: BLE001 - no host query: the width every x86-64 with AVX2 has
        return 4
    return 8 if "+avx512f" in features else 4


LANES = _lane_count()
NCL = 6  # columns of the lane table: Gamma, omega
#: OK read from an array: the literal constant in a call would compile a second copy of the callee (test_jit.py)
_OK = np.array([OK], dtype=np.int64)
DIM = 6


def _jet_py(X, order, q):
    """Reference implementation of :func:`jet` (numpy over the lanes; the ``NO_JIT`` path)."""
    for n in range(order):
        S = np.zeros((6, X.shape[2]))
        for l in range(n + 1):
            m = n - l
            for i in range(3):
                j, k = (i + 1) % 3, (i + 2) % 3
                S[i] += X[l, j] * X[m, 3 + k] - X[l, k] * X[m, 3 + j]  # (Gamma x omega)_i
                S[3 + i] += X[l, 3 + j] * X[m, 3 + k]  # omega_j omega_k
        inv = 1.0 / (n + 1)
        X[n + 1, 0:3] = S[0:3] * inv
        X[n + 1, 3] = (q[0] * S[3] + q[3] * X[n, 2] - q[4] * X[n, 1]) * inv
        X[n + 1, 4] = (q[1] * S[4] + q[5] * X[n, 0] - q[6] * X[n, 2]) * inv
        X[n + 1, 5] = (q[2] * S[5] + q[7] * X[n, 1] - q[8] * X[n, 0]) * inv
    return 0


def _horner_py(X, order, H):
    """Reference of :func:`horner_update`: ``X[0, i] <- sum_j X[j, i] H^j`` per lane (Estrin's split, every
    operation rounded, as :func:`.cauchy._horner_py`)."""
    K = order // 2
    odd = order % 2
    t2 = H * H
    vals = []
    for i in range(DIM):
        e = X[2 * K, i].copy()
        o = X[order - 1 + odd, i].copy()
        for s_ in range(K - 1):
            e = e * t2 + X[2 * K - 2 - 2 * s_, i]
            o = o * t2 + X[order - 3 + odd - 2 * s_, i]
        e = e * t2 + X[0, i]
        if odd:
            o = o * t2 + X[1, i]
        vals.append(e + H * o)
    for i in range(DIM):
        X[0, i] = vals[i]
    return 0


def _norms_py(X, order, N):
    """Reference of :func:`norms`: ``N[0] = max_i |X[0, i]|``, ``N[1]`` the same of row ``order - 1``, ``N[2]``
    of row ``order`` (i < 6, per lane; ``max`` as numba's: a NaN after a number is skipped)."""
    for k, r in enumerate((0, order - 1, order)):
        m = np.zeros(X.shape[2])
        for i in range(DIM):
            a = np.abs(X[r, i])
            m = np.where(a > m, a, m)
        N[k] = m
    return 0


def _step_sizes_py(X, order, factor, Hs):
    """Reference of :func:`step_sizes`: :func:`.taylor.jz_step` of each lane's norms (``factor`` unused: the rule's)."""
    N = np.zeros((3, X.shape[2]))
    _norms_py(X, order, N)
    for j in range(X.shape[2]):
        Hs[j] = jz_step(N[0, j], N[1, j], N[2, j], order)
    return 0


def _ir_kit():
    """What the intrinsics build their IR from: llvmlite/numba modules, the lane vector type, row access."""
    from types import SimpleNamespace

    from llvmlite import ir
    from numba import types
    from numba.core import cgutils

    L = LANES
    dbl = ir.DoubleType()
    vt = ir.VectorType(dbl, L)
    i32 = ir.IntType(32)

    class _Table:
        """Vector access to ``X[r, c, :]`` of a C-ordered (rows, NCL, LANES) float64 array."""

        def __init__(self, context, builder, aty, a):
            self.b = builder
            self.intp = context.get_value_type(types.intp)
            arr = context.make_array(aty)(context, builder, a)
            self.data = arr.data
            self.ncol = cgutils.unpack_tuple(builder, arr.shape, 3)[1]

        def c(self, i):
            return ir.Constant(self.intp, i)

        def ptr(self, r, col):
            off = self.b.mul(self.b.add(self.b.mul(r, self.ncol), self.c(col)), self.c(L))
            return self.b.bitcast(self.b.gep(self.data, [off]), vt.as_pointer())

        def load(self, r, col):
            return self.b.load(self.ptr(r, col), align=8)

        def store(self, v, r, col):
            self.b.store(v, self.ptr(r, col), align=8)

    def splat(builder, x):
        v = builder.insert_element(ir.Constant(vt, ir.Undefined), x, ir.Constant(i32, 0))
        return builder.shuffle_vector(v, v, ir.Constant(ir.VectorType(i32, L), [0] * L))

    def const(x):
        return ir.Constant(vt, [float(x)] * L)

    return SimpleNamespace(ir=ir, types=types, cgutils=cgutils, L=L, dbl=dbl, vt=vt, Table=_Table, splat=splat,
                           const=const)


def _jet_ir(k, builder, T, p, qs):
    """The IR of :func:`_jet_py` on lane vectors: ``T`` the table's row access, ``p`` the order, ``qs`` the nine
    parameters broadcast.  Per order n the six sums ``C = sum_l Gamma_l x omega_(n-l)`` (the cross product
    written out: two fused multiply-adds a component) and ``E_i = sum_l omega_j,l omega_k,(n-l)``, the terms
    (l, n - l) and (n - l, l) together from rows l and n - l loaded once (12 vector loads for 18 fused
    multiply-adds; the loop is bound by loads), the middle term of an even n alone, then row n + 1."""
    ir, cgutils, vt, dbl = k.ir, k.cgutils, k.vt, k.dbl
    fma_fn = cgutils.get_or_insert_function(builder.module, ir.FunctionType(vt, [vt, vt, vt]), f"llvm.fma.v{k.L}f64")
    vzero = ir.Constant(vt, [0.0] * k.L)

    def products(a, b, accs):
        """C_i += Gamma_j(a) omega_k(b) - Gamma_k(a) omega_j(b), E_i += omega_j(a) omega_k(b) (rows' values)."""
        out = list(accs)
        for i in range(3):
            j, kk = (i + 1) % 3, (i + 2) % 3
            out[i] = builder.call(fma_fn, [a[j], b[3 + kk], out[i]])
            out[i] = builder.call(fma_fn, [builder.fneg(a[kk]), b[3 + j], out[i]])
            out[3 + i] = builder.call(fma_fn, [a[3 + j], b[3 + kk], out[3 + i]])
        return out

    def next_row(r, S):
        """Row r + 1 from the sums S of order r and Gamma of row r (Eqs 31-32)."""
        G = [T.load(r, i) for i in range(3)]
        r1 = builder.add(r, T.c(1))
        inv = k.splat(builder, builder.fdiv(ir.Constant(dbl, 1.0), builder.sitofp(r1, dbl)))
        for i in range(3):
            T.store(builder.fmul(S[i], inv), r1, i)
        # omega_i' = c_i E_i + u_ij Gamma_k - u_ik Gamma_j, q = [c0 c1 c2 u01 u02 u12 u10 u20 u21]
        for i, (cq, ua, ga, ub, gb) in enumerate(((0, 3, 2, 4, 1), (1, 5, 0, 6, 2), (2, 7, 1, 8, 0))):
            v = builder.fadd(builder.fmul(qs[cq], S[3 + i]), builder.fmul(qs[ua], G[ga]))
            v = builder.fsub(v, builder.fmul(qs[ub], G[gb]))
            T.store(builder.fmul(v, inv), r1, 3 + i)

    acc = [cgutils.alloca_once(builder, vt) for _ in range(6)]
    with cgutils.for_range(builder, p) as outer:
        n = outer.index
        for a in acc:
            builder.store(vzero, a)
        two = T.c(2)
        with cgutils.for_range(builder, builder.sdiv(builder.add(n, T.c(1)), two)) as inner:
            l = inner.index
            m = builder.sub(n, l)
            ra = [T.load(l, c) for c in range(6)]
            rb = [T.load(m, c) for c in range(6)]
            Sv = products(ra, rb, [builder.load(a) for a in acc])
            Sv = products(rb, ra, Sv)
            for v, a in zip(Sv, acc):
                builder.store(v, a)
        with builder.if_then(builder.icmp_signed("==", builder.srem(n, two), T.c(0))):
            rm = [T.load(builder.sdiv(n, two), c) for c in range(6)]
            Sv = products(rm, rm, [builder.load(a) for a in acc])
            for v, a in zip(Sv, acc):
                builder.store(v, a)
        next_row(n, [builder.load(a) for a in acc])


def _intrinsics():
    from numba.extending import intrinsic

    from .cauchy import _estrin_ir

    k = _ir_kit()
    types = k.types

    @intrinsic
    def jet(typingctx, X, order, q):
        sig = types.intp(X, order, q)

        def codegen(context, builder, signature, args):
            T = k.Table(context, builder, signature.args[0], args[0])
            p = context.cast(builder, args[1], signature.args[1], types.intp)
            qa = context.make_array(signature.args[2])(context, builder, args[2])
            qs = [k.splat(builder, builder.load(builder.gep(qa.data, [T.c(i)]))) for i in range(9)]
            _jet_ir(k, builder, T, p, qs)
            return T.c(0)

        return sig, codegen

    @intrinsic
    def horner_update(typingctx, X, order, H):
        sig = types.intp(X, order, H)

        def codegen(context, builder, signature, args):
            T = k.Table(context, builder, signature.args[0], args[0])
            p = context.cast(builder, args[1], signature.args[1], types.intp)
            ha = context.make_array(signature.args[2])(context, builder, args[2])
            h = builder.load(builder.bitcast(ha.data, k.vt.as_pointer()), align=8)
            vals = _estrin_ir(k.ir, builder, k.cgutils, T.intp, T.load, p, [h], DIM)[0]
            for i, v in enumerate(vals):
                T.store(v, T.c(0), i)
            return T.c(0)

        return sig, codegen

    @intrinsic
    def g_end(typingctx, X, order, H, c, out):
        sig = types.intp(X, order, H, c, out)

        def codegen(context, builder, signature, args):
            T = k.Table(context, builder, signature.args[0], args[0])
            p = context.cast(builder, args[1], signature.args[1], types.intp)
            vp = k.vt.as_pointer()
            h = builder.load(builder.bitcast(context.make_array(signature.args[2])(context, builder, args[2]).data,
                                             vp), align=8)
            ca = context.make_array(signature.args[3])(context, builder, args[3])
            cs = [k.splat(builder, builder.load(builder.gep(ca.data, [T.c(i)]))) for i in range(3)]
            _g_end_ir(k, builder, T, p, h, cs,
                      builder.bitcast(context.make_array(signature.args[4])(context, builder, args[4]).data, vp))
            return T.c(0)

        return sig, codegen

    @intrinsic
    def norms(typingctx, X, order, N):
        sig = types.intp(X, order, N)

        def codegen(context, builder, signature, args):
            T = k.Table(context, builder, signature.args[0], args[0])
            p = context.cast(builder, args[1], signature.args[1], types.intp)
            out = builder.bitcast(context.make_array(signature.args[2])(context, builder, args[2]).data,
                                  k.vt.as_pointer())
            for slot, m in enumerate(_norms_ir(k, builder, T, p)):
                builder.store(m, builder.gep(out, [T.c(slot)]), align=8)
            return T.c(0)

        return sig, codegen

    @intrinsic
    def step_sizes(typingctx, X, order, factor, Hs):
        sig = types.intp(X, order, factor, Hs)

        def codegen(context, builder, signature, args):
            T = k.Table(context, builder, signature.args[0], args[0])
            p = context.cast(builder, args[1], signature.args[1], types.intp)
            out = builder.bitcast(context.make_array(signature.args[3])(context, builder, args[3]).data,
                                  k.vt.as_pointer())
            _step_sizes_ir(k, builder, T, p, args[2], out)
            return T.c(0)

        return sig, codegen

    return jet, horner_update, g_end, norms, step_sizes


LN2_HI, LN2_LO = 6.93147180369123816490e-01, 1.90821492927058770002e-10  # ln 2 = HI + LO (fdlibm's split)
#: bits of sqrt(1/2): x = 2^e m with m in [sqrt(1/2), sqrt(2)) from the bits of x minus these
_SQRT_HALF_BITS = 0x3FE6A09E667F3BCD


def _vlog_ir(k, b, x):
    """ln x per lane for normal positive x: x = 2^e m, ln m = 2 atanh(f) with f = (m - 1)/(m + 1) (|f| <= 0.172,
    the odd series to f^23: ~1 ulp)."""
    ir = k.ir
    i64v = ir.VectorType(ir.IntType(64), k.L)
    bits = b.bitcast(x, i64v)
    e = b.ashr(b.sub(bits, ir.Constant(i64v, [_SQRT_HALF_BITS] * k.L)), ir.Constant(i64v, [52] * k.L))
    m = b.bitcast(b.sub(bits, b.shl(e, ir.Constant(i64v, [52] * k.L))), k.vt)
    one = k.const(1.0)
    f = b.fdiv(b.fsub(m, one), b.fadd(m, one))
    f2 = b.fmul(f, f)
    acc = k.const(1.0 / 23.0)
    for n in range(21, 0, -2):
        acc = b.fadd(b.fmul(acc, f2), k.const(1.0 / n))
    ef = b.sitofp(e, k.vt)
    lnm = b.fmul(b.fmul(k.const(2.0), f), acc)
    return b.fadd(b.fmul(ef, k.const(LN2_HI)), b.fadd(b.fmul(ef, k.const(LN2_LO)), lnm))


def _vexp_ir(k, b, y):
    """e^y per lane for |y| <= 700: y = n ln 2 + r, |r| <= ln 2 / 2, the Taylor series of e^r to r^14 (~1 ulp),
    times 2^n from the exponent bits."""
    ir = k.ir
    i64v = ir.VectorType(ir.IntType(64), k.L)
    rint = k.cgutils.get_or_insert_function(b.module, ir.FunctionType(k.vt, [k.vt]), f"llvm.rint.v{k.L}f64")
    n = b.call(rint, [b.fmul(y, k.const(1.0 / 0.6931471805599453))])
    r = b.fsub(b.fsub(y, b.fmul(n, k.const(LN2_HI))), b.fmul(n, k.const(LN2_LO)))
    coef = 1.0
    cs = [1.0]
    for j in range(1, 15):
        coef /= j
        cs.append(coef)
    acc = k.const(cs[-1])
    for c in reversed(cs[:-1]):
        acc = b.fadd(b.fmul(acc, r), k.const(c))
    two_n = b.bitcast(b.shl(b.add(b.fptosi(n, i64v), ir.Constant(i64v, [1023] * k.L)), ir.Constant(i64v, [52] * k.L)),
                      k.vt)
    return b.fmul(acc, two_n)


def _step_sizes_ir(k, b, T, p, factor, out_ptr):
    """The Jorba-Zou step of every lane (:func:`.taylor.jz_step`) into ``out_ptr``: :func:`_jz_ir` of the
    lanes' norms."""
    b.store(_jz_ir(k, b, p, [_norms_ir(k, b, T, p)], factor), out_ptr, align=8)


def _jz_ir(k, b, p, blocks, factor):
    """``min((s/n_a)^(1/(p-1)), (s/n_b)^(1/p))`` times ``factor`` per lane, ``s = max(1, n_0)``, with each ratio
    the least over the column ``blocks`` (a list of the vectors ``(n_0, n_a, n_b)``; one block: the rule of
    :func:`.taylor.jz_step`, two: that of :func:`.taylor_tangent._radius`), as
    ``exp(min(ln(s/n_a)/(p-1), ln(s/n_b)/p))`` on lane vectors (a norm below 1e-300 counts as 0: no bound from
    it; no bound at all, or one beyond e^700: inf).  To 1e-14 relative of the scalar rule (the last bit of
    ln s - ln n over p - 1; tests/test_taylor_lanes.py)."""
    ir = k.ir
    one = k.const(1.0)
    inf = k.const(float("inf"))
    pf = b.sitofp(p, k.dbl)

    def vmin(x, y):
        return b.select(b.fcmp_ordered("<", y, x), y, x)

    la = lb = inf
    for n0, na, nb in blocks:
        ls = _vlog_ir(k, b, b.select(b.fcmp_ordered(">", n0, one), n0, one))
        for nv, which in ((na, 0), (nb, 1)):
            ok = b.fcmp_ordered(">", nv, k.const(1e-300))
            v = b.select(ok, b.fsub(ls, _vlog_ir(k, b, b.select(ok, nv, one))), inf)
            if which == 0:
                la = vmin(la, v)
            else:
                lb = vmin(lb, v)
    inv_a = k.splat(b, b.fdiv(ir.Constant(k.dbl, 1.0), b.fsub(pf, ir.Constant(k.dbl, 1.0))))
    inv_b = k.splat(b, b.fdiv(ir.Constant(k.dbl, 1.0), pf))
    lmin = vmin(b.fmul(la, inv_a), b.fmul(lb, inv_b))
    finite = b.fcmp_ordered("<=", lmin, k.const(700.0))
    r = b.select(finite, _vexp_ir(k, b, b.select(finite, lmin, k.const(0.0))), inf)
    return b.fmul(r, k.splat(b, factor))


def _norms_ir(k, b, T, p, cols=range(DIM)):
    """The three norms of :func:`norms` (over the columns ``cols``) as lane vectors."""
    fabs = k.cgutils.get_or_insert_function(b.module, k.ir.FunctionType(k.vt, [k.vt]), f"llvm.fabs.v{k.L}f64")
    out = []
    for r in (T.c(0), b.sub(p, T.c(1)), p):
        m = k.const(0.0)
        for i in cols:
            a = b.call(fabs, [T.load(r, i)])
            m = b.select(b.fcmp_ordered(">", a, m), a, m)
        out.append(m)
    return out


def _g_end_ir(k, builder, T, p, h, cs, out_ptr):
    """``out = g(h)`` per lane, ``g(tau) = c^T Gamma'(t + tau)`` from the table's series: the operations of
    :func:`.taylor._gpoly` and :func:`.taylor._geval` (``gc_r = (r + 1)(c_0 X_r+1,0 + c_1 X_r+1,1 + c_2 X_r+1,2)``,
    Horner from the top, every operation rounded), so each lane has the bits of the scalar loop's ``g``."""
    ir, dbl = k.ir, k.dbl

    def gc(r):  # r: an IR index, the coefficient of tau^r
        r1 = builder.add(r, T.c(1))
        s = builder.fadd(builder.fmul(cs[0], T.load(r1, 0)), builder.fmul(cs[1], T.load(r1, 1)))
        s = builder.fadd(s, builder.fmul(cs[2], T.load(r1, 2)))
        return builder.fmul(k.splat(builder, builder.sitofp(r1, dbl)), s)

    acc = k.cgutils.alloca_once(builder, k.vt)
    builder.store(gc(builder.sub(p, T.c(1))), acc)
    with k.cgutils.for_range(builder, builder.sub(p, T.c(1))) as loop:  # j = order - 2 .. 0
        j = builder.sub(builder.sub(p, T.c(2)), loop.index)
        builder.store(builder.fadd(builder.fmul(builder.load(acc), h), gc(j)), acc)
    builder.store(builder.load(acc), out_ptr, align=8)
    del ir


def _g_end_py(X, order, H, c, out):
    """Reference of :func:`g_end` (the ``NO_JIT`` path)."""
    gc = np.array([(r + 1) * (c[0] * X[r + 1, 0] + c[1] * X[r + 1, 1] + c[2] * X[r + 1, 2]) for r in range(order)])
    v = gc[order - 1].copy()
    for j in range(order - 2, -1, -1):
        v = v * H + gc[j]
    out[:] = v
    return 0


if JIT_DISABLED:
    jet, horner_update, g_end, norms, step_sizes = _jet_py, _horner_py, _g_end_py, _norms_py, _step_sizes_py
else:
    jet, horner_update, g_end, norms, step_sizes = _intrinsics()
