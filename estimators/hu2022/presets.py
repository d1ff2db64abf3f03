"""Hu et al. 2022: parameter rules of the theorems and of the experiments for Algs. 1 and 2, as named presets.

Each function returns a configured estimator from :mod:`estimators.sco` (the generic Frank–Wolfe family):

* :func:`alg1_theory` — Alg. 1 with Thm 2's T, s, β, η (convex smooth loss, Assumption 1).
* :func:`alg1_robust_regression_theory` — Alg. 1 with Thm 3's rules (biweight loss, constant step 1/√T).
* :func:`alg1_experiment` — Alg. 1 as run in the arXiv version's §6.2 (T = ⌊(nε)^{1/3}⌋, s = ⌊nε⌋).
* :func:`alg2_theory` — Alg. 2 with Thm 5's T and K.
* :func:`alg2_experiment` — Alg. 2 as run in §6 (T = ⌊(nε)^{2/5}⌋, K = (nε)^{1/4}/T^{1/8}, δ = n^{−1.1}).

Readings of the spec's ambiguities (``shared/specs/hu2022_heavy_tailed_dp_sco.md`` §9), decided here:

* Q11/Q12 — all O(·)/Õ(·) constants are unspecified: every rule takes multipliers (``c_T``, ``c_s``, ``c_K``)
  defaulting to 1; ``T = max(1, ⌊·⌋)`` and at most n (each block needs a record); ``m = ⌊n/T⌋``, remainder unused.
* Q13 — natural logarithms.
* Q18 — Thms 3 and 5 put ``log(dT/ζ)`` (PODS; the ARX proofs) or ``log(d/ζ)`` (ARX statements) in T's own
  formula; we use ``log(dT/ζ)`` (the form the proofs need) and take the self-consistent T: the largest integer
  T ≥ 1 with ``T ≤ f(T)`` (f decreases in T, so this is well defined; T = 1 if even ``1 > f(1)``).
* Q22 — Thm 2's T needs ``α²nε ≳ τ log``; we clip at T = 1 rather than refuse (reports should say so).
* Q7 — the experiments' ``s = ⌊nε⌋`` makes the exponential mechanism's inverse temperature
  ``ε/(2Δ) = 3/(8√2‖W‖₁T)`` independent of ε: kept as printed (``scale_rule="paper"``), with
  ``scale_rule="sqrt"`` (``s = √(nε)``, the suspected intended reading) available for comparison.
* Q14 — step ``η = 2/(t + 2)`` at iteration t = 1..T (first step 2/3), as in the algorithm text.
* Q8 — ``‖W‖₁`` is the ℓ1 diameter (2 for the unit ball); see :mod:`estimators.sco`.
* β in the experiments is not stated; β = 1 (Thm 2's β = O(1)).
* §7.1 — experiments start from a uniform random point of the unit ℓ1 ball (``w0="random"``, drawn per release
  from the release's generator: data-independent, so privacy is unaffected); the theory presets start at 0.
"""

from __future__ import annotations

import math

from htdp_verify._validate import check_int, check_positive, check_prob

from ..losses import BiweightLoss
from ..sco import HeavyTailedDPFrankWolfe, HeavyTailedPrivateLasso

__all__ = [
    "alg1_theory",
    "alg1_robust_regression_theory",
    "alg1_experiment",
    "alg2_theory",
    "alg2_experiment",
    "self_consistent_T",
]


def _check_common(n, d, epsilon):
    return check_int("n", n, minimum=1), check_int("d", d, minimum=1), check_positive("epsilon", epsilon)


def self_consistent_T(f, n: int) -> int:
    """Largest integer T in [1, n] with ``T ≤ f(T)`` for a non-increasing ``f``; 1 if there is none (spec Q18)."""
    if f(1) < 1:
        return 1
    lo, hi = 1, n  # invariant: lo satisfies T ≤ f(T)
    if hi <= f(hi):
        return hi
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if mid <= f(mid):
            lo = mid
        else:
            hi = mid
    return lo


def alg1_theory(
    n: int,
    d: int,
    epsilon: float,
    *,
    tau: float = 1.0,
    smoothness: float = 1.0,
    zeta: float = 0.1,
    beta: float = 1.0,
    radius: float = 1.0,
    loss="squared",
    c_T: float = 1.0,
    c_s: float = 1.0,
    **kwargs,
) -> HeavyTailedDPFrankWolfe:
    """Alg. 1 on the ℓ1 ball (|V| = 2d) with Thm 2's rules:
    ``T = ⌊c_T (nεα²/(τ log(|V|d/ζ)))^{1/3}⌋`` (clipped to [1, n]), ``s = c_s √(nετ/(T log(|V|dT/ζ)))``, β = O(1)
    (default 1), ``η = 2/(t + 2)``.  ``tau`` is Assumption 1's coordinate-wise second-moment bound of the
    gradient, ``smoothness`` α the smoothness constant of the population risk. Extra keywords go to the estimator.
    """
    n, d, epsilon = _check_common(n, d, epsilon)
    tau, alpha = check_positive("tau", tau), check_positive("smoothness", smoothness)
    zeta = check_prob("zeta", zeta)
    c_T, c_s = check_positive("c_T", c_T), check_positive("c_s", c_s)
    nv = 2 * d
    T = int(min(n, max(1, math.floor(c_T * (n * epsilon * alpha**2 / (tau * math.log(nv * d / zeta))) ** (1 / 3)))))
    s = c_s * math.sqrt(n * epsilon * tau / (T * math.log(nv * d * T / zeta)))
    return HeavyTailedDPFrankWolfe(epsilon, T, s, beta, loss=loss, radius=radius, step="fw", **kwargs)


