"""What the Motion tab says in its About box.  No widgets (tested without them)."""
from __future__ import annotations

from typing import Any

from .i18n import N_, _, parts_html

#: the About box's longer formulas, put into the translated paragraphs by name ({Gamma}, {R}, ...): the same in
#: every language, and a translation cannot break their LaTeX
FORMULAS = {
    "Gamma": r"\(\Gamma = R^{T}e_3\)",
    "theta": r"\(\theta_{\rm dyn}\)",
    "R": r"\(R = e^{\theta_{\rm dyn}\hat e_3}R_{\rm hor}\)",
    "omega": r"\(\omega = \omega_{\rm hor}+\nu\Gamma\)",
    "E": r"\(E = \tfrac12\omega^{T}J\omega - mg\rho^{T}\Gamma\)",
    "mu": r"\(\mu = \omega^{T}J\Gamma\)",
}

#: the About box: paragraphs and list items (translated), each with its HTML tag; the formulas in braces are
#: :data:`FORMULAS` (so no other brace may appear in a part)
ABOUT_PARTS = (
    # TRANSLATORS: {Gamma} is a formula (the reduced attitude), kept as it is
    ("p", N_(r"The attitude \(R(t)\in SO(3)\) of the body is rebuilt from the motion of the reduced attitude "
             r"{Gamma}, the direction of gravity seen from the body. Two ways are offered:")),
    # TRANSLATORS: {theta}, {R} and {omega} are formulas, kept as they are
    ("li", N_(r"<b>Lagrange&ndash;Routh + reconstruction</b> (Prop. 17): integrate the reduced equations (62) on "
              r"\(TS^2\) at the fixed momentum \(\mu\), lift horizontally (Eqs 65&ndash;66) and add the dynamic "
              r"phase {theta} (Eq. 67): {R}, {omega} (Eqs 68&ndash;69).")),
    ("li", N_(r"<b>LGVI</b>: the Lie group variational integrator on the full equations (1)&ndash;(2); \(R\) stays a "
              r"rotation to round-off and the energy error stays bounded instead of drifting.")),
    # TRANSLATORS: {E} and {mu} are formulas (the energy and the vertical angular momentum), kept as they are
    ("p", N_("Both conserve the total energy {E} (Eq. 34) and the vertical angular momentum {mu} (Prop. 1); the "
             "lower-right plot shows how well.")),
    ("p", N_(r"<b>Reading the picture.</b> Left: the body seen from the lab (up is up), the pivot (black), the "
             r"centre of mass (orange) and its path. Middle: \(\Gamma(t)\) on the unit sphere in body axes &mdash; "
             r"the hanging equilibrium is the point \(\rho/\|\rho\|\). Right: the body angular velocity "
             r"\(\omega(t)\) and the conservation errors on a log scale. Play / pause, the speed menu and the time "
             r"slider run in the browser without the kernel.")),
    ("p", N_(r"<b>Time on screen is true time.</b> At 1&times; one second of motion takes one second; the browser "
             r"interpolates the attitude between the computed samples at its own frame rate. The samples are close "
             r"enough for the fastest motion shown: at most 0.05 rad (3&deg;) of rotation between two samples and at "
             r"least 40 samples per period of the small oscillations about the hanging equilibrium (Eqs "
             r"21&ndash;24), so a fast swing is never shown as a slow one. The paths (centre of mass, \(\Gamma\)) "
             r"are drawn through every sample; the bold part is the last 2 s.")),
)


def about_html(tr: Any = None) -> str:
    """The About box's HTML in the page's language (``tr``: the translation function, default :func:`_`)."""
    return parts_html(ABOUT_PARTS, tr, FORMULAS)


ABOUT = about_html(lambda t: t)  # (English)
