"""The section panel's chart: the region of a section, one crossings trace per launch, kept in step with the
launches (a thin wrapper over a :class:`~.plotview.PlotlyView`: drawing wiring, no numerics)."""
from __future__ import annotations

from typing import Any

import numpy as np
import plotly.graph_objects as go

from ..plotting.describe import describe_section
from ..plotting.section import crossings_trace, periodic_orbit_trace, section_chart_figure
from . import i18n
from .i18n import _

#: the chart's height [px] (the presenter view: ``AppState.size``); whole in the first screen at 1280x720 beside
#: the controls' column
HEIGHT = 420
#: where the chart's invisible WebGL warm-up point sits (outside the fixed axis range -pi ... pi)
WARM_X = -10.0
#: a trace with this meta is drawn by the page only after the figure's first draw is shown (``plotview.js``)
AFTER_PAINT = "pe-after-paint"


class SectionChart:
    """Draws a section's :meth:`~pendulum_explorer.poincare.PoincareSection.chart_region` (its y axis over
    :meth:`~pendulum_explorer.poincare.PoincareSection.chart_window`) and the launches' crossings into ``view``."""

    def __init__(self, view: Any, state: Any) -> None:
        self.view = view
        self.state = state  # its presenter flag and figure sizes
        self.section: Any = None
        self.region: Any = None
        self.chaos: Any = None

    def draw(self, sec: Any, region: Any, launches: list[Any], chaos: Any = None, orbits: list[Any] | None = None,
             overlays: list[Any] | None = None) -> None:
        """The whole chart in one update of the view: the region, the chaos map under the crossings (if any),
        the given launches, the periodic orbits found (if any) and ``overlays`` (traces: the manifolds, a
        followed family's members) on top."""
        fig = self.figure(sec, region, launches, chaos, orbits)
        for tr in overlays or ():
            fig.add_trace(tr)
        self.section, self.region, self.chaos = sec, region, chaos
        self.view.show(fig)

    def figure(self, sec: Any, region: Any, launches: list[Any], chaos: Any = None, orbits: list[Any] | None = None
               ) -> Any:
        """The chart's figure (what :meth:`draw` shows; the dashboard's warm-up builds one without a view)."""
        # no relative-equilibria markers: PoincareSection.relative_equilibria keeps its own cache of whole
        # EquilibriumSets (~6 MB per body) beside state.equilibria(), which the kernel memory budget cannot afford
        fig = section_chart_figure(sec, region=region, clickable=True, height=self.state.size(HEIGHT),
                                   show_equilibria=False, chaos=chaos,
                                   title=f"Poincaré section at E = {sec.energy:.4g} J, μ = {sec.mu:.4g} kg m²/s")
        if i18n.language() != "en":  # the title and its click hint as one sentence of the page's language
            fig.update_layout(title_text=_("Poincaré section at E = {E} J, μ = {mu} kg m²/s  (click in the white "
                                           "region)").format(E=i18n.number(sec.energy, ".4g"),
                                                             mu=i18n.number(sec.mu, ".4g")))
        lo, hi = sec.chart_window()
        if (lo, hi) != (-1.0, 1.0):  # a thin band: the axis shows it (hanging side at the bottom, as always)
            fig.update_yaxes(range=[hi, lo], title=_("Γ₃ = cos θ  (zoomed to the accessible band)"))
        # one transparent WebGL point outside the axes: drawn right after the chart is first shown (its tab
        # opening; the page draws an AFTER_PAINT trace then), it compiles the scattergl marker shaders, not the
        # first click's crossings (0.4-0.7 s in a software-rendered browser)
        fig.add_trace(go.Scattergl(x=[WARM_X], y=[0.0], mode="markers", name="", hoverinfo="skip", showlegend=False,
                                   marker=dict(size=1, color="rgba(0,0,0,0)"), meta=AFTER_PAINT))
        for L in launches:
            fig.add_trace(self._trace(L))
        if orbits:
            fig.add_trace(periodic_orbit_trace(orbits))
        return self.state.present(fig)

    def _trace(self, launch: Any) -> Any:
        """The chart trace of a launch's crossings (chart coordinates rounded to 1e-5 for the browser; larger
        markers in the presenter view)."""
        launch.trace_name = f"#{launch.id}"
        tr = crossings_trace(name=launch.trace_name, colour=launch.colour, marker_size=5 if self.state.presenter else 3,
                             webgl=True, megno=getattr(launch, "megno", None))
        tr.x, tr.y = np.round(launch.chart[:, 0], 5), np.round(launch.chart[:, 1], 5)
        return tr

    def _index(self, launch: Any) -> int | None:
        names = [tr.name for tr in self.view.data]
        name = getattr(launch, "trace_name", None)
        return names.index(name) if name in names else None

    def add(self, launches: list[Any]) -> None:
        self.view.add_traces([self._trace(L) for L in launches])

    def update(self, launch: Any, sec: Any) -> None:
        """Show the launch's crossings so far (only while ``sec`` is the section drawn): the points its trace does
        not show yet are appended (the browser receives only those)."""
        i = self._index(launch) if sec is self.section else None
        if i is None:
            return
        xy = np.round(launch.chart, 5)
        tr = self.view.data[i]
        n = 0 if tr.x is None else len(tr.x)
        if n and (n > len(xy) or (tr.x[-1], tr.y[-1]) != tuple(xy[n - 1])):  # not a prefix (restarted): resend
            self.view.restyle(i, x=xy[:, 0], y=xy[:, 1])
        elif len(xy) > n:
            self.view.extend(i, x=xy[n:, 0], y=xy[n:, 1])

    def settle(self) -> None:
        """The crossings streamed so far are complete (a task ended): the browser draws them on the chart now,
        and the chart's text alternative counts them."""
        self.view.settle()
        self.describe()

    def describe(self) -> None:
        """The chart's text alternative (:func:`describe_section`) with the trajectories and crossings it shows."""
        if self.section is not None:
            counts = [0 if tr.x is None else len(tr.x) for tr in self.traces()]
            self.view.describe(describe_section(self.section, region=self.region, chaos=self.chaos, counts=counts))

    def show_megno(self, launch: Any, sec: Any) -> None:
        """The launch's hover gains its mean MEGNO ``launch.megno`` = (Ybar, T) (only while ``sec`` is drawn)."""
        i = self._index(launch) if sec is self.section else None
        if i is not None:
            self.view.restyle(i, hovertemplate=self._trace(launch).hovertemplate)

    def remove(self, launches: list[Any]) -> None:
        idx = [i for i in (self._index(L) for L in launches) if i is not None]
        if idx:
            self.view.delete_traces(sorted(idx))
            self.describe()

    def traces(self) -> list[Any]:
        """The traces that hold crossings."""
        return [tr for tr in self.view.data if tr.name and tr.name.startswith("#")]
