"""Groups of the section panel's controls with their actions: the chaos map and the periodic-orbit search
(:class:`ChaosTools`), the files and the paper's presets (:class:`SessionFiles`), clear / undo / saved levels
(:class:`UndoControls`) and the launch inputs (:class:`LaunchControls`).  Widgets and wiring: the numerics are
:class:`~pendulum_explorer.poincare.PoincareSection`'s, the files :mod:`pendulum_explorer.session`'s, what was set
aside :mod:`.history`'s, the wording :mod:`.section_text`'s.  They act on the panel they belong to (its section,
task, launches and chart)."""
from __future__ import annotations

from typing import Any

import ipywidgets as w

from .. import presets, session
from ..bounds import BOUNDS
from ..errors import PeriodicOrbitNotFoundError
from ..poincare import MAP_LEVELS, PoincareSection
from . import section_text as say
from .common import body_title, guarded
from .i18n import N_, Number, _
from .section_text import PAPER_FIG2_ENERGIES
from .state import Launch

#: the tangent integrator of the dashboard's chaos map: the Taylor tangent lanes at tol 1e-12 (bench_map_taylor.py:
#: 2.2x the cells per CPU second of DOP853 at rtol 1e-10, regular cells' MEGNO within 3e-7 of DOP853 at 1e-12)
MAP_METHOD = "taylor"


def button(description: str, cls: str, **kw: Any) -> w.Button:
    """A panel button with its CSS class (the browser tests find it by that)."""
    # its width grows with a longer word (German, Spanish), never below the English one's
    b = w.Button(description=description, layout=w.Layout(width="auto", min_width=kw.pop("width", "110px")), **kw)
    b.add_class(cls)
    return b


def _fitted(description: str, input_px: int) -> dict[str, Any]:
    """A number box's description with its label as wide as its words (~7.2 px a character at 14 px: the English
    widths, 140 px for "crossings (100–5000)"; a German label is longer) and an input of ``input_px``."""
    label = int(7.2 * len(description)) + 4
    return {"description": description, "layout": w.Layout(width=f"{label + input_px}px"),
            "style": {"description_width": f"{label}px"}}


