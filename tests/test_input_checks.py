"""Every public entry point checks all its arguments and the size of the work before it allocates or
calls a kernel, and never returns garbage as success.  Each probe of the issue is a test here (the probes that
exhausted memory on the old code run in a subprocess with an address-space limit, so that a regression fails
the test instead of the machine)."""
from __future__ import annotations

import math
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import pendulum_explorer as pe
from pendulum_explorer.errors import (IntegrationFailedError, InvalidIntegrationError, InvalidPendulumError,
                                      InvalidStateError, PendulumError)

LIMIT = 3 * 2 ** 30  # address space of the subprocess probes (numba needs ~1 GB of it)


def _bounded(code: str, timeout: float = 120.0) -> str:
    """Run ``code`` in a fresh interpreter limited to LIMIT bytes; return its last stdout line."""
    pre = f"import resource; resource.setrlimit(resource.RLIMIT_AS, ({LIMIT}, {LIMIT}))\n"
    r = subprocess.run([sys.executable, "-c", pre + textwrap.dedent(code)], capture_output=True, text=True,
                       timeout=timeout)
    assert r.returncode == 0, r.stderr[-2000:]
    return r.stdout.strip().splitlines()[-1]


@pytest.fixture(scope="module")
def P(fig2):
    return fig2.pendulum


@pytest.fixture(scope="module")
def sec(P):
    return pe.PoincareSection.from_paper_ic(P, 0.0)


# --- unbounded memory ---------------------------------------------------------------------------
def test_equilibria_of_extreme_inertia_is_bounded():
    out = _bounded("""
        import numpy as np, pendulum_explorer as pe
        from pendulum_explorer.errors import PendulumError
        for j3 in (1e-17, 1e-14):
            try:
                eq = pe.find_equilibria(pe.Pendulum(np.diag([1, 1, j3]), [.1, .2, .3]))
                print("ok", j3, max(len(f) for f in eq.families), flush=True)
            except PendulumError as e:
                print("refused", j3, e, flush=True)
        print("done")
    """)
    assert out == "done"


def test_crossings_and_batch_and_grids_are_bounded(sec):
    S, seed = sec
    with pytest.raises(InvalidIntegrationError, match="n must be an integer"):
        S.crossings(seed, n=10 ** 9)
    with pytest.raises(InvalidIntegrationError, match="n must be an integer"):
        S.crossings(seed, n=10 ** 7)
    with pytest.raises(InvalidIntegrationError, match="GiB"):
        S.batch(np.tile([0.3, 0.1, 0.95], (10_000, 1)), n=10 ** 5)
    with pytest.raises(InvalidIntegrationError, match="n_phi"):
        S.accessible_region(10 ** 5, 10 ** 5)
    with pytest.raises(InvalidIntegrationError, match="order"):
        s = np.linspace(0, 2 * np.pi, 50)
        pe.geometric_phase(S.pendulum, np.stack([0.6 * np.cos(s), 0.6 * np.sin(s), 0.8 + 0 * s], 1), order=3000)


class _Reached(Exception):
    """Raised by a stubbed work function: the call got past its checks."""


def _stub(*a, **k):
    raise _Reached


def test_total_work_of_a_call_is_bounded(P, sec, monkeypatch):
    """A chaos map, an ensemble or MEGNO over many seeds integrates at most 1e9 s of motion in all, an orbit search
    makes at most 1e6 return-map solves: beyond that the call is refused before any integration (the work
    functions are stubbed: reaching them is a failure), while the researcher's 400 x 300 map at T = 1000 s and
    the defaults pass the checks."""
    from pendulum_explorer import ensembles, orbit_finder
    from pendulum_explorer.poincare import megno_seeds
    from pendulum_explorer.section import chaos_map as cm
    S, seed = sec
    monkeypatch.setattr(cm, "run_chunks", _stub)
    monkeypatch.setattr(ensembles, "run_chunks", _stub)
    monkeypatch.setattr(orbit_finder, "_lm_solve", _stub)
    with pytest.raises(InvalidIntegrationError, match=r"1e\+11 s of motion in all \(1000000 x 100000 s\).*"
                                                      r"reduce the resolution or t_total"):
        S.chaos_map((1000, 1000), 1e5)
    with pytest.raises(_Reached):
        S.chaos_map((400, 300), 1000.0)
    G = np.tile([0.0, 0.0, 1.0], (200_000, 1))
    W = np.tile([1.0, 1.0, 1.0], (200_000, 1))
    with pytest.raises(InvalidIntegrationError, match=r"an ensemble of 200000 trajectories would integrate 2e\+09 s"):
        pe.ensemble(P, G, W, 1e4)
    with pytest.raises(_Reached):
        pe.ensemble(P, G, W, 1e3)
    seeds = [seed] * 20_000
    with pytest.raises(InvalidIntegrationError, match=r"the MEGNO of 20000 seeds would integrate 2e\+09 s"):
        megno_seeds(S.map, seeds, 1e5)
    with pytest.raises(InvalidIntegrationError, match=r"n_starts = 20000 \(20000 starts\), max_iter = 1000 and "
                                                      r"k = 8 ask for up to 160000000 return-map solves"):
        pe.find_periodic_orbits(S, 8, n_starts=20_000, max_iter=1000)
    with pytest.raises(InvalidIntegrationError, match=r"n_starts = 200 \(401 starts\)"):
        pe.find_periodic_orbit(S, seed, 64, n_starts=200, max_iter=1000)
    G1 = np.asarray(S.crossings(seed, 1).Gamma)[0]
    with pytest.raises(_Reached):
        pe.find_periodic_orbit(S, G1, 1)


