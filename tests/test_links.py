"""Deep links (issue 11): the query-string parser, without widgets."""
import math

import pytest

from pendulum_explorer import presets
from pendulum_explorer.app.links import (MAX_QUERY, PRESET_NAMES, TAB_KEYS, LinkError, ViewLink, build_query,
                                         parse_query)


def test_presets_and_tabs_match_the_dashboard():
    assert set(PRESET_NAMES) == set(presets.PRESETS)
    from pendulum_explorer.app import TABS

    assert TAB_KEYS == tuple(k for k, _ in TABS)


def test_full_link_parses():
    link = parse_query("?preset=paper_fig2&tab=section&E=2.03&launch=0.5,0.3;-1.25,-0.1&presenter=1")
    assert link == ViewLink(preset="paper_fig2", tab="section", E=2.03, launch=((0.5, 0.3), (-1.25, -0.1)),
                            presenter=True)
    custom = parse_query("J=0.3,0,0,0,0.25,0,0,0,0.1&rho=0,0.05,0.3&m=2&g=3.71&E=-1.5e0&mu=0.2")
    assert custom.J == (0.3, 0, 0, 0, 0.25, 0, 0, 0, 0.1) and custom.rho == (0, 0.05, 0.3)
    assert (custom.m, custom.g, custom.E, custom.mu) == (2.0, 3.71, -1.5, 0.2)
    # percent-encoded separators are decoded once
    assert parse_query("launch=0.5%2C0.3%3B1%2C0").launch == ((0.5, 0.3), (1.0, 0.0))


def test_server_parameters_are_ignored():
    """Jupyter's token (Binder), Voila's template/theme: not ours, no message."""
    assert parse_query("token=abc123&voila-template=lab&theme=dark&tab=motion") == ViewLink(tab="motion")


@pytest.mark.parametrize("q", [None, "", "?", "&&", "token=0123abcd"])
def test_empty_is_default(q):
    assert parse_query(q).is_default


@pytest.mark.parametrize("q, words", [
    ("preset=__import__('os')", "preset must be one of"),
    ("tab=settings", "tab must be one of body | equilibria | section | motion"),
    ("E=1e400", "E must lie in"),
    ("E=nan", "plain decimal number"),
    ("E=inf", "plain decimal number"),
    ("E=0x10", "plain decimal number"),
    ("E=2*3", "plain decimal number"),
    ("E=1_000", "plain decimal number"),
    ("mu=0.1", "mu needs E"),
    ("J=1,0,0,0,1,0,0,0", "J takes 9 comma-separated numbers; got 8"),
    ("J=1,0,0,0,1,0,0,0,1", "both J (9 numbers) and rho"),
    ("preset=planar&J=1,0,0,0,1,0,0,0,1&rho=0,0,1", "either preset or J"),
    ("rho=0,0,1e9&J=1,0,0,0,1,0,0,0,1", "rho must lie in"),
    ("launch=0.5", "one pair"),
    ("launch=0.5,1.5", "Gamma3 must lie in [-1, 1]"),
    ("launch=" + ";".join(["0,0"] * 21), "at most 20"),
    ("presenter=yes", "presenter must be 1 or 0"),
    ("E=1&E=2", "given twice"),
    ("evil=1", "unknown link parameter"),
    ("E", "has no value"),
    ("<script>=1", "unknown link parameter"),
    ("a=1&" * 13, "unknown link parameter 'a'"),
    ("E=1&" * 24, "the link has 24 parameters; at most 16"),
    ("E=" + "1" * 700, "too long"),
    ("omega0=1,2", "omega0 takes 3 comma-separated numbers; got 2"),
    ("omega0=1,nan,0", "plain decimal number"),
    ("omega0=0,0,1e4", "omega0 must lie in"),
    ("T=500", "T must lie in [0.1, 200]"),
    ("T=0", "T must lie in"),
    ("tilt=200", "tilt must lie in [-180, 180]"),
    ("tilt=30deg", "plain decimal number"),
    ("tilt=nan", "plain decimal number"),
    ("axis=space-1", "axis belongs to a tilted start"),
    ("tilt=30&axis=e3", "axis must be one of space-1 | space-2 | body-1 | body-2 | body-3"),
    ("tilt=30&axis=space-1&axis=body-1", "given twice"),
    ("damping=-0.1", "damping must lie in [0, 100]"),
    ("damping=1e3", "damping must lie in [0, 100]"),
    ("damping=0.2,0.3", "plain decimal number"),
    ("unit=deg/s", "unit must be one of rad/s | rev/s"),
    ("x" * (MAX_QUERY + 1), "too long"),
])
def test_bad_links_name_the_problem(q, words):
    with pytest.raises(LinkError, match=None) as err:
        parse_query(q)
    assert words in str(err.value)
    assert isinstance(err.value, ValueError)


