"""Browser tests of issue 11 (the dashboard as a classroom instrument): deep links, the presenter view, screen
sizes from 1024x768 to 1920x1080, keyboard access.  Each test opens its own page (one kernel) and closes it.

Screenshots of the whole viewport go to ``test-artifacts/classroom-*.png``.
"""
from __future__ import annotations

import re

import pytest

import pe_browser as pb

pytestmark = [pytest.mark.browser, pytest.mark.slow]

FIG2C = "preset=paper_fig2&tab=section&E=2.03&launch=0.5,0.3"


def _open(browser, server, query="", size=(1280, 720)):
    page = browser.new_page()
    page.set_viewport_size({"width": size[0], "height": size[1]})
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(server.url + (f"?{query}" if query else ""), wait_until="commit", timeout=60_000)
    pb.wait_for_panels(page, timeout=150_000)
    page.locator(".pe-body-in-use").first.wait_for(state="visible", timeout=60_000)
    page.errors = errors
    return page


def _header_message(page):
    return page.evaluate("""() => { const m = document.querySelector('.pe-app-message');
        return m ? m.innerText.trim() : ''; }""")


def _wait_header_message(page, words, timeout=120_000):
    page.wait_for_function("""(w) => { const m = document.querySelector('.pe-app-message');
        return !!m && m.innerText.includes(w); }""", arg=words, timeout=timeout, polling=200)
    return _header_message(page)


def _overflow(page, selector):
    """Pixels by which the element is wider than the viewport's content area (0: it fits)."""
    return page.evaluate("""(sel) => { const el = document.querySelector(sel); if (!el) return null;
        const r = el.getBoundingClientRect(); return Math.max(0, Math.round(r.right - window.innerWidth),
        Math.round(el.scrollWidth - el.clientWidth)); }""", selector)


LEGEND_AND_SCENE_JS = """(sel) => { const gd = document.querySelector(sel + ' .js-plotly-plot');
    const box = (r) => [r.left, r.top, r.right, r.bottom];
    return {legend: box(gd.querySelector('g.legend').getBoundingClientRect()),
            scene: box(gd._fullLayout.scene._scene.container.getBoundingClientRect())}; }"""

SCENE_LABELS_JS = """() => { const gd = Array.from(document.querySelectorAll('.pe-equilibria .js-plotly-plot'))
        .find(g => g._fullLayout && g._fullLayout.scene);
    return Array.from(gd.querySelectorAll('g.annotation-scene')).map(g => { const r = (g.querySelector('rect.bg')
        || g).getBoundingClientRect(); return [g.textContent.trim(), r.left, r.top, r.right, r.bottom]; }); }"""


def _overlap(a, b):
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _covered_labels(page):
    """Pairs of labels of the equilibria sphere whose boxes overlap on the page."""
    boxes = page.evaluate(SCENE_LABELS_JS)
    assert len(boxes) >= 3, boxes
    return [(a[0], b[0]) for i, a in enumerate(boxes) for b in boxes[i + 1:] if _overlap(a[1:], b[1:])]


def _legend_on_scene(page):
    """The body preview's legend and 3D scene boxes if they overlap, else None."""
    r = page.evaluate(LEGEND_AND_SCENE_JS, ".pe-body-preview")
    return r if _overlap(r["legend"], r["scene"]) else None


def _shot(page, name):
    pb.ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(pb.ARTIFACTS / name))


