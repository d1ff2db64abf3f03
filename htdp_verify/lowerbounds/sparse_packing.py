"""The s-sparse heavy-tailed mean packing instance and its closed form: :class:`SparseMeanPacking`,
:func:`sparse_mean_packing`, :func:`sparse_mean_closed_form`.

The spike-mixture packing over the explicit sparse code of :mod:`htdp_verify.lowerbounds.sparse_code`, with the
spike probability p chosen to maximise the private multi-point bound (Barber & Duchi 2014, Prop. 4; Hu, Ni, Xiao &
Wang 2022, Thm 9's construction). The derivation and the differences from the printed proof are in
:mod:`htdp_verify.lowerbounds.sparse_mean`, which also holds the checks that use this instance.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike
from scipy import optimize
from scipy import stats as sst

from .._validate import check_int, check_positive, check_prob, check_rng
from ..claims import Provenance
from .coupling import private_multipoint_error
from .instance import HardInstance, MomentAssumption
from .sparse_code import SparseSignCode, sparse_sign_code

__all__ = ["SparseMeanPacking", "sparse_mean_packing", "sparse_mean_closed_form"]

PROV_SPARSE = Provenance(
    "Barber & Duchi 2014 (Prop. 4); Hu, Ni, Xiao & Wang 2022 (Thm 9's construction)",
    "s-sparse heavy-tailed mean, (ε, δ)-DP spike-mixture packing",
    "",
    "explicit Reed-Solomon packing; private multi-point bound with the exact coupling MGF",
)


# ------------------------------------------------------------------------------------------------------------
# the instance
# ------------------------------------------------------------------------------------------------------------
class _CodeThetas:
    """Lazy (M, d) 'array' of member means θ_v = height · z_v (M may be ~2^62): indexing decodes."""

    def __init__(self, code: SparseSignCode, height: float):
        self.code, self.height = code, height
        self.shape = (code.size, code.d)
        self.ndim = 2

    def __len__(self) -> int:
        return self.code.size

    def __getitem__(self, v):
        idx = np.asarray(v, dtype=np.int64)
        out = self.height * self.code.vectors(idx.reshape(-1))
        return out[0] if idx.ndim == 0 else out


def _log_value(logp: float, n: int, epsilon: float, delta: float, M: int, expo: float) -> float:
    p = math.exp(logp)
    L = private_multipoint_error(n, p, epsilon, M, delta)
    return expo * logp + math.log(L) if L > 0 else -math.inf


def _optimal_p(n: int, epsilon: float, delta: float, M: int, k: float) -> float:
    """argmax_p p^{2-2/k} L(p): log of it is concave in p (L = 1 - convex increasing), so one bracketing grid
    plus a bounded scalar search finds the maximum."""
    expo = 2.0 - 2.0 / k
    grid = np.linspace(math.log(1e-6 / (n * epsilon)), math.log(0.999), 400)
    vals = [_log_value(g, n, epsilon, delta, M, expo) for g in grid]
    i = int(np.argmax(vals))
    if not np.isfinite(vals[i]):
        raise ValueError(
            f"the bound is vacuous at n={n}, epsilon={epsilon}, delta={delta}, |V|={M} "
            "(delta too large for this code size)"
        )
    lo, hi = grid[max(i - 1, 0)], grid[min(i + 1, len(grid) - 1)]
    res = optimize.minimize_scalar(
        lambda lp: -_log_value(lp, n, epsilon, delta, M, expo),
        bounds=(lo, hi),
        method="bounded",
        options={"xatol": 1e-10},
    )
    best = float(res.x) if -res.fun >= vals[i] else float(grid[i])
    return math.exp(best)


@dataclass
class SparseMeanPacking(HardInstance):
    """A :class:`HardInstance` whose members are the spike mixtures over a :class:`SparseSignCode`.

    ``thetas[v]`` decodes member v's mean (the family has q^k members); ``loss(estimates, v)`` is the ℓ2 error to
    θ_v; the bound is :meth:`HardInstance.bound` (method ``private_multipoint``, squared-ℓ2 risk
    ``radius² · prob``). Built by :func:`sparse_mean_packing`.

    Parameters
    ----------
    name : str
        Label of the instance in reports.
    assumption : MomentAssumption
        The coordinate-wise raw moment assumption.
    n : int
        Sample size of one dataset.
    epsilon : float
        Privacy level ε.
    delta : float
        Privacy level δ.
    thetas : array_like
        Member means θ_v, shape (q^k, d); decoded lazily on indexing.
    sampler : callable
        ``sampler(v, size, rng)`` returns ``size`` datasets of member ``v``, shape (size, n, d).
    radius : float
        Test radius r: half the guaranteed separation of the member means.
    method : str
        The argument giving the bound (``"private_multipoint"``).
    risk : str, default "abs"
        The loss of the bound's value (``"sq"``: squared ℓ2).
    coupling_q : float, optional
        Per-record probability that a record differs from the all-zero dataset (the spike probability p).
    tv_n : float, optional
        Unused here (no total-variation bound).
    coupling_sampler : callable, optional
        ``coupling_sampler(reps, rng)`` draws ``reps`` Hamming distances to the all-zero dataset, Bin(n, p).
    provenance : Provenance, default PROV_ASZ
        Where the construction comes from.
    notes : str, default ""
        Description of the code and of p, A and a, carried into check details.
    loss : callable, optional
        ``loss(estimates, v)``: ℓ2 distance of estimates (reps, d) to θ_v.
    fano_q : dict, optional
        Unused here (no reference-Fano bound).
    moment_stat : callable, optional
        Unused here (the moments are exact, :meth:`exact_moments`).
    code : SparseSignCode, optional
        The code whose sign vectors z_v give the members.
    p : float, default 0.0
        Spike probability.
    atom : float, default 0.0
        Height A of the spike: a record is 0 or A·z_v.
    amplitude : float, default 1.0
        Scale a ∈ (0, 1] of the atoms relative to the moment budget.
    moment_k : float, default 2.0
        Order k of the moment assumption.
    moment_bound : float, default 1.0
        The bound M_k on every coordinate's raw k-th moment.
    """

    code: SparseSignCode | None = None
    p: float = 0.0
    atom: float = 0.0
    amplitude: float = 1.0
    moment_k: float = 2.0
    moment_bound: float = 1.0

    def member_means(self, members: ArrayLike) -> np.ndarray:
        """Means θ_v of members.

        Parameters
        ----------
        members : array_like of int
            Member indices, flattened to shape (N,).

        Returns
        -------
        numpy.ndarray
            θ_v = p·A·z_v, shape (N, d).
        """
        return self.p * self.atom * self.code.vectors(members)

    def sample_members(self, members: ArrayLike, *, rng: np.random.Generator) -> np.ndarray:
        """One n-sample dataset per member index (vectorised).

        Parameters
        ----------
        members : array_like of int
            Member indices, flattened to shape (N,).
        rng : numpy.random.Generator
            The generator of the spikes.

        Returns
        -------
        numpy.ndarray
            Datasets of shape (N, n, d); each record is 0 or A·z_v.
        """
        check_rng(rng)
        z = self.code.vectors(members)
        on = rng.random((z.shape[0], self.n)) < self.p
        return on[:, :, None] * (self.atom * z)[:, None, :]

    def exact_moments(self) -> dict:
        """The laws' exact moments: on the support E X_j = pA·z_j, E|X_j|^k = a^k M_k, central k-th moment
        (1-p)(pA)^k + p((1-p)A)^k; off the support X_j = 0.

        Returns
        -------
        dict
            ``mean_abs`` (pA), ``raw_k``, ``central_k``, ``second`` (E X_j²), ``k`` and ``bound`` (M_k), on the
            support.
        """
        A, p, k = self.atom, self.p, self.moment_k
        return {
            "mean_abs": p * A,
            "raw_k": p * A**k,
            "central_k": (1 - p) * (p * A) ** k + p * ((1 - p) * A) ** k,
            "second": p * A**2,
            "k": k,
            "bound": self.moment_bound,
        }

    def self_test(self, *, rng: np.random.Generator, reps: int = 200, alpha: float = 1e-3) -> dict:
        """Structural exactness (every record is 0 or A·z_v, means p·A·z_v), the spike frequency against p (exact
        two-sided binomial test at ``alpha``) and the separation of ``reps`` random member pairs ≥ 2·radius.

        Parameters
        ----------
        rng : numpy.random.Generator
            The generator of the members and datasets.
        reps : int, default 200
            Number of members drawn (one dataset each) and of random member pairs.
        alpha : float, default 1e-3
            Level of the spike-frequency test.

        Returns
        -------
        dict
            ``records_exact``, ``spike_rate``, ``spike_p_value``, ``spike_ok``, ``separation_ok``,
            ``min_sampled_separation``, and ``ok`` (their conjunction).
        """
        check_rng(rng)
        members = self.code.draw(reps, rng=rng)
        data = self.sample_members(members, rng=rng)
        z = self.code.vectors(members)
        spike = np.any(data != 0, axis=2)
        exact = bool(
            np.all(data[spike] == np.repeat(self.atom * z, self.n, axis=0)[spike.ravel()]) and np.all(data[~spike] == 0)
        )
        count = int(spike.sum())
        pval = float(sst.binomtest(count, spike.size, self.p).pvalue)
        others = self.code.draw(reps, rng=rng)
        keep = others != members
        sep = np.linalg.norm(self.member_means(members[keep]) - self.member_means(others[keep]), axis=1)
        sep_ok = bool(sep.size == 0 or sep.min() >= 2 * self.radius * (1 - 1e-12))
        out = {
            "records_exact": exact,
            "spike_rate": count / spike.size,
            "spike_p_value": pval,
            "spike_ok": pval > alpha,
            "separation_ok": sep_ok,
            "min_sampled_separation": float(sep.min()) if sep.size else None,
        }
        out["ok"] = bool(exact and out["spike_ok"] and sep_ok)
        return out


def sparse_mean_packing(
    d: int,
    s: int,
    n: int,
    epsilon: float,
    delta: float,
    *,
    moment: float = 1.0,
    k: float = 2.0,
    amplitude: float = 1.0,
    p: float | None = None,
    message_length: int | None = None,
) -> SparseMeanPacking:
    """The (ε, δ)-DP hard instance for s-sparse mean estimation under E|X_j|^k ≤ ``moment`` for every j.

    Members: (1-p)δ_0 + pδ_{A z_v}, A = a(M_k/p)^{1/k}, z_v from :func:`sparse_sign_code`; radius
    r = pA·√(min_sq_distance)/2; bound on avg_v E‖θ̂-θ_v‖₂²: r²·L(p) (module docstring). ``p=None`` maximises it.
    ``amplitude`` a ∈ (0, 1] (1: the atoms use the whole moment budget; 1/√(2s): the printed proof's v = z/√(2s)).
    ``moment`` is τ for k = 2. The moment assumption is recorded as raw coordinate moments
    (``MomentAssumption("coordinate", k, moment, central=False)``); central moments are ≤ the raw ones here.

    Parameters
    ----------
    d : int
        Dimension.
    s : int
        Sparsity of the means (1 ≤ s ≤ d).
    n : int
        Sample size.
    epsilon : float
        Privacy level ε.
    delta : float
        Privacy level δ.
    moment : float, default 1.0
        The bound M_k on every coordinate's k-th moment.
    k : float, default 2.0
        Moment order (≥ 2).
    amplitude : float, default 1.0
        Scale a ∈ (0, 1] of the atoms.
    p : float, optional
        Spike probability; ``None``: the value maximising the bound.
    message_length : int, optional
        Message length of the code (see :func:`sparse_sign_code`).

    Returns
    -------
    SparseMeanPacking
        The instance.
    """
    d = check_int("d", d, minimum=1)
    s = check_int("s", s, minimum=1)
    n = check_int("n", n, minimum=1)
    epsilon = check_positive("epsilon", epsilon)
    delta = check_prob("delta", delta, open_low=False)
    moment = check_positive("moment", moment)
    k = check_positive("k", k)
    if k < 2:
        raise ValueError(f"k must be >= 2 (the central-moment argument needs it), got {k}")
    amplitude = check_positive("amplitude", amplitude)
    if amplitude > 1:
        raise ValueError(f"amplitude must lie in (0, 1] (the moment bound), got {amplitude}")
    code = sparse_sign_code(d, s, message_length=message_length)
    if p is None:
        p = _optimal_p(n, epsilon, delta, code.size, k)
    p = check_prob("p", p, open_high=True)
    atom = amplitude * (moment / p) ** (1.0 / k)
    height = p * atom
    radius = height * math.sqrt(code.min_sq_distance) / 2.0
    thetas = _CodeThetas(code, height)

    def sampler(v, size, rng):
        return inst.sample_members(np.full(size, v, dtype=np.int64), rng=rng)

    def coupling(reps, rng):
        return rng.binomial(n, p, size=reps)

    def loss(est, v):
        return np.linalg.norm(np.asarray(est, dtype=float) - thetas[v], axis=-1)

    inst = SparseMeanPacking(
        name=f"sparse_mean_packing(d={d}, s={s}, n={n}, eps={epsilon:g}, delta={delta:g}, k={k:g})",
        assumption=MomentAssumption("coordinate", k, moment, central=False),
        n=n,
        epsilon=epsilon,
        delta=delta,
        thetas=thetas,
        sampler=sampler,
        radius=radius,
        method="private_multipoint",
        risk="sq",
        coupling_q=p,
        coupling_sampler=coupling,
        provenance=PROV_SPARSE,
        loss=loss,
        notes=(
            f"Reed-Solomon code q={code.q}, k={code.k}: |V|={code.size}, block distance "
            f"{code.min_block_distance}; p={p:.4g}, atom A={atom:.4g}, amplitude a={amplitude:.4g}"
        ),
        code=code,
        p=p,
        atom=atom,
        amplitude=amplitude,
        moment_k=k,
        moment_bound=moment,
    )
    return inst


def sparse_mean_closed_form(
    n: int,
    d: int,
    s: int,
    epsilon: float,
    delta: float,
    *,
    moment: float = 1.0,
    amplitude: float = 1.0,
    message_length: int | None = None,
) -> dict:
    """Closed-form lower bound (k = 2) on the worst-case E‖θ̂ - θ‖₂² over s-sparse means with E X_j² ≤ τ::

        value = a² τ D u / (8 n (e^ε - 1)),   u = min{ log(|V|/4), ½ log((e^ε - 1)/(4δ)) },

    D = min squared code distance (≥ s), ``|V|`` the code size (log ``|V|`` ≈ (s/2 + 1) log(2d/s)). So the rate is
    τ s min{s log(d/s), log(1/δ)}/(nε) with the constant stated. *Proof.* Take p = u/(n(e^ε - 1)) (≤ 1 is required).
    With (1 + x)^m ≤ e^{mx}: ``(1 - p + pe^ε)^n/|V| ≤ e^u/|V| ≤ 1/4``, and δ n p (1 - p + pe^ε)^{n-1} ≤
    δ u e^u/(e^ε - 1) ≤ δ e^{2u}/(e^ε - 1) ≤ 1/4; so L(p) ≥ 1/2 and r²L ≥ (pA)² D/8 = a² τ p D/8.  ∎
    It is ≤ the exact value of :func:`sparse_mean_packing` (which maximises over p). Returns the value and parts;
    ``value`` is 0 when u ≤ 0 (δ too large or the code too small) or p > 1.

    Parameters
    ----------
    n : int
        Sample size.
    d : int
        Dimension.
    s : int
        Sparsity of the means.
    epsilon : float
        Privacy level ε.
    delta : float
        Privacy level δ (> 0).
    moment : float, default 1.0
        The bound τ on every coordinate's second moment.
    amplitude : float, default 1.0
        Scale a of the atoms.
    message_length : int, optional
        Message length of the code (see :func:`sparse_sign_code`).

    Returns
    -------
    dict
        ``value``, ``u``, ``u_code``, ``u_privacy``, ``p``, ``code_size``, ``min_sq_distance`` and ``binding``
        (``"code"`` or ``"delta"``: which term of the minimum defines u).
    """
    n = check_int("n", n, minimum=1)
    epsilon = check_positive("epsilon", epsilon)
    delta = check_prob("delta", delta)
    tau = check_positive("moment", moment)
    a = check_positive("amplitude", amplitude)
    code = sparse_sign_code(d, s, message_length=message_length)
    em1 = math.expm1(epsilon)
    u_code, u_priv = math.log(code.size / 4), 0.5 * math.log(em1 / (4 * delta))
    u = min(u_code, u_priv)
    p = u / (n * em1)
    ok = u > 0 and p <= 1
    value = a**2 * tau * code.min_sq_distance * u / (8 * n * em1) if ok else 0.0
    return {
        "value": value,
        "u": u,
        "u_code": u_code,
        "u_privacy": u_priv,
        "p": p,
        "code_size": code.size,
        "min_sq_distance": code.min_sq_distance,
        "binding": "code" if u_code <= u_priv else "delta",
    }
