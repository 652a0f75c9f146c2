"""Shared pieces of the dashboard: messages, error guard, figure display, background tasks."""
from __future__ import annotations

import functools
import gc
import html
import logging
import threading
import time

import ipywidgets as w

from ..plotting.colours import PALETTE  # noqa: F401  (the panels' trajectory colours, re-exported)
from .i18n import N_, _
from .plotview import PlotlyView, figure_bundle  # noqa: F401 - figure_bundle is part of this module's offer

log = logging.getLogger("pendulum_explorer.app")
if not log.handlers:  # the server log (Voila's stderr)
    _h = logging.StreamHandler()
    _h.setFormatter(logging.Formatter("%(asctime)s %(name)s %(levelname)s: %(message)s"))
    log.addHandler(_h)
    log.setLevel(logging.INFO)
    log.propagate = False

#: what the page calls the presets (the library's names are identifiers)
PRESET_TITLES = {
    "paper_fig1": N_("Fig. 1 elliptic cylinder (paper)"),
    "paper_fig2": N_("Fig. 2 body (paper)"),
    "lagrange_top": N_("Symmetric (Lagrange) top"),
    "planar": N_("Planar pendulum (rod)"),
}


def body_title(body):
    """The name of ``body`` as the page shows it (a preset's title in the page's language, else the body's own
    name)."""
    return _(PRESET_TITLES[body.name]) if body.name in PRESET_TITLES else body.name



_STYLES = {
    "info": "color:#1a1a1a;background:#eef5fb;border-left:4px solid #0072B2;",
    "ok": "color:#1a1a1a;background:#eef8f3;border-left:4px solid #009E73;",
    "error": "color:#1a1a1a;background:#fdf0e6;border-left:4px solid #D55E00;",
}


class Messages(w.HTML):
    """A panel's message area (CSS class ``pe-message``); ``.kind`` and ``.text`` hold the last message."""

    def __init__(self, **kw):
        super().__init__(value="", **kw)
        self.add_class("pe-message")
        self.kind = ""
        self.text = ""
        self.layout.min_height = "1.6em"

    def show(self, text, kind="info"):
        self.kind = kind
        self.text = str(text)
        style = _STYLES.get(kind, _STYLES["info"])
        self.value = (f'<div class="pe-message-{kind}" style="{style}padding:3px 8px;font-size:14px;line-height:1.4;'
                      f'white-space:pre-wrap;">{html.escape(self.text)}</div>')

    def info(self, text):
        self.show(text, "info")

    def ok(self, text):
        self.show(text, "ok")

    def error(self, text):
        self.show(text, "error")

    def clear(self):
        self.kind = ""
        self.text = ""
        self.value = ""


def limit_memory_arenas(n=2):
    """Cap glibc's malloc arenas (Linux): every worker thread would otherwise get its own arena and the
    kernel's resident memory grows by tens of MB per panel thread.  No-op elsewhere."""
    try:
        import ctypes

        libc = ctypes.CDLL("libc.so.6")
        libc.mallopt(-8, int(n))  # M_ARENA_MAX
        # M_MMAP_THRESHOLD fixed at 256 kB: big temporary buffers (figure JSON, grids, crossings) are mapped
        # and unmapped instead of fragmenting the heap (glibc's default threshold grows up to 32 MB)
        libc.mallopt(-3, 256 * 1024)
    except (OSError, AttributeError):
        pass


def freeze_startup_objects():
    """Leave the objects made so far (modules, compiled kernels, the first view: ~170 000 in a dashboard kernel)
    out of the cyclic garbage collector's full passes: one collection, then :func:`gc.freeze`.  A full pass over
    them took 80-150 ms and fell at random into a tab's opening or a click's answer; after it, ~1 ms.  Reference
    counting still frees them; only a cycle among them left unreachable later stays in memory."""
    gc.collect()
    gc.freeze()


def release_free_memory():
    """Return freed heap pages to the OS after a long task (glibc ``malloc_trim``); no-op elsewhere."""
    try:
        import ctypes

        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        pass


def no_null_tooltips(root):
    """Give every widget under ``root`` without a tooltip an empty one: ipywidgets 8 writes the tooltip into its
    label's ``title`` and a missing one as the word "null", which screen readers and hover hints then say."""
    seen, todo = set(), [root]
    while todo:
        x = todo.pop()
        if id(x) in seen or not isinstance(x, w.Widget):
            continue
        seen.add(id(x))
        if x.has_trait("tooltip") and x.tooltip is None:
            x.tooltip = ""
        todo.extend(getattr(x, "children", ()) or ())
    return root


def report_error(msg, exc, what):
    """Turn an exception into a panel message: input errors (ValueError) verbatim, anything else as an internal
    error whose traceback goes to the server log only."""
    if isinstance(exc, ValueError):
        log.info("%s: %s", what, exc)
        msg.error(str(exc))
    else:
        log.error("internal error while %s", what, exc_info=exc)
        msg.error(_("Internal error while {what} ({error}); details are in the server log.").format(
            what=_(what), error=type(exc).__name__))


def guarded(msg_attr="msg", what=None):
    """Decorator for panel methods used as callbacks: no exception escapes to the page."""

    def deco(fn):
        label = what or fn.__name__.strip("_").replace("_", " ")

        @functools.wraps(fn)
        def wrapper(self, *args, **kwargs):
            try:
                return fn(self, *args, **kwargs)
            except Exception as exc:  # noqa: BLE001 - this is the error boundary
                report_error(getattr(self, msg_attr), exc, label)
                return None

        return wrapper

    return deco


