"""What a section returns: section states, crossings, accessible regions, chaos maps and periodic orbits."""
from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Union

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .. import _validate as _v
from .chart import chart_from_sphere

#: a chaos-map cell above these values counts as chaotic (mean MEGNO ~2 on regular motion; lambda in 1/s)
CHAOTIC_MEGNO = 4.0
CHAOTIC_LYAPUNOV = 0.1

#: what :meth:`PoincareSection.crossings` accepts as a seed: a section Gamma (3,), an LP state (Gamma, omega)
#: as a pair, (6,) or (2, 3), or a :class:`SectionState`
Seed = Union["SectionState", ArrayLike, tuple[ArrayLike, ArrayLike]]


@dataclass(frozen=True)
class SectionState:
    """One point of the section: ``Gamma``, ``Gammadot`` (LR state) and the LP angular velocity ``omega``
    (Eq 69, so ``omega^T J Gamma = mu`` and ``Gamma x omega = Gammadot``)."""

    Gamma: NDArray[np.float64]
    Gammadot: NDArray[np.float64]
    omega: NDArray[np.float64]

    @property
    def lp_state(self) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """``(Gamma, omega)``."""
        return self.Gamma, self.omega

    @property
    def lr_state(self) -> NDArray[np.float64]:
        """``[Gamma, Gammadot]`` (6,)."""
        return np.concatenate([self.Gamma, self.Gammadot])


@dataclass
class Crossings:
    """The crossings of one trajectory with the section.

    Attributes
    ----------
    Gamma, omega, Gammadot : (k, 3) arrays, k = ``n_found`` <= ``n_requested``
    t : (k,) crossing times (the seed is at t = 0 and is not included)
    status : str
        ``"ok"`` (all requested crossings found) or why the trajectory stopped: ``"no_crossing"`` (no crossing
        within ``max_gap``: e.g. at rest, on a relative equilibrium, trapped near a pole), ``"max_time"``,
        ``"max_steps"``, ``"step_too_small"``, ``"non_finite"``.
    stats : dict
        ``n_accepted``, ``n_rejected``, ``n_rhs`` (the kernel's counters) and the drift of the integration before
        the crossings' Gamma were normalised: ``gamma_drift`` (max | |Gamma| - 1 |) and ``level_drift`` (largest
        relative distance from the level's E and mu; beyond 1e-8 an InvariantDriftWarning is raised).
    """

    Gamma: NDArray[np.float64]
    omega: NDArray[np.float64]
    Gammadot: NDArray[np.float64]
    t: NDArray[np.float64]
    status: str
    n_requested: int
    stats: dict[str, int] = field(default_factory=dict)

    @property
    def n_found(self) -> int:
        return int(self.t.shape[0])

    @property
    def complete(self) -> bool:
        return self.status == "ok"

    @property
    def chart(self) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """``(phi, z)`` of every crossing."""
        return chart_from_sphere(self.Gamma)

    def __len__(self) -> int:
        return self.n_found

    def __repr__(self) -> str:
        return f"Crossings(n_found={self.n_found}/{self.n_requested}, status={self.status!r})"


@dataclass
class BatchCrossings:
    """Crossings of many trajectories.  Arrays have a leading seed axis and are NaN beyond ``n_found[k]``."""

    Gamma: NDArray[np.float64]  # (m, n, 3)
    omega: NDArray[np.float64]
    Gammadot: NDArray[np.float64]
    t: NDArray[np.float64]  # (m, n)
    n_found: NDArray[np.int64]  # (m,)
    status: list[str]
    n_requested: int
    stats: NDArray[np.int64]  # (m, 3) accepted, rejected, rhs

    def __len__(self) -> int:
        return int(self.t.shape[0])

    def trajectory(self, k: int) -> Crossings:
        """The :class:`Crossings` of seed ``k``."""
        c = int(self.n_found[k])
        st = {"n_accepted": int(self.stats[k, 0]), "n_rejected": int(self.stats[k, 1]), "n_rhs": int(self.stats[k, 2])}
        return Crossings(self.Gamma[k, :c].copy(), self.omega[k, :c].copy(), self.Gammadot[k, :c].copy(),
                         self.t[k, :c].copy(), self.status[k], self.n_requested, st)

    def __iter__(self) -> Iterator[Crossings]:
        return (self.trajectory(k) for k in range(len(self)))


@dataclass
class AccessibleRegion:
    """``{Gamma : V_mu(Gamma) <= E}`` on the equal-area chart.

    Attributes
    ----------
    phi : (nphi,) grid in [-pi, pi];  z : (nz,) grid in [-1, 1]
    V : (nz, nphi) amended potential at ``sphere_from_chart(phi, z)``
    accessible : (nz, nphi) bool, ``V <= E``
    boundary_phi, boundary_z : the curve V_mu = E as line segments separated by NaN (chart coordinates)
    boundary_Gamma : (k, 3) the same curve on the sphere (NaN rows separate segments)
    energy_min : min of V_mu over S^2; the section is non-empty iff E > energy_min
    energy_all : max of V_mu over S^2; for E > energy_all the whole sphere (minus the poles) is on the section
    Gamma_min : where V_mu attains energy_min
    energy_range : (energy_min, inf), the energies with a non-empty section at this mu
    area_fraction : fraction of the sphere's area that is accessible (equal-area grid estimate)
    """

    phi: NDArray[np.float64]
    z: NDArray[np.float64]
    V: NDArray[np.float64]
    accessible: NDArray[np.bool_]
    boundary_phi: NDArray[np.float64]
    boundary_z: NDArray[np.float64]
    boundary_Gamma: NDArray[np.float64]
    energy: float
    energy_min: float
    energy_all: float
    Gamma_min: NDArray[np.float64]
    area_fraction: float

    @property
    def energy_range(self) -> tuple[float, float]:
        return (self.energy_min, math.inf)

    @property
    def empty(self) -> bool:
        return not (self.energy > self.energy_min)


