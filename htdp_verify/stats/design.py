"""The family-wise error ``Budget`` (named spends, a ledger, refusal to overspend) and the design functions
(TFP-style): the largest ε certifiable with n samples per side, the samples per side needed to certify a target ε
or to detect an exceedance rate, and the DKW band width.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy import stats as _st

from .._validate import check_int, check_positive, check_prob
from .epsilon import epsilon_lower_bound
from .exceedance import _critical_count

__all__ = [
    "Budget",
    "BudgetExceededError",
    "max_certifiable_epsilon",
    "samples_needed_for_epsilon",
    "dkw_halfwidth",
    "samples_needed_for_exceedance",
]


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
