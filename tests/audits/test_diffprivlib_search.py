"""The diffprivlib configuration search (audits/diffprivlib/space.py, search.py, rootcause.py).

Design: every search runs with a fixed seed and a small budget.  The GaussianNB search must certify a violation
without being told the configuration (an absent class is released without noise: the certified bound is limited
only by the sample size, ln(n / 3.7) ≈ 3.3 at 100 releases per side, above every ε of the table), with its sizes
derived from a detectability target capped at 100 releases per side, and certify its smallest configuration; the
Laplace search must certify none (Laplace is exactly ε-DP: each certification errs with probability <= α / 2K).
The α accounting (2K Bonferroni slots summing to the search's α) is checked on the results, the derived sizes for
the direction they move in when the target changes, the space table against diffprivlib's signatures (and shown to fail
on a table with an argument removed), the root-cause rules on pairs built to match and not to match them, and
the reproduction script by running it and comparing its counts with the in-process recount.
"""

import subprocess
import sys

import numpy as np
import pytest

from audits.diffprivlib import rootcause, search, space
from audits.diffprivlib.space import SPACE, make_config, sample_configs, signature_gaps
from htdp_verify.privacy import Pair
from htdp_verify.privacy.sizing import DetectabilityTarget

pytestmark = pytest.mark.filterwarnings("ignore")

TINY = dict(n_samples=30, n_select=30, n_search=20, max_pairs=2)


def test_space_covers_every_signature_argument_and_detects_a_missing_one(monkeypatch):
    assert signature_gaps() == {}
    sp = SPACE["models.GaussianNB"]
    broken = space.Space(sp.key, {k: v for k, v in sp.args.items() if k != "var_smoothing"}, sp.data, sp.left_out)
    monkeypatch.setitem(SPACE, "models.GaussianNB", broken)
    assert signature_gaps() == {"models.GaussianNB": ["var_smoothing"]}


def test_space_has_edge_values():
    bounds = SPACE["models.LinearRegression"].args["bounds_X"]
    assert any(lo == 0 for lo, _ in bounds) and any(hi <= 0 for _, hi in bounds)
    assert 1 in SPACE["tools.mean"].data["n"] and 50 in SPACE["models.KMeans"].data["d"]
    assert "absent_class" in SPACE["models.GaussianNB"].data["shape"]
    assert SPACE["tools.histogram"].args["weights"] == (None, 1.0, 2.0)


def test_sampler_is_seeded_valid_and_builds():
    keys = [k for k in SPACE if k.startswith("models.")]
    a = sample_configs(keys, np.random.default_rng(5), 14)
    b = sample_configs(keys, np.random.default_rng(5), 14)
    assert a == b and len(set(a)) == 14
    assert {c.key for c in a} == set(keys)  # two full rounds over the components
    for c in a[:7]:
        assert space._valid(c.key, c.kw, c.dat)
        assert space.config_pairs(c), c.label()


def test_hypothesis_strategy_draws_valid_configs():
    from hypothesis import given, settings

    @settings(max_examples=10, deadline=None, database=None, derandomize=True)
    @given(space.config_strategy(["tools.quantile", "models.KMeans"]))
    def check(c):
        assert space._valid(c.key, c.kw, c.dat)
        assert c.key in SPACE

    check()


@pytest.fixture(scope="module")
def gnb_search(tmp_path_factory):
    out_dir = tmp_path_factory.mktemp("gnb")
    out = search.run_search(
        ["models.GaussianNB"],
        np.random.default_rng(2026),
        n_configs=3,
        screen_sizes=TINY,
        k=1,
        target=DetectabilityTarget(ratio=2.0, excess=1.0, event_floor=0.3, power=0.8),
        cap=100,
        select=(0.4, 40),
        alpha=0.05,
        shrink=1,
        repro_n=25,
        out_dir=out_dir,
    )
    return out, out_dir


