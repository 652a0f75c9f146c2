"""The section panel's launches and the computation of their crossings: the seed at a chart point, new launches
with their colours and empty traces, their start in the panel's task (what the message says at the start and at
the end), and the task body that streams each trajectory's crossings (:meth:`PoincareSection.stream`; several
at once: :meth:`PoincareMap.stream_batch`) into its trace, checks cancel between chunks and says what was kept.
No widgets of its own: it draws through the panel's :class:`~.section_chart.SectionChart` and speaks through the
panel's message area."""
from __future__ import annotations

import itertools
import time
from collections.abc import Callable, Sequence
from typing import Any

from ..errors import InaccessibleError
from ..poincare import megno_seeds, sphere_from_chart
from . import section_text as say
from .common import PALETTE
from .i18n import N_, _

#: the sources of several launches at once, as the messages name them
MANY_LABELS = (N_("fill"), N_("typed"))
from .state import Launch

FIRST_CHUNK = 60  # crossings drawn first (fast feedback), then chunks of about CHUNK_SECONDS each
CHUNK = 2000
CHUNK_SECONDS = 0.1  # cancel is checked between chunks: it takes effect within about this time
REDRAW_SECONDS = 1.0  # growing traces are sent to the browser at most this often (and at the end)
MEGNO_T = 100.0  # each finished trajectory's hover shows its mean MEGNO over this time [s]


