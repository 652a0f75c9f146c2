"""Command line: ``pendulum-explorer serve`` (the Voila dashboard) and ``pendulum-explorer warmup``."""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from .server import (CULL_IDLE_TIMEOUT, CULL_INTERVAL, Address, ServeError, check_address, new_token,
                     write_dashboard_notebook)

PAGE_KERNEL_MANAGER = "pendulum_explorer._page_kernels.PageKernelManager"


def voila_command(notebook: str | Path, host: str = "127.0.0.1", port: int = 8866, open_browser: bool = False,
                  token: str | None = None, cull_idle_timeout: int = CULL_IDLE_TIMEOUT,
                  cull_interval: int = CULL_INTERVAL) -> list[str]:
    """The argument list that starts Voila on the dashboard notebook ``notebook``.

    Voila never moves to another port (``port_retries=0``: the URL printed is the one served).  With ``token``,
    the token itself goes to Voila through the environment (``JUPYTER_TOKEN``, see :func:`serve`), not argv.
    """
    nb = Path(notebook)
    cmd = [sys.executable, "-m", "voila", str(nb), f"--Voila.ip={host}", f"--port={port}",
           "--Voila.port_retries=0",
           f"--VoilaConfiguration.multi_kernel_manager_class={PAGE_KERNEL_MANAGER}",
           f"--MappingKernelManager.cull_idle_timeout={cull_idle_timeout}",
           f"--MappingKernelManager.cull_interval={cull_interval}",
           "--MappingKernelManager.cull_connected=True",
           "--VoilaConfiguration.show_tracebacks=False",
           f"--Voila.root_dir={nb.parent}"]
    if token:
        cmd.append("--Voila.auto_token=True")
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


def _warn(msg: str) -> None:
    print(f"pendulum-explorer: WARNING: {msg}", file=sys.stderr, flush=True)


def serve(host: str = "127.0.0.1", port: int = 8866, open_browser: bool = True, no_token: bool = False,
          do_warmup: bool = True, cull_idle_timeout: int = CULL_IDLE_TIMEOUT,
          cull_interval: int = CULL_INTERVAL) -> int:
    """Serve the dashboard with Voila until Ctrl-C; returns the exit code.

    A host that is not loopback gets a token (generated, printed in the URL) unless ``no_token``; either way a
    warning says who can reach the server.
    """
    addr: Address = check_address(host, port)
    token = None
    if not addr.loopback:
        if no_token:
            _warn(f"--no-token: the dashboard on {host}:{port} has NO token: anyone who can reach this address "
                  "runs Python code on this machine through its kernel. Use it only on a network you trust.")
        else:
            token = new_token()
            _warn(f"serving on {host}:{port}, which is reachable from other machines: a page needs the token "
                  "printed in the URL below (it runs Python code on this machine). Share it only with your class.")
    if do_warmup:
        warmup()
    env = dict(os.environ)
    if token:
        env["JUPYTER_TOKEN"] = token
    else:
        env.pop("JUPYTER_TOKEN", None)
    with tempfile.TemporaryDirectory(prefix="pendulum-explorer-") as tmp:
        nb = write_dashboard_notebook(tmp)
        cmd = voila_command(nb, host, port, open_browser, token=token, cull_idle_timeout=cull_idle_timeout,
                            cull_interval=cull_interval)
        print(f"Pendulum Explorer dashboard: {addr.url(token)}", flush=True)
        if addr.wildcard:
            print(f"  (all interfaces; on this machine: {Address('127.0.0.1', port, True, 0).url(token)})",
                  flush=True)
        return _run_until_stopped(cmd, env, tmp)


def _run_until_stopped(cmd: list[str], env: dict[str, str], cwd: str) -> int:
    """Run Voila; Ctrl-C (SIGINT, which the terminal sends to Voila as well) or SIGTERM stop it and its kernels."""
    import signal

    proc = subprocess.Popen(cmd, env=env, cwd=cwd)

    def _terminate(signum: int, frame: object) -> None:  # forward SIGTERM: Voila shuts its kernels down on SIGTERM
        proc.terminate()

    old = signal.signal(signal.SIGTERM, _terminate)
    try:
        try:
            return proc.wait()
        except KeyboardInterrupt:
            proc.send_signal(signal.SIGINT)
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.terminate()
            return 0
    finally:
        signal.signal(signal.SIGTERM, old)
        if proc.poll() is None:
            proc.kill()


def _port(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"--port must be an integer in 1..65535, got {text!r}") from None


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="pendulum-explorer", description=__doc__)
    sub = parser.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("serve", help="serve the dashboard with Voila")
    s.add_argument("--host", default="127.0.0.1",
                   help="address to bind (default 127.0.0.1, this machine only); any other address gets a token")
    s.add_argument("--port", type=_port, default=8866, help="port, 1..65535 (default 8866)")
    s.add_argument("--no-browser", action="store_true", help="do not open a browser")
    s.add_argument("--no-warmup", action="store_true", help="skip compiling the kernels first")
    s.add_argument("--no-token", action="store_true",
                   help="serve a non-loopback --host without a token (anyone who reaches it runs code here)")
    s.add_argument("--cull-idle-timeout", type=int, default=CULL_IDLE_TIMEOUT,
                   help=f"shut down kernels idle this many seconds (default {CULL_IDLE_TIMEOUT})")
    s.add_argument("--cull-interval", type=int, default=CULL_INTERVAL,
                   help=f"how often to look for idle kernels, seconds (default {CULL_INTERVAL})")
    sub.add_parser("warmup", help="compile the numba kernels into the on-disk cache")
    args = parser.parse_args(argv)
    if args.cmd == "warmup":
        warmup()
        return 0
    if args.cmd == "serve":
        for name in ("cull_idle_timeout", "cull_interval"):
            if getattr(args, name) < 1:
                parser.error(f"--{name.replace('_', '-')} must be at least 1 second, got {getattr(args, name)}")
        try:
            return serve(args.host, args.port, not args.no_browser, args.no_token, not args.no_warmup,
                         args.cull_idle_timeout, args.cull_interval)
        except ServeError as exc:
            parser.error(str(exc))
    return 2  # pragma: no cover - argparse requires a command


if __name__ == "__main__":
    sys.exit(main())
