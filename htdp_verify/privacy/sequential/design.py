"""How a sequential audit spends its releases: :class:`RoundsDesign` (round sizes, the test inside a round, its
futility rule, the probe of :meth:`RoundsDesign.per_call`), :func:`as_design` (what an ``audit(sequential=...)``
argument stands for) and :func:`round_alpha` (the level of round ``k``).  :func:`~.rounds.rounds_audit` runs a
design.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from ..._validate import check_int, check_prob
from .engine import FUTILITY_MODES, METHODS

__all__ = ["RoundsDesign", "as_design", "round_alpha", "MIN_ROUND", "PROBE_MAX_SELECT", "STOP_REASONS"]

#: fewest releases per side a round selects on, and fewest it may certify on
MIN_ROUND = 20

#: most releases per side the probe of :meth:`RoundsDesign.per_call` selects on when its size is not given: the probe
#: selects on 1 % of the fixed-n budget, at least ``MIN_ROUND`` and at most this
PROBE_MAX_SELECT = 200

#: why a sequential audit stopped (``details["sequential"]["stop_reason"]``): a certified violation; futility (its
#: last round's test, or its selection releases, ruled a violation out before the budget was spent); the budget
#: ``max_samples`` spent
STOP_REASONS = ("violated", "futility", "budget")


def round_alpha(alpha: float, k: int) -> float:
    """Level of round ``k`` (0-based): ``alpha · 2^-(k+1)``; the levels of all rounds sum to less than ``alpha``.

    Parameters
    ----------
    alpha : float
        The audit's family-wise level.
    k : int
        The round (0-based).

    Returns
    -------
    float
        The round's level.
    """
    k = check_int("k", k, minimum=0)
    return float(alpha) * 0.5 ** (k + 1)


@dataclass(frozen=True)
class RoundsDesign:
    """How a sequential audit spends its releases: the round sizes, the test inside a round, its futility rule.

    Parameters
    ----------
    method : str, default "betting"
        The certification test inside a round (``"betting"`` or ``"union"``, see :mod:`.engine`).
    first_select : int, optional
        Selection releases per side of round 0 (default ``min(250, max(MIN_ROUND, plan.n_select // 4))``).
    growth : float, default 4.0
        Factor by which the selection (and so the whole round) grows from one round to the next.
    certify_ratio : float, default 4.0
        Most certification releases per side of a round, as a multiple of its selection releases (the fixed-n
        default selects on a quarter of the certification size).
    search_ratio : float, default 0.5
        Search releases per pair and side of a round, as a multiple of its selection releases (at least 20).
    futility : str or None, default "plausible"
        Futility rule inside a round (see :mod:`.engine`); also used to skip a round's certification when its
        selection releases already rule a violation out.  ``None``: never.
    futility_level : float, default 0.001
        Level of the futility rules.
    prior_weight : int, default 100
        Most selection releases per side the bets of a round start from (pseudo-counts).
    single_round : bool, default False
        One round on the plan's own sizes instead of growing rounds: the search and selection of the fixed-n
        audit, then a certification of at most ``max_samples`` minus them (default the plan's ``n_samples``)
        that stops early, at the full α (the round sizes and ratios above are then unused).  Build it with
        :meth:`fixed_split`.
    spend_rest : bool, default True
        The last round (the one that takes what is left of ``max_samples``) certifies at all the α the earlier
        rounds left unspent, ``α − Σ_{j<k} α_j ≥ α·2^-k``, instead of ``α·2^-(k+1)``; ``False``: the geometric
        level.
    halve_pairs : bool, default False
        Successive halving of the candidate pairs over the rounds: round ``k + 1`` searches only the better half
        (rounded up) of the pairs round ``k``'s search ranked, at the larger per-pair size of its round; once one
        pair is left it is audited without a search.  The ranking uses search releases only, which no
        certification sees.
    seed_events : bool, default True
        The pair search's best events on the kept pair (chosen on its own releases) join the round's selection as
        candidates, re-scored on all the selection's releases (when the pipeline's search reports them).
    look_growth : float, default 1.5
        Growth factor of the betting test's checkpoints inside a round (first look after 10 releases per side);
        looking costs the betting test nothing, so denser looks only stop sooner (and update the bets more often).
    max_bet : float, default 0.5
        Largest bet of the betting test, as a fraction of ``1 / (e^ε + δ)`` (see :func:`~.engine.run_sequential`).
    probe : bool, default False
        Two rounds at most: a small probe round (round 0 of the growing rounds, at ``probe_share · α``), then, unless it
        certified a violation, the plan's own split (:meth:`fixed_split`'s round: the plan's search and selection,
        a certification of what is left of ``max_samples``) at the α left.  A plain leak costs the probe only;
        a weak one still gets the fixed-n audit's whole search and selection.  When the probe would leave the
        split less than half the plan's ``n_samples`` to certify, it is skipped (the audit is the fixed split).
    probe_share : float, default 0.5
        The probe round's share of α (the split after it certifies at the rest, a union bound at α).
    probe_extra : bool, default False
        With ``probe`` and no ``max_samples`` given: the probe's releases come on top of the default budget (the
        fixed-n audit's total), so the split after the probe keeps the plan's whole certification size; at most
        one probe round more than the fixed split draws.  ``False``: the probe comes out of that budget.
    probe_look_growth, probe_max_bet : float, optional
        ``look_growth`` and ``max_bet`` of the probe round only (default: the design's own); the split after it
        uses the design's.  Dense looks and large bets suit a plain leak; on a weak one, bets started from an
        optimistic selection prior lose wealth, so the split keeps the fixed split's moderate ones.
    """

    method: str = "betting"
    first_select: int | None = None
    growth: float = 4.0
    certify_ratio: float = 4.0
    search_ratio: float = 0.5
    futility: str | None = "plausible"
    futility_level: float = 1e-3
    prior_weight: int = 100
    single_round: bool = False
    spend_rest: bool = True
    halve_pairs: bool = False
    seed_events: bool = True
    look_growth: float = 1.5
    max_bet: float = 0.5
    probe: bool = False
    probe_share: float = 0.5
    probe_extra: bool = False
    probe_look_growth: float | None = None
    probe_max_bet: float | None = None

    @classmethod
    def fixed_split(cls, **options: Any) -> RoundsDesign:
        """The fixed-n audit's own split, with a certification that stops early: one round whose search and
        selection are exactly the plan's (the ``n_search`` and ``n_select`` given to ``audit``, or their defaults),
        then the anytime-valid test of :mod:`.engine` on at most ``max_samples − search − selection`` releases
        per side (default: the plan's ``n_samples``), stopping at the first certified violation or for futility.

        A design for per-call estimators (a release costs milliseconds; :meth:`per_call` puts a probe round
        before it): it keeps the fixed-n audit's event
        search whole (the growing rounds of the default design select on a quarter of it in their first round
        and can miss an event only the full selection finds) and saves only certification releases.  With one
        round there is no α to split between rounds: the test runs at the audit's full α (Bonferroni over
        ``n_certify`` events as usual).  Its certified bound at a violation sits just above the claim (the test
        stops as soon as the claim is refuted); ``details["sequential"]["point_estimate"]`` shows the size of
        the leak as a point estimate.

        Parameters
        ----------
        **options
            Other :class:`RoundsDesign` fields (``method``, ``futility``, ``futility_level``, ``prior_weight``).

        Returns
        -------
        RoundsDesign
            The design (``single_round=True``).
        """
        for k in ("first_select", "growth", "certify_ratio", "search_ratio", "single_round"):
            if k in options:
                raise ValueError(f"{k} is set by fixed_split (the plan's own sizes), got {k}={options[k]!r}")
        return cls(single_round=True, **options)

    @classmethod
    def per_call(cls, **options: Any) -> RoundsDesign:
        """The design for estimators that cost milliseconds a release (``check_privacy_audit`` of an estimator tagged
        ``expensive`` uses it): a probe round at a tenth of α, with looks every ×1.2 and bets up to 0.8 of the largest
        valid bet, then, unless the probe certified a violation, the plan's own split (:meth:`fixed_split`'s round,
        with its looks every ×1.5 and bets up to 0.5) at the α left; the probe's releases come on top of the fixed-n
        budget (``probe_extra``), so the split keeps the plan's whole certification size; the pair search's events
        among the selection's candidates.

        The probe selects on 1 % of the fixed-n budget (search, selection and certification per side), at least
        ``MIN_ROUND`` = 20 and at most ``PROBE_MAX_SELECT`` = 200 releases per side, and certifies on up to four
        times that (``certify_ratio``); with the search's share the whole probe is about (5 + #pairs/2) % of the
        fixed-n budget.  Measured on a Laplace mechanism of scale 1 with the pair (0, 1), ``n_samples`` = 10⁵, 12
        seeds each: at a claim of 0.5 (a 2× leak) the 200-release probe certified the violation at 12/12 seeds, a
        median of 584 releases per side; the former probe of 20 releases found it at 0/12 and the split then needed a
        median of 25 191 (its whole selection); a correct claim (1.0) pays 113 341 instead of 112 495 per side (0.75 %
        more).  The diffprivlib models' budgets (~300 to ~1 500 per side) keep the 20-release probe; on diffprivlib's
        KMeans at ε = 1 (a weak leak, full profile, held-out seeds 7000-7039) per_call and the fixed split were
        "violated" at the same 30 of 40 seeds (the probe on a stream of its own: the split sees exactly the releases
        the fixed split draws).  ``first_select`` fixes the probe's size instead.

        Parameters
        ----------
        **options
            Other :class:`RoundsDesign` fields, or overrides of the ones above.

        Returns
        -------
        RoundsDesign
            The design.
        """
        base = dict(
            probe=True,
            probe_share=0.1,
            probe_extra=True,
            seed_events=True,
            probe_look_growth=1.2,
            probe_max_bet=0.8,
        )
        return cls(**{**base, **options})

    def __post_init__(self):
        if self.method not in METHODS:
            raise ValueError(f"method must be one of {METHODS}, got {self.method!r}")
        if self.first_select is not None:
            check_int("first_select", self.first_select, minimum=MIN_ROUND)
        check_prob("max_bet", self.max_bet)
        if self.probe_max_bet is not None:
            check_prob("probe_max_bet", self.probe_max_bet)
        if not 0.0 < float(self.probe_share) < 1.0:
            raise ValueError(f"probe_share must be in (0, 1), got {self.probe_share!r}")
        bounds = (("growth", 1.0), ("certify_ratio", 0.0), ("search_ratio", 0.0), ("look_growth", 1.0))
        if self.probe_look_growth is not None:
            bounds += (("probe_look_growth", 1.0),)
        for name, lo in bounds:
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or v <= lo:
                raise ValueError(f"{name} must be a finite number > {lo:g}, got {v!r}")
        if self.futility not in FUTILITY_MODES:
            raise ValueError(f"futility must be one of {FUTILITY_MODES}, got {self.futility!r}")
        check_prob("futility_level", self.futility_level)
        check_int("prior_weight", self.prior_weight, minimum=0)
        for name in ("single_round", "spend_rest", "halve_pairs", "seed_events", "probe", "probe_extra"):
            if not isinstance(getattr(self, name), bool):
                raise ValueError(f"{name} must be a bool, got {getattr(self, name)!r}")


def as_design(sequential: Any) -> RoundsDesign:
    """The :class:`RoundsDesign` an ``audit(sequential=...)`` argument stands for: ``True`` (betting),
    ``"betting"``, ``"union"``, ``"fixed_split"`` (:meth:`RoundsDesign.fixed_split`), ``"per_call"``
    (:meth:`RoundsDesign.per_call`) or a :class:`RoundsDesign`.

    Parameters
    ----------
    sequential : bool, str or RoundsDesign
        The argument.

    Returns
    -------
    RoundsDesign
        The design.
    """
    if isinstance(sequential, RoundsDesign):
        return sequential
    if sequential is True:
        return RoundsDesign()
    if isinstance(sequential, str) and sequential in METHODS:
        return RoundsDesign(method=sequential)
    if sequential == "fixed_split":
        return RoundsDesign.fixed_split()
    if sequential == "per_call":
        return RoundsDesign.per_call()
    raise ValueError(
        f"sequential must be False, True, 'fixed_split', 'per_call', a method name in {METHODS} or a RoundsDesign, "
        f"got {sequential!r}"
    )
