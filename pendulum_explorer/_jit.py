"""The one place where numba is configured.

Every compiled kernel in :mod:`pendulum_explorer._core` is decorated with :func:`njit` from this module
(``@njit(inner=True)`` for the helpers only other kernels call: no Python entry point is compiled for them).

Environment switches
--------------------
``PENDULUM_EXPLORER_NO_JIT=1``
    Run every kernel as plain Python (for debugging, ``pdb`` and coverage).  The numerics are the same
    code; only the speed differs.
``PENDULUM_EXPLORER_CACHE_DIR=path``
    Root of the on-disk cache (default: ``pendulum_explorer/__pycache__``, or ``~/.cache/pendulum_explorer``
    when the package folder is read-only); the cache lives in a sub-folder named after a hash of the kernel
    sources, so editing any file in ``_core/`` can never load a stale compiled kernel.
``PENDULUM_EXPLORER_NO_CACHE=1``
    Compile in memory only, without writing numba's on-disk cache (``cache=True`` is the default, so that
    a warmed cache makes import plus first call fast).
"""
from __future__ import annotations

import os
from typing import Any

JIT_DISABLED = os.environ.get("PENDULUM_EXPLORER_NO_JIT", "0").lower() in ("1", "true", "yes")
CACHE = os.environ.get("PENDULUM_EXPLORER_NO_CACHE", "0").lower() not in ("1", "true", "yes")

def _source_hash() -> str:
    """Hash of every kernel source file: numba's cache does not notice when a *called* kernel changes."""
    import hashlib
    from pathlib import Path

    here = Path(__file__).resolve().parent
    h = hashlib.sha256()
    for f in sorted([here / "_jit.py", *(here / "_core").glob("*.py")]):
        h.update(f.name.encode())
        h.update(f.read_bytes())
    return h.hexdigest()[:16]


def cache_dir() -> str:
    """numba's cache folder, keyed by the kernel sources (``PENDULUM_EXPLORER_CACHE_DIR`` overrides the root).

    A new folder is used whenever any file in ``_core/`` changes, so a stale compiled kernel is never loaded.
    """
    from pathlib import Path

    root = os.environ.get("PENDULUM_EXPLORER_CACHE_DIR")
    if root:
        base = Path(root)
    else:
        base = Path(__file__).resolve().parent / "__pycache__"
        if not os.access(base.parent, os.W_OK):
            base = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "pendulum_explorer"
    return str(base / f"numba-{_source_hash()}")


def prune_stale_caches(current: str | None = None) -> list[str]:
    """Delete the sibling ``numba-<hash>`` folders of the current cache folder (compiled from older kernel
    sources; they are never loaded again).  Returns the removed paths.  Called by ``pendulum-explorer warmup``.
    """
    import shutil
    from pathlib import Path

    cur = Path(current or cache_dir())
    removed: list[str] = []
    if not cur.parent.is_dir():
        return removed
    for d in cur.parent.glob("numba-*"):
        if d.is_dir() and d.name != cur.name:
            shutil.rmtree(d, ignore_errors=True)
            removed.append(str(d))
    return removed


if JIT_DISABLED:
    def njit(*args: Any, inner: bool = False, **kwargs: Any) -> Any:
        """Identity decorator used when JIT is disabled."""
        if len(args) == 1 and callable(args[0]) and not kwargs:
            return args[0]
        return lambda f: f

else:
    import numba

    if CACHE:
        numba.config.CACHE_DIR = cache_dir()

    from numba.core.registry import CPUDispatcher

    class InnerDispatcher(CPUDispatcher):
        """A kernel for calls from other kernels only: compiled without the CPython and C entry points."""

        def __call__(self, *args: Any, **kwargs: Any) -> Any:
            raise TypeError(f"{self.py_func.__qualname__} is compiled for calls from compiled kernels only")

    def njit(*args: Any, inner: bool = False, **kwargs: Any) -> Any:
        """``numba.njit`` with the project's defaults (``cache=True``, no fastmath, no C-callable wrapper).

        ``inner=True``: a kernel called only by other kernels, compiled without numba's CPython entry point
        either (numba builds and compiles one for every kernel; for the ~50 helpers that only compiled code calls
        that was ~1-3 s of the cold start).  Calling it from Python raises ``TypeError``.
        """
        cache = kwargs.pop("cache", CACHE)
        kwargs.setdefault("fastmath", False)
        kwargs.setdefault("error_model", "numpy")
        # no C-callable entry point (for first-class function use, which no kernel makes): numba otherwise
        # builds and compiles one for every kernel, ~1.5 s of the cold start
        kwargs.setdefault("no_cfunc_wrapper", True)
        if inner:
            def deco(f: Any) -> Any:
                d = InnerDispatcher(py_func=f, locals={},
                                    targetoptions=dict(nopython=True, no_cpython_wrapper=True, **kwargs))
                if cache:
                    d.enable_caching()
                return d
        else:
            deco = numba.njit(cache=cache, **kwargs)
        if len(args) == 1 and callable(args[0]):
            return deco(args[0])
        return deco


__all__ = ["njit", "JIT_DISABLED", "CACHE"]
