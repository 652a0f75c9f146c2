"""Section sessions as files: the crossings of launched trajectories as CSV, and a loadable JSON session.

A *session* is a body, a section level (E, mu), a crossing count and the seeds of the launched trajectories;
loading it recomputes the crossings (the seeds and the level determine them).  No widgets here: the dashboard's
section panel calls these functions, and so can a script::

    text = session_json(body, E, mu, 500, launches)   # launches: objects with the LaunchRecord attributes
    s = parse_session(text)                           # Session(body, E, mu, n_crossings, seeds)
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
from .poincare import MAX_CROSSINGS

SESSION_VERSION = 1
APP = "pendulum_explorer"
#: the most trajectories a session file may hold (a file is user input: sizes are bounded)
MAX_SEEDS = 1000
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


def session_json(body: Body, E: float | None, mu: float, n_crossings: int, launches: Iterable[LaunchRecord]) -> str:
    """The session as JSON: body (name, builder shape, J/rho/m/g), (E, mu), crossing count and the seeds."""
    d = {"version": SESSION_VERSION, "app": APP,
         "body": {"name": body.name, "shape": body.shape, "pendulum": body.pendulum.to_dict()},
         "E": E, "mu": mu, "n_crossings": int(n_crossings),
         "launches": [{"id": L.id, "source": L.source, "E": L.E, "mu": L.mu, "Gamma0": np.asarray(L.Gamma0).tolist(),
                       "omega0": np.asarray(L.omega0).tolist(), "n": int(len(L.crossings))} for L in launches]}
    return json.dumps(d, indent=1)


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


def _vector(rec: dict[str, Any], key: str, i: int) -> NDArray[np.float64]:
    try:
        a = np.asarray(rec[key], dtype=float)
    except KeyError:
        raise PendulumError(f"launch {i} of the session file has no {key!r}") from None
    except (TypeError, ValueError):
        raise PendulumError(f"{key!r} of launch {i} in the session file must be 3 numbers") from None
    if a.shape != (3,) or not np.all(np.isfinite(a)):
        raise PendulumError(f"{key!r} of launch {i} in the session file must be 3 finite numbers; got {rec[key]!r}")
    return a


def parse_session(text: str, n_default: int = 500) -> Session:
    """Read a session written by :func:`session_json`.

    ``n_default`` is the crossing count of a file (or of a launch) that does not give one.  Raises
    :class:`PendulumError` naming what is wrong (not JSON, not a session, a missing or malformed field, more than
    ``MAX_SEEDS`` launches); the body's own validation errors pass through.
    """
    if not isinstance(text, (str, bytes, bytearray)):
        raise TypeError(f"text must be the session file's text (str); got {type(text).__name__}")
    n_default = _v.integer("n_default", n_default, low=1, high=MAX_CROSSINGS)
    try:
        d = json.loads(text)
    except json.JSONDecodeError as exc:
        raise PendulumError(f"text is not a session file (invalid JSON: {exc})") from None
    if not isinstance(d, dict) or d.get("app") != APP:
        raise PendulumError("not a Pendulum Explorer session file (missing \"app\": \"pendulum_explorer\")")
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
    return Session(body, _number(d, "E"), _number(d, "mu"), n_crossings, seeds)


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
           "body_from_session", "SESSION_VERSION", "MAX_SEEDS"]
