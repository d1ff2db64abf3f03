"""Hypothesis strategies for data: ``seeds``, ``arrays_from_laws`` / ``datasets`` (``(n,)`` or ``(n, d)`` data
drawn from a law with a seed drawn by hypothesis) and ``regression_datasets``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import strategies as st

from ..datasets import linear_regression
from .families import univariate_laws

__all__ = [
    "seeds",
    "arrays_from_laws",
    "datasets",
    "regression_datasets",
]


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
