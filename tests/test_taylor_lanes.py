"""The Taylor lanes (``_core.taylor_lanes``) and ``pe.ensemble``: each lane against the scalar Taylor kernel,
the lane bookkeeping (refill, idle lanes, stops), the invariants, the input checks and the machine code."""
import json
import os
import re
import subprocess
import sys
from concurrent.futures import CancelledError
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import pendulum_explorer as pe
from pendulum_explorer import presets
from pendulum_explorer._core import status as S
from pendulum_explorer._core import taylor as T
from pendulum_explorer._core import taylor_lanes as TL
from pendulum_explorer.errors import IntegrationFailedError, InvalidIntegrationError, InvalidStateError, ShapeError
from pendulum_explorer.integrators import taylor_frame
from pendulum_explorer.reduction import attitude_from_gamma

from pe_strategies import valid_bodies

ROOT = Path(__file__).resolve().parents[1]
FIG2 = presets.paper_fig2().pendulum


def scalar_taylor(P, G0, w0, t_final, n_out):
    """The scalar Taylor kernel (``simulate(method="taylor")``) from each state: (n, n_out, 6)."""
    out = []
    for G, w in zip(G0, w0):
        tr = pe.simulate(P, attitude_from_gamma(G), w, t_final, method="taylor", n_out=n_out)
        out.append(np.concatenate([tr.Gamma, tr.omega], axis=1))
    return np.array(out)


def small_oscillations(P, n, amp, rng):
    """States near the hanging equilibrium (regular motions): Gamma tilted from rho/|rho|, small omega."""
    down = P.rho / np.linalg.norm(P.rho)
    G = down + amp * rng.normal(size=(n, 3))
    G /= np.linalg.norm(G, axis=1)[:, None]
    w = amp * rng.normal(size=(n, 3))
    return G, w


def rel_err(A, B):
    return float(np.abs(A - B).max() / max(1.0, np.abs(B).max()))


def test_lanes_equal_the_scalar_kernel_on_regular_motions():
    """Every lane of a 7-trajectory ensemble (two lane groups, one refill per lane, one idle lane at the end)
    gives the scalar Taylor kernel's samples to 1e-12 relative, in the order of the inputs."""
    rng = np.random.default_rng(3)
    G, w = small_oscillations(FIG2, 7, 0.3, rng)
    ens = pe.ensemble(FIG2, G, w, 8.0, n_out=9)
    ref = scalar_taylor(FIG2, G, w, 8.0, 9)
    got = np.concatenate([ens.Gamma, ens.omega], axis=2)
    for k in range(7):
        assert rel_err(got[k], ref[k]) <= 1e-12, k
    assert np.array_equal(ens.t, np.linspace(0, 8.0, 9))
    assert np.array_equal(got[:, 0, :3], G / np.linalg.norm(G, axis=1)[:, None])
    # the same steps as the scalar rule (the lanes' step sizes follow the same formula)
    steps = [pe.simulate(FIG2, attitude_from_gamma(g), v, 8.0, method="taylor", n_out=2).stats["n_steps"]
             for g, v in zip(G, w)]
    assert np.abs(ens.n_steps - np.array(steps)).max() <= 1


@settings(max_examples=6, deadline=None)
@given(valid_bodies(), st.integers(0, 10**6))
def test_lanes_equal_the_scalar_kernel_on_random_bodies(P, seed):
    """Random bodies in random orientations (the principal frame rotated back), regular states."""
    rng = np.random.default_rng(seed)
    G, w = small_oscillations(P, 5, 0.1, rng)
    ens = pe.ensemble(P, G, w, 3.0, n_out=4)
    ref = scalar_taylor(P, G, w, 3.0, 4)
    got = np.concatenate([ens.Gamma, ens.omega], axis=2)
    assert rel_err(got, ref) <= 1e-12


def test_chaotic_ensemble_conserves_the_invariants():
    """1000 s-scale runs at E = 0 on the Fig. 2 body (mostly chaotic): E, mu and |Gamma| hold to round-off."""
    rng = np.random.default_rng(0)
    n = 24
    G = rng.normal(size=(n, 3))
    G /= np.linalg.norm(G, axis=1)[:, None]
    w = rng.normal(size=(n, 3))
    ens = pe.ensemble(FIG2, G, w, 100.0, n_out=5)
    E = ens.energy
    assert np.abs(E - E[:, :1]).max() <= 1e-12 * max(1.0, np.abs(E).max())
    assert np.abs(ens.mu - ens.mu[:, :1]).max() <= 1e-12
    assert np.abs(np.linalg.norm(ens.Gamma, axis=2) - 1.0).max() <= 1e-13
    assert ens.n_steps.min() > 100  # it did integrate


