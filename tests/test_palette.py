"""The figures' categorical colours stay apart for colour-blind eyes (issue 24 section 2).

Every palette (trajectories, stability classes, families' labels, the sphere's points, the body preview, the motion
plots) is simulated for deuteranopia, protanopia and tritanopia (colorspacious, Machado et al. 2009, severity 100)
and the smallest CIEDE2000 distance between two of its colours must be >= 10; every palette also differs by line
style or marker symbol (not by colour alone, WCAG 1.4.1).
"""
from __future__ import annotations

import itertools

import colorspacious  # the test extra (pyproject.toml): a missing package fails here, it does not skip
import numpy as np
import pytest

from pendulum_explorer.plotting import body as B
from pendulum_explorer.plotting import colours as C
from pendulum_explorer.plotting import diagrams as D
from pendulum_explorer.plotting import sphere as S

MIN_DELTA_E = 10.0
DEFICIENCIES = ("deuteranomaly", "protanomaly", "tritanomaly")


def hex_rgb(h: str) -> np.ndarray:
    h = h.lstrip("#")
    return np.array([int(h[i:i + 2], 16) / 255.0 for i in (0, 2, 4)])


def ciede2000(lab1, lab2) -> float:
    """CIEDE2000 colour difference (Sharma, Wu & Dalal 2005, Eqs 1-23; kL = kC = kH = 1)."""
    L1, a1, b1 = (float(v) for v in lab1)
    L2, a2, b2 = (float(v) for v in lab2)
    Cb = (np.hypot(a1, b1) + np.hypot(a2, b2)) / 2
    G = 0.5 * (1 - np.sqrt(Cb ** 7 / (Cb ** 7 + 25.0 ** 7)))
    a1p, a2p = (1 + G) * a1, (1 + G) * a2
    C1p, C2p = np.hypot(a1p, b1), np.hypot(a2p, b2)
    h1p = np.degrees(np.arctan2(b1, a1p)) % 360 if C1p else 0.0
    h2p = np.degrees(np.arctan2(b2, a2p)) % 360 if C2p else 0.0
    dL, dC = L2 - L1, C2p - C1p
    dh = 0.0 if C1p * C2p == 0 else (h2p - h1p + 180) % 360 - 180
    dH = 2 * np.sqrt(C1p * C2p) * np.sin(np.radians(dh / 2))
    Lb, Cbp = (L1 + L2) / 2, (C1p + C2p) / 2
    if C1p * C2p == 0:
        hb = h1p + h2p
    elif abs(h1p - h2p) <= 180:
        hb = (h1p + h2p) / 2
    else:
        hb = (h1p + h2p + 360) / 2 if h1p + h2p < 360 else (h1p + h2p - 360) / 2
    T = (1 - 0.17 * np.cos(np.radians(hb - 30)) + 0.24 * np.cos(np.radians(2 * hb))
         + 0.32 * np.cos(np.radians(3 * hb + 6)) - 0.20 * np.cos(np.radians(4 * hb - 63)))
    dth = 30 * np.exp(-(((hb - 275) / 25) ** 2))
    RC = 2 * np.sqrt(Cbp ** 7 / (Cbp ** 7 + 25.0 ** 7))
    SL = 1 + 0.015 * (Lb - 50) ** 2 / np.sqrt(20 + (Lb - 50) ** 2)
    SC, SH = 1 + 0.045 * Cbp, 1 + 0.015 * Cbp * T
    RT = -np.sin(np.radians(2 * dth)) * RC
    return float(np.sqrt((dL / SL) ** 2 + (dC / SC) ** 2 + (dH / SH) ** 2 + RT * (dC / SC) * (dH / SH)))


def simulated_lab(colour: str, deficiency: str | None) -> np.ndarray:
    rgb = hex_rgb(colour)
    if deficiency is not None:
        cvd = {"name": "sRGB1+CVD", "cvd_type": deficiency, "severity": 100}
        rgb = np.clip(colorspacious.cspace_convert(rgb, cvd, "sRGB1"), 0.0, 1.0)
    return colorspacious.cspace_convert(rgb, "sRGB1", "CIELab")


