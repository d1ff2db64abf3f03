"""One-run canary auditing: an ε lower bound from one (or a few) runs of an expensive estimator.

Steinke, Nasr & Jagielski, "Privacy auditing with one (1) training run", NeurIPS 2023 (arXiv 2305.08846).

The game.  m canary records are fixed in advance; each is included independently with probability ½
(``S_i = +1`` included, ``S_i = -1`` not).  The estimator runs once on the data plus the included canaries
(under ``"replace"`` neighbours the slot of an excluded canary holds its *out-record* instead, so the dataset size
is fixed and flipping ``S_i`` is one replacement; under ``"add_remove"`` it is one insertion).  Every canary gets a
score from the release (the projection of the estimate on the canary's direction); the auditor guesses ``+1`` on
the ``k_+`` highest scores, ``-1`` on the ``k_-`` lowest and abstains on the rest.  With ``r = k_+ + k_-`` guesses
of which ``v`` are right, for a mechanism that is (ε, δ)-DP in each coordinate of S (their Theorem 1 for δ = 0, and
its approximate-DP form, Theorem 3 / Prop. 5.7 as we read it):

    P[V ≥ v] ≤ p_ε(v) = f(v) + 2 m δ · max_{i = 1..v} (f(v − i) − f(v)) / i,
    f(t) = P[Binomial(r, q) ≥ t],  q = e^ε / (1 + e^ε).

The δ-term is the paper's (its Appendix D code computes exactly this p-value; our spec §4.7 reads jax_privacy's
``epsilon_one_run`` the same way); m is the number of randomised canaries, not the number of guesses r.  When
``2 m δ ≥ 1`` the bound is not used and ε_lb = 0 (always a valid lower bound).

Validity.  For fixed ε the test "reject when p_ε(v_obs) ≤ β" has level β with no monotonicity in v: if A is the
set of v with p_ε(v) ≤ β, then V ∈ A implies V ≥ min A, so P[V ∈ A] ≤ P[V ≥ min A] ≤ p_ε(min A) ≤ β.  Inverting
it needs monotonicity in ε, proved here for c = 2mδ ≤ 1.  Write f(v) + c (f(v−i) − f(v))/i = E[φ_i(B)] with
φ_i(b) = 1 for b ≥ v, c/i for v − i ≤ b < v, 0 below.  For c = 2mδ ≤ 1 every φ_i is non-decreasing, and
Binomial(r, q) increases stochastically in ε, so p_ε(v) is non-decreasing in ε.  In v: the window average
g(v) = max_i (f(v−i) − f(v))/i satisfies g(v+1) ≤ max(pmf(v), g(v)), hence
p(v+1) − p(v) ≤ −(1 − c)·pmf(v) ≤ 0.  So rejecting ε whenever p_ε(v_obs) ≤ β is a valid level-β test and the
lower bound ε_lb = sup{ε : p_ε(v_obs) ≤ β} (found by Brent's method, returned from the side where p ≤ β) satisfies
P[ε_lb > ε_true] ≤ β.

Choice of the number of guesses.  By default a fixed grid of guess counts (a share of all canaries, balanced
between ``+1`` and ``-1`` guesses, see :func:`guess_plans`) is tried and α is split equally over the grid
(Bonferroni), so the reported maximum is valid at 1 − α.  The grid depends only on m and the number of runs, never
on the scores or on S.

Several runs.  With ``runs = R`` each run draws its own inclusion vector.  The pooled game is one game with
``m·R`` canaries: the concatenated S has independent fair coordinates, and flipping one coordinate changes the
input of one run by one neighbouring step while the other runs' outputs, drawn with independent randomness, do not
depend on it; the joint output is therefore (ε, δ)-DP in each coordinate, which is all the theorem needs.  The
guesses are made on the pooled scores (each run's scores centred at their median, a function of the outputs
only), and the bound uses m·R canaries in its δ-term.

Layout: this module holds :func:`audit_one_run` and re-exports the rest, so every name here stays importable from
it: the bound (:func:`one_run_p_value`, :func:`epsilon_lower_bound_one_run`, :func:`guess_plans`) lives in
:mod:`htdp_verify.privacy.canary_bound`, the canary designs (:class:`CanaryDesign`, :func:`mean_canaries`,
:func:`regression_canaries`, :func:`cluster_canaries`) in :mod:`htdp_verify.privacy.canary_designs`.
"""

from __future__ import annotations

import math
import time
from typing import Any

import numpy as np

from .._validate import check_int, check_prob, check_rng
from ..claims import PrivacyClaim, Provenance
from .adapters import as_mechanism
from .audit import AuditResult
from .canary_bound import _p_value, epsilon_lower_bound_one_run, guess_plans, one_run_p_value
from .canary_designs import CanaryDesign, cluster_canaries, mean_canaries, regression_canaries
from .verdict import format_lower_bound

__all__ = [
    "CanaryDesign",
    "mean_canaries",
    "regression_canaries",
    "cluster_canaries",
    "one_run_p_value",
    "epsilon_lower_bound_one_run",
    "guess_plans",
    "audit_one_run",
]

