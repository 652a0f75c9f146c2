"""Voila's kernel manager for ``pendulum-explorer serve``: a page that closes takes its kernel with it.

Loaded by Voila from ``--VoilaConfiguration.multi_kernel_manager_class=pendulum_explorer._page_kernels.PageKernelManager``
(see :func:`pendulum_explorer.cli.voila_command`).
"""
from __future__ import annotations

import asyncio
from typing import Any

from jupyter_core.utils import ensure_async
from jupyter_server.services.kernels.kernelmanager import AsyncMappingKernelManager
from tornado import web
from traitlets import Float, Int

from .server import DISCONNECT_GRACE, MAX_KERNELS


class PageKernelManager(AsyncMappingKernelManager):
    """Voila's kernel manager, plus: a kernel whose last websocket closed is shut down after
    :attr:`disconnect_grace` seconds unless a websocket connects again.

    Voila's page also asks for its kernel's shutdown on ``beforeunload`` (a beacon); this covers the pages that
    vanish without it (a crashed or killed tab, a lost network, a browser that skips ``beforeunload``).  Kernels
    that never had a page connected (still executing the notebook) are left to the culler.
    """

    disconnect_grace = Float(DISCONNECT_GRACE, config=True,
                             help="seconds a kernel may stay without any websocket before it is shut down "
                                  "(a negative value: never; the culler still applies)")

    max_kernels = Int(MAX_KERNELS, config=True,
                      help="kernels (open pages) this server runs at most; a page beyond them gets the 'server "
                           "full, try again' page (HTTP 503) and starts nothing (0: no limit)")

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._pe_pending: dict[str, asyncio.TimerHandle] = {}
        self._pe_starting = 0  # kernels being started now (counted against max_kernels)

    async def start_kernel(self, *args: Any, **kwargs: Any) -> str:  # type: ignore[override]
        """Start a kernel, unless :attr:`max_kernels` run already: then HTTP 503, which Voila shows as the
        template's ``503.html`` ("the server is full, try again")."""
        kid = kwargs.get("kernel_id")
        if self.max_kernels > 0 and not (kid and kid in self) \
                and len(self.list_kernel_ids()) + self._pe_starting >= self.max_kernels:
            self.log.warning("Pendulum Explorer: %d kernels run (the limit): a page was turned away",
                             self.max_kernels)
            raise web.HTTPError(503, "the server runs %d dashboards, its limit", self.max_kernels,
                                reason="Server full")
        self._pe_starting += 1
        try:
            return await super().start_kernel(*args, **kwargs)
        finally:
            self._pe_starting -= 1

    def notify_connect(self, kernel_id: str) -> None:
        super().notify_connect(kernel_id)
        handle = self._pe_pending.pop(kernel_id, None)
        if handle is not None:
            handle.cancel()

    def notify_disconnect(self, kernel_id: str) -> None:
        super().notify_disconnect(kernel_id)
        if self.disconnect_grace >= 0 and kernel_id in self._kernel_connections \
                and self._kernel_connections[kernel_id] <= 0:
            loop = asyncio.get_event_loop()
            old = self._pe_pending.pop(kernel_id, None)
            if old is not None:
                old.cancel()
            self._pe_pending[kernel_id] = loop.call_later(self.disconnect_grace, self._pe_shutdown_idle, kernel_id)

    def _pe_shutdown_idle(self, kernel_id: str) -> None:
        self._pe_pending.pop(kernel_id, None)
        if kernel_id in self._kernel_connections and self._kernel_connections[kernel_id] <= 0 \
                and kernel_id in self:
            self.log.info("Pendulum Explorer: the page of kernel %s closed; shutting the kernel down", kernel_id)
            asyncio.ensure_future(self._pe_shutdown(kernel_id))

    async def _pe_shutdown(self, kernel_id: str) -> None:
        try:
            await ensure_async(self.shutdown_kernel(kernel_id))
        except KeyError:  # already shut down by the page's beacon or the culler
            pass
