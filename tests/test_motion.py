"""The motion as the dashboard plays it: sampled from the motion's own time scales, the
attitude sent once as quaternions, played in true time with the attitude interpolated (slerp) between samples.

The display is modelled here as the browser runs it: frames at 60 Hz of wall-clock time, motion time =
speed x wall time, attitude = slerp of the two neighbouring samples (scipy's Slerp as the reference; the browser
test reads the page's own attitudes)."""
from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.spatial.transform import Rotation, Slerp

from pendulum_explorer import Pendulum, playback, presets, simulate
from pendulum_explorer.app.motion_panel import MotionPanel, compute_motion
from pendulum_explorer.app.state import AppState
from pendulum_explorer.plotting.body import DISPLAY, envelope, motion_payload, motion_plots_figure, payload_quaternions

FPS = 60.0


def _tilt(R, rho):
    """Signed angle of the centre of mass from the downward vertical in the e2-e3 plane (e3 points down)."""
    c = np.asarray(R) @ np.asarray(rho)
    return np.arctan2(c[:, 1], c[:, 2])


def _sign_changes(x):
    s = np.sign(x)
    s = s[s != 0]
    return int(np.count_nonzero(s[1:] != s[:-1]))


def _played_attitudes(payload, speed, fps=FPS):
    """The attitudes on screen at every display frame of one play-through at ``speed``."""
    q = payload_quaternions(payload)
    t = payload["t0"] + payload["dt"] * np.arange(payload["n"])
    frames = np.arange(payload["t0"], t[-1], speed / fps)
    return Slerp(t, Rotation.from_quat(q))(frames).as_matrix()


@pytest.fixture(scope="module")
def planar_panel():
    """The motion panel after computing a planar swing (rod, period 1.64 s) for 200 s with the default method."""
    state = AppState(presets.planar())
    panel = MotionPanel(state)
    panel.task.synchronous = True
    panel.omega0[0].value, panel.omega0[1].value, panel.omega0[2].value = 2.0, 0.0, 0.0
    panel.t_final.value = 200.0
    panel._on_run()
    assert panel.msg.kind == "ok", panel.msg.text
    return panel


def test_planar_swing_is_not_aliased(planar_panel):
    """The animated tilt changes sign as often as the true motion does (the 120-frame animation showed ~14 of the
    244 swings of a 200 s run: a 1.64 s swing looked like a ~29 s one)."""
    body = presets.planar()
    rho = body.pendulum.rho
    ref = simulate(body.pendulum, np.eye(3), [2.0, 0.0, 0.0], 200.0, n_out=40001)  # 200 samples per second
    true = _sign_changes(_tilt(ref.R, rho))
    T = playback.shortest_period(body.pendulum)
    assert true == pytest.approx(2 * 200.0 / T, abs=6)  # ~ two per period (amplitude ~0.5 rad: a bit longer)
    payload = planar_panel.out.animation
    assert payload["n"] >= 40 * 200.0 / T  # the samples themselves
    samples = _sign_changes(_tilt(Rotation.from_quat(payload_quaternions(payload)).as_matrix(), rho))
    assert abs(samples - true) <= 1
    for speed in (0.25, 1.0, 4.0, 10.0):  # what the screen shows at the speeds of the menu
        shown = _sign_changes(_tilt(_played_attitudes(payload, speed), rho))
        assert abs(shown - true) <= 1, (speed, shown, true)


