"""Invariant manifolds of the hyperbolic k = 1 orbit at E = 11.95 (Fig. 2 body; issue 21, item 2): invariance
of the curves under the return map (scipy solve_ivp and the library's crossings), the stable branch contracting
onto the orbit, the inverse map by Newton's method against the reversing symmetry, homoclinic points."""
import math

import numpy as np
import pytest

import pendulum_explorer as pe
from pendulum_explorer import manifolds as mf
from pendulum_explorer import orbit_families as of
from pendulum_explorer.errors import InvalidIntegrationError, InvalidStateError
from pendulum_explorer.poincare import PoincareSection

from section_reference import chart, scipy_return


@pytest.fixture(scope="module")
def P():
    return pe.presets.paper_fig2().pendulum


@pytest.fixture(scope="module")
def sec(P):
    return PoincareSection.from_paper_ic(P, 11.95)[0]


@pytest.fixture(scope="module")
def hyp(sec):
    return of.find_periodic_orbit(sec, (math.pi / 2, 0.5118))


@pytest.fixture(scope="module")
def man(hyp):
    return pe.invariant_manifolds(hyp, length=2.0)


def test_unstable_manifold_is_invariant(man, sec, P):
    """Edge midpoints of the unstable branches map onto the branches: max distance measured 8.4e-6 at |z| <= 0.999
    (1.5e-4 with the points next to the poles, where the chart stretches phi) at max_gap = 0.01; 12 of them checked
    by the scipy return map."""
    # each branch meets jumps of the return map (first after 1.10-1.18 of chart length near (0.607, 0.9735), where
    # the next return of one side passes the hanging pole): NaN rows break the polyline there (104-137 per branch)
    assert man.inverse == "reversor phi -> pi - phi" and not man.truncated
    assert len(man.unstable) == len(man.stable) == 2
    lu, ls = man.multipliers
    assert lu == pytest.approx(1.8846580, rel=1e-6) and lu * ls == pytest.approx(1.0, abs=1e-8)
    for br in man.unstable + man.stable:
        assert np.allclose(br[0], [man.orbit.phi, man.orbit.z], atol=1e-5)
        seg = np.linalg.norm(np.diff(br, axis=0), axis=1)
        assert np.isnan(br[:, 0]).sum() >= 1
        assert 2.0 <= np.nansum(seg) <= 2.0 + 0.05
        assert np.nanmax(seg) < 0.05
    err = mf.invariance_error(man, 200)
    assert err < 2e-5
    U = man.unstable[0]
    mid = 0.5 * (U[20:260:20] + U[21:261:20])
    mid = mid[np.all(np.isfinite(mid), axis=1) & (np.abs(mid[:, 1]) < 0.99)]
    img = []
    for p in mid:
        st = sec.state_at(pe.sphere_from_chart(math.remainder(p[0], 2 * math.pi), p[1]))
        G1, _w1, _t = scipy_return(P, st.Gamma, st.omega)
        img.append(chart(G1))
    assert mf.distance_to_polyline(np.array(img), U).max() < 2e-5


def test_stable_manifold_contracts_onto_the_orbit(man, sec):
    S = man.stable[1]
    s = np.concatenate([[0], np.cumsum(np.linalg.norm(np.diff(S, axis=0), axis=1))])
    p = S[np.searchsorted(s, 0.3)]
    d0 = math.hypot(math.remainder(p[0] - man.orbit.phi, 2 * math.pi), p[1] - man.orbit.z)
    c = sec.crossings(pe.sphere_from_chart(math.remainder(p[0], 2 * math.pi), p[1]), 8)
    ph, z = c.chart
    d = np.hypot(np.remainder(ph - man.orbit.phi + math.pi, 2 * math.pi) - math.pi, z - man.orbit.z)
    assert d[-1] < 0.05 * d0  # lambda_s^8 = 0.53^8 = 6e-3
    # its image stays on the stable curve
    assert mf.distance_to_polyline(np.stack([ph[:3], z[:3]], -1), S).max() < 2e-5


