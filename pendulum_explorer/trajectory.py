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
from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ._core import dop853 as _dop
from ._core import fields as _f
from ._core import so3 as _so3
from ._core import taylor as _taylor
from ._core.lgvi import integrate_lgvi
from . import _validate as _v
from .bodies import Pendulum
from .drift import report_drift
from .errors import IntegrationFailedError, InvalidIntegrationError, InvalidStateError

#: maximum number of stored output rows / fixed steps accepted before refusing (memory guard)
MAX_OUTPUT_ROWS = 5_000_000
MAX_FIXED_STEPS = _v.MAX_STEPS
#: float64 values held per output row (kernel state, R, omega, Gamma, invariants; at most)
ROW_FLOATS = 40
#: step budget per turn of the motion (default max_steps), and the fewest steps per turn DOP853 takes
STEPS_PER_TURN_BUDGET = 2000
STEPS_PER_TURN_MIN = 8
#: typical DOP853 steps per turn at rtol 1e-10 (measured 17-24; 48 at 1e-13): sizes the chunks of long runs
EST_STEPS_PER_TURN = 50
#: DOP853 steps per Taylor step (measured 1.5 for Fig. 2 over 200 s), for sizing the Taylor chunks
TAYLOR_STEP_RATIO = 1.5
#: a Taylor step (order 20) costs about as much as this many DOP853 steps (measured 7 vs 4.7 us): its chunks
#: are this much shorter
TAYLOR_CHUNK_DIVISOR = 2
#: kernel steps between two returns to Python (~0.1-0.8 s): Ctrl-C stops a long integration within ~1 s
CHUNK_STEPS = 100_000
#: relative energy / |Gamma| error above which a returned motion is refused as garbage
CONSERVATION_RTOL = 1e-2
#: shortest time span accepted [s] (below it the step-size control underflows)
MIN_SPAN = 1e-9
#: largest accepted |omega0| entry [rad/s] (beyond it no integration can finish)
MAX_OMEGA = 1e100
METHODS = ("dop853", "lgvi", "taylor")
#: default tolerance of the Taylor method: double-precision round-off (as heyoka's default)
TAYLOR_TOL = float(np.finfo(float).eps)
TAYLOR_TOL_RANGE = (1e-18, 1e-4)


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


def attitude_from_rows(r: NDArray[np.float64], Gamma: NDArray[np.float64]) -> NDArray[np.float64]:
    """The attitudes (n, 3, 3) whose rows are ``R^T e1``, ``R^T e2``, ``R^T e3`` from integrated ``r ~ R^T e1``
    and ``Gamma ~ R^T e3`` (n, 3): Gram-Schmidt with Gamma first, then ``R^T e2 = Gamma x r``
    (``e2 = e3 x e1``).  The result is a rotation to round-off; it moves each row by the size of the
    integration error in ``|Gamma| - 1``, ``|r| - 1`` and ``r . Gamma``."""
    g = Gamma / np.sqrt(np.einsum("ni,ni->n", Gamma, Gamma))[:, None]
    a = r - np.einsum("ni,ni->n", r, g)[:, None] * g
    a /= np.sqrt(np.einsum("ni,ni->n", a, a))[:, None]
    R = np.empty((r.shape[0], 3, 3))
    R[:, 0] = a
    R[:, 1] = np.cross(g, a)
    R[:, 2] = g
    return R


def orthogonality_errors(R: NDArray[np.float64]) -> NDArray[np.float64]:
    """||R^T R - I||_F for each matrix of a stack (n, 3, 3)."""
    R = np.ascontiguousarray(R, dtype=np.float64)
    out = np.empty(R.shape[0])
    _so3.orthogonality_errors(R, out)
    return out


def validate_span(t_final: float, n_out: int, name: str = "t_final") -> tuple[float, int]:
    """``t_final`` (finite, > 0) and ``n_out`` (integer >= 2 within the memory guard), checked."""
    t_final = _v.time_span(name, t_final, MIN_SPAN)
    n_out = _v.integer("n_out", n_out, low=2)
    if n_out > MAX_OUTPUT_ROWS:
        raise InvalidIntegrationError(
            f"n_out = {n_out} output rows exceeds the memory guard of {MAX_OUTPUT_ROWS} rows")
    _v.result_memory(n_out * ROW_FLOATS, f"n_out = {n_out} output rows", "reduce n_out")
    return t_final, n_out


