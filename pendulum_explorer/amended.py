"""The amended potential ``V_mu(Gamma) = mu^2 / (2 Gamma^T J Gamma) - m g rho^T Gamma`` (Eq 76).

One implementation (the kernel :func:`pendulum_explorer._core.section.amended_potential_many`, the energy of
Eq (34) of the locked rotation ``omega = nu Gamma``), used by :mod:`pendulum_explorer.equilibria` (its critical
points are the relative equilibria, Prop 20) and :mod:`pendulum_explorer.poincare` (the section is the region
``V_mu < E``).  Both import it from here, so neither imports the other for it.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike, NDArray

from . import _validate as _v
from ._core import section as _sec
from .errors import InvalidStateError

if TYPE_CHECKING:
    from .bodies import Pendulum

#: largest number of points evaluated in one call (memory guard)
MAX_POINTS = 10_000_000
#: largest |mu| accepted (mu^2 / (2 J3) stays finite)
MAX_MU = 1e100


def amended_potential(pendulum: Pendulum, mu: float, Gamma: ArrayLike) -> float | NDArray[np.float64]:
    """``V_mu(Gamma) = mu^2 / (2 Gamma^T J Gamma) - m g rho^T Gamma`` (Eq 76) for Gamma of shape (..., 3).

    Parameters
    ----------
    pendulum : Pendulum
    mu : float
        Vertical angular momentum (finite).
    Gamma : (..., 3) array_like
        Directions of gravity in the body frame (unit vectors to ``UNIT_TOL`` = 1e-6, normalised).

    Returns
    -------
    float for one Gamma (3,), else an array of shape ``Gamma.shape[:-1]``.
    """
    _v.check_pendulum(pendulum)
    mu = _v.real("mu", mu, low=-MAX_MU, high=MAX_MU)
    G = _v.real_array("Gamma", Gamma, trailing=(3,), max_size=3 * MAX_POINTS)
    nrm = np.linalg.norm(G, axis=-1)
    if not np.all(np.abs(nrm - 1.0) <= _v.UNIT_TOL):
        raise InvalidStateError(f"Gamma must hold unit vectors (to {_v.UNIT_TOL:g}); got norms from "
                                f"{nrm.min():.6g} to {nrm.max():.6g}")
    off = np.abs(nrm - 1.0) > 4e-16  # rows unit to rounding are used as given (bit-identical values)
    if off.any():
        G[off] = G[off] / nrm[off][:, None]
    flat = np.ascontiguousarray(G.reshape(-1, 3))
    out = np.empty(flat.shape[0])
    _sec.amended_potential_many(flat, pendulum.params(mu), out)
    return out.reshape(G.shape[:-1]) if G.ndim > 1 else float(out[0])


__all__ = ["amended_potential"]