def test_final_states_are_valid_inputs_and_continue_the_motion():
    """``final()`` is an input of ``ensemble`` again; two runs of T continue one run of 2 T (regular motion)."""
    rng = np.random.default_rng(5)
    G, w = small_oscillations(FIG2, 4, 0.2, rng)
    one = pe.ensemble(FIG2, G, w, 6.0)
    two = pe.ensemble(FIG2, *pe.ensemble(FIG2, G, w, 3.0).final(), 3.0)
    assert rel_err(np.concatenate(two.final(), axis=1), np.concatenate(one.final(), axis=1)) <= 1e-12


def test_a_motion_that_loses_the_unit_sphere_is_refused_not_returned():
    """Too loose a tol on a fast spin: |Gamma| drifts 21 % (E only 8e-5); ``ensemble`` refuses it as ``simulate``
    does, naming the trajectory and both errors, instead of returning states that are no valid input again.
    The same seeds at the default tol pass, their errors at round-off."""
    from pendulum_explorer.ensembles import _conservation_errors

    G, w = [[0.6, 0.0, 0.8], [0.0, 0.0, 1.0]], [[100.0, 30.0, 20.0], [0.1, 0.0, 0.0]]
    with pytest.raises(IntegrationFailedError, match=r"1 of 2 trajectories .*first k = 0: .*\|Gamma\| error 0\.2"):
        pe.ensemble(FIG2, G, w, 200.0, tol=1e-4, n_out=50)
    ens = pe.ensemble(FIG2, G, w, 20.0, n_out=50)
    dE, dG = _conservation_errors(ens)
    assert dE.max() < 1e-12 and dG.max() < 1e-12
    assert pe.ensemble(FIG2, *ens.final(), 1.0).Gamma.shape == (2, 2, 3)


def test_kernel_lane_bookkeeping_and_stops():
    """The kernel itself: a trajectory that runs out of steps stops with MAX_STEPS and its later samples hold the
    state where it stopped, while the other lanes (and the refills after it) finish normally."""
    q, _ = taylor_frame(FIG2)
    rng = np.random.default_rng(2)
    G, w = small_oscillations(FIG2, 6, 0.3, rng)
    G[2] = [0.0, 0.0, 1.0]
    w[2] = [0.0, 40.0, 0.0]  # fast: needs many more steps than the others (~660 to t = 4 s)
    Y0 = np.ascontiguousarray(np.concatenate([G, w], axis=1))
    Y = np.full((6, 3, 6), np.nan)
    info = np.zeros((6, 3), dtype=np.int64)
    TL.ensemble_taylor(Y0, 4.0, q, 20, 200, Y, info)
    assert info[2, 1] == S.MAX_STEPS and info[2, 0] == 200
    assert list(info[np.arange(6) != 2, 1]) == [S.OK] * 5
    assert np.all(info[np.arange(6) != 2, 0] < 200) and np.all(info[:, 2][np.arange(6) != 2] == 3)
    assert np.all(np.isfinite(Y))
    k = info[2, 2]  # samples computed before the stop: the later ones hold the state where it stopped
    assert 1 <= k < 3 and np.all(Y[2, k:] == Y[2, -1]) and not np.array_equal(Y[2, -1], Y0[2])
    # a single trajectory (three idle lanes) and an equilibrium (every derivative 0: one step to t_final)
    Y1 = np.empty((1, 2, 6))
    info1 = np.zeros((1, 3), dtype=np.int64)
    eq = np.array([[0.0, 0.0, 1.0, 0.0, 0.0, 0.0]])  # hanging at rest (rho along +e3)
    TL.ensemble_taylor(eq, 50.0, q, 20, 100, Y1, info1)
    assert info1[0, 1] == S.OK and info1[0, 0] == 1 and np.array_equal(Y1[0, 1], eq[0])


