"""What the equilibria panel says: its About text, the stability classes and the isolated points in plain
words, a family's description, the position along it, the selected point's table and the "launch nearby" report.
Creates no widgets (tested without them)."""
from __future__ import annotations

import html
from typing import Any

import numpy as np

from ..equilibria import STAB_RTOL
from ..plotting.sphere import family_name
from .section_levels import area_percent
from .section_text import SECTION_RULE

ABOUT = r"""
<p><b>What is shown.</b> A <i>relative equilibrium</i> is a steady spin: the body turns about the vertical at a
constant rate and, seen from the body, gravity always points the same way. The sphere is the set of all directions
of gravity seen from the body (\(\Gamma\), the unit vector of gravity in body axes; the top of the 3D view is
"gravity pointing at the body's \(-e_3\)"). Each point on a coloured curve is one steady spin; a curve is a
<i>family</i> of them, named \(L_1\dots L_4\) as in the paper's Fig. 1. Along a family the spin rate changes:
the parameter \(\alpha\) (the square of the spin rate divided by the pull of gravity along \(\Gamma\)) runs from
0, where the family starts at the body at rest (hanging or upside down), towards \(\pm\infty\).</p>
<ul>
<li><b>hanging</b> (blue dot): at rest, centre of mass straight below the pivot. Always stable.</li>
<li><b>inverted</b> (red dot): at rest, balanced straight above the pivot. Always unstable.</li>
<li><b>Eq. 38 spin</b> (black diamond): where the family \(L_1\) passes through \(\alpha=\pm\infty\): a spin at
one particular rate, \(\|\omega\| = \sqrt{mg\,\|J^{-1}\rho\|}\,\|J^{-1}\rho\|\), with gravity along
\(-J^{-1}\rho\) (paper Eq. 38).</li>
</ul>
<p><b>Stable or not.</b> Thick solid curves are stable steady spins (a small push only makes the body wobble
around them); thin dashed ones are unstable (a small push grows and the motion leaves). The
<i>energy&ndash;momentum diagram</i> on the right shows the same families, labelled in the same colours, by their
energy \(E\) and their angular momentum about the vertical \(\mu\): for each \(\mu\), the lowest curve is the
calmest motion with that momentum.</p>
<p><b>Try it.</b> Choose a point in the menu, move along its family with the slider, then press
<i>launch nearby</i>: the body starts slightly tilted (by the tilt you set) from that steady spin, with the same
angular velocity. The Poincaré section tab then shows where this motion returns: near a stable point its returns
stay in a small loop around the point; near an unstable one they spread over the white region.</p>
<p style="color:#444">References: the steady spins satisfy \(\omega = k\Gamma\) and
\(k^2 J\Gamma + mg\rho = k_1\Gamma\) (Eqs 36, 42); with \(\alpha = k^2/k_1\) the families are
\(\Gamma_e = -n_\alpha/\|n_\alpha\|\), \(n_\alpha = (J - I/\alpha)^{-1}\rho\) (Prop. 9, Eqs 39&ndash;40, with the
sign corrected as in the README); \(\mu = \omega_e^{T}J\Gamma_e\) (Eq. 77); stability from the eigenvalues of the
linearisation of the reduced equations (62) (Sec. 5).</p>
"""

#: the stability classes in words (the class name is kept in brackets)
STABILITY_WORDS = {
    "elliptic-elliptic": "stable: a small push only makes it wobble",
    "saddle-centre": "unstable: a small push grows in one way",
    "saddle-saddle": "unstable: a small push grows in two ways",
    "focus-focus": "unstable: a small push spirals away",
    "degenerate": "borderline: the linear test cannot decide",
}

#: the isolated points in words
POINT_WORDS = {"hanging": "hanging at rest (straight down)", "inverted": "inverted at rest (balanced upside down)",
               "eq38": "Eq. 38 spin (where L1 passes through α = ±∞)"}


def stability_words(cls: str) -> str:
    return f"{STABILITY_WORDS.get(cls, cls)} ({cls})" if cls else "not computed"


