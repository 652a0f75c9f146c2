"""Poincaré section engine: section states, crossings, Lagrange-top turning points, an independent
scipy event search, chart maps, batches (default thread pool and a dask executor), figures and every error path."""
import math

import numpy as np
import pytest
from scipy.integrate import solve_ivp

from pendulum_explorer import presets
from pendulum_explorer._core import section as ksec
from pendulum_explorer._core.fields import LP, energy_lp, lr_omega, mu_lp
from pendulum_explorer._core.taylor_lanes import LANES as LANES_T
from pendulum_explorer.bodies import Pendulum
from pendulum_explorer.errors import (InaccessibleError, InvalidIntegrationError, InvalidStateError,
                                      ShapeError)
from pendulum_explorer.poincare import (Crossings, PoincareSection, amended_potential, chart_from_sphere,
                                        paper_initial_state, sphere_from_chart)

FIG2_ENERGIES = (-2.65, 0.0, 2.03, 8.83, 11.95)


@pytest.fixture(scope="module")
def fig2():
    return presets.paper_fig2().pendulum


@pytest.fixture(scope="module")
def sec0(fig2):
    return PoincareSection.from_paper_ic(fig2, 0.0)


def _energy_lr(Gamma, Gammadot, p):
    """Eq (71): the energy of a Lagrange-Routh state (Eq 34 at the omega of Eq 69)."""
    w = np.empty(3)
    lr_omega(Gamma, Gammadot, p, w)
    return energy_lp(Gamma, w, p)


def _random_unit(rng, k):
    v = rng.normal(size=(k, 3))
    return v / np.linalg.norm(v, axis=1)[:, None]


# ------------------------------------------------------------------------------------------------
# section states
# ------------------------------------------------------------------------------------------------
def test_state_at_satisfies_the_three_conditions(fig2, sec0):
    sec, _ = sec0
    rng = np.random.default_rng(1)
    p = fig2.params(sec.mu)
    n_ok = 0
    for G in _random_unit(rng, 400):
        if sec.slack(G) <= 0.0:
            with pytest.raises(InaccessibleError):
                sec.state_at(G)
            continue
        st = sec.state_at(G)
        n_ok += 1
        assert st.Gammadot[2] == 0.0  # e3^T Gammadot = 0
        assert np.cross(st.Gamma, st.Gammadot)[2] > 0.0  # orientation
        assert abs(energy_lp(st.Gamma, st.omega, p) - sec.energy) <= 1e-12 * sec.energy_scale
        assert abs(_energy_lr(st.Gamma, st.Gammadot, p) - sec.energy) <= 1e-12 * sec.energy_scale
        assert abs(mu_lp(st.Gamma, st.omega, p) - sec.mu) <= 1e-14 * sec.mu_scale
        np.testing.assert_allclose(np.cross(st.Gamma, st.omega), st.Gammadot, atol=1e-13 * (1 + np.abs(st.Gammadot).max()))
        assert abs(st.Gamma @ st.Gammadot) <= 1e-14 * (1 + np.linalg.norm(st.Gammadot))
        np.testing.assert_allclose(st.lr_state, np.concatenate([st.Gamma, st.Gammadot]))
    assert 50 < n_ok < 400  # E = 0 at this mu: a proper part of the sphere


def test_state_at_is_unique_and_vectorised(sec0):
    sec, _ = sec0
    rng = np.random.default_rng(2)
    Gs = _random_unit(rng, 200)
    Y, ok = sec.states_at(Gs)
    assert ok.sum() > 20 and (~ok).sum() > 20
    for k in range(200):
        if ok[k]:
            st = sec.state_at(Gs[k])
            np.testing.assert_allclose(Y[k, :3], st.Gamma, rtol=0, atol=1e-15)
            np.testing.assert_allclose(Y[k, 3:], st.omega, rtol=1e-13, atol=1e-13)
        else:
            assert np.all(np.isnan(Y[k]))
    # uniqueness: any tangent vector along d with e3^T Gammadot = 0 on the level is the returned one
    G = Gs[np.nonzero(ok)[0][0]]
    st = sec.state_at(G)
    d = np.cross([0, 0, 1.0], G)
    d /= np.linalg.norm(d)
    p = sec.pendulum.params(sec.mu)
    for s in np.linspace(-2, 2, 9) * np.linalg.norm(st.Gammadot):
        if abs(s - np.linalg.norm(st.Gammadot)) < 1e-12:
            continue
        assert abs(_energy_lr(G, s * d, p) - sec.energy) > 1e-6 or s < 0


def test_inaccessible_error_reports_shortfall(fig2):
    sec = PoincareSection(fig2, -2.0, 0.3)
    G = np.array([0.0, math.sin(2.5), math.cos(2.5)])  # well above: high potential
    V = amended_potential(fig2, 0.3, G)
    assert V > -2.0
    with pytest.raises(InaccessibleError) as ei:
        sec.state_at(G)
    msg = str(ei.value)
    assert "falls short" in msg and f"{V + 2.0:.6g}" in msg
    # the boundary itself (E == V_mu) is not on the section (Gammadot = 0 violates the strict inequality)
    sec_b = PoincareSection(fig2, float(V), 0.3)
    with pytest.raises(InaccessibleError):
        sec_b.state_at(G)


