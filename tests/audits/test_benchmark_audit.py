"""The auditor on the ground-truth benchmark: correct mechanisms are not flagged, buggy ones are.

One fixed-seed audit per mechanism at small sizes (``N_TEST`` releases per side unless a larger size is stated
for a mechanism whose violation is small or sits on rare events).  Each audit certifies at α = 0.05
(family-wise over its events and directions; the pair search spends no α), so for a correct mechanism the
probability over seeds of a false flag is ≤ 0.05; it approaches 0.05 only for mechanisms that are tight at their
claim (TruncatedGeometric, NoisyHist1).  Buggy mechanisms are flagged when their true ε exceeds the claim by
more than these sizes can resolve; the sizes were chosen by re-running every audit at 4 other seeds
(31-34): every buggy mechanism was flagged at all of them, and 2 of the 60 correct-mechanism audits were
flagged (TruncatedGeometric 0.128 vs 0.118 and NoisyHist1 0.107 vs 0.1, both tight at their claim: the α
events the design allows).  So a correct row fails the test only if it is flagged at the family-wise level α / m
over the m correct rows (one seed each; the chance alarm ReportNoisyMax2 raised at 0.1007 vs 0.1 when the
selection became coupled does not count, a formula or count bug still does).  Speed is never asserted here (the
benchmark measures it).
"""

from __future__ import annotations

import csv
import math

import numpy as np
import pytest

from _auditcheck import strict_epsilon_lb
from audits import benchmark as B
from audits.benchmark.familywise import family_wise_bound

pytest.importorskip("htdp_verify.privacy.audit")

N_TEST = 60_000
# buggy mechanisms whose excess over the claim is small need more releases to be flagged reliably
N_BY_NAME = {
    "SVT4": 4_000_000,  # 0.175 vs 0.1 (pair-ε 0.1725), best events have probability ~0.02; only 2 of 9 pairs
    # exceed the claim by a margin (oracle 0.143 at 4·10⁵ certification releases), and at 6·10⁵ the search
    # found one of them in ~1/3 of seeds (2·10⁶: 19/30, 4·10⁶: 25/30 and 6/6 audits flagged)
    "SVT6": 1_500_000,  # pair-ε 0.42 on events of probability ~4e-4
    "ReportNoisyMax3": 500_000,  # 0.25 vs 0.1 on events of probability ~0.03
    "ReportNoisyMax4": 200_000,
    "StatDP.iSVT3": 100_000,
    "StatDP.iSVT4": 1_000_000,  # at 2·10⁵ 2 of 4 other seeds settled on a weaker pair (ε_lb 0.39-0.59 < 0.7),
    # at 5·10⁵ 1 of 4 (0.61); at 10⁶ 4 of 4 flagged (1.33-1.66)
    # rare-event rows: the pair search needs a few 10⁶ releases per side before the good pairs stand out
    # (SVT3: ε 0.5 on events of probability ~10⁻³; SVT34Parallel: 2 of 9 pairs exceed the claim 0.2).
    # At these sizes both were flagged at 6 of 6 other seeds (ε_lb 0.17-0.22 and 0.22-0.30).
    "SVT3": 10_000_000,
    "SVT34Parallel": 6_000_000,
}


N_CORRECT = sum(not B.get_mechanism(n).buggy for n in B.MECHANISMS)  # the family of the no-flag assertions


def _seed(name: str) -> int:
    import zlib

    return 20261122 + zlib.crc32(name.encode()) % 1000


# The two rows that need 6-10·10⁶ releases per side (38 s and 20 s of the default suite's ~1 000 CPU-s on a quiet
# machine) run with `-m slow`; the public "auto" audit flags both at every seed of the full-size bench (README,
# "Full size").
SLOW_ROWS = ("SVT3", "SVT34Parallel")


