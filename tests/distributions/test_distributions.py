"""Tests of htdp_verify.distributions: exact moments vs Monte Carlo, tail indices, reproducibility, validation.

Design of the statistical checks (all seeds fixed, so the suite is deterministic; alpha is the probability that a
*correct* implementation fails a check over the choice of seed):

* Moments (univariate and multivariate): for a moment order k with 3k < tail_index (so |X - c|^k has a finite third
  moment and the Berry-Esseen bound makes the normal approximation accurate), the sample mean of |X - c|^k over
  n = 200,000 i.i.d. draws has exact variance E|X - c|^{2k} - (E|X - c|^k)^2 (from the law itself). The check accepts
  when |mean - stated| <= z_{1 - a/2} * sd / sqrt(n), with the per-law alpha = 1e-3 split (Bonferroni) over the law's
  checks. Each check also asserts its own power: the tolerance is below MAX_REL_TOL = 5% of the stated value, so a
  formula wrong by 5% or more is detected.
* Spike laws: the sample moment is a monotone function of the atom count N ~ Binomial(n, p); the acceptance interval is
  the exact binomial (alpha/2, 1 - alpha/2) quantile range mapped through that function (alpha = 1e-3).
* Tails, three ways:
  1. deterministic: the log-log slope of the stated survival function far out (x = 1e6..1e7 scales) equals
     -tail_index within 1e-3 (relative); for tail_index = inf, the implied local index grows without bound;
  2. Hill estimator: with t the (k+1)-th largest of n = 1e6 draws and k = 2000, the k exceedances are i.i.d. from the
     law conditioned on X > t, so gamma_hat = mean log(X/t) has exact conditional mean m(t) = int_0^inf S(t e^u)/S(t) du
     and variance v(t) from the stated sf; accept |gamma_hat - m(t)| <= z_{1 - alpha/2} sqrt(v(t)/k), alpha = 1e-3.
     The index estimate 1/gamma_hat therefore matches the index implied at that threshold, 1/m(t), and 1/m(t) -> tail
     index as t grows (checked deterministically at t = 1e8 scales within 1%), which separates the Hill estimator's
     known finite-threshold bias from an error in the law;
  3. exceedance counts at the sf levels 1e-2, 1e-3, 1e-4 with n = 1e6: exact binomial test, alpha = 1e-3 per law
     (Bonferroni over the 3 levels).
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import integrate, optimize, stats

from htdp_verify import distributions as D
from htdp_verify import strategies as S

ALPHA = 1e-3
MAX_REL_TOL = 0.05
N_MOMENT = 200_000
N_TAIL = 1_000_000
K_HILL = 2000


def z(alpha: float) -> float:
    return float(stats.norm.isf(alpha / 2))


# ----------------------------------------------------------------------------------------------------------------
# laws under test: (id, law, moment orders, seed). Every order satisfies 3k < tail_index.
# ----------------------------------------------------------------------------------------------------------------
UNIVARIATE = [
    ("normal", D.Normal(1.0, 2.0), (1.0, 2.5), 11),
    ("student_t_nu9_shifted", D.StudentT(9.0, 1.0, 2.0), (1.0, 2.5), 12),
    ("student_t_nu5", D.StudentT(5.0), (1.0, 1.5), 13),
    ("student_t_nu1.5", D.StudentT(1.5), (0.4,), 14),
    ("cauchy_shifted", D.Cauchy(1.0, 2.0), (0.3,), 15),
    ("pareto", D.Pareto(5.0, 2.0), (1.0, 1.5), 16),
    ("lomax", D.Lomax(7.0, 2.0), (1.0, 2.0), 17),
    ("symmetric_lomax", D.SymmetricPareto(6.5, 1.5), (1.0, 2.0), 18),
    ("symmetric_pareto", D.SymmetricPareto(6.5, 1.5, base="pareto"), (1.0, 2.0), 19),
    ("lognormal", D.LogNormal(0.2, 0.6), (1.0, 2.0), 20),
    ("burr_xii", D.BurrXII(2.0, 4.0, 1.5), (1.0, 2.5), 21),
    ("huber_contamination", D.Contamination(D.Normal(0.0, 1.0), 0.05, D.StudentT(5.0, 3.0)), (1.0, 1.5), 22),
    (
        "mixture_with_atom",
        D.Mixture([D.Lomax(7.0), D.Normal(-1.0, 0.5), D.Spike(0.2, 4.0)], [0.3, 0.5, 0.2]),
        (1.0, 2.0),
        23,
    ),
    ("rescaled_t7_tau4", D.rescale_to_moment(D.StudentT(7.0), 2.0, 4.0), (1.0, 2.0), 24),
]

# continuous laws with a power tail: (id, law, seed)
POWER_TAILS = [
    ("student_t_nu5", D.StudentT(5.0, 1.0, 2.0), 31),
    ("student_t_nu1.5", D.StudentT(1.5), 32),
    ("cauchy", D.Cauchy(1.0, 2.0), 33),
    ("pareto", D.Pareto(5.0, 2.0), 34),
    ("lomax_alpha6", D.Lomax(6.0, 2.0), 35),
    ("lomax_alpha3", D.Lomax(3.0), 36),
    ("symmetric_lomax", D.SymmetricPareto(4.5, 1.5), 37),
    ("symmetric_pareto", D.SymmetricPareto(4.5, 1.5, base="pareto"), 38),
    ("burr_xii", D.BurrXII(2.0, 3.0, 1.5), 39),
    ("huber_contamination", D.Contamination(D.Normal(0.0, 1.0), 0.05, D.StudentT(5.0, 3.0)), 40),
    ("mixture", D.Mixture([D.Lomax(7.0), D.Normal(-1.0, 0.5), D.BurrXII(3.0, 1.5)], [0.3, 0.5, 0.2]), 41),
    ("rescaled_t6", D.rescale_to_moment(D.StudentT(6.0), 2.0, 4.0), 42),
]
LIGHT_TAILS = [
    ("normal", D.Normal(1.0, 2.0), 51),
    ("lognormal", D.LogNormal(0.2, 0.6), 52),
]


def _mc_moment_check(x, law, k, central, alpha):
    """Return (stat, stated, tol): sample mean of |x - c|^k and its CLT acceptance half-width at level alpha."""
    c = law.mean if central else 0.0
    stated = law.moment(k, central=central)
    second = law.abs_moment_about(2 * k, c)
    var = second - stated**2
    assert var > 0
    tol = z(alpha) * math.sqrt(var / x.size)
    return float(np.mean(np.abs(x - c) ** k)), float(stated), tol


@pytest.mark.montecarlo
@pytest.mark.parametrize("name,law,orders,seed", UNIVARIATE, ids=[c[0] for c in UNIVARIATE])
def test_univariate_moments_match_monte_carlo(name, law, orders, seed):
    x = law.sample(N_MOMENT, rng=np.random.default_rng(seed))
    checks = [(k, central) for k in orders for central in (False, True) if not (central and law.tail_index <= 1)]
    alpha = ALPHA / (len(checks) + 1)  # + the mean
    for k, central in checks:
        assert 3 * k < law.tail_index
        stat, stated, tol = _mc_moment_check(x, law, k, central, alpha)
        assert tol < MAX_REL_TOL * stated, f"design: tolerance {tol} too wide to detect a 5% error in {stated}"
        assert abs(stat - stated) <= tol, f"{name}: k={k} central={central}: MC {stat} vs stated {stated} (tol {tol})"
    if law.tail_index > 2:
        sd = math.sqrt(law.moment(2.0, central=True))
        assert abs(np.mean(x) - law.mean) <= z(alpha) * sd / math.sqrt(x.size)


@pytest.mark.montecarlo
def test_spike_moments_exact_binomial():
    """Spike with E X^2 = 5 at p = 0.01: sample moments are functions of the atom count N ~ Bin(n, p)."""
    n, p = N_MOMENT, 0.01
    for central in (False, True):
        law = D.Spike.with_moment(2.0, 5.0, p, central=central)
        assert law.moment(2.0, central=central) == pytest.approx(5.0, rel=1e-12)
        x = law.sample(n, rng=np.random.default_rng(61 + central))
        lo, hi = stats.binom.ppf(ALPHA / 4, n, p), stats.binom.isf(ALPHA / 4, n, p)  # alpha/2 split over 2 laws
        count = int(np.count_nonzero(x))
        assert lo <= count <= hi
        for k in (1.0, 2.0, 3.0):
            c = law.mean if central else 0.0
            f = lambda m: ((n - m) * abs(c) ** k + m * abs(law.a - c) ** k) / n  # noqa: E731 - mean of |X-c|^k given N=m
            stat = float(np.mean(np.abs(x - c) ** k))
            assert stat == pytest.approx(f(count), rel=1e-9)
            bounds = sorted((f(lo), f(hi)))
            assert bounds[0] <= stat <= bounds[1]
            assert bounds[0] <= law.moment(k, central=central) <= bounds[1]
            # power: the acceptance interval is narrower than +-10% of the stated moment
            assert bounds[1] - bounds[0] < 0.2 * law.moment(k, central=central)


def test_spike_formulas_by_enumeration():
    law = D.Spike(0.3, -2.5)
    for k in (0.5, 1.0, 2.0, 3.7):
        assert law.moment(k) == pytest.approx(0.3 * 2.5**k, rel=1e-14)
        m = law.mean
        assert law.moment(k, central=True) == pytest.approx(0.7 * abs(m) ** k + 0.3 * abs(-2.5 - m) ** k, rel=1e-12)
    assert law.sf(-3.0) == 1.0 and law.sf(-1.0) == pytest.approx(0.7) and law.sf(0.0) == 0.0


# ----------------------------------------------------------------------------------------------------------------
# multivariate laws
# ----------------------------------------------------------------------------------------------------------------
SHAPE = np.array([[2.0, 0.6, 0.0], [0.6, 1.0, 0.3], [0.0, 0.3, 0.5]])


def _mc_check(values, stated, second, alpha, label):
    var = second - stated**2
    tol = z(alpha) * math.sqrt(var / values.size)
    assert tol < MAX_REL_TOL * stated, f"design: {label} tolerance too wide"
    assert abs(values.mean() - stated) <= tol, f"{label}: MC {values.mean()} vs stated {stated} (tol {tol})"


@pytest.mark.montecarlo
def test_multivariate_t_directional_and_coordinate_moments():
    law = D.MultivariateT(9.0, loc=[1.0, -1.0, 0.5], shape=SHAPE)
    x = law.sample(N_MOMENT, rng=np.random.default_rng(71))
    assert x.shape == (N_MOMENT, 3)
    u = law.top_direction()
    proj = np.abs((x - law.mean) @ u)
    alpha = ALPHA / 5
    for k in (1.0, 2.0, 2.5):
        # the top eigenvector attains the sup, and the same u attains it for order 2k
        _mc_check(proj**k, law.directional_moment(k), law.directional_moment(2 * k), alpha, f"directional k={k}")
    # coordinate 0, raw moment of order 2 (loc != 0: quadrature) and the k = 2 norm-moment formula with loc != 0
    _mc_check(np.abs(x[:, 0]) ** 2, law.moment(2.0)[0], law.marginal(0).moment(4.0), alpha, "coordinate raw k=2")
    sq = np.sum(x**2, axis=1)
    # E||X||^4 has no closed form here: studentised CLT (finite 4th moment of ||X||^2 since nu = 9 > 8)
    tol = z(alpha) * sq.std(ddof=1) / math.sqrt(sq.size)
    assert abs(sq.mean() - law.norm_moment(2.0)) <= tol
    # sup over u: no direction exceeds the stated directional moment (Rayleigh quotient), random directions
    dirs = np.random.default_rng(72).standard_normal((50, 3))
    dirs /= np.linalg.norm(dirs, axis=1, keepdims=True)
    vals = np.einsum("ij,jk,ik->i", dirs, SHAPE, dirs) * D.abs_t_moment(2.0, 9.0)
    assert np.all(vals <= law.directional_moment(2.0) * (1 + 1e-12))


@pytest.mark.montecarlo
def test_multivariate_t_isotropic_norm_moment():
    law = D.MultivariateT(9.0, shape=2.0, d=3)
    x = law.sample(N_MOMENT, rng=np.random.default_rng(73))
    r = np.linalg.norm(x, axis=1)
    for k in (1.0, 2.0, 2.5):
        _mc_check(r**k, law.norm_moment(k), law.norm_moment(2 * k), ALPHA / 3, f"norm k={k}")


@pytest.mark.montecarlo
def test_radial_pareto_moments():
    law = D.RadialPareto(4, 7.0, 2.0)
    x = law.sample(N_MOMENT, rng=np.random.default_rng(74))
    u = np.random.default_rng(75).standard_normal(4)
    u /= np.linalg.norm(u)
    r = np.linalg.norm(x, axis=1)
    alpha = ALPHA / 6
    for k in (1.0, 2.0):
        _mc_check(np.abs(x @ u) ** k, law.directional_moment(k), law.directional_moment(2 * k), alpha, f"dir k={k}")
        _mc_check(np.abs(x[:, 2]) ** k, law.moment(k)[2], law.moment(2 * k)[2], alpha, f"coord k={k}")
        _mc_check(r**k, law.norm_moment(k), law.norm_moment(2 * k), alpha, f"norm k={k}")
    assert np.allclose(r.min(), 2.0, rtol=0.01) and r.min() >= 2.0


def test_sphere_coordinate_moment_closed_forms():
    # E U_1^2 = 1/d, E U_1^4 = 3/(d(d+2)); d = 1 gives 1
    for d in (1, 2, 3, 7):
        assert D.sphere_coordinate_moment(2.0, d) == pytest.approx(1 / d, rel=1e-12)
        assert D.sphere_coordinate_moment(4.0, d) == pytest.approx(3 / (d * (d + 2)), rel=1e-12)


# ----------------------------------------------------------------------------------------------------------------
# closed forms cross-checked against scipy.stats and against quadrature
# ----------------------------------------------------------------------------------------------------------------
SCIPY_TWINS = [
    (D.Normal(1.0, 2.0), stats.norm(1.0, 2.0)),
    (D.StudentT(7.0, -1.0, 3.0), stats.t(7.0, -1.0, 3.0)),
    (D.Pareto(5.0, 2.0), stats.pareto(5.0, scale=2.0)),
    (D.Lomax(6.0, 2.0), stats.lomax(6.0, scale=2.0)),
    (D.LogNormal(0.2, 0.6), stats.lognorm(0.6, scale=math.exp(0.2))),
    (D.BurrXII(2.0, 3.0, 1.5), stats.burr12(2.0, 3.0, scale=1.5)),
]


@pytest.mark.parametrize("law,twin", SCIPY_TWINS, ids=[repr(t[0]) for t in SCIPY_TWINS])
def test_closed_forms_agree_with_scipy(law, twin):
    assert law.mean == pytest.approx(twin.mean(), rel=1e-10)
    assert law.moment(2.0) == pytest.approx(twin.moment(2), rel=1e-10)
    assert law.moment(2.0, central=True) == pytest.approx(twin.var(), rel=1e-8)
    for k in (0.5, 1.5, 2.5):
        expected = twin.expect(lambda v: abs(v) ** k, epsabs=0, epsrel=1e-10, limit=400)
        assert law.moment(k) == pytest.approx(expected, rel=1e-6)
    xs = np.array([0.5, 1.0, 3.0, 10.0])
    assert np.allclose(law.sf(xs), twin.sf(xs), rtol=1e-12, atol=0)


@pytest.mark.parametrize(
    "law",
    [
        D.StudentT(5.0),
        D.Cauchy(0.0, 2.0),
        D.Lomax(6.0, 2.0),
        D.Pareto(5.0, 2.0),
        D.SymmetricPareto(4.5, 1.5),
        D.SymmetricPareto(4.5, 1.5, "pareto"),
        D.LogNormal(0.2, 0.6),
        D.BurrXII(2.0, 3.0, 1.5),
        D.Normal(0.0, 2.0),
    ],
    ids=repr,
)
def test_closed_form_raw_moment_equals_quadrature(law):
    for k in (0.3, 0.9, min(2.5, law.tail_index / 2)):
        assert law.moment(k) == pytest.approx(D.Law.abs_moment_about(law, k, 0.0), rel=1e-7)


def test_cauchy_moment_formula():
    for k in (0.1, 0.5, 0.9):
        assert D.Cauchy(0.0, 3.0).moment(k) == pytest.approx(3.0**k / math.cos(math.pi * k / 2), rel=1e-12)
        assert D.StudentT(1.0, 0.0, 3.0).moment(k) == pytest.approx(3.0**k / math.cos(math.pi * k / 2), rel=1e-10)


def test_even_central_moments_by_binomial_expansion():
    """Central moments of asymmetric laws (quadrature) vs exact binomial expansions of raw moments for k = 2, 4."""
    for law in (D.Lomax(9.0, 2.0), D.Pareto(9.0, 1.5), D.LogNormal(0.1, 0.5), D.BurrXII(3.0, 4.0, 2.0)):
        m = law.mean
        raw = {j: law.moment(float(j)) if j else 1.0 for j in range(5)}  # X >= 0: E|X|^j = E X^j
        for k in (2, 4):
            exact = sum(math.comb(k, j) * raw[j] * (-m) ** (k - j) for j in range(k + 1))
            assert law.moment(float(k), central=True) == pytest.approx(exact, rel=1e-7)


def test_normal_raw_moment_kummer_formula():
    law = D.Normal(1.5, 0.7)
    for k in (0.5, 1.0, 3.3):
        assert law.moment(k) == pytest.approx(D.Law.abs_moment_about(law, k, 0.0), rel=1e-8)
    assert law.moment(2.0) == pytest.approx(1.5**2 + 0.7**2, rel=1e-12)


# ----------------------------------------------------------------------------------------------------------------
# tails
# ----------------------------------------------------------------------------------------------------------------
def _sf_scalar(law, x: float) -> float:
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return float(law.sf(x))


def _conditional_log_excess(sf, t):
    """Exact mean and variance of log(X/t) given X > t, from the survival function."""
    s0 = sf(t)
    g = lambda u: sf(t * math.exp(min(u, 700.0))) / s0  # noqa: E731
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", integrate.IntegrationWarning)
        m = integrate.quad(g, 0, np.inf, limit=400, epsabs=0, epsrel=1e-10)[0]
        m2 = integrate.quad(lambda u: 2 * u * g(u), 0, np.inf, limit=400, epsabs=0, epsrel=1e-10)[0]
    return m, m2 - m * m


def _log_slope(sf, x, factor=10.0):
    return (math.log(sf(x * factor)) - math.log(sf(x))) / math.log(factor)


def _hill_check(values, sf, seed_label):
    n = values.size
    top = np.partition(values, n - K_HILL - 1)[n - K_HILL - 1 :]
    t = float(top[0])
    assert t > 0
    gamma_hat = float(np.mean(np.log(top[1:] / t)))
    m, v = _conditional_log_excess(sf, t)
    tol = z(ALPHA) * math.sqrt(v / K_HILL)
    assert tol < 0.1 * m, "design: Hill tolerance must be below 10% of the conditional mean"
    assert abs(gamma_hat - m) <= tol, f"{seed_label}: Hill gamma {gamma_hat} vs exact conditional {m} (tol {tol})"
    return 1 / gamma_hat, 1 / m


@pytest.mark.montecarlo
@pytest.mark.parametrize("name,law,seed", POWER_TAILS, ids=[c[0] for c in POWER_TAILS])
def test_power_tail_index(name, law, seed):
    sf = lambda x: _sf_scalar(law, x)  # noqa: E731
    ti = law.tail_index
    # 1. the stated survival function has index tail_index far out
    for x in (1e6, 1e7):
        assert _log_slope(sf, x) == pytest.approx(-ti, rel=1e-3)
    m_far, _ = _conditional_log_excess(sf, 1e8)
    assert 1 / m_far == pytest.approx(ti, rel=1e-2)
    # 2. Hill estimator on 1e6 draws agrees with the exact conditional law above the empirical threshold
    x = law.sample(N_TAIL, rng=np.random.default_rng(seed))
    _hill_check(x, sf, name)


@pytest.mark.montecarlo
@pytest.mark.parametrize("name,law,seed", LIGHT_TAILS, ids=[c[0] for c in LIGHT_TAILS])
def test_light_tail_index_is_infinite(name, law, seed):
    sf = lambda x: _sf_scalar(law, x)  # noqa: E731
    assert law.tail_index == np.inf
    # the local index 1/m(t) implied by the sf grows without bound (faster than any power law)
    ts = [_quantile(sf, q) for q in (1e-10, 1e-100, 1e-300)]
    local = [1 / _conditional_log_excess(sf, t)[0] for t in ts]
    assert local[0] < local[1] < local[2] and local[2] > 2 * local[0]
    x = law.sample(N_TAIL, rng=np.random.default_rng(seed))
    _hill_check(x, sf, name)


def _quantile(sf, q, lo=-1e3, hi=10.0):
    """The x with sf(x) = q, by bracketing and Brent's method on log sf."""
    while sf(hi) > q:
        hi *= 2
    f = lambda v: math.log(max(sf(v), 1e-323)) - math.log(q)  # noqa: E731
    return optimize.brentq(f, lo, hi, xtol=1e-13, rtol=1e-13)


