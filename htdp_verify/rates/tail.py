"""High-probability (tail) bound tests: ``P[error > bound] ≤ β`` from replications.

:func:`check_tail_bound` counts exceedances of an explicit bound over replications (one or several cells) and tests
them exactly against the failure probability β (:func:`htdp_verify.stats.exceedance_test`, pooled or per cell with
Bonferroni); it reports the smallest failure rate the run detects with the stated power and the *empirical
constant* (the (1−β)-quantile of error/bound with its exact upper confidence bound).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike
from scipy import stats as _st

from .._validate import check_prob
from ..claims import TailBoundClaim
from ..results import CheckResult
from ..stats import exceedance_test, quantile_upper_bound, samples_needed_for_exceedance

__all__ = ["check_tail_bound"]


def _cells_and_bounds(errors, bound_values):
    from ..montecarlo import MonteCarloResult

    if isinstance(errors, MonteCarloResult):
        errors = errors.values("error" if "error" in errors.outputs else None)
    if isinstance(errors, np.ndarray) and np.iscomplexobj(errors):
        raise ValueError("errors must be real (absolute errors); got a complex array: take np.abs first")
    if isinstance(errors, np.ndarray) or (isinstance(errors, Sequence) and len(errors) and np.isscalar(errors[0])):
        e = np.asarray(errors, dtype=float)
        if e.ndim not in (1, 2):
            raise ValueError(f"errors must be 1-D (reps,) or 2-D (cells, reps), got shape {e.shape}")
        cells = [e] if e.ndim == 1 else list(e)
    else:
        cells = [np.asarray(c, dtype=float).ravel() for c in errors]
    if not cells or any(c.size == 0 for c in cells):
        raise ValueError("errors must contain at least one replication per cell")
    if not all(np.all(np.isfinite(c)) for c in cells):
        raise ValueError("errors must be finite (found NaN or inf)")
    if any(np.any(c < 0) for c in cells):
        raise ValueError(
            "errors must be >= 0: a tail bound is on an absolute error or a norm (take np.abs or a norm first; "
            "signed errors would never exceed a positive bound on their negative side)"
        )
    b = bound_values
    if np.ndim(b) == 0:
        bounds = [np.full(c.size, float(b)) for c in cells]
    elif np.shape(b) == (len(cells),) and (len(cells) > 1 or cells[0].size > 1):  # one value per cell
        bounds = [np.full(c.size, float(bi)) for c, bi in zip(cells, np.asarray(b, dtype=float))]
    else:
        rows = (
            [np.asarray(b, dtype=float).ravel()] if len(cells) == 1 else [np.asarray(r, dtype=float).ravel() for r in b]
        )
        if len(rows) != len(cells) or any(r.size != c.size for r, c in zip(rows, cells)):
            raise ValueError(
                f"bound_values must be a scalar, one value per cell ({len(cells)}), or one per replication "
                f"(same shape as errors); got shape {np.shape(b)}"
            )
        bounds = rows
    for bc in bounds:
        if not np.all(np.isfinite(bc)) or np.any(bc <= 0):
            raise ValueError("bound_values must be finite and > 0")
    return cells, bounds


def check_tail_bound(
    errors: ArrayLike,
    bound_values: Any,
    claim: TailBoundClaim,
    alpha: float = 0.05,
    *,
    power: float = 0.8,
    detect_rate: float | None = None,
    per_cell: bool = False,
    name: str = "",
    seed: int | None = None,
    alternatives: Sequence[float] | None = None,
) -> CheckResult:
    """Exact test of a high-probability bound ``P[error > bound] ≤ claim.beta`` from replications.

    The result also reports the *empirical constant*: the (1−β)-quantile of error/bound (≤ 1 when the bound holds)
    and its exact upper confidence bound, so that constants that drift are visible before they fail.

    Parameters
    ----------
    errors
        replications of the error: 1-D (one configuration), 2-D ``(cells, reps)``, a list of 1-D arrays, or a
        :class:`~htdp_verify.montecarlo.MonteCarloResult` (its ``"error"`` output).
    bound_values
        the bound: a scalar, one value per cell, or one per replication.
    claim
        the :class:`~htdp_verify.claims.TailBoundClaim` under test (its ``beta``).
    alpha
        false-failure probability of the verdict.
    power, detect_rate
        design.  ``details['min_detectable_rate']`` is the failure rate detected with probability
        ``power``; if ``detect_rate`` is given and the run cannot detect it, the verdict is ``inconclusive`` and
        ``details['reps_needed']`` says how many replications would.
    per_cell
        test every cell separately at ``alpha / cells`` (Bonferroni) instead of pooling the counts.
        Pooling is valid because each cell's failure count is dominated by Binomial(reps, β) under the claim,
        and it has more power against violations spread over the grid.
    alternatives
        true failure rates (> β) at which the power of this very test (its replications, its α, pooled or
        per cell) is computed exactly from the binomial; default ``(2β, 3β)``.  ``details['power_at']`` gives, per
        rate, the probability of a "violated" verdict when *every* cell fails at that rate and, with several cells,
        when only the *one* cell with the fewest replications does (the others at β); a consistent verdict's
        summary states both, so a pass that could not have failed is visible.
    name
        name of the result.
    seed
        seed recorded in the result (the test itself draws nothing).

    Returns
    -------
    CheckResult
        Statistic ``exceedance_rate``; verdict consistent, violated or inconclusive.
    """
    t0 = time.perf_counter()
    if not isinstance(claim, TailBoundClaim):
        raise ValueError(f"claim must be a TailBoundClaim, got {type(claim).__name__}")
    alpha = check_prob("alpha", alpha)
    power = check_prob("power", power)
    if alternatives is None:
        alternatives = [r for r in (2 * claim.beta, 3 * claim.beta) if r < 1]
    alternatives = [check_prob("alternatives", float(r)) for r in alternatives]
    if any(r <= claim.beta for r in alternatives):
        raise ValueError(f"alternatives must be failure rates above beta={claim.beta:g}, got {alternatives}")
    if detect_rate is not None:
        detect_rate = check_prob("detect_rate", detect_rate)
        if detect_rate <= claim.beta:
            raise ValueError(f"detect_rate must exceed beta={claim.beta:g}, got {detect_rate:g}")
    cells, bounds = _cells_and_bounds(errors, bound_values)
    beta = claim.beta
    counts = np.array([int(np.sum(e > b)) for e, b in zip(cells, bounds)])
    ns = np.array([e.size for e in cells])
    if per_cell and len(cells) > 1:
        a_cell = alpha / len(cells)
        tests = [exceedance_test(int(k), int(n), beta, a_cell, power=power) for k, n in zip(counts, ns)]
        worst = min(tests, key=lambda t: t.pvalue)
        verdict = "violated" if any(t.verdict == "violated" for t in tests) else "consistent"
        pvalue = min(1.0, worst.pvalue * len(cells))
        mdr = max(t.min_detectable_rate for t in tests)
        rate_upper = max(t.rate_upper for t in tests)
        k_tot, n_tot = int(counts.sum()), int(ns.sum())

        def reps_for(r):
            return samples_needed_for_exceedance(beta, r, a_cell, power) * len(cells)
    else:
        res = exceedance_test(int(counts.sum()), int(ns.sum()), beta, alpha, power=power)
        verdict, pvalue, mdr, rate_upper = res.verdict, res.pvalue, res.min_detectable_rate, res.rate_upper
        k_tot, n_tot = res.k, res.n

        def reps_for(r):
            return samples_needed_for_exceedance(beta, r, alpha, power)

    ratio = np.concatenate([e / b for e, b in zip(cells, bounds)])
    const = float(np.quantile(ratio, 1 - beta))
    try:
        const_upper = quantile_upper_bound(ratio, 1 - beta, alpha)
    except ValueError:
        const_upper = float("inf")
    details = {
        "counts": counts.tolist(),
        "reps": ns.tolist(),
        "pvalue": pvalue,
        "rate_upper": rate_upper,
        "min_detectable_rate": mdr,
        "power": power,
        "per_cell": bool(per_cell and len(cells) > 1),
        "empirical_constant": const,
        "empirical_constant_upper": const_upper,
        "power_at": _power_at(ns, beta, alpha, alternatives, bool(per_cell and len(cells) > 1)),
    }
    rate = k_tot / n_tot
    head = (
        f"{k_tot}/{n_tot} exceedances (rate {rate:.4g}, {100 * (1 - alpha):g}% upper bound {rate_upper:.4g}) "
        f"vs beta={beta:g}, p={pvalue:.3g}"
    )
    if verdict == "violated":
        summary = f"{head}: the bound fails more often than beta (rejected at alpha={alpha:g})."
    elif detect_rate is not None and mdr > detect_rate:
        verdict = "inconclusive"
        details["reps_needed"] = reps_for(detect_rate)
        summary = (
            f"{head}: not rejected, but the run only detects failure rates ≥ {mdr:.3g}; about "
            f"{details['reps_needed']} replications would detect {detect_rate:g} with probability {power:g}."
        )
    else:
        summary = (
            f"{head}: consistent; a failure rate ≥ {mdr:.3g} would be detected with probability ≥ {power:g}. "
            f"Empirical constant (1-beta quantile of error/bound) {const:.3g}."
        )
        if details["power_at"]:
            summary += " " + _power_text(details["power_at"], beta)
    return CheckResult(
        name=name or "tail_bound",
        verdict=verdict,
        statistic="exceedance_rate",
        estimate=rate,
        interval=(0.0, rate_upper),
        alpha=alpha,
        claim=claim,
        n_samples=n_tot,
        seconds=time.perf_counter() - t0,
        seed=seed,
        provenance=claim.provenance,
        summary=summary,
        details=details,
    )


def _critical(n: int, beta: float, a: float) -> int:
    """Smallest count k with P[Bin(n, beta) >= k] <= a (the test rejects at k or more)."""
    return int(_st.binom.isf(a, n, beta)) + 1


def _power_at(ns, beta, alpha, rates, per_cell) -> list:
    """Exact probability that the test (pooled at ``alpha`` or per cell at ``alpha/cells``) says "violated" when
    every cell fails at ``rate`` (``every_cell``) or only the smallest cell does, the others at ``beta``
    (``one_cell``; for the per-cell test this is that cell's own rejection probability, a lower bound)."""
    ns = [int(n) for n in ns]
    small = min(range(len(ns)), key=lambda i: ns[i])
    out = []
    for r in rates:
        row = {"rate": float(r)}
        if per_cell:
            a = alpha / len(ns)
            p_cell = [float(_st.binom.sf(_critical(n, beta, a) - 1, n, r)) for n in ns]
            row["every_cell"] = float(1.0 - np.prod([1.0 - p for p in p_cell]))
            row["one_cell"] = p_cell[small]
        else:
            N = sum(ns)
            c = _critical(N, beta, alpha)
            row["every_cell"] = float(_st.binom.sf(c - 1, N, r))
            if len(ns) > 1:
                n1 = ns[small]
                j = np.arange(n1 + 1)  # P[X1 + X2 >= c] = Σ_j P[X1 = j] P[X2 >= c - j]
                row["one_cell"] = float(np.sum(_st.binom.pmf(j, n1, r) * _st.binom.sf(c - 1 - j, N - n1, beta)))
        if len(ns) > 1:
            row["one_cell_reps"] = ns[small]
        out.append(row)
    return out


def _power_text(rows, beta) -> str:
    parts = []
    for row in rows:
        k = row["rate"] / beta
        txt = f"{k:.3g}β = {row['rate']:.3g}: {row['every_cell']:.2f}"
        if "one_cell" in row:
            txt += f" (every cell), {row['one_cell']:.2f} (one cell of {row['one_cell_reps']} reps only)"
        parts.append(txt)
    return "Power (exact binomial) against a true failure rate of " + "; ".join(parts) + "."
