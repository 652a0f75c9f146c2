// anywidget 0.11 gives each widget's model 2 s, from the moment the model is made, to load its JavaScript module;
// a model whose module loads later has its "ready" rejected, and every later message from the kernel to it is
// dropped: the view stays as first drawn (a slow phone, a busy classroom server, a browser drawing a 3D scene
// meanwhile; tests/browser/test_widget_init.py).  Its timer is AbortSignal.timeout(2000), called from anywidget's
// code: those calls get 120 s.  A classic script in the page's head (the Voila template, before any widget is
// made) and the first lines of the widgets' own module (a notebook in JupyterLab: the models made after it).
(() => {
  const timeout = AbortSignal.timeout;
  if (typeof timeout !== "function" || timeout.pePatient) return;
  const patient = (ms) => {
    const late = ms === 2000 && /anywidget/.test(new Error().stack || "");
    return timeout.call(AbortSignal, late ? 120000 : ms);
  };
  patient.pePatient = true;
  AbortSignal.timeout = patient;
})();
