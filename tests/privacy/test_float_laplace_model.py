"""The benchmark's floating-point model of numpy's Laplace sampler (``Generator.laplace``).

numpy's C code (``random_laplace`` in ``random/src/distributions/distributions.c``) computes
loc − b·log(2 − U − U) or loc + b·log(U + U) with the C library's ``log``.  The model must reproduce every draw
bit for bit, so that a release it calls unreachable at some ``loc`` really cannot occur there (Mironov 2012's
porosity attack rests on it).  numpy's own vectorised ``np.log`` is not the C library's log on every build
(its AVX-512F loop differs in the last bit on about 0.3 % of inputs), so the model must not use it.
"""

import math

import numpy as np
import pytest

from audits.benchmark import samplers as S


def _draws(loc, scale, n, seed):
    return np.random.default_rng(seed).laplace(loc, scale, n)


@pytest.mark.parametrize("loc,scale", [(0.0, 10.0), (1.0, 10.0), (-3.5, 10.0), (2.5, 0.7)])
def test_every_numpy_draw_is_reachable(loc, scale):
    # 4 × 250 000 = 10^6 draws in all.  A single unreachable draw would be a model error (the check is exact).
    y = _draws(loc, scale, 250_000, seed=[17, int(round(loc * 10)) + 100])
    assert np.all(S.float_laplace_reachable(y, loc, scale))


def test_model_reproduces_numpy_bit_for_bit():
    # Same U stream (next_double = rng.random's 53-bit grid): the model's transform gives numpy's draws exactly.
    u = np.random.default_rng(3).random(200_000)
    y = np.random.default_rng(3).laplace(1.0, 10.0, 200_000)
    assert np.array_equal(S._naive_laplace_transform(u, 1.0, 10.0), y)


def _simd_like_log(real_log):
    """np.log as on a build whose SIMD log is off by one ulp on ~0.3 % of inputs (a fixed subset, by bits)."""

    def log(x, *a, **k):
        out = real_log(x, *a, **k)
        bits = np.asarray(x, dtype=float).view(np.uint64)
        bump = (bits % np.uint64(331)) == 0
        return np.where(bump, np.nextafter(out, np.inf), out)

    return log


def test_model_does_not_depend_on_numpys_vectorised_log(monkeypatch):
    # Fails on a model written with np.log: with np.log perturbed like an AVX-512F build's, ~0.3 % of genuine
    # numpy draws become "unreachable".  numpy's sampler itself calls the C library's log and is unaffected.
    y = _draws(0.0, 10.0, 100_000, seed=5)
    u = np.random.default_rng(5).random(100_000)
    monkeypatch.setattr(np, "log", _simd_like_log(np.log))
    monkeypatch.setattr(S, "_C_LOG", None, raising=False)
    assert np.array_equal(S._naive_laplace_transform(u, 0.0, 10.0), y)
    assert np.all(S.float_laplace_reachable(y, 0.0, 10.0))


def test_c_log_is_the_c_librarys_log():
    w = S._calibration_points()
    ref = np.array([math.log(v) for v in w[:5000]])
    assert np.array_equal(S.c_log(w[:5000]), ref)
    assert np.array_equal(
        S._log_reference(np.array([0.0, -1.0, 1.0])), np.array([-np.inf, np.nan, 0.0]), equal_nan=True
    )


def test_reachability_rejects_non_outputs():
    # The checker can say no: numpy draws moved by one ulp are almost never outputs, and draws at loc 0 are
    # mostly not outputs at loc 1 (porosity).
    y = _draws(0.0, 10.0, 20_000, seed=9)
    assert S.float_laplace_reachable(np.nextafter(y, np.inf), 0.0, 10.0).mean() < 0.2
    assert S.float_laplace_reachable(y, 1.0, 10.0).mean() < 0.3
