"""The diffprivlib adapters (estimators/dpl.py) reproduce diffprivlib's own outputs exactly for a given seed.

Each test draws the per-release seeds with ``release_seeds`` from an identically seeded generator, calls
diffprivlib directly with ``random_state=int(seed)`` and a throwaway accountant, and requires bit-for-bit equality.
No statistical assertions here (so no α): equality is deterministic.
"""

from __future__ import annotations

import warnings

import diffprivlib
import numpy as np
import pytest
from diffprivlib.accountant import BudgetAccountant

from estimators.dpl import (
    MECHANISMS,
    DPLMean,
    DPLMechanism,
    DPLMedian,
    DPLModel,
    DPLTool,
    release_seeds,
)

SIZE = 4


def _seeds(seed=123, size=SIZE):
    return [int(s) for s in release_seeds(np.random.default_rng(seed), size)]


MECH_CASES = [
    ("Laplace", dict(epsilon=1.0, sensitivity=1.0), 0.3),
    ("Laplace", dict(epsilon=0.5, delta=0.01, sensitivity=2.0), -1.0),
    ("LaplaceTruncated", dict(epsilon=1.0, sensitivity=1.0, lower=0.0, upper=2.0), 1.5),
    ("LaplaceFolded", dict(epsilon=1.0, sensitivity=1.0, lower=0.0, upper=2.0), 0.5),
    ("LaplaceBoundedDomain", dict(epsilon=1.0, sensitivity=1.0, lower=0.0, upper=2.0), 1.0),
    ("LaplaceBoundedNoise", dict(epsilon=1.0, delta=0.1, sensitivity=1.0), 0.0),
    ("Gaussian", dict(epsilon=0.5, delta=1e-3, sensitivity=1.0), 0.0),
    ("GaussianAnalytic", dict(epsilon=1.0, delta=1e-3, sensitivity=1.0), 2.0),
    ("GaussianDiscrete", dict(epsilon=1.0, delta=1e-3, sensitivity=1), 3),
    ("Geometric", dict(epsilon=1.0, sensitivity=1), 5),
    ("GeometricTruncated", dict(epsilon=1.0, sensitivity=1, lower=0, upper=10), 2),
    ("GeometricFolded", dict(epsilon=1.0, sensitivity=1, lower=0, upper=10), 9),
    ("Staircase", dict(epsilon=1.0, sensitivity=1.0), 0.0),
    ("Snapping", dict(epsilon=1.0, sensitivity=1.0, lower=-5.0, upper=5.0), 1.0),
    ("Exponential", dict(epsilon=1.0, sensitivity=1.0), [0.0, 1.0, 3.0]),
    ("PermuteAndFlip", dict(epsilon=1.0, sensitivity=1.0), [0.0, 1.0, 3.0]),
    ("Binary", dict(epsilon=1.0), 1),
]


def test_every_supported_mechanism_has_a_case():
    assert {c[0] for c in MECH_CASES} == set(MECHANISMS)


@pytest.mark.parametrize("name,params,value", MECH_CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(MECH_CASES)])
def test_mechanism_reproduces_diffprivlib(name, params, value):
    adapter = DPLMechanism(name, **params)
    got = adapter(value, SIZE, np.random.default_rng(123))
    cls = getattr(diffprivlib.mechanisms, name)
    want = []
    for s in _seeds():
        kw = dict(params)
        if name in ("Exponential", "PermuteAndFlip"):
            want.append(cls(**kw, utility=list(value), random_state=s).randomise())
        elif name == "Binary":
            want.append(int(cls(**kw, value0="0", value1="1", random_state=s).randomise(str(value))))
        else:
            want.append(cls(**kw, random_state=s).randomise(value))
    assert got.shape == (SIZE,)
    np.testing.assert_array_equal(got, np.asarray(want, dtype=float))


@pytest.fixture(scope="module")
def x1():
    return np.random.default_rng(7).uniform(-1.0, 2.0, size=30)


@pytest.fixture(scope="module")
def x2():
    return np.random.default_rng(8).uniform(0.0, 1.0, size=(25, 2))


