"""A classroom without internet (issue 23, item 9): the page asks nothing of any host but the server, and every
button's icon is drawn.  Every request to another host is blocked (and recorded) from the first byte.

Before the fix the page loaded Font Awesome from a CDN (cdn.jsdelivr.net: ``all.min.css`` and ``v4-shims.min.css``):
without internet the icons of the v4 names ipywidgets uses ("television", "refresh") were missing.
"""
from __future__ import annotations

from urllib.parse import urlsplit

import pytest

import pe_browser as pb

pytestmark = [pytest.mark.browser, pytest.mark.slow]

ICONS_JS = """() => Array.from(document.querySelectorAll('.pe-app i.fa, .pe-app button i')).map(i => {
    const st = getComputedStyle(i, '::before');
    const btn = i.closest('button');
    return {cls: i.className, button: btn ? btn.innerText.trim().slice(0, 30) : '', content: st.content,
            font: st.fontFamily, weight: st.fontWeight, width: i.getBoundingClientRect().width,
            shown: i.offsetParent !== null};
})"""


def test_page_needs_no_other_host(dashboard_server, browser):
    server = urlsplit(dashboard_server.url)
    blocked = []

    def route(r):
        u = urlsplit(r.request.url)
        if u.scheme in ("data", "blob") or (u.hostname, u.port) == (server.hostname, server.port):
            r.continue_()
        else:
            blocked.append(r.request.url)
            r.abort()

    page = browser.new_page()
    page.set_viewport_size(pb.VIEWPORT)
    page.route("**/*", route)
    try:
        page.goto(dashboard_server.url + "?preset=paper_fig2&tab=section&E=2.03", wait_until="commit", timeout=60_000)
        pb.wait_for_panels(page, timeout=150_000)
        pb.show_panel(page, "pe-section")
        pb.wait_plot(page, f".{pb.CHART}", timeout=120_000)
        pb.wait_plots_quiet(page)
        page.evaluate("() => document.fonts.ready")
        icons = [i for i in page.evaluate(ICONS_JS) if i["shown"]]
        fonts = page.evaluate("""() => Array.from(document.fonts).filter(f => /Awesome/.test(f.family))
            .map(f => [f.family, f.weight, f.status])""")
        pb.ARTIFACTS.mkdir(exist_ok=True)
        pb.element_screenshot(page, ".pe-section", "offline-section-1280x720.png")
        pb.record_timings("offline", {"blocked": blocked, "icons": len(icons), "fonts": fonts})
        assert not blocked, f"the page asked other hosts: {blocked}"
        assert len(icons) >= 8, icons
        missing = [i for i in icons if i["content"] in ("none", "normal", "") or "Awesome" not in i["font"]]
        assert not missing, f"icons without a glyph: {missing}"
        assert any(f[2] == "loaded" for f in fonts), fonts  # the icon font came from the server
        pb.assert_no_traceback(page, "offline")
    finally:
        page.close()
