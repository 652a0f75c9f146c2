"""Conversions between the three state representations and the Lagrange-Routh model with reconstruction.

* full model: (R, omega) on TSO(3), Eqs (1)-(2);
* Lagrange-Poincaré: (Gamma, omega), Gamma = R^T e3, Eqs (31)-(32);
* Lagrange-Routh: (Gamma, Gammadot) at a momentum mu, Eqs (62)-(64); reconstruction by Prop 17.
"""
from __future__ import annotations

import math
import time

import numpy as np
from numpy.typing import ArrayLike, NDArray

from . import _validate as _v
from ._core import fields as _f
from .bodies import Pendulum
from .errors import InvalidIntegrationError, InvalidStateError
from .drift import report_drift
from .geometry import rotation_about_vertical
from .integrators import (MAX_OMEGA, check_predicted_steps, dop853_run, expected_steps, integrate_chunked,
                          orthogonality_errors, step_budget)
from .trajectory import Trajectory, check_conservation, validate_span

#: Gauss-Legendre order accepted by geometric_phase (the quadrature grid has loop length x order^2 points)
MAX_PHASE_ORDER = 200
MAX_LOOP_POINTS = 100_000
#: a loop is closed when the gap from its last point to its first is at most this many times its largest step
CLOSURE_FACTOR = 3.0
#: quadrature points evaluated at once by geometric_phase (its working memory: ~20 floats each, ~80 MB)
PHASE_CHUNK_POINTS = 1 << 19
#: quadrature points of one geometric_phase request (loop length x order^2): ~1e7 points take ~5-30 s
MAX_PHASE_POINTS = 2 ** 30 // 48


def lr_from_lp(pendulum: Pendulum, Gamma: ArrayLike,
               omega: ArrayLike) -> tuple[NDArray[np.float64], NDArray[np.float64], float]:
    """(Gamma, omega) -> (Gamma, Gammadot, mu): Gammadot = Gamma x omega (Eq 32), mu = omega^T J Gamma (Eq 56)."""
    _v.check_pendulum(pendulum)
    Gamma = _v.unit_vector("Gamma", Gamma)
    omega = _v.array("omega", omega, (3,), max_abs=MAX_OMEGA)
    return Gamma, np.cross(Gamma, omega), float(_f.mu_lp(Gamma, omega, pendulum.params()))


def lp_from_lr(pendulum: Pendulum, Gamma: ArrayLike, Gammadot: ArrayLike, mu: float) -> NDArray[np.float64]:
    """(Gamma, Gammadot, mu) -> omega = Gammadot x Gamma + (nu - b) Gamma (Eqs 66, 69)."""
    _v.check_pendulum(pendulum)
    Gamma = _v.unit_vector("Gamma", Gamma)
    Gammadot = _v.tangent_vector("Gammadot", Gammadot, Gamma, "Gamma", max_abs=MAX_OMEGA)
    mu = _v.real("mu", mu)
    w = np.empty(3)
    _f.lr_omega(Gamma, Gammadot, pendulum.params(mu), w)
    return w


def energy(pendulum: Pendulum, Gamma: ArrayLike, omega: ArrayLike) -> float:
    """Total energy, Eq (34) (the same kernel as the integrators use)."""
    _v.check_pendulum(pendulum)
    Gamma = _v.unit_vector("Gamma", Gamma)
    omega = _v.array("omega", omega, (3,), max_abs=MAX_OMEGA)
    return float(_f.energy_lp(Gamma, omega, pendulum.params()))


def momentum(pendulum: Pendulum, Gamma: ArrayLike, omega: ArrayLike) -> float:
    """Vertical angular momentum mu = omega^T J Gamma (Prop 1, Eq 56)."""
    _v.check_pendulum(pendulum)
    Gamma = _v.unit_vector("Gamma", Gamma)
    omega = _v.array("omega", omega, (3,), max_abs=MAX_OMEGA)
    return float(_f.mu_lp(Gamma, omega, pendulum.params()))


