"""Chaos indicators for the 3D pendulum: the largest Lyapunov exponent (Benettin's method).

A regular (quasi-periodic) motion has a largest Lyapunov exponent of zero: the running estimate decays like
log(t)/t.  A chaotic motion has a positive one.  For the Fig. 2 body the estimate separates the paper's
regular energies (E = -2.65, 11.95: about 0.01 1/s after 500 s and falling) from the chaotic ones
(E = 0, 2.03: about 0.5 and 0.85 1/s).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from . import _validate as _v
from ._core import fields as _f
from ._core.chaos import lyapunov_benettin
from .bodies import Pendulum
from .errors import InvalidIntegrationError
from .trajectory import MAX_OMEGA, step_budget

#: renormalisations accepted in one request (the result holds one float per renormalisation)
MAX_SEGMENTS = 10_000_000


@dataclass(frozen=True)
class LyapunovResult:
    """``exponent``: the final estimate [1/s]; ``t`` and ``running``: the estimate after each renormalisation."""

    exponent: float
    t: NDArray[np.float64]
    running: NDArray[np.float64]

    def slope(self, t_from: float) -> float:
        """Growth rate of the accumulated log-separation between ``t_from`` and the end (drops the transient);
        ``t_from`` in [0, t_end)."""
        t_from = _v.real("t_from", t_from, exc=InvalidIntegrationError, low=0.0, high=float(self.t[-1]),
                         high_open=True)
        k0 = int(np.searchsorted(self.t, t_from))
        if k0 >= len(self.t) - 1:
            raise InvalidIntegrationError(f"t_from must leave at least one renormalisation interval before "
                                          f"t_end = {self.t[-1]:g}; got {t_from:g}")
        S = self.running * self.t
        return float((S[-1] - S[k0]) / (self.t[-1] - self.t[k0]))


def lyapunov_exponent(pendulum: Pendulum, Gamma: ArrayLike, omega: ArrayLike, t_total: float = 500.0, *,
                      tau: float = 0.5, d0: float = 1e-9, rtol: float = 1e-11, atol: float = 1e-13) -> LyapunovResult:
    """Largest Lyapunov exponent of the Lagrange-Poincaré flow (31)-(32) through ``(Gamma, omega)``.

    Parameters
    ----------
    pendulum : Pendulum
    Gamma : unit 3-vector
    omega : 3-vector
    t_total : float
        Integration time [s] (> 0; at least one renormalisation interval).
    tau : float
        Renormalisation interval [s], 0 < tau <= t_total.
    d0 : float
        Size of the initial separation, in (0, 1e-4].  The shadow starts displaced tangentially to the
        sphere in Gamma and in omega.
    rtol, atol : float
        DOP853 tolerances (ranges as in :func:`~pendulum_explorer.simulate`); the step budget of each
        renormalisation interval is in proportion to tau.

    Returns
    -------
    LyapunovResult
    """
    _v.check_pendulum(pendulum)
    G = _v.unit_vector("Gamma", Gamma)
    w = _v.array("omega", omega, (3,), max_abs=MAX_OMEGA)
    t_total = _v.positive("t_total", t_total)
    tau = _v.real("tau", tau, exc=InvalidIntegrationError, low=0.0, low_open=True, high=t_total)
    d0 = _v.real("d0", d0, exc=InvalidIntegrationError, low=0.0, low_open=True, high=1e-4)
    rtol, atol = _v.tolerances(rtol, atol)
    n_seg = int(round(t_total / tau))
    if n_seg > MAX_SEGMENTS:
        raise InvalidIntegrationError(f"t_total / tau = {n_seg} renormalisations exceeds {MAX_SEGMENTS:.0e}")
    step_budget(pendulum, float(np.linalg.norm(w)), t_total, None)  # the whole request, refused up front if too long
    budget = step_budget(pendulum, float(np.linalg.norm(w)), tau, None)  # each renormalisation interval
    # displacement: tangent to the sphere in Gamma, generic in omega
    a = np.array([0.3, -0.7, 0.5])
    tG = np.cross(G, a)
    if np.linalg.norm(tG) < 1e-6:
        tG = np.cross(G, [1.0, 0.0, 0.0])
    dy = np.concatenate([tG / np.linalg.norm(tG), [0.6, -0.3, 0.7]])
    dy *= d0 / np.linalg.norm(dy)
    out = np.empty(n_seg)
    status = lyapunov_benettin(_f.LP, np.concatenate([G, w]), dy, pendulum.params(), tau, n_seg, rtol, atol,
                               budget, out)
    _v.raise_for_status(status, "the integration for the Lyapunov exponent", budget=budget)
    t = tau * np.arange(1, n_seg + 1, dtype=np.float64)
    return LyapunovResult(float(out[-1]), t, out)
