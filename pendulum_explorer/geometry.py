"""Rotations for the model layer: the one rotation-about-an-axis formula, SO(3) utilities and display
conversions.

hat/vee (Eq 4), :func:`rotation_about` (Rodrigues; every rotation about an axis in the package is built by it:
the symmetry action ``Phi_theta = exp(theta hat e3)`` of Sec. 4 and Eq (68), the circles of the Eq (7a)
equilibria, :func:`expm`), logarithm, Cayley map, re-orthonormalisation, and conversions to quaternions / Euler
angles through :class:`scipy.spatial.transform.Rotation` (imported when first used: the dashboard kernel does
not load scipy).
"""
from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from . import _validate as _v
from ._core import so3 as _so3

#: the skew matrix as plain numpy (the kernel's own source, ``py_func``, not its compiled dispatch): a (3,) vector
#: gains nothing from compiled code, and the first numba dispatch in a process loads numba's numpy registries,
#: which import scipy.linalg — 47 MB and ~0.35 s of CPU in the dashboard kernel's first view (the body preview)
_hat = getattr(_so3.hat, "py_func", _so3.hat)


def hat(a: ArrayLike) -> NDArray[np.float64]:
    """The skew matrix of Eq (4): ``hat(a) @ b = a x b``."""
    return _hat(_v.array("a", a, (3,)))


def vee(A: ArrayLike) -> NDArray[np.float64]:
    """Inverse of :func:`hat`."""
    return _so3.vee(_v.array("A", A, (3, 3)))


def rotation_about(axis: ArrayLike, angle: ArrayLike) -> NDArray[np.float64]:
    """``exp(angle hat(axis))`` for a unit ``axis`` (3,) and an angle or array of angles [rad] (Rodrigues:
    ``I + sin(a) K + 2 sin^2(a/2) K^2``, ``K = hat(axis)``).  Returns (3, 3) or (..., 3, 3)."""
    u = _v.unit_vector("axis", axis)
    a = _v.real_array("angle", angle)
    K = _hat(u)
    s = np.sin(a)[..., None, None]
    c = (2.0 * np.sin(0.5 * a) ** 2)[..., None, None]
    return np.eye(3) + s * K + c * (K @ K)


def rotation_about_vertical(theta: ArrayLike) -> NDArray[np.float64]:
    """``Phi_theta = exp(theta hat(e3))``, the symmetry action of Sec. 4 (``theta`` a float or an array)."""
    return rotation_about(_E3, theta)


_E3 = np.array([0.0, 0.0, 1.0])


def expm(w: ArrayLike) -> NDArray[np.float64]:
    """``exp(hat(w))``: the rotation by ``|w|`` about ``w / |w|`` (:func:`rotation_about`)."""
    w = _v.array("w", w, (3,), max_abs=1e100)
    n = float(np.linalg.norm(w))
    return np.eye(3) if n == 0.0 else rotation_about(w / n, n)


def logm(R: ArrayLike) -> NDArray[np.float64]:
    """The rotation vector ``w`` (``|w| <= pi``) with ``expm(w) = R``."""
    return _so3.logm_so3(_v.array("R", R, (3, 3)))


def cayley(f: ArrayLike) -> NDArray[np.float64]:
    """Cayley map ``(I + hat f)(I - hat f)^{-1}``."""
    return _so3.cayley(_v.array("f", f, (3,)))


def orthonormalize(R: ArrayLike) -> NDArray[np.float64]:
    """The nearest rotation matrix (polar factor) to ``R``."""
    return _so3.orthonormalize(_v.array("R", R, (3, 3)))


def as_quaternion(R: ArrayLike) -> NDArray[np.float64]:
    """Scalar-last unit quaternion(s) ``[x, y, z, w]`` of rotation matrix/matrices ``R`` (..., 3, 3)."""
    from scipy.spatial.transform import Rotation

    return Rotation.from_matrix(np.asarray(R, float)).as_quat()


def as_euler(R: ArrayLike, seq: str = "ZYX", degrees: bool = True) -> NDArray[np.float64]:
    """Euler angles of ``R`` in the sequence ``seq`` (scipy convention), for display."""
    from scipy.spatial.transform import Rotation

    return Rotation.from_matrix(np.asarray(R, float)).as_euler(seq, degrees=degrees)


def from_quaternion(q: ArrayLike) -> NDArray[np.float64]:
    """Rotation matrix of a scalar-last quaternion."""
    from scipy.spatial.transform import Rotation

    return Rotation.from_quat(np.asarray(q, float)).as_matrix()


__all__ = ["hat", "vee", "rotation_about", "rotation_about_vertical", "expm", "logm", "cayley", "orthonormalize",
           "as_quaternion", "as_euler", "from_quaternion"]
