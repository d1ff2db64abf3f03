"""Minimax lower-bound constructions as executable hard instances.

A :class:`HardInstance` is a finite family of data laws P_1..P_M with known parameters θ_v, a sampler, the
statistical distance between members, and -- for private bounds -- a *coupling* between each member's n-sample law
and a reference law together with the law of the Hamming distance H of the coupled datasets.  From these it
computes the value of the lower bound with every constant explicit.

The private bounds are derived here (short proofs in the docstrings) from group privacy along a coupling, in the
spirit of Acharya, Sun & Zhang (ALT 2021, "Differentially private Assouad, Fano, and Le Cam") and Barber & Duchi
(2014).  We use the exact moment-generating function of H instead of Markov's inequality, which gives tighter
constants than the published "0.9·e^{-10εD}" forms while remaining valid:

* **private two-point (Le Cam)**: for any (ε, δ)-DP test ψ between P_0^n and P_1^n and a coupling with Hamming
  distance H, ``P_0(ψ=1) + P_1(ψ=0) ≥ E[e^{-εH}] - δ·e^{-ε}·E[H]``.
  *Proof.* With q(x) = P[ψ(x) = 1], group privacy gives q(x) ≥ e^{-εh} q(y) - h e^{-ε} δ for datasets at
  Hamming distance h.  Hence P_0(ψ=1) = E q(X) ≥ E[e^{-εH} q(Y)] - δ e^{-ε} E H and
  P_0(ψ=1) + P_1(ψ=0) ≥ 1 - E[(1 - e^{-εH}) q(Y)] - δ e^{-ε} E H ≥ E[e^{-εH}] - δ e^{-ε} E H.  ∎
* **private multi-point (Fano-type)**: if every member's n-sample law is coupled with one *fixed* dataset x_0
  with Hamming distance H_v, then for any (ε, δ)-DP estimator and ψ = the nearest member,
  ``avg_v P_v(ψ ≠ v) ≥ 1 - (E[e^{εH}] + M δ E[H e^{ε(H-1)}]) / M``.
  *Proof.* P_v(ψ = v) = E q_v(X_v) ≤ E[e^{εH}] q_v(x_0) + δ E[H e^{ε(H-1)}]; sum over v and use
  Σ_v q_v(x_0) ≤ 1.  ∎
* non-private two-point: ``P_0(ψ=1) + P_1(ψ=0) ≥ 1 - TV(P_0^n, P_1^n)``; Assouad over a hypercube.

An estimator's risk relates to the test through the separation: if members are 2r apart in the loss's metric,
the nearest-member test errs only when the error is ≥ r.  So each bound is also a bound on a *probability*,
``avg_v P_v(error ≥ r) ≥ L_prob``, which :func:`cannot_beat` tests exactly with binomial counts.

Assumptions are carried as :class:`MomentAssumption` metadata; comparing bounds proved under different
assumptions raises ``ValueError`` (:func:`require_same_assumption`).
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Callable

import numpy as np
from scipy import optimize, special, stats as sst

from . import stats
from ._validate import check_int, check_positive, check_prob, check_rng
from .claims import LowerBoundClaim, Provenance
from .results import CheckResult

__all__ = [
    "MomentAssumption",
    "HardInstance",
    "BoundValue",
    "require_same_assumption",
    "private_two_point_error",
    "private_multipoint_error",
    "mean_1d_spike",
    "mean_1d_gaussian",
    "mean_1d_lower_bound",
    "mean_packing_spike",
    "mean_coordinate_spike",
    "cannot_beat",
    "optimality_ratio",
    "private_fano_reference_error",
    "sparse_regression_packing",
    "sco_linear_packing",
]

PROV_ASZ = Provenance("Acharya, Sun & Zhang 2021 (ALT)", "DP Le Cam / Fano / Assouad", "",
                      "constants re-derived here with the exact MGF of the coupling distance")
PROV_KSU = Provenance("Kamath, Singhal & Ullman 2020 (COLT)", "heavy-tailed mean estimation lower bounds", "")


# ------------------------------------------------------------------------------------------------------------
# assumptions
# ------------------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class MomentAssumption:
    """The moment condition a bound is proved under.

    ``geometry``: ``"1d"`` (E|X-μ|^k ≤ M), ``"directional"`` (sup_u E|<u, X-μ>|^k ≤ M), ``"coordinate"``
    (max_j E|X_j-μ_j|^k ≤ M) or ``"norm"`` (E‖X-μ‖^k ≤ M); ``central`` says whether moments are about the mean.
    """

    geometry: str
    k: float
    M: float = 1.0
    central: bool = True

    def __post_init__(self):
        if self.geometry not in ("1d", "directional", "coordinate", "norm"):
            raise ValueError(f"geometry must be one of '1d', 'directional', 'coordinate', 'norm'; got {self.geometry!r}")
        check_positive("k", self.k)
        check_positive("M", self.M)

    def __str__(self) -> str:
        c = "central" if self.central else "raw"
        what = {"1d": "E|X-μ|^k", "directional": "sup_u E|<u,X-μ>|^k", "coordinate": "max_j E|X_j-μ_j|^k",
                "norm": "E||X-μ||^k"}[self.geometry]
        return f"{what} <= {self.M:g} with k={self.k:g} ({c})"


def require_same_assumption(a: MomentAssumption, b: MomentAssumption) -> None:
    """Refuse to compare results proved under different moment assumptions (d enters differently)."""
    if (a.geometry, a.k, a.central) != (b.geometry, b.k, b.central) or not math.isclose(a.M, b.M):
        raise ValueError(
            f"assumption mismatch: bound proved under [{a}] cannot be compared with an estimator analysed under "
            f"[{b}] (coordinate, directional and norm moments scale differently in d)"
        )


# ------------------------------------------------------------------------------------------------------------
# coupling-based private test-error bounds (exact for binomial Hamming distances)
# ------------------------------------------------------------------------------------------------------------
def private_two_point_error(n: int, q: float, epsilon: float, delta: float = 0.0) -> float:
    """Lower bound on P_0(ψ=1) + P_1(ψ=0) for (ε,δ)-DP tests when the coupling distance is H ~ Bin(n, q).

    ``E[e^{-εH}] - δ e^{-ε} E[H] = (1 - q + q e^{-ε})^n - δ e^{-ε} n q``, clipped at 0.
    """
    n = check_int("n", n, minimum=1)
    q = check_prob("q", q, open_low=False, open_high=False)
    epsilon = check_positive("epsilon", epsilon)
    delta = check_prob("delta", delta, open_low=False)
    mgf = math.exp(n * math.log1p(-q * (-math.expm1(-epsilon)))) if q > 0 else 1.0
    return max(mgf - delta * math.exp(-epsilon) * n * q, 0.0)


def private_multipoint_error(n: int, q: float, epsilon: float, M: int, delta: float = 0.0) -> float:
    """Lower bound on avg_v P_v(ψ ≠ v) over M members, each coupled with a fixed dataset at H ~ Bin(n, q).

    ``1 - (E e^{εH} + M δ E[H e^{ε(H-1)}]) / M`` with ``E e^{εH} = (1-q+q e^ε)^n`` and
    ``E[H e^{ε(H-1)}] = n q (1-q+q e^ε)^{n-1}``; clipped at 0.
    """
    n = check_int("n", n, minimum=1)
    q = check_prob("q", q, open_low=False, open_high=False)
    epsilon = check_positive("epsilon", epsilon)
    M = check_int("M", M, minimum=2)
    delta = check_prob("delta", delta, open_low=False)
    log_base = math.log1p(q * math.expm1(epsilon))
    log_mgf = n * log_base
    if log_mgf > 700:
        return 0.0
    term = math.exp(log_mgf) / M + (delta * n * q * math.exp((n - 1) * log_base) if delta > 0 else 0.0)
    return max(1.0 - term, 0.0)


def private_fano_reference_error(n: int, q: float, epsilon: float, M: int, delta: float = 0.0):
    """Multi-point bound when each member is coupled with a reference *law* P_0 (not a fixed dataset).

    If H_v ~ Bin(n, q_v) with q_v ≤ q, then for every integer t ≥ 0 and ψ the nearest member,
    ``avg_v P_v(ψ ≠ v) ≥ 1 - e^{εt}/M - t e^{ε(t-1)} δ - P[Bin(n, q) > t]``.
    *Proof.* On {H_v ≤ t} group privacy gives q_v(X) ≤ e^{εt} q_v(Y) + t e^{ε(t-1)} δ; so
    P_v(ψ=v) ≤ e^{εt} P_0(ψ=v) + t e^{ε(t-1)}δ + P(H_v > t); sum over v with Σ_v P_0(ψ=v) ≤ 1.  ∎
    Returns ``(bound, best t)``; the bound is clipped at 0.
    """
    n = check_int("n", n, minimum=1)
    q = check_prob("q", q, open_low=False, open_high=False)
    epsilon = check_positive("epsilon", epsilon)
    M = check_int("M", M, minimum=2)
    delta = check_prob("delta", delta, open_low=False)
    t_max = int(min(n, math.log(M) / epsilon + 1))
    ts = np.arange(0, t_max + 1)
    val = 1 - np.exp(epsilon * ts) / M - ts * np.exp(epsilon * (ts - 1)) * delta - sst.binom.sf(ts, n, q)
    i = int(np.argmax(val))
    return max(float(val[i]), 0.0), int(ts[i])


# ------------------------------------------------------------------------------------------------------------
# the instance object
# ------------------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class BoundValue:
    """A lower bound's value with its pieces: ``value`` bounds the worst-case risk (loss ``risk``),
    ``prob`` bounds ``avg_v P_v(error ≥ radius)`` (the exact, testable form), ``method`` names the argument."""

    value: float
    prob: float
    radius: float
    method: str
    risk: str
    constants: dict = field(default_factory=dict)


@dataclass
class HardInstance:
    """A family of data laws for a minimax lower bound.

    Attributes
    ----------
    name, assumption (MomentAssumption), n (sample size), epsilon, delta (privacy level the bound is for; ε = inf
    for non-private bounds), thetas (array (M, d) or (M,) of member parameters), sampler (``sampler(v, size, rng)``
    -> ``size`` datasets of member v, shape (size, n) or (size, n, d)), radius (half the minimum separation in the
    loss metric), coupling_q (per-sample probability that coupled records differ, so H ~ Bin(n, q); None when the
    bound is not coupling-based), tv_n (TV between the n-sample laws used by a non-private bound, if any),
    method ("private_two_point", "private_multipoint", "two_point_tv", "assouad_private", "assouad_tv"),
    risk ("abs" = |θ̂-θ| / ‖θ̂-θ‖, or "sq" = squared ℓ2), provenance, and ``moment_check(rng)`` hooks.
    """

    name: str
    assumption: MomentAssumption
    n: int
    epsilon: float
    delta: float
    thetas: np.ndarray
    sampler: Callable
    radius: float
    method: str
    risk: str = "abs"
    coupling_q: float | None = None
    tv_n: float | None = None
    coupling_sampler: Callable | None = None
    provenance: Provenance = field(default_factory=lambda: PROV_ASZ)
    notes: str = ""
    loss: Callable | None = None  # loss(estimates (reps, d), v) -> (reps,); default ℓ2 distance to θ_v
    fano_q: dict | None = None  # for "private_fano_reference": per-sample coupling probabilities q_v
    moment_stat: Callable | None = None  # moment_stat(records, v) -> |.| whose k-th moment the assumption bounds

    @property
    def M(self) -> int:
        return len(self.thetas)

    def coupling_distance(self) -> float:
        """D = E[Hamming] of the coupling used by the private bound (n·q)."""
        if self.coupling_q is None:
            raise ValueError(f"instance {self.name!r} has no coupling (method {self.method})")
        return self.n * self.coupling_q

    def bound(self) -> BoundValue:
        """The lower bound with its constants (see the module docstring for the derivations)."""
        c = {"n": self.n, "epsilon": self.epsilon, "delta": self.delta, "M": self.M, "radius": self.radius}
        if self.method == "private_two_point":
            s = private_two_point_error(self.n, self.coupling_q, self.epsilon, self.delta)
            prob = s / 2  # average of the two error probabilities
            c["sum_of_errors"] = s
        elif self.method == "two_point_tv":
            prob = (1 - self.tv_n) / 2
            c["tv_n"] = self.tv_n
        elif self.method == "private_multipoint":
            prob = private_multipoint_error(self.n, self.coupling_q, self.epsilon, self.M, self.delta)
        elif self.method == "assouad_private":
            # per coordinate: two-point bound between the ±i mixtures; risk sums over coordinates
            s = private_two_point_error(self.n, self.coupling_q, self.epsilon, self.delta)
            prob = s / 2
            c["per_coordinate_sum_of_errors"] = s
        elif self.method == "assouad_tv":
            prob = (1 - self.tv_n) / 2
            c["tv_n"] = self.tv_n
        elif self.method == "private_fano_reference":
            prob, t = private_fano_reference_error(self.n, max(self.fano_q["q"]), self.epsilon, self.M, self.delta)
            c["t"] = t
            c["q_max"] = max(self.fano_q["q"])
            if "kl_n" in self.fano_q:  # the non-private Fano term, whichever is larger
                stat = max(1 - (self.fano_q["kl_n"] + math.log(2)) / math.log(self.M), 0.0)
                c["fano_statistical"] = stat
                c["fano_private"] = prob
                prob = max(prob, stat)
        else:  # pragma: no cover
            raise ValueError(f"unknown method {self.method!r}")
        c["coupling_D"] = None if self.coupling_q is None else self.n * self.coupling_q
        if self.method.startswith("assouad"):
            d = self.thetas.shape[1]
            # Σ_i (per-coordinate error prob) · radius_i^2 (squared ℓ2 risk)
            value = d * self.radius**2 * prob
            risk = "squared l2"
        elif self.risk == "sq":
            value = self.radius**2 * prob
            risk = "squared l2"
        elif self.risk == "excess":
            value = self.radius * prob
            risk = "excess population risk"
        else:
            value = self.radius * prob
            risk = "l2 (absolute) error"
        return BoundValue(value=value, prob=prob, radius=self.radius, method=self.method, risk=risk, constants=c)

    def claim(self) -> LowerBoundClaim:
        b = self.bound()
        return LowerBoundClaim(b.value, b.risk, str(self.assumption), self.provenance)

    def sample(self, v: int, size: int, *, rng: np.random.Generator) -> np.ndarray:
        """``size`` independent n-sample datasets from member ``v``."""
        check_rng(rng)
        v = check_int("v", v, minimum=0)
        if v >= self.M:
            raise ValueError(f"v must lie in [0, {self.M - 1}], got {v}")
        return self.sampler(v, check_int("size", size, minimum=1), rng)

    # -------------------------------------------------------------- self tests
    def _moment_projection(self, sets: np.ndarray, v: int, th: np.ndarray) -> np.ndarray:
        """|.| of each record whose k-th moment the assumption bounds (worst direction for 'directional')."""
        if self.moment_stat is not None:
            return np.abs(self.moment_stat(sets, v)).ravel()
        dev = sets.reshape(-1, th.shape[1]) - th[v]
        if self.assumption.geometry in ("1d", "norm"):
            return np.sqrt((dev**2).sum(1))
        if self.assumption.geometry == "coordinate":
            return np.abs(dev).max(1)
        dirs = list(np.eye(th.shape[1]))  # directional: worst over the axes and the member's own direction
        if np.linalg.norm(th[v]) > 0:
            dirs.append(th[v] / np.linalg.norm(th[v]))
        projs = [np.abs(dev @ u) for u in dirs]
        return max(projs, key=lambda p: float(np.mean(p**self.assumption.k)))

    def self_test(self, *, rng: np.random.Generator, reps: int = 2000, alpha: float = 1e-3) -> dict:
        """Check the instance against its own claims by simulation.

        * separation: the minimum pairwise distance of the θ_v is ≥ 2·radius (exact);
        * moments: each member's sampled central moment (of the geometry of its assumption, in the worst
          direction for the finite family) is ≤ M up to a one-sided CLT allowance at level ``alpha``;
        * coupling: the simulated mean Hamming distance of the coupling matches n·q (two-sided exact binomial
          test: H is a sum of n·reps Bernoulli(q) indicators).
        Returns a dict of booleans and numbers; ``ok`` is their conjunction.
        """
        check_rng(rng)
        out: dict = {}
        th = self.thetas.reshape(self.M, -1)
        dists = np.sqrt(((th[:, None, :] - th[None, :, :]) ** 2).sum(-1))
        if self.method.startswith("assouad"):
            sep_ok = bool(np.all(np.abs(th) >= self.radius * (1 - 1e-12)))
        else:
            min_d = dists[~np.eye(self.M, dtype=bool)].min()
            sep_ok = bool(min_d >= 2 * self.radius * (1 - 1e-12))
            out["min_separation"] = float(min_d)
        out["separation_ok"] = sep_ok
        moments = []
        worst_ok = True
        for v in range(min(self.M, 4)):
            sets = self.sample(v, max(1, reps // self.n + 1), rng=rng)
            proj = self._moment_projection(sets, v, th)
            pk = proj**self.assumption.k
            m, se = float(pk.mean()), float(pk.std(ddof=1) / math.sqrt(pk.size)) if pk.size > 1 else 0.0
            ok = m - sst.norm.isf(alpha) * se <= self.assumption.M * (1 + 1e-9)
            worst_ok &= ok
            moments.append({"member": v, "moment": m, "se": se, "ok": bool(ok)})
        out["moments"] = moments
        out["moments_ok"] = bool(worst_ok)
        if self.coupling_q is not None and self.coupling_sampler is not None:
            H = self.coupling_sampler(reps, rng)
            total = int(H.sum())
            trials = self.n * reps
            p_lo, p_hi = stats.cp_interval(total, trials, alpha)
            out["coupling_mean_H"] = float(H.mean())
            out["coupling_D"] = self.coupling_distance()
            out["coupling_ok"] = bool(p_lo <= self.coupling_q <= p_hi)
        out["ok"] = bool(out["separation_ok"] and out["moments_ok"] and out.get("coupling_ok", True))
        return out


# ------------------------------------------------------------------------------------------------------------
# 1-d heavy-tailed mean estimation
# ------------------------------------------------------------------------------------------------------------
def _spike_scale(k: float, M: float, p: float) -> float:
    """Atom s with p·s^k = M; then the *central* k-th absolute moment of (1-p)δ_0 + pδ_s is ≤ M for k ≥ 2:
    (1-p)(ps)^k + p((1-p)s)^k = p s^k (1-p)(p^{k-1} + (1-p)^{k-1}) ≤ p s^k."""
    return (M / p) ** (1.0 / k)


def mean_1d_spike(k: float, n: int, epsilon: float, *, M: float = 1.0, delta: float = 0.0,
                  p: float | None = None) -> HardInstance:
    """Two-point spike instance for ε-DP (or (ε,δ)-DP) 1-d mean estimation (privacy term (1/(nε))^{1-1/k}).

    P_0 = δ_0 and P_1 = (1-p)δ_0 + p δ_s with s = (M/p)^{1/k}: both have central k-th moment ≤ M (k ≥ 2).
    Means 0 and p·s = M^{1/k} p^{1-1/k}; radius = p·s/2.  Coupling: share the Bernoulli(p) spike indicators, so
    the datasets differ exactly where P_1's spike fires, H ~ Bin(n, p).  Bound: worst-case E|θ̂-θ| ≥ radius ·
    (E e^{-εH} - δ e^{-ε} n p)/2.  With ``p=None``, p is chosen to maximise the bound (≈ 1/(nε)).
    (Barber & Duchi 2014; Kamath, Singhal & Ullman 2020.)
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
        res = optimize.minimize_scalar(lambda lp: -value(math.exp(lp)), bracket=None,
                                       bounds=(math.log(p) - 0.3, min(math.log(p) + 0.3, -1e-9)), method="bounded")
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
        assumption=MomentAssumption("1d", k, M, True), n=n, epsilon=epsilon, delta=delta, thetas=thetas,
        sampler=sampler, radius=p * s / 2, method="private_two_point", risk="abs", coupling_q=p,
        coupling_sampler=coupling, provenance=PROV_ASZ, notes=f"p={p:.4g}, atom s={s:.4g}",
    )