@pytest.mark.montecarlo
@pytest.mark.parametrize("name,law,seed", POWER_TAILS + LIGHT_TAILS, ids=[c[0] for c in POWER_TAILS + LIGHT_TAILS])
def test_exceedance_counts_match_sf(name, law, seed):
    sf = lambda x: _sf_scalar(law, x)  # noqa: E731
    x = law.sample(N_TAIL, rng=np.random.default_rng(seed + 1000))
    for q in (1e-2, 1e-3, 1e-4):
        t = _quantile(sf, q)
        count = int(np.count_nonzero(x > t))
        p_value = stats.binomtest(count, x.size, sf(t)).pvalue
        assert p_value >= ALPHA / 3, f"{name}: {count} exceedances of {t} vs expected {x.size * sf(t)}"


@pytest.mark.parametrize(
    "law,seed",
    [(D.RadialPareto(3, 4.0, 1.5), 81), (D.MultivariateT(5.0, shape=2.0, d=3), 82)],
    ids=["radial_pareto", "mvt"],
)
@pytest.mark.montecarlo
def test_multivariate_norm_tail_index(law, seed):
    sf = lambda r: float(law.norm_sf(r))  # noqa: E731
    for r in (1e6, 1e7):
        assert _log_slope(sf, r) == pytest.approx(-law.tail_index, rel=1e-3)
    norms = np.linalg.norm(law.sample(N_TAIL, rng=np.random.default_rng(seed)), axis=1)
    _hill_check(norms, sf, repr(law))


