"""The Body tab: presets, custom shapes and J/rho, the plausibility checks, the body in use."""
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


def test_default_body_is_fig1(app):
    assert app.state.body.name == "paper_fig1"
    body = app.panel("body")
    assert "0.4486" in body.summary.value  # J1 of Sec. 4.3
    mesh = _fig(body.preview)["data"][0]
    assert mesh["type"] == "mesh3d" and len(mesh["x"]) == len(presets.paper_fig1().mesh.vertices)


def test_preset_updates_figures(app):
    body, sec, eqp = app.panel("body"), app.panel("section"), app.panel("equilibria")
    before_preview = _fig(body.preview)["data"][0]["x"]
    before_V = np.array(sec.region.V)
    body.preset.value = "lagrange_top"
    eqp.task.wait()
    assert app.state.body.name == "lagrange_top"
    after_preview = _fig(body.preview)["data"][0]["x"]
    assert len(after_preview) != len(before_preview) or not np.allclose(after_preview, before_preview)
    # the data table shows the symmetric top's equal moments
    J = app.state.pendulum.principal_moments
    assert abs(J[0] - J[1]) < 1e-12
    assert f"{J[0]:.4g}" in body.summary.value
    # the section chart is redrawn for the new body: its heatmap is the new accessible region
    heat = sec.chart.data[0]
    assert heat.type == "heatmap"
    assert not np.array_equal(np.array(sec.region.V), before_V)
    np.testing.assert_array_equal(np.array(heat.z), np.where(sec.region.accessible, 0.0, 1.0))
    # equilibria: the Lagrange top has the eq7a family; the sphere figure is redrawn
    assert eqp.eq.pendulum == app.state.pendulum
    assert "eq7a" in eqp.eq.labels
    assert len(_fig(eqp.sphere_out)["data"]) > 3


def test_invalid_J_keeps_last_valid_body(app):
    body = app.panel("body")
    sec = app.panel("section")
    good = app.state.body
    V_before = np.array(sec.region.V)
    body.set_J(np.diag([1.0, 0.1, 0.1]), [0, 0, 0.3])  # J1 > J2 + J3: not realizable
    assert app.state.body is good
    # the message sits right under the "use this J, ρ" button
    assert body.J_msg.kind == "error" and "not physically realizable" in body.J_msg.text
    np.testing.assert_array_equal(np.array(sec.region.V), V_before)
    body.set_J(np.diag([0.3, 0.3, -0.1]), [0, 0, 0.3])  # not positive definite
    assert app.state.body is good and "positive definite" in body.J_msg.text
    # a valid custom J is then accepted
    body.set_J(np.diag([0.3, 0.25, 0.1]), [0.0, 0.05, 0.3])
    assert app.state.body is not good
    np.testing.assert_allclose(app.state.pendulum.J, np.diag([0.3, 0.25, 0.1]))
    assert body.J_msg.kind == "ok" and body.J_msg.text == "custom J, ρ in use"


def test_invalid_g_keeps_body_and_says_why_next_to_g(app):
    body = app.panel("body")
    sec = app.panel("section")
    good = app.state.body
    V_before = np.array(sec.region.V)
    for bad in (-3.0, 0.0):
        body.g.value = bad
        assert app.state.body is good
        assert body.g_msg.kind == "error" and "pe-message" in body.g_msg._dom_classes
        assert "g must be > 0" in body.g_msg.text and "g stays at 9.81 m/s²" in body.g_msg.text
        assert body.g.value == 9.81  # the box shows the g in use again
        np.testing.assert_array_equal(np.array(sec.region.V), V_before)
    # a preset chosen afterwards uses the valid g; its message replaces the error beside g
    body.preset.value = "paper_fig2"
    assert app.state.body.name == "paper_fig2" and app.state.pendulum.g == 9.81
    assert body.g_msg.kind == "ok" and body.g_msg.text == "Fig. 2 body (paper) in use"
    body.g.value = 3.71
    assert app.state.pendulum.g == 3.71 and app.state.body.name == "paper_fig2"


