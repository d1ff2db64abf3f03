"""Rate checks and high-probability checks: designed tests of the checkers (fixed seeds).

Every statistical assertion states its α and the smallest effect the run can detect, and the design is asserted
inline (TFP style) so that "the test has power" is itself tested.

Common rate design (``_rate_run``): 8 geometric values of n in [10², 10⁴], 200 replications each, α = 0.05.
The fitted exponent's 95% CI then has half-width ≈ 0.035 and the check detects (power 0.8) exponents lying more
than ``min_detectable_deviation`` ≈ 0.05 outside the tolerance band; asserted in ``test_rate_design``.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from htdp_verify.claims import Provenance, RateClaim, TailBoundClaim
from htdp_verify.montecarlo import sweep
from htdp_verify.rates import (
    CrossoverWarning,
    _boot_summary,
    check_quantile_shape,
    check_rate,
    check_tail_bound,
    fit_rate,
    fit_terms,
    local_slopes,
    quantile_shape,
    three_outcome_verdict,
)

ALPHA = 0.05
NS = [100, 193, 373, 720, 1389, 2683, 5179, 10000]  # 8 geometric values in [1e2, 1e4]
REPS = 200


# ------------------------------------------------------------------ workloads (vectorised: all reps at once)
def sample_mean_error(n, *, n_reps, rng):
    """|mean of n N(0,1) draws|: error exactly |Z|/sqrt(n), rate n^{-1/2}."""
    return {"error": np.abs(rng.standard_normal((n_reps, n)).mean(axis=1))}


def subsampled_mean_error(n, *, n_reps, rng):
    """A buggy estimator that only uses ceil(sqrt(n)) of its n points: error ≍ n^{-1/4}."""
    m = math.ceil(math.sqrt(n))
    return {"error": np.abs(rng.standard_normal((n_reps, m)).mean(axis=1))}


def two_regime_error(n, *, n_reps, rng):
    """error = |Z| · (n^{-1/2} + 30/n): slope -1 for n ≪ 900, -1/2 for n ≫ 900."""
    return {"error": np.abs(rng.standard_normal(n_reps)) * (n**-0.5 + 30.0 / n)}


def _rate_run(fn, seed, ns=NS, reps=REPS):
    return sweep(fn, {"n": ns}, reps, seed=seed, vectorised=True, progress=False)


@pytest.fixture(scope="module")
def mean_run():
    return _rate_run(sample_mean_error, seed=20240601)


@pytest.fixture(scope="module")
def quarter_run():
    return _rate_run(subsampled_mean_error, seed=20240602)


# ------------------------------------------------------------------ design
def test_rate_design(mean_run):
    """The run resolves the exponent well enough for the claims below (design, not luck)."""
    fit = fit_rate(mean_run)
    assert fit.halfwidth < 0.05
    # n^{-1/3} claim with tol 0.1: the true -1/2 lies 1/6 - 0.1 = 0.067 outside the band -> detectable
    assert fit.min_detectable_deviation(power=0.8) < 1 / 6 - 0.1
    # a correct rate is found consistent with probability >= 0.8 with far fewer replications than we use
    assert fit.reps_needed_for_tolerance(0.1, power=0.8) < REPS


# ------------------------------------------------------------------ the four required verdicts
@pytest.mark.montecarlo
def test_sample_mean_passes_sqrt_rate(mean_run):
    """α = 0.05 (false failure ≤ α when the true exponent is in the band); true exponent -1/2 = claim."""
    res = check_rate(mean_run, RateClaim("n", -0.5, 0.1, provenance=Provenance("CLT")), ALPHA)
    assert res.verdict == "consistent", res.summary
    lo, hi = res.interval
    assert lo <= -0.5 <= hi
    assert res.seed == 20240601 and res.n_samples == len(NS) * REPS
    assert res.claim.exponent == -0.5 and res.provenance.paper == "CLT"
    assert res.to_json()  # JSON-serialisable


@pytest.mark.montecarlo
def test_sample_mean_fails_cube_root_claim(mean_run):
    """α = 0.05; detectable deviation ≈ 0.05 beyond the band (test_rate_design); actual deviation 0.067."""
    res = check_rate(mean_run, RateClaim("n", -1 / 3, 0.1), ALPHA)
    assert res.verdict == "violated", res.summary


@pytest.mark.montecarlo
def test_quarter_rate_estimator_fails_sqrt_claim(quarter_run):
    """α = 0.05; the estimator's exponent -1/4 lies 0.15 outside [-0.6, -0.4] (detectable: ≈ 0.05)."""
    res = check_rate(quarter_run, RateClaim("n", -0.5, 0.1), ALPHA)
    assert res.verdict == "violated", res.summary
    assert res.details["fit"]["interval"][0] > -0.4
    # and it is consistent with its own rate
    assert check_rate(quarter_run, RateClaim("n", -0.25, 0.1), ALPHA).verdict == "consistent"


