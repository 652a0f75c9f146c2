"""The compile-time budget depends on each kernel being
compiled once.  A second signature (a writable copy of ``p``, an integer constant numba turns into a literal)
recompiles the kernel and everything it calls; this test catches that in a fresh process."""
import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# every process of a warm-up run (the test's and ``run(jobs=2)``'s child) writes, as it exits, each kernel's
# signatures to $PE_SIGNATURES_DIR/<pid>.json (a sitecustomize on the processes' PYTHONPATH: nothing in the package)
SIGNATURES_HOOK = """
import atexit, json, os, sys


def _dump():
    where = os.environ.get("PE_SIGNATURES_DIR")
    if not where or "numba" not in sys.modules:
        return
    from numba.core.registry import CPUDispatcher
    out = {}
    for name, mod in list(sys.modules.items()):
        if name.startswith("pendulum_explorer._core.") and mod is not None:
            for attr, obj in vars(mod).items():
                if isinstance(obj, CPUDispatcher) and obj.__module__ == name:
                    out[name.rsplit(".", 1)[1] + "." + attr] = [str(s) for s in obj.signatures]
    with open(os.path.join(where, f"{os.getpid()}.json"), "w") as f:
        json.dump(out, f)


atexit.register(_dump)

if os.environ.get("PE_SIGNATURES_DIR"):  # the kernels this process compiles (not those it loads from the cache)
    from numba.core import event as _ev

    _compiled = []

    class _Compiled(_ev.Listener):
        def on_start(self, e):
            f = e.data["dispatcher"].py_func
            _compiled.append(f.__module__ + "." + f.__qualname__)

        def on_end(self, e):
            pass

    _ev.register("numba:compile", _Compiled())

    def _dump_compiled():
        with open(os.path.join(os.environ["PE_SIGNATURES_DIR"], f"{os.getpid()}.compiled"), "w") as f:
            json.dump(_compiled, f)

    atexit.register(_dump_compiled)
"""

# scalar helpers called with literal array offsets (p[0:9] is J, p[9:18] its inverse; R at y[0:9] or y[6:15]):
# tiny, and the literal lets LLVM fold the offsets
LITERAL_OFFSET_HELPERS = {"fields._mv": 2, "fields._rot_rate": 2}


def test_prune_stale_caches_keeps_only_the_current_folder(tmp_path):
    from pendulum_explorer import _jit

    for name in ("numba-aaaa", "numba-bbbb", "numba-cccc", "other"):
        (tmp_path / name / "sub").mkdir(parents=True)
        (tmp_path / name / "sub" / "f.nbi").write_bytes(b"x")
    removed = _jit.prune_stale_caches(tmp_path / "numba-bbbb")
    assert sorted(Path(r).name for r in removed) == ["numba-aaaa", "numba-cccc"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["numba-bbbb", "other"]
    assert (tmp_path / "numba-bbbb" / "sub" / "f.nbi").exists()


NO_JIT_PROBE = """
import json, numpy as np
from pendulum_explorer import simulate
from pendulum_explorer.poincare import PoincareSection
from pendulum_explorer.presets import paper_fig2
P = paper_fig2().pendulum
tr = simulate(P, np.eye(3), [1.0, 2.0, 0.5], 1.0, method="dop853", rtol=1e-8, atol=1e-10, n_out=5)
lg = simulate(P, np.eye(3), [1.0, 2.0, 0.5], 0.2, method="lgvi", dt=0.01, n_out=3)
ta = simulate(P, np.eye(3), [1.0, 2.0, 0.5], 0.5, method="taylor", n_out=3)
sec, seed = PoincareSection.from_paper_ic(P, energy=0.0)
cr = sec.crossings(seed, 3)
print(json.dumps({"dop": tr.R[-1].tolist(), "lgvi": lg.R[-1].tolist(), "taylor": ta.R[-1].tolist(),
                  "sec": cr.Gamma.tolist()}))
"""


def test_no_jit_switch_runs_the_same_numerics_as_plain_python():
    """PENDULUM_EXPLORER_NO_JIT=1 (debugging, coverage) runs the kernels as Python: same results."""
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""),
               PENDULUM_EXPLORER_NO_JIT="1")
    res = subprocess.run([sys.executable, "-c", NO_JIT_PROBE], env=env, capture_output=True, text=True,
                         timeout=600, check=True)
    plain = json.loads(res.stdout.strip().splitlines()[-1])
    env.pop("PENDULUM_EXPLORER_NO_JIT")
    res = subprocess.run([sys.executable, "-c", "import numba; " + NO_JIT_PROBE], env=env, capture_output=True,
                         text=True, timeout=600, check=True)
    jit = json.loads(res.stdout.strip().splitlines()[-1])
    import numpy as np

    for key in ("dop", "lgvi", "taylor", "sec"):
        assert np.asarray(plain[key]).shape == np.asarray(jit[key]).shape
        np.testing.assert_allclose(plain[key], jit[key], rtol=0, atol=1e-12, err_msg=key)


