"""The section model the dashboard uses: level helpers, fill seeds, streamed crossings, the public seed
check; and section sessions as files (no widgets)."""
import csv
import io
import json
import math
from types import SimpleNamespace

import numpy as np
import pytest

from pendulum_explorer import presets
from pendulum_explorer._core.fields import energy_lp, mu_lp
from pendulum_explorer.bodies import Pendulum, equivalent_body
from pendulum_explorer.errors import InaccessibleError, InvalidStateError, PendulumError
from pendulum_explorer.equilibria import equilibria_at_mu
from pendulum_explorer.poincare import (PoincareSection, chart_from_sphere, default_level, mu_bound, mu_max, sphere_from_chart,
                                        paper_initial_state)
from pendulum_explorer.session import (MAX_SEEDS, body_from_session, crossings_csv, parse_session,
                                       session_json)


@pytest.fixture(scope="module")
def fig2():
    return presets.paper_fig2().pendulum


@pytest.mark.parametrize("E", [-2.5, 0.0, 2.03, 8.83])
def test_mu_max_is_the_exact_bound(fig2, E):
    """mu_max(E): the largest |mu| with motion, against an independent construction (bisection on the least energy
    of the relative equilibria at mu, Prop 20: min V_mu is attained at one of them) to 1e-9; the section is empty
    just above it and not just below.  The dashboard quoted mu_bound, 20-28 % higher (1.669 for 1.360 at 2.03)."""
    m = mu_max(fig2, E)
    lo, hi = 0.0, mu_bound(fig2, E)
    for _ in range(45):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if min(q.energy for q in equilibria_at_mu(fig2, mid, n_ring=1)) < E else (lo, mid)
    assert m == pytest.approx(lo, rel=1e-9) and m < 0.9 * mu_bound(fig2, E)
    assert PoincareSection(fig2, E, 1.0001 * m).accessible_region(121, 81).empty
    assert not PoincareSection(fig2, E, 0.9999 * m).accessible_region(121, 81).empty
    assert PoincareSection(fig2, E, 0.0).level.mu_max() == m
    assert mu_max(fig2, -10.0) == 0.0


def test_mu_bound_is_necessary(fig2):
    """|mu| >= mu_bound(E) leaves no motion (V_mu >= mu^2/(2 J1) - m g |rho| > E everywhere)."""
    E = 1.0
    b = mu_bound(fig2, E)
    J1 = fig2.principal_moments[0]
    mgr = fig2.m * fig2.g * np.linalg.norm(fig2.rho)
    assert b == pytest.approx(math.sqrt(2 * J1 * (E + mgr)), rel=1e-15)
    assert PoincareSection(fig2, E, 1.001 * b).accessible_region(61, 41).empty
    assert not PoincareSection(fig2, E, 0.5 * b).accessible_region(61, 41).empty
    assert mu_bound(fig2, -10.0) == 0.0
    sec = PoincareSection(fig2, E, 0.0)
    assert sec.mu_bound() == b and sec.mu_bound(2.0) == mu_bound(fig2, 2.0)


def test_default_level_is_E0_with_the_paper_momentum(fig2):
    E, mu = default_level(fig2)
    G0, w0, _ = paper_initial_state(fig2, 0.0)
    assert E == 0.0 and mu == pytest.approx(float(w0 @ fig2.J @ G0), rel=1e-14) and mu != 0.0
    # rho_3 < 0: the paper's initial condition cannot reach E = 0, so mu = 0
    flipped = Pendulum(fig2.J, -np.asarray(fig2.rho), fig2.m, fig2.g)
    assert default_level(flipped) == (0.0, 0.0)


def test_with_motion_names_the_admissible_range(fig2):
    sec = PoincareSection.with_motion(fig2, 1.0, 0.0)
    assert not sec.accessible_region(121, 81).empty
    lo = sec.accessible_region(121, 81).energy_min
    with pytest.raises(InaccessibleError, match=rf"E = -100 J gives no motion .* above min V_μ = {lo:.5g} J"):
        PoincareSection.with_motion(fig2, -100.0, 0.0)
    b = mu_max(fig2, 1.0)  # exact (mu_bound, 1.486, was quoted)
    with pytest.raises(InaccessibleError, match=rf"\|μ\| < {b:.4g} kg m²/s"):
        PoincareSection.with_motion(fig2, 1.0, 1000.0, varied="mu")
    with pytest.raises(ValueError, match="varied"):
        PoincareSection.with_motion(fig2, 1.0, 0.0, varied="E")


