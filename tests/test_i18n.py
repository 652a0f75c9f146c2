"""The dashboard in the class's language (issue 24, item 3): the catalogs complete, the page's language from the
link or the browser, German panels, decimal commas."""
import collections
import io
import re
import sys
from pathlib import Path

import pytest

from app_helpers import _dash

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))

import i18n_catalogs as cats  # noqa: E402

from pendulum_explorer.app import i18n  # noqa: E402
from pendulum_explorer.app.links import LANG_CODES, LinkError, build_query, parse_query  # noqa: E402

LANGS = ("de", "es")
BRACES = re.compile(r"\{[^{}]*\}")


@pytest.fixture(autouse=True)
def english_after():
    yield
    i18n.set_language("en")


@pytest.fixture(scope="module")
def template():
    return cats.extract()


def _forms(msg):
    return list(msg.string) if isinstance(msg.string, (list, tuple)) else [msg.string]


def _ids(msg):
    return list(msg.id) if isinstance(msg.id, (list, tuple)) else [msg.id]


def test_extraction_finds_the_apps_strings(template):
    """The extraction over app/*.py finds the strings of every panel and of the shell (a broken keyword list or
    source glob would give an empty catalog, and the completeness test below would pass on nothing)."""
    ids = {m.id if isinstance(m.id, str) else m.id[0] for m in template if m.id}
    assert len(ids) > 250
    for s in ("Poincaré section", "launch nearby", "use this shape", "copy link to this view", "reconnect",
              "section at {level}: click in the white region to launch a trajectory", "{n} trajectory",
              "admissible at this μ: E &gt; min V<sub>μ</sub> = <b>{lo}</b> J (whole sphere above {all} J); at this "
              "E: |μ| &lt; {mu_max} kg m²/s · area {area} · E slider {a} … {b} J"):
        assert s in ids, s


@pytest.mark.parametrize("lang", LANGS)
def test_every_string_translated_with_the_same_placeholders(template, lang):
    """Every extracted string has a translation in ``lang`` (every plural form), none fuzzy, and the translation
    has the same placeholders ({E}, {n}, ...) and the same braces of the LaTeX as the English."""
    cat = cats.read_po(lang)
    problems = []
    for m in template:
        if not m.id:
            continue
        t = cat.get(m.id)
        if t is None:
            problems.append(("missing", m.id))
            continue
        forms = _forms(t)
        if t.fuzzy or not all(forms):
            problems.append(("fuzzy" if t.fuzzy else "untranslated", m.id))
            continue
        ids = _ids(m)
        for k, form in enumerate(forms):
            src = ids[min(k, len(ids) - 1)]
            # the singular of an ngettext may leave its count out ("this seed is"): compare with the plural then
            want = collections.Counter(BRACES.findall(src))
            got = collections.Counter(BRACES.findall(form))
            if got != want and not (k == 0 and len(ids) > 1 and got == collections.Counter(BRACES.findall(ids[0]))):
                problems.append(("placeholders", src, form))
    assert not problems, f"{len(problems)} problems in {lang}: {problems[:10]}"


@pytest.mark.parametrize("lang", LANGS)
def test_compiled_catalog_matches_its_po(lang):
    """The committed .mo is the compilation of the .po (``python3 tools/dev.py i18n`` was run after editing)."""
    mo = cats.po_path(lang).with_suffix(".mo")
    assert mo.read_bytes() == cats.mo_bytes(cats.read_po(lang)), f"{mo} is stale: run python3 tools/dev.py i18n"


def test_template_is_current(template):
    """The committed .pot holds the strings the sources have now."""
    from babel.messages.pofile import read_po

    with open(cats.LOCALE / "pendulum_explorer.pot", "rb") as f:
        pot = read_po(f)
    assert {str(m.id) for m in pot if m.id} == {str(m.id) for m in template if m.id}


