"""The :class:`Pair` record (two inputs and the relation they are neighbours under) and the query-level relations
``QUERY_RELATIONS`` (``"query"``, ``"N1"``, ``"Ninf"``, ``"given"``); the dataset relations come from
:mod:`htdp_verify.claims`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ...claims import NEIGHBOUR_RELATIONS

__all__ = ["Pair", "QUERY_RELATIONS"]


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
