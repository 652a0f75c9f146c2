"""Property suite (issue 26, "done means"): for random valid bodies, states and tolerances, every state that
``simulate`` / ``simulate_lr`` and the geometry helpers return passes the package's own input checks and keeps
the invariants within what the tolerance asked implies, or carries an :class:`InvariantDriftWarning` that says
which invariant drifted (and then the drift figures say so too).  A refusal is allowed only as a
:class:`PendulumError` (never a raw error, NaN or inf).

The drift is recomputed here from the returned arrays with numpy alone (not with the package's kernels).
"""
from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

import pendulum_explorer as pe
from pendulum_explorer import _validate as _v
from pendulum_explorer import geometry as g
from pendulum_explorer import reduction
from pendulum_explorer.errors import InvalidStateError, InvariantDriftWarning, PendulumError
from pendulum_explorer.trajectory import DRIFT_ROUNDOFF

from pe_strategies import lp_states, valid_bodies

CONSTRAINTS = ("gamma_norm", "orthogonality", "gamma_vs_attitude")

rotvecs = st.tuples(*[st.floats(-3.0, 3.0)] * 3).map(np.array)
spans = st.floats(0.05, 4.0)
rtols = st.sampled_from([1e-4, 1e-6, 1e-8, 1e-10, 1e-12])


def numpy_drift(tr):
    """The five drift figures of ``stats["drift"]``, from the returned arrays (numpy only)."""
    G, R, P = np.asarray(tr.Gamma), np.asarray(tr.R), tr.pendulum
    E = np.einsum("nki,nkj->nij", R, R) - np.eye(3)
    J = np.asarray(P.J)
    J1 = float(np.linalg.eigvalsh(J).max())
    scale = max(abs(float(tr.energy[0])), P.m * P.g * float(np.linalg.norm(P.rho)),
                0.5 * J1 * float(tr.omega[0] @ tr.omega[0]))
    energy = 0.5 * np.einsum("ni,ij,nj->n", tr.omega, J, tr.omega) - P.m * P.g * (G @ np.asarray(P.rho))  # Eq (34)
    mu = np.einsum("ni,ij,nj->n", tr.omega, J, G)  # Prop 1
    return {"gamma_norm": float(np.abs(np.linalg.norm(G, axis=1) - 1).max()),
            "orthogonality": float(np.sqrt((E ** 2).sum(axis=(1, 2))).max()),
            "gamma_vs_attitude": float(np.abs(G - R[:, 2, :]).max()),
            "energy": float(np.abs(energy - energy[0]).max()) / scale,
            "mu": float(np.abs(mu - mu[0]).max()) / math.sqrt(2 * J1 * scale)}


def run(f, *args, **kw):
    """``f(*args, **kw)`` with its InvariantDriftWarnings recorded: ``(result, [messages])``; a refusal must be
    a PendulumError (then ``(None, [])``)."""
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        try:
            out = f(*args, **kw)
        except PendulumError:
            return None, []
    assert not [w for w in rec if not issubclass(w.category, (InvariantDriftWarning, DeprecationWarning))], rec
    return out, [str(w.message) for w in rec if issubclass(w.category, InvariantDriftWarning)]


def check_trajectory(tr, msgs, tol, checked):
    """The invariants within the bound the tolerance implies, or a warning naming what drifted."""
    for name in ("t", "R", "omega", "Gamma", "energy", "mu"):
        assert np.all(np.isfinite(getattr(tr, name))), name
    d, ref = tr.stats["drift"], numpy_drift(tr)
    for k in ref:
        assert d[k] == pytest.approx(ref[k], rel=1e-5, abs=1e-14), k
    bound = max(tol, DRIFT_ROUNDOFF) * math.sqrt(tr.stats["n_steps"])
    assert tr.stats["drift_bound"] == pytest.approx(bound)
    over = [k for k in checked if ref[k] > bound * (1 + 1e-9)]
    invalid = [k for k in CONSTRAINTS if ref[k] > _v.UNIT_TOL * (1 + 1e-9)]
    if over or invalid:
        assert len(msgs) == 1, (over, invalid)
        assert all(k in msgs[0] for k in over + invalid), (msgs[0], over, invalid)
        return False
    assert not msgs, (msgs, d, bound)
    return True


