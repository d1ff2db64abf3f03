"""False claims of ``audit`` at δ > 0 and in its privacy profile, on mechanisms whose exact privacy profile is known
(``meta`` tests, ~25 s together on one core).

The pure-ε meta-tests (``test_false_alarm.py``) cannot see a certification that mishandles δ, nor a profile whose
many statements are not simultaneously valid.  Two mechanisms with exact curves close that gap:

* **A tight (ε, δ) mixture**: with probability δ = 0.02 the release names the input (an outcome the other side
  never produces), otherwise it is ε = 1 randomised response.  It satisfies (1, 0.02)-DP with equality on the event
  {names 0, answers 0}, so every "violated" at that claim is a false alarm.
* **The Gaussian mechanism with μ = 1** (shift 1, unit noise): its exact curve is
  ``δ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2)`` (Balle & Wang 2018, Thm 8; Dong, Roth & Su 2022; computed by
  ``privacy.bounds.gdp_delta``) and it is exactly 1-GDP.  A run's profile is wrong when any of its statements
  exceeds the truth: an ε lower bound at some δ above ε(δ), a δ lower bound at some ε above δ(ε), or the GDP μ
  lower bound above 1.  The result promises all of them at once, with the verdict, at 1 − α.

Design (as in ``test_false_alarm.py``): F false runs over S independent seeds is stochastically below
Binomial(S, 0.05); the exact one-sided binomial test of "rate ≤ 0.05" must not reject at level 0.01 (S = 240: it
rejects with power ≈ 0.9 at a true rate of 0.11).  Measured over 400 seeds each (``benchmarks/validity_matrix.py``,
results in ``benchmarks/results/validity_matrix.json``): the mixture 5/400 false alarms, the Gaussian profile 2/400
runs with a false statement.

Testing the tester: the same designs fail on a broken auditor.  One that drops δ from the certification (the bound
``ln(lo / hi)`` instead of ``ln((lo − δ) / hi)``) raised 89 of 240 false alarms; one that reports its profile at
50 % confidence per statement (close to point estimates) had a false statement in 115 of 240 runs.  Both are
asserted below on 120 seeds.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import binomtest

from htdp_verify.claims import PrivacyClaim
from htdp_verify.privacy import audit
from htdp_verify.privacy import certification as cert
from htdp_verify.privacy.bounds import gdp_delta, gdp_epsilon

SEEDS = 240
DELTA = 0.02


def mixture(bit, size, rng):
    """(1, 0.02)-DP with equality: reveal the bit with probability δ, else ε = 1 randomised response."""
    q = math.e / (1 + math.e)
    rr = np.where(rng.random(size) < q, int(bit), 1 - int(bit))
    return np.where(rng.random(size) < DELTA, 2 + int(bit), rr)


def gaussian(d, size, rng):
    return float(d) + rng.normal(0.0, 1.0, size)


def gaussian_delta(eps):
    return float(gdp_delta(eps, 1.0))


def gaussian_epsilon(delta):
    return float(gdp_epsilon(delta, 1.0))


def false_statements(profile) -> list:
    """The profile's statements that the exact Gaussian curve contradicts (rounding slack 1e-12)."""
    bad = [
        ("epsilon", d, e) for d, e in zip(profile["deltas"], profile["epsilon_lb"]) if e > gaussian_epsilon(d) + 1e-12
    ]
    bad += [("delta", e, d) for e, d in zip(profile["epsilons"], profile["delta_lb"]) if d > gaussian_delta(e) + 1e-12]
    if profile.get("mu_lb") is not None and profile["mu_lb"] > 1.0 + 1e-12:
        bad.append(("mu", profile["mu_lb"]))
    return bad


def mixture_false_alarms(seeds: int) -> tuple[int, float]:
    flags, bounds = 0, []
    for s in range(seeds):
        r = audit(mixture, PrivacyClaim(1.0, DELTA), pairs=(0, 1), n_samples=20_000, rng=np.random.default_rng([7, s]))
        flags += r.verdict == "violated"
        bounds.append(r.epsilon_lb)
    return flags, float(np.median(bounds))


def gaussian_profile_breaches(seeds: int) -> int:
    bad = 0
    for s in range(seeds):
        r = audit(
            gaussian,
            PrivacyClaim(4.5, 1e-5),
            pairs=(0, 1),
            n_samples=20_000,
            rng=np.random.default_rng([7, s]),
            profile=True,
        )
        bad += bool(false_statements(r.profile))
    return bad


@pytest.mark.meta
def test_false_alarm_rate_of_a_tight_approximate_dp_mechanism_at_most_alpha():
    flags, median = mixture_false_alarms(SEEDS)
    assert binomtest(flags, SEEDS, 0.05, alternative="greater").pvalue > 0.01, f"{flags}/{SEEDS} false alarms"
    # Not vacuous: the audit gets close to the tight claim (measured median 0.968 over 400 seeds).
    assert median > 0.9, median


@pytest.mark.meta
def test_the_approximate_dp_meta_test_catches_an_auditor_that_drops_delta(monkeypatch):
    exact = cert.epsilon_lower_bound
    monkeypatch.setattr(cert, "epsilon_lower_bound", lambda k1, n1, k2, n2, a, d: exact(k1, n1, k2, n2, a, 0.0))
    flags, _ = mixture_false_alarms(120)
    assert binomtest(flags, 120, 0.05, alternative="greater").pvalue < 0.01, f"only {flags}/120 false alarms"


@pytest.mark.meta
def test_every_statement_of_the_privacy_profile_holds_at_once_at_rate_at_least_one_minus_alpha():
    bad = gaussian_profile_breaches(SEEDS)
    assert binomtest(bad, SEEDS, 0.05, alternative="greater").pvalue > 0.01, (
        f"{bad}/{SEEDS} runs with a false statement"
    )


@pytest.mark.meta
def test_the_profile_meta_test_catches_statements_made_at_fifty_percent_confidence(monkeypatch):
    exact = cert.privacy_profile
    monkeypatch.setattr(
        cert, "privacy_profile", lambda kn, kd, nn, alphas, **kw: exact(kn, kd, nn, np.full_like(alphas, 0.5), **kw)
    )
    bad = gaussian_profile_breaches(120)
    assert binomtest(bad, 120, 0.05, alternative="greater").pvalue < 0.01, f"only {bad}/120 runs with a false statement"
