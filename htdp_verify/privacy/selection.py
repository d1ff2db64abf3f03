"""Stages 1 and 2 of an audit: choose the pair (search) and the events (selection), spending no α.

* :func:`search_stage` ranks the candidate pairs on a search split (``n_search`` releases per side in all, by
  successive halving with held-out, cross-fitted scores: :mod:`.search`) and keeps the best; with a single pair
  it does nothing.
* :func:`selection_stage` draws ``n_select`` fresh releases per side on that pair; every attack proposes events,
  each scored by the bound it would certify at the final size.  When several attacks compete, attacks fit and
  choose on the first two thirds and every candidate is re-scored on the last third (only held-out scores compare
  attacks fairly: the best of thousands of thresholds or unions is optimistic in-sample).  It also chooses the
  profile events and, for each main event, the certification method (from selection proportions only).

Both stages use samples independent of the certification samples, so no α is spent here.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from .adapters import draw
from .attacks import DiscreteAttack, Event, make_attacks, predicted_bound, scan_thresholds
from .neighbours import Pair
from .plan import AuditPlan, context_for
from .search import MIN_PER_PAIR, search_pairs
from .streaming import HELD_OVERHEAD, held_releases_cap, probe_release_nbytes

__all__ = ["SearchOutcome", "Selection", "search_stage", "selection_stage", "HELD_OUT_Z"]

# Pessimism (selection standard errors) of the held-out comparison between attacks.  2 s.e. stopped a lucky
# 40-count tail event of a learned score from beating a 3000-count outcome union (SVT34Parallel), but it also
# discarded real zero-count-side events at small sizes (diffprivlib LinearRegression at 98 releases per side
# went from violated to consistent), so it stays at 1 s.e.; scan leftovers are filtered instead (below).
HELD_OUT_Z = 1.0


@dataclass
class SearchOutcome:
    """The chosen pair, the ranking table of the search (empty without a search) and releases drawn.

    Parameters
    ----------
    pair : Pair
        The pair kept for selection and certification.
    table : list of dict, optional
        One row per pair, best first: ``pair``, ``predicted_bound``, ``best_event``, ``round`` and ``n_per_side``
        (empty without a search).
    drawn : int, default 0
        Releases drawn by the search, both sides together.
    seconds : float, default 0.0
        Wall time of the search.
    """

    pair: Pair
    table: list = field(default_factory=list)
    drawn: int = 0
    seconds: float = 0.0


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
        Selection releases drawn per side (the plan's ``n_select`` unless lowered to fit ``max_memory``).
    capped : bool, default False
        Whether the default ``n_select`` was lowered to fit ``max_memory``.
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
    capped: bool = False  # the default n_select was lowered to fit ``max_memory``


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
            "best_event": r.event,
            "round": r.round,
            "n_per_side": r.n_per_side,
        }
        for r in ranked
    ]
    drawn = 2 * sum(r.drawn for r in ranked)
    return SearchOutcome(ranked[0].pair, table, drawn, time.perf_counter() - ts)


def _dedupe(events):
    seen, out = set(), []
    for e in events:
        key = (e.describe(), e.orientation)
        if key not in seen:
            seen.add(key)
            out.append(e)
    return out


def _held_out_rescore(events, Y1b, Y2b, plan: AuditPlan):
    """Replace each event's prediction by its held-out one (pessimism :data:`HELD_OUT_Z`)."""
    # Events whose own (pessimistic) in-sample prediction is 0 are the leftovers of a scan (e.g. the best
    # threshold of an orientation that carries no signal); re-scoring them on a small held-out part only
    # gives rare events a lucky draw, so they compete only when nothing else predicts anything.
    if any(e.predicted > 0 for e in events):
        events = [e for e in events if e.predicted > 0]
    for e in events:
        in1 = float(np.count_nonzero(e.indicator(Y1b))) / Y1b.shape[0]
        in2 = float(np.count_nonzero(e.indicator(Y2b))) / Y2b.shape[0]
        pn, pd = (in1, in2) if e.orientation > 0 else (in2, in1)
        e.extra["in_sample_prediction"] = float(e.predicted)
        e.predicted = float(
            predicted_bound(
                pn,
                pd,
                plan.n_samples,
                plan.a_event,
                plan.claim.delta,
                "epsilon",
                Y1b.shape[0],
                Y2b.shape[0],
                z=HELD_OUT_Z,
            )
        )
        e.sel_props = (pn, pd)
    return events


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


