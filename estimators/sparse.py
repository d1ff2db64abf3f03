"""Private top-s selection by peeling (iterated report-noisy-max with Laplace noise), a shared building block.

Hu, Ni, Xiao & Wang (2022), Alg. 4 "Peeling", taken from Cai, Wang & Zhang (2019, "The cost of privacy",
Alg. "Peeling" and Lemma 3.3 = Hu et al. Lemma 10); also the selection step of Hu et al. Algs. 3 and 5 and of
other sparse DP estimators.

The mechanism acts on a score vector ``v ∈ R^d`` whose ℓ∞ sensitivity over neighbouring datasets is at most the
declared ``sensitivity`` λ (Lemma 10's hypothesis ``‖v(D) − v(D')‖∞ ≤ λ``). With Laplace scale
``b = 2 λ √(3 s ln(1/δ)) / ε`` (the scale printed in both versions of Alg. 4, lines 4 and 7) it runs ``s`` rounds of
``j* = argmax_{j ∈ [d] ∖ S} |v_j| + w_{ij}`` with fresh ``w_i ~ Lap(b)^d`` and returns ``v_S + w̃_S`` with fresh
``w̃ ~ Lap(b)^d``. Readings (see the spec's Q1, Q2):

* ``argmax="remaining"`` (default, arXiv 2107.11136 Alg. 4 line 5: ``[d] ∖ S``) or ``"all"`` (the PODS '22
  text: argmax over all of ``[d]``, so an index can be chosen twice and fewer than s coordinates released).
* ``calibration="arxiv"`` (default) or ``"pods"``. The two versions differ not inside Alg. 4 but in the λ that
  Alg. 3 passes to it: arXiv ``2K²η₀(√s + 1)/m`` (the bound the privacy proof derives, from ``‖w^t‖₁ ≤ √s``) vs
  PODS ``2K²η₀√(s + 1)/m``. For the standalone mechanism ``sensitivity`` is the *true* ℓ∞ bound (the arXiv
  factor); ``"pods"`` calibrates the noise to ``λ · √(s + 1)/(√s + 1)``, i.e. it under-noises by the same ratio
  as the PODS misprint does in Alg. 3 (1.38× at s = 4, 1.21× at s = 16).
* ``noise_divisor`` c > 1 divides the scale (an explicitly under-noised control for audits); 1 = as printed.
* The paper's noise scale needs ``ln(1/δ) > 0``, and its privacy theorems state ``0 < ε, δ < 1``; ε = 1 is
  admitted as the boundary (the advanced-composition argument behind Lemma 10 is continuous there).

Release formats (``output``): ``"sparse"`` (default) a row ``[i_1 … i_s, y_1 … y_s]`` of the chosen indices in
increasing order (as floats) and their noisy values: the set S with ``v_S + w̃_S``, exactly the paper's output in
compact form; with ``argmax="all"`` repeated picks collapse and the row is padded with index −1 and value 0.
``"sequence"``: the same in selection order (a repeated index repeats its one noisy value). ``"dense"``: the
d-vector ``v_S + w̃_S``.
"""

from __future__ import annotations

import math

import numpy as np

from htdp_verify._validate import check_int, check_positive, check_rng
from htdp_verify.privacy import Pair, PrivacyGuarantee, statdp_patterns

from .base import Estimator, check_choice

__all__ = ["Peeling", "peeling_scale", "peel_rows"]

_CHUNK_BYTES = 2**20  # per noise buffer (two live while sampling); small chunks stay in cache


