"""The section tab's periodic-orbit layers (issue 21): "find periodic orbit" → "follow in E" (the bifurcation
diagram under the chart with the library's bifurcation energies, the family's span on the band under the E slider,
its member drawn at a new E) and "draw manifolds" (the stable and unstable manifolds over the crossings; an
elliptic orbit refused next to the button)."""
import math

import numpy as np
import pytest

import pendulum_explorer as pe
from pendulum_explorer.app import section_orbits as so
from pendulum_explorer.plotting.colours import BLUE, VERMILLION
from pendulum_explorer.poincare import PoincareSection

from app_helpers import _fig, app  # noqa: F401

ELL_CLICK = (math.pi / 2 + 0.03, 0.93)  # 0.04 from the E = 11.95 island centre (pi/2, 0.96099)
HYP_CLICK = (math.pi / 2 + 0.03, 0.54)  # 0.04 from the hyperbolic orbit (pi/2, 0.51180)


def _find(sec, click):
    sec.po_mode.value = True
    sec._on_chart_click(*click)
    sec.po_mode.value = False
    return sec.orbits[-1]


def _chart_traces(sec, name):
    return [t for t in _fig(sec.chart)["data"] if t.get("name") == name]


def test_follow_in_E_draws_the_diagram_the_span_and_the_member_at_a_new_E(app):
    sec = app.panel("section")
    sec.paper_preset(11.95, n=50)
    po = _find(sec, ELL_CLICK)
    assert po.kind == "elliptic" and abs(po.z - 0.96099153) < 1e-7
    assert sec.orbit_layers.diagram.layout.display == "none"
    sec.orbit_layers.follow()
    fams = sec.orbit_layers.families
    assert sec.task.last_error is None and len(fams) == 2
    # the library's families from this orbit, computed here the same way: the diagram shows their bifurcations
    lo = sec.region.energy_min
    ref = [pe.continue_periodic_orbit(pe.find_periodic_orbit(sec.section, ELL_CLICK), end, max_step=so.FOLLOW_STEP,
                                      max_points=so.FOLLOW_POINTS)
           for end in (lo, lo + so.FOLLOW_TOP * sec.section.pendulum.mgrho_norm)]
    want = sorted(b.E for f in ref for b in f.bifurcations)
    assert want[0] == pytest.approx(1.6903708, abs=1e-6) and want[1] == pytest.approx(3.7500808581, abs=1e-8)
    fig = _fig(sec.orbit_layers.diagram)
    assert sec.orbit_layers.diagram.layout.display == ""
    drawn = sorted(x for t in fig["data"] if t.get("name") == "period-doubling" for x in t["x"])
    np.testing.assert_allclose(drawn, want, atol=1e-9)
    assert any(s.get("type") == "line" and s["x0"] == 11.95 for s in fig["layout"].get("shapes", []))  # E marked
    a, b = min(min(f.E) for f in ref), max(max(f.E) for f in ref)
    note = sec.orbit_layers.note.text
    assert sec.orbit_layers.note.kind == "ok" and f"{a:.4g} ≤ E ≤ {b:.4g} J" in note
    assert "period-doubling at 3.7500809 J" in note and "period-doubling at 1.6903708 J" in note
    assert sec.orbit_layers.band.layout.visibility == "visible" and "background:#0072B2" in sec.orbit_layers.band.value
    # E moves inside the span: the member at E = 8 is drawn on the chart, the finder's fixed point there
    sec.E.value = 8.0
    assert sec.section.energy == 8.0 and sec.section.mu == po.mu
    (tr,) = _chart_traces(sec, "member of the followed family")
    ref8 = pe.find_periodic_orbit(PoincareSection(sec.section.pendulum, 8.0, po.mu), (math.pi / 2, 0.95))
    assert abs(tr["x"][0] - ref8.phi) < 1e-8 and abs(tr["y"][0] - ref8.z) < 1e-8
    assert "E = 8 J" in sec.orbit_layers.note.text and "elliptic" in sec.orbit_layers.note.text
    assert any(s["x0"] == 8.0 for s in _fig(sec.orbit_layers.diagram)["layout"]["shapes"])
    # outside the span: no member, the note says so; another mu drops the family
    sec.E.value = round(b + 5.0, 3)
    assert not _chart_traces(sec, "member of the followed family") and "outside the family's span" in \
        sec.orbit_layers.note.text
    sec.mu.value = 0.5
    assert sec.orbit_layers.families == [] and sec.orbit_layers.diagram.layout.display == "none"
    assert sec.orbit_layers.band.layout.visibility == "hidden"


