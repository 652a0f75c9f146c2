import numpy as np
import pytest
from hypothesis import HealthCheck, settings

settings.register_profile("project", deadline=None, max_examples=25,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("project")


@pytest.fixture(scope="session")
def fig1():
    from pendulum_explorer import presets

    return presets.paper_fig1()


@pytest.fixture(scope="session")
def fig2():
    from pendulum_explorer import presets

    return presets.paper_fig2()



from pe_strategies import c_for_energy, lp_states, valid_bodies  # noqa: E402,F401  (re-export)
