"""Hu et al. 2022, Alg 3 (truncated DP-IHT) at ε = 1: is the s* exponent of Thm 7 observable at affordable n?

Runs Alg 3 with Thm 7's rules (``alg3_theory``, c_s = 2, δ = 1e-6, T = ⌊ln n⌋, K = (nε/(sT))^{1/4}, η₀ = 2/3) on
the R7 instance (x i.i.d. t₅ with unit variance, response noise t₅ with unit variance, w* on s* coordinates with
‖w*‖₂ = 1/2) and prints the mean and median of ‖w − w*‖² per s*.  A mean near ‖w*‖² + 1 = 1.25 (the error of a
random unit vector) means the error is saturated: no s* exponent can be fitted there, which is why the registered
rate checks (:mod:`audits.hu2022_sparse_rates`) run at an effective nε instead (see that module's docstring).

Usage: python benchmarks/sparse_rates_saturation.py [--n 20000] [--d 100] [--reps 20] [--seed 0]
(n = 2·10⁵ takes about 4 minutes on one core.)
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np
from threadpoolctl import threadpool_limits

from estimators.hu2022.presets_iht import alg3_theory

T5_SD = math.sqrt(5.0 / 3.0)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=20000)
    ap.add_argument("--d", type=int, default=100)
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--s-star", type=int, nargs="+", default=[1, 2, 4, 8, 16])
    a = ap.parse_args()
    rng = np.random.default_rng(a.seed)
    print(f"n = {a.n}, d = {a.d}, eps = 1, delta = 1e-6, {a.reps} reps")
    with threadpool_limits(1):
        for s_star in a.s_star:
            t0 = time.perf_counter()
            est = alg3_theory(a.n, s_star=s_star, epsilon=1.0, delta=1e-6, c_s=2, d=a.d)
            err = np.empty(a.reps)
            for r in range(a.reps):
                w = np.zeros(a.d)
                w[:s_star] = rng.choice([-1.0, 1.0], s_star) / (2 * math.sqrt(s_star))
                X = rng.standard_t(5.0, (a.n, a.d)) / T5_SD
                y = X @ w + rng.standard_t(5.0, a.n) / T5_SD
                err[r] = np.sum((est(np.column_stack([X, y]), rng=rng) - w) ** 2)
            print(
                f"s* = {s_star:3d}  s = {est.s:3d}  T = {est.T}  K = {est.K:.2f}  Peeling scale b = "
                f"{est.noise_scale(a.n):.3f}  mean {err.mean():.4f}  median {np.median(err):.4f}  "
                f"({time.perf_counter() - t0:.1f} s)"
            )


if __name__ == "__main__":
    main()
