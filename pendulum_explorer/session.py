"""Section sessions as files: the crossings of launched trajectories as CSV, and a loadable JSON session.

A *session* is a body, a section level (E, mu), a crossing count and the seeds of the launched trajectories;
loading it recomputes the crossings (the seeds and the level determine them).  Since version 2 it also holds the
level's chaos map and the periodic orbits found there (their values are stored: recomputing a map takes
minutes); files of version 1 load as before.  No widgets here: the dashboard's
section panel calls these functions, and so can a script::

    text = session_json(body, E, mu, 500, launches, chaos=cm, orbits=[po])   # launches: LaunchRecord objects
    s = parse_session(text)            # Session(body, E, mu, n_crossings, seeds, chaos, orbits)
"""
from __future__ import annotations

import csv
import io
import json
import logging
import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np
from numpy.typing import NDArray

from . import _validate as _v
from . import presets
from .bodies import Body, Pendulum, build_body, equivalent_body
from .errors import PendulumError
from .bounds import BOUNDS
from .session_schema import check_session
from .poincare import (MAX_CROSSINGS, MAX_MAP_TIME, MAX_RETURN_POWER, ChaosMap, PeriodicOrbit, PoincareSection,
                       chaos_grid, chart_from_sphere, orbit_kind, sphere_from_chart)

#: 2: the chaos map and the periodic orbits of the level (files of version 1 have neither and still load)
SESSION_VERSION = 2
APP = "pendulum_explorer"
#: the most trajectories a session file may hold (a file is user input: sizes are bounded)
MAX_SEEDS = int(BOUNDS["launches"].range(plausible=True)[1])
#: the most cells of a chaos map and the most periodic orbits a session file may hold, and its largest size
MAX_MAP_CELLS = int(BOUNDS["map_cells"].range(plausible=True)[1])
MAX_ORBITS = int(BOUNDS["orbits"].range(plausible=True)[1])
MAX_TEXT = int(BOUNDS["session_chars"].high)
#: lists and records ([ and {) a session file may hold: ~10 per launch or orbit, one per chaos-map row
MAX_CONTAINERS = 100_000
#: largest |value| of a stored chaos-map cell (MEGNO, or lambda in 1/s)
MAX_MAP_VALUE = 1e9
#: a stored map belongs to the file's level when its cells on the section agree with the level's but for this
#: share (cells at the boundary V_mu = E may flip by rounding on another machine)
MAP_MISMATCH = 0.01
CSV_COLUMNS = ["trajectory", "source", "body", "E", "mu", "k", "phi", "Gamma3", "Gamma1", "Gamma2"]

log = logging.getLogger("pendulum_explorer.session")


class LaunchRecord(Protocol):
    """What a launched trajectory offers to export (the dashboard's ``Launch``)."""

    id: int
    source: str
    body: str
    E: float
    mu: float
    Gamma0: NDArray[np.float64]
    omega0: NDArray[np.float64] | None
    crossings: NDArray[np.float64]  # (k, 3) Gamma at the crossings
    chart: NDArray[np.float64]  # (k, 2) (phi, Gamma_3) of the crossings


@dataclass
class SessionSeed:
    """One trajectory of a session: its LP seed ``(Gamma0, omega0)``, crossing count and origin."""

    Gamma0: NDArray[np.float64]
    omega0: NDArray[np.float64]
    n: int
    source: str = "load"


@dataclass
class Session:
    """A parsed session file (see :func:`parse_session`)."""

    body: Body
    E: float
    mu: float
    n_crossings: int
    seeds: list[SessionSeed] = field(default_factory=list)
    chaos: ChaosMap | None = None
    orbits: list[PeriodicOrbit] = field(default_factory=list)

    def seed_states(self) -> NDArray[np.float64]:
        """The seeds as LP states ``[Gamma0, omega0]`` (k, 6), in file order."""
        return np.array([np.concatenate([x.Gamma0, x.omega0]) for x in self.seeds], dtype=np.float64).reshape(-1, 6)

    def body_for(self, current: Body) -> Body:
        """The body to restore: ``current`` when the file's body is the same (name and pendulum), so that loading
        a session of the body in use does not count as a new body; else the file's body."""
        same = (self.body.pendulum, self.body.name) == (current.pendulum, current.name)
        return current if same else self.body