# ----------------------------------------------------------------------------------------------------------------
# reproducibility and the RNG contract
# ----------------------------------------------------------------------------------------------------------------
ALL_LAWS = [c[1] for c in UNIVARIATE] + [
    D.Spike(0.3, 2.0),
    D.MultivariateT(4.0, shape=SHAPE),
    D.RadialPareto(3, 2.5),
    D.Mixture([D.RadialPareto(3, 2.5), D.MultivariateT(4.0, d=3)], [0.5, 0.5]),
]


@pytest.mark.parametrize("law", ALL_LAWS, ids=repr)
def test_sampler_reproducible_from_rng(law):
    a = law.sample(1000, rng=np.random.default_rng(2024))
    b = law.sample(1000, rng=np.random.default_rng(2024))
    c = law.sample(1000, rng=np.random.default_rng(2025))
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)
    assert a.shape == ((1000, law.dim) if law.multivariate else (1000,))
    assert np.all(np.isfinite(a))
    # shapes: tuple sizes and empty draws
    assert law.sample((4, 5), rng=np.random.default_rng(1)).shape == ((4, 5, law.dim) if law.multivariate else (4, 5))
    assert law.sample(0, rng=np.random.default_rng(1)).shape[0] == 0


def test_sampling_does_not_touch_global_rng():
    np.random.seed(123)  # noqa: NPY002 - seed the global RNG to see it is left alone
    before = np.random.get_state()[1].copy()  # noqa: NPY002 - snapshot of the global RNG
    for law in ALL_LAWS:
        law.sample(10, rng=np.random.default_rng(0))
    np.testing.assert_array_equal(np.random.get_state()[1], before)  # noqa: NPY002 - the global RNG is untouched


