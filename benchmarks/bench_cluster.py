"""A chaos map on a dask LocalCluster of *process* workers: 1 worker vs 2 (``executor=client``).

    python benchmarks/bench_cluster.py            # the issue's size: 400 x 300 cells, T = 1000 s (hours on 2 cores)
    python benchmarks/bench_cluster.py --quick    # 80 x 60 cells, T = 200 s
    python benchmarks/bench_cluster.py --res 120 90 --t 300 --chunks 64

Fig. 2 body at E = 0 (``PoincareSection.from_paper_ic``), MEGNO at rtol = atol = 1e-9.  For n = 1 and 2 workers
(``LocalCluster(n_workers=n, processes=True, threads_per_worker=1)``): the cluster is started, every worker
imports the package and loads its kernels (``warm_workers``, not timed), then one ``chaos_map`` runs and
the table shows its wall time, the CPU seconds each worker process spent (``time.process_time`` read on the
worker before and after), the cores the workers obtained (CPU / wall) and cells per second.  The machine is
shared, so beside the wall-clock speed-up the table gives the *CPU-normalised* one: the 1-worker CPU time over
the busiest worker's CPU time with 2 workers, i.e. the speed-up with one idle core per worker (it includes the
load imbalance and every overhead of the second process, not the other engineers' load).  The two maps must be
identical to the last bit (checked, printed).  Nothing is asserted.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ["PYTHONPATH"] = str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")  # the workers' package

import distributed  # noqa: E402

import pendulum_explorer as pe  # noqa: E402
from pendulum_explorer.presets import paper_fig2  # noqa: E402
from pendulum_explorer.section import warm_workers  # noqa: E402

TARGET = 1.8


def _cpu() -> float:
    return time.process_time()


def one(n_workers: int, res: tuple[int, int], t_total: float, n_chunks: int | None) -> dict:
    sec = pe.PoincareSection.from_paper_ic(paper_fig2().pendulum, 0.0)[0]
    with distributed.LocalCluster(n_workers=n_workers, processes=True, threads_per_worker=1,
                                  dashboard_address=None, silence_logs=40) as cl, distributed.Client(cl) as client:
        t0 = time.perf_counter()
        warm = warm_workers(client)
        t_warm = time.perf_counter() - t0
        c0 = client.run(_cpu)
        t0 = time.perf_counter()
        cm = sec.chaos_map(res, t_total, executor=client, n_chunks=n_chunks)
        wall = time.perf_counter() - t0
        c1 = client.run(_cpu)
    cpu = [c1[w] - c0[w] for w in c0]
    assert all(d["file"] == pe.__file__ for d in warm.values())
    return {"n": n_workers, "wall": wall, "cpu": cpu, "warm": t_warm, "cells": int(np.isfinite(cm.megno).sum()),
            "map": cm}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="80 x 60 cells, T = 200 s")
    ap.add_argument("--res", type=int, nargs=2, default=None, help="n_phi n_z (default 400 300)")
    ap.add_argument("--t", type=float, default=None, help="T per cell [s] (default 1000)")
    ap.add_argument("--chunks", type=int, default=None, help="n_chunks (default: chaos_map's, min(cells, 64))")
    a = ap.parse_args()
    res = tuple(a.res) if a.res else ((80, 60) if a.quick else (400, 300))
    t_total = a.t if a.t is not None else (200.0 if a.quick else 1000.0)
    load0 = os.getloadavg()[0]
    runs = [one(n, res, t_total, a.chunks) for n in (1, 2)]
    same = (np.array_equal(runs[0]["map"].megno, runs[1]["map"].megno, equal_nan=True)
            and np.array_equal(runs[0]["map"].lyapunov, runs[1]["map"].lyapunov, equal_nan=True))
    print(f"chaos map {res[0]} x {res[1]}, T = {t_total:g} s, E = 0 (Fig. 2 body), MEGNO rtol 1e-9; "
          f"LocalCluster(processes=True, threads_per_worker=1); load average {load0:.2f} -> {os.getloadavg()[0]:.2f}")
    head = (f"{'workers':>7s} {'cells':>7s} {'wall s':>8s} {'worker CPU s':>18s} {'cores got':>9s} "
            f"{'cells/s':>8s} {'warm-up s':>9s}")
    print(head)
    print("-" * len(head))
    for r in runs:
        cpus = "+".join(f"{c:.1f}" for c in r["cpu"])
        print(f"{r['n']:7d} {r['cells']:7d} {r['wall']:8.2f} {cpus:>18s} {sum(r['cpu']) / r['wall']:9.2f} "
              f"{r['cells'] / r['wall']:8.1f} {r['warm']:9.2f}")
    wall_su = runs[0]["wall"] / runs[1]["wall"]
    cpu_su = sum(runs[0]["cpu"]) / max(runs[1]["cpu"])
    print(f"speed-up 1 -> 2 workers: wall {wall_su:.2f}x; CPU-normalised (1-worker CPU / busiest 2-worker CPU) "
          f"{cpu_su:.2f}x; target >= {TARGET}x: {'met' if cpu_su >= TARGET else 'not met'} (CPU-normalised), "
          f"{'met' if wall_su >= TARGET else 'not met'} (wall)")
    print(f"maps of 1 and 2 workers identical to the last bit: {'yes' if same else 'NO'}")


if __name__ == "__main__":
    main()
