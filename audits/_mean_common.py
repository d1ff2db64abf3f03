"""Shared machinery of the papers' mean-estimator audits (``audits/hu2022.py``, ``audits/dpem.py``,
``audits/zhao2024.py``).

Four kinds of check, each a thin layer over the engine:

* :func:`privacy_check` — ``htdp_verify.privacy.audit`` on given neighbouring pairs, plus a figure (release
  histograms on D and D' with the certified event, and ε_lb vs the claim and the known true ε when there is one);
* :func:`rate_check` — a ``montecarlo.sweep`` (vectorised, one seed) of an error function over a geometric grid,
  ``rates.check_rate`` on the swept variable, plus a log-log figure with the fitted and the claimed slope;
* :func:`tail_check` — ``rates.check_tail_bound`` on exceedances of an explicit bound, plus a figure;
* :func:`shape_check` — ``rates.check_quantile_shape`` / ``quantile_shape``, plus a figure;
* :func:`comparison_check` — errors of several estimators on the same data at equal (ε, δ): table + figure.

α: every statistical helper takes ``alpha`` (default :data:`ALPHA`, the level of a check that is not part of a
family); the papers' privacy and rate checks pass their family's Bonferroni share
(:class:`htdp_verify.multiplicity.Family`, tables in each paper's module), and :func:`privacy_check` /
:func:`rate_check` take the ``family`` itself and record it in the result.

Sizes: every check reads its sizes from a ``{"tiny", "quick", "full"}`` table through :func:`profile_of`; the
hidden ``"tiny"`` profile (``ctx.tiny = True`` or ``ctx.profile == "tiny"``) is only for the test-suite.
"""

from __future__ import annotations

import math
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from estimators.robust import SOFT_TRUNCATION_BOUND
from htdp_verify.claims import PrivacyClaim, Provenance, RateClaim, TailBoundClaim
from htdp_verify.montecarlo import sweep
from htdp_verify.multiplicity import Family
from htdp_verify.privacy import Pair, audit, from_estimator, gdp_epsilon
from htdp_verify.privacy.search import MIN_PER_PAIR
from htdp_verify.rates import CrossoverWarning, check_quantile_shape, check_rate, check_tail_bound
from htdp_verify.results import CheckResult

ALPHA = 0.05  # level of a check outside any family (controls, canaries); family members get a Bonferroni share
HUGE = 1e12  # "one sample moved to ± a huge value"
SOFT_BOUND = SOFT_TRUNCATION_BOUND  # sup |psi| of the soft truncation (used by the Hu and Wang audits as C.SOFT_BOUND)


def profile_of(ctx) -> str:
    """``"tiny"`` (tests only), ``"quick"`` or ``"full"``."""
    if getattr(ctx, "tiny", False) or ctx.profile == "tiny":
        return "tiny"
    return "full" if ctx.profile == "full" else "quick"


def child_seed(ctx, k: int) -> int:
    """A reproducible integer seed for sub-run ``k`` of a check (one SeedSequence per check seed)."""
    return int(np.random.SeedSequence([int(ctx.seed), int(k)]).generate_state(1, np.uint32)[0])


def _plt():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _save(fig, out_dir, name):
    path = out_dir / f"{name.replace('.', '_')}.png"
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    _plt().close(fig)
    return path.name


# ---------------------------------------------------------------------------------------------------------
# privacy
# ---------------------------------------------------------------------------------------------------------
def huge_pairs(base: np.ndarray, magnitude: float = HUGE, *, row: int = 0) -> list[Pair]:
    """Replace-one pairs of ``base`` that move row ``row`` to ± ``magnitude`` (the worst case of every bounded-influence
    estimator here): (+G vs −G), (original vs +G) and (original vs −G)."""
    base = np.asarray(base, dtype=float)
    plus, minus = base.copy(), base.copy()
    plus[row] = magnitude
    minus[row] = -magnitude
    return [
        Pair(plus, minus, f"row {row}: +{magnitude:g} vs -{magnitude:g}", "replace"),
        Pair(base, plus, f"row {row}: original vs +{magnitude:g}", "replace"),
        Pair(base, minus, f"row {row}: original vs -{magnitude:g}", "replace"),
    ]


