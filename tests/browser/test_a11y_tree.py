"""What a screen reader gets of each tab (issue 24): Chromium's accessibility tree (CDP
``Accessibility.getFullAXTree``) of the English dashboard at 1280 x 720, tab by tab.

The test asserts that every focusable node of the tree (what Tab or a screen reader's focus reaches: buttons, text
boxes, menus, slider handles, tabs, links, plotly's mode bar buttons, focusable figures) has a non-empty accessible
name, and that every tab has a figure with a text alternative.  It complements the role-by-role check of the
Playwright aria snapshot in ``test_phone_tablet.py`` (buttons, sliders, menus, text boxes): this one asks the
browser which nodes take the focus, whatever their role.

Per tab it writes ``test-artifacts/a11y-tree-<tab>.json`` (the unignored nodes: role, name, focusable, live) and a
summary of all tabs, ``test-artifacts/a11y-tree-summary.md``: landmarks, headings, figures and images with their
names, the controls by role, the live and status regions, and the counts (controls, focusable, unnamed).  Each tab's
panel has an h2 heading and a region named by its tab, and no bare SVG is read out as an unnamed image.
About 1 minute (one page, four tabs, one motion computed).
"""
from __future__ import annotations

import json
from collections import Counter

import pytest

import pe_browser as pb
from test_phone_tablet import TABS, _open_tab

pytestmark = [pytest.mark.browser]

LANDMARKS = {"banner", "main", "navigation", "region", "complementary", "contentinfo", "form", "search"}
FIGURES = {"figure", "img", "image", "graphics-document", "graphics-object", "graphics-symbol"}
CONTROLS = {"button", "checkbox", "combobox", "textbox", "spinbutton", "slider", "tab", "link", "radio", "switch",
            "listbox", "menuitem", "searchbox", "PopUpButton", "ToggleButton"}
LIVE_ROLES = {"status", "alert", "log", "progressbar", "timer", "marquee"}


def _prop(node, name):
    for p in node.get("properties", []):
        if p["name"] == name:
            return p["value"].get("value")
    return None


def ax_nodes(cdp):
    """The unignored nodes of the page's accessibility tree: [{role, name, focusable, live, level}, ...]."""
    tree = cdp.send("Accessibility.getFullAXTree")["nodes"]
    out = []
    for n in tree:
        if n.get("ignored"):
            continue
        role = (n.get("role") or {}).get("value", "")
        if role in ("RootWebArea", "none", "InlineTextBox", "StaticText", "LineBreak"):
            continue
        node = {"role": role, "name": ((n.get("name") or {}).get("value") or "").strip(),
                "focusable": bool(_prop(n, "focusable")), "live": _prop(n, "live") or "",
                "level": _prop(n, "level"), "disabled": bool(_prop(n, "disabled"))}
        if role in FIGURES and not node["name"] and n.get("backendDOMNodeId"):
            node["element"] = _element(cdp, n["backendDOMNodeId"])  # what an unnamed image is
        out.append(node)
    return out


def _element(cdp, backend_id):
    """``tag.class`` of a DOM node and of its parent (the unnamed images: icons, plotly's SVG)."""
    try:
        d = cdp.send("DOM.describeNode", {"backendNodeId": backend_id, "depth": 0})["node"]
    except Exception:  # noqa: BLE001 - a node gone since the tree was read
        return "?"
    attrs = dict(zip(d.get("attributes", [])[::2], d.get("attributes", [])[1::2]))
    return f"{d.get('localName', '?')}.{attrs.get('class', '').split(' ')[0]}"


