"""Stages 1 and 2 of an audit: choose the pair (search) and the events (selection), spending no α.

* :func:`search_stage` ranks the candidate pairs on a search split (``n_search`` releases per side in all, by
  successive halving with held-out, cross-fitted scores: :mod:`.search`) and keeps the best; with a single pair
  it does nothing.
* :func:`selection_stage` draws ``n_select`` fresh releases per side on that pair; every attack proposes events,
  each scored by the bound it would certify at the final size.  When several attacks compete, attacks fit and
  choose on the first two thirds and every candidate is re-scored on the last third (only held-out scores compare
  attacks fairly: the best of thousands of thresholds or unions is optimistic in-sample).  It also chooses the
  profile events and, for each main event, the certification method (from selection proportions only).  Above
  :func:`~.selection_stream.fit_size` releases per side (``FIT_CAP``, or what fits in ``max_memory``) it holds
  only that many to fit the attacks and counts the rest on a stream (:mod:`.selection_stream`): peak memory does
  not grow with ``n_select``, and the events are still chosen on the counts of all of them.

Both stages use samples independent of the certification samples, so no α is spent here.
"""

from __future__ import annotations

import dataclasses
import math
import time
from dataclasses import dataclass, field

import numpy as np

from .attacks import ATTACK_NAMES, DiscreteAttack, Event, make_attacks, predicted_bound, scan_thresholds
from .attacks.scan import log_ratio_z
from .neighbours import Pair
from .paired import joint_proportion, paired_ranking, paired_scores
from .plan import AuditPlan, context_for
from .search import MIN_PER_PAIR, PAIRED_Z, TOP, search_pairs
from .selection_stream import MIN_SELECT, SelectionStream, count_ranges, draw_held, fit_families, fit_size
from .selection_stream import non_finite_rows as _non_finite_rows
from .streaming import held_releases_cap, probe_release_nbytes

__all__ = [
    "SearchOutcome",
    "Selection",
    "search_stage",
    "selection_stage",
    "selection_size",
    "HELD_OUT_Z",
    "MIN_SELECT",
]

# Pessimism (selection standard errors) of the held-out comparison between attacks.  2 s.e. stopped a lucky
# 40-count tail event of a learned score from beating a 3000-count outcome union (SVT34Parallel), but it also
# discarded real zero-count-side events at small sizes (diffprivlib LinearRegression at 98 releases per side
# went from violated to consistent), so it stays at 1 s.e.; scan leftovers are filtered instead (below).
HELD_OUT_Z = 1.0

# The pair search's best events on the chosen pair (chosen on the search's releases, which the selection never
# reuses) join the selection's held-out comparison as candidates of their own.  The search sees the pair on
# coupled draws with paired scores and often finds an event the selection's attacks, fitting on independent sides,
# rank lower (SVT34Parallel: an outcome set of the SVT4 half predicted 0.27 in the search, while the selection chose
# a coordinate threshold predicted 0.10).  No selection release chose them, so all of those releases count them
# (the attacks' own events only on the held-out third): a rare search event is compared with a third of the variance
# (SVT1/SVT2 at 2·10⁷ per side: a single outcome pattern of probability 0.02 lost to weaker, more frequent events in
# 4 of 6 full-size bench runs when counted on the held-out third alone).
SEED_EVENTS = True

