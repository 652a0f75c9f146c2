"""Chaos maps and periodic orbits of the section map: the Fig. 2 check (chaotic fractions per energy,
the regular island of Fig. 2 (e)), executors (thread pool, dask LocalCluster), progress and cancel, the
linearised return map against finite differences, periodic orbits (fixed point, symplectic multipliers, kind vs
a direct simulation) and every error path."""
import math
import threading
from concurrent.futures import CancelledError, ThreadPoolExecutor

import numpy as np
import pytest

from pendulum_explorer import presets
from pendulum_explorer.errors import (InaccessibleError, InvalidIntegrationError, PeriodicOrbitNotFoundError,
                                      ShapeError)
from pendulum_explorer.poincare import PoincareSection

ISLAND = (math.pi / 2, 0.961)  # centre of the regular island of Fig. 2 (e), E = 11.95


@pytest.fixture(scope="module")
def P():
    return presets.paper_fig2().pendulum


@pytest.fixture(scope="module")
def sec_e(P):
    return PoincareSection.from_paper_ic(P, 11.95)[0]


def test_fig2_chaos_maps(P):
    """MEGNO at T = 200 s on a 16 x 16 grid.  Measured: E = -2.65: 0 % chaotic (Ybar > 4) of 16 accessible
    cells; E = 0: 87.5 % of 96; E = 2.03: 100 % of 164; E = 11.95: 57.8 % of 256, the island-centre cell 1.3."""
    frac = {}
    for E in (-2.65, 0.0, 2.03, 11.95):
        sec = PoincareSection.from_paper_ic(P, E)[0]
        cm = sec.chaos_map((16, 16), 200.0)
        assert cm.values.shape == (16, 16) and cm.indicator == "megno" and cm.t_total == 200.0
        # NaN exactly where the cell centre is not on the section
        G = np.stack(np.meshgrid(cm.phi, cm.z), -1).reshape(-1, 2)
        slack = sec.slack(np.stack([np.sqrt(1 - G[:, 1] ** 2) * np.cos(G[:, 0]),
                                    np.sqrt(1 - G[:, 1] ** 2) * np.sin(G[:, 0]), G[:, 1]], -1))
        np.testing.assert_array_equal(cm.accessible.ravel(), slack > 0)
        assert np.all(cm.values[cm.accessible] > 0)
        frac[E] = cm.chaotic_fraction()
        if E == 11.95:
            assert cm.value_at(*ISLAND) < 3.0
    assert frac[-2.65] < 0.05
    assert frac[0.0] > 0.3 and frac[2.03] > 0.3
    assert frac[11.95] > 0.2


def test_chaos_map_executors_progress_and_cancel(P):
    sec = PoincareSection.from_paper_ic(P, 0.0)[0]
    seen = []
    a = sec.chaos_map((6, 5), 20.0, progress=lambda d, m: seen.append((d, m)))
    assert seen[-1][0] == seen[-1][1] == int(a.accessible.sum()) > 5
    with ThreadPoolExecutor(2) as ex:
        b = sec.chaos_map((6, 5), 20.0, executor=ex, n_chunks=3)
    np.testing.assert_array_equal(a.values, b.values)
    lyap = sec.chaos_map((6, 5), 20.0, indicator="lyapunov")
    np.testing.assert_array_equal(lyap.values, a.lyapunov)
    ev = threading.Event()
    ev.set()
    with pytest.raises(CancelledError, match="cancelled"):
        sec.chaos_map((40, 40), 200.0, cancel=ev)
    calls = []

    def stop_after_first(d, m):
        calls.append(d)

    with pytest.raises(CancelledError):
        sec.chaos_map((40, 40), 200.0, progress=stop_after_first, cancel=lambda: len(calls) > 0)
    assert len(calls) == 1  # stopped after the first chunk, not after 40 x 40 cells


