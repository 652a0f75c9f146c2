"""CPU time, memory and bytes of the dashboard's start, phase by phase, in a kernel-like process, side by side with
a baseline checkout (one shared Python; each checkout on ``PYTHONPATH``, with its own numba cache).

    python benchmarks/bench_kernel_memory.py --baseline /path/to/checkout [--pairs 4]

Each run is a fresh Python process (as a kernel is) that imports ``ipykernel``'s widget stack, then in turn:
``import`` (``pendulum_explorer.app``), ``build`` (``build_app(prewarm=False, query="")``: the first view),
``prewarm`` (the dashboard's background warm-up, run inline), ``section`` (the Section tab opened: panel built,
section drawn).  For each phase: CPU seconds (user + system, ``resource.getrusage``), RSS after it (MB) and the
Python heap (tracemalloc would slow the runs: ``sys.getallocatedblocks``).  ``chart kB`` / ``preview kB`` are the
JSON sizes of the section chart's and the body preview's figures as the widgets send them.  Checkouts alternate
A B A B; minima and medians.  The machine is shared: compare CPU and memory, not wall time.  Nothing is asserted.
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
from _compare import child_result, print_min_median  # noqa: E402  (benchmarks/ is the script's folder)

CHILD = r"""
import gc, json, resource, sys, time

def rss():
    with open("/proc/self/status") as f:
        return next(int(l.split()[1]) for l in f if l.startswith("VmRSS")) / 1024

def cpu():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime

out = {}
def phase(name, fn):
    c0, t0 = cpu(), time.perf_counter()
    res = fn()
    out[name + " CPU s"] = cpu() - c0
    out[name + " wall s"] = time.perf_counter() - t0
    out[name + " RSS MB"] = rss()
    out[name + " heap kblocks"] = sys.getallocatedblocks() / 1000
    return res

import ipykernel, ipywidgets  # what a kernel has loaded before the dashboard's cell
out["base RSS MB"] = rss()
phase("import", lambda: __import__("pendulum_explorer.app"))
from pendulum_explorer.app import build_app
d = phase("build", lambda: build_app(prewarm=False, query=""))
phase("prewarm", d._prewarm)
phase("section", lambda: d.show("section"))
def kb(view):
    return len(json.dumps(view.figure, default=str)) / 1024
sec = d.panels["section"]
out["chart kB"] = kb(sec.chart)
out["preview kB"] = kb(d.panels["body"].preview)
gc.collect()
out["end RSS MB"] = rss()
print("RESULT " + json.dumps(out))
"""


def one_run(checkout: Path) -> dict[str, float]:
    env = dict(os.environ, PYTHONPATH=str(checkout))
    return child_result([sys.executable, "-c", CHILD], env, "/", 600, checkout)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--baseline", type=Path, required=True)
    ap.add_argument("--pairs", type=int, default=4)
    args = ap.parse_args()
    checkouts = {"baseline": args.baseline.resolve(), "this": ROOT}
    for path in checkouts.values():  # fill each checkout's numba cache first (not measured)
        one_run(path)
    runs: dict[str, list[dict[str, float]]] = {k: [] for k in checkouts}
    for _ in range(args.pairs):
        for name, path in checkouts.items():
            runs[name].append(one_run(path))
    print(f"dashboard start in a fresh process, {args.pairs} runs each, alternated; load average "
          f"{os.getloadavg()[0]:.1f}")
    print_min_median(runs, list(checkouts))


if __name__ == "__main__":
    main()
