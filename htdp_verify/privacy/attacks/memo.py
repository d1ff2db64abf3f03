"""Per-array memory of a computation on releases: many events of one family often share a costly first step (the
pattern codes of a mixed release, a post-processing) and are evaluated on the same release array one after another
(the search ranks every candidate on its held-out releases; a counting chunk is tallied for every event).

:class:`ArrayMemo` keeps the outputs for the last few input arrays, held by weak reference: nothing outlives the
releases, and an array is recognised by identity, never by value.  The engine never modifies a release array in
place, which is what makes identity enough.  Pickling drops the memory (a weak reference cannot be pickled, and a
copy in another process sees other arrays anyway).
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import Any

__all__ = ["ArrayMemo"]


class ArrayMemo:
    """``get(Y, compute)`` returns ``compute(Y)``, computed once per live array ``Y`` among the last ``size`` seen.

    Parameters
    ----------
    size : int, default 2
        How many arrays are remembered (two: both sides of a pair).
    """

    def __init__(self, size: int = 2):
        if int(size) < 1:
            raise ValueError(f"size must be a positive integer, got {size!r}")
        self.size = int(size)
        self._memo: list[tuple[weakref.ref, Any]] = []

    def get(self, Y: Any, compute: Callable[[Any], Any]) -> Any:
        """``compute(Y)``, from memory when ``Y`` (the same object) was seen and is alive.

        Parameters
        ----------
        Y : object
            The input array (an object that is not weak-referenceable, such as a list, is never remembered).
        compute : callable
            The computation; must depend on ``Y`` only.

        Returns
        -------
        object
            What ``compute(Y)`` returns (the remembered object itself on a hit: do not modify it).
        """
        for ref, out in self._memo:
            if ref() is Y:
                return out
        out = compute(Y)
        try:
            ref = weakref.ref(Y, self._forget)
        except TypeError:
            return out
        self._memo = [*self._memo[len(self._memo) - self.size + 1 :], (ref, out)]
        return out

    def _forget(self, dead: weakref.ref) -> None:
        self._memo = [(r, o) for r, o in self._memo if r is not dead]

    def __getstate__(self) -> dict:
        return {"size": self.size, "_memo": []}

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
