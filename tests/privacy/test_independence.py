"""Releases are i.i.d.: the engine's dispersion check (htdp_verify.privacy.independence) on every shipped estimator.

Design. ``check_independent_releases`` compares, for up to 7 events, the variance of the event's count across k
batches with the binomial variance (two-sided Pearson χ²_{k−1}, Bonferroni over the events). Every shipped
estimator is run at α = 1e-3 (about 25 estimators: a false alarm on some correct one has probability ≤ 2.5 % per
seed; seeds are fixed). At the default k = 30 batches of b = 500 the check detects a variance ratio ≥ 3.0
(within-batch indicator correlation ≥ 0.004) with power 0.8; the slow diffprivlib models use smaller batches and
say so. The check is shown to fail on deliberately dependent samplers (one noise draw shared by a batch: ratio ≈ b;
every call repeating the same releases: ratio 0) and on the former IterativeUpdatingMean, which drew its 64 random
directions once per chunk of releases for d > 3 (variance ratio 5.6 at n = 400, m = 10 groups, 5 iterations,
b = 500; benchmarks/bench_independence.py measures 1.5-2.3 at the defaults n = 2000, m = 20, 30 iterations).
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import numpy as np
import pytest
from diffprivlib.mechanisms import Laplace

import estimators
from estimators.base import DeterministicEstimator, Estimator, NoisyStatistic
from estimators.baselines import ClippedMeanGaussian, ClippedMeanLaplace, MedianOfMeans, NonPrivateMean, TrimmedMean
from estimators.dpem import WangCentralMean, WangLocalMean
from estimators.dpl import DPLMean, DPLMechanism, DPLMedian, DPLModel, DPLTool
from estimators.hu2022 import PrivateSmoothedSoftTruncationMean, SmoothedSoftTruncationMean
from estimators.zhao2024 import IterativeUpdatingMean, SimpleClippingMean
from htdp_verify import PrivacyClaim
from htdp_verify.privacy import audit, from_diffprivlib
from htdp_verify.privacy.dpl_adapter import DPLAdapter
from htdp_verify.privacy.independence import (
    WITHIN_CALL_ALPHA,
    check_independent_releases,
    dispersion_test,
    min_detectable_ratio,
    within_call_dispersion,
)

ALPHA = 1e-3


def _heavy(n, d=None, seed=0):
    g = np.random.default_rng(seed)
    return g.standard_t(3, size=n if d is None else (n, d)) + 1.0


def _peeling():
    from estimators.sparse import Peeling

    return Peeling(2, 0.5, 1e-5, 1.0), np.linspace(0.0, 3.0, 8)


def _regression(n=60, d=8, seed=0):
    g = np.random.default_rng(seed)
    X = g.standard_normal((n, d))
    return np.column_stack([X, X[:, 0] + 0.5 * g.standard_normal(n)])


def _trunc_iht():
    from estimators.iht import TruncatedDPIHT

    return TruncatedDPIHT(2, 1.0, 1e-5, K=2.0, T=2, eta0=0.5), _regression()


def _robust_iht():
    from estimators.iht import RobustDPIHT

    return RobustDPIHT(2, 1.0, 1e-5, k=3.0, T=2, eta=0.5), _regression(30)


def _nonprivate_iht():
    from estimators.iht import NonPrivateIHT

    return NonPrivateIHT(2, T=2, step=0.5), _regression()


def _noisy_gd():
    from estimators.ngd import NoisyGD

    return NoisyGD(epsilon=1.0, delta=1e-5, n_steps=3, clip=1.0, step_size=0.5, dim=3), _regression(40, 3)


def _dp_frank_wolfe():
    from estimators.sco import HeavyTailedDPFrankWolfe

    return HeavyTailedDPFrankWolfe(1.0, 4, 1.0), np.column_stack([_heavy(60, 3), _heavy(60, seed=1)])


def _private_lasso():
    from estimators.sco import HeavyTailedPrivateLasso

    return HeavyTailedPrivateLasso(0.5, 1e-5, 5, 2.0), np.column_stack([_heavy(60, 3), _heavy(60, seed=1)])


# id -> (factory returning (mechanism, data), class covered, keyword overrides for the check)
CASES = {
    "NonPrivateMean": (lambda: (NonPrivateMean(), _heavy(50)), NonPrivateMean, {}),
    "MedianOfMeans": (lambda: (MedianOfMeans(5), _heavy(50)), MedianOfMeans, {}),
    "TrimmedMean": (lambda: (TrimmedMean(0.1), _heavy(50)), TrimmedMean, {}),
    "ClippedMeanLaplace": (lambda: (ClippedMeanLaplace(1.0, -2.0, 4.0), _heavy(50)), ClippedMeanLaplace, {}),
    "ClippedMeanGaussian-2d": (
        lambda: (ClippedMeanGaussian(1.0, 1e-5, -2.0, 4.0), _heavy(50, 3)),
        ClippedMeanGaussian,
        {},
    ),
    "SmoothedSoftTruncationMean": (
        lambda: (SmoothedSoftTruncationMean(2.0), _heavy(50)),
        SmoothedSoftTruncationMean,
        {},
    ),
    "PrivateSmoothedSoftTruncationMean-3d": (
        lambda: (PrivateSmoothedSoftTruncationMean(1.0, 2.0), _heavy(50, 3)),
        PrivateSmoothedSoftTruncationMean,
        {},
    ),
    "WangCentralMean": (lambda: (WangCentralMean(1.0, 1e-5, 4.0), _heavy(200)), WangCentralMean, {}),
    "WangLocalMean-2d": (lambda: (WangLocalMean(1.0, 1e-5, 4.0), _heavy(200, 2)), WangLocalMean, {}),
    "SimpleClippingMean-4d": (lambda: (SimpleClippingMean(5.0, 0.5, 1e-5), _heavy(100, 4)), SimpleClippingMean, {}),
    "IterativeUpdatingMean-1d": (
        lambda: (IterativeUpdatingMean(5.0, 10, 1.0, 1e-5, n_iter=5), _heavy(400)),
        IterativeUpdatingMean,
        {},
    ),
    "IterativeUpdatingMean-2d-random": (
        lambda: (
            IterativeUpdatingMean(5.0, 10, 1.0, 1e-5, n_iter=5, partition="random", n_directions=36),
            _heavy(200, 2),
        ),
        IterativeUpdatingMean,
        {},
    ),
    "IterativeUpdatingMean-5d": (
        lambda: (IterativeUpdatingMean(5.0, 10, 1.0, 1e-5, n_iter=5), _heavy(400, 5, 1)),
        IterativeUpdatingMean,
        {},
    ),
    "IterativeUpdatingMean-5d-random": (
        lambda: (IterativeUpdatingMean(5.0, 10, 1.0, 1e-5, n_iter=5, partition="random"), _heavy(200, 5, 1)),
        IterativeUpdatingMean,
        {"n_batches": 20, "batch_size": 300},
    ),
    "Peeling": (_peeling, "Peeling", {}),
    "HeavyTailedDPFrankWolfe": (_dp_frank_wolfe, "HeavyTailedDPFrankWolfe", {}),
    "HeavyTailedPrivateLasso": (_private_lasso, "HeavyTailedPrivateLasso", {}),
    "TruncatedDPIHT": (_trunc_iht, "TruncatedDPIHT", {}),
    "RobustDPIHT": (_robust_iht, "RobustDPIHT", {"n_batches": 20, "batch_size": 100}),
    "NonPrivateIHT": (_nonprivate_iht, "NonPrivateIHT", {}),
    "NoisyGD": (_noisy_gd, "NoisyGD", {}),
    "DPLMean": (lambda: (DPLMean(1.0, (-2.0, 4.0)), _heavy(50)), DPLMean, {"batch_size": 300}),
    "DPLMedian": (lambda: (DPLMedian(1.0, (-2.0, 4.0)), _heavy(50)), DPLMedian, {"batch_size": 200}),
    "DPLMechanism-Laplace": (lambda: (DPLMechanism("Laplace", epsilon=1.0, sensitivity=1.0), 0.5), DPLMechanism, {}),
    "DPLMechanism-Exponential": (
        lambda: (DPLMechanism("Exponential", epsilon=1.0), np.array([0.0, 1.0, 2.0])),
        DPLMechanism,
        {},
    ),
    "DPLTool-histogram": (
        lambda: (DPLTool("histogram", epsilon=1.0, range=(0.0, 4.0), bins=4), _heavy(50)),
        DPLTool,
        {"batch_size": 300},
    ),
    # a model fit costs milliseconds: 20 batches of 60 (detects a variance ratio >= 3.7, correlation >= 0.05)
    "DPLModel-StandardScaler": (
        lambda: (
            DPLModel("StandardScaler", epsilon=1.0, bounds=(np.zeros(2), np.ones(2))),
            np.random.default_rng(0).random((30, 2)),
        ),
        DPLModel,
        {"n_batches": 20, "batch_size": 60},
    ),
    "from_diffprivlib-Laplace": (
        lambda: (from_diffprivlib(Laplace(epsilon=1.0, sensitivity=1.0)), 0.5),
        "from_diffprivlib",
        {},
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_shipped_estimators_release_iid(case):
    factory, _, kw = CASES[case]
    mech, data = factory()
    res = check_independent_releases(mech, data, alpha=ALPHA, rng=np.random.default_rng(2026), **kw)
    assert res.verdict == "consistent", res.summary


def test_every_shipped_estimator_is_covered():
    """A new estimator class (or diffprivlib adapter) must be added to CASES: the table is checked against the
    package."""
    found = set()
    for info in pkgutil.walk_packages(estimators.__path__, "estimators."):
        mod = importlib.import_module(info.name)
        for name, obj in vars(mod).items():
            if (
                inspect.isclass(obj)
                and obj.__module__ == mod.__name__
                and not name.startswith("_")
                and obj not in (Estimator, DeterministicEstimator, NoisyStatistic)
                and (issubclass(obj, Estimator) or issubclass(obj, DPLAdapter))
            ):
                found.add(obj.__name__)
    covered = {c if isinstance(c, str) else c.__name__ for _, c, _ in CASES.values()}
    assert found - covered == set(), f"estimators without an independence test: {sorted(found - covered)}"


# ---------------------------------------------------------------------------------------------------------------
# the check fails on dependent samplers
# ---------------------------------------------------------------------------------------------------------------
def _shared_noise(data, size, rng):
    """One Laplace draw shared by the whole batch: every release of a call is identical."""
    return np.full(size, float(np.mean(data)) + rng.laplace())


def _same_every_call(data, size, rng):
    """Ignores the auditor's generator: every call returns the same releases (fixed internal seed)."""
    return float(np.mean(data)) + np.random.default_rng(7).laplace(size=size)


