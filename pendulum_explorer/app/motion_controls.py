"""The Motion tab's controls of what a teacher reaches for (issue 23, part 2): the start ("release from rest tilted
θ° about an axis", besides R₀ = I), the unit of ω₀ (rad/s or rev/s) and the damping at the pivot (outside the
paper's model).  Widgets only: the attitude is built by the model layer (:func:`~pendulum_explorer.playback.
release_start`), the bounds come from the one table (:mod:`pendulum_explorer.bounds`)."""
from __future__ import annotations

import math

import ipywidgets as w
import numpy as np

from .. import playback
from ..bounds import BOUNDS
from .i18n import Number, _

#: the axes of the tilt offered: (frame, axis) by key; the lab's e1 and e2 are horizontal (e3 points down)
AXES = {"space-1": ("space", (1.0, 0.0, 0.0)), "space-2": ("space", (0.0, 1.0, 0.0)),
        "body-1": ("body", (1.0, 0.0, 0.0)), "body-2": ("body", (0.0, 1.0, 0.0)), "body-3": ("body", (0.0, 0.0, 1.0))}
#: rad/s per unit of the ω₀ menu
OMEGA_UNITS = {"rad/s": 1.0, "rev/s": 2.0 * math.pi}

ANGLE = BOUNDS["release_angle"]
DAMPING = BOUNDS["damping"]


class MotionStart:
    """The start, the unit of ω₀ and the damping, as widgets; :meth:`attitude` and :meth:`omega_scale` read them."""

    def __init__(self) -> None:
        small = {"description_width": "initial"}
        self.start = w.Dropdown(options=[(_("R₀ = I"), "identity"), (_("released tilted θ from hanging"), "tilt")],
                                value="identity", description=_("start"), style=small,
                                layout=w.Layout(width="auto"))
        self.start.add_class("pe-motion-start")
        lo, hi = ANGLE.range(plausible=True)
        self.angle = w.BoundedFloatText(value=30.0, min=lo, max=hi, step=5.0,
                                        description=_("θ [°] ({lo:g}…{hi:g})").format(lo=Number(lo), hi=Number(hi)),
                                        style={"description_width": "124px"}, layout=w.Layout(width="186px"))
        self.angle.add_class("pe-motion-angle")
        self.axis = w.Dropdown(options=[(_("lab e₁ (horizontal)"), "space-1"), (_("lab e₂ (horizontal)"), "space-2"),
                                        (_("body e₁"), "body-1"), (_("body e₂"), "body-2"), (_("body e₃"), "body-3")],
                               value="space-1", description=_("about"), style=small, layout=w.Layout(width="auto"))
        self.axis.add_class("pe-motion-axis")
        self.unit = w.Dropdown(options=list(OMEGA_UNITS), value="rad/s", description=_("ω₀ in"), style=small,
                               layout=w.Layout(width="130px"))
        self.unit.add_class("pe-omega-unit")
        clo, chi = DAMPING.range(plausible=True)
        self.damping = w.BoundedFloatText(value=0.0, min=clo, max=chi, step=0.05,
                                          style={"description_width": "175px"},
                                          description=_("damping c ({lo:g}…{hi:g} N m s)").format(lo=Number(clo), hi=Number(chi)),
                                          tooltip=_("a viscous torque −c ω at the pivot: not in the paper's model "
                                                    "(its pendulum keeps its energy); only DOP853 integrates it"),
                                          layout=w.Layout(width="245px"))
        self.damping.add_class("pe-motion-damping")
        # the damping is outside the paper's model: said beside the box (and in its tooltip)
        self.note = w.HTML(_("<span style='font-size:13px;color:#555'>not in the paper's model</span>"),
                           layout=w.Layout(margin="0 0 0 4px"))
        self.widget = w.HBox([self.start, self.angle, self.axis, self.unit, self.damping, self.note],
                             layout=w.Layout(flex_flow="row wrap", align_items="center"))
        self.start.observe(lambda _c: self._show_tilt(), "value")
        self._show_tilt()

    def _show_tilt(self) -> None:
        shown = "" if self.start.value == "tilt" else "none"
        self.angle.layout.display = shown
        self.axis.layout.display = shown

    @property
    def tilted(self) -> bool:
        return self.start.value == "tilt"

    def attitude(self, pendulum) -> np.ndarray | None:
        """R₀ of the start chosen: None for R₀ = I, else the hanging attitude tilted θ° about the axis chosen
        (:func:`~pendulum_explorer.playback.release_start`; a ValueError names θ and its range)."""
        if not self.tilted:
            return None
        ANGLE.check(float(self.angle.value), plausible=True, name=_("θ"))
        frame, axis = AXES[self.axis.value]
        return playback.release_start(pendulum, float(self.angle.value), axis, frame)

    @property
    def omega_scale(self) -> float:
        """rad/s per unit of the ω₀ boxes."""
        return OMEGA_UNITS[self.unit.value]

    def damping_value(self) -> float:
        """The damping c [N m s], checked against the dashboard's range (a ValueError names it)."""
        return float(DAMPING.check(float(self.damping.value), plausible=True, name=_("the damping c")))

    def describe(self) -> str:
        """The start in words (the line under the controls)."""
        if not self.tilted:
            return _("from R₀ = I")
        label = dict((v, k) for k, v in self.axis.options)[self.axis.value]
        return _("released {angle:g}° about {axis} from hanging").format(angle=Number(self.angle.value), axis=label)
