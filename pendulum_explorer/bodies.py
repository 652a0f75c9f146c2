"""Validated pendulum parameters and rigid-body builders.

:class:`Pendulum` holds ``J`` (inertia about the pivot, body frame), ``rho`` (pivot to centre of mass,
body frame), ``m`` and ``g`` — the parameters of Eqs (1)-(2).  The builders (:func:`elliptic_cylinder`,
:func:`box`, :func:`ellipsoid`) return a :class:`Body`: a pendulum plus a triangle mesh in the same frame.
"""
from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from . import _validate as _v
from ._core.fields import P_MU, pack_params
from ._words import _, number, numbers
from .errors import (
    BalancedPendulumError,
    InvalidPendulumError,
    NonFiniteError,
    NonPositiveError,
    NotPositiveDefiniteError,
    NotRealizableError,
    NotSymmetricError,
    ShapeError,
)

SYMMETRY_RTOL = 1e-12
REALIZABILITY_RTOL = 1e-12


#: magnitudes accepted for m, g, |rho|, the entries of J and m g |rho| (products of energies stay finite)
MAGNITUDE_RANGE = (1e-100, 1e100)


def _parameter(name: str, value: Any) -> float:
    """m, g, a dimension: a finite float in (0, 1e100]."""
    v = _v.real(name, value, exc=NonPositiveError, nonfinite_exc=NonFiniteError)
    if v <= 0.0:
        raise NonPositiveError(_("{name} must be > 0; got {value}").format(name=name, value=number(v)))
    if v > MAGNITUDE_RANGE[1]:
        raise InvalidPendulumError(f"{name} must be <= {MAGNITUDE_RANGE[1]:g}; got {v:g}")
    return v


def _vector(name: str, value: Any, shape: tuple[int, ...]) -> NDArray[np.float64]:
    return _v.array(name, value, shape, exc=NonFiniteError, max_abs=MAGNITUDE_RANGE[1])


