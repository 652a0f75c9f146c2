"""Command line: ``pendulum-explorer serve`` (the Voila dashboard), ``pendulum-explorer warmup`` and
``pendulum-explorer figure`` (the paper's figures as files)."""
from __future__ import annotations

import argparse
import os
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import NoReturn

from .server import (CULL_IDLE_TIMEOUT, CULL_INTERVAL, MAX_KERNELS, POOL_FILL_DELAY, POOL_SIZE, TEMPLATE, Address,
                     ServeError, check_address, check_pool_size, new_token, query_host, write_dashboard_notebook)

PAGE_KERNEL_MANAGER = "pendulum_explorer._page_kernels.PageKernelManager"


def voila_command(notebook: str | Path, host: str = "127.0.0.1", port: int = 8866, open_browser: bool = False,
                  token: str | None = None, cull_idle_timeout: int = CULL_IDLE_TIMEOUT,
                  cull_interval: int = CULL_INTERVAL, max_kernels: int = MAX_KERNELS,
                  pool_size: int = 0) -> list[str]:
    """The argument list that starts Voila on the dashboard notebook ``notebook``.

    ``pool_size`` > 0: that many preheated kernels wait for the next pages (Voila's ``preheat_kernel``; the
    notebook waits for the page's request before it reads the link, see :func:`.app.shell_links.page_query`);
    0 (this function's default): every page starts its own kernel.  ``serve`` passes :data:`.server.POOL_SIZE`.

    Voila never moves to another port (``port_retries=0``: the URL printed is the one served).  With ``token``,
    the token itself goes to Voila through the environment (``JUPYTER_TOKEN``, see :func:`serve`), not argv.
    """
    nb = Path(notebook)
    # Voila through the package's launcher: its page template (no CDN links) on Voila's search path
    cmd = [sys.executable, "-m", "pendulum_explorer.server", str(nb), f"--Voila.ip={host}", f"--port={port}",
           "--Voila.port_retries=0", f"--VoilaConfiguration.template={TEMPLATE}",
           f"--VoilaConfiguration.multi_kernel_manager_class={PAGE_KERNEL_MANAGER}",
           f"--MappingKernelManager.cull_idle_timeout={cull_idle_timeout}",
           f"--MappingKernelManager.cull_interval={cull_interval}",
           f"--PageKernelManager.max_kernels={max_kernels}",
           # a connected page's kernel is never culled for being idle (a class leaves a page untouched for longer
           # than the timeout); the culler ends only kernels without a connection (a page that never connected)
           "--MappingKernelManager.cull_connected=False",
           "--VoilaConfiguration.show_tracebacks=False",
           # the browser's languages reach the kernel (HTTP_ACCEPT_LANGUAGE): the page opens in the class's language
           "--VoilaConfiguration.http_header_envs=['Accept-Language']",
           f"--Voila.root_dir={nb.parent}"]
    if check_pool_size(pool_size):
        cmd += ["--VoilaConfiguration.preheat_kernel=True", f"--VoilaConfiguration.default_pool_size={pool_size}",
                f"--VoilaKernelManager.fill_delay={POOL_FILL_DELAY}"]
    if token:
        cmd.append("--Voila.auto_token=True")
    if not open_browser:
        cmd.append("--no-browser")
    return cmd


def warmup(verbose: bool = True, jobs: int | None = None) -> None:
    """Compile (or load from numba's cache) every kernel by running each once on a small problem.

    ``jobs``: processes compiling at once (1 or 2, see :func:`._warmup.run`); default :func:`warmup_jobs`."""
    t0 = time.perf_counter()
    from . import _jit, _warmup

    if _jit.CACHE and not _jit.JIT_DISABLED:
        _jit.prune_stale_caches()
    _warmup.run(jobs=warmup_jobs() if jobs is None else jobs)
    if verbose:
        print(f"pendulum-explorer: kernels ready in {time.perf_counter() - t0:.1f} s", flush=True)


def _usable_cores() -> float:
    """Cores this process may use: its CPU affinity, capped by a cgroup v2 CPU quota (containers, Binder)."""
    try:
        n: float = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        n = os.cpu_count() or 1
    try:
        quota, period = Path("/sys/fs/cgroup/cpu.max").read_text().split()[:2]
        if quota != "max":
            n = min(n, int(quota) / int(period))
    except (OSError, ValueError):
        pass
    return n


def warmup_jobs() -> int:
    """2 when two cores are usable and one of them is free (load average below cores - 1), else 1: the
    two-process warm-up spends ~25 % more CPU time (both compile the shared helpers), which only pays when the
    second process gets a core of its own."""
    cores = _usable_cores()
    try:
        load = os.getloadavg()[0]
    except OSError:
        load = 0.0
    return 2 if cores >= 2 and load < cores - 1 else 1


