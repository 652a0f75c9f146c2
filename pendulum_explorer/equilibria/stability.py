"""Linear stability of the relative equilibria: Eq (62) in a tangent chart of S^2, Eqs (31)-(32) in R^6.

For every point, the linearisation of the Lagrange–Routh equation (62) at ``(Gamma_e, 0)`` at that ``mu`` in a
tangent-plane chart of ``TS^2`` (4 eigenvalues), by a fourth-order central-difference Jacobian of the kernel
:func:`~pendulum_explorer._core.fields.lr_accel` (exact up to rounding in the velocity directions, since (62) is
quadratic in Gamma-dot).  Classes (``|Re|``, ``|Im|`` compared with ``STAB_RTOL`` times the largest modulus):
"elliptic-elliptic" (linearly stable), "saddle-centre", "saddle-saddle", "focus-focus", or "degenerate" (a zero
eigenvalue: a fold of a family).
"""
from __future__ import annotations

from typing import cast

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .. import _validate as _v
from .._core.fields import LP, rhs
from .._core.linearize import lr_jacobian_batch
from ..bodies import Pendulum
from .records import F64, Eigs

STAB_RTOL = 1e-6
STABILITY_CLASSES = ("elliptic-elliptic", "saddle-centre", "saddle-saddle", "focus-focus", "degenerate")


def classify_eigenvalues(ev: ArrayLike, rtol: float = STAB_RTOL) -> str | NDArray[np.object_]:
    """Stability class of 4 eigenvalues of a Hamiltonian linearisation (see the module docstring).

    ``ev`` may be (4,) (returns a str) or (n, 4) (returns an object array of str).
    """
    ev = np.asarray(ev)
    single = ev.ndim == 1
    ev = np.atleast_2d(ev)
    mod = np.abs(ev)
    tol = rtol * np.maximum(mod.max(axis=1), 1e-300)[:, None]
    re = np.abs(ev.real) > tol
    im = np.abs(ev.imag) > tol
    n_imag = np.count_nonzero(~re & im, axis=1)
    n_real = np.count_nonzero(re & ~im, axis=1)
    n_cplx = np.count_nonzero(re & im, axis=1)
    out = np.full(len(ev), "degenerate", dtype=object)
    out[n_imag == 4] = "elliptic-elliptic"
    out[(n_imag == 2) & (n_real == 2)] = "saddle-centre"
    out[n_real == 4] = "saddle-saddle"
    out[n_cplx == 4] = "focus-focus"
    out[(mod <= tol).any(axis=1)] = "degenerate"
    return cast(str, out[0]) if single else out


def _classes(ev: Eigs) -> NDArray[np.object_]:
    """:func:`classify_eigenvalues` of (n, 4) eigenvalues: an object array of str."""
    return cast(NDArray[np.object_], classify_eigenvalues(ev))


def tangent_basis(G: ArrayLike) -> tuple[F64, F64]:
    """Orthonormal tangent vectors (n, 3) x 2 at the rows of G."""
    G = np.atleast_2d(G)
    idx = np.argmin(np.abs(G), axis=1)
    a = np.eye(3)[idx]
    t1 = np.cross(a, G)
    t1 /= np.linalg.norm(t1, axis=1)[:, None]
    t2 = np.cross(G, t1)
    return t1, t2


def lr_stability(pendulum: Pendulum, G: ArrayLike, mu: F64, k: F64) -> tuple[Eigs, NDArray[np.object_]]:
    """Eigenvalues (n, 4) and classes (n,) of the LR linearisation at (G[i], 0) with momentum mu[i]."""
    G = np.ascontiguousarray(G, dtype=float)
    n = G.shape[0]
    if n == 0:
        return np.zeros((0, 4), complex), np.array([], dtype=object)
    t1, t2 = tangent_basis(G)
    J1 = pendulum.principal_moments[0]
    w0 = np.sqrt(pendulum.mgrho_norm / J1)
    hv = 1e-3 * (np.abs(k) + w0)
    A = np.empty((n, 4, 4))
    lr_jacobian_batch(G, np.ascontiguousarray(t1), np.ascontiguousarray(t2), _params_rows(pendulum, mu), 1e-3, hv, A)
    _v.finite_result("the linearisation at a relative equilibrium", A)
    ev = _sort_rows(np.linalg.eigvals(A))
    return ev, _classes(ev)


