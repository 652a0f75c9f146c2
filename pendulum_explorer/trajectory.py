"""``simulate``: integrate the 3D pendulum and return a :class:`Trajectory`.

Two integrators (both numba kernels, called once per simulation):

* ``method="lgvi"`` — the Lie group variational integrator of the paper's ref [13] on the full model
  (Eqs 1-2), fixed step ``dt``: R stays on SO(3) to round-off, mu is conserved to round-off and the energy
  error stays bounded.
* ``method="dop853"`` — adaptive Dormand-Prince 8(5,3) on the Lagrange-Poincaré model (Eqs 31-32)
  carrying the attitude along (Eq 2), with ``rtol``/``atol`` and 7th-order dense output at the output times.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ._core import dop853 as _dop
from ._core import fields as _f
from ._core.lgvi import integrate_lgvi
from .bodies import Pendulum, _as_array
from .errors import IntegrationFailedError, InvalidIntegrationError, InvalidStateError

#: maximum number of stored output rows / fixed steps accepted before refusing (memory guard)
MAX_OUTPUT_ROWS = 5_000_000
MAX_FIXED_STEPS = 2_000_000_000
ROTATION_TOL = 1e-9


@dataclass(frozen=True)
class Trajectory:
    """A sampled motion of the 3D pendulum.

    Attributes
    ----------
    pendulum : Pendulum
    t : (n,) array
        Output times, evenly spaced from 0 to t_final.
    R : (n, 3, 3) array
        Attitude (body -> inertial).
    omega : (n, 3) array
        Body angular velocity.
    Gamma : (n, 3) array
        Gravity direction in the body frame, ``R^T e3``.
    energy : (n,) array
        Eq (34).
    mu : (n,) array
        Vertical angular momentum ``omega^T J Gamma`` (Prop 1).
    method : str
    stats : dict
        Integrator statistics (steps, rejected steps, function evaluations, wall time, max ||R^T R - I||).
    """

    pendulum: Pendulum
    t: NDArray[np.float64]
    R: NDArray[np.float64]
    omega: NDArray[np.float64]
    Gamma: NDArray[np.float64]
    energy: NDArray[np.float64]
    mu: NDArray[np.float64]
    method: str
    stats: dict[str, Any] = field(default_factory=dict)

    @property
    def energy_error(self) -> float:
        """max |E(t) - E(0)|."""
        return float(np.max(np.abs(self.energy - self.energy[0])))

    @property
    def mu_error(self) -> float:
        """max |mu(t) - mu(0)|."""
        return float(np.max(np.abs(self.mu - self.mu[0])))

    @property
    def orthogonality_error(self) -> float:
        """max over samples of ||R^T R - I||_F."""
        return float(orthogonality_errors(self.R).max())

    def centre_of_mass(self) -> NDArray[np.float64]:
        """Inertial position of the centre of mass, ``R rho`` (n, 3)."""
        return self.R @ np.asarray(self.pendulum.rho)


def orthogonality_errors(R: NDArray[np.float64]) -> NDArray[np.float64]:
    """||R^T R - I||_F for each matrix of a stack (n, 3, 3)."""
    E = np.einsum("nji,njk->nik", R, R) - np.eye(3)
    return np.sqrt((E * E).sum(axis=(1, 2)))


def validate_rotation(R0: ArrayLike, name: str = "R0") -> NDArray[np.float64]:
    """Return ``R0`` as a float array after checking it is a rotation matrix (to 1e-9)."""
    try:
        R0 = _as_array(name, R0, (3, 3))
    except ValueError as exc:
        raise InvalidStateError(str(exc)) from None
    err = np.abs(R0.T @ R0 - np.eye(3)).max()
    det = np.linalg.det(R0)
    if err > ROTATION_TOL or det <= 0:
        raise InvalidStateError(
            f"{name} must be a rotation matrix (R^T R = I to {ROTATION_TOL:g}, det R = +1); got "
            f"max|R^T R - I| = {err:.3g}, det R = {det:.6g}")
    return R0


def _validate_common(pendulum: Pendulum, omega0: ArrayLike, t_final: float,
                     n_out: int) -> tuple[NDArray[np.float64], float, int]:
    if not isinstance(pendulum, Pendulum):
        raise TypeError(f"pendulum must be a Pendulum; got {type(pendulum).__name__}")
    try:
        omega0 = _as_array("omega0", omega0, (3,))
    except ValueError as exc:
        raise InvalidStateError(str(exc)) from None
    try:
        t_final = float(t_final)
    except (TypeError, ValueError):
        raise InvalidIntegrationError(f"t_final must be a number > 0; got {t_final!r}") from None
    if not np.isfinite(t_final) or t_final <= 0:
        raise InvalidIntegrationError(f"t_final must be finite and > 0; got {t_final}")
    if int(n_out) != n_out or n_out < 2:
        raise InvalidIntegrationError(f"n_out must be an integer >= 2; got {n_out}")
    n_out = int(n_out)
    if n_out > MAX_OUTPUT_ROWS:
        raise InvalidIntegrationError(
            f"n_out = {n_out} output rows exceeds the memory guard of {MAX_OUTPUT_ROWS} rows")
    return omega0, t_final, n_out


def simulate(pendulum: Pendulum, R0: ArrayLike, omega0: ArrayLike, t_final: float, *, method: str = "dop853",
             dt: float | None = None, rtol: float = 1e-10, atol: float = 1e-12, n_out: int = 1001,
             max_steps: int = 50_000_000) -> Trajectory:
    """Integrate the 3D pendulum from ``(R0, omega0)`` over ``[0, t_final]``.

    Parameters
    ----------
    pendulum : Pendulum
    R0 : (3, 3) array_like
        Initial attitude, a rotation matrix (checked to 1e-9).
    omega0 : (3,) array_like
        Initial body angular velocity [rad/s].
    t_final : float
        > 0 [s].
    method : {"dop853", "lgvi"}
        Adaptive 8th-order Runge-Kutta on Eqs (31)-(32) + (2), or the Lie group variational integrator on
        Eqs (1)-(2).
    dt : float, optional
        LGVI step (default 1e-3 s).  It is shortened so that a whole number of steps falls between outputs.
    rtol, atol : float
        DOP853 tolerances (rtol in [1e-15, 1e-2], atol > 0).
    n_out : int
        Number of output times, evenly spaced from 0 to t_final (>= 2).
    max_steps : int
        Step limit for DOP853 (raises :class:`IntegrationFailedError` when reached).

    Returns
    -------
    Trajectory
    """
    omega0, t_final, n_out = _validate_common(pendulum, omega0, t_final, n_out)
    R0 = validate_rotation(R0)
    method = str(method).lower()
    t0 = time.perf_counter()
    if method == "lgvi":
        dt = 1e-3 if dt is None else float(dt)
        if not np.isfinite(dt) or dt <= 0:
            raise InvalidIntegrationError(f"dt must be finite and > 0; got {dt}")
        stride = max(1, int(np.ceil(t_final / (n_out - 1) / dt - 1e-9)))
        n_steps = stride * (n_out - 1)
        if n_steps > MAX_FIXED_STEPS:
            raise InvalidIntegrationError(
                f"t_final/dt = {t_final / dt:.3g} steps exceeds the limit of {MAX_FIXED_STEPS:.3g}; "
                f"increase dt or reduce t_final")
        h = t_final / n_steps
        R = np.empty((n_out, 3, 3))
        W = np.empty((n_out, 3))
        st = integrate_lgvi(R0, omega0, h, n_steps, stride, pendulum.params(), R, W)
        if st[3] != 0:
            raise IntegrationFailedError(
                f"LGVI: the implicit step equation has no solution at step {int(st[3])} (t = {st[3] * h:.4g} s) "
                f"with dt = {h:.4g} s; the body turns too far in one step: reduce dt")
        Gamma = np.ascontiguousarray(R[:, 2, :])
        stats = {"n_steps": int(st[0]), "dt": h, "newton_iterations": int(st[1]),
                 "max_newton_iterations": int(st[2])}
    elif method == "dop853":
        rtol = float(rtol)
        atol = float(atol)
        if not (1e-15 <= rtol <= 1e-2) or not (np.isfinite(atol) and atol > 0):
            raise InvalidIntegrationError(f"need 1e-15 <= rtol <= 1e-2 and atol > 0; got rtol={rtol}, atol={atol}")
        y0 = np.concatenate([R0[2, :], omega0, R0.ravel()])
        Y = np.empty((n_out, 15))
        st = _dop.integrate_uniform(_f.LP_ATT, y0, t_final, n_out, pendulum.params(), rtol, atol,
                                    int(max_steps), Y)
        if st[3] != _dop.OK:
            reason = {1: f"the step limit max_steps={max_steps} was reached",
                      2: "the step size underflowed", 3: "the state became non-finite"}[int(st[3])]
            raise IntegrationFailedError(f"DOP853 stopped before t_final={t_final}: {reason} "
                                         f"({int(st[4])} of {n_out} outputs written)")
        Gamma = Y[:, 0:3].copy()
        W = Y[:, 3:6].copy()
        R = Y[:, 6:15].reshape(n_out, 3, 3).copy()
        stats = {"n_steps": int(st[0]), "n_rejected": int(st[1]), "nfev": int(st[2]), "rtol": rtol,
                 "atol": atol}
    else:
        raise InvalidIntegrationError(f"method must be 'dop853' or 'lgvi'; got {method!r}")
    wall = time.perf_counter() - t0
    inv = np.empty((n_out, 2))
    p = pendulum.params()
    Yinv = np.concatenate([Gamma, W], axis=1)
    _f.invariants_batch(_f.LP, Yinv, p, inv)
    t = np.linspace(0.0, t_final, n_out)
    stats["wall_time"] = wall
    stats["orthogonality_error"] = float(orthogonality_errors(R).max())
    return Trajectory(pendulum, t, R, W, Gamma, inv[:, 0].copy(), inv[:, 1].copy(), method, stats)
