"""A sequential audit end to end: search, selection and certification in rounds of growing size.

:func:`rounds_audit` (what ``audit(..., sequential=True)`` runs) repeats, for rounds ``k = 0, 1, 2, ...``:

1. **search** (several pairs only) on ``n_search_k`` fresh releases per side, and **selection** of the event(s) on
   ``s_k`` fresh releases per side of the kept pair, ``s_k = first_select · growth^k`` (default 250, or a quarter
   of the plan's ``n_select`` if smaller, at least :data:`MIN_ROUND`; ×4 per round);
2. **certification** of the round's event(s) on fresh releases with the anytime-valid test of
   :func:`~.engine.run_sequential` at level ``α_k = α · 2^-(k+1)`` (Bonferroni over the ``n_certify`` events inside
   the round; the last round, which takes what is left of the budget, certifies at all the α left unspent,
   ``α − Σ_{j<k} α_j``), at most ``certify_ratio · s_k`` releases per side; it stops for a violation or for
   futility.  When the selection releases already show that the event cannot refute the claim at that size
   (``_hopeless``: an optimistic projection of the selection proportions, as the futility rule of :mod:`.engine`
   does), the round draws no certification release at all.

The audit stops at the first round that certifies a violation; a round that ends without one (futility or its
certification budget spent) hands over to the next, larger one; it stops for good when the total budget
``max_samples`` (releases per side over every stage and round; default what the fixed-n audit would draw: its
search, selection and ``n_samples``) is spent.  A round that would leave less than its own size for the rounds after
it is the last and takes all that is left.

The fixed split (:meth:`RoundsDesign.fixed_split`, what the registered checks of per-call estimators run) is one
round on the plan's own sizes: the fixed-n audit's search and selection, then the anytime-valid certification of
at most ``n_samples`` releases per side at the full α, stopping at the first certified violation or for futility.
It saves certification releases only, and never loses an event that the fixed-n selection would find.

Why an audit stopped (``details["sequential"]["stop_reason"]``, one of :data:`STOP_REASONS`): ``"violated"``,
``"futility"`` (the last round's test stopped for futility, or its selection releases already ruled a violation
out) or ``"budget"`` (``max_samples`` spent).  ``details["sequential"]`` also records the releases used and planned
and what the fixed-n audit of the same plan would draw, and ``point_estimate``: the certified event's log
probability ratio on its certification releases at the stop, a point estimate of the leak's size (never a bound).

Validity.  Round ``k``'s event, its sizes and its bets are fixed by the releases drawn before its certification
releases, which are fresh and independent of them; given everything before it, its test wrongly rejects a claim
that holds (or certifies a bound above the event's true privacy loss) with probability at most ``α_k`` (Ville's
inequality for the betting test, the checkpoint union bound for ``method="union"``).  By the union bound over
rounds (their certification samples are independent, and the conditional levels add up; each ``α_k`` is fixed
before round ``k``'s certification releases, and the ledger never lets them add up to more than α, so the last
round may take what the earlier ones left), ``P(some round errs) ≤ Σ_k α_k ≤ α``: every round's statement, and
so the verdict and the largest certified bound, hold together at ``1 − α`` whatever the number of rounds and
wherever the audit stops.  The printed ε lower bound
is the largest bound certified by any round; ``details["sequential"]`` says which round and at which ``α_k`` it was
certified.  The bets of a round start from pseudo-counts of its own selection releases (drawn before the
certification stream: the bets stay predictable).

The schedule of rounds follows the usual doubling-trick argument for unknown effect sizes: the cost to the first
violation is within a constant factor of that of the round whose size suffices, and the α of round ``k`` shrinks
only geometrically, which costs ``log 2`` of log-wealth per round (Howard, Ramdas, McAuliffe & Sekhon 2021,
"Time-uniform, nonparametric, nonasymptotic confidence sequences", Ann. Statist. 49, use the same geometric
allocation of α over epochs for stitching).
"""

from __future__ import annotations

import dataclasses
import math
import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..._validate import check_int, check_prob
from ...stats import Budget, cp_lower, cp_upper, epsilon_lower_bound
from ..plan import AuditPlan
from ..result import AuditResult
from ..selection import SearchOutcome, Selection, search_stage, selection_stage
from ..verdict import assemble_result, verdict_stage
from .engine import FUTILITY_MODES, METHOD_NOTES, METHODS, SequentialOutcome
from .stages import SequentialCounts, sequential_bounds_stage, sequential_certification_stage

