"""s-sparse heavy-tailed mean estimation under (ε, δ)-DP: a spike-mixture packing over an explicit sparse code.

The construction is the one behind the (ε, δ)-private lower bound for s-sparse mean estimation under a
coordinate-wise moment bound (Hu, Ni, Xiao & Wang 2022, Thm 9 and its proof, which extend Barber & Duchi 2014,
Prop. 4, with the sparse packing lemma of Raskutti, Wainwright & Yu 2011):

* reference law P_0 = δ_0 (every record is the zero vector);
* member v of a packing: P_v = (1 - p) δ_0 + p δ_{A z_v}, with z_v ∈ {0, ±1}^d s-sparse and the atom height
  A = a·(M_k / p)^{1/k}; then E|X_j|^k = a^k M_k on the support of z_v and 0 elsewhere, so every coordinate's
  k-th raw moment is ≤ M_k (the central one too, for k ≥ 2: (1-p)(pA)^k + p((1-p)A)^k ≤ p A^k); the mean
  θ_v = p A z_v is s-sparse;
* coupling of every member's n-sample law with the all-zero dataset: the records differ exactly where the spike
  fires, H ~ Bin(n, p).

The private multi-point bound of :mod:`htdp_verify.lowerbounds` (group privacy along that coupling) then gives, for
every (ε, δ)-DP estimator, with members 2r apart and drawn uniformly::

    avg_v P_v(‖θ̂ - θ_v‖₂ ≥ r) ≥ L(p) = 1 - (1 - p + p e^ε)^n / |V| - δ n p (1 - p + p e^ε)^{n-1},

and by Markov avg_v E_v‖θ̂ - θ_v‖₂² ≥ r² L(p) (the squared-ℓ2 minimax risk). Every constant is explicit; p is
chosen to maximise r(p)² L(p) (a unimodal function of p, so the optimum is found to optimiser precision).

Differences from the proof as printed (all make the bound *valid*; none uses an unknown constant):

* the packing is an explicit Reed–Solomon code (:class:`SparseSignCode`), not the existence statement of the
  sparse Gilbert–Varshamov lemma: ``|V| = q^k`` and the block distance s - k + 1 ≥ s/2 are exact, so members can be
  drawn uniformly and the separation is guaranteed;
* the separation is computed from the code (‖z - z'‖₂² ≥ D = 2(s - k + 1) ≥ s), and the test radius is *half* of
  it, r = pA√D/2 (the nearest-member test errs only when the error is ≥ half the separation);
* ``amplitude`` a = 1 scales the atoms to the moment bound (E X_j² = τ exactly on the support). The printed proof
  uses v = z/√(2s) (a = 1/√(2s), E X_j² = τ/(2s)): pass that to reproduce it; it loses a factor 2s.

:func:`sparse_mean_closed_form` states it in closed form for k = 2 (proof in its docstring; ≤ the exact value):
a²τD·min{log(``|V|``/4), ½ log((e^ε-1)/(4δ))}/(8n(e^ε-1)),
i.e. τ s min{s log(d/s), log(1/δ)}/(nε) with every constant
explicit (log ``|V|`` ≈ (s/2 + 1) log(2d/s)).

Checks: :func:`packing_cannot_beat` (exact binomial test with a power design: consistent / violated /
inconclusive) and :func:`packing_risk_ratio` (measured risk over the bound across a swept parameter; descriptive).
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike
from scipy import optimize
from scipy import stats as sst

from .. import stats
from .._validate import check_int, check_positive, check_prob, check_rng
from ..claims import Provenance
from ..results import CheckResult
from .coupling import private_multipoint_error
from .instance import HardInstance, MomentAssumption

__all__ = [
    "SparseSignCode",
    "sparse_sign_code",
    "SparseMeanPacking",
    "sparse_mean_packing",
    "sparse_mean_closed_form",
    "packing_cannot_beat",
    "packing_risk_ratio",
]

PROV_SPARSE = Provenance(
    "Barber & Duchi 2014 (Prop. 4); Hu, Ni, Xiao & Wang 2022 (Thm 9's construction)",
    "s-sparse heavy-tailed mean, (ε, δ)-DP spike-mixture packing",
    "",
    "explicit Reed-Solomon packing; private multi-point bound with the exact coupling MGF",
)
_MAX_CODE = 2**62  # members are indexed by int64


# ------------------------------------------------------------------------------------------------------------
# the explicit sparse code
# ------------------------------------------------------------------------------------------------------------
def _largest_prime_at_most(m: int) -> int:
    for c in range(m, 1, -1):
        if all(c % f for f in range(2, math.isqrt(c) + 1)):
            return c
    return 0


@dataclass(frozen=True)
class SparseSignCode:
    """Reed–Solomon code over F_q mapped to s-sparse sign vectors in {0, ±1}^d.

    [d] is cut into s blocks of B = ⌊d/s⌋ coordinates (the last d - sB coordinates are never used). A message
    m ∈ F_q^k is encoded as c_b = Σ_i m_i b^i mod q for b = 0..s-1 (q prime, q ≥ s, so the s evaluation points
    are distinct); symbol c_b puts the sign (-1)^{c_b mod 2} on coordinate b·B + ⌊c_b/2⌋ of block b (needs
    q ≤ 2B). Two distinct codewords differ in ≥ s - k + 1 blocks (a non-zero polynomial of degree < k has < k
    roots); in a differing block the two vectors differ by two unit entries or by one entry of size 2, so
    ‖z - z'‖₂² ≥ 2(s - k + 1) (:attr:`min_sq_distance`). Members are indexed 0..q^k - 1 (base-q digits).

    Parameters
    ----------
    d : int
        Dimension of the sign vectors.
    s : int
        Number of non-zero entries of every vector (one per block).
    q : int
        The prime size of the field F_q, with s ≤ q ≤ 2⌊d/s⌋.
    k : int
        Message length: the number of F_q symbols of a message (the code has q^k members).
    """

    d: int
    s: int
    q: int
    k: int

    @property
    def block(self) -> int:
        return self.d // self.s

    @property
    def size(self) -> int:
        return self.q**self.k

    @property
    def min_block_distance(self) -> int:
        return self.s - self.k + 1

    @property
    def min_sq_distance(self) -> float:
        """Guaranteed lower bound on min ‖z_v - z_v'‖₂² over distinct members."""
        return 2.0 * self.min_block_distance

    def digits(self, members: ArrayLike) -> np.ndarray:
        """Base-q digits of member indices.

        Parameters
        ----------
        members : array_like of int
            Member indices in [0, q^k - 1], flattened to shape (N,).

        Returns
        -------
        numpy.ndarray
            The messages, int64 of shape (N, k), least significant digit first.
        """
        m = np.asarray(members, dtype=np.int64).reshape(-1)
        if m.size and (m.min() < 0 or m.max() >= self.size):
            raise ValueError(f"members must lie in [0, {self.size - 1}]")
        return (m[:, None] // (self.q ** np.arange(self.k, dtype=np.int64))[None, :]) % self.q

    def symbols(self, members: ArrayLike) -> np.ndarray:
        """Codeword symbols in F_q of the members.

        Parameters
        ----------
        members : array_like of int
            Member indices in [0, q^k - 1], flattened to shape (N,).

        Returns
        -------
        numpy.ndarray
            The symbols c_b, int64 of shape (N, s).
        """
        dig = self.digits(members)
        pts = np.arange(self.s, dtype=np.int64)
        vander = (pts[None, :] ** np.arange(self.k, dtype=object)[:, None]) % self.q  # exact powers mod q
        return (dig @ vander.astype(np.int64)) % self.q

    def vectors(self, members: ArrayLike) -> np.ndarray:
        """The sparse sign vectors z_v of the members.

        Parameters
        ----------
        members : array_like of int
            Member indices in [0, q^k - 1], flattened to shape (N,).

        Returns
        -------
        numpy.ndarray
            Vectors in {0, ±1}^d, float of shape (N, d).
        """
        sym = self.symbols(members)
        n = sym.shape[0]
        z = np.zeros((n, self.d))
        cols = np.arange(self.s)[None, :] * self.block + sym // 2
        z[np.arange(n)[:, None], cols] = np.where(sym % 2 == 0, 1.0, -1.0)
        return z

    def draw(self, size: int, *, rng: np.random.Generator) -> np.ndarray:
        """Member indices drawn uniformly.

        Parameters
        ----------
        size : int
            Number of indices (≥ 1).
        rng : numpy.random.Generator
            The generator.

        Returns
        -------
        numpy.ndarray
            ``size`` independent indices in [0, q^k - 1], int64.
        """
        check_rng(rng)
        return rng.integers(0, self.size, size=check_int("size", size, minimum=1), dtype=np.int64)


def sparse_sign_code(d: int, s: int, *, message_length: int | None = None) -> SparseSignCode:
    """The code used by :func:`sparse_mean_packing`: q = the largest prime ≤ 2⌊d/s⌋ (must be ≥ max(s, 2)) and
    k = ⌊s/2⌋ + 1 message symbols (block distance ⌈s/2⌉ ≥ s/2, as in the sparse packing lemma), lowered if needed
    so that q^k ≤ 2^62.

    Parameters
    ----------
    d : int
        Dimension.
    s : int
        Sparsity (1 ≤ s ≤ d).
    message_length : int, optional
        Overrides the message length k (1 ≤ k ≤ s and q^k ≤ 2^62).

    Returns
    -------
    SparseSignCode
        The code.
    """
    d = check_int("d", d, minimum=1)
    s = check_int("s", s, minimum=1)
    if s > d:
        raise ValueError(f"s must lie in [1, d={d}], got {s}")
    q = _largest_prime_at_most(2 * (d // s))
    if q < max(s, 2):
        need = next(dd for dd in range(d, 10**9) if _largest_prime_at_most(2 * (dd // s)) >= max(s, 2))
        raise ValueError(
            f"d must be >= {need} for s = {s} (the code needs a prime q with s <= q <= 2*floor(d/s)), got d={d}"
        )
    k_cap = max(1, int(math.floor(math.log(_MAX_CODE) / math.log(q) + 1e-12)))
    if message_length is None:
        k = min(s // 2 + 1, k_cap)
    else:
        k = check_int("message_length", message_length, minimum=1)
        if k > min(s, k_cap):
            raise ValueError(f"message_length must lie in [1, {min(s, k_cap)}] (k <= s and q^k <= 2^62), got {k}")
    return SparseSignCode(d, s, q, k)


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


# ------------------------------------------------------------------------------------------------------------
# checks
# ------------------------------------------------------------------------------------------------------------
_CHUNK_BYTES = 2**26  # at most 64 MiB of datasets in memory at once


def _errors_for(estimate_fn, inst: SparseMeanPacking, members, rng, chunk: int) -> np.ndarray:
    chunk = max(1, min(chunk, _CHUNK_BYTES // (8 * inst.n * inst.code.d)))
    errs = []
    for start in range(0, len(members), chunk):
        mem = members[start : start + chunk]
        data = inst.sample_members(mem, rng=rng)
        est = np.asarray(estimate_fn(data, rng=rng), dtype=float).reshape(len(mem), -1)
        errs.append(np.linalg.norm(est - inst.member_means(mem), axis=1))
    return np.concatenate(errs)


def _power(trials: int, bound: float, alpha: float, rate: float) -> tuple[int, float]:
    """Critical count c = max{K : CP upper(K) < bound} (−1 if none) and P[Bin(trials, rate) ≤ c]."""
    ks = np.arange(trials + 1)
    ub = np.asarray(stats.cp_upper(ks, np.full_like(ks, trials), alpha))
    below = np.nonzero(ub < bound)[0]
    c = int(below[-1]) if below.size else -1
    return c, float(sst.binom.cdf(c, trials, rate)) if c >= 0 else 0.0


def packing_cannot_beat(
    estimate_fn: Callable[..., Any],
    inst: SparseMeanPacking,
    *,
    trials: int,
    rng: np.random.Generator,
    alpha: float = 0.05,
    effect: float = 0.5,
    power: float = 0.8,
    chunk: int = 64,
    name: str = "lowerbound.cannot_beat.sparse_mean",
    out_dir: str | os.PathLike[str] | None = None,
    label: str = "estimator",
) -> CheckResult:
    """Is the estimator's P(‖θ̂ - θ_v‖ ≥ r) significantly below the bound L? (an (ε, δ)-DP estimator cannot be).

    ``estimate_fn(datasets, rng=...)`` maps a stack (N, n, d) to estimates (N, d). Design: ``trials`` members are
    drawn uniformly, one dataset each, so the count of errors ≥ r is exactly Binomial(trials, π) with
    π = avg_v P_v(error ≥ r) ≥ L for a private estimator. Verdict at level ``alpha``: ``violated`` when the one-sided
    Clopper–Pearson upper bound of π is < L (false-alarm probability ≤ α for any (ε, δ)-DP estimator);
    otherwise ``consistent`` when the design detects π = ``effect``·L with probability ≥ ``power`` (the smallest
    effect detected is stated in ``details``), else ``inconclusive``.  With ``out_dir``, a figure of the errors'
    empirical survival function against the radius r and the bound L is written there (named after ``name``).

    Parameters
    ----------
    estimate_fn : callable
        The estimator under test, ``estimate_fn(datasets, rng=...)``.
    inst : SparseMeanPacking
        The hard instance.
    trials : int
        Number of members drawn (one dataset each).
    rng : numpy.random.Generator
        The generator of the members, the datasets and the estimator's noise.
    alpha : float, default 0.05
        Level of the test.
    effect : float, default 0.5
        The power design's alternative, as a fraction of L.
    power : float, default 0.8
        Power the design must reach at ``effect``·L for a ``consistent`` verdict.
    chunk : int, default 64
        Datasets per call of ``estimate_fn`` (fewer when they would exceed 64 MiB).
    name : str, default "lowerbound.cannot_beat.sparse_mean"
        Name of the check (and of the figure file).
    out_dir : str or os.PathLike, optional
        Directory of the figure; ``None``: no figure.
    label : str, default "estimator"
        Name of the estimator in the figure's legend.

    Returns
    -------
    CheckResult
        The verdict, with the count, the bound and the power design in ``details``.
    """
    check_rng(rng)
    trials = check_int("trials", trials, minimum=1)
    alpha = check_prob("alpha", alpha)
    effect = check_prob("effect", effect)
    power = check_prob("power", power)
    chunk = check_int("chunk", chunk, minimum=1)
    t0 = time.perf_counter()
    b = inst.bound()
    members = inst.code.draw(trials, rng=rng)
    err = _errors_for(estimate_fn, inst, members, rng, chunk)
    count = int(np.sum(err >= inst.radius * (1 - 1e-12)))
    ub = float(stats.cp_upper(count, trials, alpha))
    crit, pw = _power(trials, b.prob, alpha, effect * b.prob)
    if ub < b.prob:
        verdict, what = "violated", "beats a valid (ε, δ)-DP lower bound: the estimator is not private as claimed"
    elif pw >= power:
        verdict, what = "consistent", "does not beat the bound"
    else:
        verdict, what = "inconclusive", f"does not beat the bound, but the run had power {pw:.2f} < {power}"
    figures = []
    if out_dir is not None:
        figures.append(_survival_figure(err, inst.radius, b.prob, ub, out_dir, name, label))
    return CheckResult(
        name=name,
        verdict=verdict,
        statistic="P(error >= r) upper bound",
        estimate=count / trials,
        figures=figures,
        interval=(0.0, ub),
        alpha=alpha,
        claim=inst.claim(),
        n_samples=trials,
        seconds=time.perf_counter() - t0,
        provenance=inst.provenance,
        summary=(
            f"on {inst.name}: P(‖θ̂-θ‖ ≥ {inst.radius:.3g}) ≤ {ub:.3g} at {100 * (1 - alpha):.0f}% vs the "
            f"lower bound {b.prob:.3g} → {what}"
        ),
        details={
            "count": count,
            "trials": trials,
            "bound": b.__dict__,
            "instance": inst.notes,
            "design": {
                "alpha": alpha,
                "critical_count": crit,
                "effect_rate": effect * b.prob,
                "power_at_effect": pw,
                "required_power": power,
            },
            "mean_sq_error": float(np.mean(err**2)),
            "risk_bound": b.value,
            "median_error_over_radius": float(np.median(err) / inst.radius),
        },
    )


def _survival_figure(err: np.ndarray, radius: float, prob: float, ub: float, out_dir, name: str, label: str) -> str:
    """Empirical P(error ≥ x) of the trials, the test radius r and the private lower bound L at r."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    x = np.sort(np.asarray(err, float))
    surv = 1.0 - np.arange(x.size) / x.size
    fig, ax = plt.subplots(figsize=(5.5, 3.6))
    ax.step(np.maximum(x, radius * 1e-3), surv, where="post", label=f"{label}: P(error ≥ x)")
    ax.axvline(radius, color="grey", ls=":", label=f"test radius r = {radius:.3g}")
    ax.plot([radius], [prob], "v", color="C3", ms=9, label=f"private lower bound L = {prob:.3g}")
    ax.plot([radius], [ub], "_", color="C0", ms=14, mew=2, label=f"upper confidence bound {ub:.3g}")
    ax.set_xscale("log")
    ax.set_ylim(-0.02, 1.02)
    ax.set_xlabel("error ‖θ̂ − θ_v‖₂")
    ax.set_ylabel("fraction of trials")
    ax.set_title("cannot-beat: a private estimator's curve stays ≥ L at r", fontsize=9)
    ax.legend(fontsize=7, loc="lower left")
    fig.tight_layout()
    fname = f"{name}.png"
    fig.savefig(f"{out_dir}/{fname}", dpi=110)
    plt.close(fig)
    return fname


def packing_risk_ratio(
    estimate_fn: Callable[..., Any],
    make_instance: Callable[[int], SparseMeanPacking],
    values: ArrayLike,
    *,
    reps: int,
    rng: np.random.Generator,
    variable: str = "n",
    chunk: int = 64,
    out_dir: str | os.PathLike[str] | None = None,
    label: str = "",
    name: str = "lowerbound.optimality.sparse_mean",
    n_boot: int = 300,
) -> CheckResult:
    """Bayes risk under the uniform prior over the members (avg_v E_v‖θ̂ - θ_v‖², which the bound also bounds)
    divided by the bound, swept over ``values`` of ``variable`` (``make_instance(value)`` builds each instance).

    Descriptive (verdict ``info``): the log-log slope of the ratio (bootstrap 95% interval over replications)
    says how the estimator's risk scales relative to the bound; a ratio < 1 would contradict the bound (use
    :func:`packing_cannot_beat` for the certified version).

    Parameters
    ----------
    estimate_fn : callable
        The estimator, ``estimate_fn(datasets, rng=...)`` mapping a stack (N, n, d) to estimates (N, d).
    make_instance : callable
        ``make_instance(value)`` builds the :class:`SparseMeanPacking` at one value of the swept variable.
    values : array_like of int
        The values of the swept variable (each ≥ 1).
    reps : int
        Members drawn per value (one dataset each, ≥ 2).
    rng : numpy.random.Generator
        The generator of the members, datasets, estimator noise and bootstrap.
    variable : str, default "n"
        Name of the swept variable.
    chunk : int, default 64
        Datasets per call of ``estimate_fn``.
    out_dir : str or os.PathLike, optional
        Directory of a log-log figure of risk and bound; ``None``: no figure.
    label : str, default ""
        Name of the estimator in the figure's legend.
    name : str, default "lowerbound.optimality.sparse_mean"
        Name of the check (and of the figure file).
    n_boot : int, default 300
        Bootstrap resamples for the slope's interval.

    Returns
    -------
    CheckResult
        Verdict ``info``: the slope and its interval, with one row per value in ``details``.
    """
    check_rng(rng)
    reps = check_int("reps", reps, minimum=2)
    t0 = time.perf_counter()
    vals = [check_int(variable, int(x), minimum=1) for x in values]
    rows, losses = [], []
    for x in vals:
        inst = make_instance(x)
        b = inst.bound()
        members = inst.code.draw(reps, rng=rng)
        sq = _errors_for(estimate_fn, inst, members, rng, chunk) ** 2
        losses.append((sq, b.value))
        rows.append(
            {
                variable: x,
                "risk": float(sq.mean()),
                "risk_se": float(sq.std(ddof=1) / math.sqrt(reps)),
                "bound": b.value,
                "ratio": float(sq.mean() / b.value),
                "bound_prob": b.prob,
            }
        )
    lx = np.log(vals)
    slope, lo, hi = float("nan"), float("nan"), float("nan")
    if len(vals) > 1:
        slope = float(np.polyfit(lx, np.log([r["ratio"] for r in rows]), 1)[0])
        boots = [
            np.polyfit(lx, np.log([rng.choice(sq, sq.size).mean() / bv for sq, bv in losses]), 1)[0]
            for _ in range(n_boot)
        ]
        lo, hi = float(np.quantile(boots, 0.025)), float(np.quantile(boots, 0.975))
    figs = []
    if out_dir is not None:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots(figsize=(5.5, 3.6))
        ax.loglog(vals, [r["risk"] for r in rows], "o-", label=f"risk {label}")
        ax.loglog(vals, [r["bound"] for r in rows], "s--", label="lower bound")
        ax.set_xlabel(variable)
        ax.set_ylabel("E‖θ̂-θ‖²")
        ax.set_title(f"{name}: ratio slope {slope:.2f} [{lo:.2f}, {hi:.2f}]", fontsize=8)
        ax.legend(fontsize=8)
        fig.tight_layout()
        fname = f"{name.replace('/', '_')}.png"
        fig.savefig(f"{out_dir}/{fname}", dpi=110)
        plt.close(fig)
        figs.append(fname)
    ratios = [r["ratio"] for r in rows]
    return CheckResult(
        name=name,
        verdict="info",
        statistic="risk / bound slope",
        estimate=slope,
        interval=(lo, hi),
        alpha=0.05,
        n_samples=reps * len(vals),
        seconds=time.perf_counter() - t0,
        provenance=PROV_SPARSE,
        summary=(
            f"risk / lower bound from {ratios[0]:.3g} ({variable}={vals[0]}) to {ratios[-1]:.3g} "
            f"({variable}={vals[-1]}); log-log slope {slope:.2f} (95% [{lo:.2f}, {hi:.2f}]); "
            "slope ≈ 0: the risk follows the bound's rate"
        ),
        details={"rows": rows, "variable": variable, "below_bound": [r[variable] for r in rows if r["ratio"] < 1]},
        figures=figs,
    )
