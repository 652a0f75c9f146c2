"""Periodic orbits of the section map on their level and in families (issue 21, item 1).

* :func:`find_periodic_orbit`: a fixed point of the k-th return map ``P^k`` of a :class:`PoincareSection` near a
  chart point, robust where Newton from the click fails: Levenberg-Marquardt steps inside a trust region on the
  residual ``F(x) = P^k(x) - x`` (chart coordinates, phi taken modulo 2 pi), started from the click and from the
  near-returns of ``P^k`` on a small grid around it (the grid points with the smallest ``|F|``); of the fixed
  points found, the one nearest the click.
* :func:`find_periodic_orbits`: every fixed point found from the near-returns over the whole accessible region.
* :func:`continue_periodic_orbit`: the family of a fixed point as the energy E moves at fixed mu (or mu at fixed
  E, :func:`continue_periodic_orbit_in_mu`), by pseudo-arclength continuation of ``F(x, E) = 0`` in
  ``u = (phi, z, E)``, so a family turns round a fold; bifurcations from the trace of the linearised map
  ``tr DP^k`` (det = 1 on a fixed point): ``tr = 2`` a fold (E turns) or a tangent bifurcation (E does not turn:
  a pitchfork / transcritical crossing of two families), ``tr = -2`` a period doubling, each located in E to
  1e-8 or better by Brent's method along the family.
* :func:`switch_branch`: at a period doubling, a fixed point of ``P^{2k}`` on the new family.

Only :class:`PoincareSection`'s public methods are used (``return_map``, ``state_at``, ``fill_seeds``,
``batch``).
"""
from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.optimize import brentq

from . import _validate as _v
from ._core.fields import energy_lp, mu_lp
from .bodies import Pendulum
from .errors import (InaccessibleError, IntegrationFailedError, InvalidIntegrationError, InvalidStateError,
                     PendulumError, PeriodicOrbitNotFoundError, ShapeError)
from .poincare import (MAX_RETURN_POWER, PeriodicOrbit, PoincareSection, SectionState, chart_from_sphere,
                       orbit_kind, sphere_from_chart)

_OFF = (InaccessibleError, InvalidStateError, IntegrationFailedError)
TWO_PI = 2.0 * math.pi
#: fixed points closer than this on the chart are the same
SAME_POINT = 1e-6
BIFURCATION_KINDS = ("fold", "tangent", "period-doubling")


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
def _residual(sec: PoincareSection, x: NDArray[np.float64], k: int):
    phi1, z1, T, M = sec.return_map(float(x[0]), float(x[1]), k)
    return np.array([math.remainder(phi1 - x[0], TWO_PI), z1 - x[1]]), T, M


