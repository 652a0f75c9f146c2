"""The dashboard in German in a real browser (issue 24, item 3): a page opened with ``?lang=de`` shows German tabs,
labels and messages, whole (no cut label at 1280 x 720), takes a decimal comma in its number boxes, keeps
``lang=de`` in "copy link", and its language menu opens the same view in Spanish; a browser whose language is
German gets the German page without ``lang=``.  Screenshots in test-artifacts/language-*.png."""
from __future__ import annotations

import re

import pe_browser as pb
from test_dashboard_e2e import _heatmap, _pick_cell

GERMAN_TABS = ["Körper", "Gleichgewichte", "Poincaré-Schnitt", "Bewegung"]
SPANISH_TABS = ["Cuerpo", "Equilibrios", "Sección de Poincaré", "Movimiento"]
CHART = f".{pb.CHART}"


def _message(page, panel):
    return page.evaluate("""(p) => Array.from(document.querySelectorAll('.' + p + ' .pe-message'))
        .map(e => e.innerText.trim()).filter(Boolean).join(' | ')""", panel)


def _wait_message(page, panel, pattern, timeout=120_000):
    try:
        page.wait_for_function("""([p, re]) => Array.from(document.querySelectorAll('.' + p + ' .pe-message'))
            .some(e => new RegExp(re).test(e.innerText))""", arg=[panel, pattern], timeout=timeout, polling=200)
    except Exception as exc:
        raise AssertionError(f"no message /{pattern}/ in .{panel}: {_message(page, panel)!r}") from exc


def _cut_tabs(page):
    """The tab titles wider than their tab (shown cut): [[title, text px, tab px], ...]."""
    return page.evaluate("""() => Array.from(document.querySelectorAll('.lm-TabBar-tabLabel, .p-TabBar-tabLabel'))
        .filter(e => e.scrollWidth > e.clientWidth + 1).map(e => [e.innerText, e.scrollWidth, e.clientWidth])""")