def mean_1d_gaussian(k: float, n: int, *, M: float = 1.0, shift: float | None = None) -> HardInstance:
    """Statistical term: N(0, σ²) vs N(Δ, σ²) with σ^k E|Z|^k = M (central k-th moment exactly M).

    TV(P_0^n, P_1^n) = 2Φ(√n Δ / (2σ)) - 1; worst-case E|θ̂-θ| ≥ (Δ/2)(1 - TV)/2.  ``shift=None`` maximises over Δ
    (optimum at √n Δ/(2σ) ≈ 0.75).  This bound holds for every estimator, private or not.
    """
    k = check_positive("k", k)
    n = check_int("n", n, minimum=1)
    M = check_positive("M", M)
    sigma = (M / (2 ** (k / 2) * special.gamma((k + 1) / 2) / math.sqrt(math.pi))) ** (1 / k)
    if shift is None:
        t = optimize.minimize_scalar(lambda t: -t * (1 - (2 * sst.norm.cdf(t) - 1)), bounds=(0.01, 5),
                                     method="bounded").x
        shift = 2 * sigma * t / math.sqrt(n)
    shift = check_positive("shift", shift)
    tv = 2 * sst.norm.cdf(math.sqrt(n) * shift / (2 * sigma)) - 1
    thetas = np.array([[0.0], [shift]])

    def sampler(v, size, rng):
        return thetas[v, 0] + sigma * rng.standard_normal((size, n))

    return HardInstance(
        name=f"mean_1d_gaussian(k={k:g}, n={n})", assumption=MomentAssumption("1d", k, M, True), n=n,
        epsilon=math.inf, delta=0.0, thetas=thetas, sampler=sampler, radius=shift / 2, method="two_point_tv",
        risk="abs", tv_n=tv, provenance=Provenance("Le Cam (two points)", "statistical term", ""),
        notes=f"sigma={sigma:.4g}",
    )