@pytest.mark.montecarlo
@pytest.mark.parametrize("summary", ["median", "mean", "q0.9"])
@pytest.mark.parametrize("method", ["bootstrap", "theilsen"])
def test_summaries_and_methods_agree(mean_run, quarter_run, summary, method):
    """Each summary and both CI methods give the same three verdicts (α = 0.05, detectable ≈ 0.05-0.06)."""
    good = RateClaim("n", -0.5, 0.1, summary=summary)
    bad = RateClaim("n", -1 / 3, 0.1, summary=summary)
    assert check_rate(mean_run, good, ALPHA, method=method).verdict == "consistent"
    assert check_rate(mean_run, bad, ALPHA, method=method).verdict == "violated"
    assert check_rate(quarter_run, good, ALPHA, method=method).verdict == "violated"


def test_inconclusive_reports_replications_needed():
    """3 close grid values x 20 reps cannot decide a ±0.1 band: the result says how many reps would."""
    run = _rate_run(sample_mean_error, seed=5, ns=[100, 130, 170], reps=20)
    res = check_rate(run, RateClaim("n", -0.5, 0.1), ALPHA)
    assert res.verdict == "inconclusive"
    assert res.details["reps_needed"] > 20
    assert "replications per value" in res.summary


def test_three_outcome_rule():
    assert three_outcome_verdict((-0.55, -0.45), -0.5, 0.1) == "consistent"
    assert three_outcome_verdict((-0.62, -0.45), -0.5, 0.1) == "inconclusive"
    assert three_outcome_verdict((-0.30, -0.20), -0.5, 0.1) == "violated"
    assert three_outcome_verdict((-0.80, -0.61), -0.5, 0.1) == "violated"
    # a CI that excludes r0 but lies inside the band is consistent (log factors are what tolerances are for)
    assert three_outcome_verdict((-0.47, -0.42), -0.5, 0.1) == "consistent"


# ------------------------------------------------------------------ inputs and determinism
def test_input_forms_agree(mean_run):
    x = np.array(NS, dtype=float)
    errs = mean_run.values("error")
    ref = fit_rate(mean_run)
    for data, kw in [
        ((x, errs), {}),
        (x, {"errors": errs}),
        (x, {"errors": list(errs)}),
        (mean_run.table, {"variable": "n"}),
    ]:
        f = fit_rate(data, **kw)
        assert f.exponent == pytest.approx(ref.exponent, abs=1e-12)
        assert f.interval == pytest.approx(ref.interval, abs=1e-12)  # the default bootstrap rng hashes the data


def test_unequal_replications_per_cell():
    """Cells may hold different numbers of replications (deterministic check of the bookkeeping)."""
    rng = np.random.default_rng(1)
    x = np.array([100, 1000, 10000])
    errs = [np.abs(rng.standard_normal(r)) / np.sqrt(n) for n, r in zip(x, [300, 200, 100])]
    f = fit_rate(x, errors=errs)
    assert f.n_reps.tolist() == [300, 200, 100]
    slope = np.polyfit(np.log(x), np.log([np.median(e) for e in errs]), 1)[0]
    assert f.exponent == pytest.approx(slope, abs=1e-12)
    assert f.interval[0] < f.exponent < f.interval[1]


def test_explicit_rng_and_reproducibility(mean_run):
    a = fit_rate(mean_run, rng=np.random.default_rng(3)).interval
    b = fit_rate(mean_run, rng=np.random.default_rng(3)).interval
    assert a == b


def test_quantile_bootstrap_matches_direct_resampling():
    """The O(1) order-statistic bootstrap has the law of the direct bootstrap: two-sample KS at α = 1e-3
    (4000 draws each detect a sup-CDF difference ≈ 0.045 with power ~0.9)."""
    rng = np.random.default_rng(12)
    e = np.abs(rng.standard_normal(200))
    fast = _boot_summary(e, "quantile", 0.5, 4000, np.random.default_rng(1))
    idx = np.random.default_rng(2).integers(0, e.size, size=(4000, e.size))
    direct = np.median(e[idx], axis=1)
    assert stats.ks_2samp(fast, direct).pvalue > 1e-3
    fast9 = _boot_summary(e, "quantile", 0.9, 4000, np.random.default_rng(3))
    direct9 = np.quantile(e[idx], 0.9, axis=1)
    assert stats.ks_2samp(fast9, direct9).pvalue > 1e-3


