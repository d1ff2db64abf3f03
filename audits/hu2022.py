"""Hu, Ni, Xiao & Wang 2022 (PODS '22; arXiv 2107.11136): the 1-d smoothed soft-truncation mean estimator under audit.

Spec: ``../shared/specs/hu2022_heavy_tailed_dp_sco.md`` (§2 estimator, §2.3 sensitivity, §2.4 Lemma 4, §8 checks).

Checks (all registered; ``htdp-verify run hu2022``):

* ``hu2022.privacy.smoothed_mean`` — x̂(s, β) + Laplace(4√2 s/(3nε)) is ε-DP (proof of Thm 1, Def. 2). Worst pair:
  one record moved from +1e12 to −1e12. Analytic true ε = ε·erf(√(β/2)) (spec §2.3): the claim has slack.
* ``hu2022.privacy.smoothed_mean_tight`` — the same with the tight sensitivity (× erf(√(β/2))): true ε = claim, so
  the audit should come close to, but not above, ε.
* ``hu2022.privacy.closed_form`` — the canary: the printed closed form of E φ(a + bZ) (eq. (5), Appendix Ĉ)
  evaluated literally in float64; at |x|/s ≈ 1e6 it returns ≈ −121 instead of a value in ±0.943, so the
  sensitivity bound of the privacy proof is void (spec §2.2, P6). Expected: violated (``expected="violated"``).
* ``hu2022.tail.lemma4`` — Lemma 4 (eq. (12)), explicit constants: P(|x̂ − E x| > bound) ≤ ζ, exact binomial test on
  Student-t₃ + 1, Pareto(2.5) and log-normal data at several n (spec R0).
* ``hu2022.rate.lemma4_n`` — the (1−ζ)-quantile of the non-private error at s* falls as n^{-1/2} (Lemma 4, R0).
* ``hu2022.rate.private_n`` / ``hu2022.rate.private_eps`` — the Laplace-noised estimator with s ∝ √(nετ) (the
  per-block choice of s = O(√(nετ/(T log))) in the proof of Thm 2) has error ∝ (nε)^{-1/2}: slope −1/2 in n and
  in ε (§5.3). This tests a term inside the proof of Thm 2 (eq. (28): bias τ(1+1/β)/s against noise ∝ s/(nε),
  with T = 1 and a Laplace release in place of the exponential mechanism), not the statement of Thm 2.
α: the paper's privacy claim tests (the two ``smoothed_mean`` checks here, ``dp_fw``, ``lasso``, ``peeling`` in
``hu2022_algorithms``, ``iht_truncated``, ``iht_robust`` in ``hu2022_sparse``) form :data:`PRIVACY_FAMILY`, its rate
claims :data:`RATE_FAMILY`; each family spends α = 0.05 split by Bonferroni (``htdp_verify.multiplicity``).  The
canary and the controls keep α = 0.05 and are not counted.

* ``hu2022.compare_baselines`` — errors at equal ε against clipped-mean + Laplace/Gaussian, diffprivlib-free
  baselines and the non-private references (descriptive, verdict "info"; table in details, figure).
"""

from __future__ import annotations

import math

import numpy as np

from estimators.baselines import ClippedMeanLaplace, MedianOfMeans, NonPrivateMean, TrimmedMean
from estimators.hu2022 import (
    PrivateSmoothedSoftTruncationMean,
    SmoothedSoftTruncationMean,
    hu_lemma4_bound,
    hu_lemma4_scale,
)
from estimators.robust import smoothed_bound, soft_truncation_statistic
from htdp_verify.claims import Provenance, RateClaim, TailBoundClaim
from htdp_verify.distributions import LogNormal, Pareto, StudentT
from htdp_verify.multiplicity import FAMILY_ALPHA, Family, register_family
from htdp_verify.registry import register

from . import _mean_common as C

