"""The section panel as a classroom instrument: cancel keeps what was
computed and says so, no action silently discards trajectories, the E slider has a useful step, clicks at a pole
are moved to an admissible point, the thin band fills the chart, a typed (φ, Γ₃) launches."""
import numpy as np
import pytest

from pendulum_explorer.app import build_app
from pendulum_explorer.poincare import sphere_from_chart


@pytest.fixture
def app():
    d = build_app(prewarm=False)
    d.panel("body")
    d.panel("section").task.synchronous = True
    return d


def test_cancel_keeps_the_computed_crossings_and_says_so(app):
    """Cancel pressed while the first chunk of a fill computes: it stops after that chunk (not after the whole
    trajectories), trajectories not started are removed, and the message says what was kept.  The dashboard's
    section runs a fill in groups of its lanes, one group per thread side by side (PoincareMap.stream_batch): the
    first groups' trajectories are all kept with their first chunk (none computed is dropped), said as one run,
    and the next group was not started."""
    from pendulum_explorer._core.taylor_lanes import LANES
    from pendulum_explorer.section.parallel import N_THREADS

    sec = app.panel("section")
    sec.mu.value, sec.E.value = 0.0, 1.0
    assert sec.section.map.runner.many_width == LANES  # the dashboard's section is on the Taylor lanes

    def then_cancel(send):  # the cancel button, pressed when the first crossings are drawn
        def wrapped(*a, **k):
            send(*a, **k)
            sec.task.cancel()
        return wrapped

    # the chart sends new crossings with extend (a restarted trace with restyle)
    sec.chart.restyle, sec.chart.extend = then_cancel(sec.chart.restyle), then_cancel(sec.chart.extend)
    running = LANES * N_THREADS
    sec.fill(running + 3, n=3000)
    assert len(app.state.launches) == running and len(sec.crossing_traces()) == running
    counts = {len(L.crossings) for L in app.state.launches}
    assert len(counts) == 1 and 0 < counts.pop() <= 60  # the first chunk of each
    L0, L1 = app.state.launches[0], app.state.launches[-1]
    assert sec.msg.text.startswith(f"cancelled: kept {running} trajectories")
    assert f"#{L0.id}–#{L1.id} {len(L0.crossings)} of 3000 each" in sec.msg.text
    assert "3 not started, removed" in sec.msg.text


def test_fill_runs_its_seeds_in_lanes_and_equals_them_one_by_one(app):
    """A fill of 12 seeds computes them in groups of the section's lanes: each trajectory's crossings equal the same
    seed streamed alone (the dashboard's click path) to 1e-9 over its first 5 returns (the lanes are not
    bit-identical to the scalar kernel), every launch gets its MEGNO, and the message counts 12 done.  Before, the
    fill ran the seeds one by one on DOP853."""
    sec = app.panel("section")
    sec.mu.value, sec.E.value = 0.0, 1.0
    ls = sec.fill(12, n=200)
    assert len(ls) == 12 and all(len(L.crossings) == 200 and L.megno is not None for L in ls)
    for L in ls[::5]:
        ref = np.concatenate([c.Gamma for c in sec.section.stream((L.Gamma0, L.omega0), 200, 2000, first=60)])
        np.testing.assert_allclose(L.crossings[:5], ref[:5], rtol=0, atol=1e-9)
    assert sec.msg.kind == "ok" and "12" in sec.msg.text


def test_fill_megno_in_one_lane_call_per_finished_wave(app, monkeypatch):
    """The hovers' Ybar of a fill come from one :func:`megno_seeds` call for the trajectories that ended together
    (12 seeds: two lane groups side by side, one call of 12), each the lanes' value of its seed; before, each
    finished trajectory ran its own DOP853 MEGNO (0.25 s CPU for 60 seeds at T = 100 s, against 0.034 s on the
    lanes: more than the fill's 1000 crossings each took)."""
    from pendulum_explorer.app import section_runs
    from pendulum_explorer.poincare import megno_seeds

    calls = []

    def counted(pmap, seeds, t_total, **kw):
        calls.append(len(seeds))
        return megno_seeds(pmap, seeds, t_total, **kw)

    monkeypatch.setattr(section_runs, "megno_seeds", counted)
    sec = app.panel("section")
    sec.mu.value, sec.E.value = 0.0, 1.0
    ls = sec.fill(12, n=200)
    assert calls == [12]
    ref, _, ok = megno_seeds(sec.section.map, [(L.Gamma0, L.omega0) for L in ls], section_runs.MEGNO_T)
    assert ok.all() and [L.megno for L in ls] == [(y, section_runs.MEGNO_T) for y in ref.tolist()]
    calls.clear()
    L = sec.launch_at(0.5, 0.3, n=100)
    assert calls == [1] and L.megno is not None and L.megno[0] > 0


