"""Text alternatives of the figures: one or two sentences saying what each figure shows (WCAG 1.1.1).

Pure functions of the objects a figure is drawn from, so the text changes with the figure: the figure functions
put it into ``layout.meta["description"]`` (:func:`with_description`), and the dashboard gives it to its
figures' ``aria-label``.  Numbers are rounded as the page shows them (4 significant digits, whole percentages).
The sentences are in the page's language (:mod:`pendulum_explorer._words`; English outside the dashboard).
"""
from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import plotly.graph_objects as go

from .._words import DECIMAL_COMMA, N_, _, language, ngettext, number

if TYPE_CHECKING:  # annotations only: the body preview's text needs no section or equilibria module
    from ..equilibria import EquilibriumSet, Family
    from ..poincare import AccessibleRegion, ChaosMap, PoincareSection
    from ..bodies import Body
    from ..trajectory import Trajectory


def _g(x: float) -> str:
    """A number as the figures print it (4 significant digits, a true minus sign, the page's decimal sign)."""
    return number(x, ".4g").replace("-", "−")


def _pct(x: float) -> str:
    return number(100.0 * x, ".0f") + " %"


def _trajectories(n: int) -> str:
    return ngettext("{n} trajectory", "{n} trajectories", n).format(n=n)


def _crossings(n: int) -> str:
    return ngettext("{n} crossing", "{n} crossings", n).format(n=n)


def _families_count(n: int) -> str:
    return ngettext("{n} family", "{n} families", n).format(n=n)


#: the line styles of the stability classes in words (:data:`~.labels.STABILITY_DASH`)
DASH_WORDS = {"solid": N_("solid"), "dash": N_("dash"), "dot": N_("dot"), "dashdot": N_("dash-dot"),
              "longdash": N_("long dash"), "longdashdot": N_("long dash-dot")}


def crossing_counts(crossings: Any) -> list[int]:
    """The number of crossings of each trajectory drawn (what :func:`~.section.section_chart_figure` accepts:
    Crossings, BatchCrossings, an (n, 3) array of Gamma or a list of those); empty trajectories are not drawn."""
    from .labels import _as_list

    return [len(G) for G in _as_list(crossings) if len(G)]


def describe_section(section: PoincareSection, crossings: Any = None, region: AccessibleRegion | None = None,
                     chaos: ChaosMap | None = None, *, counts: Sequence[int] | None = None) -> str:
    """What the section chart shows, e.g. "Poincaré section at E = 2.03 J, μ = 0.7 kg m²/s: 3 trajectories,
    1500 crossings; 62 % of the chart accessible; chaos map shown, 40 % chaotic."

    The accessible share is :attr:`AccessibleRegion.area_fraction` (the chart is equal-area: share of the chart =
    share of the sphere), the chaotic share :meth:`ChaosMap.chaotic_fraction` (of the map's accessible cells).
    ``counts`` (the number of crossings of each trajectory, e.g. the dashboard's launches as their points stream in)
    replaces ``crossings``; trajectories with no crossing are not counted.
    """
    reg = region if region is not None else section.accessible_region()
    counts = [int(n) for n in counts if n] if counts is not None else crossing_counts(crossings)
    text = _("Poincaré section at E = {E} J, μ = {mu} kg m²/s: {trajectories}, {crossings}; {share} of the chart "
             "accessible").format(E=_g(section.energy), mu=_g(section.mu), trajectories=_trajectories(len(counts)),
                                  crossings=_crossings(sum(counts)), share=_pct(reg.area_fraction))
    if chaos is not None:
        what = "MEGNO" if chaos.indicator == "megno" else "Lyapunov"
        text += _("; {what} chaos map shown, {share} chaotic").format(what=what, share=_pct(chaos.chaotic_fraction()))
    return text + "."


def _family_stability(f: Family) -> str:
    st = f.stable
    if st.all():
        return _("linearly stable")
    if not st.any():
        return _("unstable")
    return _("stable on {share} of it").format(share=_pct(float(st.mean())))


def _families(eq: EquilibriumSet, families: Collection[str] | None) -> list[Family]:
    return sorted((f for f in eq.curves(+1) if families is None or f.label in families or f.kind in families),
                  key=lambda f: f.label)


def _point_words(eq: EquilibriumSet) -> str:
    from .labels import point_label

    out = []
    for name in ("hanging", "inverted", "eq38"):
        pts = eq.point(name)
        if pts:
            stable = _("stable") if pts[0].stability == "elliptic-elliptic" else _("unstable")
            out.append(f"{point_label(name)} ({stable})")
    return ", ".join(out)


def describe_equilibria(eq: EquilibriumSet, families: Collection[str] | None = None) -> str:
    """What the equilibria sphere shows: its families (named as on the figure) and their linear stability, and the
    isolated points, e.g. "Relative equilibria on the sphere: 4 families: L1 unstable, L2 stable on 35 % of it, …;
    points: hanging (stable), inverted (unstable)."  A family's stability is the share of its samples that are
    elliptic–elliptic (``Family.stable``)."""
    from .labels import family_name

    fams = _families(eq, families)
    words = "; ".join(f"{family_name(f.label)} {_family_stability(f)}" for f in fams)
    return _("Relative equilibria on the sphere: {families}{words}; points: {points}. Solid lines stable, dashed "
             "unstable.").format(families=_families_count(len(fams)), words=": " + words if fams else "",
                                 points=_point_words(eq))


