"""Chaos indicators: the largest Lyapunov exponent by Benettin's two-trajectory method."""
import numpy as np

from .._jit import njit
from .dop853 import integrate_uniform


@njit
def lyapunov_benettin(model, y0, dy0, p, tau, n_seg, rtol, atol, max_steps, out):
    """Largest Lyapunov exponent of ``y' = f(y)``.

    A shadow trajectory starts at ``y0 + dy0`` (``|dy0| = d0``); every ``tau`` the separation ``d`` is
    measured, ``log(d / d0)`` accumulated and the shadow pulled back to distance ``d0`` along the same
    direction.  ``out[k]`` receives the running estimate after ``k + 1`` segments.  Returns a status:
    0 = ok, otherwise the integrator's status code (see :mod:`.dop853`).
    """
    n = y0.shape[0]
    d0 = 0.0
    for i in range(n):
        d0 += dy0[i] * dy0[i]
    d0 = np.sqrt(d0)
    ya = np.empty(n)
    yb = np.empty(n)
    for i in range(n):
        ya[i] = y0[i]
        yb[i] = y0[i] + dy0[i]
    Y = np.empty((2, n))  # (Y.shape[0] below, not a literal 2: a literal would compile a second copy)
    acc = 0.0
    for k in range(n_seg):
        st = integrate_uniform(model, ya, tau, Y.shape[0], p, rtol, atol, max_steps, Y)
        if st[3] != 0:
            return st[3]
        for i in range(n):
            ya[i] = Y[1, i]
        st = integrate_uniform(model, yb, tau, Y.shape[0], p, rtol, atol, max_steps, Y)
        if st[3] != 0:
            return st[3]
        d = 0.0
        for i in range(n):
            d += (Y[1, i] - ya[i]) ** 2
        d = np.sqrt(d)
        acc += np.log(d / d0)
        for i in range(n):
            yb[i] = ya[i] + (Y[1, i] - ya[i]) * (d0 / d)
        out[k] = acc / ((k + 1) * tau)
    return 0
