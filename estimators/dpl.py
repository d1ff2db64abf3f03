"""diffprivlib (IBM, 0.6.6) as dataset-level mechanisms for the auditor, and two estimator-style baselines.

Every adapter here is a callable ``m(data, size, rng) -> ndarray (size, ...)`` that runs diffprivlib's *own*
code path ``size`` times on the same ``data``:

* release ``i`` is seeded with the integer ``seeds[i]``, where ``seeds = release_seeds(rng, size)`` (so a run is
  reproducible from ``rng``, and ``m.release(data, seeds[i])`` replays release ``i`` alone with
  ``random_state=seeds[i]``, exactly as a user calling diffprivlib with that integer would get);
* tools and models get a fresh, private ``BudgetAccountant()`` per release, so nothing is spent on (or leaks
  through) diffprivlib's global default accountant;
* bounds / ``range`` / ``data_norm`` / ``classes`` are always explicit (the adapters refuse to run without them),
  and diffprivlib's ``PrivacyLeakWarning`` / ``DiffprivlibCompatibilityWarning`` are turned into errors, so the
  claim under test is the library's DP claim and not its data-dependent fall-back;
* ``n_jobs > 1`` splits the seeds into contiguous chunks run in joblib (loky) worker processes; the result is
  identical to the serial one.

The seeding model, chunking and worker processes are the engine's one diffprivlib adapter core,
:class:`htdp_verify.privacy.dpl_adapter.DPLAdapter` (also behind :func:`htdp_verify.privacy.from_diffprivlib`);
this module adds the named configurations and their validation. Inside a chunk the core keeps one
``numpy.random.RandomState`` and calls ``.seed(seed)`` before each release, the same MT19937 state as
``RandomState(seed)``; ``tests/test_dpl_adapters.py`` checks the equality against direct diffprivlib calls with
``random_state=seed`` for every adapter.

Neighbouring relations.  diffprivlib's documentation states no neighbouring relation; each adapter declares the
one its sensitivity calibration is valid for (``PrivacyGuarantee.neighbours``), with the reason in
``relation_note``:

* ``"replace"`` (bounded DP, n public) for ``mean``/``var``/``std``/``sum``/``count_nonzero``/``quantile``/
  ``median``/``percentile`` (sensitivities ``(U-L)/n``, ``(U-L)^2 (n-1)/n^2``, ``U-L``, rank utility with
  ``n`` in it, and truncation ranges ``[nL, nU]`` that reveal ``n``), and for every model (all of them call these
  tools or use the same ``n``-dependent calibration);
* ``"add_remove"`` for ``histogram``/``histogramdd`` (per-bin sensitivity 1 is the add/remove sensitivity of a
  histogram; under replace-one it is 2, i.e. the histogram would be 2ε-DP);
* scalar mechanisms: the "dataset" is the single value passed to ``randomise``, and neighbours are values at
  distance ``<= sensitivity`` (inside ``[lower, upper]`` where the mechanism has a domain); recorded as
  ``"replace"`` (one record, replaced).

Reference: Holohan, Braghin, Mac Aonghusa, Levacher (2019), "Diffprivlib: the IBM Differential Privacy Library",
arXiv:1907.02444; spec ``../shared/specs/anchors_diffprivlib.md``.

Kept as one module (about 640 lines, just over the ~600-line guideline): the three adapter kinds, their factories
and the two baselines all read the name tables and ``_check_bounds_pair`` defined at the top; if it grows, split
it into mechanisms / tools / models / baselines.
"""
from __future__ import annotations

import inspect

import numpy as np

from htdp_verify._validate import check_int, check_positive, check_prob, check_rng
from htdp_verify.privacy import PrivacyGuarantee, replace_one
from htdp_verify.privacy.dpl_adapter import SEED_BOUND, DPLAdapter, release_seeds

from .base import Estimator, as_data

__all__ = [
    "release_seeds",
    "DPLAdapter",
    "DPLMechanism",
    "DPLTool",
    "DPLModel",
    "dpl_mechanism",
    "dpl_tool",
    "dpl_model",
    "DPLMean",
    "DPLMedian",
    "MECHANISMS",
    "TOOLS",
    "MODELS",
    "SEED_BOUND",
]

