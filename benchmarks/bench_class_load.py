"""A whole class at once (issue 23, part 3): N pages opened within one minute on loopback, with and without
preheated kernels, in one run.

For each mode a server runs as ``pendulum-explorer serve`` runs Voila (``cli.voila_command``, loopback, a free
port), preheated (``--pool-size``) or not (pool 0).  When its pool is ready (its kernels started and waiting),
headless Chromium (Debian's, through playwright) opens the N pages evenly over the window (default 30 pages in
60 s), each a new tab, and keeps them open, as a class does.  A page's *first view* is the one the browser tests
wait for (``tests/browser/pe_browser.py``): the four panel hooks attached, the body preview drawn (plotly's svg) and
the preset menu enabled; its time runs from the page's request.  Then the kernels' memory (RSS, PSS) and CPU
seconds are read from /proc, the pages closed and the server stopped.

Bounded: at most 40 pages, a window of at most 120 s, each page given at most ``--timeout`` s (a page not drawn by
then counts as "not drawn" and its time as the timeout in the p95); loopback only.

    PYTHONPATH=. nice -n 10 .venv/bin/python benchmarks/bench_class_load.py            # 30 pages, 60 s, both modes
    PYTHONPATH=. .venv/bin/python benchmarks/bench_class_load.py --pages 8 --window 20 --modes on
"""
from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "browser"))

import pe_browser as pb  # noqa: E402

from pendulum_explorer.server import POOL_SIZE  # noqa: E402

MAX_PAGES = 40
MAX_WINDOW = 120.0

FIRST_VIEW_JS = """() => {
    const hooks = ['pe-body', 'pe-equilibria', 'pe-section', 'pe-motion'].every(c => document.querySelector('.' + c));
    const gd = document.querySelector('.pe-body .js-plotly-plot');
    const sel = document.querySelector('.pe-body .pe-preset select');
    return hooks && !!(gd && gd._fullLayout && gd.querySelector('.main-svg')) && !!sel && !sel.disabled;
}"""


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of a process (0 when it is gone)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return 0.0
    rest = stat[stat.rfind(")") + 2:].split()
    return (int(rest[11]) + int(rest[12])) / os.sysconf("SC_CLK_TCK")


def wait_pool_ready(server: pb.Server, pool: int, timeout: float = 180.0) -> float:
    """Seconds until ``pool`` kernels run and have stopped computing (waiting for a page); 0 for no pool."""
    t0 = time.perf_counter()
    if pool == 0:
        return 0.0
    last = -1.0
    while time.perf_counter() - t0 < timeout:
        pids = server.kernel_pids()
        cpu = sum(cpu_seconds(p) for p in pids)
        if len(pids) >= pool and cpu - last < 0.05:
            return time.perf_counter() - t0
        last = cpu
        time.sleep(1.0)
    raise RuntimeError(f"the pool of {pool} kernels was not ready within {timeout:.0f} s")


async def open_pages(url: str, n: int, window: float, timeout: float) -> tuple[list[float | None], list]:
    """Open ``n`` pages evenly over ``window`` seconds; each page's first-view seconds (None: not drawn)."""
    from playwright.async_api import async_playwright

    pw = await async_playwright().start()
    browser = await pw.chromium.launch(executable_path=pb.chromium_path(), headless=True, args=pb.CHROMIUM_ARGS)
    ctx = await browser.new_context(viewport=pb.VIEWPORT)
    t_start = time.perf_counter()
    pages: list = []

    async def one(i: int) -> float | None:
        await asyncio.sleep(max(0.0, t_start + i * window / n - time.perf_counter()))
        page = await ctx.new_page()
        pages.append(page)
        t0 = time.perf_counter()
        try:
            await page.goto(url, wait_until="commit", timeout=timeout * 1000)
            await page.wait_for_function(FIRST_VIEW_JS, timeout=max(1.0, timeout - (time.perf_counter() - t0)) * 1000,
                                         polling=100)
            return time.perf_counter() - t0
        except Exception:  # noqa: BLE001 - a page not drawn within the timeout
            return None

    results = await asyncio.gather(*(one(i) for i in range(n)))
    return list(results), [pw, browser, ctx, pages]


async def close_all(handles: list) -> None:
    pw, browser, ctx, pages = handles
    for p in pages:
        await p.close()
    await ctx.close()
    await browser.close()
    await pw.stop()


