"""How often can a five-seed benchmark meet issue 16's target at all?  The oracle's own odds, and the auditor's.

The target: on every row with a published DP-Sniper bound, the *median over 5 seeds* of the public ``audit()``
column is at or above DP-Sniper's number, or at least 0.95 of the oracle ceiling (the median bound of an auditor
that knows both exact laws and spends the whole budget certifying the best pair's best event,
:func:`audits.benchmark.ceiling.oracle_ceiling`).  A five-seed median is random, and so is the oracle's own bound,
so this script asks how likely the target is to be met, for four auditors on each row with an exact law and a
DP-Sniper number:

1. ``oracle_full`` — the oracle itself at the full budget (the target's own reference);
2. ``oracle_cert_best`` — the oracle at the auditor's certification size (the budget minus the pair search's n/4
   and the selection's n/8, ``audits.benchmark.run.auto_sizes``), on the best pair: what any auditor that
   spends part of the budget finding the pair and event can hope for;
3. ``oracle_cert_as_kept`` (rows in ``--observed``) — the same, but each seed's pair drawn with the frequencies
   the real audit kept it in the observed runs: what a perfect event choice gives on the pairs the search keeps;
4. ``auditor`` (rows in ``--observed``) — the real audit: a five-seed median reaches the threshold when at most two
   of the five runs fall below it, so with q the observed share of runs below it, P = P(Binomial(5, q) ≤ 2); the
   95 % interval comes from q's Clopper–Pearson interval.

The oracles' odds are estimated from ``--reps`` simulated five-seed benches (Monte Carlo standard error ≤
0.5/√reps).  Then::

    python benchmarks/target_reach.py                      # the fresh-seed runs in benchmarks/results/split_experiment
    python benchmarks/target_reach.py --rows SVT1 SVT4 --reps 20000

Writes ``benchmarks/results/target_reach.json`` (or ``--out``).
"""

from __future__ import annotations

import argparse
import collections
import importlib
import json
from pathlib import Path

import numpy as np
from scipy import stats

from audits.benchmark.catalogue import get_mechanism
from audits.benchmark.ceiling import CEILING_MECHANISMS, oracle_by_pair, oracle_ceiling, oracle_draws
from audits.benchmark.run import auto_sizes

HERE = Path(__file__).parent
FRESH = [
    HERE / "results" / "split_experiment" / f
    for f in (
        "full_2e7_svt_fresh_search0.25_select0.125_coupled_hoz0.jsonl",
        "full_2e7_svt124_fresh_hoz0.jsonl",
        "full_2e7_svt_fresh3_default.jsonl",
        "full_2e7_svt_fresh4_default.jsonl",
    )
]


def observed_runs(files: list[Path], budget: int) -> dict[str, list[tuple[str, float]]]:
    """``{row: [(pair label, ε_lb), ...]}`` of the default call's runs in ``split_experiment`` files at ``budget``
    (the default split: search 0.25, selection 0.125, coupled selection, no override of a constant away from its
    default; one run per row and seed, the last seen)."""
    seen: dict[tuple[str, int], tuple[str, float]] = {}
    for f in files:
        for line in Path(f).read_text().splitlines():
            r = json.loads(line)
            default = (r.get("search"), r.get("select"), r.get("coupled_select")) == (0.25, 0.125, True)
            if r.get("budget") == budget and default and _sets_defaults(r.get("set")):
                seen[(r["row"], int(r["seed"]))] = (r["pair"], float(r["epsilon_lb"]))
    out: dict[str, list] = collections.defaultdict(list)
    for (row, _), v in sorted(seen.items()):
        out[row].append(v)
    return dict(out)


def _sets_defaults(overrides: dict | None) -> bool:
    """Whether a run's ``--set`` overrides (``{"module.CONSTANT": value}``) only set today's default values (the
    first fresh-seed runs set ``search.HELD_OUT_Z = 0`` before it became the default)."""
    for key, value in (overrides or {}).items():
        module, const = key.rsplit(".", 1)
        if getattr(importlib.import_module(f"htdp_verify.privacy.{module}"), const) != value:
            return False
    return True


def p_median_reaches(draws: np.ndarray, threshold: float, k: int) -> float:
    """P(median of ``k`` seeds ≥ ``threshold``) from ``draws`` of shape (reps, k)."""
    return float(np.mean(np.median(draws, axis=1) >= threshold))


