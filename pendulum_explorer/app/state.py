"""The dashboard's state: the current body, (E, mu), the launched trajectories; panels observe it."""
from __future__ import annotations

import itertools
import threading
from dataclasses import dataclass, field

import numpy as np

from .. import presets
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


#: how much larger figures are drawn in the presenter view
PRESENTER_SCALE = 1.6


class AppState:
    """One small object the panels share.  Events: ``body`` (a new body; ``state.body_origin`` says which
    control chose it), ``launch`` (a new trajectory to show in the motion panel), ``section_level`` (a request to
    show (E, mu) in the section panel), ``show_section``, ``presenter`` (the presenter view switched)."""

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
        return next(self._ids)

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

    def present(self, fig):
        """``fig`` with the presenter view's larger fonts (axis, legend and title text) when it is on."""
        if self.presenter:
            fig.update_layout(font_size=18, title_font_size=20, legend_font_size=16)
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
