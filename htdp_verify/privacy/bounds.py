"""Lower bounds on privacy parameters from certified event counts.

Every function here takes counts of *fixed* events (chosen before the counted samples were drawn) and turns
the exact one-sided Clopper–Pearson bounds ``lo = CP_lower(k1, n1)`` (on D) and ``hi = CP_upper(k2, n2)`` (on
D') into lower bounds that hold simultaneously with the two CP statements:

* pure ε: ``ln(lo / hi)``;  ε at δ: ``ln((lo - δ) / hi)``;  δ at ε: ``lo - e^ε hi``  (since (ε, δ)-DP means
  ``P[M(D)∈S] <= e^ε P[M(D')∈S] + δ`` for every S);
* Gaussian DP: ``μ_lb = Φ⁻¹(1 - FPR_hi) - Φ⁻¹(FNR_hi)`` with ``FPR_hi = hi`` and ``FNR_hi = 1 - lo`` (Dong, Roth &
  Su 2022; Nasr et al. 2023).  ``μ_lb`` is a valid lower bound on any μ for which the mechanism is μ-GDP;
  converting it to ε **assumes the mechanism's trade-off curve is Gaussian** (true for the Gaussian mechanism
  and approximately for composed DP-SGD, not for pure-ε mechanisms) and is labelled so.

With several events, each gets its share of α (Bonferroni) and the profile is the pointwise maximum.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from scipy import optimize, special

from .._validate import check_positive, check_prob
from ..stats import cp_lower, cp_upper, delta_lower_bound, epsilon_lower_bound

__all__ = [
    "pure_epsilon_lb",
    "epsilon_lb_at_delta",
    "delta_lb_at_epsilon",
    "gdp_mu_lb",
    "gdp_delta",
    "gdp_epsilon",
    "smallest_resolvable_delta",
    "PrivacyProfile",
    "privacy_profile",
]


def pure_epsilon_lb(
    k1: float | np.ndarray, n1: float | np.ndarray, k2: float | np.ndarray, n2: float | np.ndarray, alpha: float
) -> float | np.ndarray:
    """Pure-ε lower bound ``ln(CP_lo(k1,n1,α/2) / CP_hi(k2,n2,α/2))`` (clipped at 0), confidence ``1 - alpha``.

    Parameters
    ----------
    k1, n1 : int or array_like of int
        Count of the event and number of releases on D.
    k2, n2 : int or array_like of int
        Count of the event and number of releases on D'.
    alpha : float
        Total error probability, split evenly over the two sides.

    Returns
    -------
    float or numpy.ndarray
        The ε lower bound (≥ 0).
    """
    return epsilon_lower_bound(k1, n1, k2, n2, alpha, 0.0)


def epsilon_lb_at_delta(
    k1: float | np.ndarray,
    n1: float | np.ndarray,
    k2: float | np.ndarray,
    n2: float | np.ndarray,
    alpha: float,
    delta: float,
) -> float | np.ndarray:
    """ε lower bound at a given δ: ``ln((lo - δ)/hi)``, 0 when ``lo <= δ``.

    Parameters
    ----------
    k1, n1 : int or array_like of int
        Count of the event and number of releases on D.
    k2, n2 : int or array_like of int
        Count of the event and number of releases on D'.
    alpha : float
        Total error probability, split evenly over the two sides.
    delta : float
        The δ.

    Returns
    -------
    float or numpy.ndarray
        The ε lower bound (≥ 0).
    """
    return epsilon_lower_bound(k1, n1, k2, n2, alpha, delta)


def delta_lb_at_epsilon(
    k1: float | np.ndarray,
    n1: float | np.ndarray,
    k2: float | np.ndarray,
    n2: float | np.ndarray,
    alpha: float,
    epsilon: float | np.ndarray,
) -> float | np.ndarray:
    """δ lower bound at a given ε: ``max(0, lo - e^ε hi)``.

    Parameters
    ----------
    k1, n1 : int or array_like of int
        Count of the event and number of releases on D.
    k2, n2 : int or array_like of int
        Count of the event and number of releases on D'.
    alpha : float
        Total error probability, split evenly over the two sides.
    epsilon : float or array_like
        The ε.

    Returns
    -------
    float or numpy.ndarray
        The δ lower bound (≥ 0).
    """
    return delta_lower_bound(k1, n1, k2, n2, epsilon, alpha)


def gdp_mu_lb(
    k1: float | np.ndarray, n1: float | np.ndarray, k2: float | np.ndarray, n2: float | np.ndarray, alpha: float
) -> float | np.ndarray:
    """Gaussian-DP μ lower bound from one event: ``Φ⁻¹(1 - hi) - Φ⁻¹(1 - lo)`` clipped at 0 (vectorised).

    Valid (at confidence ``1 - alpha``) for any mechanism that is μ-GDP; says nothing about pure-ε mechanisms'
    ε unless one assumes a Gaussian trade-off curve (see :func:`gdp_epsilon`).

    Parameters
    ----------
    k1, n1 : int or array_like of int
        Count of the event and number of releases on D.
    k2, n2 : int or array_like of int
        Count of the event and number of releases on D'.
    alpha : float
        Total error probability in (0, 1).

    Returns
    -------
    float or numpy.ndarray
        The μ lower bound (≥ 0).
    """
    alpha = check_prob("alpha", alpha)
    lo = np.asarray(cp_lower(k1, n1, alpha / 2), float)
    hi = np.asarray(cp_upper(k2, n2, alpha / 2), float)
    mu = special.ndtri(1.0 - hi) - special.ndtri(1.0 - lo)
    mu = np.where(np.isnan(mu), 0.0, mu)
    out = np.maximum(mu, 0.0)
    return float(out) if out.ndim == 0 else out


def gdp_delta(epsilon: float | np.ndarray, mu: float | np.ndarray) -> float | np.ndarray:
    """δ(ε) of μ-GDP: ``Φ(-ε/μ + μ/2) - e^ε Φ(-ε/μ - μ/2)`` (Dong, Roth & Su 2022, Cor. 2.13). Vectorised in ε.

    Parameters
    ----------
    epsilon : float or array_like
        The ε (≥ 0).
    mu : float or array_like
        The GDP parameter μ (≥ 0).

    Returns
    -------
    float or numpy.ndarray
        The δ.
    """
    mu = check_positive("mu", mu, allow_inf=False)
    e = np.asarray(epsilon, float)
    # log-space for the second term keeps large ε stable
    out = special.ndtr(-e / mu + mu / 2) - np.exp(e + special.log_ndtr(-e / mu - mu / 2))
    out = np.maximum(out, 0.0)
    return float(out) if out.ndim == 0 else out


def gdp_epsilon(delta: float, mu: float | np.ndarray) -> float:
    """Smallest ε with ``gdp_delta(ε, μ) <= δ`` (the (ε, δ) implied by μ-GDP; 0 if already δ(0) <= δ).

    Assumes a Gaussian trade-off curve: used to convert a μ lower bound to an ε lower bound only under that
    assumption.

    Parameters
    ----------
    delta : float
        The δ, in (0, 1).
    mu : float
        The GDP parameter μ (≥ 0).

    Returns
    -------
    float
        The ε.
    """
    delta = check_prob("delta", delta)
    mu = check_positive("mu", mu, allow_zero=True)
    if mu == 0 or gdp_delta(0.0, mu) <= delta:
        return 0.0
    hi = 1.0
    while gdp_delta(hi, mu) > delta:
        hi *= 2
        if hi > 1e6:  # pragma: no cover
            return math.inf
    return float(optimize.brentq(lambda e: gdp_delta(e, mu) - delta, 0.0, hi, xtol=1e-12))


def smallest_resolvable_delta(n: float | np.ndarray, alpha: float) -> float:
    """Smallest δ a two-sample event audit with ``n`` samples per side can resolve at level ``alpha``.

    A δ-violation needs an event with probability at least δ on D, and an event seen 0 times out of n is only
    bounded by ``CP_hi(0, n, α/2) ≈ ln(2/α)/n``: δ below this floor is invisible to the run.

    Parameters
    ----------
    n : int
        Samples per side.
    alpha : float
        Error probability.

    Returns
    -------
    float
        The δ floor.
    """
    return float(cp_upper(0, int(n), check_prob("alpha", alpha) / 2))


@dataclass
class PrivacyProfile:
    """Empirical (ε, δ) privacy-profile lower curves from certified events, all valid simultaneously.

    Parameters
    ----------
    deltas : numpy.ndarray
        The δ grid.
    epsilon_lb : numpy.ndarray
        ``epsilon_lb[i]`` lower-bounds the ε at ``deltas[i]``.
    epsilons : numpy.ndarray
        The ε grid.
    delta_lb : numpy.ndarray
        ``delta_lb[j]`` lower-bounds the δ at ``epsilons[j]``.
    delta_floor : float
        The smallest resolvable δ.
    alpha : float
        Total error probability of the curves (Bonferroni over ``n_events`` events).
    n_events : int
        Number of certified events.
    n_per_side : int
        Releases per side used to certify them.
    mu_lb : float, default 0.0
        Lower bound on the GDP parameter μ.
    notes : str, default ""
        Remarks on the profile.
    events : list, optional
        The certified events and their counts.
    """

    deltas: np.ndarray
    epsilon_lb: np.ndarray
    epsilons: np.ndarray
    delta_lb: np.ndarray
    delta_floor: float
    alpha: float
    n_events: int
    n_per_side: int
    mu_lb: float = 0.0
    notes: str = ""
    events: list = field(default_factory=list)

    def epsilon_at(self, delta: float) -> float:
        """Lower bound on ε at ``delta`` (interpolates nothing: recomputed from the grid's nearest δ above).

        Parameters
        ----------
        delta : float
            The δ.

        Returns
        -------
        float
            The ε lower bound.
        """
        idx = np.searchsorted(self.deltas, delta, "left")
        return float(self.epsilon_lb[min(idx, self.deltas.size - 1)]) if idx < self.deltas.size else 0.0

    def to_dict(self) -> dict:
        return {
            "deltas": self.deltas.tolist(),
            "epsilon_lb": self.epsilon_lb.tolist(),
            "epsilons": self.epsilons.tolist(),
            "delta_lb": self.delta_lb.tolist(),
            "delta_floor": self.delta_floor,
            "alpha": self.alpha,
            "n_events": self.n_events,
            "n_per_side": self.n_per_side,
            "mu_lb": self.mu_lb,
            "mu_note": "GDP mu lower bound; valid for mu-GDP mechanisms. Converting it to epsilon assumes a "
            "Gaussian trade-off curve.",
            "notes": self.notes,
            "events": self.events,
        }


def privacy_profile(
    k1: float | np.ndarray,
    k2: float | np.ndarray,
    n: float | np.ndarray,
    alphas: float | np.ndarray,
    *,
    n2: float | np.ndarray | None = None,
    deltas: float | np.ndarray | None = None,
    epsilons: float | np.ndarray | None = None,
) -> PrivacyProfile:
    """Profile lower curves from counts ``k1[j]`` (numerator side) and ``k2[j]`` (denominator side) of J fixed
    events, each certified at ``alphas[j]`` (which must sum to the total α), with ``n`` releases on the numerator
    side and ``n2`` (default ``n``) on the denominator side; ``n`` and ``n2`` may be per-event arrays.

    Parameters
    ----------
    k1, k2 : array_like of int
        Counts of the J events on the numerator and denominator sides.
    n : int or array_like
        Releases on the numerator side (per event, or one for all).
    alphas : array_like
        The α of each event.
    n2 : int or array_like, optional
        Releases on the denominator side (default ``n``).
    deltas : array_like, optional
        The δ grid.
    epsilons : array_like, optional
        The ε grid.

    Returns
    -------
    PrivacyProfile
        The lower curves.
    """
    k1 = np.atleast_1d(np.asarray(k1))
    k2 = np.atleast_1d(np.asarray(k2))
    n1a = np.broadcast_to(np.asarray(n), k1.shape)
    n2a = np.broadcast_to(np.asarray(n if n2 is None else n2), k1.shape)
    alphas = np.broadcast_to(np.asarray(alphas, float), k1.shape)
    deltas = np.geomspace(1e-4, 0.5, 25) if deltas is None else np.sort(np.asarray(deltas, float))
    epsilons = np.linspace(0.0, 2.0, 21) if epsilons is None else np.sort(np.asarray(epsilons, float))
    lo = np.array([cp_lower(a, int(m), al / 2) for a, m, al in zip(k1, n1a, alphas)], float)
    hi = np.array([cp_upper(b, int(m), al / 2) for b, m, al in zip(k2, n2a, alphas)], float)
    n = int(min(n1a.min(), n2a.min()))
    num = lo[:, None] - deltas[None, :]
    with np.errstate(divide="ignore", invalid="ignore"):
        e = np.where(num > 0, np.log(np.where(num > 0, num, 1.0)) - np.log(hi)[:, None], 0.0)
    eps_lb = np.maximum(e, 0.0).max(axis=0)
    d_lb = np.maximum(lo[:, None] - np.exp(epsilons)[None, :] * hi[:, None], 0.0).max(axis=0)
    mu = special.ndtri(1.0 - hi) - special.ndtri(1.0 - lo)
    mu_lb = float(np.nanmax(np.maximum(mu, 0.0))) if mu.size else 0.0
    total = float(np.sum(alphas))
    return PrivacyProfile(
        deltas,
        eps_lb,
        epsilons,
        d_lb,
        smallest_resolvable_delta(n, total / max(k1.size, 1)),
        total,
        int(k1.size),
        int(n),
        mu_lb,
    )


def gaussian_profile_delta(epsilon: float | np.ndarray, sensitivity: float, sigma: float) -> float | np.ndarray:
    """True δ(ε) of the Gaussian mechanism with noise σ and sensitivity Δ (μ = Δ/σ; Balle & Wang 2018).

    Parameters
    ----------
    epsilon : float or array_like
        The ε (≥ 0).
    sensitivity : float
        The ℓ2 sensitivity Δ.
    sigma : float
        The noise standard deviation σ.

    Returns
    -------
    float or numpy.ndarray
        The δ.
    """
    return gdp_delta(epsilon, check_positive("sensitivity", sensitivity) / check_positive("sigma", sigma))


__all__.append("gaussian_profile_delta")
