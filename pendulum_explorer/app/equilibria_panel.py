"""Panel 2: the equilibria sphere (Fig. 1), the energy–momentum diagram, one selected equilibrium."""
from __future__ import annotations

import html

import ipywidgets as w
import numpy as np

from ..plotting.diagrams import energy_momentum_figure
from ..plotting.sphere import equilibria_sphere_figure, family_name
from .common import Messages, Task, about, body_title, figure_output, guarded
from .section_levels import area_percent

ABOUT = r"""
<p><b>What is shown.</b> A <i>relative equilibrium</i> is a steady spin: the body turns about the vertical at a
constant rate and, seen from the body, gravity always points the same way. The sphere is the set of all directions
of gravity seen from the body (\(\Gamma\), the unit vector of gravity in body axes; the top of the 3D view is
"gravity pointing at the body's \(-e_3\)"). Each point on a coloured curve is one steady spin; a curve is a
<i>family</i> of them, named \(L_1\dots L_4\) as in the paper's Fig. 1. Along a family the spin rate changes:
the parameter \(\alpha\) (the square of the spin rate divided by the pull of gravity along \(\Gamma\)) runs from
0, where the family starts at the body at rest (hanging or upside down), towards \(\pm\infty\).</p>
<ul>
<li><b>hanging</b> (blue dot): at rest, centre of mass straight below the pivot. Always stable.</li>
<li><b>inverted</b> (red dot): at rest, balanced straight above the pivot. Always unstable.</li>
<li><b>Eq. 38 spin</b> (black diamond): where the family \(L_1\) passes through \(\alpha=\pm\infty\): a spin at
one particular rate, \(\|\omega\| = \sqrt{mg\,\|J^{-1}\rho\|}\,\|J^{-1}\rho\|\), with gravity along
\(-J^{-1}\rho\) (paper Eq. 38).</li>
</ul>
<p><b>Stable or not.</b> Thick solid curves are stable steady spins (a small push only makes the body wobble
around them); thin dashed ones are unstable (a small push grows and the motion leaves). The
<i>energy&ndash;momentum diagram</i> on the right shows the same families, labelled in the same colours, by their
energy \(E\) and their angular momentum about the vertical \(\mu\): for each \(\mu\), the lowest curve is the
calmest motion with that momentum.</p>
<p><b>Try it.</b> Choose a point in the menu, move along its family with the slider, then press
<i>launch nearby</i>: the body starts slightly tilted (by the tilt you set) from that steady spin, with the same
angular velocity. The Poincaré section tab then shows where this motion returns: near a stable point its returns
stay in a small loop around the point; near an unstable one they spread over the white region.</p>
<p style="color:#444">References: the steady spins satisfy \(\omega = k\Gamma\) and
\(k^2 J\Gamma + mg\rho = k_1\Gamma\) (Eqs 36, 42); with \(\alpha = k^2/k_1\) the families are
\(\Gamma_e = -n_\alpha/\|n_\alpha\|\), \(n_\alpha = (J - I/\alpha)^{-1}\rho\) (Prop. 9, Eqs 39&ndash;40, with the
sign corrected as in the README); \(\mu = \omega_e^{T}J\Gamma_e\) (Eq. 77); stability from the eigenvalues of the
linearisation of the reduced equations (62) (Sec. 5).</p>
"""

#: the stability classes in words (the class name is kept in brackets)
STABILITY_WORDS = {
    "elliptic-elliptic": "stable: a small push only makes it wobble",
    "saddle-centre": "unstable: a small push grows in one way",
    "saddle-saddle": "unstable: a small push grows in two ways",
    "focus-focus": "unstable: a small push spirals away",
    "degenerate": "borderline: the linear test cannot decide",
}

#: the isolated points in words
POINT_WORDS = {"hanging": "hanging at rest (straight down)", "inverted": "inverted at rest (balanced upside down)",
               "eq38": "Eq. 38 spin (where L1 passes through α = ±∞)"}


