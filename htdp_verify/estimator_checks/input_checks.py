"""The input-handling contract checks: bad data and bad parameters raise ``ValueError``; extreme data give finite
releases of the declared shape.

:func:`check_rejects_nonfinite`, :func:`check_rejects_empty`, :func:`check_rejects_wrong_shape`,
:func:`check_rejects_bad_parameters` and :func:`check_extreme_inputs` (hypothesis-generated heavy-tailed and
huge / tiny / negative records); each returns a :class:`~htdp_verify.results.CheckResult` and never raises for a
broken contract. Re-exported by :mod:`htdp_verify.estimator_checks`, which selects and drives the checks.
"""

from __future__ import annotations

import time
import warnings
from functools import partial
from typing import Any

import numpy as np

from ..results import CheckResult
from .tags import _BAD_PARAMS, _context, _fmt_value, _init_params, _release_shape, _result, _size, get_tags

__all__ = [
    "check_rejects_nonfinite",
    "check_rejects_empty",
    "check_rejects_wrong_shape",
    "check_rejects_bad_parameters",
    "check_extreme_inputs",
]


def _expect_value_error(estimator, cases, name, t0, seed, needle=None) -> CheckResult:
    failures = []
    for label, fn, want in cases:
        try:
            fn()
        except ValueError as exc:
            msg = str(exc)
            if not msg.strip():
                failures.append(f"{label}: ValueError without a message")
            elif want and want.lower() not in msg.lower():
                failures.append(f"{label}: ValueError does not name {want!r}: {msg!r}")
        except Exception as exc:  # noqa: BLE001 - the check reports the wrong exception type
            failures.append(f"{label}: raised {type(exc).__name__} ({exc}) instead of ValueError")
        else:
            failures.append(f"{label}: accepted (no ValueError)")
    if failures:
        return _result(
            name,
            estimator,
            "violated",
            "; ".join(failures),
            t0=t0,
            seed=seed,
            details={"cases": [c[0] for c in cases], "failures": failures},
        )
    return _result(
        name,
        estimator,
        "consistent",
        f"{len(cases)} bad inputs rejected with ValueError: " + ", ".join(c[0] for c in cases),
        t0=t0,
        seed=seed,
        details={"cases": [c[0] for c in cases]},
    )


def _both(estimator, x, rng):
    """Run ``sample`` then ``__call__`` (both must reject)."""

    def run():
        estimator.sample(x, 2, rng=rng)

    def run_call():
        estimator(x, rng=rng)

    return run, run_call


def check_rejects_nonfinite(
    estimator: Any, *, data: Any = None, profile: str | None = None, seed: int | None = None
) -> CheckResult:
    """NaN, +inf and −inf in one record raise ``ValueError`` in ``sample`` and ``__call__``.

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
    name, t0 = "check_rejects_nonfinite", time.perf_counter()
    tags, profile, seed, rng, data = _context(estimator, name, data, profile, seed)
    cases = []
    for v in (float("nan"), float("inf"), float("-inf")):
        x = np.array(data, dtype=float, copy=True)
        x.reshape(-1)[x.size // 2] = v
        run, run_call = _both(estimator, x, rng)
        cases += [(f"{v} in data (sample)", run, None), (f"{v} in data (__call__)", run_call, None)]
    return _expect_value_error(estimator, cases, name, t0, seed)


def check_rejects_empty(
    estimator: Any, *, data: Any = None, profile: str | None = None, seed: int | None = None
) -> CheckResult:
    """Data with no records raise ``ValueError``.

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
    name, t0 = "check_rejects_empty", time.perf_counter()
    tags, profile, seed, rng, data = _context(estimator, name, data, profile, seed)
    x = np.empty((0,) + np.asarray(data).shape[1:])
    run, run_call = _both(estimator, x, rng)
    return _expect_value_error(
        estimator, [("empty data (sample)", run, None), ("empty data (__call__)", run_call, None)], name, t0, seed
    )


