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

from ._core import fields as _f
from ._core.chaos import lyapunov_benettin
from .bodies import Pendulum, _as_array
from .errors import IntegrationFailedError, InvalidIntegrationError, InvalidStateError


@dataclass(frozen=True)
class LyapunovResult:
    """``exponent``: the final estimate [1/s]; ``t`` and ``running``: the estimate after each renormalisation."""

    exponent: float
    t: NDArray[np.float64]
    running: NDArray[np.float64]

    def slope(self, t_from: float) -> float:
        """Growth rate of the accumulated log-separation between ``t_from`` and the end (drops the transient)."""
        k0 = int(np.searchsorted(self.t, t_from))
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
        DOP853 tolerances.

    Returns
    -------
    LyapunovResult
    """
    if not isinstance(pendulum, Pendulum):
        raise TypeError(f"pendulum must be a Pendulum; got {type(pendulum).__name__}")
    try:
        G = _as_array("Gamma", Gamma, (3,))
        w = _as_array("omega", omega, (3,))
    except ValueError as exc:
        raise InvalidStateError(str(exc)) from None
    if abs(np.linalg.norm(G) - 1.0) > 1e-9:
        raise InvalidStateError(f"Gamma must be a unit vector; got |Gamma| = {np.linalg.norm(G):.12g}")
    t_total, tau, d0 = float(t_total), float(tau), float(d0)
    if not (np.isfinite(t_total) and t_total > 0):
        raise InvalidIntegrationError(f"t_total must be finite and > 0; got {t_total}")
    if not (np.isfinite(tau) and 0 < tau <= t_total):
        raise InvalidIntegrationError(f"tau must satisfy 0 < tau <= t_total = {t_total}; got {tau}")
    if not (0 < d0 <= 1e-4):
        raise InvalidIntegrationError(f"d0 must be in (0, 1e-4]; got {d0}")
    n_seg = int(round(t_total / tau))
    if n_seg > 10_000_000:
        raise InvalidIntegrationError(f"t_total / tau = {n_seg} renormalisations exceeds 1e7")
    # displacement: tangent to the sphere in Gamma, generic in omega
    a = np.array([0.3, -0.7, 0.5])
    tG = np.cross(G, a)
    if np.linalg.norm(tG) < 1e-6:
        tG = np.cross(G, [1.0, 0.0, 0.0])
    dy = np.concatenate([tG / np.linalg.norm(tG), [0.6, -0.3, 0.7]])
    dy *= d0 / np.linalg.norm(dy)
    out = np.empty(n_seg)
    status = lyapunov_benettin(_f.LP, np.concatenate([G, w]), dy, pendulum.params(), tau, n_seg, float(rtol),
                               float(atol), 50_000_000, out)
    if status != 0:
        raise IntegrationFailedError(f"the integration for the Lyapunov exponent stopped (status {status})")
    t = tau * np.arange(1, n_seg + 1, dtype=np.float64)
    return LyapunovResult(float(out[-1]), t, out)