class Pendulum(_v.PendulumBase):
    """A 3D pendulum: a rigid body on a fixed frictionless pivot in uniform gravity (Eqs 1-2).

    Parameters
    ----------
    J : (3, 3) array_like
        Inertia about the pivot in the body frame [kg m^2].  Must be symmetric (to 1e-12 relative),
        positive definite and physically realizable (principal moments satisfy J_i <= J_j + J_k).
    rho : (3,) array_like
        Vector from the pivot to the centre of mass in the body frame [m].  ``rho = 0`` (the balanced
        case) is accepted for simulation; analyses that need rho != 0 raise
        :class:`~pendulum_explorer.errors.BalancedPendulumError`.
    m : float, default 1.0
        Mass [kg], > 0.
    g : float, default 9.81
        Gravitational acceleration [m/s^2], > 0.

    The object is immutable; its arrays are read-only copies.
    """

    __slots__ = ("_J", "_rho", "_m", "_g", "_p0", "_eig", "_mgr", "_cache", "_cache_lock")
    _J: NDArray[np.float64]
    _rho: NDArray[np.float64]
    _m: float
    _g: float
    _p0: NDArray[np.float64]
    _eig: NDArray[np.float64]
    _mgr: float
    _cache: dict[str, Any]
    _cache_lock: threading.RLock

    def __init__(self, J: ArrayLike, rho: ArrayLike, m: float = 1.0, g: float = 9.81) -> None:
        J = _vector("J", J, (3, 3))
        rho = _vector("rho", rho, (3,))
        m = _parameter("m", m)
        g = _parameter("g", g)
        lo, hi = MAGNITUDE_RANGE
        rmax = float(np.abs(rho).max())
        if rmax != 0.0 and not lo <= rmax:
            raise InvalidPendulumError(f"rho must be 0 or have max |rho_i| >= {lo:g} m; got rho = {rho.tolist()}")
        rn = float(np.linalg.norm(rho))
        if not lo <= m * g * max(rn, lo) <= hi:
            raise InvalidPendulumError(
                f"m g |rho| must lie in [{lo:g}, {hi:g}] (energies must stay representable); got m = {m:g}, "
                f"g = {g:g}, |rho| = {rn:.3g}, m g |rho| = {m * g * rn:.3g}")
        scale = np.abs(J).max()
        asym = np.abs(J - J.T).max()
        if scale == 0.0 or asym > SYMMETRY_RTOL * scale:
            if scale == 0.0:
                raise NotPositiveDefiniteError(_("J must be positive definite; got the zero matrix"))
            raise NotSymmetricError(
                f"J must be symmetric (|J - J^T| <= {SYMMETRY_RTOL:g} max|J|); got max|J - J^T| = {asym:.3g} "
                f"for max|J| = {scale:.3g}, J = {J.tolist()}")
        J = 0.5 * (J + J.T)
        if scale < lo:
            raise NotPositiveDefiniteError(f"J must have entries of magnitude >= {lo:g} (kg m^2); got max|J| = {scale:.3g}")
        eig = np.linalg.eigvalsh(J)
        if eig[0] <= lo * scale:
            # (the words in the page's language where the dashboard shows them, next to its custom J)
            raise NotPositiveDefiniteError(
                _("J must be positive definite (all principal moments > 0); got principal moments {moments}").format(
                    moments="[" + numbers(np.round(eig[::-1], 12), ".12g") + "]"))
        Jd = np.sort(eig)[::-1]
        slack = Jd[1] + Jd[2] - Jd[0]
        if slack < -REALIZABILITY_RTOL * Jd[0]:
            raise NotRealizableError(
                _("J is not physically realizable: the principal moments must satisfy J1 <= J2 + J3; got "
                  "J1 = {J1} > J2 + J3 = {J23} (principal moments {moments})").format(
                    J1=number(Jd[0], ".6g"), J23=number(Jd[1] + Jd[2], ".6g"),
                    moments="[" + numbers(Jd, ".12g") + "]"))
        p0 = pack_params(J, m * g * rho, 0.0)
        if not np.all(np.isfinite(p0)):
            raise InvalidPendulumError(f"J cannot be inverted in double precision (principal moments {Jd.tolist()})")
        J, rho, Jd, p0 = (_v.frozen(a) for a in (J, rho, Jd, p0))
        for name, value in (("_J", J), ("_rho", rho), ("_m", m), ("_g", g), ("_eig", Jd), ("_mgr", m * g * rn),
                            ("_p0", p0), ("_cache", {}), ("_cache_lock", threading.RLock())):
            object.__setattr__(self, name, value)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"Pendulum is immutable: {name} cannot be set (build a new Pendulum)")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"Pendulum is immutable: {name} cannot be deleted")

    def cached(self, key: str, compute: Callable[[Pendulum], Any]) -> Any:
        """``compute(self)``, computed once per pendulum and kept on it (e.g. the equilibrium families that
        every section at any mu of this pendulum asks for).  The pendulum is immutable, so the value stays
        valid; ``key`` names the quantity.  Thread-safe: callers that ask at once wait for the first one's
        computation and get its result (one object); a computation that raises stores nothing."""
        if key not in self._cache:
            with self._cache_lock:
                if key not in self._cache:
                    self._cache[key] = compute(self)
        return self._cache[key]

    # --- attributes -----------------------------------------------------------------------------
    @property
    def J(self) -> NDArray[np.float64]:
        """Inertia about the pivot, body frame (read-only 3x3)."""
        return self._J

    @property
    def rho(self) -> NDArray[np.float64]:
        """Pivot-to-centre-of-mass vector, body frame (read-only)."""
        return self._rho

    @property
    def m(self) -> float:
        """Mass."""
        return self._m

    @property
    def g(self) -> float:
        """Gravitational acceleration."""
        return self._g

    @property
    def principal_moments(self) -> NDArray[np.float64]:
        """Principal moments ``(J1, J2, J3)`` with J1 >= J2 >= J3."""
        return self._eig.copy()

    @property
    def mgrho(self) -> NDArray[np.float64]:
        """``m g rho``, the vector that multiplies Gamma in the potential ``-m g rho^T Gamma`` (Eq 34)."""
        return self._m * self._g * np.array(self._rho)

    @property
    def mgrho_norm(self) -> float:
        """``m g |rho|`` [J]: the depth of the potential ``-m g rho^T Gamma`` (Eq 34), the natural energy scale
        (hanging at ``-m g |rho|``, inverted at ``+m g |rho|``)."""
        return self._mgr

    @property
    def is_balanced(self) -> bool:
        """True when rho = 0 (the balanced case of Sec. 3)."""
        return not np.any(self._rho)

    def params(self, mu: float = 0.0) -> NDArray[np.float64]:
        """The flat parameter vector used by the numba kernels (see :mod:`pendulum_explorer._core.fields`)."""
        mu = _v.real("mu", mu, low=-MAGNITUDE_RANGE[1], high=MAGNITUDE_RANGE[1])
        if mu == 0.0:
            return self._p0
        p = self._p0.copy()
        p[P_MU] = mu
        p.setflags(write=False)  # same array type as params(0): numba compiles each kernel once
        return p

    def require_unbalanced(self, what: str = "this analysis") -> None:
        """Raise :class:`BalancedPendulumError` if rho = 0."""
        if self.is_balanced:
            raise BalancedPendulumError(
                f"{what} needs rho != 0 (the centre of mass must differ from the pivot); got rho = "
                f"{self._rho.tolist()}")

    # --- frames ---------------------------------------------------------------------------------
    def principal(self) -> tuple[Pendulum, NDArray[np.float64]]:
        """The same pendulum in principal axes.

        Returns
        -------
        (Pendulum, Q)
            ``J' = Q^T J Q = diag(J1, J2, J3)`` with J1 >= J2 >= J3 (the convention of Sec. 4.3),
            ``rho' = Q^T rho``; the columns of ``Q`` are the principal axes in the original frame, det Q = +1.
            Axis signs: the second and third columns are oriented so that ``rho'_2 >= 0`` and ``rho'_3 >= 0``
            where possible (the largest entry of the column positive when rho'_i = 0); the first follows from
            det Q = +1.  For the paper's Fig. 1 body this reproduces the printed rho = [-0.0140, 0.1044, 0.4989].
        """
        w, V = np.linalg.eigh(self._J)
        order = np.argsort(w)[::-1]
        Q = V[:, order]
        for i in (1, 2):
            r = Q[:, i] @ self._rho
            if abs(r) > 1e-14 * (np.linalg.norm(self._rho) + 1e-300):
                s = np.sign(r)
            else:
                s = np.sign(Q[np.argmax(np.abs(Q[:, i])), i])
            Q[:, i] *= s
        if np.linalg.det(Q) < 0:
            Q[:, 0] *= -1.0
        Jp = np.diag(w[order])  # the sorted eigenvalues: exactly diagonal and exactly ordered
        return Pendulum(Jp, Q.T @ self._rho, self._m, self._g), Q

    def rotated(self, Q: ArrayLike) -> Pendulum:
        """The same physical pendulum expressed in the frame whose axes are the columns of rotation ``Q``."""
        Q = _v.rotation("Q", Q, exc=InvalidPendulumError)
        return Pendulum(Q.T @ self._J @ Q, Q.T @ self._rho, self._m, self._g)

    # --- small oscillations (Eqs 21-24) ---------------------------------------------------------
    def small_oscillations(self) -> dict[str, NDArray[np.float64]]:
        """Modes about the hanging equilibrium, Eqs (21)-(24).

        Solves the simultaneous diagonalisation ``J = M M^T``, ``-(m g/|rho|) hat(rho)^2 = M Lambda M^T`` with
        ``Lambda = diag(m g l1, m g l2, 0)``.

        Returns
        -------
        dict
            ``l`` = (l1, l2) with l1 >= l2, ``frequencies`` = sqrt(m g l_i) [rad/s], ``periods`` = 2 pi / freq [s].
        """
        self.require_unbalanced("the small-oscillation analysis")
        r = self._rho
        rh = np.array([[0, -r[2], r[1]], [r[2], 0, -r[0]], [-r[1], r[0], 0]])
        K = -(self._m * self._g / np.linalg.norm(r)) * (rh @ rh)
        # generalized symmetric eigenproblem K v = lam J v via Cholesky J = L L^T
        L = np.linalg.cholesky(self._J)
        Li = np.linalg.inv(L)
        lam = np.sort(np.linalg.eigvalsh(Li @ K @ Li.T))[::-1]
        lam = np.clip(lam, 0.0, None)
        freqs = np.sqrt(lam[:2])
        mg = self._m * self._g
        return {"l": lam[:2] / mg, "frequencies": freqs, "periods": 2 * np.pi / freqs}

    # --- misc -----------------------------------------------------------------------------------
    def __eq__(self, other: object) -> bool:
        return (isinstance(other, Pendulum) and np.array_equal(self._J, other._J)
                and np.array_equal(self._rho, other._rho) and self._m == other._m and self._g == other._g)

    def __hash__(self) -> int:
        return hash((self._J.tobytes(), self._rho.tobytes(), self._m, self._g))

    def __repr__(self) -> str:
        J = np.array2string(self._J, precision=6, separator=", ").replace("\n", "")
        rho = np.array2string(self._rho, precision=6, separator=", ")
        return f"Pendulum(J={J}, rho={rho}, m={self._m:g}, g={self._g:g})"

    def to_dict(self) -> dict[str, Any]:
        """JSON-serialisable parameters (inverse: ``Pendulum(**d)``)."""
        return {"J": self._J.tolist(), "rho": self._rho.tolist(), "m": self._m, "g": self._g}


