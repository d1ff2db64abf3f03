"""What the diffprivlib suite audits and at what size: the suite settings (``EPSILONS``, the family-wise ``ALPHA``,
``PAPER``, per-profile ``SIZES``, ``N_JOBS``) and the component table -- every diffprivlib 0.6.6 mechanism, tool
and model as a :class:`Component` (how to build its adapter at ε, its candidate pairs, its attacks, the cause of a
known violation), collected in ``COMPONENTS`` and the optional-argument ``VARIANTS`` (Holohan et al. 2019,
arXiv:1907.02444).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from estimators.dpl import DPLAdapter, DPLMechanism, DPLModel, DPLTool
from htdp_verify.privacy import Pair

from .pairs import _pairs_by_base

__all__ = ["EPSILONS", "ALPHA", "PAPER", "SIZES", "N_JOBS", "Component", "COMPONENTS", "VARIANTS"]


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

    return Component(
        f"mechanisms.{name}",
        "mechanism",
        build,
        lambda: [Pair(a, b, lab, "query") for lab, a, b in pairs],
        note=note,
        size_scale=size_scale or {},
    )


SLOW = {"quick": 0.5, "full": 0.5}  # mechanisms at ~1/4 of Laplace's speed


def _mechanisms():
    s = 1.0
    U3 = [0.0, 0.0, 0.0]
    util_pairs = [
        ("u=(0,0,0) vs (1,0,0)", U3, [1.0, 0.0, 0.0]),
        ("u=(0,1,1) vs (1,0,0)", [0.0, 1.0, 1.0], [1.0, 0.0, 0.0]),
    ]
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
        _mech(
            "Snapping",
            bounded,
            sensitivity=s,
            lower=0.0,
            upper=1.0,
            note="crlibm is not installed, so Snapping uses np.log (its guarantee assumes a correctly rounded log)",
        ),
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
    bits = {
        "all zero": np.zeros(TOOL_N),
        "half/half": np.r_[np.zeros(TOOL_N // 2), np.ones(TOOL_N - TOOL_N // 2)],
        "all one": np.ones(TOOL_N),
    }
    return [
        _tool("mean"),
        _tool("var"),
        _tool("std"),
        _tool("sum"),
        _tool("count_nonzero", bases=bits, box=(0.0, 1.0)),
        _tool("quantile", quant=0.25),
        _tool("median"),
        _tool("histogram", relation="add_remove", range=TOOL_BOUNDS, bins=4),
        _tool(
            "histogramdd", relation="add_remove", bases=two_d, box=(0.0, 1.0), range=[(0.0, 1.0), (0.0, 1.0)], bins=2
        ),
    ]


def _tool_variants():
    """Optional arguments the API accepts (full profile only)."""
    two_d = {
        "all at lower corner": np.full((TOOL_N, 2), -1.0),
        "spread": np.column_stack([np.linspace(-1, 2, TOOL_N), np.linspace(2, -1, TOOL_N)]),
    }
    return [
        _tool(
            "sum",
            label="sum[dtype=int]",
            bounds=(0, 3),
            box=(0.0, 3.0),
            dtype=int,
            bases={k: v for k, v in _tool_bases(0.0, 3.0).items() if k != "spread"},
        ),
        _tool("quantile", label="quantile[quant=(0.25,0.75)]", quant=[0.25, 0.75]),
        _tool("mean", label="mean[axis=0]", bases=two_d, axis=0),
        _tool(
            "histogram", label="histogram[density=True]", relation="add_remove", range=TOOL_BOUNDS, bins=4, density=True
        ),
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
        return {
            "all at lower corner": np.column_stack([low, np.zeros(n)]),
            "spread": np.column_stack([spread, spread[:, 0]]),
        }
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
    return Component(
        f"models.{name}",
        "model",
        build,
        lambda: _pairs_by_base(bases, BOX[0], BOX[1], "replace", labels=labels),
        full_attacks=list(full_attacks),
        size_scale=size_scale or {},
        cause=cause,
    )


LINREG_SCALE = {"quick": 0.6}  # scipy.optimize.minimize per fit: the slowest model
LINREG_CAUSE = (
    "the noise added to the regression's sufficient statistics does not account for the upper bound of the "
    "feature and target bounds, so a record at the upper corner moves the fit more than the noise "
    "covers (upstream diffprivlib issue #105)"
)
GNB_CAUSE = (
    "a class with no training records gets a noisy count of exactly 0 (no noise reaches it), so whether a "
    "class is absent is released exactly and one record that switches class changes the output visibly"
)
KMEANS_CAUSE = (
    "a cluster that receives no points keeps its random starting centre with no noise added, so the "
    "released centres reveal whether one record moved a cluster from occupied to empty"
)


def _models():
    norm = float(np.sqrt(2.0))
    return [
        _model(
            "LinearRegression", "regression", bounds_X=BOX, bounds_y=BOX, size_scale=LINREG_SCALE, cause=LINREG_CAUSE
        ),
        # every base keeps both classes in >= 2 rows: diffprivlib reads the classes from y and scikit-learn refuses
        # a single-class fit, so a pair that removes a class would not be a release but an exception
        _model(
            "LogisticRegression",
            "classification-all-classes",
            data_norm=norm,
            classes=[0.0, 1.0],
            size_scale={"full": 0.6},
        ),
        _model("GaussianNB", "classification", bounds=BOX, classes=[0.0, 1.0], cause=GNB_CAUSE),
        _model("KMeans", "unsupervised", bounds=BOX, n_clusters=2, cause=KMEANS_CAUSE),
        _model("PCA", "unsupervised", bounds=BOX, data_norm=norm, n_components=2),
        _model("StandardScaler", "unsupervised", bounds=BOX),
        _model("RandomForestClassifier", "classification", bounds=BOX, classes=[0.0, 1.0], n_estimators=3, max_depth=3),
    ]


def _model_variants():
    norm = float(np.sqrt(2.0))
    out = [
        _model(
            "LinearRegression",
            "regression",
            bounds_X=BOX,
            bounds_y=BOX,
            fit_intercept=False,
            size_scale=LINREG_SCALE,
            cause=LINREG_CAUSE,
        ),
        _model("PCA", "unsupervised", bounds=BOX, data_norm=norm, n_components=2, centered=True),
    ]
    out[0].key += "[fit_intercept=False]"
    out[1].key += "[centered=True]"
    return out


COMPONENTS: dict[str, Component] = {c.key: c for c in _mechanisms() + _tools() + _models()}
VARIANTS: dict[str, Component] = {c.key: c for c in _tool_variants() + _model_variants()}
