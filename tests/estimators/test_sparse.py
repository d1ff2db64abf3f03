"""Peeling (Hu et al. 2022, Alg. 4): validation, calibration variants, release formats, vectorised sampling."""

import math

import numpy as np
import pytest
from scipy import stats

import estimators.sparse as sparse
from estimators.sparse import Peeling, peeling_scale
from htdp_verify.privacy import PrivacyGuarantee


def test_scale_readings():
    s, eps, delta, lam = 4, 0.5, 1e-5, 0.3
    b = 2 * lam * math.sqrt(3 * s * math.log(1 / delta)) / eps
    assert peeling_scale(s, eps, delta, lam) == pytest.approx(b, rel=1e-14)
    assert Peeling(s, eps, delta, lam).scale == pytest.approx(b, rel=1e-14)
    pods = Peeling(s, eps, delta, lam, calibration="pods").scale
    assert b / pods == pytest.approx((math.sqrt(s) + 1) / math.sqrt(s + 1), rel=1e-14)  # 1.38 at s = 4
    assert Peeling(s, eps, delta, lam, noise_divisor=2.5).scale == pytest.approx(b / 2.5, rel=1e-14)
    assert Peeling(s, eps, delta, lam).privacy == PrivacyGuarantee(eps, delta, "replace")


@pytest.mark.parametrize(
    "kwargs, name",
    [
        (dict(s=0), "s"),
        (dict(epsilon=0.0), "epsilon"),
        (dict(epsilon=1.5), "epsilon"),
        (dict(delta=0.0), "delta"),
        (dict(delta=1.0), "delta"),
        (dict(sensitivity=-1.0), "sensitivity"),
        (dict(argmax="top"), "argmax"),
        (dict(calibration="icml"), "calibration"),
        (dict(noise_divisor=0.0), "noise_divisor"),
        (dict(output="list"), "output"),
        (dict(absolute=1), "absolute"),
    ],
)
def test_parameter_validation(kwargs, name):
    args = dict(s=2, epsilon=1.0, delta=1e-5, sensitivity=1.0) | kwargs
    with pytest.raises(ValueError, match=name):
        Peeling(args.pop("s"), args.pop("epsilon"), args.pop("delta"), args.pop("sensitivity"), **args)


def test_input_validation():
    p, rng = Peeling(3, 1.0, 1e-5, 1.0), np.random.default_rng(0)
    with pytest.raises(ValueError, match="finite"):
        p.sample(np.array([0.0, np.nan, 1.0, 2.0]), 5, rng=rng)
    with pytest.raises(ValueError, match="s must lie"):
        p.sample(np.zeros(2), 5, rng=rng)
    with pytest.raises(ValueError, match="1-d"):
        p.sample(np.zeros((2, 3)), 5, rng=rng)
    with pytest.raises(ValueError, match="size"):
        p.sample(np.zeros(5), 0, rng=rng)
    with pytest.raises(ValueError, match="rng"):
        p.sample(np.zeros(5), 3, rng=np.random.RandomState(0))


def test_formats_and_selection_rules():
    rng = np.random.default_rng(1)
    v = np.array([0.0, -3000.0, 0.0, 2000.0, 0.0, 1.0])  # |v| ranks 1, 3 far above the rest (b ≈ 20)
    seq = Peeling(3, 1.0, 1e-5, 1.0, output="sequence").sample(v, 500, rng=rng)
    idx = seq[:, :3].astype(int)
    assert np.all(idx[:, 0] == 1) and np.all(idx[:, 1] == 3)
    assert np.all(np.sort(idx, axis=1)[:, 1:] != np.sort(idx, axis=1)[:, :-1])  # distinct: chosen removed
    sp = Peeling(3, 1.0, 1e-5, 1.0).sample(v, 500, rng=rng)
    assert np.all(np.diff(sp[:, :3], axis=1) > 0)  # sorted set
    dense = Peeling(3, 1.0, 1e-5, 1.0, output="dense").sample(v, 500, rng=rng)
    assert dense.shape == (500, 6) and np.all((dense != 0).sum(axis=1) == 3)
    assert np.all(dense[:, 1] != 0) and np.all(dense[:, 3] != 0)
    # argmax over all of [d] (PODS text): a dominant coordinate is chosen every round; the set has one element
    allv = Peeling(3, 1.0, 1e-5, 1.0, argmax="all").sample(np.array([0.0, 0.0, 1e4, 0.0]), 50, rng=rng)
    assert np.all(allv[:, 0] == 2) and np.all(allv[:, 1:3] == -1) and np.all(allv[:, 4:] == 0)
    alls = Peeling(3, 1.0, 1e-5, 1.0, argmax="all", output="sequence").sample(np.array([0.0, 0, 1e4, 0]), 50, rng=rng)
    assert np.all(alls[:, :3] == 2) and np.all(alls[:, 3:] == alls[:, [3]])  # one value per coordinate


def test_reproducible_and_call_matches_sample_shape():
    v = np.linspace(-1, 1, 30)
    p = Peeling(4, 0.8, 1e-6, 0.1)
    a = p.sample(v, 20, rng=np.random.default_rng(5))
    b = p.sample(v, 20, rng=np.random.default_rng(5))
    assert np.array_equal(a, b)
    assert p(v, rng=np.random.default_rng(5)).shape == (8,)


def test_value_noise_is_laplace_of_the_printed_scale():
    """Values of a deterministically selected coordinate: KS test against Lap(v_j, b) at α = 0.001 with
    n = 4000 (detects a scale error of ≈ 10 %); the same test rejects a 1.3× wrong scale (broken-input check)."""
    p = Peeling(1, 1.0, 1e-5, 1.0)
    v = np.array([0.0, 5000.0, 0.0])
    y = p.sample(v, 4000, rng=np.random.default_rng(11))
    assert np.all(y[:, 0] == 1)
    resid = y[:, 1] - 5000.0
    assert stats.kstest(resid, stats.laplace(scale=p.scale).cdf).pvalue > 1e-3
    assert stats.kstest(resid, stats.laplace(scale=1.3 * p.scale).cdf).pvalue < 1e-3


def test_chunking_keeps_releases_independent(monkeypatch):
    """With three rows per chunk, selection frequencies match a one-chunk run (χ² two-sample test, α = 0.001)."""
    v = np.array([0.0, 3.0, 6.0, 9.0, 12.0])
    p = Peeling(2, 1.0, 1e-5, 1.0)  # b ≈ 16.6: all outcomes likely
    one = p.sample(v, 3000, rng=np.random.default_rng(2))
    monkeypatch.setattr(sparse, "_CHUNK_BYTES", 8 * v.size * 3)
    many = p.sample(v, 3000, rng=np.random.default_rng(3))
    key = lambda x: x[:, 0] * 10 + x[:, 1]  # noqa: E731
    cats = np.union1d(key(one), key(many))
    table = np.array([[np.sum(key(x) == c) for c in cats] for x in (one, many)])
    assert stats.chi2_contingency(table).pvalue > 1e-3
    assert len(np.unique(many[:, 2:], axis=0)) == 3000  # fresh value noise in every row
