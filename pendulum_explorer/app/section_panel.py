"""Panel 3: the Poincaré section at (E, mu): click (or type) to launch, fill, clear, undo, saved levels,
export / load, paper presets.

Widgets and wiring only: the section, its levels, seeds and chunked crossings are :class:`PoincareSection`'s
(:mod:`pendulum_explorer.poincare`), the files :mod:`pendulum_explorer.session`'s, the chart's traces
:mod:`.section_chart`'s and what the panel set aside :mod:`.history`'s.  Public methods for other panels and
links: :meth:`SectionPanel.set_level`, :meth:`SectionPanel.launch`, :meth:`SectionPanel.fill`.
"""
from __future__ import annotations

import threading
import time

import ipywidgets as w

from .. import presets, session
from ..chaos import megno
from ..errors import InaccessibleError, IntegrationFailedError
from ..plotting.diagrams import energy_momentum_figure
from ..plotting.section import section_sphere_figure, zoom_chart
from ..poincare import MAP_LEVELS, PoincareSection, default_level, sphere_from_chart
from . import section_text as say
from .common import PALETTE, Messages, Task, about, body_title, figure_output, guarded, report_error
from .history import History
from .section_chart import SectionChart
from .section_levels import LevelControls
from .section_text import ABOUT, PAPER_FIG2_ENERGIES
from .state import Launch

FIRST_CHUNK = 60  # crossings drawn first (fast feedback), then chunks of about CHUNK_SECONDS each
CHUNK = 2000
CHUNK_SECONDS = 0.1  # cancel is checked between chunks: it takes effect within about this time
REDRAW_SECONDS = 1.0  # growing traces are sent to the browser at most this often (and at the end)
MEGNO_T = 100.0  # each finished trajectory's hover shows its mean MEGNO over this time [s]


