"""How often the public audit's pair search keeps a good pair, over many seeds, on the benchmark's SVT rows.

For each row with an exact law (SVT1, SVT2, SVT4: 9 catalogue pairs each, StatDP's patterns plus an in-domain
extreme pair) the *oracle* bound of every pair is computed from the exact laws at the certification size (the best
likelihood-ratio event, :func:`audits.benchmark.ceiling._best_prefix`), and a pair is *good* when its oracle bound is
at least ``--good`` (default 0.9) of the best pair's.  Then, for ``--seeds`` run seeds, the search stage of the
public ``audit(m, claim, pairs=all, attacks="auto")`` runs exactly as ``audit()`` runs it at the benchmark's budget
split (``audits.benchmark.run.auto_sizes``) and the chosen pair is recorded::

    python benchmarks/bench_pair_search.py --budget 1000000 --seeds 30
    python benchmarks/bench_pair_search.py --rows SVT4 --budget 4000000 --seeds 30

Prints per row: pairs, good pairs, the oracle bound of each, the search's hit rate (chosen pair good) with a
Clopper–Pearson 95 % interval, and the median ratio of the chosen pair's oracle bound to the best pair's.
Writes ``benchmarks/results/pair_search.json``.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
from scipy import stats

from audits.benchmark.catalogue import get_mechanism
from audits.benchmark.ceiling import _best_prefix, partition_probabilities
from audits.benchmark.run import auto_sizes
from htdp_verify.privacy.plan import plan_audit
from htdp_verify.privacy.selection import search_stage


def oracle_by_pair(name: str, n: int, alpha: float = 0.05) -> dict[str, float]:
    m = get_mechanism(name)
    out = {}
    for p in m.pairs:
        P1, P2 = partition_probabilities(name, p.d, p.d_prime)
        out[p.label] = max(_best_prefix(P1, P2, n, alpha)[0], _best_prefix(P2, P1, n, alpha)[0])
    return out


def search_once(name: str, budget: int, seed: int) -> str:
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
    return search_stage(plan, rng).pair.label


def cp(k: int, n: int) -> tuple[float, float]:
    lo = stats.beta.ppf(0.025, k, n - k + 1) if k > 0 else 0.0
    hi = stats.beta.ppf(0.975, k + 1, n - k) if k < n else 1.0
    return float(lo), float(hi)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", nargs="*", default=["SVT1", "SVT2", "SVT4"])
    ap.add_argument("--budget", type=int, default=1_000_000, help="releases per side in all (as `bench --quick`)")
    ap.add_argument("--seeds", type=int, default=30)
    ap.add_argument("--good", type=float, default=0.9)
    ap.add_argument("--out", default=str(Path(__file__).parent / "results" / "pair_search.json"))
    a = ap.parse_args()
    report = []
    for name in a.rows:
        n_cert = auto_sizes(a.budget, len(get_mechanism(name).pairs))["n_samples"]
        ob = oracle_by_pair(name, n_cert)
        best = max(ob.values())
        good = {k for k, v in ob.items() if v >= a.good * best}
        t = time.perf_counter()
        chosen = [search_once(name, a.budget, s) for s in range(a.seeds)]
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
            "hits": hits,
            "hit_rate_ci95": cp(hits, a.seeds),
            "median_oracle_ratio_of_chosen": ratio,
            "chosen": chosen,
            "seconds": round(time.perf_counter() - t, 1),
        }
        report.append(row)
        print(
            f"{name}: {len(good)}/{len(ob)} good pairs (oracle best {best:.3f}); search kept a good pair "
            f"{hits}/{a.seeds} (95% CI {row['hit_rate_ci95'][0]:.2f}-{row['hit_rate_ci95'][1]:.2f}); median "
            f"oracle ratio of the chosen pair {ratio:.2f}; {row['seconds']} s",
            flush=True,
        )
    Path(a.out).parent.mkdir(parents=True, exist_ok=True)
    Path(a.out).write_text(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
