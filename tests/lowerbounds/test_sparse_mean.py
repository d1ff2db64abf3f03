"""The s-sparse heavy-tailed mean hard instance (htdp_verify.lowerbounds.sparse_mean).

Designs: moments are compared with their exact values at a tolerance of 5 standard errors computed from the exact
law (false alarm ≈ 6e-7 per comparison); the same comparison rejects an instance whose atoms are 10% too high
(the shift is ≥ 10 standard errors at the sample size used). The cannot-beat check runs at α = 0.05 on 300
trials: the cheating estimators' error rates (≈ 0 and ≈ 0.3) lie far below the bound's ≈ 0.87.
"""

import itertools
import math

import numpy as np
import pytest

from htdp_verify.lowerbounds import cannot_beat, private_multipoint_error
from htdp_verify.lowerbounds.sparse_mean import (
    packing_cannot_beat,
    packing_risk_ratio,
    sparse_mean_closed_form,
    sparse_mean_packing,
    sparse_sign_code,
)

D, S, N, EPS, DELTA = 40, 4, 1000, 1.0, 1e-5


def _bound(**kw):
    args = {"d": D, "s": S, "n": N, "epsilon": EPS, "delta": DELTA, **kw}
    return (
        sparse_mean_packing(args.pop("d"), args.pop("s"), args.pop("n"), args.pop("epsilon"), args.pop("delta"), **args)
        .bound()
        .value
    )


# ---------------------------------------------------------------------------------------------------- the code
def test_code_is_a_packing_exhaustively():
    code = sparse_sign_code(12, 3)  # q = 7, k = 2: 49 members
    assert (code.q, code.k, code.size) == (7, 2, 49)
    z = code.vectors(np.arange(code.size))
    assert np.all((z != 0).sum(1) == 3) and np.all(np.isin(z, [-1.0, 0.0, 1.0]))
    for b in range(3):  # one non-zero per block
        assert np.all((z[:, b * 4 : (b + 1) * 4] != 0).sum(1) == 1)
    sym = code.symbols(np.arange(code.size))
    d2 = [((z[i] - z[j]) ** 2).sum() for i, j in itertools.combinations(range(code.size), 2)]
    blocks = [(sym[i] != sym[j]).sum() for i, j in itertools.combinations(range(code.size), 2)]
    assert min(blocks) == code.min_block_distance == 2
    assert min(d2) >= code.min_sq_distance == 4.0


def test_code_digits_round_trip_and_uniform_draw():
    code = sparse_sign_code(D, S)
    m = code.draw(5000, rng=np.random.default_rng(0))
    dig = code.digits(m)
    assert np.array_equal((dig * code.q ** np.arange(code.k)).sum(1), m)
    assert m.min() >= 0 and m.max() < code.size
    with pytest.raises(ValueError, match="members"):
        code.digits([code.size])


@pytest.mark.parametrize(
    "kw, match",
    [
        ({"d": 10, "s": 4}, "d must be >= "),
        ({"d": 3, "s": 4}, "s must lie"),
        ({"d": 40, "s": 4, "message_length": 5}, "message_length"),
    ],
)
def test_code_rejects_bad_parameters(kw, match):
    with pytest.raises(ValueError, match=match):
        sparse_sign_code(kw.pop("d"), kw.pop("s"), **kw)


@pytest.mark.parametrize(
    "kw, match",
    [
        ({"amplitude": 1.5}, "amplitude"),
        ({"k": 1.5}, "k must be"),
        ({"moment": -1.0}, "moment"),
        ({"delta": 1.5}, "delta"),
    ],
)
def test_instance_rejects_bad_parameters(kw, match):
    with pytest.raises(ValueError, match=match):
        _bound(**kw)


# ----------------------------------------------------------------------------------------------- moments
def _moments_match(data, v_z, atom, p, amplitude_true, k=2.0, moment=1.0, z_tol=5.0) -> bool:
    """Per-coordinate k-th raw moment on the support vs a^k·moment (5 exact standard errors), exact zeros off it."""
    rec = data.reshape(-1, data.shape[-1])
    supp = v_z != 0
    if np.any(rec[:, ~supp] != 0):
        return False
    target = amplitude_true**k * moment
    se = math.sqrt(p * (1 - p)) * atom**k / math.sqrt(rec.shape[0])  # |X_j|^k is atom^k w.p. p, else 0
    emp = (np.abs(rec[:, supp]) ** k).mean(0)
    return bool(np.all(np.abs(emp - target) <= z_tol * se))


