"""The dashboard's state as traits: the current body, (E, mu), the selected trajectory, the requests between
panels; panels listen to them (traitlets observe)."""
from __future__ import annotations

import itertools
import threading
from dataclasses import dataclass, field
from collections.abc import Callable
from typing import Any

import numpy as np
from traitlets import Any as AnyTrait, Bool, Bunch, Float, HasTraits, Int, Unicode

from .. import presets
from ..reduction import attitude_from_gamma
from .common import log
from .i18n import N_, _

#: where a launch came from (:attr:`Launch.source`), as the Motion tab's trajectory menu names it ("#3 (click) ...")
SOURCE_LABELS = {
    # TRANSLATORS: where a trajectory was launched, in brackets in the Motion tab's menu: a click on the section
    "click": N_("click"),
    "fill": N_("fill"),  # the section's "fill" button
    "typed": N_("typed"),  # (φ, Γ₃) typed in the section's boxes
    # TRANSLATORS: a trajectory launched from the section's "paper Fig. 2 presets" menu (the paper, the article)
    "paper": N_("paper"),
    # TRANSLATORS: a trajectory loaded from a session file (in brackets in the Motion tab's menu)
    "load": N_("load"),
    # TRANSLATORS: a trajectory launched with the Equilibria tab's "launch nearby" button
    "nearby": N_("nearby"),
    "periodic orbit": N_("periodic orbit"),  # found by "find periodic orbit"
    # TRANSLATORS: a trajectory launched from a seed of the link the page was opened with (in brackets)
    "link": N_("link"),
}


def source_label(source: str) -> str:
    """A launch's source in the page's words (a source this version does not know, from a session file: as it is)."""
    return _(SOURCE_LABELS.get(source, source)) if source else ""


@dataclass
class Launch:
    """A trajectory launched from the dashboard (section click, fill, preset, equilibrium "launch nearby")."""

    id: int
    E: float
    mu: float
    body: str
    source: str  # "click", "fill", "typed", "paper", "load", "nearby", "periodic orbit", "link" (SOURCE_LABELS)
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


@dataclass(frozen=True)
class LevelRequest:
    """The equilibria panel asks the section panel for a level, and a launch there (:meth:`AppState.request_level`)."""

    E: float
    mu: float
    seed: Any = None
    source: str = "nearby"
    zoom: Any = None


class AppState(HasTraits):
    """The dashboard's shared state as traits; panels react to them with :meth:`listen` (traitlets ``observe``
    underneath, each listener isolated so that one panel's failure cannot break the others).

    Traits:

    * ``body`` — the body in use (:meth:`set_body`), ``body_origin`` the control that chose it;
    * ``presenter`` — the presenter view is on;
    * ``E``, ``mu`` — the section level in use (``E`` None before the section tab has opened);
    * ``selected`` — the trajectory the motion panel shows; ``selection`` counts selections (:meth:`select`), so a
      listener hears the same trajectory chosen again;
    * ``level_request`` — a :class:`LevelRequest` from the equilibria panel to the section panel;
    * ``motion_request`` — a trajectory a panel asks the shell to play in the Motion tab;
    * ``tab_request`` — a tab a panel asks the shell to open (``""`` between requests);
    * ``panel_request`` — a panel another one asks the shell to build now (panels are built on first use).
    """

    body = AnyTrait()
    body_origin = Unicode("the start view")
    presenter = Bool(False)
    E = Float(None, allow_none=True)
    mu = Float(0.0)
    selected = AnyTrait(None)
    selection = Int(0)
    level_request = AnyTrait(None)
    motion_request = AnyTrait(None)
    tab_request = Unicode("")
    panel_request = Unicode("")

    def __init__(self, body: Any = None) -> None:
        super().__init__(body=body if body is not None else presets.paper_fig1())
        self.launches: list[Launch] = []
        self._ids = itertools.count(1)
        self.lock = threading.RLock()

    def listen(self, name: str, callback: Callable[[Any], Any]) -> None:
        """Call ``callback(new_value)`` whenever the trait ``name`` changes (exceptions logged, not raised)."""
        def handler(change: Any) -> None:
            try:
                callback(change["new"])
            except Exception:  # noqa: BLE001 - one panel's failure must not break the others
                log.exception("listener of %r failed", name)
        self.observe(handler, names=name)

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

    def set_body(self, body, origin=None):
        """Use ``body``; ``origin`` names the control that chose it (announced on every tab)."""
        with self.lock:
            self.body_origin = origin or "another tab"
            self.launches = []
            self.selected = None
        if body is self.body:  # the same object again: the listeners hear it all the same
            self.notify_change(Bunch(name="body", old=body, new=body, owner=self, type="change"))
        else:
            self.body = body

    def set_presenter(self, on):
        self.presenter = bool(on)

    def request_level(self, E, mu, seed=None, source="nearby", zoom=None):
        """Ask the section panel for the level (E, mu), and a launch from ``seed`` there."""
        self.level_request = LevelRequest(float(E), float(mu), seed, source, zoom)

    def request_motion(self, launch):
        """Ask the shell to open the Motion tab playing ``launch``."""
        self.motion_request = None
        self.motion_request = launch

    def request_panel(self, key):
        """Ask the shell to build the panel ``key`` now (panels are built on first use)."""
        self.panel_request = ""
        self.panel_request = key

    def request_tab(self, key):
        """Ask the shell to open the tab ``key``."""
        self.tab_request = ""
        self.tab_request = key

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

        return self.body.pendulum.cached("equilibria", equilibria)  # one set per pendulum, shared with the model

    def select(self, launch):
        """Show ``launch`` in the motion panel (listeners of ``selection`` hear every call)."""
        self.selected = launch
        self.selection += 1
