"""Side-by-side benchmark of the integrators (issue #2, section 8).  Not a test: nothing here is asserted.

Problem: the body of Fig. 2 (J = diag(0.13, 0.28, 0.17), rho = [0, 0, 0.3], m = 1, g = 9.81) from R0 = I,
omega0 = c [1, 1, 1] with c chosen so that E = 0, integrated to T = 1000 s and sampled on 1001 evenly spaced
times (the errors below are maxima over these samples).

Rows
----
* project DOP853, LP model (6-dim kernel ``integrate_uniform``), rtol 1e-10 / atol 1e-12 and 1e-12 / 1e-14;
* project DOP853 through ``simulate`` (the LP step carrying the first row of R, 9 dims, R rebuilt at the
  outputs, plus Trajectory assembly);
* project LGVI (``integrate_lgvi`` kernel, h = 0.005, 200 000 steps);
* scipy ``solve_ivp(method="DOP853", rtol=1e-10, atol=1e-12)`` on the same 6-dim equations, run once each,
  twice: (a) with the right-hand side written in NumPy, as a scipy user writes it (the set-up of the issue's
  30-40 s calibration), and (b) with a Python wrapper calling the project's compiled ``rhs`` (the strictest
  baseline: what is left is scipy's own per-step overhead);
* project Taylor method (issue 13): the 6-dim LP kernel ``integrate_uniform_taylor`` and ``simulate(method=
  "taylor")`` (LP + the first row of R), at the default tolerance (machine epsilon, order 20);
* heyoka ``taylor_adaptive`` at its default tolerance (machine epsilon) on the same ODE built in heyoka's
  expression system, twice: written with the full J matrix, and in the sparse form of a diagonal J (only the
  nonzero terms: the faster form, the one the Taylor target compares with); skipped with a note when heyoka
  is not importable (a bench extra, never a dependency).

Wall times are warm (compilation excluded) and the best of a few repeats for the fast rows; 2 CPU cores are
shared with other work, so best-of is the meaningful number.  Energy errors are divided by the energy scale
m g |rho| (= 2.943 J here; E itself is 0).  Then subprocesses measure the cold JIT compilation of every
kernel (``PENDULUM_EXPLORER_NO_CACHE=1``: import + ``pendulum_explorer._warmup.run()``, best of 2, wall and CPU
time) and import plus first call from a warm cache (best of 3).

Run:  python benchmarks/bench_integrators.py [--quick]   (--quick: T = 100 s, for a smoke test)
"""
from __future__ import annotations

import os
import resource
import subprocess
import sys
import textwrap
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

import pendulum_explorer as pe  # noqa: E402
from pendulum_explorer._core import dop853 as dop  # noqa: E402
from pendulum_explorer._core import fields as F  # noqa: E402
from pendulum_explorer._core import taylor  # noqa: E402
from pendulum_explorer._core.lgvi import integrate_lgvi  # noqa: E402
from pendulum_explorer.presets import paper_fig2  # noqa: E402
from pendulum_explorer.trajectory import TAYLOR_TOL, orthogonality_errors, taylor_frame  # noqa: E402

QUICK = "--quick" in sys.argv
T_FINAL = 100.0 if QUICK else 1000.0
N_OUT = 1001
H_LGVI = 0.005
REPEATS = 5

# targets (issue #2, section 8; issue 13)
SPEEDUP_VS_SCIPY = 1000.0
SIM_OVER_KERNEL = 1.3
TAYLOR_DE = 3e-14
TAYLOR_MOONSHOT = 0.7
LGVI_NS_PER_STEP = 150.0
COLD_JIT_S = 20.0
WARM_FIRST_CALL_S = 1.0

P = paper_fig2().pendulum
p = P.params()
J = np.asarray(P.J)
mgrho = p[18:21].copy()
E_SCALE = float(np.linalg.norm(mgrho))  # m g |rho|
R0 = np.eye(3)
C0 = np.sqrt(2.0 * mgrho[2] / np.sum(J))  # E = c^2/2 * sum(J) - m g rho_3 = 0 for omega0 = c [1, 1, 1]
W0 = C0 * np.ones(3)
Y0_LP = np.concatenate([R0[2, :], W0])
T_GRID = np.linspace(0.0, T_FINAL, N_OUT)


def invariants_lp(Y):
    """E and mu on rows (Gamma, omega)."""
    inv = np.empty((Y.shape[0], 2))
    F.invariants_batch(F.LP, np.ascontiguousarray(Y[:, :6]), p, inv)
    return inv[:, 0], inv[:, 1]


