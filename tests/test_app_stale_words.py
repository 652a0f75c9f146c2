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
