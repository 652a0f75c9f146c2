"""Command line: ``pendulum-explorer serve`` (the Voila dashboard) and ``pendulum-explorer warmup``."""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

#: abandoned Voila kernels (closed tabs) are culled after this many idle seconds (voila#1458)
CULL_IDLE_TIMEOUT = 600
CULL_INTERVAL = 60


def dashboard_notebook() -> Path:
    """Path of ``notebooks/dashboard.ipynb`` (repository checkout / editable install)."""
    here = Path(__file__).resolve().parent
    nb = here.parent / "notebooks" / "dashboard.ipynb"
    if not nb.exists():
        raise FileNotFoundError(f"dashboard notebook not found at {nb}")
    return nb


def voila_command(host: str = "127.0.0.1", port: int = 8866, open_browser: bool = False,
                  notebook: str | os.PathLike[str] | None = None) -> list[str]:
    """The argument list that starts Voila on the dashboard notebook."""
    nb = Path(notebook) if notebook else dashboard_notebook()
    cmd = [sys.executable, "-m", "voila", str(nb), f"--Voila.ip={host}", f"--port={port}",
           f"--MappingKernelManager.cull_idle_timeout={CULL_IDLE_TIMEOUT}",
           f"--MappingKernelManager.cull_interval={CULL_INTERVAL}",
           "--MappingKernelManager.cull_connected=True",
           "--VoilaConfiguration.show_tracebacks=False",
           f"--Voila.root_dir={nb.parent.parent}"]
    if not open_browser:
        cmd.append("--no-browser")
    return cmd


def warmup(verbose: bool = True) -> None:
    """Compile (or load from numba's cache) every kernel by running each once on a small problem."""
    t0 = time.perf_counter()
    from . import _jit, _warmup

    if _jit.CACHE and not _jit.JIT_DISABLED:
        _jit.prune_stale_caches()
    _warmup.run()
    if verbose:
        print(f"pendulum-explorer: kernels ready in {time.perf_counter() - t0:.1f} s", flush=True)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="pendulum-explorer", description=__doc__)
    sub = parser.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("serve", help="serve the dashboard with Voila")
    s.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    s.add_argument("--port", type=int, default=8866)
    s.add_argument("--no-browser", action="store_true", help="do not open a browser")
    s.add_argument("--no-warmup", action="store_true", help="skip compiling the kernels first")
    sub.add_parser("warmup", help="compile the numba kernels into the on-disk cache")
    args = parser.parse_args(argv)
    if args.cmd == "warmup":
        warmup()
        return 0
    if not args.no_warmup:
        warmup()
    cmd = voila_command(args.host, args.port, not args.no_browser)
    print(f"Pendulum Explorer dashboard: http://{args.host}:{args.port}/", flush=True)
    env = dict(os.environ)
    try:
        return subprocess.call(cmd, env=env)
    except KeyboardInterrupt:
        return 0


if __name__ == "__main__":
    sys.exit(main())
