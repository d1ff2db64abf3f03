"""Are a mechanism's releases independent? A dispersion test of event counts across batches.

The auditor's bounds treat the ``size`` releases of one ``mechanism(data, size, rng)`` call as i.i.d.: every count
it certifies is read as Binomial(size, p). A sampler that shares randomness within a batch (one noise draw, one
set of random directions or one partition reused by every release of the call) breaks that model: counts are then
over-dispersed and the certified bounds are no longer valid. :func:`check_independent_releases` tests the model
directly.

Design
------
1. A pilot call (``batch_size`` releases) fixes the events: for each of the first ``max_coordinates`` coordinates of
   the flattened release, for the sum of the coordinates and for the ℓ2 distance to the pilot's coordinate-wise
   median, the event "statistic > t" (or "≥ t", whichever has pilot frequency nearer 1/2) with ``t`` the pilot
   median. The pilot is independent of what follows under the null, so the events are fixed in advance.
2. ``n_batches`` further calls of ``batch_size`` releases each; ``C_j`` = count of the event in batch j.
3. Under i.i.d. releases, ``C_1, ..., C_k`` are i.i.d. Binomial(b, p). The Pearson statistic of the 2 × k table,
   ``X² = Σ_j (C_j − b p̂)² / (b p̂ (1 − p̂))``, is then approximately χ²_{k−1} (every expected cell count is
   required to be ≥ 5; rarer events are skipped). ``X²/(k − 1)`` estimates the dispersion ratio
   Var(C_j) / (b p (1 − p)): 1 under independence, > 1 when releases in a batch are positively dependent, < 1
   when they are negatively dependent or when every call repeats the same releases. The test is two-sided.
4. The ``m`` usable events are combined by Bonferroni: the verdict is ``"violated"`` when some event's two-sided
   p-value is ≤ α/m, otherwise ``"consistent"``; family-wise error ≤ α under the null.

Power: if within-batch dependence inflates the count variance by a factor φ, X² ≈ φ χ²_{k−1}, so the smallest φ
detected with probability ``power`` is ``χ²_{k−1}(1 − α/(2m)) / χ²_{k−1}(1 − power)`` (reported as
``details["min_detectable_ratio"]``; k = 30, m = 7, α = 0.01: 2.65 at power 0.8; k = 100: 1.72). A common
correlation ρ between the event indicators of two releases of one batch gives φ = 1 + (b − 1)ρ, so large batches
detect weak sharing: the default k = 30 batches of b = 500 detect ρ ≥ (2.65 − 1)/499 = 0.0033
(``details["min_detectable_correlation"]``). Dependence that leaves every count's variance unchanged (e.g. a fixed
alternation inside a batch with p = 1/2 per position) is not seen.

Mechanisms whose releases are constant (a non-private reference) pass trivially: no event varies.
"""

from __future__ import annotations

import math
import time
from typing import Any

import numpy as np
from scipy import stats

from .._validate import check_int, check_prob, check_rng
from .adapters import as_mechanism

__all__ = [
    "dispersion_test",
    "min_detectable_ratio",
    "check_independent_releases",
    "within_call_dispersion",
    "WITHIN_CALL_ALPHA",
    "MIN_CALLS",
]

_MIN_EXPECTED = 5.0  # smallest expected count per cell for the χ² approximation
# The audit's own check (certification counts across its calls, :func:`within_call_dispersion`): the level per
# audit (split over the two sides) and the fewest calls it needs (two: a call shared by all its releases gives counts
# of 0 or m, which two calls already show).
WITHIN_CALL_ALPHA = 1e-4
MIN_CALLS = 2


def dispersion_test(counts: Any, batch_size: int) -> tuple[float, float, float]:
    """Two-sided Pearson dispersion test of ``counts`` (one count per batch of ``batch_size`` Bernoulli trials).

    Returns ``(ratio, statistic, p_value)`` with ``statistic = Σ (C_j − b p̂)² / (b p̂ (1 − p̂))`` ~ χ²_{k−1} under
    i.i.d. trials, ``ratio = statistic / (k − 1)`` and ``p_value = 2 min(P(χ² ≥ X²), P(χ² ≤ X²))`` (capped at 1).
    Raises ValueError when the event never or always occurs (no dispersion to test).

    Parameters
    ----------
    counts : array_like
        One count per batch.
    batch_size : int
        Trials per batch.

    Returns
    -------
    tuple
        ``(ratio, statistic, p_value)``.
    """
    c = np.asarray(counts, dtype=float)
    b = check_int("batch_size", batch_size, minimum=1)
    if c.ndim != 1 or c.size < 2:
        raise ValueError(f"counts must be a 1-d array of >= 2 batch counts, got shape {c.shape}")
    if np.any(c < 0) or np.any(c > b) or np.any(c != np.round(c)):
        raise ValueError(f"counts must be integers in [0, batch_size={b}]")
    k = c.size
    p = c.sum() / (k * b)
    if p <= 0.0 or p >= 1.0:
        raise ValueError("counts must not all be 0 or all be batch_size (the event never varies)")
    x2 = float(np.sum((c - b * p) ** 2) / (b * p * (1.0 - p)))
    df = k - 1
    pv = min(1.0, 2.0 * min(float(stats.chi2.sf(x2, df)), float(stats.chi2.cdf(x2, df))))
    return x2 / df, x2, pv


