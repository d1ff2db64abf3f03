"""Exact accounting of every noise calibration the shipped estimators and audits use: "the stated noise gives ε = x
at δ", deterministically, against the (ε, δ) each one declares (``htdp_verify.privacy.accounting``).

Each check builds the estimator (or diffprivlib mechanism) as shipped, reads the noise it actually draws and its
sensitivity, and compares the exact ε at the claimed δ with the claimed ε. Checks (``htdp-verify run accounting``):

* ``accounting.baselines.*`` — clipped mean + analytic Gaussian (Balle & Wang 2018: exact, ε = 1.000), classic
  Gaussian σ = Δ√(2 ln(1.25/δ))/ε (loose), Laplace b = Δ/ε (exact).
* ``accounting.hu2022.smoothed_mean`` — Laplace with the sensitivity 4√2 s/(3n) of Hu et al.'s Thm 1 proof.
* ``accounting.hu2022.advanced_composition`` — Hu et al.'s Lemma 2 step budget ε' = ε/(2√(2T ln(2/δ))) for T
  black-box steps (their DP Frank–Wolfe, Alg. 2; no estimator ships it yet): exact optimal composition vs (ε, 2δ).
* ``accounting.sparse.peeling`` — Peeling (Alg. 4) as s report-noisy-max steps (2λ/b-DP each) and s Laplace value
  releases (λ/b); the paper's argument is advanced composition (Lemma 10). Both calibrations (arXiv, PODS).
* ``accounting.zhao2024.simple_clipping`` (+ ``.zcdp``) — Alg. 2, ρ from the Bun–Steinke inversion: the Gaussian's
  exact ε, and what the tight zCDP conversion of the same ρ gives.
* ``accounting.zhao2024.iterative.shuffle`` — Alg. 3 with Thm 6's shuffling calibration at m = 10²…10⁵ groups: one
  record meets one group's Gaussian (parallel composition); **no amplification by shuffling is credited**, because
  its hypothesis (ε0-DP local randomisers for any change of a user's whole input) fails for group means (Zhao spec
  §3.3, flaw C2). ``.group_step``: the per-group ρ0 → (ε0, δ0) step of the calibration; ``.parallel``: the
  calibration without amplification.
* ``accounting.dpem.*`` — Wang et al.'s central and local means with ε̃ from the proof (ρ = ε̃²) and as extracted
  (ε̃ = ε, canary), and the classic calibration.
* ``accounting.diffprivlib.*`` — diffprivlib 0.6.6's ``Gaussian``, ``GaussianAnalytic``, ``GaussianDiscrete`` and
  the relaxed ``Laplace`` (δ > 0) at ε ∈ {0.1, 1} (σ / b read from the mechanism object), and ``BudgetAccountant``'s
  advanced composition of 1000 ε = 0.1 spends.
"""

from __future__ import annotations

import math

from estimators.baselines import ClippedMeanGaussian, ClippedMeanLaplace
from estimators.dpem import WangCentralMean, WangLocalMean
from estimators.hu2022 import PrivateSmoothedSoftTruncationMean
from estimators.sparse import Peeling
from estimators.zhao2024 import IterativeUpdatingMean, SimpleClippingMean, calibrate_group_rho
from htdp_verify.claims import PrivacyClaim, Provenance
from htdp_verify.privacy.accounting import Calibration, check_calibration
from htdp_verify.registry import register

TAGS = ("accounting", "privacy")
N = 1000  # records: the calibrations below scale with 1/n, the accounting does not depend on n

