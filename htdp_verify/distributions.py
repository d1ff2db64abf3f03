"""Heavy-tailed laws with exact moments, for stress-testing estimators on data whose tails we control.

Every law is a small immutable object with

* ``sample(size, *, rng)`` -- draws with a caller-supplied ``numpy.random.Generator`` (``size`` an int or a
  tuple; univariate laws return an array of shape ``size``, multivariate laws ``(*size, d)``);
* ``mean`` -- the exact mean (raises ``ValueError`` when it does not exist, i.e. ``tail_index <= 1``);
* ``tail_index`` -- the supremum of the orders ``k`` with ``E|X|^k < inf`` (``np.inf`` if all moments are finite);
* ``moment(k, central=False)`` -- the exact absolute moment ``E|X|^k`` (raw) or ``E|X - mean|^k`` (central) for
  ``0 < k < tail_index``; ``k >= tail_index`` raises ``ValueError`` naming ``k``. Multivariate laws return the
  per-coordinate vector ``(E|X_j|^k)_j``;
* ``sf(x)`` (univariate), ``pdf(x)`` where the law has a density, and ``abs_moment_about(k, c) = E|X - c|^k``;
* for multivariate laws, ``directional_moment(k) = sup_{||u||=1} E|<u, X - mean>|^k`` and
  ``norm_moment(k) = E||X||^k`` where closed forms exist (otherwise ``NotImplementedError`` says so), and
  ``norm_sf(r) = P(||X|| > r)`` where available.

"Exact" means a closed form evaluated with ``scipy.special``; where no closed form is known (central absolute
moments of non-symmetric laws, raw absolute moments of shifted symmetric laws) the value is computed by adaptive
quadrature of the density (``scipy.integrate.quad``, relative accuracy about 1e-9) and the docstring says so.

The helper :func:`rescale_to_moment` rescales a law so that a chosen k-th moment equals a target -- the moment
bound tau (Wang et al., DP-EM, Assumption 1; Hu et al. 2022, Assumption 3) or M of the papers.
"""
from __future__ import annotations

import math
import numbers
import warnings
from typing import Sequence

import numpy as np
from scipy import integrate, special, stats

from ._validate import check_positive, check_prob, check_rng

__all__ = [
    "Law",
    "Normal",
    "StudentT",
    "Cauchy",
    "Pareto",
    "Lomax",
    "SymmetricPareto",
    "LogNormal",
    "BurrXII",
    "Spike",
    "Mixture",
    "Contamination",
    "contaminate",
    "Scaled",
    "MultivariateT",
    "RadialPareto",
    "rescale_to_moment",
    "abs_normal_moment",
    "abs_t_moment",
    "sphere_coordinate_moment",
]


# ----------------------------------------------------------------------------------------------------------------
# helpers
# ----------------------------------------------------------------------------------------------------------------
def _check_real(name: str, value) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not np.isfinite(float(value)):
        raise ValueError(f"{name} must be a finite real number, got {value!r}")
    return float(value)


def _shape(size) -> tuple[int, ...]:
    """Validate ``size`` (non-negative int or tuple of them) and return it as a tuple."""
    if isinstance(size, (numbers.Integral,)) and not isinstance(size, bool):
        dims = (int(size),)
    elif isinstance(size, tuple) and all(isinstance(s, numbers.Integral) and not isinstance(s, bool) for s in size):
        dims = tuple(int(s) for s in size)
    else:
        raise ValueError(f"size must be a non-negative int or a tuple of non-negative ints, got {size!r}")
    if any(s < 0 for s in dims):
        raise ValueError(f"size must be a non-negative int or a tuple of non-negative ints, got {size!r}")
    return dims


def _check_order(k, tail_index: float) -> float:
    """Validate a moment order ``0 < k < tail_index``."""
    if isinstance(k, bool) or not isinstance(k, numbers.Real) or not np.isfinite(float(k)) or float(k) <= 0:
        raise ValueError(f"k must be a finite real number in (0, tail_index={tail_index}), got {k!r}")
    k = float(k)
    if k >= tail_index:
        raise ValueError(
            f"k must lie in (0, tail_index={tail_index}): the {k}-th absolute moment is infinite, got k={k!r}"
        )
    return k


def abs_normal_moment(k: float) -> float:
    """E|Z|^k for Z ~ N(0, 1): 2^{k/2} Gamma((k+1)/2) / sqrt(pi)."""
    return float(2.0 ** (k / 2) * special.gamma((k + 1) / 2) / math.sqrt(math.pi))


def abs_t_moment(k: float, nu: float) -> float:
    """E|T|^k for T ~ t_nu (k < nu): nu^{k/2} Gamma((k+1)/2) Gamma((nu-k)/2) / (sqrt(pi) Gamma(nu/2)).

    Computed on the log scale with ``gammaln`` so large ``nu`` does not overflow.
    """
    if not k < nu:
        raise ValueError(f"k must be < nu={nu}, got k={k!r}")
    log = (k / 2) * math.log(nu) + special.gammaln((k + 1) / 2) + special.gammaln((nu - k) / 2)
    log -= 0.5 * math.log(math.pi) + special.gammaln(nu / 2)
    return float(math.exp(log))


def sphere_coordinate_moment(k: float, d: int) -> float:
    """E|U_1|^k for U uniform on the unit sphere of R^d: Gamma(d/2) Gamma((k+1)/2) / (sqrt(pi) Gamma((d+k)/2))."""
    log = special.gammaln(d / 2) + special.gammaln((k + 1) / 2) - special.gammaln((d + k) / 2)
    return float(math.exp(log - 0.5 * math.log(math.pi)))


