"""The estimator contract (ARCHITECTURE "Estimators") for the diffprivlib adapters, and the properties they declare to
:mod:`htdp_verify.estimator_checks` (Holohan et al. 2019, arXiv:1907.02444; diffprivlib 0.6.6).

:class:`EstimatorContract` is mixed into :class:`~estimators.dpl.DPLMechanism`, :class:`~estimators.dpl.DPLTool` and
:class:`~estimators.dpl.DPLModel`. It adds

* ``sample(data, size, *, rng)``: the same releases as the mechanism call ``adapter(data, size, rng)``;
* ``adapter(data, *, rng)`` (``size`` omitted): one release, ``sample(data, 1, rng=rng)[0]``; the mechanism call
  ``adapter(data, size, rng)`` is unchanged;
* ``get_params()``: the constructor arguments, including those passed through ``**params`` (so a check can
  rebuild the adapter with one argument changed).

The ``dp_tags()`` of each adapter class (in its own module) describe the data the checks may use, the neighbouring
inputs to audit and the checks that cannot apply; the helpers they share live here.
"""

from __future__ import annotations

import numpy as np

from htdp_verify._validate import check_int, check_rng
from htdp_verify.privacy import Pair

__all__ = ["EstimatorContract", "scalar_pairs", "NOT_A_DATASET"]

#: reason of the declared expected failure of ``check_extreme_inputs`` for mechanisms whose input is one value
NOT_A_DATASET = (
    "not applicable: the input of this mechanism is one value (the query answer), and the check "
    "generates datasets of 2 to 60 records, which the mechanism rejects with ValueError as it should"
)


class EstimatorContract:
    """``sample`` / one-release ``__call__`` / ``get_params`` for a :class:`DPLAdapter` subclass (module docstring)."""

    def sample(self, data, size: int, *, rng: np.random.Generator) -> np.ndarray:
        """``size`` independent releases on ``data``, shape ``(size, ...)`` (the mechanism call)."""
        size = check_int("size", size, minimum=1)
        check_rng(rng)
        return super().__call__(data, size, rng)

    def __call__(self, data, size: int | None = None, rng: np.random.Generator | None = None):
        """``adapter(data, size, rng)``: ``size`` releases (the auditor's mechanism call); ``adapter(data, rng=rng)``:
        one release without the leading axis (the estimator call)."""
        if rng is None:
            raise ValueError("rng: pass a numpy.random.Generator (adapter(data, size, rng) or adapter(data, rng=rng))")
        if size is None:
            return self.sample(data, 1, rng=rng)[0]
        return super().__call__(data, size, rng)

    def get_params(self) -> dict:  # pragma: no cover - provided by each adapter class
        raise NotImplementedError


def scalar_pairs(kind: str, sensitivity: float, lower=None, upper=None) -> list[Pair]:
    """Neighbouring inputs of a scalar mechanism at distance ``sensitivity`` (inside ``[lower, upper]`` when the
    mechanism has a domain): the largest move allowed, from the domain's lower end and (when different) at its
    upper end; for utility vectors a one-score move and the all-scores move that swaps the best candidate."""
    s = float(sensitivity)
    if kind == "utility":
        return [
            Pair(np.zeros(3), np.array([s, 0.0, 0.0]), "u=(0,0,0) vs (s,0,0)", "query"),
            Pair(np.array([0.0, s, s]), np.array([s, 0.0, 0.0]), "u=(0,s,s) vs (s,0,0)", "query"),
        ]
    if kind == "binary":
        return [Pair(0, 1, "bit 0 vs bit 1", "query")]
    if kind.endswith("_bounded"):
        lo, hi = float(lower), float(upper)
        step = min(s, hi - lo)
        if kind.startswith("integer"):
            step = float(int(step))
        out = [Pair(lo, lo + step, f"x={lo:g} vs x={lo + step:g} (lower end)", "query")]
        if hi - step > lo:
            out.append(Pair(hi - step, hi, f"x={hi - step:g} vs x={hi:g} (upper end)", "query"))
        return out
    return [Pair(0.0, s, f"x=0 vs x={s:g}", "query")]