__all__ = ["RoundsDesign", "as_design", "round_alpha", "rounds_audit", "MIN_ROUND", "STOP_REASONS"]

#: fewest releases per side a round selects on, and fewest it may certify on
MIN_ROUND = 20

#: why a sequential audit stopped (``details["sequential"]["stop_reason"]``): a certified violation; futility (its
#: last round's test, or its selection releases, ruled a violation out before the budget was spent); the budget
#: ``max_samples`` spent
STOP_REASONS = ("violated", "futility", "budget")


def round_alpha(alpha: float, k: int) -> float:
    """Level of round ``k`` (0-based): ``alpha · 2^-(k+1)``; the levels of all rounds sum to less than ``alpha``.

    Parameters
    ----------
    alpha : float
        The audit's family-wise level.
    k : int
        The round (0-based).

    Returns
    -------
    float
        The round's level.
    """
    k = check_int("k", k, minimum=0)
    return float(alpha) * 0.5 ** (k + 1)


@dataclass(frozen=True)
class RoundsDesign:
    """How a sequential audit spends its releases: the round sizes, the test inside a round, its futility rule.

    Parameters
    ----------
    method : str, default "betting"
        The certification test inside a round (``"betting"`` or ``"union"``, see :mod:`.engine`).
    first_select : int, optional
        Selection releases per side of round 0 (default ``min(250, max(MIN_ROUND, plan.n_select // 4))``).
    growth : float, default 4.0
        Factor by which the selection (and so the whole round) grows from one round to the next.
    certify_ratio : float, default 4.0
        Most certification releases per side of a round, as a multiple of its selection releases (the fixed-n
        default selects on a quarter of the certification size).
    search_ratio : float, default 0.5
        Search releases per pair and side of a round, as a multiple of its selection releases (at least 20).
    futility : str or None, default "plausible"
        Futility rule inside a round (see :mod:`.engine`); also used to skip a round's certification when its
        selection releases already rule a violation out.  ``None``: never.
    futility_level : float, default 0.001
        Level of the futility rules.
    prior_weight : int, default 100
        Most selection releases per side the bets of a round start from (pseudo-counts).
    single_round : bool, default False
        One round on the plan's own sizes instead of growing rounds: the search and selection of the fixed-n
        audit, then a certification of at most ``max_samples`` minus them (default the plan's ``n_samples``)
        that stops early, at the full α (the round sizes and ratios above are then unused).  Build it with
        :meth:`fixed_split`.
    spend_rest : bool, default True
        The last round (the one that takes what is left of ``max_samples``) certifies at all the α the earlier
        rounds left unspent, ``α − Σ_{j<k} α_j ≥ α·2^-k``, instead of ``α·2^-(k+1)``; ``False``: the geometric
        level.
    """

    method: str = "betting"
    first_select: int | None = None
    growth: float = 4.0
    certify_ratio: float = 4.0
    search_ratio: float = 0.5
    futility: str | None = "plausible"
    futility_level: float = 1e-3
    prior_weight: int = 100
    single_round: bool = False
    spend_rest: bool = True

    @classmethod
    def fixed_split(cls, **options: Any) -> RoundsDesign:
        """The fixed-n audit's own split, with a certification that stops early: one round whose search and
        selection are exactly the plan's (the ``n_search`` and ``n_select`` given to ``audit``, or their defaults),
        then the anytime-valid test of :mod:`.engine` on at most ``max_samples − search − selection`` releases
        per side (default: the plan's ``n_samples``), stopping at the first certified violation or for futility.

        The design for per-call estimators (a release costs milliseconds): it keeps the fixed-n audit's event
        search whole (the growing rounds of the default design select on a quarter of it in their first round
        and can miss an event only the full selection finds) and saves only certification releases.  With one
        round there is no α to split between rounds: the test runs at the audit's full α (Bonferroni over
        ``n_certify`` events as usual).  Its certified bound at a violation sits just above the claim (the test
        stops as soon as the claim is refuted); ``details["sequential"]["point_estimate"]`` shows the size of
        the leak as a point estimate.

        Parameters
        ----------
        **options
            Other :class:`RoundsDesign` fields (``method``, ``futility``, ``futility_level``, ``prior_weight``).

        Returns
        -------
        RoundsDesign
            The design (``single_round=True``).
        """
        for k in ("first_select", "growth", "certify_ratio", "search_ratio", "single_round"):
            if k in options:
                raise ValueError(f"{k} is set by fixed_split (the plan's own sizes), got {k}={options[k]!r}")
        return cls(single_round=True, **options)

    def __post_init__(self):
        if self.method not in METHODS:
            raise ValueError(f"method must be one of {METHODS}, got {self.method!r}")
        if self.first_select is not None:
            check_int("first_select", self.first_select, minimum=MIN_ROUND)
        for name, lo in (("growth", 1.0), ("certify_ratio", 0.0), ("search_ratio", 0.0)):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or v <= lo:
                raise ValueError(f"{name} must be a finite number > {lo:g}, got {v!r}")
        if self.futility not in FUTILITY_MODES:
            raise ValueError(f"futility must be one of {FUTILITY_MODES}, got {self.futility!r}")
        check_prob("futility_level", self.futility_level)
        check_int("prior_weight", self.prior_weight, minimum=0)
        for name in ("single_round", "spend_rest"):
            if not isinstance(getattr(self, name), bool):
                raise ValueError(f"{name} must be a bool, got {getattr(self, name)!r}")


