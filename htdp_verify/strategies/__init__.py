"""Hypothesis strategies for heavy-tailed laws, data sets and neighbouring pairs.

* :func:`laws` -- any law of :mod:`htdp_verify.distributions` with parameters drawn over their valid ranges,
  optionally restricted to a tail-index window (e.g. ``min_tail_index=4`` so fourth moments exist);
  per-family strategies (:func:`student_t_laws`, ...) are public too.
* :func:`arrays_from_laws` / :func:`datasets` -- ``(n,)`` or ``(n, d)`` data drawn from such a law with a seed drawn
  by hypothesis (the numpy stream is reproducible from the example; hypothesis shrinks the law and the seed).
* :func:`regression_datasets` -- :class:`~htdp_verify.datasets.RegressionData` of a given shape.
* :func:`neighbouring_pairs` -- a data set and a neighbour: one row replaced by an adversarial value (huge, tiny,
  negative, duplicate of another row) or one row added / removed. Returned as :class:`Neighbours`.

Layout: :mod:`.families` (law strategies), :mod:`.data` (seeds, arrays, data sets), :mod:`.pairs` (neighbouring
pairs); every name is importable from here.
"""

from __future__ import annotations

from .data import arrays_from_laws, datasets, regression_datasets, seeds
from .families import (
    burr_laws,
    cauchy_laws,
    contaminated_laws,
    laws,
    lognormal_laws,
    lomax_laws,
    mixture_laws,
    multivariate_laws,
    multivariate_t_laws,
    normal_laws,
    pareto_laws,
    radial_pareto_laws,
    spike_laws,
    student_t_laws,
    symmetric_pareto_laws,
    univariate_laws,
)
from .pairs import ADD_REMOVE_KINDS, REPLACE_KINDS, Neighbours, neighbouring_pairs

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
