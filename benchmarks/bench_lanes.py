"""Lanes benchmark (issue 22, item 1), side by side in one run.

    python benchmarks/bench_lanes.py [--n 100] [--t-total 200] [--serial-sample 400] [--seeds 60] [--crossings 1000]

1. A ``n x n`` MEGNO chaos map of the Fig. 2 body at E = 0 (the paper's mu), T = 200 s per cell, rtol = atol = 1e-9
   (the map's defaults), on the accessible cell centres of ``PoincareSection.chaos_map``:
   a. ``lanes_tangent.tangent_lanes`` (8 lanes) on 1 thread, and on the pool's threads (one lane group per thread);
   b. today's ``chaos_map`` (scalar ``tangent_run`` per cell, on the thread pool);
   c. the baseline: the same cells one by one through ``pe.megno`` (``--serial-sample`` cells chosen at random,
      reported per cell).
2. 60 seeds x 1000 crossings on the same section (the section's rtol and limits):
   a. ``lanes.crossings_lanes`` on 1 thread;  b. the baseline: the seeds one by one through ``crossings``.
3. Tangent dynamics in Taylor form (item 2) on ``--taylor-sample`` map cells, T as in 1, one cell after the other
   (1 thread): ``taylor_tangent.tangent_many_taylor`` at tol 1e-12, the DOP853 tangent path
   (``chaos.tangent_many``) at rtol 1e-10 and 1e-12, and, when heyoka is installed, heyoka's
   ``taylor_adaptive`` at tol 1e-12 on the same 14 equations (principal frame, no renormalisation, started at
   t = 1e-12 where 2 I1 / t is defined; its JIT compilation is outside the timing).

Reported: wall time, process CPU time (time.process_time: all threads), items/s by wall and by CPU, the ratio to
the baseline, the load average before and after (the machine is shared: wall figures under load are noisy, the CPU
figures less so), and the largest relative difference of the lanes' values from the baseline's on the same cells
(regular cells: Ybar < 3).  Nothing here is a test.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

import numba  # noqa: E402

from pendulum_explorer import presets  # noqa: E402
from pendulum_explorer._core import lanes as ln  # noqa: E402
from pendulum_explorer._core import lanes_tangent as lt  # noqa: E402
from pendulum_explorer.chaos import megno  # noqa: E402
from pendulum_explorer.poincare import _N_THREADS, PoincareSection, sphere_from_chart  # noqa: E402


def timed(fn):
    w0, c0 = time.perf_counter(), time.process_time()
    out = fn()
    return out, time.perf_counter() - w0, time.process_time() - c0


def lanes_map(Y0, p, T, threads):
    """tangent_lanes on ``threads`` lane groups, each on an interleaved share of the cells (similar costs)."""
    if threads == 1:
        return lt.tangent_all(Y0, p, T, 1e-9, 1e-9, 10**8, False)[0][:, 0]
    out = np.empty(Y0.shape[0])
    with ThreadPoolExecutor(threads) as ex:
        parts = [(j, ex.submit(lt.tangent_all, np.ascontiguousarray(Y0[j::threads]), p, T, 1e-9, 1e-9, 10**8, False))
                 for j in range(threads)]
        for j, f in parts:
            out[j::threads] = f.result()[0][:, 0]
    return out


TAYLOR_NOTE = [""]


def heyoka_tangent(q, tol):
    """heyoka's adaptive Taylor integrator on the LP_TAN equations in the principal frame (Gamma, omega, dGamma,
    domega, I1, I2), or None without heyoka."""
    try:
        import heyoka as hy
    except ImportError:
        return None
    G0, G1, G2, w0, w1, w2, x0, x1, x2, v0, v1, v2, I1, I2 = hy.make_vars(
        "G0", "G1", "G2", "w0", "w1", "w2", "x0", "x1", "x2", "v0", "v1", "v2", "I1", "I2")

    def cross(a, b):
        return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])
    G, w, x, v = (G0, G1, G2), (w0, w1, w2), (x0, x1, x2), (v0, v1, v2)
    dG = cross(G, w)
    dw = (q[0] * w1 * w2 + q[3] * G2 - q[4] * G1, q[1] * w2 * w0 + q[5] * G0 - q[6] * G2,
          q[2] * w0 * w1 + q[7] * G1 - q[8] * G0)
    e, f = cross(x, w), cross(G, v)
    dx = tuple(e[i] + f[i] for i in range(3))
    dv = (q[0] * (v1 * w2 + w1 * v2) + q[3] * x2 - q[4] * x1, q[1] * (v2 * w0 + w2 * v0) + q[5] * x0 - q[6] * x2,
          q[2] * (v0 * w1 + w0 * v1) + q[7] * x1 - q[8] * x0)
    num = sum(x[i] * dx[i] + v[i] * dv[i] for i in range(3))
    den = sum(x[i] * x[i] + v[i] * v[i] for i in range(3))
    rhs = list(dG) + list(dw) + list(dx) + list(dv) + [hy.time * num / den, 2.0 * I1 / hy.time]
    names = (G0, G1, G2, w0, w1, w2, x0, x1, x2, v0, v1, v2, I1, I2)
    return hy.taylor_adaptive(list(zip(names, rhs)), [0.1] * 14, tol=tol, time=1e-12)


def taylor_rows(P, sec, Y, T):
    """Rows of block 3: per-cell CPU of the Taylor and DOP853 tangent paths (and heyoka's), and their agreement."""
    from pendulum_explorer._core import chaos as kc
    from pendulum_explorer._core import taylor as kt
    from pendulum_explorer._core import taylor_tangent as tt
    from pendulum_explorer.integrators import taylor_frame
    q, Q = taylor_frame(P)
    p = sec.level.p
    Y = np.ascontiguousarray(Y)
    m = Y.shape[0]
    rows, vals = [], {}

    def run(name, fn):
        yb, ly, info = np.empty(m), np.empty(m), np.zeros((m, 4), dtype=np.int64)
        fn(Y[:1], yb[:1], ly[:1], info[:1])  # compile / load outside the timing
        _, w, c = timed(lambda: fn(Y, yb, ly, info))
        rows.append(("taylor", name, w, c, m))
        vals[name] = yb

    run("Taylor tangent, tol 1e-12",
        lambda Y0, a, b, i: tt.tangent_many_taylor(Y0, p, q, Q, T, kt.order_for(1e-12), 10**8, False, a, b, i))
    for rt in (1e-10, 1e-12):
        run(f"DOP853 tangent, rtol {rt:g}", lambda Y0, a, b, i, rt=rt: kc.tangent_many(Y0, p, T, rt, rt, 10**8, False,
                                                                                        a, b, i))
    rows[0], rows[1] = rows[1], rows[0]  # the baseline (DOP853 at 1e-10) first
    ta = heyoka_tangent(q, 1e-12)
    if ta is not None:
        def hy_run(Y0, a, b, i):
            y = np.zeros(14)
            for k in range(Y0.shape[0]):
                y[:6] = Y0[k]
                kc.initial_deviation(y, p, False, np.empty((3, 6)))
                for j in range(4):
                    ta.state[3 * j:3 * j + 3] = Q.T @ y[3 * j:3 * j + 3]
                ta.state[12:] = 0.0
                ta.time = 1e-12
                ta.propagate_until(T)
                a[k] = ta.state[13] / T
        run("heyoka taylor_adaptive, tol 1e-12", hy_run)
    ref = vals["DOP853 tangent, rtol 1e-12"]
    reg = ref < 3.0
    diffs = ", ".join(f"{k}: {np.max(np.abs(v[reg] - ref[reg]) / ref[reg]):.1e}" for k, v in vals.items()
                      if k != "DOP853 tangent, rtol 1e-12") if reg.any() else "no regular cell"
    TAYLOR_NOTE[0] = (f"Ybar vs DOP853 at rtol 1e-12 on the {int(reg.sum())} regular cells (Ybar < 3), max relative "
                      f"difference: {diffs}")
    return rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=100)
    ap.add_argument("--t-total", type=float, default=200.0)
    ap.add_argument("--serial-sample", type=int, default=400)
    ap.add_argument("--seeds", type=int, default=60)
    ap.add_argument("--crossings", type=int, default=1000)
    ap.add_argument("--taylor-sample", type=int, default=60)
    args = ap.parse_args()
    P = presets.paper_fig2().pendulum
    sec, seed = PoincareSection.from_paper_ic(P, 0.0)
    p = sec.level.p
    n, T = args.n, args.t_total
    load0 = os.getloadavg()
    print(f"machine: {os.cpu_count()} cores, numba {numba.__version__}, pool threads {_N_THREADS}, lanes {ln.LANES}, "
          f"load average {load0[0]:.2f} {load0[1]:.2f} {load0[2]:.2f}")
    print(f"paper_fig2, E = 0, mu = {sec.mu:.6f}\n")
    # warm the kernels (JIT / cache load) outside the timings
    cm0 = sec.chaos_map((4, 4), 1.0)
    Yw, _ = sec.states_at(sphere_from_chart(cm0.phi[:2], cm0.z[:2]))
    lt.tangent_all(np.nan_to_num(Yw, nan=0.5), p, 0.5, 1e-9, 1e-9, 10**5, False)
    ln.crossings_all(np.nan_to_num(Yw, nan=0.5), p, 2, 5.0, 5.0, 10**5, 1e-9, 1e-9)
    megno(P, [0.0, 0.0, 1.0], [1.0, 1.0, 1.0], 0.2, n_samples=1)
    sec.crossings(seed, 2)

    rows = []
    cm, wall, cpu = timed(lambda: sec.chaos_map((n, n), T))
    J, I = np.nonzero(cm.accessible)
    Y, _ = sec.states_at(sphere_from_chart(cm.phi[I], cm.z[J]))  # the cells chaos_map integrates
    Y = np.ascontiguousarray(Y)
    m = Y.shape[0]
    v1, wall1, cpu1 = timed(lambda: lanes_map(Y, p, T, 1))
    rows.append(("map", f"lanes, 1 thread ({m} cells)", wall1, cpu1, m))
    v2, wall2, cpu2 = timed(lambda: lanes_map(Y, p, T, _N_THREADS))
    rows.append(("map", f"lanes, {_N_THREADS} threads ({m} cells)", wall2, cpu2, m))
    rows.append(("map", f"chaos_map today, {_N_THREADS} threads", wall, cpu, m))
    rng = np.random.default_rng(0)
    pick = rng.choice(m, size=min(args.serial_sample, m), replace=False)

    def serial():
        return np.array([megno(P, Y[q, :3], Y[q, 3:], T, rtol=1e-9, atol=1e-9, n_samples=1).value for q in pick])

    vs, wall_s, cpu_s = timed(serial)
    rows.append(("map", f"baseline: pe.megno one by one ({pick.size} cells)", wall_s, cpu_s, pick.size))
    reg = vs < 3.0
    d_map = float(np.max(np.abs(v1[pick][reg] - vs[reg]) / np.abs(vs[reg]))) if reg.any() else float("nan")
    same_threads = np.array_equal(v1, v2, equal_nan=True)
    same_map = np.array_equal(v1, cm.values[J, I], equal_nan=True)

    # ---- crossings ----
    ns, nc = args.seeds, args.crossings
    # the lanes integrate the seeds as crossings() does after its check_seed (which normalises Gamma, changing even
    # a unit vector in its last bit, which a chaotic orbit amplifies)
    S0 = Y[rng.choice(m, size=ns, replace=False)]
    S = np.array([sec.check_seed((y[:3], y[3:])) for y in S0])
    lim = sec.level.limits(nc, None, None, None)
    (Yc, Tc, info), wall_l, cpu_l = timed(lambda: ln.crossings_all(S, p, nc, *lim[1:], sec.rtol, sec.atol))
    found = int(info[:, 0].sum())
    rows.append(("cross", f"lanes, 1 thread ({ns} seeds x {nc})", wall_l, cpu_l, found))
    res, wall_b, cpu_b = timed(lambda: [sec.crossings((S0[k, :3], S0[k, 3:]), nc) for k in range(ns)])
    found_b = sum(len(r.t) for r in res)
    rows.append(("cross", f"baseline: crossings one by one ({ns} seeds)", wall_b, cpu_b, found_b))
    d_cr = max(float(np.max(np.abs(np.c_[Yc[k, :len(r.t), :3] - r.Gamma, Yc[k, :len(r.t), 3:] - r.omega])))
               for k, r in enumerate(res))

    rows += taylor_rows(P, sec, Y[rng.choice(m, size=min(args.taylor_sample, m), replace=False)], T)
    base = {"map": rows[3], "cross": rows[5], "taylor": rows[6]}
    print(f"{'measure':52s} {'wall s':>8s} {'cpu s':>8s} {'items':>7s} {'/s wall':>9s} {'/s cpu':>9s} "
          f"{'x wall':>7s} {'x cpu':>7s}")
    print("-" * 114)
    for kind, name, w, c, k in rows:
        b = base[kind]
        print(f"{name:52s} {w:8.2f} {c:8.2f} {k:7d} {k / w:9.1f} {k / c:9.1f} {(k / w) / (b[4] / b[2]):7.2f} "
              f"{(k / c) / (b[4] / b[3]):7.2f}")
    load1 = os.getloadavg()
    print(f"\nitems: cells (map) or crossings found; x: items/s relative to the baseline row of the same block")
    print(f"map: lanes vs pe.megno on the {int(reg.sum())} regular sampled cells (Ybar < 3): max relative difference "
          f"{d_map:.1e}; lanes 1 thread == {_N_THREADS} threads: {same_threads}; lanes == chaos_map today: {same_map}")
    print(f"crossings: lanes vs crossings(), max abs difference of the states {d_cr:.1e}; found {found} vs {found_b}")
    print(f"taylor: baseline is the DOP853 tangent path at rtol 1e-10 (today's); {TAYLOR_NOTE[0]}")
    print(f"load average after: {load1[0]:.2f} {load1[1]:.2f} {load1[2]:.2f}")


if __name__ == "__main__":
    main()
