"""Families of periodic orbits of the section map and their bifurcations (issue 21, item 1).

* :func:`continue_periodic_orbit`: the family of a fixed point of ``P^k`` as the energy E moves at fixed mu (or
  mu at fixed E, :func:`continue_periodic_orbit_in_mu`), by pseudo-arclength continuation of ``F(x, E) = 0`` in
  ``u = (phi, z, E)``, so a family turns round a fold; bifurcations from the trace of the linearised map
  ``tr DP^k`` (det = 1 on a fixed point): a fold where the family turns in E (there tr = 2), a tangent
  bifurcation where tr = 2 and E does not turn (a pitchfork / transcritical crossing of two families), a period
  doubling where tr = -2; folds and period doublings located in E to 1e-8 or better by Brent's method along the
  family (branch points to ~3e-8: the fixed-point equation is singular along the crossing family there).
* The finder (:func:`find_periodic_orbit`, :func:`find_periodic_orbits`, :class:`LevelOrbit`) is in
  :mod:`.orbit_finder` and re-exported here.

Only :class:`PoincareSection`'s public methods are used (``return_map``, ``state_at``).  :func:`switch_branch`
gives a member of the 2k family born at a period doubling.
"""
from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray
from scipy.optimize import brentq

from . import _validate as _v
from .bodies import Pendulum
from .errors import InvalidIntegrationError, InvalidStateError, PeriodicOrbitNotFoundError
from .orbit_finder import (_OFF, SAME_POINT, TWO_PI, LevelOrbit, _lm_solve, _residual, as_level_orbit,
                           find_periodic_orbit, find_periodic_orbits, level_orbit)
from .poincare import PeriodicOrbit, PoincareSection

Vec = NDArray[np.float64]
#: (u, Jacobian [DP^k - I | dF/dc], DP^k, |F|) of a corrected family member
Corrected = tuple[Vec, Vec, Vec, float]
BIFURCATION_KINDS = ("fold", "tangent", "period-doubling")
__all__ = ["LevelOrbit", "level_orbit", "as_level_orbit", "find_periodic_orbit", "find_periodic_orbits", "Bifurcation",
           "OrbitFamily", "continue_periodic_orbit", "continue_periodic_orbit_in_mu", "BIFURCATION_KINDS",
           "SAME_POINT", "_lm_solve", "switch_branch", "continue_across"]


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
    stop : why the continuation stopped: "reached end", "max_points", "cancelled", "closed loop" (back on its
        earlier members: an isola, or a loop reached through a bifurcation; the last member repeats an earlier one),
        "left the section" (a member next along the family is off the section) or "return map not smooth" (the
        steps shrank below 1e-7 there: typically a grazing crossing, where the k-th return of nearby points jumps to
        another crossing)
    s : (n,) arclength in (phi, z, parameter)
    stopped_because : where and why it stopped, in a sentence; for "return map not smooth" the jump of the k-th
        return located by bisection along the family past the last member (:func:`_diagnose_jump`): where the
        return time drops a crossing of the section has appeared along the orbit (the orbit grazed the section
        there), where it grows one has vanished
    """

    orbits: list[LevelOrbit]
    parameter: str
    bifurcations: list[Bifurcation]
    stop: str
    s: NDArray[np.float64]
    stopped_because: str = ""
    #: at a jump of the return map ("return map not smooth"): (phi, z, parameter) just past it and the k-th return
    #: times (before, after) there; None otherwise
    jump: tuple[float, float, float, float, float] | None = None

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

    def members_at(self, E: float, *, correct: bool = True, tol: float = 1e-10) -> list[LevelOrbit]:
        """The family's members at energy ``E`` (a family continued in E; several where it folds back): on each
        segment between consecutive members whose energies bracket E, the chart point interpolated linearly in E,
        then (``correct``) corrected by trust-region Newton at fixed E (:func:`_lm_solve`, from that point, steps
        of at most 0.02); a point whose correction fails is kept as interpolated (its ``residual`` says how far
        from a fixed point it is).  Empty when E is outside the family's span or the points are off the section."""
        if self.parameter != "E":
            raise ValueError("members_at needs a family continued in E (parameter 'E')")
        E = _v.real("E", E, exc=InvalidStateError, low=-1e100, high=1e100)
        Es, o0 = self.E, self.orbits[0]
        try:
            sec = PoincareSection(o0.pendulum, E, o0.mu)
        except ValueError:
            return []
        out: list[LevelOrbit] = []
        for i in range(len(self.orbits) - 1):
            a, b = self.orbits[i], self.orbits[i + 1]
            if not (min(Es[i], Es[i + 1]) <= E <= max(Es[i], Es[i + 1])) or (out and E == Es[i]):
                continue
            w = 0.0 if Es[i + 1] == Es[i] else (E - Es[i]) / (Es[i + 1] - Es[i])
            x = np.array([a.phi + w * math.remainder(b.phi - a.phi, TWO_PI), a.z + w * (b.z - a.z)])
            x[0] = math.remainder(float(x[0]), TWO_PI)
            res, it = math.inf, 0
            if correct:
                try:
                    x, res, it = _lm_solve(sec, x, a.k, tol, 30, 0.02)
                except (PeriodicOrbitNotFoundError, *_OFF):
                    res = math.inf
            try:
                o = level_orbit(sec, float(x[0]), float(x[1]), a.k, residual=0.0 if res == math.inf else res,
                                iterations=it)
            except _OFF:
                continue
            if not any(math.hypot(math.remainder(o.phi - q.phi, TWO_PI), o.z - q.z) < SAME_POINT for q in out):
                out.append(o)
        return out


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

    def F(self, u: NDArray[np.float64]) -> tuple[Vec, float, Vec]:
        return _residual(self.section(float(u[2])), u[:2], self.k)

    def jac(self, u: NDArray[np.float64]) -> tuple[Vec, Vec, Vec]:
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
             tol: float, max_iter: int = 10) -> Corrected | None:
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


