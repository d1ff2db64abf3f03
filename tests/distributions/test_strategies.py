"""Property tests of htdp_verify.strategies (hypothesis, derandomized so CI is deterministic)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from htdp_verify import distributions as D
from htdp_verify import strategies as S

PROPS = settings(max_examples=80, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
FAST = settings(max_examples=40, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])


# ----------------------------------------------------------------------------------------------------------------
# laws
# ----------------------------------------------------------------------------------------------------------------
@PROPS
@given(law=S.laws())
def test_laws_are_valid(law):
    assert isinstance(law, D.Law)
    ti = law.tail_index
    assert ti > 0
    k = min(ti / 2, 2.0)
    assert 0 < law.moment(k) < np.inf
    if ti < np.inf:
        with pytest.raises(ValueError, match="k"):
            law.moment(ti)


@PROPS
@given(window=st.sampled_from([(0.0, 1.0), (1.0, 2.0), (2.0, 4.0), (4.0, 50.0), (2.0, np.inf)]), data=st.data())
def test_tail_index_window_is_respected(window, data):
    lo, hi = window
    law = data.draw(S.laws(min_tail_index=lo, max_tail_index=hi))
    assert lo < law.tail_index <= hi


@FAST
@given(law=S.laws(min_tail_index=0.5), seed=S.seeds())
def test_law_samples_have_right_shape_and_are_finite(law, seed):
    x = law.sample((3, 4), rng=np.random.default_rng(seed))
    assert x.shape == (3, 4)
    assert np.all(np.isfinite(x))


@FAST
@given(law=S.laws(min_tail_index=1.5, d=3), seed=S.seeds())
def test_multivariate_laws(law, seed):
    assert law.multivariate and law.dim == 3
    x = law.sample(6, rng=np.random.default_rng(seed))
    assert x.shape == (6, 3)
    np.testing.assert_array_equal(np.asarray(law.mean).shape, (3,))
    assert law.directional_moment(1.0) >= np.max(law.moment(1.0, central=True)) * (1 - 1e-9)


def test_law_strategy_window_validation():
    with pytest.raises(ValueError, match="min_tail_index"):
        S.student_t_laws(5.0, 4.0)


def _collect(strategy, key, n=300):
    seen = set()

    @settings(
        max_examples=n, deadline=None, derandomize=True, database=None, suppress_health_check=[HealthCheck.too_slow]
    )
    @given(strategy)
    def run(value):
        seen.add(key(value))

    run()
    return seen


def test_every_law_family_is_reachable():
    seen = _collect(S.laws(), type)
    expected = {
        D.Normal,
        D.StudentT,
        D.Cauchy,
        D.Pareto,
        D.Lomax,
        D.SymmetricPareto,
        D.LogNormal,
        D.BurrXII,
        D.Spike,
        D.Contamination,
        D.Mixture,
    }
    assert expected <= seen, f"never generated: {expected - seen}"
    assert _collect(S.laws(d=2), type) == {D.MultivariateT, D.RadialPareto}


# ----------------------------------------------------------------------------------------------------------------
# data sets
# ----------------------------------------------------------------------------------------------------------------
@FAST
@given(x=S.datasets(n=st.integers(2, 20), d=st.one_of(st.none(), st.integers(1, 4))))
def test_datasets_shapes(x):
    assert x.ndim in (1, 2)
    assert 2 <= x.shape[0] <= 20
    if x.ndim == 2:
        assert 1 <= x.shape[1] <= 4
    assert np.all(np.isfinite(x))


@FAST
@given(reg=S.regression_datasets(25, 3))
def test_regression_datasets(reg):
    assert reg.X.shape == (25, 3) and reg.y.shape == (25,)
    np.testing.assert_allclose(reg.y, reg.X @ reg.beta + reg.noise, rtol=1e-12, atol=1e-9 * (1 + np.abs(reg.y).max()))
    assert reg.data.shape == (25, 4)


@FAST
@given(x=S.arrays_from_laws(10, 2, law=D.StudentT(3.0)))
def test_arrays_from_a_fixed_law(x):
    assert x.shape == (10, 2)


# ----------------------------------------------------------------------------------------------------------------
# neighbouring pairs
# ----------------------------------------------------------------------------------------------------------------
def _rows_equal(a, b):
    return np.array_equal(np.asarray(a), np.asarray(b))


def _check_pair(pair, original=None):
    data, nb = pair.data, pair.neighbour
    if original is not None:
        np.testing.assert_array_equal(data, original)  # the strategy never mutates its input
    assert pair.relation in ("replace", "add_remove")
    if pair.relation == "replace":
        assert pair.kind in S.REPLACE_KINDS
        assert nb.shape == data.shape
        others = np.delete(np.arange(data.shape[0]), pair.index)
        np.testing.assert_array_equal(nb[others], data[others])
        row = nb[pair.index]
        if pair.kind == "duplicate":
            assert any(_rows_equal(row, data[j]) for j in others)
        else:
            assert not _rows_equal(row, data[pair.index])
            if pair.kind == "huge":
                assert np.max(np.abs(row)) >= 1e6
            elif pair.kind == "tiny":
                assert np.min(np.abs(row)) <= 1e-12
            else:  # negative
                assert _rows_equal(row, -data[pair.index]) or np.min(row) <= -1e6
    else:
        assert pair.kind in S.ADD_REMOVE_KINDS
        if pair.kind == "remove":
            assert nb.shape[0] == data.shape[0] - 1
            np.testing.assert_array_equal(nb, np.delete(data, pair.index, axis=0))
        else:
            assert nb.shape[0] == data.shape[0] + 1
            np.testing.assert_array_equal(np.delete(nb, pair.index, axis=0), data)


@PROPS
@given(pair=S.neighbouring_pairs())
def test_neighbouring_pairs_default(pair):
    _check_pair(pair)


FIXED_1D = np.array([0.0, 1.0, -2.0, 3.5, 0.0])
FIXED_2D = np.arange(12, dtype=float).reshape(4, 3) - 5.0


@PROPS
@given(pair=S.neighbouring_pairs(FIXED_1D))
def test_neighbouring_pairs_fixed_1d(pair):
    _check_pair(pair, FIXED_1D)


@PROPS
@given(pair=S.neighbouring_pairs(FIXED_2D, relation="replace", max_magnitude=1e300))
def test_neighbouring_pairs_fixed_2d_replace(pair):
    _check_pair(pair, FIXED_2D)
    assert pair.relation == "replace"


@FAST
@given(pair=S.neighbouring_pairs(FIXED_2D, relation="add_remove"))
def test_neighbouring_pairs_add_remove_only(pair):
    _check_pair(pair, FIXED_2D)
    assert pair.relation == "add_remove"


@FAST
@given(pair=S.neighbouring_pairs(np.zeros((3, 2)), kinds=["tiny", "negative"]))
def test_all_zero_rows_still_change(pair):
    _check_pair(pair)
    assert pair.kind in ("tiny", "negative")


def test_every_kind_is_reachable():
    seen = _collect(S.neighbouring_pairs(FIXED_2D), lambda p: (p.relation, p.kind), n=150)
    expected = {("replace", k) for k in S.REPLACE_KINDS} | {("add_remove", k) for k in S.ADD_REMOVE_KINDS}
    assert seen == expected


@pytest.mark.parametrize(
    "kwargs,param",
    [
        ({"relation": "swap"}, "relation"),
        ({"kinds": ["huge", "enormous"]}, "kinds"),
        ({"max_magnitude": 10.0}, "max_magnitude"),
        ({"relation": "add_remove", "kinds": ["huge"]}, "kinds"),
    ],
)
def test_neighbouring_pairs_validation(kwargs, param):
    with pytest.raises(ValueError, match=param):
        S.neighbouring_pairs(FIXED_1D, **kwargs)


def test_neighbouring_pairs_rejects_too_small_data():
    with pytest.raises(ValueError, match="data"):
        _collect(S.neighbouring_pairs(np.array([1.0])), lambda p: p, n=1)
