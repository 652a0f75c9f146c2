"""The section panel's side figures: the energy–momentum diagram with the level in use marked, and (on request)
the crossings on the sphere.  Widgets and drawing wiring; the figures are :mod:`pendulum_explorer.plotting`'s."""
from __future__ import annotations

from typing import Any

from ..plotting.diagrams import energy_momentum_figure
from ..plotting.section import section_sphere_figure
from .common import figure_output, report_error
from .i18n import _
from .section_tools import button

EM_HEIGHT = 300
SPHERE_HEIGHT = 330


def em_figure(st: Any) -> Any:
    """The energy–momentum diagram of the state's body with the marker at its (mu, E) (``E`` None: no marker)."""
    marker = None if st.E is None else (st.mu, st.E)
    return st.present(energy_momentum_figure(st.equilibria(), marker=marker, height=st.size(EM_HEIGHT),
                                             label_px=st.label_px(13)))


class SideFigures:
    """``em_out`` (the diagram, redrawn at each level and in the presenter view), ``sphere_btn`` and ``sphere_out``
    ("draw on sphere": the launches' crossings on the sphere, body frame).  An error is said in ``msg``."""

    def __init__(self, state: Any, msg: Any) -> None:
        self.state, self.msg = state, msg
        self.em_out, self.sphere_out = figure_output(f"{EM_HEIGHT}px"), figure_output(f"{EM_HEIGHT}px")
        self.sphere_btn = button(_("draw on sphere"), "pe-sphere", icon="globe", width="150px")
        self.widgets = [self.em_out, self.sphere_btn, self.sphere_out]

    def draw_em(self) -> None:
        """The energy–momentum diagram of the body's equilibria with the marker at the state's (mu, E)."""
        try:
            self.em_out.show(em_figure(self.state))
        except Exception as exc:  # noqa: BLE001 - the error boundary of the diagram
            report_error(self.msg, exc, _("drawing the energy-momentum diagram"))

    def draw_sphere(self, section: Any, region: Any) -> None:
        """The crossings of the state's launches on ``section`` drawn on the sphere (over its ``region``)."""
        launches = list(self.state.launches)
        self.sphere_out.show(section_sphere_figure(
            section, [L.crossings for L in launches], region=region, names=[f"#{L.id}" for L in launches],
            colours=[L.colour for L in launches], height=SPHERE_HEIGHT, showlegend=False,
            title=_("the same crossings on the sphere (body frame)")))
