"""Equilibria and relative equilibria of the 3D pendulum and their linear stability (Props 9 and 20).

Layer 2 (model/analysis).  :func:`equilibria` returns every equilibrium of the Lagrange–Poincaré model
(31)–(32) — equivalently (Prop 20) of the Lagrange–Routh model (62) at the momentum ``mu`` of Eq (77) — in the
pendulum's own body frame:

* the hanging and inverted equilibria ``Gamma = +-rho/|rho|``, ``omega = 0`` (Prop 9, cases 1-2);
* the two relative equilibria of Eq (38) (``alpha = +-inf``);
* the one-parameter families of Eqs (39)-(40) over ``alpha`` in L1 ... L4, sampled adaptively;
* the extra families of the non-generic cases (Eq 41 for distinct J_i and some rho_i = 0; case 7(a)/(b)
  for J1 = J2 != J3) and the degenerate case of rho on a principal axis ("axis" families: the
  hanging/inverted attitude spinning about rho at any rate).

Sign correction to Prop 9
-------------------------
Prop 9 and Eq (73) print ``Gamma_e = -sgn(alpha) n_alpha/|n_alpha|``.  Substituting into Eq (42),
``k^2 J Gamma + m g rho = k1 Gamma``, shows that the correct family is

    ``Gamma_e = -n_alpha/|n_alpha|``  for every alpha (no sgn),
    ``omega_e = +- sqrt(m g/|n_alpha|) n_alpha``,  ``n_alpha = (J - I/alpha)^{-1} rho``,

so that ``alpha -> 0-`` tends to the *inverted* point and ``alpha -> 0+`` to the *hanging* point (in
agreement with the narrative of Fig. 1: alpha in (-inf, 0) runs from the (38) point to the inverted
equilibrium).  Every returned point is checked against the residual of (35)-(36) in the test-suite.

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
half-circle.  Curves stop (at both kinds of pole) once Gamma is within 0.5 deg of its limit and the
energy exceeds ``E_CAP_FACTOR m g |rho|``.

Tolerances for the special cases (documented, relative)
-------------------------------------------------------
* principal moments with ``|J_i - J_j| <= rtol_J * J1`` (default 1e-12) are treated as equal;
* a component of rho (in adapted principal axes) with ``|rho_i| <= rtol_rho * |rho|`` (default 1e-12) is
  treated as zero.
The computation is then done for the snapped (exactly non-generic) data, whose residual for the original
pendulum is of the order of these tolerances.  Input that is merely *close* to non-generic (above the
tolerances) is treated exactly by the generic formulas; the pole-relative parameterisation keeps it
accurate, and the adaptive sampling resolves the sharp turns of the nearly-bifurcating families.

Stability
---------
For every point, the linearisation of the Lagrange–Routh equation (62) at ``(Gamma_e, 0)`` at that
``mu`` in a tangent-plane chart of ``TS^2`` (4 eigenvalues), by a fourth-order central-difference Jacobian
of the kernel :func:`~pendulum_explorer._core.fields.lr_accel` (exact up to rounding in the velocity
directions, since (62) is quadratic in Gamma-dot).  Classes (``|Re|``, ``|Im|`` compared with
``STAB_RTOL`` times the largest modulus): "elliptic-elliptic" (linearly stable), "saddle-centre",
"saddle-saddle", "focus-focus", or "degenerate" (a zero eigenvalue: a fold of a family).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, cast

import numpy as np
from numpy.typing import ArrayLike, NDArray

from . import _validate as _v
from ._core.fields import LP, invariants_batch, mu_lp, rhs
from ._core.linearize import lr_jacobian_batch
from ._numerics import find_root
from .amended import amended_potential
from .bodies import Pendulum
from .errors import InvalidIntegrationError, InvalidPendulumError, InvalidStateError
from .geometry import rotation_about
from .reduction import attitude_from_gamma

__all__ = [
    "equilibria", "equilibria_at_mu", "amended_potential", "energy_momentum_data", "equilibrium_attitude",
    "equilibrium_manifold", "lr_linearization", "lp_linearization", "classify_eigenvalues", "alpha_colour_value",
    "EquilibriumSet", "EquilibriumPoint", "Family", "STABILITY_CLASSES",
]

RTOL_J = 1e-12
RTOL_RHO = 1e-12
STAB_RTOL = 1e-6
MAX_STEP_DEG = 1.0
E_CAP_FACTOR = 20.0
#: samples of one family at most (the refinement stops there: bounded memory for extreme bodies, J3/J1 ~ 1e-17)
MAX_FAMILY_SAMPLES = 20_000
#: smallest J3 / J1 that equilibria() accepts
MIN_MOMENT_RATIO = 1e-12
STABILITY_CLASSES = ("elliptic-elliptic", "saddle-centre", "saddle-saddle", "focus-focus", "degenerate")

_STEP = np.deg2rad(MAX_STEP_DEG) * 0.9   # refinement target (a margin below 1 deg)
_LIMIT_ANGLE = np.deg2rad(0.5)            # how close a curve gets to a pole limit


# ================================================================================================
# records
# ================================================================================================
@dataclass(frozen=True)
class EquilibriumPoint:
    """One (relative) equilibrium, in the pendulum's body frame.

    Attributes
    ----------
    Gamma, omega : (3,) arrays
        ``omega = k Gamma`` (Eq 36).
    mu : float
        Momentum map value, Eq (77): ``mu = k Gamma^T J Gamma = omega^T J Gamma``.
    energy : float
        Eq (34).
    alpha : float
        ``k^2/k1`` of the proof of Prop 9 (0 for hanging/inverted, NaN for the (38) points where k1 = 0).
    family : str
        "hanging", "inverted", "eq38", "L1".."L4" (joined by "+" when rho_i = 0 merges intervals),
        "eq41-p1".."eq41-p3", "eq7a", "eq7b", "axis-hanging", "axis-inverted".
    branch : int
        +1 / -1 for the two signs of omega (Eqs 39/40), 0 for static equilibria.
    stability : str
        One of :data:`STABILITY_CLASSES`.
    eigenvalues : (4,) complex array
        Of the Lagrange–Routh linearisation at (Gamma_e, 0) and this mu.
    """

    Gamma: NDArray[np.float64]
    omega: NDArray[np.float64]
    mu: float
    energy: float
    alpha: float
    family: str
    branch: int
    stability: str
    eigenvalues: NDArray[np.inexact[Any]]

    def tilted(self, eps: float) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """An LP state ``(Gamma, omega)`` near this equilibrium: Gamma tilted by ``eps`` radians off the vertical
        plane through it (towards ``Gamma x e3``; ``Gamma x e1`` at the poles), omega kept."""
        eps = _v.real("eps", eps)
        G = np.asarray(self.Gamma, dtype=np.float64)
        a = np.cross(G, [0.0, 0.0, 1.0])
        if np.linalg.norm(a) < 1e-6:
            a = np.cross(G, [1.0, 0.0, 0.0])
        a /= np.linalg.norm(a)
        G1 = np.cos(eps) * G + np.sin(eps) * a
        return G1 / np.linalg.norm(G1), np.array(self.omega, dtype=np.float64)


@dataclass(frozen=True)
class Family:
    """A family of relative equilibria sampled along its parameter (arrays along the curve, body frame).

    Attributes
    ----------
    label : str
        See :class:`EquilibriumPoint`.
    kind : str
        "generic" (Eqs 39-40), "axis" (rho on a principal axis), "eq41", "eq7a" (two-parameter; the
        arrays hold one meridian, the family is its orbit about ``axis``), "eq7b".
    branch : int
        +1 or -1 (sign of the spin ``k``; the two branches share Gamma and energy, ``mu`` flips sign).
    param : (n,) array
        The bounded parameter: ``phi`` (alpha = tan phi) for generic/axis families, ``psi`` for the others.
    alpha, Gamma, omega, mu, energy, stability, eigenvalues : arrays of length n
    axis : (3,) array or None
        Symmetry axis (body frame) of an "eq7a" family.
    """

    label: str
    kind: str
    branch: int
    param: NDArray[np.float64]
    alpha: NDArray[np.float64]
    Gamma: NDArray[np.float64]
    omega: NDArray[np.float64]
    mu: NDArray[np.float64]
    energy: NDArray[np.float64]
    stability: NDArray[np.object_]
    eigenvalues: NDArray[np.inexact[Any]]
    axis: NDArray[np.float64] | None = None
    static_ends: tuple[bool, bool] = (False, False)
    _eval: Any = field(default=None, repr=False, compare=False)

    def __len__(self) -> int:
        return len(self.param)

    @property
    def stable(self) -> NDArray[np.bool_]:
        """Boolean mask of the linearly stable (elliptic–elliptic) samples."""
        return self.stability == "elliptic-elliptic"

    def point(self, k: int) -> EquilibriumPoint:
        """The ``k``-th sample (clipped to the family) as an :class:`EquilibriumPoint`."""
        k = min(max(int(k), 0), len(self) - 1)
        return EquilibriumPoint(self.Gamma[k].copy(), self.omega[k].copy(), float(self.mu[k]), float(self.energy[k]),
                                float(self.alpha[k]), self.label, self.branch, str(self.stability[k]),
                                self.eigenvalues[k].copy())


@dataclass
class EquilibriumSet:
    """Result of :func:`equilibria`.

    Attributes
    ----------
    pendulum : Pendulum
    isolated : list of EquilibriumPoint
        hanging, inverted and the two (38) points.
    families : list of Family
        Both branches of every family.
    frame : (3, 3) array
        Adapted principal axes (columns, body frame) used internally.
    case : dict
        The structure detected: principal moments (snapped), rho in adapted axes (snapped), flags.
    """

    pendulum: Pendulum
    isolated: list[EquilibriumPoint]
    families: list[Family]
    frame: NDArray[np.float64]
    case: dict[str, Any] = field(default_factory=dict)

    def points(self) -> list[EquilibriumPoint]:
        """Every computed point: the isolated equilibria and every sample of every family (both branches),
        except the family end-samples that coincide with the static hanging/inverted points."""
        out = list(self.isolated)
        for f in self.families:
            for i in range(len(f)):
                if (i == 0 and f.static_ends[0]) or (i == len(f) - 1 and f.static_ends[1]):
                    continue
                out.append(EquilibriumPoint(f.Gamma[i].copy(), f.omega[i].copy(), float(f.mu[i]),
                                            float(f.energy[i]), float(f.alpha[i]), f.label, f.branch,
                                            str(f.stability[i]), f.eigenvalues[i].copy()))
        return out

    def curves(self, branch: int = +1) -> list[Family]:
        """The families of one branch (Gamma, alpha, mu, energy, stability along each), for plotting."""
        return [f for f in self.families if f.branch == branch]

    def point(self, family: str) -> list[EquilibriumPoint]:
        """The isolated points with the given family label."""
        return [p for p in self.isolated if p.family == family]

    @property
    def hanging(self) -> EquilibriumPoint:
        return self.point("hanging")[0]

    @property
    def inverted(self) -> EquilibriumPoint:
        return self.point("inverted")[0]

    @property
    def labels(self) -> list[str]:
        """Family labels (branch +1), in order."""
        return [f.label for f in self.curves(+1)]

    @property
    def alpha_scale(self) -> float:
        """Scale used by :func:`alpha_colour_value`: the middle principal moment J2."""
        return float(self.case["principal_moments"][1])


# ================================================================================================
# small public helpers
# ================================================================================================
def alpha_colour_value(alpha: ArrayLike, scale: float) -> NDArray[np.float64]:
    """Bounded colour coordinate of alpha: ``(2/pi) arctan(alpha * scale)`` in [-1, 1].

    -inf -> -1 (blue), 0 -> 0, +inf -> +1 (red); with ``scale = J2`` the pole 1/J2 maps to 0.5.
    """
    return (2.0 / np.pi) * np.arctan(np.asarray(alpha, dtype=float) * scale)


def equilibrium_attitude(Gamma: ArrayLike, angle: float = 0.0) -> NDArray[np.float64]:
    """A rotation ``R_e`` in SO(3) with ``R_e^T e3 = Gamma``, rotated by ``angle`` about the vertical
    (the S^1 symmetry of Sec. 5.1); see :func:`pendulum_explorer.reduction.attitude_from_gamma`."""
    return attitude_from_gamma(Gamma, _v.real("angle", angle))


def equilibrium_manifold(pendulum: Pendulum, which: str = "hanging", n: int = 36) -> NDArray[np.float64]:
    """Samples of the hanging (Eq 10/12) or inverted (Eq 11/13) equilibrium manifold of the full model.

    Returns
    -------
    (n, 3, 3) array of rotations ``R`` with ``R^T e3 = +-rho/|rho|`` (the equilibrium is ``(R, omega = 0)``).
    """
    _v.check_pendulum(pendulum)
    which = _v.choice("which", which, ("hanging", "inverted"), exc=InvalidStateError)
    n = _v.integer("n", n, low=1, high=100_000)
    pendulum.require_unbalanced("the equilibrium manifolds")
    G = pendulum.rho / np.linalg.norm(pendulum.rho) * (1.0 if which == "hanging" else -1.0)
    return np.array([equilibrium_attitude(G, a) for a in np.linspace(0, 2 * np.pi, n, endpoint=False)])


def classify_eigenvalues(ev: ArrayLike, rtol: float = STAB_RTOL) -> str | NDArray[np.object_]:
    """Stability class of 4 eigenvalues of a Hamiltonian linearisation (see module docstring).

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
    return out[0] if single else out