def test_a_progress_that_cannot_be_called_is_refused_before_the_work(P, sec, monkeypatch):
    """``progress=5`` ran a whole chaos map (or ensemble, spectrum ...) and failed at the first report after it
    ("'int' object is not callable"), losing the work; now it is refused before any integration."""
    from pendulum_explorer import ensembles
    from pendulum_explorer.section import chaos_map as cm
    S, seed = sec
    monkeypatch.setattr(cm, "run_chunks", _stub)
    monkeypatch.setattr(ensembles, "run_chunks", _stub)
    msg = r"progress must be a callable or None; got int 5"
    with pytest.raises(TypeError, match=msg):
        S.chaos_map((4, 4), 10.0, progress=5)
    with pytest.raises(TypeError, match=msg):
        next(S.chaos_maps([(2, 2), (4, 4)], 10.0, progress=5))
    with pytest.raises(TypeError, match=msg):
        pe.ensemble(P, [[0.0, 0.0, 1.0]], [[1.0, 1.0, 1.0]], 1.0, progress=5)
    with pytest.raises(TypeError, match=msg):
        pe.lyapunov_spectrum(P, [0.0, 0.0, 1.0], [1.0, 1.0, 1.0], 1e4, progress=5)
    with pytest.raises(_Reached):
        S.chaos_map((4, 4), 10.0, progress=lambda d, m: None)


# --- garbage reported as success ----------------------------------------------------------------------
@pytest.mark.parametrize("kw", [dict(atol=1.0), dict(atol=1e10), dict(rtol=1.0), dict(rtol=0.0, atol=0.0),
                                dict(rtol=-1.0)])
def test_tolerances_that_give_garbage_are_refused(P, sec, kw):
    with pytest.raises(InvalidIntegrationError, match="tol"):
        pe.simulate(P, np.eye(3), [1.0, 1.0, 1.0], 10.0, **kw)
    with pytest.raises(InvalidIntegrationError, match="tol"):
        pe.PoincareSection(P, 0.0, 0.1, **kw)
    with pytest.raises(InvalidIntegrationError, match="tol"):
        pe.lyapunov_exponent(P, [0, 0, 1.0], [1.0, 1.0, 1.0], 10.0, **kw)
    with pytest.raises(InvalidIntegrationError, match="tol"):
        pe.simulate_lr(P, [0, 0, 1.0], [0.1, 0, 0], 0.1, 10.0, **kw)


def test_loosest_tolerances_still_conserve(P):
    """At the loosest accepted tolerances the result is a motion (else it is refused, never returned)."""
    try:
        tr = pe.simulate(P, np.eye(3), [2.0, 2.0, 2.0], 50.0, rtol=1e-3, atol=1e-3)
    except IntegrationFailedError as e:
        assert "does not conserve" in str(e)
    else:
        assert tr.energy_error <= 1e-2 * max(abs(tr.energy[0]), P.mgrho_norm)


# --- overflow and NaN ----------------------------------------------------------------------------------
@pytest.mark.parametrize("kw", [dict(m=1e300, g=1e300), dict(rho=[0, 0, 1e300]), dict(rho=[0, 0, 1e300], m=1e10),
                                dict(rho=[0, 0, 1e-300]), dict(rho=[0, 0, 1e200]), dict(J=np.eye(3) * 1e300),
                                dict(J=np.diag([1e308, 1e308, 1e308]))])