def test_languages_and_links_agree():
    assert tuple(i18n.LANGUAGES) == LANG_CODES
    for lang in LANGS:
        assert cats.po_path(lang).exists()


def test_browser_language_choice():
    """``Accept-Language`` (or navigator.languages): the first language the page has, by q weight."""
    assert i18n.from_accept_language("de-DE,de;q=0.9,en-US;q=0.8,en;q=0.7") == "de"
    assert i18n.from_accept_language("fr-CH, fr;q=0.9, es;q=0.8, de;q=0.7") == "es"
    assert i18n.from_accept_language("en;q=0.3, de;q=0.6") == "de"
    assert i18n.from_accept_language("fr, it") is None
    assert i18n.from_accept_language("de;q=0") is None
    assert i18n.from_accept_language("") is None
    assert i18n.choose("es", "de-DE") == "es"      # the link wins over the browser
    assert i18n.choose(None, "de-AT,de") == "de"
    assert i18n.choose(None, None) == "en"
    assert i18n.choose("xx", "pt-BR") == "en"


def test_numbers_in_the_languages_decimal_sign():
    i18n.set_language("de")
    assert i18n.number(2.03) == "2,03" and i18n.number(-4.6795, ".5g") == "-4,6795" and i18n.number(12, "g") == "12"
    assert i18n.parse_number("2,03") == 2.03 and i18n.parse_number(" −1,5 ") == -1.5 and i18n.parse_number("3.5") == 3.5
    with pytest.raises(ValueError):
        i18n.parse_number("1,2,3")
    # a catalog string that holds its number format: the value formats itself with the decimal comma
    assert "c = {c:g}, t = {t:.2f}".format(c=i18n.Number(0.1), t=i18n.Number(2)) == "c = 0,1, t = 2,00"
    assert i18n.numbers([1.5, 2.0]) == "1,5; 2"
    i18n.set_language("es")
    assert i18n.number(0.2518, ".4g") == "0,2518"
    i18n.set_language("en")
    assert i18n.number(2.03) == "2.03" and "{c:g}".format(c=i18n.Number(0.1)) == "0.1"
    assert i18n.numbers([1.5, 2.0]) == "1.5, 2"


def test_link_keeps_the_language():
    assert parse_query("lang=de").lang == "de" and parse_query("lang=de").is_default
    q = build_query(parse_query("preset=paper_fig2&tab=section&lang=es"))
    assert "lang=es" in q and parse_query(q).lang == "es"
    with pytest.raises(LinkError, match="lang must be one of en | de | es"):
        parse_query("lang=fr")


def test_german_page_speaks_german():
    """A page opened with ``?lang=de``: tabs, header, the Body, Equilibria and Section panels' labels, buttons and
    messages in German, numbers with a decimal comma; "copy link" keeps lang=de."""
    d = _dash("lang=de")
    assert i18n.language() == "de"
    assert list(d.tabs.titles) == ["Körper", "Gleichgewichte", "Poincaré-Schnitt", "Bewegung"]
    h = d.header
    assert (h.presenter.description, h.copy_link.description, h.reset_btn.description) == (
        "Präsentationsansicht", "Link zu dieser Ansicht kopieren", "zurücksetzen")
    assert h.language.value == "de" and "Körper in Verwendung:" in h.body_in_use.value and "9,81 m/s²" in \
        h.body_in_use.value
    body = d.panel("body")
    assert body.preset.description == "Vorlage" and body.apply_shape.description == "diese Form verwenden"
    assert [t for t, _k in body.preset.options][0] == "Abb. 1 elliptischer Zylinder (Artikel)"
    assert body.custom.titles == ("eigene Form", "eigenes J und ρ")
    assert "Hauptträgheitsmomente" in body.summary.value
    eq = d.panel("equilibria")
    eq.task.synchronous = True
    eq.task.wait()
    assert eq.nearby.description == "in der Nähe starten" and eq.family.description == "stationäre Drehung"
    assert "stationärer Drehungen" in eq.msg.text
    sec = d.panel("section")
    sec.task.synchronous = True
    assert "zulässig bei diesem μ" in sec.levels.ranges.value
    assert sec.files.export_btn.description == "exportieren" and sec.undos.undo_btn.description == "rückgängig"
    assert sec.msg.text.startswith("Schnitt bei E = ")
    L = sec.launch_at(0.5, 0.3)
    assert L is not None
    # "Trajektorie #1: 500 Durchstoßpunkte (E = 0 J, μ = 0,2518 kg m²/s); im Tab „Bewegung“ ansehen"
    assert re.match(r"Trajektorie #\d+: \d+ Durchstoßpunkte \(E = [-\d,]+ J, μ = \d+,\d+ kg m²/s\)", sec.msg.text), \
        sec.msg.text
    query = build_query(d.current_link())
    assert "lang=de" in query
    d.links.copy()
    assert "lang=de" in h.link_text.value and d.msg.text.startswith("Link zu dieser Ansicht unten")


