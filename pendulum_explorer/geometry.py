"""SO(3) utilities for the model layer: validated wrappers of the core kernels and display conversions.

hat/vee (Eq 4), exponential (Rodrigues) and logarithm, Cayley map, re-orthonormalisation, and conversions
to quaternions / Euler angles through :class:`scipy.spatial.transform.Rotation`.
"""
from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.spatial.transform import Rotation

from ._core import so3 as _so3
from .bodies import _as_array


def hat(a: ArrayLike) -> NDArray[np.float64]:
    """The skew matrix of Eq (4): ``hat(a) @ b = a x b``."""
    return _so3.hat(_as_array("a", a, (3,)))


def vee(A: ArrayLike) -> NDArray[np.float64]:
    """Inverse of :func:`hat`."""
    return _so3.vee(_as_array("A", A, (3, 3)))


def expm(w: ArrayLike) -> NDArray[np.float64]:
    """``exp(hat(w))`` by Rodrigues' formula (Taylor series below 1e-4 rad)."""
    return _so3.expm_so3(_as_array("w", w, (3,)))


def logm(R: ArrayLike) -> NDArray[np.float64]:
    """The rotation vector ``w`` (``|w| <= pi``) with ``expm(w) = R``."""
    return _so3.logm_so3(_as_array("R", R, (3, 3)))


def cayley(f: ArrayLike) -> NDArray[np.float64]:
    """Cayley map ``(I + hat f)(I - hat f)^{-1}``."""
    return _so3.cayley(_as_array("f", f, (3,)))


def orthonormalize(R: ArrayLike) -> NDArray[np.float64]:
    """The nearest rotation matrix (polar factor) to ``R``."""
    return _so3.orthonormalize(_as_array("R", R, (3, 3)))


def as_quaternion(R: ArrayLike) -> NDArray[np.float64]:
    """Scalar-last unit quaternion(s) ``[x, y, z, w]`` of rotation matrix/matrices ``R`` (..., 3, 3)."""
    return Rotation.from_matrix(np.asarray(R, float)).as_quat()


def as_euler(R: ArrayLike, seq: str = "ZYX", degrees: bool = True) -> NDArray[np.float64]:
    """Euler angles of ``R`` in the sequence ``seq`` (scipy convention), for display."""
    return Rotation.from_matrix(np.asarray(R, float)).as_euler(seq, degrees=degrees)


def from_quaternion(q: ArrayLike) -> NDArray[np.float64]:
    """Rotation matrix of a scalar-last quaternion."""
    return Rotation.from_quat(np.asarray(q, float)).as_matrix()
