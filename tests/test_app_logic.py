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
    # a cancelled fill of 60: the complete ones as one run (every one was listed, beyond the message slot)
    fill = [(L(i, 5000 if i < 30 else (1234 if i == 30 else 0)), 5000) for i in range(1, 61)]
    assert say.cancelled(fill) == "cancelled: kept 30 trajectories (crossings: #1–#29 5000 each, #30 1234 of " \
                                  "5000); 30 not started, removed"
    gaps = [(L(1, 500), 500), (L(2, 500), 500), (L(3, 10), 500), (L(4, 500), 500), (L(6, 900), 900)]
    assert say.cancelled(gaps) == "cancelled: kept 5 trajectories (crossings: #1–#2 500 each, #3 10 of 500, #4 500, " \
                                  "#6 900)"


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


def test_equilibrium_point_tilted_and_family_point():
    from pendulum_explorer.equilibria import equilibria
    P = presets.paper_fig1().pendulum
    eq = equilibria(P)
    fam = [f for f in eq.families if len(f) > 4][0]
    p = fam.point(3)
    np.testing.assert_array_equal(p.Gamma, fam.Gamma[3])
    assert (p.mu, p.energy, p.family, p.branch) == (fam.mu[3], fam.energy[3], fam.label, fam.branch)
    assert fam.point(10 ** 6).alpha == fam.alpha[-1]  # clipped to the family
    G1, w1 = p.tilted(0.02)
    assert np.linalg.norm(G1) == pytest.approx(1.0, abs=1e-15)
    assert np.arccos(np.clip(G1 @ p.Gamma, -1, 1)) == pytest.approx(0.02, rel=1e-9)  # tilted by eps
    assert abs(G1 @ np.cross(p.Gamma, [0.0, 0.0, 1.0]) / np.linalg.norm(np.cross(p.Gamma, [0, 0, 1.0]))) \
        == pytest.approx(np.sin(0.02), rel=1e-9)  # off the vertical plane through Gamma
    np.testing.assert_array_equal(w1, p.omega)
    G1, _ = eq.hanging.tilted(0.1)  # at a pole: tilted towards Gamma x e1
    assert np.arccos(np.clip(G1 @ eq.hanging.Gamma, -1, 1)) == pytest.approx(0.1, rel=1e-9)


def test_nearby_window_is_about_4_eps_on_the_sphere():
    from pendulum_explorer.poincare import nearby_window
    G = np.array([np.cos(0.3) * 0.6, np.sin(0.3) * 0.6, 0.8])
    phi0, phi1, z0, z1 = nearby_window(G, 0.01)
    assert (phi0 + phi1) / 2 == pytest.approx(0.3) and (z0 + z1) / 2 == pytest.approx(0.8)
    assert (phi1 - phi0) / 2 * 0.6 == pytest.approx(0.04) and (z1 - z0) / 2 == pytest.approx(0.04 * 0.6)
    assert nearby_window(G, 0.0)[3] - 0.8 == pytest.approx(0.02 * 0.6)  # at least 0.02


def test_equilibria_wording_and_plausibility():
    from pendulum_explorer.app import equilibria_text as eqsay
    from pendulum_explorer.app.plausible import check_plausible_pendulum, check_plausible_shape
    from pendulum_explorer.bodies import Pendulum
    assert eqsay.stability_words("elliptic-elliptic") == "stable: a small push only makes it wobble (elliptic-elliptic)"
    assert eqsay.stability_words("") == "not computed"
    p = SimpleNamespace(family="hanging", stability="elliptic-elliptic", Gamma=np.array([0, 0, -0.0]),
                        omega=np.zeros(3), mu=-0.0, energy=-2.9, alpha=0.0, eigenvalues=np.array([1j, -1j]))
    html = eqsay.details_html(p)
    assert "hanging at rest (straight down)" in html and "[0.0000, 0.0000, 0.0000]" in html and "-0.0000" not in html
    # round-off real parts (what the classification treats as zero) are not shown as "-2.22e-16-3.86i"
    ev = np.array([-2.22e-16 - 3.86j, 2.517e-17 - 3.342j, 2.517e-17 + 3.342j, -2.22e-16 + 3.86j])
    assert eqsay.eigenvalues_text(ev) == "-3.86i, -3.342i, +3.342i, +3.86i"
    assert eqsay.eigenvalues_text(np.array([1.5 + 1e-17j, -1.5, 0.2 + 3j, 0.2 - 3j])) == "+1.5, -1.5, +0.2+3i, +0.2-3i"
    assert "e-16" not in eqsay.details_html(SimpleNamespace(**{**vars(p), "eigenvalues": ev}))
    # a family through alpha = +-inf (L1 of Fig. 1): the caption under "along it" says so, as the menu does,
    # instead of the sampled ends "α -1e+07 … 1e+07"
    class Fam(SimpleNamespace):
        def __len__(self):
            return len(self.alpha)

    fam = Fam(label="L1", alpha=np.array([0.0, -0.5, -3.0, -1e7, np.inf, 1e7, 40.0, 13.2]))
    cap = eqsay.along(fam, 1, SimpleNamespace(alpha=-3.0, omega=np.array([0.0, 0.0, 2.0])))
    assert "the family runs α &lt; 0 and α &gt; 13.2 (through ±∞ at the Eq. 38 spin)" in cap and "e+07" not in cap
    assert eqsay.alpha_range(np.array([0.0, 1.0, 2.23])) == "α 0 … 2.23"
    text, short = eqsay.launched_nearby(p, 0.02, -2.9, 0.0, 0.01, True)
    assert short.endswith("(the Motion tab plays it; the Poincaré section tab shows its returns). It is stable, so "
                          "the motion stays close to it.")
    assert "no point of this motion" in eqsay.nearby_empty(0) and "only 2 points" in eqsay.nearby_empty(2)
    assert text.startswith("Launched near hanging at rest (straight down), tilted by 0.02 rad") and "only 1% of" in text \
        and "reset axes" in text
    assert "reset axes" not in eqsay.launched_nearby(p, 0.02, -2.9, 0.0, 0.01, False)[0]
    with pytest.raises(ValueError, match=r"a dimension = 1e\+09 m is outside the dashboard's range"):
        check_plausible_shape([1e9, 1, 1], 1.0, [0, 0, 0])
    with pytest.raises(ValueError, match=r"\|ρ\| = 1e-12 m"):
        check_plausible_pendulum(Pendulum(np.eye(3), [0, 0, 1e-12]))
    with pytest.raises(ValueError, match="pivot is at the centre of mass"):
        check_plausible_pendulum(Pendulum(np.eye(3), [0, 0, 0.0]))
    check_plausible_pendulum(presets.paper_fig1().pendulum)  # a preset is plausible


