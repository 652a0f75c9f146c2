"""The Motion tab: the animation sent once, the integrators offered, what a too fast or drifting motion says."""
import base64
import csv
import io
import json
import numpy as np
import pytest
from pendulum_explorer import presets
from pendulum_explorer.app import build_app
from pendulum_explorer.app.common import Messages, figure_bundle
from pendulum_explorer.poincare import PoincareSection, chart_from_sphere, sphere_from_chart

from app_helpers import (_accessible_point, _contrast_on_white, _dash, _decode, _fig, _fresh_process_lines, _level_snapshot, app, build_query_of)  # noqa: F401


def test_motion_animation_is_sent_once(app):
    """The motion panel sends the attitude samples (quaternions) and the mesh once; the browser plays them
    (tests/test_motion.py checks what it plays)."""
    mot = app.panel("motion")
    mot.on_show()
    anim = mot.out.animation
    assert anim["n"] == len(mot.trajectory.t[::mot.stride]) and len(anim["quaternions"]) == 16 * anim["n"]
    assert "frames" not in _fig(mot.out)
    tr = mot.trajectory
    assert tr.energy_error < 1e-6
    mot.method.value = "lgvi"
    mot._on_run()
    assert mot.trajectory.method == "lgvi" and mot.msg.kind == "ok"


def test_motion_too_fast_says_what_to_change(app, monkeypatch):
    """An ω₀ the integrator cannot follow: a message naming what the user can change; the last motion stays.
    An ω₀ outside the box's range (±1000 rad/s, the link's) is refused before anything runs."""
    from pendulum_explorer import playback

    mot = app.panel("motion")
    mot._on_run()
    good = mot.trajectory
    assert mot.msg.kind == "ok"
    for t in mot.omega0:
        t.value = 10000.0
    mot.method.value = "lgvi"
    mot._on_run()
    assert mot.trajectory is good and mot.msg.kind == "error"
    assert mot.msg.text.startswith("ω₀₁ = 10000 rad/s is outside the dashboard's range -1000 … 1000 rad/s")
    # within the range, an integrator that gives up (LGVI at 10000 rad/s: the implicit step has no solution)
    real = playback.compute_motion

    def gives_up(*a, **kw):
        raise ValueError("LGVI: the implicit step equation has no solution")

    for t in mot.omega0:
        t.value = 900.0
    monkeypatch.setattr(playback, "compute_motion", gives_up)
    mot._on_run()
    monkeypatch.setattr(playback, "compute_motion", real)
    assert mot.trajectory is good and mot.msg.kind == "error"
    assert mot.msg.text.startswith("LGVI: the implicit step equation has no solution")
    assert "ω₀ = [900, 900, 900] rad/s is too fast" in mot.msg.text
    assert "try a smaller ω₀" in mot.msg.text and "previous motion stays shown" in mot.msg.text
    # the next feasible input computes and replaces the motion
    for t in mot.omega0:
        t.value = 1.0
    mot._on_run()
    assert mot.trajectory is not good and mot.trajectory.method == "lgvi" and mot.msg.kind == "ok"


def test_motion_offers_the_taylor_method(app):
    mot = app.panel("motion")
    assert ("Taylor (machine precision)", "taylor") in mot.method.options
    mot.method.value = "taylor"
    mot._on_run()
    tr = mot.trajectory
    assert tr.method == "taylor" and mot.msg.kind == "ok"
    assert tr.energy_error < 1e-12 * max(1.0, abs(float(tr.energy[0])))


def test_link_opens_a_given_motion():
    """omega0 and T in a link: the Motion tab opens with that motion computed (R0 = I); "copy link" in the Motion
    tab writes them back.  Before, a link could not say which motion to show: a lesson's link to the planar swing
    opened the rod tumbling with the default omega0 = (1, 1, 1)."""
    d = _dash("preset=planar&omega0=5.42,0,0&T=6")
    mot = d.panels["motion"]
    mot.task.wait()
    assert d.tabs.selected_index == 3 and mot.choice.value == 0
    tr = mot.trajectory
    np.testing.assert_allclose(tr.omega[0], [5.42, 0.0, 0.0], atol=1e-12)
    assert tr.t[-1] == pytest.approx(6.0)
    assert "ω₀ = (5.42, 0, 0) rad/s for 6 s" in d.msg.text
    q = build_query_of(d)
    assert "omega0=5.42,0,0" in q and "T=6" in q and "tab=motion" in q and "preset=planar" in q