def describe_energy_momentum(eq: EquilibriumSet, marker: tuple[float, float] | None = None) -> str:
    """What the energy–momentum diagram shows: the families in the (μ, E) plane, the stability classes drawn (one
    line style each), and the current level if marked."""
    from .labels import STABILITY_DASH, family_name, stability_name

    fams = _families(eq, None)
    classes = sorted({str(s) for f in eq.families for s in f.stability if s}, key=list(STABILITY_DASH).index)
    style = ", ".join(f"{stability_name(c)} {_(DASH_WORDS[STABILITY_DASH[c]])}" for c in classes)
    text = _("Energy–momentum diagram: {families} of relative equilibria ({names}) in the (μ, E) plane; stability "
             "classes: {styles}").format(families=_families_count(len(fams)),
                                         names=", ".join(family_name(f.label) for f in fams), styles=style)
    if marker is not None:
        text += _("; current level μ = {mu} kg m²/s, E = {E} J").format(mu=_g(marker[0]), E=_g(marker[1]))
    return text + "."


def describe_body(body: Body) -> str:
    """What the body preview shows: the body's name, mass, principal moments and where its centre of mass is."""
    p = body.pendulum
    J = np.asarray(p.principal_moments, float)
    return _("Body “{name}”: mass {m} kg, principal moments about the pivot J1 = {J1}, J2 = {J2}, J3 = {J3} "
             "kg m²; centre of mass {d} m from the pivot, shown hanging below it with the principal axes and gravity."
             ).format(name=body.name, m=_g(p.m), J1=_g(J[0]), J2=_g(J[1]), J3=_g(J[2]),
                      d=_g(float(np.linalg.norm(p.rho))))


def describe_motion(traj: Trajectory, stride: int = 1) -> str:
    """What the motion plots show: the time span, the range of each body angular velocity component and the
    largest conservation errors (of the samples drawn, every ``stride``-th)."""
    sl = slice(None, None, int(stride))
    t = np.asarray(traj.t, float)[sl]
    W = np.asarray(traj.omega, float)[sl]
    E = np.asarray(traj.energy, float)[sl]
    mu = np.asarray(traj.mu, float)[sl]
    rng = ", ".join(_("ω{i} from {lo} to {hi}").format(i="₁₂₃"[i], lo=_g(W[:, i].min()), hi=_g(W[:, i].max()))
                    for i in range(3))
    from ..playback import tilt_degrees  # (the model layer's; imported with the motion plots)

    tilt = tilt_degrees(traj)[sl] if traj.pendulum.mgrho_norm > 0.0 else np.zeros(len(t))
    tilt_text = _("; tilt from the vertical from {lo}° to {hi}°").format(lo=_g(tilt.min()), hi=_g(tilt.max()))
    span = _g(float(t[-1] - t[0]))
    c = float(traj.stats.get("damping", 0.0))
    if c > 0.0:
        return _("Damped motion (c = {c} N m s, outside the paper's model) over {T} s ({n} samples): {ranges} rad/s; "
                 "energy from {E0} J to {E1} J{tilt}.").format(c=_g(c), T=span, n=len(t), ranges=rng, E0=_g(E[0]),
                                                             E1=_g(E[-1]), tilt=tilt_text)
    return _("Motion over {T} s ({n} samples): {ranges} rad/s; largest conservation errors |ΔE| = {dE} J, |Δμ| = "
             "{dmu} kg m²/s{tilt}.").format(T=span, n=len(t), ranges=rng, dE=number(np.abs(E - E[0]).max(), ".2g"),
                                            dmu=number(np.abs(mu - mu[0]).max(), ".2g"), tilt=tilt_text)


def describe_section_sphere(section: PoincareSection, crossings: Any = None) -> str:
    """What the section on the sphere shows (the same counts as :func:`describe_section`)."""
    counts = crossing_counts(crossings)
    return _("Poincaré section on the sphere at E = {E} J, μ = {mu} kg m²/s: {trajectories}, {crossings}; the "
             "inaccessible region shaded grey.").format(E=_g(section.energy), mu=_g(section.mu),
                                                        trajectories=_trajectories(len(counts)),
                                                        crossings=_crossings(sum(counts)))


#: plotly's decimal and thousands separators (``layout.separators``) where the decimal sign is a comma
COMMA_SEPARATORS = ", "


def in_language(fig: go.Figure) -> go.Figure:
    """``fig`` with the numbers plotly.js writes (tick labels, hover values) in the page's decimal sign: a decimal
    comma in German and Spanish (``layout.separators``; English figures unchanged); returns ``fig``."""
    if language() in DECIMAL_COMMA:
        fig.update_layout(separators=COMMA_SEPARATORS)
    return fig


def with_description(fig: go.Figure, text: str) -> go.Figure:
    """``fig`` with ``text`` in ``layout.meta["description"]`` (other meta keys kept) and its numbers in the page's
    decimal sign (:func:`in_language`); returns ``fig``."""
    meta = fig.layout.meta
    meta = dict(meta) if isinstance(meta, dict) else {}
    meta["description"] = text
    fig.update_layout(meta=meta)
    return in_language(fig)


def description(fig: go.Figure) -> str:
    """The text alternative a figure carries (``layout.meta["description"]``), or ``""``."""
    meta = fig.layout.meta
    return str(meta.get("description", "")) if isinstance(meta, dict) else ""


__all__ = ["describe_section", "describe_section_sphere", "describe_equilibria", "describe_energy_momentum",
           "describe_body", "describe_motion", "crossing_counts", "with_description", "in_language",
           "description"]