def _quad_abs_moment(pdf, k: float, c: float, lo: float, hi: float, breaks: Sequence[float] = ()) -> float:
    """E|X - c|^k = int |x - c|^k pdf(x) dx by adaptive quadrature, split at ``c`` and at ``breaks``.

    Each finite piece is integrated on its own; infinite tails use quad's infinite-interval transform.
    """
    points = sorted({p for p in (lo, hi, c, *breaks) if lo <= p <= hi})
    total = 0.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", integrate.IntegrationWarning)
        for a, b in zip(points[:-1], points[1:]):
            if a == b:
                continue
            val, _ = integrate.quad(lambda x: abs(x - c) ** k * pdf(x), a, b, limit=400, epsabs=0.0, epsrel=1e-11)
            total += val
    return float(total)


# ----------------------------------------------------------------------------------------------------------------
# base class
# ----------------------------------------------------------------------------------------------------------------
class Law:
    """Base class of all laws. Subclasses implement ``_draw(shape, rng)`` and the moment hooks."""

    #: dimension of one draw; 1 for univariate laws (a draw is a scalar)
    dim: int = 1
    multivariate: bool = False

    # -- sampling ------------------------------------------------------------------------------------------------
    def sample(self, size, *, rng: np.random.Generator) -> np.ndarray:
        """Draw ``size`` independent copies (array of shape ``size``, or ``(*size, d)`` for multivariate laws)."""
        shape = _shape(size)
        check_rng(rng)
        return self._draw(shape, rng)

    def _draw(self, shape: tuple[int, ...], rng: np.random.Generator) -> np.ndarray:  # pragma: no cover
        raise NotImplementedError

    # -- tail and moments ----------------------------------------------------------------------------------------
    @property
    def tail_index(self) -> float:  # pragma: no cover
        raise NotImplementedError

    @property
    def mean(self):
        if not self.tail_index > 1:
            raise ValueError(f"{type(self).__name__} has no mean: tail_index={self.tail_index} <= 1")
        return self._mean()

    def _mean(self):  # pragma: no cover
        raise NotImplementedError

    def moment(self, k, central: bool = False):
        """Exact absolute moment: ``E|X|^k`` (raw) or ``E|X - mean|^k`` (central), for ``0 < k < tail_index``."""
        k = _check_order(k, self.tail_index)
        if central:
            if not self.tail_index > 1:
                raise ValueError(
                    f"central moments need a mean; central=True is invalid for tail_index={self.tail_index} <= 1"
                )
            return self._central_moment(k)
        return self._raw_moment(k)

    def _raw_moment(self, k: float):
        return self.abs_moment_about(k, 0.0)

    def _central_moment(self, k: float):
        return self.abs_moment_about(k, self._mean())

    def abs_moment_about(self, k, c) -> float:
        """``E|X - c|^k`` for a real centre ``c``; numeric quadrature of the density unless overridden."""
        k = _check_order(k, self.tail_index)
        c = _check_real("c", c)
        lo, hi = self._support()
        return _quad_abs_moment(self._pdf1, k, c, lo, hi, self._breaks())

    def _pdf1(self, x: float) -> float:
        """Scalar density used by quadrature (subclasses give a fast pure-math version)."""
        return float(self.pdf(x))

    def _support(self) -> tuple[float, float]:
        return (-np.inf, np.inf)

    def _breaks(self) -> tuple[float, ...]:
        return ()

    def pdf(self, x):
        raise NotImplementedError(f"{type(self).__name__} has no density")

    def sf(self, x):
        """Survival function P(X > x)."""
        raise NotImplementedError(f"{type(self).__name__} has no survival function")

    def __repr__(self) -> str:
        fields = ", ".join(f"{k}={v!r}" for k, v in self._params().items())
        return f"{type(self).__name__}({fields})"

    def _params(self) -> dict:
        return {}


# ----------------------------------------------------------------------------------------------------------------
# univariate laws
# ----------------------------------------------------------------------------------------------------------------
class Normal(Law):
    """Gaussian N(loc, scale^2): the light-tailed reference law.

    Density ``phi((x - loc)/scale)/scale``. All moments finite (``tail_index = inf``).
    Central: ``E|X - loc|^k = scale^k 2^{k/2} Gamma((k+1)/2)/sqrt(pi)``.
    Raw: ``E|X|^k = scale^k 2^{k/2} Gamma((k+1)/2)/sqrt(pi) * 1F1(-k/2; 1/2; -loc^2/(2 scale^2))`` (Kummer function).
    """

    def __init__(self, loc: float = 0.0, scale: float = 1.0):
        self.loc = _check_real("loc", loc)
        self.scale = check_positive("scale", scale)
        self._dist = stats.norm(self.loc, self.scale)

    def _params(self):
        return {"loc": self.loc, "scale": self.scale}

    @property
    def tail_index(self):
        return np.inf

    def _mean(self):
        return self.loc

    def _draw(self, shape, rng):
        return self.loc + self.scale * rng.standard_normal(shape)

    def _central_moment(self, k):
        return self.scale**k * abs_normal_moment(k)

    def _pdf1(self, x):
        zz = (x - self.loc) / self.scale
        return math.exp(-zz * zz / 2) / (self.scale * math.sqrt(2 * math.pi))

    def abs_moment_about(self, k, c):
        k = _check_order(k, self.tail_index)
        m = (self.loc - _check_real("c", c)) / self.scale
        return float(self.scale**k * abs_normal_moment(k) * special.hyp1f1(-k / 2, 0.5, -(m**2) / 2))

    def pdf(self, x):
        return self._dist.pdf(x)

    def sf(self, x):
        return self._dist.sf(x)


