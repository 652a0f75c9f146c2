"""Poincaré sections (paper Sec. 5.6, Fig. 2): the names of :mod:`pendulum_explorer.section` under the module
path earlier versions used (``from pendulum_explorer.poincare import PoincareSection`` keeps working)."""
from __future__ import annotations

from ._core import section as _sec  # noqa: F401  (the kernels, for callers that instrument them)
from ._core import taylor as _taylor  # noqa: F401
from .amended import amended_potential
from .section import *  # noqa: F401,F403
from .section import __all__ as _section_all
from .section.parallel import N_THREADS as _N_THREADS  # noqa: F401
from .section.parallel import thread_pool as _thread_pool  # noqa: F401

__all__ = [*_section_all, "amended_potential"]