def within_call_dispersion(block_counts: Any, block_sizes: Any) -> dict | None:
    """Over-dispersion of one event's counts across the mechanism calls of one side (every audit runs it).

    An audit counts its certification releases in blocks, one mechanism call each: a fixed-n audit in at least
    ``certification.CERT_MIN_BLOCKS`` blocks per side, a sequential one in one or more per checkpoint.  Under the
    auditor's model the block counts are independent Binomial(m_j, p); releases that share randomness within a
    call make them over-dispersed, and the certified bound is then not valid (a mechanism adding one shared Laplace
    draw to a whole call was certified at ε ≥ 8.8 against a true ε ≤ 1).  Pearson's statistic of the 2 × B table,
    ``Σ (C_j − m_j p̂)² / (m_j p̂ (1 − p̂))``, upper tail of χ²_{B−1}: only positive dependence inflates the variance
    the bound relies on.  Blocks whose expected count ``min(p̂, 1 − p̂)·m_j`` is below ``_MIN_EXPECTED`` are left
    out (the χ² approximation needs it).

    Parameters
    ----------
    block_counts : array_like
        The event's count in each block.
    block_sizes : array_like
        Releases in each block.

    Returns
    -------
    dict or None
        ``{"calls", "releases", "ratio", "p_value"}``, or ``None`` when fewer than ``MIN_CALLS`` blocks are left.
    """
    c = np.asarray(block_counts, dtype=float).ravel()
    m = np.asarray(block_sizes, dtype=float).ravel()
    if c.shape != m.shape:
        raise ValueError(f"block_counts and block_sizes must have the same length, got {c.size} and {m.size}")
    if np.any(m < 1) or np.any(c < 0) or np.any(c > m):
        raise ValueError("block_sizes must be >= 1 and block_counts in [0, block_sizes]")
    if c.size == 0 or m.sum() == 0:
        return None
    p = float(c.sum() / m.sum())
    keep = np.minimum(p, 1.0 - p) * m >= _MIN_EXPECTED
    if int(keep.sum()) < MIN_CALLS:
        return None
    # p̂ from every block; with some left out it is not fitted to the kept ones, so they keep all their degrees of
    # freedom (a conservative reference distribution)
    df = int(keep.sum()) - (1 if keep.all() else 0)
    c, m = c[keep], m[keep]
    x2 = float(np.sum((c - m * p) ** 2 / (m * p * (1.0 - p))))
    return {"calls": int(c.size), "releases": int(m.sum()), "ratio": x2 / df, "p_value": float(stats.chi2.sf(x2, df))}


def min_detectable_ratio(n_batches: int, alpha: float, n_events: int = 1, power: float = 0.8) -> float:
    """Smallest variance ratio φ the two-sided test at ``alpha / n_events`` detects with probability ``power``.

    Parameters
    ----------
    n_batches : int
        Number of batches k.
    alpha : float
        Family-wise level.
    n_events : int, default 1
        Events tested (Bonferroni).
    power : float, default 0.8
        Required probability of detection.

    Returns
    -------
    float
        The variance ratio φ.
    """
    k = check_int("n_batches", n_batches, minimum=2)
    alpha = check_prob("alpha", alpha)
    m = check_int("n_events", n_events, minimum=1)
    power = check_prob("power", power)
    return float(stats.chi2.isf(alpha / (2 * m), k - 1) / stats.chi2.isf(power, k - 1))


