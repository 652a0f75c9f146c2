"""Panel 3: the Poincaré section at (E, mu): click to launch, fill, clear, undo, export / load, paper presets."""
from __future__ import annotations

import base64
import csv
import io
import json
import threading
import time

import ipywidgets as w
import numpy as np

from .. import presets
from ..bodies import Pendulum, build_body
from ..errors import InaccessibleError, InvalidStateError, PendulumError
from ..poincare import PoincareSection, chart_from_sphere, paper_initial_state, sphere_from_chart
from ..reduction import attitude_from_gamma
from ..plotting.diagrams import energy_momentum_figure
from ..plotting.section import crossings_trace, section_chart_figure, section_sphere_figure
from .common import PALETTE, Messages, Task, about, body_title, figure_output, guarded, log, report_error, show_figure
from .state import Launch

#: the five energies of the paper's Fig. 2 (a)-(e)
PAPER_FIG2_ENERGIES = [("(a) E = −2.65", -2.65), ("(b) E = 0", 0.0), ("(c) E = 2.03", 2.03), ("(d) E = 8.83", 8.83),
                       ("(e) E = 11.95", 11.95)]
FIRST_CHUNK = 60  # crossings drawn first (fast feedback), then the rest in chunks
CHUNK = 400
SESSION_VERSION = 1

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


def _num(value, description, width="200px", step=0.1):
    return w.FloatText(value=value, description=description, step=step, continuous_update=False,
                       layout=w.Layout(width=width), style={"description_width": "72px"})


