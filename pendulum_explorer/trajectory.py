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
import warnings
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ._core import fields as _f
from . import _validate as _v
from .bodies import Pendulum
from .errors import IntegrationFailedError, InvalidIntegrationError, InvalidStateError, InvariantDriftWarning
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
    dE = traj.energy_error / scale
    dG = float(np.abs(np.linalg.norm(traj.Gamma, axis=1) - 1.0).max())
    if not (dE <= CONSERVATION_RTOL and dG <= CONSERVATION_RTOL):
        raise IntegrationFailedError(
            f"{what} returned a result that does not conserve the energy (relative error {dE:.3g}) or |Gamma| = 1 "
            f"(error {dG:.3g}) to {CONSERVATION_RTOL:g}: it is not a motion of the pendulum; tighten rtol/atol "
            f"(or reduce dt)")


#: the drift of an invariant that a tolerance ``tol`` implies after ``n`` steps is ``DRIFT_FACTOR * max(tol,
#: DRIFT_ROUNDOFF) * sqrt(n)`` (per-step errors of size tol adding up as a random walk); DRIFT_ROUNDOFF is the
#: round-off of one step (16 eps), the only error of LGVI's constraints
DRIFT_FACTOR = 1.0
DRIFT_ROUNDOFF = 16.0 * float(np.finfo(float).eps)
#: the drift figures of ``Trajectory.stats["drift"]``; LGVI (no tolerance: its energy error is O(dt^2), bounded)
#: is checked on the first three only
DRIFT_KEYS = ("gamma_norm", "orthogonality", "gamma_vs_attitude", "energy", "mu")


def invariant_drift(traj: Trajectory) -> dict[str, float]:
    """The drift of the invariants over a motion, maxima over its samples.

    ``gamma_norm``: ``| |Gamma| - 1 |``; ``orthogonality``: ``||R^T R - I||_F``; ``gamma_vs_attitude``:
    ``|Gamma - R^T e3|`` (max-norm); ``energy``: ``|E - E0| / E_scale``; ``mu``: ``|mu - mu0| / mu_scale``, with
    ``E_scale = max(|E0|, m g |rho|, J1 |omega0|^2 / 2)`` (as :func:`check_conservation`) and
    ``mu_scale = sqrt(2 J1 E_scale)`` (at least ``J1 |omega0|``).
    """
    P = traj.pendulum
    G = np.asarray(traj.Gamma)
    J1 = float(P.principal_moments[0])
    e_scale = max(abs(float(traj.energy[0])), P.mgrho_norm, 0.5 * J1 * float(traj.omega[0] @ traj.omega[0]))
    return {"gamma_norm": float(np.abs(np.sqrt(np.einsum("ni,ni->n", G, G)) - 1.0).max()),
            "orthogonality": float(orthogonality_errors(traj.R).max()),
            "gamma_vs_attitude": float(np.abs(G - traj.R[:, 2, :]).max()),
            "energy": traj.energy_error / e_scale,
            "mu": traj.mu_error / math.sqrt(2.0 * J1 * e_scale)}


def report_drift(traj: Trajectory, tol: float | None, what: str) -> None:
    """Put the invariant drift of ``traj`` (:func:`invariant_drift`) into ``traj.stats["drift"]``, and the bound
    the tolerance ``tol`` implies over its ``stats["n_steps"]`` steps into ``stats["drift_bound"]``; warn
    (:class:`~pendulum_explorer.errors.InvariantDriftWarning`) when a drift exceeds it, or when a constraint
    (|Gamma| = 1, R^T R = I, Gamma = R^T e3) drifted beyond ``UNIT_TOL`` (1e-6): the returned states are then no
    longer valid inputs of the package.  ``tol`` None: a method without a tolerance (LGVI), whose constraints hold
    to round-off and whose energy is not checked."""
    drift = invariant_drift(traj)
    n = max(1, int(traj.stats.get("n_steps", 1)))
    bound = DRIFT_FACTOR * max(DRIFT_ROUNDOFF if tol is None else tol, DRIFT_ROUNDOFF) * math.sqrt(n)
    traj.stats["drift"] = drift
    traj.stats["drift_bound"] = bound
    keys = DRIFT_KEYS[:3] if tol is None else DRIFT_KEYS
    over = [f"{k} {drift[k]:.2g}" for k in keys if not drift[k] <= bound]
    invalid = [f"{k} {drift[k]:.2g}" for k in DRIFT_KEYS[:3] if not drift[k] <= _v.UNIT_TOL]
    if over or invalid:
        asked = "round-off" if tol is None else f"tol {tol:.3g}"
        msg = (f"{what}: the invariants drifted beyond what the tolerance implies ({asked} x sqrt({n} steps) = "
               f"{bound:.2g}): {', '.join(over)}" if over else f"{what}: the motion kept its invariants as the "
               f"tolerance implies ({bound:.2g})")
        if invalid:
            msg += (f"; its states are not valid inputs of the package any more (constraints beyond "
                    f"{_v.UNIT_TOL:g}: {', '.join(invalid)})")
        warnings.warn(InvariantDriftWarning(f"{msg} (stats['drift']); tighten the tolerance (or reduce dt) or "
                                            f"shorten the time span"), stacklevel=3)


def simulate(pendulum: Pendulum, R0: ArrayLike, omega0: ArrayLike, t_final: float, *,
             method: str | Integrator = "dop853", dt: float | None = None, rtol: float = 1e-10, atol: float = 1e-12,
             n_out: int = 1001, max_steps: int | None = None, tol: float | None = None) -> Trajectory:
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

    Returns
    -------
    Trajectory
        ``stats["drift"]`` holds the drift of the invariants over the motion (:func:`invariant_drift`:
        ``| |Gamma| - 1 |``, ``||R^T R - I||``, ``|Gamma - R^T e3|``, relative energy and mu drift) and
        ``stats["drift_bound"]`` the drift the tolerance asked implies, ``tol x sqrt(n_steps)`` (per-step errors
        adding up as a random walk; ``tol = rtol + atol`` for DOP853, ``tol`` for Taylor, round-off (16 eps) for
        LGVI's constraints, whose energy error is O(dt^2) and not checked).

    Warns
    -----
    InvariantDriftWarning
        A drift exceeds ``stats["drift_bound"]``, or a constraint drifted beyond ``UNIT_TOL`` = 1e-6 (the returned
        states would be refused as input): the invariants are reported, not enforced (the integrated
        Gamma is returned as integrated, not renormalised; a motion drifting more than 1 % is refused,
        :class:`IntegrationFailedError`).
    """
    _v.check_pendulum(pendulum)
    R0 = _v.rotation("R0", R0)
    omega0 = _v.array("omega0", omega0, (3,), max_abs=MAX_OMEGA)
    t_final, n_out = validate_span(t_final, n_out)
    if not isinstance(method, Integrator):
        method = _v.choice("method", method, METHODS)
    p = pendulum.params()
    E0 = _f.energy_lp(R0[2], omega0, p)
    if not math.isfinite(E0):
        raise InvalidStateError("the energy of (R0, omega0) overflows double precision; reduce omega0")
    scheme = integrator(method, dt=dt, rtol=rtol, atol=atol, tol=tol)
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
    report_drift(traj, scheme.drift_tol, scheme.name.upper())
    return traj
