"""Plotly figures of the rigid body: a static preview, and the motion as the browser animates it (pure functions).

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

from ..playback import attitude_quaternions, energies, tilt_degrees
from ..reduction import attitude_from_gamma

from .._words import DECIMAL_COMMA, _, language, number
from .describe import describe_body, describe_motion, with_description
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


def _mesh_trace(V: ArrayLike, faces: ArrayLike, name: str | None = None, opacity: float = 0.55,
                colour: str = BODY_COLOUR,
                showlegend: bool = True) -> go.Mesh3d:
    V = np.asarray(V, float)
    F = np.asarray(faces)
    return go.Mesh3d(x=V[:, 0], y=V[:, 1], z=V[:, 2], i=F[:, 0], j=F[:, 1], k=F[:, 2], color=colour,
                     opacity=opacity, name=_("body") if name is None else name, showlegend=showlegend,
                     flatshading=True, hoverinfo="skip",
                     lighting=dict(ambient=0.6, diffuse=0.6, specular=0.1))


def _scene_ticks(L: float) -> tuple[list[float], list[float]]:
    """Tick values of the preview's horizontal axes and of its vertical axis for a scene of half-width
    ``1.15 L``: multiples of a round step (1, 2 or 5 x 10^k, about L/4) within +-L, so no label sits at the cube's
    corners, where plotly draws the x or y axis's end label on the z axis's ("-1.5" over "-1.5"); the vertical axis
    also leaves out its lowest tick, which is drawn next to the horizontal axes' labels at the bottom corner."""
    raw = L / 4
    p10 = 10.0 ** np.floor(np.log10(raw))
    step = p10 * min((m for m in (1.0, 2.0, 5.0, 10.0) if m * p10 >= raw * 0.999), default=10.0)
    k = int(np.floor(L / step + 1e-9))
    ticks = [float(round(i * step, 12)) + 0.0 for i in range(-k, k + 1)]
    return ticks, ticks[1:]


