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
"""
from __future__ import annotations

import hashlib
import inspect
import math
import os
import random
import time
import warnings
from functools import partial

import numpy as np

from .claims import NEIGHBOUR_RELATIONS
from .registry import PROFILES
from .results import CheckResult

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

#: Tags and their defaults. ``output``: "scalar", "vector" or "auto" (shape taken from a release on the default
#: data); ``output_shape``: ``callable(data) -> tuple`` overriding it; ``pure`` / ``add_remove``: ``None`` = read from
#: ``privacy`` (δ == 0; neighbours == "add_remove"), else a declaration the guarantee must agree with;
#: ``data``: ``callable(rng) -> dataset`` (default: 200 Student-t(3) draws); ``input_ndim``: accepted ``ndim`` of
#: the data; ``min_samples``: smallest number of records the extreme-input check generates; ``bound``: a public
#: bound on the records (adds ±bound rows to the generated neighbours); ``neighbours``: ``callable(relation) ->
#: pairs`` replacing the generated neighbours, or a dict of extra ``dataset_patterns`` arguments (``max_pairs``...);
#: ``worst_case_pairs``: ``callable(data) -> pairs``; ``reference``: ``callable(data) -> array`` (the non-private
#: counterpart); ``noise_off``: ``callable(data) -> estimator`` with the noise switched off (hyper-parameters that
#: depend on n fixed at this data's values); ``reference_tol``: absolute
#: tolerance of that comparison; ``invalid_params``: ``{name: [bad values]}`` added to the built-in ones;
#: ``expensive``: one release costs milliseconds (smaller Monte Carlo sizes); ``xfail``: ``{check: reason}``.
DEFAULT_TAGS = {
    "output": "auto",
    "output_shape": None,
    "pure": None,
    "add_remove": None,
    "data": None,
    "input_ndim": (1, 2),
    "min_samples": 2,
    "bound": None,
    "neighbours": None,
    "worst_case_pairs": None,
    "reference": None,
    "noise_off": None,
    "reference_tol": 1e-6,
    "invalid_params": None,
    "expensive": False,
    "xfail": None,
}

#: built-in out-of-range values tried for constructor parameters of these names (when the estimator has them)
_BAD_PARAMS = {
    "epsilon": (0.0, -1.0, float("nan"), float("inf")),
    "delta": (-0.1, 1.0, 1.5, float("nan")),
    "rho": (0.0, -1.0, float("nan")),
}

# sizes per profile: (quick, full)
_SIZES = {
    "agree": (400, 2000),          # releases per side of the __call__ / sample comparison
    "agree_expensive": (100, 600),
    "batches": (30, 100),          # dispersion test: batches x batch size
    "batch": (200, 500),
    "batch_expensive": (40, 200),
    "audit": (20_000, 200_000),    # certification releases per side
    "audit_expensive": (1_500, 30_000),
    "search_expensive": (1_000, 20_000),  # pair-search releases per side (expensive estimators; else audit's default)
    "select_expensive": (500, 5_000),
    "examples": (25, 200),         # hypothesis examples
}
_ALPHA = 0.01  # family-wise α of each statistical check

_PROFILE_OVERRIDE: list = []  # set by the pytest plugin (htdp_verify.testing) to the --htdp-profile choice


def _profile(profile) -> str:
    if profile is None:
        profile = _PROFILE_OVERRIDE[-1] if _PROFILE_OVERRIDE else os.environ.get("HTDP_PROFILE", "quick")
    profile = str(getattr(profile, "name", profile))
    if profile not in PROFILES:
        raise ValueError(f"profile must be one of {PROFILES}, got {profile!r}")
    return profile


def _size(key: str, profile: str, tags: dict) -> int:
    if tags.get("expensive") and f"{key}_expensive" in _SIZES:
        key = f"{key}_expensive"
    return _SIZES[key][profile == "full"]


# ---------------------------------------------------------------------------------------------------------
# tags, ids, data
# ---------------------------------------------------------------------------------------------------------
def get_tags(estimator) -> dict:
    """The estimator's declared properties: ``estimator._dp_tags`` then ``estimator.dp_tags()`` over the defaults."""
    declared = {}
    if isinstance(getattr(estimator, "_dp_tags", None), dict):
        declared.update(estimator._dp_tags)
    if callable(getattr(estimator, "dp_tags", None)):
        declared.update(estimator.dp_tags() or {})
    unknown = sorted(set(declared) - set(DEFAULT_TAGS))
    if unknown:
        raise ValueError(f"unknown DP tags {unknown}; accepted tags: {sorted(DEFAULT_TAGS)}")
    tags = {**DEFAULT_TAGS, **declared}
    if tags["output"] not in ("auto", "scalar", "vector"):
        raise ValueError(f"tag output must be 'auto', 'scalar' or 'vector', got {tags['output']!r}")
    return tags


