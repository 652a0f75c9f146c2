"""Preheated kernels without a browser (issue 23, part 3): the Voila options ``serve`` passes, ``--pool-size``'s
bounds, and the wait for the page's request against Voila's own request-info websocket handler."""
from __future__ import annotations

import asyncio
import json
import threading

import pytest

from pendulum_explorer import cli
from pendulum_explorer.app import shell_links
from pendulum_explorer.server import (POOL_SIZE, POOL_SIZE_MAX, ServeError, check_address, check_pool_size,
                                      query_host)


def test_voila_command_preheats_only_with_a_pool(tmp_path):
    nb = tmp_path / "dashboard.ipynb"
    on = cli.voila_command(nb, "127.0.0.1", 8999, pool_size=3)
    assert "--VoilaConfiguration.preheat_kernel=True" in on
    assert "--VoilaConfiguration.default_pool_size=3" in on
    off = cli.voila_command(nb, "127.0.0.1", 8999)
    options = [a.split("=")[0] for a in off if a.startswith("--")]
    assert not [o for o in options if "preheat" in o or "pool_size" in o or "fill_delay" in o], options


def test_serve_preheats_by_default_and_pool_size_is_bounded(monkeypatch):
    seen = {}
    monkeypatch.setattr(cli, "_run_until_stopped", lambda cmd, env, cwd: seen.update(cmd=cmd, env=env) or 0)
    monkeypatch.setattr(cli, "check_address", lambda h, p: check_address(h, p, probe=False))
    assert cli.main(["serve", "--no-browser", "--no-warmup", "--port", "8998"]) == 0
    assert f"--VoilaConfiguration.default_pool_size={POOL_SIZE}" in seen["cmd"] and POOL_SIZE >= 1
    assert seen["env"]["VOILA_APP_IP"] == "127.0.0.1"
    assert cli.main(["serve", "--no-browser", "--no-warmup", "--port", "8998", "--pool-size", "0"]) == 0
    assert not [a for a in seen["cmd"] if a.startswith("--VoilaConfiguration.preheat")]
    for bad in (-1, POOL_SIZE_MAX + 1):
        with pytest.raises(SystemExit) as exc:
            cli.main(["serve", "--no-browser", "--no-warmup", "--pool-size", str(bad)])
        assert exc.value.code == 2
    with pytest.raises(ServeError, match=r"--pool-size must be an integer in 0\.\.64"):
        check_pool_size(True)


def test_query_host_reaches_the_server():
    assert query_host(check_address("0.0.0.0", 8997, probe=False)) == "127.0.0.1"
    assert query_host(check_address("127.0.0.1", 8997, probe=False)) == "127.0.0.1"
    assert query_host(check_address("::1", 8997, probe=False)) == "[::1]"


def test_request_info_url_is_voilas(monkeypatch):
    """The websocket URL is the one :func:`voila.utils.wait_for_request` connects to, for the same variables."""
    import voila.utils as vu

    env = {"VOILA_PREHEAT": "True", "VOILA_APP_IP": "[::1]", "VOILA_APP_PORT": "8123",
           "VOILA_SERVER_URL": "/sub/", "VOILA_KERNEL_ID": "0b6e1b0c-1111-2222-3333-444455556666"}
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    asked = []

    async def fake(url):
        asked.append(url)

    monkeypatch.setattr(vu, "_get_request_info", fake)
    vu.wait_for_request()
    assert asked == [shell_links.request_info_url()]
    assert asked[0] == "ws://[::1]:8123/sub/voila/query/0b6e1b0c-1111-2222-3333-444455556666"


def test_preheated_kernel_reads_the_link_only_when_the_request_arrives(monkeypatch):
    """Voila's RequestInfoSocketHandler on a loopback port; the request comes 1 s after the kernel asks."""
    import tornado.web
    from voila.request_info_handler import RequestInfoSocketHandler

    kid = "9d1c2a3b-0000-4000-8000-000000000001"
    started = threading.Event()
    box = {}

    def serve():
        loop = asyncio.new_event_loop()
        asyncio.set_event_loop(loop)
        app = tornado.web.Application([(r"/voila/query/(.*)", RequestInfoSocketHandler)])
        server = app.listen(0, address="127.0.0.1")
        box.update(loop=loop, port=next(iter(server._sockets.values())).getsockname()[1], server=server)
        started.set()
        loop.run_forever()

    threading.Thread(target=serve, daemon=True).start()
    assert started.wait(10)
    query = "preset=paper_fig2&tab=section&E=2.03"
    for k, v in {"VOILA_PREHEAT": "True", "VOILA_APP_IP": "127.0.0.1", "VOILA_APP_PORT": str(box["port"]),
                 "VOILA_SERVER_URL": "/", "VOILA_KERNEL_ID": kid, "QUERY_STRING": "stale=1"}.items():
        monkeypatch.setenv(k, v)
    payload = json.dumps({"QUERY_STRING": query, "SCRIPT_NAME": "/"})
    box["loop"].call_soon_threadsafe(box["loop"].call_later, 1.0, RequestInfoSocketHandler.send_updates,
                                     {"kernel_id": kid, "payload": payload})
    try:
        got = shell_links.page_query()
    finally:
        box["loop"].call_soon_threadsafe(box["loop"].stop)
    assert got == query  # the request's, not the environment's at start ("stale=1")


def test_not_preheated_reads_the_environment(monkeypatch):
    monkeypatch.setenv("VOILA_PREHEAT", "False")
    monkeypatch.setenv("QUERY_STRING", "tab=motion")
    assert shell_links.page_query() == "tab=motion"