def as_design(sequential: Any) -> RoundsDesign:
    """The :class:`RoundsDesign` an ``audit(sequential=...)`` argument stands for: ``True`` (betting),
    ``"betting"``, ``"union"``, ``"fixed_split"`` (:meth:`RoundsDesign.fixed_split`) or a :class:`RoundsDesign`.

    Parameters
    ----------
    sequential : bool, str or RoundsDesign
        The argument.

    Returns
    -------
    RoundsDesign
        The design.
    """
    if isinstance(sequential, RoundsDesign):
        return sequential
    if sequential is True:
        return RoundsDesign()
    if isinstance(sequential, str) and sequential in METHODS:
        return RoundsDesign(method=sequential)
    if sequential == "fixed_split":
        return RoundsDesign.fixed_split()
    raise ValueError(
        f"sequential must be False, True, 'fixed_split', a method name in {METHODS} or a RoundsDesign, "
        f"got {sequential!r}"
    )


def _round_sizes(design: RoundsDesign, s: float, n_pairs: int) -> tuple[int, int, int]:
    """(search per side over all pairs, selection per side, certification budget per side) of a round of
    selection size ``s``."""
    sel = max(MIN_ROUND, int(round(s)))
    search = n_pairs * max(MIN_ROUND, int(round(design.search_ratio * sel))) if n_pairs > 1 else 0
    return search, sel, max(MIN_ROUND, int(round(design.certify_ratio * sel)))


def _fit_last(design: RoundsDesign, rem: int, n_pairs: int) -> tuple[int, int, int] | None:
    """Round sizes that spend ``rem`` releases per side in the same proportions (``None``: too few left)."""
    search_share = n_pairs * design.search_ratio if n_pairs > 1 else 0.0
    s = rem / (1.0 + design.certify_ratio + search_share)
    search, sel, cert = _round_sizes(design, s, n_pairs)
    cert = rem - search - sel
    if cert < MIN_ROUND:
        return None
    return search, sel, cert


def _props(sel: Selection) -> tuple[np.ndarray, np.ndarray, int]:
    """Selection proportions (numerator, denominator) of the main events and the releases per side behind them
    (the held-out part when several attacks were re-scored on it)."""
    n = int(sel.n_per_side)
    n_eff = n - (2 * n) // 3 if len(sel.attacks) > 1 else n
    pn = np.array([float(e.sel_props[0]) for e in sel.main])
    pd = np.array([float(e.sel_props[1]) for e in sel.main])
    return pn, pd, max(n_eff, 1)


def _hopeless(plan_k: AuditPlan, sel: Selection, design: RoundsDesign) -> bool:
    """Whether even an optimistic reading of the selection releases (upper confidence limit of the numerator's
    probability, lower of the denominator's, at ``futility_level``) leaves every main event's bound at the round's
    certification size at or below the claim; unknown proportions are never hopeless."""
    if design.futility is None:
        return False
    pn, pd, n = _props(sel)
    if not (np.all(np.isfinite(pn)) and np.all(np.isfinite(pd))):
        return False
    b = design.futility_level
    u = np.asarray(cp_upper(np.round(pn * n), n, b), float)
    lo = np.asarray(cp_lower(np.round(pd * n), n, b), float)
    N = plan_k.n_samples
    proj = np.asarray(
        epsilon_lower_bound(np.ceil(u * N), N, np.floor(lo * N), N, plan_k.a_event, plan_k.claim.delta), float
    )
    return bool(proj.max() <= plan_k.claim.epsilon)


