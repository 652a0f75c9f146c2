"""Lie group variational integrator (Lee, Leok & McClamroch; the paper's ref [13]) for Eqs (1)-(2).

With ``Pi = J omega``, ``M(R) = m g rho x R^T e3`` and ``J_d = tr(J)/2 I - J``, one step of size ``h`` is::

    h hat(Pi_k) + h^2/2 hat(M_k) = F_k J_d - J_d F_k^T         (implicit in F_k in SO(3))
    R_{k+1}  = R_k F_k
    Pi_{k+1} = F_k^T Pi_k + h/2 F_k^T M_k + h/2 M_{k+1}

Writing ``F = cay(f)`` turns the implicit equation into ``g + g x f + (g.f) f - 2 J f = 0`` with
``g = h Pi_k + h^2/2 M_k``, solved by Newton's method to machine precision.  The state is kept as
``R`` (9, row-major) and ``Pi``; only ``Gamma = R^T e3`` (the third row of R) enters the moment.
Nothing is allocated inside the step loop.
"""
import numpy as np

from .._jit import njit
from .fields import P_MGRHO


@njit(inner=True)
def _newton_cayley(g0, g1, g2, J0, J1, J2, J3, J4, J5, J6, J7, J8, f0, f1, f2):
    """Newton's method for ``phi(f) = g + g x f + (g.f) f - 2 J f = 0`` from the guess ``f``; ``J0..J8`` is J
    row-major (scalars, so that the inlined code carries no array references).

    Returns f and the number of iterations used (-1 if Newton did not converge: step too large).
    """
    it = -1
    for k in range(1, 31):
        gf = g0 * f0 + g1 * f1 + g2 * f2
        # residual
        r0 = g0 + (g1 * f2 - g2 * f1) + gf * f0 - 2.0 * (J0 * f0 + J1 * f1 + J2 * f2)
        r1 = g1 + (g2 * f0 - g0 * f2) + gf * f1 - 2.0 * (J3 * f0 + J4 * f1 + J5 * f2)
        r2 = g2 + (g0 * f1 - g1 * f0) + gf * f2 - 2.0 * (J6 * f0 + J7 * f1 + J8 * f2)
        # Jacobian: hat(g) + (g.f) I + f g^T - 2 J
        a00 = gf + f0 * g0 - 2.0 * J0
        a01 = -g2 + f0 * g1 - 2.0 * J1
        a02 = g1 + f0 * g2 - 2.0 * J2
        a10 = g2 + f1 * g0 - 2.0 * J3
        a11 = gf + f1 * g1 - 2.0 * J4
        a12 = -g0 + f1 * g2 - 2.0 * J5
        a20 = -g1 + f2 * g0 - 2.0 * J6
        a21 = g0 + f2 * g1 - 2.0 * J7
        a22 = gf + f2 * g2 - 2.0 * J8
        c00 = a11 * a22 - a12 * a21
        c01 = a12 * a20 - a10 * a22
        c02 = a10 * a21 - a11 * a20
        det = a00 * c00 + a01 * c01 + a02 * c02
        inv = 1.0 / det
        # delta = A^{-1} r by the adjugate
        d0 = (c00 * r0 + (a02 * a21 - a01 * a22) * r1 + (a01 * a12 - a02 * a11) * r2) * inv
        d1 = (c01 * r0 + (a00 * a22 - a02 * a20) * r1 + (a02 * a10 - a00 * a12) * r2) * inv
        d2 = (c02 * r0 + (a01 * a20 - a00 * a21) * r1 + (a00 * a11 - a01 * a10) * r2) * inv
        f0 -= d0
        f1 -= d1
        f2 -= d2
        # Newton converges quadratically: once the correction is below 1e-8 relative, the next one would
        # be below round-off, so f is already exact to machine precision.
        if abs(d0) + abs(d1) + abs(d2) <= 1e-8 * (abs(f0) + abs(f1) + abs(f2)):
            it = k
            break
    # it = -1: no convergence in 30 iterations (the step is too large for the implicit equation)
    return f0, f1, f2, it


@njit(inner=True)
def _cayley(f0, f1, f2):
    """cay(f) = I + 2/(1+|f|^2) (hat f + hat f^2) as a row-major 9-tuple."""
    s = 2.0 / (1.0 + f0 * f0 + f1 * f1 + f2 * f2)
    return (1.0 - s * (f1 * f1 + f2 * f2), s * (-f2 + f0 * f1), s * (f1 + f0 * f2),
            s * (f2 + f0 * f1), 1.0 - s * (f0 * f0 + f2 * f2), s * (-f0 + f1 * f2),
            s * (-f1 + f0 * f2), s * (f0 + f1 * f2), 1.0 - s * (f0 * f0 + f1 * f1))


