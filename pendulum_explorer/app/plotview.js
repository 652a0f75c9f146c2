// PlotlyView's front end (anywidget module): see plotview.py for what it does and why.
// plotly.py encodes numpy arrays as {dtype, bdata[, shape]}: decode them into typed arrays (rows for 2D), as
// plotly's own widget does, so that gd.data holds arrays
const DTYPES = { f8: Float64Array, f4: Float32Array, i1: Int8Array, u1: Uint8Array, u1c: Uint8ClampedArray,
                 i2: Int16Array, u2: Uint16Array, i4: Int32Array, u4: Uint32Array };
function decodeSpec(v) {
  const T = DTYPES[v.dtype];
  if (!T) return v;
  const bin = atob(v.bdata);
  const bytes = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
  const arr = new T(bytes.buffer);
  if (v.shape === undefined || v.shape === null) return arr;
  const shape = String(v.shape).split(",").map((x) => parseInt(x, 10));
  if (shape.length < 2) return arr;
  if (shape.length > 2) return v;
  const rows = [];
  for (let i = 0; i < shape[0]; i++) rows.push(arr.subarray(i * shape[1], (i + 1) * shape[1]));
  return rows;
}
function decode(v) {
  if (Array.isArray(v)) return v.map(decode);
  if (v && typeof v === "object" && !ArrayBuffer.isView(v)) {
    if (typeof v.bdata === "string" && typeof v.dtype === "string") return decodeSpec(v);
    const out = {};
    for (const k of Object.keys(v)) out[k] = decode(v[k]);
    return out;
  }
  return v;
}

function whenPlotly(timeoutMs) {
  return new Promise((resolve, reject) => {
    const t0 = Date.now();
    const tick = () => {
      if (window.Plotly && window.Plotly.react) { resolve(window.Plotly); return; }
      if (Date.now() - t0 > timeoutMs) { reject(new Error("plotly.js was not loaded by the page")); return; }
      setTimeout(tick, 30);
    };
    tick();
  });
}

// what the page spent drawing (for the browser tests and for anyone profiling): the last 200 Plotly calls of
// every view, [start ms (performance.now), duration ms, what, number of traces]
const LOG = (window.__pePlotLog = window.__pePlotLog || []);
function logged(what, gd, t0) {
  LOG.push([Math.round(t0), Math.round(performance.now() - t0), what, gd.data ? gd.data.length : 0]);
  if (LOG.length > 200) LOG.splice(0, LOG.length - 200);
}

// streamed updates are paced: after a redraw that took d ms the next waits PACE * d ms
const PACE = 2;
// the user's input goes first: after a pointer or key press outside a figure (a button such as "cancel", a box),
// streamed chart updates wait INPUT_FIRST_MS, so that the kernel's answer (a message, the progress bar hidden) is
// shown before the next redraw instead of queueing behind it
const INPUT_FIRST_MS = 400;
if (!window.__peInputHook) {
  window.__peInputHook = true;
  window.__peInputAt = -1e9;
  window.__pePressAt = -1e9;   // a button held down on a chart since then (-1e9: none)
  window.__pePressSeq = 0;     // pointer presses on charts so far (a chart takes one click per press)
  const onInput = (ev) => {
    const t = ev.target;
    if (t && t.closest && t.closest(".pe-plotly")) {   // a click on a chart wants its own update at once...
      if (ev.type === "pointerdown") {
        window.__pePressAt = performance.now(); window.__pePressSeq += 1; window.__pePressType = ev.pointerType;
      }
      return;
    }
    window.__peInputAt = performance.now();
  };
  const onRelease = () => { window.__pePressAt = -1e9; };
  document.addEventListener("pointerdown", onInput, { capture: true, passive: true });
  document.addEventListener("keydown", onInput, { capture: true, passive: true });
  document.addEventListener("pointerup", onRelease, { capture: true, passive: true });
  document.addEventListener("pointercancel", onRelease, { capture: true, passive: true });
}
const inputAt = () => window.__peInputAt;
// ...but not a redraw while its button is down: Plotly rebuilds the layer under the pointer and the click is
// lost.  Plotly redraws wait while a button is held on a chart, at most PRESS_MAX_MS (a release outside the
// window may never be seen)
const PRESS_MAX_MS = 2000;
const pressed = () => performance.now() - window.__pePressAt < PRESS_MAX_MS;
// streamed points (``extend`` of a scattergl marker trace) are painted at once on a 2D canvas over the plot
// (StreamLayer) and handed to Plotly in one redraw when Python says the stream has ended (``settle``), or when it
// has been quiet for STREAM_QUIET_MS (the kernel sends a growing trace about once a second)
const STREAM_QUIET_MS = 3000;