def test_link_opens_fig2c_section_with_a_trajectory(dashboard_server, browser):
    """?preset=paper_fig2&tab=section&E=2.03&launch=0.5,0.3: the section tab open at E = 2.03 with the
    seed's crossings drawn, and the header says what the link opened."""
    page = _open(browser, dashboard_server, FIG2C)
    try:
        pb.wait_plot(page, f".{pb.CHART}", timeout=120_000)
        text = _wait_header_message(page, "trajectories launched")
        assert "Fig. 2 body (paper)" in text and "E = 2.03 J" in text and "1 of 1 trajectories launched" in text
        plot = pb.plot_locator(page, f".{pb.CHART}")
        page.wait_for_function("""(el) => { const gd = el.classList.contains('js-plotly-plot') ? el :
                el.querySelector('.js-plotly-plot');
                return gd.data.some(t => (t.name || '').startsWith('#') && t.x && t.x.length >= 500); }""",
                               arg=page.locator(f".{pb.CHART}").first.element_handle(), timeout=120_000)
        crossings = [t for t in pb.traces(plot) if (t["name"] or "").startswith("#")]
        assert len(crossings) == 1 and crossings[0]["n"] == 500
        assert page.locator(".pe-section .pe-energy input").first.input_value() == "2.03"
        assert "Fig. 2 body (paper)" in page.locator(".pe-body-in-use").first.inner_text()
        _shot(page, "classroom-link-fig2c-1280x720.png")
        assert not pb.cut_texts(page, ".pe-section"), pb.cut_texts(page, ".pe-section")  # "map T [s] (20–1000)"
        pb.assert_no_traceback(page, "after opening the Fig. 2 (c) link")
        # the copy button writes this view back as a link (the page's own address + the query)
        page.locator(".pe-copy-link button, button.pe-copy-link").first.click()
        page.wait_for_function("""() => { const t = document.querySelector('.pe-link-text input');
            return !!t && t.value.startsWith('http'); }""", timeout=30_000)
        url = page.locator(".pe-link-text input").first.input_value()
        assert url.startswith(dashboard_server.url) and "preset=paper_fig2" in url and "E=2.03" in url
        assert "tab=section" in url
        # the link's own seed, as it was (it came back as its first crossing: each copy moved it one return on)
        assert re.search(r"launch=([^&]*)", url).group(1) == "0.500000,0.300000", url
        # a seed typed in the boxes goes into the link as typed (it went in as its first crossing)
        page.locator(".pe-launch-phi input").first.fill("0.6")
        page.locator(".pe-launch-z input").first.fill("0.35")
        page.locator(".pe-launch-z input").first.press("Tab")
        page.locator("button.pe-launch, .pe-launch button").first.click()
        page.wait_for_function("""(el) => { const gd = el.classList.contains('js-plotly-plot') ? el :
                el.querySelector('.js-plotly-plot');
                return gd.data.filter(t => (t.name || '').startsWith('#') && t.x && t.x.length >= 500).length >= 2; }""",
                               arg=page.locator(f".{pb.CHART}").first.element_handle(), timeout=120_000)
        page.locator(".pe-copy-link button, button.pe-copy-link").first.click()
        page.wait_for_function("""() => { const t = document.querySelector('.pe-link-text input');
            return !!t && t.value.includes('0.500000,0.300000;'); }""", timeout=30_000)
        url = page.locator(".pe-link-text input").first.input_value()
        assert re.search(r"launch=([^&]*)", url).group(1) == "0.500000,0.300000;0.600000,0.350000", url
    finally:
        page.close()


def test_malformed_link_shows_the_message_and_the_start_view(dashboard_server, browser):
    page = _open(browser, dashboard_server, "preset=paper_fig2&tab=section&E=1e999&launch=%3Cscript%3E")
    try:
        text = _wait_header_message(page, "could not be opened")
        assert "E must lie in" in text and "Showing the start view" in text
        pb.wait_plot(page, ".pe-body", timeout=120_000)
        assert page.locator(".pe-body").first.is_visible()
        assert "Fig. 1 elliptic cylinder (paper)" in page.locator(".pe-body-in-use").first.inner_text()
        _shot(page, "classroom-bad-link-1280x720.png")
        pb.assert_no_traceback(page, "after a malformed link")
    finally:
        page.close()


