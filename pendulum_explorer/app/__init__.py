"""Layer 4: the ipywidgets dashboard.  ``build_app()`` returns the top-level widget.

Panels (one module each): :mod:`.body_panel`, :mod:`.equilibria_panel`, :mod:`.section_panel`,
:mod:`.motion_panel`; they share an :class:`~.state.AppState` and are built lazily when their tab is first
opened.  Every figure is a :class:`~.plotview.PlotlyView` (drawn with the page's plotly.js, updated in place, drawn
only while visible); :func:`~.plotview.plotly_loader` makes the page load plotly.js.
"""
from __future__ import annotations

import os
import threading
import time

import ipywidgets as w

from . import shell_text as say
from .common import Messages, body_title, guarded, limit_memory_arenas, log, report_error
from .link_view import body_from_link, link_of_view
from .links import ViewLink, build_query, parse_query
from .pagebridge import PageBridge
from .plotview import plotly_loader
from .shell_text import GUIDE
from .state import AppState

#: seconds between the first view being sent and the background warm-up of the other panels
PREWARM_DELAY = 6.0

TABS = [("body", "Body"), ("equilibria", "Equilibria"), ("section", "Poincaré section"), ("motion", "Motion")]
TAB_TITLES = dict(TABS)

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
    """The app: a header (body in use, presenter view, link, reset) and four tabs.  ``panel(key)`` builds a panel
    on demand (tests use it too).  ``query`` is a link's query string (see :mod:`.links`)."""

    def __init__(self, body=None, prewarm=True, query=None, synchronous=False):
        self.synchronous = synchronous  # tests: the link's section work runs inline
        self.msg = Messages()
        self.msg.add_class("pe-app-message")
        self.link_problem = None
        link = ViewLink()
        try:
            link = parse_query(query)
            linked = body_from_link(link)
            if linked is not None:
                body = linked
        except ValueError as exc:
            link = ViewLink()
            self.link_problem = str(exc)
        self.link = link
        self.state = AppState(body)
        if not link.is_default:
            self.state.body_origin = "the link"
        self.panels = {}
        self.containers = {}
        for key, _title in TABS:
            box = w.VBox(layout=w.Layout(min_height="420px"))
            box.add_class(f"pe-{key}")
            box.add_class("pe-panel")
            self.containers[key] = box
        self.tabs = w.Tab(children=[self.containers[k] for k, _ in TABS], titles=[t for _, t in TABS])
        self.tabs.add_class("pe-tabs")
        title = w.HTML(say.TITLE)
        title.add_class("pe-title")
        # the one statement of the body in use, on every tab
        self.body_in_use = w.HTML(layout=w.Layout(flex="1 1 auto", min_width="260px"))
        self.body_in_use.add_class("pe-body-in-use")
        self.presenter = w.ToggleButton(value=False, description="presenter view", icon="television",
                                        tooltip="larger text and figures for a projector (link: presenter=1)",
                                        layout=w.Layout(width="150px"))
        self.presenter.add_class("pe-presenter-toggle")
        self.copy_link = w.Button(description="copy link to this view", icon="link",
                                  tooltip="a URL that opens the dashboard with this body, tab, level and seeds",
                                  layout=w.Layout(width="190px"))
        self.copy_link.add_class("pe-copy-link")
        self.reset_btn = w.Button(description="reset", icon="refresh", tooltip="back to the start view",
                                  layout=w.Layout(width="80px"))
        self.reset_btn.add_class("pe-reset")
        self.link_text = w.Text(description="link", layout=w.Layout(width="100%", display="none"),
                                style={"description_width": "40px"})
        self.link_text.add_class("pe-link-text")
        self.reset_yes = w.Button(description="yes, reset", button_style="danger", layout=w.Layout(width="120px"))
        self.reset_no = w.Button(description="keep my work", layout=w.Layout(width="140px"))
        self.reset_yes.add_class("pe-reset-yes")
        self.reset_question = w.HTML()
        self.reset_row = w.HBox([self.reset_question, self.reset_yes, self.reset_no],
                                layout=w.Layout(display="none", align_items="center"))
        self.guide_close = w.Button(description="got it", layout=w.Layout(width="80px", flex="0 0 auto"))
        self.guide = w.HBox([w.HTML(GUIDE, layout=w.Layout(flex="1 1 auto")), self.guide_close],
                            layout=w.Layout(align_items="center",
                                            display="flex" if link.is_default and not self.link_problem else "none"))
        self.guide.add_class("pe-guide-box")
        self.bridge = PageBridge()
        toolbar = w.HBox([self.body_in_use, self.presenter, self.copy_link, self.reset_btn],
                         layout=w.Layout(flex_flow="row wrap", align_items="center", width="100%"))
        super().__init__([title, toolbar, self.link_text, self.reset_row, self.msg, self.guide, self.bridge,
                          plotly_loader(), self.tabs], layout=w.Layout(width="100%"))
        self.add_class("pe-app")
        self.presenter.observe(self._on_presenter, names="value")
        self.copy_link.on_click(self._on_copy_link)
        self.bridge.on_copied(self._on_copied)
        self.reset_btn.on_click(self._on_reset)
        self.reset_yes.on_click(self._on_reset_yes)
        self.reset_no.on_click(lambda _b: self._hide_reset())
        self.guide_close.on_click(lambda _b: setattr(self.guide.layout, "display", "none"))
        self.state.observe("body", self._on_body)
        self._show_body_in_use()
        self.panel("body")
        self.tabs.selected_index = 0
        self.tabs.observe(self._on_tab, names="selected_index")
        # requests between panels
        self.state.observe("show_section", lambda **kw: self.show("section"))
        self.state.observe("launch", self._on_launch)
        if self.link_problem:
            self.msg.error(f"This link could not be opened: {self.link_problem}. Showing the start view instead.")
        else:
            self._apply_link(link)
        if prewarm:
            threading.Thread(target=self._prewarm, name="pe-prewarm", daemon=True).start()

    # ------------------------------------------------------------------ links
    def _apply_link(self, link):
        if link.presenter:
            self.presenter.value = True
        motion = link.omega0 is not None or link.T is not None
        if motion:
            self.panel("motion").set_motion(link.omega0, link.T)
        tab = link.tab if link.tab is not None else ("motion" if motion else None)
        if tab is not None:
            self.show(tab)
        if link.E is None and not link.launch:
            if not link.is_default:
                mot = self.panels.get("motion")
                what = "" if not (motion and mot is not None) else say.link_motion(
                    [b.value for b in mot.omega0], mot.t_final.value)
                self.msg.info(say.link_opened(body_title(self.state.body), TAB_TITLES.get(tab), motion=what))
            return
        sec = self.panel("section")
        if self.synchronous and hasattr(sec, "task"):
            sec.task.synchronous = True
        if self.synchronous:
            self._link_section(sec, link)
        else:
            threading.Thread(target=self._link_section, args=(sec, link), name="pe-link", daemon=True).start()

    def _link_section(self, sec, link):
        """The section part of a link: the level, then the seeds one after the other."""
        try:
            if link.E is not None:
                mu = link.mu if link.mu is not None else sec.default_mu(link.E)
                try:
                    sec.set_level(link.E, mu)
                except ValueError as exc:
                    self.msg.error(f"This link's level cannot be shown: {exc}")
                    return
            launched = 0
            for phi, z in link.launch:
                L = sec.launch_at(phi, z)
                if L is not None:
                    launched += 1
                    sec.task.wait()
            level = f"E = {sec.section.energy:.5g} J, μ = {sec.section.mu:.4g} kg m²/s"
            self.msg.info(say.link_opened(body_title(self.state.body), level=level, launched=launched,
                                          asked=len(link.launch)))
        except Exception as exc:  # noqa: BLE001 - the page must stay usable
            report_error(self.msg, exc, "opening the link")

    def current_link(self) -> ViewLink:
        """The view shown now, as a :class:`~.links.ViewLink` (what "copy link to this view" writes)."""
        tab = TABS[self.tabs.selected_index or 0][0]
        sec, mot = self.panels.get("section"), self.panels.get("motion")
        shown = sec is not None and getattr(sec, "section", None) is not None and self.state.E is not None
        motion = None
        if tab == "motion" and mot is not None and mot.choice.value == 0:  # the motion "ω₀ below"
            motion = (tuple(float(b.value) for b in mot.omega0), float(mot.t_final.value))
        return link_of_view(self.state.body, tab, self.state.presenter, (self.state.E, self.state.mu) if shown else None,
                            list(self.state.launches), motion)

    @guarded(what="making the link")
    def _on_copy_link(self, _b=None):
        query = build_query(self.current_link())
        base = self.bridge.base_url
        self.link_text.value = (base + "?" + query) if base else "?" + query
        self.link_text.layout.display = "flex"
        self.bridge.copy(query)
        n = len(self.current_link().launch)
        self.msg.info("Link to this view below" + (f" ({n} trajectories as seeds)" if n else "")
                      + "; copying it to the clipboard…")

    def _on_copied(self, url, ok):
        self.link_text.value = url
        self.msg.ok("Link copied to the clipboard (also in the box above)." if ok else
                    "The browser did not allow copying: select the link in the box above and copy it.")

    # ------------------------------------------------------------------ presenter, body, reset
    def _on_presenter(self, change):
        on = bool(change["new"])
        if on:
            self.add_class("pe-presenter")
        else:
            self.remove_class("pe-presenter")
        self.state.set_presenter(on)

    def _show_body_in_use(self):
        self.body_in_use.value = say.body_in_use(self.state.body, self.state.body_origin)

    def _on_body(self, body):
        self._show_body_in_use()
        origin = self.state.body_origin
        if origin not in ("the Body tab", "reset", "the link", "the start view"):
            self.msg.info(f"The body changed to {body_title(body)} (chosen by {origin}); the Body tab shows it.")

    @guarded(what="resetting")
    def _on_reset(self, _b=None):
        self.reset_question.value = say.reset_question(len(self.state.launches))
        self.reset_row.layout.display = "flex"

    def _hide_reset(self):
        self.reset_row.layout.display = "none"

    @guarded(what="resetting")
    def _on_reset_yes(self, _b=None):
        self.reset()

    def reset(self):
        """The start view: the default body, its default section level, the Body tab, no presenter view."""
        self._hide_reset()
        self.presenter.value = False
        self.link_text.layout.display = "none"
        self.panel("body").reset()
        self.show("body")
        self.msg.ok("Back to the start view.")
        self.guide.layout.display = "flex"

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


def build_app(body=None, prewarm=True, query=None):
    """The dashboard widget (default body: the paper's Fig. 1 elliptic cylinder).

    ``query``: a link's query string (see :mod:`.links`); default: the ``QUERY_STRING`` environment variable,
    which Voila sets to the page's query string in the kernel it starts.
    """
    limit_memory_arenas()
    if query is None:
        query = os.environ.get("QUERY_STRING", "")
    return Dashboard(body, prewarm=prewarm, query=query)


__all__ = ["build_app", "Dashboard", "AppState"]
