"""Attitudes of the equilibria in the full model: the fibre over Gamma and the hanging / inverted manifolds."""
from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from .. import _validate as _v
from ..bodies import Pendulum
from ..errors import InvalidStateError
from ..reduction import attitude_from_gamma
from .records import F64


def equilibrium_attitude(Gamma: ArrayLike, angle: float = 0.0) -> F64:
    """A rotation ``R_e`` in SO(3) with ``R_e^T e3 = Gamma``, rotated by ``angle`` about the vertical
    (the S^1 symmetry of Sec. 5.1); see :func:`pendulum_explorer.reduction.attitude_from_gamma`."""
    return attitude_from_gamma(Gamma, _v.real("angle", angle))


def equilibrium_manifold(pendulum: Pendulum, which: str = "hanging", n: int = 36) -> F64:
    """Samples of the hanging (Eq 10/12) or inverted (Eq 11/13) equilibrium manifold of the full model.

    Returns
    -------
    (n, 3, 3) array of rotations ``R`` with ``R^T e3 = +-rho/|rho|`` (the equilibrium is ``(R, omega = 0)``).
    """
    _v.check_pendulum(pendulum)
    which = _v.choice("which", which, ("hanging", "inverted"), exc=InvalidStateError)
    n = _v.integer("n", n, low=1, high=100_000)
    pendulum.require_unbalanced("the equilibrium manifolds")
    G = pendulum.rho / np.linalg.norm(pendulum.rho) * (1.0 if which == "hanging" else -1.0)
    return np.array([equilibrium_attitude(G, a) for a in np.linspace(0, 2 * np.pi, n, endpoint=False)])


__all__ = ["equilibrium_attitude", "equilibrium_manifold"]
