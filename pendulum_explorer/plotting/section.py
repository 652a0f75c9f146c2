"""Plotly figures of Poincaré sections (paper Fig. 2): on the equal-area chart and on the sphere.

Pure functions: model objects in, ``plotly.graph_objects.Figure`` out.

Chart figure layout (the dashboard relies on it): trace 0 is a heatmap covering the whole chart
``phi in [-pi, pi]`` x ``Gamma_3 in [-1, 1]`` (plotly only fires click events on data, so every point of
the chart is clickable); its ``z`` is 1 where the point is inaccessible (V_mu > E, shaded) and 0 where it
is on the section (transparent); ``customdata`` holds V_mu.  The y axis is reversed so that the hanging
direction Gamma = +e3 (e3 points down) is at the bottom and the inverted one at the top, as in the paper.
With ``clickable=True`` (the dashboard) the chart has no legend and no zoom/pan, so every click lands on the
heatmap, and the title invites a click in the white (accessible) region.  :func:`crossings_trace` is the
trace of one trajectory's crossings (the dashboard appends one per launch and streams points into it).
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Union

import numpy as np
import plotly.graph_objects as go
from numpy.typing import ArrayLike, NDArray

from ..poincare import (AccessibleRegion, BatchCrossings, ChaosMap, Crossings, PeriodicOrbit, PoincareSection,
                        chart_from_sphere)
from .._words import N_, _, number
from .colours import BLACK, BLUE, PALETTE, VERMILLION, trajectory_symbol
from .labels import CrossingsLike, _as_list, _gammas  # noqa: F401  (re-exported)
from .describe import describe_section, describe_section_sphere, with_description

SHADE = "rgba(120,120,120,0.55)"
#: the hover of the shading heatmap (trace 0) at a chart point; a chaos map adds its value there
SHADE_HOVER = "φ = %{x:.3f}<br>Γ₃ = %{y:.3f}<br>V_μ = %{customdata:.4g} J"
CLICK_HINT = N_("click in the white region")  # (English: the page says it in its language)

#: what the figures accept as the crossings of one or several trajectories
def _colour(k: int, colours: Sequence[str] | None) -> str:
    c = colours or PALETTE
    return c[k % len(c)]


def _symbol3d(colour: str) -> str:
    """The 3D marker of a trajectory colour (Scatter3d knows fewer symbols than Scatter)."""
    s = trajectory_symbol(colour)
    return {"triangle-up": "circle-open", "star": "diamond-open"}.get(s, s)


def _name(k: int, names: Sequence[str] | None, n: int) -> str:
    return names[k] if names is not None and k < len(names) else _("trajectory {k} ({n})").format(k=k + 1, n=n)


def _pole_traces_chart() -> list[go.Scatter]:
    return [
        go.Scatter(x=[-np.pi, np.pi], y=[1.0, 1.0], mode="lines", line=dict(color=BLUE, width=4),
                   name=_("+e3 (hanging pole)"), hoverinfo="name", showlegend=True),
        go.Scatter(x=[-np.pi, np.pi], y=[-1.0, -1.0], mode="lines", line=dict(color=VERMILLION, width=4),
                   name=_("-e3 (inverted pole)"), hoverinfo="name", showlegend=True),
    ]


def crossings_trace(crossings: Crossings | ArrayLike | None = None, *, name: str, colour: str,
                    marker_size: float = 2.5, webgl: bool = False,
                    megno: tuple[float, float] | None = None) -> go.Scatter | go.Scattergl:
    """The chart trace of one trajectory's crossings (markers at ``chart_from_sphere(Gamma)``).

    Parameters
    ----------
    crossings : Crossings or (n, 3) array of Gamma, optional
        ``None`` gives an empty trace (to be filled as the crossings arrive).
    name, colour : str
        The marker symbol goes with the colour (:func:`~.colours.trajectory_symbol`: one per colour of
        :data:`~.colours.PALETTE`), so trajectories differ by more than colour.
    webgl : bool
        ``Scattergl`` instead of ``Scatter`` (faster for > 10^4 points in a browser).
    megno : (Ybar, T), optional
        The trajectory's mean MEGNO over T seconds (:func:`pendulum_explorer.chaos.megno`), shown in the hover.
    """
    G = _gammas(crossings)
    phi, z = chart_from_sphere(G) if len(G) else (np.zeros(0), np.zeros(0))
    Sc = go.Scattergl if webgl else go.Scatter
    chaos = "" if megno is None else "<br>" + _("Ȳ = {Y} (T = {T} s; ≈2 regular, ≫2 chaotic)").format(
        Y=number(megno[0], ".3g"), T=number(megno[1], "g"))
    return Sc(x=phi, y=z, mode="markers", name=name,
              marker=dict(size=marker_size, color=colour, symbol=trajectory_symbol(colour)),
              hovertemplate="φ = %{x:.4f}<br>Γ₃ = %{y:.4f}" + chaos + "<extra>" + name + "</extra>")


def section_chart_figure(section: PoincareSection, crossings: CrossingsLike = None, *,
                         region: AccessibleRegion | None = None, names: Sequence[str] | None = None,
                         colours: Sequence[str] | None = None, marker_size: float = 2.5, title: str | None = None,
                         show_equilibria: bool = True, webgl: bool = False, height: int = 480,
                         clickable: bool = False, chaos: ChaosMap | None = None) -> go.Figure:
    """The section on the equal-area chart (azimuth phi about e3 vs Gamma_3 = cos theta).

    Parameters
    ----------
    section : PoincareSection
    crossings : Crossings, BatchCrossings, an (n, 3) array of Gamma or a list of those, optional; one colour
        per trajectory.
    region : AccessibleRegion, optional (default ``section.accessible_region()``, cached).
    names : list of str, optional (legend names of the trajectories).
    webgl : bool
        Use ``Scattergl`` for the points (faster for > 10^4 points in a browser).
    clickable : bool
        Layout for a click-to-launch chart: no legend, fixed axes and no drag mode (every click lands on the
        heatmap), and the title ends with the hint "click in the white region".
    chaos : ChaosMap, optional
        Drawn under the crossings (trace 1, right after the shading heatmap) with its colour bar
        (:func:`chaos_map_trace`).
    """
    reg = region if region is not None else section.accessible_region()
    shade = np.where(reg.accessible, 0, 1).astype(np.uint8)  # 0/1: one byte a cell to the browser, not eight
    fig = go.Figure()
    hover = SHADE_HOVER
    if chaos is not None:  # the map's value under the pointer: the shading carries it (see chaos_map_trace)
        hover += "<br>" + chaos_hover_template(chaos)
    fig.add_trace(go.Heatmap(
        x=reg.phi, y=reg.z, z=shade, customdata=reg.V, zmin=0.0, zmax=1.0,
        colorscale=[[0.0, "rgba(255,255,255,0)"], [1.0, SHADE]], showscale=False, name="V_mu",
        text=None if chaos is None else chaos_hover_text(chaos, reg.phi, reg.z),
        hovertemplate=hover + "<extra></extra>"))
    if chaos is not None:
        fig.add_trace(chaos_map_trace(chaos, hoverable=False, region=reg))
    if reg.boundary_phi.size:
        fig.add_trace(go.Scatter(x=reg.boundary_phi, y=reg.boundary_z, mode="lines",
                                 line=dict(color="black", width=1), name="V_mu = E", hoverinfo="skip"))
    for k, G in enumerate(_as_list(crossings)):
        if len(G) == 0:
            continue
        fig.add_trace(crossings_trace(G, name=_name(k, names, len(G)), colour=_colour(k, colours),
                                      marker_size=marker_size, webgl=webgl))
    for tr in _pole_traces_chart():
        fig.add_trace(tr)
    if show_equilibria:
        eqs = section.relative_equilibria()
        if eqs:
            phi, z = chart_from_sphere(np.array(eqs))
            fig.add_trace(go.Scatter(x=phi, y=z, mode="markers", name=_("relative equilibria"),
                                     marker=dict(symbol="x", size=10, color=BLACK)))
    title = title or _("Poincaré section  E = {E} J,  μ = {mu} kg m²/s").format(E=number(section.energy, ".4g"),
                                                                                 mu=number(section.mu, ".4g"))
    hint = _(CLICK_HINT)
    if clickable and hint not in title:
        title = f"{title}  ({hint})"
    fig.update_layout(
        title=title,
        xaxis=dict(title="φ = atan2(Γ₂, Γ₁)  [rad]", range=[-np.pi, np.pi], zeroline=False,
                   tickvals=[-np.pi, -np.pi / 2, 0, np.pi / 2, np.pi], ticktext=["−π", "−π/2", "0", "π/2", "π"]),
        yaxis=dict(title=_("Γ₃ = cos θ   (+1: hanging, bottom)"), range=[1.0, -1.0], zeroline=False),
        plot_bgcolor="white", height=height, margin=dict(l=60, r=20, t=50, b=50),
        legend=dict(itemsizing="constant"), clickmode="event", hovermode="closest")
    if clickable:
        fig.update_layout(showlegend=False, dragmode=False, title_font_size=14, title_x=0.01,
                          margin=dict(l=60, r=10, t=40, b=50))
        fig.update_xaxes(fixedrange=True, showgrid=False)
        fig.update_yaxes(fixedrange=True, showgrid=False)
    if chaos is not None:
        fig.update_layout(margin=dict(r=90))  # room for the colour bar
    return with_description(fig, describe_section(section, crossings, reg, chaos))


def _sphere_mesh(n: int = 40) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    u = np.linspace(0.0, np.pi, n)
    v = np.linspace(-np.pi, np.pi, 2 * n)
    uu, vv = np.meshgrid(u, v, indexing="ij")
    return np.sin(uu) * np.cos(vv), np.sin(uu) * np.sin(vv), np.cos(uu)


def section_sphere_figure(section: PoincareSection, crossings: CrossingsLike = None, *,
                          region: AccessibleRegion | None = None, names: Sequence[str] | None = None,
                          colours: Sequence[str] | None = None, marker_size: float = 2.0, title: str | None = None,
                          show_equilibria: bool = True, height: int = 520, n_mesh: int = 40,
                          showlegend: bool = True) -> go.Figure:
    """The section on the unit sphere S^2 of Gamma (body frame), with the inaccessible region shaded.

    ``crossings``, ``names``, ``colours`` as in :func:`section_chart_figure`; ``showlegend=False`` for a small
    figure (the dashboard's side view).

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
    for k, Gk in enumerate(_as_list(crossings)):
        if len(Gk) == 0:
            continue
        nm = _name(k, names, len(Gk))
        P = 1.005 * Gk
        fig.add_trace(go.Scatter3d(x=P[:, 0], y=-P[:, 1], z=-P[:, 2], mode="markers", name=nm, customdata=Gk,
                                   marker=dict(size=marker_size, color=_colour(k, colours),
                                               symbol=_symbol3d(_colour(k, colours))),
                                   hovertemplate="Gamma = (%{customdata[0]:.4f}, %{customdata[1]:.4f}, "
                                                 "%{customdata[2]:.4f})<extra>" + nm + "</extra>"))
    fig.add_trace(go.Scatter3d(x=[0, 0], y=[0, 0], z=[-1.02, 1.02], mode="markers+text",
                               marker=dict(size=5, color=[BLUE, VERMILLION]),
                               text=[_("+e3 (hanging)"), _("-e3 (inverted)")], name=_("poles"),
                               # black: the default #2a3f5f has 3.6:1 on the shaded sphere (rgb 150) at a pole
                               textfont=dict(color=BLACK)))
    if show_equilibria:
        eqs = section.relative_equilibria()
        if eqs:
            E = 1.01 * np.array(eqs)
            fig.add_trace(go.Scatter3d(x=E[:, 0], y=-E[:, 1], z=-E[:, 2], mode="markers", name=_("relative equilibria"),
                                       marker=dict(symbol="x", size=6, color=BLACK)))
    ax = dict(range=[-1.1, 1.1], showbackground=False)
    fig.update_layout(
        title=title or _("Poincaré section on S²  E = {E} J,  μ = {mu} kg m²/s").format(
            E=number(section.energy, ".4g"), mu=number(section.mu, ".4g")),
        scene=dict(xaxis=dict(title="Γ₁", **ax), yaxis=dict(title="−Γ₂", **ax),
                   zaxis=dict(title=_("−Γ₃ (up)"), **ax), aspectmode="cube",
                   camera=dict(up=dict(x=0, y=0, z=1), eye=dict(x=1.5, y=-1.3, z=0.6))),
        height=height, margin=dict(l=0, r=0, t=50, b=0), legend=dict(itemsizing="constant"), showlegend=showlegend)
    return with_description(fig, describe_section_sphere(section, crossings))


__all__ = ["section_chart_figure", "section_sphere_figure", "crossings_trace", "PALETTE", "CLICK_HINT"]


# ------------------------------------------------------------------------------------------------
# chaos maps and periodic orbits (issue 12)
# ------------------------------------------------------------------------------------------------
#: the MEGNO colour scale: 0-2 blue (regular; 2 is quasi-periodic motion), above 2 through yellow to red (chaotic),
#: saturated at MEGNO_MAX
MEGNO_MAX = 8.0
MEGNO_COLOURSCALE: list[list[object]] = [[0.0, "#2166ac"], [0.25, "#92c5de"], [0.375, "#f7f7f7"], [0.5, "#fddbc7"], [0.75, "#ef8a62"],
                     [1.0, "#b2182b"]]
#: marker symbol per kind of periodic orbit
ORBIT_SYMBOLS = {"elliptic": "circle", "hyperbolic": "x", "parabolic": "diamond"}


def chaos_hover_text(cm: ChaosMap, phi: ArrayLike, z: ArrayLike) -> NDArray[np.str_]:
    """(len(z), len(phi)) hover lines for the grid ``phi`` x ``z`` of the section chart: the value of the map cell
    under each point and what it says (``"Ȳ = 1.93, regular"``, ``"Ȳ = 12.4, chaotic"``; chaotic above
    ``cm.threshold``), or that the cell has no value (its centre is not on the section)."""
    PH, Z = np.meshgrid(np.asarray(phi, dtype=float), np.asarray(z, dtype=float))
    v = cm.values_at(PH, Z)
    what, unit = ("Ȳ", "") if cm.indicator == "megno" else ("λ", " 1/s")
    words = {}  # one string per distinct value (the cells repeat over the finer grid)
    chaotic, regular, none = _("chaotic"), _("regular"), _("no value here (the cell's centre is not on the section)")
    out = np.empty(v.shape, dtype=object)
    for idx, x in np.ndenumerate(v):
        if x not in words:
            words[x] = (f"{what} = {number(x, '.3g')}{unit}, {chaotic if x > cm.threshold else regular}"
                        if np.isfinite(x) else none)
        out[idx] = words[x]
    return out.astype(str)


def chaos_hover_template(cm: ChaosMap) -> str:
    """The hover lines of the chaos map's value (the cell's text from :func:`chaos_hover_text`) and what it means."""
    meaning = (_("mean MEGNO Ȳ ≈2 regular, ≫2 chaotic") if cm.indicator == "megno"
               else _("Lyapunov estimate λ ≈0 regular, >0 chaotic"))
    return _("chaos map (T = {T} s): {text}<br>({meaning})").format(T=number(cm.t_total, "g"), text="%{text}",
                                                                    meaning=meaning)


def chaos_map_trace(cm: ChaosMap, *, showscale: bool = True, hoverable: bool = True,
                    region: AccessibleRegion | None = None) -> go.Heatmap:
    """The chaos map as a heatmap on the section chart (cells at ``cm.phi``, ``cm.z``; NaN cells transparent).

    ``region`` (the accessible region the chart shades): the map is drawn on the region's grid instead, each
    accessible node coloured with the value of the map cell it lies in and the others transparent, so that the
    coloured cells are exactly the white cells of the shading — the map's coarse cells at the edge of the region
    no longer spill over the grey (:func:`chaos_on_region`).

    MEGNO is drawn on a fixed scale 0 ... ``MEGNO_MAX`` whose colour bar says what the values mean (≈ 2 regular,
    ≫ 2 chaotic); a Lyapunov map on 0 ... max with its unit.  ``hoverable=False`` (over the section's shading,
    :func:`section_chart_figure`): the map takes no hover and no clicks (``hoverinfo="skip"``), so both stay with
    the shading's fine grid, whose hover gives the map cell's value (:func:`chaos_hover_text`) — a click over the
    map launches at the point clicked, not at the centre of a coarse map cell.
    """
    scale: str | list[list[object]]
    if cm.indicator == "megno":
        zmin, zmax, scale = 0.0, MEGNO_MAX, MEGNO_COLOURSCALE
        bar = dict(title=dict(text=_("MEGNO Ȳ<br>≈2 regular<br>≫2 chaotic"), side="top"),
                   tickvals=[0, 2, 4, 6, 8], ticktext=["0", "2", "4", "6", "≥8"])
        what = "Ȳ"
    else:
        fin = cm.values[np.isfinite(cm.values)]
        zmin, zmax, scale = 0.0, float(max(fin.max(), 1e-3)) if fin.size else 1.0, "Reds"
        bar = dict(title=dict(text=_("λ [1/s]<br>≈0 regular"), side="top"))
        what = "λ"
    hover = dict(hovertemplate=f"φ = %{{x:.3f}}<br>Γ₃ = %{{y:.3f}}<br>{what} = %{{z:.3g}}<extra>T = "
                               f"{number(cm.t_total, 'g')} s</extra>") if hoverable else dict(hoverinfo="skip")
    x, y, v = (cm.phi, cm.z, cm.values) if region is None else (region.phi, region.z, chaos_on_region(cm, region))
    return go.Heatmap(
        x=x, y=y, z=v, zmin=zmin, zmax=zmax, colorscale=scale, showscale=showscale,
        colorbar=dict(len=0.9, thickness=12, **bar),
        name=_("chaos map (T = {T} s)").format(T=number(cm.t_total, "g")), **hover)


def chaos_on_region(cm: ChaosMap, region: AccessibleRegion) -> NDArray[np.float32]:
    """The chaos map's values on the grid of ``region`` (len(z), len(phi)): the value of the map cell each
    accessible node lies in, NaN at inaccessible nodes and where the cell has no value (float32: colours only)."""
    return _chaos_on_grid(cm, region.phi, region.z, region.accessible)


def _chaos_on_grid(cm: ChaosMap, phi: NDArray[np.float64], z: NDArray[np.float64],
                   accessible: NDArray[np.bool_]) -> NDArray[np.float32]:
    PH, Z = np.meshgrid(phi, z)
    return np.where(accessible, cm.values_at(PH, Z), np.nan).astype(np.float32)


#: the hover's first line of a periodic orbit, by its kind
FIXED_POINT_WORDS = {"elliptic": N_("elliptic fixed point of P^{k}"),
                     "hyperbolic": N_("hyperbolic fixed point of P^{k}"), "parabolic": N_("parabolic fixed point of P^{k}")}


def _orbit_hover(o: PeriodicOrbit) -> str:
    """The hover text of one periodic orbit: its kind, k, period and multipliers (a semicolon between the
    multipliers where the decimal sign is a comma)."""
    head = _(FIXED_POINT_WORDS[o.kind]) if o.kind in FIXED_POINT_WORDS else "{kind} fixed point of P^{k}"
    sep = ", " if number(0.5) == "0.5" else "; "
    mult = sep.join(f"{number(m.real, '.4g')}{number(m.imag, '+.4g')}i" if abs(m.imag) > 0 else number(m.real, ".4g")
                    for m in o.multipliers)
    return (head.format(kind=o.kind, k=o.k) + "<br>" + _("period {T} s").format(T=number(o.period, ".6g")) + "<br>"
            + _("multipliers {values}").format(values=mult))


def periodic_orbit_trace(orbits: Sequence[PeriodicOrbit], *, name: str | None = None) -> go.Scatter:
    """Fixed points of the k-th return maps on the chart, one symbol per kind (circle elliptic, x hyperbolic,
    diamond parabolic) and a hover with k, the period and the multipliers; ``name`` defaults to "periodic orbits"
    (in the page's language)."""
    phi = [o.phi for o in orbits]
    z = [o.z for o in orbits]
    text = [_orbit_hover(o) for o in orbits]
    name = _("periodic orbits") if name is None else name
    return go.Scatter(x=phi, y=z, mode="markers", name=name, text=text,
                      marker=dict(symbol=[ORBIT_SYMBOLS[o.kind] for o in orbits], size=11, color=BLACK,
                                  line=dict(width=2, color=BLACK)),
                      hovertemplate="%{text}<br>φ = %{x:.6f}, Γ₃ = %{y:.6f}<extra></extra>")


def chaos_map_figure(section: PoincareSection, cm: ChaosMap, crossings: CrossingsLike = None, *,
                     orbits: Sequence[PeriodicOrbit] = (), **kw: object) -> go.Figure:
    """:func:`section_chart_figure` with the chaos map under the crossings (after the shading heatmap, trace 0)
    and the periodic orbits on top; keyword arguments go to :func:`section_chart_figure`."""
    fig = section_chart_figure(section, crossings, chaos=cm, **kw)  # type: ignore[arg-type]
    if orbits:
        fig.add_trace(periodic_orbit_trace(orbits))
    return fig


def zoom_chart(fig: go.Figure, section: PoincareSection, window: tuple[float, float, float, float],
               chaos: ChaosMap | None = None) -> go.Figure:
    """``fig`` (a :func:`section_chart_figure` of ``section``) showing only the chart window
    ``(phi0, phi1, z0, z1)`` (clipped to the chart), its shading and the boundary V_mu = E recomputed for the
    window (``section.accessible_region(121, 81, window)``: the boundary on the exact curve, smooth at any zoom).
    Pass the chart's chaos map as ``chaos``: it is redrawn on the new grid's white cells and the shading's hover
    keeps giving its values.  Updates ``fig`` in place and returns it."""
    phi0, phi1, z0, z1 = (float(v) for v in window)
    phi0, phi1, z0, z1 = max(phi0, -np.pi), min(phi1, np.pi), max(z0, -1.0), min(z1, 1.0)
    fig.update_layout(xaxis_range=[phi0, phi1], yaxis_range=[z1, z0])
    reg = section.accessible_region(121, 81, window=(phi0, phi1, z0, z1))
    phi, z, V, acc = reg.phi, reg.z, reg.V, reg.accessible
    for tr in fig.data:
        if tr.type == "heatmap" and tr.name == "V_mu":
            tr.update(x=phi, y=z, z=np.where(acc, 0, 1).astype(np.uint8), customdata=V)
            if tr.text is not None:  # the chaos map's values in the hover, on the new grid (or none)
                tr.update(text=None if chaos is None else chaos_hover_text(chaos, phi, z),
                          hovertemplate=SHADE_HOVER + ("" if chaos is None else "<br>" + chaos_hover_template(chaos))
                          + "<extra></extra>")
        elif tr.type == "heatmap" and chaos is not None:  # the chaos map (its name is in the page's language)
            tr.update(x=phi, y=z, z=_chaos_on_grid(chaos, phi, z, acc))  # the white cells of the new grid
        elif tr.name == "V_mu = E":
            tr.update(x=reg.boundary_phi, y=reg.boundary_z)
    return fig
