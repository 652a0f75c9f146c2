"""Shared fixtures and helpers of the dashboard tests (tests/test_app_*.py): a dashboard with synchronous tasks,
decoding what a view holds, fresh-process checks."""
import base64
import csv
import io
import json
import numpy as np
import pytest
from pendulum_explorer import presets
from pendulum_explorer.app import build_app
from pendulum_explorer.app.common import Messages, figure_bundle
from pendulum_explorer.poincare import PoincareSection, chart_from_sphere, sphere_from_chart


@pytest.fixture
def app():
    d = build_app(prewarm=False)
    for key in ("body", "section", "motion", "equilibria"):
        p = d.panel(key)
        if hasattr(p, "task"):
            p.task.synchronous = True
    d.panel("equilibria").task.wait()
    return d


def _decode(v):
    """plotly 7 sends numpy arrays as typed arrays {"dtype", "bdata"[, "shape"]}: decode them back."""
    if isinstance(v, dict):
        if "bdata" in v and "dtype" in v:
            a = np.frombuffer(base64.b64decode(v["bdata"]), dtype=np.dtype(v["dtype"]))
            if "shape" in v:
                a = a.reshape([int(x) for x in str(v["shape"]).split(",")])
            return a.tolist()
        return {k: _decode(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_decode(x) for x in v]
    return v


def _fig(view):
    """The plotly figure dict shown in a figure view (as the browser receives it: the synced ``figure`` plus the
    incremental updates applied to it)."""
    assert view.figure, "the view shows no figure"
    return _decode(view.figure)


def _accessible_point(section_panel):
    reg = section_panel.region
    iz, ip = np.argwhere(reg.V < reg.energy - 0.2 * (reg.energy - reg.energy_min))[0]
    return float(reg.phi[ip]), float(reg.z[iz])


def _level_snapshot(sec):
    return (sec.section, sec.region, list(sec.state.launches), len(sec.crossing_traces()), sec.state.E,
            sec.state.mu)


def _contrast_on_white(hex_colour):
    """WCAG contrast ratio of a colour against white."""
    c = np.array([int(hex_colour[i:i + 2], 16) for i in (1, 3, 5)]) / 255.0
    lin = np.where(c <= 0.03928, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
    L = float(lin @ [0.2126, 0.7152, 0.0722])
    return 1.05 / (L + 0.05)


# ------------------------------------------------------------------------------------------------ issue 11
def _dash(query, **kw):
    from pendulum_explorer.app import Dashboard

    d = Dashboard(prewarm=False, query=query, synchronous=True, **kw)
    for p in d.panels.values():
        if hasattr(p, "task"):
            p.task.synchronous = True
    return d


def build_query_of(d):
    from pendulum_explorer.app.links import build_query

    return build_query(d.current_link())


def _fresh_process_lines(code):
    """The lines ``code`` prints in a fresh Python process (what a new kernel imports is the point)."""
    import subprocess
    import sys
    from pathlib import Path

    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300,
                         cwd=str(Path(__file__).resolve().parents[1]))
    assert out.returncode == 0, out.stderr[-2000:]
    return out.stdout.strip().splitlines()