REFERENCE = "Steinke, Nasr & Jagielski 2023, Privacy auditing with one (1) training run (NeurIPS)"


# ------------------------------------------------------------------------------------------------------
# the audit
# ------------------------------------------------------------------------------------------------------


def _claim(claim, mech) -> PrivacyClaim:
    if claim is None:
        claim = getattr(mech, "guarantee", None)
        if claim is None:
            raise ValueError("claim must be a PrivacyClaim or PrivacyGuarantee (the estimator declares none)")
    if isinstance(claim, PrivacyClaim):
        return claim
    if hasattr(claim, "claim") and callable(claim.claim):
        return claim.claim()
    raise ValueError(f"claim must be a PrivacyClaim or PrivacyGuarantee, got {type(claim).__name__}")


def _seed(rng) -> int | None:
    ss = getattr(rng.bit_generator, "seed_seq", None)
    ent = getattr(ss, "entropy", None)
    return int(ent) if isinstance(ent, (int, np.integer)) and not getattr(ss, "spawn_key", ()) else None


def _count(scores: np.ndarray, signs: np.ndarray, kp: int, km: int) -> tuple[int, int]:
    """(guesses, correct) for +1 on the kp highest and −1 on the km lowest scores (ties broken by position)."""
    order = np.argsort(scores, kind="stable")
    minus, plus = order[:km], order[len(order) - kp :] if kp else order[:0]
    return kp + km, int(np.count_nonzero(signs[plus] > 0) + np.count_nonzero(signs[minus] < 0))


