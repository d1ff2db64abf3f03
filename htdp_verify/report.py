"""Reports: ``results.json``, ``report.md`` and a self-contained ``report.html`` (figures embedded as PNG)."""
from __future__ import annotations

import base64
import html
import json
import math
import platform
from datetime import datetime, timezone
from pathlib import Path

from .results import CheckResult, dumps, results_document, tally

__all__ = ["write_report", "overview_figure", "tally_text"]

_COLOURS = {"consistent": "#2e7d32", "violated": "#c62828", "inconclusive": "#f9a825", "info": "#546e7a",
            "error": "#6a1b9a"}
#: bar colours of the overview figure, one per outcome (see ``CheckResult.outcome``)
_OUTCOME_COLOURS = {"consistent": "#2e7d32", "violated": "#c62828", "inconclusive": "#f9a825",
                    "as expected": "#81c784", "unexpected": "#ef6c00", "info": "#546e7a", "error": "#6a1b9a"}
_OUTCOME_LABELS = {"violated": "violated (finding)", "as expected": "canary/control as expected",
                   "unexpected": "canary/control NOT as expected", "info": "info (no claim tested)"}


def _verdict_text(r: CheckResult) -> str:
    """The verdict, with the expectation of a canary/control: ``violated (expected: violated)``."""
    if r.expected is None:
        return r.verdict
    return f"{r.verdict} (expected {r.expected}{'' if r.as_expected else ' — NOT met'})"


def tally_text(results: list[CheckResult]) -> str:
    """One sentence counting the outcomes (canaries and controls apart; descriptions apart from claims)."""
    counts = tally(results)
    parts = [f"{n} {_OUTCOME_LABELS.get(k, k)}" for k, n in counts.items() if n]
    return (f"{len(results)} results: " + ", ".join(parts) + ". Canaries and controls are counted by whether they "
            "gave their expected verdict, not as findings; 'info' results describe and test no claim.")


def _fmt(x) -> str:
    if isinstance(x, float):
        if math.isnan(x):
            return "—"
        if math.isinf(x):
            return "∞" if x > 0 else "−∞"
        return f"{x:.4g}"
    return str(x)


def overview_figure(results: list[CheckResult], out_dir: Path) -> str | None:
    """One bar per outcome (claims by verdict, canaries/controls by whether they met their expectation, descriptions
    as "info"); returns the figure's file name (or None with no results)."""
    if not results:
        return None
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    all_counts = tally(results)
    kinds = [k for k in _OUTCOME_COLOURS if all_counts[k]]
    counts = [all_counts[k] for k in kinds]
    fig, ax = plt.subplots(figsize=(5.5, 1.4 + 0.4 * len(kinds)))
    ax.barh([_OUTCOME_LABELS.get(k, k) for k in kinds], counts, color=[_OUTCOME_COLOURS[k] for k in kinds])
    for i, c in enumerate(counts):
        ax.text(c, i, f" {c}", va="center")
    ax.set_xlabel("checks")
    ax.set_title(f"{len(results)} results by outcome", fontsize=10)
    ax.invert_yaxis()
    fig.tight_layout()
    name = "overview.png"
    fig.savefig(out_dir / name, dpi=110)
    plt.close(fig)
    return name


def _meta(run_info: dict) -> dict:
    meta = {"created": datetime.now(timezone.utc).isoformat(timespec="seconds"), "python": platform.python_version()}
    meta.update(run_info)
    return meta


