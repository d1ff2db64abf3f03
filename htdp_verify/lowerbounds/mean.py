"""Hard instances for heavy-tailed mean estimation: the 1-d private two-point spike (:func:`mean_1d_spike`), the
statistical Gaussian two-point term (:func:`mean_1d_gaussian`, combined in :func:`mean_1d_lower_bound`), the
d-dimensional packing of spikes for pure DP (:func:`mean_packing_spike`) and the coordinate-spike Assouad family
for approximate DP (:func:`mean_coordinate_spike`). References: Barber & Duchi 2014; Kamath, Singhal & Ullman 2020;
Kamath, Mouzakis & Singhal 2022.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import optimize, special
from scipy import stats as sst

from .._validate import check_int, check_positive, check_prob, check_rng
from ..claims import Provenance
from .coupling import private_multipoint_error, private_two_point_error
from .instance import PROV_ASZ, PROV_KSU, HardInstance, MomentAssumption

__all__ = ["mean_1d_spike", "mean_1d_gaussian", "mean_1d_lower_bound", "mean_packing_spike", "mean_coordinate_spike"]


# ------------------------------------------------------------------------------------------------------------
# 1-d heavy-tailed mean estimation
# ------------------------------------------------------------------------------------------------------------
def _spike_scale(k: float, M: float, p: float) -> float:
    """Atom s with p·s^k = M; then the *central* k-th absolute moment of (1-p)δ_0 + pδ_s is ≤ M for k ≥ 2:
    (1-p)(ps)^k + p((1-p)s)^k = p s^k (1-p)(p^{k-1} + (1-p)^{k-1}) ≤ p s^k."""
    return (M / p) ** (1.0 / k)


def mean_1d_spike(
    k: float, n: int, epsilon: float, *, M: float = 1.0, delta: float = 0.0, p: float | None = None
) -> HardInstance:
    """Two-point spike instance for ε-DP (or (ε,δ)-DP) 1-d mean estimation (privacy term (1/(nε))^{1-1/k}).

    P_0 = δ_0 and P_1 = (1-p)δ_0 + p δ_s with s = (M/p)^{1/k}: both have central k-th moment ≤ M (k ≥ 2).
    Means 0 and p·s = M^{1/k} p^{1-1/k}; radius = p·s/2.  Coupling: share the Bernoulli(p) spike indicators, so
    the datasets differ exactly where P_1's spike fires, H ~ Bin(n, p).  Bound: worst-case E|θ̂-θ| ≥ radius ·
    (E e^{-εH} - δ e^{-ε} n p)/2.  With ``p=None``, p is chosen to maximise the bound (≈ 1/(nε)).
    (Barber & Duchi 2014; Kamath, Singhal & Ullman 2020.)

    Parameters
    ----------
    k : float
        Moment order (≥ 2).
    n : int
        Sample size.
    epsilon : float
        Privacy level ε.
    M : float, default 1.0
        Bound on the central k-th moment.
    delta : float, default 0.0
        Privacy level δ.
    p : float, optional
        Spike probability (default: the one maximising the bound).

    Returns
    -------
    HardInstance
        The two-point instance.
    """
    k = check_positive("k", k)
    if k < 2:
        raise ValueError(f"k must be >= 2 for this construction (central moment argument), got {k}")
    n = check_int("n", n, minimum=1)
    epsilon = check_positive("epsilon", epsilon)
    M = check_positive("M", M)
    delta = check_prob("delta", delta, open_low=False)

    def value(pp: float) -> float:
        r = 0.5 * pp * _spike_scale(k, M, pp)
        return r * private_two_point_error(n, pp, epsilon, delta) / 2

    if p is None:
        grid = np.geomspace(1e-6 / (n * epsilon), min(1.0, 50.0 / (n * epsilon)), 200)
        grid = grid[grid < 1]
        p = float(grid[np.argmax([value(g) for g in grid])])
        res = optimize.minimize_scalar(
            lambda lp: -value(math.exp(lp)),
            bracket=None,
            bounds=(math.log(p) - 0.3, min(math.log(p) + 0.3, -1e-9)),
            method="bounded",
        )
        p = float(math.exp(res.x)) if -res.fun >= value(p) else p
    p = check_prob("p", p)
    s = _spike_scale(k, M, p)
    thetas = np.array([[0.0], [p * s]])

    def sampler(v, size, rng):
        if v == 0:
            return np.zeros((size, n))
        return s * (rng.random((size, n)) < p)

    def coupling(reps, rng):
        return rng.binomial(n, p, size=reps)

    return HardInstance(
        name=f"mean_1d_spike(k={k:g}, n={n}, eps={epsilon:g})",
        assumption=MomentAssumption("1d", k, M, True),
        n=n,
        epsilon=epsilon,
        delta=delta,
        thetas=thetas,
        sampler=sampler,
        radius=p * s / 2,
        method="private_two_point",
        risk="abs",
        coupling_q=p,
        coupling_sampler=coupling,
        provenance=PROV_ASZ,
        notes=f"p={p:.4g}, atom s={s:.4g}",
    )


def mean_1d_gaussian(k: float, n: int, *, M: float = 1.0, shift: float | None = None) -> HardInstance:
    """Statistical term: N(0, σ²) vs N(Δ, σ²) with σ^k E|Z|^k = M (central k-th moment exactly M).

    TV(P_0^n, P_1^n) = 2Φ(√n Δ / (2σ)) - 1; worst-case E|θ̂-θ| ≥ (Δ/2)(1 - TV)/2.  ``shift=None`` maximises over Δ
    (optimum at √n Δ/(2σ) ≈ 0.75).  This bound holds for every estimator, private or not.

    Parameters
    ----------
    k : float
        Moment order.
    n : int
        Sample size.
    M : float, default 1.0
        The central k-th moment.
    shift : float, optional
        The separation Δ (default: the one maximising the bound).

    Returns
    -------
    HardInstance
        The two-point Gaussian instance.
    """
    k = check_positive("k", k)
    n = check_int("n", n, minimum=1)
    M = check_positive("M", M)
    sigma = (M / (2 ** (k / 2) * special.gamma((k + 1) / 2) / math.sqrt(math.pi))) ** (1 / k)
    if shift is None:
        t = optimize.minimize_scalar(
            lambda t: -t * (1 - (2 * sst.norm.cdf(t) - 1)), bounds=(0.01, 5), method="bounded"
        ).x
        shift = 2 * sigma * t / math.sqrt(n)
    shift = check_positive("shift", shift)
    tv = 2 * sst.norm.cdf(math.sqrt(n) * shift / (2 * sigma)) - 1
    thetas = np.array([[0.0], [shift]])

    def sampler(v, size, rng):
        return thetas[v, 0] + sigma * rng.standard_normal((size, n))

    return HardInstance(
        name=f"mean_1d_gaussian(k={k:g}, n={n})",
        assumption=MomentAssumption("1d", k, M, True),
        n=n,
        epsilon=math.inf,
        delta=0.0,
        thetas=thetas,
        sampler=sampler,
        radius=shift / 2,
        method="two_point_tv",
        risk="abs",
        tv_n=tv,
        provenance=Provenance("Le Cam (two points)", "statistical term", ""),
        notes=f"sigma={sigma:.4g}",
    )


def mean_1d_lower_bound(k: float, n: int, epsilon: float, *, M: float = 1.0, delta: float = 0.0) -> dict:
    """max(statistical, private) lower bound on worst-case E|θ̂-θ| for 1-d mean estimation; returns both terms.

    Parameters
    ----------
    k : float
        Moment order (≥ 2).
    n : int
        Sample size.
    epsilon : float
        Privacy level ε.
    M : float, default 1.0
        Bound on the central k-th moment.
    delta : float, default 0.0
        Privacy level δ.

    Returns
    -------
    dict
        The bound and its statistical and private terms.
    """
    priv = mean_1d_spike(k, n, epsilon, M=M, delta=delta).bound().value
    stat = mean_1d_gaussian(k, n, M=M).bound().value
    return {"value": max(priv, stat), "private": priv, "statistical": stat}


# ------------------------------------------------------------------------------------------------------------
# d-dimensional
# ------------------------------------------------------------------------------------------------------------
def _sign_code(d: int, M: int, rng: np.random.Generator) -> np.ndarray:
    """M sign vectors in {±1}^d/√d (a random code; its exact minimum distance is measured, not assumed)."""
    return rng.choice([-1.0, 1.0], size=(M, d)) / math.sqrt(d)


def mean_packing_spike(
    k: float,
    d: int,
    n: int,
    epsilon: float,
    *,
    M_moment: float = 1.0,
    delta: float = 0.0,
    code_size: int | None = None,
    p: float | None = None,
    rng: np.random.Generator,
) -> HardInstance:
    """Packing of spikes for pure ε-DP d-dimensional mean estimation ((d/(nε))^{1-1/k} term).

    Member v: X = 0 w.p. 1-p and X = s·u_v w.p. p, with u_v from a sign code on the unit sphere, s = (M/p)^{1/k}.
    Each member is rank one, so its central directional k-th moment equals the 1-d spike's (≤ M) and so does its
    norm moment.  Coupling with the all-zeros dataset: H ~ Bin(n, p).  Bound (module docstring, private
    multi-point): avg_v P(‖θ̂-θ_v‖ ≥ r) ≥ 1 - (1-p+p e^ε)^n / M_code, r = p·s·(min code distance)/2.
    ``rng`` draws the code (the instance is then fixed); the code's minimum distance is computed exactly.

    Parameters
    ----------
    k : float
        Moment order (≥ 2) of the directional moment assumption.
    d : int
        Dimension.
    n : int
        Sample size.
    epsilon : float
        Privacy level ε.
    M_moment : float, default 1.0
        Bound on the central directional k-th moment.
    delta : float, default 0.0
        Privacy level δ.
    code_size : int, optional
        Number of sign vectors drawn for the code (≥ 2; default ``min(2^(d//2), 512)``); duplicates are dropped.
    p : float, optional
        Probability of the spike; ``None``: the value on a grid that maximises the bound.
    rng : numpy.random.Generator
        The generator of the sign code.

    Returns
    -------
    HardInstance
        The packing instance (method ``"private_multipoint"``, absolute ℓ2 risk).
    """
    k = check_positive("k", k)
    if k < 2:
        raise ValueError(f"k must be >= 2, got {k}")
    d = check_int("d", d, minimum=1)
    n = check_int("n", n, minimum=1)
    epsilon = check_positive("epsilon", epsilon)
    check_rng(rng)
    if code_size is None:
        code_size = int(min(2 ** max(d // 2, 1), 512))
    code_size = check_int("code_size", code_size, minimum=2)
    code = _sign_code(d, code_size, rng)
    if d == 1:
        code = np.array([[1.0], [-1.0]])
    dist = np.sqrt(((code[:, None] - code[None]) ** 2).sum(-1))
    np.fill_diagonal(dist, np.inf)
    keep = np.ones(len(code), bool)  # drop duplicates (distance 0) so the packing is a packing
    for i in range(len(code)):
        if keep[i] and np.any(dist[i, :i][keep[:i]] == 0):
            keep[i] = False
    code = code[keep]
    dist = dist[np.ix_(keep, keep)]
    dmin = float(dist.min())
    Mc = len(code)

    def value(pp: float) -> float:
        return 0.5 * pp * _spike_scale(k, M_moment, pp) * dmin * private_multipoint_error(n, pp, epsilon, Mc, delta)

    if p is None:
        grid = np.geomspace(1e-4 / (n * epsilon), min(0.999, 100.0 * max(math.log(Mc), 1) / (n * epsilon)), 300)
        vals = [value(g) for g in grid]
        p = float(grid[int(np.argmax(vals))])
    p = check_prob("p", p)
    s = _spike_scale(k, M_moment, p)
    thetas = p * s * code

    def sampler(v, size, rng):
        on = rng.random((size, n, 1)) < p
        return on * (s * code[v])

    def coupling(reps, rng):
        return rng.binomial(n, p, size=reps)

    return HardInstance(
        name=f"mean_packing_spike(k={k:g}, d={d}, n={n}, eps={epsilon:g})",
        assumption=MomentAssumption("directional", k, M_moment, True),
        n=n,
        epsilon=epsilon,
        delta=delta,
        thetas=thetas,
        sampler=sampler,
        radius=p * s * dmin / 2,
        method="private_multipoint",
        risk="abs",
        coupling_q=p,
        coupling_sampler=coupling,
        provenance=PROV_KSU,
        notes=f"code of {Mc} sign vectors, min distance {dmin:.3f}; p={p:.4g}",
    )


def mean_coordinate_spike(
    d: int,
    n: int,
    epsilon: float,
    delta: float,
    *,
    M_moment: float = 1.0,
    p: float | None = None,
    rng: np.random.Generator,
) -> HardInstance:
    """Coordinate-spike Assouad family for (ε,δ)-DP mean estimation under bounded covariance (k = 2).

    Member v ∈ {±1}^d: pick J uniform in [d]; w.p. p emit s·v_J·e_J (else 0), s = √(M d / p).  Then
    E<u, X>² = p s² Σ_j u_j²/d = M, so the central second directional moment is ≤ M.  The ±i mixtures differ only
    on records with J = i and the spike on: coupling H_i ~ Bin(n, p/d).  Private Assouad: worst-case
    E‖θ̂-θ‖² ≥ d · (p s/d)² · (E e^{-εH_i} - δ e^{-ε} n p/d)/2  (≈ d/(nε) at p ≈ d/(nε); Kamath, Mouzakis &
    Singhal 2022 prove the matching Ω(d/(α²ε)) sample complexity).  The hypercube has 2^d members; ``thetas`` holds
    8 cube corners drawn with ``rng`` for the self-test and the risk estimate (the bound itself averages over the
    whole cube, so :func:`cannot_beat` refuses Assouad instances).

    Parameters
    ----------
    d : int
        Dimension.
    n : int
        Sample size.
    epsilon : float
        Privacy level ε.
    delta : float
        Privacy level δ.
    M_moment : float, default 1.0
        Bound on the central second directional moment.
    p : float, optional
        Probability that a record carries the spike; ``None``: the value on a grid that maximises the bound.
    rng : numpy.random.Generator
        The generator of the 8 cube corners kept in ``thetas``.

    Returns
    -------
    HardInstance
        The Assouad instance (method ``"assouad_private"``, squared ℓ2 risk).
    """
    d = check_int("d", d, minimum=1)
    n = check_int("n", n, minimum=1)
    epsilon = check_positive("epsilon", epsilon)
    delta = check_prob("delta", delta, open_low=False)

    def value(pp: float) -> float:
        s = math.sqrt(M_moment * d / pp)
        return d * (pp * s / d) ** 2 * private_two_point_error(n, pp / d, epsilon, delta) / 2

    if p is None:
        grid = np.geomspace(1e-4 * d / (n * epsilon), min(0.999, 100 * d / (n * epsilon)), 300)
        p = float(grid[int(np.argmax([value(g) for g in grid]))])
    p = check_prob("p", p)
    s = math.sqrt(M_moment * d / p)
    delta_c = p * s / d
    check_rng(rng)
    cube = rng.choice([-1.0, 1.0], size=(8, d))
    thetas = delta_c * cube

    def sampler(v, size, rng):
        J = rng.integers(0, d, size=(size, n))
        on = rng.random((size, n)) < p
        out = np.zeros((size, n, d))
        idx = np.nonzero(on)
        out[idx[0], idx[1], J[idx]] = s * cube[v][J[idx]]
        return out

    def coupling(reps, rng):
        return rng.binomial(n, p / d, size=reps)

    inst = HardInstance(
        name=f"mean_coordinate_spike(d={d}, n={n}, eps={epsilon:g}, delta={delta:g})",
        assumption=MomentAssumption("directional", 2, M_moment, True),
        n=n,
        epsilon=epsilon,
        delta=delta,
        thetas=thetas,
        sampler=sampler,
        radius=delta_c,
        method="assouad_private",
        risk="sq",
        coupling_q=p / d,
        coupling_sampler=coupling,
        provenance=PROV_ASZ,
        notes=f"p={p:.4g}, s={s:.4g}",
    )
    return inst
