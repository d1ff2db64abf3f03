"""Contract checks for any DP estimator, chosen from its declared properties (after scikit-learn's estimator checks).

An estimator (ARCHITECTURE "Estimators") fixes its hyper-parameters at construction, declares ``privacy`` (a
:class:`~htdp_verify.privacy.PrivacyGuarantee`) and offers ``__call__(data, *, rng)`` and
``sample(data, size, *, rng)``. :func:`dp_checks` yields small, named, individually runnable checks for it; each
returns a :class:`~htdp_verify.results.CheckResult` (``"violated"`` = the contract is broken):

========================================  =================================================================
check                                     what it tests (selected when)
========================================  =================================================================
``check_guarantee_well_formed``           ``privacy`` is a PrivacyGuarantee with finite ε > 0, δ in [0, 1), a
                                          neighbour relation, and agrees with the ``pure`` / ``add_remove`` tags
``check_call_matches_sample``             ``__call__`` and ``sample`` releases have the same law (two-sample KS)
``check_releases_independent``            ``sample`` releases are i.i.d. (the engine's dispersion test)
``check_reproducible``                    same seed -> identical releases (``__call__`` and ``sample``)
``check_seeds_differ``                    different seeds -> different releases
``check_no_global_rng``                   neither numpy's nor Python's global generator is touched
``check_rejects_nonfinite``               NaN / inf in the data raise ``ValueError``
``check_rejects_empty``                   empty data raise ``ValueError``
``check_rejects_wrong_shape``             data of an unaccepted ``ndim`` raise ``ValueError``
``check_rejects_bad_parameters``          out-of-range constructor parameters raise ``ValueError`` naming them
``check_extreme_inputs``                  releases are finite and of the declared shape on heavy-tailed data and
                                          huge / tiny / negative records (hypothesis, :mod:`htdp_verify.strategies`)
``check_privacy_audit``                   :func:`~htdp_verify.privacy.audit` at the declared claim on generated
                                          neighbours of the data (the pair search)
``check_privacy_worst_case_pairs``        the same on the estimator's declared worst-case pairs (tag given)
``check_noise_off_reference``             with the noise switched off the releases equal the declared
                                          non-private reference (tags ``noise_off`` and ``reference`` given)
========================================  =================================================================

Declared properties (tags) come from an optional ``dp_tags()`` method or a ``_dp_tags`` dict on the estimator,
merged over :data:`DEFAULT_TAGS` (see :func:`get_tags`). Expected failures are declared in ``_xfail_checks`` (or
the ``xfail`` tag): ``{check name: reason}``; they are run all the same, and must fail (scikit-learn's
``_xfail_checks``; under pytest they become ``xfail(strict=True)``). Nothing is skipped silently: a check that
does not apply is not yielded, and :func:`dp_checks` documents why in :func:`check_selection`.

Statistical checks state their α and what they detect in the result's ``summary`` / ``details``; every check draws
from a generator seeded from the estimator's id and the check's name (``seed=`` overrides), so a run is exactly
reproducible.

Modules: :mod:`.tags` (declared properties, ids, sizes), :mod:`.checks` (well-formedness and reproducibility
checks; re-exports all checks), :mod:`.statistical_checks` (same law, independence), :mod:`.input_checks` (bad and
extreme inputs), :mod:`.privacy_checks` (audits, noise-off reference); this module selects and drives them.
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from ..results import CheckResult
from .checks import (
    check_call_matches_sample,
    check_extreme_inputs,
    check_guarantee_well_formed,
    check_no_global_rng,
    check_noise_off_reference,
    check_privacy_audit,
    check_privacy_worst_case_pairs,
    check_rejects_bad_parameters,
    check_rejects_empty,
    check_rejects_nonfinite,
    check_rejects_wrong_shape,
    check_releases_independent,
    check_reproducible,
    check_seeds_differ,
)
from .tags import _PROFILE_OVERRIDE, DEFAULT_TAGS, _result, _seed, estimator_id, get_tags, xfail_checks  # noqa: F401

__all__ = [
    "DEFAULT_TAGS",
    "get_tags",
    "xfail_checks",
    "estimator_id",
    "dp_checks",
    "check_selection",
    "check_dp_estimator",
    "parametrize_with_dp_checks",
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


# ---------------------------------------------------------------------------------------------------------
# selection and drivers
# ---------------------------------------------------------------------------------------------------------
_ALWAYS = (
    check_guarantee_well_formed,
    check_call_matches_sample,
    check_releases_independent,
    check_reproducible,
    check_seeds_differ,
    check_no_global_rng,
    check_rejects_nonfinite,
    check_rejects_empty,
    check_rejects_wrong_shape,
    check_rejects_bad_parameters,
    check_extreme_inputs,
    check_privacy_audit,
)


def check_selection(estimator: Any) -> dict:
    """``{check name: None if selected, else the reason it does not apply}`` for every check of this module.

    Parameters
    ----------
    estimator : object
        The DP estimator.

    Returns
    -------
    dict
        ``{check name: None or the reason it does not apply}``.
    """
    tags = get_tags(estimator)
    out = {f.__name__: None for f in _ALWAYS}
    out["check_privacy_worst_case_pairs"] = None if tags["worst_case_pairs"] else "no worst_case_pairs tag declared"
    out["check_noise_off_reference"] = (
        None if tags["noise_off"] and tags["reference"] else "no noise_off and reference tags declared"
    )
    if set(tags["input_ndim"]) >= {0, 1, 2, 3}:
        out["check_rejects_wrong_shape"] = "input_ndim accepts every ndim tried"
    return out


def dp_checks(estimator: Any) -> Iterator[tuple[str, Callable[..., Any]]]:
    """Yield ``(name, check)`` for the checks selected by the estimator's tags (``check(estimator, **kw)``).

    Parameters
    ----------
    estimator : object
        The DP estimator.
    """
    sel = check_selection(estimator)
    for f in _ALWAYS + (check_privacy_worst_case_pairs, check_noise_off_reference):
        if sel[f.__name__] is None:
            yield f.__name__, f


def _passes(res: CheckResult) -> bool:
    return res.verdict in ("consistent", "inconclusive", "info")


def _run_one(fn, estimator, *, data=None, profile=None, seed=None) -> CheckResult:
    t0 = time.perf_counter()
    try:
        res = fn(estimator, data=data, profile=profile, seed=seed)
    except Exception as exc:  # noqa: BLE001 - an exception inside a check is the check's result
        res = _result(
            fn.__name__,
            estimator,
            "error",
            f"{type(exc).__name__}: {exc}",
            t0=t0,
            seed=seed,
            details={"error": f"{type(exc).__name__}: {exc}"},
        )
    if res.verdict == "inconclusive":
        warnings.warn(f"{res.name}: inconclusive: {res.summary}", UserWarning, stacklevel=3)
    return res


class _Check:
    """A named, picklable check ``check(estimator)`` that raises ``AssertionError`` unless the contract holds."""

    def __init__(self, fn, data=None, profile=None):
        self.fn, self.data, self.profile = fn, data, profile
        self.__name__ = fn.__name__

    def __call__(self, estimator, *, seed=None) -> CheckResult:
        res = _run_one(self.fn, estimator, data=self.data, profile=self.profile, seed=seed)
        if not _passes(res):
            raise AssertionError(f"{res}\n  seed: {res.seed}")
        return res

    def __repr__(self) -> str:
        return self.__name__


def check_dp_estimator(
    estimator: Any, *, data: Any = None, profile: str | None = None, on_fail: str = "raise", seed: int | None = None
) -> list[CheckResult]:
    """Run every selected check on ``estimator`` and return their :class:`~htdp_verify.CheckResult` s.

    Each check draws from its own seed, derived from the estimator's id and the check's name, or from ``seed`` and
    the check's name when ``seed`` is given (to re-draw every check, e.g. when measuring false-failure rates).

    Declared expected failures get ``expected="violated"``: they must fail (an error counts as failing), and pass
    if they do.

    Parameters
    ----------
    estimator : object
        A DP estimator: a ``privacy`` guarantee, ``__call__(data, *, rng)`` and ``sample(data, size, *, rng)``.
    data : array_like, optional
        The dataset the checks run on (default: one generated from the estimator's declared tags).
    profile : str, optional
        ``"quick"`` or ``"full"``; default the pytest option, else ``$HTDP_PROFILE``, else ``"quick"``.
    on_fail : str, default "raise"
        ``"raise"``: an ``AssertionError`` lists every check that did not meet its expectation; ``"return"``: only
        return the results.
    seed : int, optional
        Run seed from which every check's seed is derived.

    Returns
    -------
    list of CheckResult
        One result per selected check.
    """
    if on_fail not in ("raise", "return"):
        raise ValueError(f"on_fail must be 'raise' or 'return', got {on_fail!r}")
    xf = xfail_checks(estimator)
    results, bad = [], []
    for nm, fn in dp_checks(estimator):
        s = None if seed is None else _seed(f"{int(seed)}-{nm}")
        res = _run_one(fn, estimator, data=data, profile=profile, seed=s)
        if nm in xf:
            res.expected = "violated"
            res.details["xfail_reason"] = xf[nm]
            if res.verdict not in ("violated", "error"):
                bad.append(f"{res} (declared expected failure did not fail: {xf[nm]})")
        elif not _passes(res):
            bad.append(str(res))
        results.append(res)
    if bad and on_fail == "raise":
        raise AssertionError(f"{estimator_id(estimator)} fails {len(bad)} check(s):\n  " + "\n  ".join(bad))
    return results


def parametrize_with_dp_checks(estimators: Sequence[Any], *, data: Any = None, profile: str | None = None) -> Any:
    """``pytest.mark.parametrize("estimator, check", ...)`` over every selected check of every estimator.

    Ids read ``ClippedMeanLaplace(epsilon=1, ...)-check_reproducible``; a declared expected failure becomes
    ``pytest.mark.xfail(strict=True, reason=...)``. Use::

        @parametrize_with_dp_checks([MyEstimator(epsilon=1.0)])
        def test_dp_contract(estimator, check):
            check(estimator)

    Parameters
    ----------
    estimators : sequence
        The estimators to check.
    data : array_like, optional
        The dataset the checks run on (default: one generated per estimator from its tags).
    profile : str, optional
        ``"quick"`` or ``"full"`` (default: the ``--htdp-profile`` option).

    Returns
    -------
    pytest.MarkDecorator
        The parametrize mark to decorate a test function with.
    """
    import pytest

    params = []
    for est in estimators:
        xf = xfail_checks(est)
        for nm, fn in dp_checks(est):
            marks = [pytest.mark.xfail(strict=True, reason=xf[nm])] if nm in xf else []
            params.append(pytest.param(est, _Check(fn, data, profile), id=f"{estimator_id(est)}-{nm}", marks=marks))
    return pytest.mark.parametrize("estimator, check", params)
