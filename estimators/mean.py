"""Robust (differentially private) mean estimators for heavy-tailed data, from the papers under test.

Contents
--------
Numerics of the Catoni–Giulini soft truncation (shared by Hu et al. 2022 and Wang et al.):

* :func:`soft_truncation` — φ (Hu et al. 2022, eq. (2)).
* :func:`expected_soft_truncation` — E φ(a + bZ), Z ~ N(0, 1), evaluated **stably** (see below).
* :func:`expected_soft_truncation_closed_form` — the closed form as printed (Hu et al. 2022, eq. (5) and Appendix
  "Explicit form of Ĉ"); catastrophically unstable for large |a|, kept only as an audit canary.
* :func:`smoothed_soft_truncation` — ψ_β(a) = E_η φ(a(1 + η)), η ~ N(0, 1/β) (Hu et al. 2022, eq. (4)).
* :func:`smoothed_bound`, :func:`soft_truncation_sensitivity`, :func:`hu_lemma4_scale`, :func:`hu_lemma4_bound`.

Estimators (all under replace-one neighbours with public n):

* :class:`SmoothedSoftTruncationMean` — non-private 1-d / coordinate-wise estimator x̂(s, β) (Hu et al. 2022, eq. (4)).
* :class:`PrivateSmoothedSoftTruncationMean` — x̂(s, β) + Laplace noise, pure ε-DP.
* :class:`WangCentralMean`, :class:`WangLocalMean` — Wang et al. (DP-EM paper) Theorem 2 (central, Gaussian) and
  Theorem 3 (local) with their scale choices.
* :class:`SimpleClippingMean` — Zhao et al. 2024, Algorithm 2 (clip to an ℓ2 ball + Gaussian, ρ-zCDP).
* :class:`IterativeUpdatingMean` — Zhao et al. 2024, Algorithm 3 (noisy group means + distance-estimation iteration).

Stable evaluation of E φ(a + bZ)
--------------------------------
The printed closed form  a(1 − b²/2) − a³/6 + Ĉ(a, b)  adds terms of size |a|³ that cancel to a result bounded by
2√2/3; in float64 the result is wrong from |a| ≈ 1e4 and unbounded from |a| ≈ 1e5 (e.g. −121 at a = b = 1e6), which
destroys the sensitivity bound the privacy proofs rely on. We instead use (a ≥ 0 w.l.o.g., φ is odd)::

    E φ(a + bZ) = c·[P(a + bZ > √2) − P(a + bZ < −√2)] + ∫_{−√2}^{√2} p(u) N(u; a, b²) du,   p(u) = u − u³/6,

with four regimes:
  1. the Gaussian bulk (±38.5 sd, mass outside < 1e-320) lies inside the band: exact polynomial moment
     a(1 − a²/6 − b²/2) (no cancellation, |a| ≤ √2);
  2. the bulk lies above the band: c;
  3. moderate |a| ≤ 4 and b ∈ [1e-2, 4]: the closed form (accurate to ~1e-14 there);
  4. otherwise: tail probabilities with ``scipy.special.ndtr`` plus composite Gauss–Legendre (6 panels × 16 nodes)
     of the bounded band integral **in u-space** (so a + bZ is never formed), window clipped to ±12 sd.
For ψ_β with |a| > 1e100 (or a = ±inf after x/s overflows) the limit c·erf(√(β/2)) is returned (the correction is
O(a⁻²)). Agreement with a 40+-digit mpmath evaluation of the exact closed form: |error| ≤ 3e-15 absolute over
a ∈ ±[1e-300, 1e300], b ∈ [1e-300, 1e300]; relative error ≤ 6e-15 for ψ_β, β ∈ [0.5, 10], a ∈ [1e-12, 1e300]
(the printed closed form: relative error > 1e-6 from a ≈ 2e3, outside the bound from a ≈ 1e5, non-finite from a ≈ 1e103). As a final guard that is a
no-op in exact arithmetic, results are clipped to the proven bound (c for E φ(a + bZ); c·erf(√(β/2)) for ψ_β).
"""
from __future__ import annotations

import math

import numpy as np
from scipy import optimize, special

from htdp_verify._validate import check_int, check_positive, check_prob, check_rng
from htdp_verify.privacy import PrivacyGuarantee

from .base import DeterministicEstimator, Estimator, as_data

__all__ = [
    "SOFT_TRUNCATION_BOUND",
    "soft_truncation",
    "expected_soft_truncation",
    "expected_soft_truncation_closed_form",
    "smoothed_soft_truncation",
    "smoothed_bound",
    "soft_truncation_statistic",
    "soft_truncation_sensitivity",
    "hu_lemma4_scale",
    "hu_lemma4_bound",
    "SmoothedSoftTruncationMean",
    "PrivateSmoothedSoftTruncationMean",
    "wang_eps_tilde",
    "WangCentralMean",
    "WangLocalMean",
    "rho_for_target",
    "shuffle_amplified_epsilon",
    "calibrate_group_rho",
    "SimpleClippingMean",
    "IterativeUpdatingMean",
]

_SQRT2 = math.sqrt(2.0)
SOFT_TRUNCATION_BOUND = 2.0 * _SQRT2 / 3.0  #: sup |φ| = 2√2/3
_C = SOFT_TRUNCATION_BOUND
_SQRT_2PI = math.sqrt(2.0 * math.pi)
_K_BULK = 38.5  # N(0,1) mass beyond ±38.5 is < 1e-320: treated as exactly zero
_K_WINDOW = 12.0  # Gauss–Legendre window half-width in sd (mass beyond < 4e-33, |p| ≤ c on the band)
_HUGE_A = 1e100  # ψ_β(a) = limit − O(a⁻²) beyond this


def _gauss_legendre_panels(panels: int, nodes: int):
    x, w = np.polynomial.legendre.leggauss(nodes)
    edges = np.linspace(-1.0, 1.0, panels + 1)
    h = (edges[1] - edges[0]) / 2.0
    centres = (edges[:-1] + edges[1:]) / 2.0
    return (centres[:, None] + h * x[None, :]).ravel(), np.tile(h * w, panels)


_GL_NODES, _GL_WEIGHTS = _gauss_legendre_panels(6, 16)


# ---------------------------------------------------------------------------------------------------------------
# φ and its Gaussian smoothing
# ---------------------------------------------------------------------------------------------------------------
def soft_truncation(x) -> np.ndarray:
    """Catoni–Giulini soft truncation φ(x) = x − x³/6 on |x| ≤ √2, ±2√2/3 outside (Hu et al. 2022, eq. (2))."""
    x = np.asarray(x, dtype=float)
    if np.any(np.isnan(x)):
        raise ValueError("x must not contain NaN")
    inside = np.abs(x) <= _SQRT2
    xi = np.where(inside, x, 0.0)
    return np.where(inside, xi - xi**3 / 6.0, np.sign(x) * _C)