def mean_1d_lower_bound(k: float, n: int, epsilon: float, *, M: float = 1.0, delta: float = 0.0) -> dict:
    """max(statistical, private) lower bound on worst-case E|θ̂-θ| for 1-d mean estimation; returns both terms."""
    priv = mean_1d_spike(k, n, epsilon, M=M, delta=delta).bound().value
    stat = mean_1d_gaussian(k, n, M=M).bound().value
    return {"value": max(priv, stat), "private": priv, "statistical": stat}


# ------------------------------------------------------------------------------------------------------------
# d-dimensional
# ------------------------------------------------------------------------------------------------------------
def _sign_code(d: int, M: int, rng: np.random.Generator) -> np.ndarray:
    """M sign vectors in {±1}^d/√d (a random code; its exact minimum distance is measured, not assumed)."""
    return rng.choice([-1.0, 1.0], size=(M, d)) / math.sqrt(d)


def mean_packing_spike(k: float, d: int, n: int, epsilon: float, *, M_moment: float = 1.0, delta: float = 0.0,
                       code_size: int | None = None, p: float | None = None,
                       rng: np.random.Generator) -> HardInstance:
    """Packing of spikes for pure ε-DP d-dimensional mean estimation ((d/(nε))^{1-1/k} term).

    Member v: X = 0 w.p. 1-p and X = s·u_v w.p. p, with u_v from a sign code on the unit sphere, s = (M/p)^{1/k}.
    Each member is rank one, so its central directional k-th moment equals the 1-d spike's (≤ M) and so does its
    norm moment.  Coupling with the all-zeros dataset: H ~ Bin(n, p).  Bound (module docstring, private
    multi-point): avg_v P(‖θ̂-θ_v‖ ≥ r) ≥ 1 - (1-p+p e^ε)^n / M_code, r = p·s·(min code distance)/2.
    ``rng`` draws the code (the instance is then fixed); the code's minimum distance is computed exactly.
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
        assumption=MomentAssumption("directional", k, M_moment, True), n=n, epsilon=epsilon, delta=delta,
        thetas=thetas, sampler=sampler, radius=p * s * dmin / 2, method="private_multipoint", risk="abs",
        coupling_q=p, coupling_sampler=coupling, provenance=PROV_KSU,
        notes=f"code of {Mc} sign vectors, min distance {dmin:.3f}; p={p:.4g}",
    )


def mean_coordinate_spike(d: int, n: int, epsilon: float, delta: float, *, M_moment: float = 1.0,
                          p: float | None = None, rng: np.random.Generator) -> HardInstance:
    """Coordinate-spike Assouad family for (ε,δ)-DP mean estimation under bounded covariance (k = 2).

    Member v ∈ {±1}^d: pick J uniform in [d]; w.p. p emit s·v_J·e_J (else 0), s = √(M d / p).  Then
    E<u, X>² = p s² Σ_j u_j²/d = M, so the central second directional moment is ≤ M.  The ±i mixtures differ only
    on records with J = i and the spike on: coupling H_i ~ Bin(n, p/d).  Private Assouad: worst-case
    E‖θ̂-θ‖² ≥ d · (p s/d)² · (E e^{-εH_i} - δ e^{-ε} n p/d)/2  (≈ d/(nε) at p ≈ d/(nε); Kamath, Mouzakis &
    Singhal 2022 prove the matching Ω(d/(α²ε)) sample complexity).  The hypercube has 2^d members; ``thetas`` holds
    8 cube corners drawn with ``rng`` for the self-test and the risk estimate (the bound itself averages over the
    whole cube, so :func:`cannot_beat` refuses Assouad instances).
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
        assumption=MomentAssumption("directional", 2, M_moment, True), n=n, epsilon=epsilon, delta=delta,
        thetas=thetas, sampler=sampler, radius=delta_c, method="assouad_private", risk="sq", coupling_q=p / d,
        coupling_sampler=coupling, provenance=PROV_ASZ, notes=f"p={p:.4g}, s={s:.4g}",
    )
    return inst


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


