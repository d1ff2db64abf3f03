"""The configuration space of the diffprivlib 0.6.6 search: the points drawn from the table of
:mod:`.space_table` (every mechanism, tool and model with the arguments it is called with and the dataset shapes
that reach its edge paths; Holohan et al. 2019, arXiv:1907.02444), and what is built from one.  The table's names
(``Space``, ``SPACE``, ``FAMILIES``, ``LEFT_OUT_COMPONENTS``, ``signature_gaps``) are re-exported here.

Dataset shapes (``shape``): ``spread`` (rows on a grid over the box), ``ties`` (every row at the box centre),
``at_bounds`` (rows alternate between the lower and the upper corner), ``all_lower`` (every row at the lower
corner: one occupied cluster, the others empty), and for classifiers ``absent_class`` (the last class never
occurs), ``one_row_class`` (the second class occurs once).  ``n`` includes tiny sizes (1, 2, 3).

A :class:`Config` is one point of the space (component, ε, arguments, dataset); :func:`build_adapter` turns it
into the project's diffprivlib adapter (``estimators/dpl``), :func:`base_dataset` into its dataset and
:func:`config_pairs` into its candidate neighbouring pairs (:func:`~.pairs.box_pairs` inside the declared box,
query-level pairs for mechanisms).  :func:`sample_configs` draws configurations with a seeded ``Generator``;
:func:`config_strategy` is the same space as a hypothesis strategy.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from estimators.dpl import DPLMechanism, DPLModel, DPLTool
from htdp_verify.privacy import Pair

from .pairs import box_pairs
from .space_table import FAMILIES, LEFT_OUT_COMPONENTS, SPACE, Space, signature_gaps

__all__ = [
    "Space",
    "Config",
    "SPACE",
    "FAMILIES",
    "LEFT_OUT_COMPONENTS",
    "signature_gaps",
    "build_adapter",
    "base_dataset",
    "config_pairs",
    "sample_configs",
    "make_config",
    "config_strategy",
    "WeightedHistogram",
]


# ---------------------------------------------------------------------------------------------------------
# configurations
# ---------------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Config:
    """One point of the space: component ``key``, claimed ``epsilon``, ``args`` and ``data`` as sorted tuples."""

    key: str
    epsilon: float
    args: tuple
    data: tuple

    @property
    def kw(self) -> dict:
        return dict(self.args)

    @property
    def dat(self) -> dict:
        return dict(self.data)

    def label(self) -> str:
        a = ", ".join(f"{k}={_short(v)}" for k, v in self.args)
        d = ", ".join(f"{k}={v}" for k, v in self.data)
        return f"{self.key}(ε={self.epsilon:g}{', ' if a else ''}{a}) on [{d}]"

    def to_dict(self) -> dict:
        return {
            "key": self.key,
            "epsilon": self.epsilon,
            "args": {k: _jsonable(v) for k, v in self.args},
            "data": dict(self.data),
            "label": self.label(),
        }

    def replace(self, **changes) -> Config:
        """A copy with some arguments / data parameters changed (``epsilon`` too)."""
        eps = changes.pop("epsilon", self.epsilon)
        a, d = dict(self.args), dict(self.data)
        for k, v in changes.items():
            (d if k in d else a)[k] = v
        return Config(self.key, eps, tuple(sorted(a.items())), tuple(sorted(d.items())))


def _short(v):
    return v.__name__ if isinstance(v, type) else v


def _jsonable(v):
    if isinstance(v, type):
        return v.__name__
    if isinstance(v, tuple):
        return list(v)
    return v


def make_config(key: str, epsilon: float, args: dict, data: dict) -> Config:
    if key not in SPACE:
        raise ValueError(f"key must be one of {sorted(SPACE)}, got {key!r}")
    return Config(key, float(epsilon), tuple(sorted(args.items())), tuple(sorted(data.items())))


def _valid(key: str, args: dict, data: dict) -> bool:
    """Combinations diffprivlib or the adapters reject outright (not interesting to screen)."""
    n, d, shape = data.get("n", 1), data.get("d", 1), data.get("shape", "")
    if key.startswith("tools.") and args.get("axis") == 0 and d == 1:
        return False  # axis=0 needs 2-d data: d = 1 uses a 1-d array instead
    if (
        key.startswith("tools.")
        and args.get("keepdims")
        and args.get("axis") is None
        and d == 1
        and key.split(".")[1] in ("quantile", "percentile", "median")
    ):
        return True
    if key == "tools.sum" or key == "tools.nansum":
        if args.get("dtype") is int and not all(float(b).is_integer() for b in args["bounds"]):
            return False
    if key.startswith("models.") and "classes" in args:
        k = args["classes"]
        if shape == "absent_class" and k < 2:
            return False
        if key == "models.LogisticRegression" and n < 2 * k:
            return False
    if key == "models.StandardScaler" and not (args.get("with_mean", True) or args.get("with_std", True)):
        return False  # diffprivlib computes no statistic: nothing is released (the adapter refuses it)
    if key == "models.PCA" and args.get("n_components", 1) > d:
        return False
    if key == "models.KMeans" and n < args["n_clusters"]:
        return False  # scikit-learn: n_samples must be >= n_clusters
    return True


def sample_configs(keys, rng: np.random.Generator, n: int) -> list[Config]:
    """``n`` distinct configurations drawn uniformly over the table of the components ``keys`` (rounds over the
    components in a random order, then every argument and data parameter uniform over its values); invalid
    combinations are redrawn.  Deterministic given ``rng``."""
    keys = list(keys)
    for k in keys:
        if k not in SPACE:
            raise ValueError(f"keys: unknown component {k!r}")
    out, seen, tries = [], set(), 0
    order: list = []
    while len(out) < n and tries < 50 * n:
        if not order:  # a fresh random order of the components each round
            order = [keys[i] for i in rng.permutation(len(keys))]
        key = order[0] if tries < 20 * n else keys[int(rng.integers(len(keys)))]
        tries += 1
        sp = SPACE[key]
        pick = lambda vals: vals[int(rng.integers(len(vals)))]  # noqa: E731
        args = {a: pick(v) for a, v in sp.args.items()}
        data = {a: pick(v) for a, v in sp.data.items()}
        eps = float(pick(sp.epsilons))
        if not _valid(key, args, data):
            continue
        c = make_config(key, eps, args, data)
        if c not in seen:
            seen.add(c)
            out.append(c)
            order.pop(0)
    return out


def config_strategy(keys):
    """The same space as a hypothesis strategy of :class:`Config` (for property tests)."""
    from hypothesis import strategies as st

    def one(key):
        sp = SPACE[key]
        return st.builds(
            lambda e, a, d: make_config(key, e, a, d),
            st.sampled_from(sp.epsilons),
            st.fixed_dictionaries({a: st.sampled_from(v) for a, v in sp.args.items()}),
            st.fixed_dictionaries({a: st.sampled_from(v) for a, v in sp.data.items()}),
        ).filter(lambda c: _valid(c.key, c.kw, c.dat))

    return st.one_of([one(k) for k in keys])


# ---------------------------------------------------------------------------------------------------------
# from a configuration to an adapter, a dataset and pairs
# ---------------------------------------------------------------------------------------------------------
class WeightedHistogram(DPLTool):
    """``tools.histogram`` / ``histogramdd`` with per-record weights: the data's last column is the record's weight
    (in ``[0, max_weight]``), the other columns its value(s); the release is the noisy counts."""

    def __init__(self, tool, *, epsilon, max_weight: float, n_jobs: int = 1, **kwargs):
        super().__init__(tool, epsilon=epsilon, n_jobs=n_jobs, **kwargs)
        self.max_weight = float(max_weight)
        self.name = f"tools.{tool}[weights<= {self.max_weight:g}]"

    def _validate(self, data):
        arr = np.asarray(data, dtype=float)
        if arr.ndim != 2 or arr.shape[1] < 2 or not np.all(np.isfinite(arr)):
            raise ValueError("data must be a finite (n, d + 1) array: value column(s), then the weight")
        if np.any(arr[:, -1] < 0) or np.any(arr[:, -1] > self.max_weight):
            raise ValueError(f"data: weights must lie in [0, {self.max_weight:g}]")
        return arr

    def _release(self, data, rs, func):
        from diffprivlib.accountant import BudgetAccountant

        vals, w = data[:, :-1], data[:, -1]
        vals = vals[:, 0] if self.tool == "histogram" else vals
        out = func(vals, epsilon=self.epsilon, random_state=rs, accountant=BudgetAccountant(), weights=w, **self.kwargs)
        return np.asarray(out[0], dtype=float).ravel()


def _box(c: Config):
    kw = c.kw
    for k in ("bounds", "bounds_X", "range", "lower_upper"):
        if k in kw:
            return tuple(float(v) for v in kw[k])
    if c.key == "models.LogisticRegression":
        r = float(kw["data_norm"]) / np.sqrt(c.dat["d"])
        return (-r, r)
    return (0.0, 1.0)


def _classes(c: Config):
    k = c.kw.get("classes")
    return None if k is None else [float(i) for i in range(int(k))]


def build_adapter(c: Config, *, n_jobs: int = 1):
    """The project's adapter for configuration ``c`` (``estimators/dpl``)."""
    fam, name = c.key.split(".")
    kw = dict(c.kw)
    if fam == "mechanisms":
        if "lower_upper" in kw:
            kw["lower"], kw["upper"] = kw.pop("lower_upper")
        kw.pop("k", None)
        delta = kw.pop("delta", 0.0)
        return DPLMechanism(name, epsilon=c.epsilon, delta=delta, n_jobs=n_jobs, **kw)
    if fam == "tools":
        kw = {k: v for k, v in kw.items() if v is not None or k == "axis"}
        if kw.get("axis", "x") is None:
            kw.pop("axis")
        if name in ("histogram", "histogramdd"):
            rng_ = kw.pop("range")
            d = c.dat["d"]
            kw["range"] = rng_ if name == "histogram" else [rng_] * d
            w = kw.pop("weights", None)
            if w is not None:
                return WeightedHistogram(name, epsilon=c.epsilon, max_weight=w, n_jobs=n_jobs, **kw)
            return DPLTool(name, epsilon=c.epsilon, n_jobs=n_jobs, **kw)
        if name == "count_nonzero":
            return DPLTool(name, epsilon=c.epsilon, n_jobs=n_jobs, **kw)
        bounds = kw.pop("bounds")
        if "quant" in kw and isinstance(kw["quant"], tuple):
            kw["quant"] = list(kw["quant"])
        if "percent" in kw and isinstance(kw["percent"], tuple):
            kw["percent"] = list(kw["percent"])
        return DPLTool(name, epsilon=c.epsilon, bounds=bounds, n_jobs=n_jobs, **kw)
    # models
    if "classes" in kw:
        kw["classes"] = _classes(c)
    if kw.get("priors") == "uniform":
        k = len(kw["classes"])
        kw["priors"] = np.full(k, 1.0 / k)
    elif "priors" in kw and kw["priors"] is None:
        kw.pop("priors")
    return DPLModel(name, epsilon=c.epsilon, n_jobs=n_jobs, **kw)


