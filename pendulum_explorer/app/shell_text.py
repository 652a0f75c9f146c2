"""What the dashboard's shell shows: its style sheet, title, first-steps guide and the wording of its messages
(body in use, links, reset).  No widgets (tested without them)."""
from __future__ import annotations

import html
from collections.abc import Sequence

from ..bodies import Body
from . import i18n
from .common import body_title
from .i18n import N_, _, ngettext
from .shell_style import RESPONSIVE_CSS

CSS = """<style>
.pe-app { font-size: 14px; }
.pe-app .widget-tab > .p-TabBar .p-TabBar-tab, .pe-app .lm-TabBar-tab { min-width: 150px; font-size: 14px; }
.pe-app .pe-about .widget-htmlmath { font-size: 14px; line-height: 1.4; }
.pe-app .lm-TabBar-tab, .pe-app .p-TabBar-tab { flex: 0 1 auto !important; max-width: none !important; }
.pe-app .lm-TabBar-tab, .pe-app .p-TabBar-tab, .pe-app .lm-TabBar-tabLabel, .pe-app .p-TabBar-tabLabel,
.pe-app .jupyter-widget-Collapse-header, .pe-app .jupyter-widget-Collapse-header span { color: #3b3b3b; }
.pe-app .jupyter-button.mod-warning { background-color: #b35900; }
.pe-app .jupyter-widget-Collapse-header:focus-visible, .pe-app button:focus-visible, .pe-app input:focus-visible,
.pe-app select:focus-visible { outline: 3px solid #0072B2; outline-offset: 1px; }
.pe-app.pe-presenter { font-size: 20px; --jp-widgets-font-size: 20px; --jp-widgets-inline-height: 38px;
  --jp-ui-font-size1: 20px; }
.pe-app.pe-presenter .widget-label, .pe-app.pe-presenter .widget-label-basic, .pe-app.pe-presenter button,
.pe-app.pe-presenter input, .pe-app.pe-presenter select, .pe-app.pe-presenter .widget-html-content,
.pe-app.pe-presenter .pe-message div, .pe-app.pe-presenter .jupyter-widget-Collapse-header,
.pe-app.pe-presenter .pe-about .widget-htmlmath, .pe-app.pe-presenter table { font-size: 20px !important; }
.pe-app.pe-presenter .lm-TabBar-tab { font-size: 20px !important; min-height: 36px; }
.pe-app .pe-motion-choice > select { width: auto; flex: 0 1 auto; min-width: 250px; max-width: 100%; }
.pe-app .pe-eq-choice { flex-wrap: wrap; max-width: 100% !important; height: auto !important; }
.pe-app .pe-eq-choice > select { flex: 1 1 360px; min-width: 0; max-width: 100%; }
.pe-app.pe-presenter .widget-inline-hbox .widget-label { width: auto !important; min-width: 0; }
.pe-app.pe-presenter .pe-body-in-use div, .pe-app.pe-presenter .pe-guide,
.pe-app.pe-presenter .pe-body-summary { font-size: 20px !important; }
.pe-app.pe-presenter .widget-button, .pe-app.pe-presenter .widget-toggle-button, .pe-app.pe-presenter .widget-upload {
  width: auto !important; min-width: fit-content; padding: 0 14px; height: 38px; }
.pe-app.pe-presenter .widget-text, .pe-app.pe-presenter .widget-bounded-text, .pe-app.pe-presenter .widget-dropdown {
  width: auto !important; }
.pe-app.pe-presenter .widget-text, .pe-app.pe-presenter .widget-bounded-text { max-width: 100% !important; }
.pe-app.pe-presenter .widget-text > input, .pe-app.pe-presenter .widget-bounded-text > input {
  width: 0; min-width: 6em; flex: 1 1 6em; }
.pe-app.pe-presenter .lm-TabBar-tab, .pe-app.pe-presenter .p-TabBar-tab { flex: 0 0 240px !important;
  max-width: none !important; min-width: 240px !important; }
.pe-app.pe-presenter .widget-html-content span[style] { font-size: 18px !important; }
.pe-app.pe-presenter .pe-title div { font-size: 26px !important; }
.pe-app.pe-presenter .pe-motion-bar .pe-play, .pe-app.pe-presenter .pe-motion-bar .pe-speed {
  height: 38px !important; }
.pe-app.pe-presenter .pe-title span { font-size: 20px !important; }
</style>"""
CSS += RESPONSIVE_CSS  # the layout by screen width and pointer (phones, tablets, touch): shell_style.py