def test_fill_seeds_are_accessible_section_states(fig2):
    sec = PoincareSection(fig2, 2.03, 0.3)
    Y = sec.fill_seeds(12)
    assert Y.shape == (12, 6)
    p = fig2.params(0.0)
    for y in Y:
        assert energy_lp(y[:3], y[3:], p) == pytest.approx(2.03, abs=1e-12)
        assert mu_lp(y[:3], y[3:], p) == pytest.approx(0.3, abs=1e-12)
        assert abs(np.cross(y[:3], y[3:])[2]) < 1e-12  # on the section: e3^T Gammadot = 0
    phi, z = chart_from_sphere(Y[:, :3])
    assert np.ptp(z) > 0.5  # spread over the region, not bunched
    with pytest.raises(InaccessibleError, match="empty"):
        PoincareSection(fig2, -100.0, 0.0).fill_seeds(3)


def test_stream_chunks_continue_the_trajectory(fig2):
    sec, seed = PoincareSection.from_paper_ic(fig2, -2.65)
    chunks = list(sec.stream(seed, 130, 50, first=10))
    assert [c.n_found for c in chunks] == [10, 50, 50, 20]
    G = np.concatenate([c.Gamma for c in chunks])
    t = np.concatenate([c.t for c in chunks])
    assert np.all(np.diff(t) > 0)  # times counted from the seed
    whole = sec.crossings(seed, 130)
    # the first chunk is the same computation; the re-seeded rest follows the same (regular) orbit closely
    np.testing.assert_array_equal(G[:10], whole.Gamma[:10])
    np.testing.assert_allclose(G, whole.Gamma, atol=1e-6)
    np.testing.assert_allclose(t, whole.t, rtol=1e-6)
    # a caller can stop: nothing beyond the chunk drawn is computed
    gen = sec.stream(seed, 10_000, 100, first=5)
    first = next(gen)
    gen.close()
    assert first.n_found == 5
    # a time target keeps chunks between 1 and chunk crossings
    sizes = [c.n_found for c in sec.stream(seed, 300, 200, first=2, seconds=1e-4)]
    assert sum(sizes) == 300 and max(sizes[1:]) < 200


def test_stream_ends_with_the_stopped_chunk(fig2):
    """A trajectory that stops crossing (at rest in the hanging equilibrium): one empty chunk that says why."""
    sec = PoincareSection(fig2, -fig2.m * fig2.g * fig2.rho[2], 0.0)
    chunks = list(sec.stream((np.array([0, 0, 1.0]), np.zeros(3)), 1000, 100, first=10))
    assert len(chunks) == 1 and chunks[0].n_found == 0 and chunks[0].status == "no_crossing"


def test_check_seed_is_public_and_validates(fig2):
    sec, (G0, w0) = PoincareSection.from_paper_ic(fig2, 0.0)
    y = sec.check_seed((G0, w0))
    np.testing.assert_array_equal(y, np.concatenate([G0, w0]))
    st = sec.state_at(np.array([0.6, 0.0, 0.8]))
    np.testing.assert_allclose(sec.check_seed(st), np.concatenate([st.Gamma, st.omega]))
    with pytest.raises(InvalidStateError, match="not on the level"):
        sec.check_seed((G0, 2 * w0))


# ---------------------------------------------------------------------------------------------- sessions
def _launch(i, body, E, mu, G0, w0, crossings):
    phi, z = chart_from_sphere(crossings)
    return SimpleNamespace(id=i, source="click", body=body, E=E, mu=mu, Gamma0=G0, omega0=w0, crossings=crossings,
                           chart=np.stack([phi, z], -1))


def test_session_round_trip_without_widgets(fig2):
    body = presets.paper_fig2()
    sec, (G0, w0) = PoincareSection.from_paper_ic(fig2, 2.03)
    L = _launch(7, body.name, 2.03, sec.mu, G0, w0, sec.crossings((G0, w0), 40).Gamma)
    rows = list(csv.DictReader(io.StringIO(crossings_csv([L]))))
    assert len(rows) == 40 and {r["trajectory"] for r in rows} == {"7"}
    np.testing.assert_array_equal([float(r["Gamma3"]) for r in rows], L.crossings[:, 2])  # bit for bit
    text = session_json(body, 2.03, sec.mu, 300, [L])
    s = parse_session(text)
    assert s.body is not body and s.body.pendulum == body.pendulum and s.body.name == "paper_fig2"
    assert (s.E, s.mu, s.n_crossings) == (2.03, sec.mu, 300)
    assert len(s.seeds) == 1 and s.seeds[0].n == 40
    np.testing.assert_array_equal(s.seeds[0].Gamma0, G0)
    np.testing.assert_array_equal(s.seeds[0].omega0, w0)


