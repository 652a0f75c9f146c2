"""The integrators as objects: :class:`DOP853`, :class:`Taylor` and :class:`LGVI`.

Each owns its options (validated when it is made), the kernels it drives and how to read their statistics:
``simulate(pendulum, R0, omega0, T, method=DOP853(rtol=1e-12))`` and ``PoincareMap(level, Taylor())`` take one
(the strings ``"dop853"``, ``"taylor"``, ``"lgvi"`` remain shorthands, :func:`integrator`).  The kernels'
status codes are declared once (:mod:`._core.status`); :func:`._validate.raise_for_status` is the one place a
failed status becomes an exception.

* :class:`LGVI` — the Lie group variational integrator of the paper's ref [13] on the full model (Eqs 1-2),
  fixed step ``dt``: R stays on SO(3) to round-off, mu is conserved to round-off, the energy error stays bounded.
* :class:`DOP853` — adaptive Dormand-Prince 8(5,3) on the Lagrange-Poincaré model (Eqs 31-32), carrying the
  first row of R along (Eq 2; it does not steer the step, so Gamma and omega are those of the 6-dim LP kernel to
  the bit), 7th-order dense output at the output times; R is rebuilt from that row and Gamma
  (:func:`attitude_from_rows`).  Section crossings by dense-output root finding and polishing.
* :class:`Taylor` — adaptive high-order Taylor method (:mod:`._core.taylor`) on the LP model in principal axes;
  tolerance ``tol`` (default: double round-off), order and step from Jorba & Zou (2005).

Long runs go to the kernels in pieces of about ``CHUNK_STEPS`` steps (:func:`run_chunked`), so Ctrl-C stops them
within about a second.
"""
from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from . import _validate as _v
from ._core import damped as _damped
from ._core import dop853 as _dop
from ._core import fields as _f
from ._core import so3 as _so3
from ._core import status as _st
from ._core import taylor as _taylor
from ._core.lgvi import integrate_lgvi
from .bodies import Pendulum
from .bounds import BOUNDS
from .crossing_tasks import CHUNK_STEPS as CHUNK_STEPS
from .crossing_tasks import TAYLOR_CHUNK_DIVISOR as TAYLOR_CHUNK_DIVISOR
from .crossing_tasks import _run_chunk, _run_chunk_taylor, _run_chunk_taylor_lanes  # noqa: F401
from .errors import IntegrationFailedError, InvalidIntegrationError

#: maximum number of stored output rows / fixed steps accepted before refusing (memory guard)
MAX_OUTPUT_ROWS = int(BOUNDS["n_out"].high)
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
#: relative energy / |Gamma| error above which a returned motion is refused as garbage
CONSERVATION_RTOL = 1e-2
#: shortest time span accepted [s] (below it the step-size control underflows)
MIN_SPAN = BOUNDS["t_final"].low
#: largest accepted |omega0| entry [rad/s] (beyond it no integration can finish)
MAX_OMEGA = BOUNDS["omega0"].high
METHODS = ("dop853", "lgvi", "taylor")
#: default tolerance of the Taylor method: double-precision round-off (as heyoka's default)
TAYLOR_TOL = float(np.finfo(float).eps)
TAYLOR_TOL_RANGE = BOUNDS["taylor_tol"].range()


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
    if not R.flags.writeable:  # results are read-only: a copy keeps the kernel at one compiled signature
        R = R.copy()
    out = np.empty(R.shape[0])
    _so3.orthogonality_errors(R, out)
    return out


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
    if st[3] == _st.MAX_STEPS:  # the pilot's own cap: at least this many steps per t_pilot
        used = cap
    elif st[3] != _st.OK:
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
        return np.asarray(_dop.integrate_uniform(model, y, span, rows, p, rtol, atol, left, out))
    return run




def damped_run(p: NDArray[np.float64], rtol: float, atol: float) -> Runner:
    """:func:`_core.damped.integrate_uniform_damped` with its parameters bound (as :func:`dop853_run`)."""
    return lambda y, span, rows, left, out: np.asarray(
        _damped.integrate_uniform_damped(y, span, rows, p, rtol, atol, left, out))


def run_chunked(run: Runner,
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
        if st[3] != _st.OK:
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
    tot[3] = _st.OK
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


# ------------------------------------------------------------------------------------------------
# the integrator objects
# ------------------------------------------------------------------------------------------------
#: what :meth:`Integrator.integrate` returns: attitudes (n, 3, 3), omega (n, 3), Gamma (n, 3) and statistics
Motion = tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64], dict[str, Any]]


