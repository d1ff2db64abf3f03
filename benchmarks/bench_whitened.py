"""What the whitened family adds to "auto": the public audit of benchmark rows with and without it, paired seeds.

For each row and seed, ``audits.benchmark.run.audit_mechanism(name, n_per_side=BUDGET, rng=...)`` runs twice on the
same generator seed: once as shipped, once with :class:`~htdp_verify.privacy.attacks.WhitenedAttack` taken out of
"auto" (its ``applicable`` made to return False for the run).  Everything else (pairs, split, other families,
certification) is the same, so the paired difference of the certified bounds is the family's effect: a gain where
its events are better, a loss where one of its events wins the selection's held-out comparison by chance (the
winner's curse of one more family).  The default rows are the benchmark's continuous vector releases without
atoms, the only ones for which "auto" includes the family::

    python benchmarks/bench_whitened.py --budget 1000000 --seeds 5
    python benchmarks/bench_whitened.py --rows PrefixSum --budget 200000 --seeds 20 --seed-base 100

Prints one line per row: the median bound with and without, the paired median difference, how often each was
higher, and the flags (verdict "violated") of each; writes ``benchmarks/results/whitened.json`` (or ``--out``).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import time
import zlib
from pathlib import Path

import numpy as np

from audits.benchmark.run import audit_mechanism
from htdp_verify.privacy.attacks import WhitenedAttack

ROWS = ("NoisyHist1", "NoisyHist2", "LaplaceParallel", "PrefixSum", "PrefixSum_N1")


@contextlib.contextmanager
def without_whitened():
    """Take the whitened family out of "auto" for the duration."""
    original = WhitenedAttack.applicable
    WhitenedAttack.applicable = lambda self, Y: False  # type: ignore[method-assign]
    try:
        yield
    finally:
        WhitenedAttack.applicable = original  # type: ignore[method-assign]


def one(name: str, budget: int, seed: int, whitened: bool) -> dict:
    rng = np.random.default_rng(np.random.SeedSequence([seed, zlib.crc32(name.encode()), zlib.crc32(b"auto")]))
    t0 = time.process_time()
    with contextlib.nullcontext() if whitened else without_whitened():
        r = audit_mechanism(name, n_per_side=budget, rng=rng)
    return {
        "eps_lb": float(r.epsilon_lb),
        "verdict": r.verdict,
        "attack": r.details.get("event", {}).get("attack"),
        "cpu_s": round(time.process_time() - t0, 1),
    }


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rows", nargs="+", default=list(ROWS))
    ap.add_argument("--budget", type=float, default=1e6, help="releases per side in all (default 1e6)")
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--seed-base", type=int, default=1)
    ap.add_argument("--out", default=str(Path(__file__).parent / "results" / "whitened.json"))
    a = ap.parse_args(argv)
    budget = int(a.budget)
    out = {"budget": budget, "seeds": [a.seed_base + i for i in range(a.seeds)], "rows": {}}
    for name in a.rows:
        runs = []
        for seed in out["seeds"]:
            runs.append(
                {"seed": seed, "with": one(name, budget, seed, True), "without": one(name, budget, seed, False)}
            )
        w = np.array([r["with"]["eps_lb"] for r in runs])
        wo = np.array([r["without"]["eps_lb"] for r in runs])
        d = w - wo
        flags = (
            sum(r["with"]["verdict"] == "violated" for r in runs),
            sum(r["without"]["verdict"] == "violated" for r in runs),
        )
        won = sum(r["with"]["attack"] == "whitened" for r in runs)
        print(
            f"{name:16s} with {np.median(w):.4g}  without {np.median(wo):.4g}  paired median diff {np.median(d):+.4g}"
            f"  higher {int((d > 0).sum())} / lower {int((d < 0).sum())} / equal {int((d == 0).sum())}"
            f"  flagged {flags[0]} vs {flags[1]}  whitened certified {won}/{len(runs)}",
            flush=True,
        )
        out["rows"][name] = runs
    Path(a.out).parent.mkdir(parents=True, exist_ok=True)
    Path(a.out).write_text(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
