"""Liu et al. 2024 (FRAPPE, private sparse LAD regression): the simulation design of its section 5.1.

* :func:`frappe_noise` — the paper's error laws (normal, t_2, Cauchy; a contaminated normal as an extension).
* :func:`lad_regression` — ``x ~ N_d(0, Sigma)`` with Toeplitz ``Sigma_jk = rho^{|j-k|}``,
  ``beta = (10/s)(1, 2, ..., s, 0, ..., 0)``, median-zero errors; returns a :class:`RegressionData`.

Only the data generator exists so far (the estimator is not shipped). Spec: ``shared/specs/liu2024_frappe_lad.md``.
"""

from __future__ import annotations

import numpy as np

from htdp_verify._validate import check_int, check_rng
from htdp_verify.datasets import RegressionData, check_law, sparse_vector, toeplitz_covariance
from htdp_verify.distributions import Cauchy, Contamination, Law, Normal, StudentT

__all__ = ["frappe_noise", "lad_regression"]


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


def lad_regression(
    n: int,
    d: int,
    s: int = 10,
    *,
    noise: str | Law = "cauchy",
    rho: float = 0.1,
    values: str = "ramp",
    support: str = "first",
    signs: str = "positive",
    rng: np.random.Generator,
) -> RegressionData:
    """FRAPPE's sparse LAD design (Liu et al. 2024, section 5.1).

    ``x_i ~ N_d(0, Sigma)``, ``Sigma_jk = rho^{|j-k|}`` (rho = 0.1); ``beta = (10/s)(1, ..., s, 0, ..., 0)`` by
    default (``values="ramp"`` of :func:`htdp_verify.datasets.sparse_vector`); errors independent of x with median 0
    (``frappe_noise`` names or any Law with ``sf(0) = 1/2``). The paper's grid: N in {2000, 5000, 10000}, d in {50, 100,
    200}. ``info["f0"]`` is the error density at 0 (the quantity FRAPPE estimates by KDE) when the law has a density.
    """
    n = check_int("n", n, minimum=1)
    d = check_int("d", d, minimum=1)
    check_rng(rng)
    law = frappe_noise(noise) if isinstance(noise, str) else check_law("noise", noise)
    if law.multivariate:
        raise ValueError("noise must be a univariate law")
    try:
        med_gap = abs(float(law.sf(0.0)) - 0.5)
    except NotImplementedError:
        med_gap = None
    if med_gap is not None and med_gap > 1e-9:
        raise ValueError(
            f"noise must have median 0 (sf(0) = 1/2) for beta to be the LAD target, got sf(0)={0.5 + med_gap}"
        )
    cov = toeplitz_covariance(d, rho)
    beta, supp = sparse_vector(d, s, values=values, support=support, signs=signs, rng=rng)
    X = rng.standard_normal((n, d)) @ np.linalg.cholesky(cov).T
    e = law.sample(n, rng=rng)
    try:
        f0 = float(law.pdf(0.0))
    except NotImplementedError:
        f0 = None
    return RegressionData(
        X=X,
        y=X @ beta + e,
        beta=beta,
        noise=e,
        support=supp,
        design_law=None,
        noise_law=law,
        covariance=cov,
        info={"f0": f0, "rho": float(rho)},
    )