PROV_BASE_A = Provenance(
    "Balle & Wang 2018",
    "Thm 8 (analytic Gaussian mechanism)",
    "",
    "estimators.baselines.ClippedMeanGaussian(calibration='analytic')",
)
PROV_BASE_C = Provenance(
    "Dwork & Roth 2014",
    "Thm A.1 (classic Gaussian mechanism, ε < 1)",
    "",
    "estimators.baselines.ClippedMeanGaussian(calibration='classic')",
)
PROV_BASE_L = Provenance(
    "Dwork & Roth 2014", "Thm 3.6 (Laplace mechanism)", "", "estimators.baselines.ClippedMeanLaplace"
)
HU = "Hu, Ni, Xiao & Wang 2022 (heavy-tailed DP SCO)"
PROV_HU = Provenance(
    HU,
    "Thm 1 proof (sensitivity 4√2 s/(3n)) + Laplace mechanism, Def. 2",
    "(4)",
    "estimators.hu2022.PrivateSmoothedSoftTruncationMean",
)
PROV_HU_AC = Provenance(
    HU,
    "Lemma 2 (advanced composition as stated), used by Alg. 2 (DP Frank–Wolfe)",
    "",
    "ε' = ε/(2√(2T ln(2/δ))), δ' = δ/T per step; composition (ε, Tδ' + δ)",
)
PROV_PEEL = Provenance(
    HU, "Alg. 4 (Peeling), Lemma 10 (advanced composition)", "", "estimators.sparse.Peeling; b = 2λ√(3s ln(1/δ))/ε"
)
ZHAO = "Zhao, Wu, Liu, Wang, Fan, Li 2024 (arXiv 2408.09891)"
PROV_Z2 = Provenance(
    ZHAO,
    "Lemma 4 (Alg. 2 is ρ-CDP), Lemma 1(4) conversion",
    "(13)",
    "estimators.zhao2024.SimpleClippingMean.for_target; ρ = ε̃² (Bun–Steinke inversion)",
)
PROV_Z6 = Provenance(
    ZHAO,
    "Theorem 6 (shuffling amplification, Appendix E)",
    "(78)-(80)",
    "estimators.zhao2024.calibrate_group_rho; flaw C2 (Zhao spec §3.3)",
)
WANG = "Wang, Ding, Hu, Xie, Pan, Xu: DP-EM with statistical guarantees"
PROV_WC = Provenance(WANG, "Thm 4 proof (ρ = ε̃²) / mechanism (18)", "(18)", "estimators.dpem.WangCentralMean")
PROV_WL = Provenance(WANG, "Thm 3 (LDP report), mechanism (21)", "(21)", "estimators.dpem.WangLocalMean")
PROV_WP = Provenance(WANG, "Alg. 2 line 1 as extracted: ε̃ = ε", "(18)", "probably an extraction typo (spec §6.1)")
PROV_WK = Provenance(WANG, "Def. 7 (classic Gaussian mechanism)", "", "WangCentralMean(calibration='classic')")
DPL = "diffprivlib 0.6.6"


def _gauss(est_sigma, est_sens, label, **kw):
    return Calibration("gaussian", sensitivity=est_sens, sigma=est_sigma, label=label, **kw)


# ---------------------------------------------------------------------------------------------------------------
# baselines
# ---------------------------------------------------------------------------------------------------------------
@register(
    "accounting.baselines.gaussian_analytic",
    description="clipped mean + analytic Gaussian σ (1, 1e-5): exact ε",
    provenance=PROV_BASE_A,
    tags=TAGS,
)
def check_baseline_analytic(ctx):
    est = ClippedMeanGaussian(1.0, 1e-5, -1.0, 1.0)
    cal = _gauss(est.noise_std(N), est.sensitivity(N), "ClippedMeanGaussian analytic")
    return check_calibration(
        cal,
        est.privacy.claim(PROV_BASE_A),
        name="accounting.baselines.gaussian_analytic",
        note="tight by construction: exact ε equals the claim",
    )


@register(
    "accounting.baselines.gaussian_classic",
    description="clipped mean + classic Gaussian σ at ε ∈ {0.1, 0.5, 0.9}, δ=1e-5: exact ε (loose)",
    provenance=PROV_BASE_C,
    tags=TAGS,
)
def check_baseline_classic(ctx):
    out = []
    for eps in (0.1, 0.5, 0.9):
        est = ClippedMeanGaussian(eps, 1e-5, -1.0, 1.0, calibration="classic")
        cal = _gauss(est.noise_std(N), est.sensitivity(N), "ClippedMeanGaussian classic")
        out.append(
            check_calibration(
                cal, est.privacy.claim(PROV_BASE_C), name=f"accounting.baselines.gaussian_classic.eps{eps:g}"
            )
        )
    return out


@register(
    "accounting.baselines.laplace",
    description="clipped mean + Laplace b = Δ/ε: exactly ε at δ = 0",
    provenance=PROV_BASE_L,
    tags=TAGS,
)
def check_baseline_laplace(ctx):
    est = ClippedMeanLaplace(1.0, -1.0, 1.0)
    cal = Calibration(
        "laplace", sensitivity=est.sensitivity(N), scale=est.sensitivity(N) / est.epsilon, label="ClippedMeanLaplace"
    )
    return check_calibration(cal, est.privacy.claim(PROV_BASE_L), name="accounting.baselines.laplace")


