"""The dashboard's layout by the width of the screen (phones, tablets) and by its pointer (touch), and what the
page does for users who ask for less motion: a style sheet, sent with the shell's (:data:`.shell_text.CSS`).

* **Below 700 px** (a phone; ``PHONE_MAX``): every two-column row of a panel (the body's controls and preview, the
  equilibria's sphere and diagram, the section chart and its control column) becomes one column, the chart first
  at the full width; a control's label takes the width its text needs (the fixed label widths of the desktop
  layout cut "crossings (100–5000)" to "crossings (100–50"), buttons are as wide as their text, the tab labels
  wrap onto two lines instead of being cut ("Poincaré s"), each tab at least as wide as its longest word (German:
  "Gleichgewichte" 95 px in an 85 px tab, when the four tabs were of one width), the first-steps guide puts its
  button below it, the equilibria's steady-spin menu goes below its label at the column's width (German: "hängend in
  Ruhe (senkrecht n" was cut).
* **701–1000 px** (a tablet, a narrow window): the two columns stay, the control column's labels and buttons are
  whole (they wrap within the column), the steady-spin menu below its label as on a phone.
* **Up to 1000 px** (phones and tablets): the Motion tab's views (body and sphere; on a tablet the energy bars
  between them) share one row, its plots below them at the full width (at 820 px beside the views they were 250 px wide, their titles cut: German "Fehler der
  Erhaltungsgröß…").
* **A touch screen** (``pointer: coarse``): the tabs, the buttons and the Motion tab's controls (play, speed,
  the time slider's thumb) are at least 44 x 44 px (WCAG 2.5.5), the plotly mode bar's buttons too.
* Focus: a 3 px outline on whatever has the keyboard focus (inputs, menus, tabs, slider handles, plotly's
  mode bar buttons had none, the buttons a faint shadow).
* ``prefers-reduced-motion: reduce``: no CSS transitions or animations (the progress bar's stripes, lumino's).

The rows are found by what they hold (``:has()``), so the panels need no class for it.  The plotly side of the
narrow layout (a figure's legend below its plot when the plot is narrow) is in ``js/plot.js``.
"""
from __future__ import annotations

#: the widest screen [CSS px] laid out as one column (a phone in portrait; 390 px is the common size)
PHONE_MAX = 700
#: the widest screen laid out as a tablet: two columns, their labels and buttons allowed to wrap
TABLET_MAX = 1000

# the panels' two-column rows (chart | controls), found by the widgets they hold
_COLUMNS = ", ".join([
    ".pe-app .pe-section .widget-hbox:has(> .widget-vbox > .pe-section-chart)",
    ".pe-app .pe-equilibria .widget-hbox:has(> .widget-vbox > .pe-eq-choice)",
    ".pe-app .pe-body .widget-hbox:has(> .widget-vbox > .pe-preset)",
])


def _each(selectors: str, suffix: str) -> str:
    """``selectors`` (comma separated) each followed by ``suffix``."""
    return ", ".join(s.strip() + suffix for s in selectors.split(","))


