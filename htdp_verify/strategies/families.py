"""Hypothesis strategies for laws: every law of :mod:`htdp_verify.distributions` with parameters drawn over their
valid ranges, optionally restricted to a tail-index window; per-family strategies (``student_t_laws``, ...),
mixtures and contaminations, multivariate laws, and the dispatcher ``laws``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import strategies as st

from .. import distributions as D

__all__ = [
    "laws",
    "univariate_laws",
    "multivariate_laws",
    "normal_laws",
    "student_t_laws",
    "cauchy_laws",
    "pareto_laws",
    "lomax_laws",
    "symmetric_pareto_laws",
    "lognormal_laws",
    "burr_laws",
    "spike_laws",
    "contaminated_laws",
    "mixture_laws",
    "multivariate_t_laws",
    "radial_pareto_laws",
]


_MAX_TI = 50.0


# ----------------------------------------------------------------------------------------------------------------
# laws
# ----------------------------------------------------------------------------------------------------------------
def _pos(lo: float, hi: float) -> st.SearchStrategy[float]:
    return st.floats(min_value=lo, max_value=hi, allow_nan=False, allow_infinity=False)


def _ti_window(min_tail_index: float, max_tail_index: float, floor: float = 0.2) -> tuple[float, float]:
    lo = max(floor, float(min_tail_index) * (1 + 1e-6) + 1e-6)
    hi = min(_MAX_TI, float(max_tail_index))
    if not lo < hi:
        raise ValueError(
            f"min_tail_index must be < max_tail_index and below {_MAX_TI}, got ({min_tail_index}, {max_tail_index})"
        )
    return lo, hi


def normal_laws(min_tail_index: float = 0.0, max_tail_index: float = np.inf) -> st.SearchStrategy[Any]:
    """N(loc, scale^2), loc in [-10, 10], scale in [0.1, 10] (tail index inf; excluded if max_tail_index is finite).

    Parameters
    ----------
    min_tail_index : float, default 0.0
        Lower end (excluded) of the tail-index window.
    max_tail_index : float, default inf
        Upper end (included) of the tail-index window.

    Returns
    -------
    hypothesis.strategies.SearchStrategy
        A strategy for such laws.
    """
    if np.isfinite(max_tail_index):
        return st.nothing()
    return st.builds(D.Normal, _pos(-10, 10), _pos(0.1, 10))


def student_t_laws(min_tail_index: float = 0.0, max_tail_index: float = np.inf) -> st.SearchStrategy[Any]:
    """StudentT(nu, loc, scale) with nu in the tail-index window (within [0.2, 50]).

    Parameters
    ----------
    min_tail_index : float, default 0.0
        Lower end (excluded) of the tail-index window.
    max_tail_index : float, default inf
        Upper end (included) of the tail-index window.

    Returns
    -------
    hypothesis.strategies.SearchStrategy
        A strategy for such laws.
    """
    lo, hi = _ti_window(min_tail_index, max_tail_index)
    return st.builds(D.StudentT, _pos(lo, hi), _pos(-10, 10), _pos(0.1, 10))


def cauchy_laws(min_tail_index: float = 0.0, max_tail_index: float = np.inf) -> st.SearchStrategy[Any]:
    """Cauchy(loc, scale) (tail index 1), when 1 lies in the window.

    Parameters
    ----------
    min_tail_index : float, default 0.0
        Lower end (excluded) of the tail-index window.
    max_tail_index : float, default inf
        Upper end (included) of the tail-index window.

    Returns
    -------
    hypothesis.strategies.SearchStrategy
        A strategy for such laws.
    """
    if not (min_tail_index < 1 <= max_tail_index):
        return st.nothing()
    return st.builds(D.Cauchy, _pos(-10, 10), _pos(0.1, 10))


def pareto_laws(min_tail_index: float = 0.0, max_tail_index: float = np.inf) -> st.SearchStrategy[Any]:
    lo, hi = _ti_window(min_tail_index, max_tail_index)
    return st.builds(D.Pareto, _pos(lo, hi), _pos(0.1, 10))


def lomax_laws(min_tail_index: float = 0.0, max_tail_index: float = np.inf) -> st.SearchStrategy[Any]:
    lo, hi = _ti_window(min_tail_index, max_tail_index)
    return st.builds(D.Lomax, _pos(lo, hi), _pos(0.1, 10))


def symmetric_pareto_laws(min_tail_index: float = 0.0, max_tail_index: float = np.inf) -> st.SearchStrategy[Any]:
    lo, hi = _ti_window(min_tail_index, max_tail_index)
    return st.builds(D.SymmetricPareto, _pos(lo, hi), _pos(0.1, 10), st.sampled_from(["lomax", "pareto"]))


def lognormal_laws(min_tail_index: float = 0.0, max_tail_index: float = np.inf) -> st.SearchStrategy[Any]:
    """LogNormal(mu, sigma), mu in [-2, 2], sigma in [0.1, 1.5] (tail index inf).

    Parameters
    ----------
    min_tail_index : float, default 0.0
        Lower end (excluded) of the tail-index window.
    max_tail_index : float, default inf
        Upper end (included) of the tail-index window.

    Returns
    -------
    hypothesis.strategies.SearchStrategy
        A strategy for such laws.
    """
    if np.isfinite(max_tail_index):
        return st.nothing()
    return st.builds(D.LogNormal, _pos(-2, 2), _pos(0.1, 1.5))


@st.composite
def burr_laws(draw, min_tail_index: float = 0.0, max_tail_index: float = np.inf):
    """BurrXII(c, d, scale) with c in [0.5, 5] and d chosen so that c*d lies in the tail-index window.

    Parameters
    ----------
    min_tail_index : float, default 0.0
        Lower end (excluded) of the tail-index window (at least 0.2 is drawn).
    max_tail_index : float, default inf
        Upper end (included) of the tail-index window (at most 50 is drawn).

    Returns
    -------
    hypothesis.strategies.SearchStrategy
        A strategy for such laws (the scale is drawn in [0.1, 10]).
    """
    lo, hi = _ti_window(min_tail_index, max_tail_index)
    c = draw(_pos(0.5, 5.0))
    ti = draw(_pos(lo, hi))
    return D.BurrXII(c, ti / c, draw(_pos(0.1, 10)))


def spike_laws(min_tail_index: float = 0.0, max_tail_index: float = np.inf) -> st.SearchStrategy[Any]:
    """Spike(p, a), p in [1e-4, 0.5], a in +-[1e-3, 1e6] (tail index inf).

    Parameters
    ----------
    min_tail_index : float, default 0.0
        Lower end (excluded) of the tail-index window.
    max_tail_index : float, default inf
        Upper end (included) of the tail-index window.

    Returns
    -------
    hypothesis.strategies.SearchStrategy
        A strategy for such laws.
    """
    if np.isfinite(max_tail_index):
        return st.nothing()
    mag = _pos(1e-3, 1e6)
    return st.builds(D.Spike, _pos(1e-4, 0.5), st.one_of(mag, mag.map(lambda v: -v)))


def _power_laws(min_tail_index, max_tail_index):
    return st.one_of(
        student_t_laws(min_tail_index, max_tail_index),
        pareto_laws(min_tail_index, max_tail_index),
        lomax_laws(min_tail_index, max_tail_index),
        symmetric_pareto_laws(min_tail_index, max_tail_index),
        burr_laws(min_tail_index, max_tail_index),
    )


def _light_laws(min_tail_index, max_tail_index):
    return st.one_of(
        normal_laws(min_tail_index, max_tail_index),
        lognormal_laws(min_tail_index, max_tail_index),
        spike_laws(min_tail_index, max_tail_index),
    )


def _simple_laws(min_tail_index, max_tail_index):
    return st.one_of(
        _power_laws(min_tail_index, max_tail_index),
        cauchy_laws(min_tail_index, max_tail_index),
        _light_laws(min_tail_index, max_tail_index),
    )


def contaminated_laws(min_tail_index: float = 0.0, max_tail_index: float = np.inf) -> st.SearchStrategy[Any]:
    """Huber contamination ``(1-eps) P + eps Q`` with eps in [0, 0.3]; both components respect the window
    from below, and at least the base does from above (so the mixture's tail index lies in the window).

    Parameters
    ----------
    min_tail_index : float, default 0.0
        Lower end (excluded) of the tail-index window.
    max_tail_index : float, default inf
        Upper end (included) of the tail-index window.

    Returns
    -------
    hypothesis.strategies.SearchStrategy
        A strategy for such laws.
    """
    inner = _simple_laws(min_tail_index, max_tail_index)
    any_q = _simple_laws(min_tail_index, np.inf)
    return st.builds(D.Contamination, inner, _pos(0.0, 0.3), any_q)


@st.composite
def mixture_laws(draw, min_tail_index: float = 0.0, max_tail_index: float = np.inf, max_components: int = 3):
    """Finite mixture of 2..max_components simple laws with Dirichlet-like weights.

    The first component's tail index lies in the window, the others' above ``min_tail_index``, so the mixture's
    tail index (the smallest of its components') lies in the window.

    Parameters
    ----------
    min_tail_index : float, default 0.0
        Lower end (excluded) of the tail-index window.
    max_tail_index : float, default inf
        Upper end (included) of the tail-index window.
    max_components : int, default 3
        Largest number of components (at least 2 are drawn).

    Returns
    -------
    hypothesis.strategies.SearchStrategy
        A strategy for such mixtures.
    """
    m = draw(st.integers(2, max_components))
    comps = [draw(_simple_laws(min_tail_index, max_tail_index))]
    comps += [draw(_simple_laws(min_tail_index, np.inf)) for _ in range(m - 1)]
    raw = np.array([draw(_pos(0.05, 1.0)) for _ in range(m)])
    return D.Mixture(comps, raw / raw.sum())


def univariate_laws(
    min_tail_index: float = 0.0, max_tail_index: float = np.inf, *, compound: bool = True
) -> st.SearchStrategy[Any]:
    """Any univariate law whose tail index lies in ``(min_tail_index, max_tail_index]`` (within [0.2, 50] or inf).

    Parameters
    ----------
    min_tail_index : float, default 0.0
        Lower end (excluded) of the tail-index window.
    max_tail_index : float, default inf
        Upper end (included) of the tail-index window.
    compound : bool, default True
        Also draw mixtures and contaminations.

    Returns
    -------
    hypothesis.strategies.SearchStrategy
        A strategy for such laws.
    """
    base = _simple_laws(min_tail_index, max_tail_index)
    if not compound:
        return base
    return st.one_of(
        base, contaminated_laws(min_tail_index, max_tail_index), mixture_laws(min_tail_index, max_tail_index)
    )


@st.composite
def multivariate_t_laws(draw, d: int, min_tail_index: float = 0.0, max_tail_index: float = np.inf):
    """MultivariateT(nu, loc, shape) in R^d with a well-conditioned random shape matrix ``A A^T + 0.1 I``.

    Parameters
    ----------
    d : int
        Dimension.
    min_tail_index : float, default 0.0
        Lower end (excluded) of the window of the degrees of freedom ``nu`` (the tail index).
    max_tail_index : float, default inf
        Upper end (included) of that window (at most 50 is drawn).

    Returns
    -------
    hypothesis.strategies.SearchStrategy
        A strategy for such laws (``loc`` entries in [-5, 5], ``A`` entries in [-2, 2]).
    """
    lo, hi = _ti_window(min_tail_index, max_tail_index)
    nu = draw(_pos(lo, hi))
    loc = np.array([draw(_pos(-5, 5)) for _ in range(d)])
    a = np.array([[draw(_pos(-2, 2)) for _ in range(d)] for _ in range(d)])
    return D.MultivariateT(nu, loc, a @ a.T + 0.1 * np.eye(d))


def radial_pareto_laws(d: int, min_tail_index: float = 0.0, max_tail_index: float = np.inf) -> st.SearchStrategy[Any]:
    lo, hi = _ti_window(min_tail_index, max_tail_index)
    return st.builds(D.RadialPareto, st.just(d), _pos(lo, hi), _pos(0.1, 10))


def multivariate_laws(d: int, min_tail_index: float = 0.0, max_tail_index: float = np.inf) -> st.SearchStrategy[Any]:
    return st.one_of(
        multivariate_t_laws(d, min_tail_index, max_tail_index), radial_pareto_laws(d, min_tail_index, max_tail_index)
    )


def laws(
    min_tail_index: float = 0.0, max_tail_index: float = np.inf, *, d: int | None = None, compound: bool = True
) -> st.SearchStrategy[Any]:
    """Laws with tail index in ``(min_tail_index, max_tail_index]``; univariate if ``d`` is None, else d-variate.

    Parameters
    ----------
    min_tail_index : float, default 0.0
        Lower end (excluded) of the tail-index window.
    max_tail_index : float, default inf
        Upper end (included) of the tail-index window.
    d : int, optional
        Dimension of multivariate laws (``None``: univariate).
    compound : bool, default True
        Also draw mixtures and contaminations (univariate).

    Returns
    -------
    hypothesis.strategies.SearchStrategy
        A strategy for such laws.
    """
    if d is None:
        return univariate_laws(min_tail_index, max_tail_index, compound=compound)
    return multivariate_laws(d, min_tail_index, max_tail_index)
