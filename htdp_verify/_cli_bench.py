"""``htdp-verify bench``: its options, ``--resume`` of an interrupted run, and the command itself."""

from __future__ import annotations

import argparse
import sys
from importlib.metadata import entry_points
from pathlib import Path

from ._cli_common import EXIT_INTERRUPTED, EXIT_USAGE, UsageError, _positive_int, _seed_arg, prepare_out

BENCH_SEED, BENCH_OUT = 20261121, "htdp-bench"  # defaults of 'bench --seed' / '--out'


def _run_options_given(args, *extra: str) -> list[str]:
    """The options of a new run (and ``extra`` of ``--out`` / ``--resume``) that ``args`` sets to other than their
    defaults: ``--resume`` and ``--combine`` take their settings from folders and refuse them."""
    options = {
        "--quick": args.quick,
        "--seed": args.seed != BENCH_SEED,
        "--seeds": args.seeds != 1,
        "--auto-only": args.auto_only,
        "--out": args.out != BENCH_OUT,
        "--resume": args.resume is not None,
    }
    return [o for o, on in options.items() if on and (o not in ("--out", "--resume") or o in extra)]


def _bench_resume_settings(args) -> tuple[Path, dict]:
    """The output folder and ``run_bench`` settings of the interrupted bench run ``--resume DIR`` names."""
    given = _run_options_given(args, "--out")
    if given:
        raise UsageError(f"--resume takes the run's settings from its folder; do not also give {', '.join(given)}")
    from .runlog import read_runlog

    out = Path(args.resume)
    try:
        meta = read_runlog(out).meta
    except ValueError as exc:
        raise UsageError(f"--resume: {exc}") from None
    if not meta.get("bench"):
        raise UsageError(f"--resume: {out / 'results.jsonl'} was not written by 'htdp-verify bench'")
    kw = {k: meta[k] for k in ("quick", "seed", "seeds", "names", "white_box", "n_per_side", "alpha") if k in meta}
    return out, {**kw, "resume": True}


def _bench_combine(args, combine) -> int:
    """``htdp-verify bench --combine DIR ... --out OUT``: one over-seeds table from separate finished runs."""
    given = _run_options_given(args, "--resume")
    if given:
        raise UsageError(f"--combine reads finished runs; do not also give {', '.join(given)}")
    if combine is None:
        print("htdp-verify bench: the installed suite cannot combine runs (no 'combine' entry point)", file=sys.stderr)
        return EXIT_USAGE
    out = prepare_out(args.out)
    try:
        per_seed = combine(args.combine, out)
    except ValueError as exc:
        raise UsageError(f"--combine: {exc}") from None
    print(f"{len(per_seed)} seeds combined ({', '.join(map(str, sorted(per_seed)))}); table: {out / 'bench_seeds.md'}")
    return 0


def cmd_bench(args) -> int:
    """``htdp-verify bench``: run the installed benchmark suite (entry point group ``htdp_verify.bench``: ``default``
    runs it, ``combine`` summarises separate runs)."""
    eps = {ep.name: ep for ep in entry_points(group="htdp_verify.bench")}
    if not eps:
        print(
            "htdp-verify bench: no benchmark suite is installed (entry point group 'htdp_verify.bench')",
            file=sys.stderr,
        )
        return EXIT_USAGE
    if args.combine is not None:
        return _bench_combine(args, eps["combine"].load() if "combine" in eps else None)
    run_bench = (eps["default"] if "default" in eps else next(iter(eps.values()))).load()
    if args.resume is not None:
        out, kw = _bench_resume_settings(args)
    else:
        out = prepare_out(args.out)
        kw = {"quick": args.quick, "seed": args.seed}
        if args.seeds > 1:  # a suite without multi-seed support still runs once
            kw["seeds"] = args.seeds
        if args.auto_only:
            kw["white_box"] = False
    try:
        results = run_bench(out_dir=out, progress=not args.no_progress, **kw)
    except KeyboardInterrupt:
        print(
            f"htdp-verify bench: interrupted; the finished audits are kept in {out / 'results.jsonl'}: continue "
            f"with 'htdp-verify bench --resume {out}' (tables are written when the suite finishes)",
            file=sys.stderr,
        )
        return EXIT_INTERRUPTED
    except ValueError as exc:
        if args.resume is None:
            raise
        raise UsageError(f"--resume: {exc}") from None
    seeds = kw.get("seeds", 1)
    errors = [r for r in results if r.verdict == "error"]
    print(
        f"{len(results)} mechanisms audited; table: {out / 'bench.md'}"
        + (f"; over {seeds} seeds: {out / 'bench_seeds.md'}" if seeds > 1 else "")
    )
    return 1 if errors else 0


def add_bench_parser(sub, epilog: str) -> None:
    """Add the ``bench`` subcommand to the subparsers ``sub`` (``epilog``: the exit-code text of ``--help``)."""
    b = sub.add_parser(
        "bench",
        help="audit the ground-truth mechanism suite; table vs DP-Sniper and StatDP",
        epilog=epilog,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    b.add_argument(
        "--quick",
        action="store_true",
        help="small sizes: 10^6 releases per side for the public auditor's column, the plans' quick budgets for the "
        "white-box column (about 10 minutes on 2 cores)",
    )
    b.add_argument(
        "--seed", type=_seed_arg, default=BENCH_SEED, help="run seed, an integer in [0, 2**63) (default 20261121)"
    )
    b.add_argument(
        "--seeds",
        type=_positive_int,
        default=1,
        metavar="K",
        help="run the suite with K run seeds (seed, seed+1, ...) and write bench_seeds.md: each row's "
        "median and range, flag counts and runs reaching DP-Sniper's number (default 1)",
    )
    b.add_argument(
        "--auto-only",
        action="store_true",
        help="run only the public auditor's column (no labelled white-box column)",
    )
    b.add_argument("--out", default=BENCH_OUT, help="output folder, created if needed (default: htdp-bench)")
    b.add_argument(
        "--resume",
        metavar="DIR",
        help="continue the interrupted bench run in DIR with its own settings (audits already in DIR/results.jsonl "
        "are kept, not run again)",
    )
    b.add_argument(
        "--combine",
        nargs="+",
        metavar="DIR",
        help="write bench_seeds.md / .csv / .png into --out from finished runs made one seed at a time (e.g. "
        "--seed S --out DIR for several S); the same tables as one run with --seeds K",
    )
    b.add_argument("--no-progress", action="store_true", help="no progress bar")
    b.set_defaults(func=cmd_bench)
