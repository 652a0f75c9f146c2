#!/usr/bin/env python3
"""The dashboard's message catalogs (issue 24): extract, update, compile.  Needs Babel (the ``test`` extra).

    python3 tools/dev.py i18n            # extract the app's strings to the .pot, update every .po, compile the .mo
    python tools/i18n_catalogs.py        # the same, with the Python it is run by

Strings are those of ``pendulum_explorer/app/*.py``, of the figures, ``pendulum_explorer/plotting/*.py``, and the library's
messages for bad input that the dashboard shows (``LIBRARY``: ``bounds.py``, ``bodies.py``), inside
``_()``, ``N_()`` and ``ngettext()`` (see :mod:`pendulum_explorer.app.i18n` and :mod:`pendulum_explorer._words`).
The template is ``app/locale/pendulum_explorer.pot``; each language's
``app/locale/<lang>/LC_MESSAGES/pendulum_explorer.po`` gets the new strings (empty, to translate) and loses the
strings no longer in the sources (kept as obsolete at the end of the file); a string whose English changed a little
comes back marked fuzzy with its old translation, to check.  Then every ``.po`` is compiled to its ``.mo``
(committed: the page reads the ``.mo`` with the standard library's gettext, nothing to build after a clone).
"""
from __future__ import annotations

import io
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
APP = ROOT / "pendulum_explorer" / "app"
LOCALE = APP / "locale"
DOMAIN = "pendulum_explorer"
LANGS = ("de", "es")
KEYWORDS = {"_": None, "N_": None, "ngettext": (1, 2)}


#: the library's modules whose words the dashboard shows (a bound, a custom J, the presets' descriptions)
LIBRARY = ("bounds.py", "bodies.py", "presets.py")


def sources() -> list[Path]:
    """The files whose strings the page shows: the app's, the figures' (``pendulum_explorer/plotting``) and the
    library's messages for bad input that the dashboard shows (:data:`LIBRARY`)."""
    return (sorted(APP.glob("*.py")) + sorted((ROOT / "pendulum_explorer" / "plotting").glob("*.py"))
            + [p for p in (ROOT / "pendulum_explorer" / name for name in LIBRARY) if p.exists()])


def extract():
    """A babel Catalog of every marked string of :func:`sources` (with its file and line)."""
    from babel.messages.catalog import Catalog
    from babel.messages.extract import extract_from_file

    cat = Catalog(project="Pendulum Explorer", domain=DOMAIN, charset="utf-8")
    for path in sources():
        for lineno, message, comments, context in extract_from_file("python", str(path), keywords=KEYWORDS,
                                                                      comment_tags=("TRANSLATORS:",)):
            cat.add(message, None, [(str(path.relative_to(ROOT)), lineno)], auto_comments=comments,
                    context=context)
    return cat


def po_path(lang: str) -> Path:
    return LOCALE / lang / "LC_MESSAGES" / f"{DOMAIN}.po"


def read_po(lang: str):
    from babel.messages.pofile import read_po as _read

    with open(po_path(lang), "rb") as f:
        return _read(f, locale=lang, domain=DOMAIN)


def mo_bytes(catalog) -> bytes:
    """The .mo of ``catalog`` (fuzzy entries left out, as gettext does)."""
    from babel.messages.mofile import write_mo

    buf = io.BytesIO()
    write_mo(buf, catalog, use_fuzzy=False)
    return buf.getvalue()


def main() -> int:
    from babel.messages.catalog import Catalog
    from babel.messages.pofile import write_po

    template = extract()
    LOCALE.mkdir(parents=True, exist_ok=True)
    with open(LOCALE / f"{DOMAIN}.pot", "wb") as f:
        write_po(f, template, width=116, omit_header=False, sort_output=False, include_lineno=False)
    for lang in LANGS:
        path = po_path(lang)
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.exists():
            cat = read_po(lang)
        else:
            cat = Catalog(locale=lang, domain=DOMAIN, project="Pendulum Explorer", charset="utf-8", fuzzy=False)
        cat.update(template, update_header_comment=False)
        with open(path, "wb") as f:
            write_po(f, cat, width=116, sort_output=False, ignore_obsolete=False, include_lineno=False)
        cat = read_po(lang)
        path.with_suffix(".mo").write_bytes(mo_bytes(cat))
        todo = [m.id for m in cat if m.id and (not m.string or m.fuzzy or
                                                (isinstance(m.string, tuple) and not all(m.string)))]
        print(f"{lang}: {len(cat)} messages, {len(todo)} to translate or check (untranslated or fuzzy)")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    sys.exit(main())
