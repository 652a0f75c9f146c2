"""Random bad values (NaN, +-inf, huge, tiny, wrong type, wrong shape, negative sizes) fed to every public
entry point.  Each call either returns a finite result (the value was admissible) or raises a PendulumError (or a
TypeError) whose message names the argument; never a raw numpy/numba/Python error, within a bounded time (the
hypothesis deadline) and memory (tracemalloc peak)."""
from __future__ import annotations

import functools
import math
import tracemalloc
from datetime import timedelta

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import pendulum_explorer as pe
from pendulum_explorer import geometry, poincare, presets, session
import pendulum_explorer.chaos  # noqa: F401  (pe.chaos)
from pendulum_explorer import equilibria as eqm
from pendulum_explorer.errors import PendulumError

MAX_BYTES = 512 * 2 ** 20


@functools.cache
def _objects():
    P = presets.paper_fig2().pendulum
    sec, seed = pe.PoincareSection.from_paper_ic(P, 0.0)
    lyap = pe.lyapunov_exponent(P, [0, 0, 1.0], [1.0, 1.0, 1.0], 2.0)
    ok = sec.state_at(np.array([0.3, 0.1, 0.95]) / np.linalg.norm([0.3, 0.1, 0.95])).Gamma
    return P, sec, seed, lyap, ok, session.session_json(presets.paper_fig2(), 0.0, sec.mu, 10, [])


G0 = [0.6, 0.0, 0.8]
S = np.linspace(0, 2 * np.pi, 40)
LOOP = np.stack([0.6 * np.cos(S), 0.6 * np.sin(S), 0.8 + 0 * S], 1)


