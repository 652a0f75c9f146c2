"""The Taylor method against heyoka and the DOP853 tangent path, side by side in one run (issue 22, items 2-3).

    python benchmarks/bench_taylor_heyoka.py [--repeats 7] [--n 30] [--t-map 200] [--no-heyoka-tangent]

All times are process CPU time (``time.process_time``), the minimum of ``--repeats`` runs: the 2 cores are shared,
and CPU time is what a run costs whatever else runs.  Nothing here is a test.

A. ``simulate(method="taylor")`` and the Taylor kernel against heyoka (7.x) on the body of Fig. 2 (J = diag(0.13,
   0.28, 0.17), rho = [0, 0, 0.3]) from R0 = I, omega0 = c [1, 1, 1] with E = 0, T = 1000 s, 1001 samples, both at
   the tolerance of machine epsilon (order 20 for both: the same Jorba-Zou order and step rule), heyoka on the same
   6-dimensional ODE in its sparse form (only the nonzero terms of the diagonal-J equations):

   * pe kernel ``integrate_uniform_taylor`` (6 dims) with 1001 samples, vs heyoka ``propagate_grid``;
   * the same kernel with 2 samples (the step loop alone), vs heyoka ``propagate_until`` (its step loop);
   * the kernel carrying the attitude row (9 series, as ``simulate`` runs it) and ``simulate`` itself (kernel,
     step budget, R rebuilt, Trajectory), vs ``propagate_grid``.

   Accuracy beside the time: the largest energy error over the samples (relative to m g |rho|) and the largest
   state error against a reference from heyoka in extended precision (80-bit long double, tol 1e-19), over
   t <= 10 s and t <= 30 s (the orbit is chaotic: round-off errors grow ~10x every 5 s, O(1) by t = 100 s).
   The runs are interleaved (each repeat runs every row once) so that a change of the load hits all rows alike.
   Then where the kernel's time goes, per step: the jet (the Taylor coefficients), the step size, the Horner
   update, the dense output per sample, and simulate's Python around the kernel.

B. MEGNO on the cells of an ``n x n`` chaos map at E = 0 (the accessible cell centres ``chaos_map`` integrates),
   T = ``--t-map`` s per cell, one cell after the other on 1 thread: the Taylor tangent kernel
   (``taylor_tangent.tangent_many_taylor``) at tol 1e-12 against the DOP853 tangent path (``chaos.tangent_many``)
   at rtol = atol 1e-10 (the baseline) and 1e-9 (the chaos map's default), heyoka ``taylor_adaptive`` at tol 1e-12
   on the same 14 equations on a sample of the cells (its JIT compilation outside the timing), and DOP853 at 1e-13
   as the reference.  Reported: cells/s, the ratio to the baseline, the cells whose class (chaotic: Ybar > 4,
   ``section.results.CHAOTIC_MEGNO``) differs from the reference's and from the baseline's, and the largest
   relative difference of Ybar from the reference on the regular cells (Ybar < 3).
"""
from __future__ import annotations

import argparse
import os
import sys
import time

import numba
import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

import pendulum_explorer as pe  # noqa: E402
from pendulum_explorer._core import chaos as kc  # noqa: E402
from pendulum_explorer._core import fields as F  # noqa: E402
from pendulum_explorer._core import taylor as kt  # noqa: E402
from pendulum_explorer._core import taylor_tangent as tt  # noqa: E402
from pendulum_explorer.integrators import taylor_frame  # noqa: E402
from pendulum_explorer.poincare import PoincareSection, sphere_from_chart  # noqa: E402
from pendulum_explorer.presets import paper_fig2  # noqa: E402
from pendulum_explorer.section.results import CHAOTIC_MEGNO  # noqa: E402
from pendulum_explorer.trajectory import TAYLOR_TOL  # noqa: E402

try:
    import heyoka as hy
except ImportError:  # a bench extra, never a dependency
    hy = None

T_FINAL = 1000.0
N_OUT = 1001
P = paper_fig2().pendulum
p = P.params()
J = np.asarray(P.J)
MGRHO = p[18:21].copy()
E_SCALE = float(np.linalg.norm(MGRHO))
C0 = np.sqrt(2.0 * MGRHO[2] / np.sum(J))  # E = 0 for omega0 = c [1, 1, 1], R0 = I
W0 = C0 * np.ones(3)
Y0 = np.concatenate([np.eye(3)[2], W0])
GRID = np.linspace(0.0, T_FINAL, N_OUT)
ERR_WINDOWS = (10.0, 30.0)  # s: the errors against the reference, before chaos has amplified them to O(1)


