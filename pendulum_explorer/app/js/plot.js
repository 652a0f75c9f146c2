// PlotlyView's front end: a plotly figure drawn with the page's plotly.js and updated in place (see plotview.py).
import { concat, decode, misfit, whenPlotly } from "./decode.js";
import { HOOKS, INPUT_FIRST_MS, inputAt, logged, pressed } from "./hooks.js";
import { MotionPlayer } from "./motion.js";
import { StreamLayer } from "./stream.js";

// streamed updates are paced: after a redraw that took d ms the next waits PACE * d ms
const PACE = 2;
// streamed points (``extend`` of a scattergl marker trace) are painted at once on a 2D canvas over the plot
// (StreamLayer) and handed to Plotly in one redraw when Python says the stream has ended (``settle``), or when it
// has been quiet for STREAM_QUIET_MS (the kernel sends a growing trace about once a second)
const STREAM_QUIET_MS = 3000;
// a touch tap's emulated mouse click follows the tap within this time, at its position
const DOUBLE_MS = 800;
// a mouse press held longer than this is not a click; Plotly's click is awaited this long after the release
const CLICK_HOLD_MS = 1500, CLICK_WAIT_MS = 250;

// the meta of a trace drawn only once its figure has been shown (see draw)
const AFTER_PAINT = "pe-after-paint";
// a figure narrower than this [px] (a phone; a tablet's side column) has its legend below the plot (see fitNarrow)
const NARROW_PX = 560;

// the layout of a figure drawn ``width`` px wide: when narrow, a legend left at plotly's default place (right of
// the plot: half the width of the energy-momentum diagram's 300 px, its family labels drawn over it) goes below
// the plot in rows, the figure taller by their height.  A copy; ``layout`` itself is not changed
export function fitNarrow(layout, data, width) {
  const lg = layout.legend || {};
  if (!(width > 0 && width < NARROW_PX) || layout.showlegend === false || lg.orientation !== undefined ||
      lg.x !== undefined || lg.y !== undefined || layout.scene) return layout;
  const groups = new Set();
  for (const tr of data) {
    if (tr.showlegend === false || tr.visible === false || (tr.showlegend === undefined && !tr.name)) continue;
    groups.add(tr.legendgroup ? "g:" + tr.legendgroup : "t:" + groups.size);
  }
  if (groups.size < 2 && layout.showlegend !== true) return layout;
  // in a grid of entries of equal width (the longest name, "elliptic-elliptic", is ~95 px at 12 px) as wide as the
  // plot area (plotly's limit for a horizontal legend)
  const m = layout.margin || {};
  const avail = width - (m.l === undefined ? 80 : m.l) - (m.r === undefined ? 80 : m.r);
  const perRow = Math.max(1, Math.floor(avail / 140));
  const rows = Math.ceil(groups.size / perRow);
  const extra = 20 * rows + 6;
  return Object.assign({}, layout, {
    height: (layout.height || 450) + extra,
    margin: Object.assign({}, m, { b: (m.b === undefined ? 80 : m.b) + extra }),
    legend: Object.assign({}, lg, {
      orientation: "h", traceorder: "normal", x: 0, xanchor: "left", xref: "container", y: 0, yanchor: "bottom",
      yref: "container", entrywidth: Math.floor(avail / perRow) - 48, entrywidthmode: "pixels" }),
  });
}

// the room [px] for plotly's mode bar on a touch screen (its buttons larger there, shell_style.py: the bar is
// 29 px high), and the test whether the page has one (pointer: coarse, as the style sheet asks)
export const MODEBAR_TOUCH_PX = 34;
const coarse = () => !!(window.matchMedia && window.matchMedia("(pointer: coarse)").matches);

