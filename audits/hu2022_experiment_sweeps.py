"""Hu, Ni, Xiao & Wang 2022 (arXiv 2107.11136 §6): the synthetic experiments' data, excess-risk metrics and sweeps.

Used by :mod:`audits.hu2022_experiments` (the registered figure checks); spec
``../shared/specs/hu2022_heavy_tailed_dp_sco.md`` §7.1 (data), §7.2 (figures), §9 Q7/Q12/Q17 (readings).

Readings of the experimental set-up (each recorded in every result's ``details["readings"]``):

* Laws (Q17): Lognormal(0, σ) with σ the standard deviation of log x (σ = 0.6 features, 0.5 noise); N(0, v) with v
  the *variance* (N(0, 0.1) noise, N(0, 5) features); Laplace(5) = location 0, scale 5; Student t₁₀; log-logistic
  (scipy ``fisk``) c = 0.1 by its quantile (u/(1 − u))^{1/c}; log-gamma (scipy ``loggamma``) c = 0.5 as log G,
  G ~ Gamma(0.5) (the printed density is garbled); logistic(0, 0.5) noise for Fig 10 (the text; its caption says
  log-normal). Lognormal features are **not centred** (as printed): E x = e^{σ²/2}, so Σ = E xxᵀ has a rank-one part.
* w*: polytope figures "‖w*‖₁ [= 1]" read as a Gaussian vector rescaled to unit ℓ1 norm (on the sphere of the unit
  ℓ1 ball W, so w* is also the constrained minimiser of the squared loss); sparse figures
  :func:`estimators.hu2022.presets_iht.experiment_sparse_truth`. **One w* per (d, s*) cell**, drawn from the figure's
  seed and kept over replications (the paper does not say whether w* is redrawn); data, noise and the random
  initial point are fresh per replication.
* Metric ("excess population risk, approximated by the empirical risk"): for the squared loss the exact population
  excess risk (w − w*)ᵀΣ(w − w*) (Σ known; the loss of Algs. 1–3 is (⟨w, x⟩ − y)², without ½); for the logistic
  figures the excess empirical risk on a large independent evaluation sample over the evaluation sample's own
  minimiser w† (Fig 2: over the unit ℓ1 ball, by accelerated projected gradient; Figs 10–11: the regularised loss
  over vectors supported on supp(w*), by L-BFGS), so that the excess is ≥ 0 up to the evaluation noise. The
  generating w* is *not* the logistic risk minimiser (Fig 10 is a well-specified logistic model with slope 1/0.5 = 2,
  so w† ≈ 2w*), which is why L(w) − L(w*) itself is not used.
* Parameter rules: the presets' experiment rules (:func:`alg1_experiment` with s = ⌊nε⌋ as printed, Q7;
  :func:`alg2_experiment`, δ = n^{−1.1}; :func:`alg3_experiment` with c = 2; :func:`alg5_experiment` with c₂ = 1,
  reg = 1e-2). Non-private counterpart of panel (c): the same algorithm with its noise switched off (same robust or
  shrunk gradients, exact vertex choice), so the gap isolates the price of privacy.
* Nesting (a variance-reduction design, not in the paper): within a replication the n-sweep uses prefixes of one
  dataset of the largest n, and the ε- and s*-sweeps reuse its first n rows (the s*-sweep with the same X and noise
  and the cell's w*). Observations are then tested on *paired* per-replication statistics.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy import optimize, special

from estimators.hu2022.presets import alg1_experiment, alg2_experiment
from estimators.hu2022.presets_iht import alg3_experiment, alg5_experiment, experiment_sparse_truth, random_sparse_init

__all__ = ["Setting", "SETTINGS", "SIZES", "run_figure", "draw_features", "draw_noise", "REG"]

REG = 1e-2  # the presets' default weight of the "regularised" logistic loss (unspecified in the paper)
EPS_GRID = (0.125, 0.25, 0.5, 1.0)  # ε ≤ 1 for Algs. 2, 3, 5; the paper's grids are not recoverable


@dataclass(frozen=True)
class Setting:
    """One synthetic figure: algorithm, task, laws and which panels it has (spec §7.2)."""

    fig: int
    alg: str  # "alg1" | "alg2" | "alg3" | "alg5"
    task: str  # "linear" | "logistic"
    features: str
    noise: str
    panels: tuple
    d_private: int | None = None  # panel (c): the d of the private vs non-private comparison
    compare_alg1: bool = False  # Fig 5: also run Alg. 1 on the same data (Fig 5 vs Fig 1 ordering)
    title: str = ""
    scale_rule: str = "paper"  # Alg. 1's s: "paper" ⌊nε⌋ as printed, "sqrt" √(nε) (Q7's suspected intended reading)
    variant: int = 0  # 0: the paper's set-up; 1: an alternative reading (its own seed stream)

    @property
    def sparse(self) -> bool:
        return self.alg in ("alg3", "alg5")


SETTINGS = {
    "1": Setting(
        1,
        "alg1",
        "linear",
        "lognormal0.6",
        "normal0.1",
        ("eps", "n", "private"),
        400,
        title="Alg 1, linear, x ~ Lognormal(0, 0.6), noise N(0, 0.1)",
    ),
    "2": Setting(
        2,
        "alg1",
        "logistic",
        "lognormal0.6",
        "none",
        ("d", "n", "eps"),
        title="Alg 1, logistic, x ~ Lognormal(0, 0.6), no noise",
    ),
    "5": Setting(
        5,
        "alg2",
        "linear",
        "lognormal0.6",
        "normal0.1",
        ("eps", "n", "private"),
        200,
        compare_alg1=True,
        title="Alg 2, linear, x ~ Lognormal(0, 0.6), noise N(0, 0.1)",
    ),
    "6": Setting(
        6,
        "alg2",
        "linear",
        "t10",
        "normal0.1",
        ("d", "n", "private"),
        200,
        title="Alg 2, linear, x ~ t10, noise N(0, 0.1)",
    ),
    "7": Setting(
        7,
        "alg3",
        "linear",
        "normal5",
        "lognormal0.5",
        ("eps", "n", "s"),
        title="Alg 3, sparse linear, x ~ N(0, 5), noise Lognormal(0, 0.5)",
    ),
    "8": Setting(
        8,
        "alg3",
        "linear",
        "normal5",
        "fisk0.1",
        ("eps", "n", "s"),
        title="Alg 3, sparse linear, x ~ N(0, 5), noise log-logistic c = 0.1",
    ),
    "9": Setting(
        9,
        "alg3",
        "linear",
        "normal5",
        "loggamma0.5",
        ("eps", "n", "s"),
        title="Alg 3, sparse linear, x ~ N(0, 5), noise log-gamma c = 0.5",
    ),
    "10": Setting(
        10,
        "alg5",
        "logistic",
        "normal5",
        "logistic0.5",
        ("eps", "n", "s", "d"),
        title="Alg 5, regularised logistic, x ~ N(0, 5), noise logistic(0, 0.5)",
    ),
    "11": Setting(
        11,
        "alg5",
        "logistic",
        "laplace5",
        "loggamma0.5",
        ("eps", "n", "s", "d"),
        title="Alg 5, regularised logistic, x ~ Laplace(5), noise log-gamma c = 0.5",
    ),
    "1_sqrt_scale": Setting(
        1,
        "alg1",
        "linear",
        "lognormal0.6",
        "normal0.1",
        ("eps", "n", "private"),
        400,
        title="Alg 1 with s = √(nε) (Q7), linear, x ~ Lognormal(0, 0.6), noise N(0, 0.1)",
        scale_rule="sqrt",
        variant=1,
    ),
}

# sizes per algorithm family and profile ("tiny": tests only). ds: dimensions; ns: the n-sweep at ε = 1; n_eps: the
# n of the ε-sweep (and of the s*-sweep); s_star: s* of the ε- and n-sweeps; s_grid: the s*-sweep; n_eval: the
# evaluation sample of the logistic metrics. The paper: n = 10⁴ (Figs 1, 5 (a)), n = 5·10⁴, s* = 20 (Figs 7–9).
SIZES: dict[str, dict[str, dict[str, Any]]] = {
    "polytope": {
        "tiny": dict(ds=(20, 40), ns=(400, 800, 1600), n_eps=800, reps=8, n_eval=2000),
        "quick": dict(ds=(50, 200), ns=(1000, 2000, 4000, 8000), n_eps=4000, reps=20, n_eval=10000),
        "full": dict(
            ds=(100, 200, 400, 800), ns=(5000, 10000, 20000, 45000, 90000), n_eps=10000, reps=50, n_eval=100000
        ),
    },
    "sparse": {
        "tiny": dict(ds=(30, 60), ns=(800, 1600, 3200), n_eps=1600, s_star=3, s_grid=(1, 3, 6), reps=8, n_eval=2000),
        "quick": dict(
            ds=(100, 200), ns=(2000, 4000, 8000), n_eps=8000, s_star=10, s_grid=(5, 10, 20, 40), reps=20, n_eval=10000
        ),
        "full": dict(
            ds=(100, 200, 400, 800),
            ns=(6250, 12500, 25000, 50000),
            n_eps=50000,
            s_star=20,
            s_grid=(5, 10, 20, 30, 40),
            reps=50,
            n_eval=100000,
        ),
    },
    "robust": {  # Alg. 5: the robust gradient costs ~0.1 µs per record × coordinate × iteration, so smaller
        "tiny": dict(ds=(16, 32), ns=(300, 600, 1200), n_eps=600, s_star=2, s_grid=(1, 2, 4), reps=8, n_eval=2000),
        "quick": dict(
            ds=(30, 60), ns=(500, 1000, 2000), n_eps=2000, s_star=3, s_grid=(2, 4, 8, 12), reps=20, n_eval=10000
        ),
        "full": dict(
            ds=(100, 200),
            ns=(4000, 8000, 16000),
            n_eps=16000,
            s_star=10,
            s_grid=(5, 10, 20, 40),
            reps=50,
            n_eval=100000,
        ),
    },
}


def family(setting: Setting) -> str:
    return "robust" if setting.alg == "alg5" else "sparse" if setting.sparse else "polytope"


# ---------------------------------------------------------------------------------------------------------------
# laws
# ---------------------------------------------------------------------------------------------------------------
_FEATURES = ("lognormal0.6", "t10", "normal5", "laplace5")
_NOISES = ("none", "normal0.1", "lognormal0.5", "fisk0.1", "loggamma0.5", "logistic0.5")


def draw_features(kind: str, n: int, d: int, *, rng: np.random.Generator) -> np.ndarray:
    """(n, d) i.i.d. features of one of the paper's laws (module docstring, Q17)."""
    if kind == "lognormal0.6":
        return rng.lognormal(0.0, 0.6, size=(n, d))
    if kind == "t10":
        return rng.standard_t(10.0, size=(n, d))
    if kind == "normal5":
        return rng.normal(0.0, math.sqrt(5.0), size=(n, d))
    if kind == "laplace5":
        return rng.laplace(0.0, 5.0, size=(n, d))
    raise ValueError(f"kind must be one of {_FEATURES}, got {kind!r}")


