"""Ensembles (issue 22): ``pe.ensemble`` (Taylor lanes) against heyoka's batch mode, side by side in one run.

    python benchmarks/bench_ensemble.py [--n 1000] [--t-final 100] [--repeats 3] [--scalar-sample 200]

The Fig. 2 body (J = diag(0.13, 0.28, 0.17), rho = [0, 0, 0.3]) at E = 0: ``--n`` states with Gamma drawn at random
on the side of the sphere where the level is accessible and omega along a random direction scaled to E = 0 (fixed
seed), each integrated over ``--t-final`` s at the tolerance of machine epsilon (order 20 for every integrator:
the same Jorba-Zou order and step rule), the final state kept.  Rows:

* ``pe.ensemble`` on one thread (``n_chunks=1``) and on the process's thread pool (all cores);
* the scalar Taylor kernel one by one (``integrate_uniform_taylor``, 6 dims, 2 samples: the step loop of
  ``simulate(method="taylor")`` without the attitude), on ``--scalar-sample`` of the states;
* heyoka ``taylor_adaptive_batch`` at its ``recommended_simd_size()`` (the baseline), ``propagate_until``,
  one batch after another on one thread; heyoka ``taylor_adaptive`` one by one on the same sample.  heyoka
  integrates the sparse form of the same ODE (only the nonzero terms of Eq 31 for this rho); its JIT compilation
  is outside the timing.

Reported per row: wall and CPU time (``time.process_time``, all threads; best of ``--repeats``), CPU microseconds
per trajectory, the ratio to heyoka's batch mode, the largest energy error over the final states, and the load
average.  The lanes against the scalar kernel: the largest relative difference of the final states on the
regular sub-ensemble (small oscillations, 1 s) -- on the chaotic level any two integrations part.  Nothing here
is a test.
"""
from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

import pendulum_explorer as pe  # noqa: E402
from pendulum_explorer import presets  # noqa: E402
from pendulum_explorer._core import fields as F  # noqa: E402
from pendulum_explorer._core import taylor as T  # noqa: E402
from pendulum_explorer.integrators import taylor_frame  # noqa: E402

try:
    import heyoka as hy
except ImportError:  # the heyoka rows are skipped
    hy = None

P = presets.paper_fig2().pendulum
J = np.diag(np.asarray(P.J))
MGRHO = np.asarray(P.mgrho)


def states(n, seed=1):
    """(Gamma, omega) on the E = 0 level: Gamma with m g rho . Gamma > 0.05 |m g rho|, omega scaled to E = 0."""
    rng = np.random.default_rng(seed)
    G = np.empty((n, 3))
    W = np.empty((n, 3))
    k = 0
    while k < n:
        g = rng.normal(size=3)
        g /= np.linalg.norm(g)
        pot = MGRHO @ g  # E = 1/2 w.Jw - m g rho . Gamma
        if pot < 0.05 * np.linalg.norm(MGRHO):
            continue
        w = rng.normal(size=3)
        w *= np.sqrt(2.0 * pot / (w @ (J * w)))
        G[k], W[k] = g, w
        k += 1
    return G, W


def energy_err(G, W):
    inv = np.empty((G.shape[0], 2))
    F.invariants_batch(F.LP, np.ascontiguousarray(np.concatenate([G, W], axis=1)), P.params(), inv)
    return float(np.abs(inv[:, 0]).max())  # the level is E = 0


def timed(fn, repeats):
    best = None
    for _ in range(repeats):
        c0, w0 = time.process_time(), time.perf_counter()
        out = fn()
        c1, w1 = time.process_time(), time.perf_counter()
        if best is None or c1 - c0 < best[0]:
            best = (c1 - c0, w1 - w0, out)
    return best


