"""A tiny invisible anywidget for what only the page can do: keyboard access to collapsible boxes and to the tab
bar (the Tab key enters it on the current tab), the page's own address and the clipboard (the "copy link to this
view" button).

* Screen readers: a slider's handle is named by its label (or, without one, by the box before it: "E [J]
  slider"), a menu without a label by its first entry ("paper Fig. 2 presets…"); every message area is a
  ``status`` region (its new text is announced); a toggle button carries ``aria-pressed``.

* Accordion headers ("custom shape", "custom J and ρ", every "About" box) are plain ``div`` elements in
  ipywidgets 8: the Tab key skips them.  The bridge gives every such header ``tabindex=0``, ``role=button`` and
  ``aria-expanded``, and opens/closes it with Enter or Space (a ``MutationObserver`` covers panels built later).
* ``copy(query)`` sends the query string to the page, which writes ``origin + pathname + "?" + query`` to the
  clipboard (``navigator.clipboard``, else a selected text area and ``execCommand("copy")``) and answers with the
  full URL and whether the copy worked (:attr:`PageBridge.last_copy`).
* The page's work kept in the browser (:mod:`.autosave`): ``autosave(view, levels)`` stores the view's link and
  the section's levels (session files) in the browser's ``localStorage``.  The page watches its kernel (the widget
  manager's kernel connection): when the kernel ends or restarts (a server restart, a crash, an operator) or the
  connection is lost for good, a banner says so in plain words at once and offers "reconnect": a new page on the
  saved view, which sends the saved levels to its new kernel (``on_restore``).  A connection that drops for a
  moment is announced too, and the banner goes once it is back.
"""
from __future__ import annotations

from collections.abc import Callable

import anywidget
import ipywidgets as w
import traitlets

from . import i18n
from .common import log
from .i18n import _


def banner_words() -> dict[str, str]:
    """The kernel-lost banner's words in the page's language (the page shows them when the kernel is gone)."""
    return {
        "lost": _("This page has lost its session on the server (it was stopped or restarted), so the controls no "
                  "longer respond. Your view and your trajectories are kept in this browser: “reconnect” opens "
                  "them again in a new session."),
        "gone": _("This page has lost its connection to the server (the server stopped, or the network is down), "
                  "so the controls no longer respond. Your view and your trajectories are kept in this browser: "
                  "“reconnect” opens them again once the server is back."),
        "wait": _("The connection to the server was interrupted; reconnecting… (the controls respond again once "
                  "it is back)"),
        "reconnect": _("reconnect"),
        # a slider without a label of its own, named for a screen reader by the label before it ("E slider")
        "slider": _("{label} slider"),
    }

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

// a page in a language that writes a decimal comma (de, es): the number boxes (ipywidgets' FloatText, an
// <input type=number> that refuses a comma) become text boxes for decimals, and a comma typed in them is read as
// the decimal point before the widget reads the box (capture phase: before the widget's own listeners)
let COMMA = false;

function commaBox(input) {
  if (input.dataset.peComma) return;
  input.dataset.peComma = "1";
  input.type = "text";
  input.setAttribute("inputmode", "decimal");
}

function commaToPoint(ev) {
  const t = ev.target;
  if (!t || !t.dataset || !t.dataset.peComma || typeof t.value !== "string" || t.value.indexOf(",") < 0) return;
  const at = t.selectionStart;
  t.value = t.value.replace(/,/g, ".");
  try { t.setSelectionRange(at, at); } catch (e) { /* not a text box */ }
}

function landmark(app) {
  if (app && !app.getAttribute("role")) {
    app.setAttribute("role", "main");
    app.setAttribute("aria-label", "Pendulum Explorer");
  }
}

