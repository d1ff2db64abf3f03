"""pytest-facing assertions and the pytest plugin (marker, --htdp-profile, seeds).

Statistical designs: the rate assertions use 6 geometric values of n in [10², 10⁴] × 200 replications (95% CI
half-width ≈ 0.04, so exponents ≥ 0.06 beyond the tolerance band are detected with power ≥ 0.8); the tail
assertions use 1000 replications at α = 0.01 (failure rates ≥ 0.07 detected against β = 0.05).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from htdp_verify.claims import RateClaim, TailBoundClaim
from htdp_verify.montecarlo import sweep
from htdp_verify.testing import (
    Profile,
    assert_quantile_shape,
    assert_rate,
    assert_tail_bound,
    seed_from_text,
)

pytest_plugins = ["pytester"]

NS = np.geomspace(100, 10_000, 6).round().astype(int).tolist()


def sample_mean_error(n, *, n_reps, rng):
    return np.abs(rng.standard_normal((n_reps, n)).mean(axis=1))


@pytest.fixture(scope="module")
def run():
    return sweep(sample_mean_error, {"n": NS}, 200, seed=123, vectorised=True, progress=False)


@pytest.mark.montecarlo
def test_assert_rate_passes_and_returns_result(run):
    """α = 0.05; the true exponent -1/2 is the claim."""
    res = assert_rate(run, exponent=-0.5, variable="n", tolerance=0.1)
    assert res.verdict == "consistent" and res.details["min_detectable_deviation"] < 0.07
    res2 = assert_rate(run, RateClaim("n", -0.5, 0.1, summary="mean"), method="theilsen")
    assert res2.verdict == "consistent"


@pytest.mark.montecarlo
def test_assert_rate_failure_message(run):
    """α = 0.05; claim n^{-1/3}: the truth lies 0.067 outside the band, detectable ≥ 0.06 (module docstring)."""
    with pytest.raises(AssertionError) as exc:
        assert_rate(run, exponent=-1 / 3, variable="n", tolerance=0.1)
    msg = str(exc.value)
    for part in (
        "VIOLATED",
        "alpha=0.05",
        "95% CI",
        "band: [-0.4333, -0.2333]",
        "local slopes",
        "Theil-Sen",
        "seed: 123",
        "median by n",
    ):
        assert part in msg, (part, msg)


def test_assert_rate_inconclusive_policy():
    small = sweep(sample_mean_error, {"n": [100, 130, 170]}, 20, seed=1, vectorised=True, progress=False)
    with pytest.raises(AssertionError, match="INCONCLUSIVE.*\n(.|\n)*replications per value needed"):
        assert_rate(small, exponent=-0.5)
    with pytest.warns(UserWarning, match="inconclusive"):
        res = assert_rate(small, exponent=-0.5, on_inconclusive="warn")
    assert res.verdict == "inconclusive"
    assert assert_rate(small, exponent=-0.5, on_inconclusive="pass").verdict == "inconclusive"
    with pytest.raises(ValueError, match="on_inconclusive"):
        assert_rate(small, exponent=-0.5, on_inconclusive="skip")


def test_assert_rate_arguments(run):
    with pytest.raises(ValueError, match="exactly one of claim"):
        assert_rate(run)
    with pytest.raises(ValueError, match="exactly one of claim"):
        assert_rate(run, RateClaim("n", -0.5), exponent=-0.5)
    x = np.array(NS, dtype=float)
    assert assert_rate((x, run.values()), exponent=-0.5).verdict == "consistent"


@pytest.fixture(scope="module")
def tail_errors():
    """1000 replications of |mean of 400 N(0,1)|."""
    rng = np.random.default_rng(77)
    return np.abs(rng.standard_normal((1000, 400)).mean(axis=1))


@pytest.mark.montecarlo
def test_assert_tail_bound(tail_errors):
    """α = 0.01, β = 0.05: correct bound (true failure 0.0066) passes; half of it (true failure 0.174) fails."""
    beta = 0.05
    bound = math.sqrt(2 * math.log(2 / beta) / 400)
    res = assert_tail_bound(tail_errors, bound, beta=beta, alpha=0.01)
    assert res.details["min_detectable_rate"] < 0.075
    with pytest.raises(AssertionError) as exc:
        assert_tail_bound(tail_errors, bound / 2, TailBoundClaim(beta, "sqrt(2 log(2/beta)/n)/2"), alpha=0.01)
    msg = str(exc.value)
    assert "VIOLATED" in msg and "exceedances" in msg and "empirical constant" in msg
    with pytest.raises(AssertionError, match="INCONCLUSIVE"):
        assert_tail_bound(tail_errors, bound, beta=beta, alpha=0.01, detect_rate=0.052)


def test_assert_quantile_shape():
    rng = np.random.default_rng(8)
    betas = [0.5, 0.1, 0.01, 1e-3]
    assert_quantile_shape(np.abs(rng.standard_normal(50_000)), betas)
    with pytest.raises(AssertionError, match="VIOLATED"):
        assert_quantile_shape(rng.exponential(size=50_000), betas)


def test_profile_object():
    assert Profile("quick").pick(quick=200, full=2000) == 200
    assert Profile("full").pick(quick=200, full=2000) == 2000 and Profile("full").full


def test_rng_fixture_is_seeded_from_test_id(rng, htdp_seed, request):
    assert htdp_seed == seed_from_text(request.node.nodeid)
    assert rng.random() == np.random.default_rng(htdp_seed).random()


# ------------------------------------------------------------------ the plugin seen from a user's project
PLUGIN_TEST = """
import numpy as np
import pytest

@pytest.mark.montecarlo
def test_profile(htdp_profile, htdp_seed, rng):
    print("PROFILE", htdp_profile.name, "SEED", htdp_seed, "DRAW", rng.integers(1 << 30))
"""


def test_plugin_marker_option_and_fixtures(pytester):
    pytester.makepyfile(test_user=PLUGIN_TEST)
    quick = pytester.runpytest("-s", "--strict-markers", "-p", "no:cacheprovider")
    quick.assert_outcomes(passed=1)
    quick.stdout.fnmatch_lines(["*htdp-verify: profile=quick, fixed seeds*", "*PROFILE quick SEED *"])

    # the seed is a function of the test id (it equals seed_from_text(nodeid)); a salt changes it
    def seed(r):
        return int([ln for ln in r.outlines if "PROFILE" in ln][0].split("SEED")[1].split()[0])

    assert seed(quick) == seed_from_text("test_user.py::test_profile")
    salted = pytester.runpytest(
        "-s", "--htdp-profile", "full", "--htdp-seed-salt", "nightly-1", "-p", "no:cacheprovider"
    )
    salted.assert_outcomes(passed=1)
    salted.stdout.fnmatch_lines(["*profile=full, seed salt='nightly-1'*", "*PROFILE full SEED *"])
    assert seed(salted) == seed_from_text("test_user.py::test_profile#nightly-1") != seed(quick)
    bad = pytester.runpytest("--htdp-profile", "huge", "-p", "no:cacheprovider")
    assert bad.ret != 0
