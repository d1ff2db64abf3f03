"""The diffprivlib configuration search's results (:mod:`.search`): the Bonferroni slots of its α, the Markdown table
of its certified configurations (with the releases each was sized for and its smallest configuration's certified
bound) and the :class:`~htdp_verify.results.CheckResult` of a registered search.  Holohan et al. 2019
(arXiv:1907.02444), diffprivlib 0.6.6.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from htdp_verify.claims import Provenance
from htdp_verify.results import CheckResult

if TYPE_CHECKING:
    from .search import SearchOutcome

__all__ = ["alpha_slots", "search_table", "ledger_text"]

PAPER = "Holohan et al. 2019, Diffprivlib (arXiv:1907.02444); diffprivlib 0.6.6"


def ledger_text(eps: float | None) -> str:
    """The ledger's composed ε as text (``∞`` when a stated sensitivity is 0 where the true one is not)."""
    if eps is None:
        return "not composable"
    return "∞ (a stated sensitivity is 0)" if eps == float("inf") else f"{eps:.4g}"


def alpha_slots(outcome: SearchOutcome) -> list[dict]:
    """The search's 2K Bonferroni slots (fixed before it ran): which certification used each and at what α.

    Parameters
    ----------
    outcome : SearchOutcome
        A finished search.

    Returns
    -------
    list of dict
        ``slot``, ``use`` (``"certification"`` / ``"smallest configuration"``), ``alpha``, ``config`` (``None``
        when the slot stayed unspent) and ``epsilon_lb``; the ``alpha`` entries sum to the search's α.
    """
    a = outcome.alpha / (2 * outcome.k)
    causes = {c["config"]["label"]: c for c in outcome.causes}
    slots = []
    for i in range(outcome.k):
        s_r = outcome.certified[i] if i < len(outcome.certified) else None
        slots.append(
            {
                "slot": i,
                "use": "certification",
                "alpha": a,
                "config": s_r[0].config.label() if s_r else None,
                "epsilon_lb": s_r[1].epsilon_lb if s_r else None,
            }
        )
    for i in range(outcome.k):
        s_r = outcome.certified[i] if i < len(outcome.certified) else None
        cert = (causes.get(s_r[0].config.label(), {}).get("smallest", {}) if s_r else {}).get("certified") or {}
        spent = bool(cert) and not cert.get("same_as_certified")
        slots.append(
            {
                "slot": outcome.k + i,
                "use": "smallest configuration",
                "alpha": a,
                "config": cert.get("config", {}).get("label") if spent else None,
                "epsilon_lb": cert.get("epsilon_lb") if spent else None,
            }
        )
    return slots


def _size_text(sizing: dict | None) -> str:
    """Releases per side and, when the cap bound, what it needed and what it detects."""
    if not sizing:
        return ""
    n = sizing["n_samples"]
    if sizing.get("fixed"):
        return f"{n} (fixed)"
    if not sizing.get("capped"):
        return f"{n} (target ε {sizing['target_epsilon']:.3g})"
    need = sizing["needed"] if sizing["needed"] is not None else "> 10⁹"
    det = sizing["detectable_epsilon"]
    return f"{n} (cap; target ε {sizing['target_epsilon']:.3g} needs {need}; detects ε ≥ {det:.3g})"


def _detectability(res) -> dict | None:
    """The audit's detectability statement, preceded by what its releases were sized for."""
    det = res.details.get("detectability")
    sz = res.details.get("sizing") or {}
    if det is None or not sz.get("statement"):
        return det
    return dict(det, statement=f"{sz['statement']}; {det.get('statement', '')}", sizing=sz)


def _target_text(t: dict) -> str:
    gap = f", ≥ ε + {t['excess']:g}" if t.get("excess") else ""
    return f"true ε = {t['ratio']:g} × claim{gap}, event ≥ {t['event_floor']:g}, power {t['power']:g}"


