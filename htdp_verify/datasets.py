"""Synthetic data sets with known ground truth, shaped as the papers use them.

Every generator has the signature ``f(n, d, ..., *, rng)`` and returns a small frozen dataclass holding the data,
the true parameter (``truth``) and the laws / settings that produced them. ``.data`` gives the rows as a mechanism
sees them (one record per row), so neighbouring-pair strategies can act on any data set uniformly.

Models
------
* :func:`linear_regression` -- ``y = <x, beta> + e`` with heavy-tailed design and/or noise (Hu et al. 2022, section 7).
* :func:`sparse_regression` -- the same with an s*-sparse ``beta`` (support and signs random or fixed).
* :func:`lad_regression` -- FRAPPE's design (Liu et al. 2024, section 5.1): ``x ~ N_p(0, Sigma)``,
  ``Sigma_jk = rho^{|j-k|}``, ``beta = (10/s)(1, 2, ..., s, 0, ..., 0)``, noise N(0,1), t_2, Cauchy or a
  contaminated normal (any median-zero law).
* :func:`gaussian_mixture`, :func:`mixture_of_regressions`, :func:`missing_covariates` -- the DP-EM models
  (Wang et al., eq. 4-11).
* :func:`bounded_gradient_regression`, :func:`bounded_gradient_mean` -- data whose per-coordinate k-th absolute
  moment of the loss gradient at the optimum equals a chosen tau exactly (Hu et al. 2022, Assumption 3 / R1).
"""
from __future__ import annotations

import numbers
from dataclasses import dataclass, field

import numpy as np

from ._validate import check_int, check_positive, check_prob, check_rng
from .distributions import (
    Cauchy,
    Contamination,
    Law,
    Normal,
    StudentT,
    rescale_to_moment,
)

__all__ = [
    "RegressionData",
    "MixtureData",
    "MissingCovariatesData",
    "GradientMeanData",
    "linear_regression",
    "sparse_regression",
    "lad_regression",
    "frappe_noise",
    "toeplitz_covariance",
    "gaussian_mixture",
    "mixture_of_regressions",
    "missing_covariates",
    "bounded_gradient_regression",
    "bounded_gradient_mean",
    "sparse_vector",
]


# ----------------------------------------------------------------------------------------------------------------
# containers
# ----------------------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class RegressionData:
    """``y = X beta + noise``. ``data`` stacks ``[X, y]`` (one record per row); ``truth`` is ``beta``."""

    X: np.ndarray
    y: np.ndarray
    beta: np.ndarray
    noise: np.ndarray
    support: np.ndarray | None = None
    design_law: Law | None = None
    noise_law: Law | None = None
    covariance: np.ndarray | None = None
    info: dict = field(default_factory=dict)

    @property
    def truth(self) -> np.ndarray:
        return self.beta

    @property
    def data(self) -> np.ndarray:
        return np.column_stack([self.X, self.y])

    @property
    def n(self) -> int:
        return self.X.shape[0]

    @property
    def d(self) -> int:
        return self.X.shape[1]


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


@dataclass(frozen=True)
class GradientMeanData:
    """Rows ``z_i = mu + xi_i`` for the loss ``0.5 ||w - z||^2``: gradient ``w - z``, minimiser ``mu``.

    Each coordinate of ``xi`` has law ``coordinate_law`` with ``E|xi_j|^k = tau`` exactly.
    """

    Z: np.ndarray
    mu: np.ndarray
    k: float
    tau: float
    coordinate_law: Law

    @property
    def truth(self) -> np.ndarray:
        return self.mu

    @property
    def data(self) -> np.ndarray:
        return self.Z


# ----------------------------------------------------------------------------------------------------------------
# helpers
# ----------------------------------------------------------------------------------------------------------------
def _check_law(name: str, law, *, dim: int | None = None) -> Law:
    if not isinstance(law, Law):
        raise ValueError(f"{name} must be a htdp_verify.distributions.Law, got {type(law).__name__}")
    if dim is not None and law.multivariate and law.dim != dim:
        raise ValueError(f"{name} must have dimension d={dim}, got a law of dimension {law.dim}")
    return law


