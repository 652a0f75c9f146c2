"""The one validation path of the public API: argument checks with one tolerance policy, the size of the work,
and the kernels' status codes turned into exceptions that say what to change.

Every public function of the model/analysis layer checks *all* its arguments here before it allocates an
array or calls a kernel.  Each checker takes the argument's ``name`` (used in every message, together with
the valid range and the value received) and returns the value in canonical form (a ``float``, an ``int``, a
new float64 array).  Errors are :class:`~pendulum_explorer.errors.PendulumError` subclasses (all
``ValueError``), except a wrong *type* of object (not a Pendulum, not a number at all), which is a
``TypeError`` where the existing API already said so.

Tolerance policy (one for the whole package)
--------------------------------------------
``UNIT_TOL = 1e-6``: a unit vector, a rotation matrix and a tangency condition are accepted when they hold to
``UNIT_TOL`` (relative), and are then made exact (normalised, orthonormalised, projected).  Values that the
package itself returns (an integrated Gamma drifts ~1e-9 from the sphere over a long run) are therefore
accepted back as input, and the kernels always receive exact unit vectors and rotations.

Integration tolerances: ``rtol`` in ``RTOL_RANGE`` = [1e-15, 1e-3], ``atol`` in ``ATOL_RANGE`` = [1e-18, 1e-3].
Outside them DOP853 either cannot deliver (below: the step size underflows or the step budget runs out) or
delivers garbage (``atol = 1`` lets |Gamma| grow to 300).

Work limits
-----------
``MAX_RESULT_BYTES`` (1 GiB) bounds the memory of one request's result arrays; ``MAX_STEPS`` (5e7) bounds the
steps of one integration (~1 min of kernel time); :func:`work` checks an estimate against both.

Status codes
------------
:class:`Status` names the integer codes of the kernels (``_core.dop853``, ``_core.section``);
:func:`raise_for_status` turns a failed status into an :class:`~pendulum_explorer.errors.IntegrationFailedError`
whose message says what happened and what to change.
"""
from __future__ import annotations

import enum
import math
import numbers
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ._core import status as _st
from .bounds import BOUNDS
from .errors import (
    IntegrationFailedError,
    InvalidIntegrationError,
    InvalidStateError,
    NonFiniteError,
    PendulumError,
    ShapeError,
)

UNIT_TOL = BOUNDS["unit_tol"].high
RTOL_RANGE = BOUNDS["rtol"].range()
ATOL_RANGE = BOUNDS["atol"].range()
MAX_RESULT_BYTES = int(BOUNDS["result_bytes"].high)
MAX_STEPS = int(BOUNDS["max_steps"].high)

__all__ = [
    "UNIT_TOL", "RTOL_RANGE", "ATOL_RANGE", "MAX_RESULT_BYTES", "MAX_STEPS",
    "PendulumBase", "check_pendulum", "real", "real_array", "positive", "integer", "choice", "array", "unit_vector", "tangent_vector",
    "rotation", "frozen", "tolerances", "time_span", "max_steps", "result_memory", "total_time", "callback", "Status", "raise_for_status", "finite_result",
]


# ------------------------------------------------------------------------------------------------
# objects and scalars
# ------------------------------------------------------------------------------------------------
class PendulumBase:
    """Base class of :class:`~pendulum_explorer.Pendulum`, defined here so that :func:`check_pendulum` needs no
    import of :mod:`pendulum_explorer.bodies` (which imports this module)."""

    __slots__ = ()


def check_pendulum(pendulum: Any, name: str = "pendulum") -> Any:
    """Return ``pendulum`` if it is a :class:`~pendulum_explorer.Pendulum`, else raise ``TypeError`` (a
    :class:`~pendulum_explorer.Body` is refused with a hint to pass ``body.pendulum``)."""
    if isinstance(pendulum, PendulumBase):
        return pendulum
    hint = f" (pass {name}.pendulum for a Body)" if isinstance(getattr(pendulum, "pendulum", None), PendulumBase) \
        else " (use preset.pendulum for a Body)"
    raise TypeError(f"{name} must be a Pendulum{hint}; got {type(pendulum).__name__}")


def _range_text(low: float | None, high: float | None, low_open: bool, high_open: bool) -> str:
    if low is None and high is None:
        return "finite"
    if high is None:
        return f"{'>' if low_open else '>='} {low:g}"
    if low is None:
        return f"{'<' if high_open else '<='} {high:g}"
    return f"in {'(' if low_open else '['}{low:g}, {high:g}{')' if high_open else ']'}"


