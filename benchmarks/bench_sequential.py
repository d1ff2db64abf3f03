"""Benchmark of the anytime-valid sequential certification.  Run: ``python benchmarks/bench_sequential.py``.

1. Engine on Bernoulli streams of randomised response (the event "output = 1"; p_num / p_den = e^ε exactly), claims
   ε ∈ ``--claims`` (default 1 and 0.1), true ε ∈ {1.5, 2, 10} × the claim, α = 0.05, budget ``--max-samples``
   per side: over ``--seeds`` seeds the
   sequential test's power (fraction "violated"), the median / 90th percentile of releases per side at the stop,
   and the fixed-n Clopper–Pearson test at α = 0.05 (the audit's certification at a fixed size) at *equal power*:
   the smallest n per side whose simulated power (``--reps`` replications) reaches the sequential test's power
   (capped at 0.99, else it is infinite), and at 50 % / 90 % power.
2. Validity: false "violated" rate over ``--seeds`` seeds of the tight mechanism (true ε = claim) with the same
   stopping rule (futility off, to look at every checkpoint).  Both methods (betting, union) throughout.
3. Validity end to end: false "violated" of ``audit(sequential=True)`` (the pipeline chooses the event on 200
   selection releases per side) over ``--seeds`` seeds of exactly tight randomised response, Laplace and analytic
   Gaussian mechanisms (claim = their true (ε, δ)), at most ``--validity-audit-n`` releases per side.
4. ``audit(sequential=True)`` end to end on a Laplace mechanism with true ε = 2 × the claim, threshold attack,
   against the fixed-n audit at its ``n_samples`` (the releases the fixed audit draws).

Writes ``benchmarks/results/bench_sequential.json``.  Options: ``--quick``.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from estimators.baselines import analytic_gaussian_sigma
from htdp_verify.claims import PrivacyClaim
from htdp_verify.privacy import audit
from htdp_verify.privacy.sequential import run_sequential
from htdp_verify.stats import epsilon_lower_bound

ALPHA, CLAIM = 0.05, 1.0


def rr(eps):
    return math.exp(eps) / (1 + math.exp(eps)), 1 / (1 + math.exp(eps))


def stream(rng, pn, pd):
    return lambda m: (np.array([rng.binomial(m, pn)]), np.array([rng.binomial(m, pd)]))


def fixed_power(n, pn, pd, reps, rng, claim):
    kn = rng.binomial(n, pn, reps)
    kd = rng.binomial(n, pd, reps)
    return float(np.mean(np.asarray(epsilon_lower_bound(kn, n, kd, n, ALPHA)) > claim))


def fixed_n_for_power(target, pn, pd, reps, seed, claim, n_max=10**9):
    """Smallest n (to 2 %) with simulated power >= target (fresh replications at each n, common seed)."""
    lo, hi = 1, 16
    while fixed_power(hi, pn, pd, reps, np.random.default_rng(seed), claim) < target:
        lo, hi = hi, hi * 2
        if hi > n_max:
            return None
    while hi - lo > max(1, lo // 50):
        mid = (lo + hi) // 2
        if fixed_power(mid, pn, pd, reps, np.random.default_rng(seed), claim) >= target:
            hi = mid
        else:
            lo = mid
    return hi


def engine(args, claim, method):
    rows = []
    for factor in (1.5, 2.0, 10.0):
        pn, pd = rr(factor * claim)
        t = time.perf_counter()
        outs = [
            run_sequential(
                stream(np.random.default_rng(s), pn, pd),
                1,
                epsilon=claim,
                delta=0.0,
                alpha=ALPHA,
                max_samples=args.max_samples,
                method=method,
                rng=np.random.default_rng(50_000 + s),
            )
            for s in range(args.seeds)
        ]
        used = np.array([o.n_per_side for o in outs])
        viol = np.array([o.stop_reason == "violated" for o in outs])
        power = float(viol.mean())
        target = min(power, 0.99)
        row = {
            "method": method,
            "claim_epsilon": claim,
            "true_over_claim": factor,
            "p_num": pn,
            "p_den": pd,
            "seeds": args.seeds,
            "max_samples_per_side": args.max_samples,
            "sequential_power": power,
            "stop_reasons": {
                r: int(sum(o.stop_reason == r for o in outs)) for r in ("violated", "futility", "max_samples")
            },
            "sequential_median_per_side": float(np.median(used)),
            "sequential_p90_per_side": float(np.quantile(used, 0.9)),
            "sequential_median_per_side_when_violated": float(np.median(used[viol])) if viol.any() else None,
            "fixed_n_equal_power_target": target,
            "fixed_n_per_side_at_equal_power": fixed_n_for_power(target, pn, pd, args.reps, 7, claim),
            "fixed_n_per_side_at_power_0.5": fixed_n_for_power(0.5, pn, pd, args.reps, 7, claim),
            "fixed_n_per_side_at_power_0.9": fixed_n_for_power(0.9, pn, pd, args.reps, 7, claim),
            "seconds": time.perf_counter() - t,
        }
        f = row["fixed_n_per_side_at_equal_power"]
        row["ratio_median_sequential_to_fixed_equal_power"] = (row["sequential_median_per_side"] / f) if f else None
        rows.append(row)
        print(
            f"{method:>7} claim {claim}: {factor:>5}x  power {power:.3f}  "
            f"seq median {row['sequential_median_per_side']:.0f} "
            f"(p90 {row['sequential_p90_per_side']:.0f})  fixed@equal power({target:.2f}) {f}  "
            f"fixed@0.5 {row['fixed_n_per_side_at_power_0.5']}  fixed@0.9 {row['fixed_n_per_side_at_power_0.9']}  "
            f"stops {row['stop_reasons']}",
            flush=True,
        )
    return rows


def validity(args, method):
    pn, pd = rr(CLAIM)
    outs = [
        run_sequential(
            stream(np.random.default_rng(10_000 + s), pn, pd),
            1,
            epsilon=CLAIM,
            delta=0.0,
            alpha=ALPHA,
            max_samples=args.validity_max,
            futility=None,
            method=method,
            rng=np.random.default_rng(20_000 + s),
        )
        for s in range(args.seeds)
    ]
    k = sum(o.stop_reason == "violated" for o in outs)
    print(
        f"validity {method}: {k}/{args.seeds} false 'violated' on tight randomised response (alpha={ALPHA}, "
        f"max {args.validity_max} per side, futility off)",
        flush=True,
    )
    return {
        "method": method,
        "seeds": args.seeds,
        "false_violated": int(k),
        "rate": k / args.seeds,
        "alpha": ALPHA,
        "max_samples_per_side": args.validity_max,
    }


def lap(data, size, rng):
    return float(np.asarray(data, float).sum()) + rng.laplace(0.0, 0.5, size)  # sensitivity 1: epsilon 2


def end_to_end(args):
    out = []
    for seq in (True, False):
        used, verdicts, secs = [], [], []
        for s in range(args.audit_seeds):
            t = time.perf_counter()
            r = audit(
                lap,
                PrivacyClaim(CLAIM),
                pairs=[(0.0, 1.0)],
                n_samples=args.audit_n,
                n_select=1000,
                attacks="threshold",
                rng=np.random.default_rng(s),
                sequential=seq,
            )
            secs.append(time.perf_counter() - t)
            verdicts.append(r.verdict)
            used.append(
                r.details["counts"]["n_per_side"]
                if seq
                else (r.details["counts"]["n_D"] + r.details["counts"]["n_D'"]) / 2
            )
        row = {
            "sequential": seq,
            "n_samples": args.audit_n,
            "seeds": args.audit_seeds,
            "violated": verdicts.count("violated"),
            "median_certification_releases_per_side": float(np.median(used)),
            "median_seconds": float(np.median(secs)),
            "selection_releases_per_side": 1000,
        }
        print(
            f"audit sequential={seq}: violated {row['violated']}/{args.audit_seeds}, median certification releases "
            f"per side {row['median_certification_releases_per_side']:.0f}, median {row['median_seconds']:.2f} s",
            flush=True,
        )
        out.append(row)
    return out


def rr_mech(data, size, rng):
    """Randomised response at ε = 1 on the bit ``data`` (exactly tight for the claim ε = 1)."""
    keep = rng.random(size) < math.exp(1.0) / (1 + math.exp(1.0))
    x = int(np.asarray(data).sum())
    return np.where(keep, x, 1 - x).astype(float)


def lap_tight(data, size, rng):
    return float(np.asarray(data, float).sum()) + rng.laplace(0.0, 1.0, size)  # sensitivity 1: epsilon 1


def end_to_end_validity(args):
    """False "violated" of ``audit(sequential=True)`` (event chosen by the pipeline) on exactly tight mechanisms."""
    sigma = analytic_gaussian_sigma(1.0, 1e-5, 1.0)
    gauss = lambda data, size, rng: float(np.asarray(data, float).sum()) + rng.normal(0.0, sigma, size)  # noqa: E731
    cases = [
        ("randomised response eps=1", rr_mech, PrivacyClaim(1.0), "auto"),
        ("Laplace b=1 (eps=1)", lap_tight, PrivacyClaim(1.0), "threshold"),
        ("Gaussian analytic (1, 1e-5)", gauss, PrivacyClaim(1.0, 1e-5), "threshold"),
    ]
    out = []
    for label, mech, claim, att in cases:
        t = time.perf_counter()
        res = [
            audit(
                mech,
                claim,
                pairs=[(0.0, 1.0)],
                n_samples=args.validity_audit_n,
                n_select=200,
                attacks=att,
                rng=np.random.default_rng(30_000 + s),
                sequential=True,
            )
            for s in range(args.seeds)
        ]
        k = sum(r.verdict == "violated" for r in res)
        stops = [r.details["sequential"]["stop_reason"] for r in res]
        row = {
            "mechanism": label,
            "seeds": args.seeds,
            "false_violated": int(k),
            "alpha": ALPHA,
            "max_samples_per_side": args.validity_audit_n,
            "stop_reasons": {x: stops.count(x) for x in ("violated", "futility", "max_samples")},
            "median_releases_per_side": float(np.median([r.details["sequential"]["releases_per_side"] for r in res])),
            "seconds": time.perf_counter() - t,
        }
        print(
            f"audit validity {label}: {k}/{args.seeds} false 'violated' (alpha={ALPHA}), stops {row['stop_reasons']}",
            flush=True,
        )
        out.append(row)
    return out


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--seeds", type=int, default=500)
    p.add_argument("--reps", type=int, default=4000)
    p.add_argument("--max-samples", type=int, default=1_000_000)
    p.add_argument("--validity-max", type=int, default=100_000)
    p.add_argument("--audit-seeds", type=int, default=20)
    p.add_argument("--audit-n", type=int, default=100_000)
    p.add_argument("--claims", type=float, nargs="+", default=[1.0, 0.1])
    p.add_argument("--validity-audit-n", type=int, default=20_000)
    p.add_argument("--quick", action="store_true")
    args = p.parse_args()
    if args.quick:
        args.seeds, args.reps, args.audit_seeds = 100, 1000, 5
    methods = ("betting", "union")
    res = {
        "alpha": ALPHA,
        "audit_claim_epsilon": CLAIM,
        "engine": [r for m in methods for c in args.claims for r in engine(args, c, m)],
        "validity": [validity(args, m) for m in methods],
        "validity_audit_end_to_end": end_to_end_validity(args),
        "audit_laplace_2x": end_to_end(args),
        "methods": {
            "betting": "betting e-processes over an epsilon grid, checkpoints first 50 growth 1.5",
            "union": "union bound over checkpoints (first 100, growth 2), Clopper-Pearson at alpha*6/(pi^2 j^2)",
            "futility": "'plausible' at level 1e-3",
        },
    }
    os.makedirs(os.path.join(os.path.dirname(__file__), "results"), exist_ok=True)
    with open(os.path.join(os.path.dirname(__file__), "results", "bench_sequential.json"), "w") as fh:
        json.dump(res, fh, indent=2)


if __name__ == "__main__":
    main()
