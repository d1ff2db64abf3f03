"""Step audits: audit one iteration of an iterative estimator at a fixed state, then compose with the accountant.

An iterative estimator (noisy gradient descent, Frank–Wolfe, IHT with peeling ...) costs T iterations per release,
so a whole-run audit needs 10⁵ × T iterations. Its privacy claim is almost always proved by composition: every
iteration is (ε_t, δ_t)-DP *for every state* (the current iterate), and a composition theorem or an accountant turns
the T per-step guarantees into the run's (ε, δ). A step audit tests the premise directly: with the state fixed,
one iteration is an ordinary mechanism of the data, audited with :func:`~.audit.audit` at its own cost.

**Protocol** (:class:`SteppedEstimator`). An estimator takes part by defining

* ``n_steps`` (T) and ``step_mechanism(state, t) -> Mechanism``: iteration ``t`` (0-based) at ``state`` as a
  batched mechanism ``(data, size, rng) -> (size, ...)`` of the data, whose ``guarantee`` is the per-step claim;
* optionally ``step_calibration(t) -> Calibration`` (the stated noise of step t, one step) for exact accounting;
* optionally ``composition`` (``"sequential"``, default, or ``"parallel"``: disjoint records per step) and
  ``step_homogeneous`` (``True`` when the step mechanism depends on t only through the state, as in noisy GD with a
  fixed step size);
* ``privacy``: the run's claimed guarantee (or pass ``claim=``).

**What** :func:`audit_steps` **reports** (all statements hold together at confidence 1 − α: α is split evenly over
the audited steps, half to each step's audit and half to its run-level statement, Bonferroni):

1. per step: the audit of the step's claim (``violated`` iff the certified ε_lb > the claimed per-step ε);
2. ``accounting``: the stated per-step calibrations composed by the exact accountant
   (:func:`~.accounting.check_calibration`) against the run's claim — a deterministic check that the claim follows
   from the stated noise;
3. for each step whose claim is violated, two consequences, deliberately kept apart:

   * ``calibration_consequence`` — what the violation does to the stated proof: any valid per-step ε at the step's
     δ is ≥ ε_lb, so composing T black-box (ε_lb, δ_t)-DP steps with the optimal composition theorem (Kairouz, Oh &
     Viswanath 2015) gives the smallest run ε that route could still certify. This is a statement about the
     calibration argument, not a lower bound on the run's ε (the run may be private for other reasons).
   * ``run_lower_bound`` — a certified lower bound on the run's ε(δ), valid only in the model the accounting itself
     analyses: **adaptive composition**, where the adversary sees every step's output and chooses the state of each
     step, and the same neighbouring pair (D, D') is used throughout. There the adversary may hold every step at the
     audited state, so the run is at least as distinguishable as T independent copies of that step on (D, D')
     (only the audited step once each when the steps are not homogeneous; one step under parallel composition).
     Each audited step is reduced, by post-processing, to the indicator of its certified event: a Bernoulli pair
     with P_D(E) ≥ p_lo and P_D'(E) ≤ q_hi (Clopper–Pearson at the step's run-level α). Any binary pair with a
     larger p and smaller q is Blackwell-more-informative, and products of garblings are garblings of products, so
     the exact ε(δ) of the product of the Bernoulli(p_lo) / Bernoulli(q_hi) pairs (computed exactly from the
     binomial likelihood ratio) is ≤ the run's ε(δ). Composing lower bounds of *different* steps or different pairs
     by adding ε's is not valid in general and is not done. The bound says nothing about a run that releases only
     its final iterate from a fixed start, or whose states an adversary cannot choose: it contradicts the run's
     claim only as far as that claim rests on adaptive composition (as every composition-based proof does).

Reference: the step-audit approach follows Nasr, Song, Thakurta, Papernot & Carlini (2021), "Adversary instantiation:
lower bounds for differentially private machine learning" (IEEE S&P 2021), whose strongest adversaries see every
intermediate model and craft the gradient of the differing record, and
Steinke, Nasr & Jagielski (2023) for the one-run alternative (:mod:`.canary`).
"""

