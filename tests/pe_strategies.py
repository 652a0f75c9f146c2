"""Shared hypothesis strategies and helpers for the tests (import as ``from pe_strategies import ...``)."""
import numpy as np
from hypothesis import strategies as st


@st.composite
def valid_bodies(draw):
    """Random physically realizable J (random orientation) and rho."""
    from pendulum_explorer import Pendulum

    j2 = draw(st.floats(0.05, 1.0))
    j3 = draw(st.floats(0.05, 1.0))
    lo, hi = abs(j2 - j3), j2 + j3
    j1 = draw(st.floats(max(lo, 0.02), hi))
    angles = draw(st.tuples(*[st.floats(-np.pi, np.pi)] * 3))
    from scipy.spatial.transform import Rotation

    Q = Rotation.from_euler("xyz", angles).as_matrix()
    J = Q @ np.diag([j1, j2, j3]) @ Q.T
    J = 0.5 * (J + J.T)
    rho = np.array(draw(st.tuples(*[st.floats(-0.6, 0.6)] * 3)))
    if np.linalg.norm(rho) < 0.05:
        rho = rho + np.array([0.0, 0.0, 0.1])
    m = draw(st.floats(0.2, 5.0))
    return Pendulum(J, rho, m=m, g=9.81)


@st.composite
def lp_states(draw):
    v = np.array(draw(st.tuples(*[st.floats(-1, 1)] * 3)))
    if np.linalg.norm(v) < 0.1:
        v = v + np.array([0.3, -0.2, 0.5])
    G = v / np.linalg.norm(v)
    w = np.array(draw(st.tuples(*[st.floats(-4, 4)] * 3)))
    return G, w


def c_for_energy(pendulum, E):
    """c such that R0 = I, omega0 = c[1,1,1] has energy E (Gamma0 = e3)."""
    s = np.ones(3) @ pendulum.J @ np.ones(3)
    return np.sqrt(2.0 * (E + pendulum.m * pendulum.g * pendulum.rho[2]) / s)
