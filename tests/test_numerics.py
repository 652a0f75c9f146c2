"""The small scalar solvers of pendulum_explorer._numerics, against scipy."""
import math

import numpy as np
import pytest
from scipy.optimize import brentq

from pendulum_explorer._numerics import find_root, minimize_compass


@pytest.mark.parametrize("f,a,b,root", [(lambda x: x ** 3 - 2 * x - 5, 2.0, 3.0, None), (math.cos, 0.0, 3.0, math.pi / 2),
                                        (lambda x: math.exp(x) - 1e-8, -30.0, 1.0, math.log(1e-8)),
                                        (lambda x: (x - 0.3) ** 5, 0.0, 1.0, 0.3)])
def test_find_root(f, a, b, root):
    if root is None:
        root = brentq(f, a, b, xtol=1e-300, rtol=1e-15)
    assert find_root(f, a, b, rtol=1e-15) == pytest.approx(root, rel=1e-14)


def test_find_root_bad_bracket():
    with pytest.raises(ValueError, match="same sign"):
        find_root(lambda x: x * x + 1, -1.0, 1.0)


def test_compass_minimum_of_a_quadratic_bowl():
    x, fx = minimize_compass(lambda v: (v[0] - 0.4) ** 2 + 3 * (v[1] + 0.2) ** 2 + 1.0, [0.0, 0.0], step=0.1)
    np.testing.assert_allclose(x, [0.4, -0.2], atol=1e-10)
    assert fx == pytest.approx(1.0, abs=1e-18)