def test_pendulum_overflow_refused_up_front(kw):
    args = dict(J=np.diag([0.13, 0.28, 0.17]), rho=[0, 0, 0.3])
    args.update(kw)
    with pytest.raises(InvalidPendulumError) as e:
        pe.Pendulum(**args)
    assert any(n in str(e.value) for n in ("m g |rho|", "rho", "J", "m ", "g "))


def test_huge_angular_velocity_refused_before_running(P):
    with pytest.raises(InvalidStateError, match="omega0"):
        pe.simulate(P, np.eye(3), [1e155, 0, 0], 10.0)
    with pytest.raises(InvalidIntegrationError, match="steps"):
        pe.simulate(P, np.eye(3), [1e8, 0, 0], 10.0)
    with pytest.raises(InvalidIntegrationError, match="steps"):
        pe.lyapunov_exponent(P, [0, 0, 1.0], [1e8, 0, 0], 10.0)


# --- wrong answers without error -----------------------------------------------------------------------
@pytest.mark.parametrize("mu", [math.inf, -math.inf, math.nan])
def test_equilibria_at_mu_refuses_non_finite(P, mu):
    with pytest.raises(InvalidStateError, match="mu must be finite"):
        pe.equilibria_at_mu(P, mu)


def test_geometric_phase_open_or_degenerate_curves(P):
    s = np.linspace(0, np.pi, 200)
    half = np.stack([0.6 * np.cos(s), 0.6 * np.sin(s), 0.8 + 0 * s], 1)
    with pytest.raises(InvalidStateError, match="closed"):
        pe.geometric_phase(P, half)
    s = np.linspace(0, 2 * np.pi, 200)
    loop = np.stack([0.6 * np.cos(s), 0.6 * np.sin(s), 0.8 + 0 * s], 1)
    loop[5] = 0.0
    with pytest.raises(InvalidStateError, match="unit vectors"):
        pe.geometric_phase(P, loop)


# --- raw library errors ---------------------------------------------------------------------------------
def test_no_raw_library_errors(P, sec):
    S, seed = sec
    with pytest.raises(InvalidStateError, match="mu"):
        pe.PoincareSection(P, 0.0, 1e200)
    with pytest.raises(InvalidIntegrationError, match="n_out"):
        pe.simulate(P, np.eye(3), [0, 0, 0], 1.0, n_out=math.nan)
    with pytest.raises(InvalidIntegrationError, match="max_steps"):
        pe.simulate(P, np.eye(3), [0, 0, 0], 1.0, max_steps=math.nan)
    with pytest.raises(InvalidIntegrationError, match="max_steps"):
        pe.simulate(P, np.eye(3), [0, 0, 0], 1.0, max_steps=-1)
    with pytest.raises(InvalidIntegrationError, match="order"):
        s = np.linspace(0, 2 * np.pi, 50)
        pe.geometric_phase(P, np.stack([0.6 * np.cos(s), 0.6 * np.sin(s), 0.8 + 0 * s], 1), order=0)
    other = pe.Pendulum(np.diag([0.13, 0.28, 0.17]), [0.1, 0, 0.3])
    with pytest.raises(InvalidStateError, match="another pendulum"):
        pe.equilibria_at_mu(P, 0.5, eq=pe.find_equilibria(other))
    lr = pe.lyapunov_exponent(P, [0, 0, 1.0], [1.0, 1.0, 1.0], 2.0)
    with pytest.raises(InvalidIntegrationError, match="t_from"):
        lr.slope(1e9)
    with pytest.raises(IntegrationFailedError, match="raise max_steps"):
        pe.simulate_lr(P, [0, 0, 1.0], [1.0, 0, 0], 0.5, 100.0, max_steps=10)


# --- immutability and the module name ------------------------------------------------------------------
def test_immutable_results_and_parameters(P):
    with pytest.raises(ValueError):
        P.J.setflags(write=True)
    with pytest.raises(AttributeError):
        P._m = 5.0
    tr = pe.simulate(P, np.eye(3), [0.5, 0.5, 0.5], 1.0, n_out=11)
    e = tr.energy_error
    with pytest.raises(ValueError):
        tr.energy[3] = 1e9
    assert tr.energy_error == e
    with pytest.raises(PendulumError, match="complex"):
        pe.Pendulum(np.diag([0.13, 0.28, 0.17]).astype(complex), [0, 0, 0.3])


