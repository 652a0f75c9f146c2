import numpy as np
import pytest

from pendulum_explorer import presets, simulate
from pendulum_explorer.plotting.body import DISPLAY, body_preview_figure, hanging_attitude


@pytest.mark.parametrize("name", list(presets.PRESETS))
def test_preview_hangs_centre_of_mass_below_pivot(name):
    body = presets.get(name)
    fig = body_preview_figure(body)
    names = [t.name for t in fig.data]
    assert names[:3] == ["body", "pivot", "centre of mass"]
    com = np.array([fig.data[2].x[0], fig.data[2].y[0], fig.data[2].z[0]])
    r = np.linalg.norm(body.pendulum.rho)
    np.testing.assert_allclose(com, [0, 0, -r], atol=1e-12)  # straight below the pivot on screen
    # the mesh is the body's mesh moved rigidly: distances to the pivot are kept
    V = np.stack([fig.data[0].x, fig.data[0].y, fig.data[0].z], 1)
    np.testing.assert_allclose(np.linalg.norm(V, axis=1), np.linalg.norm(body.mesh.vertices, axis=1), atol=1e-12)
    # three principal axes, orthonormal directions
    axes = [t for t in fig.data if t.name.startswith("principal axis")]
    A = np.array([[t.x[1], t.y[1], t.z[1]] for t in axes])
    A /= np.linalg.norm(A, axis=1)[:, None]
    np.testing.assert_allclose(A @ A.T, np.eye(3), atol=1e-12)


@pytest.mark.parametrize("name", list(presets.PRESETS))
def test_preview_ticks_stay_off_the_cube_corners(name):
    """No tick label at the ends of an axis (plotly drew the y axis's "-1.5" over the z axis's "-1.5" at the
    cube's bottom corner: "-1-1" on the Fig. 1 preview); the vertical axis's lowest tick above the horizontal ones'."""
    sc = body_preview_figure(presets.get(name)).layout.scene
    half = sc.xaxis.range[1]
    for ax in (sc.xaxis, sc.yaxis, sc.zaxis):
        ticks = np.asarray(ax.tickvals, float)
        assert len(ticks) >= 2 and np.all(np.abs(ticks) <= half / 1.15 + 1e-12), (ax.tickvals, half)
        step = np.diff(ticks)
        np.testing.assert_allclose(step, step[0])  # evenly spaced round values
    assert min(sc.zaxis.tickvals) > min(sc.xaxis.tickvals) and 0.0 in sc.zaxis.tickvals


def test_hanging_attitude():
    p = presets.paper_fig1().pendulum
    R = hanging_attitude(p)
    np.testing.assert_allclose(R @ p.rho, [0, 0, np.linalg.norm(p.rho)], atol=1e-12)
    assert np.linalg.det(DISPLAY) == 1.0


def test_motion_plot_legends_above_the_data():
    """The legends of the omega and error plots sit in the top-right corner of each plot: the y ranges keep the
    plots' top 30 % free of data (autorange drew the lines under the legends, e.g. omega_3 of the Fig. 1 body)."""
    from pendulum_explorer.plotting.body import LEGEND_ROOM, motion_plots_figure

    tr = simulate(presets.paper_fig1().pendulum, np.eye(3), [1.0, 1.0, 1.0], 5.0, n_out=2001)
    fig = motion_plots_figure(tr)
    for axis, traces, to_axis in ((fig.layout.yaxis, fig.data[:3], np.asarray),
                                  (fig.layout.yaxis2, fig.data[3:5], np.log10)):
        y = to_axis(np.concatenate([np.asarray(t.y, float) for t in traces]))
        lo, hi = axis.range
        assert lo <= y.min() and y.max() <= lo + (1 - LEGEND_ROOM) * (hi - lo) + 1e-9, (axis.range, y.min(), y.max())
        legend = fig.layout.legend if axis is fig.layout.yaxis else fig.layout.legend2
        top = axis.domain[1]
        assert top - legend.y <= LEGEND_ROOM * (top - axis.domain[0])  # the legend's lower edge within the room
