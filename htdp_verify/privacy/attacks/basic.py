"""Event families that need no model: thresholds and intervals on scalar releases, unions of outcomes, coordinates
and projections of vector releases."""

from __future__ import annotations

import numpy as np

from .events import Coordinate, Event, Identity, Projection, RowKey, SelectionContext, _as_2d
from .scan import scan_intervals, scan_sets, scan_thresholds
from .scoring import union_pessimism

__all__ = ["Attack", "ThresholdAttack", "IntervalAttack", "DiscreteAttack", "CoordinateAttack", "ProjectionAttack"]


class Attack:
    """An event family: ``select(Y1, Y2, ctx)`` returns candidate events (each with a predicted bound).

    ``applicable(Y)`` says whether the family makes sense for releases shaped like ``Y``.

    ``records_scans`` declares where the family's events come from.  ``True``: every event is chosen by one of
    the recorded scans of :mod:`.scan` (:func:`~.scan.scan_thresholds`, :func:`~.scan.scan_intervals`,
    :func:`~.scan.scan_sets`, each appending a :class:`~.scan.ScanFamily` with its grid and counts to
    ``ctx.families``); a large selection may then hold only ``FIT_CAP`` releases per side to fit the family and
    count the rest on a stream (:mod:`htdp_verify.privacy.selection_stream`), its events still chosen on the
    counts of all of them.  ``False`` (the default, e.g. a caller's own family): the events are chosen on the held
    releases alone, so the selection holds as many as ``max_memory`` allows.  Every engine family declares
    ``True`` and its subclasses inherit it; a subclass whose ``select`` no longer comes from a scan should set it
    to ``False``.  The declaration only decides how many releases are held: an event that turns out not to come
    from a recorded scan is kept as chosen on the held releases, so a wrong ``True`` costs power, never validity.
    """

    name = "attack"
    in_search = True  # whether the pair search (privacy/search.py) runs this family when ranking pairs
    records_scans = False  # whether every event comes from a recorded scan (see the class docstring)

    def applicable(self, Y: np.ndarray) -> bool:
        return True

    def select(
        self, Y1: np.ndarray, Y2: np.ndarray, ctx: SelectionContext
    ) -> list[Event]:  # pragma: no cover - abstract
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


def _is_scalar(Y) -> bool:
    Y = np.asarray(Y)
    return Y.ndim == 1 or int(np.prod(Y.shape[1:], dtype=int)) == 1


class ThresholdAttack(Attack):
    """Half-lines ``{output >= t}`` and ``{output <= t}`` on scalar releases, t scanned over the whole range."""

    name = "threshold"
    records_scans = True

    def applicable(self, Y: np.ndarray) -> bool:
        return _is_scalar(Y)

    def select(self, Y1: np.ndarray, Y2: np.ndarray, ctx: SelectionContext) -> list[Event]:
        f = Identity()
        return scan_thresholds(f(Y1), f(Y2), ctx, f, self.name)


class IntervalAttack(Attack):
    """Intervals ``{a <= output <= b}`` on scalar releases."""

    name = "interval"
    records_scans = True

    def applicable(self, Y: np.ndarray) -> bool:
        return _is_scalar(Y)

    def select(self, Y1: np.ndarray, Y2: np.ndarray, ctx: SelectionContext) -> list[Event]:
        f = Identity()
        return scan_intervals(f(Y1), f(Y2), ctx, f, self.name)


class DiscreteAttack(Attack):
    """Unions of outcomes for discrete releases: outcomes ordered by their empirical ratio, best prefix kept.

    The prefix of ``j`` outcomes is judged with :func:`union_pessimism` ``(j, K)`` standard errors of selection
    pessimism (``K`` outcomes seen), not the context's fixed ``z``: the selection bias of a union depends on how
    many outcomes were ranked into it.

    Applies when the pooled selection sample has at most ``ctx.max_categories`` distinct releases (rows for
    vector releases) and fewer than 5 % of the sample size.
    """

    name = "discrete"
    records_scans = True

    def select(self, Y1: np.ndarray, Y2: np.ndarray, ctx: SelectionContext) -> list[Event]:
        Y1, Y2 = np.asarray(Y1), np.asarray(Y2)
        key = RowKey(Y1.shape[1:], np.result_type(Y1.dtype, Y2.dtype))
        return self.scan_keys(key(Y1), key(Y2), ctx, key, self.name)

    def scan_keys(self, k1, k2, ctx: SelectionContext, feature, attack: str) -> list[Event]:
        """The outcome-union scan (:func:`~.scan.scan_sets`) of keys ``k1``/``k2`` of ``feature``.

        Parameters
        ----------
        k1, k2 : numpy.ndarray
            The outcome keys of the releases on D and on D'.
        ctx : SelectionContext
            The selection context.
        feature : callable
            The feature the keys come from (recorded with the scan).
        attack : str
            The attack's name.

        Returns
        -------
        list of Event
            The chosen outcome unions.
        """
        return scan_sets(k1, k2, ctx, feature, attack, pessimism=union_pessimism)

    def applicable(self, Y: np.ndarray) -> bool:
        return True


class CoordinateAttack(Attack):
    """Threshold events on each coordinate of a vector release."""

    name = "coordinates"
    records_scans = True

    def applicable(self, Y: np.ndarray) -> bool:
        return not _is_scalar(Y)

    def select(self, Y1: np.ndarray, Y2: np.ndarray, ctx: SelectionContext) -> list[Event]:
        X1, X2 = _as_2d(Y1), _as_2d(Y2)
        events = []
        for j in range(X1.shape[1]):
            f = Coordinate(j)
            events += scan_thresholds(f(X1), f(X2), ctx, f, self.name)
        return events


class ProjectionAttack(Attack):
    """Threshold events on projections of standardised vector releases: random and declared directions."""

    name = "projection"
    records_scans = True

    def applicable(self, Y: np.ndarray) -> bool:
        return not _is_scalar(Y)

    def select(self, Y1: np.ndarray, Y2: np.ndarray, ctx: SelectionContext) -> list[Event]:
        X1, X2 = _as_2d(Y1).astype(float), _as_2d(Y2).astype(float)
        d = X1.shape[1]
        pooled = np.concatenate([X1, X2])
        centre = pooled.mean(axis=0)
        scale = pooled.std(axis=0)
        scale = np.where(scale > 0, scale, 1.0)
        dirs = []
        if ctx.directions is not None:
            for w in ctx.directions:
                w = np.asarray(w, float).ravel()
                if w.size != d:
                    raise ValueError(f"directions must have length {d} (the release dimension), got {w.size}")
                dirs.append((w, "declared"))
        if ctx.n_projections and ctx.rng is not None:
            W = ctx.rng.standard_normal((ctx.n_projections, d))
            W /= np.linalg.norm(W, axis=1, keepdims=True)
            dirs += [(w, "random") for w in W]
        events = []
        for w, how in dirs:
            if how == "declared":  # declared directions act on raw outputs
                f = Projection(
                    w,
                    label="declared projection w·output "
                    f"(w={np.array2string(w, precision=3, separator=', ', threshold=6)})",
                )
            else:
                f = Projection(w, centre, scale)
            events += scan_thresholds(f(X1), f(X2), ctx, f, self.name)
        return events
