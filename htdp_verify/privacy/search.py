"""Pair search: which of several neighbouring pairs should an audit certify?  Honest, held-out and cross-fitted.

:func:`search_pairs` spends a search budget of ``n_search`` releases per side over the candidate pairs by
successive halving (``ROUNDS``): every pair gets a first slice (25 % of the budget, shared equally), the better
half a second (25 %), the best two a third (50 %); a surviving pair keeps the releases of its earlier rounds
(``POOL``), so the last comparison is made on everything it was given.  A pair is scored by an *honest* prediction
of the bound it would certify at the final size: events are chosen on one half of its releases by the audit's
attacks (at ``SELECT_Z`` standard errors of selection pessimism, redone at 1 s.e. when nothing survives at this
size) and the ``TOP`` best are re-counted on the other half; with cross-fitting the halves swap roles and the two
scores are averaged.  The held-out score of an event is the bound predicted at the final size from its held-out
proportions, its log-ratio lowered by ``HELD_OUT_Z`` standard errors of the held-out estimate.  Ties (nothing
resolvable) are broken by the smoothed held-out log-ratio.

Common random numbers (``COUPLED``): the two sides of a pair are drawn from generators in the same state, so a
release on ``D`` and the release in the same row on ``D'`` share their noise.  Each side's law is exactly the
mechanism's; only the *comparison* of the sides is sharper: the held-out log-ratio of an event is estimated with
the two sides' covariance (delta method), which for SVT1's best event at 2·10⁴ releases per side is 0.011 against
0.067 with independent sides, worth ~36 times the releases.  For a mechanism whose noise does not line up row by
row (it draws a data-dependent number of variates) the sides are simply less correlated, and the score falls back
to the independent-sides error.  The certification never sees these draws.

Paired selection (``PAIRED_SELECT``): on the fitting half the attacks' scans judge their candidates by
independent-sides errors, which buries exactly the events coupling makes sharp (SVT1's best event on its best pairs
is one outcome of probability ~0.02 with log-ratio ~0.09: at 4·10³ releases per side its independent error is ~0.15,
its paired one ~0.025).  So every feature the attacks proposed is re-scanned with the paired error
(:func:`~.paired.paired_ranking`: every threshold, every prefix union of the outcomes ordered by their ratio, at
``PAIRED_Z`` paired s.e.) and the ``TOP`` events by paired score go to the held-out re-count.

The search spends no α: the audit certifies the winner on fresh samples.

Why these constants (measured on the ground-truth benchmark with ``benchmarks/bench_pair_search.py``: the search
stage of ``audit()`` alone at the benchmark's default budget of 10⁶ releases per side, 2.9·10⁵ of them for the
search; "good" = a pair whose exact-law oracle bound is at least 0.9 of the best pair's; ``--legacy`` runs the
former search).  The former search (independent sides, 40 % / 60 % halving 9 → 3 pairs, no pooling, held-out
proportions made pessimistic by 1 s.e. with Wilson bounds per side) kept a good pair 5/30 (SVT1), 4/30 (SVT2) and
13/30 (SVT4) times: at ~10⁴ releases per pair every prediction of the SVT pairs (oracle bounds 0.067 against
0.014–0.037) was 0, and the tie-break favoured rare events with large ratios.  Tuned on SVT1/2/4 (20 seeds each):
coupling alone, Wilson pessimism 3/10 (SVT1; the former search 1/10 on the same seeds); coupling with a plug-in
held-out score (no pessimism) 6/10; plug-in and pooling 16/20, 14/20, 18/20 (SVT1, SVT2, SVT4); the same with three
rounds 17/20, 17/20 (SVT1, SVT2); two rounds, pooling and 1 paired s.e. 16/20, 16/20, 18/20; 0.5 paired s.e. 14/20
(SVT1).  The constants here (three rounds, pooling, 1 paired s.e.), 30 seeds: SVT1 23/30, SVT2 23/30, SVT4 29/30
(SVT2's misses chose "one above rest below", oracle 0.033); with ``SELECT_Z`` = 2 23/30, 23/30 and with ``TOP`` = 2
22/30, 23/30 (SVT1, SVT2): no gain.  Checked afterwards on rows not used for tuning (30 seeds,
former → now): ReportNoisyMax1 24 → 30, ReportNoisyMax2 26 → 30, ReportNoisyMax3 27 → 30 of 30; RAPPOR 7/10 → 30/30
(the former search over 10 seeds only), OneTimeRAPPOR 9/10 → 10/10 (three pairs: now two rounds).  What limits
SVT1/2: the attacks' events at this size certify ~0.035–0.045 on the good pairs (oracle 0.067), close to the other
pairs' 0.033–0.037.  Paired selection (same rounds and constants, 30 seeds, ``--set PAIRED_SELECT=False`` → now):
SVT1 23 → 30, SVT2 23 → 30, SVT4 29 → 30 of 30; not tuned on: ReportNoisyMax1-3 30 → 30 each, OneTimeRAPPOR
10/10 → 30/30, RAPPOR 30 → 29 of 30 (the miss kept "one below", oracle 0.275 against 0.350: eliminated in the first
round by 0.02 of predicted bound).  The re-scan costs CPU: SVT1 ~2.8 → ~5 s a seed, RAPPOR 10.5 → 14.6 s at one seed
(measured on a loaded machine).
``HELD_OUT_Z`` = 0 (plug-in held-out score) at the full bench budget (2·10⁷ per side; dev seeds 0-19 of
``bench_pair_search.py``): the in-domain extreme pair (oracle 0.0856 at the certification size against 0.0838 for
half-half) chosen 9/20 (SVT1) and 12/20 (SVT2) against 2/20 and 1/20 with 1 s.e.; but the whole audit on held-out
seeds 20261146-20261165 had medians 0.0813 and 0.0836 (0.913 and 0.939 of the ceiling, against 0.924 and 0.940 with
1 s.e. on seeds 20261126-20261145): the extreme pair's best event has probability 0.0025, so its bound scatters more,
and the selection stage (independent sides, 3 s.e.) sometimes certifies a common event on it instead (ε_lb 0.0465
once).  Not adopted alone.  With the selection coupled too (``selection.COUPLED_SELECT``), which keeps that rare
event, and the budget split search n/4 + selection n/8 (``benchmarks/split_experiment.py --search 0.25 --select 0.125
--coupled-select --set search.HELD_OUT_Z=0``): medians 0.0850 / 0.0863 on seeds 20261126-20261145 and, on fresh seeds
20261206-20261225, 0.0846 / 0.0856 (0.951 / 0.961 of the ceiling; minima 0.0813 / 0.0771; SVT1 / SVT2), the extreme
pair kept at 7/20 and 9/20 of the fresh seeds.  Adopted (2026-11-29) together with the two other changes, which
remove the low tail that had kept it out.
Older measurements: a plug-in in-sample score chases lucky rare events (SVT3 flagged at 3/6 seeds with 1 s.e.
selection, 6/6 with 3 s.e.), hence ``SELECT_Z`` = 3.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._validate import check_int
from .adapters import draw
from .attacks import SelectionContext, make_attacks, predicted_bound
from .neighbours import Pair, as_pairs
from .paired import log_ratio_variance, paired_ranking, twin_generators

__all__ = ["SearchResult", "search_pairs", "SELECT_Z", "HELD_OUT_Z", "TOP", "ROUNDS", "ELIM_Z"]

SELECT_Z = 3.0  # selection pessimism on the fitting half (the audit's own selection uses 3 s.e. too)
HELD_OUT_Z = 0.0  # pessimism of the held-out re-count (plug-in; 1 s.e. before 2026-11-29)
TOP = 4  # events re-counted per fold
ROUNDS = ((0.25, 1.0), (0.25, 1 / 2), (0.5, 2 / 9))  # (share of the search budget, fraction of the pairs scored)
COUPLED = True  # common random numbers for the two sides of a pair
POOL = True  # a surviving pair keeps its earlier rounds' releases
PAIRED_SE = True  # held-out pessimism from the paired standard error of the log-ratio (else Wilson bounds per side)
PAIRED_SELECT = True  # choose the fitting half's events by paired scores (re-scanning the attacks' features)
PAIRED_Z = 3.0  # paired standard errors of selection pessimism on the fitting half
MIN_PER_PAIR = 500  # releases per side per pair and round with the default budget (a caller's n_search may go lower)
# Noise-aware elimination (an experiment switch, off): with a number z, a pair below the round's cut survives while its
# score plus z standard errors reaches the last kept pair's score minus z standard errors (successive elimination with
# the paired errors of the held-out log-ratios).  ``None``: the cut of ``ROUNDS`` alone.  Measured with z = 1
# (2026-11-29): at 10⁶ per side it kept a good pair at 30/30/30 seeds of SVT1/2/4 (default 30/26/30 on seeds 0-29,
# 29/30/30 on 30-59); at 2·10⁷ per side (fresh seeds 20261246-55) it certified more in 11 of 30 paired audits, medians
# lower on all three rows.  Not adopted.
ELIM_Z: float | None = None


@dataclass
class SearchResult:
    """One searched pair: its held-out score (the predicted certified bound), the best event's text, the
    releases per side it received in its last round, the round it reached (1-based) and the releases per side
    spent on it in all.

    Parameters
    ----------
    pair : Pair
        The pair.
    predicted : float
        Its held-out score (the predicted certified bound).
    event : str
        The best event, in words.
    n_per_side : int
        Releases per side in its last round.
    round : int
        The round it reached (1-based).
    tie : float
        Tie-breaking score.
    drawn : int
        Releases per side spent on it in all.
    events : list of Event
        The events re-counted in its last round (up to ``TOP`` per fold), best held-out score first: the
        selection stage re-scores those of the chosen pair next to its own candidates (``SEED_EVENTS``).
    se : float
        Standard error of ``predicted`` (the held-out log-ratio's, averaged over the two folds; infinite when no
        event scored above 0).  The search's table reports it next to the score: at 2·10⁷ per side SVT1's
        in-domain extreme pair is scored ±0.006 in the last round and half-half ±0.0019, for oracle bounds at
        the certification size 0.0028 apart (``benchmarks/bench_pair_search.py --finalists``).
    """

    pair: Pair
    predicted: float
    event: str = ""
    n_per_side: int = 0
    round: int = 1
    tie: float = 0.0
    drawn: int = 0  # releases per side spent on this pair over all rounds
    events: list = dataclasses.field(default_factory=list)
    se: float = math.inf  # standard error of ``predicted`` (the held-out log-ratio's, averaged over the two folds)


def _select(atts, Y1, Y2, ctx):
    """The attacks' events on (Y1, Y2), best predicted first; redone at 1 s.e. when nothing survives."""
    evs = [e for a in atts for e in a.select(Y1, Y2, ctx)]
    if ctx.z > 1 and max((e.predicted for e in evs), default=0.0) <= 0:
        evs = [e for a in atts for e in a.select(Y1, Y2, dataclasses.replace(ctx, z=1.0, evidence_ties=False))]
    evs.sort(key=lambda e: -e.predicted)
    return evs


