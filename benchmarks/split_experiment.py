"""Experiment: the benchmark's public "auto" column under another split of the per-side budget.

``audit()``'s default split of a budget B per side is a pair search of n/4, a selection of n/8 and a certification
of n releases (n = B / 1.375 with several pairs; n/2 and n/4, B / 1.75, before 2026-11-29).  This script re-runs
the bench's auto column, row by row and with the bench's own generators (``SeedSequence([seed, crc32(row),
crc32("auto")])``), with the search and the selection as other fractions of n passed to ``audit(n_search=,
n_select=)``, so a split can be compared with the default at the same seeds before it is proposed as one.  It changes
no default; the README's tables come from ``htdp-verify bench``, not from it.

Usage::

    python benchmarks/split_experiment.py --search 0.25 --select 0.125 --budget 20000000 \\
        --rows SVT1 SVT2 --seeds 20261126 20261145 --out FILE.jsonl

One JSON line per audit: row, seed, split, certification size, ε_lb, verdict, whether the verdict matches the
row's ground truth, chosen pair, seconds.  With the default fractions the lines equal the bench's own runs.  The
auditor before 2026-11-29 is ``--search 0.5 --select 0.25 --independent-select --set search.HELD_OUT_Z=1``.
"""

from __future__ import annotations

import argparse
import json
import time
import zlib

import numpy as np

from audits.benchmark.catalogue import get_mechanism, mechanism_names
from htdp_verify.privacy import audit, runoff, search, selection
from htdp_verify.privacy.search import MIN_PER_PAIR


def sizes(budget: int, n_pairs: int, search: float, select: float) -> dict:
    """The largest certification size n whose search and selection, as fractions of n, fit the budget (the rule of
    ``audits.benchmark.run.auto_sizes``, which it equals at the default fractions 0.25 and 0.125)."""
    n = int(budget / (1 + select + (search if n_pairs > 1 else 0.0)))

    def total(n):
        return n + max(2000, int(n * select)) + (max(MIN_PER_PAIR * n_pairs, int(n * search)) if n_pairs > 1 else 0)

    while n > 10 and total(n) > budget:
        n = int(n * 0.98)
    default = (search, select) == (0.25, 0.125)  # then audit() derives the same sizes itself, as the bench calls it
    return {
        "n_samples": n,
        "n_select": None if default else max(2000, int(n * select)),
        "n_search": None if default or n_pairs == 1 else max(MIN_PER_PAIR * n_pairs, int(n * search)),
    }


def runoff_line(r) -> list:
    """The run-off's table of a result, short: each finalist's label, held-out prediction and whether it was kept."""
    table = r.details.get("selection", {}).get("runoff", [])
    return [[t["pair"].split(":")[0][:40], round(t["predicted_bound"], 5), t["kept"]] for t in table]


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--search", type=float, default=0.25, help="pair search as a fraction of n (default 0.25)")
    ap.add_argument("--select", type=float, default=0.125, help="selection as a fraction of n (default 0.125)")
    ap.add_argument("--budget", type=int, default=20_000_000, help="releases per side per row, all stages")
    ap.add_argument("--rows", nargs="*", default=None, help="catalogue rows (default all)")
    ap.add_argument("--seeds", type=int, nargs=2, default=[20261126, 20261145], help="first and last run seed")
    ap.add_argument(
        "--coupled-select",
        action="store_true",
        help="selection releases drawn with common random numbers and scored by paired errors "
        "(htdp_verify.privacy.selection.COUPLED_SELECT; the default since 2026-11-29, kept for old commands)",
    )
    ap.add_argument(
        "--independent-select",
        action="store_true",
        help="the selection's two sides drawn independently (COUPLED_SELECT = False; the default before 2026-11-29)",
    )
    ap.add_argument(
        "--set",
        nargs="*",
        default=[],
        metavar="MODULE.NAME=VALUE",
        help="override a numeric constant of htdp_verify.privacy.search, .selection or .runoff for the run, e.g. "
        "search.HELD_OUT_Z=0 or runoff.RUNOFF=1 (recorded in every line)",
    )
    ap.add_argument("--out", required=True, help="JSON-lines file (appended)")
    a = ap.parse_args(argv)
    if not (0 < a.search <= 4 and 0 < a.select <= 4):
        ap.error("--search and --select must be fractions of n in (0, 4]")
    rows = a.rows or list(mechanism_names())
    if a.coupled_select and a.independent_select:
        ap.error("--coupled-select and --independent-select exclude each other")
    selection.COUPLED_SELECT = not a.independent_select
    overrides = {}
    for item in a.set:
        key, _, value = item.partition("=")
        mod_name, _, const = key.partition(".")
        mod = {"search": search, "selection": selection, "runoff": runoff}.get(mod_name)
        if mod is None or not hasattr(mod, const) or not value:
            ap.error(f"--set takes search|selection|runoff.NAME=VALUE for an existing constant, got {item!r}")
        setattr(mod, const, float(value))
        overrides[key] = float(value)
    with open(a.out, "a") as f:
        for seed in range(a.seeds[0], a.seeds[1] + 1):
            for name in rows:
                m = get_mechanism(name)
                z = sizes(a.budget, len(m.pairs), a.search, a.select)
                rng = np.random.default_rng(
                    np.random.SeedSequence([seed, zlib.crc32(name.encode()), zlib.crc32(b"auto")])
                )
                t0 = time.process_time()
                r = audit(
                    m, m.claim(), pairs=list(m.pairs), n_samples=z["n_samples"], n_select=z["n_select"],
                    n_search=z["n_search"], rng=rng, attacks="auto", name=f"benchmark.{name}",
                )  # fmt: skip
                pair = r.details.get("pair")
                line = {
                    "row": name,
                    "seed": seed,
                    "search": a.search,
                    "select": a.select,
                    "coupled_select": selection.COUPLED_SELECT,  # lines before 2026-11-29 without it: False
                    **({"set": overrides} if overrides else {}),
                    "budget": a.budget,
                    "n_samples": z["n_samples"],
                    "epsilon_lb": r.epsilon_lb,
                    "verdict": r.verdict,
                    "right": (r.verdict == "violated") == m.buggy,
                    "pair": pair.get("label") if isinstance(pair, dict) else str(pair),
                    **({"runoff": runoff_line(r)} if runoff.RUNOFF else {}),
                    "cpu_s": round(time.process_time() - t0, 2),
                }
                f.write(json.dumps(line) + "\n")
                f.flush()
                print(json.dumps(line), flush=True)


if __name__ == "__main__":
    main()
