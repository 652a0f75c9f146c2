"""Plotly figures of Poincaré sections (paper Fig. 2): on the equal-area chart and on the sphere.

Pure functions: model objects in, ``plotly.graph_objects.Figure`` out.

Chart figure layout (the dashboard relies on it): trace 0 is a heatmap covering the whole chart
``phi in [-pi, pi]`` x ``Gamma_3 in [-1, 1]`` (plotly only fires click events on data, so every point of
the chart is clickable); its ``z`` is 1 where the point is inaccessible (V_mu > E, shaded) and 0 where it
is on the section (transparent); ``customdata`` holds V_mu.  The y axis is reversed so that the hanging
direction Gamma = +e3 (e3 points down) is at the bottom and the inverted one at the top, as in the paper.
"""
from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from ..poincare import BatchCrossings, Crossings, PoincareSection, chart_from_sphere

PALETTE = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b", "#e377c2",
           "#7f7f7f", "#bcbd22")
SHADE = "rgba(120,120,120,0.55)"


def _as_list(crossings):
    if crossings is None:
        return []
    if isinstance(crossings, Crossings):
        return [crossings]
    if isinstance(crossings, BatchCrossings):
        return list(crossings)
    return list(crossings)


def _colour(k, colours):
    c = colours or PALETTE
    return c[k % len(c)]


def _pole_traces_chart():
    return [
        go.Scatter(x=[-np.pi, np.pi], y=[1.0, 1.0], mode="lines", line=dict(color="royalblue", width=4),
                   name="+e3 (hanging pole)", hoverinfo="name", showlegend=True),
        go.Scatter(x=[-np.pi, np.pi], y=[-1.0, -1.0], mode="lines", line=dict(color="crimson", width=4),
                   name="-e3 (inverted pole)", hoverinfo="name", showlegend=True),
    ]


def section_chart_figure(section: PoincareSection, crossings=None, *, region=None, names=None, colours=None,
                         marker_size=2.5, title=None, show_equilibria=True, webgl=False, height=480):
    """The section on the equal-area chart (azimuth phi about e3 vs Gamma_3 = cos theta).

    Parameters
    ----------
    section : PoincareSection
    crossings : Crossings, BatchCrossings or a list of Crossings, optional; one colour per trajectory.
    region : AccessibleRegion, optional (default ``section.accessible_region()``, cached).
    names : list of str, optional (legend names of the trajectories).
    webgl : bool
        Use ``Scattergl`` for the points (faster for > 10^4 points in a browser).
    """
    reg = region if region is not None else section.accessible_region()
    shade = np.where(reg.accessible, 0.0, 1.0)
    fig = go.Figure()
    fig.add_trace(go.Heatmap(
        x=reg.phi, y=reg.z, z=shade, customdata=reg.V, zmin=0.0, zmax=1.0,
        colorscale=[[0.0, "rgba(255,255,255,0)"], [1.0, SHADE]], showscale=False, name="V_mu",
        hovertemplate="phi = %{x:.3f}<br>Gamma3 = %{y:.3f}<br>V_mu = %{customdata:.4g}<extra></extra>"))
    if reg.boundary_phi.size:
        fig.add_trace(go.Scatter(x=reg.boundary_phi, y=reg.boundary_z, mode="lines",
                                 line=dict(color="black", width=1), name="V_mu = E", hoverinfo="skip"))
    Sc = go.Scattergl if webgl else go.Scatter
    for k, c in enumerate(_as_list(crossings)):
        if c.n_found == 0:
            continue
        phi, z = chart_from_sphere(c.Gamma)
        nm = names[k] if names is not None and k < len(names) else f"trajectory {k + 1} ({c.n_found})"
        fig.add_trace(Sc(x=phi, y=z, mode="markers", name=nm,
                         marker=dict(size=marker_size, color=_colour(k, colours)),
                         hovertemplate="phi = %{x:.4f}<br>Gamma3 = %{y:.4f}<extra>" + nm + "</extra>"))
    for tr in _pole_traces_chart():
        fig.add_trace(tr)
    if show_equilibria:
        eqs = section.relative_equilibria()
        if eqs:
            phi, z = chart_from_sphere(np.array(eqs))
            fig.add_trace(go.Scatter(x=phi, y=z, mode="markers", name="relative equilibria",
                                     marker=dict(symbol="x", size=10, color="black")))
    fig.update_layout(
        title=title or f"Poincaré section  E = {section.energy:.4g},  mu = {section.mu:.4g}",
        xaxis=dict(title="phi = atan2(Gamma2, Gamma1)  [rad]", range=[-np.pi, np.pi], zeroline=False,
                   tickvals=[-np.pi, -np.pi / 2, 0, np.pi / 2, np.pi], ticktext=["-pi", "-pi/2", "0", "pi/2", "pi"]),
        yaxis=dict(title="Gamma3 = cos theta   (+1: hanging, bottom)", range=[1.0, -1.0], zeroline=False),
        plot_bgcolor="white", height=height, margin=dict(l=60, r=20, t=50, b=50),
        legend=dict(itemsizing="constant"), clickmode="event", hovermode="closest")
    return fig