class ChaosTools:
    """"chaos map" (MEGNO under the crossings, coarse first) and "find periodic orbit" (the next click looks for a
    fixed point of the k-th return map there).  The map and the orbits belong to the panel's level
    (``panel.chaos``, ``panel.orbits``): a level change, a new body or "clear" sets them aside with it."""

    def __init__(self, panel: Any) -> None:
        self.panel = panel
        self.map_btn = button(_("chaos map"), "pe-chaos-map", icon="th-large", width="120px",
                              tooltip=_("MEGNO over the chart (≈2 regular, ≫2 chaotic): coarse first, then refined"))
        lo, hi = BOUNDS["map_time"].range(plausible=True)
        self.map_T = w.BoundedFloatText(value=100.0, min=lo, max=hi, step=20.0,
                                        description=_("map T [s] ({lo:g}–{hi:g})").format(lo=Number(lo), hi=Number(hi)),
                                        layout=w.Layout(width="220px"), style={"description_width": "145px"})
        self.map_T.add_class("pe-map-t")
        self.po_mode = w.ToggleButton(value=False, description=_("find periodic orbit"), icon="crosshairs",
                                      layout=w.Layout(width="auto", min_width="170px"),  # German is longer
                                      tooltip=_("then click near an island centre: the fixed point of the k-th "
                                                "return map"))
        self.po_mode.add_class("pe-find-orbit")
        k_lo, k_hi = (int(x) for x in BOUNDS["k"].range(plausible=True))
        self.po_k = w.BoundedIntText(value=1, min=k_lo, max=k_hi, description=f"k ({k_lo}–{k_hi})",
                                     layout=w.Layout(width="120px"),
                                     style={"description_width": "50px"})
        self.po_k.add_class("pe-orbit-k")
        self.widget = w.HBox([self.map_btn, self.map_T, self.po_mode, self.po_k], layout=w.Layout(flex_flow="row wrap"))
        self.map_btn.on_click(lambda _b: panel.guard(self.chaos_map, N_("chaos map")))

    def chaos_map(self, levels: Any = MAP_LEVELS, t_total: float | None = None) -> None:
        """MEGNO over the chart at each resolution of ``levels`` in turn (:meth:`PoincareSection.chaos_maps` on
        ``MAP_METHOD``), each
        drawn under the crossings when done; progress and cancel are the panel's task's (a cancel keeps the last
        finished map and says so)."""
        p, sec = self.panel, self.panel.section
        T = float(self.map_T.value if t_total is None else t_total)
        done_maps: list[Any] = []

        def work(task: Any) -> None:
            for cm in sec.chaos_maps(levels, T, method=MAP_METHOD, cancel=lambda: task.cancelled,
                                     progress=lambda f, res, d, m: task.progress(f, say.map_progress(res, d, m))):
                with p.busy:
                    if sec is not p.section:
                        return
                    p.chaos = cm
                    p.redraw()
                done_maps.append(cm)
            if task.cancelled and sec is p.section:
                p.msg.info(say.map_cancelled(done_maps[-1] if done_maps else None))

        p.msg.info(say.map_start(T))
        p.task.start(work, _("chaos map"), lambda: p.msg.ok(say.map_done(done_maps[-1])))

    def find_orbit(self, phi: float, z: float, k: int | None = None) -> None:
        """The fixed point of the k-th return map near the chart point (phi, z): the robust finder within 0.1 of
        the click (:func:`~pendulum_explorer.orbit_finder.find_periodic_orbit`), else Newton's method from the click
        (:meth:`PoincareSection.periodic_orbit`, which may reach an island centre farther away); marked on the
        chart (symbol per kind, hover with period and multipliers) and launched like a click, so the Motion tab
        offers it ("follow in E" and "draw manifolds" then act on it)."""
        from ..orbit_finder import as_level_orbit, find_periodic_orbit

        p, sec, k = self.panel, self.panel.section, int(self.po_k.value if k is None else k)
        found: list[Any] = []

        def work(task: Any) -> None:
            task.progress(0.1, say.newton(k))
            try:
                po = find_periodic_orbit(sec, (phi, z), k)
            except PeriodicOrbitNotFoundError:
                po = as_level_orbit(sec.periodic_orbit((phi, z), k), sec)
            with p.busy:
                if sec is not p.section or task.cancelled:
                    return
                p.orbits.append(po)
                p.orbit_layers.orbit_found()
                p.redraw()
            (launch,) = p.runs.add(sec, [sec.check_seed((po.Gamma, po.omega))], "periodic orbit")
            found.append((po, launch))
            p.runs.work(sec, [(launch, max(100, 20 * k))], None)(task)

        def done() -> None:
            if found:
                po, launch = found[0]
                p.msg.ok(say.orbit_found(po, launch.id))
                p.state.select(launch)

        p.msg.info(say.orbit_search(k, phi, z))
        p.task.start(work, _("periodic orbit"), done)