def min_distance(palette: dict[str, str], deficiency: str | None) -> tuple[float, str, str]:
    labs = {k: simulated_lab(v, deficiency) for k, v in palette.items()}
    return min((ciede2000(labs[a], labs[b]), a, b) for a, b in itertools.combinations(labs, 2))


# Sharma, Wu & Dalal (2005), Table 1: pairs 1, 7, 17-20, 25, 31 of the CIEDE2000 test data
SHARMA = [((50.0, 2.6772, -79.7751), (50.0, 0.0, -82.7485), 2.0425),
          ((50.0, 0.0, 0.0), (50.0, -1.0, 2.0), 2.3669),
          ((50.0, 2.5, 0.0), (73.0, 25.0, -18.0), 27.1492),
          ((50.0, 2.5, 0.0), (61.0, -5.0, 29.0), 22.8977),
          ((50.0, 2.5, 0.0), (56.0, -27.0, -3.0), 31.9030),
          ((50.0, 2.5, 0.0), (58.0, 24.0, 15.0), 19.4535),
          ((60.2574, -34.0099, 36.2677), (60.4626, -34.1751, 39.4387), 1.2644),
          ((90.8027, -2.0831, 1.4410), (91.1528, -1.6435, 0.0447), 1.4441)]


@pytest.mark.parametrize("lab1, lab2, expected", SHARMA)
def test_ciede2000_matches_sharmas_test_data(lab1, lab2, expected):
    assert ciede2000(lab1, lab2) == pytest.approx(expected, abs=1e-4)
    assert ciede2000(lab2, lab1) == pytest.approx(expected, abs=1e-4)


def test_simulation_merges_red_and_green_for_a_deuteranope():
    # the transform does something: pure red and green are far apart (> 80) for normal vision, much closer when
    # simulated for deuteranopia (the pair a deuteranope confuses) but not for tritanopia
    normal = ciede2000(simulated_lab("#FF0000", None), simulated_lab("#00FF00", None))
    deut = ciede2000(simulated_lab("#FF0000", "deuteranomaly"), simulated_lab("#00FF00", "deuteranomaly"))
    trit = ciede2000(simulated_lab("#FF0000", "tritanomaly"), simulated_lab("#00FF00", "tritanomaly"))
    assert normal > 80 and deut < 0.5 * normal and trit > deut


def _palettes() -> dict[str, dict[str, str]]:
    return {
        "trajectories": {f"trajectory {i + 1}": c for i, c in enumerate(C.PALETTE)},
        "stability classes": {k: v for k, v in D.STABILITY_COLOURS.items() if k},  # "" (n/a) = degenerate's
        "family labels": {f"family {i + 1}": c for i, c in enumerate(C.FAMILY_LABEL_COLOURS)},
        "isolated points": {"hanging": S.HANGING_COLOUR, "inverted": S.INVERTED_COLOUR, "eq38": S.EQ38_COLOUR},
        "body preview": {"body": B.BODY_COLOUR, "pivot": B.PIVOT_COLOUR, "centre of mass": B.COM_COLOUR,
                         "gravity": B.GRAVITY_COLOUR, **{f"axis {i + 1}": c for i, c in enumerate(B.AXIS_COLOURS)}},
        "motion: omega": {f"omega{i + 1}": C.OKABE_ITO[i] for i in range(3)},
        "motion: errors": {"dE": C.OKABE_ITO[5], "dmu": C.OKABE_ITO[4]},
    }


@pytest.mark.parametrize("deficiency", (None,) + DEFICIENCIES)
@pytest.mark.parametrize("palette", list(_palettes()))
def test_palette_colours_stay_apart(palette, deficiency):
    d, a, b = min_distance(_palettes()[palette], deficiency)
    assert d >= MIN_DELTA_E, f"{palette}: {a} and {b} are {d:.2f} apart under {deficiency or 'normal vision'}"


