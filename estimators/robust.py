"""Generic robust building blocks shared by several papers' estimators.

Contents
--------
Numerics of the Catoni–Giulini soft truncation (used by Hu et al. 2022, :mod:`estimators.hu2022`, and by Wang et
al.'s DP-EM means, :mod:`estimators.dpem`):

* :func:`soft_truncation` — φ (Hu et al. 2022, eq. (2)).
* :func:`expected_soft_truncation` — E φ(a + bZ), Z ~ N(0, 1), evaluated **stably** (see below).
* :func:`expected_soft_truncation_closed_form` — the closed form as printed (Hu et al. 2022, eq. (5) and Appendix
  "Explicit form of Ĉ"); catastrophically unstable for large |a|, kept only as an audit canary.
* :func:`smoothed_soft_truncation` — ψ_β(a) = E_η φ(a(1 + η)), η ~ N(0, 1/β) (Hu et al. 2022, eq. (4)).
* :func:`soft_truncation_statistic` — x̂(s, β) = (s/n) Σ ψ_β(x_i/s), coordinate-wise;
  :func:`smoothed_bound`, :func:`soft_truncation_sensitivity` — its range and replace-one sensitivity.

Clipping (used by Zhao et al. 2024, :mod:`estimators.zhao2024`):

* :func:`clip_rows` — clip_R(x) = x·min(1, R/‖x‖₂) per row, overflow-free.

Shape helpers: :func:`as_matrix` / :func:`from_matrix` (1-d data as an (n, 1) matrix and back).

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
(the printed closed form: relative error > 1e-6 from a ≈ 2e3, outside the bound from a ≈ 1e5, non-finite from
a ≈ 1e103). As a final guard that is a no-op in exact arithmetic, results are clipped to the proven bound
(c for E φ(a + bZ); c·erf(√(β/2)) for ψ_β).
"""

from __future__ import annotations

import math

import numpy as np
from scipy import special

from htdp_verify._validate import check_int, check_positive

from .base import as_data

__all__ = [
    "SOFT_TRUNCATION_BOUND",
    "soft_truncation",
    "expected_soft_truncation",
    "expected_soft_truncation_closed_form",
    "smoothed_soft_truncation",
    "smoothed_bound",
    "soft_truncation_statistic",
    "soft_truncation_sensitivity",
    "clip_rows",
    "as_matrix",
    "from_matrix",
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
        return expected_soft_truncation_closed_form(
            np.where(np.isfinite(a), a, 0.0), np.where(np.isfinite(a), b, 0.0)
        ) + np.where(np.isfinite(a), 0.0, np.sign(a) * smoothed_bound(beta))
    if evaluation != "stable":
        raise ValueError(f"evaluation must be 'stable' or 'closed_form', got {evaluation!r}")
    bound = smoothed_bound(beta)
    huge = np.abs(a) > _HUGE_A
    safe_a = np.where(huge, 0.0, a)
    val = expected_soft_truncation(safe_a, np.where(huge, 0.0, b))
    val = np.where(huge, np.sign(a) * bound, val)
    return np.clip(val, -bound, bound)


def as_matrix(data):
    """Validated data as an (n, d) matrix and whether the input was 1-d (then d = 1)."""
    x = as_data(data)
    return (x[:, None], True) if x.ndim == 1 else (x, False)


def from_matrix(v, was_1d):
    """Undo :func:`as_matrix` on a result whose last axis is the coordinate axis."""
    v = np.asarray(v, dtype=float)
    return v[..., 0] if was_1d else v


def soft_truncation_statistic(data, scale, beta, *, evaluation: str = "stable") -> np.ndarray:
    """x̂(s, β) = (s/n) Σ_i ψ_β(x_i/s), coordinate-wise (Hu et al. 2022, eq. (4); Algs. 1 and 5, step 4).

    ``data`` of shape (n,) gives a 0-d array; shape (n, d) gives shape (d,).
    """
    scale = check_positive("scale", scale)
    x, was_1d = as_matrix(data)
    with np.errstate(over="ignore"):
        a = x / scale  # may overflow to ±inf for tiny scales: handled by the limit
    psi = smoothed_soft_truncation(a, beta, evaluation=evaluation)
    return from_matrix(scale * np.mean(psi, axis=0), was_1d)


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


def clip_rows(x, radius):
    """clip_R(x) = x·min(1, R/‖x‖₂) applied to each row of the (n, d) array ``x``; the norm is computed overflow-free
    (rows of size ~1e300 keep their direction)."""
    peak = np.max(np.abs(x), axis=1, keepdims=True)
    safe = np.where(peak > 0, peak, 1.0)
    unit = np.linalg.norm(x / safe, axis=1, keepdims=True)  # in [1, √d] for non-zero rows, 0 for zero rows
    unit = np.where(unit > 0, unit, 1.0)
    with np.errstate(over="ignore"):  # overflowing branches are never selected
        norms = peak * unit  # may overflow to inf: the comparison below is still right
        factor = np.where(norms > radius, (radius / safe) / unit, 1.0)
    return x * factor