def run_mode(pool: int, n: int, window: float, timeout: float) -> dict:
    server = pb.voila_server(f"bench-class-load-pool{pool}.log", pool_size=pool)
    try:
        server.wait_ready(timeout=120)
        ready = wait_pool_ready(server, pool)
        pool_pids = server.kernel_pids()
        pool_rss = [pb.rss_bytes(p) for p in pool_pids]
        load0 = os.getloadavg()
        cpu0 = {"kernels": sum(cpu_seconds(p) for p in pool_pids), "server": cpu_seconds(server.pid),
                "chromium": 0.0}
        loop = asyncio.new_event_loop()
        times, handles = loop.run_until_complete(open_pages(server.url, n, window, timeout))
        time.sleep(5.0)  # let the last pages' kernels finish their first view's work before memory is read
        pids = server.kernel_pids()
        mems = [pb.memory(p) for p in pids]
        cpus = [cpu_seconds(p) for p in pids]
        load1 = os.getloadavg()
        chromium = [p for p in pb.descendants(os.getpid()) if "chrom" in pb.cmdline(p)]
        cpu = {"kernels": sum(cpus) - cpu0["kernels"], "server": cpu_seconds(server.pid) - cpu0["server"],
               "chromium": sum(cpu_seconds(p) for p in chromium)}
        loop.run_until_complete(close_all(handles))
        loop.close()
        preheated = server.log_text().count("Using pre-heated kernel")
    finally:
        server.stop()
    drawn = sorted(t for t in times if t is not None)
    padded = sorted(t if t is not None else timeout for t in times)
    p95 = padded[min(len(padded) - 1, max(0, int(round(0.95 * len(padded))) - 1))]
    rss = statistics.median(m["rss"] for m in mems) if mems else 0
    return {"pool": pool, "pages": n, "drawn": len(drawn), "median": statistics.median(padded), "p95": p95,
            "fastest": drawn[0] if drawn else None, "preheated": preheated, "pool_ready_s": ready,
            "pool_kernel_rss": statistics.median(pool_rss) if pool_rss else None, "kernels": len(pids),
            "kernel_rss": rss, "kernel_pss": statistics.median(m["pss"] for m in mems) if mems else 0,
            "kernel_cpu_s": statistics.median(cpus) if cpus else 0.0, "total_rss": sum(m["rss"] for m in mems),
            "load_before": load0, "load_after": load1, "cpu": cpu}


def _mb(b: float | None) -> str:
    return "-" if b is None else f"{b / 2**20:.0f}"


def table(rows: list[dict], window: float) -> str:
    head = ("| preheating | pages in %.0f s | drawn | first view median [s] | p95 [s] | fastest [s] | pages on a "
            "preheated kernel | RSS per kernel [MB] | PSS per kernel [MB] | CPU per kernel [s] | pages per GB "
            "(RSS) | pool kernel waiting RSS [MB] | load avg (1 min) before / after |" % window)
    lines = [head, "|" + "---|" * (head.count("|") - 1)]
    for r in rows:
        per_gb = 2**30 / r["kernel_rss"] if r["kernel_rss"] else 0
        fastest = "-" if r["fastest"] is None else f"{r['fastest']:.1f}"
        lines.append(
            f"| {'off' if r['pool'] == 0 else 'on, pool ' + str(r['pool'])} | {r['pages']} | {r['drawn']} "
            f"| {r['median']:.1f} | {r['p95']:.1f} | {fastest} "
            f"| {r['preheated']} | {_mb(r['kernel_rss'])} | {_mb(r['kernel_pss'])} | {r['kernel_cpu_s']:.1f} "
            f"| {per_gb:.1f} | {_mb(r['pool_kernel_rss'])} | {r['load_before'][0]:.1f} / {r['load_after'][0]:.1f} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pages", type=int, default=30, help=f"pages opened (1..{MAX_PAGES}, default 30)")
    ap.add_argument("--window", type=float, default=60.0, help=f"seconds they open over (1..{MAX_WINDOW:.0f})")
    ap.add_argument("--pool-size", type=int, default=POOL_SIZE, help=f"preheated kernels (default {POOL_SIZE})")
    ap.add_argument("--timeout", type=float, default=120.0, help="seconds a page is given (10..300, default 120)")
    ap.add_argument("--modes", choices=("both", "on", "off"), default="both")
    a = ap.parse_args(argv)
    if not 1 <= a.pages <= MAX_PAGES:
        ap.error(f"--pages must be in 1..{MAX_PAGES}, got {a.pages}")
    if not 1 <= a.window <= MAX_WINDOW:
        ap.error(f"--window must be in 1..{MAX_WINDOW:.0f} s, got {a.window}")
    if not 10 <= a.timeout <= 300:
        ap.error(f"--timeout must be in 10..300 s, got {a.timeout}")
    if not 1 <= a.pool_size <= 64:
        ap.error(f"--pool-size must be in 1..64, got {a.pool_size}")
    if pb.chromium_path() is None:
        print("bench_class_load: Debian's chromium is not on PATH", file=sys.stderr)
        return 1
    pools = {"both": [0, a.pool_size], "on": [a.pool_size], "off": [0]}[a.modes]
    print(f"# {a.pages} pages over {a.window:.0f} s on loopback, {os.cpu_count()} CPUs, "
          f"load average {os.getloadavg()[0]:.2f} at the start", flush=True)
    rows = []
    for pool in pools:
        r = run_mode(pool, a.pages, a.window, a.timeout)
        print(f"# pool {pool}: median {r['median']:.1f} s, p95 {r['p95']:.1f} s, {r['drawn']}/{r['pages']} drawn; "
              "CPU seconds while the pages opened: " + ", ".join(f"{k} {v:.0f}" for k, v in r["cpu"].items()),
              flush=True)
        rows.append(r)
    print(table(rows, a.window))
    return 0


if __name__ == "__main__":
    sys.exit(main())