def cpu_min(fn, repeats):
    """(minimum process CPU time over ``repeats`` calls, the last result)."""
    best, out = np.inf, None
    for _ in range(repeats):
        c = time.process_time()
        out = fn()
        best = min(best, time.process_time() - c)
    return best, out


def energy_error(Y):
    inv = np.empty((Y.shape[0], 2))
    F.invariants_batch(F.LP, np.ascontiguousarray(Y[:, :6]), p, inv)
    return float(np.max(np.abs(inv[:, 0] - inv[0, 0]))) / E_SCALE


def heyoka_lp(fp_type=float):
    """heyoka's integrator on the sparse diagonal-J form of Eqs (31)-(32) (only the nonzero terms)."""
    G = hy.make_vars("G0", "G1", "G2")
    w = hy.make_vars("w0", "w1", "w2")
    Jd = np.diag(J)
    Gdot = [G[1] * w[2] - G[2] * w[1], G[2] * w[0] - G[0] * w[2], G[0] * w[1] - G[1] * w[0]]
    wdot = []
    for i in range(3):
        j, k = (i + 1) % 3, (i + 2) % 3
        terms = [float((Jd[j] - Jd[k]) / Jd[i]) * w[j] * w[k]]
        if MGRHO[j] != 0.0:
            terms.append(float(MGRHO[j] / Jd[i]) * G[k])
        if MGRHO[k] != 0.0:
            terms.append(float(-MGRHO[k] / Jd[i]) * G[j])
        wdot.append(sum(terms[1:], terms[0]))
    sys_ = [(G[i], Gdot[i]) for i in range(3)] + [(w[i], wdot[i]) for i in range(3)]
    if fp_type is float:
        return hy.taylor_adaptive(sys_, list(Y0))
    return hy.taylor_adaptive(sys_, np.array(Y0, dtype=fp_type), fp_type=fp_type)


# ---- profiling harnesses (compiled here, not cached: the kernels' pieces called in a loop) ----
@numba.njit(cache=False)
def _prof_jet(X, order, q, attitude, n):
    s = 0.0
    for _ in range(n):
        kt.coefficients(X, order, q, attitude)
        s += X[order, 0]
    return s


@numba.njit(cache=False)
def _prof_step(X, order, n):
    s = 0.0
    for _ in range(n):
        s += kt.step_size(X, order)
    return s


@numba.njit(cache=False)
def _prof_horner(X, order, ncol, n):
    y = np.empty(kt.N_STATE)
    s = 0.0
    for i in range(n):
        kt.horner(X, order, 1e-3 * (i % 7), ncol, y)
        s += y[0]
    return s


