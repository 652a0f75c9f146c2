"""Conversions between the three state representations and the Lagrange-Routh model with reconstruction.

* full model: (R, omega) on TSO(3), Eqs (1)-(2);
* Lagrange-Poincaré: (Gamma, omega), Gamma = R^T e3, Eqs (31)-(32);
* Lagrange-Routh: (Gamma, Gammadot) at a momentum mu, Eqs (62)-(64); reconstruction by Prop 17.
"""
from __future__ import annotations

import time

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ._core import dop853 as _dop
from ._core import fields as _f
from .bodies import Pendulum, _as_array
from .errors import IntegrationFailedError, InvalidIntegrationError, InvalidStateError
from .trajectory import Trajectory, _validate_common, orthogonality_errors, validate_rotation

UNIT_TOL = 1e-9


def _unit(name: str, v: ArrayLike) -> NDArray[np.float64]:
    try:
        v = _as_array(name, v, (3,))
    except ValueError as exc:
        raise InvalidStateError(str(exc)) from None
    n = np.linalg.norm(v)
    if abs(n - 1.0) > UNIT_TOL:
        raise InvalidStateError(f"{name} must be a unit vector (|{name}| = 1 to {UNIT_TOL:g}); got |{name}| = {n:.12g}")
    return v / n


def lp_from_full(R: ArrayLike, omega: ArrayLike) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """(R, omega) -> (Gamma, omega) with Gamma = R^T e3 (Prop 4)."""
    R = np.asarray(R, float)
    return R[..., 2, :].copy(), np.array(omega, float)


def lr_from_lp(pendulum: Pendulum, Gamma: ArrayLike,
               omega: ArrayLike) -> tuple[NDArray[np.float64], NDArray[np.float64], float]:
    """(Gamma, omega) -> (Gamma, Gammadot, mu): Gammadot = Gamma x omega (Eq 32), mu = omega^T J Gamma (Eq 56)."""
    Gamma = np.asarray(Gamma, float)
    omega = np.asarray(omega, float)
    return Gamma.copy(), np.cross(Gamma, omega), float(omega @ pendulum.J @ Gamma)


def lp_from_lr(pendulum: Pendulum, Gamma: ArrayLike, Gammadot: ArrayLike, mu: float) -> NDArray[np.float64]:
    """(Gamma, Gammadot, mu) -> omega = Gammadot x Gamma + (nu - b) Gamma (Eqs 66, 69)."""
    w = np.empty(3)
    _f.lr_omega(np.asarray(Gamma, float), np.asarray(Gammadot, float), pendulum.params(float(mu)), w)
    return w


def energy(pendulum: Pendulum, Gamma: ArrayLike, omega: ArrayLike) -> float:
    """Total energy, Eq (34) (the same kernel as the integrators use)."""
    return float(_f.energy_lp(np.asarray(Gamma, float), np.asarray(omega, float), pendulum.params()))


def momentum(pendulum: Pendulum, Gamma: ArrayLike, omega: ArrayLike) -> float:
    """Vertical angular momentum mu = omega^T J Gamma (Prop 1, Eq 56)."""
    return float(_f.mu_lp(np.asarray(Gamma, float), np.asarray(omega, float), pendulum.params()))


def rotation_about_vertical(theta: float) -> NDArray[np.float64]:
    """Phi_theta = exp(theta hat(e3)), the symmetry action of Sec. 4 (plain numpy: no kernel needed)."""
    c, s = np.cos(float(theta)), np.sin(float(theta))
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


