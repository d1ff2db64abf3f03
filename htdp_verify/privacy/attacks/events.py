"""Events and the features they threshold: a fixed set of outputs, described exactly, counted on any releases.

Features map releases ``(n, ...)`` to a real score (the output itself, a coordinate, a projection, a learned
classifier score, a likelihood ratio) or to exact keys (:class:`RowKey`) for set events.  :class:`SelectionContext`
carries what the selection objective needs.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

__all__ = [
    "Feature",
    "Identity",
    "Coordinate",
    "Projection",
    "LearnedScore",
    "LikelihoodRatio",
    "RowKey",
    "bit_features",
    "Event",
    "SelectionContext",
    "isin_nan",
]


def _as_2d(Y: np.ndarray) -> np.ndarray:
    Y = np.asarray(Y)
    if Y.ndim == 1:
        return Y[:, None]
    return Y.reshape(Y.shape[0], -1)


def isin_nan(x: ArrayLike, values: ArrayLike) -> np.ndarray:
    """``np.isin`` in which NaN matches NaN: a NaN release is an outcome like any other.

    Parameters
    ----------
    x : array_like
        Values.
    values : array_like
        The set.

    Returns
    -------
    numpy.ndarray
        Boolean mask of ``x``'s shape.
    """
    x = np.asarray(x)
    values = np.asarray(values)
    out = np.isin(x, values)
    if values.dtype.kind == "f" and np.isnan(values).any():
        out |= np.isnan(x)
    return out


class Feature:
    """A map from releases ``(n, ...)`` to a real score ``(n,)``; ``name`` is used to describe events."""

    name = "score"

    def __call__(self, Y) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError


class Identity(Feature):
    name = "output"

    def __call__(self, Y):
        Y = np.asarray(Y)
        if Y.ndim > 1:
            Y = Y.reshape(Y.shape[0], -1)
            if Y.shape[1] != 1:
                raise ValueError(f"Identity feature needs scalar releases, got shape {Y.shape}")
            Y = Y[:, 0]
        return Y.astype(float, copy=False)


class Coordinate(Feature):
    def __init__(self, j: int):
        self.j = int(j)
        self.name = f"output[{self.j}]"

    def __call__(self, Y):
        return _as_2d(Y)[:, self.j].astype(float, copy=False)


class Projection(Feature):
    """``w · (y - centre) / scale`` for a fixed direction ``w`` (random or declared).

    Parameters
    ----------
    w : array_like
        The direction.
    centre : array_like, optional
        Subtracted first.
    scale : array_like, optional
        Divides the centred release.
    label : str, optional
        Name in reports.
    """

    def __init__(self, w: Any, centre: Any = None, scale: ArrayLike | None = None, label: str | None = None):
        self.w = np.asarray(w, dtype=float).ravel()
        self.centre = np.zeros_like(self.w) if centre is None else np.asarray(centre, dtype=float)
        self.scale = np.ones_like(self.w) if scale is None else np.asarray(scale, dtype=float)
        ws = np.array2string(self.w, precision=3, separator=", ", threshold=6)
        self.name = label or f"projection w·z (w={ws}, z = standardised output)"

    def __call__(self, Y):
        Z = (_as_2d(Y).astype(float) - self.centre) / self.scale
        return Z @ self.w


class LearnedScore(Feature):
    """Decision function of a fitted classifier on (optionally transformed, standardised) releases.

    Parameters
    ----------
    model : object
        A fitted classifier with ``decision_function``.
    transform : callable or None
        Applied to the releases first.
    centre : array_like
        Standardisation centre.
    scale : array_like
        Standardisation scale.
    label : str
        Name in reports.
    n_threads : int or None, default 1
        Threads the model may use.
    """

    def __init__(
        self,
        model: Any,
        transform: Callable | None,
        centre: Any,
        scale: ArrayLike,
        label: str,
        n_threads: int | None = 1,
    ):
        self.model = model
        self.n_threads = n_threads
        self.transform = transform
        self.centre = centre
        self.scale = scale
        self.name = label

    def features(self, Y: np.ndarray) -> np.ndarray:
        X = _as_2d(Y).astype(float) if self.transform is None else self.transform(Y)
        return (X - self.centre) / self.scale

    def __call__(self, Y):
        with _threads(self.n_threads):
            return np.asarray(self.model.decision_function(self.features(Y)), dtype=float)


def _threads(n):
    """Limit native thread pools (OpenMP/BLAS) for model fits and scores; ``None`` leaves them alone.

    The default of 1 avoids the oversubscription that makes histogram gradient boosting 10-50× slower on a
    shared machine; pass ``n_threads=None`` to an attack to use every core.
    """
    import contextlib

    if n is None:
        return contextlib.nullcontext()
    return _controller().limit(limits=int(n))


_CONTROLLER: list = []  # [(ThreadpoolController, len(sys.modules) when it was made)]


def _controller():
    """One ``ThreadpoolController`` for every limit: building one scans the process's shared libraries (about 10 ms,
    9 s of an SVT audit that scores events a thousand times).  It is rebuilt when modules were imported since, which
    is when a new native thread pool can have been loaded."""
    import sys

    from threadpoolctl import ThreadpoolController

    n_mod = len(sys.modules)
    if not _CONTROLLER or _CONTROLLER[0][1] != n_mod:
        _CONTROLLER[:] = [(ThreadpoolController(), n_mod)]
    return _CONTROLLER[0][0]


class LikelihoodRatio(Feature):
    """``log p(y | D) - log p(y | D')`` from a user-supplied ``log_density(Y, data) -> (n,)``.

    Parameters
    ----------
    log_density : callable
        ``log_density(Y, data) -> (n,)``.
    d1, d2 : array_like
        The datasets D and D'.
    """

    def __init__(self, log_density: Callable, d1: Any, d2: Any):
        self.log_density, self.d1, self.d2 = log_density, d1, d2
        self.name = "log-likelihood ratio log p(y|D) - log p(y|D')"

    def __call__(self, Y):
        with np.errstate(invalid="ignore"):
            s = np.asarray(self.log_density(Y, self.d1), float) - np.asarray(self.log_density(Y, self.d2), float)
        return np.where(np.isnan(s), 0.0, s)  # both densities 0 (or both inf): no information


class RowKey:
    """Exact keys of releases for set events: the value for scalar releases, the bytes of each row otherwise
    (floats compared as values: −0.0 and 0.0 are one key, and so are NaNs of any payload).

    Parameters
    ----------
    shape_tail : tuple
        Shape of one release.
    dtype : numpy.dtype
        Its dtype.
    """

    def __init__(self, shape_tail: tuple, dtype: Any):
        self.shape_tail = tuple(shape_tail)
        self.dtype = np.dtype(dtype)
        self.scalar = int(np.prod(self.shape_tail, dtype=int)) == 1

    def __call__(self, Y):
        Y = np.asarray(Y)
        if self.scalar:
            return Y.reshape(Y.shape[0])
        Y = np.ascontiguousarray(Y.reshape(Y.shape[0], -1).astype(self.dtype, copy=False))
        if Y.dtype.kind == "f":  # values, as for scalar releases: bit patterns are the "bits" family's business
            Y = Y + 0.0  # a copy in which -0.0 is +0.0 (a vector with -0.0 on one side only was "violated" 8.09
            Y[np.isnan(Y)] = np.nan  # while the same scalar was "consistent"); one NaN whatever its payload
        return Y.view(np.dtype((np.void, Y.dtype.itemsize * Y.shape[1]))).ravel()

    def decode(self, keys: Any) -> list:
        if self.scalar:
            return [k.item() if hasattr(k, "item") else k for k in keys]
        return [np.frombuffer(k.tobytes(), dtype=self.dtype).tolist() for k in keys]


def bit_features(Y: np.ndarray) -> np.ndarray:
    """Float bit-pattern feature map: each float64 output becomes its 64 IEEE-754 bits (0/1 features).

    Useful against floating-point leaks (Mironov 2012; DP-Sniper's bit-pattern transform): the low-order
    mantissa bits of a naive Laplace sample depend on the input.

    Parameters
    ----------
    Y : numpy.ndarray
        Releases (float64).

    Returns
    -------
    numpy.ndarray
        0/1 features, 64 per float.
    """
    X = np.ascontiguousarray(_as_2d(Y).astype(np.float64))
    u = X.view(np.uint64)
    bits = (u[:, :, None] >> np.arange(64, dtype=np.uint64)) & np.uint64(1)
    return bits.reshape(X.shape[0], -1).astype(np.float32)


# ---------------------------------------------------------------------------------------------------------
# Events
# ---------------------------------------------------------------------------------------------------------
@dataclass
class Event:
    """A fixed set of outputs.

    ``kind``: ``"threshold"`` (``side`` ``">="`` or ``"<="``, ``params=(t,)``), ``"interval"`` (``params=(a, b)``)
    or ``"set"`` (``params=(keys,)``).  ``orientation`` is +1 when the event is more likely under D.
    ``predicted`` is the selection objective; ``sel_counts`` the selection counts (num, den) and sizes.

    Parameters
    ----------
    kind : str
        ``"threshold"``, ``"interval"`` or ``"set"``.
    feature : Feature
        The map from releases to scores or keys.
    side : str
        ``">="`` or ``"<="`` for thresholds.
    params : tuple
        ``(t,)``, ``(a, b)`` or ``(keys,)``.
    orientation : int
        +1 when the event is more likely under D, else −1.
    attack : str
        The attack family that chose it.
    predicted : float, optional
        The selection objective.
    sel_props : tuple, optional
        The selection proportions (num, den).
    extra : dict, optional
        Anything else (selection counts and sizes).
    """

    kind: str
    feature: Any
    side: str
    params: tuple
    orientation: int
    attack: str
    predicted: float = float("nan")
    sel_props: tuple = (float("nan"), float("nan"))
    extra: dict = field(default_factory=dict)

    def indicator(self, Y: np.ndarray) -> np.ndarray:
        s = self.feature(Y)
        if self.kind == "threshold":
            t = self.params[0]
            return s >= t if self.side == ">=" else s <= t
        if self.kind == "interval":
            a, b = self.params
            return (s >= a) & (s <= b)
        if self.kind == "set":
            return isin_nan(s, self.params[0])
        raise ValueError(f"unknown event kind {self.kind!r}")

    def describe(self) -> str:
        name = getattr(self.feature, "name", "score")
        if self.kind == "threshold":
            return f"{name} {self.side} {self.params[0]:.6g}"
        if self.kind == "interval":
            return f"{self.params[0]:.6g} <= {name} <= {self.params[1]:.6g}"
        vals = self.feature.decode(self.params[0]) if hasattr(self.feature, "decode") else list(self.params[0])
        shown = ", ".join(repr(v) for v in vals[:8]) + (f", … ({len(vals)} outcomes)" if len(vals) > 8 else "")
        return f"output in {{{shown}}}"

    def __str__(self) -> str:
        who = "D" if self.orientation > 0 else "D'"
        return f"{self.describe()} (more likely under {who}; attack {self.attack})"

    def to_dict(self) -> dict:
        out = {
            "event": self.describe(),
            "kind": self.kind,
            "side": self.side,
            "orientation": "D over D'" if self.orientation > 0 else "D' over D",
            "attack": self.attack,
            "predicted_bound": float(self.predicted),
            "selection_proportions": [float(x) for x in self.sel_props],
            "spec": self.spec(),
        }
        if "origin" in self.extra:  # e.g. "pair search": chosen on the search's releases, re-scored in selection
            out["origin"] = str(self.extra["origin"])
        return out

    def spec(self) -> dict:
        """Exact, JSON-ready description of the set (see :mod:`.serialise`); rebuilt by ``event_from_spec``.

        Returns
        -------
        dict
            The spec.
        """
        from .serialise import event_spec

        return event_spec(self)


@dataclass
class SelectionContext:
    """What the selection objective needs: final size per side, per-event certification α, claim δ, knobs.

    Parameters
    ----------
    n_final : int
        Certification releases per side.
    alpha : float
        Certification α per event.
    delta : float, default 0.0
        The claim's δ.
    max_candidates : int, default 4096
        Thresholds per scan.
    max_interval_grid : int, default 160
        End points of the interval scan.
    max_categories : int, default 4096
        Most distinct outcomes for set events.
    max_train : int, default 200000
        Most releases a learned score is trained on.
    n_projections : int, default 8
        Random projections tried for vector releases.
    directions : sequence, optional
        Declared projection directions.
    log_density : callable, optional
        For the likelihood-ratio attack.
    pair : tuple, optional
        The pair ``(D, D')``.
    rng : numpy.random.Generator, optional
        Generator of random projections and training splits.
    objective : str, default "epsilon"
        ``"epsilon"`` or ``"mu"`` (see :func:`predicted_bound`).
    z : float, default 3.0
        Selection pessimism in standard errors.
    families : list, optional
        When a list, every scan records its :class:`~.scan.ScanFamily` in it (the streaming selection adds
        further releases to these and chooses the events on all of them).
    evidence_ties : bool, default True
        When every candidate of a scan predicts 0 (nothing resolvable at this size), keep the one whose log ratio
        has the largest z-statistic instead of the first (an extreme threshold or a rare outcome); the pair
        search, whose tie-break between pairs was tuned on the former choice, turns it off.
    """

    n_final: int
    alpha: float
    delta: float = 0.0
    max_candidates: int = 4096
    max_interval_grid: int = 160
    max_categories: int = 4096
    max_train: int = 200_000
    n_projections: int = 8
    directions: Sequence | None = None
    log_density: Callable | None = None
    pair: tuple | None = None
    rng: np.random.Generator | None = None
    objective: str = "epsilon"
    z: float = 3.0  # selection pessimism (s.e.) of threshold / interval / score scans; unions of outcomes
    # (DiscreteAttack) use union_pessimism(j, K) instead
    families: list | None = None  # when a list, every scan appends its ScanFamily (grid and counts) to it
    evidence_ties: bool = True  # a scan whose candidates all predict 0 keeps its best-supported one (scan.py)
