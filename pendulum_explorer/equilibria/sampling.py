"""Continuation of the families: adaptive sampling, the approach to a pole, the body-frame points with their energy,
momentum and stability, the mirrored branch, and the bisection of stability changes.

Curves are refined until consecutive samples of Gamma are less than ``MAX_STEP_DEG`` apart (with a margin) and
``log(s + s_ref)`` changes by less than 0.1; they stop (at both kinds of pole) once Gamma is within 0.5 deg of its
limit and the energy exceeds ``E_CAP_FACTOR m g |rho|``; a family holds at most ``MAX_FAMILY_SAMPLES`` samples.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import numpy as np
from numpy.typing import NDArray

from .._core.fields import LP, invariants_batch, mu_lp
from ..bodies import Pendulum
from .adapted import common_base, curve_param, evaluate
from .records import F64, Curve, Eigs, Family, FamilySampling, GenericCurve
from .stability import lr_stability

MAX_STEP_DEG = 1.0
#: samples of one family at most (the refinement stops there: bounded memory for extreme bodies, J3/J1 ~ 1e-17)
MAX_FAMILY_SAMPLES = 20_000

_STEP = np.deg2rad(MAX_STEP_DEG) * 0.9   # refinement target (a margin below 1 deg)
_LIMIT_ANGLE = np.deg2rad(0.5)            # how close a curve gets to a pole limit

#: a family evaluated at offsets: Gamma (n, 3) and k^2/(m g) (n,)
CurveFunction = Callable[[F64], tuple[F64, F64]]


def _angles(G: F64) -> F64:
    c = np.einsum("ij,ij->i", G[1:], G[:-1])
    x = np.linalg.norm(np.cross(G[1:], G[:-1]), axis=1)
    angle: F64 = np.arctan2(x, c)
    return angle


def refine(params: F64, evalf: CurveFunction, s_ref: float, max_iter: int = 60) -> tuple[F64, F64, F64]:
    """Insert midpoints until consecutive Gamma are < _STEP apart and log(s + s_ref) changes by < 0.1."""
    x = np.asarray(params, dtype=float)
    G, s = evalf(x)
    for _ in range(max_iter):
        ang = _angles(G)
        ls = np.log(s + s_ref)
        bad = (ang > _STEP) | (np.abs(np.diff(ls)) > 0.1)
        if not bad.any():
            break
        mids = 0.5 * (x[:-1][bad] + x[1:][bad])
        mids = mids[(mids != x[:-1][bad]) & (mids != x[1:][bad])]  # intervals at rounding level stay as they are
        if len(mids) == 0 or len(x) + len(mids) > MAX_FAMILY_SAMPLES:
            break
        Gm, sm = evalf(mids)
        x = np.concatenate([x, mids])
        o = np.argsort(x)
        x = x[o]
        G = np.concatenate([G, Gm])[o]
        s = np.concatenate([s, sm])[o]
    return x, G, s


def refine_segment(curve: GenericCurve, B: NDArray[np.intp], X: F64, K: F64, s_ref: float,
                   max_iter: int = 60) -> tuple[NDArray[np.intp], F64]:
    """:func:`refine` for a generic segment stored as (base pole, offset) samples ordered by the key K."""
    phis = curve.phis
    o = np.argsort(K, kind="stable")
    B, X, K = B[o], X[o], K[o]
    G, s, _ = evaluate(curve, B, X)
    for _ in range(max_iter):
        ang = _angles(G)
        ls = np.log(s + s_ref)
        bad = np.nonzero((ang > _STEP) | (np.abs(np.diff(ls)) > 0.1))[0]
        if len(bad) == 0:
            break
        b0 = B[bad]
        x1 = np.where(B[bad + 1] == b0, X[bad + 1], (phis[B[bad + 1]] + X[bad + 1]) - phis[b0])
        xm = 0.5 * (X[bad] + x1)
        km = K[bad] + (xm - X[bad])
        split = (xm != X[bad]) & (xm != x1) & (km > K[bad]) & (km < K[bad + 1])  # not at rounding level
        b0, xm, km = b0[split], xm[split], km[split]
        if len(xm) == 0 or len(B) + len(xm) > MAX_FAMILY_SAMPLES:
            break
        Gm, sm, _ = evaluate(curve, b0, xm)
        B, X, K = np.concatenate([B, b0]), np.concatenate([X, xm]), np.concatenate([K, km])
        G, s = np.concatenate([G, Gm]), np.concatenate([s, sm])
        o = np.argsort(K, kind="stable")
        B, X, K, G, s = B[o], X[o], K[o], G[o], s[o]
    return B, X


def approach(evalf: CurveFunction, start: float, sign: int, limit: F64, s_cap: float) -> F64:
    """Offsets start, start/2, ... (toward 0) until Gamma is within 0.5 deg of ``limit`` and s >= s_cap."""
    out = []
    h = start
    for _ in range(1100):
        h = h * 0.5
        G, s = evalf(np.array([sign * h]))
        out.append(sign * h)
        close = np.arccos(np.clip(G[0] @ limit, -1, 1)) <= _LIMIT_ANGLE
        if close and s[0] >= s_cap:
            break
        if h < 1e-300:
            break
    return np.array(out)


class Finished(NamedTuple):
    """Points of a family in the body frame with their spin, invariants and stability (arrays along the samples)."""

    Gamma: F64
    omega: F64
    k: F64
    energy: F64
    mu: F64
    eigenvalues: Eigs
    stability: NDArray[np.object_]


class Finisher:
    """Adapted axes -> body frame; energy and mu from the kernels (Eqs 34, 77); LR stability."""

    def __init__(self, pendulum: Pendulum, P: F64, stability: bool) -> None:
        self.pendulum = pendulum
        self.P = P
        self.p = pendulum.params(0.0)
        self.mg = pendulum.m * pendulum.g
        self.stability = stability

    def _body(self, Gp: F64) -> F64:
        Gb = Gp @ self.P.T
        Gb /= np.linalg.norm(Gb, axis=-1)[:, None]
        return Gb

    def finish(self, Gp: F64, s: F64, branch: int) -> Finished:
        """The points of adapted-axes samples ``Gp`` with ``k^2/(m g) = s`` on the given branch."""
        Gb = self._body(Gp)
        k = branch * np.sqrt(self.mg * s)
        W = k[:, None] * Gb
        em = np.empty((len(Gb), 2))
        invariants_batch(LP, np.ascontiguousarray(np.concatenate([Gb, W], axis=1)), self.p, em)
        if self.stability:
            ev, cls = lr_stability(self.pendulum, Gb, em[:, 1], k)
        else:
            ev, cls = np.full((len(Gb), 4), np.nan + 0j), np.array([""] * len(Gb), dtype=object)
        return Finished(Gb, W, k, em[:, 0], em[:, 1], ev, cls)

    def mu_of(self, Gp: F64, s: F64, branch: int) -> float:
        """The momentum (Eq 77) of the first sample only (the residual of a root search in mu)."""
        Gb = self._body(Gp)
        W = branch * np.sqrt(self.mg * s)[:, None] * Gb
        return float(mu_lp(Gb[0], W[0], self.p))


def mirror(f: Family, fin: Finisher) -> Family:
    """The branch -1 copy of a family: omega -> -omega, mu -> -mu (energy and mu from the kernels).

    The LP equations are reversible, ``(Gamma, omega, t) -> (Gamma, -omega, -t)``, so the linearisation at
    the mirrored point has the negated spectrum, which for a Hamiltonian system is the same set: the
    eigenvalues and the class are copied (the test-suite checks this against a direct computation).
    """
    W = -f.omega
    em = np.empty((len(W), 2))
    invariants_batch(LP, np.ascontiguousarray(np.concatenate([f.Gamma, W], axis=1)), fin.p, em)
    return Family(f.label, f.kind, -1, f.param.copy(), f.alpha.copy(), f.Gamma.copy(), W, em[:, 1], em[:, 0],
                  f.stability.copy(), f.eigenvalues.copy(), f.axis, f.static_ends, f.sampling)


def _bisect(curve: Curve, fin: Finisher, branch: int, bases: NDArray[np.intp], xl: F64, xh: F64,
            cl: NDArray[np.object_], n_bisect: int) -> tuple[F64, F64]:
    """Bisect each bracket ``[xl, xh]`` (offsets from ``bases``) keeping the class ``cl`` at ``xl``."""
    for _ in range(n_bisect):
        xm = 0.5 * (xl + xh)
        Gp, s, _ = evaluate(curve, bases, xm)
        cm = fin.finish(Gp, s, branch).stability
        left = cm == cl
        xl = np.where(left, xm, xl)
        xh = np.where(left, xh, xm)
    return xl, xh


def refine_transitions(f: Family, fin: Finisher, n_bisect: int = 18) -> Family:
    """Bisect the parameter between samples of different stability class; insert the bracketing pair."""
    cls = f.stability
    idx = np.nonzero(cls[1:] != cls[:-1])[0]
    if len(idx) == 0:
        return f
    assert f.sampling is not None  # every family is built with its sampling
    smp = f.sampling
    bases = smp.base[idx]
    xl = np.empty(len(idx))
    xh = np.empty(len(idx))
    for n, i in enumerate(idx):
        xl[n], xh[n] = common_base(smp.curve, smp.base[i], smp.x[i], smp.base[i + 1], smp.x[i + 1])
    xl0, xh0 = xl.copy(), xh.copy()
    xl, xh = _bisect(smp.curve, fin, f.branch, bases, xl, xh, cls[idx].copy(), n_bisect)
    keep = np.column_stack([xl != xl0, xh != xh0]).ravel()  # do not duplicate the original samples
    ins = np.repeat(idx + 1, 2)[keep]
    bb = np.repeat(bases, 2)[keep]
    xx = np.column_stack([xl, xh]).ravel()[keep]
    if len(xx) == 0:
        return f
    Gp, s, al = evaluate(smp.curve, bb, xx)
    new = fin.finish(Gp, s, f.branch)
    par = curve_param(smp.curve, bb, xx)
    sampling = FamilySampling(smp.curve, np.insert(smp.base, ins, bb), np.insert(smp.x, ins, xx))
    return Family(f.label, f.kind, f.branch, np.insert(f.param, ins, par), np.insert(f.alpha, ins, al),
                  np.insert(f.Gamma, ins, new.Gamma, axis=0), np.insert(f.omega, ins, new.omega, axis=0),
                  np.insert(f.mu, ins, new.mu), np.insert(f.energy, ins, new.energy),
                  np.insert(f.stability, ins, new.stability), np.insert(f.eigenvalues, ins, new.eigenvalues, axis=0),
                  f.axis, f.static_ends, sampling)


__all__ = ["MAX_STEP_DEG", "MAX_FAMILY_SAMPLES", "refine", "refine_segment", "approach", "Finished", "Finisher",
           "mirror", "refine_transitions"]