@pytest.mark.parametrize("G, exc", [
    ([0.0, 0.0, 1.0], InvalidStateError),
    ([0.0, 0.0, -1.0], InvalidStateError),
    ([5e-10, 0.0, math.sqrt(1 - 25e-20)], InvalidStateError),
    ([0.0, 1.0, 0.1], InvalidStateError),  # not a unit vector
    ([np.nan, 0.0, 1.0], InvalidStateError),
    ([1.0, 0.0], ShapeError),
])
def test_state_at_invalid(sec0, G, exc):
    sec, _ = sec0
    with pytest.raises(exc) as ei:
        sec.state_at(G)
    if G in ([0.0, 0.0, 1.0], [0.0, 0.0, -1.0]):
        assert "pole" in str(ei.value)


def test_near_pole_beyond_tolerance_is_fine(sec0):
    sec, _ = sec0
    G = np.array([1e-8, 0.0, math.sqrt(1 - 1e-16)])
    if sec.slack(G) > 0:
        st = sec.state_at(G)
        assert np.all(np.isfinite(st.omega)) and st.Gammadot[2] == 0.0


# ------------------------------------------------------------------------------------------------
# crossings
# ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("E", [0.0, 11.95])
def test_crossings_on_section_and_level_1000(fig2, E):
    sec, seed = PoincareSection.from_paper_ic(fig2, E)
    r = sec.crossings(seed, 1000)
    assert r.complete and r.n_found == 1000 and r.status == "ok"
    dE, dmu, g, s = sec.level_errors(r.Gamma, r.omega)
    assert np.abs(g).max() <= 1e-10
    assert np.abs(r.Gammadot[:, 2]).max() <= 1e-10
    assert s.min() > 0.0
    assert dE.max() <= 1e-8 and dmu.max() <= 1e-8
    assert np.all(np.diff(r.t) > 0) and r.t[0] > 0
    np.testing.assert_allclose(np.linalg.norm(r.Gamma, axis=1), 1.0, atol=1e-8)
    np.testing.assert_allclose(np.cross(r.Gamma, r.omega), r.Gammadot, rtol=0, atol=1e-14 * (1 + np.abs(r.Gammadot).max()))
    # all crossings are accessible points of the section
    assert np.all(sec.slack(r.Gamma) > -1e-8 * sec.energy_scale)


def test_crossings_from_section_point_continue_the_orbit(sec0):
    sec, seed = sec0
    r = sec.crossings(seed, 30)
    # restart from the 10th crossing as a section Gamma: the state there is the same point of P,
    # so the next crossings coincide with the continuation of the original orbit (regular enough here)
    r2 = sec.crossings(r.Gamma[9], 5)
    np.testing.assert_allclose(r2.Gamma, r.Gamma[10:15], atol=1e-7)
    np.testing.assert_allclose(r2.t, r.t[10:15] - r.t[9], atol=1e-7)
    # the seed as an LP pair, (6,) and (2, 3) give identical results
    G0, w0 = seed
    a = sec.crossings((G0, w0), 5)
    b = sec.crossings(np.concatenate([G0, w0]), 5)
    c = sec.crossings(np.stack([G0, w0]), 5)
    np.testing.assert_array_equal(a.Gamma, b.Gamma)
    np.testing.assert_array_equal(a.Gamma, c.Gamma)
    d = sec.crossings(sec.state_at(r.Gamma[9]), 5)
    np.testing.assert_array_equal(d.Gamma, r2.Gamma)


def test_lagrange_top_crossings_are_nutation_turning_points():
    P = presets.lagrange_top().pendulum
    Jt, Ja = P.J[0, 0], P.J[2, 2]
    assert P.J[1, 1] == Jt
    mgl = P.m * P.g * P.rho[2]
    # a generic state: Gamma tilted, omega with spin
    G0 = np.array([math.sin(0.9) * math.cos(0.3), math.sin(0.9) * math.sin(0.3), math.cos(0.9)])
    w0 = np.array([1.3, -0.7, -2.5])  # spin against the precession so that Gamma turns positively about e3
    sec = PoincareSection.from_state(P, G0, w0)
    r = sec.crossings((G0, w0), 300)
    assert r.complete
    w3 = w0[2]
    np.testing.assert_allclose(r.omega[:, 2], w3, rtol=1e-9)  # conserved spin
    Ep = sec.energy - 0.5 * Ja * w3 ** 2
    mu = sec.mu
    # u'^2 = (1 - u^2) 2 (E' + mgl u) / Jt - (mu - Ja w3 u)^2 / Jt^2 = cubic in u = Gamma3
    c3 = -2 * mgl / Jt
    c2 = -2 * Ep / Jt - (Ja * w3) ** 2 / Jt ** 2
    c1 = 2 * mgl / Jt + 2 * mu * Ja * w3 / Jt ** 2
    c0 = 2 * Ep / Jt - mu ** 2 / Jt ** 2
    roots = np.roots([c3, c2, c1, c0])
    roots = np.sort(roots[np.abs(roots.imag) < 1e-12].real)
    phys = roots[(roots >= -1) & (roots <= 1)]
    assert len(phys) == 2
    u = r.Gamma[:, 2]
    dist = np.min(np.abs(u[:, None] - phys[None, :]), axis=1)
    assert dist.max() <= 1e-9
    # the crossings with the orientation condition hit both turning points or one; each is a root
    assert set(np.argmin(np.abs(u[:, None] - phys[None, :]), axis=1)) <= {0, 1}


