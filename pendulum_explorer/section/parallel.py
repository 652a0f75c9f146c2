"""Running chunks of trajectories: the process's thread pool, the cancel probe and the one
submit-wait-cancel loop that batches and chaos maps share."""
from __future__ import annotations

import os
import threading
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, CancelledError, Executor, Future, ThreadPoolExecutor, wait
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .. import _validate as _v
from . import cluster


def _usable_cores() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


#: what ``executor=`` takes: a ``concurrent.futures.Executor`` or a ``distributed.Client`` (not imported here)
ExecutorLike = Any
N_THREADS = _usable_cores()
_POOL: ThreadPoolExecutor | None = None
_POOL_LOCK = threading.Lock()


def thread_pool() -> ThreadPoolExecutor:
    """The process-wide pool that runs batches and chaos maps (created on first use; the kernels release the
    GIL), one thread per usable core."""
    global _POOL
    with _POOL_LOCK:
        if _POOL is None:
            _POOL = ThreadPoolExecutor(max_workers=N_THREADS, thread_name_prefix="pe-batch")
        return _POOL


def cancel_probe(cancel: Any) -> Callable[[], bool]:
    """``cancel`` (None, a callable returning bool, or an object with ``is_set()``) as a callable."""
    if cancel is None:
        return lambda: False
    if hasattr(cancel, "is_set"):
        probe: Callable[[], bool] = cancel.is_set
        return probe
    if callable(cancel):
        return lambda: bool(cancel())
    raise TypeError(f"cancel must be a callable or have is_set() (threading.Event); got {type(cancel).__name__}")


def check_executor(executor: Any) -> None:
    """TypeError unless ``executor`` is None, has ``submit`` (a concurrent.futures.Executor) or is a
    ``distributed.Client``."""
    if executor is not None and not hasattr(executor, "submit"):
        raise TypeError(f"executor must be a concurrent.futures.Executor or a dask.distributed Client; got "
                        f"{type(executor).__name__}")


def run_chunks(executor: ExecutorLike | None, fn: Callable[..., Any], Y0: NDArray[np.float64], args: tuple[Any, ...], *,
               n_chunks: int | None, default_chunks: Callable[[int, bool], int], stoppable: bool = False,
               cancel: Any = None, progress: Callable[[int, int], Any] | None = None,
               what: str = "computation", unit: str = "seeds") -> list[tuple[int, int, Any]]:
    """Split the rows of ``Y0`` into chunks, run ``fn(Y0[a:b], *args)`` for each on ``executor`` (default: the
    process's :func:`thread_pool`; a ``distributed.Client``: one task per chunk on its cluster, see
    :mod:`.cluster`) and return ``[(a, b, result), ...]`` in row order.

    ``default_chunks(m, own_pool)`` gives the number of chunks when ``n_chunks`` is None.  With ``stoppable``
    and a thread pool, ``fn`` also receives ``stop`` (a threading.Event) that is set when the caller is
    interrupted or cancels, so the worker threads stop between pieces; with a client, ``stop`` is
    :class:`.cluster.TaskCancelled` (set once the task's future is cancelled).  ``cancel`` (see :func:`cancel_probe`)
    is polled while waiting: when set, pending chunks are cancelled and CancelledError is raised.
    ``progress(done, total)`` is called in the calling thread as chunks finish.
    """
    check_executor(executor)
    is_cancelled = cancel_probe(cancel)
    m = Y0.shape[0]
    own = executor is None
    count = default_chunks(m, own) if n_chunks is None else min(_v.integer("n_chunks", n_chunks, low=1), m)
    bounds = np.linspace(0, m, count + 1).astype(int)
    stop: dict[str, Any] = {}
    if cluster.is_client(executor):
        pool: Executor = cluster.client_executor(executor)
        if stoppable:
            stop["stop"] = cluster.TaskCancelled()
    else:
        pool = thread_pool() if executor is None else executor
        if stoppable and isinstance(pool, ThreadPoolExecutor):
            stop["stop"] = threading.Event()
    futs: dict[Future[Any], tuple[int, int]] = {
        pool.submit(fn, Y0[a:b], *args, **stop): (int(a), int(b)) for a, b in zip(bounds[:-1], bounds[1:]) if b > a}
    results: dict[int, tuple[int, int, Any]] = {}
    pending = set(futs)
    done = 0
    try:
        while pending:
            if is_cancelled():
                raise CancelledError(f"{what} cancelled after {done} of {m} {unit}")
            finished, pending = wait(pending, timeout=0.05, return_when=FIRST_COMPLETED)
            for f in finished:
                a, b = futs[f]
                results[a] = (a, b, f.result())
                done += b - a
            if finished and progress is not None:
                progress(done, m)
    except BaseException:
        if stop:
            stop["stop"].set()
        raise
    finally:
        for f in pending:
            f.cancel()
    return [results[a] for a in sorted(results)]