def test_message_shows_a_bounded_printable_value():
    with pytest.raises(LinkError) as err:
        parse_query("preset=" + "%0A" * 50 + "x" * 500)
    text = str(err.value)
    assert "\n" not in text and len(text) < 200


def test_round_trip():
    link = ViewLink(J=(0.3, 0.01, 0, 0.01, 0.25, 0, 0, 0, 0.1), rho=(0, 0.05, 0.3), m=1.5, g=9.81, tab="section",
                    E=1.234567, mu=-0.5, launch=((math.pi, 1.0), (-math.pi, -0.999999)), presenter=True)
    back = parse_query(build_query(link))
    assert back.J == link.J and back.rho == link.rho and (back.m, back.g, back.E, back.mu) == (1.5, 9.81, 1.234567, -0.5)
    assert back.tab == "section" and back.presenter
    assert [(round(p, 6), z) for p, z in back.launch] == [(3.141593, 1.0), (-3.141593, -0.999999)]
    assert parse_query(build_query(ViewLink(preset="planar", tab="motion"))) == ViewLink(preset="planar", tab="motion")


def test_motion_parameters():
    """omega0 and T: the Motion tab's motion from R0 = I (a lesson's link opens the motion it talks about)."""
    link = parse_query("preset=planar&omega0=5.42,0,-0.5e-1&T=6")
    assert link.omega0 == (5.42, 0.0, -0.05) and link.T == 6.0 and link.tab is None
    assert parse_query(build_query(link)) == link


def test_start_and_damping_parameters():
    """tilt (degrees), axis, damping and unit: the Motion tab's start "released tilted θ from hanging", its damping
    and the unit of its ω₀ boxes (issue 23, part 2); before, a link could not hold them."""
    link = parse_query("preset=paper_fig1&tilt=-42.5&axis=body-2&damping=0.2&unit=rev%2Fs&T=8")
    assert (link.tilt, link.axis, link.damping, link.unit, link.T) == (-42.5, "body-2", 0.2, "rev/s", 8.0)
    assert link.motion and link.omega0 is None and link.tab is None
    assert parse_query(build_query(link)) == link
    assert parse_query("tilt=30").axis is None and parse_query("damping=0").damping == 0.0
    assert parse_query("unit=rev/s").unit == "rev/s"  # the slash as it is, too
    for q in ("tilt=30", "damping=0.5", "unit=rad/s"):
        assert parse_query(q).motion
    assert not parse_query("preset=planar&tab=motion").motion
    # every parameter at once, a custom body: within MAX_PARAMS
    full = ViewLink(J=(0.3, 0, 0, 0, 0.25, 0, 0, 0, 0.1), rho=(0, 0.05, 0.3), m=2.0, g=3.71, tab="motion", E=1.0,
                    mu=0.1, launch=((0.5, 0.3),), presenter=True, omega0=(1.0, 0.0, 0.0), T=5.0, tilt=30.0,
                    axis="space-2", damping=0.5, unit="rev/s", lang="de")
    assert parse_query(build_query(full)) == full


def test_axis_and_unit_keys_match_the_motion_tab():
    from pendulum_explorer.app.links import AXIS_KEYS, UNIT_KEYS
    from pendulum_explorer.app.motion_controls import AXES, OMEGA_UNITS, MotionStart

    assert AXIS_KEYS == tuple(AXES) == tuple(v for _, v in MotionStart().axis.options)
    assert UNIT_KEYS == tuple(OMEGA_UNITS)
