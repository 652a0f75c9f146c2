"""SO(3) utilities (issue 2, sec. 3): hat/vee, exp/log, Cayley, re-orthonormalisation, display conversions."""
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy.linalg import expm as scipy_expm
from scipy.spatial.transform import Rotation

from pendulum_explorer import geometry as g
from pendulum_explorer.errors import ShapeError

vec = st.tuples(*[st.floats(-3, 3)] * 3).map(np.array)


@given(vec, vec)
def test_hat_is_cross_product_and_vee_inverts(a, b):
    np.testing.assert_allclose(g.hat(a) @ b, np.cross(a, b), atol=1e-14)
    np.testing.assert_array_equal(g.vee(g.hat(a)), a)
    np.testing.assert_array_equal(g.hat(a), -g.hat(a).T)


@given(vec)
def test_exp_matches_matrix_exponential(w):
    np.testing.assert_allclose(g.expm(w), scipy_expm(g.hat(w)), atol=1e-13)


@pytest.mark.parametrize("theta", [0.0, 1e-9, 1e-5, 1e-4, 0.3, 2.0, np.pi - 1e-3, np.pi - 1e-6])
def test_log_inverts_exp_including_small_and_near_pi(theta):
    axis = np.array([0.3, -0.5, 0.81])
    axis /= np.linalg.norm(axis)
    w = theta * axis
    R = g.expm(w)
    np.testing.assert_allclose(R.T @ R, np.eye(3), atol=1e-15)
    np.testing.assert_allclose(g.logm(R), w, atol=1e-13)


@given(vec)
def test_cayley_is_a_rotation_and_matches_its_definition(f):
    C = g.cayley(f)
    np.testing.assert_allclose(C.T @ C, np.eye(3), atol=1e-13)
    assert np.linalg.det(C) == pytest.approx(1.0, abs=1e-13)
    F = g.hat(f)
    np.testing.assert_allclose(C, (np.eye(3) + F) @ np.linalg.inv(np.eye(3) - F), atol=1e-12)


def test_orthonormalize_returns_polar_factor():
    R = Rotation.from_rotvec([0.2, -1.0, 0.4]).as_matrix()
    Rn = g.orthonormalize(R + 1e-6 * np.arange(9).reshape(3, 3))
    np.testing.assert_allclose(Rn.T @ Rn, np.eye(3), atol=1e-14)
    np.testing.assert_allclose(Rn, R, atol=1e-5)


def test_quaternion_and_euler_round_trip():
    R = Rotation.from_euler("ZYX", [30, -20, 75], degrees=True).as_matrix()
    np.testing.assert_allclose(g.as_euler(R), [30, -20, 75], atol=1e-12)
    q = g.as_quaternion(R)
    assert np.linalg.norm(q) == pytest.approx(1.0)
    np.testing.assert_allclose(g.from_quaternion(q), R, atol=1e-14)


def test_bad_shapes():
    with pytest.raises(ShapeError, match=r"shape \(3,\)"):
        g.hat([1.0, 2.0])
    with pytest.raises(ShapeError, match=r"shape \(3, 3\)"):
        g.logm(np.eye(2))


def test_orthogonality_errors_are_the_frobenius_norm_of_RtR_minus_I():
    from pendulum_explorer.trajectory import orthogonality_errors

    rng = np.random.default_rng(3)
    R = Rotation.random(50, random_state=4).as_matrix() + 1e-6 * rng.standard_normal((50, 3, 3))
    E = np.einsum("nji,njk->nik", R, R) - np.eye(3)
    np.testing.assert_allclose(orthogonality_errors(R), np.sqrt((E * E).sum(axis=(1, 2))), rtol=1e-9)
    assert orthogonality_errors(R[:, :, ::-1]).shape == (50,)  # any strides
    np.testing.assert_array_equal(orthogonality_errors(np.stack([np.eye(3), np.diag([1.0, -1.0, -1.0])])), [0, 0])
    assert orthogonality_errors(2.0 * np.eye(3)[None])[0] == pytest.approx(np.sqrt(27.0))
