"""Small argument validators shared by the engine.

Every public function of the toolkit validates its inputs and raises ``ValueError`` naming the
parameter and the accepted range; these helpers keep the messages uniform.
"""

from __future__ import annotations

import numbers

import numpy as np


def check_prob(name: str, value, *, open_low: bool = True, open_high: bool = True) -> float:
    """Return ``value`` as float after checking it is a probability in the stated interval."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ValueError(f"{name} must be a real number, got {value!r}")
    v = float(value)
    lo_ok = v > 0 if open_low else v >= 0
    hi_ok = v < 1 if open_high else v <= 1
    if not (np.isfinite(v) and lo_ok and hi_ok):
        lb = "(" if open_low else "["
        rb = ")" if open_high else "]"
        raise ValueError(f"{name} must lie in {lb}0, 1{rb}, got {value!r}")
    return v


def check_positive(name: str, value, *, allow_zero: bool = False, allow_inf: bool = False) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ValueError(f"{name} must be a real number, got {value!r}")
    v = float(value)
    if np.isnan(v) or (np.isinf(v) and not allow_inf) or v < 0 or (v == 0 and not allow_zero):
        rng = "[0, inf" if allow_zero else "(0, inf"
        rng += "]" if allow_inf else ")"
        raise ValueError(f"{name} must lie in {rng}, got {value!r}")
    return v


def check_int(name: str, value, *, minimum: int = 0) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}")
    v = int(value)
    if v < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}")
    return v


def is_int_in(value, low: int, high: int | None = None) -> bool:
    """Whether ``value`` (read from a file) is an integer, not a bool, in ``[low, high]`` (``high=None``: no cap)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        return False
    return low <= int(value) and (high is None or int(value) <= high)


def check_counts(k_name: str, k, n_name: str, n) -> tuple[np.ndarray, np.ndarray]:
    """Validate integer-valued count arrays ``0 <= k <= n``, ``n >= 1``; returns broadcast int arrays."""
    k_arr = np.asarray(k)
    n_arr = np.asarray(n)
    for name, arr in ((k_name, k_arr), (n_name, n_arr)):
        if arr.dtype.kind not in "iuf" or not np.all(np.isfinite(arr)) or np.any(arr != np.floor(arr)):
            raise ValueError(f"{name} must be a non-negative integer count, got {arr!r}")
    if np.any(n_arr < 1):
        raise ValueError(f"{n_name} must be >= 1, got {n!r}")
    if np.any(k_arr < 0) or np.any(k_arr > n_arr):
        raise ValueError(f"{k_name} must lie in [0, {n_name}], got {k!r} with {n_name}={n!r}")
    k_arr, n_arr = np.broadcast_arrays(k_arr.astype(np.int64), n_arr.astype(np.int64))
    return k_arr, n_arr


def check_rng(rng) -> np.random.Generator:
    if not isinstance(rng, np.random.Generator):
        raise ValueError(
            f"rng must be a numpy.random.Generator (e.g. numpy.random.default_rng(seed)), got {type(rng).__name__}"
        )
    return rng
