"""Reports of a run: ``results.json`` (schema ``htdp_verify/schemas/results.schema.json``), ``report.md`` and a
self-contained ``report.html`` (figures embedded as PNG, a sortable and filterable table in plain JavaScript, no
network access).  Both documents put the findings first: violations, canaries/controls that missed their expected
verdict, checks that could not run and inconclusive results, each with its cause (``details["cause"]``) when the
check gives one, the claim in words, the pair and event, the bound with its confidence, the figure and the command
that reproduces it; then one section per suite (the prefix of the check names)."""

from __future__ import annotations

import os
import platform
from datetime import datetime, timezone
from pathlib import Path

from ..results import CheckResult, dumps, results_document, tally
from .html import render_html
from .markdown import render_markdown
from .model import OUTCOME_COLOURS, build_model

__all__ = ["write_report", "overview_figure", "tally_text"]

_OUTCOME_LABELS = {
    "violated": "violated (finding)",
    "as expected": "canary/control as expected",
    "unexpected": "canary/control NOT as expected",
    "info": "info (no claim tested)",
}


def tally_text(results: list[CheckResult]) -> str:
    """One sentence counting the outcomes (canaries and controls apart; descriptions apart from claims).

    Parameters
    ----------
    results : list of CheckResult
        The results.

    Returns
    -------
    str
        The sentence.
    """
    counts = tally(results)
    parts = [f"{n} {_OUTCOME_LABELS.get(k, k)}" for k, n in counts.items() if n]
    return f"{len(results)} results: " + ", ".join(parts) + "."


def overview_figure(results: list[CheckResult], out_dir: Path) -> str | None:
    """One bar per outcome; returns the figure's file name in ``out_dir`` (or None with no results).

    Parameters
    ----------
    results : list of CheckResult
        The results.
    out_dir : pathlib.Path
        Where the figure is written.

    Returns
    -------
    str or None
        The figure's file name.
    """
    if not results:
        return None
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    counts = tally(results)
    kinds = [k for k in OUTCOME_COLOURS if counts[k]]
    fig, ax = plt.subplots(figsize=(5.5, 1.4 + 0.4 * len(kinds)))
    ax.barh(
        [_OUTCOME_LABELS.get(k, k) for k in kinds],
        [counts[k] for k in kinds],
        color=[OUTCOME_COLOURS[k] for k in kinds],
    )
    for i, k in enumerate(kinds):
        ax.text(counts[k], i, f" {counts[k]}", va="center")
    ax.set_xlabel("results")
    ax.invert_yaxis()
    fig.tight_layout()
    name = "overview.png"
    fig.savefig(Path(out_dir) / name, dpi=110)
    plt.close(fig)
    return name


def write_report(
    results: list[CheckResult], out_dir: str | os.PathLike[str], run_info: dict | None = None
) -> dict[str, Path]:
    """Write ``results.json``, ``report.md`` and ``report.html`` to ``out_dir`` (created if needed); returns their
    paths.  ``run_info``: profile, seed, version, seconds, checks (shown in the header and used for the
    reproduction commands).

    Parameters
    ----------
    results : list of CheckResult
        The results.
    out_dir : str or os.PathLike
        The report folder.
    run_info : dict, optional
        Profile, seed, version, seconds, checks.

    Returns
    -------
    dict
        ``{file kind: path}`` of the files written.
    """
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    meta = {"created": datetime.now(timezone.utc).isoformat(timespec="seconds"), "python": platform.python_version()}
    meta.update(run_info or {})
    paths = {"json": out_dir / "results.json", "md": out_dir / "report.md", "html": out_dir / "report.html"}
    paths["json"].write_text(dumps(results_document(results, meta), indent=2), encoding="utf-8")
    model = build_model(list(results), meta, out_dir)
    paths["md"].write_text(render_markdown(model), encoding="utf-8")
    paths["html"].write_text(render_html(model, out_dir), encoding="utf-8")
    return paths
