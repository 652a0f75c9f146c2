"""Poincaré sections of the 3D pendulum on an (E, mu) level (paper Sec. 5.6, Fig. 2).

The section (Gamma and e3 in the body frame, e3 pointing down)::

    P = {(Gamma, Gammadot) in TS^2 : e3^T Gammadot = 0,  e3^T (Gamma x Gammadot) > 0,  E(Gamma, Gammadot) = E}

at momentum mu.  Each Gamma in S^2 \\ {+-e3} carries at most one section state: Gammadot is along
``d = e3 x Gamma / |e3 x Gamma|`` with the positive sign, and its length is fixed by the energy,
``E = V_mu(Gamma) + s^2 k(Gamma) / 2``, where ``V_mu(Gamma) = mu^2 / (2 Gamma^T J Gamma) - m g rho^T Gamma`` is the
amended potential.  The section is therefore the region ``{V_mu < E}`` of the sphere minus the poles.

Entry point: :class:`PoincareSection`::

    sec, seed = PoincareSection.from_paper_ic(paper_fig2().pendulum, energy=0.0)   # R0 = I, omega0 = c[1,1,1]
    res = sec.crossings(seed, 2000)            # res.Gamma (n x 3), res.omega, res.t, res.status
    res2 = sec.crossings([0.3, 0.1, 0.95], 500) # seeded at a Gamma on the section
    b = sec.batch(seeds, 500)                   # parallel (threads), or executor=client.get_executor()

Integration: DOP853 on the Lagrange-Poincaré model (Gamma, omega) with event location on
``g = e3^T (Gamma x omega)``; see :mod:`pendulum_explorer._core.section` for the algorithm and the reason
for choosing LP over LR.  Every returned crossing has ``|e3^T Gammadot| <= 1e-12`` (typically 1e-16).

Chart: the Lambert cylindrical equal-area map ``(phi, z) = (atan2(Gamma_2, Gamma_1), Gamma_3)``
(:func:`chart_from_sphere`, :func:`sphere_from_chart`).
"""
from __future__ import annotations

import math
import os
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, CancelledError, Executor, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from typing import Any, Union

import numpy as np
from numpy.typing import ArrayLike, NDArray

from . import _validate as _v
from ._core import chaos as _kchaos
from ._core import section as _sec
from ._core import taylor as _taylor
from ._core.fields import LP, energy_lp, lp_field, lr_omega, mu_lp
from ._numerics import minimize_compass
from .amended import amended_potential
from .bodies import Pendulum
from .equilibria import equilibria_at_mu
from .errors import (InaccessibleError, IntegrationFailedError, InvalidIntegrationError, InvalidStateError,
                     PendulumError, PeriodicOrbitNotFoundError, ShapeError)
from . import trajectory as _traj
from .trajectory import TAYLOR_TOL, taylor_frame

DEFAULT_RTOL = 1e-11
DEFAULT_ATOL = 1e-11
POLE_TOL = 1e-9
UNIT_TOL = _v.UNIT_TOL  # seeds and section points are normalised after this check (integrated Gammas drift ~1e-9)
LEVEL_RTOL = 1e-8
MAX_GAP_SCALES = 2000.0
SECTION_METHODS = ("dop853", "taylor")
_MODEL = LP
#: crossings per trajectory accepted in one request, and the magnitude bound of E and mu
MAX_CROSSINGS = 1_000_000
MAX_LEVEL = 1e100
#: points per side of the accessible-region grid
MAX_GRID = 20_000
#: the chart grid (n_phi, n_z) of the accessible region that the dashboard draws and :meth:`fill_seeds` reads
REGION_GRID = (121, 81)
MAX_MAP_TIME = 1e5  # s, per chaos-map cell
#: a chaos-map cell above these values counts as chaotic (mean MEGNO ~2 on regular motion; lambda in 1/s)
CHAOTIC_MEGNO = 4.0
CHAOTIC_LYAPUNOV = 0.1
MAX_RETURN_POWER = 64  # k of the k-th return map
#: the chart resolutions (n_phi, n_z) of :meth:`PoincareSection.chaos_maps`: a coarse map first, then refined
MAP_LEVELS = ((16, 12), (40, 28), (80, 56))

#: what :meth:`PoincareSection.crossings` accepts as a seed: a section Gamma (3,), an LP state (Gamma, omega)
#: as a pair, (6,) or (2, 3), or a :class:`SectionState`
Seed = Union["SectionState", ArrayLike, tuple[ArrayLike, ArrayLike]]


# ------------------------------------------------------------------------------------------------
# chart <-> sphere
# ------------------------------------------------------------------------------------------------
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


# ------------------------------------------------------------------------------------------------
# amended potential and the paper's initial conditions
# ------------------------------------------------------------------------------------------------
def paper_initial_state(pendulum: Pendulum, energy: float,
                        sign: int = 1) -> tuple[NDArray[np.float64], NDArray[np.float64], float]:
    """The paper's Fig. 2 initial condition R0 = I, omega0 = c [1, 1, 1] at total energy ``energy``.

    With R0 = I, Gamma0 = e3 and ``E = c^2 (1^T J 1) / 2 - m g rho_3``, so
    ``c = sign * sqrt(2 (E + m g rho_3) / (1^T J 1))``.  Returns ``(Gamma0, omega0, c)``.

    Raises :class:`InaccessibleError` if ``E < -m g rho_3`` (no real c).
    """
    _v.check_pendulum(pendulum)
    E = _v.real("energy", energy, low=-MAX_LEVEL, high=MAX_LEVEL)
    sign = _v.integer("sign", sign, low=-1, high=1, exc=InvalidStateError)
    if sign == 0:
        raise InvalidStateError("sign must be +1 or -1; got 0")
    one = np.ones(3)
    q = float(one @ pendulum.J @ one)  # > 0 (J positive definite)
    e_min = -float(pendulum.mgrho[2])
    c2 = 2.0 * (E - e_min) / q
    if c2 < 0.0:
        raise InaccessibleError(
            f"E = {E!r} cannot be reached from R0 = I, omega0 = c[1,1,1]: the energy there is "
            f"c^2 (1^T J 1)/2 - m g rho_3 >= -m g rho_3 = {e_min:.12g}; E falls short by {e_min - E:.6g}")
    c = sign * math.sqrt(c2)
    return np.array([0.0, 0.0, 1.0]), c * one, c


def mu_bound(pendulum: Pendulum, energy: float) -> float:
    """A bound on |mu| necessary for motion at energy ``energy``: ``sqrt(2 J1 (E + m g |rho|))``.

    Since ``Gamma^T J Gamma <= J1`` (the largest principal moment) and ``rho^T Gamma <= |rho|``, the amended
    potential satisfies ``V_mu(Gamma) >= mu^2 / (2 J1) - m g |rho|``; the section at (E, mu) is empty when
    ``|mu|`` reaches this bound (0 when ``E <= -m g |rho|``, the hanging energy).
    """
    _v.check_pendulum(pendulum)
    E = _v.real("energy", energy, high=MAX_LEVEL)
    mgr = pendulum.mgrho_norm
    return float(math.sqrt(2.0 * float(pendulum.principal_moments[0]) * max(E + mgr, 0.0)))


def default_level(pendulum: Pendulum, energy: float = 0.0) -> tuple[float, float]:
    """The level ``(E, mu)`` a new body's section opens at (or, given ``energy``, the start mu at that energy).

    ``E = 0`` by default: midway between the energy of the hanging equilibrium (``-m g |rho|``) and of the
    inverted one (``+m g |rho|``).  ``mu`` is the momentum of the paper's initial condition
    ``R0 = I, omega0 = c[1,1,1]`` at that energy (:func:`paper_initial_state`), so the Fig. 2 body opens at the
    paper's Fig. 2(b); ``mu = 0`` when that initial condition cannot reach E (``E < -m g rho_3``).
    """
    _v.check_pendulum(pendulum)
    E = _v.real("energy", energy, high=MAX_LEVEL)
    try:
        G0, w0, _c = paper_initial_state(pendulum, E)
    except InaccessibleError:
        return E, 0.0
    return E, float(mu_lp(G0, w0, pendulum.params()))


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


