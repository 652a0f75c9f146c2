// The anywidget module of PlotlyView and MotionView (see plotview.py): one view per widget.
import { PlotView } from "./plot.js";

function render({ model, el }) {
  const view = new PlotView(model, el);
  return () => view.dispose();
}

export default { render };
