"""What the equilibria panel says: its About text, the stability classes and the isolated points in plain
words, a family's description, the position along it, the selected point's table and the "launch nearby" report.
Creates no widgets (tested without them)."""
from __future__ import annotations

import html
from typing import Any

import numpy as np

from ..equilibria import STAB_RTOL
from ..plotting.labels import stability_name
from ..plotting.sphere import family_name
from .section_levels import area_percent
from .i18n import N_, _, list_separator, ngettext, numbers, parts_html
from .i18n import number as num
from .section_text import SECTION_MARKS, SECTION_RULE

#: the About box: paragraphs and list items (translated), each with its HTML tag
ABOUT_PARTS = (
    ("p", N_(r"<b>What is shown.</b> A <i>relative equilibrium</i> is a steady spin: the body turns about the "
             r"vertical at a constant rate and, seen from the body, gravity always points the same way. The sphere is "
             r"the set of all directions of gravity seen from the body (\(\Gamma\), the unit vector of gravity in body "
             r"axes; the top of the 3D view is “gravity pointing at the body's \(-e_3\)”). Each point on a coloured "
             r"curve is one steady spin; a curve is a <i>family</i> of them, named \(L_1\dots L_4\) as in the paper's "
             r"Fig. 1. Along a family the spin rate changes: the parameter \(\alpha\) (the square of the spin rate "
             r"divided by the pull of gravity along \(\Gamma\)) runs from 0, where the family starts at the body at "
             r"rest (hanging or upside down), towards \(\pm\infty\).")),
    ("li", N_("<b>hanging</b> (blue dot): at rest, centre of mass straight below the pivot. Always stable.")),
    ("li", N_("<b>inverted</b> (red dot): at rest, balanced straight above the pivot. Always unstable.")),
    ("li", N_(r"<b>Eq. 38 spin</b> (black diamond): where the family \(L_1\) passes through \(\alpha=\pm\infty\): a "
              r"spin at one particular rate, \(\|\omega\| = \sqrt{mg\,\|J^{-1}\rho\|}\,\|J^{-1}\rho\|\), with gravity "
              r"along \(-J^{-1}\rho\) (paper Eq. 38).")),
    ("p", N_(r"<b>Stable or not.</b> Thick solid curves are stable steady spins (a small push only makes the body "
             r"wobble around them); thin dashed ones are unstable (a small push grows and the motion leaves). The "
             r"<i>energy&ndash;momentum diagram</i> on the right shows the same families, labelled in the same "
             r"colours, by their energy \(E\) and their angular momentum about the vertical \(\mu\): for each "
             r"\(\mu\), the lowest curve is the calmest motion with that momentum.")),
    ("p", N_("<b>Try it.</b> Choose a point in the menu, move along its family with the slider, then press "
             "<i>launch nearby</i>: the body starts slightly tilted (by the tilt you set) from that steady spin, with "
             "the same angular velocity. The Poincaré section tab then shows where this motion returns: near a stable "
             "point its returns stay in a small loop around the point; near an unstable one they spread over the "
             "white region.")),
    ("p style=\"color:#444\"", N_(
        r"References: the steady spins satisfy \(\omega = k\Gamma\) and \(k^2 J\Gamma + mg\rho = k_1\Gamma\) (Eqs 36, "
        r"42); with \(\alpha = k^2/k_1\) the families are \(\Gamma_e = -n_\alpha/\|n_\alpha\|\), "
        r"\(n_\alpha = (J - I/\alpha)^{-1}\rho\) (Prop. 9, Eqs 39&ndash;40, with the sign corrected as in the "
        r"README); \(\mu = \omega_e^{T}J\Gamma_e\) (Eq. 77); stability from the eigenvalues of the linearisation of "
        r"the reduced equations (62) (Sec. 5).")),
)


def about_html(tr: Any = None) -> str:
    """The About box's HTML in the page's language (``tr``: the translation function, default :func:`_`)."""
    return parts_html(ABOUT_PARTS, tr)


ABOUT = about_html(lambda t: t)  # (English)

#: the stability classes in words (the class name is kept in brackets)
STABILITY_WORDS = {
    "elliptic-elliptic": N_("stable: a small push only makes it wobble"),
    "saddle-centre": N_("unstable: a small push grows in one way"),
    "saddle-saddle": N_("unstable: a small push grows in two ways"),
    "focus-focus": N_("unstable: a small push spirals away"),
    "degenerate": N_("borderline: the linear test cannot decide"),
}

#: the isolated points in words
POINT_WORDS = {"hanging": N_("hanging at rest (straight down)"),
               "inverted": N_("inverted at rest (balanced upside down)"),
               "eq38": N_("Eq. 38 spin (where L1 passes through α = ±∞)")}


def family_title(label: str) -> str:
    """:func:`~pendulum_explorer.plotting.labels.family_name` (in the page's language; L1 … L4 stay)."""
    return family_name(label)


def point_words(family: str) -> str:
    """An isolated point (hanging, inverted, Eq. 38) or a family, in words."""
    return _(POINT_WORDS[family]) if family in POINT_WORDS else family_title(family)


