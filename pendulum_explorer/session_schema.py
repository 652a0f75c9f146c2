"""The session file's JSON Schema, generated from the one table of bounds (:mod:`pendulum_explorer.bounds`), and
the check that turns the first violation into a message naming the field and its range."""
from __future__ import annotations

import functools
from typing import Any

from .bounds import BOUNDS
from .errors import PendulumError

#: the most crossings a loaded session may ask for in all: what the dashboard's own controls allow at once
#: (a fill of 60 trajectories x 5000 crossings)
MAX_TOTAL_CROSSINGS = int(BOUNDS["n_fill"].range(plausible=True)[1] * BOUNDS["n_crossings"].range(plausible=True)[1])


def _number(name: str, *, exclusive_low: bool = False) -> dict[str, Any]:
    b = BOUNDS[name]
    lo, hi = b.range(plausible=True)
    unit = f" {b.unit}" if b.unit else ""
    kind = "integer" if b.integer else "number"
    s: dict[str, Any] = {"type": kind, "maximum": hi,
                         "description": f"{'a whole number' if b.integer else 'a number'} in {lo:g} … {hi:g}{unit}"}
    s["exclusiveMinimum" if exclusive_low else "minimum"] = lo
    return s


def _vector(n: int, item: dict[str, Any], what: str) -> dict[str, Any]:
    return {"type": "array", "minItems": n, "maxItems": n, "items": item, "description": f"{n} {what}"}


@functools.cache
def session_schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of a session file (:func:`~pendulum_explorer.session.session_json`)."""
    MAX_SEEDS = int(BOUNDS["launches"].range(plausible=True)[1])
    unit_entry = {"type": "number", "minimum": -1.0 - 1e-3, "maximum": 1.0 + 1e-3, "description": "a number in -1 … 1"}
    omega = _vector(3, _number("omega0"), "numbers in -1000 … 1000 rad/s")
    state = {"Gamma": _vector(3, unit_entry, "numbers of a unit vector"), "omega": omega}
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "Pendulum Explorer session",
        "type": "object",
        "required": ["app", "body", "E", "mu"],
        "properties": {
            "app": {"const": "pendulum_explorer", "description": "\"pendulum_explorer\""},
            "version": {},  # read by parse_session: "version N; this Pendulum Explorer reads versions 1 to M"
            "body": {"type": "object", "required": ["pendulum"], "description": "a body record", "properties": {
                "name": {"type": "string", "maxLength": 200, "description": "a name of at most 200 characters"},
                "pendulum": {"type": "object", "required": ["J", "rho"], "additionalProperties": False,
                             "description": "a record of J, rho, m and g", "properties": {
                                 "J": _vector(3, _vector(3, _number("J"), "numbers"), "rows of 3 numbers"),
                                 "rho": _vector(3, _number("rho"), "numbers in -1000 … 1000 m"),
                                 "m": _number("m"), "g": _number("g")}},
                "shape": {"anyOf": [{"type": "null"}, {"type": "object", "maxProperties": 0}, {
                    "type": "object", "required": ["kind", "dims", "m", "pivot"],
                    "properties": {"kind": {"enum": ["elliptic_cylinder", "box", "ellipsoid"]},
                                   "dims": _vector(3, _number("dim"), "numbers in 0.005 … 100 m"),
                                   "m": _number("m"), "pivot": _vector(3, {"type": "number"}, "numbers")}},
                    # the dashboard's "custom J and rho" (bodies.equivalent_body): the body is its pendulum record
                    {"type": "object", "required": ["kind"], "properties": {"kind": {"const": "custom_J"}}}],
                          "description": "null, a builder shape {kind, dims (3 numbers), m, pivot (3 numbers)} or "
                                         "{kind: \"custom_J\"}"}}},
            "E": _number("E"), "mu": _number("mu"),
            "n_crossings": _number("session_crossings"),
            "launches": {"type": "array", "maxItems": MAX_SEEDS, "description": f"a list of at most {MAX_SEEDS} "
                         "launches", "items": {
                             "type": "object", "required": ["Gamma0", "omega0"], "description": "a launch record",
                             "properties": {"Gamma0": state["Gamma"], "omega0": omega,
                                            "n": {"type": "integer", "minimum": 0,
                                                  "maximum": BOUNDS["n_crossings"].range(plausible=True)[1],
                                                  "description": "a whole number of crossings in 0 … 5000"},
                                            "source": {"type": "string", "maxLength": 40,
                                                       "description": "a short string"}}}},
            # the chaos map and the periodic orbits are checked by their own parsers (session.parse_chaos_map,
            # parse_orbit), which also need the level: their fields and messages are theirs
            "chaos_map": {}, "periodic_orbits": {},
        },
    }


def _where(path: list[Any]) -> str:
    """A field's place in words: ``'E'``, ``'Gamma0' of launch 3``, ``'k' of periodic orbit 0``, or a path."""
    owners = {"launches": "launch", "periodic_orbits": "periodic orbit"}
    if len(path) == 1:
        return f"'{path[0]}'"
    if len(path) >= 3 and path[0] in owners and isinstance(path[1], int):
        rest = "".join(f"[{p}]" for p in path[3:])
        return f"'{path[2]}{rest}' of {owners[path[0]]} {path[1]}"
    return "'" + "".join(f"[{p}]" if isinstance(p, int) else (f".{p}" if i else str(p))
                         for i, p in enumerate(path)) + "'"


def _message(e: Any) -> str:
    path = list(e.path)
    if path[:2] == ["body", "pendulum"] and e.validator in ("required", "additionalProperties", "type"):
        return f"the session's body must give J, rho, m, g (numbers); its pendulum record is {e.instance!r:.80}"
    if e.validator == "required":
        missing = e.message.split("'")[1] if "'" in e.message else e.message
        if not path:
            return f"the session file has no {missing} (\"{missing}\" is required)"
        return f"{_where(path)} in the session file has no '{missing}'"
    want = e.schema.get("description") if isinstance(e.schema, dict) else None
    shown = repr(e.instance)
    shown = shown if len(shown) <= 60 else shown[:57] + "..."
    return f"{_where(path) if path else 'the session file'} in the session file must be {want or e.message}; got {shown}"


def check_session(d: Any) -> None:
    """PendulumError naming the first field of the parsed session ``d`` that the schema refuses, what it must be
    and what it is; then the total work: at most ``MAX_TOTAL_CROSSINGS`` crossings over the launches."""
    import jsonschema

    validator = jsonschema.Draft202012Validator(session_schema())
    errors = sorted(validator.iter_errors(d), key=lambda e: (len(e.path), list(map(str, e.path))))
    if errors:
        raise PendulumError(_message(errors[0]))
    n_default = d.get("n_crossings", 500)
    total = sum(int(rec.get("n") or n_default) for rec in d.get("launches", []))
    if total > MAX_TOTAL_CROSSINGS:
        raise PendulumError(f"the session file asks for {total} crossings in all; a loaded session may ask for at "
                            f"most {MAX_TOTAL_CROSSINGS} (what the dashboard computes at once: 60 trajectories x "
                            f"5000 crossings)")


__all__ = ["session_schema", "check_session", "MAX_TOTAL_CROSSINGS"]