def test_ir_jet_and_update_match_their_python_references():
    """The IR intrinsics (the JIT path) and their numpy references (the NO_JIT path) compute the same series."""
    q, _ = taylor_frame(FIG2)
    rng = np.random.default_rng(1)
    X = np.zeros((21, TL.NCL, TL.LANES))
    X[0, :6] = rng.normal(size=(6, TL.LANES)) * 0.5
    Xr = X.copy()
    from numba import njit

    @njit
    def run(X, order, q, H):
        TL.jet(X, order, q)
        TL.horner_update(X, order, H)

    H = np.array([0.01, 0.02, 0.0, 0.05, 0.03, 0.01, 0.04, 0.02])[:TL.LANES]
    if TL.JIT_DISABLED:
        pytest.skip("the JIT path is off")
    run(X, 20, q, H)
    TL._jet_py(Xr, 20, q)
    TL._horner_py(Xr, 20, H)
    for n in range(1, 21):  # each order to 1e-13 of its size (the sums differ in the rounding of fused terms)
        scale = np.abs(Xr[n, :6]).max()
        assert np.abs(X[n, :6] - Xr[n, :6]).max() <= 1e-13 * scale, n
    assert rel_err(X[0, :6], Xr[0, :6]) <= 1e-15


def test_vector_norms_match_the_scalar_rule():
    """:func:`norms` (the step rule's three norms of all lanes in vector code) gives, per lane, the bits of the
    scalar loop ``max(n, abs(x))`` over the six columns from n = 0 (a NaN is skipped, as numba's ``max`` skips a
    NaN second argument) and of its reference (the NO_JIT path); the lanes' step is :func:`.taylor.jz_step` of them."""
    rng = np.random.default_rng(3)
    order = 14
    X = np.zeros((order + 1, TL.NCL, TL.LANES))
    X[:, :6] = rng.normal(size=(order + 1, 6, TL.LANES)) * 10.0 ** rng.integers(-8, 3, size=(order + 1, 6, 1))
    X[order - 1, 2, 0] = np.nan
    X[order, 0, 1 % TL.LANES] = np.nan
    X[0, :6, 2 % TL.LANES] = 0.0  # an all-zero row
    N, Nr = np.zeros((3, TL.LANES)), np.zeros((3, TL.LANES))
    if TL.JIT_DISABLED:
        pytest.skip("the JIT path is off")
    from numba import njit

    @njit
    def run(X, order, N):
        TL.norms(X, order, N)

    @njit
    def scalar(X, order, j):
        n0 = na = nb = 0.0
        for i in range(6):
            n0 = max(n0, abs(X[0, i, j]))
            na = max(na, abs(X[order - 1, i, j]))
            nb = max(nb, abs(X[order, i, j]))
        return n0, na, nb

    run(X, order, N)
    TL._norms_py(X, order, Nr)
    for j in range(TL.LANES):
        assert np.array_equal(N[:, j], np.array(scalar(X, order, j)), equal_nan=True), j
    assert np.array_equal(N, Nr, equal_nan=True)
    assert N[2, 1 % TL.LANES] == np.abs(X[order, 1:6, 1 % TL.LANES]).max() and N[0, 2 % TL.LANES] == 0.0
    assert N[1, 0] == np.nanmax(np.abs(X[order - 1, :6, 0]))


def _jz_step(n0, na, nb, order):
    """:func:`.taylor.jz_step` in Python (the oracle)."""
    scale, r = max(1.0, n0), np.inf
    if na > 0.0:
        r = (scale / na) ** (1.0 / (order - 1))
    if nb > 0.0:
        r = min(r, (scale / nb) ** (1.0 / order))
    return r * T.STEP_FACTOR[order]


def test_vector_step_sizes_match_the_scalar_rule():
    """:func:`step_sizes` (the Jorba-Zou step of every lane by a vector exp/log) equals :func:`.taylor.jz_step` of
    the lane's norms to 3e-14 relative over coefficients from 1e-250 to 1e250, orders 10-30; an all-zero series
    (an equilibrium) gives inf as the scalar rule, a zero last coefficient the bound of the other."""
    if TL.JIT_DISABLED:
        pytest.skip("the JIT path is off")
    from numba import njit

    @njit
    def run(X, order, factor, Hs):
        TL.step_sizes(X, order, factor, Hs)

    rng = np.random.default_rng(8)
    worst = 0.0
    for trial in range(300):
        order = int(rng.integers(10, 31))
        X = np.zeros((order + 1, TL.NCL, TL.LANES))
        X[:, :6] = rng.normal(size=(order + 1, 6, TL.LANES)) * 10.0 ** rng.uniform(-250, 250, size=(1, 1, TL.LANES))
        if trial % 5 == 0:
            X[order, :6, 0] = 0.0  # no bound from the last coefficient
        if trial % 7 == 0:
            X[:, :6, 1 % TL.LANES] = 0.0  # an equilibrium
        Hs = np.zeros(TL.LANES)
        run(X, order, T.STEP_FACTOR[order], Hs)
        N = np.zeros((3, TL.LANES))
        TL._norms_py(X, order, N)
        for j in range(TL.LANES):
            ref = _jz_step(N[0, j], N[1, j], N[2, j], order)
            if np.isinf(ref) or ref > 1e290:
                assert Hs[j] == np.inf or Hs[j] / ref > 1 - 1e-13, (trial, j, Hs[j], ref)
            else:
                worst = max(worst, abs(Hs[j] / ref - 1.0))
    assert worst <= 3e-14, worst  # measured 1.0e-14 (ln of 1e250 is 576: its last bit, over p - 1)


