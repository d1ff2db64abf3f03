"""What the report says, independent of its format: findings first, then one section per suite.

Everything here is plain data (strings, numbers, lists) that the Markdown writer and the HTML template render.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from numpy.typing import ArrayLike

from ..results import CheckResult, pair_text, tally

__all__ = ["Entry", "Suite", "ReportModel", "build_model", "claim_text", "fmt", "FINDING_OUTCOMES"]

#: outcomes listed among the findings at the top: a claim rejected or undecided, a canary/control that missed its
#: expected verdict, a check that could not run
FINDING_OUTCOMES = ("violated", "unexpected", "error", "inconclusive")
OUTCOME_LABELS = {
    "violated": "violated",
    "inconclusive": "inconclusive",
    "as expected": "as expected",
    "unexpected": "NOT as expected",
    "info": "info",
    "error": "could not run",
    "consistent": "consistent",
}
OUTCOME_COLOURS = {
    "consistent": "#2e7d32",
    "violated": "#c62828",
    "inconclusive": "#b26a00",
    "as expected": "#558b2f",
    "unexpected": "#ef6c00",
    "info": "#546e7a",
    "error": "#6a1b9a",
}


def fmt(x: ArrayLike, digits: int = 4) -> str:
    """A number for people: 4 significant digits, ∞ for infinity, — for a missing value.

    Parameters
    ----------
    x : float
        The number.
    digits : int, default 4
        Significant digits.

    Returns
    -------
    str
        The text.
    """
    if x is None:
        return "—"
    if isinstance(x, bool):
        return str(x)
    if isinstance(x, float):
        if math.isnan(x):
            return "—"
        if math.isinf(x):
            return "∞" if x > 0 else "−∞"
        return f"{x:.{digits}g}"
    return str(x)


def claim_text(claim: Any) -> str:
    """The claim in words (not a Python repr).

    Parameters
    ----------
    claim : object
        A claim dataclass or ``None``.

    Returns
    -------
    str
        The claim in words.
    """
    if claim is None:
        return ""
    kind = getattr(claim, "kind", "")
    if kind == "privacy":
        rel = {"replace": "one record replaced", "add_remove": "one record added or removed"}.get(
            claim.neighbours, claim.neighbours
        )
        dp = f"(ε = {fmt(claim.epsilon)}, δ = {fmt(claim.delta)})" if claim.delta else f"ε = {fmt(claim.epsilon)}"
        return f"{dp}-differential privacy for neighbouring datasets with {rel}"
    if kind == "rate":
        regime = f", for {claim.regime}" if claim.regime else ""
        return (
            f"the {claim.summary} error scales as {claim.variable}^{fmt(claim.exponent)} "
            f"(accepted if the fitted exponent is within ±{fmt(claim.tolerance)}){regime}"
        )
    if kind == "tail_bound":
        return (
            f"with probability at least 1 − β = {fmt(1 - claim.beta)} the error is at most "
            f"{claim.bound or 'the stated bound'}"
        )
    if kind == "lower_bound":
        cond = f" when {claim.assumption}" if claim.assumption else ""
        return f"no estimator's {claim.risk} is below {fmt(claim.value)}{cond}"
    return str(claim)


@dataclass
class Entry:
    """One result as the report shows it."""

    name: str
    check: str
    suite: str
    verdict: str
    outcome: str
    outcome_label: str
    colour: str
    expected: str | None
    summary: str
    claim: str
    source: str
    cause: str
    statistic: str
    estimate: str
    estimate_value: float | None
    interval: str
    alpha: str
    confidence: str
    bound: str  # "certified ε ≥ 4.9 at 99.8 % confidence (claim ε = 0.1)" or "estimate 0.48, 95 % interval [...]"
    pair: str
    event: str
    detectability: str
    n_samples: int
    seconds: float
    figures: list
    command: str
    script: str  # reproduction script shipped in the report folder ("" if none)
    error: str

    @property
    def anchor(self) -> str:
        return "r-" + "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in self.name)


@dataclass
class Suite:
    name: str
    entries: list = field(default_factory=list)
    line: str = ""
    seconds: float = 0.0


@dataclass
class ReportModel:
    meta: dict
    entries: list
    findings: list
    expected: list
    suites: list
    headline: str
    alpha_text: str
    run_line: str
    partial: str
    files: list = field(default_factory=list)  # the run's files the report links to (only those that exist)


def _bound_text(r: CheckResult) -> tuple[str, str]:
    """(bound sentence, confidence text)."""
    conf = f"{100 * (1 - r.alpha):.4g} %" if 0 < r.alpha < 1 else ""
    lo, hi = r.interval
    if r.statistic in ("epsilon_lb", "ε_lb") and isinstance(r.estimate, float) and not math.isnan(r.estimate):
        claim = getattr(r.claim, "epsilon", None)
        vs = f" (claim ε = {fmt(claim)})" if claim is not None else ""
        return f"certified ε ≥ {fmt(r.estimate)} at {conf} confidence{vs}", conf
    if isinstance(r.estimate, float) and math.isnan(r.estimate):
        return "", conf
    stat = r.statistic or "estimate"
    band = ""
    if not (math.isinf(lo) and math.isinf(hi)) and not (math.isnan(lo) and math.isnan(hi)):
        band = f", {conf} interval [{fmt(lo)}, {fmt(hi)}]" if conf else f", interval [{fmt(lo)}, {fmt(hi)}]"
    return f"{stat} = {fmt(r.estimate)}{band}", conf


def _source(p) -> str:
    """The provenance as text, or "" when it names nothing."""
    if p is None or not any(str(getattr(p, k, "") or "") for k in ("paper", "location", "equation", "notes")):
        return ""
    return str(p)


def _entry(r: CheckResult, meta: dict, out_dir: Path) -> Entry:
    d = r.details if isinstance(r.details, dict) else {}
    check = d.get("check") or r.name
    bound, conf = _bound_text(r)
    pair = d.get("pair")
    ev = d.get("event")
    event = ""
    if isinstance(ev, dict) and ev.get("event"):
        event = ev["event"] + (f" ({ev['orientation']})" if ev.get("orientation") else "")
    det = d.get("detectability")
    seed = meta.get("seed")
    cmd = f"htdp-verify run {check}"
    if seed is not None:
        cmd += f" --seed {seed}"
    if meta.get("profile") and meta.get("profile") != "quick":
        cmd += f" --profile {meta['profile']}"
    script = d.get("reproduction_script") or ""
    if script and not (out_dir / script).is_file():
        script = ""
    return Entry(
        name=r.name,
        check=check,
        suite=r.name.split(".")[0],
        verdict=r.verdict,
        outcome=r.outcome,
        outcome_label=OUTCOME_LABELS[r.outcome],
        colour=OUTCOME_COLOURS[r.outcome],
        expected=r.expected,
        summary=r.short_summary(),
        claim=claim_text(r.claim),
        source=_source(r.provenance),
        cause=str(d.get("cause") or ""),
        statistic=r.statistic,
        estimate=fmt(r.estimate),
        estimate_value=r.estimate if isinstance(r.estimate, float) and math.isfinite(r.estimate) else None,
        interval=f"[{fmt(r.interval[0])}, {fmt(r.interval[1])}]",
        alpha=fmt(r.alpha),
        confidence=conf,
        bound=bound,
        pair=pair_text(pair) if isinstance(pair, dict) else "",
        event=event,
        detectability=str(det.get("statement", "")) if isinstance(det, dict) else "",
        n_samples=int(r.n_samples or 0),
        seconds=float(r.seconds or 0.0),
        figures=[f for f in r.figures if (out_dir / f).is_file()],
        command=cmd,
        script=script,
        error=str(d.get("error", "")) if r.verdict == "error" else "",
    )


def _count_phrase(counts: dict) -> str:
    words = {
        "as expected": "canaries/controls as expected",
        "unexpected": "canaries/controls NOT as expected",
        "info": "descriptive (no claim tested)",
        "error": "could not run",
    }
    return ", ".join(f"{n} {words.get(k, k)}" for k, n in counts.items() if n)


def _alpha_text(results) -> str:
    tested = [r for r in results if r.verdict not in ("error", "info")]
    if not tested:
        return ""
    s = float(sum(r.alpha for r in tested))
    head = f"Each verdict holds at its own α (column α); over these {len(tested)} tested claims the α's sum to {s:.3g}"
    if s < 1:
        return (
            head + f": by Bonferroni, the chance of at least one false 'violated' among them is at most "
            f"{s:.3g}. Suites that split α themselves say so in their α column."
        )
    return (
        head + f", so Bonferroni gives no run-wide bound; on average at most {s:.3g} of them would be falsely "
        "'violated'. Read each verdict at its own α; suites that split α themselves say so in their α column."
    )


def build_model(results: list[CheckResult], meta: dict, out_dir: str | os.PathLike[str]) -> ReportModel:
    """The report model of a run: entries, findings first, one suite per name prefix.

    Parameters
    ----------
    results : list of CheckResult
        The results.
    meta : dict
        The run's settings (profile, seed, version, seconds, checks).
    out_dir : str or os.PathLike
        The report folder (figures are referred to relative to it).

    Returns
    -------
    ReportModel
        What the Markdown and HTML renderers show.
    """
    out_dir = Path(out_dir)
    entries = [_entry(r, meta, out_dir) for r in results]
    order = {k: i for i, k in enumerate(FINDING_OUTCOMES)}
    findings = sorted((e for e in entries if e.outcome in order), key=lambda e: (order[e.outcome], e.name))
    expected = [e for e in entries if e.outcome == "as expected"]
    suites: dict[str, Suite] = {}
    for _r, e in zip(results, entries):
        s = suites.setdefault(e.suite, Suite(e.suite))
        s.entries.append(e)
        s.seconds += e.seconds
    for s in suites.values():
        counts = tally([r for r in results if r.name.split(".")[0] == s.name])
        s.line = (
            f"{len(s.entries)} result{'s' if len(s.entries) != 1 else ''}: {_count_phrase(counts)}; {s.seconds:.0f} s"
        )
    counts = tally(results)
    n_find = {k: counts[k] for k in FINDING_OUTCOMES}
    if any(n_find.values()):
        headline = (
            ", ".join(
                f"{n} {OUTCOME_LABELS[k] if k != 'unexpected' else 'canaries/controls NOT as expected'}"
                for k, n in n_find.items()
                if n
            )
            + f" among {len(results)} results"
        )
    else:
        headline = f"No violations, inconclusive results or errors among {len(results)} results"
    rest = {k: counts[k] for k in ("consistent", "as expected", "info") if counts[k]}
    if rest:
        headline += "; the others: " + _count_phrase(rest)
    n_checks = meta.get("checks")
    run_bits = [
        f"profile {meta['profile']}" if meta.get("profile") else "",
        f"seed {meta['seed']}" if meta.get("seed") is not None else "",
        f"{n_checks} checks" if n_checks else "",
        f"{meta['seconds']:.0f} s" if isinstance(meta.get("seconds"), (int, float)) else "",
        f"htdp-verify {meta['version']}" if meta.get("version") else "",
        f"created {meta['created']}" if meta.get("created") else "",
    ]
    partial = ""
    if meta.get("interrupted"):
        partial = (
            f"Partial report: the run was interrupted after {meta.get('checks_finished', '?')} of "
            f"{n_checks} checks. Continue it with: htdp-verify run --resume {out_dir}"
        )
    return ReportModel(
        meta=meta,
        entries=entries,
        findings=findings,
        expected=expected,
        suites=sorted(suites.values(), key=lambda s: s.name),
        headline=headline,
        alpha_text=_alpha_text(results),
        run_line=" · ".join(b for b in run_bits if b),
        partial=partial,
        files=[
            f
            for f in ("results.json", "results.jsonl", "report.md", "report.html")
            if f in ("results.json", "report.md", "report.html") or (out_dir / f).is_file()
        ],
    )
