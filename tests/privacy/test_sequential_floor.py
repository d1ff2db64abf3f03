"""The oracle floors of event-counting audits (:mod:`htdp_verify.privacy.sequential.floor`), on cases worked by hand.

Hand case: an event certain on one side and impossible on the other (``p_num = 1``, ``p_den = 0``), claim ε = 1,
δ = 0, α = 0.05, power 0.93.

* Clopper–Pearson at α/2 per side with ``m`` releases per side: all ``m`` in the event on one side and none on the
  other give the bounds ``lo = (α/2)^(1/m)`` and ``hi = 1 − (α/2)^(1/m)``; ``ln(lo / hi) > 1`` iff
  ``(α/2)^(1/m) > e / (1 + e)`` iff ``m > ln(0.025) / ln(e / (1 + e)) = 11.77``: m = 12 (deterministic, power 1).
  The sizing evaluates ``m = ⌊n − 2√n⌋`` (n = 21 gives 11, n = 22 gives 12): n = 22.
* The Poisson test (δ = 0): the ``s ~ Poisson(n)`` hits all fall on one side; rejection iff
  ``(e / (1 + e))^s < 0.05`` iff ``s ≥ 10``; ``P(Poisson(n) ≥ 10) ≥ 0.93`` first at n = 15 (14 gives 0.891).
* KL*: on the boundary ``q_num = e·q_den`` the divergence ``−ln(e q) − ln(1 − q)`` decreases on ``(0, 1/e]``, so
  the infimum is at ``q = 1/e``: ``KL* = −ln(1 − 1/e) = 0.45868``; Wald's bound is ``d(0.93, 0.05) / KL*``.
"""

from __future__ import annotations

import math

import pytest
from scipy.stats import norm

from htdp_verify.privacy.sequential import bernoulli_kl_to_null, event_floor, oracle_floor, sequential_floor

D_93_05 = 0.93 * math.log(0.93 / 0.05) + 0.07 * math.log(0.07 / 0.95)


def test_clopper_pearson_floor_of_a_disjoint_event_matches_the_hand_count():
    r = event_floor(1.0, 0.0, epsilon=1.0, alpha=0.05, power=0.93, method="cp")
    assert math.log(0.025) / math.log(math.e / (1 + math.e)) == pytest.approx(11.77, abs=0.01)
    assert (r["fixed_m"], r["fixed_n"]) == (12, 22)


def test_poisson_floor_of_a_disjoint_event_matches_the_hand_count():
    assert event_floor(1.0, 0.0, epsilon=1.0, alpha=0.05, power=0.93)["fixed_n"] == 15


def test_kl_to_the_null_and_wald_bound_match_the_hand_values():
    kl = bernoulli_kl_to_null(1.0, 0.0, epsilon=1.0)
    assert kl == pytest.approx(-math.log(1 - 1 / math.e), rel=1e-9)
    assert sequential_floor(kl, alpha=0.05, power=0.93) == pytest.approx(D_93_05 / kl, rel=1e-12)


def test_kl_is_zero_inside_the_null_and_the_event_gets_no_floor():
    # exactly tight randomised response at eps = 1: no test can refute the claim on it
    p = math.e / (1 + math.e)
    assert bernoulli_kl_to_null(p, 1 - p, epsilon=1.0) == 0.0
    r = event_floor(p, 1 - p, epsilon=1.0, alpha=0.05, power=0.93)
    assert r["fixed_n"] is None and math.isinf(r["sequential"])
    o = oracle_floor([p, 0.5, 0.6], [1 - p, 0.5, 0.3], epsilon=1.0, alpha=0.05, power=0.93)
    assert o["fixed_n"] is None and o["sequential"] is None


def test_kl_minimiser_beats_a_brute_force_search_on_the_boundary():
    pn, pd, eps, delta = 0.0224, 0.00607, 1.0, 1e-5
    kl = bernoulli_kl_to_null(pn, pd, epsilon=eps, delta=delta)

    def bkl(p, q):
        return p * math.log(p / q) + (1 - p) * math.log((1 - p) / (1 - q))

    grid = [pd + i * ((pn - delta) / math.e - pd) / 20000 for i in range(20001)]
    brute = min(bkl(pn, math.e * q + delta) + bkl(pd, q) for q in grid)
    assert kl <= brute + 1e-12 and kl == pytest.approx(brute, rel=1e-6)


def test_oracle_picks_the_best_half_line_of_a_gaussian_shift():
    # Gaussian shift of 1 with sd 2 at claim (1, 1e-5): the floors of a few thresholds, the oracle's is their minimum
    ts = [4.5, 5.0, 5.5, 6.0]
    pn, pd = norm.sf([(t - 1) / 2 for t in ts]), norm.sf([t / 2 for t in ts])
    o = oracle_floor(pn, pd, epsilon=1.0, delta=1e-5, alpha=0.05, power=0.9, labels=ts)
    each = [event_floor(a, b, epsilon=1.0, delta=1e-5, alpha=0.05, power=0.9) for a, b in zip(pn, pd)]
    assert o["fixed_n"]["fixed_n"] == min(e["fixed_n"] for e in each)
    assert o["sequential"]["sequential"] == min(e["sequential"] for e in each)
    # Wald's bound on the expected size of a sequential test lies below the fixed-n test's size
    assert o["sequential"]["sequential"] < o["fixed_n"]["fixed_n"]


def test_bad_input_is_refused():
    with pytest.raises(ValueError, match="p_num"):
        event_floor(1.5, 0.1, epsilon=1.0, alpha=0.05, power=0.9)
    with pytest.raises(ValueError, match="power"):
        sequential_floor(0.1, alpha=0.05, power=0.01)
    with pytest.raises(ValueError, match="same"):
        oracle_floor([0.1, 0.2], [0.1], epsilon=1.0, alpha=0.05, power=0.9)