@pytest.mark.parametrize("k, amplitude", [(2.0, 1.0), (2.0, 1 / math.sqrt(8)), (4.0, 1.0)])
def test_sampled_moments_are_exact(k, amplitude):
    inst = sparse_mean_packing(D, S, 200, EPS, DELTA, k=k, amplitude=amplitude, moment=2.5)
    rng = np.random.default_rng(11)
    v = int(inst.code.draw(1, rng=rng)[0])
    data = inst.sample(v, 1000, rng=rng)  # 2e5 records
    z = inst.code.vectors([v])[0]
    assert _moments_match(data, z, inst.atom, inst.p, amplitude, k=k, moment=2.5)
    ex = inst.exact_moments()
    assert ex["raw_k"] == pytest.approx(amplitude**k * 2.5, rel=1e-12) and ex["central_k"] <= ex["raw_k"]
    assert ex["raw_k"] <= inst.assumption.M * (1 + 1e-12)
    # the mean: exact value p·A·z, sampled within 5 standard errors
    se = inst.atom * math.sqrt(inst.p * (1 - inst.p) / (data.shape[0] * data.shape[1]))
    assert np.all(np.abs(data.reshape(-1, D).mean(0) - inst.thetas[v]) <= 5 * se + 1e-15)
    assert inst.self_test(rng=rng, reps=50)["ok"]


def test_moment_comparison_rejects_inflated_atoms():
    """The moment comparison is not vacuous: atoms 10% too high (moment 1.21τ) are rejected at this size."""
    inst = sparse_mean_packing(D, S, 200, EPS, DELTA)
    rng = np.random.default_rng(12)
    v = int(inst.code.draw(1, rng=rng)[0])
    data = inst.sample(v, 1000, rng=rng) * 1.1
    assert not _moments_match(data, inst.code.vectors([v])[0], inst.atom, inst.p, 1.0)


# ------------------------------------------------------------------------------------------------ the bound
def test_bound_is_the_multipoint_formula_and_dominates_the_closed_form():
    inst = sparse_mean_packing(D, S, N, EPS, DELTA)
    b = inst.bound()
    assert inst.M == inst.code.size == 19**3
    assert b.prob == pytest.approx(private_multipoint_error(N, inst.p, EPS, inst.M, DELTA), rel=1e-12)
    assert b.value == pytest.approx(inst.radius**2 * b.prob, rel=1e-12)
    assert inst.radius == pytest.approx(inst.p * inst.atom * math.sqrt(inst.code.min_sq_distance) / 2)
    cf = sparse_mean_closed_form(N, D, S, EPS, DELTA)
    assert 0 < cf["value"] <= b.value * (1 + 1e-9)
    # the closed form's proof: L(p*) >= 1/2 at its p
    assert private_multipoint_error(N, cf["p"], EPS, inst.M, DELTA) >= 0.5
    # p is a maximiser: moving it either way lowers r(p)^2 L(p)
    for f in (0.9, 1.1):
        assert sparse_mean_packing(D, S, N, EPS, DELTA, p=inst.p * f).bound().value < b.value


def test_bound_is_monotone_in_the_right_directions():
    ns = [300, 1000, 3000, 10000]
    assert np.all(np.diff([_bound(n=n) for n in ns]) < 0)  # more data: smaller bound
    assert np.all(np.diff([_bound(epsilon=e) for e in (0.25, 0.5, 1.0, 2.0)]) < 0)  # more privacy budget
    assert np.all(np.diff([_bound(delta=x) for x in (1e-9, 1e-7, 1e-5, 1e-3)]) < 0)  # larger δ
    assert np.all(np.diff([_bound(d=d) for d in (40, 100, 400, 2000)]) >= 0)  # more dimensions: larger |V|
    assert np.all(np.diff([_bound(s=s, d=400) for s in (1, 2, 4, 8)]) > 0)  # sparser is easier
    assert _bound(moment=3.0) == pytest.approx(3 * _bound(), rel=1e-9)  # linear in τ (k = 2)
    assert _bound(amplitude=0.5) == pytest.approx(0.25 * _bound(), rel=1e-9)
    # roughly 1/n: n·bound varies by < 10% over a decade and a half
    nb = [n * _bound(n=n) for n in ns]
    assert max(nb) / min(nb) < 1.1


def test_hard_instance_interface_and_generic_checker():
    inst = sparse_mean_packing(D, S, 100, EPS, DELTA)
    rng = np.random.default_rng(3)
    x = inst.sample(7, 3, rng=rng)
    assert x.shape == (3, 100, D)
    assert np.allclose(inst.thetas[7], inst.member_means([7])[0])
    assert np.allclose(inst.loss(np.zeros((2, D)), 7), np.linalg.norm(inst.thetas[7]))
    assert inst.claim().value == inst.bound().value
    # the generic exact check of htdp_verify.lowerbounds accepts the instance (members drawn uniformly)
    res = cannot_beat(lambda data, rng: np.zeros((data.shape[0], D)), inst, reps=10, rng=rng)
    assert res.verdict == "consistent"


