"""Statistical tests of the qualitative observations of Hu, Ni, Xiao & Wang 2022 (arXiv 2107.11136 §6; spec §7.3).

Each observation is a claim about replicated errors and gets a designed test with a fixed α (``ALPHA`` = 0.05 per
direction) and a three-way verdict (``consistent`` / ``violated`` / ``inconclusive``). Used by
:mod:`audits.hu2022_experiments`; the functions take plain arrays so that the tests can feed them broken inputs.

* :func:`trend_result` — "error decreases with n" (or ε; "increases with s*"; "the private–non-private gap shrinks";
  "Alg. 2's error exceeds Alg. 1's"): a per-replication statistic whose sign is the claim (the OLS slope of the
  error on the log of the swept variable, averaged over the figure's dimensions; or a paired difference), and an
  exact **sign test**: with N non-zero statistics of which k have the claimed sign, ``consistent`` when
  P(Bin(N, ½) ≥ k) ≤ α, ``violated`` when P(Bin(N, ½) ≥ N − k) ≤ α, else ``inconclusive``. The two one-sided
  tests are exclusive, so a wrong verdict has probability ≤ α. Design: the smallest probability p of the claimed
  sign that the test detects with power 0.8 (reported as ``details["design"]``).
* :func:`band_result` — "error almost the same for several d": the ratio of mean errors (largest over smallest d)
  with a percentile bootstrap CI over replications at level 1 − 2α; ``consistent`` when the CI lies inside the band
  [1/r₀, r₀], ``violated`` when it misses the band, else ``inconclusive``.
* :func:`exponent_result` — "the dependence on s* is not logarithmic": the log-log slope of the mean error in s*
  (bootstrap CI over replications, level 1 − 2α) against the slope g₀ a logarithmic law c·ln(1 + s*) has on the
  same grid: ``consistent`` when the CI is above g₀, ``violated`` when below, else ``inconclusive``.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import stats as sps

from htdp_verify.results import CheckResult

__all__ = [
    "ALPHA",
    "per_rep_slopes",
    "sign_test",
    "trend_result",
    "band_result",
    "exponent_result",
    "sign_test_min_effect",
    "roughness",
]

ALPHA = 0.05
POWER = 0.8
N_BOOT = 2000


def per_rep_slopes(E, x) -> np.ndarray:
    """OLS slope of the error on log x for each replication, averaged over the middle axis (dimensions).

    ``E``: (reps, k, len(x)) or (reps, len(x)); returns (reps,)."""
    E = np.asarray(E, dtype=float)
    if E.ndim == 2:
        E = E[:, None, :]
    lx = np.log(np.asarray(x, dtype=float))
    if E.shape[-1] != lx.size or lx.size < 2:
        raise ValueError(f"x must have the length of E's last axis (>= 2), got {lx.size} vs {E.shape[-1]}")
    c = lx - lx.mean()
    return np.mean((E * c).sum(axis=-1) / (c @ c), axis=1)


def sign_test_min_effect(N: int, alpha: float = ALPHA, power: float = POWER) -> float:
    """Smallest probability p of the claimed sign that the one-sided sign test at ``alpha`` detects with ``power``
    among N non-zero statistics (1.0 when N is too small for any detection)."""
    if N < 1:
        return 1.0
    ks = np.arange(N + 1)
    crit = ks[sps.binom.sf(ks - 1, N, 0.5) <= alpha]  # k with P(Bin(N, ½) ≥ k) ≤ α
    if crit.size == 0:
        return 1.0
    kc = int(crit[0])
    grid = np.linspace(0.5, 1.0, 501)
    ok = grid[sps.binom.sf(kc - 1, N, grid) >= power]
    return float(ok[0]) if ok.size else 1.0


def sign_test(stat, direction: int, alpha: float = ALPHA) -> dict:
    """Exact sign test of "``direction``·stat > 0" (direction ±1) on per-replication statistics (zeros dropped)."""
    if direction not in (-1, 1):
        raise ValueError(f"direction must be -1 or +1, got {direction!r}")
    s = np.sign(np.asarray(stat, dtype=float)) * direction
    if not np.all(np.isfinite(s)):
        raise ValueError("stat must be finite")
    k, N = int((s > 0).sum()), int((s != 0).sum())
    p_for = float(sps.binomtest(k, N, 0.5, alternative="greater").pvalue) if N else 1.0
    p_against = float(sps.binomtest(N - k, N, 0.5, alternative="greater").pvalue) if N else 1.0
    verdict = "consistent" if p_for <= alpha else "violated" if p_against <= alpha else "inconclusive"
    ci = sps.binomtest(k, N, 0.5).proportion_ci(1 - 2 * alpha, method="exact") if N else None
    return {
        "verdict": verdict,
        "k": k,
        "N": N,
        "p_claim_side": p_for,
        "p_other_side": p_against,
        "proportion": k / N if N else float("nan"),
        "interval": (ci.low, ci.high) if ci is not None else (0.0, 1.0),
        "min_effect": sign_test_min_effect(N, alpha),
    }


def trend_result(
    name: str, stat, direction: int, *, claim: str, statistic: str, provenance, seed, extra=None, alpha: float = ALPHA
) -> CheckResult:
    """A :class:`CheckResult` for a sign-test claim on per-replication statistics (module docstring)."""
    t = sign_test(stat, direction, alpha)
    word = {"consistent": "supported", "violated": "contradicted", "inconclusive": "not decided"}[t["verdict"]]
    summary = (
        f"{claim}: {word} — {t['k']} of {t['N']} replications show the claimed sign "
        f"(sign test, one-sided p = {t['p_claim_side']:.3g}; opposite side p = {t['p_other_side']:.3g}; "
        f"α = {alpha} per side; detects P(claimed sign) ≥ {t['min_effect']:.2f} with power {POWER})."
    )
    details = {
        "claim": claim,
        "test": "exact sign test on per-replication statistics",
        "direction": direction,
        "statistics": np.asarray(stat, dtype=float).tolist(),
        "sign_test": t,
        "design": {
            "alpha_per_side": alpha,
            "power": POWER,
            "replications": int(np.size(stat)),
            "min_detectable_probability": t["min_effect"],
        },
        **(extra or {}),
    }
    return CheckResult(
        name,
        t["verdict"],
        statistic,
        t["proportion"],
        t["interval"],
        alpha,
        None,
        int(np.size(stat)),
        0.0,
        seed,
        provenance,
        summary,
        details,
    )


def _boot_indices(R: int, seed: int, n_boot: int = N_BOOT) -> np.ndarray:
    return np.random.default_rng(np.random.SeedSequence([int(seed), R, 7])).integers(0, R, size=(n_boot, R))


def band_result(
    name: str, E_hi, E_lo, r0: float, *, claim: str, provenance, seed, extra=None, alpha: float = ALPHA
) -> CheckResult:
    """Ratio of mean errors ``E_hi``/``E_lo`` (per-replication arrays, paired by replication) against [1/r₀, r₀]."""
    E_hi, E_lo = np.asarray(E_hi, dtype=float), np.asarray(E_lo, dtype=float)
    if E_hi.shape != E_lo.shape or E_hi.ndim != 1 or E_hi.size < 2:
        raise ValueError("E_hi and E_lo must be 1-d arrays of the same length >= 2 (one value per replication)")
    if not r0 > 1:
        raise ValueError(f"r0 must be > 1, got {r0!r}")
    ratio = E_hi.mean() / E_lo.mean()
    idx = _boot_indices(E_hi.size, seed)
    boot = E_hi[idx].mean(axis=1) / E_lo[idx].mean(axis=1)
    lo, hi = (float(v) for v in np.quantile(boot, [alpha, 1 - alpha]))
    if 1 / r0 <= lo and hi <= r0:
        verdict = "consistent"
    elif hi < 1 / r0 or lo > r0:
        verdict = "violated"
    else:
        verdict = "inconclusive"
    summary = (
        f"{claim}: mean-error ratio {ratio:.3g} [{lo:.3g}, {hi:.3g}] (bootstrap {100 * (1 - 2 * alpha):.0f} % "
        f"CI over replications) vs the band [{1 / r0:.3g}, {r0:.3g}] → {verdict}."
    )
    details = {
        "claim": claim,
        "ratio": float(ratio),
        "band": [1 / r0, r0],
        "bootstrap": N_BOOT,
        "design": {
            "alpha_per_side": alpha,
            "replications": int(E_hi.size),
            "ci_halfwidth_log": float(0.5 * (math.log(hi) - math.log(lo))) if lo > 0 else None,
        },
        **(extra or {}),
    }
    return CheckResult(
        name,
        verdict,
        "mean_error_ratio",
        float(ratio),
        (lo, hi),
        alpha,
        None,
        int(E_hi.size),
        0.0,
        seed,
        provenance,
        summary,
        details,
    )


def exponent_result(name: str, E, x, *, claim: str, provenance, seed, extra=None, alpha: float = ALPHA) -> CheckResult:
    """Log-log slope of the mean error (over replications, then dimensions) in ``x`` vs the slope of c·ln(1 + x).

    ``E``: (reps, k, len(x)) errors (positive)."""
    E = np.asarray(E, dtype=float)
    lx = np.log(np.asarray(x, dtype=float))
    c = lx - lx.mean()

    def slope(M):  # M: (k, len(x)) mean errors
        with np.errstate(divide="ignore", invalid="ignore"):
            return float(np.mean(np.log(np.maximum(M, 1e-300)) @ c) / (c @ c))

    est = slope(E.mean(axis=0))
    idx = _boot_indices(E.shape[0], seed)
    boot = np.array([slope(E[i].mean(axis=0)) for i in idx])
    lo, hi = (float(v) for v in np.quantile(boot, [alpha, 1 - alpha]))
    g0 = float(np.log(np.log1p(np.asarray(x, dtype=float))) @ c / (c @ c))
    verdict = "consistent" if lo > g0 else "violated" if hi < g0 else "inconclusive"
    summary = (
        f"{claim}: log-log slope in s* {est:.3g} [{lo:.3g}, {hi:.3g}] (bootstrap {100 * (1 - 2 * alpha):.0f} % "
        f"CI) vs {g0:.3g}, the slope of c·ln(1 + s*) on this grid → {verdict}."
    )
    details = {
        "claim": claim,
        "log_law_slope": g0,
        "design": {"alpha_per_side": alpha, "replications": E.shape[0], "bootstrap": N_BOOT},
        **(extra or {}),
    }
    return CheckResult(
        name, verdict, "exponent", est, (lo, hi), alpha, None, int(E.shape[0]), 0.0, seed, provenance, summary, details
    )


def roughness(M) -> float:
    """Share of adjacent grid steps along the last axis where the mean curve ``M`` (k, len) goes *up* (a descriptive
    "non-smoothness" of a curve that should decrease)."""
    M = np.asarray(M, dtype=float)
    return float(np.mean(np.diff(M, axis=-1) > 0))