def _draw_design(design: Law, n: int, d: int, rng) -> np.ndarray:
    """n x d design: a univariate law is used i.i.d. per entry, a multivariate law i.i.d. per row."""
    if design.multivariate:
        return design.sample(n, rng=rng)
    return design.sample((n, d), rng=rng)


def _check_beta(beta, d: int) -> np.ndarray:
    b = np.asarray(beta, dtype=float)
    if b.shape != (d,) or not np.all(np.isfinite(b)):
        raise ValueError(f"beta must be a finite array of shape ({d},), got shape {b.shape}")
    return b


def sparse_vector(d: int, s: int, *, norm: float = 1.0, values: str = "gaussian", support: str = "random",
                  signs: str = "random", rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """An s-sparse vector in R^d and its (sorted) support.

    values: ``"gaussian"`` -- |N(0,1)| magnitudes rescaled to l2 norm ``norm`` (Hu et al. 2022: N(0, 100) entries,
    zero out d - s, project to the unit ball); ``"constant"`` -- every non-zero equals ``norm/sqrt(s)``;
    ``"frappe"`` -- ``(10/s)(1, 2, ..., s)`` (Liu et al. 2024; ``norm`` ignored).
    support: ``"random"`` (uniform s-subset) or ``"first"`` (coordinates 0..s-1).
    signs: ``"random"`` (Rademacher) or ``"positive"``.
    """
    d = check_int("d", d, minimum=1)
    s = check_int("s", s, minimum=1)
    if s > d:
        raise ValueError(f"s must lie in [1, d={d}], got {s}")
    norm = check_positive("norm", norm)
    if values not in ("gaussian", "constant", "frappe"):
        raise ValueError(f"values must be 'gaussian', 'constant' or 'frappe', got {values!r}")
    if support not in ("random", "first"):
        raise ValueError(f"support must be 'random' or 'first', got {support!r}")
    if signs not in ("random", "positive"):
        raise ValueError(f"signs must be 'random' or 'positive', got {signs!r}")
    check_rng(rng)
    supp = np.sort(rng.choice(d, size=s, replace=False)) if support == "random" else np.arange(s)
    if values == "gaussian":
        mags = np.abs(rng.standard_normal(s))
        mags = mags * (norm / np.linalg.norm(mags))
    elif values == "constant":
        mags = np.full(s, norm / np.sqrt(s))
    else:
        mags = (10.0 / s) * np.arange(1, s + 1)
    if signs == "random":
        mags = mags * rng.choice([-1.0, 1.0], size=s)
    beta = np.zeros(d)
    beta[supp] = mags
    return beta, supp


def toeplitz_covariance(d: int, rho: float) -> np.ndarray:
    """``Sigma_jk = rho^{|j-k|}`` (FRAPPE uses rho = 0.1)."""
    d = check_int("d", d, minimum=1)
    if isinstance(rho, bool) or not isinstance(rho, numbers.Real) or not -1 < rho < 1:
        raise ValueError(f"rho must lie in (-1, 1), got {rho!r}")
    idx = np.arange(d)
    return float(rho) ** np.abs(idx[:, None] - idx[None, :])


# ----------------------------------------------------------------------------------------------------------------
# regression
# ----------------------------------------------------------------------------------------------------------------
def linear_regression(n: int, d: int, *, beta=None, design: Law | None = None, noise: Law | None = None,
                      beta_norm: float = 1.0, rng: np.random.Generator) -> RegressionData:
    """``y_i = <x_i, beta> + e_i`` with i.i.d. rows.

    Parameters
    ----------
    n, d : number of records and dimension.
    beta : the true parameter (shape (d,)); default a uniformly random direction of l2 norm ``beta_norm``.
    design : law of the covariates -- univariate (i.i.d. entries) or d-variate (i.i.d. rows); default N(0, 1).
        Hu et al. 2022 use LogNormal(0, 0.6) (Figs 1, 5) and StudentT(10) (Fig 6).
    noise : law of e, independent of x; default N(0, 1). ``beta`` minimises the population squared loss when
        ``E[x e] = 0``, i.e. when the noise or the design has mean zero (lognormal design needs zero-mean noise).

    Returns :class:`RegressionData` with ``truth = beta``.
    """
    n = check_int("n", n, minimum=1)
    d = check_int("d", d, minimum=1)
    check_rng(rng)
    design = _check_law("design", Normal() if design is None else design, dim=d)
    noise = _check_law("noise", Normal() if noise is None else noise)
    if noise.multivariate:
        raise ValueError("noise must be a univariate law")
    if beta is None:
        beta_norm = check_positive("beta_norm", beta_norm)
        g = rng.standard_normal(d)
        beta = beta_norm * g / np.linalg.norm(g)
    else:
        beta = _check_beta(beta, d)
    X = _draw_design(design, n, d, rng)
    e = noise.sample(n, rng=rng)
    return RegressionData(X=X, y=X @ beta + e, beta=beta, noise=e, design_law=design, noise_law=noise)


def sparse_regression(n: int, d: int, s: int, *, design: Law | None = None, noise: Law | None = None,
                      norm: float = 1.0, values: str = "gaussian", support: str = "random", signs: str = "random",
                      rng: np.random.Generator) -> RegressionData:
    """s*-sparse linear regression ``y = X beta + e`` with ``beta`` from :func:`sparse_vector`.

    Hu et al. 2022, Fig 7-9 (Alg 3): design N(0, 5) entries, s* = 20, ``||beta||_2 = 1``, noise LogNormal(0, 0.5)
    (not zero-mean: fine because the design is). ``support`` of the result holds the true support (sorted).
    """
    n = check_int("n", n, minimum=1)
    d = check_int("d", d, minimum=1)
    check_rng(rng)
    beta, supp = sparse_vector(d, s, norm=norm, values=values, support=support, signs=signs, rng=rng)
    base = linear_regression(n, d, beta=beta, design=design, noise=noise, rng=rng)
    return RegressionData(X=base.X, y=base.y, beta=beta, noise=base.noise, support=supp,
                          design_law=base.design_law, noise_law=base.noise_law)


def frappe_noise(name: str) -> Law:
    """The error laws of Liu et al. 2024 (FRAPPE), section 5.1, all with median 0.

    ``"normal"`` N(0,1) (f(0) = 0.399); ``"t2"`` Student t_2 (f(0) = 1/(2 sqrt 2)); ``"cauchy"`` standard Cauchy
    (f(0) = 1/pi); ``"contaminated"`` 0.9 N(0,1) + 0.1 N(0, 100^2) (robustness extension, spec section 7).
    """
    table = {
        "normal": lambda: Normal(0.0, 1.0),
        "t2": lambda: StudentT(2.0),
        "cauchy": lambda: Cauchy(),
        "contaminated": lambda: Contamination(Normal(0.0, 1.0), 0.1, Normal(0.0, 100.0)),
    }
    if name not in table:
        raise ValueError(f"noise must be one of {sorted(table)} or a Law, got {name!r}")
    return table[name]()


def lad_regression(n: int, d: int, s: int = 10, *, noise: str | Law = "cauchy", rho: float = 0.1,
                   values: str = "frappe", support: str = "first", signs: str = "positive",
                   rng: np.random.Generator) -> RegressionData:
    """FRAPPE's sparse LAD design (Liu et al. 2024, section 5.1).

    ``x_i ~ N_d(0, Sigma)``, ``Sigma_jk = rho^{|j-k|}`` (rho = 0.1); ``beta = (10/s)(1, ..., s, 0, ..., 0)`` by
    default; errors independent of x with median 0 (``frappe_noise`` names or any Law with ``sf(0) = 1/2``).
    The paper's grid: N in {2000, 5000, 10000}, d in {50, 100, 200}. ``info["f0"]`` is the error density at 0 (the
    quantity FRAPPE estimates by KDE) when the law has a density.
    """
    n = check_int("n", n, minimum=1)
    d = check_int("d", d, minimum=1)
    check_rng(rng)
    law = frappe_noise(noise) if isinstance(noise, str) else _check_law("noise", noise)
    if law.multivariate:
        raise ValueError("noise must be a univariate law")
    try:
        med_gap = abs(float(law.sf(0.0)) - 0.5)
    except NotImplementedError:
        med_gap = None
    if med_gap is not None and med_gap > 1e-9:
        raise ValueError(f"noise must have median 0 (sf(0) = 1/2) for beta to be the LAD target, got sf(0)={0.5 + med_gap}")
    cov = toeplitz_covariance(d, rho)
    beta, supp = sparse_vector(d, s, values=values, support=support, signs=signs, rng=rng)
    X = rng.standard_normal((n, d)) @ np.linalg.cholesky(cov).T
    e = law.sample(n, rng=rng)
    try:
        f0 = float(law.pdf(0.0))
    except NotImplementedError:
        f0 = None
    return RegressionData(X=X, y=X @ beta + e, beta=beta, noise=e, support=supp, design_law=None, noise_law=law,
                          covariance=cov, info={"f0": f0, "rho": float(rho)})


# ----------------------------------------------------------------------------------------------------------------
# DP-EM models (Wang et al., section 1.2)
# ----------------------------------------------------------------------------------------------------------------
def _em_beta(beta, d, snr, sigma, rng):
    if beta is None:
        snr = check_positive("snr", snr)
        g = rng.standard_normal(d)
        return snr * sigma * g / np.linalg.norm(g)
    return _check_beta(beta, d)


def gaussian_mixture(n: int, d: int, *, beta=None, snr: float = 3.0, sigma: float = 1.0,
                     rng: np.random.Generator) -> MixtureData:
    """Two symmetric Gaussian components: ``y = Z beta + V``, Z Rademacher, ``V ~ N(0, sigma^2 I_d)`` (Wang et al. eq. 4).

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


def mixture_of_regressions(n: int, d: int, *, beta=None, snr: float = 3.0, sigma: float = 1.0,
                           rng: np.random.Generator) -> MixtureData:
    """Mixture of two regressions: ``y = Z <beta, x> + V``, ``x ~ N(0, I_d)``, ``V ~ N(0, sigma^2)``, Z Rademacher (eq. 6)."""
    n = check_int("n", n, minimum=1)
    d = check_int("d", d, minimum=1)
    sigma = check_positive("sigma", sigma)
    check_rng(rng)
    beta = _em_beta(beta, d, snr, sigma, rng)
    X = rng.standard_normal((n, d))
    Z = rng.choice([-1.0, 1.0], size=n)
    y = Z * (X @ beta) + sigma * rng.standard_normal(n)
    return MixtureData(beta=beta, Z=Z, sigma=sigma, X=X, y=y)


def missing_covariates(n: int, d: int, *, beta=None, snr: float = 3.0, sigma: float = 1.0, p_missing: float = 0.2,
                       rng: np.random.Generator) -> MissingCovariatesData:
    """Regression with missing covariates (eq. 8): ``y = <x, beta> + V``, ``x ~ N(0, I_d)``, ``V ~ N(0, sigma^2)``;
    each coordinate of x is independently missing with probability ``p_missing`` (mask 1 = observed; missing stored as 0).
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
    return MissingCovariatesData(X_obs=np.where(mask, X, 0.0), mask=mask, y=y, beta=beta, sigma=sigma,
                                 p_missing=p_missing, X_full=X)


# ----------------------------------------------------------------------------------------------------------------
# bounded-moment gradients (Hu et al. 2022)
# ----------------------------------------------------------------------------------------------------------------
def bounded_gradient_regression(n: int, d: int, *, k: float = 2.0, tau: float = 1.0, design: Law | None = None,
                                noise: Law | None = None, beta=None, beta_norm: float = 1.0,
                                rng: np.random.Generator) -> RegressionData:
    """Linear regression whose squared-loss gradient has per-coordinate k-th absolute moment exactly ``tau`` at beta.

    Loss ``0.5 (<w, x> - y)^2``, gradient ``x (<w, x> - y)``; at ``w = beta`` it is ``-x e``, and with x and e
    independent, ``E|x_j e|^k = E|x_j|^k E|e|^k``. The design (univariate, i.i.d. entries; default StudentT(5)) is
    rescaled to ``E|x_j|^k = 1`` and the noise (default StudentT(5)) to ``E|e|^k = tau`` (raw absolute moments), so
    ``E|grad_j l(beta)|^k = tau`` for every j (Hu et al. 2022, Assumption 3 with k = 2 at the optimum; their
    section 8.3 notes the uniform-over-w version is a 4th-moment condition). ``info`` records k and tau.
    Needs ``k < tail_index`` of both laws.
    """
    k = check_positive("k", k)
    tau = check_positive("tau", tau)
    design = StudentT(5.0) if design is None else _check_law("design", design)
    noise = StudentT(5.0) if noise is None else _check_law("noise", noise)
    if design.multivariate or noise.multivariate:
        raise ValueError("design and noise must be univariate laws (i.i.d. coordinates)")
    for name, law in (("design", design), ("noise", noise)):
        if not k < law.tail_index:
            raise ValueError(f"k must be < the tail index of {name} ({law.tail_index}), got k={k}")
    design = rescale_to_moment(design, k, 1.0, measure="raw")
    noise = rescale_to_moment(noise, k, tau, measure="raw")
    base = linear_regression(n, d, beta=beta, design=design, noise=noise, beta_norm=beta_norm, rng=rng)
    return RegressionData(X=base.X, y=base.y, beta=base.beta, noise=base.noise, design_law=design, noise_law=noise,
                          info={"k": k, "tau": tau})


def bounded_gradient_mean(n: int, d: int, *, k: float = 2.0, tau: float = 1.0, law: Law | None = None, mu=None,
                          rng: np.random.Generator) -> GradientMeanData:
    """Mean-estimation SCO instance (Hu et al. 2022, R1): rows ``z = mu + xi``, loss ``0.5 ||w - z||^2``.

    The gradient ``w - z`` has coordinates ``w_j - mu_j - xi_j``; at the minimiser ``w = mu`` its per-coordinate
    central k-th absolute moment is ``E|xi_j - E xi_j|^k = tau`` exactly: ``xi_j`` i.i.d. from ``law`` (default
    StudentT(3), as in R1's t_3/sqrt 3), centred and rescaled. ``mu`` defaults to ``1/d`` (a face of the l1 ball).
    """
    n = check_int("n", n, minimum=1)
    d = check_int("d", d, minimum=1)
    k = check_positive("k", k)
    tau = check_positive("tau", tau)
    check_rng(rng)
    law = StudentT(3.0) if law is None else _check_law("law", law)
    if law.multivariate:
        raise ValueError("law must be univariate (i.i.d. coordinates)")
    if not (k < law.tail_index and law.tail_index > 1):
        raise ValueError(f"k must be < the tail index of law ({law.tail_index}) and the law needs a mean, got k={k}")
    scaled = rescale_to_moment(law, k, tau, measure="central")
    mu = np.full(d, 1.0 / d) if mu is None else _check_beta(mu, d)
    xi = scaled.sample((n, d), rng=rng) - scaled.mean
    return GradientMeanData(Z=mu + xi, mu=mu, k=k, tau=tau, coordinate_law=scaled)