// the layout of a figure on a touch screen, where plotly shows its mode bar all the time (no hover) with 44 px
// buttons: over the figure's title and the first subplot's title (German "Fehler der Erhaltungsgröße").  The top
// margin grows by the mode bar's height (a fixed-height figure grows with it) and the title hangs below the mode
// bar, so the mode bar has a strip of its own.  A copy; ``layout`` itself is not changed
export function fitTouch(layout, config, touch = coarse()) {
  if (!touch || (config && config.displayModeBar === false)) return layout;
  const m = layout.margin || {};
  const out = Object.assign({}, layout, {
    margin: Object.assign({}, m, { t: (m.t === undefined ? 100 : m.t) + MODEBAR_TOUCH_PX }) });
  if (layout.height) out.height = layout.height + MODEBAR_TOUCH_PX;
  const t = layout.title;
  if (t && (typeof t === "string" || t.text) && (typeof t === "string" || t.yref === undefined)) {
    const title = typeof t === "string" ? { text: t } : t;
    // (plotly hangs a top-anchored title about one font size above its pad: its first line's ascent)
    const size = (title.font && title.font.size) || 1.4 * ((layout.font && layout.font.size) || 12);
    out.title = Object.assign({}, title, { yref: "container", y: 1, yanchor: "top",
      pad: Object.assign({}, title.pad || {}, { t: MODEBAR_TOUCH_PX + 4 + Math.ceil(size) }) });
  }
  return out;
}

// the layout of a figure drawn ``width`` px wide whose title is wider than the figure (a phone, a tablet's side
// column: "Poincaré-Schnitt bei E = 0 J, μ = 0,2518 kg m²/s (in den weißen Bereich klicken)" was cut at 452 px):
// the title broken into lines at spaces (measured in its font), the top margin (and a fixed height) grown by the
// lines added.  A copy; ``layout`` itself is not changed
export function wrapTitle(layout, width, measure = textWidth) {
  const t = layout.title;
  const text = t && (typeof t === "string" ? t : t.text);
  if (!text || !(width > 0)) return layout;
  const font = (t.font && t.font.size) ? t.font : {};
  const base = layout.font || {};
  const size = font.size || 1.4 * (base.size || 12);
  const family = font.family || base.family || '"Open Sans", verdana, arial, sans-serif';
  const x = typeof t === "object" && t.x !== undefined ? t.x : 0.5;
  const avail = (x < 0.5 ? width * (1 - x) : x > 0.5 ? width * x : width) - 16;
  const plain = (s) => s.replace(/<[^>]*>/g, "");
  const lines = [];
  for (const line of String(text).split(/<br\s*\/?>/i)) {
    let cur = "";
    for (const word of line.split(/(?<=\s)(?=\S)/)) {   // words with their trailing spaces
      const next = cur + word;
      if (cur && measure(plain(next).trimEnd(), size, family) > avail) { lines.push(cur.trimEnd()); cur = word; }
      else cur = next;
    }
    lines.push(cur.trimEnd());
  }
  const added = lines.length - String(text).split(/<br\s*\/?>/i).length;
  if (added <= 0) return layout;
  const m = layout.margin || {};
  const grow = Math.ceil(added * 1.3 * size);
  const out = Object.assign({}, layout, {
    title: Object.assign({}, typeof t === "string" ? {} : t, { text: lines.join("<br>") }),
    margin: Object.assign({}, m, { t: (m.t === undefined ? 100 : m.t) + grow }) });
  if (layout.height) out.height = layout.height + grow;
  return out;
}

function titleText(layout) {
  const t = layout && layout.title;
  return t ? String(typeof t === "string" ? t : t.text || "") : "";
}

let measureCtx = null;
function textWidth(text, size, family) {
  measureCtx = measureCtx || document.createElement("canvas").getContext("2d");
  measureCtx.font = `${size}px ${family}`;
  return measureCtx.measureText(text).width;
}

// the data coordinates (x, y) of a pointer event on the subplot of the clicked point ``p``, or null (outside the
// plot area, no position, not a cartesian subplot)
function pointerData(gd, p, e) {
  const fl = gd._fullLayout;
  const xa = (p && p.xaxis) || (fl && fl.xaxis), ya = (p && p.yaxis) || (fl && fl.yaxis);
  const svg = gd.querySelector(".main-svg");
  if (!e || !xa || !ya || !svg || typeof xa.p2c !== "function" || typeof ya.p2c !== "function") return null;
  let cx = e.clientX, cy = e.clientY;
  const touch = e.changedTouches && e.changedTouches[0];
  if (!Number.isFinite(cx) && touch) { cx = touch.clientX; cy = touch.clientY; }
  if (!Number.isFinite(cx) || !Number.isFinite(cy)) return null;
  const box = svg.getBoundingClientRect();
  const px = cx - box.left - xa._offset, py = cy - box.top - ya._offset;
  if (!(px >= -0.5 && px <= xa._length + 0.5 && py >= -0.5 && py <= ya._length + 0.5)) return null;
  const x = xa.p2c(px), y = ya.p2c(py);
  return Number.isFinite(x) && Number.isFinite(y) ? [x, y] : null;
}

