"""Periodic orbits in families (issue 21, item 1): the trust-region finder from clicks near the Fig. 2 orbits,
pseudo-arclength continuation in E, and the bifurcations (period doubling, tangent, fold) checked against
independent computations: Newton at fixed E (PoincareSection.periodic_orbit) on both sides of each located
energy, finite-difference Jacobians of the return map, and a scipy solve_ivp return map."""
import math

import numpy as np
import pytest

import pendulum_explorer as pe
from pendulum_explorer import orbit_families as of
from pendulum_explorer.errors import InvalidIntegrationError, PeriodicOrbitNotFoundError, ShapeError
from pendulum_explorer.poincare import PoincareSection

from section_reference import chart, scipy_return

HYP = (math.pi / 2, 0.5117982429498117)  # k = 1 hyperbolic at E = 11.95 (paper's mu)
ELL = (math.pi / 2, 0.96099153)  # k = 1 elliptic island centre at E = 11.95


@pytest.fixture(scope="module")
def P():
    return pe.presets.paper_fig2().pendulum


@pytest.fixture(scope="module")
def sec(P):
    return PoincareSection.from_paper_ic(P, 11.95)[0]


def _fd_jacobian(sec, phi, z, k, h=1e-6):
    fd = np.empty((2, 2))
    for j, d in enumerate([(h, 0.0), (0.0, h)]):
        a = sec.return_map(phi + d[0], z + d[1], k)
        b = sec.return_map(phi - d[0], z - d[1], k)
        fd[:, j] = [math.remainder(a[0] - b[0], 2 * math.pi) / (2 * h), (a[1] - b[1]) / (2 * h)]
    return fd


def test_finder_gets_the_hyperbolic_orbit_from_clicks_within_0_1(sec, P):
    """Clicks 0.09 from the k = 1 hyperbolic orbit in 6 directions (away from the other k = 1 fixed point at
    (pi/2, 0.406), which is nearer to clicks below): each finds it; plain Newton finds it from 1 of the 6."""
    newton = 0
    for a in np.deg2rad([0, 45, 90, 135, 180, 225]):
        click = (HYP[0] + 0.09 * math.cos(a), HYP[1] + 0.09 * math.sin(a))
        po = of.find_periodic_orbit(sec, click)
        assert math.hypot(po.phi - HYP[0], po.z - HYP[1]) < 1e-8
        assert po.kind == "hyperbolic" and po.residual <= 1e-10 and po.E == sec.energy and po.mu == sec.mu
        try:
            o = sec.periodic_orbit(click)
            newton += math.hypot(o.phi - HYP[0], o.z - HYP[1]) < 1e-8
        except PeriodicOrbitNotFoundError:
            pass
    assert newton <= 2
    # independent: the scipy return map brings the orbit back to itself
    G1, w1, T = scipy_return(P, po.Gamma, po.omega)
    assert np.linalg.norm(G1 - po.Gamma) < 1e-9 and T == pytest.approx(po.period, rel=1e-9)
    np.testing.assert_allclose(po.jacobian, _fd_jacobian(sec, po.phi, po.z, 1), rtol=1e-5, atol=1e-6)