def _lm_step(J: NDArray[np.float64], F: NDArray[np.float64], radius: float) -> NDArray[np.float64]:
    """The Levenberg-Marquardt step ``-(J^T J + lam I)^-1 J^T F`` with the smallest lam >= 0 whose length is at
    most ``radius`` (the trust-region subproblem; the Newton step when it fits)."""
    try:
        dx = np.linalg.solve(J, -F)
        if np.all(np.isfinite(dx)) and float(np.linalg.norm(dx)) <= radius:
            return dx
    except np.linalg.LinAlgError:
        pass
    sv, V = np.linalg.eigh(J.T @ J)
    gv = V.T @ (J.T @ F)
    sv = np.maximum(sv, 0.0)

    def step(lam):
        with np.errstate(divide="ignore", invalid="ignore"):
            return -(V @ np.where(sv + lam > 0, gv / (sv + lam), 0.0))

    def excess(loglam):
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
    if isinstance(seed, SectionState):
        return np.array(chart_from_sphere(seed.Gamma), dtype=float)
    a = np.asarray(seed, dtype=float)
    if a.shape == (2,):
        x = a.copy()
    elif a.shape == (3,):
        x = np.array(chart_from_sphere(_v.unit_vector("seed", a)), dtype=float)
    else:
        raise ShapeError(f"seed must be chart coordinates (phi, z), a Gamma (3,) or a SectionState; got shape "
                         f"{a.shape}")
    if not np.all(np.isfinite(x)) or abs(x[1]) > 1.0:
        raise InvalidStateError(f"seed chart coordinates must be finite with |z| <= 1; got {x.tolist()}")
    return x


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

    Levenberg-Marquardt in a trust region (:func:`_lm_solve`) from the seed itself and from the ``n_starts``
    near-returns of ``P^k`` (smallest ``|P^k(x) - x|``) on an ``n_grid`` x ``n_grid`` grid over the disc of
    ``radius`` around it; returns the fixed point nearest the seed, within ``radius`` of it.

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
    x0 = _chart_seed(section, seed)
    section.state_at(sphere_from_chart(x0[0], x0[1]))  # InaccessibleError off the section
    g = np.linspace(-radius, radius, n_grid)
    gp, gz = np.meshgrid(g, g)
    inside = gp ** 2 + gz ** 2 <= radius * radius
    pts = np.stack([x0[0] + gp[inside], np.clip(x0[1] + gz[inside], -1.0 + 1e-9, 1.0 - 1e-9)], -1)
    r = _near_returns(section, pts, k)
    order = [j for j in np.argsort(r, kind="stable") if np.isfinite(r[j])][:n_starts]
    starts = [x0] + [pts[j] for j in order]
    found: list[tuple[float, NDArray[np.float64], float, int]] = []
    best_res = math.inf
    for s in starts:
        try:
            x, res, it = _lm_solve(section, s, k, tol, max_iter, min(radius, 0.5 * radius + 0.02))
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
        if d < 0.25 * radius and len(found) >= 1 and s is x0:
            break  # the click converged to a nearby point: no need to search the grid
    if not found:
        raise PeriodicOrbitNotFoundError(
            f"no fixed point of the {k}-th return map within {radius:g} of phi = {x0[0]:.6f}, z = {x0[1]:.6f} "
            f"from {len(starts)} starts (best residual {best_res:.3g}); click closer to an island centre or try "
            f"another k", best_res)
    d, x, res, it = min(found, key=lambda f: f[0])
    return level_orbit(section, float(x[0]), float(x[1]), k, residual=res, iterations=it)


def find_periodic_orbits(section: PoincareSection, k: int = 1, *, n_seeds: int = 400, n_starts: int = 40,
                         tol: float = 1e-10, max_iter: int = 60, primitive: bool = True) -> list[LevelOrbit]:
    """The fixed points of ``P^k`` found from the ``n_starts`` best near-returns of ``n_seeds`` seeds spread over
    the accessible region (:meth:`PoincareSection.fill_seeds`), each once (one point of each k-cycle is listed
    per start that reached it; the points of a cycle are distinct fixed points of ``P^k``)."""
    if not isinstance(section, PoincareSection):
        raise TypeError(f"section must be a PoincareSection; got {type(section).__name__}")
    k = _v.integer("k", k, low=1, high=MAX_RETURN_POWER)
    n_seeds = _v.integer("n_seeds", n_seeds, low=1, high=20_000)
    n_starts = _v.integer("n_starts", n_starts, low=1, high=20_000)
    tol = _v.real("tol", tol, exc=InvalidIntegrationError, low=1e-13, high=1e-3)
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


# ------------------------------------------------------------------------------------------------
# families: pseudo-arclength continuation in E (fixed mu) or mu (fixed E)
# ------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Bifurcation:
    """A bifurcation of a family: ``kind`` in :data:`BIFURCATION_KINDS` ("fold": tr DP^k = 2 where the family
    turns in the parameter; "tangent": tr = 2 where it does not (another family crosses it: pitchfork or
    transcritical); "period-doubling": tr = -2), at energy ``E`` and momentum ``mu``; ``orbit`` the family's
    member there (its trace is +-2 to ~1e-9); ``bracket`` the parameter interval it was located in."""

    E: float
    mu: float
    kind: str
    orbit: LevelOrbit
    bracket: tuple[float, float]