def step_budget(pendulum: Pendulum, omega_scale: float, t_final: float, max_steps: int | None,
                rate_from: str = "omega0", span: str = "t_final") -> int:
    """The DOP853 step budget of a request: ``max_steps`` when given (at most ``MAX_STEPS``), else in proportion
    to what was asked (``STEPS_PER_TURN_BUDGET`` steps per turn at the motion's angular rate, 1000 at least, at
    most ``MAX_STEPS``); a request that needs more than ``MAX_STEPS`` (at ``STEPS_PER_TURN_MIN`` steps per turn)
    is refused before it runs.

    ``omega_scale`` is a rate [rad/s] of the motion (e.g. |omega0|; ``rate_from`` names the arguments it comes
    from, for the messages); the small-oscillation rate ``sqrt(m g |rho| / J1)`` is added to it.  A ``max_steps``
    below even that minimum is refused as well (:class:`IntegrationFailedError`, before running).
    """
    rate = float(omega_scale) + math.sqrt(pendulum.mgrho_norm / pendulum.principal_moments[0])
    turns = t_final * rate / (2.0 * math.pi)
    need = STEPS_PER_TURN_MIN * turns
    why = f"{turns:.3g} turns at {rate:.3g} rad/s (from {rate_from} and gravity) over {span} = {t_final:g} s"
    if max_steps is not None:  # the caller's own budget: used as given (the kernel stops when it runs out)
        budget = _v.max_steps(max_steps)
        if need > budget:
            raise IntegrationFailedError(
                f"the step limit max_steps = {budget} cannot be enough: this request needs at least ~{need:.3g} "
                f"steps ({why}); raise max_steps, shorten {span} or reduce {rate_from}")
        return budget
    budget = int(min(_v.MAX_STEPS, 1000.0 + STEPS_PER_TURN_BUDGET * turns))
    if need > budget:
        raise InvalidIntegrationError(
            f"this request needs at least ~{need:.3g} steps ({why}), above the step limit of {budget}: shorten "
            f"{span} or reduce {rate_from}")
    return budget


def expected_steps(pendulum: Pendulum, omega_scale: float, t_final: float) -> float:
    """A typical DOP853 step count for ``t_final`` seconds at the rate ``omega_scale`` (``EST_STEPS_PER_TURN``
    per turn; used to size the chunks of a long integration, not as a limit)."""
    rate = float(omega_scale) + math.sqrt(pendulum.mgrho_norm / pendulum.principal_moments[0])
    return EST_STEPS_PER_TURN * t_final * rate / (2.0 * math.pi)


#: a request whose typical step count (:func:`expected_steps`) is at least this fraction of its step budget is
#: first measured by a pilot run of at most ``PILOT_STEPS`` steps (~10-50 ms) and refused when the measured step
#: rate, extrapolated to the whole span, exceeds the budget (instead of failing when the budget runs out)
PILOT_FROM = 0.05
PILOT_STEPS = 20_000


Runner = Callable[[NDArray[np.float64], float, int, int, NDArray[np.float64]], NDArray[np.int64]]


