"""Counting events on a stream of releases in fixed blocks: bounded memory, any backend, the same counts.

Certification draws up to 10⁷ releases per side and keeps none of them: only how many fall in each event.  The
releases are generated in *blocks* of a fixed size, each from its own generator, a child of one
:class:`numpy.random.SeedSequence` drawn from the audit's ``rng`` (``SeedSequence(entropy, spawn_key=(b,))`` for
block ``b``).  Counts are additive, so blocks can be grouped into chunks of any size, counted in any order, in
this process or on a Dask cluster, and the result is the same for a seed.  The block size depends only on the size
of one release (a block holds at most :data:`BLOCK_BYTES`), never on the memory budget or the backend; the memory
budget only decides how many blocks a worker counts per call.

The search stage and the *fit* part of the selection must hold their releases (attacks fit scores on them), so the
memory budget caps how many they hold: :func:`held_releases_cap` gives the most releases per side that fit, from
the size of one release (:func:`probe_release_nbytes`, drawn from a copy of the generator so the audit's stream is
untouched).  The rest of the selection releases are read from a block stream (:func:`stream_releases`) and only
counted, like the certification's.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .._validate import check_int

__all__ = [
    "BLOCK_BYTES",
    "MAX_BLOCK",
    "HELD_OVERHEAD",
    "block_size",
    "call_plan",
    "count_streamed",
    "count_streamed_sides",
    "count_streamed_blocks",
    "held_releases_cap",
    "parse_memory",
    "probe_release_nbytes",
    "stream_releases",
]

BLOCK_BYTES = 32 * 2**20  # at most 32 MiB of releases per block
MAX_BLOCK = 1 << 16  # releases per block at most (small releases)
MIN_BLOCK = 64
#: peak memory of the search / selection stage per byte of the releases it holds (both sides together): the
#: attacks' feature matrices, standardised copies and scans.  Measured with ``benchmarks/bench_memory.py`` on
#: Gaussian vector releases (d = 1000: peak 1.29 GB with 2 x 25 000 releases of 8 kB, i.e. ~3.2 x the 0.4 GB held);
#: 4 leaves a margin.
HELD_OVERHEAD = 4.0


def parse_memory(value: Any) -> int:
    """Bytes from an int or a string such as ``"2GiB"``, ``"512MiB"``, ``"1e9"``.

    Parameters
    ----------
    value : int or str
        The budget.

    Returns
    -------
    int
        Bytes.
    """
    if isinstance(value, (int, np.integer)) and value > 0:
        return int(value)
    if isinstance(value, str):
        units = {"kib": 2**10, "mib": 2**20, "gib": 2**30, "kb": 10**3, "mb": 10**6, "gb": 10**9, "b": 1}
        v = value.strip().lower()
        for u, f in units.items():
            if v.endswith(u):
                try:
                    out = float(v[: -len(u)]) * f
                except ValueError:
                    break
                if out > 0:
                    return int(out)
        try:
            out = float(v)
            if out > 0:
                return int(out)
        except ValueError:
            pass
    raise ValueError(f"max_memory must be a positive number of bytes or a string like '2GiB', got {value!r}")


def probe_release_nbytes(mechanism: Any, data: Any, rng: np.random.Generator) -> int:
    """Bytes of one release of ``mechanism`` on ``data``, drawn from a *copy* of ``rng`` (the audit's stream is not
    advanced, so an audit gives the same result whether or not it probes).

    Parameters
    ----------
    mechanism : Mechanism or callable
        The mechanism ``(data, size, rng) -> (size, ...)``.
    data : array_like
        The input.
    rng : numpy.random.Generator
        Copied, not advanced.

    Returns
    -------
    int
        Bytes of one release.
    """
    import copy

    probe = np.random.Generator(copy.deepcopy(rng.bit_generator))
    y = np.asarray(mechanism(data, 1, probe))
    return max(1, int(y.nbytes // max(y.shape[0], 1)) if y.ndim else int(y.nbytes))


def held_releases_cap(release_nbytes: int, max_memory: int | str) -> int:
    """Most releases per side the search or selection stage may hold within ``max_memory`` (both sides held at
    once, :data:`HELD_OVERHEAD` bytes of working memory per byte held).

    Parameters
    ----------
    release_nbytes : int
        Bytes of one release.
    max_memory : int or str
        Memory budget.

    Returns
    -------
    int
        Releases per side.
    """
    return int(parse_memory(max_memory) // (2 * HELD_OVERHEAD * max(int(release_nbytes), 1)))


def block_size(release_nbytes: int) -> int:
    """Releases per block for releases of ``release_nbytes`` bytes (depends on nothing else).

    Parameters
    ----------
    release_nbytes : int
        Bytes of one release.

    Returns
    -------
    int
        Releases per block.
    """
    return int(min(MAX_BLOCK, max(MIN_BLOCK, BLOCK_BYTES // max(int(release_nbytes), 1))))


def _block(mechanism, data, entropy: int, b: int, size: int) -> np.ndarray:
    """Block ``b`` (``size`` releases) of the stream with seed ``entropy``: its own child generator."""
    g = np.random.default_rng(np.random.SeedSequence(entropy, spawn_key=(b,)))
    y = np.asarray(mechanism(data, size, g))
    if y.ndim == 0 or y.shape[0] != size:
        raise ValueError(f"mechanism must return shape (size, ...) with size={size}, got {y.shape}")
    return y


def stream_releases(mechanism: Any, data: Any, entropy: int, start: int, stop: int, *, release_nbytes: int):
    """Releases ``start`` to ``stop - 1`` of the block stream with seed ``entropy``, one block (or part) at a time.

    The blocks are laid out as in :func:`count_streamed`: block ``b`` holds releases ``b·B .. (b+1)·B - 1`` with
    ``B = block_size(release_nbytes)``, drawn from ``SeedSequence(entropy, spawn_key=(b,))``, but every block is
    drawn whole (a block cut by ``start`` or ``stop`` is drawn and sliced), so release ``i`` is the same whatever
    range it is asked in: the stream can be read in several passes, and the releases depend only on ``entropy``
    and the release size (never on a memory budget or chunk size).

    Parameters
    ----------
    mechanism : Mechanism or callable
        The mechanism ``(data, size, rng) -> (size, ...)``.
    data : array_like
        The input.
    entropy : int
        Seed of the stream.
    start, stop : int
        The range of releases.
    release_nbytes : int
        Bytes of one release (fixes the block size).

    Yields
    ------
    numpy.ndarray
        Consecutive chunks of the range, each within one block.
    """
    start = check_int("start", start, minimum=0)
    stop = check_int("stop", stop, minimum=start)
    block = block_size(release_nbytes)
    for b in range(start // block, math.ceil(stop / block)):
        lo, hi = max(start, b * block), min(stop, (b + 1) * block)
        y = _block(mechanism, data, entropy, b, block)
        yield y[lo - b * block : hi - b * block]


def _count_blocks(mechanism, data, events, entropy: int, first: int, n_blocks: int, block: int, total: int):
    """Counts of every event in blocks ``first .. first + n_blocks - 1``: one row per block (one call each)."""
    counts = np.zeros((n_blocks, len(events)), dtype=np.int64)
    for j, b in enumerate(range(first, first + n_blocks)):
        size = min(block, total - b * block)
        if size <= 0:
            return counts[:j]
        y = _block(mechanism, data, entropy, b, size)
        for i, ev in enumerate(events):
            counts[j, i] = int(np.count_nonzero(ev.indicator(y)))
    return counts


class _CountJob:
    """What every call of one :func:`count_streamed` shares (shipped to a Dask cluster once, not once per call)."""

    def __init__(self, mechanism, data, events, entropy: int, block: int, total: int):
        self.mechanism, self.data, self.events = mechanism, data, events
        self.entropy, self.block, self.total = int(entropy), int(block), int(total)


def _count_job(job: _CountJob, first: int, n_blocks: int) -> np.ndarray:
    return _count_blocks(job.mechanism, job.data, job.events, job.entropy, first, n_blocks, job.block, job.total)


def call_plan(n_blocks: int, per_call: int, threads: int = 0) -> list[tuple[int, int]]:
    """How the first ``n_blocks`` blocks are split into calls: ``(first block, number of blocks)`` per call, in order.

    With ``threads = 0`` (one process) every call has ``per_call`` blocks (the last fewer).  With ``threads``
    worker threads the calls shrink as the blocks run out (guided self-scheduling): each call takes the
    ``remaining / (2 · threads)`` next blocks, rounded up, at most ``per_call`` and at least one, so the first
    calls are large (little overhead per call) and the last ones single blocks (a worker that is slower, or
    started later, holds back the end by at most about one block).  The calls cover every block once; counts are
    sums over blocks, so the plan never changes them.

    Parameters
    ----------
    n_blocks : int
        Blocks to count.
    per_call : int
        Most blocks per call (what the memory budget allows).
    threads : int, default 0
        Worker threads of the cluster (0: one process, equal calls).

    Returns
    -------
    list of tuple of int
        ``(first, n)`` per call, contiguous and increasing.
    """
    n_blocks = check_int("n_blocks", n_blocks, minimum=0)
    per_call = check_int("per_call", per_call, minimum=1)
    threads = check_int("threads", threads, minimum=0)
    if threads == 0:
        return [(s, min(per_call, n_blocks - s)) for s in range(0, n_blocks, per_call)]
    plan, s = [], 0
    while s < n_blocks:
        k = min(per_call, max(1, math.ceil((n_blocks - s) / (2 * threads))))
        plan.append((s, k))
        s += k
    return plan


def count_streamed(
    mechanism: Any,
    data: Any,
    n: int,
    events: Any,
    rng: np.random.Generator,
    *,
    release_nbytes: int,
    max_memory: int | str = "2GiB",
    backend: str = "serial",
    client: Any = None,
) -> np.ndarray:
    """How many of ``n`` fresh releases on ``data`` fall in each event, counted block by block.

    ``release_nbytes`` fixes the block size (:func:`block_size`); ``max_memory`` how many blocks a call counts
    (peak memory ≈ a few times ``max_memory`` per worker, whatever ``n``); ``backend`` is ``"serial"`` or
    ``"dask"`` (with a ``distributed.Client`` as ``client``: the mechanism, data and events are scattered to every
    worker once, and the blocks are counted in the calls of :func:`call_plan`, largest first).  The result depends
    only on ``rng``'s state, ``n`` and the release size.

    Parameters
    ----------
    mechanism : Mechanism or callable
        The mechanism ``(data, size, rng) -> (size, ...)``.
    data : array_like
        The input.
    n : int
        Releases.
    events : sequence
        The fixed events.
    rng : numpy.random.Generator
        The generator every release is drawn from.
    release_nbytes : int
        Bytes of one release.
    max_memory : int or str, default "2GiB"
        Memory budget.
    backend : str, default "serial"
        ``"serial"`` or ``"dask"``.
    client : distributed.Client, optional
        The Dask client.

    Returns
    -------
    numpy.ndarray
        One count per event.
    """
    return count_streamed_sides(
        mechanism,
        [(data, n)],
        events,
        rng,
        release_nbytes=release_nbytes,
        max_memory=max_memory,
        backend=backend,
        client=client,
    )[0]


def count_streamed_blocks(
    mechanism: Any,
    sides: Any,
    events: Any,
    rng: np.random.Generator,
    *,
    release_nbytes: int,
    max_memory: int | str = "2GiB",
    backend: str = "serial",
    client: Any = None,
    min_blocks: int | None = None,
) -> list[tuple[np.ndarray, int]]:
    """:func:`count_streamed_sides` block by block: per side, the counts of every block (one mechanism call each).

    Each side ``(data, n)`` has its own stream seed, drawn from ``rng`` in the order of ``sides`` exactly as
    successive :func:`count_streamed` calls would draw them, so ``count_streamed_sides(m, [(d, n), (d2, n2)], ...)``
    equals ``[count_streamed(m, d, n, ...), count_streamed(m, d2, n2, ...)]`` for the same ``rng`` state.  On Dask
    the blocks of all sides are handed out in one :func:`call_plan` (one submission and one tail, not one per side).

    Parameters
    ----------
    mechanism : Mechanism or callable
        The mechanism ``(data, size, rng) -> (size, ...)``.
    sides : sequence of (array_like, int)
        The inputs and how many releases to count on each.
    events : sequence
        The fixed events.
    rng : numpy.random.Generator
        The generator the sides' stream seeds are drawn from.
    release_nbytes : int
        Bytes of one release.
    max_memory : int or str, default "2GiB"
        Memory budget.
    backend : str, default "serial"
        ``"serial"`` or ``"dask"``.
    client : distributed.Client, optional
        The Dask client.
    min_blocks : int, optional
        Cut a side into at least this many blocks (calls of the mechanism) when its usual block size would give
        fewer: the block shrinks to ``ceil(n / min_blocks)`` releases (at least ``MIN_BLOCK``).  Sides of at least
        ``min_blocks`` usual blocks are drawn exactly as without it.  The certification uses it so that the counts
        of separate calls can be compared (:func:`~.independence.within_call_dispersion`).

    Returns
    -------
    list of tuple
        Per side, ``(block_counts, block_size)``: the counts of every block (``(blocks, events)``, in block order)
        and the block size (every block but the last holds that many releases).
    """
    sides = [(d, check_int("n", n, minimum=0)) for d, n in sides]
    if backend not in ("serial", "dask"):
        raise ValueError(f"backend must be 'serial' or 'dask', got {backend!r}")
    if backend == "dask" and client is None:
        raise ValueError("backend='dask' needs client= (a distributed.Client)")
    entropy = [int(rng.integers(0, 2**63)) for _ in sides]
    block = block_size(release_nbytes)
    if min_blocks is not None:
        min_blocks = check_int("min_blocks", min_blocks, minimum=1)
    blocks = [block if min_blocks is None else min(block, max(MIN_BLOCK, math.ceil(n / min_blocks))) for _, n in sides]
    per_call = max(1, parse_memory(max_memory) // max(block * int(release_nbytes) * 4, 1))
    jobs = [_CountJob(mechanism, d, events, e, bl, n) for (d, n), e, bl in zip(sides, entropy, blocks)]
    n_blocks = [math.ceil(n / bl) for (_, n), bl in zip(sides, blocks)]
    offset = np.concatenate([[0], np.cumsum(n_blocks)]).astype(int)
    threads = max(1, sum(client.nthreads().values())) if backend == "dask" else 0
    # one plan over the blocks of all sides in order, each call cut at the sides' boundaries
    calls = []
    for s0, k in call_plan(int(offset[-1]), per_call, threads):
        while k > 0:
            i = int(np.searchsorted(offset, s0, side="right")) - 1
            take = min(k, int(offset[i + 1]) - s0)
            calls.append((i, s0 - int(offset[i]), take))
            s0, k = s0 + take, k - take
    if backend == "dask":
        # the mechanism, data and events go to every worker once; calls are handed out largest first
        shipped = client.scatter(jobs, hash=False, broadcast=True)
        futures = [
            client.submit(_count_job, shipped[i], s, k, pure=False, priority=len(calls) - j)
            for j, (i, s, k) in enumerate(calls)
        ]
        parts = client.gather(futures)
    else:
        parts = [_count_job(jobs[i], s, k) for i, s, k in calls]
    rows: list[list[np.ndarray]] = [[] for _ in sides]
    for (i, _, _), c in zip(calls, parts):  # calls are in block order within a side
        rows[i].append(np.asarray(c, dtype=np.int64).reshape(-1, len(events)))
    per_side = [np.concatenate(r) if r else np.zeros((0, len(events)), dtype=np.int64) for r in rows]
    return list(zip(per_side, blocks))


def count_streamed_sides(
    mechanism: Any,
    sides: Any,
    events: Any,
    rng: np.random.Generator,
    *,
    release_nbytes: int,
    max_memory: int | str = "2GiB",
    backend: str = "serial",
    client: Any = None,
    min_blocks: int | None = None,
) -> list[np.ndarray]:
    """:func:`count_streamed` on several inputs at once: the same counts as one call per side in order.

    Each side ``(data, n)`` has its own stream seed, drawn from ``rng`` in the order of ``sides`` exactly as
    successive :func:`count_streamed` calls would draw them.  The sums of :func:`count_streamed_blocks` (which
    documents the parameters).

    Parameters
    ----------
    mechanism : Mechanism or callable
        The mechanism ``(data, size, rng) -> (size, ...)``.
    sides : sequence of (array_like, int)
        The inputs and how many releases to count on each.
    events : sequence
        The fixed events.
    rng : numpy.random.Generator
        The generator the sides' stream seeds are drawn from.
    release_nbytes : int
        Bytes of one release.
    max_memory : int or str, default "2GiB"
        Memory budget.
    backend : str, default "serial"
        ``"serial"`` or ``"dask"``.
    client : distributed.Client, optional
        The Dask client.
    min_blocks : int, optional
        At least this many blocks per side (:func:`count_streamed_blocks`).

    Returns
    -------
    list of numpy.ndarray
        One count per event, per side.
    """
    per_side = count_streamed_blocks(
        mechanism,
        sides,
        events,
        rng,
        release_nbytes=release_nbytes,
        max_memory=max_memory,
        backend=backend,
        client=client,
        min_blocks=min_blocks,
    )
    return [b.sum(axis=0) for b, _ in per_side]