def test_chaos_map_with_dask_local_cluster(P):
    distributed = pytest.importorskip("distributed")
    sec = PoincareSection.from_paper_ic(P, 0.0)[0]
    ref = sec.chaos_map((5, 4), 10.0)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None) as cl, \
            distributed.Client(cl) as client:
        got = sec.chaos_map((5, 4), 10.0, executor=client.get_executor())
    np.testing.assert_array_equal(ref.values, got.values)


def test_chaos_map_errors(sec_e):
    with pytest.raises(InvalidIntegrationError, match="resolution"):
        sec_e.chaos_map((0, 4))
    with pytest.raises(InvalidIntegrationError, match="resolution"):
        sec_e.chaos_map(16)
    with pytest.raises(InvalidIntegrationError, match="t_total"):
        sec_e.chaos_map((4, 4), -1.0)
    with pytest.raises(InvalidIntegrationError, match="indicator"):
        sec_e.chaos_map((4, 4), indicator="fli")
    with pytest.raises(TypeError, match="executor"):
        sec_e.chaos_map((4, 4), executor=object())
    with pytest.raises(TypeError, match="cancel"):
        sec_e.chaos_map((4, 4), cancel=3)


def test_a_chaos_map_with_no_cell_on_the_section_is_refused(P):
    """Below min V_mu the map came back all NaN and chaotic_fraction() said 0.0 (0 % chaotic) as if it were a
    result; a grid too coarse for a small accessible cap did the same."""
    with pytest.raises(InaccessibleError, match=r"no motion at E = -100 J.*min V_mu = -2\.943 J"):
        PoincareSection(P, -100.0, 0.0).chaos_map((6, 6), 20.0)
    with pytest.raises(InaccessibleError, match=r"no cell centre of the 4 x 4 grid.*0\.62 % of the sphere"):
        PoincareSection(P, -2.9, 0.0).chaos_map((4, 4), 20.0)
    cm = PoincareSection(P, -2.9, 0.0).chaos_map((8, 400), 20.0)  # rows fine enough for the cap at the pole
    assert 0 < int(cm.accessible.sum()) < 100 and np.isfinite(cm.values[cm.accessible]).all()


def test_return_map_jacobian_matches_finite_differences(sec_e):
    phi1, z1, T, M = sec_e.return_map(*ISLAND)
    h = 1e-6
    fd = np.empty((2, 2))
    for j, d in enumerate([(h, 0.0), (0.0, h)]):
        a = sec_e.return_map(ISLAND[0] + d[0], ISLAND[1] + d[1])
        b = sec_e.return_map(ISLAND[0] - d[0], ISLAND[1] - d[1])
        fd[:, j] = [(a[0] - b[0]) / (2 * h), (a[1] - b[1]) / (2 * h)]
    np.testing.assert_allclose(M, fd, rtol=1e-6, atol=1e-7)
    assert abs(M).max() > 1.0


def test_periodic_orbit_of_the_fig2e_island(sec_e):
    """From a click 0.14 away on the chart: the k = 1 fixed point at the island centre, elliptic."""
    po = sec_e.periodic_orbit((ISLAND[0] + 0.1, ISLAND[1] - 0.1))
    assert po.kind == "elliptic" and po.k == 1
    assert math.hypot(po.phi - ISLAND[0], po.z - ISLAND[1]) < 2e-3
    assert po.residual <= 1e-10
    assert abs(np.prod(po.multipliers) - 1.0) < 1e-8
    np.testing.assert_allclose(np.abs(po.multipliers), 1.0, atol=1e-8)
    # an independent crossings run returns to the point
    c = sec_e.crossings(po.Gamma, 2)
    assert np.linalg.norm(c.Gamma[0] - po.Gamma) < 1e-9
    assert np.linalg.norm(c.omega[0] - po.omega) < 1e-9 * np.linalg.norm(po.omega)
    assert c.t[0] == pytest.approx(po.period, rel=1e-9)
    # elliptic: a perturbation of 1e-4 stays close for 100 returns
    G = c.Gamma[0]
    ph, z = np.arctan2(G[1], G[0]), G[2]
    r = np.sqrt(1 - (z - 1e-4) ** 2)
    near = sec_e.crossings([r * np.cos(ph + 1e-4), r * np.sin(ph + 1e-4), z - 1e-4], 100)
    assert np.max(np.linalg.norm(near.Gamma - po.Gamma, axis=1)) < 1e-3


