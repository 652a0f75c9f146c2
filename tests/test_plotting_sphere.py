"""Figures of the relative equilibria: the traces carry the right data."""
import numpy as np
import plotly.graph_objects as go
import pytest

from pendulum_explorer.equilibria import equilibria
from pendulum_explorer.plotting.colours import alpha_colour_value
from pendulum_explorer.plotting.diagrams import energy_momentum_figure
from pendulum_explorer.plotting.sphere import CAMERAS, equilibria_sphere_figure
from pendulum_explorer.presets import lagrange_top, paper_fig1


@pytest.fixture(scope="module")
def eq1():
    return equilibria(paper_fig1().pendulum)


def _family_traces(fig):
    return [t for t in fig.data if isinstance(t, go.Scatter3d) and t.mode == "lines"]


def _runs(fig):
    """Every family run of the merged line traces: (run meta incl. "stable", its trace, vertices, colours, hover)."""
    out = []
    for t in _family_traces(fig):
        P = np.column_stack([t.x, t.y, t.z])
        c = np.asarray(t.line.color, float)
        for r in t.meta["runs"]:
            s = slice(r["start"], r["stop"])
            out.append((dict(r, stable=t.meta["stable"]), t, P[s], c[s], list(t.hovertext)[s]))
    return out


@pytest.mark.parametrize("view", ["3d", "top", "bottom"])
def test_sphere_figure_traces(eq1, view):
    fig = equilibria_sphere_figure(eq1, view=view)
    assert isinstance(fig.data[0], go.Surface)
    assert fig.layout.scene.camera.eye.z == CAMERAS[view]["eye"]["z"]
    fam = _family_traces(fig)
    # one trace per line style: stable parts thick and solid, unstable thin and dashed; runs separated by gaps
    assert len(fam) <= 2 and len({t.meta["stable"] for t in fam}) == len(fam)
    for t in fam:
        assert (t.line.width, t.line.dash) == ((7, "solid") if t.meta["stable"] else (3, "dash"))
        assert len(t.hovertext) == len(t.x) == len(t.line.color) and not t.connectgaps
        gaps = np.flatnonzero(np.isnan(np.asarray(t.x, float)))
        np.testing.assert_array_equal(gaps, [r["stop"] for r in t.meta["runs"][:-1]])
    runs = _runs(fig)
    for f in eq1.curves():
        rf = [r for r in runs if r[0]["family"] == f.label]
        assert rf
        # every sample is drawn and every vertex is a sample; colours are the transformed alpha
        G = np.vstack([r[2] for r in rf])
        assert len(f) <= len(G) <= len(f) + len(rf)
        d = np.linalg.norm(G[:, None, :] - f.Gamma[None, :, :], axis=2)
        assert d.min(axis=0).max() == 0.0 and d.min(axis=1).max() == 0.0
        c = np.concatenate([r[3] for r in rf])
        for g, cv in zip(G[::7], c[::7]):
            i = int(np.argmin(np.linalg.norm(f.Gamma - g, axis=1)))
            assert cv == pytest.approx(float(alpha_colour_value(f.alpha[i], eq1.alpha_scale)), abs=1e-12)
        for meta, _t, P, _c, text in rf:  # each run has one stability, that of its line style
            idx = [int(np.argmin(np.linalg.norm(f.Gamma - g, axis=1))) for g in P]
            core = idx[:-1] if len(idx) > 1 and meta["stable"] != f.stable[idx[-1]] else idx
            assert set(f.stable[core]) == {meta["stable"]}
            assert "alpha" in text[0]
    pts = {t.meta["family"]: t for t in fig.data if isinstance(t, go.Scatter3d) and t.mode == "markers"}
    np.testing.assert_allclose([pts["hanging"].x[0], pts["hanging"].y[0], pts["hanging"].z[0]], eq1.hanging.Gamma)
    np.testing.assert_allclose([pts["inverted"].x[0], pts["inverted"].y[0], pts["inverted"].z[0]],
                               eq1.inverted.Gamma)
    assert pts["hanging"].marker.color == "#0072B2"
    assert sum(bool(t.line.showscale) for t in fam) == 1  # one colour bar


def test_alpha_colour_value():
    v = alpha_colour_value(np.array([-np.inf, -1.0, 0.0, 1.0, np.inf]), 1.0)
    np.testing.assert_allclose(v, [-1, -0.5, 0, 0.5, 1])


def test_sphere_family_filter_and_eq7a():
    eq = equilibria(lagrange_top().pendulum)
    fig = equilibria_sphere_figure(eq, families=["eq7a"])
    runs = _runs(fig)
    assert runs and all(r[0]["family"] == "eq7a" for r in runs)
    with pytest.raises(ValueError):
        equilibria_sphere_figure(eq, view="side")


