"""Threshold and interval scans (the workhorse): every candidate counted at once with ``searchsorted``."""

from __future__ import annotations

from typing import Any

import numpy as np

from .events import Event, Feature, SelectionContext
from .scoring import predicted_bound

__all__ = ["scan_thresholds", "scan_intervals"]


def _sorted_valid(s):
    s = np.asarray(s, dtype=float).ravel()
    a = np.sort(s)
    nv = int(np.searchsorted(a, np.nan)) if np.isnan(a[-1]) else a.size  # NaNs sort last
    return a[:nv], s.size


def _candidates(a1, a2, m: int) -> np.ndarray:
    """Candidate thresholds covering the whole range: uniform-in-rank plus geometric tails on both sides."""
    out = []
    for a in (a1, a2):
        n = a.size
        if n == 0:
            continue
        if n <= m // 2:
            out.append(a)
            continue
        lin = np.linspace(0, n - 1, m // 4).astype(np.int64)
        geo = np.unique(np.geomspace(1, n / 2, m // 8).astype(np.int64)) - 1
        idx = np.concatenate([lin, geo, n - 1 - geo])
        out.append(a[np.clip(idx, 0, n - 1)])
    if not out:
        return np.empty(0)
    return np.unique(np.concatenate(out))


def scan_thresholds(s1: Any, s2: Any, ctx: SelectionContext, feature: Feature, attack: str) -> list[Event]:
    """Best threshold event for each side (``>=``, ``<=``) and orientation, by predicted certified bound.

    ``s1``/``s2`` are scores on the selection releases of D and D'.  All candidate thresholds (up to
    ``ctx.max_candidates``, spread over the whole range including both extreme tails) are counted at once.

    Parameters
    ----------
    s1, s2 : array_like
        Scores on the selection releases of D and D'.
    ctx : SelectionContext
        The audit's selection context.
    feature : Feature
        The feature the scores come from.
    attack : str
        Name of the attack family (recorded in the event).

    Returns
    -------
    list of Event
        The best event per side and orientation.
    """
    a1, n1 = _sorted_valid(s1)
    a2, n2 = _sorted_valid(s2)
    cand = _candidates(a1, a2, ctx.max_candidates)
    if cand.size == 0:
        return []
    ge1 = (a1.size - np.searchsorted(a1, cand, "left")) / n1
    ge2 = (a2.size - np.searchsorted(a2, cand, "left")) / n2
    le1 = np.searchsorted(a1, cand, "right") / n1
    le2 = np.searchsorted(a2, cand, "right") / n2
    combos = [(">=", 1, ge1, ge2), (">=", -1, ge2, ge1), ("<=", 1, le1, le2), ("<=", -1, le2, le1)]
    num = np.stack([c[2] for c in combos])
    den = np.stack([c[3] for c in combos])
    nn = np.array([n1, n2, n1, n2])[:, None]
    nd = np.array([n2, n1, n2, n1])[:, None]
    pred = predicted_bound(num, den, ctx.n_final, ctx.alpha, ctx.delta, ctx.objective, nn, nd, ctx.z)
    events = []
    for i, (side, orient, _, _) in enumerate(combos):
        j = int(np.argmax(pred[i]))
        events.append(
            Event(
                "threshold",
                feature,
                side,
                (float(cand[j]),),
                orient,
                attack,
                float(pred[i, j]),
                (float(num[i, j]), float(den[i, j])),
            )
        )
    return events


def scan_intervals(s1: Any, s2: Any, ctx: SelectionContext, feature: Feature, attack: str) -> list[Event]:
    """Best interval ``[a, b]`` per orientation over a quantile grid of end points (vectorised over all pairs).

    Parameters
    ----------
    s1, s2 : array_like
        Scores on the selection releases of D and D'.
    ctx : SelectionContext
        The audit's selection context.
    feature : Feature
        The feature the scores come from.
    attack : str
        Name of the attack family (recorded in the event).

    Returns
    -------
    list of Event
        The best event per orientation.
    """
    a1, n1 = _sorted_valid(s1)
    a2, n2 = _sorted_valid(s2)
    cand = _candidates(a1, a2, ctx.max_candidates)
    if cand.size < 2:
        return []
    if cand.size > ctx.max_interval_grid:
        cand = cand[np.linspace(0, cand.size - 1, ctx.max_interval_grid).astype(np.int64)]
    lt1, le1 = np.searchsorted(a1, cand, "left"), np.searchsorted(a1, cand, "right")
    lt2, le2 = np.searchsorted(a2, cand, "left"), np.searchsorted(a2, cand, "right")
    p1 = (le1[None, :] - lt1[:, None]) / n1  # rows: a = cand[i], cols: b = cand[j]
    p2 = (le2[None, :] - lt2[:, None]) / n2
    valid = np.triu(np.ones((cand.size, cand.size), bool))
    events = []
    for orient, num, den, nn, nd in ((1, p1, p2, n1, n2), (-1, p2, p1, n2, n1)):
        pred = np.where(
            valid, predicted_bound(num, den, ctx.n_final, ctx.alpha, ctx.delta, ctx.objective, nn, nd, ctx.z), -1.0
        )
        i, j = np.unravel_index(int(np.argmax(pred)), pred.shape)
        events.append(
            Event(
                "interval",
                feature,
                "[]",
                (float(cand[i]), float(cand[j])),
                orient,
                attack,
                float(pred[i, j]),
                (float(num[i, j]), float(den[i, j])),
            )
        )
    return events
