"""Noise-aware elimination in the pair search (``search.ELIM_Z``, an experiment switch, off by default).

A pair below a round's cut goes on while its score plus z standard errors reaches the last kept pair's score minus z
of that pair's standard errors; without the switch the cut of ``ROUNDS`` alone decides.  The standard error is the
delta-method error of the held-out log-ratio (``_log_ratio_var``), checked here against the spread of the estimate
over independent coupled draws.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from htdp_verify.privacy import search
from htdp_verify.privacy.attacks import SelectionContext
from htdp_verify.privacy.neighbours import Pair
from htdp_verify.privacy.search import SearchResult, _survivors, search_pairs


def _r(pred, se, label):
    return SearchResult(Pair(0.0, 1.0, label=label), pred, se=se)


def test_without_the_switch_the_cut_alone_decides(monkeypatch):
    monkeypatch.setattr(search, "ELIM_Z", None)
    ranked = [_r(0.5, 0.01, "a"), _r(0.4, 0.01, "b"), _r(0.39, 1.0, "c")]
    keep, out = _survivors(ranked, 2, 2)
    assert [s.pair.label for s in keep] == ["a", "b"] and [s.pair.label for s in out] == ["c"]


def test_a_pair_within_the_noise_of_the_cut_goes_on(monkeypatch):
    monkeypatch.setattr(search, "ELIM_Z", 1.0)
    # bar = 0.40 - 0.01 = 0.39: c (0.30 + 0.10) reaches it, d (0.30 + 0.05) does not, e (0.2 + inf) always does
    ranked = [_r(0.5, 0.01, "a"), _r(0.4, 0.01, "b"), _r(0.3, 0.10, "c"), _r(0.3, 0.05, "d"), _r(0.2, math.inf, "e")]
    keep, out = _survivors(ranked, 2, 2)
    assert [s.pair.label for s in keep] == ["a", "b", "c", "e"] and [s.pair.label for s in out] == ["d"]
    # the first round scores every pair: nothing to eliminate yet
    keep1, out1 = _survivors(ranked, 5, 1)
    assert len(keep1) == 5 and not out1


def test_the_log_ratio_error_matches_the_spread_over_coupled_draws(monkeypatch):
    """Design: an event of probability 0.3 on one side and 0.3·e^{-0.5} on the other, from common uniforms (so the
    sides are correlated); 400 replicates of 2 000 rows.  The delta-method standard error must agree with the
    replicates' standard deviation of the log-ratio within 15 % (the sd of a sample sd over 400 replicates is ~3.5 %,
    so the band is > 4 of its standard errors; an error that ignored the covariance would be ~1.7 times too large)."""
    monkeypatch.setattr(search, "COUPLED", True)
    rng = np.random.default_rng(11)
    p, q = 0.3, 0.3 * math.exp(-0.5)
    est, ses = [], []
    for _ in range(400):
        u = rng.random(2000)
        a, b = u < p, u < q
        est.append(math.log(a.mean() / b.mean()))
        ses.append(math.sqrt(search._log_ratio_var(a, b)))
    sd = float(np.std(est, ddof=1))
    assert float(np.median(ses)) == pytest.approx(sd, rel=0.15)
    monkeypatch.setattr(search, "COUPLED", False)  # independent-sides formula on the same coupled data: too large
    assert math.sqrt(search._log_ratio_var(a, b)) > 1.4 * sd


def test_search_with_the_switch_ranks_every_pair_and_keeps_at_least_the_cut(monkeypatch):
    monkeypatch.setattr(search, "ELIM_Z", 1.0)

    def lap(data, size, rng):
        return np.asarray(data, float).sum() + rng.laplace(0.0, 1.0, size)

    pairs = [(np.zeros(2), np.r_[0.0, x]) for x in (0.3, 0.31, 0.32, 1.0)]
    ranked = search_pairs(lap, pairs, "auto", SelectionContext(n_final=20_000, alpha=0.05), n_search=4000,
                          rng=np.random.default_rng(0))  # fmt: skip
    assert len(ranked) == 4 and all(math.isfinite(r.se) for r in ranked)
    last = ranked[0].round
    assert sum(r.round == last for r in ranked) >= 2  # the plan's cut keeps two; near-equal pairs may join them
