"""The rate, tail and tail-shape checks of the mean-estimation audits can fail: each is run on a deliberately broken
estimator (it must say "violated") and on the correct one (it must not), at sizes that take seconds; and every
rate claim states a tolerance that covers its theorem's own fit bias on the grids it is run on.

Designs (fixed seeds, α = 0.05 for every check):

* simple-clipping tail shape (spec H1, γ = 1 ± 0.25): Pareto(2.1), n = 300, 20 000 replications,
  β ∈ {0.5, …, 1e-3}.  Over seeds 1–3 the correct estimator's γ interval was [0.86, 0.99], [1.02, 1.13],
  [0.99, 1.13] (inside the band by ≥ 0.1), the estimator that skips clipping gave lower ends 1.46–1.57 (0.2 above
  the band) and the over-clipping one (R/10) upper ends 0.35–0.36 (0.4 below it).
* Lemma 4 tail bound (ζ = 0.05): 3 laws × 400 replications at n = 200; the correct estimator's error stays below
  the bound essentially always (0 / 180 000 exceedances at the full profile), the broken one (statistic not
  rescaled by s) misses the mean by ≈ |μ|(1 − 1/s) ≈ 0.9 > bound ≈ 0.6 on every t₃ replication.
"""

from __future__ import annotations

import numpy as np
import pytest

from audits import _mean_common as C
from audits import dpem, hu2022, zhao2024
from estimators.hu2022 import hu_lemma4_bound, hu_lemma4_scale
from estimators.robust import soft_truncation_statistic
from estimators.zhao2024 import SimpleClippingMean
from htdp_verify.claims import RateClaim, TailBoundClaim
from htdp_verify.rates import three_outcome_verdict

SHAPE_BETAS = [0.5, 0.1, 0.02, 0.005, 0.001]


class ClippingSkipped(SimpleClippingMean):
    """Broken: noise calibrated to R, but the records are never clipped."""

    def statistic(self, data):
        return np.asarray(np.mean(np.asarray(data, dtype=float), axis=0))


class OverClipping(SimpleClippingMean):
    """Broken: clips at R/10 (a radius in the wrong units): biased, and its tail no longer shows Thm 2's ℓ-term."""

    def __init__(self, radius, rho, delta):
        super().__init__(0.1 * radius, rho, delta)


def _shape(cls, tmp_path, seed=1):
    e = zhao2024.shape_errors("simple", 300, 20_000, np.random.default_rng(seed), simple_cls=cls)
    return zhao2024.simple_shape_check(e, SHAPE_BETAS, n=300, seed=seed, out_dir=tmp_path, name=f"shape_{cls.__name__}")


def test_simple_clipping_shape_passes_the_correct_estimator(tmp_path):
    res = _shape(SimpleClippingMean, tmp_path)
    assert res.verdict == "consistent", res.summary
    assert res.details["band"] == [0.75, 1.25]


@pytest.mark.parametrize("broken", [ClippingSkipped, OverClipping])
def test_simple_clipping_shape_fails_broken_estimators(broken, tmp_path):
    res = _shape(broken, tmp_path)
    assert res.verdict == "violated", res.summary
    if broken is OverClipping:
        # the band [0, 1.25] used before passes R/10 clipping (γ ≈ 0.3): its lower end can never be left
        assert three_outcome_verdict(res.interval, 0.625, 0.625) == "consistent"


def _lemma4_cells(rng, *, broken=False, n=200, reps=400):
    cells, bounds = {}, {}
    for lname, law in hu2022.LAWS_L4.items():
        tau = float(law.moment(2))
        s = hu_lemma4_scale(n, tau, hu2022.BETA, hu2022.ZETA)
        x = law.sample((n, reps), rng=rng)
        stat = soft_truncation_statistic(x, s, hu2022.BETA)
        if broken:
            stat = stat / s  # the bug: ψ-mean not scaled back by s
        cells[lname] = np.abs(stat - float(law.mean))
        bounds[lname] = hu_lemma4_bound(n, tau, s, hu2022.BETA, hu2022.ZETA)
    return cells, bounds


