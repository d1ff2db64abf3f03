"""The oracle ceiling of the benchmark: the best ε lower bound any event-based auditor can expect.

For a mechanism whose output law is known exactly on every catalogue pair, the *oracle* knows both laws, picks
the pair and the event (a likelihood-ratio level set: a prefix of the cells of a fixed partition sorted by
their probability ratio, in either orientation), spends the whole per-side budget on certification and plugs
the expected counts into the same tests the auditor uses (the conditional binomial test on Poissonised counts
and the Clopper–Pearson pair; the better of the two).  The result approximates the *median* certified bound
of that oracle: a single run of a real auditor can land slightly above it, and no auditor that certifies one
event at this confidence and budget should be expected to beat it.

Used by ``htdp-verify bench`` for the "ceiling" column, which shows where DP-Sniper's published numbers
(2·10⁸ samples at 90 %) are out of reach at our budget (≤ 2·10⁷ per side at 95 %), e.g. ReportNoisyMax3 and
SVT4.  Mechanisms without an exact law here return ``None``.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from htdp_verify.stats import epsilon_lower_bound, epsilon_lower_bound_poisson

from .catalogue import get_mechanism
from .samplers import _lap_cdf, geo_pmf, rappor_bits, svt_outcome_probability

__all__ = [
    "partition_probabilities",
    "oracle_ceiling",
    "oracle_by_pair",
    "oracle_draws",
    "oracle_spread",
    "CEILING_MECHANISMS",
]


def _cells_from_cdf(cdf_values: np.ndarray) -> np.ndarray:
    """Cell probabilities from a CDF on a grid (with the two tails as cells)."""
    c = np.concatenate([[0.0], np.clip(cdf_values, 0.0, 1.0), [1.0]])
    return np.maximum(np.diff(c), 0.0)


def _laplace_grid(scale: float, loc_span: tuple[float, float]) -> np.ndarray:
    lo, hi = loc_span
    return np.linspace(lo - 30 * scale, hi + 30 * scale, 24001)


def _laplace_cells(loc: float, scale: float, grid: np.ndarray) -> np.ndarray:
    return _cells_from_cdf(_lap_cdf(grid - loc, scale))


def _rnm_argmax_probs(q: np.ndarray, scale: float, noise: str) -> np.ndarray:
    """P(argmax = i) for q + Lap(scale) or q + Exp(scale) noise (1-D integral on a fine grid)."""
    y = np.linspace(q.min() - 40 * scale, q.max() + 40 * scale, 100001)
    if noise == "laplace":
        F = [_lap_cdf(y - qi, scale) for qi in q]
        f = [np.exp(-np.abs(y - qi) / scale) / (2 * scale) for qi in q]
    else:
        F = [np.where(y > qi, -np.expm1(-np.maximum(y - qi, 0) / scale), 0.0) for qi in q]
        f = [np.where(y > qi, np.exp(-np.maximum(y - qi, 0) / scale) / scale, 0.0) for qi in q]
    out = []
    for i in range(q.size):
        dens = f[i].copy()
        for j in range(q.size):
            if j != i:
                dens = dens * F[j]
        out.append(np.trapezoid(dens, y))
    p = np.asarray(out)
    return p / p.sum()


def _svt_c1_outcomes(q: np.ndarray, *, b_rho: float, b_nu: float, T: float) -> np.ndarray:
    """The m + 1 outcomes of a cutoff-1 SVT (first ⊤ at position k, or none)."""

    m = q.size
    p = [svt_outcome_probability(q, [0] * k + [1], b_rho=b_rho, b_nu=b_nu, T=T, grid=40001) for k in range(m)]
    p.append(svt_outcome_probability(q, [0] * m, b_rho=b_rho, b_nu=b_nu, T=T, grid=40001))
    p = np.asarray(p)
    return p / p.sum()


def _shift_loss_cells(scale: float, steps: int = 2000) -> tuple[np.ndarray, np.ndarray]:
    """Cells of the privacy loss ``(|z − 1| − |z|) / scale`` of one Laplace coordinate shifted by 1, under loc 0
    and loc 1: two atoms (``z ≤ 0``, ``z ≥ 1``) and ``2·steps − 1`` cells of width ``1/(scale·steps)`` of the loss in
    between (``z ∈ (0, 1)``, where the loss is linear in z)."""
    k = np.arange(1, 2 * steps)
    h = (1.0 / scale) / steps
    loss = -1.0 / scale + k * h
    z_lo = np.clip((1 - scale * (loss + h / 2)) / 2, 0.0, 1.0)
    z_hi = np.clip((1 - scale * (loss - h / 2)) / 2, 0.0, 1.0)
    out = []
    for loc in (0.0, 1.0):
        p = np.empty(2 * steps + 1)
        p[0] = 1.0 - _lap_cdf(np.array([1.0 - loc]), scale)[0]
        p[-1] = _lap_cdf(np.array([-loc]), scale)[0]
        p[1:-1] = _lap_cdf(z_hi - loc, scale) - _lap_cdf(z_lo - loc, scale)
        out.append(p)
    return out[0], out[1]


def _prefix_sum_cells(n_shifted: int, scale: float) -> tuple[np.ndarray, np.ndarray]:
    """Cells of the privacy loss of running sums of ``q + Lap(scale)`` when ``n_shifted`` queries move by 1.

    The running sums are an invertible linear map of ``q + noise``, so their law on a pair is that of the
    queries; the loss is the sum of the independent per-query losses (the sign of each shift does not change the
    law of its loss), and its cells are the ``n_shifted``-fold convolution of one query's cells."""
    from scipy.signal import fftconvolve

    c1, c2 = _shift_loss_cells(scale)
    p1, p2 = np.array([1.0]), np.array([1.0])
    for _ in range(n_shifted):
        p1, p2 = np.clip(fftconvolve(p1, c1), 0.0, None), np.clip(fftconvolve(p2, c2), 0.0, None)
    return p1 / p1.sum(), p2 / p2.sum()


