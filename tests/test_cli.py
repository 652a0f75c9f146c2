"""``pendulum-explorer serve``: the dashboard notebook, host/port validation, the URL printed, tokens (issues 9, 10)."""
from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import nbformat
import pytest

from pendulum_explorer import cli, server
from pendulum_explorer.server import Address, ServeError, check_address

ROOT = Path(__file__).resolve().parent.parent


def _free_port(family=socket.AF_INET, host="127.0.0.1"):
    with socket.socket(family, socket.SOCK_STREAM) as s:
        s.bind((host, 0))
        return s.getsockname()[1]


# ------------------------------------------------------------------------------------------------
# the notebook serve writes
# ------------------------------------------------------------------------------------------------
def test_written_notebook_is_valid_and_matches_binder_notebook(tmp_path):
    path = server.write_dashboard_notebook(tmp_path)
    nb = nbformat.read(path, as_version=4)
    nbformat.validate(nb)
    assert [c.source for c in nb.cells] == [server.DASHBOARD_CODE]
    # notebooks/dashboard.ipynb (Binder's URL) runs the same cell
    repo_nb = nbformat.read(ROOT / "notebooks" / "dashboard.ipynb", as_version=4)
    assert [c.source for c in repo_nb.cells if c.cell_type == "code"] == [server.DASHBOARD_CODE]


def test_voila_command_never_moves_port_and_uses_page_kernel_manager(tmp_path):
    nb = server.write_dashboard_notebook(tmp_path)
    cmd = cli.voila_command(nb, "127.0.0.1", 8999)
    assert "--port=8999" in cmd and "--Voila.port_retries=0" in cmd
    assert f"--VoilaConfiguration.multi_kernel_manager_class={cli.PAGE_KERNEL_MANAGER}" in cmd
    assert f"--Voila.root_dir={tmp_path}" in cmd
    assert not any("token" in c.lower() for c in cmd)
    # the token is never on the command line (visible to every user in ps), only the switch that turns it on
    cmd = cli.voila_command(nb, "0.0.0.0", 8999, token="secret")
    assert "--Voila.auto_token=True" in cmd and not any("secret" in c for c in cmd)


def test_page_kernel_manager_imports():
    from pendulum_explorer._page_kernels import PageKernelManager

    assert PageKernelManager.disconnect_grace.default_value == server.DISCONNECT_GRACE > 0


# ------------------------------------------------------------------------------------------------
# host and port
# ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("port", [0, -1, 65536, 99999])
def test_port_out_of_range_is_refused(port):
    with pytest.raises(ServeError, match=r"--port must be in 1\.\.65535"):
        check_address("127.0.0.1", port)