def test_english_page_link_has_no_language():
    """Without lang= (and no browser language), the page is English and its links stay as before."""
    d = _dash(None)
    assert list(d.tabs.titles) == ["Body", "Equilibria", "Poincaré section", "Motion"]
    assert "lang" not in build_query(d.current_link())


def test_browser_language_from_the_request(monkeypatch):
    """Voila passes the browser's Accept-Language (HTTP_ACCEPT_LANGUAGE): the page opens in it, and the page
    is told that a language was chosen (it does not open itself again in navigator.language)."""
    monkeypatch.setenv("HTTP_ACCEPT_LANGUAGE", "es-ES,es;q=0.9,en;q=0.5")
    d = _dash(None)
    assert d.tabs.titles[2] == "Sección de Poincaré" and d.bridge.lang == "es" and d.bridge.lang_chosen
    assert d.bridge.decimal_comma and "reconectar" == d.bridge.words["reconnect"]
    monkeypatch.setenv("HTTP_ACCEPT_LANGUAGE", "fr-FR")
    d = _dash(None)
    assert d.bridge.lang == "en" and not d.bridge.lang_chosen  # the page may try navigator.language


def test_language_menu_opens_the_view_in_that_language():
    """Choosing a language in the header asks the page to open the same view with lang= (levels kept in the
    browser: the autosave is sent first)."""
    d = _dash("preset=paper_fig2&tab=section&E=2.03")
    sent = []
    d.bridge.send = lambda content, buffers=None: sent.append(content)
    d.header.language.value = "de"
    ops = [m["op"] for m in sent]
    assert ops == ["autosave", "open"], ops
    q = parse_query(sent[-1]["query"])
    assert (q.lang, q.tab, q.preset, q.E) == ("de", "section", "paper_fig2", 2.03)
    assert d.msg.text == "Opening this view in Deutsch…"


def test_no_english_left_on_the_german_panels(template):
    """Every text of the German Body, Equilibria, Section and Motion panels and the header (descriptions,
    tooltips, options, titles) that is a catalog string appears translated: an English string wrapped nowhere but
    also in the catalog would show here."""
    import ipywidgets as w

    english = set()
    for m in template:
        if m.id:
            english.update(_ids(m))
    cat = cats.read_po("de")
    same = {str(m.id) for m in cat if m.id and m.string == m.id}  # the same word in both ("Export", "Link"...)
    d = _dash("lang=de")
    for key in ("body", "equilibria", "section", "motion"):
        d.panel(key)
    skip: set[int] = set()
    texts = []

    def walk(x):
        if isinstance(x, w.Widget) and id(x) not in skip:
            for name in ("description", "tooltip", "placeholder"):
                v = getattr(x, name, None)
                if isinstance(v, str) and v:
                    texts.append(v)
            for t in getattr(x, "titles", ()) or ():
                texts.append(t)
            for o in getattr(x, "options", ()) or ():
                texts.append(o[0] if isinstance(o, tuple) else o)
            for c in getattr(x, "children", ()) or ():
                walk(c)

    walk(d)
    left = [t for t in texts if t in english and t not in same]
    assert not left, f"English on the German page: {left}"
    # the walk reached the Motion tab's and the chaos map's controls (not only the panels built before)
    assert {"berechnen und animieren", "Dauer [s] (0,1–200)", "Routh + Rekonstruktion", "Start", "Achse",
            "Chaos-Karte", "periodischen Orbit finden"} <= set(texts), sorted(texts)
    # a range in a label writes German decimals (it read "Dauer [s] (0.1–200)"; the menus' entries name files,
    # versions and presets: "(c) E = 2.03" is the paper's own label)
    points = [t for t in texts if re.search(r"\(\S*\d\.\d", t) and not t.startswith("(")]
    assert not points, f"decimal points in German labels: {points}"


