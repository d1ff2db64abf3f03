"""Family-wise verdicts of a benchmark table: are all of a table's verdicts right *at once*?

Each row of a bench table is one audit at level α: a correct mechanism whose claim is tight is flagged with
probability up to α, so a table of 29 rows with ~10 tight ones carries about 0.5 false alarms in expectation and a
table with none is the exception (five seeds at full size: 3 false alarms in 70 runs of correct mechanisms).  "Every
verdict of the table right" is a statement about the whole family and needs a family-wise level: Bonferroni over the
table's ``m`` rows, i.e. each row's claim tested at α/m.

No audit is re-run.  The certified bound of the row's reported event is recomputed from its stored counts with the
same test the audit fixed before certification (``"poisson"``: the exact conditional test; ``"cp"``: two
Clopper–Pearson bounds) at the event's level divided by ``m``.  The event, its counts and the test were fixed before
this level was applied, so the recomputed bound is valid at 1 − α_event/m; with several certified events only the
reported one is recomputed (conservative).  :func:`bound_at_level` with the audit's own level gives back the audit's
bound exactly (tested), so the family-wise column is the same certification at a stricter level, not a new estimate.
"""

from __future__ import annotations

import math

from htdp_verify._validate import check_int, check_prob
from htdp_verify.stats import epsilon_lower_bound, epsilon_lower_bound_poisson

__all__ = ["bound_at_level", "family_wise_bound", "family_wise_flags"]


def bound_at_level(result, alpha_event: float) -> float | None:
    """The certified ε lower bound of ``result``'s reported event recomputed at level ``alpha_event``.

    Parameters
    ----------
    result
        An ``AuditResult`` (or a result read back from ``results.jsonl``) with ``details["counts"]``.
    alpha_event : float
        The level in (0, 1) the event's bound is recomputed at.

    Returns
    -------
    float or None
        The bound; ``None`` for a result without counts (an error row).
    """
    alpha_event = check_prob("alpha_event", alpha_event)
    c = (getattr(result, "details", None) or {}).get("counts")
    if result.verdict == "error" or not c:
        return None
    claim = result.claim
    delta = float(getattr(claim, "delta", 0.0) or 0.0)
    if c["method"] == "poisson":
        n = c["n_per_side"]
        return float(epsilon_lower_bound_poisson(c["numerator"], c["denominator"], alpha_event, n, n))
    return float(
        epsilon_lower_bound(c["numerator"], c["n_numerator"], c["denominator"], c["n_denominator"], alpha_event, delta)
    )


def family_wise_bound(result, m: int, alpha: float | None = None) -> float | None:
    """``result``'s bound at its event level divided by ``m`` (Bonferroni over a family of ``m`` rows).

    Parameters
    ----------
    result
        As in :func:`bound_at_level`.
    m : int
        Size of the family (≥ 1).
    alpha : float, optional
        Family-wise level; default the result's own ``alpha`` (the per-event level is scaled by
        ``alpha / result.alpha``).

    Returns
    -------
    float or None
        The bound; ``None`` for a result without counts.
    """
    m = check_int("m", m, minimum=1)
    a = result.alpha if alpha is None else check_prob("alpha", alpha)
    per_event = ((getattr(result, "details", None) or {}).get("cp_bounds") or {}).get("alpha_per_event", result.alpha)
    return bound_at_level(result, per_event * (a / result.alpha) / m)


def family_wise_flags(results, alpha: float | None = None, m: int | None = None) -> list[bool | None]:
    """Whether each row of a table certifies a violation at the family-wise level (Bonferroni over ``m`` rows).

    Parameters
    ----------
    results
        The table's results, one per row.
    alpha : float, optional
        Family-wise level; default each result's own ``alpha``.
    m : int, optional
        Size of the family; default ``len(results)``.

    Returns
    -------
    list of bool or None
        Per row: the bound of :func:`family_wise_bound` exceeds the claimed ε; ``None`` for rows without counts.
    """
    results = list(results)
    m = len(results) if m is None else m
    out: list[bool | None] = []
    for r in results:
        lb = family_wise_bound(r, m, alpha)
        out.append(None if lb is None or math.isnan(lb) else bool(lb > r.claim.epsilon))
    return out
