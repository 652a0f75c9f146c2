"""The page's work kept in the browser, and brought back by a page that reconnects (issue 23, item 1).

Every :data:`AUTOSAVE_S` seconds, when the view or the section's work changed, the kernel sends the page (through
the :class:`~.pagebridge.PageBridge`) the view's link without its launch seeds and the section's levels as session
files (:func:`pendulum_explorer.session.session_json`): each saved level, oldest first, then the level shown.  The
page keeps them in ``localStorage``.  A page opened by the banner's "reconnect" (its kernel ended) opens the saved
view from its link and sends the levels back; :meth:`Autosave.restore` loads them in order (each level load sets
the one before aside: the saved levels come back as saved levels, the last one is shown).  No numerics here.
"""
from __future__ import annotations

import dataclasses
import functools
import threading
from typing import Any

from ..errors import PendulumError
from .common import body_title, log
from .i18n import _, ngettext
from .links import build_query

#: seconds between two looks at whether the work changed (a changed view or work is sent then)
AUTOSAVE_S = 3.0


class Autosave:
    """Keeps the page's copy of the view and the section's levels current; restores them for a reconnected page."""

    def __init__(self, dash: Any, interval: float = AUTOSAVE_S) -> None:
        self.dash = dash
        self.interval = float(interval)
        self._last: Any = None
        self._stop = threading.Event()
        self.sent = 0  # payloads sent to the page (tests)
        self.thread: threading.Thread | None = None

    def start(self) -> None:
        """Look for changes every :attr:`interval` seconds in a daemon thread (ends with the kernel or :meth:`stop`)."""
        self.thread = threading.Thread(target=self._loop, name="pe-autosave", daemon=True)
        self.thread.start()

    def stop(self) -> None:
        self._stop.set()

    def _loop(self) -> None:
        while not self._stop.wait(self.interval):
            try:
                self.save()
            except Exception:  # noqa: BLE001 - an autosave must never disturb the page
                log.exception("autosave")

    def fingerprint(self) -> Any:
        """What changes when the view or the work does (cheap: no session file is built to compare)."""
        d = self.dash
        st, sec = d.state, d.panels.get("section")
        work: Any = ()
        if sec is not None:
            work = (st.E, st.mu, tuple((L.id, len(L.crossings)) for L in list(st.launches)), id(sec.chaos),
                    len(sec.orbits), tuple(id(s) for s in sec.history.saved), int(sec.n_cross.value))
        return (id(st.body), d.tabs.selected_index, st.presenter, work)

    def payload(self) -> tuple[str, list[str]]:
        """The view's query string (no launch seeds: the levels hold the trajectories) and the levels."""
        d = self.dash
        view = build_query(dataclasses.replace(d.current_link(), launch=()))
        sec = d.panels.get("section")
        levels: list[str] = []
        if sec is not None:
            from .. import session  # here: the first view imports no section module

            n = int(sec.n_cross.value)
            writers = [functools.partial(session.session_json, s.body, s.E, s.mu, n, list(s.launches),
                                         chaos=s.chaos, orbits=s.orbits) for s in list(sec.history.saved)]
            if sec.section is not None and (d.state.launches or sec.chaos is not None or sec.orbits):
                writers.append(sec.export_json)
            for write in writers:
                try:
                    levels.append(write())
                except PendulumError:  # a level no session file can hold must not lose the others
                    log.exception("autosave: a level cannot be saved")
        return view, levels

    def save(self, force: bool = False) -> bool:
        """Send the view and the levels to the page if they changed since the last time (or ``force``)."""
        key = self.fingerprint()
        if not force and key == self._last:
            return False
        view, levels = self.payload()
        self.dash.bridge.autosave(view, levels)
        self._last = key
        self.sent += 1
        return True

    def restore(self, levels: list[str], wait: bool = False) -> threading.Thread:
        """Load the levels a reconnected page kept (oldest first) into the section panel, in a thread; the header
        says what came back."""
        def run() -> None:
            d = self.dash
            n_traj = loaded = 0
            problems = []
            if levels:
                sec = d.panel("section")
                for text in levels:
                    try:
                        n_traj += len(sec.load_session(text, wait=True))
                        loaded += 1
                    except Exception as exc:  # noqa: BLE001 - one bad level must not lose the others
                        problems.append(str(exc))
            levels_words = ngettext("{n} level", "{n} levels", loaded).format(n=loaded)
            if getattr(d.bridge, "restore_reason", "") == "lang":  # the language menu opened the page again
                words = ngettext("This view in the language chosen, with {n} trajectory at {levels} kept in this "
                                 "browser ({body}).", "This view in the language chosen, with {n} trajectories at "
                                 "{levels} kept in this browser ({body}).", n_traj).format(
                    n=n_traj, levels=levels_words, body=body_title(d.state.body)) if loaded else ""
            else:
                words = ngettext("Reconnected: a new session on the server, with this view and {n} trajectory at "
                                 "{levels} kept in this browser ({body}).", "Reconnected: a new session on the "
                                 "server, with this view and {n} trajectories at {levels} kept in this browser "
                                 "({body}).", n_traj).format(n=n_traj, levels=levels_words,
                                                             body=body_title(d.state.body)) if loaded else \
                    _("Reconnected: a new session on the server with this view (no trajectories were kept in this "
                      "browser).")
            if problems:
                d.msg.error((words + " " if words else "") + ngettext(
                    "{n} saved level could not be restored: {problem}",
                    "{n} saved levels could not be restored: {problem}", len(problems)).format(
                    n=len(problems), problem=problems[0]))
            elif words:
                d.msg.ok(words)
            self.save(force=True)

        t = threading.Thread(target=run, name="pe-restore", daemon=True)
        t.start()
        if wait:
            t.join()
        return t
