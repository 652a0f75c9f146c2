"""Geometry of SO(3) and S^2: hat/vee (Eq 4), logarithm, Cayley map, polar factor.

All functions are numba kernels on plain arrays.  Rotation matrices act on column vectors; ``R`` maps
body-frame representations to the inertial frame (Sec. 2 of the paper).
"""
import numpy as np

from .._jit import njit


@njit
def hat(a):
    """Skew matrix of Eq (4): ``hat(a) @ b == cross(a, b)``."""
    out = np.zeros((3, 3))
    out[0, 1] = -a[2]
    out[0, 2] = a[1]
    out[1, 0] = a[2]
    out[1, 2] = -a[0]
    out[2, 0] = -a[1]
    out[2, 1] = a[0]
    return out


@njit
def vee(A):
    """Inverse of :func:`hat` (uses the skew part of ``A``)."""
    out = np.empty(3)
    out[0] = 0.5 * (A[2, 1] - A[1, 2])
    out[1] = 0.5 * (A[0, 2] - A[2, 0])
    out[2] = 0.5 * (A[1, 0] - A[0, 1])
    return out


@njit
def logm_so3(R):
    """Logarithm on SO(3): the vector ``w`` with ``|w| <= pi`` and ``exp(hat(w)) == R``.

    The angle is ``atan2(sin, cos)`` (accurate everywhere); near ``pi`` the axis comes from the symmetric
    part ``(R + R^T)/4 + I/2 = cos^2(th/2) I + sin^2(th/2) n n^T`` and its sign from the skew part.
    """
    c = 0.5 * (R[0, 0] + R[1, 1] + R[2, 2] - 1.0)
    s = np.empty(3)
    s[0] = R[2, 1] - R[1, 2]
    s[1] = R[0, 2] - R[2, 0]
    s[2] = R[1, 0] - R[0, 1]
    sin_th = 0.5 * np.sqrt(s[0] * s[0] + s[1] * s[1] + s[2] * s[2])
    th = np.arctan2(sin_th, c)
    if th < 1e-4:
        # th / (2 sin th) = 1/2 (1 + th^2/6 + ...)
        return 0.5 * (1.0 + th * th / 6.0) * s
    if np.pi - th > 1e-2:
        return th / (2.0 * sin_th) * s
    B = 0.25 * (R + R.T) + 0.5 * np.eye(3)
    k = 0
    for i in range(1, 3):
        if B[i, i] > B[k, k]:
            k = i
    n = B[:, k].copy()
    n[k] -= np.cos(0.5 * th) ** 2  # remove the cos^2(th/2) I part
    n = n / np.sqrt(n[0] ** 2 + n[1] ** 2 + n[2] ** 2)
    if n[0] * s[0] + n[1] * s[1] + n[2] * s[2] < 0.0:
        n = -n
    return th * n


@njit
def cayley(f):
    """Cayley map ``cay(f) = (I + hat f)(I - hat f)^{-1} = I + 2/(1+|f|^2) (hat f + hat f^2)``."""
    F = hat(f)
    s = 2.0 / (1.0 + f[0] * f[0] + f[1] * f[1] + f[2] * f[2])
    return np.eye(3) + s * (F + F @ F)


@njit
def orthonormalize(R):
    """Nearest rotation (polar factor) by a few Newton iterations ``R <- (R + R^{-T}) / 2``."""
    X = R.copy()
    for _ in range(20):
        Y = 0.5 * (X + np.linalg.inv(X).T)
        d = np.abs(Y - X).max()
        X = Y
        if d < 1e-15:
            break
    return X


@njit
def orthogonality_errors(R, out):
    """``out[n] = ||R_n^T R_n - I||_F`` for a stack ``R`` (m, 3, 3)."""
    for n in range(R.shape[0]):
        s = 0.0
        for i in range(3):
            for k in range(i, 3):
                e = R[n, 0, i] * R[n, 0, k] + R[n, 1, i] * R[n, 1, k] + R[n, 2, i] * R[n, 2, k]
                if i == k:
                    e -= 1.0
                    s += e * e
                else:
                    s += 2.0 * e * e  # (i, k) and (k, i)
        out[n] = np.sqrt(s)
