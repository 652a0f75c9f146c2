"""The figures' text alternatives in the page (issue 24, part 2): a view carries its figure's description
(``PlotlyView.description``, the page's accessible name of the figure), and the section chart's description
counts the trajectories and crossings it shows as they are launched, undone and cleared."""
import re

import plotly.graph_objects as go

from pendulum_explorer.app.plotview import PlotlyView
from pendulum_explorer.plotting.describe import with_description

from app_helpers import _accessible_point, app  # noqa: F401


def test_a_view_carries_its_figures_description_and_a_new_one():
    view = PlotlyView()
    view.show(with_description(go.Figure(go.Scatter(x=[0, 1], y=[1, 0])), "a line from (0, 1) to (1, 0)"))
    assert view.description == "a line from (0, 1) to (1, 0)"
    view.describe("two points")
    # the page, the figure kept in Python and the JSON the browser holds all say it
    assert view.description == "two points"
    assert view.fig.layout.meta["description"] == "two points"
    assert view.figure["layout"]["meta"]["description"] == "two points"
    view.show(go.Figure())
    assert view.description == ""


def _counts(text):
    m = re.search(r": (\d+|no) trajector(?:y|ies), (\d+|no) crossings?;", text)
    assert m, text
    return tuple(0 if g == "no" else int(g) for g in m.groups())


def test_the_section_charts_description_counts_what_it_shows(app):  # noqa: F811
    sec = app.panel("section")
    chart = sec.chart
    assert chart.description.startswith(f"Poincaré section at E = {sec.section.energy:.4g} J"), chart.description
    assert _counts(chart.description) == (0, 0)
    phi, z = _accessible_point(sec)
    sec.launch_at(phi, z, n=150)
    sec.launch_at(phi + 0.1, z, n=120)
    sizes = [len(tr.x) for tr in sec.crossing_traces()]
    assert len(sizes) == 2 and all(sizes), sizes
    assert _counts(chart.description) == (2, sum(sizes)), (chart.description, sizes)
    sec.undo()
    assert _counts(chart.description) == (1, sizes[0]), chart.description