@pytest.mark.parametrize("text, match", [
    ("{not json", "invalid JSON"),
    ("[1, 2]", "not a Pendulum Explorer session"),
    ('{"app": "pendulum_explorer"}', "no body"),
    ('{"app": "pendulum_explorer", "body": {"pendulum": {"J": [[1,0,0],[0,1,0],[0,0,1]], "rho": [0,0,1], '
     '"evil": 1}}, "E": 0, "mu": 0}', "must give J, rho, m, g"),
    ('{"app": "pendulum_explorer", "body": {"pendulum": {"J": [[1,0,0],[0,1,0],[0,0,1]], "rho": [0,0,1]}}, '
     '"E": "x", "mu": 0}', "'E' in the session file must be a number"),
    ('{"app": "pendulum_explorer", "body": {"pendulum": {"J": [[1,0,0],[0,1,0],[0,0,1]], "rho": [0,0,1]}}, '
     '"E": 0, "mu": 0, "launches": [{"Gamma0": [0, 1], "omega0": [0, 0, 1]}]}', "'Gamma0' of launch 0"),
])
def test_parse_session_rejects_bad_files(text, match):
    with pytest.raises(PendulumError, match=match):
        parse_session(text)


def test_parse_session_bounds_the_launches():
    d = {"app": "pendulum_explorer", "body": {"pendulum": presets.paper_fig2().pendulum.to_dict()}, "E": 0, "mu": 0,
         "launches": [{"Gamma0": [0, 0, 1], "omega0": [1, 1, 1]}] * (MAX_SEEDS + 1)}
    with pytest.raises(PendulumError, match=f"at most {MAX_SEEDS}"):
        parse_session(json.dumps(d))


def test_body_from_session_and_equivalent_body():
    """A preset comes back as the preset; bare J/rho as the ellipsoid with the same inertia (parallel axes)."""
    pend = Pendulum(np.diag([0.3, 0.25, 0.1]), [0.0, 0.05, 0.3], 1.0)
    b = body_from_session({"name": "mine", "pendulum": pend.to_dict()})
    assert b.pendulum == pend and b.name == "mine"
    eb = equivalent_body(pend, name="mine")
    np.testing.assert_allclose(b.mesh.vertices, eb.mesh.vertices)
    # the mesh is centred on rho (a homogeneous ellipsoid's centre of mass is its centre)
    np.testing.assert_allclose(np.asarray(eb.mesh.vertices).mean(axis=0), pend.rho, atol=1e-2)
    p = presets.paper_fig1()
    assert body_from_session({"name": p.name, "pendulum": p.pendulum.to_dict()}).mesh is not None


def test_chart_window_region_and_nearest_admissible(fig2):
    """Just above the hanging energy the accessible set is the cap Γ₃ >= 0.98 (V_0 = -m g |ρ| Γ₃ for ρ along e3):
    the chart window is that cap padded, its rows are centred off the pole, a pole point moves just off it and a
    point in the grey moves to the cap's rim along its meridian."""
    mgr = fig2.mgrho_norm
    sec = PoincareSection(fig2, -0.98 * mgr, 0.0)
    lo, hi = sec.chart_window()
    assert hi == 1.0 and 0.9 < lo < 0.98
    reg = sec.chart_region()
    dz = (hi - lo) / len(reg.z)
    assert reg.z.max() == pytest.approx(1.0 - dz / 2) and reg.z.min() == pytest.approx(lo + dz / 2)
    rows = reg.z[reg.accessible.any(axis=1)]
    assert len(rows) >= 20 and rows.min() == pytest.approx(0.98, abs=dz)
    assert reg.energy_min == sec.accessible_region(121, 81).energy_min
    assert sec.nearest_admissible(0.3, 1.0) == (0.3, 1.0 - 1e-4)
    phi, z = sec.nearest_admissible(1.0, 0.5)
    assert z == pytest.approx(0.98, abs=1e-3) and phi == pytest.approx(1.0, abs=0.01) and sec.slack(
        sphere_from_chart(phi, z)) > 0
    assert PoincareSection(fig2, 1.0, 0.0).chart_window() == (-1.0, 1.0)
    with pytest.raises(InvalidStateError, match="z must be finite and in"):
        sec.nearest_admissible(0.0, 2.0)