def xfail_checks(estimator) -> dict:
    """``{check name: reason}`` of the checks the estimator declares as expected failures."""
    out = dict(getattr(estimator, "_xfail_checks", None) or {})
    out.update(get_tags(estimator).get("xfail") or {})
    for k, v in out.items():
        if not isinstance(v, str) or not v.strip():
            raise ValueError(f"expected failure {k!r} needs a reason (a non-empty string), got {v!r}")
    return out


def _fmt_value(v) -> str:
    a = np.asarray(v) if isinstance(v, (np.ndarray, np.generic)) else None
    if a is not None:
        return f"{a.item():.4g}" if a.ndim == 0 else np.array2string(a, precision=3, separator=",", threshold=4)
    return f"{v:.4g}" if isinstance(v, float) else repr(v)


def _init_params(estimator) -> dict:
    """Constructor parameters recovered from same-named attributes (scikit-learn's ``get_params`` convention)."""
    out = {}
    for name, p in inspect.signature(type(estimator).__init__).parameters.items():
        if name == "self" or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            continue
        if hasattr(estimator, name) and not callable(getattr(estimator, name)):
            out[name] = getattr(estimator, name)
    return out


def estimator_id(estimator) -> str:
    """``ClassName(param=value, ...)`` with the parameters that differ from their defaults (test ids)."""
    parts = []
    sig = inspect.signature(type(estimator).__init__).parameters
    for name, value in _init_params(estimator).items():
        default = sig[name].default
        try:
            same = default is not inspect.Parameter.empty and bool(np.all(np.asarray(value) == np.asarray(default)))
        except (TypeError, ValueError):
            same = False
        if not same:
            parts.append(f"{name}={_fmt_value(value)}")
    return f"{type(estimator).__name__}({', '.join(parts)})"


def _seed(text: str) -> int:
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "little") >> 1


def _default_data(estimator, tags: dict, rng: np.random.Generator):
    if tags["data"] is not None:
        return np.asarray(tags["data"](rng), dtype=float)
    return rng.standard_t(3.0, size=200)


def _release_shape(estimator, tags: dict, data) -> tuple:
    if tags["output_shape"] is not None:
        return tuple(tags["output_shape"](data))
    if tags["output"] == "scalar":
        return ()
    if tags["output"] == "vector":
        return tuple(np.asarray(data).shape[1:]) or (1,)
    return None  # "auto": compared with a release on the default data


def _result(name, estimator, verdict, summary, *, t0, seed, alpha=0.0, statistic="", estimate=float("nan"),
            n_samples=0, details=None, claim=None) -> CheckResult:
    return CheckResult(name=f"{name}[{estimator_id(estimator)}]", verdict=verdict, statistic=statistic,
                       estimate=float(estimate), alpha=alpha, n_samples=int(n_samples), seed=seed,
                       seconds=time.perf_counter() - t0, summary=summary, details=details or {}, claim=claim)


