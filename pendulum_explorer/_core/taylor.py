"""Adaptive Taylor integrator for the Lagrange-Poincaré model (Eqs 31-32), optionally carrying the attitude.

Why Taylor
----------
In principal axes (J = diag(J0, J1, J2)) the LP field is a quadratic polynomial in the state::

    Gamma'  = Gamma x omega                                         (Eq 32)
    omega_i' = c_i omega_j omega_k + u_ij Gamma_k - u_ik Gamma_j     (Eq 31, (i, j, k) cyclic)

with ``c_i = (J_j - J_k) / J_i`` and ``u_ij = m g rho_j / J_i``.  The Taylor coefficients of a product of two
series are a Cauchy product, so the coefficients ``x_0 .. x_p`` of the solution through ``x_0`` follow from
the recurrence ``x_{n+1} = f_n / (n + 1)`` where ``f_n`` is the n-th coefficient of the field, computed from
``x_0 .. x_n``: nine Cauchy products per order (automatic differentiation of polynomials).  The cross product
uses three of its own products plus the three diagonal products ``P_i = Gamma_i omega_i``::

    (Gamma x omega)_i = (Gamma_j + Gamma_k)(omega_k - omega_j) + P_j - P_k

which costs the same six products as the textbook form with fewer distinct operands.

Attitude
--------
R (body -> inertial) has rows ``r, Gamma x r, Gamma`` where ``r = R^T e1`` obeys the same equation as Gamma,
``r' = r x omega`` (Eq 2 for the first row): six more products per order (15 instead of 9).  A cheaper
quadrature was tried and dropped: with ``r = cos(psi) a(Gamma) + sin(psi) b(Gamma)`` in a frame attached to
a body axis ``e_k``, ``psi' = -(Gamma_i omega_i + Gamma_j omega_j) / (1 - Gamma_k^2)`` needs only 1.5 products
(the ``Gamma_i omega_i`` are shared), but the complex zeros of ``1 - Gamma_k(t)^2`` shrink psi's radius of
convergence: with the LP step psi lost 1e-10 per step near them, and steering the step by psi cost 30 % more
steps on the Fig. 2 benchmark.  ``r`` is polynomial in (r, omega), so its series converges wherever the LP
series does.  The second row is rebuilt as ``Gamma x r`` at the output times only.

Order and step (Jorba & Zou 2005, sec. 3.2)
-------------------------------------------
With tolerance ``tol`` (absolute and relative), the order is ``p = ceil(-ln(tol)/2 + 1)`` (20 at double
round-off) and the step is ``h = rho / e^2 exp(-0.7/(p - 1))`` with the radius-of-convergence estimate
``rho = min_{j = p-1, p} (max(1, |x_0|) / |x_j|)^(1/j)`` (infinity norms over Gamma and omega; the attitude
angle does not steer the step, so a run with and without attitude takes the same steps and produces the same
Gamma, omega bits).

Dense output is the Taylor polynomial of the step itself (no extra work); Poincaré crossings are roots of the
polynomial of ``c^T Gamma'`` (bracketed Newton).

Speed
-----
The products of one order are summed four lanes at a time (:mod:`.cauchy`, LLVM IR): the coefficient table
keeps the left factors of three products in adjacent columns and their right factors in three others
(:data:`LP_BLOCKS`, :data:`ATT_BLOCKS`), so the LP field is three vector multiply-add chains and the attitude
row two more in the same loop.  Per lane the operations are those of the scalar loop, in the same order.
Everything is allocated once per integration, outside the step loop.
"""
import numpy as np

from .._jit import njit
from .cauchy import make_horner, make_sums
from .section import (C_PAUSED, PAUSED, loop_guard, pause_load,  # a paused crossing loop and its state
                      pause_save, run_serial)

from .status import MAX_STEPS, MAX_TIME, N_INFO, NO_CROSSING, NON_FINITE, OK, STEP_TOO_SMALL  # noqa: F401