def check_predicted_steps(run: Runner, y0: NDArray[np.float64], t_final: float, budget: int, est_steps: float,
                          caller_budget: bool, span: str = "t_final", what: str = "this integration") -> None:
    """Refuse up front a request that would run out of its step ``budget``: a pilot of the same kernel ``run``
    (the signature of :func:`run_chunked`'s) over the first ``t_final * PILOT_STEPS / est_steps`` seconds
    measures the steps per second of this motion; the count extrapolated to ``t_final`` above ``budget`` raises
    :class:`InvalidIntegrationError` (:class:`IntegrationFailedError` when the caller gave ``max_steps``, as
    :func:`step_budget`).  Skipped (no cost) when ``est_steps < PILOT_FROM * budget``; a pilot that fails lets
    the real run report the failure."""
    if est_steps < PILOT_FROM * budget:
        return
    cap = min(PILOT_STEPS, budget + 1)
    t_pilot = min(t_final, t_final * PILOT_STEPS / max(est_steps, 1.0))
    st = run(np.array(y0, dtype=np.float64), t_pilot, 2, cap, np.empty((2, len(y0))))
    used = int(st[0] + st[1])
    if st[3] == _dop.MAX_STEPS:  # the pilot's own cap: at least this many steps per t_pilot
        used = cap
    elif st[3] != _dop.OK:
        return
    predicted = used * t_final / t_pilot
    if predicted > budget:
        exc = IntegrationFailedError if caller_budget else InvalidIntegrationError
        fit = t_final * budget / predicted
        raise exc(f"{what} would need about {predicted:.3g} steps ({'at least ' if st[3] else ''}{used} measured over "
                  f"the first {t_pilot:.3g} s of {span} = {t_final:g} s), above the step limit "
                  f"{'max_steps = ' if caller_budget else 'of '}{budget}: shorten {span} to about {fit:.3g} s"
                  f"{', raise max_steps' if caller_budget else ''} or loosen the tolerance")


def integrate_chunked(model: int, y0: NDArray[np.float64], t_final: float, n_out: int, p: NDArray[np.float64],
                      rtol: float, atol: float, budget: int, Y: NDArray[np.float64],
                      est_steps: float) -> NDArray[np.int64]:
    """:func:`_core.dop853.integrate_uniform` of ``model`` in pieces (see :func:`run_chunked`)."""
    return run_chunked(dop853_run(model, p, rtol, atol), y0, t_final, n_out, budget, Y, est_steps)


def dop853_run(model: int, p: NDArray[np.float64], rtol: float, atol: float) -> Runner:
    """:func:`_core.dop853.integrate_uniform` of ``model`` with its parameters bound: ``run(y0, span, rows,
    max_steps, out) -> stats``."""
    def run(y: NDArray[np.float64], span: float, rows: int, left: int, out: NDArray[np.float64]) -> NDArray[np.int64]:
        return _dop.integrate_uniform(model, y, span, rows, p, rtol, atol, left, out)
    return run


