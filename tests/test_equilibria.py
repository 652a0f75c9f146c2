"""Equilibria and relative equilibria (Props 9 and 20), special cases, stability, completeness."""
import numpy as np
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from scipy.optimize import least_squares
from scipy.spatial import cKDTree

from pendulum_explorer.bodies import Pendulum
from pendulum_explorer.equilibria import (
    amended_potential, classify_eigenvalues, energy_momentum_data, equilibria, equilibria_at_mu,
    equilibrium_attitude, equilibrium_manifold, lp_linearization, lr_linearization,
)
from pendulum_explorer.errors import BalancedPendulumError
from pendulum_explorer.presets import lagrange_top, paper_fig1, paper_fig2, planar
from pendulum_explorer._core.dop853 import integrate_uniform
from pendulum_explorer._core.fields import FULL, LP, rhs

SETTINGS = settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow],
                    phases=[Phase.explicit, Phase.reuse, Phase.generate])


# ------------------------------------------------------------------------------------------------
# helpers (independent of the module under test)
# ------------------------------------------------------------------------------------------------
def residual(pend, G, w):
    """Relative residual of Eqs (35)-(36) and of |Gamma| = 1."""
    J, b = pend.J, pend.mgrho
    r35 = np.linalg.norm(np.cross(J @ w, w) + np.cross(b, G))
    scale = np.linalg.norm(J @ w) * np.linalg.norm(w) + np.linalg.norm(b)
    r36 = np.linalg.norm(np.cross(G, w)) / max(np.linalg.norm(w), 1e-300)
    return max(r35 / scale, r36, abs(G @ G - 1.0))


def max_residual(pend, eq):
    return max(residual(pend, p.Gamma, p.omega) for p in eq.points())


def random_rotation(rng):
    q = rng.normal(size=4)
    q /= np.linalg.norm(q)
    w, x, y, z = q
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
                     [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
                     [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]])


def body(moments_abc, rho_p, seed, m=1.3, g=9.81):
    """Pendulum with principal moments (b+c, a+c, a+b) (realizable), rho given in principal axes, expressed in a
    random frame (so exactly non-generic data arrives with rounding-level noise)."""
    a, b, c = moments_abc
    Q = random_rotation(np.random.default_rng(seed))
    D = np.diag([b + c, a + c, a + b])
    return Pendulum(Q @ D @ Q.T, Q @ np.asarray(rho_p, float), m, g)


def fib(n):
    i = np.arange(n) + 0.5
    z = 1 - 2 * i / n
    th = np.pi * (1 + 5 ** 0.5) * i
    r = np.sqrt(1 - z * z)
    return np.column_stack([r * np.cos(th), r * np.sin(th), z])


GRID = fib(30000)
_, NB = cKDTree(GRID).query(GRID, 9)


def brute_force_critical_points(pend, mu):
    """Critical points of V_mu on S^2: local minima of |grad V_mu| on a grid (+ the principal axes as starts),
    polished by least squares."""
    J, b = pend.J, pend.mgrho

    def grad(x):
        G = x / np.linalg.norm(x, axis=-1, keepdims=True)
        gJg = np.einsum("...i,ij,...j->...", G, J, G)
        g = -mu * mu * (G @ J) / gJg[..., None] ** 2 - b
        return g - np.sum(g * G, -1, keepdims=True) * G

    gn = np.linalg.norm(grad(GRID), axis=1)
    ax = np.linalg.eigh(J)[1].T
    cand = np.vstack([GRID[gn <= gn[NB].min(axis=1)], ax, -ax])
    found = []
    for x0 in cand:
        r = least_squares(grad, x0, xtol=1e-15, ftol=1e-15, gtol=1e-15, method="lm")
        G = r.x / np.linalg.norm(r.x)
        if np.linalg.norm(grad(G)) < 1e-10 * np.linalg.norm(b) and all(np.linalg.norm(G - F) > 1e-6 for F in found):
            found.append(G)
    return found


@pytest.fixture(scope="module")
def fig1():
    pend = paper_fig1().pendulum
    return pend, equilibria(pend)


