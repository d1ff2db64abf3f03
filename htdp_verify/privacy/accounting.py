"""Exact privacy accounting of a stated noise calibration: the tight ε(δ) of a mechanism, no sampling involved.

A :class:`Calibration` states a mechanism (Gaussian, Laplace, their discrete versions, or a black-box (ε0, δ0)-DP
or ρ-zCDP step), its sensitivity and noise, the number of steps, an optional Poisson subsampling rate and the
composition rule. :func:`account` gives the exact ε at a δ with a numerical bracket; :func:`epsilon_of` and
:func:`delta_of` give the numbers; :func:`check_calibration` compares them with a claimed (ε, δ) and returns a
deterministic :class:`~htdp_verify.results.CheckResult` ("the stated noise gives ε = x at δ").

Accountants, best first (``accountant="auto"`` picks the first that applies; every result carries its name):

* closed forms, exact to the root finder's tolerance (1e-12):

  - Gaussian steps without subsampling: the composition of Gaussians is one Gaussian with
    μ = √(Σ_i T_i Δ_i²/σ_i²), δ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2) (Balle & Wang 2018, Thm 8; Dong, Roth &
    Su 2022, Cor. 2.13);
  - one Laplace step: ε(δ) = max(0, Δ/b + 2 ln(1 − δ)) (the hockey-stick divergence of two shifted Laplace laws);
  - k black-box (ε0, δ0)-DP steps: the optimal composition theorem of Kairouz, Oh & Viswanath (2015, Thm 3.3),
    δ(ε) = 1 − (1 − δ0)^k (1 − δ_RR(ε)), with δ_RR(ε) = P[L > ε] − e^ε Q[L > ε] for the binomial privacy loss
    L = (k − 2B)ε0, B ~ Bin(k, 1/(1 + e^{ε0})) under P and Bin(k, e^{ε0}/(1 + e^{ε0})) under Q;
  - ρ-zCDP steps (and Gaussians mixed with them): ρ's add up and :func:`~.guarantee.zcdp_epsilon` converts
    (Canonne, Kamath & Steinke 2020, Prop. 12). This is the best conversion of a zCDP statement, not the exact
    ε of a particular mechanism.
* ``"pld"``: Google's ``dp-accounting`` privacy-loss-distribution accountant (Koskela et al.; Doroshenko et al.
  2022, "Connect the dots"). The pessimistic PLD gives an upper bound on ε(δ), the optimistic one (privacy buckets)
  a lower bound; their difference is the discretisation error reported. Needed for subsampling, several Laplace
  steps and the discrete mechanisms.
* ``"rdp"``: dp-accounting's Rényi accountant, an upper bound kept as a cross-check (``Accounting.rdp_epsilon``).

Conventions: ``sensitivity`` is the largest change of the released statistic between neighbours under
``neighbours`` (ℓ2 for Gaussian, ℓ1 for Laplace, an integer for the discrete mechanisms). With ``sampling < 1``
and ``neighbours="replace"`` (Gaussian only) the statistic is taken to be a sum of per-record terms of norm
≤ Δ/2, as dp-accounting models replacement under Poisson sampling. ``composition="parallel"`` means the steps
touch disjoint records, so one record meets one step.

Layout: this module holds the public functions and re-exports the rest, so every name here stays importable from
it: :mod:`htdp_verify.privacy.calibration` holds :class:`Calibration`, :class:`Accounting`, :data:`MECHANISMS`,
:data:`ACCOUNTANTS` and the closed forms; the private module ``_dp_accounting_bridge`` holds the dp-accounting PLD
and RDP accountants.
"""

from __future__ import annotations

import math
import time
from dataclasses import asdict

from .._validate import check_int, check_positive, check_prob
from ..claims import PrivacyClaim, Provenance
from ..results import CheckResult
from ._dp_accounting_bridge import _default_h, _pld, _rdp_accountant
from .calibration import ACCOUNTANTS, MECHANISMS, Accounting, Calibration, _as_list, _closed_form

__all__ = [
    "Calibration",
    "Accounting",
    "MECHANISMS",
    "ACCOUNTANTS",
    "account",
    "epsilon_of",
    "delta_of",
    "check_calibration",
    "advanced_composition_epsilon",
]


