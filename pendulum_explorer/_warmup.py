"""Run every numba kernel once on a small problem so that numba's on-disk cache is filled."""
import importlib

import numpy as np

#: optional modules whose ``_warmup()`` function is called too (when present)
OPTIONAL = ("pendulum_explorer.equilibria", "pendulum_explorer.poincare")


def run():
    from .presets import paper_fig2
    from .reduction import simulate_lr
    from .trajectory import simulate

    P = paper_fig2().pendulum
    simulate(P, np.eye(3), [1.0, 1.0, 1.0], 0.1, method="dop853", n_out=3)
    simulate(P, np.eye(3), [1.0, 1.0, 1.0], 0.1, method="lgvi", dt=0.01, n_out=3)
    simulate_lr(P, [0.0, 0.0, 1.0], [0.1, -0.1, 0.0], 0.3, 0.1, n_out=3)
    for name in OPTIONAL:
        try:
            mod = importlib.import_module(name)
        except ImportError:
            continue
        fn = getattr(mod, "_warmup", None)
        if fn is not None:
            fn()