function concat(a, b) {                 // arrays (plain or typed) end to end, as a Float64Array when typed
  if (!a || !a.length) return b;
  if (!ArrayBuffer.isView(a) && !ArrayBuffer.isView(b)) return a.concat(b);
  const out = new Float64Array(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
}

// ------------------------------------------------------------------------------------------------------------
// StreamLayer: the points streamed into scattergl marker traces, painted on a 2D canvas over the plot area until
// Plotly draws them.  In a software-rendered browser (SwiftShader: no GPU driver, CI, many classroom laptops)
// every Plotly redraw of a scattergl chart repaints every point in WebGL and the page's main thread waits for it
// (the compositor reads the canvas back): 3-9 us per point, ~0.6 s for the 200 000 crossings of a fill, once per
// streamed update.  Clicks and the kernel's answers (cancel) waited behind these redraws, and a redraw between a
// click's mouse down and up lost the click.  Painting only the new points on a canvas costs microseconds per
// update; Plotly redraws once when the stream stops (hover on the new points from then on).
// ------------------------------------------------------------------------------------------------------------
class StreamLayer {
  constructor(gd) {
    this.gd = gd;
    this.canvas = document.createElement("canvas");
    this.canvas.className = "pe-stream-layer";
    this.canvas.style.cssText = "position:absolute;left:0;top:0;pointer-events:none";
    this.from = new Map();      // trace index -> first point not drawn by Plotly (the layer paints from there)
    this.shown = new Map();     // trace index -> points painted so far (from .. shown)
    this.sprites = new Map();
    this.geom = "";
    this.painted = 0;           // points painted since the page opened (tests)
  }
  // a trace the layer can paint: scattergl markers of one size and one colour on the x/y axes
  static paintable(tr) {
    const m = tr && tr.marker;
    return !!(tr && tr.type === "scattergl" && String(tr.mode || "markers").startsWith("markers") && m
              && typeof m.size === "number" && typeof m.color === "string" && (tr.xaxis || "x") === "x"
              && (tr.yaxis || "y") === "y" && tr.visible !== false);
  }
  get active() { return this.from.size > 0; }
  // the layer on top of the plot's data, under its hover labels and toolbar; sized to the figure; false when the
  // figure has no x/y axes yet.  A new size, axis range or layout clears it (repaint from ``from``)
  place() {
    const fl = this.gd._fullLayout;
    if (!fl || !fl.xaxis || !fl.yaxis || typeof fl.xaxis.c2p !== "function" || !fl._toppaper) return false;
    const top = fl._toppaper.node();
    if (this.canvas.parentNode !== top.parentNode || this.canvas.nextSibling !== top) top.parentNode.insertBefore(this.canvas, top);
    const dpr = window.devicePixelRatio || 1, xa = fl.xaxis, ya = fl.yaxis;
    const g = [fl.width, fl.height, dpr, xa._offset, xa._length, ya._offset, ya._length, xa.range, ya.range].join();
    if (g !== this.geom) {
      this.geom = g;
      this.canvas.width = Math.round(fl.width * dpr); this.canvas.height = Math.round(fl.height * dpr);
      this.canvas.style.width = fl.width + "px"; this.canvas.style.height = fl.height + "px";
      for (const i of this.shown.keys()) this.shown.set(i, this.from.get(i));   // all to paint again
    }
    return true;
  }
  sprite(colour, size, dpr) {            // a marker (filled circle of diameter ``size`` CSS px) drawn once
    const key = colour + "|" + size + "|" + dpr;
    let sp = this.sprites.get(key);
    if (!sp) {
      sp = document.createElement("canvas");
      const d = Math.max(1, Math.ceil(size * dpr)) + 2;
      sp.width = sp.height = d;
      const c = sp.getContext("2d");
      c.fillStyle = colour;
      c.beginPath(); c.arc(d / 2, d / 2, Math.max(0.5, size * dpr / 2), 0, 2 * Math.PI); c.fill();
      this.sprites.set(key, sp);
    }
    return sp;
  }
  // trace i gets points beyond n0 (the points before n0 are drawn by Plotly or already painted)
  add(i, n0) { if (!this.from.has(i)) { this.from.set(i, n0); this.shown.set(i, n0); } }
  // paint the points of the layer's traces not painted yet (traces: the model's figure data)
  paint(traces) {
    if (!this.place()) return 0;
    const fl = this.gd._fullLayout, xa = fl.xaxis, ya = fl.yaxis, dpr = window.devicePixelRatio || 1;
    const ctx = this.canvas.getContext("2d");
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.save();
    ctx.beginPath(); ctx.rect(xa._offset, ya._offset, xa._length, ya._length); ctx.clip();
    let n = 0;
    for (const [i, k0] of this.shown) {
      const tr = traces[i];
      if (!StreamLayer.paintable(tr)) continue;
      const X = tr.x, Y = tr.y, k1 = Math.min(X.length, Y.length);
      if (k1 <= k0) continue;
      const size = tr.marker.size, sp = this.sprite(tr.marker.color, size, dpr), h = sp.width / dpr / 2;
      for (let k = k0; k < k1; k++) {
        const px = xa._offset + xa.c2p(X[k]), py = ya._offset + ya.c2p(Y[k]);
        if (px === px && py === py) ctx.drawImage(sp, px - h, py - h, 2 * h, 2 * h);
      }
      n += k1 - k0;
      this.shown.set(i, k1);
    }
    ctx.restore();
    this.painted += n;
    return n;
  }
  // Plotly now draws the first ``upto[i]`` points of trace i: the layer keeps (and repaints) only the rest
  handed(upto) {
    for (const [i, n] of Object.entries(upto)) {
      const idx = Number(i);
      if (!this.from.has(idx)) continue;
      if (n >= this.shown.get(idx)) { this.from.delete(idx); this.shown.delete(idx); }
      else { this.from.set(idx, n); this.shown.set(idx, n); }
    }
    this.clearCanvas();
    for (const i of this.shown.keys()) this.shown.set(i, this.from.get(i));
  }
  reset() { this.from.clear(); this.shown.clear(); this.clearCanvas(); }
  clearCanvas() { this.canvas.getContext("2d").clearRect(0, 0, this.canvas.width, this.canvas.height); }
  dispose() { this.reset(); this.canvas.remove(); }
}

// the meta of a trace drawn only once its figure has been shown (see draw)
const AFTER_PAINT = "pe-after-paint";

// a figure (no explicit width in this project's figures) drawn at another width than its box has now
function misfit(gd) {
  return !!gd._fullLayout && gd.clientWidth > 0 && Math.abs(gd._fullLayout.width - gd.clientWidth) > 1;
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

function render({ model, el }) {
  const gd = document.createElement("div");
  gd.className = "pe-plotly";
  gd.style.width = "100%";
  // a MotionView (a model with an "animation") plays the motion next to its figure
  const player = model.get("animation") !== undefined ? new MotionPlayer(model, el) : null;
  (player ? player.plotHost : el).appendChild(gd);
  if (player) player.attachPlot(gd, window.Plotly || null);
  let Plotly = window.Plotly || null;
  let stale = true;      // the figure in the model differs from what gd shows
  let busy = false;
  let drawn = false;
  let lastWidth = 0;
  let disposed = false;
  let layer = null;        // the StreamLayer (created by the first stream)
  let streamAt = -1e9;     // when the last streamed points were painted
  gd.__peStream = () => ({ painted: layer ? layer.painted : 0, held: layer ? layer.from.size : 0 });   // tests
  // the views with a redraw to come (updates held back, streamed points not drawn by Plotly yet): tests wait for none
  const views = (window.__peViews = window.__peViews || new Set());
  const waiting = () => visible() && !!(pending || added || busy || (layer && layer.active));
  views.add(waiting);

  const visible = () => el.isConnected && el.offsetWidth > 0 && el.getClientRects().length > 0;

  async function draw() {
    if (disposed || busy || !stale || !visible()) return;
    busy = true;
    stale = false;
    try {
      if (!Plotly) Plotly = await whenPlotly(120000);
      const fig = decode(model.get("figure") || {});
      if (!fig.data && !fig.layout) return;   // nothing to show yet (no empty axes)
      const obj = { data: fig.data || [], layout: fig.layout || {}, config: fig.config || {} };
      if (fig.frames) obj.frames = fig.frames;   // react replaces the animation frames too
      // a trace marked AFTER_PAINT (a warm-up: WebGL shaders compiled before the first click needs them) is
      // hidden in the figure's first draw and drawn right after the page has shown it (the tab opens as fast)
      const later = drawn ? [] : obj.data.filter((tr) => tr.meta === AFTER_PAINT && tr.visible !== false);
      for (const tr of later) tr.visible = false;
      const t0 = performance.now();
      await Plotly.react(gd, obj);
      logged("react", gd, t0);
      if (later.length) requestAnimationFrame(() => setTimeout(() => { stale = true; draw(); }, 0));
      // drawn at another width than its box (the box got its width while the draw was under way, or had none
      // yet: plotly's default 700 px): fit it now
      if (misfit(gd)) await Plotly.Plots.resize(gd);
      if (layer) layer.reset();   // the figure drawn holds every point streamed so far
      if (!drawn) { drawn = true; bindEvents(); model.send({ event: "drawn" }); }
      if (player) { player.Plotly = Plotly; player.plotDrawn(); }
      lastWidth = el.offsetWidth;
      gd.dataset.peRevision = String(model.get("revision"));
    } catch (err) {
      console.error("PlotlyView", err);
      gd.textContent = "could not draw the figure: " + err;
    } finally {
      busy = false;
    }
    if (stale) draw();
  }

  function bindEvents() {
    // a new size or layout moves the points: the layer paints them again at the new geometry
    gd.on("plotly_afterplot", () => { if (layer && layer.active) layer.paint(model.get("figure").data); });
    let lastPress = -1;
    // a finger never leaves the chart: the hover label of a tap (and of the mouse events the browser emulates
    // after it) would stay over the chart.  Hover labels show while a finger is down, not after
    const touchUnhover = () => {
      if (window.__pePressType === "touch" && !pressed() && Plotly && Plotly.Fx) setTimeout(() => Plotly.Fx.unhover(gd), 0);
    };
    gd.on("plotly_hover", touchUnhover);
    gd.on("plotly_click", (ev) => {
      if (!model.get("clicks") || !ev || !ev.points || !ev.points.length) return;
      // one click per press: a touch tap reaches Plotly twice (the touch, then the mouse click the browser
      // emulates after it), and launched two trajectories
      const press = window.__pePressSeq;
      if (press === lastPress) { touchUnhover(); return; }
      lastPress = press;
      const p = ev.points[0];
      // the pointer's own position in data coordinates, not the data of the point Plotly hovers (a cell of the
      // background grid, or a crossing within the hover radius: a click continued an old trajectory)
      const at = pointerData(gd, p, ev.event);
      model.send({ event: "click", x: at ? at[0] : p.x, y: at ? at[1] : p.y, curve: p.curveNumber,
                   point: p.pointNumber, pointer: !!at });
      touchUnhover();
    });
  }

  function onChange() { stale = true; draw(); }
  model.on("change:figure", onChange);
  model.on("change:revision", onChange);

  function onMsg(msg) {
    if (!msg || !msg.op) return;
    if (msg.op === "settle") {   // the stream has ended: Plotly draws its points now (hover on them)
      streamAt = -1e9;
      requestAnimationFrame(flush);
      return;
    }
    if (msg.update) msg.update = decode(msg.update);
    if (msg.traces) msg.traces = decode(msg.traces);
    const fig = model.get("figure");
    if (!fig || !fig.data) return;
    // keep the model's copy of the figure current (a redraw from it shows every update)
    if (msg.op === "restyle" || msg.op === "extend") {
      const tr = fig.data[msg.index];
      if (!tr) return;
      const n0 = tr.x && tr.x.length !== undefined ? tr.x.length : 0;
      if (msg.op === "restyle") Object.assign(tr, msg.update);
      else for (const k of Object.keys(msg.update)) tr[k] = concat(tr[k], msg.update[k]);
      if (msg.op === "extend" && drawn && !busy && !stale && visible() && StreamLayer.paintable(tr)) {
        // painted now, drawn by Plotly when the stream is quiet (see StreamLayer)
        const t0 = performance.now();
        layer = layer || new StreamLayer(gd);
        layer.add(msg.index, n0);
        const n = layer.paint(fig.data);
        logged("stream " + n, gd, t0);
        streamAt = performance.now();
      }
      // coalesced: one Plotly.restyle for all the traces updated since the last one, paced (see flush). A
      // scattergl redraw repaints every trace; one per message fell behind a fill (one message per trajectory),
      // and the page then answered clicks and showed widget updates (cancel) tens of seconds late
      pending = pending || {};
      const upd = pending[msg.index] = pending[msg.index] || {};
      for (const k of Object.keys(msg.update)) upd[k] = tr[k];   // extend: the whole array, appended to
      schedule();
      return;
    }
    if (msg.op === "add_traces") {
      fig.data.push(...msg.traces);
      if (layer && layer.active) { added = true; schedule(); return; }   // drawn with the stream's points
    } else if (msg.op === "delete_traces") {
      const drop = new Set(msg.indices);
      fig.data = fig.data.filter((_, i) => !drop.has(i));
    }
    if (pending || added || (layer && layer.active)) {   // trace indices shift: draw the updated copy whole
      pending = null; added = false; stale = true;
    }
    if (!drawn || busy || stale || !visible()) { stale = true; draw(); return; }
    const P = Plotly;
    let p;
    const t0 = performance.now();
    if (msg.op === "add_traces") {
      p = P.addTraces(gd, msg.traces);
    } else if (msg.op === "delete_traces") {
      p = P.deleteTraces(gd, msg.indices);
    }
    logged(msg.op, gd, t0);
    gd.dataset.peRevision = String(model.get("revision")) + "+" + msg.op;
    if (p && p.catch) p.catch((err) => { console.error("PlotlyView", err); stale = true; draw(); });
  }
  // restyles not drawn yet ({index: {property: value}}), a flush scheduled, the earliest time of the next one
  let pending = null, flushing = false, nextFlush = 0;
  let added = false;   // traces added to the model while streaming, not drawn yet (the next flush draws all)
  function schedule() {
    if (flushing) return;
    flushing = true;
    const wait = Math.max(nextFlush, inputAt() + INPUT_FIRST_MS) - performance.now();
    if (wait > 0) setTimeout(() => requestAnimationFrame(flush), wait);
    else requestAnimationFrame(flush);
  }
  function flush() {
    flushing = false;
    if (!pending && !added) return;
    if (performance.now() < inputAt() + INPUT_FIRST_MS) { schedule(); return; }   // a click came meanwhile
    const quiet = streamAt + STREAM_QUIET_MS - performance.now();
    if (quiet > 0 && layer && layer.active) { flushing = true; setTimeout(flush, quiet); return; }   // streaming
    if (pressed()) { flushing = true; setTimeout(flush, 50); return; }   // a click on a chart is under way
    const upd = pending;
    pending = null;
    if (added || !drawn || busy || stale || !visible()) { added = false; stale = true; draw(); return; }
    const idx = Object.keys(upd).map(Number);
    const keys = Array.from(new Set(idx.flatMap((i) => Object.keys(upd[i]))));
    const fig = model.get("figure");
    const u = {};
    // one restyle for every trace: a property not updated on a trace is given its current value (no change)
    for (const k of keys) u[k] = idx.map((i) => (k in upd[i] ? upd[i][k] : fig.data[i][k]));
    const upto = {};
    for (const i of idx) if ("x" in upd[i]) upto[i] = upd[i].x.length;
    const t0 = performance.now();
    const p = Plotly.restyle(gd, u, idx);
    const cost = performance.now() - t0;
    if (layer && layer.active) {   // Plotly draws these points now: off the layer (in the same frame)
      layer.handed(upto);
      layer.paint(fig.data);
    }
    logged("restyle " + keys.join(","), gd, t0);
    // paced: the page stays free at least PACE times as long as it spent drawing, so that clicks, the kernel's
    // answers and the other widgets are handled between two redraws even when a redraw takes a second
    nextFlush = performance.now() + PACE * cost;
    gd.dataset.peRevision = String(model.get("revision")) + "+restyle";
    if (p && p.catch) p.catch((err) => { console.error("PlotlyView", err); stale = true; draw(); });
  }
  model.on("msg:custom", onMsg);

  const ro = new ResizeObserver(() => {
    if (!visible()) return;
    if (stale) { draw(); return; }
    if (drawn && !busy && Math.abs(el.offsetWidth - lastWidth) > 1) {
      lastWidth = el.offsetWidth;
      Plotly.Plots.resize(gd);
    }
  });
  ro.observe(el);
  draw();
  return () => {
    disposed = true;
    views.delete(waiting);
    ro.disconnect();
    if (player) player.dispose();
    if (layer) layer.dispose();
    model.off("change:figure", onChange);
    model.off("change:revision", onChange);
    model.off("msg:custom", onMsg);
    if (Plotly && drawn) Plotly.purge(gd);
  };
}

// ------------------------------------------------------------------------------------------------------------
// MotionView: the motion of the body played in the browser, in true time.
// Python sends the mesh and the attitude samples (unit quaternions, evenly spaced in time) once; every display
// frame interpolates the attitude between the two neighbouring samples (slerp) at the motion time
// t = t_start + speed * (wall-clock time since play), and draws the body (lab frame, z up) and Gamma = R^T e3 on
// the unit sphere (body frame) on two canvases.  Over the plotly figure next to them (omega and the conservation
// errors) a vertical "now" line moves with t.  Keyboard: Tab reaches play, speed and the time
// slider; space (anywhere in the player) plays / pauses; arrow keys on a view turn it.
// ------------------------------------------------------------------------------------------------------------
const SPEEDS = [0.1, 0.25, 0.5, 1, 2, 4, 10];
const TRAIL_S = 2.0;          // seconds of motion drawn bold behind the moving point

function floats(dv, T) {      // a binary buffer (DataView) as a typed array (copied: the buffer may be unaligned)
  if (!dv) return new T(0);
  const buf = dv.buffer.slice(dv.byteOffset, dv.byteOffset + dv.byteLength);
  return new T(buf);
}

function quatToMatrix(x, y, z, w, R) {   // scalar-last unit quaternion -> row-major 3x3 (scipy's convention)
  R[0] = 1 - 2 * (y * y + z * z); R[1] = 2 * (x * y - z * w);     R[2] = 2 * (x * z + y * w);
  R[3] = 2 * (x * y + z * w);     R[4] = 1 - 2 * (x * x + z * z); R[5] = 2 * (y * z - x * w);
  R[6] = 2 * (x * z - y * w);     R[7] = 2 * (y * z + x * w);     R[8] = 1 - 2 * (x * x + y * y);
  return R;
}

function slerp(Q, i, f, out) {           // between samples i and i+1 of Q (n*4), fraction f in [0, 1]
  const a = 4 * i, b = 4 * (i + 1);
  let bx = Q[b], by = Q[b + 1], bz = Q[b + 2], bw = Q[b + 3];
  let d = Q[a] * bx + Q[a + 1] * by + Q[a + 2] * bz + Q[a + 3] * bw;
  if (d < 0) { d = -d; bx = -bx; by = -by; bz = -bz; bw = -bw; }
  let sa, sb;
  if (d > 0.9999995) { sa = 1 - f; sb = f; }
  else { const th = Math.acos(d), s = Math.sin(th); sa = Math.sin((1 - f) * th) / s; sb = Math.sin(f * th) / s; }
  let x = sa * Q[a] + sb * bx, y = sa * Q[a + 1] + sb * by, z = sa * Q[a + 2] + sb * bz, w = sa * Q[a + 3] + sb * bw;
  const nrm = Math.hypot(x, y, z, w);
  out[0] = x / nrm; out[1] = y / nrm; out[2] = z / nrm; out[3] = w / nrm;
  return out;
}

class Camera {                           // orthographic view from azimuth / elevation (degrees), z up
  constructor(az, el) { this.az = az; this.el = el; this.update(); }
  update() {
    const a = this.az * Math.PI / 180, e = this.el * Math.PI / 180;
    this.e = [Math.cos(e) * Math.cos(a), Math.cos(e) * Math.sin(a), Math.sin(e)];   // towards the viewer
    this.r = [-Math.sin(a), Math.cos(a), 0];                                         // screen right
    const [ex, ey, ez] = this.e, [rx, ry, rz] = this.r;
    this.u = [ey * rz - ez * ry, ez * rx - ex * rz, ex * ry - ey * rx];             // screen up
  }
  turn(daz, del) { this.az += daz; this.el = Math.max(-89, Math.min(89, this.el + del)); this.update(); }
}

class View {                             // one canvas: a camera, a scale, a cached background layer
  constructor(cls, label, az, el) {
    this.canvas = document.createElement("canvas");
    this.canvas.className = cls;
    this.canvas.tabIndex = 0;
    this.canvas.setAttribute("role", "img");
    this.canvas.setAttribute("aria-label", label + " (arrow keys or drag to turn the view)");
    this.canvas.style.cssText = "display:block;width:100%;height:100%;outline-offset:-2px;cursor:grab;touch-action:none";
    this.cam = new Camera(az, el);
    this.bg = document.createElement("canvas");
    this.bgValid = false;
    this.w = 0; this.h = 0; this.dpr = 1;
  }
  resize(w, h) {
    const dpr = window.devicePixelRatio || 1;
    if (w === this.w && h === this.h && dpr === this.dpr) return false;
    this.w = w; this.h = h; this.dpr = dpr;
    for (const c of [this.canvas, this.bg]) { c.width = Math.max(1, Math.round(w * dpr)); c.height = Math.max(1, Math.round(h * dpr)); }
    this.bgValid = false;
    return true;
  }
  project(x, y, z, out, k) {             // -> screen x, y (CSS px) and depth (larger is nearer)
    const c = this.cam;
    out[k] = this.cx + this.s * (x * c.r[0] + y * c.r[1] + z * c.r[2]);
    out[k + 1] = this.cy - this.s * (x * c.u[0] + y * c.u[1] + z * c.u[2]);
    out[k + 2] = x * c.e[0] + y * c.e[1] + z * c.e[2];
  }
  frame(halfSize) { this.cx = this.w / 2; this.cy = this.h / 2; this.s = Math.min(this.w, this.h) / (2 * halfSize); }
  bindTurning(onTurn) {
    let drag = null;
    this.canvas.addEventListener("pointerdown", (ev) => { drag = [ev.clientX, ev.clientY]; this.canvas.setPointerCapture(ev.pointerId); });
    this.canvas.addEventListener("pointermove", (ev) => {
      if (!drag) return;
      this.cam.turn(-(ev.clientX - drag[0]) * 0.5, (ev.clientY - drag[1]) * 0.5);
      drag = [ev.clientX, ev.clientY]; this.bgValid = false; onTurn();
    });
    const end = () => { drag = null; };
    this.canvas.addEventListener("pointerup", end);
    this.canvas.addEventListener("pointercancel", end);
    this.canvas.addEventListener("keydown", (ev) => {
      const step = { ArrowLeft: [5, 0], ArrowRight: [-5, 0], ArrowUp: [0, -5], ArrowDown: [0, 5] }[ev.key];
      if (!step) return;
      ev.preventDefault(); this.cam.turn(step[0], step[1]); this.bgValid = false; onTurn();
    });
  }
}

function legend(b, v, items, k) {        // a few symbol + text rows in the bottom-left corner of a view (size k)
  b.font = `${Math.round(12 * k)}px sans-serif`; b.textBaseline = "middle";
  items.forEach(([sym, colour, text], i) => {
    const x = 10 * k, y = v.h - 10 * k - 16 * k * (items.length - 1 - i), r = 5 * k;
    b.fillStyle = colour; b.strokeStyle = colour; b.lineWidth = 2 * k;
    b.beginPath();
    if (sym === "diamond") { b.moveTo(x, y - r); b.lineTo(x + r, y); b.lineTo(x, y + r); b.lineTo(x - r, y); b.fill(); }
    else if (sym === "cross") { b.moveTo(x - r, y - r); b.lineTo(x + r, y + r); b.moveTo(x + r, y - r); b.lineTo(x - r, y + r); b.stroke(); }
    else { b.arc(x, y, 0.9 * r, 0, 2 * Math.PI); b.fill(); }
    b.fillStyle = "#2a3f5f"; b.fillText(text, x + 2 * r, y);
  });
  b.textBaseline = "alphabetic";
}

function hexRgb(hex) { const v = parseInt(hex.slice(1), 16); return [(v >> 16) & 255, (v >> 8) & 255, v & 255]; }

class MotionPlayer {
  constructor(model, el) {
    this.model = model;
    this.el = el;
    this.root = document.createElement("div");
    this.root.className = "pe-motion-player";
    this.root.style.cssText = "width:100%;font-size:14px;";
    const bar = document.createElement("div");
    bar.className = "pe-motion-bar";
    bar.style.cssText = "display:flex;align-items:center;gap:10px;flex-wrap:wrap;margin:2px 0 4px 0;";
    this.play = document.createElement("button");
    this.play.className = "pe-play jupyter-button";
    this.play.type = "button";
    this.play.style.cssText = "min-width:92px;height:30px;font-size:14px;";
    const speedLabel = document.createElement("label");
    speedLabel.textContent = "speed ";
    this.speed = document.createElement("select");
    this.speed.className = "pe-speed";
    this.speed.style.cssText = "height:30px;font-size:14px;";
    for (const s of SPEEDS) {
      const o = document.createElement("option");
      o.value = String(s);
      o.textContent = s === 1 ? "1× (real time)" : `${s}×`;
      this.speed.appendChild(o);
    }
    this.speed.value = "1";
    speedLabel.appendChild(this.speed);
    this.slider = document.createElement("input");
    this.slider.type = "range";
    this.slider.className = "pe-time";
    this.slider.min = "0"; this.slider.max = "1000"; this.slider.step = "1"; this.slider.value = "0";
    this.slider.setAttribute("aria-label", "motion time");
    this.slider.style.cssText = "flex:1 1 200px;min-width:120px;";
    this.label = document.createElement("span");
    this.label.className = "pe-time-label";
    this.label.setAttribute("aria-live", "off");
    this.label.style.cssText = "font-variant-numeric:tabular-nums;min-width:16ch;";
    bar.append(this.play, speedLabel, this.slider, this.label);
    const row = document.createElement("div");
    row.className = "pe-motion-row";
    row.style.cssText = "display:flex;width:100%;gap:4px;";
    this.bodyView = new View("pe-body-view", "the body in the lab frame", 45, 22);
    this.sphereView = new View("pe-sphere-view", "Gamma on the unit sphere, body frame", 45, 22);
    const boxes = [];
    for (const [v, frac, title] of [[this.bodyView, "38%", "body, pivot and centre of mass (up is up)"],
                                    [this.sphereView, "26%", "Γ(t) = Rᵀe₃ on the sphere (body frame)"]]) {
      const box = document.createElement("div");
      box.style.cssText = `flex:0 0 ${frac};min-width:0;display:flex;flex-direction:column;`;
      const h = document.createElement("div");
      h.textContent = title;
      h.className = "pe-view-caption";
      h.style.cssText = "font-size:13px;line-height:1.25;color:#2a3f5f;text-align:center;white-space:normal;overflow-wrap:anywhere;";
      const holder = document.createElement("div");
      holder.style.cssText = "flex:1 1 auto;min-height:0;position:relative;";
      holder.appendChild(v.canvas);
      box.append(h, holder);
      boxes.push(box);
      v.holder = holder;
      v.caption = h;
    }
    this.plotHost = document.createElement("div");
    this.plotHost.className = "pe-motion-plots";
    this.plotHost.style.cssText = "flex:1 1 36%;min-width:0;position:relative;";
    this.markers = [0, 1].map((i) => {   // moved every frame (a plotly relayout costs ~50 ms in software rendering)
      const m = document.createElement("div");
      m.className = "pe-now-line";
      m.style.cssText = "position:absolute;width:2px;background:#000;pointer-events:none;display:none;z-index:2;";
      this.plotHost.appendChild(m);
      return m;
    });
    row.append(...boxes, this.plotHost);
    this.root.append(bar, row);
    el.appendChild(this.root);
    this.row = row;

    this.t = 0; this.playing = false; this.lastWall = 0; this.raf = 0; this.frames = 0;
    this.log = [];                                   // [wall ms, motion t, qx, qy, qz, qw, playing] per drawn frame
    this.q = new Float64Array(4); this.R = new Float64Array(9);
    this.gd = null;
    this.root.peMotion = this;                       // for the browser tests
    this.load();

    this.play.addEventListener("click", () => this.toggle());
    this.speed.addEventListener("change", () => this.showTime());
    // the arrow keys move the time by 1 % of the motion, Page Up / Down by 10 % (the range's own step, 0.1 %,
    // was 0.01 s of a 10 s motion per press)
    this.slider.addEventListener("keydown", (ev) => {
      const step = { ArrowRight: 10, ArrowUp: 10, ArrowLeft: -10, ArrowDown: -10, PageUp: 100, PageDown: -100 }[ev.key];
      if (!step) return;
      ev.preventDefault();
      this.slider.value = String(Math.max(0, Math.min(1000, Number(this.slider.value) + step)));
      this.slider.dispatchEvent(new Event("input"));
    });
    this.slider.addEventListener("input", () => {
      this.t = this.t0 + (this.tEnd - this.t0) * Number(this.slider.value) / 1000;
      this.draw();
    });
    this.root.addEventListener("keydown", (ev) => {
      if (ev.key !== " " || ev.target === this.play || ev.target.tagName === "SELECT") return;
      ev.preventDefault(); this.toggle();
    });
    const redraw = () => this.draw();
    this.bodyView.bindTurning(redraw);
    this.sphereView.bindTurning(redraw);
    this.onAnim = () => { this.pause(); this.load(); };
    this.onHeight = () => this.layout();
    this.onScale = () => {
      const k = this.model.get("scale") || 1;
      this.root.style.fontSize = `${Math.round(14 * k)}px`;
      for (const h of this.root.querySelectorAll(".pe-view-caption")) h.style.fontSize = `${Math.round(13 * k)}px`;
      this.bodyView.bgValid = false; this.sphereView.bgValid = false; this.layout();   // the captions' height
    };
    model.on("change:animation", this.onAnim);
    model.on("change:height", this.onHeight);
    model.on("change:fill", this.onHeight);
    model.on("change:fit", this.onHeight);
    model.on("change:scale", this.onScale);
    this.onScale();
    this.ro = new ResizeObserver(() => this.layout());
    this.ro.observe(this.root);
    // "fit": what is above the views (a message, the header's wrapping) moves them: the page's size changes then
    this.ro.observe(document.body);
    this.onWindow = () => this.layout();
    window.addEventListener("resize", this.onWindow);
    this.layout();
  }

  load() {
    const a = this.model.get("animation") || {};
    this.n = a.n || 0;
    this.t0 = a.t0 || 0; this.dt = a.dt || 1;
    this.tEnd = this.t0 + this.dt * Math.max(this.n - 1, 0);
    this.Q = floats(a.quaternions, Float32Array);
    this.V = floats(a.vertices, Float32Array);
    this.F = floats(a.faces, Int32Array);
    this.rho = a.rho || [0, 0, 0];
    // the sphere is drawn as D Gamma, D = diag(1, -1, -1) (the body view's display frame): Gamma_3 = +1 (gravity
    // along e3) at the bottom, the hanging point below the centre, as on the equilibria sphere and in the paper
    this.hanging = a.hanging ? [a.hanging[0], -a.hanging[1], -a.hanging[2]] : null;
    this.L = a.extent || 1;
    this.colours = a.colours || { body: "#56B4E9", pivot: "#000000", com: "#D55E00", gravity: "#009E73", gamma: "#0072B2" };
    this.bodyRgb = hexRgb(this.colours.body);
    // Gamma = R^T e3 (third row of R) and the centre of mass D R rho at every sample: the dense paths
    const n = this.n, R = this.R;
    this.G = new Float32Array(3 * n); this.C = new Float32Array(3 * n);
    for (let k = 0; k < n; k++) {
      quatToMatrix(this.Q[4 * k], this.Q[4 * k + 1], this.Q[4 * k + 2], this.Q[4 * k + 3], R);
      this.G[3 * k] = R[6]; this.G[3 * k + 1] = -R[7]; this.G[3 * k + 2] = -R[8];   // drawn as D Gamma
      const [r0, r1, r2] = this.rho;
      this.C[3 * k] = R[0] * r0 + R[1] * r1 + R[2] * r2;            // display D = diag(1, -1, -1)
      this.C[3 * k + 1] = -(R[3] * r0 + R[4] * r1 + R[5] * r2);
      this.C[3 * k + 2] = -(R[6] * r0 + R[7] * r1 + R[8] * r2);
    }
    this.nv = this.V.length / 3; this.nf = this.F.length / 3;
    this.P = new Float64Array(3 * this.nv);           // projected vertices
    this.order = new Int32Array(this.nf); this.depth = new Float64Array(this.nf);
    this.t = this.t0;
    this.bodyView.bgValid = false; this.sphereView.bgValid = false;
    this.root.style.display = this.n >= 2 ? "" : "none";
    this.draw();
  }

  layout() {
    const H = this.height();
    if (this.model.get("fit")) {   // the views' top settles after a reorder of the panel: look again
      clearTimeout(this.fitTimer);
      this.fitTimer = setTimeout(() => { if (Math.abs(this.height() - H) > 4) this.layout(); }, 250);
    }
    this.row.style.height = H + "px";
    // the captions wrap (a narrow view, the presenter's larger text): the views start below the tallest one
    const captions = [this.bodyView.caption, this.sphereView.caption];
    for (const c of captions) c.style.minHeight = "";
    const capH = Math.max(18, ...captions.map((c) => c.offsetHeight));
    for (const c of captions) c.style.minHeight = capH + "px";
    const viewH = H - capH - 4;
    for (const v of [this.bodyView, this.sphereView]) {
      v.holder.style.height = viewH + "px";
      const w = v.holder.clientWidth;
      if (w > 0 && v.resize(w, viewH)) v.bgValid = false;
    }
    this.plotHost.style.height = H + "px";
    if (this.gd && (this.gd.style.height !== H + "px" || misfit(this.gd))) {   // its column's width changed too
      this.gd.style.height = H + "px";
      if (this.gd._fullLayout && this.Plotly) this.Plotly.Plots.resize(this.gd);
    }
    this.draw();
  }

  height() {                             // the "height" trait [px], or 0: from the window (fits 1024x768 .. 1920x1080)
    const h = this.model.get("height") || 0;
    if (h > 0) return Math.max(200, h);
    const w = this.row.clientWidth || this.el.clientWidth || 960;
    if (this.model.get("fit") && this.row.isConnected) {   // the rest of the first screen below the views' top
      let y = this.row.getBoundingClientRect().top;
      for (let e = this.row.parentElement; e; e = e.parentElement) y += e.scrollTop || 0;
      return Math.round(Math.max(340, Math.min(window.innerHeight - y - 12, 0.45 * w)));
    }
    const fill = this.model.get("fill") || 0.56;
    return Math.round(Math.max(340, Math.min(fill * window.innerHeight, 0.45 * w)));
  }

  // where the sphere view draws the body-frame vector g: [x, y] and the view's centre [cx, cy] (CSS px; tests)
  gammaOnScreen(g) {
    const p = [0, 0, 0], v = this.sphereView;
    v.frame(1.3);
    v.project(g[0], -g[1], -g[2], p, 0);
    return [p[0], p[1], v.cx, v.cy];
  }

  attachPlot(gd, Plotly) { this.gd = gd; this.Plotly = Plotly; gd.style.height = this.height() + "px"; }
  plotDrawn() {
    if (!this.boundAfterPlot && this.gd.on) {
      this.boundAfterPlot = true;
      this.gd.on("plotly_afterplot", () => this.movePlotMarker());   // resizes, zooms
      this.gd.on("plotly_relayout", () => this.movePlotMarker());
    }
    this.movePlotMarker();
  }

  toggle() { if (this.playing) this.pause(); else this.start(); }
  start() {
    if (this.n < 2) return;
    if (this.t >= this.tEnd) this.t = this.t0;   // play at the end starts again
    this.playing = true; this.lastWall = null;
    this.showTime();
    const tick = (now) => {
      if (!this.playing) return;
      if (this.lastWall === null || now < this.lastWall) this.lastWall = now;
      const speed = Number(this.speed.value) || 1;
      this.t += (now - this.lastWall) / 1000 * speed;
      this.lastWall = now;
      if (this.t >= this.tEnd) { this.t = this.tEnd; this.playing = false; }
      this.draw(now);
      if (this.playing) this.raf = requestAnimationFrame(tick); else this.showTime();
    };
    this.raf = requestAnimationFrame(tick);
  }
  pause() { this.playing = false; cancelAnimationFrame(this.raf); this.showTime(); }

  attitude(t) {                          // the interpolated attitude at motion time t -> this.q, this.R
    const u = Math.min(Math.max((t - this.t0) / this.dt, 0), this.n - 1);
    const i = Math.min(Math.floor(u), this.n - 2);
    slerp(this.Q, i, u - i, this.q);
    quatToMatrix(this.q[0], this.q[1], this.q[2], this.q[3], this.R);
    return this.R;
  }

  showTime() {
    this.play.textContent = this.playing ? "❚❚ pause" : "▶ play";
    this.play.setAttribute("aria-label", this.playing ? "pause the animation" : "play the animation");
    const sp = Number(this.speed.value) || 1;
    const total = this.tEnd.toPrecision(3).replace(/\.?0+$/, "");
    this.label.textContent = `t = ${this.t.toFixed(2)} s of ${total} s` + (sp === 1 ? " (real time)" : ` (${sp}× real time)`);
    if (this.tEnd > this.t0) this.slider.value = String(Math.round(1000 * (this.t - this.t0) / (this.tEnd - this.t0)));
  }

  draw(wall) {
    if (this.n < 2 || !this.bodyView.w) return;
    this.attitude(this.t);
    this.drawBody();
    this.drawSphere();
    this.frames++;
    const w = wall === undefined ? performance.now() : wall;
    this.log.push([w, this.t, this.q[0], this.q[1], this.q[2], this.q[3], this.playing ? 1 : 0]);
    if (this.log.length > 6000) this.log.splice(0, 1000);
    this.showTime();
    this.movePlotMarker();
  }

  movePlotMarker() {                    // the "now" lines over the plots: two absolutely placed divs
    const gd = this.gd, fl = gd && gd._fullLayout;
    if (!fl || !fl.xaxis || !fl.yaxis || !fl.yaxis2 || typeof fl.xaxis.l2p !== "function") {
      for (const m of this.markers) m.style.display = "none";
      return;
    }
    const xa = fl.xaxis, x = xa._offset + xa.l2p(this.t);
    const inside = x >= xa._offset - 0.5 && x <= xa._offset + xa._length + 0.5;
    [fl.yaxis, fl.yaxis2].forEach((ya, i) => {
      const m = this.markers[i];
      m.style.display = inside ? "" : "none";
      m.style.left = (x - 1) + "px"; m.style.top = ya._offset + "px"; m.style.height = ya._length + "px";
    });
  }

  // trail indices [k0, k1] of the samples within TRAIL_S of motion time before t, at most 1500 points
  trail(t) {
    const k1 = Math.min(this.n - 1, Math.max(0, Math.floor((t - this.t0) / this.dt)));
    const k0 = Math.max(0, Math.floor((t - TRAIL_S - this.t0) / this.dt));
    return [k0, k1, Math.max(1, Math.ceil((k1 - k0) / 1500))];
  }

  path(ctx, v, A, k0, k1, step, tail) {  // polyline through samples k0..k1 of A (n*3) [+ tail point]
    const p = [0, 0, 0];
    ctx.beginPath();
    for (let k = k0; k <= k1; k += step) {
      v.project(A[3 * k], A[3 * k + 1], A[3 * k + 2], p, 0);
      if (k === k0) ctx.moveTo(p[0], p[1]); else ctx.lineTo(p[0], p[1]);
    }
    if (tail) { v.project(tail[0], tail[1], tail[2], p, 0); ctx.lineTo(p[0], p[1]); }
    ctx.stroke();
  }

  drawBody() {
    const v = this.bodyView, L = this.L, c = this.colours, k = this.model.get("scale") || 1;
    v.frame(1.2 * L);
    const ctx = v.canvas.getContext("2d");
    if (!v.bgValid) {                    // plumb line, floor square, gravity arrow, the whole centre-of-mass path
      const b = v.bg.getContext("2d");
      b.setTransform(v.dpr, 0, 0, v.dpr, 0, 0);
      b.clearRect(0, 0, v.w, v.h);
      const p = [0, 0, 0, 0, 0, 0];
      b.strokeStyle = "#dddddd"; b.lineWidth = 1;
      b.beginPath();
      const f = [[-L, -L], [L, -L], [L, L], [-L, L], [-L, -L]];
      f.forEach(([x, y], i) => { v.project(x, y, -L, p, 0); if (i) b.lineTo(p[0], p[1]); else b.moveTo(p[0], p[1]); });
      b.stroke();
      b.setLineDash([4, 4]); b.strokeStyle = "#bbbbbb";
      v.project(0, 0, 0.3 * L, p, 0); v.project(0, 0, -L, p, 3);
      b.beginPath(); b.moveTo(p[0], p[1]); b.lineTo(p[3], p[4]); b.stroke(); b.setLineDash([]);
      b.strokeStyle = c.gravity; b.fillStyle = c.gravity; b.lineWidth = 3 * k;
      v.project(0.85 * L, 0.85 * L, 0.2 * L, p, 0); v.project(0.85 * L, 0.85 * L, -0.6 * L, p, 3);
      b.beginPath(); b.moveTo(p[0], p[1]); b.lineTo(p[3], p[4]); b.stroke();
      b.font = `${Math.round(13 * k)}px sans-serif`; b.fillText("g", p[3] + 5 * k, p[4] + 4 * k);
      b.strokeStyle = "rgba(213,94,0,0.25)"; b.lineWidth = 1;
      this.path(b, v, this.C, 0, this.n - 1, Math.max(1, Math.ceil(this.n / 20000)));
      legend(b, v, [["diamond", c.pivot, "pivot"], ["dot", c.com, "centre of mass (bold: last 2 s of its path)"]], k);
      v.bgValid = true;
    }
    ctx.setTransform(v.dpr, 0, 0, v.dpr, 0, 0);
    ctx.clearRect(0, 0, v.w, v.h);
    ctx.drawImage(v.bg, 0, 0, v.w, v.h);
    // the mesh: D R v, faces sorted far to near, flat shaded
    const R = this.R, V = this.V, P = this.P, F = this.F, e = v.cam.e;
    const X = new Float64Array(3 * this.nv);
    for (let k = 0; k < this.nv; k++) {
      const x = V[3 * k], y = V[3 * k + 1], z = V[3 * k + 2];
      X[3 * k] = R[0] * x + R[1] * y + R[2] * z;
      X[3 * k + 1] = -(R[3] * x + R[4] * y + R[5] * z);
      X[3 * k + 2] = -(R[6] * x + R[7] * y + R[8] * z);
      v.project(X[3 * k], X[3 * k + 1], X[3 * k + 2], P, 3 * k);
    }
    for (let f = 0; f < this.nf; f++) {
      this.order[f] = f;
      this.depth[f] = P[3 * F[3 * f] + 2] + P[3 * F[3 * f + 1] + 2] + P[3 * F[3 * f + 2] + 2];
    }
    const order = Array.from(this.order).sort((a, b) => this.depth[a] - this.depth[b]);
    const [r0, g0, b0] = this.bodyRgb;
    ctx.lineJoin = "round"; ctx.lineWidth = 0.6;
    for (const f of order) {
      const i = F[3 * f], j = F[3 * f + 1], k = F[3 * f + 2];
      const ax = X[3 * j] - X[3 * i], ay = X[3 * j + 1] - X[3 * i + 1], az = X[3 * j + 2] - X[3 * i + 2];
      const bx = X[3 * k] - X[3 * i], by = X[3 * k + 1] - X[3 * i + 1], bz = X[3 * k + 2] - X[3 * i + 2];
      const nx = ay * bz - az * by, ny = az * bx - ax * bz, nz = ax * by - ay * bx;
      const nn = Math.hypot(nx, ny, nz) || 1;
      const light = 0.55 + 0.45 * Math.abs((nx * e[0] + ny * e[1] + nz * e[2]) / nn);
      const col = `rgba(${Math.round(r0 * light)},${Math.round(g0 * light)},${Math.round(b0 * light)},0.85)`;
      ctx.fillStyle = col; ctx.strokeStyle = col;
      ctx.beginPath();
      ctx.moveTo(P[3 * i], P[3 * i + 1]); ctx.lineTo(P[3 * j], P[3 * j + 1]); ctx.lineTo(P[3 * k], P[3 * k + 1]);
      ctx.closePath(); ctx.fill(); ctx.stroke();
    }
    // centre-of-mass trail (the last TRAIL_S seconds), pivot, centre of mass
    const r = this.rho;
    const com = [R[0] * r[0] + R[1] * r[1] + R[2] * r[2], -(R[3] * r[0] + R[4] * r[1] + R[5] * r[2]),
                 -(R[6] * r[0] + R[7] * r[1] + R[8] * r[2])];
    const [k0, k1, st] = this.trail(this.t);
    ctx.strokeStyle = c.com; ctx.lineWidth = 2.5 * k;
    this.path(ctx, v, this.C, k0, k1, st, com);
    const p = [0, 0, 0];
    v.project(0, 0, 0, p, 0);
    ctx.fillStyle = c.pivot;
    const d = 6 * k;
    ctx.beginPath(); ctx.moveTo(p[0], p[1] - d); ctx.lineTo(p[0] + d, p[1]); ctx.lineTo(p[0], p[1] + d); ctx.lineTo(p[0] - d, p[1]); ctx.fill();
    v.project(com[0], com[1], com[2], p, 0);
    ctx.fillStyle = c.com; ctx.strokeStyle = "#ffffff"; ctx.lineWidth = 1.5 * k;
    ctx.beginPath(); ctx.arc(p[0], p[1], 5.5 * k, 0, 2 * Math.PI); ctx.fill(); ctx.stroke();
  }

  drawSphere() {
    const v = this.sphereView, c = this.colours, k = this.model.get("scale") || 1;
    v.frame(1.3);
    const ctx = v.canvas.getContext("2d");
    if (!v.bgValid) {                    // outline, wireframe (far half fainter), axes, the whole Gamma path
      const b = v.bg.getContext("2d");
      b.setTransform(v.dpr, 0, 0, v.dpr, 0, 0);
      b.clearRect(0, 0, v.w, v.h);
      b.strokeStyle = "#999999"; b.lineWidth = 1;
      b.beginPath(); b.arc(v.cx, v.cy, v.s, 0, 2 * Math.PI); b.stroke();
      const p = [0, 0, 0];
      const circle = (fn) => {           // a circle on the sphere, drawn in pieces: front solid, back faint
        let prev = null;
        for (let i = 0; i <= 72; i++) {
          const [x, y, z] = fn(2 * Math.PI * i / 72);
          v.project(x, y, z, p, 0);
          if (prev) {
            b.strokeStyle = (prev[2] + p[2]) >= 0 ? "#cccccc" : "#eeeeee";
            b.beginPath(); b.moveTo(prev[0], prev[1]); b.lineTo(p[0], p[1]); b.stroke();
          }
          prev = [p[0], p[1], p[2]];
        }
      };
      for (const lat of [-60, -30, 0, 30, 60]) {
        const a = lat * Math.PI / 180;
        circle((s) => [Math.cos(a) * Math.cos(s), Math.cos(a) * Math.sin(s), Math.sin(a)]);
      }
      for (const lon of [0, 30, 60, 90, 120, 150]) {
        const a = lon * Math.PI / 180;
        circle((s) => [Math.cos(s) * Math.cos(a), Math.cos(s) * Math.sin(a), Math.sin(s)]);
      }
      b.font = `${Math.round(13 * k)}px sans-serif`; b.fillStyle = "#2a3f5f";
      for (const [x, y, z, name] of [[1.2, 0, 0, "Γ₁"], [0, -1.2, 0, "Γ₂"], [0, 0, -1.2, "Γ₃"]]) {
        v.project(x, y, z, p, 0); b.fillText(name, p[0] - 8 * k, p[1] + 4 * k);
      }
      if (this.hanging) {                // the hanging equilibrium rho/|rho|
        const [x, y, z] = this.hanging;
        v.project(x, y, z, p, 0);
        const r = 5 * k;
        b.strokeStyle = "#000000"; b.lineWidth = 2 * k;
        b.beginPath(); b.moveTo(p[0] - r, p[1] - r); b.lineTo(p[0] + r, p[1] + r); b.moveTo(p[0] + r, p[1] - r); b.lineTo(p[0] - r, p[1] + r); b.stroke();
      }
      b.strokeStyle = "rgba(0,114,178,0.35)"; b.lineWidth = 1;
      this.path(b, v, this.G, 0, this.n - 1, Math.max(1, Math.ceil(this.n / 20000)));
      legend(b, v, [["dot", c.gamma, "Γ(t) (bold: last 2 s of its path)"]].concat(
        this.hanging ? [["cross", "#000000", "hanging equilibrium ρ/|ρ|"]] : []), k);
      v.bgValid = true;
    }
    ctx.setTransform(v.dpr, 0, 0, v.dpr, 0, 0);
    ctx.clearRect(0, 0, v.w, v.h);
    ctx.drawImage(v.bg, 0, 0, v.w, v.h);
    const R = this.R, G = [R[6], -R[7], -R[8]];
    const [k0, k1, st] = this.trail(this.t);
    ctx.strokeStyle = c.gamma; ctx.lineWidth = 3 * k;
    this.path(ctx, v, this.G, k0, k1, st, G);
    const p = [0, 0, 0];
    v.project(G[0], G[1], G[2], p, 0);
    ctx.fillStyle = c.gamma; ctx.strokeStyle = "#ffffff"; ctx.lineWidth = 1.5 * k;
    ctx.beginPath(); ctx.arc(p[0], p[1], 6 * k, 0, 2 * Math.PI); ctx.fill(); ctx.stroke();
  }

  dispose() {
    this.playing = false; cancelAnimationFrame(this.raf); this.ro.disconnect();
    window.removeEventListener("resize", this.onWindow);
    this.model.off("change:animation", this.onAnim);
    this.model.off("change:height", this.onHeight);
    this.model.off("change:fill", this.onHeight);
    this.model.off("change:fit", this.onHeight);
    this.model.off("change:scale", this.onScale);
  }
}

export default { render };