def _rappor_cells(v: int, v_other: int, p_set: float) -> tuple[np.ndarray, np.ndarray]:
    """Sufficient statistic of a RAPPOR report for the pair (v, v'): the number of the d differing Bloom bits
    that agree with v; Binomial(d, p_set) under v and Binomial(d, 1 − p_set) under v'."""
    from scipy.stats import binom

    d = len(rappor_bits(v) ^ rappor_bits(v_other))
    k = np.arange(d + 1)
    return binom.pmf(k, d, p_set), binom.pmf(k, d, 1 - p_set)


def partition_probabilities(name: str, d1, d2) -> tuple[np.ndarray, np.ndarray] | None:
    """Exact probabilities of the cells of one partition of the output space under inputs ``d1`` and ``d2``
    (the partition is fine enough that its likelihood-ratio level sets are the optimal events), or ``None``
    when the mechanism has no exact law here.  Cached per (mechanism, pair)."""
    return _partition_cached(name, tuple(np.asarray(d1, float).tolist()), tuple(np.asarray(d2, float).tolist()))


@functools.lru_cache(maxsize=256)
def _partition_cached(name: str, d1, d2):

    d1 = np.asarray(d1, float)
    d2 = np.asarray(d2, float)
    if name in ("Laplace", "LaplaceSnapping"):
        g = _laplace_grid(10.0, (min(d1[0], d2[0]), max(d1[0], d2[0])))
        return _laplace_cells(d1[0], 10.0, g), _laplace_cells(d2[0], 10.0, g)
    if name in ("NoisyHist1", "NoisyHist2", "PrefixSum_N1") or name.startswith("StatDP.histogram_eps@"):
        scale = {"NoisyHist1": 10.0, "NoisyHist2": 0.1, "PrefixSum_N1": 10.0}.get(name)
        if scale is None:
            scale = float(name.split("@", 1)[1])
        diff = np.flatnonzero(d1 != d2)
        if name.startswith("StatDP.histogram_eps@"):
            diff = np.array([0]) if d1[0] != d2[0] else np.array([], int)
        if diff.size != 1:
            return None
        j = int(diff[0])
        g = _laplace_grid(scale, (min(d1[j], d2[j]), max(d1[j], d2[j])))
        return _laplace_cells(d1[j], scale, g), _laplace_cells(d2[j], scale, g)
    if name == "TruncatedGeometric":
        p1 = np.array([float(x) for x in geo_pmf(int(d1[0]))])
        p2 = np.array([float(x) for x in geo_pmf(int(d2[0]))])
        return p1, p2
    if name in ("ReportNoisyMax1", "ReportNoisyMax2"):
        noise = "laplace" if name.endswith("1") else "exponential"
        return _rnm_argmax_probs(d1, 20.0, noise), _rnm_argmax_probs(d2, 20.0, noise)
    if name == "ReportNoisyMax3":
        lo, hi = min(d1.min(), d2.min()), max(d1.max(), d2.max())
        g = np.linspace(lo - 600.0, hi + 600.0, 60001)

        def cdf_max(q):
            out = np.ones_like(g)
            for qi in q:
                out = out * _lap_cdf(g - qi, 20.0)
            return out

        return _cells_from_cdf(cdf_max(d1)), _cells_from_cdf(cdf_max(d2))
    if name in ("SVT1", "SVT2", "SVT4"):
        kw = {
            "SVT1": dict(b_rho=20.0, b_nu=40.0, T=0.5),
            "SVT2": dict(b_rho=20.0, b_nu=40.0, T=1.0),
            "SVT4": dict(b_rho=40.0, b_nu=40.0 / 3.0, T=1.0),
        }[name]
        return _svt_c1_outcomes(d1, **kw), _svt_c1_outcomes(d2, **kw)
    if name == "PrefixSum":
        return _prefix_sum_cells(int(np.count_nonzero(d1 != d2)), 10.0)
    if name in ("RAPPOR", "OneTimeRAPPOR"):
        p_set = ((1 - 0.75 / 2) * 0.55 + 0.75 / 2 * 0.45) if name == "RAPPOR" else 1 - 0.95 / 2
        return _rappor_cells(int(d1[0]), int(d2[0]), p_set)
    return None