def test_search_finds_gaussian_nb_leak_without_being_told(gnb_search):
    out, _ = gnb_search
    assert len(out.screened) == 3 and len(out.certified) == 1
    ((s, res),) = out.violations
    assert res.epsilon_lb > s.config.epsilon
    cause = out.causes[0]
    assert cause["rule"] in ("gnb_absent", "gnb_budget")
    assert "naive_bayes" in cause["step"] and cause["upstream"]
    assert cause["smallest"]["config"]["key"] == "models.GaussianNB"


def test_reproduction_script_recounts_the_certified_event(gnb_search):
    out, out_dir = gnb_search
    rep = out.causes[0]["reproduction"]
    assert rep.get("script"), rep
    assert rep["counts"] is not None and rep["event_is_certified_event"]
    run = subprocess.run(
        [sys.executable, str(out_dir / rep["script"]), "25"], capture_output=True, text=True, timeout=300
    )
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.strip().splitlines()[-1] == rep["output"]


def test_alpha_accounting(gnb_search):
    out, _ = gnb_search
    res = search._result(out, "diffprivlib.search.models", seed=1)
    acc = res.details["alpha_accounting"]
    assert acc["alpha_search"] == 0.05 and acc["k_certified"] == 1 and acc["n_slots"] == 2
    assert acc["alpha_per_certification"] == pytest.approx(0.025)
    assert all(r.alpha == pytest.approx(out.alpha / (2 * out.k)) for _, r in out.certified)
    # the 2K slots, fixed before the search, sum to the search's alpha; what was spent never exceeds it
    assert sum(x["alpha"] for x in acc["slots"]) == pytest.approx(out.alpha)
    assert acc["alpha_spent"] <= out.alpha + 1e-12
    assert [x["use"] for x in acc["slots"]] == ["certification", "smallest configuration"]
    assert res.verdict == "violated" and res.details["cause"] and res.details["root_causes"]
    # registered checks split SEARCH_ALPHA over the three families
    assert search.SEARCH_ALPHA / len(space.FAMILIES) == pytest.approx(0.05 / 3)


def test_search_does_not_flag_laplace():
    out = search.run_search(
        ["mechanisms.Laplace"],
        np.random.default_rng(7),
        n_configs=4,
        screen_sizes=dict(n_samples=800, n_select=400, n_search=200, max_pairs=1),
        k=2,
        certify_sizes=dict(n_samples=6000, n_select=1500),
        alpha=0.05,
    )
    assert len(out.certified) == 2
    assert [r.verdict for _, r in out.certified] == ["consistent", "consistent"]
    assert all(r.alpha == pytest.approx(0.0125) for _, r in out.certified)
    assert not out.causes


def test_smallest_configuration_is_certified_with_its_alpha(gnb_search):
    out, _ = gnb_search
    (s, res) = out.violations[0]
    sm = out.causes[0]["smallest"]
    cert = sm["certified"]
    assert cert["alpha"] == pytest.approx(out.alpha / (2 * out.k))
    if cert["same_as_certified"]:  # nothing smaller was flagged: the certification itself stands for it
        assert cert["epsilon_lb"] == res.epsilon_lb and sm["config"] == s.config.to_dict()
    else:
        assert sm["config"] != s.config.to_dict() and cert["config"] == sm["config"]
        assert cert["sizing"]["n_samples"] <= 100 and cert["pair_label"] == sm["pair_label"]
        assert out.releases["smallest_certification"] > 0
        rep = sm["reproduction"]  # the smallest configuration's own script, recounting its certified event
        assert rep["script"] and rep["counts"] is not None and rep["event_is_certified_event"]
    assert cert["verdict"] == "violated" and cert["epsilon_lb"] > s.config.epsilon
    table = search.search_table(out)
    assert f"{cert['epsilon_lb']:.3g}" in table and "releases / side" in table


