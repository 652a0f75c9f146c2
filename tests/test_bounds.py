"""The one table of bounds (pendulum_explorer.bounds): its entries, and every reader of a bound uses it."""
from __future__ import annotations

import math

import pytest

import pendulum_explorer as pe
from pendulum_explorer import _validate as _v
from pendulum_explorer.bounds import BOUNDS, Bound, bound
from pendulum_explorer.errors import InaccessibleError, InvalidStateError


def test_every_class_range_lies_within_the_library_range():
    for name, b in BOUNDS.items():
        assert b.name == name
        lo, hi = b.range()
        clo, chi = b.range(plausible=True)
        assert lo <= clo <= chi <= hi, name


def test_check_names_the_quantity_and_the_range():
    b = BOUNDS["n_crossings"]
    assert b.check(500.0) == 500 and isinstance(b.check(500.0), int)
    with pytest.raises(InvalidStateError, match=r"crossings per trajectory = 6000 is outside 100 … 5000"):
        b.check(6000, plausible=True)
    for bad in ("1.5", True, None, 10 ** 400, 2.5, math.nan):
        with pytest.raises(InvalidStateError, match="crossings per trajectory"):
            b.check(bad)
    with pytest.raises(KeyError, match="known: "):
        bound("nope")
    assert Bound("x", "x", "m", 0, 1).text() == "0 … 1 m"


def test_readers_take_their_limits_from_the_table():
    from pendulum_explorer import session
    from pendulum_explorer.app import links, plausible
    from pendulum_explorer.integrators import MAX_OMEGA, MIN_SPAN, TAYLOR_TOL_RANGE
    from pendulum_explorer.section import MAX_CROSSINGS, MAX_GRID, MAX_LEVEL, MAX_MAP_TIME, MAX_RETURN_POWER
    assert (_v.RTOL_RANGE, _v.ATOL_RANGE, _v.MAX_STEPS) == (BOUNDS["rtol"].range(), BOUNDS["atol"].range(),
                                                            BOUNDS["max_steps"].high)
    assert (MAX_CROSSINGS, MAX_GRID, MAX_LEVEL, MAX_MAP_TIME, MAX_RETURN_POWER) == (
        BOUNDS["n_crossings"].high, BOUNDS["grid"].high, BOUNDS["E"].high, BOUNDS["map_time"].high, BOUNDS["k"].high)
    assert (MAX_OMEGA, MIN_SPAN, TAYLOR_TOL_RANGE) == (BOUNDS["omega0"].high, BOUNDS["t_final"].low,
                                                     BOUNDS["taylor_tol"].range())
    # the link parser and the dashboard's plausibility checks share the dashboard's ranges: a mass the link
    # accepted (1e-6 kg) used to be refused by the Body tab (1 g at least)
    assert links.BOUNDS["m"] == plausible.MASS_RANGE == BOUNDS["m"].range(plausible=True)
    assert links.BOUNDS["g"][1] == plausible.G_MAX == 300.0
    assert links.BOUNDS["omega0"] == (-1e3, 1e3) and links.DURATION_RANGE == (0.1, 200.0)
    assert (session.MAX_SEEDS, session.MAX_MAP_CELLS, session.MAX_ORBITS) == (1000, 160_000, 100)
    with pytest.raises(links.LinkError, match=r"m must lie in \[0.001, 10000\]"):
        links.parse_query("J=1,0,0,0,1,0,0,0,1&rho=0,0,0.1&m=1e-6")


def test_dashboard_level_range_refuses_a_level_beyond_the_body():
    """E = 1e9 J was accepted on a section whose slider spans -2.08 ... 3.8 J (issue 23, item 7)."""
    from pendulum_explorer.app.plausible import check_plausible_level, level_range
    P = pe.presets.paper_fig2().pendulum
    lo, hi, mu_hi = level_range(P)
    J1 = P.principal_moments[0]
    assert lo == pytest.approx(-P.mgrho_norm) and hi == pytest.approx(P.mgrho_norm + 0.5 * J1 * 1e6)
    assert mu_hi == pytest.approx(J1 * 1e3)
    check_plausible_level(P, 2.03, 0.5)
    with pytest.raises(InaccessibleError, match=r"E = 1e\+09 J is beyond this body's range"):
        check_plausible_level(P, 1e9, 0.0)
    with pytest.raises(InaccessibleError, match="μ = 1e\\+06 kg m²/s is beyond"):
        check_plausible_level(P, 2.0, 1e6)


def test_section_panel_refuses_E_1e9_next_to_the_control():
    from pendulum_explorer.app import build_app
    d = build_app(prewarm=False)
    sec = d.panel("section")
    sec.task.synchronous = True
    before = (sec.section.energy, sec.section.mu)
    sec.E.value = 1e9
    assert (sec.section.energy, sec.section.mu) == before
    assert sec.level_msg.kind == "error" and "E = 1e+09 J is beyond this body's range" in sec.level_msg.text
    assert sec.E.value == pytest.approx(before[0], rel=1e-5)