def _iid(data, size, rng):
    return float(np.mean(data)) + rng.laplace(size=size)


@pytest.mark.parametrize(
    "sampler,verdict", [(_shared_noise, "violated"), (_same_every_call, "violated"), (_iid, "consistent")]
)
def test_check_flags_dependent_samplers(sampler, verdict):
    res = check_independent_releases(sampler, np.zeros(10), alpha=ALPHA, rng=np.random.default_rng(1))
    assert res.verdict == verdict, res.summary
    if verdict == "violated":
        ratio = res.estimate
        assert ratio > 10 or ratio < 0.1


class _SharedDirections(IterativeUpdatingMean):
    """The former d > 3 solver: 64 random directions drawn once per batch and shared by all its releases."""

    @staticmethod
    def _random_directions(k, d, rng):
        g = rng.normal(size=(64, d))
        return np.broadcast_to(g / np.linalg.norm(g, axis=1, keepdims=True), (k, 64, d))


def test_check_flags_directions_shared_by_a_batch():
    """The former IterativeUpdatingMean (d = 5) is flagged; the shipped one passes the same check (parametrised
    test above, same data and settings)."""
    est = _SharedDirections(5.0, 10, 1.0, 1e-5, n_iter=5)
    res = check_independent_releases(est, _heavy(400, 5, 1), alpha=ALPHA, rng=np.random.default_rng(2026))
    assert res.verdict == "violated" and res.estimate > 2.0, res.summary