#: scalar mechanisms supported, with the kind of value ``randomise`` takes.
#: ``real``: any float; ``real_bounded``: a float in ``[lower, upper]``; ``integer``: an int;
#: ``integer_bounded``: an int in ``[lower, upper]``; ``utility``: data is the utility vector (one score per
#: candidate, neighbours differ by <= sensitivity in every score) and the release is the chosen index;
#: ``binary``: data is 0 or 1 (mapped to the labels ``"0"``/``"1"``) and the release is 0 or 1.
#: ``Uniform`` is left out: it claims (0, δ)-DP and ``PrivacyGuarantee`` requires ε > 0.
MECHANISMS = {
    "Laplace": "real",
    "LaplaceTruncated": "real_bounded",
    "LaplaceFolded": "real_bounded",
    "LaplaceBoundedDomain": "real_bounded",
    "LaplaceBoundedNoise": "real",
    "Gaussian": "real",
    "GaussianAnalytic": "real",
    "GaussianDiscrete": "integer",
    "Geometric": "integer",
    "GeometricTruncated": "integer_bounded",
    "GeometricFolded": "integer_bounded",
    "Staircase": "real",
    "Snapping": "real_bounded",
    "Exponential": "utility",
    "PermuteAndFlip": "utility",
    "Binary": "binary",
}

#: tools supported -> (needs bounds, neighbouring relation)
TOOLS = {
    "mean": (True, "replace"),
    "nanmean": (True, "replace"),
    "var": (True, "replace"),
    "nanvar": (True, "replace"),
    "std": (True, "replace"),
    "nanstd": (True, "replace"),
    "sum": (True, "replace"),
    "nansum": (True, "replace"),
    "count_nonzero": (False, "replace"),
    "quantile": (True, "replace"),
    "percentile": (True, "replace"),
    "median": (True, "replace"),
    "histogram": (False, "add_remove"),
    "histogramdd": (False, "add_remove"),
}

_TOOL_NOTES = {
    "replace": "replace-one (n public): diffprivlib calibrates with n = array.size (sensitivity (U-L)/n for the "
    "mean, (U-L)^2 (n-1)/n^2 for var, U-L for sum with output truncated to [nL, nU], utility -|i - qn| for "
    "quantiles), which is only valid when n is fixed",
    "add_remove": "add/remove-one: per-bin GeometricTruncated with sensitivity 1 is the add/remove sensitivity "
    "of a histogram (replacing a record moves it between two bins: sensitivity 2)",
}

#: models supported -> (required constructor arguments, supervised?)
MODELS = {
    "LinearRegression": (("bounds_X", "bounds_y"), True),
    "LogisticRegression": (("data_norm", "classes"), True),
    "GaussianNB": (("bounds", "classes"), True),
    "KMeans": (("bounds", "n_clusters"), False),
    "PCA": (("data_norm", "bounds", "n_components"), False),
    "StandardScaler": (("bounds",), False),
    "RandomForestClassifier": (("bounds", "classes"), True),
}

_MODEL_NOTE = (
    "replace-one (n public): diffprivlib's models calibrate with the sample size (tools.mean inside "
    "LinearRegression/PCA/StandardScaler, counts truncated to [1, n] in GaussianNB, partitions of n in the forest, "
    "1/n-scaled objective in LogisticRegression)"
)


def _dpl():
    import diffprivlib

    return diffprivlib


def _check_bounds_pair(name, bounds, *, shape=None):
    """``(lower, upper)`` with finite entries, lower < upper elementwise; scalars or vectors."""
    if bounds is None:
        raise ValueError(
            f"{name} is required: without it diffprivlib reads it from the data (PrivacyLeakWarning), "
            "which is not differentially private"
        )
    try:
        lo, hi = bounds
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a pair (lower, upper), got {bounds!r}") from None
    lo = np.asarray(lo, dtype=float)
    hi = np.asarray(hi, dtype=float)
    if lo.ndim > 1 or hi.ndim > 1 or not (np.all(np.isfinite(lo)) and np.all(np.isfinite(hi))):
        raise ValueError(f"{name} must hold finite scalars or 1-d vectors, got {bounds!r}")
    if np.any(lo >= hi):
        raise ValueError(f"{name} must satisfy lower < upper elementwise, got {bounds!r}")
    if shape is not None:
        for v in (lo, hi):
            if v.ndim == 1 and v.size != shape:
                raise ValueError(f"{name} has {v.size} entries but the data have {shape} columns")
    return bounds


