"""Helpers for the end-to-end browser tests of the dashboard (Voila + Debian's Chromium via Playwright).

Everything here talks to the page only through the stable hooks of issue 5:

* panel top widgets carry the CSS classes ``pe-body``, ``pe-equilibria``, ``pe-section``, ``pe-motion``;
* the clickable section chart carries ``pe-section-chart`` on its widget (the plotly graph div is inside);
* each panel's message area carries ``pe-message``.

Figures are read from the DOM: a plotly graph div (``.js-plotly-plot``) holds ``.data`` (the traces),
``.layout`` and ``._fullLayout`` (axis ranges after autorange, the slider state, ...).
"""
from __future__ import annotations

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import time
from contextlib import contextmanager
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts"
TIMINGS_FILE = ARTIFACTS / "browser-timings.json"

PANELS = ("pe-body", "pe-equilibria", "pe-section", "pe-motion")
CHART = "pe-section-chart"
MESSAGE = "pe-message"

CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
VIEWPORT = {"width": 1280, "height": 720}  # the classroom projector of issue 5


# ------------------------------------------------------------------------------------------------
# browser availability
# ------------------------------------------------------------------------------------------------
def chromium_path():
    return shutil.which("chromium") or shutil.which("chromium-browser")


def require_browser():
    """Debian's Chromium and the playwright package, or skip (fail when PE_REQUIRE_BROWSER=1, as in CI)."""
    problems = []
    if chromium_path() is None:
        problems.append("Debian's `chromium` is not on PATH (apt-get install chromium; never `playwright install`)")
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError as exc:  # pragma: no cover - depends on the environment
        problems.append(f"the playwright python package is missing ({exc}); pip install -e .[test]")
    if problems:
        reason = "browser tests need: " + "; ".join(problems)
        if os.environ.get("PE_REQUIRE_BROWSER") == "1":
            pytest.fail(reason + " [PE_REQUIRE_BROWSER=1]", pytrace=False)
        pytest.skip(reason)
    return chromium_path()


@contextmanager
def browser_context(user_data_dir):
    """A persistent headless Chromium context (Debian's binary, SwiftShader WebGL)."""
    from playwright.sync_api import sync_playwright

    exe = require_browser()
    with sync_playwright() as pw:
        ctx = pw.chromium.launch_persistent_context(
            str(user_data_dir), executable_path=exe, headless=True, args=CHROMIUM_ARGS,
            viewport=VIEWPORT)
        ctx.set_default_timeout(60_000)
        ctx.pe_playwright = pw  # for a second, non-persistent browser (touch devices: ``touch_page``)
        try:
            yield ctx
        finally:
            ctx.close()


#: the touch devices of issue 23 (a tablet and a phone, portrait)
TABLET = {"width": 820, "height": 1180}
PHONE = {"width": 390, "height": 844}


@contextmanager
def touch_page(ctx, viewport):
    """A page in a new touch context (``has_touch``, ``is_mobile``) of a second headless Chromium launched by the
    playwright of ``ctx`` (the persistent context of :func:`browser_context`)."""
    pw = ctx.pe_playwright
    browser = pw.chromium.launch(executable_path=require_browser(), headless=True, args=CHROMIUM_ARGS)
    try:
        touch = browser.new_context(viewport=viewport, has_touch=True, is_mobile=True, device_scale_factor=2)
        touch.set_default_timeout(60_000)
        yield touch.new_page()
    finally:
        browser.close()


# ------------------------------------------------------------------------------------------------
# servers
# ------------------------------------------------------------------------------------------------
def free_port(host="127.0.0.1"):
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((host, 0))
        return s.getsockname()[1]


def port_open(host, port):
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.settimeout(0.5)
        return s.connect_ex((host, port)) == 0