def errors(Y, R=None):
    E, mu = invariants_lp(Y)
    d = {"dE": float(np.max(np.abs(E - E[0]))) / E_SCALE, "dmu": float(np.max(np.abs(mu - mu[0])))}
    d["orth"] = float(orthogonality_errors(R).max()) if R is not None else None
    return d


LAST_CPU = [np.nan]  # best process CPU time of the last best_of (less sensitive than wall time to other load)


def best_of(fn, repeats):
    best = np.inf
    cpu = np.inf
    out = None
    for _ in range(repeats):
        t0 = time.perf_counter()
        c0 = time.process_time()
        out = fn()
        cpu = min(cpu, time.process_time() - c0)
        best = min(best, time.perf_counter() - t0)
    LAST_CPU[0] = cpu
    return best, out


rows = []


ROW = {}  # key -> row, for the targets


def add(name, wall, steps, err, note="", key=None, cpu=None):
    cpu = LAST_CPU[0] if cpu is None else cpu
    LAST_CPU[0] = np.nan
    rows.append({"name": name, "wall": wall, "steps": steps, "err": err, "note": note, "cpu": cpu})
    if key is not None:
        ROW[key] = rows[-1]


# ---------------------------------------------------------------------------------------------------------
# project DOP853, 6-dim LP kernel
TOLS = ((1e-10, 1e-12), (1e-12, 1e-14))
for rtol, atol in TOLS:
    Y = np.empty((N_OUT, 6))
    dop.integrate_uniform(F.LP, Y0_LP, 1.0, 3, p, rtol, atol, 10**9, Y[:3])  # compile / load

    def run(rtol=rtol, atol=atol, Y=Y):
        return dop.integrate_uniform(F.LP, Y0_LP, T_FINAL, N_OUT, p, rtol, atol, 10**9, Y)

    wall, st = best_of(run, REPEATS)
    add(f"DOP853 LP kernel (6)  rtol {rtol:.0e}", wall, int(st[0]), errors(Y),
        f"{int(st[1])} rejected, {int(st[2])} f-evals", key=("dop_lp", rtol))

# project DOP853 through simulate (LP + the first row of R, 9 dims)
for rtol, atol in TOLS:
    pe.simulate(P, R0, W0, 1.0, method="dop853", rtol=rtol, atol=atol, n_out=3)

    def run(rtol=rtol, atol=atol):
        return pe.simulate(P, R0, W0, T_FINAL, method="dop853", rtol=rtol, atol=atol, n_out=N_OUT)

    wall, tr = best_of(run, REPEATS)
    add(f"DOP853 simulate (LP+R row) {rtol:.0e}", wall, tr.stats["n_steps"],
        errors(np.concatenate([tr.Gamma, tr.omega], axis=1), tr.R), f"{tr.stats['n_rejected']} rejected",
        key=("dop_sim", rtol))

# project Taylor: 6-dim LP kernel and simulate (LP + attitude row)
q_t, Q_t = taylor_frame(P)
order_t = taylor.order_for(TAYLOR_TOL)
YT = np.empty((N_OUT, 6))
info_t = np.empty(2)
y0_t = np.concatenate([Q_t.T @ Y0_LP[:3], Q_t.T @ Y0_LP[3:]])
taylor.integrate_uniform_taylor(y0_t, 1.0, 3, q_t, order_t, 10**9, YT[:3], info_t)
wall, st = best_of(lambda: taylor.integrate_uniform_taylor(y0_t, T_FINAL, N_OUT, q_t, order_t, 10**9, YT, info_t),
                   REPEATS)
YT_orig = np.concatenate([YT[:, :3] @ Q_t.T, YT[:, 3:] @ Q_t.T], axis=1)
add("Taylor LP kernel (6)  tol eps", wall, int(st[0]), errors(YT_orig),
    f"order {order_t}, mean step {info_t[1]:.4f} s", key="taylor_lp")
pe.simulate(P, R0, W0, 1.0, method="taylor", n_out=3)
wall, tr = best_of(lambda: pe.simulate(P, R0, W0, T_FINAL, method="taylor", n_out=N_OUT), REPEATS)
add("Taylor simulate (LP + R row)  tol eps", wall, tr.stats["n_steps"],
    errors(np.concatenate([tr.Gamma, tr.omega], axis=1), tr.R), f"order {tr.stats['order']}", key="taylor_sim")