TOOL_CASES = [
    ("mean", dict(bounds=(-1.0, 2.0))),
    ("var", dict(bounds=(-1.0, 2.0))),
    ("std", dict(bounds=(-1.0, 2.0))),
    ("sum", dict(bounds=(-1.0, 2.0))),
    ("nanmean", dict(bounds=(-1.0, 2.0))),
    ("count_nonzero", dict()),
    ("quantile", dict(bounds=(-1.0, 2.0), quant=[0.1, 0.9])),
    ("percentile", dict(bounds=(-1.0, 2.0), percent=50)),
    ("median", dict(bounds=(-1.0, 2.0))),
    ("histogram", dict(range=(-1.0, 2.0), bins=5)),
]


@pytest.mark.parametrize("tool,kw", TOOL_CASES, ids=[c[0] for c in TOOL_CASES])
def test_tool_reproduces_diffprivlib(tool, kw, x1):
    data = (x1 > 0.5).astype(float) if tool == "count_nonzero" else x1
    adapter = DPLTool(tool, epsilon=0.7, **kw)
    before = data.copy()
    got = adapter(data, SIZE, np.random.default_rng(123))
    np.testing.assert_array_equal(data, before)
    func = getattr(diffprivlib.tools, tool)
    want = []
    for s in _seeds():
        out = func(data, epsilon=0.7, random_state=s, accountant=BudgetAccountant(), **kw)
        want.append(out[0] if tool == "histogram" else out)
    np.testing.assert_array_equal(got, np.asarray(want, dtype=float))
    np.testing.assert_array_equal(
        adapter.call_diffprivlib(data, _seeds()[1])
        if tool != "histogram"
        else adapter.call_diffprivlib(data, _seeds()[1])[0],
        want[1],
    )


def test_tool_axis_and_histogramdd(x2):
    for tool, kw in [
        ("mean", dict(bounds=([0, 0], [1, 1]), axis=0)),
        ("histogramdd", dict(range=[(0, 1), (0, 1)], bins=3)),
    ]:
        adapter = DPLTool(tool, epsilon=1.0, **kw)
        got = adapter(x2, SIZE, np.random.default_rng(5))
        func = getattr(diffprivlib.tools, tool)
        want = []
        for s in _seeds(5):
            out = func(x2, epsilon=1.0, random_state=s, accountant=BudgetAccountant(), **kw)
            want.append(out[0] if tool == "histogramdd" else out)
        np.testing.assert_array_equal(got, np.asarray(want, dtype=float))


@pytest.fixture(scope="module")
def sup():
    g = np.random.default_rng(11)
    X = g.uniform(0.0, 1.0, size=(40, 2))
    y = (X[:, 0] + 0.3 * g.standard_normal(40) > 0.5).astype(float)
    return np.column_stack([X, y])


def _direct_model(name, params, data, seed):
    """Fit diffprivlib's model directly (independently of the adapter) and flatten it the documented way."""
    cls = getattr(diffprivlib.models, name)
    kw = {k: v for k, v in params.items() if k != "classes" or name == "RandomForestClassifier"}
    m = cls(epsilon=1.0, random_state=seed, accountant=BudgetAccountant(), **kw)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        warnings.simplefilter("ignore", DeprecationWarning)
        if name == "GaussianNB":
            m.partial_fit(data[:, :-1], data[:, -1], classes=np.asarray(params["classes"]))
            return np.concatenate([m.theta_.ravel(), m.var_.ravel(), m.class_count_.ravel()])
        if name in ("LinearRegression", "LogisticRegression"):
            m.fit(data[:, :-1], data[:, -1])
            extra = [np.ravel(c) for c in m._obj_coefs] if name == "LinearRegression" else []
            return np.concatenate([np.ravel(m.coef_), np.ravel(m.intercept_)] + extra)
        if name == "RandomForestClassifier":
            m.fit(data[:, :-1], data[:, -1])
            g = np.linspace(0, 1, 3)
            probe = np.stack(np.meshgrid(g, g, indexing="ij"), -1).reshape(-1, 2)
            return m.predict_proba(probe).ravel()
        m.fit(data)
        if name == "KMeans":
            return m.cluster_centers_.ravel()
        if name == "PCA":
            return np.concatenate([m.components_.ravel(), m.explained_variance_.ravel(), m.mean_.ravel()])
        return np.concatenate([m.mean_.ravel(), m.var_.ravel()])


