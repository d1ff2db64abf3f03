"""Reproduce an audit's certified event from its result: rebuild the exact set and re-count it on fresh releases.

``results.json`` stores each certified event's exact spec (``details["event"]["spec"]``, see
:mod:`.attacks.serialise`) and the pair (its data when small).  :func:`rebuild_event` turns the spec back into an
event with the same indicator; :func:`recount` draws fresh releases of a mechanism on the pair and counts them, so a
reader can check the counts' order of magnitude without trusting the printed text.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .adapters import as_mechanism, count_events
from .attacks.serialise import event_from_spec

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
    if pair is None:
        p = d.get("pair", {})
        if isinstance(p.get("d"), dict) or isinstance(p.get("d_prime"), dict):
            raise ValueError("the stored pair is a summary (large data): pass pair=(D, D')")
        pair = (np.asarray(p["d"]), np.asarray(p["d_prime"]))
    mech = as_mechanism(mechanism)
    k_d = int(count_events(mech, pair[0], n, [ev], rng)[0])
    k_dp = int(count_events(mech, pair[1], n, [ev], rng)[0])
    kn, kd = (k_d, k_dp) if ev.orientation > 0 else (k_dp, k_d)
    ratio = float("inf") if kd == 0 and kn > 0 else (float(np.log(kn / kd)) if kn > 0 and kd > 0 else 0.0)
    return {"D": k_d, "D'": k_dp, "numerator": kn, "denominator": kd, "n_per_side": n, "log_ratio": ratio}