# ================================================================================================
# linearisations (Eq 62 in a tangent chart; Eqs 31-32 in R^6)
# ================================================================================================
def _tangent_basis(G):
    """Orthonormal tangent vectors (n, 3) x 2 at the rows of G."""
    G = np.atleast_2d(G)
    idx = np.argmin(np.abs(G), axis=1)
    a = np.eye(3)[idx]
    t1 = np.cross(a, G)
    t1 /= np.linalg.norm(t1, axis=1)[:, None]
    t2 = np.cross(G, t1)
    return t1, t2


def _lr_stability(pendulum, G, mu, k):
    """Eigenvalues (n, 4) and classes (n,) of the LR linearisation at (G[i], 0) with momentum mu[i]."""
    G = np.ascontiguousarray(G, dtype=float)
    n = G.shape[0]
    if n == 0:
        return np.zeros((0, 4), complex), np.array([], dtype=object)
    t1, t2 = _tangent_basis(G)
    J1 = pendulum.principal_moments[0]
    w0 = np.sqrt(pendulum.mgrho_norm / J1)
    hv = 1e-3 * (np.abs(k) + w0)
    A = np.empty((n, 4, 4))
    lr_jacobian_batch(G, np.ascontiguousarray(t1), np.ascontiguousarray(t2), _params_rows(pendulum, mu), 1e-3, hv, A)
    _v.finite_result("the linearisation at a relative equilibrium", A)
    ev = _sort_rows(np.linalg.eigvals(A))
    return ev, classify_eigenvalues(ev)


