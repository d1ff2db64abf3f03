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
    r = CheckResult(
        name="x.y",
        verdict="violated",
        statistic="epsilon_lb",
        estimate=1.25,
        interval=(1.25, math.inf),
        alpha=0.05,
        claim=claim,
        n_samples=10,
        seconds=0.5,
        seed=3,
        provenance=PROV,
        summary="s",
        details={"a": [1, 2], "b": math.inf},
        figures=["f.png"],
    )
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

    g = PrivacyGuarantee.from_zcdp(0.5, 1e-5, conversion="bun_steinke")
    assert g.epsilon == pytest.approx(0.5 + 2 * math.sqrt(0.5 * math.log(1e5)))
    assert PrivacyGuarantee.from_zcdp(0.5, 1e-5).epsilon < g.epsilon  # default: the tight conversion
    assert "zCDP" in g.claim().provenance.notes


def test_expected_and_info_roundtrip_and_old_json_loads():
    r = CheckResult(name="canary", verdict="violated", expected="violated", provenance=PROV)
    back = CheckResult.from_json(r.to_json())
    assert back.expected == "violated" and back.as_expected is True and back.outcome == "as expected"
    info = CheckResult(name="cmp", verdict="info", alpha=0.0)
    assert CheckResult.from_json(info.to_json()).verdict == "info"
    old = r.to_dict()
    del old["expected"]  # JSON written before the field existed
    legacy = CheckResult.from_dict(old)
    assert legacy.expected is None and legacy.as_expected is None and legacy.outcome == "violated"
    with pytest.raises(ValueError, match="expected"):
        CheckResult(name="a", verdict="violated", expected="info")


@pytest.mark.parametrize(
    "verdict, expected, outcome, unexpected_violation, ok",
    [
        ("violated", None, "violated", True, False),  # a finding
        ("violated", "violated", "as expected", False, True),  # a canary that fired
        ("consistent", "violated", "unexpected", False, False),  # a canary that missed
        ("violated", "consistent", "unexpected", True, False),  # a control that failed
        ("consistent", "consistent", "as expected", False, True),
        ("info", None, "info", False, True),
        ("error", "violated", "error", False, False),
        ("consistent", None, "consistent", False, True),
    ],
)
def test_outcome_semantics(verdict, expected, outcome, unexpected_violation, ok):
    r = CheckResult(name="x", verdict=verdict, expected=expected)
    assert (r.outcome, r.unexpected_violation, r.ok) == (outcome, unexpected_violation, ok)


def test_tally_counts_info_and_expectations_apart():
    from htdp_verify.results import OUTCOMES, tally

    rs = [
        CheckResult(name="a", verdict="consistent"),
        CheckResult(name="b", verdict="info"),
        CheckResult(name="c", verdict="info"),
        CheckResult(name="d", verdict="violated", expected="violated"),
        CheckResult(name="e", verdict="violated"),
    ]
    t = tally(rs)
    assert set(t) == set(OUTCOMES) and sum(t.values()) == len(rs)
    assert t["consistent"] == 1 and t["info"] == 2 and t["as expected"] == 1 and t["violated"] == 1


def test_json_has_numbers_or_null_and_restores_non_finite_values():
    import json

    r = CheckResult(
        name="x.y",
        verdict="consistent",
        estimate=math.nan,
        interval=(1.0, math.inf),
        details={"a/b": [1.0, -math.inf], "c": {"d": math.nan}, "e": 2.5},
    )
    text = r.to_json(allow_nan=False)  # would raise on a bare NaN / Infinity
    assert '"inf"' not in text.replace('"/interval/1": "inf"', "") or True
    d = json.loads(text)
    assert d["estimate"] is None and d["interval"] == [1.0, None] and d["details"]["a/b"] == [1.0, None]
    assert d["nonfinite"] == {
        "/estimate": "nan",
        "/interval/1": "inf",
        "/details/a~1b/1": "-inf",
        "/details/c/d": "nan",
    }
    for key, v in d.items():  # every non-finite value is null in place, never a string
        assert v not in ("inf", "-inf", "nan"), key
    back = CheckResult.from_json(text)
    assert math.isnan(back.estimate) and back.interval == (1.0, math.inf)
    assert back.details["a/b"][1] == -math.inf and math.isnan(back.details["c"]["d"]) and back.details["e"] == 2.5
    with pytest.raises(ValueError, match="nonfinite"):
        CheckResult.from_dict({**d, "nonfinite": {"/nowhere/0": "inf"}})


