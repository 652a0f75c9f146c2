"""The typed results of :func:`~pendulum_explorer.equilibria.equilibria`: points, sampled families, the set.

Layer 2 (model/analysis), no computation beyond copying: :class:`EquilibriumPoint` (one equilibrium),
:class:`Family` (one branch of a one-parameter family, sampled), :class:`EquilibriumSet` (everything for one
pendulum) with its :class:`EquilibriumCase` (the structure detected), and the parameterisation a family's
samples were taken in (:class:`GenericCurve`, :class:`CircleCurve`, :class:`FamilySampling`), which the queries
at a given momentum and the refinement of stability changes evaluate again.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Union

import numpy as np
from numpy.typing import NDArray

from .. import _validate as _v
from ..bodies import Pendulum

F64 = NDArray[np.float64]
#: eigenvalue arrays (complex; NaN + 0j when the stability was not computed)
Eigs = NDArray[np.inexact[Any]]


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
        One of :data:`~pendulum_explorer.equilibria.STABILITY_CLASSES`.
    eigenvalues : (4,) complex array
        Of the Lagrange–Routh linearisation at (Gamma_e, 0) and this mu.
    """

    Gamma: F64
    omega: F64
    mu: float
    energy: float
    alpha: float
    family: str
    branch: int
    stability: str
    eigenvalues: Eigs

    def tilted(self, eps: float) -> tuple[F64, F64]:
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
class StaticEnd:
    """An end of a generic family at a static equilibrium: the sample ``(base, x)`` is exactly ``Gamma`` (s = 0)."""

    base: int
    x: float
    Gamma: F64


@dataclass(frozen=True)
class GenericCurve:
    """A generic family (Eqs 39-40) in adapted principal axes, sampled as (base pole, offset) pairs.

    ``j``: the (snapped) principal moments; ``r``: rho in adapted axes; ``phis``: the pole angles
    ``atan(1/J_i)``; ``static``: the samples that are exactly the hanging / inverted point.
    """

    j: F64
    r: F64
    phis: F64
    static: tuple[StaticEnd, ...] = ()


@dataclass(frozen=True)
class CircleCurve:
    """An Eq (41) / case 7 family, ``Gamma = -cos(psi) uhat + sin(psi) free`` (adapted axes) at ``alpha``,
    with ``k^2/(m g) = un / cos(psi)``."""

    uhat: F64
    free: F64
    un: float
    alpha: float


Curve = Union[GenericCurve, CircleCurve]


@dataclass(frozen=True)
class FamilySampling:
    """Where a family's samples sit on its curve: sample ``i`` is ``(base[i], x[i])`` (``base`` = -1 for a
    circle family, whose ``x`` is the angle psi)."""

    curve: Curve
    base: NDArray[np.intp]
    x: F64


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
    static_ends : (bool, bool)
        Whether the first / last sample is the static hanging / inverted point.
    sampling : FamilySampling or None
        The parameterisation of the samples (used to evaluate the family between them).
    """

    label: str
    kind: str
    branch: int
    param: F64
    alpha: F64
    Gamma: F64
    omega: F64
    mu: F64
    energy: F64
    stability: NDArray[np.object_]
    eigenvalues: Eigs
    axis: F64 | None = None
    static_ends: tuple[bool, bool] = (False, False)
    sampling: FamilySampling | None = field(default=None, repr=False, compare=False)

    def __len__(self) -> int:
        return len(self.param)

    @property
    def stable(self) -> NDArray[np.bool_]:
        """Boolean mask of the linearly stable (elliptic–elliptic) samples."""
        return np.asarray(self.stability == "elliptic-elliptic", dtype=np.bool_)

    def point(self, k: int) -> EquilibriumPoint:
        """The ``k``-th sample (clipped to the family) as an :class:`EquilibriumPoint`."""
        k = min(max(int(k), 0), len(self) - 1)
        return self._sample(k)

    def _sample(self, k: int) -> EquilibriumPoint:
        return EquilibriumPoint(self.Gamma[k].copy(), self.omega[k].copy(), float(self.mu[k]), float(self.energy[k]),
                                float(self.alpha[k]), self.label, self.branch, str(self.stability[k]),
                                self.eigenvalues[k].copy())


@dataclass(frozen=True)
class EquilibriumCase:
    """The structure :func:`~pendulum_explorer.equilibria.equilibria` detected (in adapted principal axes).

    Attributes
    ----------
    principal_moments : (3,) array
        J1 >= J2 >= J3, equal moments (within ``rtol_J``) snapped to their mean.
    rho_adapted : (3,) array
        rho in the adapted axes, components within ``rtol_rho`` snapped to 0.
    groups : list of list of int
        Indices of equal moments.
    rho_on_axis, repeated_moments : bool
        rho along a principal axis; two or three equal moments.
    poles : list of float
        The angles ``phi_i = atan(1/J_i)`` of the poles that rho sees, in increasing order.
    rtol_J, rtol_rho : float
        The tolerances used.
    """

    principal_moments: F64
    rho_adapted: F64
    groups: list[list[int]]
    rho_on_axis: bool
    repeated_moments: bool
    poles: list[float]
    rtol_J: float
    rtol_rho: float


@dataclass
class EquilibriumSet:
    """Result of :func:`~pendulum_explorer.equilibria.equilibria`.

    Attributes
    ----------
    pendulum : Pendulum
    isolated : list of EquilibriumPoint
        hanging, inverted and the two (38) points.
    families : list of Family
        Both branches of every family.
    frame : (3, 3) array
        Adapted principal axes (columns, body frame) used internally.
    case : EquilibriumCase
        The structure detected: principal moments (snapped), rho in adapted axes (snapped), flags.
    """

    pendulum: Pendulum
    isolated: list[EquilibriumPoint]
    families: list[Family]
    frame: F64
    case: EquilibriumCase

    def points(self) -> list[EquilibriumPoint]:
        """Every computed point: the isolated equilibria and every sample of every family (both branches),
        except the family end-samples that coincide with the static hanging/inverted points."""
        out = list(self.isolated)
        for f in self.families:
            for i in range(len(f)):
                if (i == 0 and f.static_ends[0]) or (i == len(f) - 1 and f.static_ends[1]):
                    continue
                out.append(f._sample(i))
        return out

    def curves(self, branch: int = +1) -> list[Family]:
        """The families of one branch (Gamma, alpha, mu, energy, stability along each), for plotting."""
        return [f for f in self.families if f.branch == branch]

    def point(self, family: str) -> list[EquilibriumPoint]:
        """The isolated points with the given family label."""
        return [p for p in self.isolated if p.family == family]

    @property
    def hanging(self) -> EquilibriumPoint:
        """The hanging equilibrium ``Gamma = rho/|rho|`` (Prop 9, case 1)."""
        return self.point("hanging")[0]

    @property
    def inverted(self) -> EquilibriumPoint:
        """The inverted equilibrium ``Gamma = -rho/|rho|`` (Prop 9, case 2)."""
        return self.point("inverted")[0]

    @property
    def labels(self) -> list[str]:
        """Family labels (branch +1), in order."""
        return [f.label for f in self.curves(+1)]

    @property
    def alpha_scale(self) -> float:
        """The middle principal moment J2: ``alpha J2 = 1`` at the pole 1/J2 (the scale of the figures' alpha
        colours, :func:`~pendulum_explorer.plotting.colours.alpha_colour_value`)."""
        return float(self.case.principal_moments[1])


__all__ = ["EquilibriumPoint", "Family", "EquilibriumSet", "EquilibriumCase", "FamilySampling", "GenericCurve",
           "CircleCurve", "StaticEnd"]
