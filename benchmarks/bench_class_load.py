"""A whole class at once (issue 23, part 3): N pages opened within one minute on loopback, without preheated
kernels and with pools of them, in one run and one table.

For each mode a server runs as ``pendulum-explorer serve`` runs Voila (``cli.voila_command``, loopback, a free
port), preheated (``--pool-size``) or not (pool 0), with ``--max-kernels`` raised to the pages plus the pool
(the server's default, 20, would turn pages of a class of 30 away; ``--max-kernels`` sets it).  When its pool is
ready (its kernels started and waiting), the pages arrive over the window (default 30 pages in 60 s; Poisson
arrivals -- N arrival times drawn uniformly over the window, seeded -- or evenly spaced) and stay open, as a
class's do.  Each page is opened by

* ``--client light`` (default): ``_light_client.py``, which does on the wire what a browser does to reach the
  first view -- the page's GET (Voila runs the notebook; with a pool the kernel comes from the pool), the kernel
  websocket, the widget manager's ``request_states`` -- and checks that the widget states hold the first view:
  the four panels, the body preview with its traces, the preset menu; then sends what the page sends after
  drawing (the preview's ``drawn``, which starts the kernel's prewarm).  No browser: the figures are the server's.
  Per page it splits the time: *kernel* (request to the page config, i.e. the kernel answering; with a pool,
  the wait for a pool kernel), *notebook* (the notebook's cell: import and panel build; with a pool, the build
  only), *connect* (page complete to the websocket answering), *states* (``request_states`` to the answer).
* ``--client chromium``: headless Chromium tabs of one browser (Debian's, through playwright), the first view
  being the DOM state the browser tests wait for (``tests/browser/pe_browser.py``).  Its own CPU competes with
  the server's on this machine, and its 6 connections per host hold the pages' streamed GETs.

Then, once the kernels are quiet again (their prewarm done; at most 60 s), their memory (RSS, PSS from
``/proc/PID/smaps_rollup``) and CPU seconds are read, the pages closed and the server stopped.  CPU seconds are
also counted for the server, the client and -- from ``/proc/stat`` -- everything else on the machine.

``--tabs``: each light page then opens the other three tabs in turn (the kernels' memory after a first look at
every tab).

``--validate``: one server, one Chromium page and one light page; checks that both receive the same widget models
(count by model name) and the first view, and prints the messages each sent on the kernel websocket; then fetches
the files the Chromium page fetched (scripts, styles, plotly.js) again and prints Voila's CPU for them: what each
student's browser costs the server besides (the light client does not fetch them).

Bounded: at most 40 pages, a window of at most 120 s, each page given at most ``--timeout`` s (a page not drawn by
then counts as "not drawn" and its time as the timeout in the p95); loopback only.

    PYTHONPATH=. .venv/bin/python benchmarks/bench_class_load.py --validate
    PYTHONPATH=. flock /tmp/bench.lock .venv/bin/python benchmarks/bench_class_load.py     # 30 pages, 60 s, 0/4/8
    PYTHONPATH=. .venv/bin/python benchmarks/bench_class_load.py --client chromium --pages 8 --window 20 --pools 4
"""
from __future__ import annotations

import argparse
import asyncio
import os
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "browser"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import _light_client as lc  # noqa: E402
import pe_browser as pb  # noqa: E402

MAX_PAGES = 40
MAX_WINDOW = 120.0
ASSET_ROUNDS = 5
TICK = os.sysconf("SC_CLK_TCK")

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
    return (int(rest[11]) + int(rest[12])) / TICK


