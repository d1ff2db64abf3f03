"""With ``backend="dask"`` the certification's blocks are split into at least two calls per worker thread (with the
default memory budget, scalar releases would otherwise fit one call: one task, no parallelism), the shared job is
shipped once, and the counts do not change."""

import numpy as np

from htdp_verify.privacy.streaming import block_size, call_plan, count_streamed


class _Above:
    def __init__(self, t):
        self.t = t

    def indicator(self, y):
        return np.asarray(y) > self.t


class _LocalClient:
    """Just what ``count_streamed`` uses of a ``distributed.Client``; runs the calls here and records them."""

    def __init__(self, threads):
        self.threads, self.calls, self.scattered = threads, [], 0

    def nthreads(self):
        return {f"w{i}": 1 for i in range(self.threads)}

    def scatter(self, data, hash=True, broadcast=False):
        self.scattered += 1
        return data

    def submit(self, f, *args, pure=True, priority=0):
        self.calls.append((priority, args[-1]))
        return f(*args)

    def gather(self, futures):
        return futures


def laplace(data, size, rng):
    return float(np.mean(data)) + rng.laplace(0.0, 1.0, size)


def test_dask_backend_splits_scalar_blocks_over_the_workers_with_the_same_counts():
    n = 6 * block_size(8) + 17  # 7 blocks of scalar releases: all fit one call of the default 2 GiB budget
    events = [_Above(0.0), _Above(1.5)]
    serial = count_streamed(laplace, np.zeros(5), n, events, np.random.default_rng(3), release_nbytes=8)
    for threads in (2, 1, 8):
        client = _LocalClient(threads)
        split = count_streamed(
            laplace, np.zeros(5), n, events, np.random.default_rng(3), release_nbytes=8, backend="dask", client=client
        )
        sizes = [k for _, k in client.calls]
        assert sizes == [k for _, k in call_plan(7, 1 << 20, threads)] and sum(sizes) == 7
        assert len(sizes) >= min(7, 2 * threads)  # every worker thread gets at least two calls when there are enough
        assert [p for p, _ in client.calls] == sorted((p for p, _ in client.calls), reverse=True)  # largest first
        assert client.scattered == 1
        np.testing.assert_array_equal(split, serial)
    assert 0 < serial[1] < serial[0] < n
