"""Contract checks (htdp_verify.estimator_checks) of the shipped diffprivlib 0.6.6 wrappers in estimators/dpl.

Representative instances: one mechanism of each diffprivlib family and input kind (real, real on a domain, with δ,
integer, integer on a domain, utility vector, bit), each tool (mean, var, std, sum, median, quantile, percentile,
histogram, histogramdd, count_nonzero, and the per-column ``axis=0`` form), each model, and the ``DPLMedian``
baseline (``DPLMean`` is in test_estimator_checks.py). Their data layouts, audited neighbours, checks that do not
apply, and the models' check sizes are declared by the classes (``dp_tags``); the design of each statistical check
is stated in its docstring (α = 0.01; the models' smaller sizes in ``DPLModel.CHECK_SIZES``).

Known upstream defects of diffprivlib 0.6.6 that the privacy audit finds are declared here, per instance, as
expected failures with their cause (``_xfail_checks``, strict: the test fails if the audit stops finding them):

* GaussianNB: a class with no record gets a class count of exactly 0 and no noise (and a replaced record changes
  the blocks of two classes, 2ε under replace-one), so whether a class occurs is released exactly; the audited pair
  relabels the only record of a class. No upstream issue found.
* LinearRegression (bounds_X = (0, 1)): the diagonal XᵀX coefficient is noised with sensitivity max(|L|, |L|)²,
  the lower bound twice (0 here: released exactly), IBM/differential-privacy-library#105.
* KMeans: an empty cluster keeps its random initial centre without noise, and ``_split_epsilon`` returns
  (ε_i, ε_0) while ``_update_centers`` unpacks (ε_0, ε_i). The shipped audit certifies it only at the full profile
  (ε_lb 0.56 at ε = 0.1 with 1 000 releases per side and gradient boosting); the check's sizes are far below
  that, so its declaration is not strict (see ``NOT_STRICT``).
"""

from __future__ import annotations

import numpy as np
import pytest

from estimators.dpl import DPLMechanism, DPLMedian, DPLModel, DPLTool
from htdp_verify.estimator_checks import check_selection, dp_checks, estimator_id, get_tags, xfail_checks
from htdp_verify.testing import parametrize_with_dp_checks

BOX = (0.0, 1.0)
NORM = float(np.sqrt(2.0))
TB = (-1.0, 2.0)  # tools' bounds

MECHANISMS = [
    DPLMechanism("Laplace", epsilon=1.0, sensitivity=1.0),
    DPLMechanism("LaplaceTruncated", epsilon=1.0, sensitivity=1.0, lower=0.0, upper=1.0),
    DPLMechanism("GaussianAnalytic", epsilon=1.0, delta=1e-5, sensitivity=1.0),
    DPLMechanism("GaussianDiscrete", epsilon=1.0, delta=1e-5, sensitivity=1),
    DPLMechanism("Geometric", epsilon=1.0, sensitivity=1),
    DPLMechanism("GeometricTruncated", epsilon=1.0, sensitivity=1, lower=0, upper=5),
    DPLMechanism("Staircase", epsilon=1.0, sensitivity=1.0),
    DPLMechanism("Snapping", epsilon=1.0, sensitivity=1.0, lower=0.0, upper=1.0),
    DPLMechanism("Exponential", epsilon=1.0, sensitivity=1.0),
    DPLMechanism("Binary", epsilon=1.0),
]

TOOLS = [
    DPLTool("mean", epsilon=1.0, bounds=TB),
    DPLTool("mean", epsilon=1.0, bounds=([-1.0, 0.0], [2.0, 1.0]), axis=0),
    DPLTool("var", epsilon=1.0, bounds=TB),
    DPLTool("std", epsilon=1.0, bounds=TB),
    DPLTool("sum", epsilon=1.0, bounds=TB),
    DPLTool("median", epsilon=1.0, bounds=TB),
    DPLTool("quantile", epsilon=1.0, bounds=TB, quant=0.25),
    DPLTool("percentile", epsilon=1.0, bounds=TB, percent=[25.0, 75.0]),
    DPLTool("histogram", epsilon=1.0, range=TB, bins=4),
    DPLTool("histogramdd", epsilon=1.0, range=[BOX, BOX], bins=2),
    DPLTool("count_nonzero", epsilon=1.0),
]

GNB = DPLModel("GaussianNB", epsilon=1.0, bounds=BOX, classes=[0.0, 1.0])
LINREG = DPLModel("LinearRegression", epsilon=1.0, bounds_X=BOX, bounds_y=BOX)
KMEANS = DPLModel("KMeans", epsilon=1.0, bounds=BOX, n_clusters=2)
MODELS = [
    GNB,
    LINREG,
    DPLModel("LogisticRegression", epsilon=1.0, data_norm=NORM, classes=[0.0, 1.0]),
    KMEANS,
    DPLModel("PCA", epsilon=1.0, bounds=BOX, data_norm=NORM, n_components=2),
    DPLModel("StandardScaler", epsilon=1.0, bounds=BOX),
    DPLModel("RandomForestClassifier", epsilon=1.0, bounds=BOX, classes=[0.0, 1.0], n_estimators=3, max_depth=3),
]

BASELINES = [DPLMedian(1.0, (-5.0, 5.0))]

