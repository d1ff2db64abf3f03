"""Zhao et al. 2024, optimal rates for heavy-tailed private mean estimation: estimators (:mod:`.mean`) and their
shuffling-amplification calibration (:mod:`.shuffling`). The paper ships no data generator of its own.

Audits: :mod:`audits.zhao2024`. Spec: ``shared/specs/zhao2024_optimal_rates.md``.
"""

from ..zcdp import rho_for_target
from .mean import IterativeUpdatingMean, SimpleClippingMean
from .shuffling import calibrate_group_rho, shuffle_amplified_epsilon

__all__ = [
    "SimpleClippingMean",
    "IterativeUpdatingMean",
    "shuffle_amplified_epsilon",
    "calibrate_group_rho",
    "rho_for_target",
]