def test_session_seed_states_and_body_for(fig2):
    body = presets.paper_fig2()
    sec, (G0, w0) = PoincareSection.from_paper_ic(fig2, 2.03)
    L = _launch(3, body.name, 2.03, sec.mu, G0, w0, sec.crossings((G0, w0), 5).Gamma)
    s = parse_session(session_json(body, 2.03, sec.mu, 100, [L, L]))
    Y = s.seed_states()
    assert Y.shape == (2, 6)
    np.testing.assert_array_equal(Y[1], np.concatenate([G0, w0]))
    assert s.body_for(body) is body  # the body in use is kept (same name and pendulum)
    assert s.body_for(presets.paper_fig1()) is s.body
    assert s.body_for(presets.paper_fig2(g=9.0)) is s.body  # same name, another pendulum
    assert parse_session(session_json(body, 2.03, sec.mu, 100, [])).seed_states().shape == (0, 6)


def test_seed_at_moves_poles_and_refuses_inaccessible_points(fig2):
    sec, _ = PoincareSection.from_paper_ic(fig2, 2.03)
    y = sec.fill_seeds(3)[1]
    phi, z = (float(v) for v in chart_from_sphere(y[:3]))
    st, moved = sec.seed_at(phi, z)
    assert moved is None
    np.testing.assert_allclose(st.Gamma, y[:3], atol=1e-12)
    for zp in (1.0, 1.3):  # the hanging pole, and a typed |z| > 1
        st, moved = sec.seed_at(0.4, zp)
        assert moved is not None and 1.0 - 1e-4 - 1e-12 <= moved[1] < 1.0
        np.testing.assert_allclose(st.Gamma, sphere_from_chart(*moved), atol=1e-12)
        assert sec.slack(st.Gamma) > 0
    reg = sec.chart_region()
    iz, ip = np.argwhere(~reg.accessible)[0]
    with pytest.raises(InaccessibleError):
        sec.seed_at(float(reg.phi[ip]), float(reg.z[iz]))


def test_critical_energies_are_the_relative_equilibria_on_V_mu(fig2):
    sec, _ = PoincareSection.from_paper_ic(fig2, 2.03)
    crit = sec.critical_energies()
    assert len(crit) >= 2
    from pendulum_explorer.equilibria import equilibria_at_mu
    pts = equilibria_at_mu(fig2, sec.mu)
    for p, E in zip(pts, crit):  # a relative equilibrium at mu has no Gammadot: E = V_mu(Gamma_e)
        assert E == pytest.approx(float(sec.amended_potential(p.Gamma)), abs=1e-9 * sec.energy_scale)
    assert min(crit) >= sec.chart_region().energy_min - 1e-6


def test_chaos_maps_refine_and_stop_on_cancel(fig2):
    sec, _ = PoincareSection.from_paper_ic(fig2, 2.03)
    seen = []
    maps = list(sec.chaos_maps(((4, 3), (6, 4)), 10.0, progress=lambda f, res, d, m: seen.append((f, res, d, m))))
    assert [cm.values.shape for cm in maps] == [(3, 4), (4, 6)]
    np.testing.assert_array_equal(maps[1].values, sec.chaos_map((6, 4), 10.0).values)
    fr = [f for f, *_ in seen]
    assert fr == sorted(fr) and fr[-1] == pytest.approx(1.0) and {r for _, r, _, _ in seen} == {(4, 3), (6, 4)}
    got = []
    for cm in sec.chaos_maps(((4, 3), (6, 4)), 10.0, cancel=lambda: len(got) > 0):
        got.append(cm)
    assert [cm.values.shape for cm in got] == [(3, 4)]


