"""Rate checks: exponent fits with confidence intervals, equivalence tests, multi-term fits, and
high-probability (tail) checks.

Rates
-----
:func:`fit_rate` fits ``log summary(error) = a + r·log x`` by least squares over a grid of ``x`` values, where the
summary over replications is the ``"median"``, the ``"mean"`` or a quantile ``"q0.9"``.  The confidence interval
for ``r`` comes from a bootstrap that resamples replications *within each grid cell* (cells are independent), or
from the robust Theil–Sen estimator (``scipy.stats.theilslopes``) on the pooled ``(log x, log error)`` pairs.
Quantile summaries (including the median) are bootstrapped exactly and cheaply through uniform order statistics,
so the cost is independent of the number of replications.

:func:`check_rate` turns a fit into a three-outcome verdict on a :class:`~htdp_verify.claims.RateClaim`
``r ∈ B = [r0 − tol, r0 + tol]``, using the two-sided ``(1 − α)`` interval ``[L, U]``:

* **consistent**  if ``[L, U] ⊂ B``  (two one-sided tests, each at level α/2: equivalence is established);
* **violated**    if ``[L, U] ∩ B = ∅`` (``U < r0 − tol`` or ``L > r0 + tol``: the claim is rejected);
* **inconclusive** otherwise; the result then says how many replications would decide, from the CI half-width
  scaling as ``1/sqrt(reps)``.

Error rates by construction (up to the bootstrap's approximation): if the true exponent lies in ``B`` the check
says *violated* with probability ≤ α (each one-sided miss of the interval has probability ≤ α/2); if it lies
outside ``B`` the check says *consistent* with probability ≤ α/2.  A wrong rate is detected (power ≈ ``power``)
once it lies more than :meth:`RateFit.min_detectable_deviation` outside ``B``.  A claimed exponent is never tested
for exact equality: the tolerance absorbs log factors and pre-asymptotic bias, and a rule "violated when the CI
excludes r0" would flag every log factor as a violation once the run is large enough.

Multi-term fits (:func:`fit_terms`) fit ``Σ_j c_j x^{r_j} (log x)^{p_j}`` with known exponents and non-negative
constants (``scipy.optimize.nnls``, relative residuals) and locate crossovers; :func:`fit_rate` warns with a
:class:`CrossoverWarning` when the local slopes change significantly across the grid.

High-probability bounds
-----------------------
:func:`check_tail_bound` counts exceedances of a bound over replications and tests them exactly against the
failure probability β (:func:`htdp_verify.stats.exceedance_test`); it also reports the empirical constant
(the (1−β)-quantile of error/bound).  :func:`quantile_shape` fits the (1−β)-quantile as
``a + b·log(1/β)^γ`` and compares γ = 1/2 (sub-Gaussian, ``sqrt(log(1/β))``) with γ = 1 (``log(1/β)``), the
central point of Zhao et al. 2024 (specs/zhao2024_optimal_rates.md §6.3, checks H1–H2);
:func:`check_quantile_shape` tests a claimed γ with the same three-outcome rule.
"""
from __future__ import annotations

import hashlib
import math
import numbers
import time
import warnings
from dataclasses import dataclass, field
from typing import Mapping, Sequence

import numpy as np
from scipy import optimize
from scipy import stats as _st

from ._validate import check_int, check_positive, check_prob, check_rng
from .claims import Provenance, RateClaim, TailBoundClaim
from .results import CheckResult
from .stats import exceedance_test, quantile_lower_bound, quantile_upper_bound, samples_needed_for_exceedance

__all__ = [
    "CrossoverWarning",
    "RateFit",
    "fit_rate",
    "check_rate",
    "local_slopes",
    "TermFit",
    "fit_terms",
    "check_tail_bound",
    "QuantileShape",
    "quantile_shape",
    "check_quantile_shape",
    "three_outcome_verdict",
]


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
    raise ValueError(f"summary must be 'median', 'mean' or 'q<level>' with level in (0, 1) (e.g. 'q0.9'), got {summary!r}")


def _summarise(e: np.ndarray, kind: str, q) -> float:
    return float(np.mean(e)) if kind == "mean" else float(np.quantile(e, q))


