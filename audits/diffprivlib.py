"""diffprivlib 0.6.6 under audit: every mechanism, tool and model at its claimed ε ∈ {0.1, 1}.

Each component is run through its real code path by the adapters of ``estimators/dpl.py`` (seeded per release,
explicit bounds / range / data_norm / classes, a private accountant per release) and audited with
``htdp_verify.privacy.audit`` under the neighbouring relation its calibration is valid for (diffprivlib
documents none; see ``estimators/dpl.py``):

* mechanisms: the input is the value given to ``randomise``; neighbours are values at distance
  ``<= sensitivity`` inside the mechanism's domain (query-level pairs);
* tools (``mean``, ``var``, ``std``, ``sum``, ``count_nonzero``, ``quantile``, ``median``): replace-one;
  ``histogram``/``histogramdd``: add/remove-one;
* models: replace-one.

Neighbour search (dataset level): base datasets inside the declared box (all rows at the lower corner, at the
upper corner, spread over the box, half/half, and for classifiers a dataset where one class occurs once), and
from each: one row moved to every corner of the declared box (with every label for classifiers), one coordinate
of a row moved to a bound, a row replaced by a duplicate of the farthest row (replace-one); a row removed, a row
duplicated, a row added at a corner (add/remove).  The pairs are ranked on a search split and only the winner is
certified on fresh samples (``audit``; no α is spent on the search).  Attacks: thresholds and intervals for scalar
releases, outcome sets for discrete ones, coordinates, random projections and a learned (logistic) score for vector
releases; the full profile adds gradient boosting for models.

Each check returns one :class:`AuditResult` (component × ε) whose ``details["table"]`` holds its row of the
results table (component, claimed ε, δ, relation, ε_lb, verdict, samples, seconds); every check runs at
α = 0.05 / (number of checks), so the bounds of the whole suite hold simultaneously at 95 %; ``results_table``
assembles the whole table from a list of results.  A violation writes a minimal, stand-alone reproduction script
(plain diffprivlib calls, the pair, the event) to ``ctx.out_dir``.

Budgets (70 checks, 2 shared cores): quick ~3-5 minutes, full ~17 minutes at load ~2 and ~34 minutes at load ~7-10.
"""
from __future__ import annotations

import itertools
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np

from estimators.dpl import DPLAdapter, DPLMechanism, DPLModel, DPLTool
from htdp_verify.claims import Provenance
from htdp_verify.privacy import Mechanism, Pair, audit
from htdp_verify.privacy.neighbours import add_one, remove_one, replace_one
from htdp_verify.registry import register

__all__ = [
    "EPSILONS",
    "ALPHA",
    "VARIANTS",
    "check_alpha",
    "COMPONENTS",
    "SIZES",
    "Component",
    "audit_component",
    "box_pairs",
    "results_table",
    "repro_script",
]

EPSILONS = (0.1, 1.0)
#: family-wise error probability of the whole diffprivlib suite; every check gets ALPHA / (number of checks)
#: (Bonferroni; see ``check_alpha``).  Many diffprivlib mechanisms are *exactly* tight (some event has probability
#: ratio exactly e^ε), and for such a mechanism a 95 % lower bound exceeds ε with probability up to 5 %: over ~70
#: checks at α = 0.05 each, a run would report one or two spurious "violations".  With the split, all the suite's
#: verdicts and bounds hold simultaneously at 95 %.
ALPHA = 0.05
PAPER = "Holohan et al. 2019, Diffprivlib (arXiv:1907.02444); diffprivlib 0.6.6"

#: per profile and kind: n_samples (certification, per side), n_select (per side), n_search (per pair and side),
#: max_pairs (candidate pairs searched)
SIZES = {
    "quick": {
        "mechanism": dict(n_samples=10_000, n_select=2_000, n_search=1_000, max_pairs=2),
        "tool": dict(n_samples=1_200, n_select=500, n_search=200, max_pairs=2),
        "model": dict(n_samples=150, n_select=80, n_search=50, max_pairs=2),
    },
    "full": {
        "mechanism": dict(n_samples=100_000, n_select=20_000, n_search=5_000, max_pairs=3),
        "tool": dict(n_samples=10_000, n_select=3_000, n_search=600, max_pairs=10),
        "model": dict(n_samples=1_000, n_select=400, n_search=100, max_pairs=6),
    },
}

N_JOBS = 2


# ---------------------------------------------------------------------------------------------------------
# neighbouring pairs
# ---------------------------------------------------------------------------------------------------------
def _corners(lo, hi):
    lo, hi = np.asarray(lo, float), np.asarray(hi, float)
    return [np.where(np.array(bits, bool), hi, lo) for bits in itertools.product((0, 1), repeat=lo.size)]


