"""Bifurcation diagrams of periodic-orbit families (issue 21): E (or mu) against the orbit's Gamma_3 or phi,
coloured by stability, with the bifurcations marked; and the invariant manifolds over a section chart."""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import plotly.graph_objects as go

from .._words import N_, _, number
from .colours import BLACK, BLUE, BLUISH_GREEN, ORANGE, REDDISH_PURPLE, VERMILLION
from .describe import in_language

#: the colours of a family's members by kind (colour-blind safe), and the markers of the bifurcations
KIND_COLOURS = {"elliptic": BLUE, "hyperbolic": VERMILLION, "parabolic": BLACK}
BIFURCATION_MARKERS = {"fold": ("diamond", BLACK), "tangent": ("square-open", BLACK),
                       "period-doubling": ("x", REDDISH_PURPLE)}
MANIFOLD_COLOURS = {"unstable": VERMILLION, "stable": BLUE}
#: the bifurcations' names (the catalog's words for the family notes) and the manifolds' legend and hover words
BIFURCATION_NAMES = {"fold": N_("fold"), "tangent": N_("tangent"), "period-doubling": N_("period-doubling")}
MANIFOLD_NAMES = {"stable": N_("stable manifold of the {name}"), "unstable": N_("unstable manifold of the {name}")}
MANIFOLD_HOVER = {"stable": N_("stable manifold"), "unstable": N_("unstable manifold")}


def _runs(kinds: Sequence[str]) -> list[tuple[int, int, str]]:
    """Maximal runs [i, j] of equal kind (consecutive runs share their end point, so the curve is unbroken)."""
    out, i = [], 0
    for j in range(1, len(kinds) + 1):
        if j == len(kinds) or kinds[j] != kinds[i]:
            out.append((i, min(j, len(kinds) - 1), kinds[i]))
            i = j
    return out


def bifurcation_figure(families: Any, *, y: str = "z", title: str | None = None, mark: float | None = None,
                       height: int | None = None) -> go.Figure:
    """The bifurcation diagram of one :class:`~pendulum_explorer.orbit_families.OrbitFamily` or a list of them.

    Parameters
    ----------
    families : OrbitFamily or sequence of OrbitFamily (all continued in the same parameter)
    y : {"z", "phi"}: the member's chart coordinate on the vertical axis (z = Gamma_3)
    title : str, optional
    mark : float, optional: a dotted vertical line at this parameter value (the level shown beside the diagram)
    height : int, optional: the figure's height [px]

    Returns
    -------
    plotly Figure: the parameter (E or mu) across, one line per run of equal stability (elliptic blue,
    hyperbolic vermillion), the bifurcations as markers (fold: diamond, tangent: open square, period doubling:
    x) with their energies in the hover text.
    """
    if y not in ("z", "phi"):
        raise ValueError(f"y must be 'z' or 'phi'; got {y!r}")
    fams = list(families) if isinstance(families, (list, tuple)) else [families]
    if not fams:
        raise ValueError("families must hold at least one OrbitFamily")
    param = fams[0].parameter
    fig = go.Figure()
    shown: set[str] = set()
    from .labels import kind_name

    for n, fam in enumerate(fams):
        x = fam.E if param == "E" else fam.mu
        v = fam.z if y == "z" else fam.phi
        for i, j, kind in _runs(fam.kinds):
            fig.add_trace(go.Scatter(
                x=x[i:j + 1], y=v[i:j + 1], mode="lines", line=dict(color=KIND_COLOURS.get(kind, BLACK), width=2),
                name=kind_name(kind), legendgroup=kind, showlegend=kind not in shown,
                hovertemplate=_("family {n}, {kind}").format(n=n + 1, kind=kind_name(kind))
                + f"<br>{param} = %{{x:.6g}}<br>{y} = %{{y:.6g}}<extra></extra>"))
            shown.add(kind)
        for b in fam.bifurcations:
            sym, col = BIFURCATION_MARKERS[b.kind]
            what = _(BIFURCATION_NAMES[b.kind])
            fig.add_trace(go.Scatter(
                x=[b.E if param == "E" else b.mu], y=[b.orbit.z if y == "z" else b.orbit.phi], mode="markers",
                marker=dict(symbol=sym, size=11, color=col, line=dict(width=2, color=col)), name=what,
                legendgroup=b.kind, showlegend=b.kind not in shown,
                hovertemplate=f"{what}<br>E = {number(b.E, '.10g')} J<br>mu = {number(b.mu, '.6g')}<extra></extra>"))
            shown.add(b.kind)
    unit = "E [J]" if param == "E" else "μ [kg m²/s]"
    fig.update_layout(title=title or _("Periodic-orbit families (k = {k})").format(k=fams[0].orbits[0].k),
                      xaxis_title=unit, yaxis_title=_("Γ₃ of the orbit") if y == "z" else _("φ of the orbit"),
                      template="plotly_white", legend=dict(itemsizing="constant"))
    if mark is not None:
        fig.add_vline(x=float(mark), line=dict(color=BLACK, width=1, dash="dot"))
    if height is not None:
        fig.update_layout(height=int(height), margin=dict(l=60, r=20, t=40, b=40))
    return in_language(fig)