NCOL = 24  # columns of the coefficient table (see :func:`coefficients`)
N_STATE = 9  # Gamma, omega, first row of R
N_Q = 9  # length of the parameter vector q: c (3), u_ij (6)
SAFETY_EXP = -0.7
#: ``exp(-2 + SAFETY_EXP / (p - 1))`` for the orders p < 64 (the step's factor, looked up rather than computed
#: every step; entries 0 and 1 unused)
STEP_FACTOR = np.array([0.0, 0.0] + [np.exp(-2.0 + SAFETY_EXP / (p - 1)) for p in range(2, 64)])


def principal_params(Jp, mgrho_p):
    """Taylor parameter vector ``q`` from the principal moments ``Jp`` (3) and ``m g rho`` in principal axes.

    ``q = [c_0, c_1, c_2, u_01, u_02, u_12, u_10, u_20, u_21]`` with ``c_i = (J_j - J_k)/J_i`` and
    ``u_ij = m g rho_j / J_i``.
    """
    J = np.asarray(Jp, dtype=np.float64)
    r = np.asarray(mgrho_p, dtype=np.float64)
    q = np.empty(N_Q)
    q[0] = (J[1] - J[2]) / J[0]
    q[1] = (J[2] - J[0]) / J[1]
    q[2] = (J[0] - J[1]) / J[2]
    q[3] = r[1] / J[0]
    q[4] = r[2] / J[0]
    q[5] = r[2] / J[1]
    q[6] = r[0] / J[1]
    q[7] = r[0] / J[2]
    q[8] = r[1] / J[2]
    return q


def order_for(tol):
    """Jorba-Zou order ``ceil(-ln(tol)/2 + 1)``."""
    return int(np.ceil(-0.5 * np.log(tol) + 1.0))


#: The products of one order, summed four lanes at a time (:mod:`.cauchy`), as (left, right) column blocks
#: of the coefficient table: ``P_i = Gamma_i omega_i`` (0-2, 3-5), ``K_i = A_i B_i`` (9-11, 12-14),
#: ``E_i = omega_j omega_k`` (18-20, 19-21: the copies omega_1, omega_2, omega_0, omega_1, omega_2 in 18-22),
#: and for the attitude row ``Q_i = r_i omega_i`` (6-8, 3-5), ``L_i = (r_j + r_k) B_i`` (15-17, 12-14).
#: The fourth lane of each block is not used.  Sums array layout: lanes 4v..4v+2 of block v.
LP_BLOCKS = ((0, 3), (9, 12), (18, 19))
ATT_BLOCKS = ((6, 3), (15, 12))
N_SUMS = 4 * (len(LP_BLOCKS) + len(ATT_BLOCKS))
_sums_lp, _finish_lp = make_sums(LP_BLOCKS, N_SUMS)
_sums_all, _finish_all = make_sums(LP_BLOCKS + ATT_BLOCKS, N_SUMS)


@njit(inner=True)
def _operands(X, n, attitude):
    """The sums, differences and copies of order n that the products use (columns 9-22)."""
    w0 = X[n, 3]
    w1 = X[n, 4]
    w2 = X[n, 5]
    X[n, 9] = X[n, 1] + X[n, 2]
    X[n, 10] = X[n, 2] + X[n, 0]
    X[n, 11] = X[n, 0] + X[n, 1]
    X[n, 12] = w2 - w1
    X[n, 13] = w0 - w2
    X[n, 14] = w1 - w0
    if attitude:
        X[n, 15] = X[n, 7] + X[n, 8]
        X[n, 16] = X[n, 8] + X[n, 6]
        X[n, 17] = X[n, 6] + X[n, 7]
    X[n, 18] = w1
    X[n, 19] = w2
    X[n, 20] = w0
    X[n, 21] = w1
    X[n, 22] = w2


