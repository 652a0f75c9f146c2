"""The Poincaré map of a level as a discrete-time system: seeds in, their crossings with the section out.

``PoincareMap(level, integrator)`` integrates the Lagrange-Poincaré model (Eqs 31-32) with event location on
``g = e3^T (Gamma x omega)`` (see :mod:`pendulum_explorer._core.section` and :mod:`._core.taylor`); every
returned crossing has ``|e3^T Gammadot| <= 1e-12`` (typically 1e-16).
"""
from __future__ import annotations

import time
import warnings
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .. import _validate as _v
from .._core import fields as _f
from .._core import section as _sec
from ..errors import IntegrationFailedError, InvariantDriftWarning, PendulumError, ShapeError
from ..integrators import CONSERVATION_RTOL, DOP853, CrossingRunner, Integrator
from .chart import sphere_from_chart
from .level import LEVEL_RTOL, MAX_CROSSINGS, Level
from .parallel import N_THREADS, ExecutorLike, check_executor, run_chunks, thread_pool
from .results import BatchCrossings, Crossings, Seed

DEFAULT_RTOL = 1e-11
#: seeds of one batch (checked one by one before any is integrated)
MAX_SEEDS = 100_000
DEFAULT_ATOL = 1e-11
#: lane groups a stream_batch runs side by side at most
MAX_STREAM_THREADS = 64