def test_sphere_selected_marker_and_view_case(eq1):
    p = eq1.isolated[0]
    fig = equilibria_sphere_figure(eq1, view="3D", selected=p)
    assert fig.layout.scene.camera.eye.z == CAMERAS["3d"]["eye"]["z"]
    sel = fig.data[-1]
    assert sel.name == "selected" and sel.marker.symbol == "circle-open"
    np.testing.assert_allclose([sel.x[0], sel.y[0], sel.z[0]], p.Gamma)
    assert all(t.name != "selected" for t in equilibria_sphere_figure(eq1).data)


def test_energy_momentum_figure(eq1):
    fig = energy_momentum_figure(eq1, marker=(0.5, -1.0))
    lines = [t for t in fig.data if t.mode == "lines"]
    for f in eq1.families:
        trs = [t for t in lines if t.meta["family"] == f.label and t.meta["branch"] == f.branch]
        assert sum(len(t.x) for t in trs) - (len(trs) - 1) == len(f)
        x = np.concatenate([t.x for t in trs])
        assert set(np.round(x, 12)) == set(np.round(f.mu, 12))
        for t in trs:
            idx = [int(np.argmin(np.abs(f.mu - xv) + np.abs(f.energy - yv))) for xv, yv in zip(t.x, t.y)]
            core = idx[:-1] if len(idx) > 1 else idx  # the last vertex is shared with the next run
            assert set(f.stability[core]) == {t.meta["stability"]}
    cur = [t for t in fig.data if t.name == "current"][0]
    assert (cur.x[0], cur.y[0]) == (0.5, -1.0)
    hang = [t for t in fig.data if t.name == "hanging"][0]
    assert hang.y[0] == pytest.approx(eq1.hanging.energy)


def test_families_labelled_on_both_figures_in_matching_colours():
    """Issue 11: L1-L4 named on the sphere and on the energy-momentum diagram, each in one colour on both, at the
    same equilibrium (the same family index); the isolated points named in words; no sphere tick labels (the
    two axes' "-1" met at a corner as "-1-1")."""
    from pendulum_explorer.plotting.colours import label_colour
    from pendulum_explorer.plotting.sphere import default_e_max, family_label_index

    eq = equilibria(paper_fig1().pendulum)
    sph = equilibria_sphere_figure(eq)
    em = energy_momentum_figure(eq)
    a3 = {a.text.removeprefix("<b>").removesuffix("</b>"): a for a in sph.layout.scene.annotations}
    a2 = {a.text.removeprefix("<b>").removesuffix("</b>"): a for a in em.layout.annotations}
    assert {"L1", "L2", "L3", "L4"} <= set(a3) and set(a2) == {"L1", "L2", "L3", "L4"}
    assert {"hanging", "inverted", "Eq. 38 spin"} <= set(a3)
    colours = {lab: a2[lab].font.color for lab in a2}
    assert len(set(colours.values())) == 4
    for lab in ("L1", "L2", "L3", "L4"):
        assert a3[lab].font.color == colours[lab] == label_colour(a3[lab].bordercolor)  # text darkened (contrast)
        f = [f for f in eq.curves(+1) if f.label == lab][0]
        k = family_label_index(f, default_e_max(eq))
        np.testing.assert_allclose([a3[lab].x, a3[lab].y, a3[lab].z], f.Gamma[k])
        assert (a2[lab].x, a2[lab].y) == (float(f.mu[k]), float(f.energy[k]))
        assert f.energy[k] <= em.layout.yaxis.range[1]  # the label is on the visible part of the diagram
    for ax in (sph.layout.scene.xaxis, sph.layout.scene.yaxis, sph.layout.scene.zaxis):
        assert ax.showticklabels is False
    assert [t.name for t in em.data if t.mode == "markers"][:3] == ["hanging", "inverted", "Eq. 38 spin"]
    assert not equilibria_sphere_figure(eq, labels=False).layout.scene.annotations


@pytest.mark.parametrize("preset", ["paper_fig2", "lagrange_top"])
def test_non_generic_families_have_plain_names_on_both_figures(preset):
    """Issue 11 item 5: the bodies with rho on a principal axis (3 of the 4 presets) named their families
    "axis-hanging", "eq41-p1", "eq7a" on the figures: internal names, not words.  Each family keeps one name and
    one colour on both figures."""
    from pendulum_explorer import presets
    from pendulum_explorer.plotting.sphere import family_name

    eq = equilibria(presets.get(preset).pendulum)
    sph = equilibria_sphere_figure(eq)
    em = energy_momentum_figure(eq)
    texts = [a.text for a in sph.layout.scene.annotations] + [a.text for a in em.layout.annotations]
    hovers = [t.hovertemplate or "" for t in em.data] + ["".join(t.hovertext or []) for t in sph.data
                                                        if isinstance(t, go.Scatter3d)]
    for s in texts + hovers:
        assert "eq41" not in s and "eq7a" not in s and "axis-" not in s, s
    a2 = {a.text: a.font.color for a in em.layout.annotations}
    assert set(a2) == {f"<b>{family_name(lab)}</b>" for lab in eq.labels}
    for a in sph.layout.scene.annotations:
        if a.text in a2:
            assert a.font.color == a2[a.text]
    assert family_name("eq41-p2") == "ring 2" and family_name("axis-hanging") == "hanging spin"
    assert family_name("eq7a") == "ring" and family_name("L3") == "L3"