def write_report(results: list[CheckResult], out_dir, run_info: dict | None = None) -> dict[str, Path]:
    """Write the three report files to ``out_dir`` (created if needed); returns their paths."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    meta = _meta(run_info or {})
    paths = {"json": out_dir / "results.json", "md": out_dir / "report.md", "html": out_dir / "report.html"}
    paths["json"].write_text(dumps(results_document(results, meta), indent=2), encoding="utf-8")
    overview = overview_figure(results, out_dir)
    alpha_sum = float(sum(r.alpha for r in results if r.verdict not in ("error", "info")))
    fwer = (f"Each verdict holds at its own α (column α). Across these {len(results)} checks the α's sum to "
            f"{alpha_sum:.3g}: by Bonferroni the probability of at least one false 'violated' is at most "
            f"{min(alpha_sum, 1.0):.3g}, and the expected number of false violations is at most {alpha_sum:.3g}. "
            "Suites that split α themselves (e.g. diffprivlib: 0.05 over its checks) say so in their α column.")

    # ---------- Markdown
    md = [f"# htdp-verify report", "", f"Created {meta['created']}; " +
          ", ".join(f"{k}={v}" for k, v in meta.items() if k != "created"), ""]
    tallies = tally_text(results)
    md += [tallies, "", fwer, ""]
    md += ["| check | verdict | statistic | estimate | interval | α | samples | seconds |",
           "|---|---|---|---|---|---|---|---|"]
    for r in results:
        md.append(f"| `{r.name}` | **{_verdict_text(r)}** | {r.statistic} | {_fmt(r.estimate)} | "
                  f"[{_fmt(r.interval[0])}, {_fmt(r.interval[1])}] | {_fmt(r.alpha)} | {r.n_samples} | "
                  f"{r.seconds:.1f} |")
    md.append("")
    if overview:
        md += [f"![overview]({overview})", ""]
    for r in results:
        md += [f"## {r.name} — {_verdict_text(r)}", "", r.summary or "", "", f"Source: {r.provenance}", ""]
        if r.claim is not None:
            md += [f"Claim: {r.claim}", ""]
        if r.verdict == "error":
            md += ["```", str(r.details.get("error", "")), "```", ""]
        md += [f"![{r.name}]({f})" for f in r.figures] + [""]
    paths["md"].write_text("\n".join(md), encoding="utf-8")

    # ---------- HTML (self-contained)
    def img(name: str) -> str:
        p = out_dir / name
        if not p.exists():
            return f"<p><em>missing figure {html.escape(name)}</em></p>"
        data = base64.b64encode(p.read_bytes()).decode()
        return f'<img alt="{html.escape(name)}" src="data:image/png;base64,{data}"/>'

    rows = "\n".join(
        f"<tr><td><a href='#{html.escape(r.name)}'><code>{html.escape(r.name)}</code></a></td>"
        f"<td style='color:{_COLOURS[r.verdict]};font-weight:bold'>{html.escape(_verdict_text(r))}</td>"
        f"<td>{html.escape(r.statistic)}</td><td>{_fmt(r.estimate)}</td>"
        f"<td>[{_fmt(r.interval[0])}, {_fmt(r.interval[1])}]</td><td>{_fmt(r.alpha)}</td>"
        f"<td>{r.n_samples}</td><td>{r.seconds:.1f}</td></tr>"
        for r in results
    )
    sections = []
    for r in results:
        err = f"<pre>{html.escape(str(r.details.get('error', '')))}</pre>" if r.verdict == "error" else ""
        claim = f"<p>Claim: {html.escape(str(r.claim))}</p>" if r.claim is not None else ""
        sections.append(
            f"<section id='{html.escape(r.name)}'><h2>{html.escape(r.name)} — "
            f"<span style='color:{_COLOURS[r.verdict]}'>{html.escape(_verdict_text(r))}</span></h2>"
            f"<p>{html.escape(r.summary)}</p><p class='src'>Source: {html.escape(str(r.provenance))}</p>{claim}{err}"
            + "".join(img(f) for f in r.figures) + "</section>"
        )
    page = f"""<!doctype html><html><head><meta charset="utf-8"><title>htdp-verify report</title>
<style>body{{font-family:sans-serif;max-width:1100px;margin:2em auto;padding:0 1em}}
table{{border-collapse:collapse}}td,th{{border:1px solid #ccc;padding:3px 8px;font-size:14px}}
img{{max-width:100%;margin:.5em 0}}.src{{color:#555;font-size:13px}}</style></head><body>
<h1>htdp-verify report</h1><p>{html.escape(', '.join(f'{k}={v}' for k, v in meta.items()))}</p>
{img(overview) if overview else ''}
<p>{html.escape(tallies)}</p>
<p class='src'>{html.escape(fwer)}</p>
<table><tr><th>check</th><th>verdict</th><th>statistic</th><th>estimate</th><th>interval</th><th>α</th>
<th>samples</th><th>seconds</th></tr>{rows}</table>
{''.join(sections)}</body></html>"""
    paths["html"].write_text(page, encoding="utf-8")
    return paths
