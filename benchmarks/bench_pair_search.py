"""How often the public audit's pair search keeps a good pair, over many seeds, on the benchmark's rows.

For each row (default SVT1, SVT2, SVT4: 9 catalogue pairs each, StatDP's patterns plus an in-domain extreme pair;
``--rows`` takes any catalogue row whose every pair has an exact law, i.e. those of
:data:`audits.benchmark.ceiling.CEILING_MECHANISMS` with more than one pair: ReportNoisyMax1–3, RAPPOR,
OneTimeRAPPOR, Laplace, TruncatedGeometric, NoisyHist1/2, PrefixSum_N1, ...) the *oracle* bound of every pair
is computed from the exact laws at the certification size (the best likelihood-ratio event,
:func:`audits.benchmark.ceiling._best_prefix`), and a pair is *good* when its oracle bound is at least
``--good`` (default 0.9) of the best pair's.  Then, for ``--seeds`` run seeds, the search stage of the public
``audit(m, claim, pairs=all, attacks="auto")`` runs exactly as ``audit()`` runs it at the benchmark's budget
split (``audits.benchmark.run.auto_sizes``) and the chosen pair is recorded::

    python benchmarks/bench_pair_search.py --budget 1000000 --seeds 30
    python benchmarks/bench_pair_search.py --rows SVT4 --budget 4000000 --seeds 30
    python benchmarks/bench_pair_search.py --rows ReportNoisyMax1 ReportNoisyMax3 RAPPOR --seeds 30

``--set NAME=VALUE`` overrides a constant of :mod:`htdp_verify.privacy.search` for the run (to compare
configurations with the same script; ``--set PAIRED_SELECT=False`` is the search before its paired selection);
``--legacy`` sets the constants of the search before common random numbers and pooling (``COUPLED=False POOL=False
PAIRED_SE=False PAIRED_SELECT=False HELD_OUT_Z=1.0 ROUNDS=((0.4, 1.0), (0.6, 1/3))``), which reproduces it.

``--finalists`` also records, per seed, the pairs of the search's last round with their held-out score (the
predicted bound) and its standard error: how far apart the scores must be for the decision to be reliable::

    python benchmarks/bench_pair_search.py --rows SVT1 SVT4 --budget 20000000 --seeds 12 --finalists

Prints per row: pairs, good pairs, the oracle bound of each, the search's hit rate (chosen pair good) with a
Clopper–Pearson 95 % interval, and the median ratio of the chosen pair's oracle bound to the best pair's.
Writes ``benchmarks/results/pair_search.json`` (or ``--out``); rows without an exact law for every pair, or with a
single pair, are skipped with a message.
"""

from __future__ import annotations

import argparse
import ast
import json
import time
from pathlib import Path

import numpy as np
from scipy import stats

import htdp_verify.privacy.search as search_module
from audits.benchmark.catalogue import get_mechanism
from audits.benchmark.ceiling import oracle_by_pair as ceiling_by_pair
from audits.benchmark.run import auto_sizes
from htdp_verify.privacy.plan import plan_audit
from htdp_verify.privacy.selection import search_stage

LEGACY = {
    "COUPLED": False,
    "POOL": False,
    "PAIRED_SE": False,
    "PAIRED_SELECT": False,
    "HELD_OUT_Z": 1.0,
    "ROUNDS": ((0.4, 1.0), (0.6, 1 / 3)),
}


def oracle_by_pair(name: str, n: int, alpha: float = 0.05) -> dict[str, float] | None:
    """Oracle bound of every pair of row ``name`` at ``n`` per side, or ``None`` when a pair has no exact law."""
    by_pair = ceiling_by_pair(name, n, alpha)
    return None if by_pair is None else {k: v["epsilon"] for k, v in by_pair.items()}