def draw_noise(kind: str, n: int, *, rng: np.random.Generator) -> np.ndarray:
    """n i.i.d. noise values of one of the paper's laws (module docstring, Q17)."""
    if kind == "none":
        return np.zeros(n)
    if kind == "normal0.1":
        return rng.normal(0.0, math.sqrt(0.1), size=n)
    if kind == "lognormal0.5":
        return rng.lognormal(0.0, 0.5, size=n)
    if kind == "fisk0.1":
        u = rng.random(n)
        return (u / (1.0 - u)) ** 10.0  # quantile of fisk(c = 0.1); no mean (moments of order ≥ 0.1 infinite)
    if kind == "loggamma0.5":
        return np.log(rng.gamma(0.5, size=n))
    if kind == "logistic0.5":
        return rng.logistic(0.0, 0.5, size=n)
    raise ValueError(f"kind must be one of {_NOISES}, got {kind!r}")


def second_moment(kind: str) -> tuple[float, float]:
    """(variance v, mean m) of one feature coordinate: Σ = E xxᵀ = v·I + m²·11ᵀ."""
    if kind == "lognormal0.6":
        s2 = 0.36
        return (math.exp(s2) - 1.0) * math.exp(s2), math.exp(s2 / 2.0)
    if kind == "t10":
        return 10.0 / 8.0, 0.0
    if kind == "normal5":
        return 5.0, 0.0
    if kind == "laplace5":
        return 50.0, 0.0
    raise ValueError(f"kind must be one of {_FEATURES}, got {kind!r}")