def test_german_page(browser, dashboard_server):
    page = browser.new_page()
    page.set_viewport_size(pb.VIEWPORT)
    try:
        page.goto(dashboard_server.url + "?lang=de", wait_until="commit", timeout=60_000)
        pb.wait_for_panels(page, timeout=150_000)
        page.wait_for_function("() => document.querySelector('.pe-body .widget-label')", timeout=60_000)
        assert pb.tab_titles(page) == GERMAN_TABS
        assert page.evaluate("() => document.documentElement.lang") == "de"
        labels = page.evaluate("""() => Array.from(document.querySelectorAll(
            '.pe-app .widget-label, .pe-app button, .pe-app .jupyter-widget-Collapse-header'))
            .filter(e => e.offsetParent !== null).map(e => e.innerText.trim()).filter(Boolean)""")
        for word in ("Vorlage", "Präsentationsansicht", "Link zu dieser Ansicht kopieren", "zurücksetzen",
                     "eigene Form", "eigenes J und ρ", "Erläuterung: der Körper und seine kleinen Schwingungen"):
            assert word in labels, (word, labels)
        assert "Körper in Verwendung:" in pb.page_text(page)
        page.wait_for_timeout(500)
        pb.element_screenshot(page, ".pe-app", "language-de-body.png")
        assert pb.cut_texts(page, ".pe-app") == [] and _cut_tabs(page) == []

        # the equilibria: their controls and the message once computed
        pb.show_panel(page, "pe-equilibria")
        _wait_message(page, "pe-equilibria", r"Familien stationärer Drehungen")
        assert page.locator(".pe-launch-nearby").first.inner_text().strip() == "in der Nähe starten"
        page.wait_for_timeout(500)
        pb.element_screenshot(page, ".pe-app", "language-de-equilibria.png")
        assert pb.cut_texts(page, ".pe-equilibria") == []

        # the section: its controls, a click in the white region and the message after it
        pb.show_panel(page, "pe-section")
        plot = pb.wait_plot(page, CHART, timeout=120_000)
        _wait_message(page, "pe-section", r"^Schnitt bei E = ")
        plot.scroll_into_view_if_needed()
        pick = _pick_cell(_heatmap(plot), True, pb.axis_geometry(plot))
        assert pick, "no accessible cell on the section chart"
        pb.wait_plots_quiet(page)
        px, py = pb.data_to_pixel(pb.axis_geometry(plot), pick[0], pick[1])
        pb.slow_click(page, px, py)
        _wait_message(page, "pe-section", r"Trajektorie #\d+: \d+ Durchstoßpunkte \(E = -?[\d,]+ J, μ = [\d,]+ kg")
        assert "Durchstoßpunkte (" in _message(page, "pe-section")
        for word in ("rückgängig", "leeren", "exportieren", "starten"):
            assert page.locator(".pe-section button").filter(has_text=word).count(), word
        pb.element_screenshot(page, ".pe-app", "language-de-section.png")
        assert pb.cut_texts(page, ".pe-section") == []

        # a decimal comma in the E box
        box = page.locator(".pe-section .pe-energy input").first
        assert box.get_attribute("type") == "text" and box.get_attribute("inputmode") == "decimal"
        box.fill("")
        box.press_sequentially("2,5", delay=40)  # typed key by key, as a student types it
        box.press("Enter")
        _wait_message(page, "pe-section", r"^Schnitt bei E = 2,5 J, μ = ")

        # copy link keeps the language
        page.locator(".pe-copy-link").first.click()
        page.wait_for_function("""() => { const i = document.querySelector('.pe-link-text input');
            return i && /lang=de/.test(i.value) && /E=2\\.5/.test(i.value); }""", timeout=30_000)
        pb.assert_no_traceback(page, "on the German page")

        # the language menu: the same view (tab, level) in Spanish
        page.locator(".pe-language select").first.select_option(label="Español")
        page.wait_for_url(re.compile(r"lang=es"), timeout=60_000)
        pb.wait_for_panels(page, timeout=150_000)
        page.wait_for_function("(t) => Array.from(document.querySelectorAll('.lm-TabBar-tab'))"
                               ".map(e => e.innerText.trim()).join('|') === t", arg="|".join(SPANISH_TABS),
                               timeout=60_000)
        assert "tab=section" in page.url and "E=2.5" in page.url
        _wait_message(page, "pe-section", r"sección en E = 2,5 J")
        pb.wait_plot(page, CHART, timeout=120_000)
        page.wait_for_timeout(500)
        pb.element_screenshot(page, ".pe-app", "language-es-section.png")
        assert pb.cut_texts(page, ".pe-app") == [] and _cut_tabs(page) == []
        # the Body tab in Spanish: "predefinido" was cut to "predefi…" (74 px of text in a 60 px label)
        pb.show_panel(page, "pe-body")
        page.wait_for_timeout(500)
        assert pb.cut_texts(page, ".pe-body") == []
    finally:
        page.close()


