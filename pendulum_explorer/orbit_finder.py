"""Periodic orbits of the section map on their level (issue 21, item 1): :class:`LevelOrbit` and the robust
finder.

* :func:`find_periodic_orbit`: a fixed point of the k-th return map ``P^k`` of a :class:`PoincareSection` near a
  chart point, robust where Newton from the click fails: Levenberg-Marquardt steps inside a trust region on the
  residual ``F(x) = P^k(x) - x`` (chart coordinates, phi taken modulo 2 pi), started from the click and from the
  near-returns of ``P^k`` on a small grid around it (the grid points with the smallest ``|F|``); of the fixed
  points found, the one nearest the click.
* :func:`find_periodic_orbits`: every fixed point found from the near-returns over the whole accessible region.

Only :class:`PoincareSection`'s public methods are used (``return_map``, ``state_at``, ``states_at``,
``fill_seeds``, ``batch``).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.optimize import brentq

from . import _validate as _v
from .bounds import BOUNDS
from .bodies import Pendulum
from .errors import (InaccessibleError, IntegrationFailedError, InvalidIntegrationError, InvalidStateError,
                     PeriodicOrbitNotFoundError)
from .poincare import (MAX_RETURN_POWER, PeriodicOrbit, PoincareSection, SectionState, chart_from_sphere,
                       orbit_kind, sphere_from_chart)
from .section.orbits import chart_seed

Vec = NDArray[np.float64]
_OFF = (InaccessibleError, InvalidStateError, IntegrationFailedError)
TWO_PI = 2.0 * math.pi
#: fixed points closer than this on the chart are the same
SAME_POINT = 1e-6

@dataclass(frozen=True)
class LevelOrbit(PeriodicOrbit):
    """A :class:`~pendulum_explorer.poincare.PeriodicOrbit` that knows its pendulum and level (E, mu), so that it
    can be continued (:func:`continue_periodic_orbit`) without its section."""

    pendulum: Pendulum = field(repr=False)
    E: float
    mu: float

    @property
    def trace(self) -> float:
        """``tr DP^k``: in (-2, 2) elliptic, = 2 at a fold or tangent bifurcation, = -2 at a period doubling."""
        return float(np.trace(self.jacobian))

    def section(self) -> PoincareSection:
        """The section of this orbit's level."""
        return PoincareSection(self.pendulum, self.E, self.mu)


def level_orbit(section: PoincareSection, phi: float, z: float, k: int, *, residual: float = 0.0,
                iterations: int = 0) -> LevelOrbit:
    """The :class:`LevelOrbit` at the chart point (phi, z) of ``section`` (a fixed point of ``P^k`` found
    elsewhere): its state, period, Jacobian, multipliers and kind from :meth:`PoincareSection.return_map`."""
    st = section.state_at(sphere_from_chart(phi, z))
    phi1, z1, T, M = section.return_map(phi, z, k)
    res = max(residual, math.hypot(math.remainder(phi1 - phi, TWO_PI), z1 - z))
    mult, kind = orbit_kind(M)
    return LevelOrbit(st.Gamma, st.omega, float(phi), float(z), k, T, M, mult, kind, res, iterations,
                      section.pendulum, section.energy, section.mu)


def as_level_orbit(orbit: PeriodicOrbit, section: PoincareSection | None = None) -> LevelOrbit:
    """``orbit`` as a :class:`LevelOrbit` (a plain :class:`PeriodicOrbit` needs the ``section`` it came from)."""
    if isinstance(orbit, LevelOrbit):
        return orbit
    if not isinstance(orbit, PeriodicOrbit):
        raise TypeError(f"orbit must be a PeriodicOrbit (from PoincareSection.periodic_orbit or "
                        f"find_periodic_orbit); got {type(orbit).__name__}")
    if not isinstance(section, PoincareSection):
        raise TypeError("a PeriodicOrbit from PoincareSection.periodic_orbit needs section=<that section> "
                        "(its pendulum and level)")
    return LevelOrbit(orbit.Gamma, orbit.omega, orbit.phi, orbit.z, orbit.k, orbit.period, orbit.jacobian,
                      orbit.multipliers, orbit.kind, orbit.residual, orbit.iterations, section.pendulum,
                      section.energy, section.mu)


