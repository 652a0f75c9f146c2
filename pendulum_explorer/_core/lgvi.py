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


@njit(inline="always")
def _solve_cayley(g0, g1, g2, p, f0, f1, f2):
    """Newton's method for ``phi(f) = g + g x f + (g.f) f - 2 J f = 0`` from the guess ``f``.

    Returns f and the number of iterations used (-1 if Newton did not converge: step too large).
    """
    it = -1
    for k in range(1, 31):
        gf = g0 * f0 + g1 * f1 + g2 * f2
        # residual
        r0 = g0 + (g1 * f2 - g2 * f1) + gf * f0 - 2.0 * (p[0] * f0 + p[1] * f1 + p[2] * f2)
        r1 = g1 + (g2 * f0 - g0 * f2) + gf * f1 - 2.0 * (p[3] * f0 + p[4] * f1 + p[5] * f2)
        r2 = g2 + (g0 * f1 - g1 * f0) + gf * f2 - 2.0 * (p[6] * f0 + p[7] * f1 + p[8] * f2)
        # Jacobian: hat(g) + (g.f) I + f g^T - 2 J
        a00 = gf + f0 * g0 - 2.0 * p[0]
        a01 = -g2 + f0 * g1 - 2.0 * p[1]
        a02 = g1 + f0 * g2 - 2.0 * p[2]
        a10 = g2 + f1 * g0 - 2.0 * p[3]
        a11 = gf + f1 * g1 - 2.0 * p[4]
        a12 = -g0 + f1 * g2 - 2.0 * p[5]
        a20 = -g1 + f2 * g0 - 2.0 * p[6]
        a21 = g0 + f2 * g1 - 2.0 * p[7]
        a22 = gf + f2 * g2 - 2.0 * p[8]
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


@njit(inline="always")
def _cayley_into(f0, f1, f2, F):
    """F = cay(f) = I + 2/(1+|f|^2) (hat f + hat f^2)."""
    s = 2.0 / (1.0 + f0 * f0 + f1 * f1 + f2 * f2)
    F[0, 0] = 1.0 - s * (f1 * f1 + f2 * f2)
    F[1, 1] = 1.0 - s * (f0 * f0 + f2 * f2)
    F[2, 2] = 1.0 - s * (f0 * f0 + f1 * f1)
    F[0, 1] = s * (-f2 + f0 * f1)
    F[1, 0] = s * (f2 + f0 * f1)
    F[0, 2] = s * (f1 + f0 * f2)
    F[2, 0] = s * (-f1 + f0 * f2)
    F[1, 2] = s * (-f0 + f1 * f2)
    F[2, 1] = s * (f0 + f1 * f2)


@njit
def lgvi_step(R, Pi, h, p, F, Rn, f):
    """One LGVI step in place: ``R <- R F``, ``Pi <- F^T Pi + h/2 F^T M_k + h/2 M_{k+1}``.

    ``F`` and ``Rn`` are 3x3 work arrays; ``f`` (3) holds the previous step's Cayley vector, used as the
    Newton starting guess, and receives the new one.  Returns the number of Newton iterations.
    """
    G0, G1, G2 = R[2, 0], R[2, 1], R[2, 2]
    # M_k = m g rho x Gamma_k
    M0 = p[19] * G2 - p[20] * G1
    M1 = p[20] * G0 - p[18] * G2
    M2 = p[18] * G1 - p[19] * G0
    hh = 0.5 * h * h
    f0, f1, f2, it = _solve_cayley(h * Pi[0] + hh * M0, h * Pi[1] + hh * M1, h * Pi[2] + hh * M2, p,
                                   f[0], f[1], f[2])
    f[0] = f0
    f[1] = f1
    f[2] = f2
    _cayley_into(f0, f1, f2, F)
    for i in range(3):
        for j in range(3):
            Rn[i, j] = R[i, 0] * F[0, j] + R[i, 1] * F[1, j] + R[i, 2] * F[2, j]
    for i in range(3):
        for j in range(3):
            R[i, j] = Rn[i, j]
    H0 = Pi[0] + 0.5 * h * M0
    H1 = Pi[1] + 0.5 * h * M1
    H2 = Pi[2] + 0.5 * h * M2
    G0, G1, G2 = R[2, 0], R[2, 1], R[2, 2]
    N0 = p[19] * G2 - p[20] * G1
    N1 = p[20] * G0 - p[18] * G2
    N2 = p[18] * G1 - p[19] * G0
    Pi[0] = F[0, 0] * H0 + F[1, 0] * H1 + F[2, 0] * H2 + 0.5 * h * N0
    Pi[1] = F[0, 1] * H0 + F[1, 1] * H1 + F[2, 1] * H2 + 0.5 * h * N1
    Pi[2] = F[0, 2] * H0 + F[1, 2] * H1 + F[2, 2] * H2 + 0.5 * h * N2
    return it


@njit
def integrate_lgvi(R0, omega0, h, n_steps, stride, p, Rout, Wout):
    """Run ``n_steps`` LGVI steps of size ``h`` and store every ``stride``-th state.

    ``Rout`` (n_out, 3, 3) and ``Wout`` (n_out, 3) receive R and omega; row 0 is the initial state and
    ``n_steps == (n_out - 1) * stride``.  Returns ``[n_steps, total Newton iterations, max iterations,
    status]`` with status 0, or the index of the step whose implicit equation did not converge.
    """
    R = R0.copy()
    Pi = np.empty(3)
    for i in range(3):
        Pi[i] = p[3 * i] * omega0[0] + p[3 * i + 1] * omega0[1] + p[3 * i + 2] * omega0[2]
    F = np.empty((3, 3))
    Rn = np.empty((3, 3))
    # first Newton guess from the linearisation g - 2 J f = 0, f = J^{-1} g / 2 with g ~ h Pi
    f = np.empty(3)
    for i in range(3):
        f[i] = 0.5 * h * (p[9 + 3 * i] * Pi[0] + p[9 + 3 * i + 1] * Pi[1] + p[9 + 3 * i + 2] * Pi[2])
    Rout[0] = R
    Wout[0, :] = omega0
    k_out = 1
    total_it = 0
    max_it = 0
    status = 0
    for k in range(1, n_steps + 1):
        it = lgvi_step(R, Pi, h, p, F, Rn, f)
        if it < 0:
            status = k  # the step at which the implicit equation had no (Newton) solution
            break
        total_it += it
        if it > max_it:
            max_it = it
        if k % stride == 0:
            Rout[k_out] = R
            for i in range(3):
                Wout[k_out, i] = p[9 + 3 * i] * Pi[0] + p[9 + 3 * i + 1] * Pi[1] + p[9 + 3 * i + 2] * Pi[2]
            k_out += 1
    stats = np.zeros(4, dtype=np.int64)
    stats[0] = n_steps
    stats[1] = total_it
    stats[2] = max_it
    stats[3] = status
    return stats
