"""Relative equilibria on the sphere of reduced attitudes (paper Fig. 1 (b)-(d)).

Pure functions: an :class:`~pendulum_explorer.equilibria.EquilibriumSet` in, a plotly ``go.Figure`` out.

Trace layout of :func:`equilibria_sphere_figure` (tests and the dashboard rely on it)
------------------------------------------------------------------------------------
* trace 0: the translucent unit sphere (``go.Surface``, ``name="sphere"``);
* family traces (``go.Scatter3d``, mode "lines"): at most two, the linearly stable runs (thick, solid) and the
  unstable runs (thin, dashed) of every family drawn (branch +1; the branch -1 has the same Gamma), each trace
  holding its runs one after the other, separated by one NaN vertex (a gap in the line).  ``meta = {"stable",
  "kind": "families", "runs": [{"family", "kind", "start", "stop"}, ...]}`` gives the vertex range of each run (a
  maximal run of equal linear stability of one family, as :func:`family_traces` returns them one trace each:
  one WebGL line object per trace is what costs in the browser).  The vertex colours ``line.color`` are
  :func:`~pendulum_explorer.plotting.colours.alpha_colour_value` of alpha (``(2/pi) arctan(alpha J2)`` in [-1, 1]:
  -inf blue ... +inf red, diverging RdYlBu, colour-blind safe).  The L1 family is split at the (38) point,
  where alpha jumps from +inf to -inf.
* marker traces: "hanging" (blue), "inverted" (vermillion), "eq38" (black diamonds);
* if ``selected`` is given, last: an open black ring around that point (``name = "selected"``).

Labels (``labels=True``, the default): ``layout.scene.annotations`` name each family drawn (``L1`` … ``L4``, or
the non-generic families in words, :func:`family_name`) at the point :func:`family_label_index` picks, in the
family's colour (:func:`family_colours`), and the hanging, inverted and Eq. (38) points; the energy–momentum diagram
(:mod:`.diagrams`) labels the same points in the same colours.

The paper's Fig. 1 draws Gamma = -e3 at the top: the 3D view uses ``up = -e3``; "top" looks from -e3
(inverted side) and "bottom" from +e3.
"""
from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from typing import Any, Protocol

import numpy as np
import plotly.graph_objects as go
from numpy.typing import ArrayLike, NDArray

from ..equilibria import EquilibriumPoint, EquilibriumSet, Family
from .._words import DECIMAL_COMMA, _, language, number
from .colours import BLACK, BLUE, FAMILY_LABEL_COLOURS, LABEL_BOX, VERMILLION, alpha_colour_value, label_colour
from .describe import describe_equilibria, with_description
from .labels import (FAMILY_NAMES, POINT_LABELS, VIEW_WORDS, family_name, point_label,  # noqa: F401  (re-exported)
                     stability_name)

HANGING_COLOUR = BLUE        # Okabe-Ito blue
INVERTED_COLOUR = VERMILLION  # Okabe-Ito vermillion
EQ38_COLOUR = BLACK
COLOURSCALE = [[0.0, "#313695"], [0.1, "#4575b4"], [0.2, "#74add1"], [0.3, "#abd9e9"], [0.4, "#e0f3f8"],
               [0.5, "#ffffbf"], [0.6, "#fee090"], [0.7, "#fdae61"], [0.8, "#f46d43"], [0.9, "#d73027"],
               [1.0, "#a50026"]]  # ColorBrewer RdYlBu reversed: blue (-inf) ... red (+inf)

class HasGamma(Protocol):
    """Anything with a ``Gamma`` (a unit vector of the body frame), e.g. an EquilibriumPoint."""

    @property
    def Gamma(self) -> ArrayLike: ...


CAMERAS = {
    "3d": dict(eye=dict(x=1.45, y=1.25, z=-0.9), up=dict(x=0, y=0, z=-1), center=dict(x=0, y=0, z=0)),
    "top": dict(eye=dict(x=0, y=0, z=-2.2), up=dict(x=0, y=1, z=0), center=dict(x=0, y=0, z=0)),
    "bottom": dict(eye=dict(x=0, y=0, z=2.2), up=dict(x=0, y=1, z=0), center=dict(x=0, y=0, z=0)),
}