def box_pairs(bases: dict, lo, hi, relation: str, *, labels=None, max_corners: int = 16) -> list[Pair]:
    """Dataset-level neighbours inside the box ``[lo, hi]`` (per feature) for each base dataset.

    ``bases`` maps a name to a dataset: shape ``(n,)`` or ``(n, d)`` features, or ``(n, d + 1)`` with labels in the
    last column when ``labels`` (the label values a row may take) is given.  Replace-one: row 0 to every corner of
    the box (× every label), one coordinate of row 0 to each bound, row 0 replaced by the farthest row.
    Add/remove: row 0 removed, row 0 duplicated, a row added at every corner.  Pairs whose two datasets coincide
    are dropped.  The order is: corners first (the strongest for bounded-sensitivity mechanisms), then the rest.
    """
    lo = np.atleast_1d(np.asarray(lo, float))
    hi = np.atleast_1d(np.asarray(hi, float))
    out_first, out_rest = [], []
    for bname, D in bases.items():
        D = np.asarray(D, float)
        one_d = D.ndim == 1
        feat = D[:, None] if one_d else (D[:, :-1] if labels is not None else D)
        corners = _corners(np.broadcast_to(lo, feat.shape[1:]), np.broadcast_to(hi, feat.shape[1:]))[:max_corners]
        rows = []
        for c in corners:
            if labels is None:
                rows.append((c, f"corner {np.array2string(c, separator=',')}"))
            else:
                for lab in labels:
                    rows.append((np.r_[c, lab], f"corner {np.array2string(c, separator=',')} label {lab:g}"))
        ref = D[0] if not one_d else np.atleast_1d(D[0])
        rows.sort(key=lambda rw: -float(np.linalg.norm(np.atleast_1d(rw[0]) - ref)))  # farthest first (stable)
        if relation == "replace":
            for r, what in rows:
                r = r[0] if one_d else r
                if not np.array_equal(D[0], r):
                    out_first.append(replace_one(D, 0, r, f"{bname}: row 0 -> {what}"))
            for j in range(feat.shape[1]):
                for b, bv in (("lower", lo.flat[min(j, lo.size - 1)]), ("upper", hi.flat[min(j, hi.size - 1)])):
                    r = D[0].copy()
                    if one_d:
                        r = bv
                    else:
                        r[j] = bv
                    if not np.array_equal(D[0], r):
                        out_rest.append(replace_one(D, 0, r, f"{bname}: row 0 coordinate {j} -> {b} bound"))
            R = D.reshape(D.shape[0], -1)
            far = int(np.argmax(np.linalg.norm(R - R[0], axis=1)))
            if far != 0 and not np.array_equal(D[0], D[far]):
                out_rest.append(replace_one(D, 0, D[far], f"{bname}: row 0 -> duplicate of row {far}"))
        else:
            for r, what in rows:
                out_first.append(add_one(D, r[0] if one_d else r, f"{bname}: add a row at {what}"))
            out_rest.append(remove_one(D, 0, f"{bname}: remove row 0"))
            out_rest.append(add_one(D, D[0], f"{bname}: duplicate row 0"))
    return out_first + out_rest


def _interleave(*lists):
    """Round-robin merge (so a truncated list still covers every base dataset)."""
    out = []
    for group in itertools.zip_longest(*lists):
        out += [p for p in group if p is not None]
    return out


def _pairs_by_base(bases, lo, hi, relation, **kw):
    return _interleave(*[box_pairs({k: v}, lo, hi, relation, **kw) for k, v in bases.items()])


# ---------------------------------------------------------------------------------------------------------
# the components
# ---------------------------------------------------------------------------------------------------------
@dataclass
class Component:
    """One audited diffprivlib component: how to build its adapter at ε, its candidate pairs, and its attacks."""

    key: str  # "mechanisms.Laplace", "tools.mean", "models.GaussianNB"
    kind: str  # "mechanism" | "tool" | "model"
    build: Callable[[float], DPLAdapter]
    pairs: Callable[[], list]
    attacks: object = "auto"
    full_attacks: object = None
    note: str = ""
    size_scale: dict = field(default_factory=dict)  # per-profile multiplier of the kind's sizes
    cause: str = ""  # plain-language cause of a violation, shown in the report when the audit finds one


