"""Long section and Lyapunov calls in pieces (issue 10's Ctrl-C gap), one run, printing a table.

    python benchmarks/bench_pieces.py [--repeat 7]

``PoincareSection.crossings`` (DOP853 and Taylor), ``batch``, the two-trajectory ``lyapunov_exponent`` and ``megno``
(the tangent dynamics, also ``lyapunov_exponent``'s default method) run their kernels in pieces of about ``trajectory.CHUNK_STEPS`` steps (resumable loops: the bits of one call).  Baseline:
the same calls as one kernel call (``CHUNK_STEPS`` = 10^12).  Wall times are the best of ``--repeat`` runs (the
load of a shared machine only adds time).  Then the interrupt latency: SIGINT from another process 1 s into a
call of ~10 s, time from the signal to the KeyboardInterrupt in the caller.  Fig. 2 body, E = 0, the paper's seed.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

import pendulum_explorer as pe  # noqa: E402
import pendulum_explorer.trajectory as T  # noqa: E402
from pendulum_explorer import presets  # noqa: E402


def best(f, repeat):
    ts = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        f()
        ts.append(time.perf_counter() - t0)
    return min(ts)


def latency(f):
    """Seconds from a SIGINT sent 1 s into ``f()`` to the KeyboardInterrupt it raises (None: f ended first).

    The signal comes from another process (``sleep 1; kill -INT``), as a terminal's Ctrl-C does: a thread of this
    process could not send it while a kernel that holds the GIL runs.  Process start-up delays the signal by a
    few ms, so the figure is an upper bound."""
    t0 = time.perf_counter()
    killer = subprocess.Popen(["sh", "-c", f"sleep 1; kill -INT {os.getpid()}"])
    try:
        f()
    except KeyboardInterrupt:
        return max(0.0, time.perf_counter() - t0 - 1.0)
    finally:
        killer.wait()
    return None


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=7)
    args = ap.parse_args()
    P = presets.paper_fig2().pendulum
    sec, seed = pe.PoincareSection.from_paper_ic(P, 0.0)
    tay = pe.PoincareSection(P, sec.energy, sec.mu, method="taylor")
    seeds = sec.fill_seeds(4)
    calls = {
        "crossings, DOP853, n = 20000": lambda n=20_000: sec.crossings(seed, n),
        "crossings, Taylor, n = 20000": lambda n=20_000: tay.crossings(seed, n),
        "batch, 4 seeds x 5000": lambda n=5_000: sec.batch(seeds, n),
        "lyapunov two-trajectory, T = 2000 s": lambda n=2_000: pe.lyapunov_exponent(P, *seed, float(n),
                                                                                    method="two-trajectory"),
        "megno (tangent dynamics), T = 2000 s": lambda n=2_000: pe.megno(P, *seed, float(n)),
    }
    long_args = {"crossings, DOP853, n = 20000": 600_000, "crossings, Taylor, n = 20000": 600_000,
                 "batch, 4 seeds x 5000": 300_000, "lyapunov two-trajectory, T = 2000 s": 99_000,
                 "megno (tangent dynamics), T = 2000 s": 99_000}
    for f in calls.values():  # compile / load the kernels
        f(10)
    chunk = T.CHUNK_STEPS
    print(f"load average {os.getloadavg()[0]:.1f}; best of {args.repeat}; pieces of CHUNK_STEPS = {chunk}")
    print(f"| call | one kernel call | in pieces | ratio | SIGINT -> KeyboardInterrupt |")
    print("|---|---|---|---|---|")
    for name, f in calls.items():
        T.CHUNK_STEPS = 10 ** 12
        one = best(f, args.repeat)
        T.CHUNK_STEPS = chunk
        pieces = best(f, args.repeat)
        lat = latency(lambda: f(long_args[name]))
        lat_s = "ended first" if lat is None else f"{lat * 1e3:.0f} ms"
        print(f"| {name} | {one * 1e3:.1f} ms | {pieces * 1e3:.1f} ms | {pieces / one:.3f} | {lat_s} |")


if __name__ == "__main__":
    main()