def crossings_csv(launches: Iterable[LaunchRecord]) -> str:
    """CSV of all crossings: trajectory id, source, body, E, mu, crossing index, phi, Gamma_3, Gamma_1, Gamma_2
    (numbers written with ``repr``: they read back bit for bit)."""
    buf = io.StringIO()
    wr = csv.writer(buf)
    wr.writerow(CSV_COLUMNS)
    for L in launches:
        G = np.asarray(L.crossings)
        for k in range(len(G)):
            wr.writerow([L.id, L.source, L.body, repr(L.E), repr(L.mu), k, repr(float(L.chart[k, 0])),
                         repr(float(G[k, 2])), repr(float(G[k, 0])), repr(float(G[k, 1]))])
    return buf.getvalue()


def session_json(body: Body, E: float | None, mu: float, n_crossings: int, launches: Iterable[LaunchRecord], *,
                 chaos: ChaosMap | None = None, orbits: Iterable[PeriodicOrbit] = ()) -> str:
    """The session as JSON: body (name, builder shape, J/rho/m/g), (E, mu), crossing count, the seeds, and the
    level's chaos map and periodic orbits (if any; see :func:`chaos_map_record`, :func:`orbit_record`)."""
    orbits = list(orbits)
    if not isinstance(body, Body):
        raise TypeError(f"body must be a Body (e.g. pe.presets.paper_fig1()); got {type(body).__name__}")
    if E is not None:
        E = float(BOUNDS["E"].check(E, name="E", exc=PendulumError))
    mu = float(BOUNDS["mu"].check(mu, name="mu", exc=PendulumError))
    n_crossings = int(BOUNDS["session_crossings"].check(n_crossings, name="n_crossings", exc=PendulumError))
    if chaos is not None and chaos.values.size > MAX_MAP_CELLS:
        raise PendulumError(f"chaos has {chaos.values.size} cells; a session file holds at most {MAX_MAP_CELLS}")
    if len(orbits) > MAX_ORBITS:
        raise PendulumError(f"orbits has {len(orbits)} periodic orbits; a session file holds at most {MAX_ORBITS}")
    d: dict[str, Any] = {
        "version": SESSION_VERSION, "app": APP,
        "body": {"name": body.name, "shape": body.shape, "pendulum": body.pendulum.to_dict()},
        "E": E, "mu": mu, "n_crossings": int(n_crossings),
        "launches": [{"id": L.id, "source": L.source, "E": L.E, "mu": L.mu, "Gamma0": np.asarray(L.Gamma0).tolist(),
                      "omega0": np.asarray(L.omega0).tolist(), "n": int(len(L.crossings))} for L in launches]}
    try:  # what parse_session would refuse is refused here, before a file is written that cannot be read back
        check_session(json.loads(json.dumps(d, allow_nan=False)))
    except PendulumError as e:
        raise PendulumError(f"this session cannot be saved: {e} (a session file holds what the dashboard's controls "
                            f"can set)") from None
    if chaos is not None:
        d["chaos_map"] = chaos_map_record(chaos)
    if orbits:
        d["periodic_orbits"] = [orbit_record(o) for o in orbits]
    return json.dumps(d, indent=1, allow_nan=False)


def _cells(a: NDArray[np.float64]) -> list[list[float | None]]:
    """A map's rows as JSON lists, NaN (a cell off the section) as null (JSON has no NaN)."""
    return [[float(v) if math.isfinite(v) else None for v in row] for row in np.asarray(a, dtype=float).tolist()]


def chaos_map_record(cm: ChaosMap) -> dict[str, Any]:
    """A :class:`~pendulum_explorer.poincare.ChaosMap` as a JSON record: indicator, T, resolution (the cell grid is
    :func:`~pendulum_explorer.poincare.chaos_grid`'s) and both indicators per cell (null off the section)."""
    n_z, n_phi = cm.values.shape
    return {"indicator": cm.indicator, "t_total": float(cm.t_total), "resolution": [int(n_phi), int(n_z)],
            "megno": _cells(cm.megno), "lyapunov": _cells(cm.lyapunov)}