class SessionFiles:
    """"export" (CSV of the crossings and a JSON session, as download links), "load session", and the paper's
    Fig. 2 presets (the Fig. 2 body at one of the paper's energies, seeded from R0 = I, omega0 = c[1,1,1])."""

    def __init__(self, panel: Any) -> None:
        self.panel = panel
        self.msg = panel.msg  # the error boundary of the menus (guarded) reports here
        self.export_btn = button(_("export"), "pe-export", icon="download",
                                 tooltip=_("CSV of crossings + JSON session"))
        self.load = w.FileUpload(accept=".json", multiple=False, description=_("load session"),
                                 layout=w.Layout(width="auto", min_width="140px"))
        self.load.add_class("pe-load")
        self.downloads = w.HTML()
        self.paper = w.Dropdown(options=[(_("paper Fig. 2 presets…"), "")] + PAPER_FIG2_ENERGIES, value="",
                                layout=w.Layout(width="220px"))
        self.paper.add_class("pe-paper-preset")
        self.export_btn.on_click(lambda _b: panel.guard(self.export, _("export")))
        self.load.observe(self._on_load, names="value")
        self.paper.observe(self._on_paper, names="value")

    def sync_paper(self, body: Any, E: float) -> None:
        """The presets menu names a preset only while its level is shown (the Fig. 2 body at that E): it said
        "(e) E = 11.95" on a Fig. 1 level at E = 1.74."""
        v = self.paper.value
        if v not in (None, "") and not (body.name == "paper_fig2" and abs(float(v) - float(E)) <= 1e-9):
            self.paper.unobserve(self._on_paper, names="value")
            self.paper.value = ""
            self.paper.observe(self._on_paper, names="value")

    @guarded(what=N_("loading the paper preset"))
    def _on_paper(self, change: Any) -> None:
        if change["new"] not in (None, ""):
            self.paper_preset(change["new"])

    def paper_preset(self, E: float, n: int | None = None) -> Any:
        """The Fig. 2 body at energy E, seeded from R0 = I, omega0 = c[1,1,1]."""
        p = self.panel
        body = p.state.body
        if body.name != "paper_fig2" or body.pendulum.g != 9.81:
            body = presets.paper_fig2()
        sec, (G0, w0) = PoincareSection.from_paper_ic(body.pendulum, E)
        # the seed's energy equals E to rounding; a new body is drawn at this level at once (not at its default)
        p.set_body_and_level(body, float(E), sec.mu, origin="the Poincaré section's paper Fig. 2 presets")
        return p.launch_seed((G0, w0), source="paper", n=n)

    def export_csv(self) -> str:
        """CSV of all crossings (:func:`pendulum_explorer.session.crossings_csv`)."""
        return session.crossings_csv(list(self.panel.state.launches))

    def export_json(self) -> str:
        """The session (:func:`pendulum_explorer.session.session_json`): body, level, crossing count, seeds, the
        level's chaos map and periodic orbits."""
        st = self.panel.state
        return session.session_json(st.body, st.E, st.mu, int(self.panel.n_cross.value), list(st.launches),
                                    chaos=self.panel.chaos, orbits=self.panel.orbits)

    def export(self) -> None:
        self.downloads.value = say.downloads_html((("pendulum_crossings.csv", self.export_csv(), "text/csv"),
                                                   ("pendulum_session.json", self.export_json(), "application/json")))
        self.msg.ok(say.export_ready(sum(len(L.crossings) for L in self.panel.state.launches)))

    @guarded(what=N_("loading the session"))
    def _on_load(self, change: Any) -> None:
        if change["new"]:
            f = change["new"][0]
            self.load_session(bytes(f["content"] if isinstance(f, dict) else f.content).decode())

    def load_session(self, text: str, wait: bool = False) -> list[tuple[Any, int]]:
        """Restore a session exported by :meth:`export_json`: body, (E, mu), crossing count, trajectories, and the
        level's chaos map and periodic orbits (if saved)."""
        p = self.panel
        s = session.parse_session(text, n_default=int(p.n_cross.value))
        p.n_cross.value = s.n_crossings
        body = s.body_for(p.state.body)
        p.set_body_and_level(body, s.E, s.mu)
        sec = p.section
        if s.chaos is not None or s.orbits:  # the level's chaos map and periodic orbits, as they were saved
            with p.busy:
                p.chaos, p.orbits = s.chaos, list(s.orbits)
                p.redraw()
        launches = p.runs.add(sec, s.seed_states(), "load")
        for L, x in zip(launches, s.seeds):
            L.source = x.source
        new = [(L, x.n) for L, x in zip(launches, s.seeds)]
        p.task.start(p.runs.work(sec, new, _("loading")), _("loading the session"),
                     on_done=lambda: self.msg.ok(say.session_loaded(body_title(body), len(new))))
        if wait:
            p.task.wait()
        return new