def test_shell_wording_and_links_of_views():
    from pendulum_explorer.app import shell_text
    from pendulum_explorer.app.link_view import body_from_link, link_of_view
    from pendulum_explorer.app.links import build_query, parse_query
    assert shell_text.link_opened("Fig. 2 body (paper)", "Motion") == "Opened from a link: Fig. 2 body (paper), Motion tab."
    assert shell_text.link_opened("B", level="E = 1 J", launched=1, asked=2) == (
        "Opened from a link: B, section at E = 1 J, 1 of 2 trajectories launched (this seed is not in the "
        "accessible region: see the section's message).")
    assert "(2 seeds are not in the accessible region" in shell_text.link_opened("B", level="E", launched=0, asked=2)
    assert "This clears 1 trajectory and" in shell_text.reset_question(1)
    assert "chosen by" not in shell_text.body_in_use(presets.planar(), "the start view")
    assert "chosen by a &lt;link&gt;" in shell_text.body_in_use(presets.planar(), "a <link>")
    body = presets.paper_fig2(g=3.0)
    L = SimpleNamespace(E=2.03, mu=0.5, body="paper_fig2", source="click", chart=np.zeros((0, 2)),
                        Gamma0=np.array([0.6, 0.0, 0.8]))
    other = SimpleNamespace(E=1.0, mu=0.5, body="paper_fig2", source="click", chart=np.zeros((0, 2)), Gamma0=L.Gamma0)
    link = link_of_view(body, "section", True, (2.03, 0.5), [L, other])
    assert (link.preset, link.g, link.tab, link.presenter, link.E, link.mu) == ("paper_fig2", 3.0, "section", True,
                                                                                2.03, 0.5)
    assert link.launch == ((0.0, pytest.approx(0.8)),)
    back = body_from_link(parse_query(build_query(link)))
    assert back.pendulum == body.pendulum
    from pendulum_explorer.bodies import equivalent_body
    custom = link_of_view(equivalent_body(body.pendulum), "body", False)
    assert custom.preset is None and custom.J == tuple(body.pendulum.J.ravel()) and custom.E is None
    assert body_from_link(parse_query(build_query(custom))).pendulum == body.pendulum


def test_a_link_keeps_the_seeds_typed_on_the_section():
    """A seed typed in the section's boxes (and a link's own seeds, launched as typed ones) was written into the
    link as its first crossing: the link opened another point, and each copy of a copied link moved the seeds
    one return on.  Seeds on the section are written as they are; only those off it (paper, nearby) by their
    first crossing."""
    from pendulum_explorer.app.link_view import link_of_view
    from pendulum_explorer.poincare import chart_from_sphere
    body = presets.paper_fig2()
    G0 = np.array([0.6, 0.0, 0.8])
    first = np.array([[1.25, -0.3], [2.0, 0.1]])
    launches = [SimpleNamespace(E=2.03, mu=0.5, body="paper_fig2", source=src, chart=first, Gamma0=G0)
                for src in ("typed", "click", "periodic orbit", "load", "paper", "nearby")]
    link = link_of_view(body, "section", False, (2.03, 0.5), launches)
    on = tuple(float(x) for x in chart_from_sphere(G0))
    assert link.launch[:4] == (pytest.approx(on),) * 4
    assert link.launch[4:] == ((1.25, -0.3), (1.25, -0.3))


def test_links_of_a_motion_view():
    from pendulum_explorer.app import shell_text
    from pendulum_explorer.app.link_view import link_of_view
    link = link_of_view(presets.planar(), "motion", False, None, [], ((5.42, 0.0, 0.0), 12.0))
    assert (link.omega0, link.T, link.preset, link.E) == ((5.42, 0.0, 0.0), 12.0, "planar", None)
    assert shell_text.link_opened("Planar pendulum (rod)", "Motion", motion=shell_text.link_motion((5.42, 0, 0), 12.0)) \
        == "Opened from a link: Planar pendulum (rod), Motion tab, the motion from R₀ = I with ω₀ = (5.42, 0, 0) rad/s " \
           "for 12 s."
