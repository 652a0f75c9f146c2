"""Cauchy-product sums and Horner's rule four lanes at a time in SIMD registers (the Taylor method, :mod:`.taylor`).

The Taylor coefficients of a product ``c = a b`` of two series are ``c_n = sum_{l=0..n} a_l b_{n-l}``.  When
the left factors of several products stand in adjacent columns of the coefficient table ``X`` (row = order)
and their right factors too, one loop over ``l`` sums them all with 4-lane vectors.  :func:`make_sums` builds,
for a list of column blocks ``(ca, cb)``, the kernel ``sums(X, n) -> (S, T)`` with, for block ``v`` and lane
``i < 4``::

    S[4v+i] = sum_{l=0..n} X[l, ca+i] X[n-l, cb+i]                                   (order n, complete)
    T[4v+i] = sum_{l=1..n} X[l, ca+i] X[n+1-l, cb+i]                                 (order n+1 without its end terms)

with fused multiply-adds, the middle terms first (l = 1 .. n-1 for S, 2 .. n-1 for T: rows known before row n,
so the chain overlaps the computation of row n) and the terms with row n last (S: l = n, then l = 0; T: l = 1,
then l = n), i.e. the bits of the scalar loop of ``_sums_py`` compiled with contraction; row n is read with
scalar loads kept scalar (atomic "unordered" loads, which LLVM does not merge into a vector load: a vector load
of a row just written element by element cannot be store-forwarded and stalled every order: the order-20 LP
jet took 457 ns with the merged loads, 351 ns without, 489 ns before the reordering).  ``finish(X, n + 1, T)``
adds the two end terms once row n + 1 is known, so each loaded coefficient enters two orders.  ``S`` and ``T``
are returned as tuples (in registers: a vector store read back as scalars cannot be store-forwarded and would
stall the chain from one order to the next).

:func:`make_horner` and :func:`make_horner_nodes` evaluate the columns of ``X`` as polynomials by Estrin's split
``p(tau) = E(tau^2) + tau O(tau^2)``, the even and odd parts by Horner's rule in ``tau^2``: two independent
chains of half the length (the update of the state after each step is on the critical path of the step loop).

numba has no vector types and its SLP vectoriser is off, so these loops are written in LLVM IR (numba
``intrinsic``: inlined into the calling kernel and cached with it).  With ``PENDULUM_EXPLORER_NO_JIT=1`` their
Python definitions (``_sums_py``, ``_finish_py``, ``_horner_py``) run instead.
"""
from .._jit import JIT_DISABLED

W = 4  # lanes per vector (256 bits)


def _sums_py(pairs, width, X, n):
    """Reference implementation of ``sums`` (plain Python, the ``NO_JIT`` path)."""
    S = [0.0] * width
    T = [0.0] * width
    for v, (ca, cb) in enumerate(pairs):
        for i in range(W):
            s = 0.0
            t = 0.0
            for l in range(1, n):  # the middle terms, then the end terms (the order of the vector kernel)
                s += X[l, ca + i] * X[n - l, cb + i]
                if l >= 2:
                    t += X[l, ca + i] * X[n + 1 - l, cb + i]
            if n >= 1:
                s += X[n, ca + i] * X[0, cb + i]
                s += X[0, ca + i] * X[n, cb + i]
                t += X[1, ca + i] * X[n, cb + i]
                if n >= 2:
                    t += X[n, ca + i] * X[1, cb + i]
            else:
                s = X[0, ca + i] * X[0, cb + i]
            S[W * v + i] = s
            T[W * v + i] = t
    return tuple(S), tuple(T)


def _finish_py(pairs, width, X, k, T):
    """Reference implementation of ``finish``."""
    S = [0.0] * width
    for v, (ca, cb) in enumerate(pairs):
        for i in range(W):
            S[W * v + i] = T[W * v + i] + X[0, ca + i] * X[k, cb + i] + X[k, ca + i] * X[0, cb + i]
    return tuple(S)


