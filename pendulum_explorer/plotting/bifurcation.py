"""Bifurcation diagrams of periodic-orbit families (issue 21): E (or mu) against the orbit's Gamma_3 or phi,
coloured by stability, with the bifurcations marked; and the invariant manifolds over a section chart."""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import plotly.graph_objects as go

from .colours import BLACK, BLUE, BLUISH_GREEN, ORANGE, REDDISH_PURPLE, VERMILLION

#: the colours of a family's members by kind (colour-blind safe), and the markers of the bifurcations
KIND_COLOURS = {"elliptic": BLUE, "hyperbolic": VERMILLION, "parabolic": BLACK}
BIFURCATION_MARKERS = {"fold": ("diamond", BLACK), "tangent": ("square-open", BLACK),
                       "period-doubling": ("x", REDDISH_PURPLE)}
MANIFOLD_COLOURS = {"unstable": VERMILLION, "stable": BLUE}


def _runs(kinds: Sequence[str]) -> list[tuple[int, int, str]]:
    """Maximal runs [i, j] of equal kind (consecutive runs share their end point, so the curve is unbroken)."""
    out, i = [], 0
    for j in range(1, len(kinds) + 1):
        if j == len(kinds) or kinds[j] != kinds[i]:
            out.append((i, min(j, len(kinds) - 1), kinds[i]))
            i = j
    return out


def bifurcation_figure(families: Any, *, y: str = "z", title: str | None = None) -> go.Figure:
    """The bifurcation diagram of one :class:`~pendulum_explorer.orbit_families.OrbitFamily` or a list of them.

    Parameters
    ----------
    families : OrbitFamily or sequence of OrbitFamily (all continued in the same parameter)
    y : {"z", "phi"}: the member's chart coordinate on the vertical axis (z = Gamma_3)
    title : str, optional

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
    for n, fam in enumerate(fams):
        x = fam.E if param == "E" else fam.mu
        v = fam.z if y == "z" else fam.phi
        for i, j, kind in _runs(fam.kinds):
            fig.add_trace(go.Scatter(
                x=x[i:j + 1], y=v[i:j + 1], mode="lines", line=dict(color=KIND_COLOURS.get(kind, BLACK), width=2),
                name=kind, legendgroup=kind, showlegend=kind not in shown,
                hovertemplate=f"family {n + 1}, {kind}<br>{param} = %{{x:.6g}}<br>{y} = %{{y:.6g}}<extra></extra>"))
            shown.add(kind)
        for b in fam.bifurcations:
            sym, col = BIFURCATION_MARKERS[b.kind]
            fig.add_trace(go.Scatter(
                x=[b.E if param == "E" else b.mu], y=[b.orbit.z if y == "z" else b.orbit.phi], mode="markers",
                marker=dict(symbol=sym, size=11, color=col, line=dict(width=2, color=col)), name=b.kind,
                legendgroup=b.kind, showlegend=b.kind not in shown,
                hovertemplate=f"{b.kind}<br>E = {b.E:.10g} J<br>mu = {b.mu:.6g}<extra></extra>"))
            shown.add(b.kind)
    unit = "E [J]" if param == "E" else "μ [kg m²/s]"
    fig.update_layout(title=title or f"Periodic-orbit families (k = {fams[0].orbits[0].k})",
                      xaxis_title=unit, yaxis_title="Γ₃ of the orbit" if y == "z" else "φ of the orbit",
                      template="plotly_white", legend=dict(itemsizing="constant"))
    return fig


def manifold_traces(manifolds: Any, *, label: str | None = None) -> list[go.Scatter]:
    """Chart traces (phi, z) of the stable and unstable branches of
    :func:`~pendulum_explorer.manifolds.invariant_manifolds` (stable blue, unstable vermillion, homoclinic
    points green), to add over a section figure."""
    k = manifolds.orbit.k
    name = label or f"period-{k} orbit"
    out = []
    for which in ("unstable", "stable"):
        first = True
        for br in getattr(manifolds, which):
            out.append(go.Scatter(x=br[:, 0], y=br[:, 1], mode="lines",
                                  line=dict(color=MANIFOLD_COLOURS[which], width=1.5),
                                  name=f"{which} manifold of the {name}", legendgroup=which, showlegend=first))
            first = False
    h = np.asarray(manifolds.homoclinic)
    if len(h):
        out.append(go.Scatter(x=h[:, 0], y=h[:, 1], mode="markers", name="homoclinic points",
                              marker=dict(color=BLUISH_GREEN, size=6, symbol="circle-open")))
    out.append(go.Scatter(x=[manifolds.orbit.phi], y=[manifolds.orbit.z], mode="markers", name=name,
                          marker=dict(color=ORANGE, size=10, symbol="cross")))
    return out


def manifolds_figure(manifolds: Any, *, title: str | None = None) -> go.Figure:
    """The stable and unstable manifolds alone on the chart (phi, Gamma_3)."""
    fig = go.Figure(manifold_traces(manifolds))
    fig.update_layout(title=title or f"Invariant manifolds, E = {manifolds.orbit.E:.6g} J",
                      xaxis_title="φ", yaxis_title="Γ₃", template="plotly_white")
    return fig
