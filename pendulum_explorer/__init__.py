"""Pendulum Explorer: the nonlinear dynamics of the 3D pendulum.

Public API
----------
Pendulum, Body, presets, simulate, Trajectory, simulate_lr (Lagrange-Routh + reconstruction),
geometric_phase, find_equilibria / equilibria_at_mu / energy_momentum_data (Props 9, 20), PoincareSection
(Sec. 5.6; the section as a system: Level, PoincareMap in :mod:`pendulum_explorer.section`), the integrators
DOP853, Taylor, LGVI, the body builders (elliptic_cylinder, box, ellipsoid) and the error classes.

``pendulum_explorer.equilibria`` is the module (``import pendulum_explorer.equilibria as m`` gives it); its main
function ``equilibria.equilibria`` is exported here as :func:`find_equilibria`.
"""
import importlib
from typing import TYPE_CHECKING, Any

from . import errors, geometry, presets
from ._version import __version__
from .bodies import Body, Mesh, Pendulum, box, build_body, ellipsoid, elliptic_cylinder
from .errors import (
    BalancedPendulumError,
    InaccessibleError,
    IntegrationFailedError,
    InvalidIntegrationError,
    InvalidPendulumError,
    InvalidStateError,
    InvariantDriftWarning,
    PendulumError,
)
from .amended import amended_potential
from .reduction import attitude_from_gamma, geometric_phase, lp_from_lr, lr_from_lp, simulate_lr
from .integrators import DOP853, LGVI, Integrator, Taylor
from .trajectory import Trajectory, simulate

if TYPE_CHECKING:
    from . import chaos, equilibria, poincare
    from .chaos import LyapunovResult, MegnoResult, lyapunov_exponent, megno
    from .equilibria import energy_momentum_data, equilibria_at_mu
    from .equilibria import equilibria as find_equilibria
    from . import section
    from .poincare import PoincareSection, chart_from_sphere, paper_initial_state, sphere_from_chart
    from .section import Level, PoincareMap
    from . import orbit_families
    from .orbit_families import (Bifurcation, LevelOrbit, OrbitFamily, continue_periodic_orbit,
                                 continue_periodic_orbit_in_mu, find_periodic_orbit, find_periodic_orbits,
                                 switch_branch)
    from . import manifolds
    from .manifolds import Manifolds, invariant_manifolds
    from .spectrum import LyapunovSpectrum, MapConvergence, chaos_map_convergence, lyapunov_spectrum
    from .invariant_measure import section_density
    from .ensembles import Ensemble, ensemble

#: names of the modules imported on first use (``pendulum_explorer.X``): the dashboard's first view (the Body
#: tab) needs none of them, and its kernel does not import them before the page is drawn
_LAZY = {
    "equilibria": ("equilibria", None), "poincare": ("poincare", None), "chaos": ("chaos", None),
    "section": ("section", None), "PoincareMap": ("section", "PoincareMap"), "Level": ("section", "Level"),
    "find_equilibria": ("equilibria", "equilibria"),
    "energy_momentum_data": ("equilibria", "energy_momentum_data"), "equilibria_at_mu": ("equilibria", "equilibria_at_mu"),
    "LyapunovResult": ("chaos", "LyapunovResult"), "MegnoResult": ("chaos", "MegnoResult"),
    "lyapunov_exponent": ("chaos", "lyapunov_exponent"), "megno": ("chaos", "megno"),
    "PoincareSection": ("poincare", "PoincareSection"), "chart_from_sphere": ("poincare", "chart_from_sphere"),
    "paper_initial_state": ("poincare", "paper_initial_state"), "sphere_from_chart": ("poincare", "sphere_from_chart"),
    "orbit_families": ("orbit_families", None), "find_periodic_orbit": ("orbit_families", "find_periodic_orbit"),
    "find_periodic_orbits": ("orbit_families", "find_periodic_orbits"),
    "continue_periodic_orbit": ("orbit_families", "continue_periodic_orbit"),
    "continue_periodic_orbit_in_mu": ("orbit_families", "continue_periodic_orbit_in_mu"),
    "OrbitFamily": ("orbit_families", "OrbitFamily"), "Bifurcation": ("orbit_families", "Bifurcation"),
    "LevelOrbit": ("orbit_families", "LevelOrbit"), "switch_branch": ("orbit_families", "switch_branch"),
    "manifolds": ("manifolds", None), "invariant_manifolds": ("manifolds", "invariant_manifolds"),
    "Manifolds": ("manifolds", "Manifolds"),
    "lyapunov_spectrum": ("spectrum", "lyapunov_spectrum"), "LyapunovSpectrum": ("spectrum", "LyapunovSpectrum"),
    "section_density": ("invariant_measure", "section_density"),
    "ensemble": ("ensembles", "ensemble"), "Ensemble": ("ensembles", "Ensemble"),
    "chaos_map_convergence": ("spectrum", "chaos_map_convergence"), "MapConvergence": ("spectrum", "MapConvergence"),
}


def __getattr__(name: str) -> Any:
    """The names of :data:`_LAZY`, from their module imported now (PEP 562)."""
    if name not in _LAZY:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    module, attr = _LAZY[name]
    mod = importlib.import_module(f"{__name__}.{module}")
    value = mod if attr is None else getattr(mod, attr)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))


__all__ = [
    "lyapunov_exponent", "LyapunovResult", "megno", "MegnoResult", "equilibria", "find_equilibria", "equilibria_at_mu", "amended_potential", "energy_momentum_data",
    "PoincareSection", "PoincareMap", "Level", "section", "chart_from_sphere", "sphere_from_chart", "paper_initial_state",
    "DOP853", "Taylor", "LGVI", "Integrator", "InvariantDriftWarning",
    "Pendulum", "Body", "Mesh", "presets", "errors", "geometry", "simulate", "simulate_lr", "Trajectory",
    "geometric_phase", "elliptic_cylinder", "box", "ellipsoid", "build_body", "attitude_from_gamma", "lr_from_lp", "lp_from_lr",
    "PendulumError", "InvalidPendulumError", "BalancedPendulumError", "InaccessibleError",
    "InvalidStateError", "InvalidIntegrationError", "IntegrationFailedError",
    "find_periodic_orbit", "find_periodic_orbits", "continue_periodic_orbit", "continue_periodic_orbit_in_mu",
    "OrbitFamily", "Bifurcation", "LevelOrbit", "switch_branch", "invariant_manifolds", "Manifolds",
    "lyapunov_spectrum", "LyapunovSpectrum", "section_density", "chaos_map_convergence",
    "MapConvergence", "ensemble", "Ensemble",
]