def _ab_arrays(a, b):
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    if np.any(np.isnan(a)):
        raise ValueError("a must not contain NaN")
    if np.any(np.isnan(b)) or np.any(b < 0):
        raise ValueError("b must be >= 0 (and not NaN)")
    a, b = np.broadcast_arrays(a, b)
    if np.any(np.isinf(a) & np.isinf(b)):
        raise ValueError("a and b must not both be infinite (E φ(a + bZ) is undefined)")
    return a, b


def _closed_form_core(a, b):
    """Printed closed form (Hu et al. 2022 Appendix, Ĉ = T1 + … + T5), elementwise, b > 0; no safeguards."""
    with np.errstate(over="ignore", invalid="ignore", divide="ignore", under="ignore"):
        vm = (_SQRT2 - a) / b
        vp = (_SQRT2 + a) / b
        fm = special.ndtr(-vm)
        fp = special.ndtr(-vp)
        em = np.exp(-0.5 * vm * vm)
        ep = np.exp(-0.5 * vp * vp)
        t1 = _C * (fm - fp)
        t2 = -(a - a**3 / 6.0) * (fm + fp)
        t3 = b / _SQRT_2PI * (1.0 - a * a / 2.0) * (ep - em)
        t4 = a * b * b / 2.0 * (fp + fm + (vp * ep + vm * em) / _SQRT_2PI)
        t5 = b**3 / (6.0 * _SQRT_2PI) * ((2.0 + vm * vm) * em - (2.0 + vp * vp) * ep)
        return a * (1.0 - b * b / 2.0) - a**3 / 6.0 + t1 + t2 + t3 + t4 + t5


def expected_soft_truncation_closed_form(a, b) -> np.ndarray:
    """E φ(a + bZ) by the closed form **as printed** (Hu et al. 2022, eq. (5) + Appendix Ĉ(a, b)).

    UNSTABLE: catastrophic cancellation for |a| ≳ 1e4 (values far outside ±2√2/3 from |a| ≈ 1e5). Kept only to
    reproduce the paper's formula literally (audit canary, Hu spec check P6); use :func:`expected_soft_truncation`.
    ``b == 0`` returns φ(a).
    """
    a, b = _ab_arrays(a, b)
    out = _closed_form_core(a, np.where(b > 0, b, 1.0))
    return np.where(b > 0, out, soft_truncation(a))


def expected_soft_truncation(a, b) -> np.ndarray:
    """E φ(a + bZ) for Z ~ N(0, 1), evaluated stably (module docstring); result in [−2√2/3, 2√2/3].

    Parameters: ``a`` location (any real, ±inf allowed when ``b`` is finite), ``b`` ≥ 0 spread; broadcast.
    Reference: Hu et al. 2022, eq. (5) and the Appendix (closed form); evaluation here is ours.
    """
    a, b = _ab_arrays(a, b)
    sgn = np.where(a < 0, -1.0, 1.0)
    aa = np.abs(a)
    out = np.empty(aa.shape, dtype=float)
    with np.errstate(over="ignore", invalid="ignore"):
        inside = aa + _K_BULK * b <= _SQRT2
        above = (aa - _K_BULK * b >= _SQRT2) & ~inside
    mixed = ~(inside | above)
    ai, bi = aa[inside], b[inside]
    out[inside] = ai * (1.0 - ai * ai / 6.0 - bi * bi / 2.0)
    out[above] = _C
    am, bm = aa[mixed], b[mixed]
    res = np.empty(am.shape, dtype=float)
    moderate = (am <= 4.0) & (bm >= 1e-2) & (bm <= 4.0)
    res[moderate] = _closed_form_core(am[moderate], bm[moderate])
    far = ~moderate
    if np.any(far):
        res[far] = _band_quadrature(am[far], bm[far])
    out[mixed] = res
    return np.clip(sgn * out, -_C, _C)  # guard: no-op in exact arithmetic


def _band_quadrature(a, b, chunk: int = 20000):
    """c·[P(u > √2) − P(u < −√2)] + ∫_band p(u) N(u; a, b²) du, u-space Gauss–Legendre (a ≥ 0, b > 0)."""
    out = np.empty(a.shape, dtype=float)
    for start in range(0, a.size, chunk):
        sl = slice(start, start + chunk)
        am, bm = a[sl], b[sl]
        with np.errstate(over="ignore", invalid="ignore", divide="ignore", under="ignore"):
            upper = (_SQRT2 - am) / bm
            lower = (-_SQRT2 - am) / bm
            outer = _C * (special.ndtr(-upper) - special.ndtr(lower))
            lo = np.maximum(-_SQRT2, am - _K_WINDOW * bm)
            hi = np.minimum(_SQRT2, am + _K_WINDOW * bm)
            mid = (lo + hi) / 2.0
            half = np.maximum((hi - lo) / 2.0, 0.0)
            u = mid[:, None] + half[:, None] * _GL_NODES[None, :]
            z = (u - am[:, None]) / bm[:, None]
            dens = np.exp(-0.5 * z * z) / (_SQRT_2PI * bm[:, None])
            band = half * np.sum(_GL_WEIGHTS[None, :] * (u - u**3 / 6.0) * dens, axis=1)
        out[sl] = outer + np.where(hi > lo, band, 0.0)
    return out


def smoothed_bound(beta) -> float:
    """sup_a |ψ_β(a)| = (2√2/3)·erf(√(β/2)), attained as a → ±∞.

    Proof: for a > 0, ψ_β'(a) = E[W φ'(aW)] with W ~ N(1, 1/β); φ' is even and ≥ 0, so this equals
    ∫_0^∞ w φ'(aw)(n(w) − n(−w)) dw ≥ 0 because the N(1, 1/β) density satisfies n(w) ≥ n(−w) for w > 0. Hence ψ_β
    is non-decreasing on (0, ∞), odd, and its sup is the limit c·(P(W > 0) − P(W < 0)) = c·erf(√(β/2)).
    """
    beta = check_positive("beta", beta)
    return _C * math.erf(math.sqrt(beta / 2.0))


