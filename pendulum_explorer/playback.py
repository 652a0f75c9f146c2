"""How densely a motion must be sampled to be shown truthfully (layer 2: model/analysis).

An animation that samples a motion more slowly than it moves shows a different motion (aliasing: a rod swinging
every 1.8 s sampled every 1.67 s appears to swing once every ~29 s).  The sampling here is derived from the
motion's own time scales:

* the rotation between two samples is at most :data:`ANGLE_PER_SAMPLE` (the attitude turns at the rate |omega|);
* every small-oscillation period about the hanging equilibrium (Eqs 21-24, :meth:`Pendulum.small_oscillations`)
  gets at least :data:`SAMPLES_PER_PERIOD` samples, so that even a swing of tiny amplitude (small |omega|) is not
  aliased.

Before the integration |omega| is not known; the energy (Eq 34) bounds it:
``1/2 omega^T J omega = E + m g rho^T Gamma <= E + m g |rho|``, so ``|omega| <= sqrt(2 (E + m g |rho|) / J_min)``
(:func:`omega_bound`).  The integration is sampled by that bound (:func:`sample_count`), and the result is thinned
to what its actual max |omega| needs (:func:`display_stride`).  The browser then interpolates the attitude between
samples (slerp) at its own frame rate, in true time.
"""
from __future__ import annotations

import math

from typing import Any, Protocol

import numpy as np
from numpy.typing import ArrayLike, NDArray

from . import _validate as _v
from .bodies import Pendulum
from .errors import InvalidIntegrationError
from .geometry import as_quaternion, release_attitude
from .reduction import attitude_from_gamma, energy, lp_from_lr, momentum, simulate_lr
from .trajectory import Trajectory, simulate

#: largest rotation [rad] between two consecutive samples shown
ANGLE_PER_SAMPLE = 0.05
#: fewest samples per small-oscillation period
SAMPLES_PER_PERIOD = 40
#: the number of sampling intervals is a multiple of this (so that a thinned motion still ends at t_final)
INTERVALS_MULTIPLE = 60
#: most samples an animation holds (16 bytes each as float32 quaternions: 1 MB)
MAX_SAMPLES = 1000 * INTERVALS_MULTIPLE + 1
#: fewest samples of a motion
MIN_SAMPLES = 4 * INTERVALS_MULTIPLE + 1


def omega_bound(pendulum: Pendulum, E: float) -> float:
    """An upper bound of |omega| [rad/s] along any motion of energy ``E`` [J] (Eq 34).

    ``1/2 omega^T J omega = E + m g rho^T Gamma <= E + m g |rho|`` and ``omega^T J omega >= J_min |omega|^2``.
    """
    E = float(E)
    if not math.isfinite(E):
        raise InvalidIntegrationError(f"E must be a finite energy [J]; got {E!r}")
    kinetic = max(E + pendulum.mgrho_norm, 0.0)
    return math.sqrt(2.0 * kinetic / float(pendulum.principal_moments[-1]))


def shortest_period(pendulum: Pendulum) -> float:
    """The shortest small-oscillation period [s] about the hanging equilibrium (Eqs 21-24); ``inf`` when rho = 0
    (no restoring torque) or when every mode is neutral."""
    if pendulum.is_balanced:
        return math.inf
    periods = np.asarray(pendulum.small_oscillations()["periods"], float)
    periods = periods[np.isfinite(periods)]
    return float(periods.min()) if periods.size else math.inf


def time_step(pendulum: Pendulum, omega_max: float) -> float:
    """The largest sampling interval [s] that turns the body by at most :data:`ANGLE_PER_SAMPLE` at the angular
    speed ``omega_max`` [rad/s] and gives every small-oscillation period :data:`SAMPLES_PER_PERIOD` samples."""
    dt = shortest_period(pendulum) / SAMPLES_PER_PERIOD
    if omega_max > 0.0:
        dt = min(dt, ANGLE_PER_SAMPLE / float(omega_max))
    return dt


