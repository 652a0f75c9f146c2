// ------------------------------------------------------------------------------------------------------------
// MotionView: the motion of the body played in the browser, in true time.
// Python sends the mesh and the attitude samples (unit quaternions, evenly spaced in time) once; every display
// frame interpolates the attitude between the two neighbouring samples (slerp) at the motion time
// t = t_start + speed * (wall-clock time since play), and draws the body (lab frame, z up) and Gamma = R^T e3 on
// the unit sphere (body frame) on two canvases.  Over the plotly figure next to them (omega and the conservation
// errors) a vertical "now" line moves with t.  Keyboard: Tab reaches play, speed and the time
// slider; space (anywhere in the player) plays / pauses; arrow keys on a view turn it.
// ------------------------------------------------------------------------------------------------------------
import { misfit } from "./decode.js";
import { SPEEDS, TRAIL_S, floats, quatToMatrix, slerp, View, legend, hexRgb } from "./motion_geom.js";
import { Instruments } from "./motion_instruments.js";

// a template of MotionView.words with its {name}s filled in
export const fillWords = (s, o) => s.replace(/\{(\w+)\}/g, (m, k) => (k in o ? String(o[k]) : m));

export class MotionPlayer {
  constructor(model, el) {
    this.model = model;
    const words = model.get("words") || {};
    this.w = (k, d) => words[k] || d;     // the page's language (MotionView.words); English when absent
    this.el = el;
    this.root = document.createElement("div");
    this.root.className = "pe-motion-player";
    this.root.style.cssText = "width:100%;font-size:14px;";
    const bar = this.buildBar();
    const row = this.buildRow();
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
    this.slider.addEventListener("change", () => this.tellTime(true));
    this.root.addEventListener("keydown", (ev) => {
      if (ev.key !== " " || ev.target === this.play || ev.target.tagName === "SELECT") return;
      ev.preventDefault(); this.toggle();
    });
    const redraw = () => this.draw();
    this.bodyView.bindTurning(redraw);
    this.sphereView.bindTurning(redraw);
    this.onAnim = () => this.reload();
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

  // the controls: play, speed, the time slider and its readout
  buildBar() {
    const bar = document.createElement("div");
    bar.className = "pe-motion-bar";
    bar.style.cssText = "display:flex;align-items:center;gap:10px;flex-wrap:wrap;margin:2px 0 4px 0;";
    this.play = document.createElement("button");
    this.play.className = "pe-play jupyter-button";
    this.play.type = "button";
    this.play.style.cssText = "min-width:92px;height:30px;font-size:14px;";
    const speedLabel = document.createElement("label");
    speedLabel.textContent = this.w("speed", "speed ");
    this.speed = document.createElement("select");
    this.speed.className = "pe-speed";
    this.speed.style.cssText = "height:30px;font-size:14px;";
    for (const s of SPEEDS) {
      const o = document.createElement("option");
      o.value = String(s);
      o.textContent = s === 1 ? this.w("speed_real", "1× (real time)") : `${s}×`;
      this.speed.appendChild(o);
    }
    this.speed.value = "1";
    speedLabel.appendChild(this.speed);
    this.slider = document.createElement("input");
    this.slider.type = "range";
    this.slider.className = "pe-time";
    this.slider.min = "0"; this.slider.max = "1000"; this.slider.step = "1"; this.slider.value = "0";
    this.slider.setAttribute("aria-label", this.w("time_aria", "motion time"));
    this.slider.style.cssText = "flex:1 1 200px;min-width:120px;";
    this.label = document.createElement("span");
    this.label.className = "pe-time-label";
    this.label.setAttribute("aria-live", "off");
    this.label.style.cssText = "font-variant-numeric:tabular-nums;min-width:16ch;";
    bar.append(this.play, speedLabel, this.slider, this.label);
    return bar;
  }

  // the two canvas views and the plots' host with its "now" lines
  buildRow() {
    const row = document.createElement("div");
    row.className = "pe-motion-row";
    row.style.cssText = "display:flex;width:100%;gap:4px;";
    const turn = this.w("turn_hint", " (arrow keys or drag to turn the view)");
    this.bodyView = new View("pe-body-view", this.w("body_view", "the body in the lab frame") + turn, 45, 22);
    this.sphereView = new View("pe-sphere-view", this.w("sphere_view", "Gamma on the unit sphere, body frame") + turn,
                               45, 22);
    const boxes = [];
    const captions = [this.w("body_caption", "body, pivot and centre of mass (up is up)"),
                      this.w("sphere_caption", "Γ(t) = Rᵀe₃ on the sphere (body frame)")];
    for (const [v, frac, title] of [[this.bodyView, "35%", captions[0]], [this.sphereView, "24%", captions[1]]]) {
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
    this.markers = [0, 1, 2].map(() => {   // moved every frame (a plotly relayout costs ~50 ms in software rendering)
      const m = document.createElement("div");
      m.className = "pe-now-line";
      m.style.cssText = "position:absolute;width:2px;background:#000;pointer-events:none;display:none;z-index:2;";
      this.plotHost.appendChild(m);
      return m;
    });
    this.instruments = new Instruments(this.w);   // stopwatch and energy bars, beside the body
    row.append(boxes[0], this.instruments.el, boxes[1], this.plotHost);
    return row;
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
    this.instruments.load(a);
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
  pause() { this.playing = false; cancelAnimationFrame(this.raf); this.showTime(); this.tellTime(true); }

  attitude(t) {                          // the interpolated attitude at motion time t -> this.q, this.R
    const u = Math.min(Math.max((t - this.t0) / this.dt, 0), this.n - 1);
    const i = Math.min(Math.floor(u), this.n - 2);
    slerp(this.Q, i, u - i, this.q);
    quatToMatrix(this.q[0], this.q[1], this.q[2], this.q[3], this.R);
    return this.R;
  }

  showTime() {
    this.play.textContent = this.playing ? this.w("pause", "❚❚ pause") : this.w("play", "▶ play");
    this.play.setAttribute("aria-label", this.playing ? this.w("pause_aria", "pause the animation")
      : this.w("play_aria", "play the animation"));
    const sp = Number(this.speed.value) || 1;
    const total = this.tEnd.toPrecision(3).replace(/\.?0+$/, "");
    const dec = (x) => x.replace(".", this.w("decimal", "."));   // the page language's decimal sign
    this.label.textContent = fillWords(this.w("time", "t = {t} s of {total} s"), { t: dec(this.t.toFixed(2)),
      total: dec(total) })
      + (sp === 1 ? this.w("real", " (real time)") : fillWords(this.w("times_real", " ({sp}× real time)"), { sp }));
    if (this.tEnd > this.t0) this.slider.value = String(Math.round(1000 * (this.t - this.t0) / (this.tEnd - this.t0)));
  }

  // a new motion; one that continues the shown one (``keep_time``: a parameter changed while it moves) keeps
  // the motion time and plays on if it was playing
  reload() {
    const keep = !!(this.model.get("animation") || {}).keep_time && this.n >= 2, t = this.t, was = this.playing;
    this.pause(); this.load();
    if (!keep) return;
    this.t = Math.min(Math.max(t, this.t0), this.tEnd);
    this.draw();
    if (was) this.start();
  }

  // the motion time shown, told to the kernel (``now``) at most every 0.3 s while playing and at every pause or
  // seek: the time a parameter changed while it moves continues from (no message per frame)
  tellTime(force) {
    const w = performance.now();
    if (!force && this.toldAt !== undefined && w - this.toldAt < 300) return;
    if (this.told === this.t) return;
    this.toldAt = w; this.told = this.t;
    this.model.set("now", this.t); this.model.save_changes();
  }

  draw(wall) {
    this.instruments.update(this.t);
    this.tellTime(false);
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
    if (!fl || !fl.xaxis || !fl.yaxis || typeof fl.xaxis.l2p !== "function") {
      for (const m of this.markers) m.style.display = "none";
      return;
    }
    const xa = fl.xaxis, x = xa._offset + xa.l2p(this.t);
    const inside = x >= xa._offset - 0.5 && x <= xa._offset + xa._length + 0.5;
    [fl.yaxis, fl.yaxis2, fl.yaxis3].forEach((ya, i) => {   // one line over each plot (time shared)
      const m = this.markers[i];
      m.style.display = inside && ya ? "" : "none";
      if (!ya) return;
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
      legend(b, v, [["diamond", c.pivot, this.w("pivot", "pivot")],
                    ["dot", c.com, this.w("com", "centre of mass (bold: last 2 s of its path)")]], k);
      v.bgValid = true;
    }
    ctx.setTransform(v.dpr, 0, 0, v.dpr, 0, 0);
    ctx.clearRect(0, 0, v.w, v.h);
    ctx.drawImage(v.bg, 0, 0, v.w, v.h);
    // the mesh: D R v, faces sorted far to near, flat shaded
    const R = this.R, V = this.V, P = this.P, F = this.F, e = v.cam.e;
    const X = new Float64Array(3 * this.nv);
    for (let n = 0; n < this.nv; n++) {
      const x = V[3 * n], y = V[3 * n + 1], z = V[3 * n + 2];
      X[3 * n] = R[0] * x + R[1] * y + R[2] * z;
      X[3 * n + 1] = -(R[3] * x + R[4] * y + R[5] * z);
      X[3 * n + 2] = -(R[6] * x + R[7] * y + R[8] * z);
      v.project(X[3 * n], X[3 * n + 1], X[3 * n + 2], P, 3 * n);
    }
    for (let f = 0; f < this.nf; f++) {
      this.order[f] = f;
      this.depth[f] = P[3 * F[3 * f] + 2] + P[3 * F[3 * f + 1] + 2] + P[3 * F[3 * f + 2] + 2];
    }
    const order = Array.from(this.order).sort((a, b) => this.depth[a] - this.depth[b]);
    const [r0, g0, b0] = this.bodyRgb;
    ctx.lineJoin = "round"; ctx.lineWidth = 0.6;
    for (const f of order) {
      const i = F[3 * f], j = F[3 * f + 1], m = F[3 * f + 2];
      const ax = X[3 * j] - X[3 * i], ay = X[3 * j + 1] - X[3 * i + 1], az = X[3 * j + 2] - X[3 * i + 2];
      const bx = X[3 * m] - X[3 * i], by = X[3 * m + 1] - X[3 * i + 1], bz = X[3 * m + 2] - X[3 * i + 2];
      const nx = ay * bz - az * by, ny = az * bx - ax * bz, nz = ax * by - ay * bx;
      const nn = Math.hypot(nx, ny, nz) || 1;
      const light = 0.55 + 0.45 * Math.abs((nx * e[0] + ny * e[1] + nz * e[2]) / nn);
      const col = `rgba(${Math.round(r0 * light)},${Math.round(g0 * light)},${Math.round(b0 * light)},0.85)`;
      ctx.fillStyle = col; ctx.strokeStyle = col;
      ctx.beginPath();
      ctx.moveTo(P[3 * i], P[3 * i + 1]); ctx.lineTo(P[3 * j], P[3 * j + 1]); ctx.lineTo(P[3 * m], P[3 * m + 1]);
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
      legend(b, v, [["dot", c.gamma, this.w("gamma", "Γ(t) (bold: last 2 s of its path)")]].concat(
        this.hanging ? [["cross", "#000000", this.w("hanging", "hanging equilibrium ρ/|ρ|")]] : []), k);
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