// One figure of one widget: draws the model's figure, applies Python's incremental updates (coalesced and paced),
// paints streamed points on a StreamLayer, sends clicks (in data coordinates) and its first draw to Python.
// A MotionView's model (one with an "animation") also gets a MotionPlayer beside the figure.
export class PlotView {
  constructor(model, el) {
    this.model = model;
    this.el = el;
    const gd = (this.gd = document.createElement("div"));
    gd.className = "pe-plotly";
    gd.style.width = "100%";
    this.player = model.get("animation") !== undefined ? new MotionPlayer(model, el) : null;
    (this.player ? this.player.plotHost : el).appendChild(gd);
    if (this.player) this.player.attachPlot(gd, window.Plotly || null);
    this.Plotly = window.Plotly || null;
    this.stale = true;        // the figure in the model differs from what gd shows
    this.busy = false;
    this.drawn = false;
    this.lastWidth = 0;
    this.disposed = false;
    this.layer = null;        // the StreamLayer (created by the first stream)
    this.streamAt = -1e9;     // when the last streamed points were painted
    this.pending = null;      // restyles not drawn yet ({index: {property: value}})
    this.flushing = false;    // a flush scheduled
    this.nextFlush = 0;       // the earliest time of the next one
    this.added = false;       // traces added to the model while streaming, not drawn yet (the next flush draws all)
    gd.__peStream = () => ({ painted: this.layer ? this.layer.painted : 0, held: this.layer ? this.layer.from.size : 0 });
    // the views with a redraw to come (updates held back, streamed points not drawn by Plotly yet)
    this.waiting = () => this.visible() && !!(this.pending || this.added || this.busy || (this.layer && this.layer.active));
    HOOKS.views.add(this.waiting);
    this.onChange = () => { this.stale = true; this.draw(); };
    this.onMsg = (msg) => this.message(msg);
    this.onDescription = () => this.describe();
    model.on("change:figure", this.onChange);
    model.on("change:revision", this.onChange);
    model.on("change:description", this.onDescription);
    model.on("msg:custom", this.onMsg);
    this.ro = new ResizeObserver(() => this.resized());
    this.ro.observe(el);
    this.describe();
    this.draw();
  }

  // the figure's text alternative (the model's ``description``: its layout.meta.description, kept current by
  // Python as the figure changes) is the graph's accessible name, on role "figure" (plotly's SVG says nothing to
  // a screen reader; not "img": its children would be hidden, and the mode bar's buttons are keyboard controls)
  describe() {
    const fig = this.model.get("figure") || {};
    const meta = (fig.layout && fig.layout.meta) || {};
    const title = fig.layout && fig.layout.title;
    const text = String(this.model.get("description") || meta.description ||
                        (title && (title.text || (typeof title === "string" ? title : ""))) || "").trim();
    // plotly's SVG layers (axis ticks, legend, titles read out one after another) are left out of the
    // accessibility tree of a described figure; its mode bar stays
    for (const svg of this.gd.querySelectorAll(".main-svg")) {
      if (text) svg.setAttribute("aria-hidden", "true"); else svg.removeAttribute("aria-hidden");
    }
    if (text) {
      this.gd.setAttribute("role", "figure");
      this.gd.setAttribute("aria-label", text.replace(/<br\s*\/?>/gi, " ").replace(/<[^>]*>/g, ""));
    } else {
      this.gd.removeAttribute("role");
      this.gd.removeAttribute("aria-label");
    }
  }

  visible() { return this.el.isConnected && this.el.offsetWidth > 0 && this.el.getClientRects().length > 0; }

