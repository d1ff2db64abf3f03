"""White-box budget ledger for diffprivlib 0.6.6: which internal mechanisms one release creates and uses, and whether
their budgets add up to the component's claimed ε.

:func:`record_mechanisms` (in :mod:`.recorder`, re-exported here) is a context manager that wraps ``__init__`` of
:class:`diffprivlib.mechanisms.DPMechanism` and every ``randomise`` defined in :mod:`diffprivlib.mechanisms` (and
restores them on exit).  Inside it every mechanism instance created is listed, and every outermost ``randomise``
call is logged with the instance's class, ε, δ and sensitivity *at call time* (nested ``super().randomise`` calls
count once).  :func:`run_ledger` runs one
release of a component of the suite's table (:mod:`.components`) under the recorder; :func:`compose_ledger`
turns the calls into black-box ε-DP steps (``Calibration("pure_dp")`` / ``("approx_dp")``) following the
component's declared composition structure (:data:`STRUCTURES`: which calls touch disjoint records and compose in
parallel; which calls noise one vector of known ℓ1 sensitivity), corrects a step's ε when diffprivlib's stated
sensitivity differs from the true one (:data:`SENSITIVITY_RULES`), and compares the total with the claim through
the exact accountant (:func:`htdp_verify.privacy.accounting.check_calibration`).  The result is a
:class:`~htdp_verify.results.CheckResult` with ``statistic="epsilon_ledger"`` whose details list every recorded
mechanism; it is independent of the black-box audits (Holohan et al. 2019, arXiv:1907.02444; composition:
Dwork & Roth 2014, Thm 3.16 (sequential) and McSherry 2009, Thm 4 (parallel)).

Parallel composition under the claimed relation: a record meets at most ``m`` parts of a partition of the records,
``m = 1`` for add/remove and ``m = 2`` for replace-one (the replaced record may leave one part and enter another);
a parallel group then costs the ``m`` most expensive parts.  What the ledger cannot see: leaks that do not pass
through a mechanism (a value released without noise), wrong sensitivities it has no rule for, and mechanisms
whose own guarantee is wrong (the black-box audits cover those).
"""

from __future__ import annotations

import math
import time
from dataclasses import asdict, dataclass

import numpy as np

from htdp_verify.claims import PrivacyClaim, Provenance
from htdp_verify.privacy.accounting import Calibration, check_calibration
from htdp_verify.results import CheckResult

from .recorder import Ledger, MechanismCall, record_mechanisms

__all__ = [
    "MechanismCall",
    "Ledger",
    "record_mechanisms",
    "run_ledger",
    "compose_ledger",
    "check_ledger",
    "STRUCTURES",
    "SENSITIVITY_RULES",
    "LEDGER_CAUSES",
    "ledger_table",
]

PAPER = "Holohan et al. 2019, Diffprivlib (arXiv:1907.02444); diffprivlib 0.6.6"


# ---------------------------------------------------------------------------------------------------------
# composition structure per component
# ---------------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Step:
    epsilon: float
    delta: float
    label: str


def _steps(calls, label="") -> list[Step]:
    return [Step(c.epsilon, c.delta, label or c.mechanism) for c in calls]


def _cost(steps) -> tuple:
    return (sum(s.epsilon for s in steps), sum(s.delta for s in steps))


def _parallel(parts: list[list[Step]], m: int) -> list[Step]:
    """The steps of the ``m`` most expensive parts (a record meets at most ``m`` parts)."""
    return [s for p in sorted(parts, key=_cost, reverse=True)[:m] for s in p]


def _by_instance(calls):
    out: dict[int, list] = {}
    for c in calls:
        out.setdefault(c.instance, []).append(c)
    return out


def _sequential(calls, m, ledger):
    return _steps(calls), "every randomise call is a sequential step"


def _histogram(calls, m, ledger):
    out = []
    for inst in _by_instance(calls).values():
        out += _parallel([[s] for s in _steps(inst, "bin count")], m)
    return out, f"the bins partition the records: one instance's calls compose in parallel (a record meets {m} bin(s))"