@pytest.mark.parametrize(
    "name", [pytest.param(n, marks=pytest.mark.slow) if n in SLOW_ROWS else n for n in B.MECHANISMS]
)
def test_auditor_flags_exactly_the_buggy_mechanisms(name):
    m = B.get_mechanism(name)
    n = N_BY_NAME.get(name, N_TEST)
    r = B.audit_white_box(name, n_per_side=n, rng=np.random.default_rng(_seed(name)))
    # the per-side budget is respected (search + selection + certification); certification sizes are
    # Poisson(n_cert), so allow 6 standard deviations of Poisson fluctuation
    assert r.n_samples // 2 <= n + 6 * math.sqrt(n)
    b = r.details["benchmark"]
    assert b["true_epsilon"] == m.true_epsilon and b["expected_verdict"] == m.expected_verdict
    if m.buggy:
        assert r.verdict == "violated", r.report()
        assert r.epsilon_lb > m.claimed_epsilon
    elif r.verdict == "violated":
        # a correct row tight at its claim raises the chance alarm its α allows; over the N_CORRECT correct rows
        # the test keeps α = 0.05 family-wise: such an alarm must not survive α / N_CORRECT (Bonferroni)
        assert family_wise_bound(r, N_CORRECT) <= m.claimed_epsilon, r.report()
    assert strict_epsilon_lb(r) <= m.true_epsilon  # validity at α=1e-3 (tests/_auditcheck.py)
    if m.unbounded and name in ("SVT5", "StatDP.iSVT1", "LaplaceNaiveFloat", "ReportNoisyMax4"):
        assert r.possibly_unbounded, r.report()  # an event with probability 0 on one side was certified


def test_unbounded_mechanisms_say_possibly_unbounded():
    r = B.audit_mechanism("SVT5", n_per_side=100_000, rng=np.random.default_rng(3))
    assert r.verdict == "violated" and r.possibly_unbounded
    assert "possibly unbounded" in r.summary.lower()


def test_run_bench_writes_table_csv_and_figure(tmp_path):
    names = ["Laplace", "NoisyHist2", "SVT5"]
    res = B.run_bench(quick=True, out_dir=tmp_path, seed=7, progress=False, names=names, n_jobs=1, n_per_side=100_000)
    assert [r.details["benchmark"]["mechanism"] for r in res] == names
    for f in ("bench.md", "bench.csv", "bench.png"):
        assert (tmp_path / f).stat().st_size > 0
    rows = list(csv.DictReader(open(tmp_path / "bench.csv")))
    assert [r["mechanism"] for r in rows] == names
    assert set(B.BENCH_COLUMNS) == set(rows[0])
    nh2 = rows[1]
    assert nh2["verdict"] == "violated" and float(nh2["dpsniper_lr"]) == pytest.approx(4.602)
    assert rows[2]["true_eps"] == "inf" and rows[2]["possibly_unbounded"] == "True"
    md = (tmp_path / "bench.md").read_text()
    assert "possibly unbounded" in md and "DP-Sniper" in md and "| NoisyHist2 |" in md
    # reproducible from the seed
    again = B.run_bench(
        quick=True,
        out_dir=tmp_path / "again",
        seed=7,
        progress=False,
        names=names[:1],
        n_jobs=1,
        n_per_side=100_000,
        white_box=False,
    )
    assert again[0].estimate == res[0].estimate


def test_run_bench_over_seeds_writes_a_summary(tmp_path):
    names = ["NoisyHist2", "ReportNoisyMax3"]
    first = B.run_bench(
        quick=True,
        out_dir=tmp_path,
        seed=7,
        progress=False,
        names=names,
        n_jobs=1,
        seeds=2,
        n_per_side=300_000,
        white_box=False,
    )
    assert [r.details["benchmark"]["mechanism"] for r in first] == names  # the first seed's results
    for f in ("bench.md", "bench.csv", "bench.png", "bench_seeds.md", "bench_seeds.csv", "bench_seeds.png"):
        assert (tmp_path / f).stat().st_size > 0
    rows = {r["mechanism"]: r for r in csv.DictReader(open(tmp_path / "bench_seeds.csv"))}
    assert set(rows) == set(names) and set(next(iter(rows.values()))) == set(B.SEED_COLUMNS)
    for r in rows.values():
        assert r["n_seeds"] == "2"
        assert float(r["eps_lb_min"]) <= float(r["eps_lb_median"]) <= float(r["eps_lb_max"])
    # the first seed's bound is one of the two summarised
    assert float(rows["NoisyHist2"]["eps_lb_min"]) <= first[0].estimate <= float(rows["NoisyHist2"]["eps_lb_max"])
    # true ε 10 vs claim 0.1 at 2·10⁵ releases: flagged at every seed (the violation is ~90× the claim)
    assert rows["NoisyHist2"]["flagged"] == "2" and rows["NoisyHist2"]["matches_ground_truth"] == "2"
    assert 0 <= float(rows["ReportNoisyMax3"]["p_oracle_meets_dpsniper"]) <= 1
    # the target column: median >= DP-Sniper, or >= 0.95 of the oracle ceiling's median
    for r in rows.values():
        med, dps = float(r["eps_lb_median"]), float(r["dpsniper_best"])
        vs = float(r["ratio_median_vs_ceiling"]) if r["ratio_median_vs_ceiling"] else None
        assert r["meets_target"] == str(med >= dps or (vs is not None and vs >= 0.95))
    assert float(rows["ReportNoisyMax3"]["ratio_median_vs_ceiling"]) == pytest.approx(
        float(rows["ReportNoisyMax3"]["eps_lb_median"]) / float(rows["ReportNoisyMax3"]["ceiling"])
    )
    runs = list(csv.DictReader(open(tmp_path / "bench_runs.csv")))
    assert sorted((r["mechanism"], r["seed"]) for r in runs) == sorted((n, str(s)) for n in names for s in (7, 8))
    assert [float(r["eps_lb"]) for r in runs if r["mechanism"] == "NoisyHist2" and r["seed"] == "7"] == [
        first[0].estimate
    ]
    md = (tmp_path / "bench_seeds.md").read_text()
    assert "Runs of correct mechanisms flagged: 0 of 0" in md  # both rows here are buggy mechanisms
    assert "over 2 seeds" in md and "| NoisyHist2 |" in md and "P(oracle ≥ DP-Sniper)" in md
    assert "meeting the target: " in md and "| target met |" in md
    with pytest.raises(ValueError, match="seeds"):
        B.run_bench(quick=True, out_dir=tmp_path, seed=7, progress=False, names=names[:1], n_jobs=1, seeds=0)


