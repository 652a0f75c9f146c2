"""The Equilibria tab: the families in words, choosing a point and launching nearby."""
import base64
import csv
import io
import json
import numpy as np
import pytest
from pendulum_explorer import presets
from pendulum_explorer.app import build_app
from pendulum_explorer.app.common import Messages, figure_bundle
from pendulum_explorer.poincare import PoincareSection, chart_from_sphere, sphere_from_chart

from app_helpers import (_accessible_point, _contrast_on_white, _dash, _decode, _fig, _fresh_process_lines, _level_snapshot, app, build_query_of)  # noqa: F401


def test_launch_nearby_before_the_section_tab_was_opened():
    """The section panel is built on first use: "launch nearby" from a fresh page builds it, launches there and
    opens the Motion tab (the browser test found no launch: the section panel did not exist yet)."""
    d = _dash("")
    eqp = d.panel("equilibria")
    eqp.task.synchronous = True
    eqp.compute()
    assert "section" not in d.panels
    eqp.family.value = ("iso", 0)
    eqp.launch_nearby()
    assert "section" in d.panels and [L.source for L in d.state.launches] == ["nearby"]
    assert d.tabs.selected_index == 3 and d.panels["motion"].choice.value == d.state.launches[0].id


def test_equilibria_select_and_launch_nearby(app):
    eqp = app.panel("equilibria")
    eqp.family.value = ("iso", 0)
    p = eqp.selected()
    assert p.family == "hanging" and "hanging" in eqp.details.value
    assert "eigenvalues" in eqp.details.value
    E, mu = eqp.launch_nearby()
    sec = app.panel("section")
    assert sec.section.energy == pytest.approx(E) and sec.section.mu == pytest.approx(mu)
    L = app.state.launches[-1]
    assert L.source == "nearby"
    # issue 23 item 6: the Motion tab opens, playing it, with a tilt the body view shows (0.02 rad gave
    # ω ≈ 0.05 rad/s: the body looked frozen)
    mot = app.panels["motion"]
    assert app.tabs.selected_index == 3 and mot.choice.value == L.id and mot.trajectory is not None
    G = mot.trajectory.Gamma
    tilt = np.arccos(np.clip(G @ (p.Gamma / np.linalg.norm(p.Gamma)), -1, 1))
    assert eqp.eps.value == 0.1 and tilt.max() >= 0.099 and np.abs(mot.trajectory.omega).max() > 0.2, (
        tilt.max(), np.abs(mot.trajectory.omega).max())


def test_equilibria_in_words_and_nearby_on_stable_L2_is_interpretable():
    """The menu names points and families in words, the 'along' slider says where on the family it is (alpha),
    and 'launch nearby' on a stable L2 point shows the chart around the point (its crossings in view, not one
    dot on a grey page) and says what happened."""
    d = _dash("")
    d.show("equilibria")
    eqp = d.panels["equilibria"]
    eqp.task.synchronous = True
    eqp.compute()
    labels = [o[0] for o in eqp.family.options]
    assert labels[:3] == ["hanging at rest (straight down)", "inverted at rest (balanced upside down)",
                          "Eq. 38 spin (where L1 passes through α = ±∞)"]
    # short enough for the menu at 1024 px (L1's 117 characters were cut); the start is said under the slider
    assert "L2: steady spins, α 0 … 2.23" in labels and "L1: steady spins, α < 0 and α > 13.2" in labels
    assert max(len(t) for t in labels) <= 60, labels
    assert not any("isolated" in t or "spin +" in t for t in labels)
    eqp.family.value = dict(eqp.family.options)[labels[0]]
    assert "stable: a small push only makes it wobble (elliptic-elliptic)" in eqp.details.value
    eqp.family.value = [v for t, v in eqp.family.options if t.startswith("L2")][0]
    p = eqp.selected()
    assert p.family == "L2" and p.stability == "elliptic-elliptic"
    assert "the family runs α 0 … 2.23; one end is the body hanging at rest, α = 0;" in eqp.along_info.value
    assert f"point {eqp.index.value + 1} of 218 along L2: α = {p.alpha:.4g}" in eqp.along_info.value
    d.panels.get("section") or d.panel("section")
    d.panels["section"].task.synchronous = True
    E, mu = eqp.launch_nearby()
    sec = d.panels["section"]
    assert sec.region.area_fraction < 0.05 and d.tabs.selected_index == 3  # the Motion tab plays it
    L = d.state.launches[-1]
    assert L.source == "nearby" and len(L.crossings) == 500
    lay = _fig(sec.chart)["layout"]
    (x0, x1), (z1, z0) = lay["xaxis"]["range"], lay["yaxis"]["range"]
    # zoomed onto the point (the whole chart is 2 pi x 2; the window is ~4 tilts wide: 0.91 x 0.71 at 0.1 rad)
    assert x1 - x0 < 1.2 and z1 - z0 < 0.9
    phi, z = chart_from_sphere(L.crossings)
    assert np.all((x0 < phi) & (phi < x1) & (z0 < z) & (z < z1))  # every crossing in view
    # the window is shaded on a grid of its own: every crossing lies on a white (accessible) cell of it
    heat = [t for t in _fig(sec.chart)["data"] if t["type"] == "heatmap"][0]
    hx, hy, hz = np.array(heat["x"]), np.array(heat["y"]), np.array(heat["z"])
    assert hx.min() >= x0 - 1e-12 and hx.max() <= x1 + 1e-12 and len(hx) >= 121  # + columns across V_mu = E
    ix = np.abs(hx[None, :] - phi[:, None]).argmin(1)
    iz = np.abs(hy[None, :] - z[:, None]).argmin(1)
    assert hz[iz, ix].mean() < 0.05
    assert eqp.msg.kind == "ok" and "It is stable, so the motion stays close to it" in eqp.msg.text
    assert "reset axes" in eqp.msg.text