def smoothed_soft_truncation(a, beta, *, evaluation: str = "stable") -> np.ndarray:
    """ψ_β(a) = E_η φ(a(1 + η)), η ~ N(0, 1/β): the per-sample map of Hu et al. 2022, eq. (4) (= E φ(a + |a|Z/√β)).

    ``evaluation="stable"`` (default) uses :func:`expected_soft_truncation` and clips to ±:func:`smoothed_bound`
    (a no-op in exact arithmetic); ``"closed_form"`` evaluates the printed formula literally, without guard
    (audit canary only). ``a`` may be ±inf (x/s overflow): the limit ±c·erf(√(β/2)) is returned.
    """
    beta = check_positive("beta", beta)
    a = np.asarray(a, dtype=float)
    if np.any(np.isnan(a)):
        raise ValueError("a must not contain NaN")
    b = np.abs(a) / math.sqrt(beta)
    if evaluation == "closed_form":
        return expected_soft_truncation_closed_form(np.where(np.isfinite(a), a, 0.0), np.where(np.isfinite(a), b, 0.0)) + \
            np.where(np.isfinite(a), 0.0, np.sign(a) * smoothed_bound(beta))
    if evaluation != "stable":
        raise ValueError(f"evaluation must be 'stable' or 'closed_form', got {evaluation!r}")
    bound = smoothed_bound(beta)
    huge = np.abs(a) > _HUGE_A
    safe_a = np.where(huge, 0.0, a)
    val = expected_soft_truncation(safe_a, np.where(huge, 0.0, b))
    val = np.where(huge, np.sign(a) * bound, val)
    return np.clip(val, -bound, bound)


def _as_matrix(data):
    x = as_data(data)
    return (x[:, None], True) if x.ndim == 1 else (x, False)


def _out(v, was_1d):
    v = np.asarray(v, dtype=float)
    return v[..., 0] if was_1d else v


def soft_truncation_statistic(data, scale, beta, *, evaluation: str = "stable") -> np.ndarray:
    """x̂(s, β) = (s/n) Σ_i ψ_β(x_i/s), coordinate-wise (Hu et al. 2022, eq. (4); Algs. 1 and 5, step 4).

    ``data`` of shape (n,) gives a 0-d array; shape (n, d) gives shape (d,).
    """
    scale = check_positive("scale", scale)
    x, was_1d = _as_matrix(data)
    with np.errstate(over="ignore"):
        a = x / scale  # may overflow to ±inf for tiny scales: handled by the limit
    psi = smoothed_soft_truncation(a, beta, evaluation=evaluation)
    return _out(scale * np.mean(psi, axis=0), was_1d)


def soft_truncation_sensitivity(n, scale, beta, *, kind: str = "paper") -> float:
    """Replace-one sensitivity (per coordinate, ℓ∞) of x̂(s, β) on n records.

    ``kind="paper"``: 4√2·s/(3n) (Hu et al. 2022, §4, proof of Thm 1: |φ| ≤ 2√2/3);
    ``kind="tight"``: 4√2·s/(3n)·erf(√(β/2)) (sup |ψ_β|, see :func:`smoothed_bound`); attained in the limit of one
    record moved from +∞ to −∞.
    """
    n = check_int("n", n, minimum=1)
    scale = check_positive("scale", scale)
    if kind == "paper":
        bound = _C
        check_positive("beta", beta)
    elif kind == "tight":
        bound = smoothed_bound(beta)
    else:
        raise ValueError(f"kind must be 'paper' or 'tight', got {kind!r}")
    return 2.0 * bound * scale / n


def hu_lemma4_scale(n, tau, beta, zeta) -> float:
    """s* = √(nτ(1 + 1/β) / (2(β/2 + log(2/ζ)))), the minimiser of the Lemma 4 bound (Hu et al. 2022, Lemma 4)."""
    n = check_int("n", n, minimum=1)
    tau = check_positive("tau", tau)
    beta = check_positive("beta", beta)
    zeta = check_prob("zeta", zeta)
    return math.sqrt(n * tau * (1.0 + 1.0 / beta) / (2.0 * (beta / 2.0 + math.log(2.0 / zeta))))


def hu_lemma4_bound(n, tau, scale, beta, zeta) -> float:
    """Explicit-constant error bound (τ/(2s))(1/β + 1) + (s/n)(β/2 + log(2/ζ)), w.p. ≥ 1 − ζ, when E x² ≤ τ
    (Hu et al. 2022, Lemma 4, eq. (12)); non-private estimator."""
    n = check_int("n", n, minimum=1)
    tau = check_positive("tau", tau)
    scale = check_positive("scale", scale)
    beta = check_positive("beta", beta)
    zeta = check_prob("zeta", zeta)
    return tau / (2.0 * scale) * (1.0 / beta + 1.0) + scale / n * (beta / 2.0 + math.log(2.0 / zeta))


def _check_choice(name, value, choices):
    if value not in choices:
        raise ValueError(f"{name} must be one of {choices}, got {value!r}")
    return value


# ---------------------------------------------------------------------------------------------------------------
# Hu et al. 2022
# ---------------------------------------------------------------------------------------------------------------
class SmoothedSoftTruncationMean(DeterministicEstimator):
    """Non-private smoothed soft-truncation mean x̂(s, β), 1-d or coordinate-wise (Hu et al. 2022, §4, eq. (4);
    Catoni–Giulini 2017; Holland 2019).

    Parameters: ``scale`` s > 0 (units of the data), ``beta`` β > 0 (precision of the multiplicative smoothing
    noise η ~ N(0, 1/β), integrated out analytically), ``evaluation`` "stable" (default) or "closed_form" (canary).
    ``privacy`` is None. ``sensitivity(n, kind)`` gives the replace-one bound used by the private versions.
    """

    privacy = None
    reference = "Hu et al. 2022, §4, eqs. (2)-(5)"

    def __init__(self, scale: float, beta: float = 1.0, *, evaluation: str = "stable"):
        self.scale = check_positive("scale", scale)
        self.beta = check_positive("beta", beta)
        self.evaluation = _check_choice("evaluation", evaluation, ("stable", "closed_form"))

    def statistic(self, data) -> np.ndarray:
        return soft_truncation_statistic(data, self.scale, self.beta, evaluation=self.evaluation)

    def sensitivity(self, n: int, kind: str = "paper") -> float:
        return soft_truncation_sensitivity(n, self.scale, self.beta, kind=kind)

