"""Stable and unstable manifolds of a hyperbolic periodic orbit of the section map (issue 21, item 2).

A branch ``W^u_+`` of the unstable manifold of a fixed point x* of ``f = P^k`` (``P^{2k}`` when the multiplier
is negative, so a branch stays on its side) is grown from a fundamental domain on the eigenvector,
``x0(tau) = x* + eps v Lambda^tau``, tau in [0, 1] (Lambda the expanding multiplier, so ``f(x0(0)) ~ x0(1)``):
level n of the branch is ``f^n(x0(tau))``, consecutive levels join end to end.  Each level is refined where two
consecutive points are farther apart than ``max_gap`` or the polyline turns by more than ``max_angle`` at a point:
a point at the middle tau is inserted and carried to that level (n maps).  The stable manifold is the unstable
manifold of ``f^-1``: by the reversing symmetry ``P^-1 = s P s`` when the body has one (time reversal
``omega -> -omega`` composed with a mirror ``Gamma_1 -> -Gamma_1`` (s: phi -> pi - phi) or ``Gamma_2 -> -Gamma_2``
(s: phi -> -phi); the Fig. 2 body has both), else by Newton's method on ``P^k(x) = y`` point by point.

Work is bounded: at most ``max_points`` points per branch and ``max_maps`` return maps in all.  The homoclinic
points are the crossings of the stable and unstable polylines away from x* that are resolved on the sphere: on
each side of the crossing the unstable branch gets ``crossing_tol`` away from the stable one, on opposite sides.
Branches can run within their own errors of each other for a while (at E = 11.95 on the Fig. 2 body, length 2,
an unstable and a stable branch stay within 1e-5 (mostly 2e-6) of each other next to the inverted pole, at its image
(2.494, 0.96-0.99) and the mirror image of that, crossing back and forth 166 times in the polar caps and 24 times
outside): such chart crossings are noise of the discretisation and are left out.
"""
from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from . import _validate as _v
from .errors import InvalidIntegrationError, InvalidStateError, PeriodicOrbitNotFoundError
from .orbit_families import LevelOrbit, _lm_solve, as_level_orbit
from .poincare import PeriodicOrbit, PoincareSection, chart_from_sphere, sphere_from_chart

TWO_PI = 2.0 * math.pi
BRANCHES = ("both", "unstable", "stable")


@dataclass(frozen=True)
class Manifolds:
    """The invariant manifolds of a hyperbolic fixed point of ``P^k`` (:func:`invariant_manifolds`).

    Attributes
    ----------
    orbit : LevelOrbit
    unstable, stable : lists of (n, 2) chart polylines (phi, z), one per branch side (+v, -v), each starting at
        the orbit; phi is unwrapped along the polyline (take it modulo 2 pi to draw on (-pi, pi]); a NaN row
        marks a jump of the map (where the branch passes a discontinuity of the return map: a pole, a grazing
        crossing), as plotly draws a gap
    homoclinic : (m, 2) chart points where a stable and an unstable branch cross (away from the orbit), each
        verified on the sphere (``crossing_tol`` of :func:`invariant_manifolds`): chart crossings of branches
        that run within their errors of each other are not homoclinic points (they come and go with ``eps`` and
        ``max_gap``)
    multipliers : (lambda_u, lambda_s) and eigenvectors (2, 2) columns (v_u, v_s)
    n_maps : return maps used;  truncated : True when a branch stopped before ``length``: on the work bound, off
        the section, or at a jump of the map (a branch running into a pole or a grazing crossing)
    inverse : "reversor phi -> pi - phi", "reversor phi -> -phi" or "newton": how P^-1 was evaluated
    power : the power of the return map the branches were grown with (k, or 2k for a negative multiplier)
    levels : per unstable branch, the first row of each complete level (level n + 1 is the image of level n under
        ``P^power``; rows after the last start belong to the last complete level and the partial one beyond it)
    """

    orbit: LevelOrbit
    unstable: list[NDArray[np.float64]]
    stable: list[NDArray[np.float64]]
    homoclinic: NDArray[np.float64]
    multipliers: tuple[float, float]
    eigenvectors: NDArray[np.float64]
    n_maps: int
    truncated: bool
    inverse: str
    power: int = 0
    levels: tuple[tuple[int, ...], ...] = ()


