"""Shared helpers of the rate checks: input handling, the bootstrap of per-cell summaries, and the
three-outcome rule.

This module owns what the exponent fit (:mod:`.exponent`), the multi-term fit (:mod:`.terms`) and the quantile
shape (:mod:`.shape`) have in common:

* turning a :class:`~htdp_verify.montecarlo.MonteCarloResult`, a tidy ``DataFrame`` or ``(x, errors)`` arrays into
  sorted grid values and one sample of replications per grid value (:func:`_extract`);
* the summaries ``"median"`` / ``"mean"`` / ``"q<level>"`` and their bootstrap within a cell; quantiles are
  bootstrapped exactly through uniform order statistics (:func:`_boot_order_stats`), at a cost independent of the
  number of replications;
* the default bootstrap generator, seeded from a hash of the data, so that a check is a deterministic function of
  its input;
* :func:`three_outcome_verdict`, the consistent / violated / inconclusive rule on an interval and a band;
* :class:`CrossoverWarning`.
"""

from __future__ import annotations

import hashlib
import math
import numbers
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .._validate import check_rng

__all__ = ["CrossoverWarning", "three_outcome_verdict", "MIN_REPS"]

#: fewest replications per grid value a rate fit accepts.  Measured (red-team, errors |N(0,1)|·n^-0.5 on
#: [100, 300, 1000, 3000], claim -0.5 ± 0.1, α = 0.05, 300 seeds): 2 replications per cell gave "violated" at 0.170
#: (median) and 3 with the mean at 0.077; the median stayed within α at 3 to 5 (0.03-0.047).  At 5: median 1/300,
#: mean 15/300 (seeds 9000-9299, ``n_boot=500``).
MIN_REPS = 5


class CrossoverWarning(UserWarning):
    """The grid straddles a change of regime: a single exponent over the whole grid is not meaningful."""


# ---------------------------------------------------------------------------------------------------------
# Input handling
# ---------------------------------------------------------------------------------------------------------
def _parse_summary(summary: str):
    """``"median"`` -> ("quantile", 0.5); ``"mean"`` -> ("mean", None); ``"q0.9"`` -> ("quantile", 0.9)."""
    if summary == "median":
        return "quantile", 0.5
    if summary == "mean":
        return "mean", None
    if isinstance(summary, str) and summary.startswith("q"):
        try:
            q = float(summary[1:])
        except ValueError:
            q = -1.0
        if 0 < q < 1:
            return "quantile", q
    raise ValueError(
        f"summary must be 'median', 'mean' or 'q<level>' with level in (0, 1) (e.g. 'q0.9'), got {summary!r}"
    )


def _summarise(e: np.ndarray, kind: str, q) -> float:
    return float(np.mean(e)) if kind == "mean" else float(np.quantile(e, q))


def _extract(data, errors, variable: str | None, output: str | None):
    """Return ``(x: (K,), cells: list of K 1-D arrays, seed or None, variable name)`` sorted by x."""
    from ..montecarlo import MonteCarloResult

    seed = None
    if isinstance(data, MonteCarloResult):
        if errors is not None:
            raise ValueError("errors must be None when data is a MonteCarloResult (the errors are in its table)")
        seed = data.seed
        grid = data.grid
        if variable is None:
            if len(grid) != 1:
                raise ValueError(f"variable must name the swept grid parameter, one of {sorted(grid)}")
            variable = next(iter(grid))
        if variable not in grid:
            raise ValueError(f"variable must be a grid parameter of the run, one of {sorted(grid)}; got {variable!r}")
        others = [k for k, v in grid.items() if k != variable and len(v) > 1]
        if others:
            raise ValueError(
                f"the run also varies {others}; a rate is fitted against one variable at a time: filter the table "
                f"(result.table[result.table.{others[0]} == value]) and pass the DataFrame"
            )
        if output is None:
            output = "error" if "error" in data.outputs else data._output(None)
        data = data.table
    try:
        import pandas as pd
    except ImportError:  # pragma: no cover
        pd = None
    if pd is not None and isinstance(data, pd.DataFrame):
        if errors is not None:
            raise ValueError("errors must be None when data is a DataFrame (give the column name as output=)")
        if variable is None or variable not in data.columns:
            raise ValueError(f"variable must be a column of the table, one of {list(data.columns)}; got {variable!r}")
        if output is None:
            output = "error" if "error" in data.columns else "value"
        if output not in data.columns:
            raise ValueError(f"output must be a column of the table, one of {list(data.columns)}; got {output!r}")
        if seed is None and "seed" in data.columns and data["seed"].nunique() == 1:
            seed = int(data["seed"].iloc[0])
        groups = data.groupby(variable, sort=True)[output]
        x = np.array([float(k) for k, _ in groups])
        cells = [np.asarray(g.to_numpy(), dtype=float) for _, g in groups]
    else:
        if isinstance(data, tuple) and len(data) == 2 and errors is None:
            data, errors = data
        if errors is None:
            raise ValueError("errors must be given (shape (K, reps) or K arrays) when data is an array of x values")
        x = np.asarray(data, dtype=float).ravel()
        if isinstance(errors, np.ndarray) and errors.ndim == 2:
            cells = [np.asarray(r, dtype=float) for r in errors]
        else:
            cells = [np.asarray(r, dtype=float).ravel() for r in errors]
        if len(cells) != x.size:
            raise ValueError(f"errors must have one row per x value: got {len(cells)} rows for {x.size} x values")
    if not np.all(np.isfinite(x)) or np.any(x <= 0):
        raise ValueError(f"{variable or 'x'} values must be finite and > 0 for a log-log fit, got {x}")
    order = np.argsort(x, kind="stable")
    x = x[order]
    cells = [cells[i] for i in order]
    if np.any(np.diff(x) == 0):
        raise ValueError(f"{variable or 'x'} values must be distinct, got {x}")
    if x.size < 3:
        raise ValueError(
            f"a rate fit with a confidence interval needs >= 3 grid values of {variable or 'x'}, got {x.size}"
        )
    for xi, c in zip(x, cells):
        if c.size < MIN_REPS:
            raise ValueError(
                f"errors need >= {MIN_REPS} replications per grid value (got {c.size} at {variable or 'x'}={xi:g}): "
                "a bootstrap over fewer cannot resolve the summary's spread (2 per cell gave false failures at 17 % "
                "for a designed 5 %)"
            )
        if not np.all(np.isfinite(c)) or np.any(c < 0):
            raise ValueError(
                "errors must be finite and >= 0 (take a norm or absolute value first); "
                f"bad value at {variable or 'x'}={xi:g}"
            )
        if np.ptp(c) == 0:
            raise ValueError(
                f"the {c.size} replications at {variable or 'x'}={xi:g} are all equal ({c[0]:g}): a bootstrap has no "
                "spread to measure. Are the replications independent (does the estimator use the rng it is given, "
                "and draw fresh data)?"
            )
    return x, cells, seed, (variable or "x")