MODEL_CASES = [
    ("LinearRegression", dict(bounds_X=(0.0, 1.0), bounds_y=(0.0, 1.0)), True),
    ("LogisticRegression", dict(data_norm=1.5, classes=[0.0, 1.0]), True),
    ("GaussianNB", dict(bounds=(0.0, 1.0), classes=[0.0, 1.0]), True),
    ("KMeans", dict(bounds=(0.0, 1.0), n_clusters=2), False),
    ("PCA", dict(bounds=(0.0, 1.0), data_norm=1.5, n_components=2), False),
    ("StandardScaler", dict(bounds=(0.0, 1.0)), False),
    ("RandomForestClassifier", dict(bounds=(0.0, 1.0), classes=[0.0, 1.0], n_estimators=3, max_depth=3), True),
]


@pytest.mark.parametrize("name,params,supervised", MODEL_CASES, ids=[c[0] for c in MODEL_CASES])
def test_model_reproduces_diffprivlib(name, params, supervised, sup):
    data = sup if supervised else sup[:, :2]
    adapter = DPLModel(name, epsilon=1.0, **params)
    before = data.copy()
    got = adapter(data, 3, np.random.default_rng(9))
    np.testing.assert_array_equal(data, before)  # diffprivlib's PCA centres its input in place; the adapter copies
    want = np.stack([_direct_model(name, params, data.copy(), s) for s in _seeds(9, 3)])
    assert got.shape == want.shape
    np.testing.assert_array_equal(got, want)
    assert adapter.privacy.neighbours == "replace" and adapter.privacy.epsilon == 1.0


def test_release_replays_one_seed(x1):
    a = DPLTool("mean", epsilon=1.0, bounds=(-1, 2))
    seeds = _seeds()
    np.testing.assert_array_equal(a(x1, SIZE, np.random.default_rng(123))[2], a.release(x1, seeds[2]))


def test_parallel_equals_serial(x1):
    serial = DPLMechanism("Laplace", epsilon=1.0, sensitivity=1.0)
    par = DPLMechanism("Laplace", epsilon=1.0, sensitivity=1.0, n_jobs=2)
    par.min_chunk = 8  # force two workers on a small run
    a = serial(0.0, 40, np.random.default_rng(3))
    b = par(0.0, 40, np.random.default_rng(3))
    np.testing.assert_array_equal(a, b)


def test_global_accountant_untouched(x1, sup):
    acc = BudgetAccountant.load_default(None)
    before = len(acc.spent_budget)
    DPLTool("mean", epsilon=1.0, bounds=(-1, 2))(x1, 3, np.random.default_rng(0))
    DPLModel("GaussianNB", epsilon=1.0, bounds=(0, 1), classes=[0, 1])(sup, 2, np.random.default_rng(0))
    assert len(BudgetAccountant.load_default(None).spent_budget) == before


def test_declared_relations():
    assert DPLTool("histogram", epsilon=1, range=(0, 1)).privacy.neighbours == "add_remove"
    assert DPLTool("mean", epsilon=1, bounds=(0, 1)).privacy.neighbours == "replace"
    g = DPLMechanism("Gaussian", epsilon=0.5, delta=1e-5, sensitivity=1)
    assert (g.privacy.epsilon, g.privacy.delta) == (0.5, 1e-5)
    for a in (
        g,
        DPLTool("median", epsilon=1, bounds=(0, 1)),
        DPLModel("KMeans", epsilon=1, bounds=(0, 1), n_clusters=2),
    ):
        assert a.relation_note