def real(name: str, value: Any, *, exc: type[PendulumError] = InvalidStateError, low: float | None = None,
         high: float | None = None, low_open: bool = False, high_open: bool = False,
         nonfinite_exc: type[PendulumError] | None = None) -> float:
    """``value`` as a finite Python float, optionally within ``[low, high]`` (``low_open``/``high_open``
    exclude the end).  Refuses bool, complex, strings and non-numbers (``exc``), NaN and +-inf
    (``nonfinite_exc``, default ``exc``) and values out of range (``exc``); every message names ``name``."""
    rng = _range_text(low, high, low_open, high_open)
    if isinstance(value, (bool, np.bool_, str, bytes)) or value is None:
        raise exc(f"{name} must be a real number ({rng}); got {value!r}")
    if not isinstance(value, numbers.Real):
        a = None if isinstance(value, complex) else np.asarray(value)
        if a is None or a.shape != () or a.dtype.kind not in "iuf":
            raise exc(f"{name} must be a real number ({rng}); got {value!r}")
        value = a.item()
    try:
        v = float(value)
    except OverflowError:  # a Python int beyond the float range
        v = math.inf if value > 0 else -math.inf
    want = f"{name} must be finite" + ("" if rng == "finite" else f" and {rng}")
    if not math.isfinite(v):
        raise (nonfinite_exc or exc)(f"{want}; got {v!r}")
    if (low is not None and (v < low or (low_open and v == low))) or \
            (high is not None and (v > high or (high_open and v == high))):
        raise exc(f"{want}; got {v!r}")
    return v


def positive(name: str, value: Any, *, exc: type[PendulumError] = InvalidIntegrationError,
             high: float | None = None, nonfinite_exc: type[PendulumError] | None = None) -> float:
    """A finite float > 0 (and <= ``high`` when given)."""
    return real(name, value, exc=exc, low=0.0, low_open=True, high=high, nonfinite_exc=nonfinite_exc)


def integer(name: str, value: Any, *, low: int = 1, high: int | None = None,
            exc: type[PendulumError] = InvalidIntegrationError) -> int:
    """``value`` as a Python int in ``[low, high]``.  Integral floats (``100.0``) are accepted; bool, NaN,
    fractions and non-numbers are refused with ``exc`` naming ``name``."""
    rng = f"in [{low}, {high}]" if high is not None else f">= {low}"
    want = f"{name} must be an integer {rng}"
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (numbers.Real, np.ndarray)):
        raise exc(f"{want}; got {value!r}")
    if isinstance(value, numbers.Integral):
        v = int(value)
    else:
        a = np.asarray(value)
        if a.shape != () or a.dtype.kind not in "iuf":
            raise exc(f"{want}; got {value!r}")
        f = float(a)
        if not (math.isfinite(f) and f == math.floor(f)):
            raise exc(f"{want}; got {value!r}")
        if abs(f) > 2.0 ** 62:
            raise exc(f"{want}; got {value!r}")
        v = int(f)
    if v < low or (high is not None and v > high):
        raise exc(f"{want}; got {v}")
    return v


def choice(name: str, value: Any, options: tuple[str, ...], *,
           exc: type[PendulumError] = InvalidIntegrationError) -> str:
    """``value`` (case-insensitive string) as one of ``options``."""
    if isinstance(value, str) and value.lower() in options:
        return value.lower()
    raise exc(f"{name} must be one of {', '.join(repr(o) for o in options)}; got {value!r}")


# ------------------------------------------------------------------------------------------------
# arrays, unit vectors, rotations
# ------------------------------------------------------------------------------------------------
def array(name: str, value: Any, shape: tuple[int, ...], *, exc: type[PendulumError] = InvalidStateError,
          shape_exc: type[PendulumError] = ShapeError, max_abs: float | None = None) -> NDArray[np.float64]:
    """A new float64 array of exactly ``shape`` with finite entries (``|x| <= max_abs`` when given).

    Wrong shape or a non-numeric/complex value: ``shape_exc``; NaN, inf or too large: ``exc``.
    """
    if isinstance(value, (str, bytes)) or value is None:
        raise shape_exc(f"{name} must be a numeric (real) array of shape {shape}; got {value!r}")
    try:
        raw = np.asarray(value)
    except (TypeError, ValueError) as err:  # ragged nested sequences
        raise shape_exc(f"{name} must be a numeric (real) array of shape {shape}; got {value!r}") from err
    if raw.dtype.kind not in "biuf" or raw.dtype.kind == "b":
        raise shape_exc(f"{name} must be a numeric (real) array of shape {shape}; got dtype {raw.dtype} "
                        f"({'complex values are refused' if raw.dtype.kind == 'c' else repr(value)})")
    if raw.shape != shape:
        raise shape_exc(f"{name} must have shape {shape}; got shape {raw.shape}")
    a = np.array(raw, dtype=np.float64)
    if not np.all(np.isfinite(a)):
        raise exc(f"{name} must be finite; got {a.tolist()}")
    if max_abs is not None and a.size and np.abs(a).max() > max_abs:
        raise exc(f"{name} must have entries of magnitude <= {max_abs:g}; got max |{name}| = {np.abs(a).max():.3g}")
    return a


