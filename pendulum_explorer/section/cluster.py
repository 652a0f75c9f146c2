"""Chunks of a batch or chaos map on a dask.distributed cluster (optional: ``pip install pendulum-explorer[cluster]``).

``executor=client`` (a ``distributed.Client``, local or ``Client("tcp://scheduler:8786")``) runs every chunk as one
task on the cluster's workers: the task function is a module-level function of this package, so each worker
imports ``pendulum_explorer`` (it must be installed there, the same version) and compiles the kernel into its own
numba cache on first use (:func:`pendulum_explorer.section.warm_workers` does that up front).  Progress is reported as tasks finish; cancel
cancels the futures, and a chunk already running on a worker sees its task cancelled (:class:`TaskCancelled`)
between pieces of its kernel and stops.  dask is imported only when a client is passed.
"""
from __future__ import annotations

import time
from concurrent.futures import Executor
from typing import Any


def is_client(obj: Any) -> bool:
    """Whether ``obj`` is a ``distributed.Client`` (by duck type; dask itself is not imported)."""
    return type(obj).__module__.split(".")[0] == "distributed" and hasattr(obj, "get_executor") \
        and hasattr(obj, "scheduler_info")


def client_executor(client: Any) -> Executor:
    """A ``concurrent.futures.Executor`` submitting to ``client`` (``pure=False``: every chunk is a new task, never
    a result remembered from an earlier call; cancelling its futures cancels the dask futures)."""
    executor: Executor = client.get_executor(pure=False)
    return executor


class TaskCancelled:
    """The ``stop`` probe of a chunk running as a dask task: ``is_set()`` is true once the worker has marked the
    running task cancelled (its future was cancelled or released by the client).  Read from the worker's own
    task state, at most every ``interval`` seconds; no message to the scheduler.  Outside a task: never set."""

    def __init__(self, interval: float = 0.1) -> None:
        self.interval = interval
        self._next = 0.0
        self._set = False

    def is_set(self) -> bool:
        now = time.monotonic()
        if self._set or now < self._next:
            return self._set
        self._next = now + self.interval
        try:
            from distributed import get_worker

            w = get_worker()
            ts = w.state.tasks.get(w.get_current_task())
        except (ImportError, ValueError, KeyError):  # not inside a task
            return False
        self._set = ts is None or ts.state == "cancelled"
        return self._set

    def set(self) -> None:
        """Nothing to do: cancelling the futures is what a running task sees."""
