"""A light client for the served dashboard: per page, what a browser does on the wire to reach the first view,
without a browser (issue 23, part 3: what the *server* gives a class).

One page (:func:`open_page`):

1. ``GET /`` (HTTP/1.1, ``Accept-Language`` as headless Chromium sends it).  Voila streams the page while the
   notebook runs: the page config with the kernel's id comes once the kernel answers (a preheated kernel: at
   once), the cell's output (the dashboard's widget view) once the notebook has run.
2. ``GET /api/kernels/<id>`` and the kernel websocket ``/api/kernels/<id>/channels`` in the protocol the page's
   JupyterLab services speak (``v1.kernel.websocket.jupyter.org``), as Voila's page script does once the page
   has loaded: ``kernel_info_request``; then the widget manager of ipywidgets 8 (``@jupyter-widgets/base``'s
   ``_loadFromKernel``, used by Voila's page): a ``comm_open`` on ``jupyter.widget.control`` and
   ``{"method": "request_states"}`` on it; the kernel answers ``update_states`` with every widget's state and
   binary buffers; the control comm is closed.
3. The *first view* is reached when that answer holds the dashboard: the four panel containers (``pe-body``,
   ``pe-equilibria``, ``pe-section``, ``pe-motion``), the body panel's preview (a ``PlotlyView`` whose figure
   has its traces) and the enabled preset menu (``pe-preset``) -- what the browser tests wait for in the DOM
   (``tests/browser/pe_browser.py``; ``bench_class_load.FIRST_VIEW_JS``).
4. Then what a page does at once after its first draw, because the kernel works on it: the page bridge sets
   its ``base_url`` and the preview says ``{"event": "drawn"}`` (the kernel's prewarm of the other panels starts
   0.5 s later); each autosave the kernel sends (every 3 s while the view changes) is answered ``autosaved``.
   The websocket stays open (a closed page's kernel is shut down, ``_page_kernels.PageKernelManager``) until
   :meth:`LightPage.close`.

What it does not do: fetch the page's scripts, styles and plotly.js (103 files, 10.5 MB; a browser fetches them
once, then from its cache; :func:`fetch_assets` replays them for ``--validate``'s measure of their cost) and
draw.  Stamps (``time.perf_counter``) split each page's time: kernel ready (the page
config arrived), notebook run (the cell output arrived), websocket open, widget states received.

:func:`chromium_trace` records what one real Chromium page sends and receives on the kernel websocket (CDP), so
``bench_class_load.py --validate`` can check that both reach the same widget models.
"""
from __future__ import annotations

import asyncio
import json
import re
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from jupyter_server.services.kernels.connection.base import deserialize_msg_from_ws_v1, serialize_msg_to_ws_v1

PROTOCOL = "v1.kernel.websocket.jupyter.org"
PANELS = ("pe-body", "pe-equilibria", "pe-section", "pe-motion")
#: what headless Chromium (Debian's, en-US) sends
ACCEPT_LANGUAGE = "en-US,en;q=0.9"
USER_AGENT = "pendulum-explorer-light-client/1"

_CONFIG_RE = re.compile(rb'<script id="jupyter-config-data" type="application/json">\s*(\{.*?\})\s*</script>', re.S)
_OUTPUT_RE = re.compile(rb'<script type="application/vnd.voila.cell-output\+json">\s*(.*?)\s*</script>', re.S)


# ------------------------------------------------------------------------------------------------
# messages
# ------------------------------------------------------------------------------------------------
def _msg(session: str, msg_type: str, content: dict, metadata: dict | None = None) -> dict:
    return {"header": {"msg_id": uuid.uuid4().hex, "username": "", "session": session, "msg_type": msg_type,
                       "version": "5.2", "date": ""},
            "parent_header": {}, "metadata": metadata or {}, "content": content, "buffers": []}


def encode(msg: dict, channel: str = "shell") -> bytes:
    parts = [json.dumps(msg[k]).encode() for k in ("header", "parent_header", "metadata", "content")]
    return serialize_msg_to_ws_v1(parts + list(msg.get("buffers", [])), channel)


def decode(frame: bytes) -> tuple[str, dict]:
    channel, parts = deserialize_msg_from_ws_v1(frame)
    msg = {k: json.loads(p) if p else {} for k, p in zip(("header", "parent_header", "metadata", "content"), parts)}
    msg["buffers"] = parts[4:]
    return channel, msg


