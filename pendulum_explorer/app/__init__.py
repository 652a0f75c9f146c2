"""Layer 4: the ipywidgets dashboard.  ``build_app()`` returns the top-level widget.

Panels (one module each): :mod:`.body_panel`, :mod:`.equilibria_panel`, :mod:`.section_panel`,
:mod:`.motion_panel`; they share an :class:`~.state.AppState` and are built lazily when their tab is first
opened.  The shell here wires the tabs, the header (:mod:`.shell_header`: body in use, presenter view, link, reset,
first steps) and the links (:mod:`.shell_links`).  Every figure is a :class:`~.plotview.PlotlyView` (drawn with the
page's plotly.js, updated in place, drawn only while visible); :func:`~.plotview.plotly_loader` makes the page load
plotly.js.
"""
from __future__ import annotations

import os
import threading

import ipywidgets as w

from . import i18n
from .autosave import Autosave
from .common import (Messages, body_title, freeze_startup_objects, guarded, limit_memory_arenas, log,
                     no_null_tooltips, report_error)
from .i18n import _
from .links import ViewLink, link_lang
from .pagebridge import PageBridge
from .plotview import figure_bundle, plotly_loader
from .shell_header import Header
from .shell_links import LinkActions, page_query, read_link
from .shell_text import TAB_TITLES, TABS  # noqa: F401 - part of this module's offer (tests, links)
from .state import AppState