@dataclass(frozen=True)
class OrbitFamily:
    """A family of fixed points of ``P^k`` (:func:`continue_periodic_orbit`).

    Attributes
    ----------
    orbits : list of LevelOrbit, in order along the family (arclength ``s``)
    parameter : "E" (at fixed mu) or "mu" (at fixed E)
    bifurcations : list of Bifurcation, in order along the family
    stop : why the continuation stopped: "reached end", "max_points", "closed loop" (back on its earlier members:
        an isola, or a loop reached through a bifurcation; the last member repeats an earlier one), "left the section" (a member next along the
        family is off the section) or "return map not smooth" (the steps shrank below 1e-7 there: typically a
        grazing crossing, where the k-th return of nearby points jumps to another crossing)
    s : (n,) arclength in (phi, z, parameter)
    """

    orbits: list[LevelOrbit]
    parameter: str
    bifurcations: list[Bifurcation]
    stop: str
    s: NDArray[np.float64]

    @property
    def E(self) -> NDArray[np.float64]:
        return np.array([o.E for o in self.orbits])

    @property
    def mu(self) -> NDArray[np.float64]:
        return np.array([o.mu for o in self.orbits])

    @property
    def phi(self) -> NDArray[np.float64]:
        return np.array([o.phi for o in self.orbits])

    @property
    def z(self) -> NDArray[np.float64]:
        return np.array([o.z for o in self.orbits])

    @property
    def trace(self) -> NDArray[np.float64]:
        return np.array([o.trace for o in self.orbits])

    @property
    def kinds(self) -> list[str]:
        return [o.kind for o in self.orbits]

    def __len__(self) -> int:
        return len(self.orbits)


class _Problem:
    """``F(u) = P^k(x) - x`` with u = (phi, z, c), c = E (mu fixed) or mu (E fixed); sections cached by level."""

    def __init__(self, pendulum: Pendulum, k: int, parameter: str, fixed: float) -> None:
        self.pendulum, self.k, self.parameter, self.fixed = pendulum, k, parameter, fixed
        self._cache: dict[float, PoincareSection] = {}

    def section(self, c: float) -> PoincareSection:
        sec = self._cache.get(c)
        if sec is None:
            E, mu = (c, self.fixed) if self.parameter == "E" else (self.fixed, c)
            if len(self._cache) > 64:
                self._cache.clear()
            sec = self._cache[c] = PoincareSection(self.pendulum, E, mu)
        return sec

    def F(self, u: NDArray[np.float64]):
        return _residual(self.section(float(u[2])), u[:2], self.k)

    def jac(self, u: NDArray[np.float64]):
        """F(u), the 2 x 3 Jacobian [DP^k - I | dF/dc] (dF/dc by central differences) and DP^k."""
        F, T, M = self.F(u)
        h = 1e-6 * max(1.0, abs(float(u[2])))
        Fp = self.F(u + [0.0, 0.0, h])[0]
        Fm = self.F(u - [0.0, 0.0, h])[0]
        return F, np.column_stack([M - np.eye(2), (Fp - Fm) / (2 * h)]), M

    def orbit(self, u: NDArray[np.float64], res: float) -> LevelOrbit:
        return level_orbit(self.section(float(u[2])), float(u[0]), float(u[1]), self.k, residual=res)


def _tangent(J: NDArray[np.float64], prev: NDArray[np.float64]) -> NDArray[np.float64]:
    t = np.cross(J[0], J[1])
    t /= np.linalg.norm(t)
    return t if float(t @ prev) >= 0 else -t


