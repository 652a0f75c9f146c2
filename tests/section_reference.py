"""An independent return map of the section (scipy solve_ivp on Eqs (31)-(32) written here in numpy, event
(Gamma x omega)_3 = 0 in both directions, kept where e3 . (Gamma x Gammadot) > 0), for the tests of
orbit_families and manifolds."""
import math

import numpy as np
from scipy.integrate import solve_ivp


def lp_rhs(J, mgr):
    Jinv = np.linalg.inv(J)

    def f(t, y):
        G, w = y[:3], y[3:]
        return np.concatenate([np.cross(G, w), Jinv @ (np.cross(J @ w, w) + np.cross(mgr, G))])
    return f


def scipy_return(pendulum, Gamma, omega, k=1, rtol=1e-12, atol=1e-13, t_max=200.0):
    """The k-th section return (Gamma_k, omega_k, t_k) of the LP state (Gamma, omega) by solve_ivp DOP853."""
    J = np.asarray(pendulum.J, float)
    mgr = pendulum.m * pendulum.g * np.asarray(pendulum.rho, float)
    f = lp_rhs(J, mgr)

    def g(t, y):
        return y[0] * y[4] - y[1] * y[3]

    y = np.concatenate([Gamma, omega]).astype(float)
    span = 5.0
    while span <= t_max:
        sol = solve_ivp(f, (0.0, span), y, method="DOP853", rtol=rtol, atol=atol, events=g)
        hits = [(tj, yj) for tj, yj in zip(sol.t_events[0], sol.y_events[0])
                if tj > 1e-6 and np.cross(yj[:3], np.cross(yj[:3], yj[3:]))[2] > 0]
        if len(hits) >= k:
            tk, yk = hits[k - 1]
            return yk[:3], yk[3:], float(tk)
        span *= 2
    raise AssertionError("fewer than k crossings")


def chart(G):
    return math.atan2(G[1], G[0]), float(G[2])
