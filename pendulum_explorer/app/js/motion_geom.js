// The motion player's geometry: attitude samples, cameras and canvas views.
export const SPEEDS = [0.1, 0.25, 0.5, 1, 2, 4, 10];
export const TRAIL_S = 2.0;          // seconds of motion drawn bold behind the moving point

export function floats(dv, T) {      // a binary buffer (DataView) as a typed array (copied: the buffer may be unaligned)
  if (!dv) return new T(0);
  const buf = dv.buffer.slice(dv.byteOffset, dv.byteOffset + dv.byteLength);
  return new T(buf);
}

export function quatToMatrix(x, y, z, w, R) {   // scalar-last unit quaternion -> row-major 3x3 (scipy's convention)
  R[0] = 1 - 2 * (y * y + z * z); R[1] = 2 * (x * y - z * w);     R[2] = 2 * (x * z + y * w);
  R[3] = 2 * (x * y + z * w);     R[4] = 1 - 2 * (x * x + z * z); R[5] = 2 * (y * z - x * w);
  R[6] = 2 * (x * z - y * w);     R[7] = 2 * (y * z + x * w);     R[8] = 1 - 2 * (x * x + y * y);
  return R;
}

export function slerp(Q, i, f, out) {           // between samples i and i+1 of Q (n*4), fraction f in [0, 1]
  const a = 4 * i, b = 4 * (i + 1);
  let bx = Q[b], by = Q[b + 1], bz = Q[b + 2], bw = Q[b + 3];
  let d = Q[a] * bx + Q[a + 1] * by + Q[a + 2] * bz + Q[a + 3] * bw;
  if (d < 0) { d = -d; bx = -bx; by = -by; bz = -bz; bw = -bw; }
  let sa, sb;
  if (d > 0.9999995) { sa = 1 - f; sb = f; }
  else { const th = Math.acos(d), s = Math.sin(th); sa = Math.sin((1 - f) * th) / s; sb = Math.sin(f * th) / s; }
  const x = sa * Q[a] + sb * bx, y = sa * Q[a + 1] + sb * by, z = sa * Q[a + 2] + sb * bz, w = sa * Q[a + 3] + sb * bw;
  const nrm = Math.hypot(x, y, z, w);
  out[0] = x / nrm; out[1] = y / nrm; out[2] = z / nrm; out[3] = w / nrm;
  return out;
}

export class Camera {                           // orthographic view from azimuth / elevation (degrees), z up
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

export class View {                             // one canvas: a camera, a scale, a cached background layer
  constructor(cls, label, az, el) {
    this.canvas = document.createElement("canvas");
    this.canvas.className = cls;
    this.canvas.tabIndex = 0;
    this.canvas.setAttribute("role", "img");
    this.canvas.setAttribute("aria-label", label);       // (with how to turn it: MotionPlayer.buildRow)
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

export function legend(b, v, items, k) {        // a few symbol + text rows in the bottom-left corner of a view (size k)
  b.font = `${Math.round(12 * k)}px sans-serif`; b.textBaseline = "middle";
  // a narrow view (the presenter's larger text beside the energy bars): the text made smaller to fit its width
  const room = v.w - 22 * k, widest = Math.max(...items.map((it) => b.measureText(it[2]).width));
  if (widest > room && room > 0) b.font = `${Math.max(9, Math.floor(12 * k * room / widest))}px sans-serif`;
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

export function hexRgb(hex) { const v = parseInt(hex.slice(1), 16); return [(v >> 16) & 255, (v >> 8) & 255, v & 255]; }
