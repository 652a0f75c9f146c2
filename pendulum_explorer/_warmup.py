"""Run every numba kernel once on a small problem so that numba's on-disk cache is filled.

Called by ``pendulum-explorer warmup`` (and so by ``tools/dev.py`` and Binder's ``postBuild``) and before
``serve``: with a warm cache, import plus first call of any kernel takes well under a second.

The kernels are in two parts of about equal compile time (:data:`PARTS`).  ``run(jobs=2)`` compiles the second
part in a child process (``python -m pendulum_explorer._warmup 1``) while this process compiles the first, both
writing the same cache folder (numba's cache has one index file per kernel, written atomically; the warm-up
compiles every kernel with one signature, so the two processes write the same entries); the second part is not
loaded here again (the warm-up's process serves no kernel) unless the child failed.  On two free cores that halves the wall time of a cold start; the CPU time is the same
plus the helpers both parts compile.  If the child fails, this process compiles its part itself.
"""
from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from .bodies import Pendulum


def _fig2() -> Pendulum:
    from .presets import paper_fig2

    return paper_fig2().pendulum


def _simulate(**kw: Any) -> None:
    from .trajectory import simulate

    simulate(_fig2(), np.eye(3), [1.0, 1.0, 1.0], 0.1, n_out=3, **kw)


def _taylor() -> None:
    """The Taylor kernels of ``simulate``, ``ensemble`` (its lanes) and the chaos map's Taylor tangent lanes: no
    DOP853 machinery."""
    from .ensembles import ensemble

    from .poincare import PoincareSection

    _simulate(method="taylor")
    ensemble(_fig2(), [[0.0, 0.0, 1.0]], [[1.0, 1.0, 1.0]], 0.1)
    sec_t = PoincareSection.from_paper_ic(_fig2(), energy=0.0, method="taylor")[0]
    sec_t.chaos_map((2, 2), 0.2, method="taylor")  # the Taylor tangent lanes


def _lgvi() -> None:
    _simulate(method="lgvi", dt=0.01)


def _equilibria() -> None:
    from .equilibria import equilibria, equilibria_at_mu
    from .presets import paper_fig1

    P1 = paper_fig1().pendulum
    eq = equilibria(P1)
    equilibria_at_mu(P1, 0.1, eq=eq)


def _dop853() -> None:
    from .reduction import simulate_lr

    _simulate(method="dop853")
    _simulate(method="dop853", damping=0.1)  # the damped kernel
    simulate_lr(_fig2(), [0.0, 0.0, 1.0], [0.1, -0.1, 0.0], 0.3, 0.1, n_out=3)


def _section() -> None:
    from .poincare import PoincareSection

    P = _fig2()
    sec, seed = PoincareSection.from_paper_ic(P, energy=0.0)
    sec.accessible_region(n_phi=9, n_z=7)
    sec.crossings(seed, 3)
    res = sec.crossings(seed, 2)
    sec.batch(np.asarray(res.Gamma), 2)
    sec_t = PoincareSection.from_paper_ic(P, energy=0.0, method="taylor")[0]
    sec_t.crossings(seed, 2)
    sec_t.batch(np.asarray(res.Gamma), 2)  # the Taylor crossing lanes (the dashboard's fill)
    phi, z = res.chart
    sec.return_map(float(phi[0]), float(z[0]))
    sec.chaos_map((2, 2), 0.2)  # the lane kernels, as batch's


def _chaos() -> None:
    from .chaos import lyapunov_exponent, megno

    P = _fig2()
    lyapunov_exponent(P, [0.0, 0.0, 1.0], [1.0, 1.0, 1.0], t_total=0.2, tau=0.1)
    lyapunov_exponent(P, [0.0, 0.0, 1.0], [1.0, 1.0, 1.0], t_total=0.2, tau=0.1, method="two-trajectory")
    megno(P, [0.0, 0.0, 1.0], [1.0, 1.0, 1.0], 0.2, n_samples=2)


#: the warm-up in two parts of about equal cold compile time (benchmarks/bench_cold_jit.py), ordered so that the
#: two processes of ``run(jobs=2)`` seldom compile the same helper at once: the first part starts with the DOP853
#: machinery and the fields (the section), the second with kernels that use neither (Taylor, LGVI, equilibria),
#: so that by the time it reaches DOP853 (simulate, the scalar tangent dynamics) most helpers are in the cache
PARTS: tuple[tuple[Callable[[], None], ...], ...] = ((_section,), (_taylor, _lgvi, _equilibria, _dop853, _chaos))


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
    if child is not None and child.wait() == 0:
        return  # the child compiled its part into the cache: loading it here too would only cost time (~1 s)
    _run_part(1)  # alone, or the child failed (its failure is not ours: its kernels are compiled here)


if __name__ == "__main__":
    _run_part(int(sys.argv[1]) if len(sys.argv) > 1 else 0)
