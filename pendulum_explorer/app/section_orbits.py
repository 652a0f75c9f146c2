"""The section panel's periodic-orbit layers (issue 21): "follow in E" and "draw manifolds" for the orbit found
last with "find periodic orbit".

* "follow in E" continues the orbit's family in E at the level's μ, down and up
  (:func:`~pendulum_explorer.orbit_families.continue_periodic_orbit`, in the panel's task: progress, cancel; past
  a grazing crossing as a fixed point of a higher power, :func:`~pendulum_explorer.orbit_families.continue_across`,
  at most MAX_ACROSS times each way), then
  draws the bifurcation diagram under the chart (:func:`~pendulum_explorer.plotting.bifurcation.bifurcation_figure`),
  shows on a band under the E slider where the family exists, and says so with its bifurcations; at every later
  level of that μ inside the family's span the members there
  (:meth:`~pendulum_explorer.orbit_families.OrbitFamily.members_at`) are drawn on the chart.
* "draw manifolds" draws the stable and unstable manifolds of a hyperbolic orbit over the crossings
  (:func:`~pendulum_explorer.manifolds.invariant_manifolds`, bounded in work, in the panel's task;
  :func:`~pendulum_explorer.plotting.bifurcation.manifold_traces`); an elliptic orbit is refused next to the
  button.

Widgets and wiring only: the numerics are the library's, the figures :mod:`pendulum_explorer.plotting`'s.
"""
from __future__ import annotations

import html
from typing import Any

import ipywidgets as w

from . import section_text as say
from .common import Messages, figure_output
from .i18n import N_, _, ngettext, number

#: the most family members computed each way from the orbit (bounded work: ~1 s per 100 on this machine)
FOLLOW_POINTS = 400
#: how many times a family is continued across a grazing crossing each way (as a fixed point of a higher power)
MAX_ACROSS = 2
#: the largest continuation step (chart and energy arclength)
FOLLOW_STEP = 0.05
#: how far above the level's min V_mu the family is followed, in units of m g |rho| (the E slider's top knot:
#: :meth:`.section_levels.LevelControls.show`)
FOLLOW_TOP = 25.0
#: chart arclength of each manifold branch, and the work bound of a "draw manifolds" (return maps in all)
MANIFOLD_LENGTH = 2.0
MANIFOLD_MAX_MAPS = 40_000
MANIFOLD_MAX_POINTS = 3000
#: the bifurcation diagram's height [px] under the chart
DIAGRAM_HEIGHT = 260
#: the band under the E slider (its width is the slider's)
BAND_WIDTH = 200

#: why a family stopped (OrbitFamily.stop), in words
_STOPS = {"reached end": N_("reached the end of the range"), "max_points": N_("work bound reached"),
          "cancelled": N_("cancelled"), "closed loop": N_("closed loop"), "left the section": N_("left the section"),
          "return map not smooth": N_("return map not smooth (a grazing crossing)")}
#: the bifurcations on a family (:data:`pendulum_explorer.orbit_families.BIFURCATION_KINDS`), in words
# TRANSLATORS: kinds of bifurcation on a family of periodic orbits ("fold at 3.75 J"): where it turns back in E
_BIFURCATIONS = {"fold": N_("fold"), "tangent": N_("tangent"), "period-doubling": N_("period-doubling")}


def _button(description: str, cls: str, width: str, **kw: Any) -> w.Button:
    # as wide as its words in the page's language ("Mannigfaltigkeiten zeichnen"), never below the English width
    b = w.Button(description=description, layout=w.Layout(width="auto", min_width=width), **kw)
    b.add_class(cls)
    return b