def part_a(repeats):
    q, Q = taylor_frame(P)
    assert np.array_equal(Q, np.eye(3))  # Fig. 2: principal axes are the body axes (no rotation anywhere)
    order = kt.order_for(TAYLOR_TOL)
    ref = None
    if hy is not None:
        tl = heyoka_lp(np.longdouble)
        tl.time = np.longdouble(0.0)
        ref = np.asarray(tl.propagate_grid(np.array(GRID, dtype=np.longdouble))[5], dtype=np.float64)

    def errs(Y):
        if Y is None:
            return (np.nan,) * 3
        if ref is None:
            return (energy_error(Y),) + (np.nan,) * 2
        d = np.max(np.abs(Y[:, :6] - ref), axis=1)
        return (energy_error(Y),) + tuple(float(d[GRID <= tw].max()) for tw in ERR_WINDOWS)

    info = np.empty(2)
    Y6, Y2, Y15 = np.empty((N_OUT, 6)), np.empty((2, 6)), np.empty((N_OUT, 15))
    y15 = np.concatenate([Y0, np.eye(3).ravel()])
    runs = [  # (name, run, its samples for the errors, the heyoka row it compares with)
        ("pe Taylor kernel (6), 1001 samples",
         lambda: (kt.integrate_uniform_taylor(Y0, T_FINAL, N_OUT, q, order, 10**9, Y6, info)[0], Y6), "hy_grid"),
        ("pe Taylor kernel (6), 2 samples: step loop",
         lambda: (kt.integrate_uniform_taylor(Y0, T_FINAL, 2, q, order, 10**9, Y2, info)[0], None), "hy_until"),
        ("pe Taylor kernel (6 + R row), 1001 samples",
         lambda: (kt.integrate_uniform_taylor(y15, T_FINAL, N_OUT, q, order, 10**9, Y15, info)[0], Y15), "hy_grid"),
    ]

    def sim():
        tr = pe.simulate(P, np.eye(3), W0, T_FINAL, method="taylor", n_out=N_OUT)
        return tr.stats["n_steps"], np.concatenate([tr.Gamma, tr.omega], axis=1)
    runs.append(('pe simulate(method="taylor")', sim, "hy_grid"))
    if hy is not None:
        ta = heyoka_lp()

        def grid():
            ta.time = 0.0
            ta.state[:] = Y0
            res = ta.propagate_grid(GRID)
            return res[3], res[5]

        def until():
            ta.time = 0.0
            ta.state[:] = Y0
            return ta.propagate_until(T_FINAL)[3], None
        runs += [(f"heyoka propagate_grid (order {ta.order})", grid, "self:hy_grid"),
                 ("heyoka propagate_until: step loop", until, "self:hy_until")]
    for _name, fn, _vs in runs:
        fn()  # compile / load, outside the timing
    best = {name: np.inf for name, _fn, _vs in runs}
    out = {}
    for _ in range(repeats):  # interleaved: a change of the machine's load hits every row alike
        for name, fn, _vs in runs:
            c = time.process_time()
            out[name] = fn()
            best[name] = min(best[name], time.process_time() - c)
    base = {vs[5:]: best[name] for name, _fn, vs in runs if vs.startswith("self:")}
    rows = [(name, best[name], int(out[name][0]), errs(out[name][1]), vs) for name, _fn, vs in runs]
    c_att, c_sim = rows[2][1], rows[3][1]
    print(f"A. Fig. 2 body, E = 0, T = {T_FINAL:g} s, {N_OUT} samples, tol {TAYLOR_TOL:.2e} (order {order}); "
          f"CPU time, min of {repeats} interleaved runs")
    w1, w2 = ERR_WINDOWS
    print(f"{'run':46s} {'cpu ms':>8s} {'steps':>7s} {'ns/step':>8s} {'max|dE|/mg|rho|':>15s} "
          f"{f'err t<={w1:g}':>10s} {f'err t<={w2:g}':>10s} {'/heyoka':>8s}")
    for name, c, steps, (de, e1, e2), vs in rows:
        r = f"{c / base[vs]:7.2f}x" if vs in base else f"{'-':>8s}"
        print(f"{name:46s} {c * 1e3:8.2f} {steps:7d} {c / steps * 1e9:8.0f} {de:15.1e} {e1:10.1e} {e2:10.1e} {r}")
    print("(/heyoka: the kernel rows with 1001 samples and simulate against propagate_grid, the step loop against "
          "propagate_until; err: max |state - reference| over the samples, the reference heyoka in long double at tol "
          "1e-19; the orbit is chaotic: the error from round-off grows ~10x every 5 s and is O(1) by t = 100 s)")

    # where the time goes, per step, on the state of a real step
    X = np.zeros((order + 1, kt.NCOL))
    X[0, :6] = Y0
    X[0, 6:9] = np.eye(3)[0]
    steps = rows[0][2]
    n = 200000
    parts = []
    for label, fn, args in (("jet, 6 series (coefficients)", _prof_jet, (X, order, q, False)),
                            ("jet, 9 series (with the R row)", _prof_jet, (X, order, q, True)),
                            ("step size (Jorba-Zou)", _prof_step, (X, order)),
                            ("Horner update, 6 series", _prof_horner, (X, order, 6)),
                            ("Horner update, 9 series", _prof_horner, (X, order, 9))):
        fn(*args, 10)
        c, _ = cpu_min(lambda fn=fn, args=args: fn(*args, n), 3)
        parts.append((label, c / n * 1e9))
    print(f"\nper step (ns; the kernel (6), 1001 samples: {rows[0][1] / steps * 1e9:.0f} ns/step, "
          f"{N_OUT / steps:.3f} samples/step):")
    for label, ns in parts:
        print(f"  {label:40s} {ns:7.0f}")
    print(f"  {'simulate around the kernel (Python), per call':40s} {(c_sim - c_att) * 1e6:7.0f} us "
          f"({(c_sim - c_att) / c_sim * 100:.0f} % of simulate)")
    return rows, base


