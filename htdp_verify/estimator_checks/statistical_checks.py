"""The statistical contract checks: ``__call__`` and ``sample`` draw from one law, and ``sample`` releases are i.i.d.

:func:`check_call_matches_sample` (two-sample Kolmogorov–Smirnov tests on release features) and
:func:`check_releases_independent` (the engine's dispersion test); each states its α and what it detects, returns
a :class:`~htdp_verify.results.CheckResult` and never raises for a broken contract. Re-exported by
:mod:`htdp_verify.estimator_checks`, which selects and drives the checks (the table there).
"""

from __future__ import annotations

import math
import time
from typing import Any

import numpy as np

from ..results import CheckResult
from .tags import _ALPHA, _context, _result, _size

__all__ = ["check_call_matches_sample", "check_releases_independent"]


def _features(y: np.ndarray) -> list[tuple[str, np.ndarray]]:
    flat = y.reshape(y.shape[0], -1).astype(float)
    feats = [(f"coordinate {j}", flat[:, j]) for j in range(min(flat.shape[1], 5))]
    if flat.shape[1] > 1:
        feats.append(("l2 norm", np.linalg.norm(flat, axis=1)))
    return feats


def check_call_matches_sample(
    estimator: Any, *, data: Any = None, profile: str | None = None, seed: int | None = None
) -> CheckResult:
    """``__call__`` and ``sample`` agree in distribution: two-sample Kolmogorov–Smirnov tests on up to five
    coordinates and the ℓ2 norm of m releases each, Bonferroni at α = 0.01 in all.

    Design: with ``c`` the asymptotic KS critical value at α/(#features), a true CDF gap D ≥ c + 0.84·½·√(2/m)
    is detected with power ≥ 0.8 (the empirical CDF difference at the gap's point has sd ≤ ½·√(2/m)); m = 400
    (quick) and six features give D ≈ 0.17 (``details["min_detectable_gap"]``).

    Parameters
    ----------
    estimator : object
        The DP estimator under test.
    data : array_like, optional
        The dataset the check runs on (default: generated from the estimator's tags).
    profile : str, optional
        ``"quick"`` or ``"full"`` (default: the ``--htdp-profile`` option, else ``$HTDP_PROFILE``, else ``"quick"``).
    seed : int, optional
        The check's seed (default: derived from the estimator's id and the check's name).

    Returns
    -------
    CheckResult
        The check's verdict; ``info`` when the check has nothing to test on this estimator.
    """
    from scipy import stats

    name, t0 = "check_call_matches_sample", time.perf_counter()
    tags, profile, seed, rng, data = _context(estimator, name, data, profile, seed)
    m = _size("agree", profile, tags)
    r_call = np.stack([np.asarray(estimator(data, rng=rng), dtype=float) for _ in range(m)])
    r_sample = np.asarray(estimator.sample(data, m, rng=rng), dtype=float)
    if r_call.shape != r_sample.shape:
        return _result(
            name,
            estimator,
            "violated",
            f"__call__ releases stack to {r_call.shape} but sample returns {r_sample.shape}",
            t0=t0,
            seed=seed,
            n_samples=2 * m,
        )
    rows = []
    fa, fb = _features(r_call), _features(r_sample)
    k = len(fa)
    for (nm, a), (_, b) in zip(fa, fb):
        res = stats.ks_2samp(a, b)
        rows.append({"feature": nm, "ks": float(res.statistic), "p_value": float(res.pvalue)})
    crit = math.sqrt(-math.log(_ALPHA / k / 2) / 2) * math.sqrt(2.0 / m)
    min_gap = crit + 0.8416 * 0.5 * math.sqrt(2.0 / m)  # sd of a CDF difference at a point <= 0.5·sqrt(2/m)
    worst = min(rows, key=lambda r: r["p_value"])
    verdict = "violated" if worst["p_value"] <= _ALPHA / k else "consistent"
    summary = (
        f"{worst['feature']}: KS D={worst['ks']:.3g}, p={worst['p_value']:.3g} vs alpha/{k}={_ALPHA / k:.3g} "
        f"({m} releases each; detects a CDF gap >= {min_gap:.3g} with power >= 0.8)"
    )
    return _result(
        name,
        estimator,
        verdict,
        summary,
        t0=t0,
        seed=seed,
        alpha=_ALPHA,
        statistic="ks_statistic",
        estimate=worst["ks"],
        n_samples=2 * m,
        details={"features": rows, "min_detectable_gap": min_gap},
    )


def check_releases_independent(
    estimator: Any, *, data: Any = None, profile: str | None = None, seed: int | None = None
) -> CheckResult:
    """``sample`` releases are i.i.d.: :func:`htdp_verify.privacy.check_independent_releases` at α = 0.01.

    Parameters
    ----------
    estimator : object
        The DP estimator under test.
    data : array_like, optional
        The dataset the check runs on (default: generated from the estimator's tags).
    profile : str, optional
        ``"quick"`` or ``"full"`` (default: the ``--htdp-profile`` option, else ``$HTDP_PROFILE``, else ``"quick"``).
    seed : int, optional
        The check's seed (default: derived from the estimator's id and the check's name).

    Returns
    -------
    CheckResult
        The check's verdict; ``info`` when the check has nothing to test on this estimator.
    """
    from ..privacy.independence import check_independent_releases

    name, t0 = "check_releases_independent", time.perf_counter()
    tags, profile, seed, rng, data = _context(estimator, name, data, profile, seed)
    res = check_independent_releases(
        estimator,
        data,
        n_batches=_size("batches", profile, tags),
        batch_size=_size("batch", profile, tags),
        alpha=_ALPHA,
        rng=rng,
    )
    out = _result(
        name,
        estimator,
        res.verdict,
        res.summary,
        t0=t0,
        seed=seed,
        alpha=res.alpha,
        statistic=res.statistic,
        estimate=res.estimate,
        n_samples=res.n_samples,
        details=res.details,
    )
    return out
