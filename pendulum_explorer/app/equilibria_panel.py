"""Panel 2: the equilibria sphere (Fig. 1), the energy–momentum diagram, one selected equilibrium."""
from __future__ import annotations

import ipywidgets as w
import numpy as np

from ..bounds import BOUNDS
from ..plotting.diagrams import energy_momentum_figure
from ..plotting.sphere import equilibria_sphere_figure
from ..poincare import PoincareSection, nearby_window
from ..reduction import energy, momentum
from . import equilibria_text as say
from . import i18n
from .common import Messages, Task, about, body_title, figure_output, guarded
from .equilibria_text import about_html, family_title, point_words
from .i18n import N_, _

#: fewer returns than this and "launch nearby" explains the (nearly) empty section
NEARBY_FEW = 3
#: the default tilt of "launch nearby" [rad]
NEARBY_TILT = 0.1

class EquilibriaPanel:
    def __init__(self, state):
        self.state = state
        self.msg = Messages()
        self.task = Task(self.msg)
        self.eq = None
        self._quiet = False  # set while the selectors are rebuilt: one redraw at the end, not one per change
        self.view = w.ToggleButtons(options=[("3D", "3D"), (_("top"), "top"), (_("bottom"), "bottom")], value="3D",
                                    description=_("view"),
                                    style={"button_width": "70px",
                                           "description_width": f"{max(40, int(7.2 * len(_('view'))) + 4)}px"})
        # the checkboxes wrap to a second row: in one row the longer names ("hanging spin", "ring 1", ...) squeezed
        # the label to "fami" (presenter view at 1024 x 768)
        self.families = w.HBox(layout=w.Layout(flex_flow="row wrap", align_items="center"))
        self._fam_boxes = {}
        # the labels' width: the longer of the two, at least the English 80 px (German: "stationäre Drehung")
        label_w = f"{max(80, int(7.2 * max(len(_('steady spin')), len(_('along it')))) + 4)}px"
        # the whole column: its entries are long ("hanging spin: spins about the pivot–centre-of-mass line, hanging"
        # was cut at 347 px of 400 at 1280 x 720); the menu goes under its label when the row is narrower (CSS)
        self.family = w.Dropdown(description=_("steady spin"), layout=w.Layout(width="100%"),
                                 style={"description_width": label_w})
        self.family.add_class("pe-eq-choice")
        # the position along a family (its points are ordered by alpha); the caption says what it means
        self.index = w.IntSlider(value=0, min=0, max=0, description=_("along it"), continuous_update=False,
                                 readout=False, layout=w.Layout(width="100%", max_width="440px"),
                                 style={"description_width": label_w})
        self.index.add_class("pe-eq-along")
        self.along_info = w.HTML()
        self.details = w.HTML()
        # a bounded input clamps silently: the label names its range
        # 0.1 rad (5.7°): a motion the body view shows (0.02 rad from hanging gave ω ≈ 0.05 rad/s: it looked frozen)
        lo, hi = BOUNDS["tilt"].range(plausible=True)
        tilt = _("tilt [rad] (≤ {max})").format(max=i18n.number(hi))
        tilt_w = max(120, int(7.2 * len(tilt)) + 4)
        self.eps = w.BoundedFloatText(value=NEARBY_TILT, min=lo, max=hi, step=0.01, description=tilt,
                                      layout=w.Layout(width=f"{tilt_w + 80}px"),
                                      style={"description_width": f"{tilt_w}px"},
                                      tooltip=_("the equilibrium's Γ is tilted by this angle, ω kept"))
        self.nearby = w.Button(description=_("launch nearby"), icon="rocket", button_style="primary",
                               layout=w.Layout(width="auto", min_width="148px"))
        self.nearby.add_class("pe-launch-nearby")
        self.sphere_out = figure_output("470px")
        self.em_out = figure_output("330px")
        # the progress bar shares the view row, and "launch nearby" sits above the data table: both on screen at
        # 1280 x 720 without scrolling
        left = w.VBox([w.HBox([self.view, self.task.widget], layout=w.Layout(flex_flow="row wrap")), self.families,
                       self.sphere_out], layout=w.Layout(width="55%"))
        # the button goes under the tilt box when the row is too narrow (German and Spanish on a tablet: the button
        # stood 788-935 px on an 820 px screen, past the panel's edge)
        right = w.VBox([self.em_out, self.family, self.index, self.along_info,
                        w.HBox([self.eps, self.nearby], layout=w.Layout(flex_flow="row wrap", align_items="center")),
                        self.details],
                       layout=w.Layout(width="45%"))
        self.widget = w.VBox([self.msg, w.HBox([left, right]),
                              about(about_html(), _("About: equilibria and relative equilibria"))])
        self.view.observe(self._on_redraw, names="value")
        self.family.observe(self._on_family, names="value")
        self.index.observe(self._on_index, names="value")
        self.nearby.on_click(self._on_nearby)
        state.listen("body", self._on_body)
        state.listen("presenter", lambda on: self._on_redraw())
        state.listen("selection", lambda n: self._on_launch_done(state.selected))
        self._nearby = None  # the last "launch nearby": its level, message and (once computed) its launch
        self.compute()

    # ------------------------------------------------------------------ computing
    def _on_body(self, body):
        self.compute()

    def compute(self):
        body = self.state.body

        def work(task):
            task.progress(0.2, _("computing the equilibria"))
            eq = self.state.equilibria()
            if task.cancelled or self.state.body is not body:
                return
            self.eq = eq
            self._build_selectors()
            self.redraw()
            self.msg.ok(say.computed(body_title(body), eq.labels))

        self.task.start(work, _("computing the equilibria"))

    def _build_selectors(self):
        """Family toggles and the point selector for the new equilibria (draws nothing: the caller redraws)."""
        eq = self.eq
        boxes = {}
        for lab in sorted(eq.labels):
            cb = w.Checkbox(value=True, description=family_title(lab), indent=False,
                            layout=w.Layout(width="auto"))
            cb.observe(self._on_redraw, names="value")
            boxes[lab] = cb
        self._fam_boxes = boxes
        self.families.children = [w.Label(_("families:"), layout=w.Layout(flex="0 0 auto", width="auto"))] + \
            list(boxes.values())
        opts, seen = [], set()
        for i, p in enumerate(eq.isolated):
            if p.family in seen:  # the two Eq. 38 spins (spin one way or the other): one entry
                continue
            seen.add(p.family)
            opts.append((point_words(p.family), ("iso", i)))
        opts += [(say.family_words(eq, f), ("fam", i)) for i, f in sorted(enumerate(eq.families), key=lambda x: x[1].label)
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
        return self.eq.families[i].point(self.index.value)

    # ------------------------------------------------------------------ events
    @guarded(what=N_("redrawing the equilibria"))
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
                                                                      selected=sel, height=size(470),
                                                                      label_px=self.state.label_px(14))))
        marker = (sel.mu, sel.energy) if sel is not None else None
        self.em_out.show(present(energy_momentum_figure(self.eq, marker=marker, height=size(330),
                                                        label_px=self.state.label_px(13))))

    @guarded(what=N_("selecting an equilibrium"))
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

    @guarded(what=N_("selecting an equilibrium"))
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
        kind, i = self.family.value
        fam = self.eq.families[i] if kind == "fam" else None
        self.along_info.value = say.along(fam, self.index.value, p, say.family_start(self.eq, fam)) if fam else \
            say.single_point()
        self.details.value = say.details_html(p)

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
            # an unstable point whose returns all lie at the chart's edges: the white region stays blank, say why
            note = "" if nb["stable"] else say.nearby_at_poles(launch.chart)
            if note:
                self.msg.info(nb["empty"] + " " + note)
            return
        self.msg.info(nb["empty"] + " " + say.nearby_empty(n))

    @guarded(what=N_("launching near the equilibrium"))
    def _on_nearby(self, _b=None):
        self.launch_nearby()

    def launch_nearby(self):
        """A slightly perturbed state of the selected equilibrium (:meth:`EquilibriumPoint.tilted`: Γ tilted by the
        chosen angle, ω kept), sent to the section and motion panels."""
        p = self.selected()
        if p is None:
            raise ValueError(_("no equilibrium selected yet"))
        eps, pend = float(self.eps.value), self.state.pendulum
        G1, w1 = p.tilted(eps)
        E, mu = energy(pend, G1, w1), momentum(pend, G1, w1)
        area = PoincareSection(pend, E, mu).accessible_region(121, 81).area_fraction
        # a stable point in a small region: its returns stay in a small loop, so the section shows the chart
        # around the point, not a grey page
        stable = p.stability == "elliptic-elliptic"
        zoom = nearby_window(p.Gamma, eps) if stable and area < 0.05 else None
        text, short = say.launched_nearby(p, eps, E, mu, area, zoom is not None)
        self._nearby = {"E": E, "mu": mu, "text": text, "empty": short, "launch": None, "stable": stable}
        self.msg.ok(text)
        self.state.request_panel("section")  # built on first use: the launch is made there
        n_before = len(self.state.launches)
        self.state.request_level(E, mu, seed=(G1, w1), source="nearby", zoom=zoom)
        # the motion itself, played in the Motion tab at once (its returns are drawn in the section meanwhile)
        new = [L for L in self.state.launches[n_before:] if L.source == "nearby"]
        if new:
            self.state.request_motion(new[-1])
        else:
            self.state.request_tab("section")  # refused there: the section's message says why
        if self._nearby is not None and self._nearby["launch"] is not None:  # finished already (tests: inline)
            self._nearby_outcome(self._nearby["launch"])
        return E, mu