def _row_access(ir, types, cgutils, vt, i32, width):
    """The vector row access and the lane extraction the Cauchy-sum intrinsics build their IR from."""
    class _Rows:
        """Vector access to the rows of a C-ordered 2-d float64 array."""

        def __init__(self, context, builder, aty, a):
            self.b = builder
            self.intp = context.get_value_type(types.intp)
            arr = context.make_array(aty)(context, builder, a)
            self.data = arr.data
            self.ncol = cgutils.unpack_tuple(builder, arr.shape, 2)[1]  # C order: row r starts at r * ncol

        def const(self, i):
            return ir.Constant(self.intp, i)

        def off(self, r, c):
            return self.b.add(self.b.mul(r, self.ncol), self.const(c))

        def vec(self, r, c):  # X[r, c:c+4]
            p = self.b.bitcast(self.b.gep(self.data, [self.off(r, c)]), vt.as_pointer())
            return self.b.load(p, align=8)

        def built(self, r, c):  # the same from scalar loads: for a row just written element by element (a
            # vector load of fresh scalar stores waits for them to reach the cache: no store forwarding)
            out = ir.Constant(vt, ir.Undefined)
            for i in range(W):
                x = self.b.load_atomic(self.b.gep(self.data, [self.off(r, c + i)]), "unordered", 8)
                out = self.b.insert_element(out, x, ir.Constant(i32, i))
            return out

    def lanes(builder, vecs):
        """The scalars of ``vecs`` (each W lanes), zero-padded to ``width``."""
        out = [builder.extract_element(v, ir.Constant(i32, i)) for v in vecs for i in range(W)]
        return out + [ir.Constant(ir.DoubleType(), 0.0)] * (width - len(out))

    return _Rows, lanes


