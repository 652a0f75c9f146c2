"""Cold JIT: every kernel compiled from scratch (an empty numba cache), per group of kernels and in total.

    python benchmarks/bench_cold_jit.py [--baseline DIR] [--runs 1] [--detail 15] [--where]

A fresh Python process per run, with ``PENDULUM_EXPLORER_CACHE_DIR`` an empty temporary folder (so numba compiles
every kernel and writes its cache, as on a first install), imports the package of a checkout and runs the
warm-up (``pendulum_explorer._warmup.run()``, what ``pendulum-explorer warmup`` runs).  numba's
``numba:compile`` events give each kernel's compile time (thread CPU time and wall time, *exclusive* of the
kernels compiled inside it: a callee numba compiles while typing its caller is counted for the callee), grouped
by the kernel's module; the rows after them are the whole process (import + warm-up + cache writes).  The
third column is this checkout's parallel warm-up, ``_warmup.run(jobs=2)`` (``--jobs 1``: not run; with a baseline,
the baseline's too).  With
``--baseline DIR`` (a checkout of another commit, e.g. ``git worktree add --detach /tmp/base 5fd0105``) the same
is measured for that checkout's package in the same run, side by side.  ``--detail N`` lists the N slowest
kernels of this checkout.  ``--where``: one more run of this checkout splitting its CPU time into LLVM's parts
and the rest, and counting the optimised IR the kernels' libraries hold (see :func:`where`).  The machine is
shared: compare CPU seconds; wall times are noisy.  Nothing is asserted.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TARGET_S = 12.0

CHILD = r"""
import json, sys, threading, time
from collections import defaultdict
from numba.core import event as ev

stacks = defaultdict(list)            # thread id -> [(cpu0, wall0, child_cpu, child_wall)]
rows = []                             # (qualname, module, n_args, cpu, wall) exclusive


class Timer(ev.Listener):
    def on_start(self, event):
        stacks[threading.get_ident()].append([time.thread_time(), time.perf_counter(), 0.0, 0.0])

    def on_end(self, event):
        st = stacks[threading.get_ident()]
        c0, w0, cc, cw = st.pop()
        cpu, wall = time.thread_time() - c0, time.perf_counter() - w0
        if st:
            st[-1][2] += cpu
            st[-1][3] += wall
        d = event.data["dispatcher"]
        rows.append((d.py_func.__qualname__, d.py_func.__module__, str(event.data["args"]), cpu - cc, wall - cw))


ev.register("numba:compile", Timer())
llvm = defaultdict(float)                # LLVM's part, thread CPU s, by what it does


def timed(owner, name, key):
    f = getattr(owner, name)

    def g(*a, **k):
        t = time.thread_time()
        try:
            return f(*a, **k)
        finally:
            llvm[key] += time.thread_time() - t
    setattr(owner, name, g)


if WHERE:
    import llvmlite.binding as llb
    from llvmlite.binding import module, newpassmanagers
    timed(newpassmanagers.ModulePassManager, "run", "LLVM module passes")
    timed(newpassmanagers.FunctionPassManager, "run", "LLVM function passes")
    from numba.core import codegen
    timed(codegen.JitEngine, "finalize_object", "LLVM machine code")  # numba's proxy of the engine's method
    timed(llb, "parse_assembly", "LLVM parse + link")
    timed(module.ModuleRef, "link_in", "LLVM parse + link")
c0, w0 = time.process_time(), time.perf_counter()
import pendulum_explorer as pe
from pendulum_explorer import _warmup
c1, w1 = time.process_time(), time.perf_counter()
_warmup.run(**({"jobs": JOBS} if JOBS > 1 else {}))
c2, w2 = time.process_time(), time.perf_counter()
ir = [0, 0, 0]                          # defined-function IR lines in all kernels' libraries, unique, kernels
if WHERE:
    import gc, re
    import numba
    uniq = {}
    for o in gc.get_objects():
        if isinstance(o, numba.core.dispatcher.Dispatcher):
            for cres in o.overloads.values():
                ir[2] += 1
                for part in re.split(r"^define ", cres.library.get_llvm_str(), flags=re.M)[1:]:
                    name = re.search(r'@"?([^"(]+)', part).group(1)
                    n = part.split("\n}\n")[0].count("\n")
                    ir[0] += n
                    uniq[name] = max(uniq.get(name, 0), n)
    ir[1] = sum(uniq.values())