# ------------------------------------------------------------------------------------------------
# residuals
# ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("make", [paper_fig1, paper_fig2, lagrange_top, planar])
def test_every_point_satisfies_35_36(make):
    pend = make().pendulum
    eq = equilibria(pend)
    pts = eq.points()
    assert len(pts) > 100
    assert max_residual(pend, eq) <= 1e-10
    for p in pts:
        assert np.all(np.isfinite(p.Gamma)) and np.all(np.isfinite(p.omega))
        assert np.isfinite(p.mu) and np.isfinite(p.energy)
        assert (p.family == "eq38") == np.isnan(p.alpha)


moments = st.tuples(*[st.floats(0.05, 1.0) for _ in range(3)])
comp = st.floats(-1.0, 1.0).filter(lambda x: abs(x) > 0.05)


@SETTINGS
@given(moments, st.tuples(comp, comp, comp), st.integers(0, 2 ** 31))
def test_generic_bodies(abc, rho, seed):
    pend = body(abc, rho, seed)
    eq = equilibria(pend)
    assert max_residual(pend, eq) <= 1e-10
    j = eq.case.principal_moments
    if np.ptp(j) > 0 and np.min(np.abs(np.diff(j))) > 1e-3 * j[0]:
        assert sorted(eq.labels) == ["L1", "L2", "L3", "L4"]
    for f in eq.curves():  # adaptive sampling: consecutive points <= 1 deg apart, all finite
        ang = np.arccos(np.clip(np.einsum("ij,ij->i", f.Gamma[1:], f.Gamma[:-1]), -1, 1))
        assert ang.max() <= np.deg2rad(1.0)
        assert np.all(np.isfinite(f.mu)) and np.all(np.isfinite(f.energy)) and not np.any(np.isnan(f.alpha))


@SETTINGS
@given(moments, st.tuples(comp, comp, comp), st.integers(0, 2), st.integers(0, 2 ** 31))
def test_one_rho_component_zero_gives_eq41(abc, rho, i, seed):
    rho = list(rho)
    rho[i] = 0.0
    pend = body(abc, rho, seed)
    eq = equilibria(pend)
    assert max_residual(pend, eq) <= 1e-10
    j = eq.case.principal_moments
    # principal axes are resolved to ~eps |J| / gap: with a gap of 1e-5 (abc = (0.99999, 1, 0.32)) rho's component
    # on the computed axis is ~3e-11, beyond rtol_rho = 1e-12, and the body is (rightly) generic; a gap > 1e-3 |J|
    # resolves it to ~5e-13
    if np.min(np.abs(np.diff(j))) > 1e-3 * j[-1]:
        # the zero component is the principal axis with moment (b+c, a+c, a+b)[i]
        a, b, c = abc
        Ji = [b + c, a + c, a + b][i]
        idx = int(np.argmin(np.abs(j - Ji)))
        assert f"eq41-p{idx + 1}" in eq.labels
        f = [f for f in eq.curves() if f.label == f"eq41-p{idx + 1}"][0]
        np.testing.assert_allclose(f.alpha, 1.0 / j[idx], rtol=1e-12)


@SETTINGS
@given(st.floats(0.05, 1.0), st.floats(0.05, 1.0), st.tuples(comp, comp, comp), st.integers(0, 3),
       st.integers(0, 2 ** 31))
def test_symmetric_and_axis_cases(a, c, rho, case, seed):
    # a = b: moments (a+c, a+c, 2a): J1 = J2 (c > a) or J2 = J3 (c < a), the symmetry axis is the third one
    rho = np.array(rho)
    if case == 0:    # rho on the symmetry axis (Lagrange top, case 7(a))
        rho[:2] = 0.0
    elif case == 1:  # rho perpendicular to the symmetry axis (case 7(b))
        rho[2] = 0.0
    elif case == 2:  # rho on a principal axis, distinct moments
        rho[1:] = 0.0
        c = c + 0.3 if abs(c - a) < 0.3 else c
    b2 = 0.7 * a + 0.1 if abs(0.3 * a - 0.1) > 0.05 else 0.7 * a + 0.2  # keep the "distinct" moment distinct
    pend = body((a, a, c), rho, seed) if case != 2 else body((a, b2, c), rho, seed)
    eq = equilibria(pend)
    assert max_residual(pend, eq) <= 1e-10
    labels = eq.labels
    if abs(c - a) > 1e-3:
        if case == 0:
            assert "eq7a" in labels and "axis-hanging" in labels and "axis-inverted" in labels
        elif case == 1:
            assert "eq7b" in labels
        elif case == 2:
            assert "axis-hanging" in labels and sum(lb.startswith("eq41") for lb in labels) >= 1
    if case in (0, 2):
        for f in eq.curves():
            if f.kind == "axis":  # the hanging/inverted attitude spinning about rho
                target = (1 if f.label == "axis-hanging" else -1) * pend.rho / np.linalg.norm(pend.rho)
                np.testing.assert_allclose(f.Gamma, np.broadcast_to(target, f.Gamma.shape), atol=1e-12)


