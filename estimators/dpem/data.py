"""Wang et al. (DP-EM paper)'s latent-variable models, eqs. (4)-(11), with their ground truth.

* :func:`gaussian_mixture` — two symmetric Gaussian components (eq. 4), :class:`MixtureData`.
* :func:`mixture_of_regressions` — mixture of two regressions (eq. 6), :class:`MixtureData`.
* :func:`missing_covariates` — regression with covariates missing at random (eq. 8), :class:`MissingCovariatesData`.

Spec: ``shared/specs/wang_dp_em.md``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from htdp_verify._validate import check_int, check_positive, check_prob, check_rng
from htdp_verify.datasets import check_beta

__all__ = ["MixtureData", "MissingCovariatesData", "gaussian_mixture", "mixture_of_regressions", "missing_covariates"]


@dataclass(frozen=True)
class MixtureData:
    """Latent-variable data of the DP-EM models. ``Y`` (GMM) or ``(X, y)`` (mixture of regressions); labels ``Z``.

    ``beta`` is identified only up to sign; use ``sign_invariant_error``.
    """

    beta: np.ndarray
    Z: np.ndarray
    sigma: float
    Y: np.ndarray | None = None
    X: np.ndarray | None = None
    y: np.ndarray | None = None

    @property
    def truth(self) -> np.ndarray:
        return self.beta

    @property
    def data(self) -> np.ndarray:
        if self.Y is not None:
            return self.Y
        return np.column_stack([self.X, self.y])

    def sign_invariant_error(self, estimate) -> float:
        """``min(||b - beta||, ||b + beta||)`` (Wang et al.: beta and -beta define the same law)."""
        b = np.asarray(estimate, dtype=float)
        return float(min(np.linalg.norm(b - self.beta), np.linalg.norm(b + self.beta)))


@dataclass(frozen=True)
class MissingCovariatesData:
    """Regression with missing covariates: ``X_obs = mask * X`` (missing entries stored as 0), ``mask`` 1 = observed."""

    X_obs: np.ndarray
    mask: np.ndarray
    y: np.ndarray
    beta: np.ndarray
    sigma: float
    p_missing: float
    X_full: np.ndarray

    @property
    def truth(self) -> np.ndarray:
        return self.beta

    @property
    def data(self) -> np.ndarray:
        return np.column_stack([self.X_obs, self.mask.astype(float), self.y])


def _em_beta(beta, d, snr, sigma, rng):
    if beta is None:
        snr = check_positive("snr", snr)
        g = rng.standard_normal(d)
        return snr * sigma * g / np.linalg.norm(g)
    return check_beta(beta, d)


def gaussian_mixture(
    n: int, d: int, *, beta=None, snr: float = 3.0, sigma: float = 1.0, rng: np.random.Generator
) -> MixtureData:
    """Two symmetric Gaussian components: ``y = Z beta + V``, Z Rademacher, ``V ~ N(0, sigma^2 I_d)`` (Wang et al.,
    eq. 4).

    ``beta`` defaults to a random direction with ``||beta|| / sigma = snr`` (the paper's experiments use SNR 3).
    """
    n = check_int("n", n, minimum=1)
    d = check_int("d", d, minimum=1)
    sigma = check_positive("sigma", sigma)
    check_rng(rng)
    beta = _em_beta(beta, d, snr, sigma, rng)
    Z = rng.choice([-1.0, 1.0], size=n)
    Y = Z[:, None] * beta + sigma * rng.standard_normal((n, d))
    return MixtureData(beta=beta, Z=Z, sigma=sigma, Y=Y)


def mixture_of_regressions(
    n: int, d: int, *, beta=None, snr: float = 3.0, sigma: float = 1.0, rng: np.random.Generator
) -> MixtureData:
    """Mixture of two regressions: ``y = Z <beta, x> + V``, ``x ~ N(0, I_d)``, ``V ~ N(0, sigma^2)``, Z Rademacher
    (eq. 6)."""
    n = check_int("n", n, minimum=1)
    d = check_int("d", d, minimum=1)
    sigma = check_positive("sigma", sigma)
    check_rng(rng)
    beta = _em_beta(beta, d, snr, sigma, rng)
    X = rng.standard_normal((n, d))
    Z = rng.choice([-1.0, 1.0], size=n)
    y = Z * (X @ beta) + sigma * rng.standard_normal(n)
    return MixtureData(beta=beta, Z=Z, sigma=sigma, X=X, y=y)


def missing_covariates(
    n: int, d: int, *, beta=None, snr: float = 3.0, sigma: float = 1.0, p_missing: float = 0.2, rng: np.random.Generator
) -> MissingCovariatesData:
    """Regression with missing covariates (eq. 8): ``y = <x, beta> + V``, ``x ~ N(0, I_d)``, ``V ~ N(0, sigma^2)``;
    each coordinate of x is independently missing with probability ``p_missing`` (mask 1 = observed; missing stored
    as 0).
    """
    n = check_int("n", n, minimum=1)
    d = check_int("d", d, minimum=1)
    sigma = check_positive("sigma", sigma)
    p_missing = check_prob("p_missing", p_missing, open_low=False, open_high=True)
    check_rng(rng)
    beta = _em_beta(beta, d, snr, sigma, rng)
    X = rng.standard_normal((n, d))
    y = X @ beta + sigma * rng.standard_normal(n)
    mask = rng.random((n, d)) >= p_missing
    return MissingCovariatesData(
        X_obs=np.where(mask, X, 0.0), mask=mask, y=y, beta=beta, sigma=sigma, p_missing=p_missing, X_full=X
    )
