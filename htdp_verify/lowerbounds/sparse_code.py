"""The explicit s-sparse sign code behind the sparse-mean packing: :class:`SparseSignCode`, :func:`sparse_sign_code`.

A Reed–Solomon code over GF(q) turned into s-sparse vectors in {0, ±1}^d (one nonzero per block of the support):
``|V| = q^k`` members indexed by int64, block distance s - k + 1 ≥ s/2, so members can be drawn uniformly and
their separation is exact. Used by :mod:`htdp_verify.lowerbounds.sparse_packing` (Hu, Ni, Xiao & Wang 2022, Thm 9,
with the sparse packing lemma of Raskutti, Wainwright & Yu 2011 made explicit); the overview of the construction is
in :mod:`htdp_verify.lowerbounds.sparse_mean`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from .._validate import check_int, check_rng

__all__ = ["SparseSignCode", "sparse_sign_code"]

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
