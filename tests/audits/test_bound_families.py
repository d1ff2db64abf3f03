"""Family-wise α of the tail-bound and lower-bound claim tests (``htdp_verify.multiplicity``).

Each suite's tail claims (``hu2022.tail``, ``zhao2024.tail_shape``) and "a private estimator cannot beat this lower
bound" claims (``hu2022.lowerbound.cannot_beat``, ``lowerbound.cannot_beat``) share α = 0.05 by Bonferroni; the
non-private canaries keep their own 0.05.  Deterministic tests: the registry and the tables are iterated, and the
checks run at tiny / quick sizes with only their α and recorded fields asserted (never a random value), except the
last test, which asserts that the canary is still flagged at its share (a tester that cannot fail is no tester).
"""

from __future__ import annotations

import numpy as np
import pytest

from audits import hu2022, hu2022_lowerbound, lowerbounds, zhao2024
from htdp_verify.multiplicity import families, family_of
from htdp_verify.registry import RunContext, all_checks, get_checks

BOUND_FAMILIES = {
    "hu2022.tail": hu2022.TAIL_FAMILY,
    "zhao2024.tail_shape": zhao2024.TAIL_FAMILY,
    "hu2022.lowerbound.cannot_beat": hu2022_lowerbound.LOWERBOUND_FAMILY,
    "lowerbound.cannot_beat": lowerbounds.CANNOT_BEAT_FAMILY,
}


def _run(name: str, tmp_path, *, tiny: bool, seed: int = 20261121):
    (chk,) = [c for c in get_checks([name]) if c.name == name]
    ctx = RunContext(profile="quick", seed=seed, rng=np.random.default_rng(seed), out_dir=tmp_path, progress=False)
    ctx.tiny = tiny
    out = chk.func(ctx)
    return out if isinstance(out, list) else [out]


def _is_bound_claim(check) -> bool:
    return "tail" in check.tags or ".cannot_beat." in check.name


def test_every_tail_and_cannot_beat_check_belongs_to_a_family():
    """Iterate the registry: a tail-bound or cannot-beat check is a counted member or a listed exclusion of its
    family (fails when a new such check is registered outside the split)."""
    registered = {f.name: f for f in families()}
    checks = [c for c in all_checks() if _is_bound_claim(c)]
    assert len(checks) >= 2 + 4 + 5  # two tail checks, Hu's four cannot-beat, the generic five
    for c in checks:
        fam = family_of(c.name)
        assert fam is not None, c.name
        assert fam.name in BOUND_FAMILIES and registered[fam.name] is BOUND_FAMILIES[fam.name]
        assert c.name in set(fam.members) | set(fam.excluded)


@pytest.mark.parametrize("fam_name", sorted(BOUND_FAMILIES))
@pytest.mark.parametrize("profile", ("tiny", "quick", "full"))
def test_bound_family_shares_sum_to_the_family_alpha(fam_name, profile):
    fam = BOUND_FAMILIES[fam_name]
    total = sum(fam.count(m, profile) * fam.alpha_for(m, profile) for m in fam.members)
    assert total == pytest.approx(0.05)


def test_family_sizes():
    assert hu2022.TAIL_FAMILY.size("quick") == 1
    assert zhao2024.TAIL_FAMILY.size("full") == 2
    assert hu2022_lowerbound.LOWERBOUND_FAMILY.size("quick") == 3
    assert lowerbounds.CANNOT_BEAT_FAMILY.size("full") == 4
    for fam in (hu2022_lowerbound.LOWERBOUND_FAMILY, lowerbounds.CANNOT_BEAT_FAMILY):
        assert [m for m in fam.excluded if m.endswith("nonprivate_mean")] == list(fam.excluded)


@pytest.mark.parametrize(
    "name, tiny, share, n_results",
    [
        ("zhao2024.tail_shape", True, 0.05 / 2, 2),
        ("lowerbound.cannot_beat.clipped_laplace", False, 0.05 / 4, 1),
        ("hu2022.lowerbound.cannot_beat.peeling", False, 0.05 / 3, 1),
        ("hu2022.tail.lemma4", True, 0.05, 1),
    ],
)
def test_member_runs_at_its_share_and_records_the_family(name, tiny, share, n_results, tmp_path):
    results = _run(name, tmp_path, tiny=tiny)
    assert len(results) == n_results
    for r in results:
        assert r.alpha == pytest.approx(share)
        assert r.details["family"] == family_of(name).name
        assert r.details["family_member"] == name
        assert "Bonferroni share" in r.summary


@pytest.mark.parametrize(
    "name", ["lowerbound.cannot_beat.nonprivate_mean", "hu2022.lowerbound.cannot_beat.nonprivate_mean"]
)
def test_canary_keeps_its_alpha_and_is_still_flagged(name, tmp_path):
    """The non-private mean beats a private lower bound by a wide margin (its error probability at the radius is
    far below the bound: 0.08 vs 0.24 and 0.34 vs 0.87 at seed 20261121), so at its own α = 0.05 the canary must
    come out violated: the family split must not have switched the tester off."""
    (r,) = _run(name, tmp_path, tiny=False)
    assert r.alpha == 0.05
    assert r.expected == "violated"
    assert "family" not in r.details and r.details["excluded_from_family"] == family_of(name).name
    assert r.verdict == "violated"
