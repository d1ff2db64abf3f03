"""Self-checks of the statistics core: the exact bounds every verdict relies on must cover at their level.

These run as ordinary registered checks so ``htdp-verify run`` exercises the engine end to end even with no
paper audits selected.  Each point (p, n) draws ``reps`` binomial counts, computes the bound for every count in one
vectorised call, and counts non-coverage; an exact binomial test (``stats.exceedance_test``) then asks whether the
non-coverage rate exceeds the nominal α.  The Bonferroni split over points is recorded in a ``Budget``.
"""

from __future__ import annotations

import math
import time

import numpy as np

from htdp_verify import stats
from htdp_verify.claims import Provenance
from htdp_verify.registry import register
from htdp_verify.results import CheckResult

PROV_CP = Provenance("Clopper & Pearson 1934", "exact binomial interval", "", "self-check of htdp_verify.stats")


def _plot(out_dir, name, xs, series, alpha, xlabel, ylabel, title, logx=True):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 3.6))
    for label, (x, y, err) in series.items():
        ax.errorbar(x, y, yerr=err, marker="o", capsize=3, label=label)
    ax.axhline(alpha, color="k", ls="--", lw=1, label=f"nominal α = {alpha:g}")
    if logx:
        ax.set_xscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=10)
    ax.legend(fontsize=8)
    fig.tight_layout()
    path = out_dir / f"{name}.png"
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path.name


def cp_noncoverage(p, n, reps, alpha, rng):
    """Non-coverage count of the two-sided CP interval at (p, n) over ``reps`` binomial draws."""
    k = rng.binomial(n, p, size=reps)
    lo, hi = stats.cp_interval(k, n, alpha)
    return int(np.sum((lo > p) | (hi < p)))


def eps_lb_exceedance(p1, p2, n, reps, alpha, rng):
    """How often the certified ε lower bound exceeds the true ln(p1/p2) of a fixed event."""
    k1 = rng.binomial(n, p1, size=reps)
    k2 = rng.binomial(n, p2, size=reps)
    eps = stats.epsilon_lower_bound(k1, n, k2, n, alpha)
    return int(np.sum(eps > math.log(p1 / p2)))


@register(
    "stats.cp_coverage",
    description="Clopper–Pearson two-sided interval non-coverage ≤ α at several (p, n)",
    provenance=PROV_CP,
    tags=("selfcheck",),
)
def check_cp_coverage(ctx) -> CheckResult:
    t0 = time.perf_counter()
    alpha_nominal = 0.05
    reps = 20_000 if ctx.quick else 200_000
    ps = [0.001, 0.01, 0.1, 0.3, 0.5]
    ns = [20, 200, 2000]
    budget = stats.Budget(0.05)
    per_test = budget.alpha / (len(ps) * len(ns))
    rows, series, worst = [], {}, None
    for n in ns:
        rates, errs = [], []
        for p in ps:
            k = cp_noncoverage(p, n, reps, alpha_nominal, ctx.rng)
            res = stats.exceedance_test(k, reps, alpha_nominal, budget.spend(f"n={n},p={p}", per_test))
            rows.append({"n": n, "p": p, "noncoverage": k / reps, "upper": res.rate_upper, "pvalue": res.pvalue})
            rates.append(k / reps)
            errs.append(2 * math.sqrt(max(k, 1)) / reps)
            if worst is None or res.pvalue < worst["pvalue"]:
                worst = rows[-1]
        series[f"n = {n}"] = (ps, rates, errs)
    fig = _plot(
        ctx.out_dir,
        "stats_cp_coverage",
        ps,
        series,
        alpha_nominal,
        "true p",
        "non-coverage rate",
        f"Clopper–Pearson 95% interval, {reps} draws per point",
    )
    violated = any(r["pvalue"] <= per_test for r in rows)
    max_rate = max(r["noncoverage"] for r in rows)
    return CheckResult(
        name="stats.cp_coverage",
        verdict="violated" if violated else "consistent",
        statistic="max non-coverage",
        estimate=max_rate,
        interval=(0.0, max(r["upper"] for r in rows)),
        alpha=budget.spent,
        n_samples=reps * len(rows),
        seconds=time.perf_counter() - t0,
        seed=ctx.seed,
        provenance=PROV_CP,
        summary=(
            f"max non-coverage {max_rate:.4f} vs nominal {alpha_nominal} over {len(rows)} (p, n) points "
            f"({reps} draws each); smallest p-value {worst['pvalue']:.3g} (Bonferroni level {per_test:.2g})"
        ),
        details={"rows": rows, "budget": budget.to_dict(), "nominal_alpha": alpha_nominal},
        figures=[fig],
    )


@register(
    "stats.epsilon_lb_validity",
    description="ε lower bound from two counts exceeds the true ln(p1/p2) with probability ≤ α",
    provenance=Provenance("DP-Sniper (Bichsel et al. 2021) §4.2", "CP ratio bound", "", "self-check"),
    tags=("selfcheck",),
)
def check_epsilon_lb(ctx) -> CheckResult:
    t0 = time.perf_counter()
    alpha_nominal = 0.05
    reps = 20_000 if ctx.quick else 200_000
    cases = [
        (0.5, 0.5 * math.exp(-0.1), 1000),
        (0.5, 0.5 * math.exp(-1), 200),
        (0.05, 0.05 * math.exp(-2), 5000),
        (0.9, 0.9 * math.exp(-0.01), 100_000),
    ]
    budget = stats.Budget(0.05)
    per_test = budget.alpha / len(cases)
    rows = []
    for p1, p2, n in cases:
        k = eps_lb_exceedance(p1, p2, n, reps, alpha_nominal, ctx.rng)
        res = stats.exceedance_test(k, reps, alpha_nominal, budget.spend(f"p1={p1:g},n={n}", per_test))
        rows.append(
            {
                "p1": p1,
                "p2": p2,
                "n": n,
                "true_eps": math.log(p1 / p2),
                "exceed_rate": k / reps,
                "upper": res.rate_upper,
                "pvalue": res.pvalue,
            }
        )
    eps_true = [r["true_eps"] for r in rows]
    fig = _plot(
        ctx.out_dir,
        "stats_epsilon_lb_validity",
        eps_true,
        {
            "P[ε_lb > true ε]": (
                eps_true,
                [r["exceed_rate"] for r in rows],
                [2 * math.sqrt(max(r["exceed_rate"] * reps, 1)) / reps for r in rows],
            )
        },
        alpha_nominal,
        "true ε of the event",
        "rate of invalid bounds",
        f"ε lower bound at 95%: validity, {reps} draws per point",
    )
    violated = any(r["pvalue"] <= per_test for r in rows)
    return CheckResult(
        name="stats.epsilon_lb_validity",
        verdict="violated" if violated else "consistent",
        statistic="max invalid-bound rate",
        estimate=max(r["exceed_rate"] for r in rows),
        interval=(0.0, max(r["upper"] for r in rows)),
        alpha=budget.spent,
        n_samples=reps * len(rows),
        seconds=time.perf_counter() - t0,
        seed=ctx.seed,
        provenance=Provenance("DP-Sniper (Bichsel et al. 2021) §4.2", "CP ratio bound", "", "self-check"),
        summary=f"ε_lb exceeded the true ε in at most {100 * max(r['exceed_rate'] for r in rows):.2f}% of draws "
        f"(nominal ≤ 5%) at {len(rows)} events",
        details={"rows": rows, "budget": budget.to_dict()},
        figures=[fig],
    )