def _feature_rows(shape, n, d, lo, hi):
    g = np.linspace(0.0, 1.0, n) if n > 1 else np.array([0.5])
    cols = [np.roll(g, (j * max(1, n // 3)) % max(n, 1)) for j in range(d)]
    unit = {
        "spread": np.column_stack(cols) if cols else np.zeros((n, 0)),
        "ties": np.full((n, d), 0.5),
        "at_bounds": np.tile((np.arange(n) % 2)[:, None], (1, d)).astype(float),
        "all_lower": np.zeros((n, d)),
    }.get(shape)
    if unit is None:  # classifier shapes use spread features
        unit = np.column_stack(cols)
    return lo + (hi - lo) * unit


def base_dataset(c: Config):
    """The configuration's base dataset (deterministic): ``(n,)`` or ``(n, d)`` features, plus a label / target /
    weight column where the component takes one; for mechanisms the scalar (or utility vector) input."""
    fam, name = c.key.split(".")
    dat = c.dat
    if fam == "mechanisms":
        return None
    n, d, shape = dat["n"], dat.get("d", 1), dat["shape"]
    if name == "count_nonzero":
        bits = {"bits_spread": (np.arange(n) % 2).astype(float), "all_zero": np.zeros(n), "all_one": np.ones(n)}[shape]
        if d == 1 or c.kw.get("axis") is None:  # axis=None: every entry is one record of a flat dataset
            return bits if d == 1 else np.tile(bits[:, None], (1, d)).ravel()
        return np.tile(bits[:, None], (1, d))
    lo, hi = _box(c)
    X = _feature_rows(shape, n, d, lo, hi)
    if fam == "tools":
        if name in ("histogram", "histogramdd") and c.kw.get("weights") is not None:
            return np.column_stack([X[:, :1] if name == "histogram" else X, np.full(n, float(c.kw["weights"]))])
        if name == "histogramdd":
            return X
        use_2d = c.kw.get("axis") == 0
        return X if use_2d else X.ravel() if d == 1 else X.ravel()
    if name == "LinearRegression":
        ly, uy = c.kw["bounds_y"]
        y = ly + (uy - ly) * ((X[:, 0] - lo) / (hi - lo) if hi > lo else 0.0)
        if shape == "ties":
            y = np.full(n, 0.5 * (ly + uy))
        return np.column_stack([X, y])
    if "classes" in c.kw:
        k = int(c.kw["classes"])
        lab = np.arange(n) % k
        if shape == "absent_class":
            lab = np.arange(n) % (k - 1)
        elif shape == "one_row_class":
            lab = np.zeros(n)
            lab[min(1, n - 1)] = 1
        elif shape in ("all_lower", "at_bounds") and c.key != "models.LogisticRegression":
            lab = np.zeros(n) if shape == "all_lower" else lab
        return np.column_stack([X, lab.astype(float)])
    return X


def _mech_pairs(c: Config) -> list[Pair]:
    kw, shape = c.kw, c.dat["shape"]
    s = kw.get("sensitivity", 1.0)
    if "k" in kw:
        k = int(kw["k"])
        z = [0.0] * k
        e1 = [s] + [0.0] * (k - 1)
        out = [Pair(z, e1, "u = 0 vs u = s·e1", "query")]
        if not kw.get("monotonic"):
            out.append(Pair([0.0] + [s] * (k - 1), e1, "u = (0, s, ..) vs (s, 0, ..)", "query"))
        return out
    if "lower_upper" in kw:
        lo, hi = kw["lower_upper"]
        step = min(s, hi - lo)
        if isinstance(lo, int):
            step = int(step)
        if shape == "at_upper":
            return [
                Pair(hi - step, hi, "x = upper - s vs upper", "query"),
                Pair(hi, hi - step, "x = upper vs upper - s", "query"),
            ]
        if shape == "at_lower":
            return [
                Pair(lo, lo + step, "x = lower vs lower + s", "query"),
                Pair(lo + step, lo, "x = lower + s vs lower", "query"),
            ]
        mid = (lo + hi) / 2 if not isinstance(lo, int) else (lo + hi) // 2
        a = max(lo, mid - step / 2) if not isinstance(lo, int) else mid
        b = min(hi, a + step)
        return [Pair(a, b, "x = centre - s/2 vs centre + s/2", "query")]
    if c.key == "mechanisms.Binary":
        return [Pair(0, 1, "bit 0 vs bit 1", "query")]
    x0 = {"centre": 0, "at_lower": -10, "at_upper": 10}[shape]
    s = int(s) if isinstance(s, int) else float(s)
    return [Pair(x0, x0 + s, f"x = {x0} vs {x0} + s", "query")]


def config_pairs(c: Config, *, max_corners: int = 4) -> list[Pair]:
    """Candidate neighbouring pairs of ``c`` under its adapter's relation (the replaced / added row at the box's
    corners, with every label for classifiers; for weighted histograms at weight 0 and the maximal weight)."""
    fam, name = c.key.split(".")
    if fam == "mechanisms":
        return _mech_pairs(c)
    D = base_dataset(c)
    adapter = build_adapter(c)
    relation = adapter.privacy.neighbours
    lo, hi = _box(c)
    if name == "count_nonzero":
        lo, hi = 0.0, 1.0
    if isinstance(adapter, WeightedHistogram):
        d = D.shape[1] - 1
        los = np.r_[np.full(d, lo), 0.0]
        his = np.r_[np.full(d, hi), adapter.max_weight]
        pairs = box_pairs({"base": D}, los, his, relation, max_corners=2 ** (d + 1))
        # heaviest change of the total weight first (a weight-0 record changes nothing)
        return sorted(
            pairs, key=lambda p: -abs(float(np.sum(np.asarray(p.d_prime)[:, -1]) - np.sum(np.asarray(p.d)[:, -1])))
        )
    if fam == "models" and name == "LinearRegression":
        ly, uy = c.kw["bounds_y"]
        d = D.shape[1] - 1
        return box_pairs(
            {"base": D}, np.r_[np.full(d, lo), ly], np.r_[np.full(d, hi), uy], relation, max_corners=max_corners
        )
    labels = _classes(c)
    return box_pairs({"base": D}, lo, hi, relation, labels=labels, max_corners=max_corners)
