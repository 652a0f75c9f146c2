"""The k-th return map with its Jacobian and its fixed points (periodic orbits), as functions over a
:class:`~.map.PoincareMap`."""
from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .. import _validate as _v
from .._core import section as _sec
from .._core.fields import lp_field
from ..bounds import BOUNDS
from .._core.status import I_FOUND, I_STATUS, N_INFO
from ..errors import (InaccessibleError, IntegrationFailedError, InvalidIntegrationError, InvalidStateError,
                      PeriodicOrbitNotFoundError, ShapeError)
from .chart import chart_from_sphere, chart_of_tangent, chart_tangent, sphere_from_chart
from .map import PoincareMap
from .results import PeriodicOrbit, SectionState, orbit_kind

MAX_RETURN_POWER = int(BOUNDS["k"].high)  # k of the k-th return map
#: the largest Newton step on the chart
MAX_NEWTON_STEP = 0.2


def return_map(pmap: PoincareMap, phi: float, z: float, k: int = 1) -> tuple[float, float, float, NDArray[np.float64]]:
    """The k-th return of the section point at chart coordinates (phi, z) and its Jacobian
    (see :meth:`PoincareSection.return_map`): ``(phi1, z1, T, M)``, M = d(phi1, z1) / d(phi, z)."""
    k = _v.integer("k", k, low=1, high=MAX_RETURN_POWER)
    level = pmap.level
    st = level.state_at(sphere_from_chart(_v.real("phi", phi), _v.real("z", z, low=-1.0, high=1.0)))
    G, w = st.Gamma, st.omega
    p = level.p
    dim = 8 + 36
    y0 = np.zeros(dim)
    y0[0:3] = G
    y0[3:6] = w
    for j in range(6):
        y0[6 + 7 * j] = 1.0
    n, t_max, max_gap, max_steps = level.limits(k, None, None, None)
    Yc = np.empty((k, dim))
    Tc = np.empty(k)
    info = np.zeros(N_INFO, dtype=np.int64)
    _sec.crossings_tangent(y0, p, k, t_max, max_gap, max_steps, pmap.tangent.rtol, pmap.tangent.atol, Yc, Tc, info)
    if info[I_FOUND] < k:
        raise IntegrationFailedError(
            f"the trajectory from (phi, z) = ({phi:.6g}, {z:.6g}) returned {int(info[I_FOUND])} of k = {k} times "
            f"({_v.Status(int(info[I_STATUS])).label}); pick a point whose trajectory keeps crossing the section")
    y1 = Yc[k - 1]
    Phi = y1[6:42].reshape(6, 6).T
    V = Phi @ chart_tangent(G, w, p)
    f1 = np.array(lp_field(*y1[:6], p))
    G1, w1 = y1[0:3], y1[3:6]
    grad_g = np.array([w1[1], -w1[0], 0.0, -G1[1], G1[0], 0.0])
    V = V - np.outer(f1, grad_g @ V) / (grad_g @ f1)
    M = chart_of_tangent(G1, V[0:3])
    phi1, z1 = chart_from_sphere(G1)
    return float(phi1), float(z1), float(Tc[k - 1]), M


def chart_seed(seed: ArrayLike | SectionState) -> NDArray[np.float64]:
    """Chart coordinates (phi, z) of a seed given as (phi, z), a section Gamma (3,) or a :class:`SectionState`."""
    if isinstance(seed, SectionState):
        return np.array(chart_from_sphere(seed.Gamma), dtype=float)
    a = _v.real_array("seed", seed, max_size=3, exc=InvalidStateError)
    if a.shape == (2,):
        x = a.copy()
    elif a.shape == (3,):
        x = np.array(chart_from_sphere(_v.unit_vector("seed", a)), dtype=float)
    else:
        raise ShapeError(f"seed must be chart coordinates (phi, z), a Gamma (3,) or a SectionState; "
                         f"got shape {a.shape}")
    if not np.all(np.isfinite(x)) or abs(x[1]) > 1.0:
        raise InvalidStateError(f"seed chart coordinates must be finite with |z| <= 1; got {x.tolist()}")
    return x


def periodic_orbit(pmap: PoincareMap, seed: ArrayLike | SectionState, k: int = 1, *, tol: float = 1e-10,
                   max_iter: int = 50) -> PeriodicOrbit:
    """A fixed point of the k-th return map near ``seed``: Newton's method on the section chart with the
    Jacobian of :func:`return_map` (see :meth:`PoincareSection.periodic_orbit`)."""
    k = _v.integer("k", k, low=1, high=MAX_RETURN_POWER)
    tol = _v.real("tol", tol, exc=InvalidIntegrationError, low=1e-13, high=1e-3)
    max_iter = _v.integer("max_iter", max_iter, low=1, high=1000)
    x = chart_seed(seed)
    level = pmap.level
    level.state_at(sphere_from_chart(x[0], x[1]))  # raises InaccessibleError for a seed off the section

    def residual(x: NDArray[np.float64]) -> tuple[NDArray[np.float64], float, NDArray[np.float64]]:
        phi1, z1, T, M = return_map(pmap, x[0], x[1], k)
        F = np.array([math.remainder(phi1 - x[0], 2 * math.pi), z1 - x[1]])
        return F, T, M

    F, T, M = residual(x)
    res = float(np.linalg.norm(F))
    it = 0
    while res > tol:
        if it >= max_iter:
            raise PeriodicOrbitNotFoundError(
                f"Newton's method for a fixed point of the {k}-th return map did not converge in {max_iter} "
                f"iterations from the seed (last residual {res:.3g} > tol = {tol:g} at phi = {x[0]:.6f}, "
                f"z = {x[1]:.6f}); click closer to an island centre or try another k", res)
        it += 1
        try:
            dx = np.linalg.solve(M - np.eye(2), -F)
        except np.linalg.LinAlgError:
            raise PeriodicOrbitNotFoundError(
                f"the Newton matrix DP^{k} - I is singular at phi = {x[0]:.6f}, z = {x[1]:.6f} (a multiplier "
                f"equal to 1); last residual {res:.3g}", res) from None
        step = float(np.linalg.norm(dx))
        if step > MAX_NEWTON_STEP:
            dx *= MAX_NEWTON_STEP / step
        for _ in range(12):
            xn = x + dx
            xn[0] = math.remainder(xn[0], 2 * math.pi)
            try:
                Fn, Tn, Mn = residual(xn)
            except (InaccessibleError, InvalidStateError, IntegrationFailedError):
                dx *= 0.5
                continue
            rn = float(np.linalg.norm(Fn))
            if rn < res or rn <= tol:
                break
            dx *= 0.5
        else:
            raise PeriodicOrbitNotFoundError(
                f"Newton's method for a fixed point of the {k}-th return map stalled at phi = {x[0]:.6f}, "
                f"z = {x[1]:.6f} (residual {res:.3g}: no shorter step lowers it); click closer to an island "
                f"centre or try another k", res)
        x, F, T, M, res = xn, Fn, Tn, Mn, rn
    st = level.state_at(sphere_from_chart(x[0], x[1]))
    mult, kind = orbit_kind(M)
    return PeriodicOrbit(st.Gamma, st.omega, float(x[0]), float(x[1]), k, T, M, mult, kind, res, it)