def test_german_motion_tab():
    """The Motion tab with ``?lang=de``: its controls, the player's words sent to the page (play, speed, time
    readout, energy bars) and its messages in German; the page's template fills in as before."""
    d = _dash("lang=de")
    mot = d.panel("motion")
    assert (mot.run.description, mot.choice.description) == ("berechnen und animieren", "Trajektorie")
    assert [t for t, _k in mot.method.options] == ["Routh + Rekonstruktion", "LGVI", "Taylor (Maschinengenauigkeit)",
                                                   "DOP853 (Dämpfung)"]
    assert mot.start.start.description == "Start" and mot.start.damping.description.startswith("Dämpfung c (")
    words = mot.out.words
    assert (words["play"], words["pause"], words["kinetic"], words["potential"]) == (
        "▶ Abspielen", "❚❚ Pause", "kinetische Energie", "potentielle Energie U = −m g ρ·Γ (Gl. 34)")
    assert words["time"].format(t="1.00", total="10") == "t = 1.00 s von 10 s"
    mot.start.damping.value = 0.1
    mot.method.value = "lr"
    mot._on_run()
    assert mot.msg.text.startswith("Dämpfung c = 0,1 N m s: nur „DOP853 (Dämpfung)“"), mot.msg.text
    i18n.set_language("en")
    assert _dash(None).panel("motion").out.words["play"] == "▶ play"


def test_catalog_loading_reads_one_small_file():
    """set_language reads one .mo (about 40 kB; measured ~1 ms): the cost at a page's start."""
    assert cats.po_path("de").with_suffix(".mo").stat().st_size < 200_000
    assert i18n.set_language("de") == "de" and i18n._("Body") == "Körper"
    assert i18n.set_language("xx") == "en" and i18n._("Body") == "Body"


def test_extraction_command_writes_the_catalogs(tmp_path, monkeypatch):
    """``tools/i18n_catalogs.main`` (``python3 tools/dev.py i18n``) on a copy: a new source string appears in each
    .po untranslated (to fill in), and the translated ones stay."""
    import shutil

    app = tmp_path / "pendulum_explorer" / "app"
    shutil.copytree(cats.APP / "locale", app / "locale")
    (app / "extra.py").write_text('from .i18n import _\nX = _("a brand new label")\n')
    shutil.copy(cats.APP / "shell_text.py", app / "shell_text.py")
    monkeypatch.setattr(cats, "ROOT", tmp_path)
    monkeypatch.setattr(cats, "APP", app)
    monkeypatch.setattr(cats, "LOCALE", app / "locale")
    out = io.StringIO()
    monkeypatch.setattr(sys, "stdout", out)
    assert cats.main() == 0
    de = cats.read_po("de")
    assert de.get("a brand new label") is not None and not de.get("a brand new label").string
    assert de.get("Poincaré section").string == "Poincaré-Schnitt"
    assert "de: " in out.getvalue()


