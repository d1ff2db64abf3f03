"""``results.jsonl``: the results of a run streamed as JSON Lines while it progresses, so that a run that is
interrupted or crashes keeps every finished check and ``htdp-verify run --resume DIR`` can continue it.

Line 1 is a header ``{"format": "htdp-verify-results-stream", "format_version": 2, "meta": {...}}`` whose meta
holds what a resumed run must repeat (profile, seed, selected names).  Every further line is one finished check:
``{"check": NAME, "seed": S, "results": [result, ...], "timing": {...}}`` with results encoded as in ``results.json``
(see :data:`htdp_verify.results.FORMAT_VERSION`) and ``timing`` (optional) saying which process ran the check, when
it started and finished (wall clock, seconds since the epoch) and the CPU seconds it used
(:func:`htdp_verify.parallel.task_timing`); :func:`read_timings` reads them back, e.g. to find idle workers.
Each line is flushed and fsync'ed when written; a last line cut short by a crash is ignored on reading.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path

from ._validate import is_int_in
from .results import FORMAT_VERSION, CheckResult, dumps

__all__ = ["STREAM_NAME", "RunLog", "previous_costs", "read_runlog", "read_timings"]

STREAM_NAME = "results.jsonl"
STREAM_FORMAT = "htdp-verify-results-stream"


@dataclass
class RunLogContent:
    """What :func:`read_runlog` found: the header's ``meta`` and, per finished check, its seed and results."""

    meta: dict
    done: dict = field(default_factory=dict)  # check name -> list[CheckResult], in the order written
    timings: dict = field(default_factory=dict)  # check name -> its line's "timing" (checks that have one)
    seeds: dict = field(default_factory=dict)  # check name -> its line's "seed" (an integer or None)

    @property
    def results(self) -> list[CheckResult]:
        return [r for rs in self.done.values() for r in rs]


class RunLog:
    """Append-only writer of ``results.jsonl`` (use as a context manager).

    ``RunLog(out_dir, meta)`` starts a new stream (overwriting one left in ``out_dir``); ``RunLog(out_dir,
    resume=True)`` appends to the existing stream after dropping a cut-short last line.

    Parameters
    ----------
    out_dir : str or os.PathLike
        The report folder.
    meta : dict, optional
        The run's settings, written in the header line.
    resume : bool, default False
        Append to the existing stream instead of starting a new one.
    """

    def __init__(self, out_dir: str | os.PathLike[str], meta: dict | None = None, *, resume: bool = False):
        self.path = Path(out_dir) / STREAM_NAME
        if resume:
            content = self.path.read_text(encoding="utf-8")
            if content and not content.endswith("\n"):  # a line cut short by a crash
                content = content[: content.rfind("\n") + 1]
                self.path.write_text(content, encoding="utf-8")
            self._f = open(self.path, "a", encoding="utf-8")
        else:
            self._f = open(self.path, "w", encoding="utf-8")
            self._write({"format": STREAM_FORMAT, "format_version": FORMAT_VERSION, "meta": meta or {}})

    def _write(self, obj) -> None:
        self._f.write(dumps(obj) + "\n")
        self._f.flush()
        os.fsync(self._f.fileno())

    def append(self, check: str, seed: int | None, results: list[CheckResult], timing: dict | None = None) -> None:
        """Record one finished check (all its results) as one line.

        Parameters
        ----------
        check : str
            The check's name.
        seed : int or None
            The check's seed.
        results : list of CheckResult
            Its results.
        timing : dict, optional
            Where and when it ran (:func:`htdp_verify.parallel.task_timing`: worker pid, wall-clock start and end,
            CPU seconds), written as the line's ``"timing"``; not part of the results.
        """
        rec: dict = {"check": check, "seed": seed, "results": [r.to_dict() for r in results]}
        if timing is not None:
            rec["timing"] = timing
        self._write(rec)

    def close(self) -> None:
        self._f.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def read_runlog(out_dir: str | os.PathLike[str]) -> RunLogContent:
    """Read ``out_dir/results.jsonl``; raises ``ValueError`` (naming the file) when it is missing or not a stream.

    Parameters
    ----------
    out_dir : str or os.PathLike
        The report folder.

    Returns
    -------
    RunLogContent
        The header's settings and the finished checks' results.
    """
    path = Path(out_dir) / STREAM_NAME
    if not path.is_file():
        raise ValueError(f"{path} does not exist: nothing to resume (a run writes it as checks finish)")
    lines = path.read_text(encoding="utf-8").splitlines()
    try:
        header = json.loads(lines[0]) if lines else {}
    except json.JSONDecodeError:
        header = {}
    if not isinstance(header, dict) or header.get("format") != STREAM_FORMAT:
        raise ValueError(
            f'{path} is not an htdp-verify results stream (its first line has no "format": "{STREAM_FORMAT}")'
        )
    if header.get("format_version") != FORMAT_VERSION or isinstance(header.get("format_version"), bool):
        raise ValueError(
            f"{path}: format_version {header.get('format_version')!r}; this version reads format {FORMAT_VERSION}"
        )
    if not isinstance(header.get("meta", {}), dict):
        raise ValueError(f"{path}, line 1: 'meta' must be a JSON object")
    out = RunLogContent(meta=header.get("meta", {}))
    for i, line in enumerate(lines[1:], start=2):
        try:
            rec = json.loads(line, parse_constant=_no_constant)
        except json.JSONDecodeError:
            if i == len(lines):  # the last line, cut short by a crash
                break
            raise ValueError(f"{path}, line {i}: not JSON") from None
        except ValueError as e:
            raise ValueError(f"{path}, line {i}: {e}") from None
        if not (isinstance(rec, dict) and isinstance(rec.get("check"), str) and isinstance(rec.get("results"), list)):
            raise ValueError(f'{path}, line {i}: not a finished check ({{"check": ..., "results": [...]}})')
        if rec["check"] in out.done:
            raise ValueError(f"{path}, line {i}: check {rec['check']!r} is recorded twice")
        seed = rec.get("seed")
        if seed is not None and not is_int_in(seed, 0):
            raise ValueError(f"{path}, line {i}: 'seed' must be null or an integer >= 0, got {seed!r}")
        out.seeds[rec["check"]] = seed
        try:
            out.done[rec["check"]] = [CheckResult.from_dict(r) for r in rec["results"]]
        except (ValueError, TypeError) as e:
            raise ValueError(f"{path}, line {i}: {e}") from None
        if isinstance(rec.get("timing"), dict):
            out.timings[rec["check"]] = rec["timing"]
    return out