class StudentT(Law):
    """Student-t with ``nu > 0`` degrees of freedom, shifted and scaled: X = loc + scale * T, T ~ t_nu.

    Density ``Gamma((nu+1)/2) / (sqrt(nu pi) Gamma(nu/2) scale) * (1 + z^2/nu)^{-(nu+1)/2}``, ``z = (x-loc)/scale``.
    ``tail_index = nu`` (P(|T| > x) ~ C x^{-nu}); mean ``loc`` for ``nu > 1``.
    Central (and, for ``loc = 0``, raw): ``E|X - loc|^k = scale^k nu^{k/2} Gamma((k+1)/2) Gamma((nu-k)/2)
    / (sqrt(pi) Gamma(nu/2))`` for ``k < nu``. Raw moments with ``loc != 0`` are computed by quadrature.
    Sampling: ``rng.standard_t``.
    """

    def __init__(self, nu: float, loc: float = 0.0, scale: float = 1.0):
        self.nu = check_positive("nu", nu)
        self.loc = _check_real("loc", loc)
        self.scale = check_positive("scale", scale)
        self._dist = stats.t(self.nu, self.loc, self.scale)
        self._logc = (special.gammaln((self.nu + 1) / 2) - special.gammaln(self.nu / 2)
                      - 0.5 * math.log(self.nu * math.pi) - math.log(self.scale))

    def _params(self):
        return {"nu": self.nu, "loc": self.loc, "scale": self.scale}

    def _pdf1(self, x):
        zz = (x - self.loc) / self.scale
        return math.exp(self._logc - (self.nu + 1) / 2 * math.log1p(zz * zz / self.nu))

    @property
    def tail_index(self):
        return self.nu

    def _mean(self):
        return self.loc

    @property
    def median(self) -> float:
        return self.loc

    def _draw(self, shape, rng):
        return self.loc + self.scale * rng.standard_t(self.nu, shape)

    def _symmetric_moment(self, k):
        return self.scale**k * abs_t_moment(k, self.nu)

    def _central_moment(self, k):
        return self._symmetric_moment(k)

    def abs_moment_about(self, k, c):
        k = _check_order(k, self.tail_index)
        c = _check_real("c", c)
        if c == self.loc:
            return self._symmetric_moment(k)
        return super().abs_moment_about(k, c)

    def _breaks(self):
        return (self.loc,)

    def pdf(self, x):
        return self._dist.pdf(x)

    def sf(self, x):
        return self._dist.sf(x)


class Cauchy(StudentT):
    """Cauchy(loc, scale) = Student-t with ``nu = 1``: density ``1 / (pi scale (1 + z^2))``.

    No mean (``tail_index = 1``). ``E|X - loc|^k = scale^k / cos(pi k / 2)`` for ``0 < k < 1``.
    Sampling: ``rng.standard_cauchy``.
    """

    def __init__(self, loc: float = 0.0, scale: float = 1.0):
        super().__init__(1.0, loc, scale)

    def _params(self):
        return {"loc": self.loc, "scale": self.scale}

    def _draw(self, shape, rng):
        return self.loc + self.scale * rng.standard_cauchy(shape)

    def _symmetric_moment(self, k):
        return self.scale**k / math.cos(math.pi * k / 2)


class Pareto(Law):
    """Classical (type I) Pareto: density ``alpha xm^alpha / x^{alpha+1}`` on ``[xm, inf)``; ``P(X > x) = (x/xm)^{-alpha}``.

    ``tail_index = alpha``; mean ``alpha xm/(alpha-1)``; raw ``E X^k = alpha xm^k/(alpha-k)`` for ``k < alpha``.
    Central absolute moments: quadrature. Sampling: ``xm (1 + rng.pareto(alpha))``.
    """

    def __init__(self, alpha: float, xm: float = 1.0):
        self.alpha = check_positive("alpha", alpha)
        self.xm = check_positive("xm", xm)

    def _params(self):
        return {"alpha": self.alpha, "xm": self.xm}

    @property
    def tail_index(self):
        return self.alpha

    def _mean(self):
        return self.alpha * self.xm / (self.alpha - 1)

    def _draw(self, shape, rng):
        return self.xm * (1.0 + rng.pareto(self.alpha, shape))

    def _raw_moment(self, k):
        return self.alpha * self.xm**k / (self.alpha - k)

    def _support(self):
        return (self.xm, np.inf)

    def _pdf1(self, x):
        return self.alpha / self.xm * (x / self.xm) ** (-(self.alpha + 1)) if x >= self.xm else 0.0

    def pdf(self, x):
        x = np.asarray(x, dtype=float)
        with np.errstate(divide="ignore", invalid="ignore"):
            out = self.alpha * self.xm**self.alpha / x ** (self.alpha + 1)
        return np.where(x >= self.xm, out, 0.0)

    def sf(self, x):
        x = np.asarray(x, dtype=float)
        with np.errstate(divide="ignore", invalid="ignore"):
            out = (x / self.xm) ** (-self.alpha)
        return np.where(x > self.xm, out, 1.0)


