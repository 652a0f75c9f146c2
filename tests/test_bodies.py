"""Pendulum validation, principal axes, body builders and presets."""
import numpy as np
import pytest
from hypothesis import given

from pendulum_explorer import Pendulum, build_body, presets
from pendulum_explorer.errors import (
    BalancedPendulumError,
    NonFiniteError,
    NonPositiveError,
    NotPositiveDefiniteError,
    NotRealizableError,
    NotSymmetricError,
    ShapeError,
)

from pe_strategies import valid_bodies

J0 = np.diag([0.13, 0.28, 0.17])


def test_paper_fig1_reproduces_printed_values(fig1):
    P = fig1.pendulum
    np.testing.assert_allclose(np.round(np.diag(P.J), 4), [0.4486, 0.3943, 0.0772], atol=0)
    np.testing.assert_allclose(np.round(P.rho, 4), [-0.0140, 0.1044, 0.4989], atol=0)
    assert np.count_nonzero(P.J - np.diag(np.diag(P.J))) == 0
    assert P.m == 1.0 and P.g == 9.81


def test_paper_fig2_values(fig2):
    P = fig2.pendulum
    np.testing.assert_array_equal(P.J, np.diag([0.13, 0.28, 0.17]))
    np.testing.assert_array_equal(P.rho, [0.0, 0.0, 0.3])


@pytest.mark.parametrize("name", list(presets.PRESETS))
def test_presets_have_mesh_around_centre_of_mass(name):
    body = presets.get(name)
    V = body.mesh.vertices
    # a homogeneous convex solid: its centre of mass lies inside the vertices' bounding box, and the mean
    # of a symmetric mesh's vertices is the centroid
    centroid = V.mean(axis=0)
    np.testing.assert_allclose(centroid, body.pendulum.rho, atol=1e-9)
    assert body.mesh.faces.max() < len(V)


def test_lagrange_top_and_planar_are_axisymmetric_about_rho():
    top = presets.lagrange_top().pendulum
    assert top.J[0, 0] == pytest.approx(top.J[1, 1]) and top.rho[0] == top.rho[1] == 0
    pl = presets.planar().pendulum
    assert pl.rho[0] == pl.rho[1] == 0 and np.count_nonzero(pl.J - np.diag(np.diag(pl.J))) == 0


@pytest.mark.parametrize("kind,dims", [("elliptic_cylinder", (0.8, 0.2, 0.6)), ("box", (0.3, 0.5, 0.7)),
                                       ("ellipsoid", (0.3, 0.2, 0.4))])
def test_builder_inertia_matches_monte_carlo(kind, dims):
    """Inertia about the pivot against an independent Monte-Carlo integral over the solid."""
    pivot = np.array([0.1, -0.05, 0.2])
    body = build_body(kind, dims, m=2.0, pivot=pivot, principal_axes=False)
    rng = np.random.default_rng(1)
    a, b, c = dims
    X = rng.uniform(-1, 1, size=(800_000, 3))
    if kind == "elliptic_cylinder":
        keep = X[:, 0] ** 2 + X[:, 1] ** 2 <= 1
        X = X[keep] * np.array([a, b, c / 2])
    elif kind == "box":
        X = X * np.array(dims) / 2
    else:
        keep = (X ** 2).sum(1) <= 1
        X = X[keep] * np.array(dims)
    r = X - pivot
    Jmc = 2.0 * (np.eye(3) * (r * r).sum(1).mean() - (r[:, :, None] * r[:, None, :]).mean(0))
    np.testing.assert_allclose(body.pendulum.J, Jmc, atol=3e-3 * np.abs(Jmc).max())
    np.testing.assert_allclose(body.pendulum.rho, -pivot, atol=1e-15)


