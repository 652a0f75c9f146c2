"""Panel 3: the Poincaré section at (E, mu): click to launch, fill, clear, undo, export / load, paper presets.

Widgets and wiring only: the section, its levels, seeds and chunked crossings are :class:`PoincareSection`'s
(:mod:`pendulum_explorer.poincare`), the files are :mod:`pendulum_explorer.session`'s.
"""
from __future__ import annotations

import base64
import threading
import time

import ipywidgets as w
import numpy as np

from .. import presets, session
from ..errors import InaccessibleError, InvalidStateError
from ..plotting.diagrams import energy_momentum_figure
from ..plotting.section import crossings_trace, section_chart_figure, section_sphere_figure
from ..poincare import REGION_GRID, PoincareSection, chart_from_sphere, default_level, sphere_from_chart
from ..reduction import attitude_from_gamma
from .common import PALETTE, Messages, Task, about, body_title, figure_output, guarded, report_error, show_figure
from .state import Launch

#: the five energies of the paper's Fig. 2 (a)-(e)
PAPER_FIG2_ENERGIES = [("(a) E = −2.65", -2.65), ("(b) E = 0", 0.0), ("(c) E = 2.03", 2.03), ("(d) E = 8.83", 8.83),
                       ("(e) E = 11.95", 11.95)]
FIRST_CHUNK = 60  # crossings drawn first (fast feedback), then the rest in chunks
CHUNK = 400

ABOUT = r"""
<p>At fixed momentum \(\mu=\omega^{T}J\Gamma\) the Lagrange&ndash;Routh equations (62) live on \(TS^2\), a
4-dimensional space; fixing the energy \(E\) leaves 3 dimensions, and the Poincaré section of Sec. 5.6</p>
$$\mathcal P=\{(\Gamma,\dot\Gamma):\ e_3^{T}\dot\Gamma = 0,\ e_3^{T}(\Gamma\times\dot\Gamma)>0,\ E(\Gamma,\dot\Gamma)=E\}$$
<p>is a 2-dimensional surface: over each \(\Gamma\) there is exactly one section state, with speed fixed by
\(E = V_\mu(\Gamma) + K\), \(K\ge 0\) the kinetic energy of the motion of \(\Gamma\) (quadratic in \(\dot\Gamma\)), where \(V_\mu(\Gamma)=\frac{\mu^2}{2\Gamma^{T}J\Gamma}-mg\rho^{T}\Gamma\)
is the amended potential. So the section is drawn as a map of the sphere: the equal-area chart
\(\varphi=\mathrm{atan2}(\Gamma_2,\Gamma_1)\), \(z=\Gamma_3\). Where \(V_\mu(\Gamma) > E\) (grey) the body cannot
go at this energy.</p>
<p><b>Reading the picture.</b> Each click starts a trajectory at the section state under the mouse and plots
every return to the section, one colour per trajectory. Closed curves are quasi-periodic motions (KAM tori),
isolated fixed points are periodic orbits, and a cloud that fills an area is chaos. Following the paper's Fig. 2
(body \(J=\mathrm{diag}(0.13,0.28,0.17)\), \(\rho=[0,0,0.3]\), started from \(R_0=I\), \(\omega_0=c[1,1,1]\)) you see
regular motion at \(E=-2.65\), chaos at \(E=0\) and \(2.03\), and order again at \(E=11.95\). The small diagram shows
where \((\mu, E)\) sits among the relative equilibria.</p>
"""


def _num(value, description, width, label_width):
    return w.FloatText(value=value, description=description, step=0.1, continuous_update=False,
                       layout=w.Layout(width=width), style={"description_width": label_width})


def _slider():
    return w.FloatSlider(value=0.0, min=-2, max=2, step=0.01, readout=False, continuous_update=False,
                         layout=w.Layout(width="200px"))