def privacy_check(
    mechanism,
    pairs,
    *,
    name: str,
    provenance: Provenance,
    claim=None,
    rng,
    seed,
    out_dir,
    n_samples: int,
    n_select: int,
    n_search: int | None = None,
    true_epsilon: float | None = None,
    note: str = "",
    figure: bool = True,
    attacks="auto",
    alpha: float | None = None,
    family: Family | None = None,
    member: str | None = None,
    profile: str | None = None,
) -> CheckResult:
    """Audit ``mechanism`` (an estimator or :class:`Mechanism`) on ``pairs`` and return the :class:`AuditResult`
    renamed ``name`` with ``provenance``; ``true_epsilon`` (analytic, when known) goes into details and the figure.

    α: ``family`` (with ``member``, default ``name``, and the run's ``profile``) runs the audit at the member's
    Bonferroni share and records the family in the result, or marks the result as excluded from it when ``member``
    is one of the family's controls/canaries (those keep ``alpha``); otherwise ``alpha`` (default :data:`ALPHA`)."""
    alpha, fam_member = _family_alpha(alpha, family, member or name, profile)
    mech = mechanism if not hasattr(mechanism, "sample") else from_estimator(mechanism)
    if claim is None:
        g = mech.guarantee
        claim = PrivacyClaim(g.epsilon, g.delta, g.neighbours, provenance)
    if n_search is not None and isinstance(pairs, (list, tuple)) and len(pairs) > 1:
        # the search budgets of the SIZES tables are totals; every pair gets at least the engine's default floor
        n_search = max(n_search, MIN_PER_PAIR * len(pairs))
    res = audit(
        mech,
        claim,
        pairs=pairs,
        n_samples=n_samples,
        n_select=n_select,
        n_search=n_search,
        rng=rng,
        alpha=alpha,
        attacks=attacks,
        name=name,
    )
    res.provenance = provenance
    res.seed = seed
    res.details["true_epsilon_analytic"] = true_epsilon
    res.details["note"] = note
    res.summary = (
        f"{res.summary}"
        + (f"; analytic true ε of this pair ≈ {true_epsilon:.3g}" if true_epsilon else "")
        + (f". {note}" if note else "")
    )
    _family_annotate(res, family, fam_member, profile)
    if figure and out_dir is not None:
        try:
            res.figures = [_privacy_figure(mech, res, pairs, rng, out_dir, name, true_epsilon)]
        except Exception as exc:  # a figure must never hide a verdict
            res.details["figure_error"] = repr(exc)
    return res


def _family_alpha(alpha, family, member, profile) -> tuple[float, str | None]:
    """(α to test at, member name or None): a family member's Bonferroni share, else ``alpha`` or :data:`ALPHA`."""
    if family is None:
        return (ALPHA if alpha is None else float(alpha)), None
    if profile is None:
        raise ValueError("profile must be given with family (the family's size depends on the run's profile)")
    if member in family.members:
        if alpha is not None:
            raise ValueError(f"alpha must be None for a member of family {family.name!r} (it gets its share)")
        return family.alpha_for(member, profile), member
    if member in family.excluded:
        return (ALPHA if alpha is None else float(alpha)), member
    raise ValueError(
        f"member must be a member {sorted(family.members)} or an excluded check {sorted(family.excluded)} "
        f"of family {family.name!r}, got {member!r}"
    )


def _family_annotate(res, family, member, profile) -> None:
    if family is None or member is None:
        return
    if member in family.members:
        family.annotate(res, member, profile)
    else:
        family.annotate_excluded(res, member)


def _privacy_figure(mech, res, pairs, rng, out_dir, name, true_eps):
    plt = _plt()
    pair = next((p for p in pairs if p.label == res.details["pair"]["label"]), pairs[0])
    k = 4000
    y1 = np.asarray(mech(pair.d, k, rng), dtype=float).reshape(k, -1)[:, 0]
    y2 = np.asarray(mech(pair.d_prime, k, rng), dtype=float).reshape(k, -1)[:, 0]
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(9, 3.4), gridspec_kw={"width_ratios": [2, 1]})
    lo, hi = np.quantile(np.r_[y1, y2], [0.002, 0.998])
    if not (np.isfinite(lo) and np.isfinite(hi)) or hi <= lo:
        lo, hi = float(np.min(np.r_[y1, y2])), float(np.max(np.r_[y1, y2])) + 1e-12
    bins = np.linspace(lo, hi, 60)
    a1.hist(np.clip(y1, lo, hi), bins, alpha=0.5, density=True, label="D")
    a1.hist(np.clip(y2, lo, hi), bins, alpha=0.5, density=True, label="D'")
    a1.set_title(f"releases (coordinate 0), {k} per side\nevent: {res.event[:70]}", fontsize=8)
    a1.legend(fontsize=7)
    labels = ["claimed ε", "certified ε_lb"] + (["analytic true ε"] if true_eps else [])
    vals = [res.claim.epsilon, max(res.epsilon_lb, 0.0)] + ([true_eps] if true_eps else [])
    colors = ["grey", "tab:red" if res.verdict == "violated" else "tab:green"] + (["tab:blue"] if true_eps else [])
    a2.bar(labels, vals, color=colors)
    a2.set_title(f"{res.verdict} (α={res.alpha:g})", fontsize=9)
    a2.tick_params(axis="x", labelsize=7)
    fig.suptitle(name, fontsize=9)
    return _save(fig, out_dir, name)


