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
from .bounds import BOUNDS
from .errors import InvalidStateError

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


#: the frames an axis of :func:`release_attitude` may be given in
RELEASE_FRAMES = ("body", "space")


def release_attitude(base: ArrayLike, angle_deg: float, axis: ArrayLike, frame: str = "space") -> NDArray[np.float64]:
    """The attitude ``base`` (a rotation) tilted by ``angle_deg`` degrees about ``axis`` (any nonzero 3-vector,
    normalised here): ``exp(a hat(u)) base`` when ``frame`` is "space" (the axis fixed in the lab, e.g. the
    horizontal e1 or e2; ``e3`` points down), ``base exp(a hat(u))`` when it is "body" (the axis fixed in the body,
    ``u`` in body coordinates), ``a`` = ``angle_deg`` in radians (:func:`rotation_about`).

    The angle is checked against ``BOUNDS["release_angle"]`` (-180 ... 180 degrees), the axis must be finite and
    nonzero, ``frame`` one of :data:`RELEASE_FRAMES` (:class:`~pendulum_explorer.errors.InvalidStateError`
    naming the argument otherwise).  From the hanging attitude, a space axis that is horizontal tilts the
    pivot-to-centre-of-mass direction by exactly ``|angle_deg|`` from the downward vertical; a body axis by
    ``|angle_deg|`` when it is perpendicular to rho (less otherwise, nothing about rho itself).
    """
    R = _v.rotation("base", base)
    angle = BOUNDS["release_angle"].check(angle_deg, name="angle_deg")
    frame = _v.choice("frame", frame, RELEASE_FRAMES, exc=InvalidStateError)
    u = _v.array("axis", axis, (3,), max_abs=1e100)
    s = float(np.abs(u).max())
    if s == 0.0:
        raise InvalidStateError(f"axis must be a nonzero 3-vector (the axis of the tilt); got {u.tolist()!r}")
    u = u / s
    u = u / float(np.linalg.norm(u))
    T = rotation_about(u, np.deg2rad(angle))
    return T @ R if frame == "space" else R @ T


def rotation_about_vertical(theta: ArrayLike) -> NDArray[np.float64]:
    """``Phi_theta = exp(theta hat(e3))``, the symmetry action of Sec. 4 (``theta`` a float or an array)."""
    return rotation_about(_E3, theta)


_E3 = np.array([0.0, 0.0, 1.0])


def expm(w: ArrayLike) -> NDArray[np.float64]:
    """``exp(hat(w))``: the rotation by ``|w|`` about ``w / |w|`` (:func:`rotation_about`)."""
    w = _v.array("w", w, (3,), max_abs=1e100)
    s = float(np.abs(w).max())
    if s == 0.0:
        return np.eye(3)
    u = w / s  # scaled first: |w|^2 of a tiny w (1e-161) is subnormal, and w / |w| would not be a unit vector
    nu = float(np.linalg.norm(u))
    return rotation_about(u / nu, s * nu)


def logm(R: ArrayLike) -> NDArray[np.float64]:
    """The rotation vector ``w`` (``|w| <= pi``) with ``expm(w) = R``.

    ``R`` must be a rotation (``R^T R = I`` to ``UNIT_TOL`` = 1e-6, ``det R = +1``; it is orthonormalised first);
    any other matrix is refused (:class:`~pendulum_explorer.errors.InvalidStateError`): it has no logarithm in
    so(3)."""
    return _so3.logm_so3(_v.rotation("R", R))


def cayley(f: ArrayLike) -> NDArray[np.float64]:
    """Cayley map ``(I + hat f)(I - hat f)^{-1}``."""
    return _so3.cayley(_v.array("f", f, (3,)))


#: smallest ratio of the smallest to the largest singular value accepted by :func:`orthonormalize`
MIN_SINGULAR_RATIO = 1e-8


def orthonormalize(R: ArrayLike) -> NDArray[np.float64]:
    """The nearest rotation matrix to ``R``: its polar factor ``U V^T`` (``R = U S V^T``).

    ``R`` must have ``det R > 0`` and be far from singular (smallest / largest singular value >= 1e-8): the polar
    factor of a matrix with ``det R < 0`` is a reflection, not a rotation, and a singular matrix has no unique
    nearest rotation; both are refused (:class:`~pendulum_explorer.errors.InvalidStateError`).  The result is a
    rotation to round-off (``det = +1``).
    """
    A = _v.array("R", R, (3, 3), max_abs=1e150)
    U, S, Vt = np.linalg.svd(A)
    det = float(np.linalg.det(A))
    if not (det > 0.0 and S[-1] >= MIN_SINGULAR_RATIO * S[0]):
        why = ("it is singular" if S[-1] < MIN_SINGULAR_RATIO * S[0] else
               "det R < 0: its nearest orthogonal matrix is a reflection")
        raise InvalidStateError(f"R must be an invertible matrix with det R > 0 to be orthonormalised to a rotation "
                                f"(smallest/largest singular value >= {MIN_SINGULAR_RATIO:g}); got det R = {det:.6g}, "
                                f"singular values {', '.join(f'{x:.3g}' for x in S)}: {why}")
    return U @ Vt


