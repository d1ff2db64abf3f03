"""The ``htdp-verify`` command: list checks, run them and write a report, run the auditor benchmark."""

from __future__ import annotations

import argparse
import os
import sys
import threading
import time
from pathlib import Path

from . import __version__
from ._cli_bench import add_bench_parser
from ._cli_common import (  # noqa: F401 (the exit codes, UsageError and prepare_out stay importable from cli)
    EXIT_ERROR,
    EXIT_FOUND,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_PIPE,
    EXIT_USAGE,
    UsageError,
    _Parser,
    _positive_int,
    _seed_arg,
    prepare_out,
)
from ._validate import is_int_in
from .registry import PROFILES, derive_seed, execute_check, get_checks  # noqa: F401 (cli.derive_seed stays public)
from .report import write_report
from .results import CLAIM_VERDICTS, CheckResult, tally

VERDICTS_TEXT = """\
verdicts: a claim is 'consistent', 'violated' or 'inconclusive' at its alpha; 'info' marks a description that
tests no claim (a comparison table) and is never counted as consistent; 'error' means the check could not run.
Canaries and controls carry the verdict they are built to produce ('expected'); a verdict that matches it is
counted as 'as expected', not as a finding.

files written to --out: results.jsonl (one line per finished check, written as the run goes; kept when a run
is interrupted), results.json (schema: htdp_verify/schemas/results.schema.json), report.md, report.html.
'htdp-verify run --resume DIR' continues an interrupted run with the same profile, seed and names: checks found
in DIR/results.jsonl are not run again (except those that could not run).

"""
EXIT_CODES_TEXT = """\
exit codes of 'run':
  0    every selected check ran (and, with --fail-on, nothing it looks for was found)
  1    at least one check could not run (verdict 'error'; takes precedence over 3)
  2    usage error: a bad argument (e.g. --seed -1, an --out that is a file or cannot be written, no
       registered check matching a name); one line on stderr
  3    --fail-on violated: a claim was violated that was not expected to be (a canary's expected violation
       does not count; a control expected 'consistent' that comes out 'violated' does);
       --fail-on unexpected: the same, or a canary/control whose verdict differs from its expected one
  130  interrupted (Ctrl-C): finished checks are kept in OUT/results.jsonl and a partial report is written;
       'htdp-verify run --resume OUT' continues
  141  standard output closed early (e.g. 'htdp-verify list | head'); nothing else is affected
'bench' exits 1 when a mechanism could not be audited, 2 on a usage error, 130 when interrupted, else 0.
"""


class RunInterrupted(Exception):
    """Ctrl-C during :func:`run_checks`; ``results`` holds every finished check's results (in check order)."""

    def __init__(self, results, n_done: int):
        super().__init__("interrupted")
        self.results, self.n_done = results, n_done


def _workers_arg(text: str) -> int:
    from .parallel import check_workers, max_workers

    try:
        return check_workers(int(text))
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"must be an integer in [1, {max_workers()}] (4 per CPU), got {text!r}"
        ) from None


def _counts_text(results) -> str:
    """Short verdict counts for the progress bar: ``"5 consistent, 1 violated, 2 as expected"``."""
    return ", ".join(f"{n} {k}" for k, n in tally(results).items() if n)


