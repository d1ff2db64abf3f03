"""Neighbouring inputs: relations, pattern libraries, and a pair search that stays statistically valid.

A :class:`Pair` holds two inputs ``d`` and ``d_prime`` and the relation they are neighbours under:

* dataset relations (checked by :func:`check_neighbours`): ``"replace"`` (same size, one row differs) and
  ``"add_remove"`` (one row more or less);
* query-level relations (asserted, not checked): ``"N1"`` (one coordinate of a query vector moves by at most the
  sensitivity), ``"Ninf"`` (every coordinate moves by at most the sensitivity; StatDP's "ALL_DIFFER") and
  ``"query"`` (a scalar query answer moves by at most the sensitivity).

Pattern libraries: :func:`scalar_pairs`, :func:`statdp_patterns` (StatDP / DP-Sniper query-vector patterns),
:func:`dataset_patterns` (one row moved to an extreme or to ±c·bound, duplicated, removed).

Which of several pairs to certify is decided by :func:`~htdp_verify.privacy.search.search_pairs` (module
:mod:`.search`).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from .._validate import check_int, check_positive
from ..claims import NEIGHBOUR_RELATIONS

__all__ = [
    "Pair",
    "QUERY_RELATIONS",
    "as_pairs",
    "check_neighbours",
    "replace_one",
    "add_one",
    "remove_one",
    "scalar_pairs",
    "vector_pairs",
    "statdp_patterns",
    "dataset_patterns",
]

QUERY_RELATIONS = ("query", "N1", "Ninf", "given")


def _fmt(x) -> str:
    a = np.asarray(x)
    if a.ndim == 0:
        return f"{a.item():.6g}" if np.issubdtype(a.dtype, np.number) else repr(a.item())
    return np.array2string(a, precision=4, threshold=8, separator=", ")


@dataclass
class Pair:
    """Two neighbouring inputs.  ``label`` says how they were built; ``relation`` under which relation."""

    d: Any
    d_prime: Any
    label: str = ""
    relation: str = "given"

    def __post_init__(self):
        if self.relation not in NEIGHBOUR_RELATIONS + QUERY_RELATIONS:
            raise ValueError(f"relation must be one of {NEIGHBOUR_RELATIONS + QUERY_RELATIONS}, got {self.relation!r}")

    def swapped(self) -> "Pair":
        return Pair(self.d_prime, self.d, f"{self.label} (swapped)", self.relation)

    def describe(self) -> str:
        lab = f"{self.label}: " if self.label else ""
        return f"{lab}D={_fmt(self.d)} vs D'={_fmt(self.d_prime)} [{self.relation}]"

    def to_dict(self) -> dict:
        def j(x):
            a = np.asarray(x)
            if a.size > 64:
                return {"shape": list(a.shape), "summary": _fmt(a)}
            return a.tolist()

        return {"label": self.label, "relation": self.relation, "d": j(self.d), "d_prime": j(self.d_prime)}


def as_pairs(pairs) -> list[Pair]:
    """Normalise a Pair, a ``(D, D')`` tuple, or a list of these to a list of :class:`Pair`."""
    if isinstance(pairs, Pair):
        return [pairs]
    if isinstance(pairs, tuple) and len(pairs) == 2 and not isinstance(pairs[0], (Pair, tuple)):
        return [Pair(pairs[0], pairs[1], "given pair", "given")]
    out = []
    try:
        items = list(pairs)
    except TypeError as exc:
        raise ValueError(f"pairs must be a Pair, a (D, D') tuple, or a list of them; got {type(pairs).__name__}") from exc
    for p in items:
        if isinstance(p, Pair):
            out.append(p)
        elif isinstance(p, (tuple, list)) and len(p) == 2:
            out.append(Pair(p[0], p[1], f"given pair {len(out)}", "given"))
        else:
            raise ValueError(f"pairs must contain Pair objects or (D, D') tuples; got {p!r}")
    if not out:
        raise ValueError("pairs must contain at least one pair")
    return out


# ---------------------------------------------------------------------------------------------------------
# Dataset relations
# ---------------------------------------------------------------------------------------------------------
def _rows(data) -> np.ndarray:
    a = np.asarray(data)
    if a.ndim == 0:
        raise ValueError("data must have at least one dimension (rows) for a dataset relation")
    return a.reshape(a.shape[0], -1)


def _sorted_rows(a: np.ndarray) -> np.ndarray:
    if a.shape[0] == 0:
        return a
    order = np.lexsort(a.T[::-1])
    return a[order]


def check_neighbours(pair: Pair, relation: str | None = None) -> None:
    """Raise ``ValueError`` unless ``pair`` are neighbours under a dataset ``relation`` (default: its own).

    ``"replace"``: same shape and at most one row differs.  ``"add_remove"``: the row multisets differ by exactly
    one row.  Query-level relations are asserted by the user and not checked.
    """
    relation = relation or pair.relation
    if relation in QUERY_RELATIONS:
        return
    a, b = _rows(pair.d), _rows(pair.d_prime)
    if relation == "replace":
        if a.shape != b.shape:
            raise ValueError(f"pair {pair.label!r} is not a replace-one pair: shapes {a.shape} and {b.shape} differ")
        ndiff = int(np.count_nonzero(np.any(a != b, axis=1)))
        if ndiff > 1:
            raise ValueError(f"pair {pair.label!r} is not a replace-one pair: {ndiff} rows differ")
        return
    if relation == "add_remove":
        if a.shape[1:] != b.shape[1:] or abs(a.shape[0] - b.shape[0]) != 1:
            raise ValueError(f"pair {pair.label!r} is not an add/remove pair: {a.shape[0]} vs {b.shape[0]} rows")
        big, small = (a, b) if a.shape[0] > b.shape[0] else (b, a)
        big, small = _sorted_rows(big), _sorted_rows(small)
        neq = np.nonzero(np.any(big[:-1] != small, axis=1))[0]
        i = int(neq[0]) if neq.size else small.shape[0]
        if not np.array_equal(big[i + 1:], small[i:]):
            raise ValueError(f"pair {pair.label!r} is not an add/remove pair: more than one row differs")
        return
    raise ValueError(f"relation must be one of {NEIGHBOUR_RELATIONS + QUERY_RELATIONS}, got {relation!r}")


def replace_one(data, index: int, row, label: str | None = None) -> Pair:
    """``D`` vs ``D`` with row ``index`` replaced by ``row`` (replace-one neighbours)."""
    d = np.array(data, copy=True)
    if d.ndim == 0:
        raise ValueError("data must have at least one dimension (rows)")
    index = check_int("index", index, minimum=0)
    if index >= d.shape[0]:
        raise ValueError(f"index must lie in [0, {d.shape[0] - 1}], got {index}")
    dp = np.array(d, dtype=np.result_type(d.dtype, np.asarray(row).dtype), copy=True)
    dp[index] = row
    return Pair(d, dp, label or f"row {index} -> {_fmt(row)}", "replace")


def add_one(data, row, label: str | None = None) -> Pair:
    """``D`` vs ``D ∪ {row}`` (add/remove neighbours)."""
    d = np.asarray(data)
    r = np.asarray(row, dtype=np.result_type(d.dtype, np.asarray(row).dtype)).reshape((1,) + d.shape[1:])
    return Pair(d, np.concatenate([d, r]), label or f"add row {_fmt(row)}", "add_remove")


def remove_one(data, index: int, label: str | None = None) -> Pair:
    """``D`` vs ``D`` without row ``index`` (add/remove neighbours)."""
    d = np.asarray(data)
    index = check_int("index", index, minimum=0)
    if index >= d.shape[0]:
        raise ValueError(f"index must lie in [0, {d.shape[0] - 1}], got {index}")
    return Pair(d, np.delete(d, index, axis=0), label or f"remove row {index}", "add_remove")


# ---------------------------------------------------------------------------------------------------------
# Pattern libraries
# ---------------------------------------------------------------------------------------------------------
def scalar_pairs(x: float = 0.0, sensitivity: float = 1.0) -> list[Pair]:
    """Scalar query answers ``x`` vs ``x ± sensitivity`` (relation ``"query"``)."""
    s = check_positive("sensitivity", sensitivity)
    x = float(x)
    return [Pair(x, x + s, f"x vs x+{s:g}", "query"), Pair(x, x - s, f"x vs x-{s:g}", "query")]


def vector_pairs(x, sensitivity: float = 1.0) -> list[Pair]:
    """Vector query answers ``x`` vs ``x ± sensitivity·e_j`` for each coordinate j (relation ``"N1"``)."""
    s = check_positive("sensitivity", sensitivity)
    x = np.asarray(x, dtype=float).ravel()
    out = []
    for j in range(x.size):
        for sign in (1, -1):
            y = x.copy()
            y[j] += sign * s
            out.append(Pair(x, y, f"coordinate {j} {'+' if sign > 0 else '-'}{s:g}", "N1"))
    return out


def statdp_patterns(m: int = 5, relation: str = "Ninf", sensitivity: float = 1.0) -> list[Pair]:
    """StatDP's query-vector patterns (Ding et al. 2018; also DP-Sniper) for length ``m``.

    d1 = 1^m (scaled by ``sensitivity``) and d2 is one of: one below, one above, one above rest below, one below
    rest above, half-half, all above, all below; plus X-shape ((1^{⌊m/2⌋}, 0^{⌈m/2⌉}) vs (0^{⌊m/2⌋},
    1^{⌈m/2⌉})).  Under ``"N1"`` only the first two (one coordinate changes) are returned.
    """
    m = check_int("m", m, minimum=1)
    if relation not in ("N1", "Ninf"):
        raise ValueError(f"relation must be 'N1' or 'Ninf', got {relation!r}")
    s = check_positive("sensitivity", sensitivity)
    one = np.ones(m)
    h = m // 2
    pats = [
        ("one below", one, np.r_[0.0, np.ones(m - 1)]),
        ("one above", one, np.r_[2.0, np.ones(m - 1)]),
    ]
    if relation == "Ninf" and m > 1:
        pats += [
            ("one above rest below", one, np.r_[2.0, np.zeros(m - 1)]),
            ("one below rest above", one, np.r_[0.0, 2.0 * np.ones(m - 1)]),
            ("half-half", one, np.r_[2.0 * np.ones(h), np.zeros(m - h)]),
            ("all above", one, 2.0 * one),
            ("all below", one, np.zeros(m)),
            ("X-shape", np.r_[np.ones(h), np.zeros(m - h)], np.r_[np.zeros(h), np.ones(m - h)]),
        ]
    return [Pair(a * s, b * s, name, relation) for name, a, b in pats]


def dataset_patterns(data, *, relation: str = "replace", bound: float | None = None,
                     multiples: Sequence[float] = (1.0, 2.0), rows: Sequence[int] | None = None,
                     max_pairs: int | None = None) -> list[Pair]:
    """Dataset neighbours of ``data`` (rows = records) built from the patterns that break estimators.

    For each chosen row i (default: the first row and the rows holding the smallest and largest value of the
    first column):

    * ``"replace"``: row i moved to the dataset's extreme values (coordinate-wise max and min), to ``±c·bound`` for
      each ``c`` in ``multiples`` (when a declared ``bound`` is given), and replaced by a duplicate of the row
      farthest from it;
    * ``"add_remove"``: row i removed, row i duplicated, and an added row at the extremes / ``±c·bound``.
    """
    if relation not in NEIGHBOUR_RELATIONS:
        raise ValueError(f"relation must be one of {NEIGHBOUR_RELATIONS}, got {relation!r}")
    d = np.asarray(data, dtype=float)
    if d.ndim == 0 or d.shape[0] < 1:
        raise ValueError("data must be an array with at least one row")
    if not np.all(np.isfinite(d)):
        raise ValueError("data must be finite (found NaN or inf)")
    if bound is not None:
        bound = check_positive("bound", bound)
    R = d.reshape(d.shape[0], -1)
    first = R[:, 0]
    if rows is None:
        rows = sorted({0, int(np.argmin(first)), int(np.argmax(first))})
    rowshape = d.shape[1:]
    hi_row = R.max(axis=0).reshape(rowshape)
    lo_row = R.min(axis=0).reshape(rowshape)
    targets = [("dataset max", hi_row), ("dataset min", lo_row)]
    if bound is not None:
        for c in multiples:
            c = check_positive("multiples", c)
            targets += [(f"+{c:g}·bound", np.full(rowshape, c * bound)), (f"-{c:g}·bound", np.full(rowshape, -c * bound))]
    out: list[Pair] = []
    for i in rows:
        i = check_int("rows", i, minimum=0)
        if i >= d.shape[0]:
            raise ValueError(f"rows must lie in [0, {d.shape[0] - 1}], got {i}")
        if relation == "replace":
            for name, t in targets:
                if not np.array_equal(d[i], t):
                    out.append(replace_one(d, i, t, f"row {i} -> {name} ({_fmt(t)})"))
            far = int(np.argmax(np.linalg.norm(R - R[i], axis=1)))
            if far != i:
                out.append(replace_one(d, i, d[far], f"row {i} -> duplicate of row {far}"))
        else:
            out.append(remove_one(d, i, f"remove row {i}"))
            out.append(add_one(d, d[i], f"duplicate row {i}"))
    if relation == "add_remove":
        for name, t in targets:
            out.append(add_one(d, t, f"add a row at {name} ({_fmt(t)})"))
    if max_pairs is not None:
        out = out[: check_int("max_pairs", max_pairs, minimum=1)]
    return out