def _scipy_crossings(P, y0, t_end, rtol=1e-13, atol=1e-14):
    J = P.J
    Ji = np.linalg.inv(J)
    mgr = P.mgrho

    def f(t, y):
        G, w = y[:3], y[3:]
        return np.concatenate([np.cross(G, w), Ji @ (np.cross(J @ w, w) + np.cross(mgr, G))])

    def ev(t, y):
        return y[0] * y[4] - y[1] * y[3]

    sol = solve_ivp(f, (0, t_end), y0, method="DOP853", rtol=rtol, atol=atol, events=ev)
    Y = sol.y_events[0]
    T = sol.t_events[0]
    D = np.cross(Y[:, :3], Y[:, 3:])
    side = np.cross(Y[:, :3], D)[:, 2]
    keep = (side > 0) & (T > 1e-9)
    return T[keep], Y[keep]


@pytest.mark.parametrize("E", [-2.65, 11.95])
def test_agrees_with_independent_scipy_event_search(fig2, E):
    sec, (G0, w0) = PoincareSection.from_paper_ic(fig2, E)
    r = sec.crossings((G0, w0), 20)
    T, Y = _scipy_crossings(fig2, np.concatenate([G0, w0]), r.t[-1] + 0.5)
    assert len(T) >= 20
    np.testing.assert_allclose(r.t, T[:20], rtol=0, atol=1e-7)
    np.testing.assert_allclose(r.Gamma, Y[:20, :3], rtol=0, atol=1e-7)
    np.testing.assert_allclose(r.omega, Y[:20, 3:], rtol=0, atol=1e-7 * max(1, np.abs(w0).max()))


def test_stops_when_trajectory_stops_crossing(fig2):
    # at rest in the hanging equilibrium: never crosses
    E0 = -fig2.m * fig2.g * fig2.rho[2]
    sec = PoincareSection(fig2, E0, 0.0)
    r = sec.crossings((np.array([0, 0, 1.0]), np.zeros(3)), 10, max_gap=5.0)
    assert r.status == "no_crossing" and r.n_found == 0 and not r.complete
    assert r.Gamma.shape == (0, 3)
    # steady spin about the vertical principal axis (a relative equilibrium at Gamma = e3)
    w = np.array([0, 0, 3.0])
    sec = PoincareSection.from_state(fig2, np.array([0, 0, 1.0]), w)
    r = sec.crossings((np.array([0, 0, 1.0]), w), 10, max_gap=5.0)
    assert r.status == "no_crossing" and r.n_found == 0
    # time and step budgets
    sec, seed = PoincareSection.from_paper_ic(fig2, 0.0)
    r = sec.crossings(seed, 1000, t_max=5.0)
    assert r.status == "max_time" and 0 < r.n_found < 1000 and r.t[-1] <= 5.0
    r = sec.crossings(seed, 1000, max_steps=50)
    assert r.status == "max_steps" and r.n_found < 1000
    assert "n_accepted" in r.stats and repr(r).startswith("Crossings(")


def test_click_fast_path(sec0):
    sec, seed = sec0
    r = sec.crossings(seed, 3)
    phi, z = chart_from_sphere(r.Gamma[0])
    c = sec.click(phi, z, n=4)
    assert c.complete
    np.testing.assert_allclose(c.Gamma[:2], r.Gamma[1:3], atol=1e-7)


# ------------------------------------------------------------------------------------------------
# kernels
# ------------------------------------------------------------------------------------------------
def test_v_mu_kernel_matches_formula(fig2):
    rng = np.random.default_rng(7)
    G = _random_unit(rng, 50)
    mu = 0.37
    V = amended_potential(fig2, mu, G)
    ref = mu ** 2 / (2 * np.einsum("ki,ij,kj->k", G, fig2.J, G)) - G @ fig2.mgrho
    np.testing.assert_allclose(V, ref, rtol=1e-14, atol=1e-14)
    assert isinstance(amended_potential(fig2, mu, G[0]), float)