@pytest.mark.parametrize("broken", [False, True])
def test_lemma4_tail_check_fails_only_the_broken_estimator(broken, tmp_path):
    cells, bounds = _lemma4_cells(np.random.default_rng(11), broken=broken)
    claim = TailBoundClaim(hu2022.ZETA, "Lemma 4 bound", hu2022.PROV_L4)
    res = C.tail_check(cells, bounds, claim, name="lemma4_test", seed=11, out_dir=tmp_path)
    if broken:
        assert res.verdict == "violated", res.summary
    else:
        assert res.verdict == "consistent", res.summary
        power = {round(r["rate"], 6): r for r in res.details["power_at"]}
        assert set(power) == {0.1, 0.15}
        assert power[0.1]["every_cell"] > 0.99 and power[0.15]["one_cell"] > 0.9  # 1 200 pooled, 400 per cell
        assert "Power (exact binomial)" in res.summary


def _rate_designs():
    """(check name, tolerance statement, claim, grid) for every registered rate claim at the quick and full sizes."""
    out = []
    for prof in ("quick", "full"):
        h, w, z = hu2022.SIZES[prof], dpem.SIZES[prof], zhao2024.SIZES[prof]
        out += [
            ("hu2022.rate.lemma4_n", hu2022.TOL_LEMMA4_N, RateClaim("n", -0.5, 0.1), h["ns"]),
            ("hu2022.rate.private_n", hu2022.TOL_PRIVATE_N, RateClaim("n", -0.5, 0.1), h["ns"]),
            (
                "hu2022.rate.private_eps",
                hu2022._tol_private_eps(h["n_eps"]),
                RateClaim("epsilon", -0.5, 0.1),
                h["epss"],
            ),
            ("wang_dpem.rate.central_n", dpem.TOL_CENTRAL_N, RateClaim("n", -0.5, 0.1), w["ns"]),
            (
                "wang_dpem.rate.central_eps",
                dpem._tol_central_eps(w["n_eps"]),
                RateClaim("epsilon", -0.5, 0.1),
                w["epss"],
            ),
            ("wang_dpem.rate.local_n", dpem.TOL_LOCAL_N, RateClaim("n", -0.25, 0.08), w["lns"]),
            ("wang_dpem.rate.local_eps", dpem._tol_local_eps(w["n_eps"]), RateClaim("epsilon", -0.5, 0.1), w["epss"]),
            ("zhao2024.rate.simple_clipping_n", zhao2024.TOL_SC_N, RateClaim("n", -0.75, 0.1), z["ns"]),
            (
                "zhao2024.rate.simple_clipping_eps",
                zhao2024._tol_sc_eps(z["n_eps"]),
                RateClaim("epsilon", -0.75, 0.1),
                z["epss"],
            ),
            ("zhao2024.rate.iterative_n", zhao2024.TOL_IT_N, RateClaim("n", -0.75, 0.1), z["ns"]),
        ]
    return out


@pytest.mark.parametrize("name,why,claim,grid", _rate_designs(), ids=lambda v: v if isinstance(v, str) else "")
def test_rate_tolerance_covers_the_theorems_own_fit_bias(name, why, claim, grid):
    tol = why.explain(claim, grid)
    assert tol["covered"] and tol["margin"] > 0.02, (name, tol["text"])
    assert tol["log_shift"] == 0.0 and abs(tol["log_shift_per_power"]) > 0.05  # no log factor; one would matter


def test_tolerance_statement_flags_a_bias_it_does_not_cover():
    """A two-term bound n^{-1/2} + n^{-1} fitted against a claimed −1 over n ∈ [10, 1e4]: the fit bias (≈ +0.3)
    exceeds a tolerance of 0.1, and the statement says so."""
    why = C.RateTolerance("none", "n^{-1/2} + n^{-1}", lambda n: n**-0.5 + 1 / n)
    tol = why.explain(RateClaim("n", -1.0, 0.1), [10, 100, 1000, 10_000])
    assert not tol["covered"] and "WARNING" in tol["text"]


def test_rate_check_summary_states_the_tolerance(tmp_path):
    from htdp_verify.registry import RunContext, get_checks

    check = next(c for c in get_checks(["hu2022"]) if c.name == "hu2022.rate.private_n")
    ctx = RunContext(profile="quick", seed=5, rng=np.random.default_rng(5), out_dir=tmp_path, progress=False)
    ctx.tiny = True
    res = check.func(ctx)
    assert res.details["tolerance"]["covered"]
    assert "Tolerance ±0.1: log factors in n: none" in res.summary
