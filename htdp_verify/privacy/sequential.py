"""Anytime-valid sequential certification: draw releases in rounds and stop as soon as the claim is refuted.

Construction (a union bound over a fixed schedule of checkpoints).  Before any release is drawn the schedule
``n_1 < n_2 < ... < n_J = max_samples`` (geometric, ``n_j ≈ first · growth^(j-1)``, releases per side) is fixed.
At checkpoint ``j`` each main event's counts ``k_num``, ``k_den`` on ``n_j`` releases per side are certified with
the exact Clopper–Pearson bound of :func:`~htdp_verify.stats.epsilon_lower_bound` at level

    α_j = α_event · 6 / (π² j²),        Σ_j α_j ≤ α_event  (Basel sum),

i.e. ``ln((CP_lo(k_num, n_j, α_j/2) − δ) / CP_hi(k_den, n_j, α_j/2))``, which is below the true privacy loss of
the event whenever both CP statements hold, because (ε, δ)-DP gives ``p_num ≤ e^ε p_den + δ``.  Each ``n_j`` is
fixed in advance, so each statement is an ordinary fixed-n statement of probability ≥ 1 − α_j; by the union bound
they hold *all together* with probability ≥ 1 − α_event, hence the bound read at any data-dependent stopping
checkpoint (and the running maximum over the checkpoints seen) holds at 1 − α_event.  This is the
"sequence of confidence intervals by Bonferroni over a sparse grid of times" of Darling & Robbins (1967,
"Confidence sequences for mean, variance, and median", PNAS 58) — the cheapest member of the family that Howard,
Ramdas, McAuliffe & Sekhon (2021, "Time-uniform, nonparametric, nonasymptotic confidence sequences", Ann. Statist.
49) tighten by stitching; it is not the betting confidence sequence of Waudby-Smith & Ramdas (2024, JRSS-B) used by
González Lara, Dulce, Ramdas & Ribero (2025, "Sequentially auditing differential privacy"), which would be tighter.
Bonferroni over ``n_certify`` main events is kept from the plan (α_event = α / n_certify).

Stopping rule, checked at every checkpoint:

* ``"violated"``: the running maximum of the certified bound exceeds the claimed ε;
* ``"futility"``: even an optimistic continuation could not exceed the claim at ``max_samples``.  The remaining
  ``R = max_samples − n_j`` releases per side are projected at the optimistic end of the data: numerator
  ``k_num + R·u + z·sqrt(R·u(1−u))`` with ``u = CP_hi(k_num, n_j, β)``, denominator
  ``k_den + R·l − z·sqrt(R·l(1−l))`` with ``l = CP_lo(k_den, n_j, β)`` (``z = Φ⁻¹(1−β)``, β =
  ``futility_level``), and the final checkpoint's bound at α_J is computed from them; if it stays ≤ the claim for
  every event, the run stops.  ``futility="certain"`` uses the literal best case instead (every remaining
  numerator release in the event, no remaining denominator release), which never stops a run that could still
  succeed.  Futility stops only ever *withhold* a "violated", so they cannot hurt validity; β bounds (roughly) the
  power they cost;
* ``"max_samples"``: the budget is spent.

:func:`run_sequential` is the engine on any counting callback (tests drive it with Bernoulli streams);
:func:`sequential_certification_stage` runs it on a mechanism's releases (blocks counted by
:func:`~.streaming.count_streamed`) and returns :class:`SequentialCounts` (a :class:`~.certification.Counts`);
:func:`sequential_bounds_stage` turns them into the pipeline's :class:`~.certification.Bounds`.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np
from scipy.special import ndtri

from .._validate import check_int, check_prob
from ..stats import cp_lower, cp_upper, epsilon_lower_bound
from .bounds import delta_lb_at_epsilon, gdp_mu_lb
from .certification import Bounds, Counts
from .neighbours import Pair
from .plan import AuditPlan
from .selection import Selection
from .streaming import count_streamed

__all__ = ["checkpoints", "checkpoint_alpha", "SequentialOutcome", "SequentialCounts", "run_sequential",
           "sequential_certification_stage", "sequential_bounds_stage", "annotate_result", "FUTILITY_MODES"]

FUTILITY_MODES = ("plausible", "certain", None)


def checkpoints(max_samples: int, first: int = 100, growth: float = 2.0) -> np.ndarray:
    """The fixed schedule of releases per side at which the test looks: ``first``, ×``growth`` …, ``max_samples``."""
    max_samples = check_int("max_samples", max_samples, minimum=1)
    first = check_int("first", first, minimum=1)
    if not (isinstance(growth, (int, float)) and math.isfinite(growth) and growth > 1.0):
        raise ValueError(f"growth must be a finite number > 1, got {growth!r}")
    out, n = [], float(min(first, max_samples))
    while int(math.ceil(n)) < max_samples:
        v = int(math.ceil(n))
        if not out or v > out[-1]:
            out.append(v)
        n *= growth
    out.append(max_samples)
    return np.asarray(out, dtype=np.int64)


def checkpoint_alpha(alpha: float, j) -> np.ndarray | float:
    """Level of checkpoint ``j`` (1-based): ``alpha · 6 / (π² j²)``; the levels sum to at most ``alpha``."""
    j = np.asarray(j, dtype=float)
    if np.any(j < 1):
        raise ValueError("checkpoint index j must be >= 1")
    out = alpha * 6.0 / (math.pi ** 2 * j ** 2)
    return float(out) if out.ndim == 0 else out


@dataclass
class SequentialOutcome:
    """What the sequential test did: the stop reason, the releases per side used, the certified bound per event
    (running maximum over the checkpoints seen, valid at ``1 - alpha`` at the stopping time), and the history."""

    stop_reason: str
    n_per_side: int
    k_num: np.ndarray
    k_den: np.ndarray
    eps_lb: np.ndarray
    checkpoint: int
    alpha_at_stop: float
    schedule: np.ndarray
    alpha: float
    futility: str | None
    history: list = field(default_factory=list)

    def to_dict(self) -> dict:
        return {
            "stop_reason": self.stop_reason,
            "releases_per_side": int(self.n_per_side),
            "releases_used": int(2 * self.n_per_side),
            "max_samples_per_side": int(self.schedule[-1]),
            "checkpoints_used": int(self.checkpoint),
            "schedule": [int(x) for x in self.schedule],
            "alpha_per_event": self.alpha,
            "alpha_at_stop_checkpoint": self.alpha_at_stop,
            "epsilon_lb_per_event": [float(x) for x in self.eps_lb],
            "futility": self.futility,
            "history": self.history,
            "method": "Clopper-Pearson at each checkpoint j of a fixed geometric schedule at alpha*6/(pi^2 j^2) "
                      "(union bound over checkpoints, Darling & Robbins 1967): the bound holds at 1 - alpha at any "
                      "stopping time",
        }


def _projected_bound(kn, kd, n, N, a_final, delta, mode, beta):
    R = N - n
    if mode == "certain":
        return epsilon_lower_bound(kn + R, N, kd, N, a_final, delta)
    z = float(ndtri(1.0 - beta))
    u = np.asarray(cp_upper(kn, n, beta), float)
    lo = np.asarray(cp_lower(kd, n, beta), float)
    fn = np.minimum(kn + np.ceil(R * u + z * np.sqrt(R * u * (1 - u))), N)
    fd = np.maximum(kd + np.floor(R * lo - z * np.sqrt(R * lo * (1 - lo))), kd)
    return epsilon_lower_bound(fn, N, fd, N, a_final, delta)


def run_sequential(count, n_events: int, *, epsilon: float, delta: float, alpha: float, max_samples: int,
                   first: int = 100, growth: float = 2.0, futility: str | None = "plausible",
                   futility_level: float = 1e-3) -> SequentialOutcome:
    """Run the anytime-valid test on a stream; ``count(m) -> (k_num_new, k_den_new)`` draws ``m`` fresh releases
    per side and returns how many fall in each of the ``n_events`` events (oriented: numerator first).

    ``alpha`` is the level of each event (Bonferroni over events is the caller's); see the module docstring for the
    construction and the stopping rule.
    """
    n_events = check_int("n_events", n_events, minimum=1)
    alpha = check_prob("alpha", alpha)
    delta = check_prob("delta", delta, open_low=False)
    if not (math.isfinite(epsilon) and epsilon >= 0):
        raise ValueError(f"epsilon must be a finite number >= 0, got {epsilon!r}")
    if futility not in FUTILITY_MODES:
        raise ValueError(f"futility must be one of {FUTILITY_MODES}, got {futility!r}")
    futility_level = check_prob("futility_level", futility_level)
    sched = checkpoints(max_samples, first, growth)
    J = len(sched)
    a_final = checkpoint_alpha(alpha, J)
    kn = np.zeros(n_events, dtype=np.int64)
    kd = np.zeros(n_events, dtype=np.int64)
    best = np.zeros(n_events)
    n, history, reason, aj = 0, [], "max_samples", a_final
    for j, nj in enumerate(sched, start=1):
        a_num, a_den = count(int(nj - n))
        kn += np.asarray(a_num, dtype=np.int64).reshape(n_events)
        kd += np.asarray(a_den, dtype=np.int64).reshape(n_events)
        n = int(nj)
        aj = checkpoint_alpha(alpha, j)
        best = np.maximum(best, np.asarray(epsilon_lower_bound(kn, n, kd, n, aj, delta), float).reshape(n_events))
        history.append({"n_per_side": n, "epsilon_lb": float(best.max())})
        if best.max() > epsilon:
            reason = "violated"
            break
        if j < J and futility is not None:
            proj = np.asarray(_projected_bound(kn, kd, n, int(sched[-1]), a_final, delta, futility,
                                               futility_level), float)
            if proj.max() <= epsilon:
                reason = "futility"
                break
    return SequentialOutcome(reason, n, kn, kd, best, len(history), float(aj), sched, alpha, futility, history)


@dataclass
class SequentialCounts(Counts):
    """:class:`~.certification.Counts` of the main events at the stopping time, with the test's outcome."""

    outcome: SequentialOutcome | None = None


def sequential_certification_stage(plan: AuditPlan, pair: Pair, sel: Selection, rng: np.random.Generator, *,
                                   max_samples: int | None = None, first: int = 100, growth: float = 2.0,
                                   futility: str | None = "plausible",
                                   futility_level: float = 1e-3) -> SequentialCounts:
    """Certify the main events sequentially: rounds of fresh releases on both sides of ``pair`` at the checkpoints
    of :func:`checkpoints` (up to ``max_samples`` per side, default ``plan.n_samples``), stopping on a violation,
    for futility, or at the budget.  Profile events are not certified sequentially (``ValueError``)."""
    if plan.n_profile:
        raise ValueError("profile is not supported with sequential=True (certify a profile with a fixed-n audit)")
    max_samples = plan.n_samples if max_samples is None else check_int("max_samples", max_samples, minimum=10)
    ts = time.perf_counter()
    events = list(sel.main)
    orient = np.array([e.orientation for e in events])
    kw = dict(release_nbytes=sel.release_nbytes, max_memory=plan.max_memory, backend=plan.backend,
              client=plan.client)
    tot_d = np.zeros(len(events), dtype=np.int64)
    tot_dp = np.zeros(len(events), dtype=np.int64)

    def count(m):
        k_d = count_streamed(plan.mechanism, pair.d, m, events, rng, **kw)
        k_dp = count_streamed(plan.mechanism, pair.d_prime, m, events, rng, **kw)
        tot_d[:] += k_d
        tot_dp[:] += k_dp
        return np.where(orient > 0, k_d, k_dp), np.where(orient > 0, k_dp, k_d)

    out = run_sequential(count, len(events), epsilon=plan.claim.epsilon, delta=plan.claim.delta,
                         alpha=plan.a_event, max_samples=max_samples, first=first, growth=growth,
                         futility=futility, futility_level=futility_level)
    n = max(out.n_per_side, 1)
    return SequentialCounts(events, tot_d.copy(), tot_dp.copy(), out.n_per_side, out.n_per_side,
                            k_num=out.k_num, k_den=out.k_den, n_num=np.full(len(events), n),
                            n_den=np.full(len(events), n), seconds=time.perf_counter() - ts, outcome=out)


def sequential_bounds_stage(plan: AuditPlan, sel: Selection, c: SequentialCounts) -> Bounds:
    """The pipeline's :class:`Bounds` from the sequential test: ``eps_lb`` is the test's bound (running maximum,
    valid at the stopping time); the derived statements (pure ε, CP bounds, δ at the claimed ε, GDP μ) use the
    stopping checkpoint's two CP intervals at ``alpha_at_stop`` and so hold together with it."""
    o = c.outcome
    i = int(np.argmax(o.eps_lb))
    kn, kd, n, a = int(o.k_num[i]), int(o.k_den[i]), max(o.n_per_side, 1), o.alpha_at_stop
    eps_lb = float(o.eps_lb[i])
    pure = eps_lb if plan.claim.delta == 0 else max(eps_lb, float(epsilon_lower_bound(kn, n, kd, n, a, 0.0)))
    point = math.inf if kd == 0 and kn > 0 else (math.log(kn / kd) if kn > 0 and kd > 0 else 0.0)
    return Bounds(index=i, eps_main=np.asarray(o.eps_lb, float), eps_lb=eps_lb, pure=pure,
                  cp_lo=float(cp_lower(kn, n, a / 2)), cp_hi=float(cp_upper(kd, n, a / 2)),
                  delta_at_claim=float(delta_lb_at_epsilon(kn, n, kd, n, a, plan.claim.epsilon)),
                  mu_lb=float(gdp_mu_lb(kn, n, kd, n, a)), point=point, profile=None)


def annotate_result(result, c: SequentialCounts):
    """Mark an :class:`~.result.AuditResult` as sequential: ``details["sequential"]`` (stop reason, releases used,
    schedule, history) and the per-side sizes and method that the fixed-n assembly filled in."""
    o = c.outcome
    d = result.details
    d["sequential"] = o.to_dict()
    d.setdefault("counts", {})["n_per_side"] = int(o.n_per_side)
    d["counts"]["method"] = "cp-sequential"
    d.setdefault("samples", {})["n_certify_per_side"] = int(o.n_per_side)
    d["certification_method"] = {"chosen": "cp-sequential", "note": d["sequential"]["method"]}
    for e in d.get("certified_events", []):
        e["method"] = "cp-sequential"
    result.summary += f"; sequential: {o.stop_reason} after {o.n_per_side} releases per side"
    return result
