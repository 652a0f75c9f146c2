"""Right-hand sides of the three models, their invariants and the conversions between their states.

Parameter vector ``p`` (built once by the model layer, see :func:`pack_params`)::

    p[0:9]   J (row-major), inertia about the pivot in the body frame
    p[9:18]  J^{-1} (row-major)
    p[18:21] m g rho
    p[21]    mu, the momentum-map value (Lagrange-Routh models only)
    p[22]    tr J

State layouts (flat float64 arrays), selected by an integer model id:

=========  =====  ==========================================  =====================
model id   size   layout                                      equations
=========  =====  ==========================================  =====================
FULL       12     R (row-major, 9), omega (3)                 Eqs (1)-(2)
LP         6      Gamma, omega                                Eqs (31)-(32)
LP_ATT     15     Gamma, omega, R (9)                         Eqs (31)-(32) + (2)
LP_ROW     9      Gamma, omega, r = R^T e1                    Eqs (31)-(32) + (2), first row of R
LR         6      Gamma, Gammadot                             Eqs (62)-(64)
LR_REC     16     Gamma, Gammadot, R_hor (9), theta_dyn       Eqs (62)-(67)
LP_TAN     8+6k   Gamma, omega, k x (dGamma, domega), I1, I2  Eqs (31)-(32) + variational
=========  =====  ==========================================  =====================

LP_TAN carries ``k >= 1`` deviation vectors (``k = (size - 8) / 6``) and the two MEGNO integrals of the first
one (see :func:`tangent_lp`).

``Gamma = R^T e3`` is the direction of gravity in the body frame (``e3`` points down).
"""
import numpy as np

from .._jit import njit

FULL = 0
LP = 1
LP_ATT = 2
LR = 3
LR_REC = 4
LP_TAN = 5
LP_ROW = 6
STATE_SIZE = (12, 6, 15, 6, 16, 14, 9)  # LP_TAN: 8 + 6 k, listed for k = 1
# offsets into the parameter vector p (the layout of the module docstring)
P_J = 0
P_JINV = 9
P_MGRHO = 18
P_MU = 21
P_TRJ = 22
N_PARAMS = 23


def pack_params(J, mgrho, mu=0.0):
    """Build the flat parameter vector ``p`` from ``J`` (3x3), ``m g rho`` (3) and ``mu``."""
    J = np.asarray(J, dtype=np.float64)
    p = np.empty(N_PARAMS)
    p[P_J:P_J + 9] = J.ravel()
    p[P_JINV:P_JINV + 9] = np.linalg.inv(J).ravel()
    p[P_MGRHO:P_MGRHO + 3] = mgrho
    p[P_MU] = mu
    p[P_TRJ] = np.trace(J)
    return p


# ---- scalar building blocks (tuples live on the stack: no heap allocation in the hot loop) ----

@njit(inner=True)
def _cr(a0, a1, a2, b0, b1, b2):
    return a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0


@njit(inner=True)
def _mv(p, off, x0, x1, x2):
    return (p[off] * x0 + p[off + 1] * x1 + p[off + 2] * x2,
            p[off + 3] * x0 + p[off + 4] * x1 + p[off + 5] * x2,
            p[off + 6] * x0 + p[off + 7] * x1 + p[off + 8] * x2)


@njit(inner=True)
def _euler(G0, G1, G2, w0, w1, w2, p):
    """Eq (1)/(31): omega_dot = J^{-1} (J omega x omega + m g rho x Gamma)."""
    Jw0, Jw1, Jw2 = _mv(p, P_J, w0, w1, w2)
    t0, t1, t2 = _cr(Jw0, Jw1, Jw2, w0, w1, w2)
    s0, s1, s2 = _cr(p[P_MGRHO], p[P_MGRHO + 1], p[P_MGRHO + 2], G0, G1, G2)
    return _mv(p, P_JINV, t0 + s0, t1 + s1, t2 + s2)


@njit(inner=True)
def _lr_b_nu(G0, G1, G2, D0, D1, D2, p):
    """u = Gammadot x Gamma, J Gamma, Gamma.J Gamma, and b, nu of Eq (64)."""
    u0, u1, u2 = _cr(D0, D1, D2, G0, G1, G2)
    JG0, JG1, JG2 = _mv(p, P_J, G0, G1, G2)
    gJg = G0 * JG0 + G1 * JG1 + G2 * JG2
    b = (JG0 * u0 + JG1 * u1 + JG2 * u2) / gJg
    nu = p[P_MU] / gJg
    return u0, u1, u2, JG0, JG1, JG2, gJg, b, nu