def test_the_grey_of_the_old_palette_failed():
    # the degenerate class's old grey (#999999) next to focus-focus purple: 6.2 under deuteranopia (why it changed)
    old = dict(_palettes()["stability classes"], degenerate=C.GREY)
    assert min_distance(old, "deuteranomaly")[0] < MIN_DELTA_E


def test_not_by_colour_alone():
    # stability classes: one line style each; trajectories: one marker symbol per colour
    assert len(set(D.STABILITY_DASH.values())) == len(D.STABILITY_DASH)
    assert len(C.TRAJECTORY_SYMBOLS) == len(C.PALETTE) == len(set(C.TRAJECTORY_SYMBOLS))
    assert [C.trajectory_symbol(c.lower()) for c in C.PALETTE] == list(C.TRAJECTORY_SYMBOLS)
    assert C.trajectory_symbol("#123456") == "circle"


def test_figures_use_the_symbols_and_dashes():
    from pendulum_explorer.equilibria import equilibria
    from pendulum_explorer.presets import paper_fig1
    from pendulum_explorer.plotting.section import crossings_trace

    tr = crossings_trace(np.array([[0.6, 0.0, 0.8]]), name="t", colour=C.PALETTE[2])
    assert tr.marker.symbol == "diamond"
    fig = D.energy_momentum_figure(equilibria(paper_fig1().pendulum))
    lines = [t for t in fig.data if t.meta and "stability" in t.meta]
    assert lines and all(t.line.dash == D.STABILITY_DASH[t.meta["stability"]] for t in lines)
    assert all(t.line.color == D.STABILITY_COLOURS[t.meta["stability"]] for t in lines)


# ------------------------------------------------------------------------------------------------------------------
# text contrast (WCAG 2.1 1.4.3): every text colour of the figures >= 4.5:1 on what it is drawn on
# ------------------------------------------------------------------------------------------------------------------
def test_contrast_formula_matches_wcag():
    # black on white 21:1, white on white 1:1, #777777 on white 4.48:1 (the classic just-failing grey), Okabe-Ito
    # blue on white 5.19:1; a translucent text composited first
    assert C.contrast_ratio("#000000", "#FFFFFF") == pytest.approx(21.0)
    assert C.contrast_ratio("white", "#FFFFFF") == pytest.approx(1.0)
    assert C.contrast_ratio("#777777", "#FFFFFF") == pytest.approx(4.48, abs=0.01)
    assert C.contrast_ratio("#0072B2", "white") == pytest.approx(5.19, abs=0.01)
    assert C.over("rgba(0,0,0,0.5)", "#FFFFFF") == "#808080"
    for c in C.OKABE_ITO:
        t = C.text_colour(c)
        assert C.contrast_ratio(t, "#FFFFFF") >= 4.5
        if C.contrast_ratio(c, "#FFFFFF") < 4.55:  # darkened only as far as needed: a step less would fail
            r, g, b, _ = C.rgba(t)
            lighter = "#" + "".join(f"{min(255, round(255 * v * 1.03)):02X}" for v in (r, g, b))
            assert C.contrast_ratio(lighter, "#FFFFFF") < 4.55


def _template(fig, *path, default=None):
    node = fig.layout
    tmpl = fig.layout.template.layout
    for p in path:
        node = None if node is None else node[p]
        tmpl = None if tmpl is None else tmpl[p]
    return node if node is not None else (tmpl if tmpl is not None else default)


