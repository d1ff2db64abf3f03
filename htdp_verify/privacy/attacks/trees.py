"""The gradient-boosting score written down exactly: a certified event of the ``"gboost"`` family rebuilt from JSON.

A histogram gradient-boosting classifier (scikit-learn) scores a release by its baseline plus the leaf value each
tree routes it to.  :func:`tree_score_spec` stores every tree's nodes (split feature, threshold, the side missing
values take, children, leaf values) with floats in their shortest round-trip form, and :class:`TreeEnsembleScore`
evaluates them with the same operations in the same order as scikit-learn's prediction (float64 accumulator
started at the baseline, one tree after another; ``x <= threshold`` goes left, NaN goes where the tree sends
missing values), so the rebuilt score equals the fitted one bit for bit and the certified set is the set the
audit counted (tested against ``decision_function``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .events import Feature, _as_2d

__all__ = ["TreeEnsembleScore", "tree_score_spec"]

_FIELDS = ("feature_idx", "num_threshold", "missing_go_to_left", "left", "right", "is_leaf", "value")


def _f(x) -> str:
    return repr(float(x))


class TreeEnsembleScore(Feature):
    """``baseline + Σ_trees leaf value`` of standardised (optionally transformed) releases.

    Parameters
    ----------
    baseline : float
        The model's baseline raw prediction.
    trees : list of dict
        Per tree, arrays ``feature_idx``, ``num_threshold``, ``missing_go_to_left``, ``left``, ``right``,
        ``is_leaf``, ``value`` over its nodes (node 0 is the root).
    centre, scale : array_like
        Standardisation applied before the trees.
    transform : callable, optional
        Feature map applied to the releases first.
    label : str
        Name in reports.
    """

    def __init__(self, baseline: float, trees: list, centre: Any, scale: Any, transform: Any = None, label: str = ""):
        self.baseline = float(baseline)
        self.trees = [
            {
                "feature_idx": np.asarray(t["feature_idx"], dtype=np.int64),
                "num_threshold": np.asarray(t["num_threshold"], dtype=float),
                "missing_go_to_left": np.asarray(t["missing_go_to_left"], dtype=bool),
                "left": np.asarray(t["left"], dtype=np.int64),
                "right": np.asarray(t["right"], dtype=np.int64),
                "is_leaf": np.asarray(t["is_leaf"], dtype=bool),
                "value": np.asarray(t["value"], dtype=float),
            }
            for t in trees
        ]
        self.centre, self.scale = np.asarray(centre, dtype=float), np.asarray(scale, dtype=float)
        self.transform, self.name = transform, label

    def __call__(self, Y) -> np.ndarray:
        X = _as_2d(Y).astype(float) if self.transform is None else self.transform(Y)
        X = np.asarray((X - self.centre) / self.scale, dtype=float)
        n = X.shape[0]
        out = np.zeros(n, dtype=float)
        out += self.baseline
        rows = np.arange(n)
        for t in self.trees:
            node = np.zeros(n, dtype=np.int64)
            live = ~t["is_leaf"][node]
            while live.any():
                nd = node[live]
                x = X[rows[live], t["feature_idx"][nd]]
                go_left = np.where(np.isnan(x), t["missing_go_to_left"][nd], x <= t["num_threshold"][nd])
                node[live] = np.where(go_left, t["left"][nd], t["right"][nd])
                live = ~t["is_leaf"][node]
            out += t["value"][node]
        return out

    def spec(self) -> dict:
        """The JSON-ready spec (:func:`tree_score_spec` writes the same for a fitted model).

        Returns
        -------
        dict
            Baseline, trees, centre and scale, floats as repr strings.
        """
        return {
            "type": "tree_ensemble_score",
            "baseline": _f(self.baseline),
            "trees": [
                {
                    "feature_idx": [int(v) for v in t["feature_idx"]],
                    "num_threshold": [_f(v) for v in t["num_threshold"]],
                    "missing_go_to_left": [bool(v) for v in t["missing_go_to_left"]],
                    "left": [int(v) for v in t["left"]],
                    "right": [int(v) for v in t["right"]],
                    "is_leaf": [bool(v) for v in t["is_leaf"]],
                    "value": [_f(v) for v in t["value"]],
                }
                for t in self.trees
            ],
            "centre": [_f(v) for v in np.ravel(self.centre)],
            "scale": [_f(v) for v in np.ravel(self.scale)],
        }

    @classmethod
    def from_spec(cls, d: dict, transform: Any = None) -> TreeEnsembleScore:
        """Rebuild from :meth:`spec`.

        Parameters
        ----------
        d : dict
            A spec written by :meth:`spec`.
        transform : callable, optional
            The feature map, rebuilt by the caller from the spec's ``transform``.

        Returns
        -------
        TreeEnsembleScore
            The score.
        """
        trees = [
            {k: ([float(v) for v in t[k]] if k in ("num_threshold", "value") else t[k]) for k in _FIELDS}
            for t in d["trees"]
        ]
        return cls(
            float(d["baseline"]),
            trees,
            [float(v) for v in d["centre"]],
            [float(v) for v in d["scale"]],
            transform,
            d.get("name", ""),
        )


def tree_score_spec(model: Any, centre: Any, scale: Any) -> dict | None:
    """The spec of a fitted binary ``HistGradientBoostingClassifier`` score, or ``None`` when it cannot be
    written down exactly (several trees per iteration, categorical splits, not that model).

    Parameters
    ----------
    model : object
        The fitted model.
    centre, scale : array_like
        The standardisation in front of it.

    Returns
    -------
    dict or None
        The spec (without ``transform`` / ``name``, which the caller adds).
    """
    preds = getattr(model, "_predictors", None)
    base = getattr(model, "_baseline_prediction", None)
    if preds is None or base is None or np.size(base) != 1 or any(len(p) != 1 for p in preds):
        return None
    trees = []
    for (p,) in preds:
        nodes = p.nodes
        if "is_categorical" in nodes.dtype.names and np.any(nodes["is_categorical"]):
            return None
        trees.append({k: nodes[k] for k in _FIELDS})
    return TreeEnsembleScore(float(np.ravel(base)[0]), trees, centre, scale).spec()