def test_newton_inverse_agrees_with_the_reversor(hyp):
    a = pe.invariant_manifolds(hyp, length=0.5, branches="stable")
    b = pe.invariant_manifolds(hyp, length=0.5, branches="stable", inverse="newton")
    assert b.inverse == "newton" and a.unstable == [] and b.unstable == []
    for A, B in zip(a.stable, b.stable):
        assert mf.distance_to_polyline(B[::5], A).max() < 1e-6


def _on_sphere_distance(points, polyline):
    """Distance along the sphere of chart points (m, 2) to a chart polyline (the polyline's chords in 3D; the
    distance in the tangent plane at each point)."""
    G = pe.sphere_from_chart(points[:, 0], points[:, 1]).reshape(-1, 3)
    fin = np.all(np.isfinite(polyline), axis=1)
    Q = np.full((len(polyline), 3), np.nan)
    Q[fin] = pe.sphere_from_chart(polyline[fin, 0], polyline[fin, 1])
    a, d = Q[:-1], np.diff(Q, axis=0)
    ok = np.all(np.isfinite(d), axis=1)
    a, d = a[ok], d[ok]
    w = np.clip(np.einsum("mkj,kj->mk", G[:, None] - a[None], d) / np.einsum("kj,kj->k", d, d), 0, 1)
    off = G[:, None] - (a[None] + w[..., None] * d[None])
    off -= np.einsum("mkj,mj->mk", off, G)[..., None] * G[:, None]  # along the sphere (a chord is inside it)
    return np.linalg.norm(off, axis=2).min(axis=1)


def test_no_homoclinic_points_where_the_branches_run_together(man):
    """At E = 11.95 with branches of length 2 the unstable branch U[1] and the stable branch S[0] (and their
    mirror images) cross 190 times in the chart, 166 of them in the polar caps |Gamma_3| > 0.99 (154 next to the
    inverted pole, 12 next to the hanging one) and 24 near (0.648, 0.97-0.99) and its mirror image: there the two
    branches run within 1e-5 (mostly 2e-6) of each other on the sphere (their own accuracy: they move by up to
    4.6e-5 with eps or max_gap) and cross back and forth at that level, at angles of 8e-6 to 0.1 rad (the set of
    chart crossings changes with eps and max_gap: 136 with eps = 1e-7, 118 with max_gap = 0.005).  None of them
    is a resolved crossing: none is a homoclinic point.  Before: all 190 were homoclinic points."""
    assert man.homoclinic.shape == (0, 2)
    X = [mf._crossings(U, S, 0.05) for U in man.unstable for S in man.stable]
    pts = np.vstack([x[0] for x in X])
    assert len(pts) == 190 and int((np.abs(pts[:, 1]) > 0.99).sum()) == 166
    assert int((pts[:, 1] < -0.99).sum()) == 154 and int((pts[:, 1] > 0.99).sum()) == 12
    # next to every chart crossing, on one side of it or both, the unstable branch's next 4 points are within 1e-5
    # of the stable branch on the sphere: the two run together there
    for (U, S), (_X, ia, _ib) in zip([(U, S) for U in man.unstable for S in man.stable], X):
        for i in ia:
            sides = [U[max(i - 3, 0):i + 1], U[i + 1:i + 5]]
            assert min(_on_sphere_distance(q[np.all(np.isfinite(q), axis=1)], S).max() for q in sides) < 1e-5


@pytest.fixture(scope="module")
def man883(P):
    sec = PoincareSection.from_paper_ic(P, 8.83)[0]
    return pe.invariant_manifolds(of.find_periodic_orbit(sec, (math.pi / 2, 0.6251)), length=2.0)


