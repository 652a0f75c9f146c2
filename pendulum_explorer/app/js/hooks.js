// The page-wide state of the views, behind one object (``window.__pe``): the Plotly calls they made, the views
// with a redraw to come, and the user's last input.  The browser tests (and anyone profiling) read it.
export const HOOKS = (window.__pe = window.__pe || {
  plotLog: [],          // the last 200 Plotly calls of every view: [start ms (performance.now), ms, what, traces]
  views: new Set(),     // per view, a function saying whether it has a redraw to come (tests wait for none)
  inputAt: -1e9,        // the last pointer or key press outside a chart
  pressAt: -1e9,        // a button held down on a chart since then (-1e9: none)
  pressSeq: 0,          // pointer presses on charts so far (a chart takes one click per press)
  pressType: "",        // the pointer type of the last press on a chart ("mouse", "touch", "pen")
  inputHooked: false,
});

export function logged(what, gd, t0) {
  const log = HOOKS.plotLog;
  log.push([Math.round(t0), Math.round(performance.now() - t0), what, gd.data ? gd.data.length : 0]);
  if (log.length > 200) log.splice(0, log.length - 200);
}

// the user's input goes first: after a pointer or key press outside a figure (a button such as "cancel", a box),
// streamed chart updates wait INPUT_FIRST_MS, so that the kernel's answer (a message, the progress bar hidden) is
// shown before the next redraw instead of queueing behind it
export const INPUT_FIRST_MS = 400;
// ...but not a redraw while its button is down: Plotly rebuilds the layer under the pointer and the click is
// lost.  Plotly redraws wait while a button is held on a chart, at most PRESS_MAX_MS (a release outside the
// window may never be seen)
const PRESS_MAX_MS = 2000;

if (!HOOKS.inputHooked) {
  HOOKS.inputHooked = true;
  const onInput = (ev) => {
    const t = ev.target;
    if (t && t.closest && t.closest(".pe-plotly")) {   // a click on a chart wants its own update at once...
      if (ev.type === "pointerdown") {
        HOOKS.pressAt = performance.now(); HOOKS.pressSeq += 1; HOOKS.pressType = ev.pointerType;
      }
      return;
    }
    HOOKS.inputAt = performance.now();
  };
  const onRelease = () => { HOOKS.pressAt = -1e9; };
  document.addEventListener("pointerdown", onInput, { capture: true, passive: true });
  document.addEventListener("keydown", onInput, { capture: true, passive: true });
  document.addEventListener("pointerup", onRelease, { capture: true, passive: true });
  document.addEventListener("pointercancel", onRelease, { capture: true, passive: true });
}

export const inputAt = () => HOOKS.inputAt;
export const pressed = () => performance.now() - HOOKS.pressAt < PRESS_MAX_MS;
