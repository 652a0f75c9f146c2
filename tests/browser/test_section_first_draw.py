"""The section tab opens without compiling WebGL shaders in its first draw (issue 9: browser timings not worse).

The section chart carries one transparent WebGL point so that the scattergl marker shaders are compiled before
the first click's crossings need them (0.4-0.7 s in a software-rendered browser).  Drawn in the chart's first
draw, that compilation (WebGL context 73 ms, shaders 53 ms, scattergl plot 37 ms in a page profile) made the tab
open 0.2-0.5 s later than at b902b7a.  The page now draws that trace (meta ``pe-after-paint``) right after the
chart has been shown: the first draw has no visible WebGL trace, a second draw with it follows before any click.
"""
from __future__ import annotations

import pytest

import pe_browser as pb

pytestmark = [pytest.mark.browser, pytest.mark.slow]

# every Plotly.react on a graph div: when, how long, and how many visible scattergl traces it was given
WATCH_REACT_JS = """() => {
    const P = window.Plotly; if (P.__peWatched) return; P.__peWatched = true;
    const react = P.react; window.__peReacts = [];
    P.react = function (gd, obj, ...rest) {
        const gl = ((obj && obj.data) || []).filter(t => t.type === 'scattergl' && t.visible !== false).length;
        const rec = {chart: !!gd.closest('.pe-section-chart'), gl, t0: performance.now(), t1: null};
        window.__peReacts.push(rec);
        const p = react.call(this, gd, obj, ...rest);
        Promise.resolve(p).then(() => { rec.t1 = performance.now(); });
        return p;
    }; }"""


def test_section_tab_first_draw_has_no_webgl(dashboard_server, browser):
    page = browser.new_page()
    page.set_viewport_size({"width": 1280, "height": 720})
    try:
        page.goto(dashboard_server.url, wait_until="commit", timeout=60_000)
        pb.wait_for_panels(page, timeout=150_000)
        pb.show_panel(page, "pe-body", timeout=60_000)
        pb.wait_plot(page, ".pe-body", timeout=60_000)   # plotly.js loaded
        page.evaluate(WATCH_REACT_JS)
        t_click = page.evaluate("() => performance.now()")
        pb.show_panel(page, "pe-section")
        pb.wait_plot(page, f".{pb.CHART}", timeout=120_000)
        pb.wait_plots_quiet(page)
        reacts = [r for r in page.evaluate("() => window.__peReacts") if r["chart"]]
        assert reacts, "the section chart was not drawn with Plotly.react"
        first = reacts[0]
        pb.record_timings("section_first_draw", {
            "tab_click_to_chart_drawn_ms": first["t1"] - t_click if first["t1"] else None,
            "chart_reacts": [[round(r["t0"] - t_click), round((r["t1"] or r["t0"]) - r["t0"]), r["gl"]] for r in reacts]})
        assert first["gl"] == 0, f"the chart's first draw compiles WebGL (visible scattergl traces: {first['gl']})"
        # the warm-up trace is drawn right after, before any click
        assert any(r["gl"] >= 1 for r in reacts[1:]), f"no draw of the WebGL warm-up trace after the first: {reacts}"
        assert page.evaluate("""() => { const gd = document.querySelector('.pe-section-chart .js-plotly-plot');
            return gd._fullData.some(t => t.type === 'scattergl' && t.visible === true); }""")
        pb.assert_no_traceback(page, "after opening the section tab")
    finally:
        page.close()
