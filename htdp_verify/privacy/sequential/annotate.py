"""The record a sequential audit in rounds leaves on its result (``details["sequential"]``, the summary line, the
per-stage sample sizes): ``annotate_rounds``, used by :func:`~.rounds.rounds_audit`."""

from __future__ import annotations

import dataclasses
from typing import Any

from ..result import AuditResult
from .engine import METHOD_NOTES
from .stages import SequentialCounts

__all__: list[str] = []


def _point_estimate(counts: SequentialCounts, bounds: Any) -> dict:
    """The certified event's log probability ratio estimated from its certification counts at the stop (a point
    estimate, not a bound)."""
    o = counts.outcome
    assert o is not None
    i = int(bounds.index)
    n = int(o.n_per_side)
    kn, kd = (int(o.k_num[i]), int(o.k_den[i])) if n else (0, 0)
    return {
        "log_ratio": float(bounds.point),
        "numerator": kn,
        "denominator": kd,
        "n_per_side": n,
        "note": "log(numerator / denominator) of the certified event on its certification releases at the stop: a "
        "point estimate of the size of the leak, NOT a bound (no confidence attached; biased upwards when the "
        "test stopped at its first certified violation); the certified statement is epsilon_lb",
    }


def _design_name(design, rounds) -> str:
    if all(r.get("kind") == "split" for r in rounds):
        return "fixed split: one round on the fixed-n audit's sizes"
    if design.probe:
        return "probe round, then the fixed-n audit's split"
    return "growing rounds"


def annotate_rounds(result, plan, design, rounds, best, stop, sizes, counts_b, bounds_b) -> AuditResult:
    """Fill ``details["sequential"]`` and the summary of a rounds audit's ``result`` (:func:`~.rounds.rounds_audit`)."""
    max_samples, fixed_n = sizes["max_samples"], sizes["fixed_n"]
    o = counts_b.outcome
    total = sum(r["releases"] for r in rounds)
    by_stage = {
        "search": 2 * sum(r["search_per_side"] for r in rounds),
        "selection": 2 * sum(r["select_per_side"] for r in rounds),
        "certification": 2 * sum(r["certify_used_per_side"] for r in rounds),
    }
    rb = rounds[best]
    d = result.details
    if all(r.get("kind") == "split" for r in rounds):
        validity = (
            "one round on the plan's own search and selection; its certification releases are fresh and its "
            "anytime-valid test runs at the full alpha: the bound holds at 1 - alpha at the stopping time"
        )
    else:
        validity = (
            "round k certifies on fresh releases at alpha_k = alpha * 2^-(k+1), its event, sizes and bets fixed by "
            "earlier releases; union bound over rounds: all rounds' statements hold together at 1 - alpha"
        )
    d["sequential"] = {
        "stop_reason": stop,
        "design_name": _design_name(design, rounds),
        "rounds": rounds,
        "rounds_used": len(rounds),
        "releases_used": int(total),
        "releases_per_side": int(total // 2),
        "releases_used_per_side": {"D": int(total // 2), "D'": int(total // 2)},
        "releases_planned": int(2 * max_samples),
        "fixed_n_releases": int(2 * fixed_n),
        "fixed_n_note": "what the fixed-n audit of the same plan draws on average (search, n_select and "
        "Poisson(n_samples) per side, both sides)",
        "releases_by_stage": by_stage,
        "max_samples_per_side": int(max_samples),
        "point_estimate": _point_estimate(counts_b, bounds_b),
        "alpha_per_round": [r["alpha"] for r in rounds],
        "epsilon_lb_round": int(best),
        "epsilon_lb_alpha": rb["alpha"],
        "epsilon_lb_per_event": [float(x) for x in o.eps_lb],
        "within_round": o.to_dict(),
        "method": METHOD_NOTES[design.method],
        "design": dataclasses.asdict(design),
        "validity": validity,
    }
    d.setdefault("counts", {})["n_per_side"] = int(o.n_per_side)
    tag = f"sequential-rounds-{design.method}"
    d["counts"]["method"] = tag
    d["certification_method"] = {"chosen": tag, "note": METHOD_NOTES[design.method]}
    for e in d.get("certified_events", []):
        e["method"] = tag
    samples = d.setdefault("samples", {})
    samples.update(
        {
            "n_search_per_side": by_stage["search"] // 2,
            "n_select_per_side": by_stage["selection"] // 2,
            "n_certify_per_side": by_stage["certification"] // 2,
            "total_releases": int(total),
        }
    )
    det = d.get("detectability")
    if isinstance(det, dict):
        det["statement"] = (
            f"sequential audit in rounds: {len(rounds)} round(s), {total} releases in all (both sides) of at most "
            f"{2 * max_samples}; the certified bound comes from round {best} (alpha_k = {rb['alpha']:.3g}, "
            f"{rb['certify_used_per_side']} certification releases per side); max_certifiable_epsilon is that "
            f"round's at its certification budget"
        )
    result.n_samples = int(total)
    if all(r.get("kind") == "split" for r in rounds):
        result.summary += (
            f"; sequential (fixed split): stopped ({stop}) after {total} of {2 * max_samples} planned releases "
            f"(search {by_stage['search']}, selection {by_stage['selection']}, certification "
            f"{by_stage['certification']}); the bound holds at {1 - plan.alpha:.4g} at the stop"
        )
    else:
        result.summary += (
            f"; sequential rounds: {stop} after {len(rounds)} round(s), {total} releases in all (search "
            f"{by_stage['search']}, selection {by_stage['selection']}, certification {by_stage['certification']}); "
            f"the bound is round {best}'s at alpha_k = {rb['alpha']:.3g}, all rounds together at "
            f"{1 - plan.alpha:.4g}"
        )
    return result
