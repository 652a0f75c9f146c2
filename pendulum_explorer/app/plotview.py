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
* applies incremental updates (``restyle``, ``extend``, ``add_traces``, ``delete_traces``) sent as custom
  messages, e.g. the crossings streamed into the section chart (``extend``: only the new points travel); the
  browser coalesces the restyles and extends of several traces into one ``Plotly.restyle`` and paces them (after
  a redraw of d ms the next waits 2 d; after a click or key press outside a figure, 0.4 s; none while a mouse
  button is held on a chart, whose click a redraw would lose), so that a long redraw in a software-rendered
  browser does not delay the answer to a click (cancel) behind it;
* paints the points streamed into a scattergl marker trace at once on a 2D canvas over the plot (the stream
  layer) and lets Plotly draw them in one redraw when the stream ends (:meth:`PlotlyView.settle`, or 3 s
  without an update): in software WebGL a
  redraw repaints every point (3-9 us each, ~0.6 s for the 200 000 crossings of a fill) and the page's main
  thread waits for it, so one redraw per streamed update held clicks and the kernel's answers for up to 1.2 s;
* optionally sends plotly click events to Python (:meth:`PlotlyView.on_click`): the pointer's own position in data
  coordinates (not the data of the point Plotly hovers: a cell of a background grid, a nearby crossing), one click
  per press (a touch tap reaches Plotly twice: the touch and the emulated mouse click), the hover label of a tap
  removed (a finger never leaves the chart).