def test_level_body_and_clear_set_trajectories_aside_for_undo(app):
    sec = app.panel("section")
    sec.mu.value, sec.E.value = 0.0, 1.0
    ls = sec.fill(3, n=100)
    sec.E.value = 2.0  # a level change
    assert app.state.launches == [] and "3 trajectories at E = 1 J set aside" in sec.msg.text
    assert "undo" in sec.msg.text and len(sec.saved.options) == 2 and "3 trajectories" in sec.saved.options[1][0]
    sec.undo()
    assert (sec.section.energy, sec.section.mu) == (1.0, 0.0) and (sec.E.value, sec.mu.value) == (1.0, 0.0)
    assert all(a is b for a, b in zip(app.state.launches, ls)) and len(app.state.launches) == 3
    assert [len(t.x) for t in sec.crossing_traces()] == [100, 100, 100]  # drawn again, not recomputed
    sec.clear()
    assert app.state.launches == [] and "set aside" in sec.msg.text
    sec.undo()
    assert len(app.state.launches) == 3 and len(sec.crossing_traces()) == 3
    # a new body: the trajectories are set aside with the old body
    app.panel("body").preset.value = "lagrange_top"
    assert app.state.body.name == "lagrange_top" and app.state.launches == []
    assert "set aside" in sec.msg.text
    # the "saved levels" menu brings them back with their body and level
    sec.saved.value = sec.saved.options[1][1]
    assert app.state.body.name == "paper_fig1" and app.panel("body").preset.value == "paper_fig1"
    assert (sec.section.energy, sec.section.mu) == (1.0, 0.0) and len(app.state.launches) == 3
    # undo still removes the last trajectory one at a time
    sec.undo()
    assert len(app.state.launches) == 2 and len(sec.crossing_traces()) == 2


def test_E_slider_spans_the_critical_energies_around_E(app):
    """Fig. 1 body at mu = 0: the slider spans hanging ... inverted energy (-m g|rho| ... +m g|rho|), not 25 m g|rho|;
    at its end it moves on to the next interval."""
    sec = app.panel("section")
    sec.mu.value, sec.E.value = 0.0, 0.0
    pend = app.state.pendulum
    mgr = pend.m * pend.g * np.linalg.norm(pend.rho)
    assert sec.E_slider.min == pytest.approx(-mgr, rel=1e-6) and sec.E_slider.max == pytest.approx(mgr, rel=1e-6)
    assert (sec.E_slider.max - sec.E_slider.min) / 200 < 0.06  # J per pixel of the 200 px slider (was 0.61)
    sec.E_slider.value = sec.E_slider.max
    E = sec.section.energy
    assert E == pytest.approx(mgr, rel=1e-4)
    assert sec.E_slider.min < E < sec.E_slider.max and sec.E_slider.max > 2 * mgr  # can go on upwards


def test_pole_click_moves_to_an_admissible_point_and_the_band_gets_the_chart(app):
    """Fig. 2 body just above the hanging energy: the accessible set is a cap around the hanging pole Γ₃ = +1."""
    app.panel("body").preset.value = "paper_fig2"
    sec = app.panel("section")
    pend = app.state.pendulum
    mgr = pend.m * pend.g * np.linalg.norm(pend.rho)
    sec.mu.value = 0.0
    sec.E.value = round(-0.98 * mgr, 4)  # the cap Γ₃ > ~0.98
    heat = sec.chart.data[0]
    y = np.asarray(heat.y)
    assert np.abs(y).max() < 1.0  # no row of the chart at a pole
    rows = (np.asarray(heat.z) == 0).any(axis=1).sum()
    assert rows >= 20  # the band is drawn with enough rows (one of 81 rows of the whole chart before)
    rng = sec.chart.figure["layout"]["yaxis"]["range"]
    assert abs(rng[0] - rng[1]) < 0.1  # the axis shows the band
    L = sec.launch_at(0.3, 1.0, n=50)
    assert L is not None and L.Gamma0[2] < 1.0 and len(L.crossings) == 50
    assert "hanging pole" in sec.msg.text and "nearest point where motion is possible" in sec.msg.text
    assert sec.section.slack(L.Gamma0) > 0


