"""The one-run ε lower bound: the p-value of a canary guessing game and its inversion in ε.

:func:`one_run_p_value` is the bound p_ε(v) = f(v) + 2 m δ · max_i (f(v − i) − f(v)) / i with
f(t) = P[Binomial(r, e^ε / (1 + e^ε)) ≥ t] (Steinke, Nasr & Jagielski 2023, Thm 1 and its approximate-DP form);
:func:`epsilon_lower_bound_one_run` inverts it by Brent's method; :func:`guess_plans` is the fixed grid of guess
counts tried by :func:`~htdp_verify.privacy.canary.audit_one_run`.  The game, the validity proof (monotonicity in ε
and v) and the audit are described in :mod:`htdp_verify.privacy.canary`.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy import optimize, special

from .._validate import check_int, check_positive, check_prob

__all__ = ["one_run_p_value", "epsilon_lower_bound_one_run", "guess_plans"]


# ------------------------------------------------------------------------------------------------------
# the bound
# ------------------------------------------------------------------------------------------------------


def _check_rv(r, v, m):
    r = check_int("r", r, minimum=0)
    v = check_int("v", v, minimum=0)
    if v > r:
        raise ValueError(f"v must lie in [0, r] = [0, {r}], got {v}")
    m = r if m is None else check_int("m", m, minimum=1)
    if m < r:
        raise ValueError(f"m (number of canaries) must be >= r = {r}, got {m}")
    return r, v, m


def _binom_pmf(t: np.ndarray, r: int, q: float) -> np.ndarray:
    """Binomial(r, q) pmf at integer ``t`` (log-gamma form: scipy.stats' per-call overhead dominates otherwise)."""
    logc = special.gammaln(r + 1) - special.gammaln(t + 1) - special.gammaln(r - t + 1)
    return np.exp(logc + special.xlogy(t, q) + special.xlog1py(r - t, -q))


def _p_value(r: int, v: int, epsilon: float, c: float) -> float:
    if v == 0:
        return 1.0
    q = float(special.expit(epsilon))
    tail = float(special.bdtrc(v - 1, r, q))  # P[Bin(r, q) >= v]
    if c == 0.0:
        return tail
    pmf = _binom_pmf(np.arange(v - 1, -1, -1, dtype=float), r, q)  # pmf(v-1), pmf(v-2), ..., pmf(0)
    windows = np.cumsum(pmf) / np.arange(1, v + 1)  # (f(v-i) - f(v)) / i for i = 1..v
    return min(1.0, tail + c * float(np.max(windows)))


def one_run_p_value(r: int, v: int, epsilon: float, *, delta: float = 0.0, m: int | None = None) -> float:
    """Upper bound on P[V ≥ v] for v correct of r guesses under (ε, δ)-DP with m canaries (module docstring).

    The δ-term is 2mδ·max_i (f(v−i) − f(v))/i (Steinke et al. 2023, approximate-DP theorem).

    Parameters
    ----------
    r : int
        Number of guesses (abstentions excluded).
    v : int
        Number of correct guesses, 0 ≤ v ≤ r.
    epsilon : float
        The ε under test (≥ 0).
    delta : float, default 0.0
        Its δ, in [0, 1).
    m : int, optional
        Number of canaries (default ``r``).

    Returns
    -------
    float
        The p-value bound.
    """
    r, v, m = _check_rv(r, v, m)
    epsilon = check_positive("epsilon", epsilon, allow_zero=True)
    delta = check_prob("delta", delta, open_low=False)
    return _p_value(r, v, epsilon, 2.0 * m * delta)


def epsilon_lower_bound_one_run(
    r: int, v: int, *, delta: float = 0.0, m: int | None = None, beta: float = 0.05, eps_max: float = 60.0
) -> float:
    """ε lower bound at confidence 1 − β from v correct of r guesses with m canaries (Steinke et al. 2023).

    Returns sup{ε ≥ 0 : p_ε(v) ≤ β} (``one_run_p_value``), computed with Brent's method to 1e-10 and returned
    from the side where the p-value is ≤ β, so it never overstates; 0 when even ε = 0 is not rejected, when r = 0, or
    when 2mδ ≥ 1 (the δ-term then makes the theorem useless).  Valid: P[ε_lb > ε_true] ≤ β (module docstring).

    Parameters
    ----------
    r : int
        Number of guesses (abstentions excluded).
    v : int
        Number of correct guesses.
    delta : float, default 0.0
        The δ.
    m : int, optional
        Number of canaries (default ``r``).
    beta : float, default 0.05
        Error probability.
    eps_max : float, default 60.0
        Upper end of the search for ε.

    Returns
    -------
    float
        The ε lower bound.
    """
    r, v, m = _check_rv(r, v, m)
    delta = check_prob("delta", delta, open_low=False)
    beta = check_prob("beta", beta)
    c = 2.0 * m * delta
    if r == 0 or v == 0 or c >= 1.0:
        return 0.0
    if _p_value(r, v, 0.0, c) > beta:
        return 0.0
    lo, hi = 0.0, 1.0
    while _p_value(r, v, hi, c) <= beta:
        lo, hi = hi, 2.0 * hi
        if hi > eps_max:
            return lo
    # Brent's root of the (monotone) p_ε(v) − β, then stepped down onto the side where p ≤ β
    root = optimize.brentq(lambda e: _p_value(r, v, e, c) - beta, lo, hi, xtol=1e-10)
    step = 1e-10
    while root > lo and _p_value(r, v, root, c) > beta:
        root, step = max(lo, root - step), 2.0 * step
    return float(root)


def guess_plans(n_canaries: int, k_guesses: Any = None) -> list[tuple[int, int]]:
    """The (k_plus, k_minus) guess plans tried, fixed before any score is seen.

    ``k_guesses=None``: total guesses r = round(f·M) for f in (0.01, 0.03, 0.1, 0.3, 1) of the M pooled canaries
    (at least 2, duplicates dropped), each split k_plus = ⌈r/2⌉, k_minus = ⌊r/2⌋; ``int``: that one total;
    ``(k_plus, k_minus)`` tuple: that one plan; a list of ints / tuples: those plans.  α is split equally over the
    plans (Bonferroni) by :func:`audit_one_run`.

    Parameters
    ----------
    n_canaries : int
        Number of pooled canaries M.
    k_guesses : int, tuple or list, optional
        The plans (see above).

    Returns
    -------
    list of tuple
        The ``(k_plus, k_minus)`` plans.
    """
    M = check_int("n_canaries", n_canaries, minimum=1)

    def plan(k):
        if isinstance(k, tuple):
            if len(k) != 2:
                raise ValueError(f"k_guesses tuples must be (k_plus, k_minus), got {k!r}")
            kp = check_int("k_guesses[k_plus]", k[0], minimum=0)
            km = check_int("k_guesses[k_minus]", k[1], minimum=0)
        else:
            total = check_int("k_guesses", k, minimum=1)
            kp, km = total - total // 2, total // 2
        if kp + km < 1 or kp + km > M:
            raise ValueError(f"k_guesses must give between 1 and {M} guesses in total, got {k!r}")
        return (kp, km)

    if k_guesses is None:
        totals = sorted({min(M, max(2, int(round(f * M)))) for f in (0.01, 0.03, 0.1, 0.3, 1.0)})
        return [plan(t) for t in totals]
    if isinstance(k_guesses, (list, np.ndarray)):
        plans = [plan(tuple(k) if isinstance(k, (list, np.ndarray)) else k) for k in k_guesses]
        if not plans:
            raise ValueError("k_guesses must not be empty")
        return list(dict.fromkeys(plans))
    return [plan(k_guesses)]