class Lomax(Law):
    """Lomax (Pareto type II) law: density ``(alpha/scale) (1 + x/scale)^{-(alpha+1)}`` on ``[0, inf)``.

    ``P(X > x) = (1 + x/scale)^{-alpha}``; ``tail_index = alpha``; mean ``scale/(alpha-1)``;
    raw ``E X^k = scale^k Gamma(k+1) Gamma(alpha-k) / Gamma(alpha)`` for ``k < alpha``.
    Central absolute moments: quadrature. Sampling: ``scale * rng.pareto(alpha)``.
    """

    def __init__(self, alpha: float, scale: float = 1.0):
        self.alpha = check_positive("alpha", alpha)
        self.scale = check_positive("scale", scale)

    def _params(self):
        return {"alpha": self.alpha, "scale": self.scale}

    @property
    def tail_index(self):
        return self.alpha

    def _mean(self):
        return self.scale / (self.alpha - 1)

    def _draw(self, shape, rng):
        return self.scale * rng.pareto(self.alpha, shape)

    def _raw_moment(self, k):
        log = special.gammaln(k + 1) + special.gammaln(self.alpha - k) - special.gammaln(self.alpha)
        return float(self.scale**k * math.exp(log))

    def _support(self):
        return (0.0, np.inf)

    def _pdf1(self, x):
        return (self.alpha / self.scale) * (1 + x / self.scale) ** (-(self.alpha + 1)) if x >= 0 else 0.0

    def pdf(self, x):
        x = np.asarray(x, dtype=float)
        with np.errstate(invalid="ignore"):
            out = (self.alpha / self.scale) * (1 + np.maximum(x, 0) / self.scale) ** (-(self.alpha + 1))
        return np.where(x >= 0, out, 0.0)

    def sf(self, x):
        x = np.asarray(x, dtype=float)
        return np.where(x > 0, (1 + np.maximum(x, 0) / self.scale) ** (-self.alpha), 1.0)


class SymmetricPareto(Law):
    """Symmetrised Pareto: X = S * Y with S a Rademacher sign independent of Y.

    ``base="lomax"`` (default): Y ~ Lomax(alpha, scale), density ``(alpha/(2 scale)) (1 + |x|/scale)^{-(alpha+1)}``
    (continuous, no gap at 0). ``base="pareto"``: Y ~ Pareto(alpha, xm=scale), density
    ``alpha scale^alpha / (2 |x|^{alpha+1})`` for ``|x| >= scale``.
    ``tail_index = alpha``; mean 0 (``alpha > 1``); ``E|X|^k = E|X - 0|^k = E Y^k`` (see :class:`Lomax`,
    :class:`Pareto`). This is the zero-mean Pareto noise of Hu et al. 2022, section 8.3.
    """

    def __init__(self, alpha: float, scale: float = 1.0, base: str = "lomax"):
        if base not in ("lomax", "pareto"):
            raise ValueError(f"base must be 'lomax' or 'pareto', got {base!r}")
        self.base = base
        self.alpha = check_positive("alpha", alpha)
        self.scale = check_positive("scale", scale)
        self._y = Lomax(self.alpha, self.scale) if base == "lomax" else Pareto(self.alpha, self.scale)

    def _params(self):
        return {"alpha": self.alpha, "scale": self.scale, "base": self.base}

    @property
    def tail_index(self):
        return self.alpha

    def _mean(self):
        return 0.0

    @property
    def median(self) -> float:
        return 0.0

    def _draw(self, shape, rng):
        y = self._y._draw(shape, rng)
        signs = np.where(rng.random(shape) < 0.5, -1.0, 1.0)
        return signs * y

    def _raw_moment(self, k):
        return self._y._raw_moment(k)

    def _central_moment(self, k):
        return self._y._raw_moment(k)

    def _breaks(self):
        return (-self.scale, 0.0, self.scale) if self.base == "pareto" else (0.0,)

    def _pdf1(self, x):
        return 0.5 * self._y._pdf1(abs(x))

    def pdf(self, x):
        x = np.asarray(x, dtype=float)
        return 0.5 * self._y.pdf(np.abs(x))

    def sf(self, x):
        x = np.asarray(x, dtype=float)
        return np.where(x >= 0, 0.5 * self._y.sf(np.abs(x)), 1.0 - 0.5 * self._y.sf(np.abs(x)))


class LogNormal(Law):
    """Log-normal: X = exp(mu + sigma Z), Z ~ N(0,1); density ``exp(-(log x - mu)^2/(2 sigma^2)) / (x sigma sqrt(2 pi))``.

    All moments finite (``tail_index = inf``) but they grow like ``exp(k^2 sigma^2 / 2)``:
    raw ``E X^k = exp(k mu + k^2 sigma^2/2)``; mean ``exp(mu + sigma^2/2)``. Central absolute moments: quadrature.
    ``sigma`` is the standard deviation of ``log X`` (Hu et al. 2022's "Lognormal(0, 0.6)" read as sigma = 0.6).
    """

    def __init__(self, mu: float = 0.0, sigma: float = 1.0):
        self.mu = _check_real("mu", mu)
        self.sigma = check_positive("sigma", sigma)
        self._dist = stats.lognorm(self.sigma, scale=math.exp(self.mu))

    def _params(self):
        return {"mu": self.mu, "sigma": self.sigma}

    @property
    def tail_index(self):
        return np.inf

    def _mean(self):
        return math.exp(self.mu + self.sigma**2 / 2)

    def _draw(self, shape, rng):
        return np.exp(self.mu + self.sigma * rng.standard_normal(shape))

    def _raw_moment(self, k):
        return math.exp(k * self.mu + k**2 * self.sigma**2 / 2)

    def _support(self):
        return (0.0, np.inf)

    def _breaks(self):
        return (math.exp(self.mu),)

    def _pdf1(self, x):
        if x <= 0:
            return 0.0
        zz = (math.log(x) - self.mu) / self.sigma
        return math.exp(-zz * zz / 2) / (x * self.sigma * math.sqrt(2 * math.pi))

    def pdf(self, x):
        return self._dist.pdf(x)

    def sf(self, x):
        return self._dist.sf(x)


