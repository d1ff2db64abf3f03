"""Root cause of a certified diffprivlib violation: which internal step leaks, the smallest configuration and pair
that still trigger it, the upstream issue where one is known, and a reproduction that recounts the certified event.

:func:`explain` combines four pieces of evidence (Holohan et al. 2019, arXiv:1907.02444; diffprivlib 0.6.6 source):

* **the leaking coordinates** (:func:`leaking_coordinates`): the release coordinates named after the model's
  attributes (:func:`coordinate_names`, e.g. ``class_count_[1]``, ``XtX[0,0]``, ``cluster_centers_[1,0]``), ranked
  by how well one threshold on each separates fresh releases on the two datasets of the pair (and whether it is
  constant -- released without noise -- on one side); the certified event's own coordinate comes first when the
  event is a coordinate threshold;
* **the internal step** producing that coordinate (:data:`STEPS`, from diffprivlib's source);
* **the ledger** (:mod:`.ledger`) of one release on each side: the composed ε of the internal mechanisms and any
  stated-versus-true sensitivity correction;
* **the known causes** (:data:`KNOWN_CAUSES`): predicates evaluated on the configuration and the pair (an absent
  class on one side, a feature bound whose lower edge is smaller in magnitude than its upper edge, a weight above
  1, ...) with the upstream issue that reports them (only issues whose text was read are cited).

:func:`minimise` shrinks the configuration greedily (fewer features, fewer rows, fewer clusters/classes, default
optional arguments) while a screening audit still flags it, and :func:`explain` has the caller certify the result on
fresh samples (:func:`~.search.run_search` gives it its own generator and α slot); :func:`reproduce` writes the
stand-alone script of :func:`~.repro.repro_script` for the certified pair and event and runs it (in process) to
record its counts.
"""

from __future__ import annotations

import contextlib
import copy
import hashlib
import io
import re
from pathlib import Path

import numpy as np

from .space import SPACE, Config, build_adapter

__all__ = [
    "STEPS",
    "KNOWN_CAUSES",
    "coordinate_names",
    "leaking_coordinates",
    "known_causes",
    "minimise",
    "reproduce",
    "explain",
]

_NO_ISSUE = "no upstream issue found"
ISSUE_LOGREG_CLASSES = (
    "IBM/differential-privacy-library#106 (open): LogisticRegression infers the label set with np.unique(y), so "
    "removing a class's only record changes the model"
)
ISSUE_LINREG = (
    "IBM/differential-privacy-library#105 (open; fix PR #110 open): the diagonal XᵀX sensitivity uses "
    "the lower bound twice; also item 1 of #104"
)

#: coordinate-name prefix -> the diffprivlib step that produces it (diffprivlib 0.6.6 source)
STEPS = {
    "class_count_": "naive_bayes._noisy_class_counts: GeometricTruncated(ε/3, sensitivity 1, lower=1, upper=n) on "
    "the classes present in y only, then forced to sum to n",
    "theta_": "naive_bayes._update_mean_variance: LaplaceTruncated per feature mean at ε/(3d), class size from "
    "the noisy count",
    "var_": "naive_bayes._update_mean_variance: LaplaceBoundedDomain per feature variance at ε/(3d)",
    "XtX_diag": "linear_regression._construct_regression_obj: diagonal Σx_i² coefficient, LaplaceFolded with "
    "sensitivity max(|lower_i|, |lower_i|)²",
    "XtX": "linear_regression._construct_regression_obj: off-diagonal Σx_i x_j coefficient, Laplace with the "
    "corner-range sensitivity",
    "Xty": "linear_regression._construct_regression_obj: Σx_j y coefficient, Laplace with the corner-range sensitivity",
    "sum_y2": "linear_regression._construct_regression_obj: Σy² coefficient, LaplaceFolded",
    "coef_": "linear_regression: minimiser of the noisy objective (post-processing of the noisy coefficients)",
    "intercept_": "linear_regression._preprocess_data: DP centring with tools.mean at ε/(d+1) (fit_intercept)",
    "cluster_centers_": "k_means._update_centers: GeometricFolded counts (ε_0) and LaplaceBoundedDomain sums (ε_i) "
    "per occupied cluster; an empty cluster is skipped and keeps its random initial centre",
    "components_": "pca / models.utils.covariance_eig: Bingham eigenvectors",
    "explained_variance_": "pca / models.utils.covariance_eig: LaplaceBoundedDomain eigenvalues",
    "mean_": "tools.mean / nanmean (DP centring or StandardScaler mean)",
    "scale_var_": "standard_scaler: tools.nanvar per feature",
    "coef_logreg": "logistic_regression: Vector objective perturbation per class at ε / n_classes",
    "classes_logreg": "logistic_regression.fit: classes_ = np.unique(y) (the labels present, no noise); one "
    "objective per present class",
    "predict_proba": "forest: PermuteAndFlip leaf labels on a data-independent tree",
    "bin": "tools.histogram(dd): np.histogram (weights summed, cast to int), then GeometricTruncated(sensitivity 1) "
    "per bin",
    "output": "the tool's / mechanism's one noise step",
}


