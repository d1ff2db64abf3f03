"""Benchmark: the registered diffprivlib model checks under two designs, check by check and seed by seed.

The registered checks of diffprivlib's models audit sequentially (``audits.diffprivlib.checks.sequential_design``:
``RoundsDesign.per_call()`` since 2026-11-25: a probe round at α/10 on top of the fixed-n budget, then the fixed
split at the α left; before it ``RoundsDesign.fixed_split()``, and before that the fixed-n audit).  This script
compares the releases used, the verdicts and the bounds of two runs of the same checks with the same seeds, each
on its own commit (the "base" arm, e.g. before a change of the default design, and the "new" arm after it; the JSON
fields keep the names of the first comparison, ``fixed_n_*``
for the base arm and ``sequential_*`` for the new one).

Run (each arm in its own git worktree, so that no other change to the work tree enters the comparison)::

    git worktree add --detach /tmp/seq_base <commit before the change>
    git worktree add --detach /tmp/seq_new <commit with the change>
    python benchmarks/bench_seq_checks.py --run --base-tree /tmp/seq_base --new-tree /tmp/seq_new \
        --seeds 20261121 1 2 --profile quick
    # or only compare two existing report folders per seed:
    python benchmarks/bench_seq_checks.py --base '/tmp/seq_base_{seed}' --new '/tmp/seq_{seed}' --seeds 20261121 1 2

``--run`` calls ``python -m htdp_verify.cli run <checks> --profile P --seed S --out DIR`` in each worktree (the
checks: every registered ``diffprivlib.models.*.eps*`` audit) and records the wall time and the CPU time of the run
and its child processes (``resource.getrusage(RUSAGE_CHILDREN)``; diffprivlib's models fit in joblib worker
processes).  Writes ``benchmarks/results/bench_seq_checks.json`` (``--out``) and prints a Markdown table.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import subprocess
import sys
import time

DEFAULT_SEEDS = (20261121, 1, 2)


def model_checks(tree: str) -> list[str]:
    out = subprocess.run(
        [sys.executable, "-m", "htdp_verify.cli", "list"], cwd=tree, capture_output=True, text=True, check=True
    ).stdout
    return [ln.split()[0] for ln in out.splitlines() if re.match(r"^diffprivlib\.models\.\S+\.eps", ln)]


def run_arm(tree: str, names: list[str], seed: int, profile: str, out: str) -> dict:
    c0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.time()
    cmd = [sys.executable, "-m", "htdp_verify.cli", "run", *names, "--profile", profile, "--seed", str(seed)]
    subprocess.run([*cmd, "--out", out, "--no-progress"], cwd=tree, capture_output=True, text=True, check=False)
    c1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    return {
        "wall_s": time.time() - t0,
        "cpu_s": (c1.ru_utime - c0.ru_utime) + (c1.ru_stime - c0.ru_stime),
        "load_avg": os.getloadavg(),
    }


def load(folder: str) -> dict:
    with open(os.path.join(folder, "results.json"), encoding="utf-8") as fh:
        doc = json.load(fh)
    return {r["name"]: r for r in doc["results"]}


def row(name: str, seed: int, b: dict, n: dict) -> dict:
    seq = n["details"].get("sequential") or {}
    return {
        "check": name,
        "seed": seed,
        "fixed_n_verdict": b["verdict"],
        "sequential_verdict": n["verdict"],
        "verdict_changed": b["verdict"] != n["verdict"],
        "fixed_n_epsilon_lb": b["estimate"],
        "sequential_epsilon_lb": n["estimate"],
        "fixed_n_releases": b["n_samples"],
        "sequential_releases": n["n_samples"],
        "planned": seq.get("releases_planned"),
        "stop_reason": seq.get("stop_reason"),
        "by_stage": seq.get("releases_by_stage"),
        "point_estimate": (seq.get("point_estimate") or {}).get("log_ratio"),
        "fixed_n_seconds": b["seconds"],
        "sequential_seconds": n["seconds"],
    }


def fmt(x) -> str:
    return "∞" if x is None else (f"{x:.3g}" if isinstance(x, float) else str(x))


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--base", default="/tmp/seq_base_{seed}", help="fixed-n report folder per seed ({seed})")
    p.add_argument("--new", default="/tmp/seq_{seed}", help="sequential report folder per seed ({seed})")
    p.add_argument("--seeds", type=int, nargs="+", default=list(DEFAULT_SEEDS))
    p.add_argument("--run", action="store_true", help="run both arms first (needs --base-tree and --new-tree)")
    p.add_argument("--base-tree")
    p.add_argument("--new-tree")
    p.add_argument("--profile", default="quick", choices=["quick", "full"])
    p.add_argument("--note", default="", help="free text stored with the results (e.g. how the arms were run)")
    p.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "results", "bench_seq_checks.json"))
    args = p.parse_args()
    runs: dict = {}
    if args.run:
        if not (args.base_tree and args.new_tree):
            p.error("--run needs --base-tree and --new-tree")
        names = model_checks(args.new_tree)
        for seed in args.seeds:
            for arm, tree, folder in (("fixed_n", args.base_tree, args.base), ("sequential", args.new_tree, args.new)):
                runs[f"{arm}/{seed}"] = run_arm(tree, names, seed, args.profile, folder.format(seed=seed))
                print(f"{arm} seed {seed}: {runs[f'{arm}/{seed}']}", flush=True)
    rows = []
    for seed in args.seeds:
        base, new = load(args.base.format(seed=seed)), load(args.new.format(seed=seed))
        rows += [row(k, seed, base[k], new[k]) for k in sorted(new) if k in base]
    tot_b = sum(r["fixed_n_releases"] for r in rows)
    tot_n = sum(r["sequential_releases"] for r in rows)
    summary = {
        "checks_x_seeds": len(rows),
        "verdicts_changed": [
            (r["check"], r["seed"], r["fixed_n_verdict"], r["sequential_verdict"]) for r in rows if r["verdict_changed"]
        ],
        "violated_fixed_n": sum(r["fixed_n_verdict"] == "violated" for r in rows),
        "violated_sequential": sum(r["sequential_verdict"] == "violated" for r in rows),
        "releases_fixed_n": tot_b,
        "releases_sequential": tot_n,
        "releases_saved_fraction": 1 - tot_n / tot_b if tot_b else None,
        "stop_reasons": {s: sum(r["stop_reason"] == s for r in rows) for s in ("violated", "futility", "budget")},
        "seconds_fixed_n": sum(r["fixed_n_seconds"] for r in rows),
        "seconds_sequential": sum(r["sequential_seconds"] for r in rows),
    }
    print(
        "| check | seed | verdict fixed-n → sequential | ε_lb fixed-n → seq. | releases fixed-n | used / planned "
        "(stop) | point est. |"
    )
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        print(
            f"| `{r['check'].removeprefix('diffprivlib.models.')}` | {r['seed']} | {r['fixed_n_verdict']} → "
            f"{r['sequential_verdict']} | {fmt(r['fixed_n_epsilon_lb'])} → {fmt(r['sequential_epsilon_lb'])} | "
            f"{r['fixed_n_releases']} | {r['sequential_releases']} / {r['planned']} ({r['stop_reason']}) | "
            f"{fmt(r['point_estimate']) if r['stop_reason'] == 'violated' else ''} |"
        )
    print(json.dumps(summary, indent=1))
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w", encoding="utf-8") as fh:
        json.dump(
            {"argv": sys.argv[1:], "profile": args.profile, "runs": runs, "summary": summary, "rows": rows},
            fh,
            indent=1,
        )


if __name__ == "__main__":
    main()
