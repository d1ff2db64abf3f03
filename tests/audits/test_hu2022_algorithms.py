"""The registered privacy checks of Hu et al.'s algorithms: controls (true ε above the claim on their pair, from the
exact computation) come out violated as expected; the printed calibrations are not violated (each is a 95 %
statement at a fixed seed; the exact ε on these pairs is 0.21 / 0.026 / 0.35, far below the claim 1, so a false
flag would need the bound to overshoot by a factor 3 or more)."""

from __future__ import annotations

import numpy as np
import pytest

import audits  # noqa: F401  (registers the checks)
from htdp_verify.registry import RunContext, get_checks

CHECKS = {c.name: c for c in get_checks(["hu2022.privacy"])}


def _run(name, tmp_path):
    ctx = RunContext("quick", 20261124, np.random.default_rng(20261124), tmp_path, progress=False)
    return CHECKS[name].func(ctx)


@pytest.mark.parametrize(
    "name",
    ["hu2022.privacy.dp_fw_undernoised", "hu2022.privacy.lasso_undernoised", "hu2022.privacy.peeling_undernoised"],
)
def test_controls_are_flagged(name, tmp_path):
    r = _run(name, tmp_path)
    assert r.expected == "violated" and r.outcome == "as expected", r.summary


@pytest.mark.parametrize("name", ["hu2022.privacy.dp_fw", "hu2022.privacy.lasso", "hu2022.privacy.peeling"])
def test_printed_calibrations_are_not_flagged(name, tmp_path):
    r = _run(name, tmp_path)
    assert r.verdict != "violated" and r.estimate < 0.6, r.summary


def test_peeling_exact_variants(tmp_path):
    r = _run("hu2022.privacy.peeling_exact", tmp_path)
    eps = r.details["epsilon_by_variant"]
    assert r.verdict == "consistent" and 0.3 < eps["arXiv scale (default)"] < 0.36
    assert eps["PODS scale sqrt(s+1)"] > eps["arXiv scale (default)"]  # less noise, more privacy loss
