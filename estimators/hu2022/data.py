"""Hu et al. 2022's synthetic data: gradients with an exactly known per-coordinate k-th moment.

* :func:`bounded_gradient_regression` — linear regression whose squared-loss gradient at the optimum has
  per-coordinate k-th absolute moment exactly ``tau`` (Assumption 3 / their section 8.3).
* :func:`bounded_gradient_mean` — the mean-estimation SCO instance R1 (rows ``z = mu + xi``), returning
  :class:`GradientMeanData`.

Generic generators (linear / sparse regression, sparse vectors) are in :mod:`htdp_verify.datasets`.
Spec: ``shared/specs/hu2022_heavy_tailed_dp_sco.md``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from htdp_verify._validate import check_int, check_positive, check_rng
from htdp_verify.datasets import RegressionData, check_beta, check_law, linear_regression
from htdp_verify.distributions import Law, StudentT, rescale_to_moment

__all__ = ["GradientMeanData", "bounded_gradient_regression", "bounded_gradient_mean"]


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


def bounded_gradient_regression(
    n: int,
    d: int,
    *,
    k: float = 2.0,
    tau: float = 1.0,
    design: Law | None = None,
    noise: Law | None = None,
    beta=None,
    beta_norm: float = 1.0,
    rng: np.random.Generator,
) -> RegressionData:
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
    design = StudentT(5.0) if design is None else check_law("design", design)
    noise = StudentT(5.0) if noise is None else check_law("noise", noise)
    if design.multivariate or noise.multivariate:
        raise ValueError("design and noise must be univariate laws (i.i.d. coordinates)")
    for name, law in (("design", design), ("noise", noise)):
        if not k < law.tail_index:
            raise ValueError(f"k must be < the tail index of {name} ({law.tail_index}), got k={k}")
    design = rescale_to_moment(design, k, 1.0, measure="raw")
    noise = rescale_to_moment(noise, k, tau, measure="raw")
    base = linear_regression(n, d, beta=beta, design=design, noise=noise, beta_norm=beta_norm, rng=rng)
    return RegressionData(
        X=base.X,
        y=base.y,
        beta=base.beta,
        noise=base.noise,
        design_law=design,
        noise_law=noise,
        info={"k": k, "tau": tau},
    )


def bounded_gradient_mean(
    n: int, d: int, *, k: float = 2.0, tau: float = 1.0, law: Law | None = None, mu=None, rng: np.random.Generator
) -> GradientMeanData:
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
    law = StudentT(3.0) if law is None else check_law("law", law)
    if law.multivariate:
        raise ValueError("law must be univariate (i.i.d. coordinates)")
    if not (k < law.tail_index and law.tail_index > 1):
        raise ValueError(f"k must be < the tail index of law ({law.tail_index}) and the law needs a mean, got k={k}")
    scaled = rescale_to_moment(law, k, tau, measure="central")
    mu = np.full(d, 1.0 / d) if mu is None else check_beta(mu, d)
    xi = scaled.sample((n, d), rng=rng) - scaled.mean
    return GradientMeanData(Z=mu + xi, mu=mu, k=k, tau=tau, coordinate_law=scaled)
