"""Exceptions raised by the model/analysis layer.  Every message names the violated condition, the
offending numbers and the valid range."""


class PendulumError(ValueError):
    """Base class of every input error raised by pendulum_explorer."""


class InvalidPendulumError(PendulumError):
    """A parameter of :class:`~pendulum_explorer.Pendulum` is invalid."""


class NonFiniteError(InvalidPendulumError):
    """A value is NaN or infinite."""


class NotSymmetricError(InvalidPendulumError):
    """The inertia matrix J is not symmetric."""


class NotPositiveDefiniteError(InvalidPendulumError):
    """The inertia matrix J is not positive definite."""


class NotRealizableError(InvalidPendulumError):
    """The principal moments violate the triangle inequality J_i <= J_j + J_k."""


class NonPositiveError(InvalidPendulumError):
    """A parameter that must be positive (m, g, a length) is not."""


class ShapeError(PendulumError):
    """An array has the wrong shape."""


class BalancedPendulumError(PendulumError):
    """The analysis needs rho != 0 (the balanced case rho = 0 has no hanging/inverted structure)."""


class InvalidStateError(PendulumError):
    """An initial state is invalid (R0 not a rotation, Gamma not a unit vector, ...)."""


class InvalidIntegrationError(PendulumError):
    """Integration settings are invalid (t_final <= 0, bad tolerances, too many steps, ...)."""


class IntegrationFailedError(PendulumError):
    """The integrator stopped before t_final (step size underflow, non-finite state, step limit)."""


class InaccessibleError(PendulumError):
    """A point of the Poincaré section is not accessible at the requested (E, mu)."""


class PeriodicOrbitNotFoundError(PendulumError):
    """Newton's method found no fixed point of the k-th return map from the seed; ``residual`` is the last chart
    distance between the point and its k-th return."""

    def __init__(self, message: str, residual: float) -> None:
        super().__init__(message)
        self.residual = residual


class InvariantDriftWarning(UserWarning):
    """A returned motion's invariants (|Gamma| = 1, R in SO(3), Gamma = R^T e3, the energy, mu) drifted further
    than the tolerance asked implies; the drift figures are in the result (``Trajectory.stats["drift"]``)."""
