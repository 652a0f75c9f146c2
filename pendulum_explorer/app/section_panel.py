"""Panel 3: the Poincaré section at (E, mu): click (or type) to launch, fill, clear, undo, saved levels.

Widgets and wiring only.  The section, its levels, seeds and chunked crossings are :class:`PoincareSection`'s
(:mod:`pendulum_explorer.poincare`); the panel's parts are :mod:`.section_levels` (E, μ controls),
:mod:`.section_chart` (the chart's traces), :mod:`.section_runs` (launches and their crossings, streamed in a
task), :mod:`.section_tools` (chaos map and periodic orbits; files and the paper's presets), :mod:`.section_side`
(the energy–momentum diagram and the crossings on the sphere), :mod:`.history`
(what a level change set aside) and :mod:`.section_text` (what the panel says).  Public methods for other
panels and links: :meth:`SectionPanel.set_level`, :meth:`SectionPanel.default_mu`, and the launches'
``launch``, ``launch_at``, ``launch_seed`` and ``fill`` (:class:`.section_runs.Runs`' methods, by their names on
the panel).
"""
from __future__ import annotations

import threading
import time

import ipywidgets as w

from ..errors import InaccessibleError
from ..plotting.section import zoom_chart
from ..poincare import DASHBOARD_METHOD, PoincareSection, default_level
from . import section_text as say
from .common import Messages, Task, about, body_title, figure_output, guarded, report_error
from .history import History
from .i18n import N_, _
from .section_chart import HEIGHT as CHART_HEIGHT
from .section_chart import SectionChart
from .plausible import check_plausible_level
from .section_levels import LevelControls
from .section_orbits import OrbitLayers
from .section_runs import Runs
from .section_side import SideFigures
from .section_text import about_html
from .section_tools import ChaosTools, LaunchControls, SessionFiles, UndoControls