def sparse_regression_packing(d: int, s: int, n: int, epsilon: float, *, sigma: float = 1.0, delta: float = 0.0,
                              gamma: float | None = None, code_size: int = 256,
                              rng: np.random.Generator) -> HardInstance:
    """s-sparse linear regression y = x'β + σξ, x ~ N(0, I_d), members β_v ∈ {0, ±γ}^d (random s-sparse code).

    Reference law P_0: β = 0.  Coupling of member v with P_0: share x_i and maximally couple y_i, so the records
    differ with probability q_v = E_x TV(N(x'β_v, σ²), N(0, σ²)) independently: H_v ~ Bin(n, q_v).  The bound is the
    larger of non-private Fano (KL(P_v^n‖P_0^n) = nγ²s/(2σ²)) and the private reference-Fano bound
    (:func:`private_fano_reference_error`); it reproduces σ²(s log d/n + (s log d)²/(nε)²) up to constants
    (Cai, Wang & Zhang 2021).  Risk: squared ℓ2.  ``gamma=None`` maximises the bound.
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
        assumption=MomentAssumption("1d", 2, sigma**2, True), n=n, epsilon=epsilon, delta=delta, thetas=thetas,
        sampler=sampler, radius=gamma * dmin / 2, method="private_fano_reference", risk="sq", coupling_q=q,
        coupling_sampler=coupling, fano_q={"q": [q], "kl_n": n * gamma**2 * s / (2 * sigma**2)},
        moment_stat=lambda data, v: data[..., -1] - data[..., :-1] @ thetas[v],
        provenance=Provenance("Cai, Wang & Zhang 2021 (AoS)", "Thm. (cost of privacy), sparse regression", "",
                              "reference-coupling DP Fano derived here; noise moment: Var(σξ)=σ²"),
        notes=f"{Mc} s-sparse members, min distance {dmin:.3g}, gamma={gamma:.3g}, q={q:.3g}",
    )


def sco_linear_packing(k: float, d: int, n: int, epsilon: float, *, R: float = 1.0, M_moment: float = 1.0,
                       delta: float = 0.0, rng: np.random.Generator) -> HardInstance:
    """Heavy-tailed DP-SCO via the linear-loss reduction: f(w, x) = -<w, x> on the ℓ2 ball of radius R, with x from
    the packing-of-spikes mean instance (gradient -x has central directional k-th moment ≤ M).

    Population risk F_v(w) = -<w, μ_v>, ‖μ_v‖ = p·s for every member, so the excess risk of ŵ is
    R p s (1 - <ŵ/R, u_v>).  If the excess is < R p s d_min²/8 then ‖ŵ/R - u_v‖ < d_min/2 and ŵ identifies v; so
    avg_v P_v(excess ≥ R p s d_min²/8) is bounded below by the private multi-point bound of the mean instance.
    The estimator under test returns ŵ (it is projected on the ball before the loss is evaluated).
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
        name=f"sco_linear_packing(k={k:g}, d={d}, n={n}, eps={epsilon:g})", assumption=base.assumption, n=n,
        epsilon=epsilon, delta=delta, thetas=R * U, sampler=base.sampler, radius=thr, method="private_multipoint",
        risk="excess", coupling_q=base.coupling_q, coupling_sampler=base.coupling_sampler, loss=excess,
        moment_stat=lambda sets, v: (sets.reshape(-1, mu.shape[1]) - mu[v]) @ U[v],  # rank one: worst direction
        provenance=Provenance("Kamath, Liu & Zhang 2022 (ICML); Lowy & Razaviyayn 2023", "linear-loss reduction", "",
                              "reduction and constants derived here"),
        notes=base.notes + f"; excess threshold {thr:.3g}",
    )