def _event_score(a: np.ndarray, b: np.ndarray, ctx: SelectionContext) -> tuple[float, float]:
    """Held-out score of one event from its indicators on the numerator side ``a`` and the denominator side ``b``
    (row ``i`` of both drawn with the same random numbers when ``COUPLED``): the bound it is predicted to certify
    at the final size, its log-ratio lowered by ``HELD_OUT_Z`` standard errors of the held-out estimate (the
    delta method with the two sides' covariance, so coupled draws earn their smaller error); and the tie-break,
    the smoothed log-ratio."""
    nb = a.shape[0]
    kn, kd = int(np.count_nonzero(a)), int(np.count_nonzero(b))
    tie = math.log((kn + 1) / (kd + 1))
    if HELD_OUT_Z <= 0 or kn == 0 or kd == 0 or not PAIRED_SE:  # plug-in, or Wilson bounds per side
        z = max(HELD_OUT_Z, 0.0)
        v = float(predicted_bound(kn / nb, kd / nb, ctx.n_final, ctx.alpha, ctx.delta, "epsilon", nb, nb, z))
        return v, tie
    pn, pd = kn / nb, kd / nb
    var = log_ratio_variance(pn, pd, np.count_nonzero(a & b) / nb, nb)
    pn_low = pn * math.exp(-HELD_OUT_Z * math.sqrt(max(var, 0.0)))
    v = float(predicted_bound(pn_low, pd, ctx.n_final, ctx.alpha, ctx.delta, "epsilon", None, None, 0.0))
    return v, tie