class _Maps:
    """Forward and inverse k-th return maps on many chart points at once (NaN where a point is off the section
    or does not return), counting the work."""

    def __init__(self, sec: PoincareSection, k: int, max_maps: int, inverse: str = "auto",
                 cancel: Callable[[], bool] | None = None) -> None:
        self.sec, self.k, self.max_maps, self.n = sec, k, max_maps, 0
        self.cancel = cancel
        P = sec.pendulum
        J, rho = np.asarray(P.J), np.asarray(P.rho)
        if inverse == "newton":
            self.inverse, self._s = "newton", None
        elif abs(J[0, 1]) + abs(J[0, 2]) == 0.0 and rho[0] == 0.0:
            self.inverse = "reversor phi -> pi - phi"
            self._s = lambda x: np.stack([math.pi - x[:, 0], x[:, 1]], -1)
        elif abs(J[0, 1]) + abs(J[1, 2]) == 0.0 and rho[1] == 0.0:
            self.inverse = "reversor phi -> -phi"
            self._s = lambda x: np.stack([-x[:, 0], x[:, 1]], -1)
        else:
            self.inverse, self._s = "newton", None

    def budget(self, m: int) -> bool:
        """Room for m more maps (False also once ``cancel()`` says so: the branches stop there)."""
        return self.n + m <= self.max_maps and not (self.cancel is not None and self.cancel())

    def forward(self, x: NDArray[np.float64]) -> NDArray[np.float64]:
        out = np.full_like(x, np.nan)
        good = np.all(np.isfinite(x), axis=1) & (np.abs(x[:, 1]) < 1.0)
        if not good.any():
            return out
        Y, ok = self.sec.states_at(sphere_from_chart(x[good, 0], x[good, 1]))
        idx = np.nonzero(good)[0][ok]
        if len(idx):
            self.n += len(idx)
            for j, c in zip(idx, self.sec.batch(Y[ok], self.k)):
                if c.n_found >= self.k:
                    ph, z = chart_from_sphere(c.Gamma[self.k - 1])
                    out[j] = [float(ph), float(z)]
        return out

    def inverse_map(self, y: NDArray[np.float64], guess: NDArray[np.float64] | None) -> NDArray[np.float64]:
        """``P^-k`` of the points y (m, 2); ``guess`` (m, 2) the preimages' guesses for Newton's method (None: each
        point's guess is the previous point's preimage, the first's ``y[0]``)."""
        if self._s is not None:
            x = self._s(self.forward(self._s(y)))
            x[:, 0] = np.remainder(x[:, 0] + math.pi, TWO_PI) - math.pi
            return x
        out = np.full_like(y, np.nan)
        prev = y[0]
        for j in range(len(y)):
            g = guess[j] if guess is not None else prev
            if not np.all(np.isfinite(y[j])) or not np.all(np.isfinite(g)):
                continue
            out[j] = self._newton_inverse(y[j], g)
            if np.all(np.isfinite(out[j])):
                prev = out[j]
        return out

    def _newton_inverse(self, y, x0):
        x = np.array(x0, dtype=float)
        for _ in range(20):
            self.n += 1
            try:
                phi1, z1, _T, M = self.sec.return_map(float(x[0]), float(x[1]), self.k)
            except ValueError:  # off the section (InaccessibleError, InvalidStateError) or no return
                return np.nan
            r = np.array([math.remainder(phi1 - y[0], TWO_PI), z1 - y[1]])
            x[0] = math.remainder(x[0], TWO_PI)
            if float(np.linalg.norm(r)) < 1e-11:
                return x
            dx = np.linalg.solve(M, -r)
            n = float(np.linalg.norm(dx))
            x = x + (dx if n < 0.05 else dx * (0.05 / n))
        return np.nan


def _eigen(M: NDArray[np.float64]) -> tuple[float, float, NDArray[np.float64], NDArray[np.float64]]:
    ev, V = np.linalg.eig(M)
    if np.iscomplexobj(ev) and np.any(np.abs(ev.imag) > 0):
        raise InvalidStateError(f"the orbit is not hyperbolic (multipliers {ev}): it has no invariant manifolds")
    ev, V = ev.real, V.real
    iu = int(np.argmax(np.abs(ev)))
    lu, ls = float(ev[iu]), float(ev[1 - iu])
    if not abs(lu) > 1.0 + 1e-9:
        raise InvalidStateError(f"the orbit is not hyperbolic (multipliers {ev}): it has no invariant manifolds")
    return lu, ls, V[:, iu] / np.linalg.norm(V[:, iu]), V[:, 1 - iu] / np.linalg.norm(V[:, 1 - iu])