@pytest.mark.parametrize("preset, point, crossings, pct", [("planar", "hanging at rest", 0, "only <1% of"),
                                                           ("paper_fig2", "inverted at rest", 0, "(>99%,"),
                                                           ("paper_fig1", "inverted at rest", 500, "(>99%,"),
                                                           ("paper_fig1", "hanging at rest", 500, "only <1% of")])
def test_launch_nearby_explains_an_empty_section(preset, point, crossings, pct):
    """Issue 11 item 5: "launch nearby" on the rest points of the bodies with rho on a principal axis gives a swing
    in a vertical plane through the pole: no point on the section.  The message said "every return lands near the
    equilibrium, tracing a small loop" (or "its returns spread over ... (1e+02%)"); now it says that the section
    shows no point and why, and the percentages read as percentages."""
    d = _dash(f"preset={preset}")
    d.show("equilibria")
    eqp = d.panel("equilibria")
    eqp.task.synchronous = True
    eqp.compute()
    d.panel("section").task.synchronous = True
    eqp.family.value = [v for t, v in eqp.family.options if t.startswith(point)][0]
    eqp.launch_nearby()
    L = d.state.launches[-1]
    assert L.source == "nearby" and len(L.crossings) == crossings
    text = eqp.msg.text
    assert "e+0" not in text
    sec_text = d.panels["section"].msg.text
    if crossings == 0:
        assert "The Poincaré section shows no point of this motion" in text and "Motion tab" in text
        assert "every return" not in text and "returns spread" not in text and eqp.msg.kind == "info"
        # the section tab says why too (it said "trajectory #1: 0 crossings ...; open the Motion tab to watch it")
        assert f"trajectory #{L.id} (E = " in sec_text and "no crossing — the motion did not come back" in sec_text
        assert "s, so the computation stopped" in sec_text and "a planar swing" in sec_text
        assert "0 crossings" not in sec_text and "e+0" not in sec_text and d.panels["section"].msg.kind == "info"
    else:
        assert "shows no point" not in text and eqp.msg.kind == "ok" and pct in text
        assert f"trajectory #{L.id}: 500 crossings" in sec_text
    # a later click on the section does not bring the note back
    eqp.msg.clear()
    sec = d.panels["section"]
    sec.launch_seed(L.crossings[0] if len(L.crossings) else (L.Gamma0, L.omega0), source="nearby")
    assert eqp.msg.text == ""


def test_launch_nearby_whose_returns_lie_at_the_poles_says_why():
    """Fig. 1 body, L1 near the Eq. 38 spin (E = 7.398 J, focus-focus): the motion turns over between nearly upside
    down and nearly hanging, so its returns lie along the chart's top and bottom edges.  The message said they
    "spread over the reachable part of the sphere (100%, white in the section)" while the white region stayed
    blank."""
    d = _dash("")
    d.show("equilibria")
    eqp = d.panel("equilibria")
    eqp.task.synchronous = True
    eqp.compute()
    d.panel("section").task.synchronous = True
    fam = [v for t, v in eqp.family.options if t.startswith("L1")][0]
    eqp.family.value = fam
    eqp.index.value = int(np.argmin(np.abs(eqp.eq.families[fam[1]].energy - 7.398)))
    assert eqp.selected().stability == "focus-focus"
    eqp.launch_nearby()
    L = d.state.launches[-1]
    z = np.abs(L.chart[:, 1])
    from pendulum_explorer.app.equilibria_text import POLE_SHARE, POLE_Z

    assert len(z) == 500 and np.mean(z > POLE_Z) >= POLE_SHARE  # the motion's returns, as the page draws them
    text = eqp.msg.text
    assert "Its 500 returns lie along the top and bottom edges of the chart" in text and "of Γ₃ = ±1" in text
    assert "spread over" not in text and eqp.msg.kind == "info"
    # a stable point's loop and an unstable point whose returns do spread say nothing of the kind
    from pendulum_explorer.app import equilibria_text as eqsay

    assert eqsay.nearby_at_poles(np.c_[np.linspace(-3, 3, 50), np.linspace(-0.8, 0.8, 50)]) == ""
    assert eqsay.nearby_at_poles(np.zeros((0, 2))) == ""
