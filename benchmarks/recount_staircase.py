"""Independent check of a certified violation: diffprivlib's ``Staircase(ε=0.5, γ=0.1, sensitivity=1)``.

The full-profile mechanisms search (seed 20261121) certified ε ≥ 0.505 > 0.5 on the pair x = 10 vs 11 with the event
``10.9064 <= output <= 20.2124``.  This script (1) recounts that event, and a few thresholds, on ``--n`` fresh
releases per side drawn with diffprivlib's own sampler (a point estimate of the event's log ratio with its standard
error: not a bound), and (2) re-runs the same certification (same configuration, pair, sizes and α) over
``--reruns`` other seeds and reports how often it certifies above the claim (at most α of them for a mechanism
within its claim).

Run::

    python benchmarks/recount_staircase.py --n 2000000 --reruns 40
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

import numpy as np
from diffprivlib.mechanisms import Staircase

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from audits.diffprivlib.search import _certify
from audits.diffprivlib.space import config_pairs, make_config

EVENT = (10.9064, 20.2124)
ALPHA = 0.05 / 3 / 8  # the search family's share of the mechanisms search, over its 2K = 8 slots


def recount(n: int, seed: int) -> None:
    m = Staircase(epsilon=0.5, sensitivity=1.0, gamma=0.1, random_state=np.random.RandomState(seed))
    a = np.array([m.randomise(10.0) for _ in range(n)])
    b = np.array([m.randomise(11.0) for _ in range(n)])
    lo, hi = EVENT
    k1, k2 = int(((a >= lo) & (a <= hi)).sum()), int(((b >= lo) & (b <= hi)).sum())
    print(
        f"certified event on {n} per side: {k2} vs {k1}; log ratio {math.log(k2 / k1):.4f} "
        f"(s.e. {math.sqrt(1 / k1 + 1 / k2):.4f}); claim 0.5"
    )
    for t in (10.0, 10.0138, 10.05, 10.1):
        c1, c2 = int((a <= t).sum()), int((b <= t).sum())
        print(f"  output <= {t}: log ratio {math.log(c1 / c2):.4f}")


def reruns(k: int) -> None:
    c = make_config("mechanisms.Staircase", 0.5, {"gamma": 0.1, "sensitivity": 1.0}, {"shape": "at_upper"})
    pair = [p for p in config_pairs(c) if "10 vs 10 + s" in p.label][0]
    bounds = []
    for s in range(k):
        r, _ = _certify(
            c,
            pair,
            np.random.default_rng(5000 + s),
            alpha=ALPHA,
            name="staircase",
            sizing={"n_samples": 38626, "n_select": 7726},
        )
        bounds.append(float(r.estimate))
    above = sum(b > 0.5 for b in bounds)
    print(
        f"{k} re-runs of the certification at alpha {ALPHA:.4g}: {above} above the claim; largest bound "
        f"{max(bounds):.4f}, median {float(np.median(bounds)):.4f}"
    )


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=2_000_000)
    ap.add_argument("--seed", type=int, default=12345)
    ap.add_argument("--reruns", type=int, default=40)
    a = ap.parse_args(argv)
    recount(a.n, a.seed)
    if a.reruns:
        reruns(a.reruns)


if __name__ == "__main__":
    main()
