"""Hu, Ni, Xiao & Wang 2022 (PODS '22; arXiv 2107.11136): the excess-risk rates of Algs. 1 and 2 in nε, and the
abstracts' exponents tested against the same simulations.

Spec: ``../shared/specs/hu2022_heavy_tailed_dp_sco.md`` §5.2 (statements), §5.3 (how the rates arise), §5.4 (the
exponent discrepancy between the PODS and arXiv abstracts), §8 R1/R4/R6 (instances), §9 (ambiguities).

Checks (all registered; ``htdp-verify run hu2022.rate``), ε = 1 throughout so the swept ``n`` *is* nε:

* ``hu2022.rate.dpfw_neps`` — Thm 2: Alg. 1 (``alg1_theory``) excess risk ∝ (nε)^{-1/3}, on R1's dense
  instance: loss ½‖w − z‖², z = μ + ξ, μ = 1/d (a face of the unit ℓ1 ball), ξ i.i.d. t₃ rescaled to unit
  variance; excess risk ½‖w − μ‖² exactly.
* ``hu2022.rate.lasso_neps`` — Thm 5: Alg. 2 (``alg2_theory``) excess risk ∝ (nε)^{-2/5} on R4's dense LASSO:
  x i.i.d. t₅ with E x_j² = 1 (Σ = I), w* = 1/d, noise t₅; excess risk of E(⟨x, w⟩ − y)² is ‖w − w*‖² exactly.
* ``hu2022.rate.dpfw_robust_neps`` — Thm 3: Alg. 1 with the biweight loss (``alg1_robust_regression_theory``)
  ∝ (nε)^{-1/4}, same regression data as R4. The spec does not name the quantity Thm 3 bounds; we measure
  ‖w − w*‖², which for Σ = I equals 2(L(w) − L(w*))/h'(0) up to 1 + o(1) near w* (a loss-scale quantity, like
  Thms 2 and 5); ‖w − w*‖ itself would have half the exponent.
* ``hu2022.rate.abstract_pods_dpfw`` (3/5), ``hu2022.rate.abstract_arxiv_dpfw`` (2/3) — the abstracts' exponents
  for the polytope, ε-DP algorithm, tested on the *same sweep* as ``dpfw_neps``;
  ``hu2022.rate.abstract_pods_lasso`` (5/3), ``hu2022.rate.abstract_arxiv_lasso`` (5/8) on the sweep of
  ``lasso_neps``. Each is an ordinary claim of the paper (no ``expected``): a violation is a finding about the
  abstract. §5.4 argues all four are impossible (faster than n^{-1/2}, and FW after T steps has ≤ T + 1 non-zero
  coordinates).

Replications: **fresh data per replication** (the theorems bound the excess risk over the data *and* the
mechanism: w.p. ≥ 1 − ζ jointly), one release per dataset through ``__call__``. The cost of one release is
O(nd) like the data, so vectorising over releases on fixed data (``sample``) would save little and would measure
the conditional law given one dataset instead. One sweep per algorithm and profile is shared by the theorem and
abstract claims (cached in-process, seeded by a fixed constant per algorithm so that every claim on it sees the
same numbers whatever the run seed; a different ``seed`` gives an independent sweep in tests).

Summary statistic: the **mean** excess risk. The theorems bound it w.p. 1 − ζ; the excess risk is bounded on the
ball (≤ 2 for Alg. 1, ≤ 4 for Alg. 2), so taking ζ = 1/(nε) moves the mean bound only by a log factor (already in
the log budget). The mean avoids the ties of a median of FW iterates (finitely many vertex combinations at small T).

Measured (``htdp-verify run hu2022.rate --profile quick``, run seed 20261121; mean excess risk, 95 % bootstrap CI;
60 reps, ≈ 10 s per sweep on a lightly loaded machine, 45 s under load with 100 reps): Alg. 1 −0.355 [−0.386,
−0.325] (T = 3..11), consistent with −1/3 and violating 3/5 and 2/3; Thm 3 −0.261 [−0.278, −0.245] (T = 10..56),
consistent; Alg. 2 −0.288 [−0.308, −0.268] (T = 2..9), inconclusive with a crossover warning (at 100 reps: −0.281
[−0.294, −0.267], violated; local slopes −0.27 at small n, −0.32/−0.37 at the largest n); 5/8 and 5/3 violated.
Full profile (n = 1000..97656, d = 100, 200 reps; 17 min in all): Alg. 1 −0.388 [−0.399, −0.376] (T = 3..15),
consistent; Thm 3 −0.260 [−0.265, −0.256] (T = 10..92), consistent; Alg. 2 −0.297 [−0.301, −0.293] (T = 2..14),
inconclusive on the band edge, local slopes −0.24, −0.20, −0.32, −0.34, −0.40 (steepening towards −2/5); all four
abstract exponents violated. Reading: Alg. 2's grid is pre-asymptotic (T ≤ 14; the errors 0.38..0.095 are 1.1 to 1.4
times 1/(T + 1), the scale of Frank–Wolfe's sparsity on the dense instance, not the terms of eq. (42)); the spec's
own pilot at d = 200 found −0.33. Larger n (T ≫ 10) would be needed for a verdict on −2/5 itself.

Native BLAS threads are limited to one during the sweeps (the machine is shared; a 16000 × 40 Gram matrix took
0.5 s with oversubscribed threads and 10 ms with one).
"""

