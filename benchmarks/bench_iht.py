"""Speed and memory of DP-IHT (Hu et al. 2022, Algs. 3 and 5) through ``sample`` vs a loop of ``__call__``.

Default size: n = 2000, d = 200, s = 5, ε = 1, δ = n^{−1.1}, T = ⌊ln n⌋ = 7 (the experiments' T), t5 design and
noise. Alg. 3: K = (nε/(sT))^{1/4}, η₀ = 0.5. Alg. 5 (squared loss): η = 0.5, β = 1, and two robust scales:
k from Thm 8's balanced rule (τ = 1, ζ = 0.1; small k, most per-sample ratios in the costly quadrature/closed-form
regimes of the robust mean) and the experiments' k = nε (ratios tiny: the cheap polynomial regime).

Timing: interleaved, best of ``--repeats``, wall-clock and CPU time of this process (the machine is shared,
so CPU time is the steadier measure; BLAS threads count in CPU time). Peak memory: ``tracemalloc`` peak of one
``sample`` call (numpy reports its buffers to tracemalloc), and the process's max RSS. Results go to
``benchmarks/results/bench_iht.json``.

Usage: python benchmarks/bench_iht.py [--n 2000] [--d 200] [--s 5] [--size-alg3 2000] [--size-alg5 40]
"""

from __future__ import annotations

import argparse
import json
import math
import pathlib
import resource
import time
import tracemalloc

import numpy as np

from estimators.hu2022.presets_iht import alg5_k
from estimators.iht import RobustDPIHT, TruncatedDPIHT


def timed(fn):
    """(wall seconds, CPU seconds of this process) of one call."""
    t, c = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - t, time.process_time() - c


def peak_bytes(fn):
    tracemalloc.start()
    tracemalloc.reset_peak()
    fn()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=2000)
    ap.add_argument("--d", type=int, default=200)
    ap.add_argument("--s", type=int, default=5)
    ap.add_argument("--size-alg3", type=int, default=2000)
    ap.add_argument("--size-alg5", type=int, default=40)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--out", default=str(pathlib.Path(__file__).parent / "results" / "bench_iht.json"))
    args = ap.parse_args()
    n, d, s, eps = args.n, args.d, args.s, 1.0
    rng = np.random.default_rng(20261124)
    X = rng.standard_t(5, size=(n, d))
    w = np.zeros(d)
    w[:s] = 0.5 / math.sqrt(s)
    data = np.column_stack([X, X @ w + rng.standard_t(5, size=n)])
    delta = n**-1.1
    T = max(1, math.floor(math.log(n)))
    ests = {
        "Alg 3 TruncatedDPIHT": (
            TruncatedDPIHT(s, eps, delta, K=(n * eps / (s * T)) ** 0.25, T=T, eta0=0.5),
            args.size_alg3,
        ),
        "Alg 5 RobustDPIHT, k balanced (Thm 8)": (
            RobustDPIHT(
                s, eps, delta, k=alg5_k(n, s=s, T=T, epsilon=eps, delta=delta, zeta=0.1, tau=1.0), T=T, eta=0.5
            ),
            args.size_alg5,
        ),
        "Alg 5 RobustDPIHT, k = n eps (experiments)": (
            RobustDPIHT(s, eps, delta, k=n * eps, T=T, eta=0.5),
            args.size_alg5,
        ),
    }
    rows = {}
    for name, (est, size) in ests.items():
        n_loop = max(1, size // 4)
        vec, loop = [float("inf")] * 2, [float("inf")] * 2
        for _ in range(args.repeats):  # interleaved, best of (wall and CPU separately)
            vec = [min(a, b) for a, b in zip(vec, timed(lambda: est.sample(data, size, rng=rng)))]
            loop = [min(a, b) for a, b in zip(loop, timed(lambda: [est(data, rng=rng) for _ in range(n_loop)]))]
        peak = peak_bytes(lambda: est.sample(data, size, rng=rng))
        rows[name] = {
            "estimator": repr(est),
            "releases": size,
            "loop_releases": n_loop,
            "sample_wall_s": vec[0],
            "sample_cpu_s": vec[1],
            "loop_wall_s": loop[0],
            "loop_cpu_s": loop[1],
            "sample_releases_per_min_wall": size / vec[0] * 60,
            "sample_releases_per_min_cpu": size / vec[1] * 60,
            "loop_releases_per_min_wall": n_loop / loop[0] * 60,
            "loop_releases_per_min_cpu": n_loop / loop[1] * 60,
            "speedup_cpu": (size / vec[1]) / (n_loop / loop[1]),
            "tracemalloc_peak_MiB": peak / 2**20,
        }
    result = {
        "n": n,
        "d": d,
        "s": s,
        "T": T,
        "epsilon": eps,
        "delta": delta,
        "repeats": args.repeats,
        "max_rss_MiB": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "rows": rows,
    }
    print(f"n={n}, d={d}, s={s}, T={T}, best of {args.repeats} (interleaved)")
    print("  releases per minute: wall-clock / per CPU-minute of this process (the machine is shared)")
    for name, r in rows.items():
        print(
            f"  {name:44s} sample {r['sample_releases_per_min_wall']:9,.0f} / {r['sample_releases_per_min_cpu']:9,.0f}"
            f"   loop {r['loop_releases_per_min_wall']:9,.0f} / {r['loop_releases_per_min_cpu']:9,.0f}"
            f"   sample/loop (CPU) x{r['speedup_cpu']:4.1f}   peak {r['tracemalloc_peak_MiB']:6.1f} MiB"
        )
    print(f"  max RSS {result['max_rss_MiB']:.0f} MiB")
    pathlib.Path(args.out).write_text(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
