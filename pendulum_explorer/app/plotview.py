"""One small widget that shows a plain plotly figure and updates it in place.

Why not an ``Output`` widget with the plotly mime bundle: JupyterLab's plotly renderer (jupyterlab-plotly) builds a
*new* graph div for every figure and, once it is drawn, draws it a second time (``Plotly.redraw``) and a third time
into an off-screen copy to store a PNG snapshot (``Plotly.toImage``).  In software WebGL (SwiftShader: Binder, CI,
most classroom laptops without a GPU driver) a new 3D scene costs 0.6–1.5 s of shader compilation and the snapshot
another 1.7–2.2 s, so every body change re-rendered each 3D figure three times from scratch.

Why not a ``FigureWidget``: each instance ships the 5 MB plotly.js bundle as its anywidget module.

:class:`PlotlyView` is an anywidget whose module is a few hundred lines of JavaScript.  It uses the plotly.js that
the page already has (the jupyterlab-plotly extension loads it and plotly.js registers ``window.Plotly``;
:func:`plotly_loader` is a hidden, empty plotly output that makes the extension load it), and:

* draws with ``Plotly.react`` into the same graph div, so a new figure reuses the WebGL context and its compiled
  shaders (no snapshot, no second draw);
* draws only while visible: a figure sent to a view in a hidden tab is drawn when the tab is opened (a
  ``ResizeObserver`` notices), so a body change costs the browser nothing for the panels nobody looks at;
* applies incremental updates (``restyle``, ``add_traces``, ``delete_traces``) sent as custom messages, e.g. the
  crossings streamed into the section chart;
* optionally sends plotly click events to Python (:meth:`PlotlyView.on_click`).

The Python side keeps the figure (``view.fig``, a ``go.Figure``) and the JSON the browser received
(``view.figure``) in step with every update, for the tests and the exports.
"""
from __future__ import annotations

import json

import anywidget
import ipywidgets as w
import plotly.graph_objects as go
import traitlets
from plotly.io.json import to_json_plotly

from .common import log

#: the config of every figure (a change of config would make ``Plotly.react`` start from scratch)
CONFIG = {"displaylogo": False, "responsive": True}

