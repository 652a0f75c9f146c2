"""Preheated kernels (issue 23, part 3): a page opened on a server with a pool of preheated kernels (as
``pendulum-explorer serve`` runs it) shows the view its link asks for, and its kernel was started before the page
was requested.

Before: with Voila's pool on and the dashboard reading ``QUERY_STRING`` when the notebook ran (before any page
asked for it), a deep link opened the start view (the Fig. 1 body on the Body tab).
"""
from __future__ import annotations

import os
import re
import time
from pathlib import Path

import pytest

import pe_browser as pb

pytestmark = [pytest.mark.browser, pytest.mark.slow]

POOL = 2
DEEP = "preset=paper_fig2&tab=section&E=2.03"


@pytest.fixture(scope="module")
def server(chromium):
    srv = pb.voila_server("voila-preheat.log", pool_size=POOL)
    try:
        srv.wait_ready(timeout=120)
        t0 = time.perf_counter()
        while len(srv.kernel_pids()) < POOL and time.perf_counter() - t0 < 120:
            time.sleep(0.5)
        assert len(srv.kernel_pids()) >= POOL, f"the pool did not start: {srv.log_tail()}"
        time.sleep(2.0)  # the pool's kernels run the notebook up to the wait for their page
        yield srv
    finally:
        srv.stop()


def _boot_time() -> float:
    for line in Path("/proc/stat").read_text().splitlines():
        if line.startswith("btime "):
            return float(line.split()[1])
    raise AssertionError("no btime in /proc/stat")


def _start_time(pid: int) -> float:
    """When the process started (seconds since the epoch, to a clock tick), from /proc."""
    stat = Path(f"/proc/{pid}/stat").read_text()
    ticks = int(stat[stat.rfind(")") + 2:].split()[19])
    return _boot_time() + ticks / os.sysconf("SC_CLK_TCK")


def _open(browser, server, query=""):
    page = browser.new_page()
    t_request = time.time()
    page.goto(server.url + (f"?{query}" if query else ""), wait_until="commit", timeout=60_000)
    pb.wait_for_panels(page, timeout=150_000)
    page.locator(".pe-body-in-use").first.wait_for(state="visible", timeout=60_000)
    return page, t_request


def _message(page, words, timeout=120_000):
    page.wait_for_function("""(w) => { const m = document.querySelector('.pe-app-message');
        return !!m && m.innerText.includes(w); }""", arg=words, timeout=timeout, polling=200)
    return page.evaluate("() => document.querySelector('.pe-app-message').innerText.trim()")


def _page_kernel(page, server):
    """The kernel process serving ``page``: the kernel id in Voila's page config, its connection file's name."""
    kid = re.search(r'"kernelId":\s*"([0-9a-f-]{36})"', page.content())
    assert kid, "no kernelId in the page"
    pids = [p for p in server.kernel_pids() if f"kernel-{kid.group(1)}.json" in pb.cmdline(p)]
    assert len(pids) == 1, (kid.group(1), [pb.cmdline(p) for p in server.kernel_pids()])
    return pids[0]


def test_deep_link_on_a_preheated_kernel_opens_its_view(server, browser):
    page, _ = _open(browser, server, DEEP)
    try:
        text = _message(page, "Opened from a link")
        assert "Fig. 2 body (paper)" in text and "E = 2.03 J" in text, text
        assert page.locator(".pe-section").first.is_visible()  # the section tab is open
        assert not page.locator(".pe-body").first.is_visible()
        assert page.locator(".pe-section .pe-energy input").first.input_value() == "2.03"
        assert "Fig. 2 body (paper)" in page.locator(".pe-body-in-use").first.inner_text()
        pb.wait_plot(page, f".{pb.CHART}", timeout=120_000)
        pb.assert_no_traceback(page, "after a deep link on a preheated kernel")
    finally:
        page.close()
    assert server.log_text().count("Using pre-heated kernel") >= 1


def test_plain_link_on_a_preheated_kernel_is_the_start_view_from_a_kernel_started_before(server, browser):
    time.sleep(6.0)  # the pool refilled after the previous test (Voila's fill delay, then a kernel start)
    used_before = server.log_text().count("Using pre-heated kernel")
    page, t_request = _open(browser, server)
    try:
        pb.wait_plot(page, ".pe-body", timeout=120_000)
        assert page.locator(".pe-body").first.is_visible()
        assert "Fig. 1 elliptic cylinder (paper)" in page.locator(".pe-body-in-use").first.inner_text()
        assert page.locator(".pe-guide").first.is_visible()  # the start view's first steps
        started = _start_time(_page_kernel(page, server))
        # the first view came from a kernel that was running before the page was requested (a page that starts
        # its own kernel gives started > t_request)
        assert started < t_request - 1.0, f"kernel started {started - t_request:+.2f} s after the request"
        assert server.log_text().count("Using pre-heated kernel") == used_before + 1
        pb.assert_no_traceback(page, "after a plain link on a preheated kernel")
    finally:
        page.close()