class BurrXII(Law):
    """Burr type XII (Singh--Maddala): ``P(X > x) = (1 + (x/scale)^c)^{-d}`` on ``[0, inf)``, ``c, d > 0``.

    Density ``(c d / scale) (x/scale)^{c-1} (1 + (x/scale)^c)^{-(d+1)}``. ``tail_index = c d``;
    raw ``E X^r = scale^r d B(d - r/c, 1 + r/c)`` for ``r < c d``. Central absolute moments: quadrature.
    Sampling by inversion: ``X = scale (U^{-1/d} - 1)^{1/c}``.
    """

    def __init__(self, c: float, d: float, scale: float = 1.0):
        self.c = check_positive("c", c)
        self.d = check_positive("d", d)
        self.scale = check_positive("scale", scale)
        self._dist = stats.burr12(self.c, self.d, scale=self.scale)

    def _params(self):
        return {"c": self.c, "d": self.d, "scale": self.scale}

    @property
    def tail_index(self):
        return self.c * self.d

    def _mean(self):
        return self._raw_moment(1.0)

    def _draw(self, shape, rng):
        u = rng.random(shape)
        # U^{-1/d} - 1 = expm1(-log(U)/d); 1 - U is also uniform and avoids log(0)
        return self.scale * np.expm1(-np.log1p(-u) / self.d) ** (1.0 / self.c)

    def _raw_moment(self, k):
        log = math.log(self.d) + special.betaln(self.d - k / self.c, 1 + k / self.c)
        return float(self.scale**k * math.exp(log))

    def _support(self):
        return (0.0, np.inf)

    def _pdf1(self, x):
        if x <= 0:
            return float(self._dist.pdf(x))
        u = x / self.scale
        log_uc = self.c * math.log(u)
        # (1 + u^c)^{-(d+1)} evaluated on the log scale to avoid overflow of u^c
        log1p_uc = log_uc + math.log1p(math.exp(-log_uc)) if log_uc > 0 else math.log1p(math.exp(log_uc))
        return math.exp(math.log(self.c * self.d / self.scale) + (self.c - 1) * math.log(u) - (self.d + 1) * log1p_uc)

    def pdf(self, x):
        return self._dist.pdf(x)

    def sf(self, x):
        return self._dist.sf(x)


class Spike(Law):
    """Two-point "spike" law: X = 0 with probability ``1 - p`` and X = ``a`` with probability ``p``.

    All moments finite. Mean ``p a``; raw ``E|X|^k = p |a|^k``; central
    ``E|X - pa|^k = |a|^k p (1-p) (p^{k-1} + (1-p)^{k-1})``. With small ``p`` and large ``a`` this is the
    canonical hard instance for heavy-tailed mean estimation (a rare huge atom with a prescribed k-th moment);
    :meth:`with_moment` picks ``a``.
    """

    def __init__(self, p: float, a: float):
        self.p = check_prob("p", p, open_low=True, open_high=True)
        self.a = _check_real("a", a)
        if self.a == 0:
            raise ValueError("a must be a non-zero finite real number, got 0")

    @classmethod
    def with_moment(cls, k: float, target: float, p: float, central: bool = False) -> "Spike":
        """The spike law with atom ``a > 0`` at probability ``p`` whose k-th absolute (raw or central) moment is ``target``.

        Raw: ``a = (target/p)^{1/k}``; central: ``a = (target / (p(1-p)(p^{k-1} + (1-p)^{k-1})))^{1/k}``.
        """
        k = check_positive("k", k)
        target = check_positive("target", target)
        p = check_prob("p", p)
        if central:
            a = (target / (p * (1 - p) * (p ** (k - 1) + (1 - p) ** (k - 1)))) ** (1 / k)
        else:
            a = (target / p) ** (1 / k)
        return cls(p, a)

    def _params(self):
        return {"p": self.p, "a": self.a}

    @property
    def tail_index(self):
        return np.inf

    def _mean(self):
        return self.p * self.a

    def _draw(self, shape, rng):
        return np.where(rng.random(shape) < self.p, self.a, 0.0)

    def _raw_moment(self, k):
        return self.p * abs(self.a) ** k

    def _central_moment(self, k):
        p = self.p
        return abs(self.a) ** k * p * (1 - p) * (p ** (k - 1) + (1 - p) ** (k - 1))

    def abs_moment_about(self, k, c):
        k = _check_order(k, self.tail_index)
        c = _check_real("c", c)
        return (1 - self.p) * abs(c) ** k + self.p * abs(self.a - c) ** k

    def sf(self, x):
        x = np.asarray(x, dtype=float)
        return (1 - self.p) * (x < 0) + self.p * (x < self.a)