def _mech(name, pairs, note="", size_scale=None, **params):
    def build(eps):
        p = dict(params)
        delta = p.pop("delta", 0.0)
        return DPLMechanism(name, epsilon=eps, delta=delta, n_jobs=N_JOBS, **p)

    return Component(f"mechanisms.{name}", "mechanism", build, lambda: [Pair(a, b, lab, "query") for lab, a, b in pairs],
                     note=note, size_scale=size_scale or {})


SLOW = {"quick": 0.5, "full": 0.5}  # mechanisms at ~1/4 of Laplace's speed


def _mechanisms():
    s = 1.0
    U3 = [0.0, 0.0, 0.0]
    util_pairs = [("u=(0,0,0) vs (1,0,0)", U3, [1.0, 0.0, 0.0]), ("u=(0,1,1) vs (1,0,0)", [0.0, 1.0, 1.0], [1.0, 0.0, 0.0])]
    real = [("x=0 vs x=1", 0.0, 1.0)]
    bounded = [("x=0 vs x=1 (both bounds)", 0.0, 1.0), ("x=0 vs x=0.5", 0.0, 0.5), ("x=0.5 vs x=1", 0.5, 1.0)]
    integer = [("x=0 vs x=1", 0, 1)]
    int_bounded = [("x=0 vs x=1 (lower bound)", 0, 1), ("x=4 vs x=5 (upper bound)", 4, 5)]
    return [
        _mech("Laplace", real, sensitivity=s),
        _mech("LaplaceTruncated", bounded, sensitivity=s, lower=0.0, upper=1.0),
        _mech("LaplaceFolded", bounded, sensitivity=s, lower=0.0, upper=1.0),
        _mech("LaplaceBoundedDomain", bounded, sensitivity=s, lower=0.0, upper=1.0, size_scale=SLOW),
        _mech("LaplaceBoundedNoise", real, sensitivity=s, delta=1e-3),
        _mech("Gaussian", real, sensitivity=s, delta=1e-5),
        _mech("GaussianAnalytic", real, sensitivity=s, delta=1e-5),
        _mech("GaussianDiscrete", integer, sensitivity=1, delta=1e-5),
        _mech("Geometric", integer, sensitivity=1),
        _mech("GeometricTruncated", int_bounded, sensitivity=1, lower=0, upper=5),
        _mech("GeometricFolded", int_bounded, sensitivity=1, lower=0, upper=5, size_scale=SLOW),
        _mech("Staircase", real, sensitivity=s),
        _mech("Snapping", bounded, sensitivity=s, lower=0.0, upper=1.0,
              note="crlibm is not installed, so Snapping uses np.log (its guarantee assumes a correctly rounded log)"),
        _mech("Exponential", util_pairs, sensitivity=s),
        _mech("PermuteAndFlip", util_pairs, sensitivity=s),
        _mech("Binary", [("bit 0 vs bit 1", 0, 1)]),
    ]


TOOL_N = 10
TOOL_BOUNDS = (-1.0, 2.0)


