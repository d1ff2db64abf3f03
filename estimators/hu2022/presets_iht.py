"""Named parameter rules for Hu et al. (2022) Algs. 3 and 5 (DP-IHT): the theorems' rules and the experiments'.

* :func:`alg3_theory` — Alg. 3 with the parameters of Thm 7 (privacy: Thm 6).
* :func:`alg3_experiment` — Alg. 3 as run in the experiments (arXiv 2107.11136 §6, Figs 7–9).
* :func:`alg5_theory` — Alg. 5 with the parameters of Thm 8; ``k_rule`` selects the reading of k (Q6).
* :func:`alg5_experiment` — Alg. 5 as run in the experiments (Figs 10–11).
* :func:`random_sparse_init`, :func:`experiment_sparse_truth` — the experiments' random initial point and w*.

Each returns a configured :class:`estimators.iht.TruncatedDPIHT` / :class:`estimators.iht.RobustDPIHT`; extra
keyword arguments (``w1``, ``calibration``, ``argmax``, ``noise_divisor``, ``private``, …) are passed through.

Ambiguities of the paper (spec ``shared/specs/hu2022_heavy_tailed_dp_sco.md`` §9) and how they are resolved here:

* Q1 (Peeling scale in Alg. 3, PODS √(s+1) vs arXiv √s + 1): arXiv (√s + 1) — it is the bound the proof of Thm 6
  derives from ‖w^t‖₁ ≤ √s; the PODS value is available as ``calibration="pods"`` (an under-noised canary).
* Q2 (argmax over [d] vs [d] ∖ S): [d] ∖ S — Peeling must release s distinct coordinates for the sensitivity
  argument of Cai et al.; ``argmax="all"`` is the PODS canary.
* Q4 (Thm 7's initial condition): not enforced by the presets; the statement's ‖w¹ − w*‖ ≤ O(γ/μ) is vacuous, the
  proof needs ‖w¹ − w*‖₂² ≤ μ/(2γ); theory-regime runs should pass such a ``w1`` (the default 0 satisfies it when
  ‖w*‖₂² ≤ μ/(2γ), e.g. ‖w*‖₂ ≤ 1/2 at γ = μ, which Thm 7 already requires).
* Q5 (Alg. 5 gradient at w^{t−1}): at the current iterate w^t (w⁰ is undefined).
* Q6 (Alg. 5's k): ``k_rule="balanced"`` (default) k = (τ²n²ε²/(s T² log²(Ts/ζ) log(1/δ)))^{1/4}, the value that
  balances the noise term s²k²T²L/(nε)² against the bias sτ²/k² and reproduces the stated s*^{3/2}; ``"proof"``
  k = (n²ε²τ²/((sT)² log(Ts/ζ)))^{1/4} as printed in the proof (gives s*² instead); ``"statement"``
  k = √(nετ) (Thm 8's Õ(·) with constant 1).
* Q9 (initial points): validated by the estimators (s-sparse; ‖w¹‖₂ ≤ 1 for Alg. 3).
* Q12 (unspecified constants, integer T and m): every O(·) constant is 1 unless a multiplier is given;
  T = max(1, ⌊c_T·(γ/μ)·ln n⌋); s = ⌈c_s·(γ/μ)²·s*⌉; blocks of ⌊n/T⌋ rows, remainder unused.
* Q13 (log base): natural logs.
* Q15 (no factor 2 in Alg. 3's gradient): kept as printed (η₀ absorbs it; the sensitivity λ matches it).
* Q16 (Alg. 3 passes D_t or D̃_t to Peeling): irrelevant, Peeling uses only the score vector.
* Thm 7's step: η = 2/(3γ) — the proof's step η₀ = η/γ with η = 2/3, i.e. η₀ = 2/(3γ).
* Thm 7's sparsity: s ≥ 72(γ/μ)²s*; the preset takes the smallest such integer (``c_s=72``); with γ = μ this is
  72 s*, so small-d experiments need a smaller ``c_s`` (then Thm 7 no longer applies: say so in reports).
* Q17 and the experiments: Alg. 3 uses s = c·s* with an unspecified c; we take c = 2, the value the experiments
  state for Alg. 5. δ = n^{−1.1}, T = ⌊ln n⌋, η = 0.5 as printed. Alg. 5's k = c₂·nε with an unspecified integer
  c₂: default 1. β is unspecified in the experiments: 1 (Thm 8 only asks β = O(1)). The regularisation weight of
  the "regularised" logistic loss is unspecified: default 1e-2 (small, so that the regularised minimiser stays
  close to w*; recorded in every report through the estimator's ``reg``).
"""

