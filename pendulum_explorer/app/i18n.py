"""The dashboard's words in the page's language (issue 24).

Every user-visible string of the app layer goes through :func:`_` (and :func:`ngettext` for counts), so that the
catalogs in ``app/locale`` can translate it.  A string defined at import time (a module's constant: tab titles,
preset titles, About texts) is marked with :func:`N_` (extraction only) and translated where it is shown, with
:func:`_`: a preheated kernel imports the panels before its page's request says the language.

The language is one per kernel (each page has its own): :func:`set_language` at the page's start, from the link's
``lang=`` (:func:`choose`), else the browser's ``Accept-Language`` (Voila passes it as ``HTTP_ACCEPT_LANGUAGE``),
else English; the page itself (:mod:`.pagebridge`) falls back to ``navigator.language`` where the server does not
pass the header.  The catalogs are gettext's: ``locale/<lang>/LC_MESSAGES/pendulum_explorer.po`` (translated by
hand) compiled to ``.mo`` (committed; ``python3 tools/dev.py i18n`` extracts the strings, updates the ``.po`` files
and compiles them).  Reading one ``.mo`` takes about a millisecond; nothing is read for English.  The active
translation, :func:`_`, :func:`ngettext` and :func:`number` live in :mod:`pendulum_explorer._words`, below the
figures, so that the figures speak the page's language too.
"""
from __future__ import annotations

import gettext
from pathlib import Path

from .._words import (DECIMAL_COMMA, N_, Number, _, language, list_separator, ngettext, number,  # noqa: F401
                      numbers, use)

#: the catalogs' directory and gettext domain
LOCALE_DIR = Path(__file__).resolve().parent / "locale"
DOMAIN = "pendulum_explorer"
#: the page's languages: code -> the name the language menu shows (in that language)
LANGUAGES = {"en": "English", "de": "Deutsch", "es": "Español"}


def set_language(lang: str | None) -> str:
    """Make ``lang`` (a code of :data:`LANGUAGES`; anything else: English) the page's language, of the app's words
    and the figures' alike (:mod:`pendulum_explorer._words`); returns the code."""
    code = lang if lang in LANGUAGES else "en"
    if code == "en":
        tr: gettext.NullTranslations = gettext.NullTranslations()
    else:
        tr = gettext.translation(DOMAIN, str(LOCALE_DIR), languages=[code], fallback=True)
    use(code, tr)
    return code


def from_accept_language(header: str | None) -> str | None:
    """The first of the browser's languages (an ``Accept-Language`` header or ``navigator.language``) that the
    page has, by its primary subtag and the header's q weights; None if none."""
    if not header:
        return None
    ranked = []
    for i, part in enumerate(str(header)[:500].split(",")):
        tag, _sep, params = part.strip().partition(";")
        q = 1.0
        if params.strip().startswith("q="):
            try:
                q = float(params.strip()[2:])
            except ValueError:
                q = 0.0
        code = tag.strip().lower().split("-")[0]
        if code in LANGUAGES and q > 0:
            ranked.append((-q, i, code))
    return min(ranked)[2] if ranked else None


def choose(link_lang: str | None, accept_language: str | None = None) -> str:
    """The page's language: the link's ``lang`` if given, else the browser's (``Accept-Language``), else ``en``."""
    if link_lang in LANGUAGES:
        return str(link_lang)
    return from_accept_language(accept_language) or "en"


def parse_number(text: str) -> float:
    """A number typed in the page's language: a decimal comma is read as a point (``"2,03"`` -> 2.03); raises
    ValueError for anything else that is not a plain number."""
    s = str(text).strip().replace("\u2212", "-")
    if s.count(",") == 1 and "." not in s:
        s = s.replace(",", ".")
    return float(s)


def parts_html(parts, tr=None, fields=None) -> str:
    """HTML of an About box from ``(tag, text)`` parts, each text translated by ``tr`` (default :func:`_`) and, if
    ``fields`` is given, filled with them (``{name}`` placeholders: formulas kept out of the translated text);
    consecutive ``li`` parts make one list."""
    tr = _ if tr is None else tr
    out: list[str] = []
    for tag, text in parts:
        if tag == "li" and (not out or not out[-1].startswith("<li")):
            out.append("<ul>")
        elif tag != "li" and out and out[-1].startswith("<li"):
            out.append("</ul>")
        words = tr(text) if fields is None else tr(text).format(**fields)
        out.append(f"<{tag}>{words}</{tag.split()[0]}>")
    return "\n".join(out)
