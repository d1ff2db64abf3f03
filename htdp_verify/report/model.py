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
    """One result as the report shows it: every field is ready-to-print text or a plain number.

    Parameters
    ----------
    name : str
        The result's name.
    check : str
        The registered check that produced it (``details["check"]``, else the result's name).
    suite : str
        The suite: the result name's first dotted component.
    verdict : str
        The result's verdict.
    outcome : str
        The verdict read against the expectation: the verdict itself, or ``"as expected"`` / ``"unexpected"`` for
        a canary or control (``"error"`` for a check that did not run).
    outcome_label : str
        The outcome as the report words it (e.g. ``"NOT as expected"``).
    colour : str
        Hex colour of the outcome in the HTML report.
    expected : str or None
        The verdict a canary or control expects; ``None`` for a claim under test.
    summary : str
        One-paragraph summary, with a neighbouring pair shortened to its label and differing record.
    claim : str
        The claim tested, as text.
    source : str
        The provenance (paper, location) as text; ``""`` when it names nothing.
    cause : str
        The explanation of a finding (``details["cause"]``), or ``""``.
    statistic : str
        Name of the statistic reported.
    estimate : str
        Its value, formatted.
    estimate_value : float or None
        Its value as a number, ``None`` when not a finite float.
    interval : str
        The confidence interval, formatted ``[lo, hi]``.
    alpha : str
        The result's α, formatted.
    confidence : str
        The confidence level in per cent (``""`` when α is not in (0, 1)).
    bound : str
        The sentence stating the bound, e.g. ``"certified ε ≥ 4.9 at 99.8 % confidence (claim ε = 0.1)"``.
    pair : str
        The neighbouring pair as text, or ``""``.
    event : str
        The certified event with its orientation, or ``""``.
    detectability : str
        The detectability statement of a privacy audit, or ``""``.
    n_samples : int
        Samples the result is based on (0 when not stated).
    seconds : float
        Run time of the check.
    figures : list of str
        The result's figure files that exist in the report folder.
    command : str
        The command line that reruns the check with the run's seed and profile.
    script : str
        The reproduction script shipped in the report folder, ``""`` if none.
    error : str
        The error message of a check that could not run, else ``""``.
    sequential : str, default ""
        For a sequential audit, the releases it used against those planned (and the fixed-n audit's size) and why
        it stopped; ``""`` otherwise.
    releases_planned : int, default 0
        A sequential audit's planned releases (both sides, every stage); 0 for a fixed-n result.
    stop_reason : str, default ""
        Why a sequential audit stopped (``"violated"``, ``"futility"`` or ``"budget"``), else ``""``.
    point_estimate : str, default ""
        For a sequential audit stopped on a violation, the point estimate of the certified event's log ratio,
        worded as a point estimate (never as a bound); else ``""``.
    """

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
    sequential: str = ""
    releases_planned: int = 0
    stop_reason: str = ""
    point_estimate: str = ""

    @property
    def anchor(self) -> str:
        return "r-" + "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in self.name)

    @property
    def samples_text(self) -> str:
        """The samples cell: ``n``, or ``"used / planned (stop reason)"`` for a sequential audit."""
        if self.releases_planned:
            return f"{self.n_samples} / {self.releases_planned} ({self.stop_reason})"
        return str(self.n_samples)


@dataclass
class Suite:
    """The results of one suite (one name prefix) and its one-line tally.

    Parameters
    ----------
    name : str
        The suite's name (the results' first dotted name component).
    entries : list of Entry, optional
        Its entries, in the order of the results.
    line : str, default ""
        The tally: number of results per outcome and total seconds.
    seconds : float, default 0.0
        Total run time of its checks.
    """

    name: str
    entries: list = field(default_factory=list)
    line: str = ""
    seconds: float = 0.0


