"""Panel 1: the body (presets, custom shape, custom J and rho, g) with its data and a 3D preview."""
from __future__ import annotations

import ipywidgets as w
import numpy as np

from .. import presets
from ..bodies import Pendulum, build_body, equivalent_body
from ..errors import BalancedPendulumError
from ..plotting.body import body_preview_figure
from .body_text import about_html, body_summary_html
from . import i18n
from .common import PRESET_TITLES, Messages, about, body_title, figure_output, guarded
from .i18n import N_, _
from .plausible import BALANCED, G_RANGE, check_plausible_pendulum, check_plausible_shape, check_range

PRESET_LABELS = [(t, k) for k, t in PRESET_TITLES.items()]
#: the preview's height [px]: the 3D scene and the legend's rows under it
PREVIEW_HEIGHT = 430

SHAPES = [(N_("elliptic cylinder (a, b semi-axes, h height)"), "elliptic_cylinder"),
          (N_("box (side lengths)"), "box"), (N_("ellipsoid (semi-axes)"), "ellipsoid")]

def _float_text(value, description, width="128px", step=0.01):
    # three in a row fit the 480 px control column (inside an accordion) without clipping the third
    return w.FloatText(value=value, description=description, step=step,
                       layout=w.Layout(width=width), style={"description_width": "34px"})


def _caption(text):
    return w.HTML(f"<span style='font-size:13px;color:#333'>{text}</span>", layout=w.Layout(margin="2px 0 0 8px"))


