"""When nothing is resolvable at the selection size, the audit certifies its best-supported event, not the first.

A discrete Laplace at ε = 0.05 (pair 0 vs 1, 10⁵ releases per side): every threshold and outcome predicts a
bound of 0 on the selection releases, and each scan used to keep its first candidate (the lowest threshold, an
event that holds every release, or the rarest outcome). The certified bound was then 0 at 23 of 40 seeds, where
the threshold "output >= 1" certifies about 0.036 (a red-team finding). With the evidence tie-break
(``scan._best``, ``selection._evidence``) the same 40 seeds gave a median of 0.038 and 2 zeros.

Design: seeds 0-19 fixed; the assertion (at most 3 zeros, median above 0.03) fails with the former choice,
which gave zeros at about 11 of 20.
"""

from __future__ import annotations

import numpy as np

from htdp_verify import PrivacyClaim
from htdp_verify.privacy import audit

P = 1 - np.exp(-0.05)


def _discrete_laplace(q, size, rng):
    return (int(round(float(q))) + rng.geometric(P, size) - rng.geometric(P, size)).astype(np.int64)


def test_an_unresolvable_selection_keeps_the_best_supported_event():
    lbs = np.array(
        [
            audit(
                _discrete_laplace,
                PrivacyClaim(0.05),
                pairs=[(0.0, 1.0)],
                n_samples=100_000,
                rng=np.random.default_rng(s),
            ).epsilon_lb
            for s in range(20)
        ]
    )
    assert np.sum(lbs == 0) <= 3 and np.median(lbs) > 0.03
