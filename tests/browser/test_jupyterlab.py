"""The dashboard and the library's figures inside a JupyterLab notebook (issue 14, part 2).

JupyterLab is started the way ``python3 tools/dev.py lab`` starts it (``tools/dev.py: lab_command``), but on a free
loopback port with a known token and on a temporary copy of a notebook whose cells are: ``build_app()``, a Fig. 1
sphere, a Fig. 2 section chart and a body preview.  Chromium opens the notebook, runs every cell (JupyterLab's
``notebook:run-all-cells`` command) and checks that the four dashboard panels and the three figures are drawn in
the cell outputs, without an error output.  Screenshots: ``test-artifacts/jupyterlab-*.png``.
"""
from __future__ import annotations

import importlib.util
import json
import os
import secrets
import sys
import time

import pytest

import pe_browser as pb

pytestmark = [pytest.mark.browser, pytest.mark.slow]

CELLS = [
    "from pendulum_explorer.app import build_app\n\nbuild_app()",
    "from pendulum_explorer.plotting import paper\n\npaper.fig1_figures()['b']",
    "paper.fig2_figures(0.0, n=300)['b']",
    "from pendulum_explorer import presets\nfrom pendulum_explorer.plotting.body import body_preview_figure\n\n"
    "body_preview_figure(presets.paper_fig1())",
]


LESSON = "03_analytic_anchors.ipynb"


