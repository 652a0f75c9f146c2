"""The dashboard's state: the current body, (E, mu), the launched trajectories; panels observe it."""
from __future__ import annotations

import itertools
import threading
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .. import presets
from ..reduction import attitude_from_gamma
from .common import log


@dataclass
class Launch:
    """A trajectory launched from the dashboard (section click, fill, preset, equilibrium "launch nearby")."""

    id: int
    E: float
    mu: float
    body: str
    source: str  # "click", "fill", "preset", "nearby", ...
    Gamma0: np.ndarray
    Gammadot0: np.ndarray
    crossings: np.ndarray = field(default_factory=lambda: np.zeros((0, 3)))  # Gamma at crossings
    chart: np.ndarray = field(default_factory=lambda: np.zeros((0, 2)))  # chart coordinates of the crossings
    colour: str = "#0072B2"
    R0: np.ndarray | None = None
    omega0: np.ndarray | None = None
    stopped: str = ""  # why the computation stopped before the crossings asked (a Crossings status), "" if it did not

    @classmethod
    def from_seed(cls, id: int, sec: Any, seed: Any, body: str, source: str, colour: str) -> Launch:
        """A launch from the LP seed ``[Gamma0, omega0]`` (6,) on the section ``sec`` (its level)."""
        G0, w0 = np.array(seed[:3], dtype=float), np.array(seed[3:6], dtype=float)
        return cls(id=id, E=sec.energy, mu=sec.mu, body=body, source=source, Gamma0=G0, Gammadot0=np.cross(G0, w0),
                   colour=colour, R0=attitude_from_gamma(G0), omega0=w0)

    def add_crossings(self, Gamma: np.ndarray, restart: bool = False) -> None:
        """Append crossings ``Gamma`` (k, 3) and their chart points; ``restart``: replace the ones held."""
        from ..poincare import chart_from_sphere  # here: the first view (no section yet) does not import poincare

        Gamma = np.asarray(Gamma, dtype=float).reshape(-1, 3)
        keep = 0 if restart else len(self.crossings)
        self.crossings = np.concatenate([self.crossings[:keep], Gamma])
        self.chart = np.concatenate([self.chart[:keep], np.stack(chart_from_sphere(Gamma), -1).reshape(-1, 2)])


#: how much larger figures are drawn in the presenter view
PRESENTER_SCALE = 1.6
#: the figures' text size [px] in the presenter view (axes, and the labels drawn on the figures)
PRESENTER_FONT = 18


class AppState:
    """One small object the panels share; panels ``observe(event, callback)`` and ``emit(event, **kw)``.

    Events (keyword arguments of the callback):

    * ``body`` (``body``): a new body is in use (:meth:`set_body`; ``body_origin`` says which control chose it);
    * ``launch`` (``launch``): a trajectory to show in the motion panel (:meth:`select`);
    * ``presenter`` (``on``): the presenter view switched (:meth:`set_presenter`);
    * ``section_level`` (``E``, ``mu``, ``seed``, ``source``, ``zoom``): the equilibria panel asks the section
      panel for a level (and a launch there);
    * ``show_section`` (none): the same panel asks the shell to open the section tab;
    * ``show_motion`` (``launch``): the same panel asks the shell to open the Motion tab playing ``launch``;
    * ``need_panel`` (``key``): a panel asks the shell to build another one (panels are built on first use).
    """

    def __init__(self, body=None):
        self.body = body if body is not None else presets.paper_fig1()
        #: which control chose the body in use (e.g. "the Body tab", "a link", "the section's Fig. 2 presets")
        self.body_origin = "the start view"
        #: the presenter view (larger text, figures and markers) is on
        self.presenter = False
        self.E = None
        self.mu = 0.0
        self.launches: list[Launch] = []
        self.selected: Launch | None = None
        self._ids = itertools.count(1)
        self._listeners: dict[str, list] = {}
        self.lock = threading.RLock()
        self._eq_lock = threading.Lock()
        self._eq = None

    @property
    def pendulum(self):
        return self.body.pendulum

    def next_id(self):
        with self.lock:
            self._last_id = next(self._ids)
            return self._last_id

    def release_ids(self, ids, in_use):
        """The numbers ``ids`` of launches dropped before they ran (a cancelled fill's) are given again when they
        were the last ones given: the next launch is numbered right after the numbers ``in_use`` (#44 was followed
        by #80, then #140, after two cancelled fills)."""
        ids = [int(i) for i in ids]
        with self.lock:
            top = max((int(i) for i in in_use), default=0)
            if ids and min(ids) > top and max(ids) == getattr(self, "_last_id", 0):
                self._ids = itertools.count(top + 1)
                self._last_id = top

    def observe(self, event, callback):
        self._listeners.setdefault(event, []).append(callback)

    def emit(self, event, **kw):
        for cb in list(self._listeners.get(event, [])):
            try:
                cb(**kw)
            except Exception:  # noqa: BLE001 - one panel's failure must not break the others
                log.exception("listener of %r failed", event)

    def set_body(self, body, origin=None):
        """Use ``body``; ``origin`` names the control that chose it (announced on every tab)."""
        with self.lock:
            self.body = body
            self.body_origin = origin or "another tab"
            self.launches = []
            self.selected = None
        self.emit("body", body=body)

    def set_presenter(self, on):
        on = bool(on)
        if on != self.presenter:
            self.presenter = on
            self.emit("presenter", on=on)

    def size(self, px):
        """A figure size in pixels for the current view (larger in the presenter view)."""
        return int(round(px * (PRESENTER_SCALE if self.presenter else 1.0)))

    def label_px(self, px):
        """The font size [px] of the labels drawn on a figure (families on the sphere and the energy–momentum
        diagram): ``px``, or 18 in the presenter view (the size of its axis text)."""
        return max(px, PRESENTER_FONT) if self.presenter else px

    def present(self, fig):
        """``fig`` with the presenter view's larger fonts (axis, legend and title text) when it is on."""
        if self.presenter:
            fig.update_layout(font_size=PRESENTER_FONT, title_font_size=20, legend_font_size=16)
        return fig

    def equilibria(self):
        """The equilibria of the current body (computed once per body; thread-safe)."""
        from ..equilibria import equilibria

        with self._eq_lock:
            body = self.body
            if self._eq is None or self._eq[0] is not body:
                self._eq = (body, equilibria(body.pendulum))
            return self._eq[1]

    def select(self, launch):
        self.selected = launch
        self.emit("launch", launch=launch)