class SectionPanel:
    def __init__(self, state):
        self.state = state
        self.msg = Messages()
        self.task = Task(self.msg)  # click launches and fills share it (a new one cancels the running one)
        self.section = None
        self.region = None
        self._busy = threading.RLock()
        self._colour_index = 0
        self._suspend = False
        self._level_after_body = None  # (E, mu) for the next body event instead of the default level
        self.timings = {}

        self.E = _num(0.0, "E [J]", width="190px")
        self.E_slider = w.FloatSlider(value=0.0, min=-5, max=20, step=0.01, readout=False, continuous_update=False,
                                      layout=w.Layout(width="200px"))
        self.mu = _num(0.0, "μ [kg m²/s]", width="210px")
        self.mu.style.description_width = "86px"
        self.E.style.description_width = "44px"
        self.mu_slider = w.FloatSlider(value=0.0, min=-2, max=2, step=0.01, readout=False, continuous_update=False,
                                       layout=w.Layout(width="200px"))
        # a refused (E, mu) is reported here, right under the controls that set it
        self.level_msg = Messages()
        self.E.add_class("pe-energy")
        self.mu.add_class("pe-mu")
        self.ranges = w.HTML()
        # bounded inputs clamp silently: their labels name the range
        self.n_cross = w.BoundedIntText(value=500, min=100, max=5000, step=100, description="crossings (100–5000)",
                                        layout=w.Layout(width="215px"), style={"description_width": "140px"})
        self.n_cross.add_class("pe-n-crossings")
        self.n_fill = w.BoundedIntText(value=12, min=2, max=60, description="fill seeds (2–60)",
                                       layout=w.Layout(width="175px"), style={"description_width": "115px"})
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
        self.chart.on_click(self._on_chart_click)
        self.em_out = figure_output("300px")
        self.sphere_out = figure_output("300px")
        self.sphere_btn = w.Button(description="draw on sphere", icon="globe", layout=w.Layout(width="150px"))

        row1 = w.HBox([self.E, self.E_slider, self.mu, self.mu_slider, self.paper])
        row2 = w.HBox([self.n_cross, self.fill_btn, self.n_fill, self.undo_btn, self.clear_btn, self.export_btn,
                       self.load])
        right = w.VBox([self.em_out, self.sphere_btn, self.sphere_out], layout=w.Layout(width="40%"))
        self.level_msg.layout.min_height = "0"
        self.task.bar.layout.width = "160px"
        self.widget = w.VBox([row1, self.level_msg, w.HBox([self.ranges, self.task.widget],
                                                           layout=w.Layout(flex_flow="row wrap", align_items="center")),
                              row2, self.msg,
                              w.HBox([w.VBox([self.chart], layout=w.Layout(width="60%")), right]),
                              self.downloads, about(ABOUT, "About: the Poincaré section")])

        self.E.observe(self._on_E_text, names="value")
        self.E_slider.observe(self._on_E_slider, names="value")
        self.mu.observe(self._on_mu_text, names="value")
        self.mu_slider.observe(self._on_mu_slider, names="value")
        self.fill_btn.on_click(self._on_fill)
        self.clear_btn.on_click(self._on_clear)
        self.undo_btn.on_click(self._on_undo)
        self.export_btn.on_click(self._on_export)
        self.sphere_btn.on_click(self._on_sphere)
        self.load.observe(self._on_load, names="value")
        self.paper.observe(self._on_paper, names="value")
        state.observe("body", self._on_body)
        state.observe("section_level", self._on_level_request)
        state.observe("presenter", self._on_presenter)

        E0, mu0 = self._default_level()
        self.set_level(E0, mu0)

    # ================================================================== level (E, mu)
    def _default_level(self):
        if self.state.E is not None:
            return self.state.E, self.state.mu
        if self.state.body.name == "paper_fig2":
            E = 0.0
        else:  # halfway between the hanging and the inverted energy
            E = 0.0
        return E, self.default_mu(E)

    def default_mu(self, E):
        """The mu of the start level at energy E (the paper's R0 = I, omega0 = c[1,1,1]; 0 without a real c)."""
        pend = self.state.pendulum
        try:
            _G0, w0, _c = paper_initial_state(pend, E)
            return float(w0 @ pend.J @ np.array([0.0, 0.0, 1.0]))
        except PendulumError:
            return 0.0

    def mu_bound(self, E):
        """|mu| below this is necessary for a non-empty section at energy E (V_mu >= mu^2 / 2 J1 - m g |rho|)."""
        pend = self.state.pendulum
        mgr = pend.m * pend.g * float(np.linalg.norm(pend.rho))
        return float(np.sqrt(2 * float(pend.principal_moments[0]) * max(E + mgr, 0.0)))

    def set_level(self, E, mu, keep=False, changed=None):
        """New section at (E, mu): region, chart, diagram (clears the trajectories unless keep).

        An (E, mu) without motion (empty section) raises :class:`InaccessibleError` naming the admissible range
        and changes nothing: the last valid section, its trajectories and the controls stay as they were.
        ``changed`` ("E" or "mu") says which control asked, for the wording of that message."""
        t0 = time.perf_counter()
        sec = PoincareSection(self.state.pendulum, E, mu)
        region = sec.accessible_region(121, 81)
        if region.empty:
            raise InaccessibleError(self._empty_level_text(float(E), float(mu), region, changed))
        with self._busy:
            self.task.cancel()
            self.section = sec
            self.region = region
            self.state.E, self.state.mu = float(E), float(mu)
            if not keep:
                self.state.launches = []
            self._sync_controls(E, mu, region)
            self._draw_chart()
        self._draw_em()
        self.level_msg.clear()
        if not keep:
            self.msg.info(f"section at E = {float(E):.5g} J, μ = {float(mu):.4g} kg m²/s: click in the white region "
                          f"to launch a trajectory")
        self.timings["set_level"] = time.perf_counter() - t0

    def _empty_level_text(self, E, mu, region, changed):
        lo = region.energy_min
        if changed == "mu":
            text = (f"μ = {mu:.4g} kg m²/s gives no motion at E = {E:.5g} J (there min V_μ = {lo:.5g} J ≥ E): "
                    f"at this E a section needs |μ| < {self.mu_bound(E):.4g} kg m²/s at most.")
        else:
            text = (f"E = {E:.5g} J gives no motion at μ = {mu:.4g} kg m²/s: E must be above min V_μ = {lo:.5g} J.")
        if self.section is not None and self.section.pendulum == self.state.pendulum:
            text += (f" The section stays at E = {self.section.energy:.5g} J, μ = {self.section.mu:.4g} kg m²/s.")
        return text

    def _change_level(self, E, mu, changed):
        """A level control changed: the new section, or (invalid input) the message under the controls, the
        controls set back to the section in use."""
        try:
            self.set_level(E, mu, changed=changed)
        except ValueError as exc:
            report_error(self.level_msg, exc, f"setting {changed}")
            if self.section is not None and self.section.pendulum == self.state.pendulum:
                self._sync_controls(self.section.energy, self.section.mu, self.region)

    def _sync_controls(self, E, mu, region):
        self._suspend = True
        try:
            pend = self.state.pendulum
            mgr = pend.m * pend.g * float(np.linalg.norm(pend.rho))
            lo = region.energy_min
            self.E_slider.min = -1e9
            self.E_slider.max = max(lo + 25 * mgr, E + 1)
            self.E_slider.min = lo
            self.E_slider.step = mgr / 200
            self.E_slider.value = min(max(E, lo), self.E_slider.max)
            self.E.value = float(f"{float(E):.6g}")  # the box: 6 digits (the level keeps every digit)
            mu_max = self.mu_bound(E)
            lim = max(mu_max, abs(mu), 1e-3)
            self.mu_slider.min = -1e9
            self.mu_slider.max = lim
            self.mu_slider.min = -lim
            self.mu_slider.step = lim / 200
            self.mu_slider.value = float(mu)
            self.mu.value = float(f"{float(mu):.6g}")
            self.ranges.value = (
                f"<span style='font-size:13px;color:#333'>admissible at this μ: E &gt; min V<sub>μ</sub> = "
                f"<b>{lo:.5g}</b> J (whole sphere above {region.energy_all:.5g} J); at this E: |μ| &lt; "
                f"{mu_max:.4g} kg m²/s &nbsp;·&nbsp; accessible area {100 * region.area_fraction:.0f}%</span>")
        finally:
            self._suspend = False

    @guarded(what="setting E")
    def _on_E_text(self, change):
        if not self._suspend:
            self._change_level(float(change["new"]), self.state.mu, "E")

    @staticmethod
    def _slider_value(v):
        """A slider position as a level: 5 significant digits (the boxes then show 12.345, not 12.3451234567)."""
        return float(f"{float(v):.5g}")

    @guarded(what="setting E")
    def _on_E_slider(self, change):
        if not self._suspend:
            self._change_level(self._slider_value(change["new"]), self.state.mu, "E")

    @guarded(what="setting mu")
    def _on_mu_text(self, change):
        if not self._suspend:
            self._change_level(self.state.E, float(change["new"]), "mu")

    @guarded(what="setting mu")
    def _on_mu_slider(self, change):
        if not self._suspend:
            self._change_level(self.state.E, self._slider_value(change["new"]), "mu")

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
            self.msg.info(f"new body ({body_title(body)}): section at E = {E:.5g} J, μ = {mu:.4g} kg m²/s; click in the "
                          f"white region to launch a trajectory")
        except Exception as exc:  # noqa: BLE001
            report_error(self.msg, exc, "redrawing the section for the new body")

    def _on_level_request(self, E, mu, seed=None, source="nearby", zoom=None):
        try:
            self.set_level(E, mu)
            if zoom is not None:
                self.zoom_to(*zoom)
            if seed is not None:
                self.launch_seed(seed, source=source)
        except Exception as exc:  # noqa: BLE001
            report_error(self.msg, exc, "launching near the equilibrium")

    # ================================================================== drawing
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
        fig = self.chart.fig
        fig.update_layout(xaxis_range=[max(phi0, -np.pi), min(phi1, np.pi)], yaxis_range=[min(z1, 1.0), max(z0, -1.0)])
        show_figure(self.chart, fig)

    def _draw_chart(self):
        """The whole chart (region and the trajectories kept) in one update of the view."""
        # no relative-equilibria markers: PoincareSection.relative_equilibria keeps its own cache of whole
        # EquilibriumSets (~6 MB per body) beside state.equilibria(), which the kernel memory budget cannot afford
        fig = section_chart_figure(self.section, region=self.region, clickable=True, height=self.state.size(450),
                                   show_equilibria=False,
                                   title=f"Poincaré section at E = {self.section.energy:.4g} J, "
                                         f"μ = {self.section.mu:.4g} kg m²/s")
        self._colour_index = 0
        for L in self.state.launches:
            fig.add_trace(self._launch_trace(L))
        show_figure(self.chart, fig)

    def _draw_em(self):
        try:
            eq = self.state.equilibria()
            show_figure(self.em_out, energy_momentum_figure(eq, marker=(self.state.mu, self.state.E),
                                                            height=self.state.size(300)))
        except Exception as exc:  # noqa: BLE001
            report_error(self.msg, exc, "drawing the energy-momentum diagram")

    def _launch_trace(self, launch):
        """The chart trace of a launch's crossings (chart coordinates rounded to 1e-5 for the browser)."""
        launch.trace_name = f"#{launch.id}"
        tr = crossings_trace(name=launch.trace_name, colour=launch.colour, marker_size=5 if self.state.presenter else 3,
                             webgl=True)
        if len(launch.chart):
            tr.x = np.round(launch.chart[:, 0], 5)
            tr.y = np.round(launch.chart[:, 1], 5)
        return tr

    def _add_trace(self, launch):
        self.chart.add_traces([self._launch_trace(launch)])

    def _trace_index(self, launch):
        name = getattr(launch, "trace_name", None)
        for i, tr in enumerate(self.chart.data):
            if tr.name == name:
                return i
        return None

    def _update_trace(self, launch, sec=None):
        """Show the launch's crossings so far (if ``sec`` is given: only while that section is the one shown)."""
        with self._busy:
            if sec is not None and sec is not self.section:
                return
            i = self._trace_index(launch)
            if i is None:
                return
            self.chart.restyle(i, x=np.round(launch.chart[:, 0], 5), y=np.round(launch.chart[:, 1], 5))

    def crossing_traces(self):
        """The chart traces that hold crossings (tests)."""
        return [tr for tr in self.chart.data if tr.name and tr.name.startswith("#")]

    @guarded(what="drawing the sphere view")
    def _on_sphere(self, _b=None):
        launches = list(self.state.launches)
        show_figure(self.sphere_out, section_sphere_figure(
            self.section, [L.crossings for L in launches], region=self.region, names=[f"#{L.id}" for L in launches],
            colours=[L.colour for L in launches], height=330, showlegend=False,
            title="the same crossings on the sphere (body frame)"))

    # ================================================================== launching
    def _on_chart_click(self, x, y, trace_index=None):
        """A click on the chart (on the region heatmap or on crossings): launch at that chart point."""
        try:
            if x is None or y is None:
                return
            self.launch_at(float(x), float(y))
        except Exception as exc:  # noqa: BLE001
            report_error(self.msg, exc, "launching from the click")

    def _next_colour(self):
        c = PALETTE[self._colour_index % len(PALETTE)]
        self._colour_index += 1
        return c

    def launch_at(self, phi, z, n=None):
        """Launch the trajectory through the section point at chart coordinates (phi, z)."""
        t_click = time.perf_counter()
        sec = self.section
        try:
            G = sphere_from_chart(phi, z)
            st = sec.state_at(G)
        except InaccessibleError:
            V = sec.amended_potential(sphere_from_chart(phi, z))
            self.msg.error(f"(φ, Γ₃) = ({phi:.3f}, {z:.3f}) is not accessible at E = {sec.energy:.4g}: there "
                           f"V_μ = {V:.4g} > E. Click in the white region; nothing launched.")
            return None
        except InvalidStateError as exc:
            self.msg.error(f"cannot launch at (φ, Γ₃) = ({phi:.3f}, {z:.3f}): {exc}")
            return None
        return self.launch_seed(st, source="click", t_click=t_click)

    def launch_seed(self, seed, source="click", n=None, t_click=None):
        """Launch from a section state or an LP pair (Gamma, omega) on the current level."""
        t_click = time.perf_counter() if t_click is None else t_click
        sec = self.section
        n = int(self.n_cross.value if n is None else n)
        if hasattr(seed, "Gamma"):
            G0, w0, Gd0 = np.array(seed.Gamma), np.array(seed.omega), np.array(seed.Gammadot)
        else:
            G0, w0 = (np.asarray(x, float) for x in seed)
            Gd0 = np.cross(G0, w0)
        sec._seed_state((G0, w0))  # validates the level (raises a clear message otherwise)
        launch = Launch(id=self.state.next_id(), E=sec.energy, mu=sec.mu, body=self.state.body.name, source=source,
                        Gamma0=G0, Gammadot0=Gd0, colour=self._next_colour(), R0=attitude_from_gamma(G0), omega0=w0)
        with self._busy:
            self.state.launches.append(launch)
            self._add_trace(launch)
        self.msg.info(f"trajectory #{launch.id}: computing {n} crossings…")

        def work(task):
            self._run_crossings(task, sec, launch, (G0, w0), n, t_click)

        def done():
            self.msg.ok(f"trajectory #{launch.id}: {len(launch.crossings)} crossings "
                        f"(E = {sec.energy:.4g} J, μ = {sec.mu:.4g} kg m²/s); open the Motion tab to watch it")
            self.state.select(launch)

        self.task.start(work, f"trajectory #{launch.id}", on_done=done)
        return launch

    def _run_crossings(self, task, sec, launch, seed, n, t_click=None):
        """Crossings of one trajectory in chunks; the chart is updated after each chunk (results stream in)."""
        got_G = []
        total = 0
        cur = seed
        first = True
        while total < n and not task.cancelled:
            k = min(FIRST_CHUNK if first else CHUNK, n - total)
            res = sec.crossings(cur, k)
            if res.n_found:
                got_G.append(res.Gamma)
                total += res.n_found
                launch.crossings = np.concatenate(got_G)
                phi, z = chart_from_sphere(launch.crossings)
                launch.chart = np.stack([phi, z], -1)
                self._update_trace(launch, sec)
                if first and t_click is not None:
                    self.timings["click_to_first"] = time.perf_counter() - t_click
                # continue from the last crossing, projected back onto the exact level
                G_last = res.Gamma[-1] / np.linalg.norm(res.Gamma[-1])
                try:
                    cur = sec.state_at(G_last)
                except PendulumError:
                    cur = (G_last, res.omega[-1])
            first = False
            task.progress(total / n, f"#{launch.id}: {total}/{n} crossings")
            if not res.complete:
                self.msg.info(f"trajectory #{launch.id} stopped after {total} crossings ({res.status})")
                break

    # ================================================================== fill / clear / undo
    @guarded(what="filling the section")
    def _on_fill(self, _b=None):
        self.fill(int(self.n_fill.value))

    def fill(self, n_seeds=12, n=None):
        """Seeds spread over the accessible region (an equal-area lattice), streamed in batches."""
        sec = self.section
        region = self.region
        if region.empty:
            raise InaccessibleError("the section is empty at this (E, mu): nothing to fill")
        n = int(self.n_cross.value if n is None else n)
        # Fibonacci lattice on the sphere (equal area), keep the accessible points
        k = np.arange(4 * n_seeds * max(1, int(1 / max(region.area_fraction, 0.02))))
        zz = 1 - (2 * k + 1) / len(k)
        ph = np.mod(k * np.pi * (3 - np.sqrt(5)), 2 * np.pi) - np.pi
        Y, ok = sec.states_at(sphere_from_chart(ph, zz))
        cand = Y[ok]
        if len(cand) == 0:
            raise InaccessibleError("no lattice point of the accessible region was found; try a higher E")
        pick = cand[np.linspace(0, len(cand) - 1, min(n_seeds, len(cand))).round().astype(int)]
        launches = []
        with self._busy:
            for y in pick:
                L = Launch(id=self.state.next_id(), E=sec.energy, mu=sec.mu, body=self.state.body.name,
                           source="fill", Gamma0=y[:3].copy(), Gammadot0=np.cross(y[:3], y[3:]),
                           colour=self._next_colour(), R0=attitude_from_gamma(y[:3]), omega0=y[3:].copy())
                self.state.launches.append(L)
                self._add_trace(L)
                launches.append(L)

        work = self._crossings_work(sec, [(L, n) for L in launches], "fill")
        self.msg.info(f"fill: {len(launches)} trajectories × {n} crossings")
        self.task.start(work, "fill", on_done=lambda: self.msg.ok(f"fill done: {len(launches)} trajectories"))
        return launches

    def _crossings_work(self, sec, items, label):
        """The task body shared by fill and load: the crossings of each ``(launch, n)`` in ``items``, streamed
        to the chart (while the section is still the one shown)."""

        def work(task):
            for i, (L, n) in enumerate(items):
                if task.cancelled:
                    break
                res = sec.crossings((L.Gamma0, L.omega0), n)
                L.crossings = res.Gamma
                phi, z = chart_from_sphere(res.Gamma)
                L.chart = np.stack([phi, z], -1)
                self._update_trace(L, sec)
                task.progress((i + 1) / max(1, len(items)), f"{label}: {i + 1}/{len(items)} trajectories")

        return work

    @guarded(what="clearing")
    def _on_clear(self, _b=None):
        self.clear()

    def clear(self):
        self.task.cancel()
        self.task.wait(5)
        with self._busy:
            self.state.launches = []
            self._draw_chart()
        self.msg.info("cleared")

    @guarded(what="undoing")
    def _on_undo(self, _b=None):
        self.undo()

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
        E = change["new"]
        if E is None or E == "":
            return
        self.paper_preset(E)

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
        """CSV of all crossings: trajectory id, source, body, E, mu, crossing index, phi, Gamma_3, Gamma."""
        buf = io.StringIO()
        wr = csv.writer(buf)
        wr.writerow(["trajectory", "source", "body", "E", "mu", "k", "phi", "Gamma3", "Gamma1", "Gamma2"])
        for L in list(self.state.launches):
            G = np.asarray(L.crossings)
            for k in range(len(G)):
                wr.writerow([L.id, L.source, L.body, repr(L.E), repr(L.mu), k, repr(float(L.chart[k, 0])),
                             repr(float(G[k, 2])), repr(float(G[k, 0])), repr(float(G[k, 1]))])
        return buf.getvalue()

    def export_json(self):
        """The session's parameters: body, (E, mu), crossing count and the launched seeds (loadable)."""
        body = self.state.body
        d = {"version": SESSION_VERSION, "app": "pendulum_explorer",
             "body": {"name": body.name, "shape": body.shape, "pendulum": body.pendulum.to_dict()},
             "E": self.state.E, "mu": self.state.mu, "n_crossings": int(self.n_cross.value),
             "launches": [{"id": L.id, "source": L.source, "E": L.E, "mu": L.mu, "Gamma0": np.asarray(L.Gamma0).tolist(),
                           "omega0": np.asarray(L.omega0).tolist(), "n": int(len(L.crossings))}
                          for L in self.state.launches]}
        return json.dumps(d, indent=1)

    @guarded(what="exporting")
    def _on_export(self, _b=None):
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
        files = change["new"]
        if not files:
            return
        f = files[0]
        content = f["content"] if isinstance(f, dict) else f.content
        self.load_session(bytes(content).decode())

    def load_session(self, text, wait=False):
        """Restore a session exported by :meth:`export_json`: body, (E, mu), crossing count and trajectories."""
        try:
            d = json.loads(text)
        except json.JSONDecodeError as exc:
            raise PendulumError(f"not a session file (invalid JSON: {exc})") from None
        if not isinstance(d, dict) or d.get("app") != "pendulum_explorer":
            raise PendulumError("not a Pendulum Explorer session file (missing \"app\": \"pendulum_explorer\")")
        body = body_from_session(d["body"])
        self.n_cross.value = int(d.get("n_crossings", self.n_cross.value))
        if body.pendulum == self.state.pendulum and body.name == self.state.body.name:
            body = self.state.body
        self._set_body_and_level(body, float(d["E"]), float(d["mu"]))
        launches = d.get("launches", [])
        sec = self.section
        new = []
        with self._busy:
            for rec in launches:
                G0 = np.asarray(rec["Gamma0"], float)
                w0 = np.asarray(rec["omega0"], float)
                L = Launch(id=self.state.next_id(), E=sec.energy, mu=sec.mu, body=body.name, source=rec.get("source", "load"),
                           Gamma0=G0, Gammadot0=np.cross(G0, w0), colour=self._next_colour(), R0=attitude_from_gamma(G0),
                           omega0=w0)
                self.state.launches.append(L)
                self._add_trace(L)
                new.append((L, int(rec.get("n", self.n_cross.value)) or int(self.n_cross.value)))

        work = self._crossings_work(sec, new, "loading")
        self.task.start(work, "loading the session",
                        on_done=lambda: self.msg.ok(f"session loaded: {body_title(body)}, {len(new)} trajectories"))
        if wait:
            self.task.wait()
        return new


def body_from_session(b):
    """Rebuild the Body of a session record (preset, builder shape or bare J/rho)."""
    name = b.get("name", "custom")
    pend = Pendulum(**b["pendulum"])
    if name in presets.PRESETS:
        body = presets.get(name, g=pend.g)
        if body.pendulum == pend:
            return body
    shape = b.get("shape") or {}
    if shape.get("kind") in ("elliptic_cylinder", "box", "ellipsoid"):
        try:
            body = build_body(shape["kind"], shape["dims"], m=shape["m"], pivot=shape["pivot"], g=pend.g, name=name)
            if np.allclose(body.pendulum.J, pend.J, atol=1e-12) and np.allclose(body.pendulum.rho, pend.rho, atol=1e-12):
                return body
        except PendulumError:
            log.info("session shape could not be rebuilt; using J, rho")
    from .body_panel import equivalent_body

    return equivalent_body(pend, name=name)