def run_checks(
    checks,
    *,
    profile: str,
    seed: int,
    out_dir: Path,
    progress: bool = True,
    log=None,
    done: dict | None = None,
    workers: int = 1,
    backend: str = "processes",
    scheduler: str | None = None,
    costs: dict | None = None,
) -> list[CheckResult]:
    """Run ``checks`` (each with its seed from :func:`derive_seed`) and return their results in check order.

    ``log``: a :class:`~htdp_verify.runlog.RunLog` that gets one line per finished check; ``done``: results of
    checks finished earlier (check name -> results), which are not run again.  ``workers`` > 1, ``backend="dask"``
    or a Dask ``scheduler`` address run the checks in parallel (:func:`htdp_verify.parallel.iter_checks`) with the
    same results; the log then gets lines in the order checks finish, each with where and when the check ran
    (:func:`htdp_verify.parallel.task_timing`).  ``costs`` (expected seconds per check name, e.g. from the previous
    run in ``out_dir``) make a parallel run submit the longest checks first; the results do not change.  Ctrl-C
    raises :class:`RunInterrupted` carrying the finished results."""
    from tqdm.auto import tqdm

    from .parallel import TaskClock

    parallel = workers != 1 or backend != "processes" or scheduler is not None
    out_dir.mkdir(parents=True, exist_ok=True)
    by_check: dict[str, list[CheckResult]] = {c.name: list(done[c.name]) for c in checks if done and c.name in done}
    todo = [c for c in checks if c.name not in by_check]

    def ordered():
        return [r for c in checks for r in by_check.get(c.name, [])]

    bar = tqdm(
        total=len(checks),
        initial=len(checks) - len(todo),
        desc="checks",
        unit="check",
        disable=not progress,
        file=sys.stderr,
    )
    current = {"text": "", "t0": time.perf_counter()}
    stop = threading.Event()

    def tick():  # a long check shows how long it has been running (refreshed every 2 s)
        while not stop.wait(2.0):
            if current["text"]:
                el = int(time.perf_counter() - current["t0"])
                bar.set_postfix_str(f"{current['text']} (running {el // 60}m{el % 60:02d}s)")

    def finish(chk, s, out, timing=None):
        by_check[chk.name] = out
        if log is not None:
            log.append(chk.name, s, out, timing)
        bar.update(1)

    ticker = threading.Thread(target=tick, daemon=True)
    if progress and not parallel:
        ticker.start()
    try:
        if parallel:
            _run_parallel(
                todo,
                finish,
                bar,
                ordered,
                profile=profile,
                seed=seed,
                out_dir=out_dir,
                workers=workers,
                backend=backend,
                scheduler=scheduler,
                progress=progress,
                costs=costs,
            )
        for chk in todo if not parallel else ():
            finished = ordered()
            current["text"] = f"{_counts_text(finished)} | {chk.name}" if finished else chk.name
            current["t0"] = time.perf_counter()
            bar.set_postfix_str(current["text"])
            clock = TaskClock()
            s, out = execute_check(chk, profile=profile, seed=seed, out_dir=out_dir, progress=progress)
            finish(chk, s, out, clock.stop())
        current["text"] = ""
        bar.set_postfix_str(_counts_text(ordered()))
    except KeyboardInterrupt:
        raise RunInterrupted(ordered(), len(by_check)) from None
    finally:
        stop.set()
        if ticker.is_alive():
            ticker.join()
        bar.close()
    return ordered()


def _run_parallel(
    todo, finish, bar, ordered, *, profile, seed, out_dir, workers, backend, scheduler, progress, costs=None
):
    """The parallel half of :func:`run_checks`: the bar shows verdict counts and the checks in flight."""
    from contextlib import closing

    from .parallel import iter_checks

    def status(names, oldest):
        if progress:
            el = int(oldest)
            counts = _counts_text(ordered())
            run = f"running {len(names)}: {', '.join(names)} (longest {el // 60}m{el % 60:02d}s)" if names else ""
            bar.set_postfix_str(" | ".join(t for t in (counts, run) if t))

    w = None if scheduler is not None else workers
    with closing(
        iter_checks(
            todo,
            profile=profile,
            seed=seed,
            out_dir=out_dir,
            workers=w,
            backend=backend,
            scheduler=scheduler,
            status=status,
            costs=costs,
        )
    ) as it:
        for chk, s, out, timing in it:
            finish(chk, s, out, timing)


def _cmd_list(args) -> int:
    try:
        checks = get_checks(args.names)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    for c in checks:
        print(c.line())
    what = "registered" if not args.names else f"selected by {' '.join(args.names)}"
    print(
        f"{len(checks)} checks {what} ('htdp-verify run{' ' + ' '.join(args.names) if args.names else ''}' "
        f"runs these {len(checks)}; a check may give more than one result)"
    )
    return 0


def _resume_settings(args):
    """Profile, seed and names of the run being resumed; ``UsageError`` when the command line contradicts them."""
    from .runlog import read_runlog

    d = Path(args.resume)
    if not d.is_dir():
        raise UsageError(f"--resume {d}: no such folder")
    try:
        content = read_runlog(d)
    except ValueError as exc:
        raise UsageError(f"--resume: {exc}") from None
    meta = content.meta
    # the stored settings come from a file: check them as the command line's are checked
    if meta.get("profile") not in PROFILES:
        raise UsageError(f"--resume {d}: the stored profile {meta.get('profile')!r} is not one of {PROFILES}")
    seed = meta.get("seed")
    if not is_int_in(seed, 0, 2**63 - 1):
        raise UsageError(f"--resume {d}: the stored seed {seed!r} is not an integer in [0, 2**63)")
    names = meta.get("names") or []
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        raise UsageError(f"--resume {d}: the stored names {names!r} are not a list of check names")
    for opt, given, stored in (
        ("--profile", args.profile, meta.get("profile")),
        ("--seed", args.seed, meta.get("seed")),
        ("names", args.names or None, meta.get("names") or None),
    ):
        if given is not None and given != stored:
            raise UsageError(f"--resume {d}: that run used {opt} {stored}, not {given} (leave it out to continue it)")
    if args.out is not None and Path(args.out).resolve() != d.resolve():
        raise UsageError(f"--resume {d} writes to that folder; do not give --out {args.out}")
    done = {k: v for k, v in content.done.items() if not any(r.verdict == "error" for r in v)}
    return meta["profile"], meta["seed"], meta.get("names") or [], done