# ------------------------------------------------------------------------------------------------
# chart maps
# ------------------------------------------------------------------------------------------------
def test_chart_and_sphere_maps_are_inverse():
    rng = np.random.default_rng(3)
    G = _random_unit(rng, 1000)
    phi, z = chart_from_sphere(G)
    assert np.all(np.abs(phi) <= np.pi) and np.all(np.abs(z) <= 1)
    np.testing.assert_allclose(sphere_from_chart(phi, z), G, atol=2e-16 * 8)
    ph = rng.uniform(-np.pi, np.pi, 1000)
    zz = rng.uniform(-1, 1, 1000)
    p2, z2 = chart_from_sphere(sphere_from_chart(ph, zz))
    np.testing.assert_allclose(z2, zz, atol=1e-15)
    np.testing.assert_allclose(p2, ph, atol=1e-12)
    # poles and shapes
    np.testing.assert_array_equal(sphere_from_chart(0.7, 1.0), [0, 0, 1.0])
    assert chart_from_sphere(np.array([0, 0, -1.0])) == (0.0, -1.0)
    assert sphere_from_chart(np.zeros((4, 5)), np.zeros((4, 5))).shape == (4, 5, 3)
    # equal area: the chart's area element dphi dz is the sphere's (compare a patch's area)
    a, b, c, d = 0.2, 0.5, -0.3, 0.4
    th0, th1 = math.acos(d), math.acos(c)
    area_sphere = (b - a) * (math.cos(th0) - math.cos(th1))
    assert abs(area_sphere - (b - a) * (d - c)) < 1e-15
    with pytest.raises(InvalidStateError):
        sphere_from_chart(0.0, 1.5)
    with pytest.raises(InvalidStateError):
        sphere_from_chart(np.nan, 0.0)
    with pytest.raises(ShapeError):
        chart_from_sphere(np.zeros(2))


# ------------------------------------------------------------------------------------------------
# paper initial conditions, accessible region
# ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("E", FIG2_ENERGIES)
def test_paper_initial_state(fig2, E):
    G0, w0, c = paper_initial_state(fig2, E)
    np.testing.assert_array_equal(G0, [0, 0, 1.0])
    np.testing.assert_array_equal(w0, [c, c, c])
    p = fig2.params()
    assert abs(energy_lp(G0, w0, p) - E) <= 1e-14 * max(1, abs(E))
    assert c > 0
    assert math.isclose(c * c / 2 * 0.58 - 9.81 * 0.3, E, abs_tol=1e-12)
    sec, seed = PoincareSection.from_paper_ic(fig2, E)
    assert sec.energy == E and abs(energy_lp(G0, w0, p) - E) <= 1e-14 * max(1, abs(E))
    assert sec.mu == pytest.approx(c * 0.17, rel=1e-15)
    _, wm, cm = paper_initial_state(fig2, E, sign=-1)
    assert cm == -c


def test_paper_initial_state_errors(fig2):
    with pytest.raises(InaccessibleError, match="falls short by"):
        paper_initial_state(fig2, -3.0)  # below -m g rho_3 = -2.943
    with pytest.raises(InvalidStateError):
        paper_initial_state(fig2, float("nan"))
    with pytest.raises(ValueError):
        paper_initial_state(fig2, 0.0, sign=2)
    with pytest.raises(TypeError):
        paper_initial_state(presets.paper_fig2(), 0.0)  # a Body, not a Pendulum


def test_accessible_region(fig2, sec0):
    sec, _ = sec0
    reg = sec.accessible_region()
    assert reg is sec.accessible_region()  # cached
    PH, Z = np.meshgrid(reg.phi, reg.z)
    np.testing.assert_allclose(reg.V, amended_potential(fig2, sec.mu, sphere_from_chart(PH, Z)), rtol=1e-14)
    np.testing.assert_array_equal(reg.accessible, reg.V <= sec.energy)
    assert reg.energy_min <= reg.V.min() + 1e-15 and reg.energy_min > reg.V.min() - 1e-3
    assert reg.energy_all >= reg.V.max() - 1e-15
    assert abs(amended_potential(fig2, sec.mu, reg.Gamma_min) - reg.energy_min) < 1e-14
    assert reg.energy_range == (reg.energy_min, math.inf) == sec.energy_range()
    assert 0 < reg.area_fraction < 1 and not reg.empty
    # boundary: V = E at every point of the curve (roots of V - E, not a linear interpolation on the grid: 1e-3
    # of the range of V before; 3e-13 measured)
    fin = np.isfinite(reg.boundary_phi)
    Vb = amended_potential(fig2, sec.mu, reg.boundary_Gamma[fin])
    assert fin.sum() > 50
    assert np.abs(Vb - sec.energy).max() <= 1e-10 * (reg.energy_all - reg.energy_min)
    # below the minimum the section is empty, above the maximum it is the whole sphere
    lo = PoincareSection(fig2, reg.energy_min - 0.1, sec.mu).accessible_region()
    assert lo.empty and not lo.accessible.any() and lo.boundary_phi.size == 0
    hi = PoincareSection(fig2, reg.energy_all + 0.1, sec.mu).accessible_region()
    assert hi.accessible.all() and hi.area_fraction == 1.0
    # just above the minimum there is a section state near the minimiser
    s2 = PoincareSection(fig2, reg.energy_min + 1e-6, sec.mu)
    if np.hypot(*reg.Gamma_min[:2]) > 1e-6:
        s2.state_at(reg.Gamma_min)
    with pytest.raises(InvalidIntegrationError):
        sec.accessible_region(2, 10)


