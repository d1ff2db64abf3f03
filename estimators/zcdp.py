"""Zero-concentrated DP calibration shared by several papers' estimators (Wang et al. DP-EM, Zhao et al. 2024).

Bun & Steinke 2016, Prop. 1.3: ρ-zCDP implies (ρ + 2√(ρ ln(1/δ)), δ)-DP for every δ > 0. The inverse used to pick
the noise of a Gaussian release for a target (ε, δ) is ρ = ε̃² with ε̃ = √(ln(1/δ) + ε) − √ln(1/δ).
"""

from __future__ import annotations

import math

from htdp_verify._validate import check_positive, check_prob

__all__ = ["zcdp_eps_tilde", "rho_for_target"]


def zcdp_eps_tilde(epsilon, delta) -> float:
    """ε̃ = √(ln(1/δ) + ε) − √ln(1/δ), computed without cancellation as ε / (√(L + ε) + √L), L = ln(1/δ).

    ρ = ε̃² is the largest ρ whose Bun–Steinke conversion is (ε, δ)-DP (ρ + 2√(ρL) = ε exactly).
    """
    epsilon = check_positive("epsilon", epsilon)
    delta = check_prob("delta", delta)
    L = math.log(1.0 / delta)
    return epsilon / (math.sqrt(L + epsilon) + math.sqrt(L))


def rho_for_target(epsilon, delta) -> float:
    """Largest ρ with ρ + 2√(ρ ln(1/δ)) ≤ ε (inverse of Bun–Steinke 2016, Prop. 1.3): ρ = ε̃²."""
    return zcdp_eps_tilde(epsilon, delta) ** 2