def _params_rows(pendulum, mu):
    """Read-only (n, N_PARAMS) parameter vectors ``pendulum.params(mu_k)``, one per momentum value."""
    P = np.stack([pendulum.params(float(m)) for m in np.asarray(mu, dtype=float).ravel()])
    P.setflags(write=False)
    return P


def _sort_rows(ev):
    key = np.round(ev.imag, 12) * 1e3 + ev.real  # imaginary part first, then real part
    idx = np.argsort(key, axis=1)
    return np.take_along_axis(ev, idx, axis=1)


def lr_linearization(pendulum: Pendulum, Gamma: ArrayLike,
                     mu: float) -> tuple[NDArray[np.float64], NDArray[np.inexact[Any]], str]:
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
    t1, t2 = _tangent_basis(G)
    A = np.empty((1, 4, 4))
    k = np.array([mu / (G[0] @ pendulum.J @ G[0])])
    J1 = pendulum.principal_moments[0]
    w0 = np.sqrt(pendulum.mgrho_norm / J1)
    lr_jacobian_batch(np.ascontiguousarray(G), t1, t2, _params_rows(pendulum, [float(mu)]), 1e-3,
                      1e-3 * (np.abs(k) + w0), A)
    ev = _sort_rows(np.linalg.eigvals(A))[0]
    return A[0], ev, cast(str, classify_eigenvalues(ev))


