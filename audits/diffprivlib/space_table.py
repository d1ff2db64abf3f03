"""The table of the diffprivlib 0.6.6 configuration search: for every mechanism, tool and model the arguments it
is called with and the dataset shapes that reach its edge paths (Holohan et al. 2019, arXiv:1907.02444; the
signatures are listed in ``../shared/specs/anchors_diffprivlib.md`` section 2).

``SPACE[key]`` is a :class:`Space`: ``args`` maps each constructor / function argument searched to the values
tried, ``data`` maps the dataset parameters (``n`` rows, ``d`` features, ``shape``) to theirs, and ``left_out``
maps every argument of the signature that is *not* searched to the reason.  :func:`signature_gaps` compares the
table with ``inspect.signature`` of the installed diffprivlib (a test asserts there are none), so an argument
added upstream cannot silently go unsearched.  The configurations drawn from the table, and what is built from
one, are in :mod:`.space` (which re-exports every name of this module).
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass, field

__all__ = ["Space", "SPACE", "FAMILIES", "LEFT_OUT_COMPONENTS", "signature_gaps"]

_EPS = (0.1, 0.5, 1.0, 2.0)
_EPS_LE1 = (0.1, 0.5, 1.0)  # Gaussian rejects ε > 1
_BOUNDS = ((0.0, 1.0), (-1.0, 1.0), (-2.0, 0.0), (-1.0, 2.0), (0.0, 10.0))  # 0 and negative edges
_N_TINY = (1, 2, 3, 5, 10, 30)
_SHAPES = ("spread", "ties", "at_bounds", "all_lower")
_CLS_SHAPES = ("spread", "at_bounds", "all_lower", "absent_class", "one_row_class")
_COMMON_OUT = {
    "random_state": "set by the adapter: one integer seed per release",
    "accountant": "a private BudgetAccountant per release (bookkeeping only, no effect on the output)",
    "unused_args": "swallowed with a warning that the adapters turn into an error",
}


@dataclass(frozen=True)
class Space:
    """The searched arguments (``args``), dataset parameters (``data``) and the arguments left out with reasons."""

    key: str
    args: dict
    data: dict
    left_out: dict = field(default_factory=dict)
    epsilons: tuple = _EPS

    @property
    def family(self) -> str:
        return self.key.split(".")[0]

    @property
    def kind(self) -> str:
        return {"mechanisms": "mechanism", "tools": "tool", "models": "model"}[self.family]


# ---------------------------------------------------------------------------------------------------------
# the table
# ---------------------------------------------------------------------------------------------------------
def _mech(name, args, *, eps=_EPS, left=None, shapes=("centre", "at_lower", "at_upper")):
    lo = {"delta": "claims pure ε-DP (no delta argument)"} if "delta" not in args else {}
    return Space(f"mechanisms.{name}", args, {"shape": shapes}, {**lo, **(left or {}), **_COMMON_OUT}, eps)


_B = {"lower_upper": _BOUNDS}
_UTIL = {"sensitivity": (0.5, 1.0, 2.0), "monotonic": (False, True), "k": (2, 3, 5)}
_UTIL_LEFT = {
    "utility": "is the data (the utility vector; neighbours differ by <= sensitivity per score)",
    "candidates": "labels of the outputs; the distribution over indices does not depend on them",
}
_INT_B = {"lower_upper": ((0, 5), (-3, 3), (-5, 0), (0, 1))}

_MECHANISMS = [
    _mech("Laplace", {"sensitivity": (0.5, 1.0, 3.0), "delta": (0.0, 1e-3, 0.1)}),
    _mech("LaplaceTruncated", {"sensitivity": (0.5, 1.0, 3.0), "delta": (0.0, 1e-3), **_B}),
    _mech("LaplaceFolded", {"sensitivity": (0.5, 1.0, 3.0), "delta": (0.0, 1e-3), **_B}),
    _mech("LaplaceBoundedDomain", {"sensitivity": (0.5, 1.0, 3.0), "delta": (0.0, 1e-3), **_B}),
    _mech("LaplaceBoundedNoise", {"sensitivity": (0.5, 1.0, 3.0), "delta": (1e-3, 0.1, 0.4)}),
    _mech("Gaussian", {"sensitivity": (0.5, 1.0, 3.0), "delta": (1e-5, 1e-2)}, eps=_EPS_LE1),
    _mech("GaussianAnalytic", {"sensitivity": (0.5, 1.0, 3.0), "delta": (1e-5, 1e-2)}),
    _mech("GaussianDiscrete", {"sensitivity": (1, 2, 3), "delta": (1e-5, 1e-2)}),
    _mech("Geometric", {"sensitivity": (1, 2, 3)}),
    _mech("GeometricTruncated", {"sensitivity": (1, 2), **_INT_B}),
    _mech("GeometricFolded", {"sensitivity": (1, 2), **_INT_B}),
    _mech("Staircase", {"sensitivity": (0.5, 1.0, 3.0), "gamma": (None, 0.1, 0.5, 0.9)}),
    _mech(
        "Snapping",
        {"sensitivity": (0.5, 1.0), **_B},
        left={"(crlibm)": "not an argument: crlibm does not build here, Snapping falls back to np.log"},
    ),
    _mech(
        "Exponential",
        dict(_UTIL),
        left={
            **_UTIL_LEFT,
            "measure": "a public base measure: it cancels in the likelihood ratio of neighbouring utilities",
        },
    ),
    _mech("PermuteAndFlip", dict(_UTIL), left=_UTIL_LEFT),
    _mech(
        "Binary",
        {},
        left={
            "value0": 'labels "0"/"1" fixed by the adapter (any two labels are equivalent)',
            "value1": 'labels "0"/"1" fixed by the adapter',
        },
        shapes=("bits",),
    ),
]

_STAT = {"bounds": _BOUNDS, "axis": (None, 0), "keepdims": (False, True)}
_STAT_DATA = {"n": _N_TINY, "d": (1, 2, 5), "shape": _SHAPES}
_AXIS_NOTE = "(axis=None flattens: d > 1 then is n·d scalar records of one dataset)"


def _tool(name, args, *, data=None, left=None):
    return Space(f"tools.{name}", args, data or _STAT_DATA, {**(left or {}), **_COMMON_OUT})


_HIST_LEFT = {"density": "searched", "bins as explicit edges": "equivalent to an integer bins with that range"}
_TOOLS = [
    *[_tool(t, {**_STAT, "dtype": (None, float)}) for t in ("mean", "nanmean", "var", "nanvar", "std", "nanstd")],
    *[_tool(t, {**_STAT, "dtype": (None, float, int)}) for t in ("sum", "nansum")],
    _tool(
        "count_nonzero",
        {"axis": (None, 0), "keepdims": (False, True)},
        data={"n": _N_TINY, "d": (1, 2), "shape": ("bits_spread", "all_zero", "all_one")},
    ),
    _tool(
        "quantile",
        {"bounds": _BOUNDS, "quant": (0.0, 0.25, 0.5, 1.0, (0.25, 0.75)), "axis": (None, 0), "keepdims": (False, True)},
    ),
    _tool(
        "percentile",
        {"bounds": _BOUNDS, "percent": (0.0, 50.0, 100.0, (10.0, 90.0)), "axis": (None, 0), "keepdims": (False, True)},
    ),
    _tool("median", {"bounds": _BOUNDS, "axis": (None, 0), "keepdims": (False, True)}),
    _tool(
        "histogram",
        {"bins": (1, 2, 4, 10), "range": _BOUNDS, "density": (None, True), "weights": (None, 1.0, 2.0)},
        data={"n": _N_TINY, "d": (1,), "shape": _SHAPES},
        left={"bins as explicit edges": _HIST_LEFT["bins as explicit edges"]},
    ),
    _tool(
        "histogramdd",
        {"bins": (1, 2, 3), "range": _BOUNDS, "density": (None, True), "weights": (None, 1.0, 2.0)},
        data={"n": _N_TINY, "d": (1, 2, 3), "shape": _SHAPES},
        left={"bins as explicit edges": _HIST_LEFT["bins as explicit edges"]},
    ),
]

_MDATA = {"n": (1, 2, 3, 5, 20), "d": (1, 2, 5, 10, 20, 50), "shape": _SHAPES}
_CDATA = {"n": (1, 2, 3, 5, 20), "d": (1, 2, 5, 10), "shape": _CLS_SHAPES}
_MODELS = [
    Space(
        "models.LinearRegression",
        {"bounds_X": _BOUNDS, "bounds_y": _BOUNDS, "fit_intercept": (True, False)},
        {"n": (2, 3, 5, 20), "d": (1, 2, 5, 10), "shape": _SHAPES},
        {"copy_X": "copies the input; no effect on the release", **_COMMON_OUT},
    ),
    Space(
        "models.LogisticRegression",
        {
            "data_norm": (0.5, 1.0, 3.0),
            "C": (0.1, 1.0, 10.0),
            "fit_intercept": (True, False),
            "max_iter": (5, 100),
            "tol": (1e-4, 1e-1),
            "classes": (2, 3),
        },
        {"n": (6, 12, 20), "d": (1, 2, 5), "shape": ("spread", "at_bounds", "one_row_class")},
        {
            "verbose": "printing only",
            "warm_start": "a fresh model per release (no previous fit to start from)",
            "n_jobs": "parallelism only (the adapter parallelises releases)",
            "absent classes": "with classes = 2 an absent class leaves one class, which scikit-learn refuses (a "
            "crash, not a release); with classes = 3 the one_row_class shape has an absent class, released as a "
            "zero row of the declared-class layout (estimators/dpl DPLModel)",
            **_COMMON_OUT,
        },
    ),
    Space(
        "models.GaussianNB",
        {"bounds": _BOUNDS, "priors": (None, "uniform"), "var_smoothing": (1e-9, 1e-3), "classes": (2, 3)},
        _CDATA,
        dict(_COMMON_OUT),
    ),
    Space("models.KMeans", {"bounds": _BOUNDS, "n_clusters": (1, 2, 3, 5)}, _MDATA, dict(_COMMON_OUT)),
    Space(
        "models.PCA",
        {
            "bounds": _BOUNDS,
            "data_norm": (0.5, 1.0, 3.0),
            "n_components": (1, 2),
            "centered": (False, True),
            "whiten": (False, True),
        },
        {"n": (2, 3, 5, 20), "d": (2, 3, 5), "shape": _SHAPES},
        {"copy": "the adapter copies the data before every fit", **_COMMON_OUT},
    ),
    Space(
        "models.StandardScaler",
        {"bounds": _BOUNDS, "with_mean": (True, False), "with_std": (True, False)},
        _MDATA,
        {
            "copy": "no effect on the release",
            "with_mean=with_std=False": "diffprivlib then computes no statistic (mean_ and var_ are None): "
            "nothing is released, the combination is not drawn",
            **_COMMON_OUT,
        },
    ),
    Space(
        "models.RandomForestClassifier",
        {"bounds": _BOUNDS, "n_estimators": (1, 3), "max_depth": (1, 3), "shuffle": (False, True), "classes": (2, 3)},
        {"n": (2, 3, 5, 20), "d": (1, 2, 5), "shape": _CLS_SHAPES},
        {
            "n_jobs": "parallelism only",
            "verbose": "printing only",
            "warm_start": "a fresh model per release",
            **_COMMON_OUT,
        },
    ),
]

SPACE: dict[str, Space] = {s.key: s for s in _MECHANISMS + _TOOLS + _MODELS}
FAMILIES = ("mechanisms", "tools", "models")

#: diffprivlib 0.6.6 components not in the space, with the reason
LEFT_OUT_COMPONENTS = {
    "mechanisms.Uniform": "claims (0, δ)-DP; the engine's guarantees need ε > 0",
    "mechanisms.Vector": "randomise returns a perturbed objective function, not a value; audited through "
    "LogisticRegression, its only user",
    "mechanisms.Bingham": "input is a symmetric matrix; audited through PCA, its only user",
    "mechanisms.ExponentialCategorical": "string categories with user utilities: the Exponential entry covers "
    "the same sampler over indices",
    "mechanisms.ExponentialHierarchical": "utilities derived from a hierarchy, then ExponentialCategorical",
    "tools.histogram2d": "calls histogramdd on the two columns (covered by histogramdd with d = 2)",
    "models.DecisionTreeClassifier": "the forest's tree (covered by RandomForestClassifier with n_estimators=1)",
}


def signature_gaps() -> dict[str, list[str]]:
    """Arguments of the installed diffprivlib signatures that the table neither searches nor lists as left out
    (per component; empty dict when the table is complete)."""
    import diffprivlib

    out = {}
    for key, sp in SPACE.items():
        fam, name = key.split(".")
        obj = getattr(getattr(diffprivlib, fam), name)
        params = inspect.signature(obj.__init__ if isinstance(obj, type) else obj).parameters
        names = set(params) - {"self", "epsilon", "array", "sample", "a"}
        covered = set(sp.args) | set(sp.left_out)
        if "lower_upper" in sp.args:
            covered |= {"lower", "upper"}
        if "k" in sp.args:
            covered.add("utility")
        if fam == "tools" and name not in ("histogram", "histogramdd") and "bounds" not in sp.args:
            covered.add("bounds")
        if fam == "models" and "bounds_X" not in sp.args:
            covered |= {"bounds"} if "bounds" in names and "bounds" in sp.args else set()
        gaps = sorted(names - covered)
        if name == "KMeans" and "n_clusters" in gaps:
            gaps.remove("n_clusters")
        if gaps:
            out[key] = gaps
    return out
