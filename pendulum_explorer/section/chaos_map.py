"""Chaos maps: a chaos indicator (MEGNO or the Lyapunov estimate) over a grid of the section chart, as a
function over a :class:`~.map.PoincareMap` (the tangent dynamics of Eqs 31-32, :mod:`pendulum_explorer.chaos`)."""
from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import CancelledError
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .. import _validate as _v
from .._core import chaos as _kchaos
from .._core.taylor import order_for
from ..integrators import CHUNK_STEPS, taylor_frame, validate_taylor_tol
from ..bounds import BOUNDS
from ..errors import InaccessibleError, IntegrationFailedError, InvalidIntegrationError
from .chart import chaos_grid, sphere_from_chart
from .map import MAX_STREAM_THREADS, PoincareMap, _seed_list
from .parallel import N_THREADS, ExecutorLike, cancel_probe, check_executor, run_chunks
from .region import MAX_GRID, accessible_region
from .results import ChaosMap

MAX_MAP_TIME = BOUNDS["map_time"].high  # s, per chaos-map cell
#: cells of one chaos map (each cell's section state is one row of a (cells x 6) request)
MAX_MAP_CELLS = int(BOUNDS["map_cells"].high)
#: trajectories per call of the lane kernel (``_core.lanes.LANES``; the lane modules are imported at the first map:
#: 33 ms of the dashboard kernel's CPU when the section tab was readied)
LANES = 8
#: lane steps of one piece of the lane kernel (about CHUNK_STEPS single steps): cancel answers between pieces
LANE_PIECE_STEPS = CHUNK_STEPS // LANES
#: a Taylor tangent step (order 15, 8 Gauss nodes) costs about this many DOP853 tangent steps: shorter pieces
TAYLOR_TANGENT_DIVISOR = 4
#: the chart resolutions (n_phi, n_z) of :func:`chaos_maps`: a coarse map first, then refined
MAP_LEVELS = ((16, 12), (40, 28), (80, 56))


