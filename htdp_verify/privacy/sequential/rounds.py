"""A sequential audit end to end: search, selection and certification in rounds of growing size.

:func:`rounds_audit` (what ``audit(..., sequential=True)`` runs) repeats, for rounds ``k = 0, 1, 2, ...``:

1. **search** (several pairs only) on ``n_search_k`` fresh releases per side, and **selection** of the event(s) on
   ``s_k`` fresh releases per side of the kept pair, ``s_k = first_select · growth^k`` (default 250, or a quarter
   of the plan's ``n_select`` if smaller, at least :data:`~.design.MIN_ROUND`; ×4 per round); the search's best
   events on the kept pair join the selection's candidates (``seed_events``), and with ``halve_pairs`` round ``k + 1``
   searches only the better half of the pairs round ``k`` ranked (successive halving over rounds);
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

The fixed split (:meth:`~.design.RoundsDesign.fixed_split`) is one round on the plan's own sizes: the fixed-n
audit's search and selection, then the anytime-valid certification of at most ``n_samples`` releases per side at
the full α, stopping at the first certified violation or for futility.  It saves certification releases only, and
never loses an event that the fixed-n selection would find.  With ``probe``
(:meth:`~.design.RoundsDesign.per_call`, the design of the estimator checks for expensive estimators) a small round
0 (1 % of the fixed-n budget, between 20 and 200 releases per side, unless ``first_select`` is given)
at a share of α (``probe_share``) comes first, and the fixed split follows at the α left only when the probe did
not certify a violation.  The probe draws from a stream of its own (``_probe_stream``), so the split after it sees
the very releases the fixed split would: it finds what the fixed split finds, but at the α left and with at least its
certification budget.

Why an audit stopped (``details["sequential"]["stop_reason"]``, one of :data:`~.design.STOP_REASONS`): ``"violated"``,
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
import time

import numpy as np

from ..._validate import check_int
from ...stats import Budget, cp_lower, cp_upper, epsilon_lower_bound
from ..plan import AuditPlan
from ..result import AuditResult
from ..selection import SearchOutcome, Selection, search_stage, selection_stage
from ..verdict import assemble_result, verdict_stage
from .annotate import annotate_rounds
from .design import MIN_ROUND, PROBE_MAX_SELECT, RoundsDesign, round_alpha
from .engine import SequentialOutcome
from .stages import SequentialCounts, sequential_bounds_stage, sequential_certification_stage

__all__ = ["rounds_audit"]


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
    return SequentialCounts(list(sel.main), z.copy(), z.copy(), 0, 0, z.copy(), z.copy(), ones, ones, 0.0, outcome=out)


def _plan_sizes(plan: AuditPlan, max_samples: int) -> tuple[int, int, int]:
    """Sizes of the single round of :meth:`~.design.RoundsDesign.fixed_split`: the plan's search and selection, and what
    ``max_samples`` leaves for certification."""
    search = plan.n_search if plan.searching else 0
    cert = max_samples - search - plan.n_select
    if cert < MIN_ROUND:
        need = search + plan.n_select + MIN_ROUND
        raise ValueError(
            f"max_samples={max_samples} per side is too small for this design: the plan's search ({search}) and "
            f"selection ({plan.n_select}) plus at least {MIN_ROUND} certification releases need {need} per side; "
            f"pass max_samples >= {need} or a smaller n_select / n_search"
        )
    return search, plan.n_select, cert


def _probe_fits(design: RoundsDesign, plan: AuditPlan, max_samples: int, s: float) -> bool:
    """Whether a probe round of selection size ``s`` leaves the plan's own split (its search and selection) at
    least half the plan's ``n_samples`` to certify within ``max_samples``."""
    probe = sum(_round_sizes(design, s, len(plan.pairs)))
    search = plan.n_search if plan.searching else 0
    return max_samples - probe - search - plan.n_select >= max(MIN_ROUND, plan.n_samples / 2)