def _entries():
    """(name, function, valid keyword arguments) for every public entry point."""
    P, sec, seed, lyap, ok, SESSION = _objects()
    phi, z = (float(c) for c in pe.chart_from_sphere(ok))
    J, rho = np.asarray(P.J), np.asarray(P.rho)
    return [
        ("Pendulum", pe.Pendulum, dict(J=J, rho=rho, m=1.0, g=9.81)),
        ("Pendulum.rotated", P.rotated, dict(Q=np.eye(3))),
        ("Pendulum.params", P.params, dict(mu=0.5)),
        ("box", pe.box, dict(lx=0.1, ly=0.2, lz=0.3, m=1.0, pivot=[0, 0, -0.15], g=9.81)),
        ("ellipsoid", pe.ellipsoid, dict(a=0.1, b=0.2, c=0.3, m=1.0, pivot=[0, 0, -0.3], g=9.81)),
        ("elliptic_cylinder", pe.elliptic_cylinder, dict(a=0.1, b=0.2, h=0.3, m=1.0, pivot=[0, 0, -0.15])),
        ("build_body", pe.build_body, dict(kind="box", dims=[0.1, 0.2, 0.3], m=1.0, pivot=[0, 0, 0.1])),
        ("simulate", pe.simulate, dict(pendulum=P, R0=np.eye(3), omega0=[0.5, 0.2, 0.1], t_final=0.5, method="dop853",
                                       rtol=1e-10, atol=1e-12, n_out=11, max_steps=100_000)),
        ("simulate lgvi", pe.simulate, dict(pendulum=P, R0=np.eye(3), omega0=[0.5, 0.2, 0.1], t_final=0.5,
                                            method="lgvi", dt=1e-2, n_out=11)),
        ("simulate_lr", pe.simulate_lr, dict(pendulum=P, Gamma0=[0, 0, 1.0], Gammadot0=[0.3, 0, 0], mu=0.2,
                                             t_final=0.5, rtol=1e-10, atol=1e-12, n_out=11, max_steps=100_000)),
        ("lr_from_lp", pe.lr_from_lp, dict(pendulum=P, Gamma=G0, omega=[0.1, 0.2, 0.3])),
        ("lp_from_lr", pe.lp_from_lr, dict(pendulum=P, Gamma=G0, Gammadot=[0.0, 0.3, 0.0], mu=0.2)),
        ("attitude_from_gamma", pe.attitude_from_gamma, dict(Gamma=G0, psi=0.3)),
        ("geometric_phase", pe.geometric_phase, dict(pendulum=P, loop=LOOP, order=6)),
        ("find_equilibria", pe.find_equilibria, dict(pendulum=P, rtol_J=1e-12, rtol_rho=1e-12, stability=False)),
        ("equilibria_at_mu", pe.equilibria_at_mu, dict(pendulum=P, mu=0.3, n_ring=8)),
        ("equilibrium_manifold", eqm.equilibrium_manifold, dict(pendulum=P, which="hanging", n=4)),
        ("equilibrium_attitude", eqm.equilibrium_attitude, dict(Gamma=G0, angle=0.2)),
        ("lr_linearization", eqm.lr_linearization, dict(pendulum=P, Gamma=G0, mu=0.3)),
        ("lp_linearization", eqm.lp_linearization, dict(pendulum=P, Gamma=G0, omega=[0.1, 0.2, 0.3])),
        ("amended_potential", pe.amended_potential, dict(pendulum=P, mu=0.3, Gamma=G0)),
        ("PoincareSection", pe.PoincareSection, dict(pendulum=P, energy=0.0, mu=0.3, rtol=1e-11, atol=1e-11)),
        ("PoincareSection.from_state", pe.PoincareSection.from_state, dict(pendulum=P, Gamma=G0, omega=[1.0, 0.5, 0.2])),
        ("PoincareSection.from_paper_ic", pe.PoincareSection.from_paper_ic, dict(pendulum=P, energy=0.0, sign=1)),
        ("paper_initial_state", pe.paper_initial_state, dict(pendulum=P, energy=0.0, sign=1)),
        ("poincare.mu_bound", poincare.mu_bound, dict(pendulum=P, energy=0.0)),
        ("poincare.default_level", poincare.default_level, dict(pendulum=P, energy=0.0)),
        ("PoincareSection.with_motion", pe.PoincareSection.with_motion, dict(pendulum=P, energy=0.0, mu=0.3,
                                                                             varied="energy")),
        ("section.mu_bound", sec.mu_bound, dict(energy=1.0)),
        ("section.level.mu_max", sec.level.mu_max, dict(energy=1.0)),
        ("section.fill_seeds", sec.fill_seeds, dict(n=5)),
        ("section.check_seed", sec.check_seed, dict(seed=seed)),
        ("section.stream", lambda **k: list(sec.stream(**k)), dict(seed=seed, n=4, chunk=2)),
        ("map.stream_batch", lambda **k: list(sec.map.stream_batch(**k)),
         dict(seeds=[seed, seed], n=4, chunk=2, first=2, seconds=1.0, threads=1)),
        ("megno_seeds", lambda **k: poincare.megno_seeds(sec.map, **k),
         dict(seeds=[seed], t_total=1.0, method="taylor", tol=1e-10, threads=1)),
        ("session.parse_session", session.parse_session, dict(text=SESSION, n_default=10)),
        ("sphere_from_chart", pe.sphere_from_chart, dict(phi=0.3, z=0.2)),
        ("chart_from_sphere", pe.chart_from_sphere, dict(Gamma=G0)),
        ("section.state_at", sec.state_at, dict(Gamma=ok)),
        ("section.states_at", sec.states_at, dict(Gammas=[G0])),
        ("section.slack", sec.slack, dict(Gamma=G0)),
        ("section.crossings", sec.crossings, dict(seed=seed, n=3, t_max=100.0, max_gap=50.0, max_steps=100_000)),
        ("section.click", sec.click, dict(phi=phi, z=z, n=2)),
        ("section.batch", sec.batch, dict(seeds=[seed], n=2, n_chunks=1)),
        ("section.accessible_region", sec.accessible_region, dict(n_phi=11, n_z=7)),
        ("section.level_errors", sec.level_errors, dict(Gamma=[G0], omega=[[0.1, 0.2, 0.3]])),
        ("lyapunov_exponent", pe.lyapunov_exponent, dict(pendulum=P, Gamma=[0, 0, 1.0], omega=[1.0, 1.0, 1.0],
                                                         t_total=1.0, tau=0.5, d0=1e-9, rtol=1e-11, atol=1e-13)),
        ("LyapunovResult.slope", lyap.slope, dict(t_from=0.5)),
        ("megno", pe.chaos.megno, dict(pendulum=P, Gamma=[0, 0, 1.0], omega=[1.0, 1.0, 1.0], t_total=1.0, rtol=1e-10,
                                       atol=1e-10, n_samples=5, tangent_to_level=False, max_steps=100_000)),
        ("geometry.rotation_about", geometry.rotation_about, dict(axis=[0, 0, 1.0], angle=0.3)),
        ("geometry.hat", geometry.hat, dict(a=[1.0, 2.0, 3.0])),
        ("geometry.expm", geometry.expm, dict(w=[0.1, 0.2, 0.3])),
        ("geometry.logm", geometry.logm, dict(R=np.eye(3))),
        ("presets.get", presets.get, dict(name="paper_fig2")),
    ]