  async draw() {
    if (this.disposed || this.busy || !this.stale || !this.visible()) return;
    this.busy = true;
    this.stale = false;
    const gd = this.gd;
    try {
      if (!this.Plotly) this.Plotly = await whenPlotly(120000);
      const fig = decode(this.model.get("figure") || {});
      if (!fig.data && !fig.layout) return;   // nothing to show yet (no empty axes)
      const width = this.el.clientWidth;
      const layout = fitTouch(wrapTitle(this.player ? fig.layout || {} : fitNarrow(fig.layout || {}, fig.data || [],
                                                                                     width), width), fig.config);
      this.narrowAt = width < NARROW_PX;   // the width class drawn (resized draws again across it)
      this.titleDrawn = titleText(layout);  // the title's lines drawn (resized draws again when they change)
      const obj = { data: fig.data || [], layout: layout, config: fig.config || {} };
      if (fig.frames) obj.frames = fig.frames;   // react replaces the animation frames too
      // a trace marked AFTER_PAINT (a warm-up: WebGL shaders compiled before the first click needs them) is
      // hidden in the figure's first draw and drawn right after the page has shown it (the tab opens as fast)
      const later = this.drawn ? [] : obj.data.filter((tr) => tr.meta === AFTER_PAINT && tr.visible !== false);
      for (const tr of later) tr.visible = false;
      const t0 = performance.now();
      await this.Plotly.react(gd, obj);
      logged("react", gd, t0);
      if (later.length) requestAnimationFrame(() => setTimeout(() => { this.stale = true; this.draw(); }, 0));
      // drawn at another width than its box (the box got its width while the draw was under way, or had none
      // yet: plotly's default 700 px): fit it now
      if (misfit(gd)) await this.Plotly.Plots.resize(gd);
      if (this.layer) this.layer.reset();   // the figure drawn holds every point streamed so far
      if (!this.drawn) { this.drawn = true; this.bindEvents(); this.model.send({ event: "drawn" }); }
      if (this.player) { this.player.Plotly = this.Plotly; this.player.plotDrawn(); }
      this.lastWidth = this.el.offsetWidth;
      gd.dataset.peRevision = String(this.model.get("revision"));
      this.describe();
    } catch (err) {
      console.error("PlotlyView", err);
      // in the page's language (PlotlyView.words); English when absent
      gd.textContent = ((this.model.get("words") || {}).draw_error || "could not draw the figure") + ": " + err;
    } finally {
      this.busy = false;
    }
    if (this.stale) this.draw();
  }

