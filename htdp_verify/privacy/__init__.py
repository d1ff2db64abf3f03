"""The empirical privacy auditor (see ``audit``) and privacy-guarantee types."""
from .guarantee import PrivacyGuarantee, zcdp_to_approx_dp

__all__ = ["PrivacyGuarantee", "zcdp_to_approx_dp"]
