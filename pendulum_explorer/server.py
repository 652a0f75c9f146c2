"""What ``pendulum-explorer serve`` needs besides Voila: the dashboard notebook (written at run time, so an
installed wheel serves), checked host and port, the URL really served, tokens.

The kernel manager that shuts a closed page's kernel down is in :mod:`pendulum_explorer._page_kernels` (it
imports Jupyter; this module does not).
"""
from __future__ import annotations

import errno
import ipaddress
import json
import secrets
import socket
from dataclasses import dataclass
from pathlib import Path

#: the one code cell of the dashboard notebook (``notebooks/dashboard.ipynb`` holds the same cell, for Binder;
#: a test keeps the two in step)
DASHBOARD_CODE = "from pendulum_explorer.app import build_app\n\nbuild_app()"
DASHBOARD_NAME = "dashboard.ipynb"

#: kernels without any connection (a page that never connected its websocket: a plain ``GET /``, a browser that
#: gave up) are culled after this many idle seconds (voila#1458; the notebook's execution keeps a kernel busy,
#: and a page connects within seconds of receiving it); a connected page's kernel is never culled
#: (``cull_connected=False``: a class leaves pages untouched for longer); kernels of pages that close are shut down
#: at once (:class:`PageKernelManager`).  Six plain GETs held 1.3 GB for 600 s before.
CULL_IDLE_TIMEOUT = 60
CULL_INTERVAL = 10
#: kernels (open pages) one server runs at most: ~210 MB each (8 kernels: 1.7 GB RSS), 20 fit a 4-core / 16 GB
#: machine with room; a page beyond them gets "the server is full, try again" (HTTP 503) and starts nothing
MAX_KERNELS = 20
#: seconds a kernel may stay without any websocket before it is shut down (a reconnecting page comes back
#: well within this)
DISCONNECT_GRACE = 5.0
#: preheated kernels (Voila's pool, ``--pool-size``): this many kernels wait, started and with the dashboard's
#: modules imported, for the next pages; each page takes one and Voila starts its replacement.  ~150 MB each
#: while they wait (``benchmarks/bench_class_load.py``).  0: a page starts its own kernel when it is opened.
POOL_SIZE = 4
POOL_SIZE_MAX = 64
#: seconds after a page takes a preheated kernel before Voila starts its replacement (Voila's default: 1 s):
#: starting a kernel costs ~2 CPU seconds, which the pages just opened need for their first view
POOL_FILL_DELAY = 3.0

WILDCARD_HOSTS = ("0.0.0.0", "::", "")

#: the page template Voila renders (``app/voila_data/voila/templates/pendulum``: Voila's "lab" template without
#: its links to a CDN) and the Jupyter data directory that holds it, put on Voila's search path by :func:`voila_main`
TEMPLATE = "pendulum"
TEMPLATE_DATA = Path(__file__).resolve().parent / "app" / "voila_data"


class ServeError(ValueError):
    """A bad ``serve`` option (host, port); the message names the option and what is valid."""


