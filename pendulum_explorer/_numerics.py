"""Small scalar solvers used by the analysis layer (kept here so that the dashboard kernel does not have to
import scipy.optimize, ~23 MB of memory, for a root or a minimum of a smooth function of one or two
variables)."""
from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numpy.typing import ArrayLike, NDArray


def find_root(f: Callable[[float], float], a: float, b: float, rtol: float = 4e-16, maxiter: int = 200) -> float:
    """A root of ``f`` in the bracket ``[a, b]`` (``f(a) f(b) <= 0``) by the Illinois variant of regula falsi,
    with a bisection step whenever an interpolation step falls outside the bracket or the bracket has not
    halved within three steps (so the bracket always shrinks at least geometrically).

    Converges superlinearly; stops when the bracket is below ``rtol`` relative (or ``f`` is exactly zero).
    """
    fa, fb = f(a), f(b)
    if fa == 0.0:
        return a
    if fb == 0.0:
        return b
    if (fa > 0) == (fb > 0):
        raise ValueError(f"find_root: f(a) = {fa:.3g} and f(b) = {fb:.3g} have the same sign")
    side = 0
    c = a
    widths = [abs(b - a)] * 3
    for _ in range(maxiter):
        c = (a * fb - b * fa) / (fb - fa)
        # bisect when interpolation leaves the bracket or has not halved it in three steps (multiple roots)
        if not (min(a, b) < c < max(a, b)) or abs(b - a) > 0.5 * widths[-3]:
            c = 0.5 * (a + b)
            side = 0
        fc = f(c)
        if fc == 0.0:
            return c
        if (fc > 0) == (fb > 0):  # c replaces b, a is kept
            b, fb = c, fc
            if side == -1:
                fa *= 0.5
            side = -1
        else:  # c replaces a, b is kept
            a, fa = c, fc
            if side == 1:
                fb *= 0.5
            side = 1
        widths.append(abs(b - a))
        if abs(b - a) <= rtol * max(abs(a), abs(b)) or abs(b - a) < 1e-300:
            break
    return c


def minimize_compass(f: Callable[[NDArray[np.float64]], float], x0: ArrayLike, step: float = 0.03, xtol: float = 1e-11,
                     max_eval: int = 20000) -> tuple[NDArray[np.float64], float]:
    """Local minimum of a smooth ``f`` by compass (pattern) search from ``x0``: try +-step along each
    coordinate, move on any improvement, halve the step when none; stop below ``xtol``.

    Returns ``(x, f(x))``.
    """
    x = np.array(x0, dtype=float)
    fx = f(x)
    h = float(step)
    n_eval = 1
    while h > xtol and n_eval < max_eval:
        moved = False
        for i in range(x.size):
            for s in (1.0, -1.0):
                y = x.copy()
                y[i] += s * h
                fy = f(y)
                n_eval += 1
                if fy < fx:
                    x, fx, moved = y, fy, True
                    break
            if moved:
                break
        if not moved:
            h *= 0.5
    return x, fx


__all__ = ["find_root", "minimize_compass"]