def test_titles_fit_the_presenter_view_at_1024(eq1):
    """The figures' titles are drawn in one line per <br>: the single lines of 77 and 51 characters were cut off
    in the presenter view (20 px text) at 1024 x 768, where the sphere is ~530 px and the diagram ~410 px wide."""
    for fig, most in ((equilibria_sphere_figure(eq1), 45), (energy_momentum_figure(eq1), 30)):
        lines = fig.layout.title.text.split("<br>")
        assert max(len(x) for x in lines) <= most, lines
        assert fig.layout.margin.t >= 24 * len(lines)  # room for every line above the plot


def test_labels_at_the_same_point_are_stacked():
    """The planar rod's rings (alpha 2.99 and 3) were labelled at the same place on both figures: "ring 2" hid
    "ring 1".  Labels of nearby points now sit one step apart; labels of distant points keep their place."""
    from pendulum_explorer.presets import planar
    from pendulum_explorer.plotting.sphere import LABEL_STEP

    eq = equilibria(planar().pendulum)
    sph, em = equilibria_sphere_figure(eq), energy_momentum_figure(eq)
    boxes = ((sph.layout.scene.annotations, (0.25, 0.25, 0.25), "xyz"),
             (em.layout.annotations, (0.25 * np.ptp(em.layout.xaxis.range), 0.08 * np.ptp(em.layout.yaxis.range)),
              "xy"))
    for anns, box, keys in boxes:
        a = {x.text: x for x in anns}
        r1, r2 = a["<b>ring 1</b>"], a["<b>ring 2</b>"]
        assert max(abs(r1[k] - r2[k]) / b for k, b in zip(keys, box)) <= 1.0  # the rings' labels point at one place
        assert abs(r1.ay - r2.ay) >= LABEL_STEP
        for x in anns:  # no two labels near each other on the same side at the same offset
            for y in anns:
                if x is not y and max(abs(x[k] - y[k]) / b for k, b in zip(keys, box)) <= 1.0 \
                        and np.sign(x.ay) == np.sign(y.ay):
                    assert abs(x.ay - y.ay) >= LABEL_STEP, (x.text, y.text)
    far = energy_momentum_figure(equilibria(paper_fig1().pendulum)).layout.annotations
    assert [x.ay for x in far if x.text == "<b>L1</b>"] == [-20]  # a label with no neighbour keeps its place


def test_sphere_labels_do_not_cover_each_other_where_the_page_draws_them():
    """On the paper's Fig. 1 sphere (3D view) "hanging" covered "L2" (boxes 272-331 x 571-593 and 294-316 x
    558-580 px at 1024x768).  Where project_to_screen puts them (checked against the page by
    tests/browser/test_sphere_orientation.py: the anchors of "hanging" and "L2" at (-18, 98.5) and (-85.5, 67.5) px
    from the scene's centre, y down, scene 414 px high: hanging below the centre), no two labels' boxes overlap,
    for every preset and view, at the dashboard's two heights."""
    from pendulum_explorer.plotting.sphere import CAMERAS, SPHERE_MARGIN_T, label_size, project_to_screen
    from pendulum_explorer.presets import lagrange_top, paper_fig2, planar

    eq1 = equilibria(paper_fig1().pendulum)
    a = {x.text: x for x in equilibria_sphere_figure(eq1, height=470).layout.scene.annotations}
    P = project_to_screen([[a[k].x, a[k].y, a[k].z] for k in ("<b>hanging</b>", "<b>L2</b>")], CAMERAS["3d"], 414)
    assert np.allclose(P, [[-18.0, 98.5], [-85.5, 67.5]], atol=2.0), P
    for body in (paper_fig1, paper_fig2, planar, lagrange_top):
        eq = eq1 if body is paper_fig1 else equilibria(body().pendulum)
        for view in CAMERAS:
            for height, px in ((470, 14), (752, 14), (752, 18)):  # 752 px, 18 px text: the presenter view
                anns = list(equilibria_sphere_figure(eq, view=view, height=height, label_px=px).layout.scene.annotations)
                assert all(x.font.size == px for x in anns)
                P = project_to_screen([[x.x, x.y, x.z] for x in anns], CAMERAS[view], height - SPHERE_MARGIN_T)
                boxes = []
                for x, p in zip(anns, P):
                    w, h = label_size(x.text, px)
                    boxes.append((p[0] + x.ax - w / 2, p[1] + x.ay - h / 2, p[0] + x.ax + w / 2, p[1] + x.ay + h / 2))
                for i, b in enumerate(boxes):
                    for j in range(i + 1, len(boxes)):
                        c = boxes[j]
                        assert not (b[0] < c[2] and c[0] < b[2] and b[1] < c[3] and c[1] < b[3]), (
                            body.__name__, view, height, px, anns[i].text, anns[j].text)
