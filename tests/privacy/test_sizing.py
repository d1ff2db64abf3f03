"""Sample sizes from a detectability target (htdp_verify/privacy/sizing.py).

Design: the sizes are checked (1) for the directions they must move in (a larger target, α or event floor needs
fewer releases; a smaller claim at a fixed ratio needs more), (2) against the certification's own bound: the
critical count of the Poisson test is the smallest count at which ``epsilon_lower_bound_poisson`` exceeds the claim,
and (3) against a brute-force simulation of the certification (Poissonised release numbers, the engine's bound
functions) at three designed points, 4000 replicates each (fixed seeds).  The claimed power is 0.8; the simulated
power must be at least ``0.8 − 3 sd`` (sd = √(0.8·0.2/4000) ≈ 0.0063: a correct size fails with probability
≈ 0.001).  The same simulation at half the returned size must fall below 0.8 by more than the margin (the
checker fails on a size that is too small: the smallest effect it sees is a shortfall of 3 sd ≈ 0.019 in power).
"""

import math

import numpy as np
import pytest

from htdp_verify.privacy import sizing
from htdp_verify.privacy.sizing import (
    DetectabilityTarget,
    certification_power,
    detectable_epsilon,
    releases_needed,
)
from htdp_verify.stats import epsilon_lower_bound, epsilon_lower_bound_poisson

REPS = 4000
MARGIN = 3 * math.sqrt(0.8 * 0.2 / REPS)


def _simulated_power(n, eps, delta, target, p1, alpha, method, rng):
    """Fraction of simulated certifications (Poisson(n) releases per side) whose bound exceeds ``eps``."""
    p2 = 0.0 if math.isinf(target) else (p1 - delta) * math.exp(-target)
    n1, n2 = rng.poisson(n, REPS), rng.poisson(n, REPS)
    k1, k2 = rng.binomial(n1, p1), rng.binomial(n2, p2)
    if method == "poisson":
        lb = epsilon_lower_bound_poisson(k1, k2, alpha, n, n)
    else:
        lb = epsilon_lower_bound(k1, np.maximum(n1, 1), k2, np.maximum(n2, 1), alpha, delta)
    return float(np.mean(np.asarray(lb) > eps))


def test_sizes_move_in_the_expected_directions():
    kw = dict(event_floor=0.1, alpha=0.01, power=0.8)
    by_target = releases_needed(1.0, target_epsilon=[1.5, 2.0, 3.0, math.inf], **kw)
    assert np.all(np.diff(by_target) < 0), by_target
    by_alpha = [releases_needed(1.0, target_epsilon=2.0, event_floor=0.1, alpha=a) for a in (1e-4, 1e-3, 1e-2, 0.1)]
    assert np.all(np.diff(by_alpha) < 0), by_alpha
    by_floor = [releases_needed(1.0, target_epsilon=2.0, alpha=0.01, event_floor=p) for p in (0.02, 0.1, 0.5)]
    assert np.all(np.diff(by_floor) < 0), by_floor
    by_power = [releases_needed(1.0, target_epsilon=2.0, alpha=0.01, event_floor=0.1, power=q) for q in (0.5, 0.9)]
    assert by_power[0] < by_power[1]
    # at a fixed ratio over the claim, ε = 0.1 needs far more releases than ε = 1
    eps = np.array([0.1, 1.0])
    n_small, n_one = releases_needed(eps, target_epsilon=2 * eps, **kw)
    assert n_small > 10 * n_one
    # δ > 0 (Clopper-Pearson) is monotone too, and costs more than the Poisson test at δ = 0
    cp = [releases_needed(0.5, 1e-3, target_epsilon=t, **kw) for t in (1.0, 1.5)]
    assert cp[0] > cp[1] and cp[1] > releases_needed(0.5, target_epsilon=1.5, **kw)


def test_returned_size_is_the_smallest_with_the_power():
    kw = dict(target_epsilon=2.0, event_floor=0.1, alpha=0.01)
    n = releases_needed(1.0, **kw)
    assert certification_power(n, 1.0, **kw) >= 0.8 > certification_power(n - 1, 1.0, **kw)


def test_critical_count_is_the_certifications_own_threshold():
    eps, a = 0.7, 0.003
    theta0 = 1 / (1 + math.exp(-eps))
    s = np.arange(0, 300)
    kc = sizing._critical(s, theta0, a)
    for si, ki in zip(s[::7], kc[::7]):
        ks = np.arange(0, si + 1)
        lb = np.atleast_1d(epsilon_lower_bound_poisson(ks, si - ks, a))
        above = ks[lb > eps]
        assert (above.min() if above.size else si + 1) == ki, si


@pytest.mark.parametrize(
    "eps, delta, target, p1, alpha, method, seed",
    [
        (1.0, 0.0, 2.0, 0.1, 0.01, "poisson", 11),
        (0.5, 1e-3, 1.5, 0.2, 0.01, "cp", 12),
        (1.0, 0.0, math.inf, 0.05, 0.004, "poisson", 13),
    ],
)
def test_simulated_certification_has_the_stated_power(eps, delta, target, p1, alpha, method, seed):
    n = releases_needed(eps, delta, target_epsilon=target, event_floor=p1, alpha=alpha, power=0.8, method=method)
    rng = np.random.default_rng(seed)
    got = _simulated_power(n, eps, delta, target, p1, alpha, method, rng)
    assert got >= 0.8 - MARGIN, (n, got)
    # the checker fails on a size that is too small
    half = _simulated_power(max(n // 2, 1), eps, delta, target, p1, alpha, method, rng)
    assert half < 0.8 - MARGIN, (n, half)


def test_poisson_power_is_exact_not_just_conservative():
    n, eps, p1, a = 700, 1.0, 0.1, 0.01
    exact = certification_power(n, eps, target_epsilon=2.0, event_floor=p1, alpha=a)
    got = _simulated_power(n, eps, 0.0, 2.0, p1, a, "poisson", np.random.default_rng(3))
    assert abs(got - exact) < 4 * math.sqrt(exact * (1 - exact) / REPS), (got, exact)


def test_detectable_epsilon_inverts_the_size():
    kw = dict(event_floor=0.1, alpha=0.01)
    t = detectable_epsilon(500, 1.0, **kw)
    assert 1.0 < t < math.inf
    assert releases_needed(1.0, target_epsilon=t, **kw) <= 500 < releases_needed(1.0, target_epsilon=0.99 * t, **kw)
    assert detectable_epsilon(5, 1.0, **kw) == math.inf  # 5 releases certify nothing at α = 0.01


def test_target_and_validation():
    tg = DetectabilityTarget(ratio=2.0, event_floor=0.1, power=0.8, excess=0.5)
    assert tg.epsilon_for(0.1) == pytest.approx(0.6) and tg.epsilon_for(1.0) == 2.0
    assert "power 0.8" in tg.describe() and tg.to_dict()["excess"] == 0.5
    with pytest.raises(ValueError, match="ratio"):
        DetectabilityTarget(ratio=0.5)
    with pytest.raises(ValueError, match="target_epsilon"):
        releases_needed(1.0, target_epsilon=1.0, event_floor=0.1, alpha=0.05)
    with pytest.raises(ValueError, match="event_floor"):
        releases_needed(0.5, 0.2, target_epsilon=1.0, event_floor=0.1, alpha=0.05)
    with pytest.raises(ValueError, match="method"):
        releases_needed(0.5, 1e-3, target_epsilon=1.0, event_floor=0.1, alpha=0.05, method="poisson")
    assert releases_needed(1.0, target_epsilon=2.0, event_floor=0.001, alpha=1e-3, n_max=100) == -1