class Runs:
    """Launches on the section ``current()`` shows, drawn by ``traces`` into the state's launch list."""

    def __init__(self, state: Any, traces: Any, msg: Any, history: Any, current: Callable[[], Any], busy: Any,
                 task: Any, n_default: Callable[[], int]) -> None:
        self.state, self.traces, self.msg, self.history = state, traces, msg, history
        self.current = current  # the section shown now (a run for an older one stops drawing)
        self.busy = busy  # the panel's lock over the launch list and the chart
        self.task = task  # the panel's task: a new launch or fill cancels the running one
        self.n_default = n_default  # the crossings asked per trajectory when a call does not say (the panel's box)
        self.colour_index = 0
        self.timings: dict[str, float] = {}
        self._dirty: dict[int, Any] = {}  # launches with crossings not yet sent to the browser
        self._drawn_at = 0.0

    # ------------------------------------------------------------------ the panel's launch methods
    def launch_at(self, phi: float, z: float, n: int | None = None, source: str = "click") -> Launch | None:
        """Launch the trajectory through the section point at chart coordinates (phi, z) (``n`` crossings,
        default: the box; ``source``: "click", or "link" for a link's seeds); a pole is moved to the nearest point
        where motion is possible."""
        t_click = time.perf_counter()
        found = self.seed_at(self.current(), phi, z)
        return None if found is None else self.launch_seed(found[0], source, n=n, t_click=t_click, note=found[1])

    def launch(self, points: Sequence[tuple[float, float]], n: int | None = None, source: str = "typed"
               ) -> list[Launch]:
        """Launch at chart points ``[(φ, Γ₃), ...]`` (typed, or from a link), all in one task; returns the
        launches (a refused point is reported in the message and skipped)."""
        sec = self.current()
        found = [x for x in (self.seed_at(sec, float(p), float(z)) for p, z in points) if x is not None]
        if len(found) == 1:
            return [self.launch_seed(found[0][0], source, n=n, note=found[0][1])]
        return self.start_many(sec, [sec.check_seed(st) for st, _ in found], source, n) if found else []

    def launch_seed(self, seed: Any, source: str = "click", n: int | None = None, t_click: float | None = None,
                    note: str = "") -> Launch:
        """Launch from a section state or an LP pair (Gamma, omega) on the current level (``check_seed``: a clear
        message if it is off the level)."""
        sec = self.current()
        return self.start_one(sec, sec.check_seed(seed), source, n, note, t_click)

    def fill(self, n_seeds: int = 12, n: int | None = None) -> list[Launch]:
        """Seeds spread over the accessible region (:meth:`PoincareSection.fill_seeds`), streamed in lane groups."""
        sec = self.current()
        return self.start_many(sec, sec.fill_seeds(n_seeds), "fill", n)

    # ------------------------------------------------------------------ seeds, launches, their task
    def seed_at(self, sec: Any, phi: float, z: float) -> tuple[Any, str] | None:
        """``(section state, note)`` at the chart point (:meth:`PoincareSection.seed_at`: a pole is moved to the
        nearest admissible point, the note says so); None when the point is not accessible (the message says why)."""
        try:
            state, moved = sec.seed_at(phi, z)
        except InaccessibleError:
            self.msg.error(say.inaccessible(phi, z, sec.energy, float(sec.amended_potential(sphere_from_chart(phi, z)))))
            return None
        return state, ("" if moved is None else say.pole_note(phi, z, moved))

    def add(self, sec: Any, seeds: Any, source: str) -> list[Launch]:
        """New launches (and their empty traces) for LP seeds (k, 6) on the section ``sec``."""
        out = []
        with self.busy:
            for y in seeds:
                c = PALETTE[self.colour_index % len(PALETTE)]
                self.colour_index += 1
                out.append(Launch.from_seed(self.state.next_id(), sec, y, self.state.body.name, source, c))
                self.state.launches.append(out[-1])
            self.traces.add(out)
        self.history.launched(out)
        return out

    def start_one(self, sec: Any, seed: Any, source: str, n: int | None, note: str = "",
                  t_click: float | None = None) -> Launch:
        """One launch from the checked LP seed, its ``n`` crossings (None: the box's) computed in the task; the
        message says what is being computed, then what came of it (or why it stopped short), and the launch is
        selected."""
        n, task = int(self.n_default() if n is None else n), self.task
        task.stop()  # the running task's last message ("cancelled: kept ...") first, then this launch's
        (launch,) = self.add(sec, [seed], source)
        self.msg.info(say.computing(launch.id, n, note))

        def done() -> None:
            if launch.stopped:  # fewer crossings than asked: say why
                self.msg.info(say.trajectory_stopped(launch.id, len(launch.crossings), n, launch.stopped, sec.max_gap,
                                                     sec.energy, sec.mu, note))
            else:
                self.msg.ok(say.trajectory_done(launch.id, len(launch.crossings), sec.energy, sec.mu, note))
            self.state.select(launch)

        t_click = time.perf_counter() if t_click is None else t_click
        task.start(self.work(sec, [(launch, n)], None, t_click), _("trajectory #{id}").format(id=launch.id), done)
        return launch

    def start_many(self, sec: Any, seeds: Any, label: str, n: int | None) -> list[Launch]:
        """Launches from LP seeds (k, 6) (a fill or a typed list), computed in the task in groups of the section's
        lanes (:meth:`PoincareMap.stream_batch`)."""
        n, task = int(self.n_default() if n is None else n), self.task
        task.stop()  # the running task's last message first, then this one's
        launches = self.add(sec, seeds, label)
        label = _(label)  # the launches' source ("fill", "typed") in the page's words from here on
        self.msg.info(say.many_start(label, len(launches), n))
        items = [(L, n) for L in launches]
        task.start(self.work(sec, items, label), label, on_done=lambda: (
            self.msg.info if any(L.stopped for L in launches) else self.msg.ok)(say.many_done(label, items)))
        return launches

    def work(self, sec: Any, items: Sequence[tuple[Any, int]], label: str | None,
             t_click: float | None = None) -> Callable[[Any], None]:
        """The task body: the crossings of each ``(launch, n)`` in chunks of about CHUNK_SECONDS, each drawn as it
        arrives; cancel is checked after every chunk.  ``label``: a fill or a load (progress counts trajectories),
        None for one launch (progress counts crossings)."""

        def work(task: Any) -> None:
            try:
                stream(task)
            finally:  # the browser draws the streamed crossings on the chart (hover on them) now
                self.traces.settle()

        def stream(task: Any) -> None:
            if label is None:
                for L, n in items:
                    chunks = sec.stream((L.Gamma0, L.omega0), n, CHUNK, first=FIRST_CHUNK, seconds=CHUNK_SECONDS)
                    for k, res in enumerate(chunks):
                        self._take(L, res, k == 0, sec, now=k == 0)
                        if t_click is not None and k == 0:
                            self.timings["click_to_first"] = time.perf_counter() - t_click
                        task.progress(len(L.crossings) / n, say.crossings_progress(L.id, len(L.crossings), n))
                        if task.cancelled:
                            return self._cancelled(sec, items, task)
                    self._megno([L], sec)
            else:  # several at once: in groups of the section's lanes (PoincareMap.stream_batch), n by n
                finished: list[Any] = []
                for n, group in itertools.groupby(items, key=lambda it: it[1]):
                    launches = [L for L, _ in group]
                    started: set[int] = set()
                    for rows, out in sec.map.stream_batch([(L.Gamma0, L.omega0) for L in launches], n, CHUNK,
                                                          first=FIRST_CHUNK, seconds=CHUNK_SECONDS):
                        ended = []
                        for r, res in zip(rows.tolist(), out):
                            self._take(launches[r], res, r not in started, sec)
                            started.add(r)
                            if not res.complete or len(launches[r].crossings) >= n:
                                ended.append(launches[r])
                        self._megno(ended, sec)
                        finished += ended
                        task.progress(len(finished) / len(items), say.many_progress(label, len(finished), len(items)))
                        if task.cancelled:
                            return self._cancelled(sec, items, task)
            self.draw_soon(None, sec, now=True)

        return work

    def _take(self, L: Any, res: Any, first: bool, sec: Any, now: bool = False) -> None:
        """A chunk of ``L``'s crossings (``first``: its first chunk, which replaces what it had) into its trace."""
        L.add_crossings(res.Gamma, restart=first)
        L.stopped = "" if res.complete else res.status
        self.draw_soon(L, sec, now=now)
        if not res.complete:
            self.msg.info(say.stopped(L.id, len(L.crossings), res.status))

    def _megno(self, launches: Sequence[Any], sec: Any) -> None:
        """The finished trajectories' mean MEGNO over MEGNO_T in their hovers, all in one call on the lanes
        (:func:`pendulum_explorer.poincare.megno_seeds`); a trajectory whose tangent run stopped has no Ybar."""
        if not launches:
            return
        ybar, _, ok = megno_seeds(sec.map, [(L.Gamma0, L.omega0) for L in launches], MEGNO_T)
        for L, y, good in zip(launches, ybar.tolist(), ok.tolist()):
            if good:
                L.megno = (y, MEGNO_T)
                self.traces.show_megno(L, sec)

    def draw_soon(self, launch: Any, sec: Any, now: bool = False) -> None:
        """Show the launch's crossings so far with the other updated launches, at most every REDRAW_SECONDS (the
        browser paints each update on the chart's stream layer; before that layer it redrew the whole chart for
        each update, fell behind and answered clicks late)."""
        if launch is not None:
            self._dirty[launch.id] = launch
        if now or time.perf_counter() - self._drawn_at > REDRAW_SECONDS:
            for L in list(self._dirty.values()):
                self.traces.update(L, sec)
            self._dirty.clear()
            self._drawn_at = time.perf_counter()

    def _cancelled(self, sec: Any, items: Sequence[tuple[Any, int]], task: Any) -> None:
        """After a cancel: the message says what was kept and the progress bar goes first, then the chart catches
        up (trajectories not started removed, the last crossings drawn).  In this order because the page applies
        the kernel's messages in turn: behind a chart redraw (a second or more in a software-rendered browser)
        the answer to a cancel came seconds late."""
        if sec is not self.current():  # cancelled by a level change: the launches were set aside as they are
            return
        empty = [L for L, _ in items if len(L.crossings) == 0]
        self.msg.info(say.cancelled(items))
        task.settle()
        with self.busy:
            self.state.launches[:] = [L for L in self.state.launches if all(L is not x for x in empty)]
            self.traces.remove(empty)
            for L in empty:
                self._dirty.pop(L.id, None)
            in_use = [L.id for L in self.state.launches] + [L.id for s in self.history.saved for L in s.launches]
            self.state.release_ids([L.id for L in empty], in_use)
        self.draw_soon(None, sec, now=True)