class PrivateSmoothedSoftTruncationMean(Estimator):
    """x̂(s, β) + Laplace noise: pure ε-DP, replace-one neighbours (Hu et al. 2022, §4 estimator (4) with the Laplace
    mechanism of Def. 2; the sensitivity 4√2 s/(3n) is the one in the proof of Thm 1).

    For data of shape (n, d) the estimator is coordinate-wise; the ℓ1 sensitivity of the vector is d·Δ∞, so each
    coordinate receives Lap(d·Δ∞/ε). Parameters: ``epsilon`` > 0, ``scale`` s > 0, ``beta`` β > 0,
    ``sensitivity`` "paper" (4√2 s/(3n), default) or "tight" (× erf(√(β/2)), also valid, see :func:`smoothed_bound`),
    ``evaluation`` "stable" (default) or "closed_form" (literal printed formula: NOT private for heavy tails; canary).
    """

    reference = "Hu et al. 2022, §4, eq. (4) + Laplace mechanism (Def. 2)"

    def __init__(self, epsilon: float, scale: float, beta: float = 1.0, *, sensitivity: str = "paper",
                 evaluation: str = "stable"):
        self.epsilon = check_positive("epsilon", epsilon)
        self.scale = check_positive("scale", scale)
        self.beta = check_positive("beta", beta)
        self.sensitivity_kind = _check_choice("sensitivity", sensitivity, ("paper", "tight"))
        self.evaluation = _check_choice("evaluation", evaluation, ("stable", "closed_form"))
        self.privacy = PrivacyGuarantee(self.epsilon, 0.0, "replace")

    def statistic(self, data) -> np.ndarray:
        return soft_truncation_statistic(data, self.scale, self.beta, evaluation=self.evaluation)

    def sensitivity(self, n: int) -> float:
        """Per-coordinate (ℓ∞) replace-one sensitivity for n records."""
        return soft_truncation_sensitivity(n, self.scale, self.beta, kind=self.sensitivity_kind)

    def noise_scale(self, n: int, d: int = 1) -> float:
        """Laplace scale per coordinate: d·Δ∞/ε (ℓ1 sensitivity over ε)."""
        return check_int("d", d, minimum=1) * self.sensitivity(n) / self.epsilon

    def sample(self, data, size: int, *, rng: np.random.Generator) -> np.ndarray:
        size = check_int("size", size, minimum=1)
        check_rng(rng)
        x = as_data(data)
        stat = self.statistic(x)
        d = 1 if x.ndim == 1 else x.shape[1]
        return stat + rng.laplace(0.0, self.noise_scale(x.shape[0], d), size=(size,) + stat.shape)

    def __call__(self, data, *, rng: np.random.Generator) -> np.ndarray:
        return self.sample(data, 1, rng=rng)[0]


# ---------------------------------------------------------------------------------------------------------------
# Wang et al. (DP-EM paper)
# ---------------------------------------------------------------------------------------------------------------
def wang_eps_tilde(epsilon, delta, *, variant: str = "proof") -> float:
    """ε̃ with ρ = ε̃² ⇒ (ε, δ)-DP exactly: √(ln(1/δ) + ε) − √ln(1/δ) (Wang et al., proof of Thm 4).

    ``variant="as_printed"`` returns the literal Algorithm 2 line 1, "√log(1/δ) + ε − √log(1/δ)" = ε (a typo: ρ = ε²
    is not (ε, δ)-DP).
    """
    epsilon = check_positive("epsilon", epsilon)
    delta = check_prob("delta", delta)
    _check_choice("variant", variant, ("proof", "as_printed"))
    if variant == "as_printed":
        return epsilon
    L = math.log(1.0 / delta)
    return epsilon / (math.sqrt(L + epsilon) + math.sqrt(L))  # = √(L+ε) − √L, without cancellation


def rho_for_target(epsilon, delta) -> float:
    """Largest ρ with ρ + 2√(ρ ln(1/δ)) ≤ ε (inverse of Bun–Steinke 2016, Prop. 1.3): ρ = ε̃²."""
    return wang_eps_tilde(epsilon, delta) ** 2


class _WangBase(Estimator):
    def __init__(self, epsilon, delta, tau, zeta, *, calibration, variant, scale, lam):
        self.epsilon = check_positive("epsilon", epsilon)
        self.delta = check_prob("delta", delta)
        self.tau = check_positive("tau", tau)
        self.zeta = check_prob("zeta", zeta)
        self.calibration = _check_choice("calibration", calibration, ("zcdp", "classic"))
        self.variant = _check_choice("variant", variant, ("proof", "as_printed"))
        if self.calibration == "classic" and self.epsilon >= 1:
            raise ValueError("epsilon must be < 1 for calibration='classic' (σ = Δ√(2 ln(1.25/δ))/ε)")
        if self.calibration == "classic" and self.variant == "as_printed":
            raise ValueError("variant='as_printed' (ε̃ = ε) only applies to calibration='zcdp'")
        self.scale = None if scale is None else check_positive("scale", scale)
        self.lam = None if lam is None else check_positive("lam", lam)
        self.eps_tilde = wang_eps_tilde(self.epsilon, self.delta, variant=self.variant)
        if self.calibration == "zcdp" and self.variant == "proof":
            self.privacy = PrivacyGuarantee.from_zcdp(self.eps_tilde**2, self.delta)
        elif self.calibration == "zcdp":
            self.privacy = PrivacyGuarantee(
                self.epsilon, self.delta, "replace",
                conversion="claimed (ε, δ); noise uses ε̃ = ε as printed in Alg. 2 line 1, i.e. ρ = ε² "
                           f"(true (ε, δ) via Bun–Steinke: ε = {self.epsilon**2 + 2 * math.sqrt(self.epsilon**2 * math.log(1 / self.delta)):.4g})")
        else:
            self.privacy = PrivacyGuarantee(self.epsilon, self.delta, "replace",
                                            conversion="classic Gaussian mechanism σ = Δ√(2 ln(1.25/δ))/ε, ε < 1")

    def _sigma_per_unit_sensitivity(self, d: int) -> float:
        """σ / Δ for a d-coordinate release whose per-coordinate sensitivity is Δ (ℓ2 sensitivity √d·Δ)."""
        if self.calibration == "zcdp":
            return math.sqrt(d) / (math.sqrt(2.0) * self.eps_tilde)
        return math.sqrt(d) * math.sqrt(2.0 * math.log(1.25 / self.delta)) / self.epsilon


