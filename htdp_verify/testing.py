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
"""

from __future__ import annotations

import hashlib
import math
import os
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest
from numpy.typing import ArrayLike

from .claims import Provenance, RateClaim, TailBoundClaim
from .estimator_checks import (
    _PROFILE_OVERRIDE,
    check_dp_estimator,
    dp_checks,
    estimator_id,
    get_tags,
    parametrize_with_dp_checks,
    xfail_checks,
)
from .estimator_checks.tags import _profile
from .registry import PROFILES
from .results import CheckResult

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

_ON_INCONCLUSIVE = ("fail", "warn", "pass")


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
# Assertions
# ---------------------------------------------------------------------------------------------------------
def _finish(result: CheckResult, on_inconclusive: str, extra: str = "") -> CheckResult:
    if on_inconclusive not in _ON_INCONCLUSIVE:
        raise ValueError(f"on_inconclusive must be one of {_ON_INCONCLUSIVE}, got {on_inconclusive!r}")
    if result.verdict == "consistent":
        return result
    if result.verdict == "inconclusive" and on_inconclusive != "fail":
        if on_inconclusive == "warn":
            warnings.warn(f"{result.name}: inconclusive: {result.summary}", UserWarning, stacklevel=3)
        return result
    claim = result.claim
    prov = f" [{result.provenance}]" if str(result.provenance) != "unspecified" else ""
    lines = [
        f"{result.name}: {result.verdict.upper()} at alpha={result.alpha:g}{prov}",
        f"  {result.summary}",
    ]
    if extra:
        lines += ["  " + ln for ln in extra.splitlines()]
    if result.seed is not None:
        lines.append(f"  seed: {result.seed}")
    if claim is not None:
        lines.append(f"  claim: {_claim_text(claim)}")
    raise AssertionError("\n".join(lines))


def _claim_text(claim) -> str:
    if isinstance(claim, RateClaim):
        regime = f", regime: {claim.regime}" if claim.regime else ""
        return (
            f"{claim.summary} error ∝ {claim.variable}^{claim.exponent:.4g} "
            f"(tolerance ±{claim.tolerance:g} on the exponent{regime})"
        )
    if isinstance(claim, TailBoundClaim):
        return f"P[error > {claim.bound or 'bound'}] <= {claim.beta:g}"
    return str(claim)


def assert_rate(
    data: Any,
    claim: RateClaim | None = None,
    *,
    exponent: float | None = None,
    variable: str = "n",
    tolerance: float = 0.1,
    summary: str = "median",
    alpha: float = 0.05,
    errors: ArrayLike | None = None,
    output: str | None = None,
    method: str = "bootstrap",
    n_boot: int = 2000,
    rng: np.random.Generator | None = None,
    on_inconclusive: str = "fail",
    name: str = "",
    provenance: Provenance | dict | None = None,
) -> CheckResult:
    """Assert that the error's exponent in ``variable`` lies within ``tolerance`` of the claimed exponent.

    Passes on *consistent*; raises ``AssertionError`` on *violated* and (by default,
    ``on_inconclusive="fail"``) on *inconclusive* – an undecided check means the test needs more replications
    (the message says how many).  False-failure rate ≤ ``alpha`` when the true exponent is within the tolerance.

    Parameters
    ----------
    data : MonteCarloResult, DataFrame, tuple or array_like
        A :class:`~htdp_verify.montecarlo.MonteCarloResult`, a tidy DataFrame, ``(x, errors)``, or x values with
        ``errors=``.
    claim : RateClaim, optional
        The claim; give either this or ``exponent=`` (with ``variable``, ``tolerance``, ``summary``).
    exponent : float, optional
        The claimed exponent when no ``claim`` is given.
    variable : str, default "n"
        The swept variable.
    tolerance : float, default 0.1
        Half-width of the band around the claimed exponent.
    summary : str, default "median"
        Statistic of the error per grid value: ``"median"``, ``"mean"`` or a quantile ``"q0.9"``.
    alpha : float, default 0.05
        Error probability of the test.
    errors : array_like, optional
        The errors, when ``data`` holds only the x values.
    output : str, optional
        The output column of a Monte Carlo result to use, when it has several.
    method : str, default "bootstrap"
        How the interval of the exponent is obtained: ``"bootstrap"`` or ``"theilsen"``.
    n_boot : int, default 2000
        Bootstrap resamples.
    rng : numpy.random.Generator, optional
        Generator of the bootstrap (default: seeded from the data, so the check is a function of its input).
    on_inconclusive : str, default "fail"
        What an inconclusive result does: ``"fail"``, ``"warn"`` or ``"pass"``.
    name : str, default ""
        Name of the result.
    provenance : Provenance or dict, optional
        Source of the claim, when no ``claim`` is given.

    Returns
    -------
    CheckResult
        The result of the equivalence test (when the assertion passes).
    """
    from .rates import check_rate

    if (claim is None) == (exponent is None):
        raise ValueError("give exactly one of claim (a RateClaim) and exponent")
    if claim is None:
        assert exponent is not None  # exactly one of claim and exponent (checked above)
        claim = RateClaim(
            variable=variable,
            exponent=exponent,
            tolerance=tolerance,
            summary=summary,
            provenance=Provenance(**provenance) if isinstance(provenance, dict) else (provenance or Provenance()),
        )
    elif not isinstance(claim, RateClaim):
        raise ValueError(f"claim must be a RateClaim, got {type(claim).__name__}")
    res = check_rate(
        data,
        claim,
        alpha,
        errors=errors,
        output=output,
        method=method,
        n_boot=n_boot,
        rng=rng,
        name=name or f"rate[{claim.variable}^{claim.exponent:g}]",
    )
    extra = ""
    if res.verdict != "consistent":
        fit = res.details["fit"]
        ls = ", ".join(f"{v:.3f}" for v in fit["local_slopes"])
        pts = ", ".join(f"{x:g}: {y:.4g}" for x, y in zip(fit["x"], fit["summaries"]))
        extra = (
            f"fit: {fit['summary']} error ≈ {np.exp(fit['intercept']):.4g}·{fit['variable']}^{fit['exponent']:.4f}, "
            f"{100 * (1 - alpha):g}% CI [{fit['interval'][0]:.4f}, {fit['interval'][1]:.4f}] ({fit['method']}, "
            f"{min(fit['n_reps'])} reps per value)\n"
            f"band: [{res.details['band'][0]:.4f}, {res.details['band'][1]:.4f}]\n"
            f"{fit['summary']} by {fit['variable']}: {pts}\n"
            f"local slopes: {ls}"
        )
        if fit.get("theilsen"):
            ts = fit["theilsen"]
            extra += f"\nTheil-Sen: {ts['exponent']:.4f} [{ts['interval'][0]:.4f}, {ts['interval'][1]:.4f}]"
        if "reps_needed" in res.details:
            extra += f"\nreplications per value needed to decide: ~{res.details['reps_needed']:.0f}"
    return _finish(res, on_inconclusive, extra)


def assert_tail_bound(
    errors: ArrayLike,
    bound_values: Any,
    claim: TailBoundClaim | None = None,
    *,
    beta: float | None = None,
    alpha: float = 0.05,
    power: float = 0.8,
    detect_rate: float | None = None,
    per_cell: bool = False,
    on_inconclusive: str = "fail",
    name: str = "",
) -> CheckResult:
    """Assert ``P[error > bound] ≤ beta`` by an exact binomial test on the exceedances (false failure ≤ ``alpha``).

    Parameters
    ----------
    errors : array_like
        The errors, one per replication (or one row of replications per cell).
    bound_values : float or array_like
        The bound: a scalar, one value per cell, or one value per replication.
    claim : TailBoundClaim, optional
        The claim; give either this or ``beta=``.
    beta : float, optional
        The claimed failure probability when no ``claim`` is given.
    alpha : float, default 0.05
        Error probability of the test.
    power : float, default 0.8
        Power at which the detectable failure rate is stated.
    detect_rate : float, optional
        A failure rate the run must be able to detect; when it cannot, the result is inconclusive.
    per_cell : bool, default False
        Test every cell separately (Bonferroni over cells) instead of pooling.
    on_inconclusive : str, default "fail"
        What an inconclusive result does: ``"fail"``, ``"warn"`` or ``"pass"``.
    name : str, default ""
        Name of the result.

    Returns
    -------
    CheckResult
        The result of the exceedance test (when the assertion passes).
    """
    from .rates import check_tail_bound

    if (claim is None) == (beta is None):
        raise ValueError("give exactly one of claim (a TailBoundClaim) and beta")
    if claim is None:
        assert beta is not None  # exactly one of claim and beta (checked above)
        claim = TailBoundClaim(beta=beta)
    elif not isinstance(claim, TailBoundClaim):
        raise ValueError(f"claim must be a TailBoundClaim, got {type(claim).__name__}")
    res = check_tail_bound(
        errors,
        bound_values,
        claim,
        alpha,
        power=power,
        detect_rate=detect_rate,
        per_cell=per_cell,
        name=name or f"tail_bound[beta={claim.beta:g}]",
    )
    d = res.details
    extra = (
        f"exceedances per cell: {d['counts']} of {d['reps']}\n"
        f"empirical constant ((1-beta)-quantile of error/bound): {d['empirical_constant']:.4g} "
        f"(upper bound {d['empirical_constant_upper']:.4g}; the bound holds when <= 1)"
    )
    return _finish(res, on_inconclusive, extra)


def assert_quantile_shape(
    errors: ArrayLike,
    betas: Any = None,
    *,
    gamma: float = 0.5,
    tolerance: float = 0.25,
    alpha: float = 0.05,
    n_boot: int = 1000,
    rng: np.random.Generator | None = None,
    on_inconclusive: str = "fail",
    name: str = "",
) -> CheckResult:
    """Assert that the (1−β)-quantile of the error grows like ``log(1/β)^gamma`` (± ``tolerance`` on γ).

    Parameters
    ----------
    errors : array_like
        Replications of the error (or one row per β, as for :func:`~htdp_verify.rates.quantile_shape`).
    betas : array_like, optional
        The failure probabilities β at which quantiles are taken.
    gamma : float, default 0.5
        The claimed exponent γ (1/2: sub-Gaussian tails; 1: exponential tails).
    tolerance : float, default 0.25
        Half-width of the band around γ.
    alpha : float, default 0.05
        Error probability of the test.
    n_boot : int, default 1000
        Bootstrap resamples.
    rng : numpy.random.Generator, optional
        Generator of the bootstrap (default: seeded from the data).
    on_inconclusive : str, default "fail"
        ``"fail"``, ``"warn"`` or ``"pass"``.
    name : str, default ""
        Name of the result.

    Returns
    -------
    CheckResult
        The result (when the assertion passes).
    """
    from .rates import check_quantile_shape

    res = check_quantile_shape(
        errors,
        betas,
        gamma=gamma,
        tolerance=tolerance,
        alpha=alpha,
        n_boot=n_boot,
        rng=rng,
        name=name or f"quantile_shape[gamma={gamma:g}]",
    )
    sh = res.details["shape"]
    qs = ", ".join(f"beta={b:g}: {q:.4g}" for b, q in zip(sh["betas"], sh["quantiles"]))
    nested = sh["nested"]
    extra = f"quantiles: {qs}\nnested fit q = a + b sqrt(l) + c l: c = {nested['c']:.4g} CI {nested['c_interval']}"
    return _finish(res, on_inconclusive, extra)


#: largest releases per side assert_private picks by itself, per profile
_PRIVATE_CAP = {"quick": 200_000, "full": 2_000_000}


def private_sample_size(
    epsilon: float,
    *,
    alpha: float = 0.05,
    detect_ratio: float = 1.5,
    event_probability: float = 0.1,
    power: float = 0.8,
    profile: str | None = None,
) -> int:
    """Releases per side for :func:`assert_private` when ``n_samples`` is not given (the detectability target).

    Target: a mechanism whose true ε is ``detect_ratio`` × the claimed ε on an event of probability
    ``event_probability`` on D (so ``event_probability · e^{-detect_ratio·ε}`` on D') is refuted with probability
    ≥ ``power`` at level ``alpha`` once the audit has found that event
    (:func:`htdp_verify.stats.samples_needed_for_epsilon`). The ``full`` profile uses four times as many releases
    (a smaller detectable ratio). At least 2 000; capped at 200 000 (quick) / 2 000 000 (full).
    E.g. ε = 1, α = 0.05: 3 651 (quick), 14 604 (full).

    Parameters
    ----------
    epsilon : float
        The claimed ε.
    alpha : float, default 0.05
        Error probability of the audit.
    detect_ratio : float, default 1.5
        The ratio true ε / claimed ε to detect.
    event_probability : float, default 0.1
        Probability on D of the event that shows the leak.
    power : float, default 0.8
        Required probability of detection.
    profile : str, optional
        ``"quick"`` or ``"full"``; defaults to the ``--htdp-profile`` option under pytest, else ``$HTDP_PROFILE``,
        else ``"quick"``.

    Returns
    -------
    int
        Releases per side.
    """
    from ._validate import check_positive, check_prob
    from .stats import samples_needed_for_epsilon

    epsilon = check_positive("epsilon", epsilon)
    detect_ratio = check_positive("detect_ratio", detect_ratio)
    if detect_ratio <= 1:
        raise ValueError(f"detect_ratio must be > 1, got {detect_ratio!r}")
    event_probability = check_prob("event_probability", event_probability)
    prof = Profile(_profile(profile))  # default: the --htdp-profile option under pytest, else $HTDP_PROFILE
    p2 = event_probability * math.exp(-detect_ratio * epsilon)
    try:
        n = samples_needed_for_epsilon(epsilon, event_probability, p2, alpha, power, n_max=10**9)
    except ValueError:
        n = _PRIVATE_CAP[prof.name]
    n = max(2000, n) * (4 if prof.full else 1)
    return int(min(n, _PRIVATE_CAP[prof.name]))


def assert_private(
    mechanism_or_estimator: Any,
    claim: Any = None,
    *,
    pairs: Any = None,
    neighbours: Any = None,
    n_samples: int | None = None,
    alpha: float = 0.05,
    rng: np.random.Generator,
    on_inconclusive: str = "fail",
    profile: str | None = None,
    attacks: str = "auto",
    name: str = "",
    **audit_kwargs: Any,
) -> Any:
    """Assert that an empirical audit does not refute the privacy claim (:func:`htdp_verify.privacy.audit`).

    Parameters
    ----------
    mechanism_or_estimator : object
        A mechanism ``(data, size, rng)``, a :class:`~htdp_verify.privacy.Mechanism` or an estimator with ``sample``.
    claim : PrivacyClaim or PrivacyGuarantee, optional
        The claim (default: the mechanism's declared ``privacy``).
    pairs, neighbours
        The neighbouring inputs, as in :func:`~htdp_verify.privacy.audit`.
    n_samples : int, optional
        Releases per side (default: :func:`private_sample_size` of the claimed ε at ``profile``).
    alpha : float, default 0.05
        False-failure rate for a mechanism that satisfies the claim.
    rng : numpy.random.Generator
        The generator every release is drawn from.
    on_inconclusive : str, default "fail"
        What an inconclusive audit (the run could not certify the claimed ε even with a perfect event) does: ``"fail"``,
        ``"warn"`` or ``"pass"``.
    profile : str, optional
        ``"quick"`` or ``"full"`` (default: the ``--htdp-profile`` option).
    attacks : str or list, default "auto"
        The attack families, as in :func:`~htdp_verify.privacy.audit`.
    name : str, default ""
        Name of the result.
    **audit_kwargs
        Passed to :func:`~htdp_verify.privacy.audit`.

    Returns
    -------
    AuditResult
        The audit's result (when the assertion passes); on ``"violated"`` an ``AssertionError`` with the audit's
        summary, the pair and the exact event is raised instead.
    """
    from .privacy import audit
    from .privacy.adapters import as_mechanism
    from .privacy.plan import as_claim

    if on_inconclusive not in _ON_INCONCLUSIVE:
        raise ValueError(f"on_inconclusive must be one of {_ON_INCONCLUSIVE}, got {on_inconclusive!r}")
    the_claim = as_claim(claim, as_mechanism(mechanism_or_estimator))
    if n_samples is None:
        n_samples = private_sample_size(the_claim.epsilon, alpha=alpha, profile=profile)
    res = audit(
        mechanism_or_estimator,
        the_claim,
        pairs=pairs,
        neighbours=neighbours,
        n_samples=n_samples,
        alpha=alpha,
        attacks=attacks,
        rng=rng,
        name=name or None,
        **audit_kwargs,
    )
    if res.verdict in ("violated", "inconclusive"):
        d = res.details
        counts = res.counts
        extra = (
            f"pair: {d.get('pair', {}).get('text', '')}\n"
            f"event: {res.event} ({d.get('event', {}).get('orientation', '')})\n"
            f"counts: {counts.get('numerator')} vs {counts.get('denominator')} of {n_samples} per side\n"
            f"detectability: {res.detectability.get('statement', '')}"
        )
        if not res.name:
            res.name = "assert_private"
        return _finish(res, on_inconclusive, extra)
    return res


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