@njit(inner=True)
def _next(X, n, q, S, attitude):
    """Order n + 1 of Gamma, omega (Eqs 31-32) and r (Eq 2) from the order-n sums ``S`` of the products."""
    inv = 1.0 / (n + 1)
    X[n + 1, 0] = (S[4] + S[1] - S[2]) * inv  # K_0 + P_1 - P_2
    X[n + 1, 1] = (S[5] + S[2] - S[0]) * inv
    X[n + 1, 2] = (S[6] + S[0] - S[1]) * inv
    X[n + 1, 3] = (q[0] * S[8] + q[3] * X[n, 2] - q[4] * X[n, 1]) * inv
    X[n + 1, 4] = (q[1] * S[9] + q[5] * X[n, 0] - q[6] * X[n, 2]) * inv
    X[n + 1, 5] = (q[2] * S[10] + q[7] * X[n, 1] - q[8] * X[n, 0]) * inv
    if attitude:
        X[n + 1, 6] = (S[16] + S[13] - S[14]) * inv  # L_0 + Q_1 - Q_2
        X[n + 1, 7] = (S[17] + S[14] - S[12]) * inv
        X[n + 1, 8] = (S[18] + S[12] - S[13]) * inv


@njit
def coefficients(X, order, q, attitude):
    """Taylor coefficients of the solution through ``X[0, :]`` up to ``X[order, :]``, in place.

    ``X`` has shape (>= order + 1, NCOL); columns: Gamma 0-2, omega 3-5, the first row r of R 6-8 (used
    when ``attitude``), then the work series ``A_i = Gamma_j + Gamma_k`` (9-11), ``B_i = omega_k - omega_j``
    (12-14), ``r_j + r_k`` (15-17), (i, j, k) cyclic, and copies of omega (18-22, see :data:`LP_BLOCKS`).

    Orders are computed in pairs: the loop over l that sums the Cauchy products of order n also sums the
    terms of order n + 1 that are already known (l = 1..n), reusing each loaded coefficient for two
    products.
    """
    for n in range(0, order, 2):
        _operands(X, n, attitude)
        if attitude:
            S, T = _sums_all(X, n)
        else:
            S, T = _sums_lp(X, n)
        _next(X, n, q, S, attitude)
        k = n + 1
        if k >= order:
            break
        _operands(X, k, attitude)
        if attitude:
            S = _finish_all(X, k, T)
        else:
            S = _finish_lp(X, k, T)
        _next(X, k, q, S, attitude)
    return 0


@njit
def step_size(X, order):
    """Jorba-Zou step from the last two coefficients (infinity norms over Gamma and omega: the attitude rows
    obey a linear equation driven by omega, so they do not steer the step, and a run with and without
    attitude takes the same steps and produces the same Gamma, omega bits)."""
    n0 = 0.0
    na = 0.0
    nb = 0.0
    for i in range(6):
        n0 = max(n0, abs(X[0, i]))
        na = max(na, abs(X[order - 1, i]))
        nb = max(nb, abs(X[order, i]))
    return jz_step(n0, na, nb, order)


@njit(inner=True)
def jz_step(n0, na, nb, order):
    """Jorba and Zou's step from the infinity norms of the state (``n0``) and of its last two coefficients
    (``na``: order - 1, ``nb``: order); inf when both are 0 (an equilibrium).

    ``min((s/na)^(1/(order-1)), (s/nb)^(1/order))`` with ``s = max(1, n0)``, as ``exp`` of the least of the logs
    over the orders (two logs and one exp instead of two powers: 13 ns instead of 30 a step, as the lanes'
    vector rule :func:`.lane_ir._jz_ir` computes it)."""
    ls = np.log(max(1.0, n0))
    lr = np.inf
    if na > 0.0:
        lr = (ls - np.log(na)) / (order - 1)
    if nb > 0.0:
        lr = min(lr, (ls - np.log(nb)) / order)
    # the tolerance enters through the order: at h = rho / e^2 the last term is ~ e^(-2p) ~ tol
    return np.exp(lr) * (STEP_FACTOR[order] if order < STEP_FACTOR.shape[0] else
                         np.exp(-2.0 + SAFETY_EXP / (order - 1)))


