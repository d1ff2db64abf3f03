"""Reading and checking neighbouring pairs: :func:`as_pairs` / :func:`given_pair` read plain ``(D, D')`` tuples with
a relation, :func:`check_neighbours` checks the dataset relations (``"replace"``, ``"add_remove"``), and
:func:`replace_one`, :func:`add_one`, :func:`remove_one` build one-row dataset neighbours.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..._validate import check_int
from ...claims import NEIGHBOUR_RELATIONS
from .pairs import QUERY_RELATIONS, Pair, _fmt
from .records import is_dataframe, record_keys

__all__ = ["as_pairs", "given_pair", "check_neighbours", "replace_one", "add_one", "remove_one"]


def _is_xy(x) -> bool:
    """An ``(X, y)`` tuple: two array-likes with a row axis each, the same number of rows."""
    if not (isinstance(x, tuple) and len(x) == 2):
        return False
    try:
        a, b = np.asarray(x[0]), np.asarray(x[1])
    except (ValueError, TypeError):
        return False
    return a.ndim >= 1 and b.ndim >= 1 and a.shape[0] == b.shape[0]


def _array_or_none(x):
    """``x`` as a numpy array when it is a numeric/bool/string array-like, else ``None`` (objects, ragged, and
    ``(X, y)`` tuples, which numpy would stack into two "rows" holding whole columns: a pair that changed every x
    passed as a one-row replace pair and was certified at 1.44 against a true ε of 1)."""
    if _is_xy(x):
        return None
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
    if not (_special(d) or _special(d_prime)):  # a masked array's mask, a sparse matrix's structure: not plain
        _refuse_identical(a, b, label)
    if a is None or b is None or _special(d) or _special(d_prime):
        if _scalar(d) and _scalar(d_prime):
            return Pair(d, d_prime, label, "given")  # two scalars (strings, datetimes, ...): query answers
        p = Pair(d, d_prime, label, relation)
        check_neighbours(p)  # record by record (:mod:`.records`), or a ValueError asking for relation="given"
        return p
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


def _refuse_identical(a, b, label: str) -> None:
    """A ``ValueError`` when two plain inputs are the same (NaN equal to NaN, −0 to 0, as the relations read them):
    every mechanism has ε = 0 on such a pair, so an audit of it is uninformative (an exact, unbounded mechanism
    came out "consistent" with ε_lb 0)."""
    if a is None or b is None or a.shape != b.shape or a.dtype.kind in "OV" or b.dtype.kind in "OV":
        return
    try:
        same = bool(np.array_equal(a, b, equal_nan=a.dtype.kind in "fc" and b.dtype.kind in "fc"))
    except (TypeError, ValueError):
        return
    if same:
        raise ValueError(
            f"pair {label!r}: D and D' are identical ({np.array2string(a, threshold=6)}); every mechanism has "
            "ε = 0 on such a pair, so it cannot show a leak. Give two datasets that differ in one record"
        )


def _ambiguous_list_pairs(items: list) -> bool:
    """``pairs=[A, B]`` with ``A`` and ``B`` lists (or arrays) of two scalars each: one pair of two-record datasets
    written as a list, or two pairs of query answers?"""

    def two_scalars(x) -> bool:
        return isinstance(x, (list, np.ndarray)) and len(x) == 2 and all(_scalar(v) for v in x)

    return len(items) == 2 and all(two_scalars(x) for x in items)


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
    if _ambiguous_list_pairs(items):
        raise ValueError(
            f"pairs={pairs!r} is ambiguous: two pairs of query answers ({items[0][0]!r}, {items[0][1]!r}) and "
            f"({items[1][0]!r}, {items[1][1]!r}), or one pair of two-record datasets D={items[0]!r}, "
            f"D'={items[1]!r}? Write one pair as pairs=[(D, D')] and pairs of query answers as tuples "
            "[(a, a'), (b, b')]"
        )
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
    if (
        _special(pair.d)
        or _special(pair.d_prime)
        or _array_or_none(pair.d) is None
        or _array_or_none(pair.d_prime) is None
    ):
        _check_keys(pair, relation)
        return
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

    def differing() -> list:
        same = a == b
        if a.dtype.kind in "fc":
            same |= np.isnan(a) & np.isnan(b)
        return np.nonzero(~np.all(same, axis=1))[0].tolist()

    _check_relation(
        pair,
        relation,
        a.shape[0],
        b.shape[0],
        differing,
        lambda: ([r.tobytes() for r in a], [r.tobytes() for r in b]),
        "rows",
    )


def _scalar(x: Any) -> bool:
    """A single value of a kind numpy reads as 0-d (a number, string, bytes or datetime), not an opaque object."""
    try:
        a = np.asarray(x)
    except (TypeError, ValueError):
        return False
    return a.ndim == 0 and a.dtype.kind != "O" and not _special(x)


def _special(x: Any) -> bool:
    """Data whose plain numpy view would hide what the mechanism sees: masked arrays (the mask), DataFrames with
    columns that are not numbers, scipy sparse matrices."""
    if is_dataframe(x):  # numeric DataFrames take the (vectorised) array path
        return not all(getattr(t, "kind", "O") in "biuf" for t in x.dtypes)
    return isinstance(x, np.ma.MaskedArray) or type(x).__module__.split(".")[0] == "scipy"


def _keys_or_raise(x: Any, side: str, label: str, relation: str) -> list:
    keys = record_keys(x)
    if keys is None:
        try:
            a = np.asarray(x)
        except (TypeError, ValueError):
            a = None
        if a is not None and a.ndim > 0 and a.dtype.kind not in "OV":
            return [tuple(r) for r in a.reshape(a.shape[0], -1).tolist()]
        raise ValueError(
            f"pair {label!r}: cannot check that D and D' are {relation} neighbours: {side} is a "
            f"{type(x).__name__}, not an array, DataFrame, sparse matrix, list of dict records, (X, y) tuple or "
            "dict of columns; pass Pair(D, D', relation='given') to assert that they are neighbours"
        )
    return keys


def _check_keys(pair: Pair, relation: str) -> None:
    """:func:`check_neighbours` on record keys (:func:`~.records.record_keys`) for data that are not plain arrays."""
    ka = _keys_or_raise(pair.d, "D", pair.label, relation)
    kb = _keys_or_raise(pair.d_prime, "D'", pair.label, relation)
    _check_relation(
        pair,
        relation,
        len(ka),
        len(kb),
        lambda: [i for i, (x, y) in enumerate(zip(ka, kb)) if x != y],
        lambda: (ka, kb),
        "records",
    )


def _check_relation(pair: Pair, relation: str, na: int, nb: int, differing, keys, noun: str) -> None:
    """The dataset relations on ``na`` and ``nb`` records: ``differing()`` gives the positions where two equal-size
    datasets differ (replace-one), ``keys()`` one hashable key per record of each (add/remove, as multisets);
    ``noun`` ("rows" or "records") words the error."""
    if relation == "replace":
        if na != nb:
            raise ValueError(
                f"pair {pair.label!r} is not a replace-one pair: sizes {na} and {nb} differ "
                "(replace-one needs equal sizes; use an add_remove claim for a record added/removed)"
            )
        diff = differing()
        if len(diff) > 1:
            raise ValueError(
                f"pair {pair.label!r} is not a replace-one pair: {noun} {_list_rows(diff)} differ "
                f"({len(diff)} {noun}; replace-one allows 1){_LABEL_HINT}"
            )
        return
    if abs(na - nb) != 1:
        what = "are equal" if na == nb else f"differ by {abs(na - nb)}"
        raise ValueError(
            f"pair {pair.label!r} is not an add/remove pair: sizes {na} and {nb} {what} "
            f"(add/remove-one needs sizes that differ by 1){_LABEL_HINT}"
        )
    ka, kb = keys()
    big, small = (ka, kb) if na > nb else (kb, ka)
    counts: dict = {}
    for k in big:
        counts[k] = counts.get(k, 0) + 1
    missing = []
    for i, k in enumerate(small):
        if counts.get(k, 0) > 0:
            counts[k] -= 1
        else:
            missing.append(i)
    if missing:
        which = "D" if na < nb else "D'"
        what = f"{noun} {_list_rows(missing)}" if len(missing) > 1 else f"{noun[:-1]} {missing[0]}"
        raise ValueError(
            f"pair {pair.label!r} is not an add/remove pair: besides the added record, {what} of the smaller "
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
