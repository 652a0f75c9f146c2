"""Accessibility audit of the dashboard with axe-core (issue 24 section 2): each tab and the presenter view at
1280 x 720.

axe-core comes from npm into ``test-artifacts/node`` (``npm install --prefix``, once; never a CDN) and is injected
into the page (``page.add_script_tag(path=...)``).  The counts of violations by impact and the violations
themselves (rule, impact, help, the first offending elements) go to ``test-artifacts/axe-audit.json``.

The test asserts that axe ran on every tab (it checked rules that passed there), that no tab has a serious or
critical violation (before the shell's style sheet darkened the inactive tabs' labels, the accordion headers and the
warning buttons, and the page bridge named the sliders' handles: 6 serious on the body tab, 3 on the others), and
that no contrast violation lies inside a figure.  axe does not measure the text of plotly's SVG figures, so that
last assertion is weak: tests/test_palette.py computes the figures' text contrast from their colours.  Moderate
violations (``region``: content outside landmarks) are counted, not asserted.  About 2 minutes (Voila start, four tabs, the presenter view).
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections import Counter

import pytest

import pe_browser as pb

AXE_VERSION = "4.14.1"
AXE_DIR = pb.ARTIFACTS / "node"
AXE_JS = AXE_DIR / "node_modules" / "axe-core" / "axe.min.js"
REPORT = pb.ARTIFACTS / "axe-audit.json"
IMPACTS = ("critical", "serious", "moderate", "minor")
TABS = {"body": "pe-body", "equilibria": "pe-equilibria", "section": "pe-section", "motion": "pe-motion"}


@pytest.fixture(scope="module")
def axe_js():
    """The path of axe.min.js, installed from npm on first use."""
    if not AXE_JS.exists():
        npm = shutil.which("npm")
        if npm is None:
            if os.environ.get("PE_REQUIRE_BROWSER") == "1":
                pytest.fail("npm is needed to install axe-core")
            pytest.skip("npm is needed to install axe-core")
        AXE_DIR.mkdir(parents=True, exist_ok=True)
        r = subprocess.run([npm, "install", "--no-save", "--no-audit", "--no-fund", "--prefix", str(AXE_DIR),
                            f"axe-core@{AXE_VERSION}"], capture_output=True, text=True, timeout=300)
        if r.returncode != 0 or not AXE_JS.exists():
            msg = f"npm install axe-core@{AXE_VERSION} failed: {r.stderr[-800:]}"
            if os.environ.get("PE_REQUIRE_BROWSER") == "1":
                pytest.fail(msg)
            pytest.skip(msg)
    return AXE_JS


RUN_AXE = """async () => {
    const r = await axe.run(document, {resultTypes: ['violations', 'passes']});
    return {
        passes: r.passes.length,
        violations: r.violations.map(v => ({
            id: v.id, impact: v.impact, help: v.help, helpUrl: v.helpUrl, tags: v.tags, n: v.nodes.length,
            nodes: v.nodes.slice(0, 8).map(n => ({target: n.target.join(' '), html: n.html.slice(0, 200),
                                                  summary: (n.failureSummary || '').slice(0, 300),
                                                  in_figure: !!document.querySelector(n.target.join(' '))
                                                      && !!document.querySelector(n.target.join(' '))
                                                          .closest('.js-plotly-plot')}))
        }))
    };
}"""


def _audit(page, axe_js):
    if not page.evaluate("() => typeof window.axe !== 'undefined'"):
        page.add_script_tag(path=str(axe_js))
    res = page.evaluate(RUN_AXE)
    counts = Counter()
    for v in res["violations"]:
        counts[v["impact"] or "unknown"] += v["n"]
    res["counts"] = {k: counts.get(k, 0) for k in IMPACTS}
    res["rules"] = {k: sorted({v["id"] for v in res["violations"] if v["impact"] == k}) for k in IMPACTS}
    # labels whose hover hint (and accessible description) is the word "null": ipywidgets 8 writes a missing
    # tooltip so (about 50 on the page before every widget got an empty one)
    res["title_null"] = page.evaluate("""() => Array.from(document.querySelectorAll('[title="null"]'))
        .map(e => (e.textContent || e.className).slice(0, 40))""")
    return res


def _open(browser, server, query=""):
    page = browser.new_page()
    page.set_viewport_size(pb.VIEWPORT)
    page.goto(server.url + (("?" + query) if query else ""), wait_until="commit", timeout=60_000)
    pb.wait_for_panels(page, timeout=150_000)
    return page


def test_axe_audit_of_every_tab(dashboard_server, browser, axe_js):
    report = {"viewport": pb.VIEWPORT, "axe_core": AXE_VERSION, "tabs": {}}
    page = _open(browser, dashboard_server)
    try:
        for name, cls in TABS.items():
            pb.show_panel(page, cls)
            if page.locator(f".{cls} .js-plotly-plot").count():
                pb.wait_plots_quiet(page)
            report["tabs"][name] = _audit(page, axe_js)
    finally:
        page.close()
    page = _open(browser, dashboard_server, "presenter=1")
    try:
        pb.show_panel(page, "pe-section")
        pb.wait_plots_quiet(page)
        report["tabs"]["presenter (section)"] = _audit(page, axe_js)
    finally:
        page.close()
    pb.ARTIFACTS.mkdir(exist_ok=True)
    REPORT.write_text(json.dumps(report, indent=1, ensure_ascii=False))
    summary = {k: v["counts"] for k, v in report["tabs"].items()}
    print("[axe] violations (elements) by impact:", json.dumps(summary), flush=True)
    for name, res in report["tabs"].items():
        assert res["passes"] > 10, f"axe checked almost nothing on the {name} tab: {res}"
        figure_contrast = [n for v in res["violations"] if v["id"] == "color-contrast"
                           for n in v["nodes"] if n["in_figure"]]
        assert not figure_contrast, f"{name}: figure text below 4.5:1: {figure_contrast}"
        grave = [(v["id"], v["impact"], [n["target"] for n in v["nodes"][:3]]) for v in res["violations"]
                 if v["impact"] in ("serious", "critical")]
        assert not grave, f"{name}: serious or critical accessibility violations: {grave}"
        assert not res["title_null"], f"{name}: elements titled 'null': {res['title_null'][:10]}"


def test_axe_audit_on_a_phone(dashboard_server, browser, axe_js):
    """Every tab at 390 x 844 with touch (the phone layout of ``shell_style.py``): no serious or critical
    violation either (the report: ``test-artifacts/axe-audit-phone.json``)."""
    report = {"viewport": pb.PHONE, "axe_core": AXE_VERSION, "tabs": {}}
    with pb.touch_page(browser, pb.PHONE) as page:
        page.goto(dashboard_server.url, wait_until="commit", timeout=60_000)
        pb.wait_for_panels(page, timeout=150_000)
        for name, cls in TABS.items():
            pb.show_panel(page, cls)
            if page.locator(f".{cls} .js-plotly-plot").count():
                pb.wait_plots_quiet(page)
            report["tabs"][name] = _audit(page, axe_js)
    pb.ARTIFACTS.mkdir(exist_ok=True)
    (pb.ARTIFACTS / "axe-audit-phone.json").write_text(json.dumps(report, indent=1, ensure_ascii=False))
    print("[axe] phone violations (elements) by impact:",
          json.dumps({k: v["counts"] for k, v in report["tabs"].items()}), flush=True)
    for name, res in report["tabs"].items():
        assert res["passes"] > 10, f"axe checked almost nothing on the {name} tab: {res}"
        grave = [(v["id"], v["impact"], [n["target"] for n in v["nodes"][:3]]) for v in res["violations"]
                 if v["impact"] in ("serious", "critical")]
        assert not grave, f"{name} at 390x844: serious or critical accessibility violations: {grave}"