def lp_linearization(pendulum: Pendulum, Gamma: ArrayLike,
                     omega: ArrayLike) -> tuple[NDArray[np.float64], NDArray[np.inexact[Any]]]:
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


# ================================================================================================
# structure detection in adapted principal axes
# ================================================================================================
def _adapted_frame(pendulum, rtol_J, rtol_rho):
    """Principal axes in which each group of equal moments sees rho along its first axis.

    Returns ``(P, j, r, groups)``: columns of P are the axes (body frame, det +1), ``j`` the (snapped)
    moments J1 >= J2 >= J3, ``r`` rho in these axes (snapped zeros), ``groups`` lists of indices.
    """
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
    return P, j, r, groups


# ================================================================================================
# family evaluation in adapted axes
# ================================================================================================
def _gen_eval(base, delta, j, r, phis):
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


def _circ_eval(psi, g_idx, uhat, free_dir):
    """Eq (41)/(7) family: Gamma = -cos(psi) uhat + sin(psi) e_free; returns Gamma, k^2/(m g |u|)."""
    psi = np.asarray(psi, dtype=float)
    G = -np.cos(psi)[:, None] * uhat[None, :] + np.sin(psi)[:, None] * free_dir[None, :]
    return G, 1.0 / np.cos(psi)


def _angles(G):
    c = np.einsum("ij,ij->i", G[1:], G[:-1])
    x = np.linalg.norm(np.cross(G[1:], G[:-1]), axis=1)
    return np.arctan2(x, c)


def _refine(params, evalf, s_ref, max_iter=60):
    """Insert midpoints until consecutive Gamma are < _STEP apart and log(s + s_ref) changes by < 0.1."""
    x = np.asarray(params, dtype=float)
    G, s = evalf(x)
    for _ in range(max_iter):
        ang = _angles(G)
        ls = np.log(s + s_ref)
        bad = (ang > _STEP) | (np.abs(np.diff(ls)) > 0.1)
        if not bad.any():
            break
        mids = 0.5 * (x[:-1][bad] + x[1:][bad])
        mids = mids[(mids != x[:-1][bad]) & (mids != x[1:][bad])]  # intervals at rounding level stay as they are
        if len(mids) == 0 or len(x) + len(mids) > MAX_FAMILY_SAMPLES:
            break
        Gm, sm = evalf(mids)
        x = np.concatenate([x, mids])
        o = np.argsort(x)
        x = x[o]
        G = np.concatenate([G, Gm])[o]
        s = np.concatenate([s, sm])[o]
    return x, G, s


def _refine_segment(info, B, X, K, s_ref, max_iter=60):
    """:func:`_refine` for a generic segment stored as (base pole, offset) samples ordered by the key K."""
    phis = info["phis"]
    o = np.argsort(K, kind="stable")
    B, X, K = B[o], X[o], K[o]
    G, s, _ = _eval_adapted(info, B, X)
    for _ in range(max_iter):
        ang = _angles(G)
        ls = np.log(s + s_ref)
        bad = np.nonzero((ang > _STEP) | (np.abs(np.diff(ls)) > 0.1))[0]
        if len(bad) == 0:
            break
        b0 = B[bad]
        x1 = np.where(B[bad + 1] == b0, X[bad + 1], (phis[B[bad + 1]] + X[bad + 1]) - phis[b0])
        xm = 0.5 * (X[bad] + x1)
        km = K[bad] + (xm - X[bad])
        split = (xm != X[bad]) & (xm != x1) & (km > K[bad]) & (km < K[bad + 1])  # not at rounding level
        b0, xm, km = b0[split], xm[split], km[split]
        if len(xm) == 0 or len(B) + len(xm) > MAX_FAMILY_SAMPLES:
            break
        Gm, sm, _ = _eval_adapted(info, b0, xm)
        B, X, K = np.concatenate([B, b0]), np.concatenate([X, xm]), np.concatenate([K, km])
        G, s = np.concatenate([G, Gm]), np.concatenate([s, sm])
        o = np.argsort(K, kind="stable")
        B, X, K, G, s = B[o], X[o], K[o], G[o], s[o]
    return B, X


