"""Learned scores: classifiers trained D-vs-D' on part of the selection split (logistic regression, gradient
boosting, logistic regression on mixed atom / continuous features or on float bit patterns) and the user's
likelihood ratio; events threshold the score."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .basic import Attack
from .events import LearnedScore, LikelihoodRatio, _as_2d, _threads, bit_features
from .scan import scan_thresholds

__all__ = [
    "LogisticAttack",
    "GradientBoostingAttack",
    "MixedFeatures",
    "MixedLogisticAttack",
    "BitPatternAttack",
    "LikelihoodRatioAttack",
]


class _ClassifierAttack(Attack):
    """Train a classifier D-vs-D' on the first half of the selection split; scan its score on the second."""

    name = "classifier"
    records_scans = True
    transform: Callable | None = None
    train_cap: int | None = None  # training releases per side at most (besides ctx.max_train)

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
        cap = ctx.max_train if self.train_cap is None else min(ctx.max_train, self.train_cap)
        m1, m2 = min(h1, cap), min(h2, cap)
        tf = self.transform
        raw = (lambda Y: _as_2d(Y).astype(float)) if tf is None else tf
        Xtr = np.concatenate([raw(Y1[:m1]), raw(Y2[:m2])])
        ytr = np.concatenate([np.ones(m1), np.zeros(m2)])
        if not np.isfinite(Xtr).all():  # NaN / ±inf releases: atoms, left to the outcome and pattern families
            return []
        with np.errstate(over="ignore", invalid="ignore"):
            centre = Xtr.mean(axis=0)
            scale = Xtr.std(axis=0)
        if not (np.isfinite(centre).all() and np.isfinite(scale).all()):  # values near the float64 limit
            return []
        scale = np.where(scale > 0, scale, 1.0)
        model = self.make_model()
        with _threads(self.n_threads):
            model.fit((Xtr - centre) / scale, ytr)
        f = LearnedScore(model, tf, centre, scale, f"{self.name} score", self.n_threads)
        return scan_thresholds(f(Y1[h1:]), f(Y2[h2:]), ctx, f, self.name)


class LogisticAttack(_ClassifierAttack):
    """Logistic regression (scikit-learn) on standardised releases; events are thresholds on its score.

    Parameters
    ----------
    transform : callable, optional
        Feature map applied to the releases before the classifier.
    n_threads : int or None, default 1
        Threads the classifier may use.
    **model_kwargs
        Passed to the scikit-learn model.
    """

    name = "logistic"

    def make_model(self) -> Any:
        from sklearn.linear_model import LogisticRegression

        kw = {"max_iter": 300, "C": 1.0}
        kw.update(self.model_kwargs)
        return LogisticRegression(**kw)