def _responses(setting: Setting, X, w, noise):
    z = X @ w + noise
    if setting.task == "linear":
        return z
    return np.where(z >= 0.0, 1.0, -1.0)  # y = sign(sigmoid(z) − 0.5) = sign(z)


def _l1_truth(d, rng):
    w = rng.standard_normal(d)
    return w / np.abs(w).sum()


# ---------------------------------------------------------------------------------------------------------------
# reference minimisers of the logistic metrics (evaluation sample)
# ---------------------------------------------------------------------------------------------------------------
def _project_l1(v, radius=1.0):
    """Euclidean projection onto the ℓ1 ball (Duchi et al. 2008)."""
    if np.abs(v).sum() <= radius:
        return v
    u = np.sort(np.abs(v))[::-1]
    css = np.cumsum(u)
    k = np.nonzero(u * np.arange(1, u.size + 1) > css - radius)[0][-1]
    theta = (css[k] - radius) / (k + 1.0)
    return np.sign(v) * np.maximum(np.abs(v) - theta, 0.0)


def _logistic_risk(W, X, y, reg=0.0):
    """Mean logistic loss (+ reg/2 ‖w‖²) for each row of W (R, d) on (X, y): shape (R,)."""
    W = np.atleast_2d(W)
    z = (W @ X.T) * y[None, :]
    return np.mean(np.logaddexp(0.0, -z), axis=1) + 0.5 * reg * np.sum(W * W, axis=1)