def simulate_lr(pendulum: Pendulum, Gamma0: ArrayLike, Gammadot0: ArrayLike, mu: float, t_final: float, *,
                R0: ArrayLike | None = None, rtol: float = 1e-10, atol: float = 1e-12, n_out: int = 1001,
                max_steps: int | None = None) -> Trajectory:
    """Integrate the Lagrange-Routh model (62)-(64) at momentum ``mu`` and reconstruct (R, omega) (Prop 17).

    The reduced state, the horizontal lift R_hor (Eqs 65-66) and theta_dyn (Eq 67) are integrated together
    by DOP853; then ``R = exp(theta_dyn hat e3) R_hor`` (Eq 68) and ``omega = omega_hor + nu Gamma`` (Eq 69).

    Parameters
    ----------
    Gamma0 : unit 3-vector (to ``UNIT_TOL`` = 1e-6; normalised)
    Gammadot0 : 3-vector tangent at Gamma0 (``Gamma0 . Gammadot0 = 0`` to 1e-6; projected)
    mu : float
    R0 : rotation with ``R0^T e3 = Gamma0`` (default: the rotation built by :func:`attitude_from_gamma`)
    rtol, atol, n_out, max_steps : as in :func:`~pendulum_explorer.simulate`

    Returns
    -------
    Trajectory
        with ``method = "lr-dop853"``, ``stats["theta_dyn"]``, the final dynamic phase, and the invariant drift
        ``stats["drift"]`` against ``stats["drift_bound"] = (rtol + atol) sqrt(n_steps) + 4 eps n_steps``, as for
        :func:`~pendulum_explorer.simulate`.

    Warns
    -----
    InvariantDriftWarning
        A drift exceeds ``stats["drift_bound"]`` or a constraint drifted beyond 1e-6 (reported, not enforced:
        Gamma and R_hor are returned as integrated).
    """
    _v.check_pendulum(pendulum)
    Gamma0 = _v.unit_vector("Gamma0", Gamma0)
    Gammadot0 = _v.tangent_vector("Gammadot0", Gammadot0, Gamma0, "Gamma0", max_abs=MAX_OMEGA)
    mu = _v.real("mu", mu)
    t_final, n_out = validate_span(t_final, n_out)
    rtol, atol = _v.tolerances(rtol, atol)
    R0 = attitude_from_gamma(Gamma0) if R0 is None else _v.rotation("R0", R0)
    if np.abs(R0[2] - Gamma0).max() > _v.UNIT_TOL:
        raise InvalidStateError(f"R0 must satisfy R0^T e3 = Gamma0; got R0^T e3 = {R0[2].tolist()}")
    p = pendulum.params(mu)
    w0 = np.empty(3)
    _f.lr_omega(Gamma0, Gammadot0, p, w0)
    if not np.all(np.isfinite(w0)) or not math.isfinite(_f.energy_lp(Gamma0, w0, p)):
        raise InvalidStateError("the energy of (Gamma0, Gammadot0, mu) overflows double precision; reduce mu "
                                "or Gammadot0")
    budget = step_budget(pendulum, float(np.linalg.norm(w0)), t_final, max_steps, "Gammadot0 and mu")
    y0 = np.concatenate([Gamma0, Gammadot0, R0.ravel(), [0.0]])
    Y = np.empty((n_out, 16))
    t0 = time.perf_counter()
    est = expected_steps(pendulum, float(np.linalg.norm(w0)), t_final)
    check_predicted_steps(dop853_run(_f.LR_REC, p, rtol, atol), y0, t_final, budget, est, max_steps is not None,
                          what="DOP853 on the Lagrange-Routh model")
    st = integrate_chunked(_f.LR_REC, y0, t_final, n_out, p, rtol, atol, budget, Y, est)
    _v.raise_for_status(st[3], "DOP853 on the Lagrange-Routh model", t=t_final * (int(st[4]) - 1) / (n_out - 1),
                        t_final=t_final, budget=budget)
    wall = time.perf_counter() - t0
    Gamma = Y[:, 0:3].copy()
    Rhor = Y[:, 6:15].reshape(n_out, 3, 3)
    theta = Y[:, 15]
    R = rotation_about_vertical(theta) @ Rhor  # Eq (68)
    W = np.empty((n_out, 3))
    for k in range(n_out):
        _f.lr_omega(Y[k, 0:3], Y[k, 3:6], p, W[k])  # Eq (69)
    inv = np.empty((n_out, 2))
    _f.invariants_batch(_f.LP, np.concatenate([Gamma, W], axis=1), p, inv)
    stats = {"n_steps": int(st[0]), "n_rejected": int(st[1]), "nfev": int(st[2]), "wall_time": wall,
             "theta_dyn": float(theta[-1]), "orthogonality_error": float(orthogonality_errors(R).max()),
             "rtol": rtol, "atol": atol}
    traj = Trajectory(pendulum, np.linspace(0, t_final, n_out), R, W, Gamma, inv[:, 0].copy(), inv[:, 1].copy(),
                      "lr-dop853", stats)
    check_conservation(traj, "DOP853 on the Lagrange-Routh model")
    report_drift(traj, rtol + atol, "DOP853 on the Lagrange-Routh model")
    return traj


