"""Run-off between the pair search's finalists, decided on fresh selection releases (an experiment switch, off).

The pair search (:mod:`.search`) ends by comparing its last ``FINALISTS`` pairs on the releases it drew for them.
Those scores carry a winner's curse: a pair whose best event is rare (an outcome of probability ~0.0025) has a
noisy held-out score, and it reaches and wins the last round mostly when that score came out high.  On SVT4 at
2·10⁷ releases per side (bench seeds 20261121-25, the defaults of 2026-11-29) the search preferred the in-domain
extreme pair at 3 of 5 seeds with predicted bounds 0.174 / 0.182 / 0.184, and the same pair then certified 0.145 /
0.156 / 0.152 (its certification point estimates 0.160 / 0.171 / 0.166), where the half-half and X-shape pairs,
predicted 0.167-0.171, certify 0.163-0.169.

With ``RUNOFF`` the selection budget is shared by the finalists: each gets ``n_select // FINALISTS`` fresh releases
per side and a full selection stage of its own (:func:`~.selection.selection_stage`, with the search's events for
that pair as seeds); the pair whose best main event has the higher held-out prediction (the selection's own
pessimism, :data:`~.selection.HELD_OUT_Z` paired standard errors, on releases no earlier choice saw) is kept, with
its selection.  The other finalists' releases count as pair-search releases in the result's totals.  The
certification releases are drawn afterwards and never seen by either choice, so no α is spent.

The cost: the kept pair's events are chosen on ``n_select // FINALISTS`` releases per side instead of
``n_select``.  A run-off is held only when each finalist still gets at least ``MIN_PER_FINALIST`` releases per side
(the selection's fit part, :data:`~.selection_stream.FIT_CAP` = 65 536): then the attacks fit on as many releases as
without it, and only the part on which candidates are counted shrinks.  Sequential audits
(:mod:`.sequential.rounds`) do not use it.

Measured, and not adopted (2026-11-29; ``benchmarks/split_experiment.py --set runoff.RUNOFF=1`` against the
default call, 2·10⁷ releases per side, fresh seeds 20261206-45; SVT4 on 20261226-45): the run-off certified more
in 13 of 40 paired audits on SVT1, 17 of 40 on SVT2 and 12 of 20 on SVT4 (medians 0.0833 / 0.0851 / 0.1672 against
0.0841 / 0.0848 / 0.1665); on seven cheaper rows with several pairs (3 seeds) in 12 of 19; at 10⁶ per side, before
the fit-part condition, in 24 of 62 (NoisyHist1 -45 %, NumericalSVT -67 %).  A fresh look at ``n_select / 2``
releases is about as noisy as the search's own last round, and the kept pair's events are chosen on half the
releases.  The switch stays for experiments (and so that the result can be reproduced).
"""

from __future__ import annotations

import dataclasses

import numpy as np

from .plan import AuditPlan
from .selection import SearchOutcome, Selection, selection_stage
from .selection_stream import FIT_CAP

__all__ = ["RUNOFF", "FINALISTS", "MIN_PER_FINALIST", "choose_pair_and_events"]

RUNOFF = False  # off: measured on fresh seeds, no gain (module docstring; README, "How the defaults were chosen")
FINALISTS = 2  # pairs in the run-off (the search's last round keeps two)
# Fewest selection releases per side and finalist for a run-off: the selection's fit part (``FIT_CAP``), so that the
# attacks fit on as many releases as without a run-off and only the counted part shrinks.
MIN_PER_FINALIST = FIT_CAP


def _best_prediction(sel: Selection) -> float:
    return float(sel.main[0].predicted) if sel.main else float("-inf")


def choose_pair_and_events(
    plan: AuditPlan, search: SearchOutcome, rng: np.random.Generator
) -> tuple[SearchOutcome, Selection]:
    """The pair to certify and its selection: the search's winner and a selection on it, or with ``RUNOFF`` the
    winner of a run-off between the search's finalists on fresh selection releases.

    Parameters
    ----------
    plan : AuditPlan
        The audit's plan (``n_select`` is shared by the finalists in a run-off).
    search : SearchOutcome
        The search stage's outcome (``finalists`` in ranking order).
    rng : numpy.random.Generator
        The generator every release is drawn from.

    Returns
    -------
    tuple
        ``(search, selection)``: the search outcome, with the kept pair, its search events, the other finalists'
        releases added to ``drawn`` and the run-off's table in ``runoff`` when one was held; and the kept pair's
        selection.
    """
    finalists = list(search.finalists)[: max(FINALISTS, 1)]
    k = len(finalists)
    if not RUNOFF or not plan.searching or k < 2 or plan.n_select // k < MIN_PER_FINALIST:
        return search, selection_stage(plan, search.pair, rng, search.events)
    sub = dataclasses.replace(plan, n_select=plan.n_select // k)
    sels = [selection_stage(sub, pair, rng, events) for pair, events in finalists]
    scores = [_best_prediction(s) for s in sels]
    best = int(np.argmax(scores))  # ties: the search's order
    table = [
        {
            "pair": pair.describe(),
            "predicted_bound": scores[i],
            "best_event": sels[i].main[0].describe() if sels[i].main else "",
            "n_per_side": sub.n_select,
            "kept": i == best,
        }
        for i, (pair, _) in enumerate(finalists)
    ]
    others = sum(s.drawn for i, s in enumerate(sels) if i != best)
    pair, events = finalists[best]
    kept = dataclasses.replace(
        search,
        pair=pair,
        events=list(events),
        drawn=search.drawn + others,
        seconds=search.seconds + sum(s.seconds for i, s in enumerate(sels) if i != best),
        runoff=table,
    )
    return kept, sels[best]
