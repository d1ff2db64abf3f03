"""Records of datasets that are not plain numeric arrays, so that their neighbour relation can be checked too.

:func:`~.checking.check_neighbours` compares numeric arrays row by row.  Users also audit mechanisms on pandas
DataFrames (with text columns), lists of dict records, scipy sparse matrices, datetime arrays, masked arrays and
``(X, y)`` tuples of columns; a pair of those that is not neighbouring must not be audited as if it were (a pair
differing in 3 records made a correct ε = 1 mechanism "violated" at 2.9).  :func:`record_keys` turns each into a
list of hashable keys, one per record, with NaN equal to NaN, −0 equal to 0, and a masked entry equal only to a
masked entry (whatever value lies under the mask); ``None`` when the data are none of these (then the caller
asks for an explicit ``Pair(D, D', relation="given")``).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

__all__ = ["record_keys", "is_dataframe"]

_MASKED = ("<masked>",)
_NAN = ("<nan>",)


def _canon(v: Any) -> Any:
    """A hashable canonical form of one value (NaN → one token, −0 → 0, containers recursively)."""
    if isinstance(v, np.generic):
        v = v.item()
    if isinstance(v, float):
        return _NAN if math.isnan(v) else v + 0.0
    if isinstance(v, complex):
        return (_canon(v.real), _canon(v.imag))
    if isinstance(v, dict):
        return ("<dict>",) + tuple(sorted(((repr(k), _canon(x)) for k, x in v.items()), key=lambda kv: kv[0]))
    if isinstance(v, (list, tuple)):
        return ("<seq>",) + tuple(_canon(x) for x in v)
    if isinstance(v, np.ndarray):
        return ("<nd>", v.shape) + tuple(_canon(x) for x in v.ravel().tolist())
    if v is None or isinstance(v, (bool, int, str, bytes)):
        return v
    try:
        hash(v)
    except TypeError:
        return ("<repr>", repr(v))
    return v


def _array_rows(a: np.ndarray, mask: np.ndarray | None = None) -> list:
    """Keys of the rows of an array of any dtype (first axis = records), masked entries as one token."""
    if a.ndim == 0:
        raise ValueError("data must have at least one dimension (rows) for a dataset relation")
    flat = a.reshape(a.shape[0], -1).tolist()
    m = None if mask is None else np.broadcast_to(mask, a.shape).reshape(a.shape[0], -1).tolist()
    out = []
    for i, row in enumerate(flat):
        if m is None:
            out.append(tuple(_canon(x) for x in row))
        else:
            out.append(tuple(_MASKED if mk else _canon(x) for x, mk in zip(row, m[i])))
    return out


def _sparse_rows(x: Any) -> list:
    """Keys of the rows of a scipy sparse matrix/array: the stored non-zeros of each row (explicit zeros dropped)."""
    c = x.tocsr(copy=True)
    c.eliminate_zeros()
    c.sort_indices()
    out = []
    for i in range(c.shape[0]):
        lo, hi = c.indptr[i], c.indptr[i + 1]
        out.append((tuple(c.indices[lo:hi].tolist()), tuple(_canon(v) for v in c.data[lo:hi].tolist())))
    return out


def _columns(x: Any) -> list | None:
    """``(X, y, ...)``: a tuple/list of array-likes with a common number of rows, read as columns of records."""
    if not isinstance(x, (tuple, list)) or len(x) < 2:
        return None
    cols = []
    for c in x:
        if isinstance(c, (dict, str, bytes)) or c is None:
            return None
        keys = record_keys(c)
        if keys is None:
            try:
                a = np.asarray(c)
            except (TypeError, ValueError):
                return None
            if a.ndim == 0 or a.dtype == object:
                return None
            keys = _array_rows(a)
        cols.append(keys)
    if len({len(k) for k in cols}) != 1:
        return None
    return [tuple(r) for r in zip(*cols)]


def is_dataframe(x: Any) -> bool:
    """Whether ``x`` is a pandas DataFrame (told by its module, so pandas is never imported here).

    Parameters
    ----------
    x : object
        Any input.

    Returns
    -------
    bool
        True for a DataFrame.
    """
    return type(x).__module__.split(".")[0] == "pandas" and hasattr(x, "itertuples")


def record_keys(x: Any) -> list | None:
    """One hashable key per record of ``x`` (a DataFrame or Series, a scipy sparse matrix, a masked array, a
    datetime / timedelta / object / structured array, a list of dict records, an ``(X, y)`` tuple of columns or a
    dict of columns with a common number of rows); ``None`` when ``x`` is none of these.

    Parameters
    ----------
    x : object
        The dataset.

    Returns
    -------
    list or None
        The keys, in record order.
    """
    mod = type(x).__module__.split(".")[0]
    if is_dataframe(x):
        return [tuple(_canon(v) for v in row) for row in x.itertuples(index=False, name=None)]
    if mod == "pandas" and hasattr(x, "to_numpy"):  # Series
        return [(_canon(v),) for v in x.to_numpy(dtype=object).tolist()]
    if mod == "scipy" and hasattr(x, "tocsr"):
        return _sparse_rows(x)
    if isinstance(x, np.ma.MaskedArray):
        return _array_rows(np.ma.getdata(x), np.ma.getmaskarray(x))
    if isinstance(x, np.ndarray):
        return _array_rows(x) if x.dtype.kind in "OVMm" else None
    if isinstance(x, (list, tuple)) and x and all(isinstance(r, dict) for r in x):
        return [_canon(r) for r in x]
    if isinstance(x, dict) and x:  # a dict of columns {"x": array, "y": array}, records in row order
        keys = sorted(x, key=repr)
        return _columns(tuple(x[k] for k in keys))
    return _columns(x)