# ---------------------------------------------------------------------------------------------------------
# rates
# ---------------------------------------------------------------------------------------------------------
def _loglog_slope(x, y) -> float:
    u, v = np.log(np.asarray(x, dtype=float)), np.log(np.asarray(y, dtype=float))
    uc = u - u.mean()
    return float(uc @ (v - v.mean()) / (uc @ uc))


@dataclass(frozen=True)
class RateTolerance:
    """Why a rate claim's tolerance is what it is: the three things a tolerance on a fitted exponent absorbs.

    * ``log_factors`` / ``log_power``: the theorem's log factors *in the swept variable* (text, and their total
      power k).  A factor (log x)^k moves a log-log fit over the grid by k times the OLS slope of log log x on
      log x (≈ 1/log x at the grid's centre; log(1/x) for a grid below 1, as for ε), computed from the grid.
      None of the shipped theorems has one (their logs are of 1/δ, 1/ζ or a fixed m), so the shift is stated
      to show how much of the tolerance a log factor *would* take.
    * ``model`` / ``model_text``: the theorem's own bound as a function of the swept variable (its terms with the
      printed or reconstructed constants, at the claim's quantile); the *fit's bias* is the log-log slope of the
      model over the grid minus the claimed exponent: what the fit would report with unlimited replications if
      the error followed the bound.  ``None`` for a bound that is exactly a power of the variable (bias 0).
    * what is left, ``tolerance − |log shift| − |bias|``, is the margin for constants the theorem does not give
      and for pre-asymptotic behaviour of the true error; :meth:`explain` reports it and ``covered`` is False when
      the tolerance does not even cover the first two.
    """

    log_factors: str
    model_text: str
    model: Callable | None = None
    log_power: float = 0.0

    def explain(self, claim: RateClaim, values) -> dict:
        x = np.sort(np.asarray(values, dtype=float))
        var = claim.variable
        if np.all(x > 1):  # a factor log x
            shift_per, logname = _loglog_slope(x, np.log(x)), f"log {var}"
        elif np.all(x < 1):  # a factor log(1/x), as for ε
            shift_per, logname = _loglog_slope(x, -np.log(x)), f"log(1/{var})"
        else:
            shift_per, logname = float("nan"), f"log {var}"
        shift = self.log_power * shift_per if self.log_power else 0.0
        model_slope = _loglog_slope(x, [self.model(v) for v in x]) if self.model is not None else claim.exponent
        bias = model_slope - claim.exponent
        margin = claim.tolerance - abs(shift) - abs(bias)
        per = (
            f"a {logname} factor would move the fit by {shift_per:+.3f}"
            if math.isfinite(shift_per)
            else f"the grid straddles {var} = 1, so no log-factor shift is computed"
        )
        text = (
            f"Tolerance ±{claim.tolerance:g}: log factors in {var}: {self.log_factors}; grid {var} ∈ "
            f"[{x[0]:g}, {x[-1]:g}] ({x.size} values; {per}); fit bias of the theorem's own bound over this grid "
            f"{bias:+.3f} ({self.model_text}); margin left for unknown constants and pre-asymptotics "
            f"{margin:.3f}."
            + (
                ""
                if margin > 0
                else " WARNING: the tolerance does not cover the fit bias and "
                "log factors of the theorem on this grid; a 'consistent' verdict means little."
            )
        )
        return {
            "tolerance": claim.tolerance,
            "grid": [float(x[0]), float(x[-1])],
            "grid_values": int(x.size),
            "log_factors": self.log_factors,
            "log_power": self.log_power,
            "log_shift_per_power": shift_per,
            "log_shift": shift,
            "model": self.model_text,
            "model_slope": model_slope,
            "fit_bias": bias,
            "margin": margin,
            "covered": bool(margin > 0),
            "text": text,
        }


