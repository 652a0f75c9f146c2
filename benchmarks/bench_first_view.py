"""What the kernel does for the dashboard's first view, without a browser, side by side with a baseline checkout.

    python benchmarks/bench_first_view.py --baseline /path/to/checkout [--pairs 8] [--after 0]

For this checkout and the baseline (a checkout, e.g. ``git worktree add --detach DIR b902b7a``: run with its own
``.venv`` if it has one, else with this Python; each checkout first on ``PYTHONPATH``), in turn A B A B ...: an ipykernel is started with that
checkout's Python (as Voila starts one), the dashboard notebook's one cell is run (``server.DASHBOARD_CODE``:
import + ``build_app()``), and from the end of the start-up to the cell's "idle" this prints the wall time, the
kernel's CPU time (/proc), its resident memory right after, and the messages and bytes it sent (widget models,
figure, JavaScript).  ``--after S`` also reads the memory S seconds later (the panels' background warm-up).
Minimum and median over the pairs (the machine is shared: compare the CPU minima; wall times are noisy).
Nothing is asserted.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

from jupyter_client import KernelManager

ROOT = Path(__file__).resolve().parent.parent
from _compare import print_min_median  # noqa: E402  (benchmarks/ is the script's folder)
sys.path.insert(0, str(ROOT))

from pendulum_explorer.server import DASHBOARD_CODE  # noqa: E402


def _proc(pid: int) -> tuple[float, float]:
    """(CPU seconds, RSS MB) of process ``pid``."""
    with open(f"/proc/{pid}/stat") as f:
        parts = f.read().rsplit(")", 1)[1].split()
    cpu = (int(parts[11]) + int(parts[12])) / os.sysconf("SC_CLK_TCK")
    with open(f"/proc/{pid}/status") as f:
        rss = next(int(line.split()[1]) for line in f if line.startswith("VmRSS")) / 1024
    return cpu, rss


def one_run(kernel: str, after: float) -> dict[str, float]:
    km = KernelManager(kernel_name=kernel)
    km.start_kernel(cwd=tempfile.gettempdir())
    kc = km.client()
    kc.start_channels()
    try:
        kc.wait_for_ready(timeout=120)
        pid = km.provisioner.process.pid
        cpu0, _ = _proc(pid)
        t0 = time.perf_counter()
        msg_id = kc.execute(DASHBOARD_CODE)
        n = size = 0
        while True:
            m = kc.get_iopub_msg(timeout=120)
            n += 1
            size += len(json.dumps(m["content"], default=str))
            if (m["parent_header"].get("msg_id") == msg_id and m["msg_type"] == "status"
                    and m["content"]["execution_state"] == "idle"):
                break
        wall = time.perf_counter() - t0
        cpu1, rss = _proc(pid)
        out = {"cell wall s": wall, "cell CPU s": cpu1 - cpu0, "RSS MB": rss, "messages": n, "sent kB": size / 1024}
        if after:
            time.sleep(after)
            out[f"RSS MB {after:g} s later"] = _proc(pid)[1]
        return out
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--baseline", type=Path, help="a checkout with its own .venv (omitted: this checkout only)")
    ap.add_argument("--pairs", type=int, default=8)
    ap.add_argument("--after", type=float, default=0.0)
    args = ap.parse_args()
    checkouts = {"this": ROOT}
    if args.baseline is not None:
        checkouts["baseline"] = args.baseline.resolve()
    spec_dir = Path(tempfile.mkdtemp(prefix="pe-first-view-"))
    for name, path in checkouts.items():  # one kernel spec per checkout: its own Python
        d = spec_dir / "kernels" / f"pe_{name}"
        d.mkdir(parents=True)
        py = path / ".venv" / "bin" / "python"  # the checkout's own venv, else this Python with it on the path
        argv = [str(py if py.exists() else sys.executable), "-m", "ipykernel_launcher", "-f", "{connection_file}"]
        spec = {"argv": argv, "display_name": name, "language": "python", "env": {"PYTHONPATH": str(path)}}
        (d / "kernel.json").write_text(json.dumps(spec))
    os.environ["JUPYTER_PATH"] = str(spec_dir)
    runs: dict[str, list[dict[str, float]]] = {k: [] for k in checkouts}
    for _ in range(args.pairs):
        for name in checkouts:
            runs[name].append(one_run(f"pe_{name}", args.after))
    load = os.getloadavg()[0]
    print(f"first view in the kernel, {args.pairs} runs each, in turn; load average {load:.1f}")
    print_min_median(runs, list(checkouts))


if __name__ == "__main__":
    main()
