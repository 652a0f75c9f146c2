"""The relative equilibria at one momentum mu (the critical points of V_mu on S^2, Prop 20), by root finding
on the sampled families of :func:`~pendulum_explorer.equilibria.equilibria`."""
from __future__ import annotations

from typing import Any

import numpy as np

from .. import _validate as _v
from .._numerics import find_root
from ..bodies import Pendulum
from ..errors import InvalidStateError
from ..geometry import rotation_about
from .adapted import common_base, evaluate
from .families import equilibria
from .records import EquilibriumPoint, EquilibriumSet, Family
from .sampling import Finisher


def _known(pendulum: Pendulum, eq: EquilibriumSet | None) -> EquilibriumSet:
    """``eq`` checked against ``pendulum``, or the pendulum's equilibria (computed once per pendulum)."""
    if eq is None:
        cached: EquilibriumSet = pendulum.cached("equilibria", equilibria)
        return cached
    if not isinstance(eq, EquilibriumSet):
        raise TypeError(f"eq must be an EquilibriumSet (from equilibria(pendulum)); got {type(eq).__name__}")
    if eq.pendulum != pendulum:
        raise InvalidStateError(f"eq was computed for another pendulum ({eq.pendulum!r}), not for {pendulum!r}")
    return eq


def _roots(f: Family, fin: Finisher, mu: float, br: int) -> list[EquilibriumPoint]:
    """The points of family ``f`` (branch ``br``) at momentum ``mu``: one per sign change of ``f.mu - mu``."""
    assert f.sampling is not None  # every family is built with its sampling
    smp = f.sampling
    m = f.mu - mu
    cross = np.nonzero(np.sign(m[:-1]) * np.sign(m[1:]) <= 0)[0]
    out = []
    for i in cross:
        if i > 0 and m[i] == 0.0:
            continue  # counted with the previous interval
        b0 = smp.base[i]
        xa, xb = common_base(smp.curve, b0, smp.x[i], smp.base[i + 1], smp.x[i + 1])

        def resid(x: float, b0: int = b0) -> float:
            Gp, s, _ = evaluate(smp.curve, np.array([b0]), np.array([x]))
            return fin.mu_of(Gp, s, br) - mu

        if m[i] == 0.0:
            x = xa
        elif m[i + 1] == 0.0:
            x = xb
        else:
            x = find_root(resid, xa, xb, rtol=1e-15, maxiter=200)
        Gp, s, al = evaluate(smp.curve, np.array([b0]), np.array([x]))
        p = fin.finish(Gp, s, br)
        if not abs(float(p.mu[0]) - mu) <= MU_RTOL * abs(mu):
            p = _at_exact_mu(fin, Gp, s, br, mu, p)
            if p is None:
                continue
        out.append(EquilibriumPoint(p.Gamma[0], p.omega[0], float(p.mu[0]), float(p.energy[0]), float(al[0]), f.label,
                                    br, p.stability[0], p.eigenvalues[0]))
    return out


#: relative accuracy in mu of a returned point (the root finder reaches ~1e-15 where mu is not tiny)
MU_RTOL = 1e-12
#: relative residual of Eq (32), |J omega x omega + m g rho x Gamma| / (m g |rho|), a returned point keeps
EQ_RESIDUAL = 1e-12


def _at_exact_mu(fin: Finisher, Gp: Any, s: Any, br: int, mu: float, p: Any) -> Any:
    """A family point at momentum ``mu`` where the root in the family parameter cannot resolve it: near the end of
    a family at an equilibrium mu ~ sqrt(s), so the parameter's rounding leaves mu off by ~1e-8 (mu = 1e-12 came
    back at 6.8e-9).  There Gamma depends on s only to O(s), below rounding, so the spin ``k`` is rescaled to give
    ``mu`` exactly (mu = k Gamma^T J Gamma, Eq 77) at the same Gamma; the point is kept only if it still solves
    Eq (32) to ``EQ_RESIDUAL``, and its mu to ``MU_RTOL``."""
    if not (p.mu[0] != 0.0 and np.isfinite(p.mu[0])):
        return None
    q = fin.finish(Gp, s * (mu / float(p.mu[0])) ** 2, br)
    P = fin.pendulum
    G, W = q.Gamma[0], q.omega[0]
    res = np.linalg.norm(np.cross(P.J @ W, W) + P.m * P.g * np.cross(P.rho, G)) / (P.m * P.g * np.linalg.norm(P.rho))
    return q if res <= EQ_RESIDUAL and abs(float(q.mu[0]) - mu) <= MU_RTOL * abs(mu) else None


