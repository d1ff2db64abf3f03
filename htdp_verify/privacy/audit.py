"""``audit``: certify an ε lower bound for a mechanism on neighbouring inputs and test a privacy claim.

The audit is a pipeline of stages, each a small function in its own module that passes a typed value on:

0. **plan** (:mod:`.plan`, :class:`AuditPlan`): validate inputs, check the pairs against the claim's neighbour
   relation, fix the split sizes and the α budget before any release is drawn.
1. **search** (:mod:`.selection` and :mod:`.search`, :class:`SearchOutcome`): only when several pairs are given;
   ``n_search`` releases per side in all, spent by successive halving over the pairs, each scored by a held-out,
   cross-fitted prediction of the bound its best event would certify.
2. **selection** (:mod:`.selection`, :class:`Selection`): ``n_select`` fresh releases per side on the chosen pair;
   every attack proposes events (thresholds, intervals, outcome sets, learned scores ...), each scored by the bound
   it would certify at the final size, both orders (D, D') and (D', D).  No α is spent in stages 1–2: the events
   are fixed before the certification samples exist.
3. **certification** (:mod:`.certification`, :class:`Counts` then :class:`Bounds`): ``Poisson(n_samples)`` fresh
   releases per side; the ``n_certify`` best events are counted and certified with exact bounds at
   α/``n_certify`` each (Bonferroni).  With a privacy profile, ``profile_share`` of α goes to one more event per δ
   of the grid plus one for the GDP μ, certified on the same samples; all statements hold together at 1 − α.
4. **verdict** (:mod:`.verdict`, :class:`Verdict`, then the :class:`AuditResult`): ``"violated"`` iff the
   certified ε lower bound at the claim's δ exceeds the claimed ε.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np

from .certification import bounds_stage, certification_stage
from .plan import plan_audit
from .result import AuditResult
from .runoff import choose_pair_and_events
from .selection import search_stage
from .sequential import RoundsDesign, as_design, rounds_audit
from .verdict import assemble_result, verdict_stage

__all__ = ["audit", "AuditResult"]


def audit(
    mechanism: Any,
    claim: Any = None,
    *,
    pairs: Any = None,
    neighbours: Any = None,
    n_samples: int,
    alpha: float = 0.05,
    attacks: Any = "auto",
    rng: np.random.Generator,
    n_select: int | None = None,
    n_search: int | None = None,
    n_certify: int = 1,
    log_density: Callable[..., Any] | None = None,
    directions: Any = None,
    profile: Any = None,
    profile_epsilons: Any = None,
    profile_share: float = 0.2,
    max_candidates: int = 4096,
    chunk_size: int = 1_000_000,
    name: str | None = None,
    max_memory: int | str = "2GiB",
    backend: str = "serial",
    client: Any = None,
    sequential: bool | str | RoundsDesign = False,
    max_samples: int | None = None,
) -> AuditResult:
    """Audit ``mechanism`` against ``claim``: certified ε lower bound, verdict, event, and detectability.

    Parameters
    ----------
    mechanism
        a batched ``mechanism(data, size, rng) -> (size, ...)``, a :class:`Mechanism` from the adapters,
        or an estimator with ``sample``.
    claim
        :class:`PrivacyClaim` or :class:`PrivacyGuarantee`; ``None`` uses the mechanism's declared guarantee.
    pairs
        neighbouring inputs: a ``(D, D')`` tuple, a :class:`Pair`, or a list of them (searched).  Two arrays
        in a plain tuple are datasets (rows = records; a 1-d array holds scalar records) and must be neighbours
        under the claim's relation (``ValueError`` otherwise); two scalars are query answers.  Label vectors of
        query answers: ``Pair(q, q2, relation="N1" | "Ninf")``.
    neighbours
        instead of ``pairs``: a dataset (``dataset_patterns`` under the claim's relation), a dict of
        ``dataset_patterns`` arguments (e.g. ``{"data": x, "lower": 0, "upper": 1}``: a declared data domain),
        or a callable ``relation -> pairs``.
    n_samples
        fresh releases **per side** used for certification.
    alpha
        family-wise error probability of every statement in the result (default 0.05).
    attacks
        ``"auto"``, an attack name / :class:`~htdp_verify.privacy.attacks.Attack`, or a list of them.
    rng
        the ``numpy.random.Generator`` every release is drawn from.
    n_select
        releases per side for event selection (default ``max(2000, n_samples // 8)``; beyond what ``max_memory``
        holds, the releases are streamed: see ``max_memory``).
    n_search
        releases per side for the whole pair search (successive halving over the pairs, held-out and
        cross-fitted scores; default ``max(500 * #pairs, n_samples // 4)``, each pair scored on at least 500 per
        side; an explicit smaller value is honoured, down to 20 per pair); unused with a single pair.
    n_certify
        number of (event) candidates certified with Bonferroni (default 1: the best predicted).
    log_density
        ``log_density(Y, data) -> (n,)`` enables the likelihood-ratio attack.
    directions
        declared projection directions for vector releases.
    profile
        ``True`` or an array of δ values: also certify an (ε, δ) profile and a GDP μ lower bound.
    profile_epsilons
        ε grid for the δ-at-ε curve (default 0..2·claim ε).
    profile_share
        fraction of α spent on the profile events (only when ``profile`` is set).
    max_candidates
        thresholds per scan.
    chunk_size
        releases per mechanism call in search and selection.
    max_memory
        memory budget (bytes or ``"2GiB"``).  Certification generates and counts releases in fixed blocks
        (:mod:`~htdp_verify.privacy.streaming`) and keeps none; its counts do not depend on the budget.  Selection
        fits the attacks on at most ``FIT_CAP`` held releases per side (:mod:`~htdp_verify.privacy.selection_stream`;
        fewer when the budget binds) and counts its candidate events on the rest block by block; the pair search
        holds its releases, at most what fits (``HELD_OVERHEAD`` bytes of working memory per byte held).  The result
        depends on the budget only when it lowers the fitted part (``details["samples"]["n_select_held_per_side"]``).
    backend, client
        ``"serial"`` (default) or ``"dask"`` with a ``dask.distributed`` ``Client``: the certification's blocks
        and the streamed part of the selection are counted on the cluster's workers; the result is the same for a
        seed.
    sequential
        audit in rounds of growing size (:mod:`~htdp_verify.privacy.sequential.rounds`): each round searches and
        selects on fresh releases, then certifies its event with an anytime-valid test at α·2^-(k+1) (union bound
        over rounds); stop at the first round that certifies a violation, or when ``max_samples`` is spent;
        ``details["sequential"]`` has the rounds, the releases per stage, α per round and the stop reason.
        ``True`` or ``"betting"``: betting e-processes inside a round; ``"union"``: Clopper–Pearson at checkpoints
        with a union bound (more conservative); a :class:`~htdp_verify.privacy.sequential.RoundsDesign` sets the
        round sizes; ``"fixed_split"`` or ``RoundsDesign.fixed_split()``: one round on this audit's own
        ``n_search`` / ``n_select``, then a certification of at most ``n_samples`` that stops early, at the full α
        (the default of the registered checks of per-call estimators).  No profile.
    max_samples
        releases per side at most in a sequential audit, every stage and round included (default what the
        fixed-n audit draws per side: search, ``n_select`` and ``n_samples``).
    name
        name of the result (default ``privacy.audit[<mechanism name>]``).

    Returns
    -------
    AuditResult
        Verdict ``"violated"`` iff ε_lb > claim ε (at the claim's δ), ``"inconclusive"`` when these sample sizes
        could not certify the claimed ε even with a perfect event, else ``"consistent"``.
    """
    t0 = time.perf_counter()
    if max_samples is not None and not sequential:
        raise ValueError(
            "max_samples applies to sequential audits (sequential=True or a design); a fixed-n audit draws "
            "n_samples per side"
        )
    plan = plan_audit(
        mechanism,
        claim,
        pairs=pairs,
        neighbours=neighbours,
        n_samples=n_samples,
        alpha=alpha,
        attacks=attacks,
        rng=rng,
        n_select=n_select,
        n_search=n_search,
        n_certify=n_certify,
        log_density=log_density,
        directions=directions,
        profile=profile,
        profile_epsilons=profile_epsilons,
        profile_share=profile_share,
        max_candidates=max_candidates,
        chunk_size=chunk_size,
        name=name,
        max_memory=max_memory,
        backend=backend,
        client=client,
    )
    if sequential:
        return rounds_audit(plan, rng, max_samples=max_samples, design=as_design(sequential), t0=t0)
    search, selection = choose_pair_and_events(plan, search_stage(plan, rng), rng)
    counts = certification_stage(plan, search.pair, selection, rng)
    bounds = bounds_stage(plan, selection, counts)
    verdict = verdict_stage(plan, bounds, counts, selection)
    return assemble_result(plan, search, selection, counts, bounds, verdict, seconds=time.perf_counter() - t0, rng=rng)