def rate_check(
    error_fn,
    grid: dict,
    claim: RateClaim,
    *,
    name: str,
    seed: int,
    out_dir,
    reps: int,
    fixed: dict | None = None,
    extra_curves: dict | None = None,
    note: str = "",
    why: RateTolerance | None = None,
    alpha: float | None = None,
    family: Family | None = None,
    member: str | None = None,
    profile: str | None = None,
) -> CheckResult:
    """Sweep ``error_fn(**grid_point, **fixed, n_reps=m, rng=...) -> (m,)`` errors over ``grid`` (one variable,
    geometric), test ``claim`` with :func:`check_rate` and draw the log-log figure.

    α as in :func:`privacy_check`: a ``family`` member's Bonferroni share (recorded in the result), else ``alpha``
    (default :data:`ALPHA`).

    ``extra_curves``: ``{label: (x, summary values)}`` drawn for comparison (e.g. another tuning).
    ``why``: the reasons for the claim's tolerance (:class:`RateTolerance`), stated in ``details['tolerance']``
    and in the summary."""
    t0 = time.perf_counter()
    alpha, fam_member = _family_alpha(alpha, family, member or name, profile)
    mc = sweep(error_fn, grid, reps, seed=seed, vectorised=True, progress=False, fixed=fixed or {})
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", CrossoverWarning)
        res = check_rate(mc, claim, alpha, name=name, seed=seed)
    if caught:
        res.details["warnings"] = [str(w.message) for w in caught]
    res.provenance = claim.provenance
    res.seconds = time.perf_counter() - t0
    if note:
        res.summary += f" {note}"
        res.details["note"] = note
    if why is not None:
        tol = why.explain(claim, next(iter(grid.values())))
        res.details["tolerance"] = tol
        res.summary += " " + tol["text"]
    _family_annotate(res, family, fam_member, profile)
    fit = res.details["fit"]
    x = np.asarray(fit["x"])
    y = np.asarray(fit["summaries"])
    try:
        plt = _plt()
        fig, ax = plt.subplots(figsize=(6, 3.8))
        ax.loglog(x, y, "o", label=f"{claim.summary} error ({reps} reps)")
        ax.loglog(
            x,
            np.exp(fit["intercept"]) * x ** fit["exponent"],
            "-",
            label=f"fit: slope {fit['exponent']:.3f} [{fit['interval'][0]:.3f}, {fit['interval'][1]:.3f}]",
        )
        gm = math.exp(np.mean(np.log(y)) - claim.exponent * np.mean(np.log(x)))
        ax.loglog(x, gm * x**claim.exponent, "--", label=f"claimed slope {claim.exponent:g} ± {claim.tolerance:g}")
        for lab, (xe, ye) in (extra_curves or {}).items():
            ax.loglog(xe, ye, "s:", label=lab)
        ax.set_xlabel(claim.variable)
        ax.xaxis.set_minor_formatter(plt.NullFormatter())  # minor labels collided (2e-2, 3e-2, 4e-2 ...)
        ax.set_xticks(x, [f"{v:g}" for v in x], fontsize=8)
        ax.set_ylabel("error")
        ax.set_title(f"{name}: {res.verdict}", fontsize=9)
        ax.legend(fontsize=7)
        res.figures = [_save(fig, out_dir, name)]
    except Exception as exc:
        res.details["figure_error"] = repr(exc)
    return res


def summaries_of(error_fn, grid, reps, seed, fixed=None, stat="median"):
    """(x, summaries) of a sweep (for comparison curves in a rate figure)."""
    mc = sweep(error_fn, grid, reps, seed=seed, vectorised=True, progress=False, fixed=fixed or {})
    var = next(iter(grid))
    xs = np.asarray(grid[var], dtype=float)
    vals = mc.values()
    vals = vals.reshape(len(xs), -1)
    f = np.median if stat == "median" else (lambda v, axis: np.quantile(v, float(stat[1:]), axis=axis))
    return xs, f(vals, axis=1)


