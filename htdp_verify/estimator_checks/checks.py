"""The contract checks themselves (the table in :mod:`htdp_verify.estimator_checks`); each returns a
:class:`~htdp_verify.results.CheckResult` and never raises for a broken contract."""

from __future__ import annotations

import math
import random
import time
import warnings
from functools import partial
from typing import Any

import numpy as np

from ..claims import NEIGHBOUR_RELATIONS
from ..results import CheckResult
from .tags import _ALPHA, _BAD_PARAMS, _context, _fmt_value, _init_params, _release_shape, _result, _size, get_tags

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
    if not tags.get("expensive"):
        return {}
    return {"n_search": _size("search_expensive", profile, tags), "n_select": _size("select_expensive", profile, tags)}


def check_privacy_audit(
    estimator: Any, *, data: Any = None, profile: str | None = None, seed: int | None = None
) -> CheckResult:
    """:func:`~htdp_verify.privacy.audit` at the declared claim on generated neighbours of the data (the engine's
    held-out pair search over ``dataset_patterns``: a record moved to the data's extremes / to ±c·bound,
    duplicated), α = 0.01; 20 000 certification releases per side under the quick profile.

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