def test_certification_sizes_follow_the_target():
    from audits.diffprivlib.sizes import SEARCH_SIZES, certification_sizes

    tg = DetectabilityTarget(ratio=2.0, event_floor=0.1, power=0.8)
    kw = dict(alpha=0.05 / 3 / 4, cap=10**6, select=(0.2, 100))
    at = {e: certification_sizes(e, 0.0, target=tg, **kw) for e in (0.1, 1.0)}
    assert at[0.1]["n_samples"] > 10 * at[1.0]["n_samples"]  # a smaller claim needs more releases
    finer = certification_sizes(1.0, 0.0, target=DetectabilityTarget(ratio=1.5, event_floor=0.1), **kw)
    rarer = certification_sizes(1.0, 0.0, target=DetectabilityTarget(ratio=2.0, event_floor=0.02), **kw)
    looser = certification_sizes(1.0, 0.0, target=tg, alpha=0.05, cap=10**6)
    assert finer["n_samples"] > at[1.0]["n_samples"] and rarer["n_samples"] > at[1.0]["n_samples"]
    assert looser["n_samples"] < at[1.0]["n_samples"]
    assert at[1.0]["n_select"] == max(100, int(np.ceil(0.2 * at[1.0]["n_samples"])))
    # the cap binds: the result says so and what the capped size detects
    capped = certification_sizes(0.1, 0.0, target=tg, alpha=kw["alpha"], cap=1000)
    assert capped["capped"] and capped["n_samples"] == 1000 and capped["needed"] == at[0.1]["n_samples"]
    assert capped["detectable_epsilon"] > capped["target_epsilon"] and "capped at 1000" in capped["statement"]
    assert not at[1.0]["capped"] and at[1.0]["detectable_epsilon"] == at[1.0]["target_epsilon"] == 2.0
    # δ > 0: the event floor counts above δ and the Clopper-Pearson test is sized
    gauss = certification_sizes(0.5, 0.1, target=tg, **kw)
    assert gauss["method"] == "cp" and gauss["event_floor"] == pytest.approx(0.2)
    # every registered search derives its certification sizes: a target and a cap, no hand-set sizes
    for fams in SEARCH_SIZES.values():
        for sz in fams.values():
            assert isinstance(sz["target"], DetectabilityTarget) and sz["cap"] >= 20
            assert "certify" not in sz and "repro_n" not in sz


def test_search_sizes_change_with_the_target():
    cfg = make_config("mechanisms.Laplace", 0.5, dict(sensitivity=1.0, delta=0.0), dict(shape="centre"))
    got = {}
    for ratio in (2.0, 3.0):
        out = search.run_search(
            ["mechanisms.Laplace"],
            np.random.default_rng(8),
            n_configs=0,
            configs=[cfg],
            screen_sizes=dict(n_samples=200, n_select=100, n_search=50, max_pairs=1),
            k=1,
            target=DetectabilityTarget(ratio=ratio, event_floor=0.2, power=0.8),
            cap=50_000,
            alpha=0.05,
            explain=False,
        )
        ((_, res),) = out.certified
        got[ratio] = res.details["sizing"]["n_samples"]
        assert res.details["samples"]["n_certify_per_side"] == got[ratio]
    assert got[3.0] < got[2.0]
    with pytest.raises(ValueError, match="exactly one"):
        search.run_search(["mechanisms.Laplace"], np.random.default_rng(0), n_configs=1, screen_sizes={}, k=1)


