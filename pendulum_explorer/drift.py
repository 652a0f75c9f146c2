"""What a returned motion can be trusted for: the drift of its invariants and the resolution of its attitude,
reported in ``Trajectory.stats`` and warned about (:class:`~pendulum_explorer.errors.InvariantDriftWarning`) when
they exceed what the tolerance asked implies (issue 26).

The integrators report, they do not enforce: Gamma is returned as integrated (not renormalised) and R as built
from the integrated rows, so that the figures here are the integration's own error.  A motion that drifts beyond
1 % is refused by :func:`pendulum_explorer.trajectory.check_conservation`.
"""
from __future__ import annotations

import math
import warnings
from typing import Any, Protocol

import numpy as np
from numpy.typing import NDArray

from . import _validate as _v
from .errors import InvariantDriftWarning
from .integrators import orthogonality_errors



class Trajectory(Protocol):
    """What the drift report reads of a motion (a :class:`~pendulum_explorer.trajectory.Trajectory`)."""

    @property
    def pendulum(self) -> Any: ...

    @property
    def t(self) -> NDArray[np.float64]: ...

    @property
    def R(self) -> NDArray[np.float64]: ...

    @property
    def omega(self) -> NDArray[np.float64]: ...

    @property
    def Gamma(self) -> NDArray[np.float64]: ...

    @property
    def energy(self) -> NDArray[np.float64]: ...

    @property
    def stats(self) -> dict[str, Any]: ...

    @property
    def energy_error(self) -> float: ...

    @property
    def mu_error(self) -> float: ...


def _orthogonality(R: NDArray[np.float64]) -> NDArray[np.float64]:
    return orthogonality_errors(R)


#: the drift of an invariant that a tolerance ``tol`` implies after ``n`` steps is ``DRIFT_FACTOR * (tol sqrt(n) +
#: DRIFT_ROUNDOFF n)``: per-step truncation errors of size tol adding up as a random walk, and a round-off of
#: DRIFT_ROUNDOFF = 4 eps per step adding up linearly (measured over random bodies and states: LGVI's constraints
#: 0.4 eps per step at most, DOP853 at rtol 1e-14 and Taylor at eps 2.6 and 1.5 eps per step, both terms together)
DRIFT_FACTOR = 1.0
DRIFT_ROUNDOFF = 4.0 * float(np.finfo(float).eps)
#: the drift figures of ``Trajectory.stats["drift"]``; LGVI (no tolerance: its energy error is O(dt^2), bounded)
#: is checked on the first three only
DRIFT_KEYS = ("gamma_norm", "orthogonality", "gamma_vs_attitude", "energy", "mu")


def damped(traj: Trajectory) -> bool:
    """Whether ``traj`` is a damped motion (``stats["damping"]`` > 0, outside the paper's model): its energy and mu
    are not conserved; the invariant is ``E + W``, with ``W = stats["dissipated"]`` the work of the damping."""
    return float(traj.stats.get("damping", 0.0)) > 0.0


def energy_balance_error(traj: Trajectory) -> float:
    """``max |E(t) + W(t) - E(0)|``: the energy error of a motion, counting the work ``W`` dissipated by damping
    (0 without damping: then it is ``traj.energy_error``)."""
    if not damped(traj):
        return traj.energy_error
    bal = np.asarray(traj.energy, float) + np.asarray(traj.stats["dissipated"], float)
    return float(np.max(np.abs(bal - bal[0])))


def invariant_drift(traj: Trajectory) -> dict[str, float]:
    """The drift of the invariants over a motion, maxima over its samples.

    A damped motion (:func:`damped`): ``energy`` is the drift of ``E + W`` (:func:`energy_balance_error`), the
    invariant of the damped equations; ``mu``, which damping changes, is reported and not checked.

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
            "orthogonality": float(_orthogonality(traj.R).max()),
            "gamma_vs_attitude": float(np.abs(G - traj.R[:, 2, :]).max()),
            "energy": energy_balance_error(traj) / e_scale,
            "mu": traj.mu_error / math.sqrt(2.0 * J1 * e_scale)}


#: a step of an order-p method may turn the body by at most ATTITUDE_FACTOR ((p+1)! tol)^(1/(p+1)) rad (its
#: truncation error of the rotation is then ~ATTITUDE_FACTOR^(p+1) tol); measured over random bodies and states:
#: at most 1.1 (DOP853) and 0.9 (Taylor) times that angle with ATTITUDE_FACTOR = 1
ATTITUDE_FACTOR = 2.0


def attitude_step_bound(order: int, tol: float) -> float:
    """The largest rotation [rad] of the body in one step of an order-``order`` method at tolerance ``tol`` before
    the attitude's truncation error exceeds ``ATTITUDE_FACTOR^(order+1) tol``."""
    return ATTITUDE_FACTOR * (math.factorial(order + 1) * tol) ** (1.0 / (order + 1))