#: points of one ring of steady spins (each ~1.4 ms to build: 10 000 points take ~15 s)
MAX_RING = 10_000


def _ring(f: Family, pt: EquilibriumPoint, n_ring: int) -> list[EquilibriumPoint]:
    """The circle of ``pt`` about the axis of an "eq7a" family, at ``n_ring`` points."""
    assert f.axis is not None  # every eq7a family has its axis
    ax = f.axis / np.linalg.norm(f.axis)
    out = []
    for th in np.linspace(0, 2 * np.pi, n_ring, endpoint=False):
        Rm = rotation_about(ax, th)
        out.append(EquilibriumPoint(Rm @ pt.Gamma, Rm @ pt.omega, pt.mu, pt.energy, pt.alpha, pt.family, pt.branch,
                                    pt.stability, pt.eigenvalues))
    return out


def equilibria_at_mu(pendulum: Pendulum, mu: float, eq: EquilibriumSet | None = None,
                     n_ring: int = 72) -> list[EquilibriumPoint]:
    """The Lagrange–Routh equilibria that exist at momentum ``mu`` (the critical points of V_mu on S^2).

    Parameters
    ----------
    pendulum : Pendulum
    mu : float
    eq : EquilibriumSet, optional
        A precomputed :func:`~pendulum_explorer.equilibria.equilibria` result for this pendulum (saves the
        recomputation; without it the pendulum's own, computed once per pendulum, is used).
    n_ring : int
        For the two-parameter "eq7a" family the solutions at fixed mu form circles about its axis; they are
        sampled at ``n_ring`` points (1 ... ``MAX_RING`` = 10 000).

    Returns
    -------
    list of EquilibriumPoint
        Located by root finding on the family parameter; each point's mu is the requested one to ``MU_RTOL``
        (1e-12 relative), also for tiny ``|mu|`` near the hanging and inverted equilibria.  ``mu = 0`` gives
        the hanging and inverted equilibria.  Points of the families nearer to a pole than the sampled curve
        (|mu| beyond the range of the curves, energy above ``E_CAP_FACTOR m g |rho|``) are not returned.
    """
    _v.check_pendulum(pendulum)
    mu = _v.real("mu", mu)
    n_ring = _v.integer("n_ring", n_ring, low=1, high=MAX_RING)
    eq = _known(pendulum, eq)
    if mu == 0.0:
        return [eq.hanging, eq.inverted]
    br = 1 if mu > 0 else -1
    fin = Finisher(pendulum, eq.frame, True)
    out = [ip for ip in eq.isolated if ip.family == "eq38" and ip.branch == br
           and abs(ip.mu - mu) <= 1e-13 * abs(mu)]
    for f in eq.curves(br):
        for pt in _roots(f, fin, mu, br):
            out += _ring(f, pt, n_ring) if f.kind == "eq7a" else [pt]
    return _unique(out)


#: up to this many points :func:`_unique` compares all pairs (at most 2 MB), beyond it builds a k-d tree
PAIRWISE_MAX = 300


def _unique(points: list[EquilibriumPoint], tol: float = 1e-9) -> list[EquilibriumPoint]:
    """``points`` without those within ``tol`` of an earlier one (families meet, e.g. at the Eq 41 crossings), in
    O(n log n): a k-d tree's pairs (the pairwise loop took 36-64 s for a ring of 5000 points)."""
    if len(points) < 2:
        return list(points)
    G = np.array([q.Gamma for q in points], dtype=float)
    if len(points) <= PAIRWISE_MAX:  # the same pairs without importing scipy.spatial (11 MB and ~0.08 s of CPU
        # in the dashboard kernel, at the section tab's first opening)
        D = np.sqrt(((G[:, None, :] - G[None, :, :]) ** 2).sum(axis=-1))
        near = np.triu(D <= tol, k=1)
        return [q for k, q in enumerate(points) if not near[:, k].any()]
    from scipy.spatial import cKDTree

    drop = {max(i, j) for i, j in cKDTree(G).query_pairs(tol)}
    return [q for k, q in enumerate(points) if k not in drop]


__all__ = ["equilibria_at_mu"]
