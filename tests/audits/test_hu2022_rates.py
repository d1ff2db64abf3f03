"""Rate checks of Hu et al. 2022 (Thms 2, 3, 5 and the abstracts' exponents) at the tiny test size.

Design of the failure test: at the tiny size (3 values of n over a factor 16, 30 fresh datasets each) the fitted
exponent's 95 % CI has half-width ≈ 0.05; multiplying Alg. 1's exponential-mechanism noise by (n/1000)^0.6 makes
the vertex choice nearly uniform at large n, so the excess risk stops falling (measured slope ≈ 0 against the claimed
−1/3 ± 0.1): the smallest effect the test must see is a shift of the exponent by > 0.1 + 0.05, and the broken one
moves it by ≈ 0.3. The check's own false-failure rate is ≤ α = 0.05 at its seed (fixed here).
"""

from __future__ import annotations

import numpy as np
import pytest

import audits  # noqa: F401  (registers the checks)
import audits.hu2022_rates as R
from htdp_verify.registry import RunContext, get_checks
from htdp_verify.results import CLAIM_VERDICTS

NAMES = sorted(R.CLAIMS)


def _ctx(tmp_path):
    return RunContext("tiny", 20261124, np.random.default_rng(20261124), tmp_path, progress=False)


def test_all_claims_registered():
    registered = {c.name for c in get_checks(["hu2022.rate"])}
    assert set(NAMES) <= registered


@pytest.mark.parametrize("name", NAMES)
def test_check_runs_tiny(name, tmp_path):
    r = R.run_claim(name, _ctx(tmp_path))
    assert r.verdict in CLAIM_VERDICTS and r.verdict != "error", r.summary
    assert r.name == name and np.isfinite(r.estimate)
    lo, hi = r.interval
    assert lo <= r.estimate <= hi
    assert "tolerance" in r.details and r.details["design"]["reps"] == R.SIZES["tiny"]["reps"]


def test_abstract_claims_share_the_theorem_sweep(tmp_path):
    ctx = _ctx(tmp_path)
    thm = R.run_claim("hu2022.rate.dpfw_neps", ctx)
    for name in ("hu2022.rate.abstract_pods_dpfw", "hu2022.rate.abstract_arxiv_dpfw"):
        r = R.run_claim(name, ctx)
        assert r.estimate == thm.estimate and r.interval == thm.interval  # one sweep, several claims


def test_broken_estimator_fails(tmp_path):
    """Alg. 1 with its noise inflated by (n/1000)^0.6: the fitted exponent leaves the band of Thm 2."""
    ctx = _ctx(tmp_path)
    good = R.run_claim("hu2022.rate.dpfw_neps", ctx, seed=11)
    bad = R.run_claim("hu2022.rate.dpfw_neps", ctx, seed=11, inflate=0.6)
    assert good.verdict != "violated", good.summary
    assert bad.verdict == "violated", bad.summary
    assert bad.estimate > good.estimate + 0.15


def test_bad_kind_rejected():
    with pytest.raises(ValueError, match="kind"):
        R.excess_risks(100, 1, np.random.default_rng(0), kind="nope", d=5)
