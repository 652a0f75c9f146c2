"""What the section chart draws, checked on the figure's data: the chaos map's coloured cells stay inside the
shaded boundary of the accessible region (Fig. 2 body, E = 0 and E = 11.95), and the drawn boundary V_mu = E lies
on the exact boundary (bisection of the accessibility condition) at a zoom into a thin band."""
import numpy as np
import pytest

from pendulum_explorer import presets
from pendulum_explorer.plotting.section import chaos_map_figure, zoom_chart
from pendulum_explorer.poincare import PoincareSection, sphere_from_chart


@pytest.fixture(scope="module")
def P():
    return presets.paper_fig2().pendulum


def _edges(c):
    """The cell edges of a plotly heatmap whose cell centres are ``c`` (midpoints; the end cells symmetric)."""
    c = np.asarray(c, dtype=float)
    mid = 0.5 * (c[1:] + c[:-1])
    return np.concatenate([[c[0] - (mid[0] - c[0])], mid, [c[-1] + (c[-1] - mid[-1])]])


def _cell_values(tr, x, y):
    """The heatmap ``tr``'s value of the cell under each point (x[i], y[j]): (len(y), len(x)); NaN off the map."""
    Z = np.asarray(tr.z, dtype=float)
    ex, ey = _edges(tr.x), _edges(tr.y)
    i = np.searchsorted(ex, x) - 1
    j = np.searchsorted(ey, y) - 1
    out = np.full((len(y), len(x)), np.nan)
    oi, oj = (i >= 0) & (i < Z.shape[1]), (j >= 0) & (j < Z.shape[0])
    out[np.ix_(oj, oi)] = Z[np.ix_(j[oj], i[oi])]
    return out


def _check_inside(fig, sec, cm, x, y):
    shade, hm = fig.data[0], fig.data[1]
    assert shade.name == "V_mu" and hm.name.startswith("chaos map")
    coloured = np.isfinite(_cell_values(hm, x, y))
    grey = _cell_values(shade, x, y) == 1.0
    assert not (coloured & grey).any(), f"{(coloured & grey).sum() / coloured.sum():.1%} of the colour is on grey"
    # the colour covers the white region where the map has values (not an empty map passing trivially)
    PH, Z = np.meshgrid(x, y)
    white = _cell_values(shade, x, y) == 0.0
    assert coloured.sum() > 0.2 * coloured.size
    assert (coloured == (white & np.isfinite(cm.values_at(PH, Z)))).mean() > 0.99
    # the centres of the coloured cells are accessible (exactly, not on the shading's grid)
    hx, hy = np.meshgrid(np.asarray(hm.x, dtype=float), np.asarray(hm.y, dtype=float))
    fin = np.isfinite(np.asarray(hm.z, dtype=float))
    assert np.all(sec.slack(sphere_from_chart(hx[fin], hy[fin])) > 0)


@pytest.mark.parametrize("E", [0.0, 11.95])
@pytest.mark.parametrize("clickable", [False, True])
def test_chaos_map_cells_stay_inside_the_shaded_region(P, E, clickable):
    """No point of the chart is both coloured by the chaos map and shaded grey (inaccessible); every coloured cell's
    centre is accessible (slack > 0); the same after a zoom (the shading recomputed for the window).  Before: the
    map's 16 x 12 cells were drawn whole, so the cells whose centre is accessible spilled up to half a cell
    (0.20 rad x 0.083) over the grey: E = 0, 2.9 % of the coloured area.  (At E = 11.95 the whole sphere is
    accessible: the map covers it all.)"""
    sec = PoincareSection.from_paper_ic(P, E)[0]
    cm = sec.chaos_map((16, 12), 2.0)
    fig = chaos_map_figure(sec, cm, clickable=clickable)
    _check_inside(fig, sec, cm, np.linspace(-np.pi, np.pi, 1201)[1:-1], np.linspace(-1.0, 1.0, 801)[1:-1])
    if clickable and E == 0.0:  # a window across the region's edge
        zoom_chart(fig, sec, (-1.0, 1.0, 0.0, 0.6), cm)
        _check_inside(fig, sec, cm, np.linspace(-1.0, 1.0, 1001)[1:-1], np.linspace(0.0, 0.6, 601)[1:-1])