def _locate(prob: _Problem, ua: Vec, ta: Vec, ub: Vec, tb: Vec, target: float,
            tol: float) -> tuple[Vec, Vec, float]:
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


def _hermite(ua: Vec, ta: Vec, ub: Vec, tb: Vec, w: float) -> NDArray[np.float64]:
    """The cubic Hermite curve through ua, ub with tangents ta, tb, at w in [0, 1] (initial guesses)."""
    L = float(np.linalg.norm(ub - ua))
    return ((2 * w ** 3 - 3 * w ** 2 + 1) * ua + (w ** 3 - 2 * w ** 2 + w) * L * ta
            + (-2 * w ** 3 + 3 * w ** 2) * ub + (w ** 3 - w ** 2) * L * tb)


def _fold(prob: _Problem, ua: Vec, ta: Vec, ub: Vec, tb: Vec, tol: float) -> tuple[Vec, Vec, float]:
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


def _bifurcations(prob: _Problem, ua: Vec, ta: Vec, tra: float, ub: Vec, tb: Vec, trb: float,
                  tol: float) -> list[Bifurcation]:
    """The bifurcations between the consecutive members ua, ub: a fold where the tangent's parameter component
    changes sign, else a tangent bifurcation where tr - 2 does; a period doubling where tr + 2 does."""
    out = []
    turn = ta[2] * tb[2] < 0
    events: list[tuple[str, float | None]] = []
    if turn:
        events.append(("fold", None))
    elif (tra - 2) * (trb - 2) < 0:
        events.append(("tangent", 2.0))
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
              progress: Callable[[int, float], object] | None,
              cancel: Callable[[], bool] | None = None) -> OrbitFamily:
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
        if cancel is not None and cancel():
            stop = "cancelled"
            break
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
    jump = None
    if stop == "return map not smooth":
        why, jump = _diagnose_jump(prob, u, t)
    else:
        why = _why(prob, u, t, stop, end, max_points)
    return OrbitFamily(orbits, parameter, bifs, stop, np.array(s), why, jump)