def test_screen_sizes_and_keyboard(dashboard_server, browser):
    """1024x768: the header, the body and equilibria panels fit the width; Tab reaches "custom shape", "custom J
    and ρ" and the About box, and Enter opens them."""
    page = _open(browser, dashboard_server, "", size=(1024, 768))
    try:
        pb.wait_plot(page, ".pe-body", timeout=120_000)
        assert page.locator(".pe-guide").first.is_visible()  # first steps on the first view
        _shot(page, "classroom-body-1024x768.png")
        assert not _legend_on_scene(page), _legend_on_scene(page)  # it covered the axes and part of the body
        for sel in (".pe-app > .widget-hbox", ".pe-body"):
            assert _overflow(page, sel) <= 2, f"{sel} is wider than the 1024 px window"
        assert not pb.cut_texts(page, ".pe-app"), pb.cut_texts(page, ".pe-app")
        # keyboard: Tab from the preset menu to each accordion header, Enter opens it
        page.locator(".pe-body .pe-preset select").first.focus()
        reached = {}
        for _ in range(60):
            page.keyboard.press("Tab")
            label = page.evaluate("""() => { const a = document.activeElement;
                return a && a.matches('.jupyter-widget-Collapse-header, .lm-Collapse-header') ? a.innerText.trim()
                                                                                                  : null; }""")
            if label and label not in reached:
                reached[label] = True
                page.keyboard.press("Enter")
                page.wait_for_timeout(300)
                assert page.evaluate("() => document.activeElement.getAttribute('aria-expanded')") == "true", label
            if len(reached) >= 3:
                break
        assert any("custom shape" in k for k in reached), reached
        assert any("custom J" in k for k in reached), reached
        assert any(k.startswith("About") for k in reached), reached
        _shot(page, "classroom-body-keyboard-1024x768.png")
        pb.show_panel(page, "pe-equilibria")
        pb.wait_plot(page, ".pe-equilibria", timeout=120_000)
        page.wait_for_timeout(1500)
        _shot(page, "classroom-equilibria-1024x768.png")
        assert not _covered_labels(page), _covered_labels(page)  # "hanging" covered "L2"
        assert _overflow(page, ".pe-equilibria") <= 2, "the equilibria panel is wider than the 1024 px window"
        assert not pb.cut_texts(page, ".pe-equilibria"), pb.cut_texts(page, ".pe-equilibria")
        # "launch nearby" on the stable L2 family: the section shows the chart around the point, and says why
        choice = page.locator(".pe-equilibria .pe-eq-choice select").first
        # the longest entry (L1, through infinite alpha) whole in the menu (its 117 characters were cut)
        choice.select_option(index=choice.evaluate("s => Array.from(s.options).findIndex(o => o.text.startsWith('L1'))"))
        page.wait_for_timeout(1000)
        assert not pb.cut_texts(page, ".pe-equilibria"), pb.cut_texts(page, ".pe-equilibria")
        l2 = choice.evaluate("s => Array.from(s.options).findIndex(o => o.text.startsWith('L2'))")
        choice.select_option(index=l2)
        page.wait_for_timeout(1000)
        page.locator(".pe-equilibria .pe-launch-nearby button, button.pe-launch-nearby").first.click()
        # the Motion tab opens and plays it (issue 23, item 6); its returns are in the section tab
        page.locator(".pe-motion .pe-body-view").first.wait_for(state="visible", timeout=120_000)
        page.wait_for_function("() => { const p = document.querySelector('.pe-motion .pe-motion-player');"
                               " return !!p && p.peMotion && p.peMotion.n > 1; }", timeout=120_000, polling=200)
        _shot(page, "classroom-nearby-L2-motion-1024x768.png")
        pb.show_panel(page, "pe-section")
        pb.wait_plot(page, f".{pb.CHART}", timeout=120_000)
        page.wait_for_function("""() => { const gd = document.querySelector('.pe-section-chart .js-plotly-plot');
            return !!gd && gd.data.some(t => (t.name || '').startsWith('#') && t.x && t.x.length >= 500); }""",
                               timeout=120_000)
        page.wait_for_timeout(1000)
        plot = pb.plot_locator(page, f".{pb.CHART}")
        geom = pb.axis_geometry(plot)
        assert abs(geom["xrange"][1] - geom["xrange"][0]) < 1.0, geom  # zoomed onto the point
        _shot(page, "classroom-nearby-L2-section-1024x768.png")
        assert not pb.cut_texts(page, ".pe-section"), pb.cut_texts(page, ".pe-section")  # "map T [s] (20–1000)"
        pb.show_panel(page, "pe-equilibria")
        text = page.locator(".pe-equilibria .pe-message").first.inner_text()
        assert "It is stable, so the motion stays close to it" in text
        pb.assert_no_traceback(page, "at 1024x768")
    finally:
        page.close()


def test_presenter_view_1920x1080(dashboard_server, browser):
    """presenter=1: larger text (>= 18 px) and figures that use the screen (each tab's main figure >= 600 px
    high); screenshots of every tab at 1920x1080."""
    page = _open(browser, dashboard_server, "presenter=1&" + FIG2C, size=(1920, 1080))
    try:
        assert page.locator(".pe-app.pe-presenter").count() == 1
        _wait_header_message(page, "trajectories launched")
        size = page.evaluate("""() => parseFloat(getComputedStyle(document.querySelector('.pe-body-in-use div'))
            .fontSize)""")
        assert size >= 18
        heights, cut = {}, {}
        for cls, sel in (("pe-section", f".{pb.CHART}"), ("pe-equilibria", ".pe-equilibria"), ("pe-body", ".pe-body"),
                         ("pe-motion", ".pe-motion")):
            pb.show_panel(page, cls)
            plot = pb.wait_plot(page, sel, timeout=150_000)
            page.wait_for_timeout(1500)
            heights[cls] = plot.evaluate("el => el.getBoundingClientRect().height")
            cut[cls] = pb.cut_texts(page, f".{cls}")  # "load session (0)" in a 140 px button
            _shot(page, f"classroom-presenter-{cls.removeprefix('pe-')}-1920x1080.png")
            if cls == "pe-equilibria":
                assert not _covered_labels(page), _covered_labels(page)
            if cls == "pe-body":
                assert not _legend_on_scene(page), _legend_on_scene(page)
        pb.record_timings("classroom", {"presenter_figure_heights_px": heights})
        assert not any(cut.values()), cut
        # every text of the body's summary is large, its name and description too (they stayed at 14 px)
        pb.show_panel(page, "pe-body")
        sizes = page.evaluate("""() => Array.from(document.querySelectorAll('.pe-body-summary, .pe-body-summary *'))
            .filter(e => e.childNodes.length && Array.from(e.childNodes).some(n => n.nodeType === 3 && n.textContent.trim()))
            .map(e => [e.tagName, parseFloat(getComputedStyle(e).fontSize)])""")
        assert sizes and min(px for _, px in sizes) >= 18, sizes
        for cls in ("pe-equilibria", "pe-body", "pe-section"):
            assert heights[cls] >= 600, heights
        pb.assert_no_traceback(page, "in the presenter view")
    finally:
        page.close()