def _gaussian_nb(calls, m, ledger):
    counts = [c for c in calls if c.mechanism.startswith("Geometric")]
    rest = [c for c in calls if not c.mechanism.startswith("Geometric")]
    out = _parallel([[s] for s in _steps(counts, "class count")], m)
    k = len(counts)
    if k and len(rest) % k == 0:
        size = len(rest) // k
        blocks = [_steps(rest[i * size : (i + 1) * size], "per-class mean/variance") for i in range(k)]
        out += _parallel(blocks, m)
        how = "classes partition the records: counts and per-class mean/variance compose in parallel over classes"
    else:
        out += _steps(rest)
        how = "class counts in parallel; per-class blocks not aligned with the counts, so taken sequentially"
    return out, how + f" (a record meets {m} class(es))"


def _kmeans(calls, m, ledger):
    out, iteration, part = [], [], None
    geo_instance = None
    for c in calls:
        if c.mechanism == "GeometricFolded":
            if c.instance != geo_instance and iteration:
                out += _parallel(iteration, m)
                iteration = []
            geo_instance = c.instance
            part = [Step(c.epsilon, c.delta, "cluster count")]
            iteration.append(part)
        elif part is not None:
            part.append(Step(c.epsilon, c.delta, "cluster sum"))
        else:
            out.append(Step(c.epsilon, c.delta, c.mechanism))
    if iteration:
        out += _parallel(iteration, m)
    return out, f"iterations sequential; within one, clusters partition the records (a record meets {m} cluster(s))"


def _pca(calls, m, ledger):
    out = []
    for inst in _by_instance(calls).values():
        if inst[0].mechanism == "LaplaceBoundedDomain" and len(inst) > 1:
            out.append(Step(inst[0].epsilon, inst[0].delta, "eigenvalue vector"))
        else:
            out += _steps(inst)
    return out, (
        "the eigenvalue instance noises one vector whose ℓ1 sensitivity (2, the nuclear norm of a replaced "
        "rank-one term) is its per-call sensitivity: one step; the rest sequential"
    )


#: component key prefix → (composition function, which diffprivlib code it follows).  Keys not listed (the
#: forest: trees and leaves with data-dependent shapes) get an "info" result.
STRUCTURES = {
    "mechanisms.": (_sequential, "one mechanism, one call"),
    "tools.histogram": (_histogram, "tools/histograms.py: one GeometricTruncated, one call per bin"),
    "tools.": (_sequential, "tools/utils.py, tools/quantiles.py: one mechanism per output"),
    "models.GaussianNB": (_gaussian_nb, "models/naive_bayes.py: _noisy_class_counts, _update_mean_variance"),
    "models.KMeans": (_kmeans, "models/k_means.py: _update_centers"),
    "models.PCA": (_pca, "models/utils.py: covariance_eig; tools.mean for the centre"),
    "models.LinearRegression": (_sequential, "models/linear_regression.py: _construct_regression_obj"),
    "models.LogisticRegression": (_sequential, "models/logistic_regression.py: one Vector mechanism"),
    "models.StandardScaler": (_sequential, "models/standard_scaler.py: nanmean, nanvar"),
}


def _x2_range(lo, hi):
    """Range of x² over [lo, hi]: the replace-one sensitivity of Σ x_i² for x_i ∈ [lo, hi]."""
    top = max(lo * lo, hi * hi)
    return top - (0.0 if lo <= 0.0 <= hi else min(lo * lo, hi * hi))


def _corner_range(a, b, c, d):
    v = [a * c, a * d, b * c, b * d]
    return max(v) - min(v)


def _linreg_sensitivities(ledger: Ledger):
    """True replace-one sensitivities of the noised coefficients of ``_construct_regression_obj``, in its call
    order (Σy², Xᵀy, then per feature i: Σx_i² and Σx_i x_j for j > i), from the bounds it was given."""
    rec = ledger.hooks.get("regression_obj")
    if not rec:
        return None
    bx, by = rec[-1]["bounds_X"], rec[-1]["bounds_y"]
    lx, ux = np.atleast_1d(np.asarray(bx[0], float)), np.atleast_1d(np.asarray(bx[1], float))
    ly, uy = np.atleast_1d(np.asarray(by[0], float)), np.atleast_1d(np.asarray(by[1], float))
    d, t = lx.size, ly.size
    out = [_x2_range(ly[i], uy[i]) for i in range(t)]
    out += [_corner_range(ly[i], uy[i], lx[j], ux[j]) for i in range(t) for j in range(d)]
    for i in range(d):
        out.append(_x2_range(lx[i], ux[i]))
        out += [_corner_range(lx[i], ux[i], lx[j], ux[j]) for j in range(i + 1, d)]
    return out


