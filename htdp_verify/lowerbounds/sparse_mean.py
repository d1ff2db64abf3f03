"""s-sparse heavy-tailed mean estimation under (ε, δ)-DP: a spike-mixture packing over an explicit sparse code.

The construction is the one behind the (ε, δ)-private lower bound for s-sparse mean estimation under a
coordinate-wise moment bound (Hu, Ni, Xiao & Wang 2022, Thm 9 and its proof, which extend Barber & Duchi 2014,
Prop. 4, with the sparse packing lemma of Raskutti, Wainwright & Yu 2011):

* reference law P_0 = δ_0 (every record is the zero vector);
* member v of a packing: P_v = (1 - p) δ_0 + p δ_{A z_v}, with z_v ∈ {0, ±1}^d s-sparse and the atom height
  A = a·(M_k / p)^{1/k}; then E|X_j|^k = a^k M_k on the support of z_v and 0 elsewhere, so every coordinate's
  k-th raw moment is ≤ M_k (the central one too, for k ≥ 2: (1-p)(pA)^k + p((1-p)A)^k ≤ p A^k); the mean
  θ_v = p A z_v is s-sparse;
* coupling of every member's n-sample law with the all-zero dataset: the records differ exactly where the spike
  fires, H ~ Bin(n, p).

The private multi-point bound of :mod:`htdp_verify.lowerbounds` (group privacy along that coupling) then gives, for
every (ε, δ)-DP estimator, with members 2r apart and drawn uniformly::

    avg_v P_v(‖θ̂ - θ_v‖₂ ≥ r) ≥ L(p) = 1 - (1 - p + p e^ε)^n / |V| - δ n p (1 - p + p e^ε)^{n-1},

and by Markov avg_v E_v‖θ̂ - θ_v‖₂² ≥ r² L(p) (the squared-ℓ2 minimax risk). Every constant is explicit; p is
chosen to maximise r(p)² L(p) (a unimodal function of p, so the optimum is found to optimiser precision).

Differences from the proof as printed (all make the bound *valid*; none uses an unknown constant):

* the packing is an explicit Reed–Solomon code (:class:`SparseSignCode`), not the existence statement of the
  sparse Gilbert–Varshamov lemma: ``|V| = q^k`` and the block distance s - k + 1 ≥ s/2 are exact, so members can be
  drawn uniformly and the separation is guaranteed;
* the separation is computed from the code (‖z - z'‖₂² ≥ D = 2(s - k + 1) ≥ s), and the test radius is *half* of
  it, r = pA√D/2 (the nearest-member test errs only when the error is ≥ half the separation);
* ``amplitude`` a = 1 scales the atoms to the moment bound (E X_j² = τ exactly on the support). The printed proof
  uses v = z/√(2s) (a = 1/√(2s), E X_j² = τ/(2s)): pass that to reproduce it; it loses a factor 2s.

:func:`sparse_mean_closed_form` states it in closed form for k = 2 (proof in its docstring; ≤ the exact value):
a²τD·min{log(``|V|``/4), ½ log((e^ε-1)/(4δ))}/(8n(e^ε-1)),
i.e. τ s min{s log(d/s), log(1/δ)}/(nε) with every constant
explicit (log ``|V|`` ≈ (s/2 + 1) log(2d/s)).

Checks: :func:`packing_cannot_beat` (exact binomial test with a power design: consistent / violated /
inconclusive) and :func:`packing_risk_ratio` (measured risk over the bound across a swept parameter; descriptive).

Layout: this module holds the checks and re-exports the rest, so every name here stays importable from it:

* :mod:`htdp_verify.lowerbounds.sparse_code` -- the explicit sparse sign code (:class:`SparseSignCode`);
* :mod:`htdp_verify.lowerbounds.sparse_packing` -- the packing instance (:class:`SparseMeanPacking`,
  :func:`sparse_mean_packing`) and :func:`sparse_mean_closed_form`;
* this module -- :func:`packing_cannot_beat`, :func:`packing_risk_ratio`.
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import ArrayLike
from scipy import stats as sst

from .. import stats
from .._validate import check_int, check_prob, check_rng
from ..results import CheckResult
from .sparse_code import SparseSignCode, sparse_sign_code
from .sparse_packing import PROV_SPARSE, SparseMeanPacking, sparse_mean_closed_form, sparse_mean_packing

__all__ = [
    "SparseSignCode",
    "sparse_sign_code",
    "SparseMeanPacking",
    "sparse_mean_packing",
    "sparse_mean_closed_form",
    "packing_cannot_beat",
    "packing_risk_ratio",
]


# ------------------------------------------------------------------------------------------------------------
# checks
# ------------------------------------------------------------------------------------------------------------
_CHUNK_BYTES = 2**26  # at most 64 MiB of datasets in memory at once


def _errors_for(estimate_fn, inst: SparseMeanPacking, members, rng, chunk: int) -> np.ndarray:
    chunk = max(1, min(chunk, _CHUNK_BYTES // (8 * inst.n * inst.code.d)))
    errs = []
    for start in range(0, len(members), chunk):
        mem = members[start : start + chunk]
        data = inst.sample_members(mem, rng=rng)
        est = np.asarray(estimate_fn(data, rng=rng), dtype=float).reshape(len(mem), -1)
        errs.append(np.linalg.norm(est - inst.member_means(mem), axis=1))
    return np.concatenate(errs)


def _power(trials: int, bound: float, alpha: float, rate: float) -> tuple[int, float]:
    """Critical count c = max{K : CP upper(K) < bound} (−1 if none) and P[Bin(trials, rate) ≤ c]."""
    ks = np.arange(trials + 1)
    ub = np.asarray(stats.cp_upper(ks, np.full_like(ks, trials), alpha))
    below = np.nonzero(ub < bound)[0]
    c = int(below[-1]) if below.size else -1
    return c, float(sst.binom.cdf(c, trials, rate)) if c >= 0 else 0.0


def packing_cannot_beat(
    estimate_fn: Callable[..., Any],
    inst: SparseMeanPacking,
    *,
    trials: int,
    rng: np.random.Generator,
    alpha: float = 0.05,
    effect: float = 0.5,
    power: float = 0.8,
    chunk: int = 64,
    name: str = "lowerbound.cannot_beat.sparse_mean",
    out_dir: str | os.PathLike[str] | None = None,
    label: str = "estimator",
) -> CheckResult:
    """Is the estimator's P(‖θ̂ - θ_v‖ ≥ r) significantly below the bound L? (an (ε, δ)-DP estimator cannot be).

    ``estimate_fn(datasets, rng=...)`` maps a stack (N, n, d) to estimates (N, d). Design: ``trials`` members are
    drawn uniformly, one dataset each, so the count of errors ≥ r is exactly Binomial(trials, π) with
    π = avg_v P_v(error ≥ r) ≥ L for a private estimator. Verdict at level ``alpha``: ``violated`` when the one-sided
    Clopper–Pearson upper bound of π is < L (false-alarm probability ≤ α for any (ε, δ)-DP estimator);
    otherwise ``consistent`` when the design detects π = ``effect``·L with probability ≥ ``power`` (the smallest
    effect detected is stated in ``details``), else ``inconclusive``.  With ``out_dir``, a figure of the errors'
    empirical survival function against the radius r and the bound L is written there (named after ``name``).

    Parameters
    ----------
    estimate_fn : callable
        The estimator under test, ``estimate_fn(datasets, rng=...)``.
    inst : SparseMeanPacking
        The hard instance.
    trials : int
        Number of members drawn (one dataset each).
    rng : numpy.random.Generator
        The generator of the members, the datasets and the estimator's noise.
    alpha : float, default 0.05
        Level of the test.
    effect : float, default 0.5
        The power design's alternative, as a fraction of L.
    power : float, default 0.8
        Power the design must reach at ``effect``·L for a ``consistent`` verdict.
    chunk : int, default 64
        Datasets per call of ``estimate_fn`` (fewer when they would exceed 64 MiB).
    name : str, default "lowerbound.cannot_beat.sparse_mean"
        Name of the check (and of the figure file).
    out_dir : str or os.PathLike, optional
        Directory of the figure; ``None``: no figure.
    label : str, default "estimator"
        Name of the estimator in the figure's legend.

    Returns
    -------
    CheckResult
        The verdict, with the count, the bound and the power design in ``details``.
    """
    check_rng(rng)
    trials = check_int("trials", trials, minimum=1)
    alpha = check_prob("alpha", alpha)
    effect = check_prob("effect", effect)
    power = check_prob("power", power)
    chunk = check_int("chunk", chunk, minimum=1)
    t0 = time.perf_counter()
    b = inst.bound()
    members = inst.code.draw(trials, rng=rng)
    err = _errors_for(estimate_fn, inst, members, rng, chunk)
    count = int(np.sum(err >= inst.radius * (1 - 1e-12)))
    ub = float(stats.cp_upper(count, trials, alpha))
    crit, pw = _power(trials, b.prob, alpha, effect * b.prob)
    if ub < b.prob:
        verdict, what = "violated", "beats a valid (ε, δ)-DP lower bound: the estimator is not private as claimed"
    elif pw >= power:
        verdict, what = "consistent", "does not beat the bound"
    else:
        verdict, what = "inconclusive", f"does not beat the bound, but the run had power {pw:.2f} < {power}"
    figures = []
    if out_dir is not None:
        figures.append(_survival_figure(err, inst.radius, b.prob, ub, out_dir, name, label))
    return CheckResult(
        name=name,
        verdict=verdict,
        statistic="P(error >= r) upper bound",
        estimate=count / trials,
        figures=figures,
        interval=(0.0, ub),
        alpha=alpha,
        claim=inst.claim(),
        n_samples=trials,
        seconds=time.perf_counter() - t0,
        provenance=inst.provenance,
        summary=(
            f"on {inst.name}: P(‖θ̂-θ‖ ≥ {inst.radius:.3g}) ≤ {ub:.3g} at {100 * (1 - alpha):.0f}% vs the "
            f"lower bound {b.prob:.3g} → {what}"
        ),
        details={
            "count": count,
            "trials": trials,
            "bound": b.__dict__,
            "instance": inst.notes,
            "design": {
                "alpha": alpha,
                "critical_count": crit,
                "effect_rate": effect * b.prob,
                "power_at_effect": pw,
                "required_power": power,
            },
            "mean_sq_error": float(np.mean(err**2)),
            "risk_bound": b.value,
            "median_error_over_radius": float(np.median(err) / inst.radius),
        },
    )


def _survival_figure(err: np.ndarray, radius: float, prob: float, ub: float, out_dir, name: str, label: str) -> str:
    """Empirical P(error ≥ x) of the trials, the test radius r and the private lower bound L at r."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    x = np.sort(np.asarray(err, float))
    surv = 1.0 - np.arange(x.size) / x.size
    fig, ax = plt.subplots(figsize=(5.5, 3.6))
    ax.step(np.maximum(x, radius * 1e-3), surv, where="post", label=f"{label}: P(error ≥ x)")
    ax.axvline(radius, color="grey", ls=":", label=f"test radius r = {radius:.3g}")
    ax.plot([radius], [prob], "v", color="C3", ms=9, label=f"private lower bound L = {prob:.3g}")
    ax.plot([radius], [ub], "_", color="C0", ms=14, mew=2, label=f"upper confidence bound {ub:.3g}")
    ax.set_xscale("log")
    ax.set_ylim(-0.02, 1.02)
    ax.set_xlabel("error ‖θ̂ − θ_v‖₂")
    ax.set_ylabel("fraction of trials")
    ax.set_title("cannot-beat: a private estimator's curve stays ≥ L at r", fontsize=9)
    ax.legend(fontsize=7, loc="lower left")
    fig.tight_layout()
    fname = f"{name}.png"
    fig.savefig(f"{out_dir}/{fname}", dpi=110)
    plt.close(fig)
    return fname