def test_lane_count_follows_the_cpu():
    """8 lanes (one zmm of float64) where numba compiles for AVX-512, else 4 (one ymm)."""
    if TL.JIT_DISABLED:
        assert TL.LANES == 4
        return
    from llvmlite import binding as llvm
    assert TL.LANES == (8 if "+avx512f" in llvm.get_host_cpu_features().flatten() else 4)


def test_jet_equals_the_scalar_series():
    """Lane j's Taylor coefficients equal those of :func:`.taylor.coefficients` from the same state."""
    q, _ = taylor_frame(FIG2)
    rng = np.random.default_rng(4)
    X = np.zeros((21, TL.NCL, TL.LANES))
    X[0, :6] = rng.normal(size=(6, TL.LANES)) * 0.5
    TL._jet_py(X, 20, q) if TL.JIT_DISABLED else _jet(X, q)
    for j in range(TL.LANES):
        Xs = np.zeros((21, T.NCOL))
        Xs[0, :6] = X[0, :6, j]
        T.coefficients(Xs, 20, q, False)
        for n in range(21):
            assert np.abs(X[n, :6, j] - Xs[n, :6]).max() <= 1e-13 * np.abs(Xs[n, :6]).max(), (j, n)


def _jet(X, q):
    from numba import njit

    @njit
    def run(X, q):
        TL.jet(X, 20, q)
    run(X, q)


@pytest.mark.parametrize("kw, exc, words", [
    (dict(Gamma0=[[0, 0, 2.0]], omega0=[[0, 0, 0]]), InvalidStateError, "unit vectors"),
    (dict(Gamma0=[[0, 0, 1.0]], omega0=[[0, 0, 0], [0, 0, 0]]), InvalidStateError, "same number"),
    (dict(Gamma0=[[0, 0, 1.0]], omega0=[[np.nan, 0, 0]]), InvalidStateError, "finite"),
    (dict(Gamma0=[[0, 0, 1.0]], omega0=[[1e12, 0, 0]]), InvalidIntegrationError, "step limit"),
    (dict(Gamma0=np.zeros((0, 3)), omega0=np.zeros((0, 3))), InvalidStateError, "at least one"),
    (dict(Gamma0=[[0, 1.0]], omega0=[[0, 0]]), ShapeError, "shape"),
    (dict(method="dop853"), InvalidIntegrationError, "Taylor lanes"),
    (dict(tol=1e-2), InvalidIntegrationError, "tol"),
    (dict(t_final=-1.0), InvalidIntegrationError, "t_final"),
    (dict(n_out=1), InvalidIntegrationError, "n_out"),
    (dict(Gamma0=np.tile([0, 0, 1.0], (100_000, 1)), omega0=np.zeros((100_000, 3)), n_out=10_000),
     InvalidIntegrationError, "GiB"),
    (dict(max_steps=2, t_final=100.0), IntegrationFailedError, "max_steps"),
])
def test_bad_input_is_refused_before_any_work(kw, exc, words):
    args = dict(Gamma0=[[0, 0, 1.0]], omega0=[[0.1, 0, 0]], t_final=1.0)
    args.update(kw)
    G0, w0, tf = args.pop("Gamma0"), args.pop("omega0"), args.pop("t_final")
    with pytest.raises(exc, match=words):
        pe.ensemble(FIG2, G0, w0, tf, **args)