class WangCentralMean(_WangBase):
    """Private heavy-tailed mean, central model (Wang et al., DP-EM paper, §4 mechanism (18) and Theorem 2).

    A(D) = (s/n) Σ ψ_λ(x_i/s) + N(0, σ²) with ψ_λ the smoothed soft truncation (λ = the paper's β), replace-one
    sensitivity Δ = 4√2 s/(3n). Coordinate-wise for (n, d) data with isotropic noise (ℓ2 sensitivity √d·Δ), as in
    Alg. 2 step 3.

    Parameters: ``epsilon``, ``delta`` (target (ε, δ)); ``tau`` ≥ E x² (raw second moment, public); ``zeta`` failure
    probability used by the scale choice; ``tuning`` "theorem2" (default: λ = √ln(1/ζ), s = √(nετ)/(ln(1/ζ)·ln^{1/4}(1/δ)))
    or "holland" (Lemma 1/2 = Wang et al. 2020: λ = 2 ln(1/ζ), s = √(nτ/(2 ln(1/ζ)))); ``scale``/``lam`` override;
    ``calibration`` "zcdp" (default: ρ = ε̃², the route of the Thm 4 proof, exact (ε, δ)) or "classic"
    (σ = Δ√(2 ln(1.25/δ))/ε, the paper's Def. 7; needs ε < 1); ``variant`` "proof" (default) or "as_printed"
    (ε̃ = ε as literally printed in Alg. 2 line 1: under-noised; the declared privacy stays the claimed (ε, δ) so an
    audit can show the gap). σ² is only given as O(s² ln(1/δ)/(ε²n²)) in (18); both calibrations are of that order.
    """

    reference = "Wang et al. (DP-EM), eq. (18), Theorem 2; Lemma 2 for tuning='holland'"

    def __init__(self, epsilon: float, delta: float, tau: float, zeta: float = 0.05, *, tuning: str = "theorem2",
                 calibration: str = "zcdp", variant: str = "proof", scale: float | None = None,
                 lam: float | None = None):
        self.tuning = _check_choice("tuning", tuning, ("theorem2", "holland"))
        super().__init__(epsilon, delta, tau, zeta, calibration=calibration, variant=variant, scale=scale, lam=lam)

    def parameters(self, n: int) -> tuple[float, float]:
        """(s, λ) used on n records."""
        n = check_int("n", n, minimum=1)
        lz = math.log(1.0 / self.zeta)
        if self.tuning == "theorem2":
            s = math.sqrt(n * self.epsilon * self.tau) / (lz * math.log(1.0 / self.delta) ** 0.25)
            lam = math.sqrt(lz)
        else:
            s = math.sqrt(n * self.tau / (2.0 * lz))
            lam = 2.0 * lz
        return (self.scale or s), (self.lam or lam)

    def sensitivity(self, n: int) -> float:
        s, _ = self.parameters(n)
        return 2.0 * _C * s / n

    def noise_std(self, n: int, d: int = 1) -> float:
        return self.sensitivity(n) * self._sigma_per_unit_sensitivity(d)

    def statistic(self, data) -> np.ndarray:
        x = as_data(data)
        s, lam = self.parameters(x.shape[0])
        return soft_truncation_statistic(x, s, lam)

    def sample(self, data, size: int, *, rng: np.random.Generator) -> np.ndarray:
        size = check_int("size", size, minimum=1)
        check_rng(rng)
        x = as_data(data)
        stat = self.statistic(x)
        d = 1 if x.ndim == 1 else x.shape[1]
        return stat + rng.normal(0.0, self.noise_std(x.shape[0], d), size=(size,) + stat.shape)

    def __call__(self, data, *, rng: np.random.Generator) -> np.ndarray:
        return self.sample(data, 1, rng=rng)[0]


class WangLocalMean(_WangBase):
    """Heavy-tailed mean in the local model (Wang et al., DP-EM paper, Theorem 3, mechanism (21)).

    User i reports r_i = s·ψ_λ(x_i/s) + N(0, σ_L²) (per-user sensitivity Δ_L = 4√2 s/3); the server outputs mean_i r_i.
    Each report is (ε, δ)-DP with respect to its user's input (LDP), hence the output is (ε, δ)-DP under replace-one
    neighbours (declared). ``reports(data, rng=...)`` gives the per-user reports for LDP audits.

    Scale (λ = √ln(1/ζ) in both variants): ``variant="proof"`` (default) s = n^{1/4}√(ετ)/(ln(1/ζ)·ln^{1/4}(1/δ))
    (proof of Thm 3; the one that balances (41)) and ε̃ = √(ln(1/δ)+ε) − √ln(1/δ); ``variant="as_printed"`` uses the
    theorem statement's s = (n√(ετ))^{1/4}/(…) and ε̃ = ε (Alg. 2 line 1 typo). ``calibration`` as in
    :class:`WangCentralMean`. ``sample`` draws the mean of n report noises directly as N(0, σ_L²/n) (same law).
    """

    reference = "Wang et al. (DP-EM), eq. (21), Theorem 3"

    def __init__(self, epsilon: float, delta: float, tau: float, zeta: float = 0.05, *, calibration: str = "zcdp",
                 variant: str = "proof", scale: float | None = None, lam: float | None = None):
        super().__init__(epsilon, delta, tau, zeta, calibration=calibration, variant=variant, scale=scale, lam=lam)

    def parameters(self, n: int) -> tuple[float, float]:
        n = check_int("n", n, minimum=1)
        lz = math.log(1.0 / self.zeta)
        denom = lz * math.log(1.0 / self.delta) ** 0.25
        if self.variant == "proof":
            s = n**0.25 * math.sqrt(self.epsilon * self.tau) / denom
        else:
            s = (n * math.sqrt(self.epsilon * self.tau)) ** 0.25 / denom
        return (self.scale or s), (self.lam or math.sqrt(lz))

    def sensitivity(self, n: int) -> float:
        """Per-user (local) sensitivity of one report, per coordinate: 4√2 s/3."""
        s, _ = self.parameters(n)
        return 2.0 * _C * s

    def noise_std(self, n: int, d: int = 1) -> float:
        """σ_L of one user's report."""
        return self.sensitivity(n) * self._sigma_per_unit_sensitivity(d)

    def _transformed(self, x):
        s, lam = self.parameters(x.shape[0])
        with np.errstate(over="ignore"):
            return s * smoothed_soft_truncation(x / s, lam)

    def reports(self, data, *, rng: np.random.Generator) -> np.ndarray:
        """Per-user randomised reports, shape like ``data``."""
        check_rng(rng)
        x = as_data(data)
        d = 1 if x.ndim == 1 else x.shape[1]
        return self._transformed(x) + rng.normal(0.0, self.noise_std(x.shape[0], d), size=x.shape)

    def sample(self, data, size: int, *, rng: np.random.Generator) -> np.ndarray:
        size = check_int("size", size, minimum=1)
        check_rng(rng)
        x = as_data(data)
        n = x.shape[0]
        d = 1 if x.ndim == 1 else x.shape[1]
        stat = np.mean(self._transformed(x), axis=0)
        return stat + rng.normal(0.0, self.noise_std(n, d) / math.sqrt(n), size=(size,) + stat.shape)

    def __call__(self, data, *, rng: np.random.Generator) -> np.ndarray:
        return np.mean(self.reports(data, rng=rng), axis=0)