The Python side keeps the figure (``view.fig``, a ``go.Figure``) and the JSON the browser received
(``view.figure``) in step with every update, for the tests and the exports.
"""
from __future__ import annotations

import json
import re
import logging
from pathlib import Path

import anywidget
import ipywidgets as w
import numpy as np
import plotly.graph_objects as go
import traitlets
from plotly.io.json import to_json_plotly

from .i18n import _, number

# a child of the app's logger (configured in ``common``): this module imports nothing from the other app modules
log = logging.getLogger("pendulum_explorer.app.plotview")

#: the widget's JavaScript: ES modules by job in ``app/js/`` (package data, linted as modules), joined in
#: dependency order into the one module anywidget loads (:func:`bundle_js`)
JS_DIR = Path(__file__).with_name("js")
JS_MODULES = ("decode.js", "hooks.js", "stream.js", "motion_geom.js", "motion_instruments.js", "motion.js", "plot.js",
              "index.js")
#: the script that gives anywidget's models time to load their module: in the Voila page's head (the template
#: includes it) and first in the widgets' module (JupyterLab); a classic script, also linted
PATIENCE_JS = Path(__file__).with_name("voila_data") / "voila" / "templates" / "pendulum" / "patience.js"
_JS_IMPORT = re.compile(r'^import \{[^}]*\} from "\./[a-z_]+\.js";\n', re.M)
_JS_EXPORT = re.compile(r"^export (?=(?:const|let|function|async function|class) )", re.M)


def bundle_js() -> str:
    """The widget's one ES module: :data:`PATIENCE_JS`, then the modules of :data:`JS_MODULES` in order, their imports of each other
    dropped and their exports made plain declarations (``index.js`` keeps ``export default``)."""
    parts = [f"// ---- {PATIENCE_JS.relative_to(JS_DIR.parent.parent)}\n{PATIENCE_JS.read_text()}"]
    for name in JS_MODULES:
        text = _JS_EXPORT.sub("", _JS_IMPORT.sub("", (JS_DIR / name).read_text()))
        parts.append(f"// ---- app/js/{name}\n{text}")
    return "\n".join(parts)


ESM = bundle_js()

#: the config of every figure (a change of config would make ``Plotly.react`` start from scratch); no "Share
#: chart..." button (plotly.js uploads the figure to a cloud service from it; on by default), the PNG download stays
CONFIG = {"displaylogo": False, "responsive": True, "showSendToCloud": False,
          "modeBarButtonsToRemove": ["sendChartToCloud", "sendDataToCloud"]}



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

    _esm = ESM
    #: the figure as the browser receives it (data, layout, config[, frames])
    figure = traitlets.Dict().tag(sync=True)
    #: bumped by :meth:`show` (a redraw request even when the figure dict compares equal)
    revision = traitlets.Int(0).tag(sync=True)
    #: send plotly click events to Python
    clicks = traitlets.Bool(False).tag(sync=True)
    #: the figure's text alternative (its ``layout.meta["description"]``, set by :meth:`show`; :meth:`describe`
    #: keeps it current as traces stream in): the page makes it the graph's accessible name (role "figure")
    description = traitlets.Unicode("").tag(sync=True)
    #: the view's words in the page's language (:func:`plot_words`; the page falls back to English)
    words = traitlets.Dict().tag(sync=True)

    def __init__(self, min_height="300px", **kw):
        super().__init__(layout=w.Layout(min_height=min_height, width="100%"), **kw)
        self.words = plot_words()
        self.fig = None
        self._click_handlers = []
        self._drawn_handlers = []
        self.drawn = False  # the page has drawn a figure of this view (it says so once, at its first draw)
        self.on_msg(self._on_frontend_msg)

    # ------------------------------------------------------------------ whole figures
    def show(self, fig):
        """Draw ``fig`` (a ``go.Figure`` or a figure dict) in place of the current figure."""
        self.fig = fig if isinstance(fig, go.Figure) else go.Figure(fig, skip_invalid=True)
        d = _figure_dict(fig)
        meta = d.get("layout", {}).get("meta")
        with self.hold_sync():
            self.figure = d
            self.description = str(meta.get("description", "")) if isinstance(meta, dict) else ""
            self.revision += 1

    def describe(self, text: str) -> None:
        """A new text alternative for the figure shown (what it shows now, e.g. after new traces), in the browser
        and in :attr:`fig`'s ``layout.meta["description"]``."""
        if self.fig is not None:
            meta = self.fig.layout.meta
            self.fig.update_layout(meta=dict(meta if isinstance(meta, dict) else {}, description=text))
            self.figure.setdefault("layout", {})["meta"] = jsonable(self.fig.layout.meta)
        self.description = text

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

    def extend(self, index, **props):
        """Append points to the array properties of trace ``index`` (e.g. ``x=new_x, y=new_y``) in the browser
        and in :attr:`fig`: only the new points are sent (a growing trace is not resent whole)."""
        tr = self.fig.data[index]
        full = {}
        for k, v in props.items():
            old = tr[k]
            full[k] = np.concatenate([np.asarray(() if old is None else old, float), np.asarray(v, float)])
            tr[k] = full[k]
        self.figure["data"][index].update({k: jsonable(v) for k, v in full.items()})
        self.send({"op": "extend", "index": int(index), "update": {k: jsonable(v) for k, v in props.items()}})

    def settle(self):
        """The updates streamed so far are complete: the browser draws the points it holds on its stream layer now
        (otherwise when no update has come for a few seconds)."""
        self.send({"op": "settle"})

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

    def on_drawn(self, callback):
        """``callback()`` once, when the page has drawn this view's first figure."""
        self._drawn_handlers.append(callback)

    def _on_frontend_msg(self, _widget, content, _buffers):
        event = content.get("event") if isinstance(content, dict) else None
        if event == "drawn" and not self.drawn:
            self.drawn = True
            calls = [(cb, ()) for cb in self._drawn_handlers]
        elif event == "click":
            calls = [(cb, (content.get("x"), content.get("y"), content.get("curve"))) for cb in self._click_handlers]
        else:
            return
        for cb, args in calls:
            try:
                cb(*args)
            except Exception:  # noqa: BLE001 - the handlers report their own errors; never break the comm
                log.exception("%s handler", event)


