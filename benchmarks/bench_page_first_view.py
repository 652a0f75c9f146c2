"""The page's first view and Section tab in headless Chromium, this checkout against a baseline checkout, alternated.

    PYTHONPATH=. nice -n 10 .venv/bin/python benchmarks/bench_page_first_view.py --baseline /path/to/checkout \
        [--rounds 3] [--pages 2]

Each round runs, for the baseline and then this checkout, a server as the browser tests start it (each checkout's
own ``tests/browser/pe_browser.voila_server``, no preheated kernels, the checkout first on ``PYTHONPATH``) and opens
``--pages`` pages one after the other (a new tab each, kept open).  Per page: the *first view* (from the request to
the body preview drawn and the preset menu enabled, as ``bench_class_load.py`` waits for it), the kernel's and
Chromium's CPU seconds until then, the *Section tab* (from the tab's click to its chart drawn) with the kernel's
CPU for it, and the kernel's RSS 5 s later.  Minima and medians over rounds and pages.  The machine is shared:
compare CPU and memory; wall times are noisy.  Nothing is asserted.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
from _compare import child_result, print_min_median  # noqa: E402  (benchmarks/ is the script's folder)

CHILD = r"""
import json, os, sys, time
from pathlib import Path
root = Path(sys.argv[1]); n_pages = int(sys.argv[2])
sys.path.insert(0, str(root / "tests" / "browser"))
import pe_browser as pb
from playwright.sync_api import sync_playwright

FIRST_VIEW_JS = '''() => {
    const hooks = ['pe-body', 'pe-equilibria', 'pe-section', 'pe-motion'].every(c => document.querySelector('.' + c));
    const gd = document.querySelector('.pe-body .js-plotly-plot');
    const sel = document.querySelector('.pe-body .pe-preset select');
    return hooks && !!(gd && gd._fullLayout && gd.querySelector('.main-svg')) && !!sel && !sel.disabled;
}'''
CHART_JS = '''() => { const gd = document.querySelector('.pe-section .js-plotly-plot');
    return !!(gd && gd._fullLayout && gd.data && gd.data.length > 1 && gd.querySelector('.main-svg')); }'''

def cpu(pid):
    try:
        s = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return 0.0
    r = s[s.rfind(")") + 2:].split()
    return (int(r[11]) + int(r[12])) / os.sysconf("SC_CLK_TCK")

def chromium_cpu():
    return sum(cpu(p) for p in pb.descendants(os.getpid()) if "chrom" in pb.cmdline(p))

out = []
server = pb.voila_server("bench-page-first-view.log")
try:
    server.wait_ready(timeout=120)
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=pb.chromium_path(), headless=True, args=pb.CHROMIUM_ARGS)
        ctx = browser.new_context(viewport=pb.VIEWPORT)
        for i in range(n_pages):
            before = set(server.kernel_pids())
            c0 = chromium_cpu()
            page = ctx.new_page()
            t0 = time.perf_counter()
            page.goto(server.url, wait_until="commit", timeout=120_000)
            page.wait_for_function(FIRST_VIEW_JS, timeout=120_000, polling=50)
            first = time.perf_counter() - t0
            new = [p for p in server.kernel_pids() if p not in before]
            k = new[0] if new else None
            k_first = cpu(k) if k else float("nan")
            c_first = chromium_cpu() - c0
            time.sleep(3.0)  # the panels' warm-up (starts 0.5 s after the first view is drawn)
            k0 = cpu(k) if k else 0.0
            t1 = time.perf_counter()
            pb.show_panel(page, "pe-section")
            page.wait_for_function(CHART_JS, timeout=60_000, polling=20)
            section = time.perf_counter() - t1
            k_sec = (cpu(k) - k0) if k else float("nan")
            time.sleep(5.0)
            out.append({"first view s": first, "kernel CPU to first view s": k_first,
                        "chromium CPU to first view s": c_first, "Section tab s": section,
                        "kernel CPU Section tab s": k_sec, "kernel RSS MB": pb.rss_bytes(k) / 2**20 if k else 0.0})
        browser.close()
finally:
    server.stop()
print("RESULT " + json.dumps(out))
"""


def one_session(checkout: Path, pages: int) -> list[dict[str, float]]:
    env = dict(os.environ, PYTHONPATH=str(checkout))
    return child_result([sys.executable, "-c", CHILD, str(checkout), str(pages)], env, checkout, 900, checkout)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--baseline", type=Path, required=True)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--pages", type=int, default=2)
    args = ap.parse_args()
    checkouts = {"baseline": args.baseline.resolve(), "this": ROOT}
    runs: dict[str, list[dict[str, float]]] = {k: [] for k in checkouts}
    for _ in range(max(1, min(args.rounds, 10))):
        for name, path in checkouts.items():
            runs[name] += one_session(path, max(1, min(args.pages, 4)))
    print(f"page first view and Section tab, {args.rounds} rounds x {args.pages} pages, alternated; load average "
          f"{os.getloadavg()[0]:.1f}")
    print_min_median(runs, list(checkouts))
    # the kernel RSS of the first and the second page (the "two pages" of the CI's timings)
    for name in checkouts:
        per = [[r["kernel RSS MB"] for r in runs[name][i::args.pages]] for i in range(args.pages)]
        print(f"{name}: kernel RSS by page (median) " + " / ".join(f"{statistics.median(x):.0f}" for x in per) + " MB")


if __name__ == "__main__":
    main()