def heyoka_tangent(q, tol):
    """heyoka on the LP_TAN equations (principal frame: Gamma, omega, dGamma, domega, I1, I2)."""
    names = hy.make_vars("G0", "G1", "G2", "w0", "w1", "w2", "x0", "x1", "x2", "v0", "v1", "v2", "I1", "I2")
    G, w, x, v, I1 = names[0:3], names[3:6], names[6:9], names[9:12], names[12]

    def cross(a, b):
        return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])
    dw = [q[i] * w[(i + 1) % 3] * w[(i + 2) % 3] + q[3 + 2 * i] * G[(i + 2) % 3] - q[4 + 2 * i] * G[(i + 1) % 3]
          for i in range(3)]
    e, f = cross(x, w), cross(G, v)
    dx = [e[i] + f[i] for i in range(3)]
    dv = [q[i] * (v[(i + 1) % 3] * w[(i + 2) % 3] + w[(i + 1) % 3] * v[(i + 2) % 3]) + q[3 + 2 * i] * x[(i + 2) % 3]
          - q[4 + 2 * i] * x[(i + 1) % 3] for i in range(3)]
    num = sum(x[i] * dx[i] + v[i] * dv[i] for i in range(3))
    den = sum(x[i] * x[i] + v[i] * v[i] for i in range(3))
    rhs = list(cross(G, w)) + dw + dx + dv + [hy.time * num / den, 2.0 * I1 / hy.time]
    return hy.taylor_adaptive(list(zip(names, rhs)), [0.1] * 14, tol=tol, time=1e-12)


def part_b(n, T, repeats, hy_sample):
    sec, _ = PoincareSection.from_paper_ic(P, 0.0)
    pl = sec.level.p
    cm = sec.chaos_map((n, n), 1.0)  # the grid and its accessible cells (T = 1 s: cheap)
    Jz, Iphi = np.nonzero(cm.accessible)
    Y, _ = sec.states_at(sphere_from_chart(cm.phi[Iphi], cm.z[Jz]))
    Y = np.ascontiguousarray(Y)
    m = Y.shape[0]
    q, Q = taylor_frame(P)
    runs = {}

    def run(name, fn, rows=slice(None), reps=repeats):
        Ys = np.ascontiguousarray(Y[rows])
        k = Ys.shape[0]
        yb, ly, info = np.empty(k), np.empty(k), np.zeros((k, kc.N_TAN_INFO), dtype=np.int64)
        fn(Ys[:1], yb[:1], ly[:1], info[:1])  # compile / load outside the timing
        c, _ = cpu_min(lambda: fn(Ys, yb, ly, info), reps)
        runs[name] = (c, k, yb.copy(), info[:, 1].mean())

    def dop(rt):
        return lambda Y0_, a, b, i: kc.tangent_many(Y0_, pl, T, rt, rt, 10**8, False, a, b, i)
    run("DOP853 tangent, rtol 1e-10 (baseline)", dop(1e-10))
    run("DOP853 tangent, rtol 1e-9 (chaos_map default)", dop(1e-9))
    order = kt.order_for(1e-12)
    run(f"Taylor tangent, tol 1e-12 (order {order})",
        lambda Y0_, a, b, i: tt.tangent_many_taylor(Y0_, pl, q, Q, T, order, 10**8, False, a, b, i))
    run("DOP853 tangent, rtol 1e-13 (reference)", dop(1e-13), reps=1)
    sample = np.random.default_rng(0).choice(m, size=min(hy_sample, m), replace=False) if hy_sample else None
    if hy is not None and sample is not None and sample.size:
        ta = heyoka_tangent(q, 1e-12)

        def hy_run(Y0_, a, b, i):
            y = np.zeros(14)
            U = np.empty((3, 6))
            for k in range(Y0_.shape[0]):
                y[:6] = Y0_[k]
                kc.initial_deviation(y, pl, False, U)
                ta.state[:12] = np.concatenate([Q.T @ y[3 * j:3 * j + 3] for j in range(4)])
                ta.state[12:] = 0.0
                ta.time = 1e-12
                _, _, _, nst, *_ = ta.propagate_until(T)
                a[k] = ta.state[13] / T
                i[k, 1] = nst
        run(f"heyoka tangent, tol 1e-12 ({sample.size} cells)", hy_run, rows=sample, reps=1)
    ref = runs["DOP853 tangent, rtol 1e-13 (reference)"][2]
    base_name = "DOP853 tangent, rtol 1e-10 (baseline)"
    bc, bk, bvals, _ = runs[base_name]
    print(f"\nB. MEGNO on the {m} accessible cells of a {n} x {n} chaos map, E = 0, T = {T:g} s, 1 thread; CPU time, "
          f"min of {repeats} (the reference and heyoka: 1 run)")
    print(f"{'run':46s} {'cpu s':>7s} {'cells':>6s} {'cells/s':>8s} {'x base':>7s} {'steps':>7s} {'class!=ref':>10s} "
          f"{'class!=base':>11s} {'max rel dY (reg)':>16s}")
    for name, (c, k, vals, steps) in runs.items():
        rv = ref if k == m else ref[sample]
        bv = bvals if k == m else bvals[sample]
        reg = rv < 3.0
        dif_ref = int(np.sum((vals > CHAOTIC_MEGNO) != (rv > CHAOTIC_MEGNO)))
        dif_base = int(np.sum((vals > CHAOTIC_MEGNO) != (bv > CHAOTIC_MEGNO)))
        dmax = float(np.max(np.abs(vals[reg] - rv[reg]) / rv[reg])) if reg.any() else np.nan
        print(f"{name:46s} {c:7.2f} {k:6d} {k / c:8.1f} {(k / c) / (bk / bc):6.2f}x {steps:7.0f} {dif_ref:10d} "
              f"{dif_base:11d} {dmax:16.1e}")
    print(f"(class: chaotic when Ybar > {CHAOTIC_MEGNO:g}; {int(np.sum(ref > CHAOTIC_MEGNO))} of {m} cells chaotic "
          f"in the reference; steps: mean accepted steps per cell)")
    return runs