def real_array(name: str, value: Any, *, trailing: tuple[int, ...] = (), max_size: int = 10_000_000,
               exc: type[PendulumError] = InvalidStateError,
               shape_exc: type[PendulumError] = ShapeError) -> NDArray[np.float64]:
    """A new float64 array of any shape ending in ``trailing`` (e.g. ``(3,)`` for stacks of vectors), at most
    ``max_size`` entries, all finite.  Non-numeric/complex or wrong trailing shape: ``shape_exc``; NaN/inf:
    ``exc``."""
    if isinstance(value, (str, bytes)) or value is None:
        raise shape_exc(f"{name} must be a numeric (real) array of shape (..., {', '.join(map(str, trailing))}); "
                        f"got {value!r}")
    try:
        raw = np.asarray(value)
    except (TypeError, ValueError) as err:
        raise shape_exc(f"{name} must be a numeric (real) array; got {value!r}") from err
    if raw.dtype.kind not in "iuf":
        raise shape_exc(f"{name} must be a numeric (real) array; got dtype {raw.dtype}")
    if trailing and raw.shape[-len(trailing):] != trailing:
        raise shape_exc(f"{name} must have shape (..., {', '.join(map(str, trailing))}); got shape {raw.shape}")
    if raw.size > max_size:
        raise shape_exc(f"{name} has {raw.size} entries, above the limit of {max_size}")
    a = np.array(raw, dtype=np.float64)
    if not np.all(np.isfinite(a)):
        raise exc(f"{name} must be finite")
    return a


def unit_vector(name: str, value: Any, *, exc: type[PendulumError] = InvalidStateError) -> NDArray[np.float64]:
    """A 3-vector with ``| |v| - 1 | <= UNIT_TOL``, returned normalised."""
    v = array(name, value, (3,), exc=exc)
    n = float(np.linalg.norm(v))
    if not abs(n - 1.0) <= UNIT_TOL:
        raise exc(f"{name} must be a unit vector (| |{name}| - 1 | <= {UNIT_TOL:g}); got |{name}| = {n!r}")
    return v / n if n != 1.0 else v


def tangent_vector(name: str, value: Any, at: NDArray[np.float64], at_name: str, *,
                   exc: type[PendulumError] = InvalidStateError, max_abs: float | None = None) -> NDArray[np.float64]:
    """A 3-vector tangent to the unit sphere at the unit vector ``at`` (``|at . v| <= UNIT_TOL max(1, |v|)``),
    returned with its normal component removed."""
    v = array(name, value, (3,), exc=exc, max_abs=max_abs)
    d = float(at @ v)
    if abs(d) > UNIT_TOL * max(1.0, float(np.linalg.norm(v))):
        raise exc(f"{name} must be tangent to the sphere at {at_name} ({at_name} . {name} = 0 to {UNIT_TOL:g}); "
                  f"got {at_name} . {name} = {d:.3g}")
    return v - d * at if d != 0.0 else v


def rotation(name: str, value: Any, *, exc: type[PendulumError] = InvalidStateError) -> NDArray[np.float64]:
    """A 3x3 rotation matrix (``R^T R = I`` to ``UNIT_TOL``, ``det R = +1``), returned exactly orthonormal
    (its polar factor) when it is not already orthonormal to rounding."""
    R = array(name, value, (3, 3), exc=exc)
    err = float(np.abs(R.T @ R - np.eye(3)).max())
    det = float(np.linalg.det(R))
    if err > UNIT_TOL or det <= 0:
        raise exc(f"{name} must be a rotation matrix (R^T R = I to {UNIT_TOL:g}, det R = +1); got "
                  f"max|R^T R - I| = {err:.3g}, det R = {det:.6g}")
    if err > 4e-16:
        U, _, Vt = np.linalg.svd(R)
        R = U @ Vt
    return R


def frozen(a: NDArray[Any]) -> NDArray[Any]:
    """A read-only copy of ``a`` whose memory is an immutable ``bytes`` object: unlike ``setflags(write=False)``
    on an array that owns its data, its ``WRITEABLE`` flag cannot be turned back on."""
    a = np.ascontiguousarray(a)
    return np.frombuffer(a.tobytes(), dtype=a.dtype).reshape(a.shape)


# ------------------------------------------------------------------------------------------------
# integration settings and the size of the work
# ------------------------------------------------------------------------------------------------
def tolerances(rtol: Any, atol: Any) -> tuple[float, float]:
    """DOP853 tolerances within ``RTOL_RANGE`` and ``ATOL_RANGE`` (see the module docstring)."""
    r = real("rtol", rtol, exc=InvalidIntegrationError, low=RTOL_RANGE[0], high=RTOL_RANGE[1])
    a = real("atol", atol, exc=InvalidIntegrationError, low=ATOL_RANGE[0], high=ATOL_RANGE[1])
    return r, a