// each tab's panel is a region named by its tab, with a heading (h2, for a screen reader's eyes only: the tab bar
// shows the title) at its top: a screen reader jumps from tab to tab by heading or by landmark (it found no h2 and
// no region at all)
function panelHeadings(app) {
  if (!app) return;
  const labels = app.querySelectorAll(".pe-tabs .lm-TabBar-tab .lm-TabBar-tabLabel");
  app.querySelectorAll(".pe-tabs .pe-panel").forEach((p, i) => {
    const title = labels[i] && labels[i].textContent.trim();
    if (!title) return;
    if (p.getAttribute("aria-label") !== title) { p.setAttribute("role", "region"); p.setAttribute("aria-label", title); }
    let h = p.querySelector(":scope > h2.pe-panel-heading");
    if (!h) {
      h = document.createElement("h2");
      h.className = "pe-panel-heading pe-sr-only";
      p.prepend(h);
    }
    if (h.textContent !== title) h.textContent = title;
  });
}

function scan(root) {
  // (again on every scan: the bridge's element may not be in the page yet when it renders)
  landmark(root.querySelector(".pe-app"));
  panelHeadings(root.querySelector(".pe-app"));
  // a bare SVG (an icon of a button or of plotly's mode bar, plotly's drawing layers, a 3D scene's overlay, the
  // text-measuring SVG plotly puts in the page's body) says nothing to a screen reader: hidden from it (a figure's
  // words are its accessible name, see plot.js describe)
  root.querySelectorAll(".pe-app svg:not([aria-hidden]):not([role]):not([aria-label]), svg#js-plotly-tester")
    .forEach((s) => s.setAttribute("aria-hidden", "true"));
  root.querySelectorAll(HEADERS).forEach(enable);
  if (COMMA) root.querySelectorAll(".pe-app input[type=number]").forEach(commaBox);
  // a slider's handle is its keyboard control: it gets the slider's label as its name (screen readers said
  // "slider" alone)
  root.querySelectorAll(".widget-slider .noUi-handle:not([aria-label])").forEach((h) => {
    const box = h.closest(".widget-slider");
    const label = box && box.querySelector(".widget-label");
    let text = ((label && label.textContent) || "").trim();
    // a slider without a label of its own (the section's E and μ sliders) is named by the box before it
    // (the E slider sits first in a box of its own with the family band: then the box before that box)
    const prev = !text && box && (box.previousElementSibling
      || (box.parentElement && box.parentElement.previousElementSibling));
    const prevLabel = prev && prev.querySelector(".widget-label");
    if (prevLabel && prevLabel.textContent.trim()) {
      text = word("slider", "{label} slider").replace("{label}", () => prevLabel.textContent.trim());
    }
    if (text) h.setAttribute("aria-label", text);
  });
  // a panel's messages ("trajectory #1: 500 crossings", errors) are announced when they change (screen readers
  // said nothing after a click or a key press)
  root.querySelectorAll(".pe-message:not([role])").forEach((m) => m.setAttribute("role", "status"));
  // a toggle button (presenter view, the equilibria's view, the motion's method) says whether it is on
  root.querySelectorAll("button.widget-toggle-button").forEach((b) => {
    if (b.dataset.pePressed) return;
    b.dataset.pePressed = "1";
    const sync = () => b.setAttribute("aria-pressed", String(b.classList.contains("mod-active")));
    sync();
    new MutationObserver(sync).observe(b, { attributes: true, attributeFilter: ["class"] });
  });
  // a menu without a label, whose first entry says what it holds ("paper Fig. 2 presets…"), is named by it
  root.querySelectorAll(".widget-dropdown select:not([aria-label])").forEach((sel) => {
    const label = sel.parentElement && sel.parentElement.querySelector(".widget-label");
    const first = sel.options && sel.options[0];
    if (!(label && label.textContent.trim()) && first && first.text.trim()) {
      sel.setAttribute("aria-label", first.text.trim());
    }
  });
}

// the Tab key enters a tab bar on its current tab (lumino gave the first one, "Body", whichever was shown); the
// arrow keys then move along the bar as lumino has them
function onFocusIn(ev) {
  const t = ev.target, tab = t && t.closest && t.closest(".lm-TabBar-tab, .p-TabBar-tab");
  if (!tab || !tab.matches(":focus-visible")) return;   // a click focuses (and selects) the tab it is on
  const bar = tab.closest(".lm-TabBar, .p-TabBar");
  if (!bar || (ev.relatedTarget && bar.contains(ev.relatedTarget))) return;   // moving within the bar
  const cur = bar.querySelector(".lm-TabBar-tab.lm-mod-current, .p-TabBar-tab.p-mod-current");
  if (cur && cur !== tab) cur.focus();
}

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