def _approach(evalf, start, sign, limit, s_cap, ok_limit=True):
    """Offsets start, start/2, ... (toward 0) until Gamma is within 0.5 deg of ``limit`` and s >= s_cap."""
    out = []
    h = start
    for _ in range(1100):
        h = h * 0.5
        G, s = evalf(np.array([sign * h]))
        out.append(sign * h)
        close = (not ok_limit) or np.arccos(np.clip(G[0] @ limit, -1, 1)) <= _LIMIT_ANGLE
        if close and s[0] >= s_cap:
            break
        if h < 1e-300:
            break
    return np.array(out)


# ================================================================================================
# main entry point
# ================================================================================================
def _eval_adapted(info, base, x):
    """Evaluate a family (adapted axes) at samples ``(base, x)``: Gamma (n, 3), k^2/(m g) (n,), alpha (n,)."""
    x = np.asarray(x, dtype=float)
    base = np.asarray(base)
    if info["type"] == "circ":
        G, sc = _circ_eval(x, 0, info["uhat"], info["free"])
        return G, sc * info["un"], np.full(len(x), info["alpha"])
    j, r, phis = info["j"], info["r"], info["phis"]
    G = np.empty((len(x), 3))
    s = np.empty(len(x))
    al = np.empty(len(x))
    for b in np.unique(base):
        m = base == b
        G[m], s[m], al[m] = _gen_eval(int(b), x[m], j, r, phis)
    static = info.get("static")
    if static is not None:  # exact static end points (s = 0)
        for (b, xs, Gs) in static:
            m = (base == b) & (x == xs)
            G[m], s[m], al[m] = Gs, 0.0, 0.0
    return G, s, al


