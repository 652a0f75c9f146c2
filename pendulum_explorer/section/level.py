"""The (E, mu) level of a Poincaré section: its scales, its section states and the seeds it accepts.

The section (Gamma and e3 in the body frame, e3 pointing down)::

    P = {(Gamma, Gammadot) in TS^2 : e3^T Gammadot = 0,  e3^T (Gamma x Gammadot) > 0,  E(Gamma, Gammadot) = E}

at momentum mu.  Each Gamma in S^2 \\ {+-e3} carries at most one section state: Gammadot is along
``d = e3 x Gamma / |e3 x Gamma|`` with the positive sign, and its length is fixed by the energy,
``E = V_mu(Gamma) + s^2 k(Gamma) / 2``, where ``V_mu(Gamma) = mu^2 / (2 Gamma^T J Gamma) - m g rho^T Gamma`` is the
amended potential (Eq 76).  The section is therefore the region ``{V_mu < E}`` of the sphere minus the poles.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .. import _validate as _v
from .._numerics import find_root, minimize_compass
from .._core import section as _sec
from .._core.fields import energy_lp, lr_omega, mu_lp
from ..amended import amended_potential
from ..bodies import Pendulum
from ..bounds import BOUNDS
from ..equilibria import equilibria_at_mu
from ..errors import InaccessibleError, InvalidStateError, PendulumError, ShapeError
from .chart import chart_from_sphere, sphere_from_chart
from .results import Seed, SectionState

POLE_TOL = 1e-9
UNIT_TOL = _v.UNIT_TOL  # seeds and section points are normalised after this check (integrated Gammas drift ~1e-9)
#: a seed's E and mu must lie this close to the level (relative to the level's scales)
LEVEL_RTOL = 1e-8
#: a trajectory stops ("no_crossing") after this many time scales without a crossing
MAX_GAP_SCALES = 2000.0
#: crossings per trajectory accepted in one request, and the magnitude bound of E and mu
MAX_CROSSINGS = int(BOUNDS["n_crossings"].high)
MAX_LEVEL = BOUNDS["E"].high


def paper_initial_state(pendulum: Pendulum, energy: float,
                        sign: int = 1) -> tuple[NDArray[np.float64], NDArray[np.float64], float]:
    """The paper's Fig. 2 initial condition R0 = I, omega0 = c [1, 1, 1] at total energy ``energy``.

    With R0 = I, Gamma0 = e3 and ``E = c^2 (1^T J 1) / 2 - m g rho_3``, so
    ``c = sign * sqrt(2 (E + m g rho_3) / (1^T J 1))``.  Returns ``(Gamma0, omega0, c)``.

    Raises :class:`InaccessibleError` if ``E < -m g rho_3`` (no real c).
    """
    _v.check_pendulum(pendulum)
    E = _v.real("energy", energy, low=-MAX_LEVEL, high=MAX_LEVEL)
    sign = _v.integer("sign", sign, low=-1, high=1, exc=InvalidStateError)
    if sign == 0:
        raise InvalidStateError("sign must be +1 or -1; got 0")
    one = np.ones(3)
    q = float(one @ pendulum.J @ one)  # > 0 (J positive definite)
    e_min = -float(pendulum.mgrho[2])
    c2 = 2.0 * (E - e_min) / q
    if c2 < 0.0:
        raise InaccessibleError(
            f"E = {E!r} J cannot be reached from R0 = I, omega0 = c[1,1,1]: the energy there is "
            f"c^2 (1^T J 1)/2 - m g rho_3 >= -m g rho_3 = {e_min:.12g} J; E falls short by {e_min - E:.6g} J")
    c = sign * math.sqrt(c2)
    return np.array([0.0, 0.0, 1.0]), c * one, c


def mu_bound(pendulum: Pendulum, energy: float) -> float:
    """A bound on |mu| necessary for motion at energy ``energy``: ``sqrt(2 J1 (E + m g |rho|))``.

    Since ``Gamma^T J Gamma <= J1`` (the largest principal moment) and ``rho^T Gamma <= |rho|``, the amended
    potential satisfies ``V_mu(Gamma) >= mu^2 / (2 J1) - m g |rho|``; the section at (E, mu) is empty when
    ``|mu|`` reaches this bound (0 when ``E <= -m g |rho|``, the hanging energy).
    """
    _v.check_pendulum(pendulum)
    E = _v.real("energy", energy, high=MAX_LEVEL)
    mgr = pendulum.mgrho_norm
    return float(math.sqrt(2.0 * float(pendulum.principal_moments[0]) * max(E + mgr, 0.0)))


def mu_max(pendulum: Pendulum, energy: float, rtol: float = 1e-10) -> float:
    """The largest ``|mu|`` with motion at energy ``energy``: the root in ``|mu|`` of ``min V_mu = E`` (Eq 76;
    min V_mu grows with ``|mu|``), to ``rtol`` relative; 0 when ``E <= -m g |rho|`` (the hanging energy).  :func:`mu_bound`
    is an upper bound of it (20-28 % above it for the Fig. 2 body).  min V_mu as the section's accessible region
    finds it: the best point of a 49 x 33 chart grid, polished."""
    hi = mu_bound(pendulum, energy)
    rtol = _v.real("rtol", rtol, exc=InvalidStateError, low=1e-15, high=1e-3)
    if hi == 0.0:
        return 0.0
    E = float(energy)
    G = sphere_from_chart(*np.meshgrid(np.linspace(-np.pi, np.pi, 49), np.linspace(-1.0, 1.0, 33)))
    G = np.ascontiguousarray(G.reshape(-1, 3))
    V = np.empty(G.shape[0])

    def excess(mu: float) -> float:
        p = pendulum.params(mu)
        _sec.amended_potential_many(G, p, V)
        return extremum(p, V, G, +1)[0] - E

    if excess(hi) < 0.0:  # cannot happen (V_mu >= mu^2 / (2 J1) - m g |rho| = E there); the bound, as before
        return hi
    return float(find_root(excess, 0.0, hi, rtol=rtol))


def default_level(pendulum: Pendulum, energy: float = 0.0) -> tuple[float, float]:
    """The level ``(E, mu)`` a new body's section opens at (or, given ``energy``, the start mu at that energy).

    ``E = 0`` by default: midway between the energy of the hanging equilibrium (``-m g |rho|``) and of the
    inverted one (``+m g |rho|``).  ``mu`` is the momentum of the paper's initial condition
    ``R0 = I, omega0 = c[1,1,1]`` at that energy (:func:`paper_initial_state`), so the Fig. 2 body opens at the
    paper's Fig. 2(b); ``mu = 0`` when that initial condition cannot reach E (``E < -m g rho_3``).
    """
    _v.check_pendulum(pendulum)
    E = _v.real("energy", energy, high=MAX_LEVEL)
    try:
        G0, w0, _c = paper_initial_state(pendulum, E)
    except InaccessibleError:
        return E, 0.0
    return E, float(mu_lp(G0, w0, pendulum.params()))


@dataclass(frozen=True, eq=False)
class Level:
    """The level ``(energy, mu)`` of ``pendulum``: the set the section map acts on.

    Attributes
    ----------
    pendulum, energy, mu : the body and the level (E of Eq 34, mu = omega^T J Gamma)
    p, p0 : the kernels' parameter vectors ``pendulum.params(mu)`` and ``pendulum.params(0)`` (read-only)
    energy_scale, mu_scale : scales of relative energy / momentum errors (E or mu may be 0)
    time_scale : one radian at the speed of kinetic energy ~ energy_scale, times 2 pi [s]
    max_gap : how long a trajectory may go without a crossing before it stops ("no_crossing") [s]
    """

    pendulum: Pendulum
    energy: float
    mu: float
    p: NDArray[np.float64] = field(init=False, repr=False)
    p0: NDArray[np.float64] = field(init=False, repr=False)
    energy_scale: float = field(init=False, repr=False)
    mu_scale: float = field(init=False, repr=False)
    time_scale: float = field(init=False, repr=False)
    max_gap: float = field(init=False, repr=False)
    cache: dict[Any, Any] = field(init=False, repr=False, default_factory=dict)

    def __post_init__(self) -> None:
        pend = _v.check_pendulum(self.pendulum)
        E = _v.real("energy", self.energy, low=-MAX_LEVEL, high=MAX_LEVEL)
        mu = _v.real("mu", self.mu, low=-MAX_LEVEL, high=MAX_LEVEL)
        p = pend.params(mu)  # read-only, like every p: one compiled signature per kernel
        Jev = pend.principal_moments
        mgr = pend.mgrho_norm
        escale = max(abs(E), mgr, mu * (mu / (2.0 * Jev[-1])), 1e-300)
        if not math.isfinite(escale * Jev[0]):
            raise InvalidStateError(
                f"the level E = {E:g} J, mu = {mu:g} kg m^2/s is out of the representable range for this "
                f"pendulum (mu^2 / (2 J3) = {mu * (mu / (2.0 * Jev[-1])):.3g} J); use smaller |E|, |mu|")
        tscale = 2.0 * math.pi * math.sqrt(Jev[0] / (max(abs(E - _vmin_rough(p)), 0.0) + mgr + 1e-300))
        for k, v in (("energy", E), ("mu", mu), ("p", p), ("p0", pend.params(0.0)), ("energy_scale", escale),
                     ("mu_scale", max(abs(mu), math.sqrt(2.0 * Jev[0] * escale))), ("time_scale", tscale),
                     ("max_gap", MAX_GAP_SCALES * tscale)):
            object.__setattr__(self, k, v)

    # --- the potential and section states -------------------------------------------------------
    def amended_potential(self, Gamma: ArrayLike) -> float | NDArray[np.float64]:
        """V_mu at ``Gamma`` (..., 3) (Eq 76)."""
        return amended_potential(self.pendulum, self.mu, Gamma)

    def slack(self, Gamma: ArrayLike) -> float | NDArray[np.float64]:
        """``E - V_mu(Gamma)``: positive where Gamma is on the section."""
        return self.energy - self.amended_potential(Gamma)

    def mu_bound(self, energy: float | None = None) -> float:
        """:func:`mu_bound` of this pendulum at ``energy`` (default: this level's energy)."""
        return mu_bound(self.pendulum, self.energy if energy is None else energy)

    def mu_max(self, energy: float | None = None) -> float:
        """:func:`mu_max` of this pendulum at ``energy`` (default: this level's energy), computed once per energy."""
        E = self.energy if energy is None else _v.real("energy", energy, high=MAX_LEVEL)
        key = ("mu_max", E)
        if key not in self.cache:
            self.cache[key] = mu_max(self.pendulum, E)
        return float(self.cache[key])

    def state_at(self, Gamma: ArrayLike) -> SectionState:
        """The unique section state over the unit vector ``Gamma``.

        Raises
        ------
        InvalidStateError
            Gamma is not a finite unit vector (to 1e-6; it is normalised) or lies within 1e-9 of +-e3 (the poles, where
            e3^T Gammadot = 0 for every Gammadot and the section is undefined).
        InaccessibleError
            ``E <= V_mu(Gamma)``; the message gives the shortfall ``V_mu(Gamma) - E``.
        """
        G = _v.unit_vector("Gamma", Gamma)
        rxy = math.hypot(G[0], G[1])
        if rxy <= POLE_TOL:
            pole = "+e3 (hanging, Gamma_3 = +1)" if G[2] > 0 else "-e3 (inverted, Gamma_3 = -1)"
            raise InvalidStateError(
                f"Gamma = {G.tolist()} is within {POLE_TOL:g} of the pole {pole}: the section condition "
                f"e3^T Gammadot = 0 holds for every Gammadot there, so the section excludes +-e3 "
                f"(distance from the pole axis {rxy:.3g})")
        Y = np.empty((1, 6))
        sl = np.empty(1)
        _sec.section_states(G[None, :], self.energy, self.p, self.p0, Y, sl)
        if not (sl[0] > 0.0):
            V = self.energy - sl[0]
            raise InaccessibleError(
                f"Gamma = {np.round(G, 12).tolist()} is not on the section at E = {self.energy!r}, mu = {self.mu!r}: "
                f"E falls short of the amended potential V_mu(Gamma) = {V:.12g} by {V - self.energy:.6g} "
                f"(the section needs E > V_mu(Gamma))")
        Gd = Y[0, 3:6].copy()
        w = np.empty(3)
        lr_omega(Y[0, 0:3], Gd, self.p, w)
        _v.finite_result(f"the section state over Gamma = {np.round(G, 12).tolist()}", np.concatenate([Gd, w]))
        return SectionState(Y[0, 0:3].copy(), Gd, w)

    def states_at(self, Gammas: ArrayLike) -> tuple[NDArray[np.float64], NDArray[np.bool_]]:
        """Vectorised :meth:`state_at` without exceptions: returns ``(Y, ok)`` with ``Y`` (k, 6) LP states
        ``[Gamma, omega]`` (NaN where ``ok`` is False: inaccessible, at a pole, or not a unit vector)."""
        G = _v.real_array("Gammas", Gammas, trailing=(3,), max_size=3 * MAX_CROSSINGS).reshape(-1, 3)
        nrm = np.linalg.norm(G, axis=1)
        good = np.isfinite(nrm) & (np.abs(nrm - 1.0) <= UNIT_TOL)
        G = np.where(good[:, None], G / np.where(good, nrm, 1.0)[:, None], 0.0)
        good &= np.hypot(G[:, 0], G[:, 1]) > POLE_TOL
        Yl = np.empty((G.shape[0], 6))
        sl = np.empty(G.shape[0])
        _sec.section_states(np.ascontiguousarray(G), self.energy, self.p, self.p0, Yl, sl)
        ok = good & (sl > 0.0)
        Y = np.full((G.shape[0], 6), np.nan)
        w = np.empty(3)
        for k in np.nonzero(ok)[0]:
            lr_omega(Yl[k, 0:3], Yl[k, 3:6], self.p, w)
            Y[k, 0:3] = Yl[k, 0:3]
            Y[k, 3:6] = w
        fin = np.isfinite(Y).all(axis=1)  # a state that cannot be computed in double precision is not a state
        Y[ok & ~fin] = np.nan
        return Y, ok & fin

    # --- seeds ----------------------------------------------------------------------------------
    def check_seed(self, seed: Seed, name: str = "seed") -> NDArray[np.float64]:
        """The LP state ``[Gamma, omega]`` (6,) of a seed on this level, validated.

        Parameters
        ----------
        seed : a section Gamma (3,) (its section state, :meth:`state_at`), an LP state ``(Gamma, omega)`` as a
            pair, (6,) or (2, 3), or a :class:`SectionState`.
        name : str
            The argument the seed came from, named in the error messages (``"seeds[3]"`` for a batch).

        Raises
        ------
        ShapeError, InvalidStateError
            A malformed seed, or one whose energy (Eq 34) or momentum ``mu = omega^T J Gamma`` is off the level
            by more than ``LEVEL_RTOL`` relative (the message gives both values).
        InaccessibleError
            A Gamma (3,) where E <= V_mu(Gamma).
        """
        try:
            return self.seed_lp_state(seed)
        except PendulumError as e:  # the message names the argument the seed came from
            raise type(e)(f"{name}: {e}") from None

    def seed_lp_state(self, seed: Seed) -> NDArray[np.float64]:
        """:meth:`check_seed` without the argument name in the messages."""
        G: Any
        w: Any
        if isinstance(seed, SectionState):  # possibly of another level: checked like any LP state
            G, w = seed.Gamma, seed.omega
        elif isinstance(seed, (tuple, list)) and len(seed) == 2 and np.ndim(seed[0]) == 1:
            G, w = seed
        else:
            a = _v.real_array("seed", seed, max_size=6, exc=InvalidStateError)
            if a.shape == (3,):
                st = self.state_at(a)
                return np.concatenate([st.Gamma, st.omega])
            if a.shape == (6,):
                G, w = a[:3], a[3:]
            elif a.shape == (2, 3):
                G, w = a[0], a[1]
            else:
                raise ShapeError(
                    f"a seed is a Gamma (3,) on the section or an LP state (Gamma, omega) as a pair, (6,) or (2, 3); "
                    f"got shape {a.shape}")
        return self.on_level(_v.unit_vector("Gamma", G), _v.array("omega", w, (3,), max_abs=MAX_LEVEL))

    def on_level(self, G: NDArray[np.float64], w: NDArray[np.float64]) -> NDArray[np.float64]:
        """``[G, w]`` if the LP state lies on this level (E of Eq 34 and mu within ``LEVEL_RTOL`` of the level's
        scales); InvalidStateError giving both values otherwise."""
        E = energy_lp(G, w, self.p)
        mu = mu_lp(G, w, self.p)
        dE = abs(E - self.energy)
        dmu = abs(mu - self.mu)
        if dE > LEVEL_RTOL * self.energy_scale or dmu > LEVEL_RTOL * self.mu_scale:
            raise InvalidStateError(
                f"the seed (Gamma, omega) is not on the level of this section: E(seed) = {E:.15g} J vs "
                f"E = {self.energy:.15g} J (off by {E - self.energy:.3g} J), mu(seed) = {mu:.15g} kg m^2/s vs "
                f"mu = {self.mu:.15g} kg m^2/s (off by {mu - self.mu:.3g} kg m^2/s); allowed {LEVEL_RTOL:g} relative")
        return np.concatenate([G, w])

    def limits(self, n: int, t_max: float | None, max_gap: float | None,
               max_steps: int | None) -> tuple[int, float, float, int]:
        """The validated limits of a crossings request: ``n`` crossings, and the time, gap and step budgets
        (defaults ``(n + 10) max_gap``, :attr:`max_gap`, ``20000 (n + 10)``)."""
        n = _v.integer("n", n, low=1, high=MAX_CROSSINGS)
        max_gap = None if max_gap is None else _v.positive("max_gap", max_gap)
        t_max = None if t_max is None else _v.positive("t_max", t_max)
        if max_steps is not None:
            max_steps = _v.max_steps(max_steps)
        if max_gap is None:
            max_gap = self.max_gap
        if t_max is None:
            t_max = (n + 10) * max_gap
        if max_steps is None:
            max_steps = 20000 * (n + 10)
        return n, float(t_max), float(max_gap), int(max_steps)

    # --- level checks ----------------------------------------------------------------------------
    def level_errors(self, Gamma: ArrayLike, omega: ArrayLike) -> tuple[NDArray[np.float64], NDArray[np.float64],
                                                                      NDArray[np.float64], NDArray[np.float64]]:
        """Relative distance of LP states (k, 3) + (k, 3) from the level: ``(|E - E0| / energy_scale,
        |mu - mu0| / mu_scale)`` arrays, and the section residuals ``g = e3^T (Gamma x omega)``, ``s``."""
        G = _v.real_array("Gamma", Gamma, trailing=(3,), max_size=3 * MAX_CROSSINGS).reshape(-1, 3)
        W = _v.real_array("omega", omega, trailing=(3,), max_size=3 * MAX_CROSSINGS).reshape(-1, 3)
        if np.any(np.abs(np.linalg.norm(G, axis=1) - 1.0) > BOUNDS["report_unit_tol"].high) or np.abs(W).max(initial=0.0) > MAX_LEVEL:
            raise InvalidStateError(f"Gamma must hold unit vectors and omega entries of magnitude <= {MAX_LEVEL:g}")
        if G.shape != W.shape:
            raise ShapeError(f"Gamma and omega must hold the same number of states; got {G.shape[0]} and {W.shape[0]}")
        E = np.array([energy_lp(G[k], W[k], self.p) for k in range(G.shape[0])])
        mu = np.array([mu_lp(G[k], W[k], self.p) for k in range(G.shape[0])])
        D = np.cross(G, W)
        s = np.cross(G, D)[:, 2]
        return np.abs(E - self.energy) / self.energy_scale, np.abs(mu - self.mu) / self.mu_scale, D[:, 2], s

    def critical_energies(self, eq: Any = None) -> list[float]:
        """The energies of the relative equilibria at this mu (:func:`~pendulum_explorer.equilibria.equilibria_at_mu`,
        ``eq``: the pendulum's equilibria if already computed): where the section's picture changes.  ``[]``
        when they cannot be found at this mu."""
        try:
            return [float(p.energy) for p in equilibria_at_mu(self.pendulum, self.mu, eq=eq)]
        except PendulumError:
            return []

    def relative_equilibria(self) -> list[NDArray[np.float64]]:
        """Relative equilibria at this mu with energy <= E (:func:`~pendulum_explorer.equilibria_at_mu`, whose
        family curves are computed once per pendulum); none for a balanced pendulum (rho = 0)."""
        if "releq" not in self.cache:
            out: list[NDArray[np.float64]] = []
            if not self.pendulum.is_balanced:
                for e in equilibria_at_mu(self.pendulum, self.mu):
                    if self.amended_potential(e.Gamma) <= self.energy + 1e-12 * self.energy_scale:
                        out.append(np.asarray(e.Gamma, dtype=float))
            self.cache["releq"] = out
        result: list[NDArray[np.float64]] = self.cache["releq"]
        return result


def extremum(p: NDArray[np.float64], V: NDArray[np.float64], G: NDArray[np.float64],
             sgn: int) -> tuple[float, NDArray[np.float64]]:
    """min (sgn=+1) or max (sgn=-1) of V_mu (parameters ``p``, with mu) on S^2, polished from the best point of
    the grid values ``V`` at ``G``."""
    k = np.argmin(sgn * V)
    G0 = G.reshape(-1, 3)[k]
    out = np.empty(1)
    buf = np.empty((1, 3))

    def f(x: NDArray[np.float64]) -> float:  # x = (phi, z) on the chart, z clipped to [-1, 1]
        zz = min(1.0, max(-1.0, x[1]))
        r = math.sqrt(max(0.0, 1.0 - zz * zz))
        buf[0, 0] = r * math.cos(x[0])
        buf[0, 1] = r * math.sin(x[0])
        buf[0, 2] = zz
        _sec.amended_potential_many(buf, p, out)
        return float(sgn * out[0])

    phi0, z0 = chart_from_sphere(G0)
    x0 = np.array([float(phi0), float(z0)])
    best = f(x0)
    xb = x0
    x, fx = minimize_compass(f, x0, step=0.03, xtol=1e-11)
    if fx < best:
        best, xb = fx, x
    xb = sphere_from_chart(xb[0], min(1.0, max(-1.0, xb[1])))
    return float(sgn * best), np.asarray(xb, dtype=float)


def _vmin_rough(p: NDArray[np.float64]) -> float:
    """min V_mu on a coarse grid of the sphere (sets the time scale)."""
    G = sphere_from_chart(*np.meshgrid(np.linspace(-np.pi, np.pi, 25), np.linspace(-1, 1, 17)))
    V = np.empty(G.shape[0] * G.shape[1])
    _sec.amended_potential_many(np.ascontiguousarray(G.reshape(-1, 3)), p, V)
    return float(V.min())
