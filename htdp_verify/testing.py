"""pytest-facing assertions and the htdp-verify pytest plugin (registered through the ``pytest11`` entry point).

Assertions (usable in any test; each returns the :class:`~htdp_verify.results.CheckResult` when it passes):

* :func:`assert_rate` – equivalence test of an error exponent (:func:`htdp_verify.rates.check_rate`);
* :func:`assert_tail_bound` – exact exceedance test of a high-probability bound
  (:func:`htdp_verify.rates.check_tail_bound`);
* :func:`assert_quantile_shape` – the (1−β)-quantile grows like ``log(1/β)^γ``
  (:func:`htdp_verify.rates.check_quantile_shape`);
* :func:`assert_private` – an empirical privacy audit (:func:`htdp_verify.privacy.audit`) of a declared or given
  claim; fails only on a certified violation.

Estimator contract checks (re-exported from :mod:`htdp_verify.estimator_checks`): :func:`check_dp_estimator` and
:func:`parametrize_with_dp_checks` (one pytest test per check, chosen from the estimator's declared tags).

A failure raises ``AssertionError`` whose message shows the verdict, the fit with its confidence interval, the
local slopes and the seed.  Every assertion has a designed false-failure rate α (its ``alpha`` argument); with
fixed seeds (the ``rng`` / ``htdp_seed`` fixtures) CI never flakes, and ``--htdp-seed-salt`` re-draws every seed
for a scheduled "vary seed" run that samples the real error rates.

Plugin
------
* marker ``montecarlo`` (statistical tests with a designed error rate);
* option ``--htdp-profile quick|full`` (default: ``$HTDP_PROFILE`` or ``quick``) and fixture ``htdp_profile``
  (a :class:`Profile`; ``htdp_profile.pick(quick=200, full=2000)``);
* option ``--htdp-seed-salt TEXT`` (default: ``$HTDP_SEED_SALT`` or empty) mixed into every test seed;
* fixtures ``rng`` (a ``numpy.random.Generator`` seeded from the test id) and ``htdp_seed`` (the same integer,
  for :func:`htdp_verify.montecarlo.sweep` ``seed=``).

The chosen profile also scales :func:`assert_private` and the estimator checks run under pytest.

The assertions are defined in the private module ``htdp_verify._assertions`` (which does not import pytest) and
re-exported here; import them from this module.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest

from ._assertions import (
    assert_private,
    assert_quantile_shape,
    assert_rate,
    assert_tail_bound,
    private_sample_size,
)
from .estimator_checks import (
    _PROFILE_OVERRIDE,
    check_dp_estimator,
    dp_checks,
    estimator_id,
    get_tags,
    parametrize_with_dp_checks,
    xfail_checks,
)
from .registry import PROFILES

__all__ = [
    "seed_from_text",
    "Profile",
    "assert_rate",
    "assert_tail_bound",
    "assert_quantile_shape",
    "assert_private",
    "private_sample_size",
    "check_dp_estimator",
    "parametrize_with_dp_checks",
    "dp_checks",
    "get_tags",
    "xfail_checks",
    "estimator_id",
    "PROFILES",
]


def seed_from_text(text: str) -> int:
    """A stable 63-bit seed derived from ``text`` (e.g. a test id or a check name).

    Parameters
    ----------
    text : str
        The text to derive the seed from.

    Returns
    -------
    int
        A non-negative seed, the same for the same text on every platform.
    """
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "little") >> 1


# ---------------------------------------------------------------------------------------------------------
# pytest plugin
# ---------------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Profile:
    """The run profile chosen with ``--htdp-profile``: ``quick`` (CI on every push) or ``full`` (scheduled).

    Parameters
    ----------
    name : str
        ``"quick"`` or ``"full"``.
    """

    name: str

    @property
    def full(self) -> bool:
        return self.name == "full"

    def pick(self, quick: Any, full: Any) -> Any:
        """``quick`` under the quick profile, ``full`` under the full one (e.g. replications, grid sizes).

        Parameters
        ----------
        quick : object
            The value for the quick profile.
        full : object
            The value for the full profile.

        Returns
        -------
        object
            One of the two.
        """
        return full if self.full else quick

    def __str__(self) -> str:
        return self.name


def pytest_addoption(parser):
    group = parser.getgroup("htdp-verify")
    group.addoption(
        "--htdp-profile",
        action="store",
        dest="htdp_profile",
        default=os.environ.get("HTDP_PROFILE", "quick"),
        choices=PROFILES,
        help="htdp-verify run profile: quick (default, or $HTDP_PROFILE) or full",
    )
    group.addoption(
        "--htdp-seed-salt",
        action="store",
        dest="htdp_seed_salt",
        default=os.environ.get("HTDP_SEED_SALT", ""),
        help="text mixed into every test seed (rng / htdp_seed fixtures); vary it in a scheduled job to sample "
        "the real false-failure rates (default: $HTDP_SEED_SALT or empty = fixed seeds)",
    )


def pytest_configure(config):
    _PROFILE_OVERRIDE[:] = [config.getoption("htdp_profile", default="quick")]
    config.addinivalue_line(
        "markers", "montecarlo: Monte Carlo statistical test with a designed false-failure rate (htdp-verify)"
    )


def pytest_report_header(config):
    prof = config.getoption("htdp_profile", default="quick")
    salt = config.getoption("htdp_seed_salt", default="")
    return f"htdp-verify: profile={prof}" + (f", seed salt={salt!r}" if salt else ", fixed seeds")


def _test_seed(request) -> int:
    salt = request.config.getoption("htdp_seed_salt", default="") or ""
    text = request.node.nodeid if not salt else f"{request.node.nodeid}#{salt}"
    return seed_from_text(text)


@pytest.fixture
def rng(request) -> np.random.Generator:
    """A ``numpy.random.Generator`` seeded from the test id (stable across runs and machines)."""
    return np.random.default_rng(_test_seed(request))


@pytest.fixture
def htdp_seed(request) -> int:
    """The integer seed of this test (the one the ``rng`` fixture uses), e.g. for ``sweep(..., seed=htdp_seed)``."""
    return _test_seed(request)


@pytest.fixture
def htdp_profile(request) -> Profile:
    """The :class:`Profile` chosen with ``--htdp-profile`` (``quick`` by default)."""
    return Profile(request.config.getoption("htdp_profile", default="quick"))
