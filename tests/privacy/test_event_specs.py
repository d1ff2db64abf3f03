"""Exact event specs: every event the auto attacks choose is written down exactly (JSON) and rebuilt with the same
indicator; the certified event of an audit is rebuilt from results JSON and re-counted."""

from __future__ import annotations

import json

import numpy as np
import pytest

from htdp_verify import PrivacyClaim
from htdp_verify.privacy import audit
from htdp_verify.privacy.attacks import SelectionContext, event_from_spec, make_attacks
from htdp_verify.privacy.reproduce import rebuild_event, recount
from htdp_verify.results import CheckResult


def _releases(kind, rng, n, shift):
    if kind == "scalar":
        y = rng.laplace(shift, 1.0, n)
        y[rng.random(n) < 0.02] = 0.25  # an atom
        return y
    if kind == "thirds":
        return rng.integers(0, 4, n) / 3.0
    if kind == "vector":
        return rng.normal(0, 1, (n, 6)) + shift * np.eye(6)[2]
    if kind == "mixed":
        Y = np.full((n, 5), -1000.0)
        first = rng.integers(0, 5, n)
        Y[np.arange(n), first] = rng.laplace(shift, 1.0, n)
        return Y
    if kind == "codes":
        return rng.integers(-1, 2, (n, 4))
    if kind == "count_value":  # one discrete column next to a real one (StatDP's iSVT4 releases)
        return np.column_stack([rng.integers(0, 4, n).astype(float), rng.laplace(shift, 1.0, n)])
    raise ValueError(kind)


@pytest.mark.parametrize("kind", ["scalar", "thirds", "vector", "mixed", "codes", "count_value"])
def test_every_auto_event_round_trips_exactly(kind):
    rng = np.random.default_rng(11)
    Y1, Y2 = _releases(kind, rng, 4000, 0.0), _releases(kind, rng, 4000, 0.7)
    ctx = SelectionContext(n_final=10_000, alpha=0.05, rng=np.random.default_rng(1))
    events = [e for a in make_attacks("auto", Y1) for e in a.select(Y1, Y2, ctx)]
    assert events
    fresh = _releases(kind, np.random.default_rng(5), 3000, 0.3)
    exact = 0
    for e in events:
        spec = json.loads(json.dumps(e.spec()))
        if not spec["exact"]:
            assert e.attack == "gboost"  # the only family whose score is not written down
            continue
        exact += 1
        r = event_from_spec(spec)
        np.testing.assert_array_equal(r.indicator(fresh), e.indicator(fresh), err_msg=e.describe())
        assert r.orientation == e.orientation
    assert exact >= len(events) // 2


def test_threshold_on_thirds_is_kept_at_full_precision():
    # outputs {0, 1/3, 2/3, 1}: "output >= 0.333333" as printed would be a different set from ">= 1/3"
    from htdp_verify.privacy.attacks import Event, Identity

    e = Event("threshold", Identity(), ">=", (1 / 3,), 1, "threshold")
    r = event_from_spec(json.loads(json.dumps(e.spec())))
    y = np.array([0.0, 1 / 3, 2 / 3, 1.0])
    np.testing.assert_array_equal(r.indicator(y), [False, True, True, True])
    assert float(r.params[0]) == 1 / 3


def test_audit_result_json_rebuilds_and_recounts_the_certified_event():
    def mech(data, size, rng):
        return rng.integers(0, 4, size) / 3.0 + (np.asarray(data).sum() > 0) * (rng.random(size) < 0.2) / 3.0

    pair = (np.zeros(3), np.r_[0.0, 0.0, 1.0])
    r = audit(mech, PrivacyClaim(0.1), pairs=[pair], n_samples=20_000, rng=np.random.default_rng(3))
    back = CheckResult.from_json(r.to_json())
    ev = rebuild_event(back)
    y = np.array([0.0, 1 / 3, 2 / 3, 1.0, 4 / 3])
    np.testing.assert_array_equal(ev.indicator(y), rebuild_event(r).indicator(y))
    c = recount(back, mech, n=20_000, rng=np.random.default_rng(99))
    got = r.counts
    for k_new, k_old in ((c["numerator"], got["numerator"]), (c["denominator"], got["denominator"])):
        assert abs(k_new - k_old) <= 6 * np.sqrt(max(k_old, 1)) + 5  # same order: Poisson-scale agreement


def test_recount_names_what_is_wrong_with_a_stored_or_given_pair():
    """A results file may come from someone else: a missing, summarised, ragged or mixed pair, a bad ``n`` or a bad
    ``pair=`` gives a ValueError naming it (before: KeyError, or numpy's own errors)."""

    def mech(data, size, rng):
        return rng.laplace(np.asarray(data, float).sum(), 1.0, size)

    r = audit(
        mech, PrivacyClaim(1.0), pairs=[(np.zeros(2), np.r_[0.0, 1.0])], n_samples=5_000, rng=np.random.default_rng(4)
    )
    good = dict(r.details)
    g = np.random.default_rng(0)
    cases = {
        "no pair": ({k: v for k, v in good.items() if k != "pair"}, "stores no pair"),
        "no d_prime": ({**good, "pair": {"d": [0.0, 0.0]}}, "stores no pair"),
        "summary": ({**good, "pair": {"d": {"shape": [100]}, "d_prime": [0.0]}}, "summary"),
        "ragged": ({**good, "pair": {"d": [[0.0], [0.0, 1.0]], "d_prime": [0.0, 1.0]}}, "ragged|rectangular"),
        "mixed": ({**good, "pair": {"d": [0.0, [1.0]], "d_prime": [0.0, 1.0]}}, "ragged|rectangular"),
        "null": ({**good, "pair": {"d": None, "d_prime": [0.0, 1.0]}}, r"\['d'\] must be"),
    }
    for details, msg in cases.values():
        with pytest.raises(ValueError, match=msg):
            recount(details, mech, n=100, rng=g)
    with pytest.raises(ValueError, match="n must be"):
        recount(good, mech, n=0, rng=g)
    with pytest.raises(ValueError, match="pair must be"):
        recount(good, mech, n=100, rng=g, pair=np.zeros(2))
    c = recount(good, mech, n=2_000, rng=g)  # the stored pair still works, and so does pair=
    c2 = recount(
        {k: v for k, v in good.items() if k != "pair"}, mech, n=2_000, rng=g, pair=(np.zeros(2), np.r_[0.0, 1.0])
    )
    assert c["numerator"] > 0 and c2["numerator"] > 0
