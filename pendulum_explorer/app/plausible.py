"""The dashboard's plausibility bounds for a body (the library accepts any valid body; a class needs sensible
ones): checks that raise a ValueError naming the input and its range.  No widgets (tested without them); the Body
tab and links use them."""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..bodies import Pendulum
from ..bounds import BOUNDS
from ..errors import BalancedPendulumError, InaccessibleError
from .i18n import N_, _
from .i18n import number as num

#: plausibility bounds of the dashboard (the library accepts any valid body; a class needs sensible ones)
DIM_RANGE = BOUNDS["dim"].range(plausible=True)                # m, every dimension of a custom shape
MASS_RANGE = BOUNDS["m"].range(plausible=True)                 # kg
PIVOT_MAX = BOUNDS["pivot"].range(plausible=True)[1]           # m, |pivot offset| of a custom shape
RHO_RANGE = BOUNDS["rho_norm"].range(plausible=True)           # m, |rho|: below 0.1 mm the body is (nearly) balanced
J_RANGE = BOUNDS["principal_moment"].range(plausible=True)     # kg m², principal moments
G_RANGE = BOUNDS["g"].range(plausible=True)                    # m/s² (the Sun's surface: 274)
G_MAX = G_RANGE[1]
#: why a balanced body (rho = 0) is refused
BALANCED = N_("ρ = 0 (the pivot is at the centre of mass): this dashboard needs a body whose centre of mass "
              "differs from the pivot")


def check_range(name: str, value: float, lo: float, hi: float, unit: str, why: str = "") -> None:
    """ValueError naming ``name``, its value and the range ``lo … hi`` when ``value`` lies outside it."""
    if not (lo <= value <= hi):
        raise ValueError(_("{name} = {value} {unit} is outside the dashboard's range {lo} … {hi} {unit}").format(
            name=_(name), value=num(value), unit=unit, lo=num(lo), hi=num(hi)) + (f" ({_(why)})" if why else ""))


def check_plausible_shape(dims: Sequence[float], m: float, pivot: Sequence[float]) -> None:
    """ValueError (naming the input and its range) for a custom shape a class cannot use: dimensions outside
    5 mm … 100 m (a 1e9 m box vanishes from every picture), a mass outside 1 g … 10 t, a pivot > 100 m away."""
    for d in dims:
        check_range(N_("a dimension"), float(d), *DIM_RANGE, "m")
    check_range(N_("the mass"), float(m), *MASS_RANGE, "kg")
    off = float(np.linalg.norm(np.asarray(pivot, float)))
    check_range(N_("the pivot's distance from the centre"), off, 0.0, PIVOT_MAX, "m")


def check_plausible_pendulum(pend: Pendulum) -> None:
    """ValueError for a (J, rho, m, g) outside the dashboard's ranges: |rho| below 0.1 mm (a nearly balanced body:
    1e-12 m would be shown as 0 and oscillate with periods of days) or above 100 m, principal moments outside
    1e-6 … 1e6 kg m², a mass outside 1 g … 10 t, g above 300 m/s²."""
    r = float(np.linalg.norm(pend.rho))
    if r == 0.0:
        raise BalancedPendulumError(_(BALANCED))
    check_range("|ρ|", r, *RHO_RANGE, "m", N_("the distance from the pivot to the centre of mass; below 0.1 mm the "
                                            "body is nearly balanced"))
    for x in pend.principal_moments:
        check_range(N_("a principal moment of J"), float(x), *J_RANGE, "kg m²")
    check_range(N_("the mass"), float(pend.m), *MASS_RANGE, "kg")
    check_range("g", float(pend.g), *G_RANGE, "m/s²")
    check_rigid_body(pend)


def check_rigid_body(pend: Pendulum) -> None:
    """ValueError unless some rigid body of mass m with its centre of mass at rho has the inertia J about the
    pivot: the inertia about the centre of mass, ``J - m (|rho|^2 I - rho rho^T)`` (parallel axes), must have
    principal moments >= 0, each at most the sum of the other two.  (J = I, m = 10 kg, |rho| = 1 m gives
    (-9, -9, 1) kg m²: the page drew it as a sphere, "the ellipsoid with the same inertia".)"""
    J, rho, m = np.asarray(pend.J, float), np.asarray(pend.rho, float), float(pend.m)
    lam = np.linalg.eigvalsh(J - m * (rho @ rho * np.eye(3) - np.outer(rho, rho)))
    tol = 1e-9 * float(np.abs(lam).max())
    if lam.min() >= -tol and 2.0 * lam.max() <= lam.sum() + tol:
        return
    moments = ", ".join(num(float(x), ".3g") for x in lam)
    raise ValueError(_("no rigid body of mass {m} kg with its centre of mass {r} m from the pivot has this J: its "
                       "inertia about the centre of mass, J − m(|ρ|²I − ρρᵀ), has principal moments ({moments}) "
                       "kg m², and each must be ≥ 0 and at most the sum of the other two; lower m or |ρ|, or raise "
                       "J").format(m=num(m, ".4g"), r=num(float(np.linalg.norm(rho)), ".4g"), moments=moments))


def level_range(pend: Pendulum) -> tuple[float, float, float]:
    """``(E_low, E_high, mu_high)``: the levels the dashboard offers for a body.  ``E_low = -m g |rho|`` (hanging
    at rest); ``E_high`` and ``mu_high`` those of a spin about the axis of the largest principal moment J1 at the
    dashboard's largest angular rate (``BOUNDS["omega0"]``, 1000 rad/s) with the centre of mass on top:
    ``m g |rho| + J1 w^2 / 2`` and ``J1 w``.  Beyond them a motion turns faster than any the Motion tab shows."""
    w_max = BOUNDS["omega0"].range(plausible=True)[1]
    J1 = float(pend.principal_moments[0])
    mgr = float(pend.mgrho_norm)
    return -mgr, mgr + 0.5 * J1 * w_max * w_max, J1 * w_max


def check_plausible_level(pend: Pendulum, E: float, mu: float) -> None:
    """InaccessibleError naming the level's range when (E, mu) lies beyond :func:`level_range` (E = 1e9 J on a
    body whose section spans a few joules was accepted and computed for a minute)."""
    lo, hi, mu_hi = level_range(pend)
    w_max = BOUNDS["omega0"].range(plausible=True)[1]
    if not hi >= E:
        raise InaccessibleError(_("E = {E} J is beyond this body's range for the dashboard, E ≤ {hi} J (above it "
                                  "the body turns faster than {w} rad/s); the lowest E is {lo} J, hanging at "
                                  "rest").format(
            E=num(E, ".4g"), hi=num(hi, ".4g"), w=num(w_max), lo=num(lo, ".4g")))
    if not abs(mu) <= mu_hi:
        raise InaccessibleError(_("μ = {mu} kg m²/s is beyond this body's range for the dashboard, |μ| ≤ {hi} kg m²/s "
                                  "(a spin faster than {w} rad/s)").format(mu=num(mu, ".4g"), hi=num(mu_hi, ".4g"),
                                                                          w=num(w_max)))
