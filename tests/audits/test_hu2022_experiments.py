"""The synthetic figures of Hu et al. 2022 (arXiv §6) and the tests of the paper's observations.

Designs of the statistical assertions (all seeds fixed):

* Sign tests on 20 synthetic replications at α = 0.05 per side: a one-sided exact sign test with N = 20 rejects when
  ≥ 15 statistics have one sign, and detects a probability ≥ 0.80 of that sign with power 0.8. The inputs below have
  a deterministic trend of 5 × the noise's standard deviation over the grid, so each replication's slope has the
  trend's sign with probability > 0.999 and a wrong verdict has probability < 1e-6 at any seed.
* Band and exponent tests: ratios of 1 vs 3 with a 5 % relative noise; bootstrap CIs have half-widths of a few %.
* The broken estimator (the figure's own sweep, Alg. 2's releases with their first coordinate shifted by
  0.5·log₂(n/n_min), i.e. by 0, 0.5, 1 on the tiny grid): the excess risk then grows by ≈ v·b² = 1.25 between the
  smallest and the largest n, against per-replication errors ≈ 0.1–0.3, so every replication's slope is positive
  (8 of 8 at the tiny size: one-sided sign-test p = 0.004 < 0.05);
  the check must call "error decreases with n" violated, and must not on the correct estimator (same seed).
  (A noisier exponential mechanism was tried first and is *not* a failure here: Frank–Wolfe with near-uniform
  vertex choices drifts to 0, whose excess risk on the dense w* is small.)
"""

from __future__ import annotations

import numpy as np
import pytest

import audits  # noqa: F401  (registers the checks)
import audits.hu2022_experiment_sweeps as S
import audits.hu2022_experiments as X
import audits.hu2022_observations as O
from htdp_verify.registry import RunContext, get_checks


def _ctx(tmp_path, seed=20261124):
    return RunContext("tiny", seed, np.random.default_rng(seed), tmp_path, progress=False)


def _trend(R, x, slope, rng, sd=1.0):
    """(R, 2, len(x)) errors = 10 + slope·log x + N(0, sd²) (two 'dimensions')."""
    lx = np.log(np.asarray(x, dtype=float))
    return 10.0 + slope * lx[None, None, :] + rng.normal(0.0, sd, size=(R, 2, lx.size))


def test_all_figures_registered():
    names = {c.name for c in get_checks(["hu2022.experiment"])}
    assert names == {f"hu2022.experiment.fig{f}" for f in (1, 2, 5, 6, 7, 8, 9, 10, 11, "1_sqrt_scale")}


def test_real_data_figures_rejected(tmp_path):
    with pytest.raises(ValueError, match="fig"):
        X.figure_check(3, _ctx(tmp_path))


@pytest.mark.parametrize("slope, expected", [(-5.0, "consistent"), (5.0, "violated")])
def test_trend_verdicts(slope, expected):
    x = [1000, 2000, 4000, 8000]
    E = _trend(20, x, slope / np.log(8), np.random.default_rng(1))  # total change 5 sd over the grid
    r = O.trend_result("t", O.per_rep_slopes(E, x), -1, claim="decreases", statistic="share", provenance=None, seed=0)
    assert r.verdict == expected, r.summary


def test_trend_flat_is_not_decided():
    """No trend: the sign test rejects either side with probability ≤ 0.05 each; at this seed it does not."""
    x = [1, 2, 4]
    r = O.trend_result(
        "t",
        O.per_rep_slopes(_trend(20, x, 0.0, np.random.default_rng(2)), x),
        -1,
        claim="c",
        statistic="s",
        provenance=None,
        seed=0,
    )
    assert r.verdict == "inconclusive", r.summary


def test_sign_test_design():
    assert 0.75 < O.sign_test_min_effect(20) < 0.85
    assert O.sign_test_min_effect(3) == 1.0  # 3 signs can never reach p ≤ 0.05
    with pytest.raises(ValueError, match="direction"):
        O.sign_test([1.0, 2.0], 0)


def test_band_and_exponent():
    rng = np.random.default_rng(3)
    lo = 1.0 + 0.05 * rng.standard_normal(20)
    same = O.band_result("b", lo * (1 + 0.05 * rng.standard_normal(20)), lo, 1.5, claim="c", provenance=None, seed=0)
    far = O.band_result("b", 3.0 * lo, lo, 1.5, claim="c", provenance=None, seed=0)
    assert (same.verdict, far.verdict) == ("consistent", "violated")
    s = np.array([2, 5, 10, 20])
    quad = (s**2.0)[None, None, :] * (1 + 0.05 * rng.standard_normal((20, 2, 4)))
    flat = np.ones((20, 2, 4)) * (1 + 0.05 * rng.standard_normal((20, 2, 4)))
    assert O.exponent_result("e", quad, s, claim="c", provenance=None, seed=0).verdict == "consistent"
    assert O.exponent_result("e", flat, s, claim="c", provenance=None, seed=0).verdict == "violated"
    with pytest.raises(ValueError, match="r0"):
        O.band_result("b", lo, lo, 0.9, claim="c", provenance=None, seed=0)


def test_laws_and_metric():
    rng = np.random.default_rng(4)
    x = S.draw_features("lognormal0.6", 200_000, 1, rng=rng)[:, 0]
    v, m = S.second_moment("lognormal0.6")
    assert abs(x.mean() - m) < 0.01 and abs(x.var() - v) / v < 0.05
    with pytest.raises(ValueError, match="kind"):
        S.draw_noise("cauchy", 3, rng=rng)
    cell = S.Cell(np.array([0.5, -0.5]), (v, m))
    w = np.array([[0.5, -0.5], [0.0, 0.0]])
    np.testing.assert_allclose(cell.excess(w), [0.0, v * 0.5])  # (w − w*)ᵀ(vI + m²11ᵀ)(w − w*), Σδ = 0


def test_figure_check_runs_and_broken_estimator_fails(tmp_path):
    ctx = _ctx(tmp_path)
    good = {r.name: r for r in X.figure_check(6, ctx, seed=11)}
    bad = {r.name: r for r in X.figure_check(6, ctx, seed=11, inflate=0.5)}
    info = good["hu2022.experiment.fig6"]
    assert info.verdict == "info" and info.figures and (tmp_path / info.figures[0]).is_file()
    assert all(r.figures == info.figures for r in good.values())
    expected = {
        "hu2022.experiment.fig6" + s
        for s in (
            "",
            ".error_decreases_with_n",
            ".error_decreases_with_eps",
            ".weak_dependence_on_d",
            ".private_approaches_nonprivate",
            ".unstable_trends",
        )
    }
    assert set(good) == expected
    key = "hu2022.experiment.fig6.error_decreases_with_n"
    assert good[key].verdict != "violated", good[key].summary
    assert bad[key].verdict == "violated", bad[key].summary


def test_sparse_figure_has_s_claims(tmp_path):
    res = X.figure_check(7, _ctx(tmp_path), seed=5)
    names = {r.name.rsplit(".", 1)[-1] for r in res}
    assert {"error_increases_with_s", "s_dependence_not_logarithmic"} <= names
    assert all(r.verdict in ("consistent", "violated", "inconclusive", "info") for r in res)