def test_body_summary_units_and_custom_J_starts_from_body(app):
    body = app.panel("body")
    so = app.state.pendulum.small_oscillations()
    # l_i = omega_i^2 / (m g) is not a length: its unit is 1/(kg m)
    np.testing.assert_allclose(so["l"], so["frequencies"] ** 2 / (app.state.pendulum.m * app.state.pendulum.g))
    assert "l₁, l₂ (Eq. 24) [1/(kg m)]" in body.summary.value and "l₁, l₂ [m]" not in body.summary.value
    assert "Fig. 1 elliptic cylinder (paper)" in body.summary.value
    assert _fig(body.preview)["layout"]["title"]["text"] == "Fig. 1 elliptic cylinder (paper)"
    body.preset.value = "lagrange_top"
    J = app.state.pendulum.J
    assert body.J["J11"].value == round(float(J[0, 0]), 6) and body.J["J33"].value == round(float(J[2, 2]), 6)
    assert [t.value for t in body.rho] == [round(float(x), 6) for x in app.state.pendulum.rho]
    body._on_apply_J()  # applying the unchanged boxes keeps the same J
    np.testing.assert_allclose(app.state.pendulum.J, J, atol=1e-6)


def test_g_change_ignores_unapplied_J_edit():
    """An invalid J typed but not applied does not block a change of g (it used to rebuild from the boxes)."""
    d = _dash("")
    body = d.panels["body"]
    body.set_J(np.diag([0.3, 0.25, 0.1]), [0.0, 0.05, 0.3])
    J_in_use = np.array(d.state.pendulum.J)
    body.J["J11"].value = 5.0  # pending: J1 > J2 + J3, not applied
    body.g.value = 3.71
    assert d.state.pendulum.g == 3.71 and body.g_msg.kind == "ok"
    np.testing.assert_array_equal(d.state.pendulum.J, J_in_use)
    # the same for a custom shape with pending edits
    body.custom.selected_index = 0
    body._on_apply_shape()
    body.dims[0].value = -1.0
    body.g.value = 9.81
    assert d.state.pendulum.g == 9.81 and body.g_msg.kind == "ok"


def test_one_statement_of_the_body_in_use():
    d = _dash("")
    body = d.panels["body"]
    assert "Fig. 1 elliptic cylinder (paper)" in d.body_in_use.value and body.preset.value == "paper_fig1"
    body.preset.value = "planar"
    body._on_apply_shape()
    # the preset menu no longer names the rod while the custom shape is in use
    assert body.preset.value is None and "custom elliptic_cylinder" in d.body_in_use.value
    assert "Planar" not in d.body_in_use.value and "chosen by the Body tab" in d.body_in_use.value
    body.preset.value = "lagrange_top"
    assert "Symmetric (Lagrange) top" in d.body_in_use.value


def test_body_change_from_section_is_announced():
    d = _dash("")
    d.show("section")
    sec = d.panels["section"]
    sec.task.synchronous = True
    sec.paper_preset(2.03, n=60)
    text = "Fig. 2 body (paper) (chosen by the Poincaré section's paper Fig. 2 presets)"
    assert text in d.msg.text and d.msg.kind == "info"
    body = d.panels["body"]
    assert body.msg.kind == "info" and "Fig. 2 body (paper) in use (chosen by the Poincaré section" in body.msg.text
    assert "the Poincaré section's paper Fig. 2 presets" in d.body_in_use.value


@pytest.mark.parametrize("kind, words", [("box", "a dimension = 1e+09 m is outside"),
                                         ("rho", "|ρ| = 1e-12 m is outside"),
                                         ("mass", "the mass = 1e+06 kg is outside")])
def test_implausible_bodies_are_refused_with_a_message(kind, words):
    d = _dash("")
    body = d.panels["body"]
    good = d.state.body
    if kind == "box":
        body.shape_kind.value = "box"
        for t in body.dims:
            t.value = 1e9
        body._on_apply_shape()
        msg = body.shape_msg
    elif kind == "mass":
        body.mass.value = 1e6
        body._on_apply_shape()
        msg = body.shape_msg
    else:
        body.set_J(np.diag([0.3, 0.25, 0.1]), [0.0, 0.0, 1e-12])
        msg = body.J_msg
    assert d.state.body is good and msg.kind == "error" and words in msg.text