class BodyPanel:
    """Choose the body; the state's ``body`` event tells the other panels."""

    _DEFAULTS = {"dims": (0.8, 0.2, 0.6), "pivot": (-0.4, 0.1, -0.3)}

    def __init__(self, state):
        self.state = state
        self.msg = Messages()
        # the label as wide as its word (Spanish "predefinido" was cut to "predefi…" in 60 px)
        self.preset = w.Dropdown(options=[(_(t), k) for t, k in PRESET_LABELS], value=None, description=_("preset"),
                                 layout=w.Layout(width="360px"),
                                 style={"description_width": f"{max(60, int(7.2 * len(_('preset'))) + 6)}px"})
        self.preset.add_class("pe-preset")
        self.g = w.FloatText(value=float(state.pendulum.g), description="g [m/s²]", step=0.1, layout=w.Layout(width="170px"),
                             style={"description_width": "60px"})
        self.g.add_class("pe-g")
        self.g_msg = Messages()  # preset and g messages, right under those controls
        self.g_msg.layout.min_height = "0"
        # custom shape
        self.shape_kind = w.Dropdown(options=[(_(t), k) for t, k in SHAPES], value="elliptic_cylinder",
                                     description=_("shape"),
                                     layout=w.Layout(width="340px"), style={"description_width": "60px"})
        self.dims = [_float_text(v, d) for v, d in zip((0.8, 0.2, 0.6), ("a", "b", "h"))]
        self.mass = _float_text(1.0, "m")
        self.pivot = [_float_text(v, d) for v, d in zip((-0.4, 0.1, -0.3), ("x", "y", "z"))]
        for p in self.pivot:
            p.style.description_width = "20px"
        self.apply_shape = w.Button(description=_("use this shape"), button_style="primary", icon="check",
                                    layout=w.Layout(width="auto", min_width="148px"))
        self.shape_msg = Messages()  # custom shape and custom J messages, right under their buttons
        self.shape_msg.layout.min_height = "0"
        self.J_msg = Messages()
        self.J_msg.layout.min_height = "0"
        self.apply_shape.add_class("pe-apply-shape")
        self.shape_kind.observe(self._on_kind, names="value")
        # custom J, rho
        J0 = presets.paper_fig1().pendulum
        Jv = np.asarray(J0.J)
        self.J = {k: _float_text(round(float(Jv[i, j]), 6), k, step=0.001) for k, (i, j) in
                  {"J11": (0, 0), "J22": (1, 1), "J33": (2, 2), "J12": (0, 1), "J13": (0, 2), "J23": (1, 2)}.items()}
        self.rho = [_float_text(round(float(x), 6), f"ρ{i + 1}", step=0.01) for i, x in enumerate(J0.rho)]
        self.mass_J = _float_text(1.0, "m")
        self.apply_J = w.Button(description=_("use this J, ρ"), button_style="primary", icon="check",
                                layout=w.Layout(width="auto", min_width="148px"))
        self.apply_J.add_class("pe-apply-j")
        for k, t in self.J.items():
            t.add_class(f"pe-{k.lower()}")
        self.summary = w.HTML()
        self.preview = figure_output(f"{PREVIEW_HEIGHT}px")
        self.preview.add_class("pe-body-preview")

        shape_box = w.VBox([self.shape_kind, _caption(_("dimensions [m]")), w.HBox(self.dims),
                            _caption(_("mass [kg]")), w.HBox([self.mass]),
                            _caption(_("pivot position from the body's centre [m]")), w.HBox(self.pivot),
                            self.apply_shape, self.shape_msg])
        J_box = w.VBox([_caption(_("J, the inertia about the pivot [kg m²]")),
                        w.HBox([self.J["J11"], self.J["J22"], self.J["J33"]]),
                        w.HBox([self.J["J12"], self.J["J13"], self.J["J23"]]),
                        _caption(_("ρ, from the pivot to the centre of mass [m]")), w.HBox(self.rho),
                        _caption(_("mass [kg]")), w.HBox([self.mass_J]), self.apply_J, self.J_msg])
        self.custom = w.Accordion(children=[shape_box, J_box], titles=(_("custom shape"), _("custom J and ρ")))
        self.custom.selected_index = None
        controls = w.VBox([self.preset, self.g, self.g_msg, self.custom, self.msg, self.summary],
                          layout=w.Layout(width="500px", min_width="440px"))
        self.widget = w.VBox([w.HBox([controls, w.VBox([self.preview], layout=w.Layout(width="100%", min_width="500px"))],
                                     layout=w.Layout(width="100%")),
                              about(about_html(), _("About: the body and its small oscillations"))])
        self.widget.layout.padding = "4px"

        self.preset.observe(self._on_preset, names="value")
        self.g.observe(self._on_g, names="value")
        self.apply_shape.on_click(self._on_apply_shape)
        self.apply_J.on_click(self._on_apply_J)
        self._source = None
        self._show_source(self.state.body)
        self._fill_J(self.state.pendulum)
        self.state.listen("body", self._on_state_body)
        self.state.listen("presenter", lambda on: self.refresh())
        self.refresh()

    # ------------------------------------------------------------------ actions
    def _on_kind(self, change):
        names = {"elliptic_cylinder": ("a", "b", "h"), "box": ("lx", "ly", "lz"), "ellipsoid": ("a", "b", "c")}
        for t, d in zip(self.dims, names[change["new"]]):
            t.description = d

    @guarded(msg_attr="g_msg", what=N_("choosing a preset"))
    def _on_preset(self, change):
        self.set_preset(change["new"])

    def set_preset(self, name):
        if name is None:
            return
        body = presets.get(name, g=self._g())
        self._use(body, _("{body} in use").format(body=_(PRESET_TITLES.get(name, name))), self.g_msg, kind="preset")

    @guarded(msg_attr="g_msg", what=N_("changing g"))
    def _on_g(self, change):
        try:
            body = self._with_g(self.state.body, self._g())
            self._use(body, "g = {g} m/s²".format(g=i18n.number(self._g())), self.g_msg, kind=self._source[0])
        except ValueError as exc:
            # the body in use keeps its g, and the box shows it again
            g_in_use = self.state.pendulum.g
            self._set_quietly(self.g, g_in_use, self._on_g)
            raise ValueError(_("{problem}. g stays at {g} m/s².").format(problem=exc, g=i18n.number(g_in_use))) \
                from None

    def _with_g(self, body, g):
        """The body in use with another g: rebuilt from what is in use (its preset, its shape or its J and rho),
        never from edits in the custom boxes that were not applied."""
        if g > 0:  # (g <= 0: the model's own message)
            check_range("g", g, *G_RANGE, "m/s²")
        return presets.with_g(body, g)

    @staticmethod
    def _set_quietly(widget, value, handler):
        widget.unobserve(handler, names="value")
        try:
            widget.value = value
        finally:
            widget.observe(handler, names="value")

    @guarded(msg_attr="shape_msg", what=N_("building the custom shape"))
    def _on_apply_shape(self, _b=None):
        body = self._shape_body()
        self._use(body, _("custom shape in use"), self.shape_msg, kind="shape")

    @guarded(msg_attr="J_msg", what=N_("building the custom J, rho"))
    def _on_apply_J(self, _b=None):
        body = self._J_body()
        self._use(body, _("custom J, ρ in use"), self.J_msg, kind="J")

    def _g(self):
        return float(self.g.value)

    def _shape_body(self):
        check_plausible_shape([d.value for d in self.dims], self.mass.value, [p.value for p in self.pivot])
        return build_body(self.shape_kind.value, [d.value for d in self.dims], m=self.mass.value,
                          pivot=[p.value for p in self.pivot], g=self._g(), name=f"custom {self.shape_kind.value}")

    def _J_body(self):
        v = {k: t.value for k, t in self.J.items()}
        J = [[v["J11"], v["J12"], v["J13"]], [v["J12"], v["J22"], v["J23"]], [v["J13"], v["J23"], v["J33"]]]
        pend = Pendulum(J, [r.value for r in self.rho], self.mass_J.value, self._g())
        check_plausible_pendulum(pend)
        return equivalent_body(pend)

    def set_J(self, J, rho, m=1.0):
        """Programmatic custom J (tests): fills the controls and applies; an invalid J shows the message."""
        J = np.asarray(J, float)
        for k, (i, j) in {"J11": (0, 0), "J22": (1, 1), "J33": (2, 2), "J12": (0, 1), "J13": (0, 2),
                          "J23": (1, 2)}.items():
            self.J[k].value = float(J[i, j])
        for t, x in zip(self.rho, rho):
            t.value = float(x)
        self.mass_J.value = float(m)
        self._on_apply_J()

    def _use(self, body, note, msg=None, kind="preset"):
        if body.pendulum.is_balanced:
            # accepted by the model, but equilibria/section need rho != 0: keep the last valid body
            raise BalancedPendulumError(_(BALANCED))
        check_plausible_pendulum(body.pendulum)
        msg = self.msg if msg is None else msg
        self._clear_messages()
        msg.ok(note)
        self._applying = kind
        try:
            self.state.set_body(body, origin="the Body tab")
        finally:
            self._applying = None

    def _clear_messages(self):
        """One message at a time: no stale error beside another control."""
        for m in (self.msg, self.g_msg, self.shape_msg, self.J_msg):
            m.clear()

    def _show_source(self, body, kind=None):
        """The controls name the body in use: its preset in the menu (no preset named for a custom body), its g."""
        is_preset = kind in (None, "preset") and presets.preset_of(body) is not None
        if kind is None:
            kind = "preset" if is_preset else ("shape" if (body.shape or {}).get("kind") in presets.SHAPE_KINDS
                                              else "J")
        self._source = (kind, body.name if is_preset else None)
        self._set_quietly(self.preset, body.name if is_preset else None, self._on_preset)
        self._set_quietly(self.g, float(body.pendulum.g), self._on_g)

    def _on_state_body(self, body):
        kind = getattr(self, "_applying", None)
        self._show_source(body, kind)
        if kind is None:  # chosen elsewhere (another tab, a link, reset): say so here
            self._clear_messages()
            self.msg.info(_("{body} in use (chosen by {origin})").format(body=body_title(body),
                                                                         origin=_(self.state.body_origin)))
        self._fill_J(body.pendulum)
        self.refresh()

    def reset(self):
        """The start view's body (Fig. 1, g = 9.81) and the custom boxes' start values, boxes closed."""
        defaults = BodyPanel._DEFAULTS
        self.shape_kind.value = "elliptic_cylinder"
        for t, v in zip(self.dims, defaults["dims"]):
            t.value = v
        self.mass.value = 1.0
        for t, v in zip(self.pivot, defaults["pivot"]):
            t.value = v
        self.custom.selected_index = None
        self._set_quietly(self.g, 9.81, self._on_g)
        self._filled = None  # the J, rho boxes take the start body's values, typed edits or not
        body = presets.paper_fig1()
        self._clear_messages()
        self.state.set_body(body, origin="reset")

    def _fill_J(self, pend):
        """The custom J, rho boxes start from the body in use (an edit changes that body, not an old one).  A body
        with the same J, rho and m (only g changed) leaves the boxes as they are: values typed there and not yet
        applied are kept."""
        key = (np.asarray(pend.J, float).tobytes(), np.asarray(pend.rho, float).tobytes(), float(pend.m))
        if key == getattr(self, "_filled", None):
            return
        self._filled = key
        J = np.asarray(pend.J, float)
        for k, (i, j) in {"J11": (0, 0), "J22": (1, 1), "J33": (2, 2), "J12": (0, 1), "J13": (0, 2),
                          "J23": (1, 2)}.items():
            self.J[k].value = round(float(J[i, j]), 6)
        for t, x in zip(self.rho, pend.rho):
            t.value = round(float(x), 6)
        self.mass_J.value = float(pend.m)

    def refresh(self):
        body = self.state.body
        self.summary.value = body_summary_html(body)
        self.preview.layout.min_height = f"{self.state.size(PREVIEW_HEIGHT)}px"
        self.preview.show(self.state.present(
            body_preview_figure(body, title=body_title(body), height=self.state.size(PREVIEW_HEIGHT))))
