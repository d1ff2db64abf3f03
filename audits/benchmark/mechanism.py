"""The benchmark's mechanism record: :class:`BenchMechanism` (name, claimed and true ε, neighbour relation, input
pairs, output kind, vectorised sampler, published numbers of DP-Sniper and StatDP) and its input pairs.

Input pairs are the engine's :class:`~htdp_verify.privacy.Pair` under the query-level relations ``"N1"`` (one
query answer changes by ≤ 1) and ``"Ninf"`` (every answer may change by ≤ 1): StatDP / DP-Sniper's patterns
(:func:`htdp_verify.privacy.statdp_patterns`) plus in-domain extreme pairs from the spec (labels ending in
``[extreme]``).

Output kinds: ``"scalar"`` (continuous, shape ``(size,)``), ``"discrete"`` (integer-valued, ``(size,)``),
``"vector"`` (real, ``(size, d)``), ``"discrete-vector"`` (small integer codes, ``(size, d)``) and
``"bool-vector"`` (0/1, ``(size, d)``).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from htdp_verify._validate import check_int, check_rng
from htdp_verify.claims import PrivacyClaim, Provenance
from htdp_verify.privacy import Pair

__all__ = ["BenchMechanism", "OUTPUT_KINDS", "RELATIONS", "extreme_pair", "is_extreme"]

OUTPUT_KINDS = ("scalar", "discrete", "vector", "discrete-vector", "bool-vector")
RELATIONS = ("N1", "Ninf")
CHUNK_ROWS = 1 << 19  # rows drawn per inner call (caps temporaries at ~50 MB for 10 columns)

# Codes DP-Sniper uses in its SVT outputs.
SVT_ABORT = -1  # SVT1/2/4 codes: 1 = above, 0 = below, -1 = aborted
SVT3_BELOW, SVT3_ABORT = -1000.0, -2000.0
NUMSVT_ABORT = -1000.0


EXTREME_TAG = " [extreme]"


def extreme_pair(label: str, d1, d2, relation: str = "Ninf") -> Pair:
    """An in-domain extreme pair from the spec (inside DP-Sniper's domain [−10, 10], same neighbour relation)."""
    return Pair(np.asarray(d1, float), np.asarray(d2, float), label + EXTREME_TAG, relation)


def is_extreme(p: Pair) -> bool:
    return p.label.endswith(EXTREME_TAG)


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
        prov = Provenance(
            self.provenance.paper,
            self.provenance.location,
            self.provenance.equation,
            f"neighbours: {rel}" + (f"; {self.provenance.notes}" if self.provenance.notes else ""),
        )
        return PrivacyClaim(self.claimed_epsilon, 0.0, "replace", prov)

    def ordered_pairs(self, *, extremes: bool = True) -> list[tuple[np.ndarray, np.ndarray]]:
        """Every pair in both orders (DP-Sniper's 4 under N1, 16 under N∞, plus the extreme pairs)."""
        out = []
        for p in self.pairs:
            if is_extreme(p) and not extremes:
                continue
            out += [(p.d, p.d_prime), (p.d_prime, p.d)]
        return out

    def pair_list(self, *, extremes: bool = True) -> list[tuple[np.ndarray, np.ndarray]]:
        """The unordered pairs ``(d, d')``."""
        return [(p.d, p.d_prime) for p in self.pairs if extremes or not is_extreme(p)]

    # -- sampling ------------------------------------------------------------------------------------------
    def validate_input(self, query_input) -> np.ndarray:
        q = np.asarray(query_input, dtype=float)
        if q.ndim == 0 and self.input_dim == 1:
            q = q.reshape(1)
        if q.shape != (self.input_dim,):
            raise ValueError(
                f"query_input must have shape ({self.input_dim},) for {self.name}, got {np.shape(query_input)}"
            )
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
        return (
            f"BenchMechanism({self.name!r}, claimed={self.claimed_epsilon:g}, true={self.true_epsilon:g}, "
            f"{self.relation}, {self.output_kind})"
        )


# ---------------------------------------------------------------------------------------------------------