def part_c(n_seeds, n_cross):
    """The fill: ``n_seeds`` seeds x ``n_cross`` crossings on the E = 0 section, crossings/s (1 thread)."""
    from pendulum_explorer._core import lanes as ln
    from pendulum_explorer._core.dop853_tableau import N_STAGES
    sec, _ = PoincareSection.from_paper_ic(P, 0.0)
    sec_t, _ = PoincareSection.from_paper_ic(P, 0.0, method="taylor")
    cm = sec.chaos_map((24, 24), 1.0)  # a pool of accessible cell centres for the seeds
    Jz, Iphi = np.nonzero(cm.accessible)
    Y, _ = sec.states_at(sphere_from_chart(cm.phi[Iphi], cm.z[Jz]))
    pick = np.random.default_rng(1).choice(Y.shape[0], size=min(n_seeds, Y.shape[0]), replace=False)
    S0 = Y[pick]
    S = np.array([sec.check_seed((y[:3], y[3:])) for y in S0])  # what crossings() integrates
    lim = sec.level.limits(n_cross, None, None, None)
    pl = sec.level.p
    sec.crossings((S0[0, :3], S0[0, 3:]), 2)
    sec_t.crossings((S0[0, :3], S0[0, 3:]), 2)
    ln.crossings_all(S[:2], pl, 2, *lim[1:], sec.rtol, sec.atol)
    rows = []
    c, res = cpu_min(lambda: [sec.crossings((y[:3], y[3:]), n_cross) for y in S0], 1)
    found_b = sum(len(r.t) for r in res)
    rows.append((f"baseline: DOP853 crossings() one by one (rtol {sec.rtol:g})", c, found_b))
    c, (Yc, Tc, info) = cpu_min(lambda: ln.crossings_all(S, pl, n_cross, *lim[1:], sec.rtol, sec.atol), 1)
    rows.append(("DOP853 lanes (crossings_all, 8 lanes)", c, int(info[:, 0].sum())))
    c, res_t = cpu_min(lambda: [sec_t.crossings((y[:3], y[3:]), n_cross) for y in S0], 1)
    rows.append(("Taylor crossings() one by one (tol eps, order 20)", c, sum(len(r.t) for r in res_t)))
    steps = info[:, 2] + info[:, 3]
    loc = info[:, 4] - N_STAGES * steps  # the RHS evaluations of the crossing location (dense output, polishing)
    print(f"\nC. Fill: {S.shape[0]} seeds x {n_cross} crossings, E = 0 section, 1 thread; CPU time, 1 run")
    print(f"{'run':52s} {'cpu s':>7s} {'crossings':>9s} {'cross/s':>8s} {'x base':>7s}")
    bc, bk = rows[0][1], rows[0][2]
    for name, c, k in rows:
        print(f"{name:52s} {c:7.2f} {k:9d} {k / c:8.0f} {(k / c) / (bk / bc):6.2f}x")
    print(f"(per step, location included: scalar {bc / steps.sum() * 1e9:.0f} ns, lanes "
          f"{rows[1][1] / steps.sum() * 1e9:.0f} ns per lane-step; Taylor {rows[2][1] / sum(r.stats['n_accepted'] for r in res_t) * 1e9:.0f} ns a step, "
          f"{sum(r.stats['n_accepted'] for r in res_t) / rows[2][2]:.1f} steps a crossing)")
    print(f"(DOP853 at rtol {sec.rtol:g}: {steps.sum() / max(info[:, 0].sum(), 1):.1f} steps a crossing; the location "
          f"takes {loc.sum() / info[:, 4].sum() * 100:.0f} % of the right-hand-side evaluations, scalar in the lanes; "
          f"first crossing, Taylor vs DOP853: max |dGamma| "
          f"{max(float(np.max(np.abs(a.Gamma[0] - b.Gamma[0]))) for a, b in zip(res, res_t)):.1e})")
    return rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=15)
    ap.add_argument("--n", type=int, default=30)
    ap.add_argument("--t-map", type=float, default=200.0)
    ap.add_argument("--heyoka-sample", type=int, default=40)
    ap.add_argument("--seeds", type=int, default=60)
    ap.add_argument("--crossings", type=int, default=1000)
    args = ap.parse_args()
    load0 = os.getloadavg()
    print(f"numba {numba.__version__}, numpy {np.__version__}" + (f", heyoka {hy.__version__}" if hy else
                                                                   " (heyoka not installed: its rows skipped)")
          + f"; {os.cpu_count()} CPUs, load average {load0[0]:.2f}\n")
    rows, base = part_a(args.repeats)
    runs = part_b(args.n, args.t_map, max(1, args.repeats // 7), args.heyoka_sample)
    fill = part_c(args.seeds, args.crossings) if args.seeds else None
    print("\ntargets (issue 22)")
    if base:
        sim, k2 = rows[3][1], rows[1][1]
        print(f"{'PASS' if sim <= base['hy_grid'] else 'MISS'}  simulate(taylor) <= 1.0x heyoka propagate_grid: "
              f"{sim / base['hy_grid']:.2f}x")
        print(f"{'PASS' if k2 <= 0.7 * base['hy_until'] else 'MISS'}  Taylor kernel (step loop) <= 0.7x heyoka "
              f"propagate_until: {k2 / base['hy_until']:.2f}x; with 1001 samples vs propagate_grid "
              f"{rows[0][1] / base['hy_grid']:.2f}x")
    names = list(runs)
    (bc, bk, *_), (tc, tk, *_) = runs[names[0]], runs[names[2]]
    print(f"{'PASS' if tc / tk < bc / bk else 'MISS'}  MEGNO with Taylor at tol 1e-12 costs less per cell than DOP853 "
          f"at 1e-10: {(tk / tc) / (bk / bc):.2f}x the cells/s")
    if fill:
        (bc, bk), (lc, lk), (tc, tk) = [(r[1], r[2]) for r in fill]
        print(f"(DOP853 crossing lanes {(lk / lc) / (bk / bc):.2f}x, Taylor one by one {(tk / tc) / (bk / bc):.2f}x the "
              f"crossings/s of crossings() one by one; the fill target is measured on the Taylor lanes by bench_fill.py)")
    load1 = os.getloadavg()
    print(f"(load average before {load0[0]:.2f}, after {load1[0]:.2f})")


if __name__ == "__main__":
    main()