@pytest.mark.montecarlo
def test_mixture_component_frequencies_exact_binomial():
    law = D.Mixture([D.Normal(-100.0, 1.0), D.Normal(100.0, 1.0)], [0.3, 0.7])
    x = law.sample(N_MOMENT, rng=np.random.default_rng(91))
    count = int(np.count_nonzero(x < 0))
    assert stats.binomtest(count, x.size, 0.3).pvalue >= ALPHA


# ----------------------------------------------------------------------------------------------------------------
# validation
# ----------------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "factory,param",
    [
        (lambda: D.StudentT(0.0), "nu"),
        (lambda: D.StudentT(-1.0), "nu"),
        (lambda: D.StudentT(float("nan")), "nu"),
        (lambda: D.StudentT(3.0, scale=0.0), "scale"),
        (lambda: D.StudentT(3.0, loc=float("inf")), "loc"),
        (lambda: D.Cauchy(scale=-1.0), "scale"),
        (lambda: D.Pareto(0.0), "alpha"),
        (lambda: D.Pareto(2.0, xm=0.0), "xm"),
        (lambda: D.Lomax(-2.0), "alpha"),
        (lambda: D.SymmetricPareto(2.0, base="weibull"), "base"),
        (lambda: D.LogNormal(0.0, 0.0), "sigma"),
        (lambda: D.BurrXII(0.0, 1.0), "c"),
        (lambda: D.BurrXII(1.0, -1.0), "d"),
        (lambda: D.Spike(0.0, 1.0), "p"),
        (lambda: D.Spike(1.0, 1.0), "p"),
        (lambda: D.Spike(0.5, 0.0), "a"),
        (lambda: D.Spike.with_moment(2.0, -1.0, 0.1), "target"),
        (lambda: D.Mixture([D.Normal(), D.Normal()], [0.5, 0.6]), "weights"),
        (lambda: D.Mixture([D.Normal(), D.RadialPareto(2, 3.0)], [0.5, 0.5]), "dimension"),
        (lambda: D.Mixture([], []), "components"),
        (lambda: D.Contamination(D.Normal(), 1.0, D.Cauchy()), "eps"),
        (lambda: D.MultivariateT(3.0, shape=np.array([[1.0, 2.0], [2.0, 1.0]])), "shape"),
        (lambda: D.MultivariateT(3.0, loc=[0.0, np.nan]), "loc"),
        (lambda: D.RadialPareto(0, 2.0), "d"),
        (lambda: D.rescale_to_moment(D.StudentT(5.0), 2.0, 1.0, measure="median"), "measure"),
        (lambda: D.rescale_to_moment(D.StudentT(5.0), 2.0, 0.0), "target"),
        (lambda: D.rescale_to_moment(D.StudentT(5.0), 5.0, 1.0), "k"),
    ],
)
def test_invalid_parameters_raise_value_error_naming_them(factory, param):
    with pytest.raises(ValueError, match=param):
        factory()


