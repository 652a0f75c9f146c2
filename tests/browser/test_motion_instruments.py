"""The Motion tab's instruments in Chromium (issue 23, part 2): released from a tilt, the page draws the body tilted
at t = 0; the energy bars move while it plays; with damping (DOP853) the total-energy bar goes down; the tilt is
plotted in degrees with the "now" line over it; the damping changed while it plays continues the motion from the
time shown (no restart from zero), and the speed changes only the rate.  Screenshots of the tab with the
instruments at 1280x720 and 1024x768, normal and presenter view (test-artifacts/).
"""
from __future__ import annotations

import numpy as np
import pytest

import pe_browser as pb
import pendulum_explorer as pe

pytestmark = [pytest.mark.browser, pytest.mark.slow]

MOTION = ".pe-motion"
PLAYER = f"{MOTION} .pe-motion-player"
M = f"document.querySelector('{PLAYER}').peMotion"
THETA = 50.0

#: the tilt the page draws: the angle between D R rho (its centre of mass, display frame z up) and straight down
DRAWN_TILT_JS = f"""() => {{ const m = {M}; const R = m.R, r = m.rho;
    const z = -(R[6] * r[0] + R[7] * r[1] + R[8] * r[2]), n = Math.hypot(r[0], r[1], r[2]);
    return Math.acos(Math.max(-1, Math.min(1, -z / n))) * 180 / Math.PI; }}"""
BARS_JS = f"""() => {{ const m = {M}; return [m.t, ...Array.from(document.querySelectorAll('{MOTION} .pe-energy-bar'))
    .map(b => parseFloat(b.style.height)), ...m.instruments.now]; }}"""
#: each bar as drawn: its bottom and top [px] in its track and the track's zero line, with the number written over it
DRAWN_BARS_JS = f"""() => Array.from(document.querySelectorAll('{MOTION} .pe-energy-bar')).map(b => {{
    const t = b.parentElement.getBoundingClientRect(), r = b.getBoundingClientRect();
    const z = b.parentElement.querySelector('.pe-energy-zero').getBoundingClientRect();
    return [t.bottom - r.bottom, t.bottom - r.top, t.bottom - z.top,
            parseFloat(b.parentElement.parentElement.querySelector('.pe-energy-value').textContent)]; }})"""


def _wait_motion(page, check="true"):
    page.wait_for_function(f"() => {{ const p = document.querySelector('{PLAYER}'); const m = p && p.peMotion; "
                           f"return !!m && m.n > 1 && ({check}); }}", timeout=120_000, polling=200)


def _open(browser, server, size, query=""):
    page = browser.new_page()
    page.set_viewport_size({"width": size[0], "height": size[1]})
    page.goto(server.url + ("?" + query if query else ""), wait_until="commit", timeout=60_000)
    pb.wait_for_panels(page, timeout=150_000)
    pb.show_panel(page, "pe-motion")
    _wait_motion(page)
    return page


def _release(page, theta):
    """Choose "released tilted θ from hanging" with θ; wait for the motion computed from it."""
    angle = page.locator(f"{MOTION} .pe-motion-angle input").first
    page.locator(f"{MOTION} .pe-motion-start select").first.select_option(label="released tilted θ from hanging")
    angle.wait_for(state="visible")
    angle.fill(f"{theta:g}")
    angle.press("Tab")
    _wait_motion(page, f"Math.abs(m.model.get('animation').energies.byteLength - 12 * m.n) === 0 && "
                       f"document.querySelector('{MOTION} .pe-motion-figure') && "
                       f"/released {theta:g}°/.test(document.querySelector('{MOTION}').innerText)")
    page.wait_for_timeout(500)


def _sample_bars(page, seconds, every_ms=250):
    rows = []
    for _ in range(int(seconds * 1000 / every_ms)):
        rows.append(page.evaluate(BARS_JS))
        page.wait_for_timeout(every_ms)
    return np.array(rows, float)


def _shot(page, name):
    pb.ARTIFACTS.mkdir(exist_ok=True)
    page.evaluate("() => { document.scrollingElement.scrollTop = 0; }")
    page.screenshot(path=str(pb.ARTIFACTS / f"motion-instruments-{name}.png"))