def machine_busy_seconds() -> float:
    """CPU seconds the whole machine has been busy (``/proc/stat``: all but idle and iowait)."""
    f = [int(x) for x in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
    return (sum(f[:8]) - f[3] - f[4]) / TICK


def kernel_of(pid: int) -> str:
    """The kernel id in a kernel process's command line (its connection file ``kernel-<id>.json``)."""
    cmd = pb.cmdline(pid)
    i = cmd.find("kernel-")
    return cmd[i + 7:i + 7 + 36] if i >= 0 else ""


def wait_quiet(pids_of, want: int = 0, timeout: float = 180.0, step: float = 1.0, quiet: float = 0.1) -> float:
    """Seconds until at least ``want`` kernels run and their CPU grew by less than ``quiet`` s in each of two
    ``step`` s in a row (nan after ``timeout``)."""
    t0 = time.perf_counter()
    last, calm = -1.0, 0
    while time.perf_counter() - t0 < timeout:
        pids = pids_of()
        cpu = sum(cpu_seconds(p) for p in pids)
        calm = calm + 1 if len(pids) >= want and 0 <= cpu - last < quiet else 0
        if calm >= 2:
            return time.perf_counter() - t0
        last = cpu
        time.sleep(step)
    return float("nan")


def arrivals(n: int, window: float, kind: str, seed: int) -> list[float]:
    """Seconds after the start at which the ``n`` pages are opened: evenly spaced, or a Poisson process's
    arrival times given ``n`` arrivals in ``window`` (``n`` uniform times, sorted)."""
    if kind == "even":
        return [i * window / n for i in range(n)]
    rng = random.Random(seed)
    return sorted(rng.uniform(0.0, window) for _ in range(n))


# ------------------------------------------------------------------------------------------------
# clients
# ------------------------------------------------------------------------------------------------
async def open_light(url: str, at: list[float], timeout: float,
                     tabs: tuple[int, ...] = ()) -> tuple[list[dict], list]:
    t_start = time.perf_counter() + 0.2

    async def one(t: float) -> lc.LightPage:
        await asyncio.sleep(max(0.0, t_start + t - time.perf_counter()))
        return await lc.open_page(url, timeout=timeout, tabs=tabs)

    pages = await asyncio.gather(*(one(t) for t in at))
    res = [{"t": p.first_view_s, "split": p.split(), "kernel_id": p.kernel_id, "error": p.error, "status": p.status,
            "models": p.n_models, "states_bytes": p.states_bytes} for p in pages]
    return res, list(pages)


async def close_light(pages: list) -> None:
    for p in pages:
        await p.close()
    await asyncio.sleep(0.2)


async def open_chromium(url: str, at: list[float], timeout: float,
                        tabs: tuple[int, ...] = ()) -> tuple[list[dict], list]:
    from playwright.async_api import async_playwright

    pw = await async_playwright().start()
    browser = await pw.chromium.launch(executable_path=pb.chromium_path(), headless=True, args=pb.CHROMIUM_ARGS)
    ctx = await browser.new_context(viewport=pb.VIEWPORT)
    t_start = time.perf_counter() + 0.2
    pages: list = []

    async def one(t: float) -> dict:
        await asyncio.sleep(max(0.0, t_start + t - time.perf_counter()))
        page = await ctx.new_page()
        pages.append(page)
        t0 = time.perf_counter()
        try:
            await page.goto(url, wait_until="commit", timeout=timeout * 1000)
            await page.wait_for_function(FIRST_VIEW_JS, timeout=max(1.0, timeout - (time.perf_counter() - t0)) * 1000,
                                         polling=100)
            return {"t": time.perf_counter() - t0, "split": {}, "error": None, "status": 200}
        except Exception as exc:  # noqa: BLE001 - a page not drawn within the timeout
            return {"t": None, "split": {}, "error": type(exc).__name__, "status": None}

    results = await asyncio.gather(*(one(t) for t in at))
    return list(results), [pw, browser, ctx, pages]


async def close_chromium(handles: list) -> None:
    pw, browser, ctx, pages = handles
    for p in pages:
        await p.close()
    await ctx.close()
    await browser.close()
    await pw.stop()


# ------------------------------------------------------------------------------------------------
# one mode
# ------------------------------------------------------------------------------------------------
def _median(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def _p95(xs):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, max(0, int(round(0.95 * len(xs))) - 1))] if xs else None


