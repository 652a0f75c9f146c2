"""Lanes (issue 22, item 1): LANES trajectories per kernel call against the scalar kernels, trajectory by trajectory.

The contract is agreement to 1e-12 relative on regular trajectories (the lanes make the scalar kernels' operations
in the same order, so on this build they agree to the bit; another LLVM may contract differently, and a chaotic
trajectory amplifies any difference).  Seed counts that are not multiples of LANES exercise the refill of lanes
and the idle lanes; small step allowances the resumption between calls."""
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from pendulum_explorer._core import chaos as kc
from pendulum_explorer._core import lanes as ln
from pendulum_explorer._core import lanes_tangent as lt
from pendulum_explorer._core import section as ks
from pendulum_explorer._core import status as kst
from pendulum_explorer._core.fields import LP
from pendulum_explorer.poincare import PoincareSection, sphere_from_chart

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def fig2_section(fig2):
    """The Fig. 2 body at E = -1 J (the paper's mu): mostly regular motion (MEGNO at 60 s near 1-2, one cell in 13
    near 5)."""
    sec, seed = PoincareSection.from_paper_ic(fig2.pendulum, -1.0)
    return sec, seed


def _cells(sec, m, rng_seed=3):
    """``m`` accessible section states of the E = 0 section (Gamma, omega), as the chaos map seeds its cells."""
    rng = np.random.default_rng(rng_seed)
    phi = rng.uniform(-np.pi, np.pi, 6 * m)
    z = rng.uniform(-0.95, 0.95, 6 * m)
    Y, _ = sec.states_at(sphere_from_chart(phi, z))
    return np.ascontiguousarray(Y[np.isfinite(Y[:, 0])][:m])


def _scalar_crossings(Y0, p, n, t_max, max_gap, max_steps, rtol, atol):
    m = Y0.shape[0]
    Yc = np.full((m, n, 6), np.nan)
    Tc = np.full((m, n), np.nan)
    info = np.zeros((m, kst.N_INFO), dtype=np.int64)
    for k in range(m):
        ctl = np.zeros(ks.N_CTL + 12)
        ks.crossings_one(LP, Y0[k], p, n, t_max, max_gap, max_steps, rtol, atol, Yc[k], Tc[k], *ks._work(6), info[k],
                         ctl, max_steps + 1)
    return Yc, Tc, info


def _rel(a, b):
    """Largest difference relative to |b| (to 1e-3 of b's largest entry near zeros); NaN where both are NaN."""
    assert np.array_equal(np.isnan(a), np.isnan(b))
    if np.isnan(b).all():
        return 0.0
    return np.nanmax(np.abs(a - b) / np.maximum(np.abs(b), np.nanmax(np.abs(b)) * 1e-3))


def _scalar_megno(Y0, p, t_total, n_out, rtol, atol, keep):
    m = Y0.shape[0]
    ybar = np.empty((m, n_out))
    lyap = np.empty((m, n_out))
    info = np.zeros((m, kc.N_TAN_INFO), dtype=np.int64)
    y = np.empty(14)
    for k in range(m):
        y[:6] = Y0[k]
        kc.initial_deviation(y, p, keep, np.empty((3, 6)))
        kc.tangent_run(y, p, t_total, n_out, rtol, atol, 10**7, keep, ybar[k], lyap[k], info[k],
                       np.zeros(ks.N_CTL + 28), 10**8)
    return ybar, lyap, info


def test_crossings_in_lanes_equal_the_scalar_kernel(fig2_section):
    """11 seeds (one lane group and three refills), 40 crossings each at rtol 1e-12: every crossing state, time and
    counter of the scalar crossings_one."""
    sec, _ = fig2_section
    p = sec.level.p
    Y0 = _cells(sec, 11)
    args = (p, 40, 1e6, 200.0, 10**6, 1e-12, 1e-12)
    Yl, Tl, il = ln.crossings_all(Y0, *args)
    Ys, Ts, is_ = _scalar_crossings(Y0, *args)
    assert (is_[:, 0] == 40).all() and (is_[:, 1] == kst.OK).all()
    np.testing.assert_array_equal(il, is_)
    assert _rel(Yl, Ys) <= 1e-12
    assert _rel(Tl, Ts) <= 1e-12


