"""Family-wise verdicts of a bench table (``audits/benchmark/familywise.py``): the certified counts of each row
re-tested at α/m, no audit re-run.

What can fail here: the recomputation must give back the audit's own bound at the audit's own level, bit for bit,
for both certification tests (else the family-wise column would be a different estimate, not the same certificate
at a stricter level); a tight row's chance alarm must not survive α/29 while a real violation must; and the
tables must carry the column.
"""

from __future__ import annotations

import csv

import numpy as np
import pytest

from audits import benchmark as B
from audits.benchmark.familywise import bound_at_level, family_wise_bound, family_wise_flags
from htdp_verify import PrivacyClaim
from htdp_verify.privacy import audit
from htdp_verify.results import CheckResult


def _laplace(q, size, rng):
    return q + rng.laplace(0.0, 1.0, size)


def _gauss(q, size, rng):
    return q + rng.normal(0.0, 1.0, size)


@pytest.mark.parametrize(
    "mech, claim",
    [(_laplace, PrivacyClaim(0.5)), (_gauss, PrivacyClaim(0.5, 1e-3))],
    ids=["pure (conditional Poisson test)", "delta > 0 (Clopper-Pearson)"],
)
def test_the_audit_level_gives_back_the_audits_own_bound(mech, claim):
    res = audit(mech, claim, pairs=[(0.0, 1.0)], n_samples=20_000, rng=np.random.default_rng(3))
    method = res.details["counts"]["method"]
    assert method == ("poisson" if claim.delta == 0 else "cp")
    a = res.details["cp_bounds"]["alpha_per_event"]
    assert bound_at_level(res, a) == res.estimate  # exactly the certified number
    assert family_wise_bound(res, 1) == res.estimate
    stricter = family_wise_bound(res, 29)
    assert stricter is not None and stricter < res.estimate  # a stricter level, a lower bound
    # true ε of the Laplace pair is 1 > claim 0.5 and the audit flags it; still flagged at 5 %/29
    if claim.delta == 0:
        assert res.verdict == "violated" and family_wise_flags([res], m=29) == [True]


def _row(name, claim, k_num, k_den, n):
    counts = {"numerator": k_num, "denominator": k_den, "n_per_side": n, "method": "poisson"}
    counts |= {"n_numerator": n, "n_denominator": n}
    return CheckResult(
        f"benchmark.{name}",
        "violated",
        "epsilon_lb",
        0.0,
        alpha=0.05,
        n_samples=2 * n,
        claim=PrivacyClaim(claim),
        details={"counts": counts, "cp_bounds": {"alpha_per_event": 0.05}, "benchmark": {"mechanism": name}},
    )


def test_a_tight_rows_chance_alarm_does_not_survive_the_family_level_and_a_violation_does():
    # The counts of TruncatedGeometric's false alarm at seed 20261121 of the full-size bench (true ε = claim =
    # ln(9/8)): certified 0.11785 > 0.11778 at 5 %, a chance event of the tight row.
    tight = _row("TruncatedGeometric", float(np.log(9 / 8)), 6_052_540, 5_374_412, 11_428_571)
    assert bound_at_level(tight, 0.05) > tight.claim.epsilon
    assert family_wise_bound(tight, 29) < tight.claim.epsilon
    # a violation 0.02 above the claim at these counts (ratio e^0.1378) survives the family level
    k_den = 5_374_412
    buggy = _row("TruncatedGeometric", float(np.log(9 / 8)), int(k_den * np.exp(0.1378)), k_den, 11_428_571)
    assert family_wise_flags([tight, buggy]) == [False, True]
    assert family_wise_flags([tight, buggy], m=1) == [True, True]  # at 5 % per row both are flagged
    with pytest.raises(ValueError, match="alpha_event"):
        bound_at_level(tight, 1.5)
    with pytest.raises(ValueError, match="m"):
        family_wise_bound(tight, 0)


def test_rows_without_counts_have_no_family_wise_flag():
    fake = CheckResult("benchmark.Laplace", "consistent", "epsilon_lb", 0.09, alpha=0.05, n_samples=20, details={})
    assert family_wise_flags([fake]) == [None]
    row = B.bench_rows([fake])[0]
    assert row["flagged_family_wise"] is None and row["eps_lb_family_wise"] is None


def test_the_seed_tables_carry_the_family_wise_column(tmp_path):
    names = ["Laplace", "NoisyHist2"]
    B.run_bench(
        quick=True,
        out_dir=tmp_path,
        seed=7,
        progress=False,
        names=names,
        n_jobs=1,
        seeds=2,
        n_per_side=100_000,
        white_box=False,
    )
    rows = {r["mechanism"]: r for r in csv.DictReader(open(tmp_path / "bench_seeds.csv"))}
    # NoisyHist2 (true ε 10 vs claim 0.1) is flagged at the family level too; the family-wise count never
    # exceeds the per-row count
    assert rows["NoisyHist2"]["flagged_family_wise"] == "2"
    assert rows["NoisyHist2"]["matches_ground_truth_family_wise"] == "2"
    assert int(rows["Laplace"]["flagged_family_wise"]) <= int(rows["Laplace"]["flagged"])
    runs = list(csv.DictReader(open(tmp_path / "bench_runs.csv")))
    for r in runs:
        assert float(r["eps_lb_family_wise"]) <= float(r["eps_lb"])
    md = (tmp_path / "bench_seeds.md").read_text()
    assert "95 % family-wise (Bonferroni over the 2 rows" in md and "| flagged (family-wise) |" in md
    assert "at 95 % family-wise" in (tmp_path / "bench.md").read_text()