# ---------------------------------------------------------------------------------------------------------------
# Hu et al. 2022
# ---------------------------------------------------------------------------------------------------------------
@register(
    "accounting.hu2022.smoothed_mean",
    description="smoothed soft truncation + Laplace (ε = 1): exact ε",
    provenance=PROV_HU,
    tags=TAGS,
)
def check_hu_smoothed(ctx):
    out = []
    for kind in ("paper", "tight"):
        est = PrivateSmoothedSoftTruncationMean(1.0, 2.0, 1.0, sensitivity=kind)
        cal = Calibration(
            "laplace",
            sensitivity=est.sensitivity(N),
            scale=est.noise_scale(N, 1),
            label=f"PrivateSmoothedSoftTruncationMean sensitivity={kind}",
        )
        note = (
            "noise and sensitivity both use the paper's bound 4√2 s/(3n): exact"
            if kind == "paper"
            else "noise for the tighter bound 4√2 s·erf(√(β/2))/(3n); accounted at that bound"
        )
        out.append(
            check_calibration(
                cal, est.privacy.claim(PROV_HU), name=f"accounting.hu2022.smoothed_mean.{kind}", note=note
            )
        )
    return out


@register(
    "accounting.hu2022.advanced_composition",
    description="Lemma 2 step budget for T ∈ {10, 100, 1000} black-box steps vs the claim (1, 2e-5)",
    provenance=PROV_HU_AC,
    tags=TAGS,
)
def check_hu_advanced_composition(ctx):
    eps, delta, out = 1.0, 1e-5, []
    for T in (10, 100, 1000):
        e_step = eps / (2.0 * math.sqrt(2.0 * T * math.log(2.0 / delta)))
        cal = Calibration("pure_dp", step_epsilon=e_step, steps=T, label=f"Hu Lemma 2, T={T}")
        claim = PrivacyClaim(eps, 2 * delta, "replace", PROV_HU_AC)  # (ε, Tδ' + δ) with δ' = δ/T
        out.append(
            check_calibration(
                cal,
                claim,
                name=f"accounting.hu2022.advanced_composition.T{T}",
                note=f"ε' = {e_step:.4g} per exponential-mechanism step (pure, δ' unused); "
                "exact = optimal composition of any such steps",
            )
        )
    return out


@register(
    "accounting.sparse.peeling",
    description="Peeling (s ∈ {4, 16}, ε = 1, δ = 1e-5): s noisy-max + s "
    "Laplace steps composed exactly, arXiv and PODS calibrations",
    provenance=PROV_PEEL,
    tags=TAGS,
)
def check_peeling(ctx):
    out = []
    for s in (4, 16):
        for calib in ("arxiv", "pods"):
            est = Peeling(s, 1.0, 1e-5, 1.0, calibration=calib)
            b, lam = est.scale, est.sensitivity
            cals = [
                Calibration("pure_dp", step_epsilon=2.0 * lam / b, steps=s, label="report-noisy-max selections"),
                Calibration("laplace", sensitivity=lam, scale=b, steps=s, label="Laplace value releases"),
            ]
            out.append(
                check_calibration(
                    cals,
                    est.privacy.claim(PROV_PEEL),
                    name=f"accounting.sparse.peeling.s{s}.{calib}",
                    note=f"b = {b:.4g}, λ = {lam:g}; selections as black-box 2λ/b-DP steps (an upper bound on the "
                    "true ε: htdp_verify.privacy.exact computes peeling's exact ε on given pairs)",
                )
            )
    return out