def test_near_nongeneric_inputs_are_robust():
    base = paper_fig1().pendulum
    pp, Q = base.principal()
    for eps in (1e-6, 1e-9, 1e-11, 1e-13, 0.0):
        r = np.array(pp.rho)
        r[0] = eps * np.linalg.norm(r)
        pend = Pendulum(pp.J, r, pp.m, pp.g)
        eq = equilibria(pend)
        assert max_residual(pend, eq) <= 1e-10
        has41 = "eq41-p1" in eq.labels
        assert has41 == (eps <= 1e-12)
    for eps in (1e-8, 1e-14):  # J1 = J2 up to eps
        j = np.diag(pp.J).copy()
        j[1] = j[0] * (1 - eps)
        pend = Pendulum(np.diag(j), pp.rho, pp.m, pp.g)
        eq = equilibria(pend)
        assert max_residual(pend, eq) <= 1e-10
        assert eq.case.repeated_moments == (eps < 1e-12)


def test_balanced_raises():
    with pytest.raises(BalancedPendulumError):
        equilibria(Pendulum(np.diag([1.0, 2.0, 2.5]), [0.0, 0.0, 0.0]))


# ------------------------------------------------------------------------------------------------
# the paper's Fig. 1 body
# ------------------------------------------------------------------------------------------------
def test_fig1_structure(fig1):
    pend, eq = fig1
    assert eq.labels == ["L2", "L3", "L4", "L1"]  # no additional families (no rho_i vanishes)
    assert [p.family for p in eq.isolated] == ["hanging", "inverted", "eq38", "eq38"]
    curves = eq.curves()
    for a in range(4):
        for b in range(a + 1, 4):
            d = np.linalg.norm(curves[a].Gamma[:, None] - curves[b].Gamma[None], axis=2).min()
            assert d > 0.05, (curves[a].label, curves[b].label, d)  # mutually disjoint
    J1, J2, J3 = pend.principal_moments
    L = {f.label: f for f in curves}
    rh = pend.rho / np.linalg.norm(pend.rho)
    # sign-corrected Prop 9: alpha -> 0+ is the hanging point, alpha -> 0- the inverted one
    np.testing.assert_allclose(L["L2"].Gamma[0], rh, atol=1e-15)
    np.testing.assert_allclose(L["L1"].Gamma[-1], -rh, atol=1e-15)
    assert np.all((L["L2"].alpha >= 0) & (L["L2"].alpha < 1 / J1))
    assert np.all((L["L3"].alpha > 1 / J1) & (L["L3"].alpha < 1 / J2))
    assert np.all((L["L4"].alpha > 1 / J2) & (L["L4"].alpha < 1 / J3))
    assert np.all((L["L1"].alpha <= 0) | (L["L1"].alpha > 1 / J3))
    # close to alpha -> +-inf the L1 curve passes through the (38) point
    g38 = eq.point("eq38")[0].Gamma
    assert np.linalg.norm(L["L1"].Gamma - g38, axis=1).min() < 1e-6
    np.testing.assert_allclose(g38, -np.linalg.solve(pend.J, pend.rho) / np.linalg.norm(np.linalg.solve(pend.J, pend.rho)),
                               atol=1e-14)
    # Eq (77) and (34) at the (38) point
    p38 = eq.point("eq38")[0]
    k = p38.omega @ p38.Gamma
    assert p38.mu == pytest.approx(k * (p38.Gamma @ pend.J @ p38.Gamma), rel=1e-14)
    assert p38.energy == pytest.approx(0.5 * p38.omega @ pend.J @ p38.omega - pend.mgrho @ p38.Gamma, rel=1e-14)
    # curves end within 0.5 deg of +-e_i at the poles (principal axes)
    pp, Q = pend.principal()
    for lab, end in (("L2", -1), ("L3", 0), ("L3", -1), ("L4", 0), ("L4", -1), ("L1", 0)):
        G = L[lab].Gamma[end]
        assert np.max(np.abs(Q.T @ G)) >= np.cos(np.deg2rad(0.5))


