"""diffprivlib's ``tools.mean`` and ``tools.median`` as estimators (:class:`DPLMean`, :class:`DPLMedian`): the
baselines the paper estimators are compared with, each built on a :class:`~estimators.dpl.tools.DPLTool` per data
dimension (Holohan et al. 2019).
"""

from __future__ import annotations

import numpy as np

from htdp_verify._validate import check_int, check_positive, check_rng
from htdp_verify.privacy import PrivacyGuarantee, replace_one

from ..base import Estimator, as_data
from .tables import _check_bounds_pair
from .tools import DPLTool

__all__ = ["DPLMean", "DPLMedian"]


class _DPLToolEstimator(Estimator):
    _tool = ""

    def __init__(self, epsilon: float, bounds, *, n_jobs: int = 1):
        self.epsilon = check_positive("epsilon", epsilon)
        _check_bounds_pair("bounds", bounds)
        self.bounds = bounds
        self.n_jobs = check_int("n_jobs", n_jobs, minimum=1)
        self.privacy = PrivacyGuarantee(self.epsilon, 0.0, "replace")
        self._adapters = {}

    def adapter(self, ndim: int) -> DPLTool:
        """The :class:`DPLTool` used for data of ``ndim`` dimensions (2-d: per column, ``axis=0``)."""
        if ndim not in self._adapters:
            kw = {"axis": 0} if ndim == 2 else {}
            self._adapters[ndim] = DPLTool(
                self._tool, epsilon=self.epsilon, bounds=self.bounds, n_jobs=self.n_jobs, **kw
            )
        return self._adapters[ndim]

    def __call__(self, data, *, rng: np.random.Generator) -> np.ndarray:
        return self.sample(data, 1, rng=rng)[0]

    def sample(self, data, size: int, *, rng: np.random.Generator) -> np.ndarray:
        size = check_int("size", size, minimum=1)
        check_rng(rng)
        arr = as_data(data)
        return self.adapter(arr.ndim)(arr, size, rng)

    def dp_tags(self) -> dict:
        """Declared properties for :mod:`htdp_verify.estimator_checks`: one release runs diffprivlib's own code
        (about a millisecond), so the checks use their smaller sizes."""

        def worst(data):
            x = np.array(data, dtype=float)
            lo, hi = (np.broadcast_to(np.asarray(b, dtype=float), x.shape[1:]) for b in self.bounds)
            x[0] = lo
            return [replace_one(x, 0, hi, "record 0: lower -> upper bound")]

        return {"expensive": True, "neighbours": {"max_pairs": 3}, "worst_case_pairs": worst}


class DPLMean(_DPLToolEstimator):
    """diffprivlib's ``tools.mean`` as an estimator (baseline): clip to ``bounds``, LaplaceTruncated noise with
    sensitivity ``(U - L)/n``, output clamped to ``[L, U]``.  2-d data: one mean per column, ε split evenly
    across the columns (diffprivlib's ``axis=0``).  ε-DP, replace-one (n public).

    Parameters
    ----------
    epsilon: privacy parameter.
    bounds: ``(L, U)``, scalars or per-column vectors (public, data-independent).
    n_jobs: worker processes for ``sample``.
    """

    _tool = "mean"
    reference = "diffprivlib 0.6.6 tools.mean (Holohan et al. 2019)"


class DPLMedian(_DPLToolEstimator):
    """diffprivlib's ``tools.median`` as an estimator (baseline): exponential mechanism over the gaps between the
    sorted clipped points (utility ``-|i - n/2|``, base measure the gap length), then a uniform point in the chosen
    gap.  2-d data: per column, ε split evenly.  ε-DP, replace-one (n public).

    Parameters
    ----------
    epsilon: privacy parameter.
    bounds: ``(L, U)`` (public, data-independent; ``U - L >= 1e-5``).
    n_jobs: worker processes for ``sample``.
    """

    _tool = "median"
    reference = "diffprivlib 0.6.6 tools.median (Holohan et al. 2019)"
