""":class:`DPLModel`: a ``diffprivlib.models`` estimator's ``fit`` as ``m(data, size, rng)`` (the release is the fitted
model's parameters, or predicted probabilities on a data-independent probe grid for the forest), and its factory
:func:`dpl_model`.
"""

from __future__ import annotations

import inspect

import numpy as np

from htdp_verify._validate import check_int, check_positive
from htdp_verify.privacy import PrivacyGuarantee, replace_one
from htdp_verify.privacy.dpl_adapter import DPLAdapter

from ..base import as_data
from .contract import EstimatorContract
from .tables import _MODEL_NOTE, MODELS, _check_bounds_pair, _dpl

__all__ = ["DPLModel", "dpl_model"]


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


_CONTROLLER: list = []


def _single_threaded():
    """A context limiting the thread pools of the loaded BLAS / OpenMP libraries to one thread (one threadpoolctl
    controller, built after diffprivlib and scikit-learn are imported, reused: entering it costs microseconds)."""
    if not _CONTROLLER:
        from threadpoolctl import ThreadpoolController

        _dpl()  # load diffprivlib, scikit-learn and their native libraries first
        _CONTROLLER.append(ThreadpoolController())
    return _CONTROLLER[0].limit(limits=1)


class DPLModel(EstimatorContract, DPLAdapter):
    """A ``diffprivlib.models`` estimator's ``fit`` as ``m(data, size, rng)``; the release is the fitted model (and
    as an estimator: ``sample(data, size, rng=rng)``, ``m(data, rng=rng)``; :mod:`.contract`).

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
    * LogisticRegression: ``coef_``, ``intercept_``.  With two declared ``classes`` the fitted model's own arrays
      (``d + 1`` values).  With ``K >= 3`` declared classes one row per declared class, always ``K·d`` weights then
      ``K`` intercepts: diffprivlib reads the classes from ``y`` (``classes_`` = the labels present), so its arrays
      have ``K`` rows when every class occurs and one row when two do.  The rows are placed by class: a present
      class gets its one-vs-rest row; when only two classes ``a < b`` occur, ``b`` gets the fitted ``(w, w_0)``
      and ``a`` gets ``(-w, -w_0)`` (scikit-learn's binary decision function for ``classes_[0]``); **a declared
      class absent from the sample gets a row of zeros**.  The padding is a function of the fitted model
      (post-processing), so the claim is unchanged; it makes visible what ``classes_`` already reveals, which
      classes occur.  A sample with one class is refused by scikit-learn (``ValueError``)
    * GaussianNB: ``theta_``, ``var_``, ``class_count_`` (fitted with ``partial_fit(X, y, classes=classes)``, the
      API through which diffprivlib accepts explicit classes)
    * KMeans: ``cluster_centers_``
    * PCA: ``components_``, ``explained_variance_``, ``mean_``
    * StandardScaler: the statistics diffprivlib computes for the configuration (:attr:`released_attributes`):
      ``mean_`` and ``var_`` with ``with_std=True`` (``mean_`` is computed for the variance even with
      ``with_mean=False``), ``mean_`` alone with ``with_std=False`` (``var_`` is then ``None``); with both off
      diffprivlib computes no statistic and the adapter refuses the configuration (nothing is released)
    * RandomForestClassifier: ``predict_proba`` at the public ``probe`` points (the trees' shapes vary from seed
      to seed, so their raw arrays do not line up across releases; a function of the model is post-processing).

    Claimed guarantee: ε-DP (δ = 0), replace-one (see the module docstring).
    """

    #: sizes of the contract checks ``{size key: (quick, full)}`` (the ``sizes`` tag of
    #: :mod:`htdp_verify.estimator_checks`); full = the checks' sizes for expensive estimators.  Quick: the privacy
    #: audit certifies on 400 releases per side (200 to select the event): it refutes the claim on gross leaks (an
    #: event several times likelier on one side than e^ε allows, e.g. a coordinate released exactly where it should
    #: be noisy; the largest certifiable ε_lb is about ln(400 / ln 100) ≈ 4.5), not on a leak of a few tenths of ε;
    #: the KS comparison of __call__ and sample uses 100 releases each (a CDF gap >= 0.33 at power 0.8 with six
    #: features); the dispersion test 15 batches of 20; 10 hypothesis examples.  About 1 900 fits per model (2-10 ms
    #: each) instead of ~5 700 at the expensive defaults.
    CHECK_SIZES = {
        "audit": (400, 30_000),
        "select": (200, 5_000),
        "agree": (100, 600),
        "batches": (15, 100),
        "batch": (20, 200),
        "examples": (10, 200),
    }

    def __init__(self, model: str, *, epsilon: float, n_jobs: int = 1, probe=None, **params):
        super().__init__(n_jobs)
        if model not in MODELS:
            raise ValueError(f"model must be one of {sorted(MODELS)}, got {model!r}")
        self.model = model
        self.epsilon = check_positive("epsilon", epsilon)
        required, self.supervised = MODELS[model]
        cls = getattr(_dpl().models, model)
        accepted = set(inspect.signature(cls.__init__).parameters) - {
            "self",
            "random_state",
            "accountant",
            "unused_args",
            "epsilon",
        }
        if model in ("LogisticRegression", "GaussianNB"):
            accepted |= {"classes"}
        bad = set(params) - accepted
        if bad:
            raise ValueError(f"models.{model} does not accept {sorted(bad)} (accepted: {sorted(accepted)})")
        if "n_jobs" in params:
            raise ValueError("n_jobs: pass parallelism to the adapter, not to the model")
        for r in required:
            if params.get(r) is None:
                raise ValueError(
                    f"{r} is required for models.{model}: without it diffprivlib reads it from the "
                    "data (PrivacyLeakWarning), which is not differentially private"
                )
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
        if model == "StandardScaler" and not (params.get("with_mean", True) or params.get("with_std", True)):
            raise ValueError(
                "with_mean=False with with_std=False: diffprivlib's StandardScaler then computes no statistic "
                "(mean_ and var_ are None), so there is no release to audit"
            )
        self.name = f"models.{model}"
        if model == "StandardScaler" and self.released_attributes != ("mean_", "var_"):
            self.name += f"[releases {', '.join(self.released_attributes)}]"
        self.privacy = PrivacyGuarantee(self.epsilon, 0.0, "replace")
        self.relation_note = _MODEL_NOTE
        self.min_chunk = 4

    @property
    def released_attributes(self) -> tuple:
        """Names of the fitted model's attributes the release holds, in order (see the class docstring)."""
        return {
            "LinearRegression": ("coef_", "intercept_", "_obj_coefs"),
            "LogisticRegression": ("coef_", "intercept_"),
            "GaussianNB": ("theta_", "var_", "class_count_"),
            "KMeans": ("cluster_centers_",),
            "PCA": ("components_", "explained_variance_", "mean_"),
            "StandardScaler": ("mean_", "var_") if self.params.get("with_std", True) else ("mean_",),
            "RandomForestClassifier": ("predict_proba(probe)",),
        }[self.model]

    @property
    def release_description(self) -> str:
        """One line saying what the release holds for this configuration (attributes, and the padding rule where
        the fitted arrays' shape depends on the sample)."""
        text = "release: " + ", ".join(self.released_attributes)
        if self.model == "StandardScaler" and not self.params.get("with_std", True):
            text += " (var_ is not computed with with_std=False)"
        if self.model == "LogisticRegression" and len(self.params["classes"]) >= 3:
            k = len(self.params["classes"])
            text += (
                f" as {k} rows, one per declared class (a class absent from the sample: a zero row; two classes "
                "present: the fitted row and its negation)"
            )
        return text

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

    def get_params(self) -> dict:
        """The constructor arguments (``model``, ``epsilon``, ``n_jobs``, ``probe`` and the model's own)."""
        return {"model": self.model, "epsilon": self.epsilon, "n_jobs": self.n_jobs, "probe": self.probe, **self.params}

    def check_box(self):
        """``(lower, upper)`` per feature: ``bounds`` / ``bounds_X``, else (LogisticRegression) the box
        ``[0, data_norm / sqrt(2)]^2``, whose records have norm <= ``data_norm``."""
        fb = self.feature_bounds
        if fb is None:
            side = float(self.params["data_norm"]) / np.sqrt(2.0)
            return np.zeros(2), np.full(2, side)
        lo, hi = (np.asarray(b, dtype=float) for b in fb)
        d = 2 if lo.ndim == 0 and hi.ndim == 0 else max(lo.size, hi.size)  # scalar bounds: two features
        return np.broadcast_to(lo, (d,)).copy(), np.broadcast_to(hi, (d,)).copy()

    def check_data(self, n: int = 20) -> np.ndarray:
        """The data of the contract checks: ``n`` features spread over the box (:meth:`check_box`), then the label
        / target. Explicit ``classes`` (GaussianNB, the forest): the last class holds row 0 only; LogisticRegression
        (which reads the classes from the labels): two classes alternating; LinearRegression: the target spread
        over ``bounds_y``."""
        lo, hi = self.check_box()
        g = np.linspace(0.05, 0.95, n)
        u = np.column_stack([np.roll(g, k * (n // 3)) for k in range(lo.size)])
        X = lo + u * (hi - lo)
        if not self.supervised:
            return X
        if self.model == "LinearRegression":
            ylo, yhi = (float(b) for b in self.params["bounds_y"])
            return np.column_stack([X, ylo + g * (yhi - ylo)])
        cl = np.asarray(self.params["classes"], dtype=float)
        if self.model == "LogisticRegression":
            y = np.resize(cl[:2], n)
        else:
            y = np.full(n, cl[0])
            y[0] = cl[-1]
        return np.column_stack([X, y])

    def check_pair(self, data):
        """Record 0 moved to the corner of the box farthest from it, with its label switched to the first class (so
        a class held by record 0 alone disappears) or, for a regression, its target to the farthest bound."""
        data = np.asarray(data, dtype=float)
        lo, hi = self.check_box()
        x0 = data[0, : lo.size]
        corner = np.where(np.abs(x0 - lo) > np.abs(hi - x0), lo, hi)
        if not self.supervised:
            return replace_one(data, 0, corner, "record 0 -> the farthest corner of the box")
        if self.model == "LinearRegression":
            ylo, yhi = (float(b) for b in self.params["bounds_y"])
            y = ylo if abs(data[0, -1] - ylo) > abs(yhi - data[0, -1]) else yhi
            return replace_one(data, 0, np.r_[corner, y], "record 0 -> the farthest corner of the (x, y) box")
        cl = np.asarray(self.params["classes"], dtype=float)
        y = cl[0] if data[0, -1] != cl[0] else cl[1]
        return replace_one(data, 0, np.r_[corner, y], f"record 0 -> the farthest corner, label {y:g}")

    def dp_tags(self) -> dict:
        """Declared properties for :mod:`htdp_verify.estimator_checks`: a fit costs milliseconds (the checks'
        smaller sizes); the data are :meth:`check_data` (fixed, 2-d, labels last when supervised) and the audited
        pair :meth:`check_pair` (one pair: no pair search, which the fit's cost does not allow); the labels of a
        classifier must belong to ``classes``, so the extreme-input check, whose generated records put arbitrary
        reals in the label column, is declared not applicable to the classifiers.  A fit costs 2-10 ms, 10-50 times
        a tool's release, so the quick profile runs the checks at :attr:`CHECK_SIZES` (see there)."""
        data = self.check_data()
        pair = self.check_pair(data)
        tags = {
            "expensive": True,
            "input_ndim": (2,),
            "data": lambda rng: data,
            "neighbours": lambda relation: [pair],
            "sizes": self.CHECK_SIZES,
        }
        if self.supervised and self.model != "LinearRegression":
            tags["xfail"] = {
                "check_extreme_inputs": (
                    "not applicable: the checked records put heavy-tailed reals in the label column, "
                    "which a classifier "
                    "rejects with ValueError (labels must belong to classes)"
                )
            }
        return tags

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
        kw = {
            k: v
            for k, v in self.params.items()
            if not (k == "classes" and self.model in ("LogisticRegression", "GaussianNB"))
        }
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
            parts = list(self._logreg_rows(m, d))
        elif name == "GaussianNB":
            parts = [np.ravel(m.theta_), np.ravel(m.var_), np.ravel(m.class_count_)]
        elif name == "KMeans":
            parts = [np.ravel(m.cluster_centers_)]
        elif name == "PCA":
            parts = [np.ravel(m.components_), np.ravel(m.explained_variance_), np.ravel(m.mean_)]
        elif name == "StandardScaler":
            parts = [np.ravel(getattr(m, a)) for a in self.released_attributes]
        else:  # RandomForestClassifier
            probe = self.probe if self.probe is not None else _probe_grid(self.params["bounds"], d)
            parts = [np.ravel(m.predict_proba(probe))]
        return np.concatenate([np.asarray(p, dtype=float) for p in parts])

    def _logreg_rows(self, m, d: int):
        """``(weights, intercepts)`` of a fitted LogisticRegression laid out on the declared classes (class
        docstring): the fitted arrays unchanged for two declared classes, ``(K·d,)`` and ``(K,)`` otherwise."""
        cl = np.asarray(self.params["classes"], dtype=float)
        coef = np.asarray(m.coef_, dtype=float).reshape(-1, d)
        icpt = np.broadcast_to(np.asarray(m.intercept_, dtype=float).ravel(), (coef.shape[0],))
        if cl.size == 2:
            return coef.ravel(), icpt.ravel()
        present = np.asarray(m.classes_, dtype=float)
        idx = np.searchsorted(cl, present)
        if present.size < 2 or np.any(idx >= cl.size) or not np.array_equal(cl[np.minimum(idx, cl.size - 1)], present):
            raise ValueError(f"the fitted classes {present.tolist()} are not a subset of classes={cl.tolist()}")
        W, b = np.zeros((cl.size, d)), np.zeros(cl.size)
        if present.size == 2:  # one fitted row: the score of classes_[1]; classes_[0] scores its negation
            W[idx[1]], b[idx[1]] = coef[0], icpt[0]
            W[idx[0]], b[idx[0]] = -coef[0], -icpt[0]
        else:
            W[idx], b[idx] = coef, icpt
        return W.ravel(), b

    def run_seeds(self, data, seeds) -> np.ndarray:
        """As :meth:`DPLAdapter.run_seeds`, with BLAS / OpenMP limited to one thread in this process: the fits are
        tiny, and on a shared machine idle BLAS threads spinning for work cost LogisticRegression ~40x its
        single-threaded time (213 ms instead of 5 ms per fit, measured on 20 records)."""
        with _single_threaded():
            return super().run_seeds(data, seeds)

    def _release(self, data, rs, state):
        # a fresh copy per release: diffprivlib's PCA.fit centres its input in place (even with copy=True)
        m = self.fit(data.copy(), rs)
        return self.flatten(m, data.shape[1] - int(self.supervised))


# ------------------------------------------------------------------------------------------------------


def dpl_model(model: str, *, epsilon: float, n_jobs: int = 1, **params) -> DPLModel:
    """``DPLModel(...)``: a diffprivlib model's fit as ``m(data, size, rng)``."""
    return DPLModel(model, epsilon=epsilon, n_jobs=n_jobs, **params)