def heyoka_lp(batch=None):
    """heyoka on the sparse diagonal-J form of Eqs (31)-(32) (only the nonzero terms), scalar or batch."""
    G = hy.make_vars("G0", "G1", "G2")
    w = hy.make_vars("w0", "w1", "w2")
    Gdot = [G[1] * w[2] - G[2] * w[1], G[2] * w[0] - G[0] * w[2], G[0] * w[1] - G[1] * w[0]]
    wdot = []
    for i in range(3):
        j, k = (i + 1) % 3, (i + 2) % 3
        terms = [float((J[j] - J[k]) / J[i]) * w[j] * w[k]]
        if MGRHO[j] != 0.0:
            terms.append(float(MGRHO[j] / J[i]) * G[k])
        if MGRHO[k] != 0.0:
            terms.append(float(-MGRHO[k] / J[i]) * G[j])
        wdot.append(sum(terms[1:], terms[0]))
    sys_ = [(G[i], Gdot[i]) for i in range(3)] + [(w[i], wdot[i]) for i in range(3)]
    if batch is None:
        return hy.taylor_adaptive(sys_, [0.0, 0.0, 1.0, 0.1, 0.0, 0.0])
    return hy.taylor_adaptive_batch(sys_, np.tile([[0.0], [0.0], [1.0], [0.1], [0.0], [0.0]], (1, batch)))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=1000)
    ap.add_argument("--t-final", type=float, default=100.0)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--scalar-sample", type=int, default=200)
    a = ap.parse_args()
    n, tf = a.n, a.t_final
    G, W = states(n)
    sample = np.arange(min(a.scalar_sample, n))
    q, Q = taylor_frame(P)
    assert np.array_equal(Q, np.eye(3))  # the Fig. 2 body is in principal axes: no frame change anywhere
    order = T.order_for(2.220446049250313e-16)
    load0 = os.getloadavg()[0]
    pe.ensemble(P, G[:8], W[:8], 0.5)  # compiled (or loaded from the cache) outside the timing
    rows = []  # (name, cpu, wall, trajectories, energy error)

    c, w_, ens = timed(lambda: pe.ensemble(P, G, W, tf, n_chunks=1), a.repeats)
    rows.append(("pe.ensemble, 1 thread (n_chunks=1)", c, w_, n, energy_err(*ens.final())))
    c, w_, ens2 = timed(lambda: pe.ensemble(P, G, W, tf), a.repeats)
    rows.append((f"pe.ensemble, thread pool ({os.cpu_count()} cores)", c, w_, n, energy_err(*ens2.final())))

    Yb = np.empty((2, 6))
    info = np.empty(2)
    Y0 = np.concatenate([G, W], axis=1)
    T.integrate_uniform_taylor(Y0[0].copy(), 0.5, 2, q, order, 10**7, Yb, info)

    def scalar():
        out = np.empty((sample.size, 6))
        for i, k in enumerate(sample):
            T.integrate_uniform_taylor(Y0[k].copy(), tf, 2, q, order, 10**8, Yb, info)
            out[i] = Yb[1]
        return out
    c, w_, ys = timed(scalar, a.repeats)
    rows.append(("scalar Taylor kernel, one by one", c, w_, sample.size, energy_err(ys[:, :3], ys[:, 3:])))

    base = None
    if hy is not None:
        bs = hy.recommended_simd_size()
        tb = heyoka_lp(bs)

        def batch():
            out = np.empty((n, 6))
            for s in range(0, n, bs):
                m = min(bs, n - s)
                st = np.tile(Y0[s:s + 1].T, (1, bs))
                st[:, :m] = Y0[s:s + m].T
                tb.state[:] = st
                tb.set_time(np.zeros(bs))
                tb.propagate_until(tf)
                out[s:s + m] = tb.state[:, :m].T
            return out
        c, w_, yb = timed(batch, a.repeats)
        base = c / n
        rows.append((f"heyoka taylor_adaptive_batch({bs}), order {tb.order} (baseline)", c, w_, n,
                     energy_err(yb[:, :3], yb[:, 3:])))
        ta = heyoka_lp()

        def single():
            out = np.empty((sample.size, 6))
            for i, k in enumerate(sample):
                ta.state[:] = Y0[k]
                ta.time = 0.0
                ta.propagate_until(tf)
                out[i] = ta.state
            return out
        c, w_, yh = timed(single, a.repeats)
        rows.append((f"heyoka taylor_adaptive one by one, order {ta.order}", c, w_, sample.size,
                     energy_err(yh[:, :3], yh[:, 3:])))
    load1 = os.getloadavg()[0]

    print(f"# ensemble: {n} trajectories, Fig. 2 body, E = 0, T = {tf:g} s, tol eps (order {order}); "
          f"best of {a.repeats}; load {load0:.2f} -> {load1:.2f}")
    print("| row | trajectories | wall s | CPU s | CPU us / trajectory | / heyoka batch | max |E| at T |")
    print("|---|---|---|---|---|---|---|")
    for name, c, w_, m, e in rows:
        ratio = f"{c / m / base:.2f}" if base else "-"
        print(f"| {name} | {m} | {w_:.3f} | {c:.3f} | {1e6 * c / m:.0f} | {ratio} | {e:.1e} |")
    # lanes against the scalar kernel where both are meaningful: regular motions over a short time
    rng = np.random.default_rng(7)
    Gr = np.array([0.0, 0.0, 1.0]) + 0.2 * rng.normal(size=(64, 3))
    Gr /= np.linalg.norm(Gr, axis=1)[:, None]
    Wr = 0.2 * rng.normal(size=(64, 3))
    er = pe.ensemble(P, Gr, Wr, 10.0)
    Yr0 = np.concatenate([Gr, Wr], axis=1)
    worst = 0.0
    for k in range(64):
        T.integrate_uniform_taylor(Yr0[k].copy(), 10.0, 2, q, order, 10**7, Yb, info)
        got = np.concatenate([er.Gamma[k, -1], er.omega[k, -1]])
        worst = max(worst, float(np.abs(got - Yb[1]).max() / np.abs(Yb[1]).max()))
    print(f"lanes vs scalar kernel, 64 regular motions (small oscillations) over 10 s: max relative difference "
          f"{worst:.1e}")
    if base:
        mine = rows[0][1] / n / base
        print(f"{'PASS' if mine <= 1.0 else 'MISS'}  ensemble per trajectory (1 thread, CPU) <= 1.0x heyoka "
              f"taylor_adaptive_batch: {mine:.2f}x")


if __name__ == "__main__":
    main()
