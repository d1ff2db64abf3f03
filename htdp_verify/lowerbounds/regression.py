"""Hard instances beyond the mean: s-sparse linear regression by a reference-coupling private Fano packing
(:func:`sparse_regression_packing`; Cai, Wang & Zhang 2021) and heavy-tailed DP stochastic convex optimisation by
the linear-loss reduction to the mean packing (:func:`sco_linear_packing`; Kamath, Liu & Zhang 2022, Lowy &
Razaviyayn 2023).
"""

from __future__ import annotations

import math

import numpy as np
from scipy import stats as sst

from .._validate import check_int, check_positive, check_rng
from ..claims import Provenance
from .coupling import private_fano_reference_error
from .instance import HardInstance, MomentAssumption
from .mean import mean_packing_spike

__all__ = ["sparse_regression_packing", "sco_linear_packing"]


# ------------------------------------------------------------------------------------------------------------
# sparse linear regression and DP-SCO
# ------------------------------------------------------------------------------------------------------------
def _sparse_code(d: int, s: int, M: int, rng) -> np.ndarray:
    code = np.zeros((M, d))
    for i in range(M):
        S = rng.choice(d, s, replace=False)
        code[i, S] = rng.choice([-1.0, 1.0], size=s)
    return code


def _maximal_coupling_prob(shift_norm: float, sigma: float) -> float:
    """E_x[TV(N(x'β, σ²), N(x'β', σ²))] for x ~ N(0, I) with ‖β-β'‖ = ``shift_norm``.

    TV = 2Φ(|Z|a) - 1 with Z = x'(β-β')/‖β-β'‖ ~ N(0,1) and a = ‖β-β'‖/(2σ); E[2Φ(a|Z|) - 1] = P(|Z'| ≤ a|Z|) for an
    independent Z', and Z'/Z is standard Cauchy, so the expectation is exactly (2/π)·arctan(a).
    """
    return float(2 / math.pi * math.atan(shift_norm / (2 * sigma)))


def sparse_regression_packing(
    d: int,
    s: int,
    n: int,
    epsilon: float,
    *,
    sigma: float = 1.0,
    delta: float = 0.0,
    gamma: float | None = None,
    code_size: int = 256,
    rng: np.random.Generator,
) -> HardInstance:
    """s-sparse linear regression y = x'β + σξ, x ~ N(0, I_d), members β_v ∈ {0, ±γ}^d (random s-sparse code).

    Reference law P_0: β = 0.  Coupling of member v with P_0: share x_i and maximally couple y_i, so the records
    differ with probability q_v = E_x TV(N(x'β_v, σ²), N(0, σ²)) independently: H_v ~ Bin(n, q_v).  The bound is the
    larger of non-private Fano (KL(P_v^n‖P_0^n) = nγ²s/(2σ²)) and the private reference-Fano bound
    (:func:`private_fano_reference_error`); it reproduces σ²(s log d/n + (s log d)²/(nε)²) up to constants
    (Cai, Wang & Zhang 2021).  Risk: squared ℓ2.  ``gamma=None`` maximises the bound.

    Parameters
    ----------
    d : int
        Number of covariates (≥ 2).
    s : int
        Sparsity of the members' coefficient vectors (1 ≤ s ≤ d).
    n : int
        Sample size.
    epsilon : float
        Privacy level ε.
    sigma : float, default 1.0
        Standard deviation σ of the Gaussian noise.
    delta : float, default 0.0
        Privacy level δ.
    gamma : float, optional
        Magnitude γ of the non-zero coefficients; ``None``: the value on a grid that maximises the bound.
    code_size : int, default 256
        Number of s-sparse sign patterns drawn for the code (duplicates are dropped).
    rng : numpy.random.Generator
        The generator of the code.

    Returns
    -------
    HardInstance
        The instance; a record is the row ``(x, y)`` of length d + 1.
    """
    d = check_int("d", d, minimum=2)
    s = check_int("s", s, minimum=1)
    if s > d:
        raise ValueError(f"s must be <= d={d}, got {s}")
    n = check_int("n", n, minimum=1)
    epsilon = check_positive("epsilon", epsilon)
    sigma = check_positive("sigma", sigma)
    check_rng(rng)
    code = np.unique(_sparse_code(d, s, code_size, rng), axis=0)
    dist = np.sqrt(((code[:, None] - code[None]) ** 2).sum(-1))
    np.fill_diagonal(dist, np.inf)
    dmin = float(dist.min())
    Mc = len(code)

    def prob(g: float) -> float:
        q = _maximal_coupling_prob(g * math.sqrt(s), sigma)
        priv, _ = private_fano_reference_error(n, q, epsilon, Mc, delta)
        stat = max(1 - (n * g**2 * s / (2 * sigma**2) + math.log(2)) / math.log(Mc), 0.0)
        return max(priv, stat)

    if gamma is None:
        grid = np.geomspace(1e-4, 10.0, 120) * sigma
        vals = [(g * dmin / 2) ** 2 * prob(g) for g in grid]
        gamma = float(grid[int(np.argmax(vals))])
    gamma = check_positive("gamma", gamma)
    q = _maximal_coupling_prob(gamma * math.sqrt(s), sigma)
    thetas = gamma * code

    def sampler(v, size, rng):
        x = rng.standard_normal((size, n, d))
        y = x @ thetas[v] + sigma * rng.standard_normal((size, n))
        return np.concatenate([x, y[..., None]], axis=-1)

    def coupling(reps, rng):  # simulate the actual coupling: shared x, maximal coupling of y
        x = rng.standard_normal((reps, n, d))
        m = x @ thetas[0]
        tv = 2 * sst.norm.cdf(np.abs(m) / (2 * sigma)) - 1
        return (rng.random((reps, n)) < tv).sum(1)

    return HardInstance(
        name=f"sparse_regression_packing(d={d}, s={s}, n={n}, eps={epsilon:g})",
        assumption=MomentAssumption("1d", 2, sigma**2, True),
        n=n,
        epsilon=epsilon,
        delta=delta,
        thetas=thetas,
        sampler=sampler,
        radius=gamma * dmin / 2,
        method="private_fano_reference",
        risk="sq",
        coupling_q=q,
        coupling_sampler=coupling,
        fano_q={"q": [q], "kl_n": n * gamma**2 * s / (2 * sigma**2)},
        moment_stat=lambda data, v: data[..., -1] - data[..., :-1] @ thetas[v],
        provenance=Provenance(
            "Cai, Wang & Zhang 2021 (AoS)",
            "Thm. (cost of privacy), sparse regression",
            "",
            "reference-coupling DP Fano derived here; noise moment: Var(σξ)=σ²",
        ),
        notes=f"{Mc} s-sparse members, min distance {dmin:.3g}, gamma={gamma:.3g}, q={q:.3g}",
    )