def orbit_record(po: PeriodicOrbit) -> dict[str, Any]:
    """A :class:`~pendulum_explorer.poincare.PeriodicOrbit` as a JSON record (its chart point, multipliers and kind
    follow from the state and the Jacobian, and are recomputed on loading)."""
    return {"Gamma": np.asarray(po.Gamma, float).tolist(), "omega": np.asarray(po.omega, float).tolist(),
            "k": int(po.k), "period": float(po.period), "jacobian": np.asarray(po.jacobian, float).tolist(),
            "residual": float(po.residual), "iterations": int(po.iterations)}


def _number(d: dict[str, Any], key: str) -> float:
    try:
        v = float(d[key])
    except KeyError:
        raise PendulumError(f"the session file has no {key!r}") from None
    except (TypeError, ValueError):
        raise PendulumError(f"{key!r} in the session file must be a number; got {d[key]!r}") from None
    if not math.isfinite(v):
        raise PendulumError(f"{key!r} in the session file must be finite; got {v!r}")
    return v


def _vector(rec: dict[str, Any], key: str, i: int, what: str = "launch") -> NDArray[np.float64]:
    try:
        a = np.asarray(rec[key], dtype=float)
    except KeyError:
        raise PendulumError(f"{what} {i} of the session file has no {key!r}") from None
    except (TypeError, ValueError):
        raise PendulumError(f"{key!r} of {what} {i} in the session file must be 3 numbers") from None
    if a.shape != (3,) or not np.all(np.isfinite(a)):
        raise PendulumError(f"{key!r} of {what} {i} in the session file must be 3 finite numbers; got {rec[key]!r}")
    return a


def parse_session(text: str, n_default: int = 500) -> Session:
    """Read a session written by :func:`session_json`.

    ``n_default`` is the crossing count of a file (or of a launch) that does not give one.  Raises
    :class:`PendulumError` naming what is wrong (not JSON, not a session, a missing or malformed field, more than
    ``MAX_SEEDS`` launches); the body's own validation errors pass through.
    """
    if not isinstance(text, (str, bytes, bytearray)):
        raise TypeError(f"text must be the session file's text (str); got {type(text).__name__}")
    if len(text) > MAX_TEXT:
        raise PendulumError(f"the session file has {len(text)} characters; at most {MAX_TEXT} are read")
    n_default = _v.integer("n_default", n_default, low=1, high=MAX_CROSSINGS)
    containers = text.count("[") + text.count("{")  # a 64 MiB file of empty lists parsed into 1.7 GB of objects
    if containers > MAX_CONTAINERS:
        raise PendulumError(f"the session file has {containers} lists and records; a session holds at most "
                            f"{MAX_CONTAINERS} (its launches, chaos-map rows and periodic orbits)")
    try:
        d = json.loads(text)
    except (ValueError, UnicodeDecodeError, RecursionError) as exc:  # ValueError: also an over-long integer
        raise PendulumError(f"text is not a session file (invalid JSON: {str(exc)[:200]})") from None
    if not isinstance(d, dict) or d.get("app") != APP:
        raise PendulumError("not a Pendulum Explorer session file (missing \"app\": \"pendulum_explorer\")")
    check_session(d)  # every field against the schema made from the table of bounds, and the total work
    version = d.get("version", 1)
    if not isinstance(version, int) or isinstance(version, bool) or not 1 <= version <= SESSION_VERSION:
        raise PendulumError(f"the session file has version {version!r}; this Pendulum Explorer reads versions 1 to "
                            f"{SESSION_VERSION} (a newer file needs a newer Pendulum Explorer)")
    if not isinstance(d.get("body"), dict) or not isinstance(d["body"].get("pendulum"), dict):
        raise PendulumError("the session file has no body (\"body\": {\"pendulum\": {J, rho, m, g}})")
    body = body_from_session(d["body"])
    n_crossings = int(_number(d, "n_crossings")) if "n_crossings" in d else int(n_default)
    recs = d.get("launches", [])
    if not isinstance(recs, list) or len(recs) > MAX_SEEDS:
        raise PendulumError(f"\"launches\" in the session file must be a list of at most {MAX_SEEDS} launches")
    seeds = []
    for i, rec in enumerate(recs):
        if not isinstance(rec, dict):
            raise PendulumError(f"launch {i} of the session file is not a record")
        n = int(_number(rec, "n")) if "n" in rec else n_crossings
        seeds.append(SessionSeed(_vector(rec, "Gamma0", i), _vector(rec, "omega0", i), n or n_crossings,
                                 str(rec.get("source", "load"))))
    E, mu = _number(d, "E"), _number(d, "mu")
    chaos, orbits = None, []
    if d.get("chaos_map") is not None or d.get("periodic_orbits"):
        sec = PoincareSection(body.pendulum, E, mu)
        if d.get("chaos_map") is not None:
            chaos = parse_chaos_map(d["chaos_map"], sec)
        recs = d.get("periodic_orbits") or []
        if not isinstance(recs, list) or len(recs) > MAX_ORBITS:
            raise PendulumError(f"\"periodic_orbits\" in the session file must be a list of at most {MAX_ORBITS} "
                                f"orbits")
        orbits = [parse_orbit(rec, i, sec) for i, rec in enumerate(recs)]
    return Session(body, E, mu, n_crossings, seeds, chaos, orbits)


