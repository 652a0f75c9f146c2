"""Taylor tangent lanes (issue 22, item 2 on the lanes of item 1): MEGNO and the Lyapunov estimate of ``LANES``
cells at once against the scalar Taylor tangent run (:func:`.taylor_tangent.tangent_many_taylor`), cell by cell."""
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from pendulum_explorer._core import status as kst
from pendulum_explorer._core import taylor_lanes_tangent as TLT
from pendulum_explorer._core import taylor_tangent as tt
from pendulum_explorer._core.chaos import N_TAN_INFO
from pendulum_explorer._core.taylor import order_for
from pendulum_explorer.integrators import taylor_frame
from pendulum_explorer.poincare import PoincareSection

from test_lanes import _cells

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def cells(fig2):
    """The Fig. 2 body at E = 0 (regular islands in a chaotic sea), its principal frame and 2.5 lane groups of
    section states (so that lanes are refilled and the last group runs part empty)."""
    P = fig2.pendulum
    sec, _ = PoincareSection.from_paper_ic(P, 0.0)
    q, Q = taylor_frame(P)
    return sec, q, Q, _cells(sec, 5 * TLT.LANES // 2, rng_seed=5)


def _scalar(sec, q, Q, Y0, t_total, order, keep=False, max_steps=10**7):
    m = Y0.shape[0]
    yb, ly, info = np.zeros(m), np.zeros(m), np.zeros((m, N_TAN_INFO), dtype=np.int64)
    tt.tangent_many_taylor(Y0, sec.level.p, q, Q, t_total, order, max_steps, keep, yb, ly, info)
    return yb, ly, info


def _lanes(sec, q, Q, Y0, t_total, order, keep=False, max_steps=10**7, piece=10**9):
    m = Y0.shape[0]
    seeds = np.zeros((m, TLT.DIM_T))
    TLT.tangent_seeds(Y0, sec.level.p, Q, keep, seeds)
    yb, ly, info = np.zeros(m), np.zeros(m), np.zeros((m, N_TAN_INFO), dtype=np.int64)
    st = TLT.lane_state(order)
    pp = tt.principal_tangent_params(sec.level.p, Q)
    calls = 1
    while TLT.tangent_lanes_taylor(seeds, q, pp, t_total, order, max_steps, keep, yb, ly, info, np.empty((m, 12)), *st,
                                   piece):
        calls += 1
    return yb, ly, info, calls


@pytest.mark.parametrize("keep", [False, True])
def test_lanes_give_the_scalar_taylor_megno_on_regular_cells(cells, keep):
    """Per cell the scalar run's MEGNO to 1e-9 relative and Lyapunov estimate to 1e-12 on the regular cells
    (measured 6e-13 and 4e-15 over 200 s), the same steps (+-1), status OK everywhere; chaotic cells stay chaotic
    (MEGNO > 4 in both)."""
    sec, q, Q, Y0 = cells
    order = order_for(1e-12)
    a = _scalar(sec, q, Q, Y0, 200.0, order, keep)
    b = _lanes(sec, q, Q, Y0, 200.0, order, keep)
    assert np.all(a[2][:, 0] == kst.OK) and np.all(b[2][:, 0] == kst.OK)
    reg = a[0] < 2.5
    assert reg.sum() >= 3 and (~reg).sum() >= 3, a[0]
    np.testing.assert_allclose(b[0][reg], a[0][reg], rtol=1e-9)
    np.testing.assert_allclose(b[1][reg], a[1][reg], rtol=0, atol=1e-12)
    assert np.abs(b[2][reg, 1] - a[2][reg, 1]).max() <= 1
    assert np.all(b[2][:, 3] == b[2][:, 1] * order)
    chaotic = a[0] > 4.0
    assert np.all(b[0][chaotic] > 4.0), (a[0][chaotic], b[0][chaotic])


def test_a_cell_does_not_depend_on_its_neighbours_or_the_pieces(cells):
    """A cell alone gives the bits it gives among others; pieces of 7 lane steps give the bits of one call; NaN
    rows (cells outside the region) are skipped with NaN results and a zero info row."""
    sec, q, Q, Y0 = cells
    order = order_for(1e-12)
    ref = _lanes(sec, q, Q, Y0, 30.0, order)
    for k in (0, 3, Y0.shape[0] - 1):
        alone = _lanes(sec, q, Q, Y0[k:k + 1], 30.0, order)
        assert alone[0][0] == ref[0][k] and alone[1][0] == ref[1][k] and alone[2][0, 1] == ref[2][k, 1]
    pieces = _lanes(sec, q, Q, Y0, 30.0, order, piece=7)
    assert pieces[3] > 10
    assert np.array_equal(pieces[0], ref[0]) and np.array_equal(pieces[1], ref[1])
    Yn = Y0.copy()
    Yn[[1, 2, 5]] = np.nan
    withnan = _lanes(sec, q, Q, Yn, 30.0, order)
    assert np.all(np.isnan(withnan[0][[1, 2, 5]])) and np.all(withnan[2][[1, 2, 5]] == 0)
    keep = np.setdiff1d(np.arange(Y0.shape[0]), [1, 2, 5])
    assert np.array_equal(withnan[0][keep], ref[0][keep])


def test_a_cell_out_of_steps_stops_with_nan_results(cells):
    sec, q, Q, Y0 = cells
    b = _lanes(sec, q, Q, Y0[:3], 200.0, order_for(1e-12), max_steps=50)
    assert np.all(b[2][:, 0] == kst.MAX_STEPS) and np.all(b[2][:, 1] == 50)
    assert np.all(np.isnan(b[0])) and np.all(np.isnan(b[1]))


def test_ir_jet_and_update_match_their_python_references(cells):
    """The tangent jet and the step update in IR (the JIT path) and their numpy references (the NO_JIT path)."""
    if TLT.JIT_DISABLED:
        pytest.skip("the JIT path is off")
    from numba import njit

    _, q, _, _ = cells
    rng = np.random.default_rng(2)
    order = 15
    X = np.zeros((order + 1, TLT.NCT, TLT.LANES))
    X[0, :12] = rng.normal(size=(12, TLT.LANES)) * 0.5
    Xr = X.copy()
    H = rng.uniform(0.0, 0.05, TLT.LANES)

    @njit
    def run(X, order, q, H):
        TLT.tjet(X, order, q)
        TLT.update(X, order, H)

    run(X, order, q, H)
    TLT._tjet_py(Xr, order, q)
    for n in range(1, order + 1):
        assert np.abs(X[n, :12] - Xr[n, :12]).max() <= 1e-13 * np.abs(Xr[n, :12]).max(), n
    TLT._update_py(Xr, order, H)
    assert np.abs(X[0, :12] - Xr[0, :12]).max() <= 1e-15 * np.abs(Xr[0, :12]).max()


NO_JIT_PROBE = """
import json, numpy as np, sys
sys.path.insert(0, {tests!r})
from pendulum_explorer import presets
from pendulum_explorer.poincare import PoincareSection
from pendulum_explorer.integrators import taylor_frame
from test_taylor_lanes_tangent import _lanes
from test_lanes import _cells
P = presets.paper_fig2().pendulum
sec, _ = PoincareSection.from_paper_ic(P, 0.0)
q, Q = taylor_frame(P)
Y0 = _cells(sec, 3, rng_seed=5)
yb, ly, info, _ = _lanes(sec, q, Q, Y0, 3.0, 12)
print(json.dumps([yb.tolist(), ly.tolist(), info[:, 1].tolist()]))
"""


def test_no_jit_references_give_the_compiled_results(cells):
    """With PENDULUM_EXPLORER_NO_JIT=1 the kernel runs on the numpy references of the intrinsics: the same
    results to 1e-10 over 3 s (the sums are added in another order)."""
    if TLT.JIT_DISABLED:
        pytest.skip("already the NO_JIT path")
    sec, q, Q, _ = cells
    env = dict(os.environ, PENDULUM_EXPLORER_NO_JIT="1",
               PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    res = subprocess.run([sys.executable, "-c", NO_JIT_PROBE.format(tests=str(ROOT / "tests"))], env=env,
                         capture_output=True, text=True, timeout=600, check=True)
    yb, ly, steps = json.loads(res.stdout.strip().splitlines()[-1])
    Y0 = _cells(sec, 3, rng_seed=5)
    ref = _lanes(sec, q, Q, Y0, 3.0, 12)
    np.testing.assert_allclose(yb, ref[0], rtol=1e-10)
    np.testing.assert_allclose(ly, ref[1], rtol=0, atol=1e-10)
    assert np.abs(np.array(steps) - ref[2][:, 1]).max() <= 1


def test_taylor_chaos_map_on_the_lanes_equals_the_cells_one_by_one(fig2):
    """A Taylor chaos map (its chunks on the lanes) gives each cell's scalar Taylor MEGNO to 1e-9 relative on the
    regular cells, and stops when cancelled."""
    from concurrent.futures import CancelledError

    sec, _ = PoincareSection.from_paper_ic(fig2.pendulum, 0.0)
    cm = sec.chaos_map((10, 10), 60.0, method="taylor", tol=1e-12)
    from pendulum_explorer.poincare import sphere_from_chart
    q, Q = taylor_frame(fig2.pendulum)
    ok = np.isfinite(cm.megno.ravel())
    PH, Z = np.meshgrid(cm.phi, cm.z)  # the map's cells, row-major (n_z, n_phi)
    Y, _ = sec.states_at(sphere_from_chart(PH, Z).reshape(-1, 3))
    Y = np.ascontiguousarray(Y[ok])
    a = _scalar(sec, q, Q, Y, 60.0, order_for(1e-12))
    got = cm.megno.ravel()[ok]
    reg = a[0] < 2.5
    assert ok.sum() >= 20 and reg.sum() >= 3
    np.testing.assert_allclose(got[reg], a[0][reg], rtol=1e-9)
    with pytest.raises(CancelledError):
        sec.chaos_map((40, 30), 200.0, method="taylor", cancel=lambda: True)


ASM_PROBE = """
import json, re, numpy as np
from collections import Counter
from pendulum_explorer._core import taylor_lanes_tangent as TLT
from pendulum_explorer import presets
from pendulum_explorer.integrators import taylor_frame
q, Q = taylor_frame(presets.paper_fig2().pendulum)
st = TLT.lane_state(12)
m = 1
Y = np.zeros((1, 12)); Y[0, 2] = 1.0; Y[0, 3] = 0.1; Y[0, 6] = 1.0
TLT.tangent_lanes_taylor(Y, q, np.zeros(22), 0.1, 12, 100, False, np.zeros(1), np.zeros(1), np.zeros((1, 4), dtype=np.int64), np.zeros((1, 12)), *st, 100)
asm = "\\n".join(TLT.tangent_lanes_taylor.inspect_asm().values())
c = Counter(m.group(1) + " " + m.group(2) for m in
            re.finditer(r"^\\s+(v(?:fmadd\\w*|mul|add|sub|div)[ps]d)\\s+[^\\n]*?%?(zmm|ymm|xmm)", asm, re.M))
print(json.dumps(dict(c)))
"""


@pytest.mark.skipif(os.environ.get("PENDULUM_EXPLORER_NO_JIT") == "1", reason="needs numba")
def test_tangent_lanes_compile_to_packed_fused_multiply_adds():
    """The kernel's machine code (fresh compile) has the jet's 27 packed FMAs per term and the quadrature's packed
    Horner FMAs (ymm: 4 lanes, zmm: 8); scalar ``vfmadd...sd`` would mean a lane loop compiled to scalar code."""
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""),
               PENDULUM_EXPLORER_NO_CACHE="1")
    res = subprocess.run([sys.executable, "-c", ASM_PROBE], env=env, capture_output=True, text=True, timeout=600,
                         check=True)
    c = json.loads(res.stdout.strip().splitlines()[-1])
    packed_fma = sum(v for k, v in c.items() if re.match(r"vfmadd\w*pd (ymm|zmm)", k))
    assert packed_fma >= 27 + 12, c