def _intrinsics(pairs, width):
    from llvmlite import ir
    from numba import types
    from numba.core import cgutils
    from numba.extending import intrinsic

    nvec = len(pairs)
    vt = ir.VectorType(ir.DoubleType(), W)
    i32 = ir.IntType(32)

    _Rows, lanes = _row_access(ir, types, cgutils, vt, i32, width)

    @intrinsic
    def sums(typingctx, X, n):
        half = types.UniTuple(types.float64, width)
        sig = types.Tuple((half, half))(X, n)

        def codegen(context, builder, signature, args):
            rows = _Rows(context, builder, signature.args[0], args[0])
            nn = context.cast(builder, args[1], signature.args[1], types.intp)
            fma_fn = cgutils.get_or_insert_function(builder.module, ir.FunctionType(vt, [vt, vt, vt]),
                                                    f"llvm.fma.v{W}f64")
            one = rows.const(1)
            two = rows.const(2)
            zero = rows.const(0)
            vzero = ir.Constant(vt, [0.0] * W)

            def fma(a, b, c):
                return builder.call(fma_fn, [a, b, c])
            acc_s = [cgutils.alloca_once(builder, vt) for _ in range(nvec)]
            acc_t = [cgutils.alloca_once(builder, vt) for _ in range(nvec)]
            prev = [cgutils.alloca_once(builder, vt) for _ in range(nvec)]  # b_{n+1-l}: the b of l - 1
            for v in range(nvec):
                builder.store(vzero, acc_s[v])
                builder.store(vzero, acc_t[v])
            # the middle terms first (rows 1 .. n-1, known before row n: the chain overlaps the end of order n)
            with builder.if_then(builder.icmp_signed(">=", nn, two)):
                n1 = builder.sub(nn, one)
                for v, (ca, cb) in enumerate(pairs):  # l = 1: S only (T's l = 1 term needs row n)
                    b = rows.vec(n1, cb)
                    builder.store(fma(rows.vec(one, ca), b, vzero), acc_s[v])
                    builder.store(b, prev[v])
                with cgutils.for_range(builder, nn, start=two) as loop:  # l = 2 .. n-1
                    m = builder.sub(nn, loop.index)
                    for v, (ca, cb) in enumerate(pairs):
                        a = rows.vec(loop.index, ca)
                        b = rows.vec(m, cb)
                        builder.store(fma(a, b, builder.load(acc_s[v])), acc_s[v])
                        builder.store(fma(a, builder.load(prev[v]), builder.load(acc_t[v])), acc_t[v])
                        builder.store(b, prev[v])
            # then the end terms with row n (from scalar loads: the row was just written element by element)
            with builder.if_else(builder.icmp_signed(">=", nn, one)) as (then, otherwise):
                with then:
                    for v, (ca, cb) in enumerate(pairs):
                        a_n = rows.built(nn, ca)
                        b_n = rows.built(nn, cb)
                        s = fma(a_n, rows.vec(zero, cb), builder.load(acc_s[v]))  # l = n
                        builder.store(fma(rows.vec(zero, ca), b_n, s), acc_s[v])  # l = 0
                        t = fma(rows.vec(one, ca), b_n, builder.load(acc_t[v]))  # l = 1
                        builder.store(t, acc_t[v])
                        with builder.if_then(builder.icmp_signed(">=", nn, two)):
                            builder.store(fma(a_n, rows.vec(one, cb), t), acc_t[v])  # l = n
                with otherwise:
                    for v, (ca, cb) in enumerate(pairs):
                        builder.store(builder.fmul(rows.built(zero, ca), rows.built(zero, cb)), acc_s[v])
            half = signature.return_type.types[0]
            return context.make_tuple(builder, signature.return_type, [
                context.make_tuple(builder, half, lanes(builder, [builder.load(a) for a in acc]))
                for acc in (acc_s, acc_t)])

        return sig, codegen

    @intrinsic
    def finish(typingctx, X, k, T):
        sig = types.UniTuple(types.float64, width)(X, k, T)

        def codegen(context, builder, signature, args):
            rows = _Rows(context, builder, signature.args[0], args[0])
            kk = context.cast(builder, args[1], signature.args[1], types.intp)
            st = cgutils.unpack_tuple(builder, args[2], width)
            zero = rows.const(0)
            out = []
            for v, (ca, cb) in enumerate(pairs):
                t = ir.Constant(vt, ir.Undefined)
                for i in range(W):
                    t = builder.insert_element(t, st[W * v + i], ir.Constant(i32, i))
                # t + a_0 b_k + a_k b_0, rounded after each operation (no contraction)
                s = builder.fadd(t, builder.fmul(rows.vec(zero, ca), rows.built(kk, cb)))
                out.append(builder.fadd(s, builder.fmul(rows.built(kk, ca), rows.vec(zero, cb))))
            return context.make_tuple(builder, signature.return_type, lanes(builder, out))

        return sig, codegen

    return sums, finish


def _horner_py(ncol, X, order, tau):
    """Reference of the polynomial evaluation (plain Python, the ``NO_JIT`` path): Estrin's split into even and
    odd parts, ``p(tau) = E(tau^2) + tau O(tau^2)``, each by Horner's rule in ``tau^2`` (two independent chains
    of half the length), every operation rounded (no contraction).  ``order >= 2``."""
    K = order // 2
    odd = order % 2
    t2 = tau * tau
    out = []
    for i in range(ncol):
        e = X[2 * K, i]
        o = X[order - 1 + odd, i]
        for s_ in range(K - 1):
            e = e * t2 + X[2 * K - 2 - 2 * s_, i]
            o = o * t2 + X[order - 3 + odd - 2 * s_, i]
        e = e * t2 + X[0, i]
        if odd:
            o = o * t2 + X[1, i]
        out.append(e + tau * o)
    return tuple(out)