def text_pairs(fig):
    """(where, text colour, background) of every text of ``fig``: titles, axes, legends, colour bars (the default
    font colour), annotations and scene annotations (their box over the plot's background), trace texts (3D: on
    the scene background and on every surface / mesh of the scene, composited at its opacity)."""
    font = _template(fig, "font", "color", default="#444444")
    paper = _template(fig, "paper_bgcolor", default="white")
    plot = _template(fig, "plot_bgcolor", default="white")
    scene_bg = _template(fig, "scene", "xaxis", "backgroundcolor", default="white")
    if fig.layout.scene.xaxis.showbackground is False:
        scene_bg = paper
    out = [("default font on paper", font, paper), ("default font on plot", font, plot)]
    if fig.layout.title.font.color:
        out.append(("title", fig.layout.title.font.color, paper))
    legend_bg = fig.layout.legend.bgcolor
    if legend_bg:
        out.append(("legend", fig.layout.legend.font.color or font, C.over(legend_bg, plot)))
    for a in fig.layout.annotations:
        under = plot if a.xref != "paper" else paper
        bg = C.over(a.bgcolor, under) if a.bgcolor else under
        out.append((f"annotation {a.text}", a.font.color or font, bg))
    for a in fig.layout.scene.annotations or ():
        bg = C.over(a.bgcolor, scene_bg) if a.bgcolor else scene_bg
        out.append((f"scene annotation {a.text}", a.font.color or font, bg))
    solids = []
    for t in fig.data:
        if t.type == "surface" and t.colorscale:
            solids += [C.over(_with_alpha(c, t.opacity), scene_bg) for _, c in t.colorscale]
        if t.type == "mesh3d":
            solids.append(C.over(_with_alpha(t.color, t.opacity), scene_bg))
    for t in fig.data:
        if getattr(t, "mode", None) and "text" in t.mode:
            colour = (t.textfont.color if t.textfont and isinstance(t.textfont.color, str) else None) or font
            bgs = [scene_bg] + solids if t.type == "scatter3d" else [plot]
            out += [(f"text of trace {t.name}", colour, bg) for bg in bgs]
    return out


def _with_alpha(colour, opacity):
    r, g, b, a = C.rgba(colour)
    a *= 1.0 if opacity is None else opacity
    return f"rgba({round(255 * r)},{round(255 * g)},{round(255 * b)},{a})"


def _figures():
    from pendulum_explorer.equilibria import equilibria
    from pendulum_explorer.plotting.section import section_chart_figure, section_sphere_figure
    from pendulum_explorer.poincare import PoincareSection
    from pendulum_explorer.presets import get, paper_fig1, paper_fig2
    from pendulum_explorer.trajectory import simulate

    body = paper_fig1()
    eq = equilibria(body.pendulum)
    sec, seed = PoincareSection.from_paper_ic(paper_fig2().pendulum, 2.03)
    cr = sec.crossings(seed, 50)
    tr = simulate(body.pendulum, np.eye(3), [1.0, 1.0, 1.0], 1.0, n_out=101)
    return {
        "equilibria sphere": S.equilibria_sphere_figure(eq),
        "equilibria sphere (lagrange top)": S.equilibria_sphere_figure(equilibria(get("lagrange_top").pendulum)),
        "energy-momentum": D.energy_momentum_figure(eq, marker=(0.3, 1.0)),
        "body preview": B.body_preview_figure(body),
        "motion plots": B.motion_plots_figure(tr),
        "section chart": section_chart_figure(sec, [cr], clickable=True),
        "section sphere": section_sphere_figure(sec, [cr]),
    }


@pytest.fixture(scope="module")
def figures():
    return _figures()


@pytest.mark.parametrize("name", ["equilibria sphere", "equilibria sphere (lagrange top)", "energy-momentum",
                                  "body preview", "motion plots", "section chart", "section sphere"])
def test_every_text_of_the_figures_has_contrast(figures, name):
    pairs = text_pairs(figures[name])
    assert len(pairs) >= 2
    low = [(w, fg, bg, round(C.contrast_ratio(fg, bg), 2)) for w, fg, bg in pairs
           if C.contrast_ratio(fg, bg) < C.TEXT_CONTRAST]
    assert not low, low


def test_labels_keep_their_family_colour_on_the_border(figures):
    ann = figures["energy-momentum"].layout.annotations
    assert ann and all(a.font.color == C.label_colour(a.bordercolor) for a in ann)
    assert any(a.font.color != a.bordercolor for a in ann)  # at least one colour had to be darkened
