"""Poincaré section benchmarks (issue 4), side by side in one run.

    python benchmarks/bench_section.py [--scipy-crossings 60] [--repeat 7]

1. One click: 1000 crossings of one trajectory (paper_fig2, E = 0, seeded at R0 = I, omega0 = c[1,1,1]),
   warm, vs scipy.integrate.solve_ivp(DOP853, rtol=1e-10, atol=1e-12, events=...) on the same trajectory.
   scipy is timed on the first ``--scipy-crossings`` crossings and scaled per crossing (stated in the output).
   Accuracy of the crossing points of both is measured against a tight reference (scipy DOP853,
   rtol=1e-13, atol=1e-15) over the first 20 crossings, plus the residuals of all returned points.
2. Batch: 40 seeds x 500 crossings on the default thread pool (one thread per core; the kernel releases the
   GIL) vs one thread (a 1-worker ThreadPoolExecutor).

Targets: <= 50 ms per click, >= 300x faster than scipy, batch <= 3 s.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

import numba  # noqa: E402
from scipy.integrate import solve_ivp  # noqa: E402

from pendulum_explorer import presets  # noqa: E402
from pendulum_explorer.poincare import _N_THREADS, MAX_GAP_SCALES, PoincareSection  # noqa: E402


def scipy_crossings(P, y0, n, rtol, atol, t_guess):
    """First n oriented crossings by solve_ivp(DOP853, events); returns (t, Y, seconds)."""
    J = P.J
    Ji = np.linalg.inv(J)
    mgr = P.mgrho

    def f(t, y):
        G, w = y[:3], y[3:]
        return np.concatenate([np.cross(G, w), Ji @ (np.cross(J @ w, w) + np.cross(mgr, G))])

    def ev(t, y):
        return y[0] * y[4] - y[1] * y[3]  # e3^T Gammadot = (Gamma x omega)_3

    t0 = time.perf_counter()
    sol = solve_ivp(f, (0.0, t_guess), y0, method="DOP853", rtol=rtol, atol=atol, events=ev)
    dt = time.perf_counter() - t0
    T, Y = sol.t_events[0], sol.y_events[0]
    side = np.cross(Y[:, :3], np.cross(Y[:, :3], Y[:, 3:]))[:, 2]
    keep = (side > 0) & (T > 1e-9)
    return T[keep][:n], Y[keep][:n], dt


def timeit(fn, repeat):
    ts = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t0)
    return min(ts), statistics.median(ts)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--scipy-crossings", type=int, default=60)
    ap.add_argument("--repeat", type=int, default=7)
    args = ap.parse_args()

    P = presets.paper_fig2().pendulum
    sec, (G0, w0) = PoincareSection.from_paper_ic(P, 0.0)
    y0 = np.concatenate([G0, w0])
    n_click = 1000
    print(f"machine: {os.cpu_count()} cores, numba {numba.__version__}, batch threads {_N_THREADS}, "
          f"load average {os.getloadavg()[0]:.2f}")
    print(f"paper_fig2, E = 0, mu = {sec.mu:.6f}, seed R0 = I, omega0 = {w0[0]:.6f} [1,1,1]; "
          f"project tolerances rtol = {sec.rtol:g}, atol = {sec.atol:g}\n")

    # ---- 1. one click ------------------------------------------------------------------------
    t0 = time.perf_counter()
    r = sec.crossings((G0, w0), n_click)
    cold = time.perf_counter() - t0
    best, med = timeit(lambda: sec.crossings((G0, w0), n_click), args.repeat)
    dE, dmu, g, s = sec.level_errors(r.Gamma, r.omega)

    k = args.scipy_crossings
    Ts, Ys, t_sp = scipy_crossings(P, y0, k, 1e-10, 1e-12, r.t[k - 1] + 0.3)
    per_sp = t_sp / len(Ts)
    sp_1000 = per_sp * n_click
    # accuracy over the first 20 crossings against a tight reference
    Tr, Yr, _ = scipy_crossings(P, y0, 20, 1e-13, 1e-15, r.t[19] + 0.3)
    err_ours = max(np.abs(r.Gamma[:20] - Yr[:, :3]).max(), np.abs(r.t[:20] - Tr).max())
    err_sp = max(np.abs(Ys[:20, :3] - Yr[:, :3]).max(), np.abs(Ts[:20] - Tr).max())
    g_sp = np.abs(np.cross(Ys[:, :3], Ys[:, 3:])[:, 2]).max()
    # scipy's energy error over its crossings
    sp_dE, _, _, _ = sec.level_errors(Ys[:, :3], Ys[:, 3:])

    print("1. One click: 1000 crossings, one trajectory (warm)")
    print(f"   {'':34s} {'time / 1000 crossings':>22s} {'max err 20 pts vs ref':>22s} {'max |e3.Gdot|':>14s} {'max dE/E_s':>11s}")
    print(f"   {'pendulum_explorer (numba)':34s} {best * 1e3:17.1f} ms   {err_ours:22.2e} {np.abs(g[:len(Ts)]).max():14.1e} {dE[:len(Ts)].max():11.1e}")
    print(f"   {'scipy solve_ivp DOP853 + events':34s} {sp_1000:17.1f} s *  {err_sp:22.2e} {g_sp:14.1e} {sp_dE.max():11.1e}")
    print(f"   * scipy timed on the first {len(Ts)} crossings ({t_sp:.2f} s) and scaled per crossing to 1000; the last two")
    print(f"     columns are over those {len(Ts)} crossings for both (numba over all 1000: |e3.Gdot| <= {np.abs(g).max():.1e}, "
          f"dE/E_s <= {dE.max():.1e}).  E_s = max(|E|, m g |rho|) since E = 0.")
    print(f"   numba: best {best * 1e3:.1f} ms, median {med * 1e3:.1f} ms of {args.repeat}; first call {cold * 1e3:.0f} ms; "
          f"{r.stats['n_accepted']} steps, {r.stats['n_rhs']} f-evals; max dmu/mu_s {dmu.max():.1e}")
    speed = sp_1000 / best
    print(f"   speed-up vs scipy: {speed:.0f}x   (target >= 300x: {'PASS' if speed >= 300 else 'FAIL'}); "
          f"click <= 50 ms: {'PASS' if best <= 0.05 else 'FAIL'}; accuracy equal or better: "
          f"{'PASS' if err_ours <= err_sp else 'FAIL'}\n")

    # ---- 2. batch ----------------------------------------------------------------------------
    m, nb = 40, 500
    reg = sec.accessible_region()
    rng = np.random.default_rng(0)
    seeds = []
    while len(seeds) < m:
        v = rng.normal(size=3)
        v /= np.linalg.norm(v)
        if sec.slack(v) > 0.05 * sec.energy_scale and np.hypot(v[0], v[1]) > 0.05:
            seeds.append(v)
    seeds = np.array(seeds)
    b = sec.batch(seeds, nb)  # warm
    c0 = time.process_time()
    tp, _ = timeit(lambda: sec.batch(seeds, nb), 3)
    cpu_per_wall = (time.process_time() - c0) / (3 * tp)
    nthreads = _N_THREADS
    with ThreadPoolExecutor(max_workers=1) as one:
        b1 = sec.batch(seeds, nb, executor=one)
        t1, _ = timeit(lambda: sec.batch(seeds, nb, executor=one), 2)
    same = np.array_equal(b.Gamma, b1.Gamma, equal_nan=True)
    print(f"2. Batch: {m} seeds x {nb} crossings (accessible fraction of the sphere {reg.area_fraction:.2f})")
    print(f"   {'thread pool, ' + str(nthreads) + ' threads':34s} {tp:8.2f} s")
    print(f"   {'one thread':34s} {t1:8.2f} s")
    print(f"   (CPU time / wall time while the pooled batch ran: {cpu_per_wall:.2f}; a value near 1 means the other "
          f"threads got no core — the machine load average is {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores)")
    print(f"   parallel speed-up {t1 / tp:.2f}x on {nthreads} threads; identical results: {same}; "
          f"statuses: {dict((x, b.status.count(x)) for x in sorted(set(b.status)))}; batch <= 3 s: {'PASS' if tp <= 3 else 'FAIL'}")
    print("   ('no_crossing': orbits that never return to P with e3^T(Gamma x Gammadot) > 0 within max_gap = "
          f"{MAX_GAP_SCALES * sec.time_scale:.0f} s; they run to that bound.)")


if __name__ == "__main__":
    main()
