"""Resolving ``attacks=`` (names, objects, ``"auto"``) into the event families an audit runs."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .basic import (
    Attack,
    CoordinateAttack,
    DiscreteAttack,
    IntervalAttack,
    ProjectionAttack,
    ThresholdAttack,
    _is_scalar,
)
from .events import RowKey
from .learned import (
    BitPatternAttack,
    GradientBoostingAttack,
    LikelihoodRatioAttack,
    LogisticAttack,
    MixedLogisticAttack,
)
from .structured import AtomAttack, MaxStatisticAttack, PatternAttack, StratifiedAttack, column_atoms
from .whitened import WhitenedAttack

__all__ = ["ATTACK_NAMES", "MAX_CATEGORIES", "auto_attacks", "make_attacks"]


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
    "atoms": AtomAttack,
    "max_statistic": MaxStatisticAttack,
    "pattern": PatternAttack,
    "stratified": StratifiedAttack,
    "whitened": WhitenedAttack,
}

#: distinct releases up to which a release is treated as discrete (also at most 5 % of the sample)
MAX_CATEGORIES = 4096


def _n_distinct_small(Y, max_categories: int) -> bool:
    Y = np.asarray(Y)
    key = RowKey(Y.shape[1:], Y.dtype)
    n = np.unique(key(Y)).size
    return n <= max_categories and n <= 0.05 * Y.shape[0]


def _numeric(Y) -> bool:
    """Whether the releases are numbers (an object array counts when every entry converts to float: checking the
    first 256 only let a rare string later on crash the threshold families)."""
    Y = np.asarray(Y)
    if Y.dtype.kind in "biuf":
        return True
    if Y.dtype.kind != "O":
        return False
    try:
        Y.astype(float)
    except (TypeError, ValueError):
        return False
    return True


def _has_atoms(Y) -> bool:
    return any(a.size for a in column_atoms(np.asarray(Y)[:50_000]))


def auto_attacks(
    Y_example: np.ndarray,
    *,
    log_density: Callable[..., Any] | None = None,
    max_categories: int = MAX_CATEGORIES,
    Y_other: np.ndarray | None = None,
) -> list[Attack]:
    """The ``"auto"`` families for releases like ``Y_example`` (the selection releases on D):

    * discrete (at most ``max_categories`` distinct releases, and ≤ 5 % of the sample): unions of outcomes, plus
      thresholds (scalar) or per-coordinate thresholds and a logistic score (vector: many outcomes, each with a
      small ratio, add up along a direction that unions of outcomes see only through noisy cells);
    * scalar continuous: thresholds, intervals and unions of atoms (point masses, NaN, ±inf).  Floating-point
      leaks (Mironov 2012) are left to the opt-in ``"bits"`` family: every mechanism that adds numpy's Laplace noise
      to a double leaks through its low-order bits (the benchmark's plain Laplace row as much as its "naive float"
      row: ``attacks=["auto", "bits"]`` certifies ε ≥ 2.08 on both at 10⁶ releases per side; the two rows' samplers
      return the same doubles from the same seed, so no black-box event can tell them apart, and ``float(d) +
      rng.laplace(0, 1)`` audited at claim 1 on (0, 1) with ``"bits"`` certifies ε ≥ 3.28 from 2·10⁴ releases),
      so "auto" audits the claim about the real-arithmetic mechanism, and ``"bits"`` the float implementation;
    * vector continuous: per-coordinate thresholds, projections, extreme coordinates, logistic regression, gradient
      boosting (non-linear), logistic regression on coordinate signs and, when no column carries atoms (2 to
      ``whitened.MAX_DIM`` coordinates), the Laplace log-ratio and the most shifted coordinates of the release
      whitened in release order; when columns carry atoms (a discrete part next to real values, as SVT-type
      releases): unions of atom patterns, thresholds of the real part within patterns, and logistic regression on
      atoms + signs (+ a linear trend);
    * releases that are not numbers (strings, labels): unions of outcomes only;
    * the likelihood ratio when ``log_density`` is given.

    With several families the audit compares them on a held-out part of the selection split.

    Parameters
    ----------
    Y_example : numpy.ndarray
        Selection releases on D.
    log_density : callable, optional
        ``log_density(Y, data) -> (n,)``: enables the likelihood-ratio attack.
    max_categories : int, default MAX_CATEGORIES
        Most distinct releases for the discrete families.
    Y_other : numpy.ndarray, optional
        Selection releases on D': a vector release whose atoms (NaN, ±inf, point masses) occur on one side only
        gets the atom families too (a NaN in one coordinate on D' only is an unbounded leak that thresholds and
        scores do not see).

    Returns
    -------
    list of Attack
        The families.
    """
    scalar = _is_scalar(Y_example)
    out: list[Attack]
    if not (_numeric(Y_example) and (Y_other is None or _numeric(Y_other))):  # strings, labels: outcome sets only
        out = [DiscreteAttack()]
    elif _n_distinct_small(Y_example, max_categories):
        out = [DiscreteAttack()] + ([ThresholdAttack()] if scalar else [CoordinateAttack(), LogisticAttack()])
    elif scalar:
        out = [ThresholdAttack(), IntervalAttack(), AtomAttack()]
    else:
        out = [
            CoordinateAttack(),
            ProjectionAttack(),
            MaxStatisticAttack(),
            LogisticAttack(),
            GradientBoostingAttack(),
            MixedLogisticAttack(trend=None, label="signs"),
        ]
        if _has_atoms(Y_example) or (Y_other is not None and _has_atoms(Y_other)):
            out += [PatternAttack(), StratifiedAttack(), MixedLogisticAttack(trend="linear", label="atoms")]
        elif WhitenedAttack().applicable(Y_example):  # continuous noise post-processed linearly: whiten it
            out.append(WhitenedAttack())
    if log_density is not None:
        out.append(LikelihoodRatioAttack(log_density))
    return out


def check_same_release_kind(Y1: np.ndarray, Y2: np.ndarray) -> None:
    """A ``ValueError`` when the releases on D and on D' differ in shape or dtype (strings of different lengths
    are one kind).

    Events compare releases of one kind; numpy would have failed deep inside an attack on different shapes and
    silently cast different dtypes to one (float32 on D against float64 on D' came out "consistent").  Either
    difference tells the two datasets apart by itself, so it is reported as what it is.

    Parameters
    ----------
    Y1, Y2 : numpy.ndarray
        Releases on D and on D'.
    """
    y1, y2 = np.asarray(Y1), np.asarray(Y2)
    what = None
    if y1.shape[1:] != y2.shape[1:]:
        what = f"shape {y1.shape[1:]} on D against {y2.shape[1:]} on D'"
    elif y1.dtype != y2.dtype and not (y1.dtype.kind == y2.dtype.kind and y1.dtype.kind in "USO"):
        # strings: numpy sizes the dtype to the longest string of the call, which varies by chance
        what = f"dtype {y1.dtype} on D against {y2.dtype} on D'"
    if what is not None:
        raise ValueError(
            f"the mechanism's releases have {what}: the auditor compares releases of one shape and dtype. A release "
            "whose shape or type depends on the data tells D and D' apart by itself (an unbounded leak if it is "
            "published); return one fixed shape and dtype, or audit that difference as a release of its own"
        )


def make_attacks(
    attacks: Any,
    Y_example: np.ndarray,
    *,
    log_density: Callable[..., Any] | None = None,
    max_categories: int = MAX_CATEGORIES,
    Y_other: np.ndarray | None = None,
) -> list[Attack]:
    """Resolve ``attacks`` (``"auto"``, a name, an :class:`Attack`, or a list of these) for releases like ``Y``;
    ``"auto"`` is :func:`auto_attacks`.

    Parameters
    ----------
    attacks : str, Attack or list
        ``"auto"``, a name, an :class:`Attack`, or a list of these.
    Y_example : numpy.ndarray
        Selection releases on D.
    log_density : callable, optional
        ``log_density(Y, data) -> (n,)``: enables the likelihood-ratio attack.
    max_categories : int, default MAX_CATEGORIES
        Most distinct releases for the discrete families.
    Y_other : numpy.ndarray, optional
        Selection releases on D' (see :func:`auto_attacks`).

    Returns
    -------
    list of Attack
        The attacks.
    """
    if Y_other is not None:
        check_same_release_kind(Y_example, Y_other)
    if isinstance(attacks, (str, Attack)):
        attacks = [attacks]
    if not isinstance(attacks, (list, tuple)):
        raise ValueError(f"attacks must be 'auto', an Attack, or a list of names / Attacks; got {attacks!r}")
    out: list[Attack] = []
    for a in attacks:
        if isinstance(a, Attack):
            out.append(a)
        elif a == "auto":
            out += auto_attacks(Y_example, log_density=log_density, max_categories=max_categories, Y_other=Y_other)
        elif isinstance(a, str) and a in ATTACK_NAMES:
            out.append(ATTACK_NAMES[a](log_density) if a == "likelihood_ratio" else ATTACK_NAMES[a]())
        else:
            raise ValueError(f"attacks must be 'auto', an Attack, or names from {sorted(ATTACK_NAMES)}; got {a!r}")
    # drop attacks that cannot apply to this output shape (explicit requests that do not apply raise)
    kept = [a for a in out if a.applicable(Y_example)]
    if not kept:
        raise ValueError(
            f"attacks: none of {[a.name for a in out]} applies to releases of shape {np.shape(Y_example)[1:]}"
        )
    return kept