from __future__ import annotations

import functools
import math
import time
import warnings

import numpy as np

from estimators.hu2022 import bounded_gradient_mean, bounded_gradient_regression
from estimators.hu2022.presets import alg1_robust_regression_theory, alg1_theory, alg2_theory
from htdp_verify.claims import Provenance, RateClaim
from htdp_verify.distributions import StudentT
from htdp_verify.montecarlo import sweep
from htdp_verify.rates import CrossoverWarning, check_rate
from htdp_verify.registry import register
from htdp_verify.schedule import shares_cache

from . import _mean_common as C
from .hu2022 import RATE_FAMILY

PAPER = "Hu, Ni, Xiao, Wang 2022 (PODS; arXiv 2107.11136)"
PROV_THM2 = Provenance(
    PAPER,
    "Thm 2 (Alg. 1, ε-DP, convex smooth loss)",
    "(28)",
    "excess risk O((ατ log(n|V|d/ζ))^{1/3}/(nε)^{1/3}); R1 dense instance (spec §8)",
)
PROV_THM5 = Provenance(
    PAPER,
    "Thm 5 (Alg. 2, (ε, δ)-DP LASSO)",
    "(42)",
    "excess risk O(λ^{1/5}(log(1/δ) log(dT/ζ))^{2/5}/(nε)^{2/5}); R4 dense LASSO (spec §8)",
)
PROV_THM3 = Provenance(
    PAPER,
    "Thm 3 (Alg. 1, constant step, biweight robust regression)",
    "",
    "O(log^{1/4}(dn/ζ)/(nε)^{1/4}); measured as ‖w − w*‖² (spec §5.2, R6)",
)
PROV_ABS = {
    "pods_dpfw": Provenance(PAPER, "PODS abstract: polytope, ε-DP", "", "(nε)^{3/5} as printed (spec §5.4)"),
    "arxiv_dpfw": Provenance(PAPER, "arXiv abstract: polytope, ε-DP", "", "(nε)^{2/3} as printed (spec §5.4)"),
    "pods_lasso": Provenance(PAPER, "PODS abstract: LASSO, (ε, δ)-DP", "", "(nε)^{5/3} as printed (spec §5.4)"),
    "arxiv_lasso": Provenance(PAPER, "arXiv abstract: LASSO, (ε, δ)-DP", "", "(nε)^{5/8} as printed (spec §5.4)"),
}

EPS = 1.0
DELTA = 1e-6  # fixed, below 1/n on every grid: log(1/δ) is then a constant, not a log n factor (δ = n^{-1.1} would be)
ZETA = 0.1
TAU_SCO = 2.0  # Assumption 1 on R1: E(w_j − z_j)² = (w_j − μ_j)² + 1 ≤ 1 + (1 + 1/d)² ≈ 2 on the ball (spec pilot)
SWEEP_SEED = {"dpfw": 20220612, "lasso": 20220613, "robust": 20220614}

SIZES = {
    # "tiny": tests only (seconds); "quick": ≤ ~30 s per sweep; "full": ≥ 6 values of n over a factor ≥ 30, ≥ 200 reps
    "tiny": dict(ns=(500, 2000, 8000), reps=30, d=20),
    "quick": dict(ns=(1000, 2000, 4000, 8000, 16000, 32000), reps=60, d=40),
    "full": dict(ns=(1000, 2500, 6250, 15625, 39062, 97656), reps=200, d=100),
}


