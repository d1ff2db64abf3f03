"""One-run canary auditing: an ε lower bound from one (or a few) runs of an expensive estimator.

Steinke, Nasr & Jagielski, "Privacy auditing with one (1) training run", NeurIPS 2023 (arXiv 2305.08846).

The game.  m canary records are fixed in advance; each is included independently with probability ½
(``S_i = +1`` included, ``S_i = -1`` not).  The estimator runs once on the data plus the included canaries
(under ``"replace"`` neighbours the slot of an excluded canary holds its *out-record* instead, so the dataset size
is fixed and flipping ``S_i`` is one replacement; under ``"add_remove"`` it is one insertion).  Every canary gets a
score from the release (the projection of the estimate on the canary's direction); the auditor guesses ``+1`` on
the ``k_+`` highest scores, ``-1`` on the ``k_-`` lowest and abstains on the rest.  With ``r = k_+ + k_-`` guesses
of which ``v`` are right, for a mechanism that is (ε, δ)-DP in each coordinate of S (their Theorem 1 for δ = 0, and
its approximate-DP form, Theorem 3 / Prop. 5.7 as we read it):

    P[V ≥ v] ≤ p_ε(v) = f(v) + 2 m δ · max_{i = 1..v} (f(v − i) − f(v)) / i,
    f(t) = P[Binomial(r, q) ≥ t],  q = e^ε / (1 + e^ε).

The δ-term is the paper's (its Appendix D code computes exactly this p-value; our spec §4.7 reads jax_privacy's
``epsilon_one_run`` the same way); m is the number of randomised canaries, not the number of guesses r.  When
``2 m δ ≥ 1`` the bound is not used and ε_lb = 0 (always a valid lower bound).

Validity.  For fixed ε the test "reject when p_ε(v_obs) ≤ β" has level β with no monotonicity in v: if A is the
set of v with p_ε(v) ≤ β, then V ∈ A implies V ≥ min A, so P[V ∈ A] ≤ P[V ≥ min A] ≤ p_ε(min A) ≤ β.  Inverting
it needs monotonicity in ε, proved here for c = 2mδ ≤ 1.  Write f(v) + c (f(v−i) − f(v))/i = E[φ_i(B)] with
φ_i(b) = 1 for b ≥ v, c/i for v − i ≤ b < v, 0 below.  For c = 2mδ ≤ 1 every φ_i is non-decreasing, and
Binomial(r, q) increases stochastically in ε, so p_ε(v) is non-decreasing in ε.  In v: the window average
g(v) = max_i (f(v−i) − f(v))/i satisfies g(v+1) ≤ max(pmf(v), g(v)), hence
p(v+1) − p(v) ≤ −(1 − c)·pmf(v) ≤ 0.  So rejecting ε whenever p_ε(v_obs) ≤ β is a valid level-β test and the
lower bound ε_lb = sup{ε : p_ε(v_obs) ≤ β} (found by Brent's method, returned from the side where p ≤ β) satisfies
P[ε_lb > ε_true] ≤ β.

Choice of the number of guesses.  By default a fixed grid of guess counts (a share of all canaries, balanced
between ``+1`` and ``-1`` guesses, see :func:`guess_plans`) is tried and α is split equally over the grid
(Bonferroni), so the reported maximum is valid at 1 − α.  The grid depends only on m and the number of runs, never
on the scores or on S.

Several runs.  With ``runs = R`` each run draws its own inclusion vector.  The pooled game is one game with
``m·R`` canaries: the concatenated S has independent fair coordinates, and flipping one coordinate changes the
input of one run by one neighbouring step while the other runs' outputs, drawn with independent randomness, do not
depend on it; the joint output is therefore (ε, δ)-DP in each coordinate, which is all the theorem needs.  The
guesses are made on the pooled scores (each run's scores centred at their median, a function of the outputs
only), and the bound uses m·R canaries in its δ-term.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy import optimize, special

from .._validate import check_int, check_positive, check_prob, check_rng
from ..claims import PrivacyClaim, Provenance
from .adapters import as_mechanism
from .audit import AuditResult

__all__ = [
    "CanaryDesign",
    "mean_canaries",
    "regression_canaries",
    "cluster_canaries",
    "one_run_p_value",
    "epsilon_lower_bound_one_run",
    "guess_plans",
    "audit_one_run",
]

REFERENCE = "Steinke, Nasr & Jagielski 2023, Privacy auditing with one (1) training run (NeurIPS)"


# ------------------------------------------------------------------------------------------------------
# the bound
# ------------------------------------------------------------------------------------------------------


def _check_rv(r, v, m):
    r = check_int("r", r, minimum=0)
    v = check_int("v", v, minimum=0)
    if v > r:
        raise ValueError(f"v must lie in [0, r] = [0, {r}], got {v}")
    m = r if m is None else check_int("m", m, minimum=1)
    if m < r:
        raise ValueError(f"m (number of canaries) must be >= r = {r}, got {m}")
    return r, v, m


def _binom_pmf(t: np.ndarray, r: int, q: float) -> np.ndarray:
    """Binomial(r, q) pmf at integer ``t`` (log-gamma form: scipy.stats' per-call overhead dominates otherwise)."""
    logc = special.gammaln(r + 1) - special.gammaln(t + 1) - special.gammaln(r - t + 1)
    return np.exp(logc + special.xlogy(t, q) + special.xlog1py(r - t, -q))


def _p_value(r: int, v: int, epsilon: float, c: float) -> float:
    if v == 0:
        return 1.0
    q = float(special.expit(epsilon))
    tail = float(special.bdtrc(v - 1, r, q))  # P[Bin(r, q) >= v]
    if c == 0.0:
        return tail
    pmf = _binom_pmf(np.arange(v - 1, -1, -1, dtype=float), r, q)  # pmf(v-1), pmf(v-2), ..., pmf(0)
    windows = np.cumsum(pmf) / np.arange(1, v + 1)  # (f(v-i) - f(v)) / i for i = 1..v
    return min(1.0, tail + c * float(np.max(windows)))


def one_run_p_value(r: int, v: int, epsilon: float, *, delta: float = 0.0, m: int | None = None) -> float:
    """Upper bound on P[V ≥ v] for v correct of r guesses under (ε, δ)-DP with m canaries (module docstring).

    The δ-term is 2mδ·max_i (f(v−i) − f(v))/i (Steinke et al. 2023, approximate-DP theorem).

    Parameters
    ----------
    r : int
        Number of guesses (abstentions excluded).
    v : int
        Number of correct guesses, 0 ≤ v ≤ r.
    epsilon : float
        The ε under test (≥ 0).
    delta : float, default 0.0
        Its δ, in [0, 1).
    m : int, optional
        Number of canaries (default ``r``).

    Returns
    -------
    float
        The p-value bound.
    """
    r, v, m = _check_rv(r, v, m)
    epsilon = check_positive("epsilon", epsilon, allow_zero=True)
    delta = check_prob("delta", delta, open_low=False)
    return _p_value(r, v, epsilon, 2.0 * m * delta)


def epsilon_lower_bound_one_run(
    r: int, v: int, *, delta: float = 0.0, m: int | None = None, beta: float = 0.05, eps_max: float = 60.0
) -> float:
    """ε lower bound at confidence 1 − β from v correct of r guesses with m canaries (Steinke et al. 2023).

    Returns sup{ε ≥ 0 : p_ε(v) ≤ β} (``one_run_p_value``), computed with Brent's method to 1e-10 and returned
    from the side where the p-value is ≤ β, so it never overstates; 0 when even ε = 0 is not rejected, when r = 0, or
    when 2mδ ≥ 1 (the δ-term then makes the theorem useless).  Valid: P[ε_lb > ε_true] ≤ β (module docstring).

    Parameters
    ----------
    r : int
        Number of guesses (abstentions excluded).
    v : int
        Number of correct guesses.
    delta : float, default 0.0
        The δ.
    m : int, optional
        Number of canaries (default ``r``).
    beta : float, default 0.05
        Error probability.
    eps_max : float, default 60.0
        Upper end of the search for ε.

    Returns
    -------
    float
        The ε lower bound.
    """
    r, v, m = _check_rv(r, v, m)
    delta = check_prob("delta", delta, open_low=False)
    beta = check_prob("beta", beta)
    c = 2.0 * m * delta
    if r == 0 or v == 0 or c >= 1.0:
        return 0.0
    if _p_value(r, v, 0.0, c) > beta:
        return 0.0
    lo, hi = 0.0, 1.0
    while _p_value(r, v, hi, c) <= beta:
        lo, hi = hi, 2.0 * hi
        if hi > eps_max:
            return lo
    # Brent's root of the (monotone) p_ε(v) − β, then stepped down onto the side where p ≤ β
    root = optimize.brentq(lambda e: _p_value(r, v, e, c) - beta, lo, hi, xtol=1e-10)
    step = 1e-10
    while root > lo and _p_value(r, v, root, c) > beta:
        root, step = max(lo, root - step), 2.0 * step
    return float(root)


def guess_plans(n_canaries: int, k_guesses: Any = None) -> list[tuple[int, int]]:
    """The (k_plus, k_minus) guess plans tried, fixed before any score is seen.

    ``k_guesses=None``: total guesses r = round(f·M) for f in (0.01, 0.03, 0.1, 0.3, 1) of the M pooled canaries
    (at least 2, duplicates dropped), each split k_plus = ⌈r/2⌉, k_minus = ⌊r/2⌋; ``int``: that one total;
    ``(k_plus, k_minus)`` tuple: that one plan; a list of ints / tuples: those plans.  α is split equally over the
    plans (Bonferroni) by :func:`audit_one_run`.

    Parameters
    ----------
    n_canaries : int
        Number of pooled canaries M.
    k_guesses : int, tuple or list, optional
        The plans (see above).

    Returns
    -------
    list of tuple
        The ``(k_plus, k_minus)`` plans.
    """
    M = check_int("n_canaries", n_canaries, minimum=1)

    def plan(k):
        if isinstance(k, tuple):
            if len(k) != 2:
                raise ValueError(f"k_guesses tuples must be (k_plus, k_minus), got {k!r}")
            kp = check_int("k_guesses[k_plus]", k[0], minimum=0)
            km = check_int("k_guesses[k_minus]", k[1], minimum=0)
        else:
            total = check_int("k_guesses", k, minimum=1)
            kp, km = total - total // 2, total // 2
        if kp + km < 1 or kp + km > M:
            raise ValueError(f"k_guesses must give between 1 and {M} guesses in total, got {k!r}")
        return (kp, km)

    if k_guesses is None:
        totals = sorted({min(M, max(2, int(round(f * M)))) for f in (0.01, 0.03, 0.1, 0.3, 1.0)})
        return [plan(t) for t in totals]
    if isinstance(k_guesses, (list, np.ndarray)):
        plans = [plan(tuple(k) if isinstance(k, (list, np.ndarray)) else k) for k in k_guesses]
        if not plans:
            raise ValueError("k_guesses must not be empty")
        return list(dict.fromkeys(plans))
    return [plan(k_guesses)]


# ------------------------------------------------------------------------------------------------------
# canary designs
# ------------------------------------------------------------------------------------------------------


@dataclass
class CanaryDesign:
    """m canary records with their directions and the score that reads them off a release.

    Parameters
    ----------
    records
        ``(m, p)`` rows inserted when a canary is included.
    out_records
        ``(m, p)`` rows that fill an excluded canary's slot under ``"replace"`` neighbours.
    directions
        ``(m, q)`` unit vectors in the coordinates of the release part scored.
    kind
        ``"projection"`` (score = ⟨release[sl] − offset, u_i⟩) or ``"max_projection"`` (release[sl] reshaped to
        ``(k, q)`` centres; score = max_j ⟨c_j − offset, u_i⟩).
    release_slice
        ``(start, stop)`` of the flattened release that holds the estimate (None: all of it).
    offset
        ``(q,)`` subtracted before projecting (the domain centre).
    description, domain
        for reports.
    """

    records: np.ndarray
    out_records: np.ndarray
    directions: np.ndarray
    kind: str = "projection"
    release_slice: tuple | None = None
    offset: np.ndarray | None = None
    description: str = ""
    domain: dict = field(default_factory=dict)

    def __post_init__(self):
        self.records = np.asarray(self.records, dtype=float)
        self.out_records = np.asarray(self.out_records, dtype=float)
        self.directions = np.asarray(self.directions, dtype=float)
        if self.records.ndim != 2 or self.out_records.shape != self.records.shape:
            raise ValueError(
                f"records and out_records must be (m, p) arrays of one shape, got "
                f"{self.records.shape} and {self.out_records.shape}"
            )
        if self.directions.ndim != 2 or self.directions.shape[0] != self.records.shape[0]:
            raise ValueError(f"directions must be (m, q) with m = {self.records.shape[0]}, got {self.directions.shape}")
        if self.kind not in ("projection", "max_projection"):
            raise ValueError(f"kind must be 'projection' or 'max_projection', got {self.kind!r}")
        if self.offset is not None:
            self.offset = np.asarray(self.offset, dtype=float).reshape(-1)

    @property
    def m(self) -> int:
        return int(self.records.shape[0])

    def dataset(self, data: np.ndarray, include: np.ndarray, neighbours: str) -> np.ndarray:
        """``data`` plus the included canaries (add_remove), or plus one record per slot (replace).

        Parameters
        ----------
        data : numpy.ndarray
            The records the canaries are added to.
        include : numpy.ndarray
            Boolean inclusion of each canary.
        neighbours : str
            ``"add_remove"`` or ``"replace"``.

        Returns
        -------
        numpy.ndarray
            The dataset of the run.
        """
        include = np.asarray(include, dtype=bool)
        slots = (
            self.records[include]
            if neighbours == "add_remove"
            else np.where(include[:, None], self.records, self.out_records)
        )
        if data.shape[0] == 0:
            return slots.copy()
        return np.concatenate([data, slots], axis=0)

    def scores(self, release: str) -> np.ndarray:
        """``(m,)`` scores of the canaries on one release (larger = more likely included).

        Parameters
        ----------
        release : numpy.ndarray
            One release.

        Returns
        -------
        numpy.ndarray
            ``(m,)`` scores.
        """
        y = np.asarray(release, dtype=float).reshape(-1)
        if self.release_slice is not None:
            y = y[self.release_slice[0] : self.release_slice[1]]
        q = self.directions.shape[1]
        if self.kind == "projection":
            if y.size != q:
                raise ValueError(f"the scored release part has {y.size} entries, the directions {q}; set release_slice")
            if self.offset is not None:
                y = y - self.offset
            return self.directions @ y
        if y.size % q:
            raise ValueError(f"the scored release part ({y.size} entries) is not a whole number of {q}-dim centres")
        C = y.reshape(-1, q)
        if self.offset is not None:
            C = C - self.offset
        return np.max(self.directions @ C.T, axis=1)

    def to_dict(self) -> dict:
        return {
            "m": self.m,
            "kind": self.kind,
            "release_slice": self.release_slice,
            "description": self.description,
            "domain": self.domain,
        }


def _vec(name, x, d):
    a = np.broadcast_to(np.asarray(x, dtype=float), (d,)).copy()
    if not np.all(np.isfinite(a)):
        raise ValueError(f"{name} must be finite, got {x!r}")
    return a


def _extreme_points(m, d, *, lower, upper, radius, norm, centre, rng):
    """Extreme points of the declared domain along random directions: (points, unit directions, centre, text)."""
    m = check_int("m", m, minimum=1)
    d = check_int("d", d, minimum=1)
    check_rng(rng)
    box = lower is not None or upper is not None
    if box == (radius is not None):
        raise ValueError("give either lower and upper bounds (a box) or a radius (a ball), not both or neither")
    if box:
        if lower is None or upper is None:
            raise ValueError("a box domain needs both lower and upper")
        lo, hi = _vec("lower", lower, d), _vec("upper", upper, d)
        if np.any(hi <= lo):
            raise ValueError("upper must exceed lower in every coordinate")
        mid, half = (lo + hi) / 2.0, (hi - lo) / 2.0
        signs = rng.choice([-1.0, 1.0], size=(m, d))  # random corners: the extreme records of a box
        offsets = signs * half
        dirs = offsets / np.linalg.norm(offsets, axis=1, keepdims=True)
        return (
            mid + offsets,
            dirs,
            mid,
            f"random corners of the box [lower, upper]^{d}",
            {"lower": lo.tolist(), "upper": hi.tolist()},
        )
    R = check_positive("radius", radius)
    c = np.zeros(d) if centre is None else _vec("centre", centre, d)
    if norm == 2:
        if m <= d:  # orthonormal random directions: no cross-talk between canaries
            Q, _ = np.linalg.qr(rng.standard_normal((d, m)))
            dirs = Q.T.copy()
            how = "orthonormal random directions"
        else:
            g = rng.standard_normal((m, d))
            dirs = g / np.linalg.norm(g, axis=1, keepdims=True)
            how = "random unit directions (m > d: they cannot be orthogonal)"
    elif norm == 1:  # the extreme points of an l1 ball are the signed axes
        axes = rng.choice(d, size=m, replace=m > d)
        dirs = np.zeros((m, d))
        dirs[np.arange(m), axes] = rng.choice([-1.0, 1.0], size=m)
        how = "random signed coordinate axes" + (" (repeated: m > d)" if m > d else " (distinct)")
    else:
        raise ValueError(f"norm must be 1 or 2 for a radius domain, got {norm!r}")
    return (
        c + R * dirs,
        dirs,
        c,
        f"{how} at l{norm} radius {R:g} around the centre",
        {"radius": R, "norm": norm, "centre": c.tolist()},
    )


def mean_canaries(
    m: int,
    d: int,
    *,
    rng: np.random.Generator,
    lower: float | None = None,
    upper: float | None = None,
    radius: float | None = None,
    norm: int = 2,
    centre: Any = None,
    release_slice: Any = None,
) -> CanaryDesign:
    """Canaries for an estimator of a d-dimensional mean (or sum): extreme records of the declared domain.

    Domain: a box ``[lower, upper]`` (canaries at random corners) or a ball of ``radius`` in the l2 norm
    (orthonormal random directions when m ≤ d) or the l1 norm (signed coordinate axes).  Each canary's out-record
    (replace neighbours) is its mirror image through the centre.  Score: ⟨estimate − centre, u_i⟩.

    Parameters
    ----------
    m : int
        Number of canaries.
    d : int
        Dimension of a record.
    rng : numpy.random.Generator
        Generator of the canaries' corners or directions.
    lower, upper : float or array_like, optional
        The box domain (give these, or ``radius``).
    radius : float, optional
        The ball domain's radius.
    norm : int, default 2
        Norm of the ball: 2 or 1.
    centre : array_like, optional
        Centre of the domain (default: the box's centre, or 0 for a ball).
    release_slice : tuple, optional
        ``(start, stop)`` of the flattened release that holds the estimate (default: all of it).

    Returns
    -------
    CanaryDesign
        The canary records, their out-records and score directions.
    """
    pts, dirs, c, how, dom = _extreme_points(
        m, d, lower=lower, upper=upper, radius=radius, norm=norm, centre=centre, rng=rng
    )
    return CanaryDesign(
        pts,
        2.0 * c - pts,
        dirs,
        "projection",
        release_slice,
        c,
        f"mean canaries: {how}; out-record = mirror image",
        dom,
    )


def regression_canaries(
    m: int,
    d: int,
    *,
    rng: np.random.Generator,
    y_bounds: Any,
    lower: float | None = None,
    upper: float | None = None,
    radius: float | None = None,
    norm: int = 2,
    centre: Any = None,
    release_slice: tuple[Any, ...] = (0, None),
) -> CanaryDesign:
    """Canaries for an estimator of a regression vector β ∈ R^d (data rows ``[x, y]``, label last).

    Included record: x_i = an extreme point of the x-domain along u_i (as in :func:`mean_canaries`) with the
    largest label y_hi; out-record: the same x_i with the smallest label y_lo.  For a model whose coefficients
    follow Xᵀy (least squares through the origin, y-domain centred near 0) including the canary pulls β̂ along u_i.
    Score: ⟨β̂, u_i⟩ with β̂ = ``release[release_slice]`` (default the first d entries).

    Parameters
    ----------
    m : int
        Number of canaries.
    d : int
        Dimension of a record's covariates.
    rng : numpy.random.Generator
        Generator of the canaries' directions or corners.
    y_bounds : tuple
        ``(y_lo, y_hi)``, the label domain.
    lower, upper : float or array_like, optional
        The box domain (give these, or ``radius``).
    radius : float, optional
        The ball domain's radius.
    norm : int, default 2
        Norm of the ball: 2 or 1.
    centre : array_like, optional
        Centre of the domain.
    release_slice : tuple, default (0, None)
        ``(start, stop)`` of the flattened release that holds β̂.

    Returns
    -------
    CanaryDesign
        The canary records, their out-records and score directions.
    """
    yb = np.asarray(y_bounds, dtype=float).ravel()
    if yb.shape != (2,) or not np.all(np.isfinite(yb)) or yb[1] <= yb[0]:
        raise ValueError(f"y_bounds must be (y_lo, y_hi) with y_lo < y_hi, got {y_bounds!r}")
    pts, dirs, c, how, dom = _extreme_points(
        m, d, lower=lower, upper=upper, radius=radius, norm=norm, centre=centre, rng=rng
    )
    rin = np.column_stack([pts, np.full(m, yb[1])])
    rout = np.column_stack([pts, np.full(m, yb[0])])
    sl = (release_slice[0], d if release_slice[1] is None else release_slice[1])
    return CanaryDesign(
        rin,
        rout,
        dirs,
        "projection",
        sl,
        None,
        f"regression canaries: x at {how}, label y_hi (out-record: label y_lo)",
        {**dom, "y_bounds": yb.tolist()},
    )


def cluster_canaries(
    m: int,
    d: int,
    *,
    rng: np.random.Generator,
    lower: float | None = None,
    upper: float | None = None,
    radius: float | None = None,
    norm: int = 2,
    centre: Any = None,
    release_slice: Any = None,
) -> CanaryDesign:
    """Canaries for an estimator of cluster centres (release: k centres of dimension d, flattened).

    Records as in :func:`mean_canaries` (extreme points along random directions; out-record the mirror image).
    Score: max over centres of ⟨c_j − centre, u_i⟩: an included extreme record drags its nearest centre outwards.

    Parameters
    ----------
    m : int
        Number of canaries.
    d : int
        Dimension of a record's covariates.
    rng : numpy.random.Generator
        Generator of the canaries' directions or corners.
    lower, upper : float or array_like, optional
        The box domain (give these, or ``radius``).
    radius : float, optional
        The ball domain's radius.
    norm : int, default 2
        Norm of the ball: 2 or 1.
    centre : array_like, optional
        Centre of the domain.
    release_slice : tuple, optional
        ``(start, stop)`` of the flattened release that holds the centres.

    Returns
    -------
    CanaryDesign
        The canary records, their out-records and score directions.
    """
    pts, dirs, c, how, dom = _extreme_points(
        m, d, lower=lower, upper=upper, radius=radius, norm=norm, centre=centre, rng=rng
    )
    return CanaryDesign(
        pts,
        2.0 * c - pts,
        dirs,
        "max_projection",
        release_slice,
        c,
        f"cluster canaries: {how}; out-record = mirror image; score = max over centres",
        dom,
    )


# ------------------------------------------------------------------------------------------------------
# the audit
# ------------------------------------------------------------------------------------------------------


def _claim(claim, mech) -> PrivacyClaim:
    if claim is None:
        claim = getattr(mech, "guarantee", None)
        if claim is None:
            raise ValueError("claim must be a PrivacyClaim or PrivacyGuarantee (the estimator declares none)")
    if isinstance(claim, PrivacyClaim):
        return claim
    if hasattr(claim, "claim") and callable(claim.claim):
        return claim.claim()
    raise ValueError(f"claim must be a PrivacyClaim or PrivacyGuarantee, got {type(claim).__name__}")


def _seed(rng) -> int | None:
    ss = getattr(rng.bit_generator, "seed_seq", None)
    ent = getattr(ss, "entropy", None)
    return int(ent) if isinstance(ent, (int, np.integer)) and not getattr(ss, "spawn_key", ()) else None


def _count(scores: np.ndarray, signs: np.ndarray, kp: int, km: int) -> tuple[int, int]:
    """(guesses, correct) for +1 on the kp highest and −1 on the km lowest scores (ties broken by position)."""
    order = np.argsort(scores, kind="stable")
    minus, plus = order[:km], order[len(order) - kp :] if kp else order[:0]
    return kp + km, int(np.count_nonzero(signs[plus] > 0) + np.count_nonzero(signs[minus] < 0))


def audit_one_run(
    estimator: Any,
    data: Any,
    claim: Any = None,
    *,
    canaries: CanaryDesign,
    runs: int = 1,
    rng: np.random.Generator,
    alpha: float = 0.05,
    k_guesses: Any = None,
    name: str | None = None,
) -> AuditResult:
    """Audit ``claim`` from ``runs`` runs of ``estimator`` with canaries (Steinke, Nasr & Jagielski 2023).

    Parameters
    ----------
    estimator
        anything :func:`~htdp_verify.privacy.adapters.as_mechanism` accepts (an estimator with ``sample``,
        a :class:`Mechanism`, or a batched callable ``(data, size, rng)``); it is called once per run.
    data
        ``(n, p)`` records the canaries are added to (n may be 0); each canary record has p columns.
    claim
        :class:`PrivacyClaim` / :class:`PrivacyGuarantee` (default: the estimator's declared guarantee).  Its
        neighbouring relation decides how an excluded canary is represented (module docstring).
    canaries
        a :class:`CanaryDesign` (:func:`mean_canaries`, :func:`regression_canaries`, :func:`cluster_canaries`).
    runs
        independent runs, each with its own inclusion draw; their guesses are pooled (module docstring).
    rng
        the generator of the inclusion draws and of the estimator's noise.
    alpha
        error probability of the reported bound (split over the guess plans).
    k_guesses
        guess plans (:func:`guess_plans`; default a grid of five shares of the canaries).
    name
        name of the result (default ``privacy.audit_one_run[<estimator name>]``).

    Returns
    -------
    AuditResult
        ``estimate`` = ε lower bound at confidence 1 − α at the claim's δ; verdict ``"violated"`` iff it
        exceeds the claimed ε, ``"inconclusive"`` when even all-correct guesses could not certify the claimed ε, else
        ``"consistent"``.  ``details`` holds the guesses made and correct per plan and the detectability ceiling.
    """
    t0 = time.perf_counter()
    check_rng(rng)
    mech = as_mechanism(estimator)
    claim = _claim(claim, mech)
    if not isinstance(canaries, CanaryDesign):
        raise ValueError(f"canaries must be a CanaryDesign, got {type(canaries).__name__}")
    runs = check_int("runs", runs, minimum=1)
    alpha = check_prob("alpha", alpha)
    arr = np.asarray(data, dtype=float)
    p = canaries.records.shape[1]
    if arr.size == 0:
        arr = arr.reshape(0, p)
    if arr.ndim != 2 or arr.shape[1] != p or not np.all(np.isfinite(arr)):
        raise ValueError(f"data must be a finite (n, {p}) array matching the canary records, got shape {arr.shape}")
    m = canaries.m
    M = m * runs
    plans = guess_plans(M, k_guesses)
    a_plan = alpha / len(plans)

    all_scores, all_signs = np.empty(M), np.empty(M)
    per_run = []
    for j in range(runs):
        signs = np.where(rng.random(m) < 0.5, 1.0, -1.0)
        release = mech(canaries.dataset(arr, signs > 0, claim.neighbours), 1, rng)[0]
        s = canaries.scores(release)
        if not np.all(np.isfinite(s)):
            raise ValueError(f"run {j}: the release gave non-finite canary scores")
        all_scores[j * m : (j + 1) * m] = s - np.median(s)
        all_signs[j * m : (j + 1) * m] = signs
        per_run.append({"run": j, "included": int(np.count_nonzero(signs > 0))})

    table = []
    for kp, km in plans:
        r, v = _count(all_scores, all_signs, kp, km)
        lb = epsilon_lower_bound_one_run(r, v, delta=claim.delta, m=M, beta=a_plan)
        ceiling = epsilon_lower_bound_one_run(r, r, delta=claim.delta, m=M, beta=a_plan)
        table.append(
            {
                "k_plus": kp,
                "k_minus": km,
                "guesses": r,
                "correct": v,
                "epsilon_lb": lb,
                "ceiling": ceiling,
                "p_value_at_claim": _p_value(r, v, claim.epsilon, 2.0 * M * claim.delta),
            }
        )
    best = max(table, key=lambda t: (t["epsilon_lb"], t["correct"] / t["guesses"]))
    eps_lb = float(best["epsilon_lb"])
    max_cert = max(t["ceiling"] for t in table)
    p_claim = min(1.0, len(plans) * min(t["p_value_at_claim"] for t in table))
    if eps_lb > claim.epsilon:
        verdict = "violated"
    elif max_cert <= claim.epsilon:
        verdict = "inconclusive"
    else:
        verdict = "consistent"
    dtext = f" at delta={claim.delta:g}" if claim.delta > 0 else ""
    statement = (
        f"with {M} canaries ({m} x {runs} run(s)) and alpha={a_plan:.3g} per guess plan, all guesses right "
        f"would certify at most epsilon={max_cert:.4g}{dtext}"
    )
    if 2.0 * M * claim.delta >= 1.0:
        statement += f"; 2*m*delta = {2 * M * claim.delta:.3g} >= 1 makes the bound vacuous (use fewer canaries)"
    elapsed = time.perf_counter() - t0
    summary = (
        f"one-run certified epsilon >= {eps_lb:.4g}{dtext} at {100 * (1 - alpha):.4g}% confidence vs claimed "
        f"{claim.epsilon:g}; {best['correct']}/{best['guesses']} guesses right on {M} canaries "
        f"({runs} run(s)); ceiling {max_cert:.4g}"
    )
    details = {
        "epsilon_lb": eps_lb,
        "confidence": 1 - alpha,
        "guesses": int(best["guesses"]),
        "correct": int(best["correct"]),
        "k_plus": int(best["k_plus"]),
        "k_minus": int(best["k_minus"]),
        "plans": table,
        "alpha_per_plan": a_plan,
        "p_value_at_claim_bonferroni": p_claim,
        "k_rule": (
            "guess plans fixed before the run (guess_plans); alpha split equally over them (Bonferroni); "
            "+1 on the k_plus highest and -1 on the k_minus lowest pooled scores, each run's scores centred "
            "at their median"
        ),
        "canaries": {**canaries.to_dict(), "runs": runs, "pooled": M, "neighbours": claim.neighbours},
        "runs": per_run,
        "bound": (
            "P[V >= v] <= P[Bin(r,q) >= v] + 2*m*delta*max_i (P[v-i <= Bin(r,q) < v])/i, q = e^eps/(1+e^eps), "
            "m = pooled canaries; " + REFERENCE
        ),
        "pooling": "runs pooled as one game with m*runs canaries: each coordinate of S enters one run only",
        "detectability": {"max_certifiable_epsilon": max_cert, "statement": statement},
        "samples": {"estimator_calls": runs, "total_releases": runs},
        "seconds": {"total": elapsed},
        "mechanism": mech.name,
        "event": {
            "event": f"canary guesses ({best['k_plus']} +, {best['k_minus']} -) on {M} canaries",
            "orientation": "correct vs wrong guesses",
        },
        "pair": {
            "text": f"canary inclusion game: {m} canaries per run, each included with probability 1/2 "
            f"({claim.neighbours} neighbours)"
        },
        "counts": {
            "guesses": int(best["guesses"]),
            "correct": int(best["correct"]),
            "numerator": int(best["correct"]),
            "n_numerator": int(best["guesses"]),
            "denominator": int(best["guesses"] - best["correct"]),
            "n_denominator": int(best["guesses"]),
            "method": "one-run binomial bound",
        },
        "point_estimate": (
            math.log(best["correct"] / (best["guesses"] - best["correct"]))
            if 0 < best["correct"] < best["guesses"]
            else (math.inf if best["correct"] == best["guesses"] else -math.inf)
        ),
        "ledger": "\n".join(
            f"{a_plan:.4g}  plan k_plus={t['k_plus']}, k_minus={t['k_minus']}: "
            f"{t['correct']}/{t['guesses']} right, epsilon_lb {t['epsilon_lb']:.4g}"
            for t in table
        ),
    }
    prov = claim.provenance if isinstance(claim.provenance, Provenance) else Provenance()
    return AuditResult(
        name=name or f"privacy.audit_one_run[{mech.name}]",
        verdict=verdict,
        statistic="epsilon_lb",
        estimate=eps_lb,
        interval=(eps_lb, math.inf),
        alpha=alpha,
        claim=claim,
        n_samples=runs,
        seconds=elapsed,
        seed=_seed(rng),
        provenance=prov,
        summary=summary,
        details=details,
    )