GUIDE_TEXT = N_("<b>First steps.</b> ① <b>Body</b>: pick a preset (or your own shape) — the picture shows how it "
                "hangs. ② <b>Equilibria</b>: the steady spins of that body; pick one and press “launch nearby”. "
                "③ <b>Poincaré section</b>: click in the white region to start a motion and watch where it returns. "
                "④ <b>Motion</b>: the body moving along the last trajectory. Every tab has an “About” box below "
                "(Tab and Enter open it).")


def guide() -> str:
    """The first-steps guide (HTML) in the page's language."""
    return ("<div class='pe-guide' style='background:#f4f8fb;border:1px solid #c9dced;border-radius:4px;"
            "padding:4px 10px;line-height:1.45'>" + _(GUIDE_TEXT) + "</div>")


#: the controls that choose a body, as the header names them (``AppState.body_origin``; translated when shown)
ORIGINS = (N_("the start view"), N_("the link"), N_("the Body tab"), N_("reset"), N_("another tab"),
           N_("a loaded session"), N_("the Poincaré section's paper Fig. 2 presets"),
           N_("the section's saved levels"))

#: the title line (with the style sheet: one HTML widget)
#: the dashboard's tabs: (key, title) in their order (the keys are the link parameter ``tab``'s values)
TABS = [("body", N_("Body")), ("equilibria", N_("Equilibria")), ("section", N_("Poincaré section")),
        ("motion", N_("Motion"))]
TAB_TITLES = dict(TABS)

SUBTITLE = N_("— the 3D pendulum: a rigid body on a fixed pivot in gravity")


def title() -> str:
    """The title line with the style sheet (one HTML widget), in the page's language."""
    return (CSS + "<div role='heading' aria-level='1' style='font-size:18px;font-weight:600;margin:2px 0 0 2px'>"
            "Pendulum Explorer <span "
            "style='font-weight:400;font-size:14px;color:#555'>" + _(SUBTITLE) + "</span></div>")



def body_in_use(body: Body, origin: str) -> str:
    """The one statement of the body in use, with the control that chose it (HTML)."""
    g = "g = {g} m/s²".format(g=i18n.number(body.pendulum.g))
    what = g if origin == "the start view" else _("{g}; chosen by {origin}").format(
        g=g, origin=html.escape(_(origin), quote=False))
    return ("<div style='font-size:15px;padding:2px 4px;line-height:1.3'><b>" + _("Body in use:") + "</b> "
            f"{html.escape(body_title(body))} <span style='color:#555'>({what})</span></div>")


def reset_question(n_launches: int) -> str:
    """The question "reset" asks first (HTML): what the start view would clear."""
    n = n_launches
    words = ngettext("Back to the start view? This clears {n} trajectory and resets the body, g and the presenter "
                     "view.", "Back to the start view? This clears {n} trajectories and resets the body, g and the "
                     "presenter view.", n).format(n=n) if n else \
        _("Back to the start view? This resets the body, g and the presenter view.")
    return "<span style='font-size:14px;margin-right:8px'>" + words + "</span>"


def link_motion(omega0: Sequence[float], T: float, start: str = "", damping: float = 0.0) -> str:
    """A link's motion (``omega0``, ``T``; ``start``: the tilted start in words, "" for R₀ = I; ``damping`` c),
    as :func:`link_opened` names it."""
    w0 = "; ".join(i18n.number(x) for x in omega0) if i18n.language() in i18n.DECIMAL_COMMA else \
        ", ".join(f"{x:g}" for x in omega0)
    if start:
        text = _(", the motion {start} with ω₀ = ({w0}) rad/s for {T} s").format(start=start, w0=w0,
                                                                                 T=i18n.number(T))
    else:
        text = _(", the motion from R₀ = I with ω₀ = ({w0}) rad/s for {T} s").format(w0=w0, T=i18n.number(T))
    if damping:
        text += _(", damping c = {c} N m s (DOP853)").format(c=i18n.number(damping))
    return text


def link_opened(title: str, tab_title: str | None = None, level: str | None = None, launched: int = 0,
                asked: int = 0, motion: str = "") -> str:
    """What a link opened: the body, the tab (and ``motion``, from :func:`link_motion`) or the section level and
    how many of its seeds were launched."""
    if level is None:
        if tab_title:
            return _("Opened from a link: {title}, {tab} tab{motion}.").format(title=title, tab=tab_title,
                                                                               motion=motion)
        return _("Opened from a link: {title}{motion}.").format(title=title, motion=motion)
    text = _("Opened from a link: {title}, section at {level}").format(title=title, level=level)
    if asked:
        text += _(", {launched} of {asked} trajectories launched").format(launched=launched, asked=asked)
        if launched < asked:
            missed = asked - launched
            text += ngettext(" (this seed is not in the accessible region: see the section's message)",
                             " ({n} seeds are not in the accessible region: see the section's message)",
                             missed).format(n=missed)
    return text + "."
