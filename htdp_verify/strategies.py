"""Hypothesis strategies for heavy-tailed laws, data sets and neighbouring pairs.

* :func:`laws` -- any law of :mod:`htdp_verify.distributions` with parameters drawn over their valid ranges,
  optionally restricted to a tail-index window (e.g. ``min_tail_index=4`` so fourth moments exist);
  per-family strategies (:func:`student_t_laws`, ...) are public too.
* :func:`arrays_from_laws` / :func:`datasets` -- ``(n,)`` or ``(n, d)`` data drawn from such a law with a seed drawn
  by hypothesis (the numpy stream is reproducible from the example; hypothesis shrinks the law and the seed).
* :func:`regression_datasets` -- :class:`~htdp_verify.datasets.RegressionData` of a given shape.
* :func:`neighbouring_pairs` -- a data set and a neighbour: one row replaced by an adversarial value (huge, tiny,
  negative, duplicate of another row) or one row added / removed. Returned as :class:`Neighbours`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np
from hypothesis import strategies as st

from . import distributions as D
from .datasets import linear_regression

__all__ = [
    "Neighbours",
    "REPLACE_KINDS",
    "ADD_REMOVE_KINDS",
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
    "seeds",
    "arrays_from_laws",
    "datasets",
    "regression_datasets",
    "neighbouring_pairs",
]

REPLACE_KINDS = ("huge", "tiny", "negative", "duplicate")
ADD_REMOVE_KINDS = ("add", "remove")

_MAX_TI = 50.0


class Neighbours(NamedTuple):
    """A neighbouring pair. ``relation`` is ``"replace"`` (same n, row ``index`` differs) or ``"add_remove"``
    (``neighbour`` has one row more -- inserted at ``index`` -- or one row fewer -- row ``index`` removed).
    ``kind`` says which: one of :data:`REPLACE_KINDS` or :data:`ADD_REMOVE_KINDS`.

    Parameters
    ----------
    data : numpy.ndarray
        The dataset D.
    neighbour : numpy.ndarray
        Its neighbour D'.
    relation : str
        ``"replace"`` or ``"add_remove"``.
    index : int
        The row replaced, inserted or removed.
    kind : str, default ""
        The kind of change.
    """

    data: np.ndarray
    neighbour: np.ndarray
    relation: str
    index: int
    kind: str = ""


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


# ----------------------------------------------------------------------------------------------------------------
# data sets
# ----------------------------------------------------------------------------------------------------------------
def seeds() -> st.SearchStrategy[int]:
    """Seeds for ``numpy.random.default_rng`` (hypothesis-controlled, so examples are reproducible).

    Returns
    -------
    hypothesis.strategies.SearchStrategy
        A strategy for non-negative integer seeds.
    """
    return st.integers(min_value=0, max_value=2**32 - 1)


@st.composite
def arrays_from_laws(draw, n: int, d: int | None = None, law: Any = None):
    """An ``(n,)`` (``d`` None) or ``(n, d)`` array drawn from a law (default: any univariate law, i.i.d. entries).

    ``law`` may be a Law or a strategy for laws. Non-finite draws (possible for tail indices near 0.2) are kept
    out by construction: the default law strategy uses ``min_tail_index=0.5``.

    Parameters
    ----------
    n : int
        Number of records.
    d : int, optional
        Dimension of the records of a univariate law (i.i.d. entries); ``None``: shape ``(n,)``. Ignored for a
        multivariate law, whose own dimension gives the shape ``(n, d)``.
    law : Law or SearchStrategy, optional
        The law of the entries, or a strategy for laws (default: :func:`univariate_laws` with tail index > 0.5).

    Returns
    -------
    hypothesis.strategies.SearchStrategy
        A strategy for arrays, drawn with a numpy generator seeded from :func:`seeds`.
    """
    if law is None:
        law = univariate_laws(0.5)
    the_law = draw(law) if isinstance(law, st.SearchStrategy) else law
    rng = np.random.default_rng(draw(seeds()))
    if the_law.multivariate:
        return the_law.sample(n, rng=rng)
    return the_law.sample(n if d is None else (n, d), rng=rng)


def datasets(
    n: int | st.SearchStrategy = st.integers(2, 50), d: int | None | st.SearchStrategy = None, law: Any = None
) -> st.SearchStrategy[np.ndarray]:
    """Data sets of shape ``(n,)`` or ``(n, d)``; ``n`` and ``d`` may be ints or strategies.

    Parameters
    ----------
    n : int or SearchStrategy
        Number of records.
    d : int, SearchStrategy or None
        Dimension (``None``: shape ``(n,)``).
    law : Law or SearchStrategy, optional
        The law of the entries (default: any univariate law).

    Returns
    -------
    hypothesis.strategies.SearchStrategy
        A strategy for arrays.
    """

    @st.composite
    def _ds(draw):
        nn = draw(n) if isinstance(n, st.SearchStrategy) else n
        dd = draw(d) if isinstance(d, st.SearchStrategy) else d
        return draw(arrays_from_laws(nn, dd, law))

    return _ds()


@st.composite
def regression_datasets(draw, n: int, d: int, design: Any = None, noise: Any = None):
    """:class:`~htdp_verify.datasets.RegressionData` with ``n`` rows, ``d`` covariates, heavy-tailed design/noise.

    ``design`` / ``noise`` are Laws or strategies; defaults draw univariate laws with tail index > 2.

    Parameters
    ----------
    n : int
        Number of rows.
    d : int
        Number of covariates.
    design : Law or SearchStrategy, optional
        Law of the covariates (see :func:`~htdp_verify.datasets.linear_regression`); default: a non-compound
        univariate law with tail index > 2.
    noise : Law or SearchStrategy, optional
        Law of the noise; default: any univariate law with tail index > 2 (mixtures and contaminations included).

    Returns
    -------
    hypothesis.strategies.SearchStrategy
        A strategy for :class:`~htdp_verify.datasets.RegressionData`, generated with a seed from :func:`seeds`.
    """
    design = univariate_laws(2.0, compound=False) if design is None else design
    noise = univariate_laws(2.0) if noise is None else noise
    dl = draw(design) if isinstance(design, st.SearchStrategy) else design
    nl = draw(noise) if isinstance(noise, st.SearchStrategy) else noise
    rng = np.random.default_rng(draw(seeds()))
    return linear_regression(n, d, design=dl, noise=nl, rng=rng)


# ----------------------------------------------------------------------------------------------------------------
# neighbouring pairs
# ----------------------------------------------------------------------------------------------------------------
def _magnitudes(max_magnitude: float) -> list[float]:
    return sorted({v for v in (1e6, 1e12, float(max_magnitude)) if v <= max_magnitude})


_TINY = (0.0, 5e-324, 1e-300, 1e-12)


def _adversarial_row(draw, data: np.ndarray, index: int, kind: str, max_magnitude: float):
    """A replacement for row ``index`` of the given kind; differs from the original row unless kind is duplicate."""
    row_shape = data.shape[1:]
    n = data.shape[0]
    original = np.asarray(data[index], dtype=float)
    if kind == "duplicate":
        others = [j for j in range(n) if j != index]
        return data[draw(st.sampled_from(others))].copy()
    mags = _magnitudes(max_magnitude)
    if kind == "negative":
        flipped = -original
        if not np.array_equal(flipped, original):
            return flipped
        return (
            np.full(row_shape, -draw(st.sampled_from(mags))) if row_shape else np.float64(-draw(st.sampled_from(mags)))
        )
    if kind == "huge":
        sign = draw(st.sampled_from([1.0, -1.0]))
        first = draw(st.sampled_from(mags))
        values = [sign * first] + [sign * m for m in mags if m != first] + [-sign * m for m in mags]
    else:  # tiny
        first = draw(st.sampled_from(_TINY))
        values = [first] + [v for v in _TINY if v != first]
    whole = (not row_shape) or draw(st.booleans())
    j = 0 if whole else draw(st.integers(0, row_shape[0] - 1))
    for value in values:  # the first value that changes the row (all of them fail only if impossible)
        if not row_shape:
            row = np.float64(value)
        elif whole:
            row = np.full(row_shape, value)
        else:
            row = original.copy()
            row[j] = value
        if not np.array_equal(row, original):
            return row
    return row


def neighbouring_pairs(
    data: Any = None,
    *,
    relation: str | Sequence[str] = ("replace", "add_remove"),
    kinds: Sequence[str] | None = None,
    max_magnitude: float = 1e12,
) -> st.SearchStrategy[Neighbours]:
    """Neighbouring pairs built from ``data`` (an array, or a strategy for arrays; default :func:`datasets`).

    ``relation``: ``"replace"`` (one row replaced by an adversarial value of kind ``huge`` (+-1e6, +-1e12 or
    +-``max_magnitude``), ``tiny`` (0, the smallest subnormal, 1e-300, 1e-12), ``negative`` (the row negated, or a
    large negative value if the row is 0) or ``duplicate`` (a copy of another row)), or ``"add_remove"`` (an
    adversarial row inserted, or a row removed). For 2-d data the value fills the whole row or one coordinate.
    ``data`` is never mutated; ``neighbour`` is a fresh array. Replacements always change the row, except
    ``duplicate`` of an identical row, which hypothesis may still produce (the pair is then equal).

    Parameters
    ----------
    data : array_like or SearchStrategy, optional
        The base dataset (default: :func:`datasets`).
    relation : str or sequence of str
        ``"replace"`` and/or ``"add_remove"``.
    kinds : sequence of str, optional
        The kinds of adversarial change to draw (default: all of the relation's).
    max_magnitude : float, default 1e12
        Largest magnitude of a ``huge`` record.

    Returns
    -------
    hypothesis.strategies.SearchStrategy
        A strategy for :class:`Neighbours`.
    """
    if not (isinstance(max_magnitude, (int, float)) and 1e6 <= max_magnitude < np.inf):
        raise ValueError(f"max_magnitude must lie in [1e6, inf), got {max_magnitude!r}")
    relations = (relation,) if isinstance(relation, str) else tuple(relation)
    if not relations or any(r not in ("replace", "add_remove") for r in relations):
        raise ValueError(f"relation must be 'replace', 'add_remove' or a sequence of them, got {relation!r}")
    allowed = tuple(kinds) if kinds is not None else REPLACE_KINDS + ADD_REMOVE_KINDS
    bad = [k for k in allowed if k not in REPLACE_KINDS + ADD_REMOVE_KINDS]
    if bad or not allowed:
        raise ValueError(f"kinds must be a non-empty subset of {REPLACE_KINDS + ADD_REMOVE_KINDS}, got {kinds!r}")
    by_relation = {"replace": REPLACE_KINDS, "add_remove": ADD_REMOVE_KINDS}
    relations = tuple(r for r in relations if any(k in by_relation[r] for k in allowed))
    if not relations:
        raise ValueError(f"kinds {tuple(allowed)} match none of the relations {relation!r}")
    if data is None:
        data = datasets(st.integers(2, 30), st.one_of(st.none(), st.integers(1, 4)))

    @st.composite
    def _pairs(draw):
        arr = draw(data) if isinstance(data, st.SearchStrategy) else data
        arr = np.asarray(arr, dtype=float)
        if arr.ndim not in (1, 2) or arr.shape[0] < 2:
            raise ValueError(f"data must be a 1-d or 2-d array with at least 2 rows, got shape {arr.shape}")
        rel = draw(st.sampled_from(relations))
        choices = [k for k in allowed if k in by_relation[rel]]
        kind = draw(st.sampled_from(choices))
        n = arr.shape[0]
        if kind == "remove":
            index = draw(st.integers(0, n - 1))
            return Neighbours(arr.copy(), np.delete(arr, index, axis=0), "add_remove", index, kind)
        if kind == "add":
            index = draw(st.integers(0, n))
            inner = draw(st.sampled_from(REPLACE_KINDS))
            row = _adversarial_row(draw, arr, min(index, n - 1), inner, max_magnitude)
            return Neighbours(arr.copy(), np.insert(arr, index, row, axis=0), "add_remove", index, kind)
        index = draw(st.integers(0, n - 1))
        row = _adversarial_row(draw, arr, index, kind, max_magnitude)
        neighbour = arr.copy()
        neighbour[index] = row
        return Neighbours(arr.copy(), neighbour, "replace", index, kind)

    return _pairs()
