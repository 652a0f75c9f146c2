"""What the section panel set aside: the trajectories of a level, a body or a "clear", for undo and the
"saved levels" menu.  No widgets (tested without them)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..bodies import Body
from .common import body_title
from .i18n import _, ngettext
from .i18n import number as num

#: levels kept at most (the oldest is dropped first, and the panel says so)
LIMIT = 20


@dataclass(eq=False)
class Saved:
    """The trajectories shown at one level, set aside by ``what`` (a level change, a new body, "clear"), with the
    chaos map and the periodic orbits found at that level (if any)."""

    body: Body
    E: float
    mu: float
    launches: list[Any]
    what: str
    chaos: Any = None
    orbits: list[Any] = field(default_factory=list)
    #: the label of the oldest saved level that this set-aside pushed out (LIMIT reached), else ""
    dropped: str = ""

    @property
    def drop_note(self) -> str:
        """What the panel's message adds when this set-aside dropped the oldest saved level ("" if none)."""
        return "" if not self.dropped else _(
            ". The saved levels are full ({limit} kept): the oldest one, {label}, was dropped and cannot be brought "
            "back").format(limit=LIMIT, label=self.dropped)

    @property
    def label(self) -> str:
        n = len(self.launches)
        k = len(self.orbits)
        extra = ("" if self.chaos is None else " · " + _("chaos map")) + (
            "" if not k else " · " + ngettext("{n} periodic orbit", "{n} periodic orbits", k).format(n=k))
        traj = ngettext("{n} trajectory", "{n} trajectories", n).format(n=n)
        return (f"E = {num(self.E, '.5g')} J, μ = {num(self.mu, '.4g')} kg m²/s · {traj}{extra} "
                f"· {body_title(self.body)}")


@dataclass
class History:
    """Set-aside levels (``saved``, oldest first) and the undo order of launches and set-asides."""

    saved: list[Saved] = field(default_factory=list)
    _undo: list[Any] = field(default_factory=list)
    dropped: int = 0  # levels dropped because of LIMIT

    def launched(self, launches: list[Any]) -> None:
        """New trajectories: undo removes them one by one, the latest first."""
        self._undo.extend(launches)

    def set_aside(self, body: Body, E: float, mu: float, launches: list[Any], what: str, chaos: Any = None,
                  orbits: list[Any] | None = None) -> Saved | None:
        """Keep ``launches`` with the level's chaos map and periodic orbits (None if there are none of these:
        nothing is lost)."""
        if not launches and chaos is None and not orbits:
            return None
        s = Saved(body, E, mu, launches, what, chaos, list(orbits or []))
        self.saved.append(s)
        self._undo.append(s)
        if len(self.saved) > LIMIT:
            old = self.saved.pop(0)
            self._undo = [u for u in self._undo if u is not old]
            self.dropped += 1
            s.dropped = old.label
        return s

    def take(self, s: Saved) -> Saved:
        """Remove ``s`` from the saved levels (it is being shown again)."""
        self.saved.remove(s)
        self._undo = [u for u in self._undo if u is not s]
        return s

    def undo(self, shown: list[Any]) -> Any:
        """The latest action that can be undone: a launch still in ``shown`` or a saved level (None: nothing)."""
        while self._undo:
            u = self._undo.pop()
            if isinstance(u, Saved) and u in self.saved:
                return u
            if not isinstance(u, Saved) and any(u is L for L in shown):
                return u
        return None