# Common random numbers in the selection (on by default since 2026-11-29; False restores the independent draws). The two
# sides' selection releases are drawn from generators in the same state (as the pair search's, ``search.COUPLED``), and
# the held-out score of every candidate lowers its log-ratio by ``HELD_OUT_Z`` *paired* standard errors (the delta
# method with the two sides' covariance, :func:`~.paired.paired_scores`) instead of Wilson bounds per side.  On the
# in-memory path the covariance is counted on the same rows as the proportions; on the streamed path it is estimated on
# the held fit rows (:func:`~.paired.joint_proportion`).  Why: on SVT2 at 2·10⁷ per side (search n/4, selection n/8,
# seed 20261127) the search's best event on its extreme pair (one outcome of probability 0.0025, log-ratio ~0.09) was
# counted on 1.8·10⁶ independent releases per side, estimated at 0.075 ± 0.021 and lost, at 1 s.e. of pessimism, to a
# common coordinate threshold that certified 0.046.  The attacks' scans on the fitting part judge their candidates by
# independent-sides errors and so rarely propose such an event themselves: with the switch on, the ``TOP`` events of a
# paired re-scan of their features on the fitting part (:func:`~.paired.paired_ranking`, as the search's
# ``PAIRED_SELECT``) join the held-out comparison too.  The certification never sees these draws.  Measured with
# ``benchmarks/split_experiment.py --coupled-select`` (search n/4, selection n/8, 2·10⁷ per side): SVT1 / SVT2 on seeds
# 20261126-20261145, minima 0.0712 / 0.0462 → 0.0807 / 0.0781, medians 0.0838 / 0.0849 → 0.0841 / 0.0832; eight other
# rows (seeds 20261201-02) higher in 7 of 16 paired audits, all 16 right.  Adopted together with the split search n/4 +
# selection n/8 (``plan.py``) and the search's plug-in held-out score (``search.HELD_OUT_Z = 0``).
COUPLED_SELECT = True


@dataclass
class SearchOutcome:
    """The chosen pair, the ranking table of the search (empty without a search) and releases drawn.

    Parameters
    ----------
    pair : Pair
        The pair kept for selection and certification.
    table : list of dict, optional
        One row per pair, best first: ``pair``, ``predicted_bound``, ``predicted_se`` (its standard error, or
        ``None``), ``best_event``, ``round`` and ``n_per_side``
        (empty without a search).
    drawn : int, default 0
        Releases drawn by the search, both sides together.
    seconds : float, default 0.0
        Wall time of the search.
    events : list of Event, optional
        The search's best events on the chosen pair (chosen on search releases only), which the selection stage
        re-scores next to its own candidates (``SEED_EVENTS``).
    finalists : list of tuple, optional
        ``(pair, events)`` of every pair that reached the search's last round, best first (for a run-off,
        :mod:`.runoff`).
    runoff : list of dict, optional
        The run-off's table when one was held (:mod:`.runoff`), else empty.
    """

    pair: Pair
    table: list = field(default_factory=list)
    drawn: int = 0
    seconds: float = 0.0
    events: list = field(default_factory=list)
    finalists: list = field(default_factory=list)
    runoff: list = field(default_factory=list)


@dataclass
class Selection:
    """Events fixed before certification: the ``n_certify`` main events (best predicted first), the profile
    events, the certification method of each main event, and what was tried.

    Parameters
    ----------
    main : list of Event
        The main events, best predicted first.
    profile : list of Event
        The profile events (empty without a profile).
    methods : list of str
        The certification method of each main event: ``"cp"`` (Clopper–Pearson) or ``"poisson"`` (conditional
        test on Poissonised counts).
    attacks : list of str
        Names of the attacks that proposed candidates.
    n_candidates : int
        Number of candidate events considered.
    drawn : int
        Selection releases drawn, both sides together.
    seconds : float
        Wall time of the selection.
    non_finite : int, default 0
        Selection releases with a NaN or infinite value (both sides).
    release_nbytes : int, default 8
        Bytes of one release (fixes the certification's block size).
    n_per_side : int, default 0
        Selection releases drawn per side (the plan's ``n_select``).
    capped : bool, default False
        Whether the default ``n_select`` was lowered to fit ``max_memory`` (no longer happens: the selection
        streams what it does not hold; kept for readers of older results).
    n_held : int, default 0
        Selection releases per side held in memory to fit the attacks (``n_per_side`` when nothing was streamed).
    """

    main: list[Event]
    profile: list[Event]
    methods: list[str]
    attacks: list[str]
    n_candidates: int
    drawn: int
    seconds: float
    non_finite: int = 0  # selection releases with a NaN or infinite value (both sides)
    release_nbytes: int = 8  # bytes of one release (fixes the certification's block size)
    n_per_side: int = 0  # selection releases drawn per side (``plan.n_select`` unless lowered to fit max_memory)
    capped: bool = False  # the default n_select was lowered to fit ``max_memory`` (no longer happens)
    n_held: int = 0  # selection releases per side held to fit the attacks (the rest were streamed)