def _warn(msg: str) -> None:
    print(f"pendulum-explorer: WARNING: {msg}", file=sys.stderr, flush=True)


def serve(host: str = "127.0.0.1", port: int = 8866, open_browser: bool = True, no_token: bool = False,
          do_warmup: bool = True, cull_idle_timeout: int = CULL_IDLE_TIMEOUT,
          cull_interval: int = CULL_INTERVAL, max_kernels: int = MAX_KERNELS, pool_size: int = POOL_SIZE) -> int:
    """Serve the dashboard with Voila until Ctrl-C; returns the exit code.

    ``pool_size`` kernels are preheated (started, the dashboard imported) for the next pages; 0: none.

    A host that is not loopback gets a token (generated, printed in the URL) unless ``no_token``; either way a
    warning says who can reach the server.
    """
    check_pool_size(pool_size)
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
    env["VOILA_APP_IP"] = query_host(addr)  # where a preheated kernel asks for its page's request
    with tempfile.TemporaryDirectory(prefix="pendulum-explorer-") as tmp:
        nb = write_dashboard_notebook(tmp)
        cmd = voila_command(nb, host, port, open_browser, token=token, cull_idle_timeout=cull_idle_timeout,
                            cull_interval=cull_interval, max_kernels=max_kernels, pool_size=pool_size)
        print(f"Pendulum Explorer dashboard: {addr.url(token)}", flush=True)
        if addr.wildcard:
            # tornado binds "::" as IPv6 only (IPV6_V6ONLY): this machine reaches it at [::1], not 127.0.0.1
            local = "::1" if addr.family == socket.AF_INET6 else "127.0.0.1"
            print(f"  (all interfaces; on this machine: {Address(local, port, True, addr.family).url(token)})",
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


# ------------------------------------------------------------------------------------------------
# figure
# ------------------------------------------------------------------------------------------------
FIGURE_SUFFIXES = (".html", ".png", ".svg")
BROWSER_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome")
IMAGE_HELP = ("PNG and SVG use plotly's static export: the kaleido package (>= 1; pip install "
              "'pendulum-explorer[figures]') and Chrome or Chromium on this machine (Debian: apt-get install "
              "chromium; elsewhere set BROWSER_PATH to the browser). HTML needs neither: use --out FILE.html")


class FigureExportError(RuntimeError):
    """An image cannot be written here (no kaleido, no Chrome/Chromium, or the export failed)."""


def image_export_problem() -> str | None:
    """Why PNG/SVG export cannot work on this machine, or None when kaleido and a Chrome/Chromium are present."""
    import importlib.util
    import shutil

    if importlib.util.find_spec("kaleido") is None:
        return "the kaleido package is not installed"
    path = os.environ.get("BROWSER_PATH")
    if path:
        return None if os.access(path, os.X_OK) else f"BROWSER_PATH={path!r} is not an executable"
    if not any(shutil.which(n) for n in BROWSER_NAMES):
        return "no Chrome or Chromium found on PATH (" + ", ".join(BROWSER_NAMES) + ")"
    return None


def check_figure_path(out: str | Path) -> Path:
    """``out`` as a Path after checking its suffix and folder (it exists, is a folder, and a file can be created
    in it), that ``out`` is not itself a folder, and for images that they can be written here.

    Raises ``ValueError`` (suffix, folder, not writable) or :class:`FigureExportError` (no kaleido / Chrome /
    Chromium).
    """
    out = Path(out)
    suffix = out.suffix.lower()
    if suffix not in FIGURE_SUFFIXES:
        hint = " (it is a folder: give a file name in it)" if out.is_dir() else ""
        raise ValueError(f"--out must end in one of {', '.join(FIGURE_SUFFIXES)}, got {str(out)!r}{hint}")
    if out.is_dir():
        raise ValueError(f"--out {str(out)!r} is a folder, not a file: give a file name such as "
                         f"{str(out / ('figure' + suffix))!r}")
    if not out.parent.is_dir():
        raise ValueError(f"--out: the folder {str(out.parent)!r} does not exist")
    try:  # can a file be created there? (the export writes a temporary file next to out, then renames it)
        fd, probe = tempfile.mkstemp(dir=out.parent, prefix=f".{out.name}.", suffix=".probe")
    except OSError as exc:
        raise ValueError(f"--out: cannot create a file in the folder {str(out.parent)!r} "
                         f"({exc.strerror or type(exc).__name__})") from None
    os.close(fd)
    os.unlink(probe)
    if suffix != ".html" and (problem := image_export_problem()):
        raise FigureExportError(f"cannot write {suffix[1:].upper()}: {problem}. {IMAGE_HELP}")
    return out


def figure_paths(out: Path, names: Sequence[str]) -> list[Path]:
    """Where each panel goes: ``out`` itself for one panel, ``<stem>-<panel><suffix>`` for several."""
    if len(names) == 1:
        return [out]
    return [out.with_name(f"{out.stem}-{name}{out.suffix}") for name in names]


def _temporary_next_to(path: Path) -> Path:
    """A new empty file in ``path``'s folder (hidden, same suffix), to be renamed onto ``path``."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.stem}.", suffix=path.suffix)
    os.close(fd)
    return Path(tmp)


def write_figures(figures: dict, out: str | Path, title: str = "Pendulum Explorer") -> list[Path]:
    """Write the panels ``figures`` (name -> plotly figure) to ``out``.

    ``.html``: one standalone page with every panel (plotly.js inline: it opens offline).  ``.png``/``.svg``: one
    image per panel (:func:`figure_paths`) through plotly's static export.  Returns the paths written.

    Every file is written to a temporary file in the same folder and renamed onto its path only when all of them
    were written: a failed export leaves the files that were there before as they were (and no partial file).

    Raises
    ------
    FigureExportError
        An image format without kaleido or Chrome/Chromium (the message says what to install), a failed export,
        or a file that cannot be written (the message names it).
    """
    out = check_figure_path(out)
    suffix = out.suffix.lower()
    paths = [out] if suffix == ".html" else figure_paths(out, list(figures))
    for p in paths:
        if p.is_dir():
            raise FigureExportError(f"--out: {str(p)!r} is a folder, not a file")
    temps: list[Path] = []
    try:
        try:
            temps = [_temporary_next_to(p) for p in paths]
        except OSError as exc:
            raise FigureExportError(f"--out: cannot create a file next to {str(out)!r} "
                                    f"({exc.strerror or type(exc).__name__})") from None
        if suffix == ".html":
            _write_html(figures, temps[0], title)
        else:
            _write_images(figures, temps, suffix)
        for tmp, p in zip(temps, paths):
            try:
                os.replace(tmp, p)
            except OSError as exc:
                raise FigureExportError(f"--out: cannot write {str(p)!r} "
                                        f"({exc.strerror or type(exc).__name__})") from None
        return paths
    finally:
        for tmp in temps:  # whatever was not renamed (a failure): nothing partial is left behind
            tmp.unlink(missing_ok=True)


def _write_html(figures: dict, path: Path, title: str) -> None:
    import html

    parts = [fig.to_html(full_html=False, include_plotlyjs=(i == 0)) for i, fig in enumerate(figures.values())]
    try:
        path.write_text(f"<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>{html.escape(title)}</title>"
                        f"</head><body>\n" + "\n".join(parts) + "\n</body></html>\n", encoding="utf-8")
    except OSError as exc:
        raise FigureExportError(f"--out: writing the HTML failed ({exc.strerror or type(exc).__name__})") from None


def _write_images(figures: dict, temps: list[Path], suffix: str) -> None:
    """Export the panels to the (empty) files ``temps``; an empty file afterwards means the export did not write
    it (kaleido's browser sometimes returns without writing, seen under load: those are tried once more)."""
    import plotly.io as pio

    pending = list(zip(figures.values(), temps))
    for _attempt in range(2):
        try:
            pio.write_images([f for f, _ in pending], [str(p) for _, p in pending], format=suffix[1:])
        except Exception as exc:  # kaleido / choreographer raise many types; all mean "the export failed"
            raise FigureExportError(f"the {suffix[1:].upper()} export failed ({type(exc).__name__}: {exc}). "
                                    f"{IMAGE_HELP}") from exc
        pending = [(f, p) for f, p in pending if not p.is_file() or p.stat().st_size == 0]
        if not pending:
            return
    raise FigureExportError(f"the {suffix[1:].upper()} export wrote nothing (twice; the files that were there are "
                            f"kept). {IMAGE_HELP}")


def figure(which: str, out: str | Path, energy: float | None = None, crossings: int | None = None) -> list[Path]:
    """``pendulum-explorer figure``: compute the paper's Fig. 1 (b)-(d) or Fig. 2 panels and write them.

    Every argument is checked before the work; a message names the option (``--energy``, ``--crossings``,
    ``--out``)."""
    import math

    from .errors import PendulumError
    from .plotting import paper

    check_figure_path(out)  # before the work
    if which not in ("fig1", "fig2"):
        raise ValueError(f"figure must be fig1 or fig2, got {which!r}")
    if which == "fig1":
        for opt, val in (("--energy", energy), ("--crossings", crossings)):
            if val is not None:
                raise ValueError(f"{opt} applies to fig2 only (Fig. 1 has no energy level or crossings)")
        return write_figures(paper.fig1_figures(), out, title=f"Pendulum Explorer: paper {which}")
    n = paper.FIG2_CROSSINGS if crossings is None else crossings
    if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= paper.MAX_CROSSINGS:
        raise ValueError(f"--crossings must be an integer in 1..{paper.MAX_CROSSINGS}, got {n!r}")
    if energy is not None and not math.isfinite(energy):
        raise ValueError(f"--energy must be a finite number of joules, got {energy!r}")
    try:
        figs = paper.fig2_figures(energy, n)
    except PendulumError as exc:
        raise ValueError(f"--energy {energy:g}: {exc}" if energy is not None else str(exc)) from None
    return write_figures(figs, out, title=f"Pendulum Explorer: paper {which}")


def _port(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"--port must be an integer in 1..65535, got {text!r}") from None


def _one_line_error(parser: argparse.ArgumentParser) -> Callable[[str], NoReturn]:
    """``parser.error`` that prints one line (``prog: error: message``, naming the option) and exits with 2."""
    def error(message: str) -> NoReturn:
        parser.exit(2, f"{parser.prog}: error: {message} (see {parser.prog} --help)\n")
    return error


def _figure_main(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    """``pendulum-explorer figure``: every error is one line on stderr naming the option (exit 2 for a bad
    ``--out`` found before the work, 1 for anything after it), never a traceback."""
    from .errors import PendulumError

    try:
        out = check_figure_path(args.out)
    except ValueError as exc:
        parser.error(str(exc))
    except FigureExportError as exc:
        parser.error(f"--out {args.out!r}: {exc}")
    try:
        paths = figure(args.which, out, args.energy, args.crossings)
    except (PendulumError, ValueError, FigureExportError, OSError) as exc:
        msg = " ".join(str(exc).split())  # one line
        if isinstance(exc, (FigureExportError, OSError)) and not msg.startswith("--"):
            msg = f"--out {args.out!r}: {msg}"
        print(f"{parser.prog}: error: {msg}", file=sys.stderr, flush=True)
        return 1
    for p in paths:
        print(p, flush=True)
    return 0


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
                   help="shut down kernels without a page connected (a page that never connected) idle this many "
                        f"seconds; a connected page's kernel is never culled (default {CULL_IDLE_TIMEOUT})")
    s.add_argument("--cull-interval", type=int, default=CULL_INTERVAL,
                   help=f"how often to look for idle kernels, seconds (default {CULL_INTERVAL})")
    s.add_argument("--max-kernels", type=int, default=MAX_KERNELS,
                   help=f"open pages (kernels) served at most; beyond them a page says the server is full and to "
                        f"try again (default {MAX_KERNELS}; 0: no limit)")
    s.add_argument("--pool-size", type=int, default=POOL_SIZE,
                   help=f"kernels kept started for the next pages (preheated: a page opens in about a second "
                        f"instead of starting its kernel), ~150 MB each; 0: none (default {POOL_SIZE})")
    w = sub.add_parser("warmup", help="compile the numba kernels into the on-disk cache")
    w.add_argument("--jobs", type=int, choices=(1, 2), default=None,
                   help="processes compiling at once (default: 2 if a second core is free)")
    f = sub.add_parser("figure", help="write the paper's Fig. 1 (b)-(d) or Fig. 2 panels to a file",
                       description="Fig. 1 (b)-(d) or the Fig. 2 Poincaré sections as one standalone HTML page, "
                                   "or as PNG/SVG images (one per panel: FILE-<panel>.png). " + IMAGE_HELP)
    f.add_argument("which", choices=["fig1", "fig2"])
    f.add_argument("--energy", type=float, default=None,
                   help="fig2 only: one panel at this total energy [J] (default: the paper's five panels)")
    f.add_argument("--crossings", type=int, default=None, help="fig2: crossings per panel (default 2000)")
    f.add_argument("--out", required=True, help="FILE.html, FILE.png or FILE.svg")
    setattr(f, "error", _one_line_error(f))  # its argument errors: one line, too
    args = parser.parse_args(argv)
    if args.cmd == "warmup":
        warmup(jobs=args.jobs)
        return 0
    if args.cmd == "figure":
        return _figure_main(f, args)
    if args.cmd == "serve":
        for name in ("cull_idle_timeout", "cull_interval"):
            if getattr(args, name) < 1:
                parser.error(f"--{name.replace('_', '-')} must be at least 1 second, got {getattr(args, name)}")
        if not 0 <= args.max_kernels <= 10_000:
            parser.error(f"--max-kernels must be in 0..10000 (0: no limit), got {args.max_kernels}")
        try:
            return serve(args.host, args.port, not args.no_browser, args.no_token, not args.no_warmup,
                         args.cull_idle_timeout, args.cull_interval, args.max_kernels, args.pool_size)
        except ServeError as exc:
            parser.error(str(exc))
    return 2  # pragma: no cover - argparse requires a command


if __name__ == "__main__":
    sys.exit(main())
