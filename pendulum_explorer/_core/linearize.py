"""Linearisation kernels: Jacobian of the Lagrange-Routh equation (62) in a tangent chart of S^2."""
import numpy as np

from .._jit import njit
from .fields import lr_accel


@njit
def lr_jacobian_batch(G, T1, T2, P, hx, hv, out):
    """(n, 4, 4) Jacobians of x'' = f(x, x') in the chart Gamma = normalise(G + x1 T1 + x2 T2).

    ``P`` (n x N_PARAMS) holds the parameter vector of each point (its momentum mu in column 21), read-only
    like every ``p`` given to the kernels, so that the right-hand side compiles once.
    """
    n = G.shape[0]
    a = np.empty(3)
    g = np.empty(3)
    v = np.empty(3)
    zero = np.zeros(3)
    for k in range(n):
        q = P[k]
        for i in range(4):
            for j in range(4):
                out[k, i, j] = 0.0
        out[k, 0, 2] = 1.0
        out[k, 1, 3] = 1.0
        for col in range(2):
            # position derivative: d a / d x_col (Gamma-dot = 0)
            acc0 = 0.0
            acc1 = 0.0
            for st in range(4):
                m = (2.0, -2.0, 1.0, -1.0)[st]
                w = (-1.0, 1.0, 8.0, -8.0)[st]
                nn = 0.0
                for i in range(3):
                    t = T1[k, i] if col == 0 else T2[k, i]
                    g[i] = G[k, i] + m * hx * t
                    nn += g[i] * g[i]
                nn = np.sqrt(nn)
                for i in range(3):
                    g[i] /= nn
                lr_accel(g, zero, q, a)
                acc0 += w * (a[0] * T1[k, 0] + a[1] * T1[k, 1] + a[2] * T1[k, 2])
                acc1 += w * (a[0] * T2[k, 0] + a[1] * T2[k, 1] + a[2] * T2[k, 2])
            out[k, 2, col] = acc0 / (12.0 * hx)
            out[k, 3, col] = acc1 / (12.0 * hx)
            # velocity derivative (exactly quadratic: the stencil is exact up to rounding)
            acc0 = 0.0
            acc1 = 0.0
            for st in range(4):
                m = (2.0, -2.0, 1.0, -1.0)[st]
                w = (-1.0, 1.0, 8.0, -8.0)[st]
                for i in range(3):
                    t = T1[k, i] if col == 0 else T2[k, i]
                    v[i] = m * hv[k] * t
                    g[i] = G[k, i]
                lr_accel(g, v, q, a)
                acc0 += w * (a[0] * T1[k, 0] + a[1] * T1[k, 1] + a[2] * T1[k, 2])
                acc1 += w * (a[0] * T2[k, 0] + a[1] * T2[k, 1] + a[2] * T2[k, 2])
            out[k, 2, 2 + col] = acc0 / (12.0 * hv[k])
            out[k, 3, 2 + col] = acc1 / (12.0 * hv[k])