class Scaled(Law):
    """The law of ``factor * X`` for a law X and a real ``factor != 0`` (univariate or multivariate).

    Moments scale as ``|factor|^k``; ``tail_index`` is unchanged; ``sf(x) = P(X > x/factor)`` (or ``P(X < x/factor)``
    for a negative factor, when X has a density). Built by :func:`rescale_to_moment`.
    """

    def __init__(self, law: Law, factor: float):
        if not isinstance(law, Law):
            raise ValueError(f"law must be a Law, got {type(law).__name__}")
        self.law = law
        self.factor = _check_real("factor", factor)
        if self.factor == 0:
            raise ValueError("factor must be a non-zero finite real number, got 0")
        self.dim = law.dim
        self.multivariate = law.multivariate

    def _params(self):
        return {"law": self.law, "factor": self.factor}

    @property
    def tail_index(self):
        return self.law.tail_index

    def _mean(self):
        return self.factor * np.asarray(self.law._mean()) if self.multivariate else self.factor * self.law._mean()

    def _draw(self, shape, rng):
        return self.factor * self.law._draw(shape, rng)

    def _raw_moment(self, k):
        return abs(self.factor) ** k * self.law._raw_moment(k)

    def _central_moment(self, k):
        return abs(self.factor) ** k * self.law._central_moment(k)

    def abs_moment_about(self, k, c):
        k = _check_order(k, self.tail_index)
        c = _check_real("c", c)
        return abs(self.factor) ** k * self.law.abs_moment_about(k, c / self.factor)

    def _pdf1(self, x):
        return self.law._pdf1(x / self.factor) / abs(self.factor)

    def pdf(self, x):
        return self.law.pdf(np.asarray(x, dtype=float) / self.factor) / abs(self.factor)

    def sf(self, x):
        x = np.asarray(x, dtype=float)
        if self.factor > 0:
            return self.law.sf(x / self.factor)
        return 1.0 - self.law.sf(x / self.factor)  # exact when X has no atoms

    def directional_moment(self, k):
        return abs(self.factor) ** k * self.law.directional_moment(k)

    def norm_moment(self, k):
        return abs(self.factor) ** k * self.law.norm_moment(k)

    def norm_sf(self, r):
        return self.law.norm_sf(np.asarray(r, dtype=float) / abs(self.factor))


class Mixture(Law):
    """Finite mixture ``sum_i w_i P_i``: draw a component label with probabilities ``w``, then draw from it.

    ``tail_index = min_i tail_index(P_i)`` over components with ``w_i > 0``; mean ``sum_i w_i mean_i``;
    raw ``E|X|^k = sum_i w_i E_i|X|^k``; central ``E|X - m|^k = sum_i w_i E_i|X - m|^k`` (each component's
    ``abs_moment_about``); ``sf = sum_i w_i sf_i``; ``pdf = sum_i w_i pdf_i``. Multivariate mixtures provide
    ``mean``, raw per-coordinate moments and ``norm_moment = sum_i w_i norm_moment_i``.
    """

    def __init__(self, components: Sequence[Law], weights: Sequence[float]):
        comps = list(components)
        if len(comps) == 0 or not all(isinstance(c, Law) for c in comps):
            raise ValueError("components must be a non-empty sequence of Law objects")
        dims = {c.dim for c in comps}
        if len(dims) != 1:
            raise ValueError(f"components must all have the same dimension, got dims {sorted(dims)}")
        w = np.asarray(weights, dtype=float)
        if w.shape != (len(comps),) or not np.all(np.isfinite(w)) or np.any(w < 0) or not abs(w.sum() - 1) < 1e-9:
            raise ValueError(
                f"weights must be {len(comps)} non-negative finite numbers summing to 1, got {weights!r}"
            )
        self.components = tuple(comps)
        self.weights = w / w.sum()
        self.dim = comps[0].dim
        self.multivariate = comps[0].multivariate

    def _params(self):
        return {"components": list(self.components), "weights": self.weights.tolist()}

    def _active(self):
        return [(w, c) for w, c in zip(self.weights, self.components) if w > 0]

    @property
    def tail_index(self):
        return min(c.tail_index for _, c in self._active())

    def _mean(self):
        return sum(w * np.asarray(c._mean(), dtype=float) for w, c in self._active()) if self.multivariate else float(
            sum(w * c._mean() for w, c in self._active())
        )

    def _draw(self, shape, rng):
        total = int(np.prod(shape)) if shape else 1
        counts = rng.multinomial(total, self.weights)
        labels = rng.permutation(np.repeat(np.arange(len(self.components)), counts))
        out = np.empty((total, self.dim) if self.multivariate else (total,), dtype=float)
        for i, comp in enumerate(self.components):
            if counts[i]:
                out[labels == i] = comp._draw((int(counts[i]),), rng)
        return out.reshape(shape + ((self.dim,) if self.multivariate else ()))

    def _raw_moment(self, k):
        return sum(w * np.asarray(c._raw_moment(k)) for w, c in self._active()) if self.multivariate else float(
            sum(w * c._raw_moment(k) for w, c in self._active())
        )

    def _central_moment(self, k):
        if self.multivariate:
            raise NotImplementedError("central per-coordinate moments of multivariate mixtures are not implemented")
        return self.abs_moment_about(k, self._mean())

    def abs_moment_about(self, k, c):
        k = _check_order(k, self.tail_index)
        c = _check_real("c", c)
        return float(sum(w * comp.abs_moment_about(k, c) for w, comp in self._active()))

    def pdf(self, x):
        return sum(w * c.pdf(x) for w, c in self._active())

    def sf(self, x):
        return sum(w * c.sf(x) for w, c in self._active())

    def norm_moment(self, k):
        k = _check_order(k, self.tail_index)
        return float(sum(w * c.norm_moment(k) for w, c in self._active()))

    def directional_moment(self, k):
        raise NotImplementedError("the directional moment of a mixture has no closed form")