def chaos_map(pmap: PoincareMap, resolution: tuple[int, int] = (64, 48), t_total: float = 200.0, *,
              indicator: str = "megno", executor: ExecutorLike | None = None,
              progress: Callable[[int, int], Any] | None = None, cancel: Any = None, n_chunks: int | None = None,
              rtol: float = 1e-9, atol: float = 1e-9, tangent_to_level: bool = False, method: str = "dop853",
              tol: float | None = None) -> ChaosMap:
    """A chaos indicator over a grid of the section chart: MEGNO (or the Lyapunov estimate) of the trajectory
    through the section state at each cell centre, from the tangent dynamics of Eqs (31)-(32) (see
    :mod:`pendulum_explorer.chaos`).
    The tangent dynamics run on DOP853 (8 cells per call in lanes) or on the Taylor method (``method="taylor"``,
    cell by cell: :mod:`._core.taylor_tangent`), whatever the map's own integrator.

    Parameters
    ----------
    pmap : PoincareMap
        The map whose level's chart is mapped.
    resolution : (n_phi, n_z)
        Cells along phi in (-pi, pi) and z = Gamma_3 in (-1, 1), each in [1, MAX_GRID], at most
        ``MAX_MAP_CELLS`` (1e6) in all.
    t_total : float
        Integration time per cell [s], in [1e-9, MAX_MAP_TIME] (1e5 s), the range of :func:`~pendulum_explorer.megno`.
    indicator : {"megno", "lyapunov"}
        What ``values`` holds (both are computed).
    executor : concurrent.futures.Executor or distributed.Client, optional
        Runs chunks of cells with ``submit``; default: the process thread pool of :meth:`batch` (the kernel
        releases the GIL).  A dask ``Client`` (local or remote) runs each chunk as a task on its workers, which
        stop a running chunk when cancelled (:mod:`.cluster`; :func:`.workers.warm_workers` compiles the kernel
        on each worker first).  Results are identical.
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
    method : {"dop853", "taylor"}
        The integrator of the tangent dynamics; ``tol``: the Taylor tolerance in [1e-18, 1e-4] (default 1e-12,
        ``method="taylor"`` only; ``rtol``/``atol`` are DOP853's).

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
    if n_phi * n_z > MAX_MAP_CELLS:
        raise InvalidIntegrationError(f"resolution = ({n_phi}, {n_z}) asks for {n_phi * n_z} cells; a chaos map has at "
                                      f"most {MAX_MAP_CELLS} cells (e.g. 1000 x 1000): reduce the resolution")
    t_total = _check_time(t_total)
    indicator = _v.choice("indicator", indicator, ("megno", "lyapunov"))
    rtol, atol = _v.tolerances(rtol, atol)
    method, tol = _check_method(method, tol)
    _v.result_memory(3.0 * n_phi * n_z, f"a chaos map of {n_phi} x {n_z} cells", "reduce the resolution")
    _v.total_time(n_phi * n_z, t_total, f"a chaos map of {n_phi} x {n_z} cells", "reduce the resolution or t_total")
    check_executor(executor)
    cancel_probe(cancel)
    _v.callback("progress", progress)
    phi, z = chaos_grid(n_phi, n_z)
    PH, Z = np.meshgrid(phi, z)
    Y, ok = pmap.level.states_at(sphere_from_chart(PH, Z).reshape(-1, 3))
    idx = np.nonzero(ok)[0]
    m = idx.size
    if not m:  # an all-NaN map of "0 % chaotic" would be garbage reported as a result
        raise InaccessibleError(_no_cell_message(pmap.level, n_phi, n_z))
    ybar = np.full(n_phi * n_z, np.nan)
    lyap = np.full(n_phi * n_z, np.nan)
    Y0 = np.ascontiguousarray(Y[idx])
    fn, args = _tangent_task(pmap, method, tol, t_total, rtol, atol, _cell_steps(t_total), bool(tangent_to_level))
    parts = run_chunks(executor, fn, Y0, args,
                       n_chunks=n_chunks, cancel=cancel, progress=progress, what="chaos map", unit="cells",
                       stoppable=True,
                       default_chunks=lambda m, own: max(1, m // 24) if own else min(m, 64))
    info = np.zeros((m, 4), dtype=np.int64)
    for a, b, (yb, ly, inf) in parts:
        ybar[idx[a:b]] = yb
        lyap[idx[a:b]] = ly
        info[a:b] = inf
    _raise_for_cells(info, idx, PH, Z, m)
    Yb = ybar.reshape(n_z, n_phi)
    Ly = lyap.reshape(n_z, n_phi)
    return ChaosMap(phi, z, Yb if indicator == "megno" else Ly, indicator, t_total, Yb, Ly)


def _no_cell_message(level: Any, n_phi: int, n_z: int) -> str:
    """Why a chaos map at ``level`` has no cell: the level is empty (E <= min V_mu) or the grid is too coarse."""
    reg = accessible_region(level, 121, 81)
    where = f"at E = {level.energy:.6g} J, mu = {level.mu:.6g} kg m^2/s"
    if reg.empty:
        return (f"no motion {where}: E is at or below the least amended potential min V_mu = "
                f"{reg.energy_min:.6g} J (Eq 76), so the section is empty; raise the energy above it")
    return (f"no cell centre of the {n_phi} x {n_z} grid lies on the section {where} (its accessible area is "
            f"{100 * reg.area_fraction:.2g} % of the sphere); raise the resolution or the energy")


def megno_seeds(pmap: PoincareMap, seeds: Iterable[Any] | NDArray[np.float64], t_total: float = 200.0, *,
                method: str = "taylor", tol: float | None = None, rtol: float = 1e-9, atol: float = 1e-9,
                tangent_to_level: bool = False, threads: int | None = None
                ) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.bool_]]:
    """Mean MEGNO and the Lyapunov estimate at ``t_total`` of many trajectories at once: the tangent dynamics of
    Eqs (31)-(32) of each seed on the map's level, on the lanes a chaos map's cells use (Taylor: 8 seeds per vector
    instruction; DOP853: 8 per call), the seeds spread over ``threads`` threads of the process pool.  Per seed
    the value of the same cell of a chaos map; :func:`pendulum_explorer.chaos.megno` gives one seed's to ~1e-9
    relative on a regular motion (not bit-identical: a different integrator).

    Parameters
    ----------
    pmap : PoincareMap
    seeds : sequence of seeds on the map's level
        As :meth:`PoincareMap.batch` takes them (LP pairs ``(Gamma, omega)``, 6-vectors, section states), each
        checked before any work.
    t_total : float
        Integration time per seed [s], in [1e-9, MAX_MAP_TIME] (1e5 s).
    method, tol, rtol, atol, tangent_to_level
        As :func:`chaos_map` (here the default is the Taylor method, tolerance 1e-12).
    threads : int, optional
        Threads of the pool the seeds are spread over (default: the pool's width), 1 ... 64.

    Returns
    -------
    ybar, lyap : ndarray (m,)
        Mean MEGNO and the Lyapunov estimate [1/s] per seed; NaN where ``ok`` is False.
    ok : ndarray of bool (m,)
        False for a seed whose tangent integration stopped (its step budget, a non-finite state).

    Raises
    ------
    InvalidStateError, InvalidIntegrationError, ShapeError
        Bad seeds, t_total, method or tolerances (before any integration).
    """
    seed_list = _seed_list(seeds)
    t_total = _check_time(t_total)
    rtol, atol = _v.tolerances(rtol, atol)
    method, tol = _check_method(method, tol)
    if not isinstance(tangent_to_level, (bool, np.bool_)):
        raise TypeError(f"tangent_to_level must be True or False; got {tangent_to_level!r}")
    threads = N_THREADS if threads is None else _v.integer("threads", threads, low=1, high=MAX_STREAM_THREADS)
    _v.total_time(len(seed_list), t_total, f"the MEGNO of {len(seed_list)} seeds", "reduce the seeds or t_total")
    Y0 = pmap._check_seeds(seed_list)
    m = Y0.shape[0]
    fn, args = _tangent_task(pmap, method, tol, t_total, rtol, atol, _cell_steps(t_total), bool(tangent_to_level))
    parts = run_chunks(None, fn, Y0, args, n_chunks=None, stoppable=True, what="MEGNO", unit="seeds",
                       default_chunks=lambda m, own: max(1, min(threads, -(-m // LANES))))
    ybar, lyap, ok = np.empty(m), np.empty(m), np.empty(m, dtype=bool)
    for a, b, (yb, ly, inf) in parts:
        ok[a:b] = inf[:, 0] == 0
        ybar[a:b] = np.where(ok[a:b], yb, np.nan)
        lyap[a:b] = np.where(ok[a:b], ly, np.nan)
    return ybar, lyap, ok


def _check_time(t_total: float) -> float:
    """The integration time of a chaos-map cell (or a seed of :func:`megno_seeds`), checked."""
    return _v.real("t_total", t_total, exc=InvalidIntegrationError, low=BOUNDS["map_time"].low, high=MAX_MAP_TIME)


def _cell_steps(t_total: float) -> int:
    """The step budget of one cell's tangent run over ``t_total``."""
    return int(2000 * (t_total + 10.0))


def _check_method(method: str, tol: float | None) -> tuple[str, float | None]:
    """The tangent integrator of a chaos map and its Taylor tolerance (default 1e-12), checked."""
    method = _v.choice("method", method, ("dop853", "taylor"))
    if method == "taylor":
        return method, validate_taylor_tol(1e-12 if tol is None else tol)
    if tol is not None:
        raise InvalidIntegrationError("tol is the Taylor method's tolerance: give it with method='taylor'")
    return method, None


def _tangent_task(pmap: PoincareMap, method: str, tol: float | None, t_total: float, rtol: float, atol: float,
                  max_steps: int, tangent_to_level: bool) -> tuple[Callable[..., Any], tuple[Any, ...]]:
    """The executor task of a chunk of cells and its arguments (DOP853 lanes or the Taylor kernel)."""
    if method == "taylor":
        assert tol is not None
        q, Q = taylor_frame(pmap.level.pendulum)
        return _tangent_chunk_taylor, (pmap.level.p, q, Q, t_total, order_for(tol), max_steps, tangent_to_level)
    return _tangent_chunk, (pmap.level.p, t_total, rtol, atol, max_steps, tangent_to_level)


def _tangent_chunk_taylor(Y0: NDArray[np.float64], p: NDArray[np.float64], q: NDArray[np.float64],
                          Q: NDArray[np.float64], t_total: float, order: int, max_steps: int, tangent_to_level: bool,
                          stop: Any = None) -> tuple[NDArray[Any], ...]:
    """MEGNO and Lyapunov estimate of a chunk of cells with the Taylor method on the Taylor tangent lanes
    (:func:`._core.taylor_lanes_tangent.tangent_lanes_taylor`, ``LANES`` cells per vector instruction, per cell
    the result of the scalar Taylor tangent run to 1e-9 relative on regular cells; an executor task: module
    level, picklable), in pieces of lane steps; ``stop`` is checked between pieces."""
    from .._core import taylor_lanes_tangent as _tlt
    from .._core.taylor_tangent import principal_tangent_params

    Y0 = np.ascontiguousarray(Y0, dtype=float)
    m = Y0.shape[0]
    ybar = np.empty(m)
    lyap = np.empty(m)
    info = np.zeros((m, _kchaos.N_TAN_INFO), dtype=np.int64)
    p, Q = np.asarray(p, dtype=float), np.asarray(Q, dtype=float)
    seeds = np.empty((m, _tlt.DIM_T))
    _tlt.tangent_seeds(Y0, p, Q, bool(tangent_to_level), seeds)
    pp = principal_tangent_params(p, Q)
    state = _tlt.lane_state(order)
    piece = max(1, CHUNK_STEPS // TAYLOR_TANGENT_DIVISOR // _tlt.LANES)
    while _tlt.tangent_lanes_taylor(seeds, q, pp, t_total, order, max_steps, bool(tangent_to_level), ybar, lyap, info,
                                    np.empty((m, _tlt.DIM_T)), *state, piece):
        if stop is not None and stop.is_set():
            raise CancelledError("chaos map stopped")
    return ybar, lyap, info


def _raise_for_cells(info: NDArray[np.int64], idx: NDArray[np.int64], PH: NDArray[np.float64],
                     Z: NDArray[np.float64], m: int) -> None:
    bad = np.nonzero(info[:, 0] != 0)[0]
    if bad.size:
        k0 = idx[bad[0]]
        raise IntegrationFailedError(
            f"the tangent integration stopped in {bad.size} of {m} cells (first at phi = "
            f"{PH.ravel()[k0]:.4f}, z = {Z.ravel()[k0]:.4f}: {_v.Status(int(info[bad[0], 0])).label}); "
            f"try a shorter t_total or looser rtol/atol")


def chaos_maps(pmap: PoincareMap, levels: Iterable[tuple[int, int]] = MAP_LEVELS, t_total: float = 200.0, *,
               progress: Callable[[float, tuple[int, int], int, int], Any] | None = None, cancel: Any = None,
               **kw: Any) -> Iterator[ChaosMap]:
    """:func:`chaos_map` at each resolution of ``levels`` in turn (coarse first, then refined), each map
    yielded as soon as it is done (see :meth:`PoincareSection.chaos_maps`)."""
    levels = list(levels)
    _v.callback("progress", progress)
    is_cancelled = cancel_probe(cancel)
    for i, res in enumerate(levels):
        def step(d: int, m: int, i: int = i, res: tuple[int, int] = res) -> None:
            if progress is not None:
                progress((i + d / max(m, 1)) / len(levels), res, d, m)
        try:
            cm = chaos_map(pmap, res, t_total, progress=step, cancel=cancel, **kw)
        except CancelledError:
            return
        yield cm
        if is_cancelled():
            return


def _tangent_chunk(Y0: NDArray[np.float64], p: NDArray[np.float64], t_total: float, rtol: float, atol: float,
                   max_steps: int, tangent_to_level: bool, stop: Any = None) -> tuple[NDArray[Any], ...]:
    """MEGNO and Lyapunov estimate of a chunk of cells on one thread (an executor task: module level, picklable),
    ``LANES`` (8) cells per step of the lane kernel (:func:`._core.lanes_tangent.tangent_lanes`: per cell the
    results of the scalar tangent run, 1e-12 relative on regular cells), in pieces of ``CHUNK_STEPS / 8`` lane
    steps; when ``stop`` (a threading.Event) is set it stops between pieces (a cancelled map left its threads
    computing whole chunks, which the next batch then waited for)."""
    from .._core import lanes as _lanes
    from .._core import lanes_tangent as _lanes_tangent

    assert _lanes.LANES == LANES
    Y0 = np.ascontiguousarray(Y0, dtype=float)
    m = Y0.shape[0]
    ybar = np.empty((m, 1))
    lyap = np.empty((m, 1))
    info = np.zeros((m, _kchaos.N_TAN_INFO), dtype=np.int64)
    p = np.asarray(p, dtype=float)
    state = _lanes.lane_state(_lanes.DIM_TAN)
    while _lanes_tangent.tangent_lanes(Y0, p, t_total, rtol, atol, max_steps, bool(tangent_to_level), ybar, lyap,
                                       info, *state, LANE_PIECE_STEPS):
        if stop is not None and stop.is_set():
            raise CancelledError("chaos map stopped")
    return ybar[:, 0], lyap[:, 0], info