def test_registered_checks_judge_the_auditor(tmp_path):
    from htdp_verify.registry import RunContext, get_checks

    checks = {c.name: c for c in get_checks(["benchmark"])}
    assert set(checks) == {f"benchmark.{n}" for n in B.MECHANISMS}
    ctx = RunContext("quick", 5, np.random.default_rng(5), tmp_path, progress=False)
    r = checks["benchmark.NoisyHist2"].func(ctx)  # buggy: the public auditor flags it, as expected
    assert r.verdict == "violated" and r.expected == "violated" and r.outcome == "as expected" and r.estimate > 1
    # correct and exactly tight, so flagged with probability at most alpha = 0.05 whatever the code (measured: 3 of
    # 63 seeds of this very sequence, seed 5 among them); what this test can pin down is that the row carries its
    # ground truth and that a false alarm would be reported as one
    r = checks["benchmark.Laplace"].func(ctx)
    assert r.expected == "consistent" and r.verdict in ("consistent", "violated")
    assert r.unexpected_violation == (r.verdict == "violated")
    assert r.outcome == ("unexpected" if r.verdict == "violated" else "as expected")


def test_audit_mechanism_validates():
    with pytest.raises(ValueError, match="n_per_side"):
        B.audit_mechanism("Laplace", n_per_side=10, rng=np.random.default_rng(0))
    with pytest.raises(ValueError, match="rng"):
        B.audit_mechanism("Laplace", n_per_side=10_000, rng=None)
    with pytest.raises(ValueError, match="name"):
        B.audit_mechanism("NoSuchMechanism", n_per_side=10_000, rng=np.random.default_rng(0))


def test_bench_rows_ratio_against_dpsniper():
    from htdp_verify.results import CheckResult

    fake = CheckResult(
        "benchmark.Laplace",
        "consistent",
        "epsilon_lb",
        0.0976 * 1.01,
        alpha=0.05,
        n_samples=20,
        details={"benchmark": {"mechanism": "Laplace"}},
    )
    row = B.bench_rows([fake])[0]
    assert row["ratio_vs_dpsniper"] == pytest.approx(1.01) and row["meets_dpsniper"]
    assert math.isclose(row["confidence"], 0.95)
    assert row["ceiling_at_certification"] is None  # the audit recorded no certification size


def test_the_oracle_at_the_certification_size_uses_only_the_certified_releases():
    from audits.benchmark.ceiling import oracle_ceiling
    from htdp_verify.results import CheckResult

    n, n_cert = 2_000_000, 1_142_857  # the default split: n_cert of 1.75·n_cert drawn per side
    fake = CheckResult(
        "benchmark.Laplace",
        "consistent",
        "epsilon_lb",
        0.0975,
        alpha=0.05,
        n_samples=2 * n,
        details={"benchmark": {"mechanism": "Laplace"}, "samples": {"n_certify_per_side": n_cert}},
    )
    row = B.bench_rows([fake])[0]
    assert row["ceiling"] == oracle_ceiling("Laplace", n, 0.05)["epsilon"]
    assert row["ceiling_at_certification"] == oracle_ceiling("Laplace", n_cert, 0.05)["epsilon"]
    assert row["ceiling_at_certification"] < row["ceiling"]  # fewer certification releases, a lower oracle bound
    seeds = B.seed_rows({1: [fake]})[0]
    assert seeds["ratio_median_vs_ceiling_at_certification"] == pytest.approx(0.0975 / row["ceiling_at_certification"])