def dashboard_notebook_json() -> dict:
    """The dashboard notebook (nbformat 4.5) with :data:`DASHBOARD_CODE` as its only cell."""
    return {
        "cells": [{"cell_type": "code", "execution_count": None, "id": "2eb8f2c3", "metadata": {},
                   "outputs": [], "source": DASHBOARD_CODE.splitlines(keepends=True)}],
        "metadata": {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"}},
        "nbformat": 4,
        "nbformat_minor": 5,
    }


def write_dashboard_notebook(directory: str | Path) -> Path:
    """Write the one-cell dashboard notebook into ``directory`` and return its path.

    ``serve`` writes it into a temporary directory, so an installed wheel (no source tree) can serve.
    """
    path = Path(directory) / DASHBOARD_NAME
    path.write_text(json.dumps(dashboard_notebook_json(), indent=1) + "\n", encoding="utf-8")
    return path


# ------------------------------------------------------------------------------------------------
# host, port, URL
# ------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Address:
    """A checked ``serve`` address: ``host`` as given, whether every address it names is loopback, the family."""

    host: str
    port: int
    loopback: bool
    family: int

    @property
    def wildcard(self) -> bool:
        """``host`` binds every interface (``0.0.0.0``, ``::``)."""
        return self.host in WILDCARD_HOSTS

    def url(self, token: str | None = None) -> str:
        """The URL a browser on this machine (loopback, wildcard) or elsewhere (a named host) opens."""
        host = self.host
        if self.wildcard:
            host = socket.gethostname() or ("::1" if self.family == socket.AF_INET6 else "127.0.0.1")
        if ":" in host:  # an IPv6 literal
            host = f"[{host}]"
        return f"http://{host}:{self.port}/" + (f"?token={token}" if token else "")


def _is_loopback(addr: str) -> bool:
    try:
        return ipaddress.ip_address(addr.split("%", 1)[0]).is_loopback
    except ValueError:
        return False


def check_address(host: str, port: int, probe: bool = True) -> Address:
    """Validate ``--host`` and ``--port`` and (``probe``) that the port can be bound there now.

    Raises
    ------
    ServeError
        port outside 1..65535, a host that does not resolve to an address of this machine, or a port in use.
    """
    if isinstance(port, bool) or not isinstance(port, int):
        raise ServeError(f"--port must be an integer in 1..65535, got {port!r}")
    if not 1 <= port <= 65535:
        raise ServeError(f"--port must be in 1..65535, got {port}")
    if not isinstance(host, str) or host != host.strip() or "/" in host or (host and host.startswith("[")):
        raise ServeError(f"--host must be a host name or an IP address without brackets or scheme, got {host!r}")
    try:
        infos = socket.getaddrinfo(host or None, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except (socket.gaierror, UnicodeError) as exc:
        raise ServeError(f"--host {host!r} is not an address or a host name that resolves here ({exc})") from None
    if not infos:  # pragma: no cover - getaddrinfo raises instead
        raise ServeError(f"--host {host!r} resolves to no address")
    family, _, _, _, sockaddr = infos[0]
    loopback = all(_is_loopback(str(info[4][0])) for info in infos)
    if probe:
        with socket.socket(family, socket.SOCK_STREAM) as s:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as tornado binds
            if family == socket.AF_INET6 and host in ("::", ""):
                try:
                    s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
                except OSError:  # pragma: no cover
                    pass
            try:
                s.bind(sockaddr)
            except OSError as exc:
                if exc.errno == errno.EADDRINUSE:
                    raise ServeError(f"--port {port} is already in use on {host}; choose another --port") from None
                if exc.errno == errno.EACCES:
                    raise ServeError(f"--port {port} needs privileges on {host}; choose a port above 1023") \
                        from None
                raise ServeError(f"cannot listen on --host {host!r} --port {port}: {exc.strerror}") from None
    return Address(host, port, loopback, family)


def query_host(addr: Address) -> str:
    """The address a preheated kernel reaches this server at, for Voila's request-info websocket
    (``VOILA_APP_IP``; :func:`voila.utils.wait_for_request` defaults to 127.0.0.1, which a server bound to
    ``::`` or to a named host does not answer).  IPv6 literals in brackets, as in a URL."""
    host = addr.host
    if addr.wildcard:
        host = "::1" if addr.family == socket.AF_INET6 else "127.0.0.1"
    else:
        try:
            host = str(socket.getaddrinfo(host, addr.port, addr.family, socket.SOCK_STREAM)[0][4][0])
        except (socket.gaierror, UnicodeError, IndexError):  # pragma: no cover - check_address resolved it
            pass
    return f"[{host}]" if ":" in host else host


def check_pool_size(pool_size: int) -> int:
    """``--pool-size``: an integer in 0..:data:`POOL_SIZE_MAX` (0: no preheated kernels)."""
    if isinstance(pool_size, bool) or not isinstance(pool_size, int) or not 0 <= pool_size <= POOL_SIZE_MAX:
        raise ServeError(f"--pool-size must be an integer in 0..{POOL_SIZE_MAX} (0: no preheated kernels), "
                         f"got {pool_size!r}")
    return pool_size


def new_token() -> str:
    """A random token for a non-loopback server (48 hex digits, as Jupyter generates)."""
    return secrets.token_hex(24)


def voila_main() -> None:  # pragma: no cover - runs in the server's process (the browser tests start it)
    """``python -m pendulum_explorer.server NOTEBOOK [voila options]``: Voila with :data:`TEMPLATE_DATA` first on
    the Jupyter data path (``JUPYTER_PATH``), so that ``--VoilaConfiguration.template=pendulum`` finds the page
    template in the installed package (a wheel: no files outside it)."""
    import os
    import sys

    extra = [p for p in os.environ.get("JUPYTER_PATH", "").split(os.pathsep) if p]
    os.environ["JUPYTER_PATH"] = os.pathsep.join([str(TEMPLATE_DATA)] + extra)
    from voila.app import main

    sys.exit(main())


if __name__ == "__main__":  # pragma: no cover
    voila_main()
