"""The accessible region ``{V_mu <= E}`` of a level on the section chart, the chart window a click-to-launch chart
shows, and the seeds spread over the region."""
from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
from numpy.typing import NDArray

from .. import _validate as _v
from .._core import section as _sec
from ..bounds import BOUNDS
from ..errors import InaccessibleError, InvalidStateError
from .chart import sphere_from_chart
from .contour import zero_level
from .level import Level, extremum
from .results import AccessibleRegion

#: points per side of the accessible-region grid
MAX_GRID = int(BOUNDS["grid"].high)
#: the chart grid (n_phi, n_z) of the accessible region that the dashboard draws and :func:`fill_seeds` reads
REGION_GRID = (121, 81)
#: the width of the section chart's plot area over its height (the dashboard's chart: ~900 x 330 px)
CHART_ASPECT = 3.0
#: the widest column across the boundary of a zoomed region, in window heights on the screen (the shading's
#: steps stay within SHADE_STEP / 2 of the boundary; the rows of an 81-row window are 0.0123 high)
SHADE_STEP = 0.015


def accessible_region(level: Level, n_phi: int = 181, n_z: int = 121,
           window: tuple[float, ...] | None = None) -> AccessibleRegion:
    """The accessible set ``{V_mu <= E}`` of ``level`` on an (n_z x n_phi) grid of the equal-area chart.

    ``window=None``: grid nodes over the whole chart (z from -1 to 1), with the extremes of V_mu over the sphere
    and the accessible area fraction.  ``window=(lo, hi)``: ``n_z`` rows whose centres tile Gamma_3 in
    [lo, hi] (never a pole: a click on a cell lands half a cell inside); ``window=(phi0, phi1, z0, z1)`` (a zoom
    of the chart, clipped to it): nodes from corner to corner.  With a window, ``energy_min``, ``energy_all``,
    ``Gamma_min`` and ``area_fraction`` are those of the whole sphere (on :data:`REGION_GRID`).
    The boundary V_mu = E lies on the exact curve (:func:`.contour.zero_level`: roots of V_mu - E along the grid
    lines, segments split where the curve bows away), so it is smooth however small the window.
    Cached per level.
    """
    n_phi = _v.integer("n_phi", n_phi, low=3, high=MAX_GRID)
    n_z = _v.integer("n_z", n_z, low=3, high=MAX_GRID)
    # ~24 floats per grid point at the peak (meshgrid, Gamma, V, the contour's edge arrays; measured 1.75 GB for
    # 10000 x 1000 while the old estimate of 12 said 0.9 GB)
    _v.result_memory(24.0 * n_phi * n_z, f"an accessible region of {n_phi} x {n_z} points", "reduce n_phi, n_z")
    if window is not None:
        window = _window(tuple(window))
    key = ("region", n_phi, n_z, window)
    if key in level.cache:
        cached: AccessibleRegion = level.cache[key]
        return cached
    phi = np.linspace(-np.pi, np.pi, n_phi)
    if window is None:
        z = np.linspace(-1.0, 1.0, n_z)
    elif len(window) == 4:
        phi, z = np.linspace(window[0], window[1], n_phi), np.linspace(window[2], window[3], n_z)
    else:
        lo, hi = window
        z = lo + (np.arange(n_z, dtype=np.float64) + 0.5) * ((hi - lo) / n_z)
    G, V = _potential(level, phi, z)
    if window is not None and window != (-1.0, 1.0):  # a zoom: the columns across the boundary refined
        phi = _refined(phi, V <= level.energy, CHART_ASPECT / (phi[-1] - phi[0]))
        G, V = _potential(level, phi, z)
    bphi, bz = zero_level(phi, z, V - level.energy, _excess(level))
    bG = np.full((bphi.size, 3), np.nan)
    fin = np.isfinite(bphi)
    if fin.any():
        bG[fin] = sphere_from_chart(bphi[fin], bz[fin])
    acc = V <= level.energy
    if window is None:
        vmin, gmin = extremum(level.p, V, G, +1)
        vmax, _ = extremum(level.p, V, G, -1)
        # equal-area: the cell weights are uniform in (phi, z) (trapezoid weights at the edges)
        wz = np.full(n_z, 1.0)
        wz[[0, -1]] = 0.5
        wp = np.full(n_phi, 1.0)
        wp[[0, -1]] = 0.5
        W = wz[:, None] * wp[None, :]
        frac = float((W * acc).sum() / W.sum())
        reg = AccessibleRegion(phi, z, V, acc, bphi, bz, bG, level.energy, vmin, vmax, gmin, frac)
    else:
        full = accessible_region(level, *REGION_GRID)
        reg = AccessibleRegion(phi, z, V, acc, bphi, bz, bG, level.energy, full.energy_min, full.energy_all,
                               full.Gamma_min, full.area_fraction)
    level.cache[key] = reg
    return reg