def test_crossings_in_lanes_resume_between_calls_and_report_statuses(fig2_section):
    """A run in pieces of 7 lane steps equals one call; short limits give the scalar kernel's statuses
    (MAX_TIME, MAX_STEPS and NO_CROSSING) and counts."""
    sec, _ = fig2_section
    p = sec.level.p
    Y0 = _cells(sec, 9, rng_seed=5)
    seen = set()
    for t_max, max_gap, max_steps in ((5.0, 200.0, 10**6), (1e6, 200.0, 150), (1e6, 0.05, 10**6)):
        args = (p, 25, t_max, max_gap, max_steps, 1e-10, 1e-10)
        Ys, Ts, is_ = _scalar_crossings(Y0, *args)
        m = Y0.shape[0]
        Yc = np.full((m, 25, 6), np.nan)
        Tc = np.full((m, 25), np.nan)
        info = np.zeros((m, kst.N_INFO), dtype=np.int64)
        state = ln.lane_state(6)
        calls = 1
        while ln.crossings_lanes(Y0, *args, Yc, Tc, info, *state, 7):
            calls += 1
        assert calls > 10 or (is_[:, 2] + is_[:, 3]).max() < 70  # (runs this short need few pieces)
        assert state[4][ln.Q_DONE] == m
        np.testing.assert_array_equal(info, is_)
        np.testing.assert_array_equal(np.isnan(Tc), np.isnan(Ts))
        assert _rel(Yc, Ys) <= 1e-12 and _rel(Tc, Ts) <= 1e-12
        seen |= set(is_[:, 1].tolist())
    assert {kst.NO_CROSSING, kst.MAX_STEPS, kst.MAX_TIME} <= seen


@pytest.mark.parametrize("keep", [False, True])
def test_megno_in_lanes_equals_the_scalar_tangent_run(fig2_section, keep):
    """13 cells and a skipped (NaN) row, T = 60 s, 4 outputs, rtol 1e-9 (the chaos map's): Ybar and the Lyapunov
    estimate of tangent_run to 1e-12 relative on the regular cells (Ybar < 3), the same counters; a chaotic
    cell (Ybar > 4) runs beside them."""
    sec, _ = fig2_section
    p = sec.level.p
    Y0 = np.vstack([_cells(sec, 13, rng_seed=7), np.full((1, 6), np.nan)])
    yb, ly, info = lt.tangent_all(Y0, p, 60.0, 1e-9, 1e-9, 10**7, keep, n_out=4)
    ys, ls, is_ = _scalar_megno(Y0[:-1], p, 60.0, 4, 1e-9, 1e-9, keep)
    reg = ys[:, -1] < 3.0
    assert reg.sum() >= 3 and (ys[:, -1] > 4.0).sum() >= 1
    np.testing.assert_array_equal(info[:-1][reg], is_[reg])
    assert _rel(yb[:-1][reg], ys[reg]) <= 1e-12 and _rel(ly[:-1][reg], ls[reg]) <= 1e-12
    assert np.isnan(yb[-1]).all() and (info[-1] == 0).all()


def test_megno_in_lanes_renormalises_chaotic_deviations_as_the_scalar_run(fig2):
    """E = 3 J (chaotic: Lyapunov estimate 0.5-1.2 /s), T = 20 s: the deviations grow past RENORM and are rescaled (the
    log of the growth exceeds ln 1e4) in every cell; the values agree with tangent_run to 1e-6 relative (chaos
    amplifies a last-bit difference by up to exp(lambda T) ~ 1e10 here), with the same counters."""
    sec, _ = PoincareSection.from_paper_ic(fig2.pendulum, 3.0)
    Y0 = _cells(sec, 9, rng_seed=2)
    yb, ly, info = lt.tangent_all(Y0, sec.level.p, 20.0, 1e-10, 1e-10, 10**7, False)
    ys, ls, is_ = _scalar_megno(Y0, sec.level.p, 20.0, 1, 1e-10, 1e-10, False)
    assert (ls[:, 0] * 20.0 > np.log(kc.RENORM)).all()
    np.testing.assert_array_equal(info, is_)
    assert _rel(yb, ys) <= 1e-6 and _rel(ly, ls) <= 1e-6


