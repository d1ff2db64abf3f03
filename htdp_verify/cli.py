"""The ``htdp-verify`` command: list checks, run them and write a report, run the auditor benchmark."""
from __future__ import annotations

import argparse
import sys
import time
import traceback
import zlib
from importlib.metadata import entry_points
from pathlib import Path

import numpy as np

from . import __version__
from .registry import PROFILES, RunContext, all_checks, get_checks
from .report import write_report
from .results import CLAIM_VERDICTS, CheckResult, tally

#: exit codes of ``htdp-verify run`` (listed in ``htdp-verify run --help``)
EXIT_OK, EXIT_ERROR, EXIT_USAGE, EXIT_FOUND = 0, 1, 2, 3
VERDICTS_TEXT = """\
verdicts: a claim is 'consistent', 'violated' or 'inconclusive' at its alpha; 'info' marks a description that
tests no claim (a comparison table) and is never counted as consistent; 'error' means the check could not run.
Canaries and controls carry the verdict they are built to produce ('expected'); a verdict that matches it is
counted as 'as expected', not as a finding.

"""
EXIT_CODES_TEXT = """\
exit codes of 'run':
  0  every selected check ran (and, with --fail-on, nothing it looks for was found)
  1  at least one check could not run (verdict 'error'; takes precedence over 3)
  2  usage error (e.g. no registered check matches a name)
  3  --fail-on violated: a claim was violated that was not expected to be (a canary's expected violation
     does not count; a control expected 'consistent' that comes out 'violated' does);
     --fail-on unexpected: the same, or a canary/control whose verdict differs from its expected one
'bench' exits 1 when a mechanism could not be audited, 2 on a usage error, else 0.
"""


def derive_seed(seed: int, name: str) -> int:
    """The seed a check gets: one ``SeedSequence`` entropy from the run seed and the check's name, so a check
    reproduces alone (``htdp-verify run NAME --seed S``) exactly as inside a full run."""
    return int(np.random.SeedSequence([seed, zlib.crc32(name.encode())]).generate_state(1, np.uint64)[0] >> 1)


def run_checks(checks, *, profile: str, seed: int, out_dir: Path, progress: bool = True) -> list[CheckResult]:
    from tqdm.auto import tqdm

    out_dir.mkdir(parents=True, exist_ok=True)
    results: list[CheckResult] = []
    bar = tqdm(checks, desc="checks", unit="check", disable=not progress, file=sys.stderr)
    for chk in bar:
        bar.set_postfix_str(chk.name)
        s = derive_seed(seed, chk.name)
        ctx = RunContext(profile=profile, seed=s, rng=np.random.default_rng(s), out_dir=out_dir, progress=progress)
        t0 = time.perf_counter()
        try:
            out = chk.func(ctx)
            out = out if isinstance(out, list) else [out]
            for r in out:
                if not isinstance(r, CheckResult):
                    raise TypeError(f"check {chk.name!r} returned {type(r).__name__}, expected CheckResult")
            results += out
        except Exception as exc:  # a check that cannot run is reported, not hidden
            results.append(CheckResult(name=chk.name, verdict="error", seconds=time.perf_counter() - t0, seed=s,
                                       provenance=chk.provenance, summary=f"could not run: {exc}",
                                       details={"error": traceback.format_exc()}))
    return results


def _cmd_list(args) -> int:
    checks = all_checks()
    for c in checks:
        print(c.line())
    print(f"{len(checks)} checks registered")
    return 0


def _cmd_run(args) -> int:
    try:
        checks = get_checks(args.names)
    except ValueError as exc:
        print(f"htdp-verify run: {exc}", file=sys.stderr)
        return EXIT_USAGE
    out = Path(args.out)
    t0 = time.perf_counter()
    results = run_checks(checks, profile=args.profile, seed=args.seed, out_dir=out, progress=not args.no_progress)
    paths = write_report(results, out, {"profile": args.profile, "seed": args.seed, "version": __version__,
                                        "seconds": round(time.perf_counter() - t0, 1)})
    for r in results:
        print(r)
    counts = tally(results)
    print(_tally_line(counts) + f"; report: {paths['html']}")
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
            print(f"htdp-verify run: {len(found)} {what} (--fail-on {args.fail_on}): {', '.join(found)}",
                  file=sys.stderr)
            return EXIT_FOUND
    return EXIT_OK