def stability_words(cls):
    return f"{STABILITY_WORDS.get(cls, cls)} ({cls})" if cls else "not computed"


def family_words(eq, fam):
    """A family in plain words: its name, its range of alpha and the rest position it starts from."""
    a = fam.alpha[np.isfinite(fam.alpha)]
    name = family_name(fam.label)
    ends = []
    for k in (0, len(fam) - 1):
        if np.linalg.norm(fam.Gamma[k] - eq.hanging.Gamma) < 2e-2:
            ends.append("hanging")
        elif np.linalg.norm(fam.Gamma[k] - eq.inverted.Gamma) < 2e-2:
            ends.append("upside down")
    if fam.kind == "axis":
        where = ends[0] if ends else "on the axis"
        return f"{name}: spins about the pivot–centre-of-mass line, {where}"
    if len(a) and np.ptp(a) <= 1e-9 * max(1.0, abs(float(a[0]))):
        ref = " (paper Eq. 7a)" if fam.kind == "eq7a" else (" (paper Eq. 41)" if fam.kind == "eq41" else "")
        return f"{name}: a ring of steady spins, all at α = {a[0]:.3g}{ref}"
    text = f"{name}: steady spins"
    through_inf = len(a) > 1 and np.any((np.sign(a[1:]) * np.sign(a[:-1]) < 0) & (np.abs(a[1:]) > 1.0))
    if through_inf:
        text += f", α < 0 and α > {a[a > 0].min():.3g} (through ±∞ at the Eq. 38 spin)"
    elif len(a):
        text += f", α {a.min():.3g} … {a.max():.3g}"
    if ends:
        text += f"; one end is the body {ends[0]} at rest (α = 0)"
    return text


#: fewer returns than this and "launch nearby" explains the (nearly) empty section
NEARBY_FEW = 3


def nearby_empty_words(n):
    """Why a motion launched near an equilibrium has (almost) no points on the Poincaré section."""
    got = "no point" if n == 0 else f"only {n} point{'s' if n > 1 else ''}"
    return (f"The Poincaré section shows {got} of this motion: it marks Γ each time Γ₃ (the component of gravity "
            f"along the body axis e₃) reaches a turning point while Γ goes round e₃ in the positive sense, and this "
            f"motion (almost) never does that: it swings in a vertical plane through the pole Γ = ±e₃, or goes "
            f"round e₃ the other way. Watch it in the Motion tab, or choose another point or a larger tilt.")


def nearby_window(Gamma, eps):
    """The section-chart window (phi0, phi1, z0, z1) around the direction ``Gamma`` that a motion tilted by ``eps``
    from a stable equilibrium stays in: about 4 eps on the sphere each way (wider in phi away from the equator)."""
    G = np.asarray(Gamma, float)
    phi = float(np.arctan2(G[1], G[0]))
    z = float(G[2])
    r = max(float(np.hypot(G[0], G[1])), 0.05)
    h = max(4.0 * float(eps), 0.02)
    return (phi - min(np.pi, h / r), phi + min(np.pi, h / r), z - min(1.0, h * r), z + min(1.0, h * r))


