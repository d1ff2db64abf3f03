"""Tests for the mean estimators (estimators/robust.py, hu2022/, dpem/, zhao2024/) and estimators/baselines.py.

Design (ARCHITECTURE.md, "Tests are deterministic and designed"): every random test uses a fixed seed; each
statistical assertion states its α and the smallest effect it detects in its docstring. Sensitivity checks are
deterministic: they compare noise-free statistics on adversarial neighbouring datasets.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from estimators.baselines import (
    ClippedMeanGaussian,
    ClippedMeanLaplace,
    MedianOfMeans,
    NonPrivateMean,
    TrimmedMean,
    analytic_gaussian_sigma,
)
from estimators.dpem import WangCentralMean, WangLocalMean, wang_eps_tilde
from estimators.hu2022 import PrivateSmoothedSoftTruncationMean, SmoothedSoftTruncationMean, hu_lemma4_scale
from estimators.robust import (
    SOFT_TRUNCATION_BOUND,
    clip_rows,
    expected_soft_truncation,
    expected_soft_truncation_closed_form,
    smoothed_bound,
    smoothed_soft_truncation,
    soft_truncation,
    soft_truncation_statistic,
)
from estimators.zhao2024 import (
    IterativeUpdatingMean,
    SimpleClippingMean,
    calibrate_group_rho,
    shuffle_amplified_epsilon,
)

C = SOFT_TRUNCATION_BOUND
HYP = settings(derandomize=True, deadline=None, max_examples=150)


# ---------------------------------------------------------------------------------------------------------------
# high-precision reference for E φ(a + bZ): the exact closed form evaluated in mpmath at enough digits to absorb
# the |a|³ cancellation (40 + 3·log10 max(|a|, b) digits)
# ---------------------------------------------------------------------------------------------------------------
def _mp_reference(a: float, b: float) -> float:
    mp = pytest.importorskip("mpmath")
    if b == 0:
        return float(soft_truncation(a))
    mag = max(abs(a), b, 1.0)
    with mp.workdps(45 + int(3 * math.log10(mag))):
        a, b = mp.mpf(a), mp.mpf(b)
        s2 = mp.sqrt(2)
        c = 2 * s2 / 3
        s2p = mp.sqrt(2 * mp.pi)
        vm, vp = (s2 - a) / b, (s2 + a) / b

        def tail(v):  # (P(Z > v), exp(-v²/2)); beyond |v| = 1e6 both are exact to far below double precision
            if v > 10**6:
                return mp.mpf(0), mp.mpf(0)
            if v < -(10**6):
                return mp.mpf(1), mp.mpf(0)
            return mp.ncdf(-v), mp.exp(-v * v / 2)

        fm, em = tail(vm)
        fp, ep = tail(vp)
        t1 = c * (fm - fp)
        t2 = -(a - a**3 / 6) * (fm + fp)
        t3 = b / s2p * (1 - a * a / 2) * (ep - em)
        t4 = a * b * b / 2 * (fp + fm + (vp * ep + vm * em) / s2p)
        t5 = b**3 / (6 * s2p) * ((2 + vm * vm) * em - (2 + vp * vp) * ep)
        return float(a * (1 - b * b / 2) - a**3 / 6 + t1 + t2 + t3 + t4 + t5)


_log_mag = st.floats(-300, 300)
_sign = st.sampled_from([-1.0, 1.0])
_loc = st.one_of(st.floats(-6, 6), st.builds(lambda s, e: s * 10.0**e, _sign, _log_mag))
_spread = st.one_of(st.floats(1e-3, 10), st.builds(lambda e: 10.0**e, _log_mag), st.just(0.0))
_beta = st.floats(0.05, 100)


@HYP
@given(a=_loc, b=_spread)
def test_expected_soft_truncation_matches_mpmath_and_is_bounded(a, b):
    """E φ(a + bZ) agrees with a ≥45-digit evaluation of the exact closed form to 1e-13 absolute + 1e-12 relative
    over a, b spanning ±1e±300 (observed worst: 3e-15 absolute), and never leaves [−2√2/3, 2√2/3]."""
    got = float(expected_soft_truncation(a, b))
    ref = _mp_reference(a, b)
    assert abs(got) <= C
    assert abs(got - ref) <= 1e-13 + 1e-12 * abs(ref)


@HYP
@given(sign=_sign, log_a=st.floats(-300, 99), beta=_beta)
def test_smoothed_soft_truncation_matches_mpmath(sign, log_a, beta):
    """ψ_β(a) = E φ(a + |a|Z/√β): relative error ≤ 1e-12 against mpmath for |a| ∈ [1e-300, 1e99] (observed ≤ 7e-16)."""
    a = sign * 10.0**log_a
    got = float(smoothed_soft_truncation(a, beta))
    ref = _mp_reference(a, abs(a) / math.sqrt(beta))
    assert abs(got - ref) <= 1e-300 + 1e-12 * abs(ref)


@HYP
@given(
    x=st.lists(
        st.one_of(st.floats(-1e300, 1e300), st.builds(lambda s, e: s * 10.0**e, _sign, _log_mag)),
        min_size=1,
        max_size=20,
    ),
    log_s=st.floats(-300, 300),
    beta=_beta,
)
def test_statistic_within_proven_bound_on_extreme_inputs(x, log_s, beta):
    """For any finite data (±1e300) and scales 1e-300…1e300 (x/s overflows to ±inf), every per-sample value stays
    in ±(2√2/3)·erf(√(β/2)) ≤ 2√2/3, so |x̂| ≤ s·bound; nothing is NaN."""
    s = 10.0**log_s
    with np.errstate(over="ignore"):
        psi = smoothed_soft_truncation(np.asarray(x) / s, beta)
    bound = smoothed_bound(beta)
    assert np.all(np.isfinite(psi)) and np.all(np.abs(psi) <= bound) and bound <= C
    stat = float(soft_truncation_statistic(x, s, beta))
    assert math.isfinite(stat) and abs(stat) <= s * bound * (1 + 1e-12)


def test_closed_form_cancels_catastrophically_but_stable_does_not():
    """The printed closed form leaves the bound at |a| = 1e6 (documented hazard); the stable form matches the limit
    c·erf(√(β/2)) to 1e-12 from a = 1e6 on, is odd, and is monotone on a log grid."""
    a = np.array([1e6, 1e8, 1e12])
    naive = expected_soft_truncation_closed_form(a, a)  # β = 1
    assert np.any(np.abs(naive) > C)
    stable = smoothed_soft_truncation(a, 1.0)
    assert np.allclose(stable, smoothed_bound(1.0), rtol=0, atol=1e-12)
    pos = np.logspace(-12, 12, 400)
    grid = np.concatenate([-pos[::-1], [0.0], pos])
    vals = smoothed_soft_truncation(grid, 2.0)
    assert np.all(np.diff(vals) >= -1e-15)
    assert np.array_equal(vals, -vals[::-1])
    assert smoothed_soft_truncation(np.inf, 2.0) == smoothed_bound(2.0)


# ---------------------------------------------------------------------------------------------------------------
# deterministic sensitivity checks on adversarial neighbours
# ---------------------------------------------------------------------------------------------------------------
BASE = np.random.default_rng(20240601).standard_t(3, size=200) + 1.0
EXTREMES = [1e12, -1e12, 1e300, -1e300, 0.0, 5e-324]


def _neighbours(base, values):
    for v in values:
        d2 = base.copy()
        d2[0] = v
        yield d2
    for v in values:  # both rows moved: the "+G vs −G" worst case
        d1, d2 = base.copy(), base.copy()
        d1[0], d2[0] = v, -v
        yield d1, d2


def _max_change(stat, base, values):
    worst = 0.0
    for nb in _neighbours(base, values):
        d1, d2 = nb if isinstance(nb, tuple) else (base, nb)
        worst = max(worst, float(np.max(np.abs(np.asarray(stat(d1)) - np.asarray(stat(d2))))))
    return worst


@pytest.mark.parametrize("beta", [0.5, 1.0, 4.0])
@pytest.mark.parametrize("scale", [1e-8, 3.0, 1e8])
def test_hu_sensitivity_bound_holds_and_tight_bound_is_attained(beta, scale):
    est = PrivateSmoothedSoftTruncationMean(1.0, scale, beta, sensitivity="tight")
    n = len(BASE)
    change = _max_change(est.statistic, BASE, EXTREMES)
    tight = est.sensitivity(n)
    assert change <= tight * (1 + 1e-9)
    assert tight <= SmoothedSoftTruncationMean(scale, beta).sensitivity(n, "paper")
    assert change >= tight * (1 - 1e-9)  # +1e300 vs −1e300 realises sup |ψ_β| on both sides


def test_hu_closed_form_canary_violates_the_sensitivity():
    """Evaluating the printed closed form literally breaks the bound the privacy proof needs (Hu spec P6)."""
    canary = PrivateSmoothedSoftTruncationMean(1.0, 1.0, 1.0, evaluation="closed_form")
    change = _max_change(canary.statistic, BASE, [1e6, 1e8])
    assert change > canary.sensitivity(len(BASE))


def test_vector_hu_and_laplace_scale():
    x = np.column_stack([BASE, -BASE, BASE * 1e3])
    est = PrivateSmoothedSoftTruncationMean(0.5, 2.0, 1.0)
    y = x.copy()
    y[0] = [1e300, -1e300, 1e12]
    diff = np.abs(est.statistic(x) - est.statistic(y))
    assert diff.shape == (3,) and np.all(diff <= est.sensitivity(len(x)) * (1 + 1e-9))
    assert est.noise_scale(len(x), 3) == pytest.approx(3 * est.sensitivity(len(x)) / 0.5)


def test_wang_sensitivities():
    n = len(BASE)
    central = WangCentralMean(1.0, 1e-5, tau=4.0)
    assert _max_change(central.statistic, BASE, EXTREMES) <= central.sensitivity(n) * (1 + 1e-9)
    local = WangLocalMean(1.0, 1e-5, tau=4.0)
    reports = local._transformed(np.array([1e300, -1e300, 0.0, 3.0]))
    assert np.ptp(reports) <= local.sensitivity(n) * (1 + 1e-9)


def test_zhao_simple_clipping_sensitivity_l2():
    rng = np.random.default_rng(1)
    x = rng.standard_t(3, size=(100, 3))
    est = SimpleClippingMean(radius=2.0, rho=0.5, delta=1e-5)
    u = np.array([1.0, -2.0, 0.5]) / np.linalg.norm([1.0, -2.0, 0.5])
    worst = 0.0
    for g in [1e12, 1e300, 2.0]:
        a, b = x.copy(), x.copy()
        a[0], b[0] = g * u, -g * u
        worst = max(worst, np.linalg.norm(est.statistic(a) - est.statistic(b)))
    assert worst <= est.sensitivity(100) * (1 + 1e-12)
    assert worst >= est.sensitivity(100) * (1 - 1e-12)
    assert np.allclose(
        clip_rows(np.array([[1e300, -1e300], [3e-320, 0.0]]), 2.0), [[math.sqrt(2), -math.sqrt(2)], [3e-320, 0.0]]
    )


@pytest.mark.parametrize("partition", ["index", "random"])
def test_zhao_group_means_sensitivity(partition):
    """Each noisy group mean has ℓ2 sensitivity 2R/|B_j| (noise-free group means compared; 101 records, 7 groups)."""
    rng = np.random.default_rng(2)
    x = rng.standard_t(3, size=(101, 2))
    est = IterativeUpdatingMean(3.0, 7, 1.0, 1e-5, partition=partition)
    sizes = est.group_sizes(101)
    assert sizes.sum() == 101  # no record dropped
    perm = rng.permutation(101)[None] if partition == "random" else None
    for row in [0, 50, 100]:
        a, b = x.copy(), x.copy()
        a[row], b[row] = [1e12, 1e12], [-1e300, 0.0]
        ga = est._group_means(clip_rows(a, 3.0), perm)
        gb = est._group_means(clip_rows(b, 3.0), perm)
        change = np.linalg.norm(ga - gb, axis=-1).reshape(-1)
        assert np.all(change <= 2 * 3.0 / sizes * (1 + 1e-12))
        assert np.count_nonzero(change) == 1


def test_baseline_sensitivities():
    for est in [ClippedMeanLaplace(1.0, -2.0, 5.0), ClippedMeanGaussian(1.0, 1e-5, -2.0, 5.0)]:
        assert _max_change(est.statistic, BASE, EXTREMES) <= est.sensitivity(len(BASE)) * (1 + 1e-12)


# ---------------------------------------------------------------------------------------------------------------
# privacy declarations and calibrations
# ---------------------------------------------------------------------------------------------------------------
def test_privacy_declarations():
    for eps, delta in [(0.2, 1e-6), (1.0, 1e-5), (4.0, 1e-3)]:
        w = WangCentralMean(eps, delta, tau=1.0)
        assert w.privacy.epsilon == pytest.approx(eps, rel=1e-12) and w.privacy.neighbours == "replace"
        assert w.privacy.rho == pytest.approx(wang_eps_tilde(eps, delta) ** 2)
        printed = WangCentralMean(eps, delta, tau=1.0, variant="as_printed")
        assert printed.privacy.epsilon == eps  # the claim under test ...
        assert printed.noise_std(1000) < w.noise_std(1000)  # ... with too little noise
        sc = SimpleClippingMean.for_target(eps, delta, radius=1.0)
        assert sc.privacy.epsilon == pytest.approx(eps, rel=1e-12)
        assert sc.noise_std(10) == pytest.approx(2 / 10 / math.sqrt(2 * sc.rho))
    assert PrivateSmoothedSoftTruncationMean(0.3, 1.0).privacy.delta == 0.0


def test_group_level_calibration_reproduces_spec_table():
    """Zhao spec §3.3 table: target (1, 1e-5), m = 1e4 gives ε0 ≈ 3.60, ρ0 ≈ 0.13; m = 100 gives no amplification."""
    cal = calibrate_group_rho(1.0, 1e-5, 10_000)
    assert cal["eps0"] == pytest.approx(3.60, abs=0.02) and cal["rho0"] == pytest.approx(0.132, abs=0.005)
    assert shuffle_amplified_epsilon(cal["eps0"], 10_000, cal["delta_prime"]) <= 1.0
    assert calibrate_group_rho(1.0, 1e-5, 100)["eps0"] == pytest.approx(1.0)
    par = IterativeUpdatingMean(1.0, 10_000, 1.0, 1e-5, calibration="parallel")
    assert par.privacy.epsilon == pytest.approx(1.0, rel=1e-12) and par.rho0 < cal["rho0"]


def test_analytic_gaussian_is_tighter_than_classic():
    s = analytic_gaussian_sigma(0.5, 1e-5, 1.0)
    assert s < math.sqrt(2 * math.log(1.25 / 1e-5)) / 0.5
    assert analytic_gaussian_sigma(1.0, 1e-5, 1.0) == pytest.approx(3.7306, abs=1e-3)  # Balle & Wang 2018


# ---------------------------------------------------------------------------------------------------------------
# sample vs __call__: same law, reproducible
# ---------------------------------------------------------------------------------------------------------------
DATA = np.random.default_rng(7).standard_t(3, size=300) + 1.0
ESTIMATORS = {
    "hu": PrivateSmoothedSoftTruncationMean(1.0, 5.0, 1.0),
    "wang_central": WangCentralMean(1.0, 1e-5, tau=4.0),
    "wang_local": WangLocalMean(1.0, 1e-5, tau=4.0),
    "simple_clipping": SimpleClippingMean.for_target(1.0, 1e-5, radius=5.0),
    "iterative_index": IterativeUpdatingMean(5.0, 10, 1.0, 1e-5),
    "iterative_random": IterativeUpdatingMean(5.0, 10, 1.0, 1e-5, partition="random"),
    "laplace": ClippedMeanLaplace(1.0, -5.0, 5.0),
    "gaussian": ClippedMeanGaussian(1.0, 1e-5, -5.0, 5.0),
}


@pytest.mark.parametrize("name", sorted(ESTIMATORS))
def test_sample_matches_call_in_distribution(name):
    """KS two-sample test, 400 `__call__` releases vs 4000 `sample` releases, α = 1e-3 per estimator (8 tests:
    family-wise ≤ 8e-3). Critical D ≈ 0.102: detects e.g. a location shift of ≈ 0.25 noise-sd or a noise-scale
    error of ≈ 50%."""
    est = ESTIMATORS[name]
    rng = np.random.default_rng(sum(map(ord, name)))
    calls = np.array([est(DATA, rng=rng) for _ in range(400)])
    batch = est.sample(DATA, 4000, rng=rng)
    assert batch.shape == (4000,) and calls.shape == (400,)
    assert stats.ks_2samp(calls, batch).pvalue > 1e-3


@pytest.mark.parametrize("name", sorted(ESTIMATORS))
def test_sample_reproducible_and_shaped(name):
    est = ESTIMATORS[name]
    a = est.sample(DATA, 5, rng=np.random.default_rng(3))
    b = est.sample(DATA, 5, rng=np.random.default_rng(3))
    assert np.array_equal(a, b)
    x2 = np.column_stack([DATA, -DATA])
    assert est.sample(x2, 4, rng=np.random.default_rng(0)).shape == (4, 2)
    assert np.asarray(est(x2, rng=np.random.default_rng(0))).shape == (2,)


@pytest.mark.parametrize("d", [1, 2, 4])
def test_iterative_updating_is_permutation_invariant(d):
    """Permuting the noisy group means Z (noise held fixed) does not change the output (Zhao spec §3.5)."""
    rng = np.random.default_rng(d)
    est = IterativeUpdatingMean(5.0, 30, 1.0, 1e-5, n_iter=10)
    Z = rng.normal(loc=2.0, size=(3, 30, d))
    out1 = est._iterate(Z, np.random.default_rng(0))
    out2 = est._iterate(Z[:, rng.permutation(30)], np.random.default_rng(0))
    assert np.allclose(out1, out2, atol=1e-12)
    assert est.solver_kind_for(d) == {1: "exact", 2: "grid-exact", 4: "heuristic"}[d]


# ---------------------------------------------------------------------------------------------------------------
# error decreases with n on Student-t data
# ---------------------------------------------------------------------------------------------------------------
def _median_error(make, n, reps, seed, mean=1.0):
    rng = np.random.default_rng(seed)
    errs = [abs(float(make(n)(rng.standard_t(3, size=n) + mean, rng=rng)) - mean) for _ in range(reps)]
    return float(np.median(errs))


RATE_CASES = {  # name: (factory of n, ratio bound for n = 1e3 -> 3.2e4; theory ratio in the comment)
    "hu": (lambda n: PrivateSmoothedSoftTruncationMean(1.0, hu_lemma4_scale(n, 4.0, 1.0, 0.05), 1.0), 0.5),  # 0.18
    "wang_central": (lambda n: WangCentralMean(1.0, 1e-5, tau=4.0), 0.5),  # 0.18
    "wang_local": (lambda n: WangLocalMean(1.0, 1e-5, tau=4.0), 0.75),  # 0.42
    "simple_clipping": (lambda n: SimpleClippingMean.for_target(1.0, 1e-5, radius=math.sqrt(n)), 0.5),
    "iterative": (lambda n: IterativeUpdatingMean(20.0, 20, 1.0, 1e-5), 0.5),
    "median_of_means": (lambda n: MedianOfMeans(15), 0.5),
}


@pytest.mark.parametrize("name", sorted(RATE_CASES))
def test_error_decreases_with_n_on_student_t(name):
    """t₃ + 1 data (E x² = 4), median |error| over 150 replicates at n = 1e3 vs 3.2e4. Theory predicts a ratio of
    (1/32)^{1/2} ≈ 0.18 (n^{-1/4}: 0.42 for the local model); we require < 0.5 (< 0.75 local). With 150 replicates
    the sample median's relative sd is ≈ 10%, so a correct estimator fails with negligible probability, while an
    error that does not decrease (ratio ≥ 1) is detected with near certainty."""
    make, bound = RATE_CASES[name]
    small = _median_error(make, 1000, 150, seed=11)
    large = _median_error(make, 32_000, 150, seed=12)
    assert large < bound * small


# ---------------------------------------------------------------------------------------------------------------
# validation
# ---------------------------------------------------------------------------------------------------------------
RNG = np.random.default_rng(0)
INVALID = [
    (lambda: SmoothedSoftTruncationMean(-1.0), "scale"),
    (lambda: SmoothedSoftTruncationMean(1.0, 0.0), "beta"),
    (lambda: SmoothedSoftTruncationMean(1.0, evaluation="naive"), "evaluation"),
    (lambda: PrivateSmoothedSoftTruncationMean(0.0, 1.0), "epsilon"),
    (lambda: PrivateSmoothedSoftTruncationMean(1.0, 1.0, sensitivity="loose"), "sensitivity"),
    (lambda: WangCentralMean(1.0, 1.5, 1.0), "delta"),
    (lambda: WangCentralMean(1.0, 1e-5, 0.0), "tau"),
    (lambda: WangCentralMean(1.0, 1e-5, 1.0, zeta=1.0), "zeta"),
    (lambda: WangCentralMean(1.0, 1e-5, 1.0, calibration="classic"), "epsilon"),
    (lambda: WangCentralMean(0.5, 1e-5, 1.0, variant="typo"), "variant"),
    (lambda: WangCentralMean(1.0, 1e-5, 1.0, tuning="x"), "tuning"),
    (lambda: SimpleClippingMean(0.0, 1.0, 1e-5), "radius"),
    (lambda: SimpleClippingMean(1.0, -1.0, 1e-5), "rho"),
    (lambda: IterativeUpdatingMean(1.0, 0, 1.0, 1e-5), "n_groups"),
    (lambda: IterativeUpdatingMean(1.0, 5, 1.0, 1e-5, vote=0.4), "vote"),
    (lambda: IterativeUpdatingMean(1.0, 5, 1.0, 1e-5, partition="shuffled"), "partition"),
    (lambda: IterativeUpdatingMean(1.0, 500, 1.0, 1e-5).sample(DATA, 2, rng=RNG), "n_groups"),
    (lambda: ClippedMeanLaplace(1.0, 2.0, 1.0), "upper"),
    (lambda: ClippedMeanGaussian(1.0, 1e-5, 0, 1, calibration="classic"), "epsilon"),
    (lambda: TrimmedMean(0.5), "proportion"),
    (lambda: MedianOfMeans(1000).statistic(DATA), "n_blocks"),
    (lambda: NonPrivateMean()(np.array([1.0, np.nan]), rng=RNG), "data"),
    (lambda: ESTIMATORS["hu"](np.array([1.0, np.inf]), rng=RNG), "data"),
    (lambda: ESTIMATORS["hu"](np.zeros((2, 2, 2)), rng=RNG), "data"),
    (lambda: ESTIMATORS["hu"](DATA, rng=None), "rng"),
    (lambda: ESTIMATORS["wang_central"].sample(DATA, 0, rng=RNG), "size"),
    (lambda: expected_soft_truncation(1.0, -1.0), "b"),
    (lambda: smoothed_soft_truncation(np.nan, 1.0), "a"),
]


@pytest.mark.parametrize("call,param", INVALID, ids=[p for _, p in INVALID])
def test_invalid_inputs_raise_value_error_naming_the_parameter(call, param):
    with pytest.raises(ValueError, match=param):
        call()
