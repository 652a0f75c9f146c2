// ------------------------------------------------------------------------------------------------------------
// StreamLayer: the points streamed into scattergl marker traces, painted on a 2D canvas over the plot area until
// Plotly draws them.  In a software-rendered browser (SwiftShader: no GPU driver, CI, many classroom laptops)
// every Plotly redraw of a scattergl chart repaints every point in WebGL and the page's main thread waits for it
// (the compositor reads the canvas back): 3-9 us per point, ~0.6 s for the 200 000 crossings of a fill, once per
// streamed update.  Clicks and the kernel's answers (cancel) waited behind these redraws, and a redraw between a
// click's mouse down and up lost the click.  Painting only the new points on a canvas costs microseconds per
// update; Plotly redraws once when the stream stops (hover on the new points from then on).
// ------------------------------------------------------------------------------------------------------------
export class StreamLayer {
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
