"""The white-box budget ledger of diffprivlib components (audits/diffprivlib/ledger.py).

The ledger is deterministic given a seed (no sampling, α = 0), so the tests state exact budgets: a wrapper built to
overspend (a Laplace mechanism called twice at the full ε) must be "violated" at ε = 2, its correctly split twin
"consistent" at ε = 1, and real diffprivlib components get the budgets their source code spends.
"""

import numpy as np
import pytest

from audits.diffprivlib import COMPONENTS, VARIANTS
from audits.diffprivlib.ledger import (
    _x2_range,
    check_ledger,
    extra_components,
    ledger_check,
    record_mechanisms,
    run_ledger,
)
from htdp_verify.claims import PrivacyClaim

pytestmark = pytest.mark.filterwarnings("ignore")


def _laplace_twice(x, epsilon, *, split: bool, seed=0):
    """A query released twice through diffprivlib's Laplace mechanism; ``split=False`` spends the full ε each time."""
    from diffprivlib.mechanisms import Laplace

    e = epsilon / 2 if split else epsilon
    rs = np.random.RandomState(seed)
    return [Laplace(epsilon=e, sensitivity=1.0, random_state=rs).randomise(x) for _ in range(2)]


@pytest.mark.parametrize("split,verdict,total", [(False, "violated", 2.0), (True, "consistent", 1.0)])
def test_overspending_wrapper_is_violated_and_its_split_twin_consistent(split, verdict, total):
    with record_mechanisms() as led:
        _laplace_twice(0.3, 1.0, split=split)
    assert [m["calls"] for m in led.mechanisms()] == [1, 1]
    res = check_ledger(led, "mechanisms.LaplaceTwice", PrivacyClaim(1.0, 0.0, "replace"))
    assert res.statistic == "epsilon_ledger"
    assert res.verdict == verdict
    assert res.estimate == pytest.approx(total, rel=1e-9)


def test_tools_mean_at_eps_1_is_consistent_and_lists_its_mechanism():
    res = ledger_check(COMPONENTS["tools.mean"], 1.0, seed=3)
    assert res.verdict == "consistent" and "cause" not in res.details
    assert res.estimate == pytest.approx(1.0)
    (mech,) = res.details["mechanisms"]
    # tools.mean noises the mean with LaplaceTruncated, sensitivity (upper - lower) / n = 3 / 10
    assert mech["mechanism"] == "LaplaceTruncated" and mech["calls"] == 1
    assert mech["epsilon"] == pytest.approx(1.0) and mech["sensitivity"] == pytest.approx(0.3)


def test_patches_are_restored_also_after_an_error_and_recorders_do_not_nest():
    from diffprivlib.mechanisms import Laplace, LaplaceTruncated
    from diffprivlib.mechanisms.base import DPMechanism

    before = (DPMechanism.__init__, vars(Laplace)["randomise"], vars(LaplaceTruncated)["randomise"])
    with pytest.raises(ZeroDivisionError):
        with record_mechanisms():
            with pytest.raises(RuntimeError, match="already active"):
                with record_mechanisms():
                    pass
            raise ZeroDivisionError("leave the recording block with an exception")
    assert (DPMechanism.__init__, vars(Laplace)["randomise"], vars(LaplaceTruncated)["randomise"]) == before
    with record_mechanisms() as led:  # usable again
        Laplace(epsilon=1.0, sensitivity=1.0, random_state=0).randomise(0.0)
    assert len(led.calls) == 1


def test_super_randomise_counts_once_and_unused_mechanisms_are_listed():
    from diffprivlib.mechanisms import Laplace, LaplaceTruncated

    with record_mechanisms() as led:
        LaplaceTruncated(epsilon=0.5, sensitivity=1.0, lower=0, upper=1, random_state=0).randomise(0.5)
        Laplace(epsilon=0.5, sensitivity=1.0)  # created, never used
    assert [(m["mechanism"], m["calls"]) for m in led.mechanisms()] == [("LaplaceTruncated", 1), ("Laplace", 0)]


def test_histogram_bins_compose_in_parallel_under_add_remove():
    res = ledger_check(COMPONENTS["tools.histogram"], 1.0, seed=0, max_datasets=1)
    assert res.details["n_calls"] == 4 and res.details["sequential_sum_epsilon"] == pytest.approx(4.0)
    assert res.verdict == "consistent" and res.estimate == pytest.approx(1.0)


def test_logistic_regression_and_pca_add_up():
    for key in ("models.LogisticRegression", "models.PCA"):
        res = ledger_check(COMPONENTS[key], 1.0, seed=0, max_datasets=1)
        assert res.verdict == "consistent", res.summary
        assert res.estimate == pytest.approx(1.0)


def test_gaussian_nb_spends_twice_its_claim_under_replace_one():
    res = ledger_check(COMPONENTS["models.GaussianNB"], 1.0, seed=0, max_datasets=1)
    # a replaced record may switch class: two class counts and two classes' means/variances change
    assert res.verdict == "violated" and res.estimate == pytest.approx(2.0)
    assert res.details["summed_epsilon_add_remove"] == pytest.approx(1.0)
    assert "replace-one" in res.details["cause"] and "cause:" in res.summary


def test_linear_regression_without_intercept_leaves_the_squares_unnoised():
    res = ledger_check(VARIANTS["models.LinearRegression[fit_intercept=False]"], 1.0, seed=0, max_datasets=1)
    # bounds [0, 1]: the Σx_j² coefficients get sensitivity max(|0|, |0|)² = 0 in diffprivlib 0.6.6
    assert res.verdict == "violated" and np.isinf(res.estimate)
    assert any("stated sensitivity 0 <" in n for n in res.details["sensitivity_notes"])
    assert "#105" in res.details["cause"]


def test_kmeans_in_ten_dimensions_overspends_even_under_add_remove():
    (comp,) = extra_components()
    led = run_ledger(comp, 1.0, seed=0)
    res = check_ledger(led, "models.KMeans", PrivacyClaim(1.0, 0.0, "add_remove"))
    assert res.verdict == "violated" and res.estimate > 1.1
    assert "_split_epsilon" in res.details["cause"]


def test_sensitivity_of_sum_of_squares():
    assert _x2_range(-0.3, 0.7) == pytest.approx(0.49)
    assert _x2_range(0.2, 1.0) == pytest.approx(0.96)
    assert _x2_range(-1.0, -0.5) == pytest.approx(0.75)


def test_budget_checks_are_registered():
    from htdp_verify.registry import all_checks

    names = {c.name for c in all_checks()}
    for key in ("tools.mean", "models.KMeans", "models.LinearRegression", "models.KMeans[d=10]"):
        assert f"diffprivlib.{key}.budget" in names


def test_unknown_structure_is_rejected():
    with record_mechanisms() as led:
        pass
    with pytest.raises(ValueError, match="key"):
        check_ledger(led, "somewhere.else", PrivacyClaim(1.0, 0.0, "replace"))


def test_linear_regression_with_intercept_spends_its_offset_budget_twice():
    res = ledger_check(COMPONENTS["models.LinearRegression"], 1.0, seed=0, max_datasets=1)
    # _preprocess_data gives ε/(d+1) to the mean of X and again to the mean of y; the objective gets ε·d/(d+1):
    # with d = 2 the stated budgets already sum to 4/3 before any sensitivity correction
    assert res.details["summed_epsilon_stated_sensitivities"] == pytest.approx(4.0 / 3.0)
    assert res.verdict == "violated" and res.estimate >= 4.0 / 3.0
