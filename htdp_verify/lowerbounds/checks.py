"""Checks of an estimator against a hard instance: :func:`cannot_beat` (an exact binomial test that flags an
estimator doing significantly better than a valid private lower bound, i.e. a privacy bug) and
:func:`optimality_ratio` (measured worst-case risk over the bound swept over n, with a bootstrap interval on the
log-log slope), both returning a :class:`~htdp_verify.results.CheckResult`.
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from .. import stats
from .._validate import check_int, check_positive, check_prob, check_rng
from ..results import CheckResult
from .instance import HardInstance

__all__ = ["cannot_beat", "optimality_ratio"]


# ------------------------------------------------------------------------------------------------------------
# checks
# ------------------------------------------------------------------------------------------------------------
def _errors(estimate_fn, inst: HardInstance, v: int, reps: int, rng) -> np.ndarray:
    data = inst.sample(v, reps, rng=rng)
    est = np.asarray(estimate_fn(data, rng=rng), dtype=float).reshape(reps, -1)
    if inst.loss is not None:
        return np.asarray(inst.loss(est, v), dtype=float)
    return np.sqrt(((est - inst.thetas[v].reshape(1, -1)) ** 2).sum(1))


def cannot_beat(
    estimate_fn: Callable[..., Any],
    inst: HardInstance,
    *,
    reps: int = 2000,
    alpha: float = 0.05,
    rng: np.random.Generator,
    name: str = "lowerbound.cannot_beat",
) -> CheckResult:
    """Flag an estimator whose error is significantly *below* a valid private lower bound (a privacy bug).

    ``estimate_fn(datasets, rng=...)`` maps a stack of datasets (reps, n[, d]) to estimates (reps[, d]).
    Exact test: the bound says ``avg_v P_v(error ≥ r) ≥ L``.  We count errors ≥ r over ``reps`` datasets per
    member; the pooled count of a Poisson-binomial is stochastically larger in its lower tail than the binomial
    with the same mean (Hoeffding 1956, Thm. 4), so the Clopper–Pearson upper bound of the pooled rate at level α is
    valid.  Verdict "violated" when that upper bound is < L.  Not available for Assouad instances (their bound
    averages over 2^d members; use :func:`optimality_ratio`).

    Parameters
    ----------
    estimate_fn : callable
        ``estimate_fn(datasets, rng=...)`` mapping a stack of datasets (reps, n[, d]) to estimates (reps[, d]).
    inst : HardInstance
        The hard instance (not an Assouad one).
    reps : int, default 2000
        Datasets per member.
    alpha : float, default 0.05
        Level of the test.
    rng : numpy.random.Generator
        The generator.
    name : str, default "lowerbound.cannot_beat"
        Name of the result.

    Returns
    -------
    CheckResult
        ``violated`` when the estimator beats the bound.
    """
    check_rng(rng)
    alpha = check_prob("alpha", alpha)
    reps = check_int("reps", reps, minimum=10)
    if inst.method.startswith("assouad"):
        raise ValueError("inst: cannot_beat needs a two-point or multi-point instance, not an Assouad family")
    t0 = time.perf_counter()
    b = inst.bound()
    if inst.M <= 16:  # every member, equal replications: pooled count is Poisson-binomial (Hoeffding)
        plan = {v: reps for v in range(inst.M)}
    else:  # one uniformly drawn member per replication: the pooled count is exactly Binomial(trials, avg_v)
        vs, cnt = np.unique(rng.integers(0, inst.M, size=reps * 16), return_counts=True)
        plan = dict(zip(vs.tolist(), cnt.tolist()))
    counts = []
    for v, r in plan.items():
        err = _errors(estimate_fn, inst, int(v), int(r), rng)
        counts.append(int(np.sum(err >= inst.radius * (1 - 1e-12))))
    total, trials = int(sum(counts)), int(sum(plan.values()))
    ub = float(stats.cp_upper(total, trials, alpha))
    violated = ub < b.prob
    return CheckResult(
        name=name,
        verdict="violated" if violated else "consistent",
        statistic="P(error >= r) upper bound",
        estimate=total / trials,
        interval=(0.0, ub),
        alpha=alpha,
        claim=inst.claim(),
        n_samples=trials,
        seconds=time.perf_counter() - t0,
        provenance=inst.provenance,
        summary=(
            f"on {inst.name}: P(error ≥ {inst.radius:.3g}) ≤ {ub:.3g} at {100 * (1 - alpha):.0f}% vs the "
            f"lower bound {b.prob:.3g} → "
            + ("beats a valid private bound: privacy claim is wrong" if violated else "does not beat the bound")
        ),
        details={"counts": counts, "members": len(plan), "bound": b.__dict__, "instance": inst.notes},
    )


def optimality_ratio(
    estimate_fn: Callable[..., Any],
    make_instance: Callable[[int], HardInstance],
    ns: Sequence[int],
    *,
    reps: int = 500,
    rng: np.random.Generator,
    name: str = "lowerbound.optimality_ratio",
    out_dir: str | os.PathLike[str] | None = None,
    label: str = "",
    tolerance: float = 0.1,
) -> CheckResult:
    """Measured worst-case risk over the family / the bound, swept over n; the fitted log-log slope of the ratio
    near 0 means rate-optimal (a positive slope: the estimator's error decays slower than the bound).

    ``make_instance(n)`` builds the instance at each n.  Risk is the sample mean of the loss, with a bootstrap
    percentile interval (95%) on the slope over replications.  Verdict (claim: "rate-optimal on this instance"):
    ``consistent`` when the interval lies inside [-tolerance, tolerance], ``violated`` when it lies outside it,
    ``inconclusive`` otherwise.  A ratio below 1 at some n is reported in ``details['below_bound']`` (use
    :func:`cannot_beat` for the certified version of that statement).

    Parameters
    ----------
    estimate_fn : callable
        ``estimate_fn(datasets, rng=...)`` as for :func:`cannot_beat`.
    make_instance : callable
        ``make_instance(n)`` builds the instance at each n.
    ns : sequence of int
        The sample sizes swept.
    reps : int, default 500
        Datasets per member and n.
    rng : numpy.random.Generator
        The generator.
    name : str, default "lowerbound.optimality_ratio"
        Name of the result.
    out_dir : str or os.PathLike, optional
        Folder for the figure of risk and bound against n.
    label : str, default ""
        The estimator's name in the figure.
    tolerance : float, default 0.1
        Half-width of the band around slope 0.

    Returns
    -------
    CheckResult
        The fitted slope of the ratio with its interval.
    """
    tolerance = check_positive("tolerance", tolerance)
    check_rng(rng)
    t0 = time.perf_counter()
    ns = [check_int("ns", int(x), minimum=1) for x in ns]
    rows = []
    per_n_errs = []
    for n in ns:
        inst = make_instance(n)
        b = inst.bound()
        worst, worst_errs = -1.0, None
        members = range(inst.M) if inst.M <= 8 else rng.choice(inst.M, 8, replace=False)
        for v in members:
            err = _errors(estimate_fn, inst, int(v), reps, rng)
            loss = err**2 if inst.risk == "sq" else err
            if loss.mean() > worst:
                worst, worst_errs = float(loss.mean()), loss
        rows.append({"n": n, "risk": worst, "bound": b.value, "ratio": worst / b.value if b.value > 0 else math.inf})
        per_n_errs.append(worst_errs)
    x = np.log(ns)
    y = np.log([r["ratio"] for r in rows])
    slope = float(np.polyfit(x, y, 1)[0]) if len(ns) > 1 else float("nan")
    boots = []
    for _ in range(300):
        rs = [np.mean(rng.choice(e, e.size)) for e in per_n_errs]
        yy = np.log(np.array(rs) / np.array([r["bound"] for r in rows]))
        boots.append(np.polyfit(x, yy, 1)[0])
    lo, hi = (float(np.quantile(boots, 0.025)), float(np.quantile(boots, 0.975))) if len(ns) > 1 else (math.nan,) * 2
    figs = []
    if out_dir is not None:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        import matplotlib.ticker

        fig, ax = plt.subplots(figsize=(5.5, 3.6))
        ax.loglog(ns, [r["risk"] for r in rows], "o-", label=f"worst-case risk {label}")
        ax.loglog(ns, [r["bound"] for r in rows], "s--", label="lower bound")
        ax.set_xlabel("n")
        ax.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())  # minor labels collided at 3e3, 4e3
        ax.set_xticks(ns, [f"{n:g}" for n in ns])
        ax.set_ylabel("risk")
        ax.set_title(f"{name}: ratio slope {slope:.2f} [{lo:.2f}, {hi:.2f}]", fontsize=9)
        ax.legend(fontsize=8)
        fig.tight_layout()
        fname = f"{name.replace('/', '_')}.png"
        fig.savefig(f"{out_dir}/{fname}", dpi=110)
        plt.close(fig)
        figs.append(fname)
    ratios = [r["ratio"] for r in rows]
    if -tolerance <= lo and hi <= tolerance:
        verdict = "consistent"
    elif hi < -tolerance or lo > tolerance:
        verdict = "violated"
    else:
        verdict = "inconclusive"
    return CheckResult(
        name=name,
        verdict=verdict,
        statistic="ratio slope",
        estimate=slope,
        interval=(lo, hi),
        alpha=0.05,
        n_samples=reps * len(ns),
        seconds=time.perf_counter() - t0,
        summary=(
            f"risk / lower bound from {ratios[0]:.3g} (n={ns[0]}) to {ratios[-1]:.3g} (n={ns[-1]}); "
            f"log-log slope {slope:.3f} (bootstrap 95% [{lo:.3f}, {hi:.3f}]); slope ≈ 0 means rate-optimal"
        ),
        details={"rows": rows, "tolerance": tolerance, "below_bound": [r["n"] for r in rows if r["ratio"] < 1]},
        figures=figs,
    )