class PoincareMap:
    """The return map of ``level``'s section computed with ``integrator`` (:class:`~..integrators.DOP853` or
    :class:`~..integrators.Taylor`).

    ``tangent`` is the DOP853 that integrates the variational equations (return-map Jacobians, chaos
    indicators): the integrator itself when it is a DOP853, else ``DOP853(1e-11, 1e-11)``.
    """

    def __init__(self, level: Level, integrator: Integrator | None = None, *, tangent: DOP853 | None = None) -> None:
        self.level = level
        self.integrator: Integrator = DOP853(DEFAULT_RTOL, DEFAULT_ATOL) if integrator is None else integrator
        self.runner: CrossingRunner = self.integrator.crossing_runner(level.pendulum, level.p)
        if tangent is None:
            tangent = self.integrator if isinstance(self.integrator, DOP853) else DOP853(DEFAULT_RTOL, DEFAULT_ATOL)
        self.tangent: DOP853 = tangent

    def crossings(self, seed: Seed, n: int = 1000, *, t_max: float | None = None, max_gap: float | None = None,
                  max_steps: int | None = None) -> Crossings:
        """The next ``n`` crossings of the trajectory through ``seed`` (see :meth:`PoincareSection.crossings`)."""
        y0 = self.level.check_seed(seed)
        return self.crossings_from(y0, n, t_max=t_max, max_gap=max_gap, max_steps=max_steps)

    def crossings_from(self, y0: NDArray[np.float64], n: int, *, t_max: float | None = None,
                       max_gap: float | None = None, max_steps: int | None = None) -> Crossings:
        """:meth:`crossings` from a checked LP state ``y0`` (6,)."""
        n, t_max, max_gap, max_steps = self.level.limits(n, t_max, max_gap, max_steps)
        fn, args = self.runner.task(n, t_max, max_gap, max_steps)
        G, W, D, T, info = fn(y0[None, :], *args)
        k = int(self.runner.found(info[0]))
        stats: dict[str, Any] = dict(self.runner.stats(info[0]))
        self._project(G[0], W[0], D[0], k, stats)
        return Crossings(G[0, :k], W[0, :k], D[0, :k], T[0, :k], self.runner.status(info[0]), n, stats)

    def stream(self, seed: Seed, n: int, chunk: int = 400, *, first: int | None = None,
               seconds: float | None = None) -> Iterator[Crossings]:
        """The next ``n`` crossings yielded in chunks as they are computed (see :meth:`PoincareSection.stream`)."""
        cur = self.level.check_seed(seed)
        n = _v.integer("n", n, low=1, high=MAX_CROSSINGS)
        chunk = _v.integer("chunk", chunk, low=1, high=MAX_CROSSINGS)
        size = chunk if first is None else _v.integer("first", first, low=1, high=MAX_CROSSINGS)
        seconds = None if seconds is None else _v.positive("seconds", seconds)
        # one seed is a group of one: the scalar kernel, the same chunks and re-seeding as a batch's
        return (out[0] for _, out in self._stream_batch(cur[None, :], n, chunk, size, seconds, [np.arange(1)], 1))

    def stream_batch(self, seeds: Iterable[Seed] | NDArray[np.float64], n: int, chunk: int = 400, *,
                     first: int | None = None, seconds: float | None = None, threads: int | None = None
                     ) -> Iterator[tuple[NDArray[np.int64], list[Crossings]]]:
        """The next ``n`` crossings of many trajectories, yielded in chunks as they are computed.

        The seeds (as :meth:`batch` takes them, all checked before any is integrated) go in groups of the
        integrator's lanes (:attr:`CrossingRunner.many_width`: 4 or 8 for Taylor, 1 for DOP853); ``threads``
        groups (default one per usable core) run side by side on the process's thread pool, each chunk of a
        group one kernel call.  Yields ``(rows, chunks)`` after each such call (or calls side by side): the
        indices of the seeds it advanced and a :class:`Crossings` of the new crossings of each (times from its
        seed), as :meth:`stream` yields for one seed, and re-seeded the same way after each chunk.  A trajectory whose chunk is short
        (``status != "ok"``) leaves its group.  Each trajectory equals its :meth:`stream` to ~1e-12 relative on
        regular orbits (the lanes are not bit-identical to the scalar kernel; with DOP853 they are the same
        kernel).  ``first``, ``seconds``: as :meth:`stream`, per group.  Closing the generator stops the work
        after the chunks being computed.
        """
        n = _v.integer("n", n, low=1, high=MAX_CROSSINGS)
        chunk = _v.integer("chunk", chunk, low=1, high=MAX_CROSSINGS)
        size = chunk if first is None else _v.integer("first", first, low=1, high=MAX_CROSSINGS)
        seconds = None if seconds is None else _v.positive("seconds", seconds)
        threads = N_THREADS if threads is None else _v.integer("threads", threads, low=1, high=MAX_STREAM_THREADS)
        Y0 = self._check_seeds(_seed_list(seeds))
        width = self.runner.many_width if self.runner.many is not None else 1
        groups = [np.arange(g0, min(g0 + width, Y0.shape[0])) for g0 in range(0, Y0.shape[0], width)]
        return self._stream_batch(Y0, n, chunk, size, seconds, groups, threads)

    def _stream_batch(self, Y0: NDArray[np.float64], n: int, chunk: int, first: int, seconds: float | None,
                      groups: list[NDArray[np.int64]], threads: int
                      ) -> Iterator[tuple[NDArray[np.int64], list[Crossings]]]:
        for w0 in range(0, len(groups), threads):  # a wave of groups side by side, then the next
            wave = [_Group(rows, Y0[rows].copy(), np.zeros(rows.size), 0, first) for rows in groups[w0:w0 + threads]]
            while live := [g for g in wave if g.rows.size and g.done < n]:
                ks = [min(g.size, n - g.done) for g in live]
                tic = time.perf_counter()
                if len(live) == 1:
                    outs = [self._chunk(live[0].Y, ks[0])]
                else:
                    futures = [thread_pool().submit(self._chunk, g.Y, k) for g, k in zip(live, ks)]
                    outs = [f.result() for f in futures]
                elapsed = time.perf_counter() - tic
                for g, out in zip(live, outs):
                    for j, res in enumerate(out):
                        if res.n_found:
                            res.t = res.t + g.t_off[j]
                            g.t_off[j] = float(res.t[-1])
                # one yield for the groups computed side by side: a caller that stops after it loses no work
                yield np.concatenate([g.rows for g in live]), [res for out in outs for res in out]
                for g, k, out in zip(live, ks, outs):
                    g.done += k
                    keep = np.array([res.complete for res in out], dtype=bool)
                    g.rows, g.t_off = g.rows[keep], g.t_off[keep]
                    g.Y = np.array([self._reseed(res) for res, ok in zip(out, keep) if ok]).reshape(-1, 6)
                    g.size = _next_size(chunk, seconds, k, elapsed)

    def _chunk(self, Y: NDArray[np.float64], k: int) -> list[Crossings]:
        """The next ``k`` crossings of each checked LP state (m, 6), in one kernel call (the lanes if m > 1)."""
        k, t_max, max_gap, max_steps = self.level.limits(k, None, None, None)
        fn, args = self.runner.task(k, t_max, max_gap, max_steps, many=Y.shape[0] > 1)
        G, W, D, T, info = fn(np.ascontiguousarray(Y), *args)
        out = []
        for j in range(Y.shape[0]):
            c = int(self.runner.found(info[j]))
            stats: dict[str, Any] = dict(self.runner.stats(info[j]))
            self._project(G[j], W[j], D[j], c, stats)
            out.append(Crossings(G[j, :c], W[j, :c], D[j, :c], T[j, :c], self.runner.status(info[j]), k, stats))
        return out

    def _reseed(self, res: Crossings) -> NDArray[np.float64]:
        """The LP state to continue from after a chunk: the section state over its last crossing (projected back
        onto the exact level), or the integrated state at the boundary of the region or at a pole."""
        G_last = res.Gamma[-1] / np.linalg.norm(res.Gamma[-1])
        try:
            return np.concatenate(self.level.state_at(G_last).lp_state)
        except PendulumError:
            return np.concatenate([G_last, res.omega[-1]])

    def click(self, phi: float, z: float, n: int = 1000, **kw: Any) -> Crossings:
        """The trajectory through the section point at chart coordinates (phi, z)."""
        phi, z = _v.real("phi", phi), _v.real("z", z, low=-1.0, high=1.0)
        try:
            y0 = self.level.seed_lp_state(sphere_from_chart(phi, z))
        except PendulumError as e:  # say which input the section point came from
            raise type(e)(f"(phi, z) = ({phi:.6g}, {z:.6g}): {e}") from None
        return self.crossings(y0, n, **kw)

    def batch(self, seeds: Iterable[Seed] | NDArray[np.float64], n: int = 500, *, executor: ExecutorLike | None = None,
              n_chunks: int | None = None, t_max: float | None = None, max_gap: float | None = None,
              max_steps: int | None = None) -> BatchCrossings:
        """Crossings of many trajectories (see :meth:`PoincareSection.batch`)."""
        seed_list = _seed_list(seeds)
        n, t_max, max_gap, max_steps = self.level.limits(n, t_max, max_gap, max_steps)
        _v.result_memory(10.0 * n * len(seed_list), f"{len(seed_list)} seeds x {n} crossings", "reduce n or the seeds")
        check_executor(executor)
        Y0 = self._check_seeds(seed_list)
        fn, args = self.runner.task(n, t_max, max_gap, max_steps, many=True)
        parts = run_chunks(executor, fn, Y0, args, n_chunks=n_chunks, stoppable=True, what="batch",
                           default_chunks=lambda m, own: self.runner.default_chunks(m, own, N_THREADS))
        G, W, D, T, info = (np.concatenate([pp[2][i] for pp in parts]) for i in range(5))
        nf = self.runner.found(info).copy()
        for k in range(Y0.shape[0]):
            c = nf[k]
            self._project(G[k], W[k], D[k], int(c), who=f"the crossings of seeds[{k}]")
            G[k, c:] = np.nan
            W[k, c:] = np.nan
            D[k, c:] = np.nan
            T[k, c:] = np.nan
        return BatchCrossings(G, W, D, T, nf, [self.runner.status(row) for row in info], n,
                              self.runner.counter_columns(info))

    def _check_seeds(self, seeds: list[Any]) -> NDArray[np.float64]:
        """The LP states (m, 6) of a list of seeds (:func:`_seed_list`), each checked (:meth:`Level.check_seed`,
        named ``seeds[k]``) before any is integrated."""
        return np.ascontiguousarray(np.stack([self.level.check_seed(s, f"seeds[{k}]") for k, s in enumerate(seeds)]))

    def _project(self, G: NDArray[np.float64], W: NDArray[np.float64], D: NDArray[np.float64], n: int,
                 stats: dict[str, Any] | None = None, who: str = "the crossings") -> tuple[float, float]:
        """The first ``n`` crossings of one trajectory with Gamma normalised in place (the kernels integrate Gamma
        in R^3: over 1e6 crossings |Gamma| drifts by ~3e-6, more than the 1e-6 the library accepts back as input).
        Returns (and puts into ``stats``) the drift before: ``gamma_drift`` = max | |Gamma| - 1 | and
        ``level_drift`` = the largest relative distance of a crossing from the level (E, mu); warns
        (:class:`~pendulum_explorer.errors.InvariantDriftWarning`) when the level drifted beyond ``LEVEL_RTOL``,
        so that the crossings are no longer seeds of this level, and raises ``IntegrationFailedError`` beyond
        ``CONSERVATION_RTOL`` (1 %, the ensemble's check): such points are not this level's section."""
        if not n:
            return 0.0, 0.0
        gd = float(_sec.normalise_crossings(G, W, D, n))
        inv = np.empty((n, 2))
        _f.invariants_batch(_f.LP, np.concatenate([G[:n], W[:n]], axis=1), self.level.p, inv)
        ld = float(max(np.abs(inv[:, 0] - self.level.energy).max() / self.level.energy_scale,
                       np.abs(inv[:, 1] - self.level.mu).max() / self.level.mu_scale))
        if stats is not None:
            stats["gamma_drift"], stats["level_drift"] = gd, ld
        if not ld <= CONSERVATION_RTOL:  # not the section of this level any more: no result (as an ensemble's)
            raise IntegrationFailedError(
                f"{who} drifted off the level by {100 * ld:.2g} % (relative; |Gamma| by {gd:.2g} before it "
                f"was normalised), beyond the {100 * CONSERVATION_RTOL:g} % a result may be off, so they are not the "
                f"section at E = {self.level.energy:.6g} J, mu = {self.level.mu:.6g} kg m^2/s: tighten the tolerance "
                f"({self.integrator!r}) or ask for fewer crossings per call (stream re-seeds on the level after each "
                f"chunk)")
        if not ld <= LEVEL_RTOL:
            warnings.warn(InvariantDriftWarning(
                f"the crossings drifted off the level by {ld:.2g} (relative; |Gamma| by {gd:.2g} before it was "
                f"normalised), beyond the {LEVEL_RTOL:g} a seed of this level may be off: tighten rtol/atol or ask "
                f"for fewer crossings per call (stream re-seeds on the level after each chunk)"), stacklevel=4)
        return gd, ld

    def __repr__(self) -> str:
        return f"PoincareMap({self.level!r}, {self.integrator!r})"


