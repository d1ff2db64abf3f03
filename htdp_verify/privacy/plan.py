"""Stage 0 of an audit: validate the inputs and fix, before any release is drawn, everything the later stages use.

:func:`plan_audit` turns the arguments of :func:`~htdp_verify.privacy.audit` into an :class:`AuditPlan`: the
mechanism and the claim, the candidate pairs (checked against the claim's neighbour relation), the sample sizes
of the three splits (search, selection, certification), the α budget and its split into per-event levels, and the
selection context shared by every attack.  Because the budget is fixed here, nothing a later stage sees can change
how α is spent.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._validate import check_int, check_prob, check_rng
from ..claims import NEIGHBOUR_RELATIONS, PrivacyClaim
from ..stats import Budget
from .adapters import Mechanism, as_mechanism
from .attacks import SelectionContext
from .guarantee import PrivacyGuarantee
from .neighbours import Pair, as_pairs, check_neighbours, dataset_patterns
from .search import MIN_PER_PAIR
from .streaming import parse_memory

__all__ = ["AuditPlan", "plan_audit", "default_stage_sizes", "SELECT_DIVISOR", "SEARCH_DIVISOR", "MIN_SELECT_DEFAULT"]

# The default budget split of ``audit()`` (chosen with ``benchmarks/split_experiment.py``; README, Benchmarks):
# selection ``max(MIN_SELECT_DEFAULT, n_samples // SELECT_DIVISOR)`` and, with several pairs, a pair search of
# ``max(MIN_PER_PAIR * #pairs, n_samples // SEARCH_DIVISOR)`` releases per side (4 and 2 before 2026-11-29).
SELECT_DIVISOR = 8
SEARCH_DIVISOR = 4
MIN_SELECT_DEFAULT = 2000


def default_stage_sizes(n_samples: int, n_pairs: int) -> tuple[int, int]:
    """The default selection and pair-search sizes per side for a certification size ``n_samples``.

    Parameters
    ----------
    n_samples : int
        Certification releases per side.
    n_pairs : int
        Number of candidate pairs (the search is skipped, size 0, with one pair).

    Returns
    -------
    tuple of int
        ``(n_select, n_search)``.
    """
    n_select = max(MIN_SELECT_DEFAULT, n_samples // SELECT_DIVISOR)
    n_search = max(MIN_PER_PAIR * n_pairs, n_samples // SEARCH_DIVISOR) if n_pairs > 1 else 0
    return n_select, n_search


@dataclass
class AuditPlan:
    """Everything fixed before the first release: inputs, split sizes, α budget, selection context.

    Built by :func:`plan_audit` from the arguments of :func:`~htdp_verify.privacy.audit`.

    Parameters
    ----------
    mechanism : Mechanism
        The mechanism under audit (the caller's object wrapped as a batched mechanism).
    claim : PrivacyClaim
        The guarantee under test.
    pairs : list of Pair
        The candidate neighbouring pairs, each checked against the claim's neighbour relation.
    attacks : object
        The attacks as given to :func:`~htdp_verify.privacy.audit` (``"auto"``, a name, an attack or a list).
    n_samples : int
        Fresh releases per side for certification.
    n_select : int
        Releases per side for event selection.
    n_search : int
        Releases per side for the whole pair search.
    n_certify : int
        Number of main events certified (Bonferroni).
    alpha : float
        Family-wise error probability of every statement of the result.
    budget : Budget
        The ledger of how α is split (profile, certification).
    a_event : float
        The level each main event is certified at.
    a_profile : float
        The total level of the profile events (0 without a profile).
    n_profile : int
        Number of profile events: one per δ plus one for the GDP μ (0 without a profile).
    deltas : numpy.ndarray or None
        The δ grid of the profile; ``None``: no profile.
    eps_grid : numpy.ndarray
        The ε grid of the profile's δ-at-ε curve.
    ctx : SelectionContext
        The selection context shared by the attacks (final sample size, level, δ, directions, density, generator).
    log_density : callable or None
        ``log_density(Y, data)``, enabling the likelihood-ratio attack; ``None``: not available.
    max_candidates : int
        Thresholds per scan.
    chunk_size : int
        Releases per mechanism call in search and selection.
    name : str or None
        Name of the result (``None``: derived from the mechanism).
    max_memory : int or str, default "2GiB"
        Memory budget of search and selection (bytes or a string such as ``"2GiB"``).
    backend : str, default "serial"
        ``"serial"`` or ``"dask"`` (certification counted on a Dask cluster).
    client : distributed.Client, optional
        The Dask client used with ``backend="dask"``.
    n_select_given : bool, default False
        Whether the caller passed ``n_select`` (then it is never lowered to fit ``max_memory``: an error instead).
    n_search_given : bool, default False
        Whether the caller passed ``n_search`` (then it is honoured even below the per-pair minimum).
    """

    mechanism: Mechanism
    claim: PrivacyClaim
    pairs: list[Pair]
    attacks: Any
    n_samples: int
    n_select: int
    n_search: int
    n_certify: int
    alpha: float
    budget: Budget
    a_event: float
    a_profile: float
    n_profile: int
    deltas: np.ndarray | None
    eps_grid: np.ndarray
    ctx: SelectionContext
    log_density: Any
    max_candidates: int
    chunk_size: int
    name: str | None
    max_memory: Any = "2GiB"
    backend: str = "serial"
    client: Any = None
    n_select_given: bool = False  # n_select passed by the caller (never lowered to fit max_memory: an error instead)
    n_search_given: bool = False  # n_search passed by the caller (honoured below MIN_PER_PAIR per pair)

    @property
    def searching(self) -> bool:
        return len(self.pairs) > 1


def as_claim(claim, mech) -> PrivacyClaim:
    """The claim under test: ``claim`` itself, a guarantee's claim, or the mechanism's declared guarantee."""
    if claim is None:
        claim = getattr(mech, "guarantee", None)
        if claim is None:
            raise ValueError("claim must be a PrivacyClaim or PrivacyGuarantee (the mechanism declares none)")
    if isinstance(claim, PrivacyGuarantee):
        return claim.claim()
    if isinstance(claim, PrivacyClaim):
        return claim
    raise ValueError(f"claim must be a PrivacyClaim or PrivacyGuarantee, got {type(claim).__name__}")


def resolve_pairs(pairs, neighbours, claim: PrivacyClaim) -> list[Pair]:
    """Candidate pairs from ``pairs`` or ``neighbours``, each checked against the claim's neighbour relation.

    Plain ``(D, D')`` tuples are read with the claim's relation (:func:`~.neighbours.given_pair`): two arrays are
    datasets and must be neighbours under it (else ``ValueError`` saying how they differ), two scalars are query
    answers.  Pairs labelled with a query-level relation (``"query"``, ``"N1"``, ``"Ninf"``) are asserted.
    """
    if pairs is not None and neighbours is not None:
        raise ValueError("give either pairs or neighbours, not both")
    if pairs is not None:
        out = as_pairs(pairs, claim.neighbours)
    elif neighbours is None:
        raise ValueError("pairs or neighbours must be given (e.g. pairs=[(0.0, 1.0)] or neighbours=dataset)")
    elif isinstance(neighbours, dict):
        out = dataset_patterns(**{"relation": claim.neighbours, **neighbours})
    elif callable(neighbours):
        out = as_pairs(neighbours(claim.neighbours), claim.neighbours)
    else:
        out = dataset_patterns(neighbours, relation=claim.neighbours)
    if not out:
        raise ValueError(
            "no candidate pair: the neighbours / pairs given produce none (an all-equal dataset with no declared "
            "domain has no extreme records to move to: pass neighbours={'data': D, 'lower': ..., 'upper': ...} or "
            "explicit pairs)"
        )
    for p in out:
        if p.relation in NEIGHBOUR_RELATIONS:
            if p.relation != claim.neighbours:
                raise ValueError(
                    f"pair {p.label!r} is a {p.relation!r} pair but the claim is for {claim.neighbours!r} neighbours; "
                    "auditing under another relation would test a different guarantee"
                )
            check_neighbours(p)
    return out


def _profile_deltas(profile, n_samples: int):
    if profile is None or profile is False:
        return None
    if profile is True:
        return np.geomspace(max(1e-4, 10.0 / n_samples), 0.2, 12)
    if isinstance(profile, (str, bytes, dict)):
        raise ValueError(f"profile must be True, False, None or an array of deltas in (0, 1), got {profile!r}")
    try:
        deltas = np.asarray(profile, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"profile must be True or an array of deltas in (0, 1), got {profile!r}") from None
    if deltas.ndim > 1:
        raise ValueError(f"profile must be True or a 1-d array of deltas in (0, 1), got shape {deltas.shape}")
    deltas = np.sort(deltas.ravel())
    if deltas.size == 0 or np.any(~np.isfinite(deltas)) or np.any(deltas <= 0) or np.any(deltas >= 1):
        raise ValueError(f"profile must be True or an array of deltas in (0, 1), got {profile!r}")
    return deltas


def _profile_epsilons(profile_epsilons) -> np.ndarray:
    """The ε grid of a profile's δ-at-ε curve: a 1-d array of finite ε ≥ 0 (NaN gave a NaN bound, ε = −1 a bound
    reported at a negative ε, a 2-d array was flattened)."""
    try:
        e = np.asarray(profile_epsilons, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(
            f"profile_epsilons must be a 1-d array of finite epsilons >= 0, got {profile_epsilons!r}"
        ) from None
    if e.ndim != 1 or e.size == 0 or not np.all(np.isfinite(e)) or np.any(e < 0):
        raise ValueError(f"profile_epsilons must be a 1-d array of finite epsilons >= 0, got {profile_epsilons!r}")
    return np.sort(e)


def plan_audit(
    mechanism: Any,
    claim: PrivacyClaim,
    *,
    pairs: Any,
    neighbours: Any,
    n_samples: int,
    alpha: float,
    attacks: Any,
    rng: np.random.Generator,
    n_select: int | None,
    n_search: int | None,
    n_certify: int,
    log_density: Callable[..., Any] | None,
    directions: Any,
    profile: Any,
    profile_epsilons: Any,
    profile_share: float,
    max_candidates: int,
    chunk_size: int,
    name: str | None,
    max_memory: int | str = "2GiB",
    backend: str = "serial",
    client: Any = None,
) -> AuditPlan:
    """Validate the arguments of :func:`~htdp_verify.privacy.audit` and fix sizes and the α budget.

    Parameters
    ----------
    mechanism, claim, pairs, neighbours, n_samples, alpha, attacks, rng, n_select, n_search, n_certify
        As in :func:`~htdp_verify.privacy.audit`.
    log_density, directions, profile, profile_epsilons, profile_share, max_candidates, chunk_size, name
        As in :func:`~htdp_verify.privacy.audit`.
    max_memory, backend, client
        As in :func:`~htdp_verify.privacy.audit`.

    Returns
    -------
    AuditPlan
        The validated plan.
    """
    check_rng(rng)
    mech = as_mechanism(mechanism)
    claim = as_claim(claim, mech)
    n_samples = check_int("n_samples", n_samples, minimum=10)
    alpha = check_prob("alpha", alpha)
    n_certify = check_int("n_certify", n_certify, minimum=1)
    n_select_given = n_select is not None
    if n_select_given:
        n_select = check_int("n_select", n_select, minimum=20)
    max_candidates = check_int("max_candidates", max_candidates, minimum=8)
    chunk_size = check_int("chunk_size", chunk_size, minimum=1)
    parse_memory(max_memory)
    if backend not in ("serial", "dask"):
        raise ValueError(f"backend must be 'serial' or 'dask', got {backend!r}")
    if backend == "dask" and client is None:
        raise ValueError("backend='dask' needs client= (a dask.distributed Client)")
    pair_list = resolve_pairs(pairs, neighbours, claim)
    n_search_given = n_search is not None
    if n_search_given:
        n_search = check_int("n_search", n_search, minimum=20)
    default_select, default_search = default_stage_sizes(n_samples, len(pair_list))
    n_select = default_select if n_select is None else n_select
    n_search = default_search if n_search is None else n_search  # 0 with one pair: no search
    deltas = _profile_deltas(profile, n_samples)
    if deltas is not None:
        profile_share = check_prob("profile_share", profile_share)
    if profile_epsilons is not None and deltas is None:
        raise ValueError("profile_epsilons applies to a profile: pass profile=True (or an array of deltas) with it")
    eps_grid = (
        np.linspace(0.0, max(2.0 * claim.epsilon, 0.1), 21)
        if profile_epsilons is None
        else _profile_epsilons(profile_epsilons)
    )

    budget = Budget(alpha)
    n_prof = 0 if deltas is None else deltas.size + 1
    a_prof = 0.0
    if n_prof:
        a_prof = budget.spend(f"profile: {n_prof} events (one per delta + GDP mu), Bonferroni", alpha * profile_share)
    a_main = budget.spend_rest(f"certify: {n_certify} event(s) of the best pair, Bonferroni")
    a_event = a_main / n_certify
    ctx = SelectionContext(
        n_final=n_samples,
        alpha=a_event,
        delta=claim.delta,
        max_candidates=max_candidates,
        directions=directions,
        log_density=log_density,
        rng=rng,
    )
    return AuditPlan(
        mechanism=mech,
        claim=claim,
        pairs=pair_list,
        attacks=attacks,
        n_samples=n_samples,
        n_select=n_select,
        n_search=n_search,
        n_certify=n_certify,
        alpha=alpha,
        budget=budget,
        a_event=a_event,
        a_profile=a_prof,
        n_profile=n_prof,
        deltas=deltas,
        eps_grid=eps_grid,
        ctx=ctx,
        log_density=log_density,
        max_candidates=max_candidates,
        chunk_size=chunk_size,
        name=name,
        max_memory=max_memory,
        backend=backend,
        client=client,
        n_select_given=n_select_given,
        n_search_given=n_search_given,
    )


def context_for(plan: AuditPlan, pair: Pair, **changes) -> SelectionContext:
    """The plan's selection context for ``pair`` (the likelihood-ratio attack needs the pair's data)."""
    return dataclasses.replace(plan.ctx, pair=(pair.d, pair.d_prime), **changes)