_horner_lp = make_horner(2, 12)  # columns 0-7 (Gamma, omega and two unused)
_horner_all = make_horner(3, 12)  # columns 0-11 (Gamma, omega, r and three unused)


@njit(inner=True)
def horner(X, order, tau, ncol, out):
    """``out[i] = sum_j X[j, i] tau^j`` for i < ncol (6: Gamma, omega; 9: and the first row of R).

    The columns run side by side in vector lanes, each by Estrin's even/odd split (:func:`.cauchy.make_horner`).
    """
    if ncol > 6:
        v = _horner_all(X, order, tau)
    else:
        v = _horner_lp(X, order, tau)
    for i in range(ncol):
        out[i] = v[i]


@njit(inner=True)
def attitude_rows(G0, G1, G2, r0, r1, r2, out, off):
    """Write R (row-major: r, Gamma x r, Gamma) into ``out[off:off+9]``."""
    out[off] = r0
    out[off + 1] = r1
    out[off + 2] = r2
    out[off + 3] = G1 * r2 - G2 * r1
    out[off + 4] = G2 * r0 - G0 * r2
    out[off + 5] = G0 * r1 - G1 * r0
    out[off + 6] = G0
    out[off + 7] = G1
    out[off + 8] = G2


@njit(inner=True)
def _write_output(X, order, tau, attitude, ncol, out, tmp):
    """The state at ``t + tau`` (``ncol`` Taylor columns) into the output row ``out``."""
    horner(X, order, tau, ncol, tmp)
    for i in range(6):
        out[i] = tmp[i]
    if attitude:
        attitude_rows(tmp[0], tmp[1], tmp[2], tmp[6], tmp[7], tmp[8], out, 6)


@njit(inner=True)
def _all_finite(X):
    for i in range(N_STATE):
        if not np.isfinite(X[0, i]):
            return False
    return True


@njit(inner=True)
def _expand(X, order, q, attitude, t, steps_left):
    """The series at the state ``X[0]`` (time ``t``) and its step: ``(h, status)``, status ``MAX_STEPS`` (no
    step left), ``NON_FINITE`` or ``STEP_TOO_SMALL`` stops the loop.  ``h`` is inf at an equilibrium (every
    derivative 0: the series is then exact for any step)."""
    if steps_left <= 0:
        return 0.0, MAX_STEPS
    if not _all_finite(X):
        return 0.0, NON_FINITE
    coefficients(X, order, q, attitude)
    h = step_size(X, order)
    if not (h > 1e-14 * max(1.0, t)):
        return h, (NON_FINITE if h != h else STEP_TOO_SMALL)
    return h, OK


@njit
def _start(y0, X, attitude):
    """Load the initial state into X[0] (attitude: the first row of R0)."""
    for i in range(6):
        X[0, i] = y0[i]
    for i in range(3):
        X[0, 6 + i] = y0[6 + i] if attitude else 0.0
    return 0