PAPER = "Hu, Ni, Xiao, Wang 2022 (PODS; arXiv 2107.11136)"
PROV_PRIV = Provenance(
    PAPER,
    "Thm 1 (proof: sensitivity 4√2s/(3n)) + Laplace mechanism, Def. 2",
    "(4)",
    "1-d estimator of §4 released with Laplace noise",
)
PROV_CANARY = Provenance(
    PAPER,
    "§4 closed form of E φ(a+bZ), Appendix 'Explicit form of Ĉ'",
    "(5)",
    "canary: literal float64 evaluation (spec §2.2)",
)
PROV_L4 = Provenance(PAPER, "Lemma 4", "(12)", "explicit constants; raw second moment τ")
PROV_RATE = Provenance(
    PAPER,
    "proof of Thm 2: the bias + deviation + noise terms of eq. (28) with s ∝ √(nετ)",
    "(28)",
    "a term inside the proof, not the statement of Thm 2 (an excess-risk rate for "
    "Frank-Wolfe); here T = 1 and a Laplace release stands in for the exponential mechanism: "
    "1-d error ∝ √(τ/(nε)) (spec §5.3)",
)
PROV_CMP = Provenance(
    PAPER, "§4 estimator vs clipped-mean baselines", "", "descriptive comparison; no statement of the paper is tested"
)

EPS = 1.0
BETA = 1.0
T3 = StudentT(3.0, loc=1.0)  # τ = E x² = 3 + 1 = 4

SIZES = {
    "tiny": dict(
        priv=(3000, 1000, 300),
        reps_tail=200,
        tail_n=(200,),
        reps_rate=60,
        ns=(300, 1200, 4800),
        epss=(0.02, 0.08, 0.32),
        n_eps=2000,
        reps_cmp=10,
        n_cmp=500,
    ),
    "quick": dict(
        priv=(30_000, 6_000, 2_000),
        reps_tail=2000,
        tail_n=(200, 2000),
        reps_rate=200,
        ns=(500, 1500, 4500, 13500, 40500),
        epss=(0.003, 0.01, 0.03, 0.1),
        n_eps=5000,
        reps_cmp=60,
        n_cmp=2000,
    ),
    "full": dict(
        priv=(400_000, 60_000, 10_000),
        reps_tail=20_000,
        tail_n=(200, 2000, 20000),
        reps_rate=1000,
        ns=(500, 1500, 4500, 13500, 40500, 121500),
        epss=(0.001, 0.003, 0.01, 0.03, 0.1, 0.3),
        n_eps=20000,
        reps_cmp=300,
        n_cmp=5000,
    ),
}


# ---------------------------------------------------------------------------------------------------------
# family-wise α of the paper's privacy claims (all Hu et al. 2022 modules: this one, hu2022_algorithms, hu2022_sparse)
# ---------------------------------------------------------------------------------------------------------
#: The claim tests of Hu et al. 2022's privacy statements share α = 0.05 (Bonferroni: 0.05/7 each, at every
#: profile), whatever subset of them a run selects.  Controls (``*_undernoised``, built to be violated) and the
#: closed-form canary keep their own α = 0.05 and are not counted; ``peeling_exact`` is deterministic (no α).
PRIVACY_FAMILY = register_family(
    Family(
        "hu2022.privacy",
        {
            "hu2022.privacy.smoothed_mean": 1,
            "hu2022.privacy.smoothed_mean_tight": 1,
            "hu2022.privacy.dp_fw": 1,
            "hu2022.privacy.lasso": 1,
            "hu2022.privacy.peeling": 1,
            "hu2022.privacy.iht_truncated": 1,
            "hu2022.privacy.iht_robust": 1,
        },
        FAMILY_ALPHA,
        excluded={
            "hu2022.privacy.closed_form": "canary (expected violated)",
            "hu2022.privacy.dp_fw_undernoised": "control (expected violated)",
            "hu2022.privacy.lasso_undernoised": "control (expected violated)",
            "hu2022.privacy.peeling_undernoised": "control (expected violated)",
            "hu2022.privacy.iht_truncated_undernoised": "control (expected violated)",
            "hu2022.privacy.iht_robust_undernoised": "control (expected violated)",
            "hu2022.privacy.peeling_exact": "deterministic exact computation (no sampling, no alpha)",
        },
    )
)