# ---------------------------------------------------------------------------------------------------------------
# public functions
# ---------------------------------------------------------------------------------------------------------------
def _check_accountant(accountant):
    if accountant not in ACCOUNTANTS:
        raise ValueError(f"accountant must be one of {ACCOUNTANTS}, got {accountant!r}")


def account(
    calibration: Calibration,
    delta: float,
    *,
    accountant: str = "auto",
    discretisation: float | None = None,
    cross_check: bool = True,
) -> Accounting:
    """Exact ε(δ) of a calibration (or a sequence of calibrations composed in order) with its numerical bracket.

    Parameters
    ----------
    calibration : Calibration or sequence of Calibration
        The stated noise; a sequence is composed in order.
    delta : float
        The δ at which ε is computed, in [0, 1).
    accountant : str, default "auto"
        ``"auto"`` (closed form if one applies, else PLD), ``"exact"`` (closed form or ``ValueError``), ``"pld"``
        or ``"rdp"`` (an upper bound only).
    discretisation : float, optional
        PLD grid (default 1e-4; 1e-3 beyond 100 steps or with subsampling).
    cross_check : bool, default True
        Also run the RDP accountant, and the PLD when a closed form was used (up to 10⁴ steps; a closed form
        outside the PLD bracket raises ``RuntimeError``: that would be a bug).

    Returns
    -------
    Accounting
        The ε upper bound and lower bound, the accountant, the discretisation and the RDP cross-check.
    """
    t0 = time.perf_counter()
    cals = _as_list(calibration)
    delta = check_prob("delta", delta, open_low=False)
    _check_accountant(accountant)
    h = check_positive("discretisation", discretisation) if discretisation is not None else _default_h(cals)
    notes: list[str] = []
    rdp_eps = None
    if cross_check or accountant == "rdp":
        acc = _rdp_accountant(cals)
        if acc is not None:
            rdp_eps = float(acc.get_epsilon(delta)) if delta > 0 else math.inf
    if accountant == "rdp":
        if rdp_eps is None:
            raise ValueError("the RDP accountant does not support this calibration")
        return Accounting(
            rdp_eps,
            0.0,
            delta,
            "RDP (dp-accounting RdpAccountant; upper bound only)",
            None,
            rdp_eps,
            time.perf_counter() - t0,
            ["RDP gives an upper bound only; epsilon_lower is 0"],
        )
    closed = _closed_form(cals) if accountant in ("auto", "exact") else None
    if delta == 0 and accountant in ("auto", "exact"):  # pure ε: the sum of the steps' pure ε is attained
        eps = sum(c.effective_steps * c.pure_epsilon for c in cals)
        closed = ("closed form: pure ε composition at δ = 0", None, lambda d: eps)
    if accountant == "exact" and closed is None:
        raise ValueError("no closed form applies to this calibration (use accountant='pld')")
    if closed is not None:
        name, _, efn = closed
        eps = float(efn(delta))
        res = Accounting(eps, eps, delta, name, None, rdp_eps, 0.0, notes)
        if (
            cross_check
            and not name.startswith("zCDP")
            and math.isfinite(eps)
            and delta > 0
            and sum(c.effective_steps for c in cals) <= 10_000
        ):
            hc = max(h, 1e-3)  # a coarse grid suffices to catch a wrong closed form
            lo, hi = _pld_bracket(cals, delta, hc)
            notes.append(f"PLD cross-check (grid {hc:g}): [{lo:.6g}, {hi:.6g}]")
            if not (lo - 1e-6 <= eps <= hi + 1e-6):
                raise RuntimeError(f"closed form ε={eps!r} outside the PLD bracket [{lo!r}, {hi!r}]")
    else:
        lo, hi = _pld_bracket(cals, delta, h)
        res = Accounting(
            hi,
            lo,
            delta,
            "PLD (dp-accounting; pessimistic connect-the-dots upper bound, optimistic privacy-buckets lower bound)",
            h,
            rdp_eps,
            0.0,
            notes,
        )
    if rdp_eps is not None and rdp_eps < res.epsilon_lower - 1e-6:
        notes.append(f"RDP ε={rdp_eps:.6g} below the exact lower bound {res.epsilon_lower:.6g}: inconsistent")
    res.seconds = time.perf_counter() - t0
    return res