# ------------------------------------------------------------------------------------------------
# batches
# ------------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def batch_setup(fig2):
    sec, seed = PoincareSection.from_paper_ic(fig2, 2.03)
    r = sec.crossings(seed, 12)
    seeds = [seed] + list(r.Gamma[::2]) + [sec.state_at(r.Gamma[1])]
    return sec, seeds


def test_batch_threads_equals_single(batch_setup):
    sec, seeds = batch_setup
    b = sec.batch(seeds, 40)
    assert len(b) == len(seeds) and b.Gamma.shape == (len(seeds), 40, 3)
    for k, s in enumerate(seeds):
        one = sec.crossings(s, 40)
        tk = b.trajectory(k)
        np.testing.assert_array_equal(tk.Gamma, one.Gamma)
        np.testing.assert_array_equal(tk.omega, one.omega)
        np.testing.assert_array_equal(tk.t, one.t)
        assert tk.status == one.status == "ok"
    assert all(isinstance(c, Crossings) for c in b)
    # array seeds
    Y = np.stack([np.concatenate(seeds[0])] * 3)
    b2 = sec.batch(Y, 5)
    np.testing.assert_array_equal(b2.Gamma[0], b2.Gamma[2])


def test_batch_reports_stopped_trajectories(fig2):
    E0 = -fig2.m * fig2.g * fig2.rho[2] + 0.5
    w = np.array([0, 0, math.sqrt(2 * 0.5 / fig2.J[2, 2])])
    sec = PoincareSection.from_state(fig2, np.array([0, 0, 1.0]), w)
    assert sec.energy == pytest.approx(E0)
    G = sphere_from_chart(0.3, 0.999)
    seeds = [(np.array([0, 0, 1.0]), w)]
    if sec.slack(G) > 0:
        seeds.append(G)
    b = sec.batch(seeds, 20, max_gap=10.0)
    assert b.status[0] == "no_crossing" and b.n_found[0] == 0 and np.all(np.isnan(b.Gamma[0]))


def test_batch_with_dask_executor_equals_default(batch_setup):
    distributed = pytest.importorskip("distributed")
    sec, seeds = batch_setup
    ref = sec.batch(seeds, 40)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster, distributed.Client(cluster) as client:
        b = sec.batch(seeds, 40, executor=client.get_executor(), n_chunks=3)
    np.testing.assert_array_equal(b.Gamma, ref.Gamma)
    np.testing.assert_array_equal(b.omega, ref.omega)
    np.testing.assert_array_equal(b.t, ref.t)
    np.testing.assert_array_equal(b.n_found, ref.n_found)
    assert b.status == ref.status


def test_batch_with_thread_pool(batch_setup):
    from concurrent.futures import ThreadPoolExecutor
    sec, seeds = batch_setup
    ref = sec.batch(seeds[:4], 10)
    with ThreadPoolExecutor(2) as ex:
        b = sec.batch(seeds[:4], 10, executor=ex)
    np.testing.assert_array_equal(b.Gamma, ref.Gamma)


# ------------------------------------------------------------------------------------------------
# input validation
# ------------------------------------------------------------------------------------------------
def test_constructor_errors(fig2):
    for E in (float("nan"), float("inf"), "abc"):
        with pytest.raises(InvalidStateError):
            PoincareSection(fig2, E, 0.1)
    with pytest.raises(InvalidStateError):
        PoincareSection(fig2, 0.0, float("-inf"))
    with pytest.raises(TypeError):
        PoincareSection(presets.paper_fig2(), 0.0, 0.1)
    for tol in (0.0, -1.0, float("nan")):
        with pytest.raises(InvalidIntegrationError):
            PoincareSection(fig2, 0.0, 0.1, rtol=tol)
    with pytest.raises(InvalidIntegrationError):
        PoincareSection(fig2, 0.0, 0.1, rtol=1e-17)
    with pytest.raises(InvalidStateError):
        PoincareSection.from_state(fig2, [0, 0, 1.0], [np.nan, 0, 0])
    assert "PoincareSection(" in repr(PoincareSection(fig2, np.float64(0.0), 1))


