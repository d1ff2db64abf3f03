"""Generic synthetic data sets with known ground truth.

Every generator has the signature ``f(n, d, ..., *, rng)`` and returns a small frozen dataclass holding the data,
the true parameter (``truth``) and the laws / settings that produced them. ``.data`` gives the rows as a mechanism
sees them (one record per row), so neighbouring-pair strategies can act on any data set uniformly.

Models
------
* :func:`linear_regression` -- ``y = <x, beta> + e`` with heavy-tailed design and/or noise.
* :func:`sparse_regression` -- the same with an s*-sparse ``beta`` (support and signs random or fixed).
* :func:`sparse_vector` -- an s-sparse vector and its support; :func:`toeplitz_covariance` -- ``rho^{|j-k|}``.
* :func:`check_law`, :func:`check_beta` -- the validation helpers, for generators built on these ones.

A paper's own designs live next to that paper's estimators (``estimators/<stem>/data.py``, e.g. the DP-EM mixture
models in :mod:`estimators.dpem.data`), not in the engine.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ._validate import check_int, check_positive, check_rng
from .distributions import Law, Normal

__all__ = [
    "RegressionData",
    "linear_regression",
    "sparse_regression",
    "sparse_vector",
    "toeplitz_covariance",
    "check_law",
    "check_beta",
]


# ----------------------------------------------------------------------------------------------------------------
# containers
# ----------------------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class RegressionData:
    """``y = X beta + noise``. ``data`` stacks ``[X, y]`` (one record per row); ``truth`` is ``beta``.

    Parameters
    ----------
    X : numpy.ndarray
        Design, shape (n, d).
    y : numpy.ndarray
        Responses, shape (n,).
    beta : numpy.ndarray
        The true parameter, shape (d,).
    noise : numpy.ndarray
        The noise drawn, shape (n,).
    support : numpy.ndarray, optional
        The true support of a sparse ``beta`` (sorted).
    design_law : Law, optional
        Law of the covariates.
    noise_law : Law, optional
        Law of the noise.
    covariance : numpy.ndarray, optional
        Covariance of the design, when known.
    info : dict, optional
        Anything else about the draw.
    """

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


# ----------------------------------------------------------------------------------------------------------------
# helpers
# ----------------------------------------------------------------------------------------------------------------
def check_law(name: str, law: Law, *, dim: int | None = None) -> Law:
    """``law`` if it is a :class:`~htdp_verify.distributions.Law` (of dimension ``dim`` when multivariate); else
    ValueError.

    Parameters
    ----------
    name : str
        Parameter name for the error message.
    law : Law
        The law.
    dim : int, optional
        The dimension a multivariate law must have.

    Returns
    -------
    Law
        ``law``.
    """
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


def check_beta(beta: Any, d: int) -> np.ndarray:
    """``beta`` as a finite float array of shape (d,); else ValueError naming ``beta``.

    Parameters
    ----------
    beta : array_like
        The parameter.
    d : int
        The dimension.

    Returns
    -------
    numpy.ndarray
        ``beta`` as floats.
    """
    b = np.asarray(beta, dtype=float)
    if b.shape != (d,) or not np.all(np.isfinite(b)):
        raise ValueError(f"beta must be a finite array of shape ({d},), got shape {b.shape}")
    return b


def sparse_vector(
    d: int,
    s: int,
    *,
    norm: float = 1.0,
    values: str = "gaussian",
    support: str = "random",
    signs: str = "random",
    rng: np.random.Generator,
) -> tuple[np.ndarray, np.ndarray]:
    """An s-sparse vector in R^d and its (sorted) support.

    Parameters
    ----------
    d : int
        Dimension.
    s : int
        Number of non-zero coordinates.
    norm : float, default 1.0
        l2 norm of the vector (see ``values``).
    values : str, default "gaussian"
        ``"gaussian"`` -- ``|N(0,1)|`` magnitudes rescaled to l2 norm ``norm``; ``"constant"`` -- every
        non-zero equals ``norm/sqrt(s)``; ``"ramp"`` -- ``(10/s)(1, 2, ..., s)`` (a linear ramp; ``norm`` ignored).
    support : str, default "random"
        ``"random"`` (uniform s-subset) or ``"first"`` (coordinates 0..s-1).
    signs : str, default "random"
        ``"random"`` (Rademacher) or ``"positive"``.
    rng : numpy.random.Generator
        The generator.

    Returns
    -------
    tuple of numpy.ndarray
        The vector, shape (d,), and its sorted support.
    """
    d = check_int("d", d, minimum=1)
    s = check_int("s", s, minimum=1)
    if s > d:
        raise ValueError(f"s must lie in [1, d={d}], got {s}")
    norm = check_positive("norm", norm)
    if values not in ("gaussian", "constant", "ramp"):
        raise ValueError(f"values must be 'gaussian', 'constant' or 'ramp', got {values!r}")
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
    """``Sigma_jk = rho^{|j-k|}`` (FRAPPE uses rho = 0.1).

    Parameters
    ----------
    d : int
        Dimension.
    rho : float
        Correlation between neighbouring coordinates.

    Returns
    -------
    numpy.ndarray
        The d × d matrix.
    """
    d = check_int("d", d, minimum=1)
    if isinstance(rho, bool) or not isinstance(rho, numbers.Real) or not -1 < rho < 1:
        raise ValueError(f"rho must lie in (-1, 1), got {rho!r}")
    idx = np.arange(d)
    return float(rho) ** np.abs(idx[:, None] - idx[None, :])


# ----------------------------------------------------------------------------------------------------------------
# regression
# ----------------------------------------------------------------------------------------------------------------
def linear_regression(
    n: int,
    d: int,
    *,
    beta: Any = None,
    design: Law | None = None,
    noise: Law | None = None,
    beta_norm: float = 1.0,
    rng: np.random.Generator,
) -> RegressionData:
    """``y_i = <x_i, beta> + e_i`` with i.i.d. rows.

    Parameters
    ----------
    n, d : int
        Number of records and dimension.
    beta : array_like, optional
        The true parameter (shape (d,)); default a uniformly random direction of l2 norm ``beta_norm``.
    design : Law, optional
        Law of the covariates -- univariate (i.i.d. entries) or d-variate (i.i.d. rows); default N(0, 1).
        Hu et al. 2022 use LogNormal(0, 0.6) (Figs 1, 5) and StudentT(10) (Fig 6).
    noise : Law, optional
        Law of e, independent of x; default N(0, 1). ``beta`` minimises the population squared loss when
        ``E[x e] = 0``, i.e. when the noise or the design has mean zero (lognormal design needs zero-mean noise).
    beta_norm : float, default 1.0
        The l2 norm of the default ``beta``.
    rng : numpy.random.Generator
        The generator.

    Returns
    -------
    RegressionData
        The data, with ``truth = beta``.
    """
    n = check_int("n", n, minimum=1)
    d = check_int("d", d, minimum=1)
    check_rng(rng)
    design = check_law("design", Normal() if design is None else design, dim=d)
    noise = check_law("noise", Normal() if noise is None else noise)
    if noise.multivariate:
        raise ValueError("noise must be a univariate law")
    if beta is None:
        beta_norm = check_positive("beta_norm", beta_norm)
        g = rng.standard_normal(d)
        beta = beta_norm * g / np.linalg.norm(g)
    else:
        beta = check_beta(beta, d)
    X = _draw_design(design, n, d, rng)
    e = noise.sample(n, rng=rng)
    return RegressionData(X=X, y=X @ beta + e, beta=beta, noise=e, design_law=design, noise_law=noise)


def sparse_regression(
    n: int,
    d: int,
    s: int,
    *,
    design: Law | None = None,
    noise: Law | None = None,
    norm: float = 1.0,
    values: str = "gaussian",
    support: str = "random",
    signs: str = "random",
    rng: np.random.Generator,
) -> RegressionData:
    """s*-sparse linear regression ``y = X beta + e`` with ``beta`` from :func:`sparse_vector`.

    Hu et al. 2022, Fig 7-9 (Alg 3): design N(0, 5) entries, s* = 20, ``||beta||_2 = 1``, noise LogNormal(0, 0.5)
    (not zero-mean: fine because the design is). ``support`` of the result holds the true support (sorted).

    Parameters
    ----------
    n, d : int
        Number of records and dimension.
    s : int
        Sparsity s*.
    design : Law, optional
        Law of the covariates (default N(0, 1)).
    noise : Law, optional
        Law of the noise (default N(0, 1)).
    norm, values, support, signs
        How ``beta`` is drawn, as in :func:`sparse_vector`.
    rng : numpy.random.Generator
        The generator.

    Returns
    -------
    RegressionData
        The data; ``support`` holds the true support (sorted).
    """
    n = check_int("n", n, minimum=1)
    d = check_int("d", d, minimum=1)
    check_rng(rng)
    beta, supp = sparse_vector(d, s, norm=norm, values=values, support=support, signs=signs, rng=rng)
    base = linear_regression(n, d, beta=beta, design=design, noise=noise, rng=rng)
    return RegressionData(
        X=base.X,
        y=base.y,
        beta=beta,
        noise=base.noise,
        support=supp,
        design_law=base.design_law,
        noise_law=base.noise_law,
    )
