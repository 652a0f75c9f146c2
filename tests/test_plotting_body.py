import numpy as np
import pytest

from pendulum_explorer import presets, simulate
from pendulum_explorer.plotting.body import (DISPLAY, animation_figure, body_preview_figure, frame_indices,
                                             hanging_attitude)


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


def test_hanging_attitude():
    p = presets.paper_fig1().pendulum
    R = hanging_attitude(p)
    np.testing.assert_allclose(R @ p.rho, [0, 0, np.linalg.norm(p.rho)], atol=1e-12)
    assert np.linalg.det(DISPLAY) == 1.0


def test_frame_indices():
    idx = frame_indices(1001, 120)
    assert idx[0] == 0 and idx[-1] == 1000 and len(idx) == 120 and np.all(np.diff(idx) > 0)
    assert list(frame_indices(5, 120)) == [0, 1, 2, 3, 4]


def test_animation_frames_follow_R():
    body = presets.paper_fig1()
    tr = simulate(body.pendulum, np.eye(3), [1.0, 1.0, 1.0], 2.0, n_out=201)
    fig = animation_figure(body, tr, max_frames=50)
    assert len(fig.frames) == 50
    idx = frame_indices(201, 50)
    V0 = np.asarray(body.mesh.vertices)
    for f, k in zip(fig.frames[::7], idx[::7]):
        mesh = f.data[0]
        expect = (V0 @ tr.R[k].T) @ DISPLAY
        np.testing.assert_allclose(np.stack([mesh.x, mesh.y, mesh.z], 1), expect, atol=1e-4)
        com = f.data[2]
        np.testing.assert_allclose([com.x[0], com.y[0], com.z[0]], (tr.R[k] @ body.pendulum.rho) @ DISPLAY, atol=1e-4)
        gam = f.data[4]
        np.testing.assert_allclose([gam.x[0], gam.y[0], gam.z[0]], tr.Gamma[k], atol=1e-4)
        assert f.data[5].x[0] == pytest.approx(tr.t[k])
    # controls: play / pause, speed menu and a slider step per frame
    lay = fig.layout
    assert [b.label for b in lay.updatemenus[0].buttons] == ["▶ play", "❚❚ pause"]
    assert len(lay.sliders[0].steps) == 50
    assert all(s.args[0][0] == f.name for s, f in zip(lay.sliders[0].steps, fig.frames))
    # energy / mu errors: log axis, non-negative values
    err = [t for t in fig.data if t.name and t.name.startswith("|E")][0]
    y = np.asarray(err.y if not isinstance(err.y, dict) else
                   np.frombuffer(__import__("base64").b64decode(err.y["bdata"]), dtype=err.y["dtype"]))
    assert np.all(y > 0) and y.max() < 1e-6