class GradientBoostingAttack(_ClassifierAttack):
    """Histogram gradient boosting (scikit-learn) score; optional, slower, catches non-monotone leaks.

    Parameters
    ----------
    transform : callable, optional
        Feature map applied to the releases before the classifier.
    n_threads : int or None, default 1
        Threads the classifier may use.
    **model_kwargs
        Passed to the scikit-learn model.
    """

    name = "gboost"
    in_search = False  # a fit per pair and fold would dominate the pair search; it competes in the selection only
    train_cap = 50_000  # a fit per pair and fold in the pair search: keep it to seconds

    def make_model(self) -> Any:
        from sklearn.ensemble import HistGradientBoostingClassifier

        # random_state: early stopping (on by default above 10 000 rows) draws its validation split; unseeded it
        # comes from the global RNG and the attack's event differed between runs with the same seed
        kw = {"max_iter": 60, "random_state": 0}
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

    Parameters
    ----------
    X_train : array_like
        Training releases (rows).
    trend : str or None, default "linear"
        ``"linear"``, ``"tanh"`` or ``None``.
    atom_share : float, default 0.01
        Smallest share of the training rows for a value to be an atom.
    max_levels : int, default 16
        Columns with at most this many distinct values are purely discrete.
    max_rows : int, default 50000
        Most training rows used.
    """

    def __init__(
        self,
        X_train: Any,
        *,
        trend: str | None = "linear",
        atom_share: float = 0.01,
        max_levels: int = 16,
        max_rows: int = 50_000,
    ):
        _check_trend(trend)
        self.trend = trend
        X = _as_2d(np.asarray(X_train)).astype(float)
        Xs = X[:max_rows]
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
            c is not None for c in self.centre
        )

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
                    cols.append(
                        np.where(is_atom, 0.0, np.tanh((x - self.median[j]) / self.scale[j])).astype(np.float32)
                    )
                cols.append(np.where(is_atom, 0.0, np.sign(x - self.median[j])).astype(np.float32))
        return np.stack(cols, axis=1) if cols else np.zeros((X.shape[0], 0), np.float32)

    def spec(self) -> dict:
        """Exact description (floats as ``repr`` strings), rebuilt by :meth:`from_spec`.

        Returns
        -------
        dict
            JSON-ready: ``type`` (``"mixed_features"``), ``trend``, and the per-coordinate ``atoms``, ``centre``,
            ``scale`` and ``median`` (``None`` where not set).
        """

        def r(v):
            return None if v is None else repr(float(v))

        return {
            "type": "mixed_features",
            "trend": self.trend,
            "atoms": [[repr(float(a)) for a in at] for at in self.atoms],
            "centre": [r(v) for v in self.centre],
            "scale": [r(v) for v in self.scale],
            "median": [r(v) for v in self.median],
        }

    @classmethod
    def from_spec(cls, d: dict) -> MixedFeatures:
        """Rebuild the features from the description written by :meth:`spec`.

        Parameters
        ----------
        d : dict
            The description.

        Returns
        -------
        MixedFeatures
            The features.
        """
        mf = cls.__new__(cls)

        def u(v):
            return None if v is None else float(v)

        mf.trend = d["trend"]
        mf.atoms = [np.array([float(a) for a in at], dtype=float) for at in d["atoms"]]
        mf.centre, mf.scale, mf.median = ([u(v) for v in d[k]] for k in ("centre", "scale", "median"))
        mf.n_features = sum(a.size for a in mf.atoms) + (1 + (mf.trend is not None)) * sum(
            c is not None for c in mf.centre
        )
        return mf


class MixedLogisticAttack(Attack):
    """Logistic regression on :class:`MixedFeatures` (atoms one-hot; continuous parts: sign around the median
    and an optional trend term), fitted on the first half of the selection split; events threshold its score.

    For vector releases that mix codes and numbers (sparse-vector variants that release noisy answers, noisy
    max returning values, ...).  ``pre``: optional post-processing applied first (a bound on ``pre(M(D))`` is a
    bound on ``M``).

    Parameters
    ----------
    pre : callable, optional
        Post-processing applied to the releases first.
    trend : str or None, default "linear"
        Trend feature of the continuous parts: ``"linear"``, ``"tanh"`` or ``None``.
    label : str, optional
        Name in reports.
    n_threads : int or None, default 1
        Threads the classifier may use.
    **model_kwargs
        Passed to the scikit-learn model.
    """

    name = "mixed_logistic"
    records_scans = True

    def __init__(
        self,
        pre: Callable | None = None,
        *,
        trend: str | None = "linear",
        label: str | None = None,
        n_threads: int | None = 1,
        **model_kwargs: Any,
    ):
        _check_trend(trend)
        self.pre = pre
        self.trend = trend
        self.n_threads = n_threads
        self.model_kwargs = model_kwargs
        tag = ", ".join(t for t in (label, f"trend={trend}") if t)
        self.name = f"mixed_logistic[{tag}]"

    def applicable(self, Y: np.ndarray) -> bool:
        return True

    def select(self, Y1: np.ndarray, Y2: np.ndarray, ctx: Any) -> Any:
        Y1, Y2 = np.asarray(Y1), np.asarray(Y2)
        h = min(Y1.shape[0], Y2.shape[0]) // 2
        if h < 20:
            return []
        pre = self.pre if self.pre is not None else (lambda Y: Y)
        m = min(h, ctx.max_train)
        mf = MixedFeatures(np.concatenate([pre(Y1[:m]), pre(Y2[:m])]), trend=self.trend)

        if self.pre is None:
            tf = mf  # a plain feature map: its events are written down exactly (MixedFeatures.spec)
        else:

            def tf(Y, mf=mf, pre=pre):
                return mf(pre(Y))

        att = LogisticAttack(transform=tf, n_threads=self.n_threads, **self.model_kwargs)
        att.name = self.name
        return att.select(Y1, Y2, ctx)


class BitPatternAttack(LogisticAttack):
    """Logistic regression on the 64 IEEE-754 bits of each float64 output (floating-point leaks).

    Parameters
    ----------
    transform : callable, optional
        Feature map applied to the releases before the classifier.
    n_threads : int or None, default 1
        Threads the classifier may use.
    **model_kwargs
        Passed to the scikit-learn model.
    """

    name = "bits"
    transform = staticmethod(bit_features)


class LikelihoodRatioAttack(Attack):
    """Thresholds on the user-supplied log-likelihood ratio ``log p(y|D) - log p(y|D')`` (white-box, tight).

    Parameters
    ----------
    log_density : callable, optional
        ``log_density(Y, data) -> (n,)`` (default: the audit's ``log_density``).
    """

    name = "likelihood_ratio"
    records_scans = True

    def __init__(self, log_density: Callable | None = None):
        self.log_density = log_density

    def select(self, Y1: np.ndarray, Y2: np.ndarray, ctx: Any) -> Any:
        ld = self.log_density or ctx.log_density
        if ld is None or ctx.pair is None:
            raise ValueError(
                "log_density must be supplied (log_density(Y, data) -> log density per release) "
                "for the likelihood_ratio attack"
            )
        f = LikelihoodRatio(ld, *ctx.pair)
        return scan_thresholds(f(Y1), f(Y2), ctx, f, self.name)