# ---------------------------------------------------------------------------------------------------------------
# instances (laws computed once per d; fresh draws per replication)
# ---------------------------------------------------------------------------------------------------------------
@functools.lru_cache(maxsize=8)
def _mean_law(d: int):
    """R1's coordinate law (t₃ centred, E ξ² = 1) from ``bounded_gradient_mean`` (computed once)."""
    return bounded_gradient_mean(2, d, tau=1.0, law=StudentT(3.0), rng=np.random.default_rng(0)).coordinate_law


@functools.lru_cache(maxsize=8)
def _regression_laws(d: int):
    """R4's design (t₅, E x² = 1) and noise (t₅, E e² = 1) laws from ``bounded_gradient_regression``."""
    r = bounded_gradient_regression(
        2,
        d,
        k=2.0,
        tau=1.0,
        design=StudentT(5.0),
        noise=StudentT(5.0),
        beta=np.full(d, 1.0 / d),
        rng=np.random.default_rng(0),
    )
    return r.design_law, r.noise_law


def _mean_data(n, d, rng):
    law = _mean_law(d)
    mu = np.full(d, 1.0 / d)
    return mu + (law.sample((n, d), rng=rng) - law.mean), mu


def _regression_data(n, d, rng):
    design, noise = _regression_laws(d)
    w = np.full(d, 1.0 / d)
    X = design.sample((n, d), rng=rng) - design.mean
    y = X @ w + (noise.sample(n, rng=rng) - noise.mean)
    return np.column_stack([X, y]), w


def _estimator(kind, n, d, inflate):
    """The theory preset at (n, d, ε = 1); ``inflate`` > 0 builds a deliberately broken estimator for the tests:
    the exponential mechanism's noise multiplied by (n/1000)^inflate (inverse temperature divided by it)."""
    kw = {} if not inflate else {"noise_divisor": (n / 1000.0) ** (-inflate)}
    if kind == "dpfw":
        return alg1_theory(n, d, EPS, tau=TAU_SCO, smoothness=1.0, zeta=ZETA, loss="half_squared_distance", **kw)
    if kind == "lasso":
        return alg2_theory(n, d, EPS, DELTA, lambda_max=1.0, zeta=ZETA, **kw)
    if kind == "robust":
        return alg1_robust_regression_theory(n, d, EPS, zeta=ZETA, **kw)
    raise ValueError(f"kind must be 'dpfw', 'lasso' or 'robust', got {kind!r}")


def excess_risks(n, n_reps, rng, *, kind: str, d: int, inflate: float = 0.0):
    """``n_reps`` excess risks of one algorithm at ε = 1, each on a fresh dataset of size n (see module docstring):
    ½‖w − μ‖² (``"dpfw"``), ‖w − w*‖² (``"lasso"``, ``"robust"``)."""
    from threadpoolctl import threadpool_limits

    n = int(n)
    est = _estimator(kind, n, d, inflate)
    out = np.empty(n_reps)
    with threadpool_limits(1):
        for r in range(n_reps):
            if kind == "dpfw":
                data, truth = _mean_data(n, d, rng)
                out[r] = 0.5 * float(np.sum((est(data, rng=rng) - truth) ** 2))
            else:
                data, truth = _regression_data(n, d, rng)
                out[r] = float(np.sum((est(data, rng=rng) - truth) ** 2))
    return out


@functools.lru_cache(maxsize=16)
def shared_sweep(kind: str, profile: str, seed: int, inflate: float = 0.0):
    """One sweep over n per algorithm and profile, shared by the theorem claim and the abstract claims."""
    sz = SIZES[profile]
    return sweep(
        excess_risks,
        {"n": list(sz["ns"])},
        sz["reps"],
        seed=seed,
        vectorised=True,
        progress=False,
        fixed={"kind": kind, "d": sz["d"], "inflate": inflate},
    )


