"""The Lyapunov spectrum of the Lagrange-Poincaré flow (31)-(32) (issue 21, item 3).

Benettin's method with QR re-orthonormalisation (Benettin, Galgani, Giorgilli & Strelcyn 1980; Shimada &
Nagashima 1979): ``k`` deviation vectors of the variational equations (the ``LP_TAN`` model of
:mod:`._core.fields`, the tangent dynamics the MEGNO maps use) are integrated with the state; every ``tau`` the
6 x k matrix of deviations is factored ``Q R``, ``log |R_ii|`` accumulated and the deviations replaced by Q.
The running sums divided by t converge to the exponents lambda_1 >= ... >= lambda_k.

The structure the system implies: the flow direction, the gradients of the two first integrals E (Eq 34) and
mu (Eq 56) and of the Casimir |Gamma| give four zero exponents; on each 4-dimensional symplectic level the
exponents pair as lambda, -lambda.  So ``(lambda, 0, 0, 0, 0, -lambda)``.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from . import _validate as _v
from ._core import dop853 as _dop
from ._core.fields import LP_TAN
from .bodies import Pendulum
from .errors import IntegrationFailedError, InvalidIntegrationError
from ._core import taylor as _taylor
from .integrators import MAX_OMEGA, MIN_SPAN, taylor_frame, validate_taylor_tol

MAX_RENORMS = 1_000_000


@dataclass(frozen=True)
class LyapunovSpectrum:
    """``exponents`` (k,) [1/s] in the order of the QR vectors: descending wherever the exponents are separated
    (the near-zero ones of a finite run, within ~1/T of each other, may come in either order); ``t`` (n,) and
    ``running`` (n, k), its columns in the same order: the estimates after each
    re-orthonormalisation; ``pairing``: ``lambda_1 + lambda_k`` (0 in exact arithmetic for k = 6);
    ``n_rhs``: right-hand-side evaluations."""

    exponents: NDArray[np.float64]
    t: NDArray[np.float64]
    running: NDArray[np.float64]
    n_rhs: int

    @property
    def pairing(self) -> float:
        return float(self.exponents[0] + self.exponents[-1])

    def slope(self, t_from: float) -> NDArray[np.float64]:
        """The exponents from the growth of the accumulated logs between ``t_from`` and the end (drops the
        transient of the initial deviations); ``t_from`` in [0, T)."""
        t_from = _v.real("t_from", t_from, exc=InvalidIntegrationError, low=0.0, high=float(self.t[-1]),
                         high_open=True)
        j = int(np.searchsorted(self.t, t_from))
        if j == 0:
            return self.exponents.copy()
        return (self.running[-1] * self.t[-1] - self.running[j - 1] * self.t[j - 1]) / (self.t[-1] - self.t[j - 1])


def lyapunov_spectrum(pendulum: Pendulum, Gamma0: ArrayLike, omega0: ArrayLike, T: float, *, k: int = 6,
                      tau: float = 1.0, rtol: float = 1e-10, atol: float = 1e-12, seed: int = 0,
                      progress: Callable[[float, float], object] | None = None, method: str = "dop853",
                      tol: float | None = None) -> LyapunovSpectrum:
    """The k largest Lyapunov exponents of the LP flow through ``(Gamma0, omega0)`` over time ``T``.

    Parameters
    ----------
    pendulum : Pendulum
    Gamma0 : unit 3-vector;  omega0 : 3-vector
    T : float, integration time [s] (> 0, at least tau)
    k : int in [1, 6], the number of deviation vectors (exponents)
    tau : float in (0, T], the re-orthonormalisation interval [s]
    rtol, atol : float, DOP853 tolerances (on the state and the deviations, each of norm ~1 after a QR step)
    seed : int, the random orthonormal initial deviations
    progress : callable (t, T), optional, called after each re-orthonormalisation
    method : {"dop853", "taylor"}
        The integrator of the state and the deviations: DOP853 (``rtol``, ``atol``), or the Taylor method at
        tolerance ``tol`` (default 1e-12, in [1e-18, 1e-4]): the k deviations side by side in the Taylor tangent
        lanes (:mod:`._core.taylor_lanes_tangent`), each with a copy of the state, the copies reset to the first
        after every re-orthonormalisation (``n_rhs`` then counts Taylor steps times the order).

    Returns
    -------
    LyapunovSpectrum

    Raises
    ------
    IntegrationFailedError
        The integrator stopped (step limit, non-finite state).
    """
    _v.check_pendulum(pendulum)
    G = _v.unit_vector("Gamma0", Gamma0)
    w = _v.array("omega0", omega0, (3,), max_abs=MAX_OMEGA)
    T = _v.time_span("T", T, MIN_SPAN)
    k = _v.integer("k", k, low=1, high=6)
    tau = _v.real("tau", tau, exc=InvalidIntegrationError, low=0.0, low_open=True, high=T)
    rtol, atol = _v.tolerances(rtol, atol)
    method = _v.choice("method", method, ("dop853", "taylor"))
    _v.callback("progress", progress)
    if method == "taylor":
        tol = validate_taylor_tol(1e-12 if tol is None else tol)
    elif tol is not None:
        raise InvalidIntegrationError("tol is the Taylor method's tolerance: give it with method='taylor'")
    n_seg = int(round(T / tau))
    if n_seg > MAX_RENORMS:
        raise InvalidIntegrationError(f"T / tau = {T / tau:.3g} re-orthonormalisations exceed {MAX_RENORMS}; "
                                      f"use a larger tau")
    p = pendulum.params()
    Q, _ = np.linalg.qr(np.random.default_rng(seed).standard_normal((6, k)))
    if method == "taylor":
        return _spectrum_taylor(pendulum, G, w, Q, T, tau, n_seg, _taylor.order_for(tol), progress)
    n = 8 + 6 * k
    y = np.zeros(n)
    y[0:3], y[3:6] = G, w
    y[6:6 + 6 * k] = Q.T.ravel()
    Y = np.empty((2, n))
    acc = np.zeros(k)
    running = np.empty((n_seg, k))
    ts = tau * np.arange(1, n_seg + 1, dtype=np.float64)
    n_rhs = 0
    for s in range(n_seg):
        y[n - 2:] = 0.0  # the MEGNO integrals of the first deviation: unused here
        st = _dop.integrate_uniform(LP_TAN, y, tau, 2, p, rtol, atol, 10_000_000, Y)
        n_rhs += int(st[2])
        if st[3] != 0:
            raise IntegrationFailedError(f"the integration stopped at t = {s * tau:.6g} s (status {int(st[3])}); "
                                         f"try larger tolerances or a shorter T")
        y[:] = Y[1]
        D = y[6:6 + 6 * k].reshape(k, 6).T
        Q, R = np.linalg.qr(D)
        d = np.diag(R)
        sgn = np.where(d < 0, -1.0, 1.0)
        acc += np.log(np.abs(d))
        y[6:6 + 6 * k] = (Q * sgn).T.ravel()
        nrm = np.linalg.norm(y[0:3])
        y[0:3] /= nrm  # |Gamma| = 1 drifts ~1e-10 per 1000 s; renormalised with the deviations
        running[s] = acc / ts[s]
        if progress is not None:
            progress(float(ts[s]), T)
    return LyapunovSpectrum(running[-1].copy(), ts, running, n_rhs)


def _qr_step(D: NDArray[np.float64]) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """``(Q with the signs that make diag R positive, log |diag R|)`` of the 6 x k deviations ``D``."""
    Q, R = np.linalg.qr(D)
    d = np.diag(R)
    return Q * np.where(d < 0, -1.0, 1.0), np.log(np.abs(d))


def _spectrum_taylor(pendulum: Pendulum, G: NDArray[np.float64], w: NDArray[np.float64], Q0: NDArray[np.float64],
                     T: float, tau: float, n_seg: int, order: int,
                     progress: Callable[[float, float], object] | None) -> LyapunovSpectrum:
    """:func:`lyapunov_spectrum` with the Taylor method: per segment of ``tau`` the k deviations in the Taylor
    tangent lanes, each lane with a copy of the state (principal frame, where the exponents are the same: the
    frame change is orthogonal on the tangent space)."""
    from ._core import taylor_lanes_tangent as _tlt
    from ._core.taylor_tangent import principal_tangent_params

    p = pendulum.params()
    q, Qf = taylor_frame(pendulum)
    pp = principal_tangent_params(p, Qf)
    k = Q0.shape[1]
    x = np.concatenate([Qf.T @ G, Qf.T @ w])  # the state, principal frame
    D = np.vstack([Qf.T @ Q0[:3], Qf.T @ Q0[3:]])  # the deviations (6 x k)
    acc = np.zeros(k)
    running = np.empty((n_seg, k))
    ts = tau * np.arange(1, n_seg + 1, dtype=np.float64)
    n_steps = 0
    seeds = np.empty((k, _tlt.DIM_T))
    yb, ly = np.empty(k), np.empty(k)
    info = np.zeros((k, 4), dtype=np.int64)
    Yend = np.empty((k, _tlt.DIM_T))
    max_steps = int(2000 * (tau + 10.0))
    for s in range(n_seg):
        seeds[:, :6] = x
        seeds[:, 6:] = D.T
        _tlt.tangent_lanes_taylor(seeds, q, pp, tau, order, max_steps, False, yb, ly, info, Yend,
                                  *_tlt.lane_state(order), max_steps + 1)
        if np.any(info[:, 0] != 0):
            raise IntegrationFailedError(f"the integration stopped at t = {s * tau:.6g} s (status "
                                         f"{int(info[info[:, 0] != 0][0, 0])}); try a larger tol or a shorter T")
        n_steps += int(info[:, 1].sum())
        scale = ly * tau - np.log(np.linalg.norm(Yend[:, 6:], axis=1))  # the logs of the lanes' renormalisations
        D, logs = _qr_step(Yend[:, 6:].T)
        acc += logs + scale
        x = Yend[0, :6].copy()
        x[:3] /= np.linalg.norm(x[:3])  # |Gamma| = 1, as the DOP853 path
        running[s] = acc / ts[s]
        if progress is not None:
            progress(float(ts[s]), T)
    return LyapunovSpectrum(running[-1].copy(), ts, running, n_steps * order)


@dataclass(frozen=True)
class MapConvergence:
    """Two chaos maps of one section at ``t_total / 2`` and ``t_total`` (:func:`chaos_map_convergence`):
    ``changed`` (n_z, n_phi) marks the accessible cells whose classification (chaotic or not, by the map's
    threshold) differs between them; ``fractions`` = (chaotic fraction at T/2, at T)."""

    half: Any
    full: Any
    changed: NDArray[np.bool_]

    @property
    def fractions(self) -> tuple[float, float]:
        return self.half.chaotic_fraction(), self.full.chaotic_fraction()

    @property
    def changed_fraction(self) -> float:
        n = int(self.full.accessible.sum())
        return float(self.changed.sum() / n) if n else 0.0


def chaos_map_convergence(section: Any, resolution: tuple[int, int] = (64, 48), t_total: float = 200.0,
                          **kw: Any) -> MapConvergence:
    """Whether a chaos map has converged in T: :meth:`PoincareSection.chaos_map` at ``t_total / 2`` and
    ``t_total`` (the same cells and options ``kw``), and the cells whose classification changes."""
    t_total = _v.time_span("t_total", t_total, MIN_SPAN)
    half = section.chaos_map(resolution, 0.5 * t_total, **kw)
    full = section.chaos_map(resolution, t_total, **kw)
    acc = full.accessible & half.accessible
    changed = acc & ((half.values > half.threshold) != (full.values > full.threshold))
    return MapConvergence(half, full, changed)
