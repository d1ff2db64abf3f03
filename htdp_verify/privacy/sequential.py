"""Anytime-valid sequential certification: draw releases in rounds and stop as soon as the claim is refuted.

Releases are drawn in rounds of both sides up to a fixed schedule of checkpoints ``n_1 < ... < n_J =
max_samples`` (releases per side, geometric: ``n_j ≈ first · growth^(j-1)``), the main events' counts are updated,
and after each round an anytime-valid lower bound on each event's privacy loss is read.  (ε, δ)-DP implies
``p_num ≤ e^ε p_den + δ`` for the event's two release probabilities; two constructions certify a violation of it:

* ``method="betting"`` (default): for every ε of a grid (:func:`epsilon_grid`) a betting e-process for
  H0(ε): ``p_num ≤ e^ε p_den + δ`` on randomly paired releases (``_Betting``): a non-negative
  supermartingale under H0, so by Ville's inequality it reaches ``1/α`` with probability at most α *over the
  whole run* (Waudby-Smith & Ramdas 2024, "Estimating means of bounded random variables by betting", JRSS-B 86;
  the approach of González Lara, Dulce, Ramdas & Ribero 2025, "Sequentially auditing differential privacy").  The
  bound is the largest grid ε below which every grid value has been rejected.  Looking costs no α, so the
  checkpoints can be dense (default first 50, growth 1.5);
* ``method="union"``: at checkpoint j the exact Clopper–Pearson bound of
  :func:`~htdp_verify.stats.epsilon_lower_bound` at ``α_j = α · 6 / (π² j²)`` (Σ α_j ≤ α, Basel sum).  Each
  ``n_j`` is fixed in advance, so each statement is an ordinary fixed-n statement; by the union bound they hold
  together at 1 − α, hence at any data-dependent stopping checkpoint (Darling & Robbins 1967, "Confidence
  sequences for mean, variance, and median", PNAS 58; Howard, Ramdas, McAuliffe & Sekhon 2021, Ann. Statist. 49,
  tighten this by stitching).  Simpler and very conservative (benchmark: ~2.5× the releases of the betting test).

Either way the bound reported at the stop (the running maximum over the checkpoints seen) holds at 1 − α at the
stopping time.  Bonferroni over ``n_certify`` main events is kept from the plan (α_event = α / n_certify).

Stopping rule, checked at every checkpoint:

* ``"violated"``: the running maximum of the certified bound exceeds the claimed ε;
* ``"futility"``: even an optimistic continuation could not exceed the claim at ``max_samples``.  The remaining
  ``R = max_samples − n_j`` releases per side are projected at the optimistic end of the data: numerator
  ``k_num + R·u + z·sqrt(R·u(1−u))`` with ``u = CP_hi(k_num, n_j, β)``, denominator
  ``k_den + R·l − z·sqrt(R·l(1−l))`` with ``l = CP_lo(k_den, n_j, β)`` (``z = Φ⁻¹(1−β)``, β =
  ``futility_level``), and the Clopper–Pearson bound at ``max_samples`` is computed from them (at α_J for the
  union method; at α for the betting method, as a proxy for what its e-process could reach); if it stays ≤ the
  claim for every event, the run stops.  ``futility="certain"`` uses the literal best case instead (every
  remaining numerator release in the event, no remaining denominator release), which for the union method never
  stops a run that could still succeed.  Futility stops only ever *withhold* a "violated", so they cannot hurt
  validity; β bounds (roughly) the power they cost;
* ``"max_samples"``: the budget is spent.

:func:`run_sequential` is the engine on any counting callback (tests drive it with Bernoulli streams);
:func:`sequential_certification_stage` runs it on a mechanism's releases (blocks counted by
:func:`~.streaming.count_streamed`) and returns :class:`SequentialCounts` (a :class:`~.certification.Counts`);
:func:`sequential_bounds_stage` turns them into the pipeline's :class:`~.certification.Bounds`.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy.special import ndtri

from .._validate import check_int, check_prob
from ..stats import cp_lower, cp_upper, epsilon_lower_bound
from .bounds import delta_lb_at_epsilon, gdp_mu_lb
from .certification import Bounds, Counts
from .neighbours import Pair
from .plan import AuditPlan
from .selection import Selection
from .streaming import count_streamed

__all__ = [
    "checkpoints",
    "checkpoint_alpha",
    "SequentialOutcome",
    "SequentialCounts",
    "run_sequential",
    "sequential_certification_stage",
    "sequential_bounds_stage",
    "annotate_result",
    "FUTILITY_MODES",
    "METHODS",
    "epsilon_grid",
]

FUTILITY_MODES = ("plausible", "certain", None)
METHODS = ("betting", "union")
METHOD_NOTES = {
    "union": "Clopper-Pearson at each checkpoint j of a fixed geometric schedule at alpha*6/(pi^2 j^2) (union bound "
    "over checkpoints, Darling & Robbins 1967): the bound holds at 1 - alpha at any stopping time",
    "betting": "betting e-processes for H0(eps): p_num <= e^eps p_den + delta on randomly paired releases, one per "
    "grid eps, GRAPA bets (Waudby-Smith & Ramdas 2024); eps rejected once its wealth reaches 1/alpha "
    "(Ville's inequality); the bound is the largest grid eps with all smaller grid values rejected and "
    "holds at 1 - alpha at any stopping time",
}


def checkpoints(max_samples: int, first: int = 100, growth: float = 2.0) -> np.ndarray:
    """The fixed schedule of releases per side at which the test looks: ``first``, ×``growth`` …, ``max_samples``.

    Parameters
    ----------
    max_samples : int
        Last checkpoint.
    first : int, default 100
        First checkpoint.
    growth : float, default 2.0
        Growth factor.

    Returns
    -------
    numpy.ndarray
        Releases per side at each look.
    """
    max_samples = check_int("max_samples", max_samples, minimum=1)
    first = check_int("first", first, minimum=1)
    if not (isinstance(growth, (int, float)) and math.isfinite(growth) and growth > 1.0):
        raise ValueError(f"growth must be a finite number > 1, got {growth!r}")
    out: list[int] = []
    n = float(min(first, max_samples))
    while int(math.ceil(n)) < max_samples:
        v = int(math.ceil(n))
        if not out or v > out[-1]:
            out.append(v)
        n *= growth
    out.append(max_samples)
    return np.asarray(out, dtype=np.int64)


def checkpoint_alpha(alpha: float, j: Any) -> np.ndarray | float:
    """Level of checkpoint ``j`` (1-based): ``alpha · 6 / (π² j²)``; the levels sum to at most ``alpha``.

    Parameters
    ----------
    alpha : float
        Total level.
    j : int or array_like
        Checkpoint index (1-based).

    Returns
    -------
    float or numpy.ndarray
        The level.
    """
    j = np.asarray(j, dtype=float)
    if np.any(j < 1):
        raise ValueError("checkpoint index j must be >= 1")
    out = alpha * 6.0 / (math.pi**2 * j**2)
    return float(out) if out.ndim == 0 else out


@dataclass
class SequentialOutcome:
    """What the sequential test did: the stop reason, the releases per side used, the certified bound per event
    (running maximum over the checkpoints seen, valid at ``1 - alpha`` at the stopping time), and the history.

    Parameters
    ----------
    stop_reason : str
        ``"violated"`` (a bound exceeded the claimed ε), ``"futility"`` or ``"max_samples"`` (budget used up).
    n_per_side : int
        Releases per side drawn up to the stop.
    k_num : numpy.ndarray
        Per event, the count on the favoured side at the stop.
    k_den : numpy.ndarray
        Per event, the count on the other side at the stop.
    eps_lb : numpy.ndarray
        Per event, the certified ε lower bound (running maximum over the checkpoints seen).
    checkpoint : int
        Number of checkpoints looked at, the stopping one included.
    alpha_at_stop : float
        The level of the stopping checkpoint's Clopper–Pearson intervals (union method; the event level ``alpha``
        for the betting method).
    schedule : numpy.ndarray
        The checkpoints: cumulative releases per side, the last one ``max_samples``.
    alpha : float
        The level of each event.
    futility : str or None
        The futility rule used (``"plausible"``, ``"certain"`` or ``None``).
    history : list of dict, optional
        One entry per checkpoint seen: ``n_per_side`` and the best ``epsilon_lb`` so far.
    method : str, default "betting"
        ``"betting"`` or ``"union"``.
    """

    stop_reason: str
    n_per_side: int
    k_num: np.ndarray
    k_den: np.ndarray
    eps_lb: np.ndarray
    checkpoint: int
    alpha_at_stop: float
    schedule: np.ndarray
    alpha: float
    futility: str | None
    history: list = field(default_factory=list)
    method: str = "betting"

    def to_dict(self) -> dict:
        return {
            "stop_reason": self.stop_reason,
            "releases_per_side": int(self.n_per_side),
            "releases_used": int(2 * self.n_per_side),
            "max_samples_per_side": int(self.schedule[-1]),
            "checkpoints_used": int(self.checkpoint),
            "schedule": [int(x) for x in self.schedule],
            "alpha_per_event": self.alpha,
            "alpha_at_stop_checkpoint": self.alpha_at_stop,
            "epsilon_lb_per_event": [float(x) for x in self.eps_lb],
            "futility": self.futility,
            "history": self.history,
            "method": METHOD_NOTES[self.method],
        }


def _projected_bound(kn, kd, n, N, a_final, delta, mode, beta):
    R = N - n
    if mode == "certain":
        return epsilon_lower_bound(kn + R, N, kd, N, a_final, delta)
    z = float(ndtri(1.0 - beta))
    u = np.asarray(cp_upper(kn, n, beta), float)
    lo = np.asarray(cp_lower(kd, n, beta), float)
    fn = np.minimum(kn + np.ceil(R * u + z * np.sqrt(R * u * (1 - u))), N)
    fd = np.maximum(kd + np.floor(R * lo - z * np.sqrt(R * lo * (1 - lo))), kd)
    return epsilon_lower_bound(fn, N, fd, N, a_final, delta)


def epsilon_grid(claim: float, top: float | None = None, size: int = 64) -> np.ndarray:
    """ε values tested by the betting method: ``[0, claim]`` evenly, one point just above the claim, then
    geometrically up to ``top`` (default ``max(20, 10·claim)``).  The reported bound is a grid point.

    Parameters
    ----------
    claim : float
        The claimed ε.
    top : float, optional
        Largest ε tested.
    size : int, default 64
        Number of grid points.

    Returns
    -------
    numpy.ndarray
        The grid.
    """
    top = max(20.0, 10.0 * claim) if top is None else float(top)
    above = claim * (1 + 1e-9) + 1e-12
    return np.unique(
        np.r_[np.linspace(0.0, claim, size // 2), above, np.geomspace(max(above, 1e-3), max(top, 2 * above), size // 2)]
    )


class _Betting:
    """Betting e-processes (one per event and grid value ε) for H0(ε): p_num ≤ e^ε p_den + δ.

    Releases are paired one from each side (a uniformly random pairing, drawn with ``rng``: given the round's counts
    ``a`` and ``b`` of ``m`` pairs, the number of (1, 1) pairs is hypergeometric), ``Z = X − e^ε Y − δ`` has mean
    ``≤ 0`` under H0 and ``Z ≥ −(e^ε + δ)``, so ``K_t = Π (1 + λ_i Z_i)`` with a predictable bet
    ``0 ≤ λ_i ≤ 1/(2(e^ε + δ))`` is a non-negative supermartingale under H0 and, by Ville's inequality,
    ``P(sup_t K_t ≥ 1/α) ≤ α`` (Waudby-Smith & Ramdas 2024, "Estimating means of bounded random variables by
    betting", JRSS-B 86; Shafer & Vovk).  The bet is constant within a round and set from the previous rounds
    by the GRAPA rule ``λ = μ̂ / (σ̂² + μ̂²)`` (clipped; plug-in mean and variance of Z).
    Every ε whose wealth ever reached ``1/α`` is rejected for good; the certified bound is the largest grid value
    ``g`` with every grid value ``≤ g`` rejected: if the event's true loss ε* were below it, H0(ε*) (which holds)
    would have been rejected, an event of probability ``≤ α``.
    """

    def __init__(self, n_events, grid, delta, alpha, rng):
        self.grid, self.delta, self.thr, self.rng = grid, delta, math.log(1.0 / alpha), rng
        self.ee = np.exp(grid)[None, :]
        self.logk = np.zeros((n_events, grid.size))
        self.rejected = np.zeros((n_events, grid.size), dtype=bool)

    def bets(self, kn, kd, n):
        if n == 0:
            return np.zeros_like(self.logk)
        pn = ((kn + 0.5) / (n + 1.0))[:, None]
        pd = ((kd + 0.5) / (n + 1.0))[:, None]
        d, ee = self.delta, self.ee
        mu = pn - ee * pd - d
        m2 = (
            pn * (1 - pd) * (1 - d) ** 2
            + (1 - pn) * pd * (ee + d) ** 2
            + pn * pd * (1 - ee - d) ** 2
            + (1 - pn) * (1 - pd) * d**2
        )
        lam = mu / np.maximum(m2, 1e-300)
        return np.clip(lam, 0.0, 0.5 / (ee + d))

    def update(self, a, b, m, lam):
        n11 = np.array(
            [self.rng.hypergeometric(int(ai), int(m - ai), int(bi)) if m > 0 else 0 for ai, bi in zip(a, b)],
            dtype=float,
        )[:, None]
        a, b = np.asarray(a, float)[:, None], np.asarray(b, float)[:, None]
        n10, n01 = a - n11, b - n11
        n00 = m - n11 - n10 - n01
        d, ee = self.delta, self.ee
        self.logk += (
            n11 * np.log1p(lam * (1 - ee - d))
            + n10 * np.log1p(lam * (1 - d))
            + n01 * np.log1p(-lam * (ee + d))
            + n00 * np.log1p(-lam * d)
        )
        self.rejected |= self.logk >= self.thr

    def bound(self):
        prefix = np.cumprod(self.rejected, axis=1).astype(bool)
        last = prefix.sum(axis=1)  # number of leading rejected grid values
        return np.where(last > 0, self.grid[np.maximum(last - 1, 0)], 0.0)


def run_sequential(
    count: Any,
    n_events: int,
    *,
    epsilon: float,
    delta: float,
    alpha: float,
    max_samples: int,
    method: str = "betting",
    rng: np.random.Generator | None = None,
    first: int | None = None,
    growth: float | None = None,
    futility: str | None = "plausible",
    futility_level: float = 1e-3,
) -> SequentialOutcome:
    """Run the anytime-valid test on a stream; ``count(m) -> (k_num_new, k_den_new)`` draws ``m`` fresh releases
    per side and returns how many fall in each of the ``n_events`` events (oriented: numerator first).

    ``method``: ``"betting"`` (default; e-processes over an ε grid, ``_Betting``; needs ``rng`` for the random
    pairing) or ``"union"`` (Clopper–Pearson at α·6/(π² j²) at checkpoint j).  ``first`` / ``growth``: the
    checkpoint schedule (defaults 50 / 1.5 for betting, where looking costs nothing, 100 / 2 for the union bound).
    ``alpha`` is the level of each event (Bonferroni over events is the caller's); see the module docstring.

    Parameters
    ----------
    count : callable
        ``count(m) -> (k_num_new, k_den_new)``.
    n_events : int
        Number of events.
    epsilon : float
        The claimed ε.
    delta : float
        The claimed δ.
    alpha : float
        Level of each event.
    max_samples : int
        Most releases per side.
    rng : numpy.random.Generator, optional
        Generator of the random pairing (betting).
    method : str, default "betting"
        ``"betting"`` or ``"union"``.
    first, growth : optional
        The checkpoint schedule.
    futility : str or None, default "plausible"
        ``"plausible"`` or ``"certain"`` (see the module docstring); ``None``: no futility stop.
    futility_level : float, default 0.001
        Level of the futility rule.

    Returns
    -------
    SequentialOutcome
        The stop, its reason and the bound.
    """
    n_events = check_int("n_events", n_events, minimum=1)
    alpha = check_prob("alpha", alpha)
    delta = check_prob("delta", delta, open_low=False)
    if not (math.isfinite(epsilon) and epsilon >= 0):
        raise ValueError(f"epsilon must be a finite number >= 0, got {epsilon!r}")
    if futility not in FUTILITY_MODES:
        raise ValueError(f"futility must be one of {FUTILITY_MODES}, got {futility!r}")
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}, got {method!r}")
    futility_level = check_prob("futility_level", futility_level)
    if method == "betting":
        if rng is None:
            raise ValueError("rng (a numpy.random.Generator) is required for method='betting' (random pairing)")
        first, growth = first or 50, growth or 1.5
    else:
        first, growth = first or 100, growth or 2.0
    sched = checkpoints(max_samples, first, growth)
    J = len(sched)
    a_final = checkpoint_alpha(alpha, J) if method == "union" else alpha
    bet = _Betting(n_events, epsilon_grid(epsilon), delta, alpha, rng) if method == "betting" else None
    kn = np.zeros(n_events, dtype=np.int64)
    kd = np.zeros(n_events, dtype=np.int64)
    best = np.zeros(n_events)
    n, history, reason, aj = 0, [], "max_samples", a_final
    for j, nj in enumerate(sched, start=1):
        m = int(nj - n)
        a_num, a_den = count(m)
        a_num = np.asarray(a_num, dtype=np.int64).reshape(n_events)
        a_den = np.asarray(a_den, dtype=np.int64).reshape(n_events)
        if bet is not None:
            bet.update(a_num, a_den, m, bet.bets(kn, kd, n))
        kn += a_num
        kd += a_den
        n = int(nj)
        if bet is not None:
            best = np.maximum(best, bet.bound())
        else:
            aj = checkpoint_alpha(alpha, j)
            best = np.maximum(best, np.asarray(epsilon_lower_bound(kn, n, kd, n, aj, delta), float).reshape(n_events))
        history.append({"n_per_side": n, "epsilon_lb": float(best.max())})
        if best.max() > epsilon:
            reason = "violated"
            break
        if j < J and futility is not None:
            proj = np.asarray(
                _projected_bound(kn, kd, n, int(sched[-1]), a_final, delta, futility, futility_level), float
            )
            if proj.max() <= epsilon:
                reason = "futility"
                break
    return SequentialOutcome(reason, n, kn, kd, best, len(history), float(aj), sched, alpha, futility, history, method)


@dataclass
class SequentialCounts(Counts):
    """:class:`~.certification.Counts` of the main events at the stopping time, with the test's outcome.

    Parameters
    ----------
    events : list of Event
        The main events (profile events are not certified sequentially).
    k_d : numpy.ndarray
        Per event, the releases on D that fall in it, up to the stop.
    k_dp : numpy.ndarray
        Per event, the releases on D' that fall in it, up to the stop.
    N_d : int
        Releases drawn on D (the outcome's ``n_per_side``).
    N_dp : int
        Releases drawn on D' (the same number).
    k_num : numpy.ndarray
        Per event, the count on the side the event favours.
    k_den : numpy.ndarray
        Per event, the count on the other side.
    n_num : numpy.ndarray
        Per event, the releases on the favoured side (at least 1).
    n_den : numpy.ndarray
        Per event, the releases on the other side (at least 1).
    seconds : float
        Wall time of the sequential certification.
    outcome : SequentialOutcome, optional
        What the sequential test did (always set by :func:`sequential_certification_stage`).
    """

    outcome: SequentialOutcome | None = None


def sequential_certification_stage(
    plan: AuditPlan,
    pair: Pair,
    sel: Selection,
    rng: np.random.Generator,
    *,
    max_samples: int | None = None,
    method: str = "betting",
    first: int | None = None,
    growth: float | None = None,
    futility: str | None = "plausible",
    futility_level: float = 1e-3,
) -> SequentialCounts:
    """Certify the main events sequentially: rounds of fresh releases on both sides of ``pair`` at the checkpoints
    of :func:`checkpoints` (up to ``max_samples`` per side, default ``plan.n_samples``), stopping on a violation,
    for futility, or at the budget.  Profile events are not certified sequentially (``ValueError``).

    Parameters
    ----------
    plan : AuditPlan
        The audit's plan.
    pair : Pair
        The pair.
    sel : Selection
        The chosen events.
    rng : numpy.random.Generator
        The generator.
    max_samples : int, optional
        Most releases per side (default ``plan.n_samples``).
    method : str, default "betting"
        ``"betting"`` or ``"union"``.
    first, growth : optional
        The checkpoint schedule.
    futility : str or None, default "plausible"
        ``"plausible"`` or ``"certain"`` (see the module docstring); ``None``: no futility stop.
    futility_level : float, default 0.001
        Level of the futility rule.

    Returns
    -------
    SequentialCounts
        The counts at the stop.
    """
    if plan.n_profile:
        raise ValueError("profile is not supported with sequential=True (certify a profile with a fixed-n audit)")
    max_samples = plan.n_samples if max_samples is None else check_int("max_samples", max_samples, minimum=10)
    ts = time.perf_counter()
    events = list(sel.main)
    orient = np.array([e.orientation for e in events])
    kw = dict(release_nbytes=sel.release_nbytes, max_memory=plan.max_memory, backend=plan.backend, client=plan.client)
    tot_d = np.zeros(len(events), dtype=np.int64)
    tot_dp = np.zeros(len(events), dtype=np.int64)

    def count(m):
        k_d = count_streamed(plan.mechanism, pair.d, m, events, rng, **kw)
        k_dp = count_streamed(plan.mechanism, pair.d_prime, m, events, rng, **kw)
        tot_d[:] += k_d
        tot_dp[:] += k_dp
        return np.where(orient > 0, k_d, k_dp), np.where(orient > 0, k_dp, k_d)

    out = run_sequential(
        count,
        len(events),
        epsilon=plan.claim.epsilon,
        delta=plan.claim.delta,
        alpha=plan.a_event,
        max_samples=max_samples,
        method=method,
        rng=rng,
        first=first,
        growth=growth,
        futility=futility,
        futility_level=futility_level,
    )
    n = max(out.n_per_side, 1)
    return SequentialCounts(
        events,
        tot_d.copy(),
        tot_dp.copy(),
        out.n_per_side,
        out.n_per_side,
        k_num=out.k_num,
        k_den=out.k_den,
        n_num=np.full(len(events), n),
        n_den=np.full(len(events), n),
        seconds=time.perf_counter() - ts,
        outcome=out,
    )


def sequential_bounds_stage(plan: AuditPlan, sel: Selection, c: SequentialCounts) -> Bounds:
    """The pipeline's :class:`Bounds` from the sequential test: ``eps_lb`` is the test's bound (running maximum,
    valid at the stopping time), also a pure-ε lower bound (an ε-DP mechanism is (ε, δ)-DP).  With the union
    method the derived statements (CP bounds, δ at the claimed ε, GDP μ) use the stopping checkpoint's two CP
    intervals at ``alpha_at_stop``, which are among those the union bound covers, so they hold together with it;
    the betting method certifies only ε (the others are ``None``).

    Parameters
    ----------
    plan : AuditPlan
        The audit's plan.
    sel : Selection
        The chosen events.
    c : SequentialCounts
        The counts.

    Returns
    -------
    Bounds
        The certified statements.
    """
    o = c.outcome
    assert o is not None, "sequential counts always carry the test's outcome"
    i = int(np.argmax(o.eps_lb))
    kn, kd, n, a = int(o.k_num[i]), int(o.k_den[i]), max(o.n_per_side, 1), o.alpha_at_stop
    eps_lb = float(o.eps_lb[i])
    point = math.inf if kd == 0 and kn > 0 else (math.log(kn / kd) if kn > 0 and kd > 0 else 0.0)
    cp = o.method == "union"
    return Bounds(
        index=i,
        eps_main=np.asarray(o.eps_lb, float),
        eps_lb=eps_lb,
        pure=eps_lb,
        cp_lo=float(cp_lower(kn, n, a / 2)) if cp else None,
        cp_hi=float(cp_upper(kd, n, a / 2)) if cp else None,
        delta_at_claim=float(delta_lb_at_epsilon(kn, n, kd, n, a, plan.claim.epsilon)) if cp else None,
        mu_lb=float(gdp_mu_lb(kn, n, kd, n, a)) if cp else None,
        point=point,
        profile=None,
    )


def annotate_result(result: Any, c: SequentialCounts) -> Any:
    """Mark an :class:`~.result.AuditResult` as sequential: ``details["sequential"]`` (stop reason, releases used,
    schedule, history) and the per-side sizes and method that the fixed-n assembly filled in.

    Parameters
    ----------
    result : AuditResult
        The result.
    c : SequentialCounts
        The sequential counts.

    Returns
    -------
    AuditResult
        The same result, annotated.
    """
    o = c.outcome
    assert o is not None, "sequential counts always carry the test's outcome"
    d = result.details
    d["sequential"] = o.to_dict()
    d.setdefault("counts", {})["n_per_side"] = int(o.n_per_side)
    tag = f"sequential-{o.method}"
    d["counts"]["method"] = tag
    d.setdefault("samples", {})["n_certify_per_side"] = int(o.n_per_side)
    d["certification_method"] = {"chosen": tag, "note": d["sequential"]["method"]}
    for e in d.get("certified_events", []):
        e["method"] = tag
    det = d.get("detectability")
    if isinstance(det, dict):  # the fixed-n statement speaks of n_samples; say what this run did instead
        i = int(np.argmax(o.eps_lb))
        text = (
            f"sequential audit: stopped ({o.stop_reason}) after {o.n_per_side} of at most {int(o.schedule[-1])} "
            f"releases per side; max_certifiable_epsilon is that of a fixed-n audit of n_samples per side"
        )
        if det.get("possibly_unbounded"):
            text += (
                f". Possibly unbounded: 0 of {o.n_per_side} releases on the denominator side fell in the event "
                f"(vs {int(o.k_num[i])}); the true epsilon may be infinite and {float(o.eps_lb[i]):.4g} is "
                "capped by the sample size"
            )
        det["statement"] = text
    result.summary += f"; sequential: {o.stop_reason} after {o.n_per_side} releases per side"
    return result
