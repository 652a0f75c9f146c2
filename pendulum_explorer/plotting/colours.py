"""The colour-blind-safe palette of every figure (Okabe & Ito 2008), in one place.

Plotting modules and the dashboard take their colours from here; trajectories cycle through :data:`PALETTE`,
which is :data:`OKABE_ITO` without its yellow (too faint for small markers on white), black last; the families of
relative equilibria are coloured by :func:`alpha_colour_value`.
"""
from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

BLUE = "#0072B2"
ORANGE = "#E69F00"
BLUISH_GREEN = "#009E73"
REDDISH_PURPLE = "#CC79A7"
SKY_BLUE = "#56B4E9"
VERMILLION = "#D55E00"
YELLOW = "#F0E442"
BLACK = "#000000"
GREY = "#999999"
#: the degenerate / unclassified stability class: Okabe-Ito's grey #999999 and reddish purple (focus-focus) are 6.2
#: CIEDE2000 apart under simulated deuteranopia (tests/test_palette.py asks >= 10); #555555 is >= 12.5 from every
#: other class under all three deficiencies, and 7.5:1 on white
DARK_GREY = "#555555"

#: Okabe-Ito colour-blind-safe palette (trajectories cycle through it, black last)
OKABE_ITO = (BLUE, ORANGE, BLUISH_GREEN, REDDISH_PURPLE, SKY_BLUE, VERMILLION, YELLOW, BLACK)
#: trajectory colours, in the figures and the dashboard alike: Okabe-Ito without its yellow (3 px yellow dots on
#: the white accessible region have a contrast of 1.3:1 and vanish on a projector), black last
PALETTE = tuple(c for c in OKABE_ITO if c != YELLOW)
#: the marker symbol of each trajectory colour (same order as :data:`PALETTE`): trajectories differ by more than
#: colour (WCAG 1.4.1); :func:`trajectory_symbol` gives a colour's symbol
TRAJECTORY_SYMBOLS = ("circle", "square", "diamond", "triangle-up", "cross", "x", "star")


def trajectory_symbol(colour: str) -> str:
    """The marker symbol that goes with a trajectory colour of :data:`PALETTE` (``"circle"`` for any other)."""
    key = colour.upper()
    return next((s for c, s in zip(PALETTE, TRAJECTORY_SYMBOLS) if c.upper() == key), "circle")


#: the colours of the relative-equilibrium families' labels (the same on the sphere and the energy-momentum
#: diagram), given to the families in the order of their sorted labels (L1 blue, L2 orange, L3 green, L4 purple)
FAMILY_LABEL_COLOURS = PALETTE


def alpha_colour_value(alpha: ArrayLike, scale: float) -> NDArray[np.float64]:
    """Bounded colour coordinate of alpha (the parameter of the relative-equilibrium families, Prop 9):
    ``(2/pi) arctan(alpha * scale)`` in [-1, 1].

    -inf -> -1 (blue), 0 -> 0, +inf -> +1 (red); with ``scale = J2`` (``EquilibriumSet.alpha_scale``) the pole
    1/J2 maps to 0.5.
    """
    return (2.0 / np.pi) * np.arctan(np.asarray(alpha, dtype=float) * scale)


__all__ = ["alpha_colour_value", "trajectory_symbol", "TRAJECTORY_SYMBOLS", "DARK_GREY",
           "FAMILY_LABEL_COLOURS", "OKABE_ITO", "PALETTE", "BLUE", "ORANGE", "BLUISH_GREEN",
           "REDDISH_PURPLE", "SKY_BLUE", "VERMILLION", "YELLOW", "BLACK", "GREY"]