#: what the isolated points are called in the figures' labels
def family_colours(eq: EquilibriumSet) -> dict[str, str]:
    """The label colour of every family of ``eq`` (sorted labels take :data:`FAMILY_LABEL_COLOURS` in turn)."""
    labels = sorted(set(eq.labels))
    return {lab: FAMILY_LABEL_COLOURS[i % len(FAMILY_LABEL_COLOURS)] for i, lab in enumerate(labels)}


def family_label_index(family: Family, e_max: float) -> int:
    """Where a family's label goes: the middle one of its points with energy at most ``e_max`` (the part the
    energy–momentum diagram shows), else its middle point."""
    E = np.asarray(family.energy, float)
    idx = np.flatnonzero(np.isfinite(E) & (E <= e_max))
    return int(idx[len(idx) // 2]) if len(idx) else len(E) // 2


def default_e_max(eq: EquilibriumSet) -> float:
    """The top of the energy–momentum diagram's default energy range, ``3 m g |rho|``."""
    pend = eq.pendulum
    return 3.0 * pend.m * pend.g * float(np.linalg.norm(pend.rho))


#: the labels' font size [px] on the sphere (``label_px`` of :func:`equilibria_sphere_figure` sets another)
LABEL_PX = 14


def _annotation3d(G: ArrayLike, text: str, colour: str, right: bool = True, size: int = LABEL_PX) -> dict[str, Any]:
    G = np.asarray(G, float)
    k = size / LABEL_PX  # a larger label (presenter view) stands as much further from its point
    # families' labels to the upper left, the points' to the lower right: a family's label near a point stays apart
    return dict(x=float(G[0]), y=float(G[1]), z=float(G[2]), text=f"<b>{text}</b>", showarrow=True, arrowhead=0,
                arrowcolor=colour, ax=round((30 if right else -34) * k), ay=round((20 if right else -24) * k),
                # the text darkened to 4.5:1 on its box (label_colour), the border and arrow in the family's colour
                font=dict(color=label_colour(colour), size=size), bgcolor=LABEL_BOX,
                bordercolor=colour, borderwidth=1.5, borderpad=2)


#: the sphere figure's top margin [px] (its two title lines)
SPHERE_MARGIN_T = 56

#: pixels between two labels stacked at (nearly) the same point
LABEL_STEP = 24


def stack_labels(annotations: list[dict[str, Any]], box: Sequence[float]) -> None:
    """Move a label whose point lies within ``box`` (one half-width per coordinate, in data units: about a label's
    size) of an earlier label's point, with its label on the same side, one ``LABEL_STEP`` further out (``ay``), so
    that no label hides another (the planar rod's two rings, at alpha 2.99 and 3, were labelled at the same place
    on both figures)."""
    keys = ("x", "y", "z")[:len(box)]
    placed: list[tuple[NDArray[np.float64], float]] = []
    for a in annotations:
        p = np.array([a[k] for k in keys], float) / np.asarray(box, float)
        ay = a["ay"]
        while any(np.max(np.abs(p - q)) <= 1.0 and np.sign(ay) == np.sign(ay_q) and abs(ay - ay_q) < LABEL_STEP
                  for q, ay_q in placed):
            ay += LABEL_STEP if ay > 0 else -LABEL_STEP
        a["ay"] = ay
        placed.append((p, ay))


#: plotly's 3D view: the vertical field of view of its perspective projection; the sphere's axes span
#: [-AXIS_HALF, AXIS_HALF] and plotly draws that range as a cube of side 1 (scene units, the camera's eye is in them)
FOVY = np.pi / 4
AXIS_HALF = 1.05
#: a label's box as the page draws it (bold 14 px text, 2 px padding, 1.5 px border): width per character and
#: fixed part, height [px]; and the room kept around boxes and points [px]
LABEL_CHAR_PX, LABEL_PAD_PX, LABEL_HEIGHT_PX, LABEL_GAP_PX = 7.6, 8.0, 22.0, 4.0


def project_to_screen(points: ArrayLike, camera: dict[str, Any], plot_height: float) -> NDArray[np.float64]:
    """Where plotly's 3D scene draws ``points`` (n, 3) (data units, axes over [-AXIS_HALF, AXIS_HALF], aspect
    "cube"): pixels from the scene's centre, x to the right and y down, for a scene ``plot_height`` px high seen
    by ``camera`` (``eye``, ``up``, ``center`` as in ``layout.scene.camera``; perspective, field of view FOVY).
    Checked against the page (tests/browser/test_sphere_orientation.py): within 4 px of where it draws them."""
    vec = lambda v: np.array([float(v[k]) for k in "xyz"])  # noqa: E731
    eye, up, centre = vec(camera["eye"]), vec(camera["up"]), vec(camera.get("center", {"x": 0, "y": 0, "z": 0}))
    d = (centre - eye) / np.linalg.norm(centre - eye)  # the direction the camera looks in
    right = np.cross(d, up)
    right /= np.linalg.norm(right)
    upward = np.cross(right, d)  # ``up`` made perpendicular to the line of sight
    q = np.atleast_2d(np.asarray(points, float)) * (0.5 / AXIS_HALF) - centre
    depth = (q - eye + centre) @ d
    f = 0.5 * plot_height / np.tan(FOVY / 2)
    return np.stack([f * (q @ right) / depth, -f * (q @ upward) / depth], axis=1)


def label_size(text: str, px: float = LABEL_PX) -> tuple[float, float]:
    """The size [px] of a label's box (its text without markup, in bold ``px`` px text)."""
    plain = text.replace("<b>", "").replace("</b>", "")
    k = px / LABEL_PX
    return LABEL_CHAR_PX * k * len(plain) + LABEL_PAD_PX, LABEL_HEIGHT_PX * k


def separate_labels(annotations: list[dict[str, Any]], camera: dict[str, Any], plot_height: float) -> None:
    """Move labels of a 3D scene so that, as the page draws them (:func:`project_to_screen`), no label's box
    overlaps another's or covers another label's point: each label in turn (the earlier ones keep their place)
    keeps its offset (``ax``, ``ay``) if it is free, else takes the first free one of the same offset mirrored, then
    1.7 and 2.4 times as far.  On the paper's Fig. 1 sphere "hanging" covered "L2": their points are ~70 px apart
    and their labels leant towards each other."""
    if not annotations:
        return
    P = project_to_screen([[a["x"], a["y"], a["z"]] for a in annotations], camera, plot_height)
    boxes: list[tuple[float, float, float, float]] = []
    g = LABEL_GAP_PX

    def free(i: int, ax: float, ay: float) -> bool:
        w, h = label_size(annotations[i]["text"], annotations[i]["font"]["size"])
        cx, cy = P[i, 0] + ax, P[i, 1] + ay
        box = (cx - w / 2 - g, cy - h / 2 - g, cx + w / 2 + g, cy + h / 2 + g)
        if any(box[0] < b[2] and b[0] < box[2] and box[1] < b[3] and b[1] < box[3] for b in boxes):
            return False
        return not any(box[0] < P[j, 0] < box[2] and box[1] < P[j, 1] < box[3] for j in range(len(P)) if j != i)

    for i, a in enumerate(annotations):
        ax0, ay0 = float(a["ax"]), float(a["ay"])
        tries = [(sx * k * ax0, sy * k * ay0) for k in (1.0, 1.7, 2.4) for sx, sy in ((1, 1), (-1, 1), (1, -1), (-1, -1))]
        ax, ay = next((t for t in tries if free(i, *t)), (ax0, ay0))
        a["ax"], a["ay"] = round(ax), round(ay)
        w, h = label_size(a["text"], a["font"]["size"])
        cx, cy = P[i, 0] + ax, P[i, 1] + ay
        boxes.append((cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2))


def sphere_labels(eq: EquilibriumSet, families: Collection[str] | None = None, camera: dict[str, Any] | None = None,
                  plot_height: float | None = None, label_px: int = LABEL_PX) -> list[dict[str, Any]]:
    """The scene annotations of :func:`equilibria_sphere_figure`: each family drawn and the isolated points (text
    of ``label_px`` px); with ``camera`` and ``plot_height`` (the scene's height in px) no label covers another
    (:func:`separate_labels`)."""
    cols = family_colours(eq)
    e_max = default_e_max(eq)
    out, points = [], []
    for f in eq.curves(+1):
        if families is not None and f.label not in families and f.kind not in families:
            continue
        if f.kind == "axis":  # spins about the rho axis: Gamma stays at the hanging / inverted point (labelled)
            continue
        out.append(_annotation3d(f.Gamma[family_label_index(f, e_max)], family_name(f.label), cols[f.label],
                                right=False, size=label_px))
    for name, colour in (("hanging", HANGING_COLOUR), ("inverted", INVERTED_COLOUR), ("eq38", EQ38_COLOUR)):
        pts = [p for p in eq.isolated if p.family == name][:1]
        for p in pts:
            points.append(_annotation3d(p.Gamma, point_label(name), colour, size=label_px))
    stack_labels(out + points, (0.25, 0.25, 0.25))  # ~50 px on the ~400 px sphere
    if camera is not None and plot_height is not None:
        separate_labels(points + out, camera, plot_height)  # the points' labels keep their place
    return out + points


def _sphere_trace(n: int = 48) -> go.Surface:
    u = np.linspace(0, np.pi, n)
    v = np.linspace(0, 2 * np.pi, 2 * n)
    x = np.outer(np.sin(u), np.cos(v))
    y = np.outer(np.sin(u), np.sin(v))
    z = np.outer(np.cos(u), np.ones_like(v))
    return go.Surface(x=x, y=y, z=z, opacity=0.18, showscale=False, hoverinfo="skip", name="sphere",
                      colorscale=[[0, "#bbbbbb"], [1, "#bbbbbb"]], surfacecolor=np.zeros_like(z),
                      lighting=dict(ambient=0.9, diffuse=0.2, specular=0.0))


def _fmt_vec(v: Iterable[float]) -> str:
    """A vector as the hovers print it: ``(0.5, 0.3, 0.1)``; ``(0,5; 0,3; 0,1)`` where the decimal sign is a comma."""
    sep = "; " if language() in DECIMAL_COMMA else ", "
    return "(" + sep.join(number(x, ".4g") for x in v) + ")"


def _hover(f: Family, idx: NDArray[np.intp]) -> list[str]:
    out = []
    name = family_name(f.label)
    for i in idx:
        a = f.alpha[i]
        out.append(f"{name}<br>alpha = {number(a, '.6g')}<br>mu = ±{number(abs(f.mu[i]), '.6g')}<br>E = "
                   f"{number(f.energy[i], '.6g')}<br>Gamma = {_fmt_vec(f.Gamma[i])}<br>omega_e = ±"
                   f"{_fmt_vec(f.omega[i])}<br>{stability_name(f.stability[i])}")
    return out


def _runs(mask_breaks: NDArray[np.bool_], stable: NDArray[np.bool_]) -> list[tuple[int, int, bool, bool]]:
    """Split indices 0..n-1 into runs of constant ``stable``; extra breaks where ``mask_breaks`` is True
    (a break between i and i+1).  Adjacent runs share their boundary vertex so the line stays connected."""
    n = len(stable)
    runs: list[tuple[int, int, bool, bool]] = []
    start = 0
    for i in range(n - 1):
        if mask_breaks[i]:
            runs.append((start, i + 1, stable[start], False))
            start = i + 1
        elif stable[i + 1] != stable[i]:
            runs.append((start, i + 2, stable[start], True))
            start = i + 1
    runs.append((start, n, stable[start], False))
    return runs


def family_traces(eq: EquilibriumSet, families: Collection[str] | None = None,
                  colorbar: bool = True) -> list[go.Scatter3d]:
    """The Scatter3d traces of the families (see the module docstring)."""
    scale = eq.alpha_scale
    traces = []
    first = True
    for f in eq.curves(+1):
        if families is not None and f.label not in families and f.kind not in families:
            continue
        curves: list[tuple[NDArray[np.float64], Family]]
        if f.kind == "eq7a":  # two-parameter family: draw rotated copies of the meridian
            assert f.axis is not None  # every eq7a family has its axis
            ax = f.axis / np.linalg.norm(f.axis)
            K = np.array([[0, -ax[2], ax[1]], [ax[2], 0, -ax[0]], [-ax[1], ax[0], 0]])
            curves = []
            for th in np.linspace(0, np.pi, 6, endpoint=False):
                R = np.eye(3) + np.sin(th) * K + (1 - np.cos(th)) * K @ K
                curves.append((R, f))
        else:
            curves = [(np.eye(3), f)]
        for R, ff in curves:
            G = ff.Gamma @ R.T
            c = alpha_colour_value(ff.alpha, scale)
            stable = ff.stable
            jump = np.sign(ff.alpha[1:]) * np.sign(ff.alpha[:-1]) < 0  # alpha through +-inf (the (38) point)
            jump &= np.abs(ff.alpha[1:]) > 1.0 / scale
            for s0, s1, st, _joined in _runs(jump, stable):
                idx = np.arange(s0, s1)
                if len(idx) < 2 and not st:
                    continue
                traces.append(go.Scatter3d(
                    x=G[idx, 0], y=G[idx, 1], z=G[idx, 2], mode="lines",
                    line=dict(color=c[idx], colorscale=COLOURSCALE, cmin=-1, cmax=1, width=7 if st else 3,
                              dash="solid" if st else "dash",
                              showscale=bool(colorbar and first),
                              colorbar=dict(title="alpha", tickvals=[-1, -0.5, 0, 0.5, 1],
                                            ticktext=["-inf", f"-1/J2", "0", "1/J2", "+inf"], len=0.6)),
                    name=(_("{name} (stable)") if st else _("{name} (unstable)")).format(name=family_name(ff.label)),
                    legendgroup=ff.label,
                    showlegend=False, hovertext=_hover(ff, idx), hoverinfo="text",
                    meta=dict(family=ff.label, stable=bool(st), kind=ff.kind)))
                first = False
    return traces


def merge_runs(traces: Sequence[go.Scatter3d]) -> list[go.Scatter3d]:
    """Join the run traces of :func:`family_traces` into one trace per line style (stable / unstable): the runs
    follow each other separated by a NaN vertex, ``meta["runs"]`` records each run's family and vertex range."""
    groups: dict[bool, dict[str, Any]] = {}
    for tr in traces:
        st = bool(tr.meta["stable"])
        g = groups.setdefault(st, {"xyz": [], "c": [], "text": [], "runs": [], "first": tr, "scale": False})
        n0 = sum(len(a) for a in g["xyz"])
        if g["xyz"]:  # the gap vertex (the colour of the previous vertex: colours must stay numbers)
            g["xyz"].append(np.full((1, 3), np.nan))
            g["c"].append(g["c"][-1][-1:])
            g["text"].append("")
            n0 += 1
        P = np.column_stack([tr.x, tr.y, tr.z])
        g["xyz"].append(P)
        g["c"].append(np.asarray(tr.line.color, float))
        g["text"].extend(tr.hovertext)
        g["scale"] |= bool(tr.line.showscale)
        g["runs"].append({"family": tr.meta["family"], "kind": tr.meta["kind"], "start": n0, "stop": n0 + len(P)})
    out = []
    for st, g in groups.items():
        P = np.vstack(g["xyz"])
        line = g["first"].line.to_plotly_json()
        line.update(color=np.concatenate(g["c"]), showscale=g["scale"])
        out.append(go.Scatter3d(x=P[:, 0], y=P[:, 1], z=P[:, 2], mode="lines", connectgaps=False, line=line,
                                name=_("stable relative equilibria") if st else _("unstable relative equilibria"),
                                showlegend=False,
                                hovertext=g["text"], hoverinfo="text",
                                meta=dict(stable=st, kind="families", runs=g["runs"])))
    return out


def _point_trace(points: Sequence[EquilibriumPoint], name: str, colour: str, symbol: str, size: int,
                 family: str | None = None) -> go.Scatter3d:
    G = np.array([p.Gamma for p in points])
    text = [f"{name}<br>Gamma = {_fmt_vec(p.Gamma)}<br>omega_e = {_fmt_vec(p.omega)}<br>mu = {number(p.mu, '.6g')}"
            f"<br>E = {number(p.energy, '.6g')}<br>alpha = {number(p.alpha, '.6g')}<br>{stability_name(p.stability)}"
            for p in points]
    return go.Scatter3d(x=G[:, 0], y=G[:, 1], z=G[:, 2], mode="markers", name=name,
                        marker=dict(color=colour, size=size, symbol=symbol, line=dict(color="white", width=1)),
                        hovertext=text, hoverinfo="text", meta=dict(family=family or name))


def selected_trace(point: HasGamma) -> go.Scatter3d:
    """An open black ring marking one equilibrium (anything with a ``Gamma``, e.g. an EquilibriumPoint)."""
    G = np.asarray(point.Gamma, float)
    return go.Scatter3d(x=[G[0]], y=[G[1]], z=[G[2]], mode="markers", name="selected", showlegend=False,
                        marker=dict(size=10, color="rgba(0,0,0,0)", line=dict(color=BLACK, width=3),
                                    symbol="circle-open"),
                        hoverinfo="skip", meta=dict(family="selected"))


def equilibria_sphere_figure(eq: EquilibriumSet, view: str = "3d", families: Collection[str] | None = None,
                             height: int = 520, selected: EquilibriumPoint | None = None,
                             labels: bool = True, label_px: int = LABEL_PX) -> go.Figure:
    """Fig. 1 (b)-(d): the relative equilibria attitudes on S^2.

    Parameters
    ----------
    eq : EquilibriumSet
        From :func:`pendulum_explorer.equilibria.equilibria`.
    view : {"3d", "top", "bottom"}
        Camera preset (case-insensitive): the 3D view has Gamma = -e3 up (as in the paper); "top" looks from
        -e3, "bottom" from +e3.
    families : iterable of str, optional
        Labels (or kinds) of the families to draw; default all.
    height : int
    selected : EquilibriumPoint, optional
        A point to mark with an open ring (:func:`selected_trace`).
    labels : bool
        Name the families (in their colours, :func:`family_colours`) and the isolated points on the sphere.
    label_px : int
        The labels' font size [px] (larger in the dashboard's presenter view); they are kept apart at that size.

    Returns
    -------
    plotly.graph_objects.Figure
    """
    key = view.lower() if isinstance(view, str) else view
    if key not in CAMERAS:
        raise ValueError(f"view must be one of {', '.join(CAMERAS)}; got {view!r}")
    view = key
    fig = go.Figure()
    fig.add_trace(_sphere_trace())
    for tr in merge_runs(family_traces(eq, families)):
        fig.add_trace(tr)
    fig.add_trace(_point_trace([eq.hanging], point_label("hanging"), HANGING_COLOUR, "circle", 7, family="hanging"))
    fig.add_trace(_point_trace([eq.inverted], point_label("inverted"), INVERTED_COLOUR, "circle", 7,
                               family="inverted"))
    fig.add_trace(_point_trace(eq.point("eq38")[:1], point_label("eq38"), EQ38_COLOUR, "diamond", 5,
                               family="eq38"))
    if selected is not None:
        fig.add_trace(selected_trace(selected))
    # no tick labels: on the unit sphere they only repeat -1 ... 1, and two axes' "-1" met at a corner ("−1−1")
    ax = dict(range=[-1.05, 1.05], showbackground=False, zeroline=False, showticklabels=False)
    fig.update_layout(
        height=height, margin=dict(l=0, r=0, t=SPHERE_MARGIN_T, b=0),
        # two short lines: one line of 77 characters was cut off in the presenter view (20 px) at 1024 x 768
        title=dict(text=_("Relative equilibria on S² ({view} view)").format(view=_(VIEW_WORDS[view])) + "<br>"
                   + _("solid = linearly stable, dashed = unstable"),
                   font=dict(size=13)),
        scene=dict(xaxis=dict(title="Γ₁", **ax), yaxis=dict(title="Γ₂", **ax), zaxis=dict(title="Γ₃", **ax),
                   # "orbit": plotly's default drag mode ("turntable") replaces the camera's up vector by +e3,
                   # which drew the 3D view upside down (hanging at the top) and the top/bottom views turned
                   aspectmode="cube", camera=CAMERAS[view], dragmode="orbit",
                   annotations=sphere_labels(eq, families, CAMERAS[view], height - SPHERE_MARGIN_T, label_px)
                   if labels else []),
        legend=dict(x=0.0, y=1.0), uirevision=view)
    return with_description(fig, describe_equilibria(eq, families))


__all__ = ["equilibria_sphere_figure", "family_traces", "merge_runs", "selected_trace", "sphere_labels",
           "family_colours", "family_label_index", "family_name", "FAMILY_NAMES", "stack_labels", "default_e_max", "POINT_LABELS",
           "project_to_screen", "separate_labels", "label_size",
           "CAMERAS", "COLOURSCALE"]