def _dev():
    spec = importlib.util.spec_from_file_location("pe_dev", pb.ROOT / "tools" / "dev.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="module")
def lab_server(chromium, tmp_path_factory):
    try:
        import jupyterlab  # noqa: F401
    except ImportError as exc:
        msg = f"JupyterLab is not installed ({exc}); pip install -e .[lab]"
        if os.environ.get("PE_REQUIRE_BROWSER") == "1":
            pytest.fail(msg, pytrace=False)
        pytest.skip(msg)
    root = tmp_path_factory.mktemp("lab")
    nb = {"cells": [{"cell_type": "code", "execution_count": None, "id": f"c{i}", "metadata": {}, "outputs": [],
                     "source": src} for i, src in enumerate(CELLS)],
          "metadata": {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"}},
          "nbformat": 4, "nbformat_minor": 5}
    (root / "in_lab.ipynb").write_text(json.dumps(nb))
    # a lesson as a student opens it (the solution version: its check cells must say "correct")
    (root / LESSON).write_bytes((pb.ROOT / "notebooks" / "lessons" / "solutions" / LESSON).read_bytes())
    # no "get notified about Jupyter news?" toast over the screenshots
    news = root / ".jupyter-config" / "lab" / "user-settings" / "@jupyterlab" / "apputils-extension"
    news.mkdir(parents=True)
    (news / "notification.jupyterlab-settings").write_text(json.dumps({"fetchNews": "false"}))
    dev = _dev()
    cmd = dev.lab_command()
    assert cmd[:3] == ["-m", "jupyter", "lab"] and any(c == f"--ServerApp.root_dir={pb.ROOT / 'notebooks'}"
                                                        for c in cmd)
    token = secrets.token_hex(16)
    host, port = "127.0.0.1", pb.free_port()
    cmd = [sys.executable] + [c for c in cmd if not c.startswith("--ServerApp.root_dir=")] + [
        f"--ServerApp.root_dir={root}", "--no-browser", f"--ServerApp.ip={host}", f"--ServerApp.port={port}",
        "--ServerApp.port_retries=0", f"--IdentityProvider.token={token}", "--LabApp.expose_app_in_browser=True",
        "--LabApp.news_url=", "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate"]
    env = {k: v for k, v in os.environ.items() if not k.startswith("JUPYTER")}
    env.update(JUPYTER_CONFIG_DIR=str(root / ".jupyter-config"), JUPYTER_RUNTIME_DIR=str(root / ".jupyter-runtime"),
               PYTHONUNBUFFERED="1")
    env["PYTHONPATH"] = os.pathsep.join([str(pb.ROOT)] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
    server = pb.Server(cmd, host, port, "jupyterlab-server.log", env=env, cwd=root,
                       url_path="/lab/tree/in_lab.ipynb", query=f"token={token}")
    try:
        server.startup_s = server.wait_ready(timeout=120)
        yield server
    finally:
        server.stop()


def _outputs(page):
    return page.evaluate("""() => Array.from(document.querySelectorAll('.jp-Notebook .jp-Cell')).map(c => ({
        n: c.querySelectorAll('.jp-OutputArea-output').length,
        error: c.querySelectorAll('[data-mime-type="application/vnd.jupyter.stderr"], .jp-RenderedText[data-mime-type="application/vnd.jupyter.error"]').length,
        plots: c.querySelectorAll('.js-plotly-plot').length,
        text: (c.querySelector('.jp-OutputArea') || {innerText: ''}).innerText.slice(0, 300)}))""")


def test_dashboard_and_figures_render_in_jupyterlab(lab_server, browser):
    server = lab_server
    page = browser.new_page()
    page.set_viewport_size({"width": 1280, "height": 900})
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    timings = {"server_startup_s": server.startup_s}
    try:
        t0 = time.perf_counter()
        page.goto(server.url, wait_until="commit", timeout=60_000)
        page.wait_for_function("() => window.jupyterapp && document.querySelectorAll('.jp-Notebook .jp-Cell').length"
                               f" >= {len(CELLS)}", timeout=120_000, polling=250)
        # the kernel must be idle before "run all" (otherwise the command waits for it)
        page.wait_for_function("""() => { const w = window.jupyterapp.shell.currentWidget;
            return w && w.sessionContext && w.sessionContext.session && w.sessionContext.session.kernel &&
                   w.sessionContext.session.kernel.status === 'idle'; }""", timeout=120_000, polling=250)
        timings["notebook_open_s"] = time.perf_counter() - t0
        t1 = time.perf_counter()
        page.evaluate("() => window.jupyterapp.commands.execute('notebook:run-all-cells')")
        try:
            pb.wait_for_panels(page, timeout=180_000)
        except AssertionError as exc:
            raise AssertionError(f"{exc}\ncell outputs: {_outputs(page)}\nlog:\n{server.log_tail(30)}") from None
        timings["dashboard_panels_s"] = time.perf_counter() - t1
        pb.show_panel(page, "pe-body", timeout=60_000)
        pb.wait_plot(page, ".pe-body", timeout=120_000)
        # the three library figures: plotly graph divs in the outputs of cells 2-4
        page.wait_for_function("""(n) => { const cells = document.querySelectorAll('.jp-Notebook .jp-Cell');
            if (cells.length < n) return false;
            for (let i = 1; i < n; i++) { const gd = cells[i].querySelector('.jp-OutputArea .js-plotly-plot');
                if (!gd || !gd._fullLayout || !gd.querySelector('.main-svg')) return false; }
            return true; }""", arg=len(CELLS), timeout=180_000, polling=250)
        timings["all_outputs_s"] = time.perf_counter() - t1
        outs = _outputs(page)
        assert all(o["error"] == 0 for o in outs), f"an error output in JupyterLab: {outs}"
        assert [o["plots"] >= 1 for o in outs[1:]] == [True] * (len(CELLS) - 1), outs
        titles = page.evaluate("""() => Array.from(document.querySelectorAll('.jp-Notebook .jp-Cell')).slice(1)
            .map(c => { const gd = c.querySelector('.js-plotly-plot');
                        return gd && gd.layout && gd.layout.title ? (gd.layout.title.text || '') : ''; })""")
        assert titles[0].startswith("Fig. 1 (b)") and titles[1].startswith("Fig. 2 (b)"), titles
        pb.assert_no_traceback(page, "in JupyterLab")
        pb.ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(pb.ARTIFACTS / "jupyterlab-dashboard.png"))
        pb.element_screenshot(page, ".jp-Notebook .jp-Cell:nth-child(2) .jp-OutputArea", "jupyterlab-fig1.png")
        pb.element_screenshot(page, ".jp-Notebook .jp-Cell:nth-child(3) .jp-OutputArea", "jupyterlab-fig2.png")
    finally:
        page.close()
        timings["page_errors"] = errors[:10]
        pb.record_timings("jupyterlab", timings)


def test_a_lesson_runs_in_jupyterlab(lab_server, browser):
    """Lesson 3 (solution version) opened and run in JupyterLab in Chromium: every code cell executed, no error
    output, its check cells print "correct"; screenshot ``test-artifacts/jupyterlab-lesson03.png`` (the notebook
    as the run leaves it: its last cells, the check outputs and the dashboard link)."""
    server = lab_server
    # ?reset: a clean workspace (the one saved by the other test would bring in_lab.ipynb back as the current tab)
    url = server.url.replace("/lab/tree/in_lab.ipynb", f"/lab/tree/{LESSON}") + "&reset"
    page = browser.new_page()
    page.set_viewport_size({"width": 1280, "height": 900})
    try:
        page.goto(url, wait_until="commit", timeout=60_000)
        page.wait_for_function("""(lesson) => { const w = window.jupyterapp && window.jupyterapp.shell.currentWidget;
            return w && w.context && w.context.path.endsWith(lesson) && w.content && w.content.widgets.length > 3
                   && w.sessionContext && w.sessionContext.session && w.sessionContext.session.kernel &&
                   w.sessionContext.session.kernel.status === 'idle'; }""", arg=LESSON, timeout=120_000,
                               polling=250)
        n_code = page.evaluate("""() => window.jupyterapp.shell.currentWidget.content.widgets
            .filter(c => c.model.type === 'code').length""")
        page.evaluate("() => window.jupyterapp.commands.execute('notebook:run-all-cells')")
        # done when every code cell has an execution count and the kernel is idle again
        page.wait_for_function("""() => { const w = window.jupyterapp.shell.currentWidget;
            const code = w.content.widgets.filter(c => c.model.type === 'code');
            return code.every(c => c.model.executionCount !== null) &&
                   w.sessionContext.session.kernel.status === 'idle'; }""", timeout=240_000, polling=500)
        text = page.evaluate("""() => window.jupyterapp.shell.currentWidget.content.widgets
            .filter(c => c.model.type === 'code').map(c => c.node.querySelector('.jp-OutputArea') ?
                c.node.querySelector('.jp-OutputArea').innerText : '').join('\\n')""")
        errors = page.evaluate("""() => document.querySelectorAll(
            '.jp-RenderedText[data-mime-type="application/vnd.jupyter.error"]').length""")
        assert n_code >= 5 and errors == 0, text[-2000:]
        assert "correct" in text and "not quite" not in text and "not yet" not in text, text[-2000:]
        pb.ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(pb.ARTIFACTS / "jupyterlab-lesson03.png"))
    except Exception:
        pb.ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(pb.ARTIFACTS / "jupyterlab-lesson03-failed.png"))
        raise
    finally:
        page.close()
