"""The Poincaré section tab: clicks, fills, levels, files, chaos maps and periodic orbits, the chart's stream."""
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
    bound = sec.section.level.mu_max(1.0)
    sec.mu.value = 1000.0
    assert _level_snapshot(sec) == before
    assert sec.mu.value == 0.0 and sec.mu_slider.value == 0.0
    txt = sec.level_msg.text
    assert sec.level_msg.kind == "error" and "μ = 1000 kg m²/s gives no motion at E = 1 J" in txt
    assert f"|μ| < {bound:.4g} kg m²/s" in txt and "stays at E = 1 J, μ = 0 kg m²/s" in txt
    # the bound is exact: no section just above it, one just below (mu_bound, quoted before, is 1.25 x it)
    assert PoincareSection(app.state.pendulum, 1.0, 1.001 * bound).accessible_region(121, 81).empty
    assert not PoincareSection(app.state.pendulum, 1.0, 0.999 * bound).accessible_region(121, 81).empty
    assert sec.section.mu_bound(1.0) > 1.2 * bound
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


def test_trajectory_colours_visible_on_white(app):
    """Fill colours: the Okabe-Ito palette minus its yellow (contrast 1.3:1 against the white region)."""
    sec = app.panel("section")
    launches = sec.fill(9, n=100)
    colours = [L.colour for L in launches]
    assert len(set(colours)) == 7 and "#F0E442" not in colours
    assert min(_contrast_on_white(c) for c in colours) > 2.0
    assert _contrast_on_white("#F0E442") < 1.4


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
    # drawn on the shading's grid (the map's coarse cells spilled over the grey): its accessible nodes coloured
    assert z.shape == sec.region.V.shape and np.nanmax(z) > 0 and np.isnan(z[~sec.region.accessible]).all()
    assert "regular" in hm[1].colorbar.title.text and "chaotic" in hm[1].colorbar.title.text
    assert sec.msg.kind == "ok" and "chaotic" in sec.msg.text and sec.chaos.values.shape == (8, 10)
    # the map's cells run on the Taylor tangent lanes (before: DOP853 at rtol 1e-9, 1.9x the CPU)
    taylor = sec.section.chaos_map((10, 8), 20.0, method="taylor").values
    dop = sec.section.chaos_map((10, 8), 20.0).values
    np.testing.assert_allclose(sec.chaos.values, taylor, rtol=1e-12)
    assert not np.allclose(sec.chaos.values, dop, rtol=1e-9, equal_nan=True)
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
