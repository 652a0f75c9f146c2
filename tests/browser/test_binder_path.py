"""The Binder path, as closely as this machine allows (issue 5, "binder/").

What repo2docker does for this repository, replayed locally:

1. the repository: this checkout itself by default.  numba's on-disk cache is keyed by the source files' absolute
   paths, so a copy elsewhere starts cold (~100 s CPU of compiling in postBuild), as a real Binder build does;
   ``PE_BINDER_COPY=1`` replays that too, on a copy of the working tree (no ``.git``, ``.venv``, artifacts);
2. a fresh virtual environment with ``pip install -r binder/requirements.txt`` (pip reuses its cache / local
   wheels; nothing from the test environment leaks in: no ``PYTHONPATH``, private Jupyter config/data dirs);
3. ``binder/postBuild`` run from the repository root (installs the package, warms numba's cache);
4. ``jupyter-server`` from that venv with the Voila server extension (enabled by its package), token auth;
5. the dashboard opened in Chromium from ``/voila/render/notebooks/dashboard.ipynb`` (the badge's URL path),
   asserting that the app's panels render;
6. JupyterLab from ``/lab`` on the same server, showing the notebooks/ folder (the teaching notebooks).

Runs in the default suite (about two minutes, mostly pip); ``PE_BINDER_TEST=0`` skips it.
"""
from __future__ import annotations

import os
import secrets
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

import pe_browser as pb

pytestmark = [pytest.mark.browser, pytest.mark.slow]

BINDER_URL_PATH = "/voila/render/notebooks/dashboard.ipynb"
IGNORE = shutil.ignore_patterns(".git", ".venv", "venv", "test-artifacts", "build", "dist", "*.egg-info",
                                ".pytest_cache", ".hypothesis", ".ipynb_checkpoints", "*.tmp")


def _run(cmd, log, **kw):
    t0 = time.perf_counter()
    with open(log, "a") as f:
        f.write(f"\n$ {' '.join(map(str, cmd))}\n")
        f.flush()
        r = subprocess.run([str(c) for c in cmd], stdout=f, stderr=subprocess.STDOUT, **kw)
    dt = time.perf_counter() - t0
    if r.returncode != 0:
        tail = "\n".join(Path(log).read_text(errors="replace").splitlines()[-40:])
        pytest.fail(f"{' '.join(map(str, cmd))} failed with exit code {r.returncode}:\n{tail}", pytrace=False)
    return dt


@pytest.fixture(scope="module")
def binder_server(chromium, tmp_path_factory):
    if os.environ.get("PE_BINDER_TEST", "1") == "0":
        pytest.skip("the Binder-path test is switched off (PE_BINDER_TEST=0)")
    binder = pb.ROOT / "binder"
    assert (binder / "requirements.txt").is_file() or (binder / "environment.yml").is_file(), \
        "binder/ needs requirements.txt (or environment.yml)"
    post = binder / "postBuild"
    assert post.is_file(), "binder/postBuild is missing"
    assert os.access(post, os.X_OK), "binder/postBuild must be executable (repo2docker runs it directly)"

    base = tmp_path_factory.mktemp("binder")
    copy = os.environ.get("PE_BINDER_COPY") == "1"
    repo, venv = (base / "repo" if copy else pb.ROOT), base / "venv"
    pb.ARTIFACTS.mkdir(exist_ok=True)
    log = pb.ARTIFACTS / "binder-build.log"
    log.write_text("")
    timings = {}

    timings["repo"] = "copy" if copy else "checkout"
    if copy:
        t0 = time.perf_counter()
        shutil.copytree(pb.ROOT, repo, ignore=IGNORE, symlinks=True)
        timings["copy_repo_s"] = time.perf_counter() - t0

    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME", "PYTHONSTARTUP") and not k.startswith("JUPYTER")}
    env.update(VIRTUAL_ENV=str(venv), PATH=f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}",
               JUPYTER_CONFIG_DIR=str(base / "jupyter-config"), JUPYTER_DATA_DIR=str(base / "jupyter-data"),
               JUPYTER_RUNTIME_DIR=str(base / "jupyter-runtime"), IPYTHONDIR=str(base / "ipython"),
               PIP_DISABLE_PIP_VERSION_CHECK="1", PYTHONUNBUFFERED="1")
    py = venv / "bin" / "python"

    timings["venv_s"] = _run([sys.executable, "-m", "venv", venv], log, env=env, cwd=base)
    req = repo / "binder" / "requirements.txt"
    if req.exists():
        timings["pip_install_requirements_s"] = _run([py, "-m", "pip", "install", "-r", req], log, env=env,
                                                     cwd=repo, timeout=1500)
    else:  # pragma: no cover - environment.yml needs conda, which repo2docker has and this machine may not
        pytest.skip("binder/environment.yml needs conda; only requirements.txt is replayed here")
    timings["postBuild_s"] = _run([repo / "binder" / "postBuild"], log, env=env, cwd=repo, timeout=1500)

    # the package must come from the copy, in the venv
    where = subprocess.run([py, "-c", "import pendulum_explorer, sys; print(pendulum_explorer.__file__)"],
                           capture_output=True, text=True, env=env, cwd=base)
    assert where.returncode == 0 and str(repo) in where.stdout, \
        f"postBuild did not install the package into the venv: {where.stdout}{where.stderr}"
    ext = subprocess.run([venv / "bin" / "jupyter", "server", "extension", "list"], capture_output=True, text=True,
                         env=env, cwd=repo)
    ext_text = ext.stdout + ext.stderr
    assert "voila" in ext_text and "enabled" in ext_text, f"the Voila server extension is not enabled:\n{ext_text}"
    assert "jupyterlab" in ext_text, f"JupyterLab's server extension is not installed on the Binder path:\n{ext_text}"

    token = secrets.token_hex(16)
    host, port = "127.0.0.1", pb.free_port()
    cmd = [venv / "bin" / "jupyter-server", "--no-browser", f"--ServerApp.ip={host}", f"--ServerApp.port={port}",
           "--ServerApp.port_retries=0", f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={repo}",
           # as `pendulum-explorer serve` does: reclaim abandoned kernels
           "--MappingKernelManager.cull_idle_timeout=600", "--MappingKernelManager.cull_interval=60"]
    if hasattr(os, "geteuid") and os.geteuid() == 0:  # containers / CI run as root; Binder does not
        cmd.append("--allow-root")
    start = repo / "binder" / "start"  # repo2docker wraps the server command in binder/start when present
    if start.exists():
        cmd = [start] + cmd
    server = pb.Server(cmd, host, port, "binder-jupyter-server.log", env=env, cwd=repo,
                       url_path=BINDER_URL_PATH, query=f"token={token}")
    try:
        timings["server_startup_s"] = server.wait_ready(timeout=120)
        server.timings = timings
        yield server
    finally:
        server.stop()
        pb.record_timings("binder", timings)