def test_hyperbolic_periodic_orbit_and_its_kind_by_simulation(P):
    """A k = 1 hyperbolic fixed point of the Fig. 2 body at E = 5 (paper's mu): real multipliers lambda, 1/lambda
    (measured 6.87, 0.146); a perturbation of 1e-6 leaves it (> 1e-2 within 100 returns)."""
    sec = PoincareSection.from_paper_ic(P, 5.0)[0]
    po = sec.periodic_orbit((1.5708, 0.85))
    assert po.kind == "hyperbolic"
    assert abs(np.prod(po.multipliers) - 1.0) < 1e-8
    assert np.all(np.abs(po.multipliers.imag) == 0) and np.max(np.abs(po.multipliers)) > 2
    c = sec.crossings(po.Gamma, 1)
    assert np.linalg.norm(c.Gamma[0] - po.Gamma) < 1e-9
    z = po.z - 1e-6
    r = np.sqrt(1 - z * z)
    near = sec.crossings([r * np.cos(po.phi), r * np.sin(po.phi), z], 100)
    assert np.max(np.linalg.norm(near.Gamma - po.Gamma, axis=1)) > 1e-2


def test_periodic_orbit_errors(sec_e):
    with pytest.raises(ShapeError, match="seed"):
        sec_e.periodic_orbit(np.zeros(4))
    with pytest.raises(InvalidIntegrationError, match="k must be"):
        sec_e.periodic_orbit(ISLAND, k=0)
    with pytest.raises(InvalidIntegrationError, match="tol"):
        sec_e.periodic_orbit(ISLAND, tol=1.0)
    P = sec_e.pendulum
    low = PoincareSection.from_paper_ic(P, -2.65)[0]
    with pytest.raises(InaccessibleError):
        low.periodic_orbit((0.0, -0.9))
    with pytest.raises(PeriodicOrbitNotFoundError, match="did not converge") as exc:
        sec_e.periodic_orbit((ISLAND[0] + 0.1, ISLAND[1] - 0.1), max_iter=1)
    assert exc.value.residual > 1e-10


@pytest.mark.parametrize("body, E, mu, seed", [("paper_fig1", -4.0, 0.0, (1.6578, 0.9984)),
                                                ("paper_fig2", 11.95, None, ISLAND)])
def test_geometric_phase_of_a_periodic_orbit(body, E, mu, seed):
    """Prop 18 on closed reduced curves found by periodic_orbit (as in notebooks/geometric_phase.ipynb): the
    rotation about the vertical after one period (reconstruction, Prop 17) is theta_dyn (Eq 67) + theta_geo
    (Eq 70) mod 2 pi.  Measured differences: 4.3e-8 rad (mu = 0), 5.1e-9 rad (mu = 1.218)."""
    from pendulum_explorer.reduction import geometric_phase, simulate_lr

    P = presets.get(body).pendulum
    sec = PoincareSection.from_paper_ic(P, E)[0] if mu is None else PoincareSection(P, E, mu)
    po = sec.periodic_orbit(seed)
    tr = simulate_lr(P, po.Gamma, np.cross(po.Gamma, po.omega), sec.mu, po.period, n_out=40001, rtol=1e-12,
                     atol=1e-14)
    assert np.linalg.norm(tr.Gamma[-1] - tr.Gamma[0]) < 1e-8
    dR = tr.R[-1] @ tr.R[0].T
    assert abs(dR[2, 2] - 1.0) < 1e-10  # a rotation about e3
    theta = np.arctan2(dR[1, 0], dR[0, 0])
    gap = np.remainder(theta - tr.stats["theta_dyn"] - geometric_phase(P, tr.Gamma) + np.pi, 2 * np.pi) - np.pi
    assert abs(gap) <= 1e-6
    assert (tr.stats["theta_dyn"] == 0.0) == (sec.mu == 0.0)