def test_motion_with_drifted_invariants_says_so(app, monkeypatch):
    """The library's InvariantDriftWarning of a motion (e.g. the Lagrange top's Routh run over 200 s: energy drift
    1.1e-8 against a bound of 9.7e-9) reached only stderr; the Motion tab shows the motion with a note."""
    import warnings

    from pendulum_explorer import playback
    from pendulum_explorer.errors import InvariantDriftWarning

    real = playback.compute_motion

    def drifting(*a, **kw):
        traj = real(*a, **kw)
        warnings.warn(InvariantDriftWarning("DOP853: the invariants drifted beyond what the tolerance implies "
                                            "(tol 1e-10 x sqrt(90 steps) = 9.7e-09): energy 1.1e-08 (stats['drift']);"
                                            " tighten the tolerance"))
        return traj

    mot = app.panel("motion")
    monkeypatch.setattr(playback, "compute_motion", drifting)
    with warnings.catch_warnings():
        warnings.simplefilter("error", InvariantDriftWarning)  # none escapes the panel
        mot._on_run()
    assert mot.trajectory is not None and mot.msg.kind == "info"
    assert mot.msg.text.startswith("Note: the integration's check of the invariants says DOP853: the invariants "
                                   "drifted beyond what the tolerance implies")
    assert "energy 1.1e-08" in mot.msg.text and "The motion is shown" in mot.msg.text


# ------------------------------------------------------------------------------------ issue 23, part 2
def _tilt_at_start(anim, rho):
    """The tilt [deg] of the first attitude the page receives: the angle between R rho and the downward e3."""
    from scipy.spatial.transform import Rotation

    q = np.frombuffer(anim["quaternions"], dtype="<f4").reshape(-1, 4)[0].astype(float)
    c = Rotation.from_quat(q).as_matrix() @ rho
    return float(np.degrees(np.arccos(c[2] / np.linalg.norm(c))))


def test_motion_released_from_a_tilt(app):
    """"released tilted θ from hanging": choosing it sets ω₀ = 0 (from rest) and computes the motion at once, paused
    at t = 0 with the body drawn tilted by θ (the attitude the page receives first); θ outside ±180° is refused
    next to the controls, the motion shown stays."""
    mot = app.panel("motion")
    mot.on_show()
    mot.start.angle.value = 40.0
    mot.start.start.value = "tilt"
    assert [b.value for b in mot.omega0] == [0.0, 0.0, 0.0]
    rho = np.asarray(mot.trajectory.pendulum.rho, float)
    assert _tilt_at_start(mot.out.animation, rho) == pytest.approx(40.0, abs=1e-3)
    assert mot.out.animation["keep_time"] is False and "released 40° about lab e₁" in mot.info.value
    tilt = mot.out.fig.data[5].y
    assert float(np.max(tilt)) == pytest.approx(40.0, abs=0.05)  # released from rest: the tilt's amplitude
    mot.start.axis.value = "body-2"  # a body axis: rho turns about it by 40°, its tilt is the angle it sweeps
    from pendulum_explorer.geometry import rotation_about

    u = rho / np.linalg.norm(rho)
    swept = np.degrees(np.arccos(u @ rotation_about([0.0, 1.0, 0.0], np.radians(40.0)) @ u))
    assert 30.0 < swept < 40.0 and _tilt_at_start(mot.out.animation, rho) == pytest.approx(swept, abs=1e-3)
    good = mot.trajectory
    mot.start.angle.max = 1000.0  # (the box clamps; a link or a script could still send more)
    mot.start.angle.value = 200.0
    assert mot.msg.kind == "error" and "θ = 200 ° is outside -180 … 180 °" in mot.msg.text
    assert mot.trajectory is good


def test_motion_omega_in_rev_per_second(app):
    mot = app.panel("motion")
    for b, x in zip(mot.omega0, (np.pi, 0.0, 0.0)):
        b.value = x
    mot.start.unit.value = "rev/s"  # the boxes converted: the same ω₀ in rev/s
    assert [b.value for b in mot.omega0] == [0.5, 0.0, 0.0]
    mot._on_run()
    np.testing.assert_allclose(mot.trajectory.omega[0], [np.pi, 0.0, 0.0], atol=1e-12)
    assert "ω₀ [rev/s]" in mot._omega_label.value
    # a link says ω₀ in rad/s: "copy link" converts the boxes (it wrote 0.5 for 0.5 rev/s)
    app.tabs.selected_index = 3
    q = build_query_of(app)
    assert "omega0=3.14159" in q and "omega0=0.5," not in q, q


def test_motion_damping_needs_dop853_and_shows_the_loss(app):
    """Damping c > 0 with a conservative method: refused in words (naming DOP853); with "DOP853 (damping)" the
    energy bars' total (sent once with the motion) decreases and the second plot shows the energies."""
    mot = app.panel("motion")
    mot.start.start.value = "tilt"
    mot.start.angle.value = 90.0
    mot.start.damping.value = 0.2
    mot._on_run()
    assert mot.msg.kind == "error" and "only “DOP853 (damping)” integrates a damped motion" in mot.msg.text
    assert "outside the paper's model" in mot.msg.text
    mot.method.value = "dop853"
    mot._on_run()
    assert mot.msg.kind == "ok"
    anim = mot.out.animation
    bars = np.frombuffer(anim["energies"], dtype="<f4").reshape(-1, 3)
    assert anim["damping"] == 0.2 and len(bars) == anim["n"]
    assert np.all(np.diff(bars[:, 2]) <= 1e-6) and bars[-1, 2] < 0.5 * bars[0, 2]
    np.testing.assert_allclose(bars[:, 0] + bars[:, 1], bars[:, 2], rtol=1e-5, atol=1e-6)
    assert bars.max() <= anim["energy_max"] * (1 + 1e-6)
    assert [t.name for t in mot.out.fig.data[3:6]] == ["total", "kinetic", "potential"]
    assert "damping c = 0.2 N m s (outside the paper's model)" in mot.info.value


