"""The words and line styles the figures share (family names, point labels, stability dashes) and the crossings a
figure accepts: small pieces every figure module and the text alternatives (:mod:`.describe`) use.  The words are
English constants (marked for the catalog with ``N_``), translated where a figure shows them (:func:`point_label`,
:func:`family_name`, :func:`stability_name`, :func:`kind_name`)."""
from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Union

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._words import N_, _

if TYPE_CHECKING:  # the figure modules that need no section (the body preview, the sphere) do not import it
    from ..poincare import BatchCrossings, Crossings

#: what the isolated points are called (English; :func:`point_label` in the page's language)
POINT_LABELS = {"hanging": N_("hanging"), "inverted": N_("inverted"), "eq38": N_("Eq. 38 spin")}

#: the words for the families of the non-generic bodies (rho on a principal axis): spins about the rho axis
FAMILY_NAMES = {"axis-hanging": N_("hanging spin"), "axis-inverted": N_("inverted spin"), "eq7a": N_("ring")}

#: the stability classes of the relative equilibria, as the figures name them (the class names are the words)
STABILITY_NAMES = {"elliptic-elliptic": N_("elliptic-elliptic"), "saddle-centre": N_("saddle-centre"),
                   "saddle-saddle": N_("saddle-saddle"), "focus-focus": N_("focus-focus"),
                   "degenerate": N_("degenerate")}

#: the kinds of periodic orbits (and of a family's members), as the figures name them
KIND_NAMES = {"elliptic": N_("elliptic"), "hyperbolic": N_("hyperbolic"), "parabolic": N_("parabolic")}

#: the camera presets of the equilibria sphere in words ("3d view", "top view")
VIEW_WORDS = {"3d": N_("3d"), "top": N_("top"), "bottom": N_("bottom")}


def point_label(name: str) -> str:
    """What an isolated point (``hanging``, ``inverted``, ``eq38``) is called, in the page's language."""
    return _(POINT_LABELS[name]) if name in POINT_LABELS else name


def stability_name(cls: str) -> str:
    """A stability class (``elliptic-elliptic``, ...) in the page's language; an unknown class as it is."""
    return _(STABILITY_NAMES[cls]) if cls in STABILITY_NAMES else cls


def kind_name(kind: str) -> str:
    """A kind of periodic orbit (``elliptic``, ``hyperbolic``, ``parabolic``) in the page's language."""
    return _(KIND_NAMES[kind]) if kind in KIND_NAMES else kind


def family_name(label: str) -> str:
    """What a family is called on the page: ``L1`` … ``L4`` as in the paper's Fig. 1; the non-generic families in
    words ("hanging spin", "inverted spin": spins about the pivot–centre-of-mass line; "ring", "ring 1", … for the
    rings of steady spins at one alpha, paper Eqs 41 and 7a) instead of the library's labels ("axis-hanging",
    "eq41-p1", "eq7a"), in the page's language."""
    if label in FAMILY_NAMES:
        return _(FAMILY_NAMES[label])
    if label.startswith("eq41-p"):
        return _("ring {n}").format(n=label.removeprefix("eq41-p"))
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
