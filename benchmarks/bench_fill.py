"""A section fill (issue 22): 60 seeds x 1000 crossings through ``batch`` on the Taylor lanes against the same
seeds one by one through ``crossings``, side by side in one run.

    python benchmarks/bench_fill.py [--seeds 60] [--crossings 1000]

The Fig. 2 body at E = 0 (the paper's mu), the dashboard's fill seeds (``fill_seeds``), the section's limits.
Rows: ``batch`` of a Taylor section (tol eps: the lanes, :mod:`pendulum_explorer._core.taylor_lanes`) on one
thread (``n_chunks=1``) and on the thread pool; ``batch`` of the default DOP853 section (rtol 1e-11: the
dashboard's section today, the scalar kernel per seed); and the baselines, the seeds one by one through
``crossings`` on the DOP853 section and on the Taylor section.  Reported: wall and CPU seconds
(``time.process_time``: all threads), crossings found, crossings per CPU second, and that rate relative to
each baseline.  On the chaotic level the trajectories of two methods part after a few crossings; the counts and
rates are comparable, the points are not.  Nothing here is a test.
"""
from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from pendulum_explorer import presets  # noqa: E402
from pendulum_explorer.poincare import PoincareSection  # noqa: E402
from pendulum_explorer.section.parallel import N_THREADS  # noqa: E402


def timed(fn):
    c0, w0 = time.process_time(), time.perf_counter()
    out = fn()
    return out, time.perf_counter() - w0, time.process_time() - c0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=60)
    ap.add_argument("--crossings", type=int, default=1000)
    a = ap.parse_args()
    P = presets.paper_fig2().pendulum
    dop, _ = PoincareSection.from_paper_ic(P, 0.0)
    tay, _ = PoincareSection.from_paper_ic(P, 0.0, method="taylor")
    seeds = dop.fill_seeds(a.seeds)
    nc = a.crossings
    for s in (dop, tay):  # compiled or loaded from the cache outside the timings
        s.batch(seeds[:5], 3)
        s.crossings(seeds[0], 3)
    load0 = os.getloadavg()[0]
    rows = []

    def batch_row(name, sec, **kw):
        b, w, c = timed(lambda: sec.batch(seeds, nc, **kw))
        rows.append((name, w, c, int(np.sum(b.n_found))))

    batch_row("Taylor section: batch on the lanes, 1 thread", tay, n_chunks=1)
    batch_row(f"Taylor section: batch on the lanes, pool ({N_THREADS} threads)", tay)
    batch_row(f"DOP853 section: batch, pool ({N_THREADS} threads)", dop)
    for name, sec in (("baseline: DOP853 section, crossings one by one", dop),
                      ("baseline: Taylor section, crossings one by one", tay)):
        r, w, c = timed(lambda sec=sec: [sec.crossings(s, nc) for s in seeds])
        rows.append((name, w, c, sum(len(x.t) for x in r)))
    load1 = os.getloadavg()[0]
    base_d, base_t = rows[3], rows[4]
    print(f"# fill: {a.seeds} seeds x {nc} crossings, Fig. 2 body, E = 0; load {load0:.2f} -> {load1:.2f}")
    print("| row | wall s | CPU s | crossings | crossings / CPU s | x DOP853 one by one | x Taylor one by one |")
    print("|---|---|---|---|---|---|---|")
    for name, w, c, k in rows:
        rate = k / c
        print(f"| {name} | {w:.2f} | {c:.2f} | {k} | {rate:.0f} | {rate / (base_d[3] / base_d[2]):.2f} | "
              f"{rate / (base_t[3] / base_t[2]):.2f} |")
    lanes = rows[0][3] / rows[0][2] / (base_d[3] / base_d[2])
    print(f"{'PASS' if lanes >= 4.0 else 'MISS'}  fill on the lanes (1 thread, CPU) >= 4x crossings one by one "
          f"(the dashboard's DOP853): {lanes:.2f}x")


if __name__ == "__main__":
    main()
