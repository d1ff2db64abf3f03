"""Exact, JSON-ready descriptions of events, and events rebuilt from them.

The text of an event (``Event.describe``) rounds its thresholds for reading; the *spec* written here does not:
floats are stored as ``repr`` strings (shortest round-trip form, including ``'inf'`` and ``'nan'``), outcome sets
as their exact values, projections and logistic scores with every coefficient.  :func:`event_from_spec` rebuilds
an :class:`~.events.Event` whose indicator is the certified set, so a reproduction can re-count it on fresh
releases (a gradient-boosting score with every tree's nodes, :mod:`.trees`).  Features that cannot be written
down (a user's log-density, a post-processing given as code) give ``{"exact": false, ...}`` with what is known;
their events are rebuilt only in-process.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ..._validate import is_int_in
from .events import Coordinate, Event, Feature, Identity, LearnedScore, Projection, RowKey, _as_2d, bit_features

__all__ = ["feature_spec", "feature_from_spec", "event_spec", "event_from_spec", "LinearScore"]


def _f(x) -> str:
    return repr(float(x))


def _fs(a) -> list:
    return [_f(v) for v in np.ravel(np.asarray(a, dtype=float))]


def _un(a) -> np.ndarray:
    return np.array([float(v) for v in a], dtype=float)


class LinearScore(Feature):
    """``(transform(Y) - centre) / scale @ coef + intercept``: a logistic regression's decision function, rebuilt.

    Parameters
    ----------
    coef : array_like
        The regression's coefficients, one per feature column (flattened).
    intercept : float
        The regression's intercept.
    centre : array_like
        Per-column mean subtracted before scaling (the fitted standardisation).
    scale : array_like
        Per-column divisor of the standardisation.
    transform : callable, optional
        Feature map applied to the releases first (e.g. :func:`bit_features` or a :class:`MixedFeatures`);
        ``None``: the releases themselves, as a 2-d float array.
    label : str, default "score"
        Name of the feature.
    dtype : str, default "float64"
        Dtype of ``centre`` and ``scale``: the standardisation runs in the dtype it was fitted in, so that the
        rebuilt scores equal the fitted ones bit for bit.
    """

    def __init__(
        self,
        coef: Any,
        intercept: Any,
        centre: Any,
        scale: ArrayLike,
        transform: Any = None,
        label: str = "score",
        dtype: str = "float64",
    ):
        self.coef, self.intercept = np.asarray(coef, float).ravel(), float(intercept)
        # the standardisation runs in the dtype it was fitted in (float32 for 0/1 feature maps), bit for bit
        self.centre, self.scale = np.asarray(centre, dtype=dtype), np.asarray(scale, dtype=dtype)
        self.transform, self.name = transform, label

    def __call__(self, Y):
        X = _as_2d(Y).astype(float) if self.transform is None else self.transform(Y)
        # the same operations as scikit-learn's decision_function (a matrix product with coef as one row), so that
        # scores tied at a threshold stay tied bit for bit
        return (((X - self.centre) / self.scale) @ self.coef[None, :].T + self.intercept).ravel()


def _transform_spec(tf) -> dict | None:
    if tf is None:
        return {"type": "identity"}
    if tf is bit_features:
        return {"type": "bits"}
    spec = getattr(tf, "spec", None)
    return spec() if callable(spec) else None


def _transform_from_spec(d):
    if d["type"] == "identity":
        return None
    if d["type"] == "bits":
        return bit_features
    if d["type"] == "mixed_features":
        from .learned import MixedFeatures

        return MixedFeatures.from_spec(d)
    raise ValueError(f"unknown transform type {d['type']!r}")


def feature_spec(f: Any) -> dict:
    """Exact description of a feature (``{"exact": False, "type": ...}`` when it cannot be written down).

    Parameters
    ----------
    f : Feature
        The feature.

    Returns
    -------
    dict
        The spec.
    """
    if isinstance(f, Identity):
        return {"exact": True, "type": "identity", "name": f.name}
    if isinstance(f, Coordinate):
        return {"exact": True, "type": "coordinate", "j": f.j, "name": f.name}
    if isinstance(f, Projection):
        return {
            "exact": True,
            "type": "projection",
            "w": _fs(f.w),
            "centre": _fs(f.centre),
            "scale": _fs(f.scale),
            "name": f.name,
        }
    if isinstance(f, RowKey):
        return {"exact": True, "type": "row_key", "shape_tail": list(f.shape_tail), "dtype": f.dtype.str}
    if isinstance(f, LinearScore):
        tfs = _transform_spec(f.transform)
        return {
            "exact": tfs is not None,
            "type": "linear_score",
            "coef": _fs(f.coef),
            "intercept": _f(f.intercept),
            "centre": _fs(f.centre),
            "scale": _fs(f.scale),
            "dtype": f.centre.dtype.name,
            "transform": tfs,
            "name": f.name,
        }
    if isinstance(f, LearnedScore):
        m = f.model
        coef, icpt = getattr(m, "coef_", None), getattr(m, "intercept_", None)
        tfs = _transform_spec(f.transform)
        if coef is None and tfs is not None:  # gradient boosting: every tree's nodes (trees.py)
            from .trees import tree_score_spec

            trees = tree_score_spec(m, f.centre, f.scale)
            if trees is not None:
                return {"exact": True, **trees, "transform": tfs, "name": f.name, "model": type(m).__name__}
        if coef is None or np.asarray(coef).shape[0] != 1 or tfs is None:
            return {"exact": False, "type": "learned_score", "model": type(m).__name__, "name": f.name}
        return {
            "exact": True,
            "type": "linear_score",
            "coef": _fs(coef),
            "intercept": _f(np.ravel(icpt)[0]),
            "centre": _fs(f.centre),
            "scale": _fs(f.scale),
            "dtype": np.asarray(f.centre).dtype.name,
            "transform": tfs,
            "name": f.name,
            "model": type(m).__name__,
        }
    spec = getattr(f, "spec", None)
    if callable(spec):
        return {"exact": True, **spec(), "name": getattr(f, "name", "")}
    return {"exact": False, "type": type(f).__name__, "name": getattr(f, "name", "")}


def feature_from_spec(d: dict) -> Feature:
    """Rebuild the feature of :func:`feature_spec` (``ValueError`` when the spec is not exact).

    Parameters
    ----------
    d : dict
        A spec written by :func:`feature_spec`.

    Returns
    -------
    Feature
        The feature.
    """
    if not d.get("exact", False):
        raise ValueError(
            f"feature {d.get('type')!r} ({d.get('name', '')}) was not recorded exactly; it can only be "
            "re-counted in the process that chose it"
        )
    t = d["type"]
    if t == "identity":
        return Identity()
    if t == "coordinate":
        return Coordinate(d["j"])
    if t == "projection":
        return Projection(_un(d["w"]), _un(d["centre"]), _un(d["scale"]), label=d.get("name"))
    if t == "row_key":
        return RowKey(tuple(d["shape_tail"]), np.dtype(d["dtype"]))
    if t == "tree_ensemble_score":
        from .trees import TreeEnsembleScore

        return TreeEnsembleScore.from_spec(d, _transform_from_spec(d["transform"]))
    if t == "linear_score":
        return LinearScore(
            _un(d["coef"]),
            float(d["intercept"]),
            _un(d["centre"]),
            _un(d["scale"]),
            _transform_from_spec(d["transform"]),
            d.get("name", "score"),
            d.get("dtype", "float64"),
        )
    from . import structured as S

    if t == "atom_key":
        return S.AtomKey(_un(d["atoms"]))
    if t == "pattern_key":
        return S.PatternKey([_un(a) for a in d["atoms"]], d.get("columns"))
    if t == "extreme_coordinate":
        return S.ExtremeCoordinate(d["kind"], _un(d["centre"]), _un(d["scale"]))
    if t == "whitened_laplace_ratio":
        from .whitened import WhitenedLaplaceRatio

        return WhitenedLaplaceRatio.from_spec(d)
    if t == "stratified_value":
        pk = S.PatternKey([_un(a) for a in d["pattern"]["atoms"]])
        v = d["value"]
        group = ("pattern", tuple(v), None) if d["group"] == "pattern" else ("first", v[0], v[1])
        return S.StratifiedValue(pk, group, d.get("name", ""))
    raise ValueError(f"unknown feature type {t!r}")


def _keys_spec(e: Event) -> dict:
    f, keys = e.feature, e.params[0]
    if isinstance(f, RowKey) and not f.scalar:
        rows = f.decode(keys)
        return {"rows": [[_f(v) if f.dtype.kind == "f" else int(v) for v in r] for r in rows]}
    if hasattr(f, "_rows") and hasattr(f, "codes"):  # PatternKey: int16 code rows
        return {"code_rows": [[int(v) for v in (r if isinstance(r, list) else [r])] for r in f._rows.decode(keys)]}
    a = np.asarray(keys)
    if a.dtype.kind == "f":
        return {"values": [_f(v) for v in a]}
    if a.dtype.kind in "iub":  # the dtype too: uint64 values of 2**63 and above do not fit the default int64
        return {"values": [int(v) for v in a], "dtype": a.dtype.str}
    if a.dtype.kind in "Mm":  # datetimes / timedeltas as their int64 ticks, with the unit in the dtype
        return {"values": [int(v) for v in a.view(np.int64)], "dtype": a.dtype.str}
    if a.dtype.kind == "U" or (a.dtype.kind == "O" and all(isinstance(v, str) for v in a)):
        return {"strings": [str(v) for v in a], "dtype": a.dtype.str}
    return None  # keys of a feature this module cannot write down (e.g. bytes of a post-processed release)


def _keys_from_spec(f, d: dict | None):
    if d is None:
        raise ValueError(
            "the event's outcome set was not recorded exactly (keys of a post-processed release); it can only be "
            "re-counted in the process that chose it"
        )
    if "strings" in d:
        return np.array(d["strings"], dtype=np.dtype(d["dtype"]))
    if "rows" in d:
        X = np.array([[float(v) if isinstance(v, str) else v for v in r] for r in d["rows"]], dtype=f.dtype)
        return f(X.reshape((X.shape[0],) + f.shape_tail))
    if "code_rows" in d:
        return f._rows(np.array(d["code_rows"], dtype=np.int16).reshape(len(d["code_rows"]), -1))
    vals = d["values"]
    if vals and isinstance(vals[0], str):
        return _un(vals)
    dt = np.dtype(d.get("dtype", "<i8"))
    if dt.kind in "Mm":
        return np.array(vals, dtype=np.int64).view(dt)
    if dt.kind not in "iub":
        raise ValueError(f"an integer outcome set must have an integer or bool dtype, got {dt}")
    try:
        return np.array(vals, dtype=dt)
    except OverflowError as err:
        raise ValueError(f"outcome values do not fit the recorded dtype {dt}: {err}") from None


def event_spec(e: Event) -> dict:
    """The exact spec of an event: kind, side, orientation, exact parameters and feature.

    Parameters
    ----------
    e : Event
        The event.

    Returns
    -------
    dict
        The JSON-ready spec.
    """
    out = {"kind": e.kind, "side": e.side, "orientation": int(e.orientation), "feature": feature_spec(e.feature)}
    exact = bool(out["feature"].get("exact", False))
    if e.kind == "set":
        out["set"] = _keys_spec(e)
        exact = exact and out["set"] is not None
    else:
        out["params"] = [_f(p) for p in e.params]
    out["exact"] = exact
    return out


def event_from_spec(d: dict) -> Event:
    """Rebuild an :class:`Event` from :func:`event_spec` (its indicator is the certified set).

    Parameters
    ----------
    d : dict
        A spec written by :func:`event_spec`.

    Returns
    -------
    Event
        The event.
    """
    _check_event_spec(d)
    try:
        f = feature_from_spec(d["feature"])
        params = (_keys_from_spec(f, d.get("set")),) if d["kind"] == "set" else tuple(_param(p) for p in d["params"])
    except (KeyError, TypeError, IndexError, AttributeError) as e:  # a spec this module did not write
        raise ValueError(f"event spec is malformed ({type(e).__name__}: {e})") from None
    return Event(d["kind"], f, d["side"], params, int(d["orientation"]), "rebuilt")


def _param(p: Any) -> float:
    """A threshold as :func:`event_spec` writes it (a JSON number or its repr string), else NaN."""
    if isinstance(p, (int, float)) and not isinstance(p, bool):
        return float(p)
    if isinstance(p, str) and p.strip() == p and "_" not in p:
        try:
            return float(p)
        except ValueError:
            pass
    return math.nan


_SIDES = {"threshold": (">=", "<="), "interval": ("[]",), "set": ("in",)}
_N_PARAMS = {"threshold": 1, "interval": 2}


def _check_event_spec(d: Any) -> None:
    """``ValueError`` naming the field when ``d`` is not an event spec :func:`event_spec` writes (a results file may
    come from someone else: a side of ``">"`` was read as ``"<="``, an orientation of 7 flipped the ratio)."""
    if not isinstance(d, dict) or not isinstance(d.get("feature"), dict):
        raise ValueError("event spec must be a JSON object with a 'feature' object")
    kind = d.get("kind")
    if kind not in _SIDES:
        raise ValueError(f"event spec 'kind' must be one of {sorted(_SIDES)}, got {kind!r}")
    if d.get("side") not in _SIDES[kind]:
        raise ValueError(f"event spec 'side' of a {kind} event must be one of {_SIDES[kind]}, got {d.get('side')!r}")
    o = d.get("orientation")
    if isinstance(o, bool) or o not in (1, -1):
        raise ValueError(f"event spec 'orientation' must be 1 or -1, got {o!r}")
    if kind in _N_PARAMS:
        ps = d.get("params")
        if not isinstance(ps, list) or len(ps) != _N_PARAMS[kind]:
            raise ValueError(f"event spec 'params' of a {kind} event must be a list of {_N_PARAMS[kind]} numbers")
        for p in ps:
            if math.isnan(_param(p)):
                raise ValueError(f"event spec 'params' must hold numbers written by repr (or 'inf'), got {p!r}")
    fd = d["feature"]
    if fd.get("type") == "coordinate" and not is_int_in(fd.get("j"), 0):
        raise ValueError(f"event spec coordinate 'j' must be an integer >= 0, got {fd.get('j')!r}")
    if fd.get("type") == "row_key":
        tail = fd.get("shape_tail")
        if not isinstance(tail, list) or not all(is_int_in(t, 0) for t in tail):
            raise ValueError(f"event spec row_key 'shape_tail' must be a list of integers >= 0, got {tail!r}")
    keys = d.get("set")
    dt = fd.get("dtype") if fd.get("type") == "row_key" else (keys.get("dtype") if isinstance(keys, dict) else None)
    if dt is not None:
        try:
            size = np.dtype(dt).itemsize
        except TypeError:
            raise ValueError(f"event spec dtype {dt!r} is not a numpy dtype") from None
        if size > 4096:
            raise ValueError(
                f"event spec dtype {dt!r}: {size} bytes per value, more than any release this toolkit reads"
            )
