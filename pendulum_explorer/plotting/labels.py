"""The words and line styles the figures share (family names, point labels, stability dashes) and the crossings a
figure accepts: small pieces every figure module and the text alternatives (:mod:`.describe`) use."""
from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Union

import numpy as np
from numpy.typing import ArrayLike, NDArray

if TYPE_CHECKING:  # the figure modules that need no section (the body preview, the sphere) do not import it
    from ..poincare import BatchCrossings, Crossings

POINT_LABELS = {"hanging": "hanging", "inverted": "inverted", "eq38": "Eq. 38 spin"}

#: the words for the families of the non-generic bodies (rho on a principal axis): spins about the rho axis
FAMILY_NAMES = {"axis-hanging": "hanging spin", "axis-inverted": "inverted spin", "eq7a": "ring"}


def family_name(label: str) -> str:
    """What a family is called on the page: ``L1`` … ``L4`` as in the paper's Fig. 1; the non-generic families in
    words ("hanging spin", "inverted spin": spins about the pivot–centre-of-mass line; "ring", "ring 1", … for the
    rings of steady spins at one alpha, paper Eqs 41 and 7a) instead of the library's labels ("axis-hanging",
    "eq41-p1", "eq7a")."""
    if label in FAMILY_NAMES:
        return FAMILY_NAMES[label]
    if label.startswith("eq41-p"):
        return "ring " + label.removeprefix("eq41-p")
    return label


STABILITY_DASH = {"elliptic-elliptic": "solid", "saddle-centre": "dash", "saddle-saddle": "dot",
                  "focus-focus": "dashdot", "degenerate": "longdash", "": "longdashdot"}


CrossingsLike = Union["Crossings", "BatchCrossings", NDArray[np.float64], Sequence[Union["Crossings", ArrayLike]], None]


def _gammas(c: Crossings | ArrayLike | None) -> NDArray[np.float64]:
    """Gamma at the crossings, (n, 3): from a Crossings or an array of Gammas."""
    from ..poincare import Crossings

    if c is None:
        return np.zeros((0, 3))
    if isinstance(c, Crossings):
        return np.asarray(c.Gamma, float).reshape(-1, 3)[: c.n_found]
    return np.asarray(c, float).reshape(-1, 3)


def _as_list(crossings: CrossingsLike) -> list[NDArray[np.float64]]:
    """One (n, 3) array of Gammas per trajectory: from Crossings, BatchCrossings, a (n, 3) array or a list of
    Crossings / arrays."""
    from ..poincare import Crossings

    if crossings is None:
        return []
    if isinstance(crossings, (Crossings, np.ndarray)):
        return [_gammas(crossings)]
    return [_gammas(c) for c in crossings]