from __future__ import annotations

import math
import time
from dataclasses import asdict
from typing import Any, Protocol, runtime_checkable

import numpy as np
from scipy import optimize, stats

from .._validate import check_int, check_prob, check_rng
from ..claims import PrivacyClaim
from ..results import CheckResult
from ..stats import cp_lower, cp_upper
from .accounting import Calibration, check_calibration, epsilon_of
from .adapters import Mechanism
from .audit import audit
from .guarantee import PrivacyGuarantee
from .neighbours import Pair

__all__ = ["SteppedEstimator", "StepAuditResult", "audit_steps", "binary_composition_epsilon"]

_MAX_ENUMERATED = 16  # heterogeneous steps: the product of at most 2**16 outcomes is enumerated


@runtime_checkable
class SteppedEstimator(Protocol):
    """An iterative estimator that exposes its one-iteration mechanism (see the module docstring).

    A structural type: an estimator takes part by defining ``n_steps`` (the number T of iterations of a run) and
    ``step_mechanism(state, t)`` (iteration ``t`` at ``state`` as a batched mechanism of the data); the optional
    members are listed in the module docstring. The protocol itself is never instantiated.

    Parameters
    ----------
    *args, **kwargs
        Not used: the constructor is the placeholder ``typing.Protocol`` gives every protocol class, which refuses
        to instantiate it. An implementing estimator defines its own constructor.
    """

    n_steps: int

    def step_mechanism(self, state: Any, t: int) -> Mechanism:  # pragma: no cover - protocol
        ...


class StepAuditResult(CheckResult):
    """The result of :func:`audit_steps`: a :class:`~htdp_verify.results.CheckResult` whose ``details`` hold the
    per-step audits (``steps``), the ``accounting`` check and the consequences of per-step violations;
    ``step_results`` keeps the per-step :class:`~.result.AuditResult` objects (not serialised).

    Parameters
    ----------
    name, verdict, statistic, estimate, interval, alpha, claim, n_samples
        As in :class:`~htdp_verify.results.CheckResult`.
    seconds, seed, provenance, summary, details, figures, expected
        As in :class:`~htdp_verify.results.CheckResult`.

    Attributes
    ----------
    step_results : tuple
        The per-step :class:`~htdp_verify.privacy.AuditResult` objects.
    """

    step_results: tuple = ()

    @property
    def steps(self) -> list:
        return self.details.get("steps", [])

    @property
    def violated_steps(self) -> list:
        return [s["t"] for s in self.steps if s["verdict"] == "violated"]

    @property
    def run_lower_bound(self) -> dict | None:
        return self.details.get("run_lower_bound")

    @property
    def calibration_consequence(self) -> dict | None:
        return self.details.get("calibration_consequence")


# ----------------------------------------------------------------- exact ε(δ) of products of binary tests


def _log_hockey(lp: np.ndarray, lq: np.ndarray, w: np.ndarray, eps: float) -> float:
    """δ(ε) = Σ_o w_o max(0, P(o) − e^ε Q(o)) for outcome log-probabilities ``lp``, ``lq`` with multiplicities
    ``w`` (log-space, ``w`` in log too)."""
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        gap = -np.expm1(np.minimum(lq + eps - lp, 0.0))  # 1 - e^{ε + lq - lp}, 0 where P ≤ e^ε Q
        terms = np.exp(w + lp) * gap
    return float(np.sum(np.where(np.isfinite(terms), terms, 0.0)))


def _outcomes(tests: list[tuple[float, float]], repeat: int):
    """Log-probabilities under D and D' (and log-multiplicities) of the product of binary tests.

    ``tests``: (P_D(E), P_D'(E)) per step. ``repeat > 1`` (one test only): the count of successes is sufficient, so
    the T-fold product reduces to Bin(T, p) vs Bin(T, q)."""
    if repeat > 1:
        ((p, q),) = tests
        k = np.arange(repeat + 1)
        return stats.binom.logpmf(k, repeat, p), stats.binom.logpmf(k, repeat, q), np.zeros(repeat + 1)
    lp, lq = np.zeros(1), np.zeros(1)
    for p, q in tests:
        with np.errstate(divide="ignore"):
            lp = np.concatenate([lp + np.log(p), lp + np.log1p(-p)])
            lq = np.concatenate([lq + np.log(q), lq + np.log1p(-q)])
    return lp, lq, np.zeros(lp.size)