def test_binder_dashboard_renders(binder_server, browser):
    """The dashboard from /voila/render/notebooks/dashboard.ipynb on the Binder-like server shows its panels."""
    server = binder_server
    page = browser.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    t0 = time.perf_counter()
    try:
        resp = page.goto(server.url, wait_until="commit", timeout=60_000)
        assert resp is not None and resp.status == 200, \
            f"GET {BINDER_URL_PATH} -> {resp and resp.status}; log:\n{server.log_tail()}"
        pb.wait_for_panels(page, timeout=180_000)
        pb.show_panel(page, "pe-body", timeout=60_000)
        pb.wait_plot(page, ".pe-body", timeout=120_000)
        server.timings["first_view_interactive_s"] = time.perf_counter() - t0
        pb.element_screenshot(page, ".pe-body", "binder-panel-body.png")
        # the section tab: its chart (an anywidget drawn with the page's plotly.js) must load on this path too
        t1 = time.perf_counter()
        pb.show_panel(page, "pe-section", timeout=60_000)
        pb.wait_plot(page, f".{pb.CHART}", timeout=120_000)
        server.timings["section_chart_drawn_s"] = time.perf_counter() - t1
        pb.element_screenshot(page, ".pe-section", "binder-panel-section.png")
        pb.assert_no_traceback(page, "on the Binder path")
        errs = page.evaluate("() => Array.from(document.querySelectorAll('.pe-message .pe-message-error'))"
                             ".map(e => e.innerText)")
        assert not errs, f"error messages on the Binder path: {errs}"
        kernels = server.kernel_pids()
        assert kernels, "no kernel was started by the Jupyter server for the Voila page"
        server.timings["kernel_rss_bytes"] = max(pb.rss_bytes(k) for k in kernels)
    finally:
        page.close()
    server.timings["page_errors"] = errors[:10]


def test_binder_serves_jupyterlab(binder_server, browser):
    """``/lab`` on the Binder-like server opens JupyterLab with the repository's notebooks/ folder."""
    server = binder_server
    url = server.url.replace(BINDER_URL_PATH, "/lab/tree/notebooks")
    page = browser.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    t0 = time.perf_counter()
    try:
        resp = page.goto(url, wait_until="commit", timeout=60_000)
        assert resp is not None and resp.status == 200, f"GET /lab -> {resp and resp.status}; log:\n{server.log_tail()}"
        page.wait_for_selector("#jp-main-dock-panel", timeout=120_000)
        # the file browser lists the teaching notebooks
        page.wait_for_function("""() => Array.from(document.querySelectorAll('.jp-DirListing-itemText'))
            .map(e => e.innerText.trim()).includes('dashboard.ipynb')""", timeout=120_000, polling=250)
        server.timings["lab_file_browser_s"] = time.perf_counter() - t0
        names = page.evaluate("""() => Array.from(document.querySelectorAll('.jp-DirListing-itemText'))
            .map(e => e.innerText.trim())""")
        assert {"dashboard.ipynb", "lessons"} <= set(names), names
        pb.ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(pb.ARTIFACTS / "binder-lab.png"))
    finally:
        page.close()
    server.timings["lab_page_errors"] = errors[:10]
