"""The equilibria sphere the right way up, as the page draws it (issue 23, item 4).

``plotting/sphere.py`` asks for the camera's up vector -e3 (Γ₃ = -1 up: the hanging attitude at the bottom, as in
the paper); plotly.js's default "turntable" drag mode replaced it by +e3, so "hanging" was drawn at the top and the
labels, placed for the intended camera, overlapped.  This test projects points with the page's own camera
(``scene.glplot.cameraParams``, as plotly places its 3D annotations) and checks the hanging point's screen y below
the sphere's centre, and that the labels' anchors are where ``project_to_screen`` (the label placement) puts them.
"""
from __future__ import annotations

import numpy as np
import pytest

import pe_browser as pb

pytestmark = [pytest.mark.browser, pytest.mark.slow]

#: the page's projection of data points of the equilibria sphere: CSS px from the scene's centre (x right, y down)
PROJECT_JS = """([pts]) => {
    const gd = Array.from(document.querySelectorAll('.pe-equilibria .js-plotly-plot'))
        .find(g => g._fullLayout && g._fullLayout.scene && g._fullLayout.scene._scene);
    const sc = gd._fullLayout.scene._scene, cp = sc.glplot.cameraParams, ds = sc.dataScale;
    const box = sc.container.getBoundingClientRect();
    const mul = (m, v) => { const o = [0, 0, 0, 0];
        for (let i = 0; i < 4; i++) for (let j = 0; j < 4; j++) o[j] += m[4 * i + j] * v[i]; return o; };
    const out = pts.map(([x, y, z]) => {
        let p = [x * ds[0], y * ds[1], z * ds[2], 1];
        for (const m of [cp.model, cp.view, cp.projection]) p = mul(m, p);
        return [p[0] / p[3] * box.width / 2, -p[1] / p[3] * box.height / 2];
    });
    const hanging = gd.data.find(t => t.name === 'hanging');
    const anns = (gd.layout.scene.annotations || []).map(a => [a.text, a.x, a.y, a.z]);
    return {points: out, hanging: [hanging.x[0], hanging.y[0], hanging.z[0]], height: box.height,
            width: box.width, camera: sc.getCamera(), annotations: anns};
}"""


def _project(page, pts):
    return page.evaluate(PROJECT_JS, [pts])


def _open_equilibria(browser, server, size, query="preset=paper_fig1&tab=equilibria"):
    page = browser.new_page()
    page.set_viewport_size(size)
    page.goto(server.url + "?" + query, wait_until="commit", timeout=60_000)
    pb.wait_for_panels(page, timeout=150_000)
    pb.show_panel(page, "pe-equilibria")
    page.wait_for_function("""() => Array.from(document.querySelectorAll('.pe-equilibria .js-plotly-plot'))
        .some(g => g._fullLayout && g._fullLayout.scene && g._fullLayout.scene._scene
                   && g.data.some(t => t.name === 'hanging'))""", timeout=120_000, polling=200)
    pb.wait_plots_quiet(page)
    return page


def _choose_view(page, view):
    page.locator(".pe-equilibria .widget-toggle-buttons button").filter(has_text=view).first.click()
    page.wait_for_function("(v) => Array.from(document.querySelectorAll('.pe-equilibria .js-plotly-plot'))"
                           ".some(g => g._fullLayout && g._fullLayout.scene && "
                           "(g._fullLayout.title.text || '').includes('(' + v + ' view)'))",
                           arg=view.lower(), timeout=60_000, polling=200)
    pb.wait_plots_quiet(page)


@pytest.mark.parametrize("size", [{"width": 1280, "height": 720}, {"width": 1024, "height": 768},
                                  {"width": 1920, "height": 1080}], ids=lambda s: f"{s['width']}x{s['height']}")
def test_hanging_point_is_drawn_below_the_centre(dashboard_server, browser, size):
    from pendulum_explorer.plotting.sphere import CAMERAS, project_to_screen

    page = _open_equilibria(browser, dashboard_server, size)
    try:
        r = _project(page, [[0, 0, 0]])
        hanging = r["hanging"]
        (cx, cy), = r["points"]
        (hx, hy), = _project(page, [hanging])["points"]
        top = _project(page, [[0, 0, -1], [0, 0, 1]])["points"]
        name = f"{size['width']}x{size['height']}"
        pb.ARTIFACTS.mkdir(exist_ok=True)
        pb.element_screenshot(page, ".pe-equilibria", f"sphere-orientation-{name}.png")
        pb.record_timings("sphere_orientation", {name: {"hanging_Gamma": hanging, "hanging_y": hy, "centre_y": cy,
                                                        "minus_e3_y": top[0][1], "plus_e3_y": top[1][1],
                                                        "camera_up": r["camera"]["up"]}})
        assert hanging[2] > 0.5, hanging  # the Fig. 1 body hangs with Γ near +e3
        assert hy > cy + 0.2 * r["height"] / 4, f"hanging drawn at y = {hy:.0f} px, the centre at {cy:.0f} px"
        assert top[0][1] < cy < top[1][1], f"Γ₃ = -1 at y = {top[0][1]:.0f}, +1 at {top[1][1]:.0f} px"
        # the labels are placed where the page draws their points (the placement's model of the camera)
        anns = r["annotations"]
        got = np.array(_project(page, [a[1:] for a in anns])["points"])
        want = project_to_screen([a[1:] for a in anns], CAMERAS["3d"], r["height"])
        err = np.abs(got - want).max()
        assert err < 4, f"the labels' anchors are {err:.1f} px from where the placement put them: {got} vs {want}"
        pb.assert_no_traceback(page, "on the equilibria tab")
    finally:
        page.close()


def test_top_and_bottom_views_keep_their_camera(dashboard_server, browser):
    """The "top" view looks from -e3 and the "bottom" view from +e3 with Γ₂ up on the screen, as asked."""
    from pendulum_explorer.plotting.sphere import CAMERAS, project_to_screen

    page = _open_equilibria(browser, dashboard_server, {"width": 1280, "height": 720})
    try:
        for view in ("top", "bottom"):
            _choose_view(page, view)
            r = _project(page, [[0, 1, 0], [0, 0, 0], [1, 0, 0]])
            (ux, uy), (cx, cy), (rx, ry) = r["points"]
            pb.element_screenshot(page, ".pe-equilibria", f"sphere-orientation-{view}-1280x720.png")
            assert uy < cy - 20 and abs(ux - cx) < 3, (view, r["points"], r["camera"])
            # seen from -e3 (top), e1 points left; from +e3 (bottom), right
            assert (rx < cx - 20) if view == "top" else (rx > cx + 20), (view, r["points"])
            anns = r["annotations"]
            got = np.array(_project(page, [a[1:] for a in anns])["points"])
            want = project_to_screen([a[1:] for a in anns], CAMERAS[view], r["height"])
            assert np.abs(got - want).max() < 4, (view, got, want)
    finally:
        page.close()