def _model_names(c: Config, dim: int) -> list[str]:
    name, d = c.key.split(".")[1], c.dat.get("d", 1)
    k = int(c.kw.get("classes", 0) or 0)
    if name == "GaussianNB":
        return (
            [f"theta_[{i},{j}]" for i in range(k) for j in range(d)]
            + [f"var_[{i},{j}]" for i in range(k) for j in range(d)]
            + [f"class_count_[{i}]" for i in range(k)]
        )
    if name == "LinearRegression":
        return (
            [f"coef_[{j}]" for j in range(d)]
            + ["intercept_", "sum_y2"]
            + [f"Xty[{j}]" for j in range(d)]
            + [f"XtX[{i},{j}]" for i in range(d) for j in range(d)]
        )
    if name == "KMeans":
        return [f"cluster_centers_[{i},{j}]" for i in range(c.kw["n_clusters"]) for j in range(d)]
    if name == "StandardScaler":
        if not c.kw.get("with_std", True):  # var_ is not computed: the release is mean_ alone
            return [f"mean_[{j}]" for j in range(dim)]
        half = dim // 2
        return [f"mean_[{j}]" for j in range(half)] + [f"scale_var_[{j}]" for j in range(dim - half)]
    if name == "LogisticRegression":
        return [f"coef_logreg[{j}]" for j in range(dim)]
    if name == "RandomForestClassifier":
        return [f"predict_proba[{j}]" for j in range(dim)]
    if name == "PCA":
        m = int(c.kw["n_components"])
        return (
            [f"components_[{i},{j}]" for i in range(m) for j in range(d)]
            + [f"explained_variance_[{i}]" for i in range(m)]
            + [f"mean_[{j}]" for j in range(d)]
        )
    return [f"output[{j}]" for j in range(dim)]


def coordinate_names(c: Config, dim: int) -> list[str]:
    """Names of the ``dim`` release coordinates of configuration ``c`` (the adapters' flatten order); generic
    ``output[j]`` when the layout does not match."""
    fam, name = c.key.split(".")
    if fam == "mechanisms":
        names = ["output"]
    elif fam == "tools":
        names = [("bin" if name.startswith("histogram") else "output") + f"[{j}]" for j in range(dim)]
    else:
        names = _model_names(c, dim)
    return names if len(names) == dim else [f"output[{j}]" for j in range(dim)]


def _step_of(name: str) -> str:
    base = name.split("[")[0]
    if base == "XtX":
        i, j = re.findall(r"\d+", name)[:2]
        return STEPS["XtX_diag" if i == j else "XtX"]
    return STEPS.get(base, STEPS["output"])


def _separation(a: np.ndarray, b: np.ndarray) -> float:
    """Largest |ln(P_a(E) / P_b(E))| over one-sided thresholds E, with a +1/n pseudo-count (a rough screen)."""
    n = a.size
    grid = np.unique(np.r_[a, b])
    if grid.size > 200:
        grid = np.quantile(np.r_[a, b], np.linspace(0, 1, 201))
    best = 0.0
    for t in grid:
        for pa, pb in ((np.mean(a <= t), np.mean(b <= t)), (np.mean(a >= t), np.mean(b >= t))):
            best = max(best, abs(np.log((pa + 1 / n) / (pb + 1 / n))))
    return float(best)


