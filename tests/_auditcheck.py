"""Test helper: re-certify an audit's selected event at a much stricter level.

A single fixed-seed assertion "ε_lb ≤ true ε" is a 95%-coverage statement: a correct auditor fails it with
probability up to α = 0.05 per seed, which is not a test design.  Instead we recompute the bound from the reported
counts with the same certification method at α = 1e-3: a correct implementation exceeds the true ε there with
probability ≤ 0.001, while a wrong formula or wrong counts (a real validity bug) still shows.
"""

from htdp_verify import stats


def strict_epsilon_lb(result, alpha: float = 1e-3) -> float:
    c = result.details["counts"]
    kn, kd = c["numerator"], c["denominator"]
    if c.get("method", "cp") == "poisson":
        n = c["n_per_side"]
        return float(stats.epsilon_lower_bound_poisson(kn, kd, alpha, n, n))
    delta = result.claim.delta if result.claim is not None else 0.0
    return float(
        stats.epsilon_lower_bound(
            kn, c.get("n_numerator", c["n_per_side"]), kd, c.get("n_denominator", c["n_per_side"]), alpha, delta
        )
    )