def check_rejects_wrong_shape(
    estimator: Any, *, data: Any = None, profile: str | None = None, seed: int | None = None
) -> CheckResult:
    """Data whose ``ndim`` is not in the ``input_ndim`` tag (a scalar, a 3-d array) raise ``ValueError``.

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
    name, t0 = "check_rejects_wrong_shape", time.perf_counter()
    tags, profile, seed, rng, data = _context(estimator, name, data, profile, seed)
    x = np.asarray(data, dtype=float)
    cases = []
    for nd in (0, 1, 2, 3):
        if nd in tags["input_ndim"]:
            continue
        bad = (
            np.float64(1.0)
            if nd == 0
            else x.reshape(x.shape + (1,) * (nd - x.ndim))
            if x.ndim < nd
            else x.reshape(x.shape[: nd - 1] + (-1,))
        )
        run, run_call = _both(estimator, bad, rng)
        cases += [(f"{nd}-d data (sample)", run, None), (f"{nd}-d data (__call__)", run_call, None)]
    return _expect_value_error(estimator, cases, name, t0, seed)


def check_rejects_bad_parameters(
    estimator: Any, *, data: Any = None, profile: str | None = None, seed: int | None = None
) -> CheckResult:
    """Rebuilding the estimator with an out-of-range ε, δ or ρ (those it has) or a declared ``invalid_params``
    value raises a ``ValueError`` whose message names the parameter.

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
    name, t0 = "check_rejects_bad_parameters", time.perf_counter()
    tags = get_tags(estimator)
    params = _init_params(estimator)
    cls = type(estimator)
    try:
        cls(**params)
    except Exception as exc:  # noqa: BLE001
        return _result(
            name,
            estimator,
            "error",
            f"cannot rebuild the estimator from its attributes ({exc}); declare "
            "the constructor parameters as same-named attributes",
            t0=t0,
            seed=seed,
        )
    bad = {k: list(v) for k, v in _BAD_PARAMS.items() if k in params}
    for k, vals in (tags["invalid_params"] or {}).items():
        bad.setdefault(k, []).extend(vals)
    cases = [(f"{k}={v!r}", partial(cls, **{**params, k: v}), k) for k, vals in bad.items() for v in vals]
    if not cases:
        return _result(
            name,
            estimator,
            "info",
            "no parameter with a known range (declare the invalid_params tag)",
            t0=t0,
            seed=seed,
        )
    return _expect_value_error(estimator, cases, name, t0, seed)


def check_extreme_inputs(
    estimator: Any, *, data: Any = None, profile: str | None = None, seed: int | None = None
) -> CheckResult:
    """Releases are finite and of the declared shape on heavy-tailed data (any law of tail index ≥ 0.5) with one
    record replaced by a huge (1e6, 1e12), tiny (0, subnormal) or negated value (hypothesis, derandomised).

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
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import strategies as st

    from ..strategies import datasets, neighbouring_pairs

    name, t0 = "check_extreme_inputs", time.perf_counter()
    tags, profile, seed, rng, data = _context(estimator, name, data, profile, seed)
    x = np.asarray(data, dtype=float)
    d = x.shape[1] if x.ndim == 2 else None
    ref_shape = np.asarray(estimator(x, rng=rng)).shape
    n_lo = max(2, int(tags["min_samples"]))
    strategy = neighbouring_pairs(
        datasets(st.integers(n_lo, max(n_lo, 60)), d), relation="replace", kinds=("huge", "tiny", "negative")
    )
    seen: dict = {}

    @settings(
        max_examples=_size("examples", profile, tags),
        deadline=None,
        database=None,
        derandomize=True,
        suppress_health_check=list(HealthCheck),
        print_blob=False,
        phases=(Phase.explicit, Phase.generate),
    )  # no shrinking: the first failing example is reported
    @given(strategy, st.integers(0, 2**32 - 1))
    def run(pair, s):
        seen["example"] = pair
        for z in (pair.data, pair.neighbour):
            want = _release_shape(estimator, tags, z) or ref_shape
            y = np.asarray(estimator.sample(z, 3, rng=np.random.default_rng(s)), dtype=float)
            assert y.shape == (3,) + tuple(want), f"sample shape {y.shape}, declared (3,) + {tuple(want)}"
            assert np.all(np.isfinite(y)), "non-finite release"
            one = np.asarray(estimator(z, rng=np.random.default_rng(s)), dtype=float)
            assert one.shape == tuple(want), f"__call__ shape {one.shape}, declared {tuple(want)}"
            assert np.all(np.isfinite(one)), "non-finite release from __call__"

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            run()
    except Exception as exc:  # noqa: BLE001 - hypothesis re-raises the (shrunk) failure
        ex = seen.get("example")
        where = (
            ""
            if ex is None
            else (
                f" on n={ex.data.shape[0]} records, row {ex.index} -> {ex.kind} "
                f"({_fmt_value(np.asarray(ex.neighbour)[ex.index])})"
            )
        )
        return _result(
            name,
            estimator,
            "violated",
            f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}{where}",
            t0=t0,
            seed=seed,
            n_samples=_size("examples", profile, tags),
        )
    return _result(
        name,
        estimator,
        "consistent",
        f"finite releases of shape {ref_shape if tags['output_shape'] is None else 'as declared'} on "
        f"{_size('examples', profile, tags)} heavy-tailed data sets with an extreme record",
        t0=t0,
        seed=seed,
        n_samples=_size("examples", profile, tags),
    )
