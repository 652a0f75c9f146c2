"""The active translation of the words a user reads (issue 24), below the figures and the app.

The figures (:mod:`pendulum_explorer.plotting`) and the dashboard (:mod:`pendulum_explorer.app`) write their words
through :func:`_` (:func:`ngettext` for counts, :func:`N_` for constants translated where shown) and their numbers
through :func:`number`, so one page's language changes both.  Plain Python, no widgets and no catalog reading: the
app's :func:`pendulum_explorer.app.i18n.set_language` reads the catalog and installs it here (:func:`use`).
Nothing installed (a script, a notebook): English, the figures as they always were.
"""
from __future__ import annotations

import gettext
import math

#: the languages that write a decimal comma (numbers in messages and figures; the number boxes accept one)
DECIMAL_COMMA = frozenset({"de", "es"})

_state: dict = {"lang": "en", "tr": gettext.NullTranslations()}


def use(lang: str, translation: gettext.NullTranslations) -> None:
    """Make ``translation`` (of the language code ``lang``) the one :func:`_`, :func:`ngettext` and :func:`number`
    use."""
    _state.update(lang=lang, tr=translation)


def N_(message: str) -> str:
    """Mark ``message`` for extraction without translating it (a constant translated where it is shown)."""
    return message


def _(message: str) -> str:
    """The translation of ``message`` in the page's language (English: ``message`` itself; ``""`` stays ``""``, not
    the catalog's header, which gettext files under the empty message)."""
    return str(_state["tr"].gettext(message)) if message else ""


def ngettext(singular: str, plural: str, n: int) -> str:
    """The translation of ``singular``/``plural`` for the count ``n``."""
    return str(_state["tr"].ngettext(singular, plural, n))


def language() -> str:
    """The page's language code (``en``, ``de``, ``es``)."""
    return str(_state["lang"])


def number(x: float, spec: str = "g") -> str:
    """``format(x, spec)`` with the page language's decimal sign (``2,03`` in German and Spanish)."""
    text = format(float(x), spec)
    if _state["lang"] in DECIMAL_COMMA and math.isfinite(float(x)):
        text = text.replace(".", ",")
    return text


class Number(float):
    """A float that formats itself with the page language's decimal sign, for messages whose catalog string holds
    the format: ``_("damping c = {c:g} N m s").format(c=Number(0.1))`` gives "Dämpfung c = 0,1 N m s" in German."""

    def __format__(self, spec: str) -> str:
        return number(float(self), spec)


def list_separator() -> str:
    """What separates numbers in a list in the page's language: ``", "``, or ``"; "`` with a decimal comma."""
    return "; " if _state["lang"] in DECIMAL_COMMA else ", "


def numbers(values: object, spec: str = "g") -> str:
    """Several numbers as a list in the page's language: ``1.5, 2`` (English), ``1,5; 2`` (decimal comma)."""
    return list_separator().join(number(float(x), spec) for x in values)  # type: ignore[attr-defined]
