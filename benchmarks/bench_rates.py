"""Benchmark: a rate check of the sample mean, and the processes-vs-serial speed-up of the Monte Carlo engine.

    python benchmarks/bench_rates.py [--repeat 3] [--n-jobs 2]

1. Rate check (issue 6 target: < 5 s on 2 cores): error of the sample mean of n N(0,1) draws, 8 geometric values
   of n in [10², 10⁵] × 200 replications, vectorised (each call simulates 50 replications of n draws), then
   ``check_rate`` against the claim n^{-1/2} ± 0.1 (median, bootstrap CI with 2000 resamples + Theil–Sen).
   Timed on the serial and the processes backend.
2. Speed-up of ``backend="processes"`` (joblib/loky, ``n_jobs`` workers) over ``"serial"`` on a per-replication
   workload (one Python call per replication) and on the vectorised workload above.  The worker pool is started
   once before timing (its start-up is reported separately).  Numbers are bit-identical across backends
   (asserted).

Timings are wall-clock minima over ``--repeat`` runs; the machine may be shared, so treat them as noisy.
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np

from htdp_verify.claims import RateClaim
from htdp_verify.montecarlo import sweep
from htdp_verify.rates import check_rate

NS = np.geomspace(1e2, 1e5, 8).round().astype(int).tolist()
REPS = 200


def sample_mean_error_vec(n, *, n_reps, rng):
    """|mean of n N(0,1)| for n_reps replications at once."""
    return np.abs(rng.standard_normal((n_reps, n)).mean(axis=1))


def sample_mean_error(n, *, rng):
    """|mean of n N(0,1)| for one replication."""
    return abs(rng.standard_normal(n).mean())


def timed(f, repeat):
    best, out = float("inf"), None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = f()
        best = min(best, time.perf_counter() - t0)
    return best, out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--n-jobs", type=int, default=2)
    args = ap.parse_args(argv)
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(
        f"cores available: {cores}; load average (1 min) {load:.2f}; n_jobs={args.n_jobs}; n = {NS}; {REPS} reps per n"
    )

    claim = RateClaim("n", -0.5, 0.1)

    def rate_check(backend):
        run = sweep(
            sample_mean_error_vec,
            {"n": NS},
            REPS,
            seed=1,
            vectorised=True,
            chunk_size=50,
            backend=backend,
            n_jobs=args.n_jobs,
            progress=False,
        )
        return run, check_rate(run, claim)

    # start the loky pool once (not part of the timed numbers)
    t0 = time.perf_counter()
    sweep(sample_mean_error, {"n": [10]}, 4, seed=0, backend="processes", n_jobs=args.n_jobs, progress=False)
    print(f"process pool start-up: {time.perf_counter() - t0:.2f} s (once per session)")

    print("\n1. rate check of the sample mean (8 n in [1e2, 1e5] x 200 reps, vectorised)")
    for backend in ("serial", "processes"):
        total, (run, res) = timed(lambda: rate_check(backend), args.repeat)
        t_sim = run.seconds
        print(
            f"   {backend:9s}: total {total:.2f} s  (simulation {t_sim:.2f} s, check {res.seconds:.2f} s)  -> "
            f"{res.verdict}: exponent {res.estimate:.4f} CI [{res.interval[0]:.4f}, {res.interval[1]:.4f}]"
        )

    print("\n2. speed-up of processes over serial")
    ser_v, a = timed(
        lambda: sweep(sample_mean_error_vec, {"n": NS}, REPS, seed=2, vectorised=True, chunk_size=50, progress=False),
        args.repeat,
    )
    par_v, b = timed(
        lambda: sweep(
            sample_mean_error_vec,
            {"n": NS},
            REPS,
            seed=2,
            vectorised=True,
            chunk_size=50,
            backend="processes",
            n_jobs=args.n_jobs,
            progress=False,
        ),
        args.repeat,
    )
    assert np.array_equal(a.values(), b.values())
    print(
        f"   vectorised (8 x 200 reps, 32 calls):  serial {ser_v:.2f} s, processes {par_v:.2f} s, "
        f"speed-up x{ser_v / par_v:.2f}"
    )
    ser_l, a = timed(lambda: sweep(sample_mean_error, {"n": NS}, REPS, seed=3, progress=False), args.repeat)
    par_l, b = timed(
        lambda: sweep(
            sample_mean_error, {"n": NS}, REPS, seed=3, backend="processes", n_jobs=args.n_jobs, progress=False
        ),
        args.repeat,
    )
    assert np.array_equal(a.values(), b.values())
    print(
        f"   per-replication (1600 calls):          serial {ser_l:.2f} s, processes {par_l:.2f} s, "
        f"speed-up x{ser_l / par_l:.2f}"
    )
    small = [10, 20, 50, 100]
    ser_s, a = timed(lambda: sweep(sample_mean_error, {"n": small}, 500, seed=4, progress=False), args.repeat)
    par_s, b = timed(
        lambda: sweep(
            sample_mean_error, {"n": small}, 500, seed=4, backend="processes", n_jobs=args.n_jobs, progress=False
        ),
        args.repeat,
    )
    assert np.array_equal(a.values(), b.values())
    print(
        f"   tiny per-replication work (2000 calls, n <= 100): serial {ser_s:.2f} s, processes {par_s:.2f} s, "
        f"speed-up x{ser_s / par_s:.2f}  (overhead-bound: prefer vectorised or serial)"
    )


if __name__ == "__main__":
    main()