def test_an_interrupted_bench_resumes_to_the_uninterrupted_results(tmp_path):
    kw = dict(quick=True, seed=7, progress=False, names=["Laplace", "NoisyHist2"], n_jobs=1, n_per_side=20_000)
    kw["white_box"] = False
    whole = B.run_bench(out_dir=tmp_path / "a", **kw)
    lines = (tmp_path / "a" / "results.jsonl").read_text().splitlines()
    assert len(lines) == 3  # the header and one line per finished audit
    # an interruption after the first audit: the stream holds the header and that audit only
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "results.jsonl").write_text("\n".join(lines[:2]) + "\n")
    resumed = B.run_bench(out_dir=tmp_path / "b", resume=True, **kw)
    assert [(r.name, r.verdict, r.estimate) for r in resumed] == [(r.name, r.verdict, r.estimate) for r in whole]
    again = (tmp_path / "b" / "results.jsonl").read_text().splitlines()
    assert again[:2] == lines[:2] and len(again) == 3  # the finished audit was kept, only the other one ran
    md = (tmp_path / "b" / "bench.md").read_text()
    assert "1 more were resumed from results.jsonl" in md  # the wall time covers only the audit run now
    assert "resumed" not in (tmp_path / "a" / "bench.md").read_text()
    with pytest.raises(ValueError, match="seed"):
        B.run_bench(out_dir=tmp_path / "b", resume=True, **{**kw, "seed": 8})


def test_runs_of_one_seed_each_combine_into_the_tables_of_one_multi_seed_run(tmp_path):
    kw = dict(quick=True, progress=False, names=["Laplace", "NoisyHist2"], n_jobs=1, n_per_side=20_000)
    kw["white_box"] = False
    B.run_bench(out_dir=tmp_path / "both", seed=7, seeds=2, **kw)
    B.run_bench(out_dir=tmp_path / "s7", seed=7, **kw)
    B.run_bench(out_dir=tmp_path / "s8", seed=8, **kw)
    per_seed = B.combine_bench([tmp_path / "s8", tmp_path / "s7"], tmp_path / "comb")
    assert sorted(per_seed) == [7, 8]
    assert [r.name for r in per_seed[7]] == ["benchmark.Laplace", "benchmark.NoisyHist2"]

    def runs(d):  # bench_runs.csv without the timing column
        rows = (d / "bench_runs.csv").read_text().splitlines()
        keep = [i for i, c in enumerate(rows[0].split(",")) if c != "seconds"]
        return [[r.split(",")[i] for i in keep if i < len(r.split(","))] for r in rows]

    assert runs(tmp_path / "comb") == runs(tmp_path / "both")
    md = (tmp_path / "comb" / "bench_seeds.md").read_text()
    assert "over 2 seeds" in md and "combined from 2 run(s)" in md and "s7" in md
    assert (tmp_path / "comb" / "bench_seeds.png").stat().st_size > 0


def test_combine_refuses_mismatched_unfinished_or_overlapping_runs(tmp_path):
    kw = dict(quick=True, progress=False, names=["Laplace"], n_jobs=1, n_per_side=20_000, white_box=False)
    B.run_bench(out_dir=tmp_path / "a", seed=1, **kw)
    B.run_bench(out_dir=tmp_path / "b", seed=2, **{**kw, "n_per_side": 30_000})
    with pytest.raises(ValueError, match="n_per_side"):
        B.combine_bench([tmp_path / "a", tmp_path / "b"], tmp_path / "c")
    with pytest.raises(ValueError, match="also in another"):
        B.combine_bench([tmp_path / "a", tmp_path / "a"], tmp_path / "c")
    lines = (tmp_path / "a" / "results.jsonl").read_text().splitlines()
    (tmp_path / "cut").mkdir()
    (tmp_path / "cut" / "results.jsonl").write_text(lines[0] + "\n")
    with pytest.raises(ValueError, match=r"unfinished .*Laplace.*--resume"):
        B.combine_bench([tmp_path / "cut"], tmp_path / "c")
    with pytest.raises(ValueError, match="at least one"):
        B.combine_bench([], tmp_path / "c")
