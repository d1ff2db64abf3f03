"""Family-wise α of the papers' privacy and rate claims (``htdp_verify.multiplicity`` and the ``PRIVACY_FAMILY`` /
``RATE_FAMILY`` tables of ``audits/hu2022.py``, ``audits/zhao2024.py``, ``audits/dpem.py``).

Each paper's privacy-claim checks share α = 0.05 by Bonferroni, and so do its rate checks (a separate family);
controls and canaries keep their own α.  The
tests below are deterministic (fixed seeds, exact arithmetic on the tables); the audits run at the test-only
"tiny" sizes and only their α and recorded fields are asserted, never a certified bound.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from audits import dpem, hu2022, zhao2024
from htdp_verify.multiplicity import Family, bonferroni_alpha, families, family_of, register_family
from htdp_verify.registry import RunContext, all_checks, get_checks
from htdp_verify.results import CheckResult

PAPER_FAMILIES = {
    "hu2022.privacy": hu2022.PRIVACY_FAMILY,
    "zhao2024.privacy": zhao2024.PRIVACY_FAMILY,
    "wang_dpem.privacy": dpem.PRIVACY_FAMILY,
    "hu2022.rate": hu2022.RATE_FAMILY,
    "zhao2024.rate": zhao2024.RATE_FAMILY,
    "wang_dpem.rate": dpem.RATE_FAMILY,
}
PROFILES = ("tiny", "quick", "full")


def _run_tiny(name: str, tmp_path: Path, seed: int = 20261121):
    (chk,) = [c for c in get_checks([name]) if c.name == name]
    ctx = RunContext(profile="quick", seed=seed, rng=np.random.default_rng(seed), out_dir=tmp_path, progress=False)
    ctx.tiny = True
    return chk.func(ctx)


def test_every_registered_paper_privacy_and_rate_check_is_in_its_family():
    """Iterate the registry: every privacy (rate) check of a paper is either a counted claim test or a listed
    exclusion of that paper's privacy (rate) family, and every name a family lists is a registered check (a new
    check cannot escape the split)."""
    names = {c.name for c in all_checks()}
    fams = {f.name: f for f in families()}
    for fam_name in PAPER_FAMILIES:
        assert fam_name in fams
        fam = fams[fam_name]
        prefix = fam_name + "."
        in_suite = {n for n in names if n.startswith(prefix)}
        assert in_suite == set(fam.members) | set(fam.excluded), fam_name
        for n in in_suite:
            assert family_of(n) is fam


@pytest.mark.parametrize("fam_name", sorted(PAPER_FAMILIES))
@pytest.mark.parametrize("profile", PROFILES)
def test_family_alphas_sum_to_at_most_the_family_alpha(fam_name, profile):
    fam = {f.name: f for f in families()}[fam_name]
    assert fam is PAPER_FAMILIES[fam_name]
    assert fam.alpha == 0.05
    total = sum(fam.count(m, profile) * fam.alpha_for(m, profile) for m in fam.members if fam.count(m, profile))
    assert total <= 0.05 * (1 + 1e-12)
    assert total == pytest.approx(0.05)
    assert fam.spent(profile) == pytest.approx(total)


def test_family_sizes():
    """The sizes stated in the modules' comments: Hu 7 at every profile, Wang 2, Zhao one result per m of
    ``SIZES[profile]["het"]`` plus two (3 at quick, 5 at full)."""
    assert {p: hu2022.PRIVACY_FAMILY.size(p) for p in PROFILES} == {"tiny": 7, "quick": 7, "full": 7}
    assert {p: dpem.PRIVACY_FAMILY.size(p) for p in PROFILES} == {"tiny": 2, "quick": 2, "full": 2}
    assert {p: zhao2024.PRIVACY_FAMILY.size(p) for p in PROFILES} == {
        p: 2 + len(zhao2024.SIZES[p]["het"]) for p in PROFILES
    }
    assert zhao2024.PRIVACY_FAMILY.size("full") == 5
    assert [f.size("quick") for f in (hu2022.RATE_FAMILY, zhao2024.RATE_FAMILY, dpem.RATE_FAMILY)] == [14, 3, 4]


def test_tight_check_runs_at_its_share_and_records_the_family(tmp_path):
    """``hu2022.privacy.smoothed_mean_tight`` (true ε = claim) is tested at 0.05/7, not 0.05: the certification's
    confidence and the result's α are the share, and the family is in the details (fails on the per-check α)."""
    r = _run_tiny("hu2022.privacy.smoothed_mean_tight", tmp_path)
    share = 0.05 / 7
    assert r.alpha == pytest.approx(share)
    assert r.details["confidence"] == pytest.approx(1 - share)
    assert r.details["family"] == "hu2022.privacy"
    assert r.details["family_size"] == 7
    assert r.details["alpha_family"] == 0.05
    assert r.details["family_member"] == "hu2022.privacy.smoothed_mean_tight"
    assert "0.05/7" in r.summary and f"{100 * (1 - share):.4g}%" in r.summary
    back = CheckResult.from_json(r.to_json())
    assert back.alpha == pytest.approx(share) and back.details["family_size"] == 7