def _noisy_top_s(u, s, remaining, rng, z, z2, noise=True) -> np.ndarray:
    """Indices chosen by ``s`` rounds of ``argmax_j u_j + Z_j`` (fresh ``Z ~ Lap(1)^d`` per round) in ``z``'s rows.

    ``u``: scores already divided by the Laplace scale, shape ``(d,)`` (one vector for every row) or
    ``(rows, d)`` (one per row); ``z``, ``z2``: work buffers of shape ``(rows, d)``. ``remaining`` excludes indices
    chosen earlier (arXiv Alg. 4) instead of allowing repeats (PODS). ``noise=False`` draws nothing: the exact
    top-s (ties to the smallest index), the zero-noise limit."""
    n = z.shape[0]
    chosen = np.empty((n, s), dtype=np.int64)
    r_idx = np.arange(n)
    for r in range(s):
        if noise:
            rng.standard_exponential(out=z)  # Lap(1) = Exp(1) − Exp(1)
            rng.standard_exponential(out=z2)
            z -= z2
            z += u
        else:
            z[...] = u
        if remaining and r:
            z[r_idx[:, None], chosen[:, :r]] = -np.inf
        chosen[:, r] = np.argmax(z, axis=1)
    return chosen


def _share_repeated(chosen, values) -> np.ndarray:
    """With argmax over all of [d], one noise draw per coordinate: repeats of an index share its first value."""
    first = np.argmax(chosen[:, :, None] == chosen[:, None, :], axis=1)
    return np.take_along_axis(values, first, axis=1)


def peel_rows(
    V, s: int, scale: float, *, rng: np.random.Generator, argmax: str = "remaining", absolute: bool = True
) -> np.ndarray:
    """Peeling (Alg. 4) applied to each row of ``V`` independently: one score vector per release.

    ``V`` has shape ``(rows, d)``; row ``i`` gets its own selection noise and value noise, so rows are independent
    releases (used by DP-IHT, :mod:`estimators.iht`, where each release carries its own iterate). Returns the dense
    ``(rows, d)`` array ``v_S + w̃_S`` (zeros off the chosen set). ``scale`` is the Laplace scale b itself (e.g.
    :func:`peeling_scale`), not a sensitivity; ``scale = 0`` is the noise-free limit (exact top-s of ``|v|``, ties to
    the smallest index, values unchanged; no random draws). Memory: two ``(rows, d)`` buffers; callers chunk rows.
    """
    V = np.asarray(V, dtype=float)
    if V.ndim != 2 or V.shape[1] < 1:
        raise ValueError(f"V must be a (rows, d) array of score vectors, got shape {V.shape}")
    if not np.all(np.isfinite(V)):
        raise ValueError("V must be finite (found NaN or inf)")
    s = check_int("s", s, minimum=1)
    n, d = V.shape
    if s > d:
        raise ValueError(f"s must lie in [1, d={d}], got s={s}")
    scale = check_positive("scale", scale, allow_zero=True)
    check_choice("argmax", argmax, ("remaining", "all"))
    check_rng(rng)
    score = np.abs(V) if absolute else V
    z, z2 = np.empty((n, d)), np.empty((n, d))
    noise = scale > 0
    chosen = _noisy_top_s(score / scale if noise else score, s, argmax == "remaining", rng, z, z2, noise=noise)
    values = np.take_along_axis(V, chosen, axis=1)
    if noise:
        values = values + scale * (rng.standard_exponential((n, s)) - rng.standard_exponential((n, s)))
        if argmax == "all" and s > 1:
            values = _share_repeated(chosen, values)
    out = np.zeros((n, d))
    out[np.arange(n)[:, None], chosen] = values
    return out


def peeling_scale(s: int, epsilon: float, delta: float, sensitivity: float) -> float:
    """Laplace scale of Alg. 4 (Hu et al. 2022; Cai, Wang & Zhang 2019): ``2 λ √(3 s ln(1/δ)) / ε``."""
    return 2.0 * sensitivity * math.sqrt(3.0 * s * math.log(1.0 / delta)) / epsilon