def _context(estimator, name, data, profile, seed):
    tags = get_tags(estimator)
    profile = _profile(profile)
    seed = _seed(f"{estimator_id(estimator)}-{name}") if seed is None else int(seed)
    rng = np.random.default_rng(seed)
    if data is None:
        data = _default_data(estimator, tags, np.random.default_rng(_seed(f"{estimator_id(estimator)}-data")))
    return tags, profile, seed, rng, data


# ---------------------------------------------------------------------------------------------------------
# the checks
# ---------------------------------------------------------------------------------------------------------
def check_guarantee_well_formed(estimator, *, data=None, profile=None, seed=None) -> CheckResult:
    """``privacy`` is a PrivacyGuarantee: finite ε > 0, δ in [0, 1), a known neighbour relation; the ``pure`` and
    ``add_remove`` tags, when declared, agree with it."""
    from .privacy import PrivacyGuarantee

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


def check_call_matches_sample(estimator, *, data=None, profile=None, seed=None) -> CheckResult:
    """``__call__`` and ``sample`` agree in distribution: two-sample Kolmogorov–Smirnov tests on up to five
    coordinates and the ℓ2 norm of m releases each, Bonferroni at α = 0.01 in all.

    Design: with ``c`` the asymptotic KS critical value at α/(#features), a true CDF gap D ≥ c + 0.84·½·√(2/m)
    is detected with power ≥ 0.8 (the empirical CDF difference at the gap's point has sd ≤ ½·√(2/m)); m = 400
    (quick) and six features give D ≈ 0.17 (``details["min_detectable_gap"]``)."""
    from scipy import stats

    name, t0 = "check_call_matches_sample", time.perf_counter()
    tags, profile, seed, rng, data = _context(estimator, name, data, profile, seed)
    m = _size("agree", profile, tags)
    r_call = np.stack([np.asarray(estimator(data, rng=rng), dtype=float) for _ in range(m)])
    r_sample = np.asarray(estimator.sample(data, m, rng=rng), dtype=float)
    if r_call.shape != r_sample.shape:
        return _result(name, estimator, "violated", f"__call__ releases stack to {r_call.shape} but sample returns "
                       f"{r_sample.shape}", t0=t0, seed=seed, n_samples=2 * m)
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
    summary = (f"{worst['feature']}: KS D={worst['ks']:.3g}, p={worst['p_value']:.3g} vs alpha/{k}={_ALPHA / k:.3g} "
               f"({m} releases each; detects a CDF gap >= {min_gap:.3g} with power >= 0.8)")
    return _result(name, estimator, verdict, summary, t0=t0, seed=seed, alpha=_ALPHA, statistic="ks_statistic",
                   estimate=worst["ks"], n_samples=2 * m, details={"features": rows, "min_detectable_gap": min_gap})


def check_releases_independent(estimator, *, data=None, profile=None, seed=None) -> CheckResult:
    """``sample`` releases are i.i.d.: :func:`htdp_verify.privacy.check_independent_releases` at α = 0.01."""
    from .privacy.independence import check_independent_releases

    name, t0 = "check_releases_independent", time.perf_counter()
    tags, profile, seed, rng, data = _context(estimator, name, data, profile, seed)
    res = check_independent_releases(estimator, data, n_batches=_size("batches", profile, tags),
                                     batch_size=_size("batch", profile, tags), alpha=_ALPHA, rng=rng)
    out = _result(name, estimator, res.verdict, res.summary, t0=t0, seed=seed, alpha=res.alpha,
                  statistic=res.statistic, estimate=res.estimate, n_samples=res.n_samples, details=res.details)
    return out


def _draws(estimator, data, s):
    a = np.asarray(estimator.sample(data, 5, rng=np.random.default_rng(s)), dtype=float)
    b = np.asarray(estimator(data, rng=np.random.default_rng(s)), dtype=float)
    return a, b


