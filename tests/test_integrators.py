"""DOP853 and LGVI kernels: coefficient tables, convergence orders, structure preservation."""
import numpy as np
import pytest
import scipy.integrate._ivp.dop853_coefficients as scipy_tab
from scipy.integrate import solve_ivp

from pendulum_explorer import simulate
from pendulum_explorer._core import dop853 as D
from pendulum_explorer._core import dop853_tableau as T
from pendulum_explorer._core import fields as F
from pendulum_explorer._core import so3

from pe_strategies import c_for_energy


def test_tableau_equals_scipy_reference():
    for name in ["A", "B", "C", "E3", "E5", "D"]:
        np.testing.assert_array_equal(getattr(T, name), getattr(scipy_tab, name))


def test_tableau_order_conditions():
    b, c, A = T.B, T.C[: T.N_STAGES], T.A[: T.N_STAGES, : T.N_STAGES]
    np.testing.assert_allclose(T.A.sum(axis=1), T.C, atol=1e-14)  # row-sum condition
    for k in range(8):  # quadrature conditions sum b c^k = 1/(k+1) up to order 8
        assert b @ c ** k == pytest.approx(1.0 / (k + 1), abs=1e-14)
    # a few tree conditions of orders 3-8: sum b A c^k = 1/((k+1)(k+2))
    for k in range(7):
        assert b @ (A @ c ** k) == pytest.approx(1.0 / ((k + 1) * (k + 2)), abs=1e-13)
    assert b @ (A @ (A @ c)) == pytest.approx(1.0 / 24, abs=1e-14)
    # error estimators vanish on constants (sum of weights zero)
    assert abs(T.E5.sum()) < 1e-14 and abs(T.E3.sum()) < 1e-14


def _lp_state(P, E):
    c = c_for_energy(P, E)
    return np.array([0, 0, 1.0, c, c, c])


@pytest.mark.parametrize("model", [F.LP, F.LP_ATT])  # the generated scalar step and the generic one
def test_dop853_fixed_step_order_8(fig2, model):
    P = fig2.pendulum
    p = P.params()
    y0 = _lp_state(P, 2.03)
    if model == F.LP_ATT:
        y0 = np.concatenate([y0, np.eye(3).ravel()])
    Tf = 1.0
    ref = D.integrate_fixed(model, y0, Tf / 1024, 1024, p)
    hs, errs = [], []
    for n in (12, 16, 24, 32):
        y = D.integrate_fixed(model, y0, Tf / n, n, p)
        hs.append(Tf / n)
        errs.append(np.abs(y - ref).max())
    slope = np.polyfit(np.log(hs), np.log(errs), 1)[0]
    assert 7.5 < slope < 9.0, (errs, slope)
    assert errs[-1] < 1e-9


def test_generated_lp_step_is_up_to_date():
    import importlib.util
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    spec = importlib.util.spec_from_file_location("gen", root / "tools" / "gen_dop853_lp.py")
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    assert (root / "pendulum_explorer" / "_core" / "dop853_lp.py").read_text() == gen.source(), \
        "run python tools/gen_dop853_lp.py"


@pytest.mark.parametrize("model", [F.LP, F.LP_ROW])
def test_generated_lp_step_equals_generic_step_bit_for_bit(fig2, model):
    """The scalar LP steps (dop853_lp.step_lp, used by dop853.step for LP; step_lp_row, used by integrate_uniform
    for LP_ROW) are the generic array step to the bit: same stages, same 8th-order solution, same error norm."""
    P = fig2.pendulum
    p = P.params()
    n = F.STATE_SIZE[model]
    generated = D.step if model == F.LP else (lambda m, t, y, h, p, K, yn, yt, r, a: D.step_lp_row(y, h, p, K, yn, r, a))
    rng = np.random.default_rng(7)
    for _ in range(20):
        G = rng.normal(size=3)
        r1 = np.cross(G, rng.normal(size=3))
        y = np.concatenate([G / np.linalg.norm(G), rng.normal(scale=3.0, size=3), r1 / np.linalg.norm(r1)])[:n]
        h = 10 ** rng.uniform(-4, -0.5)
        rtol, atol = 10 ** rng.uniform(-13, -6), 10 ** rng.uniform(-15, -8)
        out = []
        for fn in (lambda *a: generated(model, *a), lambda *a: D.step_generic(model, *a)):
            K = np.zeros((T.N_STAGES_EXTENDED, n))
            F.rhs(model, 0.0, y, p, K[0])
            y_new, ytmp = np.empty(n), np.empty(n)
            err = fn(0.0, y, h, p, K, y_new, ytmp, rtol, atol)
            out.append((err, y_new, K[: T.N_STAGES + 1].copy()))
        assert out[0][0] == out[1][0] and np.isfinite(out[0][0])
        np.testing.assert_array_equal(out[0][1], out[1][1])
        np.testing.assert_array_equal(out[0][2], out[1][2])