CEILING_MECHANISMS = (
    "Laplace",
    "LaplaceSnapping",
    "TruncatedGeometric",
    "NoisyHist1",
    "NoisyHist2",
    "ReportNoisyMax1",
    "ReportNoisyMax2",
    "ReportNoisyMax3",
    "SVT1",
    "SVT2",
    "SVT4",
    "RAPPOR",
    "OneTimeRAPPOR",
    "PrefixSum",
    "PrefixSum_N1",
    "StatDP.histogram_eps@0.2",
    "StatDP.histogram_eps@1.5",
)


def _oracle_bound(k1, k2, n: int, alpha: float, method: str = "best"):
    """Our certification tests on counts ``k1``/``k2`` of ``n`` per side: ``"poisson"``, ``"cp"`` or the better.

    Only the asked test is computed.  Poisson counts may exceed ``n`` (a simulated realised size above its mean);
    the Clopper–Pearson pair, which stands ``n`` in for the realised size, then sees ``n`` (a crash at 10³ releases
    per side before)."""
    if method == "poisson":
        return np.asarray(epsilon_lower_bound_poisson(k1, k2, alpha), dtype=float)
    k1c, k2c = np.minimum(k1, n), np.minimum(k2, n)
    cp = np.asarray(epsilon_lower_bound(k1c, n, k2c, n, alpha), dtype=float)
    if method == "cp":
        return cp
    return np.maximum(np.asarray(epsilon_lower_bound_poisson(k1, k2, alpha), dtype=float), cp)


def _best_prefix(p_num: np.ndarray, p_den: np.ndarray, n: int, alpha: float) -> tuple[float, float, float, float]:
    """Best likelihood-ratio prefix event for the orientation num/den: (bound, P_num(S), ln ratio, P_den(S))."""
    with np.errstate(divide="ignore", invalid="ignore"):
        lr = np.where(p_num > 0, np.log(p_num) - np.log(np.where(p_den > 0, p_den, 1e-300)), -np.inf)
    keep = p_num > 0
    order = np.argsort(-lr[keep], kind="stable")
    a = np.cumsum(p_num[keep][order])
    b = np.cumsum(p_den[keep][order])
    # prefixes up to (nearly) the whole space; the whole space itself certifies nothing
    stop = int(np.searchsorted(a, 0.999)) + 1
    a, b = a[:stop], b[:stop]
    if a.size > 3000:  # fine grids: every prefix is not needed, a dense uniform + geometric subset is
        idx = np.unique(
            np.concatenate(
                [np.linspace(0, a.size - 1, 2000).astype(np.int64), np.geomspace(1, a.size, 1000).astype(np.int64) - 1]
            )
        )
        a, b = a[idx], b[idx]
    k1 = np.minimum(np.floor(n * a), n)  # quadrature can overshoot 1 by ~1e-7
    k2 = np.minimum(np.floor(n * b), n)
    lb = _oracle_bound(k1, k2, n, alpha)
    j = int(np.argmax(lb))
    ratio = math.log(a[j] / b[j]) if b[j] > 0 else math.inf
    return float(lb[j]), float(a[j]), ratio, float(b[j])


def oracle_ceiling(name: str, n_per_side: int, alpha: float = 0.05) -> dict | None:
    """Expected (median) bound of the oracle auditor on mechanism ``name`` with ``n_per_side`` certification
    releases per side at confidence ``1 − alpha``, over the catalogue pairs; ``None`` without an exact law.

    Returns ``{"epsilon", "pair", "event_probability", "event_probability_den", "log_ratio", "n_per_side",
    "alpha"}`` (the event's probabilities on the numerator and denominator sides).
    """

    m = get_mechanism(name)
    if name not in CEILING_MECHANISMS:
        return None
    if not (0 < alpha < 1):
        raise ValueError(f"alpha must be in (0, 1), got {alpha}")
    n = int(n_per_side)
    if n < 1:
        raise ValueError(f"n_per_side must be >= 1, got {n_per_side}")
    best = None
    for p in m.pairs:
        probs = partition_probabilities(name, p.d, p.d_prime)
        if probs is None:
            continue
        P1, P2 = probs
        for num, den in ((P1, P2), (P2, P1)):
            lb, prob, ratio, prob_den = _best_prefix(num, den, n, alpha)
            if best is None or lb > best["epsilon"]:
                best = {
                    "epsilon": lb,
                    "pair": p.label,
                    "event_probability": prob,
                    "event_probability_den": prob_den,
                    "log_ratio": ratio,
                    "n_per_side": n,
                    "alpha": alpha,
                }
    return best