# ---------------------------------------------------------------------------------------------------------
# known upstream defects, declared per instance (the class-level declarations are the checks that do not apply)
# ---------------------------------------------------------------------------------------------------------
GNB._xfail_checks = {
    "check_privacy_audit": (
        "diffprivlib 0.6.6 GaussianNB: a class with no record gets class_count_ = 0 with no noise (counts are noised "
        "for the classes present in y only) and a replaced record moves between two classes' blocks (2ε under "
        "replace-one), so relabelling the only record of a class is seen with certainty; no upstream issue found"
    )
}
LINREG._xfail_checks = {
    "check_privacy_audit": (
        "diffprivlib 0.6.6 LinearRegression: the diagonal XᵀX coefficient is noised with sensitivity max(|L|, |L|)², "
        "the lower bound twice, so with bounds_X = (0, 1) it is released without noise; IBM/differential-privacy-"
        "library#105 (fix PR #110)"
    )
}
KMEANS._xfail_checks = {
    "check_privacy_audit": (
        "diffprivlib 0.6.6 KMeans: an empty cluster keeps its random initial centre with no noise, and _split_epsilon "
        "returns (ε_i, ε_0) while _update_centers unpacks (ε_0, ε_i) (no upstream issue verified; #104 lists k-means). "
        "Not found at the check's sizes (the shipped audit needs the full profile: 1 000 releases per "
        "side and gradient "
        "boosting at ε = 0.1), so this declaration is not strict"
    )
}

#: declared failures that the check's sizes do not reliably reproduce: xfail(strict=False), so a pass is reported
#: (XPASS) instead of failing the suite. KMeans: the full-profile audit certifies ε_lb 0.56 at ε = 0.1; the quick
#: check (400 releases per side, one pair, ε = 1) certified ε_lb = 0 at its seed (and nothing at 600 per side).
NOT_STRICT = {(estimator_id(KMEANS), "check_privacy_audit")}

SHIPPED = MECHANISMS + TOOLS + MODELS + BASELINES


def _parametrize(estimators):
    """``parametrize_with_dp_checks`` with the declarations of ``NOT_STRICT`` turned into non-strict xfails."""
    mark = parametrize_with_dp_checks(estimators)
    params = []
    for p in mark.args[1]:
        est, check = p.values
        if (estimator_id(est), check.__name__) in NOT_STRICT:
            reason = xfail_checks(est)[check.__name__]
            p = pytest.param(est, check, id=p.id, marks=[pytest.mark.xfail(strict=False, reason=reason)])
        params.append(p)
    return pytest.mark.parametrize("estimator, check", params)


@_parametrize(SHIPPED)
def test_dpl_estimators(estimator, check):
    check(estimator)


# ---------------------------------------------------------------------------------------------------------
# the declarations themselves
# ---------------------------------------------------------------------------------------------------------
def test_ids_are_unique_and_every_family_is_covered():
    ids = [estimator_id(e) for e in SHIPPED]
    assert len(ids) == len(set(ids))
    kinds = {m.kind for m in MECHANISMS}
    assert kinds == {"real", "real_bounded", "integer", "integer_bounded", "utility", "binary"}
    from estimators.dpl import MODELS as MODEL_NAMES

    assert {m.model for m in MODELS} == set(MODEL_NAMES)
    assert {t.tool for t in TOOLS} >= {
        "mean",
        "var",
        "std",
        "sum",
        "median",
        "quantile",
        "percentile",
        "histogram",
        "histogramdd",
        "count_nonzero",
    }


def test_every_declared_failure_has_a_reason_and_a_selected_check():
    for est in SHIPPED:
        selected = {nm for nm, _ in dp_checks(est)}
        for nm, reason in xfail_checks(est).items():
            assert nm in selected, f"{estimator_id(est)} declares {nm}, which is not run"
            assert len(reason) > 40
    # the privacy audits of the models with a known defect are declared; no other privacy audit is
    declared = {estimator_id(e) for e in SHIPPED if "check_privacy_audit" in xfail_checks(e)}
    assert declared == {estimator_id(GNB), estimator_id(LINREG), estimator_id(KMEANS)}


def test_adapters_keep_the_mechanism_call_and_rebuild_from_get_params():
    rng = np.random.default_rng(0)
    tool = TOOLS[0]
    x = np.linspace(-1.0, 2.0, 20)
    a = tool(x, 4, np.random.default_rng(1))  # the auditor's mechanism call is unchanged
    b = tool.sample(x, 4, rng=np.random.default_rng(1))
    c = tool(x, rng=np.random.default_rng(1))
    assert a.shape == (4,) and np.array_equal(a, b) and c == a[0]
    with pytest.raises(ValueError, match="rng"):
        tool(x)
    for est in MECHANISMS + TOOLS + MODELS:
        clone = type(est)(**est.get_params())
        assert estimator_id(clone) == estimator_id(est)
        assert clone.privacy == est.privacy
    with pytest.raises(ValueError, match="data"):
        MECHANISMS[0].sample(np.array([[0.5]]), 2, rng=rng)  # one value, not a 2-d array
    assert get_tags(MODELS[0])["sizes"] == DPLModel.CHECK_SIZES
    assert check_selection(MECHANISMS[0])["check_privacy_worst_case_pairs"] is not None


def test_sizes_tag_overrides_the_check_sizes_and_is_validated():
    from htdp_verify.estimator_checks.tags import _size

    tags = get_tags(KMEANS)
    quick, full = DPLModel.CHECK_SIZES["audit"]
    assert _size("audit", "quick", tags) == quick < 1_500 and _size("audit", "full", tags) == full
    assert _size("search_expensive", "quick", tags) == 1_000  # not declared: the expensive default
    assert _size("audit", "quick", get_tags(TOOLS[0])) == 1_500  # the expensive default, no declaration

    class BadSizes:
        _dp_tags = {"sizes": {"audits": (10, 20)}}

    with pytest.raises(ValueError, match="sizes"):
        get_tags(BadSizes())
