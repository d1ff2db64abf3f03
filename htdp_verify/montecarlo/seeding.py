"""Seeding of a Monte Carlo run and the per-task worker: ``child_seed_sequence`` (the ``SeedSequence`` of one
replication or vectorised chunk of one grid cell) and ``_run_task``, which runs one task with its own generator and
normalises the outputs (module level so that joblib / dask can pickle it by reference).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping

import numpy as np

__all__ = ["child_seed_sequence"]


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
