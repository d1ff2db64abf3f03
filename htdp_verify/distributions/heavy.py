"""Univariate power-law-tailed laws (finite ``tail_index``): :class:`StudentT`, :class:`Cauchy`, :class:`Pareto`,
:class:`Lomax`, :class:`SymmetricPareto`, :class:`BurrXII`.

Each has ``P(|X| > x) ~ C x^{-tail_index}``, so moments of order ``k >= tail_index`` are infinite; the zero-mean
symmetric Pareto is the noise of Hu et al. 2022, section 8.3.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike
from scipy import special, stats

from .._validate import check_positive
from .base import Law, _check_order, _check_real, abs_t_moment

__all__ = ["StudentT", "Cauchy", "Pareto", "Lomax", "SymmetricPareto", "BurrXII"]


class StudentT(Law):
    """Student-t with ``nu > 0`` degrees of freedom, shifted and scaled: X = loc + scale * T, T ~ t_nu.

    Density ``Gamma((nu+1)/2) / (sqrt(nu pi) Gamma(nu/2) scale) * (1 + z^2/nu)^{-(nu+1)/2}``, ``z = (x-loc)/scale``.
    ``tail_index = nu`` (``P(|T| > x) ~ C x^{-nu}``); mean ``loc`` for ``nu > 1``.
    Central (and, for ``loc = 0``, raw): ``E|X - loc|^k = scale^k nu^{k/2} Gamma((k+1)/2) Gamma((nu-k)/2)
    / (sqrt(pi) Gamma(nu/2))`` for ``k < nu``. Raw moments with ``loc != 0`` are computed by quadrature.
    Sampling: ``rng.standard_t``.

    Parameters
    ----------
    nu : float
        Degrees of freedom (> 0); the tail index.
    loc : float, default 0.0
        Location.
    scale : float, default 1.0
        Scale (> 0).
    """

    def __init__(self, nu: float, loc: float = 0.0, scale: float = 1.0):
        self.nu = check_positive("nu", nu)
        self.loc = _check_real("loc", loc)
        self.scale = check_positive("scale", scale)
        self._dist = stats.t(self.nu, self.loc, self.scale)
        self._logc = (
            special.gammaln((self.nu + 1) / 2)
            - special.gammaln(self.nu / 2)
            - 0.5 * math.log(self.nu * math.pi)
            - math.log(self.scale)
        )

    def _params(self):
        return {"nu": self.nu, "loc": self.loc, "scale": self.scale}

    def _pdf1(self, x):
        zz = (x - self.loc) / self.scale
        return math.exp(self._logc - (self.nu + 1) / 2 * math.log1p(zz * zz / self.nu))

    @property
    def tail_index(self) -> float:
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

    def abs_moment_about(self, k: float, c: float) -> float:
        k = _check_order(k, self.tail_index)
        c = _check_real("c", c)
        if c == self.loc:
            return self._symmetric_moment(k)
        return super().abs_moment_about(k, c)

    def _breaks(self):
        return (self.loc,)

    def pdf(self, x: ArrayLike) -> np.ndarray:
        return self._dist.pdf(x)

    def sf(self, x: ArrayLike) -> np.ndarray:
        return self._dist.sf(x)


class Cauchy(StudentT):
    """Cauchy(loc, scale) = Student-t with ``nu = 1``: density ``1 / (pi scale (1 + z^2))``.

    No mean (``tail_index = 1``). ``E|X - loc|^k = scale^k / cos(pi k / 2)`` for ``0 < k < 1``.
    Sampling: ``rng.standard_cauchy``.

    Parameters
    ----------
    loc : float, default 0.0
        Location (the median).
    scale : float, default 1.0
        Scale (> 0).
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
    """Classical (type I) Pareto: density ``alpha xm^alpha / x^{alpha+1}`` on ``[xm, inf)``;
    ``P(X > x) = (x/xm)^{-alpha}``.

    ``tail_index = alpha``; mean ``alpha xm/(alpha-1)``; raw ``E X^k = alpha xm^k/(alpha-k)`` for ``k < alpha``.
    Central absolute moments: quadrature. Sampling: ``xm (1 + rng.pareto(alpha))``.

    Parameters
    ----------
    alpha : float
        Tail index (> 0).
    xm : float, default 1.0
        Lower end of the support (> 0).
    """

    def __init__(self, alpha: float, xm: float = 1.0):
        self.alpha = check_positive("alpha", alpha)
        self.xm = check_positive("xm", xm)

    def _params(self):
        return {"alpha": self.alpha, "xm": self.xm}

    @property
    def tail_index(self) -> float:
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

    def pdf(self, x: ArrayLike) -> np.ndarray:
        x = np.asarray(x, dtype=float)
        with np.errstate(divide="ignore", invalid="ignore"):
            out = self.alpha * self.xm**self.alpha / x ** (self.alpha + 1)
        return np.where(x >= self.xm, out, 0.0)

    def sf(self, x: ArrayLike) -> np.ndarray:
        x = np.asarray(x, dtype=float)
        with np.errstate(divide="ignore", invalid="ignore"):
            out = (x / self.xm) ** (-self.alpha)
        return np.where(x > self.xm, out, 1.0)