def leaking_coordinates(c: Config, pair, rng: np.random.Generator, *, n: int = 200, top: int = 3):
    """The ``top`` release coordinates that best separate fresh releases on ``pair.d`` and ``pair.d_prime``
    (name, rough separation, whether constant -- released without noise -- on either side), and the release's
    dimension."""
    adapter = build_adapter(c)
    Y1 = np.asarray(adapter(pair.d, n, rng), dtype=float).reshape(n, -1)
    Y2 = np.asarray(adapter(pair.d_prime, n, rng), dtype=float).reshape(n, -1)
    names = coordinate_names(c, Y1.shape[1])
    rows = []
    for j in range(Y1.shape[1]):
        const = [bool(np.all(Y[:, j] == Y[0, j])) for Y in (Y1, Y2)]
        rows.append(
            {
                "coordinate": names[j],
                "index": j,
                "separation": round(_separation(Y1[:, j], Y2[:, j]), 3),
                "constant_on": [s for s, k in zip(("D", "D'"), const) if k],
                "values_if_constant": [float(Y[0, j]) for Y, k in zip((Y1, Y2), const) if k],
            }
        )
    rows.sort(key=lambda r: -float(r["separation"]))  # type: ignore[arg-type]
    return rows[:top], Y1.shape[1]


# ---------------------------------------------------------------------------------------------------------
# known causes: predicates on the configuration and the pair
# ---------------------------------------------------------------------------------------------------------
def _class_counts(c: Config, D):
    k = int(c.kw["classes"])
    lab = np.asarray(D, float)[:, -1]
    return [int(np.sum(lab == i)) for i in range(k)]


def _gnb_absent(c, pair, ledger_eps):
    if c.key != "models.GaussianNB":
        return None
    a, b = _class_counts(c, pair.d), _class_counts(c, pair.d_prime)
    flips = [i for i in range(len(a)) if (a[i] == 0) != (b[i] == 0)]
    if not flips:
        return None
    return {
        "step": STEPS["class_count_"],
        "cause_text": (
            f"class {flips[0]} has {a[flips[0]]} record(s) in D and {b[flips[0]]} in D': diffprivlib "
            "noises only the classes present in y, so an absent class gets class_count_ = 0 (and "
            "theta_/var_ of the initial state) with no noise, and the present classes' counts are "
            "forced to sum to n; whether a class occurs is released exactly"
        ),
        "upstream": _NO_ISSUE,
    }


def _logreg_classes(c, pair, ledger_eps):
    if c.key != "models.LogisticRegression":
        return None
    a, b = _class_counts(c, pair.d), _class_counts(c, pair.d_prime)
    flips = [i for i in range(len(a)) if (a[i] == 0) != (b[i] == 0)]
    if not flips:
        return None
    return {
        "step": STEPS["classes_logreg"],
        "cause_text": (
            f"class {flips[0]} has {a[flips[0]]} record(s) in D and {b[flips[0]]} in D': diffprivlib reads the "
            "classes from y (classes_ = np.unique(y)), so the set of classes present is released exactly "
            "(shape of coef_; in the declared-class layout, a zero row for an absent class)"
        ),
        "upstream": ISSUE_LOGREG_CLASSES,
    }


def _gnb_budget(c, pair, ledger_eps):
    if c.key != "models.GaussianNB" or ledger_eps is None or ledger_eps <= c.epsilon * (1 + 1e-9):
        return None
    return {
        "step": STEPS["class_count_"],
        "cause_text": (
            f"the ledger composes the class counts and per-class means/variances to ε = {ledger_eps:.3g}"
            f" > {c.epsilon:g}: each block is calibrated for one class, but a replaced record leaves "
            "one class and enters another, so two blocks change (parallel composition over classes "
            "holds for add/remove, not for replace-one)"
        ),
        "upstream": _NO_ISSUE,
    }


def _linreg_bounds(c, pair, ledger_eps):
    if c.key != "models.LinearRegression":
        return None
    lo, hi = c.kw["bounds_X"]
    if abs(lo) >= abs(hi):
        if not (c.kw.get("fit_intercept") and ledger_eps == float("inf")):
            return None
        return {
            "step": STEPS["XtX_diag"],
            "cause_text": (
                f"bounds_X = ({lo:g}, {hi:g}) with fit_intercept: diffprivlib shifts the bounds by the noisy "
                "mean X_offset before building the objective, and the diagonal Σx_i² coefficient is noised with "
                "sensitivity (lower - X_offset)², the shifted lower bound used twice; it is 0 when the noisy "
                "mean lands on the lower bound (the ledger recorded a stated sensitivity of 0: ε = ∞)"
            ),
            "upstream": ISSUE_LINREG,
        }
    return {
        "step": STEPS["XtX_diag"],
        "cause_text": (
            f"bounds_X = ({lo:g}, {hi:g}): the diagonal Σx_i² coefficient is noised with sensitivity "
            f"max(|{lo:g}|, |{lo:g}|)² = {lo * lo:g} instead of the true range of x² over the bounds "
            f"({max(lo * lo, hi * hi) - (0 if lo <= 0 <= hi else min(lo * lo, hi * hi)):g})"
            + (": no noise at all, the coefficient is released exactly" if lo == 0 else "")
        ),
        "upstream": ISSUE_LINREG,
    }