def check_reproducible(estimator, *, data=None, profile=None, seed=None) -> CheckResult:
    """Releases are a function of ``rng`` alone: the same seed gives identical ``sample`` and ``__call__`` output."""
    name, t0 = "check_reproducible", time.perf_counter()
    tags, profile, seed, rng, data = _context(estimator, name, data, profile, seed)
    s = int(rng.integers(2**62))
    a1, b1 = _draws(estimator, data, s)
    a2, b2 = _draws(estimator, data, s)
    bad = [w for w, x, y in (("sample", a1, a2), ("__call__", b1, b2)) if not np.array_equal(x, y, equal_nan=True)]
    if bad:
        return _result(name, estimator, "violated", f"{' and '.join(bad)} differ between two runs seeded with {s} "
                       "(the estimator draws from a generator other than rng)", t0=t0, seed=seed)
    return _result(name, estimator, "consistent", "same seed, identical releases (sample and __call__)", t0=t0,
                   seed=seed)


def check_seeds_differ(estimator, *, data=None, profile=None, seed=None) -> CheckResult:
    """Different seeds give different releases (the noise is drawn from ``rng``, not fixed)."""
    name, t0 = "check_seeds_differ", time.perf_counter()
    tags, profile, seed, rng, data = _context(estimator, name, data, profile, seed)
    s1, s2 = (int(v) for v in rng.integers(2**62, size=2))
    a1, b1 = _draws(estimator, data, s1)
    a2, b2 = _draws(estimator, data, s2)
    same = [w for w, x, y in (("sample", a1, a2), ("__call__", b1, b2)) if np.array_equal(x, y, equal_nan=True)]
    if len(a1) > 1 and np.all(a1 == a1[:1]):
        same.append("the releases of one sample call")
    if same:
        return _result(name, estimator, "violated", f"{' and '.join(same)} are identical across seeds {s1}, {s2} "
                       "(no randomness from rng)", t0=t0, seed=seed)
    return _result(name, estimator, "consistent", "different seeds, different releases", t0=t0, seed=seed)


def check_no_global_rng(estimator, *, data=None, profile=None, seed=None) -> CheckResult:
    """Neither ``numpy.random``'s global state nor Python's ``random`` module is read or advanced."""
    name, t0 = "check_no_global_rng", time.perf_counter()
    tags, profile, seed, rng, data = _context(estimator, name, data, profile, seed)
    np_before, py_before = np.random.get_state(), random.getstate()
    estimator.sample(data, 5, rng=rng)
    estimator(data, rng=rng)
    np_after, py_after = np.random.get_state(), random.getstate()
    moved = []
    if not (np_before[0] == np_after[0] and np.array_equal(np_before[1], np_after[1])
            and np_before[2:] == np_after[2:]):
        moved.append("numpy.random's global state")
    if py_before != py_after:
        moved.append("Python's random module")
    if moved:
        return _result(name, estimator, "violated", f"{' and '.join(moved)} advanced during sample/__call__ "
                       "(draw from the rng argument only)", t0=t0, seed=seed)
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
        return _result(name, estimator, "violated", "; ".join(failures), t0=t0, seed=seed,
                       details={"cases": [c[0] for c in cases], "failures": failures})
    return _result(name, estimator, "consistent", f"{len(cases)} bad inputs rejected with ValueError: "
                   + ", ".join(c[0] for c in cases), t0=t0, seed=seed, details={"cases": [c[0] for c in cases]})


def _both(estimator, x, rng):
    """Run ``sample`` then ``__call__`` (both must reject)."""
    def run():
        estimator.sample(x, 2, rng=rng)

    def run_call():
        estimator(x, rng=rng)
    return run, run_call