class Contamination(Mixture):
    """Huber epsilon-contamination ``(1 - eps) P + eps Q`` of a law P by a law Q (both of the same dimension).

    A :class:`Mixture` with two components; ``base``, ``eps`` and ``contaminant`` are kept as attributes.
    Each observation is independently an outlier (drawn from Q) with probability ``eps``.
    """

    def __init__(self, base: Law, eps: float, contaminant: Law):
        eps = check_prob("eps", eps, open_low=False, open_high=True)
        super().__init__([base, contaminant], [1 - eps, eps])
        self.base = base
        self.eps = eps
        self.contaminant = contaminant

    def _params(self):
        return {"base": self.base, "eps": self.eps, "contaminant": self.contaminant}


def contaminate(law: Law, eps: float, contaminant: Law) -> Contamination:
    """Huber contamination ``(1 - eps) law + eps contaminant``; see :class:`Contamination`."""
    return Contamination(law, eps, contaminant)


# ----------------------------------------------------------------------------------------------------------------
# multivariate laws
# ----------------------------------------------------------------------------------------------------------------
class MultivariateT(Law):
    """Multivariate t: X = loc + A Z / sqrt(W / nu), Z ~ N(0, I_d), W ~ chi^2_nu, A A^T = shape (the shape matrix).

    Density ``Gamma((nu+d)/2) / (Gamma(nu/2) (nu pi)^{d/2} |Sigma|^{1/2}) (1 + (x-mu)^T Sigma^{-1} (x-mu)/nu)^{-(nu+d)/2}``.
    ``tail_index = nu``; mean ``loc`` (nu > 1). Every projection is a scaled t: ``<u, X - loc> = sqrt(u^T Sigma u) T_nu``,
    so the coordinate j has law ``StudentT(nu, loc_j, sqrt(Sigma_jj))`` (``marginal(j)``) and

    * ``directional_moment(k) = lambda_max(Sigma)^{k/2} E|T_nu|^k`` (attained at the top eigenvector);
    * ``norm_moment(k)``: for ``loc = 0`` and ``Sigma = s^2 I``,
      ``E||X||^k = s^k nu^{k/2} Gamma((d+k)/2) Gamma((nu-k)/2) / (Gamma(d/2) Gamma(nu/2))``;
      for ``k = 2`` and any loc, Sigma: ``||loc||^2 + tr(Sigma) nu/(nu-2)``; otherwise ``NotImplementedError``.
    * ``norm_sf(r)`` (``loc = 0``, ``Sigma = s^2 I``): ``||X||^2/(d s^2) ~ F(d, nu)``.
    """

    multivariate = True

    def __init__(self, nu: float, loc=None, shape=None, d: int | None = None):
        self.nu = check_positive("nu", nu)
        if loc is None and shape is None and d is None:
            raise ValueError("d must be given when neither loc nor shape is")
        if loc is not None:
            loc = np.asarray(loc, dtype=float)
            if loc.ndim != 1 or loc.size == 0 or not np.all(np.isfinite(loc)):
                raise ValueError(f"loc must be a non-empty finite 1-d array, got {loc!r}")
        dim = loc.size if loc is not None else (np.asarray(shape).shape[0] if shape is not None and np.ndim(shape) == 2 else d)
        if dim is None or int(dim) < 1:
            raise ValueError(f"d must be a positive integer, got {d!r}")
        dim = int(dim)
        self.loc = np.zeros(dim) if loc is None else loc
        if shape is None:
            shape = np.eye(dim)
        elif np.ndim(shape) == 0:
            shape = check_positive("shape", shape) * np.eye(dim)
        shape = np.asarray(shape, dtype=float)
        if shape.shape != (dim, dim) or not np.all(np.isfinite(shape)) or not np.allclose(shape, shape.T):
            raise ValueError(f"shape must be a symmetric positive-definite {dim}x{dim} matrix (or a positive scalar)")
        try:
            self._chol = np.linalg.cholesky(shape)
        except np.linalg.LinAlgError:
            raise ValueError("shape must be a symmetric positive-definite matrix") from None
        self.shape = shape
        self.dim = dim

    def _params(self):
        return {"nu": self.nu, "loc": self.loc.tolist(), "shape": self.shape.tolist()}

    @property
    def tail_index(self):
        return self.nu

    def _mean(self):
        return self.loc.copy()

    def _draw(self, shape, rng):
        total = int(np.prod(shape)) if shape else 1
        z = rng.standard_normal((total, self.dim)) @ self._chol.T
        w = rng.chisquare(self.nu, total)
        x = self.loc + z / np.sqrt(w / self.nu)[:, None]
        return x.reshape(shape + (self.dim,))

    def marginal(self, j: int) -> StudentT:
        return StudentT(self.nu, float(self.loc[j]), math.sqrt(self.shape[j, j]))

    def _raw_moment(self, k):
        return np.array([self.marginal(j)._raw_moment(k) for j in range(self.dim)])

    def _central_moment(self, k):
        return np.array([self.marginal(j)._central_moment(k) for j in range(self.dim)])

    def directional_moment(self, k) -> float:
        """``sup_{||u||=1} E|<u, X - loc>|^k = lambda_max(shape)^{k/2} E|T_nu|^k``."""
        k = _check_order(k, self.tail_index)
        lam = float(np.linalg.eigvalsh(self.shape)[-1])
        return lam ** (k / 2) * abs_t_moment(k, self.nu)

    def top_direction(self) -> np.ndarray:
        """A unit vector attaining the directional moment (top eigenvector of the shape matrix)."""
        return np.linalg.eigh(self.shape)[1][:, -1]

    def _isotropic_scale(self):
        s2 = self.shape[0, 0]
        if np.allclose(self.shape, s2 * np.eye(self.dim), rtol=0, atol=1e-12 * s2) and not np.any(self.loc):
            return math.sqrt(s2)
        return None

    def norm_moment(self, k) -> float:
        k = _check_order(k, self.tail_index)
        s = self._isotropic_scale()
        if s is not None:
            d, nu = self.dim, self.nu
            log = (k / 2) * math.log(nu) + special.gammaln((d + k) / 2) + special.gammaln((nu - k) / 2)
            log -= special.gammaln(d / 2) + special.gammaln(nu / 2)
            return s**k * math.exp(log)
        if k == 2:
            return float(self.loc @ self.loc + np.trace(self.shape) * self.nu / (self.nu - 2))
        raise NotImplementedError("norm_moment(k) has a closed form only for loc = 0, shape = s^2 I, or k = 2")

    def norm_sf(self, r):
        s = self._isotropic_scale()
        if s is None:
            raise NotImplementedError("norm_sf is available only for loc = 0 and shape = s^2 I")
        r = np.asarray(r, dtype=float)
        with np.errstate(over="ignore"):
            return stats.f.sf(r**2 / (self.dim * s**2), self.dim, self.nu)


