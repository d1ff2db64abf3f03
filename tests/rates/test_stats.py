"""Tests of the exact statistics core (htdp_verify.stats).

Validity is tested, not assumed: each coverage test draws R = 20 000 binomial counts at a fixed (p, n) and counts
how often the bound misses the truth.  The nominal miss rate is ≤ α = 0.05.  We assert with an exact binomial
test at level 1e-4 (Bonferroni over the points of one test) that the miss rate is not above α; with R = 20 000 this
test rejects a true miss rate of 0.06 with probability > 0.9 (checked by `test_coverage_test_has_power`), so a
bound that under-covers by ≥ 1 percentage point would be caught.
"""

import math

import numpy as np
import pytest
from scipy import stats as sst
from statsmodels.stats.proportion import proportion_confint

from htdp_verify import stats

R = 20_000
POINTS = [(0.001, 50), (0.01, 500), (0.05, 40), (0.3, 15), (0.5, 1000), (0.9, 200), (0.999, 2000)]
TEST_LEVEL = 1e-4


def test_cp_matches_statsmodels():
    for k, n in [(0, 10), (3, 10), (10, 10), (17, 1000), (999, 1000)]:
        lo, hi = stats.cp_interval(k, n, 0.05)
        slo, shi = proportion_confint(k, n, 0.05, method="beta")
        assert lo == pytest.approx(slo, abs=1e-12)
        assert hi == pytest.approx(shi, abs=1e-12)


def test_cp_vectorised_equals_scalar():
    k = np.array([0, 1, 5, 20])
    lo = stats.cp_lower(k, 20, 0.05)
    assert all(lo[i] == pytest.approx(stats.cp_lower(int(k[i]), 20, 0.05)) for i in range(4))


@pytest.mark.parametrize("p,n", POINTS)
def test_two_sided_cp_coverage(p, n):
    rng = np.random.default_rng(1000 + n)
    k = rng.binomial(n, p, size=R)
    lo, hi = stats.cp_interval(k, n, 0.05)
    miss = int(np.sum((lo > p) | (hi < p)))
    res = stats.exceedance_test(miss, R, 0.05, TEST_LEVEL)
    assert res.verdict == "consistent", f"non-coverage {miss / R:.4f} at p={p}, n={n}"


@pytest.mark.parametrize("p,n", POINTS)
def test_one_sided_cp_coverage(p, n):
    rng = np.random.default_rng(2000 + n)
    k = rng.binomial(n, p, size=R)
    miss_lo = int(np.sum(stats.cp_lower(k, n, 0.05) > p))
    miss_hi = int(np.sum(stats.cp_upper(k, n, 0.05) < p))
    for miss in (miss_lo, miss_hi):
        assert stats.exceedance_test(miss, R, 0.05, TEST_LEVEL).verdict == "consistent"


@pytest.mark.parametrize(
    "p1,eps,n,delta",
    [(0.5, 0.1, 2000, 0.0), (0.2, 1.0, 500, 0.0), (0.02, 2.0, 20_000, 0.0), (0.5, 0.5, 1000, 0.05)],
)
def test_epsilon_lower_bound_validity(p1, eps, n, delta):
    """Worst case for validity: the event's true ratio is exactly at the claimed (ε, δ) boundary."""
    p2 = (p1 - delta) * math.exp(-eps)
    rng = np.random.default_rng(int(1e6 * p1) + n)
    k1 = rng.binomial(n, p1, size=R)
    k2 = rng.binomial(n, p2, size=R)
    lb = stats.epsilon_lower_bound(k1, n, k2, n, 0.05, delta=delta)
    miss = int(np.sum(lb > eps))
    assert stats.exceedance_test(miss, R, 0.05, TEST_LEVEL).verdict == "consistent"
    dlb = stats.delta_lower_bound(k1, n, k2, n, eps, 0.05)
    assert stats.exceedance_test(int(np.sum(dlb > delta)), R, 0.05, TEST_LEVEL).verdict == "consistent"


def test_coverage_test_has_power():
    """Test the tester: a 'bound' whose true miss rate is 0.06 (> 0.05) is caught at R draws in > 90% of runs."""
    crit_power = sst.binom.sf(stats._critical_count(R, 0.05, TEST_LEVEL) - 1, R, 0.06)
    assert crit_power > 0.9
    # and an actually broken interval (normal approximation at small n·p) is flagged
    rng = np.random.default_rng(7)
    p, n = 0.01, 100
    k = rng.binomial(n, p, size=R)
    phat = k / n
    half = 1.96 * np.sqrt(phat * (1 - phat) / n)
    miss = int(np.sum((phat - half > p) | (phat + half < p)))
    assert stats.exceedance_test(miss, R, 0.05, TEST_LEVEL).verdict == "violated"


def test_quantile_upper_bound_coverage():
    rng = np.random.default_rng(11)
    n, q, reps = 200, 0.9, 4000
    x = rng.standard_cauchy(size=(reps, n))
    true_q = math.tan(math.pi * (q - 0.5))
    ub = np.array([stats.quantile_upper_bound(row, q, 0.05) for row in x])
    lb = np.array([stats.quantile_lower_bound(row, q, 0.05) for row in x])
    for miss in (int(np.sum(ub < true_q)), int(np.sum(lb > true_q))):
        assert stats.exceedance_test(miss, reps, 0.05, TEST_LEVEL).verdict == "consistent"


def test_quantile_bound_needs_enough_samples():
    with pytest.raises(ValueError, match="needs >= 29"):
        stats.quantile_upper_bound(np.arange(10.0), 0.9, 0.05)