# ---------------------------------------------------------------------------------------------------------------
# tolerances: the theorems' own bounds as functions of n (fit bias) and their log factors
# ---------------------------------------------------------------------------------------------------------------
def _thm2_model(d):
    """eq. (28) at the preset's integer T and s: α‖W‖₁/T + ‖W‖₁ √(τ T log(|V|dT/ζ)/(nε)) (unit constants)."""

    def f(n):
        T = _estimator("dpfw", int(n), d, 0.0).T
        return 2.0 / T + 2.0 * math.sqrt(TAU_SCO * T * math.log(2 * d * d * T / ZETA) / (n * EPS))

    return f


def _thm5_model(d):
    """eq. (42) at the preset's T and K: λ/T + K²√(T log(1/δ) log(dT/ζ))/(nε) + 1/K² (√(M log d/n) dropped as in
    the statement)."""

    def f(n):
        est = _estimator("lasso", int(n), d, 0.0)
        T, K = est.T, est.K
        return 1.0 / T + K**2 * math.sqrt(T * math.log(1 / DELTA) * math.log(d * T / ZETA)) / (n * EPS) + 1.0 / K**2

    return f


def _thm3_model(d):
    """Thm 3's statement: log^{1/4}(dn/ζ)/(nε)^{1/4}."""
    return lambda n: math.log(d * n / ZETA) ** 0.25 / (n * EPS) ** 0.25


def _why(kind, d):
    if kind == "dpfw":
        return C.RateTolerance(
            "(log(n|V|d/ζ))^{1/3}: power 1/3 of a log n term",
            "eq. (28) with the preset's integer T(n) and s(n), unit constants",
            _thm2_model(d),
            log_power=1 / 3,
        )
    if kind == "lasso":
        return C.RateTolerance(
            "(log(1/δ) log(dT/ζ))^{2/5} with δ fixed: log T ∝ log n, power 2/5 of a term "
            "log(d/ζ) + (2/5) log n, counted as 2/5",
            "eq. (42) with the preset's integer T(n) and K(n), unit constants",
            _thm5_model(d),
            log_power=0.4,
        )
    return C.RateTolerance(
        "log^{1/4}(dn/ζ): power 1/4 of a log n term", "Thm 3's statement, unit constant", _thm3_model(d), log_power=0.25
    )


# ---------------------------------------------------------------------------------------------------------------
# checks
# ---------------------------------------------------------------------------------------------------------------
def rate_claim_check(
    kind: str,
    claim: RateClaim,
    *,
    name: str,
    profile: str,
    seed: int | None = None,
    out_dir,
    inflate: float = 0.0,
    abstract: bool = False,
):
    """Test ``claim`` on the shared sweep of ``kind`` (``seed`` None = the fixed shared seed of that algorithm);
    ``abstract``: the claim is an abstract's exponent (its tolerance is explained without the theorem's bound)."""
    t0 = time.perf_counter()
    sweep_seed = SWEEP_SEED[kind] if seed is None else int(seed)
    family = name in RATE_FAMILY.members  # a registered claim: its Bonferroni share of the paper's rate family
    alpha = RATE_FAMILY.alpha_for(name, profile) if family else C.ALPHA
    mc = shared_sweep(kind, profile, sweep_seed, float(inflate))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", CrossoverWarning)
        res = check_rate(mc, claim, alpha, name=name, seed=sweep_seed)
    if caught:
        res.details["warnings"] = [str(w.message) for w in caught]
    sz = SIZES[profile]
    theorem = _why(kind, sz["d"])
    if abstract:  # the abstract states a pure power without log factors: no fit bias of its own
        why = C.RateTolerance(
            "none stated by the abstract",
            "the abstract's pure power (the theorem's bound would fit a slope of {:+.3f} on this grid)".format(
                theorem.explain(claim, sz["ns"])["model_slope"]
            ),
        )
    else:
        why = theorem
    tol = why.explain(claim, sz["ns"])
    res.details["tolerance"] = tol
    res.details["design"] = {
        "replications": "fresh data per replication, one release each",
        "reps": sz["reps"],
        "ns": list(sz["ns"]),
        "d": sz["d"],
        "epsilon": EPS,
        "sweep_seed": sweep_seed,
        "inflate": inflate,
        "T": [int(_estimator(kind, int(n), sz["d"], 0.0).T) for n in sz["ns"]],
    }
    res.summary += " " + tol["text"]
    if family:
        RATE_FAMILY.annotate(res, name, profile)
    res.provenance = claim.provenance
    res.seconds = time.perf_counter() - t0  # the sweep's time is counted by the first claim that runs it
    res.figures = _figure(res, claim, name, out_dir)
    return res


