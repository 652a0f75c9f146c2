"""Panel 4: the motion of the body along a trajectory, played in the browser in true time (:class:`MotionView`)."""
from __future__ import annotations

import warnings

import ipywidgets as w
import numpy as np

from .. import playback
from ..errors import InvariantDriftWarning
from ..playback import compute_motion  # noqa: F401 - the motion this panel shows (tests import it from here)
from ..plotting.body import motion_payload, motion_plots_figure
from . import i18n
from .common import Messages, Task, about, body_title, guarded
from .i18n import N_, Number, _, number, numbers
from .links import BOUNDS, DURATION_RANGE
from .motion_controls import MotionStart
from .motion_text import about_html
from .plausible import check_range
from .plotview import MotionView
from .state import PRESENTER_SCALE, source_label

#: the methods' names in the line under the controls (the menu's own labels are longer)
METHOD_NAMES = {"lgvi": "LGVI", "taylor": N_("Taylor method"), "dop853": "DOP853"}


class MotionPanel:
    def __init__(self, state):
        self.state = state
        self.msg = Messages()
        self.task = Task(self.msg)
        self.choice = w.Dropdown(options=[(_("ω₀ and start below"), 0)], value=0, description=_("trajectory"),
                                 layout=w.Layout(width="auto", min_width="330px", max_width="100%"),
                                 style={"description_width": "70px"})
        self.choice.add_class("pe-motion-choice")
        self.omega0 = [w.FloatText(value=1.0, description=f"ω₀{'₁₂₃'[i]}", step=0.1,
                                   layout=w.Layout(width="120px"), style={"description_width": "34px"})
                       for i in range(3)]
        # a bounded input clamps silently: the label names its range
        self.t_final = w.BoundedFloatText(value=10.0, min=DURATION_RANGE[0], max=DURATION_RANGE[1], step=1.0,
                                          description=_("duration [s] ({lo:g}–{hi:g})").format(
                                              lo=Number(DURATION_RANGE[0]), hi=Number(DURATION_RANGE[1])),
                                          layout=w.Layout(width="225px"), style={"description_width": "150px"})
        self.method = w.ToggleButtons(options=[(_("Routh + reconstruction"), "lr"), ("LGVI", "lgvi"),
                                               (_("Taylor (machine precision)"), "taylor"),
                                               (_("DOP853 (damping)"), "dop853")], value="lr",
                                      style={"button_width": "auto"},
                                      tooltips=[_("Lagrange–Routh equations at fixed μ, then the attitude rebuilt"),
                                                _("Lie group variational integrator on the full equations"),
                                                _("adaptive Taylor method, errors at double round-off"),
                                                _("adaptive Runge–Kutta 8(5,3); the one method that integrates "
                                                  "the damping")])
        self.start = MotionStart()
        self.run = w.Button(description=_("compute and animate"), button_style="primary", icon="play",
                            layout=w.Layout(width="200px"))
        self.run.add_class("pe-motion-run")
        self.info = w.HTML()
        self.out = MotionView()
        self.out.add_class("pe-motion-figure")
        self.trajectory = None
        self.stride = 1
        omega_label = w.HTML(_("<span style='font-size:14px'>ω₀ [rad/s] for “ω₀ and start below”:</span>"),
                             layout=w.Layout(margin="0 4px 0 8px"))
        self._omega_label = omega_label
        controls = w.VBox([w.HBox([self.choice, self.t_final, self.method], layout=w.Layout(flex_flow="row wrap")),
                           w.HBox([omega_label] + self.omega0 + [self.run, self.task.widget],
                                  layout=w.Layout(flex_flow="row wrap", align_items="center")),
                           self.start.widget, self.msg, self.info])
        self.controls, self.about = controls, about(about_html(), _("About: reconstruction and the animation"))
        self.widget = w.VBox([controls, self.out, self.about])
        self.run.on_click(self._on_run)
        state.listen("selection", lambda n: self._on_launch(state.selected))
        state.listen("body", self._on_body)
        state.listen("presenter", self._on_presenter)
        self._on_presenter(state.presenter)
        self._launch_map = {}
        self._stale = True
        # the start attitude is drawn (the motion computed, paused at t = 0) as soon as it is chosen
        self.start.start.observe(lambda c: self._on_start(released=c["new"] == "tilt"), "value")
        for box in (self.start.angle, self.start.axis):
            box.observe(lambda _c: self._on_start(), "value")
        self.start.unit.observe(self._on_unit, "value")
        self.start.damping.observe(lambda _c: self._on_damping(), "value")

    # ------------------------------------------------------------------ events
    def _on_body(self, body):
        self._launch_map = {}
        self.choice.options = [(_("ω₀ and start below"), 0)]
        self.choice.value = 0
        self._stale = True

    def _on_presenter(self, on):
        """The presenter view: larger views (a larger share of the window), text, markers and plot fonts."""
        self.out.scale = PRESENTER_SCALE if on else 1.0
        # a class watches the animation: it comes first, the controls below it, and its views take the rest of the
        # first screen (at 1280x720 the body view's top was at y = 608 px below the controls, 112 of its 408 px
        # visible, with 0.64 of the window's height)
        self.out.fit = bool(on)
        self.widget.children = [self.out, self.controls, self.about] if on else [self.controls, self.out, self.about]
        if self.trajectory is not None:  # the plots again, with the fonts of the view now on
            self.out.show(self._present(motion_plots_figure(self.trajectory, self.stride)))

    def _present(self, fig):
        fig = self.state.present(fig)
        if self.state.presenter:
            fig.update_layout(legend2_font_size=fig.layout.legend.font.size)  # the error plot's own legend
            # the plots' titles are annotations with their own size (16 px): as large as the figure's title
            fig.update_annotations(font_size=fig.layout.title.font.size)
        return fig

    def _on_launch(self, launch):
        self.add_launch(launch, select=True)

    def add_launch(self, launch, select=False):
        self._launch_map[launch.id] = launch
        label = "#{id} ({source}) E = {E} J, μ = {mu}".format(id=launch.id, source=source_label(launch.source),
                                                             E=i18n.number(launch.E, ".4g"),
                                                             mu=i18n.number(launch.mu, ".4g"))
        opts = [o for o in self.choice.options if o[1] != launch.id] + [(label, launch.id)]
        self.choice.options = opts
        if select:
            self.choice.value = launch.id
            self._stale = True

    def set_motion(self, omega0=None, t_final=None, tilt=None, axis=None, damping=None, unit=None):
        """The motion "ω₀ and start below" of a link: ω₀ [rad/s] (shown in ``unit``, default rad/s), the duration
        [s], the start (R₀ = I, or released tilted ``tilt``° about ``axis``; then ω₀ = 0 unless given) and the
        damping c (c > 0 selects DOP853, the one method that integrates it): selected, and computed when the tab
        is shown."""
        self._setting = True
        try:  # the controls set together; the motion is computed once, when the tab is shown
            self.start.unit.value = "rad/s"
            if tilt is None:
                self.start.start.value = "identity"
            else:
                self.start.start.value = "tilt"
                self.start.angle.value = float(tilt)
                self.start.axis.value = axis or "space-1"
            self.start.damping.value = 0.0 if damping is None else float(damping)
            if damping:
                self.method.value = "dop853"
            if omega0 is not None or tilt is not None:
                for box, x in zip(self.omega0, omega0 if omega0 is not None else (0.0, 0.0, 0.0)):
                    box.value = float(x)
            if unit is not None:
                self.start.unit.value = unit  # the boxes converted by _on_unit (the same ω₀ in rev/s)
        finally:
            self._setting = False
        if t_final is not None:
            self.t_final.value = float(t_final)
        self.choice.value = 0
        self._stale = True

    def link_motion(self):
        """The motion "ω₀ and start below" as link fields (omega0 in rad/s, T, and tilt, axis, damping, unit where
        they are not the defaults); None when a link cannot hold the motion shown (:meth:`beyond_links`)."""
        if self.choice.value != 0 or self.beyond_links():
            return None
        kw = {"omega0": self.omega0_rad(), "T": float(self.t_final.value)}
        if self.start.tilted:
            kw.update(tilt=float(self.start.angle.value), axis=self.start.axis.value)
        if float(self.start.damping.value) > 0.0:
            kw["damping"] = float(self.start.damping.value)
        if self.start.unit.value != "rad/s":
            kw["unit"] = self.start.unit.value
        return kw

    def on_show(self):
        """Called when the tab is opened: compute the selected trajectory if nothing is shown yet."""
        if self._stale and not self.task.running:
            self._on_run()

    @guarded(what=N_("computing the motion"))
    def _on_run(self, _b=None):
        body = self.state.body
        key = self.choice.value
        launch = self._launch_map.get(key)
        method = self.method.value
        t_final = float(self.t_final.value)
        omega0 = np.array([x.value for x in self.omega0], float) * self.start.omega_scale
        self._stale = False
        if launch is None:  # the link's bound: a faster spin took minutes and could not be animated faithfully
            for i, x in enumerate(omega0):
                check_range(f"ω₀{'₁₂₃'[i]}", float(x), *BOUNDS["omega0"], "rad/s")
        R0 = self.start.attitude(body.pendulum) if launch is None else None
        damping = self._check_damping(method)

        def work(task):
            task.progress(0.1, _("integrating"))
            try:
                with warnings.catch_warnings(record=True) as caught:  # a drift beyond the tolerance: said below
                    warnings.simplefilter("always", InvariantDriftWarning)
                    traj = playback.compute_motion(body.pendulum, launch, omega0, t_final, method, R0=R0,
                                                   damping=damping)
                drift = [w for w in caught if issubclass(w.category, InvariantDriftWarning)]
            except ValueError as exc:  # the integrator gave up: say what the user can change
                what = (f"ω₀ = [{numbers(omega0, 'g')}] rad/s" if launch is None
                        else _("trajectory #{id}").format(id=launch.id))
                shown = _("the previous motion stays shown") if self.trajectory is not None else _("nothing is shown")
                raise ValueError(_("{exc}. {what} is too fast for this integration (its step is not a control of "
                                   "the dashboard): try a smaller ω₀, a shorter duration or the other method; "
                                   "{shown}.").format(exc=exc, what=what, shown=shown)) from None
            if task.cancelled:
                return
            task.progress(0.6, _("preparing the animation"))
            how = (_("Routh + reconstruction, {method}").format(method=traj.method) if method == "lr"
                   else _(METHOD_NAMES[method]))
            if launch is None and self.start.tilted:
                how += ", " + self.start.describe()
            payload, fig = self._show(traj, body, task)
            if payload is None:
                return
            st = traj.stats
            orth = st.get("orthogonality_error")  # (no "nan" on the page when a method does not report it)
            turn = playback.max_angle_per_sample(playback.attitude_quaternions(traj.R[::self.stride]))
            self.info.value = (f"<span style='font-size:14px'>{body_title(body)}, {number(traj.t[-1], '.3g')} s "
                               f"({how}): "
                               + _("{n} samples shown, one every {dt:.3g} ms (≤ {turn:.2g} rad of rotation apart), "
                                   "{steps} steps, ").format(n=payload['n'], dt=Number(payload['dt'] * 1e3),
                                                             turn=Number(turn), steps=st.get('n_steps', 0))
                               + self._conservation_text(traj)
                               + (f", max ‖RᵀR − I‖ = {number(orth, '.1e')}" if orth is not None else "") + "</span>")
            if drift:  # the library's own check of the invariants (the motion is shown, with this note)
                self.msg.info(_("Note: ") + say_drift(str(drift[0].message)))
            elif turn > 1.5 * playback.ANGLE_PER_SAMPLE:  # capped at MAX_SAMPLES: say so, and what helps
                shorter = float(traj.t[-1]) * playback.ANGLE_PER_SAMPLE / turn
                self.msg.info(_("This motion turns the body by up to {turn:.2g} rad between the {n} samples shown, "
                                "too coarse for a faithful animation: a duration of at most {shorter:.3g} s shows it "
                                "sample by sample. Press ▶ play above the body.").format(
                    turn=Number(turn), n=payload['n'], shorter=Number(shorter)))
            else:
                self.msg.ok(_("press ▶ play above the body (1× is real time), or drag the time slider"))

        self.task.start(work, _("computing the motion"))

    def _show(self, traj, body, task, keep_time=False):
        """Send ``traj`` to the page (payload and plots, every ``stride``-th sample); ``(payload, figure)``, or
        ``(None, None)`` when the task was cancelled or the body changed meanwhile."""
        stride = playback.display_stride(traj)
        payload = motion_payload(body, traj, stride)
        fig = self._present(motion_plots_figure(traj, stride))
        if task.cancelled or self.state.body is not body:
            return None, None
        self.trajectory = traj
        self.stride = stride
        self.out.show_motion(fig, payload, keep_time=keep_time)
        return payload, fig

    @staticmethod
    def _conservation_text(traj):
        """The invariants' figures of the line under the controls: E and μ, or for a damped motion the loss and
        the energy balance E + W (W the work of the damping)."""
        from ..drift import damped, energy_balance_error

        if damped(traj):
            return _("damping c = {c:.3g} N m s (outside the paper's model): E from {e0:.4g} J to {e1:.4g} J, "
                     "max |E + W − E₀| = {bal:.2e} J (W the work of the damping)").format(
                c=Number(traj.stats["damping"]), e0=Number(traj.energy[0]), e1=Number(traj.energy[-1]),
                bal=Number(energy_balance_error(traj)))
        return (f"max |ΔE| = {number(traj.energy_error, '.2e')} J, "
                f"max |Δμ| = {number(traj.mu_error, '.2e')} kg m²/s")

    def _check_damping(self, method):
        """The damping c of the box; c > 0 with a conservative method is refused in words (a ValueError)."""
        c = self.start.damping_value()
        if c > 0.0 and method != "dop853":
            raise ValueError(_("damping c = {c:g} N m s: only “DOP853 (damping)” integrates a damped motion (a "
                               "viscous torque −c ω, outside the paper's model); the conservative methods keep the "
                               "energy. Choose “DOP853 (damping)” above, or set c = 0.").format(c=Number(c)))
        return c

    def _on_start(self, released=False):
        """A start chosen (R₀ = I or a tilt; ``released``: the tilt was just chosen, ω₀ is set to 0, a release
        from rest): the motion from it, computed and drawn at t = 0 (paused)."""
        if getattr(self, "_setting", False):
            return
        if released:
            for box in self.omega0:
                box.value = 0.0
        self.choice.value = 0
        self._stale = True
        if self.trajectory is not None:
            self._on_run()

    def beyond_links(self):
        """What of the motion shown a link cannot say, in words ("" when a link holds it all: ω₀, T, the start,
        the damping): a damping changed while it played (the motion continued from that time on)."""
        traj = self.trajectory
        if traj is not None and self.choice.value == 0 and "continued_from" in traj.stats:
            return _("a damping changed during the motion")
        return ""

    def omega0_rad(self):
        """ω₀ of the boxes in rad/s (they may be in rev/s)."""
        return tuple(float(b.value) * self.start.omega_scale for b in self.omega0)

    def _on_unit(self, change=None):
        """Another unit of ω₀: the boxes' numbers converted (the same ω₀ in the new unit), the label says it."""
        from .motion_controls import OMEGA_UNITS

        unit = self.start.unit.value
        if change is not None and change.get("old") in OMEGA_UNITS and change["old"] != unit:
            k = OMEGA_UNITS[change["old"]] / OMEGA_UNITS[unit]
            for box in self.omega0:
                box.value = float(f"{box.value * k:.6g}")
        self._omega_label.value = _("<span style='font-size:14px'>ω₀ [{unit}] for “ω₀ and start below”:"
                                    "</span>").format(unit=unit)
        self._stale = True

    @guarded(what=N_("changing the damping"))
    def _on_damping(self):
        """The damping changed: the motion shown continues from the time the page shows with the new c (the
        animation keeps its time and plays on); with a conservative method, a message."""
        traj = self.trajectory
        if traj is None or self.task.running or getattr(self, "_setting", False):
            self._stale = True
            return
        method = self.method.value
        c = self._check_damping(method)
        if c == 0.0 and not traj.stats.get("damping"):
            return  # nothing changes
        method = "dop853" if method == "lr" else method  # (a continuation integrates the full equations)
        body = self.state.body
        t_from = float(self.out.now)

        def work(task):
            task.progress(0.2, _("continuing from t = {t:.2f} s").format(t=Number(t_from)))
            new = playback.continue_motion(traj, t_from, method, damping=c)
            if task.cancelled:
                return
            if self._show(new, body, task, keep_time=True)[0] is not None:
                self.info.value = (f"<span style='font-size:14px'>{body_title(body)}, {number(new.t[-1], '.3g')} s, "
                                   + _("continued from t = {t:.2f} s with DOP853").format(
                                       t=Number(new.stats.get("continued_from", t_from)))
                                   + ": " + self._conservation_text(new) + "</span>")
                self.msg.ok(_("damping c = {c:g} N m s from t = {t:.2f} s on; the animation goes on").format(
                    c=Number(c), t=Number(new.stats.get("continued_from", t_from))))

        self.task.start(work, _("changing the damping"))


def say_drift(message: str) -> str:
    """A drift warning of the library in the motion panel's words: what drifted, that the motion is shown."""
    head = message.split(" (stats['drift'])")[0]
    return _("the integration's check of the invariants says {head}. The motion is shown; a shorter duration or "
             "the LGVI method keeps the invariants closer.").format(head=head)