def _potential(level: Level, phi: NDArray[np.float64],
               z: NDArray[np.float64]) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Gamma (nz, nphi, 3) and V_mu (nz, nphi) on the chart grid phi x z."""
    PH, Z = np.meshgrid(phi, z)
    G = sphere_from_chart(PH, Z)
    V = np.empty(PH.size)
    _sec.amended_potential_many(np.ascontiguousarray(G.reshape(-1, 3)), level.p, V)
    return G, V.reshape(PH.shape)


def _refined(phi: NDArray[np.float64], acc: NDArray[np.bool_], heights: float) -> NDArray[np.float64]:
    """``phi`` with each interval across which some row's accessibility changes split into equal parts (at most
    8) at most :data:`SHADE_STEP` window heights wide on the screen (``heights``: window heights per radian)."""
    cross = (acc[:, 1:] != acc[:, :-1]).any(axis=0)
    parts = np.clip(np.ceil(np.diff(phi) * heights / SHADE_STEP), 1, 8).astype(int)
    parts[~cross] = 1
    if (parts == 1).all():
        return phi
    pieces = [a + (b - a) * np.arange(k) / k for a, b, k in zip(phi[:-1], phi[1:], parts)]
    return np.concatenate(pieces + [phi[-1:]])


def _window(window: tuple[float, ...]) -> tuple[float, ...]:
    """A region's window checked: (lo, hi) in Gamma_3, or (phi0, phi1, z0, z1) clipped to the chart."""
    if len(window) == 2:
        lo, hi = (_v.real(f"window[{k}]", w, low=-1.0, high=1.0) for k, w in enumerate(window))
        if not lo < hi:
            raise InvalidStateError(f"window (lo, hi) must have lo < hi in [-1, 1]; got {window!r}")
        return lo, hi
    if len(window) != 4:
        raise InvalidStateError(f"window must be (lo, hi) or (phi0, phi1, z0, z1); got {window!r}")
    p0, p1, z0, z1 = (_v.real(f"window[{k}]", w) for k, w in enumerate(window))
    p0, p1, z0, z1 = max(p0, -math.pi), min(p1, math.pi), max(z0, -1.0), min(z1, 1.0)
    if not (p0 < p1 and z0 < z1):
        raise InvalidStateError(f"window (phi0, phi1, z0, z1) must have phi0 < phi1 and z0 < z1 within the chart "
                                f"(phi in [-pi, pi], z in [-1, 1]); got {window!r}")
    return p0, p1, z0, z1


def chart_window(level: Level) -> tuple[float, float]:
    """The range of Gamma_3 a click-to-launch chart shows: ``(-1, 1)``, or, when the accessible set spans less
    than 40 % of it (low energies: a thin band along the hanging or inverted edge), that band padded by a
    quarter of its width on each side (at least 0.005), so that it gets the chart's pixels."""
    reg = accessible_region(level, *REGION_GRID)
    dz = reg.z[1] - reg.z[0]
    rows = np.nonzero(reg.accessible.any(axis=1))[0]
    zs = [float(reg.Gamma_min[2])] + ([float(reg.z[rows[0]]), float(reg.z[rows[-1]])] if rows.size else [])
    lo, hi = max(-1.0, min(zs) - dz), min(1.0, max(zs) + dz)  # the band lies within a grid step of its rows
    if hi - lo >= 0.8:
        return -1.0, 1.0
    pad = max(0.25 * (hi - lo), 0.005)
    return max(-1.0, lo - pad), min(1.0, hi + pad)


