"""Hu et al. 2022, heavy-tailed DP stochastic convex optimisation: estimators (:mod:`.mean`) and data (:mod:`.data`).

Audits: :mod:`audits.hu2022`. Spec: ``shared/specs/hu2022_heavy_tailed_dp_sco.md``.
"""

from .data import GradientMeanData, bounded_gradient_mean, bounded_gradient_regression
from .mean import PrivateSmoothedSoftTruncationMean, SmoothedSoftTruncationMean, hu_lemma4_bound, hu_lemma4_scale

__all__ = [
    "SmoothedSoftTruncationMean",
    "PrivateSmoothedSoftTruncationMean",
    "hu_lemma4_scale",
    "hu_lemma4_bound",
    "GradientMeanData",
    "bounded_gradient_regression",
    "bounded_gradient_mean",
]
