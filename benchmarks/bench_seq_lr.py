"""Benchmark: releases a sequential audit needs to find diffprivlib's ``LinearRegression`` leak (claim ε = 0.1).

The registered check ``diffprivlib.models.LinearRegression.eps0_1`` audits the component on its candidate pairs
(up to ``max_pairs`` of them, each searched).  This script runs the same audit (same adapter, pairs, attacks, α and
sizes as the registered check at ``--profile``; ``--attacks registered`` adds the gradient boosting the registered
check uses at the full profile, ``--component`` / ``--epsilon`` audit another model the same way) under several
designs and prints, per seed, the verdict, the certified bound and the releases used per side (search, selection
and certification together):

* ``fixed``: the fixed-n audit (``n_search · pairs + n_select + n_samples`` per side);
* ``fixed_split``: ``RoundsDesign.fixed_split()`` (the fixed-n search and selection, a certification that stops
  early);
* ``rounds``: growing rounds from a small first round, ``RoundsDesign(first_select=F)`` (``--first``);
  ``rounds_noseed`` the same without the pair search's events among the selection's candidates, ``rounds_halve``
  with successive halving of the candidate pairs over the rounds (``halve_pairs=True``);
* ``per_call``: ``RoundsDesign.per_call()`` (a probe round of ``MIN_ROUND`` at α/10 on top of the fixed-n budget,
  with looks ×1.2 and bets up to 0.8, then the fixed split at the α left, with its looks ×1.5 and bets up to
  0.5), the registered model checks' default; ``per_call_x10`` the same with the probe's looks and bets in the
  split too; ``per_call_old`` the former per_call (the probe at α/2 inside the fixed-n budget, looks ×1.2 and
  bets up to 0.8 in both rounds), ``per_call_bet05`` / ``per_call_look15`` / ``per_call_a10`` that with bets capped
  at 0.5 / looks ×1.5 / the probe at α/10; ``per_call_x`` ``per_call_x10`` with the probe at α/2;
* ``default``: whatever the registered check runs (``audits.diffprivlib.checks.sequential_design``).

Run::

    python benchmarks/bench_seq_lr.py --profile full --seeds 6 --designs rounds fixed_split --first 20

Seeds are ``--seed-base + i`` (default 1000: the set the sequential designs were tuned on; 2000 is held out).
CPU time is the parent process's (diffprivlib fits in this process here).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from audits.diffprivlib.checks import _sizes, audit_component, check_alpha, sequential_design
from audits.diffprivlib.components import COMPONENTS
from htdp_verify.privacy.sequential import RoundsDesign

#: the former per_call (before 2026-11-25): the probe at alpha/2 inside the fixed-n budget, looks x1.2 and bets up
#: to 0.8 in both rounds
OLD = dict(probe_share=0.5, probe_extra=False, look_growth=1.2, max_bet=0.8, probe_look_growth=None, probe_max_bet=None)
#: per_call as first changed on 2026-11-25: the probe at alpha/10 on top of the budget, looks x1.2 and bets up to 0.8
#: in both rounds
X10 = dict(look_growth=1.2, max_bet=0.8, probe_look_growth=None, probe_max_bet=None)


def designs(first: int) -> dict:
    """The designs compared (``None``: the fixed-n audit)."""
    return {
        "fixed": None,
        "fixed_split": RoundsDesign.fixed_split(),
        "rounds": RoundsDesign(first_select=first),
        "rounds_noseed": RoundsDesign(first_select=first, seed_events=False),
        "rounds_halve": RoundsDesign(first_select=first, halve_pairs=True),
        "per_call": RoundsDesign.per_call(),
        # the former per_call (before 2026-11-25): the probe at alpha/2 inside the fixed-n budget, and variants of it
        "per_call_old": RoundsDesign.per_call(**OLD),
        "per_call_bet05": RoundsDesign.per_call(**{**OLD, "max_bet": 0.5}),
        "per_call_a10": RoundsDesign.per_call(**{**OLD, "probe_share": 0.1}),
        "per_call_look15": RoundsDesign.per_call(**{**OLD, "look_growth": 1.5}),
        "per_call_x": RoundsDesign.per_call(**X10, probe_share=0.5),
        "per_call_x10": RoundsDesign.per_call(**X10),
        "default": None,  # the registered check's own default (audits/diffprivlib/checks.py sequential_design)
    }


def run(
    profile: str,
    design: str,
    seed: int,
    first: int,
    base: int = 1000,
    component: str = "models.LinearRegression",
    epsilon: float = 0.1,
    attacks: str = "component",
) -> dict:
    comp = COMPONENTS[component]
    sizes = _sizes(comp, profile)
    max_pairs = sizes.pop("max_pairs")
    pairs = comp.pairs()[:max_pairs]
    seq = sequential_design(comp.kind) if design == "default" else designs(first)[design]
    registered = attacks == "registered" and profile == "full" and comp.full_attacks
    t = time.process_time()
    r = audit_component(
        comp.build(epsilon),
        pairs,
        rng=np.random.default_rng(base + seed),
        attacks=comp.full_attacks if registered else comp.attacks,
        max_pairs=max_pairs,
        alpha=check_alpha(),
        name=f"{component}.eps{epsilon:g}",
        sequential=seq,
        **sizes,
    )
    fixed_total = sizes["n_search"] * len(pairs) * (len(pairs) > 1) + sizes["n_select"] + sizes["n_samples"]
    used = r.details["sequential"]["releases_per_side"] if seq is not None else fixed_total
    return {
        "component": component,
        "epsilon": epsilon,
        "attacks": attacks,
        "design": design,
        "seed": base + seed,
        "verdict": r.verdict,
        "eps_lb": float(r.estimate),
        "releases_per_side": int(used),
        "fixed_n_per_side": int(fixed_total),
        "load_avg": os.getloadavg()[0],
        "stop_reason": r.details.get("sequential", {}).get("stop_reason"),
        "by_stage_per_side": {k: v // 2 for k, v in r.details["sequential"]["releases_by_stage"].items()}
        if seq is not None
        else None,
        "rounds": r.details["sequential"]["rounds_used"] if seq is not None else None,
        "cpu_seconds": round(time.process_time() - t, 2),
    }


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--profile", choices=("quick", "full"), default="full")
    ap.add_argument("--seeds", type=int, default=6)
    ap.add_argument("--first", type=int, default=20, help="first_select of the rounds design")
    ap.add_argument("--designs", nargs="+", default=["rounds", "fixed_split"], choices=tuple(designs(20)))
    ap.add_argument("--seed-base", type=int, default=1000, help="seeds are seed_base + 0 .. seeds - 1")
    ap.add_argument("--component", default="models.LinearRegression", help="another model, e.g. models.KMeans")
    ap.add_argument("--epsilon", type=float, default=0.1)
    ap.add_argument(
        "--attacks",
        choices=("component", "registered"),
        default="component",
        help="the component's attacks, or the registered check's (at the full profile: with gradient boosting)",
    )
    ap.add_argument("--out", default=None, help="write the rows as JSON here")
    a = ap.parse_args(argv)
    rows = []
    print("| design | seed | verdict | ε_lb | releases per side | of fixed-n | stop | rounds | search/select/certify |")
    print("|---|---|---|---|---|---|---|---|---|")
    for d in a.designs:
        for s in range(a.seeds):
            row = run(a.profile, d, s, a.first, a.seed_base, a.component, a.epsilon, a.attacks)
            rows.append(row)
            print(
                f"| {d} | {row['seed']} | {row['verdict']} | {row['eps_lb']:.3f} | {row['releases_per_side']} | "
                f"{row['releases_per_side'] / row['fixed_n_per_side']:.0%} | {row['stop_reason']} | {row['rounds']} | "
                + ("/".join(str(v) for v in row["by_stage_per_side"].values()) if row["by_stage_per_side"] else "")
                + " |",
                flush=True,
            )
    for d in a.designs:
        rs = [r for r in rows if r["design"] == d]
        found = [r["releases_per_side"] for r in rs if r["verdict"] == "violated"]
        med = np.median([r["releases_per_side"] for r in rs])
        print(
            f"{d}: violated {len(found)}/{len(rs)}; releases per side median {med:.0f}"
            + (f", median when violated {np.median(found):.0f}, max {max(found)}" if found else "")
            + f"; CPU {sum(r['cpu_seconds'] for r in rs):.0f} s",
            flush=True,
        )
    if a.out:
        Path(a.out).write_text(
            json.dumps({"profile": a.profile, "first": a.first, "argv": sys.argv[1:], "rows": rows}, indent=1)
        )


if __name__ == "__main__":
    main()
