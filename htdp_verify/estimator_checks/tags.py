"""Declared properties (tags) of a DP estimator, test ids, profile sizes and the shared result helper for
:mod:`htdp_verify.estimator_checks`."""

from __future__ import annotations

import hashlib
import inspect
import os
import time
from typing import Any

import numpy as np

from ..registry import PROFILES
from ..results import CheckResult

__all__ = ["DEFAULT_TAGS", "get_tags", "xfail_checks", "estimator_id"]

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
#: ``expensive``: one release costs milliseconds (smaller Monte Carlo sizes; ``check_privacy_audit`` runs the sequential
#: ``RoundsDesign.per_call()`` design, which stops at the first certified violation or for futility);
#: ``sizes``: ``{size key: (quick, full)}`` overriding the sizes below for an estimator whose release costs tens of
#: milliseconds (keys of ``_SIZES`` without the ``_expensive`` suffix; the checks state the power of the sizes they
#: ran at); ``xfail``: ``{check: reason}``.
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
    "sizes": None,
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
    "agree": (400, 2000),  # releases per side of the __call__ / sample comparison
    "agree_expensive": (100, 600),
    "batches": (30, 100),  # dispersion test: batches x batch size
    "batch": (200, 500),
    "batch_expensive": (40, 200),
    "audit": (20_000, 200_000),  # certification releases per side
    "audit_expensive": (1_500, 30_000),
    "search_expensive": (1_000, 20_000),  # pair-search releases per side (expensive estimators; else audit's default)
    "select_expensive": (500, 5_000),
    "examples": (25, 200),  # hypothesis examples
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
    declared = (tags.get("sizes") or {}).get(key.removesuffix("_expensive"))
    if declared is not None:
        return int(declared[profile == "full"])
    if tags.get("expensive") and f"{key}_expensive" in _SIZES:
        key = f"{key}_expensive"
    return _SIZES[key][profile == "full"]


# ---------------------------------------------------------------------------------------------------------
# tags, ids, data
# ---------------------------------------------------------------------------------------------------------
def get_tags(estimator: Any) -> dict:
    """The estimator's declared properties: ``estimator._dp_tags`` then ``estimator.dp_tags()`` over the defaults.

    Parameters
    ----------
    estimator : object
        The DP estimator.

    Returns
    -------
    dict
        The tags, over :data:`DEFAULT_TAGS`.
    """
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
    keys = {k.removesuffix("_expensive") for k in _SIZES}
    for k, v in (tags["sizes"] or {}).items():
        if k not in keys or len(v) != 2 or not all(isinstance(x, int) and x >= 2 for x in v):
            raise ValueError(
                f"tag sizes must map keys of {sorted(keys)} to (quick, full) integers >= 2, got {k!r}: {v!r}"
            )
    return tags


def xfail_checks(estimator: Any) -> dict:
    """``{check name: reason}`` of the checks the estimator declares as expected failures.

    Parameters
    ----------
    estimator : object
        The DP estimator.

    Returns
    -------
    dict
        ``{check name: reason}``.
    """
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
    """Constructor parameters recovered from same-named attributes (scikit-learn's ``get_params`` convention), or
    from the estimator's ``get_params()`` when it has one (constructors taking ``**kwargs``)."""
    if callable(getattr(estimator, "get_params", None)):
        return dict(estimator.get_params())
    out = {}
    for name, p in inspect.signature(type(estimator).__init__).parameters.items():
        if name == "self" or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            continue
        if hasattr(estimator, name) and not callable(getattr(estimator, name)):
            out[name] = getattr(estimator, name)
    return out


def estimator_id(estimator: Any) -> str:
    """``ClassName(param=value, ...)`` with the parameters that differ from their defaults (test ids).

    Parameters
    ----------
    estimator : object
        The DP estimator.

    Returns
    -------
    str
        The id.
    """
    parts = []
    sig = inspect.signature(type(estimator).__init__).parameters
    for name, value in _init_params(estimator).items():
        default = sig[name].default if name in sig else inspect.Parameter.empty  # a **kwargs entry: always shown
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


def _result(
    name,
    estimator,
    verdict,
    summary,
    *,
    t0,
    seed,
    alpha=0.0,
    statistic="",
    estimate=float("nan"),
    n_samples=0,
    details=None,
    claim=None,
) -> CheckResult:
    return CheckResult(
        name=f"{name}[{estimator_id(estimator)}]",
        verdict=verdict,
        statistic=statistic,
        estimate=float(estimate),
        alpha=alpha,
        n_samples=int(n_samples),
        seed=seed,
        seconds=time.perf_counter() - t0,
        summary=summary,
        details=details or {},
        claim=claim,
    )


def _context(estimator, name, data, profile, seed):
    tags = get_tags(estimator)
    profile = _profile(profile)
    seed = _seed(f"{estimator_id(estimator)}-{name}") if seed is None else int(seed)
    rng = np.random.default_rng(seed)
    if data is None:
        data = _default_data(estimator, tags, np.random.default_rng(_seed(f"{estimator_id(estimator)}-data")))
    return tags, profile, seed, rng, data