def _correct(prob: _Problem, u0: NDArray[np.float64], n: NDArray[np.float64], a: NDArray[np.float64],
             tol: float, max_iter: int = 10):
    """Newton on ``F(u) = 0, n . (u - a) = 0`` from u0: returns (u, J, M, |F|) or None."""
    u = u0.copy()
    for _ in range(max_iter):
        try:
            F, J, M = prob.jac(u)
        except _OFF:
            return None
        res = float(np.linalg.norm(F))
        G = np.concatenate([F, [float(n @ (u - a))]])
        if res <= tol and abs(G[2]) <= 1e-12:
            return u, J, M, res
        try:
            du = np.linalg.solve(np.vstack([J, n]), -G)
        except np.linalg.LinAlgError:
            return None
        if not np.all(np.isfinite(du)) or float(np.linalg.norm(du)) > 0.5:
            return None
        u = u + du
        u[0] = math.remainder(u[0], TWO_PI)
    try:
        F, J, M = prob.jac(u)
    except _OFF:
        return None
    res = float(np.linalg.norm(F))
    return (u, J, M, res) if res <= tol else None


def _locate(prob: _Problem, ua, ta, ub, tb, target: float, tol: float):
    """The member of the family between ``ua`` and ``ub`` where tr DP^k = target, by Brent's method: on the
    parameter c itself (each member by Newton at fixed c from the chord) where the family does not turn, on the
    offset along ``ta`` (members on the planes normal to ta) at a fold.  Returns (u, M, |F|)."""
    memo: dict[float, tuple] = {}
    fold = ta[2] * tb[2] <= 0
    e3 = np.array([0.0, 0.0, 1.0])

    def g(x):
        if fold:
            r = _correct(prob, _hermite(ua, ta, ub, tb, x / b), ta, ua + x * ta, tol, 40)
        else:
            guess = _hermite(ua, ta, ub, tb, (x - ua[2]) / (ub[2] - ua[2]))
            guess[2] = x
            r = _correct(prob, guess, e3, guess, tol, 40)
        if r is None:
            raise PeriodicOrbitNotFoundError("corrector failed while locating a bifurcation", math.inf)
        memo[x] = r
        return float(np.trace(r[2])) - target

    a, b = (0.0, float(ta @ (ub - ua))) if fold else (float(ua[2]), float(ub[2]))
    x = brentq(g, a, b, xtol=1e-11 if fold else 1e-10 * max(1.0, abs(a)), rtol=1e-15, maxiter=200)
    if x not in memo:
        g(x)
    r = memo[x]
    return r[0], r[2], r[3]


def _hermite(ua, ta, ub, tb, w: float) -> NDArray[np.float64]:
    """The cubic Hermite curve through ua, ub with tangents ta, tb, at w in [0, 1] (initial guesses)."""
    L = float(np.linalg.norm(ub - ua))
    return ((2 * w ** 3 - 3 * w ** 2 + 1) * ua + (w ** 3 - 2 * w ** 2 + w) * L * ta
            + (-2 * w ** 3 + 3 * w ** 2) * ub + (w ** 3 - w ** 2) * L * tb)


def _fold(prob: _Problem, ua, ta, ub, tb, tol):
    """The turning point of the family between ``ua`` and ``ub`` (the parameter component of the tangent
    vanishes; there DP^k has the multiplier 1), by Brent's method on the offset along ``ta``."""
    memo: dict[float, tuple] = {}

    L = float(ta @ (ub - ua))

    def g(x):
        r = _correct(prob, _hermite(ua, ta, ub, tb, x / L), ta, ua + x * ta, tol, 40)
        if r is None:
            raise PeriodicOrbitNotFoundError("corrector failed while locating a fold", math.inf)
        memo[x] = r
        return float(_tangent(r[1], ta)[2])

    x = brentq(g, 0.0, L, xtol=1e-12, rtol=1e-15, maxiter=200)
    if x not in memo:
        g(x)
    r = memo[x]
    return r[0], r[2], r[3]


