"""A page's kernel through a lesson (issue 23, item 1): a connected page's kernel is not culled for being idle, and
a page whose kernel ends says so at once and reconnects with its view and work.

Before the fix the server culled connected kernels (``cull_connected=True``): a page left untouched longer than
the cull timeout (600 s; here 4 s, the culler looking every second) lost its kernel with no word on the page.
One server for the module, started with the short timeout.
"""
from __future__ import annotations

import os
import re
import signal
import time

import pytest

import pe_browser as pb

pytestmark = [pytest.mark.browser, pytest.mark.slow]

CULL_S = 4
IDLE_S = 15
QUERY = "preset=paper_fig2&tab=section&E=2.03&launch=0.5,0.3"
DONE = r"/trajectory #\d+: \d+ crossings/"


@pytest.fixture(scope="module")
def cull_server(chromium):
    server = pb.voila_server("voila-cull.log", cull_idle_timeout=CULL_S, cull_interval=1)
    try:
        server.wait_ready(timeout=120)
        yield server
    finally:
        server.stop()


def _open(browser, server, query=QUERY):
    page = browser.new_page()
    page.set_viewport_size(pb.VIEWPORT)
    page.goto(server.url + "?" + query, wait_until="commit", timeout=60_000)
    pb.wait_for_panels(page, timeout=150_000)
    return page


def _wait_done(page):
    page.wait_for_function(f"() => {DONE}.test(({pb.MESSAGES_JS})())", timeout=120_000, polling=200)


def _crossing_traces(page):
    return page.evaluate("""() => { const gd = document.querySelector('.pe-section-chart .js-plotly-plot');
        return gd ? gd.data.filter(t => (t.name || '').startsWith('#'))
            .map(t => [t.name, t.x ? t.x.length : 0]) : []; }""")


def _saved_levels(page):
    return page.evaluate("""() => Array.from(document.querySelectorAll('.pe-section .pe-saved-levels select option'))
        .map(o => o.textContent)""")


def test_connected_idle_page_keeps_its_kernel(cull_server, browser):
    page = _open(browser, cull_server)
    try:
        _wait_done(page)
        pids = cull_server.kernel_pids()
        assert len(pids) == 1, pids
        pb.wait_plots_quiet(page)
        page.wait_for_timeout(IDLE_S * 1000)  # untouched: no message from the page or the kernel
        log = cull_server.log_text()
        culled = [line for line in log.splitlines() if "Culling '" in line]
        alive = [p for p in pids if os.path.exists(f"/proc/{p}")]
        # still answers: the Equilibria tab draws its figures
        pb.show_panel(page, "pe-equilibria")
        pb.wait_plot(page, ".pe-equilibria", timeout=60_000)
        banner = page.locator(".pe-kernel-lost").count()
        pb.record_timings("kernel_lifecycle", {"idle_s": IDLE_S, "cull_timeout_s": CULL_S, "culled": culled})
        assert not culled and alive == pids, f"the idle connected page's kernel was culled: {culled}"
        assert banner == 0
    finally:
        page.close()


def _wait_no_kernels(server, timeout=60):
    """Until the kernels of the module's earlier pages have ended (a closed page's kernel goes a few seconds later:
    a fresh-clone CI run found two kernels here, this page's and the last test's)."""
    t0 = time.perf_counter()
    while server.kernel_pids() and time.perf_counter() - t0 < timeout:
        time.sleep(0.2)
    assert not server.kernel_pids(), f"kernels still running {timeout} s after their pages closed"


def test_ended_kernel_is_announced_and_reconnect_restores_the_work(cull_server, browser):
    _wait_no_kernels(cull_server)
    page = _open(browser, cull_server)
    try:
        _wait_done(page)
        # a second level: the first is set aside ("saved levels (1)") and the preset launches its trajectory
        select = page.locator(".pe-section .pe-paper-preset select").first
        labels = [o for o in select.evaluate("s => Array.from(s.options).map(o => o.text)") if o.startswith("(")]
        other = next(x for x in labels if "2.03" not in x)
        select.select_option(label=other)
        page.wait_for_function("() => { const s = document.querySelector('.pe-section .pe-saved-levels select');"
                               " return !!s && s.options[0].textContent.includes('(1)'); }", timeout=60_000)
        # the message of trajectory #1 still matches DONE: wait for what the chart draws, #2's 500 crossings
        page.wait_for_function("""() => { const gd = document.querySelector('.pe-section-chart .js-plotly-plot');
            return !!gd && gd.data.some(t => t.name === '#2' && t.x && t.x.length >= 500); }""",
                               timeout=120_000, polling=200)
        before = _crossing_traces(page)
        saved_before = _saved_levels(page)
        key = page.evaluate("() => Object.keys(localStorage).find(k => k.startsWith('pendulum-explorer:autosave'))")
        page.wait_for_function("""() => { const k = Object.keys(localStorage).find(k => k.startsWith(
            'pendulum-explorer:autosave')); if (!k) return false; const s = JSON.parse(localStorage.getItem(k));
            return s.levels.length === 2 && s.levels.every(l => JSON.parse(l).launches.every(L => L.n >= 500)); }""",
                               timeout=30_000, polling=200)
        (pid,) = cull_server.kernel_pids()
        t_kill = time.perf_counter()
        os.kill(pid, signal.SIGKILL)
        page.locator(".pe-kernel-lost[data-state='lost']").wait_for(state="visible", timeout=30_000)
        t_banner = time.perf_counter() - t_kill
        text = page.locator(".pe-kernel-lost").inner_text()
        pb.ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(pb.ARTIFACTS / "kernel-lost-1280x720.png"))
        assert "lost its session on the server" in text and "reconnect" in text, text
        # reconnect: a new page on the saved view, the saved levels loaded into its new kernel
        page.locator(".pe-kernel-lost button.pe-reconnect").click()
        pb.wait_for_panels(page, timeout=150_000)
        page.wait_for_function("() => { const m = document.querySelector('.pe-app-message');"
                               " return !!m && m.innerText.includes('Reconnected'); }", timeout=180_000, polling=200)
        pb.show_panel(page, "pe-section")
        pb.wait_plots_quiet(page)
        url = page.url
        after = _crossing_traces(page)
        saved_after = _saved_levels(page)
        header = page.locator(".pe-app-message").first.inner_text()
        page.screenshot(path=str(pb.ARTIFACTS / "kernel-reconnected-1280x720.png"))
        pb.record_timings("kernel_lifecycle", {"banner_after_kill_s": t_banner, "before": before, "after": after,
                                               "saved_before": saved_before, "saved_after": saved_after,
                                               "autosave_key": key, "reconnect_url": url, "header": header})
        assert "launch=" not in url and re.search(r"E=-?\d", url), url
        assert [n for _, n in after] == [n for _, n in before], (before, after)
        assert len(saved_after) == 2 and re.sub(r"·.*", "", saved_after[1]) == re.sub(r"·.*", "", saved_before[1]), \
            (saved_before, saved_after)
        assert "2 levels" in header and page.locator(".pe-kernel-lost").count() == 0, header
        pb.assert_no_traceback(page, "after reconnecting")
    finally:
        page.close()
