"""SO(3) utilities (issue 2, sec. 3): hat/vee, exp/log, Cayley, re-orthonormalisation, display conversions."""
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy.linalg import expm as scipy_expm
from scipy.spatial.transform import Rotation

from pendulum_explorer import geometry as g
from pendulum_explorer.errors import InvalidStateError, ShapeError

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


# ------------------------------------------------------------------------------------------------
# issue 26 item 8: non-rotations are refused with a clear error (each case returned garbage or a raw error before)
# ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("R", [np.ones((3, 3)), 2.0 * np.eye(3), np.diag([1.0, 1.0, -1.0]), np.zeros((3, 3)),
                               np.eye(3) + 1e-4])
def test_logm_refuses_a_matrix_that_is_not_a_rotation(R):
    """``logm(np.ones((3, 3)))`` and ``logm(2 I)`` returned the zero vector (exp of which is I, not R)."""
    with pytest.raises(InvalidStateError, match=r"R must be a rotation matrix .*det R = \+1"):
        g.logm(R)


def test_logm_accepts_a_rotation_to_the_package_tolerance():
    R = Rotation.from_rotvec([0.3, -0.2, 1.1]).as_matrix()
    np.testing.assert_allclose(g.logm(R + 5e-7 * np.eye(3)[::-1]), [0.3, -0.2, 1.1], atol=2e-6)


@pytest.mark.parametrize("R, needle", [(np.diag([1.0, 1.0, -1.0]), "reflection"),
                                       (-np.eye(3), "reflection"),
                                       (np.zeros((3, 3)), "singular"),
                                       (np.diag([1.0, 1.0, 1e-12]), "singular")])
def test_orthonormalize_refuses_what_has_no_nearest_rotation(R, needle):
    """``orthonormalize(diag(1, 1, -1))`` returned the reflection itself; ``orthonormalize(zeros)`` a raw
    LinAlgError."""
    with pytest.raises(InvalidStateError, match=f"det R > 0.*{needle}"):
        g.orthonormalize(R)


def test_orthonormalize_is_the_nearest_rotation_by_svd():
    rng = np.random.default_rng(5)
    for _ in range(20):
        A = Rotation.random(random_state=rng).as_matrix() @ np.diag(rng.uniform(0.2, 3.0, 3))
        Rn = g.orthonormalize(A)
        U, _, Vt = np.linalg.svd(A)
        np.testing.assert_allclose(Rn, U @ Vt, atol=1e-13)
        assert np.linalg.det(Rn) == pytest.approx(1.0, abs=1e-13)
        # no rotation of a sample is nearer (Frobenius) than the polar factor
        Q = Rotation.random(200, random_state=rng).as_matrix()
        assert np.linalg.norm(A - Rn) <= np.linalg.norm(A - Q, axis=(1, 2)).min()


def test_quaternion_helpers_refuse_bad_input_clearly():
    """scipy's own errors (zero-norm quaternion, bad sequence, wrong shape) and silent orthonormalisation of a
    non-rotation were the behaviour before."""
    with pytest.raises(InvalidStateError, match="unit quaternions.*quaternion 0 has"):
        g.from_quaternion([0.0, 0.0, 0.0, 0.0])
    with pytest.raises(InvalidStateError, match="quaternion 1 has"):
        g.from_quaternion([[0, 0, 0, 1.0], [0, 0, 0, 2.0]])
    with pytest.raises(ShapeError, match=r"shape \(\.\.\., 4\)"):
        g.from_quaternion([1.0, 0.0, 0.0])
    with pytest.raises(InvalidStateError, match="finite"):
        g.from_quaternion([np.nan, 0, 0, 1])
    with pytest.raises(InvalidStateError, match="rotation matri"):
        g.as_quaternion(2.0 * np.eye(3))
    with pytest.raises(InvalidStateError, match="matrix 1 has"):
        g.as_quaternion(np.stack([np.eye(3), np.diag([1.0, 1.0, -1.0])]))
    with pytest.raises(ShapeError):
        g.as_quaternion(np.eye(4))
    with pytest.raises(InvalidStateError, match="seq must be 3 axes"):
        g.as_euler(np.eye(3), "abc")
    with pytest.raises(InvalidStateError, match="seq must be 3 axes"):
        g.as_euler(np.eye(3), "ZZX")
    with pytest.raises(TypeError, match="degrees"):
        g.as_euler(np.eye(3), degrees="yes")


def test_quaternion_helpers_on_stacks_round_trip():
    Rs = Rotation.random(12, random_state=7).as_matrix().reshape(3, 4, 3, 3)
    q = g.as_quaternion(Rs)
    assert q.shape == (3, 4, 4)
    np.testing.assert_allclose(g.from_quaternion(q), Rs, atol=1e-14)
    np.testing.assert_allclose(g.as_euler(Rs, "xyz", degrees=False),
                               Rotation.from_matrix(Rs.reshape(-1, 3, 3)).as_euler("xyz").reshape(3, 4, 3), atol=1e-14)