def _where(prob: _Problem, u: Vec) -> str:
    return f"{prob.parameter} = {float(u[2]):.10g}, (phi, Gamma_3) = ({float(u[0]):.6f}, {float(u[1]):.6f})"


def _why(prob: _Problem, u: Vec, t: Vec, stop: str, end: float, max_points: int) -> str:
    """The sentence of OrbitFamily.stopped_because for the stops other than a jump of the map."""
    at = _where(prob, u)
    return {"reached end": f"reached {prob.parameter} = {end:.10g}",
            "max_points": f"max_points = {max_points} members computed; the last at {at}",
            "cancelled": f"cancelled; the last member at {at}",
            "closed loop": f"back on its earlier members at {at} (a closed loop)",
            "left the section": f"at {at} the next member along the family is off the section (the accessible "
                                f"region's boundary, or no {prob.k}-th return)"}.get(stop, stop)


def _diagnose_jump(prob: _Problem, u: Vec, t: Vec) -> tuple[str, tuple[float, float, float, float, float] | None]:
    """Why the steps shrank to nothing at the member u (tangent t): the k-th return time T along u + h t for
    h = 1e-8 ... 1e-2; a jump of T (more than 10 % of it) is located by bisection in h to 1e-12 and named: T
    drops (a crossing appeared: the orbit grazed the section) or grows (a crossing vanished)."""
    _F, T0, _M = prob.F(u)
    prev_h, prev_T = 0.0, T0
    for h in 10.0 ** np.arange(-8, -1.5, 0.5):
        try:
            T = prob.F(u + h * t)[1]
        except _OFF:
            return (f"at {_where(prob, u)} the {prob.k}-th return map stops being defined within {h:.1g} along "
                    f"the family (a point there has no {prob.k}-th return)"), None
        if abs(T - prev_T) > 0.1 * abs(prev_T):
            break
        prev_h, prev_T = h, T
    else:
        return (f"at {_where(prob, u)} the steps shrank below 1e-7 without a jump of the {prob.k}-th return time "
                f"within 1e-2 along the family (a sharp turn or a singular point of the map)"), None
    lo, hi, T_hi = prev_h, h, T
    while hi - lo > 1e-12:
        mid = 0.5 * (lo + hi)
        try:
            Tm = prob.F(u + mid * t)[1]
        except _OFF:
            hi = mid
            continue
        if abs(Tm - prev_T) > 0.1 * abs(prev_T):
            hi, T_hi = mid, Tm
        else:
            lo, prev_T = mid, Tm
    x = u + hi * t
    what = (f"a new crossing of the section appears along the orbit (it grazes the section there; past it the "
            f"periodic orbit is a fixed point of a higher power than P^{prob.k})" if T_hi < prev_T
            else "a crossing of the section along the orbit vanishes (it grazes the section there)")
    return (f"the {prob.k}-th return map jumps at {_where(prob, x)}: the return time goes from {prev_T:.6g} s to "
            f"{T_hi:.6g} s: {what}"), (float(x[0]), float(x[1]), float(x[2]), float(prev_T), float(T_hi))