def test_chaos_map_and_orbit_figures(sec_e):
    from plotly import graph_objects as go

    from pendulum_explorer.plotting.section import chaos_map_figure

    cm = sec_e.chaos_map((8, 6), 10.0)
    po = sec_e.periodic_orbit(ISLAND)
    fig = chaos_map_figure(sec_e, cm, orbits=[po])
    assert isinstance(fig.data[0], go.Heatmap) and isinstance(fig.data[1], go.Heatmap)  # shading, then the map
    hm = fig.data[1]
    # drawn on the shading's grid: each accessible node has the value of its map cell (float32)
    reg = sec_e.accessible_region()
    np.testing.assert_array_equal(np.asarray(hm.x), reg.phi)
    want = np.where(reg.accessible, cm.values_at(*np.meshgrid(reg.phi, reg.z)), np.nan).astype(np.float32)
    np.testing.assert_array_equal(np.asarray(hm.z, dtype=np.float32), want)
    assert "regular" in hm.colorbar.title.text and "chaotic" in hm.colorbar.title.text
    assert hm.showscale and hm.zmin == 0.0
    orb = fig.data[-1]
    assert list(orb.marker.symbol) == ["circle"] and "period 0.6716" in orb.text[0]
    lyap = chaos_map_figure(sec_e, sec_e.chaos_map((8, 6), 10.0, indicator="lyapunov"))
    assert "1/s" in lyap.data[1].colorbar.title.text
    # the hover over the map gives the value of the map cell under the pointer and what it means; the map itself
    # takes no hover or click (both stay with the shading's fine grid, so a click launches where it lands)
    assert hm.hoverinfo == "skip"
    shade, reg = fig.data[0], sec_e.accessible_region()
    text = np.asarray(shade.text)
    assert text.shape == reg.V.shape and "≈2 regular, ≫2 chaotic" in shade.hovertemplate
    assert "%{text}" in shade.hovertemplate and "T = 10 s" in shade.hovertemplate
    checked = 0
    for jz in range(0, len(reg.z), 7):
        for ip in range(0, len(reg.phi), 9):
            v = cm.value_at(reg.phi[ip], reg.z[jz])
            if np.isfinite(v):
                word = "chaotic" if v > 4 else "regular"
                assert text[jz, ip] == f"Ȳ = {v:.3g}, {word}"
                checked += 1
            else:
                assert "no value" in text[jz, ip]
    assert checked > 20
    assert {"regular", "chaotic"} <= {t.rsplit(", ", 1)[-1] for t in text.ravel()}
    assert "λ = " in lyap.data[0].text[40][60] or "no value" in lyap.data[0].text[40][60]
    # zoomed (a 121 x 81 grid of the window), the hover gives the map's values on the new grid
    from pendulum_explorer.plotting.section import zoom_chart
    zoom_chart(fig, sec_e, (1.0, 2.0, 0.5, 0.9), cm)
    zt, sh = np.asarray(fig.data[0].text), fig.data[0]
    assert zt.shape == (81, 121) and "≫2 chaotic" in sh.hovertemplate
    v = cm.value_at(sh.x[60], sh.y[40])
    assert zt[40, 60] == (f"Ȳ = {v:.3g}, {'chaotic' if v > 4 else 'regular'}" if np.isfinite(v) else zt[40, 60])
    zoom_chart(fig, sec_e, (1.0, 2.0, 0.5, 0.9))  # without the map: no stale values
    assert fig.data[0].text is None and "chaotic" not in fig.data[0].hovertemplate
    # the cells' indices, vectorised, agree with the scalar lookup
    j, i = cm.cells(*np.meshgrid(reg.phi, reg.z))
    assert (int(j[3, 5]), int(i[3, 5])) == cm.cell(reg.phi[5], reg.z[3])


