"""Damping at the pivot (issue 23, part 2): a viscous torque -c omega, outside the paper's model, integrated by DOP853
only (pendulum_explorer._core.damped); the release from a tilt, the tilt angle and the energies of the Motion tab's
instruments (pendulum_explorer.playback)."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

from pendulum_explorer import playback, presets, simulate
from pendulum_explorer._core import damped as _d
from pendulum_explorer.bounds import BOUNDS
from pendulum_explorer.errors import InvalidIntegrationError, InvalidStateError, InvariantDriftWarning
from pendulum_explorer.geometry import release_attitude, rotation_about
from pendulum_explorer.integrators import DOP853, LGVI, Taylor, integrator


@pytest.fixture(scope="module")
def fig2():
    return presets.paper_fig2().pendulum


def _released(P, deg, axis=(1.0, 0.0, 0.0), frame="space"):
    return playback.release_start(P, deg, axis, frame)


def test_damping_zero_is_the_undamped_motion_to_the_bit(fig2):
    """c = 0: the damped kernel takes the steps of the undamped one (the same error norm over Gamma, omega) and
    returns its bits; simulate(damping=0) is the conservative run itself."""
    R0 = release_attitude(np.eye(3), 40.0, [1.0, 2.0, 0.5], "body")
    w0 = np.array([0.3, -0.2, 0.5])
    ref = simulate(fig2, R0, w0, 10.0, n_out=401)
    y0 = np.concatenate([R0[2], w0, R0[0], [0.0]])
    Y = np.empty((401, 10))
    st = _d.integrate_uniform_damped(y0, 10.0, 401, _d.damped_params(fig2.params(), 0.0), 1e-10, 1e-12, 10**6, Y)
    assert st[3] == 0 and st[0] == ref.stats["n_steps"]
    np.testing.assert_array_equal(Y[:, 0:3], ref.Gamma)
    np.testing.assert_array_equal(Y[:, 3:6], ref.omega)
    assert np.all(Y[:, 9] == 0.0)
    same = simulate(fig2, R0, w0, 10.0, n_out=401, damping=0.0)
    np.testing.assert_array_equal(same.R, ref.R)


def test_damped_energy_decreases_at_the_rate_c_omega_squared(fig2):
    """dE/dt = -c omega^T omega along the trajectory: E decreases monotonically, E(t) + W(t) = E(0) to the
    tolerance (W = the integrated dissipation the kernel carries), and a finite difference of E matches the rate
    c omega^T omega at the midpoints to the sampling's O(dt^2)."""
    c = 0.05
    R0 = release_attitude(np.eye(3), 70.0, [1.0, 1.0, 0.0], "space")
    tr = simulate(fig2, R0, [0.4, 0.0, 1.0], 20.0, n_out=20_001, damping=c, rtol=1e-12, atol=1e-14)
    E, t, W = tr.energy, tr.t, tr.omega
    assert tr.stats["damping"] == c
    assert np.all(np.diff(E) <= 1e-13), np.diff(E).max()
    assert E[-1] < E[0] - 0.1  # a visible loss
    balance = E + tr.stats["dissipated"]
    assert np.abs(balance - balance[0]).max() < 1e-9
    w2 = np.einsum("ni,ni->n", W, W)
    rate = np.diff(E) / np.diff(t)
    mid = -c * 0.5 * (w2[1:] + w2[:-1])
    assert np.abs(rate - mid).max() < 2e-5 * max(1.0, np.abs(mid).max())
    # the drift check is made on E + W: no warning, the energy "drift" is the balance's
    assert tr.stats["drift"]["energy"] < 1e-9