@njit(inner=True)
def _lr_acc(G0, G1, G2, D0, D1, D2, p):
    """Eq (62) with Sigma, c, b, nu of Eqs (63)-(64)."""
    u0, u1, u2, JG0, JG1, JG2, gJg, b, nu = _lr_b_nu(G0, G1, G2, D0, D1, D2, p)
    c = nu * (p[P_TRJ] - 2.0 * (JG0 * JG0 + JG1 * JG1 + JG2 * JG2) / gJg)
    Ju0, Ju1, Ju2 = _mv(p, P_J, u0, u1, u2)
    i0, i1, i2 = _cr(Ju0 - b * JG0, Ju1 - b * JG1, Ju2 - b * JG2,
                     u0 - b * G0, u1 - b * G1, u2 - b * G2)
    t0, t1, t2 = _cr(JG0, JG1, JG2, G0, G1, G2)
    s0, s1, s2 = _cr(G0, G1, G2, p[P_MGRHO], p[P_MGRHO + 1], p[P_MGRHO + 2])
    nu2 = nu * nu
    S0, S1, S2 = _mv(p, P_JINV, i0 + nu2 * t0 - s0 - c * D0,
                     i1 + nu2 * t1 - s1 - c * D1,
                     i2 + nu2 * t2 - s2 - c * D2)
    S0 += b * D0
    S1 += b * D1
    S2 += b * D2
    gd2 = D0 * D0 + D1 * D1 + D2 * D2
    a0, a1, a2 = _cr(G0, G1, G2, S0, S1, S2)
    return a0 - gd2 * G0, a1 - gd2 * G1, a2 - gd2 * G2


@njit
def lp_field(G0, G1, G2, w0, w1, w2, p):
    """Eqs (31)-(32) on scalars: ``(Gammadot, omegadot)`` with ``Gammadot = Gamma x omega``."""
    d0, d1, d2 = _cr(G0, G1, G2, w0, w1, w2)  # Eq (32)
    a0, a1, a2 = _euler(G0, G1, G2, w0, w1, w2, p)  # Eq (31)
    return d0, d1, d2, a0, a1, a2


@njit(inner=True)
def _lp_into(y, p, dy):
    """Eqs (31)-(32) of the state's first six components (Gamma, omega) into dy[0:6]."""
    dy[0], dy[1], dy[2], dy[3], dy[4], dy[5] = lp_field(y[0], y[1], y[2], y[3], y[4], y[5], p)


@njit(inner=True)
def _rot_rate(y, off, w0, w1, w2, dy):
    """dR = R hat(w) for R stored row-major at y[off:off+9] (Eq 2)."""
    for i in range(3):
        r0 = y[off + 3 * i]
        r1 = y[off + 3 * i + 1]
        r2 = y[off + 3 * i + 2]
        dy[off + 3 * i] = r1 * w2 - r2 * w1
        dy[off + 3 * i + 1] = r2 * w0 - r0 * w2
        dy[off + 3 * i + 2] = r0 * w1 - r1 * w0