@pytest.mark.parametrize(
    "data, kw, match",
    [
        ((np.array([1.0, 2.0, 4.0]), -np.ones((3, 5))), {}, "errors must be finite and >= 0"),
        ((np.array([1.0, 2.0]), np.ones((2, 5))), {}, ">= 3 grid values"),
        ((np.array([1.0, 0.0, 4.0]), np.ones((3, 5))), {}, "> 0"),
        ((np.array([1.0, 2.0, 4.0]), np.ones((3, 5))), {"summary": "q1.5"}, "summary"),
        ((np.array([1.0, 2.0, 4.0]), np.ones((3, 5))), {"method": "ols"}, "method"),
        ((np.array([1.0, 2.0, 4.0]), np.ones((3, 5))), {"alpha": 1.5}, "alpha"),
        ((np.array([1.0, 2.0, 4.0]), np.ones((4, 5))), {}, "one row per x"),
    ],
)
def test_fit_rate_validation(data, kw, match):
    with pytest.raises(ValueError, match=match):
        fit_rate(data, **kw)


def test_fit_rate_rejects_two_swept_variables():
    two = sweep(
        lambda n, m, *, n_reps, rng: rng.random(n_reps) / n,
        {"n": [10, 20, 40], "m": [1, 2]},
        5,
        seed=0,
        vectorised=True,
        progress=False,
    )
    with pytest.raises(ValueError, match="one variable at a time"):
        fit_rate(two, variable="n")
    sub = two.table[two.table.m == 1]
    assert fit_rate(sub, variable="n", output="value").x.tolist() == [10, 20, 40]


# ------------------------------------------------------------------ crossovers and multi-term fits
@pytest.fixture(scope="module")
def two_regime_run():
    ns = np.geomspace(10, 1e6, 11).round().astype(int).tolist()
    return _rate_run(two_regime_error, seed=77, ns=ns)


def test_crossover_warning(two_regime_run, mean_run):
    """A grid across n ≈ 900 (slope -1 -> -1/2) warns; a single-regime grid does not."""
    with pytest.warns(CrossoverWarning, match="crossover"):
        fit = fit_rate(two_regime_run)
    assert fit.crossover and fit.slope_change > 0.2
    with warnings.catch_warnings():
        warnings.simplefilter("error", CrossoverWarning)
        assert not fit_rate(mean_run).crossover
    with pytest.warns(CrossoverWarning):
        res = check_rate(two_regime_run, RateClaim("n", -0.5, 0.1), ALPHA)
    assert "crossover" in res.summary


def test_local_slopes_table(two_regime_run):
    tab = local_slopes(two_regime_run)
    assert isinstance(tab, pd.DataFrame) and len(tab) == 10
    # true local slopes: ≈ -0.9 on the first three segments, ≈ -0.53 on the last three; each segment's slope
    # has sd ≈ 0.1 with 200 reps, a mean of three ≈ 0.06, so the margins below are ≥ 2.5 sd
    assert tab["local_slope"].iloc[:3].mean() < -0.75 and tab["local_slope"].iloc[-3:].mean() > -0.7


def test_multi_term_fit_recovers_constants_and_crossover(two_regime_run):
    """True median curve: 0.674·(n^{-1/2} + 30/n); crossover at n = 900.  99% bootstrap CIs must cover the
    constants (measured miss rate of the 95% CIs over 100 seeds: 8% and 4%); the wrong model
    (n^{-1/2} + log(n)/n) is rejected by the lack-of-fit test at α = 0.01."""
    med = stats.halfnorm.median()
    with pytest.warns(CrossoverWarning, match="straddles a crossover"):
        tf = fit_terms(two_regime_run, [-0.5, -1.0], alpha=0.01)
    (lo1, hi1), (lo2, hi2) = tf.constant_intervals
    assert lo1 <= med <= hi1 and lo2 <= 30 * med <= hi2
    (cr,) = tf.crossovers
    assert cr["inside_grid"] and 500 < cr["x"] < 1500
    assert tf.lack_of_fit_pvalue > 0.01
    assert tf.local_exponent[0] < -0.85 and tf.local_exponent[-1] > -0.55
    assert np.allclose(tf.predict(tf.x), tf.fitted)
    wrong = fit_terms(two_regime_run, [-0.5, (-1.0, 1)], warn=False)
    assert wrong.lack_of_fit_pvalue < 0.01
    assert "n^-0.5" in tf.describe()


