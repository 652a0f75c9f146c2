"""Python-level tests of the dashboard object (no browser): the panels wired to the library."""
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


@pytest.fixture
def app():
    d = build_app(prewarm=False)
    for key in ("body", "section", "motion", "equilibria"):
        p = d.panel(key)
        if hasattr(p, "task"):
            p.task.synchronous = True
    d.panel("equilibria").task.wait()
    return d


def _decode(v):
    """plotly 7 sends numpy arrays as typed arrays {"dtype", "bdata"[, "shape"]}: decode them back."""
    if isinstance(v, dict):
        if "bdata" in v and "dtype" in v:
            a = np.frombuffer(base64.b64decode(v["bdata"]), dtype=np.dtype(v["dtype"]))
            if "shape" in v:
                a = a.reshape([int(x) for x in str(v["shape"]).split(",")])
            return a.tolist()
        return {k: _decode(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_decode(x) for x in v]
    return v


def _fig(view):
    """The plotly figure dict shown in a figure view (as the browser receives it: the synced ``figure`` plus the
    incremental updates applied to it)."""
    assert view.figure, "the view shows no figure"
    return _decode(view.figure)


def _accessible_point(section_panel):
    reg = section_panel.region
    iz, ip = np.argwhere(reg.V < reg.energy - 0.2 * (reg.energy - reg.energy_min))[0]
    return float(reg.phi[ip]), float(reg.z[iz])


def test_default_body_is_fig1(app):
    assert app.state.body.name == "paper_fig1"
    body = app.panel("body")
    assert "0.4486" in body.summary.value  # J1 of Sec. 4.3
    mesh = _fig(body.preview)["data"][0]
    assert mesh["type"] == "mesh3d" and len(mesh["x"]) == len(presets.paper_fig1().mesh.vertices)


def test_preset_updates_figures(app):
    body, sec, eqp = app.panel("body"), app.panel("section"), app.panel("equilibria")
    before_preview = _fig(body.preview)["data"][0]["x"]
    before_V = np.array(sec.region.V)
    body.preset.value = "lagrange_top"
    eqp.task.wait()
    assert app.state.body.name == "lagrange_top"
    after_preview = _fig(body.preview)["data"][0]["x"]
    assert len(after_preview) != len(before_preview) or not np.allclose(after_preview, before_preview)
    # the data table shows the symmetric top's equal moments
    J = app.state.pendulum.principal_moments
    assert abs(J[0] - J[1]) < 1e-12
    assert f"{J[0]:.4g}" in body.summary.value
    # the section chart is redrawn for the new body: its heatmap is the new accessible region
    heat = sec.chart.data[0]
    assert heat.type == "heatmap"
    assert not np.array_equal(np.array(sec.region.V), before_V)
    np.testing.assert_array_equal(np.array(heat.z), np.where(sec.region.accessible, 0.0, 1.0))
    # equilibria: the Lagrange top has the eq7a family; the sphere figure is redrawn
    assert eqp.eq.pendulum == app.state.pendulum
    assert "eq7a" in eqp.eq.labels
    assert len(_fig(eqp.sphere_out)["data"]) > 3


def test_click_accessible_adds_trace_with_n_crossings(app):
    sec = app.panel("section")
    sec.n_cross.value = 300
    phi, z = _accessible_point(sec)
    n_before = len(sec.crossing_traces())

    # the message the chart view's JavaScript sends for a click on the region heatmap
    sec.chart._on_frontend_msg(sec.chart, {"event": "click", "x": phi, "y": z, "curve": 0, "point": 0}, [])
    traces = sec.crossing_traces()
    assert len(traces) == n_before + 1
    tr = traces[-1]
    assert len(tr.x) == 300 and len(tr.y) == 300
    L = app.state.launches[-1]
    assert L.source == "click" and len(L.crossings) == 300
    # the launch started at the clicked point, and the crossings are on the section level
    G0 = sphere_from_chart(phi, z)
    np.testing.assert_allclose(L.Gamma0, G0, atol=1e-12)
    ps = PoincareSection(app.state.pendulum, sec.section.energy, sec.section.mu)
    dE, dmu, g, s = ps.level_errors(L.crossings, ps.states_at(L.crossings / np.linalg.norm(L.crossings, axis=1)[:, None])[0][:, 3:])
    assert np.all(np.abs(g) < 1e-9)
    # every drawn point is accessible (V_mu <= E)
    assert np.all(ps.amended_potential(L.crossings) <= ps.energy + 1e-8)
    np.testing.assert_allclose(np.array(tr.y), np.round(L.crossings[:, 2], 5), atol=1e-12)
    # the browser's copy of the chart got the same crossings (incremental updates of the view)
    shown = _fig(sec.chart)["data"][sec.chart.data.index(tr)]
    np.testing.assert_array_equal(shown["y"], np.round(L.crossings[:, 2], 5))
    # the launch reaches the motion panel
    mot = app.panel("motion")
    assert mot.choice.value == L.id
    assert sec.msg.kind == "ok"


def test_click_inaccessible_shows_message_and_launches_nothing(app):
    sec = app.panel("section")
    reg = sec.region
    inner = ~reg.accessible
    inner[[0, -1], :] = False  # not the poles (excluded from the section for another reason)
    iz, ip = np.argwhere(inner)[len(np.argwhere(inner)) // 2]
    n_before = len(sec.crossing_traces())
    launches_before = len(app.state.launches)
    sec.launch_at(float(reg.phi[ip]), float(reg.z[iz]))
    assert len(sec.crossing_traces()) == n_before
    assert len(app.state.launches) == launches_before
    assert sec.msg.kind == "error" and "not accessible" in sec.msg.text
    assert "pe-message" in sec.msg._dom_classes


def test_invalid_J_keeps_last_valid_body(app):
    body = app.panel("body")
    sec = app.panel("section")
    good = app.state.body
    V_before = np.array(sec.region.V)
    body.set_J(np.diag([1.0, 0.1, 0.1]), [0, 0, 0.3])  # J1 > J2 + J3: not realizable
    assert app.state.body is good
    # the message sits right under the "use this J, ρ" button
    assert body.J_msg.kind == "error" and "not physically realizable" in body.J_msg.text
    np.testing.assert_array_equal(np.array(sec.region.V), V_before)
    body.set_J(np.diag([0.3, 0.3, -0.1]), [0, 0, 0.3])  # not positive definite
    assert app.state.body is good and "positive definite" in body.J_msg.text
    # a valid custom J is then accepted
    body.set_J(np.diag([0.3, 0.25, 0.1]), [0.0, 0.05, 0.3])
    assert app.state.body is not good
    np.testing.assert_allclose(app.state.pendulum.J, np.diag([0.3, 0.25, 0.1]))
    assert body.J_msg.kind == "ok" and body.J_msg.text == "custom J, ρ in use"


def test_invalid_g_keeps_body_and_says_why_next_to_g(app):
    body = app.panel("body")
    sec = app.panel("section")
    good = app.state.body
    V_before = np.array(sec.region.V)
    for bad in (-3.0, 0.0):
        body.g.value = bad
        assert app.state.body is good
        assert body.g_msg.kind == "error" and "pe-message" in body.g_msg._dom_classes
        assert "g must be > 0" in body.g_msg.text and "g stays at 9.81 m/s²" in body.g_msg.text
        assert body.g.value == 9.81  # the box shows the g in use again
        np.testing.assert_array_equal(np.array(sec.region.V), V_before)
    # a preset chosen afterwards uses the valid g; its message replaces the error beside g
    body.preset.value = "paper_fig2"
    assert app.state.body.name == "paper_fig2" and app.state.pendulum.g == 9.81
    assert body.g_msg.kind == "ok" and body.g_msg.text == "Fig. 2 body (paper) in use"
    body.g.value = 3.71
    assert app.state.pendulum.g == 3.71 and app.state.body.name == "paper_fig2"


def test_body_summary_units_and_custom_J_starts_from_body(app):
    body = app.panel("body")
    so = app.state.pendulum.small_oscillations()
    # l_i = omega_i^2 / (m g) is not a length: its unit is 1/(kg m)
    np.testing.assert_allclose(so["l"], so["frequencies"] ** 2 / (app.state.pendulum.m * app.state.pendulum.g))
    assert "l₁, l₂ (Eq. 24) [1/(kg m)]" in body.summary.value and "l₁, l₂ [m]" not in body.summary.value
    assert "Fig. 1 elliptic cylinder (paper)" in body.summary.value
    assert _fig(body.preview)["layout"]["title"]["text"] == "Fig. 1 elliptic cylinder (paper)"
    body.preset.value = "lagrange_top"
    J = app.state.pendulum.J
    assert body.J["J11"].value == round(float(J[0, 0]), 6) and body.J["J33"].value == round(float(J[2, 2]), 6)
    assert [t.value for t in body.rho] == [round(float(x), 6) for x in app.state.pendulum.rho]
    body._on_apply_J()  # applying the unchanged boxes keeps the same J
    np.testing.assert_allclose(app.state.pendulum.J, J, atol=1e-6)


def test_export_round_trip(app):
    sec = app.panel("section")
    sec.paper_preset(2.03, n=150)
    phi, z = _accessible_point(sec)
    sec.launch_at(phi, z, n=None)
    launches = list(app.state.launches)
    assert len(launches) == 2
    text = sec.export_csv()
    rows = list(csv.DictReader(io.StringIO(text)))
    assert len(rows) == sum(len(L.crossings) for L in launches)
    assert {r["body"] for r in rows} == {"paper_fig2"}
    assert {int(r["trajectory"]) for r in rows} == {L.id for L in launches}
    r0 = [r for r in rows if int(r["trajectory"]) == launches[0].id]
    np.testing.assert_array_equal([float(r["Gamma3"]) for r in r0], launches[0].crossings[:, 2])
    assert float(rows[0]["E"]) == 2.03
    assert float(rows[0]["mu"]) == pytest.approx(sec.section.mu, abs=0)
    js = sec.export_json()
    d = json.loads(js)
    assert d["body"]["name"] == "paper_fig2" and d["E"] == 2.03 and len(d["launches"]) == 2

    # load into a fresh app: same body, level and crossings
    app2 = build_app(prewarm=False)
    s2 = app2.panel("section")
    s2.task.synchronous = True
    app2.panel("body")
    s2.load_session(js)
    assert app2.state.body.name == "paper_fig2"
    assert app2.state.pendulum == app.state.pendulum
    assert s2.section.energy == 2.03 and s2.section.mu == sec.section.mu
    assert len(app2.state.launches) == 2
    for a, b in zip(launches, app2.state.launches):
        assert len(b.crossings) == len(a.crossings)
        np.testing.assert_allclose(b.Gamma0, a.Gamma0, atol=0)
        # same seed, same level: the first crossings agree (later ones may differ: chaos + chunking)
        np.testing.assert_allclose(b.crossings[:20], a.crossings[:20], atol=1e-6)
    assert [len(t.x) for t in s2.crossing_traces()] == [len(L.crossings) for L in launches]
    # re-export gives the same CSV apart from trajectory ids
    rows2 = list(csv.DictReader(io.StringIO(s2.export_csv())))
    assert len(rows2) == len(rows)


def test_load_rejects_garbage(app):
    sec = app.panel("section")
    sec.files._on_load({"new": [{"name": "x.json", "content": b"{not json"}]})
    assert sec.msg.kind == "error" and "invalid JSON" in sec.msg.text


def test_paper_preset_sets_fig2_level(app):
    sec = app.panel("section")
    rev = sec.chart.revision
    sec.paper_preset(-2.65, n=100)
    assert sec.chart.revision == rev + 1  # the new body's chart is drawn once, at the preset's level
    assert app.state.body.name == "paper_fig2"
    assert app.panel("body").preset.value == "paper_fig2"
    ref, (G0, w0) = PoincareSection.from_paper_ic(presets.paper_fig2().pendulum, -2.65)
    assert sec.section.energy == -2.65 and sec.section.mu == pytest.approx(ref.mu, rel=1e-14)
    L = app.state.launches[-1]
    np.testing.assert_allclose(L.omega0, w0)
    assert len(L.crossings) == 100
    # E = -2.65 is a regular (quasi-periodic) motion: its crossings stay in a small part of the chart
    phi, z = chart_from_sphere(L.crossings)
    assert z.min() > 0.5


def test_fill_undo_clear(app):
    sec = app.panel("section")
    ls = sec.fill(4, n=100)
    assert len(ls) == 4 and len(sec.crossing_traces()) == 4
    assert all(len(t.x) == 100 for t in sec.crossing_traces())
    assert len({t.marker.color for t in sec.crossing_traces()}) == 4  # one colour per trajectory
    sec.undo()
    assert len(sec.crossing_traces()) == 3 and len(app.state.launches) == 3
    # the browser's copy of the chart lost the same trace and kept the others' crossings
    shown = _fig(sec.chart)["data"]
    assert [t.get("name") for t in shown] == [t.name for t in sec.chart.data]
    assert [len(t["x"]) for t in shown if t.get("name", "").startswith("#")] == [100, 100, 100]
    sec.clear()
    assert len(sec.crossing_traces()) == 0 and app.state.launches == []


def test_level_change_and_ranges(app):
    sec = app.panel("section")
    sec.mu.value = 0.0
    sec.E.value = 1.0
    assert sec.section.energy == 1.0 and sec.section.mu == 0.0
    assert sec.E_slider.min == pytest.approx(sec.region.energy_min)
    assert "admissible" in sec.ranges.value
    # the current (mu, E) is marked on the energy-momentum diagram
    data = _fig(sec.em_out)["data"]
    assert any(list(tr.get("x", [])) == [0.0] and list(tr.get("y", [])) == [1.0] for tr in data)
    # a successful change says where the section is now (no stale error from an earlier input)
    assert sec.msg.kind == "info" and "E = 1 J" in sec.msg.text


def _level_snapshot(sec):
    return (sec.section, sec.region, list(sec.state.launches), len(sec.crossing_traces()), sec.state.E,
            sec.state.mu)


def test_invalid_E_keeps_last_section(app):
    """E below min V_mu (typed or at the slider's end): the message under the controls names the admissible
    range, the section, its trajectories and the controls stay at the last valid level."""
    sec = app.panel("section")
    sec.mu.value = 0.0
    sec.E.value = 1.0
    sec.launch_at(*_accessible_point(sec), n=100)
    before = _level_snapshot(sec)
    lo = sec.region.energy_min
    sec.E.value = -100.0
    assert _level_snapshot(sec)[:2] == before[:2] and sec.state.launches == before[2]
    assert len(sec.crossing_traces()) == 1 and (sec.state.E, sec.state.mu) == (1.0, 0.0)
    assert sec.level_msg.kind == "error" and "pe-message" in sec.level_msg._dom_classes
    assert "E = -100 J gives no motion" in sec.level_msg.text
    assert f"above min V_μ = {lo:.5g} J" in sec.level_msg.text and "stays at E = 1 J" in sec.level_msg.text
    assert sec.E.value == 1.0 and sec.E_slider.value == 1.0  # the controls show the level in use
    # the next valid input works and clears the message
    sec.E.value = 2.0
    assert sec.section.energy == 2.0 and sec.level_msg.text == "" and sec.msg.kind == "info"
    # the slider's lower end is min V_mu; a slider position becomes a 5-digit level: here just above min V_mu
    # (-5.0021 > -5.00213...), a valid level with a small accessible region, shown as typed digits in the box
    assert lo < float(f"{lo:.5g}") and f"{lo:.5g}" == "-5.0021"
    sec.E_slider.value = sec.E_slider.min
    assert sec.section.energy == -5.0021 and sec.E.value == -5.0021 and not sec.region.empty
    assert sec.level_msg.text == ""


def test_invalid_mu_keeps_last_section(app):
    sec = app.panel("section")
    sec.mu.value = 0.0
    sec.E.value = 1.0
    before = _level_snapshot(sec)
    bound = sec.section.mu_bound(1.0)
    sec.mu.value = 1000.0
    assert _level_snapshot(sec) == before
    assert sec.mu.value == 0.0 and sec.mu_slider.value == 0.0
    txt = sec.level_msg.text
    assert sec.level_msg.kind == "error" and "μ = 1000 kg m²/s gives no motion at E = 1 J" in txt
    assert f"|μ| < {bound:.4g} kg m²/s" in txt and "stays at E = 1 J, μ = 0 kg m²/s" in txt
    # the bound is what the library says: no section just above it, one at a small mu
    assert PoincareSection(app.state.pendulum, 1.0, 1.01 * bound).accessible_region(61, 41).empty
    sec.mu_slider.value = 0.1
    assert sec.section.mu == 0.1 and sec.level_msg.text == ""


def test_energy_momentum_marker_stays_in_view(app):
    """A level above the diagram's default energy range (3 m g |rho|) or beyond its mu range stays marked: the
    axes grow to show the current (mu, E) (it was drawn off the chart)."""
    sec = app.panel("section")
    pend = app.state.pendulum
    mgr = pend.m * pend.g * np.linalg.norm(pend.rho)
    E = 6.0 * mgr
    sec.E.value = E
    sec.mu.value = 0.9 * sec.section.mu_bound(E)
    assert (sec.section.energy, sec.section.mu) == (E, 0.9 * sec.section.mu_bound(E))
    lay = _fig(sec.em_out)["layout"]
    cur = [t for t in _fig(sec.em_out)["data"] if t.get("name") == "current"][0]
    (mu0,), (E0,) = cur["x"], cur["y"]
    assert (mu0, E0) == (sec.section.mu, E)
    assert lay["yaxis"]["range"][0] < E0 < lay["yaxis"]["range"][1]
    assert lay["xaxis"]["range"][0] < mu0 < lay["xaxis"]["range"][1]
    assert lay["xaxis"]["title"]["text"].startswith("μ [kg m²/s]") and lay["yaxis"]["title"]["text"] == "E [J]"


def _contrast_on_white(hex_colour):
    """WCAG contrast ratio of a colour against white."""
    c = np.array([int(hex_colour[i:i + 2], 16) for i in (1, 3, 5)]) / 255.0
    lin = np.where(c <= 0.03928, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
    L = float(lin @ [0.2126, 0.7152, 0.0722])
    return 1.05 / (L + 0.05)


def test_trajectory_colours_visible_on_white(app):
    """Fill colours: the Okabe-Ito palette minus its yellow (contrast 1.3:1 against the white region)."""
    sec = app.panel("section")
    launches = sec.fill(9, n=100)
    colours = [L.colour for L in launches]
    assert len(set(colours)) == 7 and "#F0E442" not in colours
    assert min(_contrast_on_white(c) for c in colours) > 2.0
    assert _contrast_on_white("#F0E442") < 1.4


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


def test_launch_nearby_before_the_section_tab_was_opened():
    """The section panel is built on first use: "launch nearby" from a fresh page builds it, launches there and
    opens the Motion tab (the browser test found no launch: the section panel did not exist yet)."""
    d = _dash("")
    eqp = d.panel("equilibria")
    eqp.task.synchronous = True
    eqp.compute()
    assert "section" not in d.panels
    eqp.family.value = ("iso", 0)
    eqp.launch_nearby()
    assert "section" in d.panels and [L.source for L in d.state.launches] == ["nearby"]
    assert d.tabs.selected_index == 3 and d.panels["motion"].choice.value == d.state.launches[0].id


def test_equilibria_select_and_launch_nearby(app):
    eqp = app.panel("equilibria")
    eqp.family.value = ("iso", 0)
    p = eqp.selected()
    assert p.family == "hanging" and "hanging" in eqp.details.value
    assert "eigenvalues" in eqp.details.value
    E, mu = eqp.launch_nearby()
    sec = app.panel("section")
    assert sec.section.energy == pytest.approx(E) and sec.section.mu == pytest.approx(mu)
    L = app.state.launches[-1]
    assert L.source == "nearby"
    # issue 23 item 6: the Motion tab opens, playing it, with a tilt the body view shows (0.02 rad gave
    # ω ≈ 0.05 rad/s: the body looked frozen)
    mot = app.panels["motion"]
    assert app.tabs.selected_index == 3 and mot.choice.value == L.id and mot.trajectory is not None
    G = mot.trajectory.Gamma
    tilt = np.arccos(np.clip(G @ (p.Gamma / np.linalg.norm(p.Gamma)), -1, 1))
    assert eqp.eps.value == 0.1 and tilt.max() >= 0.099 and np.abs(mot.trajectory.omega).max() > 0.2, (
        tilt.max(), np.abs(mot.trajectory.omega).max())


def test_internal_error_becomes_message(app, caplog):
    sec = app.panel("section")

    def boom(*a, **k):
        raise RuntimeError("kaboom")

    sec.files.export_csv = boom
    sec.export_btn.click()
    assert sec.msg.kind == "error" and "Internal error" in sec.msg.text and "kaboom" not in sec.msg.text


def test_messages_widget_and_bundle():
    m = Messages()
    m.error("<b>x</b>")
    assert "&lt;b&gt;" in m.value and m.kind == "error"
    import plotly.graph_objects as go

    b = figure_bundle(go.Figure(go.Scatter(x=np.arange(3), y=np.arange(3.0))))
    assert _decode(b["data"]["application/vnd.plotly.v1+json"]["data"][0]["x"]) == [0, 1, 2]


def test_plotview_keeps_python_and_browser_copies_in_step():
    """PlotlyView: show / restyle / add_traces / delete_traces update the go.Figure and the synced figure dict alike,
    each incremental update is one custom message, and a click message reaches the handlers (a failing handler
    does not stop the others)."""
    import plotly.graph_objects as go

    from pendulum_explorer.app.plotview import CONFIG, PlotlyView

    v = PlotlyView()
    sent = []
    v.send = lambda content, buffers=None: sent.append(content)
    v.show(go.Figure([go.Scatter(x=[0.0, 1.0], y=[2.0, 3.0], name="a")], layout={"height": 200}))
    rev = v.revision
    assert v.figure["config"] == CONFIG and v.figure["layout"]["height"] == 200
    v.restyle(0, x=np.array([5.0, 6.0]), y=np.array([1.0, 2.0]))
    v.extend(0, x=np.array([7.0]), y=np.array([3.0]))  # only the new point travels
    assert _decode(sent[-1]["update"]) == {"x": [7.0], "y": [3.0]}
    v.add_traces([go.Scatter(x=[1.0], y=[1.0], name="b"), go.Scatter(x=[2.0], y=[2.0], name="c")])
    v.delete_traces([1])
    assert [m["op"] for m in sent] == ["restyle", "extend", "add_traces", "delete_traces"]
    assert v.revision == rev  # incremental updates do not resend the figure
    assert [t.name for t in v.data] == ["a", "c"]
    shown = _decode(v.figure)["data"]
    assert [t["name"] for t in shown] == ["a", "c"]
    assert shown[0]["x"] == [5.0, 6.0, 7.0] and list(v.data[0].x) == [5.0, 6.0, 7.0]
    assert shown[0]["y"] == [1.0, 2.0, 3.0] and list(v.data[0].y) == [1.0, 2.0, 3.0]

    got = []

    def bad(x, y, i):
        raise RuntimeError("handler failure")

    v.on_click(bad)
    v.on_click(lambda x, y, i: got.append((x, y, i)))
    assert v.clicks
    v._on_frontend_msg(v, {"event": "click", "x": 0.5, "y": -0.25, "curve": 0, "point": 3}, [])
    v._on_frontend_msg(v, {"event": "something else"}, [])
    assert got == [(0.5, -0.25, 0)]


# ------------------------------------------------------------------------------------------------ issue 11
def _dash(query, **kw):
    from pendulum_explorer.app import Dashboard

    d = Dashboard(prewarm=False, query=query, synchronous=True, **kw)
    for p in d.panels.values():
        if hasattr(p, "task"):
            p.task.synchronous = True
    return d


def test_link_opens_the_section_with_a_trajectory():
    """preset=paper_fig2&tab=section&E=2.03&launch=...: Fig. 2 (c)'s level (the paper's mu at E) and the seeds
    launched one after the other."""
    d = _dash("preset=paper_fig2&tab=section&E=2.03&launch=0.5,0.3;2.0,0.5")
    assert d.state.body.name == "paper_fig2" and d.tabs.selected_index == 2
    sec = d.panels["section"]
    ref, _ = PoincareSection.from_paper_ic(presets.paper_fig2().pendulum, 2.03)
    assert (sec.section.energy, sec.section.mu) == (2.03, pytest.approx(ref.mu, rel=1e-14))
    # the boxes show 6 digits (they showed 0.70397810506, clipped), the level keeps all of them
    assert sec.E.value == 2.03 and sec.mu.value == 0.703978 and sec.section.mu != 0.703978
    assert [L.source for L in d.state.launches] == ["click", "click"]
    np.testing.assert_allclose(d.state.launches[0].Gamma0, sphere_from_chart(0.5, 0.3), atol=1e-15)
    assert all(len(L.crossings) == 500 for L in d.state.launches) and len(sec.crossing_traces()) == 2
    assert d.msg.kind == "info" and "2 of 2 trajectories launched" in d.msg.text
    assert d.guide.layout.display == "none"  # a link is a chosen view: no first-steps box


@pytest.mark.parametrize("query, words", [
    ("preset=paper_fig2&E=__import__('os').system('x')", "E must be a plain decimal number"),
    ("tab=admin", "tab must be one of"),
    ("J=1,0,0,0,0.1,0,0,0,0.1&rho=0,0,0.3", "not physically realizable"),
    ("J=0.3,0,0,0,0.25,0,0,0,0.1&rho=0,0,1e-12", "|ρ| = 1e-12 m is outside the dashboard's range"),
])
def test_bad_link_gives_a_message_and_the_default_view(query, words):
    d = _dash(query)
    assert d.state.body.name == "paper_fig1" and d.tabs.selected_index == 0 and d.link.is_default
    assert d.msg.kind == "error" and words in d.msg.text and "Showing the start view" in d.msg.text
    assert "section" not in d.panels and d.state.launches == []


def test_link_with_inaccessible_seed_and_level_says_so():
    d = _dash("preset=paper_fig2&tab=section&E=2.03&launch=0.0,-0.5")
    assert d.state.launches == [] and "0 of 1 trajectories launched" in d.msg.text
    assert "the others" not in d.msg.text and "(this seed is not in the accessible region" in d.msg.text
    d = _dash("preset=paper_fig2&tab=section&E=2.03&launch=0.0,-0.5;0.5,0.3;1.0,-0.6")
    assert len(d.state.launches) == 1 and "(2 seeds are not in the accessible region" in d.msg.text
    d = _dash("preset=paper_fig2&E=-50")
    assert d.msg.kind == "error" and "This link's level cannot be shown" in d.msg.text
    assert d.panels["section"].section.energy == 0.0  # the start level


def test_build_app_reads_voila_query_string(monkeypatch):
    monkeypatch.setenv("QUERY_STRING", "preset=planar&tab=equilibria&presenter=1")
    d = build_app(prewarm=False)
    assert d.state.body.name == "planar" and d.tabs.selected_index == 1
    assert d.state.presenter and "pe-presenter" in d._dom_classes and d.presenter.value


def test_copy_link_round_trip():
    """The link of a view with a custom body, a level and trajectories opens the same view."""
    d = _dash("")
    body = d.panels["body"]
    body.set_J(np.diag([0.3, 0.25, 0.1]) + 0.01 * (np.ones((3, 3)) - np.eye(3)), [0.0, 0.05, 0.3], m=2.0)
    d.show("section")
    sec = d.panels["section"]
    for p in d.panels.values():
        if hasattr(p, "task"):
            p.task.synchronous = True
    sec.E.value = 1.0
    phi, z = _accessible_point(sec)
    sec.launch_at(phi, z, n=100)
    d.links.copy()
    q = d.link_text.value
    assert q.startswith("?") and "J=" in q and "m=2" in q and "tab=section" in q and "launch=" in q
    d2 = _dash(q)
    assert d2.link_problem is None
    np.testing.assert_allclose(d2.state.pendulum.J, d.state.pendulum.J, rtol=1e-9)
    np.testing.assert_allclose(d2.state.pendulum.rho, d.state.pendulum.rho, rtol=1e-9)
    assert d2.state.pendulum.m == 2.0 and d2.tabs.selected_index == 2
    s2 = d2.panels["section"].section
    assert (s2.energy, s2.mu) == (1.0, pytest.approx(sec.section.mu, rel=1e-9))
    np.testing.assert_allclose(d2.state.launches[0].Gamma0, d.state.launches[0].Gamma0, atol=2e-6)
    # the page answers with the full URL: it is shown and the message says whether the copy worked
    d.bridge._on_frontend_msg(d.bridge, {"event": "copied", "url": "http://h/voila/render/x.ipynb" + q, "ok": False}, [])
    assert d.link_text.value.startswith("http://h/") and "did not allow copying" in d.msg.text


def test_g_change_ignores_unapplied_J_edit():
    """An invalid J typed but not applied does not block a change of g (it used to rebuild from the boxes)."""
    d = _dash("")
    body = d.panels["body"]
    body.set_J(np.diag([0.3, 0.25, 0.1]), [0.0, 0.05, 0.3])
    J_in_use = np.array(d.state.pendulum.J)
    body.J["J11"].value = 5.0  # pending: J1 > J2 + J3, not applied
    body.g.value = 3.71
    assert d.state.pendulum.g == 3.71 and body.g_msg.kind == "ok"
    np.testing.assert_array_equal(d.state.pendulum.J, J_in_use)
    # the same for a custom shape with pending edits
    body.custom.selected_index = 0
    body._on_apply_shape()
    body.dims[0].value = -1.0
    body.g.value = 9.81
    assert d.state.pendulum.g == 9.81 and body.g_msg.kind == "ok"


def test_one_statement_of_the_body_in_use():
    d = _dash("")
    body = d.panels["body"]
    assert "Fig. 1 elliptic cylinder (paper)" in d.body_in_use.value and body.preset.value == "paper_fig1"
    body.preset.value = "planar"
    body._on_apply_shape()
    # the preset menu no longer names the rod while the custom shape is in use
    assert body.preset.value is None and "custom elliptic_cylinder" in d.body_in_use.value
    assert "Planar" not in d.body_in_use.value and "chosen by the Body tab" in d.body_in_use.value
    body.preset.value = "lagrange_top"
    assert "Symmetric (Lagrange) top" in d.body_in_use.value


def test_body_change_from_section_is_announced():
    d = _dash("")
    d.show("section")
    sec = d.panels["section"]
    sec.task.synchronous = True
    sec.paper_preset(2.03, n=60)
    text = "Fig. 2 body (paper) (chosen by the Poincaré section's paper Fig. 2 presets)"
    assert text in d.msg.text and d.msg.kind == "info"
    body = d.panels["body"]
    assert body.msg.kind == "info" and "Fig. 2 body (paper) in use (chosen by the Poincaré section" in body.msg.text
    assert "the Poincaré section's paper Fig. 2 presets" in d.body_in_use.value


@pytest.mark.parametrize("kind, words", [("box", "a dimension = 1e+09 m is outside"),
                                         ("rho", "|ρ| = 1e-12 m is outside"),
                                         ("mass", "the mass = 1e+06 kg is outside")])
def test_implausible_bodies_are_refused_with_a_message(kind, words):
    d = _dash("")
    body = d.panels["body"]
    good = d.state.body
    if kind == "box":
        body.shape_kind.value = "box"
        for t in body.dims:
            t.value = 1e9
        body._on_apply_shape()
        msg = body.shape_msg
    elif kind == "mass":
        body.mass.value = 1e6
        body._on_apply_shape()
        msg = body.shape_msg
    else:
        body.set_J(np.diag([0.3, 0.25, 0.1]), [0.0, 0.0, 1e-12])
        msg = body.J_msg
    assert d.state.body is good and msg.kind == "error" and words in msg.text


def test_reset_returns_to_the_start_view():
    d = _dash("preset=paper_fig2&tab=section&E=2.03&launch=0.5,0.3&presenter=1")
    assert d.state.presenter and d.state.launches
    d._on_reset()
    assert d.reset_row.layout.display == "flex" and "clears 1 trajectory" in d.reset_question.value
    assert d.state.body.name == "paper_fig2"  # nothing happens before the confirmation
    d._on_reset_yes()
    assert d.state.body.name == "paper_fig1" and d.state.launches == [] and d.tabs.selected_index == 0
    assert not d.state.presenter and "pe-presenter" not in d._dom_classes and d.guide.layout.display == "flex"
    assert d.panels["body"].preset.value == "paper_fig1" and d.panels["body"].g.value == 9.81
    assert d.panels["section"].section.energy == 0.0


def test_presenter_view_enlarges_figures():
    d = _dash("preset=paper_fig2&E=2.03&launch=0.5,0.3")
    body, sec = d.panels["body"], d.panels["section"]
    eqp = d.panel("equilibria")
    eqp.task.wait()
    views = (body.preview, sec.chart, sec.em_out, eqp.sphere_out, eqp.em_out)
    h = [_fig(v)["layout"]["height"] for v in views]
    d.presenter.value = True
    assert "pe-presenter" in d._dom_classes
    assert all(_fig(v)["layout"]["height"] >= 1.5 * h0 for v, h0 in zip(views, h))
    assert all(_fig(v)["layout"]["font"]["size"] == 18 for v in views)  # larger axis and legend text
    # the families' labels drawn on the figures as large as the axis text (they stayed at 13-14 px)
    labels = lambda: [a["font"]["size"] for v in (sec.em_out, eqp.em_out) for a in _fig(v)["layout"]["annotations"]] + \
        [a["font"]["size"] for a in _fig(eqp.sphere_out)["layout"]["scene"]["annotations"]]  # noqa: E731
    assert len(labels()) >= 10 and min(labels()) == 18
    # larger crossings, kept while the chart is redrawn
    tr = [t for t in _fig(sec.chart)["data"] if t.get("name") == f"#{d.state.launches[0].id}"][0]
    assert tr["marker"]["size"] == 5 and len(tr["x"]) == 500
    d.presenter.value = False
    assert [_fig(v)["layout"]["height"] for v in views] == h
    assert all("size" not in _fig(v)["layout"].get("font", {}) for v in views)
    assert set(labels()) == {13, 14}


def test_equilibria_in_words_and_nearby_on_stable_L2_is_interpretable():
    """The menu names points and families in words, the 'along' slider says where on the family it is (alpha),
    and 'launch nearby' on a stable L2 point shows the chart around the point (its crossings in view, not one
    dot on a grey page) and says what happened."""
    d = _dash("")
    d.show("equilibria")
    eqp = d.panels["equilibria"]
    eqp.task.synchronous = True
    eqp.compute()
    labels = [o[0] for o in eqp.family.options]
    assert labels[:3] == ["hanging at rest (straight down)", "inverted at rest (balanced upside down)",
                          "Eq. 38 spin (where L1 passes through α = ±∞)"]
    # short enough for the menu at 1024 px (L1's 117 characters were cut); the start is said under the slider
    assert "L2: steady spins, α 0 … 2.23" in labels and "L1: steady spins, α < 0 and α > 13.2" in labels
    assert max(len(t) for t in labels) <= 60, labels
    assert not any("isolated" in t or "spin +" in t for t in labels)
    eqp.family.value = dict(eqp.family.options)[labels[0]]
    assert "stable: a small push only makes it wobble (elliptic-elliptic)" in eqp.details.value
    eqp.family.value = [v for t, v in eqp.family.options if t.startswith("L2")][0]
    p = eqp.selected()
    assert p.family == "L2" and p.stability == "elliptic-elliptic"
    assert "the family runs α 0 … 2.23; one end is the body hanging at rest, α = 0;" in eqp.along_info.value
    assert f"point {eqp.index.value + 1} of 218 along L2: α = {p.alpha:.4g}" in eqp.along_info.value
    d.panels.get("section") or d.panel("section")
    d.panels["section"].task.synchronous = True
    E, mu = eqp.launch_nearby()
    sec = d.panels["section"]
    assert sec.region.area_fraction < 0.05 and d.tabs.selected_index == 3  # the Motion tab plays it
    L = d.state.launches[-1]
    assert L.source == "nearby" and len(L.crossings) == 500
    lay = _fig(sec.chart)["layout"]
    (x0, x1), (z1, z0) = lay["xaxis"]["range"], lay["yaxis"]["range"]
    # zoomed onto the point (the whole chart is 2 pi x 2; the window is ~4 tilts wide: 0.91 x 0.71 at 0.1 rad)
    assert x1 - x0 < 1.2 and z1 - z0 < 0.9
    phi, z = chart_from_sphere(L.crossings)
    assert np.all((x0 < phi) & (phi < x1) & (z0 < z) & (z < z1))  # every crossing in view
    # the window is shaded on a grid of its own: every crossing lies on a white (accessible) cell of it
    heat = [t for t in _fig(sec.chart)["data"] if t["type"] == "heatmap"][0]
    hx, hy, hz = np.array(heat["x"]), np.array(heat["y"]), np.array(heat["z"])
    assert hx.min() >= x0 - 1e-12 and hx.max() <= x1 + 1e-12 and len(hx) == 121
    ix = np.abs(hx[None, :] - phi[:, None]).argmin(1)
    iz = np.abs(hy[None, :] - z[:, None]).argmin(1)
    assert hz[iz, ix].mean() < 0.05
    assert eqp.msg.kind == "ok" and "It is stable, so the motion stays close to it" in eqp.msg.text
    assert "reset axes" in eqp.msg.text
def test_motion_offers_the_taylor_method(app):
    mot = app.panel("motion")
    assert ("Taylor (machine precision)", "taylor") in mot.method.options
    mot.method.value = "taylor"
    mot._on_run()
    tr = mot.trajectory
    assert tr.method == "taylor" and mot.msg.kind == "ok"
    assert tr.energy_error < 1e-12 * max(1.0, abs(float(tr.energy[0])))


def test_section_chaos_map_layer(app):
    """The chaos-map layer: coarse then refined maps drawn under the crossings with a colour bar that says what
    MEGNO means; a new level sets the map aside with the trajectories (undo brings it back); a map cancelled
    before its first resolution is done draws nothing."""
    sec = app.panel("section")
    sec.paper_preset(11.95, n=100)  # the Fig. 2 body at the level of Fig. 2 (e)
    assert sec.section.pendulum == presets.paper_fig2().pendulum
    sec.chaos_map(levels=((6, 4), (10, 8)), t_total=20.0)
    hm = [tr for tr in sec.chart.data if tr.type == "heatmap"]
    assert len(hm) == 2 and sec.chart.data[1].type == "heatmap"  # shading, then the map, then crossings
    z = np.asarray(_decode(hm[1].z), dtype=float) if isinstance(hm[1].z, dict) else np.asarray(hm[1].z, float)
    assert z.shape == (8, 10) and np.nanmax(z) > 0 and np.isnan(z).any() == (~sec.chaos.accessible).any()
    assert "regular" in hm[1].colorbar.title.text and "chaotic" in hm[1].colorbar.title.text
    assert sec.msg.kind == "ok" and "chaotic" in sec.msg.text and sec.chaos.values.shape == (8, 10)
    # the hover over the map gives its cell's mean MEGNO and what it means; the map takes no hover or click
    # (before: the click reported the shading cell and the hover had no Ybar), so a click over the map launches
    # at the point clicked, off the centre of the coarse map cell
    assert hm[1].hoverinfo == "skip" and "≈2 regular, ≫2 chaotic" in hm[0].hovertemplate
    reg, cm = sec.region, sec.chaos
    text = np.asarray(hm[0].text)
    PH, Z = np.meshgrid(reg.phi, reg.z)
    Y = cm.values_at(PH, Z)
    off = np.abs(PH - cm.phi[cm.cells(PH, Z)[1]]) > 0.1  # away from the centre of the map cell
    jz, ip = np.argwhere(reg.accessible & np.isfinite(Y) & off)[len(reg.z) // 2]
    phi, z = float(reg.phi[ip]), float(reg.z[jz])
    assert text[jz, ip].startswith(f"Ȳ = {cm.value_at(phi, z):.3g}, ")
    n0 = len(sec.state.launches)
    sec._on_chart_click(phi, z, 0)
    assert len(sec.state.launches) == n0 + 1
    np.testing.assert_allclose(chart_from_sphere(sec.state.launches[-1].Gamma0), (phi, z), atol=1e-12)
    n_traces = len(sec.crossing_traces())  # the preset's trajectory and the click's
    sec.launch_at(np.pi / 2, 0.961, n=100)  # a launch draws on top of the map, which stays
    assert sec.chart.data[1].type == "heatmap" and len(sec.crossing_traces()) == n_traces + 1
    # the finished trajectory's hover gives its mean MEGNO: near the island centre, regular (< 2 + slack)
    Y, T = sec.state.launches[-1].megno
    assert T == 100.0 and 0.0 <= Y < 2.5
    assert f"Ȳ = {Y:.3g}" in sec.crossing_traces()[-1].hovertemplate
    # a new level sets the map aside with the trajectories; undo brings both back
    cm = sec.chaos
    sec.set_level(sec.section.energy + 0.5, sec.section.mu)
    assert sec.chaos is None and [tr.type for tr in sec.chart.data].count("heatmap") == 1
    assert "chaos map" in sec.saved.options[1][0]
    sec.undo()
    assert sec.chaos is cm and [tr.type for tr in sec.chart.data].count("heatmap") == 2
    assert len(sec.crossing_traces()) == n_traces + 1
    sec.clear()  # clear sets the map aside as well
    assert sec.chaos is None and [tr.type for tr in sec.chart.data].count("heatmap") == 1
    # cancel (here at the first progress report): the map stops after its first chunk and nothing is drawn
    progress = sec.task.progress
    sec.task.progress = lambda f, text=None: (progress(f, text), sec.task.cancel())
    sec.chaos_map(levels=((40, 30),), t_total=200.0)
    assert sec.chaos is None and [tr.type for tr in sec.chart.data].count("heatmap") == 1
    assert sec.task.label.value == "cancelled" and sec.task.last_error is None
    assert "chaos map cancelled: nothing drawn" in sec.msg.text


def test_section_find_periodic_orbit_mode(app):
    """'find periodic orbit' then a click 0.14 from the Fig. 2 (e) island centre: the elliptic fixed point is marked
    (circle, hover with period and multipliers) and launched (offered in the Motion tab); a click in the chaotic sea
    says Newton did not converge; a new level sets the marks aside with the trajectories."""
    sec = app.panel("section")
    sec.paper_preset(11.95, n=100)  # the Fig. 2 body at the level of Fig. 2 (e)
    sec.po_mode.value = True
    sec.po_k.value = 1
    n0 = len(sec.state.launches)
    sec._on_chart_click(np.pi / 2 + 0.1, 0.961 - 0.1)
    assert len(sec.orbits) == 1 and sec.orbits[0].kind == "elliptic"
    assert abs(sec.orbits[0].phi - np.pi / 2) < 1e-3 and abs(sec.orbits[0].z - 0.961) < 1e-3
    tr = [t for t in sec.chart.data if t.name == "periodic orbits"]
    assert len(tr) == 1 and list(tr[0].marker.symbol) == ["circle"] and "period 0.6716" in tr[0].text[0]
    assert sec.msg.kind == "ok" and "elliptic periodic orbit" in sec.msg.text and "multipliers" in sec.msg.text
    assert len(sec.state.launches) == n0 + 1 and sec.state.launches[-1].source == "periodic orbit"
    assert len(sec.state.launches[-1].crossings) >= 100
    assert sec.state.selected is sec.state.launches[-1]  # what the Motion tab offers
    sec._on_chart_click(0.0, -0.95)  # in the chaotic sea: Newton does not converge, the message says so
    assert len(sec.orbits) == 1 and sec.msg.kind == "error" and "did not converge" in sec.msg.text
    assert "last residual" in sec.msg.text
    sec.po_mode.value = False
    sec.set_level(12.5, sec.section.mu)
    assert sec.orbits == [] and not [t for t in sec.chart.data if t.name == "periodic orbits"]
    assert "1 periodic orbit" in sec.saved.options[1][0]


def test_dropping_the_oldest_saved_level_is_announced(app, monkeypatch):
    """More levels set aside than the history keeps: the oldest is dropped and the panel's message says so,
    naming it (before, it was counted in History.dropped but not announced)."""
    from pendulum_explorer.app import history
    monkeypatch.setattr(history, "LIMIT", 2)  # as with 20, without 21 levels of work
    sec = app.panel("section")
    sec.mu.value = 0.0
    for E in (1.0, 1.5, 2.0):
        sec.E.value = E
        sec.fill(2, n=100)
    assert "dropped" not in sec.msg.text
    sec.E.value = 2.5  # sets E = 2 aside: three saved levels, the one at E = 1 J is dropped
    assert [s.E for s in sec.history.saved] == [1.5, 2.0] and sec.history.dropped == 1
    msg = sec.msg.text
    assert "2 trajectories at E = 2 J set aside" in msg
    assert "the oldest one, E = 1 J" in msg and "2 trajectories" in msg and "dropped" in msg
    assert "(2 kept)" in msg and "cannot be brought back" in msg
    sec.clear()  # nothing shown, nothing set aside: no note
    assert "dropped" not in sec.msg.text


def test_equilibria_of_a_non_generic_body_in_words():
    """Issue 11 item 5 for the Fig. 2 body (and the planar rod and the Lagrange top: rho on a principal axis): the
    family checkboxes, the menu, the 'along' caption, the details and the message said "axis-hanging",
    "eq41-p1"; now words, with the paper's equation as a reference."""
    d = _dash("preset=paper_fig2&tab=equilibria")
    eqp = d.panel("equilibria")
    eqp.task.synchronous = True
    eqp.compute()
    boxes = [cb.description for cb in eqp._fam_boxes.values()]
    assert sorted(boxes) == ["hanging spin", "inverted spin", "ring 1", "ring 3"]
    # the longer names wrap to a second row instead of squeezing the row's label ("fami" at 1024 x 768, presenter)
    assert eqp.families.layout.flex_flow == "row wrap" and eqp.families.children[0].layout.flex == "0 0 auto"
    menu = [t for t, _ in eqp.family.options]
    assert "ring 1: a ring of steady spins, all at α = 3.57 (paper Eq. 41)" in menu
    assert "hanging spin: spins about the pivot–centre-of-mass line, hanging" in menu
    eqp.family.value = [v for t, v in eqp.family.options if t.startswith("ring 1")][0]
    shown = " ".join([eqp.msg.text, eqp.along_info.value, eqp.details.value] + menu)
    assert "eq41" not in shown and "axis-" not in shown and "ring 1" in eqp.along_info.value
    assert "ring 1" in eqp.details.value


def test_g_change_keeps_the_unapplied_J_edit():
    """Issue 11 item 6 (no hidden coupling between pending edits): a J, rho typed but not applied stayed in the
    boxes only until g changed: the new g refilled them from the body in use and the typed values were gone.  A g
    change leaves them; 'use this J, ρ' then applies them with the new g; reset restores the start values."""
    d = _dash("")
    body = d.panels["body"]
    body.J["J11"].value = 0.46  # typed, not applied
    body.rho[0].value = 0.02
    body.g.value = 3.71
    assert d.state.pendulum.g == 3.71 and body.J["J11"].value == 0.46 and body.rho[0].value == 0.02
    body._on_apply_J()
    assert body.J_msg.kind == "ok", body.J_msg.text
    assert d.state.pendulum.J[0, 0] == 0.46 and d.state.pendulum.rho[0] == 0.02 and d.state.pendulum.g == 3.71
    body.J["J11"].value = 0.45  # typed again; reset brings the start values back
    d.reset()
    J0 = presets.paper_fig1().pendulum
    assert body.J["J11"].value == round(float(J0.J[0, 0]), 6) and body.rho[0].value == round(float(J0.rho[0]), 6)
    body.preset.value = "planar"  # another body: the boxes start from it
    assert body.J["J11"].value == round(float(presets.planar().pendulum.J[0, 0]), 6)


@pytest.mark.parametrize("preset, point, crossings, pct", [("planar", "hanging at rest", 0, "only <1% of"),
                                                           ("paper_fig2", "inverted at rest", 0, "(>99%,"),
                                                           ("paper_fig1", "inverted at rest", 500, "(>99%,"),
                                                           ("paper_fig1", "hanging at rest", 500, "only <1% of")])
def test_launch_nearby_explains_an_empty_section(preset, point, crossings, pct):
    """Issue 11 item 5: "launch nearby" on the rest points of the bodies with rho on a principal axis gives a swing
    in a vertical plane through the pole: no point on the section.  The message said "every return lands near the
    equilibrium, tracing a small loop" (or "its returns spread over ... (1e+02%)"); now it says that the section
    shows no point and why, and the percentages read as percentages."""
    d = _dash(f"preset={preset}")
    d.show("equilibria")
    eqp = d.panel("equilibria")
    eqp.task.synchronous = True
    eqp.compute()
    d.panel("section").task.synchronous = True
    eqp.family.value = [v for t, v in eqp.family.options if t.startswith(point)][0]
    eqp.launch_nearby()
    L = d.state.launches[-1]
    assert L.source == "nearby" and len(L.crossings) == crossings
    text = eqp.msg.text
    assert "e+0" not in text
    sec_text = d.panels["section"].msg.text
    if crossings == 0:
        assert "The Poincaré section shows no point of this motion" in text and "Motion tab" in text
        assert "every return" not in text and "returns spread" not in text and eqp.msg.kind == "info"
        # the section tab says why too (it said "trajectory #1: 0 crossings ...; open the Motion tab to watch it")
        assert f"trajectory #{L.id} (E = " in sec_text and "no crossing — the motion did not come back" in sec_text
        assert "s, so the computation stopped" in sec_text and "a planar swing" in sec_text
        assert "0 crossings" not in sec_text and "e+0" not in sec_text and d.panels["section"].msg.kind == "info"
    else:
        assert "shows no point" not in text and eqp.msg.kind == "ok" and pct in text
        assert f"trajectory #{L.id}: 500 crossings" in sec_text
    # a later click on the section does not bring the note back
    eqp.msg.clear()
    sec = d.panels["section"]
    sec.launch_seed(L.crossings[0] if len(L.crossings) else (L.Gamma0, L.omega0), source="nearby")
    assert eqp.msg.text == ""


def test_launch_nearby_whose_returns_lie_at_the_poles_says_why():
    """Fig. 1 body, L1 near the Eq. 38 spin (E = 7.398 J, focus-focus): the motion turns over between nearly upside
    down and nearly hanging, so its returns lie along the chart's top and bottom edges.  The message said they
    "spread over the reachable part of the sphere (100%, white in the section)" while the white region stayed
    blank."""
    d = _dash("")
    d.show("equilibria")
    eqp = d.panel("equilibria")
    eqp.task.synchronous = True
    eqp.compute()
    d.panel("section").task.synchronous = True
    fam = [v for t, v in eqp.family.options if t.startswith("L1")][0]
    eqp.family.value = fam
    eqp.index.value = int(np.argmin(np.abs(eqp.eq.families[fam[1]].energy - 7.398)))
    assert eqp.selected().stability == "focus-focus"
    eqp.launch_nearby()
    L = d.state.launches[-1]
    z = np.abs(L.chart[:, 1])
    assert len(z) == 500 and np.mean(z > 0.9) >= 0.8  # the motion's returns, as the page draws them
    text = eqp.msg.text
    assert "Its 500 returns lie along the top and bottom edges of the chart" in text and "of Γ₃ = ±1" in text
    assert "spread over" not in text and eqp.msg.kind == "info"
    # a stable point's loop and an unstable point whose returns do spread say nothing of the kind
    from pendulum_explorer.app import equilibria_text as eqsay

    assert eqsay.nearby_at_poles(np.c_[np.linspace(-3, 3, 50), np.linspace(-0.8, 0.8, 50)]) == ""
    assert eqsay.nearby_at_poles(np.zeros((0, 2))) == ""


def test_exported_session_keeps_the_chaos_map_and_periodic_orbits(app):
    """The session file holds the level's chaos map and periodic orbits; loading it in a fresh dashboard draws
    them again (before: only the seeds were exported)."""
    sec = app.panel("section")
    sec.paper_preset(11.95, n=100)
    sec.chaos_map(levels=((6, 4),), t_total=10.0)
    sec.find_orbit(np.pi / 2 + 0.1, 0.961 - 0.1, k=1)
    assert sec.chaos is not None and len(sec.orbits) == 1
    js = sec.export_json()
    app2 = build_app(prewarm=False)
    s2 = app2.panel("section")
    s2.task.synchronous = True
    s2.load_session(js, wait=True)
    np.testing.assert_array_equal(s2.chaos.values, sec.chaos.values)
    assert len(s2.orbits) == 1 and s2.orbits[0].kind == "elliptic" and s2.orbits[0].period == sec.orbits[0].period
    assert [tr.type for tr in s2.chart.data].count("heatmap") == 2
    assert [t for t in s2.chart.data if t.name == "periodic orbits"]
    assert len(app2.state.launches) == len(app.state.launches)


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


def build_query_of(d):
    from pendulum_explorer.app.links import build_query

    return build_query(d.current_link())


def test_first_view_loads_no_compiled_kernel_and_no_scipy():
    """The dashboard's first view (the body panel) dispatches no numba function: the first dispatch in a process
    loads numba's numpy registries, which import scipy.linalg (+47 MB of kernel memory and ~0.35 s of CPU before
    the page is interactive; the body preview's one rotation about e3 did it through geometry.rotation_about)."""
    lines = _fresh_process_lines(
        "import sys\nfrom pendulum_explorer.app import build_app\nbuild_app(prewarm=False)\n"
        "print(sorted(m for m in ('pendulum_explorer.poincare', 'pendulum_explorer.equilibria',\n"
        "                         'pendulum_explorer.chaos') if m in sys.modules))\n"
        "print(sorted(m for m in ('scipy.linalg', 'numba.np.linalg') if m in sys.modules))")
    assert lines[-1] == "[]", lines
    # nor the modules of the other tabs (section, equilibria, chaos: ~50 ms of the kernel's CPU before the first
    # view; the panels' warm-up imports them once the page has drawn it)
    assert lines[-2] == "[]", lines


def _fresh_process_lines(code):
    """The lines ``code`` prints in a fresh Python process (what a new kernel imports is the point)."""
    import subprocess
    import sys
    from pathlib import Path

    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300,
                         cwd=str(Path(__file__).resolve().parents[1]))
    assert out.returncode == 0, out.stderr[-2000:]
    return out.stdout.strip().splitlines()


def test_prewarm_readies_the_section_tab():
    """After the panels' warm-up, building the section panel (its tab opening) imports no plotly class: the
    warm-up builds the section chart and the energy-momentum diagram at the start level (the first figure of a
    kind imports plotly's classes for it: 19 modules and 0.15 s of the build before, 0.065 s after).  And the
    objects made until then are frozen out of the garbage collector's full passes (a full pass over the
    ~170 000 objects of a warmed kernel took 80-150 ms, at random inside a tab's opening: the section panel's
    build had one of 82 ms)."""
    lines = _fresh_process_lines(
        "import gc, sys\nfrom pendulum_explorer.app import build_app\nd = build_app(prewarm=False)\nd._prewarm()\n"
        "print(gc.get_freeze_count(), len(gc.get_objects()))\n"
        "before = set(sys.modules)\nd.panel('section')\n"
        "print(sorted(m for m in set(sys.modules) - before if m.startswith('plotly')))\n"
        "print(d.panels['section'].section.energy, d.state.E)")
    assert lines[-2] == "[]", f"plotly modules imported when the section tab opened: {lines[-2]}"
    E, E_state = map(float, lines[-1].split())
    assert E == E_state  # the panel shows the start level, as the warm-up's figure did
    frozen, tracked = map(int, lines[-3].split())
    assert frozen > 100_000 and tracked < frozen / 20, (frozen, tracked)


def test_the_package_offers_its_lazy_names():
    """``pendulum_explorer.PoincareSection`` and the other names of the modules imported on first use are the
    modules' own objects, listed by dir() and importable with ``from pendulum_explorer import ...``."""
    import pendulum_explorer as pe
    from pendulum_explorer import PoincareSection as PS
    from pendulum_explorer import chaos, equilibria, poincare

    assert PS is pe.PoincareSection is poincare.PoincareSection and pe.poincare is poincare
    assert pe.find_equilibria is equilibria.equilibria and pe.equilibria is equilibria and pe.megno is chaos.megno
    assert set(pe.__all__) <= set(dir(pe)) and all(getattr(pe, n) is not None for n in pe.__all__)
    with pytest.raises(AttributeError, match="no_such_name"):
        pe.no_such_name  # noqa: B018


def test_section_chart_streams_only_new_points():
    """SectionChart.update sends a growing launch's new crossings only (``extend``: before, the whole trace was
    resent every second, 60 trajectories x 5000 crossings in a fill); crossings that are not a continuation of
    those shown (a restarted launch) are resent whole."""
    from types import SimpleNamespace

    import plotly.graph_objects as go

    from pendulum_explorer.app.plotview import PlotlyView
    from pendulum_explorer.app.section_chart import SectionChart

    v = PlotlyView()
    sent = []
    v.send = lambda content, buffers=None: sent.append(content)
    v.show(go.Figure([go.Scattergl(x=[], y=[], name="#1")]))
    chart = SectionChart(v, None)
    chart.section = sec = object()
    rng = np.random.default_rng(1)
    L = SimpleNamespace(trace_name="#1", chart=rng.uniform(-1, 1, (5, 2)))
    chart.update(L, sec)
    L.chart = np.concatenate([L.chart, rng.uniform(-1, 1, (3, 2))])
    chart.update(L, sec)
    chart.update(L, sec)  # nothing new: nothing sent
    assert [m["op"] for m in sent] == ["extend", "extend"]
    assert len(_decode(sent[1]["update"])["x"]) == 3
    assert list(v.data[0].x) == list(np.round(L.chart[:, 0], 5)) == _decode(v.figure)["data"][0]["x"]
    L.chart = rng.uniform(-1, 1, (4, 2))  # restarted
    chart.update(L, sec)
    assert sent[-1]["op"] == "restyle" and list(v.data[0].y) == list(np.round(L.chart[:, 1], 5))


def test_section_chart_compiles_webgl_before_the_first_click(app):
    """The chart's first draw holds a WebGL scatter trace (one transparent point outside the fixed axes), so the
    browser compiles the marker shaders when the tab opens and not when the first click's crossings arrive (that
    draw took 0.4-0.7 s of the first click's 0.7-1.7 s in software-rendered Chromium)."""
    sec = app.panel("section")
    warm = [t for t in sec.chart.data if t.type == "scattergl" and not (t.name or "").startswith("#")]
    assert len(warm) == 1 and warm[0].hoverinfo == "skip" and warm[0].marker.color == "rgba(0,0,0,0)"
    lo, hi = sorted(sec.chart.fig.layout.xaxis.range)
    assert not any(lo <= x <= hi for x in warm[0].x)
    assert sec.crossing_traces() == [t for t in sec.chart.data if (t.name or "").startswith("#")]


def test_prewarm_waits_for_the_page_to_draw_the_first_view(monkeypatch):
    """The background warm-up of the other panels (imports, the body's equilibria: ~0.5 s of CPU and +47 MB)
    starts PREWARM_DELAY after the page reports the body preview's first draw, once, and not on a timer from the
    first view being sent: that timer (6 s) could end while a slow page was still drawing the first view, and the
    kernel memory read right after the first view then held the warm-up (256 MB instead of ~213 MB)."""
    import threading

    import pendulum_explorer.app as app_mod

    monkeypatch.setattr(app_mod, "PREWARM_DELAY", 0.0)
    monkeypatch.setattr(app_mod, "PREWARM_FALLBACK", 3600.0)
    ran = []
    done = threading.Event()
    monkeypatch.setattr(app_mod.Dashboard, "_prewarm", lambda self: (ran.append(self), done.set()))
    timers = []
    start = app_mod.Dashboard._start_prewarm
    monkeypatch.setattr(app_mod.Dashboard, "_start_prewarm", lambda self, delay: (timers.append(delay),
                                                                                 start(self, delay)))
    d = build_app(prewarm=True)
    preview = d.panels["body"].preview
    assert timers == [3600.0] and not preview.drawn
    assert not done.wait(0.2) and ran == []  # nothing ran it before the page drew
    preview._on_frontend_msg(preview, {"event": "drawn"}, [])
    assert done.wait(30) and ran == [d] and preview.drawn and timers == [3600.0, 0.0]
    preview._on_frontend_msg(preview, {"event": "drawn"}, [])  # a later draw report starts nothing
    assert timers == [3600.0, 0.0]


def test_prewarm_runs_once():
    """Of the two timers (after the first draw, and the fallback) only the first to end runs the warm-up."""
    d = build_app(prewarm=False)
    calls = []
    d.state.equilibria = lambda: calls.append(1)
    d._prewarm()
    d._prewarm()
    assert calls == [1]


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