@dataclass(frozen=True)
class ChaosMap:
    """A chaos indicator on a grid of the section chart (:meth:`PoincareSection.chaos_map`).

    Attributes
    ----------
    phi : (n_phi,) cell centres in (-pi, pi);  z : (n_z,) cell centres in (-1, 1)
    values : (n_z, n_phi) the indicator at the section state over each cell centre; NaN exactly where that
        point is not on the section (inaccessible, V_mu >= E).
    indicator : "megno" (mean MEGNO Ybar: ~2 regular, >> 2 chaotic) or "lyapunov" (log |delta(T)| / T [1/s])
    t_total : integration time per cell [s]
    megno, lyapunov : (n_z, n_phi) both indicators (one tangent integration gives both)
    """

    phi: NDArray[np.float64]
    z: NDArray[np.float64]
    values: NDArray[np.float64]
    indicator: str
    t_total: float
    megno: NDArray[np.float64]
    lyapunov: NDArray[np.float64]

    @property
    def accessible(self) -> NDArray[np.bool_]:
        """(n_z, n_phi) cells whose centre is on the section."""
        return np.isfinite(self.values)

    @property
    def threshold(self) -> float:
        """The value above which a cell counts as chaotic: Ybar > 4 (MEGNO), lambda > 0.1 1/s (Lyapunov)."""
        return CHAOTIC_MEGNO if self.indicator == "megno" else CHAOTIC_LYAPUNOV

    def chaotic_fraction(self, threshold: float | None = None) -> float:
        """Fraction of the accessible cells whose value exceeds ``threshold`` (default :attr:`threshold`).  The
        cells have equal areas on the sphere (equal-area chart)."""
        threshold = self.threshold if threshold is None else _v.real("threshold", threshold)
        acc = self.accessible
        n = int(acc.sum())
        return float((self.values[acc] > threshold).sum() / n) if n else 0.0

    def cells(self, phi: ArrayLike, z: ArrayLike) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
        """Indices ``(j, i)`` (row z, column phi) of the cells containing the chart points (phi, z) (arrays of
        one shape, finite; phi taken modulo 2 pi, z clipped to the grid)."""
        n_z, n_phi = self.values.shape
        ph = np.remainder(_v.real_array("phi", phi) + math.pi, 2 * math.pi)
        zz = _v.real_array("z", z)
        i = np.floor(ph / (2 * math.pi) * n_phi).astype(np.int64) % n_phi
        j = np.clip(np.floor((zz + 1.0) / 2.0 * n_z), 0, n_z - 1).astype(np.int64)
        return j, i

    def cell(self, phi: float, z: float) -> tuple[int, int]:
        """Indices ``(j, i)`` (row z, column phi) of the cell containing the chart point (phi, z)."""
        j, i = self.cells(float(phi), float(z))
        return int(j), int(i)

    def value_at(self, phi: float, z: float) -> float:
        """The value of the cell containing the chart point (phi, z) (NaN if inaccessible)."""
        j, i = self.cell(phi, z)
        return float(self.values[j, i])

    def values_at(self, phi: ArrayLike, z: ArrayLike) -> NDArray[np.float64]:
        """:meth:`value_at` for arrays of chart points (phi, z) of one shape."""
        j, i = self.cells(phi, z)
        return self.values[j, i]


@dataclass(frozen=True)
class PeriodicOrbit:
    """A fixed point of the k-th return map of the section (:meth:`PoincareSection.periodic_orbit`).

    Attributes
    ----------
    Gamma, omega : (3,) the LP state of the fixed point, on the section and the level
    phi, z : its chart coordinates
    k : the return-map power;  period : time of the k-th return [s]
    jacobian : (2, 2) the linearised k-th return map in chart coordinates (phi, z), from the variational
        equations; its determinant is 1 (the reduced map preserves an area form)
    multipliers : (2,) complex, its eigenvalues
    kind : "elliptic" (|tr| < 2: complex unit multipliers, stable), "hyperbolic" (|tr| > 2: real multipliers
        lambda, 1/lambda, unstable) or "parabolic" (|tr| = 2 within 1e-6)
    residual : chart distance between the point and its k-th return
    iterations : Newton iterations used
    """

    Gamma: NDArray[np.float64]
    omega: NDArray[np.float64]
    phi: float
    z: float
    k: int
    period: float
    jacobian: NDArray[np.float64]
    multipliers: NDArray[np.complex128]
    kind: str
    residual: float
    iterations: int


def orbit_kind(jacobian: ArrayLike) -> tuple[NDArray[np.complex128], str]:
    """The multipliers (eigenvalues) of a linearised return map (2, 2) and the fixed point's kind: "elliptic"
    (|trace| < 2), "hyperbolic" (|trace| > 2) or "parabolic" (|trace| = 2 within 1e-6)."""
    M = np.asarray(jacobian, dtype=np.float64)
    tr = float(np.trace(M))
    kind = "elliptic" if abs(tr) < 2.0 - 1e-6 else ("hyperbolic" if abs(tr) > 2.0 + 1e-6 else "parabolic")
    return np.linalg.eigvals(M).astype(complex), kind
