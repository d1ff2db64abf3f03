"""Paired event scores for releases drawn with common random numbers (the pair search's coupled draws).

When row ``i`` of the releases on ``D`` and row ``i`` on ``D'`` were drawn from generators in the same state, an
event's indicators on the two sides are positively correlated and the log-ratio of its two proportions is
estimated with a far smaller error than the independent-sides error the attacks' scans assume (the delta method
with the two sides' covariance).  For the sparse vector technique's best event on its best pairs (one outcome of
probability ~0.02 with log-ratio ~0.09) the paired error at 4·10³ releases per side is about a sixth of the
independent one, so a scan judged by independent errors buries that event under rare lucky ones while a paired
scan finds it.

* :func:`paired_scores` — the predicted certified bound of events from their paired proportions, the numerator's
  proportion lowered by ``z`` paired standard errors of the log-ratio (vectorised).
* :func:`paired_rescan` — re-scan the features of the given events on paired releases: every threshold of a
  threshold / interval feature, every prefix union of the outcomes of a set feature (ordered by their ratio), both
  orientations, each judged by its paired score; returns the best of each.

* :func:`twin_generators` — two generators in the same state (the coupled draws themselves).
* :func:`joint_proportion` — the proportion of paired rows inside an event on both sides, estimated on aligned rows
  for proportions counted elsewhere (the streamed selection counts each side on its own).

This is a selection device only (it spends no α): the pair search uses it to choose the events it then re-counts
on held-out releases, and so does the selection stage with ``selection.COUPLED_SELECT`` (an experiment switch, off
by default); the certification never sees coupled draws.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .attacks import Event, predicted_bound, union_pessimism
from .attacks.events import isin_nan

__all__ = [
    "log_ratio_variance",
    "paired_scores",
    "paired_rescan",
    "paired_ranking",
    "twin_generators",
    "joint_proportion",
    "GRID",
    "MAX_FEATURES",
    "MIN_JOINT",
]

GRID = 512  # thresholds per paired scan (ranks spread uniformly, plus geometric tails)
MAX_FEATURES = 64  # features re-scanned: those of the best events by the attacks' own predictions (wide releases)


def log_ratio_variance(pn: Any, pd: Any, pab: Any, n: Any) -> Any:
    """Delta-method variance of the log-ratio ``log(pn / pd)`` of an event's proportions on ``n`` paired rows.

    Parameters
    ----------
    pn, pd : float or array_like
        Proportions of the event on the numerator side and on the denominator side (both positive).
    pab : float or array_like
        Proportion of rows where the event holds on both sides (``pn * pd`` for independent sides).
    n : int or float
        Paired rows.

    Returns
    -------
    float or numpy.ndarray
        ``((1 - pn) / pn + (1 - pd) / pd - 2 (pab - pn pd) / (pn pd)) / n`` (may be slightly negative from rounding:
        callers clip at 0).
    """
    return ((1 - pn) / pn + (1 - pd) / pd - 2 * (pab - pn * pd) / (pn * pd)) / n


def paired_scores(pn: Any, pd: Any, pab: Any, n: int, ctx: Any, z: Any) -> np.ndarray:
    """Predicted certified bound of events from paired proportions (vectorised over events).

    Parameters
    ----------
    pn, pd : array_like
        Proportions of the event on the numerator side and on the denominator side (``n`` paired rows).
    pab : array_like
        Proportion of rows where the event holds on both sides.
    n : int
        Paired rows.
    ctx : SelectionContext
        Gives the final size ``n_final``, the per-event ``alpha`` and ``delta``.
    z : float or array_like
        Paired standard errors of pessimism on the log-ratio.

    Returns
    -------
    numpy.ndarray
        The bound each event is predicted to certify at ``ctx.n_final`` releases per side (0 when a side never
        saw the event: the paired error is then undefined and such events are left to the independent scans).
    """
    pn, pd, pab = (np.asarray(x, dtype=float) for x in (pn, pd, pab))
    ok = (pn > 0) & (pd > 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        var = np.where(ok, log_ratio_variance(pn, pd, pab, max(int(n), 1)), 0.0)
    low = pn * np.exp(-np.asarray(z, dtype=float) * np.sqrt(np.maximum(var, 0.0)))
    pred = predicted_bound(low, pd, ctx.n_final, ctx.alpha, ctx.delta, "epsilon", None, None, 0.0)
    return np.where(ok, pred, 0.0)


def _grid(f1: np.ndarray, f2: np.ndarray, m: int) -> np.ndarray:
    """Candidate thresholds: pooled finite-or-infinite (non-NaN) scores at uniform ranks plus geometric tails."""
    a = np.sort(np.concatenate([f1, f2]))
    a = a[~np.isnan(a)]
    n = a.size
    if n <= m:
        return np.unique(a)
    lin = np.linspace(0, n - 1, m // 2).astype(np.int64)
    geo = np.unique(np.geomspace(1, n / 2, m // 4).astype(np.int64)) - 1
    return np.unique(a[np.clip(np.concatenate([lin, geo, n - 1 - geo]), 0, n - 1)])


def _count_ge(s: np.ndarray, grid: np.ndarray) -> np.ndarray:
    a = np.sort(s[~np.isnan(s)])
    return a.size - np.searchsorted(a, grid, "left")


def _count_le(s: np.ndarray, grid: np.ndarray) -> np.ndarray:
    a = np.sort(s[~np.isnan(s)])
    return np.searchsorted(a, grid, "right")


def _threshold_events(feature, attack: str, f1: np.ndarray, f2: np.ndarray, ctx, z: float) -> list[Event]:
    n = f1.size
    grid = _grid(f1, f2, GRID)
    if grid.size == 0:
        return []
    with np.errstate(invalid="ignore"):
        lo, hi = np.minimum(f1, f2), np.maximum(f1, f2)  # NaN propagates: never in an event
    out = []
    for side, c1, c2, both in (
        (">=", _count_ge(f1, grid), _count_ge(f2, grid), _count_ge(lo, grid)),
        ("<=", _count_le(f1, grid), _count_le(f2, grid), _count_le(hi, grid)),
    ):
        for orient, cn, cd in ((1, c1, c2), (-1, c2, c1)):
            pred = paired_scores(cn / n, cd / n, both / n, n, ctx, z)
            j = int(np.argmax(pred))
            if pred[j] > 0:
                ev = Event("threshold", feature, side, (float(grid[j]),), orient, attack, float(pred[j]))
                ev.sel_props = (float(cn[j] / n), float(cd[j] / n))
                out.append(ev)
    return out


def _set_events(feature, attack: str, k1: np.ndarray, k2: np.ndarray, ctx, z: float) -> list[Event]:
    n = k1.shape[0]
    cats, inv = np.unique(np.concatenate([k1, k2]), return_inverse=True)
    inv = np.asarray(inv).ravel()
    K = cats.size
    if K < 2 or K > ctx.max_categories:
        return []
    i1, i2 = inv[:n], inv[n:]
    c1, c2 = np.bincount(i1, minlength=K), np.bincount(i2, minlength=K)
    zj = z / 3.0 * union_pessimism(np.arange(1, K + 1), K)  # scaled like the threshold scans' z (3 s.e.)
    out = []
    for orient, cn, cd, r_num, r_den in ((1, c1, c2, i1, i2), (-1, c2, c1, i2, i1)):
        order = np.argsort(-(cn + 0.5) / (cd + 0.5), kind="stable")
        rank = np.empty(K, dtype=np.int64)
        rank[order] = np.arange(K)
        both = np.cumsum(np.bincount(np.maximum(rank[r_num], rank[r_den]), minlength=K))
        pred = paired_scores(np.cumsum(cn[order]) / n, np.cumsum(cd[order]) / n, both / n, n, ctx, zj)
        j = int(np.argmax(pred))
        if pred[j] > 0:
            ev = Event("set", feature, "in", (cats[order[: j + 1]],), orient, attack, float(pred[j]))
            ev.sel_props = (float(np.sum(cn[order[: j + 1]]) / n), float(np.sum(cd[order[: j + 1]]) / n))
            out.append(ev)
    return out


def paired_rescan(events: list[Event], Y1: Any, Y2: Any, ctx: Any, z: float = 3.0) -> list[Event]:
    """Re-scan the features of ``events`` on paired releases ``Y1`` (on D) and ``Y2`` (on D'), row ``i`` of both
    drawn with the same random numbers, judging every candidate by :func:`paired_scores` at ``z`` paired standard
    errors (unions of ``j`` of ``K`` outcomes at ``z / 3`` times :func:`~.attacks.union_pessimism` ``(j, K)``).

    Parameters
    ----------
    events : list of Event
        Events proposed by the attacks; each distinct feature is re-scanned once (threshold and interval
        features as thresholds, set features as prefix unions of their outcomes ordered by the ratio), at most
        ``MAX_FEATURES`` of them: those whose best event the attacks predicted highest.
    Y1, Y2 : array_like
        Paired releases on D and on D' (the same number of rows).
    ctx : SelectionContext
        Final size, α and δ of the prediction; ``max_categories`` caps set features.
    z : float, default 3.0
        Paired standard errors of pessimism.

    Returns
    -------
    list of Event
        The best event per feature, side and orientation with a positive paired score, best first; ``predicted``
        holds the paired score.
    """
    return _ranked(events, Y1, Y2, ctx, z, keep_given=False)


def _by_feature(events: list[Event]) -> list[list[Event]]:
    """The events grouped by their feature (first appearance order)."""
    groups: dict[int, list[Event]] = {}
    for e in events:
        groups.setdefault(id(e.feature), []).append(e)
    return list(groups.values())


def _indicator(e: Event, s: np.ndarray) -> np.ndarray:
    """``e.indicator`` from the feature's scores ``s`` (the same sets as :meth:`~.attacks.Event.indicator`)."""
    if e.kind == "threshold":
        return s >= e.params[0] if e.side == ">=" else s <= e.params[0]
    if e.kind == "interval":
        return (s >= e.params[0]) & (s <= e.params[1])
    return isin_nan(s, e.params[0])


def _check_paired(Y1, Y2):
    Y1, Y2 = np.asarray(Y1), np.asarray(Y2)
    if Y1.shape[0] != Y2.shape[0]:
        raise ValueError(f"Y1 and Y2 must have the same number of rows (paired), got {Y1.shape[0]} and {Y2.shape[0]}")
    return Y1, Y2


def _rescan_feature(e: Event, s1: np.ndarray, s2: np.ndarray, ctx, z: float) -> list[Event]:
    """The paired scan of ``e``'s feature from its scores on both sides."""
    if s1.shape[0] < 2 or not math.isfinite(z):
        return []
    if e.kind == "set":
        return _set_events(e.feature, e.attack, s1.ravel(), s2.ravel(), ctx, z)
    return _threshold_events(e.feature, e.attack, s1.astype(float).ravel(), s2.astype(float).ravel(), ctx, z)


def _ranked(events, Y1, Y2, ctx, z, keep_given: bool) -> list[Event]:
    """Paired scan of every feature (one feature's scores in memory at a time: a wide release has as many
    coordinate features as columns), plus the given events scored the same way when ``keep_given``."""
    Y1, Y2 = _check_paired(Y1, Y2)
    n = Y1.shape[0]
    groups = sorted(_by_feature(events), key=lambda g: -max(e.predicted for e in g))
    rest = [e for g in groups[MAX_FEATURES:] for e in g] if keep_given else []
    scored: list[tuple[float, Event]] = []
    for group in groups[:MAX_FEATURES]:
        f = group[0].feature
        s1, s2 = np.asarray(f(Y1)), np.asarray(f(Y2))
        if keep_given:
            for e in group:
                i1, i2 = np.asarray(_indicator(e, s1), bool).ravel(), np.asarray(_indicator(e, s2), bool).ravel()
                a, b = (i1, i2) if e.orientation > 0 else (i2, i1)
                scored.append((float(paired_scores(a.mean(), b.mean(), np.mean(a & b), n, ctx, z)), e))
        scored += [(e.predicted, e) for e in _rescan_feature(group[0], s1, s2, ctx, z)]
    scored.sort(key=lambda t: -t[0])
    return [e for _, e in scored] + sorted(rest, key=lambda e: -e.predicted)


def paired_ranking(events: list[Event], Y1: Any, Y2: Any, ctx: Any, z: float = 3.0) -> list[Event]:
    """``events`` and the :func:`paired_rescan` of their features, ranked by their paired scores at ``z`` on the
    paired releases ``Y1``/``Y2`` (each feature evaluated once, one at a time).

    Parameters
    ----------
    events : list of Event
        Events proposed by the attacks.
    Y1, Y2 : array_like
        Paired releases on D and on D' (the same number of rows).
    ctx : SelectionContext
        Final size, α and δ of the prediction.
    z : float, default 3.0
        Paired standard errors of pessimism.

    Returns
    -------
    list of Event
        All of them, best paired score first (the events passed in keep their own ``predicted``); the events of
        features beyond ``MAX_FEATURES`` follow, by their own prediction, unscored.
    """
    return _ranked(events, Y1, Y2, ctx, z, keep_given=True)


def twin_generators(rng: np.random.Generator) -> tuple[np.random.Generator, np.random.Generator]:
    """Two generators in the same state, seeded by one draw from ``rng`` (common random numbers: a mechanism that
    consumes its generator the same way on both sides then releases row ``i`` of ``D`` and of ``D'`` from the same
    noise; each side's law is exactly the mechanism's).

    Parameters
    ----------
    rng : numpy.random.Generator
        The audit's generator (advanced by one draw).

    Returns
    -------
    tuple of numpy.random.Generator
        The generators of the two sides.
    """
    seed = int(rng.integers(0, 2**63 - 1))
    return np.random.default_rng(seed), np.random.default_rng(seed)


MIN_JOINT = 10  # fewest aligned releases per side inside an event for its co-occurrence to be estimated


def joint_proportion(e: Event, pn: float, pd: float, Y1: Any, Y2: Any) -> float:
    """Proportion of paired rows where ``e`` holds on both sides, for an event whose proportions ``pn`` / ``pd``
    (numerator / denominator side) were counted elsewhere: the conditional co-occurrence is estimated on the
    aligned rows ``Y1`` / ``Y2`` (row ``i`` of both drawn from the same random numbers) and scaled to the
    proportions, ``min(pn · P(both | numerator), pd · P(both | denominator))`` (never above ``min(pn, pd)``, so the
    paired variance stays non-negative).  With fewer than ``MIN_JOINT`` aligned rows inside the event on a side the
    sides are taken as independent (``pn · pd``).

    Parameters
    ----------
    e : Event
        The event (its orientation says which side is the numerator).
    pn, pd : float
        Its proportions on the numerator and the denominator side.
    Y1, Y2 : array_like
        Aligned releases on D and on D' (the same number of rows).

    Returns
    -------
    float
        The estimated proportion of rows inside ``e`` on both sides.
    """
    Y1, Y2 = _check_paired(Y1, Y2)
    i1, i2 = np.asarray(e.indicator(Y1), bool).ravel(), np.asarray(e.indicator(Y2), bool).ravel()
    a, b = (i1, i2) if e.orientation > 0 else (i2, i1)
    ka, kb, kab = int(np.count_nonzero(a)), int(np.count_nonzero(b)), int(np.count_nonzero(a & b))
    if min(ka, kb) < MIN_JOINT:
        return float(pn * pd)
    return float(min(pn * kab / ka, pd * kab / kb))
