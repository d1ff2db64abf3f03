"""The pair search spends what the caller asked for: the default budget scores every pair on at least
``MIN_PER_PAIR`` releases per side, an explicit smaller ``n_search`` is honoured (down to 20 per pair)."""

from __future__ import annotations

import numpy as np

from htdp_verify import PrivacyClaim
from htdp_verify.privacy import audit
from htdp_verify.privacy.search import MIN_PER_PAIR


def lap(data, size, rng):
    return np.asarray(data, float).sum() + rng.laplace(0.0, 1.0, size)


PAIRS = [(np.zeros(3), np.r_[0.0, 0.0, 1.0]), (np.zeros(3), np.r_[0.0, 0.0, 0.5])]


def _search_draws(res) -> int:
    return sum(row["n_per_side"] for row in res.details["selection"]["search"])


def test_default_search_scores_each_pair_on_the_floor():
    r = audit(lap, PrivacyClaim(1.0), pairs=PAIRS, n_samples=2000, rng=np.random.default_rng(1))
    assert all(row["n_per_side"] >= MIN_PER_PAIR for row in r.details["selection"]["search"])


def test_explicit_small_search_is_honoured():
    r = audit(lap, PrivacyClaim(1.0), pairs=PAIRS, n_samples=2000, n_search=120, rng=np.random.default_rng(1))
    assert r.details["samples"]["n_search_per_side"] == 120
    assert _search_draws(r) == 120  # 60 per pair, not raised to the default floor
    tiny = audit(lap, PrivacyClaim(1.0), pairs=PAIRS, n_samples=2000, n_search=20, rng=np.random.default_rng(1))
    assert all(row["n_per_side"] == 20 for row in tiny.details["selection"]["search"])  # 20 per pair at least


def test_search_table_reports_each_score_with_its_standard_error():
    # Every pair's held-out score comes with the paired standard error it was measured with (None only when no
    # event scored above 0); at 2·10⁴ releases a Laplace log-ratio's error is a few hundredths, far from 0 and 1.
    r = audit(lap, PrivacyClaim(1.0), pairs=PAIRS, n_samples=20_000, rng=np.random.default_rng(3))
    table = r.details["selection"]["search"]
    assert len(table) == 2
    for row in table:
        assert row["predicted_bound"] > 0
        assert 1e-3 < row["predicted_se"] < 0.5, row