def _grid(rec: dict[str, Any], key: str, shape: tuple[int, int]) -> NDArray[np.float64]:
    """A map's cells (rows of numbers, null off the section) as an array of ``shape`` with NaN for null."""
    rows = rec.get(key)
    if not isinstance(rows, list) or len(rows) != shape[0] or any(
            not isinstance(r, list) or len(r) != shape[1] for r in rows):
        raise PendulumError(f"\"{key}\" of the session's chaos map must be {shape[0]} rows of {shape[1]} cells")
    try:
        a = np.array([[np.nan if v is None else v for v in r] for r in rows], dtype=np.float64)
    except (TypeError, ValueError):
        raise PendulumError(f"\"{key}\" of the session's chaos map must hold numbers or null") from None
    if np.isinf(a).any() or np.nanmax(np.abs(a), initial=0.0) > MAX_MAP_VALUE:
        raise PendulumError(f"\"{key}\" of the session's chaos map must hold values of magnitude at most "
                            f"{MAX_MAP_VALUE:g}")
    return a


def parse_chaos_map(rec: Any, sec: PoincareSection) -> ChaosMap:
    """The chaos map of a session record (:func:`chaos_map_record`) on the section ``sec`` of the file's level.

    Raises :class:`PendulumError` naming what is wrong: a field missing or malformed, more than
    ``MAX_MAP_CELLS`` cells, the two indicators null in different cells, or cells on the section that are not
    those of this level (a map of another level)."""
    if not isinstance(rec, dict):
        raise PendulumError("\"chaos_map\" in the session file must be a record")
    indicator = rec.get("indicator")
    if indicator not in ("megno", "lyapunov"):
        raise PendulumError(f"the session's chaos map has indicator {indicator!r}; expected \"megno\" or "
                            f"\"lyapunov\"")
    t_total = _number(rec, "t_total")
    if not 0.0 < t_total <= MAX_MAP_TIME:
        raise PendulumError(f"'t_total' of the session's chaos map must be in (0, {MAX_MAP_TIME:g}] s; got {t_total!r}")
    res = rec.get("resolution")
    if not (isinstance(res, list) and len(res) == 2 and all(isinstance(n, int) and not isinstance(n, bool) and n >= 1
                                                            for n in res)):
        raise PendulumError(f"'resolution' of the session's chaos map must be two positive integers [n_phi, n_z]; "
                            f"got {res!r}")
    n_phi, n_z = res
    if n_phi * n_z > MAX_MAP_CELLS:
        raise PendulumError(f"the session's chaos map has {n_phi} x {n_z} cells; at most {MAX_MAP_CELLS} are read")
    Y, L = _grid(rec, "megno", (n_z, n_phi)), _grid(rec, "lyapunov", (n_z, n_phi))
    if not np.array_equal(np.isnan(Y), np.isnan(L)):
        raise PendulumError("the session's chaos map has MEGNO and Lyapunov values in different cells")
    phi, z = chaos_grid(n_phi, n_z)
    _, on = sec.states_at(sphere_from_chart(*np.meshgrid(phi, z)).reshape(-1, 3))
    differ = int((on.reshape(n_z, n_phi) != ~np.isnan(Y)).sum())
    if differ > MAP_MISMATCH * Y.size:
        raise PendulumError(f"the session's chaos map does not belong to its level E = {sec.energy:.6g} J, "
                            f"mu = {sec.mu:.6g} kg m²/s: {differ} of its {Y.size} cells disagree on where motion is "
                            f"possible")
    return ChaosMap(phi, z, Y if indicator == "megno" else L, indicator, t_total, Y, L)