# ------------------------------------------------------------------------------------------------
# results
# ------------------------------------------------------------------------------------------------
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
    stats : dict (n_accepted, n_rejected, n_rhs)
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
        return self.t.shape[0]

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
        if threshold is None:
            threshold = self.threshold
        acc = self.accessible
        n = int(acc.sum())
        return float((self.values[acc] > threshold).sum() / n) if n else 0.0

    def cells(self, phi: ArrayLike, z: ArrayLike) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
        """Indices ``(j, i)`` (row z, column phi) of the cells containing the chart points (phi, z) (arrays of
        one shape; phi taken modulo 2 pi, z clipped to the grid)."""
        n_z, n_phi = self.values.shape
        ph = np.remainder(np.asarray(phi, dtype=np.float64) + math.pi, 2 * math.pi)
        i = np.floor(ph / (2 * math.pi) * n_phi).astype(np.int64) % n_phi
        j = np.clip(np.floor((np.asarray(z, dtype=np.float64) + 1.0) / 2.0 * n_z), 0, n_z - 1).astype(np.int64)
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


def chaos_grid(n_phi: int, n_z: int) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """The cell centres ``(phi, z)`` of an ``n_phi`` x ``n_z`` chaos map: equal cells over phi in (-pi, pi) and
    z = Gamma_3 in (-1, 1) (the grid :meth:`ChaosMap.cells` assumes)."""
    phi = -math.pi + (np.arange(n_phi, dtype=np.float64) + 0.5) * (2 * math.pi / n_phi)
    z = -1.0 + (np.arange(n_z, dtype=np.float64) + 0.5) * (2.0 / n_z)
    return phi, z


def orbit_kind(jacobian: ArrayLike) -> tuple[NDArray[np.complex128], str]:
    """The multipliers (eigenvalues) of a linearised return map (2, 2) and the fixed point's kind: "elliptic"
    (|trace| < 2), "hyperbolic" (|trace| > 2) or "parabolic" (|trace| = 2 within 1e-6)."""
    M = np.asarray(jacobian, dtype=np.float64)
    tr = float(np.trace(M))
    kind = "elliptic" if abs(tr) < 2.0 - 1e-6 else ("hyperbolic" if abs(tr) > 2.0 + 1e-6 else "parabolic")
    return np.linalg.eigvals(M).astype(complex), kind


