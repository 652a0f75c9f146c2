"""The colour-blind-safe palette of every figure (Okabe & Ito 2008), in one place.

Plotting modules and the dashboard take their colours from here; trajectories cycle through :data:`PALETTE`,
which is :data:`OKABE_ITO` without its yellow (too faint for small markers on white), black last; the families of
relative equilibria are coloured by :func:`alpha_colour_value`.

Accessibility (WCAG 2.1 AA, checked by tests/test_palette.py): every categorical palette (trajectories, stability
classes, families' labels, the isolated points, the body preview, the motion plots) keeps >= 10 CIEDE2000 between
any two colours under simulated deuteranopia, protanopia and tritanopia, and each also differs by marker symbol
(:data:`TRAJECTORY_SYMBOLS`) or line style; text is written at >= 4.5:1 on its background (:func:`contrast_ratio`,
:func:`text_colour`, :func:`label_colour`: a label's text darkened, its border and arrow in the full colour).
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


#: the smallest contrast ratio of text against its background (WCAG 2.1 AA, 1.4.3, normal text)
TEXT_CONTRAST = 4.5
#: the background of the figures' labels: their box (``LABEL_BOX``) over the lightest-blue plot background of the
#: plotly template (#E5ECF6, the energy–momentum diagram; the sphere's is whiter)
LABEL_BOX = "rgba(255,255,255,0.85)"

_NAMED = {"white": (1.0, 1.0, 1.0, 1.0), "black": (0.0, 0.0, 0.0, 1.0)}


def rgba(colour: str) -> tuple[float, float, float, float]:
    """``(r, g, b, a)`` in [0, 1] of a CSS colour: ``#RGB``, ``#RRGGBB``, ``rgb(...)``, ``rgba(...)``, white, black."""
    c = colour.strip().lower()
    if c in _NAMED:
        return _NAMED[c]
    if c.startswith("#"):
        h = c[1:]
        if len(h) == 3:
            h = "".join(ch * 2 for ch in h)
        if len(h) != 6:
            raise ValueError(f"colour must be #RGB or #RRGGBB; got {colour!r}")
        return int(h[0:2], 16) / 255, int(h[2:4], 16) / 255, int(h[4:6], 16) / 255, 1.0
    if c.startswith(("rgb(", "rgba(")):
        parts = [float(x) for x in c[c.index("(") + 1:c.rindex(")")].split(",")]
        a = parts[3] if len(parts) == 4 else 1.0
        return parts[0] / 255, parts[1] / 255, parts[2] / 255, a
    raise ValueError(f"colour must be #RRGGBB, rgb(), rgba(), white or black; got {colour!r}")


def over(colour: str, background: str) -> str:
    """``colour`` (possibly translucent) composited over the opaque ``background``, as ``#RRGGBB``."""
    r, g, b, a = rgba(colour)
    R, G, B, _ = rgba(background)
    mix = [a * x + (1 - a) * y for x, y in ((r, R), (g, G), (b, B))]
    return "#" + "".join(f"{round(255 * v):02X}" for v in mix)


def relative_luminance(colour: str) -> float:
    """WCAG 2.1 relative luminance of an opaque colour (sRGB linearised, 0.2126 R + 0.7152 G + 0.0722 B)."""
    lin = [v / 12.92 if v <= 0.04045 else ((v + 0.055) / 1.055) ** 2.4 for v in rgba(colour)[:3]]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


def contrast_ratio(foreground: str, background: str) -> float:
    """WCAG 2.1 contrast ratio ``(L1 + 0.05) / (L2 + 0.05)`` (1 ... 21) of a text colour on an opaque background
    (a translucent foreground is composited on the background first)."""
    lf = relative_luminance(over(foreground, background))
    lb = relative_luminance(background)
    return (max(lf, lb) + 0.05) / (min(lf, lb) + 0.05)


def text_colour(colour: str, background: str = "#FFFFFF", ratio: float = TEXT_CONTRAST + 0.05) -> str:
    """``colour`` as it may be written on ``background``: unchanged if it has ``ratio`` contrast there, else darkened
    (its sRGB channels scaled down together, so the hue stays) just enough; Okabe-Ito's orange #E69F00 becomes
    #9D6C00 on white."""
    if contrast_ratio(colour, background) >= ratio:
        return colour.upper() if colour.startswith("#") else colour
    r, g, b, _ = rgba(colour)
    lo, hi = 0.0, 1.0  # scale factors: lo reaches the ratio, hi does not
    for _ in range(40):
        k = (lo + hi) / 2
        trial = "#" + "".join(f"{int(255 * k * v):02X}" for v in (r, g, b))
        lo, hi = (k, hi) if contrast_ratio(trial, background) >= ratio else (lo, k)
    return "#" + "".join(f"{int(255 * lo * v):02X}" for v in (r, g, b))


#: the background of a label: its box over the energy–momentum diagram's plot background
LABEL_BACKGROUND = over(LABEL_BOX, "#E5ECF6")


def label_colour(colour: str) -> str:
    """The text colour of a label in ``colour`` (a family's or a point's): :func:`text_colour` on the labels'
    background (:data:`LABEL_BACKGROUND`); the label's border and arrow keep ``colour``."""
    return text_colour(colour, LABEL_BACKGROUND)


def alpha_colour_value(alpha: ArrayLike, scale: float) -> NDArray[np.float64]:
    """Bounded colour coordinate of alpha (the parameter of the relative-equilibrium families, Prop 9):
    ``(2/pi) arctan(alpha * scale)`` in [-1, 1].

    -inf -> -1 (blue), 0 -> 0, +inf -> +1 (red); with ``scale = J2`` (``EquilibriumSet.alpha_scale``) the pole
    1/J2 maps to 0.5.
    """
    return (2.0 / np.pi) * np.arctan(np.asarray(alpha, dtype=float) * scale)


__all__ = ["alpha_colour_value", "trajectory_symbol", "contrast_ratio", "relative_luminance", "text_colour",
           "label_colour", "over", "rgba", "TEXT_CONTRAST", "LABEL_BOX", "LABEL_BACKGROUND", "TRAJECTORY_SYMBOLS",
           "DARK_GREY",
           "FAMILY_LABEL_COLOURS", "OKABE_ITO", "PALETTE", "BLUE", "ORANGE", "BLUISH_GREEN",
           "REDDISH_PURPLE", "SKY_BLUE", "VERMILLION", "YELLOW", "BLACK", "GREY"]