def _d(a: NDArray[np.float64], b: NDArray[np.float64]) -> NDArray[np.float64]:
    """Chart differences b - a (rows), phi modulo 2 pi."""
    d = b - a
    d[..., 0] = np.remainder(d[..., 0] + math.pi, TWO_PI) - math.pi
    return d


def _turn(a: NDArray[np.float64], b: NDArray[np.float64], c: NDArray[np.float64]) -> NDArray[np.float64]:
    """Turning angle at b of the polyline a-b-c (rows)."""
    u, w = _d(a, b), _d(b, c)
    cr = u[:, 0] * w[:, 1] - u[:, 1] * w[:, 0]
    return np.abs(np.arctan2(cr, np.einsum("ij,ij->i", u, w)))


def _mid(a, b):
    return a + 0.5 * _d(a, b)


def _branch(maps: _Maps, x_star: NDArray[np.float64], v: NDArray[np.float64], lam: float, sign: float,
            backward: bool, length: float, eps: float, max_gap: float, max_angle: float,
            max_points: int, progress: Callable[[float], object] | None = None
            ) -> tuple[NDArray[np.float64], bool, tuple[int, ...]]:
    """One branch as a polyline, level by level (see the module docstring); returns (points (n, 2), complete,
    the first row of each complete level).  ``progress(fraction of length)`` after each level."""
    Lam = abs(lam) if not backward else 1.0 / abs(lam)

    def x0(tau):
        return x_star + sign * eps * np.outer(Lam ** tau, v)

    def step(y, guess):
        return maps.inverse_map(y, guess) if backward else maps.forward(y)

    taus = np.linspace(0.0, 1.0, 9)  # tau = 1 of level n is tau = 0 of level n + 1 (to O(eps^2)): no gap
    levels = [x0(taus)]  # every level n of the current taus (levels[n][j] = f^n(x0(taus[j])))
    brk = np.zeros(len(taus) - 1, dtype=bool)  # tau-segments across a jump of the map (broken on every later level)
    pts = [x_star[None, :], levels[0]]
    starts = [1]  # the first row of each complete level in the polyline
    total = float(np.sum(np.linalg.norm(_d(np.vstack(pts)[:-1], np.vstack(pts)[1:]), axis=1)))
    n_pts = len(taus) + 1
    while total < length:
        if not maps.budget(len(taus)) or n_pts >= max_points:
            return _unwrap(np.vstack(pts)), False, tuple(starts)
        new = step(levels[-1], None)
        for _ in range(12):  # refine the new level: segment (j - 1, j) too long, or a sharp turn at its ends
            gap = np.linalg.norm(_d(new[:-1], new[1:]), axis=1)
            ang = np.zeros(len(new))
            ang[1:-1] = _turn(new[:-2], new[1:-1], new[2:])
            ang[np.r_[False, brk] | np.r_[brk, False]] = 0.0
            sharp = np.maximum(ang[:-1], ang[1:])
            bad = 1 + np.nonzero(np.isfinite(gap) & ~brk & ((gap > max_gap) | (sharp > max_angle)))[0]
            bad = bad[taus[bad] - taus[bad - 1] > 1e-12]
            if len(bad) == 0 or n_pts + len(bad) > max_points or not maps.budget(len(bad) * len(levels)):
                break
            tm = 0.5 * (taus[bad - 1] + taus[bad])
            lv = [x0(tm)]
            for j in range(1, len(levels) + 1):  # carry the midpoints up to the new level
                above = levels[j] if j < len(levels) else new
                lv.append(step(lv[-1], _mid(above[bad - 1], above[bad])))
            taus = np.insert(taus, bad, tm)
            brk = np.insert(brk, bad - 1, False)
            levels = [np.insert(L, bad, lv[j], axis=0) for j, L in enumerate(levels)]
            new = np.insert(new, bad, lv[-1], axis=0)
            n_pts += len(bad)
        gap = np.linalg.norm(_d(new[:-1], new[1:]), axis=1)
        # a jump the refinement could not close: the map is discontinuous there (a branch point passing a pole,
        # a grazing crossing); the polyline gets a break (a NaN row) and the images of that tau-gap stay broken
        # points whose image is off the section or does not return are NaN (kept, as holes, on later levels)
        hole = ~np.all(np.isfinite(new), axis=1) | (np.abs(new[:, 1]) >= 1.0 - 1e-9)
        new[hole] = np.nan
        brk |= ~(gap <= 10 * max_gap) | hole[:-1] | hole[1:]
        if hole.all():
            return _unwrap(np.vstack(pts)), False, tuple(starts)
        seg = np.where(brk | ~np.isfinite(gap), 0.0, gap)
        cum = total + np.cumsum(seg)
        if cum[-1] >= length:  # the last level: up to the first point past ``length``
            cut = 2 + int(np.searchsorted(cum, length))
            pts.append(_with_breaks(new[:cut], brk[:cut - 1])[1:])
            return _unwrap(np.vstack(pts)), True, tuple(starts)
        total = float(cum[-1])
        if progress is not None:
            progress(total / length)
        levels.append(new)
        starts.append(sum(len(q) for q in pts) - 1)  # the level's first row is its (shared) first point
        pts.append(_with_breaks(new, brk)[1:])
    return _unwrap(np.vstack(pts)), True, tuple(starts)