BAD = st.sampled_from([
    math.nan, math.inf, -math.inf, 1e300, -1e300, 1e-300, -1e-300, 0, -1, -10 ** 9, 10 ** 12, 2 ** 63, 1e155,
    "x", None, True, 1 + 2j, object(), [], [1.0], [[1.0, 2.0]], np.zeros(7), np.full(3, np.nan),
    np.full((3, 3), np.inf), np.eye(3) * (1 + 1j), [math.nan, 0.0, 1.0], [1e300, 0, 0], [0.0, 0.0, 0.0],
])


def _finite(x, depth=0):
    """True if every float in a (nested) result is finite."""
    if depth > 3:
        return True
    if isinstance(x, float):
        return math.isfinite(x)
    if isinstance(x, np.ndarray):
        return x.dtype.kind not in "fc" or bool(np.all(np.isfinite(x)))
    if isinstance(x, (tuple, list)):
        return all(_finite(v, depth + 1) for v in x[:50])
    if isinstance(x, dict):
        return all(_finite(v, depth + 1) for v in x.values())
    for name in ("Gamma", "omega", "energy", "mu", "t", "V", "exponent", "J", "rho"):
        if hasattr(x, name) and not _finite(getattr(x, name), depth + 1):
            return False
    return True


@pytest.fixture(scope="module", autouse=True)
def _compiled():
    """Call every entry once with its valid arguments first, so that the deadline below bounds the work a bad value
    causes, not a kernel's first compilation (65 s under a load of 20 when the on-disk cache was stale)."""
    for _name, fn, kw in _entries():
        fn(**kw)


@settings(max_examples=400, deadline=timedelta(seconds=20), suppress_health_check=list(HealthCheck),
          derandomize=True)
@given(data=st.data())
def test_every_entry_point_refuses_bad_values_by_name(data):
    entries = _entries()
    name, fn, kw = data.draw(st.sampled_from(entries), label="entry")
    arg = data.draw(st.sampled_from(sorted(kw)), label="argument")
    bad = data.draw(BAD, label="value")
    call = dict(kw)
    call[arg] = bad
    tracemalloc.start()
    try:
        result = fn(**call)
    except (PendulumError, TypeError) as e:
        msg = str(e)
        assert arg in msg or arg.replace("_", " ") in msg, f"{name}({arg}={bad!r}): message does not name {arg}: {msg}"
    else:
        if name == "section.states_at":  # NaN rows mark the Gammas without a section state, by contract
            result = result[0][result[1]]
        assert _finite(result), f"{name}({arg}={bad!r}) returned a non-finite result"
    finally:
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    assert peak <= MAX_BYTES, f"{name}({arg}={bad!r}) allocated {peak / 2 ** 20:.0f} MiB"


@pytest.mark.parametrize("i", range(len(_entries())))
def test_valid_arguments_work(i):
    """The valid arguments the fuzz test perturbs are valid (so a refusal above is the bad value's doing)."""
    name, fn, kw = _entries()[i]
    assert _finite(fn(**kw)), name