// ---------------------------------------------------------------- the work kept in the browser, the kernel watched
const SAVE_KEY = "pendulum-explorer:autosave:" + window.location.pathname;
const RESTORE_KEY = "pendulum-explorer:restore";

function saved() {
  try { return JSON.parse(window.localStorage.getItem(SAVE_KEY) || "null"); } catch (e) { return null; }
}

// a new page on the view ``q`` (a query string; the page's token kept) that gets the saved levels back
function openView(q, reason) {
  const token = new URLSearchParams(window.location.search).get("token");
  if (token && !/(^|&)token=/.test(q)) q = (q ? q + "&" : "") + "token=" + encodeURIComponent(token);
  try { window.sessionStorage.setItem(RESTORE_KEY, reason); } catch (e) { /* restored from the link only */ }
  window.location.href = window.location.origin + window.location.pathname + (q ? "?" + q : "");
}

function reconnect() {
  const s = saved();
  openView(s && typeof s.view === "string" ? s.view : window.location.search.replace(/^\?/, ""), "reconnect");
}

// no ``lang`` in the link and none from the server (no Accept-Language): the browser's language, if the page has
// it and it is not the one shown, by opening the page again with ``lang=`` (a first view: nothing to keep)
function browserLanguage(model) {
  if (model.get("lang_chosen") || new URLSearchParams(window.location.search).has("lang")) return;
  const have = model.get("languages") || [];
  const want = (navigator.languages && navigator.languages.length ? navigator.languages : [navigator.language])
    .map((l) => String(l || "").toLowerCase().split("-")[0]).find((l) => have.indexOf(l) >= 0);
  if (!want || want === model.get("lang")) return;
  const q = window.location.search.replace(/^\?/, "");
  window.location.replace(window.location.origin + window.location.pathname + "?" + (q ? q + "&" : "") +
                          "lang=" + want);
}

let WORDS = {};
const word = (key, text) => (WORDS && typeof WORDS[key] === "string" && WORDS[key]) || text;

function banner() {
  let b = document.querySelector(".pe-kernel-lost");
  if (b) return b;
  b = document.createElement("div");
  b.className = "pe-kernel-lost";
  b.setAttribute("role", "alert");
  b.style.cssText = "position:fixed;left:0;right:0;top:0;z-index:10000;padding:10px 16px;font:16px sans-serif;" +
    "background:#fff3cd;color:#3d2e00;border-bottom:3px solid #d55e00;display:flex;gap:14px;align-items:center;" +
    "flex-wrap:wrap;box-shadow:0 2px 6px rgba(0,0,0,0.25)";
  const text = document.createElement("span");
  text.className = "pe-kernel-lost-text";
  const btn = document.createElement("button");
  btn.className = "pe-reconnect";
  btn.type = "button";
  btn.textContent = word("reconnect", "reconnect");
  btn.style.cssText = "font:16px sans-serif;padding:4px 14px;cursor:pointer";
  btn.addEventListener("click", reconnect);
  b.append(text, btn);
  document.body.appendChild(b);
  return b;
}

const LOST = "This page has lost its session on the server (it was stopped or restarted), so the controls no " +
  "longer respond. Your view and your trajectories are kept in this browser: “reconnect” opens them again " +
  "in a new session.";
const GONE = "This page has lost its connection to the server (the server stopped, or the network is down), so " +
  "the controls no longer respond. Your view and your trajectories are kept in this browser: “reconnect” opens " +
  "them again once the server is back.";
const WAIT = "The connection to the server was interrupted; reconnecting… (the controls respond again once it " +
  "is back)";

function show(text, canReconnect) {
  const b = banner();
  text = word(text === LOST ? "lost" : text === GONE ? "gone" : "wait", text);
  b.querySelector(".pe-kernel-lost-text").textContent = text;
  b.querySelector(".pe-reconnect").style.display = canReconnect ? "" : "none";
  b.dataset.state = canReconnect ? "lost" : "waiting";
  b.style.display = "flex";
}

