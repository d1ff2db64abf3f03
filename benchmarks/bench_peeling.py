"""Speed of Peeling (Hu et al. 2022, Alg. 4) through ``sample`` at d = 1000, s = 10, one core.

Compares releases per minute with (1) the time of drawing the s·d + s Laplace variables alone (the floor: every
release needs them), both as ``Generator.laplace`` and as the difference of two standard exponentials (what
``sample`` uses), and (2) a Python loop over ``__call__``.

Usage: python benchmarks/bench_peeling.py [--size N] [--repeats R]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import estimators.sparse as sparse
from estimators.sparse import Peeling


def best_of(fn, repeats):
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--size", type=int, default=20_000)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--d", type=int, default=1000)
    ap.add_argument("--s", type=int, default=10)
    args = ap.parse_args()
    d, s, size = args.d, args.s, args.size
    rng = np.random.default_rng(20261124)
    v = rng.standard_t(3, size=d)
    jobs = {}
    for argmax in ("remaining", "all"):
        p = Peeling(s, 1.0, 1e-5, 0.01, argmax=argmax)
        jobs[f"sample, argmax={argmax}"] = (lambda p=p: p.sample(v, size, rng=rng), 1.0)
    p = Peeling(s, 1.0, 1e-5, 0.01)
    n_loop = max(1, size // 20)
    jobs["loop of __call__"] = (lambda: [p(v, rng=rng) for _ in range(n_loop)], size / n_loop)
    chunk = max(1, sparse._CHUNK_BYTES // (8 * d))  # the rows per chunk that sample uses

    def laplace_only():
        for start in range(0, size, chunk):
            for _ in range(s):
                rng.laplace(size=(min(chunk, size - start), d))
            rng.laplace(size=(min(chunk, size - start), s))

    def exp_pair_only():
        z = np.empty((chunk, d))
        z2 = np.empty((chunk, d))
        for _start in range(0, size, chunk):
            for _ in range(s):
                rng.standard_exponential(out=z)
                rng.standard_exponential(out=z2)
                z -= z2
            rng.standard_exponential((chunk, s)) - rng.standard_exponential((chunk, s))

    jobs["Laplace draws only (Generator.laplace)"] = (laplace_only, 1.0)
    jobs["Laplace draws only (Exp - Exp, in place)"] = (exp_pair_only, 1.0)
    rows = {name: float("inf") for name in jobs}
    for _ in range(args.repeats):  # interleaved, best of: the machine is shared
        for name, (fn, factor) in jobs.items():
            rows[name] = min(rows[name], best_of(fn, 1) * factor)
    floor = rows["Laplace draws only (Exp - Exp, in place)"]
    print(f"d={d}, s={s}, {size} releases, best of {args.repeats}")
    for name, sec in rows.items():
        print(f"  {name:42s} {sec:8.3f} s  {size / sec * 60:12,.0f} releases/min  {sec / floor:5.2f}x the floor")


if __name__ == "__main__":
    main()