def summarize(tab, nodes):
    """A markdown summary of one tab's tree and its counts."""
    cut = lambda s, k=110: s if len(s) <= k else s[:k - 1] + "…"  # noqa: E731
    marks = [f"{n['role']} \"{cut(n['name'], 40)}\"" if n["name"] else n["role"] for n in nodes
             if n["role"] in LANDMARKS]
    heads = [f"h{n['level']} \"{cut(n['name'], 60)}\"" for n in nodes if n["role"] == "heading"]
    figs = [f"{n['role']} \"{cut(n['name'])}\"" for n in nodes if n["role"] in FIGURES and n["name"]]
    controls = [n for n in nodes if n["role"] in CONTROLS]
    focusable = [n for n in nodes if n["focusable"]]
    live = [f"{n['role']} ({n['live'] or 'role'})" + (f" \"{cut(n['name'], 50)}\"" if n["name"] else "")
            for n in nodes if n["role"] in LIVE_ROLES or n["live"] in ("polite", "assertive")]
    unnamed = [n for n in focusable if not n["name"]] + [n for n in controls if not n["name"] and not n["focusable"]]
    lines = [f"## {tab}", f"- landmarks: {', '.join(marks) or 'none'}", f"- headings: {', '.join(heads) or 'none'}",
             f"- named figures/images ({len(figs)}): " + ("; ".join(figs) or "none"),
             f"- controls: {len(controls)} ("
             + ", ".join(f"{k} {v}" for k, v in Counter(n['role'] for n in controls).most_common()) + "), "
             f"{len(focusable)} focusable nodes, unnamed: {len(unnamed)}",
             f"- live/status regions: {', '.join(live) or 'none'}"]
    for role, k in Counter(n["role"] for n in controls).most_common():
        names = [cut(n["name"], 40) for n in controls if n["role"] == role]
        lines.append(f"  - {role} ({k}): " + "; ".join(dict.fromkeys(names)))
    plain = Counter(n.get("element", "?") for n in nodes if n["role"] in FIGURES and not n["name"])
    if plain:
        lines.append("- unnamed images (not focusable): " + ", ".join(f"{e} x{k}" for e, k in plain.items()))
    if unnamed:
        lines.append("- unnamed: " + ", ".join(f"{n['role']}{' (focusable)' if n['focusable'] else ''}"
                                               for n in unnamed))
    return "\n".join(lines), unnamed


def test_every_focusable_node_is_named(dashboard_server, browser):
    page = browser.new_page()
    page.set_viewport_size(pb.VIEWPORT)
    summaries, unnamed, figures, headings, regions, bare, titles = [], {}, {}, {}, {}, {}, {}
    try:
        page.goto(dashboard_server.url, wait_until="commit", timeout=60_000)
        pb.wait_for_panels(page, timeout=150_000)
        cdp = page.context.new_cdp_session(page)
        cdp.send("Accessibility.enable")
        cdp.send("DOM.enable")
        for tab, cls in TABS.items():
            _open_tab(page, cls)
            if tab == "motion":
                pb.compute_motion(page)
                pb.wait_plots_quiet(page, timeout_ms=90_000)
            nodes = ax_nodes(cdp)
            pb.ARTIFACTS.mkdir(exist_ok=True)
            (pb.ARTIFACTS / f"a11y-tree-{tab}.json").write_text(json.dumps(nodes, indent=0, ensure_ascii=False))
            text, bad = summarize(tab, nodes)
            summaries.append(text)
            unnamed[tab] = [n for n in bad if n["focusable"]]
            figures[tab] = [n["name"] for n in nodes if n["role"] in FIGURES and n["name"]]
            headings[tab] = [(n["level"], n["name"]) for n in nodes if n["role"] == "heading"]
            regions[tab] = [n["name"] for n in nodes if n["role"] == "region"]
            bare[tab] = [n.get("element", "?") for n in nodes if n["role"] in FIGURES and not n["name"]]
            titles[tab] = pb.tab_titles(page)[list(TABS).index(tab)]
        pb.assert_no_traceback(page, "after the accessibility tree of every tab")
    finally:
        page.close()
    (pb.ARTIFACTS / "a11y-tree-summary.md").write_text("\n\n".join(summaries) + "\n")
    print("\n\n".join(summaries), flush=True)
    assert not any(unnamed.values()), ("focusable nodes without an accessible name", unnamed)
    assert all(figures.values()), ("a tab without a named figure", figures)
    # heading navigation finds the page's title on every tab (before: no heading at all)
    assert all(any(lv == 1 and name.startswith("Pendulum Explorer") for lv, name in h) for h in headings.values()), \
        headings
    # each tab's panel: a heading (h2) and a region named by its tab, so that a screen reader jumps between the
    # tabs' contents (before: no h2 and no region on any tab)
    missing = {tab: (headings[tab], regions[tab]) for tab, title in titles.items()
               if (2, title) not in headings[tab] or title not in regions[tab]}
    assert not missing, ("a tab without its h2 heading or named region", titles, missing)
    # no bare SVG (icons, plotly's drawing layers, a 3D scene's overlay) is read out as an unnamed image
    # (before: 4-6 per tab: the plotly loader's svg.main-svg, the scenes' overlays)
    assert not any(bare.values()), ("unnamed images", bare)


def test_summary_counts_unnamed_focusable_nodes():
    nodes = [{"role": "button", "name": "", "focusable": True, "live": "", "level": None, "disabled": False},
             {"role": "generic", "name": "", "focusable": True, "live": "", "level": None, "disabled": False},
             {"role": "slider", "name": "E [J]", "focusable": True, "live": "", "level": None, "disabled": False}]
    text, unnamed = summarize("t", nodes)
    assert [n["role"] for n in unnamed] == ["button", "generic"], unnamed
    assert "3 focusable nodes, unnamed: 2" in text, text