def _smallest_text(cause: dict) -> str:
    """The smallest configuration as the shrink steps that reached it, and its certified bound."""
    sm = (cause or {}).get("smallest") or {}
    if not sm:
        return ""
    kept = [st.split(":")[0].replace(" -> ", " → ") for st in sm.get("steps", []) if "still flagged" in st]
    cert = sm.get("certified")
    if not cert:
        return (", ".join(kept) or "no smaller configuration") + " (screened only)"
    if cert.get("same_as_certified"):
        return "no smaller configuration flagged: the certification above"
    return (
        f"{', '.join(kept)} on {cert['pair_label']}: ε_lb {cert['epsilon_lb']:.3g} **{cert['verdict']}** "
        f"(α = {cert['alpha']:.3g}, {(cert.get('sizing') or {}).get('n_samples', '?')} / side)"
    )


def search_table(outcome: SearchOutcome) -> str:
    """Markdown rows, one per certified configuration: configuration, claimed ε, pair, event, ε_lb, verdict, the
    releases per side (and the detectability target they were sized for), the smallest configuration's certified
    bound and the cause.

    Parameters
    ----------
    outcome : SearchOutcome
        A finished search.

    Returns
    -------
    str
        The Markdown table.
    """
    causes = {c["config"]["label"]: c for c in outcome.causes}
    lines = [
        "| configuration | claimed ε | pair | certified event | ε_lb | verdict | releases / side | "
        "smallest configuration: certified ε_lb | internal step / cause |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for s, r in outcome.certified:
        c = causes.get(s.config.label(), {})
        lines.append(
            f"| `{s.config.label()}` | {s.config.epsilon:g} | {s.pair_label} | `{r.event}` | "
            f"{r.epsilon_lb:.3g} | **{r.verdict}** | {_size_text(r.details.get('sizing'))} | {_smallest_text(c)} | "
            f"{c.get('step', '')} |"
        )
    return "\n".join(lines)


def _result(outcome: SearchOutcome, name: str, seed) -> CheckResult:
    cert = outcome.certified
    viol = outcome.violations
    if viol:
        head_s, head = max(viol, key=lambda sr: sr[1].epsilon_lb / sr[0].config.epsilon)
        verdict = "violated"
    elif cert and all(r.verdict == "inconclusive" for _, r in cert):
        head_s, head = cert[0]
        verdict = "inconclusive"
    elif cert:
        head_s, head = max(cert, key=lambda sr: sr[1].epsilon_lb / sr[0].config.epsilon)
        verdict = "consistent"
    else:
        return CheckResult(
            name=name,
            verdict="error",
            statistic="epsilon_lb",
            alpha=outcome.alpha,
            seed=seed,
            details={"error": "no configuration could be screened", "screened": [s.row() for s in outcome.screened]},
            summary="no configuration of the space ran",
        )
    n_slow = sum(1 for s in outcome.screened if s.error.startswith(("too slow", "too wide")))
    n_err = sum(1 for s in outcome.screened if s.error) - n_slow
    total_rel = sum(outcome.releases.values())
    slots = alpha_slots(outcome)
    n_small = sum(1 for x in slots[outcome.k :] if x["config"] is not None)
    sz0 = cert[0][1].details.get("sizing") or {}
    capped = [s.config.label() for s, r in cert if (r.details.get("sizing") or {}).get("capped")]
    sizing_note = {
        "target": sz0.get("target"),
        "cap": sz0.get("cap"),
        "capped": capped,
        "statement": "certification sizes derived per configuration from the detectability target at its own "
        "claim (htdp_verify.privacy.sizing), capped"
        if sz0.get("target")
        else "fixed certification sizes",
    }
    rate = total_rel / max(outcome.seconds.get("screening", 0) + outcome.seconds.get("certification", 0), 1e-9)
    details = {
        "family": outcome.family,
        "alpha_accounting": {
            "alpha_search": outcome.alpha,
            "k_certified": outcome.k,
            "n_slots": 2 * outcome.k,
            "alpha_per_certification": outcome.alpha / (2 * outcome.k),
            "slots": slots,
            "alpha_spent": sum(x["alpha"] for x in slots if x["config"] is not None),
            "screening": "selection only, samples discarded: no α spent",
            "statement": f"the certified bounds ({len(cert)} configurations, {n_small} smallest configurations) "
            f"hold simultaneously at {1 - outcome.alpha:.4g} (Bonferroni over 2K = {2 * outcome.k} slots fixed "
            "before the search: K certifications, K smallest-configuration certifications)",
        },
        "sizing": sizing_note,
        "n_screened": len(outcome.screened),
        "n_screen_errors": n_err,
        "n_too_slow": n_slow,
        "ledger_flagged": [
            {"config": s.config.label(), "ledger_epsilon": s.ledger_epsilon, "ledger": ledger_text(s.ledger_epsilon)}
            for s in outcome.screened
            if s.ledger_epsilon is not None and s.ledger_epsilon > s.config.epsilon * (1 + 1e-6)
        ],
        "screened": [s.row() for s in outcome.screened],
        "certified": [
            {
                "config": s.config.to_dict(),
                "release": s.release,
                "pair": s.pair_label,
                "event": r.event,
                "epsilon_lb": r.epsilon_lb,
                "verdict": r.verdict,
                "counts": r.counts,
                "screen_score": s.score,
                "ledger_epsilon": s.ledger_epsilon,
                "alpha": r.alpha,
                "sizing": r.details.get("sizing"),
            }
            for s, r in cert
        ],
        "root_causes": outcome.causes,
        "seconds": {k: round(v, 2) for k, v in outcome.seconds.items()},
        "releases": outcome.releases,
        "releases_per_second": round(rate, 1),
        "table": search_table(outcome),
        "pair": head.details.get("pair"),
        "event": head.details.get("event"),
        "counts": head.counts,
        "detectability": _detectability(head),
    }
    if viol:
        cause = next((c for c in outcome.causes if c["config"]["label"] == head_s.config.label()), None)
        if cause:
            details["cause"] = cause["cause_text"]
            sm_text = _smallest_text(cause)
            if sm_text:
                details["cause"] += f" Smallest configuration: {sm_text.replace('**', '')}."
            if cause.get("reproduction", {}).get("script"):
                details["reproduction_script"] = cause["reproduction"]["script"]
    n_v = len(viol)
    summary = (
        f"{len(outcome.screened)} configurations drawn ({n_err} rejected by diffprivlib, {n_slow} too slow or "
        f"too wide for the profile), "
        f"{len(cert)} certified at α = {outcome.alpha:.3g}/{2 * outcome.k}: {n_v} violation(s)"
        + (f" ({n_small} smallest configuration(s) certified)" if n_small else "")
        + f"; white-box ledger over budget in {len(details['ledger_flagged'])} screened configuration(s)"
        + (
            f"; worst {head_s.config.label()} ε_lb = {head.epsilon_lb:.3g} > {head_s.config.epsilon:g}"
            if viol
            else f"; largest certified ε_lb = {head.epsilon_lb:.3g} (claim {head_s.config.epsilon:g})"
        )
        + (
            f"; certification sizes from the target ({_target_text(sz0['target'])}), cap {sz0['cap']} per side "
            f"bound for {len(capped)} of {len(cert)}"
            if sz0.get("target")
            else ""
        )
    )
    return CheckResult(
        name=name,
        verdict=verdict,
        statistic="epsilon_lb",
        estimate=float(head.epsilon_lb),
        interval=(float(head.epsilon_lb), float("inf")),
        alpha=outcome.alpha,
        claim=head.claim,
        n_samples=int(total_rel),
        seconds=float(outcome.seconds.get("total", 0.0)),
        seed=seed,
        provenance=Provenance(PAPER, f"diffprivlib search over {outcome.family}"),
        summary=summary,
        details=details,
    )
