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

function render({ model, el }) {
  const gd = document.createElement("div");
  gd.className = "pe-plotly";
  gd.style.width = "100%";
  el.appendChild(gd);
  let Plotly = window.Plotly || null;
  let stale = true;      // the figure in the model differs from what gd shows
  let busy = false;
  let drawn = false;
  let lastWidth = 0;
  let disposed = false;

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
      await Plotly.react(gd, obj);
      if (!drawn) { drawn = true; bindEvents(); }
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
    gd.on("plotly_click", (ev) => {
      if (!model.get("clicks") || !ev || !ev.points || !ev.points.length) return;
      const p = ev.points[0];
      model.send({ event: "click", x: p.x, y: p.y, curve: p.curveNumber, point: p.pointNumber });
    });
  }

  function onChange() { stale = true; draw(); }
  model.on("change:figure", onChange);
  model.on("change:revision", onChange);

  function onMsg(msg) {
    if (!msg || !msg.op) return;
    if (msg.update) msg.update = decode(msg.update);
    if (msg.traces) msg.traces = decode(msg.traces);
    const fig = model.get("figure");
    if (!fig || !fig.data) return;
    // keep the model's copy of the figure current (a redraw from it shows every update)
    if (msg.op === "restyle") {
      const tr = fig.data[msg.index];
      if (tr) Object.assign(tr, msg.update);
    } else if (msg.op === "add_traces") {
      fig.data.push(...msg.traces);
    } else if (msg.op === "delete_traces") {
      const drop = new Set(msg.indices);
      fig.data = fig.data.filter((_, i) => !drop.has(i));
    }
    if (!drawn || busy || stale || !visible()) { stale = true; draw(); return; }
    const P = Plotly;
    let p;
    if (msg.op === "restyle") {
      const upd = {};
      for (const k of Object.keys(msg.update)) upd[k] = [msg.update[k]];
      p = P.restyle(gd, upd, [msg.index]);
    } else if (msg.op === "add_traces") {
      p = P.addTraces(gd, msg.traces);
    } else if (msg.op === "delete_traces") {
      p = P.deleteTraces(gd, msg.indices);
    }
    gd.dataset.peRevision = String(model.get("revision")) + "+" + msg.op;
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
    ro.disconnect();
    model.off("change:figure", onChange);
    model.off("change:revision", onChange);
    model.off("msg:custom", onMsg);
    if (Plotly && drawn) Plotly.purge(gd);
  };
}

export default { render };