# project LGVI kernel
n_steps = int(round(T_FINAL / H_LGVI))
stride = n_steps // (N_OUT - 1)
RL = np.empty((N_OUT, 3, 3))
WL = np.empty((N_OUT, 3))
integrate_lgvi(R0, W0, H_LGVI, 10, 10, p, RL[:2], WL[:2])
wall, st = best_of(lambda: integrate_lgvi(R0, W0, H_LGVI, n_steps, stride, p, RL, WL), REPEATS)
add(f"LGVI kernel  h = {H_LGVI}", wall, n_steps, errors(np.concatenate([RL[:, 2, :], WL], axis=1), RL),
    f"{int(st[1]) / n_steps:.2f} Newton it/step", key="lgvi")

# scipy
try:
    from scipy.integrate import solve_ivp

    def f_py(t, y):
        dy = np.empty(6)
        F.rhs(F.LP, t, y, p, dy)
        return dy

    Jinv = np.linalg.inv(J)

    def f_numpy(t, y):
        """Eqs (31)-(32) in NumPy."""
        G, w = y[:3], y[3:]
        return np.concatenate([np.cross(G, w), Jinv @ (np.cross(J @ w, w) + np.cross(mgrho, G))])

    SCIPY = {}
    for label, fun in (("NumPy rhs", f_numpy), ("compiled rhs", f_py)):
        fun(0.0, Y0_LP)
        t0 = time.perf_counter()
        c0 = time.process_time()
        sol = solve_ivp(fun, (0.0, T_FINAL), Y0_LP, method="DOP853", rtol=1e-10, atol=1e-12, t_eval=T_GRID)
        wall = time.perf_counter() - t0
        LAST_CPU[0] = time.process_time() - c0
        steps = (sol.nfev - 2) // 12  # 12 evaluations per step attempt (+2 for the start)
        add(f"scipy DOP853 1e-10, {label}", wall, steps, errors(sol.y.T), f"{sol.nfev} f-evals, steps=attempts",
            key=("scipy", label))
        SCIPY[label] = rows[-1]
except ImportError:
    SCIPY = None
    print("note: scipy not importable, scipy row skipped")

# heyoka
HEYOKA = None
try:
    import heyoka as hy
except ImportError:
    print("note: heyoka not importable (bench extra: pip install heyoka, Linux only), heyoka row skipped")
else:
    G = hy.make_vars("G0", "G1", "G2")
    w = hy.make_vars("w0", "w1", "w2")
    Ji = np.linalg.inv(J)
    Jw = [sum(float(J[i, k]) * w[k] for k in range(3)) for i in range(3)]

    def cross(a, b):
        return [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]

    def heyoka_rows(Gdot, wdot, name, key):
        sys_ = [(G[i], Gdot[i]) for i in range(3)] + [(w[i], wdot[i]) for i in range(3)]
        t0 = time.perf_counter()
        ta = hy.taylor_adaptive(sys_, list(Y0_LP))
        t_build = time.perf_counter() - t0

        def run_hy():
            ta.time = 0.0
            ta.state[:] = Y0_LP
            return ta.propagate_grid(T_GRID)

        wall, res = best_of(run_hy, REPEATS)
        add(name, wall, int(res[3]), errors(res[5]), f"tol {ta.tol:.1e}, order {ta.order}, build {t_build:.1f} s",
            key=key)

    # (a) the full matrix form: J^-1 (J w x w + m g rho x Gamma)
    tq = cross(Jw, w)
    tg = cross([float(v) for v in mgrho], G)
    tot = [tq[i] + tg[i] for i in range(3)]
    wdot = [sum(float(Ji[i, k]) * tot[k] for k in range(3)) for i in range(3)]
    heyoka_rows(cross(G, w), wdot, "heyoka (default tol), full J", "heyoka_full")
    # (b) the sparse diagonal-J form: w_i' = c_i w_j w_k + (m g rho x Gamma)_i / J_i, zero terms left out
    Jd = np.diag(J)
    wdot = []
    for i in range(3):
        j, k = (i + 1) % 3, (i + 2) % 3
        terms = [float((Jd[j] - Jd[k]) / Jd[i]) * w[j] * w[k]]
        if mgrho[j] != 0.0:
            terms.append(float(mgrho[j] / Jd[i]) * G[k])
        if mgrho[k] != 0.0:
            terms.append(float(-mgrho[k] / Jd[i]) * G[j])
        wdot.append(sum(terms[1:], terms[0]))
    heyoka_rows(cross(G, w), wdot, "heyoka (default tol), sparse diag J", "heyoka")
    HEYOKA = ROW["heyoka"]


