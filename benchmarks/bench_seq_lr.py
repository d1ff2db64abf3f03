"""Benchmark: releases a sequential audit needs to find diffprivlib's ``LinearRegression`` leak (claim ε = 0.1).

The registered check ``diffprivlib.models.LinearRegression.eps0_1`` audits the component on its candidate pairs
(up to ``max_pairs`` of them, each searched).  This script runs the same audit (same adapter, pairs, attacks, α and
sizes as the registered check at ``--profile``) under three designs and prints, per seed, the verdict, the certified
bound and the releases used per side (search, selection and certification together):

* ``fixed``: the fixed-n audit (``n_search · pairs + n_select + n_samples`` per side);
* ``fixed_split``: ``RoundsDesign.fixed_split()``, the registered checks' default (the fixed-n search and selection,
  a certification that stops early);
* ``rounds``: growing rounds from a small first round, ``RoundsDesign(first_select=F)`` (``--first``).

Run::

    python benchmarks/bench_seq_lr.py --profile full --seeds 6 --designs rounds fixed_split --first 20

Seeds are ``1000 + i``.  CPU time is the parent process's (diffprivlib fits in this process here).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from audits.diffprivlib.checks import _sizes, audit_component, check_alpha
from audits.diffprivlib.components import COMPONENTS
from htdp_verify.privacy.sequential.rounds import RoundsDesign


def run(profile: str, design: str, seed: int, first: int) -> dict:
    comp = COMPONENTS["models.LinearRegression"]
    sizes = _sizes(comp, profile)
    max_pairs = sizes.pop("max_pairs")
    pairs = comp.pairs()[:max_pairs]
    seq = {"fixed": None, "fixed_split": RoundsDesign.fixed_split(), "rounds": RoundsDesign(first_select=first)}[design]
    t = time.process_time()
    r = audit_component(
        comp.build(0.1),
        pairs,
        rng=np.random.default_rng(1000 + seed),
        attacks=comp.attacks,
        max_pairs=max_pairs,
        alpha=check_alpha(),
        name="models.LinearRegression.eps0_1",
        sequential=seq,
        **sizes,
    )
    fixed_total = sizes["n_search"] * len(pairs) * (len(pairs) > 1) + sizes["n_select"] + sizes["n_samples"]
    used = r.details["sequential"]["releases_per_side"] if seq is not None else fixed_total
    return {
        "design": design,
        "seed": 1000 + seed,
        "verdict": r.verdict,
        "eps_lb": float(r.estimate),
        "releases_per_side": int(used),
        "fixed_n_per_side": int(fixed_total),
        "stop_reason": r.details.get("sequential", {}).get("stop_reason"),
        "cpu_seconds": round(time.process_time() - t, 2),
    }


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--profile", choices=("quick", "full"), default="full")
    ap.add_argument("--seeds", type=int, default=6)
    ap.add_argument("--first", type=int, default=20, help="first_select of the rounds design")
    ap.add_argument(
        "--designs", nargs="+", default=["rounds", "fixed_split"], choices=("fixed", "fixed_split", "rounds")
    )
    ap.add_argument("--out", default=None, help="write the rows as JSON here")
    a = ap.parse_args(argv)
    rows = []
    print("| design | seed | verdict | ε_lb | releases per side | of fixed-n | stop |")
    print("|---|---|---|---|---|---|---|")
    for d in a.designs:
        for s in range(a.seeds):
            row = run(a.profile, d, s, a.first)
            rows.append(row)
            print(
                f"| {d} | {row['seed']} | {row['verdict']} | {row['eps_lb']:.3f} | {row['releases_per_side']} | "
                f"{row['releases_per_side'] / row['fixed_n_per_side']:.0%} | {row['stop_reason']} |",
                flush=True,
            )
    if a.out:
        Path(a.out).write_text(json.dumps({"profile": a.profile, "first": a.first, "rows": rows}, indent=1))


if __name__ == "__main__":
    main()