def _pld_bracket(cals, delta, h):
    hi = float(_pld(cals, pessimistic=True, h=h).get_epsilon_for_delta(delta))
    lo = float(_pld(cals, pessimistic=False, h=h).get_epsilon_for_delta(delta))
    return min(lo, hi), hi


def epsilon_of(
    calibration: Calibration, delta: float, *, accountant: str = "auto", discretisation: float | None = None
) -> float:
    """The ε at which the calibration is (ε, δ)-DP: exact for closed forms, else the PLD upper bound.

    Parameters
    ----------
    calibration : Calibration or sequence of Calibration
        The stated noise.
    delta : float
        The δ, in [0, 1).
    accountant : str, default "auto"
        ``"auto"`` (closed form if one applies, else PLD), ``"exact"`` (closed form or ``ValueError``), ``"pld"``
        or ``"rdp"`` (an upper bound only).
    discretisation : float, optional
        PLD grid (default 1e-4; 1e-3 beyond 100 steps or with subsampling).

    Returns
    -------
    float
        The ε.
    """
    return account(calibration, delta, accountant=accountant, discretisation=discretisation, cross_check=False).epsilon


def delta_of(
    calibration: Calibration, epsilon: float, *, accountant: str = "auto", discretisation: float | None = None
) -> float:
    """The δ(ε) of the calibration's privacy profile: exact for closed forms, else the pessimistic PLD value.

    Parameters
    ----------
    calibration : Calibration or sequence of Calibration
        The stated noise.
    epsilon : float
        The ε (≥ 0).
    accountant : str, default "auto"
        ``"auto"`` (closed form if one applies, else PLD), ``"exact"`` (closed form or ``ValueError``), ``"pld"``
        or ``"rdp"`` (an upper bound only).
    discretisation : float, optional
        PLD grid (default 1e-4; 1e-3 beyond 100 steps or with subsampling).

    Returns
    -------
    float
        The δ.
    """
    cals = _as_list(calibration)
    epsilon = check_positive("epsilon", epsilon, allow_zero=True)
    _check_accountant(accountant)
    closed = _closed_form(cals) if accountant in ("auto", "exact") else None
    if accountant == "exact" and closed is None:
        raise ValueError("no closed form applies to this calibration (use accountant='pld')")
    if closed is not None:
        return float(closed[1](epsilon))
    if accountant == "rdp":
        acc = _rdp_accountant(cals)
        if acc is None:
            raise ValueError("the RDP accountant does not support this calibration")
        return float(acc.get_delta(epsilon))
    h = check_positive("discretisation", discretisation) if discretisation is not None else _default_h(cals)
    return float(_pld(cals, pessimistic=True, h=h).get_delta_for_epsilon(epsilon))


def advanced_composition_epsilon(step_epsilon: float, steps: int, delta_prime: float) -> float:
    """Dwork, Rothblum & Vadhan (2010) advanced composition: k (ε0, δ0)-DP steps are
    (ε0√(2k ln(1/δ')) + kε0(e^{ε0} − 1), kδ0 + δ')-DP. Returns that ε (a rule papers state claims with; the exact
    composition is ``Calibration("approx_dp", step_epsilon=ε0, step_delta=δ0, steps=k)``).

    Parameters
    ----------
    step_epsilon : float
        ε0 of a step.
    steps : int
        Number of steps k.
    delta_prime : float
        The slack δ'.

    Returns
    -------
    float
        The composed ε.
    """
    e0 = check_positive("step_epsilon", step_epsilon)
    k = check_int("steps", steps, minimum=1)
    dp = check_prob("delta_prime", delta_prime)
    return e0 * math.sqrt(2 * k * math.log(1 / dp)) + k * e0 * math.expm1(e0)