# ------------------------------------------------------------------------------------------------------
# mechanisms
# ------------------------------------------------------------------------------------------------------
class DPLMechanism(DPLAdapter):
    """A diffprivlib mechanism's scalar ``randomise`` as ``m(value, size, rng)``.

    Parameters
    ----------
    mechanism: a name in :data:`MECHANISMS` (``"Laplace"``, ``"GaussianAnalytic"``, ...).
    epsilon, delta: the privacy parameters passed to the mechanism (``delta`` only where it accepts one).
    n_jobs: worker processes.
    **params: the mechanism's other constructor arguments (``sensitivity``, ``lower``, ``upper``, ``gamma``,
        ``monotonic``, ...).  ``utility`` (Exponential, PermuteAndFlip) and ``value0``/``value1`` (Binary) are
        supplied by the adapter: ``data`` *is* the utility vector / the bit.

    Data: one value (a real or integer scalar, see :data:`MECHANISMS`), or for ``utility`` mechanisms a 1-d
    vector of scores.  Release: the randomised value (the chosen index for ``utility``, the bit for ``Binary``).

    Claimed guarantee: (ε, δ)-DP for inputs ``x, x'`` with ``|x - x'| <= sensitivity`` (``max_i |u_i - u'_i| <=
    sensitivity`` for utilities; any two bits for Binary), inside ``[lower, upper]`` for bounded mechanisms;
    recorded as ``neighbours="replace"`` (the dataset is the single value, replaced).
    """

    def __init__(self, mechanism: str, *, epsilon: float, delta: float = 0.0, n_jobs: int = 1, **params):
        super().__init__(n_jobs)
        if mechanism not in MECHANISMS:
            raise ValueError(f"mechanism must be one of {sorted(MECHANISMS)}, got {mechanism!r}")
        self.mechanism = mechanism
        self.kind = MECHANISMS[mechanism]
        self.epsilon = check_positive("epsilon", epsilon)
        self.delta = check_prob("delta", delta, open_low=False)
        cls = getattr(_dpl().mechanisms, mechanism)
        accepted = set(inspect.signature(cls.__init__).parameters) - {"self", "random_state"}
        if "delta" not in accepted and self.delta:
            raise ValueError(f"delta: {mechanism} takes no delta (it claims pure ε-DP), got delta={delta!r}")
        supplied = {"utility"} if self.kind == "utility" else {"value0", "value1"} if self.kind == "binary" else set()
        bad = set(params) - (accepted - {"epsilon", "delta"} - supplied)
        if bad:
            raise ValueError(f"{mechanism} does not accept {sorted(bad)} here (accepted: {sorted(accepted - supplied)})")
        self.params = dict(params)
        kwargs = {"epsilon": self.epsilon, **self.params}
        if "delta" in accepted:
            kwargs["delta"] = self.delta
        if self.kind == "utility":
            kwargs.setdefault("sensitivity", 1.0)
            self.params.setdefault("sensitivity", 1.0)
        if self.kind == "binary":
            kwargs.update(value0="0", value1="1")
        self._kwargs = kwargs
        # construct once now so diffprivlib's own parameter validation runs at construction time
        probe = dict(kwargs)
        if self.kind == "utility":
            probe["utility"] = [0.0, 0.0]
        try:
            cls(**probe)
        except (TypeError, ValueError) as e:
            raise ValueError(f"{mechanism} rejected its parameters: {e}") from None
        self.name = f"mechanisms.{mechanism}"
        self.sensitivity = float(kwargs.get("sensitivity", 1.0))
        self.lower = params.get("lower")
        self.upper = params.get("upper")
        self.privacy = PrivacyGuarantee(self.epsilon, self.delta, "replace")
        what = "utility vectors at sup-distance" if self.kind == "utility" else "values at distance"
        self.relation_note = (
            f"the dataset is the value passed to randomise; neighbours are {what} <= sensitivity={self.sensitivity:g}"
            + (f" inside [{self.lower}, {self.upper}]" if self.lower is not None else "")
            + (" (the two labels)" if self.kind == "binary" else "")
        )
        self.min_chunk = 2000

    def _validate(self, data):
        if self.kind == "utility":
            u = np.asarray(data, dtype=float)
            if u.ndim != 1 or u.size < 1 or not np.all(np.isfinite(u)):
                raise ValueError(f"data must be a finite 1-d utility vector for {self.mechanism}, got {data!r}")
            return u
        arr = np.asarray(data)
        if arr.size != 1 or arr.dtype.kind not in "biuf":
            raise ValueError(f"data must be one real number for {self.mechanism}, got {data!r}")
        v = arr.reshape(()).item()
        if not np.isfinite(v):
            raise ValueError(f"data must be finite, got {data!r}")
        if self.kind in ("integer", "integer_bounded", "binary"):
            if v != int(v):
                raise ValueError(f"data must be an integer for {self.mechanism}, got {data!r}")
            v = int(v)
            if self.kind == "binary" and v not in (0, 1):
                raise ValueError(f"data must be 0 or 1 for Binary, got {data!r}")
        else:
            v = float(v)
        if self.kind.endswith("_bounded") and not (self.lower <= v <= self.upper):
            raise ValueError(f"data must lie in [lower, upper] = [{self.lower}, {self.upper}], got {v!r}")
        return v

    def _chunk_state(self, data, rs):
        cls = getattr(_dpl().mechanisms, self.mechanism)
        kw = dict(self._kwargs)
        if self.kind == "utility":
            kw["utility"] = list(data)
        return cls(**kw, random_state=rs)

    def _release(self, data, rs, mech):
        if self.kind == "utility":
            return mech.randomise()
        if self.kind == "binary":
            return int(mech.randomise(str(data)))
        return mech.randomise(data)


