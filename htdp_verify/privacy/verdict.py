"""Stage 4 of an audit: the verdict, what the run could have detected, and the :class:`AuditResult`.

The verdict is ``"violated"`` iff the certified ε lower bound at the claim's δ exceeds the claimed ε;
``"inconclusive"`` when no event could have certified the claimed ε at these sample sizes, or when the certified
event's frequency moved between the selection and the certification releases by more than ``SHIFT_Z`` standard
errors on a side (:func:`selection_shift`: the releases' law changed between calls); else ``"consistent"``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..stats import cp_upper, max_certifiable_epsilon, max_certifiable_epsilon_poisson, samples_needed_for_epsilon
from .certification import Bounds, Counts
from .independence import WITHIN_CALL_ALPHA, within_call_dispersion
from .plan import AuditPlan
from .result import AuditResult
from .selection import SearchOutcome, Selection

__all__ = ["Verdict", "verdict_stage", "assemble_result", "selection_shift", "within_call_check", "SHIFT_Z"]

#: standard errors of selection/certification disagreement on a side beyond which the releases' law is taken to
#: have changed between calls.  Selecting the best of thousands of candidates biases the selection proportions by a
#: few standard errors (over 345 audits of the quick run, the full findings, five bench seeds and the SVT held-out
#: seeds the largest z was 6.3, with the selection size taken as the held selection releases); a per-call field
#: next to a leaking value (red-team pass 4) gave z > 100.
SHIFT_Z = 10.0


@dataclass
class Verdict:
    """The verdict on the claim with the statement of what the audit could have detected (:func:`verdict_stage`).

    Parameters
    ----------
    verdict : str
        ``"violated"`` (the certified ε lower bound exceeds the claimed ε), ``"inconclusive"`` (these sample sizes
        cannot certify an ε above the claim even with a perfect event) or ``"consistent"``.
    detectability : dict
        ``max_certifiable_epsilon``, ``event_probability_floor``, ``possibly_unbounded``,
        ``samples_needed_to_refute_claim_at_this_event`` and a readable ``statement``.
    unbounded : bool
        Whether the violation is possibly unbounded: the best event had no hit on the denominator side.
    shift : float, optional
        :func:`selection_shift` of the certified event (``None`` without selection proportions); at ``SHIFT_Z`` or
        more a "consistent" verdict became ``"inconclusive"``.
    within_call : dict, optional
        The within-call dispersion check of the certified event's counts (:func:`within_call_check`); when it
        rejected, the verdict is ``"inconclusive"`` whatever the bound.
    """

    verdict: str
    detectability: dict
    unbounded: bool
    shift: float | None = None
    within_call: dict | None = None


def format_lower_bound(value: float, claim: float) -> str:
    """``value`` (a certified lower bound) as text, rounded *down* to 4 significant digits, with more digits when
    4 would hide on which side of ``claim`` it lies (1.0003 against a claim of 1 prints "1.0003", not "1").

    Parameters
    ----------
    value : float
        The certified lower bound.
    claim : float
        The claimed value it is compared with.

    Returns
    -------
    str
        The text; its number never exceeds ``value``.
    """
    if not math.isfinite(value) or value == 0:
        return f"{value:g}"
    for digits in range(4, 18):
        scale = 10.0 ** (digits - 1 - math.floor(math.log10(abs(value))))
        shown = math.floor(value * scale) / scale
        if shown > value:  # floating-point rounding of the division: step one unit down
            shown = (math.floor(value * scale) - 1) / scale
        if (shown > claim) == (value > claim):
            return f"{shown:.{digits}g}"
    return repr(value)


def verdict_stage(plan: AuditPlan, b: Bounds, c: Counts, sel: Selection | None = None) -> Verdict:
    """Verdict on the claim, and the detectability statement (the largest certifiable ε, the event floor).

    Parameters
    ----------
    plan : AuditPlan
        The audit's plan.
    b : Bounds
        The certified statements.
    c : Counts
        The counts.
    sel : Selection, optional
        The selection: with it, a certified event whose frequency moved by ``SHIFT_Z`` standard errors or more
        since the selection (:func:`selection_shift`) turns "consistent" into "inconclusive".

    Returns
    -------
    Verdict
        The verdict and the detectability statement.
    """
    claim, n, a = plan.claim, plan.n_samples, plan.a_event
    kn, _, kd, _ = b.event_counts(c)
    max_cert = max_certifiable_epsilon_poisson(n, a) if claim.delta == 0 else max_certifiable_epsilon(n, a, claim.delta)
    floor_p = float(cp_upper(0, n, a / 2))
    shift = None
    if sel is not None and c.drawn > 0:  # a skipped certification drew nothing (its sizes are 1 only to divide by)
        _, nn, _, nd = b.event_counts(c)
        n_sel = int(getattr(sel, "n_held", 0) or sel.n_per_side or plan.n_select)
        shift = selection_shift(c.events[b.index], max(1, n_sel // 4), kn, nn, kd, nd)
    moved = shift is not None and shift >= SHIFT_Z
    within = within_call_check(c, b.index)
    if within is not None and within["dependent"]:
        verdict = "inconclusive"  # the counts are not binomial: no bound read from them is valid
    elif b.eps_lb > claim.epsilon:
        verdict = "violated"
    elif max_cert <= claim.epsilon or moved:
        verdict = "inconclusive"
    else:
        verdict = "consistent"
    # "Possibly unbounded" needs a test behind it: the event certified a violation of the claim and not one of the
    # releases on the other side fell in it, so the data put no upper limit on the ratio (the bound is capped by the
    # sample size).  A zero count alone is not enough: rare unions of a correct mechanism hit 0 by chance.
    unbounded = kd == 0 and kn > 0 and verdict == "violated"
    statement = (
        f"with {n} releases per side at alpha={a:.3g} per event, no event can certify epsilon above "
        f"{max_cert:.4g}; leaks confined to events of probability below ~{floor_p:.2g} on D' are invisible"
    )
    if unbounded:
        statement += (
            f". Possibly unbounded: 0 of {n} releases on the denominator side fell in the event "
            f"(vs {kn}); the true epsilon may be infinite and {b.eps_lb:.4g} is capped by the sample size"
        )
    need = None
    p1, p2 = kn / n, kd / n
    if verdict != "violated" and p1 > 0 and (p2 == 0 or math.log(p1 / p2) > claim.epsilon * 1.0001):
        try:
            need = samples_needed_for_epsilon(claim.epsilon * 1.0001, p1, max(p2, 0.0), a, 0.5, n_max=10**12)
        except ValueError:
            need = None
    detect = {
        "max_certifiable_epsilon": max_cert,
        "event_probability_floor": floor_p,
        "possibly_unbounded": bool(unbounded),
        "samples_needed_to_refute_claim_at_this_event": need,
        "statement": statement,
    }
    return Verdict(verdict, detect, bool(unbounded), shift, within)


def within_call_check(c, index: int) -> dict | None:
    """The certified event's counts tested for over-dispersion across the certification's calls, on each side
    (:func:`~.independence.within_call_dispersion`), at ``WITHIN_CALL_ALPHA`` per audit (half per side).

    Parameters
    ----------
    c : Counts
        The certification's counts (with their blocks; ``None`` is returned without them).
    index : int
        The certified event.

    Returns
    -------
    dict or None
        ``{"D": result or None, "D'": result or None, "alpha": ..., "dependent": bool}``; ``None`` without blocks.
    """
    blocks = getattr(c, "blocks", None)
    if not blocks or c.drawn == 0:
        return None
    out: dict = {"alpha": WITHIN_CALL_ALPHA}
    for side, (bc, sizes) in zip(("D", "D'"), blocks):
        out[side] = within_call_dispersion(bc[:, index], sizes)
    out["dependent"] = any(out[s] is not None and out[s]["p_value"] < WITHIN_CALL_ALPHA / 2 for s in ("D", "D'"))
    return out


def _warnings(plan: AuditPlan, sel: Selection, v: Verdict, ev, counts: tuple) -> list[tuple[str, str]]:
    """The result's warnings as (label for the summary line, text for ``details["warnings"]``)."""
    out = []
    if sel.non_finite:
        out.append(
            (
                "non-finite outputs",
                f"{sel.non_finite} of the selection releases had non-finite values (NaN or +-inf); they are "
                "counted as outcomes like any other (atoms), but a mechanism returning them is suspect",
            )
        )
    if getattr(plan.mechanism, "reproducible", True) and getattr(plan.mechanism, "draws_outside_rng", False):
        out.append(
            (
                "randomness not from rng",
                "the mechanism returned varying releases without drawing from the rng it was given (e.g. from "
                "np.random's global state): this audit cannot be reproduced from its seed (the bound is valid if "
                "every call's releases are fresh); draw from the rng argument",
            )
        )
    if not getattr(plan.mechanism, "reproducible", True):
        out.append(
            (
                "unseeded generator",
                "the mechanism draws from its own unseeded generator: this audit cannot be reproduced from "
                "its seed (the bound is valid all the same)",
            )
        )
    loss = getattr(plan.mechanism, "float64_loss", None)
    if loss:
        out.append(
            (
                "precision lost as float64",
                f"{loss}: a leak below float64's resolution is invisible to this audit; release float64 values, "
                "or audit the low-order part as a release of its own",
            )
        )
    if getattr(plan.mechanism, "wrote_input", False):
        out.append(
            (
                "mechanism wrote into its input",
                "the mechanism wrote into the data it was called with; every call was given its own copy of D and "
                "D', so the pair and the caller's arrays are unchanged and the bound is about the mechanism on the "
                "intended data, but in use this mechanism changes its caller's data",
            )
        )
    if v.within_call is not None and v.within_call["dependent"]:
        worst = min((r for r in (v.within_call["D"], v.within_call["D'"]) if r is not None), key=lambda r: r["p_value"])
        out.append(
            (
                "releases within a call are dependent",
                f"the certified event's counts vary {worst['ratio']:.3g} times more across the "
                f"{worst['calls']} mechanism calls that drew its {worst['releases']} certification releases than "
                "independent releases allow (p = "
                f"{worst['p_value']:.2g}): the releases of one call share randomness (one noise draw, state or a "
                "partition per call), so the counts are not binomial and no bound read from them is valid; the "
                "verdict is inconclusive. Check with htdp_verify.privacy.check_independent_releases and draw "
                "every release independently",
            )
        )
    if v.shift is not None and v.shift >= SHIFT_Z:
        kn, nn, kd, nd = counts
        out.append(
            (
                "law changed between calls",
                f"the certified event's frequency moved between the selection and the certification releases by "
                f"{v.shift:.0f} standard errors (selection {float(ev.sel_props[0]):.4g} / "
                f"{float(ev.sel_props[1]):.4g}, certification {kn / max(nn, 1):.4g} / {kd / max(nd, 1):.4g}): the "
                "releases' law changed between calls (a per-call field such as a counter or a timestamp, state kept "
                "across calls, or a law that depends on size); the audit cannot vouch for the claim"
                + ("" if v.verdict == "violated" else ", so the verdict is inconclusive"),
            )
        )
    return out


