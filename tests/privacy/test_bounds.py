"""Bounds, neighbours and attack building blocks (deterministic; the two statistical checks state their α)."""

import math

import numpy as np
import pytest
from scipy.stats import norm

from htdp_verify.privacy import (
    Pair,
    add_one,
    check_neighbours,
    dataset_patterns,
    gdp_delta,
    gdp_epsilon,
    gdp_mu_lb,
    remove_one,
    replace_one,
    scalar_pairs,
    statdp_patterns,
    vector_pairs,
)
from htdp_verify.privacy.attacks import (
    DiscreteAttack,
    Identity,
    SelectionContext,
    bit_features,
    predicted_bound,
    scan_thresholds,
)
from htdp_verify.privacy.bounds import privacy_profile, smallest_resolvable_delta
from htdp_verify.stats import epsilon_lower_bound


def test_gdp_delta_matches_closed_form_and_inverse():
    mu = 0.268051123211294  # analytic Gaussian for (1, 1e-5)
    assert gdp_delta(1.0, mu) == pytest.approx(1e-5, rel=1e-6)
    assert gdp_epsilon(1e-5, mu) == pytest.approx(1.0, rel=1e-6)
    e = 0.4
    assert gdp_delta(e, 1.0) == pytest.approx(norm.cdf(-e + 0.5) - math.exp(e) * norm.cdf(-e - 0.5))
    assert gdp_epsilon(0.9, 0.1) == 0.0


def test_gdp_mu_lb_formula_and_validity_direction():
    # μ_lb = Φ⁻¹(1 − FPR_hi) − Φ⁻¹(FNR_hi), FPR_hi = CP_hi(k2), FNR_hi = 1 − CP_lo(k1)
    from htdp_verify.stats import cp_lower, cp_upper

    k1, k2, n, a = 6915, 3085, 10_000, 0.05
    expect = norm.ppf(1 - cp_upper(k2, n, a / 2)) - norm.ppf(1 - cp_lower(k1, n, a / 2))
    assert gdp_mu_lb(k1, n, k2, n, a) == pytest.approx(expect)
    assert gdp_mu_lb(k1, n, k2, n, a) < 1.0  # point estimate is exactly μ = 1 (Φ(0.5) = 0.6915)
    assert gdp_mu_lb(10, n, 10, n, a) == 0.0


def test_profile_from_counts_is_max_over_events():
    k1, k2, n = np.array([5000, 900]), np.array([3000, 100]), 10_000
    prof = privacy_profile(k1, k2, n, [0.025, 0.025], deltas=[0.01, 0.05], epsilons=[0.0, 0.5])
    e0 = max(epsilon_lower_bound(k1[j], n, k2[j], n, 0.025, 0.01) for j in range(2))
    assert prof.epsilon_lb[0] == pytest.approx(e0)
    assert prof.alpha == pytest.approx(0.05) and prof.n_events == 2
    assert prof.delta_floor == pytest.approx(smallest_resolvable_delta(n, 0.025))
    assert np.all(np.diff(prof.epsilon_lb) <= 1e-12)  # ε_lb is non-increasing in δ


def test_predicted_bound_prefers_high_probability_event_when_it_certifies_more():
    # Laplace ε=0.1 (D=0, D'=1): {x <= 0} (p=.5 vs .5e^-.1) beats a rare tail with the same ratio at n=1e7.
    p_big = predicted_bound(0.5, 0.5 * math.exp(-0.1), 10**7, 0.05)
    p_small = predicted_bound(0.005, 0.005 * math.exp(-0.1), 10**7, 0.05)
    assert p_big > 0.097 > p_small


def test_scan_thresholds_finds_laplace_tail():
    # Selection split of Laplace(0, 1) vs Laplace(1, 1), 2e5 each: the chosen half-line must be {x <= t} (D over D')
    # or {x >= t} (D' over D) with t within the ratio-e region; deterministic seed.
    rng = np.random.default_rng(0)
    s1, s2 = rng.laplace(0, 1, 200_000), rng.laplace(1, 1, 200_000)
    ctx = SelectionContext(n_final=10**6, alpha=0.05)
    evs = scan_thresholds(s1, s2, ctx, Identity(), "threshold")
    best = max(evs, key=lambda e: e.predicted)
    assert 0.95 < best.predicted <= 1.0
    t = best.params[0]
    assert (best.side, best.orientation) in {("<=", 1), (">=", -1)}
    assert (t <= 0.05) if best.side == "<=" else (t >= 0.95)


def test_discrete_attack_orders_by_ratio():
    rng = np.random.default_rng(1)
    Y1 = rng.choice(4, 50_000, p=[0.4, 0.3, 0.2, 0.1])
    Y2 = rng.choice(4, 50_000, p=[0.1, 0.2, 0.3, 0.4])
    evs = DiscreteAttack().select(Y1, Y2, SelectionContext(n_final=10**5, alpha=0.05))
    fwd = [e for e in evs if e.orientation == 1][0]
    assert set(fwd.params[0].tolist()) == {0} and "output in {0}" in fwd.describe()


def test_bit_features():
    x = np.array([1.0, -2.0])
    B = bit_features(x)
    assert B.shape == (2, 64) and B[1, 63] == 1 and B[0, 63] == 0  # sign bit
    assert np.array_equal(
        np.packbits(B[0].astype(np.uint8)[::-1]), np.frombuffer(np.float64(1.0).tobytes()[::-1], np.uint8)
    )


def test_neighbour_patterns_and_relations():
    pats = statdp_patterns(5)
    assert len(pats) == 8 and len(statdp_patterns(5, "N1")) == 2
    names = [p.label for p in pats]
    assert "X-shape" in names and "half-half" in names
    x = pats[-1]
    assert x.d.tolist() == [1, 1, 0, 0, 0] and x.d_prime.tolist() == [0, 0, 1, 1, 1]
    assert len(scalar_pairs(0.0, 2.0)) == 2 and len(vector_pairs(np.zeros(3))) == 6
    d = np.array([0.1, 0.5, -0.3, 0.9])
    rep = dataset_patterns(d, bound=1.0, multiples=(1.0, 3.0))
    assert all(p.relation == "replace" for p in rep)
    for p in rep:
        check_neighbours(p)
    labels = " ".join(p.label for p in rep)
    assert "+3·bound" in labels and "dataset max" in labels and "-3·bound (-3) -> +3·bound (3)" in labels
    # in one column the farthest row's duplicate is the data's max or min: the repeated pair is kept once
    assert "duplicate" not in labels and len(rep) == len({(p.d.tobytes(), p.d_prime.tobytes()) for p in rep})
    assert any("duplicate" in p.label for p in dataset_patterns(np.array([[0.0, 5], [3, 0], [1, 1], [2, 2]])))
    ar = dataset_patterns(d, relation="add_remove", bound=1.0)
    for p in ar:
        check_neighbours(p)
    assert any("remove" in p.label for p in ar) and any("duplicate" in p.label for p in ar)
    # 2-d datasets (rows are records)
    X = np.arange(12.0).reshape(4, 3)
    for p in dataset_patterns(X, relation="add_remove") + dataset_patterns(X):
        check_neighbours(p)
    check_neighbours(add_one(X, np.ones(3)))
    check_neighbours(remove_one(X, 1))
    check_neighbours(replace_one(X, 0, np.zeros(3)))
    with pytest.raises(ValueError, match="add/remove"):
        check_neighbours(Pair(X, X[:2], "two removed", "add_remove"))
    sw = rep[0].swapped()
    assert np.array_equal(sw.d, rep[0].d_prime)
