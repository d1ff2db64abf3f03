"""Exact statistics that every verdict of the toolkit is certified with.

Contents
--------
* Clopper–Pearson bounds for a binomial proportion (one- and two-sided), vectorised over counts.
* ε lower bounds from two event counts: pure ε, ε at a given δ, δ at a given ε (α split over the two sides).
* An exact binomial exceedance test (is the failure rate of a high-probability bound ≤ β?) and exact
  order-statistic confidence bounds for a quantile.
* ``Budget``: a family-wise error budget with named spends and a ledger.
* Design functions (TFP-style): the largest ε certifiable with n samples per side, the samples per side needed
  to certify a target ε, and the DKW band width.

Conventions: ``alpha`` is always the total error probability of the statement being made; a two-sided
statement spends ``alpha/2`` on each side.  All bounds are exact (beta quantiles), never normal approximations.

Layout: ``binomial`` (Clopper–Pearson), ``epsilon`` (ε and δ lower bounds from counts), ``exceedance`` (exceedance
test, quantile bounds), ``design`` (``Budget`` and the design functions); every name is importable from here.
"""

from __future__ import annotations

from .binomial import cp_interval, cp_lower, cp_upper
from .design import (
    Budget,
    BudgetExceededError,
    dkw_halfwidth,
    max_certifiable_epsilon,
    samples_needed_for_epsilon,
    samples_needed_for_exceedance,
)
from .epsilon import (
    delta_lower_bound,
    epsilon_lower_bound,
    epsilon_lower_bound_poisson,
    max_certifiable_epsilon_poisson,
)
from .exceedance import ExceedanceResult, exceedance_test, quantile_lower_bound, quantile_upper_bound
from .exceedance import _critical_count as _critical_count

__all__ = [
    "cp_lower",
    "cp_upper",
    "cp_interval",
    "epsilon_lower_bound",
    "epsilon_lower_bound_poisson",
    "max_certifiable_epsilon_poisson",
    "delta_lower_bound",
    "ExceedanceResult",
    "exceedance_test",
    "quantile_upper_bound",
    "quantile_lower_bound",
    "Budget",
    "BudgetExceededError",
    "max_certifiable_epsilon",
    "samples_needed_for_epsilon",
    "dkw_halfwidth",
    "samples_needed_for_exceedance",
]
