""":func:`equilibria`: every equilibrium and relative equilibrium of a pendulum (Props 9 and 20, sign-corrected).

The hanging and inverted points and the two Eq (38) points are isolated; the families are built in adapted
principal axes (:mod:`.adapted`): the generic segments of Eqs (39)-(40) between consecutive poles that rho sees
(the "axis" families when rho lies on a principal axis), then an Eq (41) / case 7 family for every group of
equal moments that rho does not see.  Each is sampled adaptively (:mod:`.sampling`), taken to the body frame with
its energy, momentum and stability, refined at its stability changes, and mirrored to the branch -1.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from .. import _validate as _v
from ..bodies import Pendulum
from ..errors import InvalidIntegrationError, InvalidPendulumError
from .adapted import RTOL_J, RTOL_RHO, AdaptedFrame, adapted_frame, curve_param, evaluate, generic_at
from .records import (F64, CircleCurve, EquilibriumCase, EquilibriumPoint, EquilibriumSet, Family,
                      FamilySampling, GenericCurve, StaticEnd)
from .sampling import _STEP, Finisher, approach, mirror, refine, refine_segment, refine_transitions

E_CAP_FACTOR = 20.0
#: smallest J3 / J1 that equilibria() accepts
MIN_MOMENT_RATIO = 1e-12


@dataclass(frozen=True)
class _Setup:
    """What every family of one body is built from (adapted axes)."""

    frame: AdaptedFrame
    phis: F64            # pole angles atan(1/J_i)
    poles: list[int]     # the poles rho sees, by increasing angle
    rhat: F64            # rho / |rho|
    s_ref: float         # k^2/(m g) scale of the small oscillations
    s_cap: float         # k^2/(m g) at which 1/2 k^2 J3 = E_CAP m g |rho|

    @property
    def on_axis(self) -> bool:
        return len(self.poles) == 1


@dataclass(frozen=True)
class _RawFamily:
    """A family's samples in adapted axes, before the body frame."""

    label: str
    kind: str
    sampling: FamilySampling
    param: F64
    ends: tuple[bool, bool]
    axis: F64 | None


def _setup(frame: AdaptedFrame) -> _Setup:
    j, r = frame.j, frame.r
    rn = np.linalg.norm(r)
    phis = np.arctan2(1.0, j)
    act = r != 0.0
    poles = sorted((int(i) for i in np.nonzero(act)[0]), key=lambda i: phis[i])
    return _Setup(frame, phis, poles, r / rn, rn / j[0], 2.0 * E_CAP_FACTOR * rn / j[2])


def _segment_label(st: _Setup, a: int | None, c: int | None, lo: float, hi: float) -> tuple[str, str]:
    """The label and kind of the generic segment between poles ``a`` and ``c`` (None: the hanging / inverted end)."""
    if st.on_axis:
        return ("axis-hanging" if a is None else "axis-inverted"), "axis"
    bp = [0.0, *np.arctan2(1.0, st.frame.j), np.pi]
    paper_iv = [("L2", bp[0], bp[1]), ("L3", bp[1], bp[2]), ("L4", bp[2], bp[3]), ("L1", bp[3], bp[4])]
    return "+".join(nm for nm, x0_, x1_ in paper_iv if max(lo, x0_) < min(hi, x1_)), "generic"


def _half_offsets(st: _Setup, base: int, sgn: int, H: float, first: bool, a: int | None,
                  c: int | None) -> F64:
    """The initial offsets of one half of a segment: a grid from the midpoint (or a static end) to the pole and
    the approach to the pole."""
    j, r, phis = st.frame.j, st.frame.r, st.phis

    def ev(x: F64) -> tuple[F64, F64]:
        G, s, _ = generic_at(base, x, j, r, phis)
        return G, s
    lim = ev(np.array([sgn * 1e-300]))[0][0]
    near = approach(ev, H, sgn, lim, st.s_cap)
    grid = sgn * np.linspace(H, 0.0, 24, endpoint=False)  # grid[0]: a static end or the midpoint
    if not (first or a is None or c is None):
        grid = grid[1:]  # the midpoint belongs to the left half
    x0 = np.unique(np.concatenate([grid, near]))
    if c is None:
        assert a is not None  # rho != 0: some pole is active
        # keep the exact (38) point (alpha = +-inf, phi = pi/2) out of the curve; bracket it tightly
        x38 = np.pi / 2 - phis[a]
        x0 = x0[np.abs(x0 - x38) > 1e-7]
        x0 = np.unique(np.concatenate([x0, [x38 - 1e-7, x38 + 1e-7]]))
    return x0