def test_german_motion_tab(browser, dashboard_server):
    """The Motion tab with ``?lang=de``: its About box and what a screen reader hears of the views and the energy
    bars (the page's words, not the English built into motion.js), the section's E slider named in German."""
    page = browser.new_page()
    page.set_viewport_size(pb.VIEWPORT)
    try:
        page.goto(dashboard_server.url + "?lang=de", wait_until="commit", timeout=60_000)
        pb.wait_for_panels(page, timeout=150_000)
        pb.show_panel(page, "pe-motion")
        page.wait_for_function("""() => { const p = document.querySelector('.pe-motion .pe-motion-player');
            return p && p.peMotion && p.peMotion.n > 1; }""", timeout=120_000, polling=200)
        about = page.evaluate("() => document.querySelector('.pe-motion .pe-about').textContent")
        assert "Erläuterung: Rekonstruktion und Animation" in about and "Die Lage" in about, about[:300]
        aria = page.evaluate("""() => ['.pe-body-view', '.pe-sphere-view', '.pe-energy-bars'].map(
            (c) => document.querySelector('.pe-motion ' + c).getAttribute('aria-label'))""")
        assert aria[0] == "der Körper im Laborsystem (Pfeiltasten oder Ziehen drehen die Ansicht)", aria
        assert aria[1].endswith("(Pfeiltasten oder Ziehen drehen die Ansicht)"), aria
        # German numbers with a decimal comma (before: "0.46", "t = 0.00 s von 10 s", a stopwatch "0.00")
        assert re.match(r"Energie: kinetisch -?\d+,\d+(e[+-]\d+)? J, potentiell -?\d+,\d+(e[+-]\d+)? J, "
                        r"gesamt -?\d+,\d+(e[+-]\d+)? J$", aria[2]), aria
        shown = page.evaluate("""() => ['.pe-time-label', '.pe-stopwatch', '.pe-energy-bars'].map(
            (c) => document.querySelector('.pe-motion ' + c).textContent)""")
        assert re.match(r"t = \d+,\d\d s von \d+(,\d+)? s", shown[0]), shown
        assert re.match(r"\d+,\d\d s$", shown[1]), shown
        assert "," in shown[2] and "." not in shown[2].replace("...", ""), shown
        pb.show_panel(page, "pe-section")
        pb.wait_plot(page, CHART, timeout=120_000)
        names = page.evaluate("""() => Array.from(document.querySelectorAll('.pe-section .noUi-handle'))
            .map((h) => h.getAttribute('aria-label') || '')""")
        assert any(n.startswith("Schieberegler ") for n in names) and not any(n.endswith(" slider") for n in names), \
            names
        pb.assert_no_traceback(page, "on the German Motion tab")
    finally:
        page.close()


def test_browser_language_is_the_default(browser, dashboard_server):
    """A browser set to German (its Accept-Language and navigator.language) gets the German page without lang=."""
    pw = browser.pe_playwright
    chromium = pw.chromium.launch(executable_path=pb.require_browser(), headless=True, args=pb.CHROMIUM_ARGS)
    try:
        ctx = chromium.new_context(viewport=pb.VIEWPORT, locale="de-DE")
        page = ctx.new_page()
        assert page.evaluate("() => navigator.language") == "de-DE"
        page.goto(dashboard_server.url, wait_until="commit", timeout=60_000)
        pb.wait_for_panels(page, timeout=150_000)
        page.wait_for_function("(t) => Array.from(document.querySelectorAll('.lm-TabBar-tab'))"
                               ".map(e => e.innerText.trim()).join('|') === t", arg="|".join(GERMAN_TABS),
                               timeout=60_000)
        assert "lang=" not in page.url  # the server passed the browser's language: no second page load
    finally:
        chromium.close()


def test_navigator_language_where_the_server_passes_none(browser):
    """A server that does not pass Accept-Language (Voila as a Jupyter server extension, e.g. on Binder): the page
    reads navigator.language and opens itself again with lang= in it."""
    server = pb.voila_server("voila-server-no-lang-header.log",
                             extra_args=["--VoilaConfiguration.http_header_envs=[]"])
    pw = browser.pe_playwright
    chromium = pw.chromium.launch(executable_path=pb.require_browser(), headless=True, args=pb.CHROMIUM_ARGS)
    try:
        server.wait_ready(timeout=120)
        ctx = chromium.new_context(viewport=pb.VIEWPORT, locale="es-ES")
        page = ctx.new_page()
        page.goto(server.url + "?tab=equilibria", wait_until="commit", timeout=60_000)
        page.wait_for_url(re.compile(r"lang=es"), timeout=150_000)
        pb.wait_for_panels(page, timeout=150_000)
        page.wait_for_function("(t) => Array.from(document.querySelectorAll('.lm-TabBar-tab'))"
                               ".map(e => e.innerText.trim()).join('|') === t", arg="|".join(SPANISH_TABS),
                               timeout=60_000)
        assert "tab=equilibria" in page.url
    finally:
        chromium.close()
        server.stop()