def _figure(res, claim, name, out_dir):
    fit = res.details["fit"]
    x, y = np.asarray(fit["x"], dtype=float), np.asarray(fit["summaries"], dtype=float)
    try:
        plt = C._plt()
        fig, ax = plt.subplots(figsize=(6, 3.8))
        ax.loglog(x, y, "o", label=f"{claim.summary} excess risk")
        ax.loglog(
            x,
            np.exp(fit["intercept"]) * x ** fit["exponent"],
            "-",
            label=f"fit {fit['exponent']:.3f} [{fit['interval'][0]:.3f}, {fit['interval'][1]:.3f}]",
        )
        gm = math.exp(np.mean(np.log(y)) - claim.exponent * np.mean(np.log(x)))
        ax.loglog(x, gm * x**claim.exponent, "--", label=f"claimed {claim.exponent:g} ± {claim.tolerance:g}")
        ax.set_xlabel("nε (ε = 1)")
        ax.set_ylabel("excess risk")
        ax.set_title(f"{name}: {res.verdict}", fontsize=9)
        ax.legend(fontsize=7)
        return [C._save(fig, out_dir, name)]
    except Exception as exc:  # a figure must not break a verdict
        res.details["figure_error"] = repr(exc)
        return []


# (kind, exponent, tolerance, provenance, regime) of every claim; the tolerance of an abstract claim is that of the
# theorem on the same sweep (same grid, same log factors): the abstracts state no log factors of their own.
TOL = {"dpfw": 0.1, "lasso": 0.1, "robust": 0.1}
CLAIMS = {
    "hu2022.rate.dpfw_neps": ("dpfw", -1 / 3, PROV_THM2, "Thm 2"),
    "hu2022.rate.lasso_neps": ("lasso", -2 / 5, PROV_THM5, "Thm 5"),
    "hu2022.rate.dpfw_robust_neps": ("robust", -1 / 4, PROV_THM3, "Thm 3"),
    "hu2022.rate.abstract_pods_dpfw": ("dpfw", -3 / 5, PROV_ABS["pods_dpfw"], "PODS abstract"),
    "hu2022.rate.abstract_arxiv_dpfw": ("dpfw", -2 / 3, PROV_ABS["arxiv_dpfw"], "arXiv abstract"),
    "hu2022.rate.abstract_pods_lasso": ("lasso", -5 / 3, PROV_ABS["pods_lasso"], "PODS abstract"),
    "hu2022.rate.abstract_arxiv_lasso": ("lasso", -5 / 8, PROV_ABS["arxiv_lasso"], "arXiv abstract"),
}
INSTANCE = {
    "dpfw": "R1 dense mean instance, t₃ noise, ε = 1",
    "lasso": f"R4 dense LASSO, t₅ design and noise, ε = 1, δ = {DELTA:g}",
    "robust": "R4 regression data, biweight c = 4.685, ε = 1",
}


def make_claim(name: str) -> RateClaim:
    kind, r0, prov, src = CLAIMS[name]
    return RateClaim("n", r0, TOL[kind], "mean", f"{src}: {INSTANCE[kind]} (nε = n)", prov)


def run_claim(name: str, ctx, *, seed: int | None = None, inflate: float = 0.0):
    """Run the registered claim ``name`` with the context's profile (``seed``/``inflate``: see the tests)."""
    kind, _, _, src = CLAIMS[name]
    return rate_claim_check(
        kind,
        make_claim(name),
        name=name,
        profile=C.profile_of(ctx),
        seed=seed,
        out_dir=ctx.out_dir,
        inflate=inflate,
        abstract=src.endswith("abstract"),
    )


def _register(name):
    kind, r0, prov, src = CLAIMS[name]
    desc = f"{src}: excess risk of {'Alg. 2' if kind == 'lasso' else 'Alg. 1'} ∝ (nε)^{r0:.3g}"

    @register(name, description=desc, provenance=prov, tags=("hu2022", "rate"))
    @shares_cache(f"hu2022_rates.shared_sweep[{kind}]")  # a parallel run puts one sweep's claims in one worker
    def _check(ctx):
        return run_claim(name, ctx)

    return _check


for _name in CLAIMS:
    _register(_name)