RESPONSIVE_CSS = f"""<style>
@media (max-width: {PHONE_MAX}px) {{
  body:has(.pe-app) .lm-BoxPanel-child {{ padding: 4px !important; }}
  body:has(.pe-app) .jp-Cell {{ padding: 0 !important; }}
  .pe-app .jupyter-widget-TabPanel-tabContents, .pe-app .widget-tab-contents {{ padding: 8px 4px !important; }}
  {_COLUMNS} {{ flex-direction: column !important; }}
  {_each(_COLUMNS, " > .widget-vbox")} {{ width: 100% !important; min-width: 0 !important; max-width: 100% !important;
    padding-left: 0 !important; padding-right: 0 !important; }}
  .pe-app .widget-inline-hbox:not(.widget-slider) {{ width: auto !important; max-width: 100% !important;
    flex-wrap: wrap; }}
  .pe-app .widget-inline-hbox > .widget-label {{ width: auto !important; max-width: 100% !important;
    min-width: 0 !important; flex: 0 0 auto; white-space: normal; }}
  .pe-app .widget-inline-hbox > input, .pe-app .widget-inline-hbox > select, .pe-app .widget-inline-hbox > textarea
    {{ flex: 1 1 70px; min-width: 70px; }}
  .pe-app .widget-button, .pe-app .widget-toggle-button, .pe-app .widget-upload {{ width: auto !important;
    min-width: fit-content !important; max-width: 100%; padding: 0 10px; }}
  .pe-app .widget-hslider {{ max-width: 100% !important; }}
  .pe-app .widget-dropdown {{ max-width: 100% !important; }}
  .pe-app .widget-dropdown > select {{ max-width: 100%; }}
  .pe-app .lm-TabBar-tab, .pe-app .p-TabBar-tab {{ flex: 1 1 auto !important; min-width: min-content !important;
    max-width: none !important; height: auto !important; min-height: 44px; padding: 2px 4px !important; }}
  .pe-app .lm-TabBar-tabLabel, .pe-app .p-TabBar-tabLabel {{ white-space: normal !important;
    overflow: visible !important;
    text-overflow: clip !important; line-height: 1.2; text-align: center; }}
  .pe-app .lm-TabBar, .pe-app .p-TabBar {{ height: auto !important; min-height: 0 !important; }}
  .pe-app .lm-TabBar-content, .pe-app .p-TabBar-content {{ align-items: stretch; }}
  .pe-app .pe-guide-box {{ flex-wrap: wrap !important; }}
  .pe-app .pe-guide-box > .widget-html {{ flex: 1 1 100% !important; }}
  .pe-app .pe-motion-bar .pe-time-label {{ min-width: 0 !important; }}
  .pe-app .pe-eq-choice {{ height: auto !important; }}
  .pe-app .pe-eq-choice > select {{ flex: 1 1 100% !important; }}
}}
@media (max-width: {TABLET_MAX}px) {{
  .pe-app .pe-motion-row {{ flex-wrap: wrap !important; height: auto !important; row-gap: 8px; }}
  .pe-app .pe-motion-row > div:not(.pe-motion-plots) {{ flex: 1 1 40% !important; }}
  .pe-app .pe-motion-row > .pe-motion-plots {{ flex: 1 1 100% !important; }}
}}
@media (min-width: {PHONE_MAX + 1}px) and (max-width: {TABLET_MAX}px) {{
  .pe-app .pe-motion-row > div:not(.pe-motion-plots):not(.pe-instruments) {{ flex: 1 1 0 !important; }}
  .pe-app .pe-motion-row > div.pe-instruments {{ flex: 0 0 auto !important; }}
  {_each(_COLUMNS, " > .widget-vbox")} {{ min-width: 0 !important; }}
  {_each(_COLUMNS, " .widget-inline-hbox:not(.widget-slider)")} {{ width: auto !important;
    max-width: 100% !important; }}
  {_each(_COLUMNS, " .widget-inline-hbox > input")} {{ flex: 1 1 70px; min-width: 70px; }}
  {_each(_COLUMNS, " .widget-inline-hbox > .widget-label")} {{ width: auto !important; min-width: 0 !important;
    max-width: 100% !important; flex: 0 0 auto; }}
  {_each(_COLUMNS, " .widget-button")} {{ width: auto !important; min-width: fit-content !important;
    max-width: 100%; }}
  .pe-app .pe-eq-choice {{ flex-wrap: wrap; height: auto !important; }}
  .pe-app .pe-eq-choice > select {{ flex: 1 1 100% !important; }}
}}
@media (pointer: coarse) {{
  .pe-app .lm-TabBar-tab, .pe-app .p-TabBar-tab {{ min-height: 44px !important; height: auto !important;
    display: flex; align-items: center; }}
  .pe-app .lm-TabBar, .pe-app .p-TabBar {{ height: auto !important; min-height: 0 !important; }}
  .pe-app .widget-button, .pe-app .widget-toggle-button {{ min-height: 44px !important; }}
  .pe-app .pe-motion-bar .pe-play {{ min-height: 44px !important; min-width: 96px !important; }}
  .pe-app .pe-motion-bar .pe-speed {{ min-height: 44px !important; }}
  .pe-app .pe-motion-bar .pe-time {{ -webkit-appearance: none; appearance: none; height: 44px; min-height: 44px;
    background: transparent; margin: 0; }}
  .pe-app .pe-motion-bar .pe-time::-webkit-slider-runnable-track {{ height: 6px; background: #8a8a8a;
    border-radius: 3px; }}
  .pe-app .pe-motion-bar .pe-time::-webkit-slider-thumb {{ -webkit-appearance: none; width: 32px; height: 32px;
    margin-top: -13px; border-radius: 50%; background: #0072B2; border: 3px solid #ffffff;
    box-shadow: 0 0 0 1px #0072B2; }}
  .pe-app .pe-motion-bar .pe-time::-moz-range-track {{ height: 6px; background: #8a8a8a; border-radius: 3px; }}
  .pe-app .pe-motion-bar .pe-time::-moz-range-thumb {{ width: 28px; height: 28px; border-radius: 50%;
    background: #0072B2; border: 3px solid #ffffff; }}
  .pe-app .modebar-btn {{ padding: 10px 6px !important; }}
}}
/* the damping box's label takes the width its text needs (German: "Dämpfung c (0…100 N m s)" was cut at 175 px) */
.pe-app .pe-motion-damping {{ width: auto !important; }}
.pe-app .pe-motion-damping > .widget-label {{ width: auto !important; min-width: fit-content !important; }}
.pe-app .pe-motion-damping > input {{ flex: 0 0 62px; width: 62px; }}
/* focus visible on every focusable element: text boxes (ipywidgets: "outline: none !important", outdone here by
   specificity), menus, tabs, slider handles and plotly's mode bar buttons had none, the buttons a faint shadow */
.pe-app.pe-app :focus-visible, .pe-app.pe-app .noUi-handle:focus {{ outline: 3px solid #0072B2 !important;
  outline-offset: 1px !important; }}
/* what only a screen reader reads (each tab panel's heading, pagebridge.py) */
.pe-app .pe-sr-only {{ position: absolute !important; width: 1px; height: 1px; margin: -1px; padding: 0; border: 0;
  overflow: hidden; clip: rect(0 0 0 0); clip-path: inset(50%); white-space: nowrap; }}
@media (prefers-reduced-motion: reduce) {{
  .pe-app *, .pe-app *::before, .pe-app *::after {{ animation: none !important; transition: none !important; }}
}}
</style>"""
