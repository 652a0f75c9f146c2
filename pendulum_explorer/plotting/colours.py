"""The colour-blind-safe palette of every figure (Okabe & Ito 2008), in one place.

Plotting modules and the dashboard take their colours from here (``pendulum_explorer.app.common.PALETTE`` is
:data:`OKABE_ITO` without its yellow, too faint for small markers on white); trajectories cycle through it, black
last.
"""
from __future__ import annotations

BLUE = "#0072B2"
ORANGE = "#E69F00"
BLUISH_GREEN = "#009E73"
REDDISH_PURPLE = "#CC79A7"
SKY_BLUE = "#56B4E9"
VERMILLION = "#D55E00"
YELLOW = "#F0E442"
BLACK = "#000000"
GREY = "#999999"

#: Okabe-Ito colour-blind-safe palette (trajectories cycle through it, black last)
OKABE_ITO = (BLUE, ORANGE, BLUISH_GREEN, REDDISH_PURPLE, SKY_BLUE, VERMILLION, YELLOW, BLACK)

#: the colours of the relative-equilibrium families' labels (the same on the sphere and the energy-momentum
#: diagram), given to the families in the order of their sorted labels (L1 blue, L2 orange, L3 green, L4 purple)
FAMILY_LABEL_COLOURS = (BLUE, ORANGE, BLUISH_GREEN, REDDISH_PURPLE, SKY_BLUE, VERMILLION, BLACK)

__all__ = ["FAMILY_LABEL_COLOURS", "OKABE_ITO", "BLUE", "ORANGE", "BLUISH_GREEN", "REDDISH_PURPLE", "SKY_BLUE", "VERMILLION", "YELLOW",
           "BLACK", "GREY"]