def _with_breaks(P: NDArray[np.float64], brk: NDArray[np.bool_]) -> NDArray[np.float64]:
    """P with a NaN row after each point j whose segment (j, j + 1) is broken."""
    if not brk.any():
        return P
    return np.insert(P, 1 + np.nonzero(brk)[0], np.nan, axis=0)


def _unwrap(P: NDArray[np.float64]) -> NDArray[np.float64]:
    """phi unwrapped along each piece of P (pieces separated by NaN rows)."""
    P = P.copy()
    cuts = np.r_[-1, np.nonzero(np.isnan(P[:, 0]))[0], len(P)]
    for a, b in zip(cuts[:-1], cuts[1:]):
        if b - a > 2:
            P[a + 1:b, 0] = np.unwrap(P[a + 1:b, 0])
    return P


def _crossings(A: NDArray[np.float64], B: NDArray[np.float64],
               skip: float) -> tuple[NDArray[np.float64], NDArray[np.intp], NDArray[np.intp]]:
    """Crossing points of the polylines A and B in the chart (phi unwrapped per polyline; compared modulo 2 pi),
    leaving out both polylines' first ``skip`` of arclength (the common start at the orbit); returns the points
    (m, 2) and the rows of A and of B that start the crossing segments (m,)."""
    def segs(P):
        s = np.concatenate([[0.0], np.cumsum(np.nan_to_num(np.linalg.norm(np.diff(P, axis=0), axis=1)))])
        p, q = P[:-1].copy(), P[1:].copy()
        keep = (np.nan_to_num(s[1:], nan=0.0) > skip) & np.all(np.isfinite(p), axis=1) & np.all(np.isfinite(q), axis=1)
        shift = np.round(p[:, 0] / TWO_PI) * TWO_PI
        sh = np.c_[shift[keep], 0 * shift[keep]]
        return p[keep] - sh, q[keep] - sh, np.nonzero(keep)[0]
    p, r, rows_a = segs(A)
    q, s, rows_b = segs(B)
    out, ia, ib = [], [], []
    for i0 in range(0, len(p), 512):
        pa, ra = p[i0:i0 + 512, None, :], (r - p)[i0:i0 + 512, None, :]
        for sh in (-TWO_PI, 0.0, TWO_PI):
            qb = q[None, :, :] + [sh, 0.0]
            sb = (s - q)[None, :, :]
            den = ra[..., 0] * sb[..., 1] - ra[..., 1] * sb[..., 0]
            d = qb - pa
            with np.errstate(divide="ignore", invalid="ignore"):
                t = (d[..., 0] * sb[..., 1] - d[..., 1] * sb[..., 0]) / den
                u = (d[..., 0] * ra[..., 1] - d[..., 1] * ra[..., 0]) / den
            hit = (t >= 0) & (t < 1) & (u >= 0) & (u < 1)
            ii, jj = np.nonzero(hit)
            for a, b in zip(ii, jj):
                x = pa[a, 0] + t[a, b] * ra[a, 0]
                out.append([math.remainder(float(x[0]), TWO_PI), float(x[1])])
                ia.append(rows_a[i0 + a])
                ib.append(rows_b[b])
    return np.array(out).reshape(-1, 2), np.array(ia, dtype=np.intp), np.array(ib, dtype=np.intp)


