"""Anytime-valid sequential certification: validity under the stopping rule, power, futility, the audit wiring.

The engine is driven by Bernoulli streams whose event probabilities are those of randomised response (an exactly
tight ε-DP mechanism: the event "output = 1" has p_num / p_den = e^ε exactly) or of an exactly tight (ε, δ) pair
(p_num = e^ε p_den + δ), so hundreds of seeds take seconds.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import binom

from htdp_verify import PrivacyClaim
from htdp_verify.privacy import audit
from htdp_verify.privacy.sequential import checkpoint_alpha, checkpoints, run_sequential
from htdp_verify.stats import epsilon_lower_bound


def rr(eps):
    """Event probabilities of randomised response at ε on its two inputs (numerator, denominator)."""
    return math.exp(eps) / (1 + math.exp(eps)), 1 / (1 + math.exp(eps))


def stream(rng, pn, pd):
    return lambda m: (np.array([rng.binomial(m, pn)]), np.array([rng.binomial(m, pd)]))


# Meta-test design.  Each run's error probability is ALPHA = 0.3 (large so that a miscalibration shows with few
# runs); SEEDS = 400 independent runs (seeds 0..399) of the full stopping rule on a tight mechanism; the checker
# fails when the number of false "violated" exceeds the 0.999 quantile of Binomial(SEEDS, ALPHA), i.e. a correct
# test fails it with probability <= 1e-3.  Smallest effect detected: a true false-violation rate of 0.39 fails it
# with probability ~0.8.  The same checker is shown to fail on a deliberately broken rule (naive peeking).
ALPHA, SEEDS, MAXN, FIRST, GROWTH = 0.3, 400, 5000, 20, 1.2
CRITICAL = int(binom.ppf(0.999, SEEDS, ALPHA))


def false_violations(rule, pn, pd, eps, delta):
    return sum(rule(np.random.default_rng(s), pn, pd, eps, delta) for s in range(SEEDS))


def union_rule(rng, pn, pd, eps, delta):
    o = run_sequential(
        stream(rng, pn, pd),
        1,
        epsilon=eps,
        delta=delta,
        alpha=ALPHA,
        max_samples=MAXN,
        method="union",
        first=FIRST,
        growth=GROWTH,
        futility=None,
    )
    return o.stop_reason == "violated"


def betting_rule(rng, pn, pd, eps, delta):
    o = run_sequential(
        stream(rng, pn, pd),
        1,
        epsilon=eps,
        delta=delta,
        alpha=ALPHA,
        max_samples=MAXN,
        method="betting",
        rng=rng,
        first=FIRST,
        growth=GROWTH,
        futility=None,
    )
    return o.stop_reason == "violated"


def naive_peeking_rule(rng, pn, pd, eps, delta):
    """Broken on purpose: the fixed-n bound at the full α at every checkpoint (no correction for looking often)."""
    kn = kd = n = 0
    for nj in checkpoints(MAXN, FIRST, GROWTH):
        kn += rng.binomial(nj - n, pn)
        kd += rng.binomial(nj - n, pd)
        n = int(nj)
        if epsilon_lower_bound(kn, n, kd, n, ALPHA, delta) > eps:
            return True
    return False


def test_checkpoint_levels_sum_to_alpha_and_schedule_is_fixed():
    j = np.arange(1, 100_001)
    assert checkpoint_alpha(0.05, j).sum() <= 0.05
    s = checkpoints(10_000, 100, 2.0)
    assert list(s) == [100, 200, 400, 800, 1600, 3200, 6400, 10_000]
    assert list(checkpoints(50, 100, 2.0)) == [50]
    with pytest.raises(ValueError, match="growth"):
        checkpoints(100, 10, 1.0)
    with pytest.raises(ValueError, match="futility"):
        run_sequential(
            lambda m: ([0], [0]),
            1,
            epsilon=1.0,
            delta=0.0,
            alpha=0.05,
            max_samples=100,
            futility="maybe",
            rng=np.random.default_rng(0),
        )
    with pytest.raises(ValueError, match="rng"):
        run_sequential(lambda m: ([0], [0]), 1, epsilon=1.0, delta=0.0, alpha=0.05, max_samples=100)
    with pytest.raises(ValueError, match="method"):
        run_sequential(
            lambda m: ([0], [0]),
            1,
            epsilon=1.0,
            delta=0.0,
            alpha=0.05,
            max_samples=100,
            method="peek",
            rng=np.random.default_rng(0),
        )


@pytest.mark.parametrize("rule", [union_rule, betting_rule], ids=["union", "betting"])
@pytest.mark.parametrize("eps,delta", [(1.0, 0.0), (1.0, 0.05)])
def test_false_violation_rate_under_the_stopping_rule_is_at_most_alpha(rule, eps, delta):
    pn, pd = rr(eps) if delta == 0 else (math.exp(eps) * 0.1 + delta, 0.1)  # exactly tight
    k = false_violations(rule, pn, pd, eps, delta)
    assert k <= CRITICAL, f"{k}/{SEEDS} false violations > {CRITICAL} (alpha={ALPHA})"


def test_the_meta_test_catches_naive_peeking():
    pn, pd = rr(1.0)
    assert false_violations(naive_peeking_rule, pn, pd, 1.0, 0.0) > CRITICAL


@pytest.mark.parametrize("method", ["betting", "union"])
@pytest.mark.parametrize("factor", [2.0, 10.0])
def test_power_violation_found_with_far_fewer_releases_than_the_budget(factor, method):
    # 20 seeds of randomised response at factor x the claimed 0.5; budget 10^6 releases per side.  Design: all
    # but one must reach "violated" and the median stopping size must be below 1/100 of the budget (2x needs a
    # few thousand per side, 10x a few dozen).
    claim, maxn = 0.5, 1_000_000
    pn, pd = rr(factor * claim)
    outs = [
        run_sequential(
            stream(np.random.default_rng(s), pn, pd),
            1,
            epsilon=claim,
            delta=0.0,
            alpha=0.05,
            max_samples=maxn,
            method=method,
            rng=np.random.default_rng(100 + s),
        )
        for s in range(20)
    ]
    assert sum(o.stop_reason == "violated" for o in outs) >= 19
    used = np.median([o.n_per_side for o in outs])
    assert used <= maxn / 100
    # the bound at the stop is a valid lower bound: never above the true epsilon here (all seeds)
    assert all(o.eps_lb.max() <= factor * claim for o in outs)


def test_futility_stops_early_and_does_not_cost_power_on_a_violation():
    claim, maxn = 1.0, 1_000_000
    pn, pd = rr(0.5)  # true epsilon half the claim: a violation can never be certified
    outs = [
        run_sequential(
            stream(np.random.default_rng(s), pn, pd),
            1,
            epsilon=claim,
            delta=0.0,
            alpha=0.05,
            max_samples=maxn,
            rng=np.random.default_rng(s),
        )
        for s in range(20)
    ]
    assert all(o.stop_reason == "futility" for o in outs)
    assert max(o.n_per_side for o in outs) <= maxn / 100
    # at 1.2x the claim a violation is reachable within the budget: futility must not stop those runs
    pn, pd = rr(1.2)
    outs = [
        run_sequential(
            stream(np.random.default_rng(s), pn, pd),
            1,
            epsilon=claim,
            delta=0.0,
            alpha=0.05,
            max_samples=maxn,
            rng=np.random.default_rng(s),
        )
        for s in range(20)
    ]
    assert sum(o.stop_reason == "futility" for o in outs) <= 1
    # "certain" futility: stop only when no continuation at all could succeed (p_den large, small budget)
    o = run_sequential(
        stream(np.random.default_rng(0), 0.6, 0.5),
        1,
        epsilon=1.0,
        delta=0.0,
        alpha=0.05,
        max_samples=400,
        first=200,
        futility="certain",
        method="union",
    )
    assert o.stop_reason == "futility" and o.n_per_side == 200
    o = run_sequential(
        stream(np.random.default_rng(0), 0.6, 0.5),
        1,
        epsilon=1.0,
        delta=0.0,
        alpha=0.05,
        max_samples=400,
        first=200,
        futility=None,
        method="union",
    )
    assert o.stop_reason == "max_samples" and o.n_per_side == 400


def lap_half(data, size, rng):
    return float(np.asarray(data, float).sum()) + rng.laplace(0.0, 0.5, size)  # sensitivity 1: true epsilon 2


def test_audit_sequential_stops_early_and_reports_it():
    pair = [(0.0, 1.0)]
    r = audit(
        lap_half,
        PrivacyClaim(1.0),
        pairs=pair,
        n_samples=200_000,
        rng=np.random.default_rng(3),
        attacks="threshold",
        n_select=500,
        sequential=True,
    )
    seq = r.details["sequential"]
    assert r.verdict == "violated" and seq["stop_reason"] == "violated"
    assert seq["releases_per_side"] < 200_000 // 10
    assert r.details["counts"]["n_per_side"] == seq["within_round"]["releases_per_side"]
    assert r.n_samples == seq["releases_used"] == sum(seq["releases_by_stage"].values())
    assert 1.0 < r.epsilon_lb <= 2.0 and r.epsilon_lb == max(seq["epsilon_lb_per_event"])
    r2 = audit(
        lap_half,
        PrivacyClaim(1.0),
        pairs=pair,
        n_samples=200_000,
        rng=np.random.default_rng(3),
        attacks="threshold",
        n_select=500,
        sequential=True,
    )
    assert r2.details["sequential"] == seq and r2.estimate == r.estimate
    # a claim the mechanism meets: futility or the budget, never "violated" here
    r3 = audit(
        lap_half,
        PrivacyClaim(4.0),
        pairs=pair,
        n_samples=20_000,
        rng=np.random.default_rng(3),
        attacks="threshold",
        n_select=500,
        sequential=True,
    )
    assert r3.verdict != "violated" and r3.details["sequential"]["stop_reason"] in ("futility", "budget")
    r4 = audit(
        lap_half,
        PrivacyClaim(1.0),
        pairs=pair,
        n_samples=200_000,
        rng=np.random.default_rng(3),
        attacks="threshold",
        n_select=500,
        sequential="union",
    )
    assert r4.verdict == "violated" and r4.details["sequential"]["method"].startswith("Clopper")
    assert r4.details["cp_bounds"]["numerator_lower"] is not None and seq["method"].startswith("betting")
    with pytest.raises(ValueError, match="method"):
        audit(
            lap_half,
            PrivacyClaim(1.0),
            pairs=pair,
            n_samples=1000,
            rng=np.random.default_rng(3),
            attacks="threshold",
            sequential="peek",
        )
    with pytest.raises(ValueError, match="profile"):
        audit(
            lap_half,
            PrivacyClaim(1.0),
            pairs=pair,
            n_samples=1000,
            rng=np.random.default_rng(3),
            attacks="threshold",
            sequential=True,
            profile=True,
        )
