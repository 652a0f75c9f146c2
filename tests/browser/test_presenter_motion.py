"""The presenter view's Motion tab at a projector's size (issue 23, item 5): the body view, the play controls and
the time readout all in the first screen, at 1280x720 and 1920x1080.

Before the fix the body view started at y = 554 px at 1280x720 (166 of its 461 px visible) and "reset" wrapped
to its own line.
"""
from __future__ import annotations

import pytest

import pe_browser as pb

pytestmark = [pytest.mark.browser, pytest.mark.slow]

QUERY = "presenter=1&tab=motion&omega0=1,0.5,0&T=10"

GEOMETRY_JS = """() => {
    const r = (sel) => { const e = document.querySelector(sel); if (!e) return null;
        const b = e.getBoundingClientRect(); return [Math.round(b.left), Math.round(b.top), Math.round(b.right),
                                                   Math.round(b.bottom)]; };
    const scroller = document.scrollingElement;
    return {body: r('.pe-motion .pe-body-view'), sphere: r('.pe-motion .pe-sphere-view'),
            play: r('.pe-motion .pe-play'), time: r('.pe-motion .pe-time-label'), slider: r('.pe-motion .pe-time'),
            reset: r('.pe-app button.pe-reset, .pe-app .pe-reset button'),
            presenter: r('.pe-app .pe-presenter-toggle, .pe-app .pe-presenter'),
            scrolled: scroller ? scroller.scrollTop : 0, height: window.innerHeight, width: window.innerWidth};
}"""


def _tab_entered(page):
    """The tab the Tab key reaches first from the header's "reset" button."""
    page.locator(".pe-app button.pe-reset").first.focus()
    for _ in range(8):
        page.keyboard.press("Tab")
        entered = page.evaluate("() => { const e = document.activeElement; const t = e && e.closest && "
                                "e.closest('.lm-TabBar-tab'); return t ? t.innerText.trim() : null; }")
        if entered:
            return entered
    return None


def _in_first_screen(box, height):
    return box is not None and box[1] >= 0 and box[3] <= height


@pytest.mark.parametrize("size", [(1280, 720), (1920, 1080)], ids=["1280x720", "1920x1080"])
def test_presenter_motion_fits_the_first_screen(dashboard_server, browser, size):
    page = browser.new_page()
    page.set_viewport_size({"width": size[0], "height": size[1]})
    try:
        page.goto(dashboard_server.url + "?" + QUERY, wait_until="commit", timeout=60_000)
        pb.wait_for_panels(page, timeout=150_000)
        page.locator(".pe-motion .pe-body-view").first.wait_for(state="visible", timeout=120_000)
        page.wait_for_function("() => { const p = document.querySelector('.pe-motion .pe-motion-player');"
                               " return !!p && p.peMotion && p.peMotion.n > 1; }", timeout=120_000, polling=200)
        pb.wait_plots_quiet(page)
        page.evaluate("() => { document.scrollingElement.scrollTop = 0; }")
        g = page.evaluate(GEOMETRY_JS)
        name = f"{size[0]}x{size[1]}"
        pb.ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(pb.ARTIFACTS / f"presenter-motion-{name}.png"))
        pb.record_timings("presenter_motion", {name: g})
        H = g["height"]
        assert _in_first_screen(g["body"], H), f"the body view at {g['body']} in a {H} px high window"
        for k in ("play", "time", "slider", "sphere"):
            assert _in_first_screen(g[k], H), (k, g[k], H)
        # the play button holds its 20 px text (its content was 38 px high in a 30 px button, on its bottom edge)
        fit = page.evaluate("() => { const b = document.querySelector('.pe-motion .pe-play');"
                            " return [b.scrollHeight, b.clientHeight]; }")
        assert fit[0] <= fit[1] + 1, fit
        # larger than the normal view: the body view at least 40 % of the window's height
        assert g["body"][3] - g["body"][1] >= 0.4 * H, g["body"]
        if g["reset"] and g["presenter"]:  # the header's buttons on one line
            assert abs(g["reset"][1] - g["presenter"][1]) < 10, (g["reset"], g["presenter"])
        # the Motion tab's sphere the same way up as the equilibria sphere (issue 23, item 4): the hanging point
        # rho/|rho| below the centre of the view, Gamma_3 = -1 above it
        hx, hy, cx, cy = page.evaluate("() => { const m = document.querySelector('.pe-motion .pe-motion-player')"
                                       ".peMotion; return m.gammaOnScreen(m.model.get('animation').hanging); }")
        top = page.evaluate("() => document.querySelector('.pe-motion .pe-motion-player').peMotion"
                            ".gammaOnScreen([0, 0, -1])")
        pb.record_timings("presenter_motion", {name + "_sphere": {"hanging_y": hy, "centre_y": cy,
                                                                   "minus_e3_y": top[1]}})
        assert hy > cy + 20 and top[1] < cy - 20, (hy, cy, top)
        # the time slider's arrow keys: 1 % of the motion per press (issue 23, item 9: it was 0.01 s of 10 s)
        slider = page.locator(".pe-motion .pe-time").first
        slider.focus()
        t = [page.evaluate("() => document.querySelector('.pe-motion .pe-motion-player').peMotion.t")]
        for key in ("ArrowRight", "ArrowRight", "PageUp", "ArrowLeft"):
            slider.press(key)
            t.append(page.evaluate("() => document.querySelector('.pe-motion .pe-motion-player').peMotion.t"))
        steps = [round(b - a, 6) for a, b in zip(t, t[1:])]
        pb.record_timings("presenter_motion", {name + "_slider_steps_s": steps})
        assert steps == [0.1, 0.1, 1.0, -0.1], steps  # of the 10 s motion
        # the Tab key enters the tab bar on the tab shown, also after another tab was chosen (issue 23, item 9:
        # lumino keeps the bar's focus stop on the tab first shown, e.g. "Body")
        entered = [_tab_entered(page)]
        page.locator(".lm-TabBar-tab").filter(has_text="Body").first.click()
        page.locator(".pe-body").first.wait_for(state="visible")
        entered.append(_tab_entered(page))
        pb.record_timings("presenter_motion", {name + "_tab_bar_entered_on": entered})
        assert entered == ["Motion", "Body"], entered
        pb.assert_no_traceback(page, "presenter motion")
    finally:
        page.close()