def test_keyboard_launch_at_typed_point(app):
    sec = app.panel("section")
    sec.mu.value, sec.E.value = 0.0, 1.0
    sec.n_cross.value = 100
    iz, ip = np.argwhere(sec.region.V < 0.5)[0]
    phi, z = float(sec.region.phi[ip]), float(sec.region.z[iz])
    sec.phi_in.value, sec.z_in.value = phi, z
    sec.launch_btn.click()
    L = app.state.launches[-1]
    np.testing.assert_allclose(L.Gamma0, sphere_from_chart(phi, z), atol=1e-12)
    assert L.source == "typed" and len(L.crossings) == 100
    # several points (a link): one task, every launch computed
    ls = sec.launch([(phi, z), (phi + 0.01, z)], n=100)
    assert len(ls) == 2 and all(len(x.crossings) == 100 for x in ls)


def test_fill_says_which_trajectories_stopped_short_and_why(app):
    """Planar rod at E = -4.8 J, mu = 0: a seed at the turning point of a planar swing never crosses the section
    (e3^T (Gamma x Gammadot) = 0).  The end of a fill said "fill done: 2 trajectories"; the stop said "(no_crossing)"."""
    app.panel("body").preset.value = "planar"
    sec = app.panel("section")
    sec.mu.value, sec.E.value = 0.0, -4.8
    p = app.state.pendulum
    c = 4.8 / (p.m * p.g * p.rho[2])  # E = -m g rho3 Gamma3 at rest
    swing = np.array([0.0, np.sqrt(1 - c * c), c, 0.0, 0.0, 0.0])
    launches = sec.runs.start_many(sec.section, np.stack([sec.section.fill_seeds(1)[0], swing]), "fill", n=100)
    assert [len(L.crossings) for L in launches] == [100, 0] and launches[1].stopped == "no_crossing"
    assert sec.msg.text.startswith("fill done: 2 trajectories; 1 stopped short of the crossings asked: "
                                   f"#{launches[1].id} 0 of 100 (it stopped coming back to the section)")
    assert "a planar swing" in sec.msg.text and sec.msg.kind == "info"


def test_history_without_widgets():
    """What the panel sets aside: labels, undo order (latest first, set-asides before the launches under them),
    and the bound on saved levels."""
    from pendulum_explorer import presets
    from pendulum_explorer.app.history import LIMIT, History

    h, body = History(), presets.paper_fig2()
    a, b = object(), object()
    h.launched([a, b])
    assert h.set_aside(body, 1.0, 0.0, [], "clear") is None  # nothing shown: nothing to keep
    s = h.set_aside(body, 1.0, 0.0, [a, b], "the level changed")
    assert s.label.startswith("E = 1 J, μ = 0 kg m²/s · 2 trajectories")
    assert h.undo([]) is s
    h.take(s)
    assert h.saved == [] and h.undo([a, b]) is b and h.undo([a]) is a and h.undo([]) is None
    for i in range(LIMIT + 2):
        h.set_aside(body, float(i), 0.0, [a], "clear")
    assert len(h.saved) == LIMIT and h.dropped == 2 and h.saved[0].E == 2.0


