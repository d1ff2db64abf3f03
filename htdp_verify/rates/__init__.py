"""Rate checks: exponent fits with confidence intervals, equivalence tests, multi-term fits, and
high-probability (tail) checks.

Where things live
-----------------
=================  ==========================================================================================
module             what it owns
=================  ==========================================================================================
:mod:`.exponent`   :func:`fit_rate` (exponent of a summary of the error, bootstrap or Theil–Sen interval, local
                   slopes, crossover diagnostic), :func:`local_slopes`, and :func:`check_rate`, the equivalence
                   test of a claimed exponent; re-exports :class:`RateFit`
:mod:`.terms`      :func:`fit_terms` / :class:`TermFit`: ``Σ c_j x^{r_j} (log x)^{p_j}`` with known terms
:mod:`.tail`       :func:`check_tail_bound`: exact exceedance test of ``P[error > bound] ≤ β``
:mod:`.shape`      :func:`quantile_shape` / :class:`QuantileShape` / :func:`check_quantile_shape`: the
                   (1−β)-quantile as ``a + b·log(1/β)^γ``
``_common``        input handling, the bootstrap of per-cell summaries, :func:`three_outcome_verdict`,
                   :class:`CrossoverWarning`
``_ratefit``       :class:`RateFit`, the result of :func:`fit_rate`, with its design methods
=================  ==========================================================================================

Imports go one way: the modules import only the private ``_common`` / ``_ratefit`` and the engine's ``stats`` /
``claims`` / ``results``, never each other.

In short
--------
A rate claim ``r ∈ [r0 − tol, r0 + tol]`` gets one of three verdicts from the two-sided ``(1 − α)`` interval of the
fitted exponent: *consistent* (interval inside the band: equivalence established, false pass ≤ α/2), *violated*
(interval disjoint from the band: false failure ≤ α), else *inconclusive* with the replications that would decide
(details in :mod:`.exponent`).  A tail bound is tested exactly from its exceedance count (:mod:`.tail`); the shape
of the (1−β)-quantile in ``log(1/β)`` separates sub-Gaussian (γ = 1/2) from exponential (γ = 1) tails, the central
point of Zhao et al. 2024 (specs/zhao2024_optimal_rates.md §6.3, checks H1–H2; :mod:`.shape`).
"""

from __future__ import annotations

from ._common import (  # noqa: F401 - bootstrap helpers re-exported for tests
    MIN_REPS,
    CrossoverWarning,
    _boot_order_stats,
    _boot_summary,
    three_outcome_verdict,
)
from .exponent import RateFit, check_rate, fit_rate, local_slopes
from .shape import QuantileShape, check_quantile_shape, quantile_shape
from .tail import check_tail_bound
from .terms import TermFit, fit_terms

__all__ = [
    "MIN_REPS",
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
