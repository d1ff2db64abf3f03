"""Inputs that fooled the rate and tail checks (red-team pass on ``htdp_verify.rates``, 2026-11-29).

Each test fails on the code before the fix:

* 2 replications per grid value were accepted: errors |N(0,1)|·n^-0.5 on [100, 300, 1000, 3000] against the
  claim -0.5 ± 0.1 at α = 0.05 came out "violated" at 51/300 seeds (0.17 against a designed 0.05).  Now fewer than
  ``MIN_REPS`` = 5 raise; at 5 the same design gives 1/300 (median) and 15/300 (mean).
* Replications that were all equal (an estimator ignoring its rng) gave a zero-width CI: "violated" 32/40.
* A 3-point grid straddling a crossover (30·n^-1 + 0.3·n^-0.25) passed -0.5 ± 0.1 with no crossover warning, and
  "consistent" (37/40 seeds); a detected crossover now turns "consistent" into "inconclusive".
* Constant or heavily tied errors gave the quantile-shape check a confident verdict from a zero-width interval.
* Negative (signed) errors passed the tail check ("consistent", 0 exceedances).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from htdp_verify.claims import RateClaim, TailBoundClaim
from htdp_verify.rates import MIN_REPS, CrossoverWarning, check_quantile_shape, check_rate, check_tail_bound

GRID = np.array([100.0, 300.0, 1000.0, 3000.0])
CLAIM = RateClaim("n", -0.5, 0.1)


def test_fewer_than_min_reps_replications_are_refused_and_min_reps_keeps_the_size():
    e = np.abs(np.random.default_rng(0).standard_normal((4, 2))) * GRID[:, None] ** -0.5
    with pytest.raises(ValueError, match=f">= {MIN_REPS} replications per grid value"):
        check_rate((GRID, e), CLAIM, 0.05)
    # At MIN_REPS the false-failure rate stays near α: 60 seeds, "violated" at most 8 (P(Bin(60, .05) > 8) = 0.02).
    bad = 0
    for s in range(60):
        e = np.abs(np.random.default_rng(9000 + s).standard_normal((4, MIN_REPS))) * GRID[:, None] ** -0.5
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", CrossoverWarning)
            bad += check_rate((GRID, e), CLAIM, 0.05, n_boot=500).verdict == "violated"
    assert bad <= 8


def test_replications_that_are_all_equal_are_refused():
    e = np.tile((GRID**-0.5)[:, None], (1, 50))
    with pytest.raises(ValueError, match="all equal.*independent"):
        check_rate((GRID, e), CLAIM, 0.05)


def test_a_three_point_grid_that_straddles_a_crossover_warns():
    rng = np.random.default_rng(3)
    g = np.array([100.0, 1000.0, 10000.0])
    e = np.abs(rng.standard_normal((3, 400))) * (30 * g**-1 + 0.3 * g**-0.25)[:, None]
    with pytest.warns(CrossoverWarning):
        r = check_rate((g, e), CLAIM, 0.05)
    assert "two regimes" in r.summary


def test_a_straddled_crossover_is_not_a_confirmation_but_a_straight_law_still_is():
    """The same grid over 20 seeds (100-119): with the crossover the fitted exponent sits inside -0.5 ± 0.1 at
    about 37 of 40 seeds, which the old code called "consistent"; now the crossover makes them "inconclusive" (39/40
    measured on seeds 100-139; at most 3 of 20 may slip through undetected).  The control, a straight n^-0.5 law on
    the same grid and sizes, stays "consistent" (40/40 measured; at least 18 of 20 required), so the downgrade does
    not cost the check its power."""
    g = np.array([100.0, 1000.0, 10000.0])
    crossed = straight = 0
    for s in range(20):
        rng = np.random.default_rng(100 + s)
        e = np.abs(rng.standard_normal((3, 400))) * (30 * g**-1 + 0.3 * g**-0.25)[:, None]
        f = np.abs(rng.standard_normal((3, 400))) * (g**-0.5)[:, None]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", CrossoverWarning)
            crossed += check_rate((g, e), CLAIM, 0.05, n_boot=500).verdict == "consistent"
            straight += check_rate((g, f), CLAIM, 0.05, n_boot=500).verdict == "consistent"
    assert crossed <= 3, crossed
    assert straight >= 18, straight


@pytest.mark.parametrize(
    "errors, why",
    [
        (np.ones(20_000), "not identified"),
        (np.round(np.abs(np.random.default_rng(1).standard_normal(200_000)) * 2) / 2, "tied"),
    ],
    ids=["constant", "rounded to 0.5"],
)
def test_quantile_shape_of_constant_or_tied_errors_is_inconclusive(errors, why):
    for gamma in (0.5, 1.0):
        r = check_quantile_shape(errors, [0.5, 0.1, 0.01, 0.001], gamma=gamma, tolerance=0.25, n_boot=200)
        assert r.verdict == "inconclusive" and why in r.summary


def test_the_tail_check_refuses_signed_errors_and_takes_one_bound_for_one_cell():
    e = np.abs(np.random.default_rng(2).standard_normal(500))
    claim = TailBoundClaim(0.05)
    with pytest.raises(ValueError, match=">= 0"):
        check_tail_bound(-e, 2.0, claim)
    with pytest.raises(ValueError, match="complex"):
        check_tail_bound(e + 0j, 2.0, claim)
    assert check_tail_bound(e, [2.5], claim).verdict == check_tail_bound(e, 2.5, claim).verdict