def search_once(name: str, budget: int, seed: int, finalists: list | None = None) -> str:
    """The pair the search stage keeps for ``name`` at ``budget`` per side and run ``seed``; with a list
    ``finalists``, the last round's pairs are appended to it as ``{"pair", "predicted", "se"}`` (best first)."""
    m = get_mechanism(name)
    sizes = auto_sizes(budget, len(m.pairs))
    rng = np.random.default_rng(seed)
    plan = plan_audit(
        m,
        m.claim(),
        pairs=list(m.pairs),
        neighbours=None,
        n_samples=sizes["n_samples"],
        alpha=0.05,
        attacks="auto",
        rng=rng,
        n_select=None,
        n_search=None,
        n_certify=1,
        log_density=None,
        directions=None,
        profile=None,
        profile_epsilons=None,
        profile_share=0.2,
        max_candidates=4096,
        chunk_size=1_000_000,
        name=name,
    )
    out = search_stage(plan, rng)
    if finalists is not None:
        last = out.table[0]["round"]
        finalists.append(
            [
                {"pair": t["pair"], "predicted": t["predicted_bound"], "se": t["predicted_se"]}
                for t in out.table
                if t["round"] == last
            ]
        )
    return out.pair.label


def cp(k: int, n: int) -> tuple[float, float]:
    lo = stats.beta.ppf(0.025, k, n - k + 1) if k > 0 else 0.0
    hi = stats.beta.ppf(0.975, k + 1, n - k) if k < n else 1.0
    return float(lo), float(hi)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", nargs="*", default=["SVT1", "SVT2", "SVT4"])
    ap.add_argument("--budget", type=int, default=1_000_000, help="releases per side in all (as `bench --quick`)")
    ap.add_argument("--seeds", type=int, default=30)
    ap.add_argument("--first-seed", type=int, default=0, help="run seeds first-seed, first-seed + 1, ... (default 0)")
    ap.add_argument("--good", type=float, default=0.9)
    ap.add_argument("--out", default=str(Path(__file__).parent / "results" / "pair_search.json"))
    ap.add_argument("--set", nargs="*", default=[], metavar="NAME=VALUE", help="override a search constant")
    ap.add_argument("--legacy", action="store_true", help="the search's constants before common random numbers")
    ap.add_argument(
        "--finalists", action="store_true", help="record each seed's last-round pairs with score and standard error"
    )
    a = ap.parse_args()
    config = dict(LEGACY) if a.legacy else {}
    for kv in a.set:
        k, v = kv.split("=", 1)
        config[k] = ast.literal_eval(v)
    for k, v in config.items():
        if not hasattr(search_module, k):
            raise ValueError(f"--set: htdp_verify.privacy.search has no constant {k}")
        setattr(search_module, k, v)
    report = []
    for name in a.rows:
        npairs = len(get_mechanism(name).pairs)
        n_cert = auto_sizes(a.budget, npairs)["n_samples"]
        ob = oracle_by_pair(name, n_cert) if npairs > 1 else None
        if ob is None:
            print(f"{name}: skipped (a single pair, or a pair without an exact law)", flush=True)
            continue
        best = max(ob.values())
        good = {k for k, v in ob.items() if v >= a.good * best}
        t, c = time.perf_counter(), time.process_time()
        fin: list | None = [] if a.finalists else None
        chosen = [search_once(name, a.budget, s, fin) for s in range(a.first_seed, a.first_seed + a.seeds)]
        hits = sum(c in good for c in chosen)
        ratio = float(np.median([ob[c] / best if best > 0 else 0.0 for c in chosen]))
        row = {
            "row": name,
            "budget_per_side": a.budget,
            "n_certify": n_cert,
            "pairs": len(ob),
            "good_pairs": sorted(good),
            "oracle_by_pair": ob,
            "seeds": a.seeds,
            "first_seed": a.first_seed,
            "hits": hits,
            "hit_rate_ci95": cp(hits, a.seeds),
            "median_oracle_ratio_of_chosen": ratio,
            "chosen": chosen,
            "seconds": round(time.perf_counter() - t, 1),
            "cpu_seconds": round(time.process_time() - c, 1),
            "search_config": {k: repr(v) for k, v in config.items()} or "default",
            **({"finalists": fin} if fin is not None else {}),
        }
        report.append(row)
        print(
            f"{name}: {len(good)}/{len(ob)} good pairs (oracle best {best:.3f}); search kept a good pair "
            f"{hits}/{a.seeds} (95% CI {row['hit_rate_ci95'][0]:.2f}-{row['hit_rate_ci95'][1]:.2f}); median "
            f"oracle ratio of the chosen pair {ratio:.2f}; {row['seconds']} s ({row['cpu_seconds']} s CPU)",
            flush=True,
        )
        Path(a.out).parent.mkdir(parents=True, exist_ok=True)
        Path(a.out).write_text(json.dumps(report, indent=1))  # after every row: a long run keeps what it measured


if __name__ == "__main__":
    main()