def _parallel_settings(args):
    """``(workers, backend)`` of ``run`` from --workers, --backend and --scheduler; ``UsageError`` on a conflict."""
    backend = args.backend or "processes"
    if args.scheduler is not None:
        if args.backend == "processes":
            raise UsageError("--scheduler runs checks on a Dask cluster; it cannot be used with --backend processes")
        if args.workers is not None:
            raise UsageError(
                "--workers sizes a local pool; with --scheduler the cluster's workers run the checks "
                "(leave --workers out)"
            )
        backend = "dask"
    if backend == "dask":
        try:
            import distributed  # noqa: F401
        except ImportError:
            raise UsageError(
                "--backend dask needs the 'distributed' package (pip install 'htdp-verify[dask]')"
            ) from None
    return (1 if args.workers is None else args.workers), backend


def _parallel_meta(workers: int, backend: str, scheduler: str | None) -> dict:
    """How the checks ran, for the results' meta: ``workers`` (processes or Dask worker threads; left out for an
    existing cluster, whose size may change during the run), ``backend`` (``"serial"``: in the ``htdp-verify``
    process, ``"processes"``: a local process pool, ``"dask"``) and the Dask ``scheduler`` address if one was given."""
    if scheduler is not None:
        return {"backend": "dask", "scheduler": scheduler}
    if workers == 1 and backend == "processes":
        return {"workers": 1, "backend": "serial"}
    return {"workers": workers, "backend": backend}


def _cmd_run(args) -> int:
    from .runlog import STREAM_NAME, RunLog, previous_costs

    done = None
    if args.resume:
        profile, seed, names, done = _resume_settings(args)
        out = prepare_out(args.resume, "--resume")
    else:
        profile = args.profile or "quick"
        seed = 20261121 if args.seed is None else args.seed
        names = args.names
        out = prepare_out(args.out or "htdp-report")
    try:
        checks = get_checks(names)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    workers, backend = _parallel_settings(args)
    meta = {"profile": profile, "seed": seed, "version": __version__, "names": list(names), "checks": len(checks)}
    meta.update(_parallel_meta(workers, backend, args.scheduler))
    parallel = workers != 1 or backend != "processes" or args.scheduler is not None
    costs = previous_costs(out) if parallel else None  # read before the new run log replaces the old one
    t0 = time.perf_counter()
    interrupted = False
    with RunLog(out, meta, resume=bool(args.resume)) as log:
        try:
            results = run_checks(
                checks,
                profile=profile,
                seed=seed,
                out_dir=out,
                progress=not args.no_progress,
                log=log,
                done=done,
                workers=workers,
                backend=backend,
                scheduler=args.scheduler,
                costs=costs,
            )
            n_done = len(checks)
        except RunInterrupted as exc:
            results, n_done, interrupted = exc.results, exc.n_done, True
    info = {**meta, "seconds": round(time.perf_counter() - t0, 1), "checks_finished": n_done}
    if interrupted:
        info["interrupted"] = True
    paths = write_report(results, out, info)
    if interrupted:
        print(
            f"htdp-verify run: interrupted after {n_done} of {len(checks)} checks; their results are in "
            f"{out / STREAM_NAME} (partial report {paths['html']}); continue with: htdp-verify run --resume {out}",
            file=sys.stderr,
        )
        return EXIT_INTERRUPTED
    for r in results:
        print(r.line())
    counts = tally(results)
    print(f"{len(checks)} checks ran ({len(results)} results): " + _tally_line(counts) + f"; report: {paths['html']}")
    if counts["error"]:
        bad = [r.name for r in results if r.verdict == "error"]
        print(f"htdp-verify run: {len(bad)} check(s) could not run: {', '.join(bad)} (see report.md)", file=sys.stderr)
        return EXIT_ERROR
    if args.fail_on in ("violated", "unexpected"):
        found = [r.name for r in results if r.unexpected_violation]
        if args.fail_on == "unexpected":
            found += [r.name for r in results if r.as_expected is False and r.name not in found]
        if found:
            what = "unexpected violation(s)" if args.fail_on == "violated" else "unexpected verdict(s)"
            print(
                f"htdp-verify run: {len(found)} {what} (--fail-on {args.fail_on}): {', '.join(found)}", file=sys.stderr
            )
            return EXIT_FOUND
    return EXIT_OK


