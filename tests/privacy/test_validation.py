"""Input validation of the auditor: bad input raises ValueError naming the parameter (no statistics, no α)."""

import numpy as np
import pytest

from htdp_verify.claims import PrivacyClaim
from htdp_verify.privacy import Pair, audit, dataset_patterns, remove_one, replace_one


def lap(d, size, rng):
    return float(d) + rng.laplace(0.0, 1.0, size)


R = np.random.default_rng(0)
C = PrivacyClaim(1.0)


@pytest.mark.parametrize(
    "kwargs,match",
    [
        (dict(n_samples=5), "n_samples"),
        (dict(n_samples=1.5), "n_samples"),
        (dict(n_samples=1000, alpha=0.0), "alpha"),
        (dict(n_samples=1000, alpha=1.2), "alpha"),
        (dict(n_samples=1000, n_certify=0), "n_certify"),
        (dict(n_samples=1000, n_select=3), "n_select"),
        (dict(n_samples=1000, profile=[0.5, 2.0]), "profile"),
        (dict(n_samples=1000, profile=True, profile_share=1.0), "profile_share"),
        (dict(n_samples=1000, attacks="nonsense"), "attacks"),
        (dict(n_samples=1000, attacks="coordinates"), "attacks"),  # scalar output: coordinates do not apply
    ],
)
def test_bad_arguments(kwargs, match):
    with pytest.raises(ValueError, match=match):
        audit(lap, C, pairs=(0.0, 1.0), rng=np.random.default_rng(0), **kwargs)


def test_bad_rng_claim_pairs():
    with pytest.raises(ValueError, match="rng"):
        audit(lap, C, pairs=(0.0, 1.0), n_samples=100, rng=123)
    with pytest.raises(ValueError, match="claim"):
        audit(lap, 1.0, pairs=(0.0, 1.0), n_samples=100, rng=R)
    with pytest.raises(ValueError, match="claim"):
        audit(lap, None, pairs=(0.0, 1.0), n_samples=100, rng=R)
    with pytest.raises(ValueError, match="pairs or neighbours"):
        audit(lap, C, n_samples=100, rng=R)
    with pytest.raises(ValueError, match="either pairs or neighbours"):
        audit(lap, C, pairs=(0.0, 1.0), neighbours=np.zeros(3), n_samples=100, rng=R)
    with pytest.raises(ValueError, match="pairs must"):
        audit(lap, C, pairs=[1, 2, 3], n_samples=100, rng=R)
    with pytest.raises(ValueError, match="epsilon"):
        PrivacyClaim(-1.0)


def test_relation_mismatch_is_refused():
    # An add/remove pair cannot test a replace-one claim (that would test a different guarantee).
    p = remove_one(np.arange(5.0), 2)
    with pytest.raises(ValueError, match="add_remove"):
        audit(lambda d, s, rng: np.mean(d) + rng.laplace(0, 1, s), C, pairs=[p], n_samples=100, rng=R)
    # A "replace" pair that changes two rows is not a replace-one pair.
    bad = Pair(np.zeros(4), np.array([1.0, 1.0, 0.0, 0.0]), "two rows", "replace")
    with pytest.raises(ValueError, match="not a replace-one pair"):
        audit(lambda d, s, rng: np.mean(d) + rng.laplace(0, 1, s), C, pairs=[bad], n_samples=100, rng=R)


def test_neighbour_builders_validate():
    with pytest.raises(ValueError, match="index"):
        replace_one(np.zeros(3), 5, 1.0)
    with pytest.raises(ValueError, match="relation"):
        dataset_patterns(np.zeros(3), relation="swap")
    with pytest.raises(ValueError, match="finite"):
        dataset_patterns(np.array([0.0, np.nan]))
    with pytest.raises(ValueError, match="bound"):
        dataset_patterns(np.zeros(3), bound=-1.0)
    with pytest.raises(ValueError, match="relation"):
        Pair(0, 1, "x", "neighbourly")


def test_mechanism_returning_wrong_shape():
    with pytest.raises(ValueError, match="shape"):
        audit(lambda d, s, rng: np.zeros(s + 1), C, pairs=(0.0, 1.0), n_samples=100, rng=R)


# --- second red-team pass (2026-11-29): arguments accepted silently or failing with raw errors -------------------


def _lap1(data, size, rng):
    return np.asarray(data, float).sum() + rng.laplace(0.0, 1.0, size)


@pytest.mark.parametrize(
    "kw, match",
    [
        ({"attacks": None}, "attacks must be"),  # was TypeError: 'NoneType' object is not iterable
        ({"attacks": 3}, "attacks must be"),
        ({"profile": "yes"}, "profile must be"),  # was "could not convert string to float"
        ({"profile": [[0.1, 0.2]]}, "1-d array of deltas"),  # was flattened silently
        ({"profile": True, "profile_epsilons": [np.nan]}, "profile_epsilons must be"),  # was a NaN bound
        ({"profile": True, "profile_epsilons": [-1.0, 0.5]}, "profile_epsilons must be"),  # was a bound at ε = −1
        ({"profile_epsilons": [0.5]}, "profile_epsilons applies to a profile"),  # was ignored
        ({"max_samples": 1000}, "max_samples applies to sequential"),  # was ignored
    ],
)
def test_audit_arguments_that_were_ignored_or_failed_raw_now_name_themselves(kw, match):
    with pytest.raises(ValueError, match=match):
        audit(
            _lap1,
            PrivacyClaim(1.0),
            pairs=[(np.zeros(3), np.r_[0.0, 0.0, 1.0])],
            n_samples=2_000,
            rng=np.random.default_rng(0),
            **kw,
        )


def test_results_to_json_takes_meta_as_documented():
    # was TypeError: JSONEncoder.__init__() got an unexpected keyword argument 'meta'
    import json

    from htdp_verify.results import results_to_json

    r = audit(
        _lap1,
        PrivacyClaim(1.0),
        pairs=[(np.zeros(3), np.r_[0.0, 0.0, 1.0])],
        n_samples=2_000,
        rng=np.random.default_rng(0),
    )
    doc = json.loads(results_to_json([r], meta={"who": "test"}, indent=1))
    assert doc["meta"]["who"] == "test" and len(doc["results"]) == 1