# ------------------------------------------------------------------------------------------------ the checks
def _decoder(inst):
    """Cheating, non-private: reads the member off any spike (the law's structure is known), returns p·spike."""

    def fn(data, rng):
        idx = np.argmax(np.any(data != 0, axis=2), axis=1)
        return inst.p * data[np.arange(data.shape[0]), idx]

    return fn


def test_cannot_beat_flags_cheating_estimators():
    inst = sparse_mean_packing(D, S, N, EPS, DELTA)
    rng = np.random.default_rng(5)
    for fn in (_decoder(inst), lambda data, rng: data.mean(axis=1)):
        res = packing_cannot_beat(fn, inst, trials=300, rng=rng)
        assert res.verdict == "violated", res.summary
        assert res.interval[1] < res.details["bound"]["prob"]


def test_cannot_beat_passes_private_estimators_and_says_when_underpowered():
    inst = sparse_mean_packing(D, S, N, EPS, DELTA)
    rng = np.random.default_rng(6)
    zero = lambda data, rng: np.zeros((data.shape[0], D))  # noqa: E731 - constant output: 0-DP

    def clipped_laplace(data, rng):  # (1, 0)-DP: clipped mean at C = 1, Laplace with ℓ1 sensitivity 2Cd/n
        return np.clip(data, -1, 1).mean(1) + rng.laplace(0, 2 * D / (N * EPS), size=(data.shape[0], D))

    for fn in (zero, clipped_laplace):
        res = packing_cannot_beat(fn, inst, trials=200, rng=rng)
        assert res.verdict == "consistent" and res.details["design"]["power_at_effect"] >= 0.8
    small = packing_cannot_beat(zero, inst, trials=3, rng=rng)
    assert small.verdict == "inconclusive" and small.details["design"]["power_at_effect"] < 0.8


def test_risk_ratio_is_descriptive_and_tracks_a_1_over_n_estimator(tmp_path):
    rng = np.random.default_rng(8)
    zero = lambda data, rng: np.zeros((data.shape[0], D))  # noqa: E731
    res = packing_risk_ratio(
        zero, lambda n: sparse_mean_packing(D, S, n, EPS, DELTA), [500, 2000], reps=20, rng=rng, out_dir=tmp_path
    )
    assert res.verdict == "info" and (tmp_path / res.figures[0]).exists()
    # risk of 0 is ‖θ_v‖² = (pA)²s ∝ 1/n like the bound: the ratio is constant, exactly (same members' norm)
    assert abs(res.estimate) < 0.05 and not res.details["below_bound"]


def _calibrated_cheat(inst, rate):
    """Exact output θ_v (decoded from a spike) except with probability q it outputs 0 (error ≥ r); with no spike in
    the data it also outputs 0. So P(error ≥ r) = q + (1 - q)(1 - p)^n exactly; q is set to make that ``rate``."""
    none = (1 - inst.p) ** inst.n
    q = (rate - none) / (1 - none)
    dec = _decoder(inst)

    def fn(data, rng):
        out = dec(data, rng)
        out[rng.random(data.shape[0]) < q] = 0.0
        return out

    return fn


def test_cannot_beat_level_and_power_at_the_boundary():
    """Level: an estimator whose error rate equals the bound is flagged in ≤ α of runs (100 seeds, 60 trials each;
    allowance 3 binomial SE: ≤ 0.12). Power: at half the bound it is flagged in ≥ 80% of runs (the design's
    stated power at effect 0.5 is ≥ 0.8 at this size)."""
    inst = sparse_mean_packing(D, S, 100, EPS, DELTA)
    L = inst.bound().prob
    at_bound, half = _calibrated_cheat(inst, L), _calibrated_cheat(inst, 0.5 * L)
    flags = {"at": 0, "half": 0}
    for seed in range(100):
        rng = np.random.default_rng(1000 + seed)
        flags["at"] += packing_cannot_beat(at_bound, inst, trials=60, rng=rng).verdict == "violated"
        r = packing_cannot_beat(half, inst, trials=60, rng=rng)
        flags["half"] += r.verdict == "violated"
    assert r.details["design"]["power_at_effect"] >= 0.8
    assert flags["at"] <= 12 and flags["half"] >= 80