def sample_count(pendulum: Pendulum, E: float, t_final: float) -> int:
    """Samples (``n_out``) to integrate a motion of energy ``E`` over ``t_final`` seconds with: the sampling of
    :func:`time_step` at the energy bound :func:`omega_bound`, between :data:`MIN_SAMPLES` and
    :data:`MAX_SAMPLES`, with ``n_out - 1`` a multiple of :data:`INTERVALS_MULTIPLE`."""
    t_final = float(t_final)
    if not (math.isfinite(t_final) and t_final > 0.0):
        raise InvalidIntegrationError(f"t_final must be a positive duration [s]; got {t_final!r}")
    dt = time_step(pendulum, omega_bound(pendulum, E))
    intervals = MAX_SAMPLES - 1 if dt * (MAX_SAMPLES - 1) < t_final else math.ceil(t_final / dt)
    intervals = -(-intervals // INTERVALS_MULTIPLE) * INTERVALS_MULTIPLE
    return int(min(max(intervals + 1, MIN_SAMPLES), MAX_SAMPLES))


def display_stride(traj: Trajectory) -> int:
    """The largest stride ``k`` such that every ``k``-th sample of ``traj`` still meets :func:`time_step` at the
    trajectory's actual max |omega|, keeps the last sample (``k`` divides ``n - 1``) and keeps at least
    :data:`MIN_SAMPLES` samples; 1 when even consecutive samples are coarser."""
    t = np.asarray(traj.t, float)
    intervals = len(t) - 1
    if intervals < 2:
        return 1
    dt = float(t[1] - t[0])
    w = float(np.max(np.linalg.norm(np.asarray(traj.omega, float), axis=1)))
    need = time_step(traj.pendulum, w)
    k_max = int(need // dt) if math.isfinite(need) else intervals
    k_max = max(1, min(k_max, intervals // (MIN_SAMPLES - 1)))
    return next(k for k in range(k_max, 0, -1) if intervals % k == 0)


def max_angle_per_sample(quaternions: NDArray[np.floating]) -> float:
    """The largest rotation [rad] between consecutive attitudes given as unit quaternions (n, 4)."""
    q = np.asarray(quaternions, float)
    if len(q) < 2:
        return 0.0
    c = np.abs(np.sum(q[1:] * q[:-1], axis=1))
    return float(2.0 * np.arccos(np.clip(c, 0.0, 1.0)).max())


def attitude_quaternions(R: NDArray[np.floating]) -> NDArray[np.float64]:
    """Unit quaternions ``[x, y, z, w]`` (scalar last) of the attitudes ``R`` (n, 3, 3), signs chosen so that
    consecutive quaternions have a non-negative dot product (an interpolation between neighbours then takes the
    short way round)."""
    q = np.asarray(as_quaternion(np.asarray(R, float)), float).reshape(-1, 4)
    flip = np.sum(q[1:] * q[:-1], axis=1) < 0.0
    sign = np.concatenate([[1.0], np.where(np.cumsum(flip) % 2 == 1, -1.0, 1.0)])
    out: NDArray[np.float64] = q * sign[:, None]
    return out


_SIMULATE_ARGS: dict[str, dict[str, Any]] = {"lgvi": {"method": "lgvi", "dt": 2e-3}, "taylor": {"method": "taylor"},
                                             "dop853": {"method": "dop853"}}
#: the methods of :func:`compute_motion`: Routh + reconstruction, LGVI, Taylor, DOP853 (the one that damps)
MOTION_METHODS = ("lr", "lgvi", "taylor", "dop853")


def hanging_base(pendulum: Pendulum) -> NDArray[np.float64]:
    """The hanging attitude the release angle is measured from: ``R`` with ``R rho = |rho| e3`` (the centre of mass
    straight below the pivot; :func:`~pendulum_explorer.reduction.attitude_from_gamma` of rho/|rho|, the identity
    when rho is along e3), the identity for a balanced body (rho = 0)."""
    rho = np.asarray(pendulum.rho, float)
    n = float(np.linalg.norm(rho))
    return np.eye(3) if n == 0.0 else attitude_from_gamma(rho / n)


def release_start(pendulum: Pendulum, angle_deg: float, axis: ArrayLike, frame: str = "space") -> NDArray[np.float64]:
    """R0 of "release from rest tilted ``angle_deg`` degrees about ``axis``": the hanging attitude
    (:func:`hanging_base`) turned by :func:`~pendulum_explorer.geometry.release_attitude` about ``axis`` fixed in
    the lab (``frame="space"``; e1 and e2 are horizontal, e3 points down) or in the body (``"body"``)."""
    return release_attitude(hanging_base(pendulum), angle_deg, axis, frame)


def tilt_degrees(traj: Trajectory) -> NDArray[np.float64]:
    """The tilt [degrees] at every sample: the angle between the body's axis, the pivot-to-centre-of-mass direction
    ``R rho``, and the downward vertical e3, whose cosine is ``rho^T Gamma / (|rho| |Gamma|)`` (as
    ``(R rho)^T e3 = rho^T R^T e3``); 0 hanging, 180 inverted.  A balanced body (rho = 0) has no axis:
    :class:`~pendulum_explorer.errors.InvalidIntegrationError`."""
    rho = np.asarray(traj.pendulum.rho, float)
    n = float(np.linalg.norm(rho))
    if n == 0.0:
        raise InvalidIntegrationError("a balanced body (rho = 0) has no tilt: its centre of mass is at the pivot")
    G = np.asarray(traj.Gamma, float)
    c = (G @ rho) / (n * np.sqrt(np.einsum("ni,ni->n", G, G)))
    out: NDArray[np.float64] = np.degrees(np.arccos(np.clip(c, -1.0, 1.0)))
    return out


def energies(traj: Trajectory) -> dict[str, NDArray[np.float64]]:
    """The energies [J] at every sample, for the energy bars: ``kinetic`` 1/2 omega^T J omega, ``potential``
    ``m g |rho| - m g rho^T Gamma`` (measured from the hanging position, so that it is >= 0: Eq 34's
    ``-m g rho^T Gamma`` plus the constant ``m g |rho|``), ``total`` their sum (Eq 34's E + m g |rho|; constant
    without damping, decreasing at the rate ``c omega^T omega`` with it) and ``dissipated``, the work of the
    damping torque since t = 0 (zeros without damping)."""
    P = traj.pendulum
    W = np.asarray(traj.omega, float)
    J = np.asarray(P.J, float)
    kinetic = 0.5 * np.einsum("ni,ij,nj->n", W, J, W)
    potential = P.mgrho_norm - np.asarray(traj.Gamma, float) @ np.asarray(P.mgrho, float)
    dissipated = np.asarray(traj.stats.get("dissipated", np.zeros(len(W))), float)
    return {"kinetic": kinetic, "potential": potential, "total": kinetic + potential, "dissipated": dissipated}


class Launched(Protocol):
    """What :func:`compute_motion` needs of a launched trajectory (the dashboard's ``Launch``)."""

    E: float
    mu: float
    Gamma0: NDArray[np.float64]
    Gammadot0: NDArray[np.float64]
    R0: NDArray[np.float64] | None
    omega0: NDArray[np.float64] | None


def compute_motion(pendulum: Pendulum, launch: Launched | None, omega0: ArrayLike, t_final: float,
                   method: str = "lr", n_out: int | None = None, R0: ArrayLike | None = None,
                   damping: float = 0.0) -> Trajectory:
    """The motion the dashboard animates: from ``launch`` (its attitude R0, else the one over Gamma0) or, when it
    is None, from ``R0`` (default I; e.g. :func:`release_start`) with ``omega0``; ``method`` "lr"
    (Lagrange-Routh + reconstruction, Prop 17), "lgvi", "taylor" or "dop853".  Sampled densely enough for the
    fastest motion at its energy (:func:`sample_count`) unless ``n_out`` is given.

    ``damping`` c >= 0: the viscous torque ``-c omega`` at the pivot (outside the paper's model, see
    :func:`~pendulum_explorer.trajectory.simulate`); only "dop853" takes it, the other methods refuse c != 0
    (:class:`~pendulum_explorer.errors.InvalidIntegrationError` naming ``damping``)."""
    from .integrators import integrator

    method = _v.choice("method", method, MOTION_METHODS)
    if method != "dop853":  # refused by name before anything runs (Routh: a damped motion has no fixed mu)
        integrator("lgvi" if method == "lr" else method, damping=damping)
    omega0 = np.asarray(omega0, dtype=np.float64)
    R0 = np.eye(3) if R0 is None else _v.rotation("R0", R0)
    if n_out is None:
        E = energy(pendulum, R0[2], omega0) if launch is None else launch.E
        n_out = sample_count(pendulum, E, t_final)
    if launch is None:
        if method == "lr":
            # the reduced model needs (Gamma, Gammadot, mu): from R0, omega0
            G0 = R0[2].copy()
            return simulate_lr(pendulum, G0, np.cross(G0, omega0), momentum(pendulum, G0, omega0), t_final,
                               R0=R0, n_out=n_out)
        return simulate(pendulum, R0, omega0, t_final, n_out=n_out, damping=damping, **_SIMULATE_ARGS[method])
    R0 = launch.R0 if launch.R0 is not None else attitude_from_gamma(launch.Gamma0)
    if method == "lr":
        return simulate_lr(pendulum, launch.Gamma0, launch.Gammadot0, launch.mu, t_final, R0=R0, n_out=n_out)
    w0 = launch.omega0 if launch.omega0 is not None else lp_from_lr(pendulum, launch.Gamma0, launch.Gammadot0,
                                                                    launch.mu)
    return simulate(pendulum, R0, w0, t_final, n_out=n_out, damping=damping, **_SIMULATE_ARGS[method])


def continue_motion(traj: Trajectory, t_from: float, method: str = "dop853", damping: float = 0.0) -> Trajectory:
    """``traj`` up to its last sample at or before ``t_from`` [s], then continued from that state (R, omega) to
    the same end with ``method`` and ``damping`` (:func:`compute_motion`'s), at the same sampling interval: the
    dashboard's "change a parameter while it moves" (the animation keeps its time; the motion after ``t_from``
    is the new one).  ``t_from`` is clipped to the motion's span; at its end the motion is returned as it is.

    The result's ``stats`` are those of the continuation, with ``continued_from`` (the time of the splice),
    ``damping`` (the largest damping of the two parts) and ``dissipated`` (the work of the damping torque since
    t = 0 across both parts, so that ``E + W`` stays the invariant the drift checks use).
    """
    t = np.asarray(traj.t, float)
    t_from = _v.real("t_from", t_from, exc=InvalidIntegrationError)
    dt = float(t[1] - t[0])
    k = int(min(max(math.floor((t_from - float(t[0])) / dt + 1e-9), 0), len(t) - 1))
    if k >= len(t) - 1:
        return traj
    method = _v.choice("method", method, MOTION_METHODS[1:], exc=InvalidIntegrationError)
    new = simulate(traj.pendulum, traj.R[k], traj.omega[k], float(t[-1] - t[k]), n_out=len(t) - k, damping=damping,
                   **_SIMULATE_ARGS[method])
    old_w = np.asarray(traj.stats.get("dissipated", np.zeros(len(t))), float)
    new_w = np.asarray(new.stats.get("dissipated", np.zeros(len(new.t))), float)
    stats = dict(new.stats, continued_from=float(t[k]),
                 damping=max(float(traj.stats.get("damping", 0.0)), float(new.stats.get("damping", 0.0))),
                 dissipated=np.concatenate([old_w[:k], old_w[k] + new_w]))
    stats["n_steps"] = int(traj.stats.get("n_steps", 0)) + int(new.stats.get("n_steps", 0))

    def join(a: NDArray[np.float64], b: NDArray[np.float64]) -> NDArray[np.float64]:
        return np.concatenate([np.asarray(a)[:k], np.asarray(b)])
    return Trajectory(traj.pendulum, join(t, t[k] + new.t), join(traj.R, new.R), join(traj.omega, new.omega),
                      join(traj.Gamma, new.Gamma), join(traj.energy, new.energy), join(traj.mu, new.mu), new.method,
                      stats)


__all__ = ["compute_motion", "continue_motion", "MOTION_METHODS", "hanging_base", "release_start", "tilt_degrees", "energies", "ANGLE_PER_SAMPLE", "SAMPLES_PER_PERIOD", "INTERVALS_MULTIPLE", "MAX_SAMPLES", "MIN_SAMPLES", "omega_bound",
           "shortest_period", "time_step", "sample_count", "display_stride", "max_angle_per_sample",
           "attitude_quaternions"]
