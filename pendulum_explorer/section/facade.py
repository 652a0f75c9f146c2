"""``PoincareSection``: the section of one level with one integrator, as one object (a facade).

It holds a :class:`~.level.Level` and a :class:`~.map.PoincareMap` and forwards to the functions of this package
(:mod:`.region`, :mod:`.chaos_map`, :mod:`.orbits`); user code and the README's examples call it.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .. import _validate as _v
from .._core.fields import energy_lp, mu_lp
from ..bodies import Pendulum
from ..errors import InaccessibleError, InvalidStateError
from ..integrators import DOP853, Integrator, Taylor
from . import orbits as _orb
from . import region as _reg
from .chaos_map import MAP_LEVELS, chaos_map, chaos_maps
from .chart import sphere_from_chart
from .level import MAX_LEVEL, Level, paper_initial_state
from .map import DEFAULT_ATOL, DEFAULT_RTOL, PoincareMap
from .parallel import ExecutorLike
from .results import AccessibleRegion, BatchCrossings, ChaosMap, Crossings, PeriodicOrbit, Seed, SectionState

SECTION_METHODS = ("dop853", "taylor")
#: the dashboard's section integrator: Taylor at the DOP853 section's tolerance (order 14).  Over the Fig. 2 fill
#: (benchmarks/bench_fill.py) it finds 1.8x the crossings per CPU second of DOP853 at rtol 1e-11 one trajectory at
#: a time and ~5x on its lanes (a fill, :meth:`PoincareMap.stream_batch`), with an energy error of 5e-12 against
#: 4e-9.  The tangent dynamics (return-map Jacobians, periodic orbits) stay on DOP853 at the section's rtol.
DASHBOARD_METHOD = Taylor(tol=DEFAULT_RTOL)


class PoincareSection:
    """The Poincaré section of Sec. 5.6 for ``pendulum`` on the level ``(energy, mu)``.

    Parameters
    ----------
    pendulum : Pendulum
    energy : float
        Total energy E (Eq 34), finite.
    mu : float
        Vertical angular momentum ``mu = omega^T J Gamma``, finite.
    rtol, atol : float
        DOP853 tolerances (defaults 1e-11: E and mu stay on the level to ~1e-9 relative over 1000 crossings).
    method : {"dop853", "taylor"} or a DOP853 / Taylor integrator object
        ``"dop853"``: DOP853 with dense-output event location and polishing (:mod:`._core.section`).
        ``"taylor"``: the Taylor method at machine precision (``Taylor(tol=1e-11)``: order 14, half the work); each
        crossing is the root of the Taylor polynomial of ``e3^T Gammadot`` on its step (bracketed Newton).

    Attributes
    ----------
    level : Level
        The level and its scales.
    map : PoincareMap
        The return map with its integrator.
    """

    def __init__(self, pendulum: Pendulum, energy: float, mu: float, *, rtol: float = DEFAULT_RTOL,
                 atol: float = DEFAULT_ATOL, method: str | Integrator = "dop853") -> None:
        self.pendulum = _v.check_pendulum(pendulum)
        if not isinstance(method, (DOP853, Taylor)):
            method = _v.choice("method", method, SECTION_METHODS)
        self.level = Level(pendulum, energy, mu)
        self.rtol, self.atol = _v.tolerances(rtol, atol)
        tangent = DOP853(self.rtol, self.atol)
        if isinstance(method, (DOP853, Taylor)):
            integ: Integrator = method
            tangent = method if isinstance(method, DOP853) else tangent
        else:
            integ = tangent if method == "dop853" else Taylor()
        self.method: str = integ.name
        self.map = PoincareMap(self.level, integ, tangent=tangent)
        self.energy, self.mu = self.level.energy, self.level.mu
        #: scales of relative energy / mu errors, the time scale and the longest gap between crossings [s]
        self.energy_scale, self.mu_scale = self.level.energy_scale, self.level.mu_scale
        self.time_scale, self.max_gap = self.level.time_scale, self.level.max_gap

    # --- constructors ---------------------------------------------------------------------------
    @classmethod
    def from_state(cls, pendulum: Pendulum, Gamma: ArrayLike, omega: ArrayLike, **kw: Any) -> PoincareSection:
        """The section through the LP state (Gamma, omega): E and mu computed from the state."""
        _v.check_pendulum(pendulum)
        G = _v.unit_vector("Gamma", Gamma)
        w = _v.array("omega", omega, (3,), max_abs=MAX_LEVEL)
        p = pendulum.params(0.0)
        return cls(pendulum, energy_lp(G, w, p), mu_lp(G, w, p), **kw)

    @classmethod
    def from_paper_ic(cls, pendulum: Pendulum, energy: float, sign: int = 1,
                      **kw: Any) -> tuple[PoincareSection, tuple[NDArray[np.float64], NDArray[np.float64]]]:
        """The paper's family R0 = I, omega0 = c[1,1,1] at total energy ``energy`` (Fig. 2).

        Returns ``(section, (Gamma0, omega0))``; the section's mu = c e3^T J [1,1,1] depends on E.
        """
        G0, w0, _c = paper_initial_state(pendulum, energy, sign)
        # the level is (target E, mu of the state); E of the state equals the target up to rounding
        return cls(pendulum, energy, mu_lp(G0, w0, pendulum.params()), **kw), (G0, w0)

    @classmethod
    def with_motion(cls, pendulum: Pendulum, energy: float, mu: float, *, varied: str = "energy",
                    **kw: Any) -> PoincareSection:
        """The section at (energy, mu) if it is non-empty (its accessible region on :data:`REGION_GRID` is
        then cached); otherwise :class:`InaccessibleError` naming the admissible range of the quantity
        ``varied`` (``"energy"``: E > min V_mu at this mu; ``"mu"``: |mu| below :func:`mu_max` at this E)."""
        varied = _v.choice("varied", varied, ("energy", "mu"), exc=InvalidStateError)
        sec = cls(pendulum, energy, mu, **kw)
        region = sec.accessible_region(*_reg.REGION_GRID)
        if region.empty:
            E, m, lo = sec.energy, sec.mu, region.energy_min
            if varied == "mu":
                raise InaccessibleError(
                    f"μ = {m:.4g} kg m²/s gives no motion at E = {E:.5g} J (there min V_μ = {lo:.5g} J ≥ E): "
                    f"at this E a section needs |μ| < {sec.level.mu_max():.4g} kg m²/s.")
            raise InaccessibleError(f"energy E = {E:.5g} J gives no motion at μ = {m:.4g} kg m²/s: E must be above "
                                    f"min V_μ = {lo:.5g} J.")
        return sec

    # --- the level ------------------------------------------------------------------------------
    def mu_bound(self, energy: float | None = None) -> float:
        """:func:`~.level.mu_bound` of this pendulum at ``energy`` (default: this section's energy)."""
        return self.level.mu_bound(energy)

    def amended_potential(self, Gamma: ArrayLike) -> float | NDArray[np.float64]:
        """V_mu at ``Gamma`` (..., 3) (Eq 76)."""
        return self.level.amended_potential(Gamma)

    def slack(self, Gamma: ArrayLike) -> float | NDArray[np.float64]:
        """``E - V_mu(Gamma)``: positive where Gamma is on the section."""
        return self.level.slack(Gamma)

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
        return self.level.state_at(Gamma)

    def states_at(self, Gammas: ArrayLike) -> tuple[NDArray[np.float64], NDArray[np.bool_]]:
        """:meth:`state_at` for many, without exceptions: ``(Y, ok)``, LP states (k, 6), NaN where not ``ok``."""
        return self.level.states_at(Gammas)

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
        return self.level.check_seed(seed, name)

    def level_errors(self, Gamma: ArrayLike, omega: ArrayLike) -> tuple[NDArray[np.float64], ...]:
        """Relative E and mu errors of LP states and their section residuals
        (:meth:`~pendulum_explorer.section.level.Level.level_errors`)."""
        return self.level.level_errors(Gamma, omega)

    def critical_energies(self, eq: Any = None) -> list[float]:
        """The energies of the relative equilibria at this mu
        (:meth:`~pendulum_explorer.section.level.Level.critical_energies`)."""
        return self.level.critical_energies(eq)

    def relative_equilibria(self) -> list[NDArray[np.float64]]:
        """Relative equilibria at this mu with energy <= E
        (:meth:`~pendulum_explorer.section.level.Level.relative_equilibria`)."""
        return self.level.relative_equilibria()

    def accessible_region(self, n_phi: int = 181, n_z: int = 121,
                          window: tuple[float, ...] | None = None) -> AccessibleRegion:
        """The accessible set ``{V_mu <= E}`` on the whole chart, or on a ``window`` of it (a band ``(lo, hi)`` of
        Gamma_3 or a zoom ``(phi0, phi1, z0, z1)``; :func:`.region.accessible_region`)."""
        return _reg.accessible_region(self.level, n_phi, n_z, window)

    def chart_window(self) -> tuple[float, float]:
        """The range of Gamma_3 a click-to-launch chart shows (:func:`.region.chart_window`)."""
        return _reg.chart_window(self.level)

    def chart_region(self, n_phi: int = _reg.REGION_GRID[0], n_z: int = _reg.REGION_GRID[1]) -> AccessibleRegion:
        """The accessible region over :meth:`chart_window`, as a click-to-launch chart draws it."""
        return _reg.chart_region(self.level, n_phi, n_z)

    def nearest_admissible(self, phi: float, z: float, *, pole_margin: float = 1e-4) -> tuple[float, float]:
        """The nearest chart point where a trajectory can be launched (:func:`.region.nearest_admissible`)."""
        return _reg.nearest_admissible(self.level, phi, z, pole_margin=pole_margin)

    def seed_at(self, phi: float, z: float) -> tuple[SectionState, tuple[float, float] | None]:
        """The section state to launch from at the chart point ``(phi, z)`` (a click or a typed point).

        Returns ``(state, None)``, or, when ``(phi, z)`` is a pole (``|Gamma_3| = 1``, where the section has no
        point) or ``|z| > 1``, the state at :meth:`nearest_admissible` and that point ``(phi2, z2)``.

        Raises
        ------
        InaccessibleError
            ``(phi, z)`` is not accessible (``E <= V_mu`` there), or no admissible point exists.
        """
        phi, z = _v.real("phi", phi), _v.real("z", z)
        try:
            return self.state_at(sphere_from_chart(phi, z)), None
        except InvalidStateError:  # a pole (or a typed |z| > 1)
            moved = self.nearest_admissible(phi, min(1.0, max(-1.0, z)))
            return self.state_at(sphere_from_chart(*moved)), moved

    def fill_seeds(self, n: int) -> NDArray[np.float64]:
        """Up to ``n`` seeds spread evenly over the accessible region (:func:`.region.fill_seeds`)."""
        return _reg.fill_seeds(self.level, n)

    def energy_range(self) -> tuple[float, float]:
        """``(E_min, inf)``: the energies for which the section at this mu is non-empty (E_min = min V_mu)."""
        return self.accessible_region(61, 41).energy_range

    # --- crossings ------------------------------------------------------------------------------
    def crossings(self, seed: Seed, n: int = 1000, *, t_max: float | None = None, max_gap: float | None = None,
                  max_steps: int | None = None) -> Crossings:
        """The next ``n`` crossings with the section of the trajectory through ``seed``.

        Parameters
        ----------
        seed : Gamma (3,) on the section, or an LP state ``(Gamma, omega)`` on this (E, mu) level
            (pair, (6,) or (2, 3)), or a :class:`SectionState`.
        n : int >= 1
        t_max : float, optional
            Stop at this time (default ``(n + 10) * max_gap``).
        max_gap : float, optional
            Stop when no crossing occurred for this long, status ``"no_crossing"``.  Default
            ``MAX_GAP_SCALES`` (2000) x ``time_scale`` (about 3000 s for Fig. 2 at E = 0): chaotic orbits can
            spend several hundred seconds with only negatively oriented returns (e3^T(Gamma x Gammadot) < 0)
            before they cross P again, so the bound is generous.
        max_steps : int, optional
            Step budget (accepted + rejected), default ``20000 (n + 10)``.

        Returns
        -------
        Crossings
            With ``status != "ok"`` and fewer than ``n`` rows when the trajectory stopped crossing.
        """
        return self.map.crossings(seed, n, t_max=t_max, max_gap=max_gap, max_steps=max_steps)

    def stream(self, seed: Seed, n: int, chunk: int = 400, *, first: int | None = None,
               seconds: float | None = None) -> Iterator[Crossings]:
        """The next ``n`` crossings of the trajectory through ``seed``, yielded in chunks as they are computed.

        A generator: the caller draws each chunk and may stop at any chunk (``break`` or ``close()``); no work
        is done beyond the chunk being computed.  Each chunk is a :class:`Crossings` of the new crossings only,
        with times counted from the seed.  The trajectory continues from the last crossing of each chunk,
        re-seeded at the section state over it (:meth:`state_at`, i.e. projected back onto the exact level).

        Parameters
        ----------
        seed : see :meth:`check_seed`
        n : int >= 1, crossings in all
        chunk : int >= 1, the largest chunk
        first : int, optional
            Size of the first chunk (default ``chunk``): a small first chunk gives fast feedback.
        seconds : float, optional
            Wall-time target per chunk: after each chunk the next size is set from the measured rate (between
            1 and ``chunk``), so that a caller that checks for cancellation between chunks answers within about
            this time.

        Yields
        ------
        Crossings
            The last chunk has ``status != "ok"`` when the trajectory stopped crossing (then the stream ends
            early; that chunk may be empty).
        """
        return self.map.stream(seed, n, chunk, first=first, seconds=seconds)

    def click(self, phi: float, z: float, n: int = 1000, **kw: Any) -> Crossings:
        """The dashboard fast path: the trajectory through the section point at chart coordinates (phi, z)."""
        return self.map.click(phi, z, n, **kw)

    def batch(self, seeds: Iterable[Seed] | NDArray[np.float64], n: int = 500, *, executor: ExecutorLike | None = None,
              n_chunks: int | None = None, t_max: float | None = None, max_gap: float | None = None,
              max_steps: int | None = None) -> BatchCrossings:
        """Crossings of many trajectories.

        Parameters
        ----------
        seeds : sequence of seeds (see :meth:`crossings`), or an array (m, 3) of section Gammas or (m, 6) of
            LP states.
        n : int, crossings per seed.
        executor : concurrent.futures.Executor or distributed.Client, optional
            Chunks of seeds run by ``executor.submit`` (or as tasks on a dask ``Client``'s cluster), each on the
            single-threaded kernel (Taylor: 4 or 8 seeds per vector instruction, each :meth:`crossings` to 1e-12 on
            regular orbits); default a thread pool, one thread per usable core.  Results are identical.
        n_chunks : int, optional
            Chunks (default min(#seeds, 8); own pool: min(#seeds, 4 x #threads), Taylor: >= 4 lane groups each).
        """
        return self.map.batch(seeds, n, executor=executor, n_chunks=n_chunks, t_max=t_max, max_gap=max_gap,
                              max_steps=max_steps)

    # --- chaos maps and periodic orbits ---------------------------------------------------------
    def chaos_map(self, resolution: tuple[int, int] = (64, 48), t_total: float = 200.0, *, indicator: str = "megno",
                  executor: ExecutorLike | None = None, progress: Callable[[int, int], Any] | None = None,
                  cancel: Any = None, n_chunks: int | None = None, rtol: float = 1e-9, atol: float = 1e-9,
                  tangent_to_level: bool = False, method: str = "dop853", tol: float | None = None) -> ChaosMap:
        """MEGNO (or the Lyapunov estimate) over a grid of the section chart, the tangent dynamics (Eqs 31-32) on
        DOP853 (``rtol``, ``atol``: 1e-9) or the Taylor method (``method="taylor"``, ``tol``: 1e-12).  Parameters,
        results and errors as :func:`pendulum_explorer.section.chaos_map.chaos_map`."""
        return chaos_map(self.map, resolution, t_total, indicator=indicator, executor=executor,
                         progress=progress, cancel=cancel, n_chunks=n_chunks, rtol=rtol, atol=atol,
                         tangent_to_level=tangent_to_level, method=method, tol=tol)

    def chaos_maps(self, levels: Iterable[tuple[int, int]] = MAP_LEVELS, t_total: float = 200.0, *,
                   progress: Callable[[float, tuple[int, int], int, int], Any] | None = None, cancel: Any = None,
                   **kw: Any) -> Iterator[ChaosMap]:
        """:meth:`chaos_map` at each resolution of ``levels`` in turn (coarse first, then refined), each map
        yielded as soon as it is done, so that a caller can draw it while the next one is computed.

        ``progress(fraction, resolution, done, total)``: ``fraction`` of all the levels, ``done`` of ``total``
        accessible cells of the map being computed.  ``cancel`` (see :meth:`chaos_map`) ends the generator
        quietly: the maps yielded so far are what was finished.  Other keywords go to :meth:`chaos_map`.
        """
        return chaos_maps(self.map, levels, t_total, progress=progress, cancel=cancel, **kw)

    def return_map(self, phi: float, z: float, k: int = 1) -> tuple[float, float, float, NDArray[np.float64]]:
        """The k-th return of the section point at chart coordinates (phi, z) and its Jacobian.

        The section state y0(phi, z) is integrated with the tangent dynamics (six deviation vectors: the flow's
        Jacobian Phi) to its k-th crossing y1 at time T.  The derivative of the return map is
        ``dy1 = Pi (Phi dy0)`` with the return-time correction ``Pi v = v - f(y1) (grad g . v) / (grad g . f(y1))``
        (g = e3^T Gammadot, f = Eqs 31-32), and dy0 is the tangent of the section chart: dGamma from
        Gamma = (r cos phi, r sin phi, z), domega from the three linear conditions dE = dmu = dg = 0 (Eqs 34, 56).

        Returns
        -------
        (phi1, z1, T, M) with M the 2 x 2 Jacobian d(phi1, z1) / d(phi, z).

        Raises
        ------
        InaccessibleError, InvalidStateError
            (phi, z) is not on the section.
        IntegrationFailedError
            The trajectory stopped crossing before its k-th return.
        """
        return _orb.return_map(self.map, phi, z, k)

    def periodic_orbit(self, seed: ArrayLike | SectionState, k: int = 1, *, tol: float = 1e-10,
                       max_iter: int = 50) -> PeriodicOrbit:
        """A fixed point of the k-th return map near ``seed``: Newton's method on the section chart with the
        Jacobian of :meth:`return_map` (variational equations of Eqs 31-32).

        Parameters
        ----------
        seed : (phi, z) chart coordinates, a section Gamma (3,), or a :class:`SectionState`
        k : int, 1 ... 64 (``MAX_RETURN_POWER``)
        tol : float
            Converged when the chart distance between the point and its k-th return is <= tol (in [1e-13, 1e-3]).
        max_iter : int
            Newton iterations (each step limited to 0.2 in the chart, halved while its target leaves the section
            or the residual grows).

        Returns
        -------
        PeriodicOrbit

        Raises
        ------
        PeriodicOrbitNotFoundError
            No convergence within max_iter (or the iteration left the section); carries ``residual``.
        """
        return _orb.periodic_orbit(self.map, seed, k, tol=tol, max_iter=max_iter)

    def __repr__(self) -> str:
        return (f"PoincareSection({self.pendulum!r}, energy={self.energy!r}, mu={self.mu!r}, "
                f"rtol={self.rtol:g}, atol={self.atol:g}, method={_method_repr(self.map.integrator)})")


def _method_repr(integ: Integrator) -> str:
    """A section's method as its constructor takes it: the name, or the Taylor object when its tolerance is not the
    default."""
    return repr(integ) if isinstance(integ, Taylor) and integ != Taylor() else repr(integ.name)