def _l1_ball_minimiser(X, y, iters=300):
    """argmin over the unit ℓ1 ball of the mean logistic loss, by FISTA with step 1/L, L = λ_max(XᵀX)/(4n)."""
    n = X.shape[0]
    L = float(np.linalg.eigvalsh(X.T @ X / n)[-1]) / 4.0
    w = np.zeros(X.shape[1])
    v, t = w.copy(), 1.0
    for _ in range(iters):
        g = -(X.T @ (y * special.expit(-y * (X @ v)))) / n
        w_new = _project_l1(v - g / L)
        t_new = (1.0 + math.sqrt(1.0 + 4.0 * t * t)) / 2.0
        v = w_new + ((t - 1.0) / t_new) * (w_new - w)
        w, t = w_new, t_new
    return w


def _support_minimiser(X, y, support, reg):
    """argmin of the regularised mean logistic loss over vectors supported on ``support`` (L-BFGS)."""
    Xs = X[:, support]

    def f(b):
        z = y * (Xs @ b)
        val = np.mean(np.logaddexp(0.0, -z)) + 0.5 * reg * b @ b
        grad = -(Xs.T @ (y * special.expit(-z))) / Xs.shape[0] + reg * b
        return val, grad

    res = optimize.minimize(f, np.zeros(len(support)), jac=True, method="L-BFGS-B", options={"gtol": 1e-10})
    w = np.zeros(X.shape[1])
    w[support] = res.x
    return w