def test_instruments_released_damped_and_continued(dashboard_server, browser):
    page = _open(browser, dashboard_server, (1280, 720))
    try:
        _release(page, THETA)
        # t = 0, paused: the body drawn tilted by theta (float32 attitudes: to 0.01 degree)
        page.evaluate(f"() => {{ const m = {M}; m.pause(); m.t = 0; m.draw(); }}")
        drawn = page.evaluate(DRAWN_TILT_JS)
        pb.record_timings("motion_instruments", {"drawn_tilt_at_t0_deg": drawn})
        assert drawn == pytest.approx(THETA, abs=0.01)
        # the numbers over the bars are Eq 34's U and E (released at rest: E = U = -m g |rho| cos theta), the E the
        # rest of the dashboard shows; they read E + m g |rho| (energies from the hanging position) before
        mgr = pe.presets.paper_fig1().pendulum.mgrho_norm
        now, shown = page.evaluate(f"""() => [{M}.instruments.now.slice(),
            Array.from(document.querySelectorAll('{MOTION} .pe-energy-value')).map(e => e.textContent)]""")
        E0 = -mgr * np.cos(np.radians(THETA))
        pb.record_timings("motion_instruments", {"numbers_at_t0_K_U_E": now, "written": shown})
        assert now[0] == pytest.approx(0.0, abs=1e-4)
        assert now[1] == pytest.approx(E0, abs=1e-4) and now[2] == pytest.approx(E0, abs=1e-4), (now, E0)
        assert shown[2] == f"{E0:.2g}", shown
        # the bars are as long as their numbers, on one scale, from one zero line (down for U, E < 0): they stood
        # on the hanging position, K "3.1" drawn shorter than E "2.0"
        page.evaluate(f"() => {{ const m = {M}; m.t = 0.6; m.draw(); }}")
        drawn = np.array(page.evaluate(DRAWN_BARS_JS))
        pb.record_timings("motion_instruments", {"bars_bottom_top_zero_px_value": drawn.tolist()})
        zero = drawn[:, 2]
        assert np.ptp(zero) < 1.0, drawn
        signed = np.where(drawn[:, 0] >= zero - 1.0, drawn[:, 1] - drawn[:, 0], drawn[:, 0] - drawn[:, 1])
        scale = signed / drawn[:, 3]
        assert np.all(drawn[:, 3] != 0) and np.ptp(scale) < 0.06 * scale.max() and scale.min() > 0, (drawn, scale)
        assert drawn[1, 3] < 0 and drawn[2, 3] < 0 and drawn[1, 1] <= zero[1] + 1.0  # U and E hang below zero
        # the tilt plot in degrees, the "now" line over it
        tilt = page.evaluate(f"""() => {{ const gd = document.querySelector('{MOTION} .pe-motion-plots .js-plotly-plot');
            const fl = gd._fullLayout; return [fl.yaxis3.ticksuffix, fl.annotations.map(a => a.text),
            Math.max(...Array.from(gd.data[5].y)), {M}.markers.filter(x => x.style.display !== 'none').length]; }}""")
        assert tilt[0] == "°" and "tilt from the vertical [°]" in tilt[1], tilt
        assert tilt[2] == pytest.approx(THETA, abs=0.1) and tilt[3] == 3, tilt
        _shot(page, "1280x720")
        # the energy bars move during playback; total (the sum, undamped) constant
        page.locator(f"{MOTION} .pe-play").first.click()
        bars = _sample_bars(page, 2.0)
        pb.record_timings("motion_instruments", {"undamped_bars_kinetic_pct": [round(x, 1) for x in bars[:, 1]]})
        assert np.ptp(bars[:, 0]) > 1.0  # the time moved
        assert np.ptp(bars[:, 1]) > 20.0 and np.ptp(bars[:, 2]) > 20.0  # kinetic and potential bars swing
        assert np.ptp(bars[:, 3]) < 0.5 and np.ptp(bars[:, 6]) < 1e-3  # the total stays (its bar, its number)
        # the stopwatch reads the motion time
        clock = page.locator(f"{MOTION} .pe-stopwatch").first
        assert clock.inner_text().endswith(" s") and clock.evaluate("e => parseFloat(getComputedStyle(e).fontSize)") >= 24
        # damping while it plays: DOP853, then c = 0.3; the animation goes on from where it was (no restart)
        page.locator(f"{MOTION} .widget-toggle-button").filter(has_text="DOP853").first.click()
        _wait_motion(page, "m.playing || m.t > 0")
        t_before = page.evaluate(f"() => {M}.t")
        damping = page.locator(f"{MOTION} .pe-motion-damping input").first
        damping.fill("0.3")
        damping.press("Tab")
        _wait_motion(page, "(m.model.get('animation').damping || 0) > 0")
        state = page.evaluate(f"() => [{M}.t, {M}.playing, {M}.model.get('animation').keep_time]")
        pb.record_timings("motion_instruments", {"damping_changed_at_t": t_before, "then_t": state[0]})
        assert state[2] is True and state[0] >= min(t_before, 1.0), (t_before, state)
        if not state[1]:  # it ended meanwhile: play again from the start
            page.evaluate(f"() => {{ const m = {M}; m.t = 0; m.start(); }}")
        # a speed change: only the rate (the time goes on from where it is)
        t_speed = page.evaluate(f"() => {M}.t")
        page.locator(f"{MOTION} .pe-speed").first.select_option("2")
        assert page.evaluate(f"() => {M}.t") >= t_speed
        bars = _sample_bars(page, 2.5)
        pb.record_timings("motion_instruments", {"damped_total_J": [round(x, 4) for x in bars[:, 6]]})
        playing = bars[np.diff(bars[:, 0], prepend=-1.0) > 0]
        assert len(playing) >= 4
        # E falls (below zero here: its bar grows downwards)
        assert np.all(np.diff(playing[:, 6]) <= 1e-4) and playing[-1, 6] < playing[0, 6] - 0.01, playing[:, 6]
        pb.assert_no_traceback(page, "motion instruments")
    finally:
        page.close()