def wrapped_polyline(P: Any, z_max: float = 1.0) -> np.ndarray:
    """A chart polyline (n, 2) with phi unwrapped (as :class:`~pendulum_explorer.manifolds.Manifolds` holds it)
    taken into (-pi, pi], a NaN row (a gap for plotly) where it crosses phi = +-pi; points with |Gamma_3| > z_max
    become gaps (the polar caps, where phi is singular: a curve circling a pole at a tiny distance would be drawn
    as a line along the chart's top or bottom edge)."""
    P = np.asarray(P, dtype=float).reshape(-1, 2)
    if len(P) == 0:
        return P
    phi = np.remainder(P[:, 0] + np.pi, 2 * np.pi) - np.pi
    out = np.column_stack([phi, P[:, 1]])
    out[np.abs(P[:, 1]) > z_max] = np.nan
    jump = np.nonzero(np.abs(np.diff(phi)) > np.pi)[0]
    return np.insert(out, jump + 1, np.nan, axis=0) if len(jump) else out


def shown_homoclinic(manifolds: Any, z_max: float = 0.99) -> np.ndarray:
    """The homoclinic points a chart shows: those with |Gamma_3| <= z_max (in the polar caps phi is singular and
    the chart's lines along the edge would hide them; 2 of the 10 points of the hyperbolic orbit (pi/2, 0.6251)'s
    branches of length 2 at E = 8.83 lie at |Gamma_3| > 0.99)."""
    h = np.asarray(manifolds.homoclinic, dtype=float).reshape(-1, 2)
    return h[np.abs(h[:, 1]) <= z_max]


def manifold_traces(manifolds: Any, *, label: str | None = None, orbit_marker: bool = True,
                    z_max: float = 0.99) -> list[go.Scatter]:
    """Chart traces (phi in (-pi, pi], Gamma_3) of :func:`~pendulum_explorer.manifolds.invariant_manifolds`: one
    line trace per manifold, its two branches joined by a gap ("unstable manifold of the period-k orbit"
    vermillion, "stable manifold of ..." blue; gaps in the polar caps |Gamma_3| > z_max, see
    :func:`wrapped_polyline`), the homoclinic points (green open circles) and, with ``orbit_marker``, the orbit
    (orange cross); to add over a section figure."""
    k = manifolds.orbit.k
    name = label or _("period-{k} orbit").format(k=k)
    out = []
    for which in ("stable", "unstable"):
        parts = [wrapped_polyline(br, z_max) for br in getattr(manifolds, which)]
        if not parts:
            continue
        xy = np.vstack([np.vstack([p, [[np.nan, np.nan]]]) for p in parts])[:-1]
        out.append(go.Scatter(x=xy[:, 0], y=xy[:, 1], mode="lines", line=dict(color=MANIFOLD_COLOURS[which], width=1.5),
                              name=_(MANIFOLD_NAMES[which]).format(name=name), legendgroup=which,
                              connectgaps=False, hovertemplate=_(MANIFOLD_HOVER[which])
                              + "<br>φ = %{x:.4f}, Γ₃ = %{y:.4f}<extra></extra>"))
    h = shown_homoclinic(manifolds, z_max)
    if len(h):
        out.append(go.Scatter(x=h[:, 0], y=h[:, 1], mode="markers", name=_("homoclinic points"),
                              marker=dict(color=BLUISH_GREEN, size=6, symbol="circle-open")))
    if orbit_marker:
        out.append(go.Scatter(x=[manifolds.orbit.phi], y=[manifolds.orbit.z], mode="markers", name=name,
                              marker=dict(color=ORANGE, size=10, symbol="cross")))
    return out


def manifolds_figure(manifolds: Any, *, title: str | None = None) -> go.Figure:
    """The stable and unstable manifolds alone on the chart (phi, Gamma_3)."""
    fig = go.Figure(manifold_traces(manifolds))
    fig.update_layout(title=title or _("Invariant manifolds, E = {E} J").format(E=number(manifolds.orbit.E, ".6g")),
                      xaxis_title="φ", yaxis_title="Γ₃", template="plotly_white")
    return in_language(fig)