# ------------------------------------------------------------------------------------------------
# completeness: brute-force critical points of the amended potential
# ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("make,mus", [(paper_fig1, [0.3, 1.0, 2.5, -1.7, 4.0]), (paper_fig2, [0.5, -1.2, 2.0]),
                                      (planar, [0.05, -0.3])])
def test_completeness_against_brute_force(make, mus):
    pend = make().pendulum
    eq = equilibria(pend)
    for mu in mus:
        found = brute_force_critical_points(pend, mu)
        ours = equilibria_at_mu(pend, mu, eq)
        assert len(found) == len(ours), (mu, [p.family for p in ours])
        for G in found:
            assert min(np.linalg.norm(G - p.Gamma) for p in ours) < 1e-8
        for p in ours:
            assert p.mu == pytest.approx(mu, rel=1e-12)
            assert residual(pend, p.Gamma, p.omega) <= 1e-10


def test_completeness_lagrange_top_ring():
    pend = lagrange_top().pendulum
    eq = equilibria(pend)
    f = [f for f in eq.curves() if f.label == "eq7a"][0]
    mu = float(np.median(f.mu))
    ours = equilibria_at_mu(pend, mu, eq, n_ring=36)
    found = brute_force_critical_points(pend, mu)
    ax = f.axis / np.linalg.norm(f.axis)
    heights = sorted({round(float(p.Gamma @ ax), 9) for p in ours})
    for G in found:  # every brute-force point lies on one of our circles (or is an axis point)
        assert min(abs(G @ ax - h) for h in heights) < 1e-8
    for h in heights:
        assert min(abs(G @ ax - h) for G in found) < 1e-8


def test_amended_potential_critical_points(fig1):
    pend, eq = fig1
    G = np.random.default_rng(1).normal(size=(4, 5, 3))
    G /= np.linalg.norm(G, axis=-1, keepdims=True)
    V = amended_potential(pend, 0.7, G)
    assert V.shape == (4, 5)
    np.testing.assert_allclose(V[1, 2], 0.49 / (2 * G[1, 2] @ pend.J @ G[1, 2]) - pend.mgrho @ G[1, 2], rtol=1e-14)
    for p in eq.points()[::37]:  # tangential finite-difference gradient vanishes at every point
        t1 = np.cross(p.Gamma, [1.0, 0.3, -0.2])
        t1 /= np.linalg.norm(t1)
        t2 = np.cross(p.Gamma, t1)
        h = 1e-5
        for t in (t1, t2):
            gp = (p.Gamma + h * t) / np.linalg.norm(p.Gamma + h * t)
            gm = (p.Gamma - h * t) / np.linalg.norm(p.Gamma - h * t)
            d = (amended_potential(pend, p.mu, gp) - amended_potential(pend, p.mu, gm)) / (2 * h)
            assert abs(d) < 1e-6 * (1 + abs(p.energy))


# ------------------------------------------------------------------------------------------------
# stability
# ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("make", [paper_fig1, paper_fig2, lagrange_top])
def test_hanging_inverted_modes(make):
    pend = make().pendulum
    eq = equilibria(pend)
    w = np.sort(pend.small_oscillations()["frequencies"])
    h, i = eq.hanging, eq.inverted
    assert h.stability == "elliptic-elliptic" and i.stability == "saddle-saddle"
    np.testing.assert_allclose(np.abs(h.eigenvalues.real), 0, atol=1e-9)
    np.testing.assert_allclose(np.sort(np.abs(h.eigenvalues.imag)), np.repeat(w, 2), rtol=1e-8)
    np.testing.assert_allclose(np.abs(i.eigenvalues.imag), 0, atol=1e-9)
    np.testing.assert_allclose(np.sort(np.abs(i.eigenvalues.real)), np.repeat(w, 2), rtol=1e-8)


def _nontrivial_lp(pend, G, w):
    _, ev = lp_linearization(pend, G, w)
    return ev[np.argsort(np.abs(ev))][2:]


