"""Poincaré sections of the 3D pendulum on an (E, mu) level (paper Sec. 5.6, Fig. 2).

The pieces, each a module of this package:

* :mod:`.level` — :class:`Level` (pendulum, E, mu and their scales), section states, seeds, :func:`mu_bound`, :func:`mu_max`,
  the paper's initial states;
* :mod:`.chart` — the equal-area chart ``(phi, z) = (atan2(Gamma_2, Gamma_1), Gamma_3)`` and its tangent;
* :mod:`.region` — the accessible region ``{V_mu <= E}``, the chart window, seeds spread over the region;
* :mod:`.map` — :class:`PoincareMap` (a level and an integrator): crossings, streams, batches;
* :mod:`.chaos_map` and :mod:`.orbits` — functions over a map: chaos indicators on the chart, the k-th return
  map and its fixed points;
* :mod:`.parallel` — the thread pool and the one submit-wait-cancel loop; :mod:`.cluster` runs its chunks on a
  dask cluster, :func:`warm_workers` readies the cluster's workers;
* :mod:`.facade` — :class:`PoincareSection`, all of it as one object::

    sec, seed = PoincareSection.from_paper_ic(paper_fig2().pendulum, energy=0.0)   # R0 = I, omega0 = c[1,1,1]
    res = sec.crossings(seed, 2000)            # res.Gamma (n x 3), res.omega, res.t, res.status
    b = sec.batch(seeds, 500)                   # parallel (threads), or executor=client.get_executor()
"""
from .chaos_map import MAP_LEVELS, MAX_MAP_TIME, megno_seeds
from .chart import chaos_grid, chart_from_sphere, nearby_window, sphere_from_chart
from .facade import DASHBOARD_METHOD, SECTION_METHODS, PoincareSection
from .level import (LEVEL_RTOL, MAX_CROSSINGS, MAX_GAP_SCALES, MAX_LEVEL, POLE_TOL, UNIT_TOL, Level, default_level,
                    mu_bound, mu_max, paper_initial_state)
from .map import DEFAULT_ATOL, DEFAULT_RTOL, PoincareMap
from .orbits import MAX_RETURN_POWER, periodic_orbit, return_map
from .region import (MAX_GRID, REGION_GRID, accessible_region, chart_region, chart_window, fill_seeds,
                     nearest_admissible)
from .results import (CHAOTIC_LYAPUNOV, CHAOTIC_MEGNO, AccessibleRegion, BatchCrossings, ChaosMap, Crossings,
                      PeriodicOrbit, Seed, SectionState, orbit_kind)
from .workers import warm_workers

__all__ = [
    "PoincareSection", "PoincareMap", "Level", "SectionState", "Crossings", "BatchCrossings", "AccessibleRegion",
    "ChaosMap", "PeriodicOrbit", "chart_from_sphere", "sphere_from_chart", "chaos_grid", "nearby_window",
    "paper_initial_state", "mu_bound", "mu_max", "default_level", "accessible_region", "chart_region", "chart_window",
    "nearest_admissible", "fill_seeds", "return_map", "periodic_orbit", "orbit_kind",
    "DEFAULT_RTOL", "DEFAULT_ATOL", "Seed", "SECTION_METHODS", "DASHBOARD_METHOD", "MAP_LEVELS", "MAX_MAP_TIME", "MAX_RETURN_POWER",
    "MAX_GRID", "REGION_GRID", "MAX_CROSSINGS", "MAX_LEVEL", "MAX_GAP_SCALES", "LEVEL_RTOL", "POLE_TOL", "UNIT_TOL",
    "CHAOTIC_MEGNO", "CHAOTIC_LYAPUNOV", "warm_workers", "megno_seeds",
]