def continue_across(family: OrbitFamily, end: float, *, max_k: int = 8, **kw: object) -> OrbitFamily:
    """The family on the other side of the jump ``family`` stopped at (``family.jump``: a crossing of the section
    appeared along the orbit), continued towards ``end``: the same periodic orbit of the flow, now a fixed point
    of a higher power ``P^k'`` (the k' whose k'-th return time equals the period before the jump, to 1e-3), found
    by :func:`find_periodic_orbit` within 0.02 of the jump at 1e-6 past it, then :func:`continue_periodic_orbit`
    (or ``_in_mu``) with ``kw``.

    Raises
    ------
    ValueError
        The family did not stop at a jump where a crossing appeared.
    PeriodicOrbitNotFoundError
        No fixed point of ``P^k'``, k' <= max_k, with that period past the jump.
    """
    if family.jump is None or family.jump[4] >= family.jump[3]:
        raise ValueError("family did not stop where a crossing appeared (family.jump is None or its return time "
                         "grew): there is nothing to continue across")
    phi, z, c, T_before, _T_after = family.jump
    last = family.orbits[-1]
    c_past = c + 1e-6 * math.copysign(1.0, c - (last.E if family.parameter == "E" else last.mu))
    E, mu = (c_past, last.mu) if family.parameter == "E" else (last.E, c_past)
    sec = PoincareSection(last.pendulum, E, mu)
    for k2 in range(last.k + 1, max_k + 1):
        try:
            o = find_periodic_orbit(sec, (phi, z), k2, radius=0.02, n_grid=5, n_starts=4)
        except (PeriodicOrbitNotFoundError, *_OFF):
            continue
        if abs(o.period - T_before) <= 1e-3 * T_before:
            if family.parameter == "E":
                return continue_periodic_orbit(o, end, **kw)  # type: ignore[arg-type]
            return continue_periodic_orbit_in_mu(o, end, **kw)  # type: ignore[arg-type]
    raise PeriodicOrbitNotFoundError(f"no fixed point of P^k', k' in {last.k + 1}...{max_k}, with period "
                                     f"{T_before:.6g} s just past the jump at {family.parameter} = {c:.10g}", math.inf)


def _revisits(us: list[Vec], ts: list[Vec], u: Vec, t: Vec) -> bool:
    """True when u lies within 1e-4 of a segment between earlier consecutive members (all but the last five),
    going the same way (tangent within 25 degrees), after a way of more than 1e-2 from there: the family is a
    closed loop from there on."""
    if len(us) < 8:
        return False
    A, B = np.array(us[:-6]), np.array(us[1:-5])
    D = B - A
    w = np.clip(np.einsum("ij,ij->i", D, u - A) / np.maximum(np.einsum("ij,ij->i", D, D), 1e-300), 0.0, 1.0)
    d = np.linalg.norm(A + w[:, None] * D - u, axis=1)
    j = int(np.argmin(d))
    # a loop went away and came back: the way from member j to u is long (a family crawling in tiny steps, as
    # one nearing a pole does, has its last members within 1e-4 of each other without closing)
    way = float(np.sum(np.linalg.norm(np.diff(np.array(us[j:] + [u]), axis=0), axis=1)))
    return bool(d[j] < 1e-4 and float(np.array(ts[j]) @ t) > 0.9 and way > 1e-2)


def _leaves(prob: _Problem, u: Vec, t: Vec, ds: float) -> bool:
    try:
        prob.F(u + 1e-3 * t)
    except _OFF:
        return True
    return False


def _check_family_args(orbit: PeriodicOrbit, section: PoincareSection | None, end: float, name: str,
                       max_step: float, max_points: int, tol: float,
                       progress: object = None) -> tuple[LevelOrbit, float, float, int, float]:
    _v.callback("progress", progress)
    orbit = as_level_orbit(orbit, section)
    end = _v.real(name, end, exc=InvalidStateError, low=-1e100, high=1e100)
    max_step = _v.real("max_step", max_step, exc=InvalidIntegrationError, low=1e-6, high=1.0)
    max_points = _v.integer("max_points", max_points, low=2, high=100_000)
    tol = _v.real("tol", tol, exc=InvalidIntegrationError, low=1e-13, high=1e-6)
    return orbit, end, max_step, max_points, tol


