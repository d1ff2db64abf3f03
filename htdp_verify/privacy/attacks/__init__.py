"""Attacks (package): families of events, chosen on a *selection* split and certified on fresh samples.

An attack looks at releases ``Y1`` (on D) and ``Y2`` (on D') from the selection split and proposes a few
:class:`Event` objects, each with a *predicted certified bound*: the ε lower bound the event would certify at
the final sample size ``n_final`` if the final proportions equalled the selection proportions.  Because the
event is fixed before the certification samples are drawn, choosing it costs no α, however many
thresholds, directions and features were scanned.

Events are threshold sets ``{score >= t}`` / ``{score <= t}``, intervals ``{a <= score <= b}`` and finite sets
of outcomes ``{output in S}``, where the score is a feature of the release (the release itself, a coordinate, a
projection, a learned classifier score, a likelihood ratio).  Each event has an *orientation*: ``+1`` when it is
more likely under D (the bound is on ``P[M(D)∈S] / P[M(D')∈S]``), ``-1`` for the reverse, so both orders of
the pair are tried on the same samples.

Threshold scans are vectorised: both samples are sorted once and every candidate threshold is counted with
``searchsorted``; the predicted bounds of all candidates come from one vectorised Clopper–Pearson call.
No event probability is fixed in advance (contrast DP-Sniper's c = 0.01, which caps it near ε ≈ 4.6).

Modules: :mod:`.scoring` (the selection objective), :mod:`.events` (features, events, context), :mod:`.scan`
(threshold / interval scans), :mod:`.basic` (model-free families), :mod:`.learned` (classifier scores),
:mod:`.structured` (atoms, extreme coordinates, patterns of mixed releases), :mod:`.whitened` (the release
decorrelated in release order: running sums, iterate trajectories), :mod:`.auto` (``make_attacks``),
:mod:`.serialise` (exact event specs).
"""

from .auto import ATTACK_NAMES, auto_attacks, make_attacks
from .basic import (  # noqa: F401 - _is_scalar re-exported for existing importers
    Attack,
    CoordinateAttack,
    DiscreteAttack,
    IntervalAttack,
    ProjectionAttack,
    ThresholdAttack,
    _is_scalar,
)
from .events import (  # noqa: F401 - _as_2d re-exported for existing importers
    Coordinate,
    Event,
    Feature,
    Identity,
    LearnedScore,
    LikelihoodRatio,
    Projection,
    RowKey,
    SelectionContext,
    _as_2d,
    bit_features,
)
from .learned import (
    BitPatternAttack,
    GradientBoostingAttack,
    LikelihoodRatioAttack,
    LogisticAttack,
    MixedFeatures,
    MixedLogisticAttack,
)
from .scan import ScanFamily, scan_intervals, scan_sets, scan_thresholds
from .scoring import predicted_bound, union_pessimism
from .serialise import event_from_spec, event_spec
from .structured import AtomAttack, MaxStatisticAttack, PatternAttack, StratifiedAttack
from .whitened import WhitenedAttack

__all__ = [
    "Event",
    "Feature",
    "Identity",
    "Coordinate",
    "Projection",
    "LearnedScore",
    "LikelihoodRatio",
    "RowKey",
    "SelectionContext",
    "Attack",
    "ThresholdAttack",
    "IntervalAttack",
    "DiscreteAttack",
    "CoordinateAttack",
    "ProjectionAttack",
    "LogisticAttack",
    "GradientBoostingAttack",
    "MixedFeatures",
    "MixedLogisticAttack",
    "BitPatternAttack",
    "LikelihoodRatioAttack",
    "bit_features",
    "predicted_bound",
    "union_pessimism",
    "scan_thresholds",
    "scan_intervals",
    "scan_sets",
    "ScanFamily",
    "make_attacks",
    "auto_attacks",
    "ATTACK_NAMES",
    "AtomAttack",
    "MaxStatisticAttack",
    "PatternAttack",
    "StratifiedAttack",
    "WhitenedAttack",
    "event_spec",
    "event_from_spec",
]
