"""Wall-clock time of check_dp_estimator (quick and full profiles) on simple estimators; prints one line each.

Usage: python benchmarks/estimator_checks_time.py [quick|full]
"""

import sys
import time
import warnings

from estimators.baselines import ClippedMeanGaussian, ClippedMeanLaplace
from htdp_verify.estimator_checks import check_dp_estimator

profile = sys.argv[1] if len(sys.argv) > 1 else "quick"
warnings.simplefilter("ignore")
for est in (ClippedMeanLaplace(1.0, -5.0, 5.0), ClippedMeanGaussian(1.0, 1e-5, -5.0, 5.0)):
    t0 = time.perf_counter()
    res = check_dp_estimator(est, profile=profile)
    total = time.perf_counter() - t0
    slow = ", ".join(f"{r.name.split('[')[0]} {r.seconds:.2f}s" for r in sorted(res, key=lambda r: -r.seconds)[:3])
    print(f"{type(est).__name__}: {len(res)} checks, profile={profile}, {total:.2f} s (slowest: {slow})")