def selection_shift(ev, n_select: int, kn: int, nn: int, kd: int, nd: int) -> float | None:
    """Largest z over the two sides of the difference between the event's frequency on the selection releases
    (``ev.sel_props``, from ``n_select`` releases per side or more) and on the certification releases (``kn`` of
    ``nn``, ``kd`` of ``nd``): the pooled two-proportion z.  ``None`` without selection proportions.

    Parameters
    ----------
    ev : Event
        The certified event.
    n_select : int
        Releases per side its selection proportions rest on (a lower bound: a smaller size gives a smaller z).
    kn, nn, kd, nd : int
        Its certification counts and sizes, numerator then denominator side.

    Returns
    -------
    float or None
        The z.
    """
    props = getattr(ev, "sel_props", None)
    if props is None or n_select < 1 or not all(math.isfinite(float(x)) for x in props):
        return None
    worst = 0.0
    for p_s, k, n in ((float(props[0]), kn, nn), (float(props[1]), kd, nd)):
        if n < 1:
            continue
        pool = (p_s * n_select + k) / (n_select + n)
        var = pool * (1.0 - pool) * (1.0 / n_select + 1.0 / n)
        if var > 0:
            worst = max(worst, abs(p_s - k / n) / math.sqrt(var))
    return worst


def _seed_of(rng) -> int | None:
    ss = getattr(rng.bit_generator, "seed_seq", None)
    ent = getattr(ss, "entropy", None)
    return int(ent) if isinstance(ent, (int, np.integer)) and not getattr(ss, "spawn_key", ()) else None