def _kmeans_budget(c, pair, ledger_eps):
    if c.key != "models.KMeans" or ledger_eps is None or ledger_eps <= c.epsilon * (1 + 1e-9):
        return None
    return {
        "step": STEPS["cluster_centers_"],
        "cause_text": (
            f"the ledger composes to ε = {ledger_eps:.3g} > {c.epsilon:g}: _split_epsilon returns "
            "(ε_i, ε_0) but _update_centers unpacks (ε_0, ε_i), so each coordinate's sum gets the "
            "count's share"
        ),
        "upstream": "no upstream issue verified (IBM/differential-privacy-library#104's title lists k-means; "
        "its k-means item was not readable here)",
    }


def _kmeans_empty(c, pair, ledger_eps):
    if c.key != "models.KMeans":
        return None
    k = int(c.kw["n_clusters"])
    distinct = [np.unique(np.asarray(D, float), axis=0).shape[0] for D in (pair.d, pair.d_prime)]
    if min(distinct) >= k:
        return None
    return {
        "step": STEPS["cluster_centers_"],
        "cause_text": (
            "a cluster that receives no points keeps its random initial centre with no noise added, "
            "so whether one record moves a cluster between occupied and empty shows in the centres"
        ),
        "upstream": _NO_ISSUE,
    }


def _weights(c, pair, ledger_eps):
    w = c.kw.get("weights")
    if w is None or float(w) <= 1.0:
        return None
    return {
        "step": STEPS["bin"],
        "cause_text": (
            f"weights up to {float(w):g}: np.histogram sums the weights and GeometricTruncated uses "
            "sensitivity 1, so one record moves a bin count by up to its weight (ε scales with the "
            "largest weight); diffprivlib neither clips nor documents a weight bound"
        ),
        "upstream": _NO_ISSUE,
    }


#: evaluated in order; the first that holds (and matches the leaking step when one is named) is the cause
KNOWN_CAUSES = [_gnb_absent, _logreg_classes, _linreg_bounds, _weights, _gnb_budget, _kmeans_budget, _kmeans_empty]


def known_causes(c: Config, pair, ledger_eps: float | None = None) -> list[dict]:
    """Every known cause whose predicate holds for configuration ``c`` and ``pair``."""
    out = []
    for f in KNOWN_CAUSES:
        r = f(c, pair, ledger_eps)
        if r:
            out.append(dict(r, rule=f.__name__.lstrip("_")))
    return out


# ---------------------------------------------------------------------------------------------------------
# minimal configuration
# ---------------------------------------------------------------------------------------------------------
def _simplifications(c: Config):
    """Candidate simpler configurations, most useful first: fewer features, fewer rows, fewer clusters /
    classes / bins, then optional arguments back to their first (default-like) table value."""
    sp = SPACE[c.key]
    dat, kw = c.dat, c.kw
    for key in ("d", "n"):
        if key in dat:
            for v in sorted(sp.data[key]):
                if v < dat[key]:
                    yield key, v
                    break
    for key in ("n_clusters", "classes", "bins", "k", "n_estimators", "max_depth", "n_components"):
        if key in kw:
            smaller = [v for v in sp.args[key] if isinstance(v, int) and v < kw[key]]
            if smaller:
                yield key, max(smaller)
    for key, vals in sp.args.items():
        if key in (
            "bounds",
            "bounds_X",
            "bounds_y",
            "range",
            "lower_upper",
            "weights",
            "n_clusters",
            "classes",
            "bins",
            "k",
            "sensitivity",
            "delta",
        ):
            continue
        if kw.get(key) != vals[0]:
            yield key, vals[0]


