"""The sequential test as stages of the audit pipeline: :func:`sequential_certification_stage` runs
:func:`~htdp_verify.privacy.sequential.run_sequential` on a mechanism's releases and returns
:class:`SequentialCounts`; :func:`sequential_bounds_stage` turns them into the pipeline's bounds;
:func:`annotate_result` records the test's outcome on the audit result.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..._validate import check_int
from ...stats import cp_lower, cp_upper
from ..bounds import delta_lb_at_epsilon, gdp_mu_lb
from ..certification import Bounds, Counts, block_sizes
from ..neighbours import Pair
from ..plan import AuditPlan
from ..selection import Selection
from ..streaming import count_streamed_blocks
from .engine import SequentialOutcome, run_sequential

__all__ = [
    "SequentialCounts",
    "sequential_certification_stage",
    "sequential_bounds_stage",
    "annotate_result",
]


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
    blocks : list, optional
        Per side, ``(block_counts, block_sizes)`` of every mechanism call of every checkpoint (the within-call
        check, :func:`~..verdict.within_call_check`).
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
    prior: tuple | None = None,
    max_bet: float = 0.5,
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
    prior : tuple, optional
        Pseudo-counts ``(k_num, k_den, n)`` the bets start from (see :func:`~.engine.run_sequential`).
    max_bet : float, default 0.5
        Largest bet, as a fraction of ``1 / (e^ε + δ)`` (see :func:`~.engine.run_sequential`).

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

    blocks: list[list] = [[], []]  # per side: (block counts, sizes) of every checkpoint (within-call check)

    def count(m):
        # block by block, the same draws as count_streamed on D then on D' (one stream seed per side, in that order)
        sides = count_streamed_blocks(plan.mechanism, [(pair.d, m), (pair.d_prime, m)], events, rng, **kw)
        for i, (bc, size) in enumerate(sides):
            blocks[i].append((bc, block_sizes(m, size)))
        k_d, k_dp = (bc.sum(axis=0) for bc, _ in sides)
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
        prior=prior,
        max_bet=max_bet,
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
        blocks=[
            (
                np.concatenate([bc for bc, _ in side]) if side else np.zeros((0, len(events)), dtype=np.int64),
                np.concatenate([sz for _, sz in side]) if side else np.zeros(0, dtype=np.int64),
            )
            for side in blocks
        ],
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
    cp = o.method in ("union", "fixed")
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