@pytest.mark.parametrize(
    "law",
    [
        D.StudentT(3.0),
        D.Pareto(2.5),
        D.Cauchy(),
        D.BurrXII(2.0, 1.0),
        D.Contamination(D.Normal(), 0.1, D.Lomax(1.5)),
        D.RadialPareto(2, 3.0),
    ],
    ids=repr,
)
def test_moment_at_or_beyond_tail_index_raises(law):
    ti = law.tail_index
    for k in (ti, ti + 0.5, 0.0, -1.0, float("nan")):
        with pytest.raises(ValueError, match="k"):
            law.moment(k)


def test_laws_without_mean():
    for law in (D.Cauchy(), D.StudentT(0.8), D.Lomax(1.0)):
        with pytest.raises(ValueError, match="mean"):
            _ = law.mean
        with pytest.raises(ValueError, match="central"):
            law.moment(0.5, central=True)
        assert np.isfinite(law.moment(0.5))


def test_sample_argument_validation():
    law = D.StudentT(3.0)
    with pytest.raises(ValueError, match="rng"):
        law.sample(5, rng=np.random.RandomState(0))
    with pytest.raises(ValueError, match="rng"):
        law.sample(5, rng=0)
    for size in (-1, 2.5, (2, -1), "3", True):
        with pytest.raises(ValueError, match="size"):
            law.sample(size, rng=np.random.default_rng(0))


