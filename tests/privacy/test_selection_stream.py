"""The streaming selection: a bounded fit part, the rest of the selection split counted on a block stream.

Most checks here are exact (counts are integers, so "the same" means bit for bit): a recorded scan fed its
releases in one piece or in chunks chooses the same events; the block stream gives release ``i`` whatever range it
is read in; an audit that streams its selection gives the same ε lower bound and event for a seed whatever the
memory budget or chunk size.  The memory-bound logic (:func:`fit_size`, one block per mechanism call) is checked on
the sizes the mechanism is asked for, not by timing or measuring memory.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from htdp_verify import PrivacyClaim
from htdp_verify.privacy import audit
from htdp_verify.privacy import selection_stream as ss
from htdp_verify.privacy.attacks import (
    ATTACK_NAMES,
    Attack,
    DiscreteAttack,
    Event,
    Identity,
    ScanFamily,
    SelectionContext,
    ThresholdAttack,
    scan_intervals,
    scan_thresholds,
)
from htdp_verify.privacy.attacks.structured import AtomKey
from htdp_verify.privacy.plan import plan_audit
from htdp_verify.privacy.selection import selection_stage
from htdp_verify.privacy.streaming import block_size, stream_releases


def lap(data, size, rng):
    return np.asarray(data, float).sum() + rng.laplace(0.0, 1.0, size)


def vec(data, size, rng):
    """Releases of 1000 doubles (8 kB): the stream's blocks hold 4194 of them."""
    Y = rng.standard_normal((size, 1000))
    Y[:, 0] += np.asarray(data, float).sum()
    return Y


PAIR = (np.zeros(3), np.r_[0.0, 0.0, 1.0])


def _ctx(**kw):
    return SelectionContext(n_final=10**6, alpha=0.05, delta=1e-5, families=[], **kw)


def _chunks(x, k):
    return np.array_split(x, k)


@pytest.mark.parametrize("scan", [scan_thresholds, scan_intervals])
def test_a_recorded_scan_counts_the_same_in_one_piece_or_in_chunks(scan):
    rng = np.random.default_rng(1)
    fit1, fit2 = rng.laplace(0, 1, 2000), rng.laplace(1, 1, 2000)
    more1, more2 = rng.laplace(0, 1, 30_000), rng.laplace(1, 1, 30_000)
    more1[::97] = np.nan  # NaN scores are never in an event but count as releases
    ctx = _ctx()
    scan(fit1, fit2, ctx, Identity(), "t")
    ctx2 = _ctx()
    scan(fit1, fit2, ctx2, Identity(), "t")
    whole, chunked = ctx.families[0], ctx2.families[0]
    whole.add_scores("scan", 0, more1)
    whole.add_scores("scan", 1, more2)
    for c in _chunks(more1, 7):
        chunked.add_scores("scan", 0, c)
    for c in _chunks(more2, 3):
        chunked.add_scores("scan", 1, c)
    a, b = whole.events(), chunked.events()
    assert [(e.describe(), e.orientation, e.predicted, e.sel_props) for e in a] == [
        (e.describe(), e.orientation, e.predicted, e.sel_props) for e in b
    ]
    # the counts behind each chosen event are its indicator counted on all 32 000 releases per side
    all1, all2 = np.concatenate([fit1, more1]), np.concatenate([fit2, more2])
    for e in a:
        k1, n1, k2, n2 = whole.counts(e, "scan")
        assert (n1, n2) == (32_000, 32_000)
        assert k1 == np.count_nonzero(e.indicator(all1)) and k2 == np.count_nonzero(e.indicator(all2))
        pn, pd = (k1 / n1, k2 / n2) if e.orientation > 0 else (k2 / n2, k1 / n1)
        assert e.sel_props == (pn, pd)


