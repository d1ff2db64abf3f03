"""High-probability bounds: the exact binomial exceedance test (is the failure rate of a high-probability bound
≤ β?) with its result type, and exact distribution-free order-statistic confidence bounds for a quantile.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import stats as _st

from .._validate import check_int, check_prob
from .binomial import cp_upper

__all__ = [
    "ExceedanceResult",
    "exceedance_test",
    "quantile_upper_bound",
    "quantile_lower_bound",
]


# ---------------------------------------------------------------------------------------------------------
# High-probability bounds: exceedances, quantiles
# ---------------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class ExceedanceResult:
    """Result of :func:`exceedance_test`.

    ``verdict`` is ``"violated"`` when H0 (failure rate ≤ β) is rejected at level α and ``"consistent"``
    otherwise; ``min_detectable_rate`` says how large a violation the run could have caught.

    Parameters
    ----------
    k : int
        Failures.
    n : int
        Replications.
    beta : float
        The claimed failure probability.
    alpha : float
        Level of the test.
    pvalue : float
        ``P[Bin(n, beta) >= k]``.
    rate : float
        ``k / n``.
    rate_upper : float
        Clopper–Pearson upper bound of the failure rate at ``1 - alpha``.
    verdict : str
        ``"violated"`` or ``"consistent"``.
    min_detectable_rate : float
        The smallest failure rate detected with the stated power.
    """

    k: int
    n: int
    beta: float
    alpha: float
    pvalue: float
    rate: float
    rate_upper: float
    verdict: str
    min_detectable_rate: float

    def __str__(self) -> str:  # pragma: no cover - formatting
        return (
            f"{self.k}/{self.n} exceedances (rate {self.rate:.4g}, {100 * (1 - self.alpha):.0f}% upper bound "
            f"{self.rate_upper:.4g}) vs beta={self.beta:g}: p={self.pvalue:.3g} -> {self.verdict}"
        )


def exceedance_test(
    k: float | np.ndarray, n: float | np.ndarray, beta: Any, alpha: float = 0.05, *, power: float = 0.8
) -> ExceedanceResult:
    """Exact one-sided binomial test of H0: P[bound fails] ≤ ``beta`` from ``k`` failures in ``n`` replications.

    ``pvalue = P[Bin(n, beta) >= k]``; H0 is rejected (verdict ``"violated"``) when ``pvalue <= alpha``.
    Otherwise the verdict is ``"consistent"``.  ``min_detectable_rate`` is the smallest true failure rate that
    this test rejects with probability ≥ ``power`` (a design statement: smaller violations can pass).

    Parameters
    ----------
    k : int
        Number of failures (exceedances), ``0 <= k <= n``.
    n : int
        Number of replications, ``n >= 1``.
    beta : float
        The claimed failure probability, in (0, 1).
    alpha : float, default 0.05
        Level of the test.
    power : float, default 0.8
        Power at which ``min_detectable_rate`` is stated.

    Returns
    -------
    ExceedanceResult
        The counts, p-value, rate with its upper bound, verdict and smallest detectable rate.
    """
    k = check_int("k", k, minimum=0)
    n = check_int("n", n, minimum=1)
    if k > n:
        raise ValueError(f"k must lie in [0, n], got k={k}, n={n}")
    beta = check_prob("beta", beta)
    alpha = check_prob("alpha", alpha)
    power = check_prob("power", power)
    pvalue = float(_st.binom.sf(k - 1, n, beta)) if k > 0 else 1.0
    verdict = "violated" if pvalue <= alpha else "consistent"
    return ExceedanceResult(
        k=k,
        n=n,
        beta=beta,
        alpha=alpha,
        pvalue=pvalue,
        rate=k / n,
        rate_upper=float(cp_upper(k, n, alpha)),
        verdict=verdict,
        min_detectable_rate=_min_detectable_exceedance_rate(n, beta, alpha, power),
    )


def _critical_count(n: int, beta: float, alpha: float) -> int:
    """Smallest k with P[Bin(n, beta) >= k] <= alpha."""
    return int(_st.binom.isf(alpha, n, beta)) + 1


def _min_detectable_exceedance_rate(n: int, beta: float, alpha: float, power: float) -> float:
    c = _critical_count(n, beta, alpha)
    if c > n:
        return 1.0
    # P[Bin(n, r) >= c] is increasing in r: bisect for power
    lo, hi = beta, 1.0
    for _ in range(80):
        mid = 0.5 * (lo + hi)
        if _st.binom.sf(c - 1, n, mid) >= power:
            hi = mid
        else:
            lo = mid
    return hi


def quantile_upper_bound(x: float | np.ndarray, q: float, alpha: float = 0.05) -> float:
    """Exact distribution-free upper confidence bound for the ``q``-quantile of a continuous law.

    Returns the order statistic ``x_(j)`` with the smallest j such that ``P[Bin(n, q) <= j-1] >= 1 - alpha``;
    then ``P[x_(j) >= xi_q] >= 1 - alpha``.  Raises ``ValueError`` if n is too small for this (then no order
    statistic qualifies: the message says how many samples are needed).

    Parameters
    ----------
    x : array_like
        Finite sample (flattened).
    q : float
        Quantile level in (0, 1).
    alpha : float, default 0.05
        Error probability in (0, 1).

    Returns
    -------
    float
        The upper confidence bound.
    """
    x = _as_sample("x", x)
    q = check_prob("q", q)
    alpha = check_prob("alpha", alpha)
    n = x.size
    j = int(_st.binom.ppf(1 - alpha, n, q)) + 1  # smallest j with cdf(j-1) >= 1-alpha
    while j >= 2 and _st.binom.cdf(j - 2, n, q) >= 1 - alpha:  # guard ppf rounding
        j -= 1
    if j > n:
        need = math.ceil(math.log(alpha) / math.log(q))
        raise ValueError(f"x has {n} values; an upper bound for the q={q} quantile at alpha={alpha} needs >= {need}")
    return float(np.partition(x, j - 1)[j - 1])


def quantile_lower_bound(x: float | np.ndarray, q: float, alpha: float = 0.05) -> float:
    """Exact distribution-free lower confidence bound for the ``q``-quantile (mirror of the upper bound).

    Parameters
    ----------
    x : array_like
        Finite sample (flattened).
    q : float
        Quantile level in (0, 1).
    alpha : float, default 0.05
        Error probability in (0, 1).

    Returns
    -------
    float
        The lower confidence bound.
    """
    x = _as_sample("x", x)
    return -quantile_upper_bound(-x, 1 - check_prob("q", q), alpha)


def _as_sample(name, x) -> np.ndarray:
    arr = np.asarray(x, dtype=float).ravel()
    if arr.size == 0:
        raise ValueError(f"{name} must contain at least one value")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must be finite (found NaN or inf)")
    return arr