#: seconds between the page's first draw of the body preview (the first view shown) and the background warm-up
#: of the other panels; PREWARM_FALLBACK seconds after the first view was sent if the page never says so (a link
#: that opens another tab)
PREWARM_DELAY = 0.5
PREWARM_FALLBACK = 30.0


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
        # the page's language first: everything below speaks it (the link's lang, else the browser's)
        asked = link_lang(query)
        accept = os.environ.get("HTTP_ACCEPT_LANGUAGE")
        i18n.set_language(i18n.choose(asked, accept))
        self.msg = Messages()
        self.msg.add_class("pe-app-message")
        link, linked, self.link_problem = read_link(query)
        self.link = link
        self.state = AppState(linked if linked is not None else body)
        if not link.is_default:
            self.state.body_origin = "the link"  # (translated where it is shown: shell_text.ORIGINS)
        self.panels = {}
        self.containers = {}
        for key, _title in TABS:
            box = w.VBox(layout=w.Layout(min_height="420px"))
            box.add_class(f"pe-{key}")
            box.add_class("pe-panel")
            self.containers[key] = box
        self.tabs = w.Tab(children=[self.containers[k] for k, _t in TABS], titles=[_(t) for _k, t in TABS])
        self.tabs.add_class("pe-tabs")
        self.header = h = Header(show_guide=link.is_default and not self.link_problem)
        # the header's controls that tests and links use, by their names on the dashboard
        self.presenter, self.body_in_use, self.link_text, self.guide = h.presenter, h.body_in_use, h.link_text, h.guide
        self.reset_row, self.reset_question = h.reset_row, h.reset_question
        self.bridge = PageBridge(lang_chosen=asked is not None or i18n.from_accept_language(accept) is not None)
        self.links = LinkActions(self)
        super().__init__([*h.top, self.msg, h.guide, self.bridge, plotly_loader(), self.tabs],
                         layout=w.Layout(width="100%"))
        self.add_class("pe-app")
        no_null_tooltips(self)
        self.presenter.observe(self._on_presenter, names="value")
        h.copy_link.on_click(self.links.copy)
        h.language.observe(self.links.switch_language, names="value")
        self.bridge.on_copied(self.links.copied)
        # the view and the section's levels kept in the browser, for a page whose kernel ended ("reconnect")
        self.autosave = Autosave(self)
        self.bridge.on_restore(self.autosave.restore)
        h.reset_btn.on_click(self._on_reset)
        h.reset_yes.on_click(self._on_reset_yes)
        self.state.listen("body", self._on_body)
        h.show_body(self.state.body, self.state.body_origin)
        self.panel("body")
        self.tabs.selected_index = 0
        self.tabs.observe(self._on_tab, names="selected_index")
        # requests between panels
        self.state.listen("tab_request", lambda key: key and self.show(key))
        self.state.listen("selection", lambda n: self._on_launch(self.state.selected))
        self.state.listen("motion_request", lambda launch: launch is not None and self._show_motion(launch))
        self.state.listen("panel_request", lambda key: key and self.panel(key))
        if self.link_problem:
            self.msg.error(_("This link could not be opened: {problem}. Showing the start view instead.").format(
                problem=self.link_problem))
        else:
            self.links.open(link)
        self._prewarm_once = threading.Lock()  # held by the prewarm that runs
        if prewarm:
            self.panels["body"].preview.on_drawn(lambda: self._start_prewarm(PREWARM_DELAY))
            self._start_prewarm(PREWARM_FALLBACK)

    def current_link(self) -> ViewLink:
        """The view shown now, as a :class:`~.links.ViewLink` (what "copy link to this view" writes)."""
        return self.links.current()

    # ------------------------------------------------------------------ presenter, body, reset
    def _on_presenter(self, change):
        on = bool(change["new"])
        if on:
            self.add_class("pe-presenter")
        else:
            self.remove_class("pe-presenter")
        self.state.set_presenter(on)

    def _on_body(self, body):
        self.header.show_body(self.state.body, self.state.body_origin)
        origin = self.state.body_origin
        if origin not in ("the Body tab", "reset", "the link", "the start view"):
            self.msg.info(_("The body changed to {body} (chosen by {origin}); the Body tab shows it.").format(
                body=body_title(body), origin=_(origin)))
            self._body_note = self.msg.text
        elif self.msg.text and self.msg.text == getattr(self, "_body_note", None):  # about the body before: no
            # longer true
            self.msg.clear()

    @guarded(what=i18n.N_("resetting"))
    def _on_reset(self, _b=None):
        self.header.ask_reset(len(self.state.launches))

    @guarded(what=i18n.N_("resetting"))
    def _on_reset_yes(self, _b=None):
        self.reset()

    def reset(self):
        """The start view: the default body, its default section level, the Body tab, no presenter view."""
        self.header.hide_reset()
        self.presenter.value = False
        self.header.show_link(None)
        self.panel("body").reset()
        self.show("body")
        self.msg.ok(_("Back to the start view."))
        self.header.show_guide(True)

    # ------------------------------------------------------------------ panels and tabs
    def _start_prewarm(self, delay):
        """:meth:`_prewarm` in a thread after ``delay`` seconds (once: the first of the two timers to end runs it)."""
        timer = threading.Timer(delay, self._prewarm)
        timer.name, timer.daemon = "pe-prewarm", True
        timer.start()

    def _prewarm(self):
        """While the user looks at the body panel: import what the other panels need, compute the default
        body's equilibria and build (not show) the section tab's figures at the start level: the first figure of
        a kind imports plotly's classes for it, 60-90 ms that the section tab's opening paid; then the objects made
        so far are left out of the garbage collector's full passes (:func:`.common.freeze_startup_objects`).  It starts shortly
        after the page has drawn the first view (a timer from the first view being sent could end while a slow
        page was still drawing, and the two competed for the CPU)."""
        if not self._prewarm_once.acquire(blocking=False):
            return
        try:
            from ..poincare import DASHBOARD_METHOD, PoincareSection, default_level
            from . import equilibria_panel, motion_panel, section_panel  # noqa: F401
            from .section_chart import SectionChart
            from .section_side import em_figure

            figure_bundle(em_figure(self.state))  # computes the body's equilibria (state.equilibria) first
            sec = PoincareSection.with_motion(self.state.pendulum, *default_level(self.state.pendulum),
                                              method=DASHBOARD_METHOD)
            figure_bundle(SectionChart(None, self.state).figure(sec, sec.chart_region(), []))
            freeze_startup_objects()
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
                report_error(msg, exc, _("building the {tab} panel").format(tab=_(dict(TABS)[key])))
                box.children = [msg]
                raise
            self.panels[key] = panel
            box.children = [no_null_tooltips(panel.widget)]
        return self.panels[key]

    def show(self, key):
        self.tabs.selected_index = [k for k, _t in TABS].index(key)

    def _show_motion(self, launch):
        """The Motion tab, playing ``launch`` (computed when the tab opens, or now if it is open)."""
        mot = self.panel("motion")
        mot.add_launch(launch, select=True)
        if TABS[self.tabs.selected_index or 0][0] == "motion":
            mot.on_show()
        else:
            self.show("motion")

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

    ``query``: a link's query string (see :mod:`.links`); default: the page's (:func:`.shell_links.page_query`:
    Voila's ``QUERY_STRING``; a preheated kernel waits for its page's request before it reads it).
    """
    limit_memory_arenas()
    if query is None:
        query = page_query()
    dash = Dashboard(body, prewarm=prewarm, query=query)
    dash.autosave.start()
    return dash


__all__ = ["build_app", "Dashboard", "AppState"]