def _p_majority_above(q: float, k: int) -> float:
    """P(median of ``k`` iid runs ≥ t) when a run falls below t with probability ``q`` (``k`` odd: at most
    (k − 1)/2 of the runs below)."""
    return float(stats.binom.cdf((k - 1) // 2, k, q))


def _cp(x: int, n: int) -> tuple[float, float]:
    lo = stats.beta.ppf(0.025, x, n - x + 1) if x > 0 else 0.0
    hi = stats.beta.ppf(0.975, x + 1, n - x) if x < n else 1.0
    return float(lo), float(hi)


def reach_row(name: str, budget: int, k: int, reps: int, observed: list | None, rng) -> dict | None:
    m = get_mechanism(name)
    if name not in CEILING_MECHANISMS or m.dpsniper_best is None:
        return None
    ceil = oracle_ceiling(name, budget)["epsilon"]
    threshold = min(m.dpsniper_best, 0.95 * ceil)
    n_cert = auto_sizes(budget, len(m.pairs))["n_samples"]
    full = oracle_ceiling(name, budget)
    by_pair = oracle_by_pair(name, n_cert)
    best = max(by_pair, key=lambda p: by_pair[p]["epsilon"])

    def draws(pair: str, n: int, size: int, ev: dict | None = None) -> np.ndarray:
        ev = ev or by_pair[pair]
        return oracle_draws(ev["event_probability"], ev["event_probability_den"], n, 0.05, size, rng)

    out = {
        "row": name,
        "dpsniper": m.dpsniper_best,
        "ceiling": ceil,
        "threshold": threshold,
        "n_certify": n_cert,
        "oracle_cert_by_pair": {p: v["epsilon"] for p, v in by_pair.items()},
        "p_oracle_full": p_median_reaches(draws("", budget, reps * k, full).reshape(reps, k), threshold, k),
        "p_oracle_cert_best": p_median_reaches(draws(best, n_cert, reps * k).reshape(reps, k), threshold, k),
    }
    if observed:
        kept = collections.Counter(p for p, _ in observed)
        labels = sorted(kept)
        unknown = [p for p in labels if p not in by_pair]
        if unknown:
            raise ValueError(f"{name}: observed pairs {unknown} are not catalogue pairs")
        freq = np.array([kept[p] for p in labels], float) / len(observed)
        which = rng.choice(len(labels), size=(reps, k), p=freq)
        sim = np.empty((reps, k))
        for i, p in enumerate(labels):
            mask = which == i
            sim[mask] = draws(p, n_cert, int(mask.sum()))
        lbs = np.array([v for _, v in observed])
        below = int(np.sum(lbs < threshold))
        q_lo, q_hi = _cp(below, lbs.size)
        out.update(
            {
                "observed_runs": int(lbs.size),
                "observed_below_threshold": below,
                "observed_pairs": dict(kept),
                "observed_median": float(np.median(lbs)),
                "p_oracle_cert_as_kept": p_median_reaches(sim, threshold, k),
                "p_auditor": _p_majority_above(below / lbs.size, k),
                # q's 95 % Clopper-Pearson interval turned into P (decreasing in q)
                "p_auditor_ci95": [_p_majority_above(q_hi, k), _p_majority_above(q_lo, k)],
            }
        )
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", nargs="*", default=None, help="default: every row with an exact law and DP-Sniper number")
    ap.add_argument("--budget", type=int, default=20_000_000, help="releases per side in all (the full bench)")
    ap.add_argument("--k", type=int, default=5, help="seeds per bench (the target's five)")
    ap.add_argument("--reps", type=int, default=20_000)
    ap.add_argument("--seed", type=int, default=20261129)
    ap.add_argument("--observed", nargs="*", default=[str(f) for f in FRESH], help="split_experiment JSONL files")
    ap.add_argument("--out", default=str(HERE / "results" / "target_reach.json"))
    a = ap.parse_args()
    if a.k < 1 or a.k % 2 == 0 or a.reps < 100:
        raise ValueError(f"--k must be an odd number >= 1 and --reps >= 100, got {a.k} and {a.reps}")
    rng = np.random.default_rng(a.seed)
    obs = observed_runs([Path(f) for f in a.observed], a.budget)
    report = []
    print("row | threshold | P(target met): oracle full | oracle cert, best pair | oracle cert, pairs kept | auditor")
    for name in a.rows or CEILING_MECHANISMS:
        r = reach_row(name, a.budget, a.k, a.reps, obs.get(name), rng)
        if r is None:
            continue
        report.append(r)
        extra = (
            f"{r['p_oracle_cert_as_kept']:.3f} | {r['p_auditor']:.3f} [{r['p_auditor_ci95'][0]:.2f}, "
            f"{r['p_auditor_ci95'][1]:.2f}] ({r['observed_below_threshold']} of {r['observed_runs']} runs below)"
            if "p_auditor" in r
            else "— | —"
        )
        print(
            f"{name} | {r['threshold']:.5g} | {r['p_oracle_full']:.3f} | {r['p_oracle_cert_best']:.3f} | {extra}",
            flush=True,
        )
    meta = {"budget": a.budget, "k": a.k, "reps": a.reps, "seed": a.seed, "observed": a.observed}
    Path(a.out).write_text(json.dumps({"settings": meta, "rows": report}, indent=1))


if __name__ == "__main__":
    main()