# ---------------------------------------------------------------------------------------------------------------
# Zhao et al. 2024
# ---------------------------------------------------------------------------------------------------------------
@register(
    "accounting.zhao2024.simple_clipping",
    description="Alg. 2 with ρ from (1, 1e-5): the Gaussian's exact ε and the tight zCDP conversion of ρ",
    provenance=PROV_Z2,
    tags=TAGS,
)
def check_zhao_simple(ctx):
    est = SimpleClippingMean.for_target(1.0, 1e-5, radius=2.0)
    claim = est.privacy.claim(PROV_Z2)
    g = check_calibration(
        _gauss(est.noise_std(N), est.sensitivity(N), "SimpleClippingMean"),
        claim,
        name="accounting.zhao2024.simple_clipping",
        note=f"ρ = {est.rho:.4g}; the release is exactly √(2ρ)-GDP",
    )
    z = check_calibration(
        Calibration("zcdp", rho=est.rho, label="ρ-zCDP (any mechanism)"),
        claim,
        name="accounting.zhao2024.simple_clipping.zcdp",
        note="the claim states ε by Bun–Steinke; the tight conversion of the same ρ is smaller",
    )
    return [g, z]


def _zhao_group_calibration(m: int, b: int = 20, calibration: str = "shuffle"):
    est = IterativeUpdatingMean(1.0, m, 1.0, 1e-5, calibration=calibration)
    n = m * b
    sens = 2.0 * est.radius / b
    sig = float(est.noise_std(n)[0])
    return est, Calibration(
        "gaussian",
        sensitivity=sens,
        sigma=sig,
        steps=m,
        composition="parallel",
        label=f"IterativeUpdatingMean groups m={m}, b={b}",
    )


@register(
    "accounting.zhao2024.iterative.shuffle",
    description="Alg. 3, Thm 6 shuffling calibration at m = 1e2…1e5 "
    "groups: one group's Gaussian, no amplification credited, vs the claim (1, 1e-5)",
    provenance=PROV_Z6,
    tags=TAGS,
)
def check_zhao_shuffle(ctx):
    out = []
    for m in (100, 1000, 10_000, 100_000):
        est, cal = _zhao_group_calibration(m)
        out.append(
            check_calibration(
                cal,
                PrivacyClaim(1.0, 1e-5, "replace", PROV_Z6),
                name=f"accounting.zhao2024.iterative.shuffle.m{m}",
                note=f"ρ0 = {est.rho0:.4g}: the claim needs amplification by shuffling, whose hypothesis "
                f"fails for group "
                "means (spec §3.3, flaw C2); the index-partition audit realises this ε on a concrete pair",
            )
        )
    return out


@register(
    "accounting.zhao2024.iterative.group_step",
    description="the per-group step ρ0 → (ε0, δ0) of Thm 6's calibration (m = 1e4)",
    provenance=PROV_Z6,
    tags=TAGS,
)
def check_zhao_group_step(ctx):
    m = 10_000
    cal_d = calibrate_group_rho(1.0, 1e-5, m)
    est, cal = _zhao_group_calibration(m)
    claim = PrivacyClaim(cal_d["eps0"], cal_d["delta0"], "replace", PROV_Z6)
    return check_calibration(
        cal,
        claim,
        name="accounting.zhao2024.iterative.group_step",
        note="the inner step is sound (Bun–Steinke is loose); the gap is in the amplification",
    )


@register(
    "accounting.zhao2024.iterative.parallel",
    description="Alg. 3 with calibration='parallel' (no amplification; ρ from (1, 1e-5))",
    provenance=PROV_Z2,
    tags=TAGS,
)
def check_zhao_parallel(ctx):
    est, cal = _zhao_group_calibration(10_000, calibration="parallel")
    return check_calibration(cal, est.privacy.claim(PROV_Z2), name="accounting.zhao2024.iterative.parallel")


# ---------------------------------------------------------------------------------------------------------------
# Wang et al. (DP-EM)
# ---------------------------------------------------------------------------------------------------------------
@register(
    "accounting.dpem.central",
    description="central heavy-tailed mean: ε̃ from the proof, ε̃ = ε as extracted (canary), classic σ",
    provenance=PROV_WC,
    tags=TAGS,
)
def check_wang_central(ctx):
    out = []
    for variant, calib, eps, prov, expected in (
        ("proof", "zcdp", 1.0, PROV_WC, None),
        ("as_printed", "zcdp", 1.0, PROV_WP, "violated"),
        ("proof", "classic", 0.5, PROV_WK, None),
    ):
        est = WangCentralMean(eps, 1e-5, 4.0, 0.05, calibration=calib, variant=variant)
        cal = _gauss(est.noise_std(N, 1), est.sensitivity(N), f"WangCentralMean {calib}/{variant}")
        claim = PrivacyClaim(est.privacy.epsilon, est.privacy.delta, "replace", prov)
        out.append(
            check_calibration(
                cal,
                claim,
                name=f"accounting.dpem.central.{calib}.{variant}",
                expected=expected,
                note=f"ε̃ = {est.eps_tilde:.4g}",
            )
        )
    return out