# ---------------------------------------------------------------------------------------------------------------
# Zhao et al. 2024
# ---------------------------------------------------------------------------------------------------------------
def _clip_rows(x, radius):
    """clip_R applied to each row; the norm is computed overflow-free (rows of size ~1e300 keep their direction)."""
    peak = np.max(np.abs(x), axis=1, keepdims=True)
    safe = np.where(peak > 0, peak, 1.0)
    unit = np.linalg.norm(x / safe, axis=1, keepdims=True)  # in [1, √d] for non-zero rows, 0 for zero rows
    unit = np.where(unit > 0, unit, 1.0)
    with np.errstate(over="ignore"):  # overflowing branches are never selected
        norms = peak * unit  # may overflow to inf: the comparison below is still right
        factor = np.where(norms > radius, (radius / safe) / unit, 1.0)
    return x * factor


class SimpleClippingMean(Estimator):
    """Simple clipping mean estimator (Zhao et al. 2024, Algorithm 2, eqs. (12)–(13), Lemma 4).

    μ̂ = (1/n) Σ clip_R(x_i) + N(0, σ² I_d), clip_R(x) = x·min(1, R/‖x‖₂), σ² = 2R²/(n²ρ): ρ-zCDP under replace-one
    neighbours (ℓ2 sensitivity 2R/n), declared as (ρ + 2√(ρ ln(1/δ)), δ)-DP via
    ``PrivacyGuarantee.from_zcdp`` (Bun–Steinke 2016 Prop. 1.3). ``radius`` R must be public (chosen before seeing
    the data). 1-d data are treated as d = 1. Use :meth:`for_target` to pick ρ from a target (ε, δ).
    """

    reference = "Zhao et al. 2024, Alg. 2, eqs. (12)-(13), Lemma 4"

    def __init__(self, radius: float, rho: float, delta: float):
        self.radius = check_positive("radius", radius)
        self.rho = check_positive("rho", rho)
        self.delta = check_prob("delta", delta)
        self.privacy = PrivacyGuarantee.from_zcdp(self.rho, self.delta)

    @classmethod
    def for_target(cls, epsilon: float, delta: float, radius: float) -> "SimpleClippingMean":
        """Largest ρ whose Bun–Steinke conversion is (ε, δ)-DP."""
        return cls(radius, rho_for_target(epsilon, delta), delta)

    def sensitivity(self, n: int) -> float:
        return 2.0 * self.radius / check_int("n", n, minimum=1)

    def noise_std(self, n: int) -> float:
        return self.sensitivity(n) / math.sqrt(2.0 * self.rho)

    def statistic(self, data) -> np.ndarray:
        x, was_1d = _as_matrix(data)
        return _out(np.mean(_clip_rows(x, self.radius), axis=0), was_1d)

    def sample(self, data, size: int, *, rng: np.random.Generator) -> np.ndarray:
        size = check_int("size", size, minimum=1)
        check_rng(rng)
        x = as_data(data)
        stat = self.statistic(x)
        return stat + rng.normal(0.0, self.noise_std(x.shape[0]), size=(size,) + stat.shape)

    def __call__(self, data, *, rng: np.random.Generator) -> np.ndarray:
        return self.sample(data, 1, rng=rng)[0]


def _fmt_raw(eps0, m, delta_prime):
    e = math.exp(eps0)
    return math.log1p((e - 1.0) / (e + 1.0) * (8.0 * math.sqrt(e * math.log(4.0 / delta_prime)) / math.sqrt(m) + 8.0 * e / m))


def shuffle_amplified_epsilon(eps0: float, m: int, delta_prime: float) -> float:
    """ε after shuffling m ε0-DP local randomisers (Feldman–McMillan–Talwar 2021, Thm 3.8), with the min(ε0, ·)
    of Zhao et al. 2024 (79): min(ε0, ln(1 + (e^{ε0}−1)/(e^{ε0}+1)·(8√(e^{ε0} ln(4/δ'))/√m + 8e^{ε0}/m)))."""
    eps0 = check_positive("eps0", eps0)
    m = check_int("m", m, minimum=1)
    delta_prime = check_prob("delta_prime", delta_prime)
    return min(eps0, _fmt_raw(eps0, m, delta_prime))


def calibrate_group_rho(epsilon: float, delta: float, m: int) -> dict:
    """Per-group zCDP ρ0 that Zhao et al. 2024 Theorem 6 (shuffling amplification, (78)–(80)) certifies as (ε, δ)-DP.

    Constant-free inversion: δ' = δ/2, δ0 = δ/(2m·(e^ε + 1)·1.5) (so the δ of (80) is ≤ δ), ε0 = the largest value
    whose FMT bound is ≤ ε (bisection), ρ0 from ε0 = ρ0 + 2√(ρ0 ln(1/δ0)). Returns dict(rho0, eps0, delta0,
    delta_prime). NB: FMT's hypothesis (ε0-DP local randomisers for *any* change of a user's input) is not met by a
    group mean, which is only ε0-DP w.r.t. one record (Zhao spec §3.3, flaw C2): this is the paper's claim, under test.
    """
    epsilon = check_positive("epsilon", epsilon)
    delta = check_prob("delta", delta)
    m = check_int("m", m, minimum=1)
    delta_prime = delta / 2.0
    delta0 = delta / (2.0 * m * (math.exp(epsilon) + 1.0) * 1.5)

    def excess(e0):  # FMT bound without the min(ε0, ·), minus the target; increasing in ε0
        return _fmt_raw(e0, m, delta_prime) - epsilon

    eps0 = epsilon
    if excess(epsilon) < 0:  # amplification helps: find the root of the raw bound above ε
        hi = 2.0 * epsilon
        while excess(hi) < 0 and hi < 500.0:
            hi *= 2.0
        eps0 = optimize.brentq(excess, epsilon, hi, xtol=1e-13, rtol=1e-13)
        while excess(eps0) > 0:  # land on the admissible side of the root
            eps0 = float(np.nextafter(eps0, 0.0))
    L0 = math.log(1.0 / delta0)
    rho0 = (eps0 / (math.sqrt(L0 + eps0) + math.sqrt(L0))) ** 2
    return {"rho0": rho0, "eps0": float(eps0), "delta0": delta0, "delta_prime": delta_prime}


def _fibonacci_sphere(k: int) -> np.ndarray:
    i = np.arange(k) + 0.5
    phi = np.arccos(1.0 - 2.0 * i / k)
    theta = np.pi * (1.0 + 5.0**0.5) * i
    return np.stack([np.cos(theta) * np.sin(phi), np.sin(theta) * np.sin(phi), np.cos(phi)], axis=1)