def _no_constant(c: str):
    raise ValueError(f"non-JSON constant {c} (this toolkit writes non-finite numbers as null)")


def read_timings(out_dir: str | os.PathLike[str]) -> dict:
    """Per check, where and when it ran (the ``"timing"`` of its line in ``out_dir/results.jsonl``).

    Parameters
    ----------
    out_dir : str or os.PathLike
        The report folder.

    Returns
    -------
    dict
        check name -> ``{"worker", "started", "finished", "cpu_seconds", "children_cpu_seconds"}``, for the
        checks whose line has one (lines written before timings were recorded have none).
    """
    return read_runlog(out_dir).timings


def previous_costs(out_dir: str | os.PathLike[str]) -> dict:
    """How long each check took in the run last written to ``out_dir`` (read it before a new run overwrites it).

    Used to submit the checks of a parallel run longest first.  Read from ``results.jsonl`` (a check's recorded
    wall-clock time; the sum of its results' ``seconds`` for lines without a timing), else from ``results.json``
    (the sum of the ``seconds`` of the results of each check).  A missing or unreadable file gives ``{}``: the costs
    only order the work, so nothing is lost without them.

    Parameters
    ----------
    out_dir : str or os.PathLike
        The report folder of the earlier run.

    Returns
    -------
    dict
        check name -> seconds.
    """
    out_dir = Path(out_dir)
    costs: dict = {}
    try:
        content = read_runlog(out_dir)
    except (ValueError, OSError, KeyError, TypeError, RecursionError):
        content = None
    if content is not None and content.done:
        for name, results in content.done.items():
            t = content.timings.get(name)
            if t and isinstance(t.get("started"), (int, float)) and isinstance(t.get("finished"), (int, float)):
                costs[name] = max(0.0, float(t["finished"]) - float(t["started"]))
            else:
                costs[name] = float(sum(r.seconds or 0.0 for r in results))
        return costs
    try:
        doc = json.loads((out_dir / "results.json").read_text(encoding="utf-8"))
        for r in doc.get("results", []):
            d = r.get("details") if isinstance(r.get("details"), dict) else {}
            name = d.get("check") or r.get("name")
            if isinstance(name, str) and isinstance(r.get("seconds"), (int, float)):
                costs[name] = costs.get(name, 0.0) + float(r["seconds"])
    except (OSError, ValueError, AttributeError, TypeError, RecursionError):
        return {}
    return costs