def check_calibration(
    calibration: Calibration,
    claim: PrivacyClaim,
    *,
    rtol: float = 1e-4,
    name: str = "accounting",
    provenance: Provenance | None = None,
    accountant: str = "auto",
    time_budget: float = 1.0,
    note: str = "",
    expected: str | None = None,
) -> CheckResult:
    """Deterministic verdict on a claimed (ε, δ) for a stated calibration: "the stated noise gives ε = x at δ".

    ``consistent`` when the exact ε (its upper bound) is ≤ claimed ε·(1 + ``rtol``); ``violated`` when its lower
    bound exceeds that; otherwise the PLD grid is refined (÷10, while the elapsed time is within ``time_budget``
    seconds) and, if still undecided, ``inconclusive``. No sampling: ``alpha`` is 0 and ``n_samples`` 0.

    Parameters
    ----------
    calibration : Calibration or sequence of Calibration
        The stated noise.
    claim : PrivacyClaim
        The claimed (ε, δ).
    rtol : float, default 1e-4
        Relative tolerance on the claimed ε.
    name : str, default "accounting"
        Name of the result.
    provenance : Provenance, optional
        Source of the calibration and the claim.
    accountant : str, default "auto"
        As in :func:`account`.
    time_budget : float, default 1.0
        Seconds the PLD grid may be refined for.
    note : str, default ""
        Appended to the summary.
    expected : str, optional
        The verdict a canary or control is built to produce (see :class:`~htdp_verify.results.CheckResult`).

    Returns
    -------
    CheckResult
        Statistic ``epsilon_exact``; ``details`` hold the accountant, the bracket, the discretisation and its
        error, the RDP cross-check and the calibration.
    """
    t0 = time.perf_counter()
    cals = _as_list(calibration)
    if not isinstance(claim, PrivacyClaim):
        raise ValueError(f"claim must be a PrivacyClaim, got {type(claim).__name__}")
    if claim.neighbours != cals[0].neighbours:
        raise ValueError(
            f"claim.neighbours={claim.neighbours!r} differs from the calibration's "
            f"neighbours={cals[0].neighbours!r} (the sensitivity is stated for one relation)"
        )
    rtol = check_positive("rtol", rtol, allow_zero=True)
    _check_accountant(accountant)
    limit = claim.epsilon * (1.0 + rtol)
    h = _default_h(cals)
    res = account(cals, claim.delta, accountant=accountant, discretisation=h)
    while (
        res.epsilon_lower <= limit < res.epsilon
        and res.discretisation is not None
        and h > 1e-6
        and 12 * (time.perf_counter() - t0) < time_budget
    ):  # a 10x finer grid costs about 10x
        h /= 10.0
        res = account(cals, claim.delta, accountant=accountant, discretisation=h, cross_check=False)
    if res.epsilon <= limit:
        verdict = "consistent"
    elif res.epsilon_lower > limit:
        verdict = "violated"
    else:
        verdict = "inconclusive"
    what = cals[0].describe() if len(cals) == 1 else " ∘ ".join(c.describe() for c in cals)
    d = f" at δ={claim.delta:g}" if claim.delta else " (pure, δ=0)"
    summary = f"the stated noise ({what}) gives ε = {res.epsilon:.6g}{d}; claimed ε = {claim.epsilon:g}: {verdict}" + (
        f" [{note}]" if note else ""
    )
    details = {
        "accountant": res.accountant,
        "epsilon_exact": res.epsilon,
        "epsilon_lower": res.epsilon_lower,
        "discretisation": res.discretisation,
        "discretisation_error": res.error,
        "rdp_epsilon": res.rdp_epsilon,
        "claimed_epsilon": claim.epsilon,
        "claimed_delta": claim.delta,
        "ratio_exact_to_claimed": res.epsilon / claim.epsilon,
        "rtol": rtol,
        "calibration": [asdict(c) for c in cals],
        "notes": list(res.notes) + ([note] if note else []),
        "dp_accounting_version": _dp_accounting_version(),
    }
    return CheckResult(
        name=name,
        verdict=verdict,
        statistic="epsilon_exact",
        estimate=res.epsilon,
        interval=(res.epsilon_lower, res.epsilon),
        alpha=0.0,
        claim=claim,
        n_samples=0,
        seconds=time.perf_counter() - t0,
        seed=None,
        provenance=provenance or claim.provenance,
        summary=summary,
        details=details,
        expected=expected,
    )


def _dp_accounting_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("dp-accounting")
    except PackageNotFoundError:  # pragma: no cover
        return "unknown"