def _sphere_mesh(n=40):
    u = np.linspace(0.0, np.pi, n)
    v = np.linspace(-np.pi, np.pi, 2 * n)
    uu, vv = np.meshgrid(u, v, indexing="ij")
    return np.sin(uu) * np.cos(vv), np.sin(uu) * np.sin(vv), np.cos(uu)


def section_sphere_figure(section: PoincareSection, crossings=None, *, region=None, names=None, colours=None,
                          marker_size=2.0, title=None, show_equilibria=True, height=520, n_mesh=40):
    """The section on the unit sphere S^2 of Gamma (body frame), with the inaccessible region shaded.

    Drawn in the display frame ``(X, Y, Z) = (Gamma1, -Gamma2, -Gamma3)`` — a half-turn about e1, so a proper
    rotation (no mirror image) — in which Z points *up*: the hanging pole +e3 is at the bottom as in the paper.
    Hover labels give the true Gamma.
    """
    from ..poincare import amended_potential

    X, Y, Z = _sphere_mesh(n_mesh)
    V = amended_potential(section.pendulum, section.mu, np.stack([X, -Y, -Z], axis=-1))
    shade = np.where(V <= section.energy, 0.0, 1.0)
    fig = go.Figure()
    fig.add_trace(go.Surface(x=X, y=Y, z=Z, surfacecolor=shade, cmin=0.0, cmax=1.0,
                             colorscale=[[0.0, "rgb(245,245,245)"], [1.0, "rgb(150,150,150)"]], showscale=False,
                             opacity=1.0, name="S^2", hoverinfo="skip", lighting=dict(ambient=0.9, diffuse=0.2)))
    reg = region if region is not None else section.accessible_region()
    G = reg.boundary_Gamma
    if G.shape[0]:
        s = 1.003
        fig.add_trace(go.Scatter3d(x=s * G[:, 0], y=-s * G[:, 1], z=-s * G[:, 2], mode="lines",
                                   line=dict(color="black", width=2), name="V_mu = E", hoverinfo="skip"))
    for k, c in enumerate(_as_list(crossings)):
        if c.n_found == 0:
            continue
        nm = names[k] if names is not None and k < len(names) else f"trajectory {k + 1} ({c.n_found})"
        P = 1.005 * c.Gamma
        fig.add_trace(go.Scatter3d(x=P[:, 0], y=-P[:, 1], z=-P[:, 2], mode="markers", name=nm, customdata=c.Gamma,
                                   marker=dict(size=marker_size, color=_colour(k, colours)),
                                   hovertemplate="Gamma = (%{customdata[0]:.4f}, %{customdata[1]:.4f}, "
                                                 "%{customdata[2]:.4f})<extra>" + nm + "</extra>"))
    fig.add_trace(go.Scatter3d(x=[0, 0], y=[0, 0], z=[-1.02, 1.02], mode="markers+text",
                               marker=dict(size=5, color=["royalblue", "crimson"]),
                               text=["+e3 (hanging)", "-e3 (inverted)"], name="poles"))
    if show_equilibria:
        eqs = section.relative_equilibria()
        if eqs:
            E = 1.01 * np.array(eqs)
            fig.add_trace(go.Scatter3d(x=E[:, 0], y=-E[:, 1], z=-E[:, 2], mode="markers", name="relative equilibria",
                                       marker=dict(symbol="x", size=6, color="black")))
    ax = dict(range=[-1.1, 1.1], showbackground=False)
    fig.update_layout(
        title=title or f"Poincaré section on S^2  E = {section.energy:.4g},  mu = {section.mu:.4g}",
        scene=dict(xaxis=dict(title="Gamma1", **ax), yaxis=dict(title="-Gamma2", **ax),
                   zaxis=dict(title="-Gamma3 (up)", **ax), aspectmode="cube",
                   camera=dict(up=dict(x=0, y=0, z=1), eye=dict(x=1.5, y=-1.3, z=0.6))),
        height=height, margin=dict(l=0, r=0, t=50, b=0), legend=dict(itemsizing="constant"))
    return fig


__all__ = ["section_chart_figure", "section_sphere_figure", "PALETTE"]
