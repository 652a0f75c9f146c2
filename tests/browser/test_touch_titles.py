"""Figures' titles on touch screens and the section's message band (issue 24, the defects seen at its end).

* Tablet 820 x 1180 with touch, German: the Motion tab's plots lie below its views at the full width, their
  subplot titles whole (before: the plots were 213 px wide beside the views, "Fehler der Erhaltungsgröß…" and the
  other two titles cut, 205-239 px of text in 213 px).
* Touch (tablet and phone): no figure title or subplot title on the Body, Equilibria, Section and Motion tabs lies
  under plotly's mode bar (shown all the time on a touch screen; before, it covered the section chart's title, the
  energy-momentum diagram's and the motion's ω(t) title), and none is wider than its figure (before: the section
  chart's title, 500 px in a 452 px figure at 820 px, 368 px on the phone).
* The empty band between the section's message and its first control row (a reserved 5em message slot and a
  hidden 40 px progress row): at most 8 px on the phone, the tablet and the 1920 x 1080 presenter view (before:
  50 px, 50 px and 74 px).
Screenshots: ``test-artifacts/touch-titles-<w>x<h>-<tab>-<k>.png``.  About 2 minutes (three pages).
"""
from __future__ import annotations

import pytest

import pe_browser as pb
from test_phone_tablet import TABS, _open_tab, _screens

pytestmark = [pytest.mark.browser]

#: the titles of every visible figure of a panel: their pixel boxes, the figure's and its mode bar's; and the band
#: between the section's last message and its first control row
TITLES_JS = """(cls) => {
    const shown = (e) => e && e.offsetParent !== null && e.getClientRects().length > 0;
    const R = (e) => { const b = e.getBoundingClientRect();
        return {l: b.left, t: b.top, r: b.right, b: b.bottom, w: Math.round(b.width)}; };
    const meet = (a, b) => Math.min(a.r, b.r) - Math.max(a.l, b.l) > 1 && Math.min(a.b, b.b) - Math.max(a.t, b.t) > 1;
    const figs = Array.from(document.querySelectorAll('.' + cls + ' .js-plotly-plot')).filter(shown).map(gd => {
        const box = R(gd), mb = gd.querySelector('.modebar');
        const bar = mb && shown(mb) && getComputedStyle(mb).opacity !== '0' ? R(mb) : null;
        const titles = Array.from(gd.querySelectorAll('.gtitle, .annotation-text-g text'))
            .filter(t => (t.textContent || '').trim()).map(t => Object.assign({text: t.textContent.trim()}, R(t)));
        return {width: box.w, modebar: !!bar, titles: titles.map(t => ({text: t.text, width: t.w,
            cut: t.l < box.l - 1 || t.r > box.r + 1, under_modebar: !!bar && meet(t, bar)}))};
    });
    let band = null;
    const nc = document.querySelector('.' + cls + ' .pe-n-crossings');
    if (shown(nc)) {
        const row = nc.closest('.widget-hbox') || nc;
        const msgs = Array.from(document.querySelectorAll('.pe-section .pe-message'))
            .filter(m => shown(m) && m.innerText.trim() && row.parentElement.contains(m));
        if (msgs.length) band = Math.round(row.getBoundingClientRect().top
                                           - Math.max(...msgs.map(m => m.getBoundingClientRect().bottom)));
    }
    return {band, figs};
}"""

BAND_MAX = 8


def _bad_titles(found):
    return {tab: [t for f in v["figs"] for t in f["titles"] if t["cut"] or t["under_modebar"]]
            for tab, v in found.items()}


def _tour(page, viewport, tabs):
    name = f"{viewport['width']}x{viewport['height']}"
    found = {}
    for tab in tabs:
        _open_tab(page, TABS[tab])
        if tab == "motion":
            pb.compute_motion(page)
            pb.wait_plots_quiet(page, timeout_ms=90_000)
            page.wait_for_timeout(1000)
        found[tab] = page.evaluate(TITLES_JS, TABS[tab])
        _screens(page, f"touch-titles-{name}-{tab}", viewport, most=3)
    return found


@pytest.mark.parametrize("viewport", [pb.TABLET, pb.PHONE], ids=["tablet-820x1180", "phone-390x844"])
def test_titles_clear_of_the_mode_bar_and_whole(dashboard_server, browser, viewport):
    tabs = ("section", "motion", "equilibria", "body")
    with pb.touch_page(browser, viewport) as page:
        page.goto(dashboard_server.url + "?lang=de", wait_until="commit", timeout=60_000)
        pb.wait_for_panels(page, timeout=150_000)
        found = _tour(page, viewport, tabs)
        pb.assert_no_traceback(page, f"at {viewport}")
    pb.record_timings("touch_titles", {f"{viewport['width']}x{viewport['height']}": found})
    assert all(found[t]["figs"] for t in tabs), {t: len(found[t]["figs"]) for t in tabs}
    # plotly shows its mode bar all the time on a touch screen: the test looks at titles beside a shown bar
    assert any(f["modebar"] for f in found["section"]["figs"]), found["section"]
    bad = _bad_titles(found)
    assert not any(bad.values()), ("titles cut or under the mode bar", bad)
    motion = found["motion"]["figs"][0]
    assert len(motion["titles"]) == 3, motion
    assert motion["width"] >= 0.85 * viewport["width"], ("the motion plots are not at the full width", motion)
    band = found["section"]["band"]
    assert band is not None and band <= BAND_MAX, f"{band} px between the section's message and its controls"


def test_no_band_under_the_message_in_the_presenter_view(dashboard_server, browser):
    page = browser.new_page()
    try:
        page.set_viewport_size({"width": 1920, "height": 1080})
        page.goto(dashboard_server.url + "?presenter=1&tab=section", wait_until="commit", timeout=60_000)
        pb.wait_for_panels(page, timeout=150_000)
        _open_tab(page, "pe-section")
        band = page.evaluate(TITLES_JS, "pe-section")["band"]
        page.screenshot(path=str(pb.ARTIFACTS / "touch-titles-presenter-1920x1080-section.png"))
        pb.record_timings("touch_titles", {"presenter_band": band})
        assert band is not None and band <= BAND_MAX, f"{band} px between the section's message and its controls"
    finally:
        page.close()