def _scene(L: float, title: str | None = None) -> dict[str, Any]:
    rng = [-1.15 * L, 1.15 * L]
    hv, vv = _scene_ticks(L)
    return dict(xaxis=dict(range=rng, title="x", tickvals=hv), yaxis=dict(range=rng, title="y", tickvals=hv),
                zaxis=dict(range=rng, title=_("up"), tickvals=vv), aspectmode="cube",
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
    pivot, centre = _("pivot"), _("centre of mass")
    fig.add_trace(go.Scatter3d(x=[0], y=[0], z=[0], mode="markers", name=pivot,
                               marker=dict(size=6, color=PIVOT_COLOUR, symbol="diamond"),
                               hovertemplate=pivot + "<extra></extra>"))
    rho = np.array2string(np.asarray(pend.rho), precision=4, separator=", ")
    if language() in DECIMAL_COMMA:  # (0,1; 0; -0,2): the decimal comma, and semicolons between the components
        rho = rho.replace(", ", "; ").replace(".", ",")
    fig.add_trace(go.Scatter3d(x=[com[0]], y=[com[1]], z=[com[2]], mode="markers", name=centre,
                               marker=dict(size=6, color=COM_COLOUR),
                               hovertemplate=centre + "<br>ρ = " + rho + "<extra></extra>"))
    _moments, Q = pend.principal()
    J = pend.principal_moments
    for i in range(3):
        a = _display((Rm @ Q[:, i])[None, :])[0] * 0.9 * L
        fig.add_trace(go.Scatter3d(x=[0, a[0]], y=[0, a[1]], z=[0, a[2]], mode="lines",
                                   line=dict(color=AXIS_COLOURS[i], width=5, dash="solid" if i == 0 else
                                             ("dash" if i == 1 else "dot")),
                                   name=_("principal axis {i} (J{i} = {J})").format(i=i + 1, J=number(J[i], ".4g")),
                                   hovertemplate=_("axis {i}: J{i} = {J} kg m²").format(i=i + 1, J=number(J[i], ".4g"))
                                   + "<extra></extra>"))
    fig.add_trace(_gravity_trace(L))
    fig.update_layout(scene=_scene(L), height=height, margin=dict(l=0, r=0, t=30, b=0),
                      title=dict(text=body.name if title is None else title, x=0.02, y=0.98, font=dict(size=14)),
                      # the legend in rows under the scene (plotly makes room for it): at the lower left of the
                      # scene it covered the axes and part of the body in a 500 px wide preview (1024x768)
                      legend=dict(orientation="h", x=0, xanchor="left", y=0, yanchor="top", font=dict(size=13)),
                      uirevision="body")
    return with_description(fig, describe_body(body))


def _gravity_trace(L: float) -> go.Scatter3d:
    x0 = 0.85 * L
    return go.Scatter3d(x=[x0, x0], y=[x0, x0], z=[0.2 * L, -0.6 * L], mode="lines+text",
                        text=["", "g"], textposition="bottom center",
                        line=dict(color=GRAVITY_COLOUR, width=6), name=_("gravity"), hoverinfo="skip")


def envelope(t: ArrayLike, y: ArrayLike, buckets: int = 1500) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """``(t, y)`` thinned to at most ``2 * buckets`` points that keep, in every bucket of consecutive samples, its
    smallest and its largest value (in time order): a plotted line keeps its envelope (no aliasing of a fast
    oscillation) at a fraction of the points."""
    t = np.asarray(t, float)
    y = np.asarray(y, float)
    n = len(y)
    if n <= 2 * buckets:
        return t, y
    per = -(-n // buckets)  # buckets of ``per`` samples, the last one padded with the last sample
    Y = np.concatenate([y, np.full(per * buckets - n, y[-1])]).reshape(buckets, per)
    base = np.arange(buckets) * per
    keep = np.unique(np.minimum(np.concatenate([base + Y.argmin(1), base + Y.argmax(1), [0, n - 1]]), n - 1))
    return t[keep], y[keep]


def motion_payload(body: Body, traj: Trajectory, stride: int = 1) -> dict[str, Any]:
    """What the browser needs to animate ``traj`` (every ``stride``-th sample), sent once: the mesh and the
    attitude samples as unit quaternions.

    The times are evenly spaced (``t0 + k dt``); the browser interpolates the attitude between samples (slerp) at
    its own frame rate, in true time.  Arrays are little-endian bytes (binary buffers of the widget message):
    ``quaternions`` float32 (n, 4) scalar last ``[x, y, z, w]`` (:func:`~pendulum_explorer.playback.
    attitude_quaternions`), ``energies`` float32 (n, 3) kinetic, potential (from the hanging position) and total
    [J] (:func:`~pendulum_explorer.playback.energies`; the page's energy bars, scaled by ``energy_max``;
    ``energy_zero`` = m g |rho|, subtracted from the potential and the total where the page writes their numbers,
    so that they read Eq 34's ``U = -m g rho^T Gamma`` and ``E`` as the rest of the dashboard does),
    ``vertices`` float32 (nv, 3) in the body frame, ``faces`` int32 (nf, 3).  The browser
    draws inertial points at ``D R v`` with ``D`` = :data:`DISPLAY` (z up) and Gamma = R^T e3 in body axes.
    """
    stride = int(stride)
    if stride < 1:
        raise ValueError(f"stride must be an integer >= 1; got {stride}")
    t = np.asarray(traj.t, float)[::stride]
    if len(t) < 2:
        raise ValueError(f"a motion needs at least 2 samples to animate; got {len(t)} (stride {stride})")
    dt = float(t[1] - t[0])
    if not np.allclose(np.diff(t), dt, rtol=1e-9, atol=1e-12 * max(1.0, abs(float(t[-1])))):
        raise ValueError("the motion's samples must be evenly spaced in time")
    q = attitude_quaternions(np.asarray(traj.R, float)[::stride])
    rho = np.asarray(traj.pendulum.rho, float)
    nr = float(np.linalg.norm(rho))

    def raw(a: ArrayLike, dtype: str) -> bytes:
        return np.ascontiguousarray(a, dtype=np.dtype(dtype).newbyteorder("<")).tobytes()

    en = energies(traj)
    # the energy bars (kinetic, potential from the hanging position, total) at every sample shown, and their scale
    bars = np.stack([en["kinetic"], en["potential"], en["total"]], axis=1)[::stride]
    return {
        "n": int(len(t)), "t0": float(t[0]), "dt": dt,
        "quaternions": raw(q, "f4"),
        "energies": raw(bars, "f4"), "energy_max": float(max(bars.max(), 1e-300)),
        # the page subtracts it from U and E: its bars and numbers are Eq 34's (signed bars on a zero line)
        "energy_zero": float(traj.pendulum.mgrho_norm),
        "damping": float(traj.stats.get("damping", 0.0)),
        "vertices": raw(body.mesh.vertices, "f4"), "faces": raw(body.mesh.faces, "i4"),
        "rho": rho.tolist(), "hanging": (rho / nr).tolist() if nr > 0 else None, "extent": _extent(body),
        "display": DISPLAY.tolist(),
        "colours": {"body": BODY_COLOUR, "pivot": PIVOT_COLOUR, "com": COM_COLOUR, "gravity": GRAVITY_COLOUR,
                    "gamma": OKABE_ITO[0], "axes": AXIS_COLOURS},
    }


def payload_quaternions(payload: dict[str, Any]) -> NDArray[np.float64]:
    """The attitude samples (n, 4) of a :func:`motion_payload` (what the browser receives)."""
    return np.frombuffer(payload["quaternions"], dtype="<f4").astype(float).reshape(-1, 4)


def motion_plots_figure(traj: Trajectory, stride: int = 1) -> go.Figure:
    """The body angular velocity omega(t), the conservation errors |E(t) - E(0)|, |mu(t) - mu(0)| (log scale) and
    the tilt (:func:`~pendulum_explorer.playback.tilt_degrees`, degrees from the downward vertical) of ``traj``,
    one above the other, each with its own title (the browser draws the moving "now" line over them: a plotly
    relayout per frame would cost ~50 ms in software rendering).  A damped motion (outside the paper's model)
    shows its energies instead of the conservation errors (:func:`~pendulum_explorer.playback.energies`: kinetic,
    potential from the hanging position, total), which it loses on purpose.

    Every sample (every ``stride``-th) enters the lines through :func:`envelope`, so a fast oscillation is drawn
    as its envelope, never aliased.  No fixed height: the figure fills the height of its container.
    """
    sl = slice(None, None, int(stride))
    t = np.asarray(traj.t, float)[sl]
    W = np.asarray(traj.omega, float)[sl]
    damped = float(traj.stats.get("damping", 0.0)) > 0.0
    fig = make_subplots(rows=3, cols=1, shared_xaxes=True, vertical_spacing=0.08, row_heights=[0.36, 0.36, 0.28],
                        subplot_titles=(_("ω(t) [rad/s], body axes"),
                                        _("energy [J] (damped: it decreases)") if damped else _("conservation errors"),
                                        _("tilt from the vertical [°]")))
    dashes = ["solid", "dash", "dot"]
    for i in range(3):
        x, y = envelope(t, W[:, i])
        fig.add_trace(go.Scatter(x=x, y=y, mode="lines", name=f"ω{'₁₂₃'[i]}", legend="legend",
                                 line=dict(color=OKABE_ITO[i], width=1.5, dash=dashes[i])), row=1, col=1)
    E = np.asarray(traj.energy, float)[sl]
    mu = np.asarray(traj.mu, float)[sl]
    if damped:
        en = {k: v[sl] for k, v in energies(traj).items()}
        rows2 = [(en["total"], _("total"), BLACK, "solid"), (en["kinetic"], _("kinetic"), OKABE_ITO[5], "dash"),
                 (en["potential"], _("potential"), OKABE_ITO[4], "dot")]
        second = np.concatenate([r[0] for r in rows2])
    else:  # the log axis cannot show exact zeros: floor them
        rows2 = [(np.maximum(np.abs(E - E[0]), 1e-17), "|ΔE| [J]", OKABE_ITO[5], "solid"),
                 (np.maximum(np.abs(mu - mu[0]), 1e-17), "|Δμ| [kg m²/s]", OKABE_ITO[4], "dash")]
        second = np.log10(np.concatenate([r[0] for r in rows2]))
    for y, name, colour, dash in rows2:
        x, yy = envelope(t, y)
        fig.add_trace(go.Scatter(x=x, y=yy, mode="lines", name=name, legend="legend2",
                                 line=dict(color=colour, width=1.5, dash=dash)), row=2, col=1)
    tilt = tilt_degrees(traj)[sl] if traj.pendulum.mgrho_norm > 0.0 else np.zeros(len(t))
    x, y = envelope(t, tilt)
    fig.add_trace(go.Scatter(x=x, y=y, mode="lines", name=_("tilt [°]"), showlegend=False,
                             hovertemplate="t = %{x:.3g} s: %{y:.3g}°<extra></extra>",
                             line=dict(color=VERMILLION, width=1.8)), row=3, col=1)
    small = dict(orientation="h", xanchor="right", x=1.0, yanchor="bottom", bgcolor="rgba(255,255,255,0.7)",
                 font=dict(size=12), itemwidth=30)
    fig.update_layout(
        margin=dict(l=50, r=10, t=28, b=30),
        # each subplot's legend in its top-right corner, inside the figure (no legend row below the plots)
        legend=dict(small, y=fig.layout.yaxis.domain[1] - 0.09),
        legend2=dict(small, y=fig.layout.yaxis2.domain[1] - 0.09),
        uirevision="motion")
    # each legend sits in its subplot's top-right corner: the y ranges leave the top LEGEND_ROOM of each plot
    # free of data (autorange drew the lines under the legends)
    fig.update_yaxes(range=_with_room(np.concatenate([W.min(0), W.max(0)])), row=1, col=1)
    if damped:
        fig.update_yaxes(range=_with_room(second), row=2, col=1)
    else:
        fig.update_yaxes(type="log", exponentformat="power", range=_with_room(second), row=2, col=1)
    top = float(tilt.max()) if len(tilt) else 0.0
    fig.update_yaxes(range=[0.0, max(5.0, 1.08 * top)], ticksuffix="°", row=3, col=1)
    fig.update_xaxes(ticksuffix=" s", row=3, col=1)
    return with_description(fig, describe_motion(traj, stride))


#: share of a motion plot's height above its data, where its legend is drawn
LEGEND_ROOM = 0.3


def _with_room(y: NDArray[np.float64]) -> list[float]:
    """An axis range around the values ``y`` (on a log axis: their log10) whose top ``LEGEND_ROOM`` is empty."""
    lo, hi = float(np.min(y)), float(np.max(y))
    span = hi - lo if hi - lo > 1e-12 * max(1.0, abs(hi)) else max(1.0, abs(hi))
    lo -= 0.05 * span
    return [lo, lo + (hi - lo) / (1.0 - LEGEND_ROOM)]


__all__ = ["body_preview_figure", "motion_payload", "payload_quaternions", "motion_plots_figure", "envelope",
           "hanging_attitude", "DISPLAY", "OKABE_ITO"]
