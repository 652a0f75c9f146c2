"""Numbers and the library's messages on a German or Spanish page (issue 24, the defects seen at its end).

* A range in a control's label has the language's decimal sign ("Dauer [s] (0,1–200)"; it read "0.1–200"), and a
  pair of numbers in a message is split by "; " where the language writes a decimal comma: "(0,123; 0,500)", not
  the ambiguous "(0,123, 0,500)".
* The library's messages that the dashboard shows next to a control for bad input (a bound of ``bounds.BOUNDS``,
  a custom J that is not positive definite or not realizable) are in the page's language; in a script (no page)
  they stay English, word for word.
* The manifolds' message counts the homoclinic points computed, and says how many lie in the polar caps, which
  the chart does not draw (it said "off the poles" of all of them).
"""
import re
import sys
from pathlib import Path

import numpy as np
import pytest

from app_helpers import _dash

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))

import i18n_catalogs as cats  # noqa: E402

import pendulum_explorer as pe  # noqa: E402
from pendulum_explorer.app import i18n  # noqa: E402
from pendulum_explorer.app import section_text as say  # noqa: E402
from pendulum_explorer.app.links import LinkError, parse_query  # noqa: E402
from pendulum_explorer.bounds import BOUNDS  # noqa: E402
from pendulum_explorer.errors import NotRealizableError  # noqa: E402

#: two placeholders in brackets with a comma between them: "({phi}, {z})", "[{lo}, {hi}]"
PAIR = re.compile(r"[(\[]\{[^{}]*\}, \{[^{}]*\}[)\]]")


@pytest.fixture(autouse=True)
def english_after():
    yield
    i18n.set_language("en")


@pytest.mark.parametrize("lang", ["de", "es"])
def test_pairs_of_numbers_are_split_by_a_semicolon(lang):
    """No translation in a decimal-comma language writes a pair of numbers with a comma between them (three did:
    the fixed-point search, the orbit found and a link's range); the messages then read unambiguously."""
    pairs = [m.string for m in cats.read_po(lang) if m.id and isinstance(m.string, str) and PAIR.search(m.string)]
    assert pairs == [], pairs
    i18n.set_language(lang)
    assert "(φ, Γ₃) = (0,123; 0,500)" in say.orbit_search(1, 0.12345, 0.5)
    with pytest.raises(LinkError, match=r"\[-1e\+06; 1e\+06\]"):
        parse_query("E=2000000")
    i18n.set_language("en")
    assert "(φ, Γ₃) = (0.123, 0.500)" in say.orbit_search(1, 0.12345, 0.5)


def test_range_labels_in_german():
    d = _dash("lang=de")
    mot, sec = d.panel("motion"), d.panel("section")
    assert mot.t_final.description == "Dauer [s] (0,1–200)"
    assert mot.start.damping.description == "Dämpfung c (0…100 N m s)"
    assert sec.maps.map_T.description.endswith("(20–1000)")


def test_bounds_messages_in_the_pages_language():
    t = BOUNDS["t_final"]
    with pytest.raises(ValueError) as en:
        t.check(500.0, plausible=True)
    assert str(en.value) == "the duration = 500 s is outside 0.1 … 200 s"
    with pytest.raises(ValueError, match=r"crossings per trajectory = 6000 is outside 100 … 5000$"):
        BOUNDS["n_crossings"].check(6000, plausible=True)
    i18n.set_language("de")
    with pytest.raises(ValueError) as de:
        t.check(500.0, plausible=True)
    assert str(de.value) == "die Dauer = 500 s liegt außerhalb von 0,1 … 200 s"
    with pytest.raises(ValueError) as why:
        BOUNDS["omega0"].check(1e4, plausible=True)
    assert str(why.value) == ("ω₀-Komponente = 10000 rad/s liegt außerhalb von -1000 … 1000 rad/s (schnellere "
                              "Bewegungen lassen sich im Unterricht nicht wahrheitsgetreu zeigen)")
    i18n.set_language("es")
    with pytest.raises(ValueError, match=r"^la duración = 0,05 s está fuera de 0,1 … 200 s$"):
        t.check(0.05, plausible=True)


def test_custom_J_messages_in_german():
    """The Body tab's custom J: the library's refusal beside the button is German on a German page (it was
    English), and the same refusal in a script is English as before."""
    with pytest.raises(NotRealizableError, match=r"^J is not physically realizable: .* got J1 = 1 > J2 \+ J3 = 0\.2 "
                                                 r"\(principal moments \[1, 0\.1, 0\.1\]\)$"):
        pe.Pendulum(np.diag([1.0, 0.1, 0.1]), [0, 0, 0.3])
    d = _dash("lang=de")
    body = d.panel("body")
    body.set_J(np.diag([1.0, 0.1, 0.1]), [0, 0, 0.3])
    assert body.J_msg.kind == "error" and body.J_msg.text.startswith(
        "J ist physikalisch nicht realisierbar: die Hauptträgheitsmomente müssen J1 <= J2 + J3 erfüllen; erhalten: "
        "J1 = 1 > J2 + J3 = 0,2 (Hauptträgheitsmomente [1; 0,1; 0,1])"), body.J_msg.text
    body.set_J(np.diag([0.3, 0.3, -0.1]), [0, 0, 0.3])
    assert body.J_msg.text.startswith("J muss positiv definit sein (alle Hauptträgheitsmomente > 0); erhalten: "
                                      "Hauptträgheitsmomente [0,3; 0,3; -0,1]"), body.J_msg.text


def test_manifolds_message_counts_the_polar_caps():
    """E = 8.83: 10 homoclinic points, 2 in the cap next to the hanging pole (test_manifolds): the message says
    both numbers, and "off the poles" of none."""
    text = say.manifolds_drawn(1, [4.37, 0.2288], 10, 2, False)
    assert text == ("stable and unstable manifolds of the period-1 orbit (multipliers 4.37 and 0.2288): 10 homoclinic "
                    "points (2 of them in the polar caps |Γ₃| > 0.99, not drawn on the chart)")
    assert say.manifolds_drawn(1, [4.37, 0.2288], 0, 0, True).endswith(
        ": 0 homoclinic points; stopped short (work bound, or a jump of the return map)")
    assert say.manifolds_drawn(2, [9.0, 0.111], 1, 0, False).endswith(": 1 homoclinic point")
    i18n.set_language("de")
    assert say.manifolds_drawn(1, [4.37, 0.2288], 10, 2, False).endswith(
        "(Multiplikatoren 4,37 und 0,2288): 10 homokline Punkte (davon 2 in den Polkappen |Γ₃| > 0,99, auf der Karte "
        "nicht gezeichnet)")