def test_taylor_section_at_a_tolerance_says_so_and_is_that_accurate(fig2):
    """A section on ``Taylor(tol=1e-11)`` (order 14) names its tolerance in its repr (it printed only
    ``method='taylor'``, as if at machine precision) and its first crossings agree with the machine-precision
    Taylor section to ~1e-11, its energy to 1e-10 relative over 200 crossings."""
    from pendulum_explorer.integrators import Taylor
    from pendulum_explorer.reduction import energy
    s11, _ = PoincareSection.from_paper_ic(fig2, 0.0, method=Taylor(tol=1e-11))
    s_eps, _ = PoincareSection.from_paper_ic(fig2, 0.0, method="taylor")
    assert "method=Taylor(tol=1e-11)" in repr(s11) and "method='taylor'" in repr(s_eps)
    seeds = s11.fill_seeds(8)
    b11, b_eps = s11.batch(seeds, 200), s_eps.batch(seeds, 5)
    assert np.all(b11.n_found == 200)
    first = np.max(np.linalg.norm(b11.Gamma[:, :5] - b_eps.Gamma, axis=2), axis=1)
    assert np.median(first) <= 1e-10, first
    E = np.array([energy(fig2, g, w) for g, w in zip(b11.Gamma.reshape(-1, 3), b11.omega.reshape(-1, 3))])
    assert np.abs(E - s11.energy).max() / s11.energy_scale <= 1e-10


def test_crossings_errors(sec0):
    sec, seed = sec0
    for n in (0, -3, 2.5, True, "10"):
        with pytest.raises(InvalidIntegrationError):
            sec.crossings(seed, n)
    for kw in ({"t_max": -1.0}, {"t_max": float("nan")}, {"max_gap": 0.0}, {"max_steps": 0}):
        with pytest.raises(InvalidIntegrationError):
            sec.crossings(seed, 5, **kw)
    G0, w0 = seed
    with pytest.raises(InvalidStateError, match="not on the level"):
        sec.crossings((G0, 1.01 * w0), 5)
    with pytest.raises(InvalidStateError):
        sec.crossings((np.array([0, 0, 2.0]), w0), 5)
    with pytest.raises(InvalidStateError):
        sec.crossings((G0, np.array([1.0, np.inf, 0])), 5)
    with pytest.raises(ShapeError):
        sec.crossings(np.zeros(4), 5)
    with pytest.raises(InvalidStateError):
        sec.crossings(np.array([0, 0, 1.0]), 5)  # a pole as a section point
    with pytest.raises(ShapeError):
        sec.batch([], 5)
    with pytest.raises(ShapeError):
        sec.batch(3, 5)
    with pytest.raises(TypeError):
        sec.batch([seed], 5, executor=object())
    with pytest.raises(InvalidIntegrationError):
        sec.batch([seed], 0)
    with pytest.raises(InvalidStateError):
        sec.click(0.0, 2.0)


def test_balanced_pendulum_section():
    P = Pendulum(np.diag([0.3, 0.2, 0.15]), [0, 0, 0])
    G = np.array([0.6, 0.0, 0.8])
    w = np.array([0.3, 2.0, -0.4])
    sec = PoincareSection.from_state(P, G, w)
    r = sec.crossings((G, w), 50)
    dE, dmu, g, s = sec.level_errors(r.Gamma, r.omega)
    assert r.complete and np.abs(g).max() <= 1e-10 and dE.max() <= 1e-9 and s.min() > 0


# ------------------------------------------------------------------------------------------------
# figures
# ------------------------------------------------------------------------------------------------
def test_figures(sec0):
    from pendulum_explorer.plotting.section import section_chart_figure, section_sphere_figure

    sec, seed = sec0
    r = sec.crossings(seed, 100)
    r2 = sec.crossings(r.Gamma[50], 50)
    fig = section_chart_figure(sec, [r, r2], names=["a", "b"])
    hm = fig.data[0]
    assert hm.type == "heatmap"
    assert min(hm.x) == -np.pi and max(hm.x) == np.pi and min(hm.y) == -1 and max(hm.y) == 1
    z = np.asarray(hm.z)
    reg = sec.accessible_region()
    np.testing.assert_array_equal(z == 1.0, ~reg.accessible)
    pts = [t for t in fig.data if t.name in ("a", "b")]
    assert len(pts) == 2 and pts[0].marker.color != pts[1].marker.color
    np.testing.assert_allclose(pts[0].x, chart_from_sphere(r.Gamma)[0])
    assert any("pole" in (t.name or "") for t in fig.data)
    assert tuple(fig.layout.yaxis.range) == (1.0, -1.0)
    sph = section_sphere_figure(sec, [r, r2])
    assert sph.data[0].type == "surface"
    assert sum(t.type == "scatter3d" and t.mode == "markers" for t in sph.data) >= 2
    assert sph.layout.scene.camera.up.z == 1
    m0 = [t for t in sph.data if t.type == "scatter3d" and t.mode == "markers"][0]
    np.testing.assert_allclose(np.column_stack([m0.x, -np.asarray(m0.y), -np.asarray(m0.z)]) / 1.005, r.Gamma)