def binary_composition_epsilon(tests: Any, delta: float, *, repeat: int = 1) -> float:
    """Exact ε(δ) of the product of binary mechanisms, the larger over the two orders (D over D', D' over D).

    ``tests``: a list of pairs (P_D(E), P_D'(E)) of event probabilities, one per step; ``repeat``: with one test,
    the number of independent copies composed. ε(δ) = inf{ε ≥ 0 : Σ_o max(0, P(o) − e^ε Q(o)) ≤ δ}; at δ = 0 the
    largest log-likelihood ratio of an outcome of positive probability (∞ if some outcome has Q = 0 < P).

    Parameters
    ----------
    tests : list of tuple
        Pairs ``(P_D(E), P_D'(E))`` of event probabilities, one per step.
    delta : float
        The δ.
    repeat : int, default 1
        With one test, the number of independent copies composed.

    Returns
    -------
    float
        The ε(δ).
    """
    tests = [(float(p), float(q)) for p, q in tests]
    if not tests or any(not (0 <= p <= 1 and 0 <= q <= 1) for p, q in tests):
        raise ValueError("tests must be a non-empty list of probability pairs (p, q) in [0, 1]")
    repeat = check_int("repeat", repeat, minimum=1)
    if repeat > 1 and len(tests) != 1:
        raise ValueError("repeat > 1 needs exactly one test")
    delta = check_prob("delta", delta, open_low=False)
    lp, lq, w = _outcomes(tests, repeat)
    best = 0.0
    for a, b in ((lp, lq), (lq, lp)):
        pos = np.isfinite(a)
        if delta == 0:
            with np.errstate(invalid="ignore"):
                best = max(best, float(np.max(np.where(pos, a - b, -np.inf))))
            continue
        if _log_hockey(a, b, w, 0.0) <= delta:
            continue
        hi = 1.0
        while _log_hockey(a, b, w, hi) > delta:
            hi *= 2.0
            if hi > 1e6:
                return math.inf
        best = max(best, optimize.brentq(lambda e: _log_hockey(a, b, w, e) - delta, 0.0, hi, xtol=1e-10))
    return max(best, 0.0)


# ----------------------------------------------------------------- helpers


def _as_states(states) -> list[tuple[int, Any]]:
    items = list(states.items()) if isinstance(states, dict) else list(states)
    out = []
    for it in items:
        if not (isinstance(it, tuple) and len(it) == 2):
            raise ValueError("states must be a dict {t: state} or a sequence of (t, state) pairs")
        out.append((int(it[0]), it[1]))
    if not out:
        raise ValueError("states must name at least one step to audit")
    return out


def _run_claim(estimator, claim) -> PrivacyClaim | None:
    if claim is None:
        claim = getattr(estimator, "privacy", None)
    if claim is None:
        return None
    if isinstance(claim, PrivacyGuarantee):
        return claim.claim()
    if isinstance(claim, PrivacyClaim):
        return claim
    raise ValueError(f"claim must be a PrivacyClaim, a PrivacyGuarantee or None, got {type(claim).__name__}")


def _stated_calibrations(estimator, T: int) -> list[Calibration] | None:
    """Per-step calibrations merged into runs of identical steps (``steps=k``), or None if not stated."""
    fn = getattr(estimator, "step_calibration", None)
    if not callable(fn):
        return None
    merged: list[Calibration] = []
    count, prev = 0, None
    for t in range(T):
        c = fn(t)
        if not isinstance(c, Calibration) or c.steps != 1:
            raise ValueError("step_calibration(t) must return a one-step Calibration")
        if prev is not None and c != prev:
            merged.append(Calibration(**{**asdict(prev), "steps": count}))
            count = 0
        prev, count = c, count + 1
    merged.append(Calibration(**{**asdict(prev), "steps": count}))
    if getattr(estimator, "composition", "sequential") == "parallel":
        merged = [Calibration(**{**asdict(c), "composition": "parallel"}) for c in merged]
    return merged


