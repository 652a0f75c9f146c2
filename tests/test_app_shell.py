"""The dashboard's shell: links, copy link, reset, the presenter view, messages, the first view and the warm-up."""
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
    assert [L.source for L in d.state.launches] == ["link", "link"]  # launched from the link (they read "click")
    np.testing.assert_allclose(d.state.launches[0].Gamma0, sphere_from_chart(0.5, 0.3), atol=1e-15)
    assert all(len(L.crossings) == 500 for L in d.state.launches) and len(sec.crossing_traces()) == 2
    assert d.msg.kind == "info" and "2 of 2 trajectories launched" in d.msg.text
    assert d.guide.layout.display == "none"  # a link is a chosen view: no first-steps box


@pytest.mark.parametrize("query, words", [
    ("preset=paper_fig2&E=__import__('os').system('x')", "E must be a plain decimal number"),
    ("tab=admin", "tab must be one of"),
    ("J=1,0,0,0,0.1,0,0,0,0.1&rho=0,0,0.3", "not physically realizable"),
    ("J=0.3,0,0,0,0.25,0,0,0,0.1&rho=0,0,1e-12", "|ρ| = 1e-12 m is outside the dashboard's range"),
    ("J=1,0,0,0,1,0,0,0,1&rho=0,0,1&m=10", "no rigid body of mass 10 kg"),
])
def test_bad_link_gives_a_message_and_the_default_view(query, words):
    d = _dash(query)
    assert d.state.body.name == "paper_fig1" and d.tabs.selected_index == 0 and d.link.is_default
    assert d.msg.kind == "error" and words in d.msg.text and "Showing the start view" in d.msg.text
    assert "section" not in d.panels and d.state.launches == []


def test_a_link_s_seeds_are_launched_as_the_link_s():
    """The trajectory a link launched was listed as "#1 (click)" in the Motion tab's menu; now "(link)", and the
    link written back keeps the seed as it was."""
    d = _dash("preset=paper_fig2&tab=section&E=2.03&launch=0.5,0.3")
    (L,) = d.state.launches
    assert L.source == "link"
    labels = [o[0] for o in d.panel("motion").choice.options]
    assert any(x.startswith("#1 (link) E = 2.03 J") for x in labels), labels
    (seed,) = d.current_link().launch
    assert seed == (pytest.approx(0.5, abs=1e-12), pytest.approx(0.3, abs=1e-12))


def test_link_with_inaccessible_seed_and_level_says_so():
    d = _dash("preset=paper_fig2&tab=section&E=2.03&launch=0.0,-0.5")
    assert d.state.launches == [] and "0 of 1 trajectories launched" in d.msg.text
    # with the units of its energies (it said "at E = 2.03: there V_μ = 3.1 > E")
    text = d.panels["section"].msg.text
    assert "(φ, Γ₃) = (0.000, -0.500) is not accessible at E = 2.03 J: there V_μ = " in text and " J > E." in text
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
