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

Layout: :mod:`.pairs` (``Pair``, query relations), :mod:`.checking` (reading and checking pairs, one-row dataset
neighbours), :mod:`.patterns` (pattern libraries); every name is importable from here.
"""

from __future__ import annotations

from .checking import add_one, as_pairs, check_neighbours, given_pair, remove_one, replace_one
from .pairs import QUERY_RELATIONS, Pair
from .patterns import dataset_patterns, scalar_pairs, statdp_patterns, vector_pairs

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