def test_known_cause_rules_match_only_their_configurations():
    lin0 = make_config(
        "models.LinearRegression",
        1.0,
        dict(bounds_X=(0.0, 1.0), bounds_y=(0.0, 1.0), fit_intercept=True),
        dict(n=3, d=1, shape="spread"),
    )
    lin_sym = lin0.replace(bounds_X=(-1.0, 1.0))
    p = space.config_pairs(lin0)[0]
    rules = [r["rule"] for r in rootcause.known_causes(lin0, p)]
    assert rules == ["linreg_bounds"]
    assert "#105" in rootcause.known_causes(lin0, p)[0]["upstream"]
    assert rootcause.known_causes(lin_sym, space.config_pairs(lin_sym)[0]) == []
    # fit_intercept shifts the bounds by the noisy mean: a zero stated sensitivity (ledger ε = ∞) with a lower
    # bound of the larger magnitude is the same diagonal-sensitivity cause; without the ledger's ∞ it is not claimed
    lin_neg = lin0.replace(bounds_X=(-2.0, 0.0))
    pn = space.config_pairs(lin_neg)[0]
    assert rootcause.known_causes(lin_neg, pn) == []
    assert [r["rule"] for r in rootcause.known_causes(lin_neg, pn, float("inf"))] == ["linreg_bounds"]
    assert rootcause.known_causes(lin_neg.replace(fit_intercept=False), pn, float("inf")) == []
    gnb = make_config(
        "models.GaussianNB",
        1.0,
        dict(bounds=(0.0, 1.0), classes=2, priors=None, var_smoothing=1e-9),
        dict(n=3, d=1, shape="spread"),
    )
    absent = Pair(np.array([[0.0, 0.0], [1.0, 0.0]]), np.array([[0.0, 1.0], [1.0, 0.0]]), "x", "replace")
    present = Pair(np.array([[0.0, 0.0], [1.0, 1.0]]), np.array([[1.0, 0.0], [1.0, 1.0]]), "y", "replace")
    assert [r["rule"] for r in rootcause.known_causes(gnb, absent)] == ["gnb_absent"]
    assert rootcause.known_causes(gnb, present) == []


def test_coordinate_names_follow_the_release_layout():
    c = make_config(
        "models.GaussianNB",
        1.0,
        dict(bounds=(0.0, 1.0), classes=2, priors=None, var_smoothing=1e-9),
        dict(n=4, d=2, shape="spread"),
    )
    y = space.build_adapter(c).release(space.base_dataset(c), 3)
    names = rootcause.coordinate_names(c, y.size)
    assert names[:2] == ["theta_[0,0]", "theta_[0,1]"] and names[-1] == "class_count_[1]"
    assert y[-2:].sum() == pytest.approx(4)  # the class counts sum to n


def test_registered_checks():
    from htdp_verify.registry import get_checks

    names = {c.name for c in get_checks(["diffprivlib.search"])}
    assert names == {f"diffprivlib.search.{f}" for f in space.FAMILIES}


def test_flat_tools_audit_scalar_records():
    """axis=None flattens the array: the records are its entries, so the pairs replace one entry (not a row)."""
    c = make_config("tools.count_nonzero", 1.0, dict(axis=None, keepdims=False), dict(n=4, d=2, shape="all_zero"))
    assert space.base_dataset(c).shape == (8,)
    p = space.config_pairs(c)[0]
    assert np.sum(np.asarray(p.d) != np.asarray(p.d_prime)) == 1


def test_exact_event_text_keeps_full_precision():
    ev = {
        "event": "output[9] >= 684.211",
        "spec": {
            "exact": True,
            "kind": "threshold",
            "side": ">=",
            "feature": {"type": "coordinate", "j": 9},
            "params": ["684.2105263157894"],
        },
    }
    assert rootcause._exact_event_text(ev) == "output[9] >= 684.2105263157894"
    assert rootcause._exact_event_text({"spec": {"exact": False}}) is None


def test_reproduction_of_a_weighted_histogram_with_an_empty_side_runs():
    """Add/remove pairs of one record have an empty side; the weighted-histogram reproduction script must keep its
    columns (before, ``d[:, -1]`` on the empty side raised IndexError and the script reproduced nothing)."""
    from audits.diffprivlib.rootcause import reproduce
    from audits.diffprivlib.search import _certify
    from audits.diffprivlib.space import config_pairs, make_config

    c = make_config(
        "tools.histogramdd",
        2.0,
        {"bins": 1, "density": None, "range": (-2.0, 0.0), "weights": 2.0},
        {"d": 1, "n": 1, "shape": "all_lower"},
    )
    (pair,) = [p for p in config_pairs(c) if np.size(p.d_prime) == 0]
    res, _ = _certify(
        c, pair, np.random.default_rng(3), alpha=0.01, name="t", sizing={"n_samples": 400, "n_select": 200}
    )
    rep = reproduce(c, pair, res, n=300)
    assert "error" not in rep, rep.get("error")
    assert rep["event_is_certified_event"] and rep["releases_per_side"] == 300
    assert sum(rep["counts"]) > 0
