"""The printed certified bound never exceeds what was certified and never hides on which side of the claim it is."""

import math

import numpy as np
import pytest

from htdp_verify.privacy.verdict import format_lower_bound


@pytest.mark.parametrize(
    ("value", "claim", "text"),
    [(1.0003, 1.0, "1.0003"), (1.01345, 1.0, "1.013"), (0.99996, 1.0, "0.9999"), (2.5, 1.0, "2.5"), (0.0, 1.0, "0")],
)
def test_examples(value, claim, text):
    assert format_lower_bound(value, claim) == text


def test_never_above_the_value_and_same_side_of_the_claim():
    rng = np.random.default_rng(20261125)
    claims = rng.uniform(0.01, 5, 2000)
    values = claims * (1 + rng.choice([-1, 1], 2000) * 10.0 ** rng.uniform(-12, 0, 2000))
    for v, c in zip(values, claims):
        shown = float(format_lower_bound(float(v), float(c)))
        assert shown <= v
        assert (shown > c) == (v > c)


def test_non_finite():
    assert format_lower_bound(math.inf, 1.0) == "inf"