def _event_test(res, a_run: float, swap: bool) -> tuple[float, float, float, float]:
    """(p_lo, q_hi) bounds on the certified event's probabilities under (D, D') at level ``a_run`` (two CP bounds at
    a_run/2), and the same as (P_D, P_D') when the event favours D' (``swap``)."""
    c = res.counts
    p_lo = float(cp_lower(c["numerator"], c["n_numerator"], a_run / 2))
    q_hi = float(cp_upper(c["denominator"], c["n_denominator"], a_run / 2))
    favours_d = c.get("orientation", "D over D'") == "D over D'"
    if swap:
        favours_d = not favours_d
    pd, pdp = (p_lo, q_hi) if favours_d else (q_hi, p_lo)
    return p_lo, q_hi, pd, pdp


# ----------------------------------------------------------------- the audit


def audit_steps(
    estimator: Any,
    data_pair: Any,
    states: Any,
    *,
    n_samples: int,
    rng: np.random.Generator,
    alpha: float = 0.05,
    claim: Any = None,
    delta: float | None = None,
    name: str | None = None,
    **audit_kwargs: Any,
) -> StepAuditResult:
    """Audit chosen iterations of ``estimator`` at fixed states and check the run's claim by composition.

    Parameters
    ----------
    estimator
        a :class:`SteppedEstimator` (``n_steps``, ``step_mechanism(state, t)``; optionally
        ``step_calibration``, ``composition``, ``step_homogeneous``, ``privacy``).
    data_pair
        the neighbouring datasets ``(D, D')`` (or a :class:`~.neighbours.Pair`) every step is audited on.
    states
        ``{t: state}`` or a sequence of ``(t, state)``: which steps to audit and at which state.
    n_samples
        certification releases per side for each step audit (see :func:`~.audit.audit`).
    rng
        the generator every release is drawn from.
    alpha
        family-wise error of every statement in the result (split as in the module docstring).
    claim
        the run's claim (default ``estimator.privacy``).
    delta
        the δ of the run-level lower bound (default the run claim's δ, else 0).
    name
        name of the result.
    **audit_kwargs
        passed to every :func:`~.audit.audit` (``attacks``, ``n_select``, ``directions`` ...).

    Returns
    -------
    StepAuditResult
        ``"violated"`` if some step's claim is rejected or the stated calibration does not
        give the run's claim; ``"inconclusive"`` if a step audit or the accounting could not decide and nothing is
        violated; else ``"consistent"``. ``details``: ``steps`` (one entry per audited step), ``accounting``,
        ``calibration_consequence`` and ``run_lower_bound`` (after a per-step violation; see the module docstring).
    """
    t0 = time.perf_counter()
    check_rng(rng)
    alpha = check_prob("alpha", alpha)
    T = check_int("estimator.n_steps", getattr(estimator, "n_steps", None), minimum=1)
    if not callable(getattr(estimator, "step_mechanism", None)):
        raise ValueError("estimator must define step_mechanism(state, t) -> Mechanism (see SteppedEstimator)")
    chosen = _as_states(states)
    for t, _ in chosen:
        if not 0 <= t < T:
            raise ValueError(f"step index t must lie in [0, {T - 1}], got {t}")
    run_claim = _run_claim(estimator, claim)
    pair = data_pair if isinstance(data_pair, Pair) else None
    if pair is None:  # checked against the run claim's relation (audit() checks dataset relations)
        if not (isinstance(data_pair, tuple) and len(data_pair) == 2):
            raise ValueError("data_pair must be a (D, D') tuple or a Pair")
        rel = run_claim.neighbours if run_claim is not None else "given"
        pair = Pair(data_pair[0], data_pair[1], "step-audit pair", rel)
    if delta is None:
        delta = run_claim.delta if run_claim is not None else 0.0
    delta = check_prob("delta", delta, open_low=False)
    composition = getattr(estimator, "composition", "sequential")
    if composition not in ("sequential", "parallel"):
        raise ValueError(f"estimator.composition must be 'sequential' or 'parallel', got {composition!r}")
    homogeneous = bool(getattr(estimator, "step_homogeneous", False))
    k = len(chosen)
    a_step = a_run = alpha / (2 * k)

    step_rows, step_results, tests = [], [], []
    for t, state in chosen:
        mech = estimator.step_mechanism(state, t)
        g = getattr(mech, "guarantee", None)
        if g is None:
            raise ValueError(f"step_mechanism(state, {t}) must return a Mechanism with a guarantee (the step's claim)")
        res = audit(
            mech,
            g,
            pairs=[pair],
            n_samples=n_samples,
            alpha=a_step,
            rng=rng,
            name=name and f"{name}.step{t}",
            **audit_kwargs,
        )
        step_results.append(res)
        swap = res.pair.get("label", pair.label).endswith("(swapped)")
        p_lo, q_hi, pd, pdp = _event_test(res, a_run, swap)
        row = {
            "t": t,
            "verdict": res.verdict,
            "epsilon_lb": res.epsilon_lb,
            "claimed_epsilon": g.epsilon,
            "claimed_delta": g.delta,
            "alpha": a_step,
            "event": res.event,
            "summary": res.summary,
            "event_probabilities": {
                "P_D_bound": pd,
                "P_Dprime_bound": pdp,
                "numerator_lower": p_lo,
                "denominator_upper": q_hi,
                "alpha": a_run,
            },
            "reproducible": bool(getattr(mech, "reproducible", True)),
        }
        step_rows.append(row)
        if res.verdict == "violated" and p_lo > q_hi:
            tests.append((t, (pd, pdp), g))

    # 2. the stated calibration composed, against the run's claim
    accounting = None
    cals = _stated_calibrations(estimator, T)
    if cals is not None and run_claim is not None:
        acc = check_calibration(cals, run_claim, name=f"{name or 'steps'}.accounting")
        accounting = {
            "verdict": acc.verdict,
            "epsilon": acc.estimate,
            "interval": list(acc.interval),
            "summary": acc.summary,
            "accountant": acc.details.get("accountant"),
        }

    # 3. consequences of per-step violations
    T_eff = 1 if composition == "parallel" else T
    calib_cons, run_lb = None, None
    if tests:
        worst = max(step_rows, key=lambda r: r["epsilon_lb"] if r["verdict"] == "violated" else -math.inf)
        e_lb, d_step = worst["epsilon_lb"], worst["claimed_delta"]
        bb = (
            Calibration("approx_dp", step_epsilon=e_lb, step_delta=d_step, steps=T_eff)
            if d_step > 0
            else Calibration("pure_dp", step_epsilon=e_lb, steps=T_eff)
        )
        floor = 1.0 - (1.0 - d_step) ** T_eff  # the composed δ0 part: no ε exists at a δ below it
        eps_best = epsilon_of(bb, delta) if (d_step == 0 or delta > floor) else None
        calib_cons = {
            "step": worst["t"],
            "step_epsilon_lb": e_lb,
            "step_delta": d_step,
            "steps": T_eff,
            "delta": delta,
            "epsilon_at_best": eps_best,
            "statement": (
                f"step {worst['t']} is not ({worst['claimed_epsilon']:.4g}, {d_step:g})-DP: its ε at "
                f"δ={d_step:g} is ≥ {e_lb:.4g}; an accountant composing {T_eff} such black-box steps "
                "(optimal composition) cannot certify the run below the ε given here. This concerns the "
                "stated proof, not the run's true ε."
            ),
        }
        if eps_best is None:
            calib_cons["statement"] += (
                f" (at δ={delta:g} ≤ 1 − (1 − δ_step)^T the black-box route certifies no finite ε at all)"
            )
        if homogeneous or composition == "parallel":
            reps = T_eff
            cands = [(t, binary_composition_epsilon([tp], delta, repeat=reps)) for t, tp, _ in tests]
            how = (
                f"the audited step repeated {reps} times (homogeneous steps: the adversary holds the state)"
                if reps > 1
                else "one step (parallel composition: a record meets one step)"
            )
        else:  # each step happens once in a run: one test per step index (its strongest audited state)
            by_t = {}
            for t, tp, g in tests:
                if t not in by_t or binary_composition_epsilon([tp], delta) > binary_composition_epsilon(
                    [by_t[t][1]], delta
                ):
                    by_t[t] = (t, tp, g)
            use = sorted(by_t.values(), key=lambda x: -binary_composition_epsilon([x[1]], delta))[:_MAX_ENUMERATED]
            use.sort(key=lambda x: x[0])
            cands = [(tuple(t for t, _, _ in use), binary_composition_epsilon([tp for _, tp, _ in use], delta))]
            how = (
                f"the {len(use)} violated audited step(s), each once at its strongest audited state (steps not "
                "declared homogeneous)"
            )
        which, eps_run = max(cands, key=lambda x: x[1])
        run_lb = {
            "epsilon_lb": eps_run,
            "delta": delta,
            "confidence": 1 - alpha,
            "steps_composed": how,
            "from_steps": which,
            "exceeds_claim": (run_claim is not None and delta == run_claim.delta and eps_run > run_claim.epsilon),
            "scope": "adaptive composition: the adversary sees every step's output and chooses each step's state; "
            "same neighbouring pair for every step. Not a bound for a run released only through its final "
            "iterate from a fixed start.",
        }

    # verdict
    verdicts = [r["verdict"] for r in step_rows] + ([accounting["verdict"]] if accounting else [])
    verdict = "violated" if "violated" in verdicts else "inconclusive" if "inconclusive" in verdicts else "consistent"
    bad = [r["t"] for r in step_rows if r["verdict"] == "violated"]
    parts = [
        f"{k} step(s) audited (α={a_step:.3g} each): "
        + ", ".join(
            f"t={r['t']}: ε_lb={r['epsilon_lb']:.3g} vs claimed {r['claimed_epsilon']:.3g} [{r['verdict']}]"
            for r in step_rows
        )
    ]
    if accounting:
        parts.append(f"stated calibration composed: {accounting['summary']}")
    if run_lb is not None:
        parts.append(
            f"under adaptive composition the run's ε at δ={delta:g} is ≥ {run_lb['epsilon_lb']:.4g}"
            + (f" (claimed {run_claim.epsilon:g})" if run_claim is not None else "")
        )
    elif bad:
        parts.append(f"steps {bad} violated their claim but no event separates the sides at the run-level α")
    if calib_cons is not None and calib_cons["epsilon_at_best"] is not None:
        parts.append(
            f"the stated accounting with the measured step ε gives at best ε = "
            f"{calib_cons['epsilon_at_best']:.4g} for the run"
        )
    details = {
        "steps": step_rows,
        "n_steps": T,
        "composition": composition,
        "step_homogeneous": homogeneous,
        "accounting": accounting,
        "calibration_consequence": calib_cons,
        "run_lower_bound": run_lb,
        "pair": {**pair.to_dict(), "text": pair.describe()},
        "alpha_split": f"α={alpha:g}: {k} step audits at α/(2k)={a_step:.3g} and {k} run-level statements at "
        f"α/(2k)={a_run:.3g} (Bonferroni; the accounting check is deterministic)",
        "reproducible": all(r["reproducible"] for r in step_rows),
    }
    out = StepAuditResult(
        name=name or "privacy.step_audit",
        verdict=verdict,
        statistic="step_epsilon_lb",
        estimate=max(r["epsilon_lb"] for r in step_rows),
        alpha=alpha,
        claim=run_claim,
        n_samples=sum(int(r.n_samples) for r in step_results),
        seconds=time.perf_counter() - t0,
        summary="; ".join(parts),
        details=details,
    )
    out.step_results = step_results
    return out