def _stab(cls: str) -> str:
    return _(STABILITY_WORDS[cls]) if cls in STABILITY_WORDS else cls


def stability_words(cls: str) -> str:
    """The stability in words with its class as the legend names it ("Sattel-Zentrum" on a German page: the class
    stood there in English)."""
    return f"{_stab(cls)} ({stability_name(cls)})" if cls else _("not computed")


def alpha_range(a: Any, short: bool = False) -> str:
    """The range of alpha along a family (its finite values ``a``, in order) in words: "α 0 … 2.23", or for a family
    through alpha = +-inf (L1 of the Fig. 1 body) "α < 0 and α > 13.2 (through ±∞ at the Eq. 38 spin)" (without
    the bracket if ``short``), not the sampled ends "-1e+07 … 1e+07"."""
    a = np.asarray(a, float)
    through_inf = len(a) > 1 and np.any((np.sign(a[1:]) * np.sign(a[:-1]) < 0) & (np.abs(a[1:]) > 1.0))
    if through_inf:
        low = num(a[a > 0].min(), ".3g")
        return (_("α < 0 and α > {a}") if short else _("α < 0 and α > {a} (through ±∞ at the Eq. 38 spin)")).format(
            a=low)
    return "α {lo} … {hi}".format(lo=num(a.min(), ".3g"), hi=num(a.max(), ".3g"))


def family_start(eq: Any, fam: Any) -> str:
    """The rest position a family starts from, in words ("hanging", "upside down"), or "" if none."""
    for k in (0, len(fam) - 1):
        if np.linalg.norm(fam.Gamma[k] - eq.hanging.Gamma) < 2e-2:
            return _("hanging")
        if np.linalg.norm(fam.Gamma[k] - eq.inverted.Gamma) < 2e-2:
            return _("upside down")
    return ""


def family_words(eq: Any, fam: Any) -> str:
    """A family in plain words, short enough for the menu at 1024 px: its name and its range of alpha (where it
    starts and the way through infinite alpha are said under the "along it" slider, :func:`along`)."""
    a = fam.alpha[np.isfinite(fam.alpha)]
    name = family_title(fam.label)
    if fam.kind == "axis":
        return _("{name}: spins about the pivot–centre-of-mass line, {where}").format(
            name=name, where=family_start(eq, fam) or _("on the axis"))
    if len(a) and np.ptp(a) <= 1e-9 * max(1.0, abs(float(a[0]))):
        ref = " (paper Eq. 7a)" if fam.kind == "eq7a" else (" (paper Eq. 41)" if fam.kind == "eq41" else "")
        return _("{name}: a ring of steady spins, all at α = {a}").format(name=name, a=num(a[0], ".3g")) + _(ref)
    if len(a):
        return _("{name}: steady spins, {range}").format(name=name, range=alpha_range(a, short=True))
    return _("{name}: steady spins").format(name=name)


def along(fam: Any, index: int, p: Any, start: str = "") -> str:
    """The caption under the "along it" slider: which point of the family, its alpha and spin rate, and the rest
    position the family starts from (``start``, :func:`family_start`) (HTML)."""
    a = fam.alpha[np.isfinite(fam.alpha)]
    starts = _("; one end is the body {start} at rest, α = 0").format(start=start) if start else \
        _("; α = 0 is the body at rest")
    text = _("point {i} of {n} along {family}: α = {alpha} (the family runs {range}{starts}; larger |α| a faster "
             "spin), spin rate |ω| = {rate} rad/s").format(
        i=index + 1, n=len(fam), family=html.escape(family_title(fam.label)), alpha=num(p.alpha, ".4g"),
        range=html.escape(alpha_range(a)), starts=starts, rate=num(float(np.linalg.norm(p.omega)), ".3g"))
    return f"<span style='font-size:13px;color:#444'>{text}</span>"


#: the caption under the slider when a single point is chosen
SINGLE_POINT_TEXT = N_("a single point: the slider moves along a family (choose one in the menu above)")


def single_point() -> str:
    return f"<span style='font-size:13px;color:#444'>{_(SINGLE_POINT_TEXT)}</span>"


SINGLE_POINT = single_point()  # (English)


# the references family_words appends (translated: "Gl." in German, "ec." in Spanish)
_REFS = (N_(" (paper Eq. 7a)"), N_(" (paper Eq. 41)"))


def _vec(v: Any) -> str:
    """A vector to 4 decimals, with no "-0.0000" for a rounded-off zero, in the page's decimal sign and list
    separator (it stood in points beside μ and E in commas on a German page)."""
    return "[" + numbers([round(float(x), 4) + 0.0 for x in v], ".4f") + "]"


def eigenvalues_text(ev: Any) -> str:
    """The eigenvalues to 4 digits, a real or imaginary part that the stability classification treats as zero
    (below ``STAB_RTOL`` times the largest modulus: round-off such as -2.2e-16) left out: "-3.86i, +3.342i"."""
    ev = np.asarray(ev, complex)
    tol = STAB_RTOL * float(np.abs(ev).max(initial=0.0))

    def one(z: complex) -> str:
        re, im = (x if abs(x) > tol else 0.0 for x in (z.real, z.imag))
        if im == 0.0:
            return num(re + 0.0, "+.4g")
        return (num(re, "+.4g") if re != 0.0 else "") + num(im, "+.4g") + "i"

    return list_separator().join(one(z) for z in ev)


