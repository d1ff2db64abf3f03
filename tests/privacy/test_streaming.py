"""Certification counts in fixed blocks: identical for a seed whatever the memory budget or backend (serial, Dask)."""

from __future__ import annotations

import numpy as np
import pytest

from htdp_verify import PrivacyClaim
from htdp_verify.privacy import audit
from htdp_verify.privacy.attacks import Event, Identity
from htdp_verify.privacy.streaming import (
    _count_blocks,
    block_size,
    call_plan,
    count_streamed,
    count_streamed_blocks,
    count_streamed_sides,
    held_releases_cap,
    parse_memory,
    probe_release_nbytes,
)


def lap(data, size, rng):
    return np.asarray(data, float).sum() + rng.laplace(0.0, 1.0, size)


EVENTS = [Event("threshold", Identity(), ">=", (0.5,), 1, "t"), Event("threshold", Identity(), "<=", (-1.0,), 1, "t")]


def test_counts_do_not_depend_on_the_memory_budget():
    out = [
        count_streamed(lap, np.zeros(3), 300_000, EVENTS, np.random.default_rng(4), release_nbytes=8, max_memory=m)
        for m in (2**12, "1MiB", "2GiB")
    ]
    for o in out[1:]:
        np.testing.assert_array_equal(o, out[0])
    # and they are counts of Laplace(0, 1) releases: P(Y >= 0.5) = 0.303, P(Y <= -1) = 0.184
    assert abs(out[0][0] / 300_000 - 0.5 * np.exp(-0.5)) < 0.005 and abs(out[0][1] / 300_000 - 0.5 * np.exp(-1)) < 0.005


def test_audit_is_identical_across_memory_budgets():
    pair = (np.zeros(3), np.r_[0.0, 0.0, 1.0])
    # 512 KiB holds the 2 x 2000 selection releases (x HELD_OVERHEAD) and exactly one certification
    # block (65 536 releases of 8 bytes), so certification counts one block per call instead of all four at once
    a = audit(lap, PrivacyClaim(1.0), pairs=[pair], n_samples=200_000, n_select=2000, rng=np.random.default_rng(9))
    b = audit(
        lap,
        PrivacyClaim(1.0),
        pairs=[pair],
        n_samples=200_000,
        n_select=2000,
        rng=np.random.default_rng(9),
        max_memory=2**19,
    )
    assert a.counts == b.counts and a.estimate == b.estimate


def test_selection_holds_what_fits_in_the_memory_budget():
    """The default n_select (n_samples // 8 = 25 000 per side) is not lowered to fit 1 MiB: the selection
    holds two thirds of what fits (10 922 per side) to fit the attacks and streams the rest; an explicit n_select is
    kept too; a budget that cannot hold MIN_SELECT releases per side raises."""
    pair = (np.zeros(3), np.r_[0.0, 0.0, 1.0])
    cap = held_releases_cap(8, 2**20)
    assert cap == 2**20 // (2 * 4 * 8) < 25_000
    r = audit(lap, PrivacyClaim(1.0), pairs=[pair], n_samples=200_000, rng=np.random.default_rng(9), max_memory=2**20)
    s = r.details["samples"]
    assert s["n_select_per_side"] == 25_000 and s["n_select_lowered_to_fit_max_memory"] is False
    assert s["n_select_held_per_side"] == (2 * cap) // 3  # the attacks fit on the held part, two thirds of cap
    assert r.verdict == "consistent" and r.epsilon_lb > 0.5  # Laplace(1) shifted by 1: ε = 1 exactly
    given = audit(
        lap,
        PrivacyClaim(1.0),
        pairs=[pair],
        n_samples=200_000,
        n_select=50_000,
        rng=np.random.default_rng(9),
        max_memory=2**20,
    )
    assert given.details["samples"]["n_select_per_side"] == 50_000
    with pytest.raises(ValueError, match=r"max_memory=8192 holds only"):
        audit(lap, PrivacyClaim(1.0), pairs=[pair], n_samples=200_000, rng=np.random.default_rng(9), max_memory=2**13)


