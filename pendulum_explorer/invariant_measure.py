"""The invariant area of the section (issue 21, item 4).

The Lagrange-Poincaré flow (31)-(32) preserves the Lebesgue volume ``dGamma dPi`` in ``(Gamma, Pi = J omega)``
(a Lie-Poisson flow on se(3)*: divergence free).  Its level set ``L = {|Gamma|^2 / 2 = 1/2, mu, E}`` carries the
invariant measure ``vol / (dC ^ dmu ^ dE)`` (coarea), and the section the flux measure ``mu_S(a, b) =
mu_L(a, b, f)``; in chart coordinates ``mu_S = rho(phi, z) dphi dz`` with::

    rho = |det [S_phi, S_z, f, g_C, g_mu, g_E]| / |det [g_i . g_j]|

(S the chart tangent of the section state, f Eqs 31-32, g the gradients of the Casimir, mu (Eq 56) and E (Eq 34),
all in (Gamma, Pi) coordinates).  The return map preserves ``mu_S``, so ``|det DP(x)| = rho(x) / rho(P(x))``
(tested at random points), and not the chart's area: chart-area fractions of the chaotic sea and invariant-
measure fractions differ (:func:`chaotic_fraction`).

Which crossings count: every zero of ``e3 . Gammadot`` with ``e3 . (Gamma x Gammadot) > 0`` (the section state
is unique over each Gamma), whichever the sign of ``d/dt (e3 . Gammadot)`` there, as the paper defines the
section by the state alone; so the return map may reverse the orientation of the chart (``det DP < 0``).
"""
from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

from ._core.fields import lp_field
from .poincare import ChaosMap, PoincareSection, sphere_from_chart
from .section.chart import chart_tangent


def section_density(section: PoincareSection, phi: float, z: float) -> float:
    """``rho(phi, z)``: the density of the return map's invariant measure on the chart (module docstring)."""
    st = section.state_at(sphere_from_chart(phi, z))
    P = section.pendulum
    J = np.asarray(P.J, dtype=float)
    mgr = P.m * P.g * np.asarray(P.rho, dtype=float)
    G, w = st.Gamma, st.omega
    S = chart_tangent(G, w, section.level.p)
    to_pi = np.block([[np.eye(3), np.zeros((3, 3))], [np.zeros((3, 3)), J]])  # (dGamma, domega) -> (dGamma, dPi)
    f = to_pi @ np.array(lp_field(*G, *w, section.level.p))
    Jinv = np.linalg.inv(J)
    Pi = J @ w
    # gradients in (Gamma, Pi): C = |Gamma|^2 / 2, mu = Pi . Gamma, E = Pi . J^-1 Pi / 2 - m g rho . Gamma
    g = np.array([np.r_[G, np.zeros(3)], np.r_[Pi, G], np.r_[-mgr, Jinv @ Pi]])
    vol = abs(float(np.linalg.det(np.column_stack([to_pi @ S, f, g.T]))))
    return vol / abs(float(np.linalg.det(g @ g.T)))


def chaotic_fraction(chaos_map: ChaosMap, section: PoincareSection, *, measure: str = "invariant",
                     threshold: float | None = None) -> float:
    """The chaotic fraction of ``chaos_map`` (of ``section``'s level) weighted by chart area (``measure="area"``,
    = :meth:`ChaosMap.chaotic_fraction`) or by the invariant measure ``rho dphi dz`` at the cell centres
    (``"invariant"``)."""
    if measure not in ("invariant", "area"):
        raise ValueError(f"measure must be 'invariant' or 'area'; got {measure!r}")
    if measure == "area":
        return chaos_map.chaotic_fraction(threshold)
    thr = chaos_map.threshold if threshold is None else float(threshold)
    acc = chaos_map.accessible
    W = np.zeros(acc.shape)
    for j, i in zip(*np.nonzero(acc)):
        try:
            W[j, i] = section_density(section, float(chaos_map.phi[i]), float(chaos_map.z[j]))
        except ValueError:
            W[j, i] = 0.0
    tot = float(W.sum())
    return float(W[acc & (chaos_map.values > thr)].sum() / tot) if tot > 0 else 0.0
