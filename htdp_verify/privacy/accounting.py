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
"""

from __future__ import annotations

import math
import time
from dataclasses import asdict, dataclass, field

import numpy as np
from scipy import optimize, special, stats

from .._validate import check_int, check_positive, check_prob
from ..claims import NEIGHBOUR_RELATIONS, PrivacyClaim, Provenance
from ..results import CheckResult
from .guarantee import zcdp_delta, zcdp_epsilon

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

MECHANISMS = ("gaussian", "laplace", "discrete_gaussian", "discrete_laplace", "pure_dp", "approx_dp", "zcdp")
ACCOUNTANTS = ("auto", "exact", "pld", "rdp")
COMPOSITIONS = ("sequential", "parallel")
_ROOT_TOL = 1e-12


@dataclass(frozen=True)
class Calibration:
    """A stated noise calibration.

    Parameters
    ----------
    mechanism
        one of :data:`MECHANISMS`.
    sensitivity
        Δ between neighbours under ``neighbours`` (ℓ2 for Gaussian, ℓ1 for Laplace; integer for discrete).
    sigma
        noise standard deviation (``"gaussian"``, ``"discrete_gaussian"``).
    scale
        Laplace scale b (``"laplace"``; ``"discrete_laplace"``: P(k) ∝ exp(−|k|/b)).
    step_epsilon, step_delta
        per-step (ε0, δ0) of a black-box step (``"pure_dp"``: δ0 = 0; ``"approx_dp"``).
    rho
        per-step ρ of a black-box ρ-zCDP step (``"zcdp"``).
    steps
        number of steps T ≥ 1.
    sampling
        Poisson subsampling rate q ∈ (0, 1] per step (1 = none; Gaussian / Laplace and discrete ones).
    composition
        ``"sequential"`` (each record meets every step) or ``"parallel"`` (disjoint records per step).
    neighbours
        ``"replace"`` or ``"add_remove"``.
    label
        free text (where the calibration comes from).
    """

    mechanism: str
    sensitivity: float = 1.0
    sigma: float | None = None
    scale: float | None = None
    step_epsilon: float | None = None
    step_delta: float = 0.0
    rho: float | None = None
    steps: int = 1
    sampling: float = 1.0
    composition: str = "sequential"
    neighbours: str = "replace"
    label: str = ""

    def __post_init__(self):
        m = self.mechanism
        if m not in MECHANISMS:
            raise ValueError(f"mechanism must be one of {MECHANISMS}, got {m!r}")
        check_positive("sensitivity", self.sensitivity)
        check_int("steps", self.steps, minimum=1)
        check_prob("sampling", self.sampling, open_high=False)
        if self.composition not in COMPOSITIONS:
            raise ValueError(f"composition must be one of {COMPOSITIONS}, got {self.composition!r}")
        if self.neighbours not in NEIGHBOUR_RELATIONS:
            raise ValueError(f"neighbours must be one of {NEIGHBOUR_RELATIONS}, got {self.neighbours!r}")
        need = {
            "gaussian": "sigma",
            "discrete_gaussian": "sigma",
            "laplace": "scale",
            "discrete_laplace": "scale",
            "pure_dp": "step_epsilon",
            "approx_dp": "step_epsilon",
            "zcdp": "rho",
        }[m]
        for name in ("sigma", "scale", "step_epsilon", "rho"):
            value = getattr(self, name)
            if name == need:
                if value is None:
                    raise ValueError(f"{name} must be given (> 0) for mechanism={m!r}")
                check_positive(name, value)
            elif value is not None:
                raise ValueError(f"{name} does not apply to mechanism={m!r} (it takes {need!r}), got {value!r}")
        if m == "approx_dp":
            check_prob("step_delta", self.step_delta)
        elif self.step_delta:
            raise ValueError(f"step_delta applies only to mechanism='approx_dp', got {self.step_delta!r}")
        if m.startswith("discrete") and float(self.sensitivity) != int(self.sensitivity):
            raise ValueError(f"sensitivity must be an integer for mechanism={m!r}, got {self.sensitivity!r}")
        if self.sampling < 1 and m in ("pure_dp", "approx_dp", "zcdp"):
            raise ValueError(
                f"sampling must be 1 for mechanism={m!r} (no subsampled accountant), got {self.sampling!r}"
            )
        if self.sampling < 1 and self.neighbours == "replace" and m != "gaussian":
            raise ValueError(
                "sampling < 1 with neighbours='replace' is supported for mechanism='gaussian' only; "
                f"got mechanism={m!r}"
            )

    @property
    def effective_steps(self) -> int:
        """Steps a single record takes part in: ``steps`` (sequential) or 1 (parallel)."""
        return self.steps if self.composition == "sequential" else 1

    @property
    def pure_epsilon(self) -> float:
        """ε at δ = 0 of one step (∞ for Gaussian, zCDP and δ0 > 0), with Poisson subsampling amplification
        ln(1 + q(e^{ε0} − 1)) (add/remove neighbours; attained by the Laplace laws, so exact)."""
        m = self.mechanism
        if m in ("laplace", "discrete_laplace"):
            e0 = self.sensitivity / self.scale
        elif m == "pure_dp":
            e0 = self.step_epsilon
        else:
            return math.inf
        return e0 if self.sampling == 1 else math.log1p(self.sampling * math.expm1(e0))

    def describe(self) -> str:
        m = self.mechanism
        if m in ("gaussian", "discrete_gaussian"):
            noise = f"{'discrete ' if m.startswith('discrete') else ''}Gaussian σ={self.sigma:.6g}"
        elif m in ("laplace", "discrete_laplace"):
            noise = f"{'discrete ' if m.startswith('discrete') else ''}Laplace b={self.scale:.6g}"
        elif m == "pure_dp":
            noise = f"black-box {self.step_epsilon:.6g}-DP step"
        elif m == "approx_dp":
            noise = f"black-box ({self.step_epsilon:.6g}, {self.step_delta:.3g})-DP step"
        else:
            noise = f"black-box {self.rho:.6g}-zCDP step"
        sens = "" if m in ("pure_dp", "approx_dp", "zcdp") else f", Δ={self.sensitivity:.6g}"
        steps = f", {self.steps} {self.composition} steps" if self.steps > 1 else ""
        samp = f", Poisson sampling q={self.sampling:.6g}" if self.sampling < 1 else ""
        return f"{noise}{sens}{steps}{samp} ({self.neighbours} neighbours)"


@dataclass
class Accounting:
    """ε(δ) of a calibration: ``epsilon`` is an upper bound on the exact value, ``epsilon_lower`` a lower bound
    (equal for closed forms), ``accountant`` names the method, ``discretisation`` the PLD grid (None for closed
    forms), ``rdp_epsilon`` the Rényi accountant's (upper-bound) ε as a cross-check (None if unsupported).

    Parameters
    ----------
    epsilon : float
        Upper bound on the exact ε.
    epsilon_lower : float
        Lower bound on it (equal for closed forms).
    delta : float
        The δ.
    accountant : str
        The method.
    discretisation : float or None
        The PLD grid (None for closed forms).
    rdp_epsilon : float or None
        The Rényi accountant's ε (None if unsupported).
    seconds : float
        Time taken.
    notes : list
        Remarks.
    """

    epsilon: float
    epsilon_lower: float
    delta: float
    accountant: str
    discretisation: float | None = None
    rdp_epsilon: float | None = None
    seconds: float = 0.0
    notes: list = field(default_factory=list)

    @property
    def error(self) -> float:
        """Width of the bracket around the exact ε (the numerical error of ``epsilon``)."""
        if math.isinf(self.epsilon) and math.isinf(self.epsilon_lower):
            return 0.0
        return self.epsilon - self.epsilon_lower


def _as_list(calibration) -> list[Calibration]:
    cals = [calibration] if isinstance(calibration, Calibration) else list(calibration)
    if not cals or not all(isinstance(c, Calibration) for c in cals):
        raise ValueError("calibration must be a Calibration or a non-empty sequence of Calibration")
    if len({c.neighbours for c in cals}) > 1:
        raise ValueError("all calibrations in a composition must use the same neighbours relation")
    return cals


# ---------------------------------------------------------------------------------------------------------------
# closed forms
# ---------------------------------------------------------------------------------------------------------------
def _gauss_delta(eps: float, mu: float) -> float:
    if mu == 0:
        return 0.0
    return max(0.0, float(special.ndtr(-eps / mu + mu / 2) - math.exp(eps + special.log_ndtr(-eps / mu - mu / 2))))


def _kov_delta(eps: float, eps0: float, delta0: float, k: int) -> float:
    """Exact δ(ε) of k-fold composition of (ε0, δ0)-DP (Kairouz, Oh & Viswanath 2015, Thm 3.3)."""
    p = 1.0 / (1.0 + math.exp(eps0))  # P(a step's loss is −ε0) under the first law
    # L = (k − 2B) ε0 > ε  ⟺  B < (k − ε/ε0)/2  ⟺  B ≤ l*
    l_star = math.ceil((k - eps / eps0) / 2.0) - 1
    if l_star < 0:
        d_rr = 0.0
    else:
        log_p = stats.binom.logcdf(l_star, k, p)
        log_q = stats.binom.logcdf(l_star, k, 1.0 - p) + eps
        d_rr = 0.0 if log_q >= log_p else float(math.exp(log_p) * -math.expm1(log_q - log_p))
    return 1.0 - (1.0 - delta0) ** k * (1.0 - d_rr)


def _invert(delta_fn, delta: float, eps_max_hint: float) -> float:
    """Smallest ε ≥ 0 with delta_fn(ε) ≤ δ, for a non-increasing continuous delta_fn."""
    if delta_fn(0.0) <= delta:
        return 0.0
    hi = max(eps_max_hint, 1.0)
    while delta_fn(hi) > delta:
        hi *= 2.0
        if hi > 1e7:
            return math.inf
    return float(optimize.brentq(lambda e: delta_fn(e) - delta, 0.0, hi, xtol=_ROOT_TOL, rtol=1e-15))


def _closed_form(cals: list[Calibration]):
    """(name, δ(ε) function, ε(δ) function) when a closed form applies, else None."""
    if not all(c.sampling == 1 for c in cals):
        return None
    if all(c.mechanism == "gaussian" for c in cals):
        mu = math.sqrt(sum(c.effective_steps * (c.sensitivity / c.sigma) ** 2 for c in cals))

        def dfn(e):
            return _gauss_delta(e, mu)

        return (
            f"closed form: Gaussian composition, μ = {mu:.6g} (Balle & Wang 2018, Thm 8)",
            dfn,
            lambda d: math.inf if d == 0 else _invert(dfn, d, mu * mu / 2 + 2 * mu),
        )
    if any(c.mechanism == "zcdp" for c in cals) and all(
        c.mechanism in ("zcdp", "gaussian", "discrete_gaussian") for c in cals
    ):
        rho = sum(
            c.effective_steps * (c.rho if c.mechanism == "zcdp" else c.sensitivity**2 / (2 * c.sigma**2)) for c in cals
        )
        return (
            f"zCDP: ρ = {rho:.6g} summed, Canonne-Kamath-Steinke 2020 Prop. 12 conversion",
            lambda e: zcdp_delta(rho, e),
            lambda d: math.inf if d == 0 else zcdp_epsilon(rho, d),
        )
    if len(cals) != 1:
        return None
    c = cals[0]
    if c.mechanism == "laplace" and c.effective_steps == 1:
        e0 = c.sensitivity / c.scale
        return (
            f"closed form: one Laplace step, Δ/b = {e0:.6g}",
            lambda e: 0.0 if e >= e0 else -math.expm1((e - e0) / 2.0),
            lambda d: max(0.0, e0 + 2.0 * math.log1p(-d)),
        )
    if c.mechanism in ("pure_dp", "approx_dp"):
        e0, d0, k = c.step_epsilon, c.step_delta, c.effective_steps
        floor = -math.expm1(k * math.log1p(-d0))  # 1 − (1 − δ0)^k: no ε reaches a smaller δ

        def dfn(e):
            return _kov_delta(e, e0, d0, k)

        def efn(d):
            if d < floor:
                return math.inf
            return k * e0 if d == 0 else _invert(dfn, d, k * e0)

        return (
            f"closed form: optimal composition of {k} ({e0:.6g}, {d0:.3g})-DP steps "
            "(Kairouz, Oh & Viswanath 2015, Thm 3.3)",
            dfn,
            efn,
        )
    return None


# ---------------------------------------------------------------------------------------------------------------
# dp-accounting: PLD and RDP
# ---------------------------------------------------------------------------------------------------------------
def _pld_one(c: Calibration, *, pessimistic: bool, h: float):
    from dp_accounting.pld import common
    from dp_accounting.pld import privacy_loss_distribution as pld
    from dp_accounting.privacy_accountant import NeighboringRelation as NR

    dots = pessimistic  # connect-the-dots only exists in its pessimistic form
    m, q = c.mechanism, c.sampling
    kw = dict(pessimistic_estimate=pessimistic, value_discretization_interval=h, sampling_prob=q)
    if m == "gaussian":
        if q < 1 and c.neighbours == "replace":
            d = pld.from_gaussian_mechanism(
                c.sigma,
                sensitivity=c.sensitivity / 2.0,
                use_connect_dots=dots,
                neighboring_relation=NR.REPLACE_ONE,
                **kw,
            )
        else:
            d = pld.from_gaussian_mechanism(c.sigma, sensitivity=c.sensitivity, use_connect_dots=dots, **kw)
    elif m == "laplace":
        d = pld.from_laplace_mechanism(c.scale, sensitivity=c.sensitivity, use_connect_dots=dots, **kw)
    elif m == "discrete_laplace":
        d = pld.from_discrete_laplace_mechanism(
            1.0 / c.scale, sensitivity=int(c.sensitivity), use_connect_dots=dots, **kw
        )
    elif m == "discrete_gaussian":
        d = pld.from_discrete_gaussian_mechanism(c.sigma, sensitivity=int(c.sensitivity), use_connect_dots=dots, **kw)
    elif m in ("pure_dp", "approx_dp"):
        e0, d0 = c.step_epsilon, c.step_delta
        if pessimistic:
            d = pld.from_privacy_parameters(
                common.DifferentialPrivacyParameters(e0, d0), value_discretization_interval=h
            )
        else:  # the worst pair of laws for (ε0, δ0)-DP, discretised optimistically
            a, b = math.exp(e0) / (1 + math.exp(e0)), 1 / (1 + math.exp(e0))
            lo = {0: d0, 1: (1 - d0) * a, 2: (1 - d0) * b, 3: 0.0}
            up = {0: 0.0, 1: (1 - d0) * b, 2: (1 - d0) * a, 3: d0}
            logs = lambda pm: {k: math.log(v) for k, v in pm.items() if v > 0}  # noqa: E731
            d = pld.from_two_probability_mass_functions(
                logs(lo), logs(up), pessimistic_estimate=False, value_discretization_interval=h
            )
    else:
        raise ValueError(f"mechanism={m!r} has no privacy-loss distribution (use accountant='exact')")
    k = c.effective_steps
    return d.self_compose(k) if k > 1 else d


def _pld(cals, *, pessimistic: bool, h: float):
    total = None
    for c in cals:
        d = _pld_one(c, pessimistic=pessimistic, h=h)
        total = d if total is None else total.compose(d)
    return total


def _rdp_event(c: Calibration):
    from dp_accounting import dp_event as E

    m = c.mechanism
    if m == "gaussian":
        ev = E.GaussianDpEvent(c.sigma / c.sensitivity)
    elif m == "laplace":
        ev = E.LaplaceDpEvent(c.scale / c.sensitivity)
    elif m == "discrete_gaussian":  # the discrete Gaussian is Δ²/(2σ²)-zCDP (Canonne, Kamath & Steinke 2020)
        ev = E.ZCDpEvent(c.sensitivity**2 / (2 * c.sigma**2))
    elif m == "zcdp":
        ev = E.ZCDpEvent(c.rho)
    elif m == "pure_dp":  # binary randomised response with flip probability 1/(1 + e^ε0) is the worst case
        ev = E.RandomizedResponseDpEvent(2.0 / (1.0 + math.exp(c.step_epsilon)), 2)
    else:
        return None
    if c.sampling < 1:
        ev = E.PoissonSampledDpEvent(c.sampling, ev)
    k = c.effective_steps
    return E.SelfComposedDpEvent(ev, k) if k > 1 else ev


def _rdp_accountant(cals):
    from dp_accounting import rdp
    from dp_accounting.privacy_accountant import NeighboringRelation as NR

    events = [_rdp_event(c) for c in cals]
    if any(e is None for e in events):
        return None
    if any(c.sampling < 1 for c in cals):  # dp-accounting's default orders (fractional high orders are slow)
        orders = [1 + x / 10.0 for x in range(1, 100)] + list(range(11, 64)) + [128, 256, 512]
    else:  # closed-form RDP curves: a dense grid costs nothing and tightens the cross-check
        orders = list(np.concatenate([1 + np.geomspace(1e-3, 1.0, 60)[:-1], np.geomspace(2.0, 1e4, 400)]))
    sampled = any(c.sampling < 1 for c in cals)
    if sampled and cals[0].neighbours == "replace":
        return None  # no RDP bound for Poisson sampling under replacement in dp-accounting
    # unsampled events have the same RDP under either relation (given Δ); REPLACE_ONE also admits randomised response
    rel = NR.ADD_OR_REMOVE_ONE if sampled else NR.REPLACE_ONE
    try:
        acc = rdp.RdpAccountant(orders=orders, neighboring_relation=rel)
        for e in events:
            acc.compose(e)
    except Exception:  # unsupported event / relation combination in dp-accounting
        return None
    return acc


def _default_h(cals) -> float:
    """PLD grid: 1e-4, or 1e-3 beyond 100 composed steps or with subsampling (keeps a call near 0.1 s)."""
    steps = sum(c.effective_steps for c in cals)
    return 1e-4 if steps <= 100 and all(c.sampling == 1 for c in cals) else 1e-3


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