def test_multivariate_norm_moment_without_closed_form_says_so():
    law = D.MultivariateT(6.0, loc=[1.0, 0.0], shape=np.eye(2))
    assert law.norm_moment(2.0) == pytest.approx(1.0 + 2 * 6.0 / 4.0)
    with pytest.raises(NotImplementedError):
        law.norm_moment(1.0)


# ----------------------------------------------------------------------------------------------------------------
# property tests over the law strategies
# ----------------------------------------------------------------------------------------------------------------
@settings(max_examples=60, deadline=None, derandomize=True)
@given(law=S.laws(min_tail_index=0.5), frac=st.floats(0.1, 0.45))
def test_lyapunov_inequality_and_finiteness(law, frac):
    """(E|X|^k)^{1/k} is non-decreasing in k (Lyapunov); every moment below the tail index is finite and positive."""
    k2 = min(frac * law.tail_index, 3.0)
    k1 = k2 / 2
    m1, m2 = law.moment(k1), law.moment(k2)
    assert 0 < m1 < np.inf and 0 < m2 < np.inf
    assert m1 ** (1 / k1) <= m2 ** (1 / k2) * (1 + 1e-6)
    if law.tail_index < np.inf:
        with pytest.raises(ValueError, match="k"):
            law.moment(law.tail_index)


