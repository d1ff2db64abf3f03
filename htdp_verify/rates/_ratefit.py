"""The result of an exponent fit: :class:`RateFit` (defined here, re-exported by :mod:`htdp_verify.rates.exponent`
and :mod:`htdp_verify.rates`), with its design methods.

:func:`~htdp_verify.rates.fit_rate` builds it; :func:`~htdp_verify.rates.check_rate` reads its interval and its
design methods (how many replications would decide, the smallest detectable deviation from the band).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy import stats as _st

from .._validate import check_positive, check_prob

__all__ = ["RateFit"]


@dataclass
class RateFit:
    """A fitted exponent ``summary(error) ≈ exp(intercept) · x^exponent`` with its confidence interval.

    Design (TFP-style) methods: :meth:`reps_needed` (replications for a target CI half-width),
    :meth:`reps_needed_for_tolerance` (replications so that a correct rate passes an equivalence test with
    tolerance ``tol`` with probability ``power``) and :meth:`min_detectable_deviation` (how far outside the
    tolerance band a wrong exponent must lie to be detected with probability ``power``).

    Parameters
    ----------
    variable : str
        The swept variable.
    summary : str
        The statistic of the error per grid value.
    method : str
        ``"bootstrap"`` or ``"theilsen"``: where ``exponent`` and ``interval`` come from.
    exponent : float
        The fitted exponent.
    interval : tuple
        Its two-sided ``1 − alpha`` confidence interval.
    alpha : float
        Level of the intervals.
    intercept : float
        The fitted log-scale intercept.
    x : numpy.ndarray
        The grid values.
    summaries : numpy.ndarray
        The summary of the error at each grid value.
    n_reps : numpy.ndarray
        Replications per grid value.
    se : float
        Standard error of the exponent.
    n_boot : int
        Bootstrap resamples.
    local_slopes : numpy.ndarray
        Slopes between consecutive grid values.
    local_intervals : numpy.ndarray
        Their bootstrap intervals.
    slope_change : float
        Change of the local slope across the grid (quadratic fit in log x).
    slope_change_interval : tuple
        Its bootstrap interval.
    crossover : bool
        Whether the slope changes significantly (a :class:`CrossoverWarning` was warranted).
    theilsen : dict, optional
        The Theil–Sen fit, kept as a cross-check.
    bootstrap_exponent : float, optional
        The bootstrap fit's exponent, kept as a cross-check.
    bootstrap_interval : tuple, optional
        Its interval.
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
        """Replications per cell for a CI half-width ``halfwidth`` (width ∝ 1/sqrt(reps); same grid).

        Parameters
        ----------
        halfwidth : float
            The target half-width of the interval.

        Returns
        -------
        int
            Replications per cell.
        """
        halfwidth = check_positive("halfwidth", halfwidth)
        return int(math.ceil(int(self.n_reps.min()) * (self.halfwidth / halfwidth) ** 2))

    def reps_needed_for_tolerance(self, tolerance: float, power: float = 0.8) -> int:
        """Replications per cell so that a *correct* exponent (at the band centre) gives a CI inside
        ``[r0 − tolerance, r0 + tolerance]`` with probability ≈ ``power`` (normal approximation of the fit).

        Parameters
        ----------
        tolerance : float
            Half-width of the band.
        power : float, default 0.8
            Required probability.

        Returns
        -------
        int
            Replications per cell.
        """
        tolerance = check_positive("tolerance", tolerance)
        power = check_prob("power", power)
        z = _st.norm.ppf(1 - self.alpha / 2) + _st.norm.ppf(power)
        se_target = tolerance / z
        return int(math.ceil(int(self.n_reps.min()) * (self.se / se_target) ** 2))

    def min_detectable_deviation(self, power: float = 0.8) -> float:
        """Smallest distance outside the tolerance band at which a wrong exponent is declared *violated* with
        probability ≈ ``power``: ``halfwidth + z_power · se``.

        Parameters
        ----------
        power : float, default 0.8
            Required probability of detection.

        Returns
        -------
        float
            The distance outside the band.
        """
        power = check_prob("power", power)
        return float(self.halfwidth + _st.norm.ppf(power) * self.se)

    def local_table(self) -> Any:
        """MMS-style table: consecutive grid pairs, their local slope and its bootstrap interval.

        Returns
        -------
        pandas.DataFrame
            One row per consecutive pair of grid values.
        """
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
        """A few lines: the fit, its CI, and the local slopes (what an assertion message shows).

        Returns
        -------
        str
            The description.
        """
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