# ================================================================================================
# main entry point
# ================================================================================================
def equilibria(pendulum: Pendulum, rtol_J: float = RTOL_J, rtol_rho: float = RTOL_RHO,
               stability: bool = True) -> EquilibriumSet:
    """All equilibria and relative equilibria of the 3D pendulum (Props 9 and 20, sign-corrected).

    Parameters
    ----------
    pendulum : Pendulum
        Must be unbalanced (rho != 0), else :class:`~pendulum_explorer.errors.BalancedPendulumError`.
    rtol_J, rtol_rho : float
        Relative tolerances for treating principal moments as equal and rho components as zero (see the
        module docstring).
    stability : bool
        Compute the Lagrange–Routh eigenvalues and classes (else they are NaN / "").

    Returns
    -------
    EquilibriumSet
        In the pendulum's own body frame.
    """
    _v.check_pendulum(pendulum)
    rtol_J = _v.real("rtol_J", rtol_J, exc=InvalidIntegrationError, low=0.0, high=1e-3)
    rtol_rho = _v.real("rtol_rho", rtol_rho, exc=InvalidIntegrationError, low=0.0, high=1e-3)
    if not isinstance(stability, (bool, np.bool_)):
        raise TypeError(f"stability must be True or False; got {stability!r}")
    pendulum.require_unbalanced("equilibria()")
    Jp = pendulum.principal_moments
    if Jp[2] < MIN_MOMENT_RATIO * Jp[0]:
        raise InvalidPendulumError(
            f"equilibria() needs J3 >= {MIN_MOMENT_RATIO:g} J1 (the families near the pole 1/J3 are not "
            f"representable in double precision otherwise); got principal moments {Jp.tolist()}")
    P, j, r, groups = _adapted_frame(pendulum, rtol_J, rtol_rho)
    rn = np.linalg.norm(r)
    s_ref = rn / j[0]                      # k^2/(m g) scale of the small oscillations
    s_cap = 2.0 * E_CAP_FACTOR * rn / j[2]  # k^2/(m g) at which 1/2 k^2 J3 = E_CAP m g |rho|
    phis = np.arctan2(1.0, j)
    act = r != 0.0
    poles = sorted((int(i) for i in np.nonzero(act)[0]), key=lambda i: phis[i])
    paper_bp = [0.0, *np.arctan2(1.0, j), np.pi]
    paper_iv = [("L2", paper_bp[0], paper_bp[1]), ("L3", paper_bp[1], paper_bp[2]),
                ("L4", paper_bp[2], paper_bp[3]), ("L1", paper_bp[3], paper_bp[4])]
    on_axis = len(poles) == 1
    rhat = r / rn
    gen_info = dict(type="gen", j=j, r=r, phis=phis)

    raw = []
    # ---- generic segments between consecutive active poles (and 0, pi), Eqs (39)-(40) ---------------
    edges = [None, *poles, None]
    for a, c in zip(edges[:-1], edges[1:]):
        lo = 0.0 if a is None else phis[a]
        hi = np.pi if c is None else phis[c]
        halves: list[tuple[Any, int, float, bool]]
        if a is not None and c is not None:
            mid = 0.5 * (hi - lo)
            halves = [(a, +1, mid, True), (c, -1, mid, False)]
        elif a is None:
            halves = [(c, -1, hi - lo, False)]
        else:
            halves = [(a, +1, hi - lo, False)]
        static = []
        if a is None:  # starts at the hanging point (alpha -> 0+)
            static.append((c, -phis[c], rhat))
        if c is None:  # ends at the inverted point (alpha -> 0-)
            static.append((a, np.pi - phis[a], -rhat))
        info = dict(gen_info, static=static)
        B, X, K = [], [], []
        for hidx, (base, sgn, H, incl_end) in enumerate(halves):
            def ev(x, base=base):
                G, s, _ = _gen_eval(base, x, j, r, phis)
                return G, s
            lim = ev(np.array([sgn * 1e-300]))[0][0]
            near = _approach(ev, H, sgn, lim, s_cap)
            grid = sgn * np.linspace(H, 0.0, 24, endpoint=False)  # grid[0]: a static end or the midpoint
            if not (incl_end or a is None or c is None):
                grid = grid[1:]  # the midpoint belongs to the left half
            x0 = np.unique(np.concatenate([grid, near]))
            if c is None:
                # keep the exact (38) point (alpha = +-inf, phi = pi/2) out of the curve; bracket it tightly
                x38 = np.pi / 2 - phis[a]
                x0 = x0[np.abs(x0 - x38) > 1e-7]
                x0 = np.unique(np.concatenate([x0, [x38 - 1e-7, x38 + 1e-7]]))
            B.append(np.full(len(x0), base))
            X.append(x0)
            K.append(10.0 * hidx + x0)
        B, X = _refine_segment(info, np.concatenate(B), np.concatenate(X), np.concatenate(K), s_ref)
        PH = phis[B] + X
        ends = (a is None, c is None)
        if on_axis:
            label, kind = ("axis-hanging" if a is None else "axis-inverted"), "axis"
        else:
            label = "+".join(nm for nm, x0_, x1_ in paper_iv if max(lo, x0_) < min(hi, x1_))
            kind = "generic"
        info = dict(gen_info, static=static)
        raw.append(dict(label=label, kind=kind, base=B, x=X, param=PH, ends=ends, axis=None, info=info))

    # ---- Eq (41) / case 7 families for moment groups that rho does not see -----------------------------
    repeated = any(len(g) > 1 for g in groups)
    for g in groups:
        if np.any(act[g]):
            continue
        gi = g[0]
        u = np.where(act, r / np.where(act, j - j[gi], 1.0), 0.0)
        un = np.linalg.norm(u)
        uhat = u / un
        free = np.eye(3)[gi]
        if len(g) == 2:
            label, kind = "eq7a", "eq7a"
        elif repeated:
            label, kind = "eq7b", "eq7b"
        else:
            label, kind = f"eq41-p{gi + 1}", "eq41"
        info = dict(type="circ", uhat=uhat, free=free, un=un, alpha=1.0 / j[gi])

        def ev(x, info=info):
            G, s, _ = _eval_adapted(info, np.zeros(len(x), int), x)
            return G, s
        def ev_top(x, ev=ev):  # offsets x < 0 from psi = pi/2, where Gamma -> +e_free
            return ev(np.pi / 2 + x)
        top = np.pi / 2 + _approach(ev_top, 0.25, -1, free, s_cap)
        n_lin = int(np.ceil(np.pi / _STEP)) + 1
        x0 = np.unique(np.concatenate([np.linspace(-np.pi / 2, np.pi / 2, n_lin)[1:-1], top, -top]))
        x, _, _ = _refine(x0, ev, s_ref)
        raw.append(dict(label=label, kind=kind, base=np.full(len(x), -1), x=x, param=x, ends=(False, False),
                        axis=(P @ uhat if kind == "eq7a" else None), info=info))

    # ---- isolated points: hanging, inverted (Prop 9 cases 1-2), Eq (38) ----------------------------------
    Jinv_r = r / j
    G38 = -Jinv_r / np.linalg.norm(Jinv_r)
    s38 = np.linalg.norm(Jinv_r)
    iso_raw = [("hanging", rhat, 0.0, 0.0, 0), ("inverted", -rhat, 0.0, 0.0, 0),
               ("eq38", G38, s38, np.nan, +1), ("eq38", G38, s38, np.nan, -1)]

    ctx = _Ctx(pendulum, P, stability)
    isolated = []
    for name, Gp, s, al, br in iso_raw:
        Gb, W, k, E, mu, eigs, cls = ctx.finish(Gp[None, :], np.array([s]), br if br else 1)
        isolated.append(EquilibriumPoint(Gb[0], W[0], float(mu[0]), float(E[0]), float(al), name, br, cls[0],
                                         eigs[0]))
    families = []
    for fam in raw:
        Gp, s, al = _eval_adapted(fam["info"], fam["base"], fam["x"])
        Gb, W, k, E, mu, eigs, cls = ctx.finish(Gp, s, +1)
        f = Family(fam["label"], fam["kind"], +1, fam["param"].copy(), al.copy(), Gb, W, mu, E, cls, eigs,
                   fam["axis"], fam["ends"], dict(fam["info"], base=fam["base"].copy(), x=fam["x"].copy()))
        if stability:
            f = _refine_transitions(f, ctx)
        families.append(f)
        families.append(_mirror(f, ctx))

    case = dict(principal_moments=j, rho_adapted=r, groups=[list(g) for g in groups], rho_on_axis=on_axis,
                repeated_moments=repeated, poles=[float(phis[i]) for i in poles], rtol_J=rtol_J,
                rtol_rho=rtol_rho)
    return EquilibriumSet(pendulum, isolated, families, P, case)


