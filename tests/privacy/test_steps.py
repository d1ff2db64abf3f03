"""Step audits (htdp_verify.privacy.steps) on noisy gradient descent (estimators.ngd).

Design of the statistical tests: every ``audit_steps`` call spends α = 0.05 family-wise (α/(2k) per step audit and
per run-level statement). A correctly calibrated step (ε_step ≈ 0.33 claimed at δ_step = δ/(2T)) is flagged with
probability ≤ α. The control that must fail is a NoisyGD whose drawn noise is σ/10 while its claims keep σ: one step
then has μ = 0.85 (per-step ε ≈ 3.5 at δ_step); 3000 releases per side certify ε_lb ≈ 1.1–1.4 against the claimed
0.33, so the violation is detected with a wide margin. The run-level lower bound is checked against the exact ε
of the under-noised run (which it must never exceed) and against the claimed ε = 1 (which it must exceed).
"""

import math

import numpy as np
import pytest

from estimators.ngd import NoisyGD, clip_rows, gaussian_sigma_for
from htdp_verify import PrivacyClaim
from htdp_verify.privacy import Calibration, epsilon_of
from htdp_verify.privacy.steps import SteppedEstimator, audit_steps, binary_composition_epsilon

T, EPS, DELTA = 10, 1.0, 1e-5


class UnderNoised(NoisyGD):
    """Draws a tenth of the stated noise; every claim is still computed from the stated σ (a deliberate bug)."""

    def _noise_std(self):
        return self.sigma / 10


def _pair():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(20, 2))
    y = X @ np.array([1.0, -1.0]) + rng.normal(size=20)
    d = np.column_stack([X, y])
    d[0] = [10.0, 0.0, 100.0]  # at θ near 0 its clipped gradient is (−C, 0) ...
    d2 = d.copy()
    d2[0] = [10.0, 0.0, -100.0]  # ... and here (+C, 0): the sums differ by exactly Δ = 2C
    return d, d2


def _est(cls=NoisyGD, **kw):
    return cls(epsilon=EPS, delta=DELTA, n_steps=T, clip=1.0, step_size=0.1, dim=2, **kw)


# ------------------------------------------------------------ exact binary composition (deterministic)


@pytest.mark.parametrize("k", [1, 4, 30])
@pytest.mark.parametrize("delta", [0.0, 1e-5, 1e-2])
def test_binary_composition_is_kairouz_oh_viswanath_for_randomised_response(k, delta):
    e0 = 0.7
    p = math.exp(e0) / (1 + math.exp(e0))
    kov = epsilon_of(Calibration("pure_dp", step_epsilon=e0, steps=k), delta)
    assert binary_composition_epsilon([(p, 1 - p)], delta, repeat=k) == pytest.approx(kov, abs=1e-8)
    if k <= 4:  # enumerating the product gives the same as the binomial reduction
        assert binary_composition_epsilon([(p, 1 - p)] * k, delta) == pytest.approx(kov, abs=1e-8)


def test_binary_composition_edge_cases():
    assert binary_composition_epsilon([(0.5, 0.0)], 0.0) == math.inf
    assert binary_composition_epsilon([(0.3, 0.3)], 1e-6) == 0.0
    # heterogeneous: orders both ways and more steps never decrease ε
    one = binary_composition_epsilon([(0.6, 0.2)], 1e-3)
    two = binary_composition_epsilon([(0.6, 0.2), (0.1, 0.4)], 1e-3)
    assert two > one > 0
    with pytest.raises(ValueError, match="tests"):
        binary_composition_epsilon([(1.2, 0.1)], 0.0)
    with pytest.raises(ValueError, match="repeat"):
        binary_composition_epsilon([(0.6, 0.2), (0.5, 0.1)], 0.0, repeat=3)


# ------------------------------------------------------------ the estimator


def test_ngd_calibration_is_exact_and_protocol_holds():
    est = _est()
    assert isinstance(est, SteppedEstimator)
    run = Calibration("gaussian", sensitivity=2.0, sigma=est.sigma, steps=T)
    assert epsilon_of(run, DELTA) == pytest.approx(EPS, rel=1e-9)
    assert gaussian_sigma_for(EPS, DELTA, 1.0, T, "add_remove") == pytest.approx(est.sigma / 2, rel=1e-9)
    g = est.step_guarantee(0)
    assert g.delta == pytest.approx(DELTA / (2 * T)) and 0 < g.epsilon < EPS


def test_ngd_sample_is_the_iteration_of_its_step_mechanism():
    est = _est()
    d, _ = _pair()
    theta = est.sample(d, 1, rng=np.random.default_rng(5))[0]
    rng, th = np.random.default_rng(5), np.zeros(2)
    for t in range(T):
        th = th - est.step_size * est.step_mechanism(th, t)(d, 1, rng)[0] / d.shape[0]
    np.testing.assert_allclose(theta, th, rtol=1e-12)
    many = est.sample(d, 5, rng=np.random.default_rng(6))
    assert many.shape == (5, 2) and np.all(np.isfinite(many))


