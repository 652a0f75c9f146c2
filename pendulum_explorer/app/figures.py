"""Figures the panels need, taken from :mod:`pendulum_explorer.plotting` when those modules provide them, with
small built-in versions otherwise (so the dashboard works while the plotting layer grows).

Only plotting here: every number comes from the library (equilibria, poincare).
"""
from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from .common import PALETTE, log

STABILITY_COLOURS = {"elliptic-elliptic": "#0072B2", "saddle-centre": "#E69F00", "saddle-saddle": "#D55E00",
                     "focus-focus": "#CC79A7", "degenerate": "#000000"}
STABILITY_SYMBOLS = {"elliptic-elliptic": "circle", "saddle-centre": "diamond", "saddle-saddle": "x",
                     "focus-focus": "square", "degenerate": "cross"}


def _try(modname, fname):
    try:
        mod = __import__(f"pendulum_explorer.plotting.{modname}", fromlist=[fname])
        return getattr(mod, fname)
    except Exception:  # noqa: BLE001 - not there yet
        return None


# ------------------------------------------------------------------ section chart
def section_chart_figure(region, height=470, title=None):
    """The equal-area chart (phi, Gamma_3) with the inaccessible region shaded.

    Trace 0 is a heatmap covering the whole chart (clicks land on data, plotly.js#4654): 0 = accessible
    (white), 1 = inaccessible (grey).  Trace 1 is the boundary V_mu = E.
    """
    acc = np.asarray(region.accessible)
    z = np.where(acc, 0.0, 1.0)
    V = np.asarray(region.V)
    fig = go.Figure()
    fig.add_trace(go.Heatmap(x=np.round(region.phi, 5), y=np.round(region.z, 5), z=z,
                             customdata=np.round(V, 5), zmin=0, zmax=1, showscale=False,
                             colorscale=[[0, "#ffffff"], [1, "#c8c8c8"]], name="section",
                             hovertemplate="φ = %{x:.3f}<br>Γ₃ = %{y:.3f}<br>V_μ = %{customdata:.4g}<extra></extra>"))
    fig.add_trace(go.Scatter(x=np.asarray(region.boundary_phi), y=np.asarray(region.boundary_z), mode="lines",
                             line=dict(color="#555555", width=1.5), name="V_μ = E", hoverinfo="skip"))
    fig.update_layout(
        height=height, margin=dict(l=55, r=10, t=34, b=45), showlegend=False, dragmode=False,
        title=dict(text=title or "Poincaré section: click in the white region", x=0.01, font=dict(size=14)),
        xaxis=dict(title="φ = atan2(Γ₂, Γ₁)", range=[-np.pi, np.pi], tickvals=[-np.pi, -np.pi / 2, 0, np.pi / 2, np.pi],
                   ticktext=["−π", "−π/2", "0", "π/2", "π"], showgrid=False, zeroline=False, fixedrange=True),
        yaxis=dict(title="Γ₃ (hanging at Γ₃ = 1 for ρ ∥ e₃)", range=[-1, 1], showgrid=False, zeroline=False,
                   fixedrange=True),
        plot_bgcolor="#ffffff", hovermode="closest")
    return fig


def crossings_trace(phi, z, colour, name):
    return go.Scattergl(x=phi, y=z, mode="markers", marker=dict(size=3, color=colour), name=name,
                        hovertemplate=name + "<br>φ = %{x:.3f}, Γ₃ = %{y:.3f}<extra></extra>")


# ------------------------------------------------------------------ sphere of crossings
def _sphere_surface(opacity=0.15):
    u = np.linspace(0, np.pi, 25)
    v = np.linspace(0, 2 * np.pi, 49)
    x = np.outer(np.sin(u), np.cos(v))
    y = np.outer(np.sin(u), np.sin(v))
    zz = np.outer(np.cos(u), np.ones_like(v))
    return go.Surface(x=x, y=y, z=zz, showscale=False, opacity=opacity, colorscale=[[0, "#dddddd"], [1, "#dddddd"]],
                      hoverinfo="skip", name="S²")