def oracle_by_pair(name: str, n_per_side: int, alpha: float = 0.05) -> dict[str, dict] | None:
    """The oracle's best event on *every* catalogue pair of ``name`` at ``n_per_side`` certification releases per
    side: ``{pair label: {"epsilon", "event_probability", "event_probability_den"}}`` (the better orientation), or
    ``None`` when a pair has no exact law.  :func:`oracle_ceiling` is the best of these; the others say what an
    auditor that keeps a different pair can expect at best."""
    if name not in CEILING_MECHANISMS:
        return None
    out = {}
    for p in get_mechanism(name).pairs:
        probs = partition_probabilities(name, p.d, p.d_prime)
        if probs is None:
            return None
        best = max(_best_prefix(num, den, int(n_per_side), alpha) for num, den in (probs, probs[::-1]))
        out[p.label] = {"epsilon": best[0], "event_probability": best[1], "event_probability_den": best[3]}
    return out


def oracle_draws(p_num: float, p_den: float, n_per_side: int, alpha: float, size: int, rng) -> np.ndarray:
    """``size`` bounds of the oracle certifying one event (probabilities ``p_num``/``p_den``) on
    ``N ~ Poisson(n_per_side)`` fresh releases per side: its counts are ``k ~ Poisson(n·P(S))`` on each side
    (exact for Poissonised sample sizes), certified with the test it would pick from the expected counts (the
    conditional test, or the Clopper–Pearson pair with ``n`` standing in for the realised ``N``)."""
    n = int(n_per_side)
    e1, e2 = math.floor(n * p_num), math.floor(n * p_den)
    poisson = _oracle_bound(e1, e2, n, alpha, "poisson") >= _oracle_bound(e1, e2, n, alpha, "cp")
    k1 = rng.poisson(n * p_num, int(size))
    k2 = rng.poisson(n * p_den, int(size))
    return _oracle_bound(k1, k2, n, alpha, "poisson" if poisson else "cp")


def oracle_spread(
    name: str,
    n_per_side: int,
    alpha: float = 0.05,
    *,
    target: float | None = None,
    n_draws: int = 4000,
    rng: np.random.Generator,
) -> dict | None:
    """How far one run of the oracle auditor scatters around its ceiling, and how often it reaches ``target``.

    The oracle of :func:`oracle_ceiling` certifies its event on ``N ~ Poisson(n_per_side)`` fresh releases per
    side, as our auditor does; its bound is therefore random.  Its counts are drawn ``n_draws`` times
    (``k ~ Poisson(n·P(S))`` on each side, exact for Poissonised sample sizes) and certified with the test it
    would pick from the expected counts (the conditional test, or the Clopper–Pearson pair with ``n`` standing in
    for the realised ``N``).  ``p_reaches_target`` estimates P(oracle bound ≥ ``target``) with Monte Carlo
    standard error ≤ 0.5/√n_draws (0.008 at the default): e.g. whether DP-Sniper's published number (90 %,
    2·10⁸ samples) is within reach of *any* single-event auditor at this budget and confidence.

    Returns ``{"q05", "median", "q95", "p_reaches_target", "target", "n_draws"}`` or ``None`` without an exact law.
    """
    if rng is None or not isinstance(rng, np.random.Generator):
        raise ValueError(f"rng must be a numpy.random.Generator, got {rng!r}")
    if int(n_draws) < 100:
        raise ValueError(f"n_draws must be >= 100, got {n_draws}")
    c = oracle_ceiling(name, n_per_side, alpha)
    if c is None:
        return None
    lb = oracle_draws(c["event_probability"], c["event_probability_den"], n_per_side, alpha, n_draws, rng)
    q05, med, q95 = (float(v) for v in np.quantile(lb, [0.05, 0.5, 0.95]))
    return {
        "q05": q05,
        "median": med,
        "q95": q95,
        "n_draws": int(n_draws),
        "target": target,
        "p_reaches_target": None if target is None else float(np.mean(lb >= target)),
    }


if __name__ == "__main__":  # pragma: no cover - manual check
    for nm in CEILING_MECHANISMS:
        print(nm, oracle_ceiling(nm, 20_000_000))