def alpha_range(a: Any, short: bool = False) -> str:
    """The range of alpha along a family (its finite values ``a``, in order) in words: "α 0 … 2.23", or for a family
    through alpha = +-inf (L1 of the Fig. 1 body) "α < 0 and α > 13.2 (through ±∞ at the Eq. 38 spin)" (without
    the bracket if ``short``), not the sampled ends "-1e+07 … 1e+07"."""
    a = np.asarray(a, float)
    through_inf = len(a) > 1 and np.any((np.sign(a[1:]) * np.sign(a[:-1]) < 0) & (np.abs(a[1:]) > 1.0))
    if through_inf:
        return f"α < 0 and α > {a[a > 0].min():.3g}" + ("" if short else " (through ±∞ at the Eq. 38 spin)")
    return f"α {a.min():.3g} … {a.max():.3g}"


def family_start(eq: Any, fam: Any) -> str:
    """The rest position a family starts from, in words ("hanging", "upside down"), or "" if none."""
    for k in (0, len(fam) - 1):
        if np.linalg.norm(fam.Gamma[k] - eq.hanging.Gamma) < 2e-2:
            return "hanging"
        if np.linalg.norm(fam.Gamma[k] - eq.inverted.Gamma) < 2e-2:
            return "upside down"
    return ""


def family_words(eq: Any, fam: Any) -> str:
    """A family in plain words, short enough for the menu at 1024 px: its name and its range of alpha (where it
    starts and the way through infinite alpha are said under the "along it" slider, :func:`along`)."""
    a = fam.alpha[np.isfinite(fam.alpha)]
    name = family_name(fam.label)
    if fam.kind == "axis":
        return f"{name}: spins about the pivot–centre-of-mass line, {family_start(eq, fam) or 'on the axis'}"
    if len(a) and np.ptp(a) <= 1e-9 * max(1.0, abs(float(a[0]))):
        ref = " (paper Eq. 7a)" if fam.kind == "eq7a" else (" (paper Eq. 41)" if fam.kind == "eq41" else "")
        return f"{name}: a ring of steady spins, all at α = {a[0]:.3g}{ref}"
    return f"{name}: steady spins" + (f", {alpha_range(a, short=True)}" if len(a) else "")


def along(fam: Any, index: int, p: Any, start: str = "") -> str:
    """The caption under the "along it" slider: which point of the family, its alpha and spin rate, and the rest
    position the family starts from (``start``, :func:`family_start`) (HTML)."""
    a = fam.alpha[np.isfinite(fam.alpha)]
    starts = f"; one end is the body {start} at rest, α = 0" if start else "; α = 0 is the body at rest"
    return (f"<span style='font-size:13px;color:#444'>point {index + 1} of {len(fam)} along "
            f"{html.escape(family_name(fam.label))}: α = {p.alpha:.4g} (the family runs "
            f"{html.escape(alpha_range(a))}{starts}; larger |α| a faster spin), spin rate |ω| = {float(np.linalg.norm(p.omega)):.3g} rad/s</span>")


#: the caption under the slider when a single point is chosen
SINGLE_POINT = ("<span style='font-size:13px;color:#444'>a single point: the slider moves along a family (choose one "
                "in the menu above)</span>")


def _vec(v: Any) -> str:
    """A vector to 4 decimals, with no "-0.0000" for a rounded-off zero."""
    return "[" + ", ".join(f"{round(float(x), 4) + 0.0:.4f}" for x in v) + "]"


def eigenvalues_text(ev: Any) -> str:
    """The eigenvalues to 4 digits, a real or imaginary part that the stability classification treats as zero
    (below ``STAB_RTOL`` times the largest modulus: round-off such as -2.2e-16) left out: "-3.86i, +3.342i"."""
    ev = np.asarray(ev, complex)
    tol = STAB_RTOL * float(np.abs(ev).max(initial=0.0))

    def one(z: complex) -> str:
        re, im = (x if abs(x) > tol else 0.0 for x in (z.real, z.imag))
        if im == 0.0:
            return f"{re + 0.0:+.4g}"
        return (f"{re:+.4g}" if re != 0.0 else "") + f"{im:+.4g}i"

    return ", ".join(one(z) for z in ev)


