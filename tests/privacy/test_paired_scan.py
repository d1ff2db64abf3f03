"""Paired event scores (the pair search's selection on coupled draws): exact counts, and the power that pairing buys.

Design of the power test: a Laplace(1) release shifted by 0.05 on D' (privacy loss 0.05), 4000 releases per side
drawn with common random numbers (row ``i`` on D' is row ``i`` on D plus 0.05), final size 10⁶ per side. The paired
standard error of the best half-line's log-ratio is about 0.006, so at 3 paired s.e. a threshold event survives with
a predicted bound near 0.03; with the rows of one side shuffled (the same two laws, no pairing: the deliberately
broken input) the standard error is about 0.03 and 3 of them exceed the whole loss, so the best prediction must fall
to 0 or at least halve (when written: 0.042 paired, no event at all shuffled). Fixed seeds; the smallest effect the
design is built for is the loss 0.05 at 4000 paired rows.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from htdp_verify.privacy.attacks import DiscreteAttack, SelectionContext, ThresholdAttack
from htdp_verify.privacy.paired import paired_ranking, paired_rescan, paired_scores

CTX = SelectionContext(n_final=1_000_000, alpha=0.05)


def _coupled(n: int, seed: int, shift: float = 0.05):
    noise = np.random.default_rng(seed).laplace(0.0, 1.0, n)
    return noise, noise + shift


def _best(Y1, Y2):
    evs = ThresholdAttack().select(Y1, Y2, CTX)
    return paired_rescan(evs, Y1, Y2, CTX, z=3.0)


def test_paired_scan_sees_a_small_shift_that_unpaired_rows_hide():
    Y1, Y2 = _coupled(4000, 11)
    coupled = _best(Y1, Y2)
    assert coupled and coupled[0].predicted > 0.01
    top = coupled[0]
    assert top.orientation == -1 and top.side == ">="  # larger values are more likely under D'
    shuffled = _best(Y1, np.random.default_rng(12).permutation(Y2))
    best_shuffled = shuffled[0].predicted if shuffled else 0.0
    assert best_shuffled < 0.5 * top.predicted  # the broken (unpaired) input loses what pairing bought


@pytest.mark.parametrize("kind", ["threshold", "set"])
def test_paired_events_carry_their_exact_proportions(kind):
    rng = np.random.default_rng(5)
    if kind == "threshold":
        Y1, Y2 = _coupled(3000, 6, shift=0.4)
        Y1[::17] = np.nan  # NaN is never in an event
        evs = ThresholdAttack().select(Y1, Y2, CTX)
    else:
        u = rng.random(3000)
        Y1, Y2 = np.floor(u * 8), np.floor(np.minimum(u + 0.05, 0.999) * 8)
        evs = DiscreteAttack().select(Y1, Y2, CTX)
    out = paired_rescan(evs, Y1, Y2, CTX, z=1.0)
    assert out
    for e in out:
        i1, i2 = np.mean(e.indicator(Y1)), np.mean(e.indicator(Y2))
        num, den = (i1, i2) if e.orientation > 0 else (i2, i1)
        assert e.sel_props == pytest.approx((num, den), abs=1e-12)
        assert e.predicted > 0


def test_paired_scores_reduce_to_the_independent_delta_method_without_covariance():
    pn, pd, n, z = 0.3, 0.25, 5000, 1.0
    se = math.sqrt(((1 - pn) / pn + (1 - pd) / pd) / n)
    want = paired_scores(pn * math.exp(-z * se), pd, pn * math.exp(-z * se) * pd, 10**9, CTX, 0.0)
    got = paired_scores(pn, pd, pn * pd, n, CTX, z)
    assert float(got) == pytest.approx(float(want), rel=1e-9)
    assert float(paired_scores(pn, pd, pd, n, CTX, z)) > float(got)  # covariance shrinks the error
    assert float(paired_scores(0.0, pd, 0.0, n, CTX, z)) == 0.0  # an unseen side gives no paired score


def test_paired_ranking_keeps_every_event_and_rejects_unpaired_sizes():
    Y1, Y2 = _coupled(2000, 7, shift=0.3)
    evs = ThresholdAttack().select(Y1, Y2, CTX)
    ranked = paired_ranking(evs, Y1, Y2, CTX)
    assert all(any(r is e for r in ranked) for e in evs)
    with pytest.raises(ValueError, match="same number of rows"):
        paired_rescan(evs, Y1, Y2[:-1], CTX)


def test_only_the_best_features_are_rescanned(monkeypatch):
    """A wide release proposes a feature per column: the re-scan takes the ``MAX_FEATURES`` whose events the
    attacks predicted highest (the leaky column among them), and every given event is still returned."""
    from htdp_verify.privacy import paired
    from htdp_verify.privacy.attacks import CoordinateAttack

    noise = np.random.default_rng(8).laplace(0.0, 1.0, (3000, 12))
    Y1, Y2 = noise, noise + np.r_[0.5, np.zeros(11)]
    evs = CoordinateAttack().select(Y1, Y2, CTX)
    monkeypatch.setattr(paired, "MAX_FEATURES", 2)
    out = paired_rescan(evs, Y1, Y2, CTX)
    assert out and len({id(e.feature) for e in out}) <= 2
    assert out[0].feature.j == 0
    ranked = paired_ranking(evs, Y1, Y2, CTX)
    assert all(any(r is e for r in ranked) for e in evs)
