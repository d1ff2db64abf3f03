"""False-failure and detection rates of the contract checks over re-drawn seeds (quick profile).

A correct estimator (ClippedMeanLaplace) should fail each statistical check in at most its α of the seeds
(KS and dispersion at 0.01, audits at 0.01); deterministic checks never. The broken toy estimators of
tests/estimator_checks/test_estimator_checks.py should fail their target checks in (nearly) every seed.

Usage: python benchmarks/estimator_checks_false_failures.py [n_seeds]
"""

import collections
import sys
import time
import warnings

sys.path.insert(0, "tests")
from test_estimator_checks import CallDiffersMean, SharedNoiseMean, UnderNoisedMean

from estimators.baselines import ClippedMeanLaplace
from htdp_verify.estimator_checks import check_dp_estimator

warnings.simplefilter("ignore")
n_seeds = int(sys.argv[1]) if len(sys.argv) > 1 else 20
for est in (ClippedMeanLaplace(1.0, -5.0, 5.0), UnderNoisedMean(), SharedNoiseMean(), CallDiffersMean()):
    t0 = time.perf_counter()
    fails = collections.Counter()
    for s in range(n_seeds):
        for r in check_dp_estimator(est, on_fail="return", seed=s):
            if r.verdict in ("violated", "error"):
                fails[r.name.split("[")[0]] += 1
    rates = ", ".join(f"{k} {v}/{n_seeds}" for k, v in sorted(fails.items())) or "none"
    print(
        f"{type(est).__name__}: failing checks over {n_seeds} seeds: {rates} ({time.perf_counter() - t0:.0f} s)",
        flush=True,
    )
