"""Replications and parameter sweeps with reproducible seeding.

One integer ``seed`` determines a whole run.  Every (grid cell, replication) draws from its own
``numpy.random.Generator`` built from ``SeedSequence(seed, spawn_key=(cell, rep))`` – the same child that
``SeedSequence(seed).spawn(n_cells)[cell].spawn(n_reps)[rep]`` would give – so the numbers do not depend on
the backend (serial, local processes, a Dask cluster), on the number of workers, or on how replications are
chunked.  Any single replication can be re-run alone with :meth:`MonteCarloResult.rng_for`.

Vectorised estimators (``vectorised=True``) are called once per chunk of replications as
``fn(**params, n_reps=m, rng=...)`` and return all ``m`` replications at once; chunk ``j`` of cell ``c`` uses
``SeedSequence(seed, spawn_key=(c, j))``.  Their numbers depend on ``chunk_size`` (fixed by the caller; by
default the whole cell is one chunk) but never on the backend.

Results come back as a tidy ``pandas.DataFrame`` (one row per replication: the grid parameters, ``cell``,
``rep``, ``seed``, ``spawn_key`` and the outputs), wrapped in :class:`MonteCarloResult`, which saves to and
loads from CSV (+ a JSON sidecar with the run's metadata) or a single JSON file.
"""

from __future__ import annotations

import inspect
import itertools
import json
import math
import numbers
import os
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ._validate import check_int

__all__ = ["BACKENDS", "MonteCarloResult", "replicate", "sweep", "load_results", "child_seed_sequence"]

BACKENDS = ("serial", "processes", "dask")
_RESERVED = {"rng", "n_reps", "cell", "rep", "seed", "spawn_key"}


# ---------------------------------------------------------------------------------------------------------
# Seeding
# ---------------------------------------------------------------------------------------------------------
def _check_seed(seed) -> int:
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or int(seed) < 0:
        raise ValueError(f"seed must be a non-negative integer (one integer reproduces the whole run), got {seed!r}")
    return int(seed)


def child_seed_sequence(seed: int, cell: int, index: int | None = None) -> np.random.SeedSequence:
    """The ``SeedSequence`` of replication (or vectorised chunk) ``index`` of grid cell ``cell``.

    Equal to ``SeedSequence(seed).spawn(cell + 1)[cell].spawn(index + 1)[index]``.

    Parameters
    ----------
    seed : int
        The run seed.
    cell : int
        Row-major index of the grid cell.
    index : int, optional
        Replication or chunk (``None``: the cell's own sequence).

    Returns
    -------
    numpy.random.SeedSequence
        The sequence.
    """
    key = (int(cell),) if index is None else (int(cell), int(index))
    return np.random.SeedSequence(_check_seed(seed), spawn_key=key)


# ---------------------------------------------------------------------------------------------------------
# Workers (module level so that joblib / dask can pickle them by reference)
# ---------------------------------------------------------------------------------------------------------
def _as_scalar(v, where: str):
    if isinstance(v, np.ndarray) and v.ndim == 0:
        v = v.item()
    if isinstance(v, np.generic):
        v = v.item()
    if isinstance(v, (bool, numbers.Real)):
        return v
    raise ValueError(
        f"fn must return a real scalar or a dict of real scalars per replication; got {type(v).__name__} {where}"
    )


def _normalise_single(out, where: str) -> dict:
    if isinstance(out, Mapping):
        return {str(k): _as_scalar(v, f"for output {k!r} {where}") for k, v in out.items()}
    return {"value": _as_scalar(out, where)}


def _normalise_vector(out, m: int, where: str) -> dict:
    def col(v, name):
        a = np.asarray(v)
        if a.shape != (m,) or a.dtype.kind not in "biuf":
            raise ValueError(
                f"a vectorised fn must return an array of shape (n_reps,)=({m},) of reals (or a dict of such) "
                f"for output {name!r} {where}; got shape {a.shape} dtype {a.dtype}"
            )
        return a

    if isinstance(out, Mapping):
        return {str(k): col(v, k) for k, v in out.items()}
    return {"value": col(out, "value")}