# ---------------------------------------------------------------------------------------------------------------
# the test itself
# ---------------------------------------------------------------------------------------------------------------
def test_dispersion_test_exact_values():
    ratio, x2, p = dispersion_test([0, 10, 0, 10], 10)  # p̂ = 1/2: X² = 4·25/2.5 = 40 on 3 df
    assert x2 == pytest.approx(40.0) and ratio == pytest.approx(40 / 3) and p < 1e-7
    ratio, x2, p = dispersion_test([5, 5, 5, 5], 10)  # no variation at all: X² = 0, lower tail P(χ²_3 ≤ 0) = 0
    assert x2 == 0.0 and p == 0.0
    with pytest.raises(ValueError, match="counts"):
        dispersion_test([0, 0, 0], 10)
    with pytest.raises(ValueError, match="counts"):
        dispersion_test([0, 11], 10)


def test_dispersion_test_level_under_the_null():
    """Binomial counts: the two-sided test rejects at α = 0.05 in 5 % of 4000 simulated tables (k = 30, b = 500).
    Exact two-sided binomial acceptance band of the rejection rate for 4000 tables at level 1e-3: [0.039, 0.062];
    it detects a true level off by ≥ 0.016."""
    g = np.random.default_rng(5)
    pv = np.array([dispersion_test(g.binomial(500, 0.3, size=30), 500)[2] for _ in range(4000)])
    assert 0.039 <= np.mean(pv <= 0.05) <= 0.062


