"""Lower-bound instances: formulas by hand, self-tests, and the cannot-beat check tested both ways.

Design of the cannot-beat tests: at α = 0.05 the check flags when the 95% CP upper bound of
P(error ≥ r) is below the bound's probability L.  With 2 members × 3000 replications the CP upper bound
exceeds the true rate by ≤ 0.02 near the rates seen here, so an estimator whose true rate is ≤ L − 0.03 is
flagged with probability > 0.95 (the non-private mean has rate ≈ 0.07 vs L ≈ 0.24 at ε = 0.1), and a private
estimator with true rate ≥ L is flagged with probability ≤ 0.05 (validity of the bound + CP).
"""

import math

import numpy as np
import pytest
from scipy import stats as sst

from htdp_verify import lowerbounds as lb


def test_private_two_point_formula_by_hand():
    # E e^{-εH}, H ~ Bin(n, q): (1 - q + q e^{-ε})^n
    n, q, eps = 50, 0.02, 0.7
    by_hand = sum(sst.binom.pmf(h, n, q) * math.exp(-eps * h) for h in range(n + 1))
    assert lb.private_two_point_error(n, q, eps) == pytest.approx(by_hand, rel=1e-12)
    # with δ: minus δ e^{-ε} n q
    assert lb.private_two_point_error(n, q, eps, 1e-3) == pytest.approx(by_hand - 1e-3 * math.exp(-eps) * n * q)


def test_private_multipoint_formula_by_hand():
    n, q, eps, M = 40, 0.01, 0.5, 64
    mgf = sum(sst.binom.pmf(h, n, q) * math.exp(eps * h) for h in range(n + 1))
    assert lb.private_multipoint_error(n, q, eps, M) == pytest.approx(1 - mgf / M, rel=1e-12)
    eh = sum(sst.binom.pmf(h, n, q) * h * math.exp(eps * (h - 1)) for h in range(n + 1))
    assert lb.private_multipoint_error(n, q, eps, M, 1e-4) == pytest.approx(1 - mgf / M - 1e-4 * eh, rel=1e-10)


def test_spike_instance_values_by_hand():
    inst = lb.mean_1d_spike(4, 1000, 1.0, p=0.001)
    s = (1 / 0.001) ** 0.25
    b = inst.bound()
    assert inst.radius == pytest.approx(0.001 * s / 2)
    assert b.prob == pytest.approx((1 - 0.001 + 0.001 * math.exp(-1)) ** 1000 / 2)
    assert b.value == pytest.approx(inst.radius * b.prob)
    assert inst.coupling_distance() == pytest.approx(1.0)


def test_gaussian_instance_by_hand():
    inst = lb.mean_1d_gaussian(2, 400, shift=0.1)  # k=2, M=1 -> sigma = 1
    tv = 2 * sst.norm.cdf(math.sqrt(400) * 0.1 / 2) - 1
    assert inst.bound().value == pytest.approx(0.05 * (1 - tv) / 2)


def test_private_term_scales_like_theory():
    # (1/(nε))^{1-1/k}: slope -3/4 in n for k = 4
    vals = [lb.mean_1d_spike(4, n, 1.0).bound().value for n in (10**3, 10**4, 10**5)]
    slopes = np.diff(np.log(vals)) / np.log(10)
    assert np.allclose(slopes, -0.75, atol=0.02)
    dvals = [
        lb.mean_coordinate_spike(d, 10**5, 1.0, 0.0, rng=np.random.default_rng(0)).bound().value for d in (4, 16, 64)
    ]
    assert np.allclose(np.diff(np.log(dvals)) / np.log(4), 1.0, atol=0.05)  # squared error ∝ d/(nε)


@pytest.mark.parametrize(
    "make",
    [
        lambda rng: lb.mean_1d_spike(4, 500, 0.5),
        lambda rng: lb.mean_1d_gaussian(3, 500),
        lambda rng: lb.mean_packing_spike(4, 8, 500, 1.0, rng=rng),
        lambda rng: lb.mean_coordinate_spike(6, 500, 1.0, 1e-6, rng=rng),
    ],
)
def test_instances_pass_their_self_test(make):
    rng = np.random.default_rng(3)
    inst = make(rng)
    out = inst.self_test(rng=rng, reps=3000)
    assert out["ok"], out


def test_self_test_catches_a_broken_instance():
    """Test the tester: an instance whose atom is 3x too large violates its moment assumption."""
    inst = lb.mean_1d_spike(4, 200, 1.0, p=0.05)
    s = (1 / 0.05) ** 0.25 * 3
    bad = lb.HardInstance(
        **{
            **inst.__dict__,
            "sampler": lambda v, size, rng: s * (rng.random((size, 200)) < 0.05) if v else np.zeros((size, 200)),
        }
    )
    assert not bad.self_test(rng=np.random.default_rng(1), reps=20000)["moments_ok"]