class MotionView(PlotlyView):
    """A :class:`PlotlyView` that plays a motion next to its figure, in the browser, in true time.

    :meth:`show_motion` sends the mesh and the attitude samples once (``animation``, a
    :func:`~pendulum_explorer.plotting.body.motion_payload`: binary buffers) and the figure of the plots beside
    them; the browser draws the body and Gamma on the sphere on two canvases at its own frame rate, interpolating
    the attitude between samples (slerp) at the motion time ``t = t_start + speed x wall-clock time`` (1x = one
    second of motion per second), and moves the plots' "now" line.  Play / pause, the speed menu and the time
    slider are HTML controls (Tab, Enter, space and the arrow keys work).  ``height`` [px] sets the height of the
    views (0: a share of the window's height); their width follows the container (a presenter view enlarges both).
    """

    #: what the browser animates (empty: nothing yet)
    animation = traitlets.Dict().tag(sync=True)
    #: height of the views and of the plots [px]; 0: the share ``fill`` of the browser window's height (>= 340 px)
    height = traitlets.Int(0).tag(sync=True)
    #: share of the window's height the views take when ``height`` is 0
    fill = traitlets.Float(0.56).tag(sync=True)
    #: the views take the rest of the browser window below their top (at least 340 px, at most 0.45 of their
    #: width) instead of ``fill``: the presenter view, with the animation above the panel's controls
    fit = traitlets.Bool(False).tag(sync=True)
    #: size of the text, markers and lines drawn on the views (1: 12-13 px text; the presenter view enlarges it)
    scale = traitlets.Float(1.0).tag(sync=True)
    #: the motion time [s] the page shows, told by the page at most every 0.3 s while playing and at every pause
    #: or seek (a parameter changed while the motion plays continues it from there)
    now = traitlets.Float(0.0).tag(sync=True)
    def __init__(self, height: int = 0, **kw):
        super().__init__(min_height=f"{max(int(height), 340) + 40}px", **kw)
        self.words = dict(plot_words(), **motion_words())  # the player's words (:func:`motion_words`) too
        self.height = int(height)

    def show_motion(self, fig, payload: dict, keep_time: bool = False) -> None:
        """Play the motion ``payload`` (a ``motion_payload``) next to the figure ``fig`` (sent together);
        ``keep_time``: it continues the motion shown (the page keeps its time and plays on if it was playing)."""
        with self.hold_sync():
            self.animation = dict(payload, keep_time=bool(keep_time))
            self.show(fig)


def plot_words() -> dict[str, str]:
    """The words of every figure view in the page's language, for plot.js: what it writes when plotly.js cannot
    draw the figure."""
    return {"draw_error": _("could not draw the figure")}


def motion_words() -> dict[str, str]:
    """The motion player's words (play, pause, speed, the time readout, the energy bars, the views' captions) in
    the page's language, for motion.js and motion_instruments.js (``{t}``, ``{total}``, ``{sp}``, ``{c}``: filled in
    by the page)."""
    return {
        "play": _("▶ play"), "pause": _("❚❚ pause"), "play_aria": _("play the animation"),
        "pause_aria": _("pause the animation"), "speed": _("speed "), "speed_real": _("1× (real time)"),
        "time_aria": _("motion time"), "time": _("t = {t} s of {total} s"), "real": _(" (real time)"),
        "times_real": _(" ({sp}× real time)"),
        # the language's decimal sign for the numbers the page writes (time readout, stopwatch, energy bars)
        "decimal": number(0.5)[1],
        "body_caption": _("body, pivot and centre of mass (up is up)"),
        "sphere_caption": _("Γ(t) = Rᵀe₃ on the sphere (body frame)"),
        "body_view": _("the body in the lab frame"), "sphere_view": _("Gamma on the unit sphere, body frame"),
        "pivot": _("pivot"), "com": _("centre of mass (bold: last 2 s of its path)"),
        "gamma": _("Γ(t) (bold: last 2 s of its path)"), "hanging": _("hanging equilibrium ρ/|ρ|"),
        "energy": _("energy [J]"), "kinetic": _("kinetic energy"),
        "potential": _("potential energy U = −m g ρ·Γ (Eq 34)"), "total": _("total energy E (Eq 34)"),
        "damping": _("damping c = {c} N m s (not in the paper's model)"),
        # what a screen reader says of the views and the energy bars ({K}, {U}, {E}: the energies in J)
        "turn_hint": _(" (arrow keys or drag to turn the view)"),
        "bars_aria": _("energy bars: kinetic, potential, total"),
        "energy_now": _("energy: kinetic {K} J, potential {U} J, total {E} J"),
    }

def figure_bundle(fig):
    """The ``display_data`` output of a plain plotly figure (rendered by the plotly mime renderer)."""
    # what pio.renderers["plotly_mimetype"].to_mimebundle(d) returns, without importing plotly.io._renderers
    # (it pulls in nbformat -> jsonschema -> rfc3987_syntax: 5 s of import time in a fresh kernel)
    data = {"application/vnd.plotly.v1+json": _figure_dict(fig)}
    return {"output_type": "display_data", "metadata": {}, "data": data}


def plotly_loader():
    """A hidden output holding an empty plotly figure: JupyterLab's plotly extension renders it, which loads
    plotly.js into the page (``window.Plotly``) for every :class:`PlotlyView`.  Hidden, it is neither redrawn nor
    snapshotted by the extension."""
    out = w.Output(layout=w.Layout(display="none"))
    out.outputs = (figure_bundle(go.Figure(layout={"height": 10, "width": 10})),)
    return out
