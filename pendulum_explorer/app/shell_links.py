"""The dashboard's links, wired to its panels: reading the link the page was opened with, opening the view it asks
for (presenter view, the Motion tab's ω₀ and duration, the tab, the section level and its seeds) and "copy link to
this view".  Parsing and writing query strings is :mod:`.links`', the body of a link and the link of a view
:mod:`.link_view`'s, the wording :mod:`.shell_text`'s."""
from __future__ import annotations

import dataclasses
import os
import threading
from typing import Any

from . import i18n
from . import shell_text as say
from .common import body_title, guarded, log, report_error
from .i18n import _, ngettext
from .link_view import body_from_link, link_of_view
from .links import ViewLink, build_query, parse_query
from .shell_text import TAB_TITLES, TABS


def preheated() -> bool:
    """This kernel is one of Voila's preheated kernels (``VOILA_PREHEAT``): it ran the notebook before any page
    asked for it, so its ``QUERY_STRING`` is not the page's until the request arrives."""
    return os.environ.get("VOILA_PREHEAT") == "True"


def page_query() -> str:
    """The query string of the page this kernel serves (Voila puts it in ``QUERY_STRING``).

    A preheated kernel imports what the first view needs, then waits here for its page's request
    (:func:`wait_for_request`), so a link opened on a preheated server still opens its view.  If the request
    cannot be read (the server unreachable at ``VOILA_APP_IP``), the page shows the start view and the server log
    says why.
    """
    if not preheated():
        return os.environ.get("QUERY_STRING", "")
    from . import body_panel, section_panel  # noqa: F401 - imported while no page waits
    if not wait_for_request():
        log.warning("a preheated kernel did not receive its page's request from %s; the start view is shown",
                    request_info_url())
    return os.environ.get("QUERY_STRING", "")


def request_info_url() -> str:
    """Voila's request-info websocket for this kernel (``/voila/query/<kernel id>``), built from the variables
    Voila gives its kernels, as :func:`voila.utils.wait_for_request` builds it."""
    env = os.environ
    base = env.get("VOILA_WS_BASE_URL", env.get("VOILA_SERVER_URL", "/"))
    return (f"{env.get('VOILA_WS_PROTOCOL', 'ws')}://{env.get('VOILA_APP_IP', '127.0.0.1')}:"
            f"{env.get('VOILA_APP_PORT', '8866')}{base}voila/query/{env.get('VOILA_KERNEL_ID', '')}")


def wait_for_request(timeout: float | None = None) -> bool:
    """Block until Voila sends this preheated kernel its page's request, then put the request's variables
    (``QUERY_STRING``, ``SCRIPT_NAME``, ...) into ``os.environ``; False if they could not be read.

    Voila's protocol (:func:`voila.utils.wait_for_request`: a websocket that receives one JSON message when a
    page takes the kernel), without importing the ``voila`` package into every kernel (3 s and 44 MB each here:
    it imports the Jupyter server).  The websocket is read in a thread with its own event loop: the cell runs
    inside the kernel's.  ``timeout``: seconds to wait for the request (None: until it comes).
    """
    import asyncio
    import json

    import websockets

    if not os.environ.get("VOILA_KERNEL_ID"):
        return False
    url = request_info_url()
    found: dict[str, str] = {}

    async def receive() -> None:
        async with websockets.connect(url, open_timeout=10) as ws:
            found.update(json.loads(await asyncio.wait_for(ws.recv(), timeout)))

    def run() -> None:
        try:
            asyncio.new_event_loop().run_until_complete(receive())
        except (OSError, asyncio.TimeoutError, ValueError, websockets.WebSocketException) as exc:
            log.warning("reading the page's request from %s: %s", url, exc)

    thread = threading.Thread(target=run, name="pe-request", daemon=True)
    thread.start()
    thread.join()
    os.environ.update({str(k): str(v) for k, v in found.items()})
    return bool(found)


def read_link(query: str | None) -> tuple[ViewLink, Any, str | None]:
    """``(link, body, problem)`` for a page's query string: the parsed link and the body it asks for (None: the
    default body); a link that cannot be opened gives the default view and ``problem`` says why."""
    try:
        link = parse_query(query)
        return link, body_from_link(link), None
    except ValueError as exc:
        return ViewLink(), None, str(exc)


