"""Execution back ends of a Monte Carlo run: ``BACKENDS`` (``"serial"``, ``"processes"`` via joblib, ``"dask"``),
the worker count, the optional progress bar and ``_execute``, which runs the tasks on the chosen back end; and
:func:`local_cluster`, a Dask ``LocalCluster`` set up for CPU-bound batches (the one ``_execute`` starts when it is
given no client, and the one to pass to ``audit(..., backend="dask")`` on one machine).
"""

from __future__ import annotations

import numbers

from .seeding import _run_task

__all__ = ["BACKENDS", "QUIET_WORKER_CONFIG", "local_cluster"]

BACKENDS = ("serial", "processes", "dask")

#: Dask settings of :func:`local_cluster`: the workers' statistical profiler (a thread that samples the running
#: task's stack every 10 ms) off, and the event loops' 20 ms responsiveness tick and 0.5 s system monitor slowed;
#: they feed the dashboard only.  Counting numpy-bound releases on two workers (the ``median_of_100`` mechanism of
#: ``benchmarks/bench_dask_release.py``, measured at load 9), the default workers used 18-23 % CPU on top of
#: their tasks' own and these 4-6 %, and the scheduler's process about half as much CPU: on two cores that CPU is
#: taken from the releases.  The memory monitor (which pauses and restarts workers near their memory limit) keeps
#: its default.  BLAS pools are single-threaded already: a nanny starts every worker with ``OMP_NUM_THREADS=1``
#: (``distributed.nanny.pre-spawn-environ``).
QUIET_WORKER_CONFIG = {
    "distributed.worker.profile.enabled": False,
    "distributed.admin.tick.interval": "200ms",
    "distributed.admin.system-monitor.interval": "2s",
}


def _n_workers(n_jobs: int) -> int:
    if n_jobs == -1:
        import os

        return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1))
    return n_jobs


def local_cluster(n_workers: int = -1, **kwargs):
    """A ``distributed.LocalCluster`` of ``n_workers`` single-threaded worker processes with the monitoring of
    :data:`QUIET_WORKER_CONFIG` (no dashboard).

    The settings are read when the scheduler and the workers start, so they hold for this cluster only.  Results
    do not depend on the cluster: a seed gives the same numbers on any back end and worker count.

    Parameters
    ----------
    n_workers : int, default -1
        Worker processes (-1: one per CPU this process may use).
    **kwargs
        Passed on to ``LocalCluster`` (e.g. ``memory_limit``).

    Returns
    -------
    distributed.LocalCluster
        The running cluster (close it, or use it as a context manager).
    """
    if isinstance(n_workers, bool) or not isinstance(n_workers, numbers.Integral) or n_workers == 0 or n_workers < -1:
        raise ValueError(f"n_workers must be a positive integer or -1 (all CPUs), got {n_workers!r}")
    try:
        import dask
        from distributed import LocalCluster
    except ImportError as exc:  # pragma: no cover - optional dependency
        raise ValueError('a Dask cluster needs dask.distributed: pip install "htdp-verify[dask]"') from exc
    opts = {"threads_per_worker": 1, "processes": True, "dashboard_address": None, **kwargs}
    with dask.config.set(QUIET_WORKER_CONFIG):
        return LocalCluster(n_workers=_n_workers(int(n_workers)), **opts)


def _progress_bar(progress, total, name):
    if not progress:
        return None
    from tqdm.auto import tqdm

    return tqdm(total=total, desc=name, unit="rep", leave=False)


def _execute(backend, fn, tasks, seed, vectorised, vchunk, n_jobs, client):
    """Yield ``(cell, start, outputs)`` for every task (in any order)."""
    if backend == "serial":
        for params, c, s, e in tasks:
            yield _run_task(fn, params, seed, c, s, e, vectorised, vchunk)
        return
    if backend == "processes":
        from joblib import Parallel, delayed

        try:
            par = Parallel(n_jobs=n_jobs, backend="loky", return_as="generator_unordered")
        except ValueError:  # joblib < 1.4
            par = Parallel(n_jobs=n_jobs, backend="loky", return_as="generator")
        yield from par(delayed(_run_task)(fn, p, seed, c, s, e, vectorised, vchunk) for p, c, s, e in tasks)
        return
    # dask
    try:
        from distributed import Client as _Client
        from distributed import as_completed
    except ImportError as exc:  # pragma: no cover - optional dependency
        raise ValueError('backend="dask" needs dask.distributed: pip install "htdp-verify[dask]"') from exc
    own = None
    if client is None:
        cluster = local_cluster(n_jobs)
        own = (_Client(cluster), cluster)
        client = own[0]
    try:
        shipped = client.scatter(_Shipped(fn), hash=False, broadcast=True)  # once, not with every task
        futures = [
            client.submit(_run_shipped, shipped, p, seed, c, s, e, vectorised, vchunk, pure=False)
            for p, c, s, e in tasks
        ]
        for fut in as_completed(futures):
            yield fut.result()
    finally:
        if own is not None:
            own[0].close()
            own[1].close()


class _Shipped:
    """A callable wrapped so that ``client.scatter`` ships it as data (once per run)."""

    def __init__(self, fn):
        self.fn = fn


def _run_shipped(shipped: _Shipped, *args):
    return _run_task(shipped.fn, *args)
