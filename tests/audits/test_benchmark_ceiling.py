"""The oracle ceiling of the benchmark (``audits/bench_ceiling.py``) and the mixed-feature attack.

The ceiling is deterministic (exact laws, expected counts), so its tests compare it with closed forms computed
here independently, and check the properties that make it a ceiling: below the true ε, increasing in the
budget, and reached by the closed-form best event where that is known.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from _auditcheck import strict_epsilon_lb
from audits import benchmark as B
from audits.benchmark import ceiling as C
from audits.benchmark.catalogue import get_mechanism
from htdp_verify.stats import epsilon_lower_bound_poisson


def test_partitions_are_probability_vectors():
    for name in C.CEILING_MECHANISMS:
        m = B.get_mechanism(name)
        for p in m.pairs:
            probs = C.partition_probabilities(name, p.d, p.d_prime)
            if probs is None:
                continue
            for P in probs:
                assert np.all(P >= 0)
                assert abs(P.sum() - 1) < 1e-5, (name, p.label, P.sum())


def test_rnm3_ceiling_matches_closed_form_event():
    # q = 1^5 vs 2^5 ("all above"): the event {max <= 1} has probabilities 2^-5 and 2^-5 e^{-5/20}; on it the
    # density ratio is exactly e^{0.25}, the sup, so no event beats it by more than grid resolution.
    n = 20_000_000
    c = C.oracle_ceiling("ReportNoisyMax3", n)
    p1 = 0.5**5
    p2 = p1 * math.exp(-0.25)
    closed = float(epsilon_lower_bound_poisson(math.floor(n * p1), math.floor(n * p2), 0.05))
    assert closed - 1e-4 <= c["epsilon"] <= 0.25
    assert abs(c["event_probability"] - p1) < 2e-3
    # the fact the benchmark table relies on: DP-Sniper's published 0.2478 / 0.2488 are out of reach here
    assert c["epsilon"] < 0.2478


def test_svt4_ceiling_below_dpsniper_and_true():
    c = C.oracle_ceiling("SVT4", 20_000_000)
    assert 0.16 < c["epsilon"] < 0.1687 < 0.175
    assert c["pair"] in ("half-half", "X-shape")


def test_prefix_sum_ceiling_is_the_orthant_of_every_shifted_query():
    # all ten queries move by 1 (N∞): the loss is largest (ε = 10 · 0.1 = 1) on the orthant where every query's
    # noise lies beyond its shift, of probability 2^-10 vs (e^{-0.1}/2)^10; the oracle's best event is that orthant
    # up to the grid's resolution (its top cell also holds loss values within 0.1/2000 of the maximum)
    n = 20_000_000
    c = C.oracle_ceiling("PrefixSum", n)
    p1, p2 = 0.5**10, (0.5 * math.exp(-0.1)) ** 10
    closed = float(epsilon_lower_bound_poisson(math.floor(n * p1), math.floor(n * p2), 0.05))
    assert abs(c["epsilon"] - closed) < 0.01 and c["epsilon"] < 1.0
    assert abs(c["log_ratio"] - 1.0) < 1e-3 and abs(c["event_probability"] / p1 - 1) < 0.1
    # one query shifted: the same law as PrefixSum_N1's single coordinate (0.1 at the half-line)
    one = C.partition_probabilities("PrefixSum", np.r_[1.0, np.zeros(9)], np.zeros(10))
    assert one is not None and C._best_prefix(*one, n, 0.05)[0] == pytest.approx(
        C.oracle_ceiling("PrefixSum_N1", n)["epsilon"], abs=2e-4
    )


def test_ceiling_below_true_epsilon_and_monotone_in_budget():
    for name in ("Laplace", "TruncatedGeometric", "ReportNoisyMax2", "RAPPOR", "PrefixSum"):
        true = B.get_mechanism(name).true_epsilon
        small = C.oracle_ceiling(name, 10_000)["epsilon"]
        big = C.oracle_ceiling(name, 10_000_000)["epsilon"]
        assert 0 <= small < big <= true, (name, small, big)
    # confidence costs: 90 % gives a higher ceiling than 95 %
    assert C.oracle_ceiling("Laplace", 10**6, 0.10)["epsilon"] > C.oracle_ceiling("Laplace", 10**6, 0.05)["epsilon"]


def test_laplace_ceiling_matches_half_line_formula():
    # one below (0 vs 1): the half-line {y >= 1} has P = 1/2 vs e^{-0.1}/2 and ratio exactly e^{0.1}
    n = 10**7
    c = C.oracle_ceiling("Laplace", n)
    closed = float(epsilon_lower_bound_poisson(n // 2, math.floor(n * 0.5 * math.exp(-0.1)), 0.05))
    assert abs(c["epsilon"] - closed) < 2e-4


def test_ceiling_is_none_without_exact_law_and_validates():
    assert C.oracle_ceiling("NumericalSVT", 10**6) is None
    with pytest.raises(ValueError, match="alpha"):
        C.oracle_ceiling("Laplace", 10**6, alpha=1.5)
    with pytest.raises(ValueError, match="n_per_side"):
        C.oracle_ceiling("Laplace", 0)
    with pytest.raises(ValueError, match="name must be one of"):
        C.oracle_ceiling("NoSuchMechanism", 10**6)


# ---- MixedFeatures / MixedLogisticAttack -------------------------------------------------------------------
from htdp_verify.claims import PrivacyClaim  # noqa: E402
from htdp_verify.privacy import audit  # noqa: E402
from htdp_verify.privacy.attacks import ATTACK_NAMES, MixedFeatures, MixedLogisticAttack  # noqa: E402


def test_mixed_features_atoms_and_columns():
    rng = np.random.default_rng(0)
    n = 20_000
    codes = rng.choice([-1.0, 0.0, 1.0], size=n)  # purely discrete column
    val = np.where(rng.random(n) < 0.3, -1000.0, rng.normal(5.0, 2.0, n))  # sentinel atom + continuous part
    X = np.stack([codes, val], axis=1)
    for trend, per_cont in ((None, 1), ("linear", 2), ("tanh", 2)):
        mf = MixedFeatures(X, trend=trend)
        assert [a.tolist() for a in mf.atoms] == [[-1.0, 0.0, 1.0], [-1000.0]]
        F = mf(X)
        assert F.shape == (n, 3 + 1 + per_cont) == (n, mf.n_features)
        np.testing.assert_array_equal(F[:, 3], val == -1000.0)
        sign = F[:, -1]
        assert set(np.unique(sign[val == -1000.0])) == {0.0}  # no continuous signal on atoms
        assert abs(np.mean(sign[val != -1000.0])) < 0.05  # split at the median
    with pytest.raises(ValueError, match="trend"):
        MixedFeatures(X, trend="cubic")
    with pytest.raises(ValueError, match="trend"):
        MixedLogisticAttack(trend="cubic")
    assert "mixed_logistic" in ATTACK_NAMES


def _sparse_release(d, size, rng, scale):
    """A mixed release: code 0 (nothing) or the noisy answer d + Lap(scale) when a fair coin says so."""
    y = float(d) + rng.laplace(0.0, scale, size)
    return np.where(rng.random(size) < 0.5, 0.0, y).reshape(size, 1)


def test_mixed_logistic_power_and_validity():
    # The released value leaks ε = 1/scale through its location only (the coin is independent of d): true ε
    # = 1.0 for scale 1.  Claimed 0.5 must be flagged; claimed 1.0 (true) must not be.  α = 0.05 per audit;
    # the violation has margin 0.5 at 2·10⁵ releases per side, far above the resolution (~0.05).
    mech = lambda d, size, rng: _sparse_release(d, size, rng, 1.0)  # noqa: E731
    r = audit(
        mech,
        PrivacyClaim(0.5),
        pairs=(0.0, 1.0),
        n_samples=200_000,
        attacks=[MixedLogisticAttack(trend=None)],
        rng=np.random.default_rng(5),
    )
    assert r.verdict == "violated", r.report()
    assert strict_epsilon_lb(r) <= 1.0  # validity at α = 1e-3 (tests/_auditcheck.py)
    r2 = audit(
        mech,
        PrivacyClaim(1.0),
        pairs=(0.0, 1.0),
        n_samples=200_000,
        attacks=[MixedLogisticAttack(trend="linear")],
        rng=np.random.default_rng(6),
    )
    assert r2.verdict != "violated", r2.report()


def test_oracle_spread_centres_on_the_ceiling_and_matches_a_normal_approximation():
    # RNM3 at 2·10⁷: the oracle's event {max <= 1} on "all above" has P = 2^-5 and 2^-5 e^-0.25.  Its bound from
    # the conditional test is ~ the log-ratio estimate minus z_0.95 standard errors, so
    # P(bound >= t) ≈ Φ((0.25 - t - 1.645 se) / se) with se = sqrt(1/k1 + 1/k2); 4000 draws give a Monte Carlo
    # s.e. ≤ 0.008, and 0.03 also absorbs the normal approximation's error at these counts (k ≈ 5·10⁵).
    from scipy import stats

    n = 20_000_000
    rng = np.random.default_rng(2)
    s = C.oracle_spread("ReportNoisyMax3", n, target=0.2488, rng=rng)
    c = C.oracle_ceiling("ReportNoisyMax3", n)
    assert s["q05"] < c["epsilon"] < s["q95"]
    assert abs(s["median"] - c["epsilon"]) < 2e-4  # the ceiling is the median of the oracle's bound
    k1, k2 = n * 0.5**5, n * 0.5**5 * math.exp(-0.25)
    se = math.sqrt(1 / k1 + 1 / k2)
    approx = stats.norm.cdf((0.25 - 0.2488 - stats.norm.ppf(0.95) * se) / se)
    assert abs(s["p_reaches_target"] - approx) < 0.03, (s, approx)
    # a target at the ceiling is reached about half the time; one far below it always; one above the true ε never
    half = C.oracle_spread("ReportNoisyMax3", n, target=c["epsilon"], rng=np.random.default_rng(3))
    assert abs(half["p_reaches_target"] - 0.5) < 0.05
    assert C.oracle_spread("ReportNoisyMax3", n, target=0.2, rng=rng)["p_reaches_target"] == 1.0
    assert C.oracle_spread("ReportNoisyMax3", n, target=0.26, rng=rng)["p_reaches_target"] == 0.0


def test_oracle_spread_validates_and_skips_mechanisms_without_a_law():
    with pytest.raises(ValueError, match="rng"):
        C.oracle_spread("Laplace", 10**6, rng=None)
    with pytest.raises(ValueError, match="n_draws"):
        C.oracle_spread("Laplace", 10**6, n_draws=10, rng=np.random.default_rng(0))
    assert C.oracle_spread("SVT6", 10**6, rng=np.random.default_rng(0)) is None
    s = C.oracle_spread("Laplace", 10**6, rng=np.random.default_rng(0))
    assert s["p_reaches_target"] is None and s["q05"] <= s["median"] <= s["q95"]


def test_oracle_spread_at_a_tiny_budget_where_poisson_counts_exceed_n():
    """NoisyHist2's best event holds nearly every release on one side: at 3 010 releases per side simulated Poisson
    counts exceed n, which crashed the Clopper–Pearson pair (a red-team finding: a bench run at n_per_side 10³)."""
    s = C.oracle_spread("NoisyHist2", 3010, 0.05, rng=np.random.default_rng(0))
    assert s is not None and 0 <= s["q05"] <= s["median"] <= s["q95"]


def test_oracle_by_pair_ranks_every_pair_and_its_best_is_the_ceiling():
    # SVT4 at the bench's certification size: the ceiling is the best pair's oracle; the in-domain extreme pair
    # (a single outcome of probability ~0.0025) is worse than half-half, and the lone-query pairs far worse.
    n = 14_545_454
    by_pair = C.oracle_by_pair("SVT4", n)
    best = C.oracle_ceiling("SVT4", n)
    assert set(by_pair) == {p.label for p in get_mechanism("SVT4").pairs}
    assert max(v["epsilon"] for v in by_pair.values()) == best["epsilon"]
    assert by_pair[best["pair"]]["event_probability"] == best["event_probability"]
    extreme = next(v for k, v in by_pair.items() if k.startswith("in-domain extreme"))
    assert extreme["epsilon"] < 0.97 * by_pair["half-half"]["epsilon"]
    assert extreme["event_probability"] < 0.01 < by_pair["half-half"]["event_probability"]
    assert C.oracle_by_pair("LaplaceParallel", n) is None


def test_oracle_draws_is_the_spread_of_one_event():
    # the same draws as oracle_spread for the ceiling's event, and for a pair's event its median is that pair's
    # oracle bound (4000 draws: the median's Monte Carlo error is ~1 % of the 5-95 % width)
    n = 14_545_454
    c = C.oracle_ceiling("SVT1", n)
    a = C.oracle_draws(c["event_probability"], c["event_probability_den"], n, 0.05, 4000, np.random.default_rng(9))
    s = C.oracle_spread("SVT1", n, rng=np.random.default_rng(9))
    assert np.median(a) == s["median"]
    hh = C.oracle_by_pair("SVT1", n)["half-half"]
    d = C.oracle_draws(hh["event_probability"], hh["event_probability_den"], n, 0.05, 4000, np.random.default_rng(1))
    q05, q95 = np.quantile(d, [0.05, 0.95])
    assert abs(np.median(d) - hh["epsilon"]) < 0.02 * (q95 - q05)