def test_megno_on_the_periodic_orbits(sec_e, P):
    """On the elliptic fixed point of the Fig. 2 (e) island: a deviation crossing the neighbouring energy levels
    shears along the orbit (their periods differ), |delta| grows linearly, Ybar -> 2 (measured 1.9999 at 2000 s);
    kept on the level the nearby orbits of the section map just rotate about the fixed point, |delta| stays
    bounded, Ybar -> 0 (measured -7e-5).  On the hyperbolic one (E = 5) Ybar grows like lambda t / 2."""
    from pendulum_explorer.chaos import megno

    po = sec_e.periodic_orbit(ISLAND)
    assert abs(megno(P, po.Gamma, po.omega, 500.0, n_samples=1).value - 2.0) < 0.05
    assert abs(megno(P, po.Gamma, po.omega, 500.0, n_samples=1, tangent_to_level=True).value) < 0.05
    hyp = PoincareSection.from_paper_ic(P, 5.0)[0].periodic_orbit((1.5708, 0.85))
    r = megno(P, hyp.Gamma, hyp.omega, 40.0, n_samples=1, tangent_to_level=True)
    lam = np.log(np.abs(hyp.multipliers).max()) / hyp.period  # 1.13 1/s
    assert r.value > 10 and 2 * r.value / 40.0 == pytest.approx(lam, rel=0.2)


def test_megno_seeds_on_the_lanes_equal_the_seed_by_seed_values(sec_e, P):
    """``megno_seeds`` (the dashboard's Ybar of a fill, one call for a lane group): per seed the scalar Taylor
    MEGNO to 1e-9 relative on the regular island (below 2.5 there), chaotic seeds far above 2 (chaos: the two
    integrators part), threads 1 and 2 bit-identical, and every bad argument refused by name before any work."""
    from pendulum_explorer.chaos import megno
    from pendulum_explorer.errors import InvalidStateError
    from pendulum_explorer.poincare import megno_seeds

    island = [sec_e.check_seed(sec_e.seed_at(ISLAND[0], ISLAND[1] + d)[0]) for d in (0.0, -0.004, -0.008)]
    seeds = island + [sec_e.check_seed(s) for s in sec_e.fill_seeds(9)]
    ybar, lyap, ok = megno_seeds(sec_e.map, seeds, 100.0)
    assert ybar.shape == lyap.shape == ok.shape == (12,) and ok.all()
    one = np.array([megno(P, s[:3], s[3:], 100.0, method="taylor").value for s in seeds])
    assert (ybar[:3] < 2.5).all(), ybar[:3]  # regular (1.64-1.66 at T = 100 s)
    np.testing.assert_allclose(ybar[:3], one[:3], rtol=1e-9)
    assert ybar.max() > 4.0 and (one > 4.0).sum() >= 1  # the fill reaches the chaotic sea
    y1, l1, _ = megno_seeds(sec_e.map, seeds, 100.0, threads=1)
    assert np.array_equal(y1, ybar) and np.array_equal(l1, lyap)
    with pytest.raises(InvalidIntegrationError, match="t_total"):
        megno_seeds(sec_e.map, seeds, -1.0)
    with pytest.raises(InvalidIntegrationError, match="threads"):
        megno_seeds(sec_e.map, seeds, 10.0, threads=0)
    with pytest.raises(InvalidIntegrationError, match="method"):
        megno_seeds(sec_e.map, seeds, 10.0, method="rk4")
    with pytest.raises(ShapeError, match="seeds"):
        megno_seeds(sec_e.map, [], 10.0)
    off = (np.array([0.0, 0.0, 1.0]), np.array([50.0, 0.0, 0.0]))  # far off the level
    with pytest.raises(InvalidStateError, match=r"seeds\[1\]"):
        megno_seeds(sec_e.map, [seeds[0], off], 10.0)