@dataclass
class _Group:
    """A lane group of :meth:`PoincareMap.stream_batch`: the seeds still running (their indices and LP states),
    their time offsets, the crossings each has so far and the next chunk's size."""

    rows: NDArray[np.int64]
    Y: NDArray[np.float64]
    t_off: NDArray[np.float64]
    done: int
    size: int


def _seed_list(seeds: Iterable[Seed] | NDArray[np.float64]) -> list[Any]:
    """The seeds of a batch as a list: a clear error for an empty, oversized or non-sequence argument."""
    try:
        seed_list = list(seeds)
    except TypeError as exc:
        raise ShapeError(f"seeds must be a sequence of seeds; got {type(seeds).__name__}") from exc
    if len(seed_list) == 0:
        raise ShapeError("seeds is empty; give at least one seed")
    if len(seed_list) > MAX_SEEDS:  # each seed is checked in Python (~30 us): 2e6 seeds took over a minute
        raise ShapeError(f"seeds has {len(seed_list)} seeds; a batch takes at most {MAX_SEEDS} (split it into "
                         f"several batches)")
    return seed_list


def _next_size(chunk: int, seconds: float | None, found: int, elapsed: float) -> int:
    """The next chunk of a stream: ``chunk``, or with a wall-time target the crossings that take about
    ``seconds`` at the rate of the last chunk (between 1 and ``chunk``)."""
    if seconds is None:
        return chunk
    return int(min(chunk, max(1, found * seconds / max(elapsed, 1e-6))))