def section_sphere_figure(launches, region=None, height=330):
    fig = go.Figure()
    fig.add_trace(_sphere_surface())
    if region is not None and np.isfinite(region.boundary_Gamma).any():
        B = region.boundary_Gamma
        fig.add_trace(go.Scatter3d(x=B[:, 0], y=B[:, 1], z=B[:, 2], mode="lines", line=dict(color="#555555", width=2),
                                   name="V_μ = E", hoverinfo="skip"))
    for L in launches:
        G = np.asarray(L.crossings)
        if len(G) == 0:
            continue
        fig.add_trace(go.Scatter3d(x=G[:, 0], y=G[:, 1], z=G[:, 2], mode="markers",
                                   marker=dict(size=1.6, color=L.colour), name=f"#{L.id}", hoverinfo="skip"))
    fig.update_layout(height=height, margin=dict(l=0, r=0, t=28, b=0), showlegend=False,
                      title=dict(text="the same crossings on the sphere (body frame)", x=0.01, font=dict(size=12)),
                      scene=dict(aspectmode="cube", xaxis=dict(range=[-1.05, 1.05], title="Γ₁"),
                                 yaxis=dict(range=[-1.05, 1.05], title="Γ₂"),
                                 zaxis=dict(range=[-1.05, 1.05], title="Γ₃")),
                      uirevision="sphere")
    return fig


# ------------------------------------------------------------------ energy-momentum diagram
def energy_momentum_figure(eq, marker=None, height=300, em_data=None):
    """(mu, E) of the relative equilibria, coloured by stability; ``marker`` = (mu, E) of the current level."""
    f = _try("diagrams", "energy_momentum_figure")
    if f is not None:
        try:
            fig = f(eq, marker=marker)
            fig.update_layout(height=height)
            return fig
        except Exception:  # noqa: BLE001
            log.exception("plotting.diagrams.energy_momentum_figure failed; using the built-in diagram")
    from ..equilibria import energy_momentum_data

    d = em_data if em_data is not None else energy_momentum_data(eq)
    fig = go.Figure()
    shown = set()
    for c in d["curves"]:
        mu = np.asarray(c["mu"], float)
        E = np.asarray(c["energy"], float)
        st = np.asarray(c["stability"])
        for cls, col in STABILITY_COLOURS.items():
            m = st == cls
            if not m.any():
                continue
            fig.add_trace(go.Scatter(x=np.where(m, mu, np.nan), y=np.where(m, E, np.nan), mode="lines",
                                     line=dict(color=col, width=2, dash="solid" if cls == "elliptic-elliptic" else "dot"),
                                     name=cls, legendgroup=cls, showlegend=cls not in shown,
                                     hovertemplate=f"{c['label']} ({cls})<br>μ = %{{x:.4g}}<br>E = %{{y:.4g}}<extra></extra>"))
            shown.add(cls)
    for p in d["points"]:
        cls = p["stability"]
        fig.add_trace(go.Scatter(x=[p["mu"]], y=[p["energy"]], mode="markers",
                                 marker=dict(size=8, color=STABILITY_COLOURS.get(cls, "#000"),
                                             symbol=STABILITY_SYMBOLS.get(cls, "circle")),
                                 name=p["label"], showlegend=False,
                                 hovertemplate=f"{p['label']} ({cls})<br>μ = %{{x:.4g}}<br>E = %{{y:.4g}}<extra></extra>"))
    if marker is not None:
        fig.add_trace(go.Scatter(x=[marker[0]], y=[marker[1]], mode="markers", name="current (μ, E)",
                                 marker=dict(size=13, color="rgba(0,0,0,0)", line=dict(color="#000000", width=2.5),
                                             symbol="circle-open")))
    mgr = d.get("mgrho", 1.0)
    fig.update_layout(height=height, margin=dict(l=50, r=10, t=30, b=40),
                      title=dict(text="energy–momentum diagram", x=0.01, font=dict(size=12)),
                      xaxis=dict(title="μ"), yaxis=dict(title="E", range=[-1.2 * mgr, 4.0 * mgr]),
                      legend=dict(font=dict(size=10), x=1, xanchor="right", y=1))
    return fig


