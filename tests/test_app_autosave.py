"""The work a page keeps in the browser and brings back when it reconnects (issue 23, item 1), without a browser:
what the kernel sends the page (:class:`~pendulum_explorer.app.autosave.Autosave`) and what a new kernel makes
of it.  The page side (localStorage, the banner, "reconnect") is tests/browser/test_kernel_lifecycle.py."""
from __future__ import annotations

import json

from pendulum_explorer.app import Dashboard
from pendulum_explorer.app.links import parse_query
from pendulum_explorer.app.pagebridge import MAX_RESTORE


def _dash(query=""):
    d = Dashboard(prewarm=False, query=query, synchronous=True)
    return d


def _sent(d):
    """The autosave messages the bridge sent to the page."""
    out = []
    d.bridge.send = lambda msg, *a, **k: out.append(msg)
    return out


def test_autosave_sends_the_view_and_every_level_once_per_change():
    d = _dash()
    sent = _sent(d)
    sec = d.panel("section")
    sec.task.synchronous = True
    sec.paper_preset(2.03, n=120)
    sec.paper_preset(3.5, n=120)  # the first level is set aside
    assert len(sec.history.saved) == 1
    assert d.autosave.save() is True
    assert d.autosave.save() is False  # nothing changed: nothing sent
    (msg,) = sent
    assert msg["op"] == "autosave"
    link = parse_query(msg["view"])
    assert link.preset == "paper_fig2" and link.E == 3.5 and not link.launch  # the seeds travel in the levels
    levels = [json.loads(x) for x in msg["levels"]]
    assert [x["E"] for x in levels] == [2.03, 3.5]
    assert [len(x["launches"]) for x in levels] == [1, 1]
    assert all(L["n"] == 120 for x in levels for L in x["launches"])
    sec.launch_at(*_accessible(sec), n=None)
    assert d.autosave.save() is True and len(json.loads(sent[-1]["levels"][-1])["launches"]) == 2


def _accessible(sec):
    import numpy as np

    reg = sec.region
    iz, ip = np.argwhere(reg.V < reg.energy - 0.2 * (reg.energy - reg.energy_min))[0]
    return float(reg.phi[ip]), float(reg.z[iz])


def test_a_reconnected_page_gets_its_levels_back():
    d = _dash()
    sent = _sent(d)
    sec = d.panel("section")
    sec.task.synchronous = True
    sec.paper_preset(2.03, n=120)
    sec.paper_preset(3.5, n=120)
    d.autosave.save()
    view, levels = sent[-1]["view"], sent[-1]["levels"]

    d2 = _dash(view)  # the page "reconnect" opens: the saved view from its link
    _sent(d2)
    s2 = d2.panel("section")
    s2.task.synchronous = True
    d2.autosave.restore(levels, wait=True)
    assert [len(L.crossings) for L in d2.state.launches] == [120]
    assert (s2.section.energy, d2.state.body.name) == (3.5, "paper_fig2")
    assert [(s.E, len(s.launches)) for s in s2.history.saved] == [(2.03, 1)]
    assert "Reconnected" in d2.msg.value and "2 trajectories at 2 levels" in d2.msg.value


def test_restore_takes_only_bounded_strings():
    d = _dash()
    got = []
    d.bridge.on_restore(got.append)
    d.bridge._on_frontend_msg(d.bridge, {"event": "restore", "levels": ["a", 3, None] + ["b"] * 40}, [])
    d.bridge._on_frontend_msg(d.bridge, {"event": "restore", "levels": "not a list"}, [])
    assert got[0] == ["a"] + ["b"] * (MAX_RESTORE - 3) and got[1] == []