#: component key prefix → (hooks to install, function giving the true sensitivities of the last calls in order)
SENSITIVITY_RULES = {
    "models.LinearRegression": (
        {
            "regression_obj": (
                "diffprivlib.models.linear_regression",
                "_construct_regression_obj",
                ("X", "y", "bounds_X", "bounds_y", "epsilon"),
            )
        },
        _linreg_sensitivities,
    ),
}


#: why a component's ledger can exceed its claim (diffprivlib 0.6.6 source), attached to a violated budget verdict
LEDGER_CAUSES = {
    "models.GaussianNB": "the class counts and the per-class means/variances are calibrated for one class each, "
    "but a replaced record leaves one class and enters another, so two classes' blocks change (parallel "
    "composition over classes holds for add/remove, not for replace-one)",
    "models.KMeans": "k_means._split_epsilon returns (ε_i, ε_0) but _update_centers unpacks (ε_0, ε_i), so each "
    "coordinate's sum gets the count's share (the total grows with d)",
    "models.LinearRegression": "linear_regression._construct_regression_obj: the diagonal Σx_i² sensitivity uses "
    "the lower bound twice, max(|lower|, |lower|)², which is 0 for a lower bound of 0 "
    "(IBM/differential-privacy-library#105)",
}


def _rule(key: str, table: dict):
    for prefix in sorted(table, key=len, reverse=True):
        if key.startswith(prefix):
            return table[prefix]
    return None


def _correct_sensitivities(calls, truth):
    """Scale the ε of the last ``len(truth)`` calls by true / stated sensitivity (∞ if stated 0 < true)."""
    out, notes = list(calls), []
    start = len(calls) - len(truth)
    for k, true in enumerate(truth):
        c = calls[start + k]
        stated = c.sensitivity
        if stated is None or math.isclose(stated, true, rel_tol=1e-9, abs_tol=1e-12):
            continue
        if true <= stated:  # an over-stated sensitivity only adds noise
            eff = c.epsilon * true / stated
        else:
            eff = math.inf if stated == 0 else c.epsilon * true / stated
            notes.append(
                f"call {start + k} ({c.mechanism}): stated sensitivity {stated:.6g} < true {true:.6g}, "
                f"effective ε {eff:.6g} instead of {c.epsilon:.6g}"
            )
        out[start + k] = MechanismCall(c.instance, c.mechanism, eff, c.delta, stated)
    return out, notes


def run_ledger(component, epsilon: float, *, data=None, seed: int = 0) -> Ledger:
    """One release of ``component`` (a :class:`~.components.Component`) at ``epsilon`` under the recorder, on
    ``data`` (default: the first dataset of its first candidate pair built on a "spread" base, else of its first
    pair)."""
    adapter = component.build(epsilon)
    if data is None:
        pairs = component.pairs()
        data = next((p.d for p in pairs if "spread" in p.label), pairs[0].d)
    rule = _rule(component.key, SENSITIVITY_RULES)
    with record_mechanisms(hooks=rule[0] if rule else None) as ledger:
        adapter.n_jobs = 1
        adapter.release(data, int(seed))
    return ledger


def compose_ledger(ledger: Ledger, key: str, relation: str, *, correct: bool = True) -> tuple[list[Step], dict]:
    """The ledger's steps (ε, δ each) after the component's structure and (``correct``) sensitivity corrections,
    and notes."""
    struct = _rule(key, STRUCTURES)
    if struct is None:
        raise ValueError(f"key: no composition structure declared for {key!r} (declared: {sorted(STRUCTURES)})")
    calls, notes = list(ledger.calls), []
    sens = _rule(key, SENSITIVITY_RULES) if correct else None
    if sens is not None:
        truth = sens[1](ledger)
        if truth is not None and len(truth) <= len(calls):
            calls, notes = _correct_sensitivities(calls, truth)
    m = 1 if relation == "add_remove" else 2
    steps, how = struct[0](calls, m, ledger)
    return steps, {"structure": how, "source": struct[1], "sensitivity_notes": notes}