class IterativeUpdatingMean(Estimator):
    """Iterative updating mean estimator (Zhao et al. 2024, Algorithm 3, eqs. (22)–(27), Theorem 6; after
    Cherapanamjeri–Flammarion–Bartlett 2019). Reconstructed from the proof skeleton (Zhao spec §2.3, [R-med]).

    1. Partition the n records into m groups (``partition="index"``: contiguous ``np.array_split`` of the row order;
       ``"random"``: a fresh uniform permutation per release, drawn from ``rng``); no record is dropped.
    2. Z_j = mean_{i ∈ B_j} clip_R(x_i) + N(0, σ_j² I), σ_j = (2R/|B_j|)/√(2ρ0): each Z_j is ρ0-zCDP w.r.t. one record.
    3. μ_0 = ``center0`` (public, default 0); for t < ``n_iter``: (d_t, g_t) = DistEst(Z, μ_t) — the largest r such that
       some unit u has ≥ ⌈τm⌉ of uᵀ(Z_j − μ_t) ≥ r (τ = ``vote``) — and μ_{t+1} = μ_t + γ·ℓ_t·g_t (γ = ``step``,
       step length ℓ_t set by ``step_rule``, below). Output μ_{t*}, t* = argmin_t d_t.

    Step rule (``step_rule``; the paper's line 7 and its γ are lost, spec §2.3 [R-med]):

    * ``"as_reconstructed"``: ℓ_t = d_t, the spec's reconstruction μ_{t+1} = μ_t + γ d_t g_t. d_t is the τ-*lower*
      quantile of gᵀ(Z − μ_t), i.e. the distance to the near edge of the bulk of the Z_j, not to its centre. From
      μ_0 outside the bulk (d_t > 0) with γ < 1 the iterates approach that edge from outside and never cross it,
      so in 1-d the output tends to the 10% (or 90%) quantile of the Z_j; when μ_t is inside the bulk (d_t < 0)
      the step points *away* from the centre. Measured bias (t_3 + 1, n = 2e4, R = 5, m = 20, ε = 1): median
      estimate 0.90 instead of 0.98 (the truncated mean μ_R); with R = 20, m = 50: 0.25.
    * ``"abs"``: ℓ_t = |d_t| — identical to the above whenever d_t > 0 (the regime of the paper's Lemma 7–8), so it
      does NOT remove the bias from an outside start (same 0.90 in the example above); kept for comparison.
    * ``"centered"`` (default): ℓ_t = (d_t + d_t⁺)/2 with d_t⁺ the τ-*upper* quantile of gᵀ(Z − μ_t) along the same
      g_t, i.e. the signed distance from μ_t to the midpoint of the projected 10%/90% quantiles. When μ_t is far
      (distance ≫ r) ℓ_t = d_t + O(r), so the contraction argument of Lemma 8 is unchanged up to the r it already
      tolerates; in 1-d the iteration contracts geometrically (factor 1 − γ) to the midpoint of the 10% and 90%
      quantiles, the fixed point stated in the spec, and t* = argmin d_t selects it. Same example: 0.98 (bias gone).
      In d ≥ 2 the step moves only along the chosen g_t and can stall where that direction's projected midpoint is
      μ_t (a symmetric 2-d cloud of 50 points: distance 0.59 to the centre vs 1.03 for the reconstructed rule).
    All three rules are post-processing of the (permutation-invariant) DistEst output, so privacy is unaffected.

    DistEst solver (attribute ``solver_kind``): d = 1 exact (order statistics); d = 2, 3 exact up to a direction grid
    (``n_directions`` points on the circle / Fibonacci sphere, default 180 / 1000; "grid-exact"); d > 3 **heuristic** (candidates:
    directions μ_t → Z_j, to the coordinate-wise median of Z, ±e_i and 64 random directions) — the paper's utility
    theorems assume an exact solver, so d > 3 results are labelled heuristic. All solvers are permutation-invariant in Z.

    Privacy (``calibration``): "shuffle" (default; the paper's Theorem 6) sets ρ0 by :func:`calibrate_group_rho` and
    declares (ε, δ)-DP, replace-one — a claim under audit (spec flaw C2); "parallel" sets ρ0 = ρ(ε, δ) with no
    amplification (one record touches one group; Bun–Steinke conversion), which is provably (ε, δ)-DP.

    ``sample``: with ``partition="index"`` the clipped group means are computed once and the noise (size, m, d) is
    drawn in one call; the iteration runs vectorised across the ``size`` releases (chunked for d ≥ 2). With
    ``"random"`` the partitions are drawn per release but still vectorised in chunks.
    """

    reference = "Zhao et al. 2024, Alg. 3, eqs. (22)-(27), Thm 6"

    def __init__(self, radius: float, n_groups: int, epsilon: float, delta: float, *, calibration: str = "shuffle",
                 partition: str = "index", n_iter: int = 30, step: float = 0.5, vote: float = 0.9,
                 n_directions: int | None = None, center0=None, step_rule: str = "centered"):
        self.radius = check_positive("radius", radius)
        self.n_groups = check_int("n_groups", n_groups, minimum=1)
        self.epsilon = check_positive("epsilon", epsilon)
        self.delta = check_prob("delta", delta)
        self.calibration = _check_choice("calibration", calibration, ("shuffle", "parallel"))
        self.partition = _check_choice("partition", partition, ("index", "random"))
        self.n_iter = check_int("n_iter", n_iter, minimum=1)
        self.step = check_positive("step", step)
        self.step_rule = _check_choice("step_rule", step_rule, ("centered", "abs", "as_reconstructed"))
        self.vote = check_prob("vote", vote)
        if self.vote <= 0.5:
            raise ValueError(f"vote must lie in (0.5, 1), got {vote!r}")
        self.n_directions = None if n_directions is None else check_int("n_directions", n_directions, minimum=4)
        if center0 is not None:
            center0 = np.asarray(center0, dtype=float)
            if center0.ndim > 1 or not np.all(np.isfinite(center0)):
                raise ValueError("center0 must be a finite scalar or 1-d array (public, data-independent)")
        self.center0 = center0
        if self.calibration == "shuffle":
            cal = calibrate_group_rho(self.epsilon, self.delta, self.n_groups)
            self.rho0 = cal["rho0"]
            self.privacy = PrivacyGuarantee(
                self.epsilon, self.delta, "replace",
                conversion=(f"Zhao et al. Thm 6: group ρ0={self.rho0:.4g}-zCDP -> (ε0={cal['eps0']:.4g}, "
                            f"δ0={cal['delta0']:.3g}) -> FMT21 shuffling amplification over m={self.n_groups} groups"))
        else:
            self.rho0 = rho_for_target(self.epsilon, self.delta)
            self.privacy = PrivacyGuarantee.from_zcdp(self.rho0, self.delta)

    # -- building blocks --------------------------------------------------------------------------------------
    def _check_groups(self, n):
        if self.n_groups > n:
            raise ValueError(f"n_groups must be <= number of records n={n}, got {self.n_groups}")

    def group_sizes(self, n: int) -> np.ndarray:
        self._check_groups(n)
        return np.array([len(g) for g in np.array_split(np.arange(n), self.n_groups)])

    def noise_std(self, n: int) -> np.ndarray:
        """Per-group noise σ_j = (2R/|B_j|)/√(2ρ0), shape (m,)."""
        return 2.0 * self.radius / self.group_sizes(n) / math.sqrt(2.0 * self.rho0)

    def _group_means(self, clipped, perm=None):
        """Clipped group means; perm of shape (k, n) gives k partitions at once -> (k, m, d)."""
        n = clipped.shape[0]
        sizes = self.group_sizes(n)
        starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
        if perm is None:
            return np.add.reduceat(clipped, starts, axis=0) / sizes[:, None]
        return np.add.reduceat(clipped[perm], starts, axis=1) / sizes[None, :, None]

    def _kth(self, m):
        return m - math.ceil(self.vote * m)  # 0-based index of the largest r with ≥ ⌈τm⌉ projections ≥ r

    def _directions(self, d, rng):
        if d == 2:
            k = self.n_directions or 180
            ang = np.arange(k) * (2.0 * np.pi / k)
            return np.stack([np.cos(ang), np.sin(ang)], axis=1)
        if d == 3:
            return _fibonacci_sphere(self.n_directions or 1000)
        g = rng.normal(size=(64, d))
        return np.concatenate([np.eye(d), -np.eye(d), g / np.linalg.norm(g, axis=1, keepdims=True)])

    @staticmethod
    def solver_kind_for(d: int) -> str:
        return "exact" if d == 1 else ("grid-exact" if d <= 3 else "heuristic")

    def _iterate(self, Z, rng):
        """Run the distance-estimation iteration on Z of shape (k, m, d); returns (k, d)."""
        k, m, d = Z.shape
        j = self._kth(m)
        mu = np.zeros((k, d)) if self.center0 is None else np.broadcast_to(self.center0, (k, d)).astype(float).copy()
        best_mu, best_d = mu.copy(), np.full(k, np.inf)
        if d == 1:
            zs = np.partition(Z[:, :, 0], sorted({j, m - 1 - j}), axis=1)  # only two order statistics are needed
            q_lo, q_hi = zs[:, j], zs[:, m - 1 - j]
            for _ in range(self.n_iter):
                up, down = q_lo - mu[:, 0], mu[:, 0] - q_hi
                dist = np.maximum(up, down)
                g = np.where(up >= down, 1.0, -1.0)
                better = dist < best_d
                best_d = np.where(better, dist, best_d)
                best_mu[better] = mu[better]
                # the far-side quantile along g: (g·(Z − μ)) has its τ-upper quantile at g = +1: q_hi − μ, g = −1: μ − q_lo
                far = np.where(g > 0, q_hi - mu[:, 0], mu[:, 0] - q_lo)
                mu = mu + (self.step * self._step_length(dist, far) * g)[:, None]
            return best_mu
        fixed = self._directions(d, rng)
        rows = np.arange(k)
        for _ in range(self.n_iter):
            diff = Z - mu[:, None, :]  # (k, m, d)
            if d <= 3:
                proj = np.einsum("ud,kmd->kum", fixed, diff)  # (k, K, m)
                dirs = None
            else:
                med = np.median(Z, axis=1) - mu
                cand = np.concatenate([diff, med[:, None, :]], axis=1)
                nrm = np.linalg.norm(cand, axis=2, keepdims=True)
                cand = np.where(nrm > 0, cand / np.where(nrm > 0, nrm, 1.0), 0.0)
                dirs = np.concatenate([cand, np.broadcast_to(fixed, (k,) + fixed.shape)], axis=1)
                proj = np.einsum("kud,kmd->kum", dirs, diff)
            r = np.partition(proj, j, axis=2)[:, :, j]  # (k, K): j-th smallest projection per direction
            best_u = np.argmax(r, axis=1)
            dist = r[rows, best_u]
            g = fixed[best_u] if dirs is None else dirs[rows, best_u]
            better = dist < best_d
            best_d = np.where(better, dist, best_d)
            best_mu[better] = mu[better]
            far = None
            if self.step_rule == "centered":  # (m−1−j)-th smallest projection along the chosen g
                far = np.partition(proj[rows, best_u], m - 1 - j, axis=1)[:, m - 1 - j]
            mu = mu + self.step * self._step_length(dist, far)[:, None] * g
        return best_mu

    def _step_length(self, dist, far):
        """Signed length of the step along g_t for ``step_rule`` (see the class docstring)."""
        if self.step_rule == "as_reconstructed":
            return dist
        if self.step_rule == "abs":
            return np.abs(dist)
        return 0.5 * (dist + far)  # "centered": midpoint of the τ-lower and τ-upper projected quantiles along g

    # -- public API ---------------------------------------------------------------------------------------------
    def sample(self, data, size: int, *, rng: np.random.Generator) -> np.ndarray:
        size = check_int("size", size, minimum=1)
        check_rng(rng)
        x, was_1d = _as_matrix(data)
        n, d = x.shape
        self._check_groups(n)
        if self.center0 is not None and self.center0.size not in (1, d):
            raise ValueError(f"center0 must have {d} coordinates, got {self.center0.size}")
        self.solver_kind = self.solver_kind_for(d)
        clipped = _clip_rows(x, self.radius)
        sig = self.noise_std(n)[None, :, None]
        m = self.n_groups
        n_dir = {1: 1, 2: self.n_directions or 180, 3: self.n_directions or 1000}.get(d, m + 2 * d + 65)
        per = max(1, int(4e6 // (m * d * n_dir)))
        if self.partition == "random":
            per = min(per, max(1, int(2e7 // (n * d))))
        base = self._group_means(clipped)[None] if self.partition == "index" else None
        out = np.empty((size, d))
        for start in range(0, size, per):
            k = min(per, size - start)
            if base is None:
                perm = rng.permuted(np.broadcast_to(np.arange(n), (k, n)), axis=1)
                means = self._group_means(clipped, perm)
            else:
                means = base
            Z = means + sig * rng.normal(size=(k, m, d))
            out[start:start + k] = self._iterate(Z, rng)
        return out[:, 0] if was_1d else out

    def __call__(self, data, *, rng: np.random.Generator) -> np.ndarray:
        return self.sample(data, 1, rng=rng)[0]