function watchKernel(model) {
  const mgr = model.widget_manager;
  const kernel = mgr && mgr.kernel;
  if (!kernel || !kernel.statusChanged || !kernel.connectionStatusChanged) return () => {};
  let lost = false, leaving = false;
  const leave = () => { leaving = true; };
  window.addEventListener("beforeunload", leave);
  window.addEventListener("pagehide", leave);
  const onStatus = (_k, status) => {
    if (leaving) return;
    // a restarted kernel has none of this page's widgets: the page is as lost as with a dead one
    if (status === "dead" || status === "restarting" || status === "autorestarting") { lost = true; show(LOST, true); }
  };
  const onConnection = (_k, status) => {
    if (leaving || lost) return;
    if (status === "disconnected") { lost = true; show(GONE, true); }
    else if (status === "connecting") show(WAIT, false);
    else if (status === "connected") {
      const b = document.querySelector(".pe-kernel-lost");
      if (b) b.style.display = "none";
    }
  };
  kernel.statusChanged.connect(onStatus);
  kernel.connectionStatusChanged.connect(onConnection);
  if (kernel.status === "dead") onStatus(kernel, "dead");
  return () => {
    kernel.statusChanged.disconnect(onStatus);
    kernel.connectionStatusChanged.disconnect(onConnection);
    window.removeEventListener("beforeunload", leave);
    window.removeEventListener("pagehide", leave);
  };
}