def run_mode(client: str, pool: int, at: list[float], timeout: float, max_kernels: int,
             tabs: tuple[int, ...] = ()) -> dict:
    server = pb.voila_server(f"bench-class-load-{client}-pool{pool}.log", pool_size=pool, max_kernels=max_kernels)
    try:
        server.wait_ready(timeout=120)
        ready = wait_quiet(server.kernel_pids, want=pool) if pool else 0.0
        pool_pids = server.kernel_pids()
        pool_mem = [pb.memory(p) for p in pool_pids]
        cpu_before = {p: cpu_seconds(p) for p in pool_pids}
        server_cpu0, busy0, own0 = cpu_seconds(server.pid), machine_busy_seconds(), time.process_time()
        load0 = os.getloadavg()
        loop = asyncio.new_event_loop()
        t_run = time.perf_counter()
        opener, closer = (open_light, close_light) if client == "light" else (open_chromium, close_chromium)
        results, handles = loop.run_until_complete(opener(server.url, at, timeout, tabs))
        t_pages = time.perf_counter() - t_run
        settle = wait_quiet(server.kernel_pids, timeout=60.0)  # the prewarm after each first view
        pids = server.kernel_pids()
        by_kernel = {kernel_of(p): p for p in pids}
        mems = {p: pb.memory(p) for p in pids}
        cpus = {p: cpu_seconds(p) for p in pids}
        server_cpu = cpu_seconds(server.pid) - server_cpu0
        server_mem = pb.memory(server.pid)
        own = time.process_time() - own0
        chromium = [p for p in pb.descendants(os.getpid()) if "chrom" in pb.cmdline(p)]
        client_cpu = own + sum(cpu_seconds(p) for p in chromium)
        busy = machine_busy_seconds() - busy0
        load1 = os.getloadavg()
        wall = time.perf_counter() - t_run
        loop.run_until_complete(closer(handles))
        loop.close()
        preheated = server.log_text().count("Using pre-heated kernel")
    finally:
        server.stop()
    n = len(at)
    drawn = [r["t"] for r in results if r["t"] is not None]
    padded = sorted(r["t"] if r["t"] is not None else timeout for r in results)
    # the pages' kernels (the light client knows their ids; for Chromium: every kernel, the refilled pool too)
    page_pids = [by_kernel[r["kernel_id"]] for r in results if r.get("kernel_id") in by_kernel] \
        if client == "light" else pids
    kernels_cpu = sum(cpus[p] - cpu_before.get(p, 0.0) for p in pids)
    total_pss = sum(m["pss"] for m in mems.values()) + server_mem["pss"]
    splits = {k: _median([r["split"].get(k) for r in results if r["t"] is not None])
              for k in ("kernel", "notebook", "connect", "states")}
    splits_p95 = {k: _p95([r["split"][k] for r in results if r["t"] is not None and r["split"].get(k) is not None])
                  for k in ("kernel", "notebook", "connect", "states")}
    errors: dict[str, int] = {}
    for r in results:
        if r["t"] is None:
            errors[str(r["error"])[:80]] = errors.get(str(r["error"])[:80], 0) + 1
    return {"client": client, "pool": pool, "pages": n, "drawn": len(drawn), "not_drawn": n - len(drawn),
            "errors": errors, "median": statistics.median(padded), "p95": _p95(padded),
            "fastest": min(drawn) if drawn else None, "slowest": max(drawn) if drawn else None,
            "split": splits, "split_p95": splits_p95, "preheated": preheated, "pool_ready_s": ready,
            "pool_kernel_rss": _median([m["rss"] for m in pool_mem]),
            "pool_kernel_pss": _median([m["pss"] for m in pool_mem]),
            "kernels": len(pids), "kernel_rss": _median([mems[p]["rss"] for p in page_pids]),
            "kernel_pss": _median([mems[p]["pss"] for p in page_pids]),
            "kernel_cpu_s": _median([cpus[p] for p in page_pids]), "total_pss": total_pss,
            "server_pss": server_mem["pss"], "pages_per_gb": len(drawn) / (total_pss / 2**30) if total_pss else 0,
            "cpu": {"kernels": kernels_cpu, "server": server_cpu, "client": client_cpu,
                    "others": busy - kernels_cpu - server_cpu - client_cpu},
            "wall": wall, "t_pages": t_pages, "settle_s": settle, "load_before": load0, "load_after": load1,
            "states_bytes": _median([r.get("states_bytes") for r in results if r["t"] is not None])}


def _mb(b: float | None) -> str:
    return "-" if b is None else f"{b / 2**20:.0f}"


def _s(v: float | None) -> str:
    return "-" if v is None else f"{v:.2f}" if v < 10 else f"{v:.1f}"


def table(rows: list[dict], window: float, arrivals_kind: str) -> str:
    head = (f"| client | preheating | pages in {window:.0f} s ({arrivals_kind}) | not drawn | first view median [s] "
            "| p95 [s] | median kernel / notebook / connect / states [s] | RSS per kernel [MB] | PSS per kernel [MB] "
            "| CPU per kernel [s] | pages per GB (PSS, all kernels + server) | CPU s: kernels / server / client / "
            "others | load avg (1 min) before / after |")
    lines = [head, "|" + "---|" * (head.count("|") - 1)]
    for r in rows:
        sp = r["split"]
        split = " / ".join(_s(sp.get(k)) for k in ("kernel", "notebook", "connect", "states")) \
            if r["client"] == "light" else "-"
        c = r["cpu"]
        lines.append(
            f"| {r['client']} | {'off' if r['pool'] == 0 else 'pool ' + str(r['pool'])} | {r['pages']} "
            f"| {r['not_drawn']} | {_s(r['median'])} | {_s(r['p95'])} | {split} | {_mb(r['kernel_rss'])} "
            f"| {_mb(r['kernel_pss'])} | {r['kernel_cpu_s']:.2f} | {r['pages_per_gb']:.1f} "
            f"| {c['kernels']:.0f} / {c['server']:.0f} / {c['client']:.0f} / {c['others']:.0f} "
            f"| {r['load_before'][0]:.1f} / {r['load_after'][0]:.1f} |")
    return "\n".join(lines)