def test_equilibria_module_import():
    import pendulum_explorer.equilibria as m
    assert m.__name__ == "pendulum_explorer.equilibria" and callable(m.equilibria)


# --- long calls are interruptible ---------------------------------------------------------------------------
@pytest.mark.parametrize("method, n_out", [("dop853", 201), ("dop853", 2), ("lgvi", 201), ("lgvi", 2),
                                           ("taylor", 201), ("taylor", 2)])
def test_chunked_integration_matches_one_call(P, monkeypatch, method, n_out):
    """Pieces of a few hundred steps (refined output grid when n_out = 2) give the motion of one kernel call."""
    import pendulum_explorer.integrators as T
    kw = dict(method=method, n_out=n_out, dt=2e-3) if method == "lgvi" else dict(method=method, n_out=n_out)
    whole = pe.simulate(P, np.eye(3), [1.0, 2.0, 0.5], 20.0, **kw)
    monkeypatch.setattr(T, "CHUNK_STEPS", 300)
    parts = pe.simulate(P, np.eye(3), [1.0, 2.0, 0.5], 20.0, **kw)
    assert parts.stats["n_steps"] >= whole.stats["n_steps"] * (1.0 if method == "lgvi" else 0.99)
    np.testing.assert_allclose(parts.Gamma, whole.Gamma, atol=1e-7)
    np.testing.assert_allclose(parts.omega, whole.omega, atol=1e-6)
    assert parts.energy_error < 1e-6 * P.mgrho_norm + whole.energy_error * 10


@pytest.mark.parametrize("call", ["simulate", "lgvi", "simulate_lr", "taylor"])
def test_ctrl_c_stops_a_long_integration(P, monkeypatch, call):
    """SIGINT sent from a timer thread during a call that needs many chunks raises KeyboardInterrupt in the caller
    long before the work is done (counted in kernel pieces, not timed)."""
    import os
    import signal
    import threading

    import pendulum_explorer.integrators as T
    pieces = []
    timer = threading.Timer(0.5, lambda: os.kill(os.getpid(), signal.SIGINT))
    first = threading.Lock()  # acquired once, never released: batch's worker threads race for the first piece

    def counted(f):
        def call(*a):
            if not pieces and first.acquire(blocking=False):
                timer.start()  # 0.5 s after the first piece started (compilation or cache loading excluded)
            pieces.append(1)
            return f(*a)
        return call

    monkeypatch.setattr(T._dop, "integrate_uniform", counted(T._dop.integrate_uniform))
    monkeypatch.setattr(T._taylor, "integrate_uniform_taylor", counted(T._taylor.integrate_uniform_taylor))
    monkeypatch.setattr(T, "integrate_lgvi", counted(T.integrate_lgvi))
    monkeypatch.setattr(T, "CHUNK_STEPS", 2000)
    try:
        with pytest.raises(KeyboardInterrupt):
            if call == "simulate":  # ~5e6 steps: ~2500 pieces
                pe.simulate(P, np.eye(3), [1.0, 2.0, 0.5], 2e5, n_out=3)
            elif call == "taylor":  # ~2.4e6 steps: ~2400 pieces of 1000
                pe.simulate(P, np.eye(3), [1.0, 2.0, 0.5], 2e5, method="taylor", n_out=3)
            elif call == "lgvi":  # 2e7 steps: 10^4 pieces
                pe.simulate(P, np.eye(3), [1.0, 2.0, 0.5], 2e4, method="lgvi", dt=1e-3, n_out=3)
            else:
                pe.simulate_lr(P, [0, 0, 1.0], [1.0, 0, 0], 0.5, 2e5, n_out=3)
    finally:
        timer.cancel()
    # a lower bound of the pieces the whole call needs (lgvi: 2e7 steps / 2000 exactly); the DOP853 calls were
    # sized at ~250 pieces against a bound of 200, and a loaded machine saw 225 pieces before the interrupt
    need = {"lgvi": 10 ** 4}.get(call, 2000)
    assert 1 <= len(pieces) < need