# ---------------------------------------------------------------------------------------------------------
# high-probability bounds
# ---------------------------------------------------------------------------------------------------------
def tail_check(
    cells: dict,
    bounds: dict,
    claim: TailBoundClaim,
    *,
    name: str,
    seed: int,
    out_dir,
    note: str = "",
    alpha: float = ALPHA,
) -> CheckResult:
    """``cells``: ``{label: errors (reps,)}``, ``bounds``: ``{label: bound value}``; pooled exact test at ``alpha``."""
    labels = list(cells)
    res = check_tail_bound([cells[k] for k in labels], [bounds[k] for k in labels], claim, alpha, name=name, seed=seed)
    res.details["cells"] = [
        {
            "cell": k,
            "bound": float(bounds[k]),
            "reps": int(cells[k].size),
            "exceedances": int(np.sum(cells[k] > bounds[k])),
            "q_1-beta": float(np.quantile(cells[k], 1 - claim.beta)),
            "ratio_q_to_bound": float(np.quantile(cells[k], 1 - claim.beta) / bounds[k]),
        }
        for k in labels
    ]
    if note:
        res.summary += f" {note}"
    try:
        plt = _plt()
        fig, ax = plt.subplots(figsize=(7, 3.8))
        pos = np.arange(len(labels))
        ax.boxplot(
            [cells[k] / bounds[k] for k in labels], positions=pos, whis=(0, 100 * (1 - claim.beta)), showfliers=False
        )
        ax.axhline(1.0, color="r", ls="--", label="bound (ratio 1)")
        ax.set_xticks(pos)
        ax.set_xticklabels(labels, rotation=20, fontsize=7)
        ax.set_ylabel("error / bound (whisker = 1-β quantile)")
        ax.set_title(f"{name}: {res.verdict}", fontsize=9)
        ax.legend(fontsize=7)
        res.figures = [_save(fig, out_dir, name)]
    except Exception as exc:
        res.details["figure_error"] = repr(exc)
    return res


def shape_check(
    errors,
    betas,
    *,
    name: str,
    gamma: float,
    tolerance: float,
    provenance: Provenance,
    seed: int,
    out_dir,
    note: str = "",
    compare: dict | None = None,
    alpha: float = ALPHA,
) -> CheckResult:
    """:func:`check_quantile_shape` at ``alpha`` plus a figure of q(β) against log(1/β); ``compare``:
    ``{label: (errors, betas)}`` drawn alongside (e.g. the other estimator)."""
    res = check_quantile_shape(
        errors, betas, gamma=gamma, tolerance=tolerance, alpha=alpha, name=name, provenance=provenance, seed=seed
    )
    if note:
        res.summary += f" {note}"
    try:
        plt = _plt()
        fig, ax = plt.subplots(figsize=(6, 3.8))
        sh = res.details["shape"]
        ell = np.asarray(sh["ells"])
        q = np.asarray(sh["quantiles"])
        g_txt = f"{sh['gamma']:.2f}" if not sh.get("censored") else f"{sh['gamma']:g} (censored)"
        ax.plot(
            ell,
            q,
            "o-",
            label=f"{name.split('.')[-1]}: γ={g_txt} [{sh['gamma_interval'][0]:.2f}, {sh['gamma_interval'][1]:.2f}]",
        )
        for lab, (e2, b2) in (compare or {}).items():
            from htdp_verify.rates import quantile_shape

            s2 = quantile_shape(e2, b2)
            g2 = f"{s2.gamma:.2f}" if not s2.censored else f"{s2.gamma:g} (censored)"
            ax.plot(
                s2.ells,
                s2.quantiles,
                "s--",
                label=f"{lab}: γ={g2} [{s2.gamma_interval[0]:.2f}, {s2.gamma_interval[1]:.2f}]",
            )
            res.details.setdefault("compare", {})[lab] = s2.to_dict()
        ax.set_xlabel("log(1/β)")
        ax.set_ylabel("(1-β)-quantile of the error")
        ax.set_title(f"{name}: {res.verdict} (claimed γ = {gamma:g} ± {tolerance:g})", fontsize=9)
        ax.legend(fontsize=7)
        res.figures = [_save(fig, out_dir, name)]
    except Exception as exc:
        res.details["figure_error"] = repr(exc)
    return res