def _tally_line(counts: dict) -> str:
    """``"12 consistent, 1 violated, ..., 2 canaries/controls as expected"``: one phrase per outcome seen."""
    words = {"as expected": "canaries/controls as expected", "unexpected": "canaries/controls NOT as expected",
             "info": "info (descriptive, no claim tested)"}
    return ", ".join(f"{n} {words.get(k, k)}" for k, n in counts.items() if n or k in CLAIM_VERDICTS)


def _cmd_bench(args) -> int:
    eps = list(entry_points(group="htdp_verify.bench"))
    if not eps:
        print("htdp-verify bench: no benchmark suite is installed (entry point group 'htdp_verify.bench')",
              file=sys.stderr)
        return 2
    if args.seeds < 1:
        print(f"htdp-verify bench: --seeds must be >= 1, got {args.seeds}", file=sys.stderr)
        return 2
    run_bench = eps[0].load()
    extra = {"seeds": args.seeds} if args.seeds > 1 else {}  # a suite without multi-seed support still runs once
    results = run_bench(quick=args.quick, out_dir=Path(args.out), seed=args.seed, progress=not args.no_progress,
                        **extra)
    errors = [r for r in results if r.verdict == "error"]
    print(f"{len(results)} mechanisms audited; table: {Path(args.out) / 'bench.md'}"
          + (f"; over {args.seeds} seeds: {Path(args.out) / 'bench_seeds.md'}" if args.seeds > 1 else ""))
    return 1 if errors else 0


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="htdp-verify",
        description="Statistical verification of differentially private estimators (heavy-tailed data): "
        "empirical privacy audits with valid ε lower bounds, rate checks, lower-bound comparisons.",
        epilog=EXIT_CODES_TEXT, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--version", action="version", version=f"htdp-verify {__version__}")
    sub = p.add_subparsers(dest="cmd", required=True)
    sub.add_parser("list", help="list the registered checks, one line each with provenance").set_defaults(func=_cmd_list)
    r = sub.add_parser("run", help="run checks and write results.json, report.md, report.html", epilog=VERDICTS_TEXT + EXIT_CODES_TEXT,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    r.add_argument("names", nargs="*", help="check names or prefixes (default: all), e.g. 'stats' or 'diffprivlib'")
    r.add_argument("--profile", choices=PROFILES, default="quick", help="sample sizes: quick (CI) or full")
    r.add_argument("--seed", type=int, default=20261121, help="run seed (each check derives its own)")
    r.add_argument("--out", default="htdp-report", help="report folder (created)")
    r.add_argument("--fail-on", choices=("error", "violated", "unexpected"), default="error",
                   help="'error' (default): exit 1 only when a check could not run; 'violated': also exit 3 on an "
                   "unexpected violation (for CI); 'unexpected': also exit 3 when a canary/control misses its "
                   "expected verdict")
    r.add_argument("--no-progress", action="store_true", help="no progress bar")
    r.set_defaults(func=_cmd_run)
    b = sub.add_parser("bench", help="audit the ground-truth mechanism suite; table vs DP-Sniper and StatDP")
    b.add_argument("--quick", action="store_true", help="small sizes (< 3 minutes)")
    b.add_argument("--seed", type=int, default=20261121)
    b.add_argument("--seeds", type=int, default=1,
                   help="run the suite with K run seeds (seed, seed+1, ...) and write bench_seeds.md: each row's "
                   "median and range, flag counts and runs reaching DP-Sniper's number")
    b.add_argument("--out", default="htdp-bench")
    b.add_argument("--no-progress", action="store_true")
    b.set_defaults(func=_cmd_bench)
    return p


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    return args.func(args)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