@njit(inner=True)
def _step_scalar(R, Pi0, Pi1, Pi2, f0, f1, f2, h, J, m0, m1, m2):
    """One LGVI step on scalars: ``R`` and ``J`` are row-major 9-tuples, ``m = m g rho``.

    Returns ``(R_new, Pi_new (3), f_new (3), F, it)``; everything stays in registers (no arrays, hence no
    reference counting or memory traffic in the caller's loop).
    """
    R00, R01, R02, R10, R11, R12, R20, R21, R22 = R
    # M_k = m g rho x Gamma_k, Gamma_k = R^T e3 = third row of R
    M0 = m1 * R22 - m2 * R21
    M1 = m2 * R20 - m0 * R22
    M2 = m0 * R21 - m1 * R20
    hh = 0.5 * h * h
    f0, f1, f2, it = _newton_cayley(h * Pi0 + hh * M0, h * Pi1 + hh * M1, h * Pi2 + hh * M2,
                                    J[0], J[1], J[2], J[3], J[4], J[5], J[6], J[7], J[8], f0, f1, f2)
    F = _cayley(f0, f1, f2)
    F00, F01, F02, F10, F11, F12, F20, F21, F22 = F
    # R <- R F
    Rn = (R00 * F00 + R01 * F10 + R02 * F20, R00 * F01 + R01 * F11 + R02 * F21,
          R00 * F02 + R01 * F12 + R02 * F22,
          R10 * F00 + R11 * F10 + R12 * F20, R10 * F01 + R11 * F11 + R12 * F21,
          R10 * F02 + R11 * F12 + R12 * F22,
          R20 * F00 + R21 * F10 + R22 * F20, R20 * F01 + R21 * F11 + R22 * F21,
          R20 * F02 + R21 * F12 + R22 * F22)
    # Pi_{k+1} = F^T (Pi_k + h/2 M_k) + h/2 M_{k+1}
    H0 = Pi0 + 0.5 * h * M0
    H1 = Pi1 + 0.5 * h * M1
    H2 = Pi2 + 0.5 * h * M2
    G0, G1, G2 = Rn[6], Rn[7], Rn[8]
    N0 = m1 * G2 - m2 * G1
    N1 = m2 * G0 - m0 * G2
    N2 = m0 * G1 - m1 * G0
    P0 = F00 * H0 + F10 * H1 + F20 * H2 + 0.5 * h * N0
    P1 = F01 * H0 + F11 * H1 + F21 * H2 + 0.5 * h * N1
    P2 = F02 * H0 + F12 * H1 + F22 * H2 + 0.5 * h * N2
    return Rn, P0, P1, P2, f0, f1, f2, F, it


@njit
def integrate_lgvi(R0, omega0, h, n_steps, stride, p, Rout, Wout):
    """Run ``n_steps`` LGVI steps of size ``h`` and store every ``stride``-th state.

    ``Rout`` (n_out, 3, 3) and ``Wout`` (n_out, 3) receive R and omega; row 0 is the initial state and
    ``n_steps == (n_out - 1) * stride``.  Returns ``[n_steps, total Newton iterations, max iterations,
    status]`` with status 0, or the index of the step whose implicit equation did not converge.
    """
    Pi0 = p[0] * omega0[0] + p[1] * omega0[1] + p[2] * omega0[2]
    Pi1 = p[3] * omega0[0] + p[4] * omega0[1] + p[5] * omega0[2]
    Pi2 = p[6] * omega0[0] + p[7] * omega0[1] + p[8] * omega0[2]
    # first Newton guess from the linearisation g - 2 J f = 0, f = J^{-1} g / 2 with g ~ h Pi
    f0 = 0.5 * h * (p[9] * Pi0 + p[10] * Pi1 + p[11] * Pi2)
    f1 = 0.5 * h * (p[12] * Pi0 + p[13] * Pi1 + p[14] * Pi2)
    f2 = 0.5 * h * (p[15] * Pi0 + p[16] * Pi1 + p[17] * Pi2)
    Rt = (R0[0, 0], R0[0, 1], R0[0, 2], R0[1, 0], R0[1, 1], R0[1, 2], R0[2, 0], R0[2, 1], R0[2, 2])
    Jt = (p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], p[8])
    m0, m1, m2 = p[P_MGRHO], p[P_MGRHO + 1], p[P_MGRHO + 2]
    Ji = (p[9], p[10], p[11], p[12], p[13], p[14], p[15], p[16], p[17])
    for i in range(3):
        for j in range(3):
            Rout[0, i, j] = R0[i, j]
        Wout[0, i] = omega0[i]
    k_out = 1
    total_it = 0
    max_it = 0
    status = 0
    # the state lives in registers (tuples of floats) for the whole loop
    for k in range(1, n_steps + 1):
        Rt, Pi0, Pi1, Pi2, f0, f1, f2, Ft, it = _step_scalar(Rt, Pi0, Pi1, Pi2, f0, f1, f2, h, Jt, m0, m1, m2)
        if it < 0:
            status = k  # the step at which the implicit equation had no (Newton) solution
            break
        total_it += it
        if it > max_it:
            max_it = it
        if k % stride == 0:
            for i in range(3):
                for j in range(3):
                    Rout[k_out, i, j] = Rt[3 * i + j]
                Wout[k_out, i] = Ji[3 * i] * Pi0 + Ji[3 * i + 1] * Pi1 + Ji[3 * i + 2] * Pi2
            k_out += 1
    stats = np.zeros(4, dtype=np.int64)
    stats[0] = n_steps
    stats[1] = total_it
    stats[2] = max_it
    stats[3] = status
    return stats