def test_dop853_agrees_with_scipy(fig2):
    P = fig2.pendulum
    p = P.params()
    y0 = _lp_state(P, 0.0)
    Y = np.empty((21, 6))
    st = D.integrate_uniform(F.LP, y0, 10.0, 21, p, 1e-10, 1e-12, 10**6, Y)
    assert st[3] == D.OK and st[4] == 21

    def f(t, y):
        dy = np.empty(6)
        F.rhs(F.LP, t, y, p, dy)
        return dy

    ref = solve_ivp(f, (0, 10), y0, method="DOP853", rtol=1e-13, atol=1e-14, t_eval=np.linspace(0, 10, 21))
    err = np.abs(ref.y.T - Y).max()
    assert err < 2e-7, err
    # and the same method at the same tolerance is close to scipy's own DOP853 run
    ref10 = solve_ivp(f, (0, 10), y0, method="DOP853", rtol=1e-10, atol=1e-12, t_eval=np.linspace(0, 10, 21))
    assert np.abs(ref10.y.T - Y).max() < 2e-7


def test_dense_output_order(fig2):
    """Dense output between steps matches a tight reference to the integration tolerance."""
    P = fig2.pendulum
    y0 = _lp_state(P, 8.83)
    a = simulate(P, np.eye(3), y0[3:], 3.0, rtol=1e-12, atol=1e-14, n_out=301)  # many dense samples
    b = simulate(P, np.eye(3), y0[3:], 3.0, rtol=1e-13, atol=1e-15, n_out=301)
    assert np.abs(a.omega - b.omega).max() < 1e-9


def test_lgvi_cayley_equation_solution():
    """One LGVI step from R0 = I: F = R1 satisfies h Pi^ + h^2/2 M^ = F J_d - J_d F^T (M = m g rho x e3)."""
    from pendulum_explorer._core.lgvi import integrate_lgvi

    J = np.array([[0.3, 0.02, -0.01], [0.02, 0.2, 0.03], [-0.01, 0.03, 0.25]])
    mgrho = np.array([0.1, -0.2, 2.0])
    p = F.pack_params(J, mgrho)
    Jd = 0.5 * np.trace(J) * np.eye(3) - J
    M = np.cross(mgrho, [0.0, 0.0, 1.0])
    h = 1.0
    R, W = np.empty((2, 3, 3)), np.empty((2, 3))
    for g in ([0.01, -0.02, 0.015], [0.05, 0.02, -0.03]):
        g = np.array(g)
        omega0 = np.linalg.solve(J, (g - 0.5 * h * h * M) / h)  # so that h Pi + h^2/2 M = g
        st = integrate_lgvi(np.eye(3), omega0, h, 1, 1, p, R, W)
        Fm = R[1]
        np.testing.assert_allclose(Fm @ Jd - Jd @ Fm.T, so3.hat(g), atol=1e-15)
        assert st[3] == 0 and 1 <= st[1] <= 8
    # a step far too large for the inertia has no solution: reported (the failed step's index), not garbage
    omega0 = np.linalg.solve(J, np.array([0.2, 0.1, -0.3]) - 0.5 * M)
    assert integrate_lgvi(np.eye(3), omega0, h, 1, 1, p, R, W)[3] == 1


@pytest.mark.parametrize("E", [-2.65, 2.03])
def test_lgvi_second_order(fig2, E):
    P = fig2.pendulum
    c = c_for_energy(P, E)
    ref = simulate(P, np.eye(3), [c, c, c], 1.0, rtol=1e-13, atol=1e-15, n_out=2)
    hs, errs = [0.02, 0.01, 0.005, 0.0025], []
    for h in hs:
        tr = simulate(P, np.eye(3), [c, c, c], 1.0, method="lgvi", dt=h, n_out=2)
        errs.append(np.abs(tr.R[-1] - ref.R[-1]).max())
    slope = np.polyfit(np.log(hs), np.log(errs), 1)[0]
    assert 1.85 < slope < 2.15, (errs, slope)