# ------------------------------------------------------------------ equilibria sphere
VIEWS = {"3D": dict(eye=dict(x=1.5, y=1.5, z=1.0)), "top": dict(eye=dict(x=0, y=0, z=2.2), up=dict(x=0, y=1, z=0)),
         "bottom": dict(eye=dict(x=0, y=0, z=-2.2), up=dict(x=0, y=1, z=0))}


def equilibria_sphere_figure(eq, view="3D", families=None, selected=None, height=480):
    """Gamma of every (relative) equilibrium on the unit sphere (Fig. 1): families as curves coloured by
    stability, hanging / inverted / (38) points as markers."""
    f = _try("sphere", "equilibria_sphere_figure")
    if f is not None:
        try:
            fig = f(eq, view=view)
            if families is not None:
                for tr in fig.data:
                    name = str(getattr(tr, "legendgroup", None) or tr.name or "")
                    if any(name.startswith(fam) for fam in eq.labels) and not any(name.startswith(x) for x in families):
                        tr.visible = "legendonly"
            _mark_selected(fig, selected)
            fig.update_layout(height=height)
            return fig
        except Exception:  # noqa: BLE001
            log.exception("plotting.sphere.equilibria_sphere_figure failed; using the built-in figure")
    fig = go.Figure()
    fig.add_trace(_sphere_surface(0.12))
    shown = set()
    for fam in eq.curves(+1):
        if families is not None and fam.label not in families:
            continue
        G = np.asarray(fam.Gamma)
        st = np.asarray(fam.stability)
        for cls, col in STABILITY_COLOURS.items():
            m = st == cls
            if not m.any():
                continue
            Gm = np.where(m[:, None], G, np.nan)
            fig.add_trace(go.Scatter3d(
                x=Gm[:, 0], y=Gm[:, 1], z=Gm[:, 2], mode="lines",
                line=dict(color=col, width=6 if cls == "elliptic-elliptic" else 3), name=cls, legendgroup=cls,
                showlegend=cls not in shown, customdata=np.stack([fam.mu, fam.energy], -1),
                hovertemplate=f"{fam.label} ({cls})<br>Γ = (%{{x:.3f}}, %{{y:.3f}}, %{{z:.3f}})"
                              "<br>μ = %{customdata[0]:.4g}, E = %{customdata[1]:.4g}<extra></extra>"))
            shown.add(cls)
    for p in eq.isolated:
        cls = p.stability
        fig.add_trace(go.Scatter3d(x=[p.Gamma[0]], y=[p.Gamma[1]], z=[p.Gamma[2]], mode="markers+text",
                                   text=[p.family], textposition="top center",
                                   marker=dict(size=6, color=STABILITY_COLOURS.get(cls, "#000")),
                                   name=p.family, showlegend=False,
                                   hovertemplate=f"{p.family} ({cls})<br>μ = {p.mu:.4g}, E = {p.energy:.4g}<extra></extra>"))
    _mark_selected(fig, selected)
    fig.update_layout(height=height, margin=dict(l=0, r=0, t=30, b=0),
                      title=dict(text="equilibria: Γ on the sphere (body frame)", x=0.01, font=dict(size=13)),
                      scene=dict(aspectmode="cube", camera=VIEWS.get(view, VIEWS["3D"]),
                                 xaxis=dict(range=[-1.1, 1.1], title="Γ₁"), yaxis=dict(range=[-1.1, 1.1], title="Γ₂"),
                                 zaxis=dict(range=[-1.1, 1.1], title="Γ₃")),
                      legend=dict(font=dict(size=11), x=0, y=1))
    return fig


def _mark_selected(fig, selected):
    if selected is None:
        return
    G = np.asarray(selected.Gamma)
    fig.add_trace(go.Scatter3d(x=[G[0]], y=[G[1]], z=[G[2]], mode="markers", name="selected",
                               marker=dict(size=10, color="rgba(0,0,0,0)", line=dict(color="#000", width=3),
                                           symbol="circle-open"), hoverinfo="skip"))


__all__ = ["section_chart_figure", "section_sphere_figure", "energy_momentum_figure", "equilibria_sphere_figure",
           "crossings_trace", "PALETTE"]