@dataclass
class ReportModel:
    """Everything a report shows, built by :func:`build_model`; the Markdown and HTML writers only render it.

    Parameters
    ----------
    meta : dict
        The run's settings (profile, seed, version, seconds, number of checks, interruption).
    entries : list of Entry
        Every result, in the run's order.
    findings : list of Entry
        The entries whose outcome is one of :data:`FINDING_OUTCOMES`, in that order of outcomes, then by name.
    expected : list of Entry
        The canaries and controls that reached their expected verdict.
    suites : list of Suite
        One per suite, sorted by name.
    headline : str
        The one-sentence count of findings and other outcomes.
    alpha_text : str
        What the verdicts' α's mean together (Bonferroni over the tested claims); ``""`` when nothing was tested.
    run_line : str
        The run's settings on one line.
    partial : str
        The notice of an interrupted run with the command that resumes it, else ``""``.
    files : list of str, optional
        The run's files the report links to (only those that exist).
    """

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


_STOP_WORDS = {
    "violated": "a violation was certified",
    "futility": "a violation was ruled out before the planned releases were spent",
    "budget": "the planned releases were spent",
    "max_samples": "the planned releases were spent",
}


def _sequential_fields(r: CheckResult, d: dict) -> dict:
    """The report's words for a sequential audit (``details["sequential"]``): releases used / planned, the
    fixed-n size, the stop reason and, on a violation, the point estimate of the event's log ratio."""
    seq = d.get("sequential")
    if not isinstance(seq, dict) or "stop_reason" not in seq or not seq.get("releases_planned"):
        return {}
    stop = str(seq["stop_reason"])
    stop = "budget" if stop == "max_samples" else stop
    used = int(seq.get("releases_used", r.n_samples or 0))
    planned = int(seq["releases_planned"])
    text = f"sequential audit ({seq.get('design_name', 'anytime-valid certification')}): {used} of {planned} planned"
    text += " releases used (both sides, every stage"
    if seq.get("fixed_n_releases"):
        text += f"; the fixed-n audit draws {int(seq['fixed_n_releases'])} on average"
    text += f"); stopped: {stop} ({_STOP_WORDS.get(stop, stop)})"
    point = ""
    pe = seq.get("point_estimate")
    if stop == "violated" and isinstance(pe, dict):
        lr = pe.get("log_ratio")
        if lr is None and pe.get("denominator") == 0 and pe.get("numerator"):
            lr = math.inf
        lr = float(lr) if isinstance(lr, (int, float)) else math.nan
        point = (
            f"point estimate of the event's log probability ratio (not a bound, no confidence attached): "
            f"{fmt(lr, 3)} from {pe.get('numerator')} vs {pe.get('denominator')} of {pe.get('n_per_side')} "
            "certification releases per side at the stop (biased upwards by stopping at the first certified "
            "violation); the certified statement is the bound above"
        )
    return {"sequential": text, "releases_planned": planned, "stop_reason": stop, "point_estimate": point}


def own_file(out_dir: Path, name: Any, suffixes: tuple[str, ...] = (".png",)) -> bool:
    """Whether ``name`` (from a results file, which may come from someone else) names a file of the report folder
    itself: a relative path without ``..`` whose resolved location lies inside ``out_dir`` (no symlink out of it),
    with one of ``suffixes``.  Only such files are linked or embedded in the report; a results line naming
    ``/etc/passwd`` as a figure once had it embedded base64 in ``report.html``."""
    if not isinstance(name, str) or not name:
        return False
    p = Path(name)
    if p.is_absolute() or ".." in p.parts or p.suffix.lower() not in suffixes:
        return False
    root = out_dir.resolve()
    full = (out_dir / p).resolve()
    return full.is_file() and full.is_relative_to(root)


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
    if script and not own_file(out_dir, script, (".py",)):
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
        figures=[f for f in r.figures if own_file(out_dir, f)],
        command=cmd,
        script=script,
        error=str(d.get("error", "")) if r.verdict == "error" else "",
        **_sequential_fields(r, d),
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
        _where_text(meta),
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


def _where_text(meta: dict) -> str:
    """Where the checks ran, for the header: ``"2 workers (processes)"``, ``"dask at tcp://..."``; empty when serial."""
    backend = meta.get("backend")
    if backend in (None, "serial"):
        return ""
    if meta.get("scheduler"):
        return f"{backend} at {meta['scheduler']}"
    w = meta.get("workers")
    return f"{w} worker{'s' if w != 1 else ''} ({backend})" if isinstance(w, int) else str(backend)