@njit(inner=True)
def tangent_lp(t, y, p, dy):
    """Eqs (31)-(32), their variational equations and the MEGNO integrals (state layout LP_TAN).

    For each deviation ``(dGamma, domega)`` (linearise Eqs 31-32 about ``(Gamma, omega)``)::

        J domega' = J domega x omega + J omega x domega + m g rho x dGamma
        dGamma'   = dGamma x omega + Gamma x domega

    The last two components integrate, for the first deviation ``delta``, ``I1' = t (delta' . delta) /
    (delta . delta)`` and ``I2' = 2 I1 / t``, so that MEGNO ``Y(t) = 2 I1 / t`` and its mean
    ``Ybar(t) = I2 / t`` (Cincotta & Simo 2000).  Both integrands are invariant under a rescaling of delta, so
    the integrators may renormalise the deviations (a linear flow) without touching I1, I2.
    """
    G0, G1, G2 = y[0], y[1], y[2]
    w0, w1, w2 = y[3], y[4], y[5]
    _lp_into(y, p, dy)
    n = y.shape[0]
    k = (n - 8) // 6
    Jw0, Jw1, Jw2 = _mv(p, 0, w0, w1, w2)
    num = 0.0
    den = 0.0
    for j in range(k):
        o = 6 + 6 * j
        x0, x1, x2 = y[o], y[o + 1], y[o + 2]
        v0, v1, v2 = y[o + 3], y[o + 4], y[o + 5]
        e0, e1, e2 = _cr(x0, x1, x2, w0, w1, w2)
        f0, f1, f2 = _cr(G0, G1, G2, v0, v1, v2)
        Jv0, Jv1, Jv2 = _mv(p, 0, v0, v1, v2)
        b0, b1, b2 = _cr(Jv0, Jv1, Jv2, w0, w1, w2)
        c0, c1, c2 = _cr(Jw0, Jw1, Jw2, v0, v1, v2)
        s0, s1, s2 = _cr(p[18], p[19], p[20], x0, x1, x2)
        q0, q1, q2 = _mv(p, 9, b0 + c0 + s0, b1 + c1 + s1, b2 + c2 + s2)
        dy[o] = e0 + f0
        dy[o + 1] = e1 + f1
        dy[o + 2] = e2 + f2
        dy[o + 3] = q0
        dy[o + 4] = q1
        dy[o + 5] = q2
        if j == 0:
            num = (x0 * dy[o] + x1 * dy[o + 1] + x2 * dy[o + 2]
                   + v0 * q0 + v1 * q1 + v2 * q2)
            den = x0 * x0 + x1 * x1 + x2 * x2 + v0 * v0 + v1 * v1 + v2 * v2
    dy[n - 2] = t * num / den if den > 0.0 else 0.0
    dy[n - 1] = 2.0 * y[n - 2] / t if t > 0.0 else 0.0
    return 0


@njit
def rhs(model, t, y, p, dy):
    """Evaluate ``dy = f(t, y)`` in place for the model id ``model`` (see module docstring)."""
    if model == FULL:
        G0, G1, G2 = y[6], y[7], y[8]  # third row of R = R^T e3
        w0, w1, w2 = y[9], y[10], y[11]
        _rot_rate(y, 0, w0, w1, w2, dy)
        a0, a1, a2 = _euler(G0, G1, G2, w0, w1, w2, p)
        dy[9] = a0
        dy[10] = a1
        dy[11] = a2
    elif model == LP_TAN:
        tangent_lp(t, y, p, dy)
    elif model == LP or model == LP_ATT or model == LP_ROW:
        w0, w1, w2 = y[3], y[4], y[5]
        _lp_into(y, p, dy)
        if model == LP_ATT:
            _rot_rate(y, 6, w0, w1, w2, dy)
        elif model == LP_ROW:  # r' = r x omega, the first row of R' = R hat(omega) (Eq 2)
            dy[6], dy[7], dy[8] = _cr(y[6], y[7], y[8], w0, w1, w2)
    else:  # LR, LR_REC
        G0, G1, G2 = y[0], y[1], y[2]
        D0, D1, D2 = y[3], y[4], y[5]
        dy[0], dy[1], dy[2] = D0, D1, D2
        dy[3], dy[4], dy[5] = _lr_acc(G0, G1, G2, D0, D1, D2, p)
        if model == LR_REC:
            u0, u1, u2, JG0, JG1, JG2, gJg, b, nu = _lr_b_nu(G0, G1, G2, D0, D1, D2, p)
            # Eq (66): omega_hor = Gammadot x Gamma - b Gamma, Eq (65): R_hor' = R_hor hat(omega_hor)
            _rot_rate(y, 6, u0 - b * G0, u1 - b * G1, u2 - b * G2, dy)
            dy[15] = nu  # Eq (67)
    return 0


@njit
def project(model, y):
    """Put a Lagrange-Routh state back on TS^2: ``|Gamma| = 1`` and ``Gamma . Gammadot = 0``.

    TS^2 is invariant under Eq (62) but not attracting in R^6: in chaotic motion, round-off and truncation
    errors off the manifold grow exponentially (measured: |Gamma| - 1 reached 1e-1 after 160 s for the
    Fig. 2 body at E = 2.03 without this).  The integrators call this after every accepted step; the change is
    of the size of the local error.  No-op for the other models.
    """
    if model == LR or model == LR_REC:
        n = np.sqrt(y[0] * y[0] + y[1] * y[1] + y[2] * y[2])
        y[0] /= n
        y[1] /= n
        y[2] /= n
        d = y[0] * y[3] + y[1] * y[4] + y[2] * y[5]
        y[3] -= d * y[0]
        y[4] -= d * y[1]
        y[5] -= d * y[2]


