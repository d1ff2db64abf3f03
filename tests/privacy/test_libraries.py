"""Adapters for OpenDP measurements and python-dp algorithms (optional extras; each part skips without its library).

Audit design: 4000 certification releases per side, α = 0.05, one pair. The Laplace sum with ε = 1 (the map's value)
certifies ε_lb ≈ 0.9 at this size, so a claim of 0.3 is detected with a wide margin (the claim-below-map control is
the deliberately broken input the checker must fail on); a correct claim is wrongly flagged with probability ≤ α.
"""

import math

import numpy as np
import pytest

from htdp_verify import PrivacyClaim
from htdp_verify.privacy import audit, zcdp_epsilon
from htdp_verify.privacy.adapters import Mechanism
from htdp_verify.privacy.libraries import from_opendp, from_pydp, opendp_guarantee, pydp_guarantee

D = np.zeros(5)
D_ADD = np.r_[D, 1.0]


def test_mechanism_reproducible_default_true():
    assert Mechanism(lambda d, n, rng: np.zeros(n)).reproducible is True


def test_not_a_measurement_raises():
    with pytest.raises(ValueError, match="measurement"):
        opendp_guarantee(lambda x: x)


def test_pydp_guarantee_relations():
    assert pydp_guarantee(0.5).epsilon == 0.5
    g = pydp_guarantee(0.5, 1e-6, "replace")
    assert g.neighbours == "replace" and g.epsilon == 1.0 and g.delta == pytest.approx((1 + math.exp(0.5)) * 1e-6)
    with pytest.raises(ValueError, match="neighbours"):
        pydp_guarantee(0.5, neighbours="swap")


# ---------------------------------------------------------------- OpenDP


@pytest.fixture(scope="module")
def dp():
    dp = pytest.importorskip("opendp.prelude")
    dp.enable_features("contrib")
    return dp


def _space(dp, size=None):
    dom = (
        dp.vector_domain(dp.atom_domain(bounds=(0.0, 1.0)), size=size)
        if size
        else dp.vector_domain(dp.atom_domain(bounds=(0.0, 1.0)))
    )
    return dom, dp.symmetric_distance()


def test_opendp_pure_map_and_relation(dp):
    m = _space(dp) >> dp.t.then_sum() >> dp.m.then_laplace(scale=2.0)
    g = opendp_guarantee(m)
    assert (g.epsilon, g.delta, g.neighbours) == (pytest.approx(m.map(1)), 0.0, "add_remove")
    g2 = opendp_guarantee(m, neighbours="replace")  # replace = symmetric distance 2
    assert g2.neighbours == "replace" and g2.epsilon == pytest.approx(m.map(2))
    sized = _space(dp, size=5) >> dp.t.then_sum() >> dp.m.then_laplace(scale=2.0)
    assert opendp_guarantee(sized).neighbours == "replace"
    with pytest.raises(ValueError, match="fixed size"):
        opendp_guarantee(sized, neighbours="add_remove")


def test_opendp_zcdp_uses_tight_conversion(dp):
    m = _space(dp) >> dp.t.then_sum() >> dp.m.then_gaussian(scale=3.0)
    rho = m.map(1)
    g = opendp_guarantee(m, delta=1e-5)
    assert g.rho == pytest.approx(rho) and g.epsilon == pytest.approx(zcdp_epsilon(rho, 1e-5), rel=1e-12)
    # OpenDP's own conversion of the same ρ agrees with ours (both Canonne-Kamath-Steinke)
    curve = opendp_guarantee(dp.c.make_zCDP_to_approxDP(m), delta=1e-5)
    assert curve.epsilon == pytest.approx(g.epsilon, rel=1e-6)
    fixed = opendp_guarantee(dp.c.make_fix_delta(dp.c.make_zCDP_to_approxDP(m), 1e-5))
    assert fixed.delta == pytest.approx(1e-5) and fixed.epsilon == pytest.approx(g.epsilon, rel=1e-6)
    with pytest.raises(ValueError, match="delta"):
        opendp_guarantee(m)


def test_opendp_query_metric_needs_d_in(dp):
    m = dp.m.make_laplace(dp.atom_domain(T=float, nan=False), dp.absolute_distance(T=float), scale=2.0)
    with pytest.raises(ValueError, match="d_in"):
        opendp_guarantee(m)
    assert opendp_guarantee(m, d_in=1.0).epsilon == pytest.approx(0.5)


def test_opendp_mechanism_is_marked_not_reproducible(dp):
    m = _space(dp) >> dp.t.then_sum() >> dp.m.then_laplace(scale=1.0)
    mech = from_opendp(m)
    assert mech.reproducible is False and mech.vectorised is False
    y = mech(D, 7, np.random.default_rng(0))
    assert y.shape == (7,) and np.all(np.isfinite(y))


@pytest.mark.parametrize("claim_eps, expected", [(None, "consistent"), (0.3, "violated")])
def test_opendp_laplace_audit(dp, claim_eps, expected):
    m = _space(dp) >> dp.t.then_sum() >> dp.m.then_laplace(scale=1.0)  # map: ε = 1 at d_in = 1
    mech = from_opendp(m)
    claim = None if claim_eps is None else PrivacyClaim(claim_eps, neighbours="add_remove")
    res = audit(mech, claim, pairs=[(D, D_ADD)], n_samples=4000, rng=np.random.default_rng(11))
    # OpenDP draws from its own unseeded generator, so the run is not reproducible: a "consistent" verdict at
    # alpha = 0.05 would fail 1 run in 20.  The correct measurement is checked at alpha = 1e-3 instead (false
    # failure <= 0.1 %); the under-claimed one (true 1 vs claim 0.3) is violated with power ~1 at this size.
    from _auditcheck import strict_epsilon_lb

    if expected == "violated":
        assert res.verdict == "violated"
    else:
        assert strict_epsilon_lb(res) <= 1.0 + 1e-9, res.summary
    assert not res.details["reproducible"]


# ---------------------------------------------------------------- python-dp


@pytest.fixture(scope="module")
def laplacian():
    return pytest.importorskip("pydp.algorithms.laplacian")


def test_pydp_rejects_bad_arguments(laplacian):
    with pytest.raises(ValueError, match="linf_sensitivity"):
        from_pydp(
            laplacian.BoundedMean, epsilon=1.0, linf_sensitivity=2, lower_bound=0.0, upper_bound=1.0, dtype="float"
        )
    with pytest.raises(ValueError, match="algorithm"):
        from_pydp(object, epsilon=1.0)


def test_pydp_count_and_sum_release(laplacian):
    for cls, kw in [
        (laplacian.Count, {"dtype": "float"}),
        (laplacian.BoundedSum, {"lower_bound": 0.0, "upper_bound": 1.0, "dtype": "float"}),
    ]:
        mech = from_pydp(cls, epsilon=1.0, **kw)
        assert mech.reproducible is False and mech.guarantee.neighbours == "add_remove"
        assert mech(D_ADD, 5, np.random.default_rng(0)).shape == (5,)


@pytest.mark.parametrize("claim_eps, expected", [(None, "consistent"), (0.2, "violated")])
def test_pydp_bounded_mean_audit(laplacian, claim_eps, expected):
    mech = from_pydp(laplacian.BoundedMean, epsilon=1.0, lower_bound=0.0, upper_bound=1.0, dtype="float")
    claim = None if claim_eps is None else PrivacyClaim(claim_eps, neighbours="add_remove")
    res = audit(mech, claim, pairs=[(D, D_ADD)], n_samples=4000, rng=np.random.default_rng(12))
    assert res.verdict == expected