def minimise(c: Config, rng: np.random.Generator, *, screen_sizes: dict, max_steps: int = 3):
    """Greedy shrinking: accept a simplification when a screening audit of it still gives a bound above its claim.
    Returns ``(config, Screened, steps)`` (the original config when nothing smaller is flagged)."""
    from .search import screen
    from .space import _valid

    steps, best = [], None
    tried = 0
    for _ in range(max_steps):
        accepted = False
        for key, v in _simplifications(c):
            cand = c.replace(**{key: v})
            if not _valid(cand.key, cand.kw, cand.dat) or tried >= max_steps:
                continue
            tried += 1
            s = screen(cand, rng, sizes=screen_sizes, ledger=False)
            if not s.error and s.epsilon_lb > cand.epsilon:
                c, best, accepted = cand, s, True
                steps.append(f"{key} -> {v!r}: still flagged (screen ε_lb {s.epsilon_lb:.3g})")
                break
            steps.append(f"{key} -> {v!r}: not flagged")
        if not accepted or tried >= max_steps:
            break
    return c, best, steps


# ---------------------------------------------------------------------------------------------------------
# reproduction
# ---------------------------------------------------------------------------------------------------------
def _exact_event_text(ev: dict) -> str | None:
    """The certified event's text with its thresholds / outcomes at full precision (from the event's exact spec;
    the display text rounds them to 6 digits), for the event kinds the reproduction script rebuilds."""
    spec = (ev or {}).get("spec") or {}
    feat = spec.get("feature") or {}
    if not spec.get("exact") or feat.get("type") not in ("coordinate", "identity", "row_key"):
        return None
    name = feat.get("name") or "output"
    if feat.get("type") == "coordinate":
        name = f"output[{int(feat['j'])}]"
    elif feat.get("type") == "row_key":
        name = "output"
    kind, params = spec.get("kind"), spec.get("params") or []
    if kind == "threshold" and params:
        return f"{name} {spec['side']} {params[0]}"
    if kind == "interval" and len(params) == 2:
        return f"{params[0]} <= {name} <= {params[1]}"
    vals = (spec.get("set") or {}).get("values")
    if kind == "set" and vals and feat.get("type") == "row_key" and not feat.get("shape_tail"):
        return "output in {" + ", ".join(str(v) for v in vals) + "}"
    return None


def _full_pair_result(res, pair):
    """A shallow copy of ``res`` whose ``details["pair"]`` holds the full datasets (the script embeds them) and
    whose event text carries the exact thresholds."""
    r = copy.copy(res)
    r.details = dict(res.details)
    exact = _exact_event_text(res.details.get("event"))
    if exact is not None:
        r.details["event"] = dict(res.details["event"], event=exact)
    p = dict(res.details.get("pair", {}))
    for k, v in (("d", pair.d), ("d_prime", pair.d_prime)):
        p[k] = np.asarray(v).tolist() if not np.isscalar(v) else v
    r.details["pair"] = p
    return r


def reproduce(c: Config, pair, res, *, n: int, out_dir=None) -> dict:
    """Write the reproduction script of the certified ``res`` (pair and event) and run its ``main(n)`` in process
    (releases seeded 0..n-1 on D and 10⁹.. on D', so rerunning the script with ``n`` gives the same counts)."""
    from .repro import repro_script

    adapter = build_adapter(c)
    try:
        src = repro_script(adapter, _full_pair_result(res, pair))
    except (ValueError, KeyError) as e:
        return {"error": f"no script: {e}"}
    name = "repro_search_" + re.sub(r"[^A-Za-z0-9_.-]+", "_", c.key) + f"_{_digest(c)}.py"
    path = None
    if out_dir is not None:
        path = Path(out_dir) / name
        path.write_text(src, encoding="utf-8")
    ns: dict = {"__name__": "htdp_repro"}
    buf = io.StringIO()
    try:
        exec(compile(src, name, "exec"), ns)
        with contextlib.redirect_stdout(buf):
            lb = ns["main"](int(n))
    except Exception as e:  # noqa: BLE001
        return {"script": path.name if path else "", "error": f"{type(e).__name__}: {e}"}
    line = buf.getvalue().strip()
    m = re.search(r"(\d+)/(\d+) vs (\d+)/(\d+)", line)
    return {
        "script": path.name if path else "",
        "releases_per_side": int(n),
        "output": line,
        "counts": [int(m.group(1)), int(m.group(3))] if m else None,
        "epsilon_lb": float(lb),
        "exceeds_claim": bool(lb > c.epsilon),
        "event_is_certified_event": "event = None" not in src,
    }