def test_exceedance_test_exact_pvalue_and_design():
    res = stats.exceedance_test(12, 100, 0.05, 0.05)
    assert res.pvalue == pytest.approx(sst.binom.sf(11, 100, 0.05))
    assert res.verdict == "violated"
    assert stats.exceedance_test(5, 100, 0.05).verdict == "consistent"
    n = stats.samples_needed_for_exceedance(0.05, 0.1, 0.05, 0.8)
    c = stats._critical_count(n, 0.05, 0.05)
    assert sst.binom.sf(c - 1, n, 0.1) >= 0.8
    c1 = stats._critical_count(n - 1, 0.05, 0.05)
    assert sst.binom.sf(c1 - 1, n - 1, 0.1) < 0.8 or n - 1 < 1


def test_max_certifiable_epsilon_matches_anchor_values():
    # ../shared/specs/anchors_dp_auditing.md §3.3: 3.28 / 5.60 / 7.91 for n = 1e2 / 1e3 / 1e4 at alpha = 0.05
    for n, v in [(100, 3.28), (1000, 5.60), (10_000, 7.91)]:
        assert stats.max_certifiable_epsilon(n, 0.05) == pytest.approx(v, abs=0.01)


def test_samples_needed_for_epsilon_is_minimal_and_sufficient():
    p1, eps = 0.5, 0.1
    p2 = p1 * math.exp(-eps)
    n = stats.samples_needed_for_epsilon(0.09, p1, p2, 0.05, power=0.5)
    # at n the median-count bound certifies 0.09; at 0.9 n it does not
    k1, k2 = int(sst.binom.ppf(1 - math.sqrt(0.5), n, p1)), int(sst.binom.ppf(math.sqrt(0.5), n, p2))
    assert stats.epsilon_lower_bound(k1, n, k2, n, 0.05) >= 0.09
    m = int(0.9 * n)
    k1, k2 = int(sst.binom.ppf(1 - math.sqrt(0.5), m, p1)), int(sst.binom.ppf(math.sqrt(0.5), m, p2))
    assert stats.epsilon_lower_bound(k1, m, k2, m, 0.05) < 0.09
    with pytest.raises(ValueError, match="epsilon_target"):
        stats.samples_needed_for_epsilon(0.2, p1, p2)


def test_budget_refuses_to_overspend_and_prints_ledger():
    b = stats.Budget(0.05)
    b.spend("search", 0.01)
    b.spend("final", 0.04)
    assert b.remaining == pytest.approx(0.0)
    with pytest.raises(stats.BudgetExceededError, match="final2"):
        b.spend("final2", 0.001)
    text = b.ledger()
    assert "search" in text and "final" in text and "0.05" in text


@pytest.mark.parametrize(
    "call,param",
    [
        (lambda: stats.cp_lower(5, 3, 0.05), "k"),
        (lambda: stats.cp_lower(-1, 3, 0.05), "k"),
        (lambda: stats.cp_upper(1, 0, 0.05), "n"),
        (lambda: stats.cp_interval(1, 10, 1.5), "alpha"),
        (lambda: stats.cp_lower(1.5, 10, 0.05), "k"),
        (lambda: stats.epsilon_lower_bound(1, 10, 1, 10, 0.05, delta=-0.1), "delta"),
        (lambda: stats.delta_lower_bound(1, 10, 1, 10, -1.0, 0.05), "epsilon"),
        (lambda: stats.exceedance_test(3, 10, 0.0), "beta"),
        (lambda: stats.Budget(0), "alpha"),
        (lambda: stats.max_certifiable_epsilon(0), "n"),
        (lambda: stats.quantile_upper_bound([np.nan, 1.0], 0.5), "x"),
    ],
)
def test_bad_input_names_parameter(call, param):
    with pytest.raises(ValueError, match=param):
        call()


@pytest.mark.parametrize("p1,eps,lam", [(0.5, 0.1, 2000), (0.02, 2.0, 20_000), (0.001, 0.5, 5000), (0.3, 0.0, 500)])
def test_poisson_conditional_bound_validity(p1, eps, lam):
    """Poissonised counts at the boundary p1 = e^ε p2: the bound exceeds the true ε w.p. ≤ α (R draws)."""
    p2 = p1 * math.exp(-eps)
    rng = np.random.default_rng(int(p1 * 1e4) + lam)
    k1, k2 = rng.poisson(lam * p1, R), rng.poisson(lam * p2, R)
    miss = int(np.sum(stats.epsilon_lower_bound_poisson(k1, k2, 0.05) > eps))
    assert stats.exceedance_test(miss, R, 0.05, TEST_LEVEL).verdict == "consistent"


def test_poisson_bound_is_tighter_for_balanced_events_and_handles_unequal_sizes():
    n, p1, p2 = 10**6, 0.05, 0.05 * math.exp(-0.5)
    k1, k2 = int(n * p1), int(n * p2)
    assert stats.epsilon_lower_bound_poisson(k1, k2, 0.05) > stats.epsilon_lower_bound(k1, n, k2, n, 0.05)
    # unequal expected sizes: doubling lam2 doubles k2's mean and the bound corrects for it
    a = stats.epsilon_lower_bound_poisson(k1, k2, 0.05)
    b = stats.epsilon_lower_bound_poisson(k1, 2 * k2, 0.05, lam1=n, lam2=2 * n)
    assert b == pytest.approx(a, abs=5e-3)  # same ratio; b is slightly tighter (more trials)
    assert stats.epsilon_lower_bound_poisson(0, 10, 0.05) == 0.0
    with pytest.raises(ValueError, match="k1"):
        stats.epsilon_lower_bound_poisson(-1, 3, 0.05)
