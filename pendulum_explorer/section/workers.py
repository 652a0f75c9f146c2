"""The workers of a dask cluster made ready for chaos maps and batches (``executor=client``, :mod:`.cluster`):
the kernels compiled or loaded on each worker, and the worker's package checked against this process's."""
from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from .._jit import _source_hash
from .._version import __version__
from ..presets import paper_fig2
from .facade import PoincareSection


def _warm_worker() -> dict[str, Any]:
    """On one worker: run the chaos-map and batch kernels once on a tiny problem (compiling them into the
    worker's numba cache, or loading them from it); the package version and seconds taken."""
    t0 = time.perf_counter()
    sec, seed = PoincareSection.from_paper_ic(paper_fig2().pendulum, energy=0.0)
    sec.chaos_map((2, 2), 0.2)
    sec.batch([seed], 2)
    return {"version": __version__, "kernels": _source_hash(),
            "file": str(Path(__file__).parents[1] / "__init__.py"), "seconds": time.perf_counter() - t0}


def warm_workers(client: Any) -> dict[str, dict[str, Any]]:
    """Compile (or load from each worker's numba cache) the kernels of chaos maps and batches on every worker of
    ``client``'s cluster, so that the first map's tasks do not each wait for the compiler.

    Returns ``{worker address: {"version", "kernels", "file", "seconds"}}`` (``kernels``: the hash of the kernel
    sources, :func:`pendulum_explorer._jit.cache_dir`).  Raises RuntimeError when a worker's ``pendulum_explorer``
    version or kernel sources differ from this process's (its tasks could return different results).
    """
    here = (__version__, _source_hash())
    info: dict[str, dict[str, Any]] = client.run(_warm_worker)
    bad = {w: (d["version"], d["kernels"]) for w, d in info.items() if (d["version"], d["kernels"]) != here}
    if bad:
        raise RuntimeError(f"workers run other pendulum_explorer (version, kernel sources) {bad} than this process "
                           f"{here}: install the same version on every worker")
    return info
