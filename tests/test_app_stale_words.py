"""Words that stay on the page after they stopped being true (issue 23, item 8), and the trajectory numbers of
item 9, without a browser."""
from __future__ import annotations

from pendulum_explorer.app import Dashboard


def _dash():
    d = Dashboard(prewarm=False, synchronous=True)
    for key in ("body", "section"):
        p = d.panel(key)
        if hasattr(p, "task"):
            p.task.synchronous = True
    return d


def test_body_change_message_goes_when_another_body_is_chosen():
    d = _dash()
    sec = d.panel("section")
    src = _dash()
    src.panel("section").paper_preset(2.03, n=100)
    sec.load_session(src.panel("section").export_json(), wait=True)
    assert d.msg.text.startswith("The body changed to Fig. 2 body (paper) (chosen by a loaded session)"), d.msg.text
    d.panel("body").preset.value = "paper_fig1"  # another body, from the Body tab
    assert d.state.body.name == "paper_fig1"
    assert "Fig. 2" not in d.msg.text and "loaded session" not in d.msg.text, d.msg.text


def test_paper_preset_menu_names_only_the_level_shown():
    d = _dash()
    sec = d.panel("section")
    sec.files.paper.value = 11.95  # "(e) E = 11.95": the Fig. 2 body at that level
    assert d.state.body.name == "paper_fig2" and sec.section.energy == 11.95
    assert sec.files.paper.value == 11.95
    d.panel("body").preset.value = "paper_fig1"  # a Fig. 1 level now: the menu names no preset
    assert d.state.body.name == "paper_fig1" and sec.section.energy != 11.95
    assert sec.files.paper.value == "", sec.files.paper.value
    sec.files.paper.value = 2.03
    sec.set_level(1.0, sec.section.mu)  # another level of the Fig. 2 body
    assert sec.files.paper.value == ""


def test_a_cancelled_fill_gives_its_unused_numbers_back():
    """Two fills cancelled at their first chunk, then a click: numbered #1, #7, #13 before (issue 23 item 9:
    #44 -> #80 -> #140); now one after the other."""
    d = _dash()
    sec = d.panel("section")
    sec.set_level(1.0, 0.0)

    def then_cancel(send):  # the cancel button, pressed when the first crossings are drawn
        def wrapped(*a, **k):
            send(*a, **k)
            sec.task.cancel()
        return wrapped

    plain = sec.chart.restyle, sec.chart.extend
    sec.chart.restyle, sec.chart.extend = then_cancel(plain[0]), then_cancel(plain[1])
    sec.fill(6, n=3000)
    sec.fill(6, n=3000)
    sec.chart.restyle, sec.chart.extend = plain
    reg = sec.region
    import numpy as np

    iz, ip = np.argwhere(reg.V < reg.energy - 0.2 * (reg.energy - reg.energy_min))[0]
    sec.launch_at(float(reg.phi[ip]), float(reg.z[iz]), n=100)
    ids = [L.id for L in d.state.launches]
    assert len(ids) >= 3 and ids == list(range(1, len(ids) + 1)), ids  # before: [1, 7, 13]
    assert sec.msg.text.startswith(f"trajectory #{ids[-1]}"), sec.msg.text


def test_ordinals_and_plus_minus_in_words():
    from pendulum_explorer import presets
    from pendulum_explorer.app import section_text as say
    from pendulum_explorer.equilibria import equilibria
    from pendulum_explorer.plotting.sphere import equilibria_sphere_figure

    assert [say.ordinal(k) for k in (1, 2, 3, 4, 11, 12, 13, 21, 22, 64)] == \
        ["1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "64th"]
    assert "1st return map" in say.orbit_search(1, 0.0, 0.5)  # it said "1-th"
    fig = equilibria_sphere_figure(equilibria(presets.paper_fig1().pendulum))
    hover = " ".join(str(t) for tr in fig.data
                     for t in (tr.hovertext if isinstance(tr.hovertext, (list, tuple)) else [tr.hovertext]))
    assert "mu = ±" in hover and "+-" not in hover
