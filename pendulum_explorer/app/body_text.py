"""What the Body tab says: its About text and the summary of a body (principal moments, rho, l1, l2, periods).
No widgets (tested without them)."""
from __future__ import annotations

import html

import numpy as np

from ..bodies import Body
from ..errors import BalancedPendulumError
from . import i18n
from .common import body_title, fmt
from .i18n import N_, _

#: the About box: paragraphs (translated) and displayed equations (not marked: the same in every language)
ABOUT_PARTS = (
    N_(r"The 3D pendulum is a rigid body that turns freely about a fixed pivot in uniform gravity. In the body "
       r"frame its equations of motion are (Eqs 1&ndash;2)"),
    r"$$ J\dot\omega = J\omega\times\omega + m g\,\rho\times R^{T}e_3,\qquad \dot R = R\,\hat\omega ,$$",
    N_(r"where \(J\) is the inertia about the <b>pivot</b>, \(\rho\) points from the pivot to the centre of mass "
       r"and \(e_3\) points <b>down</b>. Everything the dashboard does depends only on \(J\), \(\rho\), \(m\) "
       r"and \(g\). We always quote the principal moments \(J_1\ge J_2\ge J_3\) and \(\rho\) in principal axes "
       r"(Sec. 4.3)."),
    N_(r"Near the hanging equilibrium (\(\Gamma = \rho/\|\rho\|\)) the body performs two small oscillations: "
       r"solving \(J = MM^{T}\), \(-\tfrac{mg}{\|\rho\|}\hat\rho^{2} = M\,\mathrm{diag}(mgl_1, mgl_2, 0)\,M^{T}\) "
       r"(Eqs 21&ndash;24) gives \(l_1\ge l_2\) and the angular frequencies \(\omega_i=\sqrt{m g l_i}\) of the "
       r"two normal modes, i.e. the periods \(T_i = 2\pi/\sqrt{m g l_i}\). (\(l_i\) is measured in 1/(kg m): a "
       r"point mass \(m\) on a massless rod of length \(L\) has \(l = 1/(mL)\) and the familiar "
       r"\(\omega = \sqrt{g/L}\).) The third direction, the spin about the vertical, costs no energy: it is the "
       r"symmetry behind the conserved momentum \(\mu\)."),
    N_("<b>Reading the picture.</b> The body hangs in equilibrium: the black diamond is the pivot, the orange dot "
       "the centre of mass straight below it, the three coloured lines the principal axes of \\(J\\) through the "
       "pivot (solid, dashed, dotted for 1, 2, 3) and the green line the direction of gravity. Drag to rotate."),
    N_("A custom \\(J\\) must be symmetric, positive definite and physically realisable "
       "(\\(J_1\\le J_2+J_3\\)); if it is not, the reason appears next to the controls and the last valid body "
       "stays in use. A custom \\(J\\) is drawn as the homogeneous ellipsoid with the same inertia about the "
       "centre of mass (a sphere if there is none)."),
)


def about_html() -> str:
    """The About box's HTML in the page's language."""
    return "\n".join(part if part.startswith("$$") else f"<p>{_(part)}</p>" for part in ABOUT_PARTS)


ABOUT = "\n".join(part if part.startswith("$$") else f"<p>{part}</p>" for part in ABOUT_PARTS)  # (English)


def body_summary_html(body: Body) -> str:
    """HTML table: principal moments, rho in principal axes, l1, l2 and the small-oscillation periods."""
    pend = body.pendulum
    pp, _axes = pend.principal()
    Jd = pend.principal_moments
    comma = i18n.language() in i18n.DECIMAL_COMMA
    sep = i18n.list_separator()

    def num(x):
        return i18n.number(x, ".4g") if comma else fmt(x)

    rows = [(_("principal moments J₁ ≥ J₂ ≥ J₃ [kg m²]"), sep.join(num(x) for x in Jd)),
            (_("ρ in principal axes [m]"), "[" + sep.join(num(x) for x in pp.rho) + "]"),
            ("|ρ| [m]", num(np.linalg.norm(pend.rho))),
            ("m [kg], g [m/s²]", f"{num(pend.m)}{sep}{num(pend.g)}")]
    try:
        so = pend.small_oscillations()
        rows += [(_("l₁, l₂ (Eq. 24) [1/(kg m)]"), f"{num(so['l'][0])}{sep}{num(so['l'][1])}"),
                 (_("small-oscillation periods T₁, T₂ [s]"), f"{num(so['periods'][0])}{sep}{num(so['periods'][1])}")]
    except BalancedPendulumError:
        rows.append((_("small oscillations"), _("none: ρ = 0 (balanced body)")))
    cells = "".join(f"<tr><td style='padding:1px 10px 1px 0;color:#444'>{html.escape(k)}</td>"
                    f"<td style='font-family:monospace'>{html.escape(v)}</td></tr>" for k, v in rows)
    desc = html.escape(_(body.description) if body.description else "")  # a preset's in the page's language
    # line-height: the widget's default (the 28 px row height of a control) spread the table over the whole screen
    return (f"<div class='pe-body-summary' style='font-size:14px;line-height:1.4'><b>{html.escape(body_title(body))}"
            f"</b><br><i>{desc}</i><table style='margin-top:4px;line-height:1.4'>{cells}</table></div>")