def test_probing_the_release_size_does_not_advance_the_stream():
    rng = np.random.default_rng(3)
    assert probe_release_nbytes(lap, np.zeros(3), rng) == 8
    assert rng.random() == np.random.default_rng(3).random()


def test_block_size_and_memory_parsing():
    assert block_size(8) == 1 << 16 and block_size(8000 * 1000) == 64
    assert parse_memory("2GiB") == 2 * 2**30 and parse_memory(1000) == 1000
    with pytest.raises(ValueError, match="max_memory"):
        parse_memory("lots")
    with pytest.raises(ValueError, match="backend"):
        audit(
            lap,
            PrivacyClaim(1.0),
            pairs=[(np.zeros(2), np.ones(2) * 0)],
            n_samples=100,
            rng=np.random.default_rng(0),
            backend="spark",
        )


def test_dask_local_cluster_gives_the_same_audit():
    distributed = pytest.importorskip("distributed")
    pair = (np.zeros(3), np.r_[0.0, 0.0, 1.0])
    serial = audit(
        lap, PrivacyClaim(1.0), pairs=[pair], n_samples=200_000, rng=np.random.default_rng(9), max_memory=2**20
    )
    with (
        distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as lc,
        distributed.Client(lc) as client,
    ):
        viadask = audit(
            lap,
            PrivacyClaim(1.0),
            pairs=[pair],
            n_samples=200_000,
            rng=np.random.default_rng(9),
            max_memory=2**20,
            backend="dask",
            client=client,
        )
    assert viadask.counts == serial.counts and viadask.estimate == serial.estimate


def test_call_plan_covers_every_block_once_largest_calls_first():
    for n_blocks, cap, threads in [(8, 100, 2), (32, 100, 2), (32, 3, 2), (1, 5, 4), (1000, 1024, 8), (7, 2, 0)]:
        plan = call_plan(n_blocks, cap, threads)
        starts = [s for s, _ in plan]
        assert starts == [0] + list(np.cumsum([k for _, k in plan])[:-1])  # contiguous, in order
        assert sum(k for _, k in plan) == n_blocks and all(1 <= k <= cap for _, k in plan)
        sizes = [k for _, k in plan]
        if threads:
            assert sizes == sorted(sizes, reverse=True) and sizes[-1] == 1  # a single block last
            assert len(plan) >= min(n_blocks, 2 * threads)  # every worker thread gets work
    assert call_plan(8, 100, 2) == [(0, 2), (2, 2), (4, 1), (5, 1), (6, 1), (7, 1)]
    assert call_plan(7, 2) == [(0, 2), (2, 2), (4, 2), (6, 1)] and call_plan(0, 4, 2) == []
    with pytest.raises(ValueError, match="per_call"):
        call_plan(8, 0, 2)


def test_counts_are_sums_over_blocks_whatever_the_plan():
    """The counts of any plan equal the one-block-per-call counts; a plan that skips a block does not (the check
    can fail)."""
    n, block, entropy = 5 * 4096 - 77, 4096, 123
    per_block = [_count_blocks(lap, np.zeros(3), EVENTS, entropy, b, 1, block, n)[0] for b in range(5)]
    whole = np.sum(per_block, axis=0)
    for plan in (call_plan(5, 5, 1), call_plan(5, 2, 2), call_plan(5, 1, 3), call_plan(5, 3)):
        got = np.sum(
            [_count_blocks(lap, np.zeros(3), EVENTS, entropy, s, k, block, n).sum(axis=0) for s, k in plan], axis=0
        )
        np.testing.assert_array_equal(got, whole)
    skipped = np.sum([per_block[b] for b in (0, 1, 3, 4)], axis=0)
    assert not np.array_equal(skipped, whole)


def _successive(sides, seed, **kw):
    rng = np.random.default_rng(seed)
    return [count_streamed(lap, d, n, EVENTS, rng, release_nbytes=8, **kw) for d, n in sides]


