"""Equilibria and relative equilibria of the 3D pendulum and their linear stability (Props 9 and 20).

Layer 2 (model/analysis).  :func:`equilibria` (exported as :func:`pendulum_explorer.find_equilibria`) returns
every equilibrium of the Lagrange–Poincaré model (31)–(32) — equivalently (Prop 20) of the Lagrange–Routh model
(62) at the momentum ``mu`` of Eq (77) — in the pendulum's own body frame, as an :class:`EquilibriumSet`:

* the hanging and inverted equilibria ``Gamma = +-rho/|rho|``, ``omega = 0`` (Prop 9, cases 1-2);
* the two relative equilibria of Eq (38) (``alpha = +-inf``);
* the one-parameter families of Eqs (39)-(40) over ``alpha`` in L1 ... L4, sampled adaptively;
* the extra families of the non-generic cases (Eq 41 for distinct J_i and some rho_i = 0; case 7(a)/(b)
  for J1 = J2 != J3) and the degenerate case of rho on a principal axis ("axis" families: the
  hanging/inverted attitude spinning about rho at any rate).

Modules: :mod:`.records` (the typed results), :mod:`.adapted` (the structure of the body and the families'
formulas in adapted principal axes, with the parameterisation and the tolerances of the special cases),
:mod:`.sampling` (continuation: adaptive sampling, body frame, mirrored branch, stability changes),
:mod:`.families` (:func:`equilibria`), :mod:`.stability` (linearisations and the stability classes),
:mod:`.at_mu` (:func:`equilibria_at_mu`), :mod:`.energy_momentum` (the data of the energy–momentum diagram),
:mod:`.attitudes` (equilibrium attitudes and manifolds).  The figures' colours live in the plotting layer
(:mod:`pendulum_explorer.plotting.colours`).

Sign correction to Prop 9
-------------------------
Prop 9 and Eq (73) print ``Gamma_e = -sgn(alpha) n_alpha/|n_alpha|``.  Substituting into Eq (42),
``k^2 J Gamma + m g rho = k1 Gamma``, shows that the correct family is

    ``Gamma_e = -n_alpha/|n_alpha|``  for every alpha (no sgn),
    ``omega_e = +- sqrt(m g/|n_alpha|) n_alpha``,  ``n_alpha = (J - I/alpha)^{-1} rho``,

so that ``alpha -> 0-`` tends to the *inverted* point and ``alpha -> 0+`` to the *hanging* point (in
agreement with the narrative of Fig. 1: alpha in (-inf, 0) runs from the (38) point to the inverted
equilibrium).  Every returned point is checked against the residual of (35)-(36) in the test-suite.
"""
from __future__ import annotations


from ..amended import amended_potential
from .adapted import RTOL_J, RTOL_RHO
from .at_mu import equilibria_at_mu
from .attitudes import equilibrium_attitude, equilibrium_manifold
from .energy_momentum import EnergyMomentumCurve, EnergyMomentumData, EnergyMomentumPoint, energy_momentum_data
from .families import E_CAP_FACTOR, MIN_MOMENT_RATIO, equilibria
from .records import (CircleCurve, EquilibriumCase, EquilibriumPoint, EquilibriumSet, Family, FamilySampling,
                      GenericCurve, StaticEnd)
from .sampling import MAX_FAMILY_SAMPLES, MAX_STEP_DEG
from .stability import STAB_RTOL, STABILITY_CLASSES, classify_eigenvalues, lp_linearization, lr_linearization

__all__ = [
    "equilibria", "equilibria_at_mu", "amended_potential", "energy_momentum_data", "equilibrium_attitude",
    "equilibrium_manifold", "lr_linearization", "lp_linearization", "classify_eigenvalues",
    "EquilibriumSet", "EquilibriumPoint", "Family", "STABILITY_CLASSES",
    "EquilibriumCase", "FamilySampling", "GenericCurve", "CircleCurve", "StaticEnd",
    "EnergyMomentumData", "EnergyMomentumCurve", "EnergyMomentumPoint",
    "RTOL_J", "RTOL_RHO", "STAB_RTOL", "MAX_STEP_DEG", "E_CAP_FACTOR", "MAX_FAMILY_SAMPLES", "MIN_MOMENT_RATIO",
]
