"""Peak memory and time of ``audit()`` on a d-dimensional Gaussian release whose leak lies along one coordinate.

Each configuration runs in its own process (peak RSS from ``resource.getrusage``), default attacks, claim
(1, 1e-5), the pair shifts the mean by 1 along coordinate 0 (true ε at δ = 1e-5 ≈ 5.3)::

    python benchmarks/bench_memory.py                       # d=10 at 1e5..1e7, d=1000 at 1e5 and 1e6
    python benchmarks/bench_memory.py --d 1000 --n 1000000  # one configuration
    python benchmarks/bench_memory.py --max-memory 512MiB   # a smaller budget

Prints one line per configuration: d, releases per side, ε lower bound, verdict, selection releases per side, how
many of them the selection held in memory to fit the attacks (the rest are counted on a stream:
:mod:`htdp_verify.privacy.selection_stream`), seconds (wall and CPU: the machine may be shared), peak RSS in GiB.
``--json PATH`` also writes the rows to a JSON file (e.g. ``benchmarks/results/bench_memory.json``).
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time

import numpy as np


def one(d: int, n: int, max_memory: str, seed: int) -> dict:
    from htdp_verify import PrivacyClaim
    from htdp_verify.privacy import Mechanism, Pair, audit

    def gauss(D, size, rng):
        Y = rng.standard_normal((size, d))
        Y[:, 0] += D[0]
        return Y

    t, c = time.perf_counter(), time.process_time()
    r = audit(
        Mechanism(gauss, name=f"gaussian_d{d}"),
        PrivacyClaim(epsilon=1.0, delta=1e-5),
        pairs=Pair(np.array([0.0]), np.array([1.0]), "mean shift 1 along coordinate 0", "given"),
        n_samples=n,
        rng=np.random.default_rng(seed),
        max_memory=max_memory,
    )
    s = r.details["samples"]
    return {
        "d": d,
        "n_per_side": n,
        "epsilon_lb": round(r.epsilon_lb, 3),
        "verdict": r.verdict,
        "n_select": s["n_select_per_side"],
        "select_lowered": s["n_select_lowered_to_fit_max_memory"],
        "select_held": s.get("n_select_held_per_side"),
        "seconds": round(time.perf_counter() - t, 1),
        "cpu_seconds": round(time.process_time() - c, 1),
        "max_memory": max_memory,
        "peak_gib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20, 2),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--d", type=int)
    ap.add_argument("--n", type=int)
    ap.add_argument("--max-memory", default="2GiB")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", help="also write the rows to this JSON file")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.child:
        print(json.dumps(one(a.d, a.n, a.max_memory, a.seed)), flush=True)
        return
    configs = [(a.d, a.n)] if a.d and a.n else [(10, 10**5), (10, 10**6), (10, 10**7), (1000, 10**5), (1000, 10**6)]
    rows = []
    for d, n in configs:
        out = subprocess.run(
            [
                sys.executable,
                __file__,
                "--child",
                "--d",
                str(d),
                "--n",
                str(n),
                "--max-memory",
                a.max_memory,
                "--seed",
                str(a.seed),
            ],
            capture_output=True,
            text=True,
            check=True,
        )
        line = out.stdout.strip().splitlines()[-1]
        print(line, flush=True)
        rows.append(json.loads(line))
    if a.json:
        with open(a.json, "w") as fh:
            json.dump(rows, fh, indent=1)
            fh.write("\n")


if __name__ == "__main__":
    main()