def describe(msg: dict) -> str:
    """A message in a few words: its type, and for comms the target or the method (``comm_msg:update_states``)."""
    t = msg["header"].get("msg_type", "?")
    c = msg.get("content") or {}
    if t == "comm_open":
        return f"comm_open:{c.get('target_name')}"
    if t == "comm_msg":
        data = c.get("data") or {}
        m = data.get("method", "?")
        if m == "custom":
            inner = data.get("content") or {}
            return f"comm_msg:custom:{inner.get('event') or inner.get('op') or '?'}"
        if m == "update":
            return "comm_msg:update:" + ",".join(sorted((data.get("state") or {}).keys()))
        return f"comm_msg:{m}"
    return t


# ------------------------------------------------------------------------------------------------
# the dashboard in the widget states
# ------------------------------------------------------------------------------------------------
def _ref(v: Any) -> str | None:
    return v[len("IPY_MODEL_"):] if isinstance(v, str) and v.startswith("IPY_MODEL_") else None


def _children(state: dict) -> list[str]:
    out = []
    for v in state.values():
        if isinstance(v, list):
            out += [r for r in map(_ref, v) if r]
        elif _ref(v):
            out.append(_ref(v))
    return out


def first_view(states: dict[str, dict], top: str | None = None) -> dict:
    """What of the first view the widget states ``{model_id: {model_name, state, ...}}`` hold: the panel
    containers found, whether the body preview has traces and the preset menu is enabled, ``ok`` if all."""
    by_class: dict[str, str] = {}
    for mid, m in states.items():
        for c in (m.get("state") or {}).get("_dom_classes") or ():
            by_class.setdefault(c, mid)
    panels = [p for p in PANELS if p in by_class]
    preview_traces = 0
    preset_ok = False
    if "pe-body" in by_class:
        seen, stack = set(), [by_class["pe-body"]]
        while stack:
            mid = stack.pop()
            if mid in seen or mid not in states:
                continue
            seen.add(mid)
            st = states[mid].get("state") or {}
            fig = st.get("figure")
            if isinstance(fig, dict) and fig.get("data") and not preview_traces:
                preview_traces = len(fig["data"])
            if "pe-preset" in (st.get("_dom_classes") or ()) and not st.get("disabled"):
                preset_ok = True
            stack += _children(st)
    top_ok = top is None or top in states
    return {"panels": panels, "preview_traces": preview_traces, "preset": preset_ok, "top": top_ok,
            "ok": len(panels) == len(PANELS) and preview_traces > 0 and preset_ok and top_ok}


def model_names(states: dict[str, dict]) -> Counter:
    return Counter(m.get("model_name", "?") for m in states.values())


def body_preview_id(states: dict[str, dict]) -> str | None:
    """The model id of the first ``PlotlyView`` (a figure with traces) under the ``pe-body`` container."""
    body = next((mid for mid, m in states.items() if "pe-body" in ((m.get("state") or {}).get("_dom_classes") or ())),
                None)
    stack, seen = [body] if body else [], set()
    while stack:  # depth first, children in order (the preview is the first figure in the panel)
        mid = stack.pop(0)
        if mid in seen or mid not in states:
            continue
        seen.add(mid)
        st = states[mid].get("state") or {}
        fig = st.get("figure")
        if isinstance(fig, dict) and fig.get("data"):
            return mid
        stack = _children(st) + stack
    return None


def bridge_id(states: dict[str, dict]) -> str | None:
    """The page bridge (an anywidget with a ``base_url`` trait)."""
    return next((mid for mid, m in states.items() if "base_url" in (m.get("state") or {})), None)


# ------------------------------------------------------------------------------------------------
# one page
# ------------------------------------------------------------------------------------------------
_CONFIGURED = False


def _configure_http() -> None:
    """Tornado's HTTP client runs at most 10 requests at once by default and queues the others: each page here
    holds its request open while its notebook runs (as each browser tab does), so allow as many as pages."""
    global _CONFIGURED
    if not _CONFIGURED:
        from tornado.httpclient import AsyncHTTPClient
        AsyncHTTPClient.configure(None, max_clients=256)
        _CONFIGURED = True