def test_a_trajectory_that_stops_is_reported_not_returned(monkeypatch):
    """A run whose step limit is too small for one fast trajectory raises and names it (no partial garbage).
    The DOP853-sized budget never binds the Taylor steps (819 steps for the fast one, against a minimum budget of
    ~1200), so the budget is patched to 300 to reach the kernel's stop."""
    from pendulum_explorer import ensembles

    G = np.tile([0.0, 0.0, 1.0], (3, 1))
    w = np.array([[0.1, 0, 0], [0, 30.0, 0], [0, 0, 0.1]])
    assert pe.ensemble(FIG2, G, w, 20.0).n_steps.max() > 300
    monkeypatch.setattr(ensembles, "step_budget", lambda *a, **k: 300)
    with pytest.raises(IntegrationFailedError, match=r"1 of 3 trajectories stopped \(first k = 1, after 300 steps"):
        pe.ensemble(FIG2, G, w, 20.0)


def test_cancel_and_progress():
    G = np.tile([0.0, 0.0, 1.0], (200, 1))
    w = np.tile([0.3, 0.1, 0.0], (200, 1))
    seen = []
    ens = pe.ensemble(FIG2, G, w, 1.0, progress=lambda d, m: seen.append((d, m)), n_chunks=4)
    assert seen[-1] == (200, 200) and len(ens) == 200
    with pytest.raises(CancelledError):
        pe.ensemble(FIG2, G, w, 50.0, cancel=lambda: True)


ASM_PROBE = """
import json, re, numpy as np
from collections import Counter
from pendulum_explorer._core import taylor_lanes as TL
from pendulum_explorer import presets
from pendulum_explorer.integrators import taylor_frame
q, _ = taylor_frame(presets.paper_fig2().pendulum)
Y = np.empty((1, 2, 6)); info = np.zeros((1, 3), dtype=np.int64)
TL.ensemble_taylor(np.array([[0, 0, 1.0, 0.1, 0, 0]]), 0.1, q, 20, 100, Y, info)
asm = "\\n".join(TL.ensemble_taylor.inspect_asm().values())
c = Counter(m.group(1) + " " + m.group(2) for m in
            re.finditer(r"^\\s+(v(?:fmadd\\w*|mul|add|sub)[ps]d)\\s+[^\\n]*?%?(zmm|ymm|xmm)", asm, re.M))
print(json.dumps(dict(c)))
"""


@pytest.mark.skipif(os.environ.get("PENDULUM_EXPLORER_NO_JIT") == "1", reason="needs numba")
def test_jet_compiles_to_packed_fused_multiply_adds():
    """The lane kernel's machine code (fresh compile) has the jet's nine packed FMAs per term (ymm: 4 lanes) and
    packed Estrin updates; a lane loop compiled to scalar code would show scalar ``vfmadd...sd`` instead."""
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""),
               PENDULUM_EXPLORER_NO_CACHE="1")
    res = subprocess.run([sys.executable, "-c", ASM_PROBE], env=env, capture_output=True, text=True, timeout=600,
                         check=True)
    c = json.loads(res.stdout.strip().splitlines()[-1])
    packed_fma = sum(v for k, v in c.items() if re.match(r"vfmadd\w*pd (ymm|zmm)", k))
    packed_mul_add = sum(v for k, v in c.items() if re.match(r"v(mul|add)pd (ymm|zmm)", k))
    assert packed_fma >= 9 and packed_mul_add >= 12, c


def test_a_trajectory_does_not_depend_on_its_neighbours():
    """Lane arithmetic is lane-wise: the same state gives the same bits alone, in any lane, in any chunking."""
    rng = np.random.default_rng(11)
    G = rng.normal(size=(9, 3))
    G /= np.linalg.norm(G, axis=1)[:, None]
    w = rng.normal(size=(9, 3))
    ref = pe.ensemble(FIG2, G, w, 20.0, n_chunks=1)
    for k in (0, 5, 8):
        alone = pe.ensemble(FIG2, G[k:k + 1], w[k:k + 1], 20.0)
        assert np.array_equal(alone.Gamma[0], ref.Gamma[k]) and np.array_equal(alone.omega[0], ref.omega[k])
    perm = rng.permutation(9)
    shuffled = pe.ensemble(FIG2, G[perm], w[perm], 20.0, n_chunks=3)
    assert np.array_equal(shuffled.Gamma, ref.Gamma[perm]) and np.array_equal(shuffled.n_steps, ref.n_steps[perm])


# ------------------------------------------------------------------------------------------------
# crossings in the lanes: a Taylor section's batch
# ------------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def taylor_section():
    from pendulum_explorer.poincare import PoincareSection

    return PoincareSection.from_paper_ic(FIG2, energy=0.0, method="taylor")[0]


