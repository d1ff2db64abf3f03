"""Exact statistics that every verdict of the toolkit is certified with.

Contents
--------
* Clopper–Pearson bounds for a binomial proportion (one- and two-sided), vectorised over counts.
* ε lower bounds from two event counts: pure ε, ε at a given δ, δ at a given ε (α split over the two sides).
* An exact binomial exceedance test (is the failure rate of a high-probability bound ≤ β?) and exact
  order-statistic confidence bounds for a quantile.
* ``Budget``: a family-wise error budget with named spends and a ledger.
* Design functions (TFP-style): the largest ε certifiable with n samples per side, the samples per side needed
  to certify a target ε, and the DKW band width.

Conventions: ``alpha`` is always the total error probability of the statement being made; a two-sided
statement spends ``alpha/2`` on each side.  All bounds are exact (beta quantiles), never normal approximations.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy import special
from scipy import stats as _st

from ._validate import check_counts, check_int, check_positive, check_prob

__all__ = [
    "cp_lower",
    "cp_upper",
    "cp_interval",
    "epsilon_lower_bound",
    "epsilon_lower_bound_poisson",
    "max_certifiable_epsilon_poisson",
    "delta_lower_bound",
    "ExceedanceResult",
    "exceedance_test",
    "quantile_upper_bound",
    "quantile_lower_bound",
    "Budget",
    "BudgetExceededError",
    "max_certifiable_epsilon",
    "samples_needed_for_epsilon",
    "dkw_halfwidth",
    "samples_needed_for_exceedance",
]


# ---------------------------------------------------------------------------------------------------------
# Clopper–Pearson
# ---------------------------------------------------------------------------------------------------------
def _scalar_or_array(x):
    x = np.asarray(x, dtype=float)
    return float(x) if x.ndim == 0 else x


def cp_lower(k: float | np.ndarray, n: float | np.ndarray, alpha: float) -> float | np.ndarray:
    """One-sided Clopper–Pearson lower bound for p at confidence ``1 - alpha``.

    ``P_p[cp_lower(K, n, alpha) > p] <= alpha`` for every p.  Equals ``Beta^{-1}(alpha; k, n-k+1)`` and 0 at k=0.
    Vectorised over ``k`` and ``n``.

    Parameters
    ----------
    k : int or array_like of int
        Number of successes, ``0 <= k <= n``.
    n : int or array_like of int
        Number of trials, ``n >= 1``.
    alpha : float
        Error probability in (0, 1).

    Returns
    -------
    float or numpy.ndarray
        The lower bound (an array when ``k`` or ``n`` is an array).
    """
    alpha = check_prob("alpha", alpha)
    k, n = check_counts("k", k, "n", n)
    a = np.where(k > 0, k, 1).astype(float)
    out = special.betaincinv(a, (n - k + 1).astype(float), alpha)
    out = np.where(k > 0, out, 0.0)
    return _scalar_or_array(out)


def cp_upper(k: float | np.ndarray, n: float | np.ndarray, alpha: float) -> float | np.ndarray:
    """One-sided Clopper–Pearson upper bound for p at confidence ``1 - alpha``.

    Equals ``Beta^{-1}(1-alpha; k+1, n-k)`` and 1 at k=n.  Vectorised over ``k`` and ``n``.

    Parameters
    ----------
    k : int or array_like of int
        Number of successes, ``0 <= k <= n``.
    n : int or array_like of int
        Number of trials, ``n >= 1``.
    alpha : float
        Error probability in (0, 1).

    Returns
    -------
    float or numpy.ndarray
        The upper bound (an array when ``k`` or ``n`` is an array).
    """
    alpha = check_prob("alpha", alpha)
    k, n = check_counts("k", k, "n", n)
    b = np.where(k < n, n - k, 1).astype(float)
    # upper bound = 1 - lower bound of the complementary count: numerically better for small p
    out = 1.0 - special.betaincinv(b, (k + 1).astype(float), alpha)
    out = np.where(k < n, out, 1.0)
    return _scalar_or_array(out)


def cp_interval(
    k: float | np.ndarray, n: float | np.ndarray, alpha: float
) -> tuple[float | np.ndarray, float | np.ndarray]:
    """Two-sided Clopper–Pearson interval at confidence ``1 - alpha`` (``alpha/2`` on each side).

    Parameters
    ----------
    k : int or array_like of int
        Number of successes, ``0 <= k <= n``.
    n : int or array_like of int
        Number of trials, ``n >= 1``.
    alpha : float
        Total error probability in (0, 1).

    Returns
    -------
    tuple
        ``(lower, upper)``, each a float or an array like :func:`cp_lower`.
    """
    alpha = check_prob("alpha", alpha)
    return cp_lower(k, n, alpha / 2), cp_upper(k, n, alpha / 2)


# ---------------------------------------------------------------------------------------------------------
# ε and δ lower bounds from event counts
# ---------------------------------------------------------------------------------------------------------
def epsilon_lower_bound(
    k1: float | np.ndarray,
    n1: float | np.ndarray,
    k2: float | np.ndarray,
    n2: float | np.ndarray,
    alpha: float | np.ndarray,
    delta: float = 0.0,
) -> float | np.ndarray:
    """Lower confidence bound on ε from an event S fixed before the samples were drawn.

    ``k1`` of ``n1`` releases on dataset D fell in S and ``k2`` of ``n2`` on the neighbour D'.  With
    ``lo = cp_lower(k1, n1, alpha/2)`` and ``hi = cp_upper(k2, n2, alpha/2)`` the bound is
    ``ln((lo - delta) / hi)`` (``delta = 0`` gives the pure-ε bound ``ln(lo/hi)``), valid at confidence
    ``1 - alpha`` for any mechanism that is (ε, δ)-DP: it holds because P[M(D)∈S] ≤ e^ε P[M(D')∈S] + δ.
    The result is clipped at 0 (a negative bound says nothing).  Vectorised over counts.

    Parameters
    ----------
    k1, n1 : int or array_like of int
        Count of the event and number of releases on D.
    k2, n2 : int or array_like of int
        Count of the event and number of releases on D'.
    alpha : float
        Total error probability in (0, 1), split evenly over the two sides.
    delta : float, default 0.0
        The δ of the claim, in [0, 1).

    Returns
    -------
    float or numpy.ndarray
        The ε lower bound (≥ 0).
    """
    alpha = check_prob("alpha", alpha)
    delta = check_prob("delta", delta, open_low=False)
    lo = np.asarray(cp_lower(k1, n1, alpha / 2))
    hi = np.asarray(cp_upper(k2, n2, alpha / 2))
    num = lo - delta
    with np.errstate(divide="ignore", invalid="ignore"):
        eps = np.where(num > 0, np.log(np.where(num > 0, num, 1.0)) - np.log(hi), 0.0)
    return _scalar_or_array(np.maximum(eps, 0.0))


def epsilon_lower_bound_poisson(
    k1: float | np.ndarray, k2: float | np.ndarray, alpha: float, lam1: float = 1.0, lam2: float = 1.0
) -> float | np.ndarray:
    """Pure-ε lower bound from *Poissonised* event counts: one exact conditional test instead of two CP bounds.

    Requires the numbers of releases to be ``N1 ~ Poisson(lam1)`` on D and ``N2 ~ Poisson(lam2)`` on D' (drawn
    independently of everything else).  Then the event counts are independent ``k1 ~ Poisson(lam1·p1)`` and
    ``k2 ~ Poisson(lam2·p2)``, and given ``s = k1 + k2``, ``k1 ~ Bin(s, θ)`` with
    ``θ = lam1 p1 / (lam1 p1 + lam2 p2)`` exactly.  A one-sided Clopper–Pearson lower bound θ_lo at level α
    (all of α on one side) gives ``ε_lb = ln(θ_lo / (1 - θ_lo)) + ln(lam2 / lam1)`` ≤ ln(p1/p2) with probability
    ≥ 1 - α (the CP bound is valid conditionally on every s).  Compared with :func:`epsilon_lower_bound` it
    spends α once instead of α/2 twice and its error term is about √(1/k1 + 1/k2) instead of the sum of two
    one-sided margins: roughly half the margin for balanced events.  Clipped at 0; vectorised.

    Parameters
    ----------
    k1, k2 : int or array_like of int
        Event counts on D and on D' (non-negative integers).
    alpha : float
        Error probability in (0, 1).
    lam1, lam2 : float, default 1.0
        Means (> 0) of the Poisson numbers of releases on D and on D'.

    Returns
    -------
    float or numpy.ndarray
        The ε lower bound (≥ 0).
    """
    alpha = check_prob("alpha", alpha)
    lam1 = check_positive("lam1", lam1)
    lam2 = check_positive("lam2", lam2)
    k1 = np.asarray(k1)
    k2 = np.asarray(k2)
    for name, k in (("k1", k1), ("k2", k2)):
        if k.dtype.kind not in "iuf" or np.any(k < 0) or np.any(k != np.floor(k)):
            raise ValueError(f"{name} must be a non-negative integer count, got {k!r}")
    k1, k2 = np.broadcast_arrays(k1.astype(np.int64), k2.astype(np.int64))
    s = k1 + k2
    ok = k1 > 0
    theta_lo = np.zeros(k1.shape, dtype=float)
    if np.any(ok):
        theta_lo[ok] = np.atleast_1d(cp_lower(k1[ok], s[ok], alpha))
    with np.errstate(divide="ignore"):
        eps = np.where(ok & (theta_lo > 0), np.log(theta_lo) - np.log1p(-np.minimum(theta_lo, 1 - 1e-300)), 0.0)
    eps = eps + math.log(lam2 / lam1)
    return _scalar_or_array(np.maximum(np.where(ok, eps, 0.0), 0.0))


def max_certifiable_epsilon_poisson(n: float | np.ndarray, alpha: float = 0.05) -> float:
    """Largest ε the Poissonised bound certifies with ``n`` expected releases per side (counts n vs 0).

    Parameters
    ----------
    n : int
        Expected releases per side, ``n >= 1``.
    alpha : float, default 0.05
        Error probability in (0, 1).

    Returns
    -------
    float
        The largest certifiable ε.
    """
    n = check_int("n", n, minimum=1)
    return float(epsilon_lower_bound_poisson(n, 0, alpha))


def delta_lower_bound(
    k1: float | np.ndarray,
    n1: float | np.ndarray,
    k2: float | np.ndarray,
    n2: float | np.ndarray,
    epsilon: float | np.ndarray,
    alpha: float,
) -> float | np.ndarray:
    """Lower confidence bound on δ at a given ε: ``max(0, lo - e^ε · hi)`` (α split over the two sides).

    Parameters
    ----------
    k1, n1 : int or array_like of int
        Count of the event and number of releases on D.
    k2, n2 : int or array_like of int
        Count of the event and number of releases on D'.
    epsilon : float
        The ε (≥ 0) at which δ is bounded.
    alpha : float
        Total error probability in (0, 1).

    Returns
    -------
    float or numpy.ndarray
        The δ lower bound (≥ 0).
    """
    alpha = check_prob("alpha", alpha)
    epsilon = check_positive("epsilon", epsilon, allow_zero=True)
    lo = np.asarray(cp_lower(k1, n1, alpha / 2))
    hi = np.asarray(cp_upper(k2, n2, alpha / 2))
    return _scalar_or_array(np.maximum(lo - math.exp(epsilon) * hi, 0.0))


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


def samples_needed_for_exceedance(
    beta: Any, true_rate: Any, alpha: float = 0.05, power: float = 0.8, *, n_max: Any = 10**8
) -> int:
    """Replications needed so that the exceedance test detects a failure rate above ``beta``.

    The test of H0: rate ≤ ``beta`` must reject with probability ≥ ``power`` when the true failure rate is
    ``true_rate`` (> ``beta``).

    Parameters
    ----------
    beta : float
        The claimed failure probability, in (0, 1).
    true_rate : float
        The failure rate to detect, in (``beta``, 1).
    alpha : float, default 0.05
        Level of the test.
    power : float, default 0.8
        Required probability of detection.
    n_max : int, default 10**8
        Largest number of replications searched; ``ValueError`` beyond it.

    Returns
    -------
    int
        The smallest number of replications with the required power.
    """
    beta = check_prob("beta", beta)
    true_rate = check_prob("true_rate", true_rate)
    alpha = check_prob("alpha", alpha)
    power = check_prob("power", power)
    if true_rate <= beta:
        raise ValueError(f"true_rate must exceed beta ({beta}), got {true_rate}")

    def ok(n: int) -> bool:
        c = _critical_count(n, beta, alpha)
        return c <= n and _st.binom.sf(c - 1, n, true_rate) >= power

    return _smallest_n(ok, n_max, "true_rate")


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


def dkw_halfwidth(n: float | np.ndarray, alpha: float = 0.05) -> float:
    """Half-width of the two-sided DKW(M) band: ``sqrt(ln(2/alpha) / (2n))``; uniform over all thresholds.

    Parameters
    ----------
    n : int
        Sample size, ``n >= 1``.
    alpha : float, default 0.05
        Error probability in (0, 1).

    Returns
    -------
    float
        The half-width of the band.
    """
    n = check_int("n", n, minimum=1)
    alpha = check_prob("alpha", alpha)
    return math.sqrt(math.log(2 / alpha) / (2 * n))


# ---------------------------------------------------------------------------------------------------------
# Family-wise error budget
# ---------------------------------------------------------------------------------------------------------
class BudgetExceededError(ValueError):
    """Raised when a spend would exceed the family-wise error budget."""


@dataclass
class Budget:
    """A family-wise error budget: spends are named, summed (Bonferroni), and may never exceed ``alpha``.

    >>> b = Budget(0.05)
    >>> a1 = b.spend("search", 0.01); a2 = b.spend("final", b.remaining)
    >>> print(b.ledger())  # doctest: +SKIP

    Parameters
    ----------
    alpha : float
        The total family-wise error probability.
    spends : list, optional
        The ``(name, amount)`` spends recorded so far.
    """

    alpha: float
    spends: list = field(default_factory=list)

    def __post_init__(self):
        self.alpha = check_prob("alpha", self.alpha)

    @property
    def spent(self) -> float:
        return float(sum(a for _, a in self.spends))

    @property
    def remaining(self) -> float:
        return max(self.alpha - self.spent, 0.0)

    def spend(self, name: str, amount: float) -> float:
        """Record a spend of ``amount`` under ``name``; refuses to overspend (:class:`BudgetExceededError`).

        Parameters
        ----------
        name : str
            What the α is spent on.
        amount : float
            The α spent (≥ 0).

        Returns
        -------
        float
            ``amount``.
        """
        if not isinstance(name, str) or not name:
            raise ValueError("name must be a non-empty string")
        amount = check_prob("amount", amount)
        if amount > self.remaining * (1 + 1e-12):
            raise BudgetExceededError(
                f"spending {amount:.4g} on {name!r} would exceed the family-wise budget alpha={self.alpha:g} "
                f"(already spent {self.spent:.4g}; remaining {self.remaining:.4g})"
            )
        self.spends.append((name, amount))
        return amount

    def spend_fraction(self, name: str, fraction: float) -> float:
        """Spend ``fraction`` of the *total* budget.

        Parameters
        ----------
        name : str
            What the α is spent on.
        fraction : float
            Share of the total α, in [0, 1].

        Returns
        -------
        float
            The α spent.
        """
        fraction = check_prob("fraction", fraction, open_high=False)
        return self.spend(name, self.alpha * fraction)

    def spend_rest(self, name: str) -> float:
        """Spend everything that remains.

        Parameters
        ----------
        name : str
            What the α is spent on.

        Returns
        -------
        float
            The α spent.
        """
        if self.remaining <= 0:
            raise BudgetExceededError(f"nothing remains of alpha={self.alpha:g} to spend on {name!r}")
        return self.spend(name, self.remaining)

    def ledger(self) -> str:
        width = max([len(n) for n, _ in self.spends] + [9])
        lines = [f"{'spend':<{width}}  alpha"]
        lines += [f"{n:<{width}}  {a:.6g}" for n, a in self.spends]
        lines.append(f"{'total':<{width}}  {self.spent:.6g} of {self.alpha:g}")
        return "\n".join(lines)

    def to_dict(self) -> dict:
        return {"alpha": self.alpha, "spent": self.spent, "spends": [[n, a] for n, a in self.spends]}

    def __str__(self) -> str:  # pragma: no cover
        return self.ledger()


# ---------------------------------------------------------------------------------------------------------
# Design functions
# ---------------------------------------------------------------------------------------------------------
def max_certifiable_epsilon(n: float | np.ndarray, alpha: float = 0.05, delta: float = 0.0) -> float:
    """Largest ε lower bound any event can certify with ``n`` samples per side (counts n vs 0) at level α.

    No audit with these sample sizes can report more; e.g. n = 10⁴ at α = 0.05 caps ε_lb at about 7.9.

    Parameters
    ----------
    n : int
        Samples per side, ``n >= 1``.
    alpha : float, default 0.05
        Error probability in (0, 1).
    delta : float, default 0.0
        The δ of the claim, in [0, 1).

    Returns
    -------
    float
        The largest certifiable ε.
    """
    n = check_int("n", n, minimum=1)
    return float(epsilon_lower_bound(n, n, 0, n, alpha, delta))


def _smallest_n(ok, n_max: int, what: str) -> int:
    n = 1
    while not ok(n):
        n *= 2
        if n > n_max:
            raise ValueError(f"more than n_max={n_max} samples would be needed for this {what}")
    lo, hi = n // 2, n  # ok(hi) true, ok(lo) false (or lo = 0)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if ok(mid):
            hi = mid
        else:
            lo = mid
    return hi


def samples_needed_for_epsilon(
    epsilon_target: Any, p1: Any, p2: Any, alpha: float = 0.05, power: float = 0.5, *, n_max: Any = 10**10
) -> int:
    """Samples per side needed to certify ``ε_lb ≥ epsilon_target`` with probability ≥ ``power``.

    The event has probabilities ``p1`` on D and ``p2`` on D' (so ``ln(p1/p2)`` must exceed the target).
    Exact in the counts: each side's count is taken at its ``sqrt(power)``-adverse binomial quantile (the two
    sides are independent, so both are at least that good with probability ≥ power).

    Parameters
    ----------
    epsilon_target : float
        The ε (> 0) to certify.
    p1 : float
        Probability of the event on D, in (0, 1].
    p2 : float
        Probability of the event on D', in [0, 1).
    alpha : float, default 0.05
        Error probability of the certification.
    power : float, default 0.5
        Required probability of certifying the target.
    n_max : int, default 10**10
        Largest sample size searched; ``ValueError`` beyond it.

    Returns
    -------
    int
        The smallest number of samples per side with the required power.
    """
    epsilon_target = check_positive("epsilon_target", epsilon_target)
    p1 = check_prob("p1", p1, open_high=False)
    p2 = check_prob("p2", p2, open_low=False)
    alpha = check_prob("alpha", alpha)
    power = check_prob("power", power)
    if p2 > 0 and math.log(p1 / p2) <= epsilon_target:
        raise ValueError(
            f"epsilon_target={epsilon_target} is not attainable: the event's true ln(p1/p2)="
            f"{math.log(p1 / p2):.4g} (a bound never exceeds it)"
        )
    side = math.sqrt(power)

    def ok(n: int) -> bool:
        k1 = int(_st.binom.ppf(1 - side, n, p1))
        k2 = int(_st.binom.ppf(side, n, p2)) if p2 > 0 else 0
        return epsilon_lower_bound(k1, n, k2, n, alpha) >= epsilon_target

    return _smallest_n(ok, n_max, "epsilon_target")
