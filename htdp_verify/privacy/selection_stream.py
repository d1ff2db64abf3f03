"""The streaming part of the selection stage: fit on a bounded held subsample, count the rest chunk by chunk.

An audit's selection split has ``n_select`` releases per side (by default a quarter of the certification size, so
up to millions).  Holding them all made the peak memory grow with ``n``; instead:

* the **fit** part holds :func:`fit_size` releases per side (``FIT_CAP``, or two thirds of what ``max_memory``
  holds when that is fewer): the attacks run on it as before, and each of their scans is recorded as a
  :class:`~htdp_verify.privacy.attacks.ScanFamily` (its fitted feature: learned score, direction, atoms,
  patterns; its grid of candidate thresholds, interval end points or outcomes; its counts so far);
* the **score** part reads the remaining selection releases from a block stream
  (:func:`~htdp_verify.privacy.streaming.stream_releases`, its own seed per side drawn from the audit's
  generator) and adds each chunk's counts at the fixed grids, so every family's events are chosen on the counts of
  *all* its scan releases, by the same rule and pessimism as the in-memory scan; the releases held out to compare
  attacks (the last third) are counted in the same pass (:func:`count_ranges`: each block drawn once), for every
  family and every event not chosen by a scan.  The blocks are counted in groups on the audit's backend: in this
  process, or on the workers of a Dask cluster (``audit(..., backend="dask", client=...)``), each sent the
  families without their counts; counts are integers added in any order, so the selection is the same for a seed
  on every backend and worker count.

Attacks whose events do not come from a recorded scan (a custom :class:`~htdp_verify.privacy.attacks.Attack`, or
one that rewrites its events' features) keep the events they chose on the fit part; these are still re-scored on
the held-out releases.  Counts are additive and the stream's blocks do not depend on the memory budget or chunk
size, so the selection is the same for a seed whatever ``max_memory`` (as long as it does not lower the fit part)
or ``chunk_size``.

What is lost: the grids come from the fit part, so a threshold beyond its most extreme scores (a tail event of
probability below about 1/``FIT_CAP`` on both sides) cannot be chosen, and outcomes never seen while fitting are in
no union; learned scores train on half the fit part instead of half of two thirds of ``n_select``.  Measured on a
Gaussian leak along one of 10 coordinates (the audit of ``benchmarks/bench_memory.py``, 24 seeds at 10⁶ releases
per side, claim (1, 1e-5)) the ε lower bounds matched the in-memory selection's: mean 3.07 vs 3.08 (difference
-0.01, standard error 0.04).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .adapters import draw
from .attacks import Event
from .paired import twin_generators
from .streaming import HELD_OVERHEAD, _block, block_size, held_releases_cap, parse_memory, stream_releases

__all__ = [
    "FIT_CAP",
    "MIN_SELECT",
    "SelectionStream",
    "add_chunks",
    "count_ranges",
    "draw_held",
    "fit_families",
    "fit_size",
    "non_finite_rows",
]

#: most selection releases per side the fit part holds (learned scores train on half of it).  Measured with
#: ``benchmarks/bench_memory.py`` (d = 10, 10⁶ releases per side): peak RSS 0.22 GiB with 2**17, 0.20 GiB with
#: 2**16, 0.19 GiB with 2**15, against 0.16 GiB for the imports alone and 0.17 GiB for a 10⁵ audit that holds its
#: whole selection (25 000 per side); 2**16 keeps the peak within 20 % of that from 10⁵ to 10⁷.
FIT_CAP = 2**16
#: fewest selection releases per side a memory budget may leave for the fit part (below it, fitting is guesswork)
MIN_SELECT = 200


def fit_size(n_select: int, release_nbytes: int, max_memory: Any, *, capped: bool = True) -> int:
    """Selection releases per side held in memory: all ``n_select`` when they fit (``FIT_CAP`` and
    ``max_memory``), else the fit part of a streamed selection, ``min(FIT_CAP, 2/3 of what fits in max_memory)``.

    The memory rule is :func:`~htdp_verify.privacy.streaming.held_releases_cap` (both sides held, ``HELD_OVERHEAD``
    bytes of working memory per byte held), measured on a selection whose attacks fit on two thirds of what it
    holds (the last third re-scores them); a streamed selection fits its attacks on all it holds, hence 2/3.  The
    streamed rest costs one block at a time.

    Parameters
    ----------
    n_select : int
        Selection releases per side.
    release_nbytes : int
        Bytes of one release.
    max_memory : int or str
        Memory budget.
    capped : bool, default True
        Hold at most ``FIT_CAP`` releases per side; ``False``: only the budget limits them (for attacks whose
        events do not come from recorded scans and are therefore chosen on the held releases alone, e.g. a
        caller's own ``Attack`` objects).

    Returns
    -------
    int
        Releases per side held (the rest, ``n_select`` minus it, is streamed).

    Raises
    ------
    ValueError
        When ``max_memory`` holds fewer than ``MIN_SELECT`` releases per side and ``n_select`` is larger.
    """
    n_select = int(n_select)
    cap = held_releases_cap(release_nbytes, max_memory)
    limit = FIT_CAP if capped else n_select
    if n_select <= min(limit, cap):
        return n_select
    held = min(limit, (2 * cap) // 3)
    if held < MIN_SELECT:
        raise ValueError(
            f"max_memory={max_memory!r} holds only {held} selection releases of {release_nbytes} bytes per side "
            f"to fit the attacks (at least {MIN_SELECT} are needed; about "
            f"{3 * HELD_OVERHEAD * MIN_SELECT * release_nbytes / 2**20:.1f} MiB): raise max_memory"
        )
    return held


def fit_families(attacks: list, Y1: np.ndarray, Y2: np.ndarray, ctx: Any) -> tuple[list, list[Event]]:
    """Run every attack on the fit part, recording its scans (``ctx.families`` must be a list).

    Parameters
    ----------
    attacks : list of Attack
        The audit's attacks.
    Y1, Y2 : numpy.ndarray
        The fit part's releases on D and on D'.
    ctx : SelectionContext
        The selection context; its ``families`` list receives the recorded scans.

    Returns
    -------
    families : list of ScanFamily
        The recorded scans of the attacks whose every event came from one of them.
    fixed : list of Event
        The events of the other attacks, as they chose them on the fit part.
    """
    fams = ctx.families
    if fams is None:
        raise ValueError("ctx.families must be a list (the scans are recorded in it)")
    kept, fixed = [], []
    for a in attacks:
        before = len(fams)
        evs = a.select(Y1, Y2, ctx)
        new = fams[before:]
        del fams[before:]
        feats = {id(f.feature) for f in new}
        if evs and all(id(e.feature) in feats for e in evs):
            kept += new
        else:
            fixed += evs
    fams += kept
    return kept, fixed


class SelectionStream:
    """The selection releases of one pair in order: held releases first, then a block stream per side.

    Position ``i < n_held`` of a side is row ``i - first`` of its array in ``held`` (positions below ``first``
    were used to fit the attacks and are not kept); position ``i >= n_held`` is release ``i - n_held`` of the
    side's stream (seed drawn from ``rng`` at construction, one per side).  :meth:`chunks` yields any range of
    positions from ``first`` on, chunk by chunk; non-finite streamed releases are counted in ``non_finite``.

    Parameters
    ----------
    mechanism : Mechanism or callable
        The mechanism.
    data : tuple
        ``(D, D')``.
    held : tuple of numpy.ndarray
        The held releases of D and D' from position ``first`` on (same length).
    rng : numpy.random.Generator
        The audit's generator (two seeds drawn from it).
    release_nbytes : int
        Bytes of one release (fixes the stream's blocks).
    first : int, default 0
        Position of the first row of ``held``.
    backend : str, default "serial"
        Where :func:`count_ranges` counts the streamed blocks: ``"serial"`` (this process) or ``"dask"``.
    client : distributed.Client, optional
        The Dask client (with ``backend="dask"``).
    max_memory : int or str, default "2GiB"
        Memory budget: how many blocks one call counts.
    coupled : bool, default False
        Both sides' streams from one seed (common random numbers: block ``b`` of D and of D' drawn from generators in
        the same state, so position ``i`` of the two sides is aligned as in the held releases of
        :func:`draw_held` with ``coupled=True``).
    """

    def __init__(
        self,
        mechanism: Any,
        data: tuple,
        held: tuple,
        rng: np.random.Generator,
        release_nbytes: int,
        first: int = 0,
        *,
        backend: str = "serial",
        client: Any = None,
        max_memory: int | str = "2GiB",
        coupled: bool = False,
    ):
        if backend not in ("serial", "dask"):
            raise ValueError(f"backend must be 'serial' or 'dask', got {backend!r}")
        if backend == "dask" and client is None:
            raise ValueError("backend='dask' needs client= (a distributed.Client)")
        self.mechanism, self.data, self.held, self.first = mechanism, data, held, int(first)
        self.n_held = self.first + int(np.asarray(held[0]).shape[0])
        self.entropy = [int(rng.integers(0, 2**63)) for _ in range(1 if coupled else 2)]
        if coupled:
            self.entropy *= 2
        self.release_nbytes = int(release_nbytes)
        self.non_finite = 0
        self.backend, self.client, self.max_memory = backend, client, max_memory

    def chunks(self, side: int, lo: int, hi: int):
        """Chunks of positions ``lo`` to ``hi - 1`` of ``side`` (0: D, 1: D'); ``lo`` at least ``first``.

        Parameters
        ----------
        side : int
            0 for D, 1 for D'.
        lo, hi : int
            The range of positions (``lo`` inclusive, ``hi`` exclusive).

        Yields
        ------
        numpy.ndarray
            The releases of consecutive positions, held ones first.
        """
        if lo < self.first:
            raise ValueError(f"lo must be at least {self.first} (the releases before were not kept), got {lo}")
        if lo < min(hi, self.n_held):
            yield self.held[side][lo - self.first : min(hi, self.n_held) - self.first]
        s0, s1 = max(lo, self.n_held) - self.n_held, max(hi, self.n_held) - self.n_held
        if s1 > s0:
            for y in stream_releases(
                self.mechanism, self.data[side], self.entropy[side], s0, s1, release_nbytes=self.release_nbytes
            ):
                self.non_finite += non_finite_rows(y)
                yield y


def non_finite_rows(Y: Any) -> int:
    """Releases (rows) with a NaN or infinite value.

    Parameters
    ----------
    Y : array_like
        Releases, one per row.

    Returns
    -------
    int
        How many rows hold a NaN or an infinite value (0 for non-float releases).
    """
    Y = np.asarray(Y)
    if not np.issubdtype(Y.dtype, np.floating) or Y.shape[0] == 0:
        return 0
    return int(np.count_nonzero(~np.all(np.isfinite(Y.reshape(Y.shape[0], -1)), axis=1)))


def add_chunks(stream: SelectionStream, families: list, part: str, lo: int, hi: int, fixed=(), fixed_counts=None):
    """Add positions ``lo`` to ``hi - 1`` of both sides to ``part`` of every family; ``fixed`` events are counted by
    their indicator into ``fixed_counts`` (:func:`count_ranges` with one range).

    Parameters
    ----------
    stream : SelectionStream
        The selection releases.
    families : list of ScanFamily
        The recorded scans whose counts grow.
    part : str
        The part of the counts added to (e.g. ``"scan"`` or ``"held"``).
    lo, hi : int
        The range of positions (``lo`` inclusive, ``hi`` exclusive).
    fixed : sequence of Event, optional
        Events counted by their indicator.
    fixed_counts : numpy.ndarray, optional
        Shape ``(2, len(fixed))``, incremented in place (row 0: D, row 1: D').
    """
    k = count_ranges(stream, families, [(part, lo, hi)], fixed, part if len(fixed) else None)
    if len(fixed):
        fixed_counts += k


def count_ranges(
    stream: SelectionStream, families: list, ranges: list, fixed=(), fixed_part: str | tuple[str, ...] | None = None
):
    """Count consecutive ranges of positions of both sides into the families' parts in one pass over the stream.

    ``ranges`` is a list of ``(part, lo, hi)``: positions ``lo .. hi - 1`` of both sides are added to ``part`` of
    every family (``lo`` at least ``stream.first``).  Held positions are counted here; the streamed ones block by
    block, each block drawn once even when two ranges share it, in groups of blocks counted on the stream's backend
    (this process, or the Dask workers: each gets the families without their counts, :meth:`ScanFamily.blank`).
    The releases of a block depend only on the stream's seed and the block's index, and counts are integers added
    in any order, so the families' counts are the same for a seed on every backend, worker count and memory budget.
    Each feature is computed once per chunk, however many families share it.

    Parameters
    ----------
    stream : SelectionStream
        The selection releases (and the backend that counts them).
    families : list of ScanFamily
        The recorded scans whose counts grow.
    ranges : list of tuple
        ``(part, lo, hi)`` per range.
    fixed : sequence of Event, optional
        Events counted by their indicator on the range(s) of ``fixed_part``.
    fixed_part : str or tuple of str, optional
        The part(s) of ``ranges`` on which ``fixed`` is counted, their counts added (``None``: not counted).

    Returns
    -------
    numpy.ndarray
        Counts of ``fixed``, shape ``(2, len(fixed))`` (row 0: D, row 1: D').
    """
    ranges = [(str(p), int(lo), int(hi)) for p, lo, hi in ranges]
    for _, lo, hi in ranges:
        if lo < stream.first or hi < lo:
            raise ValueError(f"ranges must lie within positions {stream.first} .. of the stream, got ({lo}, {hi})")
    fixed = list(fixed)
    parts = (fixed_part,) if isinstance(fixed_part, str) else tuple(fixed_part or ())
    r_fixed = frozenset(i for i, (p, _, _) in enumerate(ranges) if p in parts) if fixed else frozenset()
    fixed_counts = np.zeros((2, len(fixed)), dtype=np.int64)
    counters = [f.blank() for f in families]
    for side in (0, 1):  # held positions, in this process
        for r, (_, lo, hi) in enumerate(ranges):
            if lo < min(hi, stream.n_held):
                y = stream.held[side][lo - stream.first : min(hi, stream.n_held) - stream.first]
                _merge(families, ranges[r][0], side, _tally_chunk(counters, y))
                if r in r_fixed:
                    fixed_counts[side] += _count_fixed(fixed, y)
    streamed = [
        (p, max(lo, stream.n_held) - stream.n_held, max(hi, stream.n_held) - stream.n_held) for p, lo, hi in ranges
    ]
    job = _StreamJob(
        stream.mechanism,
        stream.data,
        stream.entropy,
        block_size(stream.release_nbytes),
        counters,
        [(s0, s1) for _, s0, s1 in streamed],
        fixed,
        r_fixed,
    )
    for side, tallies, k_fixed, non_finite in _run_groups(stream, job, _groups(stream, job)):
        for r, per_family in enumerate(tallies):
            _merge(families, streamed[r][0], side, per_family)
        fixed_counts[side] += k_fixed
        stream.non_finite += non_finite
    return fixed_counts


class _StreamJob:
    """What a process needs to count groups of streamed blocks: the mechanism, both sides' data and seeds, the block
    size, the families without counts, the ranges (stream positions) and the fixed events of the ranges ``r_fixed``."""

    def __init__(self, mechanism, data, entropy, block, counters, ranges, fixed, r_fixed):
        self.mechanism, self.data, self.entropy, self.block = mechanism, data, list(entropy), int(block)
        self.counters, self.ranges, self.fixed, self.r_fixed = counters, ranges, fixed, r_fixed


def _groups(stream: SelectionStream, job: _StreamJob) -> list[tuple[int, int, int]]:
    """``(side, first block, number of blocks)`` of every call: blocks of the streamed ranges, in groups of what
    ``max_memory`` allows per call (on Dask at least two calls per worker thread when there are enough blocks)."""
    B = job.block
    spans = [(s0, s1) for s0, s1 in job.ranges if s1 > s0]
    if not spans:
        return []
    b0, b1 = min(s0 for s0, _ in spans) // B, math.ceil(max(s1 for _, s1 in spans) / B)
    per_call = max(1, parse_memory(stream.max_memory) // max(B * stream.release_nbytes * 4, 1))
    if stream.backend == "dask":
        threads = max(1, sum(stream.client.nthreads().values()))
        per_call = min(per_call, max(1, (2 * (b1 - b0)) // (2 * threads)))
    return [(side, b, min(per_call, b1 - b)) for side in (0, 1) for b in range(b0, b1, per_call)]


def _run_groups(stream: SelectionStream, job: _StreamJob, groups):
    if not groups:
        return []
    if stream.backend == "dask":
        client = stream.client
        shipped = client.scatter(job, hash=False)
        futures = client.map(_count_group, [shipped] * len(groups), *[list(c) for c in zip(*groups)], pure=False)
        return client.gather(futures)
    return [_count_group(job, *g) for g in groups]


def _count_group(job: _StreamJob, side: int, first: int, n_blocks: int):
    """Tallies of blocks ``first .. first + n_blocks - 1`` of ``side``: per range, per family (``None`` where the
    range has no release there), the fixed events' counts and the non-finite releases, one block in memory."""
    B = job.block
    tallies: list[list] = [[None] * len(job.counters) for _ in job.ranges]
    k_fixed = np.zeros(len(job.fixed), dtype=np.int64)
    non_finite = 0
    for b in range(first, first + n_blocks):
        parts = [(r, max(s0, b * B), min(s1, (b + 1) * B)) for r, (s0, s1) in enumerate(job.ranges)]
        parts = [p for p in parts if p[2] > p[1]]
        if not parts:
            continue
        y = _block(job.mechanism, job.data[side], job.entropy[side], b, B)
        for r, lo, hi in parts:
            chunk = y[lo - b * B : hi - b * B]
            non_finite += non_finite_rows(chunk)
            for i, t in enumerate(_tally_chunk(job.counters, chunk)):
                if tallies[r][i] is None:
                    tallies[r][i] = t
                else:
                    tallies[r][i] += t
            if r in job.r_fixed:
                k_fixed += _count_fixed(job.fixed, chunk)
    return side, tallies, k_fixed, non_finite


def _tally_chunk(counters: list, y) -> list:
    """Each counter's tally of the releases ``y``, each distinct feature computed once."""
    scores: dict[int, Any] = {}
    out = []
    for c in counters:
        key = id(c.feature)
        if key not in scores:
            scores[key] = c.feature(y)
        out.append(c.tally(scores[key]))
    return out


def _count_fixed(fixed, y) -> np.ndarray:
    return np.array([int(np.count_nonzero(e.indicator(y))) for e in fixed], dtype=np.int64)


def _merge(families: list, part: str, side: int, tallies: list) -> None:
    for f, t in zip(families, tallies):
        if t is not None:
            f.add_tally(part, side, t)


def draw_held(
    mechanism: Any, pair: Any, n: int, rng: np.random.Generator, chunk_size: int, *, coupled: bool = False
) -> tuple:
    """The held fit releases of both sides (``n`` each, drawn from ``rng`` as the in-memory selection draws).

    Parameters
    ----------
    mechanism : Mechanism
        The audited mechanism.
    pair : Pair
        The pair audited.
    n : int
        Releases per side.
    rng : numpy.random.Generator
        The audit's generator.
    chunk_size : int
        Releases per mechanism call.
    coupled : bool, default False
        Draw the two sides from generators in the same state (:func:`~.paired.twin_generators`), row by row aligned.

    Returns
    -------
    tuple of numpy.ndarray
        The releases on D and on D'.
    """
    g1, g2 = twin_generators(rng) if coupled else (rng, rng)
    return (
        draw(mechanism, pair.d, n, g1, chunk_size=chunk_size),
        draw(mechanism, pair.d_prime, n, g2, chunk_size=chunk_size),
    )
