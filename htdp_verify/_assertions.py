"""The pytest-facing assertions of :mod:`htdp_verify.testing` (re-exported there; import them from there).

Each assertion runs one check of :mod:`htdp_verify.rates` or :func:`htdp_verify.privacy.audit` and raises
``AssertionError`` with the verdict, the fit or the audit's evidence and the seed when the check does not pass;
the designed false-failure rate is its ``alpha`` argument.  The pytest plugin (fixtures, options, the
:class:`~htdp_verify.testing.Profile`) stays in :mod:`htdp_verify.testing`; this module does not import pytest.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .claims import Provenance, RateClaim, TailBoundClaim
from .estimator_checks.tags import _profile
from .results import CheckResult

__all__ = [
    "assert_rate",
    "assert_tail_bound",
    "assert_quantile_shape",
    "assert_private",
    "private_sample_size",
]

_ON_INCONCLUSIVE = ("fail", "warn", "pass")


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
    prof = _profile(profile)  # default: the --htdp-profile option under pytest, else $HTDP_PROFILE
    p2 = event_probability * math.exp(-detect_ratio * epsilon)
    try:
        n = samples_needed_for_epsilon(epsilon, event_probability, p2, alpha, power, n_max=10**9)
    except ValueError:
        n = _PRIVATE_CAP[prof]
    n = max(2000, n) * (4 if prof == "full" else 1)
    return int(min(n, _PRIVATE_CAP[prof]))


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