def figure_output(min_height="300px"):
    """An empty figure view (:class:`~.plotview.PlotlyView`)."""
    return PlotlyView(min_height=min_height)


class Task:
    """Long work in a thread with a progress bar and a cancel button; other controls stay usable.

    ``fn(task)`` runs in the thread; it calls ``task.progress(fraction)``, checks ``task.cancelled`` and may
    stream results through callbacks of its own.  Errors end up in the panel's message area.
    """

    def __init__(self, msg, label="working"):
        self.msg = msg
        self.bar = w.FloatProgress(value=0.0, min=0.0, max=1.0, description="", bar_style="info",
                                   layout=w.Layout(width="220px", visibility="hidden"))
        self.bar.add_class("pe-progress")  # a stable hook (ipywidgets 8 names it widget-hprogress, 7 widget-progress)
        self.cancel_button = w.Button(description=_("cancel"), icon="stop", button_style="warning",
                                      layout=w.Layout(width="auto", min_width="90px", visibility="hidden"),
                                      tooltip=_("stop the running computation"))
        self.cancel_button.add_class("pe-cancel")
        self.cancel_button.on_click(lambda _b: self.cancel())
        self.label = w.Label("", layout=w.Layout(width="auto"))
        # the label goes under the bar when the row is too narrow for it ("chaos map 16×12: 58/116 cells" was cut
        # to "chaos map 16×12: 5" in the section's side column at 1024 x 768)
        self.widget = w.HBox([self.bar, self.cancel_button, self.label],
                             layout=w.Layout(flex_flow="row wrap", align_items="center"))
        self._thread = None
        self._cancel = threading.Event()  # the running (or last) run's cancel
        self._run = threading.local()  # in a run's thread: that run's cancel (a run that outlived stop() keeps it)
        self.synchronous = False  # tests: run inline
        self.last_error = None
        #: boxes shown only while the task runs or its label says something (the section's progress row: an empty
        #: 40 px band between the message and the controls otherwise)
        self.collapse = []

    @property
    def running(self):
        return self._thread is not None and self._thread.is_alive()

    @property
    def cancelled(self):
        """Whether the run asking (in its thread; elsewhere: the last run) was cancelled.  A run that did not stop
        within ``stop``'s wait stays cancelled when the next one starts."""
        return getattr(self._run, "cancel", self._cancel).is_set()

    def cancel(self):
        self._cancel.set()

    def settle(self):
        """Hide the progress bar and the cancel button and say how the task ended (the task's last updates may
        follow: a cancelled task answers before it tidies up)."""
        self.bar.layout.visibility = "hidden"
        self.cancel_button.layout.visibility = "hidden"
        self.label.value = (_("cancelled") if self.cancelled else "") if self.last_error is None else ""
        for box in self.collapse:
            box.layout.display = "" if self.label.value else "none"

    def progress(self, fraction, text=None):
        if getattr(self._run, "cancel", self._cancel) is not self._cancel:
            return  # a superseded run: the bar is the next run's
        self.bar.value = max(0.0, min(1.0, float(fraction)))
        if text is not None:
            self.label.value = text

    def stop(self, timeout=10):
        """Cancel the running task (if any) and wait for it: its last words (what a cancel kept) come before what
        the caller says next."""
        if self.running:
            self.cancel()
            self._thread.join(timeout=timeout)

    def start(self, fn, what, on_done=None):
        """Run ``fn(self)``; a running task is cancelled first and waited for."""
        self.stop()
        self._cancel = threading.Event()
        self.last_error = None
        self.bar.value = 0.0
        self.bar.bar_style = "info"
        self.bar.layout.visibility = "visible"
        self.cancel_button.layout.visibility = "visible"
        self.label.value = what
        for box in self.collapse:
            box.layout.display = ""

        cancel = self._cancel

        def run():
            t0 = time.perf_counter()
            outer = getattr(self._run, "cancel", None)
            self._run.cancel = cancel
            try:
                fn(self)
                if on_done is not None and not self.cancelled:
                    on_done()
            except Exception as exc:  # noqa: BLE001 - error boundary of the thread
                self.last_error = exc
                report_error(self.msg, exc, what)  # (what: already in the page's language)
            finally:
                if self._cancel is cancel:  # a run the next one superseded leaves the bar to it
                    self.settle()
                log.info("%s: %.2f s%s", what, time.perf_counter() - t0, " (cancelled)" if self.cancelled else "")
                if outer is None:
                    del self._run.cancel
                else:
                    self._run.cancel = outer
                release_free_memory()

        if self.synchronous:
            run()
        else:
            self._thread = threading.Thread(target=run, name=f"pe-{what}", daemon=True)
            self._thread.start()

    def wait(self, timeout=120):
        if self._thread is not None:
            self._thread.join(timeout)


def about(html_text, title=None):
    """A collapsed "About" box holding the equations (HTMLMath)."""
    box = w.Accordion(children=[w.HTMLMath(value=html_text, layout=w.Layout(max_width="60em"))], 
                        titles=(_("About") if title is None else title,))
    box.selected_index = None
    box.add_class("pe-about")
    return box


def fmt(v, digits=4):
    return f"{float(v):.{digits}g}"