class Peeling(Estimator):
    """Peeling: private top-s selection of a score vector plus Laplace-noised values (Hu et al. 2022, Alg. 4).

    Parameters
    ----------
    s : number of rounds (indices selected), 1 ≤ s ≤ d.
    epsilon, delta : the claimed (ε, δ); 0 < ε ≤ 1, 0 < δ < 1.
    sensitivity : λ > 0, the ℓ∞ sensitivity of the score vector over neighbouring datasets.
    argmax : ``"remaining"`` (arXiv; default) or ``"all"`` (PODS text).
    calibration : ``"arxiv"`` (default; noise for λ) or ``"pods"`` (noise for λ·√(s+1)/(√s+1)).
    noise_divisor : c > 0; the scale is divided by c (c > 1 under-noises). 1 = as printed.
    absolute : select on ``|v_j|`` (as printed) or on ``v_j``.
    output : ``"sparse"`` (default), ``"sequence"`` or ``"dense"`` (see the module docstring).

    The declared guarantee is the claim (ε, δ) whatever the variant (the variants are audit targets).
    Neighbouring inputs are score vectors within ℓ∞ distance ``sensitivity`` (what one replaced record can do to
    the scores under Lemma 10's hypothesis).
    """

    reference = "Hu, Ni, Xiao & Wang (2022), Alg. 4 (Peeling) and Lemma 10; Cai, Wang & Zhang (2019), Lemma 3.3"

    def __init__(
        self,
        s: int,
        epsilon: float,
        delta: float,
        sensitivity: float,
        *,
        argmax: str = "remaining",
        calibration: str = "arxiv",
        noise_divisor: float = 1.0,
        absolute: bool = True,
        output: str = "sparse",
    ):
        self.s = check_int("s", s, minimum=1)
        self.epsilon = check_positive("epsilon", epsilon)
        if self.epsilon > 1:
            raise ValueError(f"epsilon must lie in (0, 1] (the privacy theorem's range), got {epsilon!r}")
        d = float(delta) if isinstance(delta, (int, float)) and not isinstance(delta, bool) else None
        if d is None or not (0 < d < 1):
            raise ValueError(f"delta must lie in (0, 1), got {delta!r}")
        self.delta = d
        self.sensitivity = check_positive("sensitivity", sensitivity)
        self.argmax = check_choice("argmax", argmax, ("remaining", "all"))
        self.calibration = check_choice("calibration", calibration, ("arxiv", "pods"))
        self.noise_divisor = check_positive("noise_divisor", noise_divisor)
        if not isinstance(absolute, bool):
            raise ValueError(f"absolute must be True or False, got {absolute!r}")
        self.absolute = absolute
        self.output = check_choice("output", output, ("sparse", "sequence", "dense"))
        self.privacy = PrivacyGuarantee(self.epsilon, self.delta, "replace")

    @property
    def scale(self) -> float:
        """The Laplace scale b actually used (selection and values)."""
        lam = self.sensitivity
        if self.calibration == "pods":
            lam = lam * math.sqrt(self.s + 1) / (math.sqrt(self.s) + 1)
        return peeling_scale(self.s, self.epsilon, self.delta, lam) / self.noise_divisor

    def _scores(self, v) -> np.ndarray:
        arr = np.asarray(v, dtype=float)
        if arr.ndim != 1 or arr.size < 1:
            raise ValueError(f"v must be a non-empty 1-d score vector, got shape {arr.shape}")
        if not np.all(np.isfinite(arr)):
            raise ValueError("v must be finite (found NaN or inf); the mechanism never repairs its input")
        if self.s > arr.size:
            raise ValueError(f"s must lie in [1, d={arr.size}], got s={self.s}")
        return arr

    def __call__(self, v, *, rng: np.random.Generator) -> np.ndarray:
        return self.sample(v, 1, rng=rng)[0]

    def dp_tags(self) -> dict:
        """Declared properties for :mod:`htdp_verify.estimator_checks`. The input is one score vector (1-d, d ≥ s);
        neighbours are score vectors within ℓ∞ distance λ (StatDP's patterns and, as worst case, the s largest
        scores lowered and the others raised by λ). Noise off (as printed, sparse output): the s largest |v_j|."""
        lam = self.sensitivity

        def worst(v):
            v = np.asarray(v, dtype=float)
            top = np.argsort(-np.abs(v), kind="stable")[: self.s]
            step = np.full(v.shape, lam) * np.sign(v + (v == 0))
            step[top] *= -1.0
            return [Pair(v, v + step, "top-s scores lowered, the rest raised by the sensitivity", "Ninf")]

        def reference(v):
            v = np.asarray(v, dtype=float)
            idx = np.sort(np.argsort(-np.abs(v), kind="stable")[: self.s])
            return np.concatenate([idx.astype(float), v[idx]])

        width = (lambda v: (np.asarray(v).shape[0],)) if self.output == "dense" else (lambda v: (2 * self.s,))
        tags = {
            "input_ndim": (1,),
            "min_samples": self.s,
            "output_shape": width,
            "worst_case_pairs": worst,
            "data": lambda rng: rng.normal(0.0, 3.0 * lam, size=max(20, 2 * self.s)),
            "neighbours": lambda relation: statdp_patterns(max(5, self.s + 1), "Ninf", lam)[:4],
        }
        if self.output == "sparse" and self.absolute and self.argmax == "remaining":
            tags.update(
                reference=reference,
                noise_off=lambda v: Peeling(self.s, self.epsilon, self.delta, lam, noise_divisor=1e300),
                reference_tol=1e-12 * (1 + lam),
            )
        return tags

    def sample(self, v, size: int, *, rng: np.random.Generator) -> np.ndarray:
        """``size`` independent releases, shape ``(size, 2s)`` (sparse, sequence) or ``(size, d)`` (dense).

        Vectorised over releases (a loop over the s rounds only), in chunks of bounded memory (two noise
        buffers of at most 1 MiB each)."""
        v = self._scores(v)
        size = check_int("size", size, minimum=1)
        check_rng(rng)
        d, s = v.size, self.s
        width = d if self.output == "dense" else 2 * s
        out = np.empty((size, width))
        rows = max(1, min(size, _CHUNK_BYTES // (8 * d)))
        buf1, buf2 = np.empty((rows, d)), np.empty((rows, d))
        for start in range(0, size, rows):
            n = min(rows, size - start)
            out[start : start + n] = self._chunk(v, n, rng, buf1[:n], buf2[:n])
        return out

    def _chunk(self, v, n, rng, z, z2) -> np.ndarray:
        d, s, b = v.size, self.s, self.scale
        u = (np.abs(v) if self.absolute else v) / b  # argmax(u + bZ) = argmax(u/b + Z)
        r_idx = np.arange(n)
        chosen = _noisy_top_s(u, s, self.argmax == "remaining", rng, z, z2)
        values = v[chosen] + b * (rng.standard_exponential((n, s)) - rng.standard_exponential((n, s)))
        if self.argmax == "all" and s > 1:
            values = _share_repeated(chosen, values)
        if self.output == "dense":
            dense = np.zeros((n, d))
            dense[r_idx[:, None], chosen] = values
            return dense
        if self.output == "sequence":
            return np.concatenate([chosen.astype(float), values], axis=1)
        order = np.argsort(chosen, axis=1, kind="stable")
        idx = np.take_along_axis(chosen, order, axis=1)
        val = np.take_along_axis(values, order, axis=1)
        if self.argmax == "all" and s > 1:
            dup = np.zeros_like(idx, dtype=bool)
            dup[:, 1:] = idx[:, 1:] == idx[:, :-1]
            idx = np.where(dup, d, idx)  # sentinel sorts last
            order = np.argsort(idx, axis=1, kind="stable")
            idx = np.take_along_axis(idx, order, axis=1)
            val = np.take_along_axis(np.where(dup, 0.0, val), order, axis=1)
            idx = np.where(idx == d, -1, idx)
        return np.concatenate([idx.astype(float), val], axis=1)
