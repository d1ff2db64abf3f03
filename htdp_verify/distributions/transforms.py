"""Laws built from other laws: :class:`Scaled` (``factor * X``), :class:`Mixture`, Huber :class:`Contamination`
(and :func:`contaminate`), and :func:`rescale_to_moment`, which rescales a law so that a chosen k-th moment equals a
target -- the moment bound tau (Wang et al., DP-EM, Assumption 1; Hu et al. 2022, Assumption 3) or M of the papers.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike

from .._validate import check_positive, check_prob
from .base import Law, _check_order, _check_real

__all__ = ["Scaled", "Mixture", "Contamination", "contaminate", "rescale_to_moment"]


class Scaled(Law):
    """The law of ``factor * X`` for a law X and a real ``factor != 0`` (univariate or multivariate).

    Moments scale as ``|factor|^k``; ``tail_index`` is unchanged; ``sf(x) = P(X > x/factor)`` (or ``P(X < x/factor)``
    for a negative factor, when X has a density). Built by :func:`rescale_to_moment`.

    Parameters
    ----------
    law : Law
        The law X.
    factor : float
        The non-zero real factor.
    """

    def __init__(self, law: Law, factor: float):
        if not isinstance(law, Law):
            raise ValueError(f"law must be a Law, got {type(law).__name__}")
        self.law = law
        self.factor = _check_real("factor", factor)
        if self.factor == 0:
            raise ValueError("factor must be a non-zero finite real number, got 0")
        self.dim = law.dim
        self.multivariate = law.multivariate

    def _params(self):
        return {"law": self.law, "factor": self.factor}

    @property
    def tail_index(self) -> float:
        return self.law.tail_index

    def _mean(self):
        return self.factor * np.asarray(self.law._mean()) if self.multivariate else self.factor * self.law._mean()

    def _draw(self, shape, rng):
        return self.factor * self.law._draw(shape, rng)

    def _raw_moment(self, k):
        return abs(self.factor) ** k * self.law._raw_moment(k)

    def _central_moment(self, k):
        return abs(self.factor) ** k * self.law._central_moment(k)

    def abs_moment_about(self, k: float, c: float) -> float:
        k = _check_order(k, self.tail_index)
        c = _check_real("c", c)
        return abs(self.factor) ** k * self.law.abs_moment_about(k, c / self.factor)

    def _pdf1(self, x):
        return self.law._pdf1(x / self.factor) / abs(self.factor)

    def pdf(self, x: ArrayLike) -> np.ndarray:
        return self.law.pdf(np.asarray(x, dtype=float) / self.factor) / abs(self.factor)

    def sf(self, x: ArrayLike) -> np.ndarray:
        x = np.asarray(x, dtype=float)
        if self.factor > 0:
            return self.law.sf(x / self.factor)
        return 1.0 - self.law.sf(x / self.factor)  # exact when X has no atoms

    def directional_moment(self, k: float) -> float:
        return abs(self.factor) ** k * self.law.directional_moment(k)

    def norm_moment(self, k: float) -> float:
        return abs(self.factor) ** k * self.law.norm_moment(k)

    def norm_sf(self, r: ArrayLike) -> np.ndarray:
        return self.law.norm_sf(np.asarray(r, dtype=float) / abs(self.factor))


class Mixture(Law):
    """Finite mixture ``sum_i w_i P_i``: draw a component label with probabilities ``w``, then draw from it.

    ``tail_index = min_i tail_index(P_i)`` over components with ``w_i > 0``; mean ``sum_i w_i mean_i``;
    raw ``E|X|^k = sum_i w_i E_i|X|^k``; central ``E|X - m|^k = sum_i w_i E_i|X - m|^k`` (each component's
    ``abs_moment_about``); ``sf = sum_i w_i sf_i``; ``pdf = sum_i w_i pdf_i``. Multivariate mixtures provide
    ``mean``, raw per-coordinate moments and ``norm_moment = sum_i w_i norm_moment_i``.

    Parameters
    ----------
    components : sequence of Law
        The component laws, all of the same dimension.
    weights : sequence of float
        Their probabilities (non-negative, summing to 1).
    """

    def __init__(self, components: Sequence[Law], weights: Sequence[float]):
        comps = list(components)
        if len(comps) == 0 or not all(isinstance(c, Law) for c in comps):
            raise ValueError("components must be a non-empty sequence of Law objects")
        dims = {c.dim for c in comps}
        if len(dims) != 1:
            raise ValueError(f"components must all have the same dimension, got dims {sorted(dims)}")
        w = np.asarray(weights, dtype=float)
        if w.shape != (len(comps),) or not np.all(np.isfinite(w)) or np.any(w < 0) or not abs(w.sum() - 1) < 1e-9:
            raise ValueError(f"weights must be {len(comps)} non-negative finite numbers summing to 1, got {weights!r}")
        self.components = tuple(comps)
        self.weights = w / w.sum()
        self.dim = comps[0].dim
        self.multivariate = comps[0].multivariate

    def _params(self):
        return {"components": list(self.components), "weights": self.weights.tolist()}

    def _active(self):
        return [(w, c) for w, c in zip(self.weights, self.components) if w > 0]

    @property
    def tail_index(self) -> float:
        return min(c.tail_index for _, c in self._active())

    def _mean(self):
        return (
            sum(w * np.asarray(c._mean(), dtype=float) for w, c in self._active())
            if self.multivariate
            else float(sum(w * c._mean() for w, c in self._active()))
        )

    def _draw(self, shape, rng):
        total = int(np.prod(shape)) if shape else 1
        counts = rng.multinomial(total, self.weights)
        labels = rng.permutation(np.repeat(np.arange(len(self.components)), counts))
        out = np.empty((total, self.dim) if self.multivariate else (total,), dtype=float)
        for i, comp in enumerate(self.components):
            if counts[i]:
                out[labels == i] = comp._draw((int(counts[i]),), rng)
        return out.reshape(shape + ((self.dim,) if self.multivariate else ()))

    def _raw_moment(self, k):
        return (
            sum(w * np.asarray(c._raw_moment(k)) for w, c in self._active())
            if self.multivariate
            else float(sum(w * c._raw_moment(k) for w, c in self._active()))
        )

    def _central_moment(self, k):
        if self.multivariate:
            raise NotImplementedError("central per-coordinate moments of multivariate mixtures are not implemented")
        return self.abs_moment_about(k, self._mean())

    def abs_moment_about(self, k: float, c: float) -> float:
        k = _check_order(k, self.tail_index)
        c = _check_real("c", c)
        return float(sum(w * comp.abs_moment_about(k, c) for w, comp in self._active()))

    def pdf(self, x: ArrayLike) -> np.ndarray:
        return sum(w * c.pdf(x) for w, c in self._active())

    def sf(self, x: ArrayLike) -> np.ndarray:
        return sum(w * c.sf(x) for w, c in self._active())

    def norm_moment(self, k: float) -> float:
        k = _check_order(k, self.tail_index)
        return float(sum(w * c.norm_moment(k) for w, c in self._active()))

    def directional_moment(self, k: float) -> float:
        raise NotImplementedError("the directional moment of a mixture has no closed form")


class Contamination(Mixture):
    """Huber epsilon-contamination ``(1 - eps) P + eps Q`` of a law P by a law Q (both of the same dimension).

    A :class:`Mixture` with two components; ``base``, ``eps`` and ``contaminant`` are kept as attributes.
    Each observation is independently an outlier (drawn from Q) with probability ``eps``.

    Parameters
    ----------
    base : Law
        The law P.
    eps : float
        Probability of an outlier, in [0, 1).
    contaminant : Law
        The law Q of the outliers.
    """

    def __init__(self, base: Law, eps: float, contaminant: Law):
        eps = check_prob("eps", eps, open_low=False, open_high=True)
        super().__init__([base, contaminant], [1 - eps, eps])
        self.base = base
        self.eps = eps
        self.contaminant = contaminant

    def _params(self):
        return {"base": self.base, "eps": self.eps, "contaminant": self.contaminant}


def contaminate(law: Law, eps: float, contaminant: Law) -> Contamination:
    """Huber contamination ``(1 - eps) law + eps contaminant``; see :class:`Contamination`.

    Parameters
    ----------
    law : Law
        The law P.
    eps : float
        Probability of an outlier, in [0, 1).
    contaminant : Law
        The law Q of the outliers.

    Returns
    -------
    Contamination
        The contaminated law.
    """
    return Contamination(law, eps, contaminant)


# ----------------------------------------------------------------------------------------------------------------
# rescaling to a moment bound
# ----------------------------------------------------------------------------------------------------------------
_MEASURES = ("central", "raw", "directional", "norm", "max_coordinate")


def rescale_to_moment(law: Law, k: float, target: float, *, measure: str = "central") -> Scaled:
    """Return ``Scaled(law, c)`` with ``c > 0`` chosen so that the chosen k-th moment of ``c X`` equals ``target``.

    All of these moments are homogeneous of degree k in the scale, so ``c = (target / current)^{1/k}``.

    Parameters
    ----------
    law : Law
        The law to rescale (univariate or multivariate).
    k : float
        Moment order, ``0 < k < law.tail_index``.
    target : float
        The moment bound to hit, e.g. tau (a second-moment bound) or M (a k-th moment bound).
    measure : str, default "central"
        Which moment: ``"central"`` E|X - mean|^k (univariate), ``"raw"`` E|X|^k (univariate), ``"directional"``
        sup_u E|<u, X - mean>|^k, ``"norm"`` E||X||^k, ``"max_coordinate"`` max_j E|X_j - mean_j|^k.

    Returns
    -------
    Scaled
        The rescaled law.
    """
    if not isinstance(law, Law):
        raise ValueError(f"law must be a Law, got {type(law).__name__}")
    if measure not in _MEASURES:
        raise ValueError(f"measure must be one of {_MEASURES}, got {measure!r}")
    k = _check_order(k, law.tail_index)
    target = check_positive("target", target)
    if measure == "central":
        current = law.moment(k, central=True)
    elif measure == "raw":
        current = law.moment(k)
    elif measure == "directional":
        current = law.directional_moment(k)
    elif measure == "norm":
        current = law.norm_moment(k)
    else:
        current = float(np.max(law.moment(k, central=True)))
    current = float(np.max(current)) if np.ndim(current) else float(current)
    return Scaled(law, (target / current) ** (1.0 / k))