def test_ngd_clip_and_validation():
    g = clip_rows(np.array([[3.0, 4.0], [0.3, 0.4]]), 1.0)
    np.testing.assert_allclose(np.linalg.norm(g, axis=1), [1.0, 0.5])
    with pytest.raises(ValueError, match="clip"):
        NoisyGD(epsilon=1, delta=1e-5, n_steps=2, clip=0.0, step_size=0.1, dim=2)
    with pytest.raises(ValueError, match="columns"):
        _est().sample(np.zeros((4, 2)), 2, rng=np.random.default_rng(0))
    with pytest.raises(ValueError, match="t must"):
        _est().step_mechanism(np.zeros(2), T)
    with pytest.raises(ValueError, match="state"):
        _est().step_mechanism(np.zeros(3), 0)


# ------------------------------------------------------------ step audits


def test_correct_calibration_steps_are_consistent():
    res = audit_steps(
        _est(), _pair(), {0: np.zeros(2), 7: np.array([0.5, -0.5])}, n_samples=3000, rng=np.random.default_rng(21)
    )
    assert res.verdict == "consistent"
    assert [s["verdict"] for s in res.steps] == ["consistent", "consistent"]
    assert res.details["accounting"]["verdict"] == "consistent"
    assert res.run_lower_bound is None and res.calibration_consequence is None
    assert res.details["reproducible"] is True


def test_under_noised_step_is_flagged_with_run_level_consequence():
    est = _est(UnderNoised)
    res = audit_steps(est, _pair(), {3: np.zeros(2)}, n_samples=3000, rng=np.random.default_rng(22))
    assert res.verdict == "violated" and res.violated_steps == [3]
    # the stated calibration itself still composes to the claim: the bug is in the noise drawn, not the accounting
    assert res.details["accounting"]["verdict"] == "consistent"
    lb = res.run_lower_bound
    true_run = epsilon_of(Calibration("gaussian", sensitivity=2.0, sigma=est.sigma / 10, steps=T), DELTA)
    assert EPS < lb["epsilon_lb"] <= true_run and lb["exceeds_claim"]
    assert res.steps[0]["epsilon_lb"] < lb["epsilon_lb"]  # ten steps at the same state reveal more than one
    cc = res.calibration_consequence
    assert cc["epsilon_at_best"] is not None and cc["epsilon_at_best"] > EPS
    assert "adaptive composition" in res.summary


def test_non_homogeneous_steps_compose_only_the_audited_ones():
    class Inhomogeneous(UnderNoised):
        step_homogeneous = False

    est = _est(Inhomogeneous)
    res = audit_steps(est, _pair(), [(0, np.zeros(2)), (4, np.zeros(2))], n_samples=3000, rng=np.random.default_rng(23))
    assert res.verdict == "violated"
    lb = res.run_lower_bound
    assert lb["from_steps"] == (0, 4)
    assert (
        max(s["epsilon_lb"] for s in res.steps)
        < lb["epsilon_lb"]
        <= epsilon_of(Calibration("gaussian", sensitivity=2.0, sigma=est.sigma / 10, steps=2), DELTA)
    )


def test_a_step_audited_at_two_states_is_composed_once():
    class Inhomogeneous(UnderNoised):
        step_homogeneous = False

    est = _est(Inhomogeneous)
    res = audit_steps(
        est, _pair(), [(2, np.zeros(2)), (2, np.array([0.1, 0.0]))], n_samples=2000, rng=np.random.default_rng(25)
    )
    assert res.verdict == "violated" and res.run_lower_bound["from_steps"] == (2,)
    one_step = epsilon_of(Calibration("gaussian", sensitivity=2.0, sigma=est.sigma / 10, steps=1), DELTA)
    assert res.run_lower_bound["epsilon_lb"] <= one_step


def test_accounting_flags_a_claim_the_stated_noise_does_not_give():
    res = audit_steps(
        _est(),
        _pair(),
        {0: np.zeros(2)},
        n_samples=2000,
        rng=np.random.default_rng(24),
        claim=PrivacyClaim(0.5, DELTA, "replace"),
    )
    assert res.details["accounting"]["verdict"] == "violated"
    assert res.verdict == "violated"


def test_audit_steps_validation():
    est, pair = _est(), _pair()
    with pytest.raises(ValueError, match="step index"):
        audit_steps(est, pair, {T: np.zeros(2)}, n_samples=100, rng=np.random.default_rng(0))
    with pytest.raises(ValueError, match="at least one"):
        audit_steps(est, pair, {}, n_samples=100, rng=np.random.default_rng(0))
    with pytest.raises(ValueError, match="step_mechanism"):

        class Bare:
            n_steps = 3

        audit_steps(Bare(), pair, {0: None}, n_samples=100, rng=np.random.default_rng(0))
    with pytest.raises(ValueError, match="data_pair"):
        audit_steps(est, pair[0], {0: np.zeros(2)}, n_samples=100, rng=np.random.default_rng(0))
