import math

import pytest

from htdp_verify.claims import LowerBoundClaim, PrivacyClaim, Provenance, RateClaim, TailBoundClaim, claim_from_dict
from htdp_verify.results import CheckResult, results_from_json, results_to_json

PROV = Provenance("Hu et al. 2022", "Theorem 3", "(7)", "reconstructed")


@pytest.mark.parametrize(
    "claim",
    [
        PrivacyClaim(0.5, 1e-6, "add_remove", PROV),
        RateClaim("n", -0.5, 0.1, "median", "n >> d", PROV),
        TailBoundClaim(0.05, "C sqrt(log(1/beta)/n)", PROV),
        LowerBoundClaim(0.01, "squared error", "k-th central moment <= 1", PROV),
    ],
)
def test_check_result_json_roundtrip(claim):
    r = CheckResult(name="x.y", verdict="violated", statistic="epsilon_lb", estimate=1.25,
                    interval=(1.25, math.inf), alpha=0.05, claim=claim, n_samples=10, seconds=0.5, seed=3,
                    provenance=PROV, summary="s", details={"a": [1, 2], "b": math.inf}, figures=["f.png"])
    back = CheckResult.from_json(r.to_json())
    assert back == CheckResult.from_dict(r.to_dict())
    assert back.claim == claim
    assert back.interval == (1.25, math.inf)
    assert back.provenance == PROV
    assert results_from_json(results_to_json([r, r]))[1].estimate == 1.25


def test_claim_validation_names_parameter():
    with pytest.raises(ValueError, match="epsilon"):
        PrivacyClaim(-1.0)
    with pytest.raises(ValueError, match="neighbours"):
        PrivacyClaim(1.0, neighbours="swap")
    with pytest.raises(ValueError, match="beta"):
        TailBoundClaim(1.5)
    with pytest.raises(ValueError, match="verdict"):
        CheckResult(name="a", verdict="ok")
    with pytest.raises(ValueError, match="kind"):
        claim_from_dict({"epsilon": 1})


def test_privacy_guarantee_zcdp_conversion_is_explicit():
    from htdp_verify.privacy import PrivacyGuarantee

    g = PrivacyGuarantee.from_zcdp(0.5, 1e-5)
    assert g.epsilon == pytest.approx(0.5 + 2 * math.sqrt(0.5 * math.log(1e5)))
    assert "zCDP" in g.claim().provenance.notes
