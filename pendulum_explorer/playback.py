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

from .bodies import Pendulum
from .errors import InvalidIntegrationError
from .geometry import as_quaternion
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


_SIMULATE_ARGS: dict[str, dict[str, Any]] = {"lgvi": {"method": "lgvi", "dt": 2e-3}, "taylor": {"method": "taylor"}}


class Launched(Protocol):
    """What :func:`compute_motion` needs of a launched trajectory (the dashboard's ``Launch``)."""

    E: float
    mu: float
    Gamma0: NDArray[np.float64]
    Gammadot0: NDArray[np.float64]
    R0: NDArray[np.float64] | None
    omega0: NDArray[np.float64] | None


def compute_motion(pendulum: Pendulum, launch: Launched | None, omega0: ArrayLike, t_final: float,
                   method: str = "lr", n_out: int | None = None) -> Trajectory:
    """The motion the dashboard animates: from ``launch`` (its attitude R0, else the one over Gamma0) or, when it
    is None, from R0 = I with ``omega0``; ``method`` "lr" (Lagrange-Routh + reconstruction, Prop 17), "lgvi" or
    "taylor".  Sampled densely enough for the fastest motion at its energy (:func:`sample_count`) unless
    ``n_out`` is given."""
    omega0 = np.asarray(omega0, dtype=np.float64)
    if n_out is None:
        E = energy(pendulum, [0.0, 0.0, 1.0], omega0) if launch is None else launch.E
        n_out = sample_count(pendulum, E, t_final)
    if launch is None:
        if method == "lr":
            # the reduced model needs (Gamma, Gammadot, mu): from R0 = I, omega0
            G0 = np.array([0.0, 0.0, 1.0])
            return simulate_lr(pendulum, G0, np.cross(G0, omega0), momentum(pendulum, G0, omega0), t_final,
                               R0=np.eye(3), n_out=n_out)
        return simulate(pendulum, np.eye(3), omega0, t_final, n_out=n_out, **_SIMULATE_ARGS[method])
    R0 = launch.R0 if launch.R0 is not None else attitude_from_gamma(launch.Gamma0)
    if method == "lr":
        return simulate_lr(pendulum, launch.Gamma0, launch.Gammadot0, launch.mu, t_final, R0=R0, n_out=n_out)
    w0 = launch.omega0 if launch.omega0 is not None else lp_from_lr(pendulum, launch.Gamma0, launch.Gammadot0,
                                                                    launch.mu)
    return simulate(pendulum, R0, w0, t_final, n_out=n_out, **_SIMULATE_ARGS[method])


__all__ = ["compute_motion", "ANGLE_PER_SAMPLE", "SAMPLES_PER_PERIOD", "INTERVALS_MULTIPLE", "MAX_SAMPLES", "MIN_SAMPLES", "omega_bound",
           "shortest_period", "time_step", "sample_count", "display_stride", "max_angle_per_sample",
           "attitude_quaternions"]
