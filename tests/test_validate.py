"""The one validation path (pendulum_explorer._validate), the status vocabulary, and the single sources of truth
that issue 9 asked for (m g |rho|, the rotation about an axis, the parameter offsets, the amended potential)."""
import numpy as np
import pytest

import pendulum_explorer as pe
from pendulum_explorer import _validate as v
from pendulum_explorer._core import fields as F
from pendulum_explorer.errors import (IntegrationFailedError, InvalidIntegrationError, InvalidStateError,
                                      ShapeError)


def test_checkers_name_the_argument_and_range():
    assert v.real("E", np.float32(1.5)) == 1.5
    for bad in (np.nan, np.inf, True, "1", 1j, None, [1.0]):
        with pytest.raises(InvalidStateError, match="E must be"):
            v.real("E", bad)
    with pytest.raises(InvalidIntegrationError, match=r"n_out must be an integer in \[2, 10\]; got 11"):
        v.integer("n_out", 11, low=2, high=10)
    assert v.integer("n", 3.0) == 3
    for bad in (np.nan, 2.5, True, "3", -1, 10 ** 30):
        with pytest.raises(InvalidIntegrationError, match="n must be an integer"):
            v.integer("n", bad, high=10 ** 6)
    with pytest.raises(InvalidIntegrationError, match=r"rtol must be finite and in \[1e-15, 0.001\]"):
        v.tolerances(-1, 1e-12)
    with pytest.raises(InvalidIntegrationError, match="atol"):
        v.tolerances(1e-10, 1.0)
    with pytest.raises(ShapeError, match="complex"):
        v.array("J", np.eye(3) * (1 + 1j), (3, 3))
    with pytest.raises(ShapeError, match=r"omega must have shape \(3,\)"):
        v.array("omega", [1.0, 2.0], (3,))


def test_one_unit_tolerance_then_exact():
    G = v.unit_vector("Gamma", [0.0, 0.6, 0.8 * (1 + 5e-7)])
    assert np.linalg.norm(G) == pytest.approx(1.0, abs=1e-15)
    with pytest.raises(InvalidStateError, match="unit vector"):
        v.unit_vector("Gamma", [0.0, 0.6, 0.8 * (1 + 5e-6)])
    R = pe.geometry.rotation_about([0, 0, 1.0], 0.3) * (1 + 1e-8)
    Rn = v.rotation("R0", R)
    assert np.abs(Rn.T @ Rn - np.eye(3)).max() < 1e-15
    d = v.tangent_vector("Gammadot", [1.0, 0.0, 1e-8], np.array([0.0, 0.0, 1.0]), "Gamma")
    assert d[2] == 0.0


def test_status_enum_matches_kernels_and_messages_say_what_to_change():
    from pendulum_explorer._core import dop853, section
    assert [s.label for s in v.Status] == ["ok", "max_steps", "step_too_small", "non_finite", "max_time",
                                           "no_crossing"]
    assert v.Status.MAX_STEPS == dop853.MAX_STEPS and v.Status.NO_CROSSING == section.NO_CROSSING
    v.raise_for_status(0, "x")
    with pytest.raises(IntegrationFailedError, match="raise max_steps"):
        v.raise_for_status(dop853.MAX_STEPS, "DOP853", budget=10)
    with pytest.raises(IntegrationFailedError, match="loosen rtol/atol"):
        v.raise_for_status(dop853.STEP_TOO_SMALL, "DOP853")
    with pytest.raises(IntegrationFailedError, match="smaller initial angular velocity"):
        v.raise_for_status(dop853.NON_FINITE, "DOP853")


def test_check_pendulum_hints_at_body(fig2):
    assert v.check_pendulum(fig2.pendulum) is fig2.pendulum
    with pytest.raises(TypeError, match=r"pass pendulum.pendulum for a Body"):
        v.check_pendulum(fig2)


def test_single_sources(fig2):
    P = fig2.pendulum
    assert P.mgrho_norm == pytest.approx(P.m * P.g * np.linalg.norm(P.rho), rel=1e-15)
    assert P.params(0.7)[F.P_MU] == 0.7 and P.params()[F.P_TRJ] == pytest.approx(np.trace(P.J))
    np.testing.assert_array_equal(P.params()[F.P_MGRHO:F.P_MGRHO + 3], P.mgrho)
    # the rotation about an axis: against the matrix exponential, vectorised over angles
    from scipy.linalg import expm
    ax = np.array([0.3, -0.5, 0.81]) / np.linalg.norm([0.3, -0.5, 0.81])
    th = np.array([0.0, 1e-9, 0.4, 3.0])
    Rs = pe.geometry.rotation_about(ax, th)
    for k, t in enumerate(th):
        np.testing.assert_allclose(Rs[k], expm(t * pe.geometry.hat(ax)), atol=1e-15)
    # V_mu: one implementation, the same object in equilibria, poincare and the package
    from pendulum_explorer import amended, equilibria, poincare
    assert equilibria.amended_potential is amended.amended_potential is poincare.amended_potential
    G = np.array([0.6, 0.0, 0.8])
    assert pe.amended_potential(P, 0.5, G) == pytest.approx(0.25 / (2 * G @ P.J @ G) - P.mgrho @ G, rel=1e-14)


def test_module_not_shadowed_and_no_import_circle():
    import importlib
    import pendulum_explorer.equilibria as m
    assert m.__name__ == "pendulum_explorer.equilibria" and pe.find_equilibria is m.equilibria
    from pathlib import Path
    src = Path(importlib.util.find_spec("pendulum_explorer.equilibria").origin)
    assert src.name == "__init__.py"  # a package: every module of it is checked
    for f in src.parent.glob("*.py"):
        text = f.read_text()
        assert "poincare import" not in text and "except Exception" not in text, f.name


def test_pendulum_and_trajectory_immutable(fig2):
    P = fig2.pendulum
    for a in (P.J, P.rho, P.params()):
        with pytest.raises(ValueError):
            a.setflags(write=True)
    with pytest.raises(AttributeError, match="immutable"):
        P._m = 2.0
    tr = pe.simulate(P, np.eye(3), [0.1, 0.2, 0.3], 0.1, n_out=3)
    with pytest.raises(ValueError):
        tr.energy[1] = 0.0
    with pytest.raises(ShapeError, match="complex"):
        pe.Pendulum(np.diag([1, 1, 1.5]) + 0j, [0, 0, 0.1])


def test_cache_on_the_pendulum(fig2):
    P = fig2.pendulum
    calls = []
    assert P.cached("k", lambda p: calls.append(1) or 42) == 42 == P.cached("k", lambda p: 0)
    assert calls == [1]