def test_german_motion_about_and_launch_sources():
    """The Motion tab's About box and its trajectory menu's launch sources in German (issue 24: they stayed
    English); the formulas are the English ones, and the English page shows what it showed before."""
    import numpy as np

    from pendulum_explorer.app.state import Launch

    def launch(source, id=7):
        return Launch(id=id, E=0.5, mu=0.25, body="paper_fig2", source=source, Gamma0=np.array([0.0, 0.0, 1.0]),
                      Gammadot0=np.zeros(3))

    d = _dash("lang=de")
    mot = d.panel("motion")
    about = mot.about.children[0].value
    assert "Die Lage \\(R(t)\\in SO(3)\\) des Körpers" in about and "Drehimpuls" in about, about[:300]
    from pendulum_explorer.app import motion_text

    for formula in motion_text.FORMULAS.values():
        assert formula in about
    assert about.count("<li>") == 2 and about.count("<p>") == 4 and "reduced attitude" not in about
    mot.add_launch(launch("nearby"))
    mot.add_launch(launch("click", id=8))
    labels = [t for t, _k in mot.choice.options]
    assert labels[1:] == ["#7 (in der Nähe) E = 0,5 J, μ = 0,25", "#8 (Klick) E = 0,5 J, μ = 0,25"], labels
    i18n.set_language("en")
    mot = _dash(None).panel("motion")
    assert mot.about.children[0].value == motion_text.ABOUT
    assert motion_text.ABOUT.startswith("<p>The attitude \\(R(t)\\in SO(3)\\) of the body is rebuilt from the motion "
                                        "of the reduced attitude \\(\\Gamma = R^{T}e_3\\), the direction of gravity")
    assert ("add the dynamic phase \\(\\theta_{\\rm dyn}\\) (Eq. 67): \\(R = e^{\\theta_{\\rm dyn}\\hat e_3}R_{\\rm "
            "hor}\\), \\(\\omega = \\omega_{\\rm hor}+\\nu\\Gamma\\) (Eqs 68&ndash;69).</li>") in motion_text.ABOUT
    mot.add_launch(launch("nearby"))
    assert [t for t, _k in mot.choice.options][1] == "#7 (nearby) E = 0.5 J, μ = 0.25"


@pytest.mark.parametrize("lang", LANGS)
def test_words_chosen_at_run_time_are_translated(lang):
    """Words the page picks from a table when it shows them (a launch's source, why a family of periodic orbits
    stopped, its bifurcations, the Motion About's paragraphs) are marked for the catalog and translated; the empty
    string stays empty (gettext's catalog files its header under it: a German family note ended in the header)."""
    from pendulum_explorer.app import motion_text, section_orbits
    from pendulum_explorer.app.state import SOURCE_LABELS, source_label

    i18n.set_language(lang)
    words = (list(SOURCE_LABELS.values()) + list(section_orbits._STOPS.values())
             + list(section_orbits._BIFURCATIONS.values()) + [text for _tag, text in motion_text.ABOUT_PARTS])
    left = [s for s in words if i18n._(s) == s]
    assert not left, left
    assert i18n._("") == "" and source_label("") == "" and source_label("an old source") == "an old source"


#: the keys of a figure's JSON whose strings a user reads
TEXT_KEYS = {"text", "title", "name", "hovertemplate", "hovertext", "ticktext", "description"}


def _figure_texts(obj, key=None):
    """Every string a user reads in a figure's JSON (titles, axis titles, trace names, hovers, annotations, tick
    labels, the text alternative), split at the line breaks; plotly's settings ("top", "h") left out."""
    if isinstance(obj, str):
        if key in TEXT_KEYS:
            yield from obj.split("<br>")
    elif isinstance(obj, dict):
        for k, v in obj.items():
            yield from _figure_texts(v, k)
    elif isinstance(obj, (list, tuple)):
        for v in obj:
            yield from _figure_texts(v, key)