class LinkActions:
    """Links of the dashboard ``dash`` (its state, panels, tabs, header, page bridge and message area)."""

    def __init__(self, dash: Any) -> None:
        self.dash = dash
        self.msg = dash.msg

    def open(self, link: ViewLink) -> None:
        """Show the view ``link`` asks for; the section's work runs in a thread (inline when ``dash.synchronous``)."""
        d = self.dash
        if link.presenter:
            d.header.presenter.value = True
        motion = link.motion
        if motion:
            d.panel("motion").set_motion(link.omega0, link.T, tilt=link.tilt, axis=link.axis, damping=link.damping,
                                         unit=link.unit)
        tab = link.tab if link.tab is not None else ("motion" if motion else None)
        if tab is not None:
            d.show(tab)
        if link.E is None and not link.launch:
            if not link.is_default:
                mot = d.panels.get("motion")
                what = "" if not (motion and mot is not None) else say.link_motion(
                    mot.omega0_rad(), mot.t_final.value, start=mot.start.describe() if link.tilt is not None else "",
                    damping=link.damping or 0.0)
                tab_title = TAB_TITLES.get(tab or "")
                self.msg.info(say.link_opened(body_title(d.state.body), _(tab_title) if tab_title else None,
                                              motion=what))
            return
        sec = d.panel("section")
        if d.synchronous and hasattr(sec, "task"):
            sec.task.synchronous = True
        if d.synchronous:
            self._open_section(sec, link)
        else:
            threading.Thread(target=self._open_section, args=(sec, link), name="pe-link", daemon=True).start()

    def _open_section(self, sec: Any, link: ViewLink) -> None:
        """The section part of a link: the level, then the seeds one after the other."""
        try:
            if link.E is not None:
                mu = link.mu if link.mu is not None else sec.default_mu(link.E)
                try:
                    sec.set_level(link.E, mu)
                except ValueError as exc:
                    self.msg.error(_("This link's level cannot be shown: {problem}").format(problem=exc))
                    return
            launched = 0
            for phi, z in link.launch:
                L = sec.launch_at(phi, z, source="link")
                if L is not None:
                    launched += 1
                    sec.task.wait()
            level = "E = {E} J, μ = {mu} kg m²/s".format(E=i18n.number(sec.section.energy, ".5g"),
                                                         mu=i18n.number(sec.section.mu, ".4g"))
            self.msg.info(say.link_opened(body_title(self.dash.state.body), level=level, launched=launched,
                                          asked=len(link.launch)))
        except Exception as exc:  # noqa: BLE001 - the page must stay usable
            report_error(self.msg, exc, _("opening the link"))

    def current(self) -> ViewLink:
        """The view shown now (what "copy link to this view" writes)."""
        d = self.dash
        tab = TABS[d.tabs.selected_index or 0][0]
        sec, mot = d.panels.get("section"), d.panels.get("motion")
        shown = sec is not None and getattr(sec, "section", None) is not None and d.state.E is not None
        kw = mot.link_motion() if tab == "motion" and mot is not None else None  # ω₀ and start below, if a link holds it
        motion = None if kw is None else (kw.pop("omega0"), kw.pop("T"))
        view = link_of_view(d.state.body, tab, d.state.presenter, (d.state.E, d.state.mu) if shown else None,
                            list(d.state.launches), motion, start=kw)
        # the language kept in the link unless the page is in English by default
        lang = i18n.language()
        return dataclasses.replace(view, lang=lang if lang != "en" or d.link.lang else None)

    def switch_language(self, change: Any) -> None:
        """The header's language menu: the page opens itself again in the language chosen, on this view; the
        section's levels come back from the browser (:mod:`.autosave`), as after "reconnect"."""
        lang = change["new"] if isinstance(change, dict) else change
        if lang not in i18n.LANGUAGES or lang == i18n.language():
            return
        d = self.dash
        try:
            d.autosave.save(force=True)  # the page keeps the work as it is now, before it opens again
        except Exception:  # noqa: BLE001 - the page still opens in the language chosen
            log.exception("autosave before the language change")
        d.bridge.open_view(build_query(dataclasses.replace(self.current(), launch=(), lang=lang)))
        self.msg.info(_("Opening this view in {language}…").format(language=i18n.LANGUAGES[lang]))

    @guarded(what=i18n.N_("making the link"))
    def copy(self, _b: Any = None) -> None:
        """"copy link to this view": the link in the header's box, then to the clipboard (through the page)."""
        query = build_query(self.current())
        base = self.dash.bridge.base_url
        self.dash.header.show_link((base + "?" + query) if base else "?" + query)
        self.dash.bridge.copy(query)
        n = len(self.current().launch)
        mot = self.dash.panels.get("motion")
        beyond = mot.beyond_links() if mot is not None and TABS[self.dash.tabs.selected_index or 0][0] == "motion" \
            else ""
        self.msg.info((ngettext("Link to this view below ({n} trajectory as seeds); copying it to the clipboard…",
                                "Link to this view below ({n} trajectories as seeds); copying it to the clipboard…",
                                n).format(n=n) if n else _("Link to this view below; copying it to the clipboard…"))
                      + (_(" A link cannot hold {what} yet: it opens the Motion tab without this motion.").format(
                          what=beyond) if beyond else ""))

    def copied(self, url: str, ok: bool) -> None:
        """The page's answer to a copy: the full URL (the page knows its address) and whether copying worked."""
        self.dash.header.link_text.value = url
        self.msg.ok(_("Link copied to the clipboard (also in the box above).") if ok else
                    _("The browser did not allow copying: select the link in the box above and copy it."))
