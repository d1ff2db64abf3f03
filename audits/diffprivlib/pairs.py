"""Dataset-level neighbouring pairs inside a declared box for the diffprivlib audits: :func:`box_pairs` (rows moved
to the box's corners and bounds, duplicated, added or removed) and the round-robin merge over base datasets used by
the component table (:mod:`.components`).
"""

from __future__ import annotations

import itertools

import numpy as np

from htdp_verify.privacy import Pair
from htdp_verify.privacy.neighbours import add_one, remove_one, replace_one

__all__ = ["box_pairs"]


# ---------------------------------------------------------------------------------------------------------
# neighbouring pairs
# ---------------------------------------------------------------------------------------------------------
def _corners(lo, hi, limit: int):
    """The first ``limit`` corners of the box in ``itertools.product`` order (lower bound = 0, upper = 1, the last
    coordinate varying fastest).  Generated lazily: the box has ``2**d`` corners, and listing them all before
    truncating (as this function once did) needs ``2**d`` arrays, a ``MemoryError`` from d ≈ 30 on."""
    lo, hi = np.asarray(lo, float), np.asarray(hi, float)
    bits = itertools.islice(itertools.product((0, 1), repeat=lo.size), max(int(limit), 0))
    return [np.where(np.array(b, bool), hi, lo) for b in bits]


def _corner_text(c, lo, hi) -> str:
    """A corner's label: its coordinates up to 8 features; beyond, which coordinates sit at the upper bound (an
    ``array2string`` of 50 numbers spans several lines)."""
    if c.size <= 8:
        return np.array2string(c, separator=",")
    up = np.flatnonzero(c == hi)
    if up.size == 0:
        return f"[lower bound in all {c.size} coordinates]"
    return f"[upper bound at coordinates {','.join(str(int(j)) for j in up)} of {c.size}, lower elsewhere]"


def box_pairs(bases: dict, lo, hi, relation: str, *, labels=None, max_corners: int = 16) -> list[Pair]:
    """Dataset-level neighbours inside the box ``[lo, hi]`` (per feature) for each base dataset.

    ``bases`` maps a name to a dataset: shape ``(n,)`` or ``(n, d)`` features, or ``(n, d + 1)`` with labels in the
    last column when ``labels`` (the label values a row may take) is given.  Replace-one: row 0 to every corner of
    the box (× every label), one coordinate of row 0 to each bound, row 0 replaced by the farthest row.
    Add/remove: row 0 removed, row 0 duplicated, a row added at every corner.  Pairs whose two datasets coincide
    are dropped.  The order is: corners first (the strongest for bounded-sensitivity mechanisms), then the rest.
    """
    lo = np.atleast_1d(np.asarray(lo, float))
    hi = np.atleast_1d(np.asarray(hi, float))
    out_first, out_rest = [], []
    for bname, D in bases.items():
        D = np.asarray(D, float)
        one_d = D.ndim == 1
        feat = D[:, None] if one_d else (D[:, :-1] if labels is not None else D)
        blo, bhi = np.broadcast_to(lo, feat.shape[1:]), np.broadcast_to(hi, feat.shape[1:])
        corners = _corners(blo, bhi, max_corners)
        rows = []
        for c in corners:
            text = _corner_text(c, blo, bhi)
            if labels is None:
                rows.append((c, f"corner {text}"))
            else:
                for lab in labels:
                    rows.append((np.r_[c, lab], f"corner {text} label {lab:g}"))
        ref = D[0] if not one_d else np.atleast_1d(D[0])
        rows.sort(key=lambda rw: -float(np.linalg.norm(np.atleast_1d(rw[0]) - ref)))  # farthest first (stable)
        if relation == "replace":
            for r, what in rows:
                r = r[0] if one_d else r
                if not np.array_equal(D[0], r):
                    out_first.append(replace_one(D, 0, r, f"{bname}: row 0 -> {what}"))
            for j in range(feat.shape[1]):
                for b, bv in (("lower", lo.flat[min(j, lo.size - 1)]), ("upper", hi.flat[min(j, hi.size - 1)])):
                    r = D[0].copy()
                    if one_d:
                        r = bv
                    else:
                        r[j] = bv
                    if not np.array_equal(D[0], r):
                        out_rest.append(replace_one(D, 0, r, f"{bname}: row 0 coordinate {j} -> {b} bound"))
            R = D.reshape(D.shape[0], -1)
            far = int(np.argmax(np.linalg.norm(R - R[0], axis=1)))
            if far != 0 and not np.array_equal(D[0], D[far]):
                out_rest.append(replace_one(D, 0, D[far], f"{bname}: row 0 -> duplicate of row {far}"))
        else:
            for r, what in rows:
                out_first.append(add_one(D, r[0] if one_d else r, f"{bname}: add a row at {what}"))
            out_rest.append(remove_one(D, 0, f"{bname}: remove row 0"))
            out_rest.append(add_one(D, D[0], f"{bname}: duplicate row 0"))
    return out_first + out_rest


def _interleave(*lists):
    """Round-robin merge (so a truncated list still covers every base dataset)."""
    out = []
    for group in itertools.zip_longest(*lists):
        out += [p for p in group if p is not None]
    return out


def _pairs_by_base(bases, lo, hi, relation, **kw):
    return _interleave(*[box_pairs({k: v}, lo, hi, relation, **kw) for k, v in bases.items()])