@pytest.fixture(scope="module")
def figures():
    """Builders of the figures the page shows (the section chart and sphere, the equilibria sphere, the
    energy–momentum diagram, the body preview, the Motion plots, damped and not), each called in the language set."""
    import numpy as np

    from pendulum_explorer.equilibria import equilibria
    from pendulum_explorer.poincare import PoincareSection
    from pendulum_explorer.presets import paper_fig1, paper_fig2
    from pendulum_explorer.plotting import body, diagrams, section, sphere
    from pendulum_explorer.trajectory import simulate

    b1, b2 = paper_fig1(), paper_fig2()
    eq = equilibria(b1.pendulum)
    sec, seed = PoincareSection.from_paper_ic(b2.pendulum, 2.03)
    cr = sec.crossings(seed, 20)
    traj = simulate(b2.pendulum, np.eye(3), np.array([1.0, 1.0, 1.0]), 1.0, n_out=50)
    damped = simulate(b2.pendulum, np.eye(3), np.array([1.0, 1.0, 1.0]), 1.0, n_out=50, damping=0.1)
    return {
        "chart": lambda: section.section_chart_figure(sec, [cr]),
        "section sphere": lambda: section.section_sphere_figure(sec, [cr]),
        "equilibria sphere": lambda: sphere.equilibria_sphere_figure(eq, selected=eq.hanging),
        "energy-momentum": lambda: diagrams.energy_momentum_figure(eq, marker=(0.3, 1.0)),
        "body": lambda: body.body_preview_figure(b1),
        "motion": lambda: body.motion_plots_figure(traj),
        "damped motion": lambda: body.motion_plots_figure(damped),
    }


def test_figures_in_german(figures):
    """With ``set_language("de")`` the figures the plotting functions return have German titles, axis titles,
    legend names, labels and text alternatives, numbers with a decimal comma; the names the code looks traces up
    by (meta) stay; English is back with ``set_language("en")``."""
    i18n.set_language("de")
    chart = figures["chart"]()
    assert chart.layout.title.text == "Poincaré-Schnitt  E = 2,03 J,  μ = 0,704 kg m²/s"
    assert chart.layout.yaxis.title.text == "Γ₃ = cos θ   (+1: hängend, unten)"
    assert chart.layout.separators == ", "  # plotly.js writes its tick labels and hover values with a decimal comma
    names = [t.name for t in chart.data]
    assert "+e3 (hängender Pol)" in names and "Trajektorie 1 (20)" in names and "V_mu" in names
    assert chart.layout.meta["description"].startswith("Poincaré-Schnitt bei E = 2,03 J, μ = 0,704 kg m²/s: "
                                                       "1 Trajektorie, 20 Durchstoßpunkte; ")
    eqs = figures["equilibria sphere"]()
    assert eqs.layout.title.text == ("Relative Gleichgewichte auf S² (Ansicht: 3D)<br>durchgezogen = linear stabil, "
                                     "gestrichelt = instabil")
    points = {t.meta["family"]: t.name for t in eqs.data if isinstance(t.meta, dict) and "family" in t.meta}
    assert points["hanging"] == "hängend" and points["inverted"] == "invertiert" and points["selected"] == "selected"
    assert "<b>hängend</b>" in [a.text for a in eqs.layout.scene.annotations]
    assert eqs.layout.meta["description"].startswith("Relative Gleichgewichte auf der Kugel: ")
    em = figures["energy-momentum"]()
    assert em.layout.title.text == "Energie-Impuls-Diagramm<br>der relativen Gleichgewichte"
    assert em.layout.xaxis.title.text == "μ [kg m²/s]  (vertikaler Drehimpuls)"
    assert "elliptisch-elliptisch" in {t.name for t in em.data} and em.data[-1].name == "aktuell"
    bp = figures["body"]()
    assert {"Körper", "Aufhängepunkt", "Schwerpunkt", "Schwerkraft"} <= {t.name for t in bp.data}
    assert bp.layout.scene.zaxis.title.text == "oben" and "Hauptachse 1 (J1 = " in " ".join(t.name for t in bp.data)
    mot = figures["motion"]()
    assert [a.text for a in mot.layout.annotations] == ["ω(t) [rad/s], körperfeste Achsen",
                                                        "Fehler der Erhaltungsgrößen",
                                                        "Neigung gegen die Senkrechte [°]"]
    assert mot.layout.meta["description"].startswith("Bewegung über 1 s (50 Abtastwerte): ω₁ von ")
    dm = figures["damped motion"]()
    assert {"gesamt", "kinetisch", "potentiell"} <= {t.name for t in dm.data}
    i18n.set_language("en")
    chart = figures["chart"]()
    assert chart.layout.title.text == "Poincaré section  E = 2.03 J,  μ = 0.704 kg m²/s"
    assert chart.layout.separators is None
    assert figures["equilibria sphere"]().layout.title.text.startswith("Relative equilibria on S² (3d view)<br>")
    assert [a.text for a in figures["motion"]().layout.annotations][0] == "ω(t) [rad/s], body axes"
    assert "pivot" in {t.name for t in figures["body"]().data}