@dataclass
class LightPage:
    url: str
    t0: float = 0.0
    status: int | None = None
    t_headers: float | None = None
    t_config: float | None = None  # the page config (kernel id): the kernel answers
    t_html: float | None = None  # the page complete: the notebook has run
    t_ws: float | None = None  # websocket open and kernel_info answered
    t_states: float | None = None  # update_states received
    t_view: float | None = None  # first view checked
    t_tabs: float | None = None  # the tabs asked for opened (the kernel idle after the last)
    kernel_id: str | None = None
    top_model: str | None = None
    html_bytes: int = 0
    states_bytes: int = 0
    n_models: int = 0
    names: Counter = field(default_factory=Counter)
    view: dict = field(default_factory=dict)
    sent: list[str] = field(default_factory=list)
    received: Counter = field(default_factory=Counter)
    error: str | None = None
    ws: Any = None
    _reader: Any = None

    @property
    def first_view_s(self) -> float | None:
        return None if self.t_view is None else self.t_view - self.t0

    def split(self) -> dict[str, float | None]:
        """Seconds of each step: kernel (request to page config), notebook (config to the cell's output),
        connect (page complete to websocket ready), states (request_states to update_states)."""
        def d(a, b):
            return None if a is None or b is None else b - a
        return {"kernel": d(self.t0, self.t_config), "notebook": d(self.t_config, self.t_html),
                "connect": d(self.t_html, self.t_ws), "states": d(self.t_ws, self.t_states)}

    async def close(self) -> None:
        if self._reader is not None:
            self._reader.cancel()
        if self.ws is not None:
            self.ws.close()
            self.ws = None


async def _get_page(page: LightPage, timeout: float, headers: dict) -> bytes:
    from tornado.httpclient import AsyncHTTPClient, HTTPRequest

    buf = bytearray()

    def on_chunk(chunk: bytes) -> None:
        now = time.perf_counter()
        buf.extend(chunk)
        if page.t_config is None:
            m = _CONFIG_RE.search(buf)
            if m:
                page.t_config = now
                page.kernel_id = json.loads(m.group(1)).get("kernelId")

    def on_header(line: str) -> None:
        if page.t_headers is None:
            page.t_headers = time.perf_counter()

    req = HTTPRequest(page.url, headers=headers, request_timeout=timeout, connect_timeout=min(timeout, 30),
                      streaming_callback=on_chunk, header_callback=on_header)
    client = AsyncHTTPClient()
    resp = await client.fetch(req, raise_error=False)  # a 503 (server full) is read, not raised
    page.status = resp.code
    page.t_html = time.perf_counter()
    body = bytes(buf)
    page.html_bytes = len(body)
    if resp.code != 200:
        raise RuntimeError(f"HTTP {resp.code}" + (" (server full)" if resp.code == 503 else ""))
    if page.kernel_id is None:
        m = _CONFIG_RE.search(body)
        if not m:
            raise RuntimeError("no kernel id in the page")
        page.kernel_id = json.loads(m.group(1)).get("kernelId")
    for m in _OUTPUT_RE.finditer(body):
        try:
            out = json.loads(m.group(1))
        except ValueError:
            continue
        view = (out.get("data") or {}).get("application/vnd.jupyter.widget-view+json") if isinstance(out, dict) \
            else None
        if view:
            page.top_model = view.get("model_id")
    return body


