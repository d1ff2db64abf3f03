"""Stated noise calibrations, accounting records and the closed-form ε(δ) of the calibrations that have one.

:class:`Calibration` (a mechanism, its sensitivity and noise, the number of steps, Poisson subsampling and the
composition rule; the accepted values are :data:`MECHANISMS`), :class:`Accounting` (the ε at a δ with its numerical
bracket and the accountant that gave it), and the closed forms used by :func:`~htdp_verify.privacy.accounting.account`
before any numerical accountant: composed Gaussians (Balle & Wang 2018, Thm 8; Dong, Roth & Su 2022, Cor. 2.13),
one Laplace step, k black-box (ε0, δ0)-DP steps (Kairouz, Oh & Viswanath 2015, Thm 3.3) and ρ-zCDP steps
(Canonne, Kamath & Steinke 2020, Prop. 12). The conventions are stated in :mod:`htdp_verify.privacy.accounting`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from scipy import optimize, special, stats

from .._validate import check_int, check_positive, check_prob
from ..claims import NEIGHBOUR_RELATIONS
from .guarantee import zcdp_delta, zcdp_epsilon

__all__ = ["Calibration", "Accounting", "MECHANISMS", "ACCOUNTANTS"]

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
