"""One-run canary auditing (Steinke, Nasr & Jagielski 2023): the bound, the canary designs and ``audit_one_run``.

Designs of the statistical tests:

* The bound is checked *exactly* (no simulation) on the game in which it is tight, randomised response on each
  canary's inclusion bit: V ~ Binomial(r, e^ε/(1+e^ε)) correct guesses out of r, and the probability that the
  bound exceeds the true ε is summed over the binomial law.  It must be ≤ β; a deliberately broken bound (tail
  P[B ≥ v + 1] instead of P[B ≥ v]) must fail the same check.
* End-to-end validity: 200 seeds of ``audit_one_run`` on a Gaussian sum (l2 ball) and a Laplace sum (l1 ball),
  each calibrated exactly (true ε known).  X = number of seeds whose bound exceeds the true ε; the test fails iff
  X ≥ c with c the smallest integer such that P[Binomial(200, α) ≥ c] ≤ 0.01 (c = 19 at α = 0.05: false-fail
  probability 0.6 %, power 0.89 against an exceedance rate of 0.12).  The same design covers three pooled runs
  and replace neighbours (canary vs its mirror image).  The same checker flags an under-noised mechanism whose
  true ε is misstated.
* Power: a Gaussian mechanism calibrated for ε = 8 but claimed at ε = 1 is flagged ``violated`` (one run, 500
  canaries); the bound it certifies is far above its 5 % chance floor, so the fixed seed is not a lucky one.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from scipy import special, stats
from threadpoolctl import threadpool_limits

from estimators.baselines import analytic_gaussian_sigma
from htdp_verify import PrivacyClaim
from htdp_verify.privacy import AuditResult, Mechanism
from htdp_verify.privacy.canary import (
    CanaryDesign,
    audit_one_run,
    cluster_canaries,
    epsilon_lower_bound_one_run,
    guess_plans,
    mean_canaries,
    one_run_p_value,
    regression_canaries,
)
from htdp_verify.results import CheckResult

ALPHA = 0.05
N_SEEDS = 200


# ------------------------------------------------------------------------------------------------------
# mechanisms with a known ε (add/remove neighbours: the sensitivity of a clipped sum is the clipping radius)
# ------------------------------------------------------------------------------------------------------


def gaussian_sum(sigma, radius=1.0):
    def fn(data, size, rng):
        x = np.asarray(data, float)
        norms = np.linalg.norm(x, axis=1, keepdims=True)
        x = x * np.minimum(1.0, radius / np.maximum(norms, 1e-300))
        return x.sum(axis=0) + rng.normal(0.0, sigma, size=(size, x.shape[1]))

    return Mechanism(fn, name="gaussian_sum")


def laplace_sum(scale, radius=1.0):
    def fn(data, size, rng):
        x = np.asarray(data, float)
        norms = np.abs(x).sum(axis=1, keepdims=True)
        x = x * np.minimum(1.0, radius / np.maximum(norms, 1e-300))
        return x.sum(axis=0) + rng.laplace(0.0, scale, size=(size, x.shape[1]))

    return Mechanism(fn, name="laplace_sum")


def exceedance_check(bounds, eps_true, alpha=ALPHA, n_seeds=N_SEEDS, level=0.01):
    """(passes, X, c): the binomial test of the module docstring."""
    x = int(np.count_nonzero(np.asarray(bounds) > eps_true))
    c = int(stats.binom.isf(level, n_seeds, alpha)) + 1
    assert stats.binom.sf(c - 1, n_seeds, alpha) <= level
    return x < c, x, c


def run_seeds(mech, eps_true, delta, *, m, d, norm, seeds=N_SEEDS, n_data=0, runs=1, neighbours="add_remove"):
    claim = PrivacyClaim(eps_true, delta, neighbours)
    out = []
    with threadpool_limits(1):  # small QRs: multi-threaded BLAS only adds contention on a shared machine
        for seed in range(seeds):
            rng = np.random.default_rng([20261124, seed])
            des = mean_canaries(m, d, radius=1.0, norm=norm, rng=rng)
            data = rng.normal(0, 0.1, size=(n_data, d))
            out.append(audit_one_run(mech, data, claim, canaries=des, rng=rng, alpha=ALPHA, runs=runs).estimate)
    return np.array(out)


# ------------------------------------------------------------------------------------------------------
# the bound
# ------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("r", [10, 50, 100, 1000])
def test_all_correct_bound_is_the_closed_form(r):
    # delta = 0, v = r: P[Bin(r, q) >= r] = q^r = beta  =>  eps = logit(beta^(1/r))
    expected = special.logit(0.05 ** (1.0 / r))
    assert epsilon_lower_bound_one_run(r, r, beta=0.05) == pytest.approx(expected, abs=1e-7)
    assert epsilon_lower_bound_one_run(r, r, beta=0.05) <= expected + 1e-12  # returned from the valid side


def test_delta_term_matches_a_direct_sum():
    r, v, m, delta, eps = 40, 31, 100, 1e-3, 0.7
    q = np.exp(eps) / (1 + np.exp(eps))
    f = lambda t: stats.binom.sf(t - 1, r, q)  # noqa: E731  P[B >= t]
    direct = f(v) + 2 * m * delta * max((f(v - i) - f(v)) / i for i in range(1, m + 1))
    assert one_run_p_value(r, v, eps, delta=delta, m=m) == pytest.approx(direct, rel=1e-10)


def test_p_value_monotone_in_epsilon_and_v():
    for r, m, delta in [(30, 30, 0.0), (200, 1000, 1e-4), (200, 2000, 2.4e-4)]:
        eps = np.linspace(0, 6, 61)
        for v in (5, r // 2, int(0.8 * r), r):
            p = [one_run_p_value(r, v, e, delta=delta, m=m) for e in eps]
            assert np.all(np.diff(p) >= -1e-12)
        for e in (0.3, 2.0):
            p = [one_run_p_value(r, v, e, delta=delta, m=m) for v in range(r + 1)]
            assert np.all(np.diff(p) <= 1e-12)


def _exact_exceedance(bound, r, eps_true, beta, **kw):
    """P[bound(V) > eps_true] for V ~ Bin(r, q(eps_true)) (randomised response: the tight game)."""
    q = special.expit(eps_true)
    vs = np.arange(r + 1)
    pmf = stats.binom.pmf(vs, r, q)
    keep = pmf > 1e-13  # the rest (< 1e-10 in all) is counted as exceeding: conservative
    exceed = np.array([bound(r, int(v), beta=beta, **kw) > eps_true for v in vs[keep]])
    return float(pmf[keep][exceed].sum() + pmf[~keep].sum())


def _broken_bound(r, v, *, beta, **kw):
    """Deliberately wrong: uses P[B >= v + 1] as the p-value (an off-by-one in the tail)."""
    return (
        epsilon_lower_bound_one_run(r, min(v + 1, r) if v < r else r, beta=beta, **kw)
        if v < r
        else epsilon_lower_bound_one_run(r, r, beta=beta, **kw)
    )


@pytest.mark.parametrize("r,eps_true", [(50, 0.5), (200, 1.0), (200, 3.0), (1000, 1.0)])
def test_bound_level_is_exact_on_randomised_response(r, eps_true):
    level = _exact_exceedance(epsilon_lower_bound_one_run, r, eps_true, 0.05)
    assert level <= 0.05
    assert level > 0.005  # the game is tight: the bound is not trivially conservative here
    # with delta > 0 (the mechanism is also (eps, delta)-DP) the bound stays valid
    assert _exact_exceedance(epsilon_lower_bound_one_run, r, eps_true, 0.05, delta=1e-4, m=r) <= 0.05
    # the same check fails on a broken bound
    assert _exact_exceedance(_broken_bound, r, eps_true, 0.05) > 0.05


def test_bound_edge_cases_and_validation():
    assert epsilon_lower_bound_one_run(0, 0) == 0.0
    assert epsilon_lower_bound_one_run(100, 50) == 0.0  # chance level certifies nothing
    assert epsilon_lower_bound_one_run(100, 100, m=10**5, delta=1e-5) == 0.0  # 2 m delta >= 1: vacuous
    lo = epsilon_lower_bound_one_run(1000, 1000, m=1000, delta=1e-5)
    assert 0 < lo < epsilon_lower_bound_one_run(1000, 1000)  # the delta term costs something
    with pytest.raises(ValueError, match="v must lie"):
        epsilon_lower_bound_one_run(10, 11)
    with pytest.raises(ValueError, match="m "):
        epsilon_lower_bound_one_run(10, 5, m=5)
    with pytest.raises(ValueError, match="beta"):
        epsilon_lower_bound_one_run(10, 5, beta=1.5)
    with pytest.raises(ValueError, match="delta"):
        one_run_p_value(10, 5, 1.0, delta=-1)


def test_guess_plans():
    assert guess_plans(1000) == [(5, 5), (15, 15), (50, 50), (150, 150), (500, 500)]
    assert guess_plans(1000, 7) == [(4, 3)]
    assert guess_plans(1000, [(10, 0), 20]) == [(10, 0), (10, 10)]
    with pytest.raises(ValueError, match="k_guesses"):
        guess_plans(10, 11)
    with pytest.raises(ValueError, match="k_guesses"):
        guess_plans(10, [])


# ------------------------------------------------------------------------------------------------------
# designs
# ------------------------------------------------------------------------------------------------------


def test_mean_designs_stay_in_the_domain():
    rng = np.random.default_rng(1)
    box = mean_canaries(50, 20, lower=-2.0, upper=np.arange(1, 21), rng=rng)
    assert np.all(box.records >= -2 - 1e-12) and np.all(box.records <= np.arange(1, 21) + 1e-12)
    assert np.all(box.out_records >= -2 - 1e-12) and np.all(box.out_records <= np.arange(1, 21) + 1e-12)
    assert np.allclose(np.linalg.norm(box.directions, axis=1), 1)
    ball = mean_canaries(30, 40, radius=3.0, centre=1.0, rng=rng)
    assert np.allclose(np.linalg.norm(ball.records - 1.0, axis=1), 3.0)
    assert np.allclose(ball.directions @ ball.directions.T, np.eye(30), atol=1e-10)  # orthonormal when m <= d
    l1 = mean_canaries(10, 10, radius=2.0, norm=1, rng=rng)
    assert np.allclose(np.abs(l1.records).sum(axis=1), 2.0)
    assert sorted(np.flatnonzero(l1.directions)[:10] % 10) == list(range(10))  # distinct axes
    many = mean_canaries(30, 5, radius=1.0, rng=rng)
    assert np.allclose(np.linalg.norm(many.records, axis=1), 1.0)
    with pytest.raises(ValueError, match="either lower and upper"):
        mean_canaries(5, 3, rng=rng)
    with pytest.raises(ValueError, match="either lower and upper"):
        mean_canaries(5, 3, radius=1.0, lower=0, upper=1, rng=rng)
    with pytest.raises(ValueError, match="upper must exceed lower"):
        mean_canaries(5, 3, lower=1, upper=0, rng=rng)
    with pytest.raises(ValueError, match="norm"):
        mean_canaries(5, 3, radius=1.0, norm=3, rng=rng)
    with pytest.raises(ValueError, match="rng"):
        mean_canaries(5, 3, radius=1.0, rng=1)


def test_design_datasets_follow_the_neighbour_relation():
    rng = np.random.default_rng(2)
    des = mean_canaries(6, 6, radius=1.0, rng=rng)
    data = np.ones((4, 6))
    inc = np.array([1, 0, 1, 0, 0, 1], bool)
    ar = des.dataset(data, inc, "add_remove")
    assert ar.shape == (7, 6) and np.allclose(ar[4:], des.records[inc])
    rp = des.dataset(data, inc, "replace")
    assert rp.shape == (10, 6)
    assert np.allclose(rp[4:][inc], des.records[inc]) and np.allclose(rp[4:][~inc], des.out_records[~inc])


def test_regression_and_cluster_scores():
    rng = np.random.default_rng(3)
    reg = regression_canaries(4, 5, y_bounds=(-1, 1), radius=1.0, rng=rng)
    assert reg.records.shape == (4, 6) and np.all(reg.records[:, -1] == 1) and np.all(reg.out_records[:, -1] == -1)
    beta = reg.directions[2] * 3.0
    s = reg.scores(np.r_[beta, 0.5, 7.0])  # extra release entries (intercept ...) are ignored
    assert np.argmax(s) == 2 and s[2] == pytest.approx(3.0)
    cl = cluster_canaries(3, 4, radius=2.0, rng=rng)
    centres = np.vstack([cl.directions[1] * 2.0, -cl.directions[1]])
    s = cl.scores(centres.ravel())
    assert np.argmax(s) == 1 and s[1] == pytest.approx(2.0)
    with pytest.raises(ValueError, match="whole number"):
        cl.scores(np.zeros(5))
    with pytest.raises(ValueError, match="release_slice"):
        mean_canaries(3, 4, radius=1.0, rng=rng).scores(np.zeros(5))
    with pytest.raises(ValueError, match="y_bounds"):
        regression_canaries(4, 5, y_bounds=(1, 1), radius=1.0, rng=rng)
    with pytest.raises(ValueError, match="directions"):
        CanaryDesign(np.zeros((3, 2)), np.zeros((3, 2)), np.zeros((2, 2)))


# ------------------------------------------------------------------------------------------------------
# audit_one_run
# ------------------------------------------------------------------------------------------------------


def test_validity_gaussian_mean_over_seeds():
    eps, delta = 4.0, 1e-5
    sigma = analytic_gaussian_sigma(eps, delta, 1.0)
    bounds = run_seeds(gaussian_sum(sigma), eps, delta, m=200, d=200, norm=2, n_data=20)
    ok, x, c = exceedance_check(bounds, eps)
    assert ok, f"{x} of {N_SEEDS} bounds exceed the true epsilon (limit {c})"
    assert np.median(bounds) > 0  # the audit sees the canaries at all
    # the checker fails on a broken input: noise 10x too small and the true epsilon misstated as 1 (40 seeds; the
    # one-run ceiling at m = 200 is about 3.6, so a misstatement must put the stated epsilon below it to be seen)
    broken = run_seeds(gaussian_sum(sigma / 10), 1.0, delta, m=200, d=200, norm=2, seeds=40)
    assert not exceedance_check(broken, 1.0, n_seeds=40)[0]


def test_validity_laplace_mean_over_seeds():
    eps = 3.0
    bounds = run_seeds(laplace_sum(1.0 / eps), eps, 0.0, m=100, d=100, norm=1)
    ok, x, c = exceedance_check(bounds, eps)
    assert ok, f"{x} of {N_SEEDS} bounds exceed the true epsilon (limit {c})"
    assert np.median(bounds) > 0


def test_validity_pooled_runs_and_replace_neighbours_over_seeds():
    # three runs pooled (300 canaries), Laplace sum, add/remove
    eps = 3.0
    bounds = run_seeds(laplace_sum(1.0 / eps), eps, 0.0, m=100, d=100, norm=1, runs=3)
    ok, x, c = exceedance_check(bounds, eps)
    assert ok, f"pooled runs: {x} of {N_SEEDS} bounds exceed the true epsilon (limit {c})"
    assert np.median(bounds) > 0
    # replace neighbours: the slot holds the canary or its mirror image, l2 distance 2 = the replace sensitivity
    eps, delta = 4.0, 1e-5
    sigma = analytic_gaussian_sigma(eps, delta, 2.0)
    bounds = run_seeds(gaussian_sum(sigma), eps, delta, m=200, d=200, norm=2, n_data=20, neighbours="replace")
    ok, x, c = exceedance_check(bounds, eps)
    assert ok, f"replace: {x} of {N_SEEDS} bounds exceed the true epsilon (limit {c})"
    assert np.median(bounds) > 0


def test_power_under_noised_gaussian_is_violated():
    rng = np.random.default_rng(7)
    sigma = analytic_gaussian_sigma(8.0, 1e-5, 1.0)  # calibrated for epsilon = 8
    claim = PrivacyClaim(1.0, 1e-5, "add_remove")  # but claimed at epsilon = 1
    with threadpool_limits(1):
        des = mean_canaries(500, 500, radius=1.0, rng=rng)
        res = audit_one_run(gaussian_sum(sigma), np.zeros((0, 500)), claim, canaries=des, rng=rng)
    assert isinstance(res, AuditResult)
    assert res.verdict == "violated" and res.estimate > 1.0
    d = res.details
    assert d["correct"] <= d["guesses"] and d["guesses"] == d["k_plus"] + d["k_minus"]
    assert d["detectability"]["max_certifiable_epsilon"] >= res.estimate
    assert d["p_value_at_claim_bonferroni"] < ALPHA
    assert res.interval == (res.estimate, float("inf"))
    back = CheckResult.from_json(res.to_json())
    assert back.estimate == pytest.approx(res.estimate) and back.verdict == "violated"
    json.dumps(res.to_dict())


def test_correct_mechanism_is_consistent_and_small_m_is_inconclusive():
    rng = np.random.default_rng(8)
    sigma = analytic_gaussian_sigma(1.0, 1e-5, 1.0)
    claim = PrivacyClaim(1.0, 1e-5, "add_remove")
    res = audit_one_run(
        gaussian_sum(sigma), np.zeros((0, 300)), claim, canaries=mean_canaries(300, 300, radius=1.0, rng=rng), rng=rng
    )
    assert res.verdict == "consistent" and res.estimate <= 1.0
    tiny = audit_one_run(
        gaussian_sum(sigma),
        np.zeros((0, 4)),
        PrivacyClaim(2.0, 0.0, "add_remove"),
        canaries=mean_canaries(4, 4, radius=1.0, rng=rng),
        rng=rng,
    )
    assert tiny.verdict == "inconclusive"
    assert tiny.details["detectability"]["max_certifiable_epsilon"] <= 2.0


def test_runs_are_pooled_and_replace_neighbours_keep_the_size():
    rng = np.random.default_rng(9)
    sizes = []

    def fn(data, size, rng):
        sizes.append(len(data))
        return np.asarray(data).sum(axis=0) + rng.normal(0, 0.05, size=(size, np.asarray(data).shape[1]))

    mech = Mechanism(fn, name="leaky_sum")
    claim = PrivacyClaim(0.5, 0.0, "replace")
    res = audit_one_run(
        mech, np.zeros((5, 50)), claim, canaries=mean_canaries(50, 50, radius=1.0, rng=rng), runs=3, rng=rng
    )
    assert sizes == [55, 55, 55]
    assert res.details["canaries"]["pooled"] == 150 and res.n_samples == 3
    assert res.verdict == "violated"
    # a nearly unnoised sum reveals every canary: each plan errs only where the balanced +/- split forces it to
    # (a run includes about, not exactly, half of its canaries)
    forced = 2 * abs(sum(r["included"] for r in res.details["runs"]) - 75)  # errors forced on the all-guess plan
    for plan in res.details["plans"]:
        assert plan["correct"] >= plan["guesses"] - forced
    assert any(p["correct"] == p["guesses"] for p in res.details["plans"])


def test_regression_and_cluster_audits_flag_leaky_estimators():
    rng = np.random.default_rng(10)
    d = 60

    def reg(data, size, rng):  # X^T y with little noise: not the claimed epsilon = 1
        X, y = data[:, :-1], data[:, -1]
        return X.T @ y + rng.normal(0, 0.3, size=(size, X.shape[1]))

    data = np.column_stack([rng.normal(0, 0.1, (30, d)), rng.normal(0, 0.1, 30)])
    res = audit_one_run(
        Mechanism(reg),
        data,
        PrivacyClaim(1.0, 0.0, "replace"),
        canaries=regression_canaries(d, d, y_bounds=(-1, 1), radius=1.0, rng=rng),
        rng=rng,
    )
    assert res.verdict == "violated"

    def centres(data, size, rng):  # one Lloyd step from two fixed anchors, little noise
        x = np.asarray(data)
        side = x[:, 0] >= 0
        c = np.vstack([x[side].sum(0), x[~side].sum(0)])
        return c.ravel()[None, :] + rng.normal(0, 0.3, size=(size, c.size))

    res = audit_one_run(
        Mechanism(centres),
        np.zeros((0, d)),
        PrivacyClaim(1.0, 0.0, "add_remove"),
        canaries=cluster_canaries(d, d, radius=1.0, rng=rng),
        rng=rng,
    )
    assert res.verdict == "violated"


def test_audit_validation():
    rng = np.random.default_rng(11)
    des = mean_canaries(5, 3, radius=1.0, rng=rng)
    mech = gaussian_sum(1.0)
    claim = PrivacyClaim(1.0)
    with pytest.raises(ValueError, match="canaries"):
        audit_one_run(mech, np.zeros((0, 3)), claim, canaries="x", rng=rng)
    with pytest.raises(ValueError, match="runs"):
        audit_one_run(mech, np.zeros((0, 3)), claim, canaries=des, runs=0, rng=rng)
    with pytest.raises(ValueError, match="data"):
        audit_one_run(mech, np.zeros((2, 4)), claim, canaries=des, rng=rng)
    with pytest.raises(ValueError, match="claim"):
        audit_one_run(mech, np.zeros((0, 3)), None, canaries=des, rng=rng)
    with pytest.raises(ValueError, match="rng"):
        audit_one_run(mech, np.zeros((0, 3)), claim, canaries=des, rng=0)
    with pytest.raises(ValueError, match="alpha"):
        audit_one_run(mech, np.zeros((0, 3)), claim, canaries=des, rng=rng, alpha=0)
