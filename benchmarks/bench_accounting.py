"""Wall-clock time of the exact accounting checks (target: each call ≤ 1 s) and of typical API calls.

Run: ``python benchmarks/bench_accounting.py``. Prints one line per registered ``accounting.*`` check result and per
API call, with the exact ε and the accountant used. Times are wall-clock on the machine at hand (no assertion).
"""

from __future__ import annotations

import time

from htdp_verify.claims import PrivacyClaim
from htdp_verify.privacy.accounting import Calibration, account, check_calibration
from htdp_verify.registry import get_checks


def _time(fn):
    t0 = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t0


def main():
    account(Calibration("gaussian", sigma=1.0), 1e-5)  # warm-up: imports dp-accounting
    worst = 0.0
    print("registered checks")
    for check in get_checks(["accounting"]):
        out, sec = _time(lambda: check.func(None))
        for r in out if isinstance(out, list) else [out]:
            worst = max(worst, r.seconds)
            print(
                f"  {r.name:56s} {r.verdict:12s} eps={r.estimate:9.4f} claim={r.claim.epsilon:7.4g} "
                f"{r.seconds:6.3f} s  {r.details['accountant'][:40]}"
            )
    print(f"slowest single check: {worst:.3f} s")
    print("API calls")
    calls = {
        "analytic Gaussian, 1 step": lambda: account(Calibration("gaussian", sigma=3.7306), 1e-5),
        "Gaussian, 10^4 steps (closed form)": lambda: account(Calibration("gaussian", sigma=100.0, steps=10_000), 1e-5),
        "Laplace b=10, 1000 steps (PLD)": lambda: account(Calibration("laplace", scale=10.0, steps=1000), 1e-6),
        "Poisson q=0.01 Gaussian sigma=1, 1000 steps (PLD)": lambda: account(
            Calibration("gaussian", sigma=1.0, steps=1000, sampling=0.01, neighbours="add_remove"), 1e-5
        ),
        "check: same, claim 1.9": lambda: check_calibration(
            Calibration("gaussian", sigma=1.0, steps=1000, sampling=0.01, neighbours="add_remove"),
            PrivacyClaim(1.9, 1e-5, "add_remove"),
        ),
        "discrete Gaussian (PLD)": lambda: account(Calibration("discrete_gaussian", sigma=3.74), 1e-5),
        "1000 black-box 0.1-DP steps (KOV)": lambda: account(
            Calibration("pure_dp", step_epsilon=0.1, steps=1000), 1e-6
        ),
    }
    for label, fn in calls.items():
        res, sec = _time(fn)
        eps = getattr(res, "epsilon", getattr(res, "estimate", float("nan")))
        print(f"  {label:52s} eps={eps:9.4f} {sec:6.3f} s")


if __name__ == "__main__":
    main()
