"""Ground-truth benchmark: the mechanisms DP-Sniper and StatDP are evaluated on, correct and buggy, with their
true ε, their input pairs and vectorised samplers.

Spec: ``shared/specs/benchmark_mechanisms.md`` (definitions, neighbour patterns, true ε, the [calc] pair-ε values)
and ``shared/specs/anchors_dp_auditing.md`` §3.1 (the published lower bounds of DP-Sniper and StatDP, cited
here as data: DP-Sniper's logs ``eth-sri/dp-sniper/eval_sp2021/reference-results``, 90 % confidence,
2·10⁸ final samples per side).

Each mechanism is a :class:`BenchMechanism`: a name, the claimed ε, the **true** ε of the implementation (derived;
the derivation is in ``true_epsilon_note``, ``math.inf`` for unbounded), the pair-ε over the tools' own input
pairs, the neighbour relation (``"N1"``: one query answer changes by ≤ 1; ``"Ninf"``: every answer may change by
≤ 1), the input pairs (StatDP / DP-Sniper patterns, plus in-domain extreme pairs from the spec where they are
stronger), the output kind, and a vectorised ``sample(query_input, size, *, rng) -> ndarray (size, ...)``.  A
``BenchMechanism`` is itself an auditor mechanism: ``mech(data, size, rng)``.

Output kinds: ``"scalar"`` (continuous, shape ``(size,)``), ``"discrete"`` (integer-valued, ``(size,)``),
``"vector"`` (real, ``(size, d)``), ``"discrete-vector"`` (small integer codes, ``(size, d)``) and
``"bool-vector"`` (0/1, ``(size, d)``).

Two suites:

* ``suite="dpsniper"``: DP-Sniper's evaluation (all at parameter ε = 0.1): Laplace, TruncatedGeometric,
  NoisyHist1/2, ReportNoisyMax1–4, SVT1–6 (Lyu, Su, Li 2017), NumericalSVT, RAPPOR, OneTimeRAPPOR,
  LaplaceParallel, SVT34Parallel, PrefixSum, and the naive floating-point Laplace next to Mironov's snapping fix.
* ``suite="statdp"``: StatDP's extras in StatDP's own (scalar-reduced) form: ``histogram_eps`` (scale ε instead of
  1/ε, at claimed 0.2 where it is broken and at 1.5 where it happens to be private) and iSVT1–4 at claimed 0.7.

Auditing (phase 2): :func:`audit_mechanism` audits one mechanism at its claimed ε within a per-side budget
(successive-halving pair search with an honest split, then ``htdp_verify.privacy.audit`` on the best pair with
the attacks of its :class:`BenchPlan`); :func:`run_bench` audits the catalogue and writes ``bench.md``,
``bench.csv`` and ``bench.png`` (entry point ``htdp_verify.bench``, command ``htdp-verify bench [--quick]``); and
one check per mechanism is registered as ``benchmark.<name>`` (verdict about the auditor: a false alarm on a
correct mechanism is ``violated``).

Randomness: every sampler draws from the ``rng`` it is given (a ``numpy.random.Generator``); nothing else.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from functools import partial
from typing import Callable

import numpy as np

from htdp_verify._validate import check_int, check_rng
from htdp_verify.claims import PrivacyClaim, Provenance

__all__ = [
    "BenchMechanism",
    "Pair",
    "MECHANISMS",
    "get_mechanism",
    "mechanism_names",
    "statdp_patterns",
    "rappor_bits",
    "murmur3_32",
    "float_laplace_reachable",
    "svt_outcome_probability",
    "OUTPUT_KINDS",
]

OUTPUT_KINDS = ("scalar", "discrete", "vector", "discrete-vector", "bool-vector")
RELATIONS = ("N1", "Ninf")
CHUNK_ROWS = 1 << 19  # rows drawn per inner call (caps temporaries at ~50 MB for 10 columns)

# Codes DP-Sniper uses in its SVT outputs.
SVT_ABORT = -1  # SVT1/2/4 codes: 1 = above, 0 = below, -1 = aborted
SVT3_BELOW, SVT3_ABORT = -1000.0, -2000.0
NUMSVT_ABORT = -1000.0


# ---------------------------------------------------------------------------------------------------------
# Input pairs
# ---------------------------------------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class Pair:
    """A neighbouring input pair ``(d1, d2)`` with its StatDP pattern name and where it comes from
    (``"pattern"``: StatDP/DP-Sniper's fixed patterns; ``"extreme"``: an in-domain extreme pair from the spec,
    inside DP-Sniper's domain [−10, 10] and the same neighbour relation)."""

    label: str
    d1: np.ndarray
    d2: np.ndarray
    source: str = "pattern"

    def swapped(self) -> "Pair":
        return Pair(self.label + " (swapped)", self.d2, self.d1, self.source)

    def as_tuple(self) -> tuple:
        return (self.d1, self.d2)

    def __repr__(self) -> str:
        return f"Pair({self.label!r}, {self.d1.tolist()} vs {self.d2.tolist()}, {self.source})"


def statdp_patterns(m: int, relation: str) -> list[Pair]:
    """StatDP's input patterns for length ``m`` (``benchmark_mechanisms.md`` §1): d1 = 1^m against each d2;
    under ``"N1"`` only "one below" and "one above", under ``"Ninf"`` all eight.  Unordered: both tools also test
    the swapped order (DP-Sniper explicitly, StatDP through its event selector)."""
    m = check_int("m", m, minimum=1)
    if relation not in RELATIONS:
        raise ValueError(f"relation must be one of {RELATIONS}, got {relation!r}")
    one = np.ones(m)
    h = m // 2

    def v(*parts):
        return np.concatenate([np.full(k, float(val)) for val, k in parts if k > 0])

    pats = [
        ("one below", one, v((0, 1), (1, m - 1))),
        ("one above", one, v((2, 1), (1, m - 1))),
    ]
    if relation == "Ninf" and m > 1:
        pats += [
            ("one above rest below", one, v((2, 1), (0, m - 1))),
            ("one below rest above", one, v((0, 1), (2, m - 1))),
            ("half-half", one, v((2, h), (0, m - h))),
            ("all above", one, v((2, m))),
            ("all below", one, v((0, m))),
            ("X-shape", v((1, h), (0, m - h)), v((0, h), (1, m - h))),
        ]
    return [Pair(lbl, a, b) for lbl, a, b in pats]


def _extreme(label, d1, d2) -> Pair:
    return Pair(label, np.asarray(d1, float), np.asarray(d2, float), "extreme")


# ---------------------------------------------------------------------------------------------------------
# The mechanism record
# ---------------------------------------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class BenchMechanism:
    """One ground-truth mechanism (see the module docstring for the fields' meaning).

    ``sampler(q, size, rng)`` receives a validated float array ``q`` of shape ``(input_dim,)`` and returns
    ``size`` releases; :meth:`sample` validates, chunks large ``size`` and calls it.  Published numbers
    (``dpsniper_lr``, ``dpsniper_mlp``, ``statdp_runs``) are DP-Sniper's logged ε lower bounds (90 %
    confidence, 2·10⁸ samples; anchors §3.1) and StatDP's two runs through DP-Sniper's wrapper; ``None`` where
    the tool has no number.
    """

    name: str
    claimed_epsilon: float
    true_epsilon: float
    pair_epsilon: float
    relation: str
    output_kind: str
    input_dim: int
    sampler: Callable
    pairs: tuple
    description: str
    true_epsilon_note: str
    provenance: Provenance
    suite: str = "dpsniper"
    input_kind: str = "float"  # "float" or "int" (TruncatedGeometric counts, RAPPOR values, histograms)
    input_range: tuple = (-10.0, 10.0)
    dpsniper_lr: float | None = None
    dpsniper_mlp: float | None = None
    statdp_runs: tuple | None = None
    unbounded_in_m: bool = False
    notes: str = ""

    def __post_init__(self):
        if self.relation not in RELATIONS:
            raise ValueError(f"relation must be one of {RELATIONS}, got {self.relation!r}")
        if self.output_kind not in OUTPUT_KINDS:
            raise ValueError(f"output_kind must be one of {OUTPUT_KINDS}, got {self.output_kind!r}")
        if not (self.claimed_epsilon > 0 and self.true_epsilon > 0):
            raise ValueError("claimed_epsilon and true_epsilon must be > 0")

    # -- derived facts -------------------------------------------------------------------------------------
    @property
    def buggy(self) -> bool:
        """True when the implementation's true ε exceeds its claim (a correct auditor may flag it)."""
        return self.true_epsilon > self.claimed_epsilon * (1 + 1e-9)

    @property
    def unbounded(self) -> bool:
        """True ε is infinite at every input size (an event with probability 0 on one side exists)."""
        return math.isinf(self.true_epsilon)

    @property
    def expected_verdict(self) -> str:
        return "violated" if self.buggy else "consistent"

    @property
    def dpsniper_best(self) -> float | None:
        vals = [v for v in (self.dpsniper_lr, self.dpsniper_mlp) if v is not None]
        return max(vals) if vals else None

    @property
    def statdp_best(self) -> float | None:
        return max(self.statdp_runs) if self.statdp_runs else None

    def claim(self) -> PrivacyClaim:
        """The claim under test, ε-DP with ``"replace"`` neighbours; the query-level relation (N1 / N∞) is
        recorded in the provenance notes (``PrivacyClaim`` knows only replace / add-remove)."""
        rel = "N1 (one query answer changes by <= 1)" if self.relation == "N1" else "Ninf (|q - q'|_inf <= 1)"
        prov = Provenance(self.provenance.paper, self.provenance.location, self.provenance.equation,
                          f"neighbours: {rel}" + (f"; {self.provenance.notes}" if self.provenance.notes else ""))
        return PrivacyClaim(self.claimed_epsilon, 0.0, "replace", prov)

    def ordered_pairs(self, *, extremes: bool = True) -> list[tuple[np.ndarray, np.ndarray]]:
        """Every pair in both orders (DP-Sniper's 4 under N1, 16 under N∞, plus the extreme pairs)."""
        out = []
        for p in self.pairs:
            if p.source == "extreme" and not extremes:
                continue
            out += [p.as_tuple(), p.swapped().as_tuple()]
        return out

    def pair_list(self, *, extremes: bool = True) -> list[tuple[np.ndarray, np.ndarray]]:
        """The unordered pairs ``(d1, d2)``."""
        return [p.as_tuple() for p in self.pairs if extremes or p.source != "extreme"]

    # -- sampling ------------------------------------------------------------------------------------------
    def validate_input(self, query_input) -> np.ndarray:
        q = np.asarray(query_input, dtype=float)
        if q.ndim == 0 and self.input_dim == 1:
            q = q.reshape(1)
        if q.shape != (self.input_dim,):
            raise ValueError(
                f"query_input must have shape ({self.input_dim},) for {self.name}, got {np.shape(query_input)}")
        if not np.all(np.isfinite(q)):
            raise ValueError(f"query_input must be finite for {self.name}, got {q.tolist()}")
        if self.input_kind == "int" and np.any(q != np.round(q)):
            raise ValueError(f"query_input must be integer-valued for {self.name}, got {q.tolist()}")
        return q

    def sample(self, query_input, size: int, *, rng: np.random.Generator) -> np.ndarray:
        """``size`` independent releases on ``query_input``; shape ``(size,)`` or ``(size, d)``.

        Vectorised: one numpy draw per noise array (chunks of ``CHUNK_ROWS`` rows), no Python loop over releases.
        Reproducible: the same generator state gives the same array.
        """
        q = self.validate_input(query_input)
        size = check_int("size", size, minimum=1)
        check_rng(rng)
        if size <= CHUNK_ROWS:
            return self.sampler(q, size, rng)
        first = self.sampler(q, CHUNK_ROWS, rng)
        out = np.empty((size,) + first.shape[1:], dtype=first.dtype)
        out[:CHUNK_ROWS] = first
        start = CHUNK_ROWS
        while start < size:
            stop = min(start + CHUNK_ROWS, size)
            out[start:stop] = self.sampler(q, stop - start, rng)
            start = stop
        return out

    def __call__(self, data, size, rng=None):
        """The auditor's mechanism contract: ``mechanism(data, size, rng) -> ndarray (size, ...)``."""
        return self.sample(data, size, rng=rng)

    def __repr__(self) -> str:
        return (f"BenchMechanism({self.name!r}, claimed={self.claimed_epsilon:g}, true={self.true_epsilon:g}, "
                f"{self.relation}, {self.output_kind})")


# ---------------------------------------------------------------------------------------------------------
# Samplers (module-level functions so that they pickle)
# ---------------------------------------------------------------------------------------------------------
def _laplace(q, size, rng, *, scale):
    """Scalar Laplace: ``q[0] + Lap(scale)``; density ratio e^{|Δ|/scale} on a half-line."""
    return rng.laplace(q[0], scale, size)


def _geo_cdf(c: int, n: int, k: int) -> np.ndarray:
    """Integer CDF (times d) of Balcer & Vadhan's GeoSample at count ``c`` (closed form, exact integers).

    With α = 2^k/(2^k+1), β = (2^k+1)/(2^{k+1}+1) and d = (2^{k+1}+1)(2^k+1)^{n−1}:
    P(Z ≤ z) = β α^{c−z} for z < c and P(Z > z) = β α^{z−c+1} for c ≤ z < n; d·β·α^j = 2^{kj}(2^k+1)^{n−j}.
    """
    d = (2 ** (k + 1) + 1) * (2 ** k + 1) ** (n - 1)
    F = []
    for z in range(n + 1):
        if z < c:
            j = c - z
            F.append(2 ** (k * j) * (2 ** k + 1) ** (n - j))
        elif z < n:
            j = z - c + 1
            F.append(d - 2 ** (k * j) * (2 ** k + 1) ** (n - j))
        else:
            F.append(d)
    if d >= 2 ** 62:
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
        k = int.from_bytes(data[4 * i: 4 * i + 4], "little")
        k = rotl((k * c1) & M, 15)
        h ^= (k * c2) & M
        h = (rotl(h, 13) * 5 + 0xE6546B64) & M
    tail = data[4 * nblocks:]
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
def _naive_laplace_transform(u, loc, scale):
    """numpy's (and most libraries') float64 inverse-CDF Laplace: loc − b·ln(2 − 2U) if U ≥ ½, else
    loc + b·ln(2U).  ``2 − 2U`` and ``2U`` are exact in float64, so the only roundings are log, ×b and +loc."""
    with np.errstate(divide="ignore"):
        hi = u >= 0.5
        w = np.where(hi, 2.0 - u - u, u + u)
        lw = np.log(w)
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
    """Whether each double in ``x`` is an exact output of :func:`_naive_float_laplace` at ``loc`` (vectorised).

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
        j0 = np.floor(np.where(ok & np.isfinite(u_est), u_est, 0.5) * 2.0 ** 53)
        for dj in range(-window, window + 1):
            j = j0 + dj
            u = j * 2.0 ** -53
            valid = ok & (j >= 1) & (j < 2.0 ** 53)
            out |= valid & (_naive_laplace_transform(u, loc, scale) == x)
    return out


def _snapping_laplace(q, size, rng, *, eps, bound):
    """Mironov's snapping mechanism: clamp_B(round_Λ(clamp_B(a) + S·λ·ln U)), λ = (1 + B·2^−49)/ε, Λ the
    smallest power of 2 ≥ λ, U uniform on (0, 1] (``1 − rng.random()``), S = ±1."""
    lam = (1.0 + bound * 2.0 ** -49) / eps
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


# ---------------------------------------------------------------------------------------------------------
# The catalogue
# ---------------------------------------------------------------------------------------------------------
P_DPSNIPER = "Bichsel, Steffen, Bogunovic, Vechev, DP-Sniper, IEEE S&P 2021"
P_STATDP = "Ding, Wang, Wang, Zhang, Kifer, StatDP, CCS 2018"
P_LYU = "Lyu, Su, Li, Understanding the Sparse Vector Technique, PVLDB 2017"
P_SHADOW = "Wang, Ding, Wang, Kifer, Zhang, ShadowDP, PLDI 2019"
SPEC = "benchmark_mechanisms.md"

EPS = 0.1
_N1_1 = statdp_patterns(1, "N1")
_N1_5 = statdp_patterns(5, "N1")
_NI_5 = statdp_patterns(5, "Ninf")
_NI_10 = statdp_patterns(10, "Ninf")
_EXT_SVT = _extreme("in-domain extreme (9^9,-9)/(10^9,-10)", [9.0] * 9 + [-9.0], [10.0] * 9 + [-10.0])


def _build() -> dict[str, BenchMechanism]:
    M: list[BenchMechanism] = []
    add = M.append

    add(BenchMechanism(
        "Laplace", EPS, EPS, EPS, "N1", "scalar", 1, partial(_laplace, scale=1 / EPS), tuple(_N1_1),
        "a + Lap(1/ε), ε = 0.1", "density ratio e^{ε|Δ|}, attained on the half-line beyond both inputs [derived]",
        Provenance(P_DPSNIPER, "Laplace", "", f"{SPEC} §2.1"), dpsniper_lr=0.0968, dpsniper_mlp=0.0976,
        statdp_runs=(0.0998, 0.0996)))

    geo_eps = math.log(9 / 8)
    add(BenchMechanism(
        "TruncatedGeometric", geo_eps, geo_eps, geo_eps, "N1", "discrete", 1,
        partial(_trunc_geometric, n=5, k=3), tuple(_N1_1),
        "GeoSample on counts 0..5, k = ceil(ln(2/ε)) = 3 (Balcer & Vadhan 2018, Alg. 4.8)",
        "two-sided geometric law with ratio 2^k/(2^k+1) = 8/9 piled on the ends; every neighbouring pair (c, c+1) "
        "has pmf ratio 9/8 at an endpoint, so true ε = ln(1 + 2^−k) = ln(9/8) = 0.11778 [derived, exact rationals]",
        Provenance("Balcer & Vadhan 2018", "Alg. 4.8 (GeoSample)", "", f"{SPEC} §2.2"),
        input_kind="int", input_range=(0, 5), dpsniper_lr=0.1156, dpsniper_mlp=0.1155, statdp_runs=(0.1159, 0.1169),
        notes="instantiated with parameter ε = 0.1 but the implementation (and its docstring) guarantees "
              "ln(9/8) = 0.1178; claimed ε here is the documented 0.1178"))

    add(BenchMechanism(
        "NoisyHist1", EPS, EPS, EPS, "N1", "vector", 5, partial(_noisy_hist, scale=1 / EPS), tuple(_N1_5),
        "5-bin histogram + Lap(1/ε) per bin", "one bin moves by 1: per-coordinate Laplace ratio e^{ε} [derived]",
        Provenance(P_STATDP, "Alg. 9", "", f"{SPEC} §2.3"), input_kind="int", input_range=(0, 10),
        dpsniper_lr=0.0978, dpsniper_mlp=0.0977, statdp_runs=(0.0828, 0.0994)))

    add(BenchMechanism(
        "NoisyHist2", EPS, 1 / EPS, 1 / EPS, "N1", "vector", 5, partial(_noisy_hist, scale=EPS), tuple(_N1_5),
        "5-bin histogram + Lap(ε) per bin (scale ε instead of 1/ε)",
        "a bin moving by 1 under Lap(b = ε) has density ratio e^{1/b} = e^{10} [derived]",
        Provenance(P_STATDP, "Alg. 10", "", f"{SPEC} §2.3"), input_kind="int", input_range=(0, 10),
        dpsniper_lr=4.602, dpsniper_mlp=4.6015, statdp_runs=(9.717, 10.002)))

    rnm = dict(scale=2 / EPS)
    add(BenchMechanism(
        "ReportNoisyMax1", EPS, EPS, 0.0946, "Ninf", "discrete", 5,
        partial(_report_noisy_max, noise="laplace", release="argmax", **rnm),
        tuple(_NI_5) + (_extreme("in-domain extreme (-9,9^4)/(-10,10^4)", [-9.0] + [9.0] * 4, [-10.0] + [10.0] * 4),),
        "argmax of q + Lap(2/ε), 5 queries",
        "classic argument: fixing the other noises, the winner's noise must clear a threshold moving by ≤ 2, cost "
        "2/b = ε; approached on extreme inputs ((−9, 9⁴) vs (−10, 10⁴): 0.0996) [derived, calc]",
        Provenance(P_STATDP, "Alg. 5", "", f"{SPEC} §2.4"), dpsniper_lr=0.0923, dpsniper_mlp=0.0925,
        statdp_runs=(0.0920, 0.0921)))
    add(BenchMechanism(
        "ReportNoisyMax2", EPS, EPS, EPS, "Ninf", "discrete", 5,
        partial(_report_noisy_max, noise="exponential", release="argmax", **rnm), tuple(_NI_5),
        "argmax of q + Exp(2/ε), 5 queries",
        "memorylessness: 1⁵ vs (0, 2⁴) gives P(index 0) = 1/5 vs e^{−2/b}/5, ratio exactly e^{ε} [derived]",
        Provenance(P_STATDP, "Alg. 6", "", f"{SPEC} §2.4"), dpsniper_lr=0.0975, dpsniper_mlp=0.0979,
        statdp_runs=(0.0996, 0.0997)))
    add(BenchMechanism(
        "ReportNoisyMax3", EPS, 0.25, 0.25, "Ninf", "scalar", 5,
        partial(_report_noisy_max, noise="laplace", release="max", **rnm), tuple(_NI_5),
        "maximum VALUE of q + Lap(2/ε), 5 queries",
        "density of the max is Σ_i f(y−q_i)Π_{j≠i}F(y−q_j): m factors each changing by ≤ e^{1/b}, so ≤ e^{m/b} = "
        "e^{0.25}; attained for y below all q when every q_j moves the same way [derived]",
        Provenance(P_STATDP, "Alg. 7", "", f"{SPEC} §2.4"), dpsniper_lr=0.2478, dpsniper_mlp=0.2488,
        statdp_runs=(0.1991, 0.1961), unbounded_in_m=True))
    add(BenchMechanism(
        "ReportNoisyMax4", EPS, math.inf, math.inf, "Ninf", "scalar", 5,
        partial(_report_noisy_max, noise="exponential", release="max", **rnm),
        tuple(_NI_5) + (_extreme("in-domain extreme (9,-10^4)/(10,-9^4)", [9.0] + [-10.0] * 4,
                                 [10.0] + [-9.0] * 4),),
        "maximum VALUE of q + Exp(2/ε), 5 queries",
        "the max has support [max q, ∞): moving max q gives an event of probability 0 on one side; with max q "
        "fixed the density ratio still diverges as y ↓ max q [derived].  On the patterns that event {y < max q'} "
        "needs all five noises below 1, P ≈ 2.7e-7; the extreme pair (9, −10⁴) vs (10, −9⁴) gives it "
        "P = (1 − e^{−1/20})(1 − e^{−1})⁴ ≈ 7.8e-3 on one side and 0 on the other [derived]",
        Provenance(P_STATDP, "Alg. 8", "", f"{SPEC} §2.4"), dpsniper_lr=0.3463, dpsniper_mlp=0.3534,
        statdp_runs=(0.1960, 0.1988)))

    e1 = e2 = EPS / 2
    add(BenchMechanism(
        "SVT1", EPS, EPS, 0.0885, "Ninf", "discrete-vector", 10,
        partial(_svt_codes, b_rho=1 / e1, b_nu=2 * 1 / e2, T=0.5, c=1), tuple(_NI_10) + (_EXT_SVT,),
        "Lyu Alg. 1: ρ ~ Lap(1/ε₁) = Lap(20), ν ~ Lap(2c/ε₂) = Lap(40), T = 0.5, c = 1; codes 1/0/−1",
        "Lyu et al. Thm: ε₁ + ε₂ = ε; in-domain extreme (9⁹, −9) vs (10⁹, −10) gives 0.0996 [calc]",
        Provenance(P_LYU, "Alg. 1", "", f"{SPEC} §2.5"), dpsniper_lr=0.0858, dpsniper_mlp=0.0858,
        statdp_runs=(0.0298, 0.0298)))
    add(BenchMechanism(
        "SVT2", EPS, EPS, 0.0882, "Ninf", "discrete-vector", 10,
        partial(_svt_codes, b_rho=1 / e1, b_nu=2 * 1 / e2, T=1.0, c=1, redraw=True), tuple(_NI_10) + (_EXT_SVT,),
        "Lyu Alg. 2: ρ ~ Lap(c/ε₁) redrawn after each ⊤, ν ~ Lap(2c/ε₂), T = 1, c = 1",
        "with c = 1 the redraw never acts: SVT1 with T = 1, ε-DP (Lyu) [derived]",
        Provenance(P_LYU, "Alg. 2", "", f"{SPEC} §2.5"), dpsniper_lr=0.0859, dpsniper_mlp=0.0852,
        statdp_runs=(0.0316, 0.0407)))
    add(BenchMechanism(
        "SVT3", EPS, 0.5, 0.5, "Ninf", "vector", 10, partial(_svt3, b_rho=1 / e1, b_nu=1 / e2, T=1.0, c=1),
        tuple(_NI_10),
        "Lyu Alg. 3: ρ ~ Lap(20), ν ~ Lap(c/ε₂) = Lap(20), releases q_i+ν_i on ⊤ (−1000 ⊥, −2000 aborted)",
        "given ρ each query contributes one factor (F_ν or the noise density at the released value), each changing "
        "by ≤ e^{1/b_ν}; the released value caps ρ, so the ⊥ answers are no longer free: m/b_ν = 0.5 for m = 10, "
        "attained on (⊥⁹, a ≤ 1) for 1^10 vs 2^10 [derived]; grows without bound in m",
        Provenance(P_LYU, "Alg. 3", "", f"{SPEC} §2.5"), dpsniper_lr=0.1716, dpsniper_mlp=0.1822,
        statdp_runs=(0.0231, 0.1793), unbounded_in_m=True))
    add(BenchMechanism(
        "SVT4", EPS, 0.175, 0.1725, "Ninf", "discrete-vector", 10,
        partial(_svt_codes, b_rho=4 / EPS, b_nu=4 / (3 * EPS), T=1.0, c=1), tuple(_NI_10) + (_EXT_SVT,),
        "Lyu Alg. 4: ρ ~ Lap(1/ε₁) = Lap(40) with ε₁ = ε/4, ν ~ Lap(1/ε₂) = Lap(13.3) with ε₂ = 3ε/4 (not scaled "
        "with c), T = 1, c = 1",
        "Lyu: (1+6c)/4·ε = 0.175 for c = 1 (threshold shift ε/4, each ⊤ 2·3ε/4); in-domain extreme pair gives "
        "0.17500 [calc]",
        Provenance(P_LYU, "Alg. 4", "", f"{SPEC} §2.5"), dpsniper_lr=0.1687, dpsniper_mlp=0.1696,
        statdp_runs=(0.1709, 0.1719)))
    add(BenchMechanism(
        "SVT5", EPS, math.inf, math.inf, "Ninf", "bool-vector", 10, partial(_svt_bits, b_rho=1 / e1, b_nu=0.0, T=1.0),
        tuple(_NI_10),
        "Lyu Alg. 5: ρ ~ Lap(20), no query noise, no cutoff; 0/1 per query",
        "the output is the deterministic function 1[q_i ≥ ρ + T] of ρ: 1^10 only gives all-⊤/all-⊥, half-half "
        "gives 1⁵0⁵ with positive probability [derived]",
        Provenance(P_LYU, "Alg. 5", "", f"{SPEC} §2.5"), dpsniper_lr=1.7612, dpsniper_mlp=1.7610,
        statdp_runs=(14.31, 14.31)))
    add(BenchMechanism(
        "SVT6", EPS, 0.5, 0.420, "Ninf", "bool-vector", 10, partial(_svt_bits, b_rho=1 / e1, b_nu=1 / e2, T=1.0),
        tuple(_NI_10) + (_extreme("in-domain extreme (10^5,-10^5)/(9^5,-9^5)", [10.0] * 5 + [-10.0] * 5,
                                  [9.0] * 5 + [-9.0] * 5),),
        "Lyu Alg. 6: ρ ~ Lap(20), ν ~ Lap(20), no cutoff; 0/1 per query",
        "given ρ each of the m factors changes by ≤ e^{ε₂}: m·ε₂ = 0.5 for m = 10, approached when half the "
        "queries go to +∞ and half to −∞ (in-domain extreme 0.468) [derived, calc]; grows without bound in m",
        Provenance(P_LYU, "Alg. 6", "", f"{SPEC} §2.5"), dpsniper_lr=0.2720, dpsniper_mlp=0.2698,
        statdp_runs=(0.3220, 0.3200), unbounded_in_m=True))
    add(BenchMechanism(
        "NumericalSVT", EPS, EPS, 0.0805, "Ninf", "vector", 10, partial(_numerical_svt, eps=EPS, c=2, T=1.0),
        tuple(_NI_10),
        "ShadowDP NumericalSVT, c = 2, T = 1: ρ₁ ~ Lap(30), ρ₂ ~ Lap(120), released q_i + Lap(60) on ⊤, 0 on ⊥, "
        "−1000 aborted",
        "threshold ε/3 + comparisons ε/3 (SVT1 with ε₂ = ε/3) + c released values ε/(3c) each = ε [derived]",
        Provenance(P_SHADOW, "NumericalSVT", "", f"{SPEC} §2.6"), dpsniper_lr=0.0343, dpsniper_mlp=0.0345))

    r_eps = 8 * math.log(0.5125 / 0.4875)
    o_eps = 8 * math.log(0.525 / 0.475)
    rappor_pairs = tuple(statdp_patterns(1, "N1")) + (_extreme("values 7 vs 6 (8 differing bits)", [7.0], [6.0]),)
    add(BenchMechanism(
        "RAPPOR", r_eps, r_eps, 6 * math.log(0.5125 / 0.4875), "N1", "bool-vector", 1,
        partial(_rappor, p1=(1 - 0.75 / 2) * 0.55 + 0.75 / 2 * 0.45, p0=(1 - 0.75 / 2) * 0.45 + 0.75 / 2 * 0.55,
                n_bits=20, n_hashes=4),
        rappor_pairs,
        "RAPPOR (f = 0.75, p = 0.45, q = 0.55), 20-bit Bloom filter, 4 MurmurHash3 hashes of str(v), PRR + IRR",
        "bits independent with P(1) = 0.5125 (set) vs 0.4875 (unset): ε(v, v') = d·ln(0.5125/0.4875), d = |bits Δ "
        "bits'| ≤ 2h = 8 → 0.4001 (attained by 6 vs 7); the tools' pairs have d = 6 and 5 (pair-ε 0.3001) [derived]",
        Provenance("Erlingsson, Pihur, Korolova 2014", "RAPPOR steps 1–3", "", f"{SPEC} §2.9"), input_kind="int",
        dpsniper_lr=0.2930, dpsniper_mlp=0.3008, statdp_runs=(0.2416, 0.0243),
        notes="no ε is claimed; the claim-equivalent 8·ln(q*/p*) is used. DP-Sniper's MLP 0.3008 exceeds the "
              "exact pair-ε 0.3001 of its pair (a 90 % miss); StatDP ran a float-hashed 7-bit instance"))
    add(BenchMechanism(
        "OneTimeRAPPOR", o_eps, o_eps, 6 * math.log(0.525 / 0.475), "N1", "bool-vector", 1,
        partial(_rappor, p1=1 - 0.95 / 2, p0=0.95 / 2, n_bits=20, n_hashes=4), rappor_pairs,
        "one-time RAPPOR (f = 0.95, PRR only)",
        "per bit 0.525 vs 0.475: ε = d·ln(0.525/0.475) ≤ 8 × 0.1000835 = 0.8007 [derived]",
        Provenance("Erlingsson, Pihur, Korolova 2014", "RAPPOR steps 1–2", "", f"{SPEC} §2.9"), input_kind="int",
        dpsniper_lr=0.5978, dpsniper_mlp=0.5999, statdp_runs=(0.4706, 0.0602),
        notes="claim-equivalent 8·ln(0.525/0.475); StatDP ran a float-hashed 7-bit instance"))

    add(BenchMechanism(
        "LaplaceParallel", EPS, EPS, EPS, "N1", "vector", 1, partial(_noisy_hist_parallel, scale=1 / 0.005, k=20),
        tuple(_N1_1),
        "20 independent copies of a + Lap(1/0.005)",
        "pure composition 20 × 0.005, tight on the orthant where every copy ≥ a + 1 [derived]",
        Provenance(P_DPSNIPER, "LaplaceParallel", "", f"{SPEC} §2.7"), dpsniper_lr=0.0350, dpsniper_mlp=0.0299,
        statdp_runs=(0.0126, 0.0135)))
    add(BenchMechanism(
        "SVT34Parallel", 2 * EPS, 0.575, 0.487, "Ninf", "vector", 10, partial(_svt34_parallel, eps=EPS, c=2, T=1.0),
        tuple(_NI_10) + (_extreme("in-domain extreme (9^8,-9,-9)/(10^8,-10,-10)", [9.0] * 8 + [-9.0] * 2,
                                  [10.0] * 8 + [-10.0] * 2),),
        "SVT3 and SVT4 at ε = 0.1 each with c = 2, T = 1, concatenated (20 columns)",
        "ε(SVT3, c=2) + ε(SVT4, c=2) = m/40 + (13/4)·0.1 = 0.575, attained in-domain by (9⁸, −9, −9) vs "
        "(10⁸, −10, −10) [derived, calc]",
        Provenance(P_DPSNIPER, "SVT34Parallel", "", f"{SPEC} §2.8"), dpsniper_lr=0.2610, dpsniper_mlp=0.2616,
        statdp_runs=(0.1371, 0.1963), unbounded_in_m=True,
        notes="claimed ε = 0.2 by naive composition of the two 0.1 parts (spec flags this as unsure)"))
    add(BenchMechanism(
        "PrefixSum", EPS, 1.0, 1.0, "Ninf", "vector", 10, partial(_prefix_sum, scale=1 / EPS), tuple(_NI_10),
        "running sums of q_i + Lap(1/ε), 10 queries, audited under N∞ as DP-Sniper does",
        "invertible linear post-processing of q + noise: ε·‖Δ‖₁ = 1.0 under N∞ (0.1 under N1, ShadowDP's "
        "setting) [derived]",
        Provenance(P_SHADOW, "PrefixSum", "", f"{SPEC} §2.10"), dpsniper_lr=0.5040, dpsniper_mlp=0.5774,
        statdp_runs=(0.3516, 0.3446),
        notes="the claim 0.1 holds under N1 only; under DP-Sniper's N∞ pairs it is a violation"))
    add(BenchMechanism(
        "PrefixSum_N1", EPS, EPS, EPS, "N1", "vector", 10, partial(_prefix_sum, scale=1 / EPS),
        tuple(statdp_patterns(10, "N1")),
        "running sums of q_i + Lap(1/ε) under N1 (ShadowDP's own relation): a correct control",
        "ε·‖Δ‖₁ = 0.1 when one query moves by ≤ 1 [derived]",
        Provenance(P_SHADOW, "PrefixSum", "", f"{SPEC} §2.10")))
    add(BenchMechanism(
        "LaplaceNaiveFloat", EPS, math.inf, math.inf, "N1", "scalar", 1, partial(_naive_float_laplace, scale=1 / EPS),
        tuple(_N1_1),
        "a + Lap(1/ε) by float64 inverse CDF (numpy's algorithm), ε = 0.1",
        "Mironov 2012: the noise takes ~2^53 values, and after rounding a + noise the sets of reachable doubles for "
        "a = 0 and a = 1 differ; an event of positive probability on one side has probability 0 on the other "
        "(porosity) [derived from the paper's argument]",
        Provenance("Mironov, On significance of the least significant bits for DP, CCS 2012", "§3", "",
                   f"{SPEC} §2.11"), dpsniper_mlp=0.2521))
    add(BenchMechanism(
        "LaplaceSnapping", EPS, EPS, EPS, "N1", "discrete", 1, partial(_snapping_laplace, eps=EPS, bound=100.0),
        tuple(_N1_1),
        "Mironov's snapping fix: clamp_100(round_16(clamp_100(a) + S·λ·ln U)), λ = (1 + 100·2^−49)/ε",
        "Mironov 2012 Thm 1 with λ chosen so the theorem gives exactly ε (exact-arithmetic pair-ε 1/λ) [derived]",
        Provenance("Mironov, CCS 2012", "snapping mechanism, Thm 1", "", f"{SPEC} §2.11"), dpsniper_mlp=0.0979,
        notes="U is drawn on numpy's 53-bit grid (Mironov assumes exact rounding); irrelevant at these bin sizes"))

    # ---- StatDP's extras in their reduced form --------------------------------------------------------------
    for eps_c in (0.2, 1.5):
        add(BenchMechanism(
            f"StatDP.histogram_eps@{eps_c:g}", eps_c, 1 / eps_c, 1 / eps_c, "N1", "scalar", 5,
            partial(_statdp_histogram0, scale=eps_c), tuple(_N1_5),
            f"StatDP histogram_eps: q + Lap(ε) with ε = {eps_c:g}, releases bin 0 only",
            f"Laplace scale ε: ratio e^{{1/ε}} = e^{{{1 / eps_c:.3g}}} for a unit change of bin 0 [derived]"
            + (" — below the claim, so private" if 1 / eps_c < eps_c else ""),
            Provenance(P_STATDP, "histogram_eps (statdp/algorithms.py)", "", f"{SPEC} §3"), suite="statdp",
            input_kind="int"))
    eps_s = 0.7
    add(BenchMechanism(
        "StatDP.iSVT1", eps_s, math.inf, math.inf, "Ninf", "discrete", 10,
        partial(_isvt_hamming, b_rho=2 / eps_s, b_nu=0.0, T=1.0, c=None), tuple(_NI_10),
        "iSVT1 (= SVT5): ρ ~ Lap(2/ε), no query noise, no cutoff; Hamming distance to ⊤⁵⊥⁵",
        "deterministic in ρ, as SVT5: outcomes of probability 0 on one side [derived]",
        Provenance(P_STATDP, "iSVT1", "", f"{SPEC} §3"), suite="statdp"))
    add(BenchMechanism(
        "StatDP.iSVT2", eps_s, 5 * eps_s, 3.092, "Ninf", "discrete", 10,
        partial(_isvt_hamming, b_rho=2 / eps_s, b_nu=2 / eps_s, T=1.0, c=None), tuple(_NI_10),
        "iSVT2 (= SVT6): ρ, ν ~ Lap(2/ε), no cutoff; Hamming distance to ⊤⁵⊥⁵",
        "m factors each ≤ e^{ε/2}: mε/2 = 3.5 for m = 10 [derived]; pair-ε 3.092 (spec §3 [calc])",
        Provenance(P_STATDP, "iSVT2", "", f"{SPEC} §3"), suite="statdp", unbounded_in_m=True))
    add(BenchMechanism(
        "StatDP.iSVT3", eps_s, 1.75 * eps_s, 1.217, "Ninf", "discrete", 10,
        partial(_isvt_hamming, b_rho=4 / eps_s, b_nu=4 / (3 * eps_s), T=1.0, c=1), tuple(_NI_10),
        "iSVT3 (= SVT4): ρ ~ Lap(4/ε), ν ~ Lap(4/(3ε)), N = 1; Hamming distance to ⊤⁵⊥⁵",
        "Lyu's (1+6c)/4·ε = 1.75ε for c = 1 [derived]; pair-ε 1.217 (spec §3 [calc])",
        Provenance(P_STATDP, "iSVT3", "", f"{SPEC} §3"), suite="statdp"))
    add(BenchMechanism(
        "StatDP.iSVT4", eps_s, 5 * eps_s, 3.5, "Ninf", "vector", 10,
        partial(_isvt4, b_rho=2 / eps_s, b_nu=2 / eps_s, T=1.0), tuple(_NI_10),
        "iSVT4 (= SVT3): ρ, ν ~ Lap(2/ε), N = 1; releases (#⊥, noisy answer at the first ⊤ or 0)",
        "as SVT3: m/b_ν = mε/2 = 3.5 for m = 10 [derived]", Provenance(P_STATDP, "iSVT4", "", f"{SPEC} §3"),
        suite="statdp", unbounded_in_m=True))
    return {m.name: m for m in M}


def _noisy_hist_parallel(q, size, rng, *, scale, k):
    """LaplaceParallel: ``k`` independent copies of q[0] + Lap(scale)."""
    return rng.laplace(q[0], scale, (size, k))


MECHANISMS: dict[str, BenchMechanism] = _build()


def mechanism_names(suite: str | None = None) -> list[str]:
    """Names in catalogue order, optionally only one ``suite`` (``"dpsniper"`` or ``"statdp"``)."""
    return [n for n, m in MECHANISMS.items() if suite is None or m.suite == suite]


def get_mechanism(name: str) -> BenchMechanism:
    try:
        return MECHANISMS[name]
    except KeyError:
        raise ValueError(f"name must be one of {list(MECHANISMS)}, got {name!r}") from None


# =========================================================================================================
# Phase 2: auditing the catalogue (``run_bench``) and one registered check per mechanism
# =========================================================================================================
# Post-processings and attack families used by the benchmark.  Every event is still a fixed set of outputs
# chosen on samples independent of the certification samples: a post-processing f gives ε(f∘M) ≤ ε(M), so a
# bound certified on f(M(D)) is a valid bound for M.  "white-box" marks post-processings that use knowledge of
# the mechanism's code (the float reachability test); all others are generic.

def _lazy_attacks():
    from htdp_verify.privacy import attacks as A

    return A


class _Composed:
    """Feature ``inner(transform(Y))``; passes ``decode`` through so set events still print their outcomes."""

    def __init__(self, transform, inner, label):
        self.transform, self.inner, self.label = transform, inner, label
        self.name = f"{getattr(inner, 'name', 'score')} of {label}"

    def __call__(self, Y):
        return self.inner(self.transform(Y))

    def decode(self, keys):
        return self.inner.decode(keys) if hasattr(self.inner, "decode") else list(keys)


class _KeyValue:
    """Feature: the value part of rows whose key lies in ``[lo, hi]``, NaN elsewhere (NaN is never in an event)."""

    def __init__(self, transform, lo, hi, label):
        self.transform, self.lo, self.hi, self.name = transform, lo, hi, label

    def __call__(self, Y):
        k, v = self.transform(Y)
        return np.where((k >= self.lo) & (k <= self.hi), v, np.nan)


def make_transformed_attack(inner, transform: Callable, label: str):
    """Run attack ``inner`` on the post-processed releases ``transform(Y)``; events apply ``transform`` first."""
    A = _lazy_attacks()

    class TransformedAttack(A.Attack):
        name = f"{inner.name}[{label}]"

        def applicable(self, Y):
            return True

        def select(self, Y1, Y2, ctx):
            T1, T2 = transform(Y1), transform(Y2)
            evs = inner.select(T1, T2, ctx)
            for e in evs:
                e.feature = _Composed(transform, e.feature, label)
                e.attack = self.name
            return evs

    return TransformedAttack()


def make_discrete_attack(max_categories: int = 4096):
    """Unions of outcomes (the auditor's ``DiscreteAttack``) allowing up to ``max_categories`` distinct outputs."""
    A = _lazy_attacks()

    class ManyDiscrete(A.DiscreteAttack):
        name = "discrete"

        def select(self, Y1, Y2, ctx):
            import dataclasses

            return super().select(Y1, Y2, dataclasses.replace(ctx, max_categories=max_categories))

    return ManyDiscrete()


def make_stratified_threshold_attack(split: Callable, label: str, max_keys: int = 32, ranges: bool = True):
    """Events ``{key(y) ∈ K and value(y) >= t}`` / ``<= t``: ``split(Y) -> (key, value)`` (a discrete part and a
    real part of the release, e.g. SVT3's first-⊤ index and its released value); thresholds scanned per key
    group.  Groups: each of the ``max_keys`` most frequent keys and, with ``ranges``, the ordered ranges
    ``key >= k`` and ``key <= k`` (quadrants of the (key, value) plane: a run of ⊥ answers contributes one
    factor per answer, so the ratio is monotone in the key and unions of keys carry more mass)."""
    A = _lazy_attacks()

    class StratifiedThreshold(A.Attack):
        name = f"stratified[{label}]"

        def select(self, Y1, Y2, ctx):
            k1, v1 = split(Y1)
            k2, v2 = split(Y2)
            keys, cnt = np.unique(np.concatenate([k1, k2]), return_counts=True)
            groups = [(k, k, f"key = {k:g}") for k in keys[np.argsort(-cnt)][:max_keys]]
            if ranges and keys.size > 2:
                groups += [(k, np.inf, f"key >= {k:g}") for k in keys[1:-1]]
                groups += [(-np.inf, k, f"key <= {k:g}") for k in keys[1:-1]]
            evs = []
            for lo, hi, what in groups:
                f = _KeyValue(split, lo, hi, f"value of {label} where {what}")
                sel1 = (k1 >= lo) & (k1 <= hi)
                sel2 = (k2 >= lo) & (k2 <= hi)
                evs += A.scan_thresholds(np.where(sel1, v1, np.nan), np.where(sel2, v2, np.nan), ctx, f, self.name)
            return evs

    return StratifiedThreshold()


def make_indicator_logistic_attack(pre: Callable | None = None, label: str = "coordinate > median"):
    """Logistic regression on the indicators ``1[z_j > median_j]`` of (optionally pre-transformed) vector
    releases, medians fixed from the pooled training half.  Its score counts coordinates on the D side of the
    median: the right statistic for sums of independent Laplace coordinates (LaplaceParallel, PrefixSum)."""
    A = _lazy_attacks()

    class IndicatorLogistic(A.Attack):
        name = f"logistic[{label}]"

        def select(self, Y1, Y2, ctx):
            Z1 = A._as_2d(Y1 if pre is None else pre(Y1)).astype(float)
            Z2 = A._as_2d(Y2 if pre is None else pre(Y2)).astype(float)
            h = min(Z1.shape[0], Z2.shape[0]) // 2
            med = np.median(np.concatenate([Z1[:h], Z2[:h]]), axis=0)

            def tf(Y, med=med):
                Z = A._as_2d(Y if pre is None else pre(Y)).astype(float)
                return (Z > med).astype(np.float32)

            return A.LogisticAttack(transform=tf).select(Y1, Y2, ctx)

    return IndicatorLogistic()


# -- mechanism-specific (but black-box in spirit) post-processings -------------------------------------------
def _first_top_and_value(Y, below=SVT3_BELOW):
    """SVT3-like rows (c = 1) -> (index of the first ⊤ or m, value released there or 0)."""
    Y = np.asarray(Y)
    top = Y > below
    any_top = top.any(axis=1)
    first = np.where(any_top, np.argmax(top, axis=1), Y.shape[1])
    val = np.where(any_top, Y[np.arange(Y.shape[0]), np.minimum(first, Y.shape[1] - 1)], 0.0)
    return first.astype(float), val


def _isvt4_split(Y):
    Y = np.asarray(Y)
    return Y[:, 0], Y[:, 1]


def _svt4_block(Y):
    """SVT34Parallel rows -> the SVT4 half (columns 10-19, codes 1/0/−1): a projection (post-processing)."""
    return np.asarray(Y)[:, 10:].astype(np.int8)


def _first_diff(Y):
    """Prefix sums -> increments (an invertible linear post-processing)."""
    Y = np.asarray(Y, dtype=float)
    return np.diff(Y, axis=1, prepend=0.0)


_REACH_LOCS = (0.0, 1.0, 2.0)


def _reach_features(Y):
    """White-box: is each output an exact output of the naive float Laplace (scale 10) at loc 0, 1, 2?"""
    y = np.asarray(Y, dtype=float).reshape(-1)
    return np.stack([float_laplace_reachable(y, loc, 10.0) for loc in _REACH_LOCS], axis=1).astype(np.int8)


@dataclass(frozen=True)
class BenchPlan:
    """How the benchmark audits one mechanism: the attack families, the per-side sample budget (full and quick,
    search + selection + certification) and whether the attack uses the mechanism's code (``white_box``)."""

    attacks: Callable | str = "auto"  # "auto" or a zero-argument factory returning a list of attacks
    n_full: int = 20_000_000
    n_quick: int = 200_000
    white_box: str = ""
    search_share: float = 0.2
    search_min: int = 0  # per side: rare-event rows need this many search releases whatever the budget
    select_share: float = 0.15

    def make_attacks(self):
        return "auto" if self.attacks == "auto" else self.attacks()


def _plans() -> dict[str, BenchPlan]:
    import dataclasses

    A = _lazy_attacks()
    disc = lambda: [make_discrete_attack(4096)]  # noqa: E731
    P = {n: BenchPlan() for n in MECHANISMS}
    P["Laplace"] = BenchPlan(lambda: [A.ThresholdAttack()], n_full=12_000_000)
    P["TruncatedGeometric"] = BenchPlan(disc, n_full=20_000_000)
    P["NoisyHist1"] = BenchPlan(lambda: [A.CoordinateAttack()], n_full=20_000_000)
    P["NoisyHist2"] = BenchPlan(lambda: [A.CoordinateAttack()], n_full=2_000_000)
    for n in ("ReportNoisyMax1", "ReportNoisyMax2", "SVT4", "SVT5", "StatDP.iSVT1", "StatDP.iSVT3"):
        P[n] = BenchPlan(disc)
    # SVT1/SVT2: 3 of 9 pairs reach ~0.084 at the full budget, the rest ≤ 0.046; pair_search alone over 30 seeds
    # found a good one 26/30 (SVT1) and 22/30 (SVT2) times with 4·10⁶ search releases per side, 29/30 and 30/30
    # with 6·10⁶.  The 2·10⁶ fewer certification releases cost the oracle ceiling ≤ 0.001.
    for n in ("SVT1", "SVT2"):
        P[n] = BenchPlan(disc, search_share=0.3)
    P["SVT5"] = BenchPlan(disc, n_full=1_000_000)
    P["StatDP.iSVT1"] = BenchPlan(disc, n_full=1_000_000)
    P["ReportNoisyMax3"] = BenchPlan(lambda: [A.ThresholdAttack()])
    P["ReportNoisyMax4"] = BenchPlan(lambda: [A.ThresholdAttack()], n_full=20_000_000)
    P["SVT3"] = BenchPlan(lambda: [make_stratified_threshold_attack(_first_top_and_value, "(first ⊤, value)")],
                          n_full=20_000_000, search_min=4_000_000)
    P["SVT6"] = BenchPlan(lambda: [make_discrete_attack(4096), A.LogisticAttack()], n_full=12_000_000)
    P["StatDP.iSVT2"] = BenchPlan(disc, n_full=4_000_000)
    P["NumericalSVT"] = BenchPlan(lambda: [A.MixedLogisticAttack(trend=None), A.MixedLogisticAttack(trend="linear")],
                                  n_full=20_000_000)
    P["RAPPOR"] = BenchPlan(lambda: [A.LogisticAttack()], n_full=20_000_000)
    P["OneTimeRAPPOR"] = BenchPlan(lambda: [A.LogisticAttack()], n_full=20_000_000)
    P["LaplaceParallel"] = BenchPlan(lambda: [make_indicator_logistic_attack()], n_full=20_000_000)
    # the SVT4 half alone (c = 2: (1+6c)/4·ε = 0.325 on its own) is a post-processing with few outcomes; a
    # learned score on the whole release (MixedLogisticAttack) made the pair search chase lucky tail events
    P["SVT34Parallel"] = BenchPlan(lambda: [make_transformed_attack(make_discrete_attack(4096), _svt4_block,
                                                                    "codes of the SVT4 half")],
                                   n_full=20_000_000, search_min=2_400_000)
    P["PrefixSum"] = BenchPlan(lambda: [make_indicator_logistic_attack(_first_diff, "increment > median")],
                               n_full=4_000_000)
    P["PrefixSum_N1"] = BenchPlan(lambda: [make_indicator_logistic_attack(_first_diff, "increment > median"),
                                           make_transformed_attack(A.CoordinateAttack(), _first_diff, "increments")],
                                  n_full=8_000_000)
    P["LaplaceNaiveFloat"] = BenchPlan(lambda: [make_transformed_attack(A.DiscreteAttack(), _reach_features,
                                                                        "exact reachability from loc 0/1/2")],
                                       n_full=400_000, n_quick=40_000,
                                       white_box="reachability of the double under numpy's inverse-CDF Laplace")
    P["LaplaceSnapping"] = BenchPlan(disc, n_full=20_000_000)
    P["StatDP.histogram_eps@0.2"] = BenchPlan(lambda: [A.ThresholdAttack()], n_full=2_000_000)
    P["StatDP.histogram_eps@1.5"] = BenchPlan(lambda: [A.ThresholdAttack()], n_full=4_000_000)
    P["StatDP.iSVT4"] = BenchPlan(lambda: [make_stratified_threshold_attack(_isvt4_split, "(#⊥, value)"),
                                           make_discrete_attack(64)], n_full=4_000_000)
    # buggy mechanisms whose violation needs more than the default quick size to resolve
    for n in ("ReportNoisyMax3", "ReportNoisyMax4", "SVT6"):
        P[n] = dataclasses.replace(P[n], n_quick=1_000_000)
    # SVT4: 2 of 9 pairs exceed the claim by a margin; the search finds one of them at ~1/3 of seeds at 10⁶
    P["SVT4"] = dataclasses.replace(P["SVT4"], n_quick=4_000_000)
    P["StatDP.iSVT4"] = dataclasses.replace(P["StatDP.iSVT4"], n_quick=1_000_000)
    # rare-event rows: their pair search alone needs a few 10⁶ releases per side (``search_min``)
    P["SVT3"] = dataclasses.replace(P["SVT3"], n_quick=10_000_000)
    P["SVT34Parallel"] = dataclasses.replace(P["SVT34Parallel"], n_quick=6_000_000)
    return P


_PLANS: dict[str, BenchPlan] | None = None


def bench_plan(name: str) -> BenchPlan:
    global _PLANS
    if _PLANS is None:
        _PLANS = _plans()
    get_mechanism(name)
    return _PLANS[name]


def _audit_pairs(m: BenchMechanism):
    from htdp_verify.privacy import Pair as APair

    return [APair(p.d1, p.d2, p.label + ("" if p.source == "pattern" else " [extreme]"), m.relation) for p in m.pairs]


def pair_search(m, pairs, plan, n_search_total: int, n_final: int, alpha: float, rng):
    """Successive halving over ``pairs`` with ``n_search_total`` releases per side: all pairs on a first slice
    (40 %), the best third on a second (60 %), ranked by :func:`_honest_search`.  Returns
    ``(best pair, log, releases drawn per side)``."""
    keep, log, drawn = list(pairs), [], 0
    for share, k in [(0.4, len(pairs)), (0.6, max(1, math.ceil(len(pairs) / 3)))]:
        keep = keep[:k]
        n_s = max(1000, int(share * n_search_total / len(keep)))
        ranked = _honest_search(m, keep, plan, n_s, n_final, alpha, rng)
        drawn += n_s * len(keep)
        log.append([{"pair": p.label, "predicted": v, "event": ev, "n_per_side": n_s} for p, v, ev in ranked])
        keep = [p for p, _, _ in ranked]
        if len(keep) == 1:
            break
    return keep[0], log, drawn


def audit_mechanism(name: str, *, n_per_side: int, rng: np.random.Generator, alpha: float = 0.05,
                    search_share: float | None = None, select_share: float | None = None, check_name=None):
    """Audit one catalogue mechanism at its claimed ε with at most ``n_per_side`` releases per side in total.

    Budget per side: ``search_share`` for a successive-halving pair search (all pairs on a first slice, the best
    third on a second, larger slice; no α spent: the certification samples are fresh), ``select_share`` for the
    auditor's event selection, the rest for certification.  Returns the auditor's ``AuditResult`` with benchmark
    facts added to ``details["benchmark"]``.
    """
    from htdp_verify.privacy import audit

    m = get_mechanism(name)
    plan = bench_plan(name)
    n_per_side = check_int("n_per_side", n_per_side, minimum=1000)
    check_rng(rng)
    s_share = plan.search_share if search_share is None else search_share
    e_share = plan.select_share if select_share is None else select_share
    t0 = _now()
    pairs = _audit_pairs(m)
    n_search_total = 0
    if len(pairs) > 1:  # the plan's share, raised to its minimum but never above 40 % of the budget
        n_search_total = int(min(max(s_share * n_per_side, plan.search_min), max(s_share, 0.4) * n_per_side))
    n_select = max(2000, int(e_share * n_per_side))
    n_cert = n_per_side - n_search_total - n_select
    if len(pairs) > 1:
        best, search_log, drawn_search = pair_search(m, pairs, plan, n_search_total, n_cert, alpha, rng)
        n_cert = max(1000, n_per_side - drawn_search - n_select)
    else:
        best, search_log, drawn_search = pairs[0], [], 0
    res = audit(m, m.claim(), pairs=[best], n_samples=n_cert, n_select=n_select, alpha=alpha,
                attacks=plan.make_attacks(), rng=rng, name=check_name or f"benchmark.{name}")
    res.n_samples = int(res.n_samples + 2 * drawn_search)
    res.seconds = _now() - t0
    res.details["benchmark"] = {
        "mechanism": name,
        "claimed_epsilon": m.claimed_epsilon,
        "true_epsilon": m.true_epsilon,
        "pair_epsilon": m.pair_epsilon,
        "relation": m.relation,
        "expected_verdict": m.expected_verdict,
        "matches_ground_truth": (res.verdict == "violated") == m.buggy,
        "dpsniper_lr": m.dpsniper_lr,
        "dpsniper_mlp": m.dpsniper_mlp,
        "statdp_runs": list(m.statdp_runs) if m.statdp_runs else None,
        "samples_per_side": res.n_samples // 2,
        "budget_per_side": {"search": drawn_search, "select": n_select, "certify": n_cert},
        "pair_search": search_log,
        "white_box": plan.white_box,
        "attacks": res.details.get("selection", {}).get("attacks"),
        "seconds": res.seconds,
    }
    return res


# pair search (see ``_honest_search``): selection pessimism (the auditor's own selection uses 3 s.e.), held-out
# pessimism, events re-counted per pair, cross-fitting
SEARCH_SELECT_Z = 3.0
SEARCH_HELDOUT_Z = 1.0
SEARCH_TOP = 4
SEARCH_CROSSFIT = True


def _search_select(atts, Y1, Y2, ctx):
    """The attacks' events on (Y1, Y2), best predicted first; when nothing survives the stringent selection at
    this size (every prediction 0), the selection is redone at 1 s.e. so the pair still has an event to be
    judged by."""
    import dataclasses

    evs = [e for a in atts for e in a.select(Y1, Y2, ctx)]
    if ctx.z > 1 and max((e.predicted for e in evs), default=0.0) <= 0:
        c1 = dataclasses.replace(ctx, z=1.0)
        evs = [e for a in atts for e in a.select(Y1, Y2, c1)]
    evs.sort(key=lambda e: -e.predicted)
    return evs


def _honest_search(m, pairs, plan, n_s, n_final, alpha, rng, top=None):
    """Rank ``pairs`` by an honest prediction of the bound each would certify with ``n_final`` releases per side.

    On ``n_s`` releases per side, events are selected on one half by the auditor's attacks at
    ``SEARCH_SELECT_Z`` s.e. of pessimism (as the audit itself selects; redone at 1 s.e. when nothing survives
    at this size) and the ``top`` best are re-counted on the other half with ``SEARCH_HELDOUT_Z`` s.e. of
    pessimism; the best re-counted prediction is the pair's score, ties (nothing resolvable) broken by the
    smoothed held-out log-ratio.  With ``SEARCH_CROSSFIT`` the halves swap roles and the two scores are
    averaged.  Spends no α: the audit certifies on fresh samples.

    Measured (``pair_search`` alone, 30 seeds; good = a pair whose oracle ceiling clearly exceeds the claim):
    SVT4 10/30 at 6·10⁵ releases per side, 19/30 at 2·10⁶; RNM3 22/30 at 5·10⁵.  Selection at 1 s.e. (the
    previous setting) let SVT3's search chase lucky rare events: SVT3 at 10⁷ was flagged at 3/6 seeds, at
    3 s.e. 6/6.  A plug-in held-out score (no pessimism) found SVT4's good pairs more often (18/30, 26/30) but
    at full budgets, where the final confidence interval is narrow, it ranked pairs by the noise of small
    held-out counts: the full bench missed RNM3 (0.045) and fell to 0.24 on RAPPOR.  2 s.e. here made the pair
    choice worse for rare-outcome events (RNM1/2, SVT2).  Returns ``[(pair, predicted, event text)]`` best first.
    """
    from htdp_verify.privacy.adapters import draw
    from htdp_verify.privacy.attacks import SelectionContext, make_attacks, predicted_bound
    import dataclasses

    top = SEARCH_TOP if top is None else top
    ctx = SelectionContext(n_final=n_final, alpha=alpha, z=SEARCH_SELECT_Z, rng=rng)
    out = []
    for p in pairs:
        Y1 = draw(m, p.d, n_s, rng)
        Y2 = draw(m, p.d_prime, n_s, rng)
        h = n_s // 2
        atts = make_attacks(plan.make_attacks(), Y1[:h])
        c = dataclasses.replace(ctx, pair=(p.d, p.d_prime))
        folds = [(slice(0, h), slice(h, n_s))]
        if SEARCH_CROSSFIT:
            folds.append((slice(h, n_s), slice(0, h)))
        preds, ties, texts = [], [], []
        for tr, te in folds:
            evs = _search_select(atts, Y1[tr], Y2[tr], c)
            nb = Y1[te].shape[0]
            best, best_ev, tie = 0.0, "", -math.inf
            for e in evs[:top]:
                k1 = int(np.count_nonzero(e.indicator(Y1[te])))
                k2 = int(np.count_nonzero(e.indicator(Y2[te])))
                kn, kd = (k1, k2) if e.orientation > 0 else (k2, k1)
                v = float(predicted_bound(kn / nb, kd / nb, n_final, alpha, 0.0, "epsilon", nb, nb,
                                          SEARCH_HELDOUT_Z))
                t = math.log((kn + 1) / (kd + 1))
                if (v, t) > (best, tie):
                    best, best_ev, tie = v, e.describe(), t
            preds.append(best)
            ties.append(tie if math.isfinite(tie) else 0.0)
            texts.append(best_ev)
        out.append((p, float(np.mean(preds)), texts[int(np.argmax(preds))], float(np.mean(ties))))
    out.sort(key=lambda t: (-t[1], -t[3]))
    return [t[:3] for t in out]


def _now():
    import time

    return time.perf_counter()


def _fmt(x, nd=4):
    if x is None:
        return "—"
    if isinstance(x, (list, tuple)):
        return " / ".join(_fmt(v, nd) for v in x)
    x = float(x)
    if math.isnan(x):
        return "—"
    if math.isinf(x):
        return "∞"
    return f"{x:.{nd}g}"


def _bench_one(name, n, seed, alpha):
    """Worker: audit ``name`` with its own generator (SeedSequence of the run seed and the name)."""
    import zlib

    rng = np.random.default_rng(np.random.SeedSequence([seed, zlib.crc32(name.encode())]))
    try:
        return audit_mechanism(name, n_per_side=n, rng=rng, alpha=alpha)
    except Exception as exc:  # a failing mechanism must not sink the table
        from htdp_verify.results import CheckResult

        return CheckResult(f"benchmark.{name}", "error", "epsilon_lb", summary=f"{type(exc).__name__}: {exc}",
                           details={"error": repr(exc), "benchmark": {"mechanism": name}})


def run_bench(*, quick: bool, out_dir, seed: int, progress: bool = True, names=None, n_jobs: int = 2,
              alpha: float = 0.05, seeds: int = 1) -> list:
    """Audit every benchmark mechanism at its claimed ε and write ``bench.md``, ``bench.csv`` and ``bench.png``.

    Parameters
    ----------
    quick: small budgets (``BenchPlan.n_quick`` releases per side; about a minute) instead of the full ones
        (``n_full`` ≤ 2·10⁷ per side).
    out_dir: folder for the table and figure (created).
    seed: run seed; mechanism ``name`` gets ``SeedSequence([seed, crc32(name)])`` so rows reproduce alone.
    progress: print one line per mechanism.
    names: subset of mechanisms (default: all); n_jobs: worker processes (default 2); alpha: per-audit error.
    seeds: run the whole suite with ``seeds`` run seeds ``seed, seed + 1, …``; the main table is the first
        seed's, and ``bench_seeds.md`` / ``.csv`` / ``.png`` give each row's median and range over the seeds,
        how often it was flagged and how often it reached DP-Sniper's number (a single run of a row whose
        oracle ceiling is close to DP-Sniper's number says little; this says how often); ``bench_runs.csv``
        has one line per (mechanism, seed).

    Returns the ``AuditResult`` of every mechanism for the first seed (verdict on the mechanism's claim), in
    catalogue order.
    """
    from pathlib import Path

    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    seed = check_int("seed", seed)
    n_jobs = check_int("n_jobs", n_jobs, minimum=1)
    seeds = check_int("seeds", seeds, minimum=1)
    names = list(MECHANISMS) if names is None else [get_mechanism(n).name for n in names]
    budgets = {n: (bench_plan(n).n_quick if quick else bench_plan(n).n_full) for n in names}
    order = sorted(names, key=lambda n: -budgets[n])  # longest first for load balance
    jobs = [(n, seed + i) for i in range(seeds) for n in order]
    t0 = _now()
    results = {}
    if n_jobs > 1 and len(jobs) > 1:
        from joblib import Parallel, delayed

        it = Parallel(n_jobs=n_jobs, return_as="generator_unordered")(
            delayed(lambda n, s: (n, s, _bench_one(n, budgets[n], s, alpha)))(n, s) for n, s in jobs)
    else:
        it = ((n, s, _bench_one(n, budgets[n], s, alpha)) for n, s in jobs)
    for n, s, r in it:
        results[(n, s)] = r
        if progress:
            tag = f" seed {s}" if seeds > 1 else ""
            print(f"[{_now() - t0:7.1f}s] {n:26s}{tag} {r.verdict:12s} eps_lb={_fmt(r.estimate)}  "
                  f"({r.seconds:.1f}s)", flush=True)
    wall = _now() - t0
    out = [results[(n, seed)] for n in names]
    write_bench_tables(out, out_dir, quick=quick, seed=seed, wall=wall, n_jobs=n_jobs)
    if seeds > 1:
        per_seed = {seed + i: [results[(n, seed + i)] for n in names] for i in range(seeds)}
        write_seed_tables(per_seed, out_dir, quick=quick, wall=wall, n_jobs=n_jobs)
    return out


SEED_COLUMNS = ["mechanism", "claimed_eps", "true_eps", "expected", "n_seeds", "eps_lb_median", "eps_lb_min",
                "eps_lb_max", "flagged", "matches_ground_truth", "dpsniper_best", "meets_dpsniper",
                "ratio_median_vs_dpsniper", "ceiling", "ceiling_q05", "ceiling_q95", "p_oracle_meets_dpsniper",
                "samples_per_side_max", "seconds_median"]


def seed_rows(per_seed: dict, tables: dict | None = None) -> list[dict]:
    """One row per mechanism summarising ``{seed: [results in catalogue order]}`` over the seeds.

    ``tables`` may hold ``{seed: bench_rows(results)}`` already computed (the oracle columns cost seconds)."""
    tables = [bench_rows(rs) if tables is None else tables[s] for s, rs in sorted(per_seed.items())]
    rows = []
    for i, first in enumerate(tables[0]):
        runs = [t[i] for t in tables]
        lbs = np.array([r["eps_lb"] for r in runs], dtype=float)
        ok = lbs[~np.isnan(lbs)]
        m = get_mechanism(first["mechanism"])
        dps = m.dpsniper_best
        flagged = sum(r["verdict"] == "violated" for r in runs)
        right = sum((r["verdict"] == "violated") == (m.expected_verdict == "violated") for r in runs
                    if r["verdict"] != "error")
        med = float(np.median(ok)) if ok.size else float("nan")
        rows.append({
            "mechanism": m.name, "claimed_eps": m.claimed_epsilon, "true_eps": m.true_epsilon,
            "expected": m.expected_verdict, "n_seeds": len(runs), "eps_lb_median": med,
            "eps_lb_min": float(ok.min()) if ok.size else float("nan"),
            "eps_lb_max": float(ok.max()) if ok.size else float("nan"),
            "flagged": flagged, "matches_ground_truth": right, "dpsniper_best": dps,
            "meets_dpsniper": None if dps is None else int(np.sum(ok >= dps)),
            "ratio_median_vs_dpsniper": None if dps is None or math.isnan(med) else med / dps,
            "ceiling": first["ceiling"], "ceiling_q05": first["ceiling_q05"], "ceiling_q95": first["ceiling_q95"],
            "p_oracle_meets_dpsniper": first["p_oracle_meets_dpsniper"],
            "samples_per_side_max": max(r["samples_per_side"] for r in runs),
            "seconds_median": float(np.median([r["seconds"] for r in runs])),
        })
    return rows


def write_seed_tables(per_seed: dict, out_dir, *, quick: bool, wall: float, n_jobs: int):
    """``bench_seeds.csv``, ``bench_seeds.md`` and ``bench_seeds.png``: every row over several run seeds."""
    import csv
    from pathlib import Path

    out_dir = Path(out_dir)
    tables = {s: bench_rows(rs) for s, rs in per_seed.items()}
    rows = seed_rows(per_seed, tables)
    k = len(per_seed)
    with open(out_dir / "bench_seeds.csv", "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=SEED_COLUMNS)
        w.writeheader()
        for row in rows:
            w.writerow({c: ("inf" if isinstance(v, float) and math.isinf(v) else v) for c, v in row.items()})
    seeds = sorted(per_seed)
    run_cols = ["mechanism", "seed", "verdict", "expected", "eps_lb", "possibly_unbounded", "samples_per_side",
                "seconds", "pair", "event"]
    with open(out_dir / "bench_runs.csv", "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=run_cols)
        w.writeheader()
        for s in seeds:
            for row in tables[s]:
                w.writerow({"seed": s, **{c: row[c] for c in run_cols if c != "seed"}})
    wrong = sum(k - r["matches_ground_truth"] for r in rows)
    n_ok_runs = sum(k for r in rows if r["expected"] != "violated")
    false_flags = sum(r["flagged"] for r in rows if r["expected"] != "violated")
    from scipy.stats import binom

    # P(at least this many false flags) if every correct run were flagged with probability exactly alpha = 5 %
    p_false = float(binom.sf(false_flags - 1, n_ok_runs, 0.05)) if n_ok_runs else float("nan")
    lines = [
        f"# Auditor benchmark over {k} seeds ({'quick' if quick else 'full'} profile, seeds {seeds[0]}–{seeds[-1]})",
        "",
        f"{len(rows)} mechanisms × {k} seeds, wall time {wall:.0f} s with {n_jobs} worker process(es); each run "
        f"is one independent audit at 95 % with the row's budget. Verdicts against the ground truth: "
        f"{len(rows) * k - wrong} of {len(rows) * k} runs right. Runs of correct mechanisms flagged: "
        f"{false_flags} of {n_ok_runs} (at most 5 % each by design, i.e. ≤ {0.05 * n_ok_runs:.1f} expected; "
        f"P(≥ {false_flags} | 5 %) = {_fmt(p_false, 2)}).",
        "",
        "| mechanism | claimed ε | true ε | expected | flagged | our ε_lb median [min, max] | DP-Sniper "
        "| runs ≥ DP-Sniper | median / DP-Sniper | oracle ceiling [5 %, 95 %] | P(oracle ≥ DP-Sniper) |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        meets = "—" if r["meets_dpsniper"] is None else f"{r['meets_dpsniper']}/{k}"
        ceil = "—" if r["ceiling"] is None else (
            f"{_fmt(r['ceiling'])} [{_fmt(r['ceiling_q05'])}, {_fmt(r['ceiling_q95'])}]")
        lines.append(
            f"| {r['mechanism']} | {_fmt(r['claimed_eps'])} | {_fmt(r['true_eps'])} | {r['expected']} | "
            f"{r['flagged']}/{k} | {_fmt(r['eps_lb_median'])} [{_fmt(r['eps_lb_min'])}, {_fmt(r['eps_lb_max'])}] | "
            f"{_fmt(r['dpsniper_best'])} | {meets} | {_fmt(r['ratio_median_vs_dpsniper'], 3)} | {ceil} | "
            f"{_fmt(r['p_oracle_meets_dpsniper'], 2)} |")
    lines += [
        "",
        "![ε lower bounds over seeds](bench_seeds.png)",
        "",
        "Notes.",
        "* 'flagged' counts runs that certified ε above the claim; for a correct mechanism each run does so with "
        "probability ≤ 5 %. DP-Sniper is the better of its LR / MLP bounds (90 %, 2·10⁸ samples per side), "
        "cited from `anchors_dp_auditing.md` §3.1.",
        "* The oracle ceiling and its 5–95 % range are for the first seed's budget (see `bench.md`); P(oracle ≥ "
        "DP-Sniper) is the chance that one run of an auditor that knows the exact laws reaches DP-Sniper's number.",
        "* The first seed's full table, with pairs and events, is `bench.md`; every run (seed, verdict, ε_lb, "
        "pair, event) is in `bench_runs.csv`.",
    ]
    (out_dir / "bench_seeds.md").write_text("\n".join(lines) + "\n")
    _seed_figure(rows, out_dir / "bench_seeds.png", quick=quick, k=k)


def _figure_start(rows):
    """Axes shared by the bench figures: one line per mechanism, the true ε (∞ drawn at 20) marked."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    cap = 20.0

    def c(v):
        return np.nan if v is None else min(float(v), cap)

    y = np.arange(len(rows))
    fig, ax = plt.subplots(figsize=(8, 0.32 * len(rows) + 1.6))
    ax.scatter([c(r["true_eps"]) for r in rows], y, marker="|", s=200, color="k", label="true ε (∞ drawn at 20)")
    ax.scatter([c(get_mechanism(r["mechanism"]).dpsniper_best) for r in rows], y, marker="s", color="#1f77b4",
               label="DP-Sniper, better of LR / MLP (90 %, 2·10⁸)")
    return fig, ax, y, c


def _figure_finish(fig, ax, rows, path, title: str):
    import matplotlib.pyplot as plt

    ax.set_xscale("log")
    ax.set_xlim(0.01, 30)
    ax.set_yticks(np.arange(len(rows)), [r["mechanism"] for r in rows], fontsize=8)
    ax.invert_yaxis()
    ax.set_xlabel("ε")
    ax.set_title(title, fontsize=10)
    ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.07), ncol=2, frameon=False)
    ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _seed_figure(rows, path, *, quick: bool, k: int):
    fig, ax, y, c = _figure_start(rows)
    has = [i for i, r in enumerate(rows) if r["ceiling"] is not None]
    if has:
        ax.errorbar([c(rows[i]["ceiling"]) for i in has], y[has] + 0.25,
                    xerr=[[c(rows[i]["ceiling"]) - c(rows[i]["ceiling_q05"]) for i in has],
                          [c(rows[i]["ceiling_q95"]) - c(rows[i]["ceiling"]) for i in has]],
                    fmt="4", color="#6a1b9a", ms=9, lw=1, label="oracle ceiling, 5–95 % of one run")
    med = np.array([c(r["eps_lb_median"]) for r in rows])
    lo = np.array([c(r["eps_lb_min"]) for r in rows])
    hi = np.array([c(r["eps_lb_max"]) for r in rows])
    cols = ["#c62828" if r["expected"] == "violated" else "#2e7d32" for r in rows]
    ax.hlines(y, lo, hi, colors=cols, lw=2, alpha=0.6)
    ax.scatter(med, y, marker="o", color=cols, zorder=3, label=f"ours: median, min–max over {k} seeds (red = buggy)")
    _figure_finish(fig, ax, rows, path,
                   f"Certified ε lower bounds over {k} seeds ({'quick' if quick else 'full'} profile)")


BENCH_COLUMNS = ["mechanism", "relation", "claimed_eps", "true_eps", "pair_eps", "verdict", "expected",
                 "eps_lb", "confidence", "possibly_unbounded", "samples_per_side", "seconds", "dpsniper_lr",
                 "dpsniper_mlp", "statdp_run1", "statdp_run2", "ratio_vs_dpsniper", "meets_dpsniper", "ceiling",
                 "ceiling_pair", "ratio_vs_ceiling", "dpsniper_within_ceiling", "ceiling_q05", "ceiling_q95",
                 "p_oracle_meets_dpsniper", "pair", "event", "attack"]


def bench_rows(results) -> list[dict]:
    rows = []
    for r in results:
        b = r.details.get("benchmark", {})
        m = get_mechanism(b.get("mechanism", r.name.split("benchmark.", 1)[-1]))
        dps = m.dpsniper_best
        lb = float(r.estimate) if r.verdict != "error" else float("nan")
        ratio = lb / dps if dps and not math.isnan(lb) else None
        unb = bool(r.details.get("detectability", {}).get("possibly_unbounded", False))
        ceil = spread = None
        if r.verdict != "error" and r.n_samples // 2 >= 1:
            import zlib

            from audits.bench_ceiling import oracle_ceiling, oracle_spread

            ceil = oracle_ceiling(m.name, r.n_samples // 2, r.alpha)
            if ceil is not None:  # the oracle's own run-to-run scatter (seeded by the name: rows are reproducible)
                spread = oracle_spread(m.name, r.n_samples // 2, r.alpha, target=dps,
                                       rng=np.random.default_rng(zlib.crc32(m.name.encode())))
        cval = None if ceil is None else ceil["epsilon"]
        rows.append({
            "mechanism": m.name, "relation": m.relation, "claimed_eps": m.claimed_epsilon,
            "true_eps": m.true_epsilon, "pair_eps": m.pair_epsilon, "verdict": r.verdict,
            "expected": m.expected_verdict, "eps_lb": lb, "confidence": 1 - r.alpha,
            "possibly_unbounded": unb, "samples_per_side": r.n_samples // 2, "seconds": r.seconds,
            "dpsniper_lr": m.dpsniper_lr, "dpsniper_mlp": m.dpsniper_mlp,
            "statdp_run1": m.statdp_runs[0] if m.statdp_runs else None,
            "statdp_run2": m.statdp_runs[1] if m.statdp_runs else None,
            "ratio_vs_dpsniper": ratio, "meets_dpsniper": None if dps is None else bool(lb >= dps),
            "ceiling": cval, "ceiling_pair": None if ceil is None else ceil["pair"],
            "ratio_vs_ceiling": lb / cval if cval and not math.isnan(lb) else None,
            "dpsniper_within_ceiling": None if (cval is None or dps is None) else bool(dps <= cval),
            "ceiling_q05": None if spread is None else spread["q05"],
            "ceiling_q95": None if spread is None else spread["q95"],
            "p_oracle_meets_dpsniper": None if spread is None else spread["p_reaches_target"],
            "pair": r.details.get("pair", {}).get("label", ""), "event": r.details.get("event", {}).get("event", ""),
            "attack": r.details.get("event", {}).get("attack", "") + (" (white-box)" if b.get("white_box") else ""),
        })
    return rows


def write_bench_tables(results, out_dir, *, quick: bool, seed: int, wall: float, n_jobs: int):
    """``bench.csv`` (every column), ``bench.md`` (the table with notes and citations) and ``bench.png``."""
    import csv
    from pathlib import Path

    out_dir = Path(out_dir)
    rows = bench_rows(results)
    with open(out_dir / "bench.csv", "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=BENCH_COLUMNS)
        w.writeheader()
        for row in rows:
            w.writerow({k: ("inf" if isinstance(v, float) and math.isinf(v) else v) for k, v in row.items()})
    lines = [
        f"# Auditor benchmark ({'quick' if quick else 'full'} profile, seed {seed})",
        "",
        f"{len(rows)} mechanisms, wall time {wall:.0f} s with {n_jobs} worker process(es). Our ε_lb is certified "
        "at the stated confidence on fresh samples, by an exact test (the conditional binomial test on Poissonised "
        "counts for pure ε, or two Clopper–Pearson bounds, whichever the selection split predicted tighter); "
        "'samples/side' counts every "
        "release drawn on one side (pair search + event selection + certification).",
        "",
        "| mechanism | rel. | claimed ε | true ε | verdict (expected) | our ε_lb | conf. | samples/side | s "
        "| DP-Sniper LR / MLP | StatDP r1 / r2 | ours / DP-Sniper | oracle ceiling | ours / ceiling "
        "| P(oracle ≥ DP-Sniper) |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        verdict = row["verdict"] + (" — possibly unbounded" if row["possibly_unbounded"] else "")
        mark = "" if (row["verdict"] == "violated") == (row["expected"] == "violated") else " **≠**"
        ratio = "—" if row["ratio_vs_dpsniper"] is None else (
            f"{row['ratio_vs_dpsniper']:.3g}" + ("" if row["meets_dpsniper"] else " (below)"))
        lines.append(
            f"| {row['mechanism']} | {row['relation']} | {_fmt(row['claimed_eps'])} | {_fmt(row['true_eps'])} | "
            f"{verdict} ({row['expected']}){mark} | {_fmt(row['eps_lb'])} | {row['confidence']:.0%} | "
            f"{row['samples_per_side']:.3g} | {row['seconds']:.1f} | {_fmt([row['dpsniper_lr'], row['dpsniper_mlp']])}"
            f" | {_fmt([row['statdp_run1'], row['statdp_run2']])} | {ratio} | {_fmt(row['ceiling'])}"
            + (" ‡" if row["dpsniper_within_ceiling"] is False else "")
            + f" | {_fmt(row['ratio_vs_ceiling'], 3)} | {_fmt(row['p_oracle_meets_dpsniper'], 2)} |")
    lines += [
        "",
        "![ε lower bounds](bench.png)",
        "",
        "Notes.",
        "* DP-Sniper and StatDP columns are data cited from `anchors_dp_auditing.md` §3.1 (DP-Sniper's logs "
        "`eth-sri/dp-sniper/eval_sp2021/reference-results`): ε lower bounds at **90 %** confidence from 2·10⁸ "
        "final samples per side plus ~3·10⁷ for search; StatDP ran through DP-Sniper's wrapper (two runs). "
        "'ours / DP-Sniper' divides by the better of DP-Sniper's LR and MLP bounds.",
        "* **Oracle ceiling** (`audits/bench_ceiling.py`): the median bound of an auditor that knows both output "
        "laws exactly, picks the best catalogue pair and the best likelihood-ratio event, and spends this row's "
        "whole per-side budget on certification with our tests at our confidence. No single-event auditor should "
        "be expected above it at this budget (one run can land slightly above a median). **‡** marks rows where "
        "DP-Sniper's published number (90 %, 2·10⁸ samples) lies above the ceiling, i.e. is out of reach for "
        "any auditor at ≤ 2·10⁷ samples per side and 95 % confidence. Shown where the law is exact here.",
        "* **P(oracle ≥ DP-Sniper)** (`oracle_spread`): the oracle's own bound is random (its certification counts "
        "are); this is the probability that one run of it reaches DP-Sniper's published number at this row's "
        "budget and our confidence (4000 simulated certifications; Monte Carlo s.e. ≤ 0.008). Below 0.5 no "
        "auditor should be expected to match DP-Sniper on that row with this budget; near 0.5–0.7 a single run "
        "matching it or not is a coin flip. bench.csv adds the oracle's 5–95 % range (`ceiling_q05`, "
        "`ceiling_q95`).",
        "* True ε is derived per mechanism (`true_epsilon_note` in `audits/benchmark.py`; "
        "`benchmark_mechanisms.md`); pair-ε (in bench.csv) is the best any auditor can certify on the patterns.",
        "* RAPPOR: DP-Sniper's MLP 0.3008 exceeds the exact pair-ε 0.3001 of its own pair (a 90 % miss). Our "
        "pairs add in-domain extreme pairs from the spec (e.g. RAPPOR values 7 vs 6, RNM1/SVT1/SVT4 "
        "(9…, −9) vs (10…, −10), RNM4 (9, −10⁴) vs (10, −9⁴), where {y < 10} has probability 0.0078 on one "
        "side and 0 on the other); all are neighbours under the same relation and inside DP-Sniper's domain.",
        "* Attacks marked white-box use the mechanism's code (the naive float Laplace's reachability test); "
        "the others are generic event families of the auditor (thresholds, outcome unions, logistic scores, "
        "`MixedLogisticAttack` for releases mixing codes and numbers) or post-processings declared in "
        "`BenchPlan` (codes of SVT outputs, the SVT4 half of SVT34Parallel, first differences, indicators "
        "above the median).",
        "* TruncatedGeometric is instantiated with ε = 0.1 but guarantees ln(9/8) = 0.1178; that is its claim here.",
        "* PrefixSum is 0.1-DP under N1 (the `PrefixSum_N1` control) but 1.0 under DP-Sniper's N∞ pairs.",
    ]
    (out_dir / "bench.md").write_text("\n".join(lines) + "\n")
    _bench_figure(rows, out_dir / "bench.png", quick=quick)


def _bench_figure(rows, path, *, quick: bool):
    fig, ax, y, c = _figure_start(rows)
    ax.scatter([c(r["claimed_eps"]) for r in rows], y, marker="x", color="grey", label="claimed ε")
    ax.scatter([c(r.get("ceiling")) for r in rows], y, marker="4", s=90, color="#6a1b9a",
               label="oracle ceiling at our budget")
    ours = [c(r["eps_lb"]) for r in rows]
    cols = ["#c62828" if r["verdict"] == "violated" else "#2e7d32" for r in rows]
    ax.scatter(ours, y, marker="o", color=cols, label="ours (95 %; red = violation)", zorder=3)
    _figure_finish(fig, ax, rows, path, f"Certified ε lower bounds ({'quick' if quick else 'full'} profile)")


# ---------------------------------------------------------------------------------------------------------
# Registered checks: one per mechanism ("benchmark.<name>")
# ---------------------------------------------------------------------------------------------------------
def _auditor_check(name: str):
    """Check ``benchmark.<name>``: does the auditor get this ground-truth mechanism right?

    Runs a quick-profile-sized audit (``BenchPlan.n_quick`` per side; 4× that, at most the full budget, in the
    ``full`` profile).  The
    returned verdict is about the **auditor**: ``"violated"`` when it flags a mechanism whose true ε is within
    its claim (a false alarm: the auditor is invalid), ``"inconclusive"`` when a buggy mechanism is not flagged at
    this size (lack of power, not an error), ``"consistent"`` when the audit matches the ground truth.  The
    audit itself (ε_lb, pair, event, counts) is in ``details``.
    """

    def check(ctx):
        from htdp_verify.results import CheckResult

        m = get_mechanism(name)
        plan = bench_plan(name)
        n = plan.n_quick if ctx.profile == "quick" else min(4 * plan.n_quick, plan.n_full)
        r = audit_mechanism(name, n_per_side=n, rng=ctx.rng, check_name=f"benchmark.{name}")
        flagged = r.verdict == "violated"
        if flagged and not m.buggy:
            verdict, what = "violated", "FALSE ALARM: the auditor flagged a mechanism whose true ε is within its claim"
        elif m.buggy and not flagged:
            verdict, what = "inconclusive", "buggy mechanism not flagged at this sample size"
        else:
            verdict, what = "consistent", "auditor verdict matches the ground truth"
        unb = " (possibly unbounded)" if r.details.get("detectability", {}).get("possibly_unbounded") else ""
        summary = (f"{what}: claim ε={m.claimed_epsilon:.4g}, true ε={_fmt(m.true_epsilon)}; audit says {r.verdict}"
                   f"{unb} with ε_lb={r.estimate:.4g} at {1 - r.alpha:.0%} on {r.n_samples // 2} releases/side")
        return CheckResult(f"benchmark.{name}", verdict, "epsilon_lb", float(r.estimate), r.interval, r.alpha,
                           r.claim, r.n_samples, r.seconds, ctx.seed, r.provenance, summary,
                           {**r.details, "audit_verdict": r.verdict, "audit_summary": r.summary})

    check.__name__ = f"check_benchmark_{name}"
    check.__doc__ = f"Auditor vs ground truth on {name}."
    return check


def _register_checks():
    try:
        from htdp_verify.registry import register
    except ImportError:  # pragma: no cover - the engine always ships the registry
        return
    for name, m in MECHANISMS.items():
        kind = "buggy" if m.buggy else "correct"
        register(f"benchmark.{name}",
                 description=f"auditor vs ground truth: {name} ({kind}; claim {m.claimed_epsilon:.4g}, "
                             f"true {_fmt(m.true_epsilon)}, {m.relation})",
                 provenance=m.provenance, tags=("benchmark", "privacy"))(_auditor_check(name))


_register_checks()