class Server:
    """A server subprocess (Voila or Jupyter server) with its log in ``test-artifacts/``.

    Readiness is a TCP probe of the port only: every GET of the Voila page starts a kernel.
    """

    def __init__(self, cmd, host, port, log_name, env=None, cwd=None, url_path="/", query=""):
        self.cmd, self.host, self.port = [str(c) for c in cmd], host, port
        self.url = f"http://{host}:{port}{url_path}" + (f"?{query}" if query else "")
        ARTIFACTS.mkdir(exist_ok=True)
        self.log_path = ARTIFACTS / log_name
        self._log = open(self.log_path, "w")
        self.proc = subprocess.Popen(self.cmd, stdout=self._log, stderr=subprocess.STDOUT, env=env,
                                     cwd=str(cwd or ROOT), start_new_session=True)
        self.pid = self.proc.pid

    def wait_ready(self, timeout=120):
        t0 = time.perf_counter()
        while time.perf_counter() - t0 < timeout:
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited with code {self.proc.returncode} before listening; "
                                   f"log:\n{self.log_tail()}")
            if port_open(self.host, self.port):
                return time.perf_counter() - t0
            time.sleep(0.1)
        raise RuntimeError(f"server did not listen on {self.host}:{self.port} within {timeout} s; "
                           f"log:\n{self.log_tail()}")

    def log_text(self):
        if not self._log.closed:
            self._log.flush()
        try:
            return self.log_path.read_text(errors="replace")
        except OSError:
            return ""

    def log_tail(self, n=60):
        return "\n".join(self.log_text().splitlines()[-n:])

    def kernel_pids(self):
        return kernel_pids(self.pid)

    def stop(self):
        kids = descendants(self.pid)
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)  # jupyter servers shut their kernels down on SIGINT x2 / SIGTERM
            try:
                self.proc.wait(3)
            except subprocess.TimeoutExpired:
                self.proc.terminate()
                try:
                    self.proc.wait(10)
                except subprocess.TimeoutExpired:
                    self.proc.kill()
                    self.proc.wait(5)
        for pid in kids:  # kernels left behind (only processes this server started)
            try:
                os.kill(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        self._log.close()


def voila_server(log_name="voila-server.log", notebook=None, extra_args=(), **voila_kw):
    """Voila as ``pendulum-explorer serve`` runs it (``cli.voila_command``) on a free loopback port, on the
    dashboard notebook that ``serve`` writes (into a temporary directory) unless ``notebook`` is given."""
    import tempfile

    from pendulum_explorer.cli import voila_command
    from pendulum_explorer.server import write_dashboard_notebook

    if notebook is None:
        notebook = write_dashboard_notebook(tempfile.mkdtemp(prefix="pe-dashboard-"))
    host, port = "127.0.0.1", free_port()
    cmd = voila_command(notebook, host, port, open_browser=False, **voila_kw) + list(extra_args)
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    # the kernel must import this checkout even where it is not pip-installed (editable installs: harmless)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT)] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
    return Server(cmd, host, port, log_name, env=env)


# ------------------------------------------------------------------------------------------------
# processes (/proc)
# ------------------------------------------------------------------------------------------------
def _ppid_map():
    out = {}
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            stat = (d / "stat").read_text()
        except OSError:
            continue
        # pid (comm) state ppid ...  -- comm may contain spaces/parentheses
        rest = stat[stat.rfind(")") + 2:].split()
        out[int(d.name)] = int(rest[1])
    return out


def descendants(pid):
    ppid = _ppid_map()
    found, frontier = [], [pid]
    while frontier:
        p = frontier.pop()
        kids = [c for c, pp in ppid.items() if pp == p]
        found.extend(kids)
        frontier.extend(kids)
    return found


def cmdline(pid):
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def kernel_pids(server_pid):
    return [p for p in descendants(server_pid) if "ipykernel" in cmdline(p)]


def memory(pid):
    """RSS, PSS and USS (private) bytes of a process from /proc (0 when it is gone)."""
    out = {"rss": rss_bytes(pid), "pss": 0, "uss": 0}
    try:
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            k, _, v = line.partition(":")
            if k == "Pss":
                out["pss"] = int(v.split()[0]) * 1024
            elif k in ("Private_Clean", "Private_Dirty"):
                out["uss"] += int(v.split()[0]) * 1024
    except OSError:
        pass
    return out


def rss_bytes(pid):
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


# ------------------------------------------------------------------------------------------------
# network accounting (CDP)
# ------------------------------------------------------------------------------------------------
class NetworkMeter:
    """Bytes a page transferred: HTTP bodies+headers (``encodedDataLength``) and websocket frame payloads."""

    def __init__(self, context, page):
        self.http = 0
        self.ws_in = 0
        self.ws_out = 0
        self.n_responses = 0
        self.largest = []
        self._urls = {}
        self.cdp = context.new_cdp_session(page)
        self.cdp.on("Network.responseReceived", self._on_response)
        self.cdp.on("Network.loadingFinished", self._on_finished)
        self.cdp.on("Network.webSocketFrameReceived", self._on_ws_in)
        self.cdp.on("Network.webSocketFrameSent", self._on_ws_out)
        self.cdp.send("Network.enable")

    def _on_response(self, ev):
        self._urls[ev["requestId"]] = ev["response"]["url"]

    def _on_finished(self, ev):
        n = int(ev.get("encodedDataLength", 0))
        self.http += n
        self.n_responses += 1
        self.largest.append((n, self._urls.get(ev["requestId"], "?")))

    @staticmethod
    def _payload_len(ev):
        r = ev.get("response", {})
        data = r.get("payloadData", "")
        # opcode 2 = binary frame, delivered base64-encoded
        return len(data) * 3 // 4 if r.get("opcode") == 2 else len(data.encode())

    def _on_ws_in(self, ev):
        self.ws_in += self._payload_len(ev)

    def _on_ws_out(self, ev):
        self.ws_out += self._payload_len(ev)

    @property
    def total(self):
        return self.http + self.ws_in + self.ws_out

    def summary(self):
        top = sorted(self.largest, reverse=True)[:5]
        return {"http_bytes": self.http, "websocket_in_bytes": self.ws_in, "websocket_out_bytes": self.ws_out,
                "total_bytes": self.total, "responses": self.n_responses,
                "largest_responses": [{"bytes": n, "url": re.sub(r"\?.*", "", u)} for n, u in top]}


# ------------------------------------------------------------------------------------------------
# page helpers
# ------------------------------------------------------------------------------------------------
_TEXT_JS = "el => el.innerText"


def page_text(page):
    return page.evaluate("() => document.body ? document.body.innerText : ''")


def assert_no_traceback(page, where=""):
    text = page_text(page)
    for bad in ("Traceback (most recent call last)", "Error in callback"):
        assert bad not in text, f"a traceback reached the page {where}:\n{text[-3000:]}"


def wait_for_panels(page, timeout=90_000):
    """Wait until every panel hook is attached to the DOM; raise with the list of missing hooks."""
    t0 = time.perf_counter()
    deadline = t0 + timeout / 1000
    missing = list(PANELS)
    while time.perf_counter() < deadline:
        missing = [c for c in PANELS if page.locator(f".{c}").count() == 0]
        if not missing:
            return time.perf_counter() - t0
        if page.locator(".jp-OutputArea-output .jp-RenderedText[data-mime-type='application/vnd.jupyter.stderr']").count():
            pass  # stderr is hidden by Voila (show_tracebacks=False); keep waiting, the assertion below reports
        page.wait_for_timeout(200)
    raise AssertionError(f"panels missing from the page after {timeout / 1000:.0f} s: {missing} "
                         f"(expected CSS hooks {list(PANELS)}); page text: {page_text(page)[:1500]!r}")


def tab_titles(page):
    return page.evaluate("""() => Array.from(document.querySelectorAll('.lm-TabBar-tab, .p-TabBar-tab'))
        .map(t => t.innerText.trim())""")


def show_panel(page, cls, timeout=30_000):
    """Make the panel ``.cls`` visible: if it sits in a hidden tab (or accordion section), open that tab."""
    loc = page.locator(f".{cls}").first
    loc.wait_for(state="attached", timeout=timeout)
    if loc.is_visible():
        return loc
    # ipywidgets 8 Tab: lumino tab bar + stacked panel; the index of the tab = index of the child
    opened = page.evaluate(
        """(cls) => {
            const el = document.querySelector('.' + cls);
            let node = el;
            while (node && node.parentElement) {
                const parent = node.parentElement;
                // a lumino StackedPanel inside a TabPanel / ipywidgets Tab
                const pc = parent.classList;
                if (pc.contains('lm-StackedPanel') || pc.contains('p-StackedPanel') || pc.contains('widget-tab-contents')
                    || pc.contains('jupyter-widget-TabPanel-tabContents')) {
                    const idx = Array.from(parent.children).filter(
                        c => c.classList.contains('lm-Widget') || c.classList.contains('p-Widget')).indexOf(node);
                    const tabPanel = parent.parentElement;
                    const bar = tabPanel && tabPanel.querySelector(':scope > .lm-TabBar, :scope > .p-TabBar, :scope > .widget-tab-bar');
                    if (bar && idx >= 0) {
                        const tabs = bar.querySelectorAll('.lm-TabBar-tab, .p-TabBar-tab');
                        if (tabs[idx]) return {kind: 'tab', index: idx, title: tabs[idx].innerText.trim()};
                    }
                }
                // accordion (ipywidgets 8): .jupyter-widget-Collapse with a header
                if (parent.classList.contains('jupyter-widget-Collapse-contents') ||
                    parent.classList.contains('lm-Collapse-contents')) {
                    const head = parent.parentElement.querySelector(
                        ':scope > .jupyter-widget-Collapse-header, :scope > .lm-Collapse-header');
                    if (head) return {kind: 'accordion', title: head.innerText.trim()};
                }
                node = parent;
            }
            return null;
        }""", cls)
    if opened:
        # lumino re-renders its tab nodes: find the tab again by its title and let playwright scroll to it
        sel = ".lm-TabBar-tab, .p-TabBar-tab" if opened["kind"] == "tab" else \
            ".jupyter-widget-Collapse-header, .lm-Collapse-header"
        page.locator(sel).filter(has_text=opened["title"]).first.click()
    try:
        loc.wait_for(state="visible", timeout=timeout)
    except Exception as exc:
        raise AssertionError(f"panel .{cls} is in the DOM but could not be made visible "
                             f"(tabs: {tab_titles(page)}; tab found: {opened})") from exc
    return loc


PLOT_READY_JS = """(el) => {
    const gd = el.classList.contains('js-plotly-plot') ? el : el.querySelector('.js-plotly-plot');
    return !!(gd && gd._fullLayout && gd.data && gd.querySelector('.main-svg'));
}"""


def plot_locator(page, selector):
    """The plotly graph div of ``selector`` (the element itself when it is one, else its first plot)."""
    loc = page.locator(selector).first
    if loc.evaluate("el => el.classList.contains('js-plotly-plot')"):
        return loc
    inner = page.locator(f"{selector} .js-plotly-plot").first
    if inner.count():
        return inner
    # a FigureWidget carries the class on its outer element in some versions: look inside it
    return loc


def wait_plot(page, selector, timeout=60_000):
    try:
        page.wait_for_function(
            f"""(sel) => {{ const el = document.querySelector(sel); if (!el) return false;
                return ({PLOT_READY_JS})(el); }}""", arg=selector, timeout=timeout, polling=100)
    except Exception as exc:  # what the page showed instead (a failed CI run said only "Timeout exceeded")
        raise AssertionError(f"no plot drawn in {selector} after {timeout / 1000:.0f} s: {plot_state(page, selector)}"
                             ) from exc
    return plot_locator(page, selector)


def plot_state(page, selector):
    """What the page shows at ``selector``: whether it exists and is visible, its plots and their state, the
    messages of the panel around it, a drawing error, and the page errors collected in ``page.errors``."""
    try:
        state = page.evaluate("""(sel) => { const el = document.querySelector(sel);
            if (!el) return {exists: false};
            const panel = el.closest('.pe-body, .pe-equilibria, .pe-section, .pe-motion') || el;
            const plots = Array.from(el.querySelectorAll('.js-plotly-plot, .pe-plotly'));
            return {exists: true, visible: el.offsetParent !== null, width: el.offsetWidth,
                    plots: plots.map(gd => ({cls: gd.className, layout: !!gd._fullLayout, svg: !!gd.querySelector('.main-svg'),
                                            text: gd.children.length ? '' : gd.textContent.slice(0, 200)})),
                    messages: Array.from(panel.querySelectorAll('.pe-message')).map(m => m.innerText.trim()).filter(t => t),
                    views_waiting: (window.__pe && window.__pe.views) ? Array.from((window.__pe && window.__pe.views)).filter(f => f()).length : null,
                    app_message: (document.querySelector('.pe-app-message') || {}).innerText || ''}; }""", selector)
    except Exception as exc:  # noqa: BLE001 - a closed or busy page
        state = f"(could not read the page: {exc})"
    return {"state": state, "page_errors": list(getattr(page, "errors", []))[:10]}


TRACES_JS = """(el) => {
    const gd = el.classList.contains('js-plotly-plot') ? el : el.querySelector('.js-plotly-plot');
    const arr = (a) => a == null ? null : Array.from(a);
    return gd.data.map((t, i) => ({
        index: i, type: t.type || 'scatter', name: t.name == null ? null : String(t.name),
        mode: t.mode || null, uid: t.uid || null, visible: t.visible === undefined ? true : t.visible,
        meta: t.meta === undefined ? null : t.meta,
        n: t.x ? t.x.length : (t.lat ? t.lat.length : (t.z && !Array.isArray(t.z[0]) ? t.z.length : 0)),
        x: arr(t.x), y: arr(t.y), z: t.z == null ? null : Array.from(t.z, r => (r && r.length !== undefined && typeof r !== 'string') ? Array.from(r) : r),
    }));
}"""


def traces(plot):
    """All traces of a plotly graph div (as dicts with type, name, n points, x, y, z, meta)."""
    return plot.evaluate(TRACES_JS)


def trace_summary(plot):
    """A cheap signature of a plot: (type, name, n points, first/last x) per trace."""
    return plot.evaluate("""(el) => {
        const gd = el.classList.contains('js-plotly-plot') ? el : el.querySelector('.js-plotly-plot');
        const pick = (a) => (a && a.length) ? [a[0], a[a.length - 1], a[Math.floor(a.length / 2)]] : null;
        return JSON.stringify(gd.data.map(t => [t.type, t.name, t.x ? t.x.length : 0, pick(t.x), pick(t.y),
            t.z && t.z.length ? (Array.isArray(t.z[0]) || (t.z[0] && t.z[0].length) ? [t.z.length, pick(Array.from(t.z[0]))]
                                                                   : pick(Array.from(t.z))) : null]));
    }""")


def axis_geometry(plot):
    """Pixel box of the main cartesian subplot (``.nsewdrag``) and its axis ranges/types."""
    return plot.evaluate("""(el) => {
        const gd = el.classList.contains('js-plotly-plot') ? el : el.querySelector('.js-plotly-plot');
        const drag = gd.querySelector('.nsewdrag');
        const r = drag.getBoundingClientRect();
        const fl = gd._fullLayout;
        return {left: r.left, top: r.top, width: r.width, height: r.height,
                xrange: fl.xaxis.range.slice(), yrange: fl.yaxis.range.slice(),
                xtype: fl.xaxis.type, ytype: fl.yaxis.type,
                xtitle: (fl.xaxis.title && fl.xaxis.title.text) || '', ytitle: (fl.yaxis.title && fl.yaxis.title.text) || ''};
    }""")


def data_to_pixel(geom, x, y):
    (x0, x1), (y0, y1) = geom["xrange"], geom["yrange"]
    px = geom["left"] + (x - x0) / (x1 - x0) * geom["width"]
    py = geom["top"] + (1 - (y - y0) / (y1 - y0)) * geom["height"]  # pixel y grows downwards
    return px, py


def wait_plots_quiet(page, quiet_ms=800, timeout_ms=60_000):
    """Wait until no Plotly call has ended, and no button or key was pressed, in the last ``quiet_ms``, and no view
    holds a redraw to come: a chart redrawn between mouse down and up loses the click (the page defers streamed
    redraws 400 ms after a press outside a figure, and draws streamed points 1 s after the stream stops, so one
    can land right in a click that follows)."""
    page.wait_for_function("""(q) => { const L = (window.__pe && window.__pe.plotLog) || [];
        const last = L.length ? L[L.length - 1][0] + L[L.length - 1][1] : 0;
        if ((window.__pe && window.__pe.views) && Array.from((window.__pe && window.__pe.views)).some(f => f())) return false;
        return performance.now() - Math.max(last, (window.__pe && window.__pe.inputAt) || 0) > q; }""",
                           arg=quiet_ms, timeout=timeout_ms, polling=100)


def slow_click(page, px, py, before_up=None):
    """Plotly-friendly click: move -> 150 ms -> down -> 50 ms -> up.  ``before_up`` runs just before up."""
    page.mouse.move(px, py)
    page.wait_for_timeout(150)
    page.mouse.down()
    page.wait_for_timeout(50)
    if before_up:
        before_up()
    page.mouse.up()


def cut_texts(page, root):
    """The visible labels, buttons and menus under ``root`` whose text is cut (wider than the element, shown with
    an ellipsis or hidden; a menu: its chosen option with the menu's padding): [[text, text px, element px], ...],
    [] when every text is whole."""
    return page.evaluate("""(root) => {
        const ctx = document.createElement('canvas').getContext('2d');
        const shown = (e) => e.offsetParent !== null && e.clientWidth > 0;
        const cut = Array.from(document.querySelectorAll(`${root} .widget-label, ${root} button`))
            .filter(e => shown(e) && e.innerText.trim() && e.scrollWidth > e.clientWidth + 1)
            .map(e => [e.innerText.trim(), e.scrollWidth, e.clientWidth]);
        for (const s of document.querySelectorAll(`${root} select:not([multiple])`)) {
            const o = s.options[s.selectedIndex];
            if (!shown(s) || !o) continue;
            const cs = getComputedStyle(s);
            ctx.font = `${cs.fontWeight} ${cs.fontSize} ${cs.fontFamily}`;
            const need = Math.ceil(ctx.measureText(o.text).width + parseFloat(cs.paddingLeft)
                                   + parseFloat(cs.paddingRight));
            if (need > s.clientWidth + 1) cut.push([o.text, need, s.clientWidth]);
        }
        return cut; }""", root)


def element_screenshot(page, selector, name):
    """Screenshot of one element (Voila scrolls inside a container, so full-page shots cut panels)."""
    ARTIFACTS.mkdir(exist_ok=True)
    loc = page.locator(selector).first
    path = ARTIFACTS / name
    try:
        loc.scroll_into_view_if_needed(timeout=10_000)
        loc.screenshot(path=str(path), timeout=30_000, animations="disabled")
    except Exception as exc:  # a screenshot is an artifact, not an assertion
        print(f"[browser] screenshot {name} failed: {exc}")
        return None
    return path


# ------------------------------------------------------------------------------------------------
# timings
# ------------------------------------------------------------------------------------------------
_FRESH = set()


def record_timings(section, values):
    """Merge ``values`` into ``test-artifacts/browser-timings.json`` under ``section`` and print them."""
    import fcntl

    ARTIFACTS.mkdir(exist_ok=True)
    with open(ARTIFACTS / ".browser-timings.lock", "w") as lock:  # xdist workers write concurrently
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            data = json.loads(TIMINGS_FILE.read_text())
        except (OSError, ValueError):
            data = {}
        if section not in _FRESH:  # the first write of this run replaces the section's values of earlier runs
            _FRESH.add(section)
            data[section] = {}
        data.setdefault(section, {}).update(values)
        data["_updated"] = time.strftime("%Y-%m-%d %H:%M:%S")
        tmp = TIMINGS_FILE.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps(data, indent=2, default=str))
        tmp.replace(TIMINGS_FILE)
    for k, v in values.items():
        print(f"[browser timings] {section}.{k} = {fmt(v)}", flush=True)