class EquilibriaPanel:
    def __init__(self, state):
        self.state = state
        self.msg = Messages()
        self.task = Task(self.msg)
        self.eq = None
        self._quiet = False  # set while the selectors are rebuilt: one redraw at the end, not one per change
        self.view = w.ToggleButtons(options=["3D", "top", "bottom"], value="3D", description="view",
                                    style={"button_width": "70px", "description_width": "40px"})
        # the checkboxes wrap to a second row: in one row the longer names ("hanging spin", "ring 1", ...) squeezed
        # the label to "fami" (presenter view at 1024 x 768)
        self.families = w.HBox(layout=w.Layout(flex_flow="row wrap", align_items="center"))
        self._fam_boxes = {}
        self.family = w.Dropdown(description="steady spin", layout=w.Layout(width="100%", max_width="440px"),
                                 style={"description_width": "80px"})
        self.family.add_class("pe-eq-choice")
        # the position along a family (its points are ordered by alpha); the caption says what it means
        self.index = w.IntSlider(value=0, min=0, max=0, description="along it", continuous_update=False,
                                 readout=False, layout=w.Layout(width="100%", max_width="440px"),
                                 style={"description_width": "80px"})
        self.index.add_class("pe-eq-along")
        self.along_info = w.HTML()
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
        right = w.VBox([self.em_out, self.family, self.index, self.along_info, w.HBox([self.eps, self.nearby]),
                        self.details],
                       layout=w.Layout(width="45%"))
        self.widget = w.VBox([self.msg, w.HBox([left, right]),
                              about(ABOUT, "About: equilibria and relative equilibria")])
        self.view.observe(self._on_redraw, names="value")
        self.family.observe(self._on_family, names="value")
        self.index.observe(self._on_index, names="value")
        self.nearby.on_click(self._on_nearby)
        state.observe("body", self._on_body)
        state.observe("presenter", lambda on: self._on_redraw())
        state.observe("launch", self._on_launch_done)
        self._nearby = None  # the last "launch nearby": its level, message and (once computed) its launch
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
            self.msg.ok(f"{body_title(body)}: hanging, inverted and the Eq. 38 spins, and the families of steady "
                        f"spins {', '.join(family_name(lab) for lab in sorted(eq.labels))} (labelled on both figures); "
                        f"choose one on the right, "
                        f"then “launch nearby”")

        self.task.start(work, "computing the equilibria")

    def _build_selectors(self):
        """Family toggles and the point selector for the new equilibria (draws nothing: the caller redraws)."""
        eq = self.eq
        boxes = {}
        for lab in sorted(eq.labels):
            cb = w.Checkbox(value=True, description=family_name(lab), indent=False,
                            layout=w.Layout(width="auto"))
            cb.observe(self._on_redraw, names="value")
            boxes[lab] = cb
        self._fam_boxes = boxes
        self.families.children = [w.Label("families:", layout=w.Layout(flex="0 0 auto", width="auto"))] + \
            list(boxes.values())
        opts, seen = [], set()
        for i, p in enumerate(eq.isolated):
            if p.family in seen:  # the two Eq. 38 spins (spin one way or the other): one entry
                continue
            seen.add(p.family)
            opts.append((POINT_WORDS.get(p.family, p.family), ("iso", i)))
        opts += [(family_words(eq, f), ("fam", i)) for i, f in sorted(enumerate(eq.families), key=lambda x: x[1].label)
                 if f.branch == 1]
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
        size = self.state.size
        self.sphere_out.layout.min_height = f"{size(470)}px"
        self.em_out.layout.min_height = f"{size(330)}px"
        present = self.state.present
        self.sphere_out.show(present(equilibria_sphere_figure(self.eq, view=self.view.value, families=fams,
                                                                      selected=sel, height=size(470))))
        marker = (sel.mu, sel.energy) if sel is not None else None
        self.em_out.show(present(energy_momentum_figure(self.eq, marker=marker, height=size(330))))

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

    def _show_along(self, p):
        kind, i = self.family.value
        if kind != "fam":
            self.along_info.value = ("<span style='font-size:13px;color:#444'>a single point: the slider moves along "
                                     "a family (choose one in the menu above)</span>")
            return
        fam = self.eq.families[i]
        a = fam.alpha[np.isfinite(fam.alpha)]
        self.along_info.value = (
            f"<span style='font-size:13px;color:#444'>point {self.index.value + 1} of {len(fam)} along "
            f"{html.escape(family_name(fam.label))}: α = {p.alpha:.4g} (the family runs α {a.min():.3g} … "
            f"{a.max():.3g}; "
            f"α = 0 is the body at rest, larger |α| a faster spin), spin rate |ω| = "
            f"{float(np.linalg.norm(p.omega)):.3g} rad/s</span>")

    def _show_details(self):
        p = self.selected()
        if p is None:
            self.details.value = ""
            return
        self._show_along(p)
        ev = np.asarray(p.eigenvalues)
        evs = ", ".join(f"{z.real:+.4g}{z.imag:+.4g}i" for z in ev)
        def vec(v):  # no "-0.0000" for a rounded-off zero
            return "[" + ", ".join(f"{round(float(x), 4) + 0.0:.4f}" for x in v) + "]"

        rows = [("family", POINT_WORDS.get(p.family, family_name(p.family))),
                ("stability", stability_words(p.stability)),
                ("Γ", vec(p.Gamma)),
                ("ω [rad/s] (spin)", vec(p.omega)),
                ("μ [kg m²/s]", f"{p.mu + 0.0:.6g}"), ("E [J]", f"{p.energy:.6g}"), ("α", f"{p.alpha:.5g}"),
                ("eigenvalues (LR, Eq. 62)", evs)]
        cells = "".join(f"<tr><td style='padding-right:10px;color:#444'>{html.escape(k)}</td>"
                        f"<td style='font-family:monospace'>{html.escape(v)}</td></tr>" for k, v in rows)
        self.details.value = f"<table class='pe-eq-details' style='font-size:14px;line-height:1.4'>{cells}</table>"

    def _on_launch_done(self, launch):
        """A trajectory finished in the section panel: if it is the last "launch nearby", say what the section
        shows of it (a motion with no returns to the section left the student with an empty chart)."""
        nb = self._nearby
        if nb is None or launch.source != "nearby" or not np.allclose([launch.E, launch.mu], [nb["E"], nb["mu"]],
                                                                      rtol=1e-9, atol=1e-12):
            return
        nb["launch"] = launch
        if self.msg.text.startswith(nb["text"][:40]):  # the message is this launch's (in tests: not yet written)
            self._nearby_outcome(launch)

    def _nearby_outcome(self, launch):
        nb, self._nearby = self._nearby, None
        n = len(launch.crossings)
        if n >= NEARBY_FEW:
            return
        self.msg.info(nb["empty"] + " " + nearby_empty_words(n))

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
        from ..poincare import PoincareSection

        area = PoincareSection(self.state.pendulum, E, mu).accessible_region(121, 81).area_fraction
        self.state.emit("show_section")
        zoom = None
        stable = p.stability == "elliptic-elliptic"
        if stable and area < 0.05:  # a small loop around the point: show the chart around it, not a grey page
            zoom = nearby_window(G, eps)
        name = POINT_WORDS.get(p.family, family_name(p.family))
        pct = area_percent(area, empty=area == 0.0)
        if stable:
            what = (f"It is stable, so the motion stays close to it: at this energy and momentum "
                    f"{'only ' if area < 0.5 else ''}{pct} of the sphere is reachable (the white part of the "
                    f"section) and every return lands near the equilibrium, tracing a small loop around it"
                    + (" (the section shows the chart around the point; its “reset axes” button shows all of it)"
                       if zoom is not None else "") + ". A larger tilt gives a larger loop.")
        else:
            what = (f"It is unstable ({STABILITY_WORDS.get(p.stability, p.stability)}), so the motion leaves it: "
                    f"its returns spread over the reachable part of the sphere ({pct}, white in the section).")
        head = (f"Launched near {name}, tilted by {eps:g} rad with the same ω: E = {E:.5g} J, μ = {mu:.5g} kg m²/s "
                f"(Poincaré section and Motion tabs).")
        short = ("It is stable, so the motion stays close to it." if stable else
                 f"It is unstable ({STABILITY_WORDS.get(p.stability, p.stability)}), so the motion leaves it.")
        self._nearby = {"E": E, "mu": mu, "text": f"{head} {what}", "empty": f"{head} {short}", "launch": None}
        self.msg.ok(self._nearby["text"])
        self.state.emit("section_level", E=E, mu=mu, seed=(G1, w1), source="nearby", zoom=zoom)
        if self._nearby is not None and self._nearby["launch"] is not None:  # finished already (tests: inline)
            self._nearby_outcome(self._nearby["launch"])
        return E, mu