#: The rate claims of Hu et al. 2022 (this module's three, ``audits/hu2022_rates.py``'s seven theorem and abstract
#: exponents, ``audits/hu2022_sparse_rates.py``'s four) share α = 0.05: Bonferroni, 0.05/14 each at every profile.
#: A rate verdict's false "violated" is ≤ its α (false "consistent" ≤ α/2), so over the family ≤ 0.05.
RATE_FAMILY = register_family(
    Family(
        "hu2022.rate",
        {
            "hu2022.rate.lemma4_n": 1,
            "hu2022.rate.private_n": 1,
            "hu2022.rate.private_eps": 1,
            "hu2022.rate.dpfw_neps": 1,
            "hu2022.rate.lasso_neps": 1,
            "hu2022.rate.dpfw_robust_neps": 1,
            "hu2022.rate.abstract_pods_dpfw": 1,
            "hu2022.rate.abstract_arxiv_dpfw": 1,
            "hu2022.rate.abstract_pods_lasso": 1,
            "hu2022.rate.abstract_arxiv_lasso": 1,
            "hu2022.rate.iht_truncated_sstar": 1,
            "hu2022.rate.iht_robust_sstar": 1,
            "hu2022.rate.iht_truncated_logd": 1,
            "hu2022.rate.iht_robust_logd": 1,
        },
        FAMILY_ALPHA,
    )
)


#: The paper's tail-bound claims: Lemma 4's explicit-constant bound (one pooled exact test).  A family of one
#: test (α = 0.05): registered so the result states its family like every other claim test, and so a second tail
#: check of the paper cannot be added without joining the split.
TAIL_FAMILY = register_family(Family("hu2022.tail", {"hu2022.tail.lemma4": 1}, FAMILY_ALPHA))


def _base_data(n=200, seed=7):
    return T3.sample(n, rng=np.random.default_rng(seed))


def privacy_smoothed(
    ctx,
    *,
    sensitivity="paper",
    evaluation="stable",
    noise_factor=1.0,
    name=None,
    magnitude=C.HUGE,
    scale=10.0,
    family=None,
):
    """Audit ``PrivateSmoothedSoftTruncationMean(ε=1, s=scale, β=1)`` on the ±``magnitude`` pairs.

    ``noise_factor`` < 1 builds a deliberately broken estimator (Laplace scale multiplied by it) for tests.
    ``family`` (the registered checks pass :data:`PRIVACY_FAMILY`): test at the check's Bonferroni share (or mark a
    canary as excluded); without it at :data:`_mean_common.ALPHA`."""
    est = PrivateSmoothedSoftTruncationMean(EPS, scale, BETA, sensitivity=sensitivity, evaluation=evaluation)
    if noise_factor != 1.0:
        orig = est.noise_scale
        est.noise_scale = lambda n, d=1: noise_factor * orig(n, d)  # the bug under test
    ratio = smoothed_bound(BETA) / C.SOFT_BOUND if sensitivity == "paper" else 1.0
    true = EPS * ratio / noise_factor if evaluation == "stable" else None
    n_s, n_sel, n_sea = SIZES[C.profile_of(ctx)]["priv"]
    nm = name or f"hu2022.privacy.smoothed_mean{'_tight' if sensitivity == 'tight' else ''}"
    prov = PROV_CANARY if evaluation == "closed_form" else PROV_PRIV
    note = (
        (
            "printed closed form evaluated literally; per-sample value at |x|/s = "
            f"{magnitude / scale:.3g} is "
            f"{float(soft_truncation_statistic(np.array([magnitude]), scale, BETA, evaluation=evaluation)) / scale:.4g}"
            " (proven bound ±0.943)"
        )
        if evaluation == "closed_form"
        else ""
    )
    return C.privacy_check(
        est,
        C.huge_pairs(_base_data(), magnitude),
        name=nm,
        provenance=prov,
        rng=ctx.rng,
        seed=ctx.seed,
        out_dir=ctx.out_dir,
        n_samples=n_s,
        n_select=n_sel,
        n_search=n_sea,
        true_epsilon=true,
        note=note,
        family=family,
        profile=C.profile_of(ctx),
    )


