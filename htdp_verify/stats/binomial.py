"""Clopper–Pearson bounds for a binomial proportion: one-sided lower and upper bounds and the two-sided interval,
vectorised over counts (exact beta quantiles, never normal approximations).
"""

from __future__ import annotations

import numpy as np
from scipy import special

from .._validate import check_counts, check_prob

__all__ = [
    "cp_lower",
    "cp_upper",
    "cp_interval",
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
