"""The zero level of a function on a chart grid, on the exact curve: marching squares whose crossings are roots of
the function itself along the grid lines (not a linear interpolation of the grid values), each segment then
split where the curve bows away from it, so that the line is smooth at any zoom of the grid (pure numpy: contourpy
is not a dependency)."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import NDArray

#: a function F(x, y) on arrays of one shape (the level curve is F = 0)
Field = Callable[[NDArray[np.float64], NDArray[np.float64]], NDArray[np.float64]]

#: bisection steps of a crossing (then a linear interpolation in the last bracket: ~1e-8 of a cell)
ROOT_STEPS = 14
#: a segment is split where the curve lies farther than this from its middle (in cells of the grid)
SAG_TOL = 0.02
#: rounds of splitting (each quarters the sag of a smooth curve)
SPLIT_ROUNDS = 3


def zero_level(x: NDArray[np.float64], y: NDArray[np.float64], F: NDArray[np.float64],
               f: Field | None = None) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """The curve F = 0 of the grid values ``F`` (ny, nx) at nodes (x, y) as polylines separated by NaN.

    With ``f`` (the function sampled by ``F``: ``F[j, i] = f(x[i], y[j])``), the crossings on the grid edges are
    roots of ``f`` and each segment gains points on the curve where it bows away from the chord by more than
    :data:`SAG_TOL` of a cell; without it, linear interpolation of the grid values (plain marching squares).
    Returns ``(xs, ys)``, each segment's points followed by a NaN.
    """
    s = F > 0
    f00, f10, f01, f11 = F[:-1, :-1], F[:-1, 1:], F[1:, :-1], F[1:, 1:]
    X0, X1 = x[None, :-1] + 0 * f00, x[None, 1:] + 0 * f00
    Y0, Y1 = y[:-1, None] + 0 * f00, y[1:, None] + 0 * f00
    # edges: bottom (00-10), right (10-11), top (01-11), left (00-01)
    masks = [s[:-1, :-1] != s[:-1, 1:], s[:-1, 1:] != s[1:, 1:], s[1:, :-1] != s[1:, 1:], s[:-1, :-1] != s[1:, :-1]]
    ends = [(f00, f10, X0, Y0, X1, Y0), (f10, f11, X1, Y0, X1, Y1), (f01, f11, X0, Y1, X1, Y1),
            (f00, f01, X0, Y0, X0, Y1)]
    pts = [_crossings(M, *e, f) for M, e in zip(masks, ends)]
    cnt = masks[0].astype(int) + masks[1] + masks[2] + masks[3]
    segs = []
    for j, i in zip(*np.nonzero(cnt >= 2)):
        ps = [(P[0][j, i], P[1][j, i]) for M, P in zip(masks, pts) if M[j, i]]
        if len(ps) == 2:
            segs.append(ps)
        else:  # saddle: pair by the centre value
            centre = 0.25 * (f00[j, i] + f10[j, i] + f01[j, i] + f11[j, i])
            if (centre > 0) == s[j, i]:
                segs += [[ps[0], ps[1]], [ps[2], ps[3]]]
            else:
                segs += [[ps[0], ps[3]], [ps[1], ps[2]]]
    if not segs:
        return np.empty(0), np.empty(0)
    arr = np.array(segs, dtype=float)  # (k, 2, 2): segment, end, (x, y)
    pieces: tuple[NDArray[Any], ...]
    if f is None:
        pieces = (np.arange(len(segs)), np.zeros(len(segs)), arr[:, 0], arr[:, 1])
    else:
        cell = np.array([abs(x[-1] - x[0]) / (x.size - 1), abs(y[-1] - y[0]) / (y.size - 1)])  # the mean cell
        pieces = _split(f, arr, cell)
    return _assemble(*pieces)


def _crossings(M: NDArray[np.bool_], fa: Any, fb: Any, xa: Any, ya: Any, xb: Any, yb: Any,
               f: Field | None) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """The crossing point of each edge a-b where ``M`` (values fa, fb of opposite signs): by bisection of ``f``
    along the edge when given, else by linear interpolation.  (Full arrays; only the entries under M are meant.)"""
    with np.errstate(invalid="ignore", divide="ignore"):
        t = fa / (fa - fb)
        px, py = xa + t * (xb - xa), ya + t * (yb - ya)
    if f is None or not M.any():
        return px, py
    ax, ay, bx, by = xa[M], ya[M], xb[M], yb[M]
    lo, hi = np.zeros(ax.size), np.ones(ax.size)
    flo = fa[M].astype(float)
    fhi = fb[M].astype(float)
    for _ in range(ROOT_STEPS):
        mid = 0.5 * (lo + hi)
        fm = f(ax + mid * (bx - ax), ay + mid * (by - ay))
        left = (fm > 0) == (flo > 0)  # the root lies right of mid
        lo, flo = np.where(left, mid, lo), np.where(left, fm, flo)
        hi, fhi = np.where(left, hi, mid), np.where(left, fhi, fm)
    with np.errstate(invalid="ignore", divide="ignore"):
        tt = lo + (hi - lo) * np.nan_to_num(flo / (flo - fhi), nan=0.5)
    px, py = px.copy(), py.copy()
    px[M], py[M] = ax + tt * (bx - ax), ay + tt * (by - ay)
    return px, py


def _split(f: Field, arr: NDArray[np.float64], cell: NDArray[np.float64]) -> tuple[NDArray[Any], ...]:
    """Split the segments ``arr`` (k, 2, 2) at points of the curve f = 0 where it lies farther than SAG_TOL cells
    from a segment's middle (searched along the segment's normal, up to 0.75 cell each way).  Returns the pieces
    ``(segment index, start parameter, start point, end point)``."""
    seg = np.arange(arr.shape[0])
    a = np.zeros(arr.shape[0])
    P, Q = arr[:, 0], arr[:, 1]
    done: list[tuple[NDArray[Any], ...]] = []
    for level in range(SPLIT_ROUNDS):
        M, dev = _curve_near_middle(f, P, Q, cell)
        go = dev > SAG_TOL
        done.append((seg[~go], a[~go], P[~go], Q[~go]))
        if not go.any():
            break
        half = 0.5 ** (level + 1)
        seg, a, P, Q, M = seg[go], a[go], P[go], Q[go], M[go]
        seg, a = np.concatenate([seg, seg]), np.concatenate([a, a + half])
        P, Q = np.concatenate([P, M]), np.concatenate([M, Q])
    else:
        done.append((seg, a, P, Q))
    return tuple(np.concatenate([d[k] for d in done]) for k in range(4))


def _curve_near_middle(f: Field, P: NDArray[np.float64], Q: NDArray[np.float64],
                       cell: NDArray[np.float64]) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """The point of f = 0 on the normal through each segment's middle (k, 2) and its distance from the middle in
    cells (0 where the normal has no crossing within 0.75 cell)."""
    mid = 0.5 * (P + Q)
    d = (Q - P) / cell
    n = np.stack([-d[:, 1], d[:, 0]], axis=1)
    norm = np.hypot(n[:, 0], n[:, 1])
    n = np.where(norm[:, None] > 0, n / np.where(norm > 0, norm, 1.0)[:, None], 0.0) * cell  # one cell, in x/y

    def at(s: NDArray[np.float64]) -> NDArray[np.float64]:
        p = mid + s[:, None] * n
        return f(p[:, 0], np.clip(p[:, 1], -1.0, 1.0))

    k = P.shape[0]
    f0 = at(np.zeros(k))
    fp, fm = at(np.full(k, 0.75)), at(np.full(k, -0.75))
    side = np.where((fp > 0) != (f0 > 0), 0.75, np.where((fm > 0) != (f0 > 0), -0.75, 0.0))
    lo, hi, flo = np.zeros(k), side.copy(), f0
    fhi = np.where(side > 0, fp, fm)
    for _ in range(ROOT_STEPS):
        s = 0.5 * (lo + hi)
        fs = at(s)
        same = (fs > 0) == (flo > 0)
        lo, flo = np.where(same, s, lo), np.where(same, fs, flo)
        hi, fhi = np.where(same, hi, s), np.where(same, fhi, fs)
    with np.errstate(invalid="ignore", divide="ignore"):  # the root in the last bracket, linearly
        s = lo + (hi - lo) * np.nan_to_num(flo / (flo - fhi), nan=0.5)
    s = np.where(side != 0, s, 0.0)
    return mid + s[:, None] * n, np.abs(s)


def _assemble(seg: NDArray[Any], a: NDArray[Any], P: NDArray[np.float64],
              Q: NDArray[np.float64]) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Pieces (segment, start parameter, start, end) as polylines: each segment's starts in order, its end,
    then NaN."""
    order = np.lexsort((a, seg))
    seg, P, Q = seg[order], P[order], Q[order]
    last = np.append(seg[1:] != seg[:-1], True)
    n = len(seg) + 2 * int(last.sum())
    out = np.full((n, 2), np.nan)
    pos = np.arange(len(seg)) + 2 * np.concatenate([[0], np.cumsum(last)[:-1]])
    out[pos] = P
    out[pos[last] + 1] = Q[last]
    return out[:, 0].copy(), out[:, 1].copy()