from __future__ import annotations

import math

import numpy as np

from htdp_verify._validate import check_int, check_positive, check_prob, check_rng

from ..iht import RobustDPIHT, TruncatedDPIHT, project_l2_ball

__all__ = [
    "alg3_theory",
    "alg3_experiment",
    "alg5_theory",
    "alg5_experiment",
    "alg5_k",
    "random_sparse_init",
    "experiment_sparse_truth",
]


def _sparsity(s, d, name="s"):
    if d is not None and s > check_int("d", d, minimum=1):
        raise ValueError(f"{name} = {s} from the rule exceeds d = {d}; lower s_star or the multiplier c_s")
    return s


def _iterations(n, condition, c_T):
    return max(1, math.floor(c_T * condition * math.log(n)))


def alg3_theory(
    n: int,
    *,
    s_star: int,
    epsilon: float,
    delta: float,
    gamma: float = 1.0,
    mu: float = 1.0,
    d: int | None = None,
    c_T: float = 1.0,
    c_s: float = 72.0,
    **kwargs,
) -> TruncatedDPIHT:
    """Alg. 3 with Thm 7's rules: T = ⌊c_T(γ/μ) ln n⌋, s = ⌈c_s(γ/μ)²s*⌉ (Thm 7: c_s ≥ 72), K = (nε/(sT))^{1/4},
    η₀ = 2/(3γ); γ = λ_max(E xxᵀ), μ = λ_min(E xxᵀ). ``d`` (optional) checks s ≤ d."""
    n = check_int("n", n, minimum=2)
    s_star = check_int("s_star", s_star, minimum=1)
    gamma, mu = check_positive("gamma", gamma), check_positive("mu", mu)
    if mu > gamma:
        raise ValueError(f"mu must be <= gamma (eigenvalue bounds), got mu={mu}, gamma={gamma}")
    epsilon = check_positive("epsilon", epsilon)
    T = _iterations(n, gamma / mu, check_positive("c_T", c_T))
    s = _sparsity(math.ceil(check_positive("c_s", c_s) * (gamma / mu) ** 2 * s_star), d)
    K = (n * epsilon / (s * T)) ** 0.25
    return TruncatedDPIHT(s, epsilon, delta, K=K, T=T, eta0=2.0 / (3.0 * gamma), **kwargs)


def alg3_experiment(
    n: int, *, s_star: int, epsilon: float, c: int = 2, d: int | None = None, **kwargs
) -> TruncatedDPIHT:
    """Alg. 3 as in the experiments (arXiv §6, Figs 7–9): s = c·s*, T = ⌊ln n⌋, K = (nε/(sT))^{1/4}, η₀ = 0.5,
    δ = n^{−1.1}. The experiments start from :func:`random_sparse_init` (pass it as ``w1``)."""
    n = check_int("n", n, minimum=3)
    s = _sparsity(check_int("s_star", s_star, minimum=1) * check_int("c", c, minimum=1), d)
    epsilon = check_positive("epsilon", epsilon)
    T = max(1, math.floor(math.log(n)))
    K = (n * epsilon / (s * T)) ** 0.25
    return TruncatedDPIHT(s, epsilon, n**-1.1, K=K, T=T, eta0=0.5, **kwargs)


def alg5_k(n, *, s, T, epsilon, delta, zeta, tau, k_rule="balanced") -> float:
    """The robust scale k of Alg. 5 under the three readings of Thm 8 (module docstring, Q6)."""
    nt = n * epsilon * tau
    if k_rule == "balanced":
        return (nt**2 / (s * T**2 * math.log(T * s / zeta) ** 2 * math.log(1.0 / delta))) ** 0.25
    if k_rule == "proof":
        return (nt**2 / ((s * T) ** 2 * math.log(T * s / zeta))) ** 0.25
    if k_rule == "statement":
        return math.sqrt(nt)
    raise ValueError(f"k_rule must be one of ('balanced', 'proof', 'statement'), got {k_rule!r}")