@settings(max_examples=60, deadline=None, derandomize=True)
@given(law=S.laws(min_tail_index=2.0), target=st.floats(1e-3, 1e3))
def test_rescale_hits_target(law, target):
    scaled = D.rescale_to_moment(law, 2.0 if law.tail_index > 2.0 else 1.0, target)
    k = 2.0 if law.tail_index > 2.0 else 1.0
    assert scaled.moment(k, central=True) == pytest.approx(target, rel=1e-8)
    assert scaled.tail_index == law.tail_index
    assert scaled.mean == pytest.approx(scaled.factor * law.mean, rel=1e-12, abs=1e-300)


@settings(max_examples=30, deadline=None, derandomize=True)
@given(law=S.laws(min_tail_index=2.5, d=3))
def test_multivariate_directional_moment_dominates_coordinates(law):
    """sup_u E|<u, X - mu>|^2 >= max_j E|X_j - mu_j|^2 (take u = e_j), and E||X - 0||^2 >= directional for mu = 0."""
    dm = law.directional_moment(2.0)
    assert dm >= np.max(law.moment(2.0, central=True)) * (1 - 1e-9)
    x = law.sample(7, rng=np.random.default_rng(0))
    assert x.shape == (7, 3)


@settings(max_examples=40, deadline=None, derandomize=True)
@given(law=S.laws(min_tail_index=1.0, compound=False))
def test_univariate_sf_is_a_survival_function(law):
    xs = np.linspace(-50, 50, 41)
    s = np.asarray(law.sf(xs), dtype=float)
    assert np.all((s >= 0) & (s <= 1))
    assert np.all(np.diff(s) <= 1e-12)