def _bifurcations(prob: _Problem, ua, ta, tra, ub, tb, trb, tol) -> list[Bifurcation]:
    """The bifurcations between the consecutive members ua, ub: a fold where the tangent's parameter component
    changes sign, else a tangent bifurcation where tr - 2 does; a period doubling where tr + 2 does."""
    out = []
    turn = ta[2] * tb[2] < 0
    events = [("fold", None)] if turn else ([("tangent", 2.0)] if (tra - 2) * (trb - 2) < 0 else [])
    if (tra + 2) * (trb + 2) < 0:
        events.append(("period-doubling", -2.0))
    for kind, target in events:
        try:
            if target is None:
                u, M, res = _fold(prob, ua, ta, ub, tb, tol)
            else:
                u, M, res = _locate(prob, ua, ta, ub, tb, target, tol)
        except (PeriodicOrbitNotFoundError, ValueError):
            continue
        if abs(float(np.trace(M)) - (2.0 if target is None else target)) > 1e-5:
            continue  # not a bifurcation: the family jumped (e.g. at a grazing crossing)
        o = prob.orbit(u, res)
        out.append(Bifurcation(o.E, o.mu, kind, o, (min(ua[2], ub[2]), max(ua[2], ub[2]))))
    return out


def _continue(orbit: LevelOrbit, parameter: str, end: float, max_step: float, max_points: int, tol: float,
              progress: Callable[[int, float], object] | None) -> OrbitFamily:
    c0 = orbit.E if parameter == "E" else orbit.mu
    prob = _Problem(orbit.pendulum, orbit.k, parameter, orbit.mu if parameter == "E" else orbit.E)
    u = np.array([orbit.phi, orbit.z, c0])
    r = _correct(prob, u, np.array([0.0, 0.0, 1.0]), u, tol)
    if r is None:
        raise PeriodicOrbitNotFoundError("the orbit is not a fixed point of its return map to tol "
                                         f"{tol:g} (residual {orbit.residual:.3g})", orbit.residual)
    u, J, M, res = r
    t = _tangent(J, np.array([0.0, 0.0, 1.0 if end >= c0 else -1.0]))
    us, ts = [u.copy()], [t.copy()]
    orbits, s, bifs = [prob.orbit(u, res)], [0.0], []
    ds, stop = min(max_step, 0.01), "max_points"
    while len(orbits) < max_points:
        if ds < 1e-7:
            stop = "step too small"
            break
        pred = u + ds * t
        r = _correct(prob, pred, t, pred, tol)
        if r is None:
            ds *= 0.5
            continue
        un, Jn, Mn, resn = r
        tn = _tangent(Jn, t)
        if float(np.linalg.norm(un - pred)) > 0.3 * ds or float(tn @ t) < math.cos(math.radians(20.0)):
            ds *= 0.5  # the step jumped across a sharp turn or to another family
            continue
        crossed = (un[2] - end) * (u[2] - end) <= 0 and un[2] != u[2]
        if crossed:  # the last point: exactly at the end value
            a = np.array([0.0, 0.0, end])
            w = (end - u[2]) / (un[2] - u[2])
            r2 = _correct(prob, u + w * (un - u), np.array([0.0, 0.0, 1.0]), a, tol)
            if r2 is not None:
                un, Jn, Mn, resn = r2
                tn = _tangent(Jn, t)
        bifs += _bifurcations(prob, u, t, float(np.trace(M)), un, tn, float(np.trace(Mn)), tol)
        s.append(s[-1] + float(np.linalg.norm(un - u)))
        u, t, M = un, tn, Mn
        orbits.append(prob.orbit(u, resn))
        if progress is not None:
            progress(len(orbits), float(u[2]))
        if crossed:
            stop = "reached end"
            break
        us.append(u.copy())
        ts.append(t.copy())
        if _revisits(us, ts, u, t):
            stop = "closed loop"  # an isola: the family came back to its first member
            break
        ds = min(max_step, 1.5 * ds)
    else:
        stop = "max_points"
    if stop == "step too small":
        stop = "left the section" if _leaves(prob, u, t, ds) else "return map not smooth"
    return OrbitFamily(orbits, parameter, bifs, stop, np.array(s))


