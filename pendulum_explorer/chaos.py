"""Chaos indicators of the Lagrange-Poincaré flow (31)-(32): MEGNO and the largest Lyapunov exponent.

Both come from the tangent dynamics (model ``LP_TAN`` of :mod:`pendulum_explorer._core.fields`): the state
(Gamma, omega) is integrated together with a deviation ``delta = (dGamma, domega)`` of the linearised equations

    J domega' = J domega x omega + J omega x domega + m g rho x dGamma,   dGamma' = dGamma x omega + Gamma x domega

and the MEGNO integrals (Cincotta & Simó 2000)

    Y(t) = (2 / t) int_0^t s (delta' . delta) / |delta|^2 ds,        Ybar(t) = (1 / t) int_0^t Y(s) ds.

Ybar tends to 2 on quasi-periodic motion (|delta| grows linearly), to 0 on a stable periodic orbit without
shear (|delta| bounded), and grows like lambda t / 2 on chaotic motion (|delta| ~ exp(lambda t)).

Neutral directions
------------------
The flow has three first integrals, |Gamma|^2 (a Casimir), E (Eq 34) and mu (Eq 56), and ``grad I . delta`` is
conserved by the linearised flow for each of them.  The deviation starts tangent to the sphere in Gamma (so
it never leaves |Gamma| = 1) and, by default (``tangent_to_level=False``), generic in omega: it crosses the
neighbouring (E, mu) levels, whose different frequencies make it grow *linearly*.  That is the shear MEGNO's
definition is built on (the value 2 of quasi-periodic motion); it cannot mimic the exponential growth of chaos,
and it makes Ybar -> 2 also on a periodic orbit.  With ``tangent_to_level=True`` the deviation is projected onto
the level set at the start and at every renormalisation (only round-off leaves it): it then measures the
dynamics of the section map alone, and Ybar -> 0 on an elliptic periodic orbit, while on quasi-periodic motion
Ybar reaches 2 only as fast as the (often weak) shear within the level allows.  The tests check both.

The deviation is rescaled to norm 1 whenever its norm leaves [1e-4, 1e4] (the logarithms are accumulated for the
Lyapunov estimate ``log |delta(t)| / t``); MEGNO's integrands do not depend on the scale.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from . import _validate as _v
from . import integrators as _traj
from ._core import chaos as _kc
from ._core import fields as _f
from ._core.section import N_CTL
from .bodies import Pendulum
from .errors import InvalidIntegrationError
from .integrators import MAX_OMEGA, MIN_SPAN, step_budget

#: renormalisations accepted in one request (the result holds one float per renormalisation)
MAX_SEGMENTS = 10_000_000
#: a step of the 14-dim tangent model costs ~3 of the LP model: its pieces are CHUNK_STEPS / 4 steps (~0.1 s)
TANGENT_CHUNK_DIVISOR = 4


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


@dataclass(frozen=True)
class MegnoResult:
    """Mean MEGNO of one trajectory.

    Attributes
    ----------
    value : float
        Ybar(t_total).
    t : (n,) array
        Sample times (the last is ``t_total``).
    running : (n,) array
        Ybar(t) at ``t``.
    lyapunov : float
        ``log |delta(t_total)| / t_total`` [1/s], the largest-exponent estimate from the same deviation vector.
    lyapunov_running : (n,) array
        That estimate at ``t``.
    """

    value: float
    t: NDArray[np.float64]
    running: NDArray[np.float64]
    lyapunov: float
    lyapunov_running: NDArray[np.float64]

    def slope(self, t_from: float) -> float:
        """Least-squares slope of Ybar(t) for t >= t_from; on chaotic motion Ybar ~ lambda t / 2, so twice this
        estimates lambda.

        ``t_from`` is a number in ``[0, t_k]``, ``t_k`` the last sample but one (a slope needs two samples);
        anything else raises :class:`~pendulum_explorer.errors.InvalidIntegrationError` naming that range."""
        if len(self.t) < 2:
            raise InvalidIntegrationError(f"slope needs at least 2 samples of Ybar; this result has {len(self.t)} "
                                          f"(run megno with n_samples >= 2)")
        t_from = _v.real("t_from", t_from, exc=InvalidIntegrationError, low=0.0, high=float(self.t[-2]))
        sel = self.t >= t_from
        return float(np.polyfit(self.t[sel], self.running[sel], 1)[0])


def _check_state(pendulum, Gamma, omega):
    _v.check_pendulum(pendulum)
    G = _v.unit_vector("Gamma", Gamma)
    w = _v.array("omega", omega, (3,), max_abs=MAX_OMEGA)
    return G, w


def _tangent(pendulum, G, w, t_total, n_out, rtol, atol, tangent_to_level, max_steps):
    y = np.zeros(14)
    y[:3] = G
    y[3:6] = w
    p = pendulum.params()
    _kc.initial_deviation(y, p, bool(tangent_to_level), np.empty((3, 6)))
    ybar = np.empty(n_out)
    lyap = np.empty(n_out)
    info = np.zeros(_kc.N_TAN_INFO, dtype=np.int64)
    ctl = np.zeros(N_CTL + 2 * y.shape[0])
    st = _kc.PAUSED
    while st == _kc.PAUSED:  # pieces of steps, the bits of one call: Ctrl-C stops it between them
        st = _kc.tangent_run(y, p, t_total, n_out, rtol, atol, max_steps, bool(tangent_to_level), ybar, lyap, info,
                             ctl, _traj.CHUNK_STEPS // TANGENT_CHUNK_DIVISOR)
    return st, ybar, lyap


def _tangent_taylor(pendulum, G, w, t_total, n_out, tol, tangent_to_level, max_steps, with_megno=True):
    """:func:`_tangent` with the Taylor method (:func:`._core.taylor_tangent.tangent_run_taylor`, principal frame:
    MEGNO and the norms do not depend on the frame), in pieces of steps."""
    from ._core import taylor as _kt
    from ._core import taylor_tangent as _ktt

    p = pendulum.params()
    q, Q = _traj.taylor_frame(pendulum)
    y = np.zeros(14)
    y[:3] = G
    y[3:6] = w
    _kc.initial_deviation(y, p, bool(tangent_to_level), np.empty((3, 6)))
    yp = np.zeros(14)
    for b in range(4):
        yp[3 * b:3 * b + 3] = Q.T @ y[3 * b:3 * b + 3]
    pp = _ktt.principal_tangent_params(p, Q)
    order = int(_kt.order_for(tol))
    ybar = np.empty(n_out)
    lyap = np.empty(n_out)
    info = np.zeros(_kc.N_TAN_INFO, dtype=np.int64)
    ctl = np.zeros(N_CTL + 2 * 14)
    st = _kc.PAUSED
    piece = max(1, _traj.CHUNK_STEPS // (TANGENT_CHUNK_DIVISOR * _traj.TAYLOR_CHUNK_DIVISOR))
    while st == _kc.PAUSED:
        st = _ktt.tangent_run_taylor(yp, q, pp, t_total, n_out, order, max_steps, bool(tangent_to_level),
                                     bool(with_megno), ybar, lyap, info, ctl, piece)
    return st, ybar, lyap


def _tangent_method(method, tol, rtol, atol):
    """``method`` of the tangent dynamics ("dop853" or "taylor") with its tolerances checked."""
    method = _v.choice("method", method, ("dop853", "taylor"))
    if method == "taylor":
        return method, _traj.validate_taylor_tol(1e-12 if tol is None else tol), None
    if tol is not None:
        raise InvalidIntegrationError("tol is the Taylor method's tolerance: give it with method='taylor' "
                                      "(DOP853 takes rtol and atol)")
    return method, None, _v.tolerances(rtol, atol)


def megno(pendulum: Pendulum, Gamma: ArrayLike, omega: ArrayLike, t_total: float, *, rtol: float = 1e-10,
          atol: float = 1e-10, n_samples: int = 200, tangent_to_level: bool = False,
          max_steps: int | None = None, method: str = "dop853", tol: float | None = None) -> MegnoResult:
    """Mean MEGNO Ybar of the trajectory of Eqs (31)-(32) through ``(Gamma, omega)``, and the Lyapunov
    estimate from the same deviation vector (tangent dynamics; see the module docstring).

    Parameters
    ----------
    pendulum : Pendulum
    Gamma : unit 3-vector
    omega : 3-vector [rad/s]
    t_total : float
        Integration time [s], > 0.
    rtol, atol : float
        DOP853 tolerances on the state, the deviation and the MEGNO integrals (rtol in [1e-15, 1e-3]).
    n_samples : int
        Number of samples of Ybar(t) (evenly spaced, the last at ``t_total``), 1 ... 1e6.
    tangent_to_level : bool
        Keep the deviation tangent to the (|Gamma|, E, mu) level set (see the module docstring).
    max_steps : int, optional
        Step budget (default: in proportion to t_total, as for :func:`~pendulum_explorer.simulate`).
    method : {"dop853", "taylor"}
        The integrator of the tangent dynamics: DOP853 (``rtol``, ``atol``) or the Taylor method
        (:mod:`._core.taylor_tangent`: the variational equations are polynomial too; the MEGNO integrals by
        Gauss-Legendre quadrature on each step's polynomial), with tolerance ``tol``.
    tol : float, optional
        The Taylor tolerance in [1e-18, 1e-4] (default 1e-12; ``method="taylor"`` only).

    Returns
    -------
    MegnoResult

    Raises
    ------
    InvalidStateError, InvalidIntegrationError
        Bad input (before any integration).
    IntegrationFailedError
        The integration stopped (never a partial or NaN result).
    """
    G, w = _check_state(pendulum, Gamma, omega)
    t_total = _v.time_span("t_total", t_total, MIN_SPAN)
    method, tol, tols = _tangent_method(method, tol, rtol, atol)
    if not isinstance(tangent_to_level, (bool, np.bool_)):
        raise TypeError(f"tangent_to_level must be True or False; got {tangent_to_level!r}")
    n_samples = _v.integer("n_samples", n_samples, low=1, high=10**6)
    budget = step_budget(pendulum, float(np.linalg.norm(w)), t_total, max_steps, "omega", "t_total")
    if method == "taylor":
        st, ybar, lyap = _tangent_taylor(pendulum, G, w, t_total, n_samples, tol, tangent_to_level, budget)
    else:
        assert tols is not None
        st, ybar, lyap = _tangent(pendulum, G, w, t_total, n_samples, tols[0], tols[1], tangent_to_level, budget)
    _v.raise_for_status(st, "the tangent dynamics for MEGNO", t_final=t_total, budget=budget)
    t = t_total * np.arange(1, n_samples + 1) / n_samples
    return MegnoResult(float(ybar[-1]), t, ybar, float(lyap[-1]), lyap)


def lyapunov_exponent(pendulum: Pendulum, Gamma: ArrayLike, omega: ArrayLike, t_total: float = 500.0, *,
                      tau: float = 0.5, d0: float = 1e-9, rtol: float = 1e-11, atol: float = 1e-13,
                      method: str = "tangent", tol: float | None = None) -> LyapunovResult:
    """Largest Lyapunov exponent of the Lagrange-Poincaré flow (31)-(32) through ``(Gamma, omega)``.

    Parameters
    ----------
    pendulum : Pendulum
    Gamma : unit 3-vector
    omega : 3-vector
    t_total : float
        Integration time [s] (> 0; at least one sampling interval).
    tau : float
        Sampling interval of the running estimate [s], 0 < tau <= t_total (and the renormalisation interval of
        the two-trajectory method).
    d0 : float
        Size of the initial separation, in [1e-14, 1e-4] (two-trajectory method only; validated always; smaller
        ones drown in rounding).
    rtol, atol : float
        DOP853 tolerances.
    method : {"tangent", "two-trajectory"}
        ``"tangent"`` (default): ``log |delta(t)| / t`` for a deviation vector of the variational equations,
        renormalised as needed (exact linearisation, no choice of d0).  ``"two-trajectory"``: Benettin's
        shadow trajectory at distance d0, pulled back every tau — an independent check that uses the equations
        of motion only.  ``"taylor"``: the tangent estimate with the Taylor method (tolerance ``tol``,
        default 1e-12; ``rtol``/``atol`` unused).
    tol : float, optional
        The Taylor tolerance in [1e-18, 1e-4] (``method="taylor"`` only).

    Returns
    -------
    LyapunovResult
        The running estimate at ``t = tau, 2 tau, ..., n tau`` (n = round(t_total / tau)).
    """
    G, w = _check_state(pendulum, Gamma, omega)
    t_total = _v.time_span("t_total", t_total, MIN_SPAN)
    tau = _v.real("tau", tau, exc=InvalidIntegrationError, low=0.0, low_open=True)
    if tau > t_total:
        raise InvalidIntegrationError(f"tau must satisfy 0 < tau <= t_total = {t_total:g}; got tau = {tau:g}")
    d0 = _v.real("d0", d0, exc=InvalidIntegrationError, low=1e-14, high=1e-4)
    rtol, atol = _v.tolerances(rtol, atol)
    method = _v.choice("method", method, ("tangent", "two-trajectory", "taylor"))
    if method == "taylor":
        tol = _traj.validate_taylor_tol(1e-12 if tol is None else tol)
    elif tol is not None:
        raise InvalidIntegrationError("tol is the Taylor method's tolerance: give it with method='taylor'")
    n_seg = int(round(t_total / tau))
    if n_seg > MAX_SEGMENTS:
        raise InvalidIntegrationError(f"t_total / tau = {n_seg} renormalisations exceeds {MAX_SEGMENTS:.0e}")
    rate = float(np.linalg.norm(w))
    total = step_budget(pendulum, rate, t_total, None, "omega", "t_total")  # the whole request, refused up front
    t = tau * np.arange(1, n_seg + 1, dtype=np.float64)
    if method == "taylor":
        st, _, out = _tangent_taylor(pendulum, G, w, n_seg * tau, n_seg, tol, False, total, with_megno=False)
        _v.raise_for_status(st, "the Taylor tangent dynamics for the Lyapunov exponent", t_final=n_seg * tau,
                            budget=total)
        return LyapunovResult(float(out[-1]), t, out)
    if method == "tangent":
        st, _, out = _tangent(pendulum, G, w, n_seg * tau, n_seg, rtol, atol, False, total)
        _v.raise_for_status(st, "the tangent dynamics for the Lyapunov exponent", t_final=n_seg * tau, budget=total)
        return LyapunovResult(float(out[-1]), t, out)
    budget = step_budget(pendulum, rate, tau, None, "omega", "tau")  # each renormalisation interval
    # displacement: tangent to the sphere in Gamma, generic in omega
    a = np.array([0.3, -0.7, 0.5])
    tG = np.cross(G, a)
    if np.linalg.norm(tG) < 1e-6:
        tG = np.cross(G, [1.0, 0.0, 0.0])
    dy = np.concatenate([tG / np.linalg.norm(tG), [0.6, -0.3, 0.7]])
    dy *= d0 / np.linalg.norm(dy)
    out = np.empty(n_seg)
    ya = np.concatenate([G, w])
    yb = ya + dy
    d0 = math.sqrt(sum(x * x for x in dy.tolist()))
    acc = np.zeros(1)
    p = pendulum.params()
    # pieces of about CHUNK_STEPS steps (whole segments): Ctrl-C stops a long estimate between them
    per = max(1, int(_traj.CHUNK_STEPS / max(1.0, 2.0 * _traj.expected_steps(pendulum, rate, tau))))
    status = 0
    for k0 in range(0, n_seg, per):
        status = _kc.lyapunov_benettin(_f.LP, ya, yb, d0, p, tau, k0, min(n_seg, k0 + per), rtol, atol, budget,
                                       acc, out)
        if status:
            break
    _v.raise_for_status(status, "the integration for the Lyapunov exponent", budget=budget)
    return LyapunovResult(float(out[-1]), t, out)