def test_min_detectable_ratio_and_validation():
    assert min_detectable_ratio(30, 0.01, 7) == pytest.approx(2.65, abs=0.01)
    assert min_detectable_ratio(100, 0.01, 7) < min_detectable_ratio(30, 0.01, 7)
    with pytest.raises(ValueError, match="n_batches"):
        check_independent_releases(_iid, np.zeros(3), n_batches=1, rng=np.random.default_rng(0))
    with pytest.raises(ValueError, match="rng"):
        check_independent_releases(_iid, np.zeros(3), rng=None)


def test_single_calls_catch_a_law_that_depends_on_size():
    """Red-team pass 4: a mechanism whose single-release path (size < 100) adds Laplace(0.25) instead of Laplace(1)
    (ε 4 against a claim of 1) was "consistent" under the fixed-n audit at 10/10 seeds, which calls with large sizes
    only.  ``single_calls=200`` compares 200 calls of size 1 with the batches (Fisher, in the Bonferroni family;
    for scalar releases the distance-to-median event is added, since a change of scale keeps the median): the leak
    is flagged at 10/10 seeds and a correct Laplace at 0/100 (α = 0.01, so ≤ 4 of 100 by chance with probability
    0.998)."""

    def size_leak(data, size, rng):
        return float(np.sum(np.clip(data, 0, 1))) + rng.laplace(0, 0.25 if size < 100 else 1.0, size)

    def correct(data, size, rng):
        return float(np.sum(np.clip(data, 0, 1))) + rng.laplace(0, 1.0, size)

    d = np.zeros(3)
    for s in range(10):
        r = check_independent_releases(size_leak, d, single_calls=200, rng=np.random.default_rng(s))
        assert r.verdict == "violated" and "depends on size" in r.summary
    assert check_independent_releases(size_leak, d, rng=np.random.default_rng(0)).verdict == "consistent"  # off
    bad = sum(
        check_independent_releases(correct, d, single_calls=200, rng=np.random.default_rng(s)).verdict == "violated"
        for s in range(100)
    )
    assert bad <= 4


# --- the audit's own check: certification counts across its calls (red-team pass, 2026-11-29) --------------------


def test_within_call_dispersion_holds_its_level_where_the_chi2_approximation_is_weakest():
    # Binomial block counts at the smallest expected count the check accepts (5 per block) and 16 blocks: the
    # upper-tail χ² p-value must not reject at WITHIN_CALL_ALPHA / 2 = 5e-5 more than a few times in 20 000
    # replicates (expected 1; 6 or more has probability < 1e-3 under a correct level, and a check read at the
    # two-sided or a naive normal level would sit far above it).
    rng = np.random.default_rng(11)
    size, p = 1000, 0.005
    counts = rng.binomial(size, p, (20_000, 16))
    rejected = 0
    for c in counts:
        r = within_call_dispersion(c, np.full(16, size))
        rejected += r is not None and r["p_value"] < WITHIN_CALL_ALPHA / 2
    assert rejected <= 5, rejected