# ---------------------------------------------------------------------------------------------------------
# compilation: cold (no cache) and warm cache
def run_sub(code, env_extra):
    """(subprocess wall time, the in-process time it prints, its CPU time user + sys)."""
    env = dict(os.environ)
    env.update(env_extra)
    env["PYTHONPATH"] = ROOT + os.pathsep + env.get("PYTHONPATH", "")
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=env, capture_output=True,
                         text=True, check=True)
    wall = time.perf_counter() - t0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
    return wall, float(out.stdout.strip().splitlines()[-1]), cpu


COLD = """
    import time
    t0 = time.perf_counter()
    import pendulum_explorer
    from pendulum_explorer import _warmup
    _warmup.run()
    print(time.perf_counter() - t0)
"""
FIRST_CALL = """
    import time
    t0 = time.perf_counter()
    import numpy as np
    import pendulum_explorer as pe
    from pendulum_explorer.presets import paper_fig2
    pe.simulate(paper_fig2().pendulum, np.eye(3), [1.0, 1.0, 1.0], 1.0, method="dop853", n_out=11)
    print(time.perf_counter() - t0)
"""
# the best of 2 cold runs (the 2 cores are shared: the best is the compile work, the rest waiting for a core)
cold_runs = [run_sub(COLD, {"PENDULUM_EXPLORER_NO_CACHE": "1"}) for _ in range(2)]
cold_proc, cold, cold_cpu = min(r[0] for r in cold_runs), min(r[1] for r in cold_runs), min(r[2] for r in cold_runs)
run_sub(COLD, {})  # make sure the on-disk cache is warm (normally done by the set-up command)
warm = min(run_sub(FIRST_CALL, {})[1] for _ in range(3))

# ---------------------------------------------------------------------------------------------------------
# table
scipy_np = SCIPY["NumPy rhs"]["wall"] if SCIPY else np.nan
scipy_jit = SCIPY["compiled rhs"]["wall"] if SCIPY else np.nan
print()
print(f"Fig. 2 body, E = 0 (omega0 = {C0:.6f} [1, 1, 1], R0 = I), T = {T_FINAL:g} s, {N_OUT} samples; "
      f"E-scale = m g |rho| = {E_SCALE:.4g} J")
print(f"python {sys.version.split()[0]}, numpy {np.__version__}, numba "
      f"{__import__('numba').__version__}" + (f", heyoka {hy.__version__}" if HEYOKA else ""))
hdr = (f"{'integrator':38s} {'wall':>10s} {'cpu':>9s} {'steps':>8s} {'ns/step':>8s} {'max|dE|/mg|rho|':>15s} "
       f"{'max|dmu|':>9s} {'|RtR-I|':>9s} {'/scipy-np':>9s} {'/scipy-jit':>10s}  notes")
print(hdr)
print("-" * len(hdr))
for r in rows:
    e = r["err"]
    wall = r["wall"]
    ws = f"{wall * 1e3:8.2f}ms" if wall < 10 else f"{wall:9.2f}s"
    orth = f"{e['orth']:9.1e}" if e["orth"] is not None else f"{'-':>9s}"
    cs = f"{r['cpu'] * 1e3:7.2f}ms" if np.isfinite(r["cpu"]) else f"{'-':>9s}"
    print(f"{r['name']:38s} {ws:>10s} {cs:>9s} {r['steps']:8d} {wall / r['steps'] * 1e9:8.0f} {e['dE']:15.2e} "
          f"{e['dmu']:9.1e} {orth} {scipy_np / wall:8.0f}x {scipy_jit / wall:9.0f}x  {r['note']}")
print("(cpu: best process CPU time of the repeats, printed because the 2 cores are often shared; the targets "
      "use wall time, the cpu ratio is given beside them)")
print("(/scipy-np, /scipy-jit: speed-up over scipy's DOP853 with the NumPy / the compiled right-hand side)")
print("(ns/step = wall / accepted steps; DOP853 tolerances: rtol 1e-10 with atol 1e-12, rtol 1e-12 with "
      "atol 1e-14)")
print(f"cold JIT of all kernels (import + _warmup.run(), PENDULUM_EXPLORER_NO_CACHE=1): {cold:.1f} s "
      f"(subprocess {cold_proc:.1f} s, CPU user + sys {cold_cpu:.1f} s; best of 2)")
print(f"import + first simulate() from a warm cache: {warm:.2f} s (best of 3, in-process timer)")

# targets
print()
res = []


