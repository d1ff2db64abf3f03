"""The public entry points of a Monte Carlo run: :func:`replicate` (one parameter setting) and :func:`sweep` (a
parameter grid), with their input checks; both return a :class:`~htdp_verify.montecarlo.MonteCarloResult`.
"""

from __future__ import annotations

import inspect
import itertools
import math
import numbers
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from .._validate import check_int
from .backends import BACKENDS, _execute, _n_workers, _progress_bar
from .results import MonteCarloResult, _jsonable_scalar
from .seeding import _check_seed

__all__ = ["replicate", "sweep"]

_RESERVED = {"rng", "n_reps", "cell", "rep", "seed", "spawn_key"}


# ---------------------------------------------------------------------------------------------------------
# Public entry points
# ---------------------------------------------------------------------------------------------------------
def replicate(
    fn: Callable,
    n_reps: int,
    *,
    seed: int,
    backend: str = "serial",
    n_jobs: int = -1,
    client: Any = None,
    progress: bool = True,
    vectorised: bool = False,
    chunk_size: int | None = None,
) -> MonteCarloResult:
    """Run ``fn(rng=...)`` ``n_reps`` times (or ``fn(n_reps=m, rng=...)`` when ``vectorised``).

    Same as :func:`sweep` with an empty grid.

    Parameters
    ----------
    fn, n_reps, seed, backend, n_jobs, client, progress, vectorised, chunk_size
        As in :func:`sweep`.

    Returns
    -------
    MonteCarloResult
        One row per replication.
    """
    return sweep(
        fn,
        {},
        n_reps,
        seed=seed,
        backend=backend,
        n_jobs=n_jobs,
        client=client,
        progress=progress,
        vectorised=vectorised,
        chunk_size=chunk_size,
    )


