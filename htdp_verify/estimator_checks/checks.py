"""The contract checks themselves (the table in :mod:`htdp_verify.estimator_checks`); each returns a
:class:`~htdp_verify.results.CheckResult` and never raises for a broken contract.

This module holds the well-formedness and reproducibility checks (:func:`check_guarantee_well_formed`,
:func:`check_reproducible`, :func:`check_seeds_differ`, :func:`check_no_global_rng`) and re-exports the others, so
every check stays importable from it: :mod:`.statistical_checks` (same law, independence),
:mod:`.input_checks` (bad and extreme inputs), :mod:`.privacy_checks` (audits, noise-off reference)."""

from __future__ import annotations

import math
import random
import time
from typing import Any

import numpy as np

from ..claims import NEIGHBOUR_RELATIONS
from ..results import CheckResult
from .input_checks import (
    check_extreme_inputs,
    check_rejects_bad_parameters,
    check_rejects_empty,
    check_rejects_nonfinite,
    check_rejects_wrong_shape,
)
from .privacy_checks import check_noise_off_reference, check_privacy_audit, check_privacy_worst_case_pairs
from .statistical_checks import check_call_matches_sample, check_releases_independent
from .tags import _context, _result, get_tags

__all__ = [
    "check_guarantee_well_formed",
    "check_call_matches_sample",
    "check_releases_independent",
    "check_reproducible",
    "check_seeds_differ",
    "check_no_global_rng",
    "check_rejects_nonfinite",
    "check_rejects_empty",
    "check_rejects_wrong_shape",
    "check_rejects_bad_parameters",
    "check_extreme_inputs",
    "check_privacy_audit",
    "check_privacy_worst_case_pairs",
    "check_noise_off_reference",
]


def check_guarantee_well_formed(
    estimator: Any, *, data: Any = None, profile: str | None = None, seed: int | None = None
) -> CheckResult:
    """``privacy`` is a PrivacyGuarantee: finite ε > 0, δ in [0, 1), a known neighbour relation; the ``pure`` and
    ``add_remove`` tags, when declared, agree with it.

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
    from ..privacy import PrivacyGuarantee

    name, t0 = "check_guarantee_well_formed", time.perf_counter()
    tags = get_tags(estimator)
    g = getattr(estimator, "privacy", None)
    problems = []
    if not isinstance(g, PrivacyGuarantee):
        problems.append(f"privacy must be a PrivacyGuarantee, got {type(g).__name__}")
    else:
        if not (math.isfinite(g.epsilon) and g.epsilon > 0):
            problems.append(f"epsilon must be finite and > 0, got {g.epsilon!r}")
        if not (0.0 <= g.delta < 1.0):
            problems.append(f"delta must lie in [0, 1), got {g.delta!r}")
        if g.neighbours not in NEIGHBOUR_RELATIONS:
            problems.append(f"neighbours must be one of {NEIGHBOUR_RELATIONS}, got {g.neighbours!r}")
        if tags["pure"] is not None and bool(tags["pure"]) != (g.delta == 0):
            problems.append(f"tag pure={tags['pure']} contradicts delta={g.delta!r}")
        if tags["add_remove"] is not None and bool(tags["add_remove"]) != (g.neighbours == "add_remove"):
            problems.append(f"tag add_remove={tags['add_remove']} contradicts neighbours={g.neighbours!r}")
    for method in ("__call__", "sample"):
        if not callable(getattr(estimator, method, None)):
            problems.append(f"the estimator has no callable {method}")
    if problems:
        return _result(name, estimator, "violated", "; ".join(problems), t0=t0, seed=seed)
    return _result(name, estimator, "consistent", f"declares {g}", t0=t0, seed=seed, claim=g.claim())


def _draws(estimator, data, s, k=5):
    """``k`` releases of ``sample`` and ``k`` successive ``__call__`` releases, each from a generator seeded ``s``."""
    a = np.asarray(estimator.sample(data, k, rng=np.random.default_rng(s)), dtype=float)
    g = np.random.default_rng(s)
    b = np.stack([np.asarray(estimator(data, rng=g), dtype=float) for _ in range(k)])
    return a, b


def check_reproducible(
    estimator: Any, *, data: Any = None, profile: str | None = None, seed: int | None = None
) -> CheckResult:
    """Releases are a function of ``rng`` alone: the same seed gives identical ``sample`` and ``__call__`` output.

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
    name, t0 = "check_reproducible", time.perf_counter()
    tags, profile, seed, rng, data = _context(estimator, name, data, profile, seed)
    s = int(rng.integers(2**62))
    a1, b1 = _draws(estimator, data, s)
    a2, b2 = _draws(estimator, data, s)
    bad = [w for w, x, y in (("sample", a1, a2), ("__call__", b1, b2)) if not np.array_equal(x, y, equal_nan=True)]
    if bad:
        return _result(
            name,
            estimator,
            "violated",
            f"{' and '.join(bad)} differ between two runs seeded with {s} "
            "(the estimator draws from a generator other than rng)",
            t0=t0,
            seed=seed,
        )
    return _result(
        name, estimator, "consistent", "same seed, identical releases (sample and __call__)", t0=t0, seed=seed
    )