def _tool_bases(lo, hi, n=TOOL_N):
    return {
        "all at lower": np.full(n, lo),
        "half/half": np.r_[np.full(n // 2, lo), np.full(n - n // 2, hi)],
        "spread": np.linspace(lo, hi, n),
        "all at upper": np.full(n, hi),
    }


def _tool(name, *, relation="replace", bounds=TOOL_BOUNDS, bases=None, box=None, label=None, **kw):
    lo, hi = box if box is not None else bounds

    def build(eps):
        if name in ("histogram", "histogramdd", "count_nonzero"):
            return DPLTool(name, epsilon=eps, n_jobs=N_JOBS, **kw)
        return DPLTool(name, epsilon=eps, bounds=bounds, n_jobs=N_JOBS, **kw)

    b = bases if bases is not None else _tool_bases(lo, hi)
    return Component(f"tools.{label or name}", "tool", build, lambda: _pairs_by_base(b, lo, hi, relation))


def _tools():
    lo, hi = TOOL_BOUNDS
    two_d = {
        "all at lower corner": np.zeros((TOOL_N, 2)),
        "spread": np.column_stack([np.linspace(0, 1, TOOL_N), np.linspace(1, 0, TOOL_N)]),
        "all at upper corner": np.ones((TOOL_N, 2)),
    }
    bits = {"all zero": np.zeros(TOOL_N), "half/half": np.r_[np.zeros(TOOL_N // 2), np.ones(TOOL_N - TOOL_N // 2)],
            "all one": np.ones(TOOL_N)}
    return [
        _tool("mean"),
        _tool("var"),
        _tool("std"),
        _tool("sum"),
        _tool("count_nonzero", bases=bits, box=(0.0, 1.0)),
        _tool("quantile", quant=0.25),
        _tool("median"),
        _tool("histogram", relation="add_remove", range=TOOL_BOUNDS, bins=4),
        _tool("histogramdd", relation="add_remove", bases=two_d, box=(0.0, 1.0), range=[(0.0, 1.0), (0.0, 1.0)],
              bins=2),
    ]


def _tool_variants():
    """Optional arguments the API accepts (full profile only)."""
    two_d = {
        "all at lower corner": np.full((TOOL_N, 2), -1.0),
        "spread": np.column_stack([np.linspace(-1, 2, TOOL_N), np.linspace(2, -1, TOOL_N)]),
    }
    return [
        _tool("sum", label="sum[dtype=int]", bounds=(0, 3), box=(0.0, 3.0), dtype=int,
              bases={k: v for k, v in _tool_bases(0.0, 3.0).items() if k != "spread"}),
        _tool("quantile", label="quantile[quant=(0.25,0.75)]", quant=[0.25, 0.75]),
        _tool("mean", label="mean[axis=0]", bases=two_d, axis=0),
        _tool("histogram", label="histogram[density=True]", relation="add_remove", range=TOOL_BOUNDS, bins=4,
              density=True),
    ]


MODEL_N = 20
BOX = (0.0, 1.0)


def _model_bases(kind: str, classes=(0.0, 1.0), n=MODEL_N, d=2):
    """Base datasets in [0,1]^d (features) with the label / target in the last column when supervised."""
    g = np.linspace(0.05, 0.95, n)
    spread = np.column_stack([g, np.roll(g, n // 3)][:d] if d == 2 else [g] * d)
    low = np.zeros((n, d))
    if kind == "unsupervised":
        return {"all at lower corner": low, "spread": spread, "all at upper corner": np.ones((n, d))}
    if kind == "regression":
        return {"all at lower corner": np.column_stack([low, np.zeros(n)]),
                "spread": np.column_stack([spread, spread[:, 0]])}
    lab = np.resize(np.asarray(classes, float), n)
    bases = {"all at lower corner": np.column_stack([low, lab])}
    if kind == "classification":
        rare = np.full(n, classes[0])
        rare[0] = classes[1]
        bases["one row of class 1"] = np.column_stack([spread, rare])
    bases["spread"] = np.column_stack([spread, (spread[:, 0] > 0.5).astype(float)])
    return bases


def _model(name, kind, *, full_attacks=("auto", "gboost"), size_scale=None, cause="", **params):
    def build(eps):
        return DPLModel(name, epsilon=eps, n_jobs=N_JOBS, **params)

    if kind == "regression":
        labels = (0.0, 1.0)  # the target's bounds (corners of the (x, y) box)
    elif kind in ("classification", "classification-all-classes"):
        labels = (0.0, 1.0)
    else:
        labels = None
    bases = _model_bases(kind)
    return Component(f"models.{name}", "model", build,
                     lambda: _pairs_by_base(bases, BOX[0], BOX[1], "replace", labels=labels),
                     full_attacks=list(full_attacks), size_scale=size_scale or {}, cause=cause)


LINREG_SCALE = {"quick": 0.6}  # scipy.optimize.minimize per fit: the slowest model
LINREG_CAUSE = ("the noise added to the regression's sufficient statistics does not account for the upper bound of the "
                "feature and target bounds, so a record at the upper corner moves the fit more than the noise "
                "covers (upstream diffprivlib issue #105)")
GNB_CAUSE = ("a class with no training records gets a noisy count of exactly 0 (no noise reaches it), so whether a "
             "class is absent is released exactly and one record that switches class changes the output visibly")
KMEANS_CAUSE = ("a cluster that receives no points keeps its random starting centre with no noise added, so the "
                "released centres reveal whether one record moved a cluster from occupied to empty")


def _models():
    norm = float(np.sqrt(2.0))
    return [
        _model("LinearRegression", "regression", bounds_X=BOX, bounds_y=BOX, size_scale=LINREG_SCALE,
               cause=LINREG_CAUSE),
        # every base keeps both classes in >= 2 rows: diffprivlib reads the classes from y and scikit-learn refuses
        # a single-class fit, so a pair that removes a class would not be a release but an exception
        _model("LogisticRegression", "classification-all-classes", data_norm=norm, classes=[0.0, 1.0],
               size_scale={"full": 0.6}),
        _model("GaussianNB", "classification", bounds=BOX, classes=[0.0, 1.0], cause=GNB_CAUSE),
        _model("KMeans", "unsupervised", bounds=BOX, n_clusters=2, cause=KMEANS_CAUSE),
        _model("PCA", "unsupervised", bounds=BOX, data_norm=norm, n_components=2),
        _model("StandardScaler", "unsupervised", bounds=BOX),
        _model("RandomForestClassifier", "classification", bounds=BOX, classes=[0.0, 1.0], n_estimators=3,
               max_depth=3),
    ]


def _model_variants():
    norm = float(np.sqrt(2.0))
    out = [
        _model("LinearRegression", "regression", bounds_X=BOX, bounds_y=BOX, fit_intercept=False,
               size_scale=LINREG_SCALE, cause=LINREG_CAUSE),
        _model("PCA", "unsupervised", bounds=BOX, data_norm=norm, n_components=2, centered=True),
    ]
    out[0].key += "[fit_intercept=False]"
    out[1].key += "[centered=True]"
    return out


COMPONENTS: dict[str, Component] = {c.key: c for c in _mechanisms() + _tools() + _models()}
VARIANTS: dict[str, Component] = {c.key: c for c in _tool_variants() + _model_variants()}


# ---------------------------------------------------------------------------------------------------------
# running one audit
# ---------------------------------------------------------------------------------------------------------
def _sizes(comp: Component, profile: str) -> dict:
    s = dict(SIZES[profile][comp.kind])
    f = comp.size_scale.get(profile, 1.0)
    for k in ("n_samples", "n_select", "n_search"):
        s[k] = max(40, int(round(s[k] * f)))
    return s


def audit_component(adapter: DPLAdapter, pairs: list, *, n_samples: int, n_select: int, n_search: int,
                    rng: np.random.Generator, attacks="auto", max_pairs: int | None = None, alpha: float = ALPHA,
                    name: str | None = None, out_dir: Path | None = None, note: str = "",
                    component: str | None = None):
    """Audit one adapter against its declared guarantee on ``pairs`` (searched when several) and return the
    :class:`AuditResult` with ``details["table"]`` (its row of the results table) and, on a violation, the path of a
    reproduction script written to ``out_dir``."""
    if max_pairs is not None:
        pairs = list(pairs)[:max_pairs]
    mech = Mechanism(adapter, name=adapter.name, guarantee=adapter.privacy, vectorised=False)
    claim = adapter.privacy.claim(Provenance(PAPER, adapter.name, "", adapter.relation_note))
    res = audit(mech, claim, pairs=pairs if len(pairs) > 1 else pairs[0], n_samples=n_samples, n_select=n_select,
                n_search=n_search, alpha=alpha, attacks=attacks, rng=rng, name=name)
    g = adapter.privacy
    row = {
        "component": component or adapter.name,
        "claimed_epsilon": g.epsilon,
        "delta": g.delta,
        "relation": g.neighbours if not isinstance(adapter, DPLMechanism) else "value within sensitivity",
        "epsilon_lb_95": res.epsilon_lb,  # at 1 - alpha of this audit (suite: simultaneous 95 %)
        "verdict": res.verdict,
        "samples": res.n_samples,
        "seconds": round(res.seconds, 1),
        "pairs_searched": len(pairs),
        "pair": res.pair.get("label", ""),
        "event": res.event,
    }
    res.details["table"] = [row]
    res.details["relation_note"] = adapter.relation_note
    if note:
        res.details["note"] = note
    if res.verdict == "violated" and out_dir is not None:
        path = Path(out_dir) / f"repro_{re.sub(r'[^A-Za-z0-9_.-]+', '_', res.name)}.py"
        path.write_text(repro_script(adapter, res), encoding="utf-8")
        res.details["reproduction_script"] = path.name
        res.summary += f"; reproduction: {path.name}"
    return res


def check_alpha() -> float:
    """α of one registered check: the suite's family-wise ``ALPHA`` split evenly (Bonferroni) over its checks."""
    return ALPHA / (len(COMPONENTS) * len(EPSILONS) + len(VARIANTS))


def _check(comp: Component, eps: float):
    def run(ctx):
        sizes = _sizes(comp, ctx.profile)
        max_pairs = sizes.pop("max_pairs")
        attacks = comp.full_attacks if (ctx.profile == "full" and comp.full_attacks) else comp.attacks
        adapter = comp.build(eps)
        a = check_alpha()
        res = audit_component(adapter, comp.pairs(), rng=ctx.rng, attacks=attacks, max_pairs=max_pairs, alpha=a,
                              name=_check_name(comp, eps), out_dir=ctx.out_dir, note=comp.note, component=comp.key,
                              **sizes)
        res.details["alpha_note"] = (f"alpha = {ALPHA:g} / {round(ALPHA / a)} checks (Bonferroni over the diffprivlib "
                                     f"suite): all its bounds and verdicts hold simultaneously at {1 - ALPHA:.0%}")
        if res.verdict == "violated" and comp.cause:
            res.details["cause"] = comp.cause
        return res

    return run


def _check_name(comp: Component, eps: float) -> str:
    e = f"{eps:g}".replace(".", "_")
    return f"diffprivlib.{comp.key}.eps{e}"


def _register_all():
    for comp in COMPONENTS.values():
        for eps in EPSILONS:
            g = comp.build(eps).privacy
            register(_check_name(comp, eps),
                     description=f"audit of diffprivlib {comp.key} at claimed {g}",
                     provenance=Provenance(PAPER, comp.key), tags=("diffprivlib", "privacy", comp.kind))(_check(comp, eps))
    for comp in VARIANTS.values():  # optional-argument variants: ε = 1 only
        g = comp.build(1.0).privacy
        register(_check_name(comp, 1.0), description=f"audit of diffprivlib {comp.key} at claimed {g}",
                 provenance=Provenance(PAPER, comp.key),
                 tags=("diffprivlib", "privacy", comp.kind, "variant"))(_check(comp, 1.0))


_register_all()


# ---------------------------------------------------------------------------------------------------------
# results table
# ---------------------------------------------------------------------------------------------------------
def results_table(results) -> str:
    """Markdown table (component, claimed ε, δ, relation, ε_lb, verdict, samples, seconds) from results (the
    bounds of the registered checks hold simultaneously at 95 %)."""
    lines = ["| component | claimed ε | δ | neighbours | ε_lb (95%, simultaneous) | verdict | samples | seconds |",
             "|---|---|---|---|---|---|---|---|"]
    for r in results:
        for row in (r.details or {}).get("table", []):
            lines.append(f"| `{row['component']}` | {row['claimed_epsilon']:g} | {row['delta']:g} | {row['relation']} | "
                         f"{row['epsilon_lb_95']:.3g} | **{row['verdict']}** | {row['samples']} | {row['seconds']} |")
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------------------
# reproduction scripts
# ---------------------------------------------------------------------------------------------------------
def _py(x) -> str:
    """A Python literal for parameters (arrays become lists)."""
    if isinstance(x, np.ndarray):
        return repr(x.tolist())
    if isinstance(x, (list, tuple)):
        inner = ", ".join(_py(v) for v in x)
        return f"[{inner}]" if isinstance(x, list) else f"({inner}{',' if len(x) == 1 else ''})"
    if isinstance(x, (np.floating, np.integer)):
        return repr(x.item())
    if isinstance(x, type):
        return x.__name__
    return repr(x)


def _kwargs_src(d: dict) -> str:
    return ", ".join(f"{k}={_py(v)}" for k, v in d.items())


def _release_source(adapter: DPLAdapter) -> str:
    """Source of ``release(data, seed)`` with plain diffprivlib calls, equal to the adapter's release."""
    if isinstance(adapter, DPLMechanism):
        kw = dict(adapter._kwargs)
        if adapter.kind == "utility":
            return (f"def release(data, seed):\n"
                    f"    m = diffprivlib.mechanisms.{adapter.mechanism}({_kwargs_src(kw)}, utility=list(data), "
                    f"random_state=seed)\n    return float(m.randomise())\n")
        if adapter.kind == "binary":
            return (f"def release(data, seed):\n"
                    f"    m = diffprivlib.mechanisms.Binary({_kwargs_src(kw)}, random_state=seed)\n"
                    f"    return float(int(m.randomise(str(int(data)))))\n")
        return (f"def release(data, seed):\n"
                f"    m = diffprivlib.mechanisms.{adapter.mechanism}({_kwargs_src(kw)}, random_state=seed)\n"
                f"    return float(m.randomise(data))\n")
    if isinstance(adapter, DPLTool):
        kw = dict(adapter.kwargs)
        if adapter.bounds is not None:
            kw["bounds"] = adapter.bounds
        hist = adapter.tool in ("histogram", "histogramdd")
        return (f"def release(data, seed):\n"
                f"    out = diffprivlib.tools.{adapter.tool}(np.asarray(data), epsilon={adapter.epsilon!r}, "
                f"{_kwargs_src(kw)}{', ' if kw else ''}random_state=seed, accountant=BudgetAccountant())\n"
                f"    return np.ravel(np.asarray({'out[0]' if hist else 'out'}, dtype=float))\n")
    if isinstance(adapter, DPLModel):
        name = adapter.model
        kw = {k: v for k, v in adapter.params.items()
              if not (k == "classes" and name in ("LogisticRegression", "GaussianNB"))}
        if name == "RandomForestClassifier":
            kw["n_jobs"] = 1
        src = [f"def release(data, seed):",
               f"    data = np.array(data, dtype=float)",
               f"    m = diffprivlib.models.{name}(epsilon={adapter.epsilon!r}, {_kwargs_src(kw)}, random_state=seed, "
               f"accountant=BudgetAccountant())"]
        if adapter.supervised:
            src.append("    X, y = data[:, :-1], data[:, -1]")
        if name == "GaussianNB":
            src.append(f"    m.partial_fit(X, y, classes=np.array({_py(adapter.params['classes'])}))")
            src.append("    return np.concatenate([m.theta_.ravel(), m.var_.ravel(), m.class_count_.ravel()])")
        elif name == "LinearRegression":
            src.append("    m.fit(X, y)")
            src.append("    # coef_, intercept_, then the noisy objective coefficients (Σy², Xᵀy, XᵀX) kept on the model")
            src.append("    return np.concatenate([np.ravel(m.coef_), np.ravel(m.intercept_)]"
                       " + [np.ravel(c) for c in m._obj_coefs])")
        elif name == "LogisticRegression":
            src.append("    m.fit(X, y)")
            src.append("    return np.concatenate([np.ravel(m.coef_), np.ravel(m.intercept_)])")
        elif name == "RandomForestClassifier":
            from estimators.dpl import _probe_grid

            probe = adapter.probe if adapter.probe is not None else _probe_grid(adapter.params["bounds"], 2)
            src.append("    m.fit(X, y)")
            src.append(f"    return m.predict_proba(np.array({_py(probe)})).ravel()")
        else:
            src.append("    m.fit(data)")
            attrs = {"KMeans": ["cluster_centers_"], "PCA": ["components_", "explained_variance_", "mean_"],
                     "StandardScaler": ["mean_", "var_"]}[name]
            src.append("    return np.concatenate([" + ", ".join(f"np.ravel(m.{a})" for a in attrs) + "])")
        return "\n".join(src) + "\n"
    raise ValueError(f"adapter must be a DPLMechanism, DPLTool or DPLModel, got {type(adapter).__name__}")


_EV_THRESH = re.compile(r"^output(?:\[(\d+)\])? (>=|<=) (\S+)$")
_EV_INTERVAL = re.compile(r"^(\S+) <= output(?:\[(\d+)\])? <= (\S+)$")
_EV_SET = re.compile(r"^output in \{(.*)\}$")


def _event_source(desc: str) -> str | None:
    """``def event(Y) -> bool array`` for simple events (coordinate / identity thresholds, intervals, small sets)."""
    m = _EV_THRESH.match(desc)
    if m:
        j, side, t = m.groups()
        col = f"Y[:, {int(j)}]" if j is not None else "Y[:, 0]"
        return f"def event(Y):\n    return {col} {side} {float(t)!r}\n"
    m = _EV_INTERVAL.match(desc)
    if m:
        a, j, b = m.groups()
        col = f"Y[:, {int(j)}]" if j is not None else "Y[:, 0]"
        return f"def event(Y):\n    return ({col} >= {float(a)!r}) & ({col} <= {float(b)!r})\n"
    m = _EV_SET.match(desc)
    if m and "…" not in desc:
        try:
            vals = json.loads("[" + m.group(1).replace("(", "[").replace(")", "]") + "]")
        except ValueError:
            return None
        if all(isinstance(v, (int, float)) for v in vals):
            return f"def event(Y):\n    return np.isin(Y[:, 0], {vals!r})\n"
        return (f"OUTCOMES = np.array({vals!r}, dtype=float)\n\n"
                f"def event(Y):\n    return (Y[:, None, :] == OUTCOMES[None, :, :]).all(axis=2).any(axis=1)\n")
    return None


def repro_script(adapter: DPLAdapter, res) -> str:
    """A stand-alone script (numpy, scipy, diffprivlib only) that reproduces a violation: the pair, the release as
    plain diffprivlib calls, the certified event when it is a simple one (otherwise the best single-coordinate
    threshold, chosen on one half of the releases and evaluated on the other), and a Clopper–Pearson ε bound."""
    pair = res.details["pair"]
    d, dp = pair["d"], pair["d_prime"]
    if isinstance(d, dict) or isinstance(dp, dict):
        raise ValueError("pair too large to embed in a reproduction script")
    desc = res.event
    ev_src = _event_source(desc)
    n = 400 if isinstance(adapter, DPLModel) else (4000 if isinstance(adapter, DPLTool) else 100_000)
    claim = adapter.privacy
    header = f'''"""Reproduction: diffprivlib {adapter.name} at claimed {claim} ({res.name}).

htdp-verify certified epsilon >= {res.epsilon_lb:.4g} at {100 * (1 - res.alpha):.4g}% confidence (claim: {claim.epsilon:g}).
Pair ({pair.get("relation")}): {pair.get("label")}
Certified event: {desc} ({res.details["event"].get("orientation")})
Counts: {res.counts.get("numerator")}/{res.counts.get("n_per_side")} vs {res.counts.get("denominator")}/{res.counts.get("n_per_side")}
Relation: {adapter.relation_note}

Run: python {{this file}} [releases per side]   (needs numpy, scipy, diffprivlib==0.6.6)
"""
import sys
import warnings

import numpy as np
from scipy.stats import beta

import diffprivlib
from diffprivlib.accountant import BudgetAccountant

warnings.simplefilter("ignore", FutureWarning)
warnings.simplefilter("ignore", DeprecationWarning)

D = {_py(d) if not isinstance(d, (int, float)) else repr(d)}
D_PRIME = {_py(dp) if not isinstance(dp, (int, float)) else repr(dp)}
CLAIMED_EPSILON = {claim.epsilon!r}
CLAIMED_DELTA = {claim.delta!r}

'''
    body = _release_source(adapter) + "\n\n"
    if ev_src:
        body += "# the event certified by htdp-verify (fixed before the certification samples were drawn)\n" + ev_src
    else:
        body += ("# the certified event was a learned / projected score; use instead the best single-coordinate\n"
                 "# threshold, chosen on the first half of the releases and counted on the second half\n"
                 "event = None\n")
    body += f'''

def eps_lower_bound(k1, k2, n, alpha=0.05, delta=0.0):
    """ln((P1_lo - delta) / P2_hi), exact Clopper-Pearson bounds at alpha/2 each."""
    lo = beta.ppf(alpha / 2, k1, n - k1 + 1) if k1 > 0 else 0.0
    hi = beta.ppf(1 - alpha / 2, k2 + 1, n - k2) if k2 < n else 1.0
    return float(np.log((lo - delta) / hi)) if lo > delta else 0.0


def best_coordinate_threshold(Y1, Y2):
    best = (-1.0, None)
    for j in range(Y1.shape[1]):
        for t in np.unique(np.quantile(np.r_[Y1[:, j], Y2[:, j]], np.linspace(0.01, 0.99, 99))):
            for side in (">=", "<="):
                a = np.mean(Y1[:, j] >= t) if side == ">=" else np.mean(Y1[:, j] <= t)
                b = np.mean(Y2[:, j] >= t) if side == ">=" else np.mean(Y2[:, j] <= t)
                for num, den, swap in ((a, b, False), (b, a, True)):
                    gap = np.log((num + 1e-3) / (den + 1e-3))
                    if gap > best[0]:
                        best = (gap, (j, side, t, swap))
    j, side, t, swap = best[1]
    f = (lambda Y: Y[:, j] >= t) if side == ">=" else (lambda Y: Y[:, j] <= t)
    return f, swap, f"output[{{j}}] {{side}} {{t:.6g}}"


def main(n={n}):
    seeds = np.arange(2 * n)
    Y1 = np.array([np.atleast_1d(release(D, int(s))) for s in seeds], dtype=float)
    Y2 = np.array([np.atleast_1d(release(D_PRIME, int(s) + 10**9)) for s in seeds], dtype=float)
    swap, what = False, "certified event"
    ev = event
    if ev is None:
        ev, swap, what = best_coordinate_threshold(Y1[:n], Y2[:n])
        Y1, Y2 = Y1[n:], Y2[n:]
    else:
        Y1, Y2 = Y1[:n], Y2[:n]
    k1, k2 = int(np.sum(ev(Y1))), int(np.sum(ev(Y2)))
    if swap or k2 > k1:
        k1, k2 = k2, k1
    m = Y1.shape[0]
    lb = eps_lower_bound(k1, k2, m, delta=CLAIMED_DELTA)
    print(f"{{what}}: {{k1}}/{{m}} vs {{k2}}/{{m}} releases; epsilon >= {{lb:.4g}} at 95% confidence "
          f"(claimed {{CLAIMED_EPSILON}})")
    return lb


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else {n})
'''
    return header + body
