"""Run every numba kernel once on a small problem so that numba's on-disk cache is filled.

Called by ``pendulum-explorer warmup`` (and so by ``tools/dev.py`` and Binder's ``postBuild``) and before
``serve``: with a warm cache, import plus first call of any kernel takes well under a second.
"""
import numpy as np


def run() -> None:
    from .chaos import lyapunov_exponent, megno
    from .equilibria import equilibria, equilibria_at_mu
    from .poincare import PoincareSection
    from .presets import paper_fig1, paper_fig2
    from .reduction import simulate_lr
    from .trajectory import simulate

    P = paper_fig2().pendulum
    simulate(P, np.eye(3), [1.0, 1.0, 1.0], 0.1, method="dop853", n_out=3)
    simulate(P, np.eye(3), [1.0, 1.0, 1.0], 0.1, method="dop853", n_out=3, damping=0.1)  # the damped kernel
    simulate(P, np.eye(3), [1.0, 1.0, 1.0], 0.1, method="lgvi", dt=0.01, n_out=3)
    simulate(P, np.eye(3), [1.0, 1.0, 1.0], 0.1, method="taylor", n_out=3)
    simulate_lr(P, [0.0, 0.0, 1.0], [0.1, -0.1, 0.0], 0.3, 0.1, n_out=3)
    P1 = paper_fig1().pendulum
    eq = equilibria(P1)
    equilibria_at_mu(P1, 0.1, eq=eq)
    sec, seed = PoincareSection.from_paper_ic(P, energy=0.0)
    sec.accessible_region(n_phi=9, n_z=7)
    sec.crossings(seed, 3)
    res = sec.crossings(seed, 2)
    sec.batch(np.asarray(res.Gamma), 2)
    PoincareSection.from_paper_ic(P, energy=0.0, method="taylor")[0].crossings(seed, 2)
    sec.chaos_map((2, 2), 0.2)
    phi, z = res.chart
    sec.return_map(float(phi[0]), float(z[0]))
    lyapunov_exponent(P, [0.0, 0.0, 1.0], [1.0, 1.0, 1.0], t_total=0.2, tau=0.1)
    lyapunov_exponent(P, [0.0, 0.0, 1.0], [1.0, 1.0, 1.0], t_total=0.2, tau=0.1, method="two-trajectory")
    megno(P, [0.0, 0.0, 1.0], [1.0, 1.0, 1.0], 0.2, n_samples=2)
