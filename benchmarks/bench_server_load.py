"""Bounded loopback load check of the served dashboard (issue 10, "The server"), side by side with the baseline.

    python benchmarks/bench_server_load.py [--pages 8] [--cull 20] [--default-cull]

Two Voila servers on 127.0.0.1, each exactly as ``pendulum-explorer serve`` starts it (``cli.voila_command``) with
the idle culler made short (``--cull`` s idle, checked every 5 s):

* **serve**: the kernel of a closed page is shut down (``_page_kernels.PageKernelManager``);
* **baseline**: the same with that switched off (``--PageKernelManager.disconnect_grace=-1``): closed pages'
  kernels wait for the culler, as every closed page did before.

On each: N pages (default 8) are opened in turn in headless Chromium (Debian's), each waits until every panel
is attached; the last one also opens the section tab and clicks an accessible point of the chart (time to the
first crossings drawn); each page is closed the way a vanished tab goes (no ``beforeunload``).  Printed: time to
panels per page, kernels alive and their total memory (RSS / PSS from /proc) after the N closes, how long until
every closed page's kernel is gone, bounded by ``--cull`` + 60 s.  ``--default-cull`` adds the baseline with
the default 600 s cull (kernels alive after the closes; not waited for).  Loopback only, N and every wait
bounded.

Nothing is asserted: this is a measurement (the browser test ``tests/browser/test_page_close.py`` asserts that
closed pages' kernels go away).
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "browser"))

import pe_browser as pb  # noqa: E402

from pendulum_explorer.server import CULL_IDLE_TIMEOUT  # noqa: E402

MB = 1e6


def _mem(pids):
    mems = [pb.memory(p) for p in pids]
    return sum(m["rss"] for m in mems), sum(m["pss"] for m in mems)


def _first_crossings(page):
    """Open the section tab, click an accessible point, return seconds from mouse-up to the first crossings."""
    import test_dashboard_e2e as e2e

    plot, x, y, _, px, py = e2e._section_cell(page, accessible=True)
    n0 = sum(e2e._crossing_counts(plot).values())
    t_up = {}
    pb.slow_click(page, px, py, before_up=lambda: t_up.setdefault("t", time.perf_counter()))
    page.wait_for_function(
        """([sel, n0]) => { const el = document.querySelector(sel);
            const gd = el.classList.contains('js-plotly-plot') ? el : el.querySelector('.js-plotly-plot');
            let n = 0; for (const t of gd.data) if ((t.type === 'scatter' || t.type === 'scattergl') &&
                (t.mode || '').startsWith('markers') && t.x) n += t.x.length;
            return n > n0; }""", arg=[e2e.CHART_SEL, n0], timeout=60_000, polling="raf")
    return time.perf_counter() - t_up["t"]


def run(label, extra_args, n_pages, cull, ctx, wait=True):
    srv = pb.voila_server(f"bench-load-{label}.log", extra_args=extra_args, cull_idle_timeout=cull,
                          cull_interval=5)
    out = {"label": label, "panels_s": []}
    try:
        srv.wait_ready(timeout=120)
        seen = []
        for i in range(n_pages):
            before = set(srv.kernel_pids())
            page = ctx.new_page()
            try:
                t0 = time.perf_counter()
                page.goto(srv.url, wait_until="commit", timeout=60_000)
                pb.wait_for_panels(page, timeout=120_000)
                out["panels_s"].append(time.perf_counter() - t0)
                seen += [k for k in srv.kernel_pids() if k not in before]
                if i == n_pages - 1:
                    rss, pss = _mem(srv.kernel_pids())
                    out["open_last_rss"], out["open_last_pss"] = rss, pss
                    out["first_crossings_s"] = _first_crossings(page)
            finally:
                page.close(run_before_unload=False)
        t_closed = time.perf_counter()
        alive = srv.kernel_pids()
        out["alive_after_close"] = len(alive)
        out["rss_after_close"], out["pss_after_close"] = _mem(alive)
        bound = cull + 60 if wait else 0
        while time.perf_counter() - t_closed < bound and any(k in srv.kernel_pids() for k in seen):
            time.sleep(0.5)
        left = [k for k in seen if k in srv.kernel_pids()]
        out["gone_s"] = None if left else time.perf_counter() - t_closed
        out["left"] = len(left)
        out["cull"], out["waited"] = cull, wait
    finally:
        srv.stop()
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pages", type=int, default=8, help="pages opened in turn (1..16)")
    ap.add_argument("--cull", type=int, default=20, help="cull idle timeout for the check, seconds (5..120)")
    ap.add_argument("--default-cull", action="store_true",
                    help="also the baseline with the default cull (600 s): kernels alive after the closes")
    args = ap.parse_args()
    if not 1 <= args.pages <= 16 or not 5 <= args.cull <= 120:
        ap.error("--pages must be in 1..16 and --cull in 5..120")
    pb.require_browser()
    import tempfile

    rows = []
    with pb.browser_context(tempfile.mkdtemp(prefix="pe-bench-chromium-")) as ctx:
        rows.append(run("serve", [], args.pages, args.cull, ctx))
        rows.append(run("baseline", ["--PageKernelManager.disconnect_grace=-1"], args.pages, args.cull, ctx))
        if args.default_cull:  # as every closed page was before: the default 600 s cull (not waited for)
            rows.append(run("baseline, default cull", ["--PageKernelManager.disconnect_grace=-1"], args.pages,
                            CULL_IDLE_TIMEOUT, ctx, wait=False))
    print(f"\n{args.pages} pages opened in turn and closed (no beforeunload); cull idle timeout {args.cull} s "
          f"unless said, interval 5 s; load average {os.getloadavg()[0]:.1f}")
    print("| server | panels per page [s] (min / median / max) | kernels memory, last page open: RSS / PSS [MB] "
          "| first crossings on the last page [s] | kernels alive after the closes | their RSS / PSS [MB] "
          "| every closed page's kernel gone after [s] |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        p = sorted(r["panels_s"])
        gone = f"{r['gone_s']:.1f}" if r["gone_s"] is not None else f"not within bound ({r['left']} left)"
        if not r["waited"]:
            gone = f"not waited for (cull {r['cull']} s)"
        print(f"| {r['label']} | {p[0]:.1f} / {p[len(p) // 2]:.1f} / {p[-1]:.1f} "
              f"| {r['open_last_rss'] / MB:.0f} / {r['open_last_pss'] / MB:.0f} | {r['first_crossings_s']:.2f} "
              f"| {r['alive_after_close']} | {r['rss_after_close'] / MB:.0f} / {r['pss_after_close'] / MB:.0f} "
              f"| {gone} |")


if __name__ == "__main__":
    main()
