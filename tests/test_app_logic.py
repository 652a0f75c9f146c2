"""The dashboard's widget-free modules (issue 9): message wording, launches, bodies under another g.  No widgets."""
import base64
from types import SimpleNamespace

import numpy as np
import pytest

from pendulum_explorer import presets
from pendulum_explorer.app import section_text as say
from pendulum_explorer.app.state import Launch
from pendulum_explorer.poincare import PoincareSection, chart_from_sphere
from pendulum_explorer.reduction import attitude_from_gamma


def test_aside_and_cancel_wording():
    assert say.aside_note(None) == ""
    one = SimpleNamespace(launches=[1], E=2.03, drop_note="")
    assert say.aside_note(one) == " (1 trajectory at E = 2.03 J set aside: 'undo' or 'saved levels' brings it back)"
    assert "3 trajectories" in say.aside_note(SimpleNamespace(launches=[1, 2, 3], E=0.0, drop_note="")) and "them back" in \
        say.aside_note(SimpleNamespace(launches=[1, 2, 3], E=0.0, drop_note=""))
    L = lambda i, k: SimpleNamespace(id=i, crossings=np.zeros((k, 3)))  # noqa: E731
    items = [(L(2, 5000), 5000), (L(3, 2264), 5000), (L(4, 0), 5000), (L(5, 0), 5000)]
    assert say.cancelled(items) == "cancelled: kept 2 trajectories (crossings: #2 5000, #3 2264 of 5000); 2 not " \
                                   "started, removed"
    assert say.cancelled([(L(4, 0), 10)]) == "cancelled: kept 0 trajectories (crossings: none); 1 not started, removed"
    assert say.cancelled([(L(4, 10), 10)]) == "cancelled: kept 1 trajectory (crossings: #4 10)"


def test_map_orbit_pole_and_download_wording():
    cm = SimpleNamespace(values=np.array([[1.0, 9.0, np.nan], [2.0, 2.0, 2.0]]), t_total=100.0, threshold=4.0,
                         chaotic_fraction=lambda: 0.2)
    assert say.map_done(cm) == "chaos map 3×2, T = 100 s: 20% of the accessible cells chaotic (Ȳ > 4)"
    assert say.map_cancelled(cm) == "chaos map cancelled: the 3×2 map is kept"
    assert say.map_cancelled(None) == "chaos map cancelled: nothing drawn"
    po = SimpleNamespace(kind="elliptic", k=2, phi=1.5, z=0.25, period=3.5, multipliers=np.array([0.6 + 0.8j, 0.6 - 0.8j]))
    text = say.orbit_found(po, 7)
    assert text.startswith("elliptic periodic orbit (k = 2) at (φ, Γ₃) = (1.50000, 0.25000): period 3.5 s") and \
        "multipliers 0.6+0.8j, 0.6-0.8j; launched as trajectory #7" in text
    assert "the hanging pole" in say.pole_note(0.3, 1.0, (0.3, 0.9999)) and \
        "the inverted pole" in say.pole_note(0.3, -1.0, (0.3, -0.9999))
    html = say.downloads_html([("a.csv", "x,y\n1,2\n", "text/csv")])
    b64 = html.split("base64,")[1].split("'")[0]
    assert base64.b64decode(b64).decode() == "x,y\n1,2\n" and "download='a.csv'" in html


def test_launch_from_seed_and_crossings_in_chunks():
    P = presets.paper_fig2().pendulum
    sec, (G0, w0) = PoincareSection.from_paper_ic(P, 2.03)
    L = Launch.from_seed(5, sec, np.concatenate([G0, w0]), "paper_fig2", "paper", "#123456")
    assert (L.id, L.E, L.mu, L.source, L.colour) == (5, sec.energy, sec.mu, "paper", "#123456")
    np.testing.assert_array_equal(L.Gammadot0, np.cross(G0, w0))
    np.testing.assert_allclose(L.R0.T @ [0, 0, 1.0], G0, atol=1e-14)  # Gamma = R^T e3
    np.testing.assert_array_equal(L.R0, attitude_from_gamma(G0))
    G = sec.crossings((G0, w0), 30).Gamma
    L.add_crossings(G[:10], restart=True)
    L.add_crossings(G[10:])
    np.testing.assert_array_equal(L.crossings, G)
    np.testing.assert_array_equal(L.chart, np.stack(chart_from_sphere(G), -1))
    L.add_crossings(G[:4], restart=True)  # a relaunch starts over
    assert L.crossings.shape == (4, 3) and L.chart.shape == (4, 2)


def test_presets_with_g_keeps_what_the_body_is():
    fig1 = presets.paper_fig1()
    assert presets.preset_of(fig1) == "paper_fig1" and presets.preset_of(presets.paper_fig1(g=3.0)) == "paper_fig1"
    b = presets.with_g(fig1, 3.0)
    assert b.pendulum == presets.paper_fig1(g=3.0).pendulum and b.name == "paper_fig1"
    from pendulum_explorer.bodies import build_body, equivalent_body
    box = build_body("box", [0.2, 0.3, 0.5], m=2.0, pivot=[0.0, 0.0, -0.2], name="custom box")
    assert presets.preset_of(box) is None
    b = presets.with_g(box, 1.62)
    assert b.shape["kind"] == "box" and b.pendulum.g == 1.62 and b.name == "custom box"
    np.testing.assert_allclose(b.pendulum.J, box.pendulum.J, rtol=0, atol=0)
    eqb = equivalent_body(presets.paper_fig2().pendulum, name="custom J")
    assert presets.preset_of(eqb) is None
    b = presets.with_g(eqb, 20.0)
    np.testing.assert_array_equal(b.pendulum.rho, eqb.pendulum.rho)
    assert b.pendulum.g == 20.0 and b.name == "custom J"
    with pytest.raises(ValueError):
        presets.with_g(fig1, -1.0)