# ------------------------------------------------------------------------------------------------------
# tools
# ------------------------------------------------------------------------------------------------------
class DPLTool(DPLAdapter):
    """A ``diffprivlib.tools`` function as ``m(data, size, rng)``.

    Parameters
    ----------
    tool: a name in :data:`TOOLS`.
    epsilon: ε passed to the tool (with ``axis`` set, diffprivlib splits it over the outputs).
    bounds: ``(lower, upper)`` (scalars or per-output vectors); required for all but ``count_nonzero`` and the
        histograms.
    range, bins: the histograms' range (required) and bins; ``histogramdd`` takes a list of ``(lo, hi)``.
    quant / percent: the quantile(s) of ``quantile`` / the percentile(s) of ``percentile``.
    axis, dtype, keepdims, weights, density: passed through where the tool accepts them.
    n_jobs: worker processes.

    Release: the tool's output as a float array (for histograms the counts only; the edges are data-independent).
    Claimed guarantee: ε-DP (δ = 0) under the relation in :data:`TOOLS` (see the module docstring).
    """

    def __init__(self, tool: str, *, epsilon: float, bounds=None, n_jobs: int = 1, **kwargs):
        super().__init__(n_jobs)
        if tool not in TOOLS:
            raise ValueError(f"tool must be one of {sorted(TOOLS)}, got {tool!r}")
        self.tool = tool
        self.epsilon = check_positive("epsilon", epsilon)
        needs_bounds, relation = TOOLS[tool]
        func = getattr(_dpl().tools, tool)
        accepted = set(inspect.signature(func).parameters) - {"array", "sample", "a", "epsilon", "random_state",
                                                               "accountant", "unused_args", "bounds"}
        bad = set(kwargs) - accepted
        if bad:
            raise ValueError(f"tools.{tool} does not accept {sorted(bad)} (accepted: {sorted(accepted)})")
        if needs_bounds:
            _check_bounds_pair("bounds", bounds)
        elif bounds is not None:
            raise ValueError(f"bounds: tools.{tool} takes no bounds")
        if tool in ("histogram", "histogramdd"):
            bins = kwargs.get("bins", 10)
            explicit_edges = np.ndim(np.array(bins, dtype=object)) > 0 and (
                tool == "histogram" or all(np.ndim(b) for b in bins)
            )
            if kwargs.get("range") is None and not explicit_edges:
                raise ValueError(f"range is required for tools.{tool} (or explicit bin edges)")
            if tool == "histogramdd" and kwargs.get("range") is not None:
                for r in kwargs["range"]:
                    _check_bounds_pair("range", r)
            elif tool == "histogram" and kwargs.get("range") is not None:
                _check_bounds_pair("range", kwargs["range"])
        if tool in ("quantile", "percentile"):
            key = "quant" if tool == "quantile" else "percent"
            if key not in kwargs:
                raise ValueError(f"{key} is required for tools.{tool}")
            q = np.asarray(kwargs[key], dtype=float)
            top = 100.0 if tool == "percentile" else 1.0
            if q.size < 1 or np.any(~np.isfinite(q)) or np.any(q < 0) or np.any(q > top):
                raise ValueError(f"{key} must lie in [0, {top:g}], got {kwargs[key]!r}")
        self.bounds = bounds
        self.kwargs = dict(kwargs)
        self.name = f"tools.{tool}"
        self.privacy = PrivacyGuarantee(self.epsilon, 0.0, relation)
        self.relation_note = _TOOL_NOTES[relation]
        self.min_chunk = 200

    def _validate(self, data):
        ndim = (2,) if self.tool == "histogramdd" else (1, 2)
        return as_data(data, "data", ndim=ndim)

    def _chunk_state(self, data, rs):
        return getattr(_dpl().tools, self.tool)

    def _release(self, data, rs, func):
        from diffprivlib.accountant import BudgetAccountant

        kw = dict(self.kwargs)
        if self.bounds is not None:
            kw["bounds"] = self.bounds
        out = func(data, epsilon=self.epsilon, random_state=rs, accountant=BudgetAccountant(), **kw)
        if self.tool in ("histogram", "histogramdd"):
            out = out[0]
        return np.asarray(out, dtype=float)

    def call_diffprivlib(self, data, seed: int):
        """The direct diffprivlib call this adapter makes for one release (for tests and reproduction scripts)."""
        from diffprivlib.accountant import BudgetAccountant

        kw = dict(self.kwargs)
        if self.bounds is not None:
            kw["bounds"] = self.bounds
        return getattr(_dpl().tools, self.tool)(
            data, epsilon=self.epsilon, random_state=int(seed), accountant=BudgetAccountant(), **kw
        )