# ------------------------------------------------------------------------------------------------
# Rigid bodies: pendulum + triangle mesh
# ------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Mesh:
    """Triangle mesh: ``vertices`` (n, 3) in the body frame (pivot at the origin), ``faces`` (k, 3) int."""

    vertices: NDArray[np.float64]
    faces: NDArray[np.int_]

    def transformed(self, Q: ArrayLike, shift: ArrayLike = (0.0, 0.0, 0.0)) -> Mesh:
        """Vertices mapped by ``x -> Q^T (x - shift)`` (a change of body frame)."""
        return Mesh((np.asarray(self.vertices) - np.asarray(shift)) @ np.asarray(Q), self.faces)


@dataclass(frozen=True)
class Body:
    """A pendulum with its shape.

    Attributes
    ----------
    pendulum : Pendulum
    mesh : Mesh
        In the pendulum's body frame; the pivot is the origin.
    name : str
    description : str
    shape : dict
        The builder's arguments (for export and the dashboard).
    """

    pendulum: Pendulum
    mesh: Mesh
    name: str = "custom"
    description: str = ""
    shape: dict[str, Any] = field(default_factory=dict)

    @property
    def centre_of_mass(self) -> NDArray[np.float64]:
        return np.array(self.pendulum.rho)


SHAPES = ("elliptic_cylinder", "box", "ellipsoid")