def _prior(sel: Selection, design: RoundsDesign) -> tuple | None:
    pn, pd, n = _props(sel)
    w = min(n, design.prior_weight)
    if w == 0 or not (np.all(np.isfinite(pn)) and np.all(np.isfinite(pd))):
        return None
    return np.round(pn * w), np.round(pd * w), w


def _empty_counts(sel: Selection, plan_k: AuditPlan) -> SequentialCounts:
    """Counts of a round whose certification was skipped: nothing drawn, nothing certified."""
    m = len(sel.main)
    z = np.zeros(m, dtype=np.int64)
    out = SequentialOutcome(
        "futility",
        0,
        z.copy(),
        z.copy(),
        np.zeros(m),
        0,
        plan_k.a_event,
        np.asarray([plan_k.n_samples], dtype=np.int64),
        plan_k.a_event,
        None,
        [],
        "betting",
    )
    ones = np.ones(m, dtype=np.int64)
    return SequentialCounts(list(sel.main), z.copy(), z.copy(), 0, 0, z.copy(), z.copy(), ones, ones, 0.0, out)


def _plan_sizes(plan: AuditPlan, max_samples: int) -> tuple[int, int, int]:
    """Sizes of the single round of :meth:`RoundsDesign.fixed_split`: the plan's search and selection, and what
    ``max_samples`` leaves for certification."""
    search = plan.n_search if plan.searching else 0
    cert = max_samples - search - plan.n_select
    if cert < MIN_ROUND:
        raise ValueError(
            f"max_samples={max_samples} per side leaves {cert} certification releases per side after the plan's "
            f"search ({search}) and selection ({plan.n_select}); at least {MIN_ROUND} are needed"
        )
    return search, plan.n_select, cert


def _round_plan(
    plan: AuditPlan, sizes: tuple[int, int, int], a_k: float, ledger: Budget, own_split: bool = False
) -> AuditPlan:
    search, sel, cert = sizes
    a_event = a_k / plan.n_certify
    return dataclasses.replace(
        plan,
        n_samples=cert,
        n_select=sel,
        n_select_given=plan.n_select_given if own_split else False,
        n_search=max(search, MIN_ROUND * len(plan.pairs)),
        n_search_given=True,
        a_event=a_event,
        budget=ledger,
        ctx=dataclasses.replace(plan.ctx, n_final=cert, alpha=a_event),
    )