def parse_orbit(rec: Any, i: int, sec: PoincareSection) -> PeriodicOrbit:
    """Periodic orbit ``i`` of a session record (:func:`orbit_record`), on the section ``sec`` of the file's level
    (:meth:`~pendulum_explorer.poincare.PoincareSection.check_seed`); chart point, multipliers and kind are
    recomputed from the state and the Jacobian."""
    if not isinstance(rec, dict):
        raise PendulumError(f"periodic orbit {i} of the session file is not a record")
    G, w = _vector(rec, "Gamma", i, "periodic orbit"), _vector(rec, "omega", i, "periodic orbit")
    y = sec.check_seed((G, w), f"periodic orbit {i} of the session file")
    k = _number(rec, "k")
    if k != int(k) or not 1 <= k <= MAX_RETURN_POWER:
        raise PendulumError(f"'k' of periodic orbit {i} must be an integer in [1, {MAX_RETURN_POWER}]; got {rec['k']!r}")
    period, residual = _number(rec, "period"), _number(rec, "residual")
    iterations = _number(rec, "iterations")
    if period <= 0.0 or residual < 0.0 or iterations < 0 or iterations != int(iterations):
        raise PendulumError(f"periodic orbit {i} of the session file needs period > 0, residual >= 0 and a whole "
                            f"number of iterations >= 0")
    try:
        M = np.asarray(rec["jacobian"], dtype=np.float64)
    except KeyError:
        raise PendulumError(f"periodic orbit {i} of the session file has no 'jacobian'") from None
    except (TypeError, ValueError):
        raise PendulumError(f"'jacobian' of periodic orbit {i} must be 2 x 2 numbers") from None
    if M.shape != (2, 2) or not np.all(np.isfinite(M)):
        raise PendulumError(f"'jacobian' of periodic orbit {i} must be 2 x 2 finite numbers; got {rec['jacobian']!r}")
    phi, z = chart_from_sphere(y[:3])
    mult, kind = orbit_kind(M)
    return PeriodicOrbit(y[:3], y[3:], float(phi), float(z), int(k), period, M, mult, kind, residual, int(iterations))


def body_from_session(b: dict[str, Any]) -> Body:
    """Rebuild the Body of a session record: the preset of that name if its pendulum matches, else the builder
    shape if it reproduces J and rho, else :func:`~pendulum_explorer.bodies.equivalent_body` of J and rho."""
    name = str(b.get("name", "custom"))
    try:
        pend = Pendulum(**b["pendulum"])
    except TypeError as exc:  # unknown or missing keys
        raise PendulumError(f"the session's body must give J, rho, m, g ({exc})") from None
    if name in presets.PRESETS:
        body = presets.get(name, g=pend.g)
        if body.pendulum == pend:
            return body
    shape = b.get("shape") or {}
    if shape.get("kind") in ("elliptic_cylinder", "box", "ellipsoid"):
        try:
            body = build_body(shape["kind"], shape["dims"], m=shape["m"], pivot=shape["pivot"], g=pend.g, name=name)
            if np.allclose(body.pendulum.J, pend.J, atol=1e-12) and np.allclose(body.pendulum.rho, pend.rho, atol=1e-12):
                return body
        except PendulumError:
            log.info("session shape could not be rebuilt; using J, rho")
    return equivalent_body(pend, name=name)


__all__ = ["Session", "SessionSeed", "LaunchRecord", "crossings_csv", "session_json", "parse_session",
           "body_from_session", "chaos_map_record", "orbit_record", "parse_chaos_map", "parse_orbit",
           "SESSION_VERSION", "MAX_SEEDS", "MAX_MAP_CELLS", "MAX_ORBITS"]
