"""``report.md``: the report model as Markdown (findings first, then one section per suite)."""

from __future__ import annotations

from .model import Entry, ReportModel

__all__ = ["render_markdown"]


def _cell(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _finding(e: Entry) -> list[str]:
    exp = f" (expected {e.expected})" if e.expected else ""
    md = [f"### {e.name} — {e.outcome_label}{exp}", ""]
    if e.cause:
        md += [f"**Cause:** {e.cause}", ""]
    if e.claim:
        md += [f"**Claim:** {e.claim}" + (f" — {e.source}" if e.source else ""), ""]
    elif e.source:
        md += [f"**Source:** {e.source}", ""]
    if e.summary:
        md += [f"**Result:** {e.summary}", ""]
    for label, val in (
        ("Bound", e.bound),
        ("Pair", e.pair),
        ("Event", e.event),
        ("Releases", e.sequential),
        ("Point estimate", e.point_estimate),
        ("What the run could detect", e.detectability),
    ):
        if val:
            md += [f"**{label}:** {val}", ""]
    md += [f"**Reproduce:** `{e.command}`" + (f" or `python {e.script}`" if e.script else ""), ""]
    if e.error:
        md += ["```", e.error.strip(), "```", ""]
    md += [f"![{e.name}]({f})" for f in e.figures[:1]]
    return md + [""]


def render_markdown(m: ReportModel) -> str:
    md = ["# htdp-verify report", "", m.run_line, ""]
    if m.partial:
        md += [f"> **{m.partial}**", ""]
    md += ["## Findings", "", f"**{m.headline}.**", ""]
    for e in m.findings:
        md += _finding(e)
    if m.expected:
        md += [
            "## Canaries and controls (as expected)",
            "",
            "These checks are built to give a known verdict; they show that the auditor can fail and pass.",
            "",
        ]
        md += [f"- `{e.name}`: {e.verdict}, as expected — {e.summary}" for e in m.expected] + [""]
    md += ["## Suites", ""]
    if m.alpha_text:
        md += [m.alpha_text, ""]
    for s in m.suites:
        md += [
            f"### {s.name}",
            "",
            s.line,
            "",
            "| check | outcome | statistic | estimate | interval | α | samples | seconds |",
            "|---|---|---|---|---|---|---|---|",
        ]
        for e in s.entries:
            out = e.outcome_label + (f" (expected {e.expected})" if e.expected else "")
            md.append(
                f"| `{e.name}` | **{out}** | {_cell(e.statistic)} | {e.estimate} | {e.interval} | {e.alpha} | "
                f"{e.samples_text} | {e.seconds:.1f} |"
            )
        md.append("")
        for e in s.entries:
            md += [f"#### {e.name}", "", _cell(e.summary) or "(no summary)", ""]
            if e.claim:
                md += [f"Claim: {e.claim}", ""]
            if e.source:
                md += [f"Source: {e.source}", ""]
            if e.cause:
                md += [f"Cause: {e.cause}", ""]
            if e.sequential:
                md += [f"Releases: {e.sequential}", ""]
            if e.point_estimate:
                md += [f"Point estimate: {e.point_estimate}", ""]
            if e.error:
                md += ["```", e.error.strip(), "```", ""]
            md += [f"![{e.name}]({f})" for f in e.figures] + [""]
    links = ", ".join(f"[{f}]({f})" for f in m.files if f != "report.md")
    md += [
        f"Files: {links}. results.json follows the JSON Schema `htdp_verify/schemas/results.schema.json` "
        "shipped in the htdp-verify package.",
        "",
    ]
    return "\n".join(md)