def test_within_call_dispersion_needs_enough_calls_and_counts():
    assert within_call_dispersion([50], [100]) is None  # fewer than MIN_CALLS calls
    assert within_call_dispersion(np.full(16, 2), np.full(16, 1000)) is None  # expected 2 per call: no χ² test
    partial = within_call_dispersion(np.r_[np.full(8, 50), 1], np.r_[np.full(8, 100), 3])  # expected 1.5: left out
    assert partial is not None and partial["calls"] == 8 and partial["ratio"] < 1e-3  # p̂ counts the small one


def _shared(data, size, rng):
    """One Laplace draw shared by the whole call: every release is ε ≤ 1 (post-processing), the call's releases
    are not independent."""
    return np.sum(data) + rng.laplace(0.0, 1.0) + 1e-3 * rng.standard_normal(size)


def _offset(data, size, rng):
    """i.i.d. Laplace(1) releases plus a N(0, 0.1²) offset shared by the call (ε ≤ 1 per release)."""
    return np.sum(data) + rng.laplace(0.0, 1.0, size) + 0.1 * rng.standard_normal()


def _iid(data, size, rng):
    return np.sum(data) + rng.laplace(0.0, 1.0, size)


@pytest.mark.parametrize("mech, at_least", [(_shared, 10), (_offset, 8)])
def test_audit_reads_shared_randomness_within_a_call_as_inconclusive(mech, at_least):
    # Before: the shared draw was certified "violated" at 9 of 30 seeds (ε_lb up to 8.8 against a true ε ≤ 1) and
    # the shared offset at 12 of 30 (up to 1.145), with no warning.  Now the certification's 16 calls per side are
    # compared: at 20 000 releases per side the check flagged 30/30 and 28/30 seeds (design: ≥ 10 and ≥ 8 of 10).
    # An i.i.d. control at the same seeds is never flagged (the level is 1e-4 per audit).
    pair = [(np.zeros(3), np.r_[0.0, 0.0, 1.0])]
    flagged = 0
    for seed in range(10):
        r = audit(mech, PrivacyClaim(1.0), pairs=pair, n_samples=20_000, rng=np.random.default_rng(seed))
        dep = r.details["within_call_check"]["dependent"]
        flagged += dep
        assert r.verdict != "violated" or not dep
        if dep:
            assert r.verdict == "inconclusive" and any("share randomness" in w for w in r.details["warnings"])
        ctrl = audit(_iid, PrivacyClaim(1.0), pairs=pair, n_samples=20_000, rng=np.random.default_rng(seed))
        assert not ctrl.details["within_call_check"]["dependent"]
    assert flagged >= at_least, flagged


def test_sequential_audits_run_the_within_call_check_across_their_calls():
    # A sequential audit draws each checkpoint in one call per side, so it can only compare checkpoints: the shared
    # draw is seen when two checkpoints' draws differ.  Before, no check ran (25 of 30 seeds "violated", ε_lb up to
    # 3.2, no warning); now, at seeds 0-9, 3 are flagged (inconclusive) and 5 still certify a false "violated": the
    # residual hole the guide states.  The check must run (flagged ≥ 2: a check not wired in gives 0), never flag
    # the i.i.d. control, and a flagged audit is never "violated".
    pair = [(np.zeros(3), np.r_[0.0, 0.0, 1.0])]
    flagged = 0
    for seed in range(10):
        r = audit(
            _shared, PrivacyClaim(1.0), pairs=pair, n_samples=20_000, rng=np.random.default_rng(seed), sequential=True
        )
        dep = r.details["within_call_check"]["dependent"]
        flagged += dep
        assert not (dep and r.verdict == "violated")
        ctrl = audit(
            _iid, PrivacyClaim(1.0), pairs=pair, n_samples=20_000, rng=np.random.default_rng(seed), sequential=True
        )
        assert not ctrl.details["within_call_check"]["dependent"]
    assert flagged >= 2, flagged


def test_within_call_dispersion_with_unequal_calls():
    # Pearson's 2 x B statistic with unequal sizes: equal counts per release give 0; a block far off gives a tiny p
    r = within_call_dispersion([10, 20, 40], [100, 200, 400])
    assert r is not None and r["ratio"] == 0.0 and r["p_value"] == 1.0 and r["calls"] == 3
    far = within_call_dispersion([0, 200, 40], [100, 200, 400])
    assert far is not None and far["p_value"] < 1e-10
    with pytest.raises(ValueError, match="same length"):
        within_call_dispersion([1, 2], [10])