@register(
    "accounting.dpem.local",
    description="local report s·ψ(x/s) + N(0, σ_L²): ε̃ from the proof and as extracted (canary)",
    provenance=PROV_WL,
    tags=TAGS,
)
def check_wang_local(ctx):
    out = []
    for variant, prov, expected in (("proof", PROV_WL, None), ("as_printed", PROV_WP, "violated")):
        est = WangLocalMean(1.0, 1e-5, 4.0, 0.05, variant=variant)
        cal = _gauss(est.noise_std(N, 1), est.sensitivity(N), f"WangLocalMean report {variant}")
        claim = PrivacyClaim(est.privacy.epsilon, est.privacy.delta, "replace", prov)
        out.append(
            check_calibration(
                cal,
                claim,
                name=f"accounting.dpem.local.{variant}",
                expected=expected,
                note="one user's report (local model)",
            )
        )
    return out


# ---------------------------------------------------------------------------------------------------------------
# diffprivlib
# ---------------------------------------------------------------------------------------------------------------
def _dpl_prov(name):
    return Provenance(
        DPL, f"mechanisms.{name}", "", "σ / b read from the mechanism object (the value its sampler uses)"
    )


@register(
    "accounting.diffprivlib.mechanisms",
    description="diffprivlib Gaussian, GaussianAnalytic, GaussianDiscrete, "
    "Laplace(δ>0) at ε ∈ {0.1, 1}: exact ε of the noise they draw",
    provenance=Provenance(DPL),
    tags=TAGS,
)
def check_dpl_mechanisms(ctx):
    from diffprivlib import mechanisms as M

    out, delta = [], 1e-5
    for eps in (0.1, 1.0):
        for name in ("Gaussian", "GaussianAnalytic", "GaussianDiscrete", "Laplace"):
            mech = getattr(M, name)(epsilon=eps, delta=delta, sensitivity=1)
            if name == "Laplace":  # diffprivlib's relaxed scale Δ/(ε − ln(1 − δ)) (Holohan et al. 2015)
                cal = Calibration("laplace", sensitivity=1.0, scale=1.0 / (eps - math.log1p(-delta)), label=name)
            else:
                kind = "discrete_gaussian" if name == "GaussianDiscrete" else "gaussian"
                cal = Calibration(kind, sensitivity=1, sigma=float(mech._scale), label=name)
            out.append(
                check_calibration(
                    cal,
                    PrivacyClaim(eps, delta, "replace", _dpl_prov(name)),
                    name=f"accounting.diffprivlib.{name}.eps{eps:g}",
                )
            )
    return out


@register(
    "accounting.diffprivlib.budget_accountant",
    description="diffprivlib BudgetAccountant(slack=1e-6): 1000 "
    "Laplace spends of ε = 0.1, advanced composition total vs exact",
    provenance=Provenance(DPL),
    tags=TAGS,
)
def check_dpl_accountant(ctx):
    from diffprivlib.accountant import BudgetAccountant

    k, e0, slack = 1000, 0.1, 1e-6
    total = BudgetAccountant(slack=slack).total(spent_budget=[(e0, 0.0)] * k)
    prov = Provenance(
        DPL,
        "accountant.BudgetAccountant.total (slack > 0: min of basic, DRV and KOV bounds)",
        "",
        f"{k} spends of (ε={e0}, 0)",
    )
    claim = PrivacyClaim(float(total[0]), float(total[1]), "replace", prov)
    lap = check_calibration(
        Calibration("laplace", scale=1.0 / e0, steps=k, label="1000 Laplace(Δ/0.1)"),
        claim,
        name="accounting.diffprivlib.budget_accountant.laplace",
    )
    any_ = check_calibration(
        Calibration("pure_dp", step_epsilon=e0, steps=k, label="1000 black-box 0.1-DP"),
        claim,
        name="accounting.diffprivlib.budget_accountant.black_box",
        note="any 0.1-DP steps (Kairouz–Oh–Viswanath optimal composition)",
    )
    return [lap, any_]
