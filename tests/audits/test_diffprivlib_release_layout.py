"""Release layouts of the diffprivlib model adapters that depend on the configuration or the sample (estimators/dpl
DPLModel: StandardScaler with a statistic switched off, LogisticRegression with three declared classes) and the
wide-data path of the configuration search (audits/diffprivlib pairs.py, space.py, search.py at d = 50).
"""

from __future__ import annotations

import contextlib
import os
import warnings

import numpy as np
import pytest

from audits.diffprivlib import rootcause, search, space
from audits.diffprivlib.pairs import box_pairs
from audits.diffprivlib.space import make_config
from estimators.dpl import DPLModel

pytestmark = pytest.mark.filterwarnings("ignore")

TINY = dict(n_samples=30, n_select=30, n_search=20, max_pairs=2)


@contextlib.contextmanager
def _address_space_cap(extra_bytes: int):
    """Cap this process's address space at its current size plus ``extra_bytes`` (Linux), restored on exit: a
    computation that needs more raises ``MemoryError`` instead of filling the shared machine."""
    resource = pytest.importorskip("resource")
    if not os.path.exists("/proc/self/statm"):
        pytest.skip("needs /proc/self/statm")
    with open("/proc/self/statm") as f:
        current = int(f.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    cap = current + extra_bytes
    if hard != resource.RLIM_INFINITY and cap > hard:
        pytest.skip("the hard address-space limit is below the cap")
    resource.setrlimit(resource.RLIMIT_AS, (cap, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


# ---------------------------------------------------------------------------------------------------------
# StandardScaler: only the statistics diffprivlib computes
# ---------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "with_mean, with_std, attrs",
    [(True, True, ("mean_", "var_")), (True, False, ("mean_",)), (False, True, ("mean_", "var_"))],
)
def test_standard_scaler_releases_the_enabled_statistics_without_nan(with_mean, with_std, attrs):
    X = np.linspace(0.0, 1.0, 20).reshape(10, 2)
    m = DPLModel("StandardScaler", epsilon=1.0, bounds=(0.0, 1.0), with_mean=with_mean, with_std=with_std)
    Y = m(X, 4, np.random.default_rng(0))
    assert np.all(np.isfinite(Y))  # diffprivlib's var_ is None with with_std=False: it used to flatten to NaN
    assert Y.shape == (4, 2 * len(attrs))
    assert m.released_attributes == attrs
    assert all(a in m.release_description for a in attrs)
    assert ("var_ is not computed" in m.release_description) == (not with_std)
    assert ("[releases" in m.name) == (attrs != ("mean_", "var_"))
    # release i is diffprivlib's own output with random_state = seed i
    import diffprivlib

    seed = 7
    ref = diffprivlib.models.StandardScaler(
        epsilon=1.0, bounds=(0.0, 1.0), with_mean=with_mean, with_std=with_std, random_state=seed
    ).fit(X)
    np.testing.assert_allclose(m.release(X, seed), np.concatenate([np.ravel(getattr(ref, a)) for a in attrs]))


def test_standard_scaler_with_nothing_enabled_is_refused_and_not_drawn():
    with pytest.raises(ValueError, match="with_std"):
        DPLModel("StandardScaler", epsilon=1.0, bounds=(0.0, 1.0), with_mean=False, with_std=False)
    assert not space._valid("models.StandardScaler", {"with_mean": False, "with_std": False}, {"n": 5, "d": 2})
    assert "with_mean=with_std=False" in space.SPACE["models.StandardScaler"].left_out
    cfgs = space.sample_configs(["models.StandardScaler"], np.random.default_rng(3), 40)
    assert all(c.kw["with_mean"] or c.kw["with_std"] for c in cfgs)


def test_standard_scaler_without_std_screens_and_names_its_coordinates():
    c = make_config(
        "models.StandardScaler",
        1.0,
        dict(bounds=(0.0, 1.0), with_mean=True, with_std=False),
        dict(n=5, d=2, shape="spread"),
    )
    s = search.screen(c, np.random.default_rng(1), sizes=TINY, ledger=False)
    assert s.error == "" and np.isfinite(s.epsilon_lb)
    assert s.release.startswith("release: mean_") and s.row()["release"] == s.release
    assert rootcause.coordinate_names(c, 2) == ["mean_[0]", "mean_[1]"]


# ---------------------------------------------------------------------------------------------------------
# LogisticRegression: one row per declared class
# ---------------------------------------------------------------------------------------------------------
def _logreg(k, shape="one_row_class", fit_intercept=True, eps=1.0):
    return make_config(
        "models.LogisticRegression",
        eps,
        dict(data_norm=1.0, C=1.0, fit_intercept=fit_intercept, max_iter=100, tol=1e-4, classes=k),
        dict(n=6, d=2, shape=shape),
    )


def _direct_logreg(X, y, seed):
    import diffprivlib

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return diffprivlib.models.LogisticRegression(epsilon=1.0, data_norm=1.0, random_state=seed).fit(X, y)


def test_logreg_with_three_classes_has_one_shape_on_both_sides_of_a_pair():
    c = _logreg(3)
    adapter = space.build_adapter(c)
    D = space.base_dataset(c)
    assert set(np.unique(D[:, -1])) == {0.0, 1.0}  # class 2 absent from the base dataset
    pair = next(p for p in space.config_pairs(c) if np.asarray(p.d_prime)[0, -1] == 2.0)
    rng = np.random.default_rng(0)
    Y, Y2 = adapter(pair.d, 3, rng), adapter(pair.d_prime, 3, rng)  # used to be (3, 3) vs (3, 9): ragged
    assert Y.shape == Y2.shape == (3, 3 * (2 + 1))
    W, b = Y[:, :6].reshape(3, 3, 2), Y[:, 6:]
    assert np.all(W[:, 2] == 0) and np.all(b[:, 2] == 0)  # the absent class: a zero row
    np.testing.assert_array_equal(W[:, 0], -W[:, 1])  # two classes present: the fitted row and its negation
    np.testing.assert_array_equal(b[:, 0], -b[:, 1])
    assert np.all(np.any(Y2[:, :6] != 0, axis=1))
    assert "one per declared class" in adapter.release_description
    # two present classes: class 1's row is diffprivlib's own fitted (coef_, intercept_)
    ref = _direct_logreg(D[:, :2], D[:, 2], 11)
    y = adapter.release(D, 11)
    np.testing.assert_allclose(y[2:4], ref.coef_[0])
    assert y[7] == pytest.approx(ref.intercept_[0])


def test_logreg_layout_equals_diffprivlib_when_every_class_occurs_and_for_two_classes():
    for k in (2, 3):
        c = _logreg(k, shape="spread")
        D = space.base_dataset(c)
        ref = _direct_logreg(D[:, :2], D[:, 2], 5)
        y = space.build_adapter(c).release(D, 5)
        np.testing.assert_allclose(y, np.r_[ref.coef_.ravel(), ref.intercept_.ravel()])


def test_logreg_class_set_leak_is_flagged_and_explained():
    """A class present on one side only is released exactly (the zero row): the screening bound exceeds the claim,
    and the known cause names the label-set inference with its upstream issue.  The same screening on a pair
    that keeps the class set (class 1 stays present) is the control: no known cause."""
    c = _logreg(3, eps=0.1)
    pairs = space.config_pairs(c)
    flip = next(p for p in pairs if np.asarray(p.d_prime)[0, -1] == 2.0)
    keep = next(p for p in pairs if np.asarray(p.d_prime)[0, -1] == 0.0)
    causes = rootcause.known_causes(c, flip)
    assert [r["rule"] for r in causes] == ["logreg_classes"] and "#106" in causes[0]["upstream"]
    assert rootcause.known_causes(c, keep) == []
    from audits.diffprivlib.checks import audit_component

    # 100 releases per side: 30 were too few for the attacks to pick the zero-row event
    res = audit_component(
        space.build_adapter(c), [flip], rng=np.random.default_rng(2), n_samples=100, n_select=100, n_search=20
    )
    assert res.verdict == "violated" and res.epsilon_lb > 10 * c.epsilon
    # the certified event is a learned score; the script's fallback finds the zero row as an atom ("== 0")
    rep = rootcause.reproduce(c, flip, res, n=100)
    assert rep["exceeds_claim"] and "== 0" in rep["output"], rep


# ---------------------------------------------------------------------------------------------------------
# d = 50: the pairs, one release and the profiles
# ---------------------------------------------------------------------------------------------------------
def test_box_pairs_at_fifty_features_stay_small():
    """The box has 2**50 corners; listing them before truncating to ``max_corners`` raised MemoryError."""
    D = np.full((4, 50), 0.5)
    with _address_space_cap(512 * 2**20):
        pairs = box_pairs({"base": D}, 0.0, 1.0, "replace", max_corners=4)
    corner = [p for p in pairs if "corner" in p.label]
    assert len(corner) == 4 and len(pairs) == 4 + 2 * 50  # four corners, then each coordinate to each bound
    assert all("\n" not in p.label for p in pairs)
    texts = {p.label.split("corner ")[1] for p in corner}
    assert texts == {
        "[lower bound in all 50 coordinates]",
        "[upper bound at coordinates 49 of 50, lower elsewhere]",
        "[upper bound at coordinates 48 of 50, lower elsewhere]",
        "[upper bound at coordinates 48,49 of 50, lower elsewhere]",
    }
    # up to 8 features the labels are the corner's coordinates, as before
    small = box_pairs({"base": np.full((3, 2), 0.5)}, 0.0, 1.0, "replace", max_corners=4)
    assert small[0].label.startswith("base: row 0 -> corner [") and "," in small[0].label


def test_kmeans_at_fifty_features_builds_pairs_and_releases_within_a_memory_cap():
    c = make_config("models.KMeans", 1.0, dict(bounds=(0.0, 1.0), n_clusters=2), dict(n=3, d=50, shape="spread"))
    with _address_space_cap(512 * 2**20):
        pairs = space.config_pairs(c)
        y = space.build_adapter(c)(pairs[0].d, 2, np.random.default_rng(0))
    assert y.shape == (2, 2 * 50) and np.all(np.isfinite(y))


def test_profiles_search_up_to_fifty_features_and_quick_pins_a_wide_model():
    assert 50 in space.SPACE["models.KMeans"].data["d"] and 20 in space.SPACE["models.KMeans"].data["d"]
    for profile in ("quick", "full"):
        assert search.SEARCH_SIZES[profile]["models"]["max_d"] >= 50
    pinned = search.SEARCH_SIZES["quick"]["models"]["pinned"]
    assert any(data["d"] >= 20 for _, _, _, data in pinned)
    cfg = make_config(*pinned[0])
    assert space._valid(cfg.key, cfg.kw, cfg.dat)


def test_pinned_configurations_are_screened_without_the_speed_probe():
    pinned = make_config(
        "models.StandardScaler",
        1.0,
        dict(bounds=(0.0, 1.0), with_mean=True, with_std=True),
        dict(n=3, d=2, shape="ties"),
    )
    out = search.run_search(
        ["models.StandardScaler"],
        np.random.default_rng(4),
        n_configs=0,
        configs=[],
        screen_sizes=TINY,
        k=1,
        certify_sizes=dict(n_samples=30, n_select=30),
        explain=False,
        max_release_seconds=1e-9,  # the speed probe would skip it: pinned configurations bypass it
        max_d=50,
        pinned=[pinned],
    )
    assert [s.config for s in out.screened] == [pinned]
    assert out.screened[0].error == "" and out.certified


def test_reproduction_scripts_release_what_the_adapter_releases():
    """The reproduction script's plain-diffprivlib ``release`` follows the same layouts (a script that released
    the raw arrays would be ragged for LogisticRegression and hold ``None`` for StandardScaler)."""
    import diffprivlib
    from diffprivlib.accountant import BudgetAccountant

    from audits.diffprivlib.repro import _release_source

    scaler = make_config(
        "models.StandardScaler",
        1.0,
        dict(bounds=(0.0, 1.0), with_mean=True, with_std=False),
        dict(n=5, d=2, shape="spread"),
    )
    for c in (_logreg(3), _logreg(3, shape="spread"), scaler):
        adapter, D = space.build_adapter(c), space.base_dataset(c)
        ns = {"np": np, "diffprivlib": diffprivlib, "BudgetAccountant": BudgetAccountant}
        exec(_release_source(adapter), ns)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            np.testing.assert_allclose(ns["release"](D, 3), adapter.release(D, 3))
