"""Private test-error bounds along a coupling (the differentially private Le Cam and Fano arguments).

Owns :func:`private_two_point_error` (private Le Cam), :func:`private_multipoint_error` (private Fano with one fixed
reference dataset) and :func:`private_fano_reference_error` (private Fano with a reference law), each a lower bound
on a test's error probability when the coupled datasets differ in H ~ Bin(n, q) records. The derivations are in
the docstring of :mod:`htdp_verify.lowerbounds` (after Acharya, Sun & Zhang, ALT 2021).
"""

from __future__ import annotations

import math

import numpy as np
from scipy import stats as sst

from .._validate import check_int, check_positive, check_prob

__all__ = ["private_two_point_error", "private_multipoint_error", "private_fano_reference_error"]


# ------------------------------------------------------------------------------------------------------------
# coupling-based private test-error bounds (exact for binomial Hamming distances)
# ------------------------------------------------------------------------------------------------------------
def private_two_point_error(n: int, q: float, epsilon: float, delta: float = 0.0) -> float:
    """Lower bound on P_0(ψ=1) + P_1(ψ=0) for (ε,δ)-DP tests when the coupling distance is H ~ Bin(n, q).

    ``E[e^{-εH}] - δ e^{-ε} E[H] = (1 - q + q e^{-ε})^n - δ e^{-ε} n q``, clipped at 0.

    Parameters
    ----------
    n : int
        Sample size.
    q : float
        Per-record probability that coupled records differ.
    epsilon : float
        Privacy level ε.
    delta : float, default 0.0
        Privacy level δ.

    Returns
    -------
    float
        The lower bound.
    """
    n = check_int("n", n, minimum=1)
    q = check_prob("q", q, open_low=False, open_high=False)
    epsilon = check_positive("epsilon", epsilon)
    delta = check_prob("delta", delta, open_low=False)
    mgf = math.exp(n * math.log1p(-q * (-math.expm1(-epsilon)))) if q > 0 else 1.0
    return max(mgf - delta * math.exp(-epsilon) * n * q, 0.0)


def private_multipoint_error(n: int, q: float, epsilon: float, M: int, delta: float = 0.0) -> float:
    """Lower bound on avg_v P_v(ψ ≠ v) over M members, each coupled with a fixed dataset at H ~ Bin(n, q).

    ``1 - (E e^{εH} + M δ E[H e^{ε(H-1)}]) / M`` with ``E e^{εH} = (1-q+q e^ε)^n`` and
    ``E[H e^{ε(H-1)}] = n q (1-q+q e^ε)^{n-1}``; clipped at 0.

    Parameters
    ----------
    n : int
        Sample size.
    q : float
        Per-record probability that coupled records differ.
    epsilon : float
        Privacy level ε.
    M : int
        Number of members.
    delta : float, default 0.0
        Privacy level δ.

    Returns
    -------
    float
        The lower bound.
    """
    n = check_int("n", n, minimum=1)
    q = check_prob("q", q, open_low=False, open_high=False)
    epsilon = check_positive("epsilon", epsilon)
    M = check_int("M", M, minimum=2)
    delta = check_prob("delta", delta, open_low=False)
    log_base = math.log1p(q * math.expm1(epsilon))
    log_mgf = n * log_base
    if log_mgf > 700:
        return 0.0
    term = math.exp(log_mgf) / M + (delta * n * q * math.exp((n - 1) * log_base) if delta > 0 else 0.0)
    return max(1.0 - term, 0.0)


def private_fano_reference_error(n: int, q: float, epsilon: float, M: int, delta: float = 0.0) -> tuple[float, int]:
    """Multi-point bound when each member is coupled with a reference *law* P_0 (not a fixed dataset).

    If H_v ~ Bin(n, q_v) with q_v ≤ q, then for every integer t ≥ 0 and ψ the nearest member,
    ``avg_v P_v(ψ ≠ v) ≥ 1 - e^{εt}/M - t e^{ε(t-1)} δ - P[Bin(n, q) > t]``.
    *Proof.* On {H_v ≤ t} group privacy gives q_v(X) ≤ e^{εt} q_v(Y) + t e^{ε(t-1)} δ; so
    P_v(ψ=v) ≤ e^{εt} P_0(ψ=v) + t e^{ε(t-1)}δ + P(H_v > t); sum over v with Σ_v P_0(ψ=v) ≤ 1.  ∎
    Returns ``(bound, best t)``; the bound is clipped at 0.

    Parameters
    ----------
    n : int
        Sample size.
    q : float
        Upper bound on the members' per-record coupling probabilities.
    epsilon : float
        Privacy level ε.
    M : int
        Number of members.
    delta : float, default 0.0
        Privacy level δ.

    Returns
    -------
    tuple
        ``(bound, best t)``.
    """
    n = check_int("n", n, minimum=1)
    q = check_prob("q", q, open_low=False, open_high=False)
    epsilon = check_positive("epsilon", epsilon)
    M = check_int("M", M, minimum=2)
    delta = check_prob("delta", delta, open_low=False)
    t_max = int(min(n, math.log(M) / epsilon + 1))
    ts = np.arange(0, t_max + 1)
    val = 1 - np.exp(epsilon * ts) / M - ts * np.exp(epsilon * (ts - 1)) * delta - sst.binom.sf(ts, n, q)
    i = int(np.argmax(val))
    return max(float(val[i]), 0.0), int(ts[i])