def rounds_audit(
    plan: AuditPlan,
    rng: np.random.Generator,
    *,
    max_samples: int | None = None,
    design: RoundsDesign | None = None,
    t0: float | None = None,
) -> AuditResult:
    """Run the audit of ``plan`` in rounds (see the module docstring) and return its :class:`AuditResult`.

    Parameters
    ----------
    plan : AuditPlan
        The audit's plan (no profile: ``ValueError``).
    rng : numpy.random.Generator
        The generator every release is drawn from.
    max_samples : int, optional
        Most releases per side over every stage and round (default: what the fixed-n audit of ``plan`` draws
        per side, its search, ``n_select`` and ``n_samples``).
    design : RoundsDesign, optional
        Round sizes and the test inside a round (default :class:`RoundsDesign` ()).
    t0 : float, optional
        ``time.perf_counter()`` at the start of the audit (for the reported wall time).

    Returns
    -------
    AuditResult
        The result; ``details["sequential"]`` has the rounds (sizes, α, releases per stage, stop), the stop
        reason (one of :data:`STOP_REASONS`), the releases used and planned, the fixed-n audit's size and the
        point estimate of the event's log ratio; ``n_samples`` the releases drawn in all (both sides, every stage
        and round).
    """
    t0 = time.perf_counter() if t0 is None else t0
    design = RoundsDesign() if design is None else design
    if plan.n_profile:
        raise ValueError("profile is not supported with sequential=True (certify a profile with a fixed-n audit)")
    default_total = (plan.n_search if plan.searching else 0) + plan.n_select + plan.n_samples
    max_samples = default_total if max_samples is None else check_int("max_samples", max_samples, minimum=50)
    n_pairs = len(plan.pairs)
    s = float(design.first_select or min(250, max(MIN_ROUND, plan.n_select // 4)))
    ledger = Budget(plan.alpha)
    used = 0  # releases per side so far, every stage
    rounds: list[dict] = []
    kept: list[tuple] = []  # (plan_k, search, selection, counts, bounds) per round
    stop = "budget"
    k = 0
    while True:
        rem = max_samples - used
        if design.single_round:  # the plan's own split, one round at the full alpha
            sizes, last, a_k = _plan_sizes(plan, rem), True, plan.alpha
            spend_note = f"the only round: certify {plan.n_certify} event(s) at the full alpha, Bonferroni"
        else:
            sizes = _round_sizes(design, s, n_pairs)
            # the last round takes what is left: when this round does not fit, or what it would leave is less
            # than its own size (too little for a round of its own)
            last = 2 * sum(sizes) > rem
            if last:
                fitted = _fit_last(design, rem, n_pairs)
                if fitted is None:
                    break
                sizes = fitted
            a_k = round_alpha(plan.alpha, k)
            spend_note = f"round {k}: certify {plan.n_certify} event(s), alpha * 2^-{k + 1}, Bonferroni"
            if last and design.spend_rest and ledger.remaining > a_k:
                # the last round: no round comes after it, so it may spend all the alpha the earlier rounds left
                a_k = ledger.remaining
                spend_note = f"round {k} (the last): certify {plan.n_certify} event(s) at the alpha left, Bonferroni"
        plan_k = _round_plan(plan, sizes, a_k, ledger, own_split=design.single_round)
        search: SearchOutcome = search_stage(plan_k, rng)
        sel = selection_stage(plan_k, search.pair, rng)
        skipped = _hopeless(plan_k, sel, design)
        if skipped:
            counts = _empty_counts(sel, plan_k)
        else:
            ledger.spend(spend_note, a_k)
            n_cert = plan_k.n_samples
            counts = sequential_certification_stage(
                plan_k,
                search.pair,
                sel,
                rng,
                max_samples=n_cert,
                method=design.method,
                first=10 if design.method == "betting" else max(20, n_cert // 8),
                growth=1.5 if design.method == "betting" else 2.0,
                futility=design.futility,
                futility_level=design.futility_level,
                prior=_prior(sel, design) if design.method == "betting" else None,
            )
        bounds = sequential_bounds_stage(plan_k, sel, counts)
        o = counts.outcome
        assert o is not None
        per_side = (search.drawn + sel.drawn) // 2 + o.n_per_side
        used += per_side
        rounds.append(
            {
                "round": k,
                "alpha": a_k,
                "alpha_per_event": plan_k.a_event,
                "search_per_side": search.drawn // 2,
                "select_per_side": sel.drawn // 2,
                "certify_budget_per_side": plan_k.n_samples,
                "certify_used_per_side": int(o.n_per_side),
                "certification": "skipped (selection rules a violation out)" if skipped else o.stop_reason,
                "epsilon_lb": float(bounds.eps_lb),
                "event": sel.main[bounds.index].describe(),
                "pair": search.pair.describe(),
                "releases": int(2 * per_side),
            }
        )
        kept.append((plan_k, search, sel, counts, bounds))
        if bounds.eps_lb > plan.claim.epsilon:
            stop = "violated"
            break
        if last:
            stop = "futility" if skipped or o.stop_reason == "futility" else "budget"
            break
        s *= design.growth
        k += 1
    if not kept:
        raise ValueError(
            f"max_samples={max_samples} per side is too small for one round "
            f"(at least {sum(_round_sizes(design, MIN_ROUND, n_pairs))} needed)"
        )
    best = max(range(len(kept)), key=lambda i: (kept[i][4].eps_lb, i))
    plan_b, search_b, sel_b, counts_b, bounds_b = kept[best]
    verdict = verdict_stage(plan_b, bounds_b, counts_b)
    result = assemble_result(
        plan_b, search_b, sel_b, counts_b, bounds_b, verdict, seconds=time.perf_counter() - t0, rng=rng
    )
    totals = {"max_samples": int(max_samples), "fixed_n": int(default_total)}
    return _annotate(result, plan, design, rounds, best, stop, totals, counts_b, bounds_b)


def _point_estimate(counts: SequentialCounts, bounds: Any) -> dict:
    """The certified event's log probability ratio estimated from its certification counts at the stop (a point
    estimate, not a bound)."""
    o = counts.outcome
    assert o is not None
    i = int(bounds.index)
    n = int(o.n_per_side)
    kn, kd = (int(o.k_num[i]), int(o.k_den[i])) if n else (0, 0)
    return {
        "log_ratio": float(bounds.point),
        "numerator": kn,
        "denominator": kd,
        "n_per_side": n,
        "note": "log(numerator / denominator) of the certified event on its certification releases at the stop: a "
        "point estimate of the size of the leak, NOT a bound (no confidence attached; biased upwards when the "
        "test stopped at its first certified violation); the certified statement is epsilon_lb",
    }


def _annotate(result, plan, design, rounds, best, stop, sizes, counts_b, bounds_b) -> AuditResult:
    max_samples, fixed_n = sizes["max_samples"], sizes["fixed_n"]
    o = counts_b.outcome
    total = sum(r["releases"] for r in rounds)
    by_stage = {
        "search": 2 * sum(r["search_per_side"] for r in rounds),
        "selection": 2 * sum(r["select_per_side"] for r in rounds),
        "certification": 2 * sum(r["certify_used_per_side"] for r in rounds),
    }
    rb = rounds[best]
    d = result.details
    if design.single_round:
        validity = (
            "one round on the plan's own search and selection; its certification releases are fresh and its "
            "anytime-valid test runs at the full alpha: the bound holds at 1 - alpha at the stopping time"
        )
    else:
        validity = (
            "round k certifies on fresh releases at alpha_k = alpha * 2^-(k+1), its event, sizes and bets fixed by "
            "earlier releases; union bound over rounds: all rounds' statements hold together at 1 - alpha"
        )
    d["sequential"] = {
        "stop_reason": stop,
        "design_name": "fixed split: one round on the fixed-n audit's sizes"
        if design.single_round
        else "growing rounds",
        "rounds": rounds,
        "rounds_used": len(rounds),
        "releases_used": int(total),
        "releases_per_side": int(total // 2),
        "releases_used_per_side": {"D": int(total // 2), "D'": int(total // 2)},
        "releases_planned": int(2 * max_samples),
        "fixed_n_releases": int(2 * fixed_n),
        "fixed_n_note": "what the fixed-n audit of the same plan draws on average (search, n_select and "
        "Poisson(n_samples) per side, both sides)",
        "releases_by_stage": by_stage,
        "max_samples_per_side": int(max_samples),
        "point_estimate": _point_estimate(counts_b, bounds_b),
        "alpha_per_round": [r["alpha"] for r in rounds],
        "epsilon_lb_round": int(best),
        "epsilon_lb_alpha": rb["alpha"],
        "epsilon_lb_per_event": [float(x) for x in o.eps_lb],
        "within_round": o.to_dict(),
        "method": METHOD_NOTES[design.method],
        "design": dataclasses.asdict(design),
        "validity": validity,
    }
    d.setdefault("counts", {})["n_per_side"] = int(o.n_per_side)
    tag = f"sequential-rounds-{design.method}"
    d["counts"]["method"] = tag
    d["certification_method"] = {"chosen": tag, "note": METHOD_NOTES[design.method]}
    for e in d.get("certified_events", []):
        e["method"] = tag
    samples = d.setdefault("samples", {})
    samples.update(
        {
            "n_search_per_side": by_stage["search"] // 2,
            "n_select_per_side": by_stage["selection"] // 2,
            "n_certify_per_side": by_stage["certification"] // 2,
            "total_releases": int(total),
        }
    )
    det = d.get("detectability")
    if isinstance(det, dict):
        det["statement"] = (
            f"sequential audit in rounds: {len(rounds)} round(s), {total} releases in all (both sides) of at most "
            f"{2 * max_samples}; the certified bound comes from round {best} (alpha_k = {rb['alpha']:.3g}, "
            f"{rb['certify_used_per_side']} certification releases per side); max_certifiable_epsilon is that "
            f"round's at its certification budget"
        )
    result.n_samples = int(total)
    if design.single_round:
        result.summary += (
            f"; sequential (fixed split): stopped ({stop}) after {total} of {2 * max_samples} planned releases "
            f"(search {by_stage['search']}, selection {by_stage['selection']}, certification "
            f"{by_stage['certification']}); the bound holds at {1 - plan.alpha:.4g} at the stop"
        )
    else:
        result.summary += (
            f"; sequential rounds: {stop} after {len(rounds)} round(s), {total} releases in all (search "
            f"{by_stage['search']}, selection {by_stage['selection']}, certification {by_stage['certification']}); "
            f"the bound is round {best}'s at alpha_k = {rb['alpha']:.3g}, all rounds together at "
            f"{1 - plan.alpha:.4g}"
        )
    return result