# ------------------------------------------------------------------------------------------------
# the check: the light client reaches what Chromium reaches
# ------------------------------------------------------------------------------------------------
def validate(timeout: float = 120.0) -> int:
    if pb.chromium_path() is None:
        print("bench_class_load --validate: Debian's chromium is not on PATH", file=sys.stderr)
        return 1
    server = pb.voila_server("bench-class-load-validate.log", pool_size=0)
    try:
        server.wait_ready(timeout=120)

        async def both():
            tr = await lc.chromium_trace(server.url, FIRST_VIEW_JS, timeout=timeout)
            page = await lc.open_page(server.url, timeout=timeout)
            await asyncio.sleep(4.0)  # what the kernel sends after the first view (the autosave, every 3 s)
            await page.close()
            return tr, page

        tr, page = asyncio.run(both())
        # what every student's browser fetches once besides (a class's browsers share no cache): the files the
        # Chromium page fetched, fetched again ASSET_ROUNDS times; the server's CPU for them
        urls = [u for u, _n in tr["assets"]]
        cpu0 = cpu_seconds(server.pid)
        nbytes, wall = asyncio.run(lc.fetch_assets(urls, ASSET_ROUNDS)) if urls else (0, 0.0)
        asset_cpu = (cpu_seconds(server.pid) - cpu0) / ASSET_ROUNDS
    finally:
        server.stop()
    st = tr["states"] or {}
    names_c, names_l = lc.model_names(st), page.names
    view_c = lc.first_view(st)
    print(f"chromium: first view {_s(tr.get('first_view_s'))} s, {len(st)} widget models, first view in the "
          f"states: {view_c}; websocket protocol {tr['protocols']}; /api requests {tr['api']}")
    print(f"  sent: {tr['sent']}")
    print(f"  received: {dict(tr['received'])}" + (f"; stream text {tr['stream']}" if tr["stream"] else ""))
    print(f"light:    first view {_s(page.first_view_s)} s (split {page.split()}), {page.n_models} widget models, "
          f"{page.states_bytes} bytes of states; first view: {page.view}")
    print(f"  sent: {page.sent}")
    print(f"  received: {dict(page.received)}")
    print(f"the Chromium page's files from the server: {len(urls)}, {sum(n for _u, n in tr['assets']) / 1e6:.1f} MB "
          f"as received ({nbytes / 1e6:.1f} MB fetched again with gzip); Voila's CPU for them {asset_cpu:.2f} s a "
          f"page ({ASSET_ROUNDS} rounds, {wall / max(1, ASSET_ROUNDS):.2f} s wall each); largest: "
          + ", ".join(f"{u.rsplit('/', 1)[-1][:40]} {n / 1e6:.2f} MB"
                      for u, n in sorted(tr["assets"], key=lambda x: -x[1])[:4]))
    problems = []
    if tr["error"] or not view_c.get("ok"):
        problems.append(f"the Chromium page did not reach its first view ({tr['error']})")
    if page.error:
        problems.append(f"the light page failed: {page.error}")
    if names_c != names_l:
        diff = {k: (names_c.get(k, 0), names_l.get(k, 0)) for k in set(names_c) | set(names_l)
                if names_c.get(k, 0) != names_l.get(k, 0)}
        problems.append(f"widget models differ (chromium, light): {diff}")
    browser_sent = [m for m in tr["sent"]]
    missing = [m for m in browser_sent if m not in page.sent]
    if missing:
        problems.append(f"the light page did not send what Chromium sent: {missing}")
    print("validate: " + ("OK: the same widget models (" + ", ".join(f"{k} {v}" for k, v in sorted(names_l.items()))
                          + ") and the same messages" if not problems else "FAILED: " + "; ".join(problems)))
    return 1 if problems else 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--client", choices=("light", "chromium"), default="light")
    ap.add_argument("--pages", type=int, default=30, help=f"pages opened (1..{MAX_PAGES}, default 30)")
    ap.add_argument("--window", type=float, default=60.0, help=f"seconds they open over (1..{MAX_WINDOW:.0f})")
    ap.add_argument("--arrivals", choices=("poisson", "even"), default="poisson")
    ap.add_argument("--seed", type=int, default=23, help="seed of the Poisson arrivals")
    ap.add_argument("--pools", default="0,4,8", help="pool sizes, one mode each (0: no preheated kernels)")
    ap.add_argument("--max-kernels", type=int, default=None,
                    help="the server's --max-kernels (default: pages + the largest pool)")
    ap.add_argument("--timeout", type=float, default=120.0, help="seconds a page is given (10..300, default 120)")
    ap.add_argument("--tabs", action="store_true",
                    help="light client: after its first view each page opens the other three tabs in turn (the "
                         "Motion tab computes its trajectory), for the kernels' memory after use")
    ap.add_argument("--validate", action="store_true", help="check one light page against one Chromium page")
    a = ap.parse_args(argv)
    if a.validate:
        return validate()
    if not 1 <= a.pages <= MAX_PAGES:
        ap.error(f"--pages must be in 1..{MAX_PAGES}, got {a.pages}")
    if not 1 <= a.window <= MAX_WINDOW:
        ap.error(f"--window must be in 1..{MAX_WINDOW:.0f} s, got {a.window}")
    if not 10 <= a.timeout <= 300:
        ap.error(f"--timeout must be in 10..300 s, got {a.timeout}")
    try:
        pools = [int(x) for x in a.pools.split(",") if x.strip()]
    except ValueError:
        ap.error(f"--pools must be integers separated by commas, got {a.pools!r}")
    if not pools or not all(0 <= p <= 16 for p in pools):
        ap.error(f"--pools must be sizes in 0..16, got {a.pools!r}")
    max_kernels = a.max_kernels if a.max_kernels is not None else a.pages + max(pools)
    if a.client == "chromium" and pb.chromium_path() is None:
        print("bench_class_load: Debian's chromium is not on PATH", file=sys.stderr)
        return 1
    at = arrivals(a.pages, a.window, a.arrivals, a.seed)
    gaps = [b - x for x, b in zip(at, at[1:])]
    print(f"# {a.pages} pages over {a.window:.0f} s ({a.arrivals} arrivals, seed {a.seed}: gaps min "
          f"{min(gaps, default=0):.2f} s, max {max(gaps, default=0):.2f} s) on loopback, client {a.client}, "
          f"{os.cpu_count()} CPUs ({len(os.sched_getaffinity(0))} usable), --max-kernels {max_kernels}"
          + (", each page then opens the other three tabs" if a.tabs else "")
          + f", load average {os.getloadavg()[0]:.2f} at the start",
          flush=True)
    rows = []
    for pool in pools:
        r = run_mode(a.client, pool, at, a.timeout, max_kernels, (1, 2, 3) if a.tabs else ())
        sp = r["split"]
        print(f"# pool {pool}: median {_s(r['median'])} s, p95 {_s(r['p95'])} s, fastest {_s(r['fastest'])} s, "
              f"slowest {_s(r['slowest'])} s, {r['drawn']}/{r['pages']} drawn {r['errors'] or ''}; "
              f"{r['preheated']} pages on a preheated kernel; pool ready in {r['pool_ready_s']:.0f} s, a waiting "
              f"pool kernel {_mb(r['pool_kernel_rss'])} MB RSS / {_mb(r['pool_kernel_pss'])} MB PSS; "
              f"{r['kernels']} kernels at the end, all kernels + server {_mb(r['total_pss'])} MB PSS "
              f"(server {_mb(r['server_pss'])}); widget states {r['states_bytes'] or 0:.0f} bytes a page; "
              f"split median {', '.join(f'{k} {_s(v)}' for k, v in sp.items())} / p95 "
              f"{', '.join(f'{k} {_s(v)}' for k, v in r['split_p95'].items())}; pages opened in {r['t_pages']:.0f} s, "
              f"kernels quiet {r['settle_s']:.0f} s later; CPU s: "
              + ", ".join(f"{k} {v:.0f}" for k, v in r["cpu"].items()) + f" in {r['wall']:.0f} s wall", flush=True)
        rows.append(r)
    print(table(rows, a.window, a.arrivals))
    return 0


if __name__ == "__main__":
    sys.exit(main())