class SectionPanel:
    def __init__(self, state):
        self.state = state
        self.msg = Messages()
        self.level_msg = Messages()  # a refused (E, mu) is reported here, right under the controls that set it
        self.task = Task(self.msg)  # click launches and fills share it (a new one cancels the running one)
        self.section = self.region = None
        self._busy = threading.RLock()
        self._colour_index = 0
        self._suspend = False
        self._level_after_body = None  # (E, mu) for the next body event instead of the default level
        self.timings = {}

        self.E, self.E_slider = _num(0.0, "E [J]", "190px", "44px"), _slider()
        self.mu, self.mu_slider = _num(0.0, "μ [kg m²/s]", "210px", "86px"), _slider()
        self.E.add_class("pe-energy")
        self.mu.add_class("pe-mu")
        self.ranges = w.HTML()
        # bounded inputs clamp silently: their labels name the range
        self.n_cross = w.BoundedIntText(value=500, min=100, max=5000, step=100, description="crossings (100–5000)",
                                        layout=w.Layout(width="215px"), style={"description_width": "140px"})
        self.n_fill = w.BoundedIntText(value=12, min=2, max=60, description="fill seeds (2–60)",
                                       layout=w.Layout(width="175px"), style={"description_width": "115px"})
        self.n_cross.add_class("pe-n-crossings")
        self.fill_btn = w.Button(description="fill", icon="th", tooltip="seeds spread over the accessible region")
        self.clear_btn = w.Button(description="clear", icon="trash")
        self.undo_btn = w.Button(description="undo last", icon="undo")
        self.export_btn = w.Button(description="export", icon="download", tooltip="CSV of crossings + JSON session")
        self.load = w.FileUpload(accept=".json", multiple=False, description="load session",
                                 layout=w.Layout(width="140px"))
        for b, c in ((self.fill_btn, "pe-fill"), (self.clear_btn, "pe-clear"), (self.undo_btn, "pe-undo"),
                     (self.export_btn, "pe-export"), (self.load, "pe-load")):
            b.add_class(c)
            b.layout.width = b.layout.width or "110px"
        self.downloads = w.HTML()
        self.paper = w.Dropdown(options=[("paper Fig. 2 presets…", "")] + PAPER_FIG2_ENERGIES, value="",
                                layout=w.Layout(width="220px"))
        self.paper.add_class("pe-paper-preset")
        self.chart = figure_output("450px")  # clicks on it launch trajectories
        self.chart.add_class("pe-section-chart")
        self.em_out = figure_output("300px")
        self.sphere_out = figure_output("300px")
        self.sphere_btn = w.Button(description="draw on sphere", icon="globe", layout=w.Layout(width="150px"))

        self.level_msg.layout.min_height = "0"
        self.task.bar.layout.width = "160px"
        right = w.VBox([self.em_out, self.sphere_btn, self.sphere_out], layout=w.Layout(width="40%"))
        self.widget = w.VBox([
            w.HBox([self.E, self.E_slider, self.mu, self.mu_slider, self.paper]), self.level_msg,
            w.HBox([self.ranges, self.task.widget], layout=w.Layout(flex_flow="row wrap", align_items="center")),
            w.HBox([self.n_cross, self.fill_btn, self.n_fill, self.undo_btn, self.clear_btn, self.export_btn,
                    self.load]),
            self.msg, w.HBox([w.VBox([self.chart], layout=w.Layout(width="60%")), right]),
            self.downloads, about(ABOUT, "About: the Poincaré section")])

        self.chart.on_click(self._on_chart_click)
        self.E.observe(lambda c: self._on_level_control(c["new"], None, "E"), names="value")
        self.E_slider.observe(lambda c: self._on_level_control(_slider_level(c["new"]), None, "E"), names="value")
        self.mu.observe(lambda c: self._on_level_control(None, c["new"], "mu"), names="value")
        self.mu_slider.observe(lambda c: self._on_level_control(None, _slider_level(c["new"]), "mu"), names="value")
        for button, action in ((self.fill_btn, lambda: self.fill(int(self.n_fill.value))), (self.clear_btn, self.clear),
                               (self.undo_btn, self.undo), (self.export_btn, self.export),
                               (self.sphere_btn, self.draw_sphere)):
            button.on_click(lambda _b, action=action, what=button.description: self._guard(action, what))
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
        """New section at (E, mu): region, chart, diagram (clears the trajectories unless keep).

        An (E, mu) without motion (empty section) raises :class:`InaccessibleError` naming the admissible range
        of ``changed`` ("E" or "mu") and changes nothing: the last valid section, its trajectories and the controls
        stay as they were."""
        t0 = time.perf_counter()
        try:
            sec = PoincareSection.with_motion(self.state.pendulum, E, mu, varied="mu" if changed == "mu" else "energy")
        except InaccessibleError as exc:
            if self.section is not None and self.section.pendulum == self.state.pendulum:
                raise InaccessibleError(f"{exc} The section stays at E = {self.section.energy:.5g} J, "
                                        f"μ = {self.section.mu:.4g} kg m²/s.") from None
            raise
        with self._busy:
            self.task.cancel()
            self.section, self.region = sec, sec.accessible_region(*REGION_GRID)
            self.state.E, self.state.mu = sec.energy, sec.mu
            if not keep:
                self.state.launches = []
            self._sync_controls()
            self._draw_chart()
        self._draw_em()
        self.level_msg.clear()
        if not keep:
            self.msg.info(f"section at E = {sec.energy:.5g} J, μ = {sec.mu:.4g} kg m²/s: click in the white region "
                          f"to launch a trajectory")
        self.timings["set_level"] = time.perf_counter() - t0

    def _on_level_control(self, E, mu, changed):
        """A level control changed (None: the other one keeps the level in use): the new section, or the message
        under the controls and the controls set back to the section in use."""
        if self._suspend:
            return
        try:
            self.set_level(self.state.E if E is None else float(E), self.state.mu if mu is None else float(mu),
                           changed=changed)
        except Exception as exc:  # noqa: BLE001 - the error boundary of the level controls
            report_error(self.level_msg, exc, f"setting {changed}")
            if self.section is not None and self.section.pendulum == self.state.pendulum:
                self._sync_controls()

    def _sync_controls(self):
        """Boxes, sliders and the range line show the section in use."""
        sec, region = self.section, self.region
        E, mu, lo = sec.energy, sec.mu, region.energy_min
        mgr = sec.pendulum.mgrho_norm
        mu_max = sec.mu_bound()
        lim = max(mu_max, abs(mu), 1e-3)
        self._suspend = True
        try:
            hi = max(lo + 25 * mgr, E + 1)
            _set_range(self.E_slider, lo, hi, mgr / 200, min(max(E, lo), hi))
            _set_range(self.mu_slider, -lim, lim, lim / 200, mu)
            self.E.value, self.mu.value = _digits(E), _digits(mu)  # the boxes: 6 digits (the level keeps all)
            self.ranges.value = (
                f"<span style='font-size:13px;color:#333'>admissible at this μ: E &gt; min V<sub>μ</sub> = "
                f"<b>{lo:.5g}</b> J (whole sphere above {region.energy_all:.5g} J); at this E: |μ| &lt; "
                f"{mu_max:.4g} kg m²/s &nbsp;·&nbsp; accessible area {100 * region.area_fraction:.0f}%</span>")
        finally:
            self._suspend = False

    def _on_body(self, body):
        self.state.E = None
        level, self._level_after_body = self._level_after_body, None
        try:
            E, mu = level if level is not None else self._default_level()
            try:
                self.set_level(E, mu)
            except InaccessibleError:  # a requested level without motion for this body: its default level
                E, mu = self._default_level()
                self.set_level(E, mu)
            self.msg.info(f"new body ({body_title(body)}): section at E = {E:.5g} J, μ = {mu:.4g} kg m²/s; click in "
                          f"the white region to launch a trajectory")
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
                self._draw_chart()
            self._draw_em()

    def zoom_to(self, phi0, phi1, z0, z1):
        """Show the chart window phi0..phi1, Gamma_3 = z0..z1 (a launch near a stable equilibrium: its crossings
        stay in a small loop); plotly's "reset axes" or a new level shows the whole chart again."""
        phi0, phi1, z0, z1 = max(phi0, -np.pi), min(phi1, np.pi), max(z0, -1.0), min(z1, 1.0)
        fig = self.chart.fig
        fig.update_layout(xaxis_range=[phi0, phi1], yaxis_range=[z1, z0])
        # the whole-sphere grid is coarse for a small window (its cells would hide where V_mu = E runs): the
        # shading of this window on a grid of its own, and no coarse boundary line
        phi, z = np.linspace(phi0, phi1, 121), np.linspace(z0, z1, 81)
        V = self.section.amended_potential(sphere_from_chart(*np.meshgrid(phi, z)))
        for tr in fig.data:
            if tr.type == "heatmap":
                tr.update(x=phi, y=z, z=np.where(V <= self.section.energy, 0.0, 1.0), customdata=V)
            elif tr.name == "V_mu = E":
                tr.update(x=[], y=[])
        show_figure(self.chart, fig)

    # ================================================================== drawing
    def _draw_chart(self):
        """The whole chart (region and the trajectories kept) in one update of the view."""
        # no relative-equilibria markers: PoincareSection.relative_equilibria keeps its own cache of whole
        # EquilibriumSets (~6 MB per body) beside state.equilibria(), which the kernel memory budget cannot afford
        sec = self.section
        fig = section_chart_figure(sec, region=self.region, clickable=True, height=self.state.size(450),
                                   show_equilibria=False,
                                   title=f"Poincaré section at E = {sec.energy:.4g} J, μ = {sec.mu:.4g} kg m²/s")
        self._colour_index = 0
        for L in self.state.launches:
            fig.add_trace(self._launch_trace(L))
        show_figure(self.chart, self.state.present(fig))

    def _draw_em(self):
        self._guard(lambda: show_figure(self.em_out, self.state.present(energy_momentum_figure(
            self.state.equilibria(), marker=(self.state.mu, self.state.E), height=self.state.size(300)))),
            "drawing the energy-momentum diagram")

    def _launch_trace(self, launch):
        """The chart trace of a launch's crossings (chart coordinates rounded to 1e-5 for the browser)."""
        launch.trace_name = f"#{launch.id}"
        tr = crossings_trace(name=launch.trace_name, colour=launch.colour, marker_size=5 if self.state.presenter else 3,
                             webgl=True)
        tr.x, tr.y = np.round(launch.chart[:, 0], 5), np.round(launch.chart[:, 1], 5)
        return tr

    def _trace_index(self, launch):
        names = [tr.name for tr in self.chart.data]
        return names.index(launch.trace_name) if getattr(launch, "trace_name", None) in names else None

    def _update_trace(self, launch, sec):
        """Show the launch's crossings so far (only while ``sec`` is the section shown)."""
        with self._busy:
            i = self._trace_index(launch) if sec is self.section else None
            if i is not None:
                self.chart.restyle(i, x=np.round(launch.chart[:, 0], 5), y=np.round(launch.chart[:, 1], 5))

    def crossing_traces(self):
        """The chart traces that hold crossings (tests)."""
        return [tr for tr in self.chart.data if tr.name and tr.name.startswith("#")]

    def draw_sphere(self):
        launches = list(self.state.launches)
        show_figure(self.sphere_out, section_sphere_figure(
            self.section, [L.crossings for L in launches], region=self.region, names=[f"#{L.id}" for L in launches],
            colours=[L.colour for L in launches], height=330, showlegend=False,
            title="the same crossings on the sphere (body frame)"))

    # ================================================================== launching
    def _on_chart_click(self, x, y, trace_index=None):
        """A click on the chart (on the region heatmap or on crossings): launch at that chart point."""
        if x is not None and y is not None:
            self._guard(lambda: self.launch_at(float(x), float(y)), "launching from the click")

    def launch_at(self, phi, z, n=None):
        """Launch the trajectory through the section point at chart coordinates (phi, z)."""
        t_click, sec = time.perf_counter(), self.section
        try:
            st = sec.state_at(sphere_from_chart(phi, z))
        except InaccessibleError:
            V = sec.amended_potential(sphere_from_chart(phi, z))
            self.msg.error(f"(φ, Γ₃) = ({phi:.3f}, {z:.3f}) is not accessible at E = {sec.energy:.4g}: there "
                           f"V_μ = {V:.4g} > E. Click in the white region; nothing launched.")
            return None
        except InvalidStateError as exc:
            self.msg.error(f"cannot launch at (φ, Γ₃) = ({phi:.3f}, {z:.3f}): {exc}")
            return None
        return self.launch_seed(st, source="click", n=n, t_click=t_click)

    def launch_seed(self, seed, source="click", n=None, t_click=None):
        """Launch from a section state or an LP pair (Gamma, omega) on the current level."""
        sec, n = self.section, int(self.n_cross.value if n is None else n)
        y = sec.check_seed(seed)  # validates the level (raises a clear message otherwise)
        (launch,) = self._add_launches(sec, [y], source)
        self.msg.info(f"trajectory #{launch.id}: computing {n} crossings…")

        def done():
            self.msg.ok(f"trajectory #{launch.id}: {len(launch.crossings)} crossings "
                        f"(E = {sec.energy:.4g} J, μ = {sec.mu:.4g} kg m²/s); open the Motion tab to watch it")
            self.state.select(launch)

        t_click = time.perf_counter() if t_click is None else t_click
        self.task.start(self._stream_work(sec, [(launch, n)], None, t_click), f"trajectory #{launch.id}", done)
        return launch

    def _add_launches(self, sec, seeds, source):
        """New launches (and their empty traces) for LP seeds (k, 6) on the section ``sec``."""
        out = []
        with self._busy:
            for y in seeds:
                G0, w0 = np.array(y[:3]), np.array(y[3:])
                c = PALETTE[self._colour_index % len(PALETTE)]
                self._colour_index += 1
                out.append(Launch(id=self.state.next_id(), E=sec.energy, mu=sec.mu, body=self.state.body.name,
                                  source=source, Gamma0=G0, Gammadot0=np.cross(G0, w0), colour=c,
                                  R0=attitude_from_gamma(G0), omega0=w0))
                self.state.launches.append(out[-1])
            self.chart.add_traces([self._launch_trace(L) for L in out])
        return out

    def _stream_work(self, sec, items, label, t_click=None):
        """The task body: the crossings of each ``(launch, n)`` in chunks (:meth:`PoincareSection.stream`), each
        chunk drawn as it arrives; cancel is checked between chunks."""

        def work(task):
            for i, (L, n) in enumerate(items):
                got = [L.crossings[:0]]
                for res in sec.stream((L.Gamma0, L.omega0), n, CHUNK, first=FIRST_CHUNK):
                    got.append(res.Gamma)
                    L.crossings = np.concatenate(got)
                    L.chart = np.stack(chart_from_sphere(L.crossings), -1)
                    self._update_trace(L, sec)
                    if t_click is not None and len(got) == 2:
                        self.timings["click_to_first"] = time.perf_counter() - t_click
                    if label is None:
                        task.progress(len(L.crossings) / n, f"#{L.id}: {len(L.crossings)}/{n} crossings")
                    if not res.complete:
                        self.msg.info(f"trajectory #{L.id} stopped after {len(L.crossings)} crossings ({res.status})")
                    if task.cancelled:
                        return
                if label is not None:
                    task.progress((i + 1) / len(items), f"{label}: {i + 1}/{len(items)} trajectories")

        return work

    # ================================================================== fill / clear / undo
    def fill(self, n_seeds=12, n=None):
        """Seeds spread over the accessible region (:meth:`PoincareSection.fill_seeds`), streamed one by one."""
        sec, n = self.section, int(self.n_cross.value if n is None else n)
        launches = self._add_launches(sec, sec.fill_seeds(n_seeds), "fill")
        self.msg.info(f"fill: {len(launches)} trajectories × {n} crossings")
        self.task.start(self._stream_work(sec, [(L, n) for L in launches], "fill"), "fill",
                        on_done=lambda: self.msg.ok(f"fill done: {len(launches)} trajectories"))
        return launches

    def clear(self):
        self.task.cancel()
        self.task.wait(5)
        with self._busy:
            self.state.launches = []
            self._draw_chart()
        self.msg.info("cleared")

    def undo(self):
        with self._busy:
            if not self.state.launches:
                self.msg.info("nothing to undo")
                return
            L = self.state.launches.pop()
            if self.task.running:
                self.task.cancel()
            i = self._trace_index(L)
            if i is not None:
                self.chart.delete_traces([i])
        self.msg.info(f"removed trajectory #{L.id}")

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
        links = []
        for name, text, mime in (("pendulum_crossings.csv", self.export_csv(), "text/csv"),
                                 ("pendulum_session.json", self.export_json(), "application/json")):
            b64 = base64.b64encode(text.encode()).decode()
            links.append(f"<a download='{name}' href='data:{mime};base64,{b64}' style='margin-right:14px'>"
                         f"⬇ {name}</a>")
        self.downloads.value = "<div class='pe-downloads' style='font-size:13px'>" + "".join(links) + "</div>"
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
        body = self.state.body if (s.body.pendulum, s.body.name) == (self.state.pendulum, self.state.body.name) \
            else s.body
        self._set_body_and_level(body, s.E, s.mu)
        sec = self.section
        launches = []
        for seed in s.seeds:
            launches += self._add_launches(sec, [np.concatenate([seed.Gamma0, seed.omega0])], seed.source)
        new = [(L, seed.n) for L, seed in zip(launches, s.seeds)]
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


def _digits(v):
    """A level as its box shows it: 6 significant digits (0.703978, not a clipped 0.70397810506)."""
    return float(f"{float(v):.6g}")


def _slider_level(v):
    """A slider position as a level: 5 significant digits (the boxes then show 12.345, not 12.3451234567)."""
    return float(f"{float(v):.5g}")


def _set_range(slider, lo, hi, step, value):
    """Set a slider's range, step and value without tripping its min <= max checks."""
    slider.min = -1e12
    slider.max, slider.min, slider.step, slider.value = hi, lo, step, value