def test_lgvi_structure_over_a_million_steps(fig2):
    P = fig2.pendulum
    c = c_for_energy(P, 0.0)
    tr = simulate(P, np.eye(3), [c, c, c], 5000.0, method="lgvi", dt=0.005, n_out=10001)
    assert tr.stats["n_steps"] == 1_000_000
    assert tr.orthogonality_error <= 1e-12  # no re-projection anywhere
    assert tr.mu_error <= 1e-12 * abs(tr.mu[0])
    dE = np.abs(tr.energy - tr.energy[0])
    scale = P.m * P.g * np.linalg.norm(P.rho)
    assert dE.max() < 1e-3 * scale  # O(h^2) and bounded
    # no secular drift: the error envelope of the last tenth is not larger than that of the first half
    n = len(dE)
    assert dE[-n // 10:].max() <= 1.5 * dE[: n // 2].max()


def _lp_att_15(P, R0, w0, t_final, n_out, rtol, atol):
    """The 15-dim integration simulate(dop853) used before (Gamma, omega and all of R, generic step, every
    component in the error norm): the reference for the attitude row that rides along the LP step."""
    Y = np.empty((n_out, 15))
    st = D.integrate_uniform(F.LP_ATT, np.concatenate([R0[2], w0, R0.ravel()]), t_final, n_out, P.params(),
                             rtol, atol, 10**8, Y)
    assert st[3] == D.OK
    return Y[:, 6:15].reshape(n_out, 3, 3)


@pytest.mark.parametrize("rtol, atol", [(1e-10, 1e-12), (1e-12, 1e-14)])
def test_dop853_simulate_attitude_accurate_to_the_tolerance(fig2, rtol, atol):
    """simulate(dop853) integrates (Gamma, omega) with the 6-dim LP step (same trajectory as the LP kernel, to the
    bit) and carries r = R^T e1 on its stages; R is rebuilt from r and Gamma.  Its R is as accurate as the
    15-dim integration of (Gamma, omega, R) it replaced, against the Taylor method at round-off: measured
    (after / before) 3.4e-9 / 2.4e-9 (rtol 1e-10) and 3.3e-11 / 1.8e-11 (1e-12) on the chaotic Fig. 2 orbit over
    10 s (2.4e-9 and 2.1e-11 in Gamma itself); 3.9e-6 / 4.8e-6 and 2.1e-8 / 2.6e-8 on a Lagrange top over 1000 s."""
    P = fig2.pendulum
    c = c_for_energy(P, 0.0)
    R0, w0 = np.eye(3), np.array([c, c, c])
    tr = simulate(P, R0, w0, 10.0, rtol=rtol, atol=atol, n_out=1001)
    ref = simulate(P, R0, w0, 10.0, method="taylor", n_out=1001)
    err_R = np.abs(tr.R - ref.R).max()
    err_G = np.abs(tr.Gamma - ref.Gamma).max()
    assert err_R <= 100 * rtol and err_R <= 3 * err_G  # the attitude as accurate as the LP state
    assert err_R <= 3 * np.abs(_lp_att_15(P, R0, w0, 10.0, 1001, rtol, atol) - ref.R).max()
    assert tr.stats["orthogonality_error"] <= 1e-14  # a rotation to round-off (the 15-dim one: 6e-10, 6e-12)
    assert np.abs(np.einsum("nij,nj->ni", tr.R, tr.Gamma) - [0, 0, 1]).max() <= 30 * rtol  # R Gamma = e3
    # the same trajectory as the 6-dim LP kernel, to the bit (the attitude row does not steer the step)
    Y = np.empty((1001, 6))
    st = D.integrate_uniform(F.LP, np.concatenate([R0[2], w0]), 10.0, 1001, P.params(), rtol, atol, 10**8, Y)
    assert tr.stats["n_steps"] == st[0] and tr.stats["n_rejected"] == st[1]
    np.testing.assert_array_equal(tr.Gamma, Y[:, 0:3])
    np.testing.assert_array_equal(tr.omega, Y[:, 3:6])
    # invariants over 1000 s (the benchmark's run): |dE|/(m g |rho|) 1.4e-9 / 1.1e-11, |dmu| 1.1e-9 / 7.3e-12
    long = simulate(P, R0, w0, 1000.0, rtol=rtol, atol=atol, n_out=1001)
    assert long.energy_error <= 30 * rtol * P.mgrho_norm
    assert np.abs(long.mu - long.mu[0]).max() <= 30 * rtol
    assert long.stats["orthogonality_error"] <= 1e-14


def test_dop853_simulate_attitude_regular_motion_1000s():
    """On a regular (integrable) motion the attitude error grows slowly and stays that of the 15-dim
    integration: Lagrange top, tilted 0.7 rad and spinning, 1000 s at rtol 1e-12 (measured 2.1e-8 vs 2.6e-8)."""
    from pendulum_explorer.geometry import rotation_about
    from pendulum_explorer.presets import lagrange_top

    P = lagrange_top().pendulum
    R0, w0 = rotation_about([1.0, 0.0, 0.0], 0.7), np.array([0.3, -0.2, 8.0])
    tr = simulate(P, R0, w0, 1000.0, rtol=1e-12, atol=1e-14, n_out=1001)
    ref = simulate(P, R0, w0, 1000.0, method="taylor", n_out=1001)
    err_R = np.abs(tr.R - ref.R).max()
    assert err_R <= 1e-7
    assert err_R <= 1.5 * np.abs(_lp_att_15(P, R0, w0, 1000.0, 1001, 1e-12, 1e-14) - ref.R).max()
    assert tr.stats["orthogonality_error"] <= 1e-14


def test_dop853_simulate_carries_attitude(fig2):
    P = fig2.pendulum
    c = c_for_energy(P, 8.83)
    tr = simulate(P, np.eye(3), [c, c, c], 20.0, rtol=1e-12, atol=1e-14, n_out=201)
    np.testing.assert_allclose(tr.R[:, 2, :], tr.Gamma, atol=1e-9)  # Gamma = R^T e3
    assert tr.stats["orthogonality_error"] < 1e-9
    assert tr.energy_error < 1e-9 * abs(tr.energy).max() + 1e-10


@pytest.mark.parametrize("obj, name, flat", [
    (lambda pe: pe.DOP853(rtol=1e-11, atol=1e-13), "dop853", {"rtol": 1e-11, "atol": 1e-13}),
    (lambda pe: pe.Taylor(tol=1e-12), "taylor", {"tol": 1e-12}),
    (lambda pe: pe.LGVI(dt=2e-3), "lgvi", {"dt": 2e-3}),
])
def test_integrator_objects_conform(fig2, obj, name, flat):
    """Every integrator object: its options checked when it is made, the same motion as its shorthand string with
    the flat options (to the bit), its name on the result, and a clear answer for section crossings."""
    import pendulum_explorer as pe
    scheme = obj(pe)
    assert scheme.name == name and pe.integrators.integrator(scheme) is scheme
    P = fig2.pendulum
    a = pe.simulate(P, np.eye(3), [0.3, 0.2, 2.0], 3.0, method=scheme, n_out=31)
    b = pe.simulate(P, np.eye(3), [0.3, 0.2, 2.0], 3.0, method=name, n_out=31, **flat)
    assert a.method == b.method == name
    for k in ("R", "omega", "Gamma", "energy", "mu"):
        np.testing.assert_array_equal(getattr(a, k), getattr(b, k))
    sec, seed = pe.PoincareSection.from_paper_ic(P, 2.03)
    if name == "lgvi":
        with pytest.raises(pe.InvalidIntegrationError, match="does not compute section crossings"):
            pe.PoincareMap(sec.level, scheme)
    else:
        c = pe.PoincareMap(sec.level, scheme).crossings(seed, 5)
        assert c.complete and set(c.stats) >= {"n_accepted", "n_rejected", "n_rhs", "gamma_drift", "level_drift"}


def test_integrator_options_are_checked_by_name():
    import pendulum_explorer as pe
    with pytest.raises(pe.InvalidIntegrationError, match="rtol"):
        pe.DOP853(rtol=1.0)
    with pytest.raises(pe.InvalidIntegrationError, match="tol"):
        pe.Taylor(tol=1e-2)
    with pytest.raises(pe.InvalidIntegrationError, match="dt"):
        pe.LGVI(dt=-1.0)
    with pytest.raises(pe.InvalidIntegrationError, match="method"):
        pe.integrators.integrator("rk4")