def _shape_inertia(kind: str, dims: Sequence[float], m: float) -> NDArray[np.float64]:
    """Inertia about the centre of mass, in the shape's own axes."""
    a, b, c = dims
    if kind == "elliptic_cylinder":  # semi-axes a (x), b (y), height c (z)
        return m * np.diag([b * b / 4 + c * c / 12, a * a / 4 + c * c / 12, (a * a + b * b) / 4])
    if kind == "box":  # full side lengths a, b, c
        return m / 12.0 * np.diag([b * b + c * c, a * a + c * c, a * a + b * b])
    if kind == "ellipsoid":  # semi-axes
        return m / 5.0 * np.diag([b * b + c * c, a * a + c * c, a * a + b * b])
    raise ValueError(f"unknown shape {kind!r}; valid: elliptic_cylinder, box, ellipsoid")


def _shape_mesh(kind: str, dims: Sequence[float], n: int = 48) -> tuple[NDArray[np.float64], NDArray[np.int_]]:
    a, b, c = dims
    if kind == "elliptic_cylinder":
        th = np.linspace(0, 2 * np.pi, n, endpoint=False)
        ring = np.stack([a * np.cos(th), b * np.sin(th)], axis=1)
        top = np.column_stack([ring, np.full(n, -c / 2)])  # z = -c/2 is "up" (e3 points down)
        bot = np.column_stack([ring, np.full(n, c / 2)])
        V = np.vstack([top, bot, [[0, 0, -c / 2], [0, 0, c / 2]]])
        faces: list[list[int]] = []
        for i in range(n):
            j = (i + 1) % n
            faces += [[i, j, n + i], [j, n + j, n + i], [2 * n, j, i], [2 * n + 1, n + i, n + j]]
        return V, np.array(faces)
    if kind == "box":
        s = np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)], float) * np.array(dims) / 2
        box_faces = np.array([[0, 1, 3], [0, 3, 2], [4, 6, 7], [4, 7, 5], [0, 4, 5], [0, 5, 1],
                              [2, 3, 7], [2, 7, 6], [0, 2, 6], [0, 6, 4], [1, 5, 7], [1, 7, 3]])
        return s, box_faces
    if kind == "ellipsoid":
        nu, nv = n // 2, n
        u = np.linspace(0, np.pi, nu)
        v = np.linspace(0, 2 * np.pi, nv, endpoint=False)
        uu, vv = np.meshgrid(u, v, indexing="ij")
        V = np.stack([a * np.sin(uu) * np.cos(vv), b * np.sin(uu) * np.sin(vv), c * np.cos(uu)], -1).reshape(-1, 3)
        faces = []
        for i in range(nu - 1):
            for j in range(nv):
                k0 = i * nv + j
                k1 = i * nv + (j + 1) % nv
                faces += [[k0, k1, k0 + nv], [k1, k1 + nv, k0 + nv]]
        return V, np.array(faces)
    raise ValueError(f"unknown shape {kind!r}")