#: fewest selection releases per side a memory budget may leave (below it, event selection is guesswork)
MIN_SELECT = 200


def selection_size(plan: AuditPlan, pair: Pair, rng: np.random.Generator) -> tuple[int, bool]:
    """Selection releases per side within ``plan.max_memory``: ``plan.n_select``, or, when that default does not
    fit, the most that fit (``capped`` True).  An ``n_select`` the caller chose is never lowered: it raises."""
    nbytes = probe_release_nbytes(plan.mechanism, pair.d, rng)
    cap = held_releases_cap(nbytes, plan.max_memory)
    if plan.n_select <= cap:
        return plan.n_select, False
    need = 2 * HELD_OVERHEAD * plan.n_select * nbytes
    if plan.n_select_given:
        raise ValueError(
            f"n_select={plan.n_select} releases of {nbytes} bytes need about {need / 2**30:.2f} GiB in "
            f"the selection stage, over max_memory={plan.max_memory!r}: lower n_select to at most "
            f"{cap} or raise max_memory"
        )
    if cap < MIN_SELECT:
        raise ValueError(
            f"max_memory={plan.max_memory!r} holds only {cap} selection releases of {nbytes} bytes per "
            f"side (at least {MIN_SELECT} are needed): raise max_memory"
        )
    return cap, True


def selection_stage(plan: AuditPlan, pair: Pair, rng: np.random.Generator) -> Selection:
    """Choose the main and profile events on ``n_select`` fresh releases per side of ``pair`` (fewer when the
    default does not fit ``max_memory``: ``selection_size``).

    Parameters
    ----------
    plan : AuditPlan
        The audit's plan.
    pair : Pair
        The pair to audit.
    rng : numpy.random.Generator
        The generator every release is drawn from.

    Returns
    -------
    Selection
        The chosen events.
    """
    ts = time.perf_counter()
    n, capped = selection_size(plan, pair, rng)
    Y1 = draw(plan.mechanism, pair.d, n, rng, chunk_size=plan.chunk_size)
    Y2 = draw(plan.mechanism, pair.d_prime, n, rng, chunk_size=plan.chunk_size)
    atts = make_attacks(plan.attacks, Y1, log_density=plan.log_density, max_categories=plan.ctx.max_categories)
    cut = (2 * n) // 3 if len(atts) > 1 else n
    ctx = context_for(plan, pair)
    events = _dedupe([e for a in atts for e in a.select(Y1[:cut], Y2[:cut], ctx)])
    if cut < n:
        events = _held_out_rescore(events, Y1[cut:], Y2[cut:], plan)
    events = sorted(events, key=lambda e: -e.predicted)
    if not events:
        raise ValueError("attacks produced no candidate event for these releases")
    main = events[: plan.n_certify]
    while len(main) < plan.n_certify:  # keep the Bonferroni family size as budgeted
        main.append(main[-1])
    prof = _profile_events(plan, pair, main[0], Y1, Y2) if plan.n_profile else []
    non_finite = sum(
        int(np.count_nonzero(~np.all(np.isfinite(_rows(Y)), axis=1)))
        for Y in (Y1, Y2)
        if np.issubdtype(np.asarray(Y).dtype, np.floating)
    )
    return Selection(
        main,
        prof,
        _methods(plan, main),
        [a.name for a in atts],
        len(events),
        2 * n,
        time.perf_counter() - ts,
        non_finite,
        max(1, int(np.asarray(Y1).nbytes // max(n, 1))),
        n,
        capped,
    )


def _rows(Y) -> np.ndarray:
    Y = np.asarray(Y)
    return Y.reshape(Y.shape[0], -1)
