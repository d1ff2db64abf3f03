"""Step audits of noisy gradient descent: cost against a whole-run audit, and validity of the run-level lower bound.

Run: ``python benchmarks/bench_steps.py [--seeds 100] [--out benchmarks/results/bench_steps.json]``.

1. **Cost and power.** NoisyGD (T = 50 steps, n = 20 records, d = 2) claimed (1, 1e-5)-DP and an under-noised copy
   (a tenth of the stated noise). Each is audited (a) with ``audit_steps`` at one state and (b) with ``audit`` on
   the whole run (releases θ_T), both with the same number of certification releases per side; wall-clock and
   verdicts are printed.
2. **Validity.** Over ``--seeds`` seeds, the under-noised step audit's run-level lower bound (α = 0.05) is compared
   with the exact ε(δ) of the under-noised run under adaptive composition (T Gaussian releases with the actual
   noise): the bound may exceed it in at most a fraction α of seeds.
3. **Library adapters.** Releases per second of an OpenDP Laplace sum and a python-dp BoundedMean (if installed).

Results are written as JSON. Times are wall-clock on the machine at hand.
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

from estimators.ngd import NoisyGD
from htdp_verify.privacy import Calibration, audit, audit_steps, epsilon_of

T, EPS, DELTA = 50, 1.0, 1e-5


class UnderNoised(NoisyGD):
    def _noise_std(self):
        return self.sigma / 10


def pair():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(20, 2))
    y = X @ np.array([1.0, -1.0]) + rng.normal(size=20)
    d = np.column_stack([X, y])
    d[0] = [10.0, 0.0, 100.0]
    d2 = d.copy()
    d2[0] = [10.0, 0.0, -100.0]
    return d, d2


def est(cls):
    return cls(epsilon=EPS, delta=DELTA, n_steps=T, clip=1.0, step_size=0.1, dim=2)


def cost(n_samples: int) -> list[dict]:
    rows = []
    D, D2 = pair()
    for cls in (NoisyGD, UnderNoised):
        e = est(cls)
        t0 = time.perf_counter()
        s = audit_steps(e, (D, D2), {0: np.zeros(2)}, n_samples=n_samples, rng=np.random.default_rng(1))
        ts = time.perf_counter() - t0
        t0 = time.perf_counter()
        w = audit(e, pairs=[(D, D2)], n_samples=n_samples, rng=np.random.default_rng(2))
        tw = time.perf_counter() - t0
        lb = s.run_lower_bound
        rows.append(
            {
                "estimator": cls.__name__,
                "n_samples": n_samples,
                "step_seconds": ts,
                "step_verdict": s.verdict,
                "step_epsilon_lb": s.estimate,
                "run_lower_bound": None if lb is None else lb["epsilon_lb"],
                "whole_run_seconds": tw,
                "whole_run_verdict": w.verdict,
                "whole_run_epsilon_lb": w.epsilon_lb,
            }
        )
        print(
            f"{cls.__name__:12s} step audit {ts:6.2f} s {s.verdict:10s} step ε_lb={s.estimate:.3f} "
            f"run ε_lb={'-' if lb is None else format(lb['epsilon_lb'], '.3f')} | whole-run audit {tw:6.2f} s "
            f"{w.verdict:10s} ε_lb={w.epsilon_lb:.3f}"
        )
    return rows


def validity(seeds: int, n_samples: int) -> dict:
    D, D2 = pair()
    e = est(UnderNoised)
    truth = epsilon_of(Calibration("gaussian", sensitivity=2.0, sigma=e.sigma / 10, steps=T), DELTA)
    bounds = []
    for s in range(seeds):
        r = audit_steps(e, (D, D2), {0: np.zeros(2)}, n_samples=n_samples, rng=np.random.default_rng(1000 + s))
        lb = r.run_lower_bound
        bounds.append(None if lb is None else lb["epsilon_lb"])
    vals = np.array([b if b is not None else 0.0 for b in bounds])
    out = {
        "seeds": seeds,
        "n_samples": n_samples,
        "true_run_epsilon": truth,
        "exceedances": int(np.sum(vals > truth)),
        "median_bound": float(np.median(vals)),
        "max_bound": float(np.max(vals)),
        "no_bound": int(sum(b is None for b in bounds)),
    }
    print(
        f"validity: {out['exceedances']}/{seeds} run-level bounds above the true ε = {truth:.3f} "
        f"(median bound {out['median_bound']:.3f}, max {out['max_bound']:.3f}, none in {out['no_bound']})"
    )
    return out


def libraries(n: int) -> dict:
    out = {}
    try:
        import opendp.prelude as dp

        from htdp_verify.privacy.libraries import from_opendp

        dp.enable_features("contrib")
        m = (
            (dp.vector_domain(dp.atom_domain(bounds=(0.0, 1.0))), dp.symmetric_distance())
            >> dp.t.then_sum()
            >> dp.m.then_laplace(scale=1.0)
        )
        mech = from_opendp(m)
        t0 = time.perf_counter()
        mech(np.zeros(5), n, np.random.default_rng(0))
        out["opendp_releases_per_second"] = n / (time.perf_counter() - t0)
    except ImportError:
        out["opendp_releases_per_second"] = None
    try:
        from pydp.algorithms.laplacian import BoundedMean

        from htdp_verify.privacy.libraries import from_pydp

        mech = from_pydp(BoundedMean, epsilon=1.0, lower_bound=0.0, upper_bound=1.0, dtype="float")
        t0 = time.perf_counter()
        mech(np.zeros(5), n, np.random.default_rng(0))
        out["pydp_releases_per_second"] = n / (time.perf_counter() - t0)
    except ImportError:
        out["pydp_releases_per_second"] = None
    print(f"library adapters: {out}")
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, default=100)
    ap.add_argument("--n-samples", type=int, default=3000)
    ap.add_argument("--out", default="benchmarks/results/bench_steps.json")
    a = ap.parse_args()
    res = {"cost": cost(a.n_samples), "validity": validity(a.seeds, a.n_samples), "libraries": libraries(20_000)}
    with open(a.out, "w") as f:
        json.dump(res, f, indent=1)
    print(f"wrote {a.out}")


if __name__ == "__main__":
    main()
