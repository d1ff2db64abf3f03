"""Planning an audit: inputs that produce no candidate pair are refused with a clear error."""

from __future__ import annotations

import numpy as np
import pytest

from htdp_verify import PrivacyClaim
from htdp_verify.privacy import audit


def mean_lap(data, size, rng):
    return np.asarray(data, float).mean() + rng.laplace(0.0, 1.0, size)


def test_all_equal_dataset_without_domain_has_no_pairs():
    with pytest.raises(ValueError, match="no candidate pair"):
        audit(mean_lap, PrivacyClaim(1.0), neighbours=np.zeros(20), n_samples=1000, rng=np.random.default_rng(0))


def test_all_equal_dataset_with_domain_is_audited():
    r = audit(
        mean_lap,
        PrivacyClaim(1.0),
        neighbours={"data": np.zeros(20), "lower": -1.0, "upper": 1.0},
        n_samples=2000,
        rng=np.random.default_rng(0),
    )
    assert r.verdict != "violated"  # true epsilon 0.1 (sensitivity 2/20, Laplace scale 1) against a claim of 1
    assert r.details["selection"]["pairs_tried"] >= 1
