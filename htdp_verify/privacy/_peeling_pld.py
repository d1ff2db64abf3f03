"""Discretised privacy loss distributions of peeling: the grid PLDs that bracket the tight δ(ε) and ε(δ).

Every loss is rounded up (upper PLD) or down (lower PLD) to a grid; the selection loss of each outcome class is
combined with the Laplace value losses of its chosen coordinates (``_pld``), and ``_delta_of`` / ``_epsilon_of``
read the hockey-stick divergence and its inverse off a grid PLD. See :mod:`htdp_verify.privacy.exact` for the
method and the width of the bracket.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.signal import fftconvolve

from ._peeling_selection import _Outcomes


# ---------------------------------------------------------------------------------------- loss distributions
def _laplace_loss_pmf(a: float, grid: float, upper: bool):
    """PLD of one Laplace value coordinate with ``a = |Δ|/b`` on the grid: (first index, masses)."""
    if a == 0:
        return 0, np.ones(1)
    lo_i, hi_i = math.floor(-a / grid), math.ceil(a / grid)
    pmf = np.zeros(hi_i - lo_i + 1)
    j = np.arange(lo_i, hi_i)  # cells [j g, (j+1) g] ∩ (−a, a)
    left = np.maximum(j * grid, -a)
    right = np.minimum((j + 1) * grid, a)
    mass = 0.5 * (np.exp(-(a - right) / 2) - np.exp(-(a - left) / 2))
    np.add.at(pmf, (j + 1 - lo_i) if upper else (j - lo_i), np.maximum(mass, 0.0))
    rnd = math.ceil if upper else math.floor
    pmf[rnd(a / grid) - lo_i] += 0.5
    pmf[rnd(-a / grid) - lo_i] += 0.5 * math.exp(-a)
    return lo_i, pmf


def _values_pmf(k, a_groups, grid, upper, cache):
    key = (tuple(k), upper)
    if key not in cache:
        lo, pmf = 0, np.ones(1)
        for g, kg in enumerate(k):
            for _ in range(int(kg)):
                lo_g, pmf_g = _laplace_loss_pmf(float(a_groups[g]), grid, upper)
                lo, pmf = (
                    lo + lo_g,
                    (
                        np.convolve(pmf, pmf_g)
                        if min(pmf.size, pmf_g.size) < 64
                        else np.maximum(fftconvolve(pmf, pmf_g), 0.0)
                    ),
                )
        cache[key] = (lo, pmf)
    return cache[key]


def _pld(out: _Outcomes, a_groups, grid, upper, values):
    """Grid PLD (first index, masses) of the release: selection loss ⊕ value losses, mixed over outcomes."""
    lm, lp, lq = np.asarray(out.log_mult), np.asarray(out.log_p), np.asarray(out.log_q)
    mass = np.exp(lm + lp)
    sel = lp - lq
    idx = (np.ceil(sel / grid) if upper else np.floor(sel / grid)).astype(np.int64)
    ks = [tuple(k) if values else (0,) * len(k) for k in out.k]
    cache: dict = {}
    parts = []
    for k in set(ks):
        rows = np.fromiter((i for i, kk in enumerate(ks) if kk == k), dtype=np.int64)
        i0 = int(idx[rows].min())
        hist = np.bincount(idx[rows] - i0, weights=mass[rows])
        lo_v, pmf_v = _values_pmf(k, a_groups, grid, upper, cache)
        conv = np.convolve(hist, pmf_v) if min(hist.size, pmf_v.size) < 64 else np.maximum(fftconvolve(hist, pmf_v), 0)
        parts.append((i0 + lo_v, conv))
    lo = min(p[0] for p in parts)
    hi = max(p[0] + p[1].size for p in parts)
    pmf = np.zeros(hi - lo)
    for start, conv in parts:
        pmf[start - lo : start - lo + conv.size] += conv
    return lo, pmf


def _delta_of(lo, pmf, grid, eps):
    loss = (lo + np.arange(pmf.size)) * grid
    sel = loss > eps
    return float(np.sum(pmf[sel] * -np.expm1(eps - loss[sel])))


def _epsilon_of(lo, pmf, grid, delta):
    support = np.nonzero(pmf > 0)[0]
    top = (lo + support[-1]) * grid
    if _delta_of(lo, pmf, grid, 0.0) <= delta:
        return 0.0
    if delta == 0:
        return float(top)
    a, b = 0.0, float(top)
    for _ in range(100):
        mid = 0.5 * (a + b)
        if _delta_of(lo, pmf, grid, mid) > delta:
            a = mid
        else:
            b = mid
        if b - a < 1e-12:
            break
    return b