_ESM = r"""
// plotly.py encodes numpy arrays as {dtype, bdata[, shape]}: decode them into typed arrays (rows for 2D), as
// plotly's own widget does, so that gd.data holds arrays
const DTYPES = { f8: Float64Array, f4: Float32Array, i1: Int8Array, u1: Uint8Array, u1c: Uint8ClampedArray,
                 i2: Int16Array, u2: Uint16Array, i4: Int32Array, u4: Uint32Array };
function decodeSpec(v) {
  const T = DTYPES[v.dtype];
  if (!T) return v;
  const bin = atob(v.bdata);
  const bytes = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
  const arr = new T(bytes.buffer);
  if (v.shape === undefined || v.shape === null) return arr;
  const shape = String(v.shape).split(",").map((x) => parseInt(x, 10));
  if (shape.length < 2) return arr;
  if (shape.length > 2) return v;
  const rows = [];
  for (let i = 0; i < shape[0]; i++) rows.push(arr.subarray(i * shape[1], (i + 1) * shape[1]));
  return rows;
}
function decode(v) {
  if (Array.isArray(v)) return v.map(decode);
  if (v && typeof v === "object" && !ArrayBuffer.isView(v)) {
    if (typeof v.bdata === "string" && typeof v.dtype === "string") return decodeSpec(v);
    const out = {};
    for (const k of Object.keys(v)) out[k] = decode(v[k]);
    return out;
  }
  return v;
}

function whenPlotly(timeoutMs) {
  return new Promise((resolve, reject) => {
    const t0 = Date.now();
    const tick = () => {
      if (window.Plotly && window.Plotly.react) { resolve(window.Plotly); return; }
      if (Date.now() - t0 > timeoutMs) { reject(new Error("plotly.js was not loaded by the page")); return; }
      setTimeout(tick, 30);
    };
    tick();
  });
}

function render({ model, el }) {
  const gd = document.createElement("div");
  gd.className = "pe-plotly";
  gd.style.width = "100%";
  el.appendChild(gd);
  let Plotly = window.Plotly || null;
  let stale = true;      // the figure in the model differs from what gd shows
  let busy = false;
  let drawn = false;
  let lastWidth = 0;
  let disposed = false;

  const visible = () => el.isConnected && el.offsetWidth > 0 && el.getClientRects().length > 0;

  async function draw() {
    if (disposed || busy || !stale || !visible()) return;
    busy = true;
    stale = false;
    try {
      if (!Plotly) Plotly = await whenPlotly(120000);
      const fig = decode(model.get("figure") || {});
      if (!fig.data && !fig.layout) return;   // nothing to show yet (no empty axes)
      const obj = { data: fig.data || [], layout: fig.layout || {}, config: fig.config || {} };
      if (fig.frames) obj.frames = fig.frames;   // react replaces the animation frames too
      await Plotly.react(gd, obj);
      if (!drawn) { drawn = true; bindEvents(); }
      lastWidth = el.offsetWidth;
      gd.dataset.peRevision = String(model.get("revision"));
    } catch (err) {
      console.error("PlotlyView", err);
      gd.textContent = "could not draw the figure: " + err;
    } finally {
      busy = false;
    }
    if (stale) draw();
  }

  function bindEvents() {
    gd.on("plotly_click", (ev) => {
      if (!model.get("clicks") || !ev || !ev.points || !ev.points.length) return;
      const p = ev.points[0];
      model.send({ event: "click", x: p.x, y: p.y, curve: p.curveNumber, point: p.pointNumber });
    });
  }

  function onChange() { stale = true; draw(); }
  model.on("change:figure", onChange);
  model.on("change:revision", onChange);

  function onMsg(msg) {
    if (!msg || !msg.op) return;
    if (msg.update) msg.update = decode(msg.update);
    if (msg.traces) msg.traces = decode(msg.traces);
    const fig = model.get("figure");
    if (!fig || !fig.data) return;
    // keep the model's copy of the figure current (a redraw from it shows every update)
    if (msg.op === "restyle") {
      const tr = fig.data[msg.index];
      if (tr) Object.assign(tr, msg.update);
    } else if (msg.op === "add_traces") {
      fig.data.push(...msg.traces);
    } else if (msg.op === "delete_traces") {
      const drop = new Set(msg.indices);
      fig.data = fig.data.filter((_, i) => !drop.has(i));
    }
    if (!drawn || busy || stale || !visible()) { stale = true; draw(); return; }
    const P = Plotly;
    let p;
    if (msg.op === "restyle") {
      const upd = {};
      for (const k of Object.keys(msg.update)) upd[k] = [msg.update[k]];
      p = P.restyle(gd, upd, [msg.index]);
    } else if (msg.op === "add_traces") {
      p = P.addTraces(gd, msg.traces);
    } else if (msg.op === "delete_traces") {
      p = P.deleteTraces(gd, msg.indices);
    }
    gd.dataset.peRevision = String(model.get("revision")) + "+" + msg.op;
    if (p && p.catch) p.catch((err) => { console.error("PlotlyView", err); stale = true; draw(); });
  }
  model.on("msg:custom", onMsg);

  const ro = new ResizeObserver(() => {
    if (!visible()) return;
    if (stale) { draw(); return; }
    if (drawn && !busy && Math.abs(el.offsetWidth - lastWidth) > 1) {
      lastWidth = el.offsetWidth;
      Plotly.Plots.resize(gd);
    }
  });
  ro.observe(el);
  draw();
  return () => {
    disposed = true;
    ro.disconnect();
    model.off("change:figure", onChange);
    model.off("change:revision", onChange);
    model.off("msg:custom", onMsg);
    if (Plotly && drawn) Plotly.purge(gd);
  };
}

export default { render };
"""


