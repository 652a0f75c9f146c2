"""What the Body tab says: its About text and the summary of a body (principal moments, rho, l1, l2, periods).
No widgets (tested without them)."""
from __future__ import annotations

import html

import numpy as np

from ..bodies import Body
from ..errors import BalancedPendulumError
from .common import body_title, fmt

ABOUT = r"""
<p>The 3D pendulum is a rigid body that turns freely about a fixed pivot in uniform gravity. In the body frame
its equations of motion are (Eqs 1&ndash;2)</p>
$$ J\dot\omega = J\omega\times\omega + m g\,\rho\times R^{T}e_3,\qquad \dot R = R\,\hat\omega ,$$
<p>where \(J\) is the inertia about the <b>pivot</b>, \(\rho\) points from the pivot to the centre of mass and
\(e_3\) points <b>down</b>. Everything the dashboard does depends only on \(J\), \(\rho\), \(m\) and \(g\).
We always quote the principal moments \(J_1\ge J_2\ge J_3\) and \(\rho\) in principal axes (Sec. 4.3).</p>
<p>Near the hanging equilibrium (\(\Gamma = \rho/\|\rho\|\)) the body performs two small oscillations: solving
\(J = MM^{T}\), \(-\tfrac{mg}{\|\rho\|}\hat\rho^{2} = M\,\mathrm{diag}(mgl_1, mgl_2, 0)\,M^{T}\) (Eqs 21&ndash;24)
gives \(l_1\ge l_2\) and the angular frequencies \(\omega_i=\sqrt{m g l_i}\) of the two normal modes, i.e. the
periods \(T_i = 2\pi/\sqrt{m g l_i}\). (\(l_i\) is measured in 1/(kg m): a point mass \(m\) on a massless rod of
length \(L\) has \(l = 1/(mL)\) and the familiar \(\omega = \sqrt{g/L}\).) The third direction, the spin about
the vertical, costs no energy: it is the symmetry behind the conserved momentum \(\mu\).</p>
<p><b>Reading the picture.</b> The body hangs in equilibrium: the black diamond is the pivot, the orange dot
the centre of mass straight below it, the three coloured lines the principal axes of \(J\) through the pivot
(solid, dashed, dotted for 1, 2, 3) and the green line the direction of gravity. Drag to rotate.</p>
<p>A custom \(J\) must be symmetric, positive definite and physically realisable (\(J_1\le J_2+J_3\)); if it is
not, the reason appears next to the controls and the last valid body stays in use. A custom \(J\) is drawn as the
homogeneous ellipsoid with the same inertia about the centre of mass (a sphere if there is none).</p>
"""


def body_summary_html(body: Body) -> str:
    """HTML table: principal moments, rho in principal axes, l1, l2 and the small-oscillation periods."""
    pend = body.pendulum
    pp, _ = pend.principal()
    Jd = pend.principal_moments
    rows = [("principal moments J₁ ≥ J₂ ≥ J₃ [kg m²]", ", ".join(fmt(x) for x in Jd)),
            ("ρ in principal axes [m]", "[" + ", ".join(fmt(x) for x in pp.rho) + "]"),
            ("|ρ| [m]", fmt(np.linalg.norm(pend.rho))),
            ("m [kg], g [m/s²]", f"{fmt(pend.m)}, {fmt(pend.g)}")]
    try:
        so = pend.small_oscillations()
        rows += [("l₁, l₂ (Eq. 24) [1/(kg m)]", f"{fmt(so['l'][0])}, {fmt(so['l'][1])}"),
                 ("small-oscillation periods T₁, T₂ [s]", f"{fmt(so['periods'][0])}, {fmt(so['periods'][1])}")]
    except BalancedPendulumError:
        rows.append(("small oscillations", "none: ρ = 0 (balanced body)"))
    cells = "".join(f"<tr><td style='padding:1px 10px 1px 0;color:#444'>{html.escape(k)}</td>"
                    f"<td style='font-family:monospace'>{html.escape(v)}</td></tr>" for k, v in rows)
    desc = html.escape(body.description or "")
    # line-height: the widget's default (the 28 px row height of a control) spread the table over the whole screen
    return (f"<div class='pe-body-summary' style='font-size:14px;line-height:1.4'><b>{html.escape(body_title(body))}"
            f"</b><br><i>{desc}</i><table style='margin-top:4px;line-height:1.4'>{cells}</table></div>")