class _Ctx:
    """Adapted axes -> body frame; energy and mu from the kernels (Eqs 34, 77); LR stability."""

    def __init__(self, pendulum, P, stability):
        self.pendulum = pendulum
        self.P = P
        self.p = pendulum.params(0.0)
        self.mg = pendulum.m * pendulum.g
        self.stability = stability

    def finish(self, Gp, s, branch):
        Gb = Gp @ self.P.T
        Gb /= np.linalg.norm(Gb, axis=-1)[:, None]
        k = branch * np.sqrt(self.mg * s)
        W = k[:, None] * Gb
        em = np.empty((len(Gb), 2))
        invariants_batch(LP, np.ascontiguousarray(np.concatenate([Gb, W], axis=1)), self.p, em)
        if self.stability:
            ev, cls = _lr_stability(self.pendulum, Gb, em[:, 1], k)
        else:
            ev, cls = np.full((len(Gb), 4), np.nan + 0j), np.array([""] * len(Gb), dtype=object)
        return Gb, W, k, em[:, 0], em[:, 1], ev, cls


def _mirror(f, ctx):
    """The branch -1 copy of a family: omega -> -omega, mu -> -mu (energy and mu from the kernels).

    The LP equations are reversible, ``(Gamma, omega, t) -> (Gamma, -omega, -t)``, so the linearisation at
    the mirrored point has the negated spectrum, which for a Hamiltonian system is the same set: the
    eigenvalues and the class are copied (the test-suite checks this against a direct computation).
    """
    W = -f.omega
    em = np.empty((len(W), 2))
    invariants_batch(LP, np.ascontiguousarray(np.concatenate([f.Gamma, W], axis=1)), ctx.p, em)
    return Family(f.label, f.kind, -1, f.param.copy(), f.alpha.copy(), f.Gamma.copy(), W, em[:, 1], em[:, 0],
                  f.stability.copy(), f.eigenvalues.copy(), f.axis, f.static_ends, f._eval)


def _common_base(info, b0, x0, b1, x1):
    """Express two samples of a generic family in the base of the first (for bisection/root finding)."""
    if info["type"] == "circ" or b0 == b1:
        return x0, x1
    phis = info["phis"]
    return x0, (phis[b1] + x1) - phis[b0]


def _refine_transitions(f, ctx, n_bisect=18):
    """Bisect the parameter between samples of different stability class; insert the bracketing pair."""
    cls = f.stability
    idx = np.nonzero(cls[1:] != cls[:-1])[0]
    if len(idx) == 0:
        return f
    info = f._eval
    bases = info["base"][idx]
    xl = np.empty(len(idx))
    xh = np.empty(len(idx))
    for n, i in enumerate(idx):
        xl[n], xh[n] = _common_base(info, info["base"][i], info["x"][i], info["base"][i + 1], info["x"][i + 1])
    cl = cls[idx].copy()
    xl0, xh0 = xl.copy(), xh.copy()
    for _ in range(n_bisect):
        xm = 0.5 * (xl + xh)
        Gp, s, _ = _eval_adapted(info, bases, xm)
        cm = ctx.finish(Gp, s, f.branch)[6]
        left = cm == cl
        xl = np.where(left, xm, xl)
        xh = np.where(left, xh, xm)
    keep = np.column_stack([xl != xl0, xh != xh0]).ravel()  # do not duplicate the original samples
    ins = np.repeat(idx + 1, 2)[keep]
    bb = np.repeat(bases, 2)[keep]
    xx = np.column_stack([xl, xh]).ravel()[keep]
    if len(xx) == 0:
        return f
    Gp, s, al = _eval_adapted(info, bb, xx)
    Gb, W, k, E, mu, ev, cm = ctx.finish(Gp, s, f.branch)
    par = xx if info["type"] == "circ" else info["phis"][bb] + xx
    new_info = dict(info, base=np.insert(info["base"], ins, bb), x=np.insert(info["x"], ins, xx))
    return Family(f.label, f.kind, f.branch, np.insert(f.param, ins, par), np.insert(f.alpha, ins, al),
                  np.insert(f.Gamma, ins, Gb, axis=0), np.insert(f.omega, ins, W, axis=0),
                  np.insert(f.mu, ins, mu), np.insert(f.energy, ins, E), np.insert(f.stability, ins, cm),
                  np.insert(f.eigenvalues, ins, ev, axis=0), f.axis, f.static_ends, new_info)


