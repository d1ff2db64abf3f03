"""Benchmark: power of the per-call sequential designs on a weak leak, with a cheap vectorised mechanism.

diffprivlib's KMeans at ε = 1 (a weak leak, about 1.2 against 1) costs about a CPU-minute per full-profile audit,
so comparing two designs on it at enough seeds takes hours (``bench_seq_lr.py``).  This script asks the same
question of a Laplace mechanism with the sizes and level of that check: six candidate pairs, search 100 releases
per pair and side, selection 400, certification 1 000, α = 0.05 / 70 (the diffprivlib suite's per-check share),
threshold attacks, claim ε = 1 and true ε = 1 / ``--scale`` on the pair (0, 1).  Each design runs on the same
seeds; the output is the number of seeds that reached "violated" and the median releases per side.

Run::

    python benchmarks/bench_seq_weak.py --scale 0.7 --seeds 300 --designs fixed_split per_call

Measured 2026-11-25 (commit 0ebcda1), seeds 10000-10299 at scale 0.7 (true ε 1.43): fixed_split 175/300, per_call
210/300, per_call with the probe at α/1000 210/300; seeds 20000-20299 at scale 0.75 (true ε 1.33): fixed_split
88/300, per_call 94/300.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from htdp_verify import PrivacyClaim
from htdp_verify.privacy import audit
from htdp_verify.privacy.sequential import RoundsDesign

DESIGNS = {
    "fixed_split": RoundsDesign.fixed_split(),
    "per_call": RoundsDesign.per_call(),
    "per_call_a001": RoundsDesign.per_call(probe_share=0.001),
}
PAIRS = [(0.0, 1.0), (0.0, 0.3), (0.0, 0.5), (1.0, 0.0), (0.0, 0.1), (0.0, 0.7)]
ALPHA = 0.05 / 70


def run(design: str, scale: float, seeds: int, base: int) -> dict:
    """Audit the Laplace mechanism of noise ``scale`` at ``seeds`` seeds from ``base`` with ``design``."""

    def mech(data, size, rng):
        return float(np.asarray(data, float).sum()) + rng.laplace(0.0, scale, size)

    found, used, t = [], [], time.process_time()
    for s in range(seeds):
        r = audit(
            mech,
            PrivacyClaim(1.0),
            pairs=PAIRS,
            n_samples=1000,
            n_select=400,
            n_search=100,
            alpha=ALPHA,
            attacks="threshold",
            rng=np.random.default_rng(base + s),
            sequential=DESIGNS[design],
        )
        found.append(r.verdict == "violated")
        used.append(r.details["sequential"]["releases_per_side"])
    return {
        "design": design,
        "violated": int(sum(found)),
        "found": found,
        "seeds": seeds,
        "median_releases_per_side": float(np.median(used)),
        "cpu_s": round(time.process_time() - t, 1),
    }


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scale", type=float, default=0.7, help="Laplace scale (true epsilon 1/scale on the pair (0, 1))")
    ap.add_argument("--seeds", type=int, default=300)
    ap.add_argument("--seed-base", type=int, default=10000)
    ap.add_argument("--designs", nargs="+", default=["fixed_split", "per_call"], choices=tuple(DESIGNS))
    a = ap.parse_args(argv)
    runs = []
    for d in a.designs:
        r = run(d, a.scale, a.seeds, a.seed_base)
        runs.append(r)
        print(
            f"{d}: violated {r['violated']}/{r['seeds']}, median {r['median_releases_per_side']:.0f} releases per "
            f"side, {r['cpu_s']} CPU-s (scale {a.scale}, seeds {a.seed_base}-{a.seed_base + a.seeds - 1})",
            flush=True,
        )
    for r in runs[1:]:  # paired on the seeds: which seeds one design found and the other did not
        only_first = sum(x and not y for x, y in zip(runs[0]["found"], r["found"]))
        only_this = sum(y and not x for x, y in zip(runs[0]["found"], r["found"]))
        print(f"seeds found by {runs[0]['design']} only: {only_first}; by {r['design']} only: {only_this}")


if __name__ == "__main__":
    main()