def attitude_from_gamma(Gamma: ArrayLike, psi: float = 0.0) -> NDArray[np.float64]:
    """A rotation R with ``R^T e3 = Gamma`` (one point of the fibre over Gamma; ``psi`` rotates about e3).

    For Gamma = rho/|rho| (resp. -rho/|rho|) this builds a point of the hanging (resp. inverted) attitude
    manifold, Eqs (10)-(11).
    """
    G = _v.unit_vector("Gamma", Gamma)
    psi = _v.real("psi", psi)
    # third row of R is Gamma; complete to a right-handed orthonormal basis (rows of R)
    a = np.array([1.0, 0.0, 0.0]) if abs(G[0]) < 0.9 else np.array([0.0, 1.0, 0.0])
    r1 = a - (a @ G) * G
    r1 /= np.linalg.norm(r1)
    r2 = np.cross(G, r1)
    R = np.array([r1, r2, G])
    return rotation_about_vertical(psi) @ R


def _phase_density(J: NDArray[np.float64], G: NDArray[np.float64]) -> NDArray[np.float64]:
    """Integrand of Eq (70): (2 |J Gamma|^2 - tr J (Gamma.J Gamma)) / (Gamma.J Gamma)^2, for Gamma (..., 3)."""
    JG = G @ J  # J symmetric
    gJg = np.einsum("...i,...i->...", G, JG)
    return (2.0 * np.einsum("...i,...i->...", JG, JG) - np.trace(J) * gJg) / gJg ** 2


def geometric_phase(pendulum: Pendulum, loop: ArrayLike, order: int = 12) -> float:
    """Geometric phase of a closed reduced curve, Prop 18 / Eq (70).

    ``theta_geo = integral over B of (2 |J Gamma|^2 - tr J (Gamma.J Gamma)) / (Gamma.J Gamma)^2 dA``, where
    B is the spherical surface bounded by the loop, oriented by the loop (counter-clockwise seen from
    outside the sphere = positive area).  With mu = 0 the motion whose reduced curve is the loop returns to
    ``R(T) = exp(theta_geo hat e3) R(0)`` (checked against the horizontal lift, Eqs 65-66, in the tests).

    Parameters
    ----------
    loop : (n, 3) array
        Points of the closed curve on S^2 (unit vectors to 1e-6; the last point may repeat the first; an open
        curve, whose closing gap exceeds 3 times its largest step, is refused).  The surface is the fan of
        spherical triangles from the normalised mean of the points when the loop lies in the open hemisphere
        around it; any other simple closed loop (e.g. one crossing the equator) is spanned by the smaller of the
        two regions it bounds, by a fan of geodesic triangles from a point far from the loop's antipodes
        (:func:`_phase_any_loop`).
    order : int
        Gauss-Legendre points per direction in each triangle (Duffy map), 1 ... 200.

    Returns
    -------
    float
        theta_geo in radians (not reduced mod 2 pi).
    """
    _v.check_pendulum(pendulum)
    order = _v.integer("order", order, low=1, high=MAX_PHASE_ORDER)
    L = np.asarray(loop)
    if L.dtype.kind not in "iuf" or L.ndim != 2 or L.shape[1] != 3 or len(L) < 3:
        raise InvalidStateError(f"loop must be a real (n, 3) array with n >= 3; got shape {L.shape}, dtype {L.dtype}")
    if len(L) > MAX_LOOP_POINTS:
        raise InvalidStateError(f"loop has {len(L)} points, above the limit of {MAX_LOOP_POINTS}")
    if len(L) * order * order > MAX_PHASE_POINTS:  # the work; the memory is bounded by the chunks
        raise InvalidIntegrationError(f"a loop of {len(L)} points at order {order} needs {len(L) * order ** 2:.3g} "
                                      f"quadrature points, above the limit of {MAX_PHASE_POINTS:.3g}; reduce order "
                                      f"or the number of points")
    L = L.astype(float)
    if not np.all(np.isfinite(L)):
        raise InvalidStateError("loop must be finite")
    nrm = np.linalg.norm(L, axis=1)
    if np.any(np.abs(nrm - 1.0) > _v.UNIT_TOL):
        k = int(np.argmax(np.abs(nrm - 1.0)))
        raise InvalidStateError(f"the points of loop must be unit vectors (to {_v.UNIT_TOL:g}); row {k} has norm "
                                f"{nrm[k]:.6g}")
    L = L / nrm[:, None]
    if np.allclose(L[0], L[-1]):
        L = L[:-1]
    gaps = np.linalg.norm(np.diff(L, axis=0), axis=1)
    closing = float(np.linalg.norm(L[0] - L[-1]))
    if closing > CLOSURE_FACTOR * max(float(gaps.max()), 1e-300):
        raise InvalidStateError(
            f"loop must be a closed curve: the gap from its last point back to its first ({closing:.3g}) is more "
            f"than {CLOSURE_FACTOR:g} times its largest step ({gaps.max():.3g}); repeat the first point at the end "
            f"or pass the whole loop")
    c = L.mean(axis=0)
    if np.linalg.norm(c) < 1e-6 or np.min(L @ c) <= 0:
        return _phase_any_loop(np.asarray(pendulum.J), L, order)
    c /= np.linalg.norm(c)
    return _fan_integral(np.asarray(pendulum.J, dtype=float), c, L, order)