@dataclass
class Cell:
    """w* of one (d, s*) cell and its metric: ``excess(W)`` for releases W (R, d)."""

    truth: np.ndarray
    sigma: tuple = (0.0, 0.0)  # (v, m) of the linear metric
    eval_X: np.ndarray | None = None
    eval_y: np.ndarray | None = None
    reg: float = 0.0
    ref_risk: float = 0.0
    ref: np.ndarray | None = field(default=None, repr=False)

    def excess(self, W) -> np.ndarray:
        W = np.atleast_2d(W)
        if self.eval_X is None:
            D = W - self.truth[None, :]
            v, m = self.sigma
            return v * np.sum(D * D, axis=1) + m * m * np.sum(D, axis=1) ** 2
        return _logistic_risk(W, self.eval_X, self.eval_y, self.reg) - self.ref_risk


def make_cell(setting: Setting, d: int, s_star: int | None, n_eval: int, rng) -> Cell:
    """w* for (d, s*) and, for the logistic figures, the evaluation sample and its minimiser w†."""
    truth = experiment_sparse_truth(d, int(s_star or 0), rng=rng) if setting.sparse else _l1_truth(d, rng)
    if setting.task == "linear":
        return Cell(truth, second_moment(setting.features))
    X = draw_features(setting.features, n_eval, d, rng=rng)
    y = _responses(setting, X, truth, draw_noise(setting.noise, n_eval, rng=rng))
    if setting.sparse:
        ref = _support_minimiser(X, y, np.flatnonzero(truth), REG)
        reg = REG
    else:
        ref, reg = _l1_ball_minimiser(X, y), 0.0
    return Cell(truth, eval_X=X, eval_y=y, reg=reg, ref_risk=float(_logistic_risk(ref, X, y, reg)[0]), ref=ref)


# ---------------------------------------------------------------------------------------------------------------
# estimators
# ---------------------------------------------------------------------------------------------------------------
def estimator(setting: Setting, n: int, d: int, eps: float, *, s_star=None, private=True, alg=None, w1=None):
    """The experiment preset of the figure's algorithm at (n, d, ε) (module docstring)."""
    alg = alg or setting.alg
    kw: dict[str, Any] = {}
    if alg == "alg1":
        return alg1_experiment(
            n,
            d,
            eps,
            loss="squared" if setting.task == "linear" else "logistic",
            w0="random",
            scale_rule=setting.scale_rule,
            noise=private,
            **kw,
        )
    if alg == "alg2":
        return alg2_experiment(n, d, eps, noise=private, **kw)
    if alg == "alg3":
        return alg3_experiment(n, s_star=s_star, epsilon=eps, c=2, d=d, w1=w1, private=private, **kw)
    if alg == "alg5":
        return alg5_experiment(n, s_star=s_star, epsilon=eps, d=d, w1=w1, private=private, reg=REG, **kw)
    raise ValueError(f"alg must be 'alg1', 'alg2', 'alg3' or 'alg5', got {alg!r}")


def _release(setting, data, n, d, eps, cell, rng, *, s_star=None, private=True, alg=None, inflate=0.0, n_ref=1000):
    """Excess risk of one release on the first n rows. ``inflate`` > 0 is the deliberately broken estimator of the
    tests: the release's first coordinate is shifted by ``inflate``·log₂(n/n_ref), a bias that grows with n."""
    w1 = random_sparse_init(d, s_star, rng=rng) if (alg or setting.alg) in ("alg3", "alg5") else None
    est = estimator(setting, n, d, eps, s_star=s_star, private=private, alg=alg, w1=w1)
    w = np.array(est(data[:n], rng=rng), dtype=float)
    if inflate:
        w[0] += inflate * math.log2(n / n_ref)
    return float(cell.excess(w)[0])