class Lomax(Law):
    """Lomax (Pareto type II) law: density ``(alpha/scale) (1 + x/scale)^{-(alpha+1)}`` on ``[0, inf)``.

    ``P(X > x) = (1 + x/scale)^{-alpha}``; ``tail_index = alpha``; mean ``scale/(alpha-1)``;
    raw ``E X^k = scale^k Gamma(k+1) Gamma(alpha-k) / Gamma(alpha)`` for ``k < alpha``.
    Central absolute moments: quadrature. Sampling: ``scale * rng.pareto(alpha)``.

    Parameters
    ----------
    alpha : float
        Tail index (> 0).
    scale : float, default 1.0
        Scale (> 0).
    """

    def __init__(self, alpha: float, scale: float = 1.0):
        self.alpha = check_positive("alpha", alpha)
        self.scale = check_positive("scale", scale)

    def _params(self):
        return {"alpha": self.alpha, "scale": self.scale}

    @property
    def tail_index(self) -> float:
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

    def pdf(self, x: ArrayLike) -> np.ndarray:
        x = np.asarray(x, dtype=float)
        with np.errstate(invalid="ignore"):
            out = (self.alpha / self.scale) * (1 + np.maximum(x, 0) / self.scale) ** (-(self.alpha + 1))
        return np.where(x >= 0, out, 0.0)

    def sf(self, x: ArrayLike) -> np.ndarray:
        x = np.asarray(x, dtype=float)
        return np.where(x > 0, (1 + np.maximum(x, 0) / self.scale) ** (-self.alpha), 1.0)


class SymmetricPareto(Law):
    """Symmetrised Pareto: X = S * Y with S a Rademacher sign independent of Y.

    ``base="lomax"`` (default): Y ~ Lomax(alpha, scale), density ``(alpha/(2 scale)) (1 + |x|/scale)^{-(alpha+1)}``
    (continuous, no gap at 0). ``base="pareto"``: Y ~ Pareto(alpha, xm=scale), density
    ``alpha scale^alpha / (2 |x|^{alpha+1})`` for ``|x| >= scale``.
    ``tail_index = alpha``; mean 0 (``alpha > 1``); ``E|X|^k = E|X - 0|^k = E Y^k`` (see :class:`Lomax`,
    :class:`Pareto`). This is the zero-mean Pareto noise of Hu et al. 2022, section 8.3.

    Parameters
    ----------
    alpha : float
        Tail index (> 0).
    scale : float, default 1.0
        Scale of Y (> 0).
    base : str, default "lomax"
        ``"lomax"`` or ``"pareto"``: the law of Y.
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
    def tail_index(self) -> float:
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

    def pdf(self, x: ArrayLike) -> np.ndarray:
        x = np.asarray(x, dtype=float)
        return 0.5 * self._y.pdf(np.abs(x))

    def sf(self, x: ArrayLike) -> np.ndarray:
        x = np.asarray(x, dtype=float)
        return np.where(x >= 0, 0.5 * self._y.sf(np.abs(x)), 1.0 - 0.5 * self._y.sf(np.abs(x)))


class BurrXII(Law):
    """Burr type XII (Singh--Maddala): ``P(X > x) = (1 + (x/scale)^c)^{-d}`` on ``[0, inf)``, ``c, d > 0``.

    Density ``(c d / scale) (x/scale)^{c-1} (1 + (x/scale)^c)^{-(d+1)}``. ``tail_index = c d``;
    raw ``E X^r = scale^r d B(d - r/c, 1 + r/c)`` for ``r < c d``. Central absolute moments: quadrature.
    Sampling by inversion: ``X = scale (U^{-1/d} - 1)^{1/c}``.

    Parameters
    ----------
    c : float
        First shape parameter (> 0).
    d : float
        Second shape parameter (> 0); the tail index is ``c d``.
    scale : float, default 1.0
        Scale (> 0).
    """

    def __init__(self, c: float, d: float, scale: float = 1.0):
        self.c = check_positive("c", c)
        self.d = check_positive("d", d)
        self.scale = check_positive("scale", scale)
        self._dist = stats.burr12(self.c, self.d, scale=self.scale)

    def _params(self):
        return {"c": self.c, "d": self.d, "scale": self.scale}

    @property
    def tail_index(self) -> float:
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

    def pdf(self, x: ArrayLike) -> np.ndarray:
        return self._dist.pdf(x)

    def sf(self, x: ArrayLike) -> np.ndarray:
        return self._dist.sf(x)
