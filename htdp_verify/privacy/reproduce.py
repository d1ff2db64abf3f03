"""Reproduce an audit's certified event from its result: rebuild the exact set and re-count it on fresh releases.

``results.json`` stores each certified event's exact spec (``details["event"]["spec"]``, see
:mod:`.attacks.serialise`) and the pair (its data when small).  :func:`rebuild_event` turns the spec back into an
event with the same indicator; :func:`recount` draws fresh releases of a mechanism on the pair and counts them, so a
reader can check the counts' order of magnitude without trusting the printed text.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._validate import check_int, check_rng
from .adapters import as_mechanism, count_events
from .attacks.serialise import event_from_spec
from .neighbours import Pair

__all__ = ["rebuild_event", "recount"]


def _details(result) -> dict:
    d = result.details if hasattr(result, "details") else result
    if not isinstance(d, dict) or "event" not in d:
        raise ValueError("result must be an AuditResult or its details dict (with an 'event' entry)")
    return d


def rebuild_event(result: Any) -> Any:
    """The certified event of ``result`` (an ``AuditResult`` or its ``details``), rebuilt from its exact spec.

    Parameters
    ----------
    result : AuditResult or dict
        The result or its ``details``.

    Returns
    -------
    Event
        The event.
    """
    spec = _details(result)["event"].get("spec")
    if spec is None:
        raise ValueError("this result has no exact event spec (written by an older version)")
    return event_from_spec(spec)


def recount(result: Any, mechanism: Any, *, n: int, rng: np.random.Generator, pair: Any = None) -> dict:
    """Count the rebuilt event on ``n`` fresh releases per side of ``mechanism`` on the audit's pair (or ``pair``,
    needed when the stored pair was too large to keep).  Returns the counts and the plug-in log-ratio.

    Parameters
    ----------
    result : AuditResult or dict
        The audit's result.
    mechanism : Mechanism or callable
        The mechanism ``(data, size, rng) -> (size, ...)``.
    n : int
        Releases per side.
    rng : numpy.random.Generator
        The generator every release is drawn from.
    pair : Pair, optional
        The pair (when the stored one was too large to keep).

    Returns
    -------
    dict
        The counts and the plug-in log-ratio.
    """
    d = _details(result)
    ev = rebuild_event(d)
    n = check_int("n", n, minimum=1)
    check_rng(rng)
    d_data, dp_data = _stored_pair(d) if pair is None else _given_pair(pair)
    mech = as_mechanism(mechanism)
    k_d = int(count_events(mech, d_data, n, [ev], rng)[0])
    k_dp = int(count_events(mech, dp_data, n, [ev], rng)[0])
    kn, kd = (k_d, k_dp) if ev.orientation > 0 else (k_dp, k_d)
    ratio = float("inf") if kd == 0 and kn > 0 else (float(np.log(kn / kd)) if kn > 0 and kd > 0 else 0.0)
    return {"D": k_d, "D'": k_dp, "numerator": kn, "denominator": kd, "n_per_side": n, "log_ratio": ratio}


def _as_data(name: str, x: Any) -> Any:
    """One stored or given side of the pair as an array; a clear error for what cannot be one."""
    if isinstance(x, list) and x and all(isinstance(r, dict) for r in x):
        return x  # dict records, as the mechanism got them
    if x is None or isinstance(x, dict):
        raise ValueError(f"{name} must be a value or a (nested) list of values, got {type(x).__name__}")
    try:
        a = np.asarray(x)
    except ValueError as err:  # ragged nesting
        raise ValueError(f"{name} is ragged (rows of different lengths): {err}") from None
    if a.dtype == object:
        raise ValueError(f"{name} must be a rectangular list of numbers or strings (it holds mixed or nested objects)")
    return a


def _stored_pair(d: dict) -> tuple[np.ndarray, np.ndarray]:
    """The pair stored in an audit's details, or a ValueError saying what is missing."""
    p = d.get("pair")
    if not isinstance(p, dict) or "d" not in p or "d_prime" not in p:
        raise ValueError("the result stores no pair (details['pair'] with 'd' and 'd_prime'): pass pair=(D, D')")
    if isinstance(p["d"], dict) or isinstance(p["d_prime"], dict):
        raise ValueError("the stored pair is a summary (large data): pass pair=(D, D')")
    return _as_data("details['pair']['d']", p["d"]), _as_data("details['pair']['d_prime']", p["d_prime"])


def _given_pair(pair: Any) -> tuple[Any, Any]:
    """``pair=``: a :class:`Pair` or a ``(D, D')`` tuple."""
    if isinstance(pair, Pair):
        return pair.d, pair.d_prime
    if isinstance(pair, (tuple, list)) and len(pair) == 2:
        return pair[0], pair[1]
    raise ValueError(f"pair must be a Pair or a (D, D') tuple, got {type(pair).__name__}")