def test_session_keeps_the_chaos_map_and_periodic_orbits(fig2):
    """Version 2 sessions hold the level's chaos map (both indicators, NaN off the section) and its periodic
    orbits, read back bit for bit (multipliers and kind recomputed from the Jacobian); version 1 files load as
    before, with neither (before: neither was written)."""
    from pendulum_explorer.session import SESSION_VERSION

    body = presets.paper_fig2()
    sec = PoincareSection.from_paper_ic(fig2, 11.95)[0]
    cm = sec.chaos_map((8, 6), 10.0)
    po = sec.periodic_orbit((np.pi / 2, 0.961))
    text = session_json(body, sec.energy, sec.mu, 300, [], chaos=cm, orbits=[po])
    d = json.loads(text)
    assert d["version"] == SESSION_VERSION == 2 and d["chaos_map"]["resolution"] == [8, 6]
    assert "NaN" not in text  # strict JSON: a cell off the section is null
    s = parse_session(text)
    for key in ("phi", "z", "values", "megno", "lyapunov"):
        np.testing.assert_array_equal(getattr(s.chaos, key), getattr(cm, key))
    assert (s.chaos.indicator, s.chaos.t_total) == ("megno", 10.0)
    assert s.chaos.chaotic_fraction() == cm.chaotic_fraction()
    (q,) = s.orbits
    for key in ("Gamma", "omega", "jacobian", "multipliers"):
        np.testing.assert_array_equal(getattr(q, key), getattr(po, key))
    assert (q.phi, q.z, q.k, q.period, q.kind, q.residual, q.iterations) == (
        po.phi, po.z, po.k, po.period, po.kind, po.residual, po.iterations)
    # a lyapunov map keeps its indicator
    cl = sec.chaos_map((4, 3), 5.0, indicator="lyapunov")
    sl = parse_session(session_json(body, sec.energy, sec.mu, 300, [], chaos=cl))
    assert sl.chaos.indicator == "lyapunov" and sl.orbits == []
    np.testing.assert_array_equal(sl.chaos.values, cl.lyapunov)
    # a version 1 file (no version or 1, no map, no orbits) still loads
    for v1 in ({k: x for k, x in d.items() if k not in ("chaos_map", "periodic_orbits", "version")},
               {**{k: x for k, x in d.items() if k not in ("chaos_map", "periodic_orbits")}, "version": 1}):
        s1 = parse_session(json.dumps(v1))
        assert s1.chaos is None and s1.orbits == [] and s1.E == sec.energy


def _v2(fig2, **change):
    sec = PoincareSection.from_paper_ic(fig2, 11.95)[0]
    d = json.loads(session_json(presets.paper_fig2(), sec.energy, sec.mu, 300, [], chaos=sec.chaos_map((4, 3), 5.0),
                                orbits=[sec.periodic_orbit((np.pi / 2, 0.961))]))
    for path, value in change.items():
        *keys, last = path.split("__")
        target = d
        for k in keys:
            target = target[int(k)] if k.isdigit() else target[k]
        target[int(last) if last.isdigit() else last] = value
    return json.dumps(d)


@pytest.mark.parametrize("change, match", [
    (dict(version=3), "version 3; this Pendulum Explorer reads versions 1 to 2"),
    (dict(version="2"), "version '2'"),
    (dict(chaos_map="x"), "must be a record"),
    (dict(chaos_map__indicator="fft"), "indicator 'fft'"),
    (dict(chaos_map__t_total=-1), "t_total"),
    (dict(chaos_map__resolution=[4]), "resolution"),
    (dict(chaos_map__resolution=[4000, 4000]), "at most 160000"),
    (dict(chaos_map__resolution=[5, 3]), "3 rows of 5 cells"),
    (dict(chaos_map__megno=[[1, 2, 3, 4]] * 2), "3 rows of 4 cells"),
    (dict(chaos_map__megno__1__1="x"), "numbers or null"),
    (dict(chaos_map__megno__1__1=1e300), "magnitude at most"),
    (dict(chaos_map__lyapunov__1__1=None), "different cells"),
    (dict(E=0.0), "does not belong to its level"),
    (dict(periodic_orbits={"a": 1}), "at most 100"),
    (dict(periodic_orbits=[{"Gamma": [0, 0, 1]}] * 101), "at most 100"),
    (dict(periodic_orbits__0__omega=[0, 0, 1]), "periodic orbit 0 of the session file.*not on the level"),
    (dict(periodic_orbits__0__Gamma=[0, 1]), "'Gamma' of periodic orbit 0"),
    (dict(periodic_orbits__0__k=0), "'k' of periodic orbit 0"),
    (dict(periodic_orbits__0__period=0), "period > 0"),
    (dict(periodic_orbits__0__jacobian=[[1, 0], [0, "x"]]), "'jacobian' of periodic orbit 0"),
    (dict(periodic_orbits__0__jacobian=[[1, 0, 0], [0, 1, 0]]), "2 x 2 finite numbers"),
])
def test_session_map_and_orbits_are_validated(fig2, change, match):
    with pytest.raises(PendulumError, match=match):
        parse_session(_v2(fig2, **change))


def test_session_bounds_the_map_and_orbits_when_writing(fig2):
    from pendulum_explorer.session import MAX_ORBITS
    sec = PoincareSection.from_paper_ic(fig2, 11.95)[0]
    po = sec.periodic_orbit((np.pi / 2, 0.961))
    with pytest.raises(PendulumError, match=f"at most {MAX_ORBITS}"):
        session_json(presets.paper_fig2(), sec.energy, sec.mu, 300, [], orbits=[po] * (MAX_ORBITS + 1))
    with pytest.raises(PendulumError, match="characters"):
        parse_session(" " * (64 * 2 ** 20 + 1))