class _OnSphere:
    """A chart polyline on the sphere: its points Gamma (n, 3) (NaN rows kept), chord arclength and pieces."""

    def __init__(self, P: NDArray[np.float64]) -> None:
        fin = np.all(np.isfinite(P), axis=1)
        G = np.full((len(P), 3), np.nan)
        G[fin] = sphere_from_chart(P[fin, 0], np.clip(P[fin, 1], -1.0, 1.0))
        self.G = G
        self.s = np.concatenate([[0.0], np.cumsum(np.nan_to_num(np.linalg.norm(np.diff(G, axis=0), axis=1)))])
        idx = np.arange(len(P))
        self.first = np.maximum.accumulate(np.where(fin, 0, idx + 1))  # first row of each row's piece
        self.last = np.minimum.accumulate(np.where(fin, len(P) - 1, idx - 1)[::-1])[::-1]

    def window(self, i: int, reach: float, most: int) -> tuple[int, int]:
        """Rows lo..hi of the piece of segment (i, i + 1) within ``reach`` of arclength of it (``most`` rows
        each way at most)."""
        lo = max(int(self.first[i]), int(np.searchsorted(self.s, self.s[i] - reach, "left")), i - most)
        hi = min(int(self.last[i + 1]), int(np.searchsorted(self.s, self.s[i + 1] + reach, "right")) - 1, i + 1 + most)
        return lo, hi


def _side(P: NDArray[np.float64], Q: NDArray[np.float64], tol: float) -> int:
    """The side (+1, -1) of the polyline Q (on the sphere) that the polyline P (rows outward from a crossing)
    gets to ``tol`` from Q on, before it meets Q again or runs past Q's ends (0: it does not); distances along
    the sphere (in the tangent plane at P's point); points of P within ``tol / 1000`` of Q have no side."""
    a, d = Q[:-1], np.diff(Q, axis=0)
    dd = np.maximum(np.einsum("kj,kj->k", d, d), 1e-300)
    want = 0
    for c0 in range(0, len(P), 32):
        p = P[c0:c0 + 32]
        w = np.clip(np.einsum("mkj,kj->mk", p[:, None, :] - a[None], d) / dd, 0.0, 1.0)
        off = p[:, None, :] - (a[None] + w[..., None] * d[None])
        off -= np.einsum("mkj,mj->mk", off, p)[..., None] * p[:, None, :]  # along the sphere (a chord is inside it)
        dist = np.linalg.norm(off, axis=2)
        k = np.argmin(dist, axis=1)
        m = np.arange(len(p))
        side = np.sign(np.einsum("mj,mj->m", np.cross(d[k], off[m, k]), p))
        past = ((k == 0) & (w[m, k] == 0.0)) | ((k == len(d) - 1) & (w[m, k] == 1.0))
        far = dist[m, k] >= tol
        on = dist[m, k] <= 1e-3 * tol  # on Q (a point of P at the crossing): no side
        for j in range(len(p)):
            if on[j] and not past[j]:
                continue
            if past[j] or side[j] == 0 or (want != 0 and side[j] != want):
                return 0
            want = int(side[j])
            if far[j]:
                return want
    return 0


def _resolved(A: _OnSphere, B: _OnSphere, i: int, j: int, tol: float, reach: float) -> bool:
    """True when the crossing of segment i of A with segment j of B is resolved on the sphere: within ``reach``
    of arclength along A on each side, A gets ``tol`` away from B (the piece of B within 2 ``reach`` of the
    crossing), on opposite sides of B, each time before A meets B again."""
    lo, hi = B.window(j, 2.0 * reach, 4000)
    Q = B.G[lo:hi + 1]
    alo, ahi = A.window(i, reach, 2000)
    ahead, behind = A.G[i + 1:ahi + 1], A.G[alo:i + 1][::-1]
    return _side(ahead, Q, tol) * _side(behind, Q, tol) == -1