def test_damped_body_comes_to_rest_hanging(fig2):
    """From a 120 degree tilt at rest, c = 0.5: Gamma -> rho/|rho| (the hanging equilibrium, the stable one),
    omega -> 0, the energy -> - m g |rho| (its minimum); the tilt falls to 0 degrees."""
    R0 = _released(fig2, 120.0)
    tr = simulate(fig2, R0, np.zeros(3), 60.0, n_out=3001, damping=0.5)
    rho = np.asarray(fig2.rho) / np.linalg.norm(fig2.rho)
    tilt = playback.tilt_degrees(tr)
    assert tilt[0] == pytest.approx(120.0, abs=1e-9)
    np.testing.assert_allclose(tr.Gamma[-1], rho, atol=1e-6)
    assert np.linalg.norm(tr.omega[-1]) < 1e-6 and tilt[-1] < 1e-4
    assert tr.energy[-1] == pytest.approx(-fig2.mgrho_norm, abs=1e-9)


def test_damped_runs_raise_no_drift_warning(fig2):
    """Damped runs lose energy on purpose: the drift warnings (drift.py) check E + W and leave mu alone."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", InvariantDriftWarning)
        tr = simulate(fig2, _released(fig2, 90.0, (1.0, 1.0, 0.0)), [0.0, 0.0, 2.0], 30.0, damping=1.0)
    assert tr.energy_error > 0.5 and np.ptp(tr.mu) > 1e-3  # E and mu did change
    assert tr.stats["drift"]["mu"] > 1e-3 > tr.stats["drift"]["energy"]  # mu reported, not checked


@pytest.mark.parametrize("method", ["lgvi", "taylor", LGVI(1e-3), Taylor()])
def test_conservative_integrators_refuse_damping_by_name(fig2, method):
    with pytest.raises(InvalidIntegrationError, match=r"damping = 0.1 N m s: method '(lgvi|taylor)' is a "
                                                      r"conservative integrator.*use method='dop853'"):
        simulate(fig2, np.eye(3), [1.0, 0.0, 0.0], 1.0, method=method, damping=0.1)
    with pytest.raises(InvalidIntegrationError, match="damping"):
        playback.compute_motion(fig2, None, [1.0, 0.0, 0.0], 1.0, "lr", damping=0.1)


def test_damping_is_bounded_by_the_table(fig2):
    b = BOUNDS["damping"]
    for bad in (-0.1, float("nan"), b.high * 10):
        with pytest.raises(InvalidIntegrationError, match="damping = .* is outside 0 … 1e\\+06 N m s"):
            DOP853(damping=bad)
    with pytest.raises(InvalidIntegrationError, match="damping"):
        simulate(fig2, np.eye(3), [1.0, 0.0, 0.0], 1.0, damping=-1.0)
    assert integrator(DOP853(1e-9), damping=0.2) == DOP853(1e-9, 1e-12, 0.2)
    with pytest.raises(InvalidIntegrationError, match="differs from the integrator's own damping"):
        integrator(DOP853(damping=0.1), damping=0.2)
    with pytest.raises(InvalidIntegrationError, match="no Poincaré section"):
        DOP853(damping=0.1).crossing_runner(fig2, fig2.params())


# ---------------------------------------------------------------------------------------------------- release
def test_release_attitude_tilts_by_the_angle(fig2):
    """A horizontal lab axis tilts rho by exactly the angle from the downward vertical; a body axis
    perpendicular to rho too; a body axis along rho not at all."""
    for axis in ((1.0, 0.0, 0.0), (0.0, 3.0, 0.0), (1.0, -1.0, 0.0)):
        for deg in (-170.0, -30.0, 0.0, 45.0, 180.0):
            R0 = _released(fig2, deg, axis)
            rho = np.asarray(fig2.rho)
            down = (R0 @ rho) @ [0.0, 0.0, 1.0] / np.linalg.norm(rho)
            assert np.degrees(np.arccos(np.clip(down, -1, 1))) == pytest.approx(abs(deg), abs=1e-9)
            np.testing.assert_allclose(R0.T @ R0, np.eye(3), atol=1e-15)
    R0 = _released(fig2, 60.0, (0.0, 1.0, 0.0), "body")  # rho = 0.3 e3 for Fig. 2: e2 is perpendicular to it
    np.testing.assert_allclose(R0, rotation_about([0.0, 1.0, 0.0], np.radians(60.0)), atol=1e-15)
    np.testing.assert_allclose(_released(fig2, 60.0, (0.0, 0.0, 1.0), "body")[2], [0.0, 0.0, 1.0], atol=1e-15)
    # space: the lab axis, applied on the left; body: on the right
    B = rotation_about([0.0, 1.0, 0.0], 0.3)
    A = release_attitude(B, 25.0, [1.0, 0.0, 0.0], "space")
    np.testing.assert_allclose(A, rotation_about([1.0, 0.0, 0.0], np.radians(25.0)) @ B, atol=1e-15)
    A = release_attitude(B, 25.0, [1.0, 0.0, 0.0], "body")
    np.testing.assert_allclose(A, B @ rotation_about([1.0, 0.0, 0.0], np.radians(25.0)), atol=1e-15)


def test_release_attitude_refuses_bad_input_by_name():
    with pytest.raises(InvalidStateError, match=r"angle_deg = 200 ° is outside -180 … 180 °"):
        release_attitude(np.eye(3), 200.0, [1.0, 0.0, 0.0])
    with pytest.raises(InvalidStateError, match="axis must be a nonzero 3-vector"):
        release_attitude(np.eye(3), 10.0, [0.0, 0.0, 0.0])
    with pytest.raises(InvalidStateError, match="axis"):
        release_attitude(np.eye(3), 10.0, [np.nan, 0.0, 0.0])
    with pytest.raises(InvalidStateError, match="frame must be one of 'body', 'space'"):
        release_attitude(np.eye(3), 10.0, [1.0, 0.0, 0.0], "lab")
    with pytest.raises(InvalidStateError, match="angle_deg must be a number"):
        release_attitude(np.eye(3), "10", [1.0, 0.0, 0.0])


# ---------------------------------------------------------------------------------------------------- instruments
def test_energies_and_tilt_along_a_motion(fig2):
    """Kinetic + potential (from the hanging position) = E + m g |rho| (Eq 34) at every sample; the potential is
    m g |rho| (1 - cos tilt) for this body (rho along e3); released from rest, all of it is potential."""
    tr = simulate(fig2, _released(fig2, 50.0), np.zeros(3), 5.0, n_out=501)
    e = playback.energies(tr)
    np.testing.assert_allclose(e["total"], tr.energy + fig2.mgrho_norm, atol=1e-12)
    tilt = np.radians(playback.tilt_degrees(tr))
    # (to the integration error of |Gamma| = 1, which the tilt normalises away)
    np.testing.assert_allclose(e["potential"], fig2.mgrho_norm * (1.0 - np.cos(tilt)), rtol=0, atol=1e-9)
    assert e["kinetic"][0] == 0.0 and np.all(e["potential"] >= -1e-15) and np.all(e["dissipated"] == 0.0)
    assert playback.tilt_degrees(tr).max() == pytest.approx(50.0, abs=1e-3)  # the swing's amplitude


def test_continue_motion_keeps_the_past_and_changes_the_future(fig2):
    """Changing the damping at t = 3 s: the samples before 3 s are the old motion's, the ones after are the
    motion continued from the state at 3 s with the new damping; E + W is still conserved across the splice."""
    R0 = _released(fig2, 80.0, (1.0, 1.0, 0.0))
    old = simulate(fig2, R0, [0.0, 0.0, 1.0], 10.0, n_out=1001)
    new = playback.continue_motion(old, 3.004, "dop853", damping=0.3)
    k = 300
    assert new.stats["continued_from"] == pytest.approx(3.0)
    np.testing.assert_allclose(new.t, old.t, rtol=0, atol=1e-12)
    np.testing.assert_array_equal(new.R[:k], old.R[:k])
    np.testing.assert_allclose(new.R[k], old.R[k], atol=1e-15)
    ref = simulate(fig2, old.R[k], old.omega[k], 7.0, n_out=701, damping=0.3)
    np.testing.assert_array_equal(new.omega[k:], ref.omega)
    bal = new.energy + new.stats["dissipated"]
    assert np.abs(bal - bal[0]).max() < 1e-9 and new.energy[-1] < old.energy[-1] - 0.1
    assert playback.continue_motion(old, 50.0, "dop853", 0.3) is old