def check_rejects_nonfinite(estimator, *, data=None, profile=None, seed=None) -> CheckResult:
    """NaN, +inf and −inf in one record raise ``ValueError`` in ``sample`` and ``__call__``."""
    name, t0 = "check_rejects_nonfinite", time.perf_counter()
    tags, profile, seed, rng, data = _context(estimator, name, data, profile, seed)
    cases = []
    for v in (float("nan"), float("inf"), float("-inf")):
        x = np.array(data, dtype=float, copy=True)
        x.reshape(-1)[x.size // 2] = v
        run, run_call = _both(estimator, x, rng)
        cases += [(f"{v} in data (sample)", run, None), (f"{v} in data (__call__)", run_call, None)]
    return _expect_value_error(estimator, cases, name, t0, seed)


def check_rejects_empty(estimator, *, data=None, profile=None, seed=None) -> CheckResult:
    """Data with no records raise ``ValueError``."""
    name, t0 = "check_rejects_empty", time.perf_counter()
    tags, profile, seed, rng, data = _context(estimator, name, data, profile, seed)
    x = np.empty((0,) + np.asarray(data).shape[1:])
    run, run_call = _both(estimator, x, rng)
    return _expect_value_error(estimator, [("empty data (sample)", run, None), ("empty data (__call__)", run_call, None)],
                               name, t0, seed)


def check_rejects_wrong_shape(estimator, *, data=None, profile=None, seed=None) -> CheckResult:
    """Data whose ``ndim`` is not in the ``input_ndim`` tag (a scalar, a 3-d array) raise ``ValueError``."""
    name, t0 = "check_rejects_wrong_shape", time.perf_counter()
    tags, profile, seed, rng, data = _context(estimator, name, data, profile, seed)
    x = np.asarray(data, dtype=float)
    cases = []
    for nd in (0, 1, 2, 3):
        if nd in tags["input_ndim"]:
            continue
        bad = (np.float64(1.0) if nd == 0 else x.reshape(x.shape + (1,) * (nd - x.ndim)) if x.ndim < nd
               else x.reshape(x.shape[:nd - 1] + (-1,)))
        run, run_call = _both(estimator, bad, rng)
        cases += [(f"{nd}-d data (sample)", run, None), (f"{nd}-d data (__call__)", run_call, None)]
    return _expect_value_error(estimator, cases, name, t0, seed)


def check_rejects_bad_parameters(estimator, *, data=None, profile=None, seed=None) -> CheckResult:
    """Rebuilding the estimator with an out-of-range ε, δ or ρ (those it has) or a declared ``invalid_params``
    value raises a ``ValueError`` whose message names the parameter."""
    name, t0 = "check_rejects_bad_parameters", time.perf_counter()
    tags = get_tags(estimator)
    params = _init_params(estimator)
    cls = type(estimator)
    try:
        cls(**params)
    except Exception as exc:  # noqa: BLE001
        return _result(name, estimator, "error", f"cannot rebuild the estimator from its attributes ({exc}); declare "
                       "the constructor parameters as same-named attributes", t0=t0, seed=seed)
    bad = {k: list(v) for k, v in _BAD_PARAMS.items() if k in params}
    for k, vals in (tags["invalid_params"] or {}).items():
        bad.setdefault(k, []).extend(vals)
    cases = [(f"{k}={v!r}", partial(cls, **{**params, k: v}), k) for k, vals in bad.items() for v in vals]
    if not cases:
        return _result(name, estimator, "info", "no parameter with a known range (declare the invalid_params tag)",
                       t0=t0, seed=seed)
    return _expect_value_error(estimator, cases, name, t0, seed)


def check_extreme_inputs(estimator, *, data=None, profile=None, seed=None) -> CheckResult:
    """Releases are finite and of the declared shape on heavy-tailed data (any law of tail index ≥ 0.5) with one
    record replaced by a huge (1e6, 1e12), tiny (0, subnormal) or negated value (hypothesis, derandomised)."""
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import strategies as st

    from .strategies import datasets, neighbouring_pairs

    name, t0 = "check_extreme_inputs", time.perf_counter()
    tags, profile, seed, rng, data = _context(estimator, name, data, profile, seed)
    x = np.asarray(data, dtype=float)
    d = x.shape[1] if x.ndim == 2 else None
    ref_shape = np.asarray(estimator(x, rng=rng)).shape
    n_lo = max(2, int(tags["min_samples"]))
    strategy = neighbouring_pairs(datasets(st.integers(n_lo, max(n_lo, 60)), d), relation="replace",
                                  kinds=("huge", "tiny", "negative"))
    seen: dict = {}

    @settings(max_examples=_size("examples", profile, tags), deadline=None, database=None, derandomize=True,
              suppress_health_check=list(HealthCheck), print_blob=False,
              phases=(Phase.explicit, Phase.generate))  # no shrinking: the first failing example is reported
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
        where = "" if ex is None else (f" on n={ex.data.shape[0]} records, row {ex.index} -> {ex.kind} "
                                       f"({_fmt_value(np.asarray(ex.neighbour)[ex.index])})")
        return _result(name, estimator, "violated", f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
                       f"{where}", t0=t0, seed=seed, n_samples=_size("examples", profile, tags))
    return _result(name, estimator, "consistent", f"finite releases of shape {ref_shape if tags['output_shape'] is None else 'as declared'} on "
                   f"{_size('examples', profile, tags)} heavy-tailed data sets with an extreme record",
                   t0=t0, seed=seed, n_samples=_size("examples", profile, tags))


def _audit_result(name, estimator, res, t0, seed) -> CheckResult:
    text = res.summary
    if res.verdict == "violated":
        text += f"; pair: {res.pair.get('text', '')}; event: {res.event}"
    return _result(name, estimator, res.verdict, text, t0=t0, seed=seed, alpha=res.alpha, statistic="epsilon_lb",
                   estimate=res.estimate, n_samples=res.n_samples, details=res.details, claim=res.claim)


def _expensive_sizes(profile, tags) -> dict:
    if not tags.get("expensive"):
        return {}
    return {"n_search": _size("search_expensive", profile, tags), "n_select": _size("select_expensive", profile, tags)}


def check_privacy_audit(estimator, *, data=None, profile=None, seed=None) -> CheckResult:
    """:func:`~htdp_verify.privacy.audit` at the declared claim on generated neighbours of the data (the engine's
    held-out pair search over ``dataset_patterns``: a record moved to the data's extremes / to ±c·bound,
    duplicated), α = 0.05; 20 000 certification releases per side under the quick profile."""
    from .privacy import audit

    name, t0 = "check_privacy_audit", time.perf_counter()
    tags, profile, seed, rng, data = _context(estimator, name, data, profile, seed)
    neighbours = tags["neighbours"]
    if neighbours is None or isinstance(neighbours, dict):
        neighbours = {"data": data, "bound": tags["bound"], **(neighbours or {})}
    res = audit(estimator, estimator.privacy, neighbours=neighbours, n_samples=_size("audit", profile, tags),
                alpha=0.05, rng=rng, name=name, **_expensive_sizes(profile, tags))
    return _audit_result(name, estimator, res, t0, seed)


def check_privacy_worst_case_pairs(estimator, *, data=None, profile=None, seed=None) -> CheckResult:
    """:func:`~htdp_verify.privacy.audit` at the declared claim on the pairs of the ``worst_case_pairs`` tag."""
    from .privacy import audit

    name, t0 = "check_privacy_worst_case_pairs", time.perf_counter()
    tags, profile, seed, rng, data = _context(estimator, name, data, profile, seed)
    pairs = tags["worst_case_pairs"](data)
    res = audit(estimator, estimator.privacy, pairs=pairs, n_samples=_size("audit", profile, tags), alpha=0.05,
                rng=rng, name=name, **_expensive_sizes(profile, tags))
    return _audit_result(name, estimator, res, t0, seed)


def check_noise_off_reference(estimator, *, data=None, profile=None, seed=None) -> CheckResult:
    """With the noise switched off (tag ``noise_off``) every release equals the declared non-private reference
    (tag ``reference``) within ``reference_tol``, on the data and on two rescalings of it."""
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
    return _result(name, estimator, verdict, f"largest |release - reference| = {worst:.3g} (tolerance "
                   f"{tags['reference_tol']:g}) with the noise off", t0=t0, seed=seed, statistic="max_abs_gap",
                   estimate=worst, details={"cases": rows})


# ---------------------------------------------------------------------------------------------------------
# selection and drivers
# ---------------------------------------------------------------------------------------------------------
_ALWAYS = (check_guarantee_well_formed, check_call_matches_sample, check_releases_independent, check_reproducible,
           check_seeds_differ, check_no_global_rng, check_rejects_nonfinite, check_rejects_empty,
           check_rejects_wrong_shape, check_rejects_bad_parameters, check_extreme_inputs, check_privacy_audit)


def check_selection(estimator) -> dict:
    """``{check name: None if selected, else the reason it does not apply}`` for every check of this module."""
    tags = get_tags(estimator)
    out = {f.__name__: None for f in _ALWAYS}
    out["check_privacy_worst_case_pairs"] = None if tags["worst_case_pairs"] else "no worst_case_pairs tag declared"
    out["check_noise_off_reference"] = (None if tags["noise_off"] and tags["reference"] else
                                        "no noise_off and reference tags declared")
    if set(tags["input_ndim"]) >= {0, 1, 2, 3}:
        out["check_rejects_wrong_shape"] = "input_ndim accepts every ndim tried"
    return out


def dp_checks(estimator):
    """Yield ``(name, check)`` for the checks selected by the estimator's tags (``check(estimator, **kw)``)."""
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
        res = _result(fn.__name__, estimator, "error", f"{type(exc).__name__}: {exc}", t0=t0, seed=seed,
                      details={"error": f"{type(exc).__name__}: {exc}"})
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


def check_dp_estimator(estimator, *, data=None, profile=None, on_fail: str = "raise") -> list[CheckResult]:
    """Run every selected check on ``estimator`` (``profile`` "quick"/"full"; default the pytest option or
    ``$HTDP_PROFILE`` or "quick") and return their :class:`CheckResult` s.

    Declared expected failures get ``expected="violated"``: they must fail (an error counts as failing), and pass
    if they do. With ``on_fail="raise"`` (default) an ``AssertionError`` lists every check that did not meet its
    expectation; ``on_fail="return"`` only returns the results."""
    if on_fail not in ("raise", "return"):
        raise ValueError(f"on_fail must be 'raise' or 'return', got {on_fail!r}")
    xf = xfail_checks(estimator)
    results, bad = [], []
    for nm, fn in dp_checks(estimator):
        res = _run_one(fn, estimator, data=data, profile=profile)
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


def parametrize_with_dp_checks(estimators, *, data=None, profile=None):
    """``pytest.mark.parametrize("estimator, check", ...)`` over every selected check of every estimator.

    Ids read ``ClippedMeanLaplace(epsilon=1, ...)-check_reproducible``; a declared expected failure becomes
    ``pytest.mark.xfail(strict=True, reason=...)``. Use::

        @parametrize_with_dp_checks([MyEstimator(epsilon=1.0)])
        def test_dp_contract(estimator, check):
            check(estimator)
    """
    import pytest

    params = []
    for est in estimators:
        xf = xfail_checks(est)
        for nm, fn in dp_checks(est):
            marks = [pytest.mark.xfail(strict=True, reason=xf[nm])] if nm in xf else []
            params.append(pytest.param(est, _Check(fn, data, profile), id=f"{estimator_id(est)}-{nm}", marks=marks))
    return pytest.mark.parametrize("estimator, check", params)
