"""Layer 4: the ipywidgets dashboard.  ``build_app()`` returns the top-level widget.

Panels (one module each): :mod:`.body_panel`, :mod:`.equilibria_panel`, :mod:`.section_panel`,
:mod:`.motion_panel`; they share an :class:`~.state.AppState` and are built lazily when their tab is first
opened.  Every figure is a :class:`~.plotview.PlotlyView` (drawn with the page's plotly.js, updated in place, drawn
only while visible); :func:`~.plotview.plotly_loader` makes the page load plotly.js.
"""
from __future__ import annotations

import threading
import time

import ipywidgets as w

from .common import Messages, limit_memory_arenas, log, report_error
from .plotview import plotly_loader
from .state import AppState

#: seconds between the first view being sent and the background warm-up of the other panels
PREWARM_DELAY = 6.0

TABS = [("body", "Body"), ("equilibria", "Equilibria"), ("section", "Poincaré section"), ("motion", "Motion")]

_CSS = """<style>
.pe-app { font-size: 14px; }
.pe-app .widget-tab > .p-TabBar .p-TabBar-tab, .pe-app .lm-TabBar-tab { min-width: 150px; font-size: 14px; }
.pe-app .pe-about .widget-htmlmath { font-size: 14px; line-height: 1.4; }
</style>"""


def _panel_class(key):
    if key == "body":
        from .body_panel import BodyPanel
        return BodyPanel
    if key == "equilibria":
        from .equilibria_panel import EquilibriaPanel
        return EquilibriaPanel
    if key == "section":
        from .section_panel import SectionPanel
        return SectionPanel
    if key == "motion":
        from .motion_panel import MotionPanel
        return MotionPanel
    raise KeyError(key)


class Dashboard(w.VBox):
    """The app: a header and four tabs.  ``panel(key)`` builds a panel on demand (tests use it too)."""

    def __init__(self, body=None, prewarm=True):
        self.state = AppState(body)
        self.panels = {}
        self.containers = {}
        for key, _title in TABS:
            box = w.VBox(layout=w.Layout(min_height="420px"))
            box.add_class(f"pe-{key}")
            box.add_class("pe-panel")
            self.containers[key] = box
        self.tabs = w.Tab(children=[self.containers[k] for k, _ in TABS], titles=[t for _, t in TABS])
        self.tabs.add_class("pe-tabs")
        header = w.HTML(_CSS + "<div style='font-size:18px;font-weight:600;margin:2px 0 4px 2px'>"
                        "Pendulum Explorer <span style='font-weight:400;font-size:14px;color:#555'>— the 3D "
                        "pendulum: a rigid body on a fixed pivot in gravity</span></div>")
        super().__init__([header, plotly_loader(), self.tabs], layout=w.Layout(width="100%"))
        self.add_class("pe-app")
        self.panel("body")
        self.tabs.selected_index = 0
        self.tabs.observe(self._on_tab, names="selected_index")
        # requests between panels
        self.state.observe("show_section", lambda **kw: self.show("section"))
        self.state.observe("launch", self._on_launch)
        if prewarm:
            threading.Thread(target=self._prewarm, name="pe-prewarm", daemon=True).start()

    def _prewarm(self):
        """While the user looks at the body panel: import what the other panels need and compute the default
        body's equilibria.  It waits until the browser has had time to draw the first view, so the two do not
        compete for the CPU."""
        time.sleep(PREWARM_DELAY)
        try:
            from . import equilibria_panel, motion_panel, section_panel  # noqa: F401

            self.state.equilibria()
        except Exception:  # noqa: BLE001
            log.exception("prewarm")

    def panel(self, key):
        """The panel ``key``, built on first use."""
        if key not in self.panels:
            box = self.containers[key]
            try:
                panel = _panel_class(key)(self.state)
            except Exception as exc:  # noqa: BLE001 - the page must stay usable
                msg = Messages()
                report_error(msg, exc, f"building the {key} panel")
                box.children = [msg]
                raise
            self.panels[key] = panel
            box.children = [panel.widget]
        return self.panels[key]

    def show(self, key):
        self.tabs.selected_index = [k for k, _ in TABS].index(key)

    def _on_launch(self, launch):
        if "motion" in self.panels:
            return
        # the motion panel is not built yet: build it so that it lists the launch
        try:
            self.panel("motion").add_launch(launch, select=True)
        except Exception:  # noqa: BLE001
            log.exception("motion panel")

    def _on_tab(self, change):
        idx = change["new"]
        if idx is None:
            return
        key = TABS[idx][0]
        try:
            panel = self.panel(key)
            if hasattr(panel, "on_show"):
                panel.on_show()
        except Exception:  # noqa: BLE001 - already reported in the panel area
            log.exception("opening tab %s", key)


def build_app(body=None, prewarm=True):
    """The dashboard widget (default body: the paper's Fig. 1 elliptic cylinder)."""
    limit_memory_arenas()
    return Dashboard(body, prewarm=prewarm)


__all__ = ["build_app", "Dashboard", "AppState"]