def test_a_set_family_counts_outcomes_and_ignores_new_ones():
    rng = np.random.default_rng(2)
    fit1, fit2 = rng.integers(0, 6, 3000), rng.integers(0, 6, 3000) + (rng.random(3000) < 0.3)
    ctx = _ctx()
    DiscreteAttack().select(fit1, fit2, ctx)
    (fam,) = ctx.families
    more1, more2 = rng.integers(0, 8, 10_000), rng.integers(0, 8, 10_000)  # 7 was never seen while fitting
    for c in _chunks(more1, 4):
        fam.add_scores("held", 0, c)
    fam.add_scores("held", 1, more2)
    for e in fam.events():
        k1, n1, k2, n2 = fam.counts(e, "held")
        assert (n1, n2) == (10_000, 10_000)
        assert k1 == np.count_nonzero(e.indicator(more1)) and k2 == np.count_nonzero(e.indicator(more2))
        assert 7 not in set(e.params[0].tolist())
    other = ScanFamily("set", AtomKey([0.0]), "a", ctx, np.array([-1, 0]))
    with pytest.raises(ValueError, match="not chosen by this family"):
        other.counts(fam.events()[0])
    with pytest.raises(ValueError, match="kind"):
        ScanFamily("cone", Identity(), "a", ctx, np.zeros(2))


def test_stream_releases_give_release_i_whatever_the_range():
    entropy = 12345
    b = block_size(8)
    whole = np.concatenate(list(stream_releases(lap, PAIR[0], entropy, 0, 2 * b + 10, release_nbytes=8)))
    parts = [(0, 17), (17, b + 3), (b + 3, b + 3), (b + 3, 2 * b + 10)]
    pieces = np.concatenate(
        [y for lo, hi in parts for y in stream_releases(lap, PAIR[0], entropy, lo, hi, release_nbytes=8)]
    )
    np.testing.assert_array_equal(whole, pieces)
    assert whole.size == 2 * b + 10 and np.unique(whole).size == whole.size  # no block repeated
    assert all(y.shape[0] <= b for y in stream_releases(lap, PAIR[0], entropy, 5, 3 * b, release_nbytes=8))