@register(
    "hu2022.privacy.smoothed_mean",
    description="1-d smoothed soft truncation + Laplace is ε-DP (ε=1, β=1); one record moved to ±1e12",
    provenance=PROV_PRIV,
    tags=("hu2022", "privacy"),
)
def check_privacy_smoothed(ctx):
    return privacy_smoothed(ctx, family=PRIVACY_FAMILY)


@register(
    "hu2022.privacy.smoothed_mean_tight",
    description="same with the tight sensitivity ×erf(√(β/2)): true ε equals the claim",
    provenance=PROV_PRIV,
    tags=("hu2022", "privacy"),
)
def check_privacy_smoothed_tight(ctx):
    return privacy_smoothed(ctx, sensitivity="tight", family=PRIVACY_FAMILY)


@register(
    "hu2022.privacy.closed_form",
    description="canary: printed closed form Ĉ evaluated in float64 (expected to break the sensitivity bound)",
    provenance=PROV_CANARY,
    tags=("hu2022", "privacy", "canary"),
)
def check_privacy_closed_form(ctx):
    res = privacy_smoothed(
        ctx, evaluation="closed_form", name="hu2022.privacy.closed_form", magnitude=1e7, family=PRIVACY_FAMILY
    )
    res.expected = "violated"  # a canary: the literal float64 evaluation breaks the sensitivity bound
    return res


# ---------------------------------------------------------------------------------------------------------
# Lemma 4: explicit high-probability bound and its n-rate
# ---------------------------------------------------------------------------------------------------------
LAWS_L4 = {"t3+1": T3, "pareto2.5": Pareto(2.5, 1.0), "lognormal(0,1)": LogNormal(0.0, 1.0)}
ZETA = 0.05