def sweep(
    fn: Callable,
    grid: Mapping[str, Sequence],
    n_reps: int,
    *,
    seed: int,
    backend: str = "serial",
    n_jobs: int = -1,
    client: Any = None,
    progress: bool = True,
    vectorised: bool = False,
    chunk_size: int | None = None,
    fixed: Mapping[str, Any] | None = None,
) -> MonteCarloResult:
    """Run ``fn`` on every cell of ``grid`` (Cartesian product, row-major) with ``n_reps`` replications each.

    Parameters
    ----------
    fn
        ``fn(**params, rng=Generator)`` returning a real scalar or a dict of real scalars for one replication;
        with ``vectorised=True``, ``fn(**params, n_reps=m, rng=Generator)`` returning an array of shape ``(m,)``
        (or a dict of such) for ``m`` replications at once.  For the ``"processes"`` and ``"dask"`` backends
        ``fn`` must be picklable (module-level functions always are; cloudpickle handles most closures).
    grid
        ``{name: list of values}``; an empty dict runs one cell.
    n_reps
        replications per cell (≥ 1).
    seed
        non-negative integer; reproduces the whole run on any backend.
    backend
        ``"serial"``, ``"processes"`` (joblib/loky, ``n_jobs`` workers) or ``"dask"`` (``client``: a
        ``dask.distributed.Client``; if ``None`` a ``LocalCluster`` with ``n_jobs`` single-threaded worker
        processes is started for this call and closed afterwards).
    client
        a ``dask.distributed.Client`` for ``backend="dask"`` (optional, see ``backend``).
    n_jobs
        workers for ``"processes"`` (joblib convention: -1 = all cores) and for a self-started Dask cluster.
    progress
        show a ``tqdm`` progress bar (counts replications).
    vectorised
        see ``fn``.
    chunk_size
        vectorised mode: replications per call (default: all ``n_reps`` of a cell in one call); it is
        part of the seeding (results depend on it, never on the backend).  Non-vectorised mode: replications
        per task sent to a worker (a pure scheduling knob; results do not depend on it).
    fixed
        extra keyword arguments passed unchanged to every call (recorded in the result's ``meta``).

    Returns
    -------
    MonteCarloResult
        One row per replication, with the seeds that reproduce it.
    """
    t0 = time.perf_counter()
    if not callable(fn):
        raise ValueError(f"fn must be callable, got {type(fn).__name__}")
    seed = _check_seed(seed)
    n_reps = check_int("n_reps", n_reps, minimum=1)
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {BACKENDS}, got {backend!r}")
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, numbers.Integral) or n_jobs == 0 or n_jobs < -1:
        raise ValueError(f"n_jobs must be a positive integer or -1 (all cores), got {n_jobs!r}")
    if chunk_size is not None:
        chunk_size = check_int("chunk_size", chunk_size, minimum=1)
    grid = _check_grid(grid)
    fixed = dict(fixed or {})
    clash = (set(fixed) & set(grid)) | (set(fixed) & _RESERVED)
    if clash:
        raise ValueError(f"fixed must not repeat grid names or reserved names {sorted(_RESERVED)}; got {sorted(clash)}")
    _check_signature(fn, list(grid) + list(fixed), vectorised)

    names = list(grid)
    cells = [dict(zip(names, combo)) for combo in itertools.product(*grid.values())] if names else [{}]
    workers = _n_workers(n_jobs)
    if vectorised:
        vchunk = chunk_size or n_reps
        per_task = vchunk  # one vectorised chunk per task: choose chunk_size to split big cells across workers
    else:
        vchunk = 1
        per_task = n_reps if backend == "serial" else (chunk_size or math.ceil(len(cells) * n_reps / (16 * workers)))
        per_task = max(1, min(per_task, n_reps))
    tasks = [
        ({**cells[c], **fixed}, c, s, min(s + per_task, n_reps))
        for c in range(len(cells))
        for s in range(0, n_reps, per_task)
    ]

    outputs: dict[int, dict] = {}
    bar = _progress_bar(progress, len(cells) * n_reps, getattr(fn, "__name__", "fn"))
    try:
        for cell, start, out in _execute(backend, fn, tasks, seed, vectorised, vchunk, n_jobs, client):
            outputs.setdefault(cell, {})[start] = out
            if bar is not None:
                bar.update(len(next(iter(out.values()))))
    finally:
        if bar is not None:
            bar.close()

    # assemble in (cell, rep) order: independent of completion order
    keys = None
    cols: dict[str, list] = {}
    for c in range(len(cells)):
        for start in sorted(outputs[c]):
            out = outputs[c][start]
            if keys is None:
                keys = list(out)
            elif set(out) != set(keys):
                raise ValueError(f"fn returned outputs {sorted(out)} in cell {c}; expected {sorted(keys)}")
            for k in keys:
                cols.setdefault(k, []).append(out[k])
    clash = set(keys) & (set(names) | _RESERVED)
    if clash:
        raise ValueError(f"fn's outputs must not reuse grid or reserved column names; got {sorted(clash)}")
    n_cells = len(cells)
    cell_idx = np.repeat(np.arange(n_cells), n_reps)
    rep_idx = np.tile(np.arange(n_reps), n_cells)
    data: dict[str, Any] = {}
    for name in names:
        data[name] = [cells[c][name] for c in cell_idx]
    data["cell"] = cell_idx
    data["rep"] = rep_idx
    data["seed"] = np.full(n_cells * n_reps, seed, dtype=np.int64)
    skey_rep = rep_idx // vchunk if vectorised else rep_idx
    data["spawn_key"] = [f"{c}/{r}" for c, r in zip(cell_idx, skey_rep)]
    for k in keys:
        data[k] = np.concatenate(cols[k])
    table = pd.DataFrame(data)
    return MonteCarloResult(
        table=table,
        seed=seed,
        grid={k: list(v) for k, v in grid.items()},
        n_reps=n_reps,
        outputs=list(keys),
        vectorised=vectorised,
        chunk_size=vchunk if vectorised else None,
        backend=backend,
        seconds=time.perf_counter() - t0,
        fn_name=getattr(fn, "__qualname__", getattr(fn, "__name__", "")),
        meta={
            "fixed": {
                k: _jsonable_scalar(v) if isinstance(v, (numbers.Number, str, np.generic)) else repr(v)
                for k, v in fixed.items()
            }
        },
    )


# ---------------------------------------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------------------------------------
def _check_grid(grid) -> dict:
    if not isinstance(grid, Mapping):
        raise ValueError(f"grid must be a dict {{name: list of values}}, got {type(grid).__name__}")
    out = {}
    for k, v in grid.items():
        if not isinstance(k, str) or not k.isidentifier():
            raise ValueError(f"grid keys must be parameter names (identifiers), got {k!r}")
        if k in _RESERVED:
            raise ValueError(f"grid key {k!r} is reserved (reserved names: {sorted(_RESERVED)})")
        if isinstance(v, (str, bytes)) or not hasattr(v, "__len__") or len(v) == 0:
            raise ValueError(f"grid[{k!r}] must be a non-empty list of values, got {v!r}")
        out[k] = list(v.tolist() if isinstance(v, np.ndarray) else v)
    return out


def _check_signature(fn, names, vectorised):
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):  # builtins / C functions: cannot check
        return
    params = sig.parameters
    if any(p.kind == p.VAR_KEYWORD for p in params.values()):
        return
    need = list(names) + ["rng"] + (["n_reps"] if vectorised else [])
    missing = [n for n in need if n not in params]
    if missing:
        what = "fn(**params, n_reps=..., rng=...)" if vectorised else "fn(**params, rng=...)"
        raise ValueError(f"fn must accept the keyword arguments {missing} (it is called as {what})")