def alg1_robust_regression_theory(
    n: int,
    d: int,
    epsilon: float,
    *,
    zeta: float = 0.1,
    beta: float = 1.0,
    c: float = 4.685,
    radius: float = 1.0,
    c_T: float = 1.0,
    c_s: float = 1.0,
    **kwargs,
) -> HeavyTailedDPFrankWolfe:
    """Alg. 1 with Thm 3's rules for the (non-convex) biweight regression loss: constant step ``η = 1/√T``,
    ``T`` the self-consistent solution of ``T = c_T √(nε/log(dT/ζ))`` (Q18), ``s = c_s √(nε)/√(T log(dT/ζ))``,
    β = O(1) (default 1); ``c`` is the biweight constant (not fixed by the paper; 4.685 = Tukey's usual one)."""
    n, d, epsilon = _check_common(n, d, epsilon)
    zeta = check_prob("zeta", zeta)
    c_T, c_s = check_positive("c_T", c_T), check_positive("c_s", c_s)
    T = self_consistent_T(lambda t: c_T * math.sqrt(n * epsilon / math.log(d * t / zeta)), n)
    s = c_s * math.sqrt(n * epsilon) / math.sqrt(T * math.log(d * T / zeta))
    return HeavyTailedDPFrankWolfe(epsilon, T, s, beta, loss=BiweightLoss(c), radius=radius, step="constant", **kwargs)


def alg1_experiment(
    n: int,
    d: int,
    epsilon: float,
    *,
    loss="squared",
    scale_rule: str = "paper",
    beta: float = 1.0,
    w0="random",
    **kwargs,
) -> HeavyTailedDPFrankWolfe:
    """Alg. 1 as in the experiments (arXiv §6.2): unit ℓ1 ball, ``T = ⌊(nε)^{1/3}⌋``, ``η_t = 2/(t + 2)``,
    ``s = ⌊nε⌋`` (``scale_rule="paper"``, Q7) or ``√(nε)`` (``"sqrt"``), β = 1, random start in the ball."""
    n, d, epsilon = _check_common(n, d, epsilon)
    if scale_rule not in ("paper", "sqrt"):
        raise ValueError(f"scale_rule must be 'paper' or 'sqrt', got {scale_rule!r}")
    ne = n * epsilon
    T = int(min(n, max(1, math.floor(ne ** (1 / 3) + 1e-9))))
    s = max(1.0, math.floor(ne)) if scale_rule == "paper" else math.sqrt(ne)
    return HeavyTailedDPFrankWolfe(epsilon, T, s, beta, loss=loss, w0=w0, step="fw", **kwargs)


def alg2_theory(
    n: int,
    d: int,
    epsilon: float,
    delta: float,
    *,
    lambda_max: float = 1.0,
    zeta: float = 0.1,
    c_T: float = 1.0,
    c_K: float = 1.0,
    **kwargs,
) -> HeavyTailedPrivateLasso:
    """Alg. 2 with Thm 5's rules: ``T`` the self-consistent solution of
    ``T = c_T (√(nε) λ_max / √(log(1/δ) log(dT/ζ)))^{4/5}`` (Q18), ``K = c_K (nε)^{1/4}/T^{1/8}``, ``η = 2/(t + 2)``;
    ``lambda_max`` = λ_max(E xxᵀ)."""
    n, d, epsilon = _check_common(n, d, epsilon)
    delta, zeta = check_prob("delta", delta), check_prob("zeta", zeta)
    lam = check_positive("lambda_max", lambda_max)
    c_T, c_K = check_positive("c_T", c_T), check_positive("c_K", c_K)
    L = math.log(1.0 / delta)
    T = self_consistent_T(
        lambda t: c_T * (math.sqrt(n * epsilon) * lam / math.sqrt(L * math.log(d * t / zeta))) ** 0.8, n
    )
    K = c_K * (n * epsilon) ** 0.25 / T**0.125
    return HeavyTailedPrivateLasso(epsilon, delta, T, K, step="fw", **kwargs)


def alg2_experiment(
    n: int, d: int, epsilon: float, *, delta: float | None = None, w0="random", **kwargs
) -> HeavyTailedPrivateLasso:
    """Alg. 2 as in the experiments (§6): ``T = ⌊(nε)^{2/5}⌋``, ``K = (nε)^{1/4}/T^{1/8}``, ``η_t = 2/(t + 2)``,
    ``δ = n^{−1.1}`` unless given, random start in the unit ℓ1 ball. (The paper writes T = (nε)^{2/5} without a
    floor; T must be an integer, Q12.)"""
    n, d, epsilon = _check_common(n, d, epsilon)
    delta = n**-1.1 if delta is None else delta
    ne = n * epsilon
    T = max(1, math.floor(ne**0.4 + 1e-9))
    K = ne**0.25 / T**0.125
    return HeavyTailedPrivateLasso(epsilon, delta, T, K, w0=w0, step="fw", **kwargs)
