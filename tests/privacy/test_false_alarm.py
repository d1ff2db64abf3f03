"""False-alarm rate of ``audit`` on correct mechanisms, measured over 240 seeds (a ``meta`` test: in the default
suite, ~16 s for the three mechanisms on one core).

Design: each audit is valid at α = 0.05, so the number F of false alarms over S = 240 independent seeds is
stochastically below Binomial(240, 0.05) (mean 12).  The exact one-sided binomial test of H0: rate ≤ 0.05 against
rate > 0.05 must not reject at level 0.01; it would reject (power ≈ 0.9) if the true rate were ≥ 0.11.
Because the auditor's CP bounds are conservative and the mechanisms are tight, we expect F ≈ 0.
"""

import math

import numpy as np
import pytest
from scipy.stats import binomtest

from htdp_verify.claims import PrivacyClaim
from htdp_verify.privacy import audit

SEEDS = 240


def laplace(d, size, rng):
    return float(d) + rng.laplace(0.0, 1.0, size)


def randomised_response(bit, size, rng):
    q = math.e / (1 + math.e)
    return np.where(rng.random(size) < q, int(bit), 1 - int(bit))


def geometric(d, size, rng):
    p = 1 - math.exp(-1.0)
    return int(d) + rng.geometric(p, size) - rng.geometric(p, size)


@pytest.mark.meta
@pytest.mark.parametrize("mech", [laplace, randomised_response, geometric])
def test_false_alarm_rate_at_most_alpha(mech):
    ss = np.random.SeedSequence(20260101)
    flags = 0
    for child in ss.spawn(SEEDS):
        r = audit(mech, PrivacyClaim(1.0), pairs=(0, 1), n_samples=20_000, alpha=0.05, rng=np.random.default_rng(child))
        flags += r.verdict == "violated"
    res = binomtest(flags, SEEDS, 0.05, alternative="greater")
    assert res.pvalue > 0.01, f"{flags}/{SEEDS} false alarms"


@pytest.mark.meta
@pytest.mark.parametrize(
    "mech, pairs",
    [(laplace, [(0, 1), (1, 0), (0, 0.5)]), (geometric, [(0, 1), (1, 0), (0, -1)])],
    ids=["laplace", "geometric"],
)
def test_false_alarm_rate_with_a_pair_search_at_most_alpha(mech, pairs):
    """The same design with several pairs: the pair search runs and hands its best events to the selection, where
    they compete on held-out releases.  Events chosen on search releases are certified on fresh ones, so the rate
    stays at most α; the certified event is often the optimal one, so the rate is near α rather than near 0 (with
    the default search, 400 seeds each measured 21 and 14 false alarms, 5.3 % and 3.5 %, search events certified in
    215 and 129 runs).  Here a search of 3 000 releases per side keeps the test short, and the test asserts that
    search events were certified in some runs (the hand-over is exercised)."""
    ss = np.random.SeedSequence(20261125)
    flags = seeded = 0
    for child in ss.spawn(SEEDS):
        rng = np.random.default_rng(child)
        r = audit(mech, PrivacyClaim(1.0), pairs=pairs, n_samples=20_000, n_search=3000, alpha=0.05, rng=rng)
        flags += r.verdict == "violated"
        seeded += any(c.get("origin") == "pair search" for c in r.details["certified_events"])
    res = binomtest(flags, SEEDS, 0.05, alternative="greater")
    assert res.pvalue > 0.01, f"{flags}/{SEEDS} false alarms"
    assert seeded > 0, "no certified event came from the search: the hand-over was not exercised"