def audit_one_run(
    estimator: Any,
    data: Any,
    claim: Any = None,
    *,
    canaries: CanaryDesign,
    runs: int = 1,
    rng: np.random.Generator,
    alpha: float = 0.05,
    k_guesses: Any = None,
    name: str | None = None,
) -> AuditResult:
    """Audit ``claim`` from ``runs`` runs of ``estimator`` with canaries (Steinke, Nasr & Jagielski 2023).

    Parameters
    ----------
    estimator
        anything :func:`~htdp_verify.privacy.adapters.as_mechanism` accepts (an estimator with ``sample``,
        a :class:`Mechanism`, or a batched callable ``(data, size, rng)``); it is called once per run.
    data
        ``(n, p)`` records the canaries are added to (n may be 0); each canary record has p columns.
    claim
        :class:`PrivacyClaim` / :class:`PrivacyGuarantee` (default: the estimator's declared guarantee).  Its
        neighbouring relation decides how an excluded canary is represented (module docstring).
    canaries
        a :class:`CanaryDesign` (:func:`mean_canaries`, :func:`regression_canaries`, :func:`cluster_canaries`).
    runs
        independent runs, each with its own inclusion draw; their guesses are pooled (module docstring).
    rng
        the generator of the inclusion draws and of the estimator's noise.
    alpha
        error probability of the reported bound (split over the guess plans).
    k_guesses
        guess plans (:func:`guess_plans`; default a grid of five shares of the canaries).
    name
        name of the result (default ``privacy.audit_one_run[<estimator name>]``).

    Returns
    -------
    AuditResult
        ``estimate`` = ε lower bound at confidence 1 − α at the claim's δ; verdict ``"violated"`` iff it
        exceeds the claimed ε, ``"inconclusive"`` when even all-correct guesses could not certify the claimed ε, else
        ``"consistent"``.  ``details`` holds the guesses made and correct per plan and the detectability ceiling.
    """
    t0 = time.perf_counter()
    check_rng(rng)
    mech = as_mechanism(estimator)
    claim = _claim(claim, mech)
    if not isinstance(canaries, CanaryDesign):
        raise ValueError(f"canaries must be a CanaryDesign, got {type(canaries).__name__}")
    runs = check_int("runs", runs, minimum=1)
    alpha = check_prob("alpha", alpha)
    arr = np.asarray(data, dtype=float)
    p = canaries.records.shape[1]
    if arr.size == 0:
        arr = arr.reshape(0, p)
    if arr.ndim != 2 or arr.shape[1] != p or not np.all(np.isfinite(arr)):
        raise ValueError(f"data must be a finite (n, {p}) array matching the canary records, got shape {arr.shape}")
    m = canaries.m
    M = m * runs
    plans = guess_plans(M, k_guesses)
    a_plan = alpha / len(plans)

    all_scores, all_signs = np.empty(M), np.empty(M)
    per_run = []
    for j in range(runs):
        signs = np.where(rng.random(m) < 0.5, 1.0, -1.0)
        release = mech(canaries.dataset(arr, signs > 0, claim.neighbours), 1, rng)[0]
        s = canaries.scores(release)
        if not np.all(np.isfinite(s)):
            raise ValueError(f"run {j}: the release gave non-finite canary scores")
        all_scores[j * m : (j + 1) * m] = s - np.median(s)
        all_signs[j * m : (j + 1) * m] = signs
        per_run.append({"run": j, "included": int(np.count_nonzero(signs > 0))})

    table = []
    for kp, km in plans:
        r, v = _count(all_scores, all_signs, kp, km)
        lb = epsilon_lower_bound_one_run(r, v, delta=claim.delta, m=M, beta=a_plan)
        ceiling = epsilon_lower_bound_one_run(r, r, delta=claim.delta, m=M, beta=a_plan)
        table.append(
            {
                "k_plus": kp,
                "k_minus": km,
                "guesses": r,
                "correct": v,
                "epsilon_lb": lb,
                "ceiling": ceiling,
                "p_value_at_claim": _p_value(r, v, claim.epsilon, 2.0 * M * claim.delta),
            }
        )
    best = max(table, key=lambda t: (t["epsilon_lb"], t["correct"] / t["guesses"]))
    eps_lb = float(best["epsilon_lb"])
    max_cert = max(t["ceiling"] for t in table)
    p_claim = min(1.0, len(plans) * min(t["p_value_at_claim"] for t in table))
    if eps_lb > claim.epsilon:
        verdict = "violated"
    elif max_cert <= claim.epsilon:
        verdict = "inconclusive"
    else:
        verdict = "consistent"
    dtext = f" at delta={claim.delta:g}" if claim.delta > 0 else ""
    statement = (
        f"with {M} canaries ({m} x {runs} run(s)) and alpha={a_plan:.3g} per guess plan, all guesses right "
        f"would certify at most epsilon={max_cert:.4g}{dtext}"
    )
    if 2.0 * M * claim.delta >= 1.0:
        statement += f"; 2*m*delta = {2 * M * claim.delta:.3g} >= 1 makes the bound vacuous (use fewer canaries)"
    elapsed = time.perf_counter() - t0
    shown = format_lower_bound(eps_lb, claim.epsilon)
    summary = (
        f"one-run certified epsilon >= {shown}{dtext} at {100 * (1 - alpha):.4g}% confidence vs claimed "
        f"{claim.epsilon:g}; {best['correct']}/{best['guesses']} guesses right on {M} canaries "
        f"({runs} run(s)); ceiling {max_cert:.4g}"
    )
    details = {
        "epsilon_lb": eps_lb,
        "confidence": 1 - alpha,
        "guesses": int(best["guesses"]),
        "correct": int(best["correct"]),
        "k_plus": int(best["k_plus"]),
        "k_minus": int(best["k_minus"]),
        "plans": table,
        "alpha_per_plan": a_plan,
        "p_value_at_claim_bonferroni": p_claim,
        "k_rule": (
            "guess plans fixed before the run (guess_plans); alpha split equally over them (Bonferroni); "
            "+1 on the k_plus highest and -1 on the k_minus lowest pooled scores, each run's scores centred "
            "at their median"
        ),
        "canaries": {**canaries.to_dict(), "runs": runs, "pooled": M, "neighbours": claim.neighbours},
        "runs": per_run,
        "bound": (
            "P[V >= v] <= P[Bin(r,q) >= v] + 2*m*delta*max_i (P[v-i <= Bin(r,q) < v])/i, q = e^eps/(1+e^eps), "
            "m = pooled canaries; " + REFERENCE
        ),
        "pooling": "runs pooled as one game with m*runs canaries: each coordinate of S enters one run only",
        "detectability": {"max_certifiable_epsilon": max_cert, "statement": statement},
        "samples": {"estimator_calls": runs, "total_releases": runs},
        "seconds": {"total": elapsed},
        "mechanism": mech.name,
        "event": {
            "event": f"canary guesses ({best['k_plus']} +, {best['k_minus']} -) on {M} canaries",
            "orientation": "correct vs wrong guesses",
        },
        "pair": {
            "text": f"canary inclusion game: {m} canaries per run, each included with probability 1/2 "
            f"({claim.neighbours} neighbours)"
        },
        "counts": {
            "guesses": int(best["guesses"]),
            "correct": int(best["correct"]),
            "numerator": int(best["correct"]),
            "n_numerator": int(best["guesses"]),
            "denominator": int(best["guesses"] - best["correct"]),
            "n_denominator": int(best["guesses"]),
            "method": "one-run binomial bound",
        },
        "point_estimate": (
            math.log(best["correct"] / (best["guesses"] - best["correct"]))
            if 0 < best["correct"] < best["guesses"]
            else (math.inf if best["correct"] == best["guesses"] else -math.inf)
        ),
        "ledger": "\n".join(
            f"{a_plan:.4g}  plan k_plus={t['k_plus']}, k_minus={t['k_minus']}: "
            f"{t['correct']}/{t['guesses']} right, epsilon_lb {t['epsilon_lb']:.4g}"
            for t in table
        ),
    }
    prov = claim.provenance if isinstance(claim.provenance, Provenance) else Provenance()
    return AuditResult(
        name=name or f"privacy.audit_one_run[{mech.name}]",
        verdict=verdict,
        statistic="epsilon_lb",
        estimate=eps_lb,
        interval=(eps_lb, math.inf),
        alpha=alpha,
        claim=claim,
        n_samples=runs,
        seconds=elapsed,
        seed=_seed(rng),
        provenance=prov,
        summary=summary,
        details=details,
    )