@pytest.mark.skipif(os.environ.get("PENDULUM_EXPLORER_NO_JIT") == "1", reason="needs numba")
def test_inner_kernels_refuse_calls_from_python_and_serve_kernels():
    """``njit(inner=True)`` compiles no Python entry point: a call from Python raises (instead of jumping to a
    missing wrapper), while the kernels that call it work."""
    import numpy as np

    from pendulum_explorer._core import fields as F

    p = F.pack_params(np.diag([1.0, 2.0, 3.0]), [0.0, 0.0, 1.0])
    with pytest.raises(TypeError, match="compiled kernels only"):
        F._energy(0.0, 0.0, 1.0, 1.0, 0.0, 0.0, p)
    assert F.energy_lp(np.array([0.0, 0.0, 1.0]), np.array([1.0, 0.0, 0.0]), p) == 0.5 - 1.0


CACHED_PROBE = """
from numba.core import event as ev
compiled = []
class L(ev.Listener):
    def on_start(self, e):
        compiled.append(e.data["dispatcher"].py_func.__module__ + "." + e.data["dispatcher"].py_func.__qualname__)
    def on_end(self, e):
        pass
ev.register("numba:compile", L())
import sys
from pendulum_explorer import _warmup
_warmup.run(jobs=int(sys.argv[1]))
print(sorted(set(c for c in compiled if c.startswith("pendulum_explorer"))))
"""


@pytest.mark.skipif(os.environ.get("PENDULUM_EXPLORER_NO_JIT") == "1", reason="needs numba")
def test_parallel_warmup_leaves_every_kernel_in_the_cache(tmp_path):
    """``run(jobs=2)`` compiles the second part in a child process (this process compiles none of the kernels only
    that part runs, and does not load them either); afterwards a fresh process's warm-up loads every kernel of both
    parts from the cache and compiles none (a cold compile, ~30 s of CPU)."""
    cache, hook, dumps = tmp_path / "cache", tmp_path / "hook", tmp_path / "signatures"
    for d in (cache, hook, dumps):
        d.mkdir()
    (hook / "sitecustomize.py").write_text(SIGNATURES_HOOK)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), str(hook), os.environ.get("PYTHONPATH", "")]),
               PENDULUM_EXPLORER_CACHE_DIR=str(cache))
    env.pop("PENDULUM_EXPLORER_NO_CACHE", None)

    def compiled(jobs, signatures=None):
        run_env = dict(env, PE_SIGNATURES_DIR=str(signatures)) if signatures else env
        res = subprocess.run([sys.executable, "-c", CACHED_PROBE, str(jobs)], env=run_env, capture_output=True,
                             text=True, timeout=900, check=True)
        return ast.literal_eval(res.stdout.strip().splitlines()[-1])

    first = compiled(2, signatures=dumps)
    _assert_each_kernel_compiled_once(sorted(dumps.glob("*.json")))
    # the two processes seldom compile one helper at once (the parts' order: before it, 21-33 kernels, 2.9 s of CPU)
    lists = [set(json.loads(f.read_text())) for f in sorted(dumps.glob("*.compiled"))]
    assert len(lists) == 2 and all(len(x) > 20 for x in lists), [len(x) for x in lists]
    twice = {k for k in lists[0] & lists[1] if k.startswith("pendulum_explorer.")}
    assert len(twice) <= 10, sorted(twice)  # 2 on an idle machine; the load of the other tests shifts the timing
    assert "pendulum_explorer._core.section.crossings_one" in first  # part 0: compiled here
    for only_part_1 in ("lgvi.integrate_lgvi", "chaos.lyapunov_benettin", "chaos.tangent_run"):
        assert "pendulum_explorer._core." + only_part_1 not in first  # the child's
    assert compiled(1) == []
    assert len(list(cache.rglob("*.nbi"))) > 40


def _assert_each_kernel_compiled_once(dumps):
    """Each kernel has one signature after the cold warm-up (a cold compile: a kernel loaded from the cache does
    not list the kernels it calls; so the signatures are those of the process that compiled each kernel, the two
    processes' joined, as one process running both parts would have them)."""
    assert len(dumps) == 2, dumps  # the test's process and the warm-up's child
    sigs: dict[str, set[str]] = {}
    for d in dumps:
        for name, found in json.loads(d.read_text()).items():
            sigs.setdefault(name, set()).update(found)
    assert len(sigs) > 40 and sum(map(len, sigs.values())) > 40  # the warm-up really ran the kernels
    for name in ("dop853.integrate_uniform", "dop853_lp.step_lp", "section.crossings_one",
                 "lgvi.integrate_lgvi", "chaos.lyapunov_benettin",
                 "taylor.integrate_uniform_taylor", "taylor.crossings_one_taylor", "chaos.tangent_run",
                 "linearize.lr_jacobian_batch"):
        assert len(sigs[name]) == 1, name
    extra = {k: sorted(v) for k, v in sigs.items() if len(v) > LITERAL_OFFSET_HELPERS.get(k, 1)}
    assert not extra, f"kernels compiled more than once by the warm-up: {json.dumps(extra, indent=1)}"
