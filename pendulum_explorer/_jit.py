"""The one place where numba is configured.

Every compiled kernel in :mod:`pendulum_explorer._core` is decorated with :func:`njit` from this module.

Environment switches
--------------------
``PENDULUM_EXPLORER_NO_JIT=1``
    Run every kernel as plain Python (for debugging, ``pdb`` and coverage).  The numerics are the same
    code; only the speed differs.
``PENDULUM_EXPLORER_NO_CACHE=1``
    Compile in memory only, without writing numba's on-disk cache (``cache=True`` is the default, so that
    a warmed cache makes import plus first call fast).
"""
from __future__ import annotations

import os

JIT_DISABLED = os.environ.get("PENDULUM_EXPLORER_NO_JIT", "0").lower() in ("1", "true", "yes")
CACHE = os.environ.get("PENDULUM_EXPLORER_NO_CACHE", "0").lower() not in ("1", "true", "yes")

if JIT_DISABLED:
    prange = range

    def njit(*args, **kwargs):
        """Identity decorator used when JIT is disabled."""
        if len(args) == 1 and callable(args[0]) and not kwargs:
            return args[0]
        return lambda f: f

else:
    import numba

    prange = numba.prange

    def njit(*args, **kwargs):
        """``numba.njit`` with the project's defaults (``cache=True``, no fastmath)."""
        kwargs.setdefault("cache", CACHE)
        kwargs.setdefault("fastmath", False)
        kwargs.setdefault("error_model", "numpy")
        if len(args) == 1 and callable(args[0]):
            return numba.njit(**kwargs)(args[0])
        return numba.njit(*args, **kwargs)


__all__ = ["njit", "prange", "JIT_DISABLED", "CACHE"]
