"""A Taylor chaos map at tol 1e-12 against today's DOP853 map at rtol 1e-10 (issue 22, item 2), side by side.

    python benchmarks/bench_map_taylor.py [--n 60] [--t-total 200] [--repeat 2]

The Fig. 2 body at E = 0 (the paper's mu), an ``n x n`` MEGNO map through ``PoincareSection.chaos_map`` on the
thread pool: DOP853 on its lanes at rtol = atol = 1e-10 (the baseline) and 1e-12, and the Taylor method at tol
1e-12 on the Taylor tangent lanes (:mod:`pendulum_explorer._core.taylor_lanes_tangent`).  One more row: the same
Taylor cells one by one on one thread (``taylor_tangent.tangent_many_taylor``, how a Taylor map ran before the
lanes).  The rows run in turns, ``--repeat`` rounds, each row's least CPU time kept (``time.process_time``: all
threads; this machine's timings vary by up to 2x from minute to minute).  Reported: wall and CPU seconds, cells
per CPU second, the ratio to the baseline, the cells classified chaotic (Ybar > 4), and on the regular cells
(Ybar < 2.5 in the DOP853 1e-12 map) the largest relative MEGNO difference from that map.  Nothing here is a test.
"""
from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from pendulum_explorer import presets  # noqa: E402
from pendulum_explorer._core import taylor_tangent as tt  # noqa: E402
from pendulum_explorer._core.chaos import N_TAN_INFO  # noqa: E402
from pendulum_explorer._core.taylor import order_for  # noqa: E402
from pendulum_explorer._core.taylor_lanes import LANES  # noqa: E402
from pendulum_explorer.integrators import taylor_frame  # noqa: E402
from pendulum_explorer.poincare import PoincareSection, sphere_from_chart  # noqa: E402
from pendulum_explorer.section.chaos_map import chaos_grid  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=60)
    ap.add_argument("--t-total", type=float, default=200.0)
    ap.add_argument("--repeat", type=int, default=2)
    a = ap.parse_args()
    P = presets.paper_fig2().pendulum
    sec, _ = PoincareSection.from_paper_ic(P, 0.0)
    res, T = (a.n, a.n), a.t_total
    sec.chaos_map((2, 2), 1.0)  # compiled or loaded from the cache outside the timings
    sec.chaos_map((2, 2), 1.0, method="taylor")
    q, Q = taylor_frame(P)
    order = order_for(1e-12)

    def one_by_one():
        ph, zz = chaos_grid(*res)  # the map's cells, as chaos_map lays them out
        PH, Z = np.meshgrid(ph, zz)
        Y, ok = sec.level.states_at(sphere_from_chart(PH, Z).reshape(-1, 3))
        Y0 = np.ascontiguousarray(Y[ok])
        m = Y0.shape[0]
        yb, ly, info = np.zeros(m), np.zeros(m), np.zeros((m, N_TAN_INFO), dtype=np.int64)
        for k in range(m):
            tt.tangent_many_taylor(Y0[k:k + 1], sec.level.p, q, Q, T, order, 10**8, False, yb[k:k + 1], ly[k:k + 1],
                                   info[k:k + 1])
        out = np.full(PH.size, np.nan)
        out[ok] = yb
        return out.reshape(PH.shape)

    runs = [
        ("baseline: DOP853 lanes, rtol 1e-10 (pool)", lambda: sec.chaos_map(res, T, rtol=1e-10, atol=1e-10).megno),
        ("DOP853 lanes, rtol 1e-12 (pool)", lambda: sec.chaos_map(res, T, rtol=1e-12, atol=1e-12).megno),
        (f"Taylor lanes ({LANES}), tol 1e-12 (pool)", lambda: sec.chaos_map(res, T, method="taylor", tol=1e-12).megno),
        ("Taylor, tol 1e-12, cells one by one (1 thread: before the lanes)", one_by_one),
    ]
    best = [None] * len(runs)
    load0 = os.getloadavg()[0]
    for r in range(a.repeat):
        for i in (range(len(runs)) if r % 2 == 0 else reversed(range(len(runs)))):
            c0, w0 = time.process_time(), time.perf_counter()
            out = runs[i][1]()
            w, c = time.perf_counter() - w0, time.process_time() - c0
            if best[i] is None or c < best[i][2]:
                best[i] = (out, w, c)
    load1 = os.getloadavg()[0]
    ref = best[1][0]
    reg = np.isfinite(ref) & (ref < 2.5)
    cells = int(np.isfinite(ref).sum())
    print(f"# chaos map {a.n} x {a.n} ({cells} accessible cells), Fig. 2 body, E = 0, T = {T:g} s; load "
          f"{load0:.2f} -> {load1:.2f}; least CPU of {a.repeat} runs in turns; {reg.sum()} regular cells")
    print("| row | wall s | CPU s | cells / CPU s | x baseline | chaotic cells | max rel. MEGNO diff., regular cells |")
    print("|---|---|---|---|---|---|---|")
    base = best[0][2]
    for (name, _), (Yb, w, c) in zip(runs, best):
        d = float(np.max(np.abs(Yb[reg] / ref[reg] - 1.0))) if reg.any() else float("nan")
        print(f"| {name} | {w:.2f} | {c:.2f} | {cells / c:.0f} | {base / c:.2f} | {int(np.sum(Yb > 4.0))} | {d:.1e} |")
    x = base / best[2][2]
    print(f"{'PASS' if x > 1.0 else 'MISS'}  Taylor map at tol 1e-12 costs less CPU than the DOP853 map at rtol 1e-10: "
          f"{x:.2f}x the cells per CPU second")


if __name__ == "__main__":
    main()
