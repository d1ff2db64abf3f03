"""Event families for structured releases: atoms of real outputs, extreme coordinates of vectors, and releases that
mix a discrete pattern with real values.

* :class:`AtomAttack` — a real-valued release may carry point masses (a value repeated more often than a
  continuous law allows: a clamped bound, a fallback returning the exact statistic, NaN or ±inf).  Unions of atoms
  are events ``{output ∈ S}``; non-finite outputs are always atoms.
* :class:`MaxStatisticAttack` — thresholds on the largest / smallest standardised coordinate and on the largest
  absolute one: a leak in one unknown coordinate of a wide release, or in the extremes of many.
* :class:`PatternAttack` — the *pattern* of a vector release: each column reduced to its atom (or "a real value");
  unions of patterns (SVT-type ⊤/⊥ answers, codes next to numbers).
* :class:`StratifiedAttack` — condition on the discrete part and threshold the real part: events ``{pattern = p and
  value ≥ t}`` (``≤ t``) for the frequent patterns, and for ranges of the position of the first real column (the
  quadrants of a (first ⊤, value) plane), where the value is the sum of the release's real entries.

Atoms are found per column on the pooled selection releases (:func:`column_atoms`): a column with at most
``max_levels`` distinct values is all atoms; otherwise a value is an atom when it takes at least ``atom_share`` of
the rows or repeats (``min_repeats`` times) in a column whose other values are all distinct.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .basic import Attack, DiscreteAttack, _is_scalar
from .events import Event, Feature, RowKey, _as_2d, isin_nan
from .memo import ArrayMemo
from .scan import scan_thresholds

__all__ = [
    "column_atoms",
    "isin_nan",
    "AtomKey",
    "PatternKey",
    "ExtremeCoordinate",
    "StratifiedValue",
    "AtomAttack",
    "MaxStatisticAttack",
    "PatternAttack",
    "StratifiedAttack",
]


def column_atoms(
    X: Any, *, atom_share: float = 0.01, max_levels: int = 16, min_repeats: int = 3, max_rows: int = 200_000
) -> list[np.ndarray]:
    """Atoms of each column of ``X`` (rows = releases): see the module docstring.  Non-finite values are atoms.

    Parameters
    ----------
    X : array_like
        Releases (rows).
    atom_share : float, default 0.01
        Smallest share of a value to count as an atom.
    max_levels : int, default 16
        Most atoms per column.
    min_repeats : int, default 3
        Fewest repeats of an atom.
    max_rows : int, default 200000
        Most rows inspected.

    Returns
    -------
    list of numpy.ndarray
        The atoms of each column.
    """
    X = _as_2d(np.asarray(X)).astype(float)[:max_rows]
    out = []
    for j in range(X.shape[1]):
        vals, cnt = np.unique(X[:, j], return_counts=True)
        if vals.size <= max_levels:
            out.append(vals)
            continue
        keep = (cnt >= atom_share * X.shape[0]) | ~np.isfinite(vals)
        repeats = cnt >= min_repeats
        if np.count_nonzero(repeats) <= max_levels:  # a few repeated values among distinct ones: point masses
            keep |= repeats
        out.append(vals[keep])
    return out


class AtomKey(Feature):
    """Index of the release's atom (``0..K-1``) or ``-1`` for a non-atom; scalar releases.  Decodes to the atoms.

    Parameters
    ----------
    atoms : array_like of float
        The K atoms (point masses; NaN matches a NaN release), e.g. one entry of :func:`column_atoms`.
    """

    def __init__(self, atoms: Any):
        self.atoms = np.asarray(atoms, dtype=float)
        self.name = "output (atoms)"

    def __call__(self, Y):
        y = _as_2d(np.asarray(Y)).astype(float)[:, 0]
        idx = np.full(y.shape[0], -1, dtype=np.int64)
        num = np.nonzero(~np.isnan(self.atoms))[0]
        if num.size:
            order = num[np.argsort(self.atoms[num])]
            srt = self.atoms[order]
            pos = np.clip(np.searchsorted(srt, y), 0, srt.size - 1)
            hit = srt[pos] == y
            idx[hit] = order[pos[hit]]
        nan_at = np.nonzero(np.isnan(self.atoms))[0]
        if nan_at.size:
            idx[np.isnan(y)] = nan_at[0]
        return idx

    def decode(self, keys: Any) -> list:
        other = "none of " + "{" + ", ".join(f"{float(a):.6g}" for a in self.atoms) + "}"  # the complement, named
        return [other if int(k) < 0 else float(self.atoms[int(k)]) for k in keys]

    def spec(self) -> dict:
        return {"type": "atom_key", "atoms": [repr(float(a)) for a in self.atoms]}


class PatternKey(Feature):
    """The pattern of a vector release: each column's atom index, or ``len(atoms_j)`` for a real value.  Keys are
    the raw bytes of the int16 code row (exact set events); decodes to the atom values (``"x"`` for real).

    Parameters
    ----------
    atoms : list of array_like
        The atoms of every column of the release (as :func:`column_atoms` returns them).
    columns : sequence of int, optional
        The columns the pattern is taken over; ``None``: all of them.
    """

    def __init__(self, atoms: list, columns: Any = None):
        self.all_atoms = [np.asarray(a, dtype=float) for a in atoms]
        self.columns = None if columns is None else [int(j) for j in columns]
        cols = range(len(self.all_atoms)) if self.columns is None else self.columns
        self.atoms = [self.all_atoms[j] for j in cols]
        self.keys = [AtomKey(a) for a in self.atoms]
        self.name = (
            "pattern of atoms (x = real value)"
            if self.columns is None
            else f"pattern of the discrete columns {self.columns}"
        )
        self._rows = RowKey((len(self.atoms),), np.int16)
        self._memo = ArrayMemo()  # parts() once per release array for all the events sharing this pattern

    def codes(self, Y: np.ndarray) -> np.ndarray:
        """The code rows of the releases (remembered per release array, see :meth:`parts`).

        Parameters
        ----------
        Y : numpy.ndarray
            Releases (rows).

        Returns
        -------
        numpy.ndarray
            int16 codes, one row per release: the atom index of each column, or the column's number of atoms for a
            real value.
        """
        return self.parts(Y)[0]

    def parts(self, Y: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The code rows, real-part sums and first real column of the releases, computed once per release array.

        The stratified events of one pattern all start from them, so they are remembered for the last two live
        release arrays (:class:`~htdp_verify.privacy.attacks.memo.ArrayMemo`).

        Parameters
        ----------
        Y : numpy.ndarray
            Releases (rows).

        Returns
        -------
        tuple of numpy.ndarray
            ``(codes, value, first)``: the int16 code rows (as :meth:`codes`), the sum of each release's real
            entries, and the position of its first real column (the number of columns when there is none).
        """
        return self._memo.get(Y, self._parts)

    def _parts(self, Y: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        X = _as_2d(np.asarray(Y)).astype(float)
        if self.columns is not None:
            X = X[:, self.columns]
        C = np.empty(X.shape, dtype=np.int16)
        for j, k in enumerate(self.keys):
            c = k(X[:, j : j + 1])
            C[:, j] = np.where(c < 0, self.atoms[j].size, c)
        real = C >= np.array([a.size for a in self.atoms], dtype=np.int16)
        value = np.where(real, X, 0.0).sum(axis=1)
        first = np.where(real.any(axis=1), np.argmax(real, axis=1), X.shape[1])
        return C, value, first

    def __call__(self, Y):
        return self._rows(self.codes(Y))

    def decode(self, keys: Any) -> list:
        out = []
        for row in self._rows.decode(keys):
            row = row if isinstance(row, list) else [row]  # one column: the row key is the code itself
            out.append(tuple("x" if c >= self.atoms[j].size else float(self.atoms[j][c]) for j, c in enumerate(row)))
        return out

    def spec(self) -> dict:
        return {
            "type": "pattern_key",
            "atoms": [[repr(float(a)) for a in at] for at in self.all_atoms],
            "columns": self.columns,
        }


class ExtremeCoordinate(Feature):
    """``max_j z_j`` / ``min_j z_j`` / ``max_j |z_j|`` of the standardised release ``z = (y - centre) / scale``.

    Parameters
    ----------
    kind : {"max", "min", "absmax"}
        Which extreme of the standardised coordinates.
    centre : array_like
        Per-coordinate location subtracted from the release.
    scale : array_like
        Per-coordinate divisor.
    """

    def __init__(self, kind: str, centre: Any, scale: ArrayLike):
        if kind not in ("max", "min", "absmax"):
            raise ValueError(f"kind must be 'max', 'min' or 'absmax', got {kind!r}")
        self.kind, self.centre, self.scale = kind, np.asarray(centre, float), np.asarray(scale, float)
        self.name = {
            "max": "largest standardised coordinate",
            "min": "smallest standardised coordinate",
            "absmax": "largest |standardised coordinate|",
        }[kind]

    def __call__(self, Y):
        Z = (_as_2d(np.asarray(Y)).astype(float) - self.centre) / self.scale
        if self.kind == "max":
            return Z.max(axis=1)
        if self.kind == "min":
            return Z.min(axis=1)
        return np.abs(Z).max(axis=1)

    def spec(self) -> dict:
        return {
            "type": "extreme_coordinate",
            "kind": self.kind,
            "centre": [repr(float(v)) for v in self.centre],
            "scale": [repr(float(v)) for v in self.scale],
        }


class StratifiedValue(Feature):
    """Sum of the release's real (non-atom) entries where its pattern lies in a group, NaN elsewhere (NaN is never
    in a threshold event).  A group is one pattern code row, or a range ``[lo, hi]`` of the first real column.

    Parameters
    ----------
    pattern : PatternKey
        The pattern map that tells atoms from real entries.
    group : tuple
        ``("pattern", code_row, None)``: the releases whose pattern codes equal ``code_row``; or
        ``(kind, lo, hi)`` with any other ``kind`` (``"first"``): the releases whose first real entry lies in column
        ``lo..hi`` (inclusive; ``d`` when there is none).
    label : str
        Description of the group, used in the feature's name.
    """

    def __init__(self, pattern: PatternKey, group: tuple, label: str):
        self.pattern, self.group = pattern, group
        self.name = f"sum of real entries where {label}"

    def __call__(self, Y):
        C, value, first = self.pattern.parts(Y)
        kind, a, b = self.group
        if kind == "pattern":
            sel = np.all(C == np.asarray(a, dtype=np.int16), axis=1)
        else:
            sel = (first >= a) & (first <= b)
        return np.where(sel, value, np.nan)

    def spec(self) -> dict:
        kind, a, b = self.group
        return {
            "type": "stratified_value",
            "pattern": self.pattern.spec(),
            "group": kind,
            "value": list(map(int, a)) if kind == "pattern" else [int(a), int(b)],
        }


def _pooled(Y1, Y2, ctx):
    n = min(Y1.shape[0], Y2.shape[0], ctx.max_train)
    return np.concatenate([np.asarray(Y1)[:n], np.asarray(Y2)[:n]])


class AtomAttack(Attack):
    """Unions of atoms (point masses, NaN, ±inf) of a real-valued release; nothing when there are none."""

    name = "atoms"
    records_scans = True

    def applicable(self, Y: np.ndarray) -> bool:
        return _is_scalar(Y)

    def select(self, Y1: np.ndarray, Y2: np.ndarray, ctx: Any) -> list[Event]:
        atoms = column_atoms(_pooled(Y1, Y2, ctx))[0]
        if atoms.size == 0:
            return []
        f = AtomKey(atoms)
        return _set_events(f, f(Y1), f(Y2), ctx, self.name)


def _set_events(feature, k1, k2, ctx, name):
    """Best union of key values per orientation (the outcome-union scan of :class:`DiscreteAttack`)."""
    import dataclasses

    return DiscreteAttack().scan_keys(k1, k2, dataclasses.replace(ctx, max_categories=4096), feature, name)


class MaxStatisticAttack(Attack):
    """Thresholds on the extreme standardised coordinates of a vector release."""

    name = "max_statistic"
    records_scans = True

    def applicable(self, Y: np.ndarray) -> bool:
        return not _is_scalar(Y)

    def select(self, Y1: np.ndarray, Y2: np.ndarray, ctx: Any) -> list[Event]:
        P = _as_2d(_pooled(Y1, Y2, ctx)).astype(float)
        finite = np.where(np.isfinite(P), P, np.nan)
        with warnings.catch_warnings():  # a column with no finite value has no centre: handled just below
            warnings.simplefilter("ignore", RuntimeWarning)
            centre = np.nanmean(finite, axis=0)
            scale = np.nanstd(finite, axis=0)
        centre = np.nan_to_num(centre)
        scale = np.where(np.isfinite(scale) & (scale > 0), scale, 1.0)
        events = []
        for kind in ("max", "min", "absmax"):
            f = ExtremeCoordinate(kind, centre, scale)
            events += scan_thresholds(f(Y1), f(Y2), ctx, f, self.name)
        return events


def _mixed_atoms(Y1, Y2, ctx):
    atoms = column_atoms(_pooled(Y1, Y2, ctx))
    return atoms if any(a.size for a in atoms) else None


class PatternAttack(Attack):
    """Unions of atom patterns of a vector release (the discrete part of a mixed release), over all columns and,
    when some columns are purely discrete and others are not, over the purely discrete columns alone (a projection:
    the real columns' noise no longer splits each pattern into many rare ones)."""

    name = "pattern"
    records_scans = True

    def applicable(self, Y: np.ndarray) -> bool:
        return not _is_scalar(Y)

    def select(self, Y1: np.ndarray, Y2: np.ndarray, ctx: Any) -> list[Event]:
        pooled = _pooled(Y1, Y2, ctx)
        atoms = column_atoms(pooled)
        if not any(a.size for a in atoms):
            return []
        X = _as_2d(pooled).astype(float)
        pure = [j for j, a in enumerate(atoms) if a.size and bool(np.all(isin_nan(X[:, j], a)))]
        keys = [PatternKey(atoms)]
        if 0 < len(pure) < len(atoms):
            keys.append(PatternKey(atoms, columns=pure))
        events = []
        for f in keys:
            events += _set_events(f, f(Y1), f(Y2), ctx, self.name)
        return events


class StratifiedAttack(Attack):
    """Thresholds on the real part of a mixed release within groups of its discrete part (see the module).

    Parameters
    ----------
    max_patterns : int, default 16
        Most groups of the discrete part.
    """

    name = "stratified"
    records_scans = True

    def __init__(self, max_patterns: int = 16):
        self.max_patterns = int(max_patterns)

    def applicable(self, Y: np.ndarray) -> bool:
        return not _is_scalar(Y)

    def select(self, Y1: np.ndarray, Y2: np.ndarray, ctx: Any) -> list[Event]:
        atoms = _mixed_atoms(Y1, Y2, ctx)
        if atoms is None:
            return []
        pk = PatternKey(atoms)
        n_atoms = np.array([a.size for a in atoms], dtype=np.int16)
        parts = [pk.parts(Y) for Y in (Y1, Y2)]  # codes, real-part sums and first real column, once per side
        C_all = np.concatenate([parts[0][0], parts[1][0]])
        real_all = C_all >= n_atoms
        if not real_all.any() or real_all.all():
            return []  # no discrete part or no real part: other families cover it
        rows, cnt = np.unique(C_all, axis=0, return_counts=True)
        groups = [
            (("pattern", tuple(int(v) for v in r), None), "pattern = " + str(pk.decode(pk._rows(r[None, :]))[0]))
            for r in rows[np.argsort(-cnt)][: self.max_patterns]
            if (r >= n_atoms).any()
        ]
        m = C_all.shape[1]
        firsts = np.unique(np.concatenate([parts[0][2], parts[1][2]]))
        if firsts.size > 2:
            groups += [(("first", int(k), m), f"first real column >= {k}") for k in firsts[1:-1]]
            groups += [(("first", 0, int(k)), f"first real column <= {k}") for k in firsts[1:-1]]
        events = []
        for g, label in groups:
            kind, a, b = g
            s = []
            for C, value, first in parts:
                sel = (
                    np.all(C == np.asarray(a, dtype=np.int16), axis=1)
                    if kind == "pattern"
                    else (first >= a) & (first <= b)
                )
                s.append(np.where(sel, value, np.nan))
            f = StratifiedValue(pk, g, label)
            events += scan_thresholds(s[0], s[1], ctx, f, self.name)
        return events