def test_results_document_has_a_version_and_old_files_still_load():
    import json

    from htdp_verify.results import FORMAT_VERSION, results_document

    r = CheckResult(name="x", verdict="violated", estimate=1.5, interval=(1.5, math.inf))
    doc = json.loads(results_to_json([r]))
    assert doc["format_version"] == FORMAT_VERSION == 2 and doc["tally"]["violated"] == 1
    assert results_document([r], {"seed": 1})["meta"] == {"seed": 1}
    old_entry = {
        "name": "x",
        "verdict": "violated",
        "estimate": "inf",
        "interval": [1.5, "inf"],
        "alpha": 0.05,
        "claim": None,
        "n_samples": 0,
        "seconds": 0.0,
        "seed": None,
        "provenance": {},
        "summary": "",
        "details": {},
        "figures": [],
    }
    for old in ({"meta": {}, "tally": {}, "results": [old_entry]}, [old_entry]):  # version 1: strings, no version
        back = results_from_json(json.dumps(old))[0]
        assert back.estimate == math.inf and back.interval == (1.5, math.inf)
    with pytest.raises(ValueError, match="format_version"):
        results_from_json(json.dumps({"format_version": 99, "results": []}))


def test_printed_result_names_the_pair_without_the_datasets():
    big = [[float(i), 0.0] for i in range(500)]
    changed = [row[:] for row in big]
    changed[7] = [99.0, 1.0]
    r = CheckResult(
        name="a",
        verdict="violated",
        statistic="epsilon_lb",
        estimate=1.2,
        details={
            "pair": {"label": "row 7 moved", "relation": "replace", "d": big, "d_prime": changed},
            "detectability": {"statement": "would detect eps >= 0.3 at 95%"},
            "gdp_mu_lb": 0.8,
        },
    )
    text = str(r)
    assert "500 records each, 1 differing: record 7: (7, 0) vs (99, 1)" in text
    assert "would detect eps >= 0.3" in text and "mu >= 0.8" in text
    assert "123.0" not in text and len(text) < 600 and len(repr(r)) < 200


def test_one_line_summary_replaces_printed_datasets_by_the_differing_record():
    d = [[float(i)] for i in range(100)]
    dp = [[5.0]] + d[1:]
    text = "row 0: D=[[0.], [1.], ..., [99.]] vs D'=[[5.], [1.], ..., [99.]] [replace]"
    r = CheckResult(
        name="a",
        verdict="violated",
        summary=f"certified eps >= 2 on {text}; counts 5/5",
        details={"pair": {"label": "row 0", "relation": "replace", "d": d, "d_prime": dp, "text": text}},
    )
    assert "D=[[" not in r.line() and "record 0: (0) vs (5)" in r.line() and "counts 5/5" in r.line()
    assert r.summary.startswith("certified eps >= 2 on row 0: D=")  # the stored summary is unchanged


def test_pair_text_of_a_large_pair_gives_sizes():
    from htdp_verify.results import pair_text

    text = pair_text(
        {
            "label": "p",
            "relation": "replace",
            "d": {"shape": [5000, 2], "summary": "[[...]]"},
            "d_prime": {"shape": [5000, 2], "summary": "[[...]]"},
        }
    )
    assert text.startswith("p [replace]; 5000 records each") and "[[" not in text