  bindEvents() {
    const gd = this.gd, model = this.model;
    // a new size or layout moves the points: the layer paints them again at the new geometry
    gd.on("plotly_afterplot", () => { if (this.layer && this.layer.active) this.layer.paint(model.get("figure").data); });
    let lastPress = -1, lastAt = -1e9, lastXY = [NaN, NaN];
    // a finger never leaves the chart: the hover label of a tap (and of the mouse events the browser emulates
    // after it) would stay over the chart.  Hover labels show while a finger is down, not after
    const touchUnhover = () => {
      if (HOOKS.pressType === "touch" && !pressed() && this.Plotly && this.Plotly.Fx) {
        setTimeout(() => this.Plotly.Fx.unhover(gd), 0);
      }
    };
    gd.on("plotly_hover", touchUnhover);
    this.bindPinch();
    gd.on("plotly_click", (ev) => {
      if (!model.get("clicks") || !ev || !ev.points || !ev.points.length) return;
      // two fingers zoom or pan (bindPinch): the click plotly makes of their touch launches nothing
      if (performance.now() - this.gestureAt < DOUBLE_MS) { touchUnhover(); return; }
      // one click per press: a touch tap reaches Plotly twice (the touch, then the mouse click the browser
      // emulates after it), and launched two trajectories
      // (the same press, within DOUBLE_MS and 4 px: a press whose pointerdown the page did not see, e.g. on a
      // layer being redrawn, is a new click)
      const press = HOOKS.pressSeq, e = ev.event || {}, now = performance.now();
      const near = Math.abs((e.clientX ?? NaN) - lastXY[0]) <= 4 && Math.abs((e.clientY ?? NaN) - lastXY[1]) <= 4;
      if (press === lastPress && now - lastAt < DOUBLE_MS && near) { touchUnhover(); return; }
      lastPress = press; lastAt = now; lastXY = [e.clientX, e.clientY];
      const p = ev.points[0];
      // the pointer's own position in data coordinates, not the data of the point Plotly hovers (a cell of the
      // background grid, or a crossing within the hover radius: a click continued an old trajectory)
      const at = pointerData(gd, p, ev.event);
      model.send({ event: "click", x: at ? at[0] : p.x, y: at ? at[1] : p.y, curve: p.curveNumber,
                   point: p.pointNumber, pointer: !!at });
      touchUnhover();
    });
    // a mouse press and release in one place on a 2D chart is a click even when Plotly makes none of it (its
    // drag layer was replaced by a redraw between the press and the release, as while a fill streams: 1 of 5
    // clicks during a fill launched nothing in a CI run); Plotly's own click, if it comes, is then the same press
    let down = null;
    gd.addEventListener("pointerdown", (e) => {
      down = e.pointerType === "mouse" ? { seq: HOOKS.pressSeq, x: e.clientX, y: e.clientY, t: performance.now() }
        : null;
    }, { capture: true });
    window.addEventListener("pointerup", (e) => {
      const d = down;
      down = null;
      if (!d || e.pointerType !== "mouse" || Math.abs(e.clientX - d.x) > 4 || Math.abs(e.clientY - d.y) > 4
          || performance.now() - d.t > CLICK_HOLD_MS) return;
      const up = { clientX: e.clientX, clientY: e.clientY };
      setTimeout(() => {
        const fl = gd._fullLayout;
        if (lastPress === d.seq || !model.get("clicks") || !fl || fl.scene) return;   // Plotly's click came
        const at = pointerData(gd, null, up);
        if (!at) return;
        lastPress = d.seq; lastAt = performance.now(); lastXY = [up.clientX, up.clientY];
        model.send({ event: "click", x: at[0], y: at[1], curve: null, point: null, pointer: true });
      }, CLICK_WAIT_MS);
    }, { capture: true });
  }

  // two fingers on a 2D chart: pinch zooms it about the fingers' midpoint, moving them pans it (a one-finger drag
  // scrolls the page: the chart fills a phone's width).  The axes' ranges change in the page only (a redraw from
  // Python starts from the figure's own ranges)
  bindPinch() {
    const gd = this.gd;
    this.gestureAt = -1e9;
    let g = null, frame = 0, want = null;
    const two = (ev) => [0, 1].map((i) => [ev.touches[i].clientX, ev.touches[i].clientY]);
    const apply = () => {
      frame = 0;
      if (!want || !this.Plotly) return;
      const upd = want;
      want = null;
      this.Plotly.relayout(gd, upd).catch((err) => console.error("PlotlyView pinch", err));
    };
    const onStart = (ev) => {
      const fl = gd._fullLayout;
      if (ev.touches.length < 2 || !fl || !fl.xaxis || !fl.yaxis || fl.scene || !fl.xaxis.range) return;
      ev.preventDefault();
      this.gestureAt = performance.now();
      const [a, b] = two(ev), box = gd.getBoundingClientRect();
      g = { a0: a, b0: b, x: fl.xaxis.range.slice(), y: fl.yaxis.range.slice(),
            left: box.left + fl.xaxis._offset, top: box.top + fl.yaxis._offset,
            w: fl.xaxis._length, h: fl.yaxis._length };
    };
    const onMove = (ev) => {
      if (!g || ev.touches.length < 2) return;
      ev.preventDefault();
      this.gestureAt = performance.now();
      const [a, b] = two(ev);
      const d0 = Math.hypot(g.a0[0] - g.b0[0], g.a0[1] - g.b0[1]), d = Math.hypot(a[0] - b[0], a[1] - b[1]);
      const s = Math.min(20, Math.max(0.05, d0 / Math.max(d, 1)));   // > 1: fingers closer, zoom out
      const m0 = [(g.a0[0] + g.b0[0]) / 2, (g.a0[1] + g.b0[1]) / 2], m = [(a[0] + b[0]) / 2, (a[1] + b[1]) / 2];
      // the data point under the fingers' first midpoint stays under their midpoint; the spans scale by s
      const fx0 = (m0[0] - g.left) / g.w, fx = (m[0] - g.left) / g.w;
      const fy0 = 1 - (m0[1] - g.top) / g.h, fy = 1 - (m[1] - g.top) / g.h;
      const px = g.x[0] + fx0 * (g.x[1] - g.x[0]), py = g.y[0] + fy0 * (g.y[1] - g.y[0]);
      const sx = (g.x[1] - g.x[0]) * s, sy = (g.y[1] - g.y[0]) * s;
      want = { "xaxis.range": [px - fx * sx, px - fx * sx + sx], "yaxis.range": [py - fy * sy, py - fy * sy + sy] };
      if (!frame) frame = requestAnimationFrame(apply);
    };
    const onEnd = (ev) => {
      if (!g) return;
      this.gestureAt = performance.now();
      if (ev.touches.length < 2) g = null;
    };
    gd.addEventListener("touchstart", onStart, { capture: true, passive: false });
    gd.addEventListener("touchmove", onMove, { capture: true, passive: false });
    gd.addEventListener("touchend", onEnd, { capture: true, passive: true });
    gd.addEventListener("touchcancel", onEnd, { capture: true, passive: true });
  }