def _extract(data, errors, variable: str | None, output: str | None):
    """Return ``(x: (K,), cells: list of K 1-D arrays, seed or None, variable name)`` sorted by x."""
    from .montecarlo import MonteCarloResult

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
        raise ValueError(f"a rate fit with a confidence interval needs >= 3 grid values of {variable or 'x'}, got {x.size}")
    for xi, c in zip(x, cells):
        if c.size < 2:
            raise ValueError(f"errors need >= 2 replications per grid value (got {c.size} at {variable or 'x'}={xi:g})")
        if not np.all(np.isfinite(c)) or np.any(c < 0):
            raise ValueError(
                f"errors must be finite and >= 0 (take a norm or absolute value first); bad value at {variable or 'x'}={xi:g}"
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
def _boot_order_stats(sorted_x: np.ndarray, ranks: Sequence[int], n_boot: int, rng) -> np.ndarray:
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
            out[s:s + b] = e[rng.integers(0, R, size=(b, R))].mean(axis=1)
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


def _ols_slopes(u: np.ndarray, ly: np.ndarray):
    """Slopes and intercepts of ``ly ~ u`` along the last axis (ly: (..., K))."""
    uc = u - u.mean()
    b = (ly - ly.mean(axis=-1, keepdims=True)) @ uc / (uc @ uc)
    a = ly.mean(axis=-1) - b * u.mean()
    return b, a


def _slope_change(u: np.ndarray, ly: np.ndarray):
    """Change of the local slope across the grid from a quadratic fit ``ly ~ 1 + u + u²``: ``2c·(u_max − u_min)``."""
    uc = (u - u.mean()) / max(np.ptp(u), 1e-300)
    X = np.column_stack([np.ones_like(uc), uc, uc**2])
    coef = np.linalg.pinv(X) @ (ly.T if ly.ndim > 1 else ly)
    return 2.0 * coef[2] / max(np.ptp(u), 1e-300)  # d/du of c·uc² changes by 2c/ptp(u) across the grid


# ---------------------------------------------------------------------------------------------------------
# Rate fit
# ---------------------------------------------------------------------------------------------------------
@dataclass
class RateFit:
    """A fitted exponent ``summary(error) ≈ exp(intercept) · x^exponent`` with its confidence interval.

    Design (TFP-style) methods: :meth:`reps_needed` (replications for a target CI half-width),
    :meth:`reps_needed_for_tolerance` (replications so that a correct rate passes an equivalence test with
    tolerance ``tol`` with probability ``power``) and :meth:`min_detectable_deviation` (how far outside the
    tolerance band a wrong exponent must lie to be detected with probability ``power``).
    """

    variable: str
    summary: str
    method: str
    exponent: float
    interval: tuple
    alpha: float
    intercept: float
    x: np.ndarray
    summaries: np.ndarray
    n_reps: np.ndarray
    se: float
    n_boot: int
    local_slopes: np.ndarray
    local_intervals: np.ndarray
    slope_change: float
    slope_change_interval: tuple
    crossover: bool
    theilsen: dict = field(default_factory=dict)
    bootstrap_exponent: float = float("nan")
    bootstrap_interval: tuple = (float("nan"), float("nan"))

    @property
    def halfwidth(self) -> float:
        """Largest distance from the estimate to an end of the interval."""
        lo, hi = self.interval
        return float(max(self.exponent - lo, hi - self.exponent))

    def reps_needed(self, halfwidth: float) -> int:
        """Replications per cell for a CI half-width ``halfwidth`` (width ∝ 1/sqrt(reps); same grid)."""
        halfwidth = check_positive("halfwidth", halfwidth)
        return int(math.ceil(int(self.n_reps.min()) * (self.halfwidth / halfwidth) ** 2))

    def reps_needed_for_tolerance(self, tolerance: float, power: float = 0.8) -> int:
        """Replications per cell so that a *correct* exponent (at the band centre) gives a CI inside
        ``[r0 − tolerance, r0 + tolerance]`` with probability ≈ ``power`` (normal approximation of the fit)."""
        tolerance = check_positive("tolerance", tolerance)
        power = check_prob("power", power)
        z = _st.norm.ppf(1 - self.alpha / 2) + _st.norm.ppf(power)
        se_target = tolerance / z
        return int(math.ceil(int(self.n_reps.min()) * (self.se / se_target) ** 2))

    def min_detectable_deviation(self, power: float = 0.8) -> float:
        """Smallest distance outside the tolerance band at which a wrong exponent is declared *violated* with
        probability ≈ ``power``: ``halfwidth + z_power · se``."""
        power = check_prob("power", power)
        return float(self.halfwidth + _st.norm.ppf(power) * self.se)

    def local_table(self):
        """MMS-style table: consecutive grid pairs, their local slope and its bootstrap interval."""
        import pandas as pd

        return pd.DataFrame(
            {
                f"{self.variable}_lo": self.x[:-1],
                f"{self.variable}_hi": self.x[1:],
                "local_slope": self.local_slopes,
                "ci_lo": self.local_intervals[:, 0],
                "ci_hi": self.local_intervals[:, 1],
            }
        )

    def to_dict(self) -> dict:
        return {
            "variable": self.variable,
            "summary": self.summary,
            "method": self.method,
            "exponent": self.exponent,
            "interval": list(self.interval),
            "alpha": self.alpha,
            "intercept": self.intercept,
            "x": self.x.tolist(),
            "summaries": self.summaries.tolist(),
            "n_reps": self.n_reps.tolist(),
            "se": self.se,
            "halfwidth": self.halfwidth,
            "n_boot": self.n_boot,
            "local_slopes": self.local_slopes.tolist(),
            "local_intervals": self.local_intervals.tolist(),
            "slope_change": self.slope_change,
            "slope_change_interval": list(self.slope_change_interval),
            "crossover": self.crossover,
            "theilsen": self.theilsen,
            "bootstrap_exponent": self.bootstrap_exponent,
            "bootstrap_interval": list(self.bootstrap_interval),
        }

    def describe(self) -> str:
        """A few lines: the fit, its CI, and the local slopes (what an assertion message shows)."""
        lo, hi = self.interval
        lines = [
            f"{self.summary} error ~ {math.exp(self.intercept):.3g} * {self.variable}^{self.exponent:.4f}  "
            f"({100 * (1 - self.alpha):g}% CI [{lo:.4f}, {hi:.4f}], {self.method}, "
            f"{self.x.size} values of {self.variable} in [{self.x[0]:g}, {self.x[-1]:g}], "
            f"{int(self.n_reps.min())} reps per value)",
        ]
        if self.method == "bootstrap" and self.theilsen:
            lines.append(
                f"Theil-Sen cross-check: {self.theilsen['exponent']:.4f} "
                f"[{self.theilsen['interval'][0]:.4f}, {self.theilsen['interval'][1]:.4f}]"
            )
        if self.method == "theilsen":
            b0, b1 = self.bootstrap_interval
            lines.append(f"bootstrap cross-check: {self.bootstrap_exponent:.4f} [{b0:.4f}, {b1:.4f}]")
        ls = ", ".join(f"{s:.3f}" for s in self.local_slopes)
        lines.append(f"local slopes: {ls}")
        if self.crossover:
            lines.append(
                f"WARNING: local slope changes by {self.slope_change:+.3f} across the grid "
                f"(99% CI [{self.slope_change_interval[0]:+.3f}, {self.slope_change_interval[1]:+.3f}]): "
                "the grid may straddle a crossover"
            )
        return "\n".join(lines)

    def __str__(self) -> str:  # pragma: no cover - formatting
        return self.describe()


def fit_rate(
    data,
    *,
    errors=None,
    variable: str | None = None,
    output: str | None = None,
    summary: str = "median",
    method: str = "bootstrap",
    alpha: float = 0.05,
    n_boot: int = 2000,
    rng: np.random.Generator | None = None,
    crossover_tol: float = 0.1,
    crossover_alpha: float = 0.01,
    theilsen_max_points: int = 1000,
    warn: bool = True,
) -> RateFit:
    """Fit the exponent of ``summary(error)`` against ``variable`` on a log-log scale, with a ``1 − alpha`` CI.

    Parameters
    ----------
    data: a :class:`~htdp_verify.montecarlo.MonteCarloResult` (one swept variable), a tidy ``DataFrame`` (columns
        ``variable`` and ``output``), an array of x values (then ``errors`` has one row of replications per x),
        or a tuple ``(x, errors)``.  Errors must be ≥ 0 (a norm or absolute value).
    variable, output: the grid variable and the error column (default ``"error"``, else the only output).
    summary: ``"median"``, ``"mean"`` or ``"q<level>"`` (e.g. ``"q0.9"``), computed per grid value.
    method: ``"bootstrap"`` – OLS slope of log summaries, percentile CI from ``n_boot`` resamples of the
        replications within each cell; ``"theilsen"`` – ``scipy.stats.theilslopes`` on all pooled
        ``(log x, log error)`` pairs (robust; assumes the error law at each x is a scaled copy of one law, so its
        slope is the exponent of every summary; at most ``theilsen_max_points`` pairs, subsampled evenly per cell).
        Both are always computed; the other is kept as a cross-check.
    alpha: the CI has level ``1 − alpha`` (two-sided).
    rng: generator for the bootstrap; default: one seeded from a hash of the data (deterministic result).
    crossover_tol, crossover_alpha: a :class:`CrossoverWarning` is issued when the change of the local slope
        across the grid (from a quadratic fit in log x, bootstrap interval at level ``crossover_alpha``) is
        significantly different from 0 and larger than ``crossover_tol`` in absolute value.  The stricter default
        level keeps false warnings on straight power laws rare (≤ 1%).
    """
    kind, q = _parse_summary(summary)
    if method not in ("bootstrap", "theilsen"):
        raise ValueError(f"method must be 'bootstrap' or 'theilsen', got {method!r}")
    alpha = check_prob("alpha", alpha)
    n_boot = check_int("n_boot", n_boot, minimum=100)
    crossover_tol = check_positive("crossover_tol", crossover_tol)
    crossover_alpha = check_prob("crossover_alpha", crossover_alpha)
    theilsen_max_points = check_int("theilsen_max_points", theilsen_max_points, minimum=10)
    x, cells, _, variable = _extract(data, errors, variable, output)
    rng = _resolve_rng(rng, x, cells)

    u = np.log(x)
    summ = np.array([_summarise(c, kind, q) for c in cells])
    if np.any(summ <= 0):
        bad = x[summ <= 0]
        raise ValueError(f"the {summary} of the errors is 0 at {variable} = {bad}: a log-log fit needs positive summaries")
    ly = np.log(summ)
    slope, intercept = _ols_slopes(u, ly)
    boot = np.column_stack([_boot_summary(c, kind, q, n_boot, rng) for c in cells])  # (B, K)
    if np.any(boot <= 0):
        raise ValueError(
            f"errors contain so many zeros that a bootstrap {summary} is 0; use more replications or a higher quantile"
        )
    lboot = np.log(boot)
    bslopes, _ = _ols_slopes(u, lboot)
    lo_p, hi_p = 100 * alpha / 2, 100 * (1 - alpha / 2)
    b_int = (float(np.percentile(bslopes, lo_p)), float(np.percentile(bslopes, hi_p)))
    se = float(np.std(bslopes, ddof=1))

    # local slopes (MMS table) and curvature diagnostics
    du = np.diff(u)
    loc = np.diff(ly) / du
    bloc = np.diff(lboot, axis=1) / du
    loc_int = np.column_stack([np.percentile(bloc, lo_p, axis=0), np.percentile(bloc, hi_p, axis=0)])
    if x.size >= 4:
        change = float(_slope_change(u, ly))
        bchange = _slope_change(u, lboot)
        ch_int = (float(np.percentile(bchange, 50 * crossover_alpha)),
                  float(np.percentile(bchange, 100 - 50 * crossover_alpha)))
        crossover = (ch_int[0] > 0 or ch_int[1] < 0) and abs(change) > crossover_tol
    else:
        change, ch_int, crossover = float("nan"), (float("nan"), float("nan")), False

    ts = _theilsen(u, cells, alpha, theilsen_max_points)

    if method == "bootstrap":
        exponent, interval, icpt = float(slope), b_int, float(intercept)
    else:
        exponent, interval, icpt = ts["exponent"], tuple(ts["interval"]), ts["intercept"]
        se = max(se, (interval[1] - interval[0]) / (2 * _st.norm.ppf(1 - alpha / 2)))
    fit = RateFit(
        variable=variable,
        summary=summary,
        method=method,
        exponent=float(exponent),
        interval=(float(interval[0]), float(interval[1])),
        alpha=alpha,
        intercept=icpt,
        x=x,
        summaries=summ,
        n_reps=np.array([c.size for c in cells]),
        se=se,
        n_boot=n_boot,
        local_slopes=loc,
        local_intervals=loc_int,
        slope_change=change,
        slope_change_interval=ch_int,
        crossover=bool(crossover),
        theilsen=ts if method == "bootstrap" else {},
        bootstrap_exponent=float(slope),
        bootstrap_interval=b_int,
    )
    if crossover and warn:
        warnings.warn(
            f"the local slope of the {summary} error against {variable} changes from {loc[0]:.3f} to {loc[-1]:.3f} "
            f"across [{x[0]:g}, {x[-1]:g}] (quadratic-fit change {change:+.3f}, {100 * (1 - crossover_alpha):g}% CI [{ch_int[0]:+.3f}, {ch_int[1]:+.3f}]): "
            "the grid may straddle a crossover between regimes; restrict the grid to one regime or use fit_terms()",
            CrossoverWarning,
            stacklevel=2,
        )
    return fit


def _theilsen(u, cells, alpha, max_points) -> dict:
    K = len(cells)
    per = max(2, max_points // K)
    xs, ys, dropped = [], [], 0
    for ui, c in zip(u, cells):
        pos = np.sort(c[c > 0])
        dropped += c.size - pos.size
        if pos.size > per:  # even subsample of the order statistics: deterministic, keeps the shape of the law
            pos = pos[np.linspace(0, pos.size - 1, per).round().astype(int)]
        xs.append(np.full(pos.size, ui))
        ys.append(np.log(pos))
    xv, yv = np.concatenate(xs), np.concatenate(ys)
    res = _st.theilslopes(yv, xv, alpha=1 - alpha)
    return {
        "exponent": float(res.slope),
        "intercept": float(res.intercept),
        "interval": [float(res.low_slope), float(res.high_slope)],
        "n_points": int(xv.size),
        "zeros_dropped": int(dropped),
    }


def local_slopes(data, **kw):
    """The MMS-style table of local slopes between consecutive grid values (see :func:`fit_rate` for ``kw``)."""
    kw.setdefault("warn", False)
    return fit_rate(data, **kw).local_table()


# ---------------------------------------------------------------------------------------------------------
# Three-outcome verdict
# ---------------------------------------------------------------------------------------------------------
def three_outcome_verdict(interval, target: float, tolerance: float) -> str:
    """``consistent`` if ``interval ⊂ [target − tol, target + tol]``, ``violated`` if disjoint, else ``inconclusive``."""
    lo, hi = interval
    b0, b1 = target - tolerance, target + tolerance
    if b0 <= lo and hi <= b1:
        return "consistent"
    if hi < b0 or lo > b1:
        return "violated"
    return "inconclusive"


def _reps_to_decide(estimate, halfwidth, target, tol, reps) -> float:
    """Replications per cell at which the current estimate's CI would fit inside (or clear) the band."""
    b0, b1 = target - tol, target + tol
    if b0 < estimate < b1:
        need = min(estimate - b0, b1 - estimate)
    else:
        need = max(b0 - estimate, estimate - b1)
    if need <= 0:
        return float("inf")
    return float(math.ceil(reps * (halfwidth / need) ** 2))


def check_rate(
    data,
    claim: RateClaim,
    alpha: float = 0.05,
    *,
    errors=None,
    output: str | None = None,
    method: str = "bootstrap",
    n_boot: int = 2000,
    rng: np.random.Generator | None = None,
    power: float = 0.8,
    name: str = "",
    seed: int | None = None,
) -> CheckResult:
    """Equivalence test of a :class:`RateClaim`: is the exponent of ``claim.summary`` of the error against
    ``claim.variable`` within ``claim.tolerance`` of ``claim.exponent``?

    Three outcomes from the two-sided ``(1 − alpha)`` interval of :func:`fit_rate` (see the module docstring):
    consistent (interval inside the band; false pass ≤ α/2), violated (interval disjoint from the band;
    false failure ≤ α), inconclusive (``details['reps_needed']`` says how many replications per grid value would
    decide if the estimate stayed where it is).  ``data``/``errors``/``output``/``method``/``n_boot``/``rng`` are
    passed to :func:`fit_rate`; ``power`` sets the reported smallest detectable deviation.
    """
    t0 = time.perf_counter()
    if not isinstance(claim, RateClaim):
        raise ValueError(f"claim must be a RateClaim, got {type(claim).__name__}")
    alpha = check_prob("alpha", alpha)
    power = check_prob("power", power)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", CrossoverWarning)
        fit = fit_rate(
            data, errors=errors, variable=claim.variable,
            output=output, summary=claim.summary, method=method, alpha=alpha, n_boot=n_boot, rng=rng,
            crossover_tol=claim.tolerance,
        )
    for w in caught:  # re-issue at the caller
        warnings.warn(w.message, w.category, stacklevel=2)
    if seed is None:
        seed = _seed_of(data)
    r0, tol = claim.exponent, claim.tolerance
    verdict = three_outcome_verdict(fit.interval, r0, tol)
    reps = int(fit.n_reps.min())
    mdd = fit.min_detectable_deviation(power)
    details = {
        "fit": fit.to_dict(),
        "band": [r0 - tol, r0 + tol],
        "rule": "consistent: (1-alpha) CI inside band; violated: CI disjoint from band; else inconclusive",
        "false_failure_rate_max": alpha,
        "false_pass_rate_max": alpha / 2,
        "min_detectable_deviation": mdd,
        "power": power,
        "reps_for_power_at_centre": fit.reps_needed_for_tolerance(tol, power),
    }
    lo, hi = fit.interval
    head = (
        f"exponent of {claim.summary} error vs {fit.variable}: {fit.exponent:.3f} "
        f"({100 * (1 - alpha):g}% CI [{lo:.3f}, {hi:.3f}]) vs claimed {r0:g} ± {tol:g}"
    )
    if verdict == "consistent":
        summary = f"{head}: inside the band. A rate off by > {mdd:.3f} beyond the band is detected with prob ≥ {power:g}."
    elif verdict == "violated":
        summary = f"{head}: outside the band (rejected at alpha={alpha:g})."
    else:
        need = _reps_to_decide(fit.exponent, fit.halfwidth, r0, tol, reps)
        details["reps_needed"] = need
        details["widen_grid_factor"] = "the CI width also scales as 1/sd(log x): a wider grid helps as much"
        need_s = f"about {int(need)}" if math.isfinite(need) else "arbitrarily many (the estimate is on the band edge)"
        summary = f"{head}: the CI straddles a band edge; {need_s} replications per value (now {reps}) would decide."
    if fit.crossover:
        summary += " WARNING: the grid may straddle a crossover (local slopes change significantly)."
    return CheckResult(
        name=name or f"rate[{fit.variable}]",
        verdict=verdict,
        statistic="exponent",
        estimate=fit.exponent,
        interval=fit.interval,
        alpha=alpha,
        claim=claim,
        n_samples=int(fit.n_reps.sum()),
        seconds=time.perf_counter() - t0,
        seed=seed,
        provenance=claim.provenance,
        summary=summary,
        details=details,
    )


# ---------------------------------------------------------------------------------------------------------
# Multi-term fits
# ---------------------------------------------------------------------------------------------------------
@dataclass
class TermFit:
    """``summary(error) ≈ Σ_j c_j · x^{r_j} · (log x)^{p_j}`` with ``c_j ≥ 0``.

    ``crossovers``: for each pair of active terms, the x where they are equal and whether it lies inside the grid;
    ``dominant``: index of the largest term at each grid value; ``local_exponent``: the fitted curve's
    d log / d log x at each grid value; ``lack_of_fit``: ``Σ (log y − log fit)² / var_boot(log y)`` with an
    approximate chi-square p-value on ``K − (#active terms)`` degrees of freedom.
    """

    variable: str
    summary: str
    terms: list
    constants: np.ndarray
    constant_intervals: np.ndarray
    x: np.ndarray
    summaries: np.ndarray
    fitted: np.ndarray
    rel_residuals: np.ndarray
    local_exponent: np.ndarray
    dominant: np.ndarray
    crossovers: list
    lack_of_fit: float
    lack_of_fit_pvalue: float
    alpha: float

    def term_values(self, x=None) -> np.ndarray:
        """Each term's value ``c_j x^{r_j} (log x)^{p_j}`` at ``x`` (default: the grid); shape (len(x), m)."""
        x = self.x if x is None else np.asarray(x, dtype=float)
        return _design(x, self.terms) * self.constants

    def predict(self, x) -> np.ndarray:
        return self.term_values(x).sum(axis=1)

    def describe(self) -> str:
        def tname(t):
            r, p = t
            return f"{self.variable}^{r:g}" + (f"·log({self.variable})^{p:g}" if p else "")

        lines = [f"{self.summary} error ≈ " + " + ".join(f"{c:.3g}·{tname(t)}" for c, t in zip(self.constants, self.terms))]
        for cr in self.crossovers:
            where = "inside" if cr["inside_grid"] else "outside"
            lines.append(f"crossover of {tname(self.terms[cr['terms'][0]])} and {tname(self.terms[cr['terms'][1]])} "
                         f"at {self.variable} ≈ {cr['x']:.4g} ({where} the grid)")
        lines.append(f"max |relative residual| {np.max(np.abs(self.rel_residuals)):.3g}; lack-of-fit p ≈ {self.lack_of_fit_pvalue:.3g}")
        return "\n".join(lines)


def _norm_terms(exponents) -> list:
    terms = []
    for t in exponents:
        if isinstance(t, numbers.Real) and not isinstance(t, bool):
            terms.append((float(t), 0.0))
        elif isinstance(t, (tuple, list)) and len(t) == 2 and all(isinstance(v, numbers.Real) for v in t):
            terms.append((float(t[0]), float(t[1])))
        else:
            raise ValueError(f"exponents must be numbers r or pairs (r, p) for x^r·log(x)^p, got {t!r}")
    if not terms:
        raise ValueError("exponents must name at least one term")
    if len(set(terms)) != len(terms):
        raise ValueError(f"exponents must be distinct terms, got {exponents!r}")
    return terms


def _design(x, terms):
    lx = np.log(x)
    cols = []
    for r, p in terms:
        col = x**r
        if p:
            if np.any(lx <= 0):
                raise ValueError("log-factor terms need every x > 1")
            col = col * lx**p
        cols.append(col)
    return np.column_stack(cols)


def _nnls_rel(A, y):
    c, _ = optimize.nnls(A / y[:, None], np.ones_like(y))
    return c


def fit_terms(
    data,
    exponents,
    *,
    errors=None,
    variable: str | None = None,
    output: str | None = None,
    summary: str = "median",
    alpha: float = 0.05,
    n_boot: int = 500,
    rng: np.random.Generator | None = None,
    warn: bool = True,
) -> TermFit:
    """Fit ``summary(error) ≈ Σ_j c_j x^{r_j} (log x)^{p_j}`` with known terms and constants ``c_j ≥ 0``.

    ``exponents``: e.g. ``[-0.5, -1.0]`` for ``c1/sqrt(n) + c2/n``, or ``[(-0.5, 0), (-1, 1)]`` for
    ``c1 n^{-1/2} + c2 log(n)/n``.  The constants minimise the sum of squared *relative* residuals
    (``scipy.optimize.nnls``), so every grid value counts equally whatever its magnitude; their ``1 − alpha``
    intervals come from the within-cell bootstrap.  Issues a :class:`CrossoverWarning` when two active terms
    cross inside the grid (then a single exponent fitted over the grid describes neither regime).
    """
    terms = _norm_terms(exponents)
    kind, q = _parse_summary(summary)
    alpha = check_prob("alpha", alpha)
    n_boot = check_int("n_boot", n_boot, minimum=50)
    x, cells, _, variable = _extract(data, errors, variable, output)
    if x.size < len(terms):
        raise ValueError(f"{len(terms)} terms need >= {len(terms)} grid values of {variable}, got {x.size}")
    rng = _resolve_rng(rng, x, cells)
    y = np.array([_summarise(c, kind, q) for c in cells])
    if np.any(y <= 0):
        raise ValueError(f"the {summary} of the errors must be > 0 at every grid value")
    A = _design(x, terms)
    c = _nnls_rel(A, y)
    fitted = A @ c
    boot = np.column_stack([_boot_summary(cell, kind, q, n_boot, rng) for cell in cells])
    cb = np.array([_nnls_rel(A, np.maximum(b, 1e-300)) for b in boot])
    ci = np.column_stack([np.percentile(cb, 100 * alpha / 2, axis=0), np.percentile(cb, 100 * (1 - alpha / 2), axis=0)])
    var_log = np.var(np.log(np.maximum(boot, 1e-300)), axis=0, ddof=1)
    var_log = np.maximum(var_log, 1e-12)
    with np.errstate(divide="ignore"):
        resid_log = np.log(y) - np.log(np.maximum(fitted, 1e-300))
    lof = float(np.sum(resid_log**2 / var_log))
    active = np.flatnonzero(c > 0)
    dof = x.size - active.size
    pval = float(_st.chi2.sf(lof, dof)) if dof > 0 else float("nan")
    tv = A * c
    with np.errstate(invalid="ignore", divide="ignore"):
        lx = np.log(x)
        dlog = np.column_stack([r + p / lx if p else np.full(x.size, r) for r, p in terms])  # d log term / d log x
        local = np.sum(tv * dlog, axis=1) / np.maximum(fitted, 1e-300)
    dominant = np.argmax(tv, axis=1)
    crossovers = []
    for i in active:
        for j in active:
            if j > i:
                xs = _find_crossing(terms[i], terms[j], c[i], c[j], x)
                if xs is not None:
                    crossovers.append({"terms": [int(i), int(j)], "x": xs, "inside_grid": bool(x[0] < xs < x[-1])})
    fit = TermFit(
        variable=variable, summary=summary, terms=terms, constants=c, constant_intervals=ci, x=x, summaries=y,
        fitted=fitted, rel_residuals=y / fitted - 1, local_exponent=local, dominant=dominant, crossovers=crossovers,
        lack_of_fit=lof, lack_of_fit_pvalue=pval, alpha=alpha,
    )
    inside = [cr for cr in crossovers if cr["inside_grid"]]
    if inside and warn:
        warnings.warn(
            f"the grid of {variable} in [{x[0]:g}, {x[-1]:g}] straddles a crossover between terms at "
            + ", ".join(f"{variable} ≈ {cr['x']:.4g}" for cr in inside)
            + f"; local exponents of the fit go from {local[0]:.3f} to {local[-1]:.3f}",
            CrossoverWarning,
            stacklevel=2,
        )
    return fit


def _find_crossing(ti, tj, ci, cj, x):
    """x where ``c_i·x^{r_i}(log x)^{p_i} = c_j·x^{r_j}(log x)^{p_j}`` (closed form without log factors, else the
    first sign change of the log-ratio on a grid around the data, refined by ``brentq``); None if none."""
    (ri, pi), (rj, pj) = ti, tj
    if pi == 0 and pj == 0:
        return None if ri == rj else float((cj / ci) ** (1.0 / (ri - rj)))

    def f(t):  # t = log x > 0
        return math.log(ci / cj) + (ri - rj) * t + (pi - pj) * math.log(t)

    lo, hi = math.log(x[0]), math.log(x[-1])
    grid = np.linspace(max(lo - 5, 1e-6), hi + 5, 800)
    vals = np.array([f(t) for t in grid])
    s = np.flatnonzero(np.sign(vals[:-1]) * np.sign(vals[1:]) < 0)
    if s.size == 0:
        return None
    return float(math.exp(optimize.brentq(f, grid[s[0]], grid[s[0] + 1])))


# ---------------------------------------------------------------------------------------------------------
# High-probability bounds
# ---------------------------------------------------------------------------------------------------------
def _cells_and_bounds(errors, bound_values):
    from .montecarlo import MonteCarloResult

    if isinstance(errors, MonteCarloResult):
        errors = errors.values("error" if "error" in errors.outputs else None)
    if isinstance(errors, np.ndarray) or (isinstance(errors, Sequence) and len(errors) and np.isscalar(errors[0])):
        e = np.asarray(errors, dtype=float)
        if e.ndim not in (1, 2):
            raise ValueError(f"errors must be 1-D (reps,) or 2-D (cells, reps), got shape {e.shape}")
        cells = [e] if e.ndim == 1 else list(e)
    else:
        cells = [np.asarray(c, dtype=float).ravel() for c in errors]
    if not cells or any(c.size == 0 for c in cells):
        raise ValueError("errors must contain at least one replication per cell")
    if not all(np.all(np.isfinite(c)) for c in cells):
        raise ValueError("errors must be finite (found NaN or inf)")
    b = bound_values
    if np.ndim(b) == 0:
        bounds = [np.full(c.size, float(b)) for c in cells]
    elif len(cells) > 1 and np.shape(b) == (len(cells),):
        bounds = [np.full(c.size, float(bi)) for c, bi in zip(cells, np.asarray(b, dtype=float))]
    else:
        rows = [np.asarray(b, dtype=float).ravel()] if len(cells) == 1 else [np.asarray(r, dtype=float).ravel() for r in b]
        if len(rows) != len(cells) or any(r.size != c.size for r, c in zip(rows, cells)):
            raise ValueError(
                f"bound_values must be a scalar, one value per cell ({len(cells)}), or one per replication "
                f"(same shape as errors); got shape {np.shape(b)}"
            )
        bounds = rows
    for bc in bounds:
        if not np.all(np.isfinite(bc)) or np.any(bc <= 0):
            raise ValueError("bound_values must be finite and > 0")
    return cells, bounds


def check_tail_bound(
    errors,
    bound_values,
    claim: TailBoundClaim,
    alpha: float = 0.05,
    *,
    power: float = 0.8,
    detect_rate: float | None = None,
    per_cell: bool = False,
    name: str = "",
    seed: int | None = None,
) -> CheckResult:
    """Exact test of a high-probability bound ``P[error > bound] ≤ claim.beta`` from replications.

    Parameters
    ----------
    errors: replications of the error: 1-D (one configuration), 2-D ``(cells, reps)``, a list of 1-D arrays, or a
        :class:`~htdp_verify.montecarlo.MonteCarloResult` (its ``"error"`` output).
    bound_values: the bound: a scalar, one value per cell, or one per replication.
    alpha: false-failure probability of the verdict.
    power, detect_rate: design.  ``details['min_detectable_rate']`` is the failure rate detected with probability
        ``power``; if ``detect_rate`` is given and the run cannot detect it, the verdict is ``inconclusive`` and
        ``details['reps_needed']`` says how many replications would.
    per_cell: test every cell separately at ``alpha / cells`` (Bonferroni) instead of pooling the counts.
        Pooling is valid because each cell's failure count is dominated by Binomial(reps, β) under the claim,
        and it has more power against violations spread over the grid.

    The result also reports the *empirical constant*: the (1−β)-quantile of error/bound (≤ 1 when the bound holds)
    and its exact upper confidence bound, so that constants that drift are visible before they fail.
    """
    t0 = time.perf_counter()
    if not isinstance(claim, TailBoundClaim):
        raise ValueError(f"claim must be a TailBoundClaim, got {type(claim).__name__}")
    alpha = check_prob("alpha", alpha)
    power = check_prob("power", power)
    if detect_rate is not None:
        detect_rate = check_prob("detect_rate", detect_rate)
        if detect_rate <= claim.beta:
            raise ValueError(f"detect_rate must exceed beta={claim.beta:g}, got {detect_rate:g}")
    cells, bounds = _cells_and_bounds(errors, bound_values)
    beta = claim.beta
    counts = np.array([int(np.sum(e > b)) for e, b in zip(cells, bounds)])
    ns = np.array([e.size for e in cells])
    if per_cell and len(cells) > 1:
        a_cell = alpha / len(cells)
        tests = [exceedance_test(int(k), int(n), beta, a_cell, power=power) for k, n in zip(counts, ns)]
        worst = min(tests, key=lambda t: t.pvalue)
        verdict = "violated" if any(t.verdict == "violated" for t in tests) else "consistent"
        pvalue = min(1.0, worst.pvalue * len(cells))
        mdr = max(t.min_detectable_rate for t in tests)
        rate_upper = max(t.rate_upper for t in tests)
        k_tot, n_tot = int(counts.sum()), int(ns.sum())
        reps_for = lambda r: samples_needed_for_exceedance(beta, r, a_cell, power) * len(cells)
    else:
        res = exceedance_test(int(counts.sum()), int(ns.sum()), beta, alpha, power=power)
        verdict, pvalue, mdr, rate_upper = res.verdict, res.pvalue, res.min_detectable_rate, res.rate_upper
        k_tot, n_tot = res.k, res.n
        reps_for = lambda r: samples_needed_for_exceedance(beta, r, alpha, power)
    ratio = np.concatenate([e / b for e, b in zip(cells, bounds)])
    const = float(np.quantile(ratio, 1 - beta))
    try:
        const_upper = quantile_upper_bound(ratio, 1 - beta, alpha)
    except ValueError:
        const_upper = float("inf")
    details = {
        "counts": counts.tolist(),
        "reps": ns.tolist(),
        "pvalue": pvalue,
        "rate_upper": rate_upper,
        "min_detectable_rate": mdr,
        "power": power,
        "per_cell": bool(per_cell and len(cells) > 1),
        "empirical_constant": const,
        "empirical_constant_upper": const_upper,
    }
    rate = k_tot / n_tot
    head = (
        f"{k_tot}/{n_tot} exceedances (rate {rate:.4g}, {100 * (1 - alpha):g}% upper bound {rate_upper:.4g}) "
        f"vs beta={beta:g}, p={pvalue:.3g}"
    )
    if verdict == "violated":
        summary = f"{head}: the bound fails more often than beta (rejected at alpha={alpha:g})."
    elif detect_rate is not None and mdr > detect_rate:
        verdict = "inconclusive"
        details["reps_needed"] = reps_for(detect_rate)
        summary = (f"{head}: not rejected, but the run only detects failure rates ≥ {mdr:.3g}; about "
                   f"{details['reps_needed']} replications would detect {detect_rate:g} with probability {power:g}.")
    else:
        summary = (f"{head}: consistent; a failure rate ≥ {mdr:.3g} would be detected with probability ≥ {power:g}. "
                   f"Empirical constant (1-beta quantile of error/bound) {const:.3g}.")
    return CheckResult(
        name=name or "tail_bound",
        verdict=verdict,
        statistic="exceedance_rate",
        estimate=rate,
        interval=(0.0, rate_upper),
        alpha=alpha,
        claim=claim,
        n_samples=n_tot,
        seconds=time.perf_counter() - t0,
        seed=seed,
        provenance=claim.provenance,
        summary=summary,
        details=details,
    )


# ---------------------------------------------------------------------------------------------------------
# Shape of the (1-β)-quantile in log(1/β)
# ---------------------------------------------------------------------------------------------------------
@dataclass
class QuantileShape:
    """The (1−β)-quantiles ``q(β)`` and the fit ``q ≈ a + b·ℓ^γ`` with ``ℓ = log(1/β)``.

    ``gamma``/``gamma_interval``: profile least-squares fit (weights 1/bootstrap variance) and percentile
    bootstrap interval; ``nested``: the regression ``q = a + b·sqrt(ℓ) + c·ℓ`` (Zhao et al. 2024, check H1) with
    bootstrap intervals for ``b`` and ``c`` (``c`` > 0 significantly ⇒ a linear-in-ℓ tail);
    ``sse_sqrt``/``sse_linear``: weighted residual sums at γ = 1/2 and γ = 1; ``preferred``: ``"sqrt"`` if the
    γ-interval lies below 0.75 (the midpoint of 1/2 and 1), ``"linear"`` if it lies inside (0.75, 1.25),
    ``"heavier"`` if above 1.25 (polynomial-like tails), else ``"undecided"``.  Exact equality with 1/2 is not
    required: a Gaussian gives γ ≈ 0.52–0.55 over β ∈ [1e-4, 0.5] because of its lower-order log log terms.
    """

    betas: np.ndarray
    ells: np.ndarray
    quantiles: np.ndarray
    quantile_intervals: np.ndarray
    n_reps: np.ndarray
    gamma: float
    gamma_interval: tuple
    a: float
    b: float
    nested: dict
    sse_sqrt: float
    sse_linear: float
    preferred: str
    alpha: float
    n_boot: int

    def describe(self) -> str:
        lo, hi = self.gamma_interval
        qs = ", ".join(f"β={b:g}: {q:.4g}" for b, q in zip(self.betas, self.quantiles))
        return (
            f"(1-β)-quantiles: {qs}\n"
            f"q ≈ {self.a:.4g} + {self.b:.4g}·log(1/β)^{self.gamma:.3f}  "
            f"(γ {100 * (1 - self.alpha):g}% CI [{lo:.3f}, {hi:.3f}]) -> {self.preferred}\n"
            f"q = a + b·sqrt(ℓ) + c·ℓ: c = {self.nested['c']:.4g} CI [{self.nested['c_interval'][0]:.4g}, "
            f"{self.nested['c_interval'][1]:.4g}]"
        )

    def to_dict(self) -> dict:
        return {
            "betas": self.betas.tolist(), "ells": self.ells.tolist(), "quantiles": self.quantiles.tolist(),
            "quantile_intervals": self.quantile_intervals.tolist(), "n_reps": self.n_reps.tolist(),
            "gamma": self.gamma, "gamma_interval": list(self.gamma_interval), "a": self.a, "b": self.b,
            "nested": self.nested, "sse_sqrt": self.sse_sqrt, "sse_linear": self.sse_linear,
            "preferred": self.preferred, "alpha": self.alpha, "n_boot": self.n_boot,
        }


def _shape_inputs(errors, betas):
    if isinstance(errors, Mapping):
        if betas is not None:
            raise ValueError("betas must be None when errors is a mapping {beta: errors}")
        items = sorted(((check_prob("beta", float(b)), np.asarray(e, dtype=float).ravel()) for b, e in errors.items()),
                       key=lambda t: -t[0])
        betas = np.array([b for b, _ in items])
        samples = [e for _, e in items]
        shared = False
    else:
        if betas is None:
            raise ValueError("betas must be given (e.g. [0.5, 0.1, 0.01, 0.001]) when errors is one sample")
        betas = np.array(sorted({check_prob("beta", float(b)) for b in betas}, reverse=True))
        e = np.asarray(errors, dtype=float).ravel()
        samples = [e] * betas.size
        shared = True
    if betas.size < 4:
        raise ValueError(f"betas must hold >= 4 distinct failure probabilities to fit a + b·log(1/β)^γ, got {betas.size}")
    for b, e in zip(betas, samples):
        if e.size == 0 or not np.all(np.isfinite(e)):
            raise ValueError(f"errors for beta={b:g} must be a non-empty finite sample")
        if e.size * b < 1:
            raise ValueError(
                f"errors for beta={b:g} has {e.size} values; the (1-beta)-quantile needs >= {math.ceil(1 / b)} (better 10/beta)"
            )
    return betas, samples, shared


def _order_rank(R: int, beta: float) -> int:
    """1-based rank of the (1−β)-quantile as an order statistic (numpy's 'inverted_cdf')."""
    return min(R, max(1, math.ceil((1 - beta) * R - 1e-9)))


def quantile_shape(
    errors,
    betas: Sequence[float] | None = None,
    *,
    alpha: float = 0.05,
    n_boot: int = 1000,
    rng: np.random.Generator | None = None,
    gammas: Sequence[float] | None = None,
) -> QuantileShape:
    """Shape of the (1−β)-quantile of the error as a function of ``ℓ = log(1/β)``.

    Parameters
    ----------
    errors: one sample of replications used for every β, or a mapping ``{beta: sample}`` when the estimator's
        tuning depends on β (e.g. ``m = C·log(1/β)`` batches, Zhao et al. 2024 Thm 5 / check H2).
    betas: failure probabilities (≥ 4 distinct), e.g. ``[0.5, 0.1, 1e-2, 1e-3, 1e-4]``; each needs ≳ 10/β
        replications for a stable quantile.
    alpha: level of the intervals (two-sided ``1 − alpha``).
    n_boot: bootstrap resamples (order statistics are bootstrapped exactly; cost independent of the sample size).
    rng: generator for the bootstrap; default: seeded from a hash of the data.
    gammas: profile grid for γ (default 0.1 … 2.5 in steps of 0.005).

    Sub-Gaussian errors give γ ≈ 1/2 (for |N(0,1)| over β ∈ [1e-4, 0.5] the fit gives γ ≈ 0.52); exponential tails
    (Laplace noise, a clipping bias that turns Poisson-like) give γ = 1.
    """
    alpha = check_prob("alpha", alpha)
    n_boot = check_int("n_boot", n_boot, minimum=100)
    betas, samples, shared = _shape_inputs(errors, betas)
    gam = np.arange(0.1, 2.5 + 1e-9, 0.005) if gammas is None else np.asarray(gammas, dtype=float)
    if gam.ndim != 1 or gam.size < 3 or np.any(gam <= 0):
        raise ValueError("gammas must be a 1-D grid of >= 3 positive values")
    rng = _data_rng(betas, *samples[: 1 if shared else None]) if rng is None else check_rng(rng)
    ells = np.log(1 / betas)
    J = betas.size
    # point estimates and bootstrap of the quantiles (jointly when one sample serves every β)
    qhat = np.empty(J)
    qboot = np.empty((n_boot, J))
    if shared:
        xs = np.sort(samples[0])
        R = xs.size
        ranks = np.array([_order_rank(R, b) for b in betas])
        uniq, inv = np.unique(ranks, return_inverse=True)
        qhat = xs[ranks - 1]
        qboot = _boot_order_stats(xs, uniq, n_boot, rng)[:, inv]
    else:
        for i, (b, e) in enumerate(zip(betas, samples)):
            xs = np.sort(e)
            r = _order_rank(xs.size, b)
            qhat[i] = xs[r - 1]
            qboot[:, i] = _boot_order_stats(xs, [r], n_boot, rng)[:, 0]
    qint = np.empty((J, 2))
    for i, (b, e) in enumerate(zip(betas, samples)):
        try:
            qint[i, 0] = quantile_lower_bound(e, 1 - b, alpha / 2)
        except ValueError:
            qint[i, 0] = -np.inf
        try:
            qint[i, 1] = quantile_upper_bound(e, 1 - b, alpha / 2)
        except ValueError:
            qint[i, 1] = np.inf
    var = np.var(qboot, axis=0, ddof=1)
    var = np.maximum(var, 1e-12 * max(1.0, float(np.max(np.abs(qhat))) ** 2) + 1e-300)
    w = 1.0 / np.sqrt(var)

    # residual makers of the weighted design [1, ℓ^γ] for every γ: SSE_γ(q) = || M_γ (w·q) ||²
    def makers(gs):
        out = np.empty((gs.size, J, J))
        for i, g in enumerate(gs):
            X = np.column_stack([np.ones(J), ells**g]) * w[:, None]
            Q, _ = np.linalg.qr(X)
            out[i] = np.eye(J) - Q @ Q.T
        return out

    M = makers(gam)
    wq = qhat * w
    sse = np.einsum("gij,j->gi", M, wq)
    sse = np.sum(sse**2, axis=1)
    gi = int(np.argmin(sse))
    g_lo, g_hi = gam[max(gi - 1, 0)], gam[min(gi + 1, gam.size - 1)]
    res = optimize.minimize_scalar(lambda g: _wsse(g, ells, w, qhat), bounds=(g_lo, g_hi), method="bounded")
    gamma = float(res.x) if res.success else float(gam[gi])
    a, b = _wls_ab(gamma, ells, w, qhat)
    wqb = qboot * w
    sseb = np.sum(np.einsum("gij,bj->bgi", M, wqb) ** 2, axis=2)  # (B, G)
    gboot = gam[np.argmin(sseb, axis=1)]
    g_int = (float(np.percentile(gboot, 100 * alpha / 2)), float(np.percentile(gboot, 100 * (1 - alpha / 2))))
    # nested regression q = a + b sqrt(ℓ) + c ℓ
    Xn = np.column_stack([np.ones(J), np.sqrt(ells), ells]) * w[:, None]
    coef = np.linalg.lstsq(Xn, wq, rcond=None)[0]
    coefb = np.linalg.lstsq(Xn, wqb.T, rcond=None)[0].T
    pct = lambda v: [float(np.percentile(v, 100 * alpha / 2)), float(np.percentile(v, 100 * (1 - alpha / 2)))]
    nested = {"a": float(coef[0]), "b": float(coef[1]), "c": float(coef[2]),
              "b_interval": pct(coefb[:, 1]), "c_interval": pct(coefb[:, 2])}
    if g_int[1] < 0.75:
        preferred = "sqrt"
    elif 0.75 < g_int[0] and g_int[1] < 1.25:
        preferred = "linear"
    elif g_int[0] > 1.25:
        preferred = "heavier"
    else:
        preferred = "undecided"
    return QuantileShape(
        betas=betas, ells=ells, quantiles=qhat, quantile_intervals=qint,
        n_reps=np.array([e.size for e in samples]), gamma=gamma, gamma_interval=g_int, a=a, b=b, nested=nested,
        sse_sqrt=_wsse(0.5, ells, w, qhat), sse_linear=_wsse(1.0, ells, w, qhat), preferred=preferred,
        alpha=alpha, n_boot=n_boot,
    )


def _wls_ab(g, ells, w, q):
    X = np.column_stack([np.ones_like(ells), ells**g]) * w[:, None]
    (a, b), *_ = np.linalg.lstsq(X, q * w, rcond=None)
    return float(a), float(b)


def _wsse(g, ells, w, q) -> float:
    a, b = _wls_ab(g, ells, w, q)
    return float(np.sum((w * (q - a - b * ells**g)) ** 2))


def check_quantile_shape(
    errors,
    betas: Sequence[float] | None = None,
    *,
    gamma: float = 0.5,
    tolerance: float = 0.25,
    alpha: float = 0.05,
    n_boot: int = 1000,
    rng: np.random.Generator | None = None,
    name: str = "",
    provenance: Provenance | dict | None = None,
    seed: int | None = None,
) -> CheckResult:
    """Test the claim "the (1−β)-quantile grows like ``log(1/β)^gamma``" with the three-outcome rule on the
    bootstrap interval of γ (consistent: inside ``[gamma − tol, gamma + tol]``; violated: disjoint; else
    inconclusive).  The default ``gamma=0.5, tolerance=0.25`` separates a sqrt-log tail from a linear-log tail
    (γ = 1 lies outside the band)."""
    t0 = time.perf_counter()
    gamma = check_positive("gamma", gamma)
    tolerance = check_positive("tolerance", tolerance)
    shape = quantile_shape(errors, betas, alpha=alpha, n_boot=n_boot, rng=rng)
    verdict = three_outcome_verdict(shape.gamma_interval, gamma, tolerance)
    lo, hi = shape.gamma_interval
    summary = (
        f"(1-β)-quantile ≈ {shape.a:.3g} + {shape.b:.3g}·log(1/β)^{shape.gamma:.3f} "
        f"(γ {100 * (1 - alpha):g}% CI [{lo:.3f}, {hi:.3f}]) vs claimed γ = {gamma:g} ± {tolerance:g}: {verdict}"
    )
    if isinstance(provenance, dict):
        provenance = Provenance(**provenance)
    return CheckResult(
        name=name or "quantile_shape",
        verdict=verdict,
        statistic="gamma",
        estimate=shape.gamma,
        interval=shape.gamma_interval,
        alpha=alpha,
        n_samples=int(shape.n_reps.max()),
        seconds=time.perf_counter() - t0,
        seed=seed,
        provenance=provenance or Provenance(),
        summary=summary,
        details={"shape": shape.to_dict(), "band": [gamma - tolerance, gamma + tolerance]},
    )