def chart_region(level: Level, n_phi: int = REGION_GRID[0], n_z: int = REGION_GRID[1]) -> AccessibleRegion:
    """The accessible region as a click-to-launch chart draws it: :func:`accessible_region` over :func:`chart_window`."""
    return accessible_region(level, n_phi, n_z, chart_window(level))


def nearest_admissible(level: Level, phi: float, z: float, *, pole_margin: float = 1e-4) -> tuple[float, float]:
    """The chart point nearest to ``(phi, z)`` (on the sphere) where a trajectory can be launched: accessible
    (``E - V_mu > 1e-9 energy_scale``) and with ``|Gamma_3| <= 1 - pole_margin`` (the poles are not on the
    section).  ``(phi, z)`` itself when it qualifies.

    Raises
    ------
    InaccessibleError
        No such point (the section is empty, or all of it lies within ``pole_margin`` of a pole).
    """
    phi = _v.real("phi", phi)
    z = _v.real("z", z, low=-1.0, high=1.0)
    pole_margin = _v.positive("pole_margin", pole_margin, high=0.5)
    zc = min(1.0 - pole_margin, max(-1.0 + pole_margin, z))
    tol = 1e-9 * level.energy_scale
    if level.slack(sphere_from_chart(phi, zc)) > tol:
        return phi, zc
    lo, hi = chart_window(level)
    zz = np.linspace(max(lo, -1.0 + pole_margin), min(hi, 1.0 - pole_margin), 401)
    pp = np.linspace(-np.pi, np.pi, 721)
    PH, Z = np.meshgrid(pp, zz)
    G = sphere_from_chart(PH, Z)
    ok = np.asarray(level.slack(G)) > tol
    if not ok.any():
        raise InaccessibleError(f"no point of the section at E = {level.energy:.6g} J, mu = {level.mu:.6g} kg m^2/s is "
                                f"farther than {pole_margin:g} from the poles")
    d = np.linalg.norm(G - sphere_from_chart(phi, z), axis=-1)
    k = np.argmin(np.where(ok, d, np.inf))
    return float(PH.flat[k]), float(Z.flat[k])


def fill_seeds(level: Level, n: int) -> NDArray[np.float64]:
    """Up to ``n`` seeds spread evenly over the accessible region: LP states ``[Gamma, omega]`` (k, 6).

    The points of a Fibonacci lattice on the sphere (equal area, dense enough that about ``4 n`` of them
    fall in the accessible region) whose section state exists, ``n`` of them taken evenly along the lattice.

    Raises
    ------
    InaccessibleError
        The section is empty, or no lattice point lies in the accessible region (a very thin region).
    """
    n = _v.integer("n", n, low=1, high=MAX_GRID)
    reg = accessible_region(level, *REGION_GRID)
    if reg.empty:
        raise InaccessibleError("the section is empty at this (E, mu): nothing to fill")
    k = np.arange(4 * n * max(1, int(1 / max(reg.area_fraction, 0.02))))
    zz = 1 - (2 * k + 1) / len(k)
    ph = np.mod(k * np.pi * (3 - np.sqrt(5)), 2 * np.pi) - np.pi
    Y, ok = level.states_at(sphere_from_chart(ph, zz))
    cand = Y[ok]
    if len(cand) == 0:
        raise InaccessibleError("no lattice point of the accessible region was found; try a higher E")
    seeds: NDArray[np.float64] = cand[np.linspace(0, len(cand) - 1, min(n, len(cand))).round().astype(int)]
    return seeds


def _excess(level: Level) -> Callable[[NDArray[np.float64], NDArray[np.float64]], NDArray[np.float64]]:
    """``V_mu - E`` at chart points (phi, z) (arrays of one shape): the function whose zero is the boundary."""
    def f(phi: NDArray[np.float64], z: NDArray[np.float64]) -> NDArray[np.float64]:
        G = np.ascontiguousarray(sphere_from_chart(phi, z).reshape(-1, 3))
        out = np.empty(G.shape[0])
        _sec.amended_potential_many(G, level.p, out)
        return out.reshape(np.shape(phi)) - level.energy
    return f
