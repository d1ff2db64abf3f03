"""Resolving ``attacks=`` (names, objects, ``"auto"``) into the event families an audit runs."""
from __future__ import annotations

import numpy as np

from .basic import (Attack, CoordinateAttack, DiscreteAttack, IntervalAttack, ProjectionAttack, ThresholdAttack,
                    _is_scalar)
from .events import RowKey
from .learned import (BitPatternAttack, GradientBoostingAttack, LikelihoodRatioAttack, LogisticAttack,
                      MixedLogisticAttack)

__all__ = ["ATTACK_NAMES", "make_attacks"]


ATTACK_NAMES = {
    "threshold": ThresholdAttack,
    "interval": IntervalAttack,
    "discrete": DiscreteAttack,
    "coordinates": CoordinateAttack,
    "projection": ProjectionAttack,
    "logistic": LogisticAttack,
    "gboost": GradientBoostingAttack,
    "mixed_logistic": MixedLogisticAttack,
    "bits": BitPatternAttack,
    "likelihood_ratio": LikelihoodRatioAttack,
}


def _n_distinct_small(Y, max_categories: int) -> bool:
    Y = np.asarray(Y)
    key = RowKey(Y.shape[1:], Y.dtype)
    n = np.unique(key(Y)).size
    return n <= max_categories and n <= 0.05 * Y.shape[0]


def make_attacks(attacks, Y_example, *, log_density=None, max_categories: int = 256) -> list[Attack]:
    """Resolve ``attacks`` (``"auto"``, a name, an :class:`Attack`, or a list of these) for releases like ``Y``.

    ``"auto"``: scalar continuous → threshold + interval; discrete (few distinct outputs) → discrete (+ threshold
    when scalar); vector continuous → coordinates + projection + logistic; plus ``likelihood_ratio`` when
    ``log_density`` is given.
    """
    if isinstance(attacks, (str, Attack)):
        attacks = [attacks]
    out: list[Attack] = []
    for a in attacks:
        if isinstance(a, Attack):
            out.append(a)
        elif a == "auto":
            scalar = _is_scalar(Y_example)
            discrete = _n_distinct_small(Y_example, max_categories)
            if discrete:
                out += [DiscreteAttack()] + ([ThresholdAttack()] if scalar else [CoordinateAttack()])
            elif scalar:
                out += [ThresholdAttack(), IntervalAttack()]
            else:
                out += [CoordinateAttack(), ProjectionAttack(), LogisticAttack()]
            if log_density is not None:
                out.append(LikelihoodRatioAttack(log_density))
        elif isinstance(a, str) and a in ATTACK_NAMES:
            out.append(ATTACK_NAMES[a](log_density) if a == "likelihood_ratio" else ATTACK_NAMES[a]())
        else:
            raise ValueError(f"attacks must be 'auto', an Attack, or names from {sorted(ATTACK_NAMES)}; got {a!r}")
    # drop attacks that cannot apply to this output shape (explicit requests that do not apply raise)
    kept = [a for a in out if a.applicable(Y_example)]
    if not kept:
        raise ValueError(f"attacks: none of {[a.name for a in out]} applies to releases of shape {np.shape(Y_example)[1:]}")
    return kept