def fmt(v):
    if isinstance(v, float):
        return f"{v:.3f}"
    return json.dumps(v, default=str) if isinstance(v, (dict, list)) else str(v)


# ------------------------------------------------------------------------------------------------
# the section tab with the paper's Fig. 2 (c) and a long fill (cancel, clicks during a fill)
# ------------------------------------------------------------------------------------------------
MESSAGES_JS = "() => Array.from(document.querySelectorAll('.pe-section .pe-message')).map(e => e.innerText).join(' ')"


def open_fig2c(browser, server, size=None):
    """A new page on the section tab with the paper's Fig. 2 preset (c) (E = 2.03) and its trajectory drawn."""
    page = browser.new_page()
    page.set_viewport_size(size or VIEWPORT)
    page.goto(server.url, wait_until="commit", timeout=60_000)
    wait_for_panels(page, timeout=150_000)
    show_panel(page, "pe-section")
    wait_plot(page, f".{CHART}", timeout=120_000)
    page.locator(".pe-section .pe-paper-preset select").first.select_option(label="(c) E = 2.03")
    page.wait_for_function("""() => Array.from(document.querySelectorAll('.pe-section .pe-message'))
        .some(e => /trajectory #\\d+: \\d+ crossings/.test(e.innerText))""", timeout=120_000, polling=200)
    return page


