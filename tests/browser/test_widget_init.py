"""A view whose module loads late still follows its figure (a slow device, a busy classroom server).

anywidget 0.11 gives a model 2 s from its creation to load its module; past that it rejects the model's ``ready``
and every later message from the kernel to that model is dropped: the view stays as it was first drawn (two CI runs
of 199a5c0 waited 120 s, one for the sphere, one for the Motion tab's body view).  This test makes every module
of the page finish loading 3 s late (as on a phone or a loaded machine) and checks that a change made in the
kernel afterwards still reaches the page's figure.  Before the fix (``patience.js``) the sphere kept its first
view and the page logged "[anywidget] Failed to initialize model." three times.
"""
from __future__ import annotations

import pytest

import pe_browser as pb

pytestmark = [pytest.mark.browser, pytest.mark.slow]

#: every ES module made into a blob URL (anywidget's ``loadEsm``) finishes loading 3 s later: a top-level await
#: put before its text (a slow device, a busy machine: the CI runs' main thread was busy for that long)
SLOW_MODULE_JS = """(() => {
    const make = URL.createObjectURL.bind(URL);
    window.__peHeldModules = 0;
    URL.createObjectURL = (blob) => {
        if (blob && blob.type === "text/javascript") {
            window.__peHeldModules += 1;
            blob = new Blob(["await new Promise((r) => setTimeout(r, 3000));\\n", blob], {type: blob.type});
        }
        return make(blob);
    };
})()"""

TITLES_JS = """() => Array.from(document.querySelectorAll('.pe-equilibria .js-plotly-plot'))
    .map(g => (g._fullLayout && g._fullLayout.title && g._fullLayout.title.text) || '')"""


def test_a_view_whose_module_loaded_late_still_follows_the_kernel(dashboard_server, browser):
    page = browser.new_page()
    page.set_viewport_size({"width": 1280, "height": 720})
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append(m.text) if "anywidget" in m.text else None)
    page.add_init_script(SLOW_MODULE_JS)
    try:
        page.goto(dashboard_server.url + "?preset=paper_fig1&tab=equilibria", wait_until="commit", timeout=60_000)
        pb.wait_for_panels(page, timeout=150_000)
        pb.show_panel(page, "pe-equilibria")
        page.wait_for_function("() => Array.from(document.querySelectorAll('.pe-equilibria .js-plotly-plot'))"
                               ".some(g => g._fullLayout && g._fullLayout.scene)", timeout=120_000, polling=200)
        assert page.evaluate("() => window.__peHeldModules") >= 2  # the slow module loads did happen
        pb.wait_plots_quiet(page)
        # a change made in the kernel (the sphere's view) after the slow load
        page.locator(".pe-equilibria .widget-toggle-buttons button").filter(has_text="top").first.click()
        try:
            page.wait_for_function("(f) => (eval(f))().some(t => t.includes('(top view)'))", arg=TITLES_JS,
                                   timeout=60_000, polling=250)
        except Exception:
            raise AssertionError(f"the sphere did not follow the kernel: titles {page.evaluate(TITLES_JS)}, "
                                 f"page errors {errors}") from None
        assert not [e for e in errors if "Failed to initialize" in e], errors
    finally:
        page.close()
