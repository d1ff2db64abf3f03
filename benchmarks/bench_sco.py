"""Speed and memory of heavy-tailed DP Frank–Wolfe (Hu et al. 2022, Alg. 1) through ``sample``.

Setting: n = 2000, d = 20, unit ℓ1 ball, ε = 1, T = ⌊(nε)^{1/3}⌋ = 12, squared loss on the data of the paper's
Fig. 1 (features Lognormal(0, 0.6), w* on the ℓ1 sphere, noise N(0, 0.1)). Two presets: the experiments' rule
(s = ⌊nε⌋, :func:`estimators.hu2022.presets.alg1_experiment`) and s = √(nε) (``scale_rule="sqrt"``: moderate |∇/s|,
the costlier regime of ψ_β). For each: releases per minute through ``sample`` with 1 and 2 threads, a Python loop
of ``__call__`` (ratio), and the peak traced memory of one ``sample`` call (``tracemalloc``: numpy allocations).
Timings are interleaved best-of (the machine is shared). Alg. 2 (full-data gradients, d×d Gram) is timed too.

Usage: python benchmarks/bench_sco.py [--size N] [--repeats R] [--json PATH]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import time
import tracemalloc

import numpy as np

from estimators.hu2022.presets import alg1_experiment, alg2_experiment


def make_data(n, d, rng):
    X = rng.lognormal(0.0, 0.6, size=(n, d))
    w = rng.normal(size=d)
    w /= np.abs(w).sum()
    return np.column_stack([X, X @ w + rng.normal(0.0, math.sqrt(0.1), n)])


def timed(fn):
    t = time.perf_counter()
    fn()
    return time.perf_counter() - t


def peak_bytes(fn):
    tracemalloc.start()
    fn()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--size", type=int, default=10_000)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    n, d, eps, size = 2000, 20, 1.0, args.size
    rng = np.random.default_rng(20261124)
    data = make_data(n, d, rng)
    jobs = {}
    for rule in ("paper", "sqrt"):
        for nj in (1, 2):
            est = alg1_experiment(n, d, eps, scale_rule=rule, n_jobs=nj)
            jobs[f"alg1 s={rule}: sample, n_jobs={nj}"] = (lambda est=est: est.sample(data, size, rng=rng), size)
        est = alg1_experiment(n, d, eps, scale_rule=rule)
        n_loop = max(1, size // 10)
        jobs[f"alg1 s={rule}: loop of __call__"] = (
            lambda est=est, k=n_loop: [est(data, rng=rng) for _ in range(k)],
            n_loop,
        )
    lasso = alg2_experiment(n, d, 0.9)
    jobs["alg2 (experiment preset, eps=0.9): sample"] = (lambda: lasso.sample(data, size, rng=rng), size)
    best = {name: math.inf for name in jobs}
    for _ in range(args.repeats):
        for name, (fn, count) in jobs.items():
            best[name] = min(best[name], timed(fn) / count)
    est = alg1_experiment(n, d, eps)
    rows = {name: {"seconds_per_release": sec, "releases_per_minute": 60.0 / sec} for name, sec in best.items()}
    for rule in ("paper", "sqrt"):
        loop = best[f"alg1 s={rule}: loop of __call__"]
        for nj in (1, 2):
            key = f"alg1 s={rule}: sample, n_jobs={nj}"
            rows[key]["speedup_vs_loop"] = loop / best[key]
    peak = peak_bytes(lambda: est.sample(data, size, rng=rng))
    peak2 = peak_bytes(lambda: alg1_experiment(n, d, eps, n_jobs=2).sample(data, size, rng=rng))
    print(
        f"n={n}, d={d}, eps={eps}, T={est.T}, m={est.block_size(n)}, {size} releases, best of {args.repeats}, "
        f"load average {os.getloadavg()[0]:.1f}"
    )
    for name, row in rows.items():
        extra = f"  {row['speedup_vs_loop']:5.2f}x the loop" if "speedup_vs_loop" in row else ""
        print(f"  {name:48s} {row['releases_per_minute']:12,.0f} releases/min{extra}")
    print(
        f"  peak traced memory of one sample({size}) call: {peak / 2**20:.1f} MiB (1 thread), "
        f"{peak2 / 2**20:.1f} MiB (2 threads)"
    )
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(
                {
                    "n": n,
                    "d": d,
                    "epsilon": eps,
                    "T": est.T,
                    "size": size,
                    "repeats": args.repeats,
                    "load_average": os.getloadavg()[0],
                    "rows": rows,
                    "peak_bytes_1_thread": peak,
                    "peak_bytes_2_threads": peak2,
                },
                fh,
                indent=2,
            )


if __name__ == "__main__":
    main()