def test_fit_size_memory_rule():
    assert ss.fit_size(10**6, 8, "2GiB") == ss.FIT_CAP  # small releases: the fixed cap binds
    cap = 2**31 // (2 * 4 * 8000)  # 33 554 releases of 8 kB per side fit 2 GiB (HELD_OVERHEAD 4)
    assert ss.fit_size(cap, 8000, "2GiB") == cap  # held whole: its attacks fit on two thirds of it
    assert ss.fit_size(cap + 1, 8000, "2GiB") == (2 * cap) // 3  # streamed: its attacks fit on all it holds
    assert ss.fit_size(1000, 8, "2GiB") == 1000  # a small selection is held whole
    assert ss.fit_size(10**6, 8, "2GiB", capped=False) == 10**6  # only the budget limits an uncapped fit part
    assert ss.fit_size(10**8, 8, "2GiB", capped=False) == (2 * (2**31 // 64)) // 3
    assert ss.fit_size(100, 8, 2**13) == 100  # 128 fit: enough for a selection below MIN_SELECT
    with pytest.raises(ValueError, match=r"max_memory=8192 holds only 85 "):
        ss.fit_size(5000, 8, 2**13)


def _selection(monkeypatch, fit_cap, **kw):
    monkeypatch.setattr(ss, "FIT_CAP", fit_cap)
    args = dict(
        pairs=[PAIR],
        neighbours=None,
        n_samples=40_000,
        alpha=0.05,
        attacks="auto",
        rng=np.random.default_rng(5),
        n_select=10_000,  # the geometry the tests below count on (the default would be max(2000, n // 8))
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
    args.update(kw)
    mech = args.pop("mechanism", lap)
    plan = plan_audit(mech, PrivacyClaim(1.0), **args)
    return selection_stage(plan, plan.pairs[0], args["rng"])


def test_the_selection_streams_what_it_does_not_hold(monkeypatch):
    sel = _selection(monkeypatch, 3000)
    assert sel.n_per_side == 10_000 and sel.n_held == 3000 and sel.drawn == 20_000 and not sel.capped
    # three attacks (threshold, interval, atoms) compete: the main event was re-scored on the last third
    e = sel.main[0]
    assert "in_sample_prediction" in e.extra and e.predicted > 0
    k = [np.count_nonzero(e.indicator(y)) for y in _last_third(monkeypatch, e)]
    pn, pd = (k[0], k[1]) if e.orientation > 0 else (k[1], k[0])
    n_held_out = 10_000 - (2 * 10_000) // 3
    assert e.sel_props == (pn / n_held_out, pd / n_held_out)
    whole = _selection(monkeypatch, 10**6)  # everything held: the in-memory selection of the same split
    assert whole.n_held == whole.n_per_side == 10_000
    # both find the Laplace shift (ε = 1; held-out predictions ~0.93 at this seed): streaming loses no power here
    assert whole.main[0].predicted > 0.75 and e.predicted > 0.75
    assert abs(whole.main[0].predicted - e.predicted) < 0.15


def _last_third(monkeypatch, e):
    """The held-out releases of the streamed selection above, redrawn from the same seed."""
    from htdp_verify.privacy import selection
    from htdp_verify.privacy.adapters import draw
    from htdp_verify.privacy.paired import twin_generators

    rng = np.random.default_rng(5)  # the plan draws nothing; the selection draws the held part, then the seeds
    if selection.COUPLED_SELECT:  # both sides from one seed (common random numbers), held part and stream alike
        g1, g2 = twin_generators(rng)
        draw(lap, PAIR[0], 3000, g1)
        draw(lap, PAIR[1], 3000, g2)
        entropy = [int(rng.integers(0, 2**63))] * 2
    else:
        draw(lap, PAIR[0], 3000, rng)
        draw(lap, PAIR[1], 3000, rng)
        entropy = [int(rng.integers(0, 2**63)) for _ in range(2)]
    cut = (2 * 10_000) // 3
    return [
        np.concatenate(list(stream_releases(lap, d, s, cut - 3000, 10_000 - 3000, release_nbytes=8)))
        for d, s in zip(PAIR, entropy)
    ]


def test_streamed_audit_is_identical_across_memory_budgets_and_chunk_sizes(monkeypatch):
    monkeypatch.setattr(ss, "FIT_CAP", 3000)
    out = []
    for max_memory, chunk_size in (("2GiB", 1_000_000), (2**20, 777), (4500 * 8 * 8, 1000)):
        r = audit(
            lap,
            PrivacyClaim(1.0),
            pairs=[PAIR],
            n_samples=40_000,
            rng=np.random.default_rng(9),
            max_memory=max_memory,
            chunk_size=chunk_size,
        )
        out.append((r.epsilon_lb, r.details["event"]["event"], r.counts))
    assert out[1] == out[0] and out[2] == out[0]
    assert out[0][0] > 0.5  # Laplace(1) shifted by 1 (ε = 1): found with 40 000 releases per side
    # a budget that lowers the fit part changes the fit, as documented (the check above can fail)
    r = audit(lap, PrivacyClaim(1.0), pairs=[PAIR], n_samples=40_000, rng=np.random.default_rng(9), max_memory=2**15)
    assert (r.epsilon_lb, r.details["event"]["event"], r.counts) != out[0]


def test_the_mechanism_is_asked_for_one_block_at_a_time(monkeypatch):
    sizes = []

    def spy(data, size, rng):
        sizes.append(size)
        return vec(data, size, rng)

    sel = _selection(monkeypatch, 1000, mechanism=spy, n_samples=40_000, chunk_size=500, attacks="projection")
    assert sel.n_held == 1000 and sel.n_per_side == 10_000 and sel.release_nbytes == 8000
    assert max(sizes) == block_size(8000) == 4194  # held part in calls of 500, the rest one block per call
    assert sizes.count(500) >= 4  # 2 x 1000 held (the probe asks for one)


class _Rewritten(Attack):
    """Events whose feature is not the one their scan recorded (as a post-processing wrapper makes them)."""

    name = "rewritten"

    def select(self, Y1, Y2, ctx):
        evs = scan_thresholds(-np.asarray(Y1), -np.asarray(Y2), dataclasses.replace(ctx), Identity(), self.name)
        for e in evs:
            e.feature = _Neg()
        return evs


class _Neg(Identity):
    name = "-output"

    def __call__(self, Y):
        return -super().__call__(Y)


def test_attacks_without_a_recorded_scan_keep_their_fitted_events(monkeypatch):
    # a caller's own attack may not record scans: the selection then holds all the memory budget allows, not
    # FIT_CAP (here all 10 000 releases per side) ...
    sel = _selection(monkeypatch, 3000, attacks=["threshold", _Rewritten()], profile=True)
    assert sel.n_held == sel.n_per_side == 10_000
    # ... and streams the rest only when the budget binds (4 500 releases of 8 bytes per side fit 288 000 bytes,
    # two thirds of them are held), its events chosen on the held part
    sel = _selection(monkeypatch, 3000, attacks=["threshold", _Rewritten()], profile=True, max_memory=288_000)
    assert sel.n_held == 3000 and sel.n_per_side == 10_000 and set(sel.attacks) == {"threshold", "rewritten"}
    assert sel.main[0].predicted > 0 and len(sel.profile) == 13  # 12 deltas and the GDP mu
    fams, fixed = ss.fit_families([_Rewritten()], np.zeros(50), np.ones(50), _ctx())
    assert fams == [] and len(fixed) == 4 and all(isinstance(e.feature, _Neg) for e in fixed)
    with pytest.raises(ValueError, match="families"):
        ss.fit_families([_Rewritten()], np.zeros(50), np.ones(50), SelectionContext(n_final=10, alpha=0.05))


class _OwnThreshold(ThresholdAttack):
    """A caller's own family built on an engine scan: it inherits ``records_scans``."""

    name = "own_threshold"


class _OwnPlain(Attack):
    """A caller's own family that declares nothing (its events come from a recorded scan all the same)."""

    name = "own_plain"

    def select(self, Y1, Y2, ctx):
        return scan_thresholds(np.asarray(Y1), np.asarray(Y2), ctx, Identity(), self.name)


def test_the_declared_records_scans_attribute_decides_what_is_held(monkeypatch):
    assert not Attack.records_scans and _OwnThreshold.records_scans and not _OwnPlain.records_scans
    assert all(c.records_scans for c in ATTACK_NAMES.values())  # every engine family declares it
    # a caller's subclass of a scan-based family keeps streaming: FIT_CAP held, the rest counted on the stream
    sel = _selection(monkeypatch, 3000, attacks=[_OwnThreshold()])
    assert sel.n_held == 3000 and sel.n_per_side == 10_000 and sel.attacks == ["own_threshold"]
    # the same family defined outside the engine without the declaration holds what max_memory allows ...
    sel = _selection(monkeypatch, 3000, attacks=[_OwnPlain()])
    assert sel.n_held == sel.n_per_side == 10_000
    # ... and so does a mixture with an engine family, as long as one attack does not declare it
    sel = _selection(monkeypatch, 3000, attacks=["threshold", _OwnPlain()])
    assert sel.n_held == sel.n_per_side == 10_000
    # a declared subclass that stops scanning can switch it off
    monkeypatch.setattr(_OwnThreshold, "records_scans", False)
    sel = _selection(monkeypatch, 3000, attacks=[_OwnThreshold()])
    assert sel.n_held == sel.n_per_side == 10_000


def test_the_profile_rechooses_the_best_family_on_all_its_releases(monkeypatch):
    sel = _selection(monkeypatch, 3000, profile=True)
    assert sel.n_held == 3000 and len(sel.profile) == 13  # 12 deltas and the GDP mu
    best = sel.main[0]
    assert all(p.feature is best.feature and p.kind == best.kind for p in sel.profile)
    # the GDP mu event is chosen by its own objective on the same feature's counts (scan and held-out parts)
    assert sel.profile[-1].predicted > 0 and sel.methods[0] in ("cp", "poisson")


def _nan_lap(data, size, rng):
    """Laplace releases, one in 50 of them NaN (non-finite releases are counted once each)."""
    y = lap(data, size, rng)
    y[rng.random(size) < 0.02] = np.nan
    return y


def _families(Y1, Y2):
    ctx = _ctx()
    scan_thresholds(Y1, Y2, ctx, Identity(), "t")
    scan_intervals(Y1, Y2, ctx, ctx.families[0].feature, "i")  # shares the feature: computed once per chunk
    return ctx.families


def test_one_pass_counts_both_ranges_as_two_passes_do(monkeypatch):
    from htdp_verify.privacy import streaming

    monkeypatch.setattr(streaming, "MAX_BLOCK", 256)  # blocks of 256 releases (MIN_BLOCK is 64)
    rng = np.random.default_rng(3)
    fit, held, cut, n = 300, 500, 1700, 3000  # positions 300..499 held, 500..2999 streamed (10 blocks per side)
    Y = [_nan_lap(d, held, rng) for d in PAIR]
    fixed = [
        Event("threshold", Identity(), ">=", (0.7,), 1, "f"),
        Event("threshold", Identity(), "<=", (0.0,), -1, "f"),
    ]
    calls = []

    def spy(data, size, g):
        calls.append(size)
        return _nan_lap(data, size, g)

    def stream(seed, mech=_nan_lap):
        return ss.SelectionStream(mech, PAIR, (Y[0][fit:], Y[1][fit:]), np.random.default_rng(seed), 8, first=fit)

    one = _families(Y[0][:fit], Y[1][:fit])
    s1 = stream(7, spy)
    k = ss.count_ranges(s1, one, [("scan", fit, cut), ("held", cut, n)], fixed, "held")
    assert calls == [256] * 20  # each streamed block drawn once, although block 4 (1024..1279) holds both ranges
    two = _families(Y[0][:fit], Y[1][:fit])
    s2, ref = stream(7), np.zeros((2, 2), dtype=np.int64)
    for part, lo, hi, fx in (("scan", fit, cut, ()), ("held", cut, n, fixed)):  # the reference: chunk by chunk
        for side in (0, 1):
            for y in s2.chunks(side, lo, hi):
                for f in two:
                    f.add(part, side, y)
                for i, e in enumerate(fx):
                    ref[side, i] += np.count_nonzero(e.indicator(y))
    np.testing.assert_array_equal(k, ref)
    for a, b in zip(one, two):
        for part in ("scan", "held"):
            for ta, tb in zip(a.parts[part], b.parts[part]):
                assert (ta.n, ta.nv) == (tb.n, tb.nv)
                np.testing.assert_array_equal(ta.lt, tb.lt)
                np.testing.assert_array_equal(ta.le, tb.le)
    assert one[0].sizes(("scan", "held")) == (n, n)
    assert s1.non_finite == s2.non_finite > 0  # streamed NaN releases, each counted once
    # the comparison can fail: another seed of the stream gives other counts
    other = _families(Y[0][:fit], Y[1][:fit])
    k_other = ss.count_ranges(stream(8), other, [("scan", fit, cut), ("held", cut, n)], fixed, "held")
    assert not np.array_equal(k_other, k) and not np.array_equal(
        other[0].parts["held"][0].lt, one[0].parts["held"][0].lt
    )
    with pytest.raises(ValueError, match="ranges"):
        ss.count_ranges(stream(7), one, [("scan", fit - 1, cut)])


def test_dask_workers_count_the_streamed_selection_as_this_process_does(monkeypatch):
    distributed = pytest.importorskip("distributed")
    from htdp_verify.privacy import streaming

    monkeypatch.setattr(ss, "FIT_CAP", 1000)
    monkeypatch.setattr(streaming, "MAX_BLOCK", 256)  # 6000 - 1000 streamed selection releases: 20 blocks per side

    def run(**kw):
        r = audit(
            _nan_lap,
            PrivacyClaim(1.0),
            pairs=[PAIR],
            n_samples=24_000,
            n_select=6000,
            rng=np.random.default_rng(11),
            **kw,
        )
        return r.epsilon_lb, r.details["event"]["event"], r.counts, r.details["samples"], r.details["selection"]

    serial = run()
    assert serial[3]["n_select_held_per_side"] == 1000 and serial[3]["n_select_per_side"] == 6000
    with (
        distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as lc,
        distributed.Client(lc) as client,
        distributed.get_task_stream(client) as ts,
    ):
        viadask = run(backend="dask", client=client)
        small_calls = run(backend="dask", client=client, max_memory=2**19)  # other groups of blocks per call
    assert viadask == serial and small_calls == serial
    workers = {t["worker"] for t in ts.data if t["key"].startswith("_count_group")}
    assert len(workers) == 2  # both workers counted selection blocks