def _generic_segment(st: _Setup, a: int | None, c: int | None) -> _RawFamily:
    """The generic family (Eqs 39-40) between the poles ``a`` and ``c`` (None: from the hanging point / to the
    inverted point), sampled from both poles toward the middle."""
    phis = st.phis
    lo = 0.0 if a is None else phis[a]
    hi = np.pi if c is None else phis[c]
    halves: list[tuple[int, int, float, bool]]
    if a is not None and c is not None:
        mid = 0.5 * (hi - lo)
        halves = [(a, +1, mid, True), (c, -1, mid, False)]
    elif a is None:
        assert c is not None  # rho != 0: some pole is active
        halves = [(c, -1, hi - lo, False)]
    else:
        halves = [(a, +1, hi - lo, False)]
    static = []
    if a is None:  # starts at the hanging point (alpha -> 0+)
        assert c is not None
        static.append(StaticEnd(c, float(-phis[c]), st.rhat))
    if c is None:  # ends at the inverted point (alpha -> 0-)
        assert a is not None
        static.append(StaticEnd(a, float(np.pi - phis[a]), -st.rhat))
    curve = GenericCurve(st.frame.j, st.frame.r, phis, tuple(static))
    B, X, K = [], [], []
    for hidx, (base, sgn, H, incl_end) in enumerate(halves):
        x0 = _half_offsets(st, base, sgn, H, incl_end, a, c)
        B.append(np.full(len(x0), base))
        X.append(x0)
        K.append(10.0 * hidx + x0)
    Bs, Xs = refine_segment(curve, np.concatenate(B), np.concatenate(X), np.concatenate(K), st.s_ref)
    label, kind = _segment_label(st, a, c, lo, hi)
    return _RawFamily(label, kind, FamilySampling(curve, Bs, Xs), curve_param(curve, Bs, Xs), (a is None, c is None),
                      None)


def _circle_family(st: _Setup, g: list[int], repeated: bool) -> _RawFamily:
    """The Eq (41) / case 7 family of a group ``g`` of equal moments that rho does not see."""
    j, r = st.frame.j, st.frame.r
    act = r != 0.0
    gi = g[0]
    u = np.where(act, r / np.where(act, j - j[gi], 1.0), 0.0)
    un = np.linalg.norm(u)
    uhat = u / un
    free = np.eye(3)[gi]
    if len(g) == 2:
        label, kind = "eq7a", "eq7a"
    elif repeated:
        label, kind = "eq7b", "eq7b"
    else:
        label, kind = f"eq41-p{gi + 1}", "eq41"
    curve = CircleCurve(uhat, free, float(un), float(1.0 / j[gi]))

    def ev(x: F64) -> tuple[F64, F64]:
        G, s, _ = evaluate(curve, np.zeros(len(x), int), x)
        return G, s

    def ev_top(x: F64) -> tuple[F64, F64]:  # offsets x < 0 from psi = pi/2, where Gamma -> +e_free
        return ev(np.pi / 2 + x)
    top = np.pi / 2 + approach(ev_top, 0.25, -1, free, st.s_cap)
    n_lin = int(np.ceil(np.pi / _STEP)) + 1
    x0 = np.unique(np.concatenate([np.linspace(-np.pi / 2, np.pi / 2, n_lin)[1:-1], top, -top]))
    x, _, _ = refine(x0, ev, st.s_ref)
    sampling = FamilySampling(curve, np.full(len(x), -1), x)
    return _RawFamily(label, kind, sampling, x, (False, False), st.frame.P @ uhat if kind == "eq7a" else None)


def _raw_families(st: _Setup) -> list[_RawFamily]:
    """Every family of the body (branch +1), in adapted axes."""
    edges: list[int | None] = [None, *st.poles, None]
    raw = [_generic_segment(st, a, c) for a, c in zip(edges[:-1], edges[1:])]
    act = st.frame.r != 0.0
    repeated = any(len(g) > 1 for g in st.frame.groups)
    raw += [_circle_family(st, g, repeated) for g in st.frame.groups if not np.any(act[g])]
    return raw