# ================================================================================================
# equilibria at a given momentum; energy-momentum data
# ================================================================================================
def equilibria_at_mu(pendulum: Pendulum, mu: float, eq: EquilibriumSet | None = None,
                     n_ring: int = 72) -> list[EquilibriumPoint]:
    """The Lagrange–Routh equilibria that exist at momentum ``mu`` (the critical points of V_mu on S^2).

    Parameters
    ----------
    pendulum : Pendulum
    mu : float
    eq : EquilibriumSet, optional
        A precomputed :func:`equilibria` result for this pendulum (saves the recomputation).
    n_ring : int
        For the two-parameter "eq7a" family the solutions at fixed mu form circles about its axis; they are
        sampled at ``n_ring`` points.

    Returns
    -------
    list of EquilibriumPoint
        Located by root finding on the family parameter (rounding-level accuracy in mu).  ``mu = 0`` gives
        the hanging and inverted equilibria.  Points of the families nearer to a pole than the sampled curve
        (|mu| beyond the range of the curves, energy above ``E_CAP_FACTOR m g |rho|``) are not returned.
    """
    _v.check_pendulum(pendulum)
    mu = _v.real("mu", mu)
    n_ring = _v.integer("n_ring", n_ring, low=1, high=100_000)
    if eq is None:
        eq = pendulum.cached("equilibria", equilibria)
    elif not isinstance(eq, EquilibriumSet):
        raise TypeError(f"eq must be an EquilibriumSet (from equilibria(pendulum)); got {type(eq).__name__}")
    elif eq.pendulum != pendulum:
        raise InvalidStateError(f"eq was computed for another pendulum ({eq.pendulum!r}), not for {pendulum!r}")
    if mu == 0.0:
        return [eq.hanging, eq.inverted]
    br = 1 if mu > 0 else -1
    ctx = _Ctx(pendulum, eq.frame, True)
    out = [ip for ip in eq.isolated if ip.family == "eq38" and ip.branch == br
           and abs(ip.mu - mu) <= 1e-13 * abs(mu)]
    for f in eq.curves(br):
        m = f.mu - mu
        cross = np.nonzero(np.sign(m[:-1]) * np.sign(m[1:]) <= 0)[0]
        info = f._eval
        for i in cross:
            if i > 0 and m[i] == 0.0:
                continue  # counted with the previous interval
            b0 = info["base"][i]
            xa, xb = _common_base(info, b0, info["x"][i], info["base"][i + 1], info["x"][i + 1])

            def resid(x, b0=b0):
                Gp, s, _ = _eval_adapted(info, np.array([b0]), np.array([x]))
                return _mu_only(ctx, Gp, s, br) - mu

            if m[i] == 0.0:
                x = xa
            elif m[i + 1] == 0.0:
                x = xb
            else:
                x = find_root(resid, xa, xb, rtol=1e-15, maxiter=200)
            Gp, s, al = _eval_adapted(info, np.array([b0]), np.array([x]))
            Gb, W, k, E, mu_, ev, cls = ctx.finish(Gp, s, br)
            pt = EquilibriumPoint(Gb[0], W[0], float(mu_[0]), float(E[0]), float(al[0]), f.label, br, cls[0], ev[0])
            if f.kind == "eq7a":
                assert f.axis is not None  # every eq7a family has its axis
                ax = f.axis / np.linalg.norm(f.axis)
                for th in np.linspace(0, 2 * np.pi, n_ring, endpoint=False):
                    Rm = rotation_about(ax, th)
                    out.append(EquilibriumPoint(Rm @ pt.Gamma, Rm @ pt.omega, pt.mu, pt.energy, pt.alpha,
                                                pt.family, br, pt.stability, pt.eigenvalues))
            else:
                out.append(pt)
    uniq: list[EquilibriumPoint] = []  # families meet (e.g. at the Eq 41 crossings): deduplicate
    for q in out:
        if all(np.linalg.norm(q.Gamma - u.Gamma) > 1e-9 for u in uniq):
            uniq.append(q)
    return uniq


def _mu_only(ctx, Gp, s, br):
    Gb = Gp @ ctx.P.T
    Gb /= np.linalg.norm(Gb, axis=-1)[:, None]
    W = br * np.sqrt(ctx.mg * s)[:, None] * Gb
    return mu_lp(Gb[0], W[0], ctx.p)


def energy_momentum_data(eq: EquilibriumSet | Pendulum) -> dict[str, Any]:
    """The energy–momentum diagram: every relative equilibrium in the (mu, E) plane with its stability.

    Parameters
    ----------
    eq : EquilibriumSet or Pendulum

    Returns
    -------
    dict
        ``curves``: list of dicts (label, kind, branch, mu, energy, stability, alpha) per family and branch;
        ``points``: list of dicts (label, branch, mu, energy, stability) for hanging, inverted, (38);
        ``mgrho``: ``m g |rho|``, the natural energy scale.
    """
    if isinstance(eq, Pendulum):
        eq = equilibria(eq)
    if not isinstance(eq, EquilibriumSet):
        raise TypeError(f"eq must be an EquilibriumSet or a Pendulum; got {type(eq).__name__}")
    curves = [dict(label=f.label, kind=f.kind, branch=f.branch, mu=f.mu.copy(), energy=f.energy.copy(),
                   stability=f.stability.copy(), alpha=f.alpha.copy()) for f in eq.families]
    points = [dict(label=p.family, branch=p.branch, mu=p.mu, energy=p.energy, stability=p.stability)
              for p in eq.isolated]
    pend = eq.pendulum
    return dict(curves=curves, points=points, mgrho=pend.mgrho_norm)
