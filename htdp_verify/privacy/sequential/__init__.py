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

The whole audit in rounds (what ``audit(..., sequential=True)`` runs: search and selection in rounds of growing
size too, each round's certification at α·2^-(k+1)) is :func:`rounds_audit` in :mod:`.rounds`; its
:meth:`RoundsDesign.fixed_split` is one round on the fixed-n audit's own search and selection with a certification
that stops early at the full α (the registered checks of per-call estimators), and :meth:`RoundsDesign.per_call`
a small probe round at α/10 before that split, which runs at the α left on the fixed-n budget (the probe comes on
top of it): it finds strong leaks with about a tenth of the releases, and weak ones somewhat less often than the
fixed split.

Layout: :mod:`.engine` (schedule, betting e-processes, :func:`run_sequential`), :mod:`.stages` (the pipeline
stages of one certification), :mod:`.design` (:class:`RoundsDesign`: how the rounds spend their releases),
:mod:`.rounds` (the audit in rounds; :mod:`.annotate` writes its record),
:mod:`.floor` (the fewest releases any audit certifying one event needs, from a mechanism's exact law:
:func:`oracle_floor`); every name is importable from here.
"""

from __future__ import annotations

from .design import MIN_ROUND, STOP_REASONS, RoundsDesign, as_design, round_alpha
from .engine import (
    FUTILITY_MODES,
    METHODS,
    SequentialOutcome,
    checkpoint_alpha,
    checkpoints,
    epsilon_grid,
    run_sequential,
)
from .floor import bernoulli_kl_to_null, event_floor, oracle_floor, sequential_floor
from .rounds import rounds_audit
from .stages import SequentialCounts, annotate_result, sequential_bounds_stage, sequential_certification_stage

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
    "RoundsDesign",
    "as_design",
    "round_alpha",
    "rounds_audit",
    "MIN_ROUND",
    "STOP_REASONS",
    "bernoulli_kl_to_null",
    "sequential_floor",
    "event_floor",
    "oracle_floor",
]