def _button(description, cls, **kw):
    b = w.Button(description=description, layout=w.Layout(width=kw.pop("width", "110px")), **kw)
    b.add_class(cls)
    return b


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
        self.history = History()
        self._busy = threading.RLock()
        self._colour_index = 0
        self._shown = None  # (body, launches list) the chart shows
        self._level_after_body = None  # (E, mu) for the next body event instead of the default level
        self.timings = {}
        self._dirty, self._drawn_at = {}, 0.0  # launches with crossings not yet sent to the browser

        # bounded inputs clamp silently: their labels name the range
        self.n_cross = w.BoundedIntText(value=500, min=100, max=5000, step=100, description="crossings (100–5000)",
                                        layout=w.Layout(width="215px"), style={"description_width": "140px"})
        self.n_fill = w.BoundedIntText(value=12, min=2, max=60, description="fill seeds (2–60)",
                                       layout=w.Layout(width="175px"), style={"description_width": "115px"})
        self.n_cross.add_class("pe-n-crossings")
        self.n_fill.add_class("pe-n-fill")
        self.fill_btn = _button("fill", "pe-fill", icon="th", tooltip="seeds spread over the accessible region")
        self.clear_btn = _button("clear", "pe-clear", icon="trash", tooltip="set the trajectories aside (undo)")
        self.undo_btn = _button("undo", "pe-undo", icon="undo",
                                tooltip="remove the last trajectory, or bring back what a level change, a new body "
                                        "or clear set aside")
        self.export_btn = _button("export", "pe-export", icon="download", tooltip="CSV of crossings + JSON session")
        self.load = w.FileUpload(accept=".json", multiple=False, description="load session",
                                 layout=w.Layout(width="140px"))
        self.load.add_class("pe-load")
        self.saved = w.Dropdown(options=[("saved levels (0)", -1)], value=-1, layout=w.Layout(width="330px"),
                                description="set aside", style={"description_width": "70px"})
        self.saved.add_class("pe-saved-levels")
        self.downloads = w.HTML()
        self.paper = w.Dropdown(options=[("paper Fig. 2 presets…", "")] + PAPER_FIG2_ENERGIES, value="",
                                layout=w.Layout(width="220px"))
        self.paper.add_class("pe-paper-preset")
        # keyboard access: launch at a typed chart point
        self.phi_in = w.FloatText(value=0.0, description="φ [rad]", layout=w.Layout(width="140px"),
                                  style={"description_width": "52px"})
        self.z_in = w.BoundedFloatText(value=0.5, min=-1.0, max=1.0, step=0.05, description="Γ₃",
                                       layout=w.Layout(width="120px"), style={"description_width": "30px"})
        self.phi_in.add_class("pe-launch-phi")
        self.z_in.add_class("pe-launch-z")
        self.launch_btn = _button("launch", "pe-launch", icon="play", width="100px",
                                  tooltip="launch a trajectory at the typed (φ, Γ₃)")
        self.chart = figure_output("450px")  # clicks on it launch trajectories
        self.chart.add_class("pe-section-chart")
        self.traces = SectionChart(self.chart, state)
        self.em_out, self.sphere_out = figure_output("300px"), figure_output("300px")
        self.sphere_btn = _button("draw on sphere", "pe-sphere", icon="globe", width="150px")
        # the chaos map under the crossings and the periodic orbits found: both belong to the level shown (set
        # aside with its trajectories by a level change, a new body or clear)
        self.chaos, self.orbits = None, []
        self.map_btn = _button("chaos map", "pe-chaos-map", icon="th-large", width="120px",
                               tooltip="MEGNO over the chart (≈2 regular, ≫2 chaotic): coarse first, then refined")
        self.map_T = w.BoundedFloatText(value=100.0, min=20.0, max=1000.0, step=20.0, description="map T [s] (20–1000)",
                                        layout=w.Layout(width="200px"), style={"description_width": "125px"})
        self.map_T.add_class("pe-map-t")
        self.po_mode = w.ToggleButton(value=False, description="find periodic orbit", icon="crosshairs",
                                      layout=w.Layout(width="170px"),
                                      tooltip="then click near an island centre: the fixed point of the k-th return map")
        self.po_mode.add_class("pe-find-orbit")
        self.po_k = w.BoundedIntText(value=1, min=1, max=8, description="k (1–8)", layout=w.Layout(width="120px"),
                                     style={"description_width": "50px"})
        self.po_k.add_class("pe-orbit-k")

        self.task.bar.layout.width = "160px"
        # one message slot of fixed height under the level controls: the page does not move when a message appears
        messages = w.VBox([self.level_msg, self.msg], layout=w.Layout(height="3.6em", overflow="auto"))
        self.level_msg.layout.min_height = self.msg.layout.min_height = "0"
        keys = w.HBox([self.phi_in, self.z_in, self.launch_btn], layout=w.Layout(flex_flow="row wrap"))
        right = w.VBox([keys, self.saved, self.em_out, self.sphere_btn, self.sphere_out], layout=w.Layout(width="40%"))
        self.widget = w.VBox([
            w.HBox([self.E, self.E_slider, self.mu, self.mu_slider, self.paper]), messages,
            # two lines of room: the range line and the progress bar (hidden or not, the chart does not move)
            w.HBox([self.ranges, self.task.widget], layout=w.Layout(flex_flow="row wrap", align_items="center",
                                                                    min_height="76px")),
            w.HBox([self.n_cross, self.fill_btn, self.n_fill, self.undo_btn, self.clear_btn,
                    self.export_btn, self.load], layout=w.Layout(flex_flow="row wrap")),
            w.HBox([self.map_btn, self.map_T, self.po_mode, self.po_k], layout=w.Layout(flex_flow="row wrap")),
            w.HBox([w.VBox([self.chart], layout=w.Layout(width="60%")), right]),
            self.downloads, about(ABOUT, "About: the Poincaré section")])

        self.chart.on_click(self._on_chart_click)
        for button, action in ((self.fill_btn, lambda: self.fill(int(self.n_fill.value))), (self.clear_btn, self.clear),
                               (self.undo_btn, self.undo), (self.export_btn, self.export),
                               (self.sphere_btn, self.draw_sphere), (self.map_btn, self.chaos_map),
                               (self.launch_btn, lambda: self.launch([(self.phi_in.value, self.z_in.value)]))):
            button.on_click(lambda _b, action=action, what=button.description: self._guard(action, what))
        self.saved.observe(self._on_saved, names="value")
        self.load.observe(self._on_load, names="value")
        self.paper.observe(self._on_paper, names="value")
        state.observe("body", self._on_body)
        state.observe("section_level", self._on_level_request)
        state.observe("presenter", self._on_presenter)
        self.set_level(*self._default_level())

    # ================================================================== level (E, mu)
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
            sec = PoincareSection.with_motion(self.state.pendulum, E, mu, varied="mu" if changed == "mu" else "energy")
        except InaccessibleError as exc:
            if self.section is not None and self.section.pendulum == self.state.pendulum:
                raise InaccessibleError(say.level_kept(exc, self.section.energy, self.section.mu)) from None
            raise
        with self._busy:
            self.task.cancel()
            aside = None if keep else self._set_aside("the level changed")
            old, self.section, self.region = self.section, sec, sec.chart_region()
            if not (keep and old is not None and (old.pendulum, old.energy, old.mu) == (sec.pendulum, sec.energy,
                                                                                          sec.mu)):
                self.chaos, self.orbits = None, []  # they belong to the old level (set aside with it unless keep)
            self.state.E, self.state.mu = sec.energy, sec.mu
            if not keep:
                self.state.launches = []
            self._shown = (self.state.body, self.state.launches)
            self._sync_controls()
            self._redraw()
            self._colour_index = len(self.state.launches)
        self._draw_em()
        self.level_msg.clear()
        if not keep:
            self.msg.info(say.new_level(sec.energy, sec.mu, aside))
        self.timings["set_level"] = time.perf_counter() - t0

    def _set_aside(self, what):
        """Keep the trajectories the chart shows, with the chaos map and the periodic orbits of the level, in the
        history (None if there are none); the chart then has no map and no orbits."""
        if self._shown is None or self.section is None:
            return None
        body, launches = self._shown
        self._shown = None
        s = self.history.set_aside(body, self.section.energy, self.section.mu, list(launches), what, self.chaos,
                                   self.orbits)
        self.chaos, self.orbits = None, []
        self._saved_menu()
        return s

    def _on_level_control(self, E, mu, changed):
        """A level control changed (None: the other one keeps the level in use): the new section, or the message
        under the controls and the controls set back to the section in use."""
        try:
            self.set_level(self.state.E if E is None else float(E), self.state.mu if mu is None else float(mu),
                           changed=changed)
        except Exception as exc:  # noqa: BLE001 - the error boundary of the level controls
            report_error(self.level_msg, exc, f"setting {changed}")
            if self.section is not None and self.section.pendulum == self.state.pendulum:
                self._sync_controls()

    def _sync_controls(self):
        """The level controls show the section in use (the E slider between the critical energies around E)."""
        self.levels.show(self.section, self.region, self.section.critical_energies(self.state.equilibria()))

    def _on_body(self, body):
        self.state.E = None
        level, self._level_after_body = self._level_after_body, None
        try:
            aside = self._set_aside("the body changed")
            E, mu = level if level is not None else self._default_level()
            try:
                self.set_level(E, mu)
            except InaccessibleError:  # a requested level without motion for this body: its default level
                E, mu = self._default_level()
                self.set_level(E, mu)
            self.msg.info(say.new_body(body_title(body), E, mu, aside))
        except Exception as exc:  # noqa: BLE001
            report_error(self.msg, exc, "redrawing the section for the new body")

    @guarded(what="launching near the equilibrium")
    def _on_level_request(self, E, mu, seed=None, source="nearby", zoom=None):
        self.set_level(E, mu)
        if zoom is not None:
            self.zoom_to(*zoom)
        if seed is not None:
            self.launch_seed(seed, source=source)

    def _on_presenter(self, on):
        """The presenter view: the chart and the diagram larger, the crossings' markers bigger."""
        if self.section is not None:
            with self._busy:
                self.chart.layout.min_height = f"{self.state.size(450)}px"
                self._redraw()
            self._draw_em()

    def zoom_to(self, phi0, phi1, z0, z1):
        """Show the chart window phi0..phi1, Gamma_3 = z0..z1 (a launch near a stable equilibrium: its crossings
        stay in a small loop); plotly's "reset axes" or a new level shows the whole chart again."""
        self.chart.show(zoom_chart(self.chart.fig, self.section, (phi0, phi1, z0, z1)))

    # ================================================================== drawing
    def _redraw(self):
        """The whole chart: region, chaos map, the launches shown and the periodic orbits (call under _busy)."""
        self.traces.draw(self.section, self.region, self.state.launches, self.chaos, self.orbits)

    def _draw_em(self):
        self._guard(lambda: self.em_out.show(self.state.present(energy_momentum_figure(
            self.state.equilibria(), marker=(self.state.mu, self.state.E), height=self.state.size(300)))),
            "drawing the energy-momentum diagram")

    def crossing_traces(self):
        """The chart traces that hold crossings (tests)."""
        return self.traces.traces()

    def draw_sphere(self):
        launches = list(self.state.launches)
        self.sphere_out.show(section_sphere_figure(
            self.section, [L.crossings for L in launches], region=self.region, names=[f"#{L.id}" for L in launches],
            colours=[L.colour for L in launches], height=330, showlegend=False,
            title="the same crossings on the sphere (body frame)"))

    # ================================================================== launching
    def _on_chart_click(self, x, y, trace_index=None):
        """A click on the chart (on the region heatmap or on crossings): launch at that chart point."""
        if x is not None and y is not None:
            if self.po_mode.value:
                self._guard(lambda: self.find_orbit(float(x), float(y)), "finding a periodic orbit")
            else:
                self._guard(lambda: self.launch_at(float(x), float(y)), "launching from the click")

    def launch_at(self, phi, z, n=None):
        """Launch the trajectory through the section point at chart coordinates (phi, z); a point at a pole
        (|Γ₃| = 1, where the section is not defined) is moved to the nearest point where motion is possible."""
        t_click = time.perf_counter()
        found = self._seed_at(phi, z)
        return None if found is None else self.launch_seed(found[0], "click", n=n, t_click=t_click, note=found[1])

    def launch(self, points, n=None, source="typed"):
        """Launch at chart points ``[(φ, Γ₃), ...]`` (typed, or from a link), all in one task; returns the
        launches (a refused point is reported in the message and skipped)."""
        found = [x for x in (self._seed_at(float(p), float(z)) for p, z in points) if x is not None]
        if len(found) == 1:
            return [self.launch_seed(found[0][0], source, n=n, note=found[0][1])]
        return self._launch_many([self.section.check_seed(st) for st, _ in found], source, n) if found else []

    def _seed_at(self, phi, z):
        """``(section state, note)`` at the chart point (:meth:`PoincareSection.seed_at`: a pole is moved to the
        nearest admissible point, the note says so); None when the point is not accessible (the message says why)."""
        sec = self.section
        try:
            state, moved = sec.seed_at(phi, z)
        except InaccessibleError:
            self.msg.error(say.inaccessible(phi, z, sec.energy, float(sec.amended_potential(sphere_from_chart(phi, z)))))
            return None
        return state, ("" if moved is None else say.pole_note(phi, z, moved))

    def launch_seed(self, seed, source="click", n=None, t_click=None, note=""):
        """Launch from a section state or an LP pair (Gamma, omega) on the current level."""
        sec, n = self.section, int(self.n_cross.value if n is None else n)
        y = sec.check_seed(seed)  # validates the level (raises a clear message otherwise)
        (launch,) = self._add_launches(sec, [y], source)
        self.msg.info(say.computing(launch.id, n, note))

        def done():
            self.msg.ok(say.trajectory_done(launch.id, len(launch.crossings), sec.energy, sec.mu, note))
            self.state.select(launch)

        t_click = time.perf_counter() if t_click is None else t_click
        self.task.start(self._stream_work(sec, [(launch, n)], None, t_click), f"trajectory #{launch.id}", done)
        return launch

    def _add_launches(self, sec, seeds, source):
        """New launches (and their empty traces) for LP seeds (k, 6) on the section ``sec``."""
        out = []
        with self._busy:
            for y in seeds:
                c = PALETTE[self._colour_index % len(PALETTE)]
                self._colour_index += 1
                out.append(Launch.from_seed(self.state.next_id(), sec, y, self.state.body.name, source, c))
                self.state.launches.append(out[-1])
            self.traces.add(out)
        self.history.launched(out)
        return out

    def _stream_work(self, sec, items, label, t_click=None):
        """The task body: the crossings of each ``(launch, n)`` in chunks of about CHUNK_SECONDS
        (:meth:`PoincareSection.stream`), each drawn as it arrives; cancel is checked after every chunk."""

        def work(task):
            for i, (L, n) in enumerate(items):
                chunks = sec.stream((L.Gamma0, L.omega0), n, CHUNK, first=FIRST_CHUNK, seconds=CHUNK_SECONDS)
                for k, res in enumerate(chunks):
                    L.add_crossings(res.Gamma, restart=k == 0)
                    self._draw_soon(L, sec, now=k == 0 and label is None)
                    if t_click is not None and k == 0:
                        self.timings["click_to_first"] = time.perf_counter() - t_click
                    if label is None:
                        task.progress(len(L.crossings) / n, say.crossings_progress(L.id, len(L.crossings), n))
                    if not res.complete:
                        self.msg.info(say.stopped(L.id, len(L.crossings), res.status))
                    if task.cancelled:
                        return self._cancelled(sec, items, task)
                self._megno(L, sec)
                if label is not None:
                    task.progress((i + 1) / len(items), say.many_progress(label, i + 1, len(items)))
            self._draw_soon(None, sec, now=True)

        return work

    def _megno(self, L, sec):
        """The finished trajectory's mean MEGNO over MEGNO_T (:func:`pendulum_explorer.chaos.megno`) in its hover."""
        try:
            L.megno = (megno(sec.pendulum, L.Gamma0, L.omega0, MEGNO_T).value, MEGNO_T)
        except IntegrationFailedError:  # the hover just has no Ybar
            return
        self.traces.show_megno(L, sec)

    def _draw_soon(self, launch, sec, now=False):
        """Show the launch's crossings so far with the other updated launches, at most every REDRAW_SECONDS (the
        browser redraws the whole chart for each update: more often, it falls behind and answers clicks late)."""
        if launch is not None:
            self._dirty[launch.id] = launch
        if now or time.perf_counter() - self._drawn_at > REDRAW_SECONDS:
            for L in list(self._dirty.values()):
                self.traces.update(L, sec)
            self._dirty.clear()
            self._drawn_at = time.perf_counter()

    def _cancelled(self, sec, items, task):
        """After a cancel: the message says what was kept and the progress bar goes first, then the chart catches
        up (trajectories not started removed, the last crossings drawn).  In this order because the page applies
        the kernel's messages in turn: behind a chart redraw (a second or more in a software-rendered browser)
        the answer to a cancel came seconds late."""
        if sec is not self.section:  # cancelled by a level change: the launches were set aside as they are
            return
        empty = [L for L, _ in items if len(L.crossings) == 0]
        self.msg.info(say.cancelled(items))
        task.settle()
        with self._busy:
            self.state.launches[:] = [L for L in self.state.launches if all(L is not x for x in empty)]
            self.traces.remove(empty)
            for L in empty:
                self._dirty.pop(L.id, None)
        self._draw_soon(None, sec, now=True)

    # ================================================================== chaos map
    def chaos_map(self, levels=MAP_LEVELS, t_total=None):
        """MEGNO over the chart at each resolution of ``levels`` in turn (:meth:`PoincareSection.chaos_maps`), each
        drawn under the crossings when done; progress and cancel are the panel's task's (a cancel keeps the last
        finished map and says so)."""
        sec = self.section
        T = float(self.map_T.value if t_total is None else t_total)
        done_maps = []

        def work(task):
            for cm in sec.chaos_maps(levels, T, cancel=lambda: task.cancelled,
                                     progress=lambda f, res, d, m: task.progress(f, say.map_progress(res, d, m))):
                with self._busy:
                    if sec is not self.section:
                        return
                    self.chaos = cm
                    self._redraw()
                done_maps.append(cm)
            if task.cancelled and sec is self.section:
                self.msg.info(say.map_cancelled(done_maps[-1] if done_maps else None))

        self.msg.info(say.map_start(T))
        self.task.start(work, "chaos map", lambda: self.msg.ok(say.map_done(done_maps[-1])))

    # ================================================================== periodic orbits
    def find_orbit(self, phi, z, k=None):
        """The fixed point of the k-th return map near the chart point (phi, z) (:meth:`PoincareSection.periodic_orbit`):
        marked on the chart (symbol per kind, hover with period and multipliers) and launched like a click, so the
        Motion tab offers it."""
        sec, k = self.section, int(self.po_k.value if k is None else k)
        found = []

        def work(task):
            task.progress(0.1, f"Newton for a fixed point of P^{k}…")
            po = sec.periodic_orbit((phi, z), k)
            with self._busy:
                if sec is not self.section or task.cancelled:
                    return
                self.orbits.append(po)
                self._redraw()
            (launch,) = self._add_launches(sec, [sec.check_seed((po.Gamma, po.omega))], "periodic orbit")
            found.append((po, launch))
            self._stream_work(sec, [(launch, max(100, 20 * k))], None)(task)

        def done():
            if not found:
                return
            po, launch = found[0]
            self.msg.ok(say.orbit_found(po, launch.id))
            self.state.select(launch)

        self.msg.info(say.orbit_search(k, phi, z))
        self.task.start(work, "periodic orbit", done)

    # ================================================================== fill / clear / undo / saved levels
    def fill(self, n_seeds=12, n=None):
        """Seeds spread over the accessible region (:meth:`PoincareSection.fill_seeds`), streamed one by one."""
        return self._launch_many(self.section.fill_seeds(n_seeds), "fill", n)

    def _launch_many(self, seeds, label, n=None):
        """Launches from LP seeds (k, 6) on the current level, computed one after the other in one task."""
        sec, n = self.section, int(self.n_cross.value if n is None else n)
        launches = self._add_launches(sec, seeds, label)
        self.msg.info(say.many_start(label, len(launches), n))
        self.task.start(self._stream_work(sec, [(L, n) for L in launches], label), label,
                        on_done=lambda: self.msg.ok(f"{label} done: {len(launches)} trajectories"))
        return launches

    def clear(self):
        self.task.cancel()
        self.task.wait(5)
        with self._busy:
            aside = self._set_aside("clear")
            self.state.launches = []
            self._shown = (self.state.body, self.state.launches)
            self._redraw()
        self.msg.info(say.cleared(aside))

    def undo(self):
        """Remove the last trajectory, or bring back what the last level change, new body or clear set aside."""
        with self._busy:
            u = self.history.undo(self.state.launches)
            if u is None:
                self.msg.info("nothing to undo")
            elif isinstance(u, Launch):
                if self.task.running:
                    self.task.cancel()
                self.state.launches[:] = [L for L in self.state.launches if L is not u]
                self.traces.remove([u])
                self.msg.info(f"removed trajectory #{u.id}")
            else:
                self.restore(u)

    @guarded(what="restoring a saved level")
    def _on_saved(self, change):
        if change["new"] is not None and change["new"] >= 0:
            self.restore(self.history.saved[change["new"]])

    def restore(self, s):
        """Show a saved level again with its trajectories (what is shown now is set aside in its place)."""
        self.history.take(s)
        self._set_body_and_level(s.body, s.E, s.mu, origin="the section's saved levels")
        with self._busy:
            self.state.launches = s.launches
            self.chaos, self.orbits = s.chaos, list(s.orbits)
            self._shown = (self.state.body, self.state.launches)
            self._redraw()
            self._colour_index = len(s.launches)
        self._saved_menu()
        self.msg.ok(say.restored(s.label, s.what))

    def _saved_menu(self):
        """The "saved levels" menu lists the history, newest first."""
        self.saved.unobserve(self._on_saved, names="value")
        self.saved.options = [(f"saved levels ({len(self.history.saved)})", -1)] + [
            (x.label, i) for i, x in reversed(list(enumerate(self.history.saved)))]
        self.saved.value = -1
        self.saved.observe(self._on_saved, names="value")

    # ================================================================== paper presets
    @guarded(what="loading the paper preset")
    def _on_paper(self, change):
        if change["new"] not in (None, ""):
            self.paper_preset(change["new"])

    def paper_preset(self, E, n=None):
        """The Fig. 2 body at energy E, seeded from R0 = I, omega0 = c[1,1,1]."""
        body = self.state.body
        if body.name != "paper_fig2" or body.pendulum.g != 9.81:
            body = presets.paper_fig2()
        sec, (G0, w0) = PoincareSection.from_paper_ic(body.pendulum, E)
        # the seed's energy equals E to rounding; a new body is drawn at this level at once (not at its default)
        self._set_body_and_level(body, float(E), sec.mu, origin="the Poincaré section's paper Fig. 2 presets")
        return self.launch_seed((G0, w0), source="paper", n=n)

    def _set_body_and_level(self, body, E, mu, origin="a loaded session"):
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

    # ================================================================== export / load
    def export_csv(self):
        """CSV of all crossings (:func:`pendulum_explorer.session.crossings_csv`)."""
        return session.crossings_csv(list(self.state.launches))

    def export_json(self):
        """The session (:func:`pendulum_explorer.session.session_json`): body, level, crossing count, seeds."""
        return session.session_json(self.state.body, self.state.E, self.state.mu, int(self.n_cross.value),
                                    list(self.state.launches))

    def export(self):
        self.downloads.value = say.downloads_html((("pendulum_crossings.csv", self.export_csv(), "text/csv"),
                                                   ("pendulum_session.json", self.export_json(), "application/json")))
        self.msg.ok(f"export ready: {sum(len(L.crossings) for L in self.state.launches)} crossings")

    @guarded(what="loading the session")
    def _on_load(self, change):
        if change["new"]:
            f = change["new"][0]
            self.load_session(bytes(f["content"] if isinstance(f, dict) else f.content).decode())

    def load_session(self, text, wait=False):
        """Restore a session exported by :meth:`export_json`: body, (E, mu), crossing count and trajectories."""
        s = session.parse_session(text, n_default=int(self.n_cross.value))
        self.n_cross.value = s.n_crossings
        body = s.body_for(self.state.body)
        self._set_body_and_level(body, s.E, s.mu)
        sec = self.section
        launches = self._add_launches(sec, s.seed_states(), "load")
        for L, x in zip(launches, s.seeds):
            L.source = x.source
        new = [(L, x.n) for L, x in zip(launches, s.seeds)]
        self.task.start(self._stream_work(sec, new, "loading"), "loading the session",
                        on_done=lambda: self.msg.ok(f"session loaded: {body_title(body)}, {len(new)} trajectories"))
        if wait:
            self.task.wait()
        return new

    def _guard(self, action, what):
        """Run a user action; an exception becomes the panel's message (never a traceback on the page)."""
        try:
            return action()
        except Exception as exc:  # noqa: BLE001 - the error boundary of the buttons and requests
            report_error(self.msg, exc, what)
            return None