def test_homoclinic_points_are_resolved_crossings_on_the_sphere(man883):
    """E = 8.83, the hyperbolic orbit (pi/2, 0.6251) (multiplier 4.37), branches of length 2: 10 homoclinic points
    in 5 mirror pairs (phi -> pi - phi), 2 of them in the cap next to the hanging pole, at (0.78848, 0.99923),
    where the branches cross at 3e-3 rad and part by 3e-5 before both run into the pole (the same to 1e-6 with
    eps = 1e-7 or max_gap = 0.005).  Each lies on an unstable and on a stable branch (to 1e-9 in the chart, 2.5e-5
    on the sphere) with the branches on opposite sides of each other before and after it; its forward and
    backward returns approach the orbit."""
    m = man883
    H = m.homoclinic
    assert len(H) == 10 and int((np.abs(H[:, 1]) > 0.99).sum()) == 2
    h = H[np.argsort(H[:, 0])]
    np.testing.assert_allclose(h[[0, -1]], [[0.788481, 0.999233], [2.353112, 0.999233]], atol=2e-6)
    np.testing.assert_allclose(np.sort(math.pi - H[:, 0]), h[:, 0], atol=1e-5)  # mirror pairs
    for x in H:
        for br in (m.unstable, m.stable):
            assert min(mf.distance_to_polyline(x, B)[0] for B in br) < 1e-9
            # on the sphere the chord between two points of a branch and the image of the chart's straight segment
            # between them part by up to about max_gap^2 / 8 (measured 1.2e-5 at max_gap = 0.01)
            assert min(_on_sphere_distance(x[None], B)[0] for B in br) < 0.01 ** 2 / 4
    o = m.orbit
    d = np.hypot(np.remainder(H[:, 0] - o.phi + math.pi, 2 * math.pi) - math.pi, H[:, 1] - o.z)
    assert np.all(d > 0.05)
    sec = o.section()
    closest = []
    for x in H:  # H holds each point's mirror image: its backward returns, reflected
        ph, z = sec.crossings(pe.sphere_from_chart(x[0], x[1]), 8).chart
        closest.append(np.hypot(np.remainder(ph - o.phi + math.pi, 2 * math.pi) - math.pi, z - o.z).min())
    assert np.all(np.array(closest) < 0.2 * d) and np.median(np.array(closest) / d) < 0.05  # measured 0.137, 0.027
    from pendulum_explorer.plotting.bifurcation import manifold_traces, shown_homoclinic
    (tr,) = [t for t in manifold_traces(m) if t.name == "homoclinic points"]
    assert len(tr.x) == len(shown_homoclinic(m)) == 8  # the chart leaves the polar caps out
    # a stricter tolerance drops the pair next to the pole (the branches part by 3e-5 there), none drops all
    strict = pe.invariant_manifolds(o, length=2.0, crossing_tol=1e-4)
    assert len(strict.homoclinic) == 8 and np.all(np.abs(strict.homoclinic[:, 1]) < 0.99)


def test_chart_crossings_of_branches_within_the_tolerance_are_left_out():
    """Two polylines on the sphere that cross at a right angle have one homoclinic point; two that run along each
    other 1e-7 apart, swapping sides every 4 points, cross 40 times in the chart and have none (also next to the
    pole, and across phi = +-pi, where the chart's phi wraps)."""
    t = np.linspace(-0.2, 0.2, 41)
    A = np.c_[t + 1.0, 0.3 + 0 * t]
    B = np.c_[1.0 + 0 * t, 0.3 + t]
    H = mf._homoclinic([A], [B], 0.0, 1e-5, 0.2)  # at a point of both (no side there)
    np.testing.assert_allclose(H, [[1.0, 0.3]], atol=1e-12)
    H = mf._homoclinic([A + [0.0025, 0.0]], [B], 0.0, 1e-5, 0.2)  # between points
    np.testing.assert_allclose(H, [[1.0, 0.3]], atol=1e-12)
    for phi0, z0 in ((1.0, 0.3), (math.pi, 0.2), (0.0, 0.995)):
        s = np.linspace(0.0, 0.4, 161)
        A = np.c_[phi0 - 0.2 + s, z0 + 0.01 * s]
        wig = 1e-7 * np.sign(np.sin(s * 40 * math.pi / 0.4 + 0.3))
        B = A + np.c_[0 * s, wig]
        assert len(mf._crossings(A, B, 0.0)[0]) == 40
        assert mf._homoclinic([A], [B], 0.0, 1e-5, 0.2).shape == (0, 2)