def test_finder_gets_k3_orbits_at_E_2_03_from_clicks_within_0_02(P):
    sec = PoincareSection.from_paper_ic(P, 2.03)[0]
    orbits = of.find_periodic_orbits(sec, 3, n_seeds=600, n_starts=60)
    assert len(orbits) >= 3 and all(o.k == 3 and o.residual <= 1e-10 for o in orbits)
    hits = 0
    for o in orbits[:3]:
        for a in (0.3, 2.4, 4.0):
            click = (o.phi + 0.018 * math.cos(a), min(o.z + 0.018 * math.sin(a), 0.9999))
            if sec.slack(pe.sphere_from_chart(*click)) <= 0:
                continue
            po = of.find_periodic_orbit(sec, click, 3)
            # the target, or another k = 3 fixed point nearer the click (there is one 0.007 from (pi, 0.8946))
            d_target = math.hypot(math.remainder(click[0] - o.phi, 2 * math.pi), click[1] - o.z)
            d_found = math.hypot(math.remainder(click[0] - po.phi, 2 * math.pi), click[1] - po.z)
            same = math.hypot(math.remainder(po.phi - o.phi, 2 * math.pi), po.z - o.z) < 1e-7
            assert same or (d_found < d_target and po.residual <= 1e-10)
            hits += same
        # least period 3: the first return is elsewhere; the third (scipy) is the point itself
        phi1, z1, _T, _M = sec.return_map(o.phi, o.z, 1)
        assert math.hypot(math.remainder(phi1 - o.phi, 2 * math.pi), z1 - o.z) > 1e-3
        G3, _w3, T3 = scipy_return(P, o.Gamma, o.omega, 3)
        assert np.linalg.norm(G3 - o.Gamma) < 1e-8 and T3 == pytest.approx(o.period, rel=1e-8)
    assert hits >= 4  # measured 5 of 9; each other click returns a k = 3 fixed point nearer to it than the target


def _newton_trace(P, mu, E, seed, k=1):
    o = PoincareSection(P, E, mu).periodic_orbit(seed, k, tol=1e-12)
    return float(np.trace(o.jacobian)), o