# ---------------------------------------------------------------------------------------------------------------
# the sweep of one figure
# ---------------------------------------------------------------------------------------------------------------
@functools.lru_cache(maxsize=8)
def run_figure(fig: str, profile: str, seed: int, inflate: float = 0.0) -> dict:
    """All panels of figure ``fig`` (a key of :data:`SETTINGS`) at ``profile`` sizes, reproducible from ``seed``.

    Returns arrays indexed [replication, d, grid point]: ``"eps"`` (at n_eps, ε over :data:`EPS_GRID`), ``"n"`` (ε =
    1 over ``ns``), ``"s"`` (sparse: at n_eps, ε = 1, over ``s_grid``); ``"nonprivate"`` [rep, n] at ``d_private``;
    ``"alg1"`` [rep, d, n] (Fig 5: Alg. 1 on the same data); and the design (sizes, grids, seconds)."""
    import time

    from threadpoolctl import threadpool_limits

    t0 = time.perf_counter()
    setting = SETTINGS[fig]
    sz = dict(SIZES[family(setting)][profile])
    ds, ns, n_eps, R = sz["ds"], sz["ns"], sz["n_eps"], sz["reps"]
    # panel (c) at the paper's d in the full profile; at the largest d of the grid otherwise (cost)
    d_priv = None if setting.d_private is None else setting.d_private if profile == "full" else max(ds)
    if d_priv is not None and d_priv not in ds:
        ds = tuple(sorted(set(ds) | {d_priv}))
    s_star = sz.get("s_star")
    s_grid = sz.get("s_grid", ())
    n_max = max(max(ns), n_eps)
    ss = np.random.SeedSequence([int(seed), setting.fig] + ([setting.variant] if setting.variant else []))
    cell_ss, rep_ss = ss.spawn(2)
    cell_rng = np.random.default_rng(cell_ss)
    cells = {(d, s_star): make_cell(setting, d, s_star, sz["n_eval"], cell_rng) for d in ds}
    for d in ds:
        for s in s_grid:
            if s != s_star:
                cells[(d, s)] = make_cell(setting, d, s, sz["n_eval"], cell_rng)
    out: dict[str, Any] = {"eps": np.empty((R, len(ds), len(EPS_GRID))), "n": np.empty((R, len(ds), len(ns)))}
    if "s" in setting.panels:
        out["s"] = np.empty((R, len(ds), len(s_grid)))
    if "private" in setting.panels:
        out["nonprivate"] = np.empty((R, len(ns)))
    if setting.compare_alg1:
        out["alg1"] = np.empty((R, len(ds), len(ns)))
    n_ref = min(ns)
    with threadpool_limits(1):
        for r, child in enumerate(rep_ss.spawn(R)):
            g = np.random.default_rng(child)
            for di, d in enumerate(ds):
                X = draw_features(setting.features, n_max, d, rng=g)
                noise = draw_noise(setting.noise, n_max, rng=g)
                cell = cells[(d, s_star)]
                data = np.column_stack([X, _responses(setting, X, cell.truth, noise)])
                kw = dict(s_star=s_star, inflate=inflate, n_ref=n_ref)
                for ni, n in enumerate(ns):
                    out["n"][r, di, ni] = _release(setting, data, n, d, 1.0, cell, g, **kw)
                    if d == d_priv and "nonprivate" in out:
                        out["nonprivate"][r, ni] = _release(setting, data, n, d, 1.0, cell, g, private=False, **kw)
                    if "alg1" in out:
                        out["alg1"][r, di, ni] = _release(setting, data, n, d, 1.0, cell, g, alg="alg1", **kw)
                for ei, eps in enumerate(EPS_GRID):
                    out["eps"][r, di, ei] = _release(setting, data, n_eps, d, eps, cell, g, **kw)
                for si, s in enumerate(s_grid):
                    c = cells[(d, s)]
                    ds_ = np.column_stack([X[:n_eps], _responses(setting, X[:n_eps], c.truth, noise[:n_eps])])
                    out["s"][r, di, si] = _release(setting, ds_, n_eps, d, 1.0, c, g, **{**kw, "s_star": s})
    out["zero"] = np.array([float(cells[(d, s_star)].excess(np.zeros(d))[0]) for d in ds])
    out["design"] = {
        "profile": profile,
        "seed": int(seed),
        "reps": R,
        "ds": list(ds),
        "ns": list(ns),
        "n_eps": n_eps,
        "eps_grid": list(EPS_GRID),
        "s_star": s_star,
        "s_grid": list(s_grid),
        "d_private": d_priv,
        "n_eval": sz["n_eval"] if setting.task == "logistic" else None,
        "inflate": inflate,
        "seconds": time.perf_counter() - t0,
    }
    return out
