"""Stage 3 of an audit: count the fixed events on fresh releases and turn the counts into certified bounds.

Sample sizes are Poissonised, ``N ~ Poisson(n_samples)`` per side (independent of every output), so that a
pure-ε event can be certified by the exact conditional test on Poisson counts
(:func:`~htdp_verify.stats.epsilon_lower_bound_poisson`); Clopper–Pearson bounds with the realised ``N`` stay
valid for the rest.  Releases are counted in fixed blocks, each from its own child generator
(:mod:`.streaming`): memory stays bounded whatever ``N``, and the counts are the same for a seed whatever the memory
budget or the backend (serial, or a Dask cluster).  Each main event is certified at ``a_event`` (Bonferroni over
``n_certify``); the profile events at ``a_profile / n_profile`` each.  :func:`certification_stage` returns the raw
counts (:class:`Counts`), :func:`bounds_stage` the certified statements (:class:`Bounds`).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np

from ..stats import cp_lower, cp_upper, epsilon_lower_bound, epsilon_lower_bound_poisson
from .attacks import Event
from .bounds import delta_lb_at_epsilon, gdp_epsilon, gdp_mu_lb, privacy_profile, smallest_resolvable_delta
from .neighbours import Pair
from .plan import AuditPlan
from .selection import Selection
from .streaming import count_streamed_blocks

__all__ = ["Counts", "Bounds", "certification_stage", "bounds_stage", "block_sizes", "CERT_MIN_BLOCKS"]

# Every side is counted in at least this many mechanism calls, so that the counts of separate calls can be
# compared (:func:`~.independence.within_call_dispersion`: releases that share randomness within a call).  Sides
# of at least 16 usual blocks (2^20 scalar releases) are drawn exactly as before (2026-11-29).
CERT_MIN_BLOCKS = 16


@dataclass
class Counts:
    """Counts of every certified event (main events first, then profile events) on ``N_d`` / ``N_dp`` releases,
    oriented so that the numerator is the side the event favours.

    Parameters
    ----------
    events : list of Event
        The counted events: the selection's main events, then its profile events.
    k_d : numpy.ndarray
        Per event, the number of releases on D (the pair's first dataset) that fall in it.
    k_dp : numpy.ndarray
        Per event, the number of releases on D' that fall in it.
    N_d : int
        Number of releases drawn on D (Poisson around the plan's ``n_samples``).
    N_dp : int
        Number of releases drawn on D'.
    k_num : numpy.ndarray
        Per event, the count on the side the event favours (its orientation).
    k_den : numpy.ndarray
        Per event, the count on the other side.
    n_num : numpy.ndarray
        Per event, the number of releases on the favoured side (at least 1).
    n_den : numpy.ndarray
        Per event, the number of releases on the other side (at least 1).
    seconds : float
        Wall time of the counting.
    blocks : list of tuple, optional
        Per side (D, then D'), ``(block_counts, block_sizes)``: every event's count in each block (one mechanism
        call; ``(blocks, events)``) and the releases in each block, for the within-call dispersion check
        (:func:`~.verdict.within_call_check`); ``None`` when the counts did not come in blocks.
    """

    events: list[Event]
    k_d: np.ndarray
    k_dp: np.ndarray
    N_d: int
    N_dp: int
    k_num: np.ndarray
    k_den: np.ndarray
    n_num: np.ndarray
    n_den: np.ndarray
    seconds: float
    blocks: list | None = None

    @property
    def drawn(self) -> int:
        return self.N_d + self.N_dp


def block_sizes(n: int, block: int) -> np.ndarray:
    """Releases in each block of a stream of ``n`` releases cut into blocks of ``block`` (the last one partial).

    Parameters
    ----------
    n : int
        Releases.
    block : int
        Releases per full block.

    Returns
    -------
    numpy.ndarray
        One size per block.
    """
    full, rest = divmod(int(n), int(block))
    return np.array([block] * full + ([rest] if rest else []), dtype=np.int64)


def certification_stage(plan: AuditPlan, pair: Pair, sel: Selection, rng: np.random.Generator) -> Counts:
    """Count the selected events on ``Poisson(n_samples)`` fresh releases per side.

    Parameters
    ----------
    plan : AuditPlan
        The audit's plan.
    pair : Pair
        The pair.
    sel : Selection
        The chosen events.
    rng : numpy.random.Generator
        The generator every release is drawn from.

    Returns
    -------
    Counts
        The raw counts.
    """
    ts = time.perf_counter()
    events = sel.main + sel.profile
    N_d, N_dp = int(rng.poisson(plan.n_samples)), int(rng.poisson(plan.n_samples))
    kw = dict(release_nbytes=sel.release_nbytes, max_memory=plan.max_memory, backend=plan.backend, client=plan.client)
    per_side = count_streamed_blocks(
        plan.mechanism, [(pair.d, N_d), (pair.d_prime, N_dp)], events, rng, min_blocks=CERT_MIN_BLOCKS, **kw
    )
    blocks = [(bc, block_sizes(n, size)) for (bc, size), n in zip(per_side, (N_d, N_dp))]
    k_d, k_dp = (bc.sum(axis=0) for bc, _ in per_side)
    orient = np.array([e.orientation for e in events])
    return Counts(
        events,
        k_d,
        k_dp,
        N_d,
        N_dp,
        k_num=np.where(orient > 0, k_d, k_dp),
        k_den=np.where(orient > 0, k_dp, k_d),
        n_num=np.where(orient > 0, max(N_d, 1), max(N_dp, 1)),
        n_den=np.where(orient > 0, max(N_dp, 1), max(N_d, 1)),
        seconds=time.perf_counter() - ts,
        blocks=blocks,
    )


@dataclass
class Bounds:
    """Certified statements: the best main event (``index``), its ε lower bound at the claim's δ and the other
    statements derived from its counts, every main event's bound, and the profile (``None`` without one).

    Parameters
    ----------
    index : int
        Position of the best main event (largest ε lower bound) among the selection's main events.
    eps_main : numpy.ndarray
        The ε lower bound at the claim's δ of every main event, each by its selected method.
    eps_lb : float
        The best of them: the audit's certified ε lower bound.
    pure : float
        The best event's ε lower bound at δ = 0 (equal to ``eps_lb`` when the claim's δ is 0).
    cp_lo : float or None
        Clopper–Pearson lower confidence bound on the best event's probability on its favoured side; ``None`` when
        the event was certified by the conditional Poisson test.
    cp_hi : float or None
        Clopper–Pearson upper confidence bound on its probability on the other side; ``None`` likewise.
    delta_at_claim : float or None
        Certified lower bound on δ at the claimed ε from the best event's counts; ``None`` likewise.
    mu_lb : float or None
        Lower bound on the Gaussian-DP μ (from the event's counts, or the profile when there is one); ``None`` when
        neither applies.
    point : float
        Point estimate of the best event's log probability ratio (``inf`` when only the favoured side hit it, 0 when
        a side has no hit).
    profile : dict or None
        The certified privacy profile (ε(δ) and δ(ε) curves) of the profile events; ``None`` without one.
    """

    index: int
    eps_main: np.ndarray
    eps_lb: float
    pure: float
    cp_lo: float | None
    cp_hi: float | None
    delta_at_claim: float | None
    mu_lb: float | None
    point: float
    profile: dict | None

    def event_counts(self, c: Counts) -> tuple[int, int, int, int]:
        i = self.index
        return int(c.k_num[i]), int(c.n_num[i]), int(c.k_den[i]), int(c.n_den[i])


def _main_bound(plan: AuditPlan, c: Counts, j: int, method: str) -> float:
    if method == "poisson":
        return float(epsilon_lower_bound_poisson(c.k_num[j], c.k_den[j], plan.a_event, plan.n_samples, plan.n_samples))
    return float(epsilon_lower_bound(c.k_num[j], c.n_num[j], c.k_den[j], c.n_den[j], plan.a_event, plan.claim.delta))


def _profile(plan: AuditPlan, c: Counts, sel: Selection, mu_main: float) -> tuple[dict, float]:
    nm = len(sel.main)
    a_each = plan.a_profile / plan.n_profile
    alphas = np.r_[np.full(nm, plan.a_event), np.full(len(sel.profile), a_each)]
    prof = privacy_profile(c.k_num, c.k_den, c.n_num, alphas, n2=c.n_den, deltas=plan.deltas, epsilons=plan.eps_grid)
    prof.delta_floor = smallest_resolvable_delta(plan.n_samples, a_each)
    prof.notes = (
        "all curves hold simultaneously with the verdict at confidence 1 - alpha; deltas below "
        "delta_floor cannot be resolved with these sample sizes"
    )
    prof.events = [e.to_dict() for e in sel.profile]
    mu_lb = max(mu_main, prof.mu_lb)
    d = prof.to_dict()
    delta = plan.claim.delta
    d["gdp_epsilon_at_claim_delta_assuming_gaussian_tradeoff"] = (
        gdp_epsilon(delta, mu_lb) if delta > 0 and mu_lb > 0 else None
    )
    return d, mu_lb


def bounds_stage(plan: AuditPlan, sel: Selection, c: Counts) -> Bounds:
    """ε lower bound of every main event (the best is reported) and the statements derived from its counts.

    Parameters
    ----------
    plan : AuditPlan
        The audit's plan.
    sel : Selection
        The chosen events.
    c : Counts
        Their counts.

    Returns
    -------
    Bounds
        The certified statements.
    """
    eps_main = np.array([_main_bound(plan, c, j, m) for j, m in enumerate(sel.methods)])
    i = int(np.argmax(eps_main))
    kn, nn, kd, nd = int(c.k_num[i]), int(c.n_num[i]), int(c.k_den[i]), int(c.n_den[i])
    eps_lb = float(eps_main[i])
    a = plan.a_event
    pure = eps_lb if plan.claim.delta == 0 else float(epsilon_lower_bound(kn, nn, kd, nd, a, 0.0))
    with np.errstate(divide="ignore"):
        point = math.inf if kd == 0 and kn > 0 else (math.log((kn / nn) / (kd / nd)) if kn > 0 and kd > 0 else 0.0)
    # The Clopper-Pearson statements (the two proportions, delta at the claimed epsilon, GDP mu) share the event's
    # alpha with its epsilon bound only when that bound is itself the CP one.  When the conditional Poisson test
    # certified the event, they would be further tests on the same counts: they are not reported (None), so that
    # "every statement holds at 1 - alpha" stays true.  A profile certifies delta and mu with its own alpha.
    cp = sel.methods[i] == "cp"
    mu_lb = float(gdp_mu_lb(kn, nn, kd, nd, a)) if cp else 0.0
    prof = None
    if plan.n_profile:
        prof, mu_lb = _profile(plan, c, sel, mu_lb)
    return Bounds(
        index=i,
        eps_main=eps_main,
        eps_lb=eps_lb,
        pure=pure,
        cp_lo=float(cp_lower(kn, nn, a / 2)) if cp else None,
        cp_hi=float(cp_upper(kd, nd, a / 2)) if cp else None,
        delta_at_claim=float(delta_lb_at_epsilon(kn, nn, kd, nd, a, plan.claim.epsilon)) if cp else None,
        mu_lb=mu_lb if (cp or plan.n_profile) else None,
        point=point,
        profile=prof,
    )