class OrbitLayers:
    """"follow in E" and "draw manifolds" with their note (refusals and what the layer shows), the band under
    the E slider and the bifurcation diagram; ``overlays()`` are the chart traces the panel draws on top."""

    def __init__(self, panel: Any) -> None:
        self.panel = panel
        self.follow_btn = _button(_("follow in E"), "pe-follow-e", "120px", icon="line-chart",
                                  tooltip=_("continue the family of the periodic orbit found last in E"))
        self.manifold_btn = _button(_("draw manifolds"), "pe-draw-manifolds", "150px", icon="random",
                                    tooltip=_("stable and unstable manifolds of the hyperbolic orbit found last"))
        self.note = Messages()  # next to the buttons: a refusal, the family's span, the member at this E
        self.note.add_class("pe-orbit-note")
        self.band = w.HTML(layout=w.Layout(width=f"{BAND_WIDTH}px", height="8px", visibility="hidden"))
        self.band.add_class("pe-family-band")
        self.diagram = figure_output(f"{DIAGRAM_HEIGHT}px")
        self.diagram.add_class("pe-bifurcation-diagram")
        self.diagram.layout.display = "none"
        self.widget = w.VBox([w.HBox([self.follow_btn, self.manifold_btn], layout=w.Layout(flex_flow="row wrap")),
                              self.note])
        self.families: list[Any] = []  # the family followed: its part below and above the orbit's E
        self.members: list[Any] = []  # its members at the level shown (drawn on the chart)
        self.manifolds: Any = None  # the manifolds drawn at the level shown
        self.level: Any = None  # the section the members and the manifolds belong to
        self._key: tuple[Any, float] | None = None  # (pendulum, mu) of the family
        self.follow_btn.on_click(lambda _b: panel.guard(self.follow, "follow in E"))
        self.manifold_btn.on_click(lambda _b: panel.guard(self.draw_manifolds, "draw manifolds"))

    def slider_box(self, slider: w.Widget) -> w.VBox:
        """The E slider with the band tucked under its track, in the height of the slider alone (the chart below
        does not move when the band appears: it moved 11 px down with the band in a box of its own height)."""
        self.band.layout.margin = "-9px 0 0 0"
        return w.VBox([slider, self.band], layout=w.Layout(height="32px", overflow="visible"))

    # ------------------------------------------------------------------ which orbit
    def target(self) -> Any:
        """The orbit the buttons act on, as a LevelOrbit: the family's member at this level (the first), else the
        periodic orbit found last at this level; None if there is none."""
        from ..orbit_families import as_level_orbit

        p = self.panel
        if self.members and self.level is p.section:
            return self.members[0]
        return as_level_orbit(p.orbits[-1], p.section) if p.orbits else None

    def orbit_found(self) -> None:
        """A new orbit was found at this level: the buttons act on it now (not on a family member)."""
        self.members = []
        self.note.clear()

    # ------------------------------------------------------------------ follow in E
    def follow(self) -> None:
        """Continue the target orbit's family in E at this μ, down towards min V_μ and up to the top of the E
        slider's knots (each way at most FOLLOW_POINTS members), in the panel's task; then the diagram, the band
        and the note.  A cancel keeps (and draws) the members so far."""
        from ..errors import PeriodicOrbitNotFoundError
        from ..orbit_families import continue_across, continue_periodic_orbit

        p, sec = self.panel, self.panel.section
        o = self.target()
        if o is None:
            self.note.error(_("find a periodic orbit first (“find periodic orbit”, then a click near it)"))
            return
        lo = float(p.region.energy_min)
        hi = max(lo + FOLLOW_TOP * sec.pendulum.mgrho_norm, o.E + 1.0)
        fams: list[Any] = []

        def work(task: Any) -> None:
            for i, end in enumerate((lo, hi)):
                def prog(n: int, E: float, i: int = i, end: float = end) -> None:
                    f = min(1.0, abs(E - o.E) / max(abs(end - o.E), 1e-12))
                    task.progress((i + f) / 2, _("following the family: E = {E} J, {n} orbits").format(
                        E=number(E, ".5g"), n=n))

                kw: dict[str, Any] = dict(max_step=FOLLOW_STEP, max_points=FOLLOW_POINTS, progress=prog,
                                          cancel=lambda: task.cancelled)
                fams.append(continue_periodic_orbit(o, end, **kw))
                for _jump in range(MAX_ACROSS):  # a grazing crossing: the same orbit goes on as a fixed point of P^k'
                    if task.cancelled or fams[-1].jump is None or fams[-1].jump[4] >= fams[-1].jump[3]:
                        break
                    try:
                        fams.append(continue_across(fams[-1], end, **kw))
                    except PeriodicOrbitNotFoundError:
                        break
                if task.cancelled:
                    break
            with p.busy:
                if sec is not p.section:
                    return
                self.families, self._key, self.members = fams, (sec.pendulum, sec.mu), []
                self.show_family(sec.energy)
            if task.cancelled:
                self.note.info(_("follow in E cancelled: the family so far is drawn. ") + self.family_text())

        self.note.info(_("following the family of the period-{k} orbit in E…").format(k=o.k))
        p.task.start(work, _("follow in E"), lambda: self.note.ok(self.family_text()))

    def span(self) -> tuple[float, float]:
        """The energies the family followed spans."""
        Es = [E for f in self.families for E in f.E]
        return min(Es), max(Es)

    def family_text(self) -> str:
        """"exists for a ≤ E ≤ b J; period doubling at ..." (the bifurcations the library located)."""
        if not self.families:
            return ""
        a, b = self.span()
        o = self.families[0].orbits[0]
        text = _("the period-{k} orbit's family (μ = {mu} kg m²/s) exists for {a} ≤ E ≤ {b} J").format(
            k=o.k, mu=number(o.mu, ".4g"), a=number(a, ".4g"), b=number(b, ".4g"))
        text += " (" + "; ".join(_("P^{k} stops at E = {E} J: {why}").format(
            k=f.orbits[0].k, E=number(f.orbits[-1].E, ".4g"), why=_(_STOPS.get(f.stop, f.stop)))
            for f in self.families) + ")"
        for f in self.families[1:]:
            if f.orbits[0].k != o.k:
                text += _("; across a grazing crossing at E = {E} J it goes on as a fixed point of P^{k}").format(
                    E=number(f.orbits[0].E, ".4g"), k=f.orbits[0].k)
        bifs = [bf for f in self.families for bf in f.bifurcations]
        if bifs:
            text += "; " + ", ".join(_("{kind} at {E} J").format(kind=_(_BIFURCATIONS.get(bf.kind, bf.kind)),
                                                                  E=number(bf.E, ".8g")) for bf in bifs)
        else:
            text += _("; no bifurcation on it")
        return text

    def show_family(self, E: float) -> None:
        """The diagram (the level ``E`` marked), the band under the E slider (call under the panel's busy)."""
        if not self.families:
            self.diagram.layout.display = "none"
            self.band.layout.visibility = "hidden"
            self.band.value = ""
            return
        from ..plotting.bifurcation import bifurcation_figure  # not before a family: the tab's opening stays light

        o = self.families[0].orbits[0]
        self.diagram.show(bifurcation_figure(
            self.families, mark=E, height=self.panel.state.size(DIAGRAM_HEIGHT),
            title=_("family of the period-{k} orbit, μ = {mu} kg m²/s").format(k=o.k, mu=number(o.mu, ".4g"))))
        self.diagram.layout.display = ""
        self.draw_band()

    def draw_band(self) -> None:
        """The family's span on a band as wide as the E slider, over the slider's range, the bifurcations as
        ticks (the span in words in its tooltip)."""
        s = self.panel.E_slider
        a, b = self.span()
        lo, hi = float(s.min), float(s.max)

        def pct(E: float) -> float:
            return 100.0 * min(max((E - lo) / (hi - lo), 0.0), 1.0) if hi > lo else 0.0

        ticks = "".join(f"<div style='position:absolute;left:{pct(bf.E):.2f}%;top:0;width:2px;height:8px;"
                        f"background:#000'></div>" for f in self.families for bf in f.bifurcations
                        if lo <= bf.E <= hi)
        seg = (f"<div style='position:absolute;left:{pct(a):.2f}%;width:{max(pct(b) - pct(a), 0.5):.2f}%;top:1px;"
               f"height:6px;background:#0072B2'></div>") if b >= lo and a <= hi else ""
        tip = html.escape(_("the family exists for {a} ≤ E ≤ {b} J").format(a=number(a, ".4g"), b=number(b, ".4g")),
                          quote=True)
        self.band.value = (f"<div role='img' title='{tip}' aria-label='{tip}' style='position:relative;width:100%;"
                           f"height:8px;background:#ddd;border-radius:2px'>{seg}{ticks}</div>")
        self.band.layout.visibility = "visible"

    # ------------------------------------------------------------------ a new level
    def level_changed(self, sec: Any) -> None:
        """A new level is shown: its manifolds and members are gone; a family of another body or μ is dropped;
        inside the family's span, its members at this E are computed (panel's task) and drawn."""
        self.manifolds, self.members = None, []
        if not self.families:
            return
        if self._key is None or self._key[0] != sec.pendulum or self._key[1] != sec.mu:
            self.families, self._key = [], None
            self.note.clear()
            self.show_family(sec.energy)
            return
        self.show_family(sec.energy)
        a, b = self.span()
        if not a <= sec.energy <= b:
            self.note.info(_("E = {E} J is outside the family's span {a} … {b} J: no member of it here").format(
                E=number(sec.energy, ".5g"), a=number(a, ".4g"), b=number(b, ".4g")))
            return
        p, fams = self.panel, list(self.families)
        found: list[Any] = []

        def work(task: Any) -> None:
            task.progress(0.2, _("the family's member at E = {E} J").format(E=number(sec.energy, ".5g")))
            for f in fams:
                for m in f.members_at(sec.energy):
                    if all(abs(m.phi - q.phi) + abs(m.z - q.z) > 1e-6 for q in found):
                        found.append(m)
                if task.cancelled:
                    return
            with p.busy:
                if sec is not p.section:
                    return
                self.members, self.level = list(found), sec
                p.redraw()

        def done() -> None:
            if not found:
                self.note.info(_("no member of the family found at E = {E} J").format(E=number(sec.energy, ".5g")))
                return
            which = "; ".join(_("(φ, Γ₃) = ({phi}, {z}), {kind}").format(
                phi=number(m.phi, ".5f"), z=number(m.z, ".5f"), kind=_(m.kind)) for m in found)
            self.note.ok(ngettext("the family's member at E = {E} J: {which}", "the family's {n} members at E = {E} J: "
                                  "{which}", len(found)).format(n=len(found), E=number(sec.energy, ".5g"), which=which))

        p.task.start(work, _("the family's member"), done)

    # ------------------------------------------------------------------ manifolds
    def draw_manifolds(self) -> None:
        """The stable and unstable manifolds of the target orbit over the crossings (each branch MANIFOLD_LENGTH
        long, at most MANIFOLD_MAX_MAPS return maps), in the panel's task; an orbit that is not hyperbolic is
        refused next to the button.  A cancel draws what was grown."""
        from ..manifolds import invariant_manifolds
        from ..plotting.bifurcation import shown_homoclinic

        p, sec = self.panel, self.panel.section
        o = self.target()
        if o is None:
            self.note.error(_("find a periodic orbit first (“find periodic orbit”, then a click near it)"))
            return
        if o.kind != "hyperbolic":
            self.note.error(_("the period-{k} orbit at (φ, Γ₃) = ({phi}, {z}) is {kind}: only a hyperbolic orbit "
                              "(an ✕ on the chart) has stable and unstable manifolds").format(
                k=o.k, phi=number(o.phi, ".4f"), z=number(o.z, ".4f"), kind=_(o.kind)))
            return
        got: list[Any] = []

        def work(task: Any) -> None:
            m = invariant_manifolds(o, section=sec, length=MANIFOLD_LENGTH, max_maps=MANIFOLD_MAX_MAPS,
                                    max_points=MANIFOLD_MAX_POINTS, cancel=lambda: task.cancelled,
                                    progress=lambda f: task.progress(f, _("manifolds: {pct}%").format(
                                        pct=number(100 * f, ".0f"))))
            with p.busy:
                if sec is not p.section:
                    return
                if self.level is not sec:
                    self.members = []
                self.manifolds, self.level = m, sec
                got.append(m)
                p.redraw()
            if task.cancelled:
                self.note.info(_("draw manifolds cancelled: the branches grown so far are drawn"))

        def done() -> None:
            m = got[0] if got else None
            if m is not None:
                self.note.ok(say.manifolds_drawn(o.k, m.multipliers, len(m.homoclinic),
                                                 len(m.homoclinic) - len(shown_homoclinic(m)), m.truncated))

        self.note.info(_("growing the manifolds of the period-{k} orbit…").format(k=o.k))
        p.task.start(work, _("draw manifolds"), done)

    # ------------------------------------------------------------------ the chart
    def overlays(self) -> list[Any]:
        """The chart traces of the layers at the level shown: the manifolds and the family's members there."""
        out: list[Any] = []
        if self.level is not self.panel.section:  # a new level is being drawn: they belonged to the old one
            return out
        if self.manifolds is not None:
            from ..plotting.bifurcation import manifold_traces  # only once drawn: the tab's opening stays light

            out += manifold_traces(self.manifolds, orbit_marker=False)
        if self.members:
            from ..plotting.section import periodic_orbit_trace

            out.append(periodic_orbit_trace(self.members, name=_("member of the followed family")))
        return out

