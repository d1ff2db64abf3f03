"""The lower-bound objects: :class:`MomentAssumption` (the moment condition a bound is proved under, with
:func:`require_same_assumption`), :class:`BoundValue` and :class:`HardInstance` (a finite family of data laws with
its sampler, coupling, bound value and self-test), plus the provenances ``PROV_ASZ`` and ``PROV_KSU``
(Acharya, Sun & Zhang 2021; Kamath, Singhal & Ullman 2020). The constructions live in :mod:`.mean` and
:mod:`.regression`; the derivations in the docstring of :mod:`htdp_verify.lowerbounds`.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
from scipy import stats as sst

from .. import stats
from .._validate import check_int, check_positive, check_rng
from ..claims import LowerBoundClaim, Provenance
from .coupling import private_fano_reference_error, private_multipoint_error, private_two_point_error

__all__ = ["MomentAssumption", "require_same_assumption", "BoundValue", "HardInstance", "PROV_ASZ", "PROV_KSU"]


PROV_ASZ = Provenance(
    "Acharya, Sun & Zhang 2021 (ALT)",
    "DP Le Cam / Fano / Assouad",
    "",
    "constants re-derived here with the exact MGF of the coupling distance",
)
PROV_KSU = Provenance("Kamath, Singhal & Ullman 2020 (COLT)", "heavy-tailed mean estimation lower bounds", "")


# ------------------------------------------------------------------------------------------------------------
# assumptions
# ------------------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class MomentAssumption:
    """The moment condition a bound is proved under.

    ``geometry``: ``"1d"`` (E|X-μ|^k ≤ M), ``"directional"`` (sup_u E|<u, X-μ>|^k ≤ M), ``"coordinate"``
    (max_j E|X_j-μ_j|^k ≤ M) or ``"norm"`` (E‖X-μ‖^k ≤ M); ``central`` says whether moments are about the mean.

    Parameters
    ----------
    geometry : str
        ``"1d"``, ``"directional"``, ``"coordinate"`` or ``"norm"``.
    k : float
        Moment order.
    M : float, default 1.0
        The moment bound.
    central : bool, default True
        Moments about the mean.
    """

    geometry: str
    k: float
    M: float = 1.0
    central: bool = True

    def __post_init__(self):
        if self.geometry not in ("1d", "directional", "coordinate", "norm"):
            raise ValueError(
                f"geometry must be one of '1d', 'directional', 'coordinate', 'norm'; got {self.geometry!r}"
            )
        check_positive("k", self.k)
        check_positive("M", self.M)

    def __str__(self) -> str:
        c = "central" if self.central else "raw"
        what = {
            "1d": "E|X-μ|^k",
            "directional": "sup_u E|<u,X-μ>|^k",
            "coordinate": "max_j E|X_j-μ_j|^k",
            "norm": "E||X-μ||^k",
        }[self.geometry]
        return f"{what} <= {self.M:g} with k={self.k:g} ({c})"


def require_same_assumption(a: MomentAssumption, b: MomentAssumption) -> None:
    """Refuse to compare results proved under different moment assumptions (d enters differently).

    Parameters
    ----------
    a, b : MomentAssumption
        The two assumptions; ``ValueError`` when they differ.
    """
    if (a.geometry, a.k, a.central) != (b.geometry, b.k, b.central) or not math.isclose(a.M, b.M):
        raise ValueError(
            f"assumption mismatch: bound proved under [{a}] cannot be compared with an estimator analysed under "
            f"[{b}] (coordinate, directional and norm moments scale differently in d)"
        )


# ------------------------------------------------------------------------------------------------------------
# the instance object
# ------------------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class BoundValue:
    """A lower bound's value with its pieces: ``value`` bounds the worst-case risk (loss ``risk``),
    ``prob`` bounds ``avg_v P_v(error ≥ radius)`` (the exact, testable form), ``method`` names the argument.

    Parameters
    ----------
    value : float
        Bound on the worst-case risk.
    prob : float
        Bound on ``avg_v P_v(error ≥ radius)``.
    radius : float
        The test radius.
    method : str
        The argument used.
    risk : str
        The loss.
    constants : dict, optional
        The constants of the bound.
    """

    value: float
    prob: float
    radius: float
    method: str
    risk: str
    constants: dict = field(default_factory=dict)


@dataclass
class HardInstance:
    """A family of data laws for a minimax lower bound.

    Parameters
    ----------
    name : str
        Label of the instance in reports.
    assumption : MomentAssumption
        The moment assumption every member satisfies (the class of laws the bound is proved for).
    n : int
        Sample size of one dataset.
    epsilon : float
        Privacy level ε the bound is for (``inf`` for a non-private bound).
    delta : float
        Privacy level δ the bound is for.
    thetas : numpy.ndarray
        Parameters θ_v of the M members, shape (M, d) or (M,).
    sampler : callable
        ``sampler(v, size, rng)`` returns ``size`` datasets of member ``v``, shape (size, n) or (size, n, d).
    radius : float
        Half the minimum separation of the members in the loss metric.
    method : str
        The argument giving the bound: ``"private_two_point"``, ``"private_multipoint"``, ``"two_point_tv"``,
        ``"assouad_private"``, ``"assouad_tv"`` or ``"private_fano_reference"``.
    risk : str, default "abs"
        The loss: ``"abs"`` (ℓ2 distance), ``"sq"`` (squared ℓ2) or ``"excess"`` (excess population risk).
    coupling_q : float, optional
        Per-record probability that coupled records differ, so that H ~ Bin(n, q); ``None`` when the bound is not
        coupling-based.
    tv_n : float, optional
        Total-variation distance between the n-sample laws, used by the non-private bounds.
    coupling_sampler : callable, optional
        ``coupling_sampler(reps, rng)`` draws ``reps`` Hamming distances of the coupling (used by
        :meth:`HardInstance.self_test`).
    provenance : Provenance, default PROV_ASZ
        Where the construction comes from.
    notes : str, default ""
        Free text carried into check details.
    loss : callable, optional
        ``loss(estimates, v)`` maps estimates of shape (reps, d) to losses of shape (reps,); ``None``: the ℓ2
        distance to θ_v.
    fano_q : dict, optional
        For ``"private_fano_reference"``: ``"q"`` holds the per-member coupling probabilities q_v and the optional
        ``"kl_n"`` the n-sample KL term of the non-private Fano bound.
    moment_stat : callable, optional
        ``moment_stat(records, v)`` returns the quantity whose k-th absolute moment the assumption bounds;
        ``None``: derived from the assumption's geometry.
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
        """D = E[Hamming] of the coupling used by the private bound (n·q).

        Returns
        -------
        float
            The expected Hamming distance.
        """
        if self.coupling_q is None:
            raise ValueError(f"instance {self.name!r} has no coupling (method {self.method})")
        return self.n * self.coupling_q

    def bound(self) -> BoundValue:
        """The lower bound with its constants (see the module docstring for the derivations).

        Returns
        -------
        BoundValue
            The bound.
        """
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
        """``size`` independent n-sample datasets from member ``v``.

        Parameters
        ----------
        v : int
            Index of the member.
        size : int
            Number of datasets.
        rng : numpy.random.Generator
            The generator.

        Returns
        -------
        numpy.ndarray
            Shape (size, n) or (size, n, d).
        """
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

        Parameters
        ----------
        rng : numpy.random.Generator
            The generator of the simulated datasets.
        reps : int, default 2000
            Simulated datasets per member.
        alpha : float, default 1e-3
            Level of the moment and coupling tests.

        Returns
        -------
        dict
            Booleans and numbers for each part; ``ok`` is their conjunction.
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