def test_fit_terms_validation(mean_run):
    with pytest.raises(ValueError, match="exponents"):
        fit_terms(mean_run, [])
    with pytest.raises(ValueError, match="exponents"):
        fit_terms(mean_run, ["a"])


# ------------------------------------------------------------------ high-probability bounds
BETA = 0.05


@pytest.fixture(scope="module")
def tail_run():
    """400 replications of |sample mean| at n = 100, 1000, 10000 (1200 in all)."""
    return _rate_run(sample_mean_error, seed=31337, ns=[100, 1000, 10000], reps=400)


def subgaussian_bound(n, beta):
    """P[|mean| > sqrt(2 log(2/β)/n)] ≤ β for N(0,1) data (Hoeffding/Chernoff for a 1-sub-Gaussian mean)."""
    return np.sqrt(2 * np.log(2 / beta) / np.asarray(n, dtype=float))


@pytest.mark.montecarlo
def test_correct_subgaussian_tail_bound_passes(tail_run):
    """α = 0.01; true failure rate P(|Z| > 2.72) = 0.0066 ≤ β = 0.05, so a false failure has prob ≤ 0.01."""
    claim = TailBoundClaim(BETA, "sqrt(2 log(2/beta)/n)", Provenance("Hoeffding"))
    res = check_tail_bound(tail_run, subgaussian_bound([100, 1000, 10000], BETA), claim, alpha=0.01)
    assert res.verdict == "consistent", res.summary
    assert res.n_samples == 1200 and res.statistic == "exceedance_rate"
    assert res.details["empirical_constant"] < 1
    # design: failure rates >= 0.075 are detected with probability 0.8
    assert res.details["min_detectable_rate"] < 0.075


@pytest.mark.montecarlo
def test_tail_bound_too_small_by_two_fails(tail_run):
    """α = 0.01; halving the bound raises the true failure rate to P(|Z| > 1.36) = 0.174, far above the
    detectable 0.075 (asserted in the previous test)."""
    half = subgaussian_bound([100, 1000, 10000], BETA) / 2
    res = check_tail_bound(tail_run, half, TailBoundClaim(BETA), alpha=0.01)
    assert res.verdict == "violated", res.summary
    assert res.details["empirical_constant"] > 1
    # per-cell Bonferroni version catches it too
    assert check_tail_bound(tail_run, half, TailBoundClaim(BETA), alpha=0.01, per_cell=True).verdict == "violated"


def test_tail_bound_inconclusive_when_underpowered():
    """400 replications cannot detect a failure rate of 0.06 against β = 0.05: inconclusive with a plan."""
    rng = np.random.default_rng(4)
    e = np.abs(rng.standard_normal(400))
    res = check_tail_bound(e, 3.0, TailBoundClaim(BETA), alpha=0.01, detect_rate=0.06)
    assert res.verdict == "inconclusive" and res.details["reps_needed"] > 400


@pytest.mark.parametrize(
    "bounds, match",
    [(np.ones(5), "bound_values"), (-1.0, "bound_values"), (np.nan, "bound_values")],
)
def test_tail_bound_validation(bounds, match):
    with pytest.raises(ValueError, match=match):
        check_tail_bound(np.ones((3, 4)), bounds, TailBoundClaim(0.1))
    with pytest.raises(ValueError, match="TailBoundClaim"):
        check_tail_bound(np.ones(4), 1.0, RateClaim("n", -0.5))


def test_tail_bound_per_replication_bounds():
    rng = np.random.default_rng(9)
    e = np.abs(rng.standard_normal((2, 300)))
    per_rep = np.full((2, 300), 3.0)
    a = check_tail_bound(e, per_rep, TailBoundClaim(0.05))
    b = check_tail_bound(e, 3.0, TailBoundClaim(0.05))
    assert a.details["counts"] == b.details["counts"]


# ------------------------------------------------------------------ quantile shape in log(1/β)
BETAS = [0.5, 0.1, 1e-2, 1e-3, 1e-4]


@pytest.mark.montecarlo
def test_quantile_shape_sqrt_vs_linear():
    """2·10⁵ replications (20 beyond the 1e-4 quantile).  Gaussian errors: γ ≈ 0.52 (sub-Gaussian tail) ->
    consistent with γ = 1/2 ± 1/4; Laplace errors: quantile = log(1/β) exactly (γ = 1) -> violated.  α = 0.05;
    the γ-interval half-width (≈ 0.03 here) is far below the 0.25 separation of the two shapes."""
    rng = np.random.default_rng(2024)
    gauss = np.abs(rng.standard_normal(200_000))
    lap = rng.exponential(size=200_000)
    g = quantile_shape(gauss, BETAS)
    assert g.preferred == "sqrt" and g.gamma_interval[1] - g.gamma_interval[0] < 0.1
    assert check_quantile_shape(gauss, BETAS).verdict == "consistent"
    l_ = quantile_shape(lap, BETAS)
    assert l_.preferred == "linear" and l_.nested["c_interval"][0] > 0  # significant log(1/β) term
    assert check_quantile_shape(lap, BETAS).verdict == "violated"
    assert check_quantile_shape(lap, BETAS, gamma=1.0).verdict == "consistent"
    # the exact order-statistic intervals cover the true Gaussian quantiles
    true_q = stats.halfnorm.isf(np.array(BETAS))
    assert np.all((g.quantile_intervals[:, 0] <= true_q) & (true_q <= g.quantile_intervals[:, 1]))