# ------------------------------------------------------------------------------------------------
# the robust finder
# ------------------------------------------------------------------------------------------------
def _residual(sec: PoincareSection, x: NDArray[np.float64], k: int) -> tuple[Vec, float, Vec]:
    phi1, z1, T, M = sec.return_map(float(x[0]), float(x[1]), k)
    return np.array([math.remainder(phi1 - x[0], TWO_PI), z1 - x[1]]), T, M


def _lm_step(J: NDArray[np.float64], F: NDArray[np.float64], radius: float) -> NDArray[np.float64]:
    """The Levenberg-Marquardt step ``-(J^T J + lam I)^-1 J^T F`` with the smallest lam >= 0 whose length is at
    most ``radius`` (the trust-region subproblem; the Newton step when it fits)."""
    try:
        dx = np.asarray(np.linalg.solve(J, -F), dtype=np.float64)
        if np.all(np.isfinite(dx)) and float(np.linalg.norm(dx)) <= radius:
            return dx
    except np.linalg.LinAlgError:
        pass
    sv, V = np.linalg.eigh(J.T @ J)
    gv = V.T @ (J.T @ F)
    sv = np.maximum(sv, 0.0)

    def step(lam: float) -> NDArray[np.float64]:
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.asarray(-(V @ np.where(sv + lam > 0, gv / (sv + lam), 0.0)), dtype=np.float64)

    def excess(loglam: float) -> float:
        return float(np.linalg.norm(step(math.exp(loglam)))) - radius

    hi = math.log(max(float(np.linalg.norm(gv)) / radius, 1e-300)) + 1.0  # ||step(lam)|| < ||g|| / lam
    lo = math.log(max(1e-14 * float(sv.max()), 1e-300))
    if lo >= hi or excess(lo) <= 0.0:
        return step(math.exp(min(lo, hi)))
    return step(math.exp(brentq(excess, lo, hi, xtol=1e-3)))


def _lm_solve(sec: PoincareSection, x0: NDArray[np.float64], k: int, tol: float, max_iter: int,
              radius: float) -> tuple[NDArray[np.float64], float, int]:
    """Trust-region Levenberg-Marquardt on ``F(x) = P^k(x) - x``: returns (x, |F|, iterations) or raises
    :class:`PeriodicOrbitNotFoundError`."""
    x = np.array(x0, dtype=float)
    F, _T, M = _residual(sec, x, k)
    res = float(np.linalg.norm(F))
    delta = radius
    it = 0
    while res > tol:
        if it >= max_iter or delta < 1e-14:
            raise PeriodicOrbitNotFoundError(
                f"no fixed point of the {k}-th return map near phi = {x[0]:.6f}, z = {x[1]:.6f} within "
                f"{max_iter} trust-region steps (residual {res:.3g} > tol = {tol:g})", res)
        it += 1
        J = M - np.eye(2)
        dx = _lm_step(J, F, delta)
        xn = x + dx
        xn[0] = math.remainder(xn[0], TWO_PI)
        try:
            Fn, _Tn, Mn = _residual(sec, xn, k)
        except _OFF:
            delta = 0.25 * float(np.linalg.norm(dx))
            continue
        rn = float(np.linalg.norm(Fn))
        pred = res * res - float(np.linalg.norm(F + J @ dx)) ** 2
        rho = (res * res - rn * rn) / pred if pred > 0 else -1.0
        step = float(np.linalg.norm(dx))
        if rho < 0.25:
            delta = 0.25 * step
        elif rho > 0.75 and step >= 0.99 * delta:
            delta = min(2.0 * delta, 1.0)
        if rho > 1e-4 or rn <= tol:
            x, F, M, res = xn, Fn, Mn, rn
    return x, res, it


def _chart_seed(sec: PoincareSection, seed: ArrayLike | SectionState) -> NDArray[np.float64]:
    """The seed's chart coordinates, as :meth:`PoincareSection.periodic_orbit` reads them."""
    return chart_seed(seed)


def _primitive(sec: PoincareSection, x: NDArray[np.float64], k: int) -> bool:
    """False if x is a fixed point of a lower power P^d, d | k (to 1e-6 on the chart)."""
    for d in range(1, k):
        if k % d == 0:
            F, _T, _M = _residual(sec, x, d)
            if float(np.linalg.norm(F)) < 1e-6:
                return False
    return True


