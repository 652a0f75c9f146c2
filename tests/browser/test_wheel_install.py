"""``pendulum-explorer serve`` from a non-editable wheel install (issue 9, item 8).

The wheel is built from a copy of the package sources (so the checkout gets no ``build/``), installed with
``--no-deps`` into a fresh virtual environment, and served by that environment's ``pendulum-explorer`` script from
an unrelated working directory; the page must show the dashboard's panels in Chromium.

To keep the test short it re-downloads nothing: the fresh environment sees the test environment's
site-packages through a ``.pth`` path line (a path line, so the editable install's finder there is *not*
activated: ``pendulum_explorer`` can only come from the wheel, which the test checks) and its ``share/jupyter``
(Voila's templates, the widget extensions) through a symlink, which is where a full install would put them.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import time
import zipfile
from pathlib import Path

import pytest

import pe_browser as pb

pytestmark = [pytest.mark.browser, pytest.mark.slow]

SOURCES = ("pyproject.toml", "README.md", "pendulum_explorer")


def _run(cmd, **kw):
    r = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, **kw)
    assert r.returncode == 0, f"{' '.join(map(str, cmd))} failed ({r.returncode}):\n{r.stdout[-3000:]}{r.stderr[-3000:]}"
    return r


def _git_files(prefix):
    """Files of the package tracked by git (None where this is not a git checkout)."""
    try:
        r = subprocess.run(["git", "ls-files", prefix], cwd=pb.ROOT, capture_output=True, text=True)
    except OSError:
        return None
    return [line for line in r.stdout.splitlines() if line] if r.returncode == 0 else None


@pytest.fixture(scope="module")
def wheel_env(tmp_path_factory):
    base = tmp_path_factory.mktemp("wheel")
    timings = {}
    t0 = time.perf_counter()
    src = base / "src"
    src.mkdir()
    for name in SOURCES:
        p = pb.ROOT / name
        if p.is_dir():
            shutil.copytree(p, src / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info"))
        else:
            shutil.copy2(p, src / name)
    dist = base / "dist"
    _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--disable-pip-version-check", "-q", "-w", dist, src],
         cwd=base, timeout=300)
    wheels = list(dist.glob("pendulum_explorer-*.whl"))
    assert len(wheels) == 1, f"expected one wheel, got {wheels}"
    timings["build_wheel_s"] = time.perf_counter() - t0

    # everything the package tracks in git (modules, JavaScript, py.typed, ...) is in the wheel
    names = set(zipfile.ZipFile(wheels[0]).namelist())
    tracked = _git_files("pendulum_explorer")
    if tracked:
        missing = [f for f in tracked if f not in names]
        assert not missing, f"files of the package missing from the wheel (package data?): {missing}"

    t0 = time.perf_counter()
    venv = base / "venv"
    _run([sys.executable, "-m", "venv", "--without-pip", venv], timeout=120)
    py = venv / "bin" / "python"
    _run([sys.executable, "-m", "pip", "--python", py, "install", "--no-deps", "--disable-pip-version-check", "-q",
          wheels[0]], timeout=300)
    site = Path(_run([py, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"]).stdout.strip())
    (site / "_pe_test_dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    share = Path(sys.prefix) / "share" / "jupyter"
    (venv / "share").mkdir(exist_ok=True)
    (venv / "share" / "jupyter").symlink_to(share, target_is_directory=True)
    timings["install_wheel_s"] = time.perf_counter() - t0

    elsewhere = base / "elsewhere"
    elsewhere.mkdir()
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME", "PYTHONSTARTUP") and not k.startswith("JUPYTER")}
    env.update(PATH=f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}", VIRTUAL_ENV=str(venv),
               JUPYTER_CONFIG_DIR=str(base / "jupyter-config"), JUPYTER_RUNTIME_DIR=str(base / "jupyter-runtime"),
               IPYTHONDIR=str(base / "ipython"), PYTHONUNBUFFERED="1",
               # the compiled kernels' cache is keyed by the source path: a fresh install compiles cold; the
               # served page needs only a few of them, compiled on first use (no warm-up)
               PENDULUM_EXPLORER_CACHE_DIR=str(base / "numba-cache"))
    where = _run([py, "-c", "import pendulum_explorer; print(pendulum_explorer.__file__)"], env=env, cwd=elsewhere)
    assert Path(where.stdout.strip()).is_relative_to(site), \
        f"pendulum_explorer imported from {where.stdout.strip()}, not from the wheel in {site}"
    return {"venv": venv, "env": env, "cwd": elsewhere, "timings": timings}


def test_serve_from_wheel(wheel_env, browser):
    """The installed ``pendulum-explorer serve`` (no source tree anywhere) serves a page with every panel."""
    venv, env, cwd, timings = wheel_env["venv"], wheel_env["env"], wheel_env["cwd"], wheel_env["timings"]
    host, port = "127.0.0.1", pb.free_port()
    server = pb.Server([venv / "bin" / "pendulum-explorer", "serve", "--host", host, "--port", port,
                        "--no-browser", "--no-warmup"], host, port, "wheel-serve.log", env=env, cwd=cwd)
    page = None
    try:
        timings["server_startup_s"] = server.wait_ready(timeout=120)
        assert f"Pendulum Explorer dashboard: http://{host}:{port}/" in server.log_text()
        page = browser.new_page()
        t0 = time.perf_counter()
        resp = page.goto(server.url, wait_until="commit", timeout=60_000)
        assert resp is not None and resp.status == 200, f"GET / -> {resp and resp.status}:\n{server.log_tail()}"
        pb.wait_for_panels(page, timeout=120_000)
        pb.show_panel(page, "pe-body", timeout=60_000)
        pb.wait_plot(page, ".pe-body", timeout=120_000)
        timings["first_view_s"] = time.perf_counter() - t0
        pb.element_screenshot(page, ".pe-body", "wheel-panel-body.png")
        pb.assert_no_traceback(page, "served from the wheel")
        kernels = server.kernel_pids()
        assert kernels, "no kernel was started for the page"
        exe = Path(os.readlink(f"/proc/{kernels[0]}/exe")) if Path(f"/proc/{kernels[0]}").exists() else None
        cmd = pb.cmdline(kernels[0])
        assert str(venv) in cmd or (exe and str(venv) in str(exe)), f"the kernel is not the wheel venv's: {cmd}"
    finally:
        if page is not None:
            page.close()
        server.stop()
        pb.record_timings("wheel", timings)