def target(name, ok, detail):
    res.append(ok)
    print(f"{'PASS' if ok else 'MISS'}  {name}: {detail}")


dop_rows = [ROW[(k, rt)] for k in ("dop_lp", "dop_sim") for rt, _ in TOLS]
for label, ref in SCIPY.items():
    name = f"DOP853 >= {SPEEDUP_VS_SCIPY:g}x scipy ({label}) at equal or smaller |dE|"
    cands = [r for r in dop_rows if r["err"]["dE"] <= ref["err"]["dE"]]
    best = min(cands, key=lambda r: r["wall"]) if cands else None
    if best is None:
        target(name, False, "no project DOP853 run reaches scipy's error")
    else:
        target(name, ref["wall"] / best["wall"] >= SPEEDUP_VS_SCIPY,
               f"{best['name'].strip()}: {ref['wall'] / best['wall']:.0f}x ({ref['wall']:.2f} s / "
               f"{best['wall'] * 1e3:.1f} ms), |dE| {best['err']['dE']:.1e} <= scipy {ref['err']['dE']:.1e}")
sim10 = ROW[("dop_sim", 1e-10)]
if SCIPY:
    ref = SCIPY["NumPy rhs"]
    target(f"simulate(dop853, rtol 1e-10) >= {SPEEDUP_VS_SCIPY:g}x scipy (NumPy rhs)",
           ref["wall"] / sim10["wall"] >= SPEEDUP_VS_SCIPY,
           f"{ref['wall'] / sim10['wall']:.0f}x ({sim10['wall'] * 1e3:.1f} ms)")
for rt, _ in TOLS:
    s_, k_ = ROW[("dop_sim", rt)], ROW[("dop_lp", rt)]
    target(f"simulate(dop853, rtol {rt:.0e}) <= {SIM_OVER_KERNEL:g}x the DOP853 LP kernel",
           s_["wall"] <= SIM_OVER_KERNEL * k_["wall"],
           f"{s_['wall'] * 1e3:.1f} ms / {k_['wall'] * 1e3:.1f} ms = {s_['wall'] / k_['wall']:.2f}x "
           f"(cpu {s_['cpu'] / k_['cpu']:.2f}x)")
tk, ts = ROW["taylor_lp"], ROW["taylor_sim"]
target(f"Taylor LP max|dE|/(m g|rho|) <= {TAYLOR_DE:g}", tk["err"]["dE"] <= TAYLOR_DE, f"{tk['err']['dE']:.1e}")
if HEYOKA:
    r = tk["wall"] / HEYOKA["wall"]
    target("Taylor LP kernel no slower than heyoka (sparse diagonal-J form, default tol)", r <= 1.0,
           f"{tk['wall'] * 1e3:.2f} ms vs heyoka {HEYOKA['wall'] * 1e3:.2f} ms = {r:.2f}x "
           f"(cpu {tk['cpu'] / HEYOKA['cpu']:.2f}x) "
           f"({tk['wall'] / tk['steps'] * 1e9:.0f} vs {HEYOKA['wall'] / HEYOKA['steps'] * 1e9:.0f} ns/step; "
           f"|dE| {tk['err']['dE']:.1e} vs {HEYOKA['err']['dE']:.1e})")
    target(f"moonshot: Taylor LP kernel <= {TAYLOR_MOONSHOT:g}x heyoka", r <= TAYLOR_MOONSHOT, f"{r:.2f}x")
target(f"simulate(taylor) <= {SIM_OVER_KERNEL:g}x the Taylor LP kernel", ts["wall"] <= SIM_OVER_KERNEL * tk["wall"],
       f"{ts['wall'] * 1e3:.2f} ms / {tk['wall'] * 1e3:.2f} ms = {ts['wall'] / tk['wall']:.2f}x "
       f"(cpu {ts['cpu'] / tk['cpu']:.2f}x)")
lg = ROW["lgvi"]
target(f"LGVI <= {LGVI_NS_PER_STEP:g} ns/step (h = {H_LGVI})", lg["wall"] / lg["steps"] * 1e9 <= LGVI_NS_PER_STEP,
       f"{lg['wall'] / lg['steps'] * 1e9:.0f} ns/step")
target(f"cold JIT <= {COLD_JIT_S:g} s", cold <= COLD_JIT_S, f"{cold:.1f} s (CPU {cold_cpu:.1f} s)")
target(f"import + first call (warm cache) <= {WARM_FIRST_CALL_S:g} s", warm <= WARM_FIRST_CALL_S, f"{warm:.2f} s")
print(f"(load average at the end: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs)")
