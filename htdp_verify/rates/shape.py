"""Shape of the (1−β)-quantile of an error as a function of ``ℓ = log(1/β)``.

:func:`quantile_shape` fits the (1−β)-quantile as ``a + b·ℓ^γ`` (profile least squares over a γ grid, bootstrap
interval for γ) and the nested regression ``a + b·sqrt(ℓ) + c·ℓ``; it compares γ = 1/2 (sub-Gaussian,
``sqrt(log(1/β))``) with γ = 1 (``log(1/β)``), the central point of Zhao et al. 2024
(specs/zhao2024_optimal_rates.md §6.3, checks H1–H2).  :func:`check_quantile_shape` tests a claimed γ with the
three-outcome rule of :func:`~htdp_verify.rates.three_outcome_verdict`.
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike
from scipy import optimize
from scipy import stats as _st

from .._validate import check_int, check_positive, check_prob, check_rng
from ..claims import Provenance
from ..results import CheckResult
from ..stats import quantile_lower_bound, quantile_upper_bound
from ._common import _boot_order_stats, _data_rng, three_outcome_verdict

__all__ = ["QuantileShape", "quantile_shape", "check_quantile_shape"]


@dataclass
class QuantileShape:
    """The (1−β)-quantiles ``q(β)`` and the fit ``q ≈ a + b·ℓ^γ`` with ``ℓ = log(1/β)``.

    ``gamma``/``gamma_interval``: profile least-squares fit (weights 1/bootstrap variance) and percentile
    bootstrap interval; ``nested``: the regression ``q = a + b·sqrt(ℓ) + c·ℓ`` (Zhao et al. 2024, check H1) with
    bootstrap intervals for ``b`` and ``c`` (``c`` > 0 significantly ⇒ a linear-in-ℓ tail);
    ``sse_sqrt``/``sse_linear``: weighted residual sums at γ = 1/2 and γ = 1; ``preferred``: ``"sqrt"`` if the
    γ-interval lies below 0.75 (the midpoint of 1/2 and 1), ``"linear"`` if it lies inside (0.75, 1.25),
    ``"heavier"`` if above 1.25 (polynomial-like tails), else ``"undecided"``.  Exact equality with 1/2 is not
    required: a Gaussian gives γ ≈ 0.52–0.55 over β ∈ [1e-4, 0.5] because of its lower-order log log terms.

    Censoring: γ is searched on a finite grid (``grid``).  When the best γ is an end of the grid, the fit would go
    further if it could, so ``censored`` is ``"below"`` or ``"above"`` and ``gamma`` holds only the grid end (a
    bound, not an estimate).  When a bootstrap percentile falls on a grid end, that end of ``gamma_interval`` is
    opened to 0 (γ > 0) or to +inf, and ``interval_censored`` says which.  ``se`` is the bootstrap standard
    deviation of γ (used for the power statement of :func:`check_quantile_shape`).

    Parameters
    ----------
    betas : numpy.ndarray
        The failure probabilities β.
    ells : numpy.ndarray
        ``ℓ = log(1/β)``.
    quantiles : numpy.ndarray
        The (1−β)-quantiles.
    quantile_intervals : numpy.ndarray
        Their confidence intervals.
    n_reps : numpy.ndarray
        Replications behind each quantile.
    gamma : float
        The fitted γ (a grid end when censored).
    gamma_interval : tuple
        Its bootstrap interval.
    a, b : float
        The fit's intercept and scale.
    nested : dict
        The nested regression ``q = a + b·sqrt(ℓ) + c·ℓ`` with intervals.
    sse_sqrt, sse_linear : float
        Weighted residual sums at γ = 1/2 and γ = 1.
    preferred : str
        ``"sqrt"``, ``"linear"``, ``"heavier"`` or ``"undecided"``.
    alpha : float
        Level of the intervals.
    n_boot : int
        Bootstrap resamples.
    grid : tuple, default (0.1, 2.5)
        The search range of γ.
    censored : str, default ""
        ``"below"`` or ``"above"`` when the best γ is a grid end.
    interval_censored : tuple, default (False, False)
        Which ends of ``gamma_interval`` were opened.
    se : float, optional
        Bootstrap standard deviation of γ.
    degenerate : str, default ""
        Why γ is not identified, when it is not: ``"flat"`` (the quantiles do not grow with log(1/β): b ≈ 0, e.g.
        constant errors) or ``"ties"`` (the bootstrap of some quantile has no spread: errors so tied that its
        interval collapses to a point).  :func:`check_quantile_shape` is then inconclusive.
    """

    betas: np.ndarray
    ells: np.ndarray
    quantiles: np.ndarray
    quantile_intervals: np.ndarray
    n_reps: np.ndarray
    gamma: float
    gamma_interval: tuple
    a: float
    b: float
    nested: dict
    sse_sqrt: float
    sse_linear: float
    preferred: str
    alpha: float
    n_boot: int
    grid: tuple = (0.1, 2.5)
    censored: str = ""
    interval_censored: tuple = (False, False)
    se: float = float("nan")
    degenerate: str = ""

    def gamma_text(self) -> str:
        """``"0.873"``, or ``"≤ 0.1 (censored at the grid edge)"`` / ``"≥ 2.5 (censored ...)"``.

        Returns
        -------
        str
            The text.
        """
        if self.censored == "below":
            return f"≤ {self.grid[0]:g} (censored at the grid edge)"
        if self.censored == "above":
            return f"≥ {self.grid[1]:g} (censored at the grid edge)"
        return f"{self.gamma:.3f}"

    def describe(self) -> str:
        lo, hi = self.gamma_interval
        qs = ", ".join(f"β={b:g}: {q:.4g}" for b, q in zip(self.betas, self.quantiles))
        cens = " (an end is censored at the grid edge)" if any(self.interval_censored) else ""
        return (
            f"(1-β)-quantiles: {qs}\n"
            f"q ≈ {self.a:.4g} + {self.b:.4g}·log(1/β)^γ, γ {self.gamma_text()}  "
            f"(γ {100 * (1 - self.alpha):g}% CI [{lo:.3f}, {hi:.3f}]{cens}) -> {self.preferred}\n"
            f"q = a + b·sqrt(ℓ) + c·ℓ: c = {self.nested['c']:.4g} CI [{self.nested['c_interval'][0]:.4g}, "
            f"{self.nested['c_interval'][1]:.4g}]"
        )

    def to_dict(self) -> dict:
        return {
            "betas": self.betas.tolist(),
            "ells": self.ells.tolist(),
            "quantiles": self.quantiles.tolist(),
            "quantile_intervals": self.quantile_intervals.tolist(),
            "n_reps": self.n_reps.tolist(),
            "gamma": self.gamma,
            "gamma_interval": list(self.gamma_interval),
            "a": self.a,
            "b": self.b,
            "nested": self.nested,
            "sse_sqrt": self.sse_sqrt,
            "sse_linear": self.sse_linear,
            "preferred": self.preferred,
            "alpha": self.alpha,
            "n_boot": self.n_boot,
            "grid": list(self.grid),
            "censored": self.censored,
            "interval_censored": list(self.interval_censored),
            "se": self.se,
            "degenerate": self.degenerate,
        }


def _shape_inputs(errors, betas) -> tuple[np.ndarray, list[np.ndarray], bool]:
    if isinstance(errors, Mapping):
        if betas is not None:
            raise ValueError("betas must be None when errors is a mapping {beta: errors}")
        items = sorted(
            ((check_prob("beta", float(b)), np.asarray(e, dtype=float).ravel()) for b, e in errors.items()),
            key=lambda t: -t[0],
        )
        betas = np.array([b for b, _ in items])
        samples = [e for _, e in items]
        shared = False
    else:
        if betas is None:
            raise ValueError("betas must be given (e.g. [0.5, 0.1, 0.01, 0.001]) when errors is one sample")
        betas = np.array(sorted({check_prob("beta", float(b)) for b in betas}, reverse=True))
        e = np.asarray(errors, dtype=float).ravel()
        samples = [e] * betas.size
        shared = True
    if betas.size < 4:
        raise ValueError(
            f"betas must hold >= 4 distinct failure probabilities to fit a + b·log(1/β)^γ, got {betas.size}"
        )
    for b, e in zip(betas, samples):
        if e.size == 0 or not np.all(np.isfinite(e)):
            raise ValueError(f"errors for beta={b:g} must be a non-empty finite sample")
        if e.size * b < 1:
            raise ValueError(
                f"errors for beta={b:g} has {e.size} values; the (1-beta)-quantile needs >= {math.ceil(1 / b)} "
                "(better 10/beta)"
            )
    return betas, samples, shared


def _order_rank(R: int, beta: float) -> int:
    """1-based rank of the (1−β)-quantile as an order statistic (numpy's 'inverted_cdf')."""
    return min(R, max(1, math.ceil((1 - beta) * R - 1e-9)))


def quantile_shape(
    errors: ArrayLike,
    betas: ArrayLike | None = None,
    *,
    alpha: float = 0.05,
    n_boot: int = 1000,
    rng: np.random.Generator | None = None,
    gammas: Sequence[float] | None = None,
) -> QuantileShape:
    """Shape of the (1−β)-quantile of the error as a function of ``ℓ = log(1/β)``.

    Sub-Gaussian errors give γ ≈ 1/2 (for ``|N(0,1)|`` over β ∈ [1e-4, 0.5] the fit gives γ ≈ 0.52); exponential tails
    (Laplace noise, a clipping bias that turns Poisson-like) give γ = 1.

    Parameters
    ----------
    errors
        one sample of replications used for every β, or a mapping ``{beta: sample}`` when the estimator's
        tuning depends on β (e.g. ``m = C·log(1/β)`` batches, Zhao et al. 2024 Thm 5 / check H2).
    betas
        failure probabilities (≥ 4 distinct), e.g. ``[0.5, 0.1, 1e-2, 1e-3, 1e-4]``; each needs ≳ 10/β
        replications for a stable quantile.
    alpha
        level of the intervals (two-sided ``1 − alpha``).
    n_boot
        bootstrap resamples (order statistics are bootstrapped exactly; cost independent of the sample size).
    rng
        generator for the bootstrap; default: seeded from a hash of the data.
    gammas
        profile grid for γ (default 0.1 … 2.5 in steps of 0.005).

    Returns
    -------
    QuantileShape
        The quantiles with their intervals and the fit of γ.
    """
    alpha = check_prob("alpha", alpha)
    n_boot = check_int("n_boot", n_boot, minimum=100)
    betas, samples, shared = _shape_inputs(errors, betas)
    gam = np.arange(0.1, 2.5 + 1e-9, 0.005) if gammas is None else np.sort(np.asarray(gammas, dtype=float))
    if gam.ndim != 1 or gam.size < 3 or np.any(gam <= 0):
        raise ValueError("gammas must be a 1-D grid of >= 3 positive values")
    rng = _data_rng(betas, *samples[: 1 if shared else None]) if rng is None else check_rng(rng)
    ells = np.log(1 / betas)
    J = betas.size
    # point estimates and bootstrap of the quantiles (jointly when one sample serves every β)
    qhat = np.empty(J)
    qboot = np.empty((n_boot, J))
    if shared:
        xs = np.sort(samples[0])
        R = xs.size
        ranks = np.array([_order_rank(R, b) for b in betas])
        uniq, inv = np.unique(ranks, return_inverse=True)
        qhat = xs[ranks - 1]
        qboot = _boot_order_stats(xs, uniq, n_boot, rng)[:, inv]
    else:
        for i, (b, e) in enumerate(zip(betas, samples)):
            xs = np.sort(e)
            r = _order_rank(xs.size, b)
            qhat[i] = xs[r - 1]
            qboot[:, i] = _boot_order_stats(xs, [r], n_boot, rng)[:, 0]
    qint = np.empty((J, 2))
    for i, (b, e) in enumerate(zip(betas, samples)):
        try:
            qint[i, 0] = quantile_lower_bound(e, 1 - b, alpha / 2)
        except ValueError:
            qint[i, 0] = -np.inf
        try:
            qint[i, 1] = quantile_upper_bound(e, 1 - b, alpha / 2)
        except ValueError:
            qint[i, 1] = np.inf
    var = np.var(qboot, axis=0, ddof=1)
    tied = bool(np.any(var <= 0))
    var = np.maximum(var, 1e-12 * max(1.0, float(np.max(np.abs(qhat))) ** 2) + 1e-300)
    w = 1.0 / np.sqrt(var)

    # residual makers of the weighted design [1, ℓ^γ] for every γ: SSE_γ(q) = || M_γ (w·q) ||²
    def makers(gs):
        out = np.empty((gs.size, J, J))
        for i, g in enumerate(gs):
            X = np.column_stack([np.ones(J), ells**g]) * w[:, None]
            Q, _ = np.linalg.qr(X)
            out[i] = np.eye(J) - Q @ Q.T
        return out

    M = makers(gam)
    wq = qhat * w
    sse = np.einsum("gij,j->gi", M, wq)
    sse = np.sum(sse**2, axis=1)
    gi = int(np.argmin(sse))
    g_lo, g_hi = gam[max(gi - 1, 0)], gam[min(gi + 1, gam.size - 1)]
    res = optimize.minimize_scalar(lambda g: _wsse(g, ells, w, qhat), bounds=(g_lo, g_hi), method="bounded")
    gamma = float(res.x) if res.success else float(gam[gi])
    if gi in (0, gam.size - 1):  # on the edge: keep the grid end itself (a bound, see QuantileShape)
        gamma = float(gam[gi])
    a, b = _wls_ab(gamma, ells, w, qhat)
    wqb = qboot * w
    sseb = np.sum(np.einsum("gij,bj->bgi", M, wqb) ** 2, axis=2)  # (B, G)
    gboot = gam[np.argmin(sseb, axis=1)]
    g_int = (float(np.percentile(gboot, 100 * alpha / 2)), float(np.percentile(gboot, 100 * (1 - alpha / 2))))
    # censoring: a best γ (or a bootstrap percentile) on an end of the grid is a bound, not an estimate
    censored = "below" if gi == 0 else ("above" if gi == gam.size - 1 else "")
    int_cens = (bool(g_int[0] <= gam[0]), bool(g_int[1] >= gam[-1]))
    g_int = (0.0 if int_cens[0] else g_int[0], math.inf if int_cens[1] else g_int[1])
    g_se = float(np.std(gboot, ddof=1))
    # nested regression q = a + b sqrt(ℓ) + c ℓ
    Xn = np.column_stack([np.ones(J), np.sqrt(ells), ells]) * w[:, None]
    coef = np.linalg.lstsq(Xn, wq, rcond=None)[0]
    coefb = np.linalg.lstsq(Xn, wqb.T, rcond=None)[0].T

    def pct(v):
        return [float(np.percentile(v, 100 * alpha / 2)), float(np.percentile(v, 100 * (1 - alpha / 2)))]

    nested = {
        "a": float(coef[0]),
        "b": float(coef[1]),
        "c": float(coef[2]),
        "b_interval": pct(coefb[:, 1]),
        "c_interval": pct(coefb[:, 2]),
    }
    if g_int[1] < 0.75:
        preferred = "sqrt"
    elif 0.75 < g_int[0] and g_int[1] < 1.25:
        preferred = "linear"
    elif g_int[0] > 1.25:
        preferred = "heavier"
    else:
        preferred = "undecided"
    scale = max(1.0, float(np.max(np.abs(qhat))))
    flat = not (b > 1e-9 * scale and qhat[-1] - qhat[0] > 1e-9 * scale)
    return QuantileShape(
        betas=betas,
        ells=ells,
        quantiles=qhat,
        quantile_intervals=qint,
        n_reps=np.array([e.size for e in samples]),
        gamma=gamma,
        gamma_interval=g_int,
        a=a,
        b=b,
        nested=nested,
        sse_sqrt=_wsse(0.5, ells, w, qhat),
        sse_linear=_wsse(1.0, ells, w, qhat),
        preferred=preferred,
        alpha=alpha,
        n_boot=n_boot,
        grid=(float(gam[0]), float(gam[-1])),
        censored=censored,
        interval_censored=int_cens,
        se=g_se,
        degenerate="flat" if flat else ("ties" if tied else ""),
    )


def _wls_ab(g, ells, w, q):
    X = np.column_stack([np.ones_like(ells), ells**g]) * w[:, None]
    (a, b), *_ = np.linalg.lstsq(X, q * w, rcond=None)
    return float(a), float(b)


def _wsse(g, ells, w, q) -> float:
    a, b = _wls_ab(g, ells, w, q)
    return float(np.sum((w * (q - a - b * ells**g)) ** 2))


def check_quantile_shape(
    errors: ArrayLike,
    betas: ArrayLike | None = None,
    *,
    gamma: float = 0.5,
    tolerance: float = 0.25,
    alpha: float = 0.05,
    n_boot: int = 1000,
    rng: np.random.Generator | None = None,
    name: str = "",
    provenance: Provenance | dict | None = None,
    seed: int | None = None,
    power: float = 0.8,
) -> CheckResult:
    """Test the claim "the (1−β)-quantile grows like ``log(1/β)^gamma``" with the three-outcome rule on the
    bootstrap interval of γ (consistent: inside ``[gamma − tol, gamma + tol]``; violated: disjoint; else
    inconclusive).  The default ``gamma=0.5, tolerance=0.25`` separates a sqrt-log tail from a linear-log tail
    (γ = 1 lies outside the band).

    A best γ on an end of the search grid is *censored*: the result gives no value (``estimate`` is NaN, the
    summary says "γ ≥ 2.5 (censored ...)") and the verdict cannot be ``consistent`` (it is ``inconclusive`` unless
    the interval's finite end already clears the band).  ``details['min_detectable_deviation']`` is the distance
    outside the band at which a true γ is declared violated with probability ≈ ``power`` (half-width of the
    interval plus ``z_power`` bootstrap standard deviations, a normal approximation), reported in the summary.

    Parameters
    ----------
    errors : array_like or mapping
        The errors, as for :func:`quantile_shape`.
    betas : array_like, optional
        The failure probabilities β.
    gamma : float, default 0.5
        The claimed γ.
    tolerance : float, default 0.25
        Half-width of the band around γ.
    alpha : float, default 0.05
        Error probability.
    n_boot : int, default 1000
        Bootstrap resamples.
    rng : numpy.random.Generator, optional
        Generator of the bootstrap (default: seeded from the data).
    name : str, default ""
        Name of the result.
    provenance : Provenance or dict, optional
        Source of the claim.
    seed : int, optional
        Seed recorded in the result.
    power : float, default 0.8
        Power at which the smallest detectable deviation is stated.

    Returns
    -------
    CheckResult
        Statistic ``gamma``; the fit in ``details``.
    """
    t0 = time.perf_counter()
    gamma = check_positive("gamma", gamma)
    tolerance = check_positive("tolerance", tolerance)
    power = check_prob("power", power)
    shape = quantile_shape(errors, betas, alpha=alpha, n_boot=n_boot, rng=rng)
    verdict = three_outcome_verdict(shape.gamma_interval, gamma, tolerance)
    if shape.censored and verdict == "consistent":
        verdict = "inconclusive"
    if shape.degenerate:
        verdict = "inconclusive"
    lo, hi = shape.gamma_interval
    sides = [d for d in (shape.gamma - lo, hi - shape.gamma) if math.isfinite(d)]
    mdd = (
        max(sides) + float(_st.norm.ppf(power)) * shape.se
        if sides and len(sides) == 2 and not shape.censored and math.isfinite(shape.se)
        else math.inf
    )
    summary = (
        f"(1-β)-quantile ≈ {shape.a:.3g} + {shape.b:.3g}·log(1/β)^γ, γ {shape.gamma_text()} "
        f"({100 * (1 - alpha):g}% CI [{lo:.3f}, {hi:.3f}]) vs claimed γ = {gamma:g} ± {tolerance:g}: {verdict}"
    )
    if shape.degenerate == "flat":
        summary += "; the quantiles do not grow with log(1/β) (b ≈ 0): γ is not identified"
    elif shape.degenerate == "ties":
        summary += (
            "; the errors are so tied that the bootstrap of a quantile has no spread: the interval is not a "
            "confidence interval, so no verdict"
        )
    elif shape.censored:
        summary += (
            "; the fit sits on the edge of its γ grid, so γ is a bound, not an estimate "
            "(the quantiles do not follow a + b·log(1/β)^γ with γ inside the grid)"
        )
    elif math.isfinite(mdd):
        summary += f"; a true γ more than {mdd:.2f} outside the band is detected with probability ≈ {power:g}"
    if isinstance(provenance, dict):
        provenance = Provenance(**provenance)
    return CheckResult(
        name=name or "quantile_shape",
        verdict=verdict,
        statistic="gamma",
        estimate=float("nan") if shape.censored else shape.gamma,
        interval=shape.gamma_interval,
        alpha=alpha,
        n_samples=int(shape.n_reps.max()),
        seconds=time.perf_counter() - t0,
        seed=seed,
        provenance=provenance or Provenance(),
        summary=summary,
        details={
            "shape": shape.to_dict(),
            "band": [gamma - tolerance, gamma + tolerance],
            "censored": shape.censored,
            "min_detectable_deviation": mdd,
            "power": power,
        },
    )
