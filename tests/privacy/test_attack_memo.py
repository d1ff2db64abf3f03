"""Per-array memory of costly first steps of event families (``attacks.memo.ArrayMemo``; the pattern codes shared by
the stratified events of an SVT-type release) and the cached thread-pool controller of learned scores.  Both are
speed-ups only: every event must evaluate to exactly what it did without them."""

from __future__ import annotations

import gc
import pickle

import numpy as np
import pytest

from htdp_verify.privacy.attacks import events as events_mod
from htdp_verify.privacy.attacks.memo import ArrayMemo
from htdp_verify.privacy.attacks.structured import PatternKey, StratifiedValue


def test_array_memo_computes_once_per_live_array_and_forgets_dead_ones():
    calls = []

    def f(Y):
        calls.append(1)
        return Y.sum()

    memo = ArrayMemo()
    a, b, c = np.arange(3.0), np.arange(4.0), np.arange(5.0)
    assert memo.get(a, f) == 3 and memo.get(a, f) == 3 and len(calls) == 1
    assert memo.get(a.copy(), f) == 3 and len(calls) == 2  # equal values, another object: computed again
    memo.get(b, f), memo.get(c, f)  # size 2: a falls out
    n = len(calls)
    memo.get(a, f)
    assert len(calls) == n + 1
    del b, c
    gc.collect()
    assert len(memo._memo) == 1  # only a is remembered: the dead arrays' entries are gone
    assert memo.get([1.0, 2.0], sum) == 3.0 and len(memo._memo) == 1  # a list cannot be weakly referenced
    clone = pickle.loads(pickle.dumps(memo))
    assert clone._memo == [] and clone.size == 2
    with pytest.raises(ValueError, match="size"):
        ArrayMemo(0)


def _svt_like(n, rng):
    """Releases mixing atoms (0 = ⊥, 1 = ⊤) with one real column per row."""
    Y = (rng.random((n, 4)) < 0.3).astype(float)
    pos = rng.integers(0, 5, n)
    rows = np.nonzero(pos < 4)[0]
    Y[rows, pos[rows]] = rng.normal(2.0, 1.0, rows.size)
    return Y


def test_stratified_events_evaluate_to_the_same_values_with_a_shared_pattern_memo():
    rng = np.random.default_rng(3)
    Y = _svt_like(3000, rng)
    atoms = [np.array([0.0, 1.0])] * 4
    shared = PatternKey(atoms)
    groups = [("pattern", (0, 2, 1, 0), None), ("first", 1, 4), ("first", 0, 2)]
    for g in groups:
        fresh = StratifiedValue(PatternKey(atoms), g, "g")(Y.copy())
        np.testing.assert_array_equal(StratifiedValue(shared, g, "g")(Y), fresh)
    assert len(shared._memo._memo) == 1  # one evaluation of the codes for the three events
    C, value, first = shared.parts(Y)
    np.testing.assert_array_equal(shared.codes(Y), C)
    np.testing.assert_array_equal(shared(Y), PatternKey(atoms)(Y.copy()))
    assert pickle.loads(pickle.dumps(StratifiedValue(shared, groups[0], "g"))).pattern._memo._memo == []


def test_the_thread_limit_holds_inside_and_the_controller_is_reused():
    from threadpoolctl import threadpool_info

    with events_mod._threads(1):
        inside = {i["internal_api"]: i["num_threads"] for i in threadpool_info()}
    assert all(v == 1 for v in inside.values())
    c1 = events_mod._controller()
    assert events_mod._controller() is c1  # no new import in between: the same controller