def _survivors(active: list, search: SearchOutcome) -> list:
    """The better half (rounded up) of ``active`` in the search's ranking (``search.table``, best first); all of
    them when the ranking cannot be matched to the pairs (two pairs with the same description)."""
    by_text = {p.describe(): p for p in active}
    ranked = [by_text.get(row["pair"]) for row in search.table]
    if len(by_text) != len(active) or len(ranked) != len(active) or any(p is None for p in ranked):
        return active
    return ranked[: (len(active) + 1) // 2]


def _round_plan(
    plan: AuditPlan,
    sizes: tuple[int, int, int],
    a_k: float,
    ledger: Budget,
    own_split: bool = False,
    pairs: list | None = None,
) -> AuditPlan:
    search, sel, cert = sizes
    a_event = a_k / plan.n_certify
    pairs = list(plan.pairs) if pairs is None else pairs
    return dataclasses.replace(
        plan,
        pairs=pairs,
        n_samples=cert,
        n_select=sel,
        n_select_given=plan.n_select_given if own_split else False,
        n_search=max(search, MIN_ROUND * len(pairs)),
        n_search_given=True,
        a_event=a_event,
        budget=ledger,
        ctx=dataclasses.replace(plan.ctx, n_final=cert, alpha=a_event),
    )


def _plan_as_fixed_split(plan: AuditPlan, plan_k: AuditPlan, fixed_max: int) -> AuditPlan:
    """``plan_k`` (the split after a probe) choosing its pair and events as :meth:`~.design.RoundsDesign.fixed_split`
    would: predictions at the fixed split's certification size and α, not at this round's larger budget and the α
    the probe left.  Only the choice uses them (a choice may use any size and level); the certification keeps this
    round's budget and α."""
    search = plan.n_search if plan.searching else 0
    n_final = fixed_max - search - plan.n_select
    if n_final < MIN_ROUND:
        return plan_k
    ctx = dataclasses.replace(plan_k.ctx, n_final=n_final, alpha=plan.alpha / plan.n_certify)
    return dataclasses.replace(plan_k, ctx=ctx)


def _probe_stream(rng: np.random.Generator) -> np.random.Generator:
    """The generator of the probe round: a stream of its own, so the split after the probe draws exactly the
    releases :meth:`~.design.RoundsDesign.fixed_split` would draw from ``rng`` (same search, same selection, same
    certification stream), whatever the probe drew.  ``rng`` is left untouched: the bit generator's ``jumped()``
    copy (PCG64, Philox, MT19937: a stream ``2^127``-odd draws ahead), else a ``spawn``-ed child; a bit generator
    with neither shares ``rng`` (the probe then shifts the split's releases)."""
    bg = rng.bit_generator
    jumped = getattr(bg, "jumped", None)
    if jumped is not None:
        return np.random.Generator(jumped())
    try:
        return rng.spawn(1)[0]
    except (AttributeError, TypeError, ValueError):
        return rng


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
        Round sizes and the test inside a round (default :class:`~.design.RoundsDesign` ()).
    t0 : float, optional
        ``time.perf_counter()`` at the start of the audit (for the reported wall time).

    Returns
    -------
    AuditResult
        The result; ``details["sequential"]`` has the rounds (sizes, α, releases per stage, stop), the stop
        reason (one of :data:`~.design.STOP_REASONS`), the releases used and planned, the fixed-n audit's size and the
        point estimate of the event's log ratio; ``n_samples`` the releases drawn in all (both sides, every stage
        and round).
    """
    t0 = time.perf_counter() if t0 is None else t0
    design = RoundsDesign() if design is None else design
    if plan.n_profile:
        raise ValueError("profile is not supported with sequential=True (certify a profile with a fixed-n audit)")
    default_total = (plan.n_search if plan.searching else 0) + plan.n_select + plan.n_samples
    if design.first_select is not None:
        s = float(design.first_select)
    elif design.probe:  # the probe's selection: 1 % of the fixed-n budget, between MIN_ROUND and PROBE_MAX_SELECT
        s = float(min(PROBE_MAX_SELECT, max(MIN_ROUND, default_total // 100)))
    else:
        s = float(min(250, max(MIN_ROUND, plan.n_select // 4)))
    # the budget the fixed split of this call would have (without a probe on top): the split after a probe plans
    # (ranks pairs, chooses events) as that fixed split does, so both choose alike on the same releases
    fixed_max = default_total if max_samples is None else max_samples
    if max_samples is None:
        max_samples = default_total
        if design.probe and design.probe_extra:  # the probe on top of the fixed-n budget
            max_samples += sum(_round_sizes(design, s, len(plan.pairs)))
    else:
        max_samples = check_int("max_samples", max_samples, minimum=50)
    probe_rng = _probe_stream(rng) if design.probe else rng
    active = list(plan.pairs)  # the pairs still searched (successive halving over rounds: halve_pairs)
    ledger = Budget(plan.alpha)
    used = 0  # releases per side so far, every stage
    rounds: list[dict] = []
    kept: list[tuple] = []  # (plan_k, search, selection, counts, bounds) per round
    stop = "budget"
    k = 0
    while True:
        rem = max_samples - used
        split = design.single_round or (design.probe and (k > 0 or not _probe_fits(design, plan, max_samples, s)))
        if split:  # the plan's own split: the only round (full alpha) or the one after the probe (the alpha left)
            sizes, last, a_k = _plan_sizes(plan, rem), True, plan.alpha if k == 0 else ledger.remaining
            spend_note = f"round {k}, the plan's own split: certify {plan.n_certify} event(s) at the alpha left"
        else:
            n_pairs = len(active)
            sizes = _round_sizes(design, s, n_pairs)
            # the last round takes what is left: when this round does not fit, or what it would leave is less
            # than its own size (too little for a round of its own)
            last = 2 * sum(sizes) > rem and not design.probe  # a probe always fits (_probe_fits)
            if last:
                fitted = _fit_last(design, rem, n_pairs)
                if fitted is None:
                    break
                sizes = fitted
            a_k = plan.alpha * design.probe_share if design.probe else round_alpha(plan.alpha, k)
            spend_note = f"round {k}: certify {plan.n_certify} event(s), alpha * 2^-{k + 1}, Bonferroni"
            if design.probe:
                spend_note = f"round {k} (probe): certify {plan.n_certify} event(s) at alpha * {design.probe_share:g}"
            if last and design.spend_rest and ledger.remaining > a_k:
                # the last round: no round comes after it, so it may spend all the alpha the earlier rounds left
                a_k = ledger.remaining
                spend_note = f"round {k} (the last): certify {plan.n_certify} event(s) at the alpha left, Bonferroni"
        plan_k = _round_plan(plan, sizes, a_k, ledger, own_split=split, pairs=list(plan.pairs) if split else active)
        probing = design.probe and not split
        r_k = probe_rng if probing else rng
        if split and k > 0:
            plan_k = _plan_as_fixed_split(plan, plan_k, fixed_max)
        if probing and plan_k.ctx.rng is not None:  # the attacks' own draws (random projections) too
            plan_k = dataclasses.replace(plan_k, ctx=dataclasses.replace(plan_k.ctx, rng=probe_rng))
        search: SearchOutcome = search_stage(plan_k, r_k)
        seeds = list(getattr(search, "events", None) or []) if design.seed_events else []
        sel = selection_stage(plan_k, search.pair, r_k, seeds)
        skipped = _hopeless(plan_k, sel, design)
        looks = design.probe_look_growth if probing and design.probe_look_growth is not None else design.look_growth
        bet = design.probe_max_bet if probing and design.probe_max_bet is not None else design.max_bet
        if skipped:
            counts = _empty_counts(sel, plan_k)
        else:
            ledger.spend(spend_note, a_k)
            n_cert = plan_k.n_samples
            counts = sequential_certification_stage(
                plan_k,
                search.pair,
                sel,
                r_k,
                max_samples=n_cert,
                method=design.method,
                first=10 if design.method == "betting" else max(20, n_cert // 8),
                growth=looks if design.method == "betting" else 2.0,
                futility=design.futility,
                futility_level=design.futility_level,
                prior=_prior(sel, design) if design.method == "betting" else None,
                max_bet=bet,
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
                "alpha_spent": 0.0 if skipped else a_k,  # a skipped certification spends nothing
                "look_growth": float(looks),
                "max_bet": float(bet),
                "alpha_per_event": plan_k.a_event,
                "search_per_side": search.drawn // 2,
                "select_per_side": sel.drawn // 2,
                "certify_budget_per_side": plan_k.n_samples,
                "certify_used_per_side": int(o.n_per_side),
                "certification": "skipped (selection rules a violation out)" if skipped else o.stop_reason,
                "epsilon_lb": float(bounds.eps_lb),
                "event": sel.main[bounds.index].describe(),
                "pair": search.pair.describe(),
                "pairs_searched": len(plan_k.pairs) if len(plan_k.pairs) > 1 else 0,
                "kind": "split" if split else ("probe" if design.probe else "round"),
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
        if design.halve_pairs and len(active) > 1:
            active = _survivors(active, search)
        s *= design.growth
        k += 1
    if not kept:
        raise ValueError(
            f"max_samples={max_samples} per side is too small for one round "
            f"(at least {sum(_round_sizes(design, MIN_ROUND, len(plan.pairs)))} needed)"
        )
    best = max(range(len(kept)), key=lambda i: (kept[i][4].eps_lb, i))
    plan_b, search_b, sel_b, counts_b, bounds_b = kept[best]
    verdict = verdict_stage(plan_b, bounds_b, counts_b, sel_b)
    result = assemble_result(
        plan_b, search_b, sel_b, counts_b, bounds_b, verdict, seconds=time.perf_counter() - t0, rng=rng
    )
    totals = {"max_samples": int(max_samples), "fixed_n": int(default_total)}
    return annotate_rounds(result, plan, design, rounds, best, stop, totals, counts_b, bounds_b)
