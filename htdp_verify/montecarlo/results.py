"""The result of a Monte Carlo run: :class:`MonteCarloResult` (a tidy ``pandas.DataFrame``, one row per
replication, with the run's metadata; saves to and loads from CSV + JSON sidecar or one JSON file) and
:func:`load_results`.
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from .seeding import child_seed_sequence

__all__ = ["MonteCarloResult", "load_results"]


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