def continue_periodic_orbit(orbit: PeriodicOrbit, E_end: float, *, mu: float | None = None,
                            section: PoincareSection | None = None, max_step: float = 0.05,
                            max_points: int = 2000, tol: float = 1e-10,
                            progress: Callable[[int, float], object] | None = None,
                            cancel: Callable[[], bool] | None = None) -> OrbitFamily:
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
    cancel : callable () -> bool, optional, asked before each step: True stops the continuation (``stop`` is
        "cancelled"; the members so far are kept)

    Returns
    -------
    OrbitFamily (``stop`` says whether it reached E_end, left the section or ran out of points)
    """
    orbit, E_end, max_step, max_points, tol = _check_family_args(orbit, section, E_end, "E_end", max_step,
                                                                 max_points, tol, progress)
    if mu is not None:
        mu = _v.real("mu", mu, low=-1e100, high=1e100)
        if mu != orbit.mu:
            fam = _continue(orbit, "mu", mu, max_step, max_points, tol, None)
            if fam.stop != "reached end":
                raise PeriodicOrbitNotFoundError(
                    f"the orbit's family at E = {orbit.E:.6g} J does not reach mu = {mu:.6g} kg m^2/s (it stops at "
                    f"mu = {fam.orbits[-1].mu:.6g} kg m^2/s: {fam.stop})", fam.orbits[-1].residual)
            orbit = fam.orbits[-1]
    _v.callback("cancel", cancel)
    return _continue(orbit, "E", E_end, max_step, max_points, tol, progress, cancel)


def continue_periodic_orbit_in_mu(orbit: PeriodicOrbit, mu_end: float, *, section: PoincareSection | None = None,
                                  max_step: float = 0.05, max_points: int = 2000, tol: float = 1e-10,
                                  progress: Callable[[int, float], object] | None = None) -> OrbitFamily:
    """:func:`continue_periodic_orbit` in the momentum mu at the orbit's fixed energy (towards ``mu_end``)."""
    orbit, mu_end, max_step, max_points, tol = _check_family_args(orbit, section, mu_end, "mu_end", max_step,
                                                                  max_points, tol, progress)
    return _continue(orbit, "mu", mu_end, max_step, max_points, tol, progress)


def switch_branch(bifurcation: Bifurcation, *, delta: float = 1e-3, tol: float = 1e-10) -> LevelOrbit:
    """A member of the period-2k family born at the period doubling ``bifurcation``: a fixed point of
    ``P^{2k}`` (least period 2k) at ``E = E_pd +- delta`` (the side where it exists), found by trust-region
    Levenberg-Marquardt from the doubling orbit displaced along the eigenvector of the multiplier -1 (by
    0.3 sqrt(delta) ... 30 sqrt(delta): the new orbit's distance grows like sqrt(|E - E_pd|)).  Continue it with
    :func:`continue_periodic_orbit`.

    Raises
    ------
    ValueError
        ``bifurcation`` is not a period doubling.
    PeriodicOrbitNotFoundError
        No period-2k orbit was found on either side.
    """
    if not isinstance(bifurcation, Bifurcation) or bifurcation.kind != "period-doubling":
        raise ValueError("bifurcation must be a Bifurcation of kind 'period-doubling' (OrbitFamily.bifurcations)")
    delta = _v.real("delta", delta, exc=InvalidIntegrationError, low=1e-8, high=1.0)
    o = bifurcation.orbit
    ev, V = np.linalg.eig(o.jacobian)
    v = np.real(V[:, int(np.argmin(np.abs(ev + 1.0)))])
    v /= np.linalg.norm(v)
    x0 = np.array([o.phi, o.z])
    k2 = 2 * o.k
    for side in (1.0, -1.0):
        try:
            sec = PoincareSection(o.pendulum, o.E + side * delta, o.mu)
        except ValueError:
            continue
        for c in (0.3, 1.0, 3.0, 10.0, 30.0):
            eps = min(c * math.sqrt(delta), 0.2)
            for sg in (1.0, -1.0):
                try:
                    x, res, it = _lm_solve(sec, x0 + sg * eps * v, k2, tol, 60, 0.5 * eps)
                except (PeriodicOrbitNotFoundError, *_OFF):
                    continue
                d = math.hypot(math.remainder(x[0] - x0[0], TWO_PI), x[1] - x0[1])
                if d < 1e-5 or d > 0.5:
                    continue
                try:
                    F1 = _residual(sec, x, o.k)[0]
                except _OFF:
                    continue
                if float(np.linalg.norm(F1)) > 1e-6:  # not a fixed point of P^k: the doubled orbit
                    return level_orbit(sec, float(x[0]), float(x[1]), k2, residual=res, iterations=it)
    raise PeriodicOrbitNotFoundError(
        f"no period-{k2} orbit found within E = {o.E:.10g} +- {delta:g} J near the period doubling", math.inf)
