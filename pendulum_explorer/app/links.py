"""Deep links: a URL query string <-> the view of the dashboard it opens.  No widgets here.

Parameters (all optional)::

    preset     one of the preset names (paper_fig1, paper_fig2, lagrange_top, planar)
    tab        body | equilibria | section | motion
    E, mu      the section level [J], [kg m²/s] (mu without E is refused; E without mu: the panel's default mu)
    J, rho     a custom body: 9 numbers (row by row) and 3 numbers, comma separated, both or neither
    m, g       mass [kg] and gravity [m/s²] of the custom body / g of the preset
    launch     section seeds as (φ, Γ₃) pairs: ``launch=0.5,0.3;1.2,-0.1`` (at most 20 pairs)
    omega0, T  the Motion tab's motion: ω₀ (3 numbers, rad/s) and its duration T [s] (0.1 … 200)
    tilt, axis the start "released tilted θ from hanging": θ [°] (−180 … 180) about ``axis`` (space-1 | space-2 |
               body-1 | body-2 | body-3, as the tab's menu; default space-1; axis needs tilt); without omega0 the
               release is from rest (ω₀ = 0); without tilt the motion starts from R₀ = I
    damping    c [N m s] (0 … 100) of the viscous pivot torque −c ω (outside the paper's model): integrated by DOP853
    unit       rad/s | rev/s: the unit the tab's ω₀ boxes show (omega0 itself is always in rad/s)
               any of omega0, T, tilt, damping, unit opens the Motion tab (unless ``tab`` says otherwise) with that
               motion computed
    presenter  1 | 0 (larger text and figures, for a projector)
    lang       en | de | es: the page's language (default: the browser's)

Voila passes the page's query string to the kernel in the ``QUERY_STRING`` environment variable.

The parser reads names and numbers only: every size is bounded before anything is split, numbers must match a
plain decimal pattern (no ``nan``, ``inf``, hex or expressions) and lie in a stated range, names must be known.
Nothing is evaluated.  Any problem gives :class:`LinkError` naming the parameter and its valid form; the
dashboard then shows the message and the default view.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field, replace
from urllib.parse import quote, unquote_plus

from ..bounds import BOUNDS as TABLE
from .i18n import _, number

#: the dashboard's tabs, in order (keys used by ``tab=``)
TAB_KEYS = ("body", "equilibria", "section", "motion")
#: the presets a link may name (kept equal to ``presets.PRESETS`` by a test)
PRESET_NAMES = ("paper_fig1", "paper_fig2", "lagrange_top", "planar")

MAX_QUERY = 2000      # characters of the whole query string
MAX_VALUE = 600       # characters of one value
MAX_PARAMS = 16       # parameters in one link (a custom body with every other parameter and lang: 16)
MAX_LAUNCH = int(TABLE["launch_link"].high)  # launch pairs
NUMBER = re.compile(r"[+-]?(?:\d{1,12}(?:\.\d{0,17})?|\.\d{1,17})(?:[eE][+-]?\d{1,3})?")
NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,19}")

#: the Motion tab's durations [s] (its duration box and the link's ``T``)
DURATION_RANGE = TABLE["t_final"].range(plausible=True)
#: (lower, upper) bound of every scalar parameter: the dashboard's ranges of the one table of bounds
BOUNDS = {key: TABLE[name].range(plausible=True) for key, name in (
    ("E", "E"), ("mu", "mu"), ("J", "J"), ("rho", "rho"), ("m", "m"), ("g", "g"), ("phi", "phi"),
    ("Gamma3", "Gamma3"), ("omega0", "omega0"), ("T", "t_final"), ("tilt", "release_angle"), ("damping", "damping"))}
KNOWN = ("preset", "tab", "E", "mu", "J", "rho", "m", "g", "launch", "presenter", "omega0", "T", "tilt", "axis",
         "damping", "unit", "lang")
#: the tilt axes a link may name (kept equal to the Motion tab's menu, ``motion_controls.AXES``, by a test)
AXIS_KEYS = ("space-1", "space-2", "body-1", "body-2", "body-3")
#: the units of the Motion tab's ω₀ boxes (kept equal to ``motion_controls.OMEGA_UNITS`` by a test)
UNIT_KEYS = ("rad/s", "rev/s")
#: the page languages a link may name (kept equal to ``i18n.LANGUAGES`` by a test)
LANG_CODES = ("en", "de", "es")
#: parameters of the server hosting the page (Jupyter's token, Voila's template / theme, Binder's urlpath):
#: not ours, ignored without a message
SERVER_PARAMS = ("token", "theme", "template", "voila-template", "voila-theme", "urlpath", "kernel_name")


class LinkError(ValueError):
    """A link parameter that is not understood (the message names it and its valid form)."""


@dataclass(frozen=True)
class ViewLink:
    """The view a link asks for; ``None`` / empty means "as the dashboard starts"."""

    preset: str | None = None
    tab: str | None = None
    E: float | None = None
    mu: float | None = None
    J: tuple[float, ...] | None = None
    rho: tuple[float, ...] | None = None
    m: float | None = None
    g: float | None = None
    launch: tuple[tuple[float, float], ...] = field(default_factory=tuple)
    presenter: bool = False
    omega0: tuple[float, ...] | None = None
    T: float | None = None
    tilt: float | None = None
    axis: str | None = None
    damping: float | None = None
    unit: str | None = None
    lang: str | None = None

    @property
    def motion(self) -> bool:
        """The link asks for a motion of the Motion tab (ω₀, T, a tilted start, a damping or the unit of ω₀)."""
        return any(x is not None for x in (self.omega0, self.T, self.tilt, self.damping, self.unit))

    @property
    def is_default(self) -> bool:
        """The start view (whatever the language)."""
        return replace(self, lang=None) == ViewLink()


def _number(text: str, name: str) -> float:
    text = text.strip()
    if not NUMBER.fullmatch(text):
        raise LinkError(_("{name} must be a plain decimal number; got {value}").format(name=name, value=_show(text)))
    x = float(text)
    lo, hi = BOUNDS[name]
    if not (math.isfinite(x) and lo <= x <= hi):
        raise LinkError(_("{name} must lie in [{lo}, {hi}]; got {value}").format(name=name, lo=number(lo), hi=number(hi),
                                                                                 value=_show(text)))
    return x


def _numbers(text: str, name: str, count: int) -> tuple[float, ...]:
    parts = text.split(",")
    if len(parts) != count:
        raise LinkError(_("{name} takes {count} comma-separated numbers; got {got}").format(name=name, count=count,
                                                                                          got=len(parts)))
    return tuple(_number(p, name) for p in parts)


def _show(text: str, n: int = 40) -> str:
    """A value quoted for a message: printable characters only, at most ``n``."""
    clean = "".join(c if c.isprintable() else "?" for c in text[:n])
    return repr(clean + ("…" if len(text) > n else ""))


def _raw_parameters(query: str) -> dict[str, str]:
    """The link's own parameters, name -> decoded value, sizes bounded (:func:`parse_query`'s first step)."""
    if not isinstance(query, str):
        raise LinkError(_("the link's query must be text"))
    if len(query) > MAX_QUERY:
        raise LinkError(_("the link is too long ({n} characters; at most {max})").format(n=len(query), max=MAX_QUERY))
    query = query[1:] if query.startswith("?") else query
    items = [p for p in query.split("&") if p]
    if len(items) > MAX_PARAMS + len(SERVER_PARAMS):
        raise LinkError(_("the link has {n} parameters; at most {max}").format(n=len(items), max=MAX_PARAMS))
    raw: dict[str, str] = {}
    for item in items:
        name, sep, value = item.partition("=")
        name = unquote_plus(name)
        if name in SERVER_PARAMS:
            continue
        if not NAME.fullmatch(name) or name not in KNOWN:
            raise LinkError(_("unknown link parameter {name}; known: {known}").format(name=_show(name),
                                                                                       known=", ".join(KNOWN)))
        if not sep:
            raise LinkError(_("link parameter {name} has no value ({name}=…)").format(name=name))
        if name in raw:
            raise LinkError(_("link parameter {name} is given twice").format(name=name))
        value = unquote_plus(value)
        if len(value) > MAX_VALUE:
            raise LinkError(_("the value of {name} is too long ({n} characters)").format(name=name, n=len(value)))
        raw[name] = value
    if len(raw) > MAX_PARAMS:
        raise LinkError(_("the link has {n} parameters; at most {max}").format(n=len(raw), max=MAX_PARAMS))
    return raw


def parse_query(query: str | None) -> ViewLink:
    """The :class:`ViewLink` of a URL query string (with or without the leading ``?``).

    Parameters
    ----------
    query : str or None
        E.g. ``"preset=paper_fig2&tab=section&E=2.03&launch=0.5,0.3"``; ``None`` or ``""`` is the default view.

    Returns
    -------
    ViewLink

    Raises
    ------
    LinkError
        Unknown or repeated parameter, a value that is not of its form or out of its range, sizes beyond the
        bounds (query ≤ 2000 characters, ≤ 16 parameters, ≤ 20 launch pairs).
    """
    if query is None:
        return ViewLink()
    raw = _raw_parameters(query)
    kw: dict = {}
    if "preset" in raw:
        if raw["preset"] not in PRESET_NAMES:
            raise LinkError(_("{name} must be one of {values}; got {value}").format(
                name="preset", values=", ".join(PRESET_NAMES), value=_show(raw["preset"])))
        kw["preset"] = raw["preset"]
    if "tab" in raw:
        if raw["tab"] not in TAB_KEYS:
            raise LinkError(_("{name} must be one of {values}; got {value}").format(
                name="tab", values=" | ".join(TAB_KEYS), value=_show(raw["tab"])))
        kw["tab"] = raw["tab"]
    for name in ("E", "mu", "m", "g", "T", "tilt", "damping"):
        if name in raw:
            kw[name] = _number(raw[name], name)
    if "J" in raw:
        kw["J"] = _numbers(raw["J"], "J", 9)
    if "rho" in raw:
        kw["rho"] = _numbers(raw["rho"], "rho", 3)
    if "omega0" in raw:
        kw["omega0"] = _numbers(raw["omega0"], "omega0", 3)
    if ("J" in kw) != ("rho" in kw):
        raise LinkError(_("a custom body needs both J (9 numbers) and rho (3 numbers)"))
    if "J" in kw and "preset" in kw:
        raise LinkError(_("give either preset or J and rho, not both"))
    if "m" in kw and "J" not in kw:
        raise LinkError(_("m belongs to a custom body (J and rho)"))
    for name, values in (("axis", AXIS_KEYS), ("unit", UNIT_KEYS)):
        if name in raw:
            if raw[name] not in values:
                raise LinkError(_("{name} must be one of {values}; got {value}").format(
                    name=name, values=" | ".join(values), value=_show(raw[name])))
            kw[name] = raw[name]
    if "axis" in kw and "tilt" not in kw:
        raise LinkError(_("axis belongs to a tilted start (tilt=θ in degrees)"))
    if "mu" in kw and "E" not in kw:
        raise LinkError(_("mu needs E (the section level is the pair E, mu)"))
    if "launch" in raw:
        pairs = [p for p in raw["launch"].split(";") if p.strip()]
        if not pairs:
            raise LinkError(_("launch needs at least one φ,Γ₃ pair"))
        if len(pairs) > MAX_LAUNCH:
            raise LinkError(_("launch has {n} pairs; at most {max}").format(n=len(pairs), max=MAX_LAUNCH))
        out = []
        for p in pairs:
            xy = p.split(",")
            if len(xy) != 2:
                raise LinkError(_("each launch seed is one pair φ,Γ₃ (pairs separated by ';'); got {value}").format(
                    value=_show(p)))
            out.append((_number(xy[0], "phi"), _number(xy[1], "Gamma3")))
        kw["launch"] = tuple(out)
    if "presenter" in raw:
        v = raw["presenter"].strip().lower()
        if v not in ("0", "1", "true", "false"):
            raise LinkError(_("presenter must be 1 or 0; got {value}").format(value=_show(raw["presenter"])))
        kw["presenter"] = v in ("1", "true")
    if "lang" in raw:
        if raw["lang"] not in LANG_CODES:
            raise LinkError(_("{name} must be one of {values}; got {value}").format(
                name="lang", values=" | ".join(LANG_CODES), value=_show(raw["lang"])))
        kw["lang"] = raw["lang"]
    return ViewLink(**kw)


def _num_text(x: float, digits: int = 10) -> str:
    return f"{float(x):.{digits}g}"


def build_query(link: ViewLink) -> str:
    """The query string (without ``?``) that :func:`parse_query` reads back as ``link`` (numbers to 10
    significant digits; launch seeds to 6)."""
    parts = []
    if link.preset is not None:
        parts.append(("preset", link.preset))
    if link.J is not None and link.rho is not None:
        parts.append(("J", ",".join(_num_text(x) for x in link.J)))
        parts.append(("rho", ",".join(_num_text(x) for x in link.rho)))
        if link.m is not None:
            parts.append(("m", _num_text(link.m)))
    if link.g is not None:
        parts.append(("g", _num_text(link.g)))
    if link.tab is not None:
        parts.append(("tab", link.tab))
    if link.E is not None:
        parts.append(("E", _num_text(link.E)))
        if link.mu is not None:
            parts.append(("mu", _num_text(link.mu)))
    if link.launch:
        parts.append(("launch", ";".join(f"{p:.6f},{z:.6f}" for p, z in link.launch[:MAX_LAUNCH])))
    if link.omega0 is not None:
        parts.append(("omega0", ",".join(_num_text(x) for x in link.omega0)))
    if link.T is not None:
        parts.append(("T", _num_text(link.T)))
    if link.tilt is not None:
        parts.append(("tilt", _num_text(link.tilt)))
        if link.axis is not None:
            parts.append(("axis", link.axis))
    if link.damping is not None:
        parts.append(("damping", _num_text(link.damping)))
    if link.unit is not None:
        parts.append(("unit", link.unit))
    if link.presenter:
        parts.append(("presenter", "1"))
    if link.lang is not None:
        parts.append(("lang", link.lang))
    return "&".join(f"{k}={quote(v, safe=',;.-+_/')}" for k, v in parts)


def link_lang(query: str | None) -> str | None:
    """The ``lang`` a query string asks for (None: none, or not one of :data:`LANG_CODES`), read before the
    link itself so that the link's own problems are told in its language."""
    if not isinstance(query, str) or len(query) > MAX_QUERY:
        return None
    for item in query.lstrip("?").split("&"):
        name, _sep, value = item.partition("=")
        if name == "lang" and value in LANG_CODES:
            return value
    return None


__all__ = ["ViewLink", "LinkError", "parse_query", "build_query", "link_lang", "TAB_KEYS", "PRESET_NAMES",
           "DURATION_RANGE", "LANG_CODES", "AXIS_KEYS", "UNIT_KEYS"]