def set_fill(page, n_crossings, n_seeds):
    """Type the crossing count and the number of fill seeds into their boxes."""
    for sel, value in ((".pe-section .pe-n-crossings input", str(n_crossings)),
                       (".pe-section .pe-n-fill input", str(n_seeds))):
        page.locator(sel).first.fill(value)
        page.locator(sel).first.press("Tab")
    page.wait_for_function("""([a, b]) => document.querySelector('.pe-section .pe-n-crossings input').value == a
        && document.querySelector('.pe-section .pe-n-fill input').value == b""", arg=[str(n_crossings), str(n_seeds)])


def start_fill(page, n_seeds, n_crossings, drawn=True):
    """Click "fill" and wait for its message; with ``drawn``, also until the page has drawn some of the fill's
    crossings (a Plotly redraw of them or a paint of the stream layer after the click): the fill is streaming."""
    t = page.evaluate("() => performance.now()")
    page.locator(".pe-section button.pe-fill").first.click()
    page.wait_for_function(f"""() => Array.from(document.querySelectorAll('.pe-section .pe-message'))
        .some(e => /fill: {n_seeds} trajectories × {n_crossings} crossings/.test(e.innerText))""",
                           timeout=30_000, polling=50)
    if drawn:
        page.wait_for_function("""(t) => ((window.__pe && window.__pe.plotLog) || []).some(e => e[0] > t &&
            (e[2].startsWith('restyle x') || e[2].startsWith('stream')))""", arg=t, timeout=60_000, polling=50)


