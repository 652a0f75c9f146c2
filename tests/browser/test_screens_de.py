"""The German dashboard (``?lang=de``) at the five screens of issue 24: a phone (390 x 844) and a tablet
(820 x 1180), both with touch, and the three desktop sizes (1024 x 768, 1280 x 720, 1920 x 1080).

On every tab at every size: the page does not scroll sideways, the tab labels are German and whole (a label no
wider than its tab), no control label, button or menu is cut (:func:`pe_browser.cut_texts`), no control row
spills over the row below it, and no visible label, button, menu choice or accordion header holds an English word
of the dashboard's own (a short list of the English UI's words that German does not share; the figures' own texts
are not checked: they are English).
Screenshots: ``test-artifacts/de-<tab>-<w>x<h>-<k>.png``, screen by screen (Voila scrolls inside a container, so
an element's screenshot is cut at the screen's bottom).

Bounded: three pages (the phone, the tablet, and one desktop page resized to the three desktop sizes), each tab
opened once per size.  About 2 minutes on a shared 2-core machine.
"""
from __future__ import annotations

import re

import pytest

import pe_browser as pb
from test_language import GERMAN_TABS
from test_phone_tablet import TABS, _open_tab, _screens

pytestmark = [pytest.mark.browser]

DESKTOPS = [{"width": 1024, "height": 768}, {"width": 1280, "height": 720}, {"width": 1920, "height": 1080}]

#: words of the English dashboard that a German page must not show (none of them is also a German word)
ENGLISH = frozenset("""the and of with for from reset undo clear launch play pause speed crossings crossing trajectory
    trajectories about copy presenter preset custom shape body motion section equilibria equilibrium compute fill
    load save session find periodic energy nearby show hide view cancel angle axes axis rotation rotations family
    families stable unstable method slow fast level export""".split())

TEXTS_JS = """(cls) => {
    const shown = (e) => e.offsetParent !== null && e.getClientRects().length > 0;
    const sel = ['.pe-app > .widget-hbox', '.' + cls].flatMap(r => [r + ' .widget-label', r + ' button',
        r + ' .jupyter-widget-Collapse-header', r + ' .widget-checkbox label', r + ' .widget-toggle-button']);
    const out = Array.from(document.querySelectorAll(sel.join(', '))).filter(shown)
        .map(e => e.innerText.trim()).filter(Boolean);
    for (const s of document.querySelectorAll('.pe-app select:not([multiple])'))
        if (shown(s) && (s.closest('.' + cls) || !s.closest('.pe-panel')) && s.options[s.selectedIndex])
            out.push(s.options[s.selectedIndex].text.trim());
    return out; }"""

OVERFLOW_JS = """(cls) => {
    // a control row whose content spills out of its height (drawn over the row below it): [[text, px], ...]
    const shown = (e) => e.offsetParent !== null && e.getClientRects().length > 0;
    return Array.from(document.querySelectorAll('.' + cls + ' .widget-inline-hbox:not(.widget-slider)'))
        .filter(shown).map(row => {
            const r = row.getBoundingClientRect();
            const bottom = Math.max(...Array.from(row.children).filter(shown)
                .map(c => c.getBoundingClientRect().bottom));
            return [row.innerText.trim().slice(0, 60), Math.round(bottom - r.bottom)]; })
        .filter(([, px]) => px > 2); }"""

TABS_CUT_JS = """() => Array.from(document.querySelectorAll('.pe-app .lm-TabBar-tab')).map(t => {
    // a tab label wider than its tab (the phone layout lets the labels overflow: the next tab covers the rest)
    const lab = t.querySelector('.lm-TabBar-tabLabel'), cs = getComputedStyle(t);
    const have = t.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight);
    return [lab.innerText.trim(), lab.scrollWidth, Math.floor(have)]; }).filter(([, need, have]) => need > have + 1)"""

SCROLL_JS = """() => ({scroll: document.scrollingElement.scrollWidth, vw: window.innerWidth})"""


def english_words(texts):
    """The visible texts that hold a word of :data:`ENGLISH`: [[word, text], ...]."""
    found = []
    for text in texts:
        for word in re.findall(r"[A-Za-z]+", text):
            if word.lower() in ENGLISH:
                found.append([word, text])
    return found


def _check_screen(page, viewport, problems):
    name = f"{viewport['width']}x{viewport['height']}"
    for tab, cls in TABS.items():
        _open_tab(page, cls)
        _screens(page, f"de-{tab}-{name}", viewport, most=6)
        where = f"{name} {tab}"
        sc = page.evaluate(SCROLL_JS)
        if sc["scroll"] > sc["vw"] + 1:
            problems.append(f"{where}: the page scrolls sideways: {sc}")
        titles = pb.tab_titles(page)
        if titles != GERMAN_TABS:
            problems.append(f"{where}: tab labels {titles}")
        tabs_cut = page.evaluate(TABS_CUT_JS)
        if tabs_cut:
            problems.append(f"{where}: cut tab labels [text, needs px, has px]: {tabs_cut}")
        cut = pb.cut_texts(page, f".{cls}") + pb.cut_texts(page, ".pe-app > .widget-hbox")
        if cut:
            problems.append(f"{where}: cut labels [text, needs px, has px]: {cut}")
        spill = page.evaluate(OVERFLOW_JS, cls)
        if spill:
            problems.append(f"{where}: control rows spilling over the next one [text, px]: {spill}")
        english = english_words(page.evaluate(TEXTS_JS, cls))
        if english:
            problems.append(f"{where}: English on the German page: {english}")


def _open_german(page, url, viewport):
    page.set_viewport_size(viewport)
    page.goto(url + "?lang=de", wait_until="commit", timeout=60_000)
    pb.wait_for_panels(page, timeout=150_000)
    page.wait_for_function("(t) => Array.from(document.querySelectorAll('.lm-TabBar-tab'))"
                           ".map(e => e.innerText.trim()).join('|') === t", arg="|".join(GERMAN_TABS),
                           timeout=60_000)


def test_english_words_are_found():
    assert english_words(["Vorlage", "Körper zurücksetzen", "Poincaré-Schnitt"]) == []
    assert english_words(["reset", "in der Nähe starten", "Copy link"]) == [["reset", "reset"],
                                                                             ["Copy", "Copy link"]]


def test_german_dashboard_at_five_sizes(dashboard_server, browser):
    problems: list[str] = []
    for viewport in (pb.PHONE, pb.TABLET):
        with pb.touch_page(browser, viewport) as page:
            _open_german(page, dashboard_server.url, viewport)
            _check_screen(page, viewport, problems)
            pb.assert_no_traceback(page, f"on the German page at {viewport}")
    page = browser.new_page()
    try:
        _open_german(page, dashboard_server.url, DESKTOPS[0])
        for viewport in DESKTOPS:
            page.set_viewport_size(viewport)
            page.wait_for_timeout(500)
            _check_screen(page, viewport, problems)
        pb.assert_no_traceback(page, "on the German page on the desktop")
    finally:
        page.close()
    assert not problems, "\n".join(problems)
