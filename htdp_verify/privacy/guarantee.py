"""Privacy guarantees as values: ε, δ and the neighbouring relation, never a bare ε (OpenDP's rule).

A zCDP guarantee ρ is converted to (ε, δ) explicitly with :meth:`PrivacyGuarantee.from_zcdp`, which records the
conversion so a report can say the claim under test is the converted one.

Two conversions of ρ-zCDP to (ε, δ)-DP are provided:

* :func:`zcdp_epsilon` / :func:`zcdp_delta` (default, "cks"): Canonne, Kamath & Steinke 2020 ("The discrete
  Gaussian for differential privacy", Prop. 12 / Cor. 13; also Asoodeh et al. 2021), the conversion OpenDP's
  ``make_zCDP_to_approxDP`` uses:  δ(ε) = inf_{α>1} exp((α−1)(αρ−ε))/α · (1−1/α)^{α−1}, equivalently
  ε(δ) = inf_{α>1} αρ + ln(1−1/α) − (ln δ + ln α)/(α−1). Both infima are attained at the unique root of a monotone
  function of α and are solved to machine precision. Example: ρ = 0.0085055, δ = 1e-5 gives ε = 0.500.
* :func:`bun_steinke_epsilon` ("bun_steinke"): Bun & Steinke 2016, Prop. 1.3, ε = ρ + 2√(ρ ln(1/δ)) — looser
  (0.634 in the example above) but the formula several papers state their claims with; keep it for those claims.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from scipy import optimize

from .._validate import check_positive, check_prob
from ..claims import NEIGHBOUR_RELATIONS, PrivacyClaim, Provenance

__all__ = [
    "PrivacyGuarantee",
    "zcdp_to_approx_dp",
    "zcdp_epsilon",
    "zcdp_delta",
    "bun_steinke_epsilon",
    "ZCDP_CONVERSIONS",
]

#: names accepted by ``conversion=`` in :func:`zcdp_to_approx_dp` and :meth:`PrivacyGuarantee.from_zcdp`
ZCDP_CONVERSIONS = ("cks", "bun_steinke")
_CONVERSION_TEXT = {
    "cks": "zCDP -> (eps, delta), Canonne-Kamath-Steinke 2020 Prop. 12 (tight form, as in OpenDP)",
    "bun_steinke": "zCDP -> (eps, delta), Bun & Steinke 2016 Prop. 1.3",
}


def bun_steinke_epsilon(rho: float, delta: float) -> float:
    """ε such that ρ-zCDP implies (ε, δ)-DP by Bun & Steinke (2016, Prop. 1.3): ε = ρ + 2√(ρ ln(1/δ)).

    Valid but loose; :func:`zcdp_epsilon` is never larger.

    Parameters
    ----------
    rho : float
        The zCDP parameter ρ (≥ 0).
    delta : float
        The δ, in (0, 1).

    Returns
    -------
    float
        The ε.
    """
    rho = check_positive("rho", rho)
    delta = check_prob("delta", delta)
    return rho + 2.0 * math.sqrt(rho * math.log(1.0 / delta))


def zcdp_epsilon(rho: float, delta: float) -> float:
    """Smallest ε the Canonne–Kamath–Steinke (2020, Prop. 12) conversion certifies for ρ-zCDP at δ.

    ε(δ) = min_{α>1} f(α), f(α) = αρ + ln(1 − 1/α) − (ln δ + ln α)/(α − 1). f'(α) = ρ + (ln δ + ln α)/(α − 1)², whose
    numerator g(α) = ρ(α−1)² + ln α + ln δ increases from ln δ < 0 at α = 1 and is positive at α = 1 + √(ln(1/δ)/ρ):
    the minimiser is the unique root of g in that bracket (``scipy.optimize.brentq``).

    Parameters
    ----------
    rho : float
        The zCDP parameter ρ (≥ 0).
    delta : float
        The δ, in (0, 1).

    Returns
    -------
    float
        The ε, ``max(ε, 0)``.
    """
    rho = check_positive("rho", rho)
    delta = check_prob("delta", delta)
    log_d = math.log(delta)
    if rho == 0:
        return 0.0

    def g(a):
        return rho * (a - 1.0) ** 2 + math.log(a) + log_d

    hi = 1.0 + math.sqrt(-log_d / rho)
    # g(1) = ln δ < 0 and g(hi) = ln(hi) > 0
    a = optimize.brentq(g, 1.0, hi, xtol=1e-15, maxiter=500)
    a = max(a, 1.0 + 1e-12)
    eps = a * rho + math.log1p(-1.0 / a) - (log_d + math.log(a)) / (a - 1.0)
    return max(eps, 0.0)


def zcdp_delta(rho: float, epsilon: float) -> float:
    """Smallest δ the Canonne–Kamath–Steinke (2020, Cor. 13) conversion certifies for ρ-zCDP at ε ≥ 0.

    δ(ε) = min_{α>1} exp(h(α)), h(α) = (α−1)(αρ−ε) − ln α + (α−1) ln(1−1/α); h'(α) = 2αρ − ρ − ε + ln(1−1/α) is
    increasing, −∞ at α → 1 and positive at α = 1 + (ε + ρ)/(2ρ) + 1: its root is the minimiser.

    Parameters
    ----------
    rho : float
        The zCDP parameter ρ (≥ 0).
    epsilon : float
        The ε (≥ 0).

    Returns
    -------
    float
        The δ, ``min(δ, 1)``.
    """
    rho = check_positive("rho", rho)
    epsilon = check_positive("epsilon", epsilon, allow_zero=True)

    def hp(a):
        return 2.0 * a * rho - rho - epsilon + math.log1p(-1.0 / a)

    hi = 2.0 + (epsilon + rho) / (2.0 * rho)
    while hp(hi) <= 0:  # pragma: no cover - the bracket above is already positive
        hi *= 2.0
    a = optimize.brentq(hp, 1.0 + 1e-15, hi, xtol=1e-15, maxiter=500)
    log_delta = (a - 1.0) * (a * rho - epsilon) - math.log(a) + (a - 1.0) * math.log1p(-1.0 / a)
    return min(1.0, math.exp(log_delta))


def zcdp_to_approx_dp(rho: float, delta: float, *, conversion: str = "cks") -> float:
    """ε such that ρ-zCDP implies (ε, δ)-DP.

    Parameters
    ----------
    rho : float
        The zCDP parameter ρ (≥ 0).
    delta : float
        The δ, in (0, 1).
    conversion : str, default "cks"
        ``"cks"`` (tight: :func:`zcdp_epsilon`) or ``"bun_steinke"`` (:func:`bun_steinke_epsilon`, the formula
        papers often state their claims with).

    Returns
    -------
    float
        The ε.
    """
    if conversion not in ZCDP_CONVERSIONS:
        raise ValueError(f"conversion must be one of {ZCDP_CONVERSIONS}, got {conversion!r}")
    return zcdp_epsilon(rho, delta) if conversion == "cks" else bun_steinke_epsilon(rho, delta)


@dataclass(frozen=True)
class PrivacyGuarantee:
    """(ε, δ)-DP under ``neighbours`` (``"replace"`` one record or ``"add_remove"`` one record).

    Parameters
    ----------
    epsilon : float
        The ε (> 0).
    delta : float, default 0.0
        The δ, in [0, 1).
    neighbours : str, default "replace"
        The neighbouring relation, ``"replace"`` or ``"add_remove"``.
    rho : float, optional
        Set when the guarantee was derived from ρ-zCDP.
    conversion : str, default ""
        How the ρ was converted to (ε, δ).
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
    def from_zcdp(
        cls, rho: float, delta: float, neighbours: str = "replace", *, conversion: str = "cks"
    ) -> PrivacyGuarantee:
        """(ε, δ) implied by ρ-zCDP: ``conversion="cks"`` (default, Canonne–Kamath–Steinke 2020, tight) or
        ``"bun_steinke"`` (Bun & Steinke 2016 Prop. 1.3; use it where a paper states its claim with it).

        Parameters
        ----------
        rho : float
            The zCDP parameter ρ.
        delta : float
            The δ.
        neighbours : str, default "replace"
            The relation.
        conversion : str, default "cks"
            ``"cks"`` or ``"bun_steinke"``.

        Returns
        -------
        PrivacyGuarantee
            The guarantee, with ``rho`` and ``conversion`` set.
        """
        eps = zcdp_to_approx_dp(rho, delta, conversion=conversion)
        return cls(eps, delta, neighbours, rho=rho, conversion=_CONVERSION_TEXT[conversion])

    def claim(self, provenance: Provenance | None = None) -> PrivacyClaim:
        """The :class:`PrivacyClaim` an auditor tests for this guarantee.

        Parameters
        ----------
        provenance : Provenance, optional
            Where the claim comes from.

        Returns
        -------
        PrivacyClaim
            The claim.
        """
        notes = self.conversion
        prov = provenance or Provenance()
        if notes and not prov.notes:
            prov = Provenance(prov.paper, prov.location, prov.equation, notes)
        return PrivacyClaim(self.epsilon, self.delta, self.neighbours, prov)

    def __str__(self) -> str:
        d = f", δ={self.delta:g}" if self.delta else ""
        r = f" (from ρ={self.rho:g}-zCDP)" if self.rho is not None else ""
        return f"(ε={self.epsilon:g}{d})-DP{r}, {self.neighbours} neighbours"
