"""The section tab's periodic-orbit layers in the browser (issue 21): on the Fig. 2 body at E = 11.95, "find
periodic orbit" and a click 0.03 from the hyperbolic orbit (π/2, 0.5118), then "draw manifolds": the page's
chart holds the stable and the unstable manifold (one line trace each, the colours of plotting.bifurcation) and
the hyperbolic orbit's mark; then "follow in E" draws the bifurcation diagram and the band under the E slider.
Screenshots at 1280x720: test-artifacts/section-manifolds-1280x720.png (the viewport), section-manifolds.png and
section-family.png (the section tab)."""
from __future__ import annotations

import math

import pytest

import pe_browser as pb

pytestmark = [pytest.mark.browser, pytest.mark.slow]

CHART_SEL = f".pe-section .{pb.CHART}"
TRACES_JS = """(sel) => { const el = document.querySelector(sel);
    const gd = el.classList.contains('js-plotly-plot') ? el : el.querySelector('.js-plotly-plot');
    return gd.data.map(t => ({name: t.name == null ? '' : String(t.name), mode: t.mode || '',
        colour: t.line ? t.line.color : null, n: t.x ? t.x.length : 0,
        x: t.x ? Array.from(t.x).slice(0, 3) : [], y: t.y ? Array.from(t.y).slice(0, 3) : [],
        symbol: t.marker ? t.marker.symbol : null})); }"""


def _messages(page):
    return page.evaluate(pb.MESSAGES_JS)


def test_find_the_hyperbolic_orbit_and_draw_its_manifolds(dashboard_server, browser):
    page = browser.new_page()
    page.set_viewport_size(pb.VIEWPORT)
    try:
        page.goto(dashboard_server.url, wait_until="commit", timeout=60_000)
        pb.wait_for_panels(page, timeout=150_000)
        pb.show_panel(page, "pe-section")
        plot = pb.wait_plot(page, CHART_SEL, timeout=120_000)
        paper = page.locator(".pe-section .pe-paper-preset select").first
        options = paper.evaluate("s => Array.from(s.options).map(o => o.text.replace(/\\u00a0/g, ' '))")
        paper.select_option(index=[k for k, o in enumerate(options) if "11.95" in o][0])
        page.wait_for_function("""() => Array.from(document.querySelectorAll('.pe-section .pe-message'))
            .some(e => /trajectory #\\d+: \\d+ crossings/.test(e.innerText))""", timeout=120_000, polling=250)
        page.locator(".pe-section .pe-find-orbit").first.click()
        page.wait_for_function("() => document.querySelector('.pe-section .pe-find-orbit').classList"
                               ".contains('mod-active')", timeout=30_000, polling=100)
        plot.scroll_into_view_if_needed()
        pb.wait_plots_quiet(page)
        px, py = pb.data_to_pixel(pb.axis_geometry(plot), math.pi / 2 + 0.03, 0.5118 + 0.02)
        pb.slow_click(page, px, py)
        try:
            page.wait_for_function("""() => Array.from(document.querySelectorAll('.pe-section .pe-message'))
                .some(e => /hyperbolic periodic orbit \\(k = 1\\)/.test(e.innerText))""", timeout=120_000,
                                   polling=250)
        except Exception as exc:
            raise AssertionError(f"no hyperbolic orbit after the click; messages: {_messages(page)!r}") from exc
        page.locator(".pe-section .pe-find-orbit").first.click()  # back to click-to-launch
        t0 = page.evaluate("() => performance.now()")
        page.locator(".pe-section button.pe-draw-manifolds").first.click()
        try:
            page.wait_for_function("""() => { const n = document.querySelector('.pe-section .pe-orbit-note');
                return n && /homoclinic points/.test(n.innerText); }""", timeout=180_000, polling=250)
        except Exception as exc:
            raise AssertionError(f"no manifolds drawn; messages: {_messages(page)!r}") from exc
        page.wait_for_function("""(sel) => { const el = document.querySelector(sel);
            const gd = el.querySelector('.js-plotly-plot') || el;
            return gd.data.some(t => /unstable manifold/.test(t.name || '')); }""", arg=CHART_SEL, timeout=60_000)
        waited = page.evaluate("() => performance.now()") - t0
        pb.wait_plots_quiet(page)
        tr = page.evaluate(TRACES_JS, CHART_SEL)
        man = {t["name"]: t for t in tr if "manifold" in t["name"]}
        assert sorted(man) == ["stable manifold of the period-1 orbit", "unstable manifold of the period-1 orbit"], tr
        st, un = man["stable manifold of the period-1 orbit"], man["unstable manifold of the period-1 orbit"]
        assert st["colour"] == "#0072B2" and un["colour"] == "#D55E00" and st["mode"] == un["mode"] == "lines"
        assert st["n"] > 200 and un["n"] > 200, (st["n"], un["n"])
        # both start at the hyperbolic orbit
        for t in (st, un):
            assert abs(t["x"][0] - math.pi / 2) < 1e-4 and abs(t["y"][0] - 0.5117982) < 1e-4, t
        orb = [t for t in tr if t["name"] == "periodic orbits"]
        assert orb and "x" in orb[0]["symbol"][0], orb
        pb.record_timings("orbit_layers", {"draw_manifolds_click_to_drawn_ms": waited,
                                           "manifold_points": [st["n"], un["n"]]})
        page.locator(".pe-section").first.scroll_into_view_if_needed()
        pb.element_screenshot(page, ".pe-section", "section-manifolds.png")
        plot.scroll_into_view_if_needed()
        pb.ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(pb.ARTIFACTS / "section-manifolds-1280x720.png"))  # the viewport, as seen
        pb.assert_no_traceback(page, "after drawing the manifolds")
        # "follow in E" on the same orbit: the diagram under the chart and the band under the E slider
        page.locator(".pe-section button.pe-follow-e").first.click()
        try:
            page.wait_for_function("""() => { const n = document.querySelector('.pe-section .pe-orbit-note');
                return n && /exists for/.test(n.innerText); }""", timeout=180_000, polling=250)
        except Exception as exc:
            raise AssertionError(f"no family drawn; messages: {_messages(page)!r}") from exc
        diagram = pb.wait_plot(page, ".pe-section .pe-bifurcation-diagram", timeout=60_000)
        names = [t["name"] for t in pb.traces(diagram)]
        assert "hyperbolic" in names, names
        box = page.locator(".pe-section .pe-family-band").first.bounding_box()
        assert box and box["height"] >= 6 and box["width"] >= 150, box
        page.locator(".pe-section").first.scroll_into_view_if_needed()
        pb.element_screenshot(page, ".pe-section", "section-family.png")
        pb.assert_no_traceback(page, "after following the family")
    finally:
        page.close()
