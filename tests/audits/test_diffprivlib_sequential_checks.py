"""The registered checks of per-call estimators (diffprivlib models) audit sequentially by default
(``RoundsDesign.per_call``: a small probe round at α/10 on top of the fixed-n budget, then the fixed-n check's own
search and selection with an anytime-valid certification that stops early, at the α left), and the report shows
the releases used against those planned and why the audit stopped.

Statistical design.  Every audit here runs at the diffprivlib suite's per-check level α = 0.05 / #checks ≈ 7e-4
(``check_alpha``), with fixed seeds, so each outcome is deterministic; over seeds:

* the overspending toy (a per-call count released with Laplace noise of scale 0.1 while claiming ε = 1: true ε = 10,
  an event of probability ~0.99 on one side and ~0.007 on the other) is detected at the quick model sizes (150
  certification releases per side) with power ≈ 1: the betting test needs a few dozen such pairs to reject ε = 1;
* the same check on the correct mechanism (scale 1: exactly tight at ε = 1) reports "violated" with probability at
  most α ≈ 7e-4 (the anytime-valid test's guarantee at its stopping time), so the "not violated" assertion fails for
  a correct auditor on at most that fraction of seeds;
* smallest effect shown detected: true ε = 10 against the claim 1 at 150 releases per side; the assertions on the
  registered model check are about the result's fields (sizes, stop reason), not about random values.
"""

from __future__ import annotations

import numpy as np
import pytest

from audits.diffprivlib import checks
from audits.diffprivlib.components import Component
from htdp_verify.privacy import Pair, PrivacyGuarantee
from htdp_verify.privacy.dpl_adapter import DPLAdapter
from htdp_verify.privacy.sequential import STOP_REASONS, RoundsDesign
from htdp_verify.registry import RunContext, get_checks
from htdp_verify.report import write_report


class ToyCount(DPLAdapter):
    """A per-call toy estimator (one release per call, no vectorised ``sample``): the number of ones in the data
    plus Laplace noise of scale ``scale``, claiming ε-DP under replace-one (sensitivity 1).  ``scale = 1 / ε`` is
    correct (exactly tight); a smaller scale overspends the budget."""

    min_chunk = 10**9

    def __init__(self, epsilon: float, scale: float):
        super().__init__(1)
        self.epsilon, self.scale = epsilon, scale
        self.name = f"toy.count[scale={scale:g}]"
        self.privacy = PrivacyGuarantee(epsilon, 0.0, "replace")
        self.relation_note = "replace-one"

    def _validate(self, data):
        return np.asarray(data, dtype=float)

    def _chunk_state(self, data, rs):
        return None

    def _release(self, data, rs, state):
        return float(np.sum(data)) + rs.laplace(0.0, self.scale)


def _toy_component(scale: float) -> Component:
    base = np.zeros(10)
    pairs = [
        Pair(base, np.r_[1.0, base[1:]], "row 0 -> 1", "replace"),
        Pair(base, np.r_[0.5, base[1:]], "row 0 -> 0.5", "replace"),
    ]
    return Component("toy.count", "model", lambda eps: ToyCount(eps, scale), lambda: pairs, attacks="threshold")


def _ctx(seed: int, out_dir=None) -> RunContext:
    return RunContext(profile="quick", seed=seed, rng=np.random.default_rng(seed), out_dir=out_dir, progress=False)


def _run_toy(scale: float, seed: int = 20261121):
    return checks._check(_toy_component(scale), 1.0)(_ctx(seed))


def test_the_design_of_each_kind():
    assert checks.SEQUENTIAL_KINDS == ("model",)
    design = checks.sequential_design("model")
    assert design == RoundsDesign.per_call() and design.method == "betting" and not design.single_round
    assert design.probe and design.probe_extra and design.probe_share == 0.1
    assert checks.sequential_design("mechanism") is None and checks.sequential_design("tool") is None
    with pytest.raises(ValueError, match="certify_ratio"):
        RoundsDesign.fixed_split(certify_ratio=2.0)