def _fan_integral(J: NDArray[np.float64], c: NDArray[np.float64], L: NDArray[np.float64], order: int) -> float:
    """The Eq (70) integral over the fan of spherical triangles (c, L[k], L[k+1]) by Gauss-Legendre (Duffy map),
    ``PHASE_CHUNK_POINTS`` quadrature points at a time (the working arrays hold ~20 floats per point)."""
    x, w = np.polynomial.legendre.leggauss(order)
    s = 0.5 * (x + 1)
    ws = 0.5 * w
    S, Tt = np.meshgrid(s, s, indexing="ij")
    W = np.outer(ws, ws) * (1 - S)  # Duffy map (s, t) -> (u, v) = (s, t (1 - s)), Jacobian 1 - s
    U = S[None, :, :, None]
    V = (Tt * (1 - S))[None, :, :, None]
    B_all = np.roll(L, -1, axis=0)
    per = max(1, PHASE_CHUNK_POINTS // (order * order))  # triangles per chunk
    total = 0.0
    for k in range(0, len(L), per):
        A, B = L[k:k + per], B_all[k:k + per]
        # points x = c + u (A - c) + v (B - c) for every triangle: shape (ntri, q, q, 3)
        dA = (A - c)[:, None, None, :]
        dB = (B - c)[:, None, None, :]
        X = c + U * dA + V * dB
        nX = np.linalg.norm(X, axis=-1)
        jac = np.einsum("tijk,tk->tij", X, np.cross(A - c, B - c)) / nX ** 3  # signed area element
        X /= nX[..., None]  # the points on the sphere
        total += float(np.sum(W[None] * jac * _phase_density(J, X)))
    return total


def _geodesic_fan(J: NDArray[np.float64], L: NDArray[np.float64], p: NDArray[np.float64], order: int,
                  density: bool = True) -> float:
    """The signed integral of the phase density (or of 1: the solid angle) over the fan of geodesic triangles
    (p, L_i, L_i+1): each triangle cut into strips along the geodesics from p (sides below pi/8 rad) whose flat
    triangles are projected radially (Duffy-mapped Gauss-Legendre, as in :func:`geometric_phase`)."""
    A, B = L, np.roll(L, -1, axis=0)
    ang = np.arccos(np.clip(np.concatenate([A @ p, B @ p]), -1.0, 1.0))
    m = max(1, int(np.ceil(float(ang.max()) / (np.pi / 8))))
    tt = np.linspace(0.0, 1.0, m + 1)

    def slerp(q):  # (n, 3) end points -> (n, m + 1, 3) points on the geodesics from p
        om = np.arccos(np.clip(q @ p, -1.0, 1.0))[:, None]
        so = np.sin(om)
        with np.errstate(invalid="ignore", divide="ignore"):
            a = np.where(so > 1e-12, np.sin((1 - tt)[None, :] * om) / so, 1 - tt[None, :])
            b = np.where(so > 1e-12, np.sin(tt[None, :] * om) / so, tt[None, :])
        return a[..., None] * p + b[..., None] * q[:, None, :]

    PA, PB = slerp(A), slerp(B)
    # the strips' flat triangles (a, b, d), oriented like (p, A, B): (PA_j, PA_j+1, PB_j+1) and (PA_j, PB_j+1, PB_j)
    tri_a = np.concatenate([PA[:, :-1], PA[:, 1:-1]], axis=1).reshape(-1, 3)
    tri_b = np.concatenate([PA[:, 1:], PB[:, 2:]], axis=1).reshape(-1, 3)
    tri_d = np.concatenate([PB[:, 1:], PB[:, 1:-1]], axis=1).reshape(-1, 3)
    x, w = np.polynomial.legendre.leggauss(order)
    S, Tt = np.meshgrid(0.5 * (x + 1), 0.5 * (x + 1), indexing="ij")
    W = np.outer(0.5 * w, 0.5 * w) * (1 - S)
    U, V = S, Tt * (1 - S)
    total = 0.0
    for i0 in range(0, len(tri_a), 2048):
        a, b, d = tri_a[i0:i0 + 2048], tri_b[i0:i0 + 2048], tri_d[i0:i0 + 2048]
        X = a[:, None, None, :] + U[None, :, :, None] * (b - a)[:, None, None, :] + V[None, :, :, None] * (d - a)[
            :, None, None, :]
        nX = np.linalg.norm(X, axis=-1)
        jac = np.einsum("tijk,tk->tij", X, np.cross(b - a, d - a)) / nX ** 3
        f = _phase_density(J, X / nX[..., None]) if density else 1.0
        total += float(np.sum(W[None] * jac * f))
    return total


def _phase_any_loop(J: NDArray[np.float64], L: NDArray[np.float64], order: int) -> float:
    """Prop 18 for a simple closed loop in no open hemisphere: the phase density integrated over the smaller of
    the two regions bounded by the loop, oriented by it (the region containing the fan's apex p counts with the
    loop's winding about p; its complement gives the same minus the whole sphere's integral)."""
    k = np.arange(400)
    zz = 1 - (2 * k + 1) / len(k)
    ph = k * np.pi * (3 - np.sqrt(5))
    cand = np.stack([np.sqrt(1 - zz * zz) * np.cos(ph), np.sqrt(1 - zz * zz) * np.sin(ph), zz], -1)
    # the apex whose antipode is farthest from the loop's points (the fan is singular at -p)
    p = cand[int(np.argmax(np.min(np.linalg.norm(L[None, :, :] + cand[:, None, :], axis=2), axis=1)))]
    omega = _geodesic_fan(J, L, p, order, density=False)  # signed solid angle of the region around p
    if abs(abs(omega) - 2 * np.pi) < 1e-6:
        raise InvalidStateError(
            f"the loop splits the sphere into two regions of equal area 2 pi (solid angle {omega:.9g}; a great circle "
            f"lies in no open hemisphere): the phase of Prop 18 depends on which one spans it; perturb the loop")
    val = _geodesic_fan(J, L, p, order)
    if abs(omega) <= 2 * np.pi:
        return val
    octa = np.array([[1.0, 0, 0], [0, 1.0, 0], [-1.0, 0, 0], [0, -1.0, 0]])
    whole = _geodesic_fan(J, octa, np.array([0.0, 0.0, 1.0]), order) + _geodesic_fan(
        J, octa[::-1], np.array([0.0, 0.0, -1.0]), order)  # the whole sphere, outward
    return val - np.sign(omega) * whole