class LaunchControls:
    """How many crossings, "fill" with how many seeds, and launching at a typed (φ, Γ₃) (keyboard access).  Widgets
    only: the panel wires them."""

    def __init__(self) -> None:
        # bounded inputs clamp silently: their labels name the range
        lo, hi = (int(x) for x in BOUNDS["n_crossings"].range(plausible=True))
        self.n_cross = w.BoundedIntText(value=500, min=lo, max=hi, step=100,
                                        **_fitted(_("crossings ({lo}–{hi})").format(lo=lo, hi=hi), 75))
        f_lo, f_hi = (int(x) for x in BOUNDS["n_fill"].range(plausible=True))
        self.n_fill = w.BoundedIntText(value=12, min=f_lo, max=f_hi,
                                       **_fitted(_("fill seeds ({lo}–{hi})").format(lo=f_lo, hi=f_hi), 60))
        self.n_cross.add_class("pe-n-crossings")
        self.n_fill.add_class("pe-n-fill")
        self.fill_btn = button(_("fill"), "pe-fill", icon="th", tooltip=_("seeds spread over the accessible region"))
        self.phi_in = w.FloatText(value=0.0, description="φ [rad]", layout=w.Layout(width="140px"),
                                  style={"description_width": "52px"})
        self.z_in = w.BoundedFloatText(value=0.5, min=-1.0, max=1.0, step=0.05, description="Γ₃",
                                       layout=w.Layout(width="120px"), style={"description_width": "30px"})
        self.phi_in.add_class("pe-launch-phi")
        self.z_in.add_class("pe-launch-z")
        self.launch_btn = button(_("launch"), "pe-launch", icon="play", width="100px",
                                 tooltip=_("launch a trajectory at the typed (φ, Γ₃)"))
        self.keys = w.HBox([self.phi_in, self.z_in, self.launch_btn], layout=w.Layout(flex_flow="row wrap"))


class UndoControls:
    """"clear", "undo" and the "saved levels" menu: what a level change, a new body or "clear" set aside
    (:class:`~.history.History`) comes back with its body, level, chaos map and periodic orbits."""

    def __init__(self, panel: Any) -> None:
        self.panel = panel
        self.msg = panel.msg
        self.clear_btn = button(_("clear"), "pe-clear", icon="trash", tooltip=_("set the trajectories aside (undo)"))
        self.undo_btn = button(_("undo"), "pe-undo", icon="undo",
                               tooltip=_("remove the last trajectory, or bring back what a level change, a new body or "
                                         "clear set aside"))
        self.saved = w.Dropdown(options=[(_("saved levels ({n})").format(n=0), -1)], value=-1,
                                layout=w.Layout(width="330px"), description=_("set aside"),
                                style={"description_width": "initial"})
        self.saved.add_class("pe-saved-levels")
        self.clear_btn.on_click(lambda _b: panel.guard(self.clear, _("clear")))
        self.undo_btn.on_click(lambda _b: panel.guard(self.undo, _("undo")))
        self.saved.observe(self._on_saved, names="value")

    def clear(self) -> None:
        p = self.panel
        p.task.cancel()
        p.task.wait(5)
        with p.busy:
            aside = p.set_aside(N_("“clear” was pressed"))
            p.state.launches = []
            p.show_launches(p.state.launches)
        self.msg.info(say.cleared(aside))

    def undo(self) -> None:
        """Remove the last trajectory, or bring back what the last level change, new body or clear set aside."""
        p = self.panel
        with p.busy:
            u = p.history.undo(p.state.launches)
            if u is None:
                self.msg.info(_("nothing to undo"))
            elif isinstance(u, Launch):
                if p.task.running:
                    p.task.cancel()
                p.state.launches[:] = [L for L in p.state.launches if L is not u]
                p.traces.remove([u])
                self.msg.info(_("removed trajectory #{id}").format(id=u.id))
            else:
                self.restore(u)

    @guarded(what=N_("restoring a saved level"))
    def _on_saved(self, change: Any) -> None:
        if change["new"] is not None and change["new"] >= 0:
            self.restore(self.panel.history.saved[change["new"]])

    def restore(self, s: Any) -> None:
        """Show a saved level again with its trajectories (what is shown now is set aside in its place)."""
        p = self.panel
        p.history.take(s)
        p.set_body_and_level(s.body, s.E, s.mu, origin="the section's saved levels")
        with p.busy:
            p.state.launches = s.launches
            p.chaos, p.orbits = s.chaos, list(s.orbits)
            p.show_launches(s.launches)
            p.runs.colour_index = len(s.launches)
        self.menu()
        self.msg.ok(say.restored(s.label, s.what))

    def menu(self) -> None:
        """The "saved levels" menu lists the history, newest first."""
        saved = self.panel.history.saved
        self.saved.unobserve(self._on_saved, names="value")
        self.saved.options = [(_("saved levels ({n})").format(n=len(saved)), -1)] + [
            (x.label, i) for i, x in reversed(list(enumerate(saved)))]
        self.saved.value = -1
        self.saved.observe(self._on_saved, names="value")