  message(msg) {
    if (!msg || !msg.op) return;
    if (msg.op === "settle") {   // the stream has ended: Plotly draws its points now (hover on them)
      this.streamAt = -1e9;
      requestAnimationFrame(() => this.flush());
      return;
    }
    if (msg.update) msg.update = decode(msg.update);
    if (msg.traces) msg.traces = decode(msg.traces);
    const fig = this.model.get("figure");
    if (!fig || !fig.data) return;
    if (msg.op === "restyle" || msg.op === "extend") { this.update(fig, msg); return; }
    if (msg.op === "add_traces") {
      fig.data.push(...msg.traces);
      if (this.layer && this.layer.active) { this.added = true; this.schedule(); return; }   // drawn with the stream
    } else if (msg.op === "delete_traces") {
      const drop = new Set(msg.indices);
      fig.data = fig.data.filter((_, i) => !drop.has(i));
    }
    if (this.pending || this.added || (this.layer && this.layer.active)) {   // indices shift: draw the copy whole
      this.pending = null; this.added = false; this.stale = true;
    }
    if (!this.drawn || this.busy || this.stale || !this.visible()) { this.stale = true; this.draw(); return; }
    const gd = this.gd;
    let p;
    const t0 = performance.now();
    if (msg.op === "add_traces") p = this.Plotly.addTraces(gd, msg.traces);
    else if (msg.op === "delete_traces") p = this.Plotly.deleteTraces(gd, msg.indices);
    logged(msg.op, gd, t0);
    gd.dataset.peRevision = String(this.model.get("revision")) + "+" + msg.op;
    if (p && p.catch) p.catch((err) => { console.error("PlotlyView", err); this.stale = true; this.draw(); });
  }

  // keep the model's copy of the figure current (a redraw from it shows every update), paint streamed points
  update(fig, msg) {
    const tr = fig.data[msg.index];
    if (!tr) return;
    const n0 = tr.x && tr.x.length !== undefined ? tr.x.length : 0;
    if (msg.op === "restyle") Object.assign(tr, msg.update);
    else for (const k of Object.keys(msg.update)) tr[k] = concat(tr[k], msg.update[k]);
    if (msg.op === "extend" && this.drawn && !this.busy && !this.stale && this.visible() && StreamLayer.paintable(tr)) {
      // painted now, drawn by Plotly when the stream is quiet (see StreamLayer)
      const t0 = performance.now();
      this.layer = this.layer || new StreamLayer(this.gd);
      this.layer.add(msg.index, n0);
      const n = this.layer.paint(fig.data);
      logged("stream " + n, this.gd, t0);
      this.streamAt = performance.now();
    }
    // coalesced: one Plotly.restyle for all the traces updated since the last one, paced (see flush). A
    // scattergl redraw repaints every trace; one per message fell behind a fill (one message per trajectory),
    // and the page then answered clicks and showed widget updates (cancel) tens of seconds late
    this.pending = this.pending || {};
    const upd = this.pending[msg.index] = this.pending[msg.index] || {};
    for (const k of Object.keys(msg.update)) upd[k] = tr[k];   // extend: the whole array, appended to
    this.schedule();
  }

