"""Attacks: families of events, chosen on a *selection* split and certified on fresh samples.

An attack looks at releases ``Y1`` (on D) and ``Y2`` (on D') from the selection split and proposes a few
:class:`Event` objects, each with a *predicted certified bound*: the ε lower bound the event would certify at
the final sample size ``n_final`` if the final proportions equalled the selection proportions.  Because the
event is fixed before the certification samples are drawn, choosing it costs no α, however many
thresholds, directions and features were scanned.

Events are threshold sets ``{score >= t}`` / ``{score <= t}``, intervals ``{a <= score <= b}`` and finite sets
of outcomes ``{output in S}``, where the score is a feature of the release (the release itself, a coordinate, a
projection, a learned classifier score, a likelihood ratio).  Each event has an *orientation*: ``+1`` when it is
more likely under D (the bound is on ``P[M(D)∈S] / P[M(D')∈S]``), ``-1`` for the reverse, so both orders of
the pair are tried on the same samples.

Threshold scans are vectorised: both samples are sorted once and every candidate threshold is counted with
``searchsorted``; the predicted bounds of all candidates come from one vectorised Clopper–Pearson call.
No event probability is fixed in advance (contrast DP-Sniper's c = 0.01, which caps it near ε ≈ 4.6).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

import numpy as np

from scipy import special


__all__ = [
    "Event",
    "Feature",
    "Identity",
    "Coordinate",
    "Projection",
    "LearnedScore",
    "LikelihoodRatio",
    "RowKey",
    "SelectionContext",
    "Attack",
    "ThresholdAttack",
    "IntervalAttack",
    "DiscreteAttack",
    "CoordinateAttack",
    "ProjectionAttack",
    "LogisticAttack",
    "GradientBoostingAttack",
    "BitPatternAttack",
    "LikelihoodRatioAttack",
    "bit_features",
    "predicted_bound",
    "union_pessimism",
    "scan_thresholds",
    "make_attacks",
    "ATTACK_NAMES",
]


# ---------------------------------------------------------------------------------------------------------
# Prediction of the certified bound
# ---------------------------------------------------------------------------------------------------------
def _wilson(p, n, z, upper: bool):
    """Wilson score bound (fast stand-in for Clopper–Pearson inside the selection objective only)."""
    z2 = z * z
    centre = p + z2 / (2 * n)
    half = z * np.sqrt(np.maximum(p * (1 - p), 0.0) / n + z2 / (4 * n * n))
    out = (centre + half) / (1 + z2 / n) if upper else (centre - half) / (1 + z2 / n)
    return np.clip(out, 0.0, 1.0)


def _predicted_poisson(p_num, p_den, n_final: int, alpha: float):
    """Predicted :func:`~htdp_verify.stats.epsilon_lower_bound_poisson` at ``n_final`` expected releases per side
    (Wilson one-sided bound for θ = p_num/(p_num+p_den) on s = n_final·(p_num+p_den) trials)."""
    tot = p_num + p_den
    s = float(n_final) * tot
    with np.errstate(divide="ignore", invalid="ignore"):
        theta = np.where(tot > 0, p_num / np.where(tot > 0, tot, 1.0), 0.0)
        lo = _wilson(theta, np.maximum(s, 1e-300), float(special.ndtri(1 - alpha)), upper=False)
        eps = np.where((lo > 0) & (s > 0), np.log(np.maximum(lo, 1e-300)) - np.log1p(-np.minimum(lo, 1 - 1e-16)), 0.0)
    return np.maximum(eps, 0.0)


def predicted_bound(p_num, p_den, n_final: int, alpha: float, delta: float = 0.0, objective: str = "epsilon",
                    n_num=None, n_den=None, z: float = 3.0, method: str = "auto"):
    """Bound an event would certify with ``n_final`` samples per side, predicted from selection proportions.

    This is the selection objective (a prediction, never reported as a bound).  The selection proportions are
    first made pessimistic by ``z`` selection standard errors (Wilson bounds on the selection sizes
    ``n_num``/``n_den``; skipped when these are ``None``; ``z`` may be an array, one value per candidate), which
    stops the maximisation over thousands of candidates from chasing noise in rare events; then the confidence
    bounds at the *final* size (Wilson at ``alpha/2`` per side, within a few per cent of Clopper–Pearson and
    ~100× faster) are applied.  So
    high-probability events are preferred whenever they certify more at the final size.
    ``objective="epsilon"`` predicts the ε lower bound at ``delta``; ``"mu"`` the Gaussian-DP μ lower bound.
    ``method``: ``"cp"`` (two Clopper–Pearson bounds), ``"poisson"`` (the conditional test on Poissonised counts,
    pure ε only) or ``"auto"`` (the larger of the two when δ = 0: the auditor certifies with whichever method
    the selection samples predict to be tighter).
    """
    p_num = np.clip(np.asarray(p_num, dtype=float), 0.0, 1.0)
    p_den = np.clip(np.asarray(p_den, dtype=float), 0.0, 1.0)
    if np.any(np.asarray(z) > 0) and n_num is not None and n_den is not None:
        p_num = _wilson(p_num, np.asarray(n_num, float), z, upper=False)
        p_den = _wilson(p_den, np.asarray(n_den, float), z, upper=True)
    zf = float(special.ndtri(1 - alpha / 2))
    lo = _wilson(p_num, float(n_final), zf, upper=False)
    hi = _wilson(p_den, float(n_final), zf, upper=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        if objective == "mu":
            mu = special.ndtri(1.0 - hi) - special.ndtri(1.0 - lo)
            return np.maximum(np.nan_to_num(mu, nan=0.0, posinf=0.0, neginf=0.0), 0.0)
        num = lo - delta
        eps = np.where(num > 0, np.log(np.where(num > 0, num, 1.0)) - np.log(np.maximum(hi, 1e-300)), 0.0)
    eps = np.maximum(eps, 0.0)
    if delta == 0 and method in ("auto", "poisson"):
        pois = _predicted_poisson(p_num, p_den, n_final, alpha)
        eps = pois if method == "poisson" else np.maximum(eps, pois)
    return eps


def union_pessimism(j, n_outcomes: int) -> np.ndarray:
    """Selection pessimism (in standard errors) for the union of the ``j`` outcomes with the highest empirical
    ratio among ``n_outcomes`` = K: ``sqrt(j) * E[Z | Z > z_q] / sqrt(1 - q)`` with ``q = j / K``, ``Z`` standard
    normal (equivalently ``sqrt(K) * phi(z_q) / sqrt(q (1 - q))``; 0 for the whole space).

    This is the expected winner's-curse bias of such a union when every outcome has the same true ratio, in units
    of the union's own standard error ``sqrt(q (1 - q) / n)`` (the one the Wilson bound uses): each of the ``j``
    outcomes was ranked high partly for its own noise, on average ``E[Z | Z > z_q]`` of its standard errors, and
    these add up to ``K * phi(z_q)`` cell standard errors, the same as the bias of the complement picked for bad
    luck (the form is symmetric in ``q`` and ``1 - q``).  So it is small for a single outcome among few (1.9 for
    the best of 11), zero for the whole space, and large for a union of many rare outcomes each picked for its
    luck (about 36 for the better half of 2000) or for all but a few outcomes (1.9 for 10 of 11).  A fixed
    pessimism cannot serve these ends: 3 s.e. buried rare but decisive outcomes (SVT1's in-domain extreme pair:
    median 0.52 of the oracle's bound from 3·10⁶ selection releases; this rule 0.82), while anything below about
    2.5 s.e. let unions of lucky rare cells win on fine partitions (Laplace on 200 cells: 0).  Measured over 13
    exact laws × 3 selection sizes (3·10⁵–3·10⁶) × 30 draws, the mean ratio to the oracle rose from 0.82
    (median) / 0.79 (10th percentile) with a fixed 3 s.e. to 0.935 / 0.900.  The ``1 / sqrt(1 - q)`` factor
    only matters for near-complete unions; without it (0.931 / 0.898 in that study) they were under-penalised
    (SVT1's X-shape pair from 3·10⁵ selection releases: median 0.92 of the oracle without, 1.00 with).
    """
    j = np.asarray(j, dtype=float)
    q = np.clip(j / max(int(n_outcomes), 1), 1e-300, 1.0)
    zq = -special.ndtri(q)  # upper q-quantile, exact for small q
    phi = np.exp(-0.5 * zq * zq) / math.sqrt(2 * math.pi)
    rest = np.clip(1.0 - q, 1e-300, 1.0)
    return np.where(q < 1.0, np.sqrt(j) * phi / q / np.sqrt(rest), 0.0)


# ---------------------------------------------------------------------------------------------------------
# Features (scores) of releases
# ---------------------------------------------------------------------------------------------------------
def _as_2d(Y: np.ndarray) -> np.ndarray:
    Y = np.asarray(Y)
    if Y.ndim == 1:
        return Y[:, None]
    return Y.reshape(Y.shape[0], -1)


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
    """``w · (y - centre) / scale`` for a fixed direction ``w`` (random or declared)."""

    def __init__(self, w, centre=None, scale=None, label: str | None = None):
        self.w = np.asarray(w, dtype=float).ravel()
        self.centre = np.zeros_like(self.w) if centre is None else np.asarray(centre, dtype=float)
        self.scale = np.ones_like(self.w) if scale is None else np.asarray(scale, dtype=float)
        ws = np.array2string(self.w, precision=3, separator=", ", threshold=6)
        self.name = label or f"projection w·z (w={ws}, z = standardised output)"

    def __call__(self, Y):
        Z = (_as_2d(Y).astype(float) - self.centre) / self.scale
        return Z @ self.w


class LearnedScore(Feature):
    """Decision function of a fitted classifier on (optionally transformed, standardised) releases."""

    def __init__(self, model, transform: Callable | None, centre, scale, label: str, n_threads: int | None = 1):
        self.model = model
        self.n_threads = n_threads
        self.transform = transform
        self.centre = centre
        self.scale = scale
        self.name = label

    def features(self, Y):
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
    from threadpoolctl import threadpool_limits

    return threadpool_limits(int(n))


class LikelihoodRatio(Feature):
    """``log p(y | D) - log p(y | D')`` from a user-supplied ``log_density(Y, data) -> (n,)``."""

    def __init__(self, log_density: Callable, d1, d2):
        self.log_density, self.d1, self.d2 = log_density, d1, d2
        self.name = "log-likelihood ratio log p(y|D) - log p(y|D')"

    def __call__(self, Y):
        with np.errstate(invalid="ignore"):
            s = np.asarray(self.log_density(Y, self.d1), float) - np.asarray(self.log_density(Y, self.d2), float)
        return np.where(np.isnan(s), 0.0, s)  # both densities 0 (or both inf): no information


class RowKey:
    """Exact keys of releases for set events: the value for scalar releases, the raw bytes of each row otherwise."""

    def __init__(self, shape_tail: tuple, dtype):
        self.shape_tail = tuple(shape_tail)
        self.dtype = np.dtype(dtype)
        self.scalar = int(np.prod(self.shape_tail, dtype=int)) == 1

    def __call__(self, Y):
        Y = np.asarray(Y)
        if self.scalar:
            return Y.reshape(Y.shape[0])
        Y = np.ascontiguousarray(Y.reshape(Y.shape[0], -1).astype(self.dtype, copy=False))
        return Y.view(np.dtype((np.void, Y.dtype.itemsize * Y.shape[1]))).ravel()

    def decode(self, keys) -> list:
        if self.scalar:
            return [k.item() if hasattr(k, "item") else k for k in keys]
        return [np.frombuffer(k.tobytes(), dtype=self.dtype).tolist() for k in keys]


def bit_features(Y) -> np.ndarray:
    """Float bit-pattern feature map: each float64 output becomes its 64 IEEE-754 bits (0/1 features).

    Useful against floating-point leaks (Mironov 2012; DP-Sniper's bit-pattern transform): the low-order
    mantissa bits of a naive Laplace sample depend on the input.
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

    def indicator(self, Y) -> np.ndarray:
        s = self.feature(Y)
        if self.kind == "threshold":
            t = self.params[0]
            return s >= t if self.side == ">=" else s <= t
        if self.kind == "interval":
            a, b = self.params
            return (s >= a) & (s <= b)
        if self.kind == "set":
            return np.isin(s, self.params[0])
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
        return {
            "event": self.describe(),
            "kind": self.kind,
            "side": self.side,
            "orientation": "D over D'" if self.orientation > 0 else "D' over D",
            "attack": self.attack,
            "predicted_bound": float(self.predicted),
            "selection_proportions": [float(x) for x in self.sel_props],
        }


@dataclass
class SelectionContext:
    """What the selection objective needs: final size per side, per-event certification α, claim δ, knobs."""

    n_final: int
    alpha: float
    delta: float = 0.0
    max_candidates: int = 4096
    max_interval_grid: int = 160
    max_categories: int = 256
    max_train: int = 200_000
    n_projections: int = 8
    directions: Sequence | None = None
    log_density: Callable | None = None
    pair: tuple | None = None
    rng: np.random.Generator | None = None
    objective: str = "epsilon"
    z: float = 3.0  # selection pessimism (s.e.) of threshold / interval / score scans; unions of outcomes
    # (DiscreteAttack) use union_pessimism(j, K) instead


# ---------------------------------------------------------------------------------------------------------
# Threshold scan (the workhorse)
# ---------------------------------------------------------------------------------------------------------
def _sorted_valid(s):
    s = np.asarray(s, dtype=float).ravel()
    a = np.sort(s)
    nv = int(np.searchsorted(a, np.nan)) if np.isnan(a[-1]) else a.size  # NaNs sort last
    return a[:nv], s.size


def _candidates(a1, a2, m: int) -> np.ndarray:
    """Candidate thresholds covering the whole range: uniform-in-rank plus geometric tails on both sides."""
    out = []
    for a in (a1, a2):
        n = a.size
        if n == 0:
            continue
        if n <= m // 2:
            out.append(a)
            continue
        lin = np.linspace(0, n - 1, m // 4).astype(np.int64)
        geo = np.unique(np.geomspace(1, n / 2, m // 8).astype(np.int64)) - 1
        idx = np.concatenate([lin, geo, n - 1 - geo])
        out.append(a[np.clip(idx, 0, n - 1)])
    if not out:
        return np.empty(0)
    return np.unique(np.concatenate(out))


def scan_thresholds(s1, s2, ctx: SelectionContext, feature: Feature, attack: str) -> list[Event]:
    """Best threshold event for each side (``>=``, ``<=``) and orientation, by predicted certified bound.

    ``s1``/``s2`` are scores on the selection releases of D and D'.  All candidate thresholds (up to
    ``ctx.max_candidates``, spread over the whole range including both extreme tails) are counted at once.
    """
    a1, n1 = _sorted_valid(s1)
    a2, n2 = _sorted_valid(s2)
    cand = _candidates(a1, a2, ctx.max_candidates)
    if cand.size == 0:
        return []
    ge1 = (a1.size - np.searchsorted(a1, cand, "left")) / n1
    ge2 = (a2.size - np.searchsorted(a2, cand, "left")) / n2
    le1 = np.searchsorted(a1, cand, "right") / n1
    le2 = np.searchsorted(a2, cand, "right") / n2
    combos = [(">=", 1, ge1, ge2), (">=", -1, ge2, ge1), ("<=", 1, le1, le2), ("<=", -1, le2, le1)]
    num = np.stack([c[2] for c in combos])
    den = np.stack([c[3] for c in combos])
    nn = np.array([n1, n2, n1, n2])[:, None]
    nd = np.array([n2, n1, n2, n1])[:, None]
    pred = predicted_bound(num, den, ctx.n_final, ctx.alpha, ctx.delta, ctx.objective, nn, nd, ctx.z)
    events = []
    for i, (side, orient, _, _) in enumerate(combos):
        j = int(np.argmax(pred[i]))
        events.append(Event("threshold", feature, side, (float(cand[j]),), orient, attack,
                            float(pred[i, j]), (float(num[i, j]), float(den[i, j]))))
    return events


def scan_intervals(s1, s2, ctx: SelectionContext, feature: Feature, attack: str) -> list[Event]:
    """Best interval ``[a, b]`` per orientation over a quantile grid of end points (vectorised over all pairs)."""
    a1, n1 = _sorted_valid(s1)
    a2, n2 = _sorted_valid(s2)
    cand = _candidates(a1, a2, ctx.max_candidates)
    if cand.size < 2:
        return []
    if cand.size > ctx.max_interval_grid:
        cand = cand[np.linspace(0, cand.size - 1, ctx.max_interval_grid).astype(np.int64)]
    lt1, le1 = np.searchsorted(a1, cand, "left"), np.searchsorted(a1, cand, "right")
    lt2, le2 = np.searchsorted(a2, cand, "left"), np.searchsorted(a2, cand, "right")
    p1 = (le1[None, :] - lt1[:, None]) / n1  # rows: a = cand[i], cols: b = cand[j]
    p2 = (le2[None, :] - lt2[:, None]) / n2
    valid = np.triu(np.ones((cand.size, cand.size), bool))
    events = []
    for orient, num, den, nn, nd in ((1, p1, p2, n1, n2), (-1, p2, p1, n2, n1)):
        pred = np.where(valid, predicted_bound(num, den, ctx.n_final, ctx.alpha, ctx.delta, ctx.objective,
                                               nn, nd, ctx.z), -1.0)
        i, j = np.unravel_index(int(np.argmax(pred)), pred.shape)
        events.append(Event("interval", feature, "[]", (float(cand[i]), float(cand[j])), orient, attack,
                            float(pred[i, j]), (float(num[i, j]), float(den[i, j]))))
    return events


# ---------------------------------------------------------------------------------------------------------
# Attacks
# ---------------------------------------------------------------------------------------------------------
class Attack:
    """An event family: ``select(Y1, Y2, ctx)`` returns candidate events (each with a predicted bound).

    ``applicable(Y)`` says whether the family makes sense for releases shaped like ``Y``.
    """

    name = "attack"

    def applicable(self, Y) -> bool:
        return True

    def select(self, Y1, Y2, ctx: SelectionContext) -> list[Event]:  # pragma: no cover - abstract
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


def _is_scalar(Y) -> bool:
    Y = np.asarray(Y)
    return Y.ndim == 1 or int(np.prod(Y.shape[1:], dtype=int)) == 1


class ThresholdAttack(Attack):
    """Half-lines ``{output >= t}`` and ``{output <= t}`` on scalar releases, t scanned over the whole range."""

    name = "threshold"

    def applicable(self, Y):
        return _is_scalar(Y)

    def select(self, Y1, Y2, ctx):
        f = Identity()
        return scan_thresholds(f(Y1), f(Y2), ctx, f, self.name)


class IntervalAttack(Attack):
    """Intervals ``{a <= output <= b}`` on scalar releases."""

    name = "interval"

    def applicable(self, Y):
        return _is_scalar(Y)

    def select(self, Y1, Y2, ctx):
        f = Identity()
        return scan_intervals(f(Y1), f(Y2), ctx, f, self.name)


class DiscreteAttack(Attack):
    """Unions of outcomes for discrete releases: outcomes ordered by their empirical ratio, best prefix kept.

    The prefix of ``j`` outcomes is judged with :func:`union_pessimism` ``(j, K)`` standard errors of selection
    pessimism (``K`` outcomes seen), not the context's fixed ``z``: the selection bias of a union depends on how
    many outcomes were ranked into it.

    Applies when the pooled selection sample has at most ``ctx.max_categories`` distinct releases (rows for
    vector releases) and fewer than 5 % of the sample size.
    """

    name = "discrete"

    def select(self, Y1, Y2, ctx):
        Y1, Y2 = np.asarray(Y1), np.asarray(Y2)
        key = RowKey(Y1.shape[1:], np.result_type(Y1.dtype, Y2.dtype))
        k1, k2 = key(Y1), key(Y2)
        cats, inv = np.unique(np.concatenate([k1, k2]), return_inverse=True)
        inv = inv.ravel()
        n1, n2 = k1.size, k2.size
        if cats.size > ctx.max_categories or cats.size > 0.05 * (n1 + n2):
            return []
        c1 = np.bincount(inv[:n1], minlength=cats.size) / n1
        c2 = np.bincount(inv[n1:], minlength=cats.size) / n2
        events = []
        for orient, num, den, nn, nd in ((1, c1, c2, n1, n2), (-1, c2, c1, n2, n1)):
            ratio = (num + 0.5 / nn) / (den + 0.5 / nd)
            order = np.argsort(-ratio, kind="stable")
            cn, cd = np.cumsum(num[order]), np.cumsum(den[order])
            zj = union_pessimism(np.arange(1, cats.size + 1), cats.size)
            pred = predicted_bound(cn, cd, ctx.n_final, ctx.alpha, ctx.delta, ctx.objective, nn, nd, zj)
            j = int(np.argmax(pred))
            events.append(Event("set", key, "in", (cats[order[: j + 1]],), orient, self.name,
                                float(pred[j]), (float(cn[j]), float(cd[j]))))
        return events

    def applicable(self, Y):
        return True


class CoordinateAttack(Attack):
    """Threshold events on each coordinate of a vector release."""

    name = "coordinates"

    def applicable(self, Y):
        return not _is_scalar(Y)

    def select(self, Y1, Y2, ctx):
        X1, X2 = _as_2d(Y1), _as_2d(Y2)
        events = []
        for j in range(X1.shape[1]):
            f = Coordinate(j)
            events += scan_thresholds(f(X1), f(X2), ctx, f, self.name)
        return events


class ProjectionAttack(Attack):
    """Threshold events on projections of standardised vector releases: random and declared directions."""

    name = "projection"

    def applicable(self, Y):
        return not _is_scalar(Y)

    def select(self, Y1, Y2, ctx):
        X1, X2 = _as_2d(Y1).astype(float), _as_2d(Y2).astype(float)
        d = X1.shape[1]
        pooled = np.concatenate([X1, X2])
        centre = pooled.mean(axis=0)
        scale = pooled.std(axis=0)
        scale = np.where(scale > 0, scale, 1.0)
        dirs = []
        if ctx.directions is not None:
            for w in ctx.directions:
                w = np.asarray(w, float).ravel()
                if w.size != d:
                    raise ValueError(f"directions must have length {d} (the release dimension), got {w.size}")
                dirs.append((w, "declared"))
        if ctx.n_projections and ctx.rng is not None:
            W = ctx.rng.standard_normal((ctx.n_projections, d))
            W /= np.linalg.norm(W, axis=1, keepdims=True)
            dirs += [(w, "random") for w in W]
        events = []
        for w, how in dirs:
            if how == "declared":  # declared directions act on raw outputs
                f = Projection(w, label=f"declared projection w·output (w={np.array2string(w, precision=3, separator=', ', threshold=6)})")
            else:
                f = Projection(w, centre, scale)
            events += scan_thresholds(f(X1), f(X2), ctx, f, self.name)
        return events


class _ClassifierAttack(Attack):
    """Train a classifier D-vs-D' on the first half of the selection split; scan its score on the second."""

    name = "classifier"
    transform: Callable | None = None

    def __init__(self, transform: Callable | None = None, *, n_threads: int | None = 1, **model_kwargs):
        self.transform = transform if transform is not None else type(self).transform
        self.n_threads = n_threads
        self.model_kwargs = model_kwargs

    def make_model(self):  # pragma: no cover - abstract
        raise NotImplementedError

    def select(self, Y1, Y2, ctx):
        Y1, Y2 = np.asarray(Y1), np.asarray(Y2)
        h1, h2 = Y1.shape[0] // 2, Y2.shape[0] // 2
        if min(h1, h2) < 20:
            return []
        m1, m2 = min(h1, ctx.max_train), min(h2, ctx.max_train)
        tf = self.transform
        raw = (lambda Y: _as_2d(Y).astype(float)) if tf is None else tf
        Xtr = np.concatenate([raw(Y1[:m1]), raw(Y2[:m2])])
        ytr = np.concatenate([np.ones(m1), np.zeros(m2)])
        centre = Xtr.mean(axis=0)
        scale = Xtr.std(axis=0)
        scale = np.where(scale > 0, scale, 1.0)
        model = self.make_model()
        with _threads(self.n_threads):
            model.fit((Xtr - centre) / scale, ytr)
        f = LearnedScore(model, tf, centre, scale, f"{self.name} score", self.n_threads)
        return scan_thresholds(f(Y1[h1:]), f(Y2[h2:]), ctx, f, self.name)


class LogisticAttack(_ClassifierAttack):
    """Logistic regression (scikit-learn) on standardised releases; events are thresholds on its score."""

    name = "logistic"

    def make_model(self):
        from sklearn.linear_model import LogisticRegression

        kw = {"max_iter": 300, "C": 1.0}
        kw.update(self.model_kwargs)
        return LogisticRegression(**kw)


class GradientBoostingAttack(_ClassifierAttack):
    """Histogram gradient boosting (scikit-learn) score; optional, slower, catches non-monotone leaks."""

    name = "gboost"

    def make_model(self):
        from sklearn.ensemble import HistGradientBoostingClassifier

        kw = {"max_iter": 100}
        kw.update(self.model_kwargs)
        return HistGradientBoostingClassifier(**kw)


def _check_trend(trend):
    if trend not in (None, "linear", "tanh"):
        raise ValueError(f"trend must be None, 'linear' or 'tanh', got {trend!r}")


class MixedFeatures:
    """Automatic feature map for releases that mix atoms and continuous values (fitted on training releases).

    Each output column is split into *atoms* (values taking at least ``atom_share`` of the training rows, e.g.
    SVT's ⊥/aborted codes or a sentinel 0.0) and a continuous remainder.  Columns with at most ``max_levels``
    distinct values are purely discrete.  Features: a one-hot indicator per atom and, for the continuous
    remainder, its sign around the pooled median plus an optional trend term (0 on atoms): ``trend="linear"``
    the standardised value, ``"tanh"`` the bounded ``tanh((x − median)/sd)``, ``None`` none.  The sign feature
    is the log-likelihood ratio of a small location shift under Laplace noise up to a constant; the trend
    carries smooth monotone effects (e.g. a released value that caps a noisy threshold) but lets heavy tails
    dominate the score's extremes, so neither choice is best everywhere: offer both and let the held-out
    comparison of the selection choose.  Nothing mechanism-specific is used.
    """

    def __init__(self, X_train, *, trend: str | None = "linear", atom_share: float = 0.01, max_levels: int = 16,
                 max_rows: int = 50_000):
        _check_trend(trend)
        self.trend = trend
        X = _as_2d(np.asarray(X_train)).astype(float)
        Xs = X[: max_rows]
        self.atoms, self.centre, self.scale, self.median = [], [], [], []
        for j in range(X.shape[1]):
            vals, cnt = np.unique(Xs[:, j], return_counts=True)
            if vals.size <= max_levels:
                atoms = vals
            else:
                atoms = vals[cnt >= atom_share * Xs.shape[0]]
            self.atoms.append(atoms)
            rest = X[:, j][~np.isin(X[:, j], atoms)]
            if rest.size and vals.size > max_levels:
                self.centre.append(float(np.mean(rest)))
                sd = float(np.std(rest))
                self.scale.append(sd if sd > 0 else 1.0)
                self.median.append(float(np.median(rest)))
            else:
                self.centre.append(None)
                self.scale.append(None)
                self.median.append(None)
        self.n_features = sum(a.size for a in self.atoms) + (1 + (trend is not None)) * sum(
            c is not None for c in self.centre)

    def __call__(self, Y) -> np.ndarray:
        X = _as_2d(np.asarray(Y)).astype(float)
        cols = []
        for j in range(X.shape[1]):
            x = X[:, j]
            is_atom = np.zeros(x.shape[0], dtype=bool)
            for a in self.atoms[j]:
                hit = x == a
                is_atom |= hit
                cols.append(hit.astype(np.float32))
            if self.centre[j] is not None:
                if self.trend == "linear":
                    cols.append(np.where(is_atom, 0.0, (x - self.centre[j]) / self.scale[j]).astype(np.float32))
                elif self.trend == "tanh":
                    cols.append(np.where(is_atom, 0.0, np.tanh((x - self.median[j]) / self.scale[j]))
                                .astype(np.float32))
                cols.append(np.where(is_atom, 0.0, np.sign(x - self.median[j])).astype(np.float32))
        return np.stack(cols, axis=1) if cols else np.zeros((X.shape[0], 0), np.float32)


class MixedLogisticAttack(Attack):
    """Logistic regression on :class:`MixedFeatures` (atoms one-hot; continuous parts: sign around the median
    and an optional trend term), fitted on the first half of the selection split; events threshold its score.

    For vector releases that mix codes and numbers (sparse-vector variants that release noisy answers, noisy
    max returning values, ...).  ``pre``: optional post-processing applied first (a bound on ``pre(M(D))`` is a
    bound on ``M``)."""

    name = "mixed_logistic"

    def __init__(self, pre: Callable | None = None, *, trend: str | None = "linear", label: str | None = None,
                 n_threads: int | None = 1, **model_kwargs):
        _check_trend(trend)
        self.pre = pre
        self.trend = trend
        self.n_threads = n_threads
        self.model_kwargs = model_kwargs
        tag = ", ".join(t for t in (label, f"trend={trend}") if t)
        self.name = f"mixed_logistic[{tag}]"

    def applicable(self, Y):
        return True

    def select(self, Y1, Y2, ctx):
        Y1, Y2 = np.asarray(Y1), np.asarray(Y2)
        h = min(Y1.shape[0], Y2.shape[0]) // 2
        if h < 20:
            return []
        pre = self.pre if self.pre is not None else (lambda Y: Y)
        m = min(h, ctx.max_train)
        mf = MixedFeatures(np.concatenate([pre(Y1[:m]), pre(Y2[:m])]), trend=self.trend)

        def tf(Y, mf=mf, pre=pre):
            return mf(pre(Y))

        att = LogisticAttack(transform=tf, n_threads=self.n_threads, **self.model_kwargs)
        att.name = self.name
        return att.select(Y1, Y2, ctx)


class BitPatternAttack(LogisticAttack):
    """Logistic regression on the 64 IEEE-754 bits of each float64 output (floating-point leaks)."""

    name = "bits"
    transform = staticmethod(bit_features)


class LikelihoodRatioAttack(Attack):
    """Thresholds on the user-supplied log-likelihood ratio ``log p(y|D) - log p(y|D')`` (white-box, tight)."""

    name = "likelihood_ratio"

    def __init__(self, log_density: Callable | None = None):
        self.log_density = log_density

    def select(self, Y1, Y2, ctx):
        ld = self.log_density or ctx.log_density
        if ld is None or ctx.pair is None:
            raise ValueError("log_density must be supplied (log_density(Y, data) -> log density per release) "
                             "for the likelihood_ratio attack")
        f = LikelihoodRatio(ld, *ctx.pair)
        return scan_thresholds(f(Y1), f(Y2), ctx, f, self.name)


ATTACK_NAMES = {
    "threshold": ThresholdAttack,
    "interval": IntervalAttack,
    "discrete": DiscreteAttack,
    "coordinates": CoordinateAttack,
    "projection": ProjectionAttack,
    "logistic": LogisticAttack,
    "gboost": GradientBoostingAttack,
    "mixed_logistic": MixedLogisticAttack,
    "bits": BitPatternAttack,
    "likelihood_ratio": LikelihoodRatioAttack,
}


def _n_distinct_small(Y, max_categories: int) -> bool:
    Y = np.asarray(Y)
    key = RowKey(Y.shape[1:], Y.dtype)
    n = np.unique(key(Y)).size
    return n <= max_categories and n <= 0.05 * Y.shape[0]


def make_attacks(attacks, Y_example, *, log_density=None, max_categories: int = 256) -> list[Attack]:
    """Resolve ``attacks`` (``"auto"``, a name, an :class:`Attack`, or a list of these) for releases like ``Y``.

    ``"auto"``: scalar continuous → threshold + interval; discrete (few distinct outputs) → discrete (+ threshold
    when scalar); vector continuous → coordinates + projection + logistic; plus ``likelihood_ratio`` when
    ``log_density`` is given.
    """
    if isinstance(attacks, (str, Attack)):
        attacks = [attacks]
    out: list[Attack] = []
    for a in attacks:
        if isinstance(a, Attack):
            out.append(a)
        elif a == "auto":
            scalar = _is_scalar(Y_example)
            discrete = _n_distinct_small(Y_example, max_categories)
            if discrete:
                out += [DiscreteAttack()] + ([ThresholdAttack()] if scalar else [CoordinateAttack()])
            elif scalar:
                out += [ThresholdAttack(), IntervalAttack()]
            else:
                out += [CoordinateAttack(), ProjectionAttack(), LogisticAttack()]
            if log_density is not None:
                out.append(LikelihoodRatioAttack(log_density))
        elif isinstance(a, str) and a in ATTACK_NAMES:
            out.append(ATTACK_NAMES[a](log_density) if a == "likelihood_ratio" else ATTACK_NAMES[a]())
        else:
            raise ValueError(f"attacks must be 'auto', an Attack, or names from {sorted(ATTACK_NAMES)}; got {a!r}")
    # drop attacks that cannot apply to this output shape (explicit requests that do not apply raise)
    kept = [a for a in out if a.applicable(Y_example)]
    if not kept:
        raise ValueError(f"attacks: none of {[a.name for a in out]} applies to releases of shape {np.shape(Y_example)[1:]}")
    return kept