def build_body(kind: str, dims: Sequence[float], m: float = 1.0, pivot: ArrayLike = (0.0, 0.0, 0.0), g: float = 9.81,
               principal_axes: bool = True, name: str | None = None) -> Body:
    """A homogeneous solid hanging from ``pivot``.

    Parameters
    ----------
    kind : {"elliptic_cylinder", "box", "ellipsoid"}
    dims : 3 floats
        elliptic cylinder: semi-axes a, b and height h; box: side lengths; ellipsoid: semi-axes.  All > 0.
    m : float
        Mass, > 0.
    pivot : 3 floats
        Pivot position relative to the centre of the shape, in the shape's axes (x along a, y along b,
        z along the height); inside, on the surface or outside the body.
    g : float
    principal_axes : bool
        Express the result in principal axes (J = diag(J1, J2, J3), J1 >= J2 >= J3, see
        :meth:`Pendulum.principal`); otherwise in the shape's axes translated to the pivot.

    Returns
    -------
    Body
        Inertia about the pivot by the parallel-axis theorem, ``J = I_c + m (|rho|^2 I - rho rho^T)``.
    """
    return _build(kind, dims, ("dims[0]", "dims[1]", "dims[2]"), m, pivot, g, principal_axes, name)


def _build(kind: str, dims: Any, names: tuple[str, str, str], m: float, pivot: ArrayLike, g: float,
           principal_axes: bool, name: str | None) -> Body:
    """:func:`build_body` with the caller's names for the three dimensions (``lx`` for :func:`box`, ...)."""
    if not isinstance(principal_axes, (bool, np.bool_)):
        raise TypeError(f"principal_axes must be True or False; got {principal_axes!r}")
    if name is not None and not isinstance(name, str):
        raise TypeError(f"name must be a string; got {name!r}")
    if not isinstance(kind, str) or kind not in SHAPES:
        raise InvalidPendulumError(f"unknown shape kind={kind!r}; valid: {', '.join(SHAPES)}")
    if isinstance(dims, (str, bytes)) or not hasattr(dims, "__len__") or len(dims) != 3:
        raise ShapeError(f"dims must be three numbers; got {dims!r}")
    dims = tuple(_parameter(f"{nm}, dimension {i + 1} of {kind}", d) for i, (nm, d) in enumerate(zip(names, dims)))
    m = _parameter("m", m)
    pivot = _vector("pivot", pivot, (3,))
    Ic = _shape_inertia(kind, dims, m)
    rho = 0.0 - pivot  # centre of mass relative to the pivot (0.0 - x avoids -0.0)
    J = Ic + m * (rho @ rho * np.eye(3) - np.outer(rho, rho))
    pend = Pendulum(J, rho, m, g)
    V, faces = _shape_mesh(kind, dims)
    mesh = Mesh(V - pivot, faces)
    if principal_axes:
        pend, Q = pend.principal()
        mesh = mesh.transformed(Q)
    shape = {"kind": kind, "dims": list(dims), "m": m, "pivot": pivot.tolist(), "g": float(g)}
    return Body(pend, mesh, name or kind, "", shape)