def _min_per_pair(plan: AuditPlan) -> int:
    """``MIN_PER_PAIR`` for the default search budget; a caller's smaller ``n_search`` is honoured (at least 20
    releases per side and pair: a cross-fitted score needs two halves of 10)."""
    if not plan.n_search_given:
        return MIN_PER_PAIR
    return max(20, min(MIN_PER_PAIR, plan.n_search // len(plan.pairs)))


def search_stage(plan: AuditPlan, rng: np.random.Generator) -> SearchOutcome:
    """Rank the plan's pairs on a search split and keep the best (no search with a single pair).

    Parameters
    ----------
    plan : AuditPlan
        The audit's plan.
    rng : numpy.random.Generator
        The generator every release is drawn from.

    Returns
    -------
    SearchOutcome
        The pair kept and the search's record.
    """
    if not plan.searching:
        return SearchOutcome(plan.pairs[0])
    ts = time.perf_counter()
    cap = held_releases_cap(probe_release_nbytes(plan.mechanism, plan.pairs[0].d, rng), plan.max_memory)
    ranked = search_pairs(
        plan.mechanism,
        plan.pairs,
        plan.attacks,
        plan.ctx,
        n_search=plan.n_search,
        rng=rng,
        chunk_size=plan.chunk_size,
        max_per_pair=cap,
        min_per_pair=_min_per_pair(plan),
    )
    table = [
        {
            "pair": r.pair.describe(),
            "predicted_bound": r.predicted,
            "predicted_se": r.se if math.isfinite(r.se) else None,
            "best_event": r.event,
            "round": r.round,
            "n_per_side": r.n_per_side,
        }
        for r in ranked
    ]
    drawn = 2 * sum(r.drawn for r in ranked)
    last = ranked[0].round
    finalists = [(r.pair, list(r.events)) for r in ranked if r.round == last]
    return SearchOutcome(ranked[0].pair, table, drawn, time.perf_counter() - ts, list(ranked[0].events), finalists)


def _dedupe(events):
    seen, out = set(), []
    for e in events:
        key = (e.describe(), e.orientation)
        if key not in seen:
            seen.add(key)
            out.append(e)
    return out


def _held_out_rescore(events, Y1, Y2, cut: int, plan: AuditPlan):
    """Replace each event's prediction by its held-out one (pessimism :data:`HELD_OUT_Z`): on the selection
    releases past ``cut`` (the attacks chose their events on the ones before it), or on all of ``Y1``/``Y2`` for the
    pair search's events (:func:`_from_search`), which no selection release chose."""
    events = _drop_scan_leftovers(events)
    counts = []
    for e in events:
        lo = 0 if _from_search(e) else cut
        y1, y2 = Y1[lo:], Y2[lo:]
        i1, i2 = np.asarray(e.indicator(y1), bool), np.asarray(e.indicator(y2), bool)
        c = (int(np.count_nonzero(i1)), y1.shape[0], int(np.count_nonzero(i2)), y2.shape[0])
        if COUPLED_SELECT:  # the rows of the two sides are aligned: the joint proportion is counted
            c = (*c, float(np.count_nonzero(i1 & i2)) / y1.shape[0])
        counts.append(c)
    return _rescore(events, counts, plan)


def _drop_scan_leftovers(events):
    # Events whose own (pessimistic) in-sample prediction is 0 are the leftovers of a scan (e.g. the best
    # threshold of an orientation that carries no signal); re-scoring them on a small held-out part only
    # gives rare events a lucky draw, so they compete only when nothing else predicts anything.
    if any(e.predicted > 0 for e in events):
        events = [e for e in events if e.predicted > 0]
    return events


def _rescore(events, counts, plan: AuditPlan):
    """Each event's held-out prediction from its held-out counts ``(k1, m1, k2, m2)``: ``k1`` of ``m1`` releases on
    D, ``k2`` of ``m2`` on D'; with a fifth entry, the proportion of (aligned, ``m1 == m2``) rows inside the event on
    both sides, the pessimism is ``HELD_OUT_Z`` paired standard errors (``COUPLED_SELECT``), else Wilson bounds per
    side."""
    for e, (k1, m1, k2, m2, *joint) in zip(events, counts):
        in1, in2 = k1 / m1, k2 / m2
        pn, pd = (in1, in2) if e.orientation > 0 else (in2, in1)
        nn, nd = (m1, m2) if e.orientation > 0 else (m2, m1)
        e.extra["in_sample_prediction"] = float(e.predicted)
        e.extra["held_out_per_side"] = int(min(m1, m2))
        if joint and pn > 0 and pd > 0:
            e.predicted = float(paired_scores(pn, pd, joint[0], min(m1, m2), plan.ctx, HELD_OUT_Z))
        else:
            e.predicted = float(
                predicted_bound(pn, pd, plan.n_samples, plan.a_event, plan.claim.delta, "epsilon", nn, nd, z=HELD_OUT_Z)
            )
        e.sel_props = (pn, pd)
    return events


def _from_search(e: Event) -> bool:
    """Whether ``e`` is one of the pair search's events (:func:`_seed_copies`), chosen on the search's releases."""
    return e.extra.get("origin") == "pair search"


def _profile_events(plan: AuditPlan, pair: Pair, best: Event, Y1, Y2) -> list[Event]:
    """One event per δ of the profile grid plus one for the GDP μ, of the best event's family."""
    out = []
    for dl in list(plan.deltas) + [None]:
        c = context_for(
            plan,
            pair,
            alpha=plan.a_profile / plan.n_profile,
            delta=0.0 if dl is None else float(dl),
            objective="mu" if dl is None else "epsilon",
        )
        if best.kind == "set":
            cands = DiscreteAttack().select(Y1, Y2, c)
        else:
            f = best.feature
            cands = scan_thresholds(f(Y1), f(Y2), c, f, best.attack)
        out.append(max(cands, key=lambda e: e.predicted))
    return out


def _methods(plan: AuditPlan, events) -> list[str]:
    """Certification method per main event, fixed from selection proportions (so the choice costs no α):
    ``"poisson"`` (conditional test on Poissonised counts, pure ε) when it predicts a tighter bound, else ``"cp"``."""
    out = []
    for e in events:
        pn, pd = (float(x) for x in e.sel_props)
        if plan.claim.delta > 0 or not (np.isfinite(pn) and np.isfinite(pd)):
            out.append("cp")
            continue
        cp_pred = float(predicted_bound(pn, pd, plan.n_samples, plan.a_event, 0.0, "epsilon", z=0.0, method="cp"))
        po_pred = float(predicted_bound(pn, pd, plan.n_samples, plan.a_event, 0.0, "epsilon", z=0.0, method="poisson"))
        out.append("poisson" if po_pred >= cp_pred else "cp")
    return out


def selection_size(plan: AuditPlan, pair: Pair, rng: np.random.Generator) -> tuple[int, bool]:
    """Selection releases per side: always ``plan.n_select`` (what does not fit ``max_memory`` is streamed,
    :func:`~.selection_stream.fit_size`).  Raises when the budget cannot hold the fit part (fewer than
    ``MIN_SELECT`` releases per side).

    Parameters
    ----------
    plan : AuditPlan
        The audit's plan (``n_select``, ``max_memory``, mechanism).
    pair : Pair
        The pair audited (one release of D is probed, on a copy of ``rng``).
    rng : numpy.random.Generator
        The audit's generator (not advanced).

    Returns
    -------
    tuple
        ``(n_select, False)``: the size, and that it was not lowered.
    """
    fit_size(plan.n_select, probe_release_nbytes(plan.mechanism, pair.d, rng), plan.max_memory)
    return plan.n_select, False


def selection_stage(plan: AuditPlan, pair: Pair, rng: np.random.Generator, seeds=()) -> Selection:
    """Choose the main and profile events on ``n_select`` fresh releases per side of ``pair``: held in memory
    up to :func:`~.selection_stream.fit_size` releases per side, the rest counted on a stream.

    Parameters
    ----------
    plan : AuditPlan
        The audit's plan.
    pair : Pair
        The pair to audit.
    rng : numpy.random.Generator
        The generator every release is drawn from.
    seeds : sequence of Event, optional
        Events chosen beforehand on other releases (the pair search's best events, ``SearchOutcome.events``):
        with ``SEED_EVENTS`` they are re-scored on all the selection releases (the attacks' candidates on the
        held-out part) and compete with those (only when the selection makes a held-out comparison, i.e. with
        several attacks).

    Returns
    -------
    Selection
        The chosen events.
    """
    ts = time.perf_counter()
    n = plan.n_select
    nbytes = probe_release_nbytes(plan.mechanism, pair.d, rng)
    held = fit_size(n, nbytes, plan.max_memory, capped=_records_scans(plan.attacks))
    if held < n:
        return _streamed_selection(plan, pair, rng, n, held, ts, seeds)
    Y1, Y2 = draw_held(plan.mechanism, pair, n, rng, plan.chunk_size, coupled=COUPLED_SELECT)
    atts = make_attacks(
        plan.attacks, Y1, log_density=plan.log_density, max_categories=plan.ctx.max_categories, Y_other=Y2
    )
    cut = (2 * n) // 3 if len(atts) > 1 else n
    ctx = context_for(plan, pair)
    events = [e for a in atts for e in a.select(Y1[:cut], Y2[:cut], ctx)]
    if cut < n:
        events += _paired_candidates(events, Y1[:cut], Y2[:cut], ctx)
        events = _held_out_rescore(_dedupe(_seed_copies(seeds) + events), Y1, Y2, cut, plan)
    else:
        events = _dedupe(events)
    main = _main_events(plan, events)
    prof = _profile_events(plan, pair, main[0], Y1, Y2) if plan.n_profile else []
    return Selection(
        main,
        prof,
        _methods(plan, main),
        [a.name for a in atts],
        len(events),
        2 * n,
        time.perf_counter() - ts,
        _non_finite_rows(Y1) + _non_finite_rows(Y2),
        max(1, int(np.asarray(Y1).nbytes // max(n, 1))),
        n,
        False,
        n,
    )


def _paired_candidates(events, Y1, Y2, ctx) -> list[Event]:
    """With ``COUPLED_SELECT``: the ``TOP`` best events of a paired re-scan of the features of ``events`` on the
    aligned releases ``Y1`` / ``Y2`` (the rows they were chosen on), at ``PAIRED_Z`` paired standard errors; none
    otherwise or when the two sides' row counts differ."""
    if not COUPLED_SELECT or not events or Y1.shape[0] != Y2.shape[0]:
        return []
    given = {id(e) for e in events}
    out = paired_ranking(list(events), Y1, Y2, dataclasses.replace(ctx, evidence_ties=False), PAIRED_Z)[:TOP]
    for e in out:
        if id(e) not in given:
            e.extra["origin"] = "paired scan"
    return out


def _seed_copies(seeds) -> list[Event]:
    """Copies of the search's events (re-scoring overwrites an event's prediction), marked with their origin;
    none when ``SEED_EVENTS`` is off."""
    if not SEED_EVENTS:
        return []
    out = []
    for e in seeds:
        c = dataclasses.replace(e, extra=dict(e.extra))
        c.extra["origin"] = "pair search"
        out.append(c)
    return out


def _records_scans(attacks) -> bool:
    """Whether every attack in ``attacks`` declares ``records_scans`` (:class:`~.attacks.Attack`): its events come
    from recorded scans, so the selection may hold ``FIT_CAP`` releases per side and stream the rest.  Otherwise
    (a caller's own family that does not declare it) the events of that attack are chosen on the held releases
    alone, and those are then as many as ``max_memory`` allows.  A name stands for its engine family; ``"auto"``
    for any of them."""
    items = attacks if isinstance(attacks, (list, tuple)) else [attacks]
    for a in items:
        if isinstance(a, str):
            classes = ATTACK_NAMES.values() if a == "auto" else [ATTACK_NAMES.get(a)]
            if not all(getattr(c, "records_scans", False) for c in classes):
                return False
        elif not getattr(a, "records_scans", False):
            return False
    return True


def _evidence(e: Event, n_default: int) -> float:
    """z-statistic of the event's (held-out) log ratio, from its selection proportions with 0.5-smoothed counts.

    The tie-break of :func:`_main_events` among events that predict the same bound, in practice 0 when nothing is
    resolvable at this size: sorting by the prediction alone then kept the first candidate, often a rare outcome
    ("output in {-92}", 34 vs 23 releases) of a discrete Laplace at ε = 0.05, which certified 0 at 23 of 40 seeds
    where a threshold ("output >= 1") certifies about 0.036."""
    pn, pd = e.sel_props
    if not (math.isfinite(pn) and math.isfinite(pd)):
        return -math.inf
    m = e.extra.get("held_out_per_side") or n_default
    return float(log_ratio_z(pn, pd, m, m))


def _main_events(plan: AuditPlan, events) -> list[Event]:
    events = sorted(events, key=lambda e: (-e.predicted, -_evidence(e, plan.n_select)))
    if not events:
        raise ValueError("attacks produced no candidate event for these releases")
    main = events[: plan.n_certify]
    while len(main) < plan.n_certify:  # keep the Bonferroni family size as budgeted
        main.append(main[-1])
    return main


def _streamed_selection(
    plan: AuditPlan, pair: Pair, rng: np.random.Generator, n: int, held: int, ts: float, seeds=()
) -> Selection:
    """:func:`selection_stage` holding ``held`` < ``n`` releases per side (see :mod:`.selection_stream`).

    Positions ``0 .. held - 1`` (held) fit the attacks; with several attacks ``held .. cut - 1`` are added to the
    scans and ``cut .. n - 1`` (``cut = 2n/3``) re-score the candidates, else all of ``held .. n - 1`` are
    scanned.  The events of attacks without recorded scans (chosen on the fit part) are counted on
    ``fit .. n - 1``, the ``seeds`` on every position.
    """
    Y1, Y2 = draw_held(plan.mechanism, pair, held, rng, plan.chunk_size, coupled=COUPLED_SELECT)
    nbytes = max(1, int(np.asarray(Y1).nbytes // held))
    atts = make_attacks(
        plan.attacks, Y1, log_density=plan.log_density, max_categories=plan.ctx.max_categories, Y_other=Y2
    )
    cut = (2 * n) // 3 if len(atts) > 1 else n
    fit = min(held, cut)
    ctx = context_for(plan, pair, families=[])
    families, fixed = fit_families(atts, Y1[:fit], Y2[:fit], ctx)
    if cut < n:  # the search's events first (a duplicate keeps their larger count), then the unrecorded attacks'
        fixed = _seed_copies(seeds) + list(fixed)
        if COUPLED_SELECT:  # and the paired re-scan's, chosen on the fit part like the unrecorded attacks' events
            scans, plain = [a for a in atts if a.in_search] or atts, dataclasses.replace(ctx, families=None)
            proposed = [e for a in scans for e in a.select(Y1[:fit], Y2[:fit], plain)]  # no scan recorded
            fixed += _paired_candidates(proposed, Y1[:fit], Y2[:fit], plain)
    non_finite = _non_finite_rows(Y1) + _non_finite_rows(Y2)
    rest = (Y1[fit:].copy(), Y2[fit:].copy())  # held releases past the fit part (none unless held > cut)
    if not fixed and not COUPLED_SELECT:  # only an attack without recorded scans needs the fit releases again
        Y1 = Y2 = None  # (its profile), or a coupled selection (the co-occurrence of every candidate)
    stream = SelectionStream(
        plan.mechanism,
        (pair.d, pair.d_prime),
        rest,
        rng,
        nbytes,
        first=fit,
        backend=plan.backend,
        client=plan.client,
        max_memory=plan.max_memory,
        coupled=COUPLED_SELECT,
    )
    # one pass over the stream (on the audit's backend): the scan part, and the held-out part for every family; the
    # fixed events (chosen on the fit part, or on the search's releases) on both parts (only those of the events
    # kept below are used)
    ranges = [("scan", fit, cut)] + ([("held", cut, n)] if cut < n else [])
    fixed_counts = count_ranges(stream, families, ranges, fixed, ("scan", "held") if cut < n else None)
    family_of, events = {}, list(fixed)
    for f in families:
        for e in f.events():
            family_of[id(e)] = f
            events.append(e)
    events = _dedupe(events)
    if cut < n:
        events = _drop_scan_leftovers(events)
        counts = []
        for e in events:
            if id(e) in family_of:
                counts.append(family_of[id(e)].counts(e, "held"))
                continue
            i = next(j for j, x in enumerate(fixed) if x is e)
            k1, k2, m = int(fixed_counts[0, i]), int(fixed_counts[1, i]), n - fit
            if _from_search(e):  # no selection release chose it: the fit part counts too
                assert Y1 is not None and Y2 is not None
                k1, k2, m = (
                    k1 + int(np.count_nonzero(e.indicator(Y1[:fit]))),
                    k2 + int(np.count_nonzero(e.indicator(Y2[:fit]))),
                    n,
                )
            counts.append((k1, m, k2, m))
        if COUPLED_SELECT:  # the co-occurrence of each event estimated on the held fit rows (aligned)
            counts = [_with_joint(e, c, Y1[:fit], Y2[:fit]) for e, c in zip(events, counts)]
        events = _rescore(events, counts, plan)
    main = _main_events(plan, events)
    prof = []
    if plan.n_profile:
        best = family_of.get(id(main[0]))
        if best is None:  # an event that was not chosen by a scan: its family is re-run on the held releases
            prof = _profile_events(plan, pair, main[0], Y1, Y2)
        else:
            prof = _family_profile(plan, pair, best)
    return Selection(
        main,
        prof,
        _methods(plan, main),
        [a.name for a in atts],
        len(events),
        2 * n,
        time.perf_counter() - ts,
        non_finite + stream.non_finite,
        nbytes,
        n,
        False,
        held,
    )


def _with_joint(e: Event, c: tuple, Y1, Y2) -> tuple:
    """Held-out counts ``(k1, m1, k2, m2)`` of ``e`` with the joint proportion appended, estimated on the aligned rows
    ``Y1`` / ``Y2`` (:func:`~.paired.joint_proportion`); unchanged when the two sides' counts are not on the same
    number of rows."""
    k1, m1, k2, m2 = c
    if m1 != m2 or m1 == 0:
        return c
    pn, pd = (k1 / m1, k2 / m2) if e.orientation > 0 else (k2 / m2, k1 / m1)
    return (*c, joint_proportion(e, pn, pd, Y1, Y2))


def _family_profile(plan: AuditPlan, pair: Pair, family) -> list[Event]:
    """:func:`_profile_events` from a recorded family's counts on all its selection releases (scan and held)."""
    out = []
    for dl in list(plan.deltas) + [None]:
        c = context_for(
            plan,
            pair,
            alpha=plan.a_profile / plan.n_profile,
            delta=0.0 if dl is None else float(dl),
            objective="mu" if dl is None else "epsilon",
        )
        out.append(max(family.events(c, parts=("scan", "held")), key=lambda e: e.predicted))
    return out