def test_payload_is_the_trajectory(planar_panel):
    """The quaternions sent are the trajectory's attitudes (float32), evenly spaced from t = 0 to t_final; the mesh
    is the body's; no plotly frames."""
    panel = planar_panel
    tr, k = panel.trajectory, panel.stride
    p = panel.out.animation
    R = Rotation.from_quat(payload_quaternions(p)).as_matrix()
    np.testing.assert_allclose(R, tr.R[::k], atol=2e-6)
    assert p["t0"] == 0.0 and p["t0"] + p["dt"] * (p["n"] - 1) == pytest.approx(tr.t[::k][-1], rel=1e-12)
    body = panel.state.body
    np.testing.assert_array_equal(np.frombuffer(p["faces"], "<i4").reshape(-1, 3), body.mesh.faces)
    np.testing.assert_allclose(np.frombuffer(p["vertices"], "<f4").reshape(-1, 3), body.mesh.vertices, atol=1e-6)
    assert p["display"] == DISPLAY.tolist() and np.allclose(p["hanging"], [0, 0, 1])
    fig = panel.out.fig
    assert not fig.frames  # no plotly frames: the browser animates
    assert "samples shown" in panel.info.value


def test_info_names_the_method():
    """The line under the controls names the method as the menu does ("TAYLOR" was shown for the Taylor method)."""
    panel = MotionPanel(AppState(presets.planar()))
    panel.task.synchronous = True
    panel.t_final.value = 2.0
    for method, name in (("taylor", "(Taylor method)"), ("lgvi", "(LGVI)")):
        panel.method.value = method
        panel._on_run()
        assert name in panel.info.value and "TAYLOR" not in panel.info.value, panel.info.value


def test_omega0_outside_the_range_is_refused():
    """ω₀ = (1e6, 0, 0) rad/s was accepted: 22 s of integration (15.8 million steps) reported as a success, with
    1.7 rad between the samples shown.  Now a message names the box and the range (the link's), nothing runs."""
    panel = MotionPanel(AppState(presets.planar()))
    panel.task.synchronous = True
    panel.omega0[0].value = 1e6
    panel.t_final.value = 5.0
    panel._on_run()
    assert panel.msg.kind == "error" and "ω₀₁ = 1e+06 rad/s is outside the dashboard's range -1000 … 1000 rad/s" \
        in panel.msg.text, panel.msg.text
    assert panel.trajectory is None and panel.info.value == ""


@pytest.mark.parametrize("name, w0", [("planar", [2.0, 0.0, 0.0]), ("planar", [0.02, 0.0, 0.0]),
                                      ("paper_fig1", [1.0, 1.0, 1.0]), ("lagrange_top", [0.0, 0.0, 30.0]),
                                      ("paper_fig2", [3.0, -1.0, 0.5])])
def test_sampling_follows_the_time_scales(name, w0):
    """The energy bound holds; the samples shown turn the body by <= ANGLE_PER_SAMPLE and give each
    small-oscillation period >= SAMPLES_PER_PERIOD samples, whatever the amplitude."""
    pend = presets.get(name).pendulum
    w0 = np.asarray(w0, float)
    tr = compute_motion(pend, None, w0, 20.0, "lr")
    w_max = float(np.linalg.norm(tr.omega, axis=1).max())
    assert w_max <= playback.omega_bound(pend, tr.energy[0]) * (1 + 1e-9)
    k = playback.display_stride(tr)
    q = playback.attitude_quaternions(tr.R[::k])
    assert playback.max_angle_per_sample(q) <= playback.ANGLE_PER_SAMPLE * (1 + 1e-6)
    dt = tr.t[k] - tr.t[0]
    assert dt <= playback.shortest_period(pend) / playback.SAMPLES_PER_PERIOD * (1 + 1e-9)
    assert len(tr.t[::k]) >= playback.MIN_SAMPLES and tr.t[::k][-1] == tr.t[-1]  # the thinned motion ends at t_final
    # consecutive quaternions on the same side (slerp takes the short way)
    assert np.all(np.sum(q[1:] * q[:-1], axis=1) > 0)