def _log_ratio_var(a: np.ndarray, b: np.ndarray) -> float:
    """Variance of the held-out log-ratio of one event from its indicators on the numerator side ``a`` and the
    denominator side ``b`` (rows aligned; with ``COUPLED`` their covariance counts), by the delta method on counts
    smoothed by 1/2 (so that an event no release fell in gets a large, finite variance)."""
    nb = a.shape[0]
    pn = (np.count_nonzero(a) + 0.5) / (nb + 1)
    pd = (np.count_nonzero(b) + 0.5) / (nb + 1)
    pab = np.count_nonzero(a & b) / nb if COUPLED else pn * pd
    return float(max(log_ratio_variance(pn, pd, pab, nb), 0.0))


def _draw_pair(mechanism, p: Pair, n: int, rng, chunk_size: int):
    """``n`` releases per side on ``p``; with ``COUPLED`` both sides from generators in the same state (common
    random numbers: each side's law is exact, only the two sides' draws are dependent)."""
    g1, g2 = twin_generators(rng) if COUPLED else (rng, rng)
    return draw(mechanism, p.d, n, g1, chunk_size=chunk_size), draw(mechanism, p.d_prime, n, g2, chunk_size=chunk_size)


def _score_pair(mechanism, p: Pair, attacks, ctx: SelectionContext, halves, rng, chunk_size: int, n_s: int):
    """Cross-fitted held-out score of one pair after ``n_s`` more releases per side.

    ``halves`` holds the pair's earlier releases (``[A1, A2, B1, B2]``, or ``None``); with ``POOL`` the new
    releases are added to them and the score uses all of them.  Returns the score, the best event's text, the
    tie-break, the updated halves and the re-counted events of both folds (best held-out score first)."""
    Y1, Y2 = _draw_pair(mechanism, p, n_s, rng, chunk_size)
    h = n_s // 2
    parts = [Y1[:h], Y2[:h], Y1[h:], Y2[h:]]
    if halves is not None:
        parts = [np.concatenate([old, new]) for old, new in zip(halves, parts)]
    A1, A2, B1, B2 = parts
    atts = make_attacks(attacks, A1, log_density=ctx.log_density, max_categories=ctx.max_categories, Y_other=A2)
    atts = [a for a in atts if a.in_search] or atts  # costly families (gradient boosting) compete in selection only
    c = dataclasses.replace(ctx, pair=(p.d, p.d_prime), z=SELECT_Z, evidence_ties=False)
    preds, ties, texts, scored, variances = [], [], [], [], []
    for (f1, f2), (t1, t2) in (((A1, A2), (B1, B2)), ((B1, B2), (A1, A2))):
        evs = _select(atts, f1, f2, c)
        if PAIRED_SELECT:
            n = min(f1.shape[0], f2.shape[0])
            evs = paired_ranking(evs, f1[:n], f2[:n], c, PAIRED_Z)
        best, best_ev, tie, var = 0.0, "", -math.inf, math.inf
        for e in evs[:TOP]:
            i1, i2 = np.asarray(e.indicator(t1), bool), np.asarray(e.indicator(t2), bool)
            oriented = (i1, i2) if e.orientation > 0 else (i2, i1)
            v, t = _event_score(*oriented, ctx)
            scored.append((v, t, e))
            if (v, t) > (best, tie):
                best, best_ev, tie = v, e.describe(), t
                var = _log_ratio_var(*oriented)
        preds.append(best)
        ties.append(tie if math.isfinite(tie) else 0.0)
        texts.append(best_ev)
        variances.append(var)
    scored.sort(key=lambda x: (-x[0], -x[1]))
    events = [e for _, _, e in scored]
    se = math.sqrt(sum(variances)) / 2  # the mean of two folds scored on disjoint halves
    return float(np.mean(preds)), texts[int(np.argmax(preds))], float(np.mean(ties)), parts, events, se