@dataclass(frozen=True)
class CrossingRunner:
    """How one integrator computes section crossings on a level: a module-level (picklable) task
    ``fn(Y0, *args, n, t_max, max_gap, max_steps, stop=None) -> (Gamma, omega, Gammadot, t, info)`` for a chunk of
    seeds ``Y0`` (m, 6), and the names of its info row's counters.  ``many``, when given, is the same task for
    chunks of many seeds (a batch: the lanes), ``fn`` the one for a single trajectory."""

    fn: Callable[..., Any]
    args: tuple[Any, ...]
    #: names of the info row's three counters (columns ``I_COUNT_A`` ... ``I_COUNT_C``)
    counters: tuple[str, str, str] = ("n_accepted", "n_rejected", "n_rhs")
    many: Callable[..., Any] | None = None
    #: seeds a ``many`` task advances at once (its lanes): a batch's chunks hold several lane groups each
    many_width: int = 1

    def default_chunks(self, m: int, own_pool: bool, n_threads: int) -> int:
        """Chunks of a batch of ``m`` seeds: on the process's pool (``n_threads``) 4 per thread (so a slow chunk does not hold up
        the rest), but with lanes at least 4 lane groups per chunk (a chunk of 8 seeds in 8 lanes idles most of
        them at its end: 60 seeds in 8 chunks ran at 0.63x the crossings per CPU second of one chunk) and still
        one chunk per thread; on another executor at most 8."""
        if not own_pool:
            return min(m, 8)
        if self.many is None or self.many_width <= 1:
            return min(m, 4 * n_threads)
        return max(1, min(m, 4 * n_threads, max(n_threads, m // (4 * self.many_width))))

    def task(self, n: int, t_max: float, max_gap: float, max_steps: int,
             many: bool = False) -> tuple[Callable[..., Any], tuple[Any, ...]]:
        """``(fn, args)`` to submit for a chunk: ``fn(Y0, *args)`` (``many``: for a batch of seeds)."""
        fn = self.many if many and self.many is not None else self.fn
        return fn, (*self.args, n, t_max, max_gap, max_steps)

    @staticmethod
    def found(info: NDArray[np.int64]) -> NDArray[np.int64]:
        """Crossings found, per row of an info array (m, N_INFO) (or of one row)."""
        return np.asarray(info[..., _st.I_FOUND])

    @staticmethod
    def status(info: NDArray[np.int64]) -> str:
        """The status label of one info row (``"ok"``, ``"no_crossing"``, ...)."""
        return _v.Status(int(info[_st.I_STATUS])).label

    def stats(self, info: NDArray[np.int64]) -> dict[str, int]:
        """The counters of one info row by name."""
        return {k: int(info[_st.I_COUNT_A + i]) for i, k in enumerate(self.counters)}

    @staticmethod
    def counter_columns(info: NDArray[np.int64]) -> NDArray[np.int64]:
        """The three counters of every row (m, 3)."""
        return np.asarray(info[:, _st.I_COUNT_A:_st.I_COUNT_C + 1]).copy()


class Integrator:
    """The interface of :class:`DOP853`, :class:`Taylor` and :class:`LGVI`."""

    name: ClassVar[str]
    #: the name in messages
    label: ClassVar[str]

    @property
    def drift_tol(self) -> float | None:
        """The per-step tolerance the invariants' drift is measured against (None: no tolerance, round-off)."""
        return None

    def integrate(self, pendulum: Pendulum, R0: NDArray[np.float64], omega0: NDArray[np.float64], t_final: float,
                  n_out: int, max_steps: int | None) -> Motion:
        """The motion from ``(R0, omega0)`` (validated) at ``n_out`` times evenly spaced over ``[0, t_final]``."""
        raise NotImplementedError

    def crossing_runner(self, pendulum: Pendulum, p: NDArray[np.float64]) -> CrossingRunner:
        """The crossing task of this integrator for ``pendulum`` at the parameters ``p`` (``params(mu)``)."""
        raise InvalidIntegrationError(
            f"method {self.name!r} does not compute section crossings; use DOP853 or Taylor")


@dataclass(frozen=True)
class DOP853(Integrator):
    """Adaptive Dormand-Prince 8(5,3) with relative and absolute tolerances ``rtol`` in [1e-15, 1e-3] and
    ``atol`` in [1e-18, 1e-3]; ``damping`` c >= 0 [N m s]: a viscous torque ``-c omega`` at the pivot, OUTSIDE the
    paper's (conservative) model, ``dE/dt = -c omega^T omega`` (:mod:`._core.damped`; 0: the paper's pendulum)."""

    rtol: float = 1e-10
    atol: float = 1e-12
    damping: float = 0.0
    name: ClassVar[str] = "dop853"
    label: ClassVar[str] = "DOP853"

    @property
    def drift_tol(self) -> float | None:
        return self.rtol + self.atol

    def __post_init__(self) -> None:
        rtol, atol = _v.tolerances(self.rtol, self.atol)
        object.__setattr__(self, "rtol", rtol)
        object.__setattr__(self, "atol", atol)
        object.__setattr__(self, "damping", BOUNDS["damping"].check(self.damping, name="damping",
                                                                     exc=InvalidIntegrationError))

    def integrate(self, pendulum: Pendulum, R0: NDArray[np.float64], omega0: NDArray[np.float64], t_final: float,
                  n_out: int, max_steps: int | None) -> Motion:
        budget = step_budget(pendulum, float(np.linalg.norm(omega0)), t_final, max_steps)
        # Gamma, omega and the first row of R (Eq 2): R^T e1; its stages ride along the LP step
        y0 = np.concatenate([R0[2, :], omega0, R0[0, :]])
        est = expected_steps(pendulum, float(np.linalg.norm(omega0)), t_final)
        p = pendulum.params()
        run = dop853_run(_f.LP_ROW, p, self.rtol, self.atol)
        if self.damping > 0.0:  # the damped kernel, with the dissipated work as a tenth component
            y0, run = np.concatenate([y0, [0.0]]), damped_run(_damped.damped_params(p, self.damping), self.rtol,
                                                              self.atol)
        Y = np.empty((n_out, len(y0)))
        check_predicted_steps(run, y0, t_final, budget, est, max_steps is not None, what=self.label)
        st = run_chunked(run, y0, t_final, n_out, budget, Y, est)
        _v.raise_for_status(st[3], self.label, t=t_final * (int(st[4]) - 1) / (n_out - 1), t_final=t_final,
                            budget=budget)
        Gamma = Y[:, 0:3].copy()
        W = Y[:, 3:6].copy()
        R = attitude_from_rows(Y[:, 6:9], Gamma)
        stats: dict[str, Any] = {"n_steps": int(st[0]), "n_rejected": int(st[1]), "nfev": int(st[2]),
                                 "rtol": self.rtol, "atol": self.atol}
        if self.damping > 0.0:
            stats["damping"] = self.damping
            stats["dissipated"] = Y[:, 9].copy()  # the work of the damping torque since t = 0 [J]
        return R, W, Gamma, stats

    def crossing_runner(self, pendulum: Pendulum, p: NDArray[np.float64]) -> CrossingRunner:
        if self.damping > 0.0:
            raise InvalidIntegrationError(f"damping = {self.damping:g}: a damped motion has no energy level, so no "
                                          f"Poincaré section; use DOP853 without damping for sections")
        return CrossingRunner(_run_chunk, (p, self.rtol, self.atol))


@dataclass(frozen=True)
class Taylor(Integrator):
    """Adaptive Taylor method with absolute and relative tolerance ``tol`` in [1e-18, 1e-4] (default ``None``:
    machine epsilon 2.2e-16); it sets the order ``ceil(-ln(tol)/2 + 1)`` (20 by default) and the step."""

    tol: float | None = None
    name: ClassVar[str] = "taylor"
    label: ClassVar[str] = "Taylor"

    def __post_init__(self) -> None:
        object.__setattr__(self, "tol", validate_taylor_tol(self.tol))

    @property
    def drift_tol(self) -> float | None:
        return self.tol

    @property
    def order(self) -> int:
        """The order of the Taylor series."""
        return int(_taylor.order_for(self.tol))

    def integrate(self, pendulum: Pendulum, R0: NDArray[np.float64], omega0: NDArray[np.float64], t_final: float,
                  n_out: int, max_steps: int | None) -> Motion:
        budget = step_budget(pendulum, float(np.linalg.norm(omega0)), t_final, max_steps)
        q, Q = taylor_frame(pendulum)
        # principal frame: vectors v' = Q^T v, attitude R' = R Q (rows r_i' = Q^T r_i)
        y0 = np.concatenate([Q.T @ R0[2, :], Q.T @ omega0, (R0 @ Q).ravel()])
        rotated = not np.array_equal(Q, np.eye(3))
        Y = np.empty((n_out, 15))
        info = np.empty(2)
        order = self.order

        def run(y: NDArray[np.float64], span: float, rows: int, left: int,
                out: NDArray[np.float64]) -> NDArray[np.int64]:
            return np.asarray(_taylor.integrate_uniform_taylor(y, span, rows, q, order, left, out, info))
        est = expected_steps(pendulum, float(np.linalg.norm(omega0)), t_final) / TAYLOR_STEP_RATIO
        check_predicted_steps(run, y0, t_final, budget, est, max_steps is not None, what="the Taylor integration")
        st = run_chunked(run, y0, t_final, n_out, budget, Y, est, CHUNK_STEPS // TAYLOR_CHUNK_DIVISOR)
        _v.raise_for_status(st[3], self.label, t=t_final * (int(st[4]) - 1) / (n_out - 1), t_final=t_final,
                            budget=budget)
        if rotated:  # one (3 n_out x 3) product, not n_out small ones
            R = (Y[:, 6:15].reshape(3 * n_out, 3) @ Q.T).reshape(n_out, 3, 3)
            W = Y[:, 3:6] @ Q.T
        else:  # principal axes are the body axes: the kernel's rows are the result
            R = np.ascontiguousarray(Y[:, 6:15]).reshape(n_out, 3, 3)
            W = np.ascontiguousarray(Y[:, 3:6])
        Gamma = np.ascontiguousarray(R[:, 2, :])  # Gamma = R^T e3
        stats = {"n_steps": int(st[0]), "order": order, "mean_step": t_final / max(int(st[0]), 1), "tol": self.tol}
        return R, W, Gamma, stats

    def crossing_runner(self, pendulum: Pendulum, p: NDArray[np.float64]) -> CrossingRunner:
        q, Q = taylor_frame(pendulum)
        c = np.ascontiguousarray(Q.T @ np.array([0.0, 0.0, 1.0]))
        # info counters of the Taylor kernel: steps, 0, series orders summed (reported under the DOP853 names)
        from ._core.taylor_lanes import LANES
        return CrossingRunner(_run_chunk_taylor, (q, Q, c, self.order), many=_run_chunk_taylor_lanes, many_width=LANES)


@dataclass(frozen=True)
class LGVI(Integrator):
    """The Lie group variational integrator (Cayley/Newton form) with the fixed step ``dt`` > 0 [s]; it is
    shortened so that a whole number of steps falls between outputs."""

    dt: float = 1e-3
    name: ClassVar[str] = "lgvi"
    label: ClassVar[str] = "LGVI"

    def __post_init__(self) -> None:
        object.__setattr__(self, "dt", _v.positive("dt", self.dt))

    def integrate(self, pendulum: Pendulum, R0: NDArray[np.float64], omega0: NDArray[np.float64], t_final: float,
                  n_out: int, max_steps: int | None) -> Motion:
        stride = max(1, int(np.ceil(t_final / (n_out - 1) / self.dt - 1e-9)))
        n_steps = stride * (n_out - 1)
        if n_steps > MAX_FIXED_STEPS:
            raise InvalidIntegrationError(
                f"t_final/dt = {t_final / self.dt:.3g} steps exceeds the limit of {MAX_FIXED_STEPS:.3g}; "
                f"increase dt or reduce t_final")
        h = t_final / n_steps
        R = np.empty((n_out, 3, 3))
        W = np.empty((n_out, 3))
        st = lgvi_chunked(R0, omega0, h, stride, pendulum.params(), R, W)
        if st[3] != 0:
            raise IntegrationFailedError(
                f"LGVI: the implicit step equation has no solution at step {int(st[3])} (t = {st[3] * h:.4g} s) "
                f"with dt = {h:.4g} s; the body turns too far in one step: reduce dt")
        Gamma = np.ascontiguousarray(R[:, 2, :])
        stats = {"n_steps": int(st[0]), "dt": h, "newton_iterations": int(st[1]),
                 "max_newton_iterations": int(st[2])}
        return R, W, Gamma, stats


def integrator(method: str | Integrator, *, dt: float | None = None, rtol: float = 1e-10, atol: float = 1e-12,
               tol: float | None = None, damping: float = 0.0) -> Integrator:
    """The integrator object of ``method``: an :class:`Integrator` as it is, or a name of :data:`METHODS` made with
    the flat options (``dt`` for LGVI, whose tolerances are checked as well; ``tol`` for Taylor; ``rtol``,
    ``atol`` and ``damping`` for DOP853: LGVI and Taylor refuse a damping other than 0 by name, as does a DOP853
    object with another damping of its own)."""
    c = BOUNDS["damping"].check(damping, name="damping", exc=InvalidIntegrationError)
    name = method.name if isinstance(method, Integrator) else _v.choice("method", method, METHODS)
    if c != 0.0 and name != "dop853":
        raise InvalidIntegrationError(
            f"damping = {c:g} N m s: method {name!r} is a conservative integrator and integrates the paper's undamped "
            f"pendulum only; use method='dop853' for a damped motion (a viscous torque -c omega, outside the paper's "
            f"model), or damping=0")
    if isinstance(method, Integrator):
        if c != 0.0 and isinstance(method, DOP853):
            if method.damping not in (0.0, c):
                raise InvalidIntegrationError(f"damping = {c:g} differs from the integrator's own damping = "
                                              f"{method.damping:g}; give it once")
            return DOP853(method.rtol, method.atol, c)
        return method
    if name == "lgvi":
        made: Integrator = LGVI(1e-3 if dt is None else dt)
        _v.tolerances(rtol, atol)  # not used by LGVI, but checked like every argument
        return made
    if name == "taylor":
        return Taylor(tol)
    return DOP853(rtol, atol, c)
