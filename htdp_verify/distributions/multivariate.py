"""Multivariate heavy-tailed laws: :class:`MultivariateT` (elliptical, any shape matrix) and :class:`RadialPareto`
(isotropic, Pareto radius), with exact directional and norm moments where closed forms exist.
"""

from __future__ import annotations

import math
import numbers
from typing import Any

import numpy as np
from numpy.typing import ArrayLike
from scipy import special, stats

from .._validate import check_positive
from .base import Law, _check_order, abs_t_moment, sphere_coordinate_moment
from .heavy import Pareto, StudentT

__all__ = ["MultivariateT", "RadialPareto"]


class MultivariateT(Law):
    """Multivariate t: X = loc + A Z / sqrt(W / nu), Z ~ N(0, I_d), W ~ chi^2_nu, A A^T = shape (the shape matrix).

    Density
    ``Gamma((nu+d)/2) / (Gamma(nu/2) (nu pi)^{d/2} |Sigma|^{1/2}) (1 + (x-mu)^T Sigma^{-1} (x-mu)/nu)^{-(nu+d)/2}``.
    ``tail_index = nu``; mean ``loc`` (nu > 1). Every projection is a scaled t:
    ``<u, X - loc> = sqrt(u^T Sigma u) T_nu``, so the coordinate j has law ``StudentT(nu, loc_j, sqrt(Sigma_jj))``
    (``marginal(j)``) and

    * ``directional_moment(k) = lambda_max(Sigma)^{k/2} E|T_nu|^k`` (attained at the top eigenvector);
    * ``norm_moment(k)``: for ``loc = 0`` and ``Sigma = s^2 I``,
      ``E||X||^k = s^k nu^{k/2} Gamma((d+k)/2) Gamma((nu-k)/2) / (Gamma(d/2) Gamma(nu/2))``;
      for ``k = 2`` and any loc, Sigma: ``||loc||^2 + tr(Sigma) nu/(nu-2)``; otherwise ``NotImplementedError``.
    * ``norm_sf(r)`` (``loc = 0``, ``Sigma = s^2 I``): ``||X||^2/(d s^2) ~ F(d, nu)``.

    Parameters
    ----------
    nu : float
        Degrees of freedom (> 0); the tail index.
    loc : array_like, optional
        The centre, a 1-d array (default: the origin).
    shape : array_like or float, optional
        The symmetric positive-definite shape matrix, or a positive multiple of the identity (default: the identity).
    d : int, optional
        The dimension, required when neither ``loc`` nor ``shape`` gives it.
    """

    multivariate = True

    def __init__(self, nu: float, loc: Any = None, shape: Any = None, d: int | None = None):
        self.nu = check_positive("nu", nu)
        if loc is None and shape is None and d is None:
            raise ValueError("d must be given when neither loc nor shape is")
        if loc is not None:
            loc = np.asarray(loc, dtype=float)
            if loc.ndim != 1 or loc.size == 0 or not np.all(np.isfinite(loc)):
                raise ValueError(f"loc must be a non-empty finite 1-d array, got {loc!r}")
        dim = (
            loc.size
            if loc is not None
            else (np.asarray(shape).shape[0] if shape is not None and np.ndim(shape) == 2 else d)
        )
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
    def tail_index(self) -> float:
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

    def directional_moment(self, k: float) -> float:
        """``sup_{||u||=1} E|<u, X - loc>|^k = lambda_max(shape)^{k/2} E|T_nu|^k``.

        Parameters
        ----------
        k : float
            Order of the moment, ``0 < k < nu``.

        Returns
        -------
        float
            The directional moment.
        """
        k = _check_order(k, self.tail_index)
        lam = float(np.linalg.eigvalsh(self.shape)[-1])
        return lam ** (k / 2) * abs_t_moment(k, self.nu)

    def top_direction(self) -> np.ndarray:
        """A unit vector attaining the directional moment (top eigenvector of the shape matrix).

        Returns
        -------
        numpy.ndarray
            The unit vector.
        """
        return np.linalg.eigh(self.shape)[1][:, -1]

    def _isotropic_scale(self):
        s2 = self.shape[0, 0]
        if np.allclose(self.shape, s2 * np.eye(self.dim), rtol=0, atol=1e-12 * s2) and not np.any(self.loc):
            return math.sqrt(s2)
        return None

    def norm_moment(self, k: float) -> float:
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

    def norm_sf(self, r: ArrayLike) -> np.ndarray:
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

    Parameters
    ----------
    d : int
        Dimension (≥ 1).
    alpha : float
        Tail index of the radius (> 0).
    xm : float, default 1.0
        Smallest radius (> 0).
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
    def tail_index(self) -> float:
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

    def directional_moment(self, k: float) -> float:
        k = _check_order(k, self.tail_index)
        return self.radius._raw_moment(k) * sphere_coordinate_moment(k, self.dim)

    def _raw_moment(self, k):
        return np.full(self.dim, self.radius._raw_moment(k) * sphere_coordinate_moment(k, self.dim))

    def _central_moment(self, k):
        return self._raw_moment(k)

    def norm_moment(self, k: float) -> float:
        k = _check_order(k, self.tail_index)
        return self.radius._raw_moment(k)

    def norm_sf(self, r: ArrayLike) -> np.ndarray:
        return self.radius.sf(r)
