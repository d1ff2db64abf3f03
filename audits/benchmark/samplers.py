"""Vectorised samplers of the benchmark mechanisms (module-level functions so that they pickle), and the exact
helpers that go with them (the truncated geometric pmf, RAPPOR's hashing, the naive float Laplace's reachability,
SVT outcome probabilities).  Every sampler draws from the ``rng`` it is given and nothing else.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from .mechanism import NUMSVT_ABORT, SVT3_ABORT, SVT3_BELOW, SVT_ABORT


def _laplace(q, size, rng, *, scale):
    """Scalar Laplace: ``q[0] + Lap(scale)``; density ratio e^{|Δ|/scale} on a half-line."""
    return rng.laplace(q[0], scale, size)


def _geo_cdf(c: int, n: int, k: int) -> np.ndarray:
    """Integer CDF (times d) of Balcer & Vadhan's GeoSample at count ``c`` (closed form, exact integers).

    With α = 2^k/(2^k+1), β = (2^k+1)/(2^{k+1}+1) and d = (2^{k+1}+1)(2^k+1)^{n−1}:
    P(Z ≤ z) = β α^{c−z} for z < c and P(Z > z) = β α^{z−c+1} for c ≤ z < n; d·β·α^j = 2^{kj}(2^k+1)^{n−j}.
    """
    d = (2 ** (k + 1) + 1) * (2**k + 1) ** (n - 1)
    F = []
    for z in range(n + 1):
        if z < c:
            j = c - z
            F.append(2 ** (k * j) * (2**k + 1) ** (n - j))
        elif z < n:
            j = z - c + 1
            F.append(d - 2 ** (k * j) * (2**k + 1) ** (n - j))
        else:
            F.append(d)
    if d >= 2**62:
        raise ValueError(f"GeoSample denominator d={d} does not fit in int64; lower n or raise epsilon")
    return np.asarray(F, dtype=np.int64)


def geo_pmf(c: int, n: int = 5, k: int = 3) -> list[Fraction]:
    """Exact pmf (as fractions) of GeoSample at count ``c``; for tests and the true-ε derivation."""
    F = _geo_cdf(c, n, k).tolist()
    d = F[-1]
    return [Fraction(F[0], d)] + [Fraction(F[z] - F[z - 1], d) for z in range(1, n + 1)]


def _trunc_geometric(q, size, rng, *, n, k):
    """GeoSample (Balcer & Vadhan 2018, Alg. 4.8 as in DP-Sniper): inverse CDF on the integer table."""
    c = int(q[0])
    if not 0 <= c <= n:
        raise ValueError(f"query_input must be a count in [0, {n}] for TruncatedGeometric, got {c}")
    F = _geo_cdf(c, n, k)
    u = rng.integers(1, int(F[-1]) + 1, size=size, dtype=np.int64)
    return np.searchsorted(F, u, side="left").astype(np.int64)


def _noisy_hist(q, size, rng, *, scale):
    """Histogram + i.i.d. Lap(scale) per bin."""
    return q + rng.laplace(0.0, scale, (size, q.size))


def _report_noisy_max(q, size, rng, *, scale, noise, release):
    """Noisy max: q + Lap(scale) or q + Exp(scale); release the argmax index or the maximum value."""
    if noise == "laplace":
        z = rng.laplace(0.0, scale, (size, q.size))
    else:
        z = rng.exponential(scale, (size, q.size))
    z += q
    if release == "argmax":
        return np.argmax(z, axis=1).astype(np.int64)
    return z.max(axis=1)


def _svt_top(q, size, rng, *, b_rho, b_nu, T, c, redraw=False):
    """The ⊤ matrix (size, m) and the aborted mask of Lyu et al.'s SVT family.

    Query i is above when q_i + ν_i ≥ T + ρ; after the c-th ⊤ every entry is aborted (the c-th ⊤ itself is
    reported).  ``c=None``: no cutoff.  ``redraw``: a fresh ρ after each ⊤ (SVT2; a loop over the ≤ 10 columns).
    """
    m = q.size
    nu = rng.laplace(0.0, b_nu, (size, m)) if b_nu > 0 else np.zeros((size, m))
    nu += q
    if not redraw:
        rho = rng.laplace(0.0, b_rho, (size, 1))
        top = nu >= T + rho
    else:
        rho_all = rng.laplace(0.0, b_rho, (size, m + 1))  # candidate thresholds, one per ⊤ at most
        used = np.zeros(size, dtype=np.int64)
        top = np.empty((size, m), dtype=bool)
        rows = np.arange(size)
        for i in range(m):
            top[:, i] = nu[:, i] >= T + rho_all[rows, used]
            used += top[:, i]
    if c is None:
        aborted = np.zeros_like(top)
    else:
        prev = np.cumsum(top, axis=1, dtype=np.int16) - top
        aborted = prev >= c
    return top, aborted, nu


def _svt_codes(q, size, rng, *, b_rho, b_nu, T, c, redraw=False):
    """SVT1/2/4 output: int8 codes 1 = ⊤, 0 = ⊥, −1 = aborted (DP-Sniper's encoding)."""
    top, aborted, _ = _svt_top(q, size, rng, b_rho=b_rho, b_nu=b_nu, T=T, c=c, redraw=redraw)
    out = top.astype(np.int8)
    out[aborted] = SVT_ABORT
    return out


def _svt3(q, size, rng, *, b_rho, b_nu, T, c):
    """SVT3 output: the noisy answer q_i + ν_i on ⊤, −1000 on ⊥, −2000 when aborted."""
    top, aborted, noisy = _svt_top(q, size, rng, b_rho=b_rho, b_nu=b_nu, T=T, c=c)
    out = np.where(top, noisy, SVT3_BELOW)
    out[aborted] = SVT3_ABORT
    return out


def _svt_bits(q, size, rng, *, b_rho, b_nu, T):
    """SVT5/SVT6 output: 0/1 per query, no cutoff."""
    top, _, _ = _svt_top(q, size, rng, b_rho=b_rho, b_nu=b_nu, T=T, c=None)
    return top.astype(np.int8)


def _numerical_svt(q, size, rng, *, eps, c, T):
    """NumericalSVT (ShadowDP, PLDI 2019): ρ₁ ~ Lap(3/ε), ρ₂ ~ Lap(6c/ε) per query decides ⊤, an independent
    ρ₃ ~ Lap(3c/ε) per query is released on ⊤; 0.0 on ⊥, −1000 after the c-th ⊤."""
    top, aborted, _ = _svt_top(q, size, rng, b_rho=3.0 / eps, b_nu=6.0 * c / eps, T=T, c=c)
    val = rng.laplace(0.0, 3.0 * c / eps, (size, q.size))
    val += q
    out = np.where(top, val, 0.0)
    out[aborted] = NUMSVT_ABORT
    return out


def _svt34_parallel(q, size, rng, *, eps, c, T):
    """SVT3 and SVT4 (both at ε, cutoff c) on the same q with independent noise; [SVT3 block | SVT4 block]."""
    a = _svt3(q, size, rng, b_rho=2.0 / eps, b_nu=2.0 * c / eps, T=T, c=c)
    b = _svt_codes(q, size, rng, b_rho=4.0 / eps, b_nu=4.0 / (3.0 * eps), T=T, c=c)
    return np.concatenate([a, b.astype(float)], axis=1)


def _prefix_sum(q, size, rng, *, scale):
    """Running sums of q_i + Lap(scale)."""
    z = rng.laplace(0.0, scale, (size, q.size))
    z += q
    return np.cumsum(z, axis=1)


# -- RAPPOR ---------------------------------------------------------------------------------------------------
def murmur3_32(data: bytes | str, seed: int = 0) -> int:
    """MurmurHash3 x86 32-bit, signed like ``mmh3.hash`` (so DP-Sniper's ``mmh3.hash(str(v), s) % 20`` is
    reproduced without the dependency)."""
    if isinstance(data, str):
        data = data.encode("utf-8")
    M = 0xFFFFFFFF
    c1, c2 = 0xCC9E2D51, 0x1B873593

    def rotl(x, r):
        return ((x << r) | (x >> (32 - r))) & M

    h = seed & M
    nblocks = len(data) // 4
    for i in range(nblocks):
        k = int.from_bytes(data[4 * i : 4 * i + 4], "little")
        k = rotl((k * c1) & M, 15)
        h ^= (k * c2) & M
        h = (rotl(h, 13) * 5 + 0xE6546B64) & M
    tail = data[4 * nblocks :]
    k = 0
    if len(tail) >= 3:
        k ^= tail[2] << 16
    if len(tail) >= 2:
        k ^= tail[1] << 8
    if len(tail) >= 1:
        k ^= tail[0]
        k = rotl((k * c1) & M, 15)
        h ^= (k * c2) & M
    h ^= len(data)
    h ^= h >> 16
    h = (h * 0x85EBCA6B) & M
    h ^= h >> 13
    h = (h * 0xC2B2AE35) & M
    h ^= h >> 16
    return h - (1 << 32) if h & 0x80000000 else h


def rappor_bits(value, *, n_bits: int = 20, n_hashes: int = 4) -> frozenset:
    """Bloom-filter positions of ``value`` as DP-Sniper computes them: ``mmh3.hash(str(value), s) % n_bits`` for
    seeds ``s = 0..n_hashes-1`` (the value is an int, so ``str(1) == "1"``)."""
    s = str(int(value)) if float(value).is_integer() else str(value)
    return frozenset(murmur3_32(s, seed) % n_bits for seed in range(n_hashes))


def _rappor(q, size, rng, *, p1, p0, n_bits, n_hashes):
    """RAPPOR as one-shot report: each bit independently 1 with probability ``p1`` if set in the Bloom filter
    and ``p0`` otherwise (the PRR∘IRR composition in distribution; the PRR is redrawn per release)."""
    bits = rappor_bits(int(q[0]), n_bits=n_bits, n_hashes=n_hashes)
    prob = np.full(n_bits, p0)
    prob[list(bits)] = p1
    return (rng.random((size, n_bits)) < prob).astype(np.int8)


# -- floating-point Laplace ----------------------------------------------------------------------------------
def _log_reference(w: np.ndarray) -> np.ndarray:
    """The C library's ``log`` element by element (``math.log`` is CPython's call of libm's ``log``); ``-inf``
    at 0 and NaN below 0 or at NaN, like C."""
    w = np.asarray(w, dtype=float)
    out = np.full(w.shape, np.nan)
    pos = w > 0
    out[w == 0] = -np.inf
    out[pos] = np.frompyfunc(math.log, 1, 1)(w[pos]).astype(float)
    return out


def _calibration_points() -> np.ndarray:
    """Fixed inputs on which a vectorised log is compared with the C library's: both branches' ``w`` for 2^16
    grid values of U (seeded), the ends, and values just around 1 and 2."""
    u = np.random.default_rng(20261124).integers(1, 2**53, 2**16) * 2.0**-53
    w = np.where(u >= 0.5, 2.0 - u - u, u + u)
    ends = np.array(
        [2.0**-52, 2.0**-50, 0.5, 1.0, 2.0, np.nextafter(1.0, 0.0), np.nextafter(1.0, 2.0), np.nextafter(2.0, 0.0)]
    )
    return np.concatenate([w, ends])


_C_LOG = None


def _c_log_impl():
    """A vectorised function equal to the C library's ``log``: ``scipy.special.xlogy(1, w)`` (a plain
    ``1 · log(w)`` with the C library's log) when it agrees with :func:`_log_reference` on the calibration
    points, else :func:`_log_reference` itself (exact, ~0.25 µs per value).  ``np.log`` is never used: numpy's own
    SIMD log (AVX-512F builds) differs from the C library's in the last bit on about 0.3 % of inputs."""
    global _C_LOG
    if _C_LOG is None:
        impl = _log_reference
        try:
            from scipy.special import xlogy

            def fast(w):
                with np.errstate(divide="ignore", invalid="ignore"):
                    return xlogy(1.0, np.asarray(w, dtype=float))

            w = _calibration_points()
            if np.array_equal(fast(w), _log_reference(w)):
                impl = fast
        except ImportError:  # pragma: no cover - scipy is a dependency
            pass
        _C_LOG = impl
    return _C_LOG


def c_log(w) -> np.ndarray:
    """The C library's natural ``log`` of each double in ``w``, vectorised (what numpy's C samplers call)."""
    return _c_log_impl()(w)


def _naive_laplace_transform(u, loc, scale):
    """numpy's float64 inverse-CDF Laplace, as in ``random_laplace`` of numpy's
    ``random/src/distributions/distributions.c``: loc − b·log(2 − U − U) if U ≥ ½, else loc + b·log(U + U), with
    ``log`` the C library's (:func:`c_log`, not ``np.log``).  ``2 − U − U`` and ``U + U`` are exact in float64,
    so the only roundings are log, ×b and ±loc, each a single IEEE operation as in the C code."""
    u = np.asarray(u, dtype=float)
    hi = u >= 0.5
    w = np.where(hi, 2.0 - u - u, u + u)
    lw = c_log(w)
    return np.where(hi, loc - scale * lw, loc + scale * lw)


def _naive_float_laplace(q, size, rng, *, scale):
    """Naive float Laplace (Mironov 2012): U = ``rng.random()`` (a 53-bit grid on [0, 1)); U = 0 is redrawn as
    numpy does.  Porous support: loc = 0 and loc = 1 reach mostly disjoint sets of doubles."""
    u = rng.random(size)
    zero = u == 0.0
    while zero.any():  # probability 2^-53 per draw
        u[zero] = rng.random(int(zero.sum()))
        zero = u == 0.0
    return _naive_laplace_transform(u, q[0], scale)


def float_laplace_reachable(x, loc: float, scale: float, *, window: int = 4) -> np.ndarray:
    """Whether each double in ``x`` is an exact output of :func:`_naive_float_laplace` (numpy's
    ``Generator.laplace``, with the C library's log) at ``loc`` (vectorised).

    Inverts the transform to the 53-bit grid of U and tests the ``2·window+1`` nearest grid points on both
    branches for exact equality.  A fixed post-processing: an event built from it is chosen before any sample.
    """
    x = np.asarray(x, dtype=float)
    z = (x - loc) / scale
    out = np.zeros(x.shape, dtype=bool)
    with np.errstate(over="ignore", invalid="ignore"):
        u_hi = 1.0 - 0.5 * np.exp(-z)  # branch U ≥ 1/2
        u_lo = 0.5 * np.exp(z)  # branch U < 1/2
    for u_est, ok in ((u_hi, z >= 0), (u_lo, z <= 0)):
        j0 = np.floor(np.where(ok & np.isfinite(u_est), u_est, 0.5) * 2.0**53)
        for dj in range(-window, window + 1):
            j = j0 + dj
            u = j * 2.0**-53
            valid = ok & (j >= 1) & (j < 2.0**53)
            out |= valid & (_naive_laplace_transform(u, loc, scale) == x)
    return out


def _snapping_laplace(q, size, rng, *, eps, bound):
    """Mironov's snapping mechanism: clamp_B(round_Λ(clamp_B(a) + S·λ·ln U)), λ = (1 + B·2^−49)/ε, Λ the
    smallest power of 2 ≥ λ, U uniform on (0, 1] (``1 − rng.random()``), S = ±1."""
    lam = (1.0 + bound * 2.0**-49) / eps
    Lam = 2.0 ** math.ceil(math.log2(lam))
    a = min(max(q[0], -bound), bound)
    u = 1.0 - rng.random(size)
    s = np.where(rng.random(size) < 0.5, -1.0, 1.0)
    y = a + s * lam * np.log(u)
    y = Lam * np.round(y / Lam)
    return np.clip(y, -bound, bound)


# -- StatDP's reduced forms -----------------------------------------------------------------------------------
def _statdp_histogram0(q, size, rng, *, scale):
    """StatDP ``histogram`` / ``histogram_eps``: q + Lap(scale), release only bin 0."""
    return q[0] + rng.laplace(0.0, scale, size)


def _isvt_hamming(q, size, rng, *, b_rho, b_nu, T, c):
    """StatDP iSVT1–3 reduction: Hamming distance of the ⊤/⊥ answers to (⊤^{⌊m/2⌋}, ⊥^{m−⌊m/2⌋}); aborted
    positions count as mismatches."""
    top, aborted, _ = _svt_top(q, size, rng, b_rho=b_rho, b_nu=b_nu, T=T, c=c)
    m = q.size
    ref = np.zeros(m, dtype=bool)
    ref[: m // 2] = True
    return ((top != ref) | aborted).sum(axis=1).astype(np.int64)


def _isvt4(q, size, rng, *, b_rho, b_nu, T):
    """StatDP iSVT4 (= SVT3, N = 1): the pair (number of ⊥ before the first ⊤ or m, the noisy answer there or 0)."""
    top, _, noisy = _svt_top(q, size, rng, b_rho=b_rho, b_nu=b_nu, T=T, c=1)
    any_top = top.any(axis=1)
    first = np.where(any_top, np.argmax(top, axis=1), q.size)
    val = np.where(any_top, noisy[np.arange(size), np.minimum(first, q.size - 1)], 0.0)
    return np.stack([first.astype(float), val], axis=1)


# ---------------------------------------------------------------------------------------------------------
# Exact oracle for the SVT family (tests and pair-ε)
# ---------------------------------------------------------------------------------------------------------
def _lap_cdf(x, b):
    x = np.asarray(x, dtype=float)
    return np.where(x < 0, 0.5 * np.exp(np.minimum(x, 0) / b), 1 - 0.5 * np.exp(-np.maximum(x, 0) / b))


def svt_outcome_probability(q, outcome, *, b_rho, b_nu, T, grid: int = 200001, span: float = 80.0) -> float:
    """P(the ⊤/⊥ prefix ``outcome`` | q) for SVT with threshold noise Lap(b_rho) and query noise Lap(b_nu):
    ``∫ f_ρ(r) Π_{⊥} F_ν(r + T − q_i) Π_{⊤} S_ν(r + T − q_i) dr`` (spec §2.5), by the trapezoid rule on
    ±``span``·b_rho.  ``outcome`` is a sequence of 0/1 for the first ``len(outcome)`` queries (for c = 1 a run of
    0s ending in 1, or m 0s).  ``b_nu = 0`` gives the deterministic comparison (SVT5)."""
    q = np.asarray(q, dtype=float)
    r = np.linspace(-span * b_rho, span * b_rho, grid)
    dens = np.exp(-np.abs(r) / b_rho) / (2 * b_rho)
    for i, o in enumerate(outcome):
        x = r + T - q[i]
        F = _lap_cdf(x, b_nu) if b_nu > 0 else (x > 0).astype(float)
        dens = dens * (1.0 - F if o else F)
    return float(np.trapezoid(dens, r))