def test_a_J_that_no_rigid_body_has_is_refused_next_to_its_control():
    """J = I about the pivot with m = 10 kg and |rho| = 1 m: the inertia about the centre of mass would be
    diag(-9, -9, 1) kg m².  The page used it, drew a sphere and called it "the ellipsoid with the same inertia";
    now the custom-J box says why no body has it and the body in use stays.  A J that a body has is used."""
    d = _dash("")
    body = d.panels["body"]
    good = d.state.body
    body.set_J(np.eye(3), [0.0, 0.0, 1.0], m=10.0)
    assert d.state.body is good and body.J_msg.kind == "error"
    assert "no rigid body of mass 10 kg with its centre of mass 1 m from the pivot has this J" in body.J_msg.text
    assert "principal moments (-9, -9, 1) kg m²" in body.J_msg.text
    body.set_J(np.eye(3), [0.0, 0.0, 0.3], m=1.0)  # about the centre of mass: diag(0.91, 0.91, 1)
    assert d.state.body is not good and d.state.body.pendulum.m == 1.0 and body.J_msg.kind == "ok"
    assert "ellipsoid with the same inertia" in d.state.body.description


def test_equilibria_of_a_non_generic_body_in_words():
    """Issue 11 item 5 for the Fig. 2 body (and the planar rod and the Lagrange top: rho on a principal axis): the
    family checkboxes, the menu, the 'along' caption, the details and the message said "axis-hanging",
    "eq41-p1"; now words, with the paper's equation as a reference."""
    d = _dash("preset=paper_fig2&tab=equilibria")
    eqp = d.panel("equilibria")
    eqp.task.synchronous = True
    eqp.compute()
    boxes = [cb.description for cb in eqp._fam_boxes.values()]
    assert sorted(boxes) == ["hanging spin", "inverted spin", "ring 1", "ring 3"]
    # the longer names wrap to a second row instead of squeezing the row's label ("fami" at 1024 x 768, presenter)
    assert eqp.families.layout.flex_flow == "row wrap" and eqp.families.children[0].layout.flex == "0 0 auto"
    menu = [t for t, _ in eqp.family.options]
    assert "ring 1: a ring of steady spins, all at α = 3.57 (paper Eq. 41)" in menu
    assert "hanging spin: spins about the pivot–centre-of-mass line, hanging" in menu
    eqp.family.value = [v for t, v in eqp.family.options if t.startswith("ring 1")][0]
    shown = " ".join([eqp.msg.text, eqp.along_info.value, eqp.details.value] + menu)
    assert "eq41" not in shown and "axis-" not in shown and "ring 1" in eqp.along_info.value
    assert "ring 1" in eqp.details.value


def test_g_change_keeps_the_unapplied_J_edit():
    """Issue 11 item 6 (no hidden coupling between pending edits): a J, rho typed but not applied stayed in the
    boxes only until g changed: the new g refilled them from the body in use and the typed values were gone.  A g
    change leaves them; 'use this J, ρ' then applies them with the new g; reset restores the start values."""
    d = _dash("")
    body = d.panels["body"]
    body.J["J11"].value = 0.46  # typed, not applied
    body.rho[0].value = 0.02
    body.g.value = 3.71
    assert d.state.pendulum.g == 3.71 and body.J["J11"].value == 0.46 and body.rho[0].value == 0.02
    body._on_apply_J()
    assert body.J_msg.kind == "ok", body.J_msg.text
    assert d.state.pendulum.J[0, 0] == 0.46 and d.state.pendulum.rho[0] == 0.02 and d.state.pendulum.g == 3.71
    body.J["J11"].value = 0.45  # typed again; reset brings the start values back
    d.reset()
    J0 = presets.paper_fig1().pendulum
    assert body.J["J11"].value == round(float(J0.J[0, 0]), 6) and body.rho[0].value == round(float(J0.rho[0]), 6)
    body.preset.value = "planar"  # another body: the boxes start from it
    assert body.J["J11"].value == round(float(presets.planar().pendulum.J[0, 0]), 6)