# ------------------------------------------------------------------------------------------------------------
# checks
# ------------------------------------------------------------------------------------------------------------
def _errors(estimate_fn, inst: HardInstance, v: int, reps: int, rng) -> np.ndarray:
    data = inst.sample(v, reps, rng=rng)
    est = np.asarray(estimate_fn(data, rng=rng), dtype=float).reshape(reps, -1)
    if inst.loss is not None:
        return np.asarray(inst.loss(est, v), dtype=float)
    return np.sqrt(((est - inst.thetas[v].reshape(1, -1)) ** 2).sum(1))


def cannot_beat(estimate_fn, inst: HardInstance, *, reps: int = 2000, alpha: float = 0.05,
                rng: np.random.Generator, name: str = "lowerbound.cannot_beat") -> CheckResult:
    """Flag an estimator whose error is significantly *below* a valid private lower bound (a privacy bug).

    ``estimate_fn(datasets, rng=...)`` maps a stack of datasets (reps, n[, d]) to estimates (reps[, d]).
    Exact test: the bound says ``avg_v P_v(error ≥ r) ≥ L``.  We count errors ≥ r over ``reps`` datasets per
    member; the pooled count of a Poisson-binomial is stochastically larger in its lower tail than the binomial
    with the same mean (Hoeffding 1956, Thm. 4), so the Clopper–Pearson upper bound of the pooled rate at level α is
    valid.  Verdict "violated" when that upper bound is < L.  Not available for Assouad instances (their bound
    averages over 2^d members; use :func:`optimality_ratio`).
    """
    check_rng(rng)
    alpha = check_prob("alpha", alpha)
    reps = check_int("reps", reps, minimum=10)
    if inst.method.startswith("assouad"):
        raise ValueError("inst: cannot_beat needs a two-point or multi-point instance, not an Assouad family")
    t0 = time.perf_counter()
    b = inst.bound()
    if inst.M <= 16:  # every member, equal replications: pooled count is Poisson-binomial (Hoeffding)
        plan = {v: reps for v in range(inst.M)}
    else:  # one uniformly drawn member per replication: the pooled count is exactly Binomial(trials, avg_v)
        vs, cnt = np.unique(rng.integers(0, inst.M, size=reps * 16), return_counts=True)
        plan = dict(zip(vs.tolist(), cnt.tolist()))
    counts = []
    for v, r in plan.items():
        err = _errors(estimate_fn, inst, int(v), int(r), rng)
        counts.append(int(np.sum(err >= inst.radius * (1 - 1e-12))))
    total, trials = int(sum(counts)), int(sum(plan.values()))
    ub = float(stats.cp_upper(total, trials, alpha))
    violated = ub < b.prob
    return CheckResult(
        name=name, verdict="violated" if violated else "consistent", statistic="P(error >= r) upper bound",
        estimate=total / trials, interval=(0.0, ub), alpha=alpha, claim=inst.claim(), n_samples=trials,
        seconds=time.perf_counter() - t0, provenance=inst.provenance,
        summary=(f"on {inst.name}: P(error ≥ {inst.radius:.3g}) ≤ {ub:.3g} at {100 * (1 - alpha):.0f}% vs the "
                 f"lower bound {b.prob:.3g} → " + ("beats a valid private bound: privacy claim is wrong" if violated
                                                  else "does not beat the bound")),
        details={"counts": counts, "members": len(plan), "bound": b.__dict__, "instance": inst.notes},
    )