# ------------------------------------------------------------------------------------------------------
# models
# ------------------------------------------------------------------------------------------------------
def _probe_grid(bounds, d: int, per_axis: int = 3) -> np.ndarray:
    """A data-independent grid of ``per_axis**d`` points over the box ``bounds`` (capped at 4 axes)."""
    lo = np.broadcast_to(np.asarray(bounds[0], dtype=float), (d,))
    hi = np.broadcast_to(np.asarray(bounds[1], dtype=float), (d,))
    axes = [np.linspace(lo[j], hi[j], per_axis) for j in range(min(d, 4))]
    grid = np.stack(np.meshgrid(*axes, indexing="ij"), -1).reshape(-1, len(axes))
    if d > 4:
        grid = np.hstack([grid, np.tile((lo[4:] + hi[4:]) / 2, (grid.shape[0], 1))])
    return grid


class DPLModel(DPLAdapter):
    """A ``diffprivlib.models`` estimator's ``fit`` as ``m(data, size, rng)``; the release is the fitted model.

    Parameters
    ----------
    model: a name in :data:`MODELS`.
    epsilon: ε of the model.
    n_jobs: worker processes (the model itself always runs single-threaded, ``n_jobs`` of the forest is 1).
    probe: for ``RandomForestClassifier`` only, the public points at which the release is read (default: a
        3-per-axis grid over ``bounds``).
    **params: the model's constructor arguments; those in :data:`MODELS` are required
        (``bounds_X``/``bounds_y``; ``data_norm`` and ``classes``; ``bounds`` and ``classes``; ...).

    Data: ``(n, d)`` features for unsupervised models; ``(n, d + 1)`` with the label / target in the last column
    for supervised ones (labels must belong to ``classes``).

    Release (flattened, fixed length for a configuration):

    * LinearRegression: ``coef_``, ``intercept_``, then the noisy objective coefficients diffprivlib stores on the
      fitted model (``_obj_coefs``: Σy², Xᵀy, XᵀX after the functional mechanism's noise, on centred data when
      ``fit_intercept``); ``coef_`` is their post-processing, so they are covered by the same ε claim
    * LogisticRegression: ``coef_``, ``intercept_`` (``classes`` is checked against the labels; diffprivlib reads
      the classes from ``y``, and a neighbour that removes a class changes the output shape, which this adapter
      reports as a ``ValueError`` from scikit-learn)
    * GaussianNB: ``theta_``, ``var_``, ``class_count_`` (fitted with ``partial_fit(X, y, classes=classes)``, the
      API through which diffprivlib accepts explicit classes)
    * KMeans: ``cluster_centers_``
    * PCA: ``components_``, ``explained_variance_``, ``mean_``
    * StandardScaler: ``mean_``, ``var_``
    * RandomForestClassifier: ``predict_proba`` at the public ``probe`` points (the trees' shapes vary from seed
      to seed, so their raw arrays do not line up across releases; a function of the model is post-processing).

    Claimed guarantee: ε-DP (δ = 0), replace-one (see the module docstring).
    """

    def __init__(self, model: str, *, epsilon: float, n_jobs: int = 1, probe=None, **params):
        super().__init__(n_jobs)
        if model not in MODELS:
            raise ValueError(f"model must be one of {sorted(MODELS)}, got {model!r}")
        self.model = model
        self.epsilon = check_positive("epsilon", epsilon)
        required, self.supervised = MODELS[model]
        cls = getattr(_dpl().models, model)
        accepted = set(inspect.signature(cls.__init__).parameters) - {"self", "random_state", "accountant",
                                                                       "unused_args", "epsilon"}
        if model in ("LogisticRegression", "GaussianNB"):
            accepted |= {"classes"}
        bad = set(params) - accepted
        if bad:
            raise ValueError(f"models.{model} does not accept {sorted(bad)} (accepted: {sorted(accepted)})")
        if "n_jobs" in params:
            raise ValueError("n_jobs: pass parallelism to the adapter, not to the model")
        for r in required:
            if params.get(r) is None:
                raise ValueError(f"{r} is required for models.{model}: without it diffprivlib reads it from the "
                                 "data (PrivacyLeakWarning), which is not differentially private")
        for b in ("bounds", "bounds_X", "bounds_y"):
            if b in params:
                _check_bounds_pair(b, params[b])
        if "data_norm" in params:
            check_positive("data_norm", params["data_norm"])
        if "classes" in params:
            cl = np.asarray(params["classes"])
            if cl.ndim != 1 or cl.size < 2 or np.unique(cl).size != cl.size:
                raise ValueError(f"classes must be a 1-d list of >= 2 distinct labels, got {params['classes']!r}")
            params["classes"] = np.sort(cl)
        for k in ("n_clusters", "n_components", "n_estimators", "max_depth"):
            if k in params and params[k] is not None:
                check_int(k, params[k], minimum=1)
        self.params = dict(params)
        self.probe = None if probe is None else np.asarray(probe, dtype=float)
        if self.probe is not None and (self.probe.ndim != 2 or not np.all(np.isfinite(self.probe))):
            raise ValueError("probe must be a finite 2-d array of points")
        if self.probe is not None and model != "RandomForestClassifier":
            raise ValueError("probe applies to RandomForestClassifier only")
        self.name = f"models.{model}"
        self.privacy = PrivacyGuarantee(self.epsilon, 0.0, "replace")
        self.relation_note = _MODEL_NOTE
        self.min_chunk = 4

    # the features' bounds (for neighbour generation)
    @property
    def feature_bounds(self):
        return self.params.get("bounds_X", self.params.get("bounds"))

    def _validate(self, data):
        arr = as_data(data, "data", ndim=(2,))
        if self.supervised:
            if arr.shape[1] < 2:
                raise ValueError("data must have >= 2 columns for a supervised model (features, then the label)")
            if "classes" in self.params:
                ok = np.isin(arr[:, -1], self.params["classes"])
                if not np.all(ok):
                    raise ValueError(
                        f"data's last column holds labels outside classes={list(self.params['classes'])}: "
                        f"{np.unique(arr[~ok, -1])}"
                    )
        return arr

    def _split(self, data):
        if self.supervised:
            X, y = data[:, :-1], data[:, -1]
            if "classes" in self.params:
                cl = self.params["classes"]
                if np.issubdtype(cl.dtype, np.integer):
                    y = y.astype(cl.dtype)
            return X, y
        return data, None

    def build(self, random_state):
        """A fresh diffprivlib model with this configuration, ``random_state`` and a private accountant."""
        from diffprivlib.accountant import BudgetAccountant

        cls = getattr(_dpl().models, self.model)
        kw = {k: v for k, v in self.params.items() if not (k == "classes" and self.model in ("LogisticRegression",
                                                                                           "GaussianNB"))}
        if self.model == "RandomForestClassifier":
            kw["n_jobs"] = 1
        return cls(epsilon=self.epsilon, random_state=random_state, accountant=BudgetAccountant(), **kw)

    def fit(self, data, random_state):
        """Fit a fresh model on ``data`` (validated) and return it."""
        X, y = self._split(data)
        m = self.build(random_state)
        if self.model == "GaussianNB":
            m.partial_fit(X, y, classes=self.params["classes"])
        elif self.supervised:
            m.fit(X, y)
        else:
            m.fit(X)
        return m

    def flatten(self, m, d: int) -> np.ndarray:
        """The release vector of a fitted model (see the class docstring)."""
        name = self.model
        if name == "LinearRegression":
            # coef_ is a post-processing (a numerical minimisation) of the noisy objective coefficients, which
            # diffprivlib keeps on the fitted model as ``_obj_coefs`` = (Σy², Xᵀy, XᵀX) after noise: the DP release
            parts = [np.ravel(m.coef_), np.ravel(m.intercept_)] + [np.ravel(c) for c in m._obj_coefs]
        elif name == "LogisticRegression":
            parts = [np.ravel(m.coef_), np.ravel(m.intercept_)]
        elif name == "GaussianNB":
            parts = [np.ravel(m.theta_), np.ravel(m.var_), np.ravel(m.class_count_)]
        elif name == "KMeans":
            parts = [np.ravel(m.cluster_centers_)]
        elif name == "PCA":
            parts = [np.ravel(m.components_), np.ravel(m.explained_variance_), np.ravel(m.mean_)]
        elif name == "StandardScaler":
            parts = [np.ravel(m.mean_), np.ravel(m.var_)]
        else:  # RandomForestClassifier
            probe = self.probe if self.probe is not None else _probe_grid(self.params["bounds"], d)
            parts = [np.ravel(m.predict_proba(probe))]
        return np.concatenate([np.asarray(p, dtype=float) for p in parts])

    def _release(self, data, rs, state):
        # a fresh copy per release: diffprivlib's PCA.fit centres its input in place (even with copy=True)
        m = self.fit(data.copy(), rs)
        return self.flatten(m, data.shape[1] - int(self.supervised))