def jsonable(obj):
    """What the browser receives for a figure, a trace or an array: plotly's JSON encoding (numpy arrays as
    base64 typed arrays), parsed back into Python objects."""
    return json.loads(to_json_plotly(obj))


def _figure_dict(fig):
    d = dict(fig if isinstance(fig, dict) else fig.to_dict())
    d["config"] = dict(CONFIG, **d.get("config", {}))
    return jsonable(d)


class PlotlyView(anywidget.AnyWidget):
    """A plain plotly figure in the page, drawn with the page's plotly.js and updated in place."""

    _esm = _ESM
    #: the figure as the browser receives it (data, layout, config[, frames])
    figure = traitlets.Dict().tag(sync=True)
    #: bumped by :meth:`show` (a redraw request even when the figure dict compares equal)
    revision = traitlets.Int(0).tag(sync=True)
    #: send plotly click events to Python
    clicks = traitlets.Bool(False).tag(sync=True)

    def __init__(self, min_height="300px", **kw):
        super().__init__(layout=w.Layout(min_height=min_height, width="100%"), **kw)
        self.fig = None
        self._click_handlers = []
        self.on_msg(self._on_frontend_msg)

    # ------------------------------------------------------------------ whole figures
    def show(self, fig):
        """Draw ``fig`` (a ``go.Figure`` or a figure dict) in place of the current figure."""
        self.fig = fig if isinstance(fig, go.Figure) else go.Figure(fig, skip_invalid=True)
        d = _figure_dict(fig)
        with self.hold_sync():
            self.figure = d
            self.revision += 1

    @property
    def data(self):
        """The traces shown (``go`` trace objects, kept current by the incremental updates)."""
        return () if self.fig is None else self.fig.data

    # ------------------------------------------------------------------ incremental updates
    def restyle(self, index, **props):
        """Set properties of trace ``index`` (e.g. ``x=..., y=...``) in the browser and in :attr:`fig`."""
        tr = self.fig.data[index]
        for k, v in props.items():
            tr[k] = v
        update = {k: jsonable(v) for k, v in props.items()}
        self.figure["data"][index].update(update)
        self.send({"op": "restyle", "index": int(index), "update": update})

    def add_traces(self, traces):
        traces = list(traces)
        self.fig.add_traces(traces)
        js = [jsonable(t.to_plotly_json()) for t in traces]
        self.figure["data"].extend(js)
        self.send({"op": "add_traces", "traces": js})

    def delete_traces(self, indices):
        drop = {int(i) for i in indices}
        self.fig.data = [t for i, t in enumerate(self.fig.data) if i not in drop]
        self.figure["data"] = [t for i, t in enumerate(self.figure["data"]) if i not in drop]
        self.send({"op": "delete_traces", "indices": sorted(drop)})

    # ------------------------------------------------------------------ clicks
    def on_click(self, callback):
        """``callback(x, y, trace_index)`` for every click on data (``clicks`` is switched on)."""
        self._click_handlers.append(callback)
        self.clicks = True

    def _on_frontend_msg(self, _widget, content, _buffers):
        if not isinstance(content, dict) or content.get("event") != "click":
            return
        for cb in list(self._click_handlers):
            try:
                cb(content.get("x"), content.get("y"), content.get("curve"))
            except Exception:  # noqa: BLE001 - the handlers report their own errors; never break the comm
                log.exception("click handler")


def plotly_loader():
    """A hidden output holding an empty plotly figure: JupyterLab's plotly extension renders it, which loads
    plotly.js into the page (``window.Plotly``) for every :class:`PlotlyView`.  Hidden, it is neither redrawn nor
    snapshotted by the extension."""
    from .common import figure_bundle

    out = w.Output(layout=w.Layout(display="none"))
    out.outputs = (figure_bundle(go.Figure(layout={"height": 10, "width": 10})),)
    return out
