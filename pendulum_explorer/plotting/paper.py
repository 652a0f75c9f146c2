"""The paper's figures, computed and drawn: Fig. 1 (b)-(d) and the panels of Fig. 2.

Used by ``pendulum-explorer figure fig1|fig2`` (:mod:`pendulum_explorer.cli`), which writes them as one standalone
HTML file or as PNG/SVG images.
"""
from __future__ import annotations

import math

import plotly.graph_objects as go

from ..equilibria import equilibria
from ..errors import PendulumError
from ..poincare import PoincareSection
from ..presets import paper_fig1, paper_fig2
from .._words import _, number
from .labels import VIEW_WORDS
from .section import section_chart_figure
from .sphere import equilibria_sphere_figure

#: Fig. 1 panels: (b) the 3D view, (c) seen from the top (Gamma = -e3, the inverted side: the alpha < 0 and
#: alpha > 1/J3 families), (d) from the bottom (Gamma = +e3, the hanging side: L2, L3, L4)
FIG1_VIEWS = {"b": "3d", "c": "top", "d": "bottom"}
#: Fig. 2 panels (a)-(e): the total energies of the paper's initial conditions R0 = I, omega0 = c [1, 1, 1]
FIG2_ENERGIES = {"a": -2.65, "b": 0.0, "c": 2.03, "d": 8.83, "e": 11.95}
#: crossings of the paper's trajectory per Fig. 2 panel (the paper shows >= 2000)
FIG2_CROSSINGS = 2000
MAX_CROSSINGS = 100_000


def fig1_figures(height: int = 520) -> dict[str, go.Figure]:
    """Fig. 1 (b)-(d): the relative equilibria of the paper's elliptic cylinder on S^2, keyed by panel letter."""
    eq = equilibria(paper_fig1().pendulum)
    out = {}
    for letter, view in FIG1_VIEWS.items():
        fig = equilibria_sphere_figure(eq, view=view, height=height)
        fig.update_layout(title=_("Fig. 1 ({letter}): relative equilibria on S², {view} view").format(
            letter=letter, view=_(VIEW_WORDS[view])))
        out[letter] = fig
    return out


def fig2_figures(energy: float | None = None, n: int = FIG2_CROSSINGS, height: int = 480) -> dict[str, go.Figure]:
    """Fig. 2: Poincaré sections of the paper's trajectory (R0 = I, omega0 = c [1, 1, 1]) on the Fig. 2 body.

    Parameters
    ----------
    energy : float, optional
        Total energy [J] of one panel; default: the five panels (a)-(e) of the paper.  A paper energy keeps
        its letter; any other gives the panel ``"E=<energy>"``.
    n : int
        Crossings of the trajectory per panel, 1..100000.

    Returns
    -------
    dict of panel name -> plotly.graph_objects.Figure

    Raises
    ------
    PendulumError
        ``energy`` not finite or below the lowest energy of the paper's initial condition (``-m g rho_3``,
        :func:`pendulum_explorer.poincare.paper_initial_state`), or ``n`` outside 1..100000.
    """
    if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= MAX_CROSSINGS:
        raise PendulumError(f"n (crossings per panel) must be an integer in 1..{MAX_CROSSINGS}, got {n!r}")
    P = paper_fig2().pendulum
    if energy is None:
        panels = dict(FIG2_ENERGIES)
    else:
        if isinstance(energy, bool) or not isinstance(energy, (int, float)) or not math.isfinite(energy):
            raise PendulumError(f"energy must be a finite number of joules, got {energy!r}")
        letter = next((k for k, v in FIG2_ENERGIES.items() if v == energy), None)
        panels = {letter or f"E={energy:g}": float(energy)}
    out = {}
    for name, E in panels.items():
        sec, seed = PoincareSection.from_paper_ic(P, E)
        cr = sec.crossings(seed, n)
        label = _("Fig. 2 ({name})").format(name=name) if len(name) == 1 else _("Poincaré section")
        title = _("{label}: E = {E} J, μ = {mu} kg m²/s, {n} crossings").format(
            label=label, E=number(E, "g"), mu=number(sec.mu, ".4f"), n=cr.n_found)
        out[name] = section_chart_figure(sec, [cr], names=["R0 = I, ω0 = c[1, 1, 1]"], height=height, title=title)
    return out