# ------------------------------------------------------------------------------------------------
# the section
# ------------------------------------------------------------------------------------------------
class PoincareSection:
    """The Poincaré section of Sec. 5.6 for ``pendulum`` on the level ``(energy, mu)``.

    Parameters
    ----------
    pendulum : Pendulum
    energy : float
        Total energy E (Eq 34), finite.
    mu : float
        Vertical angular momentum ``mu = omega^T J Gamma``, finite.
    rtol, atol : float
        DOP853 tolerances (defaults 1e-11: E and mu stay on the level to ~1e-9 relative over 1000 crossings).
    method : {"dop853", "taylor"}
        ``"dop853"``: DOP853 with dense-output event location and polishing (:mod:`._core.section`).
        ``"taylor"``: the Taylor method at machine precision (:mod:`._core.taylor`, ``rtol``/``atol`` unused);
        each crossing is the root of the Taylor polynomial of ``e3^T Gammadot`` on its step (bracketed Newton).
    """

    def __init__(self, pendulum: Pendulum, energy: float, mu: float, *, rtol: float = DEFAULT_RTOL,
                 atol: float = DEFAULT_ATOL, method: str = "dop853") -> None:
        self.pendulum = _v.check_pendulum(pendulum)
        self.method = _v.choice("method", method, SECTION_METHODS)
        self.energy = _v.real("energy", energy, low=-MAX_LEVEL, high=MAX_LEVEL)
        self.mu = _v.real("mu", mu, low=-MAX_LEVEL, high=MAX_LEVEL)
        self.rtol, self.atol = _v.tolerances(rtol, atol)
        self._p = pendulum.params(self.mu)  # read-only, like every p: one compiled signature per kernel
        if self.method == "taylor":
            q, Q = taylor_frame(pendulum)
            self._taylor = (q, Q, np.ascontiguousarray(Q.T @ np.array([0.0, 0.0, 1.0])),
                            _taylor.order_for(TAYLOR_TOL))
        Jev = pendulum.principal_moments
        mgr = pendulum.mgrho_norm
        #: scale used for "relative" energy errors (E may be 0)
        self.energy_scale = max(abs(self.energy), mgr, self.mu * (self.mu / (2.0 * Jev[-1])), 1e-300)
        if not math.isfinite(self.energy_scale * Jev[0]):
            raise InvalidStateError(
                f"the level E = {self.energy:g}, mu = {self.mu:g} is out of the representable range for this "
                f"pendulum (mu^2 / (2 J3) = {self.mu * (self.mu / (2.0 * Jev[-1])):.3g}); use smaller |E|, |mu|")
        #: scale used for relative mu errors
        self.mu_scale = max(abs(self.mu), math.sqrt(2.0 * Jev[0] * self.energy_scale))
        # a characteristic time: one radian at the speed of kinetic energy ~ energy_scale, times 2 pi
        self.time_scale = 2.0 * math.pi * math.sqrt(Jev[0] / (max(abs(self.energy - self._vmin_rough()), 0.0)
                                                              + mgr + 1e-300))
        #: how long a trajectory may go without a crossing before it stops, status "no_crossing" [s]
        self.max_gap = MAX_GAP_SCALES * self.time_scale
        self._chart_cache: dict[tuple[int, int], AccessibleRegion] = {}
        self._region_cache: dict[tuple[int, int], AccessibleRegion] = {}
        self._releq: list[NDArray[np.float64]] | None = None

    # --- constructors ---------------------------------------------------------------------------
    @classmethod
    def from_state(cls, pendulum: Pendulum, Gamma: ArrayLike, omega: ArrayLike, **kw: Any) -> PoincareSection:
        """The section through the LP state (Gamma, omega): E and mu computed from the state."""
        _v.check_pendulum(pendulum)
        G = _v.unit_vector("Gamma", Gamma)
        w = _v.array("omega", omega, (3,), max_abs=MAX_LEVEL)
        p = pendulum.params(0.0)
        return cls(pendulum, energy_lp(G, w, p), mu_lp(G, w, p), **kw)

    @classmethod
    def from_paper_ic(cls, pendulum: Pendulum, energy: float, sign: int = 1,
                      **kw: Any) -> tuple[PoincareSection, tuple[NDArray[np.float64], NDArray[np.float64]]]:
        """The paper's family R0 = I, omega0 = c[1,1,1] at total energy ``energy`` (Fig. 2).

        Returns ``(section, (Gamma0, omega0))``; the section's mu = c e3^T J [1,1,1] depends on E.
        """
        G0, w0, _c = paper_initial_state(pendulum, energy, sign)
        # the level is (target E, mu of the state); E of the state equals the target up to rounding
        return cls(pendulum, energy, mu_lp(G0, w0, pendulum.params()), **kw), (G0, w0)

    @classmethod
    def with_motion(cls, pendulum: Pendulum, energy: float, mu: float, *, varied: str = "energy",
                    **kw: Any) -> "PoincareSection":
        """The section at (energy, mu) if it is non-empty (its accessible region on :data:`REGION_GRID` is
        then cached); otherwise :class:`InaccessibleError` naming the admissible range of the quantity
        ``varied`` (``"energy"``: E > min V_mu at this mu; ``"mu"``: |mu| below :func:`mu_bound` at this E)."""
        varied = _v.choice("varied", varied, ("energy", "mu"), exc=InvalidStateError)
        sec = cls(pendulum, energy, mu, **kw)
        region = sec.accessible_region(*REGION_GRID)
        if region.empty:
            E, m, lo = sec.energy, sec.mu, region.energy_min
            if varied == "mu":
                raise InaccessibleError(
                    f"μ = {m:.4g} kg m²/s gives no motion at E = {E:.5g} J (there min V_μ = {lo:.5g} J ≥ E): "
                    f"at this E a section needs |μ| < {sec.mu_bound():.4g} kg m²/s at most.")
            raise InaccessibleError(f"energy E = {E:.5g} J gives no motion at μ = {m:.4g} kg m²/s: E must be above "
                                    f"min V_μ = {lo:.5g} J.")
        return sec

    def mu_bound(self, energy: float | None = None) -> float:
        """:func:`mu_bound` of this pendulum at ``energy`` (default: this section's energy)."""
        return mu_bound(self.pendulum, self.energy if energy is None else energy)

    # --- the potential and section states -------------------------------------------------------
    def _vmin_rough(self):
        G = sphere_from_chart(*np.meshgrid(np.linspace(-np.pi, np.pi, 25), np.linspace(-1, 1, 17)))
        V = np.empty(G.shape[0] * G.shape[1])
        _sec.amended_potential_many(np.ascontiguousarray(G.reshape(-1, 3)), self._p, V)
        return float(V.min())

    def amended_potential(self, Gamma: ArrayLike) -> float | NDArray[np.float64]:
        """V_mu at ``Gamma`` (..., 3)."""
        return amended_potential(self.pendulum, self.mu, Gamma)

    def slack(self, Gamma: ArrayLike) -> float | NDArray[np.float64]:
        """``E - V_mu(Gamma)``: positive where Gamma is on the section."""
        return self.energy - self.amended_potential(Gamma)

    def state_at(self, Gamma: ArrayLike) -> SectionState:
        """The unique section state over the unit vector ``Gamma``.

        Raises
        ------
        InvalidStateError
            Gamma is not a finite unit vector (to 1e-6; it is normalised) or lies within 1e-9 of +-e3 (the poles, where
            e3^T Gammadot = 0 for every Gammadot and the section is undefined).
        InaccessibleError
            ``E <= V_mu(Gamma)``; the message gives the shortfall ``V_mu(Gamma) - E``.
        """
        G = _v.unit_vector("Gamma", Gamma)
        rxy = math.hypot(G[0], G[1])
        if rxy <= POLE_TOL:
            pole = "+e3 (hanging, Gamma_3 = +1)" if G[2] > 0 else "-e3 (inverted, Gamma_3 = -1)"
            raise InvalidStateError(
                f"Gamma = {G.tolist()} is within {POLE_TOL:g} of the pole {pole}: the section condition "
                f"e3^T Gammadot = 0 holds for every Gammadot there, so the section excludes +-e3 "
                f"(distance from the pole axis {rxy:.3g})")
        Y = np.empty((1, 6))
        sl = np.empty(1)
        _sec.section_states(G[None, :], self.energy, self._p, self.pendulum.params(0.0), Y, sl)
        if not (sl[0] > 0.0):
            V = self.energy - sl[0]
            raise InaccessibleError(
                f"Gamma = {np.round(G, 12).tolist()} is not on the section at E = {self.energy!r}, mu = {self.mu!r}: "
                f"E falls short of the amended potential V_mu(Gamma) = {V:.12g} by {V - self.energy:.6g} "
                f"(the section needs E > V_mu(Gamma))")
        Gd = Y[0, 3:6].copy()
        w = np.empty(3)
        lr_omega(Y[0, 0:3], Gd, self._p, w)
        return SectionState(Y[0, 0:3].copy(), Gd, w)

    def states_at(self, Gammas: ArrayLike) -> tuple[NDArray[np.float64], NDArray[np.bool_]]:
        """Vectorised :meth:`state_at` without exceptions: returns ``(Y, ok)`` with ``Y`` (k, 6) LP states
        ``[Gamma, omega]`` (NaN where ``ok`` is False: inaccessible, at a pole, or not a unit vector)."""
        G = _v.real_array("Gammas", Gammas, trailing=(3,), max_size=3 * MAX_CROSSINGS).reshape(-1, 3)
        nrm = np.linalg.norm(G, axis=1)
        good = np.isfinite(nrm) & (np.abs(nrm - 1.0) <= UNIT_TOL)
        G = np.where(good[:, None], G / np.where(good, nrm, 1.0)[:, None], 0.0)
        good &= np.hypot(G[:, 0], G[:, 1]) > POLE_TOL
        Yl = np.empty((G.shape[0], 6))
        sl = np.empty(G.shape[0])
        _sec.section_states(np.ascontiguousarray(G), self.energy, self._p, self.pendulum.params(0.0), Yl, sl)
        ok = good & (sl > 0.0)
        Y = np.full((G.shape[0], 6), np.nan)
        w = np.empty(3)
        for k in np.nonzero(ok)[0]:
            lr_omega(Yl[k, 0:3], Yl[k, 3:6], self._p, w)
            Y[k, 0:3] = Yl[k, 0:3]
            Y[k, 3:6] = w
        return Y, ok

    # --- accessible region ----------------------------------------------------------------------
    def accessible_region(self, n_phi: int = 181, n_z: int = 121) -> AccessibleRegion:
        """The accessible set ``{V_mu <= E}`` on an (n_z x n_phi) equal-area chart grid, its boundary curve
        V_mu = E and the energy range with a non-empty section at this mu (see :class:`AccessibleRegion`)."""
        n_phi = _v.integer("n_phi", n_phi, low=3, high=MAX_GRID)
        n_z = _v.integer("n_z", n_z, low=3, high=MAX_GRID)
        _v.result_memory(12.0 * n_phi * n_z, f"an accessible region of {n_phi} x {n_z} points", "reduce n_phi, n_z")
        key = (n_phi, n_z)
        if key in self._region_cache:
            return self._region_cache[key]
        phi = np.linspace(-np.pi, np.pi, n_phi)
        z = np.linspace(-1.0, 1.0, n_z)
        PH, Z = np.meshgrid(phi, z)
        G = sphere_from_chart(PH, Z)
        V = np.empty(PH.size)
        _sec.amended_potential_many(np.ascontiguousarray(G.reshape(-1, 3)), self._p, V)
        V = V.reshape(PH.shape)
        vmin, gmin = self._extremum(V, G, +1)
        vmax, _ = self._extremum(V, G, -1)
        bphi, bz = _contour(phi, z, V - self.energy)
        bG = np.full((bphi.size, 3), np.nan)
        fin = np.isfinite(bphi)
        if fin.any():
            bG[fin] = sphere_from_chart(bphi[fin], bz[fin])
        acc = V <= self.energy
        # equal-area: the cell weights are uniform in (phi, z) (trapezoid weights at the edges)
        wz = np.full(n_z, 1.0)
        wz[[0, -1]] = 0.5
        wp = np.full(n_phi, 1.0)
        wp[[0, -1]] = 0.5
        W = wz[:, None] * wp[None, :]
        frac = float((W * acc).sum() / W.sum())
        reg = AccessibleRegion(phi, z, V, acc, bphi, bz, bG, self.energy, vmin, vmax, gmin, frac)
        self._region_cache[key] = reg
        return reg

    def chart_window(self) -> tuple[float, float]:
        """The range of Gamma_3 a click-to-launch chart shows: ``(-1, 1)``, or, when the accessible set spans less
        than 40 % of it (low energies: a thin band along the hanging or inverted edge), that band padded by a
        quarter of its width on each side (at least 0.005), so that it gets the chart's pixels."""
        reg = self.accessible_region(*REGION_GRID)
        dz = reg.z[1] - reg.z[0]
        rows = np.nonzero(reg.accessible.any(axis=1))[0]
        zs = [float(reg.Gamma_min[2])] + ([float(reg.z[rows[0]]), float(reg.z[rows[-1]])] if rows.size else [])
        lo, hi = max(-1.0, min(zs) - dz), min(1.0, max(zs) + dz)  # the band lies within a grid step of its rows
        if hi - lo >= 0.8:
            return -1.0, 1.0
        pad = max(0.25 * (hi - lo), 0.005)
        return max(-1.0, lo - pad), min(1.0, hi + pad)

    def chart_region(self, n_phi: int = REGION_GRID[0], n_z: int = REGION_GRID[1]) -> AccessibleRegion:
        """The accessible region as a click-to-launch chart draws it: ``n_z`` rows whose centres tile
        :meth:`chart_window` (never a pole: a click on a cell lands half a cell inside), ``n_phi`` columns.

        Its ``V``, ``accessible`` and boundary are on this grid; ``energy_min``, ``energy_all``, ``Gamma_min`` and
        ``area_fraction`` are those of the whole sphere (:meth:`accessible_region` on :data:`REGION_GRID`).
        """
        n_phi = _v.integer("n_phi", n_phi, low=3, high=MAX_GRID)
        n_z = _v.integer("n_z", n_z, low=3, high=MAX_GRID)
        if (n_phi, n_z) in self._chart_cache:
            return self._chart_cache[(n_phi, n_z)]
        full = self.accessible_region(*REGION_GRID)
        lo, hi = self.chart_window()
        phi = np.linspace(-np.pi, np.pi, n_phi)
        z = lo + (np.arange(n_z, dtype=np.float64) + 0.5) * ((hi - lo) / n_z)
        V = np.asarray(self.amended_potential(sphere_from_chart(*np.meshgrid(phi, z))), dtype=np.float64)
        bphi, bz = _contour(phi, z, V - self.energy)
        bG = np.full((bphi.size, 3), np.nan)
        fin = np.isfinite(bphi)
        if fin.any():
            bG[fin] = sphere_from_chart(bphi[fin], bz[fin])
        reg = AccessibleRegion(phi, z, V, V <= self.energy, bphi, bz, bG, self.energy, full.energy_min,
                               full.energy_all, full.Gamma_min, full.area_fraction)
        self._chart_cache[(n_phi, n_z)] = reg
        return reg

    def nearest_admissible(self, phi: float, z: float, *, pole_margin: float = 1e-4) -> tuple[float, float]:
        """The chart point nearest to ``(phi, z)`` (on the sphere) where a trajectory can be launched: accessible
        (``E - V_mu > 1e-9 energy_scale``) and with ``|Gamma_3| <= 1 - pole_margin`` (the poles are not on the
        section).  ``(phi, z)`` itself when it qualifies.

        Raises
        ------
        InaccessibleError
            No such point (the section is empty, or all of it lies within ``pole_margin`` of a pole).
        """
        phi = _v.real("phi", phi)
        z = _v.real("z", z, low=-1.0, high=1.0)
        pole_margin = _v.positive("pole_margin", pole_margin, high=0.5)
        zc = min(1.0 - pole_margin, max(-1.0 + pole_margin, z))
        tol = 1e-9 * self.energy_scale
        if self.slack(sphere_from_chart(phi, zc)) > tol:
            return phi, zc
        lo, hi = self.chart_window()
        zz = np.linspace(max(lo, -1.0 + pole_margin), min(hi, 1.0 - pole_margin), 401)
        pp = np.linspace(-np.pi, np.pi, 721)
        PH, Z = np.meshgrid(pp, zz)
        G = sphere_from_chart(PH, Z)
        ok = self.slack(G) > tol
        if not ok.any():
            raise InaccessibleError(f"no point of the section at E = {self.energy:.6g}, mu = {self.mu:.6g} is "
                                    f"farther than {pole_margin:g} from the poles")
        d = np.linalg.norm(G - sphere_from_chart(phi, z), axis=-1)
        k = np.argmin(np.where(ok, d, np.inf))
        return float(PH.flat[k]), float(Z.flat[k])

    def seed_at(self, phi: float, z: float) -> tuple[SectionState, tuple[float, float] | None]:
        """The section state to launch from at the chart point ``(phi, z)`` (a click or a typed point).

        Returns ``(state, None)``, or, when ``(phi, z)`` is a pole (``|Gamma_3| = 1``, where the section has no
        point) or ``|z| > 1``, the state at :meth:`nearest_admissible` and that point ``(phi2, z2)``.

        Raises
        ------
        InaccessibleError
            ``(phi, z)`` is not accessible (``E <= V_mu`` there), or no admissible point exists.
        """
        phi, z = _v.real("phi", phi), _v.real("z", z)
        try:
            return self.state_at(sphere_from_chart(phi, z)), None
        except InvalidStateError:  # a pole (or a typed |z| > 1)
            moved = self.nearest_admissible(phi, min(1.0, max(-1.0, z)))
            return self.state_at(sphere_from_chart(*moved)), moved

    def critical_energies(self, eq: Any = None) -> list[float]:
        """The energies of the relative equilibria at this mu (:func:`~pendulum_explorer.equilibria.equilibria_at_mu`,
        ``eq``: the pendulum's equilibria if already computed): where the section's picture changes.  ``[]``
        when they cannot be found at this mu."""
        try:
            return [float(p.energy) for p in equilibria_at_mu(self.pendulum, self.mu, eq=eq)]
        except PendulumError:
            return []

    def fill_seeds(self, n: int) -> NDArray[np.float64]:
        """Up to ``n`` seeds spread evenly over the accessible region: LP states ``[Gamma, omega]`` (k, 6).

        The points of a Fibonacci lattice on the sphere (equal area, dense enough that about ``4 n`` of them
        fall in the accessible region) whose section state exists, ``n`` of them taken evenly along the lattice.

        Raises
        ------
        InaccessibleError
            The section is empty, or no lattice point lies in the accessible region (a very thin region).
        """
        n = _v.integer("n", n, low=1, high=MAX_GRID)
        region = self.accessible_region(*REGION_GRID)
        if region.empty:
            raise InaccessibleError("the section is empty at this (E, mu): nothing to fill")
        k = np.arange(4 * n * max(1, int(1 / max(region.area_fraction, 0.02))))
        zz = 1 - (2 * k + 1) / len(k)
        ph = np.mod(k * np.pi * (3 - np.sqrt(5)), 2 * np.pi) - np.pi
        Y, ok = self.states_at(sphere_from_chart(ph, zz))
        cand = Y[ok]
        if len(cand) == 0:
            raise InaccessibleError("no lattice point of the accessible region was found; try a higher E")
        return cand[np.linspace(0, len(cand) - 1, min(n, len(cand))).round().astype(int)]

    def energy_range(self) -> tuple[float, float]:
        """``(E_min, inf)``: the energies for which the section at this mu is non-empty (E_min = min V_mu)."""
        return self.accessible_region(61, 41).energy_range

    def _extremum(self, V, G, sgn):
        """min (sgn=+1) or max (sgn=-1) of V_mu on S^2, polished from the best grid point."""
        k = np.argmin(sgn * V)
        G0 = G.reshape(-1, 3)[k]
        p = self._p
        out = np.empty(1)
        buf = np.empty((1, 3))

        def f(x):  # x = (phi, z) on the chart, z clipped to [-1, 1]
            zz = min(1.0, max(-1.0, x[1]))
            r = math.sqrt(max(0.0, 1.0 - zz * zz))
            buf[0, 0] = r * math.cos(x[0])
            buf[0, 1] = r * math.sin(x[0])
            buf[0, 2] = zz
            _sec.amended_potential_many(buf, p, out)
            return sgn * out[0]

        phi0, z0 = chart_from_sphere(G0)
        x0 = np.array([float(phi0), float(z0)])
        best = f(x0)
        xb = x0
        x, fx = minimize_compass(f, x0, step=0.03, xtol=1e-11)
        if fx < best:
            best, xb = fx, x
        xb = sphere_from_chart(xb[0], min(1.0, max(-1.0, xb[1])))
        return float(sgn * best), np.asarray(xb, dtype=float)

    # --- seeds ----------------------------------------------------------------------------------
    def check_seed(self, seed: Seed, name: str = "seed") -> NDArray[np.float64]:
        """The LP state ``[Gamma, omega]`` (6,) of a seed on this level, validated.

        Parameters
        ----------
        seed : a section Gamma (3,) (its section state, :meth:`state_at`), an LP state ``(Gamma, omega)`` as a
            pair, (6,) or (2, 3), or a :class:`SectionState`.
        name : str
            The argument the seed came from, named in the error messages (``"seeds[3]"`` for a batch).

        Raises
        ------
        ShapeError, InvalidStateError
            A malformed seed, or one whose energy (Eq 34) or momentum ``mu = omega^T J Gamma`` is off the level
            by more than ``LEVEL_RTOL`` relative (the message gives both values).
        InaccessibleError
            A Gamma (3,) where E <= V_mu(Gamma).
        """
        try:
            return self._seed_lp_state(seed)
        except PendulumError as e:  # the message names the argument the seed came from
            raise type(e)(f"{name}: {e}") from None

    def _seed_lp_state(self, seed: Seed) -> NDArray[np.float64]:
        """:meth:`check_seed` without the argument name in the messages."""
        if isinstance(seed, SectionState):
            return np.concatenate([seed.Gamma, seed.omega])
        if isinstance(seed, (tuple, list)) and len(seed) == 2 and np.ndim(seed[0]) == 1:
            G, w = seed
        else:
            a = _v.real_array("seed", seed, max_size=6, exc=InvalidStateError)
            if a.shape == (3,):
                st = self.state_at(a)
                return np.concatenate([st.Gamma, st.omega])
            if a.shape == (6,):
                G, w = a[:3], a[3:]
            elif a.shape == (2, 3):
                G, w = a[0], a[1]
            else:
                raise ShapeError(
                    f"a seed is a Gamma (3,) on the section or an LP state (Gamma, omega) as a pair, (6,) or (2, 3); "
                    f"got shape {a.shape}")
        G = _v.unit_vector("Gamma", G)
        w = _v.array("omega", w, (3,), max_abs=MAX_LEVEL)
        E = energy_lp(G, w, self._p)
        mu = mu_lp(G, w, self._p)
        dE = abs(E - self.energy)
        dmu = abs(mu - self.mu)
        if dE > LEVEL_RTOL * self.energy_scale or dmu > LEVEL_RTOL * self.mu_scale:
            raise InvalidStateError(
                f"the seed (Gamma, omega) is not on the level of this section: E(seed) = {E:.15g} vs "
                f"E = {self.energy:.15g} (off by {E - self.energy:.3g}), mu(seed) = {mu:.15g} vs mu = {self.mu:.15g} "
                f"(off by {mu - self.mu:.3g}); allowed {LEVEL_RTOL:g} relative")
        return np.concatenate([G, w])

    def _limits(self, n, t_max, max_gap, max_steps):
        n = _v.integer("n", n, low=1, high=MAX_CROSSINGS)
        max_gap = None if max_gap is None else _v.positive("max_gap", max_gap)
        t_max = None if t_max is None else _v.positive("t_max", t_max)
        if max_steps is not None:
            max_steps = _v.max_steps(max_steps)
        if max_gap is None:
            max_gap = self.max_gap
        if t_max is None:
            t_max = (n + 10) * max_gap
        if max_steps is None:
            max_steps = 20000 * (n + 10)
        return n, float(t_max), float(max_gap), int(max_steps)

    # --- crossings ------------------------------------------------------------------------------
    def crossings(self, seed: Seed, n: int = 1000, *, t_max: float | None = None, max_gap: float | None = None,
                  max_steps: int | None = None) -> Crossings:
        """The next ``n`` crossings with the section of the trajectory through ``seed``.

        Parameters
        ----------
        seed : Gamma (3,) on the section, or an LP state ``(Gamma, omega)`` on this (E, mu) level
            (pair, (6,) or (2, 3)), or a :class:`SectionState`.
        n : int >= 1
        t_max : float, optional
            Stop at this time (default ``(n + 10) * max_gap``).
        max_gap : float, optional
            Stop when no crossing occurred for this long, status ``"no_crossing"``.  Default
            ``MAX_GAP_SCALES`` (2000) x ``time_scale`` (about 3000 s for Fig. 2 at E = 0): chaotic orbits can
            spend several hundred seconds with only negatively oriented returns (e3^T(Gamma x Gammadot) < 0)
            before they cross P again, so the bound is generous.
        max_steps : int, optional
            Step budget (accepted + rejected), default ``20000 (n + 10)``.

        Returns
        -------
        Crossings
            With ``status != "ok"`` and fewer than ``n`` rows when the trajectory stopped crossing.
        """
        y0 = self.check_seed(seed)
        n, t_max, max_gap, max_steps = self._limits(n, t_max, max_gap, max_steps)
        G, W, D, T, info = self._chunk_runner()(y0[None, :], *self._chunk_args(n, t_max, max_gap, max_steps))
        G, W, D, T, info = G[0], W[0], D[0], T[0], info[0]
        k = int(info[0])
        st = {"n_accepted": int(info[2]), "n_rejected": int(info[3]), "n_rhs": int(info[4])}
        return Crossings(G[:k], W[:k], D[:k], T[:k], _v.Status(int(info[1])).label, n, st)

    def stream(self, seed: Seed, n: int, chunk: int = 400, *, first: int | None = None,
               seconds: float | None = None) -> Iterator[Crossings]:
        """The next ``n`` crossings of the trajectory through ``seed``, yielded in chunks as they are computed.

        A generator: the caller draws each chunk and may stop at any chunk (``break`` or ``close()``); no work
        is done beyond the chunk being computed.  Each chunk is a :class:`Crossings` of the new crossings only,
        with times counted from the seed.  The trajectory continues from the last crossing of each chunk,
        re-seeded at the section state over it (:meth:`state_at`, i.e. projected back onto the exact level).

        Parameters
        ----------
        seed : see :meth:`check_seed`
        n : int >= 1, crossings in all
        chunk : int >= 1, the largest chunk
        first : int, optional
            Size of the first chunk (default ``chunk``): a small first chunk gives fast feedback.
        seconds : float, optional
            Wall-time target per chunk: after each chunk the next size is set from the measured rate (between
            1 and ``chunk``), so that a caller that checks for cancellation between chunks answers within about
            this time.

        Yields
        ------
        Crossings
            The last chunk has ``status != "ok"`` when the trajectory stopped crossing (then the stream ends
            early; that chunk may be empty).
        """
        cur = self.check_seed(seed)
        n = _v.integer("n", n, low=1, high=MAX_CROSSINGS)
        chunk = _v.integer("chunk", chunk, low=1, high=MAX_CROSSINGS)
        size = chunk if first is None else _v.integer("first", first, low=1, high=MAX_CROSSINGS)
        seconds = None if seconds is None else _v.positive("seconds", seconds)
        total = 0
        t_off = 0.0
        while total < n:
            k = min(size, n - total)
            tic = time.perf_counter()
            res = self.crossings(cur, k)
            elapsed = time.perf_counter() - tic
            total += res.n_found
            if res.n_found:
                res.t = res.t + t_off
                t_off = float(res.t[-1])
            yield res
            if not res.complete:
                return
            G_last = res.Gamma[-1] / np.linalg.norm(res.Gamma[-1])
            try:
                cur = np.concatenate(self.state_at(G_last).lp_state)
            except PendulumError:  # at the boundary of the region or at a pole: the integrated state
                cur = np.concatenate([G_last, res.omega[-1]])
            size = chunk
            if seconds is not None:
                size = int(min(chunk, max(1, res.n_found * seconds / max(elapsed, 1e-6))))

    def click(self, phi: float, z: float, n: int = 1000, **kw: Any) -> Crossings:
        """The dashboard fast path: the trajectory through the section point at chart coordinates (phi, z)."""
        phi, z = _v.real("phi", phi), _v.real("z", z, low=-1.0, high=1.0)
        try:
            y0 = self._seed_lp_state(sphere_from_chart(phi, z))
        except PendulumError as e:  # say which input the section point came from
            raise type(e)(f"(phi, z) = ({phi:.6g}, {z:.6g}): {e}") from None
        return self.crossings(y0, n, **kw)

    def batch(self, seeds: Iterable[Seed] | NDArray[np.float64], n: int = 500, *, executor: Executor | None = None,
              n_chunks: int | None = None, t_max: float | None = None, max_gap: float | None = None,
              max_steps: int | None = None) -> BatchCrossings:
        """Crossings of many trajectories.

        Parameters
        ----------
        seeds : sequence of seeds (see :meth:`crossings`), or an array (m, 3) of section Gammas or (m, 6) of
            LP states.
        n : int, crossings per seed.
        executor : concurrent.futures.Executor, optional
            Run chunks of seeds with ``executor.submit`` (e.g. ``dask.distributed.Client.get_executor()``);
            each chunk runs the single-threaded kernel.  Default: a thread pool of this process with one
            thread per usable core (the kernel releases the GIL).  The results are identical either way.
        n_chunks : int, optional
            Number of chunks submitted to the executor (default: min(#seeds, 8); with the default thread pool
            min(#seeds, 4 x #threads), so that uneven trajectories still balance).
        """
        if isinstance(seeds, np.ndarray) and seeds.ndim == 2 and seeds.shape[1] in (3, 6):
            seed_list = list(seeds)
        else:
            try:
                seed_list = list(seeds)
            except TypeError as exc:
                raise ShapeError(f"seeds must be a sequence of seeds; got {type(seeds).__name__}") from exc
        if len(seed_list) == 0:
            raise ShapeError("seeds is empty; give at least one seed")
        n, t_max, max_gap, max_steps = self._limits(n, t_max, max_gap, max_steps)
        _v.result_memory(10.0 * n * len(seed_list), f"{len(seed_list)} seeds x {n} crossings", "reduce n or the seeds")
        Y0 = np.ascontiguousarray(np.stack([self.check_seed(s, f"seeds[{k}]") for k, s in enumerate(seed_list)]))
        m = Y0.shape[0]
        run, args = self._chunk_runner(), self._chunk_args(n, t_max, max_gap, max_steps)
        if executor is None:
            executor = _thread_pool()
            n_chunks = min(m, 4 * _N_THREADS) if n_chunks is None else n_chunks
        if not hasattr(executor, "submit"):
            raise TypeError(f"executor must be a concurrent.futures.Executor; got {type(executor).__name__}")
        if n_chunks is None:
            n_chunks = min(m, 8)
        n_chunks = min(_v.integer("n_chunks", n_chunks, low=1), m)
        bounds = np.linspace(0, m, n_chunks + 1).astype(int)
        # this process's threads stop between pieces when the caller is interrupted (Ctrl-C while waiting)
        stop = {"stop": threading.Event()} if isinstance(executor, ThreadPoolExecutor) else {}
        futs = [executor.submit(run, Y0[a:b], *args, **stop) for a, b in zip(bounds[:-1], bounds[1:]) if b > a]
        try:
            parts = [f.result() for f in futs]
        except BaseException:
            if stop:
                stop["stop"].set()
            for f in futs:
                f.cancel()
            raise
        G, W, D, T, info = (np.concatenate([pp[i] for pp in parts]) for i in range(5))
        nf = info[:, 0].copy()
        for k in range(m):
            c = nf[k]
            G[k, c:] = np.nan
            W[k, c:] = np.nan
            D[k, c:] = np.nan
            T[k, c:] = np.nan
        return BatchCrossings(G, W, D, T, nf, [_v.Status(int(s)).label for s in info[:, 1]], n, info[:, 2:5].copy())

    # --- level checks ----------------------------------------------------------------------------
    def level_errors(self, Gamma: ArrayLike,
                     omega: ArrayLike) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
        """Relative distance of LP states (k, 3) + (k, 3) from the level: ``(|E - E0| / energy_scale,
        |mu - mu0| / mu_scale)`` arrays, and the section residuals ``g = e3^T (Gamma x omega)``, ``s``."""
        G = _v.real_array("Gamma", Gamma, trailing=(3,), max_size=3 * MAX_CROSSINGS).reshape(-1, 3)
        W = _v.real_array("omega", omega, trailing=(3,), max_size=3 * MAX_CROSSINGS).reshape(-1, 3)
        if np.any(np.abs(np.linalg.norm(G, axis=1) - 1.0) > 1e-3) or np.abs(W).max(initial=0.0) > MAX_LEVEL:
            raise InvalidStateError(f"Gamma must hold unit vectors and omega entries of magnitude <= {MAX_LEVEL:g}")
        if G.shape != W.shape:
            raise ShapeError(f"Gamma and omega must hold the same number of states; got {G.shape[0]} and {W.shape[0]}")
        E = np.array([energy_lp(G[k], W[k], self._p) for k in range(G.shape[0])])
        mu = np.array([mu_lp(G[k], W[k], self._p) for k in range(G.shape[0])])
        D = np.cross(G, W)
        s = np.cross(G, D)[:, 2]
        return np.abs(E - self.energy) / self.energy_scale, np.abs(mu - self.mu) / self.mu_scale, D[:, 2], s

    def relative_equilibria(self) -> list[NDArray[np.float64]]:
        """Relative equilibria at this mu with energy <= E (:func:`~pendulum_explorer.equilibria_at_mu`, whose
        family curves are computed once per pendulum); none for a balanced pendulum (rho = 0)."""
        if self._releq is None:
            out: list[NDArray[np.float64]] = []
            if not self.pendulum.is_balanced:
                for e in equilibria_at_mu(self.pendulum, self.mu):
                    if self.amended_potential(e.Gamma) <= self.energy + 1e-12 * self.energy_scale:
                        out.append(np.asarray(e.Gamma, dtype=float))
            self._releq = out
        return self._releq

    def _chunk_runner(self):
        return _run_chunk_taylor if self.method == "taylor" else _run_chunk

    def _chunk_args(self, n, t_max, max_gap, max_steps):
        if self.method == "taylor":
            q, Q, c, order = self._taylor
            return (q, Q, c, order, n, t_max, max_gap, max_steps)
        return (self._p, n, t_max, max_gap, max_steps, self.rtol, self.atol)

    # --- chaos maps -----------------------------------------------------------------------------
    def chaos_map(self, resolution: tuple[int, int] = (64, 48), t_total: float = 200.0, *, indicator: str = "megno",
                  executor: Executor | None = None, progress: Callable[[int, int], Any] | None = None,
                  cancel: Any = None, n_chunks: int | None = None, rtol: float = 1e-9, atol: float = 1e-9,
                  tangent_to_level: bool = False) -> ChaosMap:
        """A chaos indicator over a grid of the section chart: MEGNO (or the Lyapunov estimate) of the trajectory
        through the section state at each cell centre, from the tangent dynamics of Eqs (31)-(32) (see
        :mod:`pendulum_explorer.chaos`).
        The tangent dynamics always run on DOP853 (with the section's ``method`` = "taylor" as well).

        Parameters
        ----------
        resolution : (n_phi, n_z)
            Cells along phi in (-pi, pi) and z = Gamma_3 in (-1, 1), each in [1, MAX_GRID].
        t_total : float
            Integration time per cell [s], in (0, MAX_MAP_TIME] (1e5 s).
        indicator : {"megno", "lyapunov"}
            What ``values`` holds (both are computed).
        executor : concurrent.futures.Executor, optional
            Runs chunks of cells with ``submit`` (e.g. ``dask.distributed.Client.get_executor()``); default: the
            process thread pool of :meth:`batch` (the kernel releases the GIL).  Results are identical.
        progress : callable(done, total), optional
            Called in the calling thread as chunks finish (cells done, accessible cells).
        cancel : callable returning bool, or an object with ``is_set()`` (threading.Event), optional
            Polled while waiting; when set, pending chunks are cancelled and
            :class:`concurrent.futures.CancelledError` is raised.
        n_chunks : int, optional
            Chunks submitted (default: about 24 cells per chunk with the thread pool, so that cancel and progress
            respond within ~0.2 s; min(cells, 64) with another executor).
        rtol, atol : float
            DOP853 tolerances of the tangent integration (default 1e-9: regular cells' MEGNO is then converged to
            ~1e-5; chaotic cells' values depend on the tolerance like the trajectory itself, but stay >> 2).
        tangent_to_level : bool
            Keep the deviations tangent to the (E, mu) level (see :func:`pendulum_explorer.chaos.megno`).

        Returns
        -------
        ChaosMap

        Raises
        ------
        InvalidIntegrationError
            Bad resolution, t_total, indicator, tolerances (before any integration).
        IntegrationFailedError
            Some cell's integration stopped; names how many and the first cell.
        """
        try:
            n_phi, n_z = resolution
        except (TypeError, ValueError) as exc:
            raise InvalidIntegrationError(f"resolution must be a pair (n_phi, n_z); got {resolution!r}") from exc
        n_phi = _v.integer("resolution n_phi", n_phi, low=1, high=MAX_GRID)
        n_z = _v.integer("resolution n_z", n_z, low=1, high=MAX_GRID)
        t_total = _v.positive("t_total", t_total, high=MAX_MAP_TIME)
        indicator = _v.choice("indicator", indicator, ("megno", "lyapunov"))
        rtol, atol = _v.tolerances(rtol, atol)
        _v.result_memory(3.0 * n_phi * n_z, f"a chaos map of {n_phi} x {n_z} cells", "reduce the resolution")
        if executor is not None and not hasattr(executor, "submit"):
            raise TypeError(f"executor must be a concurrent.futures.Executor; got {type(executor).__name__}")
        is_cancelled = _cancel_probe(cancel)
        phi, z = chaos_grid(n_phi, n_z)
        PH, Z = np.meshgrid(phi, z)
        Y, ok = self.states_at(sphere_from_chart(PH, Z).reshape(-1, 3))
        idx = np.nonzero(ok)[0]
        m = idx.size
        ybar = np.full(n_phi * n_z, np.nan)
        lyap = np.full(n_phi * n_z, np.nan)
        if m:
            if executor is None:
                executor = _thread_pool()
                n_chunks = max(1, m // 24) if n_chunks is None else n_chunks
            n_chunks = min(m, 64) if n_chunks is None else min(_v.integer("n_chunks", n_chunks, low=1), m)
            max_steps = int(2000 * (t_total + 10.0))
            Y0 = np.ascontiguousarray(Y[idx])
            bounds = np.linspace(0, m, n_chunks + 1).astype(int)
            futs = {executor.submit(_tangent_chunk, Y0[a:b], self._p, t_total, rtol, atol, max_steps,
                                    bool(tangent_to_level)): (a, b)
                    for a, b in zip(bounds[:-1], bounds[1:]) if b > a}
            info = np.zeros((m, 4), dtype=np.int64)
            pending = set(futs)
            done_cells = 0
            try:
                while pending:
                    if is_cancelled():
                        raise CancelledError(f"chaos map cancelled after {done_cells} of {m} cells")
                    finished, pending = wait(pending, timeout=0.05, return_when=FIRST_COMPLETED)
                    for f in finished:
                        a, b = futs[f]
                        yb, ly, inf = f.result()
                        ybar[idx[a:b]] = yb
                        lyap[idx[a:b]] = ly
                        info[a:b] = inf
                        done_cells += b - a
                    if finished and progress is not None:
                        progress(done_cells, m)
            finally:
                for f in pending:
                    f.cancel()
            bad = np.nonzero(info[:, 0] != 0)[0]
            if bad.size:
                k0 = idx[bad[0]]
                raise IntegrationFailedError(
                    f"the tangent integration stopped in {bad.size} of {m} cells (first at phi = "
                    f"{PH.ravel()[k0]:.4f}, z = {Z.ravel()[k0]:.4f}: {_v.Status(int(info[bad[0], 0])).label}); "
                    f"try a shorter t_total or looser rtol/atol")
        Yb = ybar.reshape(n_z, n_phi)
        Ly = lyap.reshape(n_z, n_phi)
        return ChaosMap(phi, z, Yb if indicator == "megno" else Ly, indicator, t_total, Yb, Ly)

    # --- periodic orbits ------------------------------------------------------------------------
    def chaos_maps(self, levels: Iterable[tuple[int, int]] = MAP_LEVELS, t_total: float = 200.0, *,
                   progress: Callable[[float, tuple[int, int], int, int], Any] | None = None, cancel: Any = None,
                   **kw: Any) -> Iterator[ChaosMap]:
        """:meth:`chaos_map` at each resolution of ``levels`` in turn (coarse first, then refined), each map
        yielded as soon as it is done, so that a caller can draw it while the next one is computed.

        ``progress(fraction, resolution, done, total)``: ``fraction`` of all the levels, ``done`` of ``total``
        accessible cells of the map being computed.  ``cancel`` (see :meth:`chaos_map`) ends the generator
        quietly: the maps yielded so far are what was finished.  Other keywords go to :meth:`chaos_map`.
        """
        levels = list(levels)
        is_cancelled = _cancel_probe(cancel)
        for i, res in enumerate(levels):
            def step(d, m, i=i, res=res):
                if progress is not None:
                    progress((i + d / max(m, 1)) / len(levels), res, d, m)
            try:
                cm = self.chaos_map(res, t_total, progress=step, cancel=cancel, **kw)
            except CancelledError:
                return
            yield cm
            if is_cancelled():
                return

    def return_map(self, phi: float, z: float, k: int = 1) -> tuple[float, float, float, NDArray[np.float64]]:
        """The k-th return of the section point at chart coordinates (phi, z) and its Jacobian.

        The section state y0(phi, z) is integrated with the tangent dynamics (six deviation vectors: the flow's
        Jacobian Phi) to its k-th crossing y1 at time T.  The derivative of the return map is
        ``dy1 = Pi (Phi dy0)`` with the return-time correction ``Pi v = v - f(y1) (grad g . v) / (grad g . f(y1))``
        (g = e3^T Gammadot, f = Eqs 31-32), and dy0 is the tangent of the section chart: dGamma from
        Gamma = (r cos phi, r sin phi, z), domega from the three linear conditions dE = dmu = dg = 0 (Eqs 34, 56).

        Returns
        -------
        (phi1, z1, T, M) with M the 2 x 2 Jacobian d(phi1, z1) / d(phi, z).

        Raises
        ------
        InaccessibleError, InvalidStateError
            (phi, z) is not on the section.
        IntegrationFailedError
            The trajectory stopped crossing before its k-th return.
        """
        k = _v.integer("k", k, low=1, high=MAX_RETURN_POWER)
        st = self.state_at(sphere_from_chart(_v.real("phi", phi), _v.real("z", z, low=-1.0, high=1.0)))
        G, w = st.Gamma, st.omega
        p = self._p
        dim = 8 + 36
        y0 = np.zeros(dim)
        y0[0:3] = G
        y0[3:6] = w
        for j in range(6):
            y0[6 + 7 * j] = 1.0
        n, t_max, max_gap, max_steps = self._limits(k, None, None, None)
        Yc = np.empty((k, dim))
        Tc = np.empty(k)
        info = np.zeros(_sec.N_INFO, dtype=np.int64)
        _sec.crossings_tangent(y0, p, k, t_max, max_gap, max_steps, self.rtol, self.atol, Yc, Tc, info)
        if info[0] < k:
            raise IntegrationFailedError(
                f"the trajectory from (phi, z) = ({phi:.6g}, {z:.6g}) returned {int(info[0])} of k = {k} times "
                f"({_v.Status(int(info[1])).label}); pick a point whose trajectory keeps crossing the section")
        y1 = Yc[k - 1]
        Phi = y1[6:42].reshape(6, 6).T
        S = _chart_tangent(G, w, p)
        V = Phi @ S
        f1 = np.array(lp_field(*y1[:6], p))
        G1, w1 = y1[0:3], y1[3:6]
        grad_g = np.array([w1[1], -w1[0], 0.0, -G1[1], G1[0], 0.0])
        V = V - np.outer(f1, grad_g @ V) / (grad_g @ f1)
        r2 = G1[0] ** 2 + G1[1] ** 2
        C = np.array([[-G1[1] / r2, G1[0] / r2, 0.0], [0.0, 0.0, 1.0]])
        M = C @ V[0:3]
        phi1, z1 = chart_from_sphere(G1)
        return float(phi1), float(z1), float(Tc[k - 1]), M

    def periodic_orbit(self, seed: ArrayLike | SectionState, k: int = 1, *, tol: float = 1e-10,
                       max_iter: int = 50) -> PeriodicOrbit:
        """A fixed point of the k-th return map near ``seed``: Newton's method on the section chart with the
        Jacobian of :meth:`return_map` (variational equations of Eqs 31-32).

        Parameters
        ----------
        seed : (phi, z) chart coordinates, a section Gamma (3,), or a :class:`SectionState`
        k : int, 1 ... 64 (``MAX_RETURN_POWER``)
        tol : float
            Converged when the chart distance between the point and its k-th return is <= tol (in [1e-13, 1e-3]).
        max_iter : int
            Newton iterations (each step limited to 0.2 in the chart, halved while its target leaves the section
            or the residual grows).

        Returns
        -------
        PeriodicOrbit

        Raises
        ------
        PeriodicOrbitNotFoundError
            No convergence within max_iter (or the iteration left the section); carries ``residual``.
        """
        k = _v.integer("k", k, low=1, high=MAX_RETURN_POWER)
        tol = _v.real("tol", tol, exc=InvalidIntegrationError, low=1e-13, high=1e-3)
        max_iter = _v.integer("max_iter", max_iter, low=1, high=1000)
        if isinstance(seed, SectionState):
            x = np.array(chart_from_sphere(seed.Gamma), dtype=float)
        else:
            a = np.asarray(seed, dtype=float)
            if a.shape == (2,):
                x = a.copy()
            elif a.shape == (3,):
                x = np.array(chart_from_sphere(_v.unit_vector("seed", a)), dtype=float)
            else:
                raise ShapeError(f"seed must be chart coordinates (phi, z), a Gamma (3,) or a SectionState; "
                                 f"got shape {a.shape}")
        if not np.all(np.isfinite(x)) or abs(x[1]) > 1.0:
            raise InvalidStateError(f"seed chart coordinates must be finite with |z| <= 1; got {x.tolist()}")
        self.state_at(sphere_from_chart(x[0], x[1]))  # raises InaccessibleError for a seed off the section

        def residual(x):
            phi1, z1, T, M = self.return_map(x[0], x[1], k)
            F = np.array([math.remainder(phi1 - x[0], 2 * math.pi), z1 - x[1]])
            return F, T, M

        F, T, M = residual(x)
        res = float(np.linalg.norm(F))
        it = 0
        while res > tol:
            if it >= max_iter:
                raise PeriodicOrbitNotFoundError(
                    f"Newton's method for a fixed point of the {k}-th return map did not converge in {max_iter} "
                    f"iterations from the seed (last residual {res:.3g} > tol = {tol:g} at phi = {x[0]:.6f}, "
                    f"z = {x[1]:.6f}); click closer to an island centre or try another k", res)
            it += 1
            try:
                dx = np.linalg.solve(M - np.eye(2), -F)
            except np.linalg.LinAlgError:
                raise PeriodicOrbitNotFoundError(
                    f"the Newton matrix DP^{k} - I is singular at phi = {x[0]:.6f}, z = {x[1]:.6f} (a multiplier "
                    f"equal to 1); last residual {res:.3g}", res) from None
            step = float(np.linalg.norm(dx))
            if step > 0.2:
                dx *= 0.2 / step
            for _ in range(12):
                xn = x + dx
                xn[0] = math.remainder(xn[0], 2 * math.pi)
                try:
                    Fn, Tn, Mn = residual(xn)
                except (InaccessibleError, InvalidStateError, IntegrationFailedError):
                    dx *= 0.5
                    continue
                rn = float(np.linalg.norm(Fn))
                if rn < res or rn <= tol:
                    break
                dx *= 0.5
            else:
                raise PeriodicOrbitNotFoundError(
                    f"Newton's method for a fixed point of the {k}-th return map stalled at phi = {x[0]:.6f}, "
                    f"z = {x[1]:.6f} (residual {res:.3g}: no shorter step lowers it); click closer to an island "
                    f"centre or try another k", res)
            x, F, T, M, res = xn, Fn, Tn, Mn, rn
        st = self.state_at(sphere_from_chart(x[0], x[1]))
        mult, kind = orbit_kind(M)
        return PeriodicOrbit(st.Gamma, st.omega, float(x[0]), float(x[1]), k, T, M, mult, kind, res, it)

    def __repr__(self) -> str:
        return (f"PoincareSection({self.pendulum!r}, energy={self.energy!r}, mu={self.mu!r}, "
                f"rtol={self.rtol:g}, atol={self.atol:g}, method={self.method!r})")


def _alloc(m, n):
    return (np.empty((m, n, 3)), np.empty((m, n, 3)), np.empty((m, n, 3)), np.empty((m, n)),
            np.zeros((m, _sec.N_INFO), dtype=np.int64))


def _pieces(kernel, m, dim, stop, steps):
    """Call ``kernel(ctl, steps)`` (a resumable crossings kernel with its other arguments bound) until it says
    every trajectory is done: pieces of about ``steps`` steps, so that Python runs between them (Ctrl-C raises
    KeyboardInterrupt within a piece, ~0.1 s) and a batch stops when ``stop`` (a threading.Event) is set.
    The result is bit for bit that of one call."""
    ctl = np.zeros((m, _sec.N_CTL + 2 * dim))
    while kernel(ctl, steps):
        if stop is not None and stop.is_set():
            raise CancelledError("crossings stopped")


def _run_chunk(Y0, p, n, t_max, max_gap, max_steps, rtol, atol, stop=None):
    """One chunk of seeds on one thread (an executor task: picklable, module level), in pieces of
    ``trajectory.CHUNK_STEPS`` steps."""
    Y0 = np.ascontiguousarray(Y0, dtype=float)
    G, W, D, T, info = _alloc(Y0.shape[0], n)
    p, Yc = np.asarray(p, dtype=float), np.empty((n, Y0.shape[1]))
    _pieces(lambda ctl, steps: _sec.crossings_serial(_MODEL, Y0, p, n, t_max, max_gap, max_steps, rtol, atol,
                                                     G, W, D, T, info, ctl, steps, Yc),
            Y0.shape[0], Y0.shape[1], stop, _traj.CHUNK_STEPS)
    return G, W, D, T, info


def _run_chunk_taylor(Y0, q, Q, c, order, n, t_max, max_gap, max_steps, stop=None):
    """:func:`_run_chunk` with the Taylor kernel: seeds rotated into the principal frame and back."""
    Y0 = np.ascontiguousarray(Y0, dtype=float)
    m = Y0.shape[0]
    Yp = np.ascontiguousarray(np.concatenate([Y0[:, 0:3] @ Q, Y0[:, 3:6] @ Q], axis=1))  # v' = Q^T v
    Yc = np.empty((m, n, 6))
    T = np.empty((m, n))
    info = np.zeros((m, _taylor.N_INFO), dtype=np.int64)
    _pieces(lambda ctl, steps: _taylor.crossings_serial_taylor(Yp, q, c, order, n, t_max, max_gap, max_steps, Yc, T,
                                                               info, ctl, steps),
            m, 6, stop, _traj.CHUNK_STEPS // _traj.TAYLOR_CHUNK_DIVISOR)
    G = Yc[:, :, 0:3] @ Q.T
    W = Yc[:, :, 3:6] @ Q.T
    return G, W, np.cross(G, W), T, info


def _usable_cores():
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


_N_THREADS = _usable_cores()
_POOL = None


def _thread_pool():
    """The process-wide pool that runs batches (created on first use; the kernel releases the GIL)."""
    global _POOL
    if _POOL is None:
        _POOL = ThreadPoolExecutor(max_workers=_N_THREADS, thread_name_prefix="pe-batch")
    return _POOL


def _tangent_chunk(Y0, p, t_total, rtol, atol, max_steps, tangent_to_level):
    """MEGNO and Lyapunov estimate of a chunk of cells on one thread (an executor task: module level, picklable)."""
    Y0 = np.ascontiguousarray(Y0, dtype=float)
    m = Y0.shape[0]
    ybar = np.empty(m)
    lyap = np.empty(m)
    info = np.zeros((m, _kchaos.N_TAN_INFO), dtype=np.int64)
    _kchaos.tangent_many(Y0, np.asarray(p, dtype=float), t_total, rtol, atol, max_steps, tangent_to_level,
                         ybar, lyap, info)
    return ybar, lyap, info


def _cancel_probe(cancel):
    """``cancel`` (None, a callable returning bool, or an object with ``is_set()``) as a callable."""
    if cancel is None:
        return lambda: False
    if hasattr(cancel, "is_set"):
        return cancel.is_set
    if callable(cancel):
        return lambda: bool(cancel())
    raise TypeError(f"cancel must be a callable or have is_set() (threading.Event); got {type(cancel).__name__}")


def _chart_tangent(G, w, p):
    """(6, 2) tangent vectors d(Gamma, omega) / d(phi, z) of the section state over the chart point of Gamma.

    dGamma from Gamma = (r cos phi, r sin phi, z), r = sqrt(1 - z^2); domega solves the linearised level and
    section conditions dE = 0 (Eq 34: -m g rho . dGamma + J omega . domega), dmu = 0 (Eq 56: J omega . dGamma +
    J Gamma . domega) and dg = 0 (g = (Gamma x omega)_3)."""
    J = p[0:9].reshape(3, 3)
    mgr = p[18:21]
    r = math.hypot(G[0], G[1])
    c, s = G[0] / r, G[1] / r
    dG = np.array([[-G[1], -G[2] * c / r], [G[0], -G[2] * s / r], [0.0, 1.0]])
    Jw = J @ w
    A = np.array([Jw, J @ G, [-G[1], G[0], 0.0]])
    B = np.array([-mgr, Jw, [w[1], -w[0], 0.0]])
    dw = np.linalg.solve(A, -B @ dG)
    return np.vstack([dG, dw])

# ------------------------------------------------------------------------------------------------
# marching squares for the boundary V_mu = E
# ------------------------------------------------------------------------------------------------
def _contour(x, y, F):
    """Zero level of F (ny, nx) on the grid (x, y) as segments separated by NaN: returns (xs, ys)."""
    s = F > 0
    ny, nx = F.shape
    segs = []
    f00 = F[:-1, :-1]
    f10 = F[:-1, 1:]
    f01 = F[1:, :-1]
    f11 = F[1:, 1:]

    def edge(fa, fb, xa, ya, xb, yb):
        t = fa / (fa - fb)
        return xa + t * (xb - xa), ya + t * (yb - ya)

    X0 = x[None, :-1] + 0 * f00
    X1 = x[None, 1:] + 0 * f00
    Y0 = y[:-1, None] + 0 * f00
    Y1 = y[1:, None] + 0 * f00
    # edges: bottom (00-10), right (10-11), top (01-11), left (00-01)
    eb = s[:-1, :-1] != s[:-1, 1:]
    er = s[:-1, 1:] != s[1:, 1:]
    et = s[1:, :-1] != s[1:, 1:]
    el = s[:-1, :-1] != s[1:, :-1]
    with np.errstate(invalid="ignore", divide="ignore"):
        pb = edge(f00, f10, X0, Y0, X1, Y0)
        pr = edge(f10, f11, X1, Y0, X1, Y1)
        pt = edge(f01, f11, X0, Y1, X1, Y1)
        pl = edge(f00, f01, X0, Y0, X0, Y1)
    pts = [(eb, pb), (er, pr), (et, pt), (el, pl)]
    cnt = eb.astype(int) + er + et + el
    for j, i in zip(*np.nonzero(cnt >= 2)):
        ps = [(P[0][j, i], P[1][j, i]) for M, P in pts if M[j, i]]
        if len(ps) == 2:
            segs.append(ps)
        else:  # saddle: pair by the centre value
            centre = 0.25 * (f00[j, i] + f10[j, i] + f01[j, i] + f11[j, i])
            if (centre > 0) == s[j, i]:
                segs.append([ps[0], ps[1]])
                segs.append([ps[2], ps[3]])
            else:
                segs.append([ps[0], ps[3]])
                segs.append([ps[1], ps[2]])
    if not segs:
        return np.empty(0), np.empty(0)
    xs = np.empty(3 * len(segs))
    ys = np.empty(3 * len(segs))
    arr = np.array(segs)  # (k, 2, 2)
    xs[0::3] = arr[:, 0, 0]
    xs[1::3] = arr[:, 1, 0]
    xs[2::3] = np.nan
    ys[0::3] = arr[:, 0, 1]
    ys[1::3] = arr[:, 1, 1]
    ys[2::3] = np.nan
    return xs, ys


__all__ = [
    "PoincareSection", "SectionState", "Crossings", "BatchCrossings", "AccessibleRegion",
    "chart_from_sphere", "sphere_from_chart", "amended_potential", "paper_initial_state",
    "DEFAULT_RTOL", "DEFAULT_ATOL", "ChaosMap", "PeriodicOrbit",
]