def _homoclinic(unstable: list[NDArray[np.float64]], stable: list[NDArray[np.float64]], skip: float, tol: float,
                reach: float) -> NDArray[np.float64]:
    """The crossings of the unstable and stable branches (chart points (m, 2)) resolved on the sphere
    (:func:`_resolved`); the chart crossings of branches that run within ``tol`` of each other are left out."""
    hom = [np.zeros((0, 2))]
    for U in unstable:
        A = _OnSphere(U)
        for S in stable:
            X, ia, ib = _crossings(U, S, skip)
            if len(X) == 0:
                continue
            B = _OnSphere(S)
            ok = [_resolved(A, B, int(i), int(j), tol, reach) for i, j in zip(ia, ib)]
            hom.append(X[np.array(ok, dtype=bool)])
    return np.vstack(hom)


def invariant_manifolds(orbit: PeriodicOrbit, *, length: float = 2.0, branches: str = "both",
                        section: PoincareSection | None = None, eps: float = 1e-6, max_gap: float = 0.01,
                        max_angle: float = 0.3, max_points: int = 4000, max_maps: int = 400_000,
                        inverse: str = "auto", progress: Callable[[float], object] | None = None,
                        cancel: Callable[[], bool] | None = None, crossing_tol: float | None = None) -> Manifolds:
    """The stable and unstable manifolds of the hyperbolic periodic orbit ``orbit`` as chart polylines.

    Parameters
    ----------
    orbit : LevelOrbit, or a PeriodicOrbit with its ``section``; hyperbolic
    length : float in (0, 100], chart arclength of each branch
    branches : {"both", "unstable", "stable"}
    eps : float in [1e-10, 1e-2], the fundamental domain's distance from the orbit along the eigenvector
    max_gap : float in [1e-5, 1], max_angle : float in [1e-3, 1.5] (rad): refinement tolerances
    max_points : int in [10, 10^6] per branch;  max_maps : int in [100, 10^8] in all
    inverse : {"auto", "newton"}: ``P^-1`` by the body's reversing symmetry when it has one ("auto"), or by
        Newton's method on ``P^k(x) = y`` (every body; about 3 return maps with their Jacobian per point)
    progress : callable (fraction done in [0, 1]), optional, called after each level of each branch
    cancel : callable () -> bool, optional: True stops the branches where they are (``truncated`` is then True)
    crossing_tol : float in [0, 1], optional: a chart crossing of an unstable and a stable branch is a homoclinic
        point when, measured on the sphere, the unstable branch gets this far from the stable one on both sides of
        it (on opposite sides, within ``20 max_gap`` of arclength, before the two meet again); crossings of
        branches that run closer together than that (they cross back and forth at the level of their errors) are
        left out.  Default ``max(1e-5, max_gap^2 / 10)``, about the branches' errors (their invariance error is
        8.4e-6 at max_gap = 0.01, 3.1e-5 at 0.02; they move by up to 4.6e-5 with ``eps`` or ``max_gap``)

    Returns
    -------
    Manifolds

    Raises
    ------
    InvalidStateError
        The orbit is not hyperbolic (complex or unit multipliers).
    """
    orbit = as_level_orbit(orbit, section)
    length = _v.real("length", length, exc=InvalidIntegrationError, low=1e-6, high=100.0)
    branches = _v.choice("branches", branches, BRANCHES, exc=InvalidIntegrationError)
    eps = _v.real("eps", eps, exc=InvalidIntegrationError, low=1e-10, high=1e-2)
    max_gap = _v.real("max_gap", max_gap, exc=InvalidIntegrationError, low=1e-5, high=1.0)
    max_angle = _v.real("max_angle", max_angle, exc=InvalidIntegrationError, low=1e-3, high=1.5)
    max_points = _v.integer("max_points", max_points, low=10, high=1_000_000)
    max_maps = _v.integer("max_maps", max_maps, low=100, high=100_000_000)
    inverse = _v.choice("inverse", inverse, ("auto", "newton"), exc=InvalidIntegrationError)
    _v.callback("progress", progress)
    crossing_tol = max(1e-5, max_gap ** 2 / 10.0) if crossing_tol is None else _v.real(
        "crossing_tol", crossing_tol, exc=InvalidIntegrationError, low=0.0, high=1.0)
    lu, ls, vu, vs = _eigen(orbit.jacobian)
    sec = section if isinstance(section, PoincareSection) else orbit.section()
    k = orbit.k * (2 if lu < 0 else 1)  # a negative multiplier flips sides: use P^{2k}
    if lu < 0:
        lu, ls = lu * lu, ls * ls
    maps = _Maps(sec, k, max_maps, inverse, cancel)
    x_star = np.array([orbit.phi, orbit.z])
    # refine the fixed point to the map's own precision (orbit.residual <= tol of the finder)
    try:
        x_star, _res, _it = _lm_solve(sec, x_star, k, 1e-12, 20, 1e-3)
    except PeriodicOrbitNotFoundError:
        pass
    out: dict[str, list[NDArray[np.float64]]] = {"unstable": [], "stable": []}
    levels: list[tuple[int, ...]] = []
    complete = True
    todo = [(w, v, lam, b, sg) for w, v, lam, b in (("unstable", vu, lu, False), ("stable", vs, ls, True))
            if branches in ("both", w) for sg in (1.0, -1.0)]
    for i, (which, v, lam, back, sign) in enumerate(todo):
        def done(f: float, i: int = i) -> None:
            if progress is not None:
                progress((i + min(max(f, 0.0), 1.0)) / len(todo))

        pts, ok, starts = _branch(maps, x_star, v, lam, sign, back, length, eps, max_gap, max_angle, max_points,
                                  done)
        out[which].append(pts)
        if which == "unstable":
            levels.append(starts)
        complete &= ok
    H = _homoclinic(out["unstable"], out["stable"], min(0.05, 0.1 * length), crossing_tol, 20.0 * max_gap)
    return Manifolds(orbit, out["unstable"], out["stable"], H, (lu, ls), np.column_stack([vu, vs]), maps.n,
                     not complete, maps.inverse, k, tuple(levels))


