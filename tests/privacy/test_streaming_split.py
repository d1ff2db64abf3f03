"""With ``backend="dask"`` the certification's blocks are split into at least two calls per worker thread (with the
default memory budget, scalar releases would otherwise fit one call: one task, no parallelism), and the counts do
not change."""

import numpy as np

from htdp_verify.privacy.streaming import block_size, count_streamed


class _Above:
    def __init__(self, t):
        self.t = t

    def indicator(self, y):
        return np.asarray(y) > self.t


class _LocalClient:
    """Just what ``count_streamed`` uses of a ``distributed.Client``; runs the calls here and records them."""

    def __init__(self, threads):
        self.threads, self.calls = threads, []

    def nthreads(self):
        return {f"w{i}": 1 for i in range(self.threads)}

    def map(self, f, *args, pure=True):
        self.calls.append(len(args[0]))
        return [f(*a) for a in zip(*args)]

    def gather(self, futures):
        return futures


def laplace(data, size, rng):
    return float(np.mean(data)) + rng.laplace(0.0, 1.0, size)


def test_dask_backend_splits_scalar_blocks_over_the_workers_with_the_same_counts():
    n = 6 * block_size(8) + 17  # 7 blocks of scalar releases: all fit one call of the default 2 GiB budget
    events = [_Above(0.0), _Above(1.5)]
    serial = count_streamed(laplace, np.zeros(5), n, events, np.random.default_rng(3), release_nbytes=8)
    for threads, calls in ((2, 7), (1, 3), (8, 7)):  # 7 // (2 * threads) blocks per call, at least one
        client = _LocalClient(threads)
        split = count_streamed(
            laplace, np.zeros(5), n, events, np.random.default_rng(3), release_nbytes=8, backend="dask", client=client
        )
        assert client.calls == [calls], (threads, client.calls)
        np.testing.assert_array_equal(split, serial)
    assert 0 < serial[1] < serial[0] < n
