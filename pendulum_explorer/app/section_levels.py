"""The section panel's level controls: E and μ as boxes and sliders, the range line and the message under them.

The E slider spans the energies between two critical values of the amended potential at this μ (the energies
of the relative equilibria there, min V_μ, the energy above which the whole sphere is accessible, then a few
steps above), so that a drag of a few pixels changes E by a fraction of a joule where the picture changes, not
by 10 J (a 200 px slider over −4.7 … 118 J did).  Widgets and wiring only.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import ipywidgets as w
import numpy as np

from .common import Messages
from .i18n import _
from .i18n import number as num


def _num(value: float, description: str, width: str, label_width: str, cls: str) -> w.FloatText:
    t = w.FloatText(value=value, description=description, step=0.1, continuous_update=False,
                    layout=w.Layout(width=width), style={"description_width": label_width})
    t.add_class(cls)
    return t


class LevelControls:
    """E and μ boxes and sliders; ``on_change(E, mu, changed)`` gets a new level (None: keep that one)."""

    def __init__(self, on_change: Callable[[float | None, float | None, str], None]) -> None:
        self.E = _num(0.0, "E [J]", "190px", "44px", "pe-energy")
        self.mu = _num(0.0, "μ [kg m²/s]", "210px", "86px", "pe-mu")
        self.E_slider, self.mu_slider = (w.FloatSlider(min=-2, max=2, step=0.01, readout=False, continuous_update=False,
                                                       layout=w.Layout(width="200px")) for _ in range(2))
        self.E_slider.add_class("pe-energy-slider")
        self.ranges = w.HTML()
        self.msg = Messages()  # a refused (E, mu) is reported here, right under the controls that set it
        self._suspend = False
        self._on_change = on_change
        self.E.observe(lambda c: self._changed(c["new"], None, "E"), names="value")
        self.E_slider.observe(lambda c: self._changed(_slider_level(c["new"]), None, "E"), names="value")
        self.mu.observe(lambda c: self._changed(None, c["new"], "mu"), names="value")
        self.mu_slider.observe(lambda c: self._changed(None, _slider_level(c["new"]), "mu"), names="value")

    def _changed(self, E: Any, mu: Any, changed: str) -> None:
        if not self._suspend:
            self._on_change(None if E is None else float(E), None if mu is None else float(mu), changed)

    def show(self, sec: Any, region: Any, critical: Sequence[float]) -> None:
        """Boxes, sliders and the range line show the section ``sec``; ``critical``: the energies of the relative
        equilibria at its μ."""
        E, mu, lo = sec.energy, sec.mu, region.energy_min
        mgr = sec.pendulum.mgrho_norm
        top = max(lo + 25 * mgr, E + 1)
        knots = _distinct([lo, region.energy_all, *critical, region.energy_all + 2 * mgr,
                           region.energy_all + 8 * mgr, top], lo, top)
        a, b = _slider_interval(E, knots)
        mu_max = sec.level.mu_max()  # the exact bound (mu_bound, a necessary one, was quoted: 23 % too high at E = 2.03)
        lim = max(mu_max, abs(mu), 1e-3)
        self._suspend = True
        try:
            _set_range(self.E_slider, a, b, (b - a) / 400, min(max(E, a), b))
            _set_range(self.mu_slider, -lim, lim, lim / 200, mu)
            self.E.value, self.mu.value = _digits(E), _digits(mu)  # the boxes: 6 digits (the level keeps all)
            words = _("admissible at this μ: E &gt; min V<sub>μ</sub> = <b>{lo}</b> J (whole sphere above {all} J); "
                      "at this E: |μ| &lt; {mu_max} kg m²/s · area {area} · E slider {a} … {b} J").format(
                lo=num(lo, ".5g"), all=num(region.energy_all, ".5g"), mu_max=num(mu_max, ".4g"),
                area=area_percent(region.area_fraction, region.empty), a=num(a, ".4g"), b=num(b, ".4g"))
            self.ranges.value = f"<span style='font-size:13px;color:#333;display:block;line-height:1.4'>{words}</span>"
        finally:
            self._suspend = False


def area_percent(fraction: float, empty: bool = False) -> str:
    """The accessible share of the sphere in words for the range line: "0%" only for an empty section, "<1%"
    for a positive share that rounds to 0 (a thin band, or one narrower than the grid that estimates
    ``fraction``), ">99%" for one that rounds to 100 without being the whole sphere."""
    if empty:
        return "0%"
    pct = 100.0 * float(fraction)
    if pct < 1.0:
        return "<1%"
    if pct > 99.0 and fraction < 1.0:
        return ">99%"
    return f"{pct:.0f}%"


def _distinct(values: Sequence[float], lo: float, hi: float) -> list[float]:
    """Sorted values in [lo, hi] at least 1e-6 (hi - lo) apart."""
    out: list[float] = []
    for v in sorted(v for v in values if lo <= v <= hi):
        if not out or v - out[-1] > 1e-6 * (hi - lo):
            out.append(v)
    return out


def _slider_interval(E: float, knots: Sequence[float]) -> tuple[float, float]:
    """The E slider's range: between the critical energies just below and just above E (at a critical energy,
    from the one below it to the one above it, so that the slider can go either way)."""
    tol = 1e-4 * (knots[-1] - knots[0])
    i = int(np.searchsorted(knots, E + tol, side="right")) - 1  # knots[i] <= E + tol
    i = min(max(i, 0), len(knots) - 2)
    if abs(E - knots[i]) <= tol and i > 0:
        return knots[i - 1], knots[i + 1]
    return knots[i], knots[i + 1]


def _digits(v: float) -> float:
    """A level as its box shows it: 6 significant digits (0.703978, not a clipped 0.70397810506)."""
    return float(f"{float(v):.6g}")


def _slider_level(v: float) -> float:
    """A slider position as a level: 5 significant digits (the boxes then show 12.345, not 12.3451234567)."""
    return float(f"{float(v):.5g}")


def _set_range(slider: w.FloatSlider, lo: float, hi: float, step: float, value: float) -> None:
    """Set a slider's range, step and value without tripping its min <= max checks."""
    slider.min = -1e12
    slider.max, slider.min, slider.step, slider.value = hi, lo, step, value
