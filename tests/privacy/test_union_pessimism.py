"""The discrete attack's multiplicity-aware selection pessimism (``union_pessimism``).

Design.  Selection costs no α (certification is on fresh samples), so these tests are about *power*: does the
attack pick an event that certifies close to what an oracle with the exact laws would certify?  Each case draws
selection counts from an exact law (fixed seed), lets ``DiscreteAttack`` choose, and values the chosen event by
the bound its expected counts certify with ``N_FINAL`` fresh releases per side.  The thresholds come from a
simulation of the same cases (30 draws each; the study is summarised in the docstring of ``union_pessimism``):
on Laplace cut into 2000 cells the 10th percentile of (chosen / oracle) was 0.96 with this rule and 0.00 with
the fixed 3 s.e. it replaced, so one fixed-seed draw decides with margin; the rare-outcome case is a designed
rate test (see ``R_DRAWS``).  Each check is also run with the old rule patched back in and must fail there
(test the tester).
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from htdp_verify.privacy.attacks import DiscreteAttack, SelectionContext, predicted_bound, union_pessimism
from htdp_verify.stats import epsilon_lower_bound, epsilon_lower_bound_poisson

N_FINAL = 13_000_000
ALPHA = 0.05


def test_union_pessimism_is_the_expected_top_fraction_bias():
    # sqrt(j) * E[Z | Z > z_{j/K}] / sqrt(1 - j/K), checked against scipy's truncated normal (an independent
    # computation); and symmetric: the top j and the bottom K - j carry the same total bias
    for j, K in [(1, 11), (5, 11), (10, 11), (1, 2000), (1000, 2000), (3, 7)]:
        a = stats.norm.isf(j / K)
        want = np.sqrt(j) * stats.truncnorm(a, np.inf).mean() / np.sqrt(1 - j / K)
        assert union_pessimism(j, K) == pytest.approx(want, rel=1e-9)
        assert union_pessimism(j, K) == pytest.approx(union_pessimism(K - j, K), rel=1e-9)
    assert union_pessimism(11, 11) == 0.0  # the whole space: no selection
    z = union_pessimism(np.arange(1, 2001), 2000)
    assert np.all(np.isfinite(z)) and z.max() > 20  # many lucky rare cells are penalised hard


def _value(S, P_num, P_den):
    """Median bound the event S certifies with N_FINAL fresh releases per side (expected counts)."""
    k1, k2 = np.floor(N_FINAL * P_num[S].sum()), np.floor(N_FINAL * P_den[S].sum())
    return max(
        float(epsilon_lower_bound_poisson(k1, k2, ALPHA)), float(epsilon_lower_bound(k1, N_FINAL, k2, N_FINAL, ALPHA))
    )


def _oracle(P1, P2):
    best = 0.0
    for a, b in ((P1, P2), (P2, P1)):
        with np.errstate(divide="ignore"):
            order = np.argsort(-(np.log(a) - np.log(b)))
        for k in np.unique(np.geomspace(1, a.size - 1, 400).astype(int)):
            best = max(best, _value(order[:k], a, b))
    return best


def _chosen_fraction(attack, P1, P2, n_sel, seed):
    rng = np.random.default_rng(seed)
    Y1 = np.repeat(np.arange(P1.size), rng.multinomial(n_sel, P1)).astype(float)
    Y2 = np.repeat(np.arange(P2.size), rng.multinomial(n_sel, P2)).astype(float)
    ctx = SelectionContext(n_final=N_FINAL, alpha=ALPHA, max_categories=4096)
    ev = max(attack.select(Y1, Y2, ctx), key=lambda e: e.predicted)
    S = np.flatnonzero(ev.indicator(np.arange(P1.size, dtype=float)))
    num, den = (P1, P2) if ev.orientation > 0 else (P2, P1)
    return _value(S, num, den) / _oracle(P1, P2)


def _laplace_cells(loc, K):
    edges = np.linspace(-300.0, 301.0, K - 1)
    c = np.concatenate([[0.0], stats.laplace.cdf(edges, loc=loc, scale=10.0), [1.0]])
    return np.diff(c)


def _svt4_extreme():
    from audits import benchmark as B
    from audits.benchmark.ceiling import partition_probabilities

    p = next(q for q in B.get_mechanism("SVT4").pairs if q.label.startswith("in-domain extreme"))
    P1, P2 = partition_probabilities("SVT4", p.d, p.d_prime)
    return P1 / P1.sum(), P2 / P2.sum()


LAPLACE = (lambda: (_laplace_cells(0.0, 2000), _laplace_cells(1.0, 2000)), 1_000_000)


def test_discrete_attack_gets_close_to_the_oracle_on_a_fine_partition():
    # 2000 cells, most of them rare: a fixed 3 s.e. lets unions of lucky tail cells win (certifies 0)
    law, n_sel = LAPLACE
    assert _chosen_fraction(DiscreteAttack(), *law(), n_sel, seed=11) >= 0.9


def test_fixed_pessimism_fails_on_the_fine_partition(monkeypatch):
    import htdp_verify.privacy.attacks.basic as A

    monkeypatch.setattr(A, "union_pessimism", _FIXED_3SE)
    law, n_sel = LAPLACE
    assert _chosen_fraction(DiscreteAttack(), *law(), n_sel, seed=11) < 0.9


def _FIXED_3SE(j, K):  # the rule union_pessimism replaced: 3 s.e. for every prefix
    return np.full(np.shape(j), 3.0)


# SVT4's in-domain extreme pair: 11 outcomes, the decisive one has probability 0.0018 (ln ratio 0.175).  With
# 10⁶ selection releases per side, measured over 40 other seeds: this rule chose an event within 0.9 of the
# oracle 35/40 times (seeds 1000-1039), the fixed 3 s.e. 18/40.  Rate test over R = 24 draws, pass iff ≥ 20
# successes: a rule whose success rate is ≤ 0.6 passes with probability ≤ 0.013 (0.45, the old rule: 1.3e-4); at
# 0.875 it passes with probability 0.83 (0.925: 0.97).  The seeds are fixed, so the outcome is reproducible.
R_DRAWS, R_PASS = 24, 20


def _success_count():
    P1, P2 = _svt4_extreme()
    return sum(_chosen_fraction(DiscreteAttack(), P1, P2, 1_000_000, seed=500 + r) >= 0.9 for r in range(R_DRAWS))


def test_discrete_attack_finds_a_rare_decisive_outcome():
    assert _success_count() >= R_PASS


def test_fixed_pessimism_misses_the_rare_decisive_outcome(monkeypatch):
    import htdp_verify.privacy.attacks.basic as A

    monkeypatch.setattr(A, "union_pessimism", _FIXED_3SE)
    assert _success_count() < R_PASS


def test_array_z_in_predicted_bound_matches_scalar_calls():
    p_num, p_den = np.array([0.03, 0.2, 0.5]), np.array([0.027, 0.19, 0.49])
    z = np.array([0.5, 2.0, 3.0])
    got = predicted_bound(p_num, p_den, 10**7, 0.05, 0.0, "epsilon", 10**5, 10**5, z)
    want = [
        float(predicted_bound(a, b, 10**7, 0.05, 0.0, "epsilon", 10**5, 10**5, float(zz)))
        for a, b, zz in zip(p_num, p_den, z)
    ]
    assert got == pytest.approx(want, rel=1e-12)
