"""Cancel latency of the section panel (issue 11 item 2), one run, printing a table.

    python benchmarks/bench_cancel.py [--repeat 5] [--seeds 60] [--crossings 5000]

The classroom case: the paper's Fig. 2 body at E = 2.03 (preset (c)), a fill of ``--seeds`` seeds x
``--crossings`` crossings, cancelled 0.5 ... 2.5 s after it started (the same delays in every run).  Latency =
wall time from ``task.cancel()`` (what the cancel button calls) until the task's thread has ended.  Also printed:
the crossings kept and what the panel's message said.  Runs against whatever ``pendulum_explorer`` is importable
(run it on two checkouts to compare).
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from pendulum_explorer.app import build_app  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--seeds", type=int, default=60)
    ap.add_argument("--crossings", type=int, default=5000)
    args = ap.parse_args()
    app = build_app(prewarm=False)
    sec = app.panel("section")
    sec.paper_preset(2.03, n=100)
    sec.task.wait()
    sec.n_cross.value = args.crossings
    rows = []
    for r in range(args.repeat):
        delay = 0.5 + 2.0 * r / max(1, args.repeat - 1)
        sec.fill(args.seeds)
        time.sleep(delay)
        t0 = time.perf_counter()
        sec.task.cancel()
        sec.task._thread.join()
        lat = time.perf_counter() - t0
        kept = sum(len(L.crossings) for L in app.state.launches)
        rows.append((delay, lat, kept, len(app.state.launches), sec.msg.text))
        sec.clear()
    print(f"cancel latency, fill {args.seeds} x {args.crossings} crossings, paper Fig. 2 (c) E = 2.03, "
          f"python {sys.version.split()[0]}")
    print(f"{'cancel at [s]':>13} {'latency [s]':>12} {'crossings kept':>15} {'trajectories':>13}  message")
    for d, lat, kept, nl, m in rows:
        print(f"{d:13.2f} {lat:12.3f} {kept:15d} {nl:13d}  {m[:90]}")
    lats = [x[1] for x in rows]
    print(f"median {statistics.median(lats):.3f} s, max {max(lats):.3f} s")


if __name__ == "__main__":
    main()
