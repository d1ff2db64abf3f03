"""The law protocol: :class:`Law` (the base class every law derives from) and the moment helpers it needs.

Owns argument checks shared by all laws (``_check_real``, ``_shape``, ``_check_order``), the closed-form absolute
moments of the standard normal, Student-t and sphere coordinate (:func:`abs_normal_moment`, :func:`abs_t_moment`,
:func:`sphere_coordinate_moment`), the quadrature fallback ``_quad_abs_moment``, and :class:`Law` itself. The
protocol is described in :mod:`htdp_verify.distributions`.
"""

from __future__ import annotations

import math
import numbers
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike
from scipy import integrate, special

from .._validate import check_rng

__all__ = ["Law", "abs_normal_moment", "abs_t_moment", "sphere_coordinate_moment"]


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
        dims: tuple[int, ...] = (int(size),)
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
    """E|Z|^k for Z ~ N(0, 1): 2^{k/2} Gamma((k+1)/2) / sqrt(pi).

    Parameters
    ----------
    k : float
        Order of the moment (> 0).

    Returns
    -------
    float
        The moment.
    """
    return float(2.0 ** (k / 2) * special.gamma((k + 1) / 2) / math.sqrt(math.pi))


def abs_t_moment(k: float, nu: float) -> float:
    """E|T|^k for T ~ t_nu (k < nu): nu^{k/2} Gamma((k+1)/2) Gamma((nu-k)/2) / (sqrt(pi) Gamma(nu/2)).

    Computed on the log scale with ``gammaln`` so large ``nu`` does not overflow.

    Parameters
    ----------
    k : float
        Order of the moment, ``0 < k < nu``.
    nu : float
        Degrees of freedom.

    Returns
    -------
    float
        The moment.
    """
    if not k < nu:
        raise ValueError(f"k must be < nu={nu}, got k={k!r}")
    log = (k / 2) * math.log(nu) + special.gammaln((k + 1) / 2) + special.gammaln((nu - k) / 2)
    log -= 0.5 * math.log(math.pi) + special.gammaln(nu / 2)
    return float(math.exp(log))


def sphere_coordinate_moment(k: float, d: int) -> float:
    """E|U_1|^k for U uniform on the unit sphere of R^d: Gamma(d/2) Gamma((k+1)/2) / (sqrt(pi) Gamma((d+k)/2)).

    Parameters
    ----------
    k : float
        Order of the moment (> 0).
    d : int
        Dimension (≥ 1).

    Returns
    -------
    float
        The moment.
    """
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
    def sample(self, size: int | tuple[int, ...], *, rng: np.random.Generator) -> np.ndarray:
        """Draw ``size`` independent copies (array of shape ``size``, or ``(*size, d)`` for multivariate laws).

        Parameters
        ----------
        size : int or tuple of int
            Number (or shape) of draws.
        rng : numpy.random.Generator
            The generator.

        Returns
        -------
        numpy.ndarray
            The draws.
        """
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
    def mean(self) -> Any:
        if not self.tail_index > 1:
            raise ValueError(f"{type(self).__name__} has no mean: tail_index={self.tail_index} <= 1")
        return self._mean()

    def _mean(self):  # pragma: no cover
        raise NotImplementedError

    def moment(self, k: float, central: bool = False) -> float:
        """Exact absolute moment: ``E|X|^k`` (raw) or ``E|X - mean|^k`` (central), for ``0 < k < tail_index``.

        Parameters
        ----------
        k : float
            Order of the moment, ``0 < k < tail_index``.
        central : bool, default False
            Central (about the mean) instead of raw.

        Returns
        -------
        float
            The moment.
        """
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

    def abs_moment_about(self, k: float, c: float) -> float:
        """``E|X - c|^k`` for a real centre ``c``; numeric quadrature of the density unless overridden.

        Parameters
        ----------
        k : float
            Order of the moment, ``0 < k < tail_index``.
        c : float
            The centre.

        Returns
        -------
        float
            The moment.
        """
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

    def pdf(self, x: ArrayLike) -> np.ndarray:
        raise NotImplementedError(f"{type(self).__name__} has no density")

    def sf(self, x: ArrayLike) -> np.ndarray:
        """Survival function P(X > x).

        Parameters
        ----------
        x : array_like
            Points at which to evaluate it.

        Returns
        -------
        float or numpy.ndarray
            P(X > x).
        """
        raise NotImplementedError(f"{type(self).__name__} has no survival function")

    def __repr__(self) -> str:
        fields = ", ".join(f"{k}={v!r}" for k, v in self._params().items())
        return f"{type(self).__name__}({fields})"

    def _params(self) -> dict:
        return {}