def check_seeds_differ(
    estimator: Any, *, data: Any = None, profile: str | None = None, seed: int | None = None
) -> CheckResult:
    """Different seeds give different releases (the noise is drawn from ``rng``, not fixed): 20 releases of
    ``sample`` and 20 of ``__call__`` per seed, so that a release with few outcomes (a bit, an index, a count)
    repeats by chance with probability at most ``p_max**20`` (a bit at ε = 1: 0.73**20 ≈ 2e-3).

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
    name, t0 = "check_seeds_differ", time.perf_counter()
    tags, profile, seed, rng, data = _context(estimator, name, data, profile, seed)
    s1, s2 = (int(v) for v in rng.integers(2**62, size=2))
    a1, b1 = _draws(estimator, data, s1, 20)
    a2, b2 = _draws(estimator, data, s2, 20)
    same = [w for w, x, y in (("sample", a1, a2), ("__call__", b1, b2)) if np.array_equal(x, y, equal_nan=True)]
    if len(a1) > 1 and np.all(a1 == a1[:1]):
        same.append("the releases of one sample call")
    if same:
        return _result(
            name,
            estimator,
            "violated",
            f"{' and '.join(same)} are identical across seeds {s1}, {s2} (no randomness from rng)",
            t0=t0,
            seed=seed,
        )
    return _result(name, estimator, "consistent", "different seeds, different releases", t0=t0, seed=seed)


def check_no_global_rng(
    estimator: Any, *, data: Any = None, profile: str | None = None, seed: int | None = None
) -> CheckResult:
    """Neither ``numpy.random``'s global state nor Python's ``random`` module is read or advanced.

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
    name, t0 = "check_no_global_rng", time.perf_counter()
    tags, profile, seed, rng, data = _context(estimator, name, data, profile, seed)
    np_before, py_before = np.random.get_state(), random.getstate()  # noqa: NPY002 - detects use of the global RNG
    estimator.sample(data, 5, rng=rng)
    estimator(data, rng=rng)
    np_after, py_after = np.random.get_state(), random.getstate()  # noqa: NPY002 - detects use of the global RNG
    moved = []
    if not (
        np_before[0] == np_after[0] and np.array_equal(np_before[1], np_after[1]) and np_before[2:] == np_after[2:]
    ):
        moved.append("numpy.random's global state")
    if py_before != py_after:
        moved.append("Python's random module")
    if moved:
        return _result(
            name,
            estimator,
            "violated",
            f"{' and '.join(moved)} advanced during sample/__call__ (draw from the rng argument only)",
            t0=t0,
            seed=seed,
        )
    return _result(name, estimator, "consistent", "global generators untouched", t0=t0, seed=seed)