class SectionPanel:
    def __init__(self, state):
        self.state = state
        self.msg = Messages()
        self.levels = LevelControls(self._on_level_control)
        self.E, self.E_slider, self.mu, self.mu_slider = (self.levels.E, self.levels.E_slider, self.levels.mu,
                                                          self.levels.mu_slider)
        self.ranges, self.level_msg = self.levels.ranges, self.levels.msg
        self.task = Task(self.msg)  # click launches and fills share it (a new one cancels the running one)
        self.section = self.region = None
        # the chaos map under the crossings and the periodic orbits found belong to the level shown (set aside
        # with its trajectories by a level change, a new body or clear)
        self.chaos, self.orbits = None, []
        self.history = History()
        self.busy = threading.RLock()
        self._shown = None  # (body, launches list) the chart shows
        self._level_after_body = None  # (E, mu) for the next body event instead of the default level
        self.chart = figure_output(f"{CHART_HEIGHT}px")  # clicks on it launch trajectories
        self.chart.add_class("pe-section-chart")
        self.traces = SectionChart(self.chart, state)
        self.inputs = LaunchControls()
        self.runs = Runs(state, self.traces, self.msg, self.history, lambda: self.section, self.busy, self.task,
                         lambda: self.inputs.n_cross.value)
        self.launch_at, self.launch, self.launch_seed, self.fill = (self.runs.launch_at, self.runs.launch,
                                                                    self.runs.launch_seed, self.runs.fill)
        self.timings = self.runs.timings
        self.maps, self.files = ChaosTools(self), SessionFiles(self)
        self.undos, self.side = UndoControls(self), SideFigures(state, self.msg)
        self.orbit_layers = OrbitLayers(self)  # follow in E, draw manifolds (issue 21)
        # the parts' controls that other panels, links and tests use, by their names on the panel
        self.po_mode, self.po_k, self.export_btn, self.saved, self.em_out = (
            self.maps.po_mode, self.maps.po_k, self.files.export_btn, self.undos.saved, self.side.em_out)
        self.n_cross, self.phi_in, self.z_in, self.launch_btn = (self.inputs.n_cross, self.inputs.phi_in,
                                                                 self.inputs.z_in, self.inputs.launch_btn)

        self.task.bar.layout.width = "160px"
        # the chart first, under the level row only, and beside it (below it on a phone) a column with the messages,
        # the progress bar and the controls: at 1024x768 and 1280x720 the whole chart is in the first screen (with
        # the controls above it, its top was at y = 400-465); a message or the progress bar moves only the controls
        # under them.  The message slot is as high as its text (a fixed 5em cut a message's last line at 62 px, and
        # left a band under a one-line one) and the progress row is there only while a task runs or says how it
        # ended: reserved, the two left an empty band of 56-72 px between the message and the controls
        messages = w.VBox([self.level_msg, self.msg])
        self.level_msg.layout.min_height = self.msg.layout.min_height = "0"
        row = dict(flex_flow="row wrap", align_items="center")
        progress_row = w.HBox([self.task.widget], layout=w.Layout(display="none", **row))
        progress_row.add_class("pe-progress-row")
        self.task.collapse.append(progress_row)
        controls = w.VBox([
            messages, progress_row,
            w.HBox([self.n_cross, self.inputs.fill_btn, self.inputs.n_fill], layout=w.Layout(**row)),
            w.HBox([self.undos.undo_btn, self.undos.clear_btn, self.export_btn, self.files.load], layout=w.Layout(**row)),
            self.maps.widget, self.orbit_layers.widget, self.inputs.keys, self.saved, self.ranges, *self.side.widgets],
            layout=w.Layout(width="40%", padding="0 0 0 10px"))
        self.widget = w.VBox([
            w.HBox([self.E, self.orbit_layers.slider_box(self.E_slider), self.mu, self.mu_slider,
                    self.files.paper], layout=w.Layout(**row)),
            w.HBox([w.VBox([self.chart, self.orbit_layers.diagram], layout=w.Layout(width="60%")), controls]),
            self.files.downloads, about(about_html(), _("About: the Poincaré section"))])

        self.chart.on_click(self._on_chart_click)
        for b, action in ((self.inputs.fill_btn, lambda: self.fill(int(self.inputs.n_fill.value))),
                          (self.side.sphere_btn, self.draw_sphere),
                          (self.launch_btn, lambda: self.launch([(self.phi_in.value, self.z_in.value)]))):
            b.on_click(lambda _b, action=action, what=b.description: self.guard(action, what))
        state.listen("body", self._on_body)
        state.listen("level_request", lambda r: r is not None and self._on_level_request(r.E, r.mu, r.seed, r.source,
                                                                                         r.zoom))
        state.listen("presenter", self._on_presenter)
        self.chaos_map, self.find_orbit = self.maps.chaos_map, self.maps.find_orbit
        self.paper_preset, self.load_session = self.files.paper_preset, self.files.load_session
        self.export_csv, self.export_json = self.files.export_csv, self.files.export_json
        self.clear, self.undo = self.undos.clear, self.undos.undo
        self.set_level(*self._default_level())

    # ================================================================== level (E, mu), body
    def _default_level(self):
        """The level in use (kept across panels in the state), else the new body's :func:`default_level`."""
        return (self.state.E, self.state.mu) if self.state.E is not None else default_level(self.state.pendulum)

    def default_mu(self, E):
        """The mu of the start level at energy E (the paper's R0 = I, omega0 = c[1,1,1]; 0 without a real c)."""
        return default_level(self.state.pendulum, E)[1]

    def set_level(self, E, mu, keep=False, changed="E"):
        """New section at (E, mu): region, chart, diagram.  Unless ``keep``, the trajectories shown are set aside
        (undo and "saved levels" bring them back).

        An (E, mu) without motion (empty section) raises :class:`InaccessibleError` naming the admissible range
        of ``changed`` ("E" or "mu") and changes nothing: the last valid section, its trajectories and the controls
        stay as they were."""
        t0 = time.perf_counter()
        try:
            sec = PoincareSection.with_motion(self.state.pendulum, E, mu, varied="mu" if changed == "mu" else "energy",
                                              method=DASHBOARD_METHOD)
            check_plausible_level(self.state.pendulum, E, mu)  # a level with motion, but beyond the dashboard's
        except InaccessibleError as exc:
            if self.section is not None and self.section.pendulum == self.state.pendulum:
                raise InaccessibleError(say.level_kept(exc, self.section.energy, self.section.mu)) from None
            raise
        with self.busy:
            self.task.cancel()
            aside = None if keep else self.set_aside(N_("the level changed"))
            old, self.section, self.region = self.section, sec, sec.chart_region()
            if not (keep and old is not None and (old.pendulum, old.energy, old.mu) == (sec.pendulum, sec.energy,
                                                                                          sec.mu)):
                self.chaos, self.orbits = None, []  # they belong to the old level (set aside with it unless keep)
            self.state.E, self.state.mu = sec.energy, sec.mu
            if not keep:
                self.state.launches = []
            self.levels.show(sec, self.region, sec.critical_energies(self.state.equilibria()))
            self.show_launches(self.state.launches)
            self.runs.colour_index = len(self.state.launches)
        self.side.draw_em()
        self.files.sync_paper(self.state.body, sec.energy)
        self.level_msg.clear()
        if not keep:
            self.msg.info(say.new_level(sec.energy, sec.mu, aside))
        self.orbit_layers.level_changed(sec)  # a followed family's members at this E
        self.timings["set_level"] = time.perf_counter() - t0

    def set_aside(self, what):
        """Keep the trajectories the chart shows, with the chaos map and the periodic orbits of the level, in the
        history (None if there are none); the chart then has no map and no orbits."""
        if self._shown is None or self.section is None:
            return None
        body, launches = self._shown
        self._shown = None
        s = self.history.set_aside(body, self.section.energy, self.section.mu, list(launches), what, self.chaos,
                                   self.orbits)
        self.chaos, self.orbits = None, []
        self.undos.menu()
        return s

    def _on_level_control(self, E, mu, changed):
        """A level control changed (None: the other one keeps the level in use): the new section, or the message
        under the controls and the controls set back to the section in use."""
        try:
            self.set_level(self.state.E if E is None else float(E), self.state.mu if mu is None else float(mu),
                           changed=changed)
        except Exception as exc:  # noqa: BLE001 - the error boundary of the level controls
            report_error(self.level_msg, exc, _("setting {name}").format(name=changed))
            if self.section is not None and self.section.pendulum == self.state.pendulum:
                self.levels.show(self.section, self.region, self.section.critical_energies(self.state.equilibria()))

    def _on_body(self, body):
        self.state.E = None
        level, self._level_after_body = self._level_after_body, None
        try:
            aside = self.set_aside(N_("the body changed"))
            E, mu = level if level is not None else self._default_level()
            try:
                self.set_level(E, mu)
            except InaccessibleError:  # a requested level without motion for this body: its default level
                E, mu = self._default_level()
                self.set_level(E, mu)
            self.msg.info(say.new_body(body_title(body), E, mu, aside))
        except Exception as exc:  # noqa: BLE001
            report_error(self.msg, exc, _("redrawing the section for the new body"))

    def set_body_and_level(self, body, E, mu, origin="a loaded session"):
        """Use ``body`` (if it is not the current one) and show the section at (E, mu): one chart, not two."""
        if body is not self.state.body:
            self._level_after_body = (E, mu)
            try:
                self.state.set_body(body, origin=origin)
            finally:
                self._level_after_body = None
            if self.section is not None and (self.section.energy, self.section.mu) == (E, mu) and \
                    self.section.pendulum == body.pendulum:
                return
        self.set_level(E, mu)

    @guarded(what=N_("launching near the equilibrium"))
    def _on_level_request(self, E, mu, seed=None, source="nearby", zoom=None):
        self.set_level(E, mu)
        if zoom is not None:
            self.zoom_to(*zoom)
        if seed is not None:
            self.launch_seed(seed, source=source)

    # ================================================================== drawing
    def _on_presenter(self, on):
        """The presenter view: the chart and the diagram larger, the crossings' markers bigger."""
        if self.section is not None:
            with self.busy:
                self.chart.layout.min_height = f"{self.state.size(CHART_HEIGHT)}px"
                self.redraw()
            self.side.draw_em()

    def zoom_to(self, phi0, phi1, z0, z1):
        """Show the chart window phi0..phi1, Gamma_3 = z0..z1 (a launch near a stable equilibrium: its crossings
        stay in a small loop); plotly's "reset axes" or a new level shows the whole chart again."""
        self.chart.show(zoom_chart(self.chart.fig, self.section, (phi0, phi1, z0, z1), self.chaos))

    def redraw(self):
        """The whole chart: region, chaos map, the launches shown and the periodic orbits (call under busy)."""
        self.traces.draw(self.section, self.region, self.state.launches, self.chaos, self.orbits,
                         self.orbit_layers.overlays())

    def show_launches(self, launches):
        """The chart shows ``launches`` (the state's list), the level's map and orbits (call under busy)."""
        self._shown = (self.state.body, launches)
        self.redraw()

    def crossing_traces(self):
        """The chart traces that hold crossings (tests)."""
        return self.traces.traces()

    def draw_sphere(self):
        """The crossings shown on the chart, on the sphere ("draw on sphere")."""
        self.side.draw_sphere(self.section, self.region)

    # ================================================================== launching
    def _on_chart_click(self, x, y, trace_index=None):
        """A click on the chart (on the region heatmap or on crossings): launch at that chart point, or look for
        a periodic orbit there ("find periodic orbit" on)."""
        if x is not None and y is not None:
            if self.po_mode.value:
                self.guard(lambda: self.find_orbit(float(x), float(y)), _("finding a periodic orbit"))
            else:
                self.guard(lambda: self.launch_at(float(x), float(y)), _("launching from the click"))

    def guard(self, action, what):
        """Run a user action; an exception becomes the panel's message (never a traceback on the page)."""
        try:
            return action()
        except Exception as exc:  # noqa: BLE001 - the error boundary of the buttons and requests
            report_error(self.msg, exc, what)
            return None
