"""The dashboard's words in the page's language (issue 24).

Every user-visible string of the app layer goes through :func:`_` (and :func:`ngettext` for counts), so that the
catalogs in ``app/locale`` can translate it. Until a language is chosen the words are English.
"""
from __future__ import annotations


def _(message: str) -> str:
    """The translation of ``message`` in the page's language (English: ``message`` itself)."""
    return message


def ngettext(singular: str, plural: str, n: int) -> str:
    """The translation of ``singular``/``plural`` for the count ``n``."""
    return singular if n == 1 else plural
