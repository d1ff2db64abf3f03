"""Wang et al., DP-EM: the private heavy-tailed means (:mod:`.mean`) and the EM models' data (:mod:`.data`).

Audits: :mod:`audits.dpem`. Spec: ``shared/specs/wang_dp_em.md``.
"""

from .data import MissingCovariatesData, MixtureData, gaussian_mixture, missing_covariates, mixture_of_regressions
from .mean import WangCentralMean, WangLocalMean, wang_eps_tilde

__all__ = [
    "wang_eps_tilde",
    "WangCentralMean",
    "WangLocalMean",
    "MixtureData",
    "MissingCovariatesData",
    "gaussian_mixture",
    "mixture_of_regressions",
    "missing_covariates",
]
