"""Invariant drift of the runs listed in issue 26 item 1 (one run each; a table, nothing asserted).

Body: the paper's Fig. 1 cylinder (``presets.paper_fig1()``), R0 = I unless stated.  Columns: max over the
samples of | |Gamma| - 1 |, ||R^T R - I||_F, |Gamma - R^T e3|, the relative energy drift max|E - E0| / scale
(scale = max(|E0|, m g |rho|, J1 |omega0|^2 / 2)) and, when present, the warning the run raised.

    python benchmarks/bench_drift.py           # about a minute
"""
from __future__ import annotations

import sys
import time
import warnings

import numpy as np

import pendulum_explorer as pe
from pendulum_explorer import presets
from pendulum_explorer.reduction import simulate_lr


def drift(tr):
    G = tr.Gamma
    dG = float(np.abs(np.linalg.norm(G, axis=1) - 1.0).max())
    RtR = np.einsum("nki,nkj->nij", tr.R, tr.R) - np.eye(3)
    dR = float(np.sqrt((RtR ** 2).sum(axis=(1, 2))).max())
    dRe3 = float(np.abs(G - tr.R[:, 2, :]).max())
    P = tr.pendulum
    scale = max(abs(float(tr.energy[0])), P.mgrho_norm, 0.5 * P.principal_moments[0] * float(tr.omega[0] @ tr.omega[0]))
    dE = float(np.abs(tr.energy - tr.energy[0]).max()) / scale
    return dG, dR, dRe3, dE


def main() -> None:
    P = presets.paper_fig1().pendulum
    I = np.eye(3)
    W = np.array([1.0, 2.0, -0.5])
    runs = [
        ("dop853 T=100 rtol=atol=1e-3", lambda: pe.simulate(P, I, W, 100.0, rtol=1e-3, atol=1e-3)),
        ("dop853 w=[1e6,0,0] T=1", lambda: pe.simulate(P, I, [1e6, 0, 0], 1.0)),
        ("dop853 w=[3e5,2e5,1e5] T=10", lambda: pe.simulate(P, I, [3e5, 2e5, 1e5], 10.0)),
        ("dop853 T=1e4", lambda: pe.simulate(P, I, W, 1e4)),
        ("dop853 T=2e3 rtol=1e-13", lambda: pe.simulate(P, I, W, 2e3, rtol=1e-13, atol=1e-15)),
        ("taylor T=100 tol=1e-4", lambda: pe.simulate(P, I, W, 100.0, method="taylor", tol=1e-4)),
        ("lgvi T=100 dt=1e-2", lambda: pe.simulate(P, I, W, 100.0, method="lgvi", dt=1e-2)),
        ("simulate_lr T=100 rtol=atol=1e-3",
         lambda: simulate_lr(P, [0, 0, 1.0], [0.5, -0.3, 0], 0.2, 100.0, rtol=1e-3, atol=1e-3)),
    ]
    if "--quick" in sys.argv:
        runs = runs[:3]
    print(f"| run | max abs(abs(Gamma)-1) | max RtR-I | max Gamma-R^T e3 | rel. energy drift | warning | s |")
    print("|---|---|---|---|---|---|---|")
    for name, f in runs:
        t0 = time.perf_counter()
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            try:
                tr = f()
            except Exception as exc:  # noqa: BLE001 - a table row either way
                print(f"| {name} | refused: {type(exc).__name__}: {str(exc)[:80]} | | | | | |")
                continue
        dG, dR, dRe3, dE = drift(tr)
        wn = ", ".join(sorted({type(x.message).__name__ for x in w})) or "-"
        if "drift_bound" in tr.stats:
            wn += f" (bound {tr.stats['drift_bound']:.2g})"
        print(f"| {name} | {dG:.2g} | {dR:.2g} | {dRe3:.2g} | {dE:.2g} | {wn} | {time.perf_counter() - t0:.1f} |",
              flush=True)


if __name__ == "__main__":
    main()
