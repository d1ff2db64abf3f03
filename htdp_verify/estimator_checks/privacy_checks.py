"""The privacy checks of an estimator: audits at its declared claim and the noise-off reference.

:func:`check_privacy_audit` (:func:`~htdp_verify.privacy.audit` on generated neighbours of the data),
:func:`check_privacy_worst_case_pairs` (the same on the estimator's declared worst-case pairs) and
:func:`check_noise_off_reference` (with the noise switched off the releases equal the declared non-private
reference); each returns a :class:`~htdp_verify.results.CheckResult` and never raises for a broken contract.
Re-exported by :mod:`htdp_verify.estimator_checks`, which selects and drives the checks.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from ..results import CheckResult
from .tags import _ALPHA, _context, _result, _size

__all__ = ["check_privacy_audit", "check_privacy_worst_case_pairs", "check_noise_off_reference"]


def _audit_result(name, estimator, res, t0, seed) -> CheckResult:
    text = res.summary
    if res.verdict == "violated":
        text += f"; pair: {res.pair.get('text', '')}; event: {res.event}"
    return _result(
        name,
        estimator,
        res.verdict,
        text,
        t0=t0,
        seed=seed,
        alpha=res.alpha,
        statistic="epsilon_lb",
        estimate=res.estimate,
        n_samples=res.n_samples,
        details=res.details,
        claim=res.claim,
    )


def _expensive_sizes(profile, tags) -> dict:
    """Sizes of the audit of an ``expensive`` estimator (one call per release), and its sequential design
    (:meth:`~htdp_verify.privacy.sequential.RoundsDesign.per_call`: a probe round, then the fixed-n split with a
    certification that stops early)."""
    if not tags.get("expensive"):
        return {}
    return {
        "n_search": _size("search_expensive", profile, tags),
        "n_select": _size("select_expensive", profile, tags),
        "sequential": "per_call",
    }


def check_privacy_audit(
    estimator: Any, *, data: Any = None, profile: str | None = None, seed: int | None = None
) -> CheckResult:
    """:func:`~htdp_verify.privacy.audit` at the declared claim on generated neighbours of the data (the engine's
    held-out pair search over ``dataset_patterns``: a record moved to the data's extremes / to ±c·bound / from
    -c·bound to +c·bound, duplicated), α = 0.01; 20 000 certification releases per side under the quick profile.

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
    from ..privacy import audit

    name, t0 = "check_privacy_audit", time.perf_counter()
    tags, profile, seed, rng, data = _context(estimator, name, data, profile, seed)
    neighbours = tags["neighbours"]
    if neighbours is None or isinstance(neighbours, dict):
        neighbours = {"data": data, "bound": tags["bound"], **(neighbours or {})}
    res = audit(
        estimator,
        estimator.privacy,
        neighbours=neighbours,
        n_samples=_size("audit", profile, tags),
        alpha=_ALPHA,
        rng=rng,
        name=name,
        **_expensive_sizes(profile, tags),
    )
    return _audit_result(name, estimator, res, t0, seed)


def check_privacy_worst_case_pairs(
    estimator: Any, *, data: Any = None, profile: str | None = None, seed: int | None = None
) -> CheckResult:
    """:func:`~htdp_verify.privacy.audit` at the declared claim on the pairs of the ``worst_case_pairs`` tag.

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
    from ..privacy import audit

    name, t0 = "check_privacy_worst_case_pairs", time.perf_counter()
    tags, profile, seed, rng, data = _context(estimator, name, data, profile, seed)
    pairs = tags["worst_case_pairs"](data)
    res = audit(
        estimator,
        estimator.privacy,
        pairs=pairs,
        n_samples=_size("audit", profile, tags),
        alpha=_ALPHA,
        rng=rng,
        name=name,
        **_expensive_sizes(profile, tags),
    )
    return _audit_result(name, estimator, res, t0, seed)


def check_noise_off_reference(
    estimator: Any, *, data: Any = None, profile: str | None = None, seed: int | None = None
) -> CheckResult:
    """With the noise switched off (tag ``noise_off``) every release equals the declared non-private reference
    (tag ``reference``) within ``reference_tol``, on the data and on two rescalings of it.

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
    name, t0 = "check_noise_off_reference", time.perf_counter()
    tags, profile, seed, rng, data = _context(estimator, name, data, profile, seed)
    worst, rows = 0.0, []
    for c in (1.0, 0.1, 3.0):
        z = np.asarray(data, dtype=float) * c
        quiet = tags["noise_off"](z)
        ref = np.asarray(tags["reference"](z), dtype=float)
        y = np.asarray(quiet.sample(z, 20, rng=rng), dtype=float)
        gap = float(np.max(np.abs(y - ref))) if y.size else float("inf")
        rows.append({"scale": c, "max_abs_gap": gap})
        worst = max(worst, gap) if np.isfinite(gap) else float("inf")
    verdict = "consistent" if worst <= tags["reference_tol"] else "violated"
    return _result(
        name,
        estimator,
        verdict,
        f"largest |release - reference| = {worst:.3g} (tolerance {tags['reference_tol']:g}) with the noise off",
        t0=t0,
        seed=seed,
        statistic="max_abs_gap",
        estimate=worst,
        details={"cases": rows},
    )