MOTION_RUN = ".pe-motion button.pe-motion-run, .pe-motion .pe-motion-run button"

BUTTON_STATE_JS = """(sel) => new Promise(res => {
    const b = document.querySelector(sel);
    if (!b) return res({found: false});
    const name = (e) => e ? e.tagName + '.' + Array.from(e.classList).join('.') : null;
    const boxes = [];
    const frame = () => {
        const r = b.getBoundingClientRect();
        boxes.push([r.x, r.y, r.width, r.height]);
        if (boxes.length < 5) return requestAnimationFrame(frame);
        const cx = r.x + r.width / 2, cy = r.y + r.height / 2, top = document.elementFromPoint(cx, cy);
        const cs = getComputedStyle(b);
        res({found: true, connected: b.isConnected, disabled: b.disabled, visibility: cs.visibility,
             pointer_events: cs.pointerEvents, boxes, viewport: [innerWidth, innerHeight],
             at_centre: name(top), is_button: !!top && (top === b || b.contains(top)),
             active: name(document.activeElement),
             animations: document.getAnimations().map(a => [name(a.effect && a.effect.target), a.playState])});
    };
    requestAnimationFrame(frame);
    setTimeout(() => res({found: true, note: 'no animation frame in 5 s', disabled: b.disabled}), 5000);
})"""


def button_state(page, selector, timeout=15_000):
    """What the page has at the button ``selector`` (the first match): disabled, its box over 5 animation frames
    (moving?), the element at its centre (covered?), the running animations; for a timed-out click's message."""
    try:
        return page.evaluate(BUTTON_STATE_JS, selector.split(",")[0].strip())
    except Exception as exc:  # noqa: BLE001 - a diagnostic only
        return {"error": str(exc).splitlines()[0]}


def compute_motion(page, timeout=120_000):
    """Press the Motion tab's "compute and animate" and wait until its player holds the motion (two samples or
    more) and is shown."""
    # the button exists once the Motion panel is built (on first use: over 60 s, playwright's default, on a loaded
    # CI machine), so the click waits as long as the motion may
    run = page.locator(MOTION_RUN).first
    try:
        run.click(timeout=timeout)
    except Exception as exc:  # playwright's timeout: say what the page had at the button (not reproduced locally)
        raise AssertionError(f"the Motion run button was not clickable: {button_state(page, MOTION_RUN)}") from exc
    page.wait_for_function("""() => { const p = document.querySelector('.pe-motion-player');
        return !!p && p.offsetParent !== null && p.peMotion && p.peMotion.n >= 2; }""", timeout=timeout)
