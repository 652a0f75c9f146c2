"""The one table of bounds: every bounded quantity of the library, the dashboard, its links and session files.

Each :class:`Bound` holds the range the library accepts (``low`` … ``high``: outside it a request cannot be
computed or its work is not bounded) and the narrower range the dashboard offers a class (``class_low`` …
``class_high``: its controls, its links and the session files it loads), with the unit and the words of the
message.  The API validators (:mod:`._validate`, the section and integrator modules), the dashboard's
plausibility checks (:mod:`.app.plausible`), the link parser (:mod:`.app.links`) and the session loader
(:mod:`.session`) all read their limits here, so a bound is written once.

    >>> from pendulum_explorer.bounds import BOUNDS
    >>> BOUNDS["omega0"].check(5.0, plausible=True)
    5.0
"""
from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from typing import Any

from ._words import N_, Number, _, number
from .errors import InvalidStateError, PendulumError


@dataclass(frozen=True)
class Bound:
    """The range of one quantity.

    Attributes
    ----------
    name : the quantity (the key in :data:`BOUNDS`; the argument name in messages)
    label : how messages name it (e.g. ``"ω₀ component"``)
    unit : its unit ("" for counts)
    low, high : what the library accepts (closed range)
    class_low, class_high : what the dashboard, its links and session files accept (within low … high)
    integer : whether the quantity is a whole number
    why : why the range is what it is (appended to messages)
    """

    name: str
    label: str
    unit: str
    low: float
    high: float
    class_low: float | None = None
    class_high: float | None = None
    integer: bool = False
    why: str = ""

    def range(self, plausible: bool = False) -> tuple[float, float]:
        """``(low, high)``, or the dashboard's range with ``plausible``."""
        if plausible:
            lo = self.low if self.class_low is None else self.class_low
            hi = self.high if self.class_high is None else self.class_high
            return lo, hi
        return self.low, self.high

    def text(self, plausible: bool = False) -> str:
        """The range as messages write it: ``"0.1 … 200 s"`` (``"0,1 … 200 s"`` on a German page)."""
        lo, hi = self.range(plausible)
        unit = f" {self.unit}" if self.unit else ""
        return f"{number(lo)} … {number(hi)}{unit}"

    def check(self, value: Any, *, plausible: bool = False, name: str | None = None,
              exc: type[PendulumError] = InvalidStateError) -> float:
        """``value`` as a float (an int for an integer quantity) if it is a real number in the range; otherwise
        ``exc`` (a ValueError) naming the quantity, the value and the range."""
        # the words in the page's language where the dashboard shows them (``_words``; English elsewhere)
        who, rng = name or _(self.label), self.text(plausible)
        if isinstance(value, bool) or not isinstance(value, numbers.Real):
            raise exc(_("{who} must be a number in {range}; got {value}").format(who=who, range=rng,
                                                                                value=repr(value)))
        try:
            x = float(value)
        except OverflowError:
            raise exc(_("{who} = {value} is outside {range}").format(who=who, value=repr(value), range=rng)) from None
        lo, hi = self.range(plausible)
        if not (math.isfinite(x) and lo <= x <= hi):
            why = f" ({_(self.why)})" if self.why else ""
            raise exc(_("{who} = {value:g}{unit} is outside {range}").format(
                who=who, value=Number(x), unit=" " + self.unit if self.unit else "", range=rng) + why)
        if self.integer:
            if x != math.floor(x):
                raise exc(_("{who} must be a whole number in {range}; got {value}").format(who=who, range=rng,
                                                                                          value=repr(value)))
            return int(x)
        return x


def _b(*args: Any, **kw: Any) -> tuple[str, Bound]:
    b = Bound(*args, **kw)
    return b.name, b


