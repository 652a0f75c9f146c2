"""Fixtures for the end-to-end browser tests: a served dashboard on a free port and headless Chromium.

Chromium missing -> the browser tests skip with the reason, except with ``PE_REQUIRE_BROWSER=1`` (CI), where
they fail.  Server logs, screenshots and ``browser-timings.json`` go to ``test-artifacts/``.
"""
from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

import pe_browser as pb  # noqa: E402


def pytest_collection_modifyitems(config, items):
    here = Path(__file__).resolve().parent
    for item in items:
        if Path(str(item.fspath)).resolve().parent == here:
            item.add_marker(pytest.mark.browser)


@pytest.fixture(scope="session")
def chromium():
    return pb.require_browser()


@pytest.fixture(scope="session")
def dashboard_server(chromium):
    """Voila on the dashboard notebook as ``pendulum-explorer serve`` runs it (``cli.voila_command``), free port."""
    server = pb.voila_server("voila-server.log")
    try:
        startup = server.wait_ready(timeout=120)
        print(f"[browser] voila listening on {server.url} after {startup:.1f} s (pid {server.pid})", flush=True)
        server.startup_s = startup
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def browser(chromium, tmp_path_factory):
    """A persistent headless Chromium context (Debian's binary), shared by the tests of one worker."""
    with pb.browser_context(tmp_path_factory.mktemp("chromium-profile")) as ctx:
        yield ctx


def pytest_terminal_summary(terminalreporter):
    """Print the measured timings at the end of a run (also when the tests ran without ``-s``)."""
    path = pb.TIMINGS_FILE
    if not path.exists():
        return
    try:
        data = json.loads(path.read_text())
    except ValueError:
        return
    if os.path.getmtime(path) < getattr(terminalreporter, "_sessionstarttime", 0):
        return
    terminalreporter.section("Pendulum Explorer browser timings (test-artifacts/browser-timings.json)")
    for section, values in data.items():
        if not isinstance(values, dict):
            continue
        for k, v in values.items():
            if k == "largest_responses":
                continue
            terminalreporter.write_line(f"{section}.{k} = {pb.fmt(v)}")
