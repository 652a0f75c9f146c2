"""Chaos maps and batches on a dask.distributed cluster with a *process* worker (``executor=client``): the package
imported by the worker, its kernels compiled there, results equal to the local run to the last bit, progress, and
cancel stopping a chunk that is already running on the worker."""
import time
from concurrent.futures import CancelledError

import numpy as np
import pytest

import pendulum_explorer as pe
from pendulum_explorer import presets
from pendulum_explorer.poincare import PoincareSection
from pendulum_explorer.section import cluster, warm_workers

distributed = pytest.importorskip("distributed")


@pytest.fixture(scope="module")
def client():
    with distributed.LocalCluster(n_workers=1, processes=True, threads_per_worker=1, dashboard_address=None,
                                  silence_logs=40) as cl, distributed.Client(cl) as c:
        yield c


@pytest.fixture(scope="module")
def sec():
    return PoincareSection.from_paper_ic(presets.paper_fig2().pendulum, 0.0)[0]


def _running(client):
    """Tasks executing on the worker (threads, including ones whose future was cancelled)."""
    return sum(client.run(lambda dask_worker: len(dask_worker.active_threads)).values())


def _wait_idle(client, timeout=20.0):
    t0 = time.monotonic()
    while _running(client) and time.monotonic() - t0 < timeout:
        time.sleep(0.1)
    return _running(client)


def test_worker_is_another_process_with_this_package(client):
    import os

    info = warm_workers(client)
    (w,) = info.values()
    assert w["file"] == pe.__file__ and w["version"] == pe.__version__
    assert client.run(os.getpid) != {None: os.getpid()} and os.getpid() not in client.run(os.getpid).values()


def test_chaos_map_on_cluster_equals_local(client, sec):
    ref = sec.chaos_map((8, 6), 20.0)
    seen = []
    got = sec.chaos_map((8, 6), 20.0, executor=client, n_chunks=3, progress=lambda d, m: seen.append((d, m)))
    np.testing.assert_array_equal(got.megno, ref.megno)
    np.testing.assert_array_equal(got.lyapunov, ref.lyapunov)
    np.testing.assert_array_equal(got.values, ref.values)
    m = int(np.isfinite(ref.megno).sum())
    assert 0 < m < 48 and len(seen) >= 1 and seen[-1] == (m, m) and all(b == m for _, b in seen)
    assert [d for d, _ in seen] == sorted(d for d, _ in seen)


def test_batch_on_cluster_equals_local(client, sec):
    seeds = sec.fill_seeds(4)
    ref = sec.batch(seeds, 20)
    got = sec.batch(seeds, 20, executor=client, n_chunks=2)
    np.testing.assert_array_equal(got.Gamma, ref.Gamma)
    np.testing.assert_array_equal(got.t, ref.t)
    np.testing.assert_array_equal(got.n_found, ref.n_found)


def test_cancel_stops_the_chunk_running_on_the_worker(client, sec):
    """One chunk of ~190 cells at T = 1e5 s (minutes of work); cancel once it runs: CancelledError at once, and the
    worker's thread leaves the kernel (between pieces) instead of finishing the chunk."""
    assert _wait_idle(client) == 0

    def started():
        return _running(client) > 0

    with pytest.raises(CancelledError, match="chaos map cancelled after 0 of"):
        sec.chaos_map((16, 12), 1e5, executor=client, n_chunks=1, cancel=started)
    assert _wait_idle(client) == 0
    # the worker is free again for the next map
    np.testing.assert_array_equal(sec.chaos_map((8, 6), 20.0, executor=client).megno, sec.chaos_map((8, 6), 20.0).megno)


def test_task_cancelled_probe_outside_a_task_is_never_set():
    assert cluster.TaskCancelled().is_set() is False
    assert not cluster.is_client(object()) and not cluster.is_client(None)


def test_ensemble_on_cluster_equals_local(client):
    """``pe.ensemble`` with ``executor=client``: the chunks run on the worker process, bit for bit the local run
    (the same kernel, the same chunk boundaries do not matter: each trajectory is computed alone in its lane)."""
    P = presets.paper_fig2().pendulum
    rng = np.random.default_rng(9)
    G = rng.normal(size=(13, 3))
    G /= np.linalg.norm(G, axis=1)[:, None]
    w = rng.normal(size=(13, 3))
    ref = pe.ensemble(P, G, w, 5.0, n_out=3)
    seen = []
    got = pe.ensemble(P, G, w, 5.0, n_out=3, executor=client, n_chunks=3, progress=lambda d, m: seen.append((d, m)))
    np.testing.assert_array_equal(got.Gamma, ref.Gamma)
    np.testing.assert_array_equal(got.omega, ref.omega)
    np.testing.assert_array_equal(got.n_steps, ref.n_steps)
    assert seen[-1] == (13, 13)