def _held_size(parts) -> int:
    """Releases per side held in ``[A1, A2, B1, B2]``."""
    return int(parts[0].shape[0] + parts[2].shape[0])


def _plan_rounds(n_pairs: int, n_search: int, min_per_pair: int) -> list[tuple[float, int]]:
    """``ROUNDS`` for ``n_pairs`` pairs as (share of the budget, pairs scored): a round that would score as many
    pairs as the one before or a single pair is merged into the round before; one round only when the first
    would give a pair fewer than ``min_per_pair`` releases per side."""
    if ROUNDS[0][0] * n_search / n_pairs < min_per_pair:
        return [(1.0, n_pairs)]
    out: list[list] = []
    for share, frac in ROUNDS:
        k = max(1, math.ceil(n_pairs * frac))
        if out and (k <= 1 or k >= out[-1][1]):
            out[-1][0] += share
        else:
            out.append([share, k])
    return [(float(sh), int(k)) for sh, k in out]


def _survivors(ranked: list, k: int, r: int) -> tuple[list, list]:
    """The pairs that go on to round ``r`` (``ranked`` best first) and those eliminated: the first ``k``, and with
    ``ELIM_Z`` also every later pair whose score plus ``ELIM_Z`` standard errors reaches the ``k``-th pair's score
    minus ``ELIM_Z`` of its standard errors."""
    if ELIM_Z is None or r == 1 or k >= len(ranked):
        return ranked[:k], ranked[k:]
    bar = ranked[k - 1].predicted - ELIM_Z * ranked[k - 1].se
    late = {id(s) for s in ranked[k:] if s.predicted + ELIM_Z * s.se >= bar}
    return ranked[:k] + [s for s in ranked[k:] if id(s) in late], [s for s in ranked[k:] if id(s) not in late]


