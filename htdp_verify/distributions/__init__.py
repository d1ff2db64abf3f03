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

Layout (everything is re-exported here, import from :mod:`htdp_verify.distributions`):

* :mod:`.base` -- the :class:`Law` protocol and closed-form moment helpers;
* :mod:`.light` -- laws with all moments finite (Normal, LogNormal, Spike);
* :mod:`.heavy` -- univariate power-law tails (StudentT, Cauchy, Pareto, Lomax, SymmetricPareto, BurrXII);
* :mod:`.transforms` -- Scaled, Mixture, Contamination, contaminate, rescale_to_moment;
* :mod:`.multivariate` -- MultivariateT, RadialPareto.
"""

from __future__ import annotations

from .base import Law, abs_normal_moment, abs_t_moment, sphere_coordinate_moment
from .heavy import BurrXII, Cauchy, Lomax, Pareto, StudentT, SymmetricPareto
from .light import LogNormal, Normal, Spike
from .multivariate import MultivariateT, RadialPareto
from .transforms import Contamination, Mixture, Scaled, contaminate, rescale_to_moment

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
