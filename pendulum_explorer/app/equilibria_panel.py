"""Panel 2: the equilibria sphere (Fig. 1), the energy–momentum diagram, one selected equilibrium."""
from __future__ import annotations

import html

import ipywidgets as w
import numpy as np

from ..plotting.diagrams import energy_momentum_figure
from ..plotting.sphere import equilibria_sphere_figure
from .common import Messages, Task, about, body_title, figure_output, guarded, show_figure

ABOUT = r"""
<p>A relative equilibrium is a steady spin about the vertical: \(\Gamma\) is constant in the body and
\(\omega = k\Gamma\) (Eq. 36). Substituting into the reduced equations (31)&ndash;(32) gives
\(k^2 J\Gamma + mg\rho = k_1\Gamma\) (Eq. 42): for \(J=\mathrm{diag}(J_1,J_2,J_3)\) and
\(\alpha = k^2/k_1\) the solutions form one-parameter families
$$\Gamma_e = -\frac{n_\alpha}{\|n_\alpha\|},\qquad n_\alpha = (J - I/\alpha)^{-1}\rho,\qquad
\omega_e = \pm\sqrt{\frac{mg}{\|n_\alpha\|}}\;n_\alpha$$
(Prop. 9, with the sign corrected as explained in the library documentation), plus the hanging
\(\Gamma_h=\rho/\|\rho\|\) and the inverted \(\Gamma_i=-\rho/\|\rho\|\) equilibria (\(\alpha=0\)).</p>
<p>Each point carries a momentum \(\mu=\omega_e^{T}J\Gamma_e\) (Eq. 77) and an energy \(E\); in the
Lagrange&ndash;Routh picture it is a critical point of the amended potential \(V_\mu\), and its stability follows from
the four eigenvalues of the linearisation of (62): purely imaginary pairs (elliptic&ndash;elliptic) mean linearly
stable; a real pair means a saddle.</p>
<p><b>Reading the picture.</b> The sphere is the set of directions of gravity seen from the body. Thick solid
curves are linearly stable relative equilibria, thin dashed ones are unstable; their colour gives \(\alpha\)
(blue \(-\infty\) &hellip; red \(+\infty\)), and a ring marks the selected point. The energy&ndash;momentum
diagram plots the same families in the \((\mu, E)\) plane, coloured by stability class (green solid =
elliptic&ndash;elliptic = stable): for a given \(\mu\) the lowest curve is the ground state. Pick a point below to read its numbers, then <i>launch nearby</i> to watch a slightly perturbed motion
in the section and motion panels.</p>
"""