def alg5_theory(
    n: int,
    *,
    s_star: int,
    epsilon: float,
    delta: float,
    zeta: float,
    tau: float,
    gamma: float = 1.0,
    mu: float = 1.0,
    beta: float = 1.0,
    d: int | None = None,
    c_T: float = 1.0,
    c_s: float = 1.0,
    k_rule: str = "balanced",
    **kwargs,
) -> RobustDPIHT:
    """Alg. 5 with Thm 8's rules: T = ⌊c_T(γ_r/μ_r) ln n⌋, s = ⌈c_s(γ_r/μ_r)²s*⌉, β = 1, η = 2/(3γ_r), k by
    ``k_rule`` (Q6; default "balanced"); τ bounds E(∇_jℓ)² over s-sparse w (Assumption 4)."""
    n = check_int("n", n, minimum=2)
    s_star = check_int("s_star", s_star, minimum=1)
    gamma, mu = check_positive("gamma", gamma), check_positive("mu", mu)
    if mu > gamma:
        raise ValueError(f"mu must be <= gamma (RSC <= RSS), got mu={mu}, gamma={gamma}")
    epsilon, tau = check_positive("epsilon", epsilon), check_positive("tau", tau)
    delta, zeta = check_prob("delta", delta), check_prob("zeta", zeta)
    T = _iterations(n, gamma / mu, check_positive("c_T", c_T))
    s = _sparsity(math.ceil(check_positive("c_s", c_s) * (gamma / mu) ** 2 * s_star), d)
    k = alg5_k(n, s=s, T=T, epsilon=epsilon, delta=delta, zeta=zeta, tau=tau, k_rule=k_rule)
    return RobustDPIHT(s, epsilon, delta, k=k, T=T, eta=2.0 / (3.0 * gamma), beta=beta, **kwargs)


def alg5_experiment(
    n: int,
    *,
    s_star: int,
    epsilon: float,
    c2: float = 1.0,
    loss: str = "logistic",
    reg: float | None = None,
    d: int | None = None,
    **kwargs,
) -> RobustDPIHT:
    """Alg. 5 as in the experiments (Figs 10–11): s = 2s*, T = ⌊ln n⌋, k = c₂·nε, η = 0.5, β = 1,
    δ = n^{−1.1}, regularised logistic loss (reg default 1e-2; 0 for other losses)."""
    n = check_int("n", n, minimum=3)
    s = _sparsity(2 * check_int("s_star", s_star, minimum=1), d)
    epsilon = check_positive("epsilon", epsilon)
    k = check_positive("c2", c2) * n * epsilon
    if reg is None:
        reg = 1e-2 if loss == "logistic" else 0.0
    return RobustDPIHT(
        s, epsilon, n**-1.1, k=k, T=max(1, math.floor(math.log(n))), eta=0.5, beta=1.0, loss=loss, reg=reg, **kwargs
    )


def random_sparse_init(d: int, s_star: int, *, rng: np.random.Generator) -> np.ndarray:
    """The experiments' initial point: a random s*-sparse vector, uniform in the unit ℓ2 ball of a uniformly
    random support (data-independent, so it costs no privacy)."""
    d = check_int("d", d, minimum=1)
    s_star = check_int("s_star", s_star, minimum=1)
    if s_star > d:
        raise ValueError(f"s_star must lie in [1, d={d}], got {s_star}")
    check_rng(rng)
    w = np.zeros(d)
    support = rng.choice(d, size=s_star, replace=False)
    g = rng.standard_normal(s_star)
    w[support] = g / np.linalg.norm(g) * rng.uniform() ** (1.0 / s_star)
    return w


def experiment_sparse_truth(d: int, s_star: int, *, rng: np.random.Generator) -> np.ndarray:
    """The experiments' w*: N(0, 100²) coordinates ("scale = 100" read as the standard deviation), d − s* random
    coordinates zeroed, projected onto the unit ℓ2 ball (so ‖w*‖₂ = 1 a.s., outside Thm 7's ‖w*‖₂ ≤ 1/2)."""
    d = check_int("d", d, minimum=1)
    s_star = check_int("s_star", s_star, minimum=1)
    if s_star > d:
        raise ValueError(f"s_star must lie in [1, d={d}], got {s_star}")
    check_rng(rng)
    w = rng.normal(0.0, 100.0, size=d)
    w[rng.choice(d, size=d - s_star, replace=False)] = 0.0
    return project_l2_ball(w)
