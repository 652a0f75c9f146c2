"""The energy–momentum diagram: every relative equilibrium in the (mu, E) plane, coloured by stability.

Pure function: an :class:`~pendulum_explorer.equilibria.EquilibriumSet` in, a plotly ``go.Figure`` out.

Trace layout: one ``go.Scatter`` (mode "lines") per maximal run of equal stability class of each family and
branch, ``meta = {"family", "branch", "stability"}``; then markers for hanging, inverted and the (38) points
(``meta = {"family"}``); then, if given, the current (mu, E) marker (``name = "current"``).

Labels (``labels=True``): ``layout.annotations`` name each family at the same point and in the same colour as
the sphere figure (:func:`~.sphere.family_label_index`, :func:`~.sphere.family_colours`), on its branch of
positive spin.
"""
from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from ..bodies import Pendulum
from ..equilibria import STABILITY_CLASSES, EquilibriumSet, energy_momentum_data, equilibria
from .._words import _
from .colours import (BLACK, BLUE, BLUISH_GREEN, DARK_GREY, LABEL_BOX, ORANGE, REDDISH_PURPLE, SKY_BLUE, VERMILLION,
                      label_colour)
from .describe import describe_energy_momentum, with_description
from .labels import STABILITY_DASH, point_label, stability_name  # noqa: F401  (re-exported)
from .sphere import (default_e_max, family_colours, family_label_index, family_name,
                     stack_labels)

STABILITY_COLOURS = {  # Okabe-Ito and a dark grey: >= 10 CIEDE2000 apart under simulated CVD (tests/test_palette.py)
    "elliptic-elliptic": BLUISH_GREEN,
    "saddle-centre": ORANGE,
    "saddle-saddle": VERMILLION,
    "focus-focus": REDDISH_PURPLE,
    "degenerate": DARK_GREY,
    "": DARK_GREY,
}
#: one line style per stability class (not by colour alone, WCAG 1.4.1)
def energy_momentum_figure(eq: EquilibriumSet | Pendulum, marker: tuple[float, float] | None = None,
                           e_max: float | None = None, height: int = 460, labels: bool = True,
                           label_px: int = 13) -> go.Figure:
    """Energy–momentum diagram of the relative equilibria.

    Parameters
    ----------
    eq : EquilibriumSet or Pendulum
    marker : (mu, E), optional
        A current level to mark (e.g. the one of a Poincaré section).
    e_max : float, optional
        Upper end of the energy axis; default ``3 m g |rho|`` (the families continue to higher energies).
    height : int
    labels : bool
        Name the families (L1 … L4) on their curves, in the colours of the sphere figure's labels.
    label_px : int
        The family labels' font size [px] (larger in the dashboard's presenter view).

    Returns
    -------
    plotly.graph_objects.Figure
    """
    if not isinstance(eq, EquilibriumSet):
        eq = equilibria(eq)
    d = energy_momentum_data(eq)
    mgr = d.mgrho
    fig = go.Figure()
    shown: set[str] = set()
    for c in d.curves:
        st = c.stability
        n = len(st)
        start = 0
        for i in range(1, n + 1):
            if i == n or st[i] != st[start]:
                cls = st[start]
                sl = slice(start, min(i + 1, n))  # share the boundary vertex
                fig.add_trace(go.Scatter(
                    x=c.mu[sl], y=c.energy[sl], mode="lines",
                    line=dict(color=STABILITY_COLOURS[cls], width=3 if cls == "elliptic-elliptic" else 2,
                              dash=STABILITY_DASH[cls]),
                    name=stability_name(cls) or _("n/a"), legendgroup=cls, showlegend=cls not in shown,
                    hovertemplate=_("{family} (branch {branch})").format(family=family_name(c.label),
                                                                         branch=f"{c.branch:+d}")
                                  + "<br>μ = %{x:.5g} kg m²/s<br>E = %{y:.5g} J<br>" + stability_name(cls)
                                  + "<extra></extra>",
                    meta=dict(family=c.label, branch=c.branch, stability=cls)))
                shown.add(cls)
                start = i
    sym = {"hanging": ("circle", BLUE), "inverted": ("circle", VERMILLION), "eq38": ("diamond", BLACK)}
    for name in ("hanging", "inverted", "eq38"):
        pts = [p for p in d.points if p.label == name]
        s, col = sym[name]
        fig.add_trace(go.Scatter(
            x=[p.mu for p in pts], y=[p.energy for p in pts], mode="markers", name=point_label(name),
            marker=dict(symbol=s, color=col, size=10, line=dict(color="white", width=1)),
            hovertemplate=point_label(name) + "<br>μ = %{x:.5g} kg m²/s<br>E = %{y:.5g} J<extra></extra>",
            meta=dict(family=name)))
    if marker is not None:
        mu, E = marker
        fig.add_trace(go.Scatter(x=[mu], y=[E], mode="markers", name=_("current"),
                                 marker=dict(symbol="x", size=13, color=SKY_BLUE, line=dict(width=2)),
                                 hovertemplate=_("current") + "<br>μ = %{x:.5g} kg m²/s<br>E = %{y:.5g} J"
                                 "<extra></extra>"))
    e_max = 3.0 * mgr if e_max is None else e_max
    e_min = -1.15 * mgr
    if marker is not None and np.isfinite(marker[1]):  # the current level stays in view
        e_max = max(e_max, marker[1] + 0.1 * (marker[1] - e_min))
    # mu range: what the families reach below e_max
    mus = [np.abs(c.mu[c.energy <= e_max]) for c in d.curves]
    mu_max = max([m.max() for m in mus if len(m)] + [1e-3]) * 1.05
    if marker is not None and np.isfinite(marker[0]):
        mu_max = max(mu_max, 1.1 * abs(marker[0]))
    annotations = []
    if labels:
        cols = family_colours(eq)
        for f in eq.curves(+1):
            k = family_label_index(f, default_e_max(eq))
            annotations.append(dict(x=float(f.mu[k]), y=float(f.energy[k]), text=f"<b>{family_name(f.label)}</b>",
                                    showarrow=True,
                                    arrowhead=0, arrowcolor=cols[f.label], ax=round(22 * label_px / 13),
                                    ay=round(-20 * label_px / 13),
                                    font=dict(color=label_colour(cols[f.label]), size=label_px), bgcolor=LABEL_BOX,
                                    bordercolor=cols[f.label], borderwidth=1.5, borderpad=2))
        # a label is ~70 x 20 px on a plot of ~300 x 250 px
        stack_labels(annotations, (0.25 * 2.0 * mu_max, 0.08 * (e_max - e_min)))
    fig.update_layout(height=height, margin=dict(l=60, r=10, t=62, b=50), annotations=annotations,
                      title=dict(text=_("Energy–momentum diagram<br>of the relative equilibria"), font=dict(size=13)),
                      xaxis=dict(title=_("μ [kg m²/s]  (vertical angular momentum)"), range=[-mu_max, mu_max]),
                      yaxis=dict(title="E [J]", range=[e_min, e_max]),
                      legend=dict(font=dict(size=12), tracegroupgap=0))
    return with_description(fig, describe_energy_momentum(eq, marker))


__all__ = ["energy_momentum_figure", "STABILITY_COLOURS", "STABILITY_DASH", "STABILITY_CLASSES"]