class EquilibriaPanel:
    def __init__(self, state):
        self.state = state
        self.msg = Messages()
        self.task = Task(self.msg)
        self.eq = None
        self._quiet = False  # set while the selectors are rebuilt: one redraw at the end, not one per change
        self.view = w.ToggleButtons(options=["3D", "top", "bottom"], value="3D", description="view",
                                    style={"button_width": "70px", "description_width": "40px"})
        self.families = w.HBox()
        self._fam_boxes = {}
        self.family = w.Dropdown(description="point", layout=w.Layout(width="300px"),
                                 style={"description_width": "40px"})
        self.index = w.IntSlider(value=0, min=0, max=0, description="along", continuous_update=False,
                                 layout=w.Layout(width="320px"), style={"description_width": "40px"})
        self.details = w.HTML()
        # a bounded input clamps silently: the label names its range
        self.eps = w.BoundedFloatText(value=0.02, min=1e-6, max=0.5, step=0.01, description="tilt [rad] (≤ 0.5)",
                                      layout=w.Layout(width="200px"), style={"description_width": "120px"},
                                      tooltip="the equilibrium's Γ is tilted by this angle, ω kept")
        self.nearby = w.Button(description="launch nearby", icon="rocket", button_style="primary")
        self.nearby.add_class("pe-launch-nearby")
        self.sphere_out = figure_output("470px")
        self.em_out = figure_output("330px")
        # the progress bar shares the view row, and "launch nearby" sits above the data table: both on screen at
        # 1280 x 720 without scrolling
        left = w.VBox([w.HBox([self.view, self.task.widget], layout=w.Layout(flex_flow="row wrap")), self.families,
                       self.sphere_out], layout=w.Layout(width="55%"))
        right = w.VBox([self.em_out, self.family, self.index, w.HBox([self.eps, self.nearby]), self.details],
                       layout=w.Layout(width="45%"))
        self.widget = w.VBox([self.msg, w.HBox([left, right]),
                              about(ABOUT, "About: equilibria and relative equilibria")])
        self.view.observe(self._on_redraw, names="value")
        self.family.observe(self._on_family, names="value")
        self.index.observe(self._on_index, names="value")
        self.nearby.on_click(self._on_nearby)
        state.observe("body", self._on_body)
        self.compute()

    # ------------------------------------------------------------------ computing
    def _on_body(self, body):
        self.compute()

    def compute(self):
        body = self.state.body

        def work(task):
            task.progress(0.2, "computing the equilibria")
            eq = self.state.equilibria()
            if task.cancelled or self.state.body is not body:
                return
            self.eq = eq
            self._build_selectors()
            self.redraw()
            self.msg.ok(f"{body_title(body)}: {len(eq.isolated)} isolated equilibria, families "
                        f"{', '.join(eq.labels)}; pick a point on the right, then “launch nearby”")

        self.task.start(work, "computing the equilibria")

    def _build_selectors(self):
        """Family toggles and the point selector for the new equilibria (draws nothing: the caller redraws)."""
        eq = self.eq
        boxes = {}
        for lab in eq.labels:
            cb = w.Checkbox(value=True, description=lab, indent=False, layout=w.Layout(width="auto"))
            cb.observe(self._on_redraw, names="value")
            boxes[lab] = cb
        self._fam_boxes = boxes
        self.families.children = [w.Label("families:")] + list(boxes.values())
        opts = [(f"{p.family} (isolated)", ("iso", i)) for i, p in enumerate(eq.isolated)]
        opts += [(f"family {f.label} (spin +)", ("fam", i)) for i, f in enumerate(eq.families) if f.branch == 1]
        self._quiet = True
        try:
            self.family.options = opts
            self.family.value = opts[0][1]
            self._select_family(self.family.value)
        finally:
            self._quiet = False

    def selected(self):
        """The selected EquilibriumPoint."""
        if self.eq is None:
            return None
        kind, i = self.family.value
        if kind == "iso":
            return self.eq.isolated[i]
        fam = self.eq.families[i]
        k = min(self.index.value, len(fam) - 1)
        from ..equilibria import EquilibriumPoint

        return EquilibriumPoint(fam.Gamma[k].copy(), fam.omega[k].copy(), float(fam.mu[k]), float(fam.energy[k]),
                                float(fam.alpha[k]), fam.label, fam.branch, str(fam.stability[k]),
                                fam.eigenvalues[k].copy())

    # ------------------------------------------------------------------ events
    @guarded(what="redrawing the equilibria")
    def _on_redraw(self, change=None):
        if not self._quiet:
            self.redraw()

    def redraw(self):
        if self.eq is None:
            return
        fams = [k for k, cb in self._fam_boxes.items() if cb.value]
        sel = self.selected()
        show_figure(self.sphere_out, equilibria_sphere_figure(self.eq, view=self.view.value, families=fams,
                                                              selected=sel, height=470))
        marker = (sel.mu, sel.energy) if sel is not None else None
        show_figure(self.em_out, energy_momentum_figure(self.eq, marker=marker, height=330))

    @guarded(what="selecting an equilibrium")
    def _on_family(self, change):
        if self._quiet or change["new"] is None:
            return
        self._quiet = True
        try:
            self._select_family(change["new"])
        finally:
            self._quiet = False
        self.redraw()

    def _select_family(self, value):
        """Point selector for ``value`` (the slider along a family); shows the details, does not redraw."""
        kind, i = value
        if kind == "fam":
            n = len(self.eq.families[i])
            self.index.max = max(0, n - 1)
            self.index.value = n // 2
            self.index.disabled = False
        else:
            self.index.value = 0
            self.index.max = 0
            self.index.disabled = True
        self._show_details()

    @guarded(what="selecting an equilibrium")
    def _on_index(self, change):
        if self._quiet:
            return
        self._show_details()
        self.redraw()

    def _show_details(self):
        p = self.selected()
        if p is None:
            self.details.value = ""
            return
        ev = np.asarray(p.eigenvalues)
        evs = ", ".join(f"{z.real:+.4g}{z.imag:+.4g}i" for z in ev)
        def vec(v):  # no "-0.0000" for a rounded-off zero
            return "[" + ", ".join(f"{round(float(x), 4) + 0.0:.4f}" for x in v) + "]"

        rows = [("family", p.family), ("stability", p.stability),
                ("Γ", vec(p.Gamma)),
                ("ω [rad/s]", vec(p.omega)),
                ("μ [kg m²/s]", f"{p.mu + 0.0:.6g}"), ("E [J]", f"{p.energy:.6g}"), ("α", f"{p.alpha:.5g}"),
                ("eigenvalues (LR, Eq. 62)", evs)]
        cells = "".join(f"<tr><td style='padding-right:10px;color:#444'>{html.escape(k)}</td>"
                        f"<td style='font-family:monospace'>{html.escape(v)}</td></tr>" for k, v in rows)
        self.details.value = f"<table class='pe-eq-details' style='font-size:14px;line-height:1.4'>{cells}</table>"

    @guarded(what="launching near the equilibrium")
    def _on_nearby(self, _b=None):
        self.launch_nearby()

    def launch_nearby(self):
        """A slightly perturbed state of the selected equilibrium, sent to the section and motion panels."""
        p = self.selected()
        if p is None:
            raise ValueError("no equilibrium selected yet")
        eps = float(self.eps.value)
        G = np.asarray(p.Gamma, float)
        # tilt Gamma by eps (radians) in a direction off the vertical plane, keep omega
        a = np.cross(G, [0.0, 0.0, 1.0])
        if np.linalg.norm(a) < 1e-6:
            a = np.cross(G, [1.0, 0.0, 0.0])
        a /= np.linalg.norm(a)
        G1 = np.cos(eps) * G + np.sin(eps) * a
        G1 /= np.linalg.norm(G1)
        w1 = np.asarray(p.omega, float)
        from ..reduction import energy, momentum

        E = energy(self.state.pendulum, G1, w1)
        mu = momentum(self.state.pendulum, G1, w1)
        self.state.emit("show_section")
        self.state.emit("section_level", E=E, mu=mu, seed=(G1, w1), source="nearby")
        self.msg.ok(f"launched near {p.family}: E = {E:.5g} J, μ = {mu:.5g} kg m²/s (see the section and motion tabs)")
        return E, mu