SIDES = [(np.zeros(3), 2 * 65536 + 5), (np.r_[0.0, 0.0, 1.0], 3 * 65536 - 7), (np.ones(3), 0)]


def test_sides_counted_at_once_equal_successive_counts():
    """One plan over several inputs gives each input the counts of its own count_streamed call (seeds drawn in
    order); swapping the inputs changes them (the check can fail)."""
    for m in ("2GiB", 2**21):
        got = count_streamed_sides(lap, SIDES, EVENTS, np.random.default_rng(6), release_nbytes=8, max_memory=m)
        for a, b in zip(got, _successive(SIDES, 6, max_memory=m)):
            np.testing.assert_array_equal(a, b)
    swapped = count_streamed_sides(lap, SIDES[1::-1], EVENTS, np.random.default_rng(6), release_nbytes=8)
    assert not np.array_equal(swapped[0], got[1])
    assert got[2].tolist() == [0, 0]


def test_quiet_local_cluster_counts_like_serial():
    """Dask counts (scattered job, guided plan) equal the serial ones for block-aligned, ragged, sub-block and
    one-block-per-call sizes; the cluster's workers run without the profiler."""
    pytest.importorskip("distributed")
    from distributed import Client

    from htdp_verify.montecarlo.backends import local_cluster

    cases = [(4 * 65536, "2GiB"), (3 * 65536 + 11, "2GiB"), (1000, "2GiB"), (3 * 65536 + 11, 2**21)]
    serial = [
        count_streamed(lap, np.zeros(3), n, EVENTS, np.random.default_rng(8), release_nbytes=8, max_memory=m)
        for n, m in cases
    ]
    with local_cluster(2) as lc, Client(lc) as client:
        profiled = client.run(lambda: __import__("dask").config.get("distributed.worker.profile.enabled"))
        viadask = [
            count_streamed(
                lap,
                np.zeros(3),
                n,
                EVENTS,
                np.random.default_rng(8),
                release_nbytes=8,
                max_memory=m,
                backend="dask",
                client=client,
            )
            for n, m in cases
        ]
        sides = count_streamed_sides(
            lap, SIDES, EVENTS, np.random.default_rng(6), release_nbytes=8, backend="dask", client=client
        )
    assert list(profiled.values()) == [False, False]
    for a, b in zip(sides, _successive(SIDES, 6)):
        np.testing.assert_array_equal(a, b)
    for a, b in zip(serial, viadask):
        np.testing.assert_array_equal(a, b)


def test_min_blocks_cuts_small_sides_and_leaves_large_ones_as_they_were():
    # A side of at least min_blocks usual blocks is drawn exactly as without min_blocks (the full bench's
    # certification keeps its draws); a smaller one is cut into min_blocks calls whose counts sum to the total.
    big = [(np.zeros(3), 16 * 65536 + 9)]
    plain = count_streamed_sides(lap, big, EVENTS, np.random.default_rng(4), release_nbytes=8)
    blocks = count_streamed_blocks(lap, big, EVENTS, np.random.default_rng(4), release_nbytes=8, min_blocks=16)
    ((bc, size),) = blocks
    assert size == 65536 and bc.shape == (17, len(EVENTS))
    np.testing.assert_array_equal(bc.sum(axis=0), plain[0])
    small = [(np.zeros(3), 20_000), (np.r_[0.0, 0.0, 1.0], 19_990)]
    got = count_streamed_blocks(lap, small, EVENTS, np.random.default_rng(5), release_nbytes=8, min_blocks=16)
    assert [s for _, s in got] == [1250, 1250] and [b.shape[0] for b, _ in got] == [16, 16]
    sums = count_streamed_sides(lap, small, EVENTS, np.random.default_rng(5), release_nbytes=8, min_blocks=16)
    for (b, _), total in zip(got, sums):
        np.testing.assert_array_equal(b.sum(axis=0), total)
    one = count_streamed_sides(lap, small, EVENTS, np.random.default_rng(5), release_nbytes=8)  # one call per side
    assert not all(np.array_equal(a, b) for a, b in zip(one, sums))  # the cut draws other releases (same law)