def _estrin_ir(ir, builder, cgutils, intp, vec, p, taus, nvec):
    """The IR of :func:`_horner_py` on ``nvec`` 4-lane column vectors at each of the broadcast points ``taus``
    (``vec(r, v)`` loads row r of vector v; ``p`` the order, >= 2): the values, one list per point."""
    one = ir.Constant(intp, 1)
    two = ir.Constant(intp, 2)
    K = builder.ashr(p, one)
    odd = builder.and_(p, one)
    two_k = builder.shl(K, one)
    jo = builder.add(builder.sub(p, one), odd)
    t2s = [builder.fmul(t, t) for t in taus]
    acc_e = [[cgutils.alloca_once(builder, t.type) for _ in range(nvec)] for t in taus]
    acc_o = [[cgutils.alloca_once(builder, t.type) for _ in range(nvec)] for t in taus]
    for v in range(nvec):
        e0, o0 = vec(two_k, v), vec(jo, v)
        for k in range(len(taus)):
            builder.store(e0, acc_e[k][v])
            builder.store(o0, acc_o[k][v])
    with cgutils.for_range(builder, builder.sub(K, one)) as loop:
        off = builder.shl(loop.index, one)
        je = builder.sub(builder.sub(two_k, two), off)
        jj = builder.sub(builder.sub(jo, two), off)
        for v in range(nvec):
            xe, xo = vec(je, v), vec(jj, v)
            for k, t2 in enumerate(t2s):
                builder.store(builder.fadd(builder.fmul(builder.load(acc_e[k][v]), t2), xe), acc_e[k][v])
                builder.store(builder.fadd(builder.fmul(builder.load(acc_o[k][v]), t2), xo), acc_o[k][v])
    is_odd = builder.icmp_signed("!=", odd, ir.Constant(intp, 0))
    out = []
    for k, (t, t2) in enumerate(zip(taus, t2s)):
        vals = []
        for v in range(nvec):
            e = builder.fadd(builder.fmul(builder.load(acc_e[k][v]), t2), vec(ir.Constant(intp, 0), v))
            o = builder.load(acc_o[k][v])
            o = builder.select(is_odd, builder.fadd(builder.fmul(o, t2), vec(one, v)), o)
            vals.append(builder.fadd(e, builder.fmul(t, o)))
        out.append(vals)
    return out


def _horner_intrinsic(nvec, width):
    from llvmlite import ir
    from numba import types
    from numba.core import cgutils
    from numba.extending import intrinsic

    vt = ir.VectorType(ir.DoubleType(), W)
    i32 = ir.IntType(32)

    @intrinsic
    def horner(typingctx, X, order, tau):
        sig = types.UniTuple(types.float64, width)(X, order, tau)

        def codegen(context, builder, signature, args):
            intp = context.get_value_type(types.intp)
            arr = context.make_array(signature.args[0])(context, builder, args[0])
            ncol = cgutils.unpack_tuple(builder, arr.shape, 2)[1]
            p = context.cast(builder, args[1], signature.args[1], types.intp)
            t = builder.insert_element(ir.Constant(vt, ir.Undefined), args[2], ir.Constant(i32, 0))
            t = builder.shuffle_vector(t, t, ir.Constant(ir.VectorType(i32, W), [0] * W))

            def vec(r, v):
                off = builder.add(builder.mul(r, ncol), ir.Constant(intp, W * v))
                return builder.load(builder.bitcast(builder.gep(arr.data, [off]), vt.as_pointer()), align=8)

            res = _estrin_ir(ir, builder, cgutils, intp, vec, p, [t], nvec)[0]
            vals = [builder.extract_element(a, ir.Constant(i32, i)) for a in res for i in range(W)]
            vals += [ir.Constant(ir.DoubleType(), 0.0)] * (width - len(vals))
            return context.make_tuple(builder, signature.return_type, vals)

        return sig, codegen

    return horner


def make_horner(nvec, width):
    """``horner(X, order, tau)``: the tuple ``sum_j X[j, c] tau^j`` for the columns c < 4 ``nvec`` of the
    C-ordered table ``X`` (rows 0..order, order >= 2), zero-padded to ``width`` values, on ``nvec`` 4-lane vectors
    by Estrin's even/odd split (:func:`_horner_py`; every operation rounded: the bits of the scalar loop)."""
    if JIT_DISABLED:
        def horner(X, order, tau):
            return _horner_py(W * nvec, X, order, tau) + (0.0,) * (width - W * nvec)
        return horner
    return _horner_intrinsic(nvec, width)