def _calibrations(steps: list[Step], relation: str) -> list[Calibration]:
    groups: dict[tuple, int] = {}
    for s in steps:
        if s.epsilon > 0 or s.delta > 0:
            groups[(s.epsilon, s.delta)] = groups.get((s.epsilon, s.delta), 0) + 1
    cals = []
    for (e, d), k in groups.items():
        if d > 0:
            cals.append(Calibration("approx_dp", step_epsilon=e, step_delta=d, steps=k, neighbours=relation))
        else:
            cals.append(Calibration("pure_dp", step_epsilon=e, steps=k, neighbours=relation))
    return cals


def check_ledger(
    ledger: Ledger, key: str, claim: PrivacyClaim, *, name: str | None = None, expected: str | None = None
) -> CheckResult:
    """The "budget" verdict: do the ledger's composed budgets stay within ``claim``?  ``consistent`` /
    ``violated`` from the exact accountant (no sampling, α = 0); ``estimate`` is the composed ε at the claim's δ."""
    t0 = time.perf_counter()
    name = name or f"diffprivlib.{key}.budget"
    steps, info = compose_ledger(ledger, key, claim.neighbours)
    naive = sum(c.epsilon for c in ledger.calls)
    other = "add_remove" if claim.neighbours == "replace" else "replace"
    details = {
        "mechanisms": ledger.mechanisms(),
        "n_calls": len(ledger.calls),
        "sequential_sum_epsilon": naive,
        f"summed_epsilon_{other}": sum(s.epsilon for s in compose_ledger(ledger, key, other)[0]),
        "summed_epsilon_stated_sensitivities": sum(
            s.epsilon for s in compose_ledger(ledger, key, claim.neighbours, correct=False)[0]
        ),
        "steps": [asdict(s) for s in steps],
        **info,
    }
    if any(math.isinf(s.epsilon) for s in steps):
        res = CheckResult(
            name=name,
            verdict="violated",
            statistic="epsilon_ledger",
            estimate=math.inf,
            interval=(math.inf, math.inf),
            alpha=0.0,
            claim=claim,
            n_samples=0,
            seed=None,
            provenance=claim.provenance,
            details=details,
            expected=expected,
            summary=f"{key}: a mechanism's stated sensitivity is 0 where the true one is not: ε = ∞ "
            f"(claimed {claim.epsilon:g}; with the stated sensitivities the budgets sum to "
            f"{details['summed_epsilon_stated_sensitivities']:.6g})",
        )
    elif not steps:
        res = CheckResult(
            name=name,
            verdict="consistent",
            statistic="epsilon_ledger",
            estimate=0.0,
            interval=(0.0, 0.0),
            alpha=0.0,
            claim=claim,
            n_samples=0,
            seed=None,
            provenance=claim.provenance,
            details=details,
            expected=expected,
            summary=f"{key}: no mechanism call spends budget",
        )
    else:
        # δ nudged by a relative 1e-9: k steps at the claim's own δ0 hit the accountant's floor 1 − (1 − δ0)^k,
        # which floating point puts a hair above δ0 (an (ε, δ) mechanism would otherwise get ε = ∞ at its own δ)
        nudged = PrivacyClaim(claim.epsilon, claim.delta * (1 + 1e-9), claim.neighbours, claim.provenance)
        res = check_calibration(_calibrations(steps, claim.neighbours), nudged, name=name, expected=expected)
        res.claim = claim
        details.update({k: res.details[k] for k in ("accountant", "epsilon_lower", "calibration")})
        res.statistic = "epsilon_ledger"
        res.details = details
        res.summary = (
            f"{key}: {len(ledger.created)} mechanism(s), {len(ledger.calls)} randomise call(s) compose "
            f"to ε = {res.estimate:.6g} at δ = {claim.delta:g} (claimed {claim.epsilon:g}): {res.verdict}"
        )
    if info["sensitivity_notes"]:
        res.summary += "; " + "; ".join(info["sensitivity_notes"][:2])
    cause = _rule(key, LEDGER_CAUSES)
    if res.verdict == "violated" and cause:
        res.details["cause"] = cause
        res.summary += f"; cause: {cause}"
    res.seconds = time.perf_counter() - t0
    return res