def test_batch_on_the_lanes_equals_crossings_one_by_one(taylor_section):
    """A Taylor section's batch (lanes) against ``crossings`` of each seed (the scalar loop): the same number of
    crossings and status; the first 10 crossings of every seed to 1e-12 (before chaos parts them), and all 40
    of the regular seeds (MEGNO < 2.5 over 200 s: 2 of these 16) to 1e-12 relative."""
    sec = taylor_section
    seeds = sec.fill_seeds(16)
    b = sec.batch(seeds, 40)
    regular = 0
    for k, s in enumerate(seeds):
        one = sec.crossings(s, 40)
        assert b.n_found[k] == len(one.t) == 40 and b.status[k] == one.status == "ok"
        assert rel_err(b.Gamma[k, :10], one.Gamma[:10]) <= 1e-12 and rel_err(b.omega[k, :10], one.omega[:10]) <= 1e-12
        y = sec.level.check_seed(s)
        if pe.megno(FIG2, y[:3], y[3:], 200.0).value < 2.5:
            regular += 1
            assert rel_err(b.Gamma[k], one.Gamma) <= 1e-12 and rel_err(b.omega[k], one.omega) <= 1e-12
            assert np.abs(b.t[k] - one.t).max() <= 1e-12 * one.t[-1]
    assert regular >= 2


def test_lane_crossings_stop_as_the_scalar_loop_does(taylor_section):
    """t_max and max_gap end a lane's trajectory with the scalar loop's status; the other lanes go on, and the
    result does not depend on the pieces the kernel ran in."""
    sec = taylor_section
    seeds = sec.fill_seeds(6)
    b = sec.batch(seeds, 40, t_max=15.0)
    for k, s in enumerate(seeds):
        one = sec.crossings(s, 40, t_max=15.0)
        assert b.n_found[k] == len(one.t) < 40 and b.status[k] == one.status == "max_time"
    g = sec.batch(seeds, 40, max_gap=0.3)
    for k, s in enumerate(seeds):
        one = sec.crossings(s, 40, max_gap=0.3)
        assert g.n_found[k] == len(one.t) < 40 and g.status[k] == one.status == "no_crossing"
    from pendulum_explorer import integrators as I

    fn, args = sec.map.runner.task(30, 1e4, 1e3, 10**6, many=True)
    assert fn is I._run_chunk_taylor_lanes and fn.keywords == {"lanes": True}
    Y0 = np.stack([sec.level.check_seed(s) for s in seeds])
    whole = fn(Y0, *args)
    q, Q, c, order = args[:4]
    st = TL.lane_state(order)
    Yc, Tc, info = np.zeros((6, 30, 6)), np.zeros((6, 30)), np.zeros((6, 6), dtype=np.int64)
    calls = 1
    while TL.crossings_lanes(Y0.copy(), q, c, order, 30, 1e4, 1e3, 10**6, Yc, Tc, info, *st, 7):
        calls += 1
    assert calls > 20
    assert np.array_equal(Tc, whole[3]) and np.array_equal(info, whole[4])


def test_batch_bits_do_not_depend_on_chunks(taylor_section):
    seeds = taylor_section.fill_seeds(9)
    a = taylor_section.batch(seeds, 20, n_chunks=1)
    b = taylor_section.batch(seeds, 20, n_chunks=4)
    assert np.array_equal(a.Gamma, b.Gamma) and np.array_equal(a.t, b.t)


def test_a_lane_batch_is_chunked_in_whole_lane_groups():
    """A Taylor section's batch on the pool gives each chunk at least 4 lane groups (60 seeds in 8 chunks of 7-8
    left most of 8 lanes idle: 0.63x the crossings per CPU second of one chunk), one chunk per thread at least;
    the DOP853 batch keeps 4 chunks per thread, another executor at most 8."""
    from pendulum_explorer.poincare import PoincareSection

    sec = PoincareSection.from_paper_ic(FIG2, 0.0, method="taylor")[0]
    dop = PoincareSection.from_paper_ic(FIG2, 0.0)[0]
    r = sec.map.runner
    assert r.many_width == TL.LANES
    assert r.default_chunks(60, True, 2) == max(2, 60 // (4 * TL.LANES))
    assert r.default_chunks(1000, True, 2) == 8 and r.default_chunks(3, True, 2) == 2
    assert r.default_chunks(1, True, 2) == 1 and r.default_chunks(60, False, 2) == 8
    assert dop.map.runner.default_chunks(60, True, 2) == 8 and dop.map.runner.default_chunks(5, True, 2) == 5
