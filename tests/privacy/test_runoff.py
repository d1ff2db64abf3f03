"""The run-off between the pair search's finalists (``runoff.RUNOFF``) recovers from a search that kept the wrong
pair, and the design would notice a run-off that decides at random.

Design: a Laplace sum query (scale 1) with two candidate pairs, one of sensitivity 1 (privacy loss 1) and one of
sensitivity 0.3 (loss 0.3).  The search stage is wrapped so that it always ranks the weak pair first (a search that
erred, as the real one does by chance on SVT4 at full size).  Twenty fixed seeds, 20 000 certification releases per
side, so the selection's 2 500 per side are shared as 1 250 per finalist.  A run-off that decides at random keeps
the leaky pair with probability 1/2 per seed, so it keeps it at least ``K`` times in 20 with probability below 1e-3
(``K`` from the binomial law, 18).  The test asserts the real run-off reaches ``K``, that without the run-off the
weak pair is certified every time, and that with the comparison replaced by a random one the same design is not
passed.  The smallest effect the design is built for: privacy loss 1 against 0.3 at 1 250 selection releases per
side and finalist.
"""

from __future__ import annotations

import sys

import numpy as np
import pytest
from scipy import stats

from htdp_verify import PrivacyClaim
from htdp_verify.privacy import audit, runoff
from htdp_verify.privacy import selection as sel_mod
from htdp_verify.privacy.selection_stream import FIT_CAP, MIN_SELECT

SEEDS = 20
ALPHA = 1e-3
K = int(next(k for k in range(SEEDS + 1) if stats.binom.sf(k - 1, SEEDS, 0.5) < ALPHA))

WEAK = (np.zeros(2), np.r_[0.0, 0.3])
LEAKY = (np.zeros(2), np.r_[0.0, 1.0])
AUDIT_MODULE = sys.modules["htdp_verify.privacy.audit"]


def lap(data, size, rng):
    return np.asarray(data, float).sum() + rng.laplace(0.0, 1.0, size)


def _search_that_erred(plan, rng):
    """The real search, then its finalists reordered so that the weak pair comes first and is the one kept."""
    out = sel_mod.search_stage(plan, rng)
    fin = sorted(out.finalists, key=lambda f: float(np.abs(f[0].d_prime).sum()))  # weak (0.3) first
    out.finalists = fin
    out.pair, out.events = fin[0][0], list(fin[0][1])
    return out


def _run(seed: int):
    return audit(
        lap, PrivacyClaim(5.0), pairs=[WEAK, LEAKY], n_samples=20_000, rng=np.random.default_rng(seed)
    )  # fmt: skip


def _leaky_kept(r) -> bool:
    return r.details["pair"]["d_prime"][1] == 1.0


@pytest.fixture(autouse=True)
def small_finalists(monkeypatch):
    """These audits are small (1 250 selection releases per side and finalist): hold the run-off at that size."""
    monkeypatch.setattr(runoff, "MIN_PER_FINALIST", MIN_SELECT)


@pytest.fixture
def erring_search(monkeypatch):
    monkeypatch.setattr(AUDIT_MODULE, "search_stage", _search_that_erred)


def test_design_threshold():
    assert K == 18
    assert stats.binom.sf(K - 1, SEEDS, 0.5) < ALPHA <= stats.binom.sf(K - 2, SEEDS, 0.5)


def test_without_the_runoff_the_search_choice_stands(erring_search, monkeypatch):
    monkeypatch.setattr(runoff, "RUNOFF", False)
    results = [_run(s) for s in range(5)]
    assert not any(_leaky_kept(r) for r in results)
    assert all("runoff" not in r.details["selection"] for r in results)


def test_runoff_recovers_the_leakier_pair_and_a_random_decision_would_fail(erring_search, monkeypatch):
    monkeypatch.setattr(runoff, "RUNOFF", True)
    kept = [_leaky_kept(_run(s)) for s in range(SEEDS)]
    assert sum(kept) >= K
    broken = np.random.default_rng(12345)
    monkeypatch.setattr(runoff, "_best_prediction", lambda sel: float(broken.random()))
    assert sum(_leaky_kept(_run(s)) for s in range(SEEDS)) < K  # the deliberately broken run-off fails the design


def test_runoff_record_and_release_totals(monkeypatch):
    """The run-off's table is in the result, the kept pair is the one certified, and every release drawn is counted:
    the search's, both finalists' selections (n_select // 2 per side each) and the certification's."""
    monkeypatch.setattr(runoff, "RUNOFF", True)
    r = _run(7)
    table = r.details["selection"]["runoff"]
    assert len(table) == 2 and sum(t["kept"] for t in table) == 1
    kept = next(t for t in table if t["kept"])
    assert kept["predicted_bound"] == max(t["predicted_bound"] for t in table)
    s = r.details["samples"]
    n_select = 2_500
    assert s["n_select_per_side"] == n_select // 2
    n_search_drawn = 2 * sum(row["n_per_side"] for row in r.details["selection"]["search"])  # one round: all pairs
    c = r.details["counts"]
    certified = c["n_D"] + c["n_D'"]  # 2 * 20 000, or Poissonised sizes around it with the conditional test
    assert s["total_releases"] == n_search_drawn + 2 * 2 * (n_select // 2) + certified


def test_runoff_is_skipped_with_a_single_pair_or_too_few_selection_releases(monkeypatch):
    monkeypatch.setattr(runoff, "RUNOFF", True)
    one = audit(lap, PrivacyClaim(5.0), pairs=[LEAKY], n_samples=2_000, rng=np.random.default_rng(1))
    assert "runoff" not in one.details["selection"]
    small = audit(
        lap, PrivacyClaim(5.0), pairs=[WEAK, LEAKY], n_samples=2_000, n_select=300, rng=np.random.default_rng(1)
    )  # 150 per finalist < MIN_SELECT (200)
    assert "runoff" not in small.details["selection"]
    assert small.details["samples"]["n_select_per_side"] == 300


def test_by_default_the_runoff_waits_for_a_full_fit_part(monkeypatch):
    """With the default ``MIN_PER_FINALIST`` (the fit part, ``FIT_CAP``) a run-off is held only when each finalist's
    share of the selection is at least ``FIT_CAP`` releases per side: not at 2 500 per side, yes at 2·FIT_CAP."""
    monkeypatch.setattr(runoff, "RUNOFF", True)
    monkeypatch.setattr(runoff, "MIN_PER_FINALIST", FIT_CAP)
    assert "runoff" not in _run(3).details["selection"]
    big = audit(
        lap, PrivacyClaim(5.0), pairs=[WEAK, LEAKY], n_samples=2_000, n_select=2 * FIT_CAP, rng=np.random.default_rng(3)
    )
    assert len(big.details["selection"]["runoff"]) == 2
    assert big.details["samples"]["n_select_per_side"] == FIT_CAP
