"""Tests of the data generators -- the generic ones of htdp_verify.datasets and the papers' own ones next to their
estimators (estimators.frappe, estimators.dpem, estimators.hu2022): exact identities (y = X beta + noise,
sparsity, masks), ground truth by designed Monte Carlo checks, reproducibility and validation.

Statistical checks: each is a CLT z-test with the *exact* variance of the summand (derived in the comment next to
it) at alpha = 1e-3, Bonferroni-split across the coordinates it checks; or an exact binomial test at alpha = 1e-3.
Seeds are fixed, so the suite is deterministic.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from estimators import dpem as DPEM
from estimators import frappe as FRAPPE
from estimators import hu2022 as HU
from htdp_verify import datasets as DS
from htdp_verify import distributions as D

ALPHA = 1e-3


def z(alpha: float) -> float:
    return float(stats.norm.isf(alpha / 2))


def rng(seed: int) -> np.random.Generator:
    return np.random.default_rng(seed)


# ----------------------------------------------------------------------------------------------------------------
# linear and sparse regression
# ----------------------------------------------------------------------------------------------------------------
@pytest.mark.montecarlo
def test_linear_regression_identities_and_truth():
    design, noise = D.StudentT(5.0), D.SymmetricPareto(6.5)
    data = DS.linear_regression(50_000, 4, design=design, noise=noise, beta_norm=2.0, rng=rng(1))
    assert data.X.shape == (50_000, 4) and data.y.shape == (50_000,)
    np.testing.assert_allclose(data.y, data.X @ data.beta + data.noise, rtol=0, atol=1e-12)
    assert np.linalg.norm(data.truth) == pytest.approx(2.0, rel=1e-12)
    assert data.data.shape == (50_000, 5)
    # beta is the population least-squares minimiser iff E[x_j e] = 0. x_j e has mean 0 and exact variance
    # E x_j^2 E e^2 (independence); z-test per coordinate at alpha/d.
    sd = math.sqrt(design.moment(2.0) * noise.moment(2.0))
    score = (data.X * data.noise[:, None]).mean(axis=0)
    assert np.all(np.abs(score) <= z(ALPHA / 4) * sd / math.sqrt(data.n))


def test_linear_regression_multivariate_design_and_given_beta():
    law = D.MultivariateT(6.0, shape=np.eye(3))
    beta = np.array([1.0, -2.0, 0.5])
    data = DS.linear_regression(100, 3, beta=beta, design=law, noise=D.Cauchy(), rng=rng(2))
    np.testing.assert_array_equal(data.beta, beta)
    assert data.X.shape == (100, 3)
    with pytest.raises(ValueError, match="design"):
        DS.linear_regression(10, 4, design=law, rng=rng(0))
    with pytest.raises(ValueError, match="beta"):
        DS.linear_regression(10, 4, beta=np.ones(3), rng=rng(0))


@pytest.mark.montecarlo
def test_ols_recovers_beta_with_light_noise():
    """Sanity of the truth: OLS error is N(0, sigma^2 (X^T X)^{-1}) given X; standardised z-test at alpha/d."""
    data = DS.linear_regression(5000, 3, noise=D.Normal(0.0, 0.5), rng=rng(3))
    bhat = np.linalg.lstsq(data.X, data.y, rcond=None)[0]
    cov = 0.25 * np.linalg.inv(data.X.T @ data.X)
    assert np.all(np.abs(bhat - data.beta) <= z(ALPHA / 3) * np.sqrt(np.diag(cov)))


@pytest.mark.parametrize("values", ["gaussian", "constant", "ramp"])
@pytest.mark.parametrize("support", ["random", "first"])
@pytest.mark.parametrize("signs", ["random", "positive"])
def test_sparse_regression_structure(values, support, signs):
    data = DS.sparse_regression(200, 30, 5, values=values, support=support, signs=signs, norm=1.5, rng=rng(4))
    beta = data.beta
    assert np.count_nonzero(beta) == 5
    np.testing.assert_array_equal(np.flatnonzero(beta), data.support)
    if support == "first":
        np.testing.assert_array_equal(data.support, np.arange(5))
    if signs == "positive":
        assert np.all(beta[data.support] > 0)
    if values == "ramp":
        np.testing.assert_allclose(np.abs(beta[data.support]), (10 / 5) * np.arange(1, 6))
    else:
        assert np.linalg.norm(beta) == pytest.approx(1.5, rel=1e-12)
    np.testing.assert_allclose(data.y, data.X @ beta + data.noise, atol=1e-12)


@pytest.mark.montecarlo
def test_sparse_support_is_uniform():
    """Each coordinate is in a random s-support with probability s/d: exact binomial test over 400 draws (alpha/d)."""
    d, s, reps = 10, 3, 400
    counts = np.zeros(d, dtype=int)
    g = rng(5)
    for _ in range(reps):
        _, supp = DS.sparse_vector(d, s, rng=g)
        counts[supp] += 1
    for c in counts:
        assert stats.binomtest(int(c), reps, s / d).pvalue >= ALPHA / d


@pytest.mark.montecarlo
def test_random_signs_are_balanced():
    g = rng(6)
    signs = np.concatenate([np.sign(DS.sparse_vector(50, 20, rng=g)[0]) for _ in range(50)])
    signs = signs[signs != 0]
    assert stats.binomtest(int(np.sum(signs > 0)), signs.size, 0.5).pvalue >= ALPHA


# ----------------------------------------------------------------------------------------------------------------
# LAD / FRAPPE
# ----------------------------------------------------------------------------------------------------------------
F0 = {
    "normal": 1 / math.sqrt(2 * math.pi),
    "t2": 1 / (2 * math.sqrt(2)),
    "cauchy": 1 / math.pi,
    "contaminated": 0.9 / math.sqrt(2 * math.pi) + 0.1 / (100 * math.sqrt(2 * math.pi)),
}


@pytest.mark.montecarlo
@pytest.mark.parametrize("noise", sorted(F0))
def test_lad_regression_frappe_settings(noise):
    n, d, s = 20_000, 6, 3
    data = FRAPPE.lad_regression(n, d, s, noise=noise, rng=rng(7))
    np.testing.assert_allclose(data.beta[:s], (10 / s) * np.arange(1, s + 1))
    assert np.all(data.beta[s:] == 0)
    np.testing.assert_allclose(data.covariance, 0.1 ** np.abs(np.subtract.outer(np.arange(d), np.arange(d))))
    assert data.info["f0"] == pytest.approx(F0[noise], rel=1e-10)
    np.testing.assert_allclose(data.y, data.X @ data.beta + data.noise, atol=1e-9)
    # LAD truth: the noise has median 0 -> #(e > 0) ~ Bin(n, 1/2) exactly
    assert stats.binomtest(int(np.sum(data.noise > 0)), n, 0.5).pvalue >= ALPHA / 2
    # design covariance: hat Sigma_jk - Sigma_jk has exact variance (Sigma_jj Sigma_kk + Sigma_jk^2)/n (Gaussian x)
    S = data.covariance
    emp = data.X.T @ data.X / n
    sd = np.sqrt((np.outer(np.diag(S), np.diag(S)) + S**2) / n)
    m = d * (d + 1) // 2
    assert np.all(np.abs(emp - S) <= z(ALPHA / (2 * m)) * sd)


def test_lad_regression_rejects_noise_without_zero_median():
    with pytest.raises(ValueError, match="median"):
        FRAPPE.lad_regression(10, 3, 1, noise=D.Lomax(3.0), rng=rng(0))
    with pytest.raises(ValueError, match="noise"):
        FRAPPE.lad_regression(10, 3, 1, noise="laplace", rng=rng(0))
    data = FRAPPE.lad_regression(10, 3, 1, noise=D.StudentT(1.5, 0.0, 3.0), rng=rng(0))
    assert data.info["f0"] == pytest.approx(D.StudentT(1.5, 0.0, 3.0).pdf(0.0))


# ----------------------------------------------------------------------------------------------------------------
# DP-EM models
# ----------------------------------------------------------------------------------------------------------------
@pytest.mark.montecarlo
def test_gaussian_mixture_truth():
    n, d, sigma = 40_000, 4, 1.5
    data = DPEM.gaussian_mixture(n, d, snr=3.0, sigma=sigma, rng=rng(8))
    assert np.linalg.norm(data.beta) / sigma == pytest.approx(3.0, rel=1e-12)
    assert set(np.unique(data.Z)) == {-1.0, 1.0}
    assert stats.binomtest(int(np.sum(data.Z > 0)), n, 0.5).pvalue >= ALPHA / 3
    noise = data.Y - data.Z[:, None] * data.beta
    # Z y = beta + Z V: mean beta, exact per-coordinate variance sigma^2
    assert np.all(np.abs((data.Z[:, None] * data.Y).mean(0) - data.beta) <= z(ALPHA / (3 * d)) * sigma / math.sqrt(n))
    # noise variance: mean of V_j^2 has exact variance 2 sigma^4 / n
    assert np.all(np.abs((noise**2).mean(0) - sigma**2) <= z(ALPHA / (3 * d)) * math.sqrt(2) * sigma**2 / math.sqrt(n))
    assert data.sign_invariant_error(-data.beta) == 0.0
    assert data.data.shape == (n, d)


@pytest.mark.montecarlo
def test_mixture_of_regressions_truth():
    n, d, sigma = 40_000, 3, 1.0
    data = DPEM.mixture_of_regressions(n, d, snr=3.0, sigma=sigma, rng=rng(9))
    b = data.beta
    s2 = b @ b + sigma**2
    # y ~ N(0, ||beta||^2 + sigma^2) exactly, so mean(y^2) has variance 2 s2^2 / n
    assert abs(np.mean(data.y**2) - s2) <= z(ALPHA / (d + 1)) * math.sqrt(2) * s2 / math.sqrt(n)
    # Z y x_j = <beta,x> x_j + Z V x_j: mean beta_j, exact variance ||beta||^2 + beta_j^2 + sigma^2
    est = (data.Z * data.y) @ data.X / n
    sd = np.sqrt(b @ b + b**2 + sigma**2)
    assert np.all(np.abs(est - b) <= z(ALPHA / (d + 1)) * sd / math.sqrt(n))
    assert data.data.shape == (n, d + 1)


@pytest.mark.montecarlo
def test_missing_covariates_truth():
    n, d, p = 30_000, 5, 0.2
    data = DPEM.missing_covariates(n, d, snr=2.0, sigma=1.0, p_missing=p, rng=rng(10))
    np.testing.assert_array_equal(data.X_obs, np.where(data.mask, data.X_full, 0.0))
    observed = int(data.mask.sum())
    assert stats.binomtest(observed, n * d, 1 - p).pvalue >= ALPHA / 2
    resid = data.y - data.X_full @ data.beta
    # residual ~ N(0, sigma^2): mean(r^2) has exact variance 2 sigma^4 / n
    assert abs(np.mean(resid**2) - 1.0) <= z(ALPHA / 2) * math.sqrt(2 / n)
    assert data.data.shape == (n, 2 * d + 1)
    assert DPEM.missing_covariates(10, 2, p_missing=0.0, rng=rng(0)).mask.all()
    with pytest.raises(ValueError, match="p_missing"):
        DPEM.missing_covariates(10, 2, p_missing=1.0, rng=rng(0))


# ----------------------------------------------------------------------------------------------------------------
# bounded-moment gradients
# ----------------------------------------------------------------------------------------------------------------
@pytest.mark.montecarlo
def test_bounded_gradient_regression_tau_exact_and_mc():
    k, tau, n, d = 2.0, 3.0, 200_000, 3
    data = HU.bounded_gradient_regression(
        n, d, k=k, tau=tau, design=D.StudentT(7.0), noise=D.LogNormal(0.0, 0.5), rng=rng(11)
    )
    assert data.design_law.moment(k) * data.noise_law.moment(k) == pytest.approx(tau, rel=1e-10)
    grad = data.X * (data.X @ data.beta - data.y)[:, None]  # gradient of 0.5 (<w, x> - y)^2 at w = beta
    stat = np.mean(np.abs(grad) ** k, axis=0)
    # |x_j e|^k has exact variance E|x|^{2k} E|e|^{2k} - tau^2 (independence); 2k = 4 < 7
    var = data.design_law.moment(2 * k) * data.noise_law.moment(2 * k) - tau**2
    tol = z(ALPHA / d) * math.sqrt(var / n)
    assert tol < 0.05 * tau
    assert np.all(np.abs(stat - tau) <= tol)


@pytest.mark.montecarlo
def test_bounded_gradient_mean_tau_exact_and_mc():
    k, tau, n, d = 2.0, 0.5, 200_000, 3
    data = HU.bounded_gradient_mean(n, d, k=k, tau=tau, law=D.Lomax(9.0), rng=rng(12))
    assert data.coordinate_law.moment(k, central=True) == pytest.approx(tau, rel=1e-10)
    np.testing.assert_allclose(data.mu, np.full(d, 1 / d))
    xi = data.Z - data.mu
    var = data.coordinate_law.moment(2 * k, central=True) - tau**2
    tol = z(ALPHA / (2 * d)) * math.sqrt(var / n)
    assert tol < 0.05 * tau
    assert np.all(np.abs(np.mean(np.abs(xi) ** k, axis=0) - tau) <= tol)
    # the minimiser of E 0.5||w - z||^2 is mu: mean of xi_j is 0 with variance tau / n
    assert np.all(np.abs(xi.mean(0)) <= z(ALPHA / (2 * d)) * math.sqrt(tau / n))


def test_bounded_gradient_validation():
    with pytest.raises(ValueError, match="k"):
        HU.bounded_gradient_regression(10, 2, k=3.0, design=D.StudentT(3.0), rng=rng(0))
    with pytest.raises(ValueError, match="tau"):
        HU.bounded_gradient_mean(10, 2, tau=0.0, rng=rng(0))
    with pytest.raises(ValueError, match="k"):
        HU.bounded_gradient_mean(10, 2, k=2.0, law=D.Cauchy(), rng=rng(0))


# ----------------------------------------------------------------------------------------------------------------
# reproducibility and validation
# ----------------------------------------------------------------------------------------------------------------
GENERATORS = [
    lambda g: DS.linear_regression(30, 3, design=D.LogNormal(0, 0.6), noise=D.Normal(0, 0.1), rng=g).data,
    lambda g: DS.sparse_regression(30, 8, 2, rng=g).data,
    lambda g: FRAPPE.lad_regression(30, 5, 2, noise="cauchy", rng=g).data,
    lambda g: DPEM.gaussian_mixture(30, 3, rng=g).data,
    lambda g: DPEM.mixture_of_regressions(30, 3, rng=g).data,
    lambda g: DPEM.missing_covariates(30, 3, rng=g).data,
    lambda g: HU.bounded_gradient_regression(30, 3, rng=g).data,
    lambda g: HU.bounded_gradient_mean(30, 3, rng=g).data,
]


@pytest.mark.parametrize("gen", GENERATORS)
def test_generators_reproducible(gen):
    np.testing.assert_array_equal(gen(rng(1)), gen(rng(1)))
    assert not np.array_equal(gen(rng(1)), gen(rng(2)))


@pytest.mark.parametrize(
    "call,param",
    [
        (lambda: DS.linear_regression(0, 3, rng=rng(0)), "n"),
        (lambda: DS.linear_regression(5, 0, rng=rng(0)), "d"),
        (lambda: DS.linear_regression(5, 2, rng=None), "rng"),
        (lambda: DS.linear_regression(5, 2, noise="cauchy", rng=rng(0)), "noise"),
        (lambda: DS.sparse_regression(5, 3, 4, rng=rng(0)), "s"),
        (lambda: DS.sparse_regression(5, 3, 2, values="ones", rng=rng(0)), "values"),
        (lambda: DS.sparse_regression(5, 3, 2, support="last", rng=rng(0)), "support"),
        (lambda: DS.sparse_regression(5, 3, 2, signs="negative", rng=rng(0)), "signs"),
        (lambda: FRAPPE.lad_regression(5, 3, 1, rho=1.0, rng=rng(0)), "rho"),
        (lambda: DPEM.gaussian_mixture(5, 3, sigma=0.0, rng=rng(0)), "sigma"),
        (lambda: DPEM.gaussian_mixture(5, 3, snr=-1.0, rng=rng(0)), "snr"),
        (lambda: DPEM.mixture_of_regressions(5, 3, beta=[1.0], rng=rng(0)), "beta"),
    ],
)
def test_invalid_arguments(call, param):
    with pytest.raises(ValueError, match=param):
        call()