def _tally_line(counts: dict) -> str:
    """``"12 consistent, 1 violated, ..., 2 canaries/controls as expected"``: one phrase per outcome seen."""
    words = {
        "as expected": "canaries/controls as expected",
        "unexpected": "canaries/controls NOT as expected",
        "info": "info (descriptive, no claim tested)",
    }
    return ", ".join(f"{n} {words.get(k, k)}" for k, n in counts.items() if n or k in CLAIM_VERDICTS)


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog="htdp-verify",
        description="Statistical verification of differentially private estimators (heavy-tailed data): "
        "empirical privacy audits with valid ε lower bounds, rate checks, lower-bound comparisons.",
        epilog=EXIT_CODES_TEXT,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--version", action="version", version=f"htdp-verify {__version__}")
    sub = p.add_subparsers(dest="cmd", required=True)
    ls = sub.add_parser("list", help="list the registered checks, one line each with provenance")
    ls.add_argument("names", nargs="*", help="only these check names or prefixes (as for 'run')")
    ls.set_defaults(func=_cmd_list)
    r = sub.add_parser(
        "run",
        help="run checks and write results.jsonl, results.json, report.md, report.html",
        epilog=VERDICTS_TEXT + EXIT_CODES_TEXT,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    r.add_argument("names", nargs="*", help="check names or prefixes (default: all), e.g. 'stats' or 'diffprivlib'")
    r.add_argument("--profile", choices=PROFILES, default=None, help="sample sizes: quick (CI, default) or full")
    r.add_argument(
        "--seed",
        type=_seed_arg,
        default=None,
        help="run seed, an integer in [0, 2**63) (default 20261121); each check derives its own from it "
        "and its name, so 'htdp-verify run NAME --seed S' reproduces one check",
    )
    r.add_argument("--out", default=None, help="report folder, created if needed (default: htdp-report)")
    r.add_argument(
        "--resume",
        metavar="DIR",
        default=None,
        help="continue the interrupted run in DIR (same profile, seed and names; checks already in "
        "DIR/results.jsonl are kept, not run again)",
    )
    r.add_argument(
        "--fail-on",
        choices=("error", "violated", "unexpected"),
        default="error",
        help="'error' (default): exit 1 only when a check could not run; 'violated': also exit 3 on an "
        "unexpected violation (for CI); 'unexpected': also exit 3 when a canary/control misses its "
        "expected verdict",
    )
    r.add_argument("--no-progress", action="store_true", help="no progress bar")
    r.add_argument(
        "--workers",
        type=_workers_arg,
        default=None,
        metavar="N",
        help="run N checks at a time in worker processes (default 1: in this process); each worker uses "
        "one BLAS thread; the results equal a serial run's for the seed (N: 1 to 4 per CPU)",
    )
    r.add_argument(
        "--backend",
        choices=("processes", "dask"),
        default=None,
        help="where --workers runs checks: 'processes' (default, a local process pool) or 'dask' (a Dask "
        "LocalCluster of N single-threaded workers; needs dask[distributed])",
    )
    r.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        default=None,
        help="run the checks on the Dask cluster at ADDRESS (e.g. tcp://host:8786; the workers need "
        "htdp-verify and the check plugins installed); figures come back to --out",
    )
    r.set_defaults(func=_cmd_run)
    add_bench_parser(sub, EXIT_CODES_TEXT)
    return p


def main(argv=None) -> int:
    """Entry point of ``htdp-verify``; returns the exit code (see :data:`EXIT_CODES_TEXT`)."""
    args = None
    try:
        try:
            args = build_parser().parse_args(argv)
        except SystemExit as exc:  # --help, --version, or a usage error already printed on one line
            return exc.code if isinstance(exc.code, int) else EXIT_USAGE
        code = args.func(args)
        sys.stdout.flush()
        return code
    except UsageError as exc:
        cmd = getattr(args, "cmd", None)
        print(f"htdp-verify{' ' + cmd if cmd else ''}: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:  # e.g. `htdp-verify list | head`: the reader has gone, stop quietly
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        except (OSError, ValueError):
            pass
        return EXIT_PIPE
    except KeyboardInterrupt:
        print("htdp-verify: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