def test_estimators_match_tools(x1, x2):
    est = DPLMean(1.0, (-1.0, 2.0))
    got = est.sample(x1, SIZE, rng=np.random.default_rng(123))
    want = [
        diffprivlib.tools.mean(x1, epsilon=1.0, bounds=(-1.0, 2.0), random_state=s, accountant=BudgetAccountant())
        for s in _seeds()
    ]
    np.testing.assert_array_equal(got, want)
    one = est(x1, rng=np.random.default_rng(123))
    assert one == got[0]
    assert est.privacy.neighbours == "replace"
    med = DPLMedian(1.0, (0.0, 1.0))
    m2 = med.sample(x2, 3, rng=np.random.default_rng(1))
    assert m2.shape == (3, 2)
    want = [
        diffprivlib.tools.median(
            x2, epsilon=1.0, bounds=(0.0, 1.0), axis=0, random_state=s, accountant=BudgetAccountant()
        )
        for s in _seeds(1, 3)
    ]
    np.testing.assert_array_equal(m2, want)


# ---------------------------------------------------------------------------------------------------- validation
@pytest.mark.parametrize(
    "make,param",
    [
        (lambda: DPLMechanism("Nope", epsilon=1, sensitivity=1), "mechanism"),
        (lambda: DPLMechanism("Laplace", epsilon=0, sensitivity=1), "epsilon"),
        (lambda: DPLMechanism("Laplace", epsilon=1, sensitivity=-1), "Laplace"),
        (lambda: DPLMechanism("Geometric", epsilon=1, delta=0.1), "delta"),
        (lambda: DPLMechanism("Laplace", epsilon=1, sensitivity=1, bogus=3), "bogus"),
        (lambda: DPLTool("mean", epsilon=1), "bounds"),
        (lambda: DPLTool("mean", epsilon=1, bounds=(1, 0)), "bounds"),
        (lambda: DPLTool("mean", epsilon=-1, bounds=(0, 1)), "epsilon"),
        (lambda: DPLTool("histogram", epsilon=1), "range"),
        (lambda: DPLTool("quantile", epsilon=1, bounds=(0, 1)), "quant"),
        (lambda: DPLTool("quantile", epsilon=1, bounds=(0, 1), quant=1.5), "quant"),
        (lambda: DPLTool("nope", epsilon=1), "tool"),
        (lambda: DPLModel("LinearRegression", epsilon=1, bounds_X=(0, 1)), "bounds_y"),
        (lambda: DPLModel("LogisticRegression", epsilon=1, classes=[0, 1]), "data_norm"),
        (lambda: DPLModel("RandomForestClassifier", epsilon=1, bounds=(0, 1)), "classes"),
        (lambda: DPLModel("GaussianNB", epsilon=1, bounds=(0, 1), classes=[1]), "classes"),
        (lambda: DPLModel("KMeans", epsilon=1, bounds=(0, 1), n_clusters=0), "n_clusters"),
        (lambda: DPLMean(1.0, None), "bounds"),
        (lambda: DPLMean(1.0, (0, 1), n_jobs=0), "n_jobs"),
    ],
)
def test_construction_errors_name_the_parameter(make, param):
    with pytest.raises(ValueError, match=param):
        make()


def test_call_errors_name_the_parameter(x1, sup):
    a = DPLTool("mean", epsilon=1, bounds=(0, 1))
    g = np.random.default_rng(0)
    with pytest.raises(ValueError, match="size"):
        a(x1, 0, g)
    with pytest.raises(ValueError, match="rng"):
        a(x1, 2, np.random.RandomState(0))
    with pytest.raises(ValueError, match="data"):
        a(np.array([1.0, np.nan]), 2, g)
    with pytest.raises(ValueError, match="data"):
        DPLMechanism("LaplaceTruncated", epsilon=1, sensitivity=1, lower=0, upper=1)(2.0, 2, g)
    with pytest.raises(ValueError, match="data"):
        DPLMechanism("Geometric", epsilon=1)(0.5, 2, g)
    with pytest.raises(ValueError, match="data"):
        DPLModel("GaussianNB", epsilon=1, bounds=(0, 1), classes=[0, 1])(
            np.column_stack([sup[:, :2], sup[:, 2] + 5]), 1, g
        )
    with pytest.raises(ValueError, match="seed"):
        a.release(x1, -1)
    with pytest.raises(ValueError, match="rng"):
        DPLMean(1.0, (0, 1)).sample(x1, 2, rng=None)