def _seed_of(data):
    """The integer seed of a MonteCarloResult, or of a table whose ``seed`` column is constant; else None."""
    seed = getattr(data, "seed", None)
    if isinstance(seed, numbers.Integral):
        return int(seed)
    cols = getattr(data, "columns", None)
    if cols is not None and "seed" in cols and data["seed"].nunique() == 1:
        return int(data["seed"].iloc[0])
    return None


def _data_rng(*arrays) -> np.random.Generator:
    """A generator seeded from a hash of the data: the bootstrap is then a deterministic function of its input."""
    h = hashlib.sha256()
    for a in arrays:
        h.update(np.ascontiguousarray(np.asarray(a, dtype=float)).tobytes())
    return np.random.default_rng(int.from_bytes(h.digest()[:8], "little"))


def _resolve_rng(rng, x, cells):
    if rng is None:
        return _data_rng(x, *cells)
    return check_rng(rng)


# ---------------------------------------------------------------------------------------------------------
# Bootstrap of summaries
# ---------------------------------------------------------------------------------------------------------
def _boot_order_stats(sorted_x: np.ndarray, ranks: ArrayLike, n_boot: int, rng) -> np.ndarray:
    """Exact bootstrap distribution of the order statistics at 1-based ``ranks`` (ascending) of ``sorted_x``.

    A bootstrap resample is ``F_n^{-1}(U_i)`` with ``U_i`` i.i.d. uniform, and ``F_n^{-1}`` is monotone, so its
    m-th order statistic is ``x_(ceil(R·U_(m)))``; the uniform order statistics at the requested ranks are drawn
    jointly from gamma increments (``U_(m) = S_m / S_{R+1}``, ``S`` partial sums of Exp(1)).  Cost O(n_boot·len(ranks)).
    """
    R = sorted_x.size
    ranks = np.asarray(ranks, dtype=np.int64)
    shapes = np.diff(np.concatenate([[0], ranks])).astype(float)
    tail = float(R + 1 - ranks[-1])
    if np.any(shapes <= 0) or tail <= 0:
        raise ValueError("ranks must be strictly increasing within [1, R]")  # internal
    inc = rng.standard_gamma(shapes, size=(n_boot, ranks.size))
    s = np.cumsum(inc, axis=1)
    total = s[:, -1] + rng.standard_gamma(tail, size=n_boot)
    u = s / total[:, None]
    idx = np.clip(np.ceil(R * u).astype(np.int64), 1, R) - 1
    return sorted_x[idx]


def _boot_summary(e: np.ndarray, kind: str, q, n_boot: int, rng) -> np.ndarray:
    """``n_boot`` bootstrap replicates of the summary of one cell (resampling its replications)."""
    R = e.size
    if kind == "mean":
        out = np.empty(n_boot)
        step = max(1, 4_000_000 // R)
        for s in range(0, n_boot, step):
            b = min(step, n_boot - s)
            out[s : s + b] = e[rng.integers(0, R, size=(b, R))].mean(axis=1)
        return out
    # numpy's default ("linear") quantile: h = (R-1) q, value = (1-w) x_(j+1) + w x_(j+2) (1-based), w = h - j
    xs = np.sort(e)
    h = (R - 1) * q
    j = int(math.floor(h))
    w = h - j
    if w == 0 or j + 2 > R:
        return _boot_order_stats(xs, [j + 1], n_boot, rng)[:, 0]
    v = _boot_order_stats(xs, [j + 1, j + 2], n_boot, rng)
    return (1 - w) * v[:, 0] + w * v[:, 1]


# ---------------------------------------------------------------------------------------------------------
# Three-outcome verdict
# ---------------------------------------------------------------------------------------------------------
def three_outcome_verdict(interval: Any, target: float, tolerance: float) -> str:
    """``consistent`` if ``interval ⊂ [target − tol, target + tol]``, ``violated`` if disjoint, else
    ``inconclusive``.

    Parameters
    ----------
    interval : tuple
        The ``(lo, hi)`` confidence interval.
    target : float
        The claimed value.
    tolerance : float
        Half-width of the band.

    Returns
    -------
    str
        ``"consistent"``, ``"violated"`` or ``"inconclusive"``.
    """
    lo, hi = interval
    b0, b1 = target - tolerance, target + tolerance
    if b0 <= lo and hi <= b1:
        return "consistent"
    if hi < b0 or lo > b1:
        return "violated"
    return "inconclusive"