def simulate_lr(pendulum: Pendulum, Gamma0: ArrayLike, Gammadot0: ArrayLike, mu: float, t_final: float, *,
                R0: ArrayLike | None = None, rtol: float = 1e-10, atol: float = 1e-12, n_out: int = 1001,
                max_steps: int = 50_000_000) -> Trajectory:
    """Integrate the Lagrange-Routh model (62)-(64) at momentum ``mu`` and reconstruct (R, omega) (Prop 17).

    The reduced state, the horizontal lift R_hor (Eqs 65-66) and theta_dyn (Eq 67) are integrated together
    by DOP853; then ``R = exp(theta_dyn hat e3) R_hor`` (Eq 68) and ``omega = omega_hor + nu Gamma`` (Eq 69).

    Parameters
    ----------
    Gamma0 : unit 3-vector
    Gammadot0 : 3-vector tangent at Gamma0 (``Gamma0 . Gammadot0 = 0`` to 1e-9)
    mu : float
    R0 : rotation with ``R0^T e3 = Gamma0`` (default: the rotation built by :func:`attitude_from_gamma`)

    Returns
    -------
    Trajectory
        with ``method = "lr-dop853"`` and ``stats["theta_dyn"]``, the final dynamic phase.
    """
    Gamma0 = _unit("Gamma0", Gamma0)
    try:
        Gammadot0 = _as_array("Gammadot0", Gammadot0, (3,))
    except ValueError as exc:
        raise InvalidStateError(str(exc)) from None
    if abs(Gamma0 @ Gammadot0) > UNIT_TOL * max(1.0, float(np.linalg.norm(Gammadot0))):
        raise InvalidStateError(f"Gammadot0 must be tangent to the sphere at Gamma0 (Gamma0 . Gammadot0 = 0); "
                                f"got {Gamma0 @ Gammadot0:.3g}")
    _, t_final, n_out = _validate_common(pendulum, np.zeros(3), t_final, n_out)
    mu = float(mu)
    if not np.isfinite(mu):
        raise InvalidStateError(f"mu must be finite; got {mu}")
    R0 = attitude_from_gamma(Gamma0) if R0 is None else validate_rotation(R0)
    if np.abs(R0[2] - Gamma0).max() > 1e-9:
        raise InvalidStateError(f"R0 must satisfy R0^T e3 = Gamma0; got R0^T e3 = {R0[2].tolist()}")
    p = pendulum.params(mu)
    y0 = np.concatenate([Gamma0, Gammadot0, R0.ravel(), [0.0]])
    Y = np.empty((n_out, 16))
    t0 = time.perf_counter()
    st = _dop.integrate_uniform(_f.LR_REC, y0, t_final, n_out, p, float(rtol), float(atol), int(max_steps), Y)
    if st[3] != _dop.OK:
        raise IntegrationFailedError(f"DOP853 on the Lagrange-Routh model stopped early (status {int(st[3])})")
    wall = time.perf_counter() - t0
    Gamma = Y[:, 0:3].copy()
    Rhor = Y[:, 6:15].reshape(n_out, 3, 3)
    theta = Y[:, 15]
    c, s = np.cos(theta), np.sin(theta)
    Phi = np.zeros((n_out, 3, 3))
    Phi[:, 0, 0] = c
    Phi[:, 0, 1] = -s
    Phi[:, 1, 0] = s
    Phi[:, 1, 1] = c
    Phi[:, 2, 2] = 1.0
    R = Phi @ Rhor  # Eq (68)
    W = np.empty((n_out, 3))
    for k in range(n_out):
        _f.lr_omega(Y[k, 0:3], Y[k, 3:6], p, W[k])  # Eq (69)
    inv = np.empty((n_out, 2))
    _f.invariants_batch(_f.LP, np.concatenate([Gamma, W], axis=1), p, inv)
    stats = {"n_steps": int(st[0]), "n_rejected": int(st[1]), "nfev": int(st[2]), "wall_time": wall,
             "theta_dyn": float(theta[-1]), "orthogonality_error": float(orthogonality_errors(R).max()),
             "rtol": float(rtol), "atol": float(atol)}
    return Trajectory(pendulum, np.linspace(0, t_final, n_out), R, W, Gamma, inv[:, 0].copy(), inv[:, 1].copy(),
                      "lr-dop853", stats)


def attitude_from_gamma(Gamma: ArrayLike, psi: float = 0.0) -> NDArray[np.float64]:
    """A rotation R with ``R^T e3 = Gamma`` (one point of the fibre over Gamma; ``psi`` rotates about e3).

    For Gamma = rho/|rho| (resp. -rho/|rho|) this builds a point of the hanging (resp. inverted) attitude
    manifold, Eqs (10)-(11).
    """
    G = _unit("Gamma", Gamma)
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
        Points of the closed curve on S^2 (the last point may repeat the first).  The surface is the fan of
        spherical triangles from the normalised mean of the points, so the loop must lie in an open
        hemisphere around that point.
    order : int
        Gauss-Legendre points per direction in each triangle (Duffy map).

    Returns
    -------
    float
        theta_geo in radians (not reduced mod 2 pi).
    """
    L = np.asarray(loop, dtype=float)
    if L.ndim != 2 or L.shape[1] != 3 or len(L) < 3:
        raise InvalidStateError(f"loop must be an (n, 3) array with n >= 3; got shape {L.shape}")
    if not np.all(np.isfinite(L)):
        raise InvalidStateError("loop must be finite")
    L = L / np.linalg.norm(L, axis=1, keepdims=True)
    if np.allclose(L[0], L[-1]):
        L = L[:-1]
    c = L.mean(axis=0)
    if np.linalg.norm(c) < 1e-6 or np.min(L @ c) <= 0:
        raise InvalidStateError("the loop must lie in an open hemisphere (around its mean direction)")
    c /= np.linalg.norm(c)
    A = L
    B = np.roll(L, -1, axis=0)
    x, w = np.polynomial.legendre.leggauss(order)
    s = 0.5 * (x + 1)
    ws = 0.5 * w
    S, Tt = np.meshgrid(s, s, indexing="ij")
    W = np.outer(ws, ws) * (1 - S)  # Duffy map (s, t) -> (u, v) = (s, t (1 - s)), Jacobian 1 - s
    U = S
    V = Tt * (1 - S)
    # points x = c + u (A - c) + v (B - c) for every triangle: shape (ntri, q, q, 3)
    dA = (A - c)[:, None, None, :]
    dB = (B - c)[:, None, None, :]
    X = c + U[None, :, :, None] * dA + V[None, :, :, None] * dB
    nX = np.linalg.norm(X, axis=-1)
    jac = np.einsum("tijk,tk->tij", X, np.cross(A - c, B - c)) / nX ** 3  # signed area element
    G = X / nX[..., None]
    f = _phase_density(np.asarray(pendulum.J), G)
    return float(np.sum(W[None] * jac * f))
