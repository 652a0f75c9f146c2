"""Section crossings of a chunk of seeds: the executor tasks of :class:`~.integrators.CrossingRunner` (module
level, picklable), each running a resumable crossings kernel in pieces of steps so that Ctrl-C and a cancelled
batch stop it between pieces."""
from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ._core import fields as _f
from ._core import section as _sec
from ._core import status as _st
from ._core import taylor as _taylor

#: a Taylor step (order 20) costs about as much as this many DOP853 steps (measured 7 vs 4.7 us): its chunks
#: are this much shorter
TAYLOR_CHUNK_DIVISOR = 2
#: kernel steps between two returns to Python (~0.1-0.8 s): Ctrl-C stops a long integration within ~1 s
CHUNK_STEPS = 100_000


def _alloc(m: int, n: int) -> tuple[NDArray[np.float64], ...]:
    return (np.empty((m, n, 3)), np.empty((m, n, 3)), np.empty((m, n, 3)), np.empty((m, n)),
            np.zeros((m, _st.N_INFO), dtype=np.int64))


def _pieces(kernel: Callable[[NDArray[np.float64], int], int], m: int, dim: int, stop: Any, steps: int) -> None:
    """Call ``kernel(ctl, steps)`` (a resumable crossings kernel with its other arguments bound) until it says
    every trajectory is done: pieces of about ``steps`` steps, so that Python runs between them (Ctrl-C raises
    KeyboardInterrupt within a piece, ~0.1 s) and a batch stops when ``stop`` (a threading.Event) is set.
    The result is bit for bit that of one call."""
    from concurrent.futures import CancelledError
    ctl = np.zeros((m, _sec.N_CTL + 2 * dim))
    while kernel(ctl, steps):
        if stop is not None and stop.is_set():
            raise CancelledError("crossings stopped")


def _run_chunk(Y0: NDArray[np.float64], p: NDArray[np.float64], rtol: float, atol: float, n: int, t_max: float,
               max_gap: float, max_steps: int, stop: Any = None) -> tuple[NDArray[Any], ...]:
    """One chunk of seeds on one thread with DOP853, in pieces of ``CHUNK_STEPS`` steps."""
    Y0 = np.ascontiguousarray(Y0, dtype=float)
    G, W, D, T, info = _alloc(Y0.shape[0], n)
    p, Yc = np.asarray(p, dtype=float), np.empty((n, Y0.shape[1]))
    _pieces(lambda ctl, steps: _sec.crossings_serial(_f.LP, Y0, p, n, t_max, max_gap, max_steps, rtol, atol,
                                                     G, W, D, T, info, ctl, steps, Yc),
            Y0.shape[0], Y0.shape[1], stop, CHUNK_STEPS)
    return G, W, D, T, info


def _run_chunk_taylor(Y0: NDArray[np.float64], q: NDArray[np.float64], Q: NDArray[np.float64], c: NDArray[np.float64],
                      order: int, n: int, t_max: float, max_gap: float, max_steps: int,
                      stop: Any = None, lanes: bool = False) -> tuple[NDArray[Any], ...]:
    """:func:`_run_chunk` with the Taylor kernel: seeds rotated into the principal frame and back.  ``lanes``: on
    the Taylor lanes (:func:`._core.taylor_lanes.crossings_lanes`, 4 or 8 seeds per vector instruction, per seed the
    scalar loop's rule to 1e-12 relative on regular trajectories), else the scalar loop seed by seed."""
    from concurrent.futures import CancelledError

    Y0 = np.ascontiguousarray(Y0, dtype=float)
    m = Y0.shape[0]
    Yp = np.ascontiguousarray(np.concatenate([Y0[:, 0:3] @ Q, Y0[:, 3:6] @ Q], axis=1))  # v' = Q^T v
    Yc = np.zeros((m, n, 6))
    T = np.zeros((m, n))
    info = np.zeros((m, _st.N_INFO), dtype=np.int64)
    if lanes:
        from ._core import taylor_lanes as _tl

        state = _tl.lane_state(order)
        piece = max(1, CHUNK_STEPS // TAYLOR_CHUNK_DIVISOR // _tl.LANES)
        while _tl.crossings_lanes(Yp, q, c, order, n, t_max, max_gap, max_steps, Yc, T, info, *state, piece):
            if stop is not None and stop.is_set():
                raise CancelledError("crossings stopped")
    else:
        _pieces(lambda ctl, steps: _taylor.crossings_serial_taylor(Yp, q, c, order, n, t_max, max_gap, max_steps, Yc,
                                                                   T, info, ctl, steps),
                m, 6, stop, CHUNK_STEPS // TAYLOR_CHUNK_DIVISOR)
    G = Yc[:, :, 0:3] @ Q.T
    W = Yc[:, :, 3:6] @ Q.T
    return G, W, np.cross(G, W), T, info


#: a Taylor map's batch task (picklable: a partial of a module-level function)
_run_chunk_taylor_lanes = functools.partial(_run_chunk_taylor, lanes=True)