#: the display conversions (quaternions, Euler angles) accept a matrix that is a rotation to this tolerance and
#: convert the nearest rotation: the attitudes of every motion the package returns (whose drift beyond the
#: tolerance asked is reported by an InvariantDriftWarning, and which is refused beyond 1e-2) can be shown
DISPLAY_TOL = 1e-2


def _rotations(name: str, R: ArrayLike, tol: float = DISPLAY_TOL) -> NDArray[np.float64]:
    """A rotation matrix or a stack (..., 3, 3) of them, each a rotation to ``tol`` (``max|R^T R - I| <= tol``,
    ``det > 0``; else :class:`~pendulum_explorer.errors.InvalidStateError` naming the first bad one)."""
    A = _v.real_array(name, R, trailing=(3, 3))
    flat = A.reshape(-1, 3, 3)
    err = np.abs(np.einsum("nki,nkj->nij", flat, flat) - np.eye(3)).max(axis=(1, 2)) if len(flat) else np.zeros(0)
    det = np.linalg.det(flat) if len(flat) else np.zeros(0)
    bad = np.flatnonzero(~((err <= tol) & (det > 0)))
    if bad.size:
        k = int(bad[0])
        which = "" if A.ndim == 2 else f"matrix {k} has "
        raise InvalidStateError(f"{name} must hold rotation matrices (R^T R = I to {tol:g}, det R = +1); "
                                f"{which}max|R^T R - I| = {err[k]:.3g}, det R = {det[k]:.6g}")
    return A


def as_quaternion(R: ArrayLike) -> NDArray[np.float64]:
    """Scalar-last unit quaternion(s) ``[x, y, z, w]`` of rotation matrix/matrices ``R`` (..., 3, 3), for display:
    each a rotation to ``DISPLAY_TOL`` = 1e-2 (its nearest rotation is converted); anything else is refused."""
    from scipy.spatial.transform import Rotation

    A = _rotations("R", R)
    if A.ndim == 2:
        return Rotation.from_matrix(A).as_quat()
    return Rotation.from_matrix(A.reshape(-1, 3, 3)).as_quat().reshape(A.shape[:-2] + (4,))


def _euler_seq(seq: object) -> str:
    if not (isinstance(seq, str) and len(seq) == 3 and (set(seq) <= set("xyz") or set(seq) <= set("XYZ"))
            and seq[0] != seq[1] and seq[1] != seq[2]):
        raise InvalidStateError(f"seq must be 3 axes from 'xyz' (extrinsic) or 'XYZ' (intrinsic), no axis twice in "
                                f"a row, e.g. 'ZYX'; got {seq!r}")
    return seq


def as_euler(R: ArrayLike, seq: str = "ZYX", degrees: bool = True) -> NDArray[np.float64]:
    """Euler angles of ``R`` (a rotation or a stack, as :func:`as_quaternion`) in the sequence ``seq`` (scipy
    convention: 'xyz' extrinsic, 'XYZ' intrinsic), for display."""
    from scipy.spatial.transform import Rotation

    seq = _euler_seq(seq)
    if not isinstance(degrees, (bool, np.bool_)):
        raise TypeError(f"degrees must be True or False; got {degrees!r}")
    A = _rotations("R", R)
    if A.ndim == 2:
        return Rotation.from_matrix(A).as_euler(seq, degrees=bool(degrees))
    out = Rotation.from_matrix(A.reshape(-1, 3, 3)).as_euler(seq, degrees=bool(degrees))
    return out.reshape(A.shape[:-2] + (3,))


def from_quaternion(q: ArrayLike) -> NDArray[np.float64]:
    """Rotation matrix (or stack, (..., 3, 3)) of scalar-last quaternion(s) ``q`` (..., 4), each a unit quaternion
    to ``UNIT_TOL`` (normalised)."""
    from scipy.spatial.transform import Rotation

    Q = _v.real_array("q", q, trailing=(4,))
    flat = Q.reshape(-1, 4)
    n = np.linalg.norm(flat, axis=1)
    bad = np.flatnonzero(~(np.abs(n - 1.0) <= _v.UNIT_TOL))
    if bad.size:
        k = int(bad[0])
        raise InvalidStateError(f"q must hold unit quaternions [x, y, z, w] (| |q| - 1 | <= {_v.UNIT_TOL:g}); "
                                f"quaternion {k} has |q| = {n[k]!r}")
    M = Rotation.from_quat(flat / n[:, None]).as_matrix()
    return M[0] if Q.ndim == 1 else M.reshape(Q.shape[:-1] + (3, 3))


__all__ = ["hat", "vee", "rotation_about", "release_attitude", "RELEASE_FRAMES",
           "rotation_about_vertical", "expm", "logm", "cayley", "orthonormalize",
           "as_quaternion", "as_euler", "from_quaternion"]
