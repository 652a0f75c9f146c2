"""Ready-made bodies: the paper's two examples and classical special cases (Props 5-7).

Each function returns a :class:`~pendulum_explorer.bodies.Body`: ``.pendulum`` in the frame the paper
prints and ``.mesh`` in the same frame.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ._words import N_
from .bodies import Body, Mesh, Pendulum, build_body, elliptic_cylinder, equivalent_body
from .errors import InvalidPendulumError


def paper_fig1(g: float = 9.81) -> Body:
    """The elliptic cylinder of Sec. 4.3 / Fig. 1: a = 0.8, b = 0.2, h = 0.6, m = 1.

    The pivot is on the upper face, offset [-a/2, b/2, 0] from its centre.  In principal axes with
    J1 >= J2 >= J3 and the axis signs of the paper this gives J = diag(0.4486, 0.3943, 0.0772) and
    rho = [-0.0140, 0.1044, 0.4989].
    """
    a, b, h = 0.8, 0.2, 0.6
    # e3 points down, so the upper face is at z = -h/2 in the cylinder's own axes.
    body = elliptic_cylinder(a, b, h, m=1.0, pivot=(-a / 2, b / 2, -h / 2), g=g)
    # Pendulum.principal()'s sign convention (rho_2, rho_3 >= 0, right-handed) gives the paper's axes
    return Body(body.pendulum, body.mesh, "paper_fig1",
                N_("Elliptic cylinder of Fig. 1 (a = 0.8, b = 0.2, h = 0.6 m, m = 1 kg), pivot on the upper face "
                   "at [-a/2, b/2] from its centre; principal axes."), dict(body.shape))


def paper_fig2(g: float = 9.81) -> Body:
    """The body of Fig. 2: J = diag(0.13, 0.28, 0.17), rho = [0, 0, 0.3], m = 1.

    This is the same elliptic cylinder (a = 0.8, b = 0.2, h = 0.6) hung from the centre of its upper face,
    expressed in its geometric axes (the paper does not sort the moments here).
    """
    body = elliptic_cylinder(0.8, 0.2, 0.6, m=1.0, pivot=(0.0, 0.0, -0.3), g=g, principal_axes=False)
    # use the printed numbers exactly (the parallel-axis sum differs from them by rounding only)
    pend = Pendulum(np.diag([0.13, 0.28, 0.17]), [0.0, 0.0, 0.3], 1.0, g)
    assert np.allclose(pend.J, body.pendulum.J, atol=1e-12) and np.allclose(pend.rho, body.pendulum.rho)
    return Body(pend, body.mesh, "paper_fig2",
                N_("Body of Fig. 2: J = diag(0.13, 0.28, 0.17) kg m², ρ = [0, 0, 0.3] m, m = 1 kg (elliptic "
                   "cylinder a = 0.8, b = 0.2, h = 0.6 m hung from the centre of its upper face)."),
                dict(body.shape))


def lagrange_top(g: float = 9.81) -> Body:
    """A symmetric (Lagrange) top: a solid disc (radius 0.3, thickness 0.1, m = 1) on an axis 0.3 m
    from its centre.  J = diag(Jt, Jt, Ja), rho = [0, 0, 0.3] (Props 5-6)."""
    body = elliptic_cylinder(0.3, 0.3, 0.1, m=1.0, pivot=(0.0, 0.0, -0.3), g=g, principal_axes=False)
    return Body(body.pendulum, body.mesh, "lagrange_top",
                N_("Symmetric (Lagrange) top: disc of radius 0.3 m and thickness 0.1 m, pivot on its axis "
                   "0.3 m above the centre."), dict(body.shape))


def planar(g: float = 9.81) -> Body:
    """A rod-like box (0.1 x 0.05 x 1.0 m, m = 1) hung from the centre of an end face.

    rho = [0, 0, 0.5] lies on a principal axis, so a motion from rest with Gamma in a principal plane
    stays in that plane: the planar pendulum of Prop 7 with period 4 sqrt(J_t/(m g |rho|)) K(sin(theta0/2)).
    """
    body = build_body("box", (0.1, 0.05, 1.0), m=1.0, pivot=(0.0, 0.0, -0.5), g=g, principal_axes=False)
    return Body(body.pendulum, body.mesh, "planar",
                N_("Rod-like box 0.1 × 0.05 × 1.0 m hung from an end: a planar pendulum when released from "
                   "rest in a principal plane."), dict(body.shape))


PRESETS: dict[str, Callable[..., Body]] = {
    "paper_fig1": paper_fig1,
    "paper_fig2": paper_fig2,
    "lagrange_top": lagrange_top,
    "planar": planar,
}


def get(name: str, **kwargs: Any) -> Body:
    """The preset called ``name`` (one of :data:`PRESETS`)."""
    if not isinstance(name, str) or name not in PRESETS:
        raise InvalidPendulumError(f"unknown preset name={name!r}; valid: {', '.join(PRESETS)}")
    return PRESETS[name](**kwargs)


#: the builder shapes a body can be rebuilt from (``Body.shape["kind"]``)
SHAPE_KINDS = ("elliptic_cylinder", "box", "ellipsoid")


def preset_of(body: Body) -> str | None:
    """The name of the preset ``body`` is (the preset of its name at its g has its pendulum), else None."""
    if body.name in PRESETS and get(body.name, g=body.pendulum.g).pendulum == body.pendulum:
        return body.name
    return None


def with_g(body: Body, g: float) -> Body:
    """``body`` under the gravity ``g``: rebuilt from its preset, else from its builder shape, else as the
    :func:`~pendulum_explorer.bodies.equivalent_body` of its J, rho and m (the name is kept)."""
    if preset_of(body) is not None:
        return get(body.name, g=g)
    shape = body.shape or {}
    if shape.get("kind") in SHAPE_KINDS:
        return build_body(shape["kind"], shape["dims"], m=shape["m"], pivot=shape["pivot"], g=g, name=body.name)
    pend = body.pendulum
    return equivalent_body(Pendulum(pend.J, pend.rho, pend.m, g), name=body.name)


__all__ = ["paper_fig1", "paper_fig2", "lagrange_top", "planar", "PRESETS", "SHAPE_KINDS", "get", "preset_of",
           "with_g", "Body", "Mesh"]