class RadialPareto(Law):
    """Radial-Pareto vector: X = R U with U uniform on the unit sphere of R^d and R ~ Pareto(alpha, xm) independent.

    Isotropic, mean 0 (alpha > 1), ``tail_index = alpha``; ``P(||X|| > r) = (r/xm)^{-alpha}`` for ``r >= xm``.
    ``norm_moment(k) = E R^k = alpha xm^k/(alpha - k)``; every direction is extremal, so
    ``directional_moment(k) = E|<u, X>|^k = E R^k * E|U_1|^k`` with
    ``E|U_1|^k = Gamma(d/2) Gamma((k+1)/2) / (sqrt(pi) Gamma((d+k)/2))``; per-coordinate moments equal it too.
    """

    multivariate = True

    def __init__(self, d: int, alpha: float, xm: float = 1.0):
        if isinstance(d, bool) or not isinstance(d, numbers.Integral) or d < 1:
            raise ValueError(f"d must be an integer >= 1, got {d!r}")
        self.dim = int(d)
        self.radius = Pareto(alpha, xm)
        self.alpha = self.radius.alpha
        self.xm = self.radius.xm

    def _params(self):
        return {"d": self.dim, "alpha": self.alpha, "xm": self.xm}

    @property
    def tail_index(self):
        return self.alpha

    def _mean(self):
        return np.zeros(self.dim)

    def _draw(self, shape, rng):
        total = int(np.prod(shape)) if shape else 1
        g = rng.standard_normal((total, self.dim))
        norms = np.linalg.norm(g, axis=1)
        # a zero Gaussian vector has probability 0; guard anyway
        norms[norms == 0] = 1.0
        r = self.radius._draw((total,), rng)
        return (g * (r / norms)[:, None]).reshape(shape + (self.dim,))

    def directional_moment(self, k) -> float:
        k = _check_order(k, self.tail_index)
        return self.radius._raw_moment(k) * sphere_coordinate_moment(k, self.dim)

    def _raw_moment(self, k):
        return np.full(self.dim, self.radius._raw_moment(k) * sphere_coordinate_moment(k, self.dim))

    def _central_moment(self, k):
        return self._raw_moment(k)

    def norm_moment(self, k) -> float:
        k = _check_order(k, self.tail_index)
        return self.radius._raw_moment(k)

    def norm_sf(self, r):
        return self.radius.sf(r)


# ----------------------------------------------------------------------------------------------------------------
# rescaling to a moment bound
# ----------------------------------------------------------------------------------------------------------------
_MEASURES = ("central", "raw", "directional", "norm", "max_coordinate")


def rescale_to_moment(law: Law, k: float, target: float, *, measure: str = "central") -> Scaled:
    """Return ``Scaled(law, c)`` with ``c > 0`` chosen so that the chosen k-th moment of ``c X`` equals ``target``.

    Parameters
    ----------
    law : the law to rescale (univariate or multivariate).
    k : moment order, ``0 < k < law.tail_index``.
    target : the moment bound to hit, e.g. tau (a second-moment bound) or M (a k-th moment bound).
    measure : which moment: ``"central"`` E|X - mean|^k (default; univariate), ``"raw"`` E|X|^k (univariate),
        ``"directional"`` sup_u E|<u, X - mean>|^k, ``"norm"`` E||X||^k, ``"max_coordinate"`` max_j E|X_j - mean_j|^k.

    All of these are homogeneous of degree k in the scale, so ``c = (target / current)^{1/k}``.
    """
    if not isinstance(law, Law):
        raise ValueError(f"law must be a Law, got {type(law).__name__}")
    if measure not in _MEASURES:
        raise ValueError(f"measure must be one of {_MEASURES}, got {measure!r}")
    k = _check_order(k, law.tail_index)
    target = check_positive("target", target)
    if measure == "central":
        current = law.moment(k, central=True)
    elif measure == "raw":
        current = law.moment(k)
    elif measure == "directional":
        current = law.directional_moment(k)
    elif measure == "norm":
        current = law.norm_moment(k)
    else:
        current = float(np.max(law.moment(k, central=True)))
    current = float(np.max(current)) if np.ndim(current) else float(current)
    return Scaled(law, (target / current) ** (1.0 / k))
