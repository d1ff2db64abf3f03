"""Execution back ends of a Monte Carlo run: ``BACKENDS`` (``"serial"``, ``"processes"`` via joblib, ``"dask"``),
the worker count, the optional progress bar and ``_execute``, which runs the tasks on the chosen back end.
"""

from __future__ import annotations

from .seeding import _run_task

__all__ = ["BACKENDS"]

BACKENDS = ("serial", "processes", "dask")


def _n_workers(n_jobs: int) -> int:
    if n_jobs == -1:
        import os

        return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1))
    return n_jobs


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
        from distributed import LocalCluster, as_completed
    except ImportError as exc:  # pragma: no cover - optional dependency
        raise ValueError('backend="dask" needs dask.distributed: pip install "htdp-verify[dask]"') from exc
    own = None
    if client is None:
        cluster = LocalCluster(
            n_workers=_n_workers(n_jobs), threads_per_worker=1, processes=True, dashboard_address=None
        )
        own = (_Client(cluster), cluster)
        client = own[0]
    try:
        futures = [
            client.submit(_run_task, fn, p, seed, c, s, e, vectorised, vchunk, pure=False) for p, c, s, e in tasks
        ]
        for fut in as_completed(futures):
            yield fut.result()
    finally:
        if own is not None:
            own[0].close()
            own[1].close()