@pytest.mark.parametrize("argv_port", ["99999", "-1", "abc", "80.5"])
def test_cli_refuses_bad_port_without_traceback(argv_port, capsys):
    with pytest.raises(SystemExit) as exc:
        cli.main(["serve", "--port", argv_port, "--no-warmup", "--no-browser"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "--port" in err and "Traceback" not in err


@pytest.mark.parametrize("host", ["no-such-host.invalid", "[::1]", "http://127.0.0.1", " 127.0.0.1"])
def test_bad_host_is_refused(host, capsys):
    with pytest.raises(ServeError, match="--host"):
        check_address(host, 8866, probe=False)
    with pytest.raises(SystemExit) as exc:
        cli.main(["serve", "--host", host, "--no-warmup", "--no-browser"])
    assert exc.value.code == 2 and "--host" in capsys.readouterr().err


def test_port_in_use_is_refused():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        with pytest.raises(ServeError, match=f"--port {port} is already in use"):
            check_address("127.0.0.1", port)


@pytest.mark.parametrize("host, loopback, url", [
    ("127.0.0.1", True, "http://127.0.0.1:{p}/"),
    ("localhost", True, "http://localhost:{p}/"),
    ("::1", True, "http://[::1]:{p}/"),
    ("0.0.0.0", False, None),
    ("::", False, None),
])
def test_address_loopback_and_url(host, loopback, url):
    try:
        port = _free_port(socket.AF_INET6 if ":" in host else socket.AF_INET, "::1" if ":" in host else "127.0.0.1")
    except OSError:
        pytest.skip("no IPv6 on this machine")
    addr = check_address(host, port)
    assert addr.loopback is loopback
    u = addr.url("tok")
    assert u.endswith(f":{port}/?token=tok")
    if url:
        assert u == url.format(p=port) + "?token=tok"
    else:  # a wildcard address is not a URL: the machine's name is printed instead
        assert "://:" not in u and "0.0.0.0" not in u and ":::" not in u
    assert Address("::1", 5, True, socket.AF_INET6).url() == "http://[::1]:5/"


# ------------------------------------------------------------------------------------------------
# token and warnings (Voila itself is not started: subprocess is replaced)
# ------------------------------------------------------------------------------------------------
@pytest.fixture()
def fake_voila(monkeypatch):
    calls = []

    class FakeProc:
        def __init__(self, cmd, env=None, cwd=None):
            nb = Path(cmd[3])
            calls.append({"cmd": cmd, "env": env, "cwd": cwd, "nb_exists": nb.is_file(),
                          "nb_in_cwd": nb.parent == Path(cwd)})

        def wait(self, timeout=None):
            return 0

        def poll(self):
            return 0

    monkeypatch.setattr(cli.subprocess, "Popen", FakeProc)
    monkeypatch.delenv("JUPYTER_TOKEN", raising=False)
    return calls


def test_loopback_serves_without_token_or_warning(fake_voila, capsys):
    port = _free_port()
    assert cli.main(["serve", "--port", str(port), "--no-warmup", "--no-browser"]) == 0
    out, err = capsys.readouterr()
    assert f"Pendulum Explorer dashboard: http://127.0.0.1:{port}/\n" in out
    assert "WARNING" not in err
    (call,) = fake_voila
    assert "JUPYTER_TOKEN" not in call["env"] and not any("token" in c for c in call["cmd"])
    assert call["nb_exists"] and call["nb_in_cwd"], "the notebook is written into the working directory of Voila"


def test_non_loopback_host_requires_generated_token(fake_voila, capsys):
    port = _free_port()
    assert cli.main(["serve", "--host", "0.0.0.0", "--port", str(port), "--no-warmup", "--no-browser"]) == 0
    out, err = capsys.readouterr()
    (call,) = fake_voila
    token = call["env"].get("JUPYTER_TOKEN")
    assert token and len(token) >= 32, "a non-loopback server must get a generated token"
    assert "--Voila.auto_token=True" in call["cmd"]
    assert f":{port}/?token={token}" in out and f"http://127.0.0.1:{port}/?token={token}" in out
    assert "WARNING" in err and "token" in err
    # a second run gets another token
    cli.main(["serve", "--host", "0.0.0.0", "--port", str(port), "--no-warmup", "--no-browser"])
    assert fake_voila[1]["env"]["JUPYTER_TOKEN"] != token


def test_ipv6_wildcard_prints_the_ipv6_loopback_url(fake_voila, capsys):
    """``--host ::`` printed ``http://:::8866/``; tornado binds it IPv6-only, so the local URL is [::1]."""
    try:
        port = _free_port(socket.AF_INET6, "::1")
    except OSError:
        pytest.skip("no IPv6 on this machine")
    assert cli.main(["serve", "--host", "::", "--port", str(port), "--no-warmup", "--no-browser"]) == 0
    out = capsys.readouterr().out
    token = fake_voila[0]["env"]["JUPYTER_TOKEN"]
    assert f"http://[::1]:{port}/?token={token}" in out and ":::" not in out


def test_no_token_opt_out_warns(fake_voila, capsys):
    port = _free_port()
    assert cli.main(["serve", "--host", "0.0.0.0", "--port", str(port), "--no-token", "--no-warmup",
                     "--no-browser"]) == 0
    out, err = capsys.readouterr()
    (call,) = fake_voila
    assert "JUPYTER_TOKEN" not in call["env"] and "token=" not in out
    assert "WARNING" in err and "--no-token" in err and "NO token" in err


def test_cull_settings_reach_voila(fake_voila):
    port = _free_port()
    cli.main(["serve", "--port", str(port), "--no-warmup", "--no-browser", "--cull-idle-timeout", "30",
              "--cull-interval", "5"])
    cmd = fake_voila[0]["cmd"]
    assert "--MappingKernelManager.cull_idle_timeout=30" in cmd and "--MappingKernelManager.cull_interval=5" in cmd
    with pytest.raises(SystemExit):
        cli.main(["serve", "--port", str(port), "--no-warmup", "--cull-interval", "0"])
    # issue 23 item 1 / issue 26 item 10: connected pages are never culled, kernels are capped, the page template
    # without CDN links is used
    assert "--MappingKernelManager.cull_connected=False" in cmd and "--PageKernelManager.max_kernels=20" in cmd
    assert "--VoilaConfiguration.template=pendulum" in cmd and cmd[1:3] == ["-m", "pendulum_explorer.server"]
    cli.main(["serve", "--port", str(port), "--no-warmup", "--no-browser", "--max-kernels", "3"])
    assert "--PageKernelManager.max_kernels=3" in fake_voila[1]["cmd"]
    with pytest.raises(SystemExit):
        cli.main(["serve", "--port", str(port), "--no-warmup", "--max-kernels", "-1"])


# ------------------------------------------------------------------------------------------------
# the real server: the token is enforced, the URL printed is the one served
# ------------------------------------------------------------------------------------------------
def _start(args, tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("JUPYTER")}
    env.update(PYTHONUNBUFFERED="1", JUPYTER_RUNTIME_DIR=str(tmp_path / "rt"), JUPYTER_CONFIG_DIR=str(tmp_path / "cf"))
    log = open(tmp_path / "serve.log", "w")
    proc = subprocess.Popen([sys.executable, "-m", "pendulum_explorer.cli", "serve", "--no-warmup", "--no-browser",
                             *args], stdout=log, stderr=subprocess.STDOUT, env=env, cwd=tmp_path,
                            start_new_session=True)
    return proc, log


def _wait_listen(family, host, port, proc, log_path, timeout=60):
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < timeout:
        assert proc.poll() is None, f"serve exited:\n{log_path.read_text()}"
        with socket.socket(family, socket.SOCK_STREAM) as s:
            s.settimeout(0.5)
            if s.connect_ex((host, port)) == 0:
                return
        time.sleep(0.2)
    raise AssertionError(f"nothing listens on {host}:{port}:\n{log_path.read_text()}")


def _stop(proc, log):
    import signal

    try:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(20)
    except (ProcessLookupError, subprocess.TimeoutExpired):
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(5)
    log.close()


def _status(url):
    req = urllib.request.Request(url, method="GET")
    opener = urllib.request.build_opener(urllib.request.HTTPRedirectHandler())
    try:
        with opener.open(req, timeout=60) as r:  # the status only: the page itself streams while its kernel runs
            return r.status, r.geturl()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.url


def test_served_token_is_enforced(tmp_path):
    """``serve --host 0.0.0.0``: a page without the token is refused; with the printed URL's token it loads."""
    port = _free_port()
    proc, log = _start(["--host", "0.0.0.0", "--port", str(port)], tmp_path)
    try:
        _wait_listen(socket.AF_INET, "127.0.0.1", port, proc, tmp_path / "serve.log")
        text = (tmp_path / "serve.log").read_text()
        line = next(ln for ln in text.splitlines() if ln.startswith("  (all interfaces; on this machine:"))
        url = line.split("machine: ", 1)[1].rstrip(")")
        assert url.startswith(f"http://127.0.0.1:{port}/?token=")
        status, where = _status(f"http://127.0.0.1:{port}/")
        assert status in (401, 403) or "login" in where, f"no token: got {status} at {where}"
        # a wrong token does not help; the printed one does
        status, where = _status(f"http://127.0.0.1:{port}/?token=wrong")
        assert status in (401, 403) or "login" in where, f"wrong token: got {status} at {where}"
        status, where = _status(url)
        assert status == 200 and "login" not in where, f"the printed URL was refused ({status} at {where})"
    finally:
        _stop(proc, log)


def test_ipv6_loopback_url_is_bracketed_and_served(tmp_path):
    try:
        port = _free_port(socket.AF_INET6, "::1")
    except OSError:
        pytest.skip("no IPv6 loopback on this machine")
    proc, log = _start(["--host", "::1", "--port", str(port)], tmp_path)
    try:
        _wait_listen(socket.AF_INET6, "::1", port, proc, tmp_path / "serve.log")
        assert f"Pendulum Explorer dashboard: http://[::1]:{port}/\n" in (tmp_path / "serve.log").read_text()
    finally:
        _stop(proc, log)


def test_warmup_jobs_two_only_with_a_free_second_core(monkeypatch):
    import os

    for cores, load, want in ((2, 0.3, 2), (2, 1.5, 1), (1, 0.0, 1), (8, 6.5, 2), (1.5, 0.0, 1)):
        monkeypatch.setattr(cli, "_usable_cores", lambda c=cores: c)
        monkeypatch.setattr(os, "getloadavg", lambda x=load: (x, x, x))
        assert cli.warmup_jobs() == want, (cores, load)


def test_warmup_command_passes_jobs(monkeypatch):
    from pendulum_explorer import _jit, _warmup

    got = []
    monkeypatch.setattr(_warmup, "run", lambda jobs=1: got.append(jobs))
    monkeypatch.setattr(_jit, "prune_stale_caches", lambda *a: [])
    monkeypatch.setattr(cli, "warmup_jobs", lambda: 2)
    assert cli.main(["warmup", "--jobs", "1"]) == 0
    assert cli.main(["warmup"]) == 0
    assert got == [1, 2]
    with pytest.raises(SystemExit):
        cli.main(["warmup", "--jobs", "3"])


def test_the_deploying_page_states_the_servers_kernel_rules():
    """docs/deploying.md says what ``serve`` does with kernels, with its defaults (it said "kernels idle for 10
    minutes are culled": the defect of a page dying after 10 idle minutes, long fixed in the server)."""
    from pathlib import Path

    from pendulum_explorer.server import CULL_IDLE_TIMEOUT, MAX_KERNELS, POOL_SIZE

    text = " ".join((Path(__file__).resolve().parent.parent / "docs" / "deploying.md").read_text().split())
    assert "10 minutes" not in text
    assert "as long as its page is open" in text
    assert f"never connected ends after {CULL_IDLE_TIMEOUT} s" in text
    assert f"At most {MAX_KERNELS} kernels" in text and f"{POOL_SIZE} kernels are started ahead" in text