@njit
def integrate_uniform_taylor(y0, t_final, n_out, q, order, max_steps, Y, orders_out):
    """Integrate the LP model in principal axes from ``y0`` to ``t_final``; ``n_out`` evenly spaced samples in ``Y``.

    ``y0`` is ``[Gamma, omega]`` (6) or ``[Gamma, omega, R row-major]`` (15: the first row of R is carried,
    the second rebuilt as ``Gamma x r`` at the outputs); ``Y`` is (n_out, len(y0)).  ``q`` from :func:`principal_params`;
    ``order`` from :func:`order_for`.  Returns ``[n_steps, 0, n_series_orders, status, n_rows_written]``
    (the layout of :func:`dop853.integrate_uniform`'s stats).  ``orders_out`` (2,) receives the order used and
    the mean step.
    """
    attitude = y0.shape[0] > 6
    ncol = 9 if attitude else 6  # Taylor columns carried: Gamma, omega (and the first row of R)
    X = np.zeros((order + 1, NCOL))
    tmp = np.empty(N_STATE)
    stats = np.zeros(5, dtype=np.int64)
    _start(y0, X, attitude)
    for i in range(y0.shape[0]):
        Y[0, i] = y0[i]
    dt_out = t_final / (n_out - 1)
    k_out = 1
    t = 0.0
    n_steps = 0
    status = OK
    while k_out < n_out:
        h, status = _expand(X, order, q, attitude, t, max_steps - n_steps)
        if status != OK:
            break
        last = False
        if t + h >= t_final:
            h = t_final - t
            last = True
        t_new = t_final if last else t + h
        while k_out < n_out and (k_out * dt_out <= t_new or (last and k_out == n_out - 1)):
            tau = (t_final if k_out == n_out - 1 else k_out * dt_out) - t
            _write_output(X, order, tau, attitude, ncol, Y[k_out], tmp)
            k_out += 1
        horner(X, order, h, ncol, tmp)
        for i in range(ncol):
            X[0, i] = tmp[i]
        t = t_new
        n_steps += 1
    orders_out[0] = order
    orders_out[1] = t / max(n_steps, 1)
    stats[0] = n_steps
    stats[1] = 0
    stats[2] = n_steps * order
    stats[3] = status
    stats[4] = k_out
    return stats


# ------------------------------------------------------------------------------------------------
# Poincaré crossings: roots of the polynomial of c^T Gamma'
# ------------------------------------------------------------------------------------------------
G_ZERO = 1e-12


@njit(inner=True)
def _gpoly(X, order, c, gc):
    """Coefficients of ``g(tau) = c^T Gamma'(t + tau)`` (degree order - 1) into ``gc``."""
    for j in range(order):
        gc[j] = (j + 1) * (c[0] * X[j + 1, 0] + c[1] * X[j + 1, 1] + c[2] * X[j + 1, 2])


@njit(inner=True)
def _geval(gc, order, x):
    """g(x) and g'(x) by Horner."""
    v = gc[order - 1]
    d = 0.0
    for j in range(order - 2, -1, -1):
        d = d * x + v
        v = v * x + gc[j]
    return v, d


@njit(inner=True)
def polynomial_root(gc, order, h, ga, gb):
    """The root in (0, h] of the polynomial g (``ga = g(0)``, ``gb = g(h)`` of opposite signs or ``gb == 0``):
    Newton on the polynomial, kept inside a shrinking bracket (bisection when Newton leaves it)."""
    if gb == 0.0:
        return h
    a = 0.0
    b = h
    fa = ga
    x = h * ga / (ga - gb)  # regula falsi start
    if not (x > a and x < b):
        x = 0.5 * h
    for _ in range(100):
        v, d = _geval(gc, order, x)
        if v == 0.0:
            return x
        if (v > 0.0) == (fa > 0.0):
            a = x
            fa = v
        else:
            b = x
        xn = x - v / d if d != 0.0 else 0.5 * (a + b)
        if not (xn > a and xn < b):
            xn = 0.5 * (a + b)
        if abs(xn - x) <= 2e-16 * abs(x) or b - a <= 2e-16 * b:
            x = xn
            break
        x = xn
    return x