def test_motion_damping_changed_while_it_moves_continues_from_the_time_shown(app):
    """The damping changed at the page's time t = 3 s: the motion before 3 s is kept, the one after is continued
    with the new c, and the page is told to keep its time (no restart from zero)."""
    mot = app.panel("motion")
    mot.method.value = "dop853"
    mot.start.start.value = "tilt"
    mot.start.angle.value = 60.0
    mot.on_show()  # the tab opened: the motion computed
    old = mot.trajectory
    assert not old.stats.get("damping")
    mot.out.now = 3.0  # what the page says it shows
    mot.start.damping.value = 0.5
    new = mot.trajectory
    assert mot.msg.kind == "ok" and "from t = 3.00 s on" in mot.msg.text
    assert mot.out.animation["keep_time"] is True
    k = int(np.searchsorted(old.t, 3.0))
    np.testing.assert_array_equal(new.omega[:k], old.omega[:k])
    assert new.stats["continued_from"] == pytest.approx(old.t[k], abs=1e-12) and len(new.t) == len(old.t)
    assert new.energy[-1] < old.energy[-1] - 0.1
    # with a conservative method the change is refused in words, the motion stays
    mot.method.value = "lgvi"
    mot.start.damping.value = 0.7
    assert mot.msg.kind == "error" and "DOP853" in mot.msg.text and mot.trajectory is new


def test_link_opens_a_tilted_damped_start_and_copy_link_writes_it_back():
    """tilt, axis, damping and unit in a link (issue 23, part 2): the Motion tab opens with the release from rest
    tilted θ about the axis, damped with DOP853, computed; "copy link" writes the same link back.  Before, "copy
    link" left a tilted or damped motion out ("A link cannot hold a tilted start yet")."""
    from pendulum_explorer import playback
    from pendulum_explorer.app.links import parse_query

    d = _dash("preset=paper_fig1&tilt=40&axis=space-2&damping=0.5&T=4&unit=rev/s")
    mot = d.panels["motion"]
    mot.task.wait()
    assert d.tabs.selected_index == 3 and mot.method.value == "dop853" and mot.start.tilted
    tr = mot.trajectory
    np.testing.assert_allclose(tr.omega[0], 0.0, atol=0.0)  # released from rest
    R0 = playback.release_start(d.state.body.pendulum, 40.0, (0.0, 1.0, 0.0), "space")
    np.testing.assert_allclose(tr.R[0], R0, atol=1e-14)
    assert playback.tilt_degrees(tr)[0] == pytest.approx(40.0, abs=1e-9)
    assert tr.stats["damping"] == 0.5 and tr.energy[-1] < tr.energy[0] - 0.05
    assert "released 40° about lab e₂ (horizontal) from hanging" in d.msg.text and "c = 0.5 N m s" in d.msg.text
    assert mot.start.unit.value == "rev/s"
    back = parse_query(build_query_of(d))
    assert (back.tilt, back.axis, back.damping, back.unit, back.T, back.tab) == (40.0, "space-2", 0.5, "rev/s", 4.0,
                                                                                   "motion")
    assert back.omega0 == (0.0, 0.0, 0.0)
    d.links.copy()
    assert "cannot hold" not in d.msg.text


def test_copy_link_does_not_claim_a_motion_it_cannot_hold(app):
    """A damping changed while the motion played continues it from that time: a link (c from t = 0) cannot hold
    that motion, so "copy link" leaves it out and says so; a tilted start it holds."""
    mot = app.panel("motion")
    app.tabs.selected_index = 3
    mot.start.start.value = "tilt"
    q = build_query_of(app)
    assert "tilt=30" in q and "axis=space-1" in q and "omega0=0,0,0" in q, q
    mot.method.value = "dop853"
    mot.on_show()
    mot.out.now = 1.0
    mot.start.damping.value = 0.3
    assert "continued_from" in mot.trajectory.stats
    q = build_query_of(app)
    assert "omega0=" not in q and "tilt=" not in q and "tab=motion" in q, q
    app.links.copy()
    assert "A link cannot hold a damping changed during the motion yet" in app.msg.text
    mot.start.damping.value = 0.0
    mot.start.start.value = "identity"
    mot.method.value = "lr"