// The motion player's instruments: a stopwatch a class can read and three energy bars (kinetic, potential,
// total), beside the animation.  The energies of every sample arrive once with the motion (``animation.energies``,
// float32 n x 3, from the model layer, potential and total from the hanging position); each frame interpolates
// them at the motion time and sets the bars: no kernel round trip per frame.  Bars and numbers are Eq 34's K,
// U = -m g rho.Gamma and E (``animation.energy_zero`` = m g |rho| subtracted), the E the rest of the dashboard
// shows: each bar stands on a zero line, up for a positive value, down for a negative one, all on one scale
// (the range of the motion's values), so that a bar is as long as its number says (the bars stood on the hanging
// position while the numbers were Eq 34's: K "3.1" was drawn shorter than E "2.0").
import { floats } from "./motion_geom.js";

const BARS = [["kinetic", "K", "#E69F00"], ["potential", "U", "#009E73"], ["total", "E", "#000000"]];

export class Instruments {
  constructor(w = (k, d) => d) {          // w(key, English): the page's words (MotionView.words)
    this.w = w;
    this.dec = (x) => x.replace(".", w("decimal", "."));   // the page language's decimal sign
    this.el = document.createElement("div");
    this.el.className = "pe-instruments";
    this.el.style.cssText = "flex:0 0 auto;width:clamp(84px, 6em, 118px);min-width:0;display:flex;flex-direction:column;gap:4px;";
    this.clock = document.createElement("div");
    this.clock.className = "pe-stopwatch";
    this.clock.setAttribute("role", "timer");
    this.clock.setAttribute("aria-label", w("time_aria", "motion time"));
    this.clock.style.cssText = "font-size:1.75em;font-weight:600;line-height:1.1;text-align:center;"
      + "font-variant-numeric:tabular-nums;color:#1a1a1a;white-space:nowrap;overflow:hidden;";
    this.seconds = document.createElement("span");
    const unit = document.createElement("span");
    unit.textContent = " s";
    unit.style.fontSize = "0.55em";
    this.clock.append(this.seconds, unit);
    const cap = document.createElement("div");
    cap.className = "pe-energy-caption";
    cap.textContent = w("energy", "energy [J]");
    cap.style.cssText = "font-size:0.93em;text-align:center;color:#2a3f5f;";
    const box = document.createElement("div");
    box.className = "pe-energy-bars";
    box.setAttribute("role", "img");
    box.setAttribute("aria-label", w("bars_aria", "energy bars: kinetic, potential, total"));
    box.style.cssText = "flex:1 1 auto;min-height:60px;display:flex;gap:6px;align-items:stretch;";
    this.bars = BARS.map(([key, short, colour]) => {
      const col = document.createElement("div");
      col.style.cssText = "flex:1 1 0;display:flex;flex-direction:column;align-items:center;min-width:0;";
      const value = document.createElement("div");
      value.className = "pe-energy-value";
      value.style.cssText = "font-size:0.66em;font-variant-numeric:tabular-nums;white-space:nowrap;";
      const track = document.createElement("div");
      track.style.cssText = "flex:1 1 auto;width:100%;position:relative;background:#f2f2f2;"
        + "border-bottom:1px solid #888;";
      const bar = document.createElement("div");
      bar.className = `pe-energy-bar pe-energy-${key}`;
      bar.style.cssText = `position:absolute;left:12%;right:12%;bottom:0;height:0;background:${colour};`;
      const zeroLine = document.createElement("div");
      zeroLine.className = "pe-energy-zero";
      zeroLine.style.cssText = "position:absolute;left:0;right:0;bottom:0;height:0;border-top:1px solid #555;";
      track.append(bar, zeroLine);
      const label = document.createElement("div");
      label.textContent = short;
      label.title = w(key, { kinetic: "kinetic energy", potential: "potential energy U = −m g ρ·Γ (Eq 34)",
        total: "total energy E (Eq 34)" }[key]);
      label.style.cssText = "font-weight:600;";
      col.append(value, track, label);
      box.appendChild(col);
      return { key, bar, value, zeroLine };
    });
    this.note = document.createElement("div");
    this.note.className = "pe-damping-note";
    this.note.style.cssText = "font-size:0.75em;line-height:1.2;color:#555;text-align:center;";
    this.el.append(this.clock, cap, box, this.note);
    this.box = box;
    this.E = new Float32Array(0); this.n = 0; this.zero = 0; this.lo = 0; this.span = 1;
    this.now = [0, 0, 0];                    // the energies written last: K, U, E of Eq 34 (tests)
  }

  load(a) {
    this.E = floats(a.energies, Float32Array);
    this.n = this.E.length / 3;
    this.t0 = a.t0 || 0; this.dt = a.dt || 1;
    this.zero = a.energy_zero || 0;          // m g |rho|: subtracted from U and E (Eq 34)
    // one scale for the three bars: the range of the motion's K, U and E, and 0
    let lo = 0, hi = 0;
    for (let k = 0; k < 3 * this.n; k++) {
      const v = k % 3 === 0 ? this.E[k] : this.E[k] - this.zero;
      if (v < lo) lo = v;
      if (v > hi) hi = v;
    }
    this.lo = lo; this.span = Math.max(hi - lo, 1e-30);
    const z = `${(100 * -lo / this.span).toFixed(2)}%`;
    for (const b of this.bars) b.zeroLine.style.bottom = z;
    const c = a.damping || 0;
    const cText = c.toPrecision(3).replace(/\.?0+$/, "");
    this.note.textContent = c > 0 ? this.w("damping", "damping c = {c} N m s (not in the paper's model)")
      .replace("{c}", this.dec(cText)) : "";
    this.el.style.display = this.n >= 2 ? "flex" : "none";
  }

  update(t) {
    const whole = (t - this.t0).toFixed(2);
    this.seconds.textContent = this.dec(whole);
    if (this.n < 2) return;
    const u = Math.min(Math.max((t - this.t0) / this.dt, 0), this.n - 1);
    const i = Math.min(Math.floor(u), this.n - 2), f = u - i, E = this.E;
    const now = {};
    for (let j = 0; j < 3; j++) {
      const v = (1 - f) * E[3 * i + j] + f * E[3 * i + 3 + j];
      const shown = j === 0 ? v : v - this.zero;       // Eq 34's U and E
      this.now[j] = shown;
      const b = this.bars[j];
      const pct = (x) => `${Math.max(0, Math.min(100, 100 * x)).toFixed(2)}%`;
      b.bar.style.bottom = pct((Math.min(shown, 0) - this.lo) / this.span);   // from the zero line, down if < 0
      b.bar.style.height = pct(Math.abs(shown) / this.span);
      b.value.textContent = this.dec(shown.toPrecision(2));   // (three bars side by side: short numbers; 3 digits in the label)
      now[BARS[j][1]] = this.dec(shown.toPrecision(3));
    }
    this.box.setAttribute("aria-label", this.w("energy_now", "energy: kinetic {K} J, potential {U} J, total {E} J")
      .replace(/\{(\w)\}/g, (m, k) => now[k] ?? m));
  }
}