@njit(nogil=True)
def crossings_one_taylor(y0, q, c, order, n, t_max, max_gap, max_steps, X, gc, tmp, Yc, Tc, info, ctl, pause_steps):
    """Integrate from the LP state ``y0`` (principal frame) and store the next ``n`` crossings of
    ``{c^T Gamma' = 0, c^T (Gamma x Gamma') > 0}`` in ``Yc`` (n x 6) and ``Tc`` (the contract of
    :func:`section.crossings_one`, resumable in the same way: status ``PAUSED`` after ``pause_steps`` more
    steps, the loop's state kept in ``ctl`` with the layout of :data:`section.N_CTL`)."""
    dim = y0.shape[0]  # 6 (run-time values: integer or boolean constants would compile specialisations)
    attitude = dim > 6
    for i in range(dim, N_STATE):
        X[0, i] = 0.0
    if ctl[0] == C_PAUSED:
        t, _h, t_last, g_old, n_steps, _r, _f, found = pause_load(ctl, X[0], X[0, :0], dim)
    else:
        for i in range(dim):
            X[0, i] = y0[i]
        t = 0.0
        t_last = 0.0
        found = 0
        n_steps = 0
        g_old = c[0] * (y0[1] * y0[5] - y0[2] * y0[4]) + c[1] * (y0[2] * y0[3] - y0[0] * y0[5]) \
            + c[2] * (y0[0] * y0[4] - y0[1] * y0[3])
        if abs(g_old) <= G_ZERO:
            g_old = 0.0  # a seed on the section: its own root at t = 0 is not a crossing
    status = OK
    stop = n_steps + pause_steps
    while found < n:
        status = loop_guard(n_steps, stop, t, t_max, t_last, max_gap)
        if status != OK:
            break
        h, status = _expand(X, order, q, attitude, t, max_steps - n_steps)
        if status != OK:
            break
        h = min(h, t_max - t)
        _gpoly(X, order, c, gc)
        g_new, _d = _geval(gc, order, h)
        if (g_old < 0.0 and g_new >= 0.0) or (g_old > 0.0 and g_new <= 0.0):
            x = polynomial_root(gc, order, h, g_old, g_new)
            horner(X, order, x, dim, tmp)
            G0, G1, G2, w0, w1, w2 = tmp[0], tmp[1], tmp[2], tmp[3], tmp[4], tmp[5]
            gw = G0 * w0 + G1 * w1 + G2 * w2
            gg = G0 * G0 + G1 * G1 + G2 * G2
            side = c[0] * (G0 * gw - w0 * gg) + c[1] * (G1 * gw - w1 * gg) + c[2] * (G2 * gw - w2 * gg)
            if side > 0.0:
                for i in range(dim):
                    Yc[found, i] = tmp[i]
                Tc[found] = t + x
                t_last = Tc[found]
                found += 1
        horner(X, order, h, dim, tmp)
        for i in range(dim):
            X[0, i] = tmp[i]
        t = t + h
        g_old = g_new
        n_steps += 1
    info[0] = found
    info[1] = status
    info[2] = n_steps
    info[3] = 0
    info[4] = n_steps * order
    info[5] = 0
    pause_save(ctl, status, t, 0.0, t_last, g_old, n_steps, np.int64(0), np.int64(0), found, X[0], X[0, :0], dim)
    return found


def crossings_serial_taylor(Y0, q, c, order, n, t_max, max_gap, max_steps, Yout, T, info, ctl, pause_steps):
    """:func:`crossings_one_taylor` for each row of ``Y0`` (m x 6); ``Yout`` (m x n x 6) receives the LP
    states (principal frame), ``T`` (m x n) the times, ``info`` (m x N_INFO); at most about ``pause_steps``
    steps in this call, ``ctl`` (m x (N_CTL + 12)) keeps the loops' state: returns 1 when called again is
    needed (as :func:`section.crossings_serial`, plain Python around the compiled loop), else 0.  The loop
    releases the GIL."""
    X = np.zeros((order + 1, NCOL))
    gc = np.empty(order)
    tmp = np.empty(N_STATE)

    def one(k, left):
        crossings_one_taylor(Y0[k], q, c, order, n, t_max, max_gap, max_steps, X, gc, tmp, Yout[k], T[k], info[k],
                             ctl[k], left)

    return run_serial(one, ctl, info, pause_steps)
