// Decoding what Python sends, and waiting for the page's plotly.js.
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
export function decode(v) {
  if (Array.isArray(v)) return v.map(decode);
  if (v && typeof v === "object" && !ArrayBuffer.isView(v)) {
    if (typeof v.bdata === "string" && typeof v.dtype === "string") return decodeSpec(v);
    const out = {};
    for (const k of Object.keys(v)) out[k] = decode(v[k]);
    return out;
  }
  return v;
}

export function whenPlotly(timeoutMs) {
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

export function concat(a, b) {                 // arrays (plain or typed) end to end, as a Float64Array when typed
  if (!a || !a.length) return b;
  if (!ArrayBuffer.isView(a) && !ArrayBuffer.isView(b)) return a.concat(b);
  const out = new Float64Array(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
}

// a figure (no explicit width in this project's figures) drawn at another width than its box has now
export function misfit(gd) {
  return !!gd._fullLayout && gd.clientWidth > 0 && Math.abs(gd._fullLayout.width - gd.clientWidth) > 1;
}