def packing_risk_ratio(
    estimate_fn: Callable[..., Any],
    make_instance: Callable[[int], SparseMeanPacking],
    values: ArrayLike,
    *,
    reps: int,
    rng: np.random.Generator,
    variable: str = "n",
    chunk: int = 64,
    out_dir: str | os.PathLike[str] | None = None,
    label: str = "",
    name: str = "lowerbound.optimality.sparse_mean",
    n_boot: int = 300,
) -> CheckResult:
    """Bayes risk under the uniform prior over the members (avg_v E_v‖θ̂ - θ_v‖², which the bound also bounds)
    divided by the bound, swept over ``values`` of ``variable`` (``make_instance(value)`` builds each instance).

    Descriptive (verdict ``info``): the log-log slope of the ratio (bootstrap 95% interval over replications)
    says how the estimator's risk scales relative to the bound; a ratio < 1 would contradict the bound (use
    :func:`packing_cannot_beat` for the certified version).

    Parameters
    ----------
    estimate_fn : callable
        The estimator, ``estimate_fn(datasets, rng=...)`` mapping a stack (N, n, d) to estimates (N, d).
    make_instance : callable
        ``make_instance(value)`` builds the :class:`SparseMeanPacking` at one value of the swept variable.
    values : array_like of int
        The values of the swept variable (each ≥ 1).
    reps : int
        Members drawn per value (one dataset each, ≥ 2).
    rng : numpy.random.Generator
        The generator of the members, datasets, estimator noise and bootstrap.
    variable : str, default "n"
        Name of the swept variable.
    chunk : int, default 64
        Datasets per call of ``estimate_fn``.
    out_dir : str or os.PathLike, optional
        Directory of a log-log figure of risk and bound; ``None``: no figure.
    label : str, default ""
        Name of the estimator in the figure's legend.
    name : str, default "lowerbound.optimality.sparse_mean"
        Name of the check (and of the figure file).
    n_boot : int, default 300
        Bootstrap resamples for the slope's interval.

    Returns
    -------
    CheckResult
        Verdict ``info``: the slope and its interval, with one row per value in ``details``.
    """
    check_rng(rng)
    reps = check_int("reps", reps, minimum=2)
    t0 = time.perf_counter()
    vals = [check_int(variable, int(x), minimum=1) for x in values]
    rows, losses = [], []
    for x in vals:
        inst = make_instance(x)
        b = inst.bound()
        members = inst.code.draw(reps, rng=rng)
        sq = _errors_for(estimate_fn, inst, members, rng, chunk) ** 2
        losses.append((sq, b.value))
        rows.append(
            {
                variable: x,
                "risk": float(sq.mean()),
                "risk_se": float(sq.std(ddof=1) / math.sqrt(reps)),
                "bound": b.value,
                "ratio": float(sq.mean() / b.value),
                "bound_prob": b.prob,
            }
        )
    lx = np.log(vals)
    slope, lo, hi = float("nan"), float("nan"), float("nan")
    if len(vals) > 1:
        slope = float(np.polyfit(lx, np.log([r["ratio"] for r in rows]), 1)[0])
        boots = [
            np.polyfit(lx, np.log([rng.choice(sq, sq.size).mean() / bv for sq, bv in losses]), 1)[0]
            for _ in range(n_boot)
        ]
        lo, hi = float(np.quantile(boots, 0.025)), float(np.quantile(boots, 0.975))
    figs = []
    if out_dir is not None:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots(figsize=(5.5, 3.6))
        ax.loglog(vals, [r["risk"] for r in rows], "o-", label=f"risk {label}")
        ax.loglog(vals, [r["bound"] for r in rows], "s--", label="lower bound")
        ax.set_xlabel(variable)
        ax.set_ylabel("E‖θ̂-θ‖²")
        ax.set_title(f"{name}: ratio slope {slope:.2f} [{lo:.2f}, {hi:.2f}]", fontsize=8)
        ax.legend(fontsize=8)
        fig.tight_layout()
        fname = f"{name.replace('/', '_')}.png"
        fig.savefig(f"{out_dir}/{fname}", dpi=110)
        plt.close(fig)
        figs.append(fname)
    ratios = [r["ratio"] for r in rows]
    return CheckResult(
        name=name,
        verdict="info",
        statistic="risk / bound slope",
        estimate=slope,
        interval=(lo, hi),
        alpha=0.05,
        n_samples=reps * len(vals),
        seconds=time.perf_counter() - t0,
        provenance=PROV_SPARSE,
        summary=(
            f"risk / lower bound from {ratios[0]:.3g} ({variable}={vals[0]}) to {ratios[-1]:.3g} "
            f"({variable}={vals[-1]}); log-log slope {slope:.2f} (95% [{lo:.2f}, {hi:.2f}]); "
            "slope ≈ 0: the risk follows the bound's rate"
        ),
        details={"rows": rows, "variable": variable, "below_bound": [r[variable] for r in rows if r["ratio"] < 1]},
        figures=figs,
    )