def optimality_ratio(estimate_fn, make_instance: Callable[[int], HardInstance], ns, *, reps: int = 500,
                     rng: np.random.Generator, name: str = "lowerbound.optimality_ratio",
                     out_dir=None, label: str = "", tolerance: float = 0.1) -> CheckResult:
    """Measured worst-case risk over the family / the bound, swept over n; the fitted log-log slope of the ratio
    near 0 means rate-optimal (a positive slope: the estimator's error decays slower than the bound).

    ``make_instance(n)`` builds the instance at each n.  Risk is the sample mean of the loss, with a bootstrap
    percentile interval (95%) on the slope over replications.  Verdict (claim: "rate-optimal on this instance"):
    ``consistent`` when the interval lies inside [-tolerance, tolerance], ``violated`` when it lies outside it,
    ``inconclusive`` otherwise.  A ratio below 1 at some n is reported in ``details['below_bound']`` (use
    :func:`cannot_beat` for the certified version of that statement).
    """
    tolerance = check_positive("tolerance", tolerance)
    check_rng(rng)
    t0 = time.perf_counter()
    ns = [check_int("ns", int(x), minimum=1) for x in ns]
    rows = []
    per_n_errs = []
    for n in ns:
        inst = make_instance(n)
        b = inst.bound()
        worst, worst_errs = -1.0, None
        members = range(inst.M) if inst.M <= 8 else rng.choice(inst.M, 8, replace=False)
        for v in members:
            err = _errors(estimate_fn, inst, int(v), reps, rng)
            loss = err**2 if inst.risk == "sq" else err
            if loss.mean() > worst:
                worst, worst_errs = float(loss.mean()), loss
        rows.append({"n": n, "risk": worst, "bound": b.value, "ratio": worst / b.value if b.value > 0 else math.inf})
        per_n_errs.append(worst_errs)
    x = np.log(ns)
    y = np.log([r["ratio"] for r in rows])
    slope = float(np.polyfit(x, y, 1)[0]) if len(ns) > 1 else float("nan")
    boots = []
    for _ in range(300):
        rs = [np.mean(rng.choice(e, e.size)) for e in per_n_errs]
        yy = np.log(np.array(rs) / np.array([r["bound"] for r in rows]))
        boots.append(np.polyfit(x, yy, 1)[0])
    lo, hi = (float(np.quantile(boots, 0.025)), float(np.quantile(boots, 0.975))) if len(ns) > 1 else (math.nan,) * 2
    figs = []
    if out_dir is not None:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        import matplotlib.ticker

        fig, ax = plt.subplots(figsize=(5.5, 3.6))
        ax.loglog(ns, [r["risk"] for r in rows], "o-", label=f"worst-case risk {label}")
        ax.loglog(ns, [r["bound"] for r in rows], "s--", label="lower bound")
        ax.set_xlabel("n")
        ax.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())  # minor labels collided at 3e3, 4e3
        ax.set_xticks(ns, [f"{n:g}" for n in ns])
        ax.set_ylabel("risk")
        ax.set_title(f"{name}: ratio slope {slope:.2f} [{lo:.2f}, {hi:.2f}]", fontsize=9)
        ax.legend(fontsize=8)
        fig.tight_layout()
        fname = f"{name.replace('/', '_')}.png"
        fig.savefig(f"{out_dir}/{fname}", dpi=110)
        plt.close(fig)
        figs.append(fname)
    ratios = [r["ratio"] for r in rows]
    if -tolerance <= lo and hi <= tolerance:
        verdict = "consistent"
    elif hi < -tolerance or lo > tolerance:
        verdict = "violated"
    else:
        verdict = "inconclusive"
    return CheckResult(
        name=name, verdict=verdict, statistic="ratio slope",
        estimate=slope, interval=(lo, hi), alpha=0.05, n_samples=reps * len(ns), seconds=time.perf_counter() - t0,
        summary=(f"risk / lower bound from {ratios[0]:.3g} (n={ns[0]}) to {ratios[-1]:.3g} (n={ns[-1]}); "
                 f"log-log slope {slope:.3f} (bootstrap 95% [{lo:.3f}, {hi:.3f}]); slope ≈ 0 means rate-optimal"),
        details={"rows": rows, "tolerance": tolerance, "below_bound": [r["n"] for r in rows if r["ratio"] < 1]},
        figures=figs,
    )
