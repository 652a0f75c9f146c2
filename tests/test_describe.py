"""The figures' text alternatives (plotting/describe.py) state the figures' real numbers (issue 24 section 2)."""
from __future__ import annotations

import re

import numpy as np
import pytest

from pendulum_explorer.equilibria import equilibria
from pendulum_explorer.plotting import describe as D
from pendulum_explorer.plotting.body import body_preview_figure, motion_plots_figure
from pendulum_explorer.plotting.diagrams import energy_momentum_figure
from pendulum_explorer.plotting.section import section_chart_figure, section_sphere_figure
from pendulum_explorer.plotting.sphere import equilibria_sphere_figure
from pendulum_explorer.poincare import ChaosMap, PoincareSection
from pendulum_explorer.presets import paper_fig1, paper_fig2
from pendulum_explorer.trajectory import simulate


@pytest.fixture(scope="module")
def fig2_section():
    sec, seed = PoincareSection.from_paper_ic(paper_fig2().pendulum, 2.03)
    return sec, sec.crossings(seed, 300)


@pytest.fixture(scope="module")
def fig1_eq():
    return equilibria(paper_fig1().pendulum)


def _number(pattern: str, text: str) -> float:
    m = re.search(pattern, text)
    assert m, f"{pattern!r} not in {text!r}"
    return float(m.group(1).replace("−", "-"))


def test_section_text_counts_trajectories_crossings_and_accessible_share(fig2_section):
    sec, cr = fig2_section
    half = cr.Gamma[:120]
    fig = section_chart_figure(sec, [cr, half, np.zeros((0, 3))])  # the empty one is not drawn
    text = D.description(fig)
    assert text == D.describe_section(sec, [cr, half, np.zeros((0, 3))])
    drawn = [t for t in fig.data if t.name and t.name.startswith("trajectory")]
    assert len(drawn) == 2 and f"{len(drawn)} trajectories" in text
    assert f"{cr.n_found + 120} crossings" in text and cr.n_found == 300
    assert _number(r"E = (\S+) J", text) == pytest.approx(2.03)
    assert _number(r"μ = (\S+) kg", text) == pytest.approx(sec.mu, rel=1e-3)
    # the accessible share against an independent estimate: 200 000 uniform points on the sphere, V_mu <= E
    rng = np.random.default_rng(1)
    G = rng.normal(size=(200_000, 3))
    G /= np.linalg.norm(G, axis=1, keepdims=True)
    share = 100 * float(np.mean(sec.amended_potential(G) <= sec.energy))
    assert abs(_number(r"(\d+) % of the chart accessible", text) - share) <= 1.0
    assert "chaos" not in text
    assert D.describe_section(sec, counts=[300, 120, 0]) == text  # the dashboard's streamed counts


def test_section_text_gives_the_chaotic_share_of_a_chaos_map(fig2_section):
    sec, _ = fig2_section
    # a 4 x 5 map: 6 cells off the section (NaN), 14 on it of which 5 above the MEGNO threshold (4): 36 %
    vals = np.array([[np.nan, 2.0, 2.1, 9.0, np.nan], [2.0, 12.0, 2.0, 2.0, np.nan],
                     [np.nan, 5.0, 2.0, 4.5, 2.0], [np.nan, 2.0, 3.9, np.nan, 30.0]])
    cm = ChaosMap(phi=np.linspace(-2.5, 2.5, 5), z=np.linspace(-0.75, 0.75, 4), values=vals, indicator="megno",
                  t_total=50.0, megno=vals, lyapunov=np.zeros_like(vals))
    text = D.description(section_chart_figure(sec, None, chaos=cm))
    assert "0 trajectories, 0 crossings" in text
    assert text.endswith("MEGNO chaos map shown, 36 % chaotic.") and round(100 * 5 / 14) == 36


def test_section_text_follows_the_level():
    P = paper_fig2().pendulum
    low, _ = PoincareSection.from_paper_ic(P, 0.0)
    high, _ = PoincareSection.from_paper_ic(P, 8.83)
    a, b = (_number(r"(\d+) % of the chart", D.describe_section(s)) for s in (low, high))
    assert a < b  # more energy, more of the sphere accessible
    assert b == pytest.approx(100 * high.accessible_region().area_fraction, abs=0.5)


def test_section_sphere_text(fig2_section):
    sec, cr = fig2_section
    text = D.description(section_sphere_figure(sec, cr))
    assert "1 trajectory, 300 crossings" in text and "E = 2.03 J" in text


def test_sphere_text_names_each_family_and_its_stability(fig1_eq):
    eq = fig1_eq
    text = D.description(equilibria_sphere_figure(eq))
    fams = sorted(eq.curves(+1), key=lambda f: f.label)
    assert f"{len(fams)} families" in text and len(fams) == 4
    for f in fams:
        share = float(np.mean(f.stability == "elliptic-elliptic"))
        if share == 1.0:
            assert f"{f.label} linearly stable" in text
        elif share == 0.0:
            assert f"{f.label} unstable" in text
        else:
            assert _number(re.escape(f.label) + r" stable on (\d+) %", text) == round(100 * share)
    # the hanging equilibrium is stable, the inverted one is not (paper Sec. 4)
    assert "hanging (stable)" in text and "inverted (unstable)" in text
    only = D.description(equilibria_sphere_figure(eq, families=["L2"]))
    assert "1 family: L2" in only and "L1" not in only


def test_energy_momentum_text(fig1_eq):
    text = D.description(energy_momentum_figure(fig1_eq, marker=(0.25, -1.5)))
    assert "4 families of relative equilibria (L1, L2, L3, L4)" in text
    drawn = {t.meta["stability"] for t in energy_momentum_figure(fig1_eq).data if t.meta and "stability" in t.meta}
    for cls in drawn - {""}:
        assert cls in text
    assert "μ = 0.25 kg m²/s, E = −1.5 J" in text


def test_body_text_gives_the_moments():
    body = paper_fig1()
    text = D.description(body_preview_figure(body))
    J = body.pendulum.principal_moments
    assert text.startswith(f"Body “{body.name}”")
    for i in range(3):
        assert _number(rf"J{i + 1} = ([\d.e-]+)", text) == pytest.approx(J[i], rel=1e-3)
    assert _number(r"centre of mass ([\d.]+) m", text) == pytest.approx(np.linalg.norm(body.pendulum.rho), rel=1e-3)


def test_motion_text_gives_the_ranges_and_errors():
    body = paper_fig1()
    tr = simulate(body.pendulum, np.eye(3), [1.0, 1.0, 1.0], 2.0, n_out=201)
    text = D.description(motion_plots_figure(tr))
    assert "Motion over 2 s (201 samples)" in text
    for i in range(3):
        lo = _number(rf"ω{'₁₂₃'[i]} from (\S+) to", text)
        hi = _number(rf"ω{'₁₂₃'[i]} from \S+ to (\S+?)[, ]", text)
        assert lo == pytest.approx(tr.omega[:, i].min(), rel=1e-3)
        assert hi == pytest.approx(tr.omega[:, i].max(), rel=1e-3)
    assert _number(r"\|ΔE\| = (\S+) J", text) == pytest.approx(np.abs(tr.energy - tr.energy[0]).max(), rel=0.05)
    assert "101 samples" in D.describe_motion(tr, stride=2)


def test_description_keeps_other_meta():
    import plotly.graph_objects as go
    fig = go.Figure(layout=dict(meta={"kind": "x"}))
    D.with_description(fig, "a text")
    assert fig.layout.meta == {"kind": "x", "description": "a text"} and D.description(go.Figure()) == ""