def sco_linear_packing(
    k: float,
    d: int,
    n: int,
    epsilon: float,
    *,
    R: float = 1.0,
    M_moment: float = 1.0,
    delta: float = 0.0,
    rng: np.random.Generator,
) -> HardInstance:
    """Heavy-tailed DP-SCO via the linear-loss reduction: f(w, x) = -<w, x> on the ℓ2 ball of radius R, with x from
    the packing-of-spikes mean instance (gradient -x has central directional k-th moment ≤ M).

    Population risk F_v(w) = -<w, μ_v>, ‖μ_v‖ = p·s for every member, so the excess risk of ŵ is
    R p s (1 - <ŵ/R, u_v>).  If the excess is < R p s d_min²/8 then ‖ŵ/R - u_v‖ < d_min/2 and ŵ identifies v; so
    avg_v P_v(excess ≥ R p s d_min²/8) is bounded below by the private multi-point bound of the mean instance.
    The estimator under test returns ŵ (it is projected on the ball before the loss is evaluated).

    Parameters
    ----------
    k : float
        Moment order (≥ 2) of the directional moment assumption on the gradients.
    d : int
        Dimension.
    n : int
        Sample size.
    epsilon : float
        Privacy level ε.
    R : float, default 1.0
        Radius of the ℓ2 ball of parameters.
    M_moment : float, default 1.0
        Bound on the central directional k-th moment of the gradients.
    delta : float, default 0.0
        Privacy level δ.
    rng : numpy.random.Generator
        The generator of the sign code of the underlying mean instance (:func:`mean_packing_spike`).

    Returns
    -------
    HardInstance
        The instance, with the excess population risk as its loss.
    """
    base = mean_packing_spike(k, d, n, epsilon, M_moment=M_moment, delta=delta, rng=rng)
    R = check_positive("R", R)
    mu = base.thetas
    norm = float(np.linalg.norm(mu[0]))
    U = mu / norm
    dmin = 2 * base.radius / norm
    thr = R * norm * dmin**2 / 8

    def excess(w, v):
        w = np.asarray(w, dtype=float).reshape(len(w), -1)
        nrm = np.linalg.norm(w, axis=1, keepdims=True)
        w = np.where(nrm > R, w * (R / np.maximum(nrm, 1e-300)), w)
        return R * norm - w @ mu[v]

    return HardInstance(
        name=f"sco_linear_packing(k={k:g}, d={d}, n={n}, eps={epsilon:g})",
        assumption=base.assumption,
        n=n,
        epsilon=epsilon,
        delta=delta,
        thetas=R * U,
        sampler=base.sampler,
        radius=thr,
        method="private_multipoint",
        risk="excess",
        coupling_q=base.coupling_q,
        coupling_sampler=base.coupling_sampler,
        loss=excess,
        moment_stat=lambda sets, v: (sets.reshape(-1, mu.shape[1]) - mu[v]) @ U[v],  # rank one: worst direction
        provenance=Provenance(
            "Kamath, Liu & Zhang 2022 (ICML); Lowy & Razaviyayn 2023",
            "linear-loss reduction",
            "",
            "reduction and constants derived here",
        ),
        notes=base.notes + f"; excess threshold {thr:.3g}",
    )
