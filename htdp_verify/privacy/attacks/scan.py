"""Threshold, interval and outcome-union scans (the workhorse): every candidate counted at once with ``searchsorted``.

Each scan fixes a *grid* of candidates (thresholds, interval end points, outcomes) from the scores it is given,
counts both samples at every grid point, and keeps the best candidate per side and orientation.  Counts at a fixed
grid are additive, so a scan can also be recorded as a :class:`ScanFamily` (when the context carries a
``families`` list): the grid and the counts so far, to which further releases are added chunk by chunk, and from
which the events are chosen again on all of them (:mod:`~htdp_verify.privacy.selection_stream`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .events import Event, Feature, SelectionContext
from .scoring import predicted_bound, union_pessimism

__all__ = ["ScanFamily", "scan_thresholds", "scan_intervals", "scan_sets"]


def _sorted_valid(s):
    s = np.asarray(s, dtype=float).ravel()
    a = np.sort(s)
    nv = int(np.searchsorted(a, np.nan)) if a.size and np.isnan(a[-1]) else a.size  # NaNs sort last
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


class _Tally:
    """Counts of one side at a grid: releases ``n``, non-NaN scores ``nv``, and per grid point ``lt`` (scores
    below it) and ``le`` (scores at or below it); for outcome grids ``lt`` holds the count of each outcome."""

    def __init__(self, size: int, ordered: bool):
        self.n = 0
        self.nv = 0
        self.lt = np.zeros(size, dtype=np.int64)
        self.le: np.ndarray | None = np.zeros(size, dtype=np.int64) if ordered else None

    @property
    def at_or_below(self) -> np.ndarray:
        """``le`` of an ordered grid (``ValueError`` on an outcome grid, which has none)."""
        if self.le is None:
            raise ValueError("an outcome grid has no at-or-below counts")
        return self.le

    def __iadd__(self, other: _Tally) -> _Tally:
        self.n += other.n
        self.nv += other.nv
        self.lt += other.lt
        if self.le is not None:
            self.le += other.at_or_below
        return self


def _tally_sorted(a: np.ndarray, n: int, grid: np.ndarray) -> _Tally:
    t = _Tally(0, True)
    t.n, t.nv = int(n), int(a.size)
    t.lt = np.searchsorted(a, grid, "left").astype(np.int64)
    t.le = np.searchsorted(a, grid, "right").astype(np.int64)
    return t


def _tally_keys(keys: np.ndarray, cats: np.ndarray) -> _Tally:
    """Count of each outcome of ``cats`` (sorted, unique) among ``keys``; other outcomes are not counted."""
    keys = np.asarray(keys).ravel()
    t = _Tally(cats.size, False)
    t.n = t.nv = int(keys.size)
    if keys.size:
        u, inv = np.unique(np.concatenate([cats, keys]), return_inverse=True)
        inv = inv.ravel()
        cat_of = np.full(u.size, -1, dtype=np.int64)
        cat_of[inv[: cats.size]] = np.arange(cats.size)
        idx = cat_of[inv[cats.size :]]
        t.lt = np.bincount(idx[idx >= 0], minlength=cats.size).astype(np.int64)
    return t


def _event(kind, feature, side, params, orient, attack, pred, props) -> Event:
    return Event(kind, feature, side, params, orient, attack, float(pred), (float(props[0]), float(props[1])))


def log_ratio_z(num: Any, den: Any, nn: Any, nd: Any) -> Any:
    """z-statistic of an event's log ratio from its proportions ``num`` of ``nn`` and ``den`` of ``nd`` releases,
    with 0.5-smoothed counts (vectorised; entries with negative counts give NaN, without a warning).

    Parameters
    ----------
    num, den : array_like
        The event's proportions on the favoured side and on the other side.
    nn, nd : int or array_like
        Releases on each side.

    Returns
    -------
    numpy.ndarray or float
        ``ln(k1/nn · nd/k2) / sqrt(1/k1 + 1/k2)`` with ``k = proportion · releases + 0.5``.
    """
    k1, k2 = np.asarray(num) * nn + 0.5, np.asarray(den) * nd + 0.5
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.log((k1 / nn) / (k2 / nd)) / np.sqrt(1 / k1 + 1 / k2)


def _best(pred: np.ndarray, num: np.ndarray, den: np.ndarray, nn, nd, ctx) -> Any:
    """Index of the best candidate: the largest predicted bound or, when every candidate predicts 0 and
    ``ctx.evidence_ties``, the largest z-statistic of the log ratio (0.5-smoothed counts).  Before, the first
    candidate won those ties: the lowest threshold (an event holding every release) or the rarest outcome, which
    certified 0 on a discrete Laplace at ε = 0.05 at 23 of 40 seeds where a threshold certifies ~0.036."""
    j = np.unravel_index(int(np.argmax(pred)), pred.shape)
    if pred[j] > 0 or not getattr(ctx, "evidence_ties", False):
        return j
    z = log_ratio_z(num, den, nn, nd)  # NaN outside the grid (a > b intervals have negative counts)
    z = np.where((pred >= pred[j]) & np.isfinite(z), z, -np.inf)  # only among the tied candidates
    return np.unravel_index(int(np.argmax(z)), z.shape)


def _choose_thresholds(grid, t1: _Tally, t2: _Tally, ctx, feature, attack) -> tuple[list[Event], list]:
    n1, n2 = t1.n, t2.n
    ge1, ge2 = (t1.nv - t1.lt) / n1, (t2.nv - t2.lt) / n2
    le1, le2 = t1.at_or_below / n1, t2.at_or_below / n2
    combos = [(">=", 1, ge1, ge2), (">=", -1, ge2, ge1), ("<=", 1, le1, le2), ("<=", -1, le2, le1)]
    num = np.stack([c[2] for c in combos])
    den = np.stack([c[3] for c in combos])
    nn = np.array([n1, n2, n1, n2])[:, None]
    nd = np.array([n2, n1, n2, n1])[:, None]
    pred = predicted_bound(num, den, ctx.n_final, ctx.alpha, ctx.delta, ctx.objective, nn, nd, ctx.z)
    events, where = [], []
    for i, (side, orient, _, _) in enumerate(combos):
        j = int(_best(pred[i], num[i], den[i], nn[i, 0], nd[i, 0], ctx)[0])
        events.append(
            _event("threshold", feature, side, (float(grid[j]),), orient, attack, pred[i, j], (num[i, j], den[i, j]))
        )
        where.append(j)
    return events, where


def _interval_props(t: _Tally) -> np.ndarray:
    return (t.at_or_below[None, :] - t.lt[:, None]) / t.n  # rows: a = grid[i], cols: b = grid[j]


def _choose_intervals(grid, t1: _Tally, t2: _Tally, ctx, feature, attack) -> tuple[list[Event], list]:
    n1, n2 = t1.n, t2.n
    p1, p2 = _interval_props(t1), _interval_props(t2)
    valid = np.triu(np.ones((grid.size, grid.size), bool))
    events, where = [], []
    for orient, num, den, nn, nd in ((1, p1, p2, n1, n2), (-1, p2, p1, n2, n1)):
        pred = np.where(
            valid, predicted_bound(num, den, ctx.n_final, ctx.alpha, ctx.delta, ctx.objective, nn, nd, ctx.z), -1.0
        )
        i, j = _best(pred, num, den, nn, nd, ctx)
        params = (float(grid[i]), float(grid[j]))
        events.append(_event("interval", feature, "[]", params, orient, attack, pred[i, j], (num[i, j], den[i, j])))
        where.append((int(i), int(j)))
    return events, where


def _choose_sets(cats, t1: _Tally, t2: _Tally, ctx, feature, attack, pessimism=None) -> tuple[list[Event], list]:
    n1, n2 = t1.n, t2.n
    c1, c2 = t1.lt / n1, t2.lt / n2
    events, where = [], []
    for orient, num, den, nn, nd in ((1, c1, c2, n1, n2), (-1, c2, c1, n2, n1)):
        ratio = (num + 0.5 / nn) / (den + 0.5 / nd)
        order = np.argsort(-ratio, kind="stable")
        cn, cd = np.cumsum(num[order]), np.cumsum(den[order])
        zj = (pessimism or union_pessimism)(np.arange(1, cats.size + 1), cats.size)
        pred = predicted_bound(cn, cd, ctx.n_final, ctx.alpha, ctx.delta, ctx.objective, nn, nd, zj)
        j = int(_best(pred, cn, cd, nn, nd, ctx)[0])
        events.append(_event("set", feature, "in", (cats[order[: j + 1]],), orient, attack, pred[j], (cn[j], cd[j])))
        where.append(order[: j + 1])
    return events, where


_CHOOSE: dict[str, Callable[..., tuple[list[Event], list]]] = {
    "threshold": _choose_thresholds,
    "interval": _choose_intervals,
    "set": _choose_sets,
}


class ScanFamily:
    """A recorded scan: its feature, fixed grid and counts, to which more releases can be added in chunks.

    Counts are kept per *part* (``"scan"``: the releases events are chosen on; ``"held"``: releases held out to
    re-score the chosen events) and per side (0: releases on D, 1: on D').  :meth:`events` chooses the best
    candidate per side and orientation from the counts of the given parts by the scan's own rule, so a family
    fed all releases in one call or in any number of chunks chooses the same events.

    Parameters
    ----------
    kind : str
        ``"threshold"``, ``"interval"`` or ``"set"``.
    feature : Feature
        Map from releases to scores (threshold, interval) or exact keys (set).
    attack : str
        Name of the attack family (recorded in the events).
    ctx : SelectionContext or None
        The context of the scan (its objective, level, pessimism); ``None`` for a family that only counts
        (:meth:`blank`), whose :meth:`events` then need a ``ctx``.
    grid : numpy.ndarray
        Candidate thresholds, interval end points, or outcomes (sorted, unique).
    pessimism : callable, optional
        Set families: the pessimism of a union of ``j`` of ``K`` outcomes (default :func:`union_pessimism`).
    """

    def __init__(
        self, kind: str, feature: Any, attack: str, ctx: SelectionContext | None, grid: np.ndarray, pessimism=None
    ):
        if kind not in _CHOOSE:
            raise ValueError(f"kind must be 'threshold', 'interval' or 'set', got {kind!r}")
        self.kind, self.feature, self.attack, self.ctx, self.grid = kind, feature, attack, ctx, grid
        self.pessimism = pessimism
        self.parts: dict[str, list[_Tally]] = {}
        self._where: dict[int, Any] = {}

    def blank(self) -> ScanFamily:
        """The family without its counts or context: its kind, feature and grid, all a process needs to count
        further releases (:meth:`tally`) and cheap to send to another one.

        Returns
        -------
        ScanFamily
            A family with no counts, whose tallies add to this one's (:meth:`add_tally`).
        """
        return ScanFamily(self.kind, self.feature, self.attack, None, self.grid, self.pessimism)

    def tally(self, scores: Any) -> _Tally:
        """The counts of a chunk's scores (keys for set families) at this family's grid, not added to any part.

        Parameters
        ----------
        scores : array_like
            ``feature(Y)`` of the chunk.

        Returns
        -------
        _Tally
            Releases, valid scores and counts per grid point; tallies add with ``+=`` and :meth:`add_tally`.
        """
        if self.kind == "set":
            return _tally_keys(scores, self.grid)
        a, n = _sorted_valid(scores)
        return _tally_sorted(a, n, self.grid)

    def add_tally(self, part: str, side: int, t: _Tally) -> None:
        """Add a tally (from :meth:`tally` of this family or of its :meth:`blank`) to ``part`` of ``side``.

        Parameters
        ----------
        part : str
            ``"scan"`` or ``"held"``.
        side : int
            0 for releases on D, 1 for releases on D'.
        t : _Tally
            The counts added.
        """
        if side not in (0, 1):
            raise ValueError(f"side must be 0 or 1, got {side!r}")
        if part not in self.parts:
            ordered = self.kind != "set"
            self.parts[part] = [_Tally(self.grid.size, ordered), _Tally(self.grid.size, ordered)]
        self.parts[part][side] += t

    _tally = tally
    _add_tally = add_tally

    def add_scores(self, part: str, side: int, scores: Any) -> None:
        """Add the scores (keys for set families) of a chunk of releases of ``side`` (0: D, 1: D') to ``part``.

        Parameters
        ----------
        part : str
            ``"scan"`` or ``"held"``.
        side : int
            0 for releases on D, 1 for releases on D'.
        scores : array_like
            ``feature(Y)`` of the chunk.
        """
        self.add_tally(part, side, self.tally(scores))

    def add(self, part: str, side: int, Y: Any) -> None:
        """Add a chunk of releases ``Y`` of ``side`` to ``part`` (:meth:`add_scores` of ``feature(Y)``).

        Parameters
        ----------
        part : str
            ``"scan"`` or ``"held"``.
        side : int
            0 for releases on D, 1 for releases on D'.
        Y : array_like
            The releases.
        """
        self.add_scores(part, side, self.feature(Y))

    def sizes(self, parts=("scan",)) -> tuple[int, int]:
        """Releases counted per side in ``parts``.

        Parameters
        ----------
        parts : sequence of str, default ("scan",)
            The parts whose counts are summed.

        Returns
        -------
        tuple of int
            Releases counted on D and on D'.
        """
        t = self._total(parts)
        return t[0].n, t[1].n

    def _total(self, parts) -> list[_Tally]:
        ordered = self.kind != "set"
        out = [_Tally(self.grid.size, ordered), _Tally(self.grid.size, ordered)]
        for p in parts:
            for side in (0, 1):
                if p in self.parts:
                    out[side] += self.parts[p][side]
        return out

    def events(self, ctx: SelectionContext | None = None, parts=("scan",)) -> list[Event]:
        """The best event per side and orientation on the counts of ``parts`` (with ``ctx``, default the scan's).

        Parameters
        ----------
        ctx : SelectionContext, optional
            Objective, level and pessimism of the choice (default: the context of the recorded scan).
        parts : sequence of str, default ("scan",)
            The parts whose counts are summed.

        Returns
        -------
        list of Event
            The chosen events (none when no release was counted on a side).
        """
        t1, t2 = self._total(parts)
        if t1.n == 0 or t2.n == 0:
            return []
        extra = (self.pessimism,) if self.kind == "set" else ()
        events, where = _CHOOSE[self.kind](self.grid, t1, t2, ctx or self.ctx, self.feature, self.attack, *extra)
        for e, w in zip(events, where):
            self._where[id(e)] = (e, w)
        return events

    def counts(self, event: Event, part: str = "held") -> tuple[int, int, int, int]:
        """Counts of one of this family's chosen events in ``part``: ``(k on D, releases on D, k on D', on D')``.

        Parameters
        ----------
        event : Event
            An event returned by :meth:`events` of this family.
        part : str, default "held"
            The part counted.

        Returns
        -------
        tuple of int
            ``(k1, n1, k2, n2)``.
        """
        if id(event) not in self._where or self._where[id(event)][0] is not event:
            raise ValueError("event was not chosen by this family")
        w = self._where[id(event)][1]
        out = []
        for t in self._total((part,)):
            if self.kind == "threshold":
                k = t.nv - t.lt[w] if event.side == ">=" else t.at_or_below[w]
            elif self.kind == "interval":
                k = t.at_or_below[w[1]] - t.lt[w[0]]
            else:
                k = t.lt[w].sum()
            out += [int(k), t.n]
        return out[0], out[1], out[2], out[3]


def _record(ctx, kind, feature, attack, grid, t1, t2, pessimism=None):
    fams = getattr(ctx, "families", None)
    if fams is not None:
        fam = ScanFamily(kind, feature, attack, ctx, grid, pessimism)
        fam._add_tally("scan", 0, t1)
        fam._add_tally("scan", 1, t2)
        fams.append(fam)


def scan_thresholds(s1: Any, s2: Any, ctx: SelectionContext, feature: Feature, attack: str) -> list[Event]:
    """Best threshold event for each side (``>=``, ``<=``) and orientation, by predicted certified bound.

    ``s1``/``s2`` are scores on the selection releases of D and D' (``feature`` of them: a recorded
    :class:`ScanFamily` scores further releases with ``feature``).  All candidate thresholds (up to
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
    t1, t2 = _tally_sorted(a1, n1, cand), _tally_sorted(a2, n2, cand)
    _record(ctx, "threshold", feature, attack, cand, t1, t2)
    return _choose_thresholds(cand, t1, t2, ctx, feature, attack)[0]


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
    t1, t2 = _tally_sorted(a1, n1, cand), _tally_sorted(a2, n2, cand)
    _record(ctx, "interval", feature, attack, cand, t1, t2)
    return _choose_intervals(cand, t1, t2, ctx, feature, attack)[0]


def scan_sets(k1: Any, k2: Any, ctx: SelectionContext, feature: Any, attack: str, pessimism=None) -> list[Event]:
    """Best union of outcomes per orientation: outcomes ordered by their empirical ratio, best prefix kept.

    ``k1``/``k2`` are exact keys (``feature`` of the selection releases of D and D', one per release).  The
    prefix of ``j`` outcomes is judged with :func:`union_pessimism` ``(j, K)`` standard errors of selection
    pessimism (``K`` outcomes seen).  Nothing when there are more than ``ctx.max_categories`` distinct keys or
    more than 5 % of the pooled sample size.

    Parameters
    ----------
    k1, k2 : array_like
        Keys of the selection releases of D and D'.
    ctx : SelectionContext
        The audit's selection context.
    feature : Feature
        The feature the keys come from (its ``decode`` prints the outcomes).
    attack : str
        Name of the attack family (recorded in the event).
    pessimism : callable, optional
        ``pessimism(j, K)`` in standard errors (default :func:`union_pessimism`).

    Returns
    -------
    list of Event
        The best event per orientation.
    """
    k1, k2 = np.asarray(k1).ravel(), np.asarray(k2).ravel()
    cats, inv = np.unique(np.concatenate([k1, k2]), return_inverse=True)
    inv = inv.ravel()
    n1, n2 = k1.size, k2.size
    if cats.size > ctx.max_categories or cats.size > 0.05 * (n1 + n2):
        return []
    t1, t2 = _Tally(cats.size, False), _Tally(cats.size, False)
    t1.n = t1.nv = n1
    t2.n = t2.nv = n2
    t1.lt = np.bincount(inv[:n1], minlength=cats.size).astype(np.int64)
    t2.lt = np.bincount(inv[n1:], minlength=cats.size).astype(np.int64)
    _record(ctx, "set", feature, attack, cats, t1, t2, pessimism)
    return _choose_sets(cats, t1, t2, ctx, feature, attack, pessimism)[0]