# ---------------------------------------------------------------------------------------------------------
# comparison with baselines
# ---------------------------------------------------------------------------------------------------------
def comparison_check(
    estimators: dict,
    laws: dict,
    *,
    n: int,
    reps: int,
    rng,
    name: str,
    provenance: Provenance,
    seed: int,
    out_dir,
    epsilon: float,
    delta: float,
    focus: str,
) -> CheckResult:
    """Errors ``|est(data) − mean|`` (ℓ2 for vectors) of every estimator on the same ``reps`` datasets per law.

    ``estimators``: ``{label: est}`` (all private ones at the same (ε, δ)); ``laws``: ``{label: Law}``.
    Descriptive (no claim is tested): the verdict is ``info`` (never ``consistent``), and the
    statistic is the median-error ratio of ``focus`` to the best *private* baseline on the heaviest law.
    """
    t0 = time.perf_counter()
    rows = []
    errs = {}
    for lname, law in laws.items():
        mu = np.asarray(law.mean, dtype=float)
        e = {k: np.empty(reps) for k in estimators}
        for r in range(reps):
            x = law.sample(n, rng=rng)
            for k, est in estimators.items():
                e[k][r] = float(np.linalg.norm(np.asarray(est(x, rng=rng), dtype=float) - mu))
        for k in estimators:
            p = getattr(estimators[k], "privacy", None)
            rows.append(
                {
                    "law": lname,
                    "estimator": k,
                    "private": p is not None,
                    "epsilon": None if p is None else p.epsilon,
                    "delta": None if p is None else p.delta,
                    "median_error": float(np.median(e[k])),
                    "q90_error": float(np.quantile(e[k], 0.9)),
                    "mean_error": float(np.mean(e[k])),
                }
            )
        errs[lname] = e
    last = list(laws)[-1]
    priv = [r for r in rows if r["law"] == last and r["private"] and r["estimator"] != focus]
    best = min(priv, key=lambda r: r["median_error"]) if priv else None
    foc = next(r for r in rows if r["law"] == last and r["estimator"] == focus)
    ratio = foc["median_error"] / best["median_error"] if best else float("nan")
    table = ["| law | estimator | private (ε, δ) | median error | 90% quantile |", "|---|---|---|---|---|"]
    for r in rows:
        pd = "non-private" if not r["private"] else f"({r['epsilon']:.3g}, {r['delta']:g})"
        table.append(f"| {r['law']} | {r['estimator']} | {pd} | {r['median_error']:.4g} | {r['q90_error']:.4g} |")
    res = CheckResult(
        name=name,
        verdict="info",
        statistic=f"median error ratio {focus} / best private baseline ({last})",
        estimate=ratio,
        interval=(float("nan"), float("nan")),
        alpha=0.0,
        n_samples=reps * len(laws),
        seconds=time.perf_counter() - t0,
        seed=seed,
        provenance=provenance,
        summary=(
            f"descriptive comparison at (ε={epsilon:g}, δ={delta:g}), n={n}, {reps} datasets per law: on {last}, "
            f"{focus} median error {foc['median_error']:.4g} vs best private baseline "
            f"{best['estimator'] if best else '-'} {best['median_error'] if best else float('nan'):.4g} "
            f"(ratio {ratio:.3g}); no claim is tested"
        ),
        details={"rows": rows, "table_markdown": "\n".join(table), "n": n, "reps": reps},
    )
    try:
        plt = _plt()
        n_lab = max(len(e) for e in errs.values())
        fig, axes = plt.subplots(
            1, len(laws), figsize=(2.2 + 3.4 * len(laws), 1.2 + 0.42 * n_lab), squeeze=False, sharey=True
        )
        for ax, (lname, e) in zip(axes[0], errs.items()):  # horizontal boxes: estimator names read level
            labs = list(e)
            ax.boxplot(
                [np.maximum(e[k], 1e-12) for k in labs], whis=(5, 95), showfliers=False, orientation="horizontal"
            )
            ax.set_xscale("log")
            ax.set_title(lname, fontsize=9)
            ax.set_xlabel("|estimate − mean|", fontsize=8)
        labs = list(next(iter(errs.values())))  # the y axis is shared: names once, top to bottom
        axes[0][0].set_yticks(np.arange(1, len(labs) + 1), labs, fontsize=8)
        axes[0][0].invert_yaxis()
        fig.suptitle(f"{name} (ε={epsilon:g}, δ={delta:g}, n={n})", fontsize=9)
        res.figures = [_save(fig, out_dir, name)]
    except Exception as exc:
        res.details["figure_error"] = repr(exc)
    return res


def gaussian_true_epsilon(mu: float, delta: float) -> float:
    """ε(δ) of μ-GDP (the exact curve of a Gaussian shift of μ standard deviations)."""
    return float(gdp_epsilon(delta, mu))
