"""What the diffprivlib adapters support and the checks they share: the name tables ``MECHANISMS`` (with the kind of
value ``randomise`` takes), ``TOOLS`` (needs bounds, neighbouring relation) and ``MODELS`` (required arguments,
supervised), the neighbouring-relation notes, the lazy ``diffprivlib`` import and ``_check_bounds_pair`` (explicit,
finite, ordered bounds). The relations are explained in :mod:`estimators.dpl`.
"""

from __future__ import annotations

import numpy as np

__all__ = ["MECHANISMS", "TOOLS", "MODELS"]


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
