"""Quantile shapes on the edge of their γ grid are censored; tail checks state their power.

Fixed seeds throughout.  The quantile laws are chosen so that the outcome is far from any decision boundary:
1/U (Pareto with index 1) has (1−β)-quantile exactly 1/β = e^ℓ, which no a + b·ℓ^γ with γ ≤ 2.5 follows (the
fit runs into the upper end of the grid on every resample); U itself has quantile 1 − e^{−ℓ}, which saturates, so
the fit runs into the lower end.  Before censoring existed, both were reported as a value (the grid end) and as
"consistent" with a band that contains the grid end.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from htdp_verify.claims import TailBoundClaim
from htdp_verify.rates import check_quantile_shape, check_tail_bound, quantile_shape
from htdp_verify.results import CheckResult

BETAS = [0.5, 0.1, 0.02, 0.005, 0.001]


def test_shape_above_the_grid_is_censored_and_not_consistent():
    e = 1.0 / np.random.default_rng(3).uniform(size=20_000)
    shape = quantile_shape(e, BETAS)
    assert shape.censored == "above" and shape.gamma == pytest.approx(2.5)
    assert shape.interval_censored[1] and math.isinf(shape.gamma_interval[1])
    assert "censored" in shape.describe()
    # the band contains the grid end: the old rule said "consistent" with estimate 2.5
    res = check_quantile_shape(e, BETAS, gamma=2.4, tolerance=0.2)
    assert res.verdict == "inconclusive"
    assert math.isnan(res.estimate)
    assert "censored" in res.summary and res.details["censored"] == "above"
    back = CheckResult.from_json(res.to_json())
    assert back.verdict == "inconclusive" and math.isinf(back.interval[1])


def test_shape_below_the_grid_is_censored_and_not_consistent():
    e = np.random.default_rng(4).uniform(size=20_000)
    shape = quantile_shape(e, BETAS)
    assert shape.censored == "below" and shape.interval_censored[0] and shape.gamma_interval[0] == 0.0
    res = check_quantile_shape(e, BETAS, gamma=0.2, tolerance=0.2)  # band [0, 0.4] holds the grid end 0.1
    assert res.verdict == "inconclusive" and math.isnan(res.estimate)


def test_censored_shape_can_still_be_violated():
    """A censored fit's finite interval end is a valid bound: γ ≥ 2.5 clears a band [0.25, 0.75]."""
    e = 1.0 / np.random.default_rng(5).uniform(size=20_000)
    assert check_quantile_shape(e, BETAS).verdict == "violated"


def test_uncensored_shape_states_its_power():
    """|N(0,1)|: γ ≈ 0.55, inside 0.5 ± 0.25; the result says how far outside the band a γ is detected."""
    e = np.abs(np.random.default_rng(6).standard_normal(20_000))
    res = check_quantile_shape(e, BETAS)
    assert res.verdict == "consistent" and not res.details["censored"]
    mdd = res.details["min_detectable_deviation"]
    assert 0 < mdd < 0.25 and "detected with probability" in res.summary


def _rejects(k, n, beta, alpha):
    return stats.binom.sf(k - 1, n, beta) <= alpha


def test_tail_power_is_the_exact_binomial_power_of_the_test():
    """The stated power at 2β equals the rejection probability of the test computed by brute force over counts,
    for the pooled test (every cell and one cell failing) and for the per-cell test."""
    rng = np.random.default_rng(7)
    cells = [np.abs(rng.standard_normal(n)) for n in (150, 300, 300)]
    claim = TailBoundClaim(0.05)
    res = check_tail_bound(cells, 1.96, claim)
    assert res.verdict == "consistent"
    row = res.details["power_at"][0]
    assert row["rate"] == pytest.approx(0.10)
    N = 750
    k = np.arange(N + 1)
    crit = k[np.array([_rejects(int(j), N, 0.05, 0.05) for j in k])][0]
    assert row["every_cell"] == pytest.approx(stats.binom.sf(crit - 1, N, 0.10), rel=1e-9)
    pmf = np.convolve(stats.binom.pmf(np.arange(151), 150, 0.10), stats.binom.pmf(np.arange(601), 600, 0.05))
    assert row["one_cell"] == pytest.approx(pmf[crit:].sum(), rel=1e-6) and row["one_cell_reps"] == 150
    assert "Power (exact binomial)" in res.summary and "2β = 0.1" in res.summary
    per = check_tail_bound(cells, 1.96, claim, per_cell=True).details["power_at"][1]
    p_cells = [stats.binom.sf(int(stats.binom.isf(0.05 / 3, n, 0.05)), n, 0.15) for n in (150, 300, 300)]
    assert per["every_cell"] == pytest.approx(1 - np.prod([1 - p for p in p_cells]), rel=1e-9)


def test_underpowered_tail_check_says_so():
    """20 replications at β = 0.05: a consistent verdict that could hardly have failed shows power < 0.3 at 2β."""
    e = np.abs(np.random.default_rng(8).standard_normal(20))
    res = check_tail_bound(e, 1.96, TailBoundClaim(0.05))
    assert res.verdict == "consistent"
    assert res.details["power_at"][0]["every_cell"] < 0.3
    assert "0.1: 0." in res.summary


def test_tail_alternatives_are_validated():
    e = np.abs(np.random.default_rng(9).standard_normal(100))
    with pytest.raises(ValueError, match="alternatives"):
        check_tail_bound(e, 1.96, TailBoundClaim(0.05), alternatives=[0.04])
    res = check_tail_bound(e, 1.96, TailBoundClaim(0.05), alternatives=[0.2])
    assert [r["rate"] for r in res.details["power_at"]] == [0.2]