def test_area_wording_never_says_0_percent_for_a_non_empty_section():
    """The range line's accessible share (widget-free): "0%" only when the section is empty, "<1%" for a thin
    band (before: "area 0%" for a positive area), and a real thin band near the bottom of the well reads "<1%"."""
    from pendulum_explorer import presets
    from pendulum_explorer.app.section_levels import area_percent
    from pendulum_explorer.poincare import PoincareSection

    assert area_percent(0.0, empty=True) == "0%"
    assert [area_percent(f) for f in (0.0, 1e-6, 0.0049, 0.0099)] == ["<1%"] * 4
    assert [area_percent(f) for f in (0.01, 0.374, 0.99, 0.996, 1.0)] == ["1%", "37%", "99%", ">99%", "100%"]
    P = presets.paper_fig1().pendulum
    lo = PoincareSection(P, 5.0, 0.3).accessible_region().energy_min
    for dE, frac in ((1e-6, 0.0), (1e-3, 0.000625)):  # a cap the grid misses (estimate 0), and one it sees
        reg = PoincareSection(P, lo + dE * P.mgrho_norm, 0.3).chart_region()
        assert not reg.empty and reg.area_fraction == pytest.approx(frac, abs=1e-9)
        assert area_percent(reg.area_fraction, reg.empty) == "<1%"


def test_the_end_of_a_task_tells_the_browser_to_draw_the_streamed_crossings(app):
    """The chart's browser side paints streamed crossings on a layer and lets Plotly draw them when the task says it
    has ended: a cancelled fill, a launch and a fill each end with "settle" after their last crossings."""
    sec = app.panel("section")
    sec.mu.value, sec.E.value = 0.0, 1.0
    sent = []
    sec.chart.send = lambda msg, *a, **k: sent.append(msg.get("op"))
    real_extend = sec.chart.extend

    def extend_then_cancel(*a, **k):  # cancel pressed when the first crossings are drawn
        real_extend(*a, **k)
        sec.task.cancel()

    sec.chart.extend = extend_then_cancel
    sec.fill(4, n=3000)
    assert sec.msg.text.startswith("cancelled: kept") and sent[-1] == "settle" and sent.count("settle") == 1
    sec.chart.extend = real_extend
    for start in (lambda: sec.launch_at(0.5, 0.3, n=200), lambda: sec.fill(3, n=100)):
        sent.clear()
        start()
        assert "extend" in sent and sent[-1] == "settle" and sent.count("settle") == 1, sent


def test_a_new_launch_speaks_after_the_task_it_cancels(app):
    """A fill started while a trajectory computes cancels it; the trajectory's "cancelled: kept ..." comes before
    the fill's "fill: ..." (it came after it and stayed on the page while the fill ran)."""
    sec = app.panel("section")
    sec.mu.value, sec.E.value = 0.0, 1.0
    sec.task.synchronous = False
    said = []
    show = sec.msg.show
    sec.msg.show = lambda text, kind="info": (said.append(str(text)), show(text, kind))
    sec.launch_at(0.5, 0.3, n=100_000)
    sec.fill(2, n=100)
    sec.task.wait()
    i_cancel = next(i for i, t in enumerate(said) if t.startswith("cancelled: kept 1 trajectory"))
    i_fill = next(i for i, t in enumerate(said) if t.startswith("fill: 2 trajectories"))
    assert i_cancel < i_fill, said


def test_a_run_that_outlives_the_stop_wait_stays_cancelled():
    """A run whose chunk takes longer than ``stop``'s wait still sees its cancel once the next run starts (it read
    the next run's cancel and ran on beside it, its progress and its end drawn over the next run's bar)."""
    import functools
    import threading
    import time as _time

    from pendulum_explorer.app.common import Messages, Task

    task = Task(Messages())
    task.stop = functools.partial(Task.stop, task, timeout=0.05)  # (start() stops the running run first)
    chunks, seen = [], []
    go_on = threading.Event()

    def slow(t):
        for k in range(40):  # chunks of 0.2 s, longer than the stop wait
            _time.sleep(0.2)
            chunks.append(k)
            t.progress(0.99)
            if t.cancelled:
                seen.append(k)
                return

    def second(t):
        t.progress(0.25)
        go_on.wait(10)

    task.start(slow, "first")
    first = task._thread
    _time.sleep(0.05)
    task.start(second, "second")
    first.join(10)
    assert not first.is_alive() and seen == [0], (chunks, seen)
    assert task.running and task.bar.value == 0.25 and task.bar.layout.visibility == "visible"
    assert not task.cancelled  # (the second run, asked from outside it)
    go_on.set()
    task.wait(10)
    assert task.bar.layout.visibility == "hidden"
