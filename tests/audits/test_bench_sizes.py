"""The bench's budget split (``auto_sizes``) is the split ``audit()`` derives itself.

The bench calls ``audit(n_samples=n)`` and lets the auditor choose its selection and search sizes; ``auto_sizes``
only finds the largest ``n`` whose three stages fit the per-side budget.  If the two rules drifted apart (as they
could while each spelled the fractions out), the bench would report a budget it did not spend.  This fails on such
a drift: the plan's own sizes are compared with ``auto_sizes``' for one and several pairs and three budgets.
"""

from __future__ import annotations

import numpy as np
import pytest

from audits.benchmark.run import auto_sizes
from htdp_verify import PrivacyClaim
from htdp_verify.privacy.plan import plan_audit


def _mech(data, size, rng):
    return float(np.sum(data)) + rng.laplace(0.0, 1.0, size)


@pytest.mark.parametrize("budget", [10_000, 1_000_000, 20_000_000])
@pytest.mark.parametrize("n_pairs", [1, 8])
def test_auto_sizes_are_the_audits_own_defaults(budget, n_pairs):
    z = auto_sizes(budget, n_pairs)
    pairs = [(np.zeros(1), np.full(1, 1.0 / (k + 1))) for k in range(n_pairs)]
    plan = plan_audit(
        _mech, PrivacyClaim(1.0), pairs=pairs, neighbours=None, n_samples=z["n_samples"], alpha=0.05,
        attacks="auto", rng=np.random.default_rng(0), n_select=None, n_search=None, n_certify=1,
        log_density=None, directions=None, profile=None, profile_epsilons=None, profile_share=0.2,
        max_candidates=4096, chunk_size=1_000_000, name=None,
    )  # fmt: skip
    assert plan.n_select == z["n_select"]
    if n_pairs > 1:
        assert plan.n_search == z["n_search"]
    assert z["n_samples"] + z["n_select"] + z["n_search"] <= budget