def test_sample_count_bounds_and_errors():
    pend = presets.planar().pendulum
    assert playback.sample_count(pend, -4.0, 0.1) == playback.MIN_SAMPLES
    assert playback.sample_count(pend, 1e6, 200.0) == playback.MAX_SAMPLES
    T = playback.shortest_period(pend)
    n = playback.sample_count(pend, -np.linalg.norm(pend.mgrho) + 1e-6, 100.0)  # nearly at rest: the period decides
    need = math.ceil(100.0 / (T / playback.SAMPLES_PER_PERIOD))
    assert (n - 1) % playback.INTERVALS_MULTIPLE == 0 and need <= n - 1 < need + playback.INTERVALS_MULTIPLE
    assert math.isinf(playback.shortest_period(Pendulum(np.eye(3), [0.0, 0.0, 0.0])))  # balanced: no oscillation
    for bad in (0.0, -1.0, float("nan")):
        with pytest.raises(ValueError, match="t_final"):
            playback.sample_count(pend, 0.0, bad)
    with pytest.raises(ValueError, match="E must be"):
        playback.omega_bound(pend, float("inf"))


def test_envelope_keeps_extremes():
    t = np.linspace(0, 100, 100_001)
    y = np.sin(2 * np.pi * 3.1 * t) * (1 + t / 100)  # 310 periods: a naive thinning to 3000 points aliases
    tx, yx = envelope(t, y, 1500)
    assert len(tx) <= 3002 and np.all(np.diff(tx) > 0)
    assert yx.max() == y.max() and yx.min() == y.min()
    # every stretch of 1/30 of the run keeps its own extremes (the envelope, not an alias)
    for a in range(0, 100_000 - 3333, 3333):
        sl = slice(a, a + 3333)
        m = (tx >= t[sl][0]) & (tx <= t[sl][-1])
        assert yx[m].max() >= y[sl].max() - 0.02 and yx[m].min() <= y[sl].min() + 0.02
    t2, y2 = envelope(t[:100], y[:100])
    assert len(t2) == 100


def test_motion_plots_figure():
    body = presets.paper_fig1()
    tr = simulate(body.pendulum, np.eye(3), [1.0, 1.0, 1.0], 2.0, n_out=201)
    fig = motion_plots_figure(tr)
    assert [t.name for t in fig.data][:3] == ["ω₁", "ω₂", "ω₃"]
    assert [t.legend or "legend" for t in fig.data] == ["legend"] * 3 + ["legend2"] * 2 + ["legend"]
    assert fig.layout.yaxis2.type == "log"
    # the third plot: the tilt in degrees, without a legend (its title says what it is)
    assert fig.data[5].showlegend is False and fig.layout.yaxis3.ticksuffix == "°"
    assert fig.layout.annotations[2].text == "tilt from the vertical [°]"
    err = np.asarray(fig.data[3].y)
    assert np.all(err > 0) and err.max() < 1e-6
    with pytest.raises(ValueError, match="stride"):
        motion_payload(body, tr, 0)


def test_presenter_view_enlarges_the_motion(planar_panel):
    """The presenter view: the views fill the rest of the first screen (``fit``, the animation above its
    controls), their text and markers and the plots' fonts are larger; switching back restores them."""
    panel = planar_panel
    state = panel.state
    assert (panel.out.scale, panel.out.fill, panel.out.fit) == (1.0, 0.56, False)
    state.set_presenter(True)
    try:
        assert panel.out.scale == pytest.approx(1.6) and panel.out.fit
        assert panel.widget.children[0] is panel.out  # the animation first, its controls below it
        lay = panel.out.fig.layout
        assert lay.font.size == 18 and lay.legend.font.size == 16 and lay.legend2.font.size == 16
        # the plots' titles grow too (they stayed at 16 px under 18 px tick labels)
        assert [a.font.size for a in lay.annotations] == [20, 20, 20]
    finally:
        state.set_presenter(False)
    assert (panel.out.scale, panel.out.fill, panel.out.fit) == (1.0, 0.56, False)
    assert panel.out.fig.layout.legend2.font.size == 12 and panel.out.fig.layout.font.size is None
    assert [a.font.size for a in panel.out.fig.layout.annotations] == [16, 16, 16]
