"""False-"violated" rate of an exactly tight privacy check, per check and with the family's Bonferroni share.

``hu2022.privacy.smoothed_mean_tight`` audits Hu et al. 2022's smoothed soft-truncation mean with the tight
sensitivity: on its worst pair the release is a Laplace shift of exactly ε = 1 (the claim), so every "violated" is
a false alarm.  This script runs the check's audit (quick sizes, 30 000 releases per side) over many seeds and
reports, from each run's certification counts, the exact one-sided p-value of "ε ≤ 1" (the conditional binomial
test the audit uses under Poisson sample sizes) and how often it falls below 0.05 (the old per-check α) and below
0.05/7 (the check's share of the paper's privacy family, ``audits.hu2022.PRIVACY_FAMILY``).

Usage: ``python benchmarks/tight_false_positive.py [runs] [first_seed]`` (default 200 runs from seed 0); prints one
JSON line with the counts, the rates and their exact 95 % Clopper–Pearson intervals, and the CPU time.
"""

from __future__ import annotations

import json
import math
import sys
import time

import numpy as np
from scipy import stats

from audits import _mean_common as C
from audits import hu2022
from htdp_verify.registry import RunContext


def p_value_at_claim(details: dict, epsilon: float = 1.0) -> float:
    """P(K_num ≥ k_num | K_num + K_den) when the event's probability ratio is exactly e^ε (equal nominal sizes)."""
    c = details["counts"]
    k1, k2 = int(c["numerator"]), int(c["denominator"])
    q = math.exp(epsilon) / (1.0 + math.exp(epsilon))
    return float(stats.binom.sf(k1 - 1, k1 + k2, q))


def main(runs: int = 200, first_seed: int = 0) -> dict:
    t0 = time.process_time()
    pvals, violated = [], 0
    for s in range(first_seed, first_seed + runs):
        ctx = RunContext(profile="quick", seed=s, rng=np.random.default_rng(s), out_dir=None, progress=False)
        r = hu2022.privacy_smoothed(ctx, sensitivity="tight", family=hu2022.PRIVACY_FAMILY)
        assert C.profile_of(ctx) == "quick" and r.details["family_size"] == 7
        pvals.append(p_value_at_claim(r.details))
        violated += r.verdict == "violated"
    p = np.asarray(pvals)
    share = hu2022.PRIVACY_FAMILY.alpha_for("hu2022.privacy.smoothed_mean_tight", "quick")

    def rate(k):
        lo = stats.beta.ppf(0.025, k, runs - k + 1) if k else 0.0
        hi = stats.beta.ppf(0.975, k + 1, runs - k) if k < runs else 1.0
        return {"count": int(k), "rate": k / runs, "ci95": [float(lo), float(hi)]}

    return {
        "runs": runs,
        "seeds": [first_seed, first_seed + runs - 1],
        "below_0.05": rate(int(np.sum(p <= 0.05))),
        "below_share": rate(int(np.sum(p <= share))),
        "share": share,
        "violated_verdicts_at_share": rate(violated),
        "min_p": float(p.min()),
        "cpu_seconds": time.process_time() - t0,
    }


if __name__ == "__main__":
    args = [int(a) for a in sys.argv[1:3]]
    print(json.dumps(main(*args)))