def _params_rows(pendulum: Pendulum, mu: ArrayLike) -> F64:
    """Read-only (n, N_PARAMS) parameter vectors ``pendulum.params(mu_k)``, one per momentum value."""
    P = np.stack([pendulum.params(float(m)) for m in np.asarray(mu, dtype=float).ravel()])
    P.setflags(write=False)
    return P


def _sort_rows(ev: Eigs) -> Eigs:
    key = np.round(ev.imag, 12) * 1e3 + ev.real  # imaginary part first, then real part
    idx = np.argsort(key, axis=1)
    return np.take_along_axis(ev, idx, axis=1)


def lr_linearization(pendulum: Pendulum, Gamma: ArrayLike, mu: float) -> tuple[F64, Eigs, str]:
    """Linearisation of the Lagrange–Routh equation (62) at the equilibrium ``(Gamma, 0)`` at momentum ``mu``.

    Returns
    -------
    A : (4, 4) array
        In the chart ``Gamma(x) = normalise(Gamma + x1 t1 + x2 t2)`` with state ``(x, x')``.
    eigenvalues : (4,) complex array
    stability : str
    """
    _v.check_pendulum(pendulum)
    G = _v.unit_vector("Gamma", Gamma)[None, :]
    mu = _v.real("mu", mu, low=-1e100, high=1e100)
    t1, t2 = tangent_basis(G)
    A = np.empty((1, 4, 4))
    k = np.array([mu / (G[0] @ pendulum.J @ G[0])])
    J1 = pendulum.principal_moments[0]
    w0 = np.sqrt(pendulum.mgrho_norm / J1)
    lr_jacobian_batch(np.ascontiguousarray(G), t1, t2, _params_rows(pendulum, [float(mu)]), 1e-3,
                      1e-3 * (np.abs(k) + w0), A)
    ev = _sort_rows(np.linalg.eigvals(A))[0]
    return A[0], ev, cast(str, classify_eigenvalues(ev))


def lp_linearization(pendulum: Pendulum, Gamma: ArrayLike, omega: ArrayLike) -> tuple[F64, Eigs]:
    """Jacobian (6, 6) of the Lagrange–Poincaré field (31)-(32) at ``(Gamma, omega)`` and its eigenvalues.

    The field is linear in Gamma and quadratic in omega, so central differences are exact up to rounding.
    At a relative equilibrium two eigenvalues vanish (the constraint |Gamma| = 1 and the direction of the
    family / the momentum); the other four agree with :func:`lr_linearization` at ``mu`` of Eq (77).
    """
    _v.check_pendulum(pendulum)
    y0 = np.concatenate([_v.unit_vector("Gamma", Gamma), _v.array("omega", omega, (3,), max_abs=1e100)])
    p = pendulum.params(0.0)
    A = np.empty((6, 6))
    scale = max(1.0, np.abs(omega).max())
    dyp = np.empty(6)
    dym = np.empty(6)
    for j in range(6):
        h = 1e-3 * (1.0 if j < 3 else scale)
        yp = y0.copy()
        ym = y0.copy()
        yp[j] += h
        ym[j] -= h
        rhs(LP, 0.0, yp, p, dyp)
        rhs(LP, 0.0, ym, p, dym)
        A[:, j] = (dyp - dym) / (2 * h)
    return A, np.linalg.eigvals(A)


__all__ = ["STAB_RTOL", "STABILITY_CLASSES", "classify_eigenvalues", "lr_linearization", "lp_linearization",
           "lr_stability", "tangent_basis"]