def test_megno_in_lanes_matches_tangent_many_and_reports_a_step_limit(fig2_section):
    """n_out = 1 (the map's call): the values of chaos.tangent_many; with max_steps = 300 every cell stops with
    MAX_STEPS after 300 attempts and NaN outputs, as the scalar loop's status says."""
    sec, _ = fig2_section
    p = sec.level.p
    Y0 = _cells(sec, 10, rng_seed=11)
    m = Y0.shape[0]
    yb, ly, info = lt.tangent_all(Y0, p, 40.0, 1e-9, 1e-9, 10**7, False)
    ys = np.empty(m)
    ls = np.empty(m)
    is_ = np.zeros((m, kc.N_TAN_INFO), dtype=np.int64)
    kc.tangent_many(Y0, p, 40.0, 1e-9, 1e-9, 10**7, False, ys, ls, is_)
    reg = ys < 3.0
    assert reg.sum() >= 3
    np.testing.assert_array_equal(info, is_)
    assert _rel(yb[reg, 0], ys[reg]) <= 1e-12 and _rel(ly[reg, 0], ls[reg]) <= 1e-12
    yb, ly, info = lt.tangent_all(Y0, p, 40.0, 1e-9, 1e-9, 300, False)
    assert (info[:, 0] == kst.MAX_STEPS).all()
    assert (info[:, 1] + info[:, 2] == 300).all() and np.isnan(yb).all()


ASM_PROBE = """
import json, re, numpy as np
from collections import Counter
from pendulum_explorer import presets
from pendulum_explorer.poincare import PoincareSection
from pendulum_explorer._core import lanes as ln, lanes_tangent as lt
sec, seed = PoincareSection.from_paper_ic(presets.paper_fig2().pendulum, 0.0)
Y0 = np.array([list(seed[0]) + list(seed[1])] * 3)
ln.crossings_all(Y0, sec.level.p, 2, 10.0, 10.0, 10**5, 1e-9, 1e-9)
lt.tangent_all(Y0, sec.level.p, 0.5, 1e-9, 1e-9, 10**5, False)
out = {}
for name, k in (("crossings", ln.crossings_lanes), ("tangent", lt.tangent_lanes)):
    asm = "\\n".join(k.inspect_asm().values())
    c = Counter(m.group(1) + " " + m.group(2) for m in
                re.finditer(r"^\\s+(v(?:fmadd\\w*|mul|add|sub|div|max)pd)\\s+%?(zmm|ymm)", asm, re.M))
    out[name] = dict(c)
print(json.dumps(out))
"""


@pytest.mark.skipif(os.environ.get("PENDULUM_EXPLORER_NO_JIT") == "1", reason="needs numba")
def test_lane_kernels_compile_to_packed_arithmetic():
    """The machine code of both lane kernels (fresh compile: numba shows no code of cached kernels) holds packed
    double multiplies and adds on 256- or 512-bit registers: the stage sums and the right-hand sides run in SIMD
    lanes.  Scalar-only code (e.g. a lane loop LLVM did not vectorise) has none."""
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""),
               PENDULUM_EXPLORER_NO_CACHE="1")
    res = subprocess.run([sys.executable, "-c", ASM_PROBE], env=env, capture_output=True, text=True, timeout=900,
                         check=True)
    counts = json.loads(res.stdout.strip().splitlines()[-1])
    for name, c in counts.items():
        mul = sum(v for k, v in c.items() if re.match(r"vmulpd|vfmadd", k))
        add = sum(v for k, v in c.items() if k.startswith("vaddpd"))
        # the tangent right-hand side alone has 71 multiplies per lane (36 for LP): most must be packed
        assert mul >= (60 if name == "tangent" else 30) and add >= 20, (name, c)