@given(valid_bodies())
def test_principal_axes_properties(P):
    Pp, Q = P.principal()
    assert np.linalg.det(Q) == pytest.approx(1.0, abs=1e-12)
    np.testing.assert_allclose(Q.T @ Q, np.eye(3), atol=1e-12)
    d = np.diag(Pp.J)
    assert d[0] >= d[1] >= d[2]
    np.testing.assert_allclose(Q.T @ P.J @ Q, Pp.J, atol=1e-12 * np.abs(P.J).max())
    np.testing.assert_allclose(Q.T @ P.rho, Pp.rho, atol=1e-12)
    # the physics does not change: energy of the same motion in both frames
    w = np.array([0.3, -1.0, 2.0])
    assert w @ P.J @ w == pytest.approx((Q.T @ w) @ Pp.J @ (Q.T @ w), rel=1e-12)


@pytest.mark.parametrize(
    "kwargs,exc,fragment",
    [
        (dict(J=[[1, 0.1, 0], [0, 1, 0], [0, 0, 1]], rho=[0, 0, 1]), NotSymmetricError, "symmetric"),
        (dict(J=np.diag([1, -1, 1.0]), rho=[0, 0, 1]), NotPositiveDefiniteError, "positive definite"),
        (dict(J=np.zeros((3, 3)), rho=[0, 0, 1]), NotPositiveDefiniteError, "positive definite"),
        (dict(J=np.diag([3.0, 1.0, 1.0]), rho=[0, 0, 1]), NotRealizableError, "J1 <= J2 + J3"),
        (dict(J=J0, rho=[0, 0, np.nan]), NonFiniteError, "finite"),
        (dict(J=np.diag([np.inf, 1.0, 1.0]), rho=[0, 0, 1]), NonFiniteError, "finite"),
        (dict(J=J0, rho=[0, 0, 1], m=0.0), NonPositiveError, "m must be > 0"),
        (dict(J=J0, rho=[0, 0, 1], m=-1.0), NonPositiveError, "m must be > 0"),
        (dict(J=J0, rho=[0, 0, 1], g=0.0), NonPositiveError, "g must be > 0"),
        (dict(J=J0, rho=[0, 0, 1], g=np.inf), NonFiniteError, "g must be finite"),
        (dict(J=np.eye(2), rho=[0, 0, 1]), ShapeError, "shape (3, 3)"),
        (dict(J=J0, rho=[0, 1]), ShapeError, "shape (3,)"),
        (dict(J="abc", rho=[0, 0, 1]), ShapeError, "numeric"),
    ],
)
def test_validation_errors(kwargs, exc, fragment):
    with pytest.raises(exc) as info:
        Pendulum(**kwargs)
    assert fragment in str(info.value)
    assert isinstance(info.value, ValueError)


def test_error_messages_name_the_numbers():
    with pytest.raises(NotRealizableError, match=r"J1 = 3 > J2 \+ J3 = 2"):
        Pendulum(np.diag([3.0, 1.0, 1.0]), [0, 0, 1])
    with pytest.raises(NotSymmetricError, match="max\\|J - J\\^T\\| = 0.1"):
        Pendulum([[1, 0.1, 0], [0, 1, 0], [0, 0, 1]], [0, 0, 1])


def test_flat_plate_is_realizable_at_equality():
    # thin plate: J3 = J1 + J2 exactly (the boundary case is physical)
    Pendulum(np.diag([0.1, 0.2, 0.3]), [0, 0, 0.1])


def test_balanced_accepted_but_analyses_refuse():
    P = Pendulum(J0, [0, 0, 0])
    assert P.is_balanced
    with pytest.raises(BalancedPendulumError, match="rho != 0"):
        P.small_oscillations()


def test_immutable():
    P = Pendulum(J0, [0, 0, 0.3])
    with pytest.raises(ValueError):
        P.J[0, 0] = 1.0
    with pytest.raises(AttributeError):
        P.m = 2.0
    assert Pendulum(**P.to_dict()) == P


def test_builder_rejects_bad_dimensions():
    with pytest.raises(NonPositiveError, match="dimension 2 of box must be > 0"):
        build_body("box", (1.0, -1.0, 1.0))
    with pytest.raises(ValueError, match="unknown shape"):
        build_body("torus", (1.0, 1.0, 1.0))
    with pytest.raises(ValueError, match="unknown preset"):
        presets.get("nope")
