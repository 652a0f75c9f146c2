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

Everything is allocated once per integration, outside the step loop.
"""
import numpy as np

from .._jit import njit
from .section import C_DONE, C_PAUSED, N_CTL, PAUSED  # a paused crossing loop and its saved state

# status codes (as in dop853)
OK = 0
MAX_STEPS = 1
STEP_TOO_SMALL = 2
NON_FINITE = 3
MAX_TIME = 4
NO_CROSSING = 5

NCOL = 18  # columns of the coefficient table (see :func:`coefficients`)
N_STATE = 9  # Gamma, omega, first row of R
N_Q = 9  # length of the parameter vector q: c (3), u_ij (6)
SAFETY_EXP = -0.7


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


@njit(fastmath={"contract"})
def _sums_lp(X, n):
    """S_n and the part of S_{n+1} known at order n (l = 1..n) of the nine LP products:
    ``P_i = Gamma_i omega_i``, ``K_i = A_i B_i``, ``E_i = omega_j omega_k``."""
    h3 = X[n, 3]
    h4 = X[n, 4]
    h5 = X[n, 5]
    h12 = X[n, 12]
    h13 = X[n, 13]
    h14 = X[n, 14]
    sP0 = X[0, 0] * h3
    sP1 = X[0, 1] * h4
    sP2 = X[0, 2] * h5
    sK0 = X[0, 9] * h12
    sK1 = X[0, 10] * h13
    sK2 = X[0, 11] * h14
    sE0 = X[0, 4] * h5
    sE1 = X[0, 5] * h3
    sE2 = X[0, 3] * h4
    tP0 = 0.0
    tP1 = 0.0
    tP2 = 0.0
    tK0 = 0.0
    tK1 = 0.0
    tK2 = 0.0
    tE0 = 0.0
    tE1 = 0.0
    tE2 = 0.0
    for l in range(1, n + 1):
        m = n - l
        b3 = X[m, 3]
        b4 = X[m, 4]
        b5 = X[m, 5]
        b12 = X[m, 12]
        b13 = X[m, 13]
        b14 = X[m, 14]
        a0 = X[l, 0]
        a1 = X[l, 1]
        a2 = X[l, 2]
        a9 = X[l, 9]
        a10 = X[l, 10]
        a11 = X[l, 11]
        a4 = X[l, 4]
        a5 = X[l, 5]
        a3 = X[l, 3]
        sP0 += a0 * b3
        tP0 += a0 * h3
        sP1 += a1 * b4
        tP1 += a1 * h4
        sP2 += a2 * b5
        tP2 += a2 * h5
        sK0 += a9 * b12
        tK0 += a9 * h12
        sK1 += a10 * b13
        tK1 += a10 * h13
        sK2 += a11 * b14
        tK2 += a11 * h14
        sE0 += a4 * b5
        tE0 += a4 * h5
        sE1 += a5 * b3
        tE1 += a5 * h3
        sE2 += a3 * b4
        tE2 += a3 * h4
        h3 = b3
        h4 = b4
        h5 = b5
        h12 = b12
        h13 = b13
        h14 = b14
    return (sP0, sP1, sP2, sK0, sK1, sK2, sE0, sE1, sE2,
            tP0, tP1, tP2, tK0, tK1, tK2, tE0, tE1, tE2)


@njit(fastmath={"contract"})
def _sums_att(X, n):
    """The same for the six products of the attitude row: ``Q_i = r_i omega_i``, ``L_i = (r_j + r_k) B_i``."""
    h3 = X[n, 3]
    h4 = X[n, 4]
    h5 = X[n, 5]
    h12 = X[n, 12]
    h13 = X[n, 13]
    h14 = X[n, 14]
    sQ0 = X[0, 6] * h3
    sQ1 = X[0, 7] * h4
    sQ2 = X[0, 8] * h5
    sL0 = X[0, 15] * h12
    sL1 = X[0, 16] * h13
    sL2 = X[0, 17] * h14
    tQ0 = 0.0
    tQ1 = 0.0
    tQ2 = 0.0
    tL0 = 0.0
    tL1 = 0.0
    tL2 = 0.0
    for l in range(1, n + 1):
        m = n - l
        b3 = X[m, 3]
        b4 = X[m, 4]
        b5 = X[m, 5]
        b12 = X[m, 12]
        b13 = X[m, 13]
        b14 = X[m, 14]
        a6 = X[l, 6]
        a7 = X[l, 7]
        a8 = X[l, 8]
        a15 = X[l, 15]
        a16 = X[l, 16]
        a17 = X[l, 17]
        sQ0 += a6 * b3
        tQ0 += a6 * h3
        sQ1 += a7 * b4
        tQ1 += a7 * h4
        sQ2 += a8 * b5
        tQ2 += a8 * h5
        sL0 += a15 * b12
        tL0 += a15 * h12
        sL1 += a16 * b13
        tL1 += a16 * h13
        sL2 += a17 * b14
        tL2 += a17 * h14
        h3 = b3
        h4 = b4
        h5 = b5
        h12 = b12
        h13 = b13
        h14 = b14
    return (sQ0, sQ1, sQ2, sL0, sL1, sL2,
            tQ0, tQ1, tQ2, tL0, tL1, tL2)



@njit
def _operands(X, n, attitude):
    """The sums and differences of order n that the six-product cross products use."""
    X[n, 9] = X[n, 1] + X[n, 2]
    X[n, 10] = X[n, 2] + X[n, 0]
    X[n, 11] = X[n, 0] + X[n, 1]
    X[n, 12] = X[n, 5] - X[n, 4]
    X[n, 13] = X[n, 3] - X[n, 5]
    X[n, 14] = X[n, 4] - X[n, 3]
    if attitude:
        X[n, 15] = X[n, 7] + X[n, 8]
        X[n, 16] = X[n, 8] + X[n, 6]
        X[n, 17] = X[n, 6] + X[n, 7]


@njit
def _next_lp(X, n, q, P0, P1, P2, K0, K1, K2, E0, E1, E2):
    """Order n + 1 of Gamma and omega from the order-n coefficients of the products (Eqs 31-32)."""
    inv = 1.0 / (n + 1)
    X[n + 1, 0] = (K0 + P1 - P2) * inv
    X[n + 1, 1] = (K1 + P2 - P0) * inv
    X[n + 1, 2] = (K2 + P0 - P1) * inv
    X[n + 1, 3] = (q[0] * E0 + q[3] * X[n, 2] - q[4] * X[n, 1]) * inv
    X[n + 1, 4] = (q[1] * E1 + q[5] * X[n, 0] - q[6] * X[n, 2]) * inv
    X[n + 1, 5] = (q[2] * E2 + q[7] * X[n, 1] - q[8] * X[n, 0]) * inv


@njit
def _next_att(X, n, Q0, Q1, Q2, L0, L1, L2):
    """Order n + 1 of the attitude row r (Eq 2: r' = r x omega)."""
    inv = 1.0 / (n + 1)
    X[n + 1, 6] = (L0 + Q1 - Q2) * inv
    X[n + 1, 7] = (L1 + Q2 - Q0) * inv
    X[n + 1, 8] = (L2 + Q0 - Q1) * inv


@njit
def _end(t, a0, bk, ak, b0):
    """Complete S_k = t + a_0 b_k + a_k b_0 (t: the terms l = 1..k-1 summed with S_{k-1})."""
    return t + a0 * bk + ak * b0


@njit
def coefficients(X, order, q, attitude):
    """Taylor coefficients of the solution through ``X[0, :]`` up to ``X[order, :]``, in place.

    ``X`` has shape (>= order + 1, NCOL); columns: Gamma 0-2, omega 3-5, the first row r of R 6-8 (used
    when ``attitude``), then the work series ``A_i = Gamma_j + Gamma_k`` (9-11), ``B_i = omega_k - omega_j``
    (12-14) and ``r_j + r_k`` (15-17), (i, j, k) cyclic.

    Orders are computed in pairs: the loop over l that sums the Cauchy products of order n also sums the
    terms of order n + 1 that are already known (l = 1..n), reusing each loaded coefficient for two
    products (the single-order loop is bound by its loads: 15 per 9 products).
    """
    for n in range(0, order, 2):
        _operands(X, n, attitude)
        (P0, P1, P2, K0, K1, K2, E0, E1, E2,
         tP0, tP1, tP2, tK0, tK1, tK2, tE0, tE1, tE2) = _sums_lp(X, n)
        _next_lp(X, n, q, P0, P1, P2, K0, K1, K2, E0, E1, E2)
        if attitude:
            Q0, Q1, Q2, L0, L1, L2, tQ0, tQ1, tQ2, tL0, tL1, tL2 = _sums_att(X, n)
            _next_att(X, n, Q0, Q1, Q2, L0, L1, L2)
        k = n + 1
        if k >= order:
            break
        _operands(X, k, attitude)
        X0 = X[0]
        Xk = X[k]
        _next_lp(X, k, q,
                 _end(tP0, X0[0], Xk[3], Xk[0], X0[3]), _end(tP1, X0[1], Xk[4], Xk[1], X0[4]),
                 _end(tP2, X0[2], Xk[5], Xk[2], X0[5]), _end(tK0, X0[9], Xk[12], Xk[9], X0[12]),
                 _end(tK1, X0[10], Xk[13], Xk[10], X0[13]), _end(tK2, X0[11], Xk[14], Xk[11], X0[14]),
                 _end(tE0, X0[4], Xk[5], Xk[4], X0[5]), _end(tE1, X0[5], Xk[3], Xk[5], X0[3]),
                 _end(tE2, X0[3], Xk[4], Xk[3], X0[4]))
        if attitude:
            _next_att(X, k,
                      _end(tQ0, X0[6], Xk[3], Xk[6], X0[3]), _end(tQ1, X0[7], Xk[4], Xk[7], X0[4]),
                      _end(tQ2, X0[8], Xk[5], Xk[8], X0[5]), _end(tL0, X0[15], Xk[12], Xk[15], X0[12]),
                      _end(tL1, X0[16], Xk[13], Xk[16], X0[13]), _end(tL2, X0[17], Xk[14], Xk[17], X0[14]))
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
    scale = max(1.0, n0)
    r = np.inf
    if na > 0.0:
        r = (scale / na) ** (1.0 / (order - 1))
    if nb > 0.0:
        r = min(r, (scale / nb) ** (1.0 / order))
    # the tolerance enters through the order: at h = rho / e^2 the last term is ~ e^(-2p) ~ tol
    return r * np.exp(-2.0 + SAFETY_EXP / (order - 1))


@njit
def horner(X, order, tau, ncol, out):
    """``out[i] = sum_j X[j, i] tau^j`` for i < ncol (6: Gamma, omega; 9: and the first row of R).

    Written on scalars so that the independent Horner chains interleave (one chain is latency-bound).
    """
    v0 = X[order, 0]
    v1 = X[order, 1]
    v2 = X[order, 2]
    v3 = X[order, 3]
    v4 = X[order, 4]
    v5 = X[order, 5]
    for j in range(order - 1, -1, -1):
        v0 = v0 * tau + X[j, 0]
        v1 = v1 * tau + X[j, 1]
        v2 = v2 * tau + X[j, 2]
        v3 = v3 * tau + X[j, 3]
        v4 = v4 * tau + X[j, 4]
        v5 = v5 * tau + X[j, 5]
    out[0] = v0
    out[1] = v1
    out[2] = v2
    out[3] = v3
    out[4] = v4
    out[5] = v5
    if ncol > 6:
        v6 = X[order, 6]
        v7 = X[order, 7]
        v8 = X[order, 8]
        for j in range(order - 1, -1, -1):
            v6 = v6 * tau + X[j, 6]
            v7 = v7 * tau + X[j, 7]
            v8 = v8 * tau + X[j, 8]
        out[6] = v6
        out[7] = v7
        out[8] = v8


@njit
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


@njit
def _write_output(X, order, tau, attitude, ncol, out, tmp):
    """The state at ``t + tau`` (``ncol`` Taylor columns) into the output row ``out``."""
    horner(X, order, tau, ncol, tmp)
    for i in range(6):
        out[i] = tmp[i]
    if attitude:
        attitude_rows(tmp[0], tmp[1], tmp[2], tmp[6], tmp[7], tmp[8], out, 6)


@njit
def _all_finite(X):
    for i in range(N_STATE):
        if not np.isfinite(X[0, i]):
            return False
    return True


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
        if n_steps >= max_steps:
            status = MAX_STEPS
            break
        if not _all_finite(X):
            status = NON_FINITE
            break
        coefficients(X, order, q, attitude)
        h = step_size(X, order)  # inf at an equilibrium (all derivatives 0): the step is then exact
        if not (h > 1e-14 * max(1.0, t)):
            status = NON_FINITE if h != h else STEP_TOO_SMALL
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
N_INFO = 6  # as section.N_INFO: n_found, status, n_steps, 0, n_series_orders, 0
G_ZERO = 1e-12


@njit
def _gpoly(X, order, c, gc):
    """Coefficients of ``g(tau) = c^T Gamma'(t + tau)`` (degree order - 1) into ``gc``."""
    for j in range(order):
        gc[j] = (j + 1) * (c[0] * X[j + 1, 0] + c[1] * X[j + 1, 1] + c[2] * X[j + 1, 2])


@njit
def _geval(gc, order, x):
    """g(x) and g'(x) by Horner."""
    v = gc[order - 1]
    d = 0.0
    for j in range(order - 2, -1, -1):
        d = d * x + v
        v = v * x + gc[j]
    return v, d


@njit
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


@njit
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
        for i in range(dim):
            X[0, i] = ctl[N_CTL + i]
        t = ctl[1]
        t_last = ctl[3]
        g_old = ctl[4]
        n_steps = int(ctl[5])
        found = int(ctl[8])
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
        if n_steps >= stop:
            status = PAUSED
            break
        if t >= t_max:
            status = MAX_TIME
            break
        if t - t_last > max_gap:
            status = NO_CROSSING
            break
        if n_steps >= max_steps:
            status = MAX_STEPS
            break
        if not _all_finite(X):
            status = NON_FINITE
            break
        coefficients(X, order, q, attitude)
        h = step_size(X, order)
        if not (h > 1e-14 * max(1.0, t)):
            status = NON_FINITE if h != h else STEP_TOO_SMALL
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
    if status == PAUSED:
        ctl[0] = C_PAUSED
        ctl[1] = t
        ctl[3] = t_last
        ctl[4] = g_old
        ctl[5] = n_steps
        ctl[8] = found
        for i in range(dim):
            ctl[N_CTL + i] = X[0, i]
    else:
        ctl[0] = C_DONE
    return found


@njit(nogil=True)
def crossings_serial_taylor(Y0, q, c, order, n, t_max, max_gap, max_steps, Yout, T, info, ctl, pause_steps):
    """:func:`crossings_one_taylor` for each row of ``Y0`` (m x 6); ``Yout`` (m x n x 6) receives the LP
    states (principal frame), ``T`` (m x n) the times, ``info`` (m x N_INFO); at most about ``pause_steps``
    steps in this call, ``ctl`` (m x (N_CTL + 12)) keeps the loops' state: returns 1 when called again is
    needed (as :func:`section.crossings_serial`), else 0.  Releases the GIL."""
    X = np.zeros((order + 1, NCOL))
    gc = np.empty(order)
    tmp = np.empty(N_STATE)
    left = pause_steps
    for k in range(Y0.shape[0]):
        if ctl[k, 0] == C_DONE:
            continue
        if left <= 0:
            return 1
        used = int(ctl[k, 5]) if ctl[k, 0] == C_PAUSED else 0
        crossings_one_taylor(Y0[k], q, c, order, n, t_max, max_gap, max_steps, X, gc, tmp, Yout[k], T[k], info[k],
                             ctl[k], left)
        left -= info[k, 2] - used
        if ctl[k, 0] != C_DONE:
            return 1
    return 0
