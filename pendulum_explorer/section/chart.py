"""The section chart: the Lambert cylindrical equal-area map of the sphere and its tangent.

``(phi, z) = (atan2(Gamma_2, Gamma_1), Gamma_3)``; the map (phi, z) -> Gamma is area preserving (dA = dphi dz).
"""
from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .. import _validate as _v
from .._core.fields import N_PARAMS, P_J, P_MGRHO
from ..errors import InvalidStateError


def chart_from_sphere(Gamma: ArrayLike) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Equal-area chart coordinates of unit vectors: ``phi = atan2(Gamma_2, Gamma_1)`` in (-pi, pi] and
    ``z = Gamma_3 = cos(theta)`` in [-1, 1].  ``Gamma`` has shape (..., 3); returns ``(phi, z)``.

    The map (phi, z) -> Gamma is area preserving (dA = dphi dz).  At the poles phi = atan2(0, 0) = 0.
    """
    G = _v.real_array("Gamma", Gamma, trailing=(3,))
    phi = np.arctan2(G[..., 1], G[..., 0])
    z = np.clip(G[..., 2], -1.0, 1.0)
    return phi, z


def sphere_from_chart(phi: ArrayLike, z: ArrayLike) -> NDArray[np.float64]:
    """Inverse of :func:`chart_from_sphere`: ``Gamma = (r cos phi, r sin phi, z)``, ``r = sqrt(1 - z^2)``.

    ``z`` must lie in [-1, 1] (ValueError otherwise); ``phi`` is any finite angle.
    """
    phi = _v.real_array("phi", phi)
    z = _v.real_array("z", z)
    if np.any(np.abs(z) > 1.0):
        raise InvalidStateError(f"chart coordinate z = Gamma_3 must lie in [-1, 1]; got max |z| = {np.abs(z).max()!r}")
    r = np.sqrt(np.maximum(0.0, 1.0 - z * z))
    phi, z, r = np.broadcast_arrays(phi, z, r)
    return np.stack([r * np.cos(phi), r * np.sin(phi), z], axis=-1)


def chaos_grid(n_phi: int, n_z: int) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """The cell centres ``(phi, z)`` of an ``n_phi`` x ``n_z`` chaos map: equal cells over phi in (-pi, pi) and
    z = Gamma_3 in (-1, 1) (the grid :meth:`ChaosMap.cells` assumes)."""
    phi = -math.pi + (np.arange(n_phi, dtype=np.float64) + 0.5) * (2 * math.pi / n_phi)
    z = -1.0 + (np.arange(n_z, dtype=np.float64) + 0.5) * (2.0 / n_z)
    return phi, z


def nearby_window(Gamma: ArrayLike, eps: float) -> tuple[float, float, float, float]:
    """The chart window ``(phi0, phi1, z0, z1)`` around the direction ``Gamma`` that a motion tilted by ``eps``
    from a stable equilibrium stays in: about 4 eps on the sphere each way (wider in phi away from the equator;
    at least 0.02).  Not clipped to the chart."""
    G = _v.real_array("Gamma", Gamma, trailing=(3,)).reshape(3)
    eps = _v.real("eps", eps, low=0.0)
    phi, z = float(np.arctan2(G[1], G[0])), float(G[2])
    r = max(float(np.hypot(G[0], G[1])), 0.05)
    h = max(4.0 * eps, 0.02)
    return (phi - min(math.pi, h / r), phi + min(math.pi, h / r), z - min(1.0, h * r), z + min(1.0, h * r))


def chart_tangent(G: NDArray[np.float64], w: NDArray[np.float64], p: NDArray[np.float64]) -> NDArray[np.float64]:
    """(6, 2) tangent vectors d(Gamma, omega) / d(phi, z) of the section state over the chart point of Gamma.

    dGamma from Gamma = (r cos phi, r sin phi, z), r = sqrt(1 - z^2); domega solves the linearised level and
    section conditions dE = 0 (Eq 34: -m g rho . dGamma + J omega . domega), dmu = 0 (Eq 56: J omega . dGamma +
    J Gamma . domega) and dg = 0 (g = (Gamma x omega)_3)."""
    assert p.shape[0] >= N_PARAMS
    J = p[P_J:P_J + 9].reshape(3, 3)
    mgr = p[P_MGRHO:P_MGRHO + 3]
    r = math.hypot(G[0], G[1])
    c, s = G[0] / r, G[1] / r
    dG = np.array([[-G[1], -G[2] * c / r], [G[0], -G[2] * s / r], [0.0, 1.0]])
    Jw = J @ w
    A = np.array([Jw, J @ G, [-G[1], G[0], 0.0]])
    B = np.array([-mgr, Jw, [w[1], -w[0], 0.0]])
    dw = np.linalg.solve(A, -B @ dG)
    return np.vstack([dG, dw])


def chart_of_tangent(G1: NDArray[np.float64], V: NDArray[np.float64]) -> NDArray[np.float64]:
    """d(phi, z) of tangent vectors ``V`` (3, k) of the sphere at ``G1`` (the chart's derivative)."""
    r2 = G1[0] ** 2 + G1[1] ** 2
    C = np.array([[-G1[1] / r2, G1[0] / r2, 0.0], [0.0, 0.0, 1.0]])
    result: NDArray[np.float64] = C @ V
    return result
