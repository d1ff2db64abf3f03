"""Hypothesis strategies for neighbouring pairs: ``neighbouring_pairs`` (a data set and a neighbour, one row
replaced by an adversarial value or added / removed), returned as ``Neighbours``; the kinds ``REPLACE_KINDS`` and
``ADD_REMOVE_KINDS``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np
from hypothesis import strategies as st

from .data import datasets

__all__ = [
    "Neighbours",
    "REPLACE_KINDS",
    "ADD_REMOVE_KINDS",
    "neighbouring_pairs",
]

REPLACE_KINDS = ("huge", "tiny", "negative", "duplicate")
ADD_REMOVE_KINDS = ("add", "remove")


class Neighbours(NamedTuple):
    """A neighbouring pair. ``relation`` is ``"replace"`` (same n, row ``index`` differs) or ``"add_remove"``
    (``neighbour`` has one row more -- inserted at ``index`` -- or one row fewer -- row ``index`` removed).
    ``kind`` says which: one of :data:`REPLACE_KINDS` or :data:`ADD_REMOVE_KINDS`.

    Parameters
    ----------
    data : numpy.ndarray
        The dataset D.
    neighbour : numpy.ndarray
        Its neighbour D'.
    relation : str
        ``"replace"`` or ``"add_remove"``.
    index : int
        The row replaced, inserted or removed.
    kind : str, default ""
        The kind of change.
    """

    data: np.ndarray
    neighbour: np.ndarray
    relation: str
    index: int
    kind: str = ""


# ----------------------------------------------------------------------------------------------------------------
# neighbouring pairs
# ----------------------------------------------------------------------------------------------------------------
def _magnitudes(max_magnitude: float) -> list[float]:
    return sorted({v for v in (1e6, 1e12, float(max_magnitude)) if v <= max_magnitude})


_TINY = (0.0, 5e-324, 1e-300, 1e-12)


def _adversarial_row(draw, data: np.ndarray, index: int, kind: str, max_magnitude: float):
    """A replacement for row ``index`` of the given kind; differs from the original row unless kind is duplicate."""
    row_shape = data.shape[1:]
    n = data.shape[0]
    original = np.asarray(data[index], dtype=float)
    if kind == "duplicate":
        others = [j for j in range(n) if j != index]
        return data[draw(st.sampled_from(others))].copy()
    mags = _magnitudes(max_magnitude)
    if kind == "negative":
        flipped = -original
        if not np.array_equal(flipped, original):
            return flipped
        return (
            np.full(row_shape, -draw(st.sampled_from(mags))) if row_shape else np.float64(-draw(st.sampled_from(mags)))
        )
    if kind == "huge":
        sign = draw(st.sampled_from([1.0, -1.0]))
        first = draw(st.sampled_from(mags))
        values = [sign * first] + [sign * m for m in mags if m != first] + [-sign * m for m in mags]
    else:  # tiny
        first = draw(st.sampled_from(_TINY))
        values = [first] + [v for v in _TINY if v != first]
    whole = (not row_shape) or draw(st.booleans())
    j = 0 if whole else draw(st.integers(0, row_shape[0] - 1))
    for value in values:  # the first value that changes the row (all of them fail only if impossible)
        if not row_shape:
            row = np.float64(value)
        elif whole:
            row = np.full(row_shape, value)
        else:
            row = original.copy()
            row[j] = value
        if not np.array_equal(row, original):
            return row
    return row


def neighbouring_pairs(
    data: Any = None,
    *,
    relation: str | Sequence[str] = ("replace", "add_remove"),
    kinds: Sequence[str] | None = None,
    max_magnitude: float = 1e12,
) -> st.SearchStrategy[Neighbours]:
    """Neighbouring pairs built from ``data`` (an array, or a strategy for arrays; default :func:`datasets`).

    ``relation``: ``"replace"`` (one row replaced by an adversarial value of kind ``huge`` (+-1e6, +-1e12 or
    +-``max_magnitude``), ``tiny`` (0, the smallest subnormal, 1e-300, 1e-12), ``negative`` (the row negated, or a
    large negative value if the row is 0) or ``duplicate`` (a copy of another row)), or ``"add_remove"`` (an
    adversarial row inserted, or a row removed). For 2-d data the value fills the whole row or one coordinate.
    ``data`` is never mutated; ``neighbour`` is a fresh array. Replacements always change the row, except
    ``duplicate`` of an identical row, which hypothesis may still produce (the pair is then equal).

    Parameters
    ----------
    data : array_like or SearchStrategy, optional
        The base dataset (default: :func:`datasets`).
    relation : str or sequence of str
        ``"replace"`` and/or ``"add_remove"``.
    kinds : sequence of str, optional
        The kinds of adversarial change to draw (default: all of the relation's).
    max_magnitude : float, default 1e12
        Largest magnitude of a ``huge`` record.

    Returns
    -------
    hypothesis.strategies.SearchStrategy
        A strategy for :class:`Neighbours`.
    """
    if not (isinstance(max_magnitude, (int, float)) and 1e6 <= max_magnitude < np.inf):
        raise ValueError(f"max_magnitude must lie in [1e6, inf), got {max_magnitude!r}")
    relations = (relation,) if isinstance(relation, str) else tuple(relation)
    if not relations or any(r not in ("replace", "add_remove") for r in relations):
        raise ValueError(f"relation must be 'replace', 'add_remove' or a sequence of them, got {relation!r}")
    allowed = tuple(kinds) if kinds is not None else REPLACE_KINDS + ADD_REMOVE_KINDS
    bad = [k for k in allowed if k not in REPLACE_KINDS + ADD_REMOVE_KINDS]
    if bad or not allowed:
        raise ValueError(f"kinds must be a non-empty subset of {REPLACE_KINDS + ADD_REMOVE_KINDS}, got {kinds!r}")
    by_relation = {"replace": REPLACE_KINDS, "add_remove": ADD_REMOVE_KINDS}
    relations = tuple(r for r in relations if any(k in by_relation[r] for k in allowed))
    if not relations:
        raise ValueError(f"kinds {tuple(allowed)} match none of the relations {relation!r}")
    if data is None:
        data = datasets(st.integers(2, 30), st.one_of(st.none(), st.integers(1, 4)))

    @st.composite
    def _pairs(draw):
        arr = draw(data) if isinstance(data, st.SearchStrategy) else data
        arr = np.asarray(arr, dtype=float)
        if arr.ndim not in (1, 2) or arr.shape[0] < 2:
            raise ValueError(f"data must be a 1-d or 2-d array with at least 2 rows, got shape {arr.shape}")
        rel = draw(st.sampled_from(relations))
        choices = [k for k in allowed if k in by_relation[rel]]
        kind = draw(st.sampled_from(choices))
        n = arr.shape[0]
        if kind == "remove":
            index = draw(st.integers(0, n - 1))
            return Neighbours(arr.copy(), np.delete(arr, index, axis=0), "add_remove", index, kind)
        if kind == "add":
            index = draw(st.integers(0, n))
            inner = draw(st.sampled_from(REPLACE_KINDS))
            row = _adversarial_row(draw, arr, min(index, n - 1), inner, max_magnitude)
            return Neighbours(arr.copy(), np.insert(arr, index, row, axis=0), "add_remove", index, kind)
        index = draw(st.integers(0, n - 1))
        row = _adversarial_row(draw, arr, index, kind, max_magnitude)
        neighbour = arr.copy()
        neighbour[index] = row
        return Neighbours(arr.copy(), neighbour, "replace", index, kind)

    return _pairs()