def time_span(name: str, value: Any, shortest: float = 1e-9) -> float:
    """A time span [s]: finite, > 0, and at least ``shortest`` (below it the step-size control underflows)."""
    t = real(name, value, exc=InvalidIntegrationError, low=0.0, low_open=True)
    if t < shortest:
        raise InvalidIntegrationError(f"{name} must be >= {shortest:g} s; got {t!r}")
    return t


def max_steps(value: Any, name: str = "max_steps") -> int:
    """A step budget in ``[1, MAX_STEPS]``."""
    return integer(name, value, low=1, high=MAX_STEPS)


def result_memory(n_floats: float, what: str, fix: str) -> None:
    """Refuse a request whose result arrays would hold more than ``MAX_RESULT_BYTES`` (``n_floats`` float64
    values); ``what`` names the request, ``fix`` the argument to reduce."""
    nbytes = 8.0 * float(n_floats)
    if not nbytes <= MAX_RESULT_BYTES:
        raise InvalidIntegrationError(
            f"{what} would need {nbytes / 2 ** 30:.3g} GiB for its results, above the limit of "
            f"{MAX_RESULT_BYTES / 2 ** 30:g} GiB; {fix}")


def callback(name: str, value: Any) -> Any:
    """``value`` if it is None or callable (a ``progress`` callback), else TypeError naming ``name``: checked before
    the work, not at the first call after it."""
    if value is not None and not callable(value):
        raise TypeError(f"{name} must be a callable or None; got {type(value).__name__} {value!r:.60}")
    return value


def total_time(n: int, t: float, what: str, fix: str) -> None:
    """Refuse a request that integrates more motion in all than ``BOUNDS["integrated_time"]`` allows: ``n``
    trajectories (or cells) of ``t`` seconds each; ``what`` names the request, ``fix`` what to reduce."""
    b = BOUNDS["integrated_time"]
    total = float(n) * float(t)
    if not total <= b.high:
        raise InvalidIntegrationError(
            f"{what} would integrate {total:.3g} s of motion in all ({n} x {t:g} s), above the limit of "
            f"{b.high:g} s ({b.why}); {fix}")


# ------------------------------------------------------------------------------------------------
# kernel status codes
# ------------------------------------------------------------------------------------------------
class Status(enum.IntEnum):
    """Status codes of the integration kernels (declared once, in ``_core.status``).

    ``Status(code).label`` is the string a :class:`~pendulum_explorer.poincare.Crossings` reports.
    """

    OK = _st.OK
    MAX_STEPS = _st.MAX_STEPS
    STEP_TOO_SMALL = _st.STEP_TOO_SMALL
    NON_FINITE = _st.NON_FINITE
    MAX_TIME = _st.MAX_TIME
    NO_CROSSING = _st.NO_CROSSING

    @property
    def label(self) -> str:
        return self.name.lower()


def raise_for_status(status: int, what: str, *, t: float | None = None, t_final: float | None = None,
                     budget: int | None = None) -> None:
    """Do nothing for :attr:`Status.OK`; otherwise raise :class:`IntegrationFailedError` saying what
    happened to ``what`` (e.g. ``"DOP853 on the Lagrange-Poincare model"``) and what to change."""
    st = Status(int(status))
    if st == Status.OK:
        return
    when = f" at t = {t:.6g} s" if t is not None else ""
    goal = f" before t_final = {t_final:g} s" if t_final is not None else ""
    if st == Status.MAX_STEPS:
        msg = (f"the step limit max_steps = {budget} was reached{when}; this motion needs more steps: raise "
               f"max_steps, shorten the time span, or loosen rtol/atol (a fast motion, large omega, needs many)")
    elif st == Status.STEP_TOO_SMALL:
        msg = (f"the step size underflowed{when} (the tolerances cannot be met in double precision there): "
               f"loosen rtol/atol, or start from a slower state")
    elif st == Status.NON_FINITE:
        msg = (f"the state became infinite or NaN{when}: the motion overflowed double precision; use a smaller "
               f"initial angular velocity or smaller m, g, rho, or tighter tolerances")
    elif st == Status.MAX_TIME:
        msg = f"the time limit t_max was reached{when}: raise t_max"
    else:
        msg = f"no section crossing occurred for longer than max_gap{when}: raise max_gap"
    raise IntegrationFailedError(f"{what} stopped{goal}: {msg}")


def finite_result(name: str, values: NDArray[np.float64]) -> None:
    """Raise :class:`NonFiniteError` if a computed array holds NaN or inf (a result is never returned with
    them)."""
    if not np.all(np.isfinite(values)):
        raise NonFiniteError(f"{name} could not be computed in double precision (NaN or inf); the parameters "
                             f"are out of the representable range")
