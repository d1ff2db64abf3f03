"""The pair search's best events compete in the selection's held-out comparison (``selection.SEED_EVENTS``).

Design: a two-column release whose leak lies in column 0 only (Laplace shift, ε = 1), audited with two attacks
that look at column 1 only (no signal), so that the only informative candidate is a seed event handed over from
"the search".  With seeds the main event is the seed, re-scored on the selection's held-out part (its held-out
prediction replaces whatever it brought); without them nothing informative is chosen.  A seed with an inflated
prediction but no signal is re-scored down and loses to the real one.  At these sizes (6 000 selection releases per
side, 2 000 held out) the held-out prediction of the real event is about 0.8 (predicted at 20 000 certification
releases per side) and that of a column-1 event about 0: the thresholds 0.5 and 0.2 sit many standard errors
(about 0.07 on the log-ratio) from both.
"""

from __future__ import annotations

import importlib

import numpy as np
import pytest

from htdp_verify import PrivacyClaim
from htdp_verify.privacy import audit
from htdp_verify.privacy import selection as sel_mod
from htdp_verify.privacy import selection_stream as ss
from htdp_verify.privacy.attacks import Event, IntervalAttack, ThresholdAttack, scan_intervals, scan_thresholds
from htdp_verify.privacy.attacks.events import Coordinate
from htdp_verify.privacy.plan import plan_audit
from htdp_verify.privacy.selection import selection_stage

PAIR = (np.zeros(3), np.r_[0.0, 0.0, 1.0])


def two_columns(data, size, rng):
    """Column 0: sum + Laplace(1) (the leak); column 1: Laplace(1) noise alone."""
    Y = rng.laplace(0.0, 1.0, (size, 2))
    Y[:, 0] += np.asarray(data, float).sum()
    return Y


class _Col1Thresholds(ThresholdAttack):
    name = "col1_threshold"

    def applicable(self, Y):
        return True

    def select(self, Y1, Y2, ctx):
        f = Coordinate(1)
        return scan_thresholds(f(Y1), f(Y2), ctx, f, self.name)


class _Col1Intervals(IntervalAttack):
    name = "col1_interval"

    def applicable(self, Y):
        return True

    def select(self, Y1, Y2, ctx):
        f = Coordinate(1)
        return scan_intervals(f(Y1), f(Y2), ctx, f, self.name)


def _real_seed(predicted=0.9):
    # {output[0] >= 1}: probability 1/2 under D' (sum 1), e^{-1}/2 under D -> log-ratio 1, more likely under D'
    return Event("threshold", Coordinate(0), ">=", (1.0,), -1, "search", predicted=predicted)


def _fake_seed():
    # {output[1] >= 2}: the same law on both sides, brought with a wildly optimistic prediction
    return Event("threshold", Coordinate(1), ">=", (2.0,), 1, "search", predicted=50.0)


def _plan(attacks, rng):
    return plan_audit(
        two_columns,
        PrivacyClaim(0.1),
        pairs=[PAIR],
        neighbours=None,
        n_samples=20_000,
        alpha=0.05,
        attacks=attacks,
        rng=rng,
        n_select=6000,
        n_search=None,
        n_certify=1,
        log_density=None,
        directions=None,
        profile=None,
        profile_epsilons=None,
        profile_share=0.2,
        max_candidates=4096,
        chunk_size=1_000_000,
        name=None,
    )


def _select(seeds, seed=11):
    rng = np.random.default_rng(seed)
    plan = _plan([_Col1Thresholds(), _Col1Intervals()], rng)
    return selection_stage(plan, plan.pairs[0], rng, seeds)


def test_a_seed_event_competes_and_is_rescored_on_held_out_releases():
    seed = _real_seed(predicted=0.01)  # what it brought does not matter: it is re-scored
    main = _select([seed]).main[0]
    assert main.extra.get("origin") == "pair search" and main.describe() == seed.describe()
    assert main.extra["in_sample_prediction"] == 0.01 and main.predicted > 0.5
    assert seed.predicted == 0.01  # the caller's event is not modified (a copy competed)
    assert main.to_dict()["origin"] == "pair search"


def test_a_seed_event_is_counted_on_all_the_selection_releases():
    """No selection release chose a search event, so all of them count it (6 000 per side: a third of the standard
    error of a count on the held-out 2 000 only); the attacks' events are counted on the held-out part."""
    sel = _select([_real_seed()])
    (seed,) = [e for e in sel.main if e.extra.get("origin") == "pair search"]
    assert seed.extra["held_out_per_side"] == 6000
    plan = _plan([_Col1Thresholds(), _Col1Intervals()], np.random.default_rng(0))
    k = plan.n_select - (2 * plan.n_select) // 3
    other = _select([])
    assert other.main[0].extra["held_out_per_side"] == k == 2000


def test_without_seeds_the_column_1_attacks_find_nothing(monkeypatch):
    assert _select([]).main[0].predicted < 0.2
    monkeypatch.setattr(sel_mod, "SEED_EVENTS", False)  # the switch turns the hand-over off
    main = _select([_real_seed()]).main[0]
    assert "origin" not in main.extra and main.predicted < 0.2


def test_an_optimistic_seed_without_signal_is_rescored_down():
    sel = _select([_fake_seed(), _real_seed()])
    assert sel.main[0].describe() == _real_seed().describe()
    # the fake seed alone is chosen (nothing better) but with its held-out prediction, not its 50
    alone = _select([_fake_seed()]).main[0]
    assert alone.predicted < 0.2


class _Col1Recorded(_Col1Thresholds):
    records_scans = True


class _Col1RecordedIntervals(_Col1Intervals):
    records_scans = True


def test_the_streamed_selection_counts_seeds_on_all_its_releases(monkeypatch):
    monkeypatch.setattr(ss, "FIT_CAP", 1500)
    rng = np.random.default_rng(11)
    plan = _plan([_Col1Recorded(), _Col1RecordedIntervals()], rng)
    sel = selection_stage(plan, plan.pairs[0], rng, [_real_seed(0.01)])
    if sel.n_held >= sel.n_per_side:
        pytest.fail("the selection was expected to stream (FIT_CAP below n_select)")
    main = sel.main[0]
    assert main.extra.get("origin") == "pair search" and main.predicted > 0.5
    # counted on every selection release: the held fit part, the streamed scan part and the held-out part
    assert main.extra["held_out_per_side"] == sel.n_per_side == 6000


def test_audit_hands_the_search_events_of_the_chosen_pair_to_the_selection(monkeypatch):
    seen = {}
    real = sel_mod.selection_stage

    def spy(plan, pair, rng, seeds=()):
        seen["seeds"] = list(seeds)
        seen["pair"] = pair
        return real(plan, pair, rng, seeds)

    # audit() reaches the selection through the pair choice (``runoff.choose_pair_and_events``; no run-off by default)
    monkeypatch.setattr(importlib.import_module("htdp_verify.privacy.runoff"), "selection_stage", spy)
    res = audit(
        two_columns,
        PrivacyClaim(0.1),
        pairs=[PAIR, (np.zeros(3), np.zeros(3) + [0.0, 0.0, 0.1])],
        n_samples=5000,
        n_search=4000,
        rng=np.random.default_rng(2),
    )
    assert seen["seeds"], "the search's events were not handed over"
    assert all(isinstance(e, Event) for e in seen["seeds"])
    assert res.verdict == "violated"
