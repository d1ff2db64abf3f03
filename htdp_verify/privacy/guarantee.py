"""Privacy guarantees as values: ε, δ and the neighbouring relation, never a bare ε (OpenDP's rule).

A zCDP guarantee ρ is converted to (ε, δ) explicitly with :meth:`PrivacyGuarantee.from_zcdp`, which records the
conversion so a report can say the claim under test is the converted one.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from .._validate import check_positive, check_prob
from ..claims import NEIGHBOUR_RELATIONS, PrivacyClaim, Provenance

__all__ = ["PrivacyGuarantee", "zcdp_to_approx_dp"]


def zcdp_to_approx_dp(rho: float, delta: float) -> float:
    """ε such that ρ-zCDP implies (ε, δ)-DP, by Bun & Steinke (2016, Prop. 1.3): ε = ρ + 2√(ρ ln(1/δ))."""
    rho = check_positive("rho", rho)
    delta = check_prob("delta", delta)
    return rho + 2.0 * math.sqrt(rho * math.log(1.0 / delta))


@dataclass(frozen=True)
class PrivacyGuarantee:
    """(ε, δ)-DP under ``neighbours`` (``"replace"`` one record or ``"add_remove"`` one record).

    ``rho`` is set when the guarantee was derived from ρ-zCDP; ``conversion`` says how.
    """

    epsilon: float
    delta: float = 0.0
    neighbours: str = "replace"
    rho: float | None = None
    conversion: str = ""

    def __post_init__(self):
        check_positive("epsilon", self.epsilon)
        check_prob("delta", self.delta, open_low=False)
        if self.neighbours not in NEIGHBOUR_RELATIONS:
            raise ValueError(f"neighbours must be one of {NEIGHBOUR_RELATIONS}, got {self.neighbours!r}")

    @classmethod
    def from_zcdp(cls, rho: float, delta: float, neighbours: str = "replace") -> "PrivacyGuarantee":
        eps = zcdp_to_approx_dp(rho, delta)
        return cls(eps, delta, neighbours, rho=rho, conversion="zCDP -> (eps, delta), Bun & Steinke 2016 Prop. 1.3")

    def claim(self, provenance: Provenance | None = None) -> PrivacyClaim:
        """The :class:`PrivacyClaim` an auditor tests for this guarantee."""
        notes = self.conversion
        prov = provenance or Provenance()
        if notes and not prov.notes:
            prov = Provenance(prov.paper, prov.location, prov.equation, notes)
        return PrivacyClaim(self.epsilon, self.delta, self.neighbours, prov)

    def __str__(self) -> str:
        d = f", δ={self.delta:g}" if self.delta else ""
        r = f" (from ρ={self.rho:g}-zCDP)" if self.rho is not None else ""
        return f"(ε={self.epsilon:g}{d})-DP{r}, {self.neighbours} neighbours"