# ---------------------------------------------------------------------------------------------------------
# all together
# ---------------------------------------------------------------------------------------------------------
def explain(
    c: Config,
    pair,
    res,
    rng: np.random.Generator,
    *,
    screen_sizes: dict,
    shrink_steps: int = 2,
    repro_n: int = 200,
    out_dir=None,
    certify_smallest=None,
) -> dict:
    """Root cause of the certified violation ``res`` of configuration ``c`` on ``pair`` (see module docstring):
    a dict with the step, rule, upstream issue, cause text, leaking coordinates, ledger, smallest configuration and
    reproduction.  ``certify_smallest(config, pair) -> AuditResult``, when given, audits the smallest configuration
    still flagged on fresh samples (the caller owns its generator and α) and its result is kept under
    ``smallest["certified"]``; when nothing smaller was flagged, the certification ``res`` itself stands for it
    (``same_as_certified``) and nothing more is drawn.  A certified smallest configuration gets its own
    reproduction script."""
    from .search import _ledger_epsilon
    from .search_result import ledger_text

    r_leak, r_min = rng.spawn(2)
    n_leak = 40 if c.key.startswith("models.") else 400
    leaks, dim = leaking_coordinates(c, pair, r_leak, n=n_leak)
    m = re.match(r"^output\[(\d+)\]", res.event or "")
    if m:
        j = int(m.group(1))
        names = coordinate_names(c, dim)
        ev_coord = names[j] if j < len(names) else f"output[{j}]"
    else:
        ev_coord = leaks[0]["coordinate"] if leaks else "output"
    ledger_eps = _ledger_epsilon(c, pair, int(r_leak.integers(2**31)))
    causes = known_causes(c, pair, ledger_eps)
    step = _step_of(ev_coord)
    match = [k for k in causes if k["step"] == step]
    chosen: dict | None = (match or causes)[0] if (match or causes) else None
    if chosen is None:
        where = (
            "no budget overrun recorded by the ledger"
            if ledger_eps is not None and ledger_eps <= c.epsilon
            else f"ledger ε = {ledger_eps}"
        )
        chosen = {
            "step": step,
            "rule": "unexplained",
            "cause_text": f"the leak is in {ev_coord} ({step}); {where}; no known cause matches",
            "upstream": _NO_ISSUE,
        }
    small, small_s, steps = minimise(c, r_min, screen_sizes=screen_sizes, max_steps=shrink_steps)
    small_pair = small_s.pair if small_s is not None else pair
    smallest = {
        "config": small.to_dict(),
        "steps": steps,
        "pair": small_pair.describe(),
        "pair_label": small_pair.label,
        "screen_epsilon_lb": small_s.epsilon_lb if small_s is not None else None,
    }
    if certify_smallest is not None:
        if small_s is None:
            smallest["certified"] = dict(_certified_row(small, res), same_as_certified=True)
        else:
            r_small = certify_smallest(small, small_pair)
            smallest["certified"] = dict(_certified_row(small, r_small), same_as_certified=False)
            if r_small.verdict == "violated":  # the script to send upstream: the smallest configuration's event
                smallest["reproduction"] = reproduce(small, small_pair, r_small, n=repro_n, out_dir=out_dir)
    rep = reproduce(c, pair, res, n=repro_n, out_dir=out_dir)
    return {
        "config": c.to_dict(),
        "release": str(getattr(build_adapter(c), "release_description", "") or ""),
        "epsilon_lb": res.epsilon_lb,
        "event": res.event,
        "event_coordinate": ev_coord,
        "step": chosen["step"],
        "rule": chosen["rule"],
        "upstream": chosen["upstream"],
        "cause_text": f"{chosen['cause_text']} [step: {chosen['step']}; upstream: {chosen['upstream']}]",
        "leaking_coordinates": leaks,
        "ledger_epsilon": ledger_eps,
        "ledger": ledger_text(ledger_eps),
        "other_causes": causes[1:] if causes else [],
        "pair": pair.describe(),
        "smallest": smallest,
        "reproduction": rep,
    }


def _certified_row(c: Config, res) -> dict:
    """What the report keeps of a certification: configuration, pair, event, bound, verdict, α, counts, sizing."""
    return {
        "config": c.to_dict(),
        "pair_label": res.pair.get("label", ""),
        "event": res.event,
        "epsilon_lb": float(res.epsilon_lb),
        "verdict": res.verdict,
        "alpha": float(res.alpha),
        "counts": res.counts,
        "sizing": res.details.get("sizing"),
        "summary": res.summary,
    }


def _digest(c: Config) -> str:
    """Eight hex digits naming configuration ``c`` the same way in every process (Python's ``hash`` of a str is
    salted per process, so a script named by it changed name from run to run)."""
    return hashlib.sha256(repr((c.key, c.epsilon, c.args, c.data)).encode()).hexdigest()[:8]