@pytest.mark.parametrize("lang", LANGS)
def test_no_english_left_in_the_figures(template, figures, lang):
    """No text of the figures (titles, axes, legends, hovers, labels, text alternatives) is an English catalog
    string left untranslated: every word of plotting/ goes through the catalog."""
    english = set()
    for m in template:
        if m.id:
            english.update(_ids(m))
    same = {str(m.id) for m in cats.read_po(lang) if m.id and m.string == m.id}  # "regular", "total" in Spanish
    i18n.set_language(lang)
    for name, build in figures.items():
        texts = set(_figure_texts(build().to_plotly_json()))
        left = sorted(t for t in texts if t in english and t not in same)
        assert not left, f"English in the {name} figure ({lang}): {left}"


@pytest.mark.parametrize("lang, desc, cls", [("de", "Körper aus Abb. 2: J = diag(0,13, 0,28, 0,17) kg m², ρ = ",
                                              "(Sattel-Zentrum)"),
                                             ("es", "Cuerpo de la fig. 2: J = diag(0,13, 0,28, 0,17) kg m², ρ = ",
                                              "(silla-centro)")])
def test_preset_descriptions_and_stability_classes_in_the_pages_language(lang, desc, cls):
    """A German or Spanish page showed the presets' descriptions in English ("Body of Fig. 2: J = diag(...) kg m^2,
    rho = ...") and the stability class in brackets in English ("(saddle-centre)") beside a legend in its words."""
    from pendulum_explorer import presets
    from pendulum_explorer.app.body_text import body_summary_html
    from pendulum_explorer.app.equilibria_text import stability_words
    i18n.set_language(lang)
    assert desc in body_summary_html(presets.paper_fig2())
    assert stability_words("saddle-centre").endswith(cls)
    for name in presets.PRESETS:  # every preset's description is in the catalog
        assert i18n._(presets.get(name).description) != presets.get(name).description, name


def test_equilibrium_table_numbers_in_the_pages_decimal_sign():
    """The equilibria table wrote Γ, ω and the eigenvalues with decimal points ("[0.0000, 0.0000, 7.7275]") beside
    μ and E with commas ("1,31368") on a German or Spanish page; English is unchanged."""
    from pendulum_explorer.app.equilibria_text import _vec, eigenvalues_text
    assert _vec([0.0, -1e-9, 7.72751]) == "[0.0000, 0.0000, 7.7275]"
    assert eigenvalues_text([-9.563j, -2.41, 2.41, 9.563j]) == "-9.563i, -2.41, +2.41, +9.563i"
    for lang in LANGS:
        i18n.set_language(lang)
        assert _vec([0.0, -1e-9, 7.72751]) == "[0,0000; 0,0000; 7,7275]"
        assert eigenvalues_text([-9.563j, -2.41, 2.41, 9.563j]) == "-9,563i; -2,41; +2,41; +9,563i"