def _features(y: np.ndarray, max_coordinates: int, centre: np.ndarray | None, spread: bool = False):
    """The scalar statistics of each release (rows of ``y``, flattened): coordinates, their sum, distance to centre
    (for scalar releases too when ``spread``: a law whose scale changes keeps its median)."""
    flat = y.reshape(y.shape[0], -1).astype(float)
    cols = [flat[:, j] for j in range(min(flat.shape[1], max_coordinates))]
    names = [f"coordinate {j}" for j in range(len(cols))]
    if flat.shape[1] > 1 or spread:
        with np.errstate(invalid="ignore", over="ignore"):
            if flat.shape[1] > 1:
                cols.append(flat.sum(axis=1))
                names.append("sum of coordinates")
            if centre is None:
                centre = np.nanmedian(flat, axis=0)
            cols.append(np.linalg.norm(flat - centre, axis=1))
            names.append("distance to pilot median")
    return names, cols, centre


def _threshold(v: np.ndarray):
    """Pilot median ``t`` and the comparison ('>' or '>=') whose pilot frequency is nearer 1/2."""
    finite = v[np.isfinite(v)]
    if finite.size == 0:
        return None
    t = float(np.median(finite))
    gt, ge = np.mean(v > t), np.mean(v >= t)
    return (t, ">") if abs(gt - 0.5) <= abs(ge - 0.5) else (t, ">=")


