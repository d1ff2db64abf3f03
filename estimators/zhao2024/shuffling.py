"""Zhao et al. 2024's privacy calibration by shuffling amplification (Theorem 6, eqs. (78)-(80)).

* :func:`shuffle_amplified_epsilon` — ε after shuffling m ε0-DP local randomisers (Feldman–McMillan–Talwar 2021).
* :func:`calibrate_group_rho` — the per-group zCDP ρ0 that the paper's Theorem 6 certifies as (ε, δ)-DP.

Spec: ``shared/specs/zhao2024_optimal_rates.md`` (§3.3, flaw C2: the hypothesis of the amplification theorem is not
met by group means; this calibration is the paper's claim, under audit).
"""

from __future__ import annotations

import math

import numpy as np
from scipy import optimize

from htdp_verify._validate import check_int, check_positive, check_prob

__all__ = ["shuffle_amplified_epsilon", "calibrate_group_rho"]


def _fmt_raw(eps0, m, delta_prime):
    e = math.exp(eps0)
    return math.log1p(
        (e - 1.0) / (e + 1.0) * (8.0 * math.sqrt(e * math.log(4.0 / delta_prime)) / math.sqrt(m) + 8.0 * e / m)
    )


def shuffle_amplified_epsilon(eps0: float, m: int, delta_prime: float) -> float:
    """ε after shuffling m ε0-DP local randomisers (Feldman–McMillan–Talwar 2021, Thm 3.8), with the min(ε0, ·)
    of Zhao et al. 2024 (79): min(ε0, ln(1 + (e^{ε0}−1)/(e^{ε0}+1)·(8√(e^{ε0} ln(4/δ'))/√m + 8e^{ε0}/m)))."""
    eps0 = check_positive("eps0", eps0)
    m = check_int("m", m, minimum=1)
    delta_prime = check_prob("delta_prime", delta_prime)
    return min(eps0, _fmt_raw(eps0, m, delta_prime))


def calibrate_group_rho(epsilon: float, delta: float, m: int) -> dict:
    """Per-group zCDP ρ0 that Zhao et al. 2024 Theorem 6 (shuffling amplification, (78)–(80)) certifies as (ε, δ)-DP.

    Constant-free inversion: δ' = δ/2, δ0 = δ/(2m·(e^ε + 1)·1.5) (so the δ of (80) is ≤ δ), ε0 = the largest value
    whose FMT bound is ≤ ε (bisection), ρ0 from ε0 = ρ0 + 2√(ρ0 ln(1/δ0)). Returns dict(rho0, eps0, delta0,
    delta_prime). NB: FMT's hypothesis (ε0-DP local randomisers for *any* change of a user's input) is not met by a
    group mean, which is only ε0-DP w.r.t. one record (Zhao spec §3.3, flaw C2): this is the paper's claim, under test.
    """
    epsilon = check_positive("epsilon", epsilon)
    delta = check_prob("delta", delta)
    m = check_int("m", m, minimum=1)
    delta_prime = delta / 2.0
    delta0 = delta / (2.0 * m * (math.exp(epsilon) + 1.0) * 1.5)

    def excess(e0):  # FMT bound without the min(ε0, ·), minus the target; increasing in ε0
        return _fmt_raw(e0, m, delta_prime) - epsilon

    eps0 = epsilon
    if excess(epsilon) < 0:  # amplification helps: find the root of the raw bound above ε
        hi = 2.0 * epsilon
        while excess(hi) < 0 and hi < 500.0:
            hi *= 2.0
        eps0 = optimize.brentq(excess, epsilon, hi, xtol=1e-13, rtol=1e-13)
        while excess(eps0) > 0:  # land on the admissible side of the root
            eps0 = float(np.nextafter(eps0, 0.0))
    L0 = math.log(1.0 / delta0)
    rho0 = (eps0 / (math.sqrt(L0 + eps0) + math.sqrt(L0))) ** 2
    return {"rho0": rho0, "eps0": float(eps0), "delta0": delta0, "delta_prime": delta_prime}