def test_figures_dashboard_options(sec0):
    """What the dashboard uses: a clickable chart, one crossings trace per launch, arrays of Gamma as input."""
    from pendulum_explorer.plotting.colours import OKABE_ITO
    from pendulum_explorer.plotting.section import (CLICK_HINT, PALETTE, crossings_trace, section_chart_figure,
                                                    section_sphere_figure)

    sec, seed = sec0
    r = sec.crossings(seed, 40)
    assert tuple(PALETTE) == tuple(c for c in OKABE_ITO if c != "#F0E442")  # one palette: Okabe-Ito, no yellow
    fig = section_chart_figure(sec, clickable=True, title="T")
    assert fig.data[0].type == "heatmap" and fig.layout.title.text.startswith("T") and CLICK_HINT in fig.layout.title.text
    assert fig.layout.showlegend is False and fig.layout.dragmode is False
    assert fig.layout.xaxis.fixedrange and fig.layout.yaxis.fixedrange
    assert tuple(fig.layout.yaxis.range) == (1.0, -1.0)
    plain = section_chart_figure(sec)
    assert CLICK_HINT not in plain.layout.title.text and plain.layout.dragmode is None
    empty = crossings_trace(name="#1", colour="#000000", webgl=True)
    assert empty.type == "scattergl" and len(empty.x) == 0 and empty.name == "#1"
    t1, t2 = crossings_trace(r, name="a", colour="red"), crossings_trace(r.Gamma, name="a", colour="red")
    np.testing.assert_allclose(t1.x, chart_from_sphere(r.Gamma)[0])
    np.testing.assert_allclose(t1.y, t2.y)
    # (n, 3) arrays of Gamma work like Crossings, in both figures
    a = section_chart_figure(sec, [r.Gamma], names=["x"], colours=["#123456"])
    tr = [t for t in a.data if t.name == "x"][0]
    assert tr.marker.color == "#123456"
    np.testing.assert_allclose(tr.y, chart_from_sphere(r.Gamma)[1])
    sph = section_sphere_figure(sec, [r.Gamma, np.zeros((0, 3))], names=["#1", "#2"], showlegend=False)
    assert [t.name for t in sph.data if t.name in ("#1", "#2")] == ["#1"] and sph.layout.showlegend is False


# ------------------------------------------------------------------------------------------------
# Fig. 2: regular at the lowest and highest energies, scattered at E = 0 and 2.03
# ------------------------------------------------------------------------------------------------
def _correlation_dimension(G, a=0.005, b=0.02):
    from scipy.spatial.distance import pdist
    d = pdist(G)
    diam = d.max()
    return math.log((d < b * diam).sum() / (d < a * diam).sum()) / math.log(b / a)


def test_fig2_regular_and_scattered(fig2):
    dims = {}
    for E in (-2.65, 0.0, 2.03, 11.95):
        sec, seed = PoincareSection.from_paper_ic(fig2, E)
        r = sec.crossings(seed, 2000)
        assert r.complete
        dims[E] = _correlation_dimension(r.Gamma)
    assert dims[-2.65] < 1.3 and dims[11.95] < 1.3  # points on a curve
    assert dims[0.0] > 1.6 and dims[2.03] > 1.6  # points fill an area


def test_reseed_from_a_late_crossing(fig2):
    sec, seed = PoincareSection.from_paper_ic(fig2, 0.0)
    r = sec.crossings(seed, 1000)
    # integrated Gammas drift from |Gamma| = 1 by ~1e-9: they are accepted (and normalised) as seeds
    for s in (r.Gamma[-1], (r.Gamma[-1], r.omega[-1])):
        c = sec.crossings(s, 3)
        assert c.complete


def test_section_seed_is_not_its_own_first_crossing(sec0):
    sec, _ = sec0
    rng = np.random.default_rng(11)
    G = _random_unit(rng, 300)
    Y, ok = sec.states_at(G)
    seeds = [g for g, o in zip(G, ok) if o][:30]
    b = sec.batch(seeds, 1)
    assert np.all(b.n_found == 1)
    # the seed (g = e3^T Gammadot = 0 up to rounding, either sign) is at t = 0; the first return is later
    assert b.t[:, 0].min() > 1e-2


def test_lr_kernel_agrees_with_lp_kernel(fig2):
    """The kernels also run on the Lagrange-Routh model (Eq 62); on a regular orbit both models give the same
    crossings (an independent check of the LR right-hand side through the section)."""
    sec, (G0, w0) = PoincareSection.from_paper_ic(fig2, -2.65)
    p = fig2.params(sec.mu)
    out = {}
    for model, y0 in ((ksec.LP, np.concatenate([G0, w0])), (ksec.LR, np.concatenate([G0, np.cross(G0, w0)]))):
        n = 20
        G, W, D, T = np.empty((1, n, 3)), np.empty((1, n, 3)), np.empty((1, n, 3)), np.empty((1, n))
        info = np.zeros((1, ksec.N_INFO), dtype=np.int64)
        ctl = np.zeros((1, ksec.N_CTL + 2 * y0.size))
        assert ksec.crossings_serial(model, y0[None, :], p, n, 1e4, 1e3, 10 ** 6, 1e-12, 1e-12, G, W, D, T, info, ctl,
                                     10 ** 7, np.empty((n, y0.size))) == 0
        assert info[0, 0] == n and info[0, 1] == ksec.OK
        assert np.abs(D[0, :, 2]).max() <= 1e-10
        out[model] = (G[0], W[0], T[0])
    np.testing.assert_allclose(out[ksec.LR][0], out[ksec.LP][0], atol=1e-8)
    np.testing.assert_allclose(out[ksec.LR][1], out[ksec.LP][1], atol=1e-7)
    np.testing.assert_allclose(out[ksec.LR][2], out[ksec.LP][2], atol=1e-8)