def check_independent_releases(
    mechanism: Any,
    data: Any,
    *,
    n_batches: int = 30,
    batch_size: int = 500,
    alpha: float = 0.01,
    max_coordinates: int = 5,
    power: float = 0.8,
    name: str | None = None,
    single_calls: int = 0,
    rng: np.random.Generator,
) -> Any:
    """Test that ``mechanism(data, size, rng)`` returns i.i.d. releases (module docstring for the design).

    Parameters
    ----------
    mechanism
        a mechanism ``(data, size, rng) -> (size, ...)``, an estimator with ``sample``, or a ``Mechanism``.
    data
        the dataset passed to every call.
    n_batches, batch_size
        k calls of b releases each (after one pilot call of b releases).
    alpha
        family-wise error of the verdict (Bonferroni over the events).
    max_coordinates
        how many leading coordinates of the flattened release get their own event.
    power
        the power at which ``details["min_detectable_ratio"]`` is stated.
    rng
        the generator every call draws from.
    name
        name of the result.
    single_calls
        with ``single_calls = s > 0``, also ``s`` calls of ``size=1`` after the batches, and each event's frequency
        among them is compared with its frequency in the batches (Fisher's exact test, two-sided, in the same
        Bonferroni family): a mechanism whose law depends on ``size`` (a single-release path that leaks, or a batch
        path that differs) is then caught.  The auditor calls with large sizes only, so this is the check for a
        mechanism deployed one release at a time.  Default 0 (off).

    Returns
    -------
    CheckResult
        ``statistic="dispersion_ratio"`` (the event ratio farthest from 1 on the log scale), verdict ``"violated"``
        (releases are not i.i.d. at level α) or ``"consistent"``, and per-event ratios and p-values in
        ``details["events"]``.
    """
    from ..results import CheckResult

    check_rng(rng)
    k = check_int("n_batches", n_batches, minimum=2)
    b = check_int("batch_size", batch_size, minimum=2)
    alpha = check_prob("alpha", alpha)
    max_coordinates = check_int("max_coordinates", max_coordinates, minimum=1)
    power = check_prob("power", power)
    single_calls = check_int("single_calls", single_calls, minimum=0)
    mech = as_mechanism(mechanism)
    label = name or mech.name
    t0 = time.perf_counter()

    draw = mech.unchecked  # this check measures dependence between calls itself (the contract would raise)
    pilot = np.asarray(draw(data, b, rng))
    names, cols, centre = _features(pilot, max_coordinates, None, bool(single_calls))
    events = [(nm, _threshold(v)) for nm, v in zip(names, cols)]
    counts = np.zeros((len(events), k), dtype=np.int64)
    for j in range(k):
        y = np.asarray(draw(data, b, rng))
        _, cols_j, _ = _features(y, max_coordinates, centre, bool(single_calls))
        for e, ((_, thr), v) in enumerate(zip(events, cols_j)):
            if thr is not None:
                counts[e, j] = np.count_nonzero(v > thr[0] if thr[1] == ">" else v >= thr[0])

    singles = np.zeros(len(events), dtype=np.int64)
    if single_calls:
        ys = np.concatenate([np.asarray(draw(data, 1, rng)) for _ in range(single_calls)])
        _, cols_s, _ = _features(ys, max_coordinates, centre, bool(single_calls))
        for e, ((_, thr), v) in enumerate(zip(events, cols_s)):
            if thr is not None:
                singles[e] = np.count_nonzero(v > thr[0] if thr[1] == ">" else v >= thr[0])

    rows: list[dict[str, Any]] = []
    usable: list[dict[str, Any]] = []
    size_tests: list[dict[str, Any]] = []
    for e, (nm, thr) in enumerate(events):
        row: dict[str, Any] = {
            "event": nm if thr is None else f"{nm} {thr[1]} {thr[0]:.6g}",
            "threshold": None if thr is None else thr[0],
        }
        p_hat = counts[e].sum() / (k * b)
        row["p_hat"] = float(p_hat)
        if thr is None or b * min(p_hat, 1.0 - p_hat) < _MIN_EXPECTED:
            row["skipped"] = "expected count per batch below 5 (event too rare or constant)"
        else:
            ratio, x2, pv = dispersion_test(counts[e], b)
            row.update(ratio=ratio, chi2=x2, p_value=pv)
            usable.append(row)
        if single_calls and thr is not None:
            c_all = int(counts[e].sum())
            table = [[int(singles[e]), single_calls - int(singles[e])], [c_all, k * b - c_all]]
            pv_size = float(stats.fisher_exact(table)[1])
            row.update(p_single_calls=float(singles[e] / single_calls), p_value_size=pv_size)
            size_tests.append(row)
        rows.append(row)
    seconds = time.perf_counter() - t0
    m = len(usable) + len(size_tests)
    common: dict[str, Any] = dict(
        name=f"independence.{label}",
        statistic="dispersion_ratio",
        alpha=alpha,
        n_samples=(k + 1) * b + single_calls,
        seconds=seconds,
    )
    size_p = min((r["p_value_size"] for r in size_tests), default=1.0)
    if size_tests and size_p <= alpha / m:
        worst_s = min(size_tests, key=lambda r: r["p_value_size"])
        return CheckResult(
            verdict="violated",
            estimate=float(worst_s["ratio"]) if "ratio" in worst_s else 1.0,
            summary=(
                f"the law depends on size: '{worst_s['event']}' has frequency {worst_s['p_single_calls']:.3g} over "
                f"{single_calls} calls of size 1 against {worst_s['p_hat']:.3g} in {k} calls of size {b} "
                f"(Fisher p = {size_p:.2g} ≤ α/m = {alpha / m:.2g})"
            ),
            details={
                "events": rows,
                "n_batches": k,
                "batch_size": b,
                "n_events": m,
                "single_calls": single_calls,
                "min_p_value_size": size_p,
                "bonferroni_level": alpha / m,
            },
            **common,
        )
    if not usable:
        return CheckResult(
            verdict="consistent",
            estimate=1.0,
            summary=(
                f"no event varies across {k} batches of {b} releases (constant or near-constant releases): nothing "
                "contradicts i.i.d. releases"
            ),
            details={"events": rows, "n_batches": k, "batch_size": b, "single_calls": single_calls},
            **common,
        )
    worst = max(usable, key=lambda r: abs(math.log(max(r["ratio"], 1e-300))))
    p_min = min(r["p_value"] for r in usable)
    phi = min_detectable_ratio(k, alpha, m, power)
    violated = p_min <= alpha / m
    rho = (phi - 1.0) / (b - 1)
    details = {
        "events": rows,
        "n_batches": k,
        "batch_size": b,
        "n_events": m,
        "min_p_value": p_min,
        "bonferroni_level": alpha / m,
        "min_detectable_ratio": phi,
        "min_detectable_correlation": rho,
        "power": power,
        "single_calls": single_calls,
        "min_p_value_size": size_p if size_tests else None,
    }
    if violated:
        summary = (
            f"releases are not i.i.d.: the count of '{worst['event']}' varies across {k} batches of {b} with "
            f"variance {worst['ratio']:.3g}× the binomial one (p = {p_min:.2g} ≤ α/m = {alpha / m:.2g})"
        )
    else:
        summary = (
            f"no over- or under-dispersion across {k} batches of {b} releases ({m} events, largest deviation "
            f"ratio {worst['ratio']:.3g}); detects a variance ratio ≥ {phi:.3g} (within-batch correlation ≥ {rho:.2g}) "
            f"with power {power:g} at α = {alpha:g}"
        )
    if size_tests:
        summary += f"; {single_calls} calls of size 1 agree with the batches (smallest Fisher p = {size_p:.2g})"
    return CheckResult(
        verdict="violated" if violated else "consistent",
        estimate=float(worst["ratio"]),
        summary=summary,
        details=details,
        **common,
    )