def test_elliptic_family_down_in_E_period_doublings_located_to_1e_8(P, sec):
    """The island-centre family from E = 11.95 down to E = 3: two period doublings... the first at
    E = 3.7500808581 (measured); the trace + 2 changes sign between E -+ 1e-8 by Newton at fixed E."""
    po = of.find_periodic_orbit(sec, ELL)
    fam = pe.continue_periodic_orbit(po, 3.0, max_step=0.1)
    assert fam.stop == "reached end" and fam.E[0] == 11.95 and fam.E[-1] == 3.0 and fam.parameter == "E"
    assert np.all(np.diff(fam.E) < 0) and np.all(fam.mu == sec.mu)
    pd = [b for b in fam.bifurcations if b.kind == "period-doubling"]
    assert len(pd) == 1
    b = pd[0]
    assert b.E == pytest.approx(3.7500808581, abs=1e-8)
    lo, _ = _newton_trace(P, sec.mu, b.E - 1e-8, (b.orbit.phi, b.orbit.z))
    hi, _ = _newton_trace(P, sec.mu, b.E + 1e-8, (b.orbit.phi, b.orbit.z))
    assert (lo + 2) * (hi + 2) < 0
    # the diagram: one line per stability run, the period doubling marked
    from pendulum_explorer.plotting.bifurcation import bifurcation_figure
    fig = bifurcation_figure(fam)
    names = [t.name for t in fig.data]
    assert names.count("period-doubling") == 1 and "elliptic" in names
    pdm = [t for t in fig.data if t.name == "period-doubling"][0]
    assert pdm.x[0] == b.E and pdm.y[0] == b.orbit.z
    assert sum(len(t.x) for t in fig.data if t.mode == "lines") >= len(fam)
    # the multipliers of three members against finite differences of the return map
    for o in (fam.orbits[0], fam.orbits[len(fam) // 2], fam.orbits[-1]):
        fd = _fd_jacobian(o.section(), o.phi, o.z, 1)
        ev = np.sort_complex(np.linalg.eigvals(fd))
        np.testing.assert_allclose(ev, np.sort_complex(o.multipliers), atol=2e-6)
        assert o.residual <= 1e-10


def test_hyperbolic_family_up_in_E_tangent_bifurcation(P, sec):
    """The hyperbolic family from 11.95 up to 14: tr DP = 2 at E = 12.737952681 (measured), where the family
    turns elliptic without turning in E (a symmetric pitchfork)."""
    po = of.find_periodic_orbit(sec, HYP)
    fam = pe.continue_periodic_orbit(po, 14.0, max_step=0.1)
    assert fam.stop == "reached end" and fam.kinds[0] == "hyperbolic" and fam.kinds[-1] == "elliptic"
    assert [b.kind for b in fam.bifurcations] == ["tangent"]
    b = fam.bifurcations[0]
    # a branch point (two families cross): Newton at fixed E is singular along the crossing family there, so
    # it is located to ~3e-8 (measured 12.73795268 and 12.73795271 on two runs of the same steps), not 1e-8
    assert b.E == pytest.approx(12.73795269, abs=5e-8)

    fd = _fd_jacobian(b.orbit.section(), b.orbit.phi, b.orbit.z, 1)
    assert abs(np.trace(fd) - 2.0) < 1e-4  # a multiplier 1, by finite differences
    i = int(np.searchsorted(fam.E, b.E))
    assert fam.trace[i - 1] > 2 > fam.trace[i]


def test_k3_family_goes_round_a_fold(P):
    """A k = 3 family from E = 2.03 up: it turns at E_fold = 4.49814262 (measured) and comes back down; at the
    fold the finite-difference Jacobian of P^3 has trace 2 (a multiplier 1) and no member lies above E_fold."""
    sec3 = PoincareSection.from_paper_ic(P, 2.03)[0]
    po = of.find_periodic_orbit(sec3, (1.1549767435957763, 0.9375589469765343), 3)
    fam = pe.continue_periodic_orbit(po, 6.0, max_step=0.05, max_points=80)
    folds = [b for b in fam.bifurcations if b.kind == "fold"]
    assert len(folds) == 1
    f = folds[0]
    assert f.E == pytest.approx(4.49814262, abs=1e-7)
    assert fam.E.max() <= f.E + 1e-12 and fam.E[-1] < f.E - 0.1  # round the fold and back down
    fd = _fd_jacobian(f.orbit.section(), f.orbit.phi, f.orbit.z, 3, h=1e-7)
    assert abs(np.trace(fd) - 2.0) < 2e-3


def test_continuation_in_mu_and_errors(P, sec):
    po = of.find_periodic_orbit(sec, ELL)
    fam = pe.continue_periodic_orbit_in_mu(po, sec.mu + 0.05, max_step=0.02)
    assert fam.stop == "reached end" and fam.parameter == "mu" and np.all(fam.E == 11.95)
    assert fam.mu[-1] == sec.mu + 0.05
    o = fam.orbits[-1]
    _tr, ref = _newton_trace(P, o.mu, 11.95, (o.phi, o.z))
    assert math.hypot(ref.phi - o.phi, ref.z - o.z) < 1e-8
    # E-continuation at another mu: carried there in mu first
    fam2 = pe.continue_periodic_orbit(po, 11.0, mu=sec.mu + 0.05, max_step=0.1)
    assert fam2.mu[0] == sec.mu + 0.05 and fam2.E[-1] == 11.0
    plain = sec.periodic_orbit(ELL)
    with pytest.raises(TypeError, match="section"):
        pe.continue_periodic_orbit(plain, 11.0)
    assert pe.continue_periodic_orbit(plain, 11.9, section=sec).stop == "reached end"
    with pytest.raises(InvalidIntegrationError, match="max_step"):
        pe.continue_periodic_orbit(po, 11.0, max_step=0.0)
    with pytest.raises(ShapeError, match="seed"):
        of.find_periodic_orbit(sec, np.zeros(4))
    with pytest.raises(InvalidIntegrationError, match="radius"):
        of.find_periodic_orbit(sec, ELL, radius=2.0)
    with pytest.raises(PeriodicOrbitNotFoundError):
        of.find_periodic_orbit(sec, ELL, k=2, radius=1e-3, n_grid=2, n_starts=1, max_iter=1)
    for bad in (0, -5, "60", None, float("nan"), 10**6):  # was: 0 and -5 gave [] (no orbits), "60" a bare TypeError
        with pytest.raises((InvalidIntegrationError, TypeError, ValueError), match=r"max_iter.*1000"):
            pe.find_periodic_orbits(sec, 1, max_iter=bad)


def test_branch_switching_at_the_period_doubling(P, sec):
    """switch_branch gives a period-2 orbit 1e-3 above E_pd = 3.75008086; its family turns at E_pd (a fold of
    the P^2 fixed points where the 2-cycle's two points meet the k = 1 orbit; measured 3e-8 from E_pd)."""
    fam = pe.continue_periodic_orbit(of.find_periodic_orbit(sec, ELL), 3.0, max_step=0.1)
    b = [x for x in fam.bifurcations if x.kind == "period-doubling"][0]
    o2 = of.switch_branch(b)
    assert o2.k == 2 and abs(o2.E - b.E) == pytest.approx(1e-3, rel=1e-9) and o2.residual <= 1e-10
    G2, _w2, T2 = scipy_return(P, o2.Gamma, o2.omega, 2)
    assert np.linalg.norm(G2 - o2.Gamma) < 1e-8 and T2 == pytest.approx(o2.period, rel=1e-8)
    G1, _w1, _T1 = scipy_return(P, o2.Gamma, o2.omega, 1)
    assert np.linalg.norm(G1 - o2.Gamma) > 1e-3  # least period 2
    f2 = pe.continue_periodic_orbit(o2, 3.0, max_step=0.05, max_points=12)
    folds = [x for x in f2.bifurcations if x.kind == "fold"]
    assert len(folds) == 1 and folds[0].E == pytest.approx(b.E, abs=1e-7)
    with pytest.raises(ValueError, match="period-doubling"):
        of.switch_branch(fam)


def test_members_at_an_energy_are_the_fixed_points_there(P, sec):
    """OrbitFamily.members_at(E) (what the dashboard draws as E moves): the member interpolated between the
    family's points and corrected at fixed E is the fixed point the finder gets at that level from a click 0.05
    away (to 1e-8); outside the family's span there is none; a family in mu refuses."""
    po = of.find_periodic_orbit(sec, ELL)
    fam = pe.continue_periodic_orbit(po, 6.0, max_step=0.1)
    assert fam.stop == "reached end"
    (m,) = fam.members_at(8.0)
    ref = of.find_periodic_orbit(PoincareSection(P, 8.0, sec.mu), (m.phi + 0.05, m.z - 0.02))
    assert m.E == 8.0 and m.mu == sec.mu and m.kind == "elliptic" and m.residual <= 1e-10
    assert abs(math.remainder(m.phi - ref.phi, 2 * math.pi)) < 1e-8 and abs(m.z - ref.z) < 1e-8
    raw = fam.members_at(8.0, correct=False)[0]  # the linear interpolation alone: near, not on, the fixed point
    assert 1e-9 < math.hypot(raw.phi - ref.phi, raw.z - ref.z) < 1e-2
    assert fam.members_at(5.0) == [] and fam.members_at(12.5) == []
    with pytest.raises(ValueError, match="continued in E"):
        pe.continue_periodic_orbit_in_mu(po, sec.mu + 0.01, max_step=0.01).members_at(11.95)


def test_continuation_can_be_cancelled(sec):
    """cancel() True stops the continuation with stop == "cancelled", keeping the members so far (the
    dashboard's cancel button)."""
    po = of.find_periodic_orbit(sec, ELL)
    seen = []
    fam = pe.continue_periodic_orbit(po, 3.0, progress=lambda n, E: seen.append(n), cancel=lambda: len(seen) >= 5)
    assert fam.stop == "cancelled" and len(fam) == 6 and seen == [2, 3, 4, 5, 6]
    assert np.all(np.diff(fam.E) < 0)


def test_a_family_that_stops_at_a_grazing_crossing_says_where_and_why(P, sec):
    """The hyperbolic family from E = 11.95 down stops at E = 4.1084 ("return map not smooth"): stopped_because
    locates the jump of the first return (time 1.678 s -> 0.839 s: a new crossing half-way round, the orbit grazing
    the section) and the independent scipy return map agrees on both sides of it; past it the same orbit is a
    fixed point of P^2 with the same period.  Before: only stop = "return map not smooth", no place, no reason."""
    po = of.find_periodic_orbit(sec, HYP)
    fam = pe.continue_periodic_orbit(po, 3.0)
    assert fam.stop == "return map not smooth" and fam.E[-1] == pytest.approx(4.1084275, abs=1e-6)
    why = fam.stopped_because
    assert "a new crossing of the section appears" in why and "from 1.67804 s to 0.839" in why, why
    import re
    E_j, phi_j, z_j = (float(v) for v in re.search(r"E = (\S+), \(phi, Gamma_3\) = \((\S+), (\S+)\)", why).groups())
    last = fam.orbits[-1]
    assert 0 < abs(E_j - last.E) < 1e-5 and abs(z_j - last.z) < 1e-5
    # scipy on the two sides of the jump (1e-6 of arclength before and after along the family's last chord)
    a, b = fam.orbits[-2], fam.orbits[-1]
    d = np.array([b.phi - a.phi, b.z - a.z, b.E - a.E])
    d /= np.linalg.norm(d)
    u_j = np.array([phi_j, z_j, E_j])
    T_side = []
    for h in (-2e-6, 2e-6):
        x = u_j + h * d
        st = PoincareSection(P, x[2], sec.mu).state_at(pe.sphere_from_chart(x[0], x[1]))
        T_side.append(scipy_return(P, st.Gamma, st.omega, 1)[2])
    assert T_side[0] == pytest.approx(1.678, abs=2e-3) and T_side[1] == pytest.approx(0.839, abs=2e-3)
    # past the jump: the same periodic orbit, as a fixed point of P^2 (two crossings now), with the same period
    past = of.find_periodic_orbit(PoincareSection(P, last.E - 1e-3, sec.mu), (last.phi, last.z), 2, radius=0.02)
    assert past.period == pytest.approx(last.period, abs=2e-3) and abs(past.z - last.z) < 2e-3
    # continue_across: the same orbit past the jump as a fixed point of P^2, continued further down in E
    assert fam.jump is not None and fam.jump[2] == pytest.approx(E_j, abs=1e-9)
    fam2 = of.continue_across(fam, 3.9, max_step=0.05)
    o2 = fam2.orbits[0]
    assert o2.k == 2 and 0 < last.E - o2.E < 1e-5 and o2.period == pytest.approx(last.period, abs=2e-3)
    assert fam2.E.min() < 4.0 and fam2.stop in ("reached end", "return map not smooth")
    G2, _w2, T2 = scipy_return(P, o2.Gamma, o2.omega, 2)  # scipy: its second return is itself
    assert np.linalg.norm(G2 - o2.Gamma) < 1e-8 and T2 == pytest.approx(o2.period, rel=1e-8)
    # every stop has its sentence; nothing to continue across where the family did not jump
    fam12 = pe.continue_periodic_orbit(po, 12.0)
    assert fam12.stopped_because == "reached E = 12" and fam12.jump is None
    with pytest.raises(ValueError, match="nothing to continue across"):
        of.continue_across(fam12, 15.0)


def test_a_family_crawling_in_tiny_steps_is_not_a_closed_loop():
    """``_revisits`` (the "closed loop" stop): a family nearing a pole takes steps of ~1e-5, so its newest member
    lay within 1e-4 of the member six back and it was stopped as "a closed loop" (the P² family continued across
    to E = 3 ended so at (1.5708, 1.0000), no earlier member nearby); a real loop still closes."""
    t = np.array([1.0, 0.0, 0.0])
    crawl = [np.array([1e-5 * k, 0.3, 0.9]) for k in range(40)]
    assert not of._revisits(crawl, [t] * 40, np.array([4e-4, 0.3, 0.9]), t)
    a = np.linspace(0.0, 2 * np.pi, 201)[:-1]
    ring = [np.array([0.1 * np.cos(x), 0.1 * np.sin(x), 0.9]) for x in a]
    tangents = [np.array([-np.sin(x), np.cos(x), 0.0]) for x in a]
    back = np.array([0.1, 2e-5, 0.9])  # the first members again, going the same way
    assert of._revisits(ring, tangents, back, np.array([0.0, 1.0, 0.0]))