@pytest.mark.parametrize("size", [(1024, 768), (1280, 720)], ids=["1024x768", "1280x720"])
def test_instruments_screenshots_presenter(dashboard_server, browser, size):
    """The presenter view with the instruments: body, controls and time in the first screen (as
    test_presenter_motion), the stopwatch too; screenshots to look at."""
    page = _open(browser, dashboard_server, size, "presenter=1&tab=motion")
    try:
        _release(page, THETA)
        pb.wait_plots_quiet(page)
        page.evaluate(f"() => {{ const m = {M}; m.t = 1.2; m.draw(); }}")
        _shot(page, f"presenter-{size[0]}x{size[1]}")
        H = page.evaluate("() => window.innerHeight")
        for sel in (".pe-body-view", ".pe-play", ".pe-stopwatch", ".pe-energy-bars"):
            box = page.locator(f"{MOTION} {sel}").first.bounding_box()
            assert box and box["y"] >= 0 and box["y"] + box["height"] <= H, (sel, box, H)
        if size == (1024, 768):  # the normal view at this size as well
            page.locator(".pe-app .pe-presenter-toggle, .pe-app .pe-presenter").first.click()
            page.wait_for_timeout(1500)
            _shot(page, "1024x768")
    finally:
        page.close()


def test_link_with_tilt_and_damping_opens_that_motion(dashboard_server, browser):
    """A link with tilt, axis and damping (issue 23, part 2): the page opens on the Motion tab (no click) and draws
    the body released 35° from hanging at t = 0, the damped motion (DOP853) whose total-energy bar ends lower,
    and "copy link" writes the same start back."""
    page = browser.new_page()
    page.set_viewport_size({"width": 1280, "height": 720})
    try:
        page.goto(dashboard_server.url + "?preset=paper_fig1&tilt=35&axis=space-2&damping=0.5&T=12",
                  wait_until="commit", timeout=60_000)
        pb.wait_for_panels(page, timeout=150_000)
        page.locator(f"{MOTION}").first.wait_for(state="visible", timeout=60_000)  # the link opened the tab
        _wait_motion(page, "(m.model.get('animation').damping || 0) > 0")
        page.evaluate(f"() => {{ const m = {M}; m.pause(); m.t = 0; m.draw(); }}")
        drawn0 = page.evaluate(DRAWN_TILT_JS)
        anim = page.evaluate(f"""() => {{ const a = {M}.model.get('animation');
            const e = new Float32Array(a.energies.buffer, a.energies.byteOffset, 3 * a.n);
            return [a.damping, a.n, e[2], e[3 * a.n - 1], a.energy_max]; }}""")
        text = page.locator(MOTION).first.inner_text()
        pb.record_timings("motion_link", {"drawn_tilt_at_t0_deg": drawn0, "damping": anim[0],
                                          "total_energy_first_last_J": anim[2:4]})
        assert drawn0 == pytest.approx(35.0, abs=0.01)
        assert anim[0] == 0.5 and anim[3] < 0.8 * anim[2], anim
        assert "released 35° about lab e₂ (horizontal) from hanging" in text, text[:800]
        assert page.locator(f"{MOTION} .pe-motion-angle input").first.input_value() == "35"
        page.locator(".pe-copy-link").first.click()
        page.wait_for_function("() => Array.from(document.querySelectorAll('input, textarea'))"
                               ".some(e => e.value.includes('tilt=35'))", timeout=30_000)
        link = page.evaluate("() => Array.from(document.querySelectorAll('input, textarea')).map(e => e.value)"
                             ".find(v => v.includes('tilt=35'))")
        assert "axis=space-2" in link and "damping=0.5" in link and "T=12" in link, link
        pb.assert_no_traceback(page, "motion link")
    finally:
        page.close()