@pytest.mark.parametrize("call", ["crossings", "taylor", "batch", "lyapunov", "megno"])
def test_chunked_section_and_lyapunov_match_one_call(P, sec, monkeypatch, call):
    """crossings(), batch() (both methods), the two-trajectory Lyapunov estimate and MEGNO (tangent dynamics) run
    in pieces of a few hundred steps give the bits of one kernel call (each piece continues the loop's state
    exactly)."""
    import pendulum_explorer.integrators as T
    s, (G0, w0) = sec

    def run():
        if call == "crossings":
            r = s.crossings((G0, w0), 300)
            return r.Gamma, r.t, np.array(list(r.stats.values()))
        if call == "taylor":
            r = pe.PoincareSection(P, s.energy, s.mu, method="taylor").crossings((G0, w0), 300)
            return r.Gamma, r.t, np.array(list(r.stats.values()))
        if call == "batch":
            b = s.batch(s.fill_seeds(5), 100)
            return b.Gamma, b.t, b.stats
        if call == "megno":
            m = pe.megno(P, G0, w0, 20.0, n_samples=50)
            return m.running, m.lyapunov_running
        r = pe.lyapunov_exponent(P, G0, w0, 20.0, method="two-trajectory")
        return (r.running,)

    whole = run()
    monkeypatch.setattr(T, "CHUNK_STEPS", 60)
    parts = run()
    for a, b in zip(whole, parts):
        np.testing.assert_array_equal(a, b)


@pytest.mark.filterwarnings("error::pytest.PytestUnraisableExceptionWarning")  # e.g. a thread started twice
@pytest.mark.parametrize("call", ["crossings", "taylor", "batch", "lyapunov", "megno"])
def test_ctrl_c_stops_long_section_and_lyapunov_calls(P, sec, monkeypatch, call):
    """SIGINT 0.5 s into crossings() / batch() / the two-trajectory Lyapunov estimate raises KeyboardInterrupt
    while the kernel still has work to do (before: one kernel call, the interrupt waited for all of it), and a
    batch's worker threads stop within one piece each."""
    import os
    import signal
    import threading

    import pendulum_explorer.chaos as C
    import pendulum_explorer.poincare as M
    import pendulum_explorer.trajectory as T
    s, (G0, w0) = sec
    pieces, after = [], []  # piece results (True: that call finished its work); pieces begun after the interrupt
    interrupted = threading.Event()
    timer = threading.Timer(0.5, lambda: os.kill(os.getpid(), signal.SIGINT))
    first = threading.Lock()  # acquired once, never released: batch's worker threads race for the first piece

    def counted(f, finished):
        def piece(*a):
            if not pieces and first.acquire(blocking=False):
                timer.start()  # 0.5 s after the first piece started (compilation or cache loading excluded)
            if interrupted.is_set():
                after.append(1)
            r = f(*a)
            pieces.append(finished(a, r))
            return r
        return piece

    monkeypatch.setattr(M._sec, "crossings_serial", counted(M._sec.crossings_serial, lambda a, r: r == 0))
    monkeypatch.setattr(M._taylor, "crossings_serial_taylor",
                        counted(M._taylor.crossings_serial_taylor, lambda a, r: r == 0))
    monkeypatch.setattr(C._kc, "lyapunov_benettin",
                        counted(C._kc.lyapunov_benettin, lambda a, r: a[7] == a[12].shape[0]))
    monkeypatch.setattr(C._kc, "tangent_run", counted(C._kc.tangent_run, lambda a, r: r != C._kc.PAUSED))
    monkeypatch.setattr(T, "CHUNK_STEPS", 2000)
    try:
        with pytest.raises(KeyboardInterrupt):  # each call needs ~8e6 steps: ~4000 pieces (~3 s on an idle core)
            if call == "crossings":
                s.crossings((G0, w0), 400_000)
            elif call == "taylor":
                pe.PoincareSection(P, s.energy, s.mu, method="taylor").crossings((G0, w0), 400_000)
            elif call == "batch":
                s.batch(s.fill_seeds(4), 100_000)
            elif call == "megno":  # ~1e7 steps of the 14-dim tangent model
                pe.megno(P, G0, w0, 2e5)
            else:
                pe.lyapunov_exponent(P, G0, w0, 1e5, method="two-trajectory")
    finally:
        timer.cancel()
        interrupted.set()
    assert len(pieces) >= 1 and not any(pieces)  # interrupted with work left (no piece had finished it)
    if call == "batch":  # wait until every pool thread is free at once: the stopped chunks have returned
        n = M._N_THREADS
        barrier = threading.Barrier(n)
        for f in [M._thread_pool().submit(barrier.wait, 120) for _ in range(n)]:
            f.result()
        assert len(after) <= n  # at most the piece each thread had begun
