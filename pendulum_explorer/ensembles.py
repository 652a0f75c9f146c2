"""``ensemble``: many trajectories of the Lagrange-Poincaré model (Eqs 31-32) of one body in one call.

The trajectories run on the Taylor lanes (:mod:`._core.taylor_lanes`): the adaptive Taylor method of
``simulate(method="taylor")`` (order ``ceil(-ln(tol)/2 + 1)``, the Jorba-Zou step), ``LANES`` (4, one AVX2
register of float64) trajectories per vector instruction, each lane at its own step, a finished lane
refilled with the next trajectory.  Chunks of trajectories run on the process's thread pool (the kernel
releases the GIL), on any ``concurrent.futures`` executor, or on a dask cluster (``executor=Client(...)``).

Per trajectory the result is that of the scalar Taylor kernel (:func:`simulate` with ``method="taylor"``,
without the attitude) to 1e-12 relative on regular motions over the times a regular motion keeps that
accuracy; it is not bit-identical, since the lanes add the terms of each Cauchy product in another order.
On a chaotic motion, any two integrations part after a few Lyapunov times, as they do for any two tolerances.

    >>> import numpy as np, pendulum_explorer as pe
    >>> P = pe.presets.paper_fig2().pendulum
    >>> G0 = np.tile([0.0, 0.0, 1.0], (3, 1)); w0 = [[0.5, 0, 0], [0, 0.5, 0], [0, 0, 0.5]]
    >>> ens = pe.ensemble(P, G0, w0, 10.0)
    >>> ens.Gamma.shape, float(abs(ens.energy - ens.energy[:, :1]).max()) < 1e-12
    ((3, 2, 3), True)
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from . import _validate as _v
from ._core import fields as _f
from .bodies import Pendulum
from .bounds import BOUNDS
from .errors import IntegrationFailedError, InvalidIntegrationError, InvalidStateError
from .integrators import (CONSERVATION_RTOL, MAX_OMEGA, MIN_SPAN, Taylor, step_budget, taylor_frame,
                          validate_taylor_tol)
from .section.parallel import ExecutorLike, run_chunks

MAX_TRAJECTORIES = int(BOUNDS["ensemble_size"].high)
#: trajectories per chunk on the process's own thread pool (progress and cancel answer between chunks)
CHUNK_TRAJECTORIES = 64


@dataclass(frozen=True)
class Ensemble:
    """Trajectories of Eqs (31)-(32) of one body, sampled at the same times.

    Attributes
    ----------
    pendulum : Pendulum
    t : (n_out,) array
        Sample times, evenly spaced from 0 to ``t_final``.
    Gamma : (n, n_out, 3) array
        Gravity direction in the body frame of each trajectory at each time (``Gamma[:, 0]`` the initial states).
    omega : (n, n_out, 3) array
        Body angular velocity.
    n_steps : (n,) int array
        Taylor steps of each trajectory.
    tol, order : float, int
        The Taylor tolerance and order.
    stats : dict
        ``lanes`` (trajectories per vector), ``lane_steps`` (kernel steps of all chunks), ``wall_time``.
    """

    pendulum: Pendulum
    t: NDArray[np.float64]
    Gamma: NDArray[np.float64]
    omega: NDArray[np.float64]
    n_steps: NDArray[np.int64]
    tol: float
    order: int
    stats: dict[str, Any] = field(default_factory=dict)

    def __len__(self) -> int:
        return int(self.Gamma.shape[0])

    @property
    def energy(self) -> NDArray[np.float64]:
        """(n, n_out) array: the energy (Eq 34) of each trajectory at each time."""
        return self._invariants()[..., 0]

    @property
    def mu(self) -> NDArray[np.float64]:
        """(n, n_out) array: the vertical angular momentum ``omega^T J Gamma`` (Prop 1)."""
        return self._invariants()[..., 1]

    def _invariants(self) -> NDArray[np.float64]:
        n, m = self.Gamma.shape[:2]
        Y = np.concatenate([self.Gamma, self.omega], axis=2).reshape(n * m, 6)
        out = np.empty((n * m, 2))
        _f.invariants_batch(_f.LP, Y, self.pendulum.params(), out)
        return out.reshape(n, m, 2)

    def final(self) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """``(Gamma, omega)`` at ``t_final``, each (n, 3): a valid input of :func:`ensemble` again."""
        return self.Gamma[:, -1].copy(), self.omega[:, -1].copy()


def _conservation_errors(ens: Ensemble) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Per trajectory: the largest energy error over its samples relative to ``max(|E_0|, m g |rho|,
    J_1 |omega_0|^2 / 2)`` and the largest ``| |Gamma| - 1 |`` (as :func:`.trajectory.check_conservation`),
    in chunks of about 10^6 samples."""
    P = ens.pendulum
    n, m = ens.Gamma.shape[:2]
    dE, dG = np.empty(n), np.empty(n)
    rows = max(1, 1_000_000 // m)
    for a in range(0, n, rows):
        b = min(n, a + rows)
        G, W = ens.Gamma[a:b], ens.omega[a:b]
        out = np.empty(((b - a) * m, 2))
        _f.invariants_batch(_f.LP, np.concatenate([G, W], axis=2).reshape(-1, 6), P.params(), out)
        E = out[:, 0].reshape(b - a, m)
        w2 = np.einsum("ij,ij->i", W[:, 0], W[:, 0])
        scale = np.maximum(np.maximum(np.abs(E[:, 0]), P.mgrho_norm), 0.5 * P.principal_moments[0] * w2)
        dE[a:b] = np.abs(E - E[:, :1]).max(axis=1) / scale
        dG[a:b] = np.abs(np.linalg.norm(G, axis=2) - 1.0).max(axis=1)
    return dE, dG


def _check_conservation(ens: Ensemble) -> None:
    """Raise IntegrationFailedError when some trajectory does not conserve E or ``|Gamma| = 1`` to
    CONSERVATION_RTOL (NaN included)."""
    dE, dG = _conservation_errors(ens)
    off = np.nonzero(~((dE <= CONSERVATION_RTOL) & (dG <= CONSERVATION_RTOL)))[0]
    if off.size:
        k = int(off[0])
        raise IntegrationFailedError(
            f"{off.size} of {len(ens)} trajectories do not conserve the energy or |Gamma| = 1 to "
            f"{CONSERVATION_RTOL:g} (first k = {k}: relative energy error {dE[k]:.3g}, |Gamma| error {dG[k]:.3g}): "
            f"they are not motions of the pendulum; tighten tol (now {ens.tol:.3g})")


def _method_tol(method: str | Taylor, tol: float | None) -> float:
    """The Taylor tolerance from ``method`` ("taylor" or a Taylor instance) and ``tol``, validated."""
    if isinstance(method, Taylor):
        if tol is not None:
            raise InvalidIntegrationError("give tol either in the Taylor instance or as tol=, not both")
        tol = method.tol
    elif method != "taylor":
        raise InvalidIntegrationError(f"method must be 'taylor' or a Taylor instance (ensembles run on the Taylor "
                                      f"lanes; for DOP853 or the LGVI use simulate); got {method!r}")
    return validate_taylor_tol(tol)


def _states(Gamma0: ArrayLike, omega0: ArrayLike) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """(n, 3) arrays of unit Gamma0 (normalised) and finite omega0, checked before any work."""
    limit = 3 * MAX_TRAJECTORIES
    G = _v.real_array("Gamma0", Gamma0, trailing=(3,), max_size=limit)
    W = _v.real_array("omega0", omega0, trailing=(3,), max_size=limit)
    G = G.reshape(-1, 3)
    W = W.reshape(-1, 3)
    if G.shape[0] == 0:
        raise InvalidStateError("Gamma0 must hold at least one state (shape (n, 3), n >= 1); got none")
    if G.shape != W.shape:
        raise InvalidStateError(f"Gamma0 and omega0 must hold the same number of states; got {G.shape[0]} and "
                                f"{W.shape[0]}")
    norms = np.linalg.norm(G, axis=1)
    bad = np.nonzero(~(np.abs(norms - 1.0) <= _v.UNIT_TOL))[0]
    if bad.size:
        raise InvalidStateError(f"Gamma0 must hold unit vectors (| |Gamma0[k]| - 1 | <= {_v.UNIT_TOL:g}); "
                                f"{bad.size} are not, first k = {bad[0]} with |Gamma0[k]| = {norms[bad[0]]!r}")
    big = np.nonzero(np.abs(W).max(axis=1) > MAX_OMEGA)[0]
    if big.size:
        raise InvalidStateError(f"omega0 must have entries of magnitude <= {MAX_OMEGA:g} rad/s; {big.size} rows do "
                                f"not, first k = {big[0]}")
    return G / norms[:, None], W


def _taylor_chunk(Y0: NDArray[np.float64], t_final: float, n_out: int, q: NDArray[np.float64], order: int,
                  max_steps: int) -> tuple[NDArray[np.float64], NDArray[np.int64], int]:
    """One chunk of trajectories on the lanes (an executor task: module level, picklable)."""
    from ._core import taylor_lanes as _tl

    Y0 = np.ascontiguousarray(Y0, dtype=float)
    Y = np.empty((Y0.shape[0], n_out, 6))
    info = np.zeros((Y0.shape[0], 3), dtype=np.int64)
    lane_steps = _tl.ensemble_taylor(Y0, float(t_final), q, int(order), int(max_steps), Y, info)
    return Y, info, int(lane_steps)


def ensemble(pendulum: Pendulum, Gamma0: ArrayLike, omega0: ArrayLike, t_final: float, *, n_out: int = 2,
             method: str | Taylor = "taylor", tol: float | None = None, max_steps: int | None = None,
             executor: ExecutorLike | None = None, progress: Callable[[int, int], Any] | None = None,
             cancel: Any = None, n_chunks: int | None = None) -> Ensemble:
    """Integrate many initial states ``(Gamma0[k], omega0[k])`` of one body over ``[0, t_final]`` (Eqs 31-32).

    Parameters
    ----------
    pendulum : Pendulum
    Gamma0 : (n, 3) array_like
        Initial gravity directions in the body frame (unit vectors, normalised), 1 <= n <= 1e7.
    omega0 : (n, 3) array_like
        Initial body angular velocities [rad/s].
    t_final : float
        Duration [s], > 0.
    n_out : int
        Samples per trajectory, evenly spaced from 0 to ``t_final`` (2: the initial and the final states).
    method : "taylor" or Taylor
        The integrator: the Taylor method (the only one with lanes); a :class:`~pendulum_explorer.Taylor`
        instance carries its tolerance.
    tol : float, optional
        Taylor tolerance in [1e-18, 1e-4] (default: machine epsilon, order 20).
    max_steps : int, optional
        Step limit of each trajectory (default: in proportion to ``t_final`` and the fastest ``omega0``,
        as :func:`~pendulum_explorer.simulate`).
    executor : concurrent.futures.Executor or distributed.Client, optional
        Runs the chunks (default: the process's thread pool).
    progress : callable(done, total), optional
        Called in the calling thread as chunks finish (trajectories done, all).
    cancel : callable returning bool, or an object with ``is_set()``, optional
        Polled while waiting; when set, pending chunks are cancelled and
        :class:`concurrent.futures.CancelledError` is raised.
    n_chunks : int, optional
        Chunks submitted (default: about 64 trajectories per chunk on the thread pool; min(n, 64) on
        another executor).

    Returns
    -------
    Ensemble

    Raises
    ------
    InvalidStateError, ShapeError
        Bad initial states (before any integration).
    InvalidIntegrationError
        Bad ``t_final``, ``n_out``, ``tol``, ``method`` or a result too large for memory.
    IntegrationFailedError
        Some trajectory stopped (its step limit, a non-finite state), or does not conserve the energy (Eq 34) or
        ``|Gamma| = 1`` to 1 % over its samples (too loose a ``tol``): names how many and the first.
    """
    import time

    _v.check_pendulum(pendulum)
    _v.callback("progress", progress)
    tol = _method_tol(method, tol)
    G, W = _states(Gamma0, omega0)
    t_final = _v.time_span("t_final", t_final, MIN_SPAN)
    n_out = _v.integer("n_out", n_out, low=2, high=int(BOUNDS["n_out"].high))
    n = G.shape[0]
    _v.result_memory(6.0 * n * n_out, f"an ensemble of {n} trajectories x {n_out} samples",
                     "reduce n_out or the number of trajectories")
    _v.total_time(n, t_final, f"an ensemble of {n} trajectories", "reduce t_final or the number of trajectories")
    budget = step_budget(pendulum, float(np.linalg.norm(W, axis=1).max()), t_final, max_steps)
    q, Q = taylor_frame(pendulum)
    from ._core import taylor as _taylor
    order = int(_taylor.order_for(tol))
    Y0 = np.ascontiguousarray(np.concatenate([G @ Q, W @ Q], axis=1))  # principal frame: v' = Q^T v
    t0 = time.perf_counter()
    parts = run_chunks(executor, _taylor_chunk, Y0, (t_final, n_out, q, order, budget), n_chunks=n_chunks,
                       cancel=cancel, progress=progress, what="ensemble", unit="trajectories",
                       default_chunks=lambda m, own: max(1, m // CHUNK_TRAJECTORIES) if own else min(m, 64))
    Y = np.empty((n, n_out, 6))
    info = np.zeros((n, 3), dtype=np.int64)
    lane_steps = 0
    for a, b, (y, inf, ls) in parts:
        Y[a:b] = y
        info[a:b] = inf
        lane_steps += ls
    bad = np.nonzero(info[:, 1] != _v.Status.OK)[0]
    if bad.size:
        k = int(bad[0])
        t_stop = t_final * (int(info[k, 2]) - 1) / (n_out - 1)
        raise IntegrationFailedError(
            f"{bad.size} of {n} trajectories stopped (first k = {k}, after {int(info[k, 0])} steps, before "
            f"t = {t_stop:.6g} s: {_v.Status(int(info[k, 1])).label}); the step limit was {budget}: raise max_steps, "
            f"shorten t_final or loosen tol")
    rotated = not np.array_equal(Q, np.eye(3))
    Gamma = Y[..., :3] @ Q.T if rotated else np.ascontiguousarray(Y[..., :3])
    omega = Y[..., 3:] @ Q.T if rotated else np.ascontiguousarray(Y[..., 3:])
    from ._core.taylor_lanes import LANES
    stats = {"lanes": LANES, "lane_steps": lane_steps, "wall_time": time.perf_counter() - t0, "max_steps": budget}
    ens = Ensemble(pendulum, np.linspace(0.0, t_final, n_out), Gamma, omega, info[:, 0].copy(), float(tol), order,
                   stats)
    _check_conservation(ens)
    return ens
