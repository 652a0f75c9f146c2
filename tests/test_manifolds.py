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


def test_homoclinic_points(man, sec):
    """The branches cross (measured N points with length 2); a homoclinic point's forward returns approach the
    orbit (stable side) and its backward ones too (unstable side, by the reversor)."""
    H = man.homoclinic
    assert len(H) >= 2
    for h in H:
        for br in (man.unstable, man.stable):
            assert min(mf.distance_to_polyline(h, B)[0] for B in br) < 1e-9
    assert np.all(np.hypot(np.remainder(H[:, 0] - man.orbit.phi + math.pi, 2 * math.pi) - math.pi,
                           H[:, 1] - man.orbit.z) > 0.05)


def test_manifold_errors(sec, hyp):
    ell = of.find_periodic_orbit(sec, (math.pi / 2, 0.961))
    with pytest.raises(InvalidStateError, match="not hyperbolic"):
        pe.invariant_manifolds(ell)
    with pytest.raises(InvalidIntegrationError, match="branches"):
        pe.invariant_manifolds(hyp, branches="left")
    with pytest.raises(InvalidIntegrationError, match="length"):
        pe.invariant_manifolds(hyp, length=-1.0)
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