def test_follow_in_E_without_an_orbit_says_so_and_cancel_keeps_the_members_so_far(app):
    sec = app.panel("section")
    sec.paper_preset(11.95, n=50)
    sec.orbit_layers.follow()
    assert sec.orbit_layers.note.kind == "error" and "find a periodic orbit first" in sec.orbit_layers.note.text
    sec.orbit_layers.draw_manifolds()
    assert sec.orbit_layers.note.kind == "error" and sec.orbit_layers.families == []
    _find(sec, ELL_CLICK)
    progress = sec.task.progress
    calls = []
    sec.task.progress = lambda f, text=None: (calls.append(f), progress(f, text),
                                              len(calls) >= 4 and sec.task.cancel())
    sec.orbit_layers.follow()
    fams = sec.orbit_layers.families
    assert len(fams) == 1 and fams[0].stop == "cancelled" and len(fams[0]) == 5
    assert "cancelled" in sec.orbit_layers.note.text and sec.task.last_error is None
    assert sec.orbit_layers.diagram.layout.display == ""


def test_draw_manifolds_of_the_hyperbolic_orbit_and_refused_for_an_elliptic_one(app):
    sec = app.panel("section")
    sec.paper_preset(11.95, n=50)
    ell = _find(sec, ELL_CLICK)
    sec.orbit_layers.draw_manifolds()  # elliptic: refused next to the button, nothing drawn
    assert ell.kind == "elliptic" and sec.orbit_layers.note.kind == "error"
    assert "elliptic" in sec.orbit_layers.note.text and "hyperbolic" in sec.orbit_layers.note.text
    assert not _chart_traces(sec, "stable manifold of the period-1 orbit")
    hyp = _find(sec, HYP_CLICK)
    assert hyp.kind == "hyperbolic" and abs(hyp.z - 0.5117982429) < 1e-8
    sec.orbit_layers.draw_manifolds()
    m = sec.orbit_layers.manifolds
    assert sec.task.last_error is None and m is not None and m.n_maps <= so.MANIFOLD_MAX_MAPS
    (st,) = _chart_traces(sec, "stable manifold of the period-1 orbit")
    (un,) = _chart_traces(sec, "unstable manifold of the period-1 orbit")
    assert st["line"]["color"] == BLUE and un["line"]["color"] == VERMILLION and st["mode"] == un["mode"] == "lines"
    # the curves drawn are invariant: points of the unstable one map onto it (the library's measure, 8e-6 at
    # max_gap = 0.01), and the stable one starts at the orbit
    assert pe.manifolds.invariance_error(m, n=40) < 1e-4
    x = np.array(un["x"], dtype=float)
    assert np.nanmax(np.abs(x)) <= math.pi
    assert np.isfinite(x).sum() == sum((np.isfinite(b[:, 0]) & (np.abs(b[:, 1]) <= 0.99)).sum()
                                   for b in m.unstable)  # all the points but those in the polar caps
    assert math.hypot(st["x"][0] - hyp.phi, st["y"][0] - hyp.z) < 1e-5
    # branches of length 2 cross in the chart only where they run within 1e-5 of each other (test_manifolds):
    # no homoclinic point, none drawn
    assert m.homoclinic.shape == (0, 2) and not _chart_traces(sec, "homoclinic points")
    assert sec.orbit_layers.note.kind == "ok" and sec.orbit_layers.note.text.endswith("): 0 homoclinic points")
    assert f"{m.multipliers[0]:.4g}" in sec.orbit_layers.note.text
    # follow in E from the hyperbolic orbit: down, the family stops at a grazing crossing (E = 4.1084) and goes on
    # as a fixed point of P^2 (the library's continue_across), which turns at a fold at E = 3.75008, where the
    # elliptic family period-doubles (test_follow_in_E_...: 3.7500808581)
    sec.orbit_layers.follow()
    fams = sec.orbit_layers.families
    assert [f.orbits[0].k for f in fams] == [1, 2, 1] and fams[0].stop == "return map not smooth"
    ref = pe.orbit_families.continue_across(fams[0], sec.region.energy_min, max_step=so.FOLLOW_STEP,
                                            max_points=so.FOLLOW_POINTS)
    folds = [b.E for b in ref.bifurcations if b.kind == "fold"]
    assert folds and folds[0] == pytest.approx(3.75008, abs=1e-5)
    drawn = [x for t in _fig(sec.orbit_layers.diagram)["data"] if t.get("name") == "fold" for x in t["x"]]
    np.testing.assert_allclose(drawn, folds, atol=1e-9)
    assert "across a grazing crossing at E = 4.108 J it goes on as a fixed point of P^2" in sec.orbit_layers.note.text
    # a new level: the manifolds belong to the old one
    sec.E.value = 11.9
    assert not _chart_traces(sec, "unstable manifold of the period-1 orbit")
