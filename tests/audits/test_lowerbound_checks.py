"""The registered lower-bound audits flag the non-private control and pass the private estimators.

α = 0.05 per check (exact CP on 2×1500 replications); the non-private mean's P(error ≥ r) ≈ 0.07 vs the bound
0.236, a gap the check detects with power > 0.99 at this size.
"""

from pathlib import Path

import numpy as np
import pytest

from htdp_verify.registry import RunContext, get_checks


def _run(name, tmp_path, seed=1):
    (chk,) = [c for c in get_checks([name]) if c.name == name]
    ctx = RunContext(
        profile="quick", seed=seed, rng=np.random.default_rng(seed), out_dir=Path(tmp_path), progress=False
    )
    return chk.func(ctx)


def test_nonprivate_control_is_flagged(tmp_path):
    res = _run("lowerbound.cannot_beat.nonprivate_mean", tmp_path)
    assert res.verdict == "violated" and res.expected == "violated" and res.outcome == "as expected"


@pytest.mark.parametrize("name", ["clipped_laplace", "zhao2024_simple_clipping"])
def test_private_estimators_are_not_flagged(name, tmp_path):
    assert _run(f"lowerbound.cannot_beat.{name}", tmp_path).verdict == "consistent"


def test_optimality_check_writes_its_figure(tmp_path):
    res = _run("lowerbound.optimality.clipped_laplace", tmp_path)
    assert res.verdict == "info"  # descriptive: no claim that this tuning attains the bound is tested
    assert res.details["slope_band_test"] in ("consistent", "inconclusive")
    assert all((Path(tmp_path) / f).exists() for f in res.figures) and res.figures
