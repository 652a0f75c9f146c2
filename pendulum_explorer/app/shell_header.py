"""The dashboard's header: the title, the one statement of the body in use, the presenter-view toggle, "copy link
to this view" with the box that shows the link, reset with its question, and the first-steps guide.  Widgets and
their own show/hide wiring; what the buttons do is the shell's (:mod:`pendulum_explorer.app`), the wording
:mod:`.shell_text`'s."""
from __future__ import annotations

from typing import Any

import ipywidgets as w

from . import i18n
from . import shell_text as say
from .i18n import _


def _classed(widget: Any, cls: str) -> Any:
    widget.add_class(cls)
    return widget


class Header:
    """The header's widgets; ``top`` goes above the shell's message area, ``guide`` below it."""

    def __init__(self, show_guide: bool) -> None:
        self.title = _classed(w.HTML(say.title()), "pe-title")
        # its text wraps before the buttons do ("reset" went to a line of its own in the presenter view at 1280 px)
        self.body_in_use = _classed(w.HTML(layout=w.Layout(flex="1 1 300px", min_width="260px")), "pe-body-in-use")
        self.presenter = _classed(w.ToggleButton(
            value=False, description=_("presenter view"), icon="television",
            layout=w.Layout(width="auto", min_width="150px"),
            tooltip=_("larger text and figures for a projector (link: presenter=1)")), "pe-presenter-toggle")
        self.copy_link = _classed(w.Button(
            description=_("copy link to this view"), icon="link", layout=w.Layout(width="auto", min_width="190px"),
            tooltip=_("a URL that opens the dashboard with this body, tab, level and seeds")), "pe-copy-link")
        self.reset_btn = _classed(w.Button(description=_("reset"), icon="refresh",
                                           tooltip=_("back to the start view"),
                                           layout=w.Layout(width="auto", min_width="80px")),
                                  "pe-reset")
        # the page's language: choosing another opens this view again in it (lang= in the link)
        self.language = _classed(w.Dropdown(options=[(name, code) for code, name in i18n.LANGUAGES.items()],
                                            value=i18n.language(), description=_("language"),
                                            tooltip=_("the page's language (link: lang=de)"),
                                            layout=w.Layout(width="auto"), style={"description_width": "initial"}),
                                 "pe-language")
        self.link_text = _classed(w.Text(description=_("link"), layout=w.Layout(width="100%", display="none"),
                                         style={"description_width": "initial"}), "pe-link-text")
        self.reset_yes = _classed(w.Button(description=_("yes, reset"), button_style="danger",
                                           layout=w.Layout(width="auto", min_width="120px")), "pe-reset-yes")
        self.reset_no = w.Button(description=_("keep my work"), layout=w.Layout(width="auto", min_width="140px"))
        self.reset_question = w.HTML()
        self.reset_row = w.HBox([self.reset_question, self.reset_yes, self.reset_no],
                                layout=w.Layout(display="none", align_items="center"))
        self.guide_close = w.Button(description=_("got it"),
                                    layout=w.Layout(width="auto", min_width="80px", flex="0 0 auto"))
        self.guide = _classed(w.HBox([w.HTML(say.guide(), layout=w.Layout(flex="1 1 auto")), self.guide_close],
                                     layout=w.Layout(align_items="center", display="flex" if show_guide else "none")),
                              "pe-guide-box")
        toolbar = w.HBox([self.body_in_use, self.presenter, self.copy_link, self.reset_btn, self.language],
                         layout=w.Layout(flex_flow="row wrap", align_items="center", width="100%"))
        self.top = [self.title, toolbar, self.link_text, self.reset_row]
        self.reset_no.on_click(lambda _b: self.hide_reset())
        self.guide_close.on_click(lambda _b: self.show_guide(False))

    def show_body(self, body: Any, origin: str) -> None:
        """The statement of the body in use and the control that chose it."""
        self.body_in_use.value = say.body_in_use(body, origin)

    def ask_reset(self, n_launches: int) -> None:
        """Show reset's question (what it would clear) with "yes, reset" and "keep my work"."""
        self.reset_question.value = say.reset_question(n_launches)
        self.reset_row.layout.display = "flex"

    def hide_reset(self) -> None:
        self.reset_row.layout.display = "none"

    def show_link(self, url: str | None) -> None:
        """The link box shows ``url`` (None: the box is hidden)."""
        if url is not None:
            self.link_text.value = url
        self.link_text.layout.display = "none" if url is None else "flex"

    def show_guide(self, on: bool) -> None:
        self.guide.layout.display = "flex" if on else "none"