def search_pairs(
    mechanism: Any,
    pairs: Any,
    attacks: Any,
    ctx: SelectionContext,
    *,
    n_search: int,
    rng: np.random.Generator,
    chunk_size: int = 1_000_000,
    max_per_pair: int | None = None,
    min_per_pair: int = MIN_PER_PAIR,
) -> list[SearchResult]:
    """Rank candidate pairs by successive halving with cross-fitted held-out scores (see the module docstring).

    Parameters
    ----------
    mechanism
        the auditor mechanism ``(data, size, rng) -> (size, ...)``.
    pairs
        the candidate pairs (``Pair`` objects or ``(D, D')`` tuples).
    attacks
        what the audit will use (``"auto"``, names or ``Attack`` objects).
    ctx
        the audit's :class:`~htdp_verify.privacy.attacks.SelectionContext` (final size, per-event α, δ).
    n_search
        releases **per side** for the whole search (all pairs, all rounds); every pair scored in a round
        gets at least ``min_per_pair`` per side.  With two pairs, or a budget too thin for a first round of
        ``min_per_pair`` per pair, there is one round only (so the search spends at most
        ``max(n_search, min_per_pair * #pairs)``).
    rng
        the generator every release is drawn from.
    chunk_size
        releases per mechanism call.
    max_per_pair
        most releases per side one pair may be scored on in a round (the memory budget's cap, see
        :func:`~htdp_verify.privacy.streaming.held_releases_cap`; never below ``min_per_pair``); the releases
        the survivors keep for pooling, together with the pair being scored, stay within it too (a pair that
        would exceed it is scored on its new releases only).
    min_per_pair
        fewest releases per side a pair is scored on in a round (default ``MIN_PER_PAIR``; ``audit()``
        passes less when the caller chose a smaller ``n_search``, e.g. for estimators that cost seconds a release).

    Returns
    -------
    list of SearchResult
        Every pair, the survivors of the last round best first, then the pairs eliminated earlier in their ranking
        at elimination.
    """
    pair_list = as_pairs(pairs)
    n_search = check_int("n_search", n_search, minimum=20)
    rounds = _plan_rounds(len(pair_list), n_search, min_per_pair)
    cap = None if max_per_pair is None else max(max_per_pair, min_per_pair)
    keep: list[SearchResult] = [SearchResult(p, 0.0) for p in pair_list]
    eliminated: list[SearchResult] = []
    held: dict[int, list] = {}
    for r, (share, k) in enumerate(rounds, start=1):
        keep, out = _survivors(keep, k, r)
        eliminated = out + eliminated
        held = {key: v for key, v in held.items() if key in {id(s) for s in keep}}  # the eliminated pairs' go
        n_s = max(min_per_pair, int(share * n_search / len(keep)))
        if cap is not None:
            n_s = min(n_s, cap)
        for s in keep:
            old = held.pop(id(s), None)
            others = sum(_held_size(v) for v in held.values())
            if old is not None and (not POOL or (cap is not None and others + _held_size(old) + n_s > cap)):
                old = None  # pooling off, or all the releases held would exceed the memory budget's cap
            s.predicted, s.event, s.tie, parts, s.events, s.se = _score_pair(
                mechanism, s.pair, attacks, ctx, old, rng, chunk_size, n_s
            )
            if POOL and r < len(rounds) and (cap is None or others + _held_size(parts) <= cap):
                held[id(s)] = parts
            s.n_per_side, s.round = n_s, r
            s.drawn += n_s
        keep.sort(key=lambda s: (-s.predicted, -s.tie))
    return keep + eliminated