def lemma4_errors(law, n, reps, rng, *, beta=BETA, zeta=ZETA, chunk=200):
    """|x̂(s*, β) − E x| over ``reps`` fresh datasets of size n (s* from Lemma 4 with τ = E x²)."""
    tau = float(law.moment(2))
    s = hu_lemma4_scale(n, tau, beta, zeta)
    out = []
    chunk = max(1, min(chunk, int(1e7 // n)))  # bound memory: (n, chunk) draws plus temporaries
    for start in range(0, reps, chunk):
        k = min(chunk, reps - start)
        x = law.sample((n, k), rng=rng)  # columns = replications (the statistic is coordinate-wise)
        out.append(np.abs(soft_truncation_statistic(x, s, beta) - float(law.mean)))
    return np.concatenate(out), hu_lemma4_bound(n, tau, s, beta, zeta)


@register(
    "hu2022.tail.lemma4",
    description="Lemma 4 (explicit constants): P(|x̂ − Ex| > bound) ≤ ζ, exact test",
    provenance=PROV_L4,
    tags=("hu2022", "tail"),
)
def check_lemma4(ctx):
    sz = SIZES[C.profile_of(ctx)]
    cells, bounds = {}, {}
    for lname, law in LAWS_L4.items():
        for n in sz["tail_n"]:
            e, b = lemma4_errors(law, n, sz["reps_tail"], ctx.rng)
            cells[f"{lname}, n={n}"], bounds[f"{lname}, n={n}"] = e, b
    claim = TailBoundClaim(ZETA, "τ(1/β+1)/(2s) + (s/n)(β/2 + log(2/ζ)), s = s*, β = 1", PROV_L4)
    name, profile = "hu2022.tail.lemma4", C.profile_of(ctx)
    res = C.tail_check(
        cells,
        bounds,
        claim,
        name=name,
        seed=ctx.seed,
        out_dir=ctx.out_dir,
        note="(pooled over cells; per-cell ratios of the (1-ζ)-quantile to the bound in details)",
        alpha=TAIL_FAMILY.alpha_for(name, profile),
    )
    return TAIL_FAMILY.annotate(res, name, profile)


def _lemma4_rate_fn(n, n_reps, rng):
    return lemma4_errors(T3, int(n), n_reps, rng)[0]


def _lemma4_bound_at_optimum(n, tau=4.0):
    return hu_lemma4_bound(int(n), tau, hu_lemma4_scale(int(n), tau, BETA, ZETA), BETA, ZETA)


# Lemma 4's bound at s = s*(n) is 2·√(τ(1+1/β)(β/2 + log(2/ζ))/(2n)): exactly ∝ n^{-1/2}, no log factor in n.
TOL_LEMMA4_N = C.RateTolerance(
    "none (log(2/ζ) is fixed)", "Lemma 4 bound at s*(n), τ = 4: exactly ∝ n^{-1/2}", _lemma4_bound_at_optimum
)


@register(
    "hu2022.rate.lemma4_n",
    description="Lemma 4 rate: (1-ζ)-quantile of the non-private error ∝ n^{-1/2}",
    provenance=PROV_L4,
    tags=("hu2022", "rate"),
)
def check_lemma4_rate(ctx):
    sz = SIZES[C.profile_of(ctx)]
    claim = RateClaim("n", -0.5, 0.1, f"q{1 - ZETA:g}", "t3+1 data, s = s*(n)", PROV_L4)
    return C.rate_check(
        _lemma4_rate_fn,
        {"n": list(sz["ns"])},
        claim,
        name="hu2022.rate.lemma4_n",
        family=RATE_FAMILY,
        profile=C.profile_of(ctx),
        seed=ctx.seed,
        out_dir=ctx.out_dir,
        reps=sz["reps_rate"],
        why=TOL_LEMMA4_N,
    )


# ---------------------------------------------------------------------------------------------------------
# private estimator: rate in n and ε
# ---------------------------------------------------------------------------------------------------------
def private_scale(n, epsilon, tau, beta=BETA, zeta=ZETA):
    """s = s*(n, τ)·√ε: balances the bias τ(1+1/β)/(2s) with the Laplace noise ∝ s/(nε) (error ∝ √(τ/(nε)))."""
    return hu_lemma4_scale(n, tau, beta, zeta) * math.sqrt(epsilon)


def private_errors(n, epsilon, n_reps, rng, *, law=T3, noise_factor=1.0, scale=None, chunk=200):
    """|x̂ + Laplace − E x| for ``PrivateSmoothedSoftTruncationMean`` on fresh data (vectorised over replications:
    the coordinate-wise statistic of an (n, reps) array plus one Laplace draw per replication, the same law as
    ``reps`` independent releases)."""
    n = int(n)
    tau = float(law.moment(2))
    s = scale if scale is not None else private_scale(n, epsilon, tau)
    est = PrivateSmoothedSoftTruncationMean(epsilon, s, BETA)
    out = []
    chunk = max(1, min(chunk, int(1e7 // n)))  # bound memory: (n, chunk) draws plus temporaries
    for start in range(0, n_reps, chunk):
        k = min(chunk, n_reps - start)
        x = law.sample((n, k), rng=rng)
        stat = est.statistic(x)
        out.append(np.abs(stat + rng.laplace(0.0, noise_factor * est.noise_scale(n, 1), size=k) - float(law.mean)))
    return np.concatenate(out)


def private_bound(n, epsilon, tau=4.0):
    """The private estimator's median error as its proof bounds it: Lemma 4 at ζ = 1/2 and s = s*·√ε (truncation
    bias ∝ 1/s, deviation ∝ s/n) plus the median of the Laplace noise, ln 2·4√2 s/(3nε)."""
    s = private_scale(int(n), epsilon, tau)
    b = PrivateSmoothedSoftTruncationMean(epsilon, s, BETA).noise_scale(int(n), 1)
    return hu_lemma4_bound(int(n), tau, s, BETA, 0.5) + math.log(2.0) * b


# In n every term is ∝ n^{-1/2}; in ε the deviation term (s/n)·log(2/ζ) grows like √ε while the others fall like
# ε^{-1/2}, which flattens the fitted ε-slope on a grid that reaches large ε.
TOL_PRIVATE_N = C.RateTolerance(
    "none",
    "Lemma 4 (ζ = 1/2) + Laplace median at s = s*√ε, ε = 0.1: every term ∝ n^{-1/2}",
    lambda n: private_bound(n, 0.1),
)


def _tol_private_eps(n):
    return C.RateTolerance(
        "none",
        f"Lemma 4 (ζ = 1/2) + Laplace median at s = s*√ε, n = {n}: the deviation term grows like √ε",
        lambda e: private_bound(n, e),
    )


def _priv_n_fn(n, epsilon, n_reps, rng):
    return private_errors(n, epsilon, n_reps, rng)


def _priv_eps_fn(epsilon, n, n_reps, rng):
    return private_errors(n, epsilon, n_reps, rng)


@register(
    "hu2022.rate.private_n",
    description="proof of Thm 2, eq. (28) term: private 1-d estimator's median error ∝ n^{-1/2} (ε = 0.1)",
    provenance=PROV_RATE,
    tags=("hu2022", "rate"),
)
def check_private_rate_n(ctx):
    sz = SIZES[C.profile_of(ctx)]
    claim = RateClaim("n", -0.5, 0.1, "median", "t3+1, ε = 0.1, s ∝ √(nετ)", PROV_RATE)
    return C.rate_check(
        _priv_n_fn,
        {"n": list(sz["ns"])},
        claim,
        name="hu2022.rate.private_n",
        family=RATE_FAMILY,
        profile=C.profile_of(ctx),
        seed=ctx.seed,
        out_dir=ctx.out_dir,
        reps=sz["reps_rate"],
        fixed={"epsilon": 0.1},
        why=TOL_PRIVATE_N,
    )


@register(
    "hu2022.rate.private_eps",
    description="proof of Thm 2, eq. (28) term: private 1-d estimator's median error ∝ ε^{-1/2}",
    provenance=PROV_RATE,
    tags=("hu2022", "rate"),
)
def check_private_rate_eps(ctx):
    sz = SIZES[C.profile_of(ctx)]
    claim = RateClaim("epsilon", -0.5, 0.1, "median", f"t3+1, n = {sz['n_eps']}, s ∝ √(nετ)", PROV_RATE)
    return C.rate_check(
        _priv_eps_fn,
        {"epsilon": list(sz["epss"])},
        claim,
        name="hu2022.rate.private_eps",
        family=RATE_FAMILY,
        profile=C.profile_of(ctx),
        seed=ctx.seed,
        out_dir=ctx.out_dir,
        reps=sz["reps_rate"],
        fixed={"n": sz["n_eps"]},
        why=_tol_private_eps(sz["n_eps"]),
    )


# ---------------------------------------------------------------------------------------------------------
# comparison with baselines
# ---------------------------------------------------------------------------------------------------------
@register(
    "hu2022.compare_baselines",
    description="error at equal ε vs clipped-mean baselines (table + figure; info)",
    provenance=PROV_CMP,
    tags=("hu2022", "comparison"),
)
def check_compare(ctx):
    sz = SIZES[C.profile_of(ctx)]
    n, eps = sz["n_cmp"], EPS
    laws = {"t3+1": T3, "pareto2.1": Pareto(2.1, 1.0)}
    tau_max = max(float(law.moment(2)) for law in laws.values())
    s = private_scale(n, eps, tau_max)
    ests = {
        "hu_smoothed+laplace": PrivateSmoothedSoftTruncationMean(eps, s, BETA),
        "clip[-10,10]+laplace": ClippedMeanLaplace(eps, -10.0, 10.0),
        "clip[-3,5]+laplace": ClippedMeanLaplace(eps, -3.0, 5.0),
        "mean (non-private)": NonPrivateMean(),
        "median-of-means (non-private)": MedianOfMeans(20),
        "trimmed 10% (non-private)": TrimmedMean(0.1),
        "smoothed (non-private)": SmoothedSoftTruncationMean(hu_lemma4_scale(n, tau_max, BETA, ZETA), BETA),
    }
    return C.comparison_check(
        ests,
        laws,
        n=n,
        reps=sz["reps_cmp"],
        rng=ctx.rng,
        name="hu2022.compare_baselines",
        provenance=PROV_CMP,
        seed=ctx.seed,
        out_dir=ctx.out_dir,
        epsilon=eps,
        delta=0.0,
        focus="hu_smoothed+laplace",
    )
