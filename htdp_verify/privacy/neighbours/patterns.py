"""Pattern libraries of neighbouring pairs: :func:`scalar_pairs`, :func:`vector_pairs`, :func:`statdp_patterns`
(StatDP / DP-Sniper query-vector patterns under N1 / N∞) and :func:`dataset_patterns` (one row moved to the data's
extremes or to the corners of a declared domain, duplicated, removed, added).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ..._validate import check_int, check_positive
from ...claims import NEIGHBOUR_RELATIONS
from .checking import add_one, remove_one, replace_one
from .pairs import Pair, _fmt
from .records import is_dataframe

__all__ = ["scalar_pairs", "vector_pairs", "statdp_patterns", "dataset_patterns"]


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

    * ``"replace"``: row i moved to each target, row i at one end of the domain against row i at the other end
      (``lower`` ↔ ``upper``, ``-c·b`` ↔ ``+c·b``, and each mixed corner ↔ its complement: the largest changes one
      record can make, whatever the data), and row i replaced by a duplicate of the row farthest from it;
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
        The candidate pairs, each pair of datasets once; integer data give integer pairs when every generated
        record is a whole number.
    """
    if relation not in NEIGHBOUR_RELATIONS:
        raise ValueError(f"relation must be one of {NEIGHBOUR_RELATIONS}, got {relation!r}")
    if isinstance(data, np.ma.MaskedArray):  # np.asarray would drop the mask and expose the values under it
        raise ValueError(
            "data must not be a masked array (its mask would be lost): fill the masked entries, or give pairs="
        )
    frame = data if is_dataframe(data) else None  # handed back as DataFrames with the same columns and dtypes
    if isinstance(data, tuple):
        # numpy would stack (X, y) into two "records" holding whole columns (a false "violated" 8.81)
        raise ValueError(
            "data must be one array of records (rows = first axis), not a tuple; for (X, y) data stack the columns "
            "(np.column_stack([X, y])) and unpack them in the mechanism, or give pairs=[((X, y), (X2, y2))]"
        )
    d = np.asarray(data)
    if d.dtype.kind not in "biuf":
        raise ValueError(f"data must be numeric (bool, integer or float), got dtype {d.dtype}")
    d_in = d
    d = d.astype(float)
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
    # integer data stay integer when every generated record is a whole number (a mechanism on counts may need it)
    if d_in.dtype.kind in "biu" and all(np.array_equal(t, np.round(t)) for _, t in targets):
        kind = np.dtype(np.int64 if d_in.dtype.kind == "b" else d_in.dtype)
        info = np.iinfo(kind)
        if any(np.any(np.asarray(t) < info.min) or np.any(np.asarray(t) > info.max) for _, t in targets):
            # a cast would wrap around and put records outside the declared domain (uint8 with lower=-1 gave 255)
            raise ValueError(
                f"the declared domain does not fit data's dtype {d_in.dtype} (range [{info.min}, {info.max}]): a "
                "generated record would wrap around; give data in a wider integer dtype or as floats"
            )
        d = d_in.astype(kind)
        targets = [(name, np.asarray(t).astype(d.dtype)) for name, t in targets]
    out: list[Pair] = []
    for i in rows:
        i = check_int("rows", i, minimum=0)
        if i >= d.shape[0]:
            raise ValueError(f"rows must lie in [0, {d.shape[0] - 1}], got {i}")
        if relation == "replace":
            for name, t in targets:
                if not np.array_equal(d[i], t):
                    out.append(replace_one(d, i, t, f"row {i} -> {name} ({_fmt(t)})"))
            out += _opposite_ends(d, i, targets)
            far = int(np.argmax(np.linalg.norm(R - R[i], axis=1)))
            if far != i:
                out.append(replace_one(d, i, d[far], f"row {i} -> duplicate of row {far}"))
        else:
            out.append(remove_one(d, i, f"remove row {i}"))
            out.append(add_one(d, d[i], f"duplicate row {i}"))
    if relation == "add_remove":
        for name, t in targets:
            out.append(add_one(d, t, f"add a row at {name} ({_fmt(t)})"))
    out = _distinct(out)
    if max_pairs is not None:
        out = out[: check_int("max_pairs", max_pairs, minimum=1)]
    if frame is not None:
        out = [Pair(_as_frame(p.d, frame), _as_frame(p.d_prime, frame), p.label, p.relation) for p in out]
    return out


def _as_frame(a: np.ndarray, frame: Any) -> Any:
    """A generated dataset as a DataFrame like ``frame`` (columns, dtypes): a mechanism written for the DataFrame a
    user passed got a bare array before (``d["age"]`` failed).  A column whose generated values its dtype cannot
    hold exactly raises (nothing is rounded silently)."""
    out = type(frame)(np.asarray(a).reshape(len(a), -1), columns=frame.columns)
    for col, dt in frame.dtypes.items():
        cast = out[col].astype(dt)
        if not np.array_equal(np.asarray(cast, dtype=float), np.asarray(out[col], dtype=float)):
            raise ValueError(
                f"a generated record does not fit column {col!r} of dtype {dt} exactly (values "
                f"{np.asarray(out[col])[:3].tolist()}...): declare a domain the column can hold, or use floats"
            )
        out[col] = cast
    return out


def _opposite_ends(d: np.ndarray, i: int, targets: list) -> list[Pair]:
    """Row ``i`` at one end of the domain against the same row at the other end (both datasets inside the domain,
    neither of them ``data``), and at each mixed corner against its complement: the largest changes one record can
    make.  Without it a record in the middle of the
    domain was moved to one end only, half the range, and a clipped mean with half its noise (true ε 1, claim 0.5)
    came out "consistent" at 19 of 20 seeds."""
    named = dict(targets)
    ends = [("domain lower", "domain upper")] + [(n, "+" + n[1:]) for n in named if n.startswith("-") and "·bound" in n]
    # each mixed corner against its complement (LU ↔ UL): for multi-column records the largest change of a
    # statistic such as Σ(x₁ − x₂) is between mixed corners, which lower ↔ upper does not move at all (a true ε of 2
    # against a claim of 1 came out "consistent" at 8 of 10 seeds)
    swap = str.maketrans("LU", "UL")
    corners = [n for n in named if n.startswith("domain corner ")]
    for n in corners:
        m = "domain corner " + n[len("domain corner ") :].translate(swap)
        if m in named and n < m:
            ends.append((n, m))
    out = []
    for a, b in ends:
        if a in named and b in named:
            base = np.array(d, copy=True)
            base[i] = named[a]
            out.append(replace_one(base, i, named[b], f"row {i}: {a} ({_fmt(named[a])}) -> {b} ({_fmt(named[b])})"))
    return out


def _distinct(pairs: list[Pair]) -> list[Pair]:
    """The pairs without repeats (the same two datasets under two names, e.g. the data's minimum and the domain's
    lower end when they coincide); the first name is kept."""
    seen, out = set(), []
    for p in pairs:
        a, b = np.asarray(p.d), np.asarray(p.d_prime)
        key = (a.shape, a.dtype.str, a.tobytes(), b.shape, b.dtype.str, b.tobytes())
        if key not in seen:
            seen.add(key)
            out.append(p)
    return out
