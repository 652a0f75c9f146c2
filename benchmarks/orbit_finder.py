"""Periodic-orbit finder success rates, plain Newton (PoincareSection.periodic_orbit) against the trust-region
finder (orbit_finder.find_periodic_orbit), on the same click grids, and the time of the issue-21 calls.

Run: PYTHONPATH=. python benchmarks/orbit_finder.py  (one run; prints a table)."""
import math
import time

import numpy as np

import pendulum_explorer as pe
from pendulum_explorer.errors import PendulumError
from pendulum_explorer.poincare import PoincareSection

P = pe.presets.paper_fig2().pendulum


def rate(sec, target, clicks, k):
    old = new = nearer = 0
    t_old = t_new = 0.0
    for c in clicks:
        t = time.perf_counter()
        try:
            o = sec.periodic_orbit(c, k)
            old += math.hypot(math.remainder(o.phi - target[0], 2 * math.pi), o.z - target[1]) < 1e-6
        except PendulumError:
            pass
        t_old += time.perf_counter() - t
        t = time.perf_counter()
        try:
            o = pe.find_periodic_orbit(sec, c, k)
            hit = math.hypot(math.remainder(o.phi - target[0], 2 * math.pi), o.z - target[1]) < 1e-6
            new += hit
            # another fixed point of P^k, nearer the click than the target
            nearer += (not hit) and (math.hypot(math.remainder(o.phi - c[0], 2 * math.pi), o.z - c[1])
                                     < math.hypot(math.remainder(target[0] - c[0], 2 * math.pi), target[1] - c[1]))
        except PendulumError:
            pass
        t_new += time.perf_counter() - t
    n = len(clicks)
    return n, old, new, nearer, t_old / n, t_new / n


def disc(x, rmax, n_r=5, n_a=12):
    return [(x[0] + r * math.cos(a), x[1] + r * math.sin(a)) for r in np.linspace(rmax / n_r, rmax, n_r)
            for a in np.linspace(0, 2 * math.pi, n_a, endpoint=False)]


def main():
    rows = []
    sec = PoincareSection.from_paper_ic(P, 11.95)[0]
    hyp = (math.pi / 2, 0.5117982429498117)
    rows.append(("E=11.95 k=1 hyperbolic, 60 clicks within 0.1",) + rate(sec, hyp, disc(hyp, 0.1), 1))
    sec3 = PoincareSection.from_paper_ic(P, 2.03)[0]
    t = time.perf_counter()
    orbs = pe.find_periodic_orbits(sec3, 3, n_seeds=600, n_starts=60)
    t_all = time.perf_counter() - t
    for o in orbs[:3]:
        clicks = [c for c in disc((o.phi, o.z), 0.02, 4, 8) if abs(c[1]) < 1]
        clicks = [c for c in clicks if sec3.slack(pe.sphere_from_chart(*c)) > 0]
        rows.append((f"E=2.03 k=3 ({o.phi:.4f}, {o.z:.4f}), {len(clicks)} clicks within 0.02",)
                    + rate(sec3, (o.phi, o.z), clicks, 3))
    print("| seed grid | clicks | Newton finds it | trust-region finds it | TR: a nearer fixed point | Newton s/click "
          "| TR s/click |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r[0]} | {r[1]} | {r[2]} ({100 * r[2] / r[1]:.0f} %) | {r[3]} ({100 * r[3] / r[1]:.0f} %) "
              f"| {r[4]} | {r[5]:.3f} | {r[6]:.3f} |")
    print(f"\nfind_periodic_orbits(E=2.03, k=3, 600 seeds, 60 starts): {len(orbs)} points in {t_all:.1f} s")
    timings = []
    ell = pe.find_periodic_orbit(sec, (math.pi / 2, 0.961))
    h = pe.find_periodic_orbit(sec, hyp)
    for name, f in [("continue elliptic 11.95 -> 3", lambda: pe.continue_periodic_orbit(ell, 3.0, max_step=0.1)),
                    ("continue hyperbolic 11.95 -> 14", lambda: pe.continue_periodic_orbit(h, 14.0, max_step=0.1)),
                    ("invariant_manifolds length 2", lambda: pe.invariant_manifolds(h, length=2.0)),
                    ("lyapunov_spectrum E=0 T=1000", lambda: pe.lyapunov_spectrum(
                        P, *PoincareSection.from_paper_ic(P, 0.0)[1], 1000.0))]:
        t = time.perf_counter()
        r = f()
        timings.append((name, time.perf_counter() - t, r))
    print("\n| call | time [s] | result |\n|---|---|---|")
    for name, dt, r in timings:
        if hasattr(r, "bifurcations"):
            info = (f"{len(r)} members, E in [{r.E.min():.4f}, {r.E.max():.4f}], "
                    + ", ".join(f"{b.kind} at {b.E:.10f}" for b in r.bifurcations))
        elif hasattr(r, "homoclinic"):
            info = f"{r.n_maps} maps, {len(r.homoclinic)} homoclinic points"
        else:
            info = f"exponents {np.round(r.exponents, 4).tolist()}, pairing {r.pairing:.2e}"
        print(f"| {name} | {dt:.2f} | {info} |")


if __name__ == "__main__":
    main()