# ------------------------------------------------------------------------------------------------------
# factories (a flat, keyword-only spelling)
# ------------------------------------------------------------------------------------------------------
def dpl_mechanism(mechanism: str, *, epsilon: float, delta: float = 0.0, n_jobs: int = 1, **params) -> DPLMechanism:
    """``DPLMechanism(...)``: a diffprivlib mechanism as ``m(value, size, rng)``."""
    return DPLMechanism(mechanism, epsilon=epsilon, delta=delta, n_jobs=n_jobs, **params)


def dpl_tool(tool: str, *, epsilon: float, bounds=None, n_jobs: int = 1, **kwargs) -> DPLTool:
    """``DPLTool(...)``: a diffprivlib tool as ``m(data, size, rng)``."""
    return DPLTool(tool, epsilon=epsilon, bounds=bounds, n_jobs=n_jobs, **kwargs)


def dpl_model(model: str, *, epsilon: float, n_jobs: int = 1, **params) -> DPLModel:
    """``DPLModel(...)``: a diffprivlib model's fit as ``m(data, size, rng)``."""
    return DPLModel(model, epsilon=epsilon, n_jobs=n_jobs, **params)


# ------------------------------------------------------------------------------------------------------
# estimator-style baselines
# ------------------------------------------------------------------------------------------------------
class _DPLToolEstimator(Estimator):
    _tool = ""

    def __init__(self, epsilon: float, bounds, *, n_jobs: int = 1):
        self.epsilon = check_positive("epsilon", epsilon)
        _check_bounds_pair("bounds", bounds)
        self.bounds = bounds
        self.n_jobs = check_int("n_jobs", n_jobs, minimum=1)
        self.privacy = PrivacyGuarantee(self.epsilon, 0.0, "replace")
        self._adapters = {}

    def adapter(self, ndim: int) -> DPLTool:
        """The :class:`DPLTool` used for data of ``ndim`` dimensions (2-d: per column, ``axis=0``)."""
        if ndim not in self._adapters:
            kw = {"axis": 0} if ndim == 2 else {}
            self._adapters[ndim] = DPLTool(self._tool, epsilon=self.epsilon, bounds=self.bounds, n_jobs=self.n_jobs,
                                           **kw)
        return self._adapters[ndim]

    def __call__(self, data, *, rng: np.random.Generator) -> np.ndarray:
        return self.sample(data, 1, rng=rng)[0]

    def sample(self, data, size: int, *, rng: np.random.Generator) -> np.ndarray:
        size = check_int("size", size, minimum=1)
        check_rng(rng)
        arr = as_data(data)
        return self.adapter(arr.ndim)(arr, size, rng)

    def dp_tags(self) -> dict:
        """Declared properties for :mod:`htdp_verify.estimator_checks`: one release runs diffprivlib's own code
        (about a millisecond), so the checks use their smaller sizes."""
        def worst(data):
            x = np.array(data, dtype=float)
            lo, hi = (np.broadcast_to(np.asarray(b, dtype=float), x.shape[1:]) for b in self.bounds)
            x[0] = lo
            return [replace_one(x, 0, hi, "record 0: lower -> upper bound")]
        return {"expensive": True, "neighbours": {"max_pairs": 3}, "worst_case_pairs": worst}