#: every bounded quantity, by name (its words marked for the dashboard's catalogs, translated where a message says
#: them: :meth:`Bound.check`)
BOUNDS: dict[str, Bound] = dict([
    # --- states and levels
    _b("omega0", N_("ω₀ component"), "rad/s", -1e100, 1e100, -1e3, 1e3,
       why=N_("faster motions cannot be shown truthfully in a class")),
    _b("E", "E", "J", -1e100, 1e100, -1e6, 1e6),
    _b("mu", "μ", "kg m²/s", -1e100, 1e100, -1e6, 1e6),
    _b("phi", "φ", "rad", -math.inf, math.inf, -math.pi - 1e-5, math.pi + 1e-5),
    _b("Gamma3", "Γ₃", "", -1.0, 1.0),
    _b("tilt", N_("the tilt"), "rad", 0.0, math.pi, 1e-6, 0.5),
    _b("release_angle", N_("the release angle θ"), "°", -180.0, 180.0,
       why=N_("a tilt about an axis, from the hanging attitude; its sign turns the other way round")),
    _b("damping", N_("the damping c"), "N m s", 0.0, 1e6, 0.0, 100.0,
       why=N_("a viscous torque -c ω at the pivot (outside the paper's model); c = 0 is the paper's pendulum")),
    # --- the body
    _b("J", N_("an entry of J"), "kg m²", -math.inf, math.inf, -1e6, 1e6),
    _b("principal_moment", N_("a principal moment of J"), "kg m²", 0.0, math.inf, 1e-6, 1e6),
    _b("rho", N_("a component of ρ"), "m", -math.inf, math.inf, -1e3, 1e3),
    _b("rho_norm", "|ρ|", "m", 0.0, math.inf, 1e-4, 100.0,
       why=N_("the distance from the pivot to the centre of mass; below 0.1 mm the body is nearly balanced")),
    _b("m", N_("the mass"), "kg", 0.0, math.inf, 1e-3, 1e4),
    _b("g", "g", "m/s²", 0.0, math.inf, 1e-3, 300.0, why=N_("the Sun's surface has 274")),
    _b("dim", N_("a dimension"), "m", 0.0, math.inf, 0.005, 100.0),
    _b("pivot", N_("the pivot's distance from the centre"), "m", 0.0, math.inf, 0.0, 100.0),
    # --- integration
    _b("t_final", N_("the duration"), "s", 1e-9, math.inf, 0.1, 200.0),
    _b("rtol", "rtol", "", 1e-15, 1e-3),
    _b("atol", "atol", "", 1e-18, 1e-3),
    _b("taylor_tol", "tol", "", 1e-18, 1e-4),
    _b("max_steps", "max_steps", "", 1, 50_000_000, integer=True),
    _b("n_out", "n_out", "", 2, 5_000_000, integer=True),
    _b("ensemble_size", N_("trajectories of an ensemble"), "", 1, 10_000_000, integer=True),
    _b("integrated_time", "the motion one call integrates in all", "s", 0.0, 1e9,
       why="trajectories x their duration; 1e9 s is hours of a two-core machine: split the work into calls"),
    _b("unit_tol", N_("the unit-vector tolerance"), "", 0.0, 1e-6),
    _b("report_unit_tol", N_("|Γ| − 1 of a reported state"), "", 0.0, 1e-3),
    # --- sections
    _b("n_crossings", N_("crossings per trajectory"), "", 1, 1_000_000, 100, 5000, integer=True),
    _b("session_crossings", N_("crossings per trajectory of a session"), "", 1, 1_000_000, 1, 5000, integer=True),
    _b("n_fill", N_("fill seeds"), "", 1, 20_000, 2, 60, integer=True),
    _b("launches", N_("trajectories"), "", 1, 20_000, 1, 1000, integer=True),
    _b("launch_link", N_("launch points of a link"), "", 0, 20, integer=True),
    _b("grid", N_("grid points per side"), "", 1, 20_000, integer=True),
    _b("map_time", N_("chaos-map T"), "s", 1e-9, 1e5, 20.0, 1000.0),
    _b("map_cells", N_("chaos-map cells"), "", 1, 1_000_000, 1, 160_000, integer=True),
    _b("k", "k", "", 1, 64, 1, 8, integer=True),
    _b("orbits", N_("periodic orbits"), "", 0, 10**6, 0, 100, integer=True),
    _b("orbit_search", "the return-map solves of an orbit search", "", 1, 1_000_000, integer=True,
       why="n_starts x max_iter x k"),
    # --- memory
    _b("result_bytes", N_("the result's memory"), "bytes", 0, 2 ** 30, integer=True),
    _b("session_chars", N_("the session file"), "characters", 0, 64 * 2 ** 20, integer=True),
])


def bound(name: str) -> Bound:
    """The :class:`Bound` of ``name`` (KeyError naming the known ones otherwise)."""
    try:
        return BOUNDS[name]
    except KeyError:
        raise KeyError(f"no bound named {name!r}; known: {', '.join(sorted(BOUNDS))}") from None


__all__ = ["Bound", "BOUNDS", "bound"]