def test_nonprivate_estimator_beats_private_bound_and_is_flagged():
    inst = lb.mean_1d_spike(4, 1000, 0.1)
    res = lb.cannot_beat(lambda x, rng: x.mean(axis=1), inst, reps=3000, rng=np.random.default_rng(5))
    assert res.verdict == "violated", res.summary


def test_private_estimator_is_not_flagged():
    inst = lb.mean_1d_spike(4, 1000, 0.1)
    eps, c = 0.1, 20.0

    def clipped_laplace(x, rng):
        return np.clip(x, -c, c).mean(axis=1) + rng.laplace(0, 2 * c / (x.shape[1] * eps), x.shape[0])

    res = lb.cannot_beat(clipped_laplace, inst, reps=3000, rng=np.random.default_rng(6))
    assert res.verdict == "consistent", res.summary


def test_assumption_mismatch_is_refused():
    a = lb.MomentAssumption("directional", 4, 1.0)
    b = lb.MomentAssumption("norm", 4, 1.0)
    with pytest.raises(ValueError, match="assumption mismatch"):
        lb.require_same_assumption(a, b)
    lb.require_same_assumption(a, lb.MomentAssumption("directional", 4, 1.0))


def test_bad_input():
    with pytest.raises(ValueError, match="k must be >= 2"):
        lb.mean_1d_spike(1.5, 100, 1.0)
    with pytest.raises(ValueError, match="epsilon"):
        lb.mean_1d_spike(4, 100, -1.0)
    with pytest.raises(ValueError, match="inst"):
        lb.cannot_beat(
            lambda x, rng: x.mean(1),
            lb.mean_coordinate_spike(4, 100, 1.0, 0.0, rng=np.random.default_rng(0)),
            rng=np.random.default_rng(0),
        )


def test_sparse_regression_instance():
    rng = np.random.default_rng(2)
    inst = lb.sparse_regression_packing(30, 3, 400, 0.05, rng=rng)
    assert inst.self_test(rng=rng, reps=400)["ok"]
    b = inst.bound()
    # at small ε the private Fano term is the binding one
    assert b.constants["fano_private"] > b.constants["fano_statistical"]
    # the bound falls like 1/n² in the privacy-dominated regime (s log d / (nε))²
    vals = [
        lb.sparse_regression_packing(30, 3, n, 0.05, rng=np.random.default_rng(2)).bound().value for n in (400, 1600)
    ]
    assert -2.3 < np.log(vals[1] / vals[0]) / np.log(4) < -1.6


def test_sco_reduction_flags_a_nonprivate_solver():
    """The non-private normalised mean solves the linear-loss SCO instance too well at small ε."""
    rng = np.random.default_rng(4)
    inst = lb.sco_linear_packing(4, 4, 2000, 0.05, rng=rng)

    def normalised_mean(x, rng):
        m = x.mean(axis=1)
        return m / np.maximum(np.linalg.norm(m, axis=1, keepdims=True), 1e-300)

    res = lb.cannot_beat(normalised_mean, inst, reps=300, rng=rng)
    assert res.verdict == "violated", res.summary


def test_sco_instance_self_test():
    rng = np.random.default_rng(8)
    assert lb.sco_linear_packing(4, 6, 500, 1.0, rng=rng).self_test(rng=rng, reps=3000)["ok"]


def test_optimality_ratio_separates_optimal_from_suboptimal(tmp_path):
    """Clipping at the rate-optimal level (nε)^{1/4} gives slope ≈ 0; clipping at √n makes the Laplace noise
    ≍ n^{-1/2}/ε dominate, so risk/bound grows like n^{1/4} (slope 0.25 vs tolerance 0.1)."""
    eps, k = 0.1, 4

    def clipped(c_of_n):
        def fn(x, rng):
            n = x.shape[1]
            c = c_of_n(n)
            return np.clip(x, -c, c).mean(axis=1) + rng.laplace(0, 2 * c / (n * eps), x.shape[0])

        return fn

    def make(n):
        return lb.mean_1d_spike(k, n, eps)

    ns = [500, 2000, 8000]
    good = lb.optimality_ratio(
        clipped(lambda n: (n * eps) ** 0.25),
        make,
        ns,
        reps=400,
        rng=np.random.default_rng(1),
        out_dir=tmp_path,
        name="good",
    )
    bad = lb.optimality_ratio(clipped(lambda n: n**0.5), make, ns, reps=400, rng=np.random.default_rng(1), name="bad")
    assert good.verdict == "consistent", good.summary
    assert bad.verdict == "violated", bad.summary
    assert (tmp_path / "good.png").exists()


def test_maximal_coupling_closed_form_matches_quadrature():
    from scipy import integrate

    for shift in (0.01, 0.5, 3.0):
        a = shift / 2
        quad = 2 * integrate.quad(lambda z: (2 * sst.norm.cdf(z * a) - 1) * sst.norm.pdf(z), 0, np.inf)[0]
        assert lb._maximal_coupling_prob(shift, 1.0) == pytest.approx(quad, rel=1e-8)