async def open_page(url: str, timeout: float = 120.0, drawn: bool = True, accept_language: str = ACCEPT_LANGUAGE,
                    t0: float | None = None, tabs: tuple[int, ...] = ()) -> LightPage:
    """Open one page as a browser does up to its first view (see the module's docstring); never raises: a page
    that fails has ``error`` set and ``t_view`` None.  The websocket stays open: :meth:`LightPage.close`.

    ``tabs``: then select these tabs in turn (the tab bar's ``selected_index``, as a click on a tab sends it),
    each once the kernel is idle again after the one before (``t_tabs``: when the last one was idle)."""
    from tornado.httpclient import HTTPRequest
    from tornado.websocket import websocket_connect

    _configure_http()
    page = LightPage(url=url, t0=time.perf_counter() if t0 is None else t0)
    deadline = page.t0 + timeout
    headers = {"Accept-Language": accept_language, "User-Agent": USER_AGENT,
               "Accept": "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"}
    try:
        await _get_page(page, timeout, headers)
        parts = urlsplit(url)
        base = f"{parts.scheme}://{parts.netloc}"
        token = ""
        if "token=" in (parts.query or ""):
            token = "&token=" + parts.query.split("token=", 1)[1].split("&", 1)[0]
        from tornado.httpclient import AsyncHTTPClient
        await AsyncHTTPClient().fetch(f"{base}/api/kernels/{page.kernel_id}" + (f"?{token[1:]}" if token else ""),
                                      headers={"User-Agent": USER_AGENT}, request_timeout=max(1.0, deadline -
                                                                                               time.perf_counter()))
        session = uuid.uuid4().hex
        wsurl = f"ws{base[4:]}/api/kernels/{page.kernel_id}/channels?session_id={session}{token}"
        ws = await asyncio.wait_for(
            websocket_connect(HTTPRequest(wsurl, headers={"User-Agent": USER_AGENT}), subprotocols=[PROTOCOL],
                              max_message_size=1 << 30),
            max(1.0, deadline - time.perf_counter()))
        page.ws = ws
        waiters: dict[str, asyncio.Future] = {}
        comm_waiters: dict[str, asyncio.Future] = {}
        idle_waiters: dict[str, asyncio.Future] = {}

        loop = asyncio.get_running_loop()

        def send(msg: dict, channel: str = "shell") -> None:
            page.sent.append(describe(msg))
            ws.write_message(encode(msg, channel), binary=True)

        async def reader() -> None:
            while True:
                frame = await ws.read_message()
                if frame is None:
                    for f in list(waiters.values()) + list(comm_waiters.values()):
                        if not f.done():
                            f.set_exception(RuntimeError("websocket closed"))
                    return
                if isinstance(frame, str):
                    continue
                _ch, msg = decode(frame)
                what = describe(msg)
                page.received[what] += 1
                if what == "comm_msg:custom:autosave":  # the page keeps the view in localStorage and says so
                    send(_msg(session, "comm_msg", {"comm_id": msg["content"]["comm_id"], "data": {
                        "method": "custom", "content": {"event": "autosaved", "ok": True}}}))
                pid = (msg.get("parent_header") or {}).get("msg_id")
                t = msg["header"].get("msg_type")
                if t == "status" and (msg.get("content") or {}).get("execution_state") == "idle" \
                        and pid in idle_waiters and not idle_waiters[pid].done():
                    idle_waiters.pop(pid).set_result(msg)
                if t.endswith("_reply") and pid in waiters and not waiters[pid].done():
                    waiters.pop(pid).set_result(msg)
                elif t == "comm_msg":
                    cid = (msg.get("content") or {}).get("comm_id")
                    if cid in comm_waiters and not comm_waiters[cid].done():
                        page.states_bytes = len(frame)
                        comm_waiters.pop(cid).set_result(msg)

        page._reader = asyncio.ensure_future(reader())
        info = _msg(session, "kernel_info_request", {})
        waiters[info["header"]["msg_id"]] = loop.create_future()
        fut = waiters[info["header"]["msg_id"]]
        send(info)
        await asyncio.wait_for(fut, max(1.0, deadline - time.perf_counter()))
        page.t_ws = time.perf_counter()
        comm_id = uuid.uuid4().hex
        comm_waiters[comm_id] = loop.create_future()
        fut = comm_waiters[comm_id]
        send(_msg(session, "comm_open", {"comm_id": comm_id, "target_name": "jupyter.widget.control", "data": {}},
                  {"version": "1.0.0"}))
        send(_msg(session, "comm_msg", {"comm_id": comm_id, "data": {"method": "request_states"}}))
        reply = await asyncio.wait_for(fut, max(1.0, deadline - time.perf_counter()))
        page.t_states = time.perf_counter()
        send(_msg(session, "comm_close", {"comm_id": comm_id, "data": {}}))
        data = reply["content"]["data"]
        if data.get("method") != "update_states":
            raise RuntimeError(f"the control comm answered {data.get('method')!r}")
        states = data.get("states") or {}
        page.n_models = len(states)
        page.names = model_names(states)
        page.view = first_view(states, page.top_model)
        if not page.view["ok"]:
            raise RuntimeError(f"the widget states hold no first view: {page.view}")
        page.t_view = time.perf_counter()
        if drawn:  # what the page sends as its views render and draw (the kernel works on it), in its order
            bid = bridge_id(states)
            if bid:
                send(_msg(session, "comm_msg", {"comm_id": bid, "data": {
                    "method": "update", "state": {"base_url": f"{base}/"}, "buffer_paths": []}}))
            pid = body_preview_id(states)
            if pid:
                send(_msg(session, "comm_msg", {"comm_id": pid, "data": {"method": "custom",
                                                                          "content": {"event": "drawn"}}}))
        tab_bar = next((mid for mid, m in states.items() if m.get("model_name") == "TabModel"), None)
        for index in tabs:
            msg = _msg(session, "comm_msg", {"comm_id": tab_bar, "data": {
                "method": "update", "state": {"selected_index": int(index)}, "buffer_paths": []}})
            idle_waiters[msg["header"]["msg_id"]] = fut = loop.create_future()
            send(msg)
            await asyncio.wait_for(fut, max(1.0, deadline - time.perf_counter()))
        if tabs:
            page.t_tabs = time.perf_counter()
    except Exception as exc:  # noqa: BLE001 - a page that does not reach its first view is counted, not raised
        page.error = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
    return page