def test_manifold_errors(sec, hyp):
    ell = of.find_periodic_orbit(sec, (math.pi / 2, 0.961))
    with pytest.raises(InvalidStateError, match="not hyperbolic"):
        pe.invariant_manifolds(ell)
    with pytest.raises(InvalidIntegrationError, match="branches"):
        pe.invariant_manifolds(hyp, branches="left")
    with pytest.raises(InvalidIntegrationError, match="length"):
        pe.invariant_manifolds(hyp, length=-1.0)
    with pytest.raises(InvalidIntegrationError, match="crossing_tol"):
        pe.invariant_manifolds(hyp, crossing_tol=-1e-6)
    small = pe.invariant_manifolds(hyp, length=5.0, max_maps=500)
    assert small.truncated and small.n_maps <= 500


def test_progress_cancel_and_the_chart_traces(hyp):
    """invariant_manifolds reports its progress in [0, 1] (non-decreasing) and stops at a cancel (truncated, with
    the branches grown so far); manifold_traces draws one line per manifold with phi in (-pi, pi] and gaps where
    a branch crosses phi = +-pi."""
    from pendulum_explorer.plotting.bifurcation import MANIFOLD_COLOURS, manifold_traces, wrapped_polyline
    seen = []
    m = pe.invariant_manifolds(hyp, length=0.5, progress=seen.append)
    assert seen and all(0 <= f <= 1 for f in seen) and seen == sorted(seen) and seen[-1] > 0.7
    calls = []
    c = pe.invariant_manifolds(hyp, length=2.0, progress=calls.append, cancel=lambda: len(calls) >= 3)
    full = pe.invariant_manifolds(hyp, length=2.0, branches="unstable")
    assert c.truncated and not full.truncated and c.n_maps < full.n_maps and len(calls) == 3
    assert len(c.unstable) == len(c.stable) == 2  # every branch is there, grown as far as it got
    tr = manifold_traces(m, orbit_marker=False)
    names = [t.name for t in tr]
    assert names[:2] == ["stable manifold of the period-1 orbit", "unstable manifold of the period-1 orbit"]
    assert tr[0].line.color == MANIFOLD_COLOURS["stable"] and tr[1].line.color == MANIFOLD_COLOURS["unstable"]
    x = np.asarray(tr[1].x, dtype=float)
    assert np.nanmax(np.abs(x)) <= math.pi and np.isnan(x).sum() >= 1  # the two branches, joined by a gap
    assert np.isfinite(x).sum() == sum((np.isfinite(b[:, 0]) & (np.abs(b[:, 1]) <= 0.99)).sum()
                                   for b in m.unstable)  # all the points but those in the polar caps
    w = wrapped_polyline(np.array([[3.0, 0.1], [3.2, 0.2], [3.4, 0.3]]))
    assert w.shape == (4, 2) and w[0, 0] == 3.0 and np.isnan(w[1]).all()
    np.testing.assert_allclose(w[2:], [[3.2 - 2 * math.pi, 0.2], [3.4 - 2 * math.pi, 0.3]], atol=1e-12)
    cap = wrapped_polyline(np.array([[0.1, 0.99], [0.2, 0.9995], [2.0, 0.9996], [2.1, 0.99]]), z_max=0.999)
    assert np.isnan(cap[1:3]).all() and np.isfinite(cap[[0, 3]]).all()  # no line along the chart's edge


def test_invariance_error_of_a_strongly_unstable_orbit(P):
    """The k = 1 orbit at E = 8.83 (phi = pi/2, Gamma3 = 0.625) has multiplier 4.37: most of a branch's vertices
    are its last complete level, whose images lie beyond the branch's end.  The old measure took the first 60 % of
    the vertices and reported 1.4 (2.42 for a multiplier of 17.9) on correct manifolds; it now takes the levels
    whose images the branch holds (the levels' first rows are in ``Manifolds.levels``)."""
    sec = PoincareSection.from_paper_ic(P, 8.83)[0]
    o = of.find_periodic_orbit(sec, (math.pi / 2, 0.625))
    man = pe.invariant_manifolds(o, length=2.0)
    assert man.multipliers[0] == pytest.approx(4.366, rel=1e-3) and man.power == 1
    for U, starts in zip(man.unstable, man.levels):
        assert len(starts) >= 3 and list(starts) == sorted(starts) and starts[-1] < len(U)
        assert np.allclose(U[starts[0]], U[1])
    err = mf.invariance_error(man, 100)
    assert 0.0 < err < 1e-3
