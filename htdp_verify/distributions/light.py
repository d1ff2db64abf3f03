"""Laws with all moments finite (``tail_index = inf``): :class:`Normal`, :class:`LogNormal`, :class:`Spike`.

The Gaussian is the light-tailed reference; the log-normal has every moment finite but growing like
``exp(k^2 sigma^2 / 2)`` (Hu et al. 2022, section 8); the two-point spike is the canonical hard instance for
heavy-tailed mean estimation (a rare large atom with a prescribed k-th moment).
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike
from scipy import special, stats

from .._validate import check_positive, check_prob
from .base import Law, _check_order, _check_real, abs_normal_moment

__all__ = ["Normal", "LogNormal", "Spike"]


class Normal(Law):
    """Gaussian N(loc, scale^2): the light-tailed reference law.

    Density ``phi((x - loc)/scale)/scale``. All moments finite (``tail_index = inf``).
    Central: ``E|X - loc|^k = scale^k 2^{k/2} Gamma((k+1)/2)/sqrt(pi)``.
    Raw: ``E|X|^k = scale^k 2^{k/2} Gamma((k+1)/2)/sqrt(pi) * 1F1(-k/2; 1/2; -loc^2/(2 scale^2))`` (Kummer function).

    Parameters
    ----------
    loc : float, default 0.0
        Mean.
    scale : float, default 1.0
        Standard deviation (> 0).
    """

    def __init__(self, loc: float = 0.0, scale: float = 1.0):
        self.loc = _check_real("loc", loc)
        self.scale = check_positive("scale", scale)
        self._dist = stats.norm(self.loc, self.scale)

    def _params(self):
        return {"loc": self.loc, "scale": self.scale}

    @property
    def tail_index(self) -> float:
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

    def abs_moment_about(self, k: float, c: float) -> float:
        k = _check_order(k, self.tail_index)
        m = (self.loc - _check_real("c", c)) / self.scale
        return float(self.scale**k * abs_normal_moment(k) * special.hyp1f1(-k / 2, 0.5, -(m**2) / 2))

    def pdf(self, x: ArrayLike) -> np.ndarray:
        return self._dist.pdf(x)

    def sf(self, x: ArrayLike) -> np.ndarray:
        return self._dist.sf(x)


class LogNormal(Law):
    """Log-normal: X = exp(mu + sigma Z), Z ~ N(0,1); density
    ``exp(-(log x - mu)^2/(2 sigma^2)) / (x sigma sqrt(2 pi))``.

    All moments finite (``tail_index = inf``) but they grow like ``exp(k^2 sigma^2 / 2)``:
    raw ``E X^k = exp(k mu + k^2 sigma^2/2)``; mean ``exp(mu + sigma^2/2)``. Central absolute moments: quadrature.
    ``sigma`` is the standard deviation of ``log X`` (Hu et al. 2022's "Lognormal(0, 0.6)" read as sigma = 0.6).

    Parameters
    ----------
    mu : float, default 0.0
        Mean of ``log X``.
    sigma : float, default 1.0
        Standard deviation of ``log X`` (> 0).
    """

    def __init__(self, mu: float = 0.0, sigma: float = 1.0):
        self.mu = _check_real("mu", mu)
        self.sigma = check_positive("sigma", sigma)
        self._dist = stats.lognorm(self.sigma, scale=math.exp(self.mu))

    def _params(self):
        return {"mu": self.mu, "sigma": self.sigma}

    @property
    def tail_index(self) -> float:
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

    def pdf(self, x: ArrayLike) -> np.ndarray:
        return self._dist.pdf(x)

    def sf(self, x: ArrayLike) -> np.ndarray:
        return self._dist.sf(x)


class Spike(Law):
    """Two-point "spike" law: X = 0 with probability ``1 - p`` and X = ``a`` with probability ``p``.

    All moments finite. Mean ``p a``; raw ``E|X|^k = p |a|^k``; central
    ``E|X - pa|^k = |a|^k p (1-p) (p^{k-1} + (1-p)^{k-1})``. With small ``p`` and large ``a`` this is the
    canonical hard instance for heavy-tailed mean estimation (a rare huge atom with a prescribed k-th moment);
    :meth:`with_moment` picks ``a``.

    Parameters
    ----------
    p : float
        Probability of the atom, in (0, 1).
    a : float
        Position of the atom.
    """

    def __init__(self, p: float, a: float):
        self.p = check_prob("p", p, open_low=True, open_high=True)
        self.a = _check_real("a", a)
        if self.a == 0:
            raise ValueError("a must be a non-zero finite real number, got 0")

    @classmethod
    def with_moment(cls, k: float, target: float, p: float, central: bool = False) -> Spike:
        """The spike law with atom ``a > 0`` at probability ``p`` whose k-th absolute (raw or central) moment is
        ``target``.

        Raw: ``a = (target/p)^{1/k}``; central: ``a = (target / (p(1-p)(p^{k-1} + (1-p)^{k-1})))^{1/k}``.

        Parameters
        ----------
        k : float
            Moment order.
        target : float
            The moment.
        p : float
            Probability of the atom.
        central : bool, default False
            Central instead of raw moment.

        Returns
        -------
        Spike
            The law.
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
    def tail_index(self) -> float:
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

    def abs_moment_about(self, k: float, c: float) -> float:
        k = _check_order(k, self.tail_index)
        c = _check_real("c", c)
        return (1 - self.p) * abs(c) ** k + self.p * abs(self.a - c) ** k

    def sf(self, x: ArrayLike) -> np.ndarray:
        x = np.asarray(x, dtype=float)
        return (1 - self.p) * (x < 0) + self.p * (x < self.a)