# ------------------------------------------------------------------------------------------------
# what a real Chromium page does (for the check)
# ------------------------------------------------------------------------------------------------
async def chromium_trace(url: str, first_view_js: str, timeout: float = 120.0) -> dict:
    """One headless Chromium page (Debian's): seconds to its first view (``first_view_js``), the messages it
    sent and received on the kernel websocket (CDP frames, decoded), the widget models of the ``update_states``
    it received, the HTTP requests it made to ``/api/`` and the files it fetched from the server (``assets``:
    URL and bytes: its scripts, styles, fonts, plotly.js)."""
    import base64
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "browser"))
    import pe_browser as pb
    from playwright.async_api import async_playwright

    out: dict = {"sent": [], "received": Counter(), "states": None, "api": [], "protocols": [], "error": None,
                 "stream": [], "assets": []}
    pw = await async_playwright().start()
    browser = await pw.chromium.launch(executable_path=pb.chromium_path(), headless=True, args=pb.CHROMIUM_ARGS)
    try:
        ctx = await browser.new_context(viewport=pb.VIEWPORT)
        page = await ctx.new_page()
        cdp = await ctx.new_cdp_session(page)

        def frame(ev: dict, sent: bool) -> None:
            r = ev.get("response", {})
            if r.get("opcode") != 2:
                return
            try:
                _ch, msg = decode(base64.b64decode(r.get("payloadData", "")))
            except Exception:  # noqa: BLE001 - another websocket's frame
                return
            if sent:
                out["sent"].append(describe(msg))
            else:
                out["received"][describe(msg)] += 1
                if msg["header"].get("msg_type") == "stream":
                    out.setdefault("stream", []).append(str((msg.get("content") or {}).get("text", ""))[:300])
                d = (msg.get("content") or {}).get("data") or {}
                if d.get("method") == "update_states" and out["states"] is None:
                    out["states"] = d.get("states") or {}

        cdp.on("Network.webSocketFrameSent", lambda ev: frame(ev, True))
        cdp.on("Network.webSocketFrameReceived", lambda ev: frame(ev, False))
        cdp.on("Network.webSocketHandshakeResponseReceived", lambda ev: out["protocols"].append(
            {k.lower(): v for k, v in (ev.get("response", {}).get("headers") or {}).items()}.get(
                "sec-websocket-protocol")))
        cdp.on("Network.requestWillBeSent", lambda ev: "/api/" in ev["request"]["url"] and out["api"].append(
            ev["request"]["method"] + " " + urlsplit(ev["request"]["url"]).path))
        origin = "{0.scheme}://{0.netloc}".format(urlsplit(url))
        urls: dict[str, str] = {}

        def request(ev: dict) -> None:
            u = ev["request"]["url"]
            if ev["request"]["method"] == "GET" and u.startswith(origin) and "/api/" not in u \
                    and urlsplit(u).path != urlsplit(url).path:
                urls[ev["requestId"]] = u

        def finished(ev: dict) -> None:
            if ev["requestId"] in urls:
                out["assets"].append((urls[ev["requestId"]], int(ev.get("encodedDataLength", 0))))

        cdp.on("Network.requestWillBeSent", request)
        cdp.on("Network.loadingFinished", finished)
        await cdp.send("Network.enable")
        t0 = time.perf_counter()
        await page.goto(url, wait_until="commit", timeout=timeout * 1000)
        await page.wait_for_function(first_view_js, timeout=timeout * 1000, polling=100)
        out["first_view_s"] = time.perf_counter() - t0
        await asyncio.sleep(4.0)  # the messages the page sends after its first draw (the autosave's answer)
        await ctx.close()
    except Exception as exc:  # noqa: BLE001
        out["error"] = f"{type(exc).__name__}: {exc}"
    finally:
        await browser.close()
        await pw.stop()
    return out


async def fetch_assets(urls: list[str], rounds: int = 1) -> tuple[int, float]:
    """GET ``urls`` one after another ``rounds`` times, as a browser with an empty cache does (``Accept-Encoding:
    gzip``, as Chromium sends); (bytes received in the last round, wall seconds of all rounds)."""
    from tornado.httpclient import AsyncHTTPClient

    _configure_http()
    client = AsyncHTTPClient()
    t0 = time.perf_counter()
    total = 0
    for _ in range(rounds):
        total = 0
        for u in urls:
            r = await client.fetch(u, headers={"User-Agent": USER_AGENT, "Accept-Encoding": "gzip, deflate"},
                                   decompress_response=False, raise_error=False, request_timeout=60)
            total += len(r.body or b"")
    return total, time.perf_counter() - t0