def ledger_table(results) -> str:
    """Markdown table of ledger results: component, claimed ε, composed ε, calls, verdict."""
    lines = ["| component | claimed ε | composed ε | mechanisms (calls) | verdict |", "|---|---|---|---|---|"]
    for r in results:
        mech = {}
        for row in r.details.get("mechanisms", []):
            mech[row["mechanism"]] = mech.get(row["mechanism"], 0) + row["calls"]
        lines.append(
            f"| `{r.name}` | {r.claim.epsilon:g} | {r.estimate:.4g} | "
            f"{', '.join(f'{k} ({v})' for k, v in mech.items())} | **{r.verdict}** |"
        )
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------------------
# registered "budget" checks, one per component of the suite's table
# ---------------------------------------------------------------------------------------------------------
def _datasets(component, max_datasets: int):
    """Up to ``max_datasets`` distinct datasets from the component's candidate pairs (both sides), so that data-
    dependent control flow (empty clusters, absent classes, iteration counts) is seen more than once."""
    out, seen = [], set()
    for p in component.pairs():
        for d in (p.d, p.d_prime):
            key = np.asarray(d, dtype=float).tobytes()
            if key not in seen:
                seen.add(key)
                out.append(d)
            if len(out) >= max_datasets:
                return out
    return out


def ledger_check(
    component,
    epsilon: float,
    *,
    seed: int = 0,
    max_datasets: int = 3,
    name: str | None = None,
    expected: str | None = None,
) -> CheckResult:
    """The budget verdict of ``component`` at ``epsilon``: the ledger of one release on each of up to
    ``max_datasets`` datasets of its pairs; the worst (largest composed ε) is returned, the others in
    ``details["per_dataset"]``.  A component without a declared structure gets verdict ``info``."""
    adapter = component.build(epsilon)
    g = adapter.privacy
    claim = PrivacyClaim(g.epsilon, g.delta, g.neighbours, Provenance(PAPER, component.key))
    name = name or f"diffprivlib.{component.key}.budget"
    if _rule(component.key, STRUCTURES) is None:
        return CheckResult(
            name=name,
            verdict="info",
            statistic="epsilon_ledger",
            alpha=0.0,
            claim=claim,
            n_samples=0,
            seed=seed,
            provenance=claim.provenance,
            summary=f"{component.key}: no composition structure declared; ledger not composed",
        )
    t0 = time.perf_counter()
    results = []
    for k, data in enumerate(_datasets(component, max_datasets)):
        led = run_ledger(component, epsilon, data=data, seed=seed + k)
        results.append(check_ledger(led, component.key, claim, name=name, expected=expected))
    worst = max(results, key=lambda r: r.estimate)
    worst.details["per_dataset"] = [
        {"epsilon_ledger": r.estimate, "verdict": r.verdict, "n_calls": r.details["n_calls"]} for r in results
    ]
    worst.seed = seed
    worst.seconds = time.perf_counter() - t0
    return worst


def extra_components():
    """Configurations audited by the ledger only: KMeans at d = 10, where diffprivlib's ``_split_epsilon`` returns
    (ε_i, ε_0) but ``_update_centers`` unpacks them as (ε_0, ε_i), so each coordinate gets the count's share; the
    swap spends more than the budget once ε_0 = ∛(4dρ²) > 1, i.e. d ≥ 5."""
    from estimators.dpl import DPLModel

    from .components import BOX, N_JOBS, Component, _model_bases
    from .pairs import _pairs_by_base

    bases = _model_bases("unsupervised", d=10)
    return [
        Component(
            "models.KMeans[d=10]",
            "model",
            lambda eps: DPLModel("KMeans", epsilon=eps, n_jobs=N_JOBS, bounds=BOX, n_clusters=2),
            lambda: _pairs_by_base(bases, BOX[0], BOX[1], "replace"),
        )
    ]


def _register_ledger_checks():
    from htdp_verify.registry import register

    from .components import COMPONENTS, VARIANTS

    for comp in list(COMPONENTS.values()) + list(VARIANTS.values()) + extra_components():

        def run(ctx, comp=comp):
            return ledger_check(
                comp, 1.0, seed=int(ctx.rng.integers(2**31)), max_datasets=3 if ctx.profile == "quick" else 8
            )

        register(
            f"diffprivlib.{comp.key}.budget",
            description=f"white-box budget ledger of diffprivlib {comp.key} at claimed ε = 1",
            provenance=Provenance(PAPER, comp.key),
            tags=("diffprivlib", "budget", comp.kind),
        )(run)


_register_ledger_checks()
