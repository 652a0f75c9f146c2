"""The data of the energy–momentum diagram: every relative equilibrium in the (mu, E) plane with its stability."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from ..bodies import Pendulum
from .families import equilibria
from .records import F64, EquilibriumSet


@dataclass(frozen=True)
class EnergyMomentumCurve:
    """One family and branch in the (mu, E) plane (arrays along the family)."""

    label: str
    kind: str
    branch: int
    mu: F64
    energy: F64
    stability: NDArray[np.object_]
    alpha: F64


@dataclass(frozen=True)
class EnergyMomentumPoint:
    """An isolated point (hanging, inverted, Eq 38) in the (mu, E) plane."""

    label: str
    branch: int
    mu: float
    energy: float
    stability: str


@dataclass(frozen=True)
class EnergyMomentumData:
    """What :func:`energy_momentum_data` returns.

    Attributes
    ----------
    curves : list of EnergyMomentumCurve
        One per family and branch, in the order of ``EquilibriumSet.families``.
    points : list of EnergyMomentumPoint
        Hanging, inverted and the two (38) points, in the order of ``EquilibriumSet.isolated``.
    mgrho : float
        ``m g |rho|``, the natural energy scale.
    """

    curves: list[EnergyMomentumCurve]
    points: list[EnergyMomentumPoint]
    mgrho: float


def energy_momentum_data(eq: EquilibriumSet | Pendulum) -> EnergyMomentumData:
    """The energy–momentum diagram: every relative equilibrium in the (mu, E) plane with its stability.

    Parameters
    ----------
    eq : EquilibriumSet or Pendulum

    Returns
    -------
    EnergyMomentumData
        ``curves`` (label, kind, branch, mu, energy, stability, alpha per family and branch), ``points``
        (label, branch, mu, energy, stability for hanging, inverted, (38)) and ``mgrho``.
    """
    if isinstance(eq, Pendulum):
        eq = equilibria(eq)
    if not isinstance(eq, EquilibriumSet):
        raise TypeError(f"eq must be an EquilibriumSet or a Pendulum; got {type(eq).__name__}")
    curves = [EnergyMomentumCurve(f.label, f.kind, f.branch, f.mu.copy(), f.energy.copy(), f.stability.copy(),
                                  f.alpha.copy()) for f in eq.families]
    points = [EnergyMomentumPoint(p.family, p.branch, p.mu, p.energy, p.stability) for p in eq.isolated]
    return EnergyMomentumData(curves, points, eq.pendulum.mgrho_norm)


__all__ = ["energy_momentum_data", "EnergyMomentumData", "EnergyMomentumCurve", "EnergyMomentumPoint"]
