"""htdp-verify: statistical verification of differentially private estimators for heavy-tailed data.

The engine: exact statistics (:mod:`htdp_verify.stats`), the empirical privacy auditor
(:mod:`htdp_verify.privacy`), Monte Carlo and rate checks, heavy-tailed data, lower bounds, claims and results.
"""

from .claims import LowerBoundClaim, PrivacyClaim, Provenance, RateClaim, TailBoundClaim
from .results import CheckResult

__version__ = "0.1.0"

__all__ = [
    "CheckResult",
    "PrivacyClaim",
    "RateClaim",
    "TailBoundClaim",
    "LowerBoundClaim",
    "Provenance",
    "__version__",
]