class DPLMean(_DPLToolEstimator):
    """diffprivlib's ``tools.mean`` as an estimator (baseline): clip to ``bounds``, LaplaceTruncated noise with
    sensitivity ``(U - L)/n``, output clamped to ``[L, U]``.  2-d data: one mean per column, ε split evenly
    across the columns (diffprivlib's ``axis=0``).  ε-DP, replace-one (n public).

    Parameters
    ----------
    epsilon: privacy parameter.
    bounds: ``(L, U)``, scalars or per-column vectors (public, data-independent).
    n_jobs: worker processes for ``sample``.
    """

    _tool = "mean"
    reference = "diffprivlib 0.6.6 tools.mean (Holohan et al. 2019)"


class DPLMedian(_DPLToolEstimator):
    """diffprivlib's ``tools.median`` as an estimator (baseline): exponential mechanism over the gaps between the
    sorted clipped points (utility ``-|i - n/2|``, base measure the gap length), then a uniform point in the chosen
    gap.  2-d data: per column, ε split evenly.  ε-DP, replace-one (n public).

    Parameters
    ----------
    epsilon: privacy parameter.
    bounds: ``(L, U)`` (public, data-independent; ``U - L >= 1e-5``).
    n_jobs: worker processes for ``sample``.
    """

    _tool = "median"
    reference = "diffprivlib 0.6.6 tools.median (Holohan et al. 2019)"