def _revisits(us: list, ts: list, u, t) -> bool:
    """True when u lies within 1e-4 of a segment between earlier consecutive members (all but the last five),
    going the same way (tangent within 25 degrees): the family is a closed loop from there on."""
    if len(us) < 8:
        return False
    A, B = np.array(us[:-6]), np.array(us[1:-5])
    D = B - A
    w = np.clip(np.einsum("ij,ij->i", D, u - A) / np.maximum(np.einsum("ij,ij->i", D, D), 1e-300), 0.0, 1.0)
    d = np.linalg.norm(A + w[:, None] * D - u, axis=1)
    j = int(np.argmin(d))
    return bool(d[j] < 1e-4 and float(np.array(ts[j]) @ t) > 0.9)


def _leaves(prob: _Problem, u, t, ds) -> bool:
    try:
        prob.F(u + 1e-3 * t)
    except _OFF:
        return True
    return False


def _check_family_args(orbit, section, end, name, max_step, max_points, tol):
    orbit = as_level_orbit(orbit, section)
    end = _v.real(name, end, exc=InvalidStateError, low=-1e100, high=1e100)
    max_step = _v.real("max_step", max_step, exc=InvalidIntegrationError, low=1e-6, high=1.0)
    max_points = _v.integer("max_points", max_points, low=2, high=100_000)
    tol = _v.real("tol", tol, exc=InvalidIntegrationError, low=1e-13, high=1e-6)
    return orbit, end, max_step, max_points, tol


def continue_periodic_orbit(orbit: PeriodicOrbit, E_end: float, *, mu: float | None = None,
                            section: PoincareSection | None = None, max_step: float = 0.05,
                            max_points: int = 2000, tol: float = 1e-10,
                            progress: Callable[[int, float], object] | None = None) -> OrbitFamily:
    """The family of the periodic orbit ``orbit`` as the energy goes from the orbit's E towards ``E_end`` at
    fixed mu: pseudo-arclength continuation of ``P^k(x; E) = x`` in (phi, z, E) (steps of chart-and-energy
    arclength at most ``max_step``; a fold is gone round, so the family may come back in E), with its
    bifurcations located to 1e-8 in E (see the module docstring).

    Parameters
    ----------
    orbit : LevelOrbit (from :func:`find_periodic_orbit`) or a PeriodicOrbit with its ``section``
    E_end : float, where to stop (the last orbit is at E_end exactly when the family gets there)
    mu : float, optional
        The momentum of the family; default the orbit's.  Another mu first carries the orbit there at its E
        (:func:`continue_periodic_orbit_in_mu`).
    max_step : float in [1e-6, 1];  max_points : int in [2, 100000];  tol : float in [1e-13, 1e-6]
    progress : callable (n_orbits, E), optional, called after each new member

    Returns
    -------
    OrbitFamily (``stop`` says whether it reached E_end, left the section or ran out of points)
    """
    orbit, E_end, max_step, max_points, tol = _check_family_args(orbit, section, E_end, "E_end", max_step,
                                                                 max_points, tol)
    if mu is not None:
        mu = _v.real("mu", mu, low=-1e100, high=1e100)
        if mu != orbit.mu:
            fam = _continue(orbit, "mu", mu, max_step, max_points, tol, None)
            if fam.stop != "reached end":
                raise PeriodicOrbitNotFoundError(
                    f"the orbit's family at E = {orbit.E:.6g} does not reach mu = {mu:.6g} (it stops at mu = "
                    f"{fam.orbits[-1].mu:.6g}: {fam.stop})", fam.orbits[-1].residual)
            orbit = fam.orbits[-1]
    return _continue(orbit, "E", E_end, max_step, max_points, tol, progress)


def continue_periodic_orbit_in_mu(orbit: PeriodicOrbit, mu_end: float, *, section: PoincareSection | None = None,
                                  max_step: float = 0.05, max_points: int = 2000, tol: float = 1e-10,
                                  progress: Callable[[int, float], object] | None = None) -> OrbitFamily:
    """:func:`continue_periodic_orbit` in the momentum mu at the orbit's fixed energy (towards ``mu_end``)."""
    orbit, mu_end, max_step, max_points, tol = _check_family_args(orbit, section, mu_end, "mu_end", max_step,
                                                                  max_points, tol)
    return _continue(orbit, "mu", mu_end, max_step, max_points, tol, progress)
