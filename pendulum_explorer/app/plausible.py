"""The dashboard's plausibility bounds for a body (the library accepts any valid body; a class needs sensible
ones): checks that raise a ValueError naming the input and its range.  No widgets (tested without them); the Body
tab and links use them."""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..bodies import Pendulum
from ..errors import BalancedPendulumError

#: plausibility bounds of the dashboard (the library accepts any valid body; a class needs sensible ones)
DIM_RANGE = (0.005, 100.0)       # m, every dimension of a custom shape
MASS_RANGE = (0.001, 1e4)        # kg
PIVOT_MAX = 100.0                # m, |pivot offset| of a custom shape
RHO_RANGE = (1e-4, 100.0)        # m, |rho|: below 0.1 mm the body is (nearly) balanced
J_RANGE = (1e-6, 1e6)            # kg m², principal moments
G_MAX = 300.0                    # m/s² (the Sun's surface: 274)
#: why a balanced body (rho = 0) is refused
BALANCED = ("ρ = 0 (the pivot is at the centre of mass): this dashboard needs a body whose centre of mass differs "
            "from the pivot")


def check_range(name: str, value: float, lo: float, hi: float, unit: str, why: str = "") -> None:
    """ValueError naming ``name``, its value and the range ``lo … hi`` when ``value`` lies outside it."""
    if not (lo <= value <= hi):
        raise ValueError(f"{name} = {value:g} {unit} is outside the dashboard's range {lo:g} … {hi:g} {unit}"
                         + (f" ({why})" if why else ""))


def check_plausible_shape(dims: Sequence[float], m: float, pivot: Sequence[float]) -> None:
    """ValueError (naming the input and its range) for a custom shape a class cannot use: dimensions outside
    5 mm … 100 m (a 1e9 m box vanishes from every picture), a mass outside 1 g … 10 t, a pivot > 100 m away."""
    for d in dims:
        check_range("a dimension", float(d), *DIM_RANGE, "m")
    check_range("the mass", float(m), *MASS_RANGE, "kg")
    off = float(np.linalg.norm(np.asarray(pivot, float)))
    check_range("the pivot's distance from the centre", off, 0.0, PIVOT_MAX, "m")


def check_plausible_pendulum(pend: Pendulum) -> None:
    """ValueError for a (J, rho, m, g) outside the dashboard's ranges: |rho| below 0.1 mm (a nearly balanced body:
    1e-12 m would be shown as 0 and oscillate with periods of days) or above 100 m, principal moments outside
    1e-6 … 1e6 kg m², a mass outside 1 g … 10 t, g above 300 m/s²."""
    r = float(np.linalg.norm(pend.rho))
    if r == 0.0:
        raise BalancedPendulumError(BALANCED)
    check_range("|ρ|", r, *RHO_RANGE, "m", "the distance from the pivot to the centre of mass; below 0.1 mm the "
                 "body is nearly balanced")
    for x in pend.principal_moments:
        check_range("a principal moment of J", float(x), *J_RANGE, "kg m²")
    check_range("the mass", float(pend.m), *MASS_RANGE, "kg")
    check_range("g", float(pend.g), 1e-3, G_MAX, "m/s²")