@pytest.mark.parametrize(
    "name, share",
    [
        ("zhao2024.privacy.simple_clipping", 0.05 / 3),  # tiny: one m, so 3 claim tests
        ("wang_dpem.privacy.local", 0.05 / 2),
        ("hu2022.privacy.iht_truncated", 0.05 / 7),  # hu2022_sparse's own audit call
    ],
)
def test_other_paper_modules_use_their_share(name, share, tmp_path):
    r = _run_tiny(name, tmp_path)
    assert r.alpha == pytest.approx(share)
    assert r.details["family"] == family_of(name).name
    assert r.details["confidence"] == pytest.approx(1 - share)


def test_rate_check_uses_its_share(tmp_path):
    r = _run_tiny("wang_dpem.rate.central_n", tmp_path)
    assert r.alpha == pytest.approx(0.05 / 4)
    assert r.details["family"] == "wang_dpem.rate" and r.details["family_size"] == 4
    assert r.details["false_failure_rate_max"] == pytest.approx(0.05 / 4)


def test_controls_and_canaries_keep_their_own_alpha(tmp_path):
    r = _run_tiny("wang_dpem.privacy.local_as_printed", tmp_path)
    assert r.expected == "violated"
    assert r.alpha == 0.05
    assert "family" not in r.details
    assert r.details["excluded_from_family"] == "wang_dpem.privacy"
    assert "not counted" in r.details["exclusion_reason"]


# ---------------------------------------------------------------------------------------------------------
# the engine's Family
# ---------------------------------------------------------------------------------------------------------
def test_family_split_is_static_and_profile_dependent():
    fam = Family("demo.privacy", {"a": 1, "b": {"quick": 1, "full": 3}}, excluded={"c": "control"})
    assert fam.size("quick") == 2 and fam.size("full") == 4
    assert fam.alpha_for("a", "full") == pytest.approx(0.0125)
    assert fam.profiles() == ["full", "quick"]
    with pytest.raises(ValueError, match="excluded"):
        fam.alpha_for("c", "quick")
    with pytest.raises(ValueError, match="member must be one of"):
        fam.alpha_for("z", "quick")
    with pytest.raises(ValueError, match="profile must be one of"):
        fam.size("tiny")


def test_annotate_refuses_a_result_tested_at_another_alpha():
    """A result certified at 0.05 must not be relabelled as a family member's share: its interval would be wrong."""
    fam = Family("demo.privacy", {"a": 1, "b": 1})
    r = CheckResult("a", "consistent", alpha=0.05)
    with pytest.raises(ValueError, match="family share"):
        fam.annotate(r, "a", "quick")
    ok = fam.annotate(CheckResult("a", "consistent", alpha=0.025), "a", "quick")
    assert ok.details["family_size"] == 2 and ok.details["alpha_family"] == 0.05


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(name="", members={"a": 1}), "name"),
        (dict(name="f", members={}), "members"),
        (dict(name="f", members={"a": 1}, alpha=1.5), "alpha"),
        (dict(name="f", members={"a": -1}), "integer >= 0"),
        (dict(name="f", members={"a": 1}, excluded={"a": "x"}), "excluded"),
    ],
)
def test_family_rejects_bad_input(kwargs, match):
    with pytest.raises(ValueError, match=match):
        Family(**kwargs)


def test_bonferroni_alpha_and_register_family_validate():
    assert bonferroni_alpha(0.05, 4) == 0.0125
    for a, k in ((0.0, 2), (0.05, 0), (0.05, 1.5)):
        with pytest.raises(ValueError):
            bonferroni_alpha(a, k)
    with pytest.raises(ValueError, match="already members"):
        register_family(Family("test.other_family", {"hu2022.privacy.smoothed_mean": 1}))
    assert math.isclose(hu2022.PRIVACY_FAMILY.alpha_for("hu2022.privacy.dp_fw", "quick"), 0.05 / 7)
