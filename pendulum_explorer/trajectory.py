"""``simulate``: integrate the 3D pendulum and return a :class:`Trajectory`.

Three integrators (numba kernels, called once per simulation):

* ``method="lgvi"`` — the Lie group variational integrator of the paper's ref [13] on the full model
  (Eqs 1-2), fixed step ``dt``: R stays on SO(3) to round-off, mu is conserved to round-off and the energy
  error stays bounded.
* ``method="dop853"`` — adaptive Dormand-Prince 8(5,3) on the Lagrange-Poincaré model (Eqs 31-32)
  carrying the first row of R along (Eq 2; it does not steer the step, so Gamma and omega are those of the
  6-dim LP kernel to the bit), with ``rtol``/``atol`` and 7th-order dense output at the output times; R is
  rebuilt at the outputs from that row and Gamma (:func:`attitude_from_rows`).
* ``method="taylor"`` — adaptive high-order Taylor method (:mod:`pendulum_explorer._core.taylor`) on the LP model
  in principal axes carrying the first row of R (Eq 2); tolerance ``tol`` (default: double round-off), order
  and step from Jorba & Zou (2005); the outputs are the Taylor polynomials of the steps.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ._core import fields as _f
from . import _validate as _v
from .bodies import Pendulum
from .drift import (DRIFT_FACTOR, DRIFT_KEYS, DRIFT_ROUNDOFF, energy_balance_error, invariant_drift,  # noqa: F401
                    report_drift)
from .errors import IntegrationFailedError, InvalidIntegrationError, InvalidStateError
from .integrators import (CHUNK_STEPS, CONSERVATION_RTOL, EST_STEPS_PER_TURN, MAX_FIXED_STEPS, MAX_OMEGA,  # noqa: F401
                          MAX_OUTPUT_ROWS, METHODS, MIN_SPAN, ROW_FLOATS, STEPS_PER_TURN_BUDGET, STEPS_PER_TURN_MIN,
                          TAYLOR_CHUNK_DIVISOR, TAYLOR_STEP_RATIO, TAYLOR_TOL, TAYLOR_TOL_RANGE, DOP853, LGVI,
                          Integrator, Runner, Taylor, attitude_from_rows, check_predicted_steps, dop853_run,
                          expected_steps, integrate_chunked, integrator,
                          lgvi_chunked, orthogonality_errors, run_chunked, step_budget, taylor_frame,
                          validate_taylor_tol)


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

    def __post_init__(self) -> None:
        for name in ("t", "R", "omega", "Gamma", "energy", "mu"):
            a = getattr(self, name)
            if isinstance(a, np.ndarray):
                a.setflags(write=False)  # a result is immutable: energy_error etc. stay true to it

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


def validate_span(t_final: float, n_out: int, name: str = "t_final") -> tuple[float, int]:
    """``t_final`` (finite, > 0) and ``n_out`` (integer >= 2 within the memory guard), checked."""
    t_final = _v.time_span(name, t_final, MIN_SPAN)
    n_out = _v.integer("n_out", n_out, low=2)
    if n_out > MAX_OUTPUT_ROWS:
        raise InvalidIntegrationError(
            f"n_out = {n_out} output rows exceeds the memory guard of {MAX_OUTPUT_ROWS} rows")
    _v.result_memory(n_out * ROW_FLOATS, f"n_out = {n_out} output rows", "reduce n_out")
    return t_final, n_out


def check_conservation(traj: Trajectory, what: str) -> None:
    """Refuse a result that the integrator returned but that does not conserve E and |Gamma| to
    ``CONSERVATION_RTOL``: it is garbage (too loose tolerances or too long a step), not a motion."""
    P = traj.pendulum
    scale = max(abs(float(traj.energy[0])), P.mgrho_norm,
                0.5 * P.principal_moments[0] * float(traj.omega[0] @ traj.omega[0]))
    dE = energy_balance_error(traj) / scale  # a damped motion: E + the work dissipated, its invariant
    dG = float(np.abs(np.linalg.norm(traj.Gamma, axis=1) - 1.0).max())
    if not (dE <= CONSERVATION_RTOL and dG <= CONSERVATION_RTOL):
        raise IntegrationFailedError(
            f"{what} returned a result that does not conserve the energy (relative error {dE:.3g}) or |Gamma| = 1 "
            f"(error {dG:.3g}) to {CONSERVATION_RTOL:g}: it is not a motion of the pendulum; tighten rtol/atol "
            f"(or reduce dt)")
    dR = float(orthogonality_errors(traj.R).max())
    if not dR <= CONSERVATION_RTOL:  # NaN included
        raise IntegrationFailedError(
            f"{what} returned attitudes R that are not rotations (max ||R^T R - I|| = {dR:.3g} > "
            f"{CONSERVATION_RTOL:g}): the step outran the rotation of the body (a steady spin: Gamma and omega "
            f"constant, which do not limit the step); use method='lgvi' or simulate_lr, or a tighter tolerance")


def simulate(pendulum: Pendulum, R0: ArrayLike, omega0: ArrayLike, t_final: float, *,
             method: str | Integrator = "dop853", dt: float | None = None, rtol: float = 1e-10, atol: float = 1e-12,
             n_out: int = 1001, max_steps: int | None = None, tol: float | None = None,
             damping: float = 0.0) -> Trajectory:
    """Integrate the 3D pendulum from ``(R0, omega0)`` over ``[0, t_final]``.

    Parameters
    ----------
    pendulum : Pendulum
    R0 : (3, 3) array_like
        Initial attitude, a rotation matrix (checked to ``UNIT_TOL`` = 1e-6, then orthonormalised).
    omega0 : (3,) array_like
        Initial body angular velocity [rad/s].
    t_final : float
        > 0 [s].
    method : {"dop853", "lgvi", "taylor"} or an :class:`~pendulum_explorer.integrators.Integrator`
        Adaptive 8th-order Runge-Kutta on Eqs (31)-(32) + (2), the Lie group variational integrator on
        Eqs (1)-(2), or the adaptive Taylor method on Eqs (31)-(32) + (2) (machine precision by default);
        ``DOP853(rtol, atol)``, ``LGVI(dt)`` or ``Taylor(tol)`` carry their own options (then ``dt``, ``rtol``,
        ``atol`` and ``tol`` here are not used).
    dt : float, optional
        LGVI step (default 1e-3 s).  It is shortened so that a whole number of steps falls between outputs.
    rtol, atol : float
        DOP853 tolerances (rtol in [1e-15, 1e-3], atol in [1e-18, 1e-3]).
    n_out : int
        Number of output times, evenly spaced from 0 to t_final (>= 2).
    max_steps : int, optional
        Step limit for DOP853 (raises :class:`IntegrationFailedError` when reached).  Default: in proportion
        to the request (2000 steps per turn at the initial rate, at most 5e7); a request that needs more than
        the budget is refused before it runs.  The Taylor method uses the same budget.
    tol : float, optional
        Taylor tolerance, absolute and relative, in [1e-18, 1e-4] (default: machine epsilon 2.2e-16); it sets
        the order ``ceil(-ln(tol)/2 + 1)`` (20 by default) and the step (Jorba & Zou 2005).  Other methods
        ignore it.
    damping : float
        c >= 0 [N m s]: a viscous torque ``-c omega`` at the pivot, ``J omega' = J omega x omega + m g rho x Gamma
        - c omega``.  OUTSIDE the paper's model (its pendulum is conservative; default 0).  Only ``"dop853"``
        integrates it (:mod:`pendulum_explorer._core.damped`); ``"lgvi"`` and ``"taylor"`` refuse a damping
        other than 0 (:class:`InvalidIntegrationError` naming ``damping``).  A damped motion loses energy at the
        rate ``dE/dt = -c omega^T omega``: ``stats["damping"]`` is c, ``stats["dissipated"]`` (n,) the work of
        the damping torque since t = 0, and the energy checks (``stats["drift"]["energy"]``, the 1 % refusal)
        are made on ``E + W``, the invariant of the damped equations; mu is not conserved and not checked.

    Returns
    -------
    Trajectory
        ``stats["drift"]`` holds the drift of the invariants over the motion (:func:`invariant_drift`:
        ``| |Gamma| - 1 |``, ``||R^T R - I||``, ``|Gamma - R^T e3|``, relative energy and mu drift) and
        ``stats["drift_bound"]`` the drift the tolerance asked implies, ``tol sqrt(n_steps) + 4 eps n_steps``
        (per-step errors adding up as a random walk, round-off linearly; ``tol = rtol + atol`` for DOP853, ``tol``
        for Taylor, 0 for LGVI, whose energy error is O(dt^2) and not checked); see :mod:`pendulum_explorer.drift`.
        DOP853 and Taylor: ``stats["angle_per_step"]``, the body's rotation per step
        (:func:`~pendulum_explorer.drift.angle_per_step`; their step is steered by Gamma and omega only, not by the
        attitude).

    Warns
    -----
    InvariantDriftWarning
        A drift exceeds ``stats["drift_bound"]``, or a constraint drifted beyond ``UNIT_TOL`` = 1e-6 (the returned
        states would be refused as input), or the body turned more per step than the method's order resolves at
        the tolerance (:func:`~pendulum_explorer.drift.attitude_step_bound`; e.g. a steady spin, where Gamma and
        omega are constant): the invariants are reported, not enforced (the integrated
        Gamma is returned as integrated, not renormalised; a motion drifting more than 1 % is refused,
        :class:`IntegrationFailedError`).
    """
    _v.check_pendulum(pendulum)
    R0 = _v.rotation("R0", R0)
    omega0 = _v.array("omega0", omega0, (3,), max_abs=MAX_OMEGA)
    t_final, n_out = validate_span(t_final, n_out)
    if not isinstance(method, Integrator):
        method = _v.choice("method", method, METHODS)
    scheme = integrator(method, dt=dt, rtol=rtol, atol=atol, tol=tol, damping=damping)
    p = pendulum.params()
    E0 = _f.energy_lp(R0[2], omega0, p)
    if not math.isfinite(E0):
        raise InvalidStateError("the energy of (R0, omega0) overflows double precision; reduce omega0")
    t0 = time.perf_counter()
    R, W, Gamma, stats = scheme.integrate(pendulum, R0, omega0, t_final, n_out, max_steps)
    wall = time.perf_counter() - t0
    inv = np.empty((n_out, 2))
    Yinv = np.concatenate([Gamma, W], axis=1)
    _f.invariants_batch(_f.LP, Yinv, p, inv)
    t = np.linspace(0.0, t_final, n_out)
    stats["wall_time"] = wall
    stats["orthogonality_error"] = float(orthogonality_errors(R).max())
    traj = Trajectory(pendulum, t, R, W, Gamma, inv[:, 0].copy(), inv[:, 1].copy(), scheme.name, stats)
    check_conservation(traj, scheme.name.upper())
    # DOP853 (order 8) and Taylor: their step is steered by Gamma and omega only, not by the attitude rows
    order = {"dop853": 8, "taylor": stats.get("order")}.get(scheme.name)
    report_drift(traj, scheme.drift_tol, scheme.name.upper(), order)
    return traj