json.dump({"rows": rows, "llvm": llvm, "ir": ir, "import": [c1 - c0, w1 - w0], "warmup": [c2 - c1, w2 - w1], "file": pe.__file__},
          sys.stdout)
"""


def run_child(root: Path, jobs: int = 1, where: bool = False) -> dict:
    """One fresh process on ``root``'s package with an empty cache folder; its event rows and totals."""
    with tempfile.TemporaryDirectory(prefix="pe-cold-") as cache:
        env = dict(os.environ, PENDULUM_EXPLORER_CACHE_DIR=cache, PYTHONPATH=str(root))
        env.pop("PENDULUM_EXPLORER_NO_CACHE", None)
        r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        out = subprocess.run([sys.executable, "-c", f"JOBS = {jobs}\nWHERE = {where}\n" + CHILD], env=env,
                             capture_output=True, text=True, cwd=cache)
        wall = time.perf_counter() - t0
        r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        if out.returncode:
            raise RuntimeError(out.stderr[-3000:])
        res = json.loads(out.stdout.strip().splitlines()[-1])
        if not res["file"].startswith(str(root)):
            raise RuntimeError(f"{root}: imported {res['file']}")
        res["process"] = [(r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime), wall]
        return res


def group(mod: str) -> str:
    """The table's group of a kernel module."""
    short = mod.replace("pendulum_explorer.", "")
    return short if short.startswith("_core.") else "other (" + short.split(".")[0] + ")"


def summarise(res: dict) -> dict[str, list[float]]:
    """{group: [cpu, wall, n kernels compiled]} plus the totals."""
    g: dict[str, list[float]] = {}
    for _, mod, _, cpu, wall in res["rows"]:
        s = g.setdefault(group(mod), [0.0, 0.0, 0])
        s[0] += cpu
        s[1] += wall
        s[2] += 1
    g["= all compiles (sum)"] = [sum(v[0] for v in g.values()), sum(v[1] for v in g.values()),
                                 sum(v[2] for v in g.values())]
    g["import (process)"] = res["import"] + [0]
    g["warm-up (process)"] = res["warmup"] + [0]
    g["TOTAL process (import+warm-up)"] = res["process"] + [0]
    return g