def run_chunked(run: Callable[[NDArray[np.float64], float, int, int, NDArray[np.float64]], NDArray[np.int64]],
                y0: NDArray[np.float64], t_final: float, n_out: int, budget: int, Y: NDArray[np.float64],
                est_steps: float, chunk_steps: int | None = None) -> NDArray[np.int64]:
    """Drive a uniform-output kernel ``run(y0, t_final, n_rows, max_steps, Y) -> stats`` (the signature of
    :func:`_core.dop853.integrate_uniform` with its other arguments bound) in pieces of about ``CHUNK_STEPS``
    steps, returning to Python between them so that Ctrl-C (KeyboardInterrupt) stops a long integration within
    about a second.

    The output grid is refined ``q`` times when one output interval would take more than ``CHUNK_STEPS``
    steps; each piece integrates ``c`` fine intervals from the state where the last one ended (the step size
    restarts there).  A request of at most ``CHUNK_STEPS`` estimated steps runs as one kernel call, exactly as
    before.  Returns the kernel's statistics ``[n_accepted, n_rejected, n_rhs, status, n_rows_written]``.
    """
    chunk = CHUNK_STEPS if chunk_steps is None else chunk_steps
    n_int = n_out - 1
    q = max(1, math.ceil(est_steps / (n_int * chunk)))
    n_fine = n_int * q
    dt = t_final / n_fine
    c = max(1, min(n_fine, int(chunk * n_fine / max(est_steps, 1.0))))
    y = np.array(y0, dtype=np.float64)
    Y[0] = y
    k = 0
    tot = np.zeros(5, dtype=np.int64)
    while k < n_fine:
        c = min(c, n_fine - k)
        out = Y[k:k + c + 1] if q == 1 else np.empty((c + 1, y.shape[0]))
        # one piece: [k dt, (k + c) dt] (the models are autonomous)
        st = run(y, c * dt if k + c < n_fine else t_final - k * dt, c + 1, max(0, budget - int(tot[0] + tot[1])), out)
        tot[0:3] += st[0:3]
        if st[3] != _dop.OK:
            tot[3] = st[3]
            tot[4] = (k + int(st[4]) - 1) // q + 1
            return tot
        if q > 1:
            for i in range(1, c + 1):
                if (k + i) % q == 0:
                    Y[(k + i) // q] = out[i]
        y = out[c].copy()
        k += c
        used = int(st[0] + st[1])
        c = max(1, min(4 * c, int(c * chunk / max(used, 1))))
    tot[3] = _dop.OK
    tot[4] = n_out
    return tot


def lgvi_chunked(R0: NDArray[np.float64], omega0: NDArray[np.float64], h: float, stride: int,
                 p: NDArray[np.float64], R: NDArray[np.float64], W: NDArray[np.float64]) -> NDArray[np.int64]:
    """:func:`_core.lgvi.integrate_lgvi` in pieces of at most ``CHUNK_STEPS`` steps (Ctrl-C stops it within about
    a second); returns ``[n_steps, Newton iterations, max iterations, status]`` like the kernel."""
    n_out = R.shape[0]
    R[0] = R0
    W[0] = omega0
    tot = np.zeros(4, dtype=np.int64)
    done = 0
    if stride <= CHUNK_STEPS:
        rows = max(1, CHUNK_STEPS // stride)
        k = 0
        while k < n_out - 1:
            r = min(rows, n_out - 1 - k)
            st = integrate_lgvi(R[k].copy(), W[k].copy(), h, stride * r, stride, p, R[k:k + r + 1], W[k:k + r + 1])
            if _lgvi_add(tot, st, done):
                return tot
            done += stride * r
            k += r
        return tot
    pieces = math.ceil(stride / CHUNK_STEPS)
    Rs = np.empty((2, 3, 3))
    Ws = np.empty((2, 3))
    Rc, Wc = R0.copy(), omega0.copy()
    for k in range(n_out - 1):
        for j in range(pieces):
            n = stride // pieces + (1 if j < stride % pieces else 0)
            st = integrate_lgvi(Rc, Wc, h, n, n, p, Rs, Ws)
            if _lgvi_add(tot, st, done):
                return tot
            done += n
            Rc, Wc = Rs[1].copy(), Ws[1].copy()
        R[k + 1] = Rc
        W[k + 1] = Wc
    return tot


def _lgvi_add(tot: NDArray[np.int64], st: NDArray[np.int64], done: int) -> bool:
    """Accumulate one LGVI piece's statistics; True when it failed (status = global index of the failed step)."""
    tot[0] += st[0]
    tot[1] += st[1]
    tot[2] = max(tot[2], st[2])
    if st[3] != 0:
        tot[3] = done + st[3]
        return True
    return False


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
    dR = float(orthogonality_errors(traj.R).max())
    if not dR <= CONSERVATION_RTOL:  # NaN included
        raise IntegrationFailedError(
            f"{what} returned attitudes R that are not rotations (max ||R^T R - I|| = {dR:.3g} > "
            f"{CONSERVATION_RTOL:g}): the step outran the rotation of the body (a steady spin: Gamma and omega "
            f"constant, which do not limit the step); use method='lgvi' or simulate_lr, or a tighter tolerance")


def validate_taylor_tol(tol: float | None) -> float:
    """The Taylor tolerance: ``None`` -> :data:`TAYLOR_TOL`; otherwise a number in ``TAYLOR_TOL_RANGE``."""
    if tol is None:
        return TAYLOR_TOL
    return _v.real("tol", tol, exc=InvalidIntegrationError, low=TAYLOR_TOL_RANGE[0], high=TAYLOR_TOL_RANGE[1])


def taylor_frame(pendulum: Pendulum) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Parameters of the Taylor kernel and the principal frame: ``(q, Q)``.

    The kernel integrates Eqs (31)-(32) in principal axes, where Eq (31) needs three products instead of six;
    the columns of ``Q`` are the principal axes (``J = Q diag(J') Q^T``).  A diagonal J is used as it is
    (``Q = I``, so no rounding is added).
    """
    J = np.asarray(pendulum.J, dtype=float)
    if np.count_nonzero(J - np.diag(np.diag(J))) == 0:
        return _taylor.principal_params(np.diag(J), pendulum.mgrho), np.eye(3)
    Pp, Q = pendulum.principal()
    return _taylor.principal_params(np.diag(np.asarray(Pp.J)), Pp.mgrho), np.asarray(Q, dtype=float)


def simulate(pendulum: Pendulum, R0: ArrayLike, omega0: ArrayLike, t_final: float, *, method: str = "dop853",
             dt: float | None = None, rtol: float = 1e-10, atol: float = 1e-12, n_out: int = 1001,
             max_steps: int | None = None, tol: float | None = None) -> Trajectory:
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
    method : {"dop853", "lgvi", "taylor"}
        Adaptive 8th-order Runge-Kutta on Eqs (31)-(32) + (2), the Lie group variational integrator on
        Eqs (1)-(2), or the adaptive Taylor method on Eqs (31)-(32) + (2) (machine precision by default).
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
        ``stats["drift_bound"]`` the drift the tolerance asked implies, ``tol sqrt(n_steps) + 4 eps n_steps``
        (per-step errors adding up as a random walk, round-off linearly; ``tol = rtol + atol`` for DOP853, ``tol``
        for Taylor, 0 for LGVI, whose energy error is O(dt^2) and not checked).  DOP853 and Taylor:
        ``stats["angle_per_step"]``, the body's rotation per step (:func:`angle_per_step`; their step is steered by
        Gamma and omega only, not by the attitude).

    Warns
    -----
    InvariantDriftWarning
        A drift exceeds ``stats["drift_bound"]``, or a constraint drifted beyond ``UNIT_TOL`` = 1e-6 (the returned
        states would be refused as input), or the body turned more per step than the method's order resolves at
        the tolerance (:func:`attitude_step_bound`; e.g. a steady spin, where Gamma and omega are constant): the
        invariants are reported, not enforced (the integrated
        Gamma is returned as integrated, not renormalised; a motion drifting more than 1 % is refused,
        :class:`IntegrationFailedError`).
    """
    _v.check_pendulum(pendulum)
    R0 = _v.rotation("R0", R0)
    omega0 = _v.array("omega0", omega0, (3,), max_abs=MAX_OMEGA)
    t_final, n_out = validate_span(t_final, n_out)
    method = _v.choice("method", method, METHODS)
    p = pendulum.params()
    E0 = _f.energy_lp(R0[2], omega0, p)
    if not math.isfinite(E0):
        raise InvalidStateError("the energy of (R0, omega0) overflows double precision; reduce omega0")
    t0 = time.perf_counter()
    if method == "lgvi":
        if dt is None:
            dt = 1e-3
        dt = _v.positive("dt", dt)
        _v.tolerances(rtol, atol)  # not used by LGVI, but checked like every argument
        stride = max(1, int(np.ceil(t_final / (n_out - 1) / dt - 1e-9)))
        n_steps = stride * (n_out - 1)
        if n_steps > MAX_FIXED_STEPS:
            raise InvalidIntegrationError(
                f"t_final/dt = {t_final / dt:.3g} steps exceeds the limit of {MAX_FIXED_STEPS:.3g}; "
                f"increase dt or reduce t_final")
        h = t_final / n_steps
        R = np.empty((n_out, 3, 3))
        W = np.empty((n_out, 3))
        st = lgvi_chunked(R0, omega0, h, stride, p, R, W)
        if st[3] != 0:
            raise IntegrationFailedError(
                f"LGVI: the implicit step equation has no solution at step {int(st[3])} (t = {st[3] * h:.4g} s) "
                f"with dt = {h:.4g} s; the body turns too far in one step: reduce dt")
        Gamma = np.ascontiguousarray(R[:, 2, :])
        stats = {"n_steps": int(st[0]), "dt": h, "newton_iterations": int(st[1]),
                 "max_newton_iterations": int(st[2])}
    elif method == "taylor":
        tol = validate_taylor_tol(tol)
        budget = step_budget(pendulum, float(np.linalg.norm(omega0)), t_final, max_steps)
        q, Q = taylor_frame(pendulum)
        # principal frame: vectors v' = Q^T v, attitude R' = R Q (rows r_i' = Q^T r_i)
        y0 = np.concatenate([Q.T @ R0[2, :], Q.T @ omega0, (R0 @ Q).ravel()])
        rotated = not np.array_equal(Q, np.eye(3))
        Y = np.empty((n_out, 15))
        info = np.empty(2)
        order = _taylor.order_for(tol)
        def run(y: NDArray[np.float64], span: float, rows: int, left: int,
                out: NDArray[np.float64]) -> NDArray[np.int64]:
            return _taylor.integrate_uniform_taylor(y, span, rows, q, order, left, out, info)
        est = expected_steps(pendulum, float(np.linalg.norm(omega0)), t_final) / TAYLOR_STEP_RATIO
        check_predicted_steps(run, y0, t_final, budget, est, max_steps is not None, what="the Taylor integration")
        st = run_chunked(run, y0, t_final, n_out, budget, Y, est, CHUNK_STEPS // TAYLOR_CHUNK_DIVISOR)
        _v.raise_for_status(st[3], "Taylor", t=t_final * (int(st[4]) - 1) / (n_out - 1), t_final=t_final,
                            budget=budget)
        if rotated:  # one (3 n_out x 3) product, not n_out small ones
            R = (Y[:, 6:15].reshape(3 * n_out, 3) @ Q.T).reshape(n_out, 3, 3)
            W = Y[:, 3:6] @ Q.T
        else:  # principal axes are the body axes: the kernel's rows are the result
            R = np.ascontiguousarray(Y[:, 6:15]).reshape(n_out, 3, 3)
            W = np.ascontiguousarray(Y[:, 3:6])
        Gamma = np.ascontiguousarray(R[:, 2, :])  # Gamma = R^T e3
        stats = {"n_steps": int(st[0]), "order": order, "mean_step": t_final / max(int(st[0]), 1), "tol": tol}
    else:
        rtol, atol = _v.tolerances(rtol, atol)
        budget = step_budget(pendulum, float(np.linalg.norm(omega0)), t_final, max_steps)
        # Gamma, omega and the first row of R (Eq 2): R^T e1; its stages ride along the LP step
        y0 = np.concatenate([R0[2, :], omega0, R0[0, :]])
        Y = np.empty((n_out, 9))
        est = expected_steps(pendulum, float(np.linalg.norm(omega0)), t_final)
        check_predicted_steps(dop853_run(_f.LP_ROW, p, rtol, atol), y0, t_final, budget, est, max_steps is not None,
                              what="DOP853")
        st = integrate_chunked(_f.LP_ROW, y0, t_final, n_out, p, rtol, atol, budget, Y, est)
        _v.raise_for_status(st[3], "DOP853", t=t_final * (int(st[4]) - 1) / (n_out - 1), t_final=t_final,
                            budget=budget)
        Gamma = Y[:, 0:3].copy()
        W = Y[:, 3:6].copy()
        R = attitude_from_rows(Y[:, 6:9], Gamma)
        stats = {"n_steps": int(st[0]), "n_rejected": int(st[1]), "nfev": int(st[2]), "rtol": rtol,
                 "atol": atol}
    wall = time.perf_counter() - t0
    inv = np.empty((n_out, 2))
    Yinv = np.concatenate([Gamma, W], axis=1)
    _f.invariants_batch(_f.LP, Yinv, p, inv)
    t = np.linspace(0.0, t_final, n_out)
    stats["wall_time"] = wall
    stats["orthogonality_error"] = float(orthogonality_errors(R).max())
    traj = Trajectory(pendulum, t, R, W, Gamma, inv[:, 0].copy(), inv[:, 1].copy(), method, stats)
    check_conservation(traj, method.upper())
    if method == "lgvi":  # no tolerance; a fixed step that the body's rotation limits through the Newton solve
        report_drift(traj, None, "LGVI")
    else:  # DOP853 is of order 8; the step of both is steered by Gamma and omega only
        report_drift(traj, tol if method == "taylor" else rtol + atol, method.upper(),
                     _taylor.order_for(tol) if method == "taylor" else 8)
    return traj