def angle_per_step(traj: Trajectory) -> float:
    """The body's rotation per step [rad]: ``int |omega| dt`` (trapezoid over the samples) / ``stats["n_steps"]``."""
    nw = np.sqrt(np.einsum("ni,ni->n", traj.omega, traj.omega))
    angle = float(np.sum(0.5 * (nw[1:] + nw[:-1]) * np.diff(traj.t)))
    return angle / max(1, int(traj.stats.get("n_steps", 1)))


def report_drift(traj: Trajectory, tol: float | None, what: str, order: int | None = None) -> None:
    """Put the invariant drift of ``traj`` (:func:`invariant_drift`) into ``traj.stats["drift"]``, and the bound
    the tolerance ``tol`` implies over its ``stats["n_steps"]`` steps into ``stats["drift_bound"]``; warn
    (:class:`~pendulum_explorer.errors.InvariantDriftWarning`) when a drift exceeds it, or when a constraint
    (|Gamma| = 1, R^T R = I, Gamma = R^T e3) drifted beyond ``UNIT_TOL`` (1e-6): the returned states are then no
    longer valid inputs of the package.  ``tol`` None: a method without a tolerance (LGVI), whose constraints hold
    to round-off and whose energy is not checked."""
    drift = invariant_drift(traj)
    n = max(1, int(traj.stats.get("n_steps", 1)))
    bound = DRIFT_FACTOR * ((tol or 0.0) * math.sqrt(n) + DRIFT_ROUNDOFF * n)
    traj.stats["drift"] = drift
    traj.stats["drift_bound"] = bound
    # damping changes mu on purpose (the viscous torque has a vertical component): its change is not a drift
    keys = DRIFT_KEYS[:3] if tol is None else DRIFT_KEYS[:4] if damped(traj) else DRIFT_KEYS
    over = [f"{k} {drift[k]:.2g}" for k in keys if not drift[k] <= bound]
    invalid = [f"{k} {drift[k]:.2g}" for k in DRIFT_KEYS[:3] if not drift[k] <= _v.UNIT_TOL]
    if order is not None and tol is not None:  # a method whose step is not steered by the attitude
        turn, most = angle_per_step(traj), attitude_step_bound(order, tol)
        traj.stats["angle_per_step"] = turn
        if turn > most:
            warnings.warn(InvariantDriftWarning(
                f"{what}: the body turns {turn:.3g} rad per step, more than the {most:.3g} rad that order {order} "
                f"at tol {tol:.3g} resolves: the attitude R may be wrong by more than the tolerance (Gamma and "
                f"omega, which steer the step, are not); use method='lgvi' or simulate_lr"), stacklevel=3)
    if over or invalid:
        asked = "" if tol is None else f"tol {tol:.3g} x sqrt({n} steps) + "
        if over:
            msg = (f"{what}: the invariants drifted beyond what the tolerance implies ({asked}round-off "
                   f"{DRIFT_ROUNDOFF:.2g} x {n} steps = {bound:.2g}): {', '.join(over)}")
        else:
            msg = f"{what}: the motion kept its invariants as the tolerance implies ({bound:.2g})"
        if invalid:
            msg += (f"; its states are not valid inputs of the package any more (constraints beyond "
                    f"{_v.UNIT_TOL:g}: {', '.join(invalid)})")
        warnings.warn(InvariantDriftWarning(f"{msg} (stats['drift']); tighten the tolerance (or reduce dt) or "
                                            f"shorten the time span"), stacklevel=3)


__all__ = ["damped", "energy_balance_error",
           "DRIFT_FACTOR", "DRIFT_ROUNDOFF", "DRIFT_KEYS", "ATTITUDE_FACTOR", "invariant_drift", "attitude_step_bound",
           "angle_per_step", "report_drift"]