def assemble_result(
    plan: AuditPlan,
    search: SearchOutcome,
    sel: Selection,
    c: Counts,
    b: Bounds,
    v: Verdict,
    *,
    seconds: float,
    rng: np.random.Generator,
) -> AuditResult:
    """The :class:`AuditResult`: summary line, every certified statement and what each stage did (JSON-ready).

    Parameters
    ----------
    plan : AuditPlan
        The audit's plan.
    search : SearchOutcome
        The search stage's outcome.
    sel : Selection
        The chosen events.
    c : Counts
        The counts.
    b : Bounds
        The certified statements.
    v : Verdict
        The verdict.
    seconds : float
        Wall-clock time of the audit.
    rng : numpy.random.Generator
        The generator every release is drawn from.

    Returns
    -------
    AuditResult
        The result.
    """
    claim, alpha, pair = plan.claim, plan.alpha, search.pair
    i = b.index
    ev = c.events[i]
    kn, nn_i, kd, nd_i = b.event_counts(c)
    nm = len(sel.main)
    drawn = search.drawn + sel.drawn + c.drawn
    oriented = "D over D'" if ev.orientation > 0 else "D' over D"
    counts = {
        "D": int(c.k_d[i]),
        "D'": int(c.k_dp[i]),
        "numerator": kn,
        "denominator": kd,
        "n_per_side": plan.n_samples,
        "n_D": c.N_d,
        "n_D'": c.N_dp,
        "n_numerator": nn_i,
        "n_denominator": nd_i,
        "orientation": oriented,
        "method": sel.methods[i],
    }
    dtext = f" at delta={claim.delta:g}" if claim.delta > 0 else ""
    shown = format_lower_bound(b.eps_lb, claim.epsilon)
    summary = (
        f"certified epsilon >= {shown}{dtext} at {100 * (1 - alpha):.4g}% confidence vs claimed "
        f"{claim.epsilon:g}; event '{ev.describe()}' ({oriented}) on {pair.describe()}; "
        + (f"counts {kn}/{nn_i} vs {kd}/{nd_i}" if c.drawn else "no certification releases drawn")
        + (" [possibly unbounded]" if v.unbounded else "")
    )
    warns = _warnings(plan, sel, v, ev, (kn, nn_i, kd, nd_i))
    if warns:
        summary += " [warning: " + "; ".join(label for label, _ in warns) + "]"
    details = {
        "epsilon_lb": b.eps_lb,
        "warnings": [text for _, text in warns],
        "confidence": 1 - alpha,
        "pure_epsilon_lb": b.pure,
        "delta_lb_at_claim_epsilon": b.delta_at_claim,
        "gdp_mu_lb": b.mu_lb,
        "gdp_note": "mu lower bound valid for mu-GDP mechanisms; an epsilon derived from it assumes a Gaussian "
        "trade-off curve; None (with delta_lb_at_claim_epsilon and cp_bounds) when the main event was "
        "certified by the conditional Poisson test and no profile was requested: those statements would "
        "need alpha of their own",
        "point_estimate": b.point,
        "cp_bounds": {"numerator_lower": b.cp_lo, "denominator_upper": b.cp_hi, "alpha_per_event": plan.a_event},
        "certification_method": {
            "chosen": sel.methods[i],
            "note": "sample sizes are Poisson(n_samples) per side; 'poisson' = exact conditional binomial test of "
            "k_num given k_num + k_den (pure epsilon), 'cp' = two Clopper-Pearson bounds at alpha/2 each; "
            "the method was fixed from the selection samples before certification",
        },
        "pair": {**pair.to_dict(), "text": pair.describe()},
        "event": ev.to_dict(),
        "counts": counts,
        "within_call_check": v.within_call,
        "certified_events": [
            {
                **e.to_dict(),
                "numerator": int(c.k_num[j]),
                "denominator": int(c.k_den[j]),
                "epsilon_lb": float(b.eps_main[j]) if j < nm else None,
                "method": sel.methods[j] if j < nm else "cp",
            }
            for j, e in enumerate(c.events)
        ],
        "samples": {
            "n_search_per_side": plan.n_search if plan.searching else 0,  # whole search, all pairs
            "n_select_per_side": sel.n_per_side or plan.n_select,
            "n_certify_per_side": plan.n_samples,
            "n_select_lowered_to_fit_max_memory": bool(sel.capped),
            "n_select_held_per_side": getattr(sel, "n_held", 0) or sel.n_per_side or plan.n_select,  # rest streamed
            "total_releases": drawn,
        },
        "selection": {
            "pairs_tried": len(plan.pairs),
            "attacks": sel.attacks,
            "candidate_events_kept": sel.n_candidates,
            "max_thresholds_per_scan": plan.max_candidates,
            "note": "pairs, attacks, thresholds, directions and orders were chosen on samples independent of the "
            "certification samples: no alpha is spent on selection",
            "search": search.table,
            **({"runoff": search.runoff} if getattr(search, "runoff", None) else {}),
        },
        "budget": plan.budget.to_dict(),
        "ledger": plan.budget.ledger(),
        "detectability": v.detectability,
        "profile": b.profile,
        "seconds": {
            **({"search": search.seconds} if plan.searching else {}),
            "selection": sel.seconds,
            "certification": c.seconds,
            "total": seconds,
        },
        "mechanism": plan.mechanism.name,
        "reproducible": bool(getattr(plan.mechanism, "reproducible", True))
        and not getattr(plan.mechanism, "draws_outside_rng", False),
    }
    return AuditResult(
        name=plan.name or f"privacy.audit[{plan.mechanism.name}]",
        verdict=v.verdict,
        statistic="epsilon_lb",
        estimate=b.eps_lb,
        interval=(b.eps_lb, math.inf),
        alpha=alpha,
        claim=claim,
        n_samples=int(drawn),
        seconds=seconds,
        seed=_seed_of(rng),
        provenance=claim.provenance,
        summary=summary,
        details=details,
    )
