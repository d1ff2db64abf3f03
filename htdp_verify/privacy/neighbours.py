"""Neighbouring inputs: relations, pattern libraries, and a pair search that stays statistically valid.

A :class:`Pair` holds two inputs ``d`` and ``d_prime`` and the relation they are neighbours under:

* dataset relations (checked by :func:`check_neighbours`): ``"replace"`` (same size, one row differs) and
  ``"add_remove"`` (one row more or less);
* query-level relations (asserted, not checked): ``"N1"`` (one coordinate of a query vector moves by at most the
  sensitivity), ``"Ninf"`` (every coordinate moves by at most the sensitivity; StatDP's "ALL_DIFFER") and
  ``"query"`` (a scalar query answer moves by at most the sensitivity).

A plain ``(D, D')`` tuple (relation ``"given"``) is read by :func:`as_pairs` with the claim's relation: two scalars
are query answers (asserted); two arrays are *datasets* whose first axis indexes records -- a 1-d array is a
dataset of scalar records -- and are checked with :func:`check_neighbours` (a vector of query answers must be
labelled, e.g. ``Pair(q, q2, relation="Ninf")``); inputs that are not numeric/string arrays (objects, ragged or
mixed containers) cannot be compared row by row and stay ``"given"`` (asserted by the caller).

Pattern libraries: :func:`scalar_pairs`, :func:`statdp_patterns` (StatDP / DP-Sniper query-vector patterns),
:func:`dataset_patterns` (one row moved to the data's extremes or to the corners of a declared domain
``[lower, upper]``, duplicated, removed, added).

Which of several pairs to certify is decided by :func:`~htdp_verify.privacy.search.search_pairs` (module
:mod:`.search`).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .._validate import check_int, check_positive
from ..claims import NEIGHBOUR_RELATIONS

__all__ = [
    "Pair",
    "QUERY_RELATIONS",
    "as_pairs",
    "given_pair",
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
    """Two neighbouring inputs.

    Parameters
    ----------
    d : array_like or float
        The first input (a dataset whose first axis indexes records, or a query answer).
    d_prime : array_like or float
        Its neighbour.
    label : str, default ""
        How the pair was built.
    relation : str, default "given"
        The relation under which they are neighbours (a dataset relation, a query relation, or ``"given"``).
    """

    d: Any
    d_prime: Any
    label: str = ""
    relation: str = "given"

    def __post_init__(self):
        if self.relation not in NEIGHBOUR_RELATIONS + QUERY_RELATIONS:
            raise ValueError(f"relation must be one of {NEIGHBOUR_RELATIONS + QUERY_RELATIONS}, got {self.relation!r}")

    def swapped(self) -> Pair:
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


def _array_or_none(x):
    """``x`` as a numpy array when it is a numeric/bool/string array-like, else ``None`` (objects, ragged)."""
    try:
        a = np.asarray(x)
    except (ValueError, TypeError):
        return None
    return None if a.dtype.kind in "OVMm" else a


def given_pair(d: int, d_prime: Any, relation: str, label: str = "given pair") -> Pair:
    """A plain ``(D, D')`` read under the claim's dataset ``relation`` (``"replace"`` or ``"add_remove"``).

    Two scalars (0-d) are query answers: relation ``"given"``, asserted.  Two arrays are datasets (rows = first
    axis; a 1-d array is a dataset of scalar records), checked with :func:`check_neighbours` and returned with
    ``relation``; a pair that is not neighbouring raises ``ValueError`` saying how the two differ.  A scalar
    against an array raises; anything that is not a plain array stays ``"given"`` (cannot be checked).

    Parameters
    ----------
    d, d_prime : array_like or float
        The two inputs.
    relation : str
        ``"replace"`` or ``"add_remove"``.
    label : str, default "given pair"
        Label of the pair.

    Returns
    -------
    Pair
        The pair.
    """
    if relation not in NEIGHBOUR_RELATIONS:
        raise ValueError(f"relation must be one of {NEIGHBOUR_RELATIONS}, got {relation!r}")
    a, b = _array_or_none(d), _array_or_none(d_prime)
    if a is None or b is None:
        return Pair(d, d_prime, label, "given")
    if a.ndim == 0 and b.ndim == 0:
        return Pair(d, d_prime, label, "given")
    if (a.ndim == 0) != (b.ndim == 0):
        raise ValueError(
            f"pair {label!r} mixes a scalar and an array (shapes {a.shape} and {b.shape}); give two "
            "scalars (query answers) or two datasets"
        )
    p = Pair(d, d_prime, label, relation)
    check_neighbours(p)
    return p


def as_pairs(pairs: Any, relation: str | None = None) -> list[Pair]:
    """Normalise a Pair, a ``(D, D')`` tuple, or a list of these to a list of :class:`Pair`.

    With ``relation`` (the claim's dataset relation) plain tuples go through :func:`given_pair` (datasets are
    checked); without it they stay ``"given"``.  :class:`Pair` objects are returned as they are.

    Parameters
    ----------
    pairs : Pair, tuple or list
        The pairs.
    relation : str, optional
        The claim's dataset relation.

    Returns
    -------
    list of Pair
        The pairs.
    """

    def plain(d, dp, label):
        return Pair(d, dp, label, "given") if relation is None else given_pair(d, dp, relation, label)

    if isinstance(pairs, Pair):
        return [pairs]
    if isinstance(pairs, tuple) and len(pairs) == 2 and not isinstance(pairs[0], (Pair, tuple)):
        return [plain(pairs[0], pairs[1], "given pair")]
    out = []
    try:
        items = list(pairs)
    except TypeError as exc:
        raise ValueError(
            f"pairs must be a Pair, a (D, D') tuple, or a list of them; got {type(pairs).__name__}"
        ) from exc
    for p in items:
        if isinstance(p, Pair):
            out.append(p)
        elif isinstance(p, (tuple, list)) and len(p) == 2:
            out.append(plain(p[0], p[1], f"given pair {len(out)}"))
        else:
            raise ValueError(f"pairs must contain Pair objects or (D, D') tuples; got {p!r}")
    if not out:
        raise ValueError("pairs must contain at least one pair")
    return out


# ---------------------------------------------------------------------------------------------------------
# Dataset relations
# ---------------------------------------------------------------------------------------------------------
def _rows(data) -> np.ndarray:
    """``data`` as a 2-d array of records (rows = first axis), empty datasets included."""
    a = np.asarray(data)
    if a.ndim == 0:
        raise ValueError("data must have at least one dimension (rows) for a dataset relation")
    return a.reshape(a.shape[0], int(np.prod(a.shape[1:], dtype=np.int64)))


def _row_shapes(a: np.ndarray, b: np.ndarray):
    """Row shapes of two datasets; an empty 1-d array (``[]``) takes the other's row shape."""
    ra, rb = a.shape[1:], b.shape[1:]
    if a.shape == (0,):
        ra = rb
    if b.shape == (0,):
        rb = ra
    return ra, rb


def _common_rows(a: np.ndarray, b: np.ndarray, k: int):
    """Both datasets as ``(n, k)`` arrays of a common dtype, floats canonical (−0 → 0, one NaN)."""
    try:
        dt = np.result_type(a.dtype, b.dtype)
    except TypeError as exc:
        raise ValueError(f"records of types {a.dtype} and {b.dtype} cannot be compared") from exc
    out = []
    for x in (a, b):
        x = np.asarray(x, dtype=dt).reshape(x.shape[0], k)
        if dt.kind in "fc":
            x = x + np.zeros((), dt)  # −0.0 → 0.0
            x = np.where(np.isnan(x), np.array(np.nan, dt), x)
        out.append(np.ascontiguousarray(x))
    return out


def _list_rows(idx, limit: int = 6) -> str:
    idx = [int(i) for i in idx]
    s = ", ".join(str(i) for i in idx[:limit])
    return s + (f", ... ({len(idx)} in all)" if len(idx) > limit else "")


_LABEL_HINT = (
    "; if D and D' are query answers rather than datasets, label the pair, e.g. "
    "Pair(D, D', relation='Ninf' | 'N1' | 'query')"
)


def check_neighbours(pair: Pair, relation: str | None = None) -> None:
    """Raise ``ValueError`` unless ``pair`` are neighbours under a dataset ``relation`` (default: its own).

    Datasets are arrays whose first axis indexes records (a 1-d array: scalar records; an empty array of shape
    ``(0, ...)`` or ``[]``: the empty dataset).  ``"replace"``: same size and row shape, at most one row differs
    (position by position: datasets are tuples).  ``"add_remove"``: sizes differ by one and the smaller dataset is
    the larger one with one record removed (as multisets: the order of rows does not matter).  NaN equals NaN and
    −0 equals 0.  The error says how the two differ.  Query-level relations are asserted, not checked.

    Parameters
    ----------
    pair : Pair
        The two inputs.
    relation : str, optional
        ``"replace"`` or ``"add_remove"`` (default: the pair's own relation).
    """
    relation = relation or pair.relation
    if relation in QUERY_RELATIONS:
        return
    if relation not in NEIGHBOUR_RELATIONS:
        raise ValueError(f"relation must be one of {NEIGHBOUR_RELATIONS + QUERY_RELATIONS}, got {relation!r}")
    a0, b0 = np.asarray(pair.d), np.asarray(pair.d_prime)
    if a0.ndim == 0 or b0.ndim == 0:
        raise ValueError(
            f"pair {pair.label!r}: a {relation!r} pair needs two datasets (arrays with a row axis), "
            f"got shapes {a0.shape} and {b0.shape}"
        )
    ra, rb = _row_shapes(a0, b0)
    if ra != rb:
        raise ValueError(f"pair {pair.label!r} is not a {relation} pair: records have shapes {ra} and {rb}")
    k = int(np.prod(ra, dtype=np.int64))
    a, b = _common_rows(a0, b0, k)
    na, nb = a.shape[0], b.shape[0]
    if relation == "replace":
        if na != nb:
            raise ValueError(
                f"pair {pair.label!r} is not a replace-one pair: sizes {na} and {nb} differ "
                "(replace-one needs equal sizes; use an add_remove claim for a record added/removed)"
            )
        same = a == b
        if a.dtype.kind in "fc":
            same |= np.isnan(a) & np.isnan(b)
        diff = np.nonzero(~np.all(same, axis=1))[0]
        if diff.size > 1:
            raise ValueError(
                f"pair {pair.label!r} is not a replace-one pair: rows {_list_rows(diff)} differ "
                f"({diff.size} rows; replace-one allows 1){_LABEL_HINT}"
            )
        return
    if abs(na - nb) != 1:
        what = "are equal" if na == nb else f"differ by {abs(na - nb)}"
        raise ValueError(
            f"pair {pair.label!r} is not an add/remove pair: sizes {na} and {nb} {what} "
            f"(add/remove-one needs sizes that differ by 1){_LABEL_HINT}"
        )
    big, small = (a, b) if na > nb else (b, a)
    counts: dict[bytes, int] = {}
    for r in big:
        key = r.tobytes()
        counts[key] = counts.get(key, 0) + 1
    missing = []
    for i, r in enumerate(small):
        key = r.tobytes()
        if counts.get(key, 0) > 0:
            counts[key] -= 1
        else:
            missing.append(i)
    if missing:
        which = "D" if na < nb else "D'"
        rows_txt = f"rows {_list_rows(missing)}" if len(missing) > 1 else f"row {missing[0]}"
        raise ValueError(
            f"pair {pair.label!r} is not an add/remove pair: besides the added record, {rows_txt} of the smaller "
            f"dataset ({which}) are not in the larger one "
            f"({len(missing) + 1} records differ; add/remove-one allows 1){_LABEL_HINT}"
        )


def replace_one(data: Any, index: int, row: Any, label: str | None = None) -> Pair:
    """``D`` vs ``D`` with row ``index`` replaced by ``row`` (replace-one neighbours).

    Parameters
    ----------
    data : array_like
        The dataset D (rows are records).
    index : int
        The row replaced.
    row : array_like or float
        The new record.
    label : str, optional
        Label of the pair (default: built from the index).

    Returns
    -------
    Pair
        The pair, with relation ``"replace"``.
    """
    d = np.array(data, copy=True)
    if d.ndim == 0:
        raise ValueError("data must have at least one dimension (rows)")
    index = check_int("index", index, minimum=0)
    if index >= d.shape[0]:
        raise ValueError(f"index must lie in [0, {d.shape[0] - 1}], got {index}")
    dp = np.array(d, dtype=np.result_type(d.dtype, np.asarray(row).dtype), copy=True)
    dp[index] = row
    return Pair(d, dp, label or f"row {index} -> {_fmt(row)}", "replace")


def add_one(data: Any, row: Any, label: str | None = None) -> Pair:
    """``D`` vs ``D ∪ {row}`` (add/remove neighbours).

    Parameters
    ----------
    data : array_like
        The dataset D (rows are records).
    row : array_like or float
        The added record.
    label : str, optional
        Label of the pair.

    Returns
    -------
    Pair
        The pair, with relation ``"add_remove"``.
    """
    d = np.asarray(data)
    if d.ndim == 0:
        raise ValueError("data must have at least one dimension (rows)")
    row = np.asarray(row)
    if d.shape == (0,) and row.ndim > 0:  # the empty dataset given as []: records take the row's shape
        d = d.reshape((0,) + row.shape)
    if row.size != int(np.prod(d.shape[1:], dtype=np.int64)):
        raise ValueError(f"row must have the records' shape {d.shape[1:]}, got shape {row.shape}")
    r = np.asarray(row, dtype=np.result_type(d.dtype, row.dtype)).reshape((1,) + d.shape[1:])
    return Pair(d, np.concatenate([d.astype(r.dtype, copy=False), r]), label or f"add row {_fmt(row)}", "add_remove")


def remove_one(data: Any, index: int, label: str | None = None) -> Pair:
    """``D`` vs ``D`` without row ``index`` (add/remove neighbours).

    Parameters
    ----------
    data : array_like
        The dataset D (rows are records).
    index : int
        The row removed.
    label : str, optional
        Label of the pair.

    Returns
    -------
    Pair
        The pair, with relation ``"add_remove"``.
    """
    d = np.asarray(data)
    if d.ndim == 0 or d.shape[0] == 0:
        raise ValueError("data must have at least one row to remove")
    index = check_int("index", index, minimum=0)
    if index >= d.shape[0]:
        raise ValueError(f"index must lie in [0, {d.shape[0] - 1}], got {index}")
    return Pair(d, np.delete(d, index, axis=0), label or f"remove row {index}", "add_remove")


# ---------------------------------------------------------------------------------------------------------
# Pattern libraries
# ---------------------------------------------------------------------------------------------------------
def scalar_pairs(x: float = 0.0, sensitivity: float = 1.0) -> list[Pair]:
    """Scalar query answers ``x`` vs ``x ± sensitivity`` (relation ``"query"``).

    Parameters
    ----------
    x : float, default 0.0
        The query answer.
    sensitivity : float, default 1.0
        The distance to each neighbour.

    Returns
    -------
    list of Pair
        The two pairs.
    """
    s = check_positive("sensitivity", sensitivity)
    x = float(x)
    return [Pair(x, x + s, f"x vs x+{s:g}", "query"), Pair(x, x - s, f"x vs x-{s:g}", "query")]


def vector_pairs(x: ArrayLike, sensitivity: float = 1.0) -> list[Pair]:
    """Vector query answers ``x`` vs ``x ± sensitivity·e_j`` for each coordinate j (relation ``"N1"``).

    Parameters
    ----------
    x : array_like
        The query answer (a vector).
    sensitivity : float, default 1.0
        The distance to each neighbour along a coordinate.

    Returns
    -------
    list of Pair
        Two pairs per coordinate.
    """
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

    Parameters
    ----------
    m : int, default 5
        Length of the query vector.
    relation : str, default "Ninf"
        ``"Ninf"`` or ``"N1"``.
    sensitivity : float, default 1.0
        Scale of the patterns.

    Returns
    -------
    list of Pair
        The pairs.
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


def _domain(lower, upper, bound, rowshape):
    """Per-entry domain ends (arrays of ``rowshape`` or None) from ``lower``/``upper`` or a symmetric ``bound``."""
    if bound is not None:
        if lower is not None or upper is not None:
            raise ValueError("give either bound or lower/upper, not both")
        bound = check_positive("bound", bound)
        lower, upper = -bound, bound
    ends = []
    for name, v in (("lower", lower), ("upper", upper)):
        if v is None:
            ends.append(None)
            continue
        try:
            arr = np.broadcast_to(np.asarray(v, dtype=float), rowshape).astype(float)
        except ValueError as exc:
            raise ValueError(
                f"{name} must be a scalar or broadcast to the records' shape {rowshape}, got shape {np.shape(v)}"
            ) from exc
        if not np.all(np.isfinite(arr)):
            raise ValueError(f"{name} must be finite, got {v!r}")
        ends.append(arr)
    lo, hi = ends
    if lo is not None and hi is not None and not np.all(lo < hi):
        raise ValueError(f"lower must be < upper in every column, got lower={lower!r}, upper={upper!r}")
    return lo, hi


def _domain_targets(lo, hi, max_corners: int) -> list[tuple[str, np.ndarray]]:
    """Rows at the domain's ends (all lower / all upper) and, when both ends exist, its mixed corners
    (every corner for up to 4 entries per record, else the two half-and-half ones), at most ``max_corners``."""
    out = []
    if hi is not None:
        out.append(("domain upper", hi))
    if lo is not None:
        out.append(("domain lower", lo))
    if lo is None or hi is None or lo.size < 2:
        return out
    k = lo.size
    if k <= 4:
        masks = [np.array(m, bool) for m in itertools.product((False, True), repeat=k)][1:-1]
    else:
        h = np.arange(k) < k // 2
        masks = [h, ~h]
    for m in masks[: max(0, max_corners - 2)]:
        m = m.reshape(lo.shape)
        out.append((f"domain corner {''.join('U' if x else 'L' for x in m.ravel())}", np.where(m, hi, lo)))
    return out


def dataset_patterns(
    data: Any,
    *,
    relation: str = "replace",
    bound: float | None = None,
    lower: float | None = None,
    upper: float | None = None,
    multiples: Sequence[float] | None = None,
    rows: Sequence[int] | None = None,
    max_pairs: int | None = None,
    max_corners: int = 16,
) -> list[Pair]:
    """Dataset neighbours of ``data`` (rows = records) built from the patterns that break estimators.

    A declared data domain ``[lower, upper]`` (scalars, or arrays of the records' shape, per column; either end
    may be omitted) bounds every generated record: replacement and added rows are the domain's ends and corners
    (``_domain_targets``), the data's own coordinate-wise max/min, and copies of existing rows -- never
    outside the domain (``data`` itself must lie in it).  ``bound=b`` is the symmetric domain ``[-b, b]``, read
    as a clipping bound: ``multiples`` (default ``(1, 2)``, only with ``bound``) adds rows at ``±c·b``, so a
    ``c > 1`` deliberately probes beyond the bound (for a mechanism that clips and claims privacy for every
    input); declare ``lower=-b, upper=b`` instead to stay inside (and to get the mixed corners of
    multi-column records, which ``bound`` does not generate).

    For each chosen row i (default: the first row and the rows holding the smallest and largest value of the
    first column):

    * ``"replace"``: row i moved to each target, and replaced by a duplicate of the row farthest from it;
    * ``"add_remove"``: row i removed, row i duplicated, and (once) a row added at each target.

    Parameters
    ----------
    data : array_like
        The dataset (rows are records), inside the declared domain.
    relation : str, default "replace"
        ``"replace"`` or ``"add_remove"``.
    bound : float, optional
        A symmetric clipping bound ``[-b, b]``.
    lower, upper : float or array_like, optional
        The declared data domain.
    multiples : sequence of float, optional
        Multiples of ``bound`` probed (default ``(1, 2)``).
    rows : sequence of int, optional
        The rows changed (default: see above).
    max_pairs : int, optional
        Most pairs returned.
    max_corners : int, default 16
        Most domain corners used for multi-column records.

    Returns
    -------
    list of Pair
        The candidate pairs.
    """
    if relation not in NEIGHBOUR_RELATIONS:
        raise ValueError(f"relation must be one of {NEIGHBOUR_RELATIONS}, got {relation!r}")
    d = np.asarray(data, dtype=float)
    if d.ndim == 0 or d.shape[0] < 1:
        raise ValueError("data must be an array with at least one row")
    if not np.all(np.isfinite(d)):
        raise ValueError("data must be finite (found NaN or inf)")
    rowshape = d.shape[1:]
    if multiples is not None and bound is None:
        raise ValueError(
            "multiples applies to a symmetric bound only (lower/upper declare a domain: no row is generated outside it)"
        )
    max_corners = check_int("max_corners", max_corners, minimum=2)
    lo, hi = _domain(lower, upper, bound, rowshape)
    if (lo is not None and np.any(d < lo)) or (hi is not None and np.any(d > hi)):
        raise ValueError("data must lie inside the declared domain [lower, upper] (or [-bound, bound])")
    R = d.reshape(d.shape[0], -1)
    first = R[:, 0]
    if rows is None:
        rows = sorted({0, int(np.argmin(first)), int(np.argmax(first))})
    targets = [("dataset max", R.max(axis=0).reshape(rowshape)), ("dataset min", R.min(axis=0).reshape(rowshape))]
    if bound is not None:
        for c in (1.0, 2.0) if multiples is None else multiples:
            c = check_positive("multiples", c)
            targets += [
                (f"+{c:g}·bound", np.full(rowshape, c * bound)),
                (f"-{c:g}·bound", np.full(rowshape, -c * bound)),
            ]
    else:
        targets += _domain_targets(lo, hi, max_corners)
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