def distance_to_polyline(points: NDArray[np.float64], polyline: NDArray[np.float64]) -> NDArray[np.float64]:
    """Chart distance of each point (m, 2) to the polyline (n, 2) (phi compared modulo 2 pi)."""
    pts = np.asarray(points, dtype=float).reshape(-1, 2)
    a, b = polyline[:-1], polyline[1:]
    fin = np.all(np.isfinite(a), axis=1) & np.all(np.isfinite(b), axis=1)
    a, b = a[fin], b[fin]
    out = np.empty(len(pts))
    for i, p in enumerate(pts):
        q = p.copy()
        best = np.inf
        for sh in np.unique(np.round((a[:, 0] - p[0]) / TWO_PI)) * TWO_PI:
            q[0] = p[0] + sh
            d = b - a
            w = np.clip(np.einsum("ij,ij->i", q - a, d) / np.maximum(np.einsum("ij,ij->i", d, d), 1e-300), 0, 1)
            best = min(best, float(np.min(np.linalg.norm(a + w[:, None] * d - q, axis=1))))
        out[i] = best
    return out


def invariance_error(manifolds: Manifolds, n: int = 200, z_max: float = 0.99) -> float:
    """The largest chart distance between the image under ``P^power`` of ``n`` points of each unstable branch
    (edge midpoints spread over its levels but the last complete one, whose images lie beyond the branch's end)
    and the branch: the manifold's invariance error (the linear interpolation between vertices included), at the
    points with ``|Gamma_3| <= z_max`` (the chart stretches phi near the poles, where a chord is far from the
    curve).  0 for branches of fewer than two complete levels (nothing of them maps onto them)."""
    o = manifolds.orbit
    sec = o.section()
    power = manifolds.power or o.k
    worst = 0.0
    for b, U in enumerate(manifolds.unstable):
        # rows before the last complete level map onto the branch (older objects: the first 60 % of the rows)
        end = manifolds.levels[b][-1] if manifolds.levels else int(0.6 * (len(U) - 1))
        if end < 4:
            continue
        idx = np.unique(np.linspace(0, end - 2, min(n, end - 1)).astype(int))
        mid = 0.5 * (U[idx] + U[idx + 1])
        mid = mid[np.all(np.isfinite(mid), axis=1) & (np.abs(mid[:, 1]) <= z_max)]
        Y, ok = sec.states_at(sphere_from_chart(mid[:, 0], mid[:, 1]))
        img = []
        for c in sec.batch(Y[ok], power):
            if c.n_found >= power:
                img.append(np.array(chart_from_sphere(c.Gamma[power - 1]), dtype=float))
        if img:
            worst = max(worst, float(distance_to_polyline(np.array(img), U).max()))
    return worst