def best(runs: list[dict]) -> tuple[dict, dict[str, list[float]]]:
    """The run of least process CPU time, with its summary."""
    r = min(runs, key=lambda x: x["process"][0])
    return r, summarise(r)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--baseline", type=Path, help="a checkout of another commit to compare with")
    ap.add_argument("--runs", type=int, default=1, help="runs per checkout (best by CPU)")
    ap.add_argument("--detail", type=int, default=15, help="slowest kernels of this checkout to list")
    ap.add_argument("--json", type=Path, help="write every run's per-kernel rows to this file")
    ap.add_argument("--jobs", type=int, default=2, help="also this checkout's _warmup.run(jobs=N) (1: not)")
    ap.add_argument("--where", action="store_true",
                    help="one more run of this checkout: LLVM's part and the IR each kernel carries")
    a = ap.parse_args()
    roots = ({"baseline": (a.baseline.resolve(), 1)} if a.baseline else {}) | {"this": (ROOT, 1)}
    if a.jobs > 1:
        if a.baseline:
            roots[f"baseline jobs={a.jobs}"] = (a.baseline.resolve(), a.jobs)
        roots[f"this jobs={a.jobs}"] = (ROOT, a.jobs)
    runs: dict[str, list[dict]] = {k: [] for k in roots}
    for _ in range(a.runs):
        for k, (r, j) in roots.items():  # interleaved: the load changes during the run
            runs[k].append(run_child(r, j))
    if a.json:
        a.json.write_text(json.dumps(runs))
    sums = {k: best(v)[1] for k, v in runs.items()}
    keys = list(dict.fromkeys(x for s in sums.values() for x in s))
    keys = sorted(keys, key=lambda x: (not x.startswith("_core"), not x.startswith("other"), x.startswith("="),
                                       x.startswith("import"), x.startswith("warm"), x.startswith("TOTAL"), x))
    print(f"cold JIT, empty numba cache, import + _warmup.run(); load average {os.getloadavg()[0]:.2f}; "
          f"best of {a.runs} by CPU; target TOTAL <= {TARGET_S:.0f} s")
    head = f"{'group':34s}" + "".join(f" | {k + ' CPU s':>18s} {'wall s':>7s} {'n':>4s}" for k in roots)
    print(head)
    print("-" * len(head))
    for x in keys:
        line = f"{x:34s}"
        for k in roots:
            c, w, n = sums[k].get(x, [0.0, 0.0, 0])
            line += f" | {c:18.2f} {w:7.2f} {int(n) if n else '':>4}"
        print(line)
    tot = {k: sums[k]["TOTAL process (import+warm-up)"] for k in roots}
    print(f"target: every kernel compiled in <= {TARGET_S:.0f} s: "
          + ", ".join(f"{k} {c:.1f} s CPU / {w:.1f} s wall ({'met' if max(c, w) <= TARGET_S else 'not met'})"
                      for k, (c, w, _) in tot.items()))
    if a.jobs > 1:
        print(f"(jobs={a.jobs}: the group rows are this process's part only; TOTAL includes the child process; "
              f"its wall time on {a.jobs} free cores is about the larger part's CPU time)")
    if a.where:
        where()
    if a.detail:
        r, _ = best(runs["this"])
        print(f"\nslowest kernels of this checkout (exclusive thread CPU s, wall s, signature):")
        for q, mod, args, c, w in sorted(r["rows"], key=lambda x: -x[3])[:a.detail]:
            print(f"  {c:6.2f} {w:6.2f}  {mod.replace('pendulum_explorer.', '')}.{q}  {args[:90]}")


def where() -> None:
    """Where this checkout's serial cold compile goes: LLVM's parts (thread CPU time of llvmlite's pass managers,
    machine-code emission, parse and link), the rest of the process (numba's typing and lowering into llvmlite's
    IR objects, their text form, the CPython wrappers, the cache writes), and the optimised IR the kernels'
    libraries hold: numba links a private copy of every helper a kernel calls into the kernel's library (each is
    self-contained, as its cache entry must be), so the helpers are optimised and emitted again for each caller."""
    r = run_child(ROOT, 1, where=True)
    tot = r["import"][0] + r["warmup"][0]  # the IR count after the warm-up is not part of it
    llvm = sum(r["llvm"].values())
    print(f"\nwhere the serial cold compile goes (one more run: import + warm-up {tot:.1f} s CPU):")
    for k, v in sorted(r["llvm"].items(), key=lambda kv: -kv[1]):
        print(f"  {v:6.2f} s  {100 * v / tot:4.1f} %  {k}")
    print(f"  {tot - llvm:6.2f} s  {100 * (tot - llvm) / tot:4.1f} %  the rest (numba's typing and lowering, IR text, "
          f"wrappers, cache)")
    lines, uniq, n = r["ir"]
    print(f"  optimised IR in the {n} kernels' libraries: {lines} lines of defined functions, {uniq} unique "
          f"({lines / max(uniq, 1):.2f}x: each library carries its own copy of the helpers it calls)")


if __name__ == "__main__":
    main()