def _horner_nodes_intrinsic(nvec, n_nodes):
    from llvmlite import ir
    from numba import types
    from numba.core import cgutils
    from numba.extending import intrinsic

    vt = ir.VectorType(ir.DoubleType(), W)
    i32 = ir.IntType(32)

    @intrinsic
    def horner_nodes(typingctx, X, order, taus, out):
        sig = types.intp(X, order, taus, out)

        def codegen(context, builder, signature, args):
            intp = context.get_value_type(types.intp)
            arr = context.make_array(signature.args[0])(context, builder, args[0])
            ncol = cgutils.unpack_tuple(builder, arr.shape, 2)[1]
            p = context.cast(builder, args[1], signature.args[1], types.intp)
            tarr = context.make_array(signature.args[2])(context, builder, args[2])
            ts = []
            for k in range(n_nodes):
                x = builder.load(builder.gep(tarr.data, [ir.Constant(intp, k)]))
                t = builder.insert_element(ir.Constant(vt, ir.Undefined), x, ir.Constant(i32, 0))
                ts.append(builder.shuffle_vector(t, t, ir.Constant(ir.VectorType(i32, W), [0] * W)))

            def vec(r, v):
                off = builder.add(builder.mul(r, ncol), ir.Constant(intp, W * v))
                return builder.load(builder.bitcast(builder.gep(arr.data, [off]), vt.as_pointer()), align=8)

            res = _estrin_ir(ir, builder, cgutils, intp, vec, p, ts, nvec)
            oarr = context.make_array(signature.args[3])(context, builder, args[3])
            ocol = cgutils.unpack_tuple(builder, oarr.shape, 2)[1]
            for k in range(n_nodes):
                for v in range(nvec):
                    off = builder.add(builder.mul(ir.Constant(intp, k), ocol), ir.Constant(intp, W * v))
                    builder.store(res[k][v],
                                  builder.bitcast(builder.gep(oarr.data, [off]), vt.as_pointer()), align=8)
            return ir.Constant(intp, 0)

        return sig, codegen

    return horner_nodes


def make_horner_nodes(nvec, n_nodes):
    """``horner_nodes(X, order, taus, out)``: the columns c < 4 ``nvec`` of ``X`` (rows 0..order) as polynomials
    at each of the ``n_nodes`` points of the 1-d array ``taus``, into ``out[k, c]`` (a C-ordered 2-d float64
    array of at least ``n_nodes`` rows and ``4 nvec`` columns); returns 0.  The ``nvec n_nodes`` Horner chains are
    independent and interleaved in one loop over the orders (throughput, not the latency of one chain, sets the
    cost); each step as in :func:`make_horner`, so the values are the bits of ``make_horner``'s at each point."""
    if JIT_DISABLED:
        def horner_nodes(X, order, taus, out):
            for k in range(n_nodes):
                out[k, :W * nvec] = _horner_py(W * nvec, X, order, taus[k])
            return 0
        return horner_nodes
    return _horner_nodes_intrinsic(nvec, n_nodes)


def make_sums(pairs, width):
    """The kernels ``sums(X, n)`` and ``finish(X, k, T)`` for the column pairs ``pairs`` (each a 4-column
    block of left and right factors); sums are returned zero-padded to ``width`` values.

    ``sums`` returns the tuples ``(S, T)`` (order n, and order n + 1 without its end terms), ``finish``
    completes order ``k = n + 1`` from ``T``: ``S_k = T + a_0 b_k + a_k b_0`` (rounded after each
    operation, as the scalar expression).  ``X`` is a C-ordered 2-d float64 array with at least
    ``max(ca, cb) + 4`` columns.
    """
    pairs = tuple((int(a), int(b)) for a, b in pairs)
    if JIT_DISABLED:
        def sums(X, n):
            return _sums_py(pairs, width, X, n)

        def finish(X, k, T):
            return _finish_py(pairs, width, X, k, T)
        return sums, finish
    return _intrinsics(pairs, width)