def _isolated(st: _Setup, fin: Finisher) -> list[EquilibriumPoint]:
    """Hanging, inverted (Prop 9 cases 1-2) and the two Eq (38) points."""
    j, r = st.frame.j, st.frame.r
    Jinv_r = r / j
    G38 = -Jinv_r / np.linalg.norm(Jinv_r)
    s38 = np.linalg.norm(Jinv_r)
    iso_raw = [("hanging", st.rhat, 0.0, 0.0, 0), ("inverted", -st.rhat, 0.0, 0.0, 0),
               ("eq38", G38, s38, np.nan, +1), ("eq38", G38, s38, np.nan, -1)]
    isolated = []
    for name, Gp, s, al, br in iso_raw:
        p = fin.finish(Gp[None, :], np.array([s]), br if br else 1)
        isolated.append(EquilibriumPoint(p.Gamma[0], p.omega[0], float(p.mu[0]), float(p.energy[0]), float(al), name,
                                         br, p.stability[0], p.eigenvalues[0]))
    return isolated


def _family(fam: _RawFamily, fin: Finisher) -> Family:
    """A raw family in the body frame with its energy, momentum and stability (branch +1)."""
    smp = fam.sampling
    Gp, s, al = evaluate(smp.curve, smp.base, smp.x)
    p = fin.finish(Gp, s, +1)
    sampling = FamilySampling(smp.curve, smp.base.copy(), smp.x.copy())
    f = Family(fam.label, fam.kind, +1, fam.param.copy(), al.copy(), p.Gamma, p.omega, p.mu, p.energy, p.stability,
               p.eigenvalues, fam.axis, fam.ends, sampling)
    return refine_transitions(f, fin) if fin.stability else f


def _check(pendulum: Pendulum, rtol_J: float, rtol_rho: float, stability: bool) -> tuple[float, float]:
    """The validated tolerances; raises for a balanced pendulum or moments beyond double precision."""
    _v.check_pendulum(pendulum)
    rtol_J = _v.real("rtol_J", rtol_J, exc=InvalidIntegrationError, low=0.0, high=1e-3)
    rtol_rho = _v.real("rtol_rho", rtol_rho, exc=InvalidIntegrationError, low=0.0, high=1e-3)
    if not isinstance(stability, (bool, np.bool_)):
        raise TypeError(f"stability must be True or False; got {stability!r}")
    pendulum.require_unbalanced("equilibria()")
    Jp = pendulum.principal_moments
    if Jp[2] < MIN_MOMENT_RATIO * Jp[0]:
        raise InvalidPendulumError(
            f"equilibria() needs J3 >= {MIN_MOMENT_RATIO:g} J1 (the families near the pole 1/J3 are not "
            f"representable in double precision otherwise); got principal moments {Jp.tolist()}")
    return rtol_J, rtol_rho


def equilibria(pendulum: Pendulum, rtol_J: float = RTOL_J, rtol_rho: float = RTOL_RHO,
               stability: bool = True) -> EquilibriumSet:
    """All equilibria and relative equilibria of the 3D pendulum (Props 9 and 20, sign-corrected).

    Parameters
    ----------
    pendulum : Pendulum
        Must be unbalanced (rho != 0), else :class:`~pendulum_explorer.errors.BalancedPendulumError`.
    rtol_J, rtol_rho : float
        Relative tolerances for treating principal moments as equal and rho components as zero (see
        :mod:`pendulum_explorer.equilibria.adapted`).
    stability : bool
        Compute the Lagrange–Routh eigenvalues and classes (else they are NaN / "").

    Returns
    -------
    EquilibriumSet
        In the pendulum's own body frame.
    """
    rtol_J, rtol_rho = _check(pendulum, rtol_J, rtol_rho, stability)
    st = _setup(adapted_frame(pendulum, rtol_J, rtol_rho))
    raw = _raw_families(st)
    fin = Finisher(pendulum, st.frame.P, bool(stability))
    isolated = _isolated(st, fin)
    families = []
    for fam in raw:
        f = _family(fam, fin)
        families.append(f)
        families.append(mirror(f, fin))
    fr = st.frame
    case = EquilibriumCase(fr.j, fr.r, [list(g) for g in fr.groups], st.on_axis,
                           any(len(g) > 1 for g in fr.groups), [float(st.phis[i]) for i in st.poles], rtol_J, rtol_rho)
    return EquilibriumSet(pendulum, isolated, families, fr.P, case)


__all__ = ["equilibria", "E_CAP_FACTOR", "MIN_MOMENT_RATIO"]