# ------------------------------------------------------------------------------------------------ the boundary
#: the plot area's width over its height (the dashboard's chart: ~900 x 330 px): a distance along phi counts this
#: many times more than the same fraction of the window height
ASPECT = 3.0


def _exact_boundary(sec, phi0, phi1, z0, z1, n=1200):
    """Points of V_mu = E in the window, each found by bisection of the accessibility condition (slack > 0) along
    ``n`` vertical and ``n // 2`` horizontal lines (every sign change of a 400-point scan, to 1e-13)."""
    def slack(phi, z):
        return np.asarray(sec.slack(sphere_from_chart(phi, z)))

    out = []
    for vertical in (True, False):
        lines = np.linspace(phi0, phi1, n) if vertical else np.linspace(z0, z1, n // 2)
        s = np.linspace(z0, z1, 400) if vertical else np.linspace(phi0, phi1, 400)
        L, S = np.meshgrid(lines, s, indexing="ij")
        F = slack(L, S) if vertical else slack(S, L)
        i, k = np.nonzero((F[:, 1:] > 0) != (F[:, :-1] > 0))
        lo, hi, flo = S[i, k], S[i, k + 1], F[i, k]
        for _ in range(45):
            mid = 0.5 * (lo + hi)
            fm = slack(L[i, k], mid) if vertical else slack(mid, L[i, k])
            same = (fm > 0) == (flo > 0)
            lo, flo, hi = np.where(same, mid, lo), np.where(same, fm, flo), np.where(same, hi, mid)
        r = 0.5 * (lo + hi)
        out.append(np.stack([L[i, k], r], 1) if vertical else np.stack([r, L[i, k]], 1))
    return np.concatenate(out)


def _drawn_boundary(tr, k=16):
    """Points along the drawn polylines of trace ``tr`` (x, y with NaN between polylines), ``k`` per segment."""
    x, y = np.asarray(tr.x, dtype=float), np.asarray(tr.y, dtype=float)
    ok = np.isfinite(x[:-1]) & np.isfinite(x[1:])
    t = np.linspace(0.0, 1.0, k)[None, :]
    px = x[:-1][ok, None] + t * (x[1:] - x[:-1])[ok, None]
    py = y[:-1][ok, None] + t * (y[1:] - y[:-1])[ok, None]
    return np.stack([px.ravel(), py.ravel()], 1)


def _distances(sec, tr, phi0, phi1, z0, z1):
    """(drawn -> exact, exact -> drawn) largest distances in window heights (phi scaled by ASPECT / width)."""
    from scipy.spatial import cKDTree

    scale = np.array([ASPECT / (phi1 - phi0), 1.0 / (z1 - z0)])
    exact = _exact_boundary(sec, phi0, phi1, z0, z1)
    drawn = _drawn_boundary(tr)
    inside = (drawn[:, 0] >= phi0) & (drawn[:, 0] <= phi1) & (drawn[:, 1] >= z0) & (drawn[:, 1] <= z1)
    assert len(exact) > 100 and inside.sum() > 100
    d1 = cKDTree(exact * scale).query(drawn[inside] * scale)[0].max()
    d2 = cKDTree(drawn * scale).query(exact * scale)[0].max()
    return d1, d2


def _shading_error(sec, shade, phi0, phi1, z0, z1):
    """The farthest point of the window from the exact boundary (in window heights, phi scaled by ASPECT / width)
    that the shading ``shade`` draws on the wrong side (grey where accessible or white where not)."""
    from scipy.spatial import cKDTree

    x, y = np.linspace(phi0, phi1, 901)[1:-1], np.linspace(z0, z1, 301)[1:-1]
    PH, Z = np.meshgrid(x, y)
    wrong = (_cell_values(shade, x, y) == 1.0) != (np.asarray(sec.slack(sphere_from_chart(PH, Z))) <= 0)
    if not wrong.any():
        return 0.0
    scale = np.array([ASPECT / (phi1 - phi0), 1.0 / (z1 - z0)])
    pts = np.stack([PH[wrong], Z[wrong]], 1)
    return cKDTree(_exact_boundary(sec, phi0, phi1, z0, z1) * scale).query(pts * scale)[0].max()


def _boundary_trace(fig):
    return next(tr for tr in fig.data if tr.name == "V_mu = E")


def test_boundary_is_exact_in_a_thin_zoom(P):
    """A zoom into a band 0.02 high in Gamma_3 across the boundary (Fig. 2, E = 0, phi in [-0.5, 0.5]): the drawn
    V_mu = E lies within 1 % of the window height of the exact boundary, and every exact point within 1 % of the
    line.  Before: the zoom dropped the boundary line (its shading's cells were the only edge); the plain
    marching squares of the window's 121 x 81 grid (linear interpolation) were 0.6 % off."""
    sec = PoincareSection.from_paper_ic(P, 0.0)[0]
    zb = _exact_boundary(sec, -0.01, 0.01, 0.0, 1.0, n=3)[:, 1].max()  # the boundary's top crossing near phi = 0
    win = (-0.5, 0.5, zb - 0.01, zb + 0.01)
    fig = zoom_chart(chaos_map_figure(sec, sec.chaos_map((4, 4), 1.0), clickable=True), sec, win)
    d1, d2 = _distances(sec, _boundary_trace(fig), *win)
    assert d1 < 0.01 and d2 < 0.01, (d1, d2)
    assert _shading_error(sec, fig.data[0], *win) < 0.01


def test_boundary_is_exact_on_the_chart_zoomed_to_a_thin_band(P):
    """The click-to-launch chart zoomed to the accessible band (mu = 1, E 0.002 J above min V_mu: two small
    regions around the minima at phi = +-pi/2, a band 0.075 high): the drawn boundary within 1 % of the window
    height of the exact one.  Before: the marching squares' linear interpolation on the chart's 121 x 81 grid
    (0.052 rad per column, the regions three columns wide) were 15 % of the window height off."""
    from pendulum_explorer.app.section_chart import SectionChart
    from pendulum_explorer.app.state import AppState

    emin = PoincareSection(P, 0.0, 1.0).accessible_region(121, 81).energy_min
    sec = PoincareSection(P, emin + 0.002, 1.0)
    lo, hi = sec.chart_window()
    assert 0.05 < hi - lo < 0.1
    fig = SectionChart(None, AppState()).figure(sec, sec.chart_region(), [])
    assert tuple(fig.layout.yaxis.range) == (hi, lo)
    d1, d2 = _distances(sec, _boundary_trace(fig), -np.pi, np.pi, lo, hi)
    assert d1 < 0.01 and d2 < 0.01, (d1, d2)
    assert _shading_error(sec, fig.data[0], -np.pi, np.pi, lo, hi) < 0.01
    # every vertex of the line (the grid lines' crossings and the points added where it bowed) is on V_mu = E
    tr = _boundary_trace(fig)
    x, y = np.asarray(tr.x, dtype=float), np.asarray(tr.y, dtype=float)
    fin = np.isfinite(x)
    assert np.abs(sec.slack(sphere_from_chart(x[fin], y[fin]))).max() < 1e-10


def test_the_shading_is_sent_one_byte_a_cell():
    """The shading's 0/1 (inaccessible) go to the browser as uint8, not float64: the start level's chart is
    136 kB of JSON instead of 225 kB (failed before); what it shows is unchanged (the same 0/1 and V_mu)."""
    from pendulum_explorer.app.plotview import jsonable
    from pendulum_explorer.plotting.section import section_chart_figure
    from pendulum_explorer.poincare import default_level

    P1 = presets.paper_fig1().pendulum
    sec = PoincareSection.with_motion(P1, *default_level(P1))
    reg = sec.chart_region()
    sent = jsonable(section_chart_figure(sec, region=reg, clickable=True))["data"][0]
    assert sent["z"]["dtype"] == "u1" and sent["customdata"]["dtype"] == "f8"
    fig = section_chart_figure(sec, region=reg, clickable=True)
    np.testing.assert_array_equal(np.asarray(fig.data[0].z), np.where(reg.accessible, 0, 1))
    np.testing.assert_array_equal(np.asarray(fig.data[0].customdata), reg.V)