@njit
def lr_accel(Gamma, Gammadot, p, out):
    """Eq (62) on arrays (the same code as the integrators use)."""
    out[0], out[1], out[2] = _lr_acc(Gamma[0], Gamma[1], Gamma[2], Gammadot[0], Gammadot[1], Gammadot[2], p)


@njit
def lr_omega(Gamma, Gammadot, p, out):
    """Angular velocity of a Lagrange-Routh state, Eqs (66) and (69).

    ``omega = Gammadot x Gamma + (nu - b) Gamma``; it satisfies ``Gamma x omega = Gammadot`` (Eq 32) and
    ``omega^T J Gamma = mu``.  Returns ``(b, nu)``.
    """
    u0, u1, u2, JG0, JG1, JG2, gJg, b, nu = _lr_b_nu(Gamma[0], Gamma[1], Gamma[2],
                                                     Gammadot[0], Gammadot[1], Gammadot[2], p)
    out[0] = u0 + (nu - b) * Gamma[0]
    out[1] = u1 + (nu - b) * Gamma[1]
    out[2] = u2 + (nu - b) * Gamma[2]
    return b, nu


@njit(inner=True)
def _energy(G0, G1, G2, w0, w1, w2, p):
    Jw0, Jw1, Jw2 = _mv(p, P_J, w0, w1, w2)
    return 0.5 * (w0 * Jw0 + w1 * Jw1 + w2 * Jw2) - (p[P_MGRHO] * G0 + p[P_MGRHO + 1] * G1 + p[P_MGRHO + 2] * G2)


@njit(inner=True)
def _mu(G0, G1, G2, w0, w1, w2, p):
    JG0, JG1, JG2 = _mv(p, P_J, G0, G1, G2)
    return w0 * JG0 + w1 * JG1 + w2 * JG2


@njit
def energy_lp(Gamma, omega, p):
    """Total energy, Eq (34): ``E = 1/2 omega^T J omega - m g rho^T Gamma``."""
    return _energy(Gamma[0], Gamma[1], Gamma[2], omega[0], omega[1], omega[2], p)


@njit
def mu_lp(Gamma, omega, p):
    """Vertical angular momentum (Prop 1/8, Eq 56): ``mu = h = omega^T J Gamma``."""
    return _mu(Gamma[0], Gamma[1], Gamma[2], omega[0], omega[1], omega[2], p)


@njit(inner=True)
def state_gamma_omega(model, y, p, Gamma, omega):
    """Extract (Gamma, omega) from a state of any model."""
    if model == FULL:
        for i in range(3):
            Gamma[i] = y[6 + i]
            omega[i] = y[9 + i]
    elif model == LP or model == LP_ATT or model == LP_TAN or model == LP_ROW:
        for i in range(3):
            Gamma[i] = y[i]
            omega[i] = y[3 + i]
    else:
        for i in range(3):
            Gamma[i] = y[i]
        lr_omega(y[0:3], y[3:6], p, omega)


@njit
def invariants(model, y, p):
    """(E, mu) for a state of any model."""
    G = np.empty(3)
    w = np.empty(3)
    state_gamma_omega(model, y, p, G, w)
    return energy_lp(G, w, p), mu_lp(G, w, p)


@njit
def invariants_batch(model, Y, p, out):
    """(E, mu) for each row of ``Y``; ``out`` has shape (n, 2)."""
    lp_rows = model == LP or model == LP_ATT or model == LP_ROW or model == LP_TAN  # rows start (Gamma, omega)
    for k in range(Y.shape[0]):
        if lp_rows:  # the same formulas on scalars: no temporary arrays per row
            G0, G1, G2, w0, w1, w2 = Y[k, 0], Y[k, 1], Y[k, 2], Y[k, 3], Y[k, 4], Y[k, 5]
            out[k, 0] = _energy(G0, G1, G2, w0, w1, w2, p)
            out[k, 1] = _mu(G0, G1, G2, w0, w1, w2, p)
        else:
            e, m = invariants(model, Y[k], p)
            out[k, 0] = e
            out[k, 1] = m