  schedule() {
    if (this.flushing) return;
    this.flushing = true;
    const wait = Math.max(this.nextFlush, inputAt() + INPUT_FIRST_MS) - performance.now();
    if (wait > 0) setTimeout(() => requestAnimationFrame(() => this.flush()), wait);
    else requestAnimationFrame(() => this.flush());
  }

  flush() {
    this.flushing = false;
    if (!this.pending && !this.added) return;
    if (performance.now() < inputAt() + INPUT_FIRST_MS) { this.schedule(); return; }   // a click came meanwhile
    const layer = this.layer;
    const quiet = this.streamAt + STREAM_QUIET_MS - performance.now();
    if (quiet > 0 && layer && layer.active) { this.flushing = true; setTimeout(() => this.flush(), quiet); return; }
    if (pressed()) { this.flushing = true; setTimeout(() => this.flush(), 50); return; }   // a click under way
    const upd = this.pending;
    this.pending = null;
    if (this.added || !this.drawn || this.busy || this.stale || !this.visible()) {
      this.added = false; this.stale = true; this.draw(); return;
    }
    const idx = Object.keys(upd).map(Number);
    const keys = Array.from(new Set(idx.flatMap((i) => Object.keys(upd[i]))));
    const fig = this.model.get("figure");
    const u = {};
    // one restyle for every trace: a property not updated on a trace is given its current value (no change)
    for (const k of keys) u[k] = idx.map((i) => (k in upd[i] ? upd[i][k] : fig.data[i][k]));
    const upto = {};
    for (const i of idx) if ("x" in upd[i]) upto[i] = upd[i].x.length;
    const t0 = performance.now();
    const p = this.Plotly.restyle(this.gd, u, idx);
    const cost = performance.now() - t0;
    if (layer && layer.active) {   // Plotly draws these points now: off the layer (in the same frame)
      layer.handed(upto);
      layer.paint(fig.data);
    }
    logged("restyle " + keys.join(","), this.gd, t0);
    // paced: the page stays free at least PACE times as long as it spent drawing, so that clicks, the kernel's
    // answers and the other widgets are handled between two redraws even when a redraw takes a second
    this.nextFlush = performance.now() + PACE * cost;
    this.gd.dataset.peRevision = String(this.model.get("revision")) + "+restyle";
    if (p && p.catch) p.catch((err) => { console.error("PlotlyView", err); this.stale = true; this.draw(); });
  }

  resized() {
    if (!this.visible()) return;
    if (this.stale) { this.draw(); return; }
    // across NARROW_PX the legend moves (fitNarrow): drawn again
    if (this.drawn && !this.player && !this.busy && (this.el.clientWidth < NARROW_PX) !== this.narrowAt) {
      this.stale = true; this.draw(); return;
    }
    // at another width the title breaks into other lines (wrapTitle): drawn again
    const fl = (this.model.get("figure") || {}).layout;
    if (this.drawn && !this.busy && fl && fl.title &&
        titleText(wrapTitle(fl, this.el.clientWidth)) !== this.titleDrawn) {
      this.stale = true; this.draw(); return;
    }
    if (this.drawn && !this.busy && Math.abs(this.el.offsetWidth - this.lastWidth) > 1) {
      this.lastWidth = this.el.offsetWidth;
      this.Plotly.Plots.resize(this.gd);
    }
  }

  dispose() {
    this.disposed = true;
    HOOKS.views.delete(this.waiting);
    this.ro.disconnect();
    if (this.player) this.player.dispose();
    if (this.layer) this.layer.dispose();
    this.model.off("change:figure", this.onChange);
    this.model.off("change:revision", this.onChange);
    this.model.off("change:description", this.onDescription);
    this.model.off("msg:custom", this.onMsg);
    if (this.Plotly && this.drawn) this.Plotly.purge(this.gd);
  }
}
