"""A tiny invisible anywidget for what only the page can do: keyboard access to collapsible boxes, the page's
own address and the clipboard (the "copy link to this view" button).

* Accordion headers ("custom shape", "custom J and ρ", every "About" box) are plain ``div`` elements in
  ipywidgets 8: the Tab key skips them.  The bridge gives every such header ``tabindex=0``, ``role=button`` and
  ``aria-expanded``, and opens/closes it with Enter or Space (a ``MutationObserver`` covers panels built later).
* ``copy(query)`` sends the query string to the page, which writes ``origin + pathname + "?" + query`` to the
  clipboard (``navigator.clipboard``, else a selected text area and ``execCommand("copy")``) and answers with the
  full URL and whether the copy worked (:attr:`PageBridge.last_copy`).
"""
from __future__ import annotations

from collections.abc import Callable

import anywidget
import ipywidgets as w
import traitlets

from .common import log

_ESM = r"""
const HEADERS = ".jupyter-widget-Collapse-header, .lm-Collapse-header, .p-Collapse-header";

function enable(h) {
  if (h.dataset.peKeys) return;
  h.dataset.peKeys = "1";
  h.setAttribute("tabindex", "0");
  h.setAttribute("role", "button");
  const sync = () => h.setAttribute("aria-expanded",
      String(!!(h.parentElement && (h.parentElement.classList.contains("jupyter-widget-Collapse-open") ||
                                    h.parentElement.classList.contains("lm-mod-expanded")))));
  sync();
  h.addEventListener("click", () => setTimeout(sync, 0));
  h.addEventListener("keydown", (ev) => {
    if (ev.key === "Enter" || ev.key === " ") { ev.preventDefault(); h.click(); setTimeout(sync, 0); }
  });
}

function scan(root) { root.querySelectorAll(HEADERS).forEach(enable); }

async function copyText(text) {
  try {
    if (navigator.clipboard && window.isSecureContext) { await navigator.clipboard.writeText(text); return true; }
  } catch (e) { /* fall back below */ }
  const ta = document.createElement("textarea");
  ta.value = text; ta.setAttribute("readonly", ""); ta.style.position = "fixed"; ta.style.left = "-9999px";
  document.body.appendChild(ta); ta.select();
  let ok = false;
  try { ok = document.execCommand("copy"); } catch (e) { ok = false; }
  ta.remove();
  return ok;
}

function render({ model, el }) {
  el.style.display = "none";
  const root = document.body;
  scan(root);
  const mo = new MutationObserver(() => scan(root));
  mo.observe(root, { childList: true, subtree: true });
  model.set("base_url", window.location.origin + window.location.pathname);
  model.save_changes();
  const onMsg = async (msg) => {
    if (!msg || msg.op !== "copy") return;
    const url = window.location.origin + window.location.pathname + (msg.query ? "?" + msg.query : "");
    const ok = await copyText(url);
    model.send({ event: "copied", url: url, ok: ok });
  };
  model.on("msg:custom", onMsg);
  return () => { mo.disconnect(); model.off("msg:custom", onMsg); };
}
export default { render };
"""


class PageBridge(anywidget.AnyWidget):
    """Invisible: keyboard access to accordion headers, the page address, the clipboard."""

    _esm = _ESM
    #: the page's address without its query (``origin + pathname``), set by the page
    base_url = traitlets.Unicode("").tag(sync=True)

    def __init__(self, **kw):
        super().__init__(layout=w.Layout(display="none"), **kw)
        self.last_copy: dict | None = None
        self._on_copied: list[Callable[[str, bool], None]] = []
        self.on_msg(self._on_frontend_msg)

    def copy(self, query: str) -> None:
        """Ask the page to copy its own address with ``query`` to the clipboard."""
        self.send({"op": "copy", "query": query})

    def on_copied(self, callback: Callable[[str, bool], None]) -> None:
        """``callback(url, ok)`` once the page has tried to copy."""
        self._on_copied.append(callback)

    def _on_frontend_msg(self, _widget, content, _buffers) -> None:
        if not isinstance(content, dict) or content.get("event") != "copied":
            return
        url = str(content.get("url", ""))[:4000]
        ok = bool(content.get("ok"))
        self.last_copy = {"url": url, "ok": ok}
        for cb in list(self._on_copied):
            try:
                cb(url, ok)
            except Exception:  # noqa: BLE001 - never break the comm
                log.exception("copy handler")