def test_an_overspending_per_call_estimator_is_flagged_and_a_correct_one_is_not():
    leaky = _run_toy(0.1)  # true epsilon 10 against the claim 1
    seq = leaky.details["sequential"]
    assert leaky.verdict == "violated" and leaky.epsilon_lb > 1.0, leaky.summary
    assert seq["stop_reason"] == "violated" and seq["releases_used"] < seq["releases_planned"]
    assert leaky.alpha == checks.check_alpha()
    pe = seq["point_estimate"]
    assert pe["log_ratio"] >= leaky.epsilon_lb or pe["denominator"] == 0  # the estimate, not the bound
    # test the tester: the same registered check on the correct mechanism does not flag it
    correct = _run_toy(1.0)
    assert correct.verdict != "violated", correct.summary
    assert correct.details["sequential"]["stop_reason"] in ("futility", "budget")


@pytest.fixture(scope="module")
def model_result():
    """The registered check of diffprivlib's StandardScaler at ε = 1, at a small size (the quick profile's model
    sizes lowered to 60 / 40 / 40 releases per side, the smallest the check allows, on two candidate pairs)."""
    mp = pytest.MonkeyPatch()
    mp.setitem(checks.SIZES["quick"], "model", dict(n_samples=60, n_select=40, n_search=40, max_pairs=2))
    try:
        name = "diffprivlib.models.StandardScaler.eps1"
        (chk,) = [c for c in get_checks([name]) if c.name == name]
        res = chk.func(_ctx(5))
    finally:
        mp.undo()
    return res


def test_a_registered_model_check_runs_sequentially(model_result):
    r = model_result
    seq = r.details["sequential"]
    # the default design: a probe round (search 20 per pair and side on 2 pairs, selection 20, certification <= 80,
    # at a tenth of the check's alpha), then the fixed-n check's own split (search 40 per pair and side, selection
    # 40, certification of the rest) at the alpha left; the probe on top of the fixed-n budget
    assert seq["design_name"].startswith("probe round") and seq["stop_reason"] in STOP_REASONS
    probe, *split = seq["rounds"]
    assert probe["kind"] == "probe" and probe["search_per_side"] == 2 * 20 and probe["select_per_side"] == 20
    assert probe["certify_budget_per_side"] == 80 and probe["alpha"] == pytest.approx(0.1 * checks.check_alpha())
    assert seq["fixed_n_releases"] == 2 * (2 * 40 + 40 + 60)
    assert seq["releases_planned"] == seq["fixed_n_releases"] + 2 * (2 * 20 + 20 + 80)
    if split:  # the probe did not certify a violation
        (sp,) = split
        assert sp["kind"] == "split" and sp["search_per_side"] == 2 * 40 and sp["select_per_side"] == 40
        # the split certifies at the alpha the probe left (all of it when the probe's certification was skipped)
        assert sp["certify_budget_per_side"] >= 60
        assert sp["alpha"] == pytest.approx(checks.check_alpha() - probe["alpha_spent"])
    by = seq["releases_by_stage"]
    assert r.n_samples == seq["releases_used"] == sum(by.values()) <= seq["releases_planned"]
    assert seq["releases_used_per_side"] == {"D": r.n_samples // 2, "D'": r.n_samples // 2}
    assert r.alpha == checks.check_alpha() and sum(x["alpha_spent"] for x in seq["rounds"]) <= r.alpha * (1 + 1e-12)
    row = r.details["table"][0]
    assert row["samples"] == r.n_samples and row["samples_planned"] == seq["releases_planned"]
    assert row["stop_reason"] == seq["stop_reason"]
    assert f"{r.n_samples} / {seq['releases_planned']} ({seq['stop_reason']})" in checks.results_table([r])


def test_the_report_shows_releases_used_and_planned(model_result, tmp_path):
    r = model_result
    seq = r.details["sequential"]
    leaky = _run_toy(0.1)
    paths = write_report([r, leaky], tmp_path, {"profile": "quick", "seed": 5})
    md = paths["md"].read_text(encoding="utf-8")
    html = paths["html"].read_text(encoding="utf-8")
    cell = f"{r.n_samples} / {seq['releases_planned']} ({seq['stop_reason']})"
    assert f"| {cell} |" in md and cell in html  # the per-check table
    assert "Releases: sequential audit (probe round" in md and f"{r.n_samples} of {seq['releases_planned']}" in md
    # the violated check: its finding says why it stopped and shows the leak's size as a point estimate only
    assert "stopped: violated" in md and "**Point estimate:** point estimate of the event's log" in md
    assert "not a bound" in md and "Point estimate" in html
    assert "stopped: violated" not in md.split("#### diffprivlib.models.StandardScaler.eps1")[1].split("####")[0]