# ------------------------------------------------------------------------------------------------
# many trajectories streamed (a fill)
# ------------------------------------------------------------------------------------------------
def _joined(parts, m):
    """{seed index: (Gamma, t)} of the chunks ``[(rows, chunks), ...]`` of stream_batch."""
    per = {i: [] for i in range(m)}
    for rows, out in parts:
        assert len(rows) == len(out)
        for r, c in zip(rows, out):
            per[int(r)].append(c)
    return {i: (np.concatenate([c.Gamma for c in cs]), np.concatenate([c.t for c in cs])) for i, cs in per.items()}


def test_stream_batch_equals_each_seed_streamed(fig2):
    """DOP853 (one seed per group): bit-identical to :meth:`stream` seed by seed, chunk by chunk.  Taylor lanes:
    the same crossings to 1e-9 over the first returns (regular and chaotic seeds part later), the same times, and
    1 or 2 threads give the same bits."""
    from pendulum_explorer.integrators import Taylor

    for method in ("dop853", Taylor(tol=1e-11)):
        sec, _ = PoincareSection.from_paper_ic(fig2, 0.0, method=method)
        seeds = sec.fill_seeds(11)
        parts = list(sec.map.stream_batch(seeds, 120, 50, first=20, threads=1))
        got = _joined(parts, len(seeds))
        width = sec.map.runner.many_width
        assert width == (1 if method == "dop853" else LANES_T)
        assert {len(rows) for rows, _ in parts} == ({1} if width == 1 else {width, len(seeds) - width})
        for i, s in enumerate(seeds):
            ref = list(sec.stream(s, 120, 50, first=20))
            G, t = np.concatenate([c.Gamma for c in ref]), np.concatenate([c.t for c in ref])
            assert got[i][0].shape == (120, 3)
            if width == 1:
                assert np.array_equal(got[i][0], G) and np.array_equal(got[i][1], t)
            else:
                np.testing.assert_allclose(got[i][0][:10], G[:10], rtol=0, atol=1e-9)
                np.testing.assert_allclose(got[i][1][:10], t[:10], rtol=1e-9)
        if width > 1:
            two = _joined(sec.map.stream_batch(seeds, 120, 50, first=20, threads=2), len(seeds))
            assert all(np.array_equal(two[i][0], got[i][0]) for i in got)
            # the groups computed side by side come in one yield: a caller that stops after it loses none
            rows, out = next(iter(sec.map.stream_batch(seeds, 120, 50, first=20, threads=2)))
            assert list(rows) == list(range(len(seeds))) and all(c.n_found == 20 for c in out)


def test_stream_batch_a_stopped_seed_leaves_its_group(fig2):
    """A seed that never crosses (the inverted steady spin about the vertical axis, exact in floating point) ends
    with its first chunk, short (status not "ok", no crossing); the others in its lane group go on to n."""
    from pendulum_explorer.integrators import Taylor

    w = np.array([0, 0, 0.5])
    sec = PoincareSection.from_state(fig2, np.array([0, 0, -1.0]), w, method=Taylor(tol=1e-11))
    others = [sphere_from_chart(phi, 0.5) for phi in (0.3, 2.0, 4.0)]
    assert all(sec.slack(G) > 0 for G in others)
    seeds = [(np.array([0, 0, -1.0]), w), *others]
    parts = list(sec.map.stream_batch(seeds, 40, 20, threads=1))
    first_rows, first_out = parts[0]
    assert list(first_rows) == list(range(len(seeds)))
    assert first_out[0].status != "ok" and first_out[0].n_found == 0 and not first_out[0].complete
    assert len(parts) > 1 and all(0 not in rows for rows, _ in parts[1:])
    got = _joined(parts, len(seeds))
    assert got[0][0].shape == (0, 3) and all(got[i][0].shape == (40, 3) for i in range(1, len(seeds)))


def test_stream_batch_bad_input_before_any_work(sec0):
    sec = sec0[0]
    seeds = sec.fill_seeds(3)
    for kw, word in ((dict(n=0), "n"), (dict(n=10, chunk=0), "chunk"), (dict(n=10, first=0), "first"),
                     (dict(n=10, seconds=-1.0), "seconds"), (dict(n=10, threads=0), "threads")):
        with pytest.raises(ValueError, match=word):
            sec.map.stream_batch(seeds, **kw)
    with pytest.raises(ValueError, match="seeds is empty"):
        sec.map.stream_batch([], 10)
    with pytest.raises(ValueError, match=r"seeds\[1\]"):
        sec.map.stream_batch([seeds[0], np.array([0.0, 0.0, 2.0])], 10)
