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