def test_lr_eigenvalues_match_lp(fig1):
    pend, eq = fig1
    pts = eq.points()
    rng = np.random.default_rng(3)
    for p in [pts[i] for i in rng.choice(len(pts), 40, replace=False)] + eq.isolated:
        lp = _nontrivial_lp(pend, p.Gamma, p.omega)
        scale = np.abs(p.eigenvalues).max()
        for lam in p.eigenvalues:  # each LR eigenvalue is an LP eigenvalue
            assert np.abs(lp - lam).min() <= 1e-5 * scale, (p.family, p.eigenvalues, lp)


def test_branches_share_spectrum(fig1):
    pend, eq = fig1
    for f in eq.curves(-1):
        for i in range(0, len(f), max(1, len(f) // 5)):
            _, ev, cls = lr_linearization(pend, f.Gamma[i], f.mu[i])
            assert cls == f.stability[i] or "degenerate" in (cls, f.stability[i])
            for lam in ev:
                assert np.abs(f.eigenvalues[i] - lam).min() <= 1e-6 * np.abs(ev).max()


def test_classifier():
    assert classify_eigenvalues([1j, -1j, 2j, -2j]) == "elliptic-elliptic"
    assert classify_eigenvalues([1, -1, 2j, -2j]) == "saddle-centre"
    assert classify_eigenvalues([1, -1, 2, -2]) == "saddle-saddle"
    assert classify_eigenvalues([1 + 1j, 1 - 1j, -1 + 1j, -1 - 1j]) == "focus-focus"
    assert classify_eigenvalues([0, 0, 2j, -2j]) == "degenerate"


def test_fig1_has_stability_changes(fig1):
    _, eq = fig1
    L = {f.label: f for f in eq.curves()}
    assert set(L["L3"].stability) >= {"elliptic-elliptic", "saddle-centre"}
    assert set(L["L1"].stability) >= {"focus-focus", "saddle-saddle"}
    assert eq.point("eq38")[0].stability == "focus-focus"


def test_stable_relative_equilibria_stay_put(fig1):
    pend, eq = fig1
    chosen = []
    for f in eq.curves():
        ok = np.nonzero((f.stability == "elliptic-elliptic") & (np.abs(f.mu) > 0.2) & (f.energy < 10))[0]
        if len(ok):
            chosen.append((f.label, ok[len(ok) // 2], f))
    assert len(chosen) >= 3
    Y = np.empty((201, 6))
    for label, i, f in chosen:
        y0 = np.concatenate([f.Gamma[i], f.omega[i]])
        stats = integrate_uniform(LP, y0, 10.0, 201, pend.params(0.0), 1e-12, 1e-14, 10 ** 6, Y)
        assert stats[3] == 0
        assert np.abs(Y[:, :3] - f.Gamma[i]).max() <= 1e-8, label


# ------------------------------------------------------------------------------------------------
# full model: equilibrium manifolds H and I (Eqs 10-13); energy-momentum data
# ------------------------------------------------------------------------------------------------
def test_equilibrium_attitudes(fig1):
    pend, eq = fig1
    for which, sgn in (("hanging", 1), ("inverted", -1)):
        Rs = equilibrium_manifold(pend, which, n=12)
        for R in Rs:
            np.testing.assert_allclose(R @ R.T, np.eye(3), atol=1e-14)
            assert np.linalg.det(R) == pytest.approx(1.0, abs=1e-14)
            np.testing.assert_allclose(R.T @ [0, 0, 1], sgn * pend.rho / np.linalg.norm(pend.rho), atol=1e-14)
            dy = np.empty(12)
            rhs(FULL, 0.0, np.concatenate([R.ravel(), np.zeros(3)]), pend.params(0.0), dy)
            assert np.abs(dy).max() < 1e-14
    p = eq.point("eq38")[0]
    R = equilibrium_attitude(p.Gamma, 0.4)
    np.testing.assert_allclose(R.T @ [0, 0, 1], p.Gamma, atol=1e-14)


def test_energy_momentum_data(fig1):
    pend, eq = fig1
    d = energy_momentum_data(eq)
    assert len(d.curves) == 2 * len(eq.curves()) and len(d.points) == 4
    assert d.mgrho == pytest.approx(pend.m * pend.g * np.linalg.norm(pend.rho))
    for c, f in zip(d.curves, eq.families):
        np.testing.assert_array_equal(c.mu, f.mu)
        assert len(c.stability) == len(c.energy)
    # the minimum energy at mu = 0 is the hanging point: -m g |rho|
    assert min(p.energy for p in d.points) == pytest.approx(-d.mgrho, rel=1e-14)


# ------------------------------------------------------------------------------------------------
# the per-pendulum cache under threads
# ------------------------------------------------------------------------------------------------
def _in_six_threads(target):
    """Run ``target(i)`` in six threads released together; returns their results in order."""
    import threading
    barrier = threading.Barrier(6)
    out = [None] * 6

    def run(i):
        barrier.wait()
        out[i] = target(i)
    threads = [threading.Thread(target=run, args=(i,)) for i in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return out


def test_six_threads_asking_the_cached_equilibria_compute_them_once(monkeypatch):
    """equilibria_at_mu without ``eq`` uses the pendulum's cached equilibria: six threads asking at once compute
    them once and share the one EquilibriumSet (they computed them six times, six objects, before)."""
    from pendulum_explorer.equilibria import at_mu
    calls = []
    real = at_mu.equilibria

    def counted(p):
        calls.append(1)
        return real(p)
    monkeypatch.setattr(at_mu, "equilibria", counted)
    pp = paper_fig1().pendulum
    P = Pendulum(pp.J, pp.rho, pp.m, pp.g)  # a fresh pendulum: nothing cached yet
    got = _in_six_threads(lambda i: (at_mu.equilibria_at_mu(P, 0.0), P.cached("equilibria", counted)))
    assert len(calls) == 1
    assert all(g[1] is got[0][1] for g in got)
    assert all(g[0][0] is got[0][1].hanging and g[0][1] is got[0][1].inverted for g in got)


def test_pendulum_cache_computes_once_and_keeps_nothing_after_an_error():
    import time
    P = Pendulum(np.diag([2.0, 1.5, 1.0]), [0.1, 0.2, 0.3])
    calls = []

    def slow(p):  # slow enough that the six threads all ask before the first computation ends
        calls.append(1)
        time.sleep(0.2)
        return object()
    got = _in_six_threads(lambda i: P.cached("slow", slow))
    assert len(calls) == 1 and all(g is got[0] for g in got)

    def fails(p):
        raise RuntimeError("no")
    with pytest.raises(RuntimeError):
        P.cached("other", fails)
    assert P.cached("other", lambda p: 42) == 42


@pytest.mark.parametrize("ev, exc, needle", [
    ([1, 2, 3], "ShapeError", r"4 eigenvalues, shape \(4,\) or \(n, 4\).*got shape \(3,\)"),
    ([[1, 2, 3, 4, 5]], "ShapeError", r"got shape \(1, 5\)"),
    ("abcd", "ShapeError", "dtype <U4"),
    ([[1, 2], [3]], "ShapeError", "shape"),
    ([np.nan, 1, 2, 3], "InvalidStateError", "ev must be finite"),
    ([1j, -1j, 2j, -2j], "InvalidStateError", r"rtol must be finite and in \(0, 1\)"),
])
def test_classify_eigenvalues_refuses_what_is_not_four_eigenvalues(ev, exc, needle):
    """``classify_eigenvalues([1, 2, 3])`` returned "degenerate" (issue 26 item 8)."""
    from pendulum_explorer import errors

    kw = {"rtol": 2.0} if "rtol" in needle else {}
    with pytest.raises(getattr(errors, exc), match=needle):
        classify_eigenvalues(ev, **kw)


@pytest.mark.parametrize("mu", [1e-12, -1e-9, 1e-6, 1e-3, 0.5])
def test_equilibria_at_a_tiny_mu_have_that_mu(mu):
    """Near the hanging and inverted equilibria mu ~ sqrt(s) along a family, so the root in the family parameter
    left mu = 1e-12 at 6.8e-9 and 1e-6 at 1.0000023e-6 (reported as the equilibria at that mu).  Each point now
    has the requested mu to 1e-12 relative (Eq 77 from its omega and Gamma) and solves Eqs (35)-(36)."""
    P = paper_fig1().pendulum
    pts = equilibria_at_mu(P, mu)
    assert len(pts) == 2  # the two families that leave the hanging and the inverted equilibria
    for q in pts:
        assert q.mu == pytest.approx(mu, rel=1e-12)
        assert float(P.J @ q.omega @ q.Gamma) == pytest.approx(mu, rel=1e-12)
        assert residual(P, q.Gamma, q.omega) < 1e-12