def details_html(p: Any) -> str:
    """The table of the selected equilibrium: family, stability, Gamma, omega, mu, E, alpha, eigenvalues."""
    evs = eigenvalues_text(p.eigenvalues)
    rows = [(_("family"), point_words(p.family)),
            (_("stability"), stability_words(p.stability)),
            ("Γ", _vec(p.Gamma)), (_("ω [rad/s] (spin)"), _vec(p.omega)), ("μ [kg m²/s]", num(p.mu + 0.0, ".6g")),
            ("E [J]", num(p.energy, ".6g")), ("α", num(p.alpha, ".5g")), (_("eigenvalues (LR, Eq. 62)"), evs)]
    cells = "".join(f"<tr><td style='padding-right:10px;color:#444'>{html.escape(k)}</td>"
                    f"<td style='font-family:monospace'>{html.escape(v)}</td></tr>" for k, v in rows)
    return f"<table class='pe-eq-details' style='font-size:14px;line-height:1.4'>{cells}</table>"


def computed(title: str, labels: Any) -> str:
    return _("{title}: hanging, inverted and the Eq. 38 spins, and the families of steady spins {families} "
             "(labelled on both figures); choose one on the right, then “launch nearby”").format(
        title=title, families=", ".join(family_title(lab) for lab in sorted(labels)))


def launched_nearby(p: Any, eps: float, E: float, mu: float, area: float, zoomed: bool) -> tuple[str, str]:
    """The report of "launch nearby": where the motion starts and what the section will show (``area``: the
    accessible fraction of the sphere at (E, mu); ``zoomed``: the section shows the chart around the point).
    Returns the message and its short form, which :func:`nearby_empty` completes when the section stays (almost)
    empty."""
    stable = p.stability == "elliptic-elliptic"
    name = point_words(p.family)
    pct = area_percent(area, empty=area == 0.0)
    if stable:
        what = (_("It is stable, so the motion stays close to it: at this energy and momentum only {pct} of the "
                  "sphere is reachable (the white part of the section) and every return lands near the equilibrium, "
                  "tracing a small loop around it") if area < 0.5 else
                _("It is stable, so the motion stays close to it: at this energy and momentum {pct} of the sphere is "
                  "reachable (the white part of the section) and every return lands near the equilibrium, tracing a "
                  "small loop around it")).format(pct=pct) \
            + (_(" (the section shows the chart around the point; its “reset axes” button shows all of it)")
               if zoomed else "") + _(". A larger tilt gives a larger loop.")
    else:
        what = _("It is unstable ({stability}), so the motion leaves it: its returns spread over the reachable part "
                 "of the sphere ({pct}, white in the section).").format(stability=_stab(p.stability), pct=pct)
    head = _("Launched near {name}, tilted by {eps} rad with the same ω: E = {E} J, μ = {mu} kg m²/s (the Motion tab "
             "plays it; the Poincaré section tab shows its returns).").format(
        name=name, eps=num(eps), E=num(E, ".5g"), mu=num(mu, ".5g"))
    short = _("It is stable, so the motion stays close to it.") if stable else \
        _("It is unstable ({stability}), so the motion leaves it.").format(stability=_stab(p.stability))
    return f"{head} {what}", f"{head} {short}"


#: |Γ₃| beyond which a return counts as "at a pole", and the share of returns there that :func:`nearby_at_poles`
#: explains
POLE_Z, POLE_SHARE = 0.9, 0.7  # returns spread over the white region put ~10-20 % there


def nearby_at_poles(chart: Any) -> str:
    """Why the returns (chart points ``chart``, (n, 2)) of a motion launched near an unstable equilibrium lie along
    the chart's top and bottom edges instead of spreading over the white region; "" when they do not."""
    n = len(chart)
    share = float(np.mean(np.abs(np.asarray(chart)[:, 1]) > POLE_Z)) if n else 0.0
    if share < POLE_SHARE:
        return ""
    return _("Its {n} returns lie along the top and bottom edges of the chart ({share} of them within {d} of "
             "Γ₃ = ±1): the motion turns over between nearly upside down and nearly hanging, and the section {marks}, "
             "so each turn is marked close to a pole. Watch it in the Motion tab.").format(
        n=n, share=area_percent(share), d=num(1 - POLE_Z, ".2g"), marks=_(SECTION_MARKS))


def nearby_empty(n: int) -> str:
    """Why a motion launched near an equilibrium has (almost) no points (``n``) on the Poincaré section."""
    got = _("no point") if n == 0 else ngettext("only {n} point", "only {n} points", n).format(n=n)
    return _("The Poincaré section shows {got} of this motion: {rule}, and this motion (almost) never does that: it "
             "swings in a vertical plane through the pole Γ = ±e₃, or goes round e₃ the other way. Watch it in the "
             "Motion tab, or choose another point or a larger tilt.").format(got=got, rule=_(SECTION_RULE))