function render({ model, el }) {
  el.style.display = "none";
  WORDS = model.get("words") || {};
  // the page's language for screen readers and the browser (hyphenation, spelling)
  if (model.get("lang")) document.documentElement.setAttribute("lang", model.get("lang"));
  COMMA = !!model.get("decimal_comma");
  const COMMA_EVENTS = ["input", "change", "keydown", "keypress"];
  if (COMMA) COMMA_EVENTS.forEach((t) => document.addEventListener(t, commaToPoint, true));
  const root = document.body;
  // the dashboard is the page's main landmark (screen readers jump to it; axe: all content in landmarks)
  landmark(el.closest(".pe-app"));
  scan(root);
  const mo = new MutationObserver(() => scan(root));
  mo.observe(root, { childList: true, subtree: true });
  document.addEventListener("focusin", onFocusIn, true);
  model.set("base_url", window.location.origin + window.location.pathname);
  model.save_changes();
  const unwatch = watchKernel(model);
  let restoring = false;
  try { restoring = window.sessionStorage.getItem(RESTORE_KEY); window.sessionStorage.removeItem(RESTORE_KEY); }
  catch (e) { restoring = null; }
  if (restoring) {
    const s = saved();
    model.send({ event: "restore", levels: s && Array.isArray(s.levels) ? s.levels : [],
                 saved_at: s ? s.saved_at : null, reason: restoring === "lang" ? "lang" : "reconnect" });
  } else {
    browserLanguage(model);
  }
  const onMsg = async (msg) => {
    if (msg && msg.op === "autosave") {
      try {
        const kept = { saved_at: Date.now(), view: msg.view, levels: msg.levels };
        window.localStorage.setItem(SAVE_KEY, JSON.stringify(kept));
        model.send({ event: "autosaved", ok: true });
      } catch (e) {
        model.send({ event: "autosaved", ok: false, error: String(e).slice(0, 200) });
      }
      return;
    }
    if (msg && msg.op === "open") { openView(String(msg.query || ""), "lang"); return; }
    if (!msg || msg.op !== "copy") return;
    const url = window.location.origin + window.location.pathname + (msg.query ? "?" + msg.query : "");
    const ok = await copyText(url);
    model.send({ event: "copied", url: url, ok: ok });
  };
  model.on("msg:custom", onMsg);
  return () => {
    mo.disconnect(); unwatch(); model.off("msg:custom", onMsg);
    document.removeEventListener("focusin", onFocusIn, true);
    COMMA_EVENTS.forEach((t) => document.removeEventListener(t, commaToPoint, true));
  };
}
export default { render };
"""


#: what a page opened by "reconnect" may send back: at most this many levels (the saved levels' limit and the
#: level shown), each a session file of at most this many characters
MAX_RESTORE = 21
MAX_LEVEL_CHARS = 4_000_000


class PageBridge(anywidget.AnyWidget):
    """Invisible: keyboard access to accordion headers, the page address, the clipboard."""

    _esm = _ESM
    #: the page's address without its query (``origin + pathname``), set by the page
    base_url = traitlets.Unicode("").tag(sync=True)
    #: the page's language (:mod:`.i18n`), the languages it has, whether the link or the server chose it (if not,
    #: the page opens itself again in the browser's language when the page has it), whether the number boxes take
    #: a decimal comma, and the banner's words in the page's language
    lang = traitlets.Unicode("en").tag(sync=True)
    languages = traitlets.List(traitlets.Unicode(), default_value=["en"]).tag(sync=True)
    lang_chosen = traitlets.Bool(True).tag(sync=True)
    decimal_comma = traitlets.Bool(False).tag(sync=True)
    words = traitlets.Dict().tag(sync=True)

    def __init__(self, lang_chosen: bool = True, **kw):
        super().__init__(layout=w.Layout(display="none"), lang=i18n.language(), languages=list(i18n.LANGUAGES),
                         lang_chosen=lang_chosen, decimal_comma=i18n.language() in i18n.DECIMAL_COMMA,
                         words=banner_words(), **kw)
        #: why a page sent back its saved levels: "reconnect" (its kernel ended) or "lang" (the language menu)
        self.restore_reason = ""
        self.last_copy: dict | None = None
        #: the page's answer to the last :meth:`autosave` ({"ok": bool[, "error": str]}), None before one
        self.last_autosave: dict | None = None
        self._on_copied: list[Callable[[str, bool], None]] = []
        self._on_restore: list[Callable[[list[str]], None]] = []
        self.on_msg(self._on_frontend_msg)

    def autosave(self, view: str, levels: list[str]) -> None:
        """Ask the page to keep the view's query string and the section's levels (session files) in the browser."""
        self.send({"op": "autosave", "view": view, "levels": levels})

    def on_restore(self, callback: Callable[[list[str]], None]) -> None:
        """``callback(levels)`` when a page opened by "reconnect" sends the levels it kept (session files, oldest
        first; at most :data:`MAX_RESTORE` strings of at most :data:`MAX_LEVEL_CHARS` characters each)."""
        self._on_restore.append(callback)

    def open_view(self, query: str) -> None:
        """Ask the page to open itself again on ``query`` (the language menu), its saved levels sent back."""
        self.send({"op": "open", "query": query})

    def copy(self, query: str) -> None:
        """Ask the page to copy its own address with ``query`` to the clipboard."""
        self.send({"op": "copy", "query": query})

    def on_copied(self, callback: Callable[[str, bool], None]) -> None:
        """``callback(url, ok)`` once the page has tried to copy."""
        self._on_copied.append(callback)

    def _on_frontend_msg(self, _widget, content, _buffers) -> None:
        if not isinstance(content, dict):
            return
        if content.get("event") == "autosaved":
            self.last_autosave = {"ok": bool(content.get("ok")), "error": str(content.get("error", ""))[:200]}
            return
        if content.get("event") == "restore":
            self.restore_reason = "lang" if content.get("reason") == "lang" else "reconnect"
            levels = content.get("levels")
            levels = [x for x in levels[:MAX_RESTORE] if isinstance(x, str) and len(x) <= MAX_LEVEL_CHARS] \
                if isinstance(levels, list) else []
            for restore in list(self._on_restore):
                try:
                    restore(levels)
                except Exception:  # noqa: BLE001 - never break the comm
                    log.exception("restore handler")
            return
        if content.get("event") != "copied":
            return
        url = str(content.get("url", ""))[:4000]
        ok = bool(content.get("ok"))
        self.last_copy = {"url": url, "ok": ok}
        for on_copy in list(self._on_copied):
            try:
                on_copy(url, ok)
            except Exception:  # noqa: BLE001 - never break the comm
                log.exception("copy handler")
