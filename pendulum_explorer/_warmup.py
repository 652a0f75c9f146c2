"""Run every numba kernel once on a small problem so that numba's on-disk cache is filled.

Called by ``pendulum-explorer warmup`` (and so by ``tools/dev.py`` and Binder's ``postBuild``) and before
``serve``: with a warm cache, import plus first call of any kernel takes well under a second.

The kernels are in two parts of about equal compile time (:data:`PARTS`).  ``run(jobs=2)`` compiles the second
part in a child process (``python -m pendulum_explorer._warmup 1``) while this process compiles the first, both
writing the same cache folder (numba's cache has one index file per kernel, written atomically; the warm-up
compiles every kernel with one signature, so the two processes write the same entries), then loads the second
part from the cache.  On two free cores that halves the wall time of a cold start; the CPU time is the same
plus the helpers both parts compile.  If the child fails, this process compiles its part itself.
"""
from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np


def _motion() -> None:
    from .presets import paper_fig1, paper_fig2
    from .reduction import simulate_lr
    from .trajectory import simulate

    P = paper_fig2().pendulum
    simulate(P, np.eye(3), [1.0, 1.0, 1.0], 0.1, method="dop853", n_out=3)
    simulate(P, np.eye(3), [1.0, 1.0, 1.0], 0.1, method="dop853", n_out=3, damping=0.1)  # the damped kernel
    simulate(P, np.eye(3), [1.0, 1.0, 1.0], 0.1, method="lgvi", dt=0.01, n_out=3)
    simulate(P, np.eye(3), [1.0, 1.0, 1.0], 0.1, method="taylor", n_out=3)
    simulate_lr(P, [0.0, 0.0, 1.0], [0.1, -0.1, 0.0], 0.3, 0.1, n_out=3)
    from .equilibria import equilibria, equilibria_at_mu

    P1 = paper_fig1().pendulum
    eq = equilibria(P1)
    equilibria_at_mu(P1, 0.1, eq=eq)


def _section() -> None:
    from .poincare import PoincareSection
    from .presets import paper_fig2

    P = paper_fig2().pendulum
    sec, seed = PoincareSection.from_paper_ic(P, energy=0.0)
    sec.accessible_region(n_phi=9, n_z=7)
    sec.crossings(seed, 3)
    res = sec.crossings(seed, 2)
    sec.batch(np.asarray(res.Gamma), 2)
    sec_t = PoincareSection.from_paper_ic(P, energy=0.0, method="taylor")[0]
    sec_t.crossings(seed, 2)
    sec_t.batch(np.asarray(res.Gamma), 2)  # the Taylor crossing lanes (the dashboard's fill)
    sec_t.chaos_map((2, 2), 0.2, method="taylor")  # the Taylor tangent lanes
    phi, z = res.chart
    sec.return_map(float(phi[0]), float(z[0]))
    sec.chaos_map((2, 2), 0.2)  # the lane kernels, as batch's


def _chaos() -> None:
    from .chaos import lyapunov_exponent, megno
    from .presets import paper_fig2

    P = paper_fig2().pendulum
    lyapunov_exponent(P, [0.0, 0.0, 1.0], [1.0, 1.0, 1.0], t_total=0.2, tau=0.1)
    lyapunov_exponent(P, [0.0, 0.0, 1.0], [1.0, 1.0, 1.0], t_total=0.2, tau=0.1, method="two-trajectory")
    megno(P, [0.0, 0.0, 1.0], [1.0, 1.0, 1.0], 0.2, n_samples=2)
    from .ensembles import ensemble

    ensemble(P, [[0.0, 0.0, 1.0]], [[1.0, 1.0, 1.0]], 0.1)  # the Taylor lanes


#: the warm-up in two parts of about equal cold compile time (benchmarks/bench_cold_jit.py)
PARTS: tuple[tuple[Callable[[], None], ...], ...] = ((_section,), (_motion, _chaos))


def _run_part(k: int) -> None:
    for step in PARTS[k]:
        step()


def run(jobs: int = 1) -> None:
    """Run every kernel once; ``jobs=2``: the second part in a child process at the same time (see above).
    Without numba's on-disk cache (``PENDULUM_EXPLORER_NO_CACHE`` / ``_NO_JIT``) the child would be of no use:
    then everything runs here."""
    from . import _jit

    child = None
    if jobs >= 2 and _jit.CACHE and not _jit.JIT_DISABLED:
        root = str(Path(__file__).resolve().parent.parent)  # the child imports this very package
        env = dict(os.environ, PYTHONPATH=os.pathsep.join([root, *filter(None, [os.environ.get("PYTHONPATH")])]))
        child = subprocess.Popen([sys.executable, "-m", "pendulum_explorer._warmup", "1"], env=env,
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _run_part(0)
    if child is not None:
        child.wait()  # its failure is not ours: its kernels are then compiled below
    _run_part(1)


if __name__ == "__main__":
    _run_part(int(sys.argv[1]) if len(sys.argv) > 1 else 0)
