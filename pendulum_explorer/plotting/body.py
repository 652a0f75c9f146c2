"""Plotly figures of the rigid body: a static preview and the motion animation (pure functions).

Coordinates
-----------
The paper's inertial frame has ``e3`` pointing *down* (along gravity).  For display every inertial point
``x`` is drawn at ``D x`` with ``D = diag(1, -1, -1)`` (a rotation by pi about e1, so handedness is kept):
the screen's "up" is then the physical up.  Body-frame quantities (Gamma on the sphere) are drawn as they
are.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import plotly.graph_objects as go
from numpy.typing import ArrayLike, NDArray
from plotly.subplots import make_subplots

from ..reduction import attitude_from_gamma

from .colours import BLACK, BLUE, BLUISH_GREEN, OKABE_ITO, ORANGE, REDDISH_PURPLE, SKY_BLUE, VERMILLION

if TYPE_CHECKING:
    from ..bodies import Body, Pendulum
    from ..trajectory import Trajectory

BODY_COLOUR = SKY_BLUE
PIVOT_COLOUR = BLACK
COM_COLOUR = VERMILLION
GRAVITY_COLOUR = BLUISH_GREEN
AXIS_COLOURS = [BLUE, ORANGE, REDDISH_PURPLE]

DISPLAY = np.diag([1.0, -1.0, -1.0])


def _display(points: ArrayLike) -> NDArray[np.float64]:
    """Inertial points (n, 3) -> display coordinates (z up)."""
    return np.asarray(points, float) @ DISPLAY


def hanging_attitude(pendulum: Pendulum) -> NDArray[np.float64]:
    """A rotation R with R rho = |rho| e3 (centre of mass straight below the pivot); identity if rho = 0."""
    rho = np.asarray(pendulum.rho, float)
    n = np.linalg.norm(rho)
    if n == 0.0:
        return np.eye(3)
    return attitude_from_gamma(rho / n)


def _extent(body: Body) -> float:
    V = np.asarray(body.mesh.vertices, float)
    return float(max(np.abs(V).max(), np.linalg.norm(body.pendulum.rho), 1e-3))


def _mesh_trace(V: ArrayLike, faces: ArrayLike, name: str = "body", opacity: float = 0.55, colour: str = BODY_COLOUR,
                showlegend: bool = True) -> go.Mesh3d:
    V = np.asarray(V, float)
    F = np.asarray(faces)
    return go.Mesh3d(x=V[:, 0], y=V[:, 1], z=V[:, 2], i=F[:, 0], j=F[:, 1], k=F[:, 2], color=colour,
                     opacity=opacity, name=name, showlegend=showlegend, flatshading=True, hoverinfo="skip",
                     lighting=dict(ambient=0.6, diffuse=0.6, specular=0.1))


def _scene(L: float, title: str | None = None) -> dict[str, Any]:
    rng = [-1.15 * L, 1.15 * L]
    return dict(xaxis=dict(range=rng, title="x"), yaxis=dict(range=rng, title="y"),
                zaxis=dict(range=rng, title="up"), aspectmode="cube",
                camera=dict(eye=dict(x=1.5, y=1.5, z=0.9)),
                annotations=[] if title is None else None)


def body_preview_figure(body: Body, R: ArrayLike | None = None, height: int = 380,
                        title: str | None = None) -> go.Figure:
    """The body in the attitude ``R`` (default: hanging, centre of mass below the pivot) with the pivot, the
    centre of mass, the principal axes of J (through the pivot) and the gravity direction; ``title`` defaults to
    the body's name.

    Returns a ``go.Figure`` (plain, not a FigureWidget).
    """
    pend = body.pendulum
    Rm = hanging_attitude(pend) if R is None else np.asarray(R, float)
    L = _extent(body)
    V = _display(np.asarray(body.mesh.vertices, float) @ Rm.T)
    com = _display((Rm @ np.asarray(pend.rho, float))[None, :])[0]
    fig = go.Figure()
    fig.add_trace(_mesh_trace(V, body.mesh.faces))
    fig.add_trace(go.Scatter3d(x=[0], y=[0], z=[0], mode="markers", name="pivot",
                               marker=dict(size=6, color=PIVOT_COLOUR, symbol="diamond"),
                               hovertemplate="pivot<extra></extra>"))
    fig.add_trace(go.Scatter3d(x=[com[0]], y=[com[1]], z=[com[2]], mode="markers", name="centre of mass",
                               marker=dict(size=6, color=COM_COLOUR),
                               hovertemplate="centre of mass<br>ρ = " + np.array2string(
                                   np.asarray(pend.rho), precision=4, separator=", ") + "<extra></extra>"))
    _, Q = pend.principal()
    J = pend.principal_moments
    for i in range(3):
        a = _display((Rm @ Q[:, i])[None, :])[0] * 0.9 * L
        fig.add_trace(go.Scatter3d(x=[0, a[0]], y=[0, a[1]], z=[0, a[2]], mode="lines",
                                   line=dict(color=AXIS_COLOURS[i], width=5, dash="solid" if i == 0 else
                                             ("dash" if i == 1 else "dot")),
                                   name=f"principal axis {i + 1} (J{i + 1} = {J[i]:.4g})",
                                   hovertemplate=f"axis {i + 1}: J{i + 1} = {J[i]:.4g} kg m²<extra></extra>"))
    fig.add_trace(_gravity_trace(L))
    fig.update_layout(scene=_scene(L), height=height, margin=dict(l=0, r=0, t=30, b=0),
                      title=dict(text=body.name if title is None else title, x=0.02, y=0.98, font=dict(size=14)),
                      legend=dict(x=0, y=0, bgcolor="rgba(255,255,255,0.6)", font=dict(size=13)),
                      uirevision="body")
    return fig


def _gravity_trace(L: float) -> go.Scatter3d:
    x0 = 0.85 * L
    return go.Scatter3d(x=[x0, x0], y=[x0, x0], z=[0.2 * L, -0.6 * L], mode="lines+text",
                        text=["", "g"], textposition="bottom center",
                        line=dict(color=GRAVITY_COLOUR, width=6), name="gravity", hoverinfo="skip")


def _sphere_wire(n: int = 13) -> go.Scatter3d:
    """Light wireframe lines of the unit sphere (one trace, NaN separated)."""
    xs: list[float | None] = []
    ys: list[float | None] = []
    zs: list[float | None] = []
    t = np.linspace(0, 2 * np.pi, 73)
    for lat in np.linspace(-np.pi / 2, np.pi / 2, 7)[1:-1]:
        xs += list(np.cos(lat) * np.cos(t)) + [None]
        ys += list(np.cos(lat) * np.sin(t)) + [None]
        zs += list(np.full_like(t, np.sin(lat))) + [None]
    s = np.linspace(-np.pi / 2, np.pi / 2, 37)
    for lon in np.linspace(0, np.pi, n // 2, endpoint=False):
        for sgn in (1, -1):
            xs += list(sgn * np.cos(s) * np.cos(lon)) + [None]
            ys += list(sgn * np.cos(s) * np.sin(lon)) + [None]
            zs += list(np.sin(s)) + [None]
    return go.Scatter3d(x=xs, y=ys, z=zs, mode="lines", line=dict(color="#cccccc", width=1),
                        hoverinfo="skip", showlegend=False, name="sphere")


def frame_indices(n_samples: int, max_frames: int = 120) -> NDArray[np.int_]:
    """Indices of the samples used as animation frames (at most ``max_frames``, always the first and last)."""
    k = min(int(n_samples), int(max_frames))
    return np.unique(np.linspace(0, n_samples - 1, k).round().astype(int))


def animation_figure(body: Body, traj: Trajectory, max_frames: int = 120, frame_ms: int = 50, height: int = 560,
                     title: str | None = None) -> go.Figure:
    """The motion of ``body`` along the trajectory ``traj`` as a plotly figure with frames.

    Panels: the body moving with R(t) (pivot, centre of mass and its trace, gravity arrow); Gamma(t) moving on
    the unit sphere (body frame); omega(t); the energy and mu errors |E(t) - E(0)|, |mu(t) - mu(0)|.  Play /
    pause buttons, a speed menu and a time slider run the animation in the browser.
    """
    pend = traj.pendulum
    idx = frame_indices(len(traj.t), max_frames)
    t = np.asarray(traj.t)
    R = np.asarray(traj.R)
    L = _extent(body)
    V0 = np.asarray(body.mesh.vertices, float)
    rho = np.asarray(pend.rho, float)
    com = _display(R @ rho)  # (n, 3)
    G = np.asarray(traj.Gamma)
    fig = make_subplots(rows=2, cols=3, column_widths=[0.42, 0.30, 0.28],
                        specs=[[{"type": "scene", "rowspan": 2}, {"type": "scene", "rowspan": 2}, {"type": "xy"}],
                               [None, None, {"type": "xy"}]],
                        subplot_titles=("body, pivot and centre of mass", "Γ(t) = Rᵀe₃ on the sphere (body frame)",
                                        "ω(t) [rad/s]", "conservation errors"),
                        horizontal_spacing=0.04, vertical_spacing=0.14)

    def body_xyz(k: int) -> NDArray[np.float64]:
        return _display(V0 @ R[k].T)

    Vk = body_xyz(idx[0])
    # 0: body mesh (animated)
    fig.add_trace(_mesh_trace(Vk, body.mesh.faces, opacity=0.7), row=1, col=1)
    # 1: pivot
    fig.add_trace(go.Scatter3d(x=[0], y=[0], z=[0], mode="markers", name="pivot",
                               marker=dict(size=5, color=PIVOT_COLOUR, symbol="diamond")), row=1, col=1)
    # 2: centre-of-mass trace (animated), 3: centre of mass (animated)
    fig.add_trace(go.Scatter3d(x=com[:1, 0], y=com[:1, 1], z=com[:1, 2], mode="lines", name="centre-of-mass path",
                               line=dict(color=COM_COLOUR, width=3)), row=1, col=1)
    fig.add_trace(go.Scatter3d(x=com[:1, 0], y=com[:1, 1], z=com[:1, 2], mode="markers", name="centre of mass",
                               marker=dict(size=5, color=COM_COLOUR)), row=1, col=1)
    # 4: gravity
    fig.add_trace(_gravity_trace(L), row=1, col=1)
    # 5: sphere wireframe, 6: Gamma path (static, faint), 7: Gamma trail (animated), 8: Gamma now (animated)
    fig.add_trace(_sphere_wire(), row=1, col=2)
    fig.add_trace(go.Scatter3d(x=G[:, 0], y=G[:, 1], z=G[:, 2], mode="lines", name="Γ path",
                               line=dict(color="#999999", width=2), hoverinfo="skip"), row=1, col=2)
    fig.add_trace(go.Scatter3d(x=G[:1, 0], y=G[:1, 1], z=G[:1, 2], mode="lines", name="Γ trail",
                               line=dict(color=OKABE_ITO[0], width=5)), row=1, col=2)
    fig.add_trace(go.Scatter3d(x=G[:1, 0], y=G[:1, 1], z=G[:1, 2], mode="markers", name="Γ(t)",
                               marker=dict(size=6, color=OKABE_ITO[0])), row=1, col=2)
    # 9-11: omega components (static), 12: time cursor (animated)
    W = np.asarray(traj.omega)
    dashes = ["solid", "dash", "dot"]
    for i in range(3):
        fig.add_trace(go.Scatter(x=t, y=W[:, i], mode="lines", name=f"ω{i + 1}",
                                 line=dict(color=OKABE_ITO[i], width=1.5, dash=dashes[i])), row=1, col=3)
    wmin, wmax = float(W.min()), float(W.max())
    pad = 0.05 * (wmax - wmin + 1e-12)
    fig.add_trace(go.Scatter(x=[t[idx[0]]] * 2, y=[wmin - pad, wmax + pad], mode="lines", name="now",
                             line=dict(color="#000000", width=1), showlegend=False), row=1, col=3)
    # 13-14: conservation errors (static)
    dE = np.abs(np.asarray(traj.energy) - traj.energy[0])
    dmu = np.abs(np.asarray(traj.mu) - traj.mu[0])
    fig.add_trace(go.Scatter(x=t, y=dE, mode="lines", name="|E(t) − E(0)| [J]",
                             line=dict(color=OKABE_ITO[5], width=1.5)), row=2, col=3)
    fig.add_trace(go.Scatter(x=t, y=dmu, mode="lines", name="|μ(t) − μ(0)| [kg m²/s]",
                             line=dict(color=OKABE_ITO[4], width=1.5, dash="dash")), row=2, col=3)

    # traces 13, 14 (the conservation errors) do not move, but are listed with empty updates: plotly.js drops the
    # lines of a cartesian subplot none of whose traces is in the frame when it redraws the frame (the error
    # panel went blank on play)
    animated = [0, 2, 3, 7, 8, 12, 13, 14]

    def r(a: ArrayLike) -> list[Any]:
        return np.round(np.asarray(a, float), 4).tolist()

    frames: list[dict[str, Any]] = []
    for n, k in enumerate(idx):
        Vk = body_xyz(k)
        trail = idx[:n + 1]
        frames.append({"name": f"{t[k]:.3f}", "traces": animated, "data": [
            {"type": "mesh3d", "x": r(Vk[:, 0]), "y": r(Vk[:, 1]), "z": r(Vk[:, 2])},
            {"type": "scatter3d", "x": r(com[trail, 0]), "y": r(com[trail, 1]), "z": r(com[trail, 2])},
            {"type": "scatter3d", "x": r(com[k:k + 1, 0]), "y": r(com[k:k + 1, 1]), "z": r(com[k:k + 1, 2])},
            {"type": "scatter3d", "x": r(G[trail, 0]), "y": r(G[trail, 1]), "z": r(G[trail, 2])},
            {"type": "scatter3d", "x": r(G[k:k + 1, 0]), "y": r(G[k:k + 1, 1]), "z": r(G[k:k + 1, 2])},
            {"type": "scatter", "x": [float(t[k])] * 2, "y": [wmin - pad, wmax + pad]},
            {"type": "scatter"},
            {"type": "scatter"},
        ]})

    def play_args(ms: int) -> list[Any]:
        return [None, {"frame": {"duration": ms, "redraw": True}, "fromcurrent": True,
                       "transition": {"duration": 0}, "mode": "immediate"}]

    buttons = [dict(label="▶ play", method="animate", args=play_args(frame_ms)),
               dict(label="❚❚ pause", method="animate",
                    args=[[None], {"frame": {"duration": 0, "redraw": False}, "mode": "immediate",
                                   "transition": {"duration": 0}}])]
    speeds = [dict(label=f"{s}×", method="animate", args=play_args(int(frame_ms / s))) for s in (0.25, 0.5, 1, 2, 4)]
    # below the plots, top to bottom: the legend, then the play/pause buttons, the time slider and the speed menu;
    # the bottom margin holds all three, so that nothing is clipped; the slider shows the current time only (its
    # step labels are invisible: they feed the "t = ..." display), so that the whole panel, play button included,
    # fits a 1280 x 720 screen
    slider = dict(active=0, x=0.16, len=0.74, y=-0.17, yanchor="top", pad=dict(t=0, b=0), ticklen=3,
                  font=dict(size=1, color="rgba(0,0,0,0)"),
                  currentvalue=dict(prefix="t = ", suffix=" s", font=dict(size=13, color="#2a3f5f")),
                  steps=[dict(label=f"{t[k]:.2f}", method="animate",
                              args=[[f"{t[k]:.3f}"], {"frame": {"duration": 0, "redraw": True}, "mode": "immediate",
                                                       "transition": {"duration": 0}}]) for k in idx])
    rng = [-1.15 * L, 1.15 * L]
    fig.update_layout(
        height=height, margin=dict(l=10, r=10, t=50, b=120),
        title=dict(text=title or f"{body.name}: motion over {t[-1]:.3g} s ({traj.method})", x=0.01, font=dict(size=14)),
        scene=dict(xaxis=dict(range=rng, title="x", autorange=False), yaxis=dict(range=rng, title="y", autorange=False),
                   zaxis=dict(range=rng, title="up", autorange=False), aspectmode="cube",
                   camera=dict(eye=dict(x=1.4, y=1.4, z=0.8))),
        scene2=dict(xaxis=dict(range=[-1.1, 1.1], title="Γ₁", autorange=False),
                    yaxis=dict(range=[-1.1, 1.1], title="Γ₂", autorange=False),
                    zaxis=dict(range=[-1.1, 1.1], title="Γ₃", autorange=False), aspectmode="cube"),
        legend=dict(orientation="h", x=0, y=-0.08, yanchor="top", font=dict(size=12)),
        updatemenus=[dict(type="buttons", direction="left", x=0.0, y=-0.17, xanchor="left", yanchor="top",
                          pad=dict(t=0, r=10), showactive=False, buttons=buttons),
                     dict(type="dropdown", direction="up", x=1.0, y=-0.17, xanchor="right", yanchor="top",
                          pad=dict(t=0), showactive=True, active=2, buttons=speeds)],
        sliders=[slider],
    )
    fig.update_yaxes(type="log", exponentformat="power", row=2, col=3)
    # time unit on the tick labels of both plots: an axis title would collide with the legend below
    fig.update_xaxes(ticksuffix=" s", row=1, col=3)
    fig.update_xaxes(ticksuffix=" s", row=2, col=3)
    # the log axis cannot show exact zeros: floor them
    for tr in fig.data[13:15]:
        y = np.asarray(tr.y, float)
        tr.y = np.maximum(y, 1e-17)
    d = fig.to_dict()
    d["frames"] = frames
    return go.Figure(d, _validate=False)


__all__ = ["body_preview_figure", "animation_figure", "hanging_attitude", "frame_indices", "OKABE_ITO"]