def _near_returns(sec: PoincareSection, pts: NDArray[np.float64], k: int) -> NDArray[np.float64]:
    """``|P^k(x) - x|`` at the chart points ``pts`` (m, 2) (inf where not on the section or not returning),
    from :meth:`PoincareSection.batch` (k crossings per point)."""
    Y, ok = sec.states_at(sphere_from_chart(pts[:, 0], pts[:, 1]))
    out = np.full(len(pts), np.inf)
    idx = np.nonzero(ok)[0]
    if len(idx) == 0:
        return out
    b = sec.batch(Y[idx], k)
    for j, c in zip(idx, b):
        if c.n_found >= k:
            ph, z = chart_from_sphere(c.Gamma[k - 1])
            out[j] = math.hypot(math.remainder(float(ph) - pts[j, 0], TWO_PI), float(z) - pts[j, 1])
    return out


def find_periodic_orbit(section: PoincareSection, seed: ArrayLike | SectionState, k: int = 1, *,
                        radius: float = 0.1, n_grid: int = 9, n_starts: int = 12, tol: float = 1e-10,
                        max_iter: int = 60, primitive: bool = True) -> LevelOrbit:
    """A fixed point of the k-th return map of ``section`` near ``seed`` (a click on the chart).

    Levenberg-Marquardt in a trust region (:func:`_lm_solve`) from the seed itself, then from the ``n_starts``
    near-returns of ``P^k`` (smallest ``|P^k(x) - x|``) on an ``n_grid`` x ``n_grid`` grid over the disc of
    ``radius / 4`` around it, then (if nothing was found within radius / 4) on the same grid over the disc of
    ``radius``; returns the fixed point nearest the seed, within ``radius`` of it.

    Parameters
    ----------
    section : PoincareSection
    seed : (phi, z) chart coordinates, a section Gamma (3,), or a SectionState (on the section)
    k : int, 1 ... 64
    radius : float in (0, 1]
        Chart radius of the search around the seed.
    n_grid : int in [2, 40];  n_starts : int in [1, 200]
    tol : float in [1e-13, 1e-3]
        Converged when the chart distance between the point and its k-th return is <= tol.
    max_iter : int in [1, 1000], trust-region steps per start
    primitive : bool
        Skip fixed points of a lower power ``P^d`` (d | k, d < k), so ``k`` is the least period.

    Returns
    -------
    LevelOrbit

    Raises
    ------
    PeriodicOrbitNotFoundError
        No start converged to a fixed point within ``radius`` of the seed.
    InaccessibleError, InvalidStateError
        The seed is not on the section.
    """
    if not isinstance(section, PoincareSection):
        raise TypeError(f"section must be a PoincareSection; got {type(section).__name__}")
    k = _v.integer("k", k, low=1, high=MAX_RETURN_POWER)
    radius = _v.real("radius", radius, exc=InvalidIntegrationError, low=1e-6, high=1.0)
    n_grid = _v.integer("n_grid", n_grid, low=2, high=40)
    n_starts = _v.integer("n_starts", n_starts, low=1, high=200)
    tol = _v.real("tol", tol, exc=InvalidIntegrationError, low=1e-13, high=1e-3)
    max_iter = _v.integer("max_iter", max_iter, low=1, high=1000)
    _search_budget(1 + 2 * n_starts, max_iter, k, n_starts)
    x0 = _chart_seed(section, seed)
    section.state_at(sphere_from_chart(x0[0], x0[1]))  # InaccessibleError off the section
    found: list[tuple[float, NDArray[np.float64], float, int]] = []
    best_res = math.inf
    # the click, then the near-returns of an inner disc (radius / 4), then of the whole disc: a fixed point found
    # in the inner disc ends the search (the nearest points are sought first; k-cycles can lie 0.01 apart)
    for stage, rad in enumerate((0.0, 0.25 * radius, radius)):
        if stage == 0:
            starts = [x0]
        else:
            g = np.linspace(-rad, rad, n_grid)
            gp, gz = np.meshgrid(g, g)
            inside = gp ** 2 + gz ** 2 <= rad * rad
            pts = np.stack([x0[0] + gp[inside], np.clip(x0[1] + gz[inside], -1.0 + 1e-9, 1.0 - 1e-9)], -1)
            r = _near_returns(section, pts, k)
            starts = [pts[j] for j in np.argsort(r, kind="stable") if np.isfinite(r[j])][:n_starts]
        for s in starts:
            try:
                x, res, it = _lm_solve(section, s, k, tol, max_iter, min(radius, max(0.5 * rad, 0.01)))
            except PeriodicOrbitNotFoundError as e:
                best_res = min(best_res, e.residual)
                continue
            except _OFF:
                continue
            d = math.hypot(math.remainder(x[0] - x0[0], TWO_PI), x[1] - x0[1])
            if d > radius or any(math.hypot(math.remainder(x[0] - f[1][0], TWO_PI), x[1] - f[1][1]) < SAME_POINT
                                 for f in found):
                continue
            if primitive and not _primitive(section, x, k):
                continue
            found.append((d, x, res, it))
        if stage == 1 and any(f[0] <= 0.25 * radius for f in found):
            break
    if not found:
        raise PeriodicOrbitNotFoundError(
            f"no fixed point of the {k}-th return map within {radius:g} of phi = {x0[0]:.6f}, z = {x0[1]:.6f} "
            f"from {1 + 2 * n_starts} starts at most (best residual {best_res:.3g}); click closer to an island centre or try "
            f"another k", best_res)
    d, x, res, it = min(found, key=lambda f: f[0])
    return level_orbit(section, float(x[0]), float(x[1]), k, residual=res, iterations=it)