def elliptic_cylinder(a: float, b: float, h: float, m: float = 1.0, pivot: ArrayLike = (0.0, 0.0, 0.0),
                      g: float = 9.81, principal_axes: bool = True) -> Body:
    """Solid elliptic cylinder with semi-axes ``a``, ``b`` and height ``h`` (see :func:`build_body`)."""
    return _build("elliptic_cylinder", (a, b, h), ("a", "b", "h"), m, pivot, g, principal_axes, None)


def box(lx: float, ly: float, lz: float, m: float = 1.0, pivot: ArrayLike = (0.0, 0.0, 0.0), g: float = 9.81,
        principal_axes: bool = True) -> Body:
    """Solid box with side lengths ``lx, ly, lz`` (see :func:`build_body`)."""
    return _build("box", (lx, ly, lz), ("lx", "ly", "lz"), m, pivot, g, principal_axes, None)


def ellipsoid(a: float, b: float, c: float, m: float = 1.0, pivot: ArrayLike = (0.0, 0.0, 0.0), g: float = 9.81,
              principal_axes: bool = True) -> Body:
    """Solid ellipsoid with semi-axes ``a, b, c`` (see :func:`build_body`)."""
    return _build("ellipsoid", (a, b, c), ("a", "b", "c"), m, pivot, g, principal_axes, None)


def equivalent_body(pendulum: Pendulum, name: str = "custom J") -> Body:
    """A Body for a pendulum given only by (J, rho, m): the homogeneous ellipsoid with the same inertia about
    the centre of mass, placed at rho (a small sphere if no ellipsoid matches).

    The inertia about the centre of mass is ``J - m (|rho|^2 I - rho rho^T)`` (parallel axes); an ellipsoid with
    principal moments ``I_i`` has semi-axes ``a_i^2 = 5 / (2 m) (I_j + I_k - I_i)``.
    """
    _v.check_pendulum(pendulum)
    if not isinstance(name, str):
        raise TypeError(f"name must be a string; got {name!r}")
    J = np.asarray(pendulum.J, float)
    rho = np.asarray(pendulum.rho, float)
    m = pendulum.m
    Ic = J - m * (rho @ rho * np.eye(3) - np.outer(rho, rho))
    lam, V = np.linalg.eigh(0.5 * (Ic + Ic.T))
    if np.linalg.det(V) < 0:
        V[:, 2] *= -1
    s = lam.sum()
    sq = 2.5 / m * (s / 2.0 - lam)  # a_i^2 = 5/(2m) (I_j + I_k - I_i)
    if np.all(sq > 0) and np.all(lam > 0):
        dims = np.sqrt(sq)
        how = "drawn as the ellipsoid with the same inertia about the centre of mass"
    else:
        dims = np.full(3, max(0.05, 0.3 * np.linalg.norm(rho)))
        how = (f"no homogeneous ellipsoid of mass {m:g} kg at rho has this J (principal moments about the centre of "
               f"mass {', '.join(f'{x:.3g}' for x in lam)} kg m^2): drawn as a small sphere at the centre of mass")
    shape = build_body("ellipsoid", dims, m=m, pivot=(0, 0, 0), g=pendulum.g, principal_axes=False)
    V_mesh = np.asarray(shape.mesh.vertices) @ V.T + rho
    return Body(pendulum, Mesh(V_mesh, shape.mesh.faces), name,
                f"Custom J and rho ({how}).",
                {"kind": "custom_J", **pendulum.to_dict()})