def test_quantile_shape_per_beta_samples():
    """When the estimator's tuning depends on β (m = C log(1/β)), each β brings its own sample."""
    rng = np.random.default_rng(5)
    data = {b: np.abs(rng.standard_normal(max(2000, int(20 / b)))) for b in BETAS}
    s = quantile_shape(data)
    assert s.betas.tolist() == BETAS and s.preferred == "sqrt"


def test_quantile_shape_validation():
    with pytest.raises(ValueError, match=">= 4"):
        quantile_shape(np.ones(1000), [0.5, 0.1, 0.01])
    with pytest.raises(ValueError, match="needs >="):
        quantile_shape(np.arange(100.0), BETAS)
    with pytest.raises(ValueError, match="betas must be given"):
        quantile_shape(np.ones(100))


# ------------------------------------------------------------------ meta-test: the checkers' own error rates
@pytest.mark.meta
@pytest.mark.montecarlo
def test_rate_check_false_failure_rate_and_power_over_seeds():
    """200 independent seeds of the sample-mean rate check (8 values of n in [50, 5000], 200 reps).

    * false failure: the true exponent -1/2 sits on the *edge* of the band of the claim -0.4 ± 0.1 (the worst
      case); P(violated) must be ≤ α = 0.05.  Exact one-sided binomial test of H0: rate ≤ α at level 0.01
      (the observed count must not reject it).  Interior claim -0.5 ± 0.1: at most as many failures.
    * CI coverage of the true exponent ≥ 1 - α (same binomial test on the miss count).
    * power: a claim whose band lies ``min_detectable_deviation(0.8)`` (from a pilot run) away from the truth
      must be found violated with probability ≥ 0.8 (binomial test of H0: power ≥ 0.8 at level 0.01).
    """
    ns = np.unique(np.geomspace(50, 5000, 8).round().astype(int)).tolist()
    pilot = fit_rate(_rate_run(sample_mean_error, seed=999, ns=ns))
    d = pilot.min_detectable_deviation(0.8)
    edge_fail = interior_fail = miss = power_hits = 0
    n_seeds = 200
    for s in range(n_seeds):
        run = _rate_run(sample_mean_error, seed=10_000 + s, ns=ns)
        res = check_rate(run, RateClaim("n", -0.4, 0.1), ALPHA)
        lo, hi = res.interval
        edge_fail += res.verdict == "violated"
        interior_fail += three_outcome_verdict((lo, hi), -0.5, 0.1) == "violated"
        miss += not (lo <= -0.5 <= hi)
        power_hits += three_outcome_verdict((lo, hi), -0.5 + d + 0.1, 0.1) == "violated"
    assert stats.binomtest(edge_fail, n_seeds, ALPHA, alternative="greater").pvalue > 0.01, edge_fail
    assert interior_fail <= edge_fail
    assert stats.binomtest(miss, n_seeds, ALPHA, alternative="greater").pvalue > 0.01, miss
    assert stats.binomtest(power_hits, n_seeds, 0.8, alternative="less").pvalue > 0.01, power_hits


@pytest.mark.meta
@pytest.mark.montecarlo
def test_tail_check_false_failure_rate_over_seeds():
    """The exceedance test at the exact boundary (true failure rate = β = 0.1, 300 reps, α = 0.05) over 400
    seeds: the violation rate must not be significantly above α (exact binomial test at level 0.01)."""
    beta, fails, n_seeds = 0.1, 0, 400
    bound = stats.halfnorm.isf(beta)  # P[|Z| > bound] = β exactly
    for s in range(n_seeds):
        e = np.abs(np.random.default_rng(50_000 + s).standard_normal(300))
        fails += check_tail_bound(e, bound, TailBoundClaim(beta), alpha=ALPHA).verdict == "violated"
    assert stats.binomtest(fails, n_seeds, ALPHA, alternative="greater").pvalue > 0.01, fails
