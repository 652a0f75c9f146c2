"""The families of relative equilibria in adapted principal axes: the structure of a body and the curves' formulas.

Parameterisation (no NaN, no overflow)
--------------------------------------
Eq (42) reads ``(lambda I - s J) Gamma = m g rho`` with ``s = k^2 >= 0`` and ``lambda = k1``; alpha is
``s/lambda``.  Only the direction of ``(lambda, s)`` matters, so we use the bounded angle
``phi in [0, pi]`` with ``(lambda, s) ~ (cos phi, sin phi)`` and ``alpha = tan phi``: ``phi = 0`` is the hanging
point, ``phi = pi`` the inverted one, ``phi = pi/2`` the (38) point (alpha = +-inf), and the poles
``phi_i = atan(1/J_i)`` (alpha = 1/J_i) are where the spin rate diverges and Gamma tends to +-e_i.
In principal axes ``Gamma_i ~ rho_i / d_i`` with ``d_i = lambda - s J_i``.  Close to a pole ``phi_b`` the
samples are stored as the offset ``delta = phi - phi_b`` and the ``d_j`` are formed as
``d_b = -sqrt(1 + J_b^2) sin(delta)``, ``d_j = d_b + s (J_b - J_j)``; the ``d_j`` are then exactly affine in
``J_j`` up to rounding, so the residual of (42) stays at rounding level however close a sample is to a
pole.  The Eq (41)/(7) families are parameterised by the angle ``psi in (-pi/2, pi/2)`` along their great
half-circle.

Tolerances for the special cases (documented, relative)
-------------------------------------------------------
* principal moments with ``|J_i - J_j| <= rtol_J * J1`` (default 1e-12) are treated as equal;
* a component of rho (in adapted principal axes) with ``|rho_i| <= rtol_rho * |rho|`` (default 1e-12) is
  treated as zero.
The computation is then done for the snapped (exactly non-generic) data, whose residual for the original
pendulum is of the order of these tolerances.  Input that is merely *close* to non-generic (above the
tolerances) is treated exactly by the generic formulas; the pole-relative parameterisation keeps it
accurate, and the adaptive sampling resolves the sharp turns of the nearly-bifurcating families.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ..bodies import Pendulum
from .records import F64, CircleCurve, Curve, GenericCurve

RTOL_J = 1e-12
RTOL_RHO = 1e-12


@dataclass(frozen=True)
class AdaptedFrame:
    """Principal axes in which each group of equal moments sees rho along its first axis.

    ``P``: the axes (columns, body frame, det +1); ``j``: the (snapped) moments J1 >= J2 >= J3; ``r``: rho in
    these axes (snapped zeros); ``groups``: the indices of equal moments.
    """

    P: F64
    j: F64
    r: F64
    groups: list[list[int]]


def adapted_frame(pendulum: Pendulum, rtol_J: float, rtol_rho: float) -> AdaptedFrame:
    """The :class:`AdaptedFrame` of ``pendulum`` (moments within ``rtol_J``, rho components within ``rtol_rho``
    snapped)."""
    pp, Q = pendulum.principal()
    j = np.diag(pp.J).copy()
    r = np.array(pp.rho, dtype=float)
    P = Q.copy()
    groups = [[0]]
    for i in range(1, 3):
        if j[groups[-1][0]] - j[i] <= rtol_J * j[0]:
            groups[-1].append(i)
        else:
            groups.append([i])
    rn = np.linalg.norm(r)
    for g in groups:
        j[g] = np.mean(j[g])
        sub = r[g]
        nrm = np.linalg.norm(sub)
        if nrm <= rtol_rho * rn:
            r[g] = 0.0
            continue
        if len(g) == 1:
            continue
        u = sub / nrm
        if len(g) == 2:
            B = np.array([[u[0], -u[1]], [u[1], u[0]]])  # rotation, first column u
        else:
            a = np.eye(3)[np.argmin(np.abs(u))]
            v = np.cross(u, a)
            v /= np.linalg.norm(v)
            B = np.column_stack([u, v, np.cross(u, v)])
        P[:, g] = P[:, g] @ B
        r[g] = 0.0
        r[g[0]] = nrm
    if np.linalg.det(P) < 0:  # keep a proper rotation; flip an axis rho does not see if possible
        i = int(np.argmin(np.abs(r)))
        P[:, i] *= -1.0
        r[i] = -r[i]
    return AdaptedFrame(P, j, r, groups)


def generic_at(base: int, delta: ArrayLike, j: F64, r: F64, phis: F64) -> tuple[F64, F64, F64]:
    """Generic family at offsets ``delta`` from pole ``base``: returns Gamma (n, 3), s = k^2/(m g), alpha."""
    delta = np.asarray(delta, dtype=float)
    jb = j[base]
    s = np.sin(phis[base] + delta)
    db = -np.sqrt(1.0 + jb * jb) * np.sin(delta)
    d = db[:, None] + s[:, None] * (jb - j[None, :])
    d[:, base] = db
    act = r != 0.0
    dm = np.min(np.abs(d[:, act]), axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        w = np.where(act[None, :], r[None, :] * (dm[:, None] / d), 0.0)
    nw = np.linalg.norm(w, axis=1)
    G = w / nw[:, None]
    s_spin = s * nw / dm  # k^2 / (m g) = |w| s with w = rho / d
    lam = db + s * jb
    with np.errstate(divide="ignore", invalid="ignore"):
        alpha = np.where(lam != 0.0, s / np.where(lam != 0.0, lam, 1.0), np.inf)
    return G, s_spin, alpha


def circle_at(psi: ArrayLike, uhat: F64, free_dir: F64) -> tuple[F64, F64]:
    """Eq (41)/(7) family: Gamma = -cos(psi) uhat + sin(psi) e_free; returns Gamma, k^2/(m g |u|)."""
    psi = np.asarray(psi, dtype=float)
    G = -np.cos(psi)[:, None] * uhat[None, :] + np.sin(psi)[:, None] * free_dir[None, :]
    return G, 1.0 / np.cos(psi)


def evaluate(curve: Curve, base: ArrayLike, x: ArrayLike) -> tuple[F64, F64, F64]:
    """Evaluate a family (adapted axes) at samples ``(base, x)``: Gamma (n, 3), k^2/(m g) (n,), alpha (n,)."""
    x = np.asarray(x, dtype=float)
    base = np.asarray(base)
    if isinstance(curve, CircleCurve):
        G, sc = circle_at(x, curve.uhat, curve.free)
        return G, sc * curve.un, np.full(len(x), curve.alpha)
    j, r, phis = curve.j, curve.r, curve.phis
    G = np.empty((len(x), 3))
    s = np.empty(len(x))
    al = np.empty(len(x))
    for b in np.unique(base):
        m = base == b
        G[m], s[m], al[m] = generic_at(int(b), x[m], j, r, phis)
    for st in curve.static:  # exact static end points (s = 0)
        m = (base == st.base) & (x == st.x)
        G[m], s[m], al[m] = st.Gamma, 0.0, 0.0
    return G, s, al


def common_base(curve: Curve, b0: int, x0: float, b1: int, x1: float) -> tuple[float, float]:
    """Express two samples of a generic family in the base of the first (for bisection/root finding)."""
    if isinstance(curve, CircleCurve) or b0 == b1:
        return x0, x1
    phis = curve.phis
    return x0, (phis[b1] + x1) - phis[b0]


def curve_param(curve: Curve, base: NDArray[np.intp], x: F64) -> F64:
    """The bounded parameter of samples ``(base, x)``: ``phi`` of a generic family, ``psi`` of a circle."""
    return x if isinstance(curve, CircleCurve) else curve.phis[base] + x


__all__ = ["RTOL_J", "RTOL_RHO", "AdaptedFrame", "adapted_frame", "generic_at", "circle_at", "evaluate",
           "common_base", "curve_param"]