def _run_task(fn, params: dict, seed: int, cell: int, start: int, stop: int, vectorised: bool, chunk_size: int):
    """Run replications ``start..stop-1`` of one cell; returns ``(cell, start, {output: ndarray})``."""
    if vectorised:
        cols: dict[str, list] = {}
        for j in range(start // chunk_size, math.ceil(stop / chunk_size)):
            lo, hi = j * chunk_size, min((j + 1) * chunk_size, stop)
            rng = np.random.default_rng(child_seed_sequence(seed, cell, j))
            out = _normalise_vector(fn(**params, n_reps=hi - lo, rng=rng), hi - lo, f"(cell {cell}, chunk {j})")
            if cols and set(out) != set(cols):
                raise ValueError(
                    f"fn returned outputs {sorted(out)} in cell {cell}, chunk {j}; expected {sorted(cols)}"
                )
            for k, v in out.items():
                cols.setdefault(k, []).append(v)
        return cell, start, {k: np.concatenate(v) for k, v in cols.items()}
    rows = []
    for r in range(start, stop):
        rng = np.random.default_rng(child_seed_sequence(seed, cell, r))
        rows.append(_normalise_single(fn(**params, rng=rng), f"(cell {cell}, rep {r})"))
    keys = list(rows[0])
    for r, row in zip(range(start, stop), rows):
        if list(row) != keys:
            raise ValueError(f"fn returned outputs {list(row)} in cell {cell}, rep {r}; expected {keys}")
    return cell, start, {k: np.asarray([row[k] for row in rows]) for k in keys}


# ---------------------------------------------------------------------------------------------------------
# Result
# ---------------------------------------------------------------------------------------------------------
@dataclass
class MonteCarloResult:
    """A tidy table of replications plus what is needed to reproduce it.

    Parameters
    ----------
    table : pandas.DataFrame
        One row per replication with columns: the grid parameters, ``cell`` (row-major index into the grid),
        ``rep``, ``seed`` (the run's integer seed), ``spawn_key`` (``"cell/rep"`` – or ``"cell/chunk"`` in
        vectorised mode – the child ``SeedSequence`` key; together with ``seed`` it reproduces the row), and one
        column per output of ``fn`` (``"value"`` when ``fn`` returns a scalar).
    seed : int
        The run's seed.
    grid : dict
        The swept values, ``{name: list of values}``.
    n_reps : int
        Replications per cell.
    outputs : list
        Names of the output columns.
    vectorised : bool, default False
        Whether ``fn`` drew all replications of a call at once.
    chunk_size : int, optional
        Replications per call in vectorised mode (part of the seeding).
    backend : str, default "serial"
        The backend the run used.
    seconds : float, default 0.0
        Wall-clock time of the run.
    fn_name : str, default ""
        Name of the replicated function.
    meta : dict, optional
        Anything else (fixed arguments, versions).
    """

    table: pd.DataFrame
    seed: int
    grid: dict
    n_reps: int
    outputs: list
    vectorised: bool = False
    chunk_size: int | None = None
    backend: str = "serial"
    seconds: float = 0.0
    fn_name: str = ""
    meta: dict = field(default_factory=dict)

    # -- access -------------------------------------------------------------------------------------------
    @property
    def n_cells(self) -> int:
        return int(np.prod([len(v) for v in self.grid.values()])) if self.grid else 1

    def cells(self) -> pd.DataFrame:
        """One row per grid cell: its parameters and the seed of the cell (``seed``, ``spawn_key="c"``).

        Returns
        -------
        pandas.DataFrame
            The cells.
        """
        cols = list(self.grid) + ["cell", "seed"]
        out = self.table.drop_duplicates("cell")[cols].reset_index(drop=True)
        out["spawn_key"] = out["cell"].astype(str)
        return out

    def values(self, output: str | None = None) -> np.ndarray:
        """Array of shape ``(n_cells, n_reps)`` of one output (default: the only one).

        Parameters
        ----------
        output : str, optional
            The output column.

        Returns
        -------
        numpy.ndarray
            The values.
        """
        output = self._output(output)
        t = self.table.sort_values(["cell", "rep"], kind="stable")
        return t[output].to_numpy().reshape(self.n_cells, self.n_reps)

    def summary(self, output: str | None = None, stat: str = "median") -> pd.DataFrame:
        """Per-cell summary of one output.

        Parameters
        ----------
        output : str, optional
            The output column (default: the only one).
        stat : str, default "median"
            Any pandas aggregation name: median, mean, std, ...

        Returns
        -------
        pandas.DataFrame
            One row per cell.
        """
        output = self._output(output)
        agg = self.table.groupby("cell", sort=True)[output].agg(stat)
        out = self.cells()
        out[f"{output}_{stat}"] = agg.to_numpy()
        return out

    def rng_for(self, cell: int, rep: int) -> np.random.Generator:
        """The generator replication ``rep`` (or, vectorised, chunk ``rep``) of ``cell`` was run with.

        Parameters
        ----------
        cell : int
            The grid cell.
        rep : int
            The replication or chunk.

        Returns
        -------
        numpy.random.Generator
            A fresh generator in that state.
        """
        return np.random.default_rng(child_seed_sequence(self.seed, cell, rep))

    def _output(self, output):
        if output is None:
            if len(self.outputs) != 1:
                raise ValueError(f"output must be one of {self.outputs} (the run has several outputs)")
            return self.outputs[0]
        if output not in self.outputs:
            raise ValueError(f"output must be one of {self.outputs}, got {output!r}")
        return output

    # -- persistence --------------------------------------------------------------------------------------
    def metadata(self) -> dict:
        return {
            "seed": self.seed,
            "grid": {k: [_jsonable_scalar(v) for v in vals] for k, vals in self.grid.items()},
            "n_reps": self.n_reps,
            "outputs": list(self.outputs),
            "vectorised": self.vectorised,
            "chunk_size": self.chunk_size,
            "backend": self.backend,
            "seconds": self.seconds,
            "fn_name": self.fn_name,
            "meta": self.meta,
            "numpy_version": np.__version__,
        }

    def save(self, path: str | os.PathLike[str]) -> Path:
        """Save to ``path``: ``*.csv`` writes the table plus ``<path>.meta.json``; ``*.json`` writes one file.

        Parameters
        ----------
        path : str or os.PathLike
            The file.

        Returns
        -------
        pathlib.Path
            The path written.
        """
        path = Path(path)
        if path.suffix == ".csv":
            self.table.to_csv(path, index=False, float_format="%.17g")
            Path(str(path) + ".meta.json").write_text(json.dumps(self.metadata(), indent=1))
        elif path.suffix == ".json":
            d = self.metadata()
            d["table"] = {c: [_jsonable_scalar(v) for v in self.table[c].tolist()] for c in self.table.columns}
            path.write_text(json.dumps(d))
        else:
            raise ValueError(f"path must end in .csv or .json, got {str(path)!r}")
        return path

    @classmethod
    def load(cls, path) -> MonteCarloResult:
        """Inverse of :meth:`save`.

        Parameters
        ----------
        path : str or os.PathLike
            The file.

        Returns
        -------
        MonteCarloResult
            The result.
        """
        path = Path(path)
        if path.suffix == ".csv":
            meta = json.loads(Path(str(path) + ".meta.json").read_text())
            table = pd.read_csv(path, dtype={"spawn_key": str})
        elif path.suffix == ".json":
            meta = json.loads(path.read_text())
            table = pd.DataFrame({c: [_unjson(v) for v in vals] for c, vals in meta.pop("table").items()})
        else:
            raise ValueError(f"path must end in .csv or .json, got {str(path)!r}")
        meta.pop("numpy_version", None)
        return cls(table=table, **meta)

    def __repr__(self) -> str:  # pragma: no cover - formatting
        g = ", ".join(f"{k}[{len(v)}]" for k, v in self.grid.items()) or "no grid"
        return (
            f"MonteCarloResult({self.fn_name or 'fn'}: {g} x {self.n_reps} reps, outputs={self.outputs}, "
            f"seed={self.seed}, backend={self.backend}, {self.seconds:.2f}s)"
        )


def load_results(path: str | os.PathLike[str]) -> MonteCarloResult:
    """Load a :class:`MonteCarloResult` saved with :meth:`MonteCarloResult.save`.

    Parameters
    ----------
    path : str or os.PathLike
        The file.

    Returns
    -------
    MonteCarloResult
        The result.
    """
    return MonteCarloResult.load(path)


def _jsonable_scalar(v):
    if isinstance(v, np.generic):
        v = v.item()
    if isinstance(v, float) and not math.isfinite(v):
        return "nan" if math.isnan(v) else ("inf" if v > 0 else "-inf")
    return v


def _unjson(v):
    return float(v) if isinstance(v, str) and v in ("nan", "inf", "-inf") else v


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