def details_html(p: Any) -> str:
    """The table of the selected equilibrium: family, stability, Gamma, omega, mu, E, alpha, eigenvalues."""
    evs = eigenvalues_text(p.eigenvalues)
    rows = [("family", POINT_WORDS.get(p.family, family_name(p.family))),
            ("stability", stability_words(p.stability)),
            ("Γ", _vec(p.Gamma)), ("ω [rad/s] (spin)", _vec(p.omega)), ("μ [kg m²/s]", f"{p.mu + 0.0:.6g}"),
            ("E [J]", f"{p.energy:.6g}"), ("α", f"{p.alpha:.5g}"), ("eigenvalues (LR, Eq. 62)", evs)]
    cells = "".join(f"<tr><td style='padding-right:10px;color:#444'>{html.escape(k)}</td>"
                    f"<td style='font-family:monospace'>{html.escape(v)}</td></tr>" for k, v in rows)
    return f"<table class='pe-eq-details' style='font-size:14px;line-height:1.4'>{cells}</table>"


def computed(title: str, labels: Any) -> str:
    return (f"{title}: hanging, inverted and the Eq. 38 spins, and the families of steady spins "
            f"{', '.join(family_name(lab) for lab in sorted(labels))} (labelled on both figures); choose one on the "
            f"right, then “launch nearby”")


def launched_nearby(p: Any, eps: float, E: float, mu: float, area: float, zoomed: bool) -> tuple[str, str]:
    """The report of "launch nearby": where the motion starts and what the section will show (``area``: the
    accessible fraction of the sphere at (E, mu); ``zoomed``: the section shows the chart around the point).
    Returns the message and its short form, which :func:`nearby_empty` completes when the section stays (almost)
    empty."""
    stable = p.stability == "elliptic-elliptic"
    name = POINT_WORDS.get(p.family, family_name(p.family))
    pct = area_percent(area, empty=area == 0.0)
    if stable:
        what = (f"It is stable, so the motion stays close to it: at this energy and momentum "
                f"{'only ' if area < 0.5 else ''}{pct} of the sphere is reachable (the white part of the "
                f"section) and every return lands near the equilibrium, tracing a small loop around it"
                + (" (the section shows the chart around the point; its “reset axes” button shows all of it)"
                   if zoomed else "") + ". A larger tilt gives a larger loop.")
    else:
        what = (f"It is unstable ({STABILITY_WORDS.get(p.stability, p.stability)}), so the motion leaves it: "
                f"its returns spread over the reachable part of the sphere ({pct}, white in the section).")
    head = (f"Launched near {name}, tilted by {eps:g} rad with the same ω: E = {E:.5g} J, μ = {mu:.5g} kg m²/s "
            f"(the Motion tab plays it; the Poincaré section tab shows its returns).")
    short = ("It is stable, so the motion stays close to it." if stable else
             f"It is unstable ({STABILITY_WORDS.get(p.stability, p.stability)}), so the motion leaves it.")
    return f"{head} {what}", f"{head} {short}"


#: |Γ₃| beyond which a return counts as "at a pole", and the share of returns there that :func:`nearby_at_poles`
#: explains
POLE_Z, POLE_SHARE = 0.9, 0.8


def nearby_at_poles(chart: Any) -> str:
    """Why the returns (chart points ``chart``, (n, 2)) of a motion launched near an unstable equilibrium lie along
    the chart's top and bottom edges instead of spreading over the white region; "" when they do not."""
    n = len(chart)
    share = float(np.mean(np.abs(np.asarray(chart)[:, 1]) > POLE_Z)) if n else 0.0
    if share < POLE_SHARE:
        return ""
    return (f"Its {n} returns lie along the top and bottom edges of the chart ({area_percent(share)} of them within "
            f"{1 - POLE_Z:.2g} of Γ₃ = ±1): the motion turns over between nearly upside down and nearly hanging, and "
            f"the section {SECTION_RULE.removeprefix('it ')}, so each turn is marked close to a pole. Watch it in the Motion tab.")


def nearby_empty(n: int) -> str:
    """Why a motion launched near an equilibrium has (almost) no points (``n``) on the Poincaré section."""
    got = "no point" if n == 0 else f"only {n} point{'s' if n > 1 else ''}"
    return (f"The Poincaré section shows {got} of this motion: {SECTION_RULE}, and this motion (almost) never does "
            f"that: it swings in a vertical plane through the pole Γ = ±e₃, or goes round e₃ the other way. Watch it "
            f"in the Motion tab, or choose another point or a larger tilt.")