def _search_budget(starts: int, max_iter: int, k: int, n_starts: int) -> None:
    """Refuse an orbit search of more than ``BOUNDS["orbit_search"]`` return-map solves (each a few k-th returns):
    ``starts`` starts (from ``n_starts``) x ``max_iter`` iterations x ``k``."""
    b = BOUNDS["orbit_search"]
    if starts * max_iter * k > b.high:
        raise InvalidIntegrationError(
            f"n_starts = {n_starts} ({starts} starts), max_iter = {max_iter} and k = {k} ask for up to "
            f"{starts * max_iter * k} return-map solves ({b.why}); an orbit search makes at most {int(b.high)}: "
            f"reduce n_starts or max_iter")


def find_periodic_orbits(section: PoincareSection, k: int = 1, *, n_seeds: int = 400, n_starts: int = 40,
                         tol: float = 1e-10, max_iter: int = 60, primitive: bool = True) -> list[LevelOrbit]:
    """The fixed points of ``P^k`` found from the ``n_starts`` best near-returns of ``n_seeds`` seeds spread over
    the accessible region (:meth:`PoincareSection.fill_seeds`), each once (one point of each k-cycle is listed
    per start that reached it; the points of a cycle are distinct fixed points of ``P^k``).  At most
    ``BOUNDS["orbit_search"]`` (1e6) solves: ``n_starts * max_iter * k`` above it is refused before any work."""
    if not isinstance(section, PoincareSection):
        raise TypeError(f"section must be a PoincareSection; got {type(section).__name__}")
    k = _v.integer("k", k, low=1, high=MAX_RETURN_POWER)
    n_seeds = _v.integer("n_seeds", n_seeds, low=1, high=20_000)
    n_starts = _v.integer("n_starts", n_starts, low=1, high=20_000)
    tol = _v.real("tol", tol, exc=InvalidIntegrationError, low=1e-13, high=1e-3)
    max_iter = _v.integer("max_iter", max_iter, low=1, high=1000)
    _search_budget(n_starts, max_iter, k, n_starts)
    Y = section.fill_seeds(n_seeds)
    pts = np.stack(chart_from_sphere(Y[:, 0:3]), -1)
    r = _near_returns(section, pts, k)
    order = [j for j in np.argsort(r, kind="stable") if np.isfinite(r[j])][:n_starts]
    out: list[LevelOrbit] = []
    for j in order:
        try:
            x, res, it = _lm_solve(section, pts[j], k, tol, max_iter, 0.05)
        except (PeriodicOrbitNotFoundError, *_OFF):
            continue
        if any(math.hypot(math.remainder(x[0] - o.phi, TWO_PI), x[1] - o.z) < SAME_POINT for o in out):
            continue
        if primitive and not _primitive(section, x, k):
            continue
        out.append(level_orbit(section, float(x[0]), float(x[1]), k, residual=res, iterations=it))
    return out