def check_last_state_is_valid_input(P, tr):
    """The last returned state is accepted by every entry point that takes a state (no exception)."""
    R, w, G = tr.R[-1], tr.omega[-1], tr.Gamma[-1]
    _v.rotation("R0", R)
    _v.unit_vector("Gamma", G)
    reduction.energy(P, G, w)
    G1, Gd, mu = reduction.lr_from_lp(P, G, w)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", InvariantDriftWarning)
        pe.simulate(P, R, w, 0.01, n_out=2)
        reduction.simulate_lr(P, G1, Gd, mu, 0.01, R0=R, n_out=2)
    g.as_quaternion(R)
    g.logm(R)


@given(valid_bodies(), rotvecs, lp_states(), spans, rtols, st.sampled_from(["dop853", "taylor", "lgvi"]))
def test_simulate_keeps_its_invariants_or_warns(P, rv, state, T, rtol, method):
    _, w = state
    R0 = g.expm(rv)
    kw = {"dop853": {"rtol": rtol, "atol": rtol * 1e-2}, "taylor": {"tol": rtol}, "lgvi": {"dt": 2e-3}}[method]
    tr, msgs = run(pe.simulate, P, R0, w, T, method=method, n_out=51, **kw)
    assume(tr is not None)
    tol = {"dop853": rtol * 1.01, "taylor": rtol, "lgvi": 0.0}[method]
    checked = CONSTRAINTS if method == "lgvi" else CONSTRAINTS + ("energy", "mu")
    if check_trajectory(tr, msgs, tol, checked):
        check_last_state_is_valid_input(P, tr)


@given(valid_bodies(), lp_states(), st.floats(-1.0, 1.0), spans, rtols)
def test_simulate_lr_keeps_its_invariants_or_warns(P, state, mu, T, rtol):
    G, w = state
    Gd = np.cross(G, w)
    tr, msgs = run(reduction.simulate_lr, P, G, Gd, mu, T, n_out=51, rtol=rtol, atol=rtol * 1e-2)
    assume(tr is not None)
    assert tr.mu[0] == pytest.approx(mu, abs=1e-12 * max(1.0, abs(mu)))
    if check_trajectory(tr, msgs, rtol * 1.01, CONSTRAINTS + ("energy", "mu")):
        check_last_state_is_valid_input(P, tr)


@given(rotvecs)
def test_rotations_returned_by_the_geometry_helpers_are_valid_inputs(rv):
    R = g.expm(rv)
    for M in (R, g.cayley(rv / 3), g.orthonormalize(R + 1e-3 * np.outer(rv, rv[::-1])),
              g.rotation_about(rv / max(np.linalg.norm(rv), 1e-3) if np.linalg.norm(rv) > 1e-3 else [0, 0, 1.0], 0.7),
              g.from_quaternion(g.as_quaternion(R))):
        M = _v.rotation("R", M)  # the package's own check
        assert np.abs(M.T @ M - np.eye(3)).max() < 1e-13 and np.linalg.det(M) == pytest.approx(1.0, abs=1e-13)
        np.testing.assert_allclose(g.expm(g.logm(M)), M, atol=1e-12)
        q = g.as_quaternion(M)
        np.testing.assert_allclose(g.from_quaternion(q), M, atol=1e-12)
        g.as_euler(M)


@given(st.lists(st.floats(-2.0, 2.0), min_size=9, max_size=9).map(lambda v: np.array(v).reshape(3, 3)))
def test_any_matrix_is_a_rotation_after_orthonormalize_or_refused(A):
    """orthonormalize: a rotation (the nearest: no sample rotation is nearer) or an InvalidStateError; logm and
    as_quaternion: refuse every non-rotation."""
    try:
        Rn = g.orthonormalize(A)
    except InvalidStateError as exc:
        s = np.linalg.svd(A, compute_uv=False)
        assert np.linalg.det(A) <= 0 or s[-1] < 1e-8 * s[0], str(exc)
    else:
        assert np.linalg.det(A) > 0
        _v.rotation("R", Rn)
        assert np.linalg.det(Rn) == pytest.approx(1.0, abs=1e-12)
    is_rotation = np.abs(A.T @ A - np.eye(3)).max() <= _v.UNIT_TOL and np.linalg.det(A) > 0
    for f in (g.logm, g.as_quaternion):
        if is_rotation:
            f(A)
        else:
            with pytest.raises(InvalidStateError, match="rotation matri"):
                f(A)
